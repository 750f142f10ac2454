"""The report table of a run: each metric pooled over the run's reports with a 95% percentile bootstrap
interval over episodes (epochs resampled inside their episode), the same bootstrap as EC's
(`scoring.stats.bootstrap_ratio_interval`); and its rendering as a markdown table."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable, Sequence

from ._judged_model import JudgedMean, JudgedReportSummary
from ._model import ReportMetric, ReportScore, ReportSummary

Ratio = Callable[[ReportScore], tuple[int, int]]
METRICS: dict[str, tuple[str, Ratio]] = {
    "claim_correctness": ("Right ratio (MiroEval): claims true against the unit facts",
                          lambda r: (r.right, r.claims)),
    "factual_accuracy": ("FA (PDR): cited claims supported by the paper they cite",
                         lambda r: (r.paper_supported, r.cited)),
    "citation_fidelity": ("FID (TRACE): cited claims supported by the unit they cite",
                          lambda r: (r.unit_supported, r.cited)),
    "citation_coverage": ("CC (PDR): claims that cite something", lambda r: (r.cited, r.claims)),
    "trace_verified_citations": ("Trace-verified citations: cited units the agent opened",
                                 lambda r: (r.citations_opened, r.citations)),
    "trace_verified_fidelity": ("Trace-verified FID: cited claims supported by a cited unit the agent opened",
                                lambda r: (r.opened_supported, r.cited)),
    "visual_integrity": ("Visual integrity (MOSAIC ACC.): figure-citing claims that match the plotted data",
                         lambda r: (r.figure_supported, r.figure_claims)),
    "coverage_precision": ("Claim precision (LiveDRBench): report claims covering a gold claim",
                           lambda r: (r.gold_covered, r.claims)),
    "coverage_recall": ("Claim recall (LiveDRBench): gold claims covered", lambda r: (r.gold_covered, r.gold)),
    "persona_violation_rate": ("Persona violations: claims and recommendations breaking a constraint",
                               lambda r: (r.persona_violations, r.claims + r.recommendations) if r.persona_checked else (0, 0)),
}


def summarize_reports(scores: Sequence[tuple[str, ReportScore]]) -> ReportSummary | None:
    """(episode id, report score) pairs, one per episode and epoch -> the pooled report metrics (None if none)."""
    from harness.scoring.stats import bootstrap_ratio_interval

    if not scores:
        return None
    by_ep: dict[str, list[ReportScore]] = defaultdict(list)
    for eid, r in scores:
        by_ep[eid].append(r)
    reports = [r for _, r in scores]
    out = ReportSummary(
        reports=len(by_ep), answered=sum(1 for r in reports if r.words > 0),
        over_limit=sum(1 for r in reports if r.words > r.max_words), claims=sum(r.claims for r in reports),
        persona_violations=sum(r.persona_violations for r in reports), unread_citations=sum(len(r.unread) for r in reports),
        problems=dict(sorted(Counter(_kind(p) for r in reports for p in set(map(_kind, r.problems))).items())),
    )
    for key, (_, ratio) in METRICS.items():
        num = [[float(ratio(r)[0]) for r in group] for group in by_ep.values()]
        den = [[float(ratio(r)[1]) for r in group] for group in by_ep.values()]
        n, d = int(sum(map(sum, num))), int(sum(map(sum, den)))
        metric = ReportMetric(num=n, den=d)
        if d > 0:
            metric.value = 100.0 * n / d
            iv = bootstrap_ratio_interval(num, den)
            metric.interval = iv.scaled(100.0) if iv is not None else None
        setattr(out, key, metric)
    p, r = out.coverage_precision.value, out.coverage_recall.value
    out.coverage_f1 = None if p is None or r is None else (0.0 if p + r == 0 else 2 * p * r / (p + r))
    out.extraction = " / ".join(sorted({r.extraction for r in reports}))
    from ._judged import summarize_judged_reports

    out.judged = summarize_judged_reports(scores)
    return out


def _kind(problem: str) -> str:
    return problem.split(":")[0].split(" [")[0].split(" P")[0].strip()


def _cell(m: ReportMetric) -> str:
    if m.value is None:
        return "n/a"
    iv = f" {m.interval.bracket(1)}" if m.interval is not None else ""
    return f"{m.value:.1f}{iv}"


def report_table(rows: list[tuple[str, ReportSummary]]) -> list[str]:
    """Markdown lines: one row per run, the report metrics in %, each with its 95% interval."""
    head = ["Run", "Reports", "Right", "FA", "FID", "CC", "Trace-verified cit.", "Trace-verified FID",
            "Visual integrity", "Claim P", "Claim R", "Persona viol."]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in rows:
        cells = [name, str(s.reports)] + [_cell(getattr(s, k)) for k in (
            "claim_correctness", "factual_accuracy", "citation_fidelity", "citation_coverage", "trace_verified_citations",
            "trace_verified_fidelity", "visual_integrity", "coverage_precision", "coverage_recall", "persona_violation_rate")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def report_section(s: ReportSummary, name: str) -> list[str]:
    """The report.md section: the table, what each number means, and the problems found."""
    lines = ["## Reports (scored apart from ESR and the accuracies)", ""]
    lines += report_table([(name, s)]) + [""]
    lines.append(f"{s.reports} report episode(s), {s.answered} answered, {s.claims} claims read, "
                 f"{s.over_limit} over the word limit, {s.unread_citations} cited unit(s) never opened, "
                 f"{s.persona_violations} persona violation(s). All in %, 95% bootstrap intervals over episodes.")
    lines.append("")
    for key, (desc, _) in METRICS.items():
        m = getattr(s, key)
        lines.append(f"- {desc}: {m.num}/{m.den}")
    if s.problems:
        lines += ["", "Problems: " + "; ".join(f"{k} ({v})" for k, v in s.problems.items())]
    if s.extraction != "rules":
        lines += ["", f"Claims read by: {s.extraction} (every claim's truth is checked by rules against the unit facts)."]
    if s.judged is not None:
        lines += [""] + judged_section(s.judged)
    return lines + [""]


def _iv(m: JudgedMean, digits: int = 1) -> str:
    if m.value is None:
        return "n/a"
    iv = f" {m.interval.bracket(digits)}" if m.interval is not None else ""
    return f"{m.value:.{digits}f}{iv}"


def judged_section(j: JudgedReportSummary) -> list[str]:
    """The judged report numbers, each beside its judge and the judge's calibration (or "not calibrated")."""
    def opt(v: float | None, digits: int = 2) -> str:
        return "n/a" if v is None else f"{v:.{digits}f}"

    versions = ", ".join(f"{k} {v}" for k, v in sorted(j.prompt_versions.items()))
    lines = [f"### Judged report numbers ({j.judge}; prompts: {versions})", "",
             f"Calibration of {j.judge}: {j.calibration_label}.", "",
             "| judged number | value | judge | calibration |", "|---|---|---|---|"]
    cal = j.calibration_label
    if "quality" in j.prompt_versions:
        dims = ", ".join(f"{d.upper()} {opt(v)}" for d, v in j.flae_dimensions.items())
        lines.append(f"| FLAE (MMDR-Bench, 0-100; {dims}) | {_iv(j.flae)} over {j.flae.n} reports | {j.judge} | {cal} |")
    if "persona" in j.prompt_versions:
        dims = ", ".join(f"{d} {opt(v)}" for d, v in j.personalization_dimensions.items())
        lines.append(f"| P-Score (PDR, 0-10; {dims}) | {_iv(j.personalization, 2)} over {j.personalization.n} reports "
                     f"| {j.judge} | {cal} |")
    if "support" in j.prompt_versions:
        fa = "n/a" if j.judged_fa is None else f"{j.judged_fa:.1f} ({j.judged_fa_num}/{j.judged_fa_den})"
        lines.append(f"| Judged FA (PDR: cited claims a read source supports, judged) | {fa} | {j.judge} | {cal} |")
    if "extract" in j.prompt_versions:
        lines.append(f"| Claims the judge extracted (truth checked by rules) | {j.judged_claims} | {j.judge} | {cal} |")
    a = j.support_agreement
    if a is not None:
        k = "n/a" if a.kappa is None else f"{a.kappa:.2f}" + (f" [{a.interval.low:.2f}, {a.interval.high:.2f}]"
                                                               if a.interval is not None else "")
        lines += ["", f"Support verdicts of {j.judge} against the unit facts in this run: {a.n} pairs over {a.episodes} "
                      f"reports, agreement {opt(a.agreement)}, Cohen's kappa {k} (both supported {a.both}, rules only "
                      f"{a.rules_only}, judge only {a.judge_only}, neither {a.neither})."]
    if j.errors:
        lines += ["", f"{j.errors} judge request(s) without a readable reply after a retry (not counted)."]
    return lines
