"""`epi agent check CMD`: the protocol's conformance checks, run against a user's agent program.

The program plays one two-turn episode through the real runner and bridge, against a scripted model
(that always calls a tool while tools are offered) and a three-paper world, with a budget of 2. What
it did is then read from the trace, and each check says what is wrong when it fails:

1. it starts, reads the episode and turn lines, and answers each turn with one answer line on stdout;
2. it asks the model through the bridge's endpoint (OPENAI_BASE_URL, the token as the key);
3. it runs the tools through the bridge's tool endpoint;
4. past the budget, it sends exactly one request without tools and answers from it;
5. on the memory-only turn it sends no tools and calls none;
6. its answers are what the model answered (the text after `Final answer:`).
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools import World
from tools._world import PaperMeta, PaperNotFound, SearchHit

TITLE = "Contrastive Pretraining of Chart Readers"
_PAPERS = {
    "P001": ("Sparse Mixture Routing for Long Documents", "We route tokens among experts for long inputs."),
    "P002": (TITLE, "Chart images paired with their data tables."),
    "P003": ("Budgeted Tool Use in Research Agents", "Agents that plan tool calls under a step budget."),
}
_KEY_ENV = "EPI_AGENT_CHECK_KEY"
BUDGET = 2


class _CheckWorld(World):
    name = "agent-check"

    async def search(self, query: str, k: int) -> list[SearchHit]:
        words = set(query.lower().split())
        hits = sorted(((len(words & set((t + " " + a).lower().split())), pid, t, a) for pid, (t, a) in _PAPERS.items()),
                      key=lambda x: (-x[0], x[1]))
        return [SearchHit(title=t, url=f"https://sandbox.local/papers/{p}", snippet=a, score=float(s), paper_id=p)
                for s, p, t, a in hits[:k]]

    async def resolve(self, ref: str) -> PaperMeta:
        if ref not in _PAPERS:
            raise PaperNotFound(f"no paper {ref!r}")
        return PaperMeta(id=ref, title=_PAPERS[ref][0])

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        raise OSError("the check's world has no PDFs")


def _episode() -> dict[str, Any]:
    return {
        "id": "agent-check", "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "ml",
        "turns": [
            {"question": "Which paper studies chart readers? Give its title.",
             "cue": {"text": "a paper on contrastive pretraining of chart readers"},
             "answer": {"format": "text", "value": TITLE},
             "checklist": [{"tool": "web_search", "args": {"query": "contrastive pretraining chart readers"}}]},
            {"question": "Is the paper from turn 1 about charts? Answer A (yes) or B (no).", "memory_only": True,
             "answer": {"format": "choice", "value": "A", "choices": {"A": "yes", "B": "no"}}},
        ],
    }


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


async def run_checks(cmd: str, *, agent_dirs: list[Path], agent_env: list[str], sandbox: str,
                     timeout_s: float = 60.0) -> list[Check]:
    from harness.agent import AgentConfig
    from harness.rundir import RunDir
    from harness.runner import run_episodes
    from harness.settings import RunSettings
    from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

    script = Script(responses=[
        ScriptItem.model_validate({"content": f"Final answer: {TITLE}", "match": {"tools_offered": False,
                                                                                  "contains": "chart readers"}}),
        ScriptItem.model_validate({"content": "Final answer: A", "match": {"tools_offered": False,
                                                                           "contains": "about charts"}}),
    ], default=ScriptItem.model_validate(
        {"tool_calls": [{"name": "web_search", "arguments": {"query": "chart readers"}}]}))
    os.environ.setdefault(_KEY_ENV, "agent-check")
    with tempfile.TemporaryDirectory(prefix="epi-agent-check-") as tmp, ScriptedModelServer(script) as srv:
        root = Path(tmp)
        eps = root / "episodes.jsonl"
        eps.write_text(json.dumps(_episode()) + "\n", encoding="utf-8")
        config = AgentConfig(model="check-model", base_url=srv.base_url, api_key_env=_KEY_ENV, request_timeout_s=10,
                             max_retries=0, agent_cmd=cmd, agent_dir=agent_dirs, agent_env=agent_env,
                             agent_sandbox=sandbox, agent_timeout_s=timeout_s)  # type: ignore[arg-type]
        settings = RunSettings(agent="bridge", episodes=eps, results=root / "results", run_id="check",
                               max_steps=BUDGET, disable_tools=["pdf_extract", "pdf_rag", "figure_extract", "table_extract"],
                               concurrency=1, score=False, agent_config=config)
        summary = await run_episodes(settings, world=_CheckWorld(root / "cache"))
        trace = RunDir(summary.run_dir).read_trace("agent-check")
        return _judge(trace.events)


def _judge(evs: list[Any]) -> list[Check]:
    of = lambda kind, turn=None: [e for e in evs if e.kind == kind and (turn is None or e.turn == turn)]  # noqa: E731
    out: list[Check] = []
    errors = of("error")
    answers = {e.turn: e for e in of("final_answer")}
    if errors:
        e = errors[0]
        detail = e.message + (f"\n{e.detail}" if e.detail else "")
        out.append(Check("speaks the protocol (episode and turn lines in, one answer line per turn out)", False, detail))
    else:
        out.append(Check("speaks the protocol (episode and turn lines in, one answer line per turn out)", True))
    calls = of("model_call")
    sent = [c for c in calls if c.error is None]
    out.append(Check("asks the model through the bridge (OPENAI_BASE_URL, the episode token as the key)", bool(sent),
                     "" if sent else "no model request reached the bridge: use the base_url and token of the episode line "
                                     "(or OPENAI_BASE_URL / OPENAI_API_KEY)"))
    ran = [t for t in of("tool_call", 1) if t.executed]
    out.append(Check("runs tools through the bridge's tool endpoint", bool(ran),
                     "" if ran else "no tool call reached the bridge although the model asked for one: POST each call to "
                                    "tool_call_url"))
    fallback = [c for c in calls if c.turn == 1 and c.purpose == "budget_fallback" and c.error is None]
    after = [c for c in calls if c.error and "(turn_over)" in c.error]
    t1 = answers.get(1)
    if not of("budget_exhausted", 1):
        out.append(Check("stops at the budget: one request without tools, then answers", False,
                         f"the budget of {BUDGET} was never used up although the model kept calling tools"))
    elif len(fallback) != 1 or after:
        why = "no request without tools after the budget error" if not fallback else (
            f"{len(after)} request(s) after the one allowed without tools")
        out.append(Check("stops at the budget: one request without tools, then answers", False,
                         f"{why}: on the error 'budget used up', send exactly one request without `tools`, then answer"))
    else:
        out.append(Check("stops at the budget: one request without tools, then answers", True))
    tried = [c for c in calls if c.turn == 2 and c.error and "(no_tools_this_turn)" in c.error] + of("tool_call", 2)
    ok2 = 2 in answers and not tried
    out.append(Check("answers the memory-only turn without tools", ok2,
                     "" if ok2 else ("it offered or called tools on a turn whose line has no tools (memory_only): "
                                     f"{len(tried)} refused" if tried else "no answer for turn 2")))
    got = [answers[t].answer if t in answers else None for t in (1, 2)]
    ok = got == [TITLE, "A"]
    out.append(Check("answers with what the model said (the text after 'Final answer:')", ok,
                     "" if ok else f"answers {got!r}, the model said {[TITLE, 'A']!r}"))
    return out
