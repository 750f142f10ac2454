"""A run folder as typed Python data: `harness.read_run(path)`.

    import harness
    run = harness.read_run("results/heuristic-0001")
    run.settings.agent, run.settings.max_steps          # RunSettings, as the run was made
    run.scores.all.esr, run.scores.all.intervals.esr    # RunScores (scores.json)
    for e in run.episodes():                            # EpisodeRow: one per episode and epoch, flat and typed
        print(e.episode_id, e.epoch, e.success, e.input_tokens)
    for t in run.turns():                               # TurnRow: one per turn
        print(t.episode_id, t.turn, t.correct, t.evidence_hit, t.required)
    for ev in run.trace("E001"):                        # typed trace events (harness.trace), any trace version
        print(ev.kind, ev.turn, ev.step)
    run.fold("E001").turns[1].tool_calls                # the trace folded into turns (harness.trace_fold)

Reading never writes: a run that is not scored (or scored by an older scorer) has `scores` None or stale, says
so in `notes`, and `epi score RUN` scores it. `EpisodeRow` and `TurnRow` are the columns of
`epi scores export` (CSV, JSONL, Parquet): the same names, types and order.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterator, get_type_hints

from pydantic import ValidationError

from .rundir import RunDir
from .settings import RunSettings


class RunReadError(ValueError):
    """A path that is not a run folder this version can read: one line that names the path and what is wrong."""


@dataclass(frozen=True)
class EpisodeRow:
    """One episode (one epoch of it) as scored: the flat, typed columns of `epi scores export`'s episodes table."""

    run_id: str
    episode_id: str
    epoch: int
    split: str
    task_type: str
    initiation: str
    n_turns: int
    turns_run: int
    status: str
    success: bool
    final_correct: bool
    errored: bool
    failure_type: str | None
    failure_turn: int | None
    failure_why: str | None
    bucket: str | None
    tool_calls: int
    refused_calls: int
    checklist_length: int
    mg_ratio: float | None
    required_units: int
    evidence_hit: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    model_calls: int
    failed_model_calls: int
    wall_time_s: float
    no_tool_steps: int
    malformed_calls: int
    tool_errors: int
    retries: int
    truncated: bool
    missing: bool
    agent: str
    labeller: str
    scorer_version: str


@dataclass(frozen=True)
class TurnRow:
    """One turn of one episode (epoch) as scored: the turns table of `epi scores export`."""

    run_id: str
    episode_id: str
    epoch: int
    turn: int
    ran: bool
    memory_only: bool
    question: str
    answer: str | None
    answer_source: str
    gold: str
    format: str
    correct: bool
    parseable: bool
    hedged: bool
    labelled_by: str
    required: str  # the required evidence units, `paper/unit` joined by `;`
    accessed: str  # the units the turn had access to, the same way
    required_units: int
    evidence_hit: int
    tool_calls: int
    refused_calls: int
    tool_errors: int
    budget_exhausted: bool


def columns(row_type: type) -> list[tuple[str, type]]:
    """(name, Python type) of each column of EpisodeRow or TurnRow, in order (`X | None` columns are nullable)."""
    hints = get_type_hints(row_type)
    return [(f.name, hints[f.name]) for f in fields(row_type)]


def _units(units: list[Any]) -> str:
    return ";".join(f"{u.paper}/{u.unit}" for u in units)


@dataclass
class Run:
    """What a run folder holds, typed. Made by `read_run`."""

    path: Path
    run_id: str
    config: dict[str, Any] = field(repr=False)
    settings: RunSettings | None = field(repr=False)
    scores: Any = field(repr=False)  # harness.scoring.RunScores | None (kept untyped here: scoring loads lazily)
    episode_scores: list[Any] = field(default_factory=list, repr=False)  # harness.scoring.EpisodeScore
    notes: list[str] = field(default_factory=list)

    @property
    def scored(self) -> bool:
        return self.scores is not None

    def episodes(self) -> list[EpisodeRow]:
        """One row per episode and epoch, in the order of episode_scores.jsonl."""
        out = []
        for e in self.episode_scores:
            b, c = e.behaviour, e.cost
            out.append(EpisodeRow(
                run_id=self.run_id, episode_id=e.episode_id, epoch=e.epoch, split=e.split, task_type=e.task_type,
                initiation=e.initiation, n_turns=e.n_turns, turns_run=e.turns_run, status=str(e.status),
                success=e.success, final_correct=e.final_correct, errored=e.errored,
                failure_type=e.failure.type if e.failure else None, failure_turn=e.failure.turn if e.failure else None,
                failure_why=e.failure.why if e.failure else None, bucket=e.bucket, tool_calls=e.tool_calls,
                refused_calls=e.refused_calls, checklist_length=e.checklist_length, mg_ratio=e.mg_ratio,
                required_units=sum(len(t.required) for t in e.turns), evidence_hit=sum(t.evidence_hit for t in e.turns),
                input_tokens=c.input_tokens, output_tokens=c.output_tokens, total_tokens=c.total_tokens,
                model_calls=c.model_calls, failed_model_calls=c.failed_model_calls, wall_time_s=c.wall_time_s,
                no_tool_steps=b.no_tool_steps, malformed_calls=b.malformed_calls, tool_errors=b.tool_errors,
                retries=b.retries, truncated=e.truncated, missing=e.missing, agent=e.agent, labeller=e.labeller,
                scorer_version=e.scorer_version))
        return out

    def turns(self) -> list[TurnRow]:
        """One row per turn of every episode and epoch."""
        return [TurnRow(
            run_id=self.run_id, episode_id=e.episode_id, epoch=e.epoch, turn=t.turn, ran=t.ran,
            memory_only=t.memory_only, question=t.question, answer=t.answer, answer_source=t.answer_source, gold=t.gold,
            format=t.format, correct=t.correct, parseable=t.verdict.parseable, hedged=t.verdict.hedged,
            labelled_by=t.labelled_by, required=_units(t.required), accessed=_units(t.accessed),
            required_units=len(t.required), evidence_hit=t.evidence_hit, tool_calls=t.tool_calls,
            refused_calls=t.refused_calls, tool_errors=t.tool_errors, budget_exhausted=t.budget_exhausted,
        ) for e in self.episode_scores for t in e.turns]

    def trace_ids(self) -> list[tuple[str, int]]:
        """(episode id, epoch) of every finished trace."""
        return sorted(RunDir(self.path).completed_jobs(), key=lambda x: (x[1], x[0]))

    def trace(self, episode_id: str, epoch: int = 1) -> list[Any]:
        """The typed events (`harness.trace`: EpisodeStart, ModelCall, ToolCallEvent, ...) of one episode's trace.
        An unfinished `.part` trace is read too; RunReadError when there is none."""
        read = RunDir(self.path).read_trace(episode_id, epoch=epoch, include_partial=True)
        if read.missing:
            raise RunReadError(f"run {self.run_id!r} has no trace for episode {episode_id!r} (epoch {epoch})")
        return list(read.events)

    def fold(self, episode_id: str, epoch: int = 1) -> Any:
        """The trace folded into turns (`harness.trace_fold.EpisodeFold`), as scoring, replay and the viewer read it."""
        from .trace_fold import fold_trace

        read = RunDir(self.path).read_trace(episode_id, epoch=epoch, include_partial=True)
        if read.missing:
            raise RunReadError(f"run {self.run_id!r} has no trace for episode {episode_id!r} (epoch {epoch})")
        return fold_trace(read)

    def traces(self) -> Iterator[tuple[str, int, list[Any]]]:
        """(episode id, epoch, events) of every finished trace."""
        for eid, k in self.trace_ids():
            yield eid, k, self.trace(eid, k)


def read_run(path: str | Path) -> Run:
    """Read a run folder (results/<run>) into typed objects; never writes. RunReadError (one line) when `path` is
    not a run folder or its run.json cannot be read."""
    from .scoring.model import SCORER_VERSION, EpisodeScore, RunScores

    rd = RunDir(path)
    if not rd.path.is_dir():
        raise RunReadError(f"{rd.path} is not a run folder: no such folder")
    if not rd.run_json.is_file():
        raise RunReadError(f"{rd.path} is not a run folder: it has no run.json")
    try:
        config = json.loads(rd.run_json.read_text(encoding="utf-8"))
    except (ValueError, OSError) as e:
        raise RunReadError(f"{rd.run_json} is not readable JSON: {str(e)[:120]}") from None
    if not isinstance(config, dict):
        raise RunReadError(f"{rd.run_json} is not a JSON object")
    notes: list[str] = []
    settings = None
    if isinstance(config.get("settings"), dict):
        try:
            settings = RunSettings.model_validate(config["settings"])
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            notes.append(f"settings not read (another version of epiharness?): settings.{where}: {err['msg'][:120]}")
    else:
        notes.append("run.json has no settings (an older run)")
    scores, episodes = None, []
    if rd.scores_json.is_file():
        try:
            scores = RunScores.model_validate_json(rd.scores_json.read_text(encoding="utf-8"))
        except ValueError as e:
            notes.append(f"scores.json not read: {str(e).splitlines()[0][:120]}")
    ep_file = rd.path / "episode_scores.jsonl"
    if ep_file.is_file():
        for i, line in enumerate(ep_file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                episodes.append(EpisodeScore.model_validate_json(line))
            except ValueError:
                notes.append(f"episode_scores.jsonl line {i} not read")
    if scores is None:
        notes.append(f"not scored: `epi score {rd.path}` scores it")
    elif scores.scorer_version != SCORER_VERSION:
        notes.append(f"scored by scorer {scores.scorer_version} (this is {SCORER_VERSION}): `epi score {rd.path}` "
                     "re-scores it")
    return Run(path=rd.path, run_id=str(config.get("run_id") or rd.run_id), config=config, settings=settings,
               scores=scores, episode_scores=episodes, notes=notes)


def row_dicts(rows: list[Any]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]
