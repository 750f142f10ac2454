"""Two runs over the same episodes, paired: is the difference real?

Per headline number, the difference (run minus baseline) with a 95% interval and a paired test. ESR and
Acc_final, when they are 0 or 1 per episode (one epoch, or a reducer that gives 0/1): McNemar's exact test
and Newcombe's paired score interval. Otherwise, and for Acc_pre, EC and MG: a paired bootstrap
(one draw of episodes serves both runs; epochs resampled inside their episode, each run apart) and its
p-value. A
difference is called detectable when its test's p < 0.05. Beside it, the minimal detectable difference
in ESR for this many episodes (alpha 0.05, power 0.8; Connor's relation for McNemar), with the
discordance taken from the two runs: the share of episodes they disagree on (the mean squared
difference of per-episode success where success is a rate over epochs).
"""
from __future__ import annotations

from typing import Sequence

from pydantic import BaseModel, Field

from .epochs import Reducer, by_episode
from .interval import bracket
from .model import EpisodeScore, RunScores
from .stats import (
    DetectableDifference, McNemarResult, PairedDifference, mcnemar, minimal_detectable_difference,
    newcombe_paired_difference, paired_bootstrap_ratio_difference,
)
from .uncertainty import EpisodeValues, episode_values

ALPHA = 0.05
POWER = 0.8
REFERENCE_DISCORDANCE = (0.1, 0.2, 0.3)


class PairingError(ValueError):
    """Two runs that cannot be paired: different episode files, or no episode in common."""


class PairedRow(BaseModel):
    """One headline number of two paired runs."""

    metric: str
    unit: str = Field(description="'%' or 'ratio'")
    run: float | None
    baseline: float | None
    difference: PairedDifference | None = Field(description="run minus baseline with its interval; None where n/a")
    test: str = Field(description="mcnemar-exact (with Newcombe's interval) or paired-bootstrap")
    p_value: float | None
    detectable: bool | None = Field(description="p < 0.05; None where the number is n/a for either run")
    mcnemar: McNemarResult | None = Field(default=None, description="the discordant episodes, when the test is McNemar's")
    note: str | None = Field(default=None, description="where the interval and the test disagree about zero: which one "
                                                       "decides (the test) and why they can differ")


class PairedComparison(BaseModel):
    """A run against a baseline over the episodes both scored."""

    run: str
    baseline: str
    episodes: int = Field(description="episodes paired (scored by both runs)")
    only_run: list[str] = Field(default_factory=list, description="episodes only the run scored (not paired)")
    only_baseline: list[str] = Field(default_factory=list, description="episodes only the baseline scored (not paired)")
    reducer: str
    epochs: tuple[int, int] = Field(description="epochs of the run and of the baseline")
    rows: list[PairedRow]
    mcnemar: McNemarResult | None = Field(default=None, description="on episode success, when it is 0/1 in both runs")
    mdd: DetectableDifference = Field(description="minimal detectable ESR difference (a share, not %)")
    reference_mdd: list[DetectableDifference] = Field(
        default_factory=list, description="the same at typical discordances, when these runs never disagree")
    verdict: str = Field(description="one sentence on ESR, in words")


def check_pairable(a: RunScores, b: RunScores) -> None:
    """Refuse runs over different episode files (their gold answers and episodes may differ)."""
    if a.episodes_sha256 != b.episodes_sha256:
        raise PairingError(
            f"runs {a.run_id!r} and {b.run_id!r} were scored on different episode files ({a.episodes_path} sha256 "
            f"{(a.episodes_sha256 or '?')[:12]}, {b.episodes_path} sha256 {(b.episodes_sha256 or '?')[:12]}); a paired "
            "comparison needs the same episodes")


def _select(scores: Sequence[EpisodeScore], ids: list[str]) -> list[EpisodeScore]:
    keep = set(ids)
    order = {eid: i for i, eid in enumerate(ids)}
    return sorted((s for s in scores if s.episode_id in keep), key=lambda s: (order[s.episode_id], s.epoch))


def _row(metric: str, unit: str, run: float | None, base: float | None, diff: PairedDifference | None,
         test: str, p: float | None) -> PairedRow:
    return PairedRow(metric=metric, unit=unit, run=run, baseline=base, difference=diff, test=test, p_value=p,
                     detectable=None if p is None else p < ALPHA, note=disagreement(diff, test, p))


def disagreement(d: PairedDifference | None, test: str, p: float | None) -> str | None:
    """When the interval and the test disagree about a difference of zero, the test decides, and the reader is told.

    They can: Newcombe's interval is built from two Wilson intervals, not by inverting McNemar's exact test, so on
    few discordant episodes it can exclude 0 while the exact test (conservative, discrete) does not reject; a
    percentile bootstrap and its p-value can differ at the edge by ties of the replicates."""
    if d is None or p is None or d.all_equal:
        return None
    excludes = d.low > 0 or d.high < 0
    rejects = p < ALPHA
    if excludes == rejects:
        return None
    name = "McNemar's exact test" if test == "mcnemar-exact" else "the paired bootstrap test"
    interval = "Newcombe's interval" if test == "mcnemar-exact" else "the percentile interval"
    if excludes:
        return (f"{interval} excludes 0 but {name} does not reject it (p = {_p(p)} >= {ALPHA}): the exact test decides, "
                "no detectable difference")
    return (f"{interval} includes 0 but {name} rejects it (p = {_p(p)} < {ALPHA}): the test decides, a detectable "
            "difference")


def _scaled(d: PairedDifference | None, factor: float) -> PairedDifference | None:
    if d is None:
        return None
    return d.model_copy(update={"estimate": d.estimate * factor, "low": d.low * factor, "high": d.high * factor})


def _rate(clusters: list[list[float]]) -> float | None:
    units = sum(len(c) for c in clusters)
    return None if units == 0 else sum(sum(c) for c in clusters) / units


def _ratio(num: list[list[float]], den: list[list[float]]) -> float | None:
    d = sum(sum(x) / len(x) for x in den)
    return None if d <= 0 else sum(sum(x) / len(x) for x in num) / d


def _per_episode(clusters: list[list[float]]) -> list[float]:
    return [sum(c) / len(c) for c in clusters]


def pair_runs(run: RunScores, run_eps: Sequence[EpisodeScore], base: RunScores, base_eps: Sequence[EpisodeScore],
              reducer: Reducer) -> PairedComparison:
    """The paired comparison of `run` against `base` over the episodes both scored: an episode errored in
    either run (left out of its scores) is left out of the pairing too."""
    from .metrics import counted

    check_pairable(run, base)
    run_eps = counted(list(run_eps), run.errors_as_failures)
    base_eps = counted(list(base_eps), base.errors_as_failures)
    run_ids = [g[0].episode_id for g in by_episode(run_eps)]
    base_ids = {g[0].episode_id for g in by_episode(base_eps)}
    common = [e for e in run_ids if e in base_ids]
    if not common:
        raise PairingError(f"runs {run.run_id!r} and {base.run_id!r} scored no episode in common; nothing to pair")
    va = episode_values(_select(run_eps, common), reducer)
    vb = episode_values(_select(base_eps, common), reducer)
    epochs = (max(len(c) for c in va.ec_hit), max(len(c) for c in vb.ec_hit))
    binary = reducer.binary(epochs[0]) and reducer.binary(epochs[1])
    rows, mc = _rows(va, vb, binary)
    sa, sb = _per_episode(va.success), _per_episode(vb.success)
    disc = sum((x - y) ** 2 for x, y in zip(sa, sb)) / len(sa)
    mdd = minimal_detectable_difference(len(sa), min(1.0, disc), alpha=ALPHA, power=POWER)
    refs = [minimal_detectable_difference(len(sa), d, alpha=ALPHA, power=POWER) for d in REFERENCE_DISCORDANCE] \
        if disc == 0 else []
    out = PairedComparison(
        run=run.run_id, baseline=base.run_id, episodes=len(common), reducer=reducer.name, epochs=epochs,
        only_run=[e for e in run_ids if e not in base_ids],
        only_baseline=sorted(base_ids - set(run_ids)), rows=rows, mcnemar=mc, mdd=mdd, reference_mdd=refs, verdict="",
    )
    out.verdict = verdict(out)
    return out


def _binary_row(metric: str, a: list[list[float]], b: list[list[float]]) -> PairedRow:
    """A number that is 0/1 per episode (ESR, Acc_final with one epoch): McNemar's exact test, Newcombe's interval."""
    sa, sb = [x[0] >= 0.5 for x in a], [y[0] >= 0.5 for y in b]
    mc = mcnemar(sa, sb)
    out = _row(metric, "%", _pct(_rate(a)), _pct(_rate(b)), _scaled(newcombe_paired_difference(sa, sb), 100),
               "mcnemar-exact", mc.p_exact)
    return out.model_copy(update={"mcnemar": mc})


def _bootstrap_row(metric: str, unit: str, num_a: list[list[float]], den_a: list[list[float]] | None,
                   num_b: list[list[float]], den_b: list[list[float]] | None) -> PairedRow:
    """Any other number: a paired bootstrap of the difference of ratios (means where there is no denominator)."""
    scale = 100.0 if unit == "%" else 1.0
    run = _rate(num_a) if den_a is None else _ratio(num_a, den_a)
    base = _rate(num_b) if den_b is None else _ratio(num_b, den_b)
    d = paired_bootstrap_ratio_difference(num_a, den_a, num_b, den_b) if num_a else None
    return _row(metric, unit, None if run is None else scale * run, None if base is None else scale * base,
                _scaled(d, scale), "paired-bootstrap", d.p_value if d else None)


def _rows(va: EpisodeValues, vb: EpisodeValues, binary: bool) -> tuple[list[PairedRow], McNemarResult | None]:
    rows = [_binary_row("ESR", va.success, vb.success) if binary
            else _bootstrap_row("ESR", "%", va.success, None, vb.success, None)]
    rows.append(_binary_row("Acc_final", va.final, vb.final) if binary
                else _bootstrap_row("Acc_final", "%", va.final, None, vb.final, None))
    keep = [i for i, c in enumerate(va.pre_turns) if sum(c) > 0]  # episodes with non-final turns

    def pick(cs: list[list[float]]) -> list[list[float]]:
        return [cs[i] for i in keep]

    rows.append(_bootstrap_row("Acc_pre", "%", pick(va.pre_right), pick(va.pre_turns), pick(vb.pre_right),
                               pick(vb.pre_turns)))
    rows.append(_bootstrap_row("EC", "%", va.ec_hit, va.ec_need, vb.ec_hit, vb.ec_need))
    rows.append(_bootstrap_row("MG", "ratio", va.mg_calls, va.mg_counted, vb.mg_calls, vb.mg_counted))
    return rows, rows[0].mcnemar


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _p(p: float) -> str:
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def verdict(c: PairedComparison) -> str:
    """ESR in words: which run is ahead, by how much, whether that is detectable, and what could be."""
    esr = c.rows[0]
    d = esr.difference
    if d is None or esr.p_value is None:
        return "ESR cannot be compared: no episode was scored"
    if c.mcnemar is not None:
        test = (f"McNemar exact p = {_p(esr.p_value)}; {c.mcnemar.n10} episodes succeed only in {c.run}, "
                f"{c.mcnemar.n01} only in {c.baseline}")
    else:
        test = f"paired bootstrap p = {_p(esr.p_value)}"
    diff = f"ESR {d.estimate:+.1f} points {bracket(d.low, d.high, 1, signed=True, all_equal=d.all_equal, n=d.episodes, what='pair')}"
    if esr.detectable:
        head = f"{c.run} against {c.baseline}: a detectable difference, {diff} ({test})"
    else:
        head = f"{c.run} against {c.baseline}: no detectable difference, {diff} ({test})"
    if c.mdd.mdd is not None:
        tail = (f"; with {c.episodes} episodes and these runs' discordance ({100 * c.mdd.discordance:.1f}%), the "
                f"smallest ESR difference detectable (alpha {ALPHA}, power {POWER}) is {100 * c.mdd.mdd:.1f} points")
    elif c.mdd.discordance == 0:
        sized = [f"{100 * r.mdd:.1f} points at {100 * r.discordance:.0f}%" for r in c.reference_mdd if r.mdd is not None]
        unsized = [f"{100 * r.discordance:.0f}%" for r in c.reference_mdd if r.mdd is None]
        refs = "; ".join(x for x in (", ".join(sized) + (" discordance" if sized else ""),
                                     ("none at " + " or ".join(unsized) + " (too few episodes)") if unsized else "") if x)
        tail = (f"; the runs agree on every episode, so their discordance (0) cannot size the minimal detectable "
                f"difference (for reference, with {c.episodes} episodes: {refs})")
    else:
        tail = (f"; {c.episodes} episodes are too few to reach power {POWER} for any ESR difference at these runs' "
                f"discordance ({100 * c.mdd.discordance:.1f}%)")
    if esr.note:
        tail += f" ({esr.note})"
    return head + tail
