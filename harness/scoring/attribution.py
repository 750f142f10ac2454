"""Error attribution: exactly one label per failed episode, at the first wrong turn (EpiBench sec. 3.4).

THE RULE, checked in this order; the first that holds is the label (METRICS.md):

0. Infrastructure. If the episode ended in an infrastructure bucket (provider, data_access,
   pipeline), the label is `others`: an outage is never a model failure. Fires at the first error
   event's turn and step (or the first wrong turn).
Then, at the first wrong turn t (the first turn not judged correct, including a turn never reached):
1. Retrieve: a required paper of turn t was never reached: no tool call of turns 1..t that did not
   error exposed any unit of that paper, so it is not in memory either. Fires at turn t's answer step.
2. Unscorable answer: if turn t has no answer (None, never reached) or one the matcher cannot parse,
   the label is `others` (budget exhausted without an answer, tool/runtime error, unparseable answer);
   the checks below need a wrong *value*. Fires at the budget_exhausted step, else the answer step.
3. Perception: turn t needs exactly one unit, a figure or a table, that turn t's own tool calls
   exposed, and the value is wrong. Fires at the step of the last call that exposed the unit.
4. Reading-Memory: turn t is memory-only, or some of its required units were exposed only by earlier
   turns (never by turn t's calls). Earlier turns are all correct, since t is the first wrong one,
   so that evidence had been read correctly then. Fires at turn t's answer step.
5. Reasoning: every required unit of turn t was exposed by turn t's own calls (or t needs none), so
   the evidence was in front of the agent and the combination is wrong. Fires at the answer step.
6. Others: whatever is left (e.g. the right paper was reached but a required figure/table never was).
"""
from __future__ import annotations

from .facts import EpisodeFacts
from .model import FailureLabel, TurnScore


def _last_exposing_step(facts: EpisodeFacts, t: int, key: tuple[str, str]) -> int:
    tf = facts.turns.get(t)
    steps = [c.step for c in tf.calls if c.error is None and any(u.key == key for u in c.units)] if tf else []
    return max(steps) if steps else 0


def attribute_failure(facts: EpisodeFacts, turns: list[TurnScore], bucket: str | None) -> FailureLabel | None:
    """The label of a failed episode (None for a successful one), with the turn and step where it fired."""
    wrong = [ts for ts in turns if not ts.correct]
    if not wrong:
        return None
    first = wrong[0]
    t = first.turn
    tf = facts.turns.get(t)
    answer_step = tf.answer_step if tf else 0

    if bucket in ("provider", "data_access", "pipeline"):
        err = facts.errors[0] if facts.errors else None
        if facts.missing:
            why = "trace file missing: the episode never ran or its trace was lost (pipeline)"
            return FailureLabel(type="others", turn=0, step=0, why=why)
        if err is not None:
            why = f"{bucket} error, not a model failure: {err.message[:120]}"
            return FailureLabel(type="others", turn=err.turn or t, step=err.step, why=why)
        why = f"episode ended in the {bucket} bucket" + (" (trace truncated)" if facts.truncated else "")
        return FailureLabel(type="others", turn=t, step=answer_step, why=why)

    # 1. Retrieve
    reached: set[str] = set()
    for k, turn_facts in facts.turns.items():
        if k <= t:
            reached.update(u.paper for u in turn_facts.units_this_turn)
    required_papers: list[str] = []
    for ref in first.required:
        if ref.paper not in required_papers:
            required_papers.append(ref.paper)
    unreached = [p for p in required_papers if p not in reached]
    if unreached:
        return FailureLabel(type="retrieve", turn=t, step=answer_step,
                            why=f"required paper {', '.join(unreached)} never reached by turn {t}")

    # 2. No value to judge
    if not first.ran or not first.verdict.parseable:
        if tf is not None and tf.budget_exhausted and first.answer is None:
            why = f"step budget exhausted on turn {t} without an answer"
            return FailureLabel(type="others", turn=t, step=tf.budget_step, why=why)
        if not first.ran:
            return FailureLabel(type="others", turn=t, step=0, why=f"turn {t} was never reached (trace ends earlier)")
        errs = [c for c in (tf.calls if tf else []) if c.error]
        extra = f"; {len(errs)} tool error(s)" if errs else ""
        why = f"turn {t}: {'no answer' if first.answer is None else 'unparseable answer'}{extra}"
        return FailureLabel(type="others", turn=t, step=answer_step, why=why)

    this_turn = {u.key for u in tf.units_this_turn} if tf else set()
    required = [r.key for r in first.required]

    # 3. Perception
    if len(required) == 1 and required[0][1].startswith(("figure:", "table:")) and required[0] in this_turn:
        paper, unit = required[0]
        return FailureLabel(type="perception", turn=t, step=_last_exposing_step(facts, t, required[0]),
                            why=f"read {paper} {unit} on turn {t} but the answer is wrong ({first.verdict.detail})")

    # 4. Reading-Memory
    memory = {u.key for u in facts.memory_before(t)}
    from_memory = [k for k in required if k not in this_turn and k in memory]
    if first.memory_only or from_memory:
        src = f"evidence {', '.join(f'{p} {u}' for p, u in from_memory)} came from earlier turns" if from_memory else "memory-only turn"
        return FailureLabel(type="reading_memory", turn=t, step=answer_step,
                            why=f"turn {t}: {src}, read correctly then, reused wrongly")

    # 5. Reasoning
    if all(k in this_turn for k in required):
        return FailureLabel(type="reasoning", turn=t, step=answer_step,
                            why=f"turn {t}: all {len(required)} required unit(s) accessed, the combination is wrong")

    # 6. Others
    missing_units = [f"{p} {u}" for p, u in required if (p, u) not in this_turn and (p, u) not in memory]
    return FailureLabel(type="others", turn=t, step=answer_step,
                        why=f"turn {t}: paper reached but {', '.join(missing_units)} never accessed")
