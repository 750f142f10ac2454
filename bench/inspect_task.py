"""The Inspect AI side of bench/vs_inspect.py: sandbox-v1 episodes as Inspect samples, run turn by turn.

Runs inside Inspect's own virtual environment (it imports nothing of epiharness). Each episode is one
sample; the solver adds each turn's question (and cue text and image, as epi's agent sends them) as a
user message and lets the model call tools in a loop until it answers, like epi's OpenAI agent. The
five tools carry epi's names and are no-ops that return a fixed text about as long as a web_search
result, so both conversations grow alike. Memory-only turns offer no tools, as in epi.

    inspect eval bench/inspect_task.py -T episodes=episodes/sandbox-v1.jsonl -T limit=20 \
        --model openai-api/scripted/scripted
"""
from __future__ import annotations

import base64
import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.solver import Generate, TaskState, solver, system_message
from inspect_ai.tool import ToolDef

SYSTEM = (
    "You are a research assistant working through a short research episode about scientific papers. "
    "Each turn asks one question. Use the tools to find papers, open them and read the figure, table or "
    "passage the question needs; later turns may build on what you gathered. Call one tool at a time and "
    "read its result. When you can answer, reply with no tool call and a last line `Final answer: <answer>`."
)
RESULT = ("1. A paper title about the topic asked\n   paper id: P000\n   url: https://sandbox.local/papers/P000\n"
          "   Authors of the paper. Venue 2020. " + "An abstract sentence about the method and results. " * 4 + "\n") * 5


async def _noop(paper: str = "", query: str = "", k: int = 5) -> str:
    """A tool that does nothing.

    Args:
      paper: paper id, title, URL or arXiv id
      query: what to look for
      k: how many results to return
    """
    return RESULT


def _tool(name: str, description: str) -> ToolDef:
    return ToolDef(_noop, name=name, description=description)


def _tools() -> list[ToolDef]:
    return [
        _tool("web_search", "Search the web (or the sandbox corpus) for papers; returns ranked titles, snippets, URLs and ids."),
        _tool("pdf_extract", "Read a paper as markdown with section headings and page markers."),
        _tool("pdf_rag", "Find the passages of one paper that answer a question."),
        _tool("figure_extract", "Extract a figure from a paper as an image, with its caption."),
        _tool("table_extract", "Extract a table from a paper as rows of cells, with its caption."),
    ]


@solver
def episode_turns():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        tools = [d.as_tool() for d in _tools()]
        state.messages = [m for m in state.messages if m.role == "system"]  # the turns bring the questions
        for t, turn in enumerate(state.metadata["turns"], 1):
            text = f"Turn {t} of {len(state.metadata['turns'])}.\nQuestion: {turn['question']}"
            cue = turn.get("cue") or {}
            if cue.get("text"):
                text += f"\nCue: {cue['text']}"
            content: list = [ContentText(text=text)]
            if cue.get("image"):
                png = (Path(state.metadata["dir"]) / cue["image"]).read_bytes()
                content.append(ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode("ascii")))
            state.messages.append(ChatMessageUser(content=content))
            state.tools = [] if turn.get("memory_only") else tools
            state = await generate(state, tool_calls="loop")
        return state

    return solve


@task
def sandbox_episodes(episodes: str, limit: int = 20) -> Task:
    path = Path(episodes).resolve()
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()][: int(limit)]
    samples = [Sample(id=r["id"], input="", metadata={"turns": r["turns"], "dir": str(path.parent)}) for r in rows]
    return Task(dataset=MemoryDataset(samples), solver=[system_message(SYSTEM), episode_turns()])
