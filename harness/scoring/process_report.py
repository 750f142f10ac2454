"""The report sections of the process metrics, the claim-level scores and process against outcome.

Used by report.md (one run, by split) and comparison.md (one row per run, correlations pooled over the
runs' episodes); kept apart from report.py so both stay small.
"""
from __future__ import annotations

from .model import EpisodeScore, RunScores
from .process_model import ClaimScores, Correlation, JudgedProcessSummary, ProcessSummary

SPLITS = (("easy", "Easy"), ("hard", "Hard"), ("all", "Average"))
PROCESS_NOTE = (
    "From the trace alone (harness/README.md defines each with an example). Breadth per episode: distinct search "
    "queries, papers listed in search results, papers opened, units read. Depth: units per opened paper, and the "
    "share of reads that opened a figure or table. Refinement: searches with a query new to their turn (how many "
    "moved a paper the turn needs up the results). Redundancy: calls repeating an earlier error-free call, units "
    "re-read within a turn, and the share of calls that did only that. Reuse: required units already in memory on "
    "memory-only turns. Efficiency: calls that touched required evidence, listed a required paper or follow the "
    "checklist, over all calls. Grounding: answers whose value is printed in an observation, computed from earlier "
    "answers or read from an opened figure, over answers checked (choice letters and hedges are not). Ratios are 0-1.")
CLAIMS_NOTE = ("Each item of a set answer is a claim, matched greedily one to one to the gold items (LiveDRBench): "
               "precision = matched / predicted items, recall = matched / gold items, means over set turns (an "
               "unanswered turn counts 0), beside the share of set turns with exactly the gold set (what ESR uses).")


def f(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def process_header(first: str = "Split") -> list[str]:
    cols = [first, "Queries", "Papers surfaced", "Papers opened", "Units read", "Units/paper", "Fig/table share",
            "Reformulations (moved up)", "Repeated calls", "Re-read units", "Redundancy", "Reuse", "Efficiency",
            "Grounding (ungrounded)"]
    return ["| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]


def process_row(name: str, p: ProcessSummary | None) -> str:
    if p is None:
        return f"| {name} |" + " n/a |" * 13
    return (f"| {name} | {f(p.queries_per_episode)} | {f(p.papers_surfaced_per_episode)} | {f(p.papers_opened_per_episode)} | "
            f"{f(p.units_per_episode)} | {f(p.units_per_paper)} | {f(p.float_share)} | {p.reformulations} ({p.moved_up}) | "
            f"{p.repeated_calls} | {p.reread_units} | {f(p.redundancy)} | {f(p.reuse)} | {f(p.efficiency)} | "
            f"{f(p.grounding)} ({p.ungrounded}) |")


def claims_header(first: str = "Split") -> list[str]:
    return [f"| {first} | Set turns | Answered | Precision | Recall | F1 | Exact set % |", "|---" * 7 + "|"]


def claims_row(name: str, c: ClaimScores | None) -> str:
    if c is None:
        return f"| {name} | 0 | 0 | n/a | n/a | n/a | n/a |"
    return f"| {name} | {c.set_turns} | {c.answered} | {f(c.precision)} | {f(c.recall)} | {f(c.f1)} | {f(c.exact)} |"


def correlation_rows(corrs: list[Correlation]) -> list[str]:
    out = ["| Level | Metric | n | Spearman rho | 95% interval |", "|---|---|---|---|---|"]
    for c in corrs:
        if c.rho is None:
            out.append(f"| {c.level} | {c.metric} | {c.n} | {c.note or 'not defined'} | |")
        else:
            ci = f"[{c.low:+.2f}, {c.high:+.2f}]" if c.low is not None and c.high is not None else "n/a"
            out.append(f"| {c.level} | {c.metric} | {c.n} | {c.rho:+.2f} | {ci} |")
    return out


def ungrounded_lines(episodes: list[EpisodeScore], limit: int = 20) -> list[str]:
    """`sbx-004 turn 2: 23.4`: answers traceable to nothing in the trace, the first `limit` of them."""
    rows = [(e.episode_id, t) for e in episodes if e.process for t in e.process.turns
            if t.grounding is not None and not t.grounding.grounded]
    lines = [f"- {eid} turn {t.turn}: `{(t.grounding.value if t.grounding else '')[:60]}`"
             + (f" (only {t.grounding.where} was open)" if t.grounding and t.grounding.source == "figure_other" else "")
             for eid, t in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"- ... and {len(rows) - limit} more (episode_scores.jsonl, `process.turns[].grounding`)")
    return lines


def judged_lines(j: JudgedProcessSummary | None) -> list[str]:
    """The judged process quality (MiroEval dimensions, 1-10) and its agreement with the deterministic metrics."""
    if j is None:
        return []
    lines = ["## Judged process quality (MiroEval dimensions, LLM judge)", "",
             f"Scored 1-10 by `{j.judge}` from a rendering of each trace (no gold, no required evidence shown); "
             f"{j.episodes} episodes scored" + (f", **{j.errors} without readable scores after a retry**" if j.errors else "")
             + ". Agreement: Spearman rho with the deterministic counterpart over episodes.", "",
             "| Dimension | Mean score |", "|---|---|"]
    lines += [f"| {d.replace('_', ' ')} | {f(v)} |" for d, v in j.means.items()] + [""]
    return lines + correlation_rows(j.agreement) + [""]


def process_sections(s: RunScores, episodes: list[EpisodeScore], corrs: list[Correlation], plot: str | None) -> list[str]:
    """The three sections of one run's report: process by split, claim-level scores, process against outcome."""
    lines = ["## Process from the trace", "", PROCESS_NOTE, ""]
    lines += process_header() + [process_row(n, s.split(k).process) for k, n in SPLITS] + [""]
    if s.all.process is not None and s.all.process.grounding_sources:
        src = s.all.process.grounding_sources
        lines += ["Where the answers checked for grounding were traced (all episodes): " + ", ".join(
            f"{k.replace('_', ' ')} {v}" for k, v in src.items()) + " (figure: printed nowhere, a figure the turn "
            "requires was open, the weakest support; figure other: only another figure of a required paper was open, "
            "not grounded).", ""]
    missing = ungrounded_lines(episodes)
    if missing:
        lines += ["Answers traceable to nothing in the trace (a hallucination signal):", ""] + missing + [""]
    lines += ["## Set answers, claim level (LiveDRBench)", "", CLAIMS_NOTE, ""]
    lines += claims_header() + [claims_row(n, s.split(k).claims) for k, n in SPLITS] + [""]
    lines += ["## Process against outcome", "",
              "Spearman rank correlation of each process metric with episode success (episode level) and with turn "
              "correctness (turn level), 95% bootstrap interval; not defined where every episode succeeded or failed.", ""]
    lines += correlation_rows(corrs) + [""]
    if plot:
        lines += [f"![process against outcome]({plot})", ""]
    return lines + judged_lines(s.judged_process)
