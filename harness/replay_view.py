"""`epi replay`: an episode replayed in the terminal, turn by turn, with the first error marked.

Renders an `EpisodeTimeline` (harness.viewer.timeline) with rich. Every piece of trace text goes in
as a `rich.text.Text`, never as markup, and the whole timeline is made inert first (harness.terminal_text:
escape sequences, control characters and bidi overrides shown, not obeyed), so model output, tool output
and paper text cannot restyle, hide, retitle, link or clear anything.
"""
from __future__ import annotations

import json
from pathlib import Path
from contextlib import nullcontext
from typing import Any, Callable, ContextManager

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from .terminal_text import inert, inert_all
from .viewer.run_files import RunFiles
from .reports._view import MARK_LABEL, ReportView
from .viewer.timeline import EpisodeTimeline, ImageRef, StepView, TurnTimeline, build_timeline

FAILURE_TAG = "✖ FIRST ERROR"
_KIND_LABEL = {
    "retry": "retry", "error": "error", "budget_exhausted": "budget", "limit_hit": "limit", "final_answer": "answer",
    "no_tool_step": "no tool", "memory_compacted": "memory", "agent_check": "agent check",
}


def _short(value: Any, limit: int) -> str:
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _display_path(path: str) -> str:
    """A path relative to the working directory when it is under it (shorter to read, still usable)."""
    p = Path(path)
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


def _image_line(img: ImageRef) -> str:
    if img.path:
        return _display_path(img.path)
    return img.name + (" (outside the run's folder: not read)" if img.outside else " (file missing)")


def format_call(step: StepView, limit: int = 60) -> str:
    """`tool(arg=value, ...)` with long values shortened."""
    args = ", ".join(f"{k}={_short(json.dumps(v, ensure_ascii=False), limit)}" for k, v in step.args.items())
    return f"{step.tool}({args})"


def _header(tl: EpisodeTimeline) -> Panel:
    if tl.success is None:
        verdict = Text("not scored", style="yellow")
    elif tl.success:
        verdict = Text("SUCCESS", style="bold green")
    else:
        verdict = Text("FAILED", style="bold red")
    facts = [f"split {tl.split or '?'}", tl.task_type or "?", tl.initiation or "?", f"{tl.n_turns} turns", f"status {tl.status}"]
    if tl.bucket:
        facts.append(f"bucket {tl.bucket}")
    body = Text.assemble(verdict, "  ", " · ".join(facts), "\n",
                         f"tool calls {tl.tool_calls}" + (f" (+{tl.refused_calls} refused)" if tl.refused_calls else "")
                         + f" · model calls {tl.model_calls} · tokens {tl.tokens} · {tl.wall_s:.1f}s")
    if tl.failure is not None:
        f = tl.failure
        body.append("\n")
        body.append(f"{FAILURE_TAG}: {f.type}", style="bold red")
        where = f" at turn {f.turn}, step {f.step or 'answer'}" if f.turn else " before any turn ran"
        body.append(where + " — ")
        body.append(f.why)
    for note in tl.notes:
        body.append(f"\nnote: {note}", style="yellow")
    title = Text.assemble(("episode ", "dim"), (tl.episode_id, "bold"), ("  run ", "dim"), tl.run_id,
                          ("  agent ", "dim"), tl.agent or "?")
    return Panel(body, title=title, title_align="left", border_style="red" if tl.success is False else "cyan")


def _step_cells(step: StepView) -> tuple[Text, Text, Text, Text]:
    """(call, observation, evidence, budget-left) cells of one timeline row."""
    if step.kind == "tool_call":
        call = Text(format_call(step), style="bold")
    else:
        call = Text(_KIND_LABEL[step.kind], style="bold magenta" if step.kind != "final_answer" else "bold")
    if step.reasoning:
        call.append("\n")
        call.append(_short(step.reasoning, 240), style="italic dim")
    if step.failure is not None:
        call.append("\n")
        call.append(f"{FAILURE_TAG}: {step.failure.type}", style="bold white on red")
        call.append("\n")
        call.append(step.failure.why, style="red")
    obs = Text(_short(step.summary, 220))
    if step.error:
        obs.append(("\n" if obs else "") + f"error ({step.error_kind or '?'}): {_short(step.error, 200)}", style="red")
    if step.refused:
        obs.append("\nrefused: a step of the budget, not a tool call", style="dim")
    for img in step.images:
        obs.append(f"\nimage: {_image_line(img)}", style="cyan")
    evidence = Text("\n".join(step.evidence), style="green")
    left = Text("" if step.budget_left is None else str(step.budget_left), justify="right")
    return call, obs, evidence, left


def _answer_and_evidence(t: TurnTimeline) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    mark = {True: ("✓ correct", "bold green"), False: ("✗ wrong", "bold red"), None: ("? unscored", "yellow")}[t.correct]
    agent = Text(t.answer if t.answer is not None else "(no answer)", style="bold")
    if t.answer_source and t.answer_source != "agent":
        agent.append(f"  [from {t.answer_source}]", style="yellow")
    grid.add_row("agent answer", Text.assemble(agent, "   ", mark))
    grid.add_row("gold answer", Text(t.gold if t.gold is not None else "(episode file not available)", style="bold"))
    if t.required:
        req = Text()
        for i, e in enumerate(t.required):
            if i:
                req.append("\n")
            req.append(f"✓ {e.unit}" if e.accessed else f"✗ {e.unit}  (not accessed)",
                       style="green" if e.accessed else "red")
        grid.add_row("evidence required", req)
    else:
        grid.add_row("evidence required", Text("(none annotated)", style="dim"))
    grid.add_row("accessed this turn", Text(", ".join(t.accessed) if t.accessed else "(none)"))
    grid.add_row("in memory before", Text(", ".join(t.from_memory) if t.from_memory else "(none)"))
    return grid


def _turn(t: TurnTimeline, n_turns: int, report: bool = False) -> RenderableType:
    head = Text.assemble((f"Q{t.turn}: ", "bold cyan"), t.question)
    if t.cue_text:
        head.append("\ncue: ", style="dim")
        head.append(t.cue_text)
    if t.cue_image is not None:
        head.append(f"\ncue image: {_image_line(t.cue_image)}", style="cyan")
    tools = ", ".join(t.allowed_tools) if t.allowed_tools else "none"
    head.append(f"\ntools: {tools} · budget {t.budget if t.budget is not None else '?'}"
                f" · model calls {t.model_calls} · tokens {t.tokens}", style="dim")
    if t.memory_only:
        head.append("  MEMORY-ONLY TURN", style="bold yellow")
    table = Table(expand=True, show_lines=True, header_style="bold dim")
    table.add_column("#", justify="right", width=3)
    table.add_column("step", ratio=4)
    table.add_column("observation", ratio=4, overflow="fold")
    table.add_column("evidence", ratio=2)
    table.add_column("left", justify="right", width=4)
    for s in t.steps:
        number = Text(str(s.step) if s.kind == "tool_call" else "·", style=None if s.kind == "tool_call" else "dim")
        table.add_row(number, *_step_cells(s), style="on grey19" if s.failure else None)
    if not t.steps:
        table.add_row("", Text("(this turn did not run)", style="yellow"), "", "", "")
    style = "red" if t.failure or t.correct is False else "green" if t.correct else "white"
    if report:  # the report itself follows, with its claims marked
        return Group(Rule(Text(f"Turn {t.turn}/{n_turns} (report)", style="bold"), style="cyan"), head, table)
    return Group(Rule(Text(f"Turn {t.turn}/{n_turns}", style="bold"), style=style), head, table, _answer_and_evidence(t))


_MARK = {"true": ("✓", "green"), "false": ("✗", "bold red"), "uncited": ("⊘", "yellow"), "unread": ("◌", "dark_orange"),
         "off_persona": ("⚑", "magenta"), "unknown": ("?", "dim")}


def _num(v: float | None, digits: int = 2) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _report(rep: ReportView) -> RenderableType:
    """The report with every claim marked after its sentence, citations with the step that opened them, the claims
    and the judged numbers with their judge and calibration. All of it is data (Text), never markup."""
    head = Text(f"Report (turn {rep.turn}) · claims read by {inert(rep.extraction)}\n", style="bold")
    for m, (sym, style) in _MARK.items():
        head.append(f"{sym} {MARK_LABEL[m]} {rep.counts.get(m, 0)}  ", style=style)
    for p in rep.problems:
        head.append(f"\nproblem: {inert(p)}", style="yellow")
    body = Text()
    for piece in rep.pieces:
        if piece.claims:
            for i in piece.claims:
                sym, style = _MARK[rep.claims[i].primary]
                body.append(f"[{sym}{i + 1}]", style=style)
        elif piece.cite is not None:
            c = rep.citations[piece.cite]
            body.append(inert(piece.text), style="cyan" if c.turn is not None and all(c.opened) else "strike dark_orange")
        else:
            mark = rep.sentence_marks[piece.sentence] if piece.sentence is not None else None
            body.append(inert(piece.text), style=None if mark in (None, "true") else _MARK[mark][1])
    claims = Table(expand=True, header_style="bold dim", show_lines=False)
    for col, kw in (("#", {"justify": "right", "width": 3}), ("claim", {"ratio": 4}), ("marks", {"ratio": 2}),
                    ("read by", {"ratio": 1}), ("judged support", {"ratio": 3})):
        claims.add_column(col, **kw)
    for i, c in enumerate(rep.claims):
        marks = Text()
        for m in c.marks:
            marks.append(f"{_MARK[m][0]} {MARK_LABEL[m]} ", style=_MARK[m][1])
        what = Text(inert(c.text))
        if c.violates:
            what.append(f"\nbreaks: {inert(c.violates)}", style="magenta")
        claims.add_row(str(i + 1), what, marks, Text(inert(c.extracted_by)), Text(inert("; ".join(c.support) or "–"), style="dim"))
    cites = Text()
    for c in rep.citations:
        where = f"opened at turn {c.turn}, step {c.step}" if c.turn is not None else "never opened in this episode"
        cites.append(inert(f"{c.text} → {', '.join(c.units)}: {where}") + "\n", style="cyan" if c.turn is not None else "dark_orange")
    parts: list[RenderableType] = [head, Panel(body, border_style="dim"), claims, cites]
    j = rep.judged
    if j is not None:
        jt = Text(inert(f"Judged by {j.judge} · {j.calibration_label}"), style="bold")
        if j.flae is not None:
            f = j.flae
            jt.append(f"\nFLAE (MMDR-Bench) {_num(f.value, 1)}/100: ")
            jt.append("; ".join(f"{d.upper()}. formula {_num(f.formula.get(d))} judge {_num((f.judged or {}).get(d))} "
                                f"fused {_num((f.fused or {}).get(d))} weight {_num((f.weights or {}).get(d))}"
                                for d in ("read", "insh", "stru")))
            jt.append(f"; alpha {_num(f.alpha)} (Eq. 8: {_num(f.alpha_det)})" + (f"; {inert(f.error)}" if f.error else ""))
        if j.personalization is not None:
            p = j.personalization
            jt.append(f"\nP-Score (PDR) {_num(p.value)}/10: " + "; ".join(
                f"{d.replace('_', ' ')} {_num(v.score)} (weight {_num(v.weight)})" for d, v in p.dimensions.items())
                + (f"; {inert(p.error)}" if p.error else ""))
        if j.support:
            jt.append(f"\nJudged support: {j.judged_supported} of {j.cited} cited claims supported by a source the agent read")
        if j.extraction is not None:
            x = j.extraction
            jt.append(f"\nJudged extraction ({x.prompt_version}): {x.sentences} sentence(s) sent, {x.claims} claim(s) added"
                      + (f", refused: {inert('; '.join(x.refused))}" if x.refused else ""))
        parts.append(jt)
    return Group(*parts)


def render_episode(tl: EpisodeTimeline, console: Console) -> None:
    """Print the whole episode: header, then each turn's steps, answer and evidence (a report turn: the report with
    its claims marked)."""
    tl = inert_all(tl)
    console.print(_header(tl))
    for t in tl.turns:
        is_report = tl.report is not None and tl.report.turn == t.turn
        console.print(_turn(t, tl.n_turns, is_report))
        if tl.report is not None and is_report:
            console.print(_report(tl.report))
        console.print()


def replay(files: RunFiles, episode_id: str | None, *, failed: bool, console: Console,
           ask_next: Callable[[str], bool] | None = None, limit: int | None = None,
           page: Callable[[], ContextManager[Any]] | None = None) -> list[str]:
    """Print one episode, or walk the failed ones (from `episode_id` on, if given); return the ids shown.

    `ask_next(next_id)` is asked before each further episode (a terminal); `limit` stops after that many episodes
    and says how to see the rest (None: no limit); `page()` wraps each failed episode (a terminal: the pager).
    """
    known = files.episode_ids()
    if not failed:
        if episode_id is None:
            raise ReplayError("name an EPISODE to replay, or pass --failed")
        if episode_id not in known:
            raise ReplayError(f"episode {episode_id!r} is not in run {files.run_id} ({_some(known)})")
        render_episode(build_timeline(files, episode_id), console)
        return [episode_id]
    todo = files.failed_ids()
    if not files.scores:
        raise ReplayError(f"run {files.run_id} has no scores, so no failed episodes can be listed: {'; '.join(files.notes)}")
    if episode_id is not None:
        if episode_id not in todo:
            raise ReplayError(f"episode {episode_id!r} is not a failed episode of run {files.run_id} ({_some(todo)})")
        todo = todo[todo.index(episode_id):]
    if not todo:
        console.print(Text(f"run {inert(files.run_id)}: no failed episodes", style="green"))
        return []
    console.print(Text(f"run {inert(files.run_id)}: {len(todo)} failed episode(s)", style="bold"))
    shown: list[str] = []
    for i, eid in enumerate(todo):
        if limit is not None and i >= limit:
            console.print(Text(
                f"shown {i} of {len(todo)} failed episodes; the next is {eid}: `--limit N` shows N (0: all), "
                "`epi replay RUN EPISODE --failed` starts at an episode", style="bold"))
            break
        if i and ask_next is not None and not ask_next(eid):
            break
        with page() if page is not None else nullcontext():
            render_episode(build_timeline(files, eid), console)
        shown.append(eid)
    return shown


class ReplayError(Exception):
    """Replay asked for something the run does not have (the CLI shows it as a user error)."""


def _some(ids: list[str], n: int = 8) -> str:
    if not ids:
        return "it has none"
    return "known: " + ", ".join(ids[:n]) + (f", … {len(ids) - n} more" if len(ids) > n else "")
