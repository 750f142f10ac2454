"""The audit as text a person reads in a terminal or a CI log: one line per figure with its threshold."""
from __future__ import annotations

from ._model import AuditReport, CheckResult

SHOW_FINDINGS = 5


def _mark(c: CheckResult) -> str:
    if c.advisory:
        return "fail*"
    return {"pass": "ok", "fail": "FAIL", "report": "info", "not checked": "n/c"}[c.status]


def render_text(report: AuditReport) -> str:
    lines = [f"Audit of {report.file} ({report.episodes} episodes, {report.turns} turns) over {report.corpus} "
             f"({report.papers} papers)", ""]
    w = max(len(c.title) for c in report.checks)
    if report.learned_from:
        lines[-1:-1] = [f"Learned adversaries: {report.learned_from}"]
    lines.append(f"  {'':5}  {'check':<{w}}  {'figure':<44}  threshold")
    for c in report.checks:
        lines.append(f"  {_mark(c):<5}  {c.title:<{w}}  {c.shown:<44}  {c.threshold or '(reported)'}")
        pad = " " * (9 + w)
        for b in c.breakdown:
            lines.append(f"{pad}{b.label}: {b.count}/{b.total}")
        if c.not_checked:
            lines.append(f"{pad}not checked for {c.not_checked} item(s): {c.not_checked_why}")
        elif c.status == "not checked" and c.not_checked_why and c.not_checked_why != c.note:
            lines.append(f"{pad}not checked: {c.not_checked_why}")
        if c.note:
            lines.append(f"{pad}{c.note}")
    failed = [c for c in report.checks if c.status == "fail" and not c.advisory]
    advisory = [c for c in report.checks if c.advisory]
    if failed or advisory:
        lines += ["", f"Problems (the first {SHOW_FINDINGS} of each broken threshold; --json lists them all):"]
        for c in failed + advisory:
            lines.append(f"  {c.title} ({len(c.findings)}):")
            for f in c.findings[:SHOW_FINDINGS]:
                where = f"{f.episode} turn {f.turn}" if f.turn else f.episode
                lines.append(f"    {where}: {f.message}")
    judged = [c for c in report.checks if c.status in ("pass", "fail")]
    lines.append("")
    if advisory:
        lines.append(f"ADVISORY (fail*, --learned-advisory: reported, not failing the audit): {len(advisory)} threshold(s) "
                     f"of the learned adversaries broken: {', '.join(c.title for c in advisory)}")
    if failed:
        lines.append(f"FAIL: {len(failed)} of {len(judged)} thresholds broken: {', '.join(c.title for c in failed)}")
    elif advisory:
        lines.append(f"PASS: {len(judged) - len(advisory)} of {len(judged)} thresholds kept; the other {len(advisory)} are advisory")
    else:
        unchecked = [c.title for c in report.checks if c.status == "not checked"]
        tail = f" ({len(unchecked)} not checked: {', '.join(unchecked)})" if unchecked else ""
        lines.append(f"PASS: all {len(judged)} thresholds kept{tail}")
    return "\n".join(lines)
