"""Checks read from the episode file alone: repeated turns, finals without figure evidence, papers that
contribute nothing, and (from the `reads`/`derivation` annotations) vacuous conditions and comparisons of
values measured under different settings.
"""
from __future__ import annotations


from harness.episode import Derivation, Episode, Turn, ValueRead

from ._items import final_units, quoted
from ._model import Breakdown, CheckResult, Finding, pct, rate_shown

NO_ANNOTATION = "no `reads`/`derivation` annotation"
MAX_FINAL_SHARE_WITHOUT_FIGURE = 20.0  # issue 13: at least 80% of finals need a figure value


def _turn_key(turn: Turn) -> tuple:
    """What a turn asks, independent of how it points at its paper: quoted names, float kinds, the answer."""
    names = tuple(sorted(quoted(turn.question)))
    kinds = tuple(sorted(e.unit for e in turn.evidence))
    ans = turn.answer
    value = tuple(ans.value) if isinstance(ans.value, list) else ans.value
    return (names or (turn.question,), kinds, ans.format, value)


def duplicate_turns(episodes: list[Episode]) -> CheckResult:
    """Two turns of one episode that ask for the same named thing in the same kind of float and get the
    same answer: the second adds nothing (often the same question asked of a second paper)."""
    findings: list[Finding] = []
    total = 0
    for ep in episodes:
        seen: dict[tuple, int] = {}
        for ti, turn in enumerate(ep.turns):
            if turn.memory_only:
                continue
            total += 1
            key = _turn_key(turn)
            if key in seen:
                findings.append(Finding(episode=ep.id, turn=ti + 1, message=f"repeats turn {seen[key]}: same question "
                                        f"and the same answer ({turn.answer.value})"))
            else:
                seen[key] = ti + 1
    return CheckResult(id="duplicate_turns", title="duplicate turns", count=len(findings), total=total,
                       value=float(len(findings)), shown=str(len(findings)), threshold="= 0",
                       status="fail" if findings else "pass", findings=findings)


def _needs_figure(turn: Turn) -> bool:
    return any(u.startswith("figure:") for _, u in final_units(turn))


def finals_without_figure(episodes: list[Episode]) -> list[CheckResult]:
    """Finals that use no figure value: every Hard final and at least 80% of all finals must use one."""
    finals = [(ep, ep.turns[-1]) for ep in episodes]
    no_fig = [(ep, t) for ep, t in finals if not _needs_figure(t)]
    hard = [(ep, t) for ep, t in finals if ep.split == "hard"]
    hard_no = [(ep, t) for ep, t in no_fig if ep.split == "hard"]
    episodes_no_fig = [ep for ep in episodes if not any(e.unit.startswith("figure:") for t in ep.turns for e in t.evidence)]

    def finding(ep: Episode) -> Finding:
        used = ", ".join(f"{p} {u}" for p, u in sorted(final_units(ep.turns[-1]))) or "nothing"
        return Finding(episode=ep.id, turn=len(ep.turns), message=f"{ep.split} final uses no figure ({used})")

    share = pct(len(no_fig), len(finals))
    return [
        CheckResult(id="finals_without_figure", title="finals that need no figure value", count=len(no_fig),
                    total=len(finals), value=share, shown=rate_shown(len(no_fig), len(finals)),
                    threshold=f"<= {MAX_FINAL_SHARE_WITHOUT_FIGURE:g}%",
                    status="fail" if share > MAX_FINAL_SHARE_WITHOUT_FIGURE else "pass",
                    findings=[finding(ep) for ep, _ in no_fig],
                    note=f"{len(episodes_no_fig)} episode(s) read no figure in any turn"),
        CheckResult(id="hard_finals_without_figure", title="Hard finals that need no figure value", count=len(hard_no),
                    total=len(hard), value=float(len(hard_no)), shown=rate_shown(len(hard_no), len(hard)),
                    threshold="= 0", status="fail" if hard_no else "pass",
                    findings=[finding(ep) for ep, _ in hard_no]),
    ]


def unused_papers(episodes: list[Episode]) -> CheckResult:
    """Papers an episode makes the agent find that its final does not use (no read, no evidence)."""
    findings = []
    for ep in episodes:
        final = ep.turns[-1]
        used = {r.paper for r in final.reads} | {e.paper for e in final.evidence}
        for paper in ep.papers:
            if paper not in used:
                where = next(ti + 1 for ti, t in enumerate(ep.turns) if any(e.paper == paper for e in t.evidence))
                findings.append(Finding(episode=ep.id, turn=where, message=f"{paper} (found in turn {where}) "
                                        "contributes nothing to the final"))
    bad_eps = len({f.episode for f in findings})
    return CheckResult(id="unused_papers", title="unused papers", count=len(findings), total=sum(len(e.papers) for e in episodes),
                       value=float(len(findings)), shown=f"{len(findings)} (in {bad_eps}/{len(episodes)} episodes)",
                       threshold="= 0", status="fail" if findings else "pass", findings=findings)


def _passing(cands: list[str], conds: list[set[str]]) -> set[str]:
    out = set(cands)
    for c in conds:
        out &= c
    return out


def _pick(op: str, passing: set[str], values: dict[str, float]) -> frozenset[str] | str | None:
    """The answer `op` picks from the passing candidates, when their values are annotated."""
    if op in ("argmax", "argmin"):
        known = {c: values[c] for c in passing if c in values}
        if len(known) != len(passing) or not known:
            return None
        return (max if op == "argmax" else min)(known, key=lambda c: known[c])
    return frozenset(passing)


def _vacuous(turn: Turn, d: Derivation) -> dict[int, str]:
    """Conditions that can be dropped without changing the passing set or the answer: index -> why."""
    values = {r.series: float(r.value) for r in turn.reads
              if r.series and isinstance(r.value, (int, float)) and not isinstance(r.value, bool)}
    sets = [set(c.passes) for c in d.conditions]
    full = _passing(d.candidates, sets)
    out: dict[int, str] = {}
    for i in range(len(sets)):
        rest = _passing(d.candidates, sets[:i] + sets[i + 1:])
        if rest == full:
            out[i] = "every candidate passing the others passes it too"
            continue
        a, b = _pick(d.op, full, values), _pick(d.op, rest, values)
        if a is not None and a == b:
            out[i] = f"without it {d.op} still picks {a}: the answer stays"
    return out


def vacuous_conditions(episodes: list[Episode]) -> CheckResult:
    """Conditions of constraint finals that bind nothing: dropping one leaves the answer as it was."""
    findings, total, unchecked = [], 0, 0
    for ep in episodes:
        final = ep.turns[-1]
        d = final.derivation
        if d is None or not d.conditions:
            if ep.task_type == "constraint":
                unchecked += 1
            continue
        total += len(d.conditions)
        for i, why in _vacuous(final, d).items():
            findings.append(Finding(episode=ep.id, turn=len(ep.turns),
                                    message=f"condition {i + 1} ({d.conditions[i].text!r}) changes nothing: {why}"))
    status = "not checked" if total == 0 and unchecked else ("fail" if findings else "pass")
    return CheckResult(id="vacuous_conditions", title="vacuous conditions", count=len(findings), total=total,
                       value=float(len(findings)), shown=f"{len(findings)} of {total} conditions", threshold="= 0",
                       status=status, not_checked=unchecked,
                       not_checked_why=f"constraint finals with {NO_ANNOTATION}" if unchecked else None, findings=findings)


def _numeric(r: ValueRead) -> bool:
    return isinstance(r.value, (int, float)) and not isinstance(r.value, bool)


def _setting_clash(reads: list[ValueRead]) -> str | None:
    """How the numeric operands of a final differ in setting, or None when they agree."""
    nums = [r for r in reads if _numeric(r)]
    for name in ("dataset", "metric"):
        seen = {getattr(r, name) for r in nums if getattr(r, name) is not None}
        if len(seen) > 1:
            return f"{name}s differ: {', '.join(sorted(map(str, seen)))}"
    figs = [r for r in nums if r.unit.startswith("figure:")]
    for name in ("x_label", "x"):
        seen = {getattr(r, name) for r in figs if getattr(r, name) is not None}
        if len(seen) > 1:
            return f"figure {name} differ: {', '.join(sorted(map(str, seen)))}"
    return None


def mixed_settings(episodes: list[Episode]) -> CheckResult:
    """Finals combining values measured on different datasets or metrics, or at different x settings."""
    findings, total, unchecked = [], 0, 0
    for ep in episodes:
        final = ep.turns[-1]
        if not final.reads:
            unchecked += 1
            continue
        if sum(_numeric(r) for r in final.reads) < 2:
            continue
        total += 1
        why = _setting_clash(final.reads)
        if why:
            findings.append(Finding(episode=ep.id, turn=len(ep.turns), message=f"compares values under different settings ({why})"))
    status = "not checked" if total == 0 and unchecked else ("fail" if findings else "pass")
    return CheckResult(id="mixed_settings", title="mixed-setting comparisons", count=len(findings), total=total,
                       value=float(len(findings)), shown=f"{len(findings)} of {total} finals", threshold="= 0",
                       status=status, not_checked=unchecked,
                       not_checked_why=f"finals with {NO_ANNOTATION}" if unchecked else None, findings=findings)


def _read_key(r: ValueRead) -> tuple:
    """Which value a read is: paper, float, series, and x (figures) or column / dataset (tables, bars)."""
    return (r.paper, r.unit, r.series, r.x, (r.column or r.dataset) if r.x is None else None)


def repeats_across_episodes(episodes: list[Episode]) -> CheckResult:
    """Reported (issue 25): figure values asked by more than one episode (the same paper, figure, series and x
    or category), and tool turns asked verbatim by another episode. A repeat teaches an agent run over the file
    nothing new and lets answers carry from one episode to the next."""
    from ._items import asked_values

    where: dict[tuple, set[str]] = {}
    items = [a for ep in episodes for a in asked_values(ep) if a.kind == "figure"]
    for a in items:
        where.setdefault((a.paper, a.unit, a.series, a.x, a.category), set()).add(a.episode)
    repeated = [a for a in items if len(where[(a.paper, a.unit, a.series, a.x, a.category)]) > 1]
    turns: dict[tuple, list[tuple[str, int]]] = {}
    for ep in episodes:
        for ti, turn in enumerate(ep.turns[:-1]):
            key = (turn.question, tuple(sorted(e.key for e in turn.evidence)), _turn_key(turn)[2:])
            turns.setdefault(key, []).append((ep.id, ti + 1))
    same = [(e, t, at) for at in turns.values() if len({e for e, _ in at}) > 1 for e, t in at]
    findings = [Finding(episode=a.episode, turn=a.turn, message=f"{a.paper} {a.unit} {a.series!r} at "
                        f"{a.x if a.x is not None else a.category}: also asked by "
                        f"{', '.join(sorted(where[(a.paper, a.unit, a.series, a.x, a.category)] - {a.episode}))}")
                for a in repeated]
    findings += [Finding(episode=e, turn=t, message="the same turn as " + ", ".join(f"{o} turn {ot}" for o, ot in at
                                                                                  if o != e)) for e, t, at in same]
    return CheckResult(id="repeats_across_episodes", title="figure values another episode asks too", count=len(repeated),
                       total=len(items), value=pct(len(repeated), len(items)), shown=rate_shown(len(repeated), len(items)),
                       threshold=None, status="report", findings=findings,
                       breakdown=[Breakdown(label="non-final turns identical to another episode's turn", count=len(same),
                                            total=sum(len(ep.turns) - 1 for ep in episodes))])


def finals_on_own_replies(episodes: list[Episode]) -> CheckResult:
    """Reported (issue 25): finals whose every operand is the value an earlier turn asked for, so the final is
    arithmetic on the agent's own replies, not recall of evidence it saw but was not asked about."""
    findings, judged, unchecked = [], 0, 0
    for ep in episodes:
        final = ep.turns[-1]
        reads = [r for r in final.reads if r.unit != "text"]
        if not reads:
            unchecked += 1
            continue
        judged += 1
        asked = {ti + 1: {_read_key(r) for r in t.reads if r.turn is None} for ti, t in enumerate(ep.turns[:-1])}
        if all(r.turn is not None and _read_key(r) in asked.get(r.turn, set()) for r in reads):
            findings.append(Finding(episode=ep.id, turn=len(ep.turns), message=f"every operand is the answer of turn(s) "
                                    f"{', '.join(str(t) for t in sorted({r.turn for r in reads if r.turn}))}"))
    return CheckResult(id="finals_on_own_replies", title="finals computed from earlier answers alone", count=len(findings),
                       total=judged, value=pct(len(findings), judged), shown=rate_shown(len(findings), judged),
                       threshold=None, status="report" if judged else "not checked", not_checked=unchecked,
                       not_checked_why=f"finals with {NO_ANNOTATION}" if unchecked else None, findings=findings)
