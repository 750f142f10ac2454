"""Error attribution: exactly one label per failed episode, from its earliest wrong turn (EpiBench sec. 3.4).

THE RULE. Find the first turn t not judged correct (a turn never reached counts). Then check, in
this order; the first that holds is the label (METRICS.md). Nothing after turn t is looked at, so an
outage in a later turn never relabels an earlier failure.

0. Infrastructure -> `others`: turn t has no answer because of an outage that is not the model's:
   an error event in the provider, data_access or pipeline bucket on turn t (or before it), a
   data_access tool error on turn t, or a trace that is missing or stops before t was answered.
   Fires at the error event's step.
1. Retrieve: a required paper of turn t was never reached: no executed, error-free tool call of turns
   1..t exposed any unit of it, and no call located it either. Fires at turn t's answer step.
   A paper that a call located but whose call failed or was refused on another argument (the call named
   the paper's id, or the tool's error names it: "part must be between 1 and 12 for paper P0412") was
   found, not missed: `others` ("located, call failed"), at that call's step.
2. Budget -> `others`: turn t used up its step budget (or hit the episode's token/time cap): it failed
   because its budget ran out, whatever the fallback answer (the paper's max-step terminations).
   Fires at the budget_exhausted (or limit_hit) step.
3. No value -> `others`: no answer, or one the matcher cannot read (refusal, empty, binary).
4. Perception: t needs exactly one unit, a figure or a table, which t's own calls exposed, and the
   value is wrong. Fires at the step of the last call that exposed it.
5. Unit never accessed -> `others`: a required unit was exposed by no call of turns 1..t (the paper
   was reached, the figure or table never opened).
6. Reading-Memory: some required unit was not exposed by t's own calls but by an earlier turn, and
   every earlier turn that required that unit was answered correctly (its reading was right), yet t
   is wrong. What the agent did decides, not the memory_only flag: with final-turn tools on, an agent
   that reads everything again is judged on that reading. Fires at the answer step.
7. Reasoning: every required unit was exposed by t's own calls (or t needs none): the evidence was in
   front of the agent and the combination is wrong. Fires at the answer step.
8. Others: an earlier reading of a reused unit was itself wrong (cannot happen at the first wrong
   turn, kept so the rule is total).
Replay and the viewer mark the turn and step named here (`harness/viewer/timeline.py`).
"""
from __future__ import annotations

import re

from harness.trace import ToolCallEvent
from harness.trace_fold import EpisodeFold

from .model import FailureLabel, TurnScore

INFRA = ("provider", "data_access", "pipeline")


def infra_cause(fold: EpisodeFold, ts: TurnScore) -> tuple[str, FailureLabel] | None:
    """(bucket, label) when turn `ts` is unanswered because of an outage (rule 0), else None."""
    t = ts.turn
    if fold.missing:
        return "pipeline", FailureLabel(type="others", turn=0, step=0,
                                        why="trace file missing: the episode never ran or its trace was lost (pipeline)")
    if ts.answer is not None and ts.answer.strip():
        return None  # the agent answered turn t: whatever came later, the wrong answer is its own
    for err in fold.errors:
        if err.bucket in INFRA and (err.turn or t) <= t:
            return err.bucket, FailureLabel(type="others", turn=err.turn or t, step=err.step,
                                            why=f"{err.bucket} error, not a model failure: {err.message[:120]}")
    tf = fold.turn(t)
    data = [c for c in tf.calls if c.error_kind == "data_access"]
    if data:
        return "data_access", FailureLabel(
            type="others", turn=t, step=data[-1].step,
            why=f"data_access: {data[-1].error or 'a paper could not be fetched or parsed'} (turn {t} left without an answer)")
    if fold.truncated and (not tf.ran or tf.answer is None):
        return "pipeline", FailureLabel(type="others", turn=t, step=tf.answer_step,
                                        why=f"the trace stops before turn {t} was answered (pipeline: truncated trace)")
    return None


def first_wrong(turns: list[TurnScore]) -> TurnScore | None:
    return next((ts for ts in turns if not ts.correct), None)


def failure_bucket(fold: EpisodeFold, turns: list[TurnScore]) -> str | None:
    """The reason bucket of a failed episode, from its first wrong turn: the outage that left it
    unanswered, `model` when the model left it without a readable answer, None when it was answered."""
    first = first_wrong(turns)
    if first is None:
        return None
    infra = infra_cause(fold, first)
    if infra is not None:
        return infra[0]
    verdict = first.matcher_verdict or first.verdict
    if not first.answer or not first.answer.strip() or not verdict.parseable:
        return "model"
    return None


def attribute_failure(fold: EpisodeFold, turns: list[TurnScore]) -> FailureLabel | None:
    """The label of a failed episode (None for a successful one), with the turn and step where it fired."""
    first = first_wrong(turns)
    if first is None:
        return None
    t = first.turn
    tf = fold.turn(t)
    answer_step = tf.answer_step
    verdict = first.matcher_verdict or first.verdict

    infra = infra_cause(fold, first)
    if infra is not None:
        return infra[1]

    # 1. Retrieve
    reached = {u.paper for u in fold.memory_before(t)} | {u.paper for u in tf.exposed}
    unreached = list(dict.fromkeys(r.paper for r in first.required if r.paper not in reached))
    located = {p: call for p in unreached if (call := _locating_call(fold, p, t)) is not None}
    missed = [p for p in unreached if p not in located]
    if missed:
        return FailureLabel(type="retrieve", turn=t, step=answer_step,
                            why=f"required paper {', '.join(missed)} never reached by turn {t}")
    if located:
        paper, call = next(iter(located.items()))
        how = "refused" if not call.executed else "failed"
        return FailureLabel(type="others", turn=call.turn, step=call.step,
                            why=f"required paper {paper} located (turn {call.turn} step {call.step}, {call.tool}) but the "
                                f"call {how}: {(call.error or '')[:120]}; no unit of it was read by turn {t}")

    # 2. Budget or cap ran out
    if tf.budget is not None:
        got = "no answer" if not first.answer else f"fallback answer {first.answer[:40]!r}"
        return FailureLabel(type="others", turn=t, step=tf.budget.step,
                            why=f"step budget of {tf.budget.budget} exhausted on turn {t} ({got})")
    if tf.limit is not None:
        return FailureLabel(type="others", turn=t, step=tf.limit.step,
                            why=f"episode {tf.limit.limit} limit hit on turn {t} ({tf.limit.value:g} >= {tf.limit.cap:g})")

    # 3. No value to judge
    if not first.ran:
        return FailureLabel(type="others", turn=t, step=0, why=f"turn {t} was never reached (trace ends earlier)")
    if not first.answer or not verdict.parseable:
        errs = [c for c in tf.calls if c.error and c.executed]
        extra = f"; {len(errs)} tool error(s)" if errs else ""
        what = "no answer" if not first.answer else f"unparseable answer ({verdict.detail})"
        return FailureLabel(type="others", turn=t, step=answer_step, why=f"turn {t}: {what}{extra}")

    this_turn = {u.key for u in tf.exposed}
    memory = {u.key for u in fold.memory_before(t)}
    required = [r.key for r in first.required]
    how = f" ({verdict.detail})" if verdict.detail else ""

    # 4. Perception
    if len(required) == 1 and required[0][1].startswith(("figure:", "table:")) and required[0] in this_turn:
        paper, unit = required[0]
        return FailureLabel(type="perception", turn=t, step=tf.last_step_exposing(required[0]),
                            why=f"read {paper} {unit} on turn {t} but the answer is wrong{how}")

    # 5. A required unit nobody ever opened
    never = [f"{p} {u}" for p, u in required if (p, u) not in this_turn and (p, u) not in memory]
    if never:
        return FailureLabel(type="others", turn=t, step=answer_step,
                            why=f"turn {t}: paper reached but {', '.join(never)} never accessed")

    # 6. Reading-Memory
    reused = [k for k in required if k not in this_turn]
    if reused:
        unread = [k for k in reused if not _read_correctly_before(k, t, turns)]
        if not unread:
            src = ", ".join(f"{p} {u}" for p, u in reused)
            return FailureLabel(type="reading_memory", turn=t, step=answer_step,
                                why=f"turn {t}: {src} came from earlier turns, read correctly then, reused wrongly{how}")
        return FailureLabel(type="others", turn=t, step=answer_step,
                            why=f"turn {t}: reused {', '.join(f'{p} {u}' for p, u in unread)} whose earlier reading was wrong")

    # 7. Reasoning
    return FailureLabel(type="reasoning", turn=t, step=answer_step,
                        why=f"turn {t}: all {len(required)} required unit(s) accessed, the combination is wrong{how}")


def _read_correctly_before(key: tuple[str, str], t: int, turns: list[TurnScore]) -> bool:
    """Every earlier turn that required `key` was answered correctly (no such turn: nothing contradicts)."""
    return all(ts.correct for ts in turns if ts.turn < t and any(r.key == key for r in ts.required))


def _locating_call(fold: EpisodeFold, paper: str, t: int) -> ToolCallEvent | None:
    """The last call of turns 1..t that found `paper` but exposed nothing of it: it named the paper's id, or
    its error names it (the tool resolved a title to the paper, then refused another argument)."""
    word = re.compile(rf"(?<![\w-]){re.escape(paper)}(?![\w-])", re.I)
    found = None
    for k in sorted(fold.turns):
        if k > t:
            break
        for c in fold.turns[k].calls:
            if not c.error:
                continue
            named = str(c.args.get("paper", "")).strip().lower() == paper.lower() if isinstance(c.args, dict) else False
            if named or word.search(c.error):
                found = c
    return found
