"""A person plays the episode in the terminal, through the same tools and budgets (the human baseline).

Each step shows the question, the cue, the answer format, the budget left, the tools with their
parameters and a summary of the episode memory; the person types a command:

    <tool> {"json": "args"}    or    <tool> key=value key2="two words"     call a tool (one step)
    answer <text>                                                         give the final answer
    show <k>                                                              print memory item k in full
    help                                                                  list the commands

Mistyped commands are explained and asked again (they cost no step). For tests and scripted
sessions, `config.extra["input"]` is a file (path or text stream) to read commands from and
`config.extra["output"]` a file to print to. Prefer paths: run.json serialises the config.
"""
from __future__ import annotations

import asyncio
import json
import shlex
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.prompt import Prompt
from rich.table import Table
from rich.text import Text

from harness.agent import AgentConfig, BaseAgent, EpisodeInfo, FinalAnswer, ToolCall, TurnContext, TurnView
from harness.terminal_text import inert

from ._prompt import answer_instructions

HELP = (
    "Commands: `<tool> {json args}` or `<tool> key=value ...` to call a tool; `answer <text>` to answer; "
    "`show <k>` to read memory item k in full; `help`."
)


def _plain(text: str) -> str:
    """Episode or paper text for a markup line: shown as written, never obeyed (markup escaped, controls inert)."""
    return escape(inert(text))


class CommandError(ValueError):
    """A command the person typed that cannot be used; the message says why."""


def parse_args(text: str) -> dict[str, Any]:
    """Tool arguments typed as a JSON object or as key=value pairs (values parsed as JSON when they can be)."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise CommandError(f"the arguments are not valid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(value, dict):
            raise CommandError("the JSON arguments must be an object like {\"query\": \"...\"}")
        return value
    out: dict[str, Any] = {}
    try:
        parts = shlex.split(text)
    except ValueError as e:
        raise CommandError(f"cannot split the arguments: {e}") from None
    for part in parts:
        if "=" not in part:
            raise CommandError(f"{part!r} is not key=value; write e.g. query=\"graph networks\" or give a JSON object")
        key, raw = part.split("=", 1)
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _open(where: Any, mode: str) -> TextIO | None:
    """A stream given directly, or a file path (a path keeps run.json serialisable and the stream unread)."""
    if where is None or hasattr(where, "readline" if mode == "r" else "write"):
        return where
    return open(str(where), mode, encoding="utf-8")  # noqa: SIM115 - lives as long as the agent


class HumanAgent(BaseAgent):
    """Interactive terminal player."""

    name = "human"
    uses_gold = False

    def __init__(self, config: AgentConfig):
        self.config = config
        self.stream: TextIO | None = _open(config.extra.get("input"), "r")
        if self.stream is None and not sys.stdin.isatty():
            self.stream = sys.stdin  # piped commands: read lines and echo them so the transcript reads well
        self._shown = 0  # memory items already shown in full
        out = _open(config.extra.get("output"), "a")
        self.console = Console(file=out, width=110, highlight=False) if out is not None else Console(highlight=False)

    async def start_episode(self, info: EpisodeInfo) -> None:
        self.console.rule(f"Episode {info.episode_id} ({info.n_turns} turns, {info.split}, {info.task_type})")

    async def end_episode(self) -> None:
        self.console.rule("episode finished")

    def _show(self, view: TurnView) -> None:
        lines = [f"[bold]Turn {view.turn}/{view.n_turns}[/]  {_plain(view.question)}"]
        if view.cue_text:
            lines.append(f"[cyan]Cue:[/] {_plain(view.cue_text)}")
        if view.cue_image:
            lines.append(f"[cyan]Cue image:[/] {_plain(view.cue_image)}")
        lines.append(f"[yellow]{answer_instructions(view.answer_spec)}[/]")
        if view.fallback:
            lines.append("[red]Step budget used up: answer now (no tools).[/]")
        elif view.tools:
            noun = "tool calls" if view.budget_unit == "tool_call" else "steps"
            lines.append(f"Budget left: {view.budget_left} of {view.max_steps} {noun}")
        else:
            lines.append("No tools in this turn: answer from memory.")
        new = view.memory[self._shown:]
        self._shown = len(view.memory)
        for o in new if view.steps_used else []:  # the result of the call just made, in full (long text cut)
            body = o.error or o.text or "(no text)"
            if len(body) > 4000:
                body = body[:4000] + f"\n... [{len(body) - 4000} more characters: `show {view.memory.index(o) + 1}`]"
            imgs = "".join(f"\n[image: {i.path}]" for i in o.images)
            self.console.print(Panel(Text(inert(body + imgs)), title=Text(inert(f"result of {o.tool} (step {o.step})"))))
        self.console.print(Panel("\n".join(lines), title="question"))
        if view.tools and not view.fallback and view.steps_used == 0:
            table = Table("tool", "parameters", "what it does", show_lines=False)
            for t in view.tools:
                props = t.parameters.get("properties", {})
                req = set(t.parameters.get("required", []))
                params = ", ".join(f"{k}{'' if k in req else '?'}: {v.get('type', 'any')}" for k, v in props.items())
                desc = t.description if len(t.description) <= 100 else t.description[:99] + "…"
                table.add_row(t.name, params, desc)
            self.console.print(table)
        if view.memory:
            mem = Table("k", "turn.step", "tool", "result", show_lines=False)
            for k, o in enumerate(view.memory, 1):
                text = o.error or " ".join(o.text.split())
                extra = f" [{len(o.images)} image(s): {', '.join(i.path for i in o.images)}]" if o.images else ""
                mem.add_row(str(k), f"{o.turn}.{o.step}", Text(inert(o.tool)),
                            Text(inert((text[:90] + ("..." if len(text) > 90 else "")) + extra)))
            self.console.print(mem)
        for rec in view.history:
            self.console.print(Text(inert(f"earlier turn {rec.turn}: you answered {rec.answer!r}")))

    def _ask(self) -> str:
        """One line from the person; EOFError when the input ends (Prompt would return '' forever)."""
        if self.stream is None:
            return Prompt.ask("[bold green]>[/]", console=self.console)
        self.console.print("[bold green]>[/] ", end="")
        line = self.stream.readline()
        if line == "":
            raise EOFError
        self.console.print(line.rstrip("\n"), highlight=False)
        return line

    def _decide(self, view: TurnView) -> ToolCall | FinalAnswer:
        self._show(view)
        while True:
            try:
                line = self._ask().strip()
            except EOFError:
                self.console.print("input ended: no answer")
                return FinalAnswer(answer=None, reasoning="human input ended")
            if not line:
                continue
            cmd, _, rest = line.partition(" ")
            try:
                if cmd in ("answer", "a"):
                    if not rest.strip():
                        raise CommandError("write the answer after `answer`, e.g. `answer B`")
                    return FinalAnswer(answer=rest.strip(), reasoning="human answer")
                if cmd == "help":
                    self.console.print(HELP)
                    self.console.print("tools: " + ", ".join(view.tool_names) if view.tools else "no tools now")
                    continue
                if cmd == "show":
                    k = int(rest) if rest.strip().isdigit() else 0
                    if not 1 <= k <= len(view.memory):
                        raise CommandError(f"`show` needs a memory item number between 1 and {len(view.memory)}")
                    self.console.print(Panel(Text(inert(view.memory[k - 1].text or "(no text)")), title=f"memory item {k}"))
                    continue
                if view.fallback or not view.tools:
                    raise CommandError("no tools can be called now; give your answer with `answer <text>`")
                if cmd not in view.tool_names:
                    raise CommandError(f"unknown command or tool {cmd!r}; tools: {', '.join(view.tool_names)}. {HELP}")
                return ToolCall(tool=cmd, args=parse_args(rest), reasoning="human")
            except CommandError as e:
                self.console.print(Text(inert(str(e)), style="red"))

    async def step(self, ctx: TurnContext) -> ToolCall | FinalAnswer:
        return await asyncio.to_thread(self._decide, ctx.view)
