"""Paired comparisons shown to a reader: a rich table for `epi compare`, a section of comparison.md."""
from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from .interval import bracket
from .paired import ALPHA, POWER, PairedComparison, PairedRow


def _num(x: float | None, unit: str) -> str:
    if x is None:
        return "n/a"
    return f"{x:.1f}" if unit == "%" else f"{x:.2f}"


def _diff(r: PairedRow) -> str:
    d = r.difference
    if d is None:
        return "n/a"
    digits = 1 if r.unit == "%" else 2
    return (f"{d.estimate:+.{digits}f} "
            f"{bracket(d.low, d.high, digits, signed=True, all_equal=d.all_equal, n=d.episodes, what='pair')}")


def _test(r: PairedRow) -> str:
    if r.test == "mcnemar-exact" and r.mcnemar is not None:
        return (f"McNemar exact ({r.mcnemar.n10} vs {r.mcnemar.n01} discordant; mid-p {_p(r.mcnemar.p_mid)}), "
                "Newcombe interval")
    return "paired bootstrap"


def _p(p: float | None, test: str = "") -> str:
    if p is None:
        return "n/a"
    if p == 0.0 and test == "paired-bootstrap":
        return "< 0.0001"  # no replicate of 10,000 crossed zero
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _verdict(r: PairedRow) -> str:
    if r.detectable is None:
        return "n/a"
    out = "detectable" if r.detectable else "no detectable difference"
    return out + (" (the test decides: see below)" if r.note else "")


def notes(c: PairedComparison) -> list[str]:
    """One line per number whose interval and test disagree about zero."""
    return [f"{r.metric}: {r.note}" for r in c.rows if r.note]


def scope_line(c: PairedComparison) -> str:
    """Which episodes were paired, how epochs reduce, and what was left out."""
    line = f"{c.episodes} episodes paired"
    if c.epochs != (1, 1):
        line += f"; epochs {c.epochs[0]} and {c.epochs[1]}, reduced by {c.reducer}"
    if c.only_run or c.only_baseline:
        line += (f"; left out: {len(c.only_run)} episodes only {c.run} scored, {len(c.only_baseline)} only "
                 f"{c.baseline} scored")
    return line


def paired_table(c: PairedComparison) -> Table:
    """`epi compare A B`: run minus baseline per number, its interval, the test and the verdict."""
    t = Table(title=escape(f"Paired: {c.run} - {c.baseline} (baseline)"), caption=escape(scope_line(c)),
              box=None, pad_edge=False, padding=(0, 1), header_style="bold underline")
    for col in ("Number", c.run, c.baseline, "Difference [95% CI]", "Test", "p", "Verdict (p < 0.05)"):
        t.add_column(escape(col), justify="left" if col in ("Number", "Test") else "right", no_wrap=True)
    for r in c.rows:
        t.add_row(f"{r.metric}{' %' if r.unit == '%' else ''}", _num(r.run, r.unit), _num(r.baseline, r.unit), escape(_diff(r)),
                  escape(_test(r)), _p(r.p_value, r.test), _verdict(r))
    return t


def paired_markdown(comparisons: list[PairedComparison], baseline: str, not_paired: list[str]) -> list[str]:
    """The "Paired against the baseline" section of comparison.md."""
    if not comparisons and not not_paired:
        return []
    lines = ["## Paired against the baseline", ""]
    if comparisons:
        lines += [
            f"Each run against `{baseline}` over the episodes both scored: the difference (run minus baseline) with "
            "its 95% interval and a paired test. ESR and Acc_final, where they are 0/1 per episode: McNemar's exact "
            "test and Newcombe's paired score interval; otherwise a paired bootstrap (episodes drawn once for both runs, "
            f"epochs resampled inside their episode) and its p-value; detectable means p < {ALPHA}. The minimal detectable ESR difference is for this many "
            f"episodes at alpha {ALPHA} and power {POWER}, with the two runs' discordance.", ""]
    for c in comparisons:
        lines += [f"### {c.run} against {c.baseline}", "", f"**{c.verdict}.**", "", scope_line(c) + ".", "",
                  f"| Number | {c.run} | {c.baseline} | Difference [95% CI] | Test | p | Verdict |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {r.metric}{' %' if r.unit == '%' else ''} | {_num(r.run, r.unit)} | {_num(r.baseline, r.unit)} | "
                  f"{_diff(r)} | {_test(r)} | {_p(r.p_value, r.test)} | {_verdict(r)} |" for r in c.rows]
        lines.append("")
        if notes(c):
            lines += [f"- {n}." for n in notes(c)] + [""]
    for why in not_paired:
        lines += [f"- not paired: {why}"]
    return lines + ([""] if not_paired else [])
