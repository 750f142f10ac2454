"""The report judge pass (issue 32): on a report already scored by rules, judged extraction, FLAE quality, PDR
personalization and FACT-style support, each with its judge, prompt version and the judge's calibration; and their
run summary. Runs on the answer judge's plumbing (`harness.scoring.judge.Judge`: any OpenAI-compatible endpoint,
temperature 0, a cache keyed by the hash of the whole request, provider retries, the judge's own log)."""
from __future__ import annotations

from typing import Sequence

from harness.episode import ReportTurn
from harness.scoring.judge import Judge
from harness.trace_fold import EpisodeFold

from ._calibration import support_agreement
from ._flae import PROMPT_VERSION as FLAE_VERSION, flae
from ._judge_extract import PROMPT_VERSION as EXTRACT_VERSION
from ._judged_model import (
    FLAE_DIMENSIONS, PDR_DIMENSIONS, Calibration, JudgedMean, JudgedReport, JudgedReportSummary, calibration_label,
)
from ._model import ReportScore
from ._pdr import PROMPT_VERSION as PDR_VERSION, personalization
from ._support import PROMPT_VERSION as SUPPORT_VERSION, SupportJudge, source_texts
from ._verify import FactBook

PARTS = ("extract", "quality", "persona", "support")
VERSIONS = {"extract": EXTRACT_VERSION, "quality": FLAE_VERSION, "persona": PDR_VERSION, "support": SUPPORT_VERSION}


def judge_report(judge: Judge, turn: ReportTurn, fold: EpisodeFold, number: int, score: ReportScore,
                 parts: Sequence[str] = PARTS, calibration: Calibration | None = None) -> JudgedReport | None:
    """Add the judged numbers to `score` (score.judged); None when the report is empty (nothing to judge)."""
    tf = fold.turns.get(number)
    text = (tf.answer_text if tf else None) or ""
    if not text.strip():
        return None
    j = score.judged or JudgedReport(judge=judge.name)
    j.prompt_versions.update({p: VERSIONS[p] for p in parts})
    j.calibration, j.calibration_label = calibration, calibration_label(calibration)
    if "quality" in parts:
        j.flae = flae(judge, turn.question, text, score)
    if "persona" in parts and turn.persona is not None:
        j.personalization = personalization(judge, turn.question, turn.persona, text)
    if "support" in parts:
        book = FactBook(turn.facts, turn.papers) if turn.facts else None  # the live world has no unit facts
        j.support = SupportJudge(judge).judge_report(score, source_texts(fold, number), book)
        supported = {s.claim for s in j.support if s.judged}
        j.cited = sum(1 for d in score.details if d.cited)
        j.judged_supported = sum(1 for i, d in enumerate(score.details) if d.cited and i in supported)
    score.judged = j
    return j


def _mean(values: Sequence[tuple[str, float]]) -> JudgedMean:
    """Mean over episodes (epochs averaged inside their episode) with a 95% bootstrap interval."""
    from harness.scoring.stats import bootstrap_interval

    if not values:
        return JudgedMean()
    by_ep: dict[str, list[float]] = {}
    for eid, v in values:
        by_ep.setdefault(eid, []).append(v)
    groups = list(by_ep.values())
    point = sum(sum(g) / len(g) for g in groups) / len(groups)
    iv = bootstrap_interval(groups) if len(groups) > 1 else None
    return JudgedMean(value=point, n=len(values), interval=iv)


def summarize_judged_reports(scores: Sequence[tuple[str, ReportScore]]) -> JudgedReportSummary | None:
    """The judged numbers of a run (None if no report was judged)."""
    judged = [(eid, r, r.judged) for eid, r in scores if r.judged is not None]
    if not judged:
        return None
    first = judged[0][2]
    out = JudgedReportSummary(judge=first.judge, calibration=first.calibration, calibration_label=first.calibration_label)
    for _, _, j in judged:
        out.prompt_versions.update(j.prompt_versions)
    out.judged_claims = sum(1 for _, r, _ in judged for d in r.details if d.extracted_by != "rules")
    flaes = [(eid, j.flae) for eid, _, j in judged if j.flae is not None]
    out.flae = _mean([(eid, f.value) for eid, f in flaes if f.value is not None])
    out.flae_dimensions = {d: _avg([f.fused[d] for _, f in flaes if f.fused]) for d in FLAE_DIMENSIONS}
    ps = [(eid, j.personalization) for eid, _, j in judged if j.personalization is not None]
    out.personalization = _mean([(eid, p.value) for eid, p in ps if p.value is not None])
    out.personalization_dimensions = {d: _avg([p.dimensions[d].score for _, p in ps if d in p.dimensions
                                               and p.dimensions[d].score is not None]) for d in PDR_DIMENSIONS}
    out.errors = (sum(1 for _, f in flaes if f.error) + sum(1 for _, p in ps if p.error)
                  + sum(j.extraction.errors for _, _, j in judged if j.extraction is not None)
                  + sum(1 for _, _, j in judged for s in j.support if s.why and s.why.startswith("judge error")))
    with_support = [(eid, j) for eid, _, j in judged if "support" in j.prompt_versions]
    if with_support:
        out.judged_fa_num = sum(j.judged_supported for _, j in with_support)
        out.judged_fa_den = sum(j.cited for _, j in with_support)
        out.judged_fa = 100.0 * out.judged_fa_num / out.judged_fa_den if out.judged_fa_den else None
        per_ep: dict[str, list] = {}
        for eid, j in with_support:
            per_ep.setdefault(eid, []).extend(j.support)
        if any(s.rules is not None for js in per_ep.values() for s in js):
            out.support_agreement = support_agreement(per_ep, first.judge, SUPPORT_VERSION)
    return out


def _avg(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None
