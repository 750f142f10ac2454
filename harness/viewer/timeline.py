"""An episode as a person reads it: turns, steps, evidence, gold against agent answer, failure marker.

Built from the three files a run leaves behind (the trace, the episode file named in run.json and the
scores), so the terminal replay and the HTML viewer show exactly the same thing. Reads files only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..episode import Answer, Episode, Turn
from ..rundir import Attempt, RunDir
from ..safe_paths import PathOutside, is_inside, resolve_inside
from ..trace import (
    AgentCheck, BudgetExhausted, ErrorEvent, FinalAnswerEvent, LimitHit, MemoryCompacted, NoToolStep, Retry, ToolCallEvent,
    TraceEvent,
)
from ..trace_fold import EpisodeFold, TurnFold, fold_trace
from ..scoring.model import EpisodeScore, FailureLabel, TurnScore
from ..scoring.process_model import EpisodeProcess, TurnProcess
from ..reports._view import ReportView, report_view
from .run_files import RunFiles

StepKind = Literal["tool_call", "no_tool_step", "memory_compacted", "retry", "error", "budget_exhausted", "limit_hit",
                   "final_answer", "agent_check"]


class ImageRef(BaseModel):
    """An image named in the trace, resolved to a file on disk when it exists."""

    name: str
    path: str | None = Field(default=None, description="absolute file path, None if the file is missing or not read")
    outside: bool = Field(default=False, description="the trace names a path outside the run's folder: not read")


class StepView(BaseModel):
    """One row of a turn's timeline: a tool call, or a retry, error, budget or limit event, or the answer."""

    kind: StepKind
    step: int
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    reasoning: str | None = None
    summary: str = ""
    result_text: str | None = None
    evidence: list[str] = Field(default_factory=list, description="evidence units exposed, 'P007 figure:2 p.3'")
    images: list[ImageRef] = Field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    budget_left: int | None = None
    duration_s: float = 0.0
    refused: bool = Field(default=False, description="the session refused the call: a step, not a tool call")
    failure: FailureLabel | None = None
    flags: list[str] = Field(default_factory=list, description="process marks: repeat, nothing new, off target, new query")


class EvidenceCheck(BaseModel):
    """One required evidence unit of a turn and whether the agent accessed it."""

    unit: str
    accessed: bool


class TurnTimeline(BaseModel):
    turn: int
    question: str = ""
    cue_text: str | None = None
    cue_image: ImageRef | None = None
    allowed_tools: list[str] = Field(default_factory=list)
    budget: int | None = None
    memory_only: bool = False
    steps: list[StepView] = Field(default_factory=list)
    answer: str | None = None
    answer_source: str | None = None
    gold: str | None = None
    correct: bool | None = None
    required: list[EvidenceCheck] = Field(default_factory=list)
    accessed: list[str] = Field(default_factory=list, description="units this turn's calls exposed")
    from_memory: list[str] = Field(default_factory=list, description="units held in memory from earlier turns (not re-read)")
    model_calls: int = 0
    tokens: int = 0
    failure: FailureLabel | None = None
    process: TurnProcess | None = Field(default=None, description="the turn's process metrics (from the scores)")


class AttemptView(BaseModel):
    """An earlier, failed attempt at the episode that `epi retry` set aside (kept in the run, never scored)."""

    number: int
    file: str = Field(description="the attempt's trace, relative to the run folder")
    status: str = "incomplete"
    bucket: str | None = None
    error: str | None = Field(default=None, description="the error that ended it")
    model_calls: int = 0
    tool_calls: int = 0


class EpisodeTimeline(BaseModel):
    run_id: str
    episode_id: str
    split: str | None = None
    task_type: str | None = None
    initiation: str | None = None
    agent: str | None = None
    n_turns: int = 0
    status: str = "incomplete"
    bucket: str | None = None
    success: bool | None = None
    errored: bool = Field(default=False, description="a provider, data-access or pipeline error before any wrong turn: "
                                                     "not a failure, left out of the scores (unless counted as failed)")
    failure: FailureLabel | None = None
    attempts: list[AttemptView] = Field(default_factory=list, description="earlier failed attempts (epi retry), oldest first")
    tool_calls: int = Field(default=0, description="executed tool calls")
    agent_checks: dict[str, int] = Field(default_factory=dict, description="agent_check events by check: the agent broke "
                                                                           "the protocol (refused, charged or flagged)")
    refused_calls: int = 0
    model_calls: int = 0
    tokens: int = 0
    wall_s: float = 0.0
    notes: list[str] = Field(default_factory=list, description="problems with the files: truncated, missing, bad lines")
    turns: list[TurnTimeline] = Field(default_factory=list)
    process: EpisodeProcess | None = Field(default=None, description="process metrics of the episode; per turn under turns")
    report: ReportView | None = Field(default=None, description="report episodes: the report with every claim marked, "
                                                                "citations linked to the steps that opened their units")


def format_gold(answer: Answer) -> str:
    """The gold answer as a reader wants it: value, tolerance, unit, option text, aliases."""
    v = answer.value
    if answer.format == "choice":
        text = f"{v}"
        if answer.choices and isinstance(v, str) and v in answer.choices:
            text += f" ({answer.choices[v]})"
    elif answer.format == "number":
        text = f"{v:g}" if isinstance(v, float) else str(v)
        if answer.tolerance:
            text += f" ± {answer.tolerance:g}"
        if answer.unit:
            text += f" {answer.unit}"
    elif answer.format == "set":
        text = "{" + ", ".join(str(x) for x in v) + "}"  # type: ignore[union-attr]
    else:
        text = str(v)
    if answer.aliases:
        text += f"  [also: {', '.join(answer.aliases)}]"
    return text


def _resolve_image(run: RunDir, episode_id: str, name: str | None, legacy_dir: Path | None = None) -> ImageRef | None:
    """An image a trace names, read only inside the run's folder (a trace is data: it may name any path). A relative
    name is looked for in the run, the episode's folder and traces/; an absolute path, written by older runs for
    cue images, is honoured inside the run or inside `legacy_dir` (the recorded episode file's folder). Any other
    path shows as not read, and its file is never opened or copied."""
    if not name:
        return None
    p = Path(name)
    shown = p.name
    if p.is_absolute():
        for home in [run.path, *([legacy_dir] if legacy_dir is not None else [])]:
            try:
                real = resolve_inside(home, p, allow_absolute=True)
            except PathOutside:
                continue
            return ImageRef(name=shown, path=str(real) if real.is_file() else None)
        return ImageRef(name=shown, path=None, outside=True)
    outside = False
    for c in (run.path / p, run.assets_dir(episode_id) / p, run.traces_dir / p):
        if not is_inside(c, run.path):
            outside = True
        elif c.is_file():
            return ImageRef(name=shown, path=str(c.resolve()))
    return ImageRef(name=shown, path=None, outside=outside)


# Which row a failure's step number means when several events share it (harness/scoring/attribution.py):
# perception fires at the call that exposed the unit, budget trouble at its event, the rest at the answer.
_PREFERRED_ROW: dict[str, tuple[str, ...]] = {
    "retrieve": ("final_answer", "tool_call"),
    "perception": ("tool_call", "final_answer"),
    "reading_memory": ("final_answer", "tool_call"),
    "reasoning": ("final_answer", "tool_call"),
    "others": ("budget_exhausted", "limit_hit", "error", "tool_call", "final_answer"),
}


def _place_failure(tl: EpisodeTimeline, mark: FailureLabel) -> None:
    """Attach the failure to its turn and to the step where it fired (the answer row if no step)."""
    if mark.turn == 0:  # nothing ran: the header shows it
        return
    turn = next((t for t in tl.turns if t.turn == mark.turn), None)
    if turn is None:
        tl.notes.append(f"failure {mark.type} names turn {mark.turn}, which the trace does not have")
        return
    turn.failure = mark
    at_step = [s for s in turn.steps if s.step == mark.step] if mark.step else []
    target = None
    for kind in _PREFERRED_ROW.get(mark.type, ("final_answer",)):
        target = target or next((s for s in at_step if s.kind == kind), None)
    target = target or (at_step[0] if at_step else None)
    target = target or next((s for s in reversed(turn.steps) if s.kind == "final_answer"), None)
    if target is None:
        target = StepView(kind="error", step=mark.step, summary="(the trace has no event at this point)")
        turn.steps.append(target)
    target.failure = mark


def _step_of(ev: TraceEvent, run: RunDir, episode_id: str) -> StepView | None:
    """The timeline row of one turn event (None for events that are not rows: turn start, model calls)."""
    if isinstance(ev, ToolCallEvent):
        return StepView(
            kind="tool_call", step=ev.step, tool=ev.tool, args=ev.args, reasoning=ev.reasoning,
            summary=ev.result_summary, result_text=ev.result_text, evidence=[u.label(page=True) for u in ev.exposed],
            images=[i for i in (_resolve_image(run, episode_id, n) for n in ev.images) if i],
            error=ev.error, error_kind=ev.error_kind, budget_left=ev.budget_left, duration_s=ev.duration_s,
            refused=not ev.executed)
    if isinstance(ev, NoToolStep):
        return StepView(kind="no_tool_step", step=ev.step, reasoning=ev.reply, summary=f"no tool called ({ev.reason}); "
                        f"{ev.no_tool_steps} of {ev.cap} such steps", result_text=ev.feedback)
    if isinstance(ev, MemoryCompacted):
        dropped = ", ".join(u.label() for u in ev.dropped) or "nothing"
        return StepView(kind="memory_compacted", step=ev.step, summary=f"earlier turns summarized; dropped: {dropped}",
                        result_text=ev.note)
    if isinstance(ev, Retry):
        return StepView(kind="retry", step=ev.step, summary=f"retry {ev.attempt} after {ev.wait_s:.1f}s", error=ev.error)
    if isinstance(ev, ErrorEvent):
        return StepView(kind="error", step=ev.step, summary=ev.message, error=ev.detail or ev.message, error_kind=ev.bucket)
    if isinstance(ev, BudgetExhausted):
        what = "steps without a tool call" if ev.ran_out == "no_tool_steps" else ev.unit.replace("_", " ") + "s"
        return StepView(kind="budget_exhausted", step=ev.step, summary=f"step budget of {ev.budget} used up ({what})",
                        budget_left=0)
    if isinstance(ev, LimitHit):
        return StepView(kind="limit_hit", step=ev.step, summary=f"{ev.limit} limit hit: {ev.value:g} of {ev.cap:g}")
    if isinstance(ev, AgentCheck):
        return StepView(kind="agent_check", step=ev.step, summary=f"agent check: {ev.check.replace('_', ' ')} ({ev.outcome})",
                        error=ev.detail, error_kind=ev.outcome)
    if isinstance(ev, FinalAnswerEvent):
        return StepView(kind="final_answer", step=ev.step, reasoning=ev.reasoning, summary=ev.answer or "(no answer)")
    return None


def _turn_timeline(tf: TurnFold, fold: EpisodeFold, run: RunDir, episode_id: str,
                   legacy_dir: Path | None = None) -> TurnTimeline:
    t = TurnTimeline(turn=tf.turn)
    if tf.start is not None:
        st = tf.start
        t.question, t.cue_text, t.allowed_tools, t.budget, t.memory_only = (
            st.question, st.cue_text, st.allowed_tools, st.budget, st.memory_only)
        t.cue_image = _resolve_image(run, episode_id, st.cue_image, legacy_dir)
    t.model_calls, t.tokens = len(tf.model_calls), tf.usage.total
    t.steps = [row for row in (_step_of(ev, run, episode_id) for ev in tf.events) if row is not None]
    t.answer, t.answer_source = tf.answer_text, (tf.answer.source if tf.answer else None)
    exposed = {u.key for u in tf.exposed}
    t.accessed = [u.label() for u in tf.exposed]
    t.from_memory = [u.label() for u in fold.memory_before(tf.turn) if u.key not in exposed]
    return t


def build_timeline(files: RunFiles, episode_id: str) -> EpisodeTimeline:
    """The readable timeline of one episode of a run (trace + gold + score), from the shared trace fold."""
    run = files.run
    fold = fold_trace(run.read_trace(episode_id))
    episode: Episode | None = files.episodes.get(episode_id)
    score = files.scores.get(episode_id)
    tl = EpisodeTimeline(run_id=files.run_id, episode_id=episode_id, notes=list(files.notes))
    if episode is not None:
        tl.split, tl.task_type, tl.initiation, tl.n_turns = (
            episode.split, episode.task_type, episode.initiation, len(episode.turns))
    if fold.missing:
        tl.notes.append("no trace file: the episode did not start in this run")
    elif fold.end is None:
        tl.notes.append("trace is truncated (no episode_end): shown as far as it goes")
    if fold.bad_lines:
        tl.notes.append(f"unreadable trace lines skipped: {fold.bad_lines[:10]}")
    if fold.start is not None:
        st = fold.start
        tl.split, tl.task_type, tl.initiation, tl.agent, tl.n_turns = st.split, st.task_type, st.initiation, st.agent, st.n_turns
    if fold.end is not None:
        tl.status, tl.bucket = fold.end.status, fold.end.bucket
    tl.tool_calls, tl.refused_calls, tl.model_calls, tl.tokens = (
        fold.tool_calls, fold.refused_calls, fold.model_calls, fold.usage.total)
    tl.wall_s = fold.wall_time_s
    legacy_dir = files.episodes_path.parent if files.episodes_path is not None and episode is not None else None
    turns = {tf.turn: _turn_timeline(tf, fold, run, episode_id, legacy_dir) for tf in fold.ordered_turns}
    if episode is not None:
        for i, gold_turn in enumerate(episode.turns, 1):
            _add_gold(turns.setdefault(i, TurnTimeline(turn=i)), gold_turn)
    tl.turns = [turns[k] for k in sorted(turns)]
    tl.n_turns = tl.n_turns or len(tl.turns)
    if score is not None:
        _apply_score(tl, score)
        if score.report is not None and score.report.turn in fold.turns:
            tl.report = report_view(fold.turns[score.report.turn].answer_text or "", score.report, fold)
    tl.attempts = [_attempt(run, a) for a in run.attempts(episode_id)]
    return tl


def _attempt(run: RunDir, attempt: Attempt) -> AttemptView:
    fold = fold_trace(run.read_attempt(attempt))
    err = fold.errors[0] if fold.errors else None
    return AttemptView(
        number=attempt.number, file=attempt.trace.relative_to(run.path).as_posix(),
        status=fold.end.status if fold.end else "incomplete", bucket=(fold.end.bucket if fold.end else None) or
        (err.bucket if err else None), error=(err.message[:300] if err else None), model_calls=fold.model_calls,
        tool_calls=fold.tool_calls)


def _add_gold(t: TurnTimeline, gold: Turn) -> None:
    t.question = t.question or gold.question
    t.gold = format_gold(gold.answer)
    t.memory_only = t.memory_only or gold.memory_only
    if t.cue_text is None and gold.cue is not None:
        t.cue_text = gold.cue.text
    accessed_keys = set(t.accessed) | set(t.from_memory)
    t.required = [EvidenceCheck(unit=e.label(), accessed=e.label() in accessed_keys) for e in gold.evidence]


def _apply_score(tl: EpisodeTimeline, score: EpisodeScore) -> None:
    """Scoring's verdicts are authoritative: correctness, gold text, required and accessed units."""
    tl.success = score.success
    tl.errored = score.errored
    tl.agent_checks = dict(score.agent_checks)
    tl.split, tl.task_type = tl.split or score.split, tl.task_type or score.task_type
    tl.agent = tl.agent or score.agent or None
    tl.status = score.status if score.status in ("truncated", "missing") else tl.status
    tl.bucket = tl.bucket or score.bucket
    by_turn: dict[int, TurnScore] = {ts.turn: ts for ts in score.turns}
    for t in tl.turns:
        ts = by_turn.get(t.turn)
        if ts is None or not ts.ran:
            continue
        t.correct = ts.correct
        t.gold = t.gold or ts.gold or None
        keys = {a.key for a in ts.accessed}
        t.required = [EvidenceCheck(unit=u.label(), accessed=u.key in keys) for u in ts.required] or t.required
    if score.process is not None:
        _apply_process(tl, score.process)
    if score.failure is not None:
        tl.failure = score.failure
        _place_failure(tl, score.failure)
    if score.cost.total_tokens and not tl.tokens:
        tl.tokens = score.cost.total_tokens


def _apply_process(tl: EpisodeTimeline, proc: EpisodeProcess) -> None:
    """Process metrics beside the timeline: the episode's totals, each turn's, and a mark on each call."""
    tl.process = proc.model_copy(update={"turns": []})
    by_turn = {tp.turn: tp for tp in proc.turns}
    for t in tl.turns:
        tp = by_turn.get(t.turn)
        if tp is None:
            continue
        t.process = tp
        new_query = {r.step: r for r in tp.reformulations}
        for s in t.steps:
            if s.kind != "tool_call" or s.refused:
                continue
            if s.step in tp.repeated_calls:
                s.flags.append("repeat")
            elif s.step in tp.redundant_calls:
                s.flags.append("nothing new")  # a read of units already shown, a search with no new paper or respelled
            elif s.step not in tp.useful_calls:
                s.flags.append("off target")
            if s.step in new_query:
                r = new_query[s.step]
                s.flags.append("new query" + ("" if r.moved_up is None else (", target up" if r.moved_up else ", target not up")))
