"""FLAE report quality (MMDeepResearch-Bench, seed 001 sec. 4.1 and app. A.3): readability (READ.),
insightfulness (INSH.) and structural completeness (STRU.), each from two channels fused per dimension.

- Formula channel (Eq. 1, 6): s_d = clip(sigmoid(beta_d . phi_d(R))) from text features phi(R), with the fixed
  coefficients below (the paper publishes the form, not its betas: these are ours, shared by every task and model,
  and documented in harness/README.md). It needs no judge and is reproducible.
- Judge channel (Fig. 8): the judge scores the three dimensions in [0, 1] given the task and the report.
- Task-adaptive weights W_d (Fig. 9) and the fusion coefficient alpha (Fig. 10) come from the judge, alpha from
  observable signals only; s_d = alpha * formula + (1 - alpha) * judge (Eq. 7), FLAE = 100 * sum_d W_d s_d (Eq. 2).
  The deterministic alpha of the paper's ablation (Eq. 8) is computed beside it for comparison.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from harness.scoring.judge import Judge

from ._citations import parse_citations
from ._extract import split_sentences
from ._judge_io import number, read_json, weights
from ._judged_model import FLAE_DIMENSIONS, FlaeScore
from ._model import ReportScore

PROMPT_VERSION = "flae-v1"
# Fixed coefficients of the formula channel: (bias, {feature: beta}); features are in [0, 1] unless noted.
BETAS: dict[str, tuple[float, dict[str, float]]] = {
    "read": (2.0, {"mean_sentence_words_over_22": -0.15, "long_sentences": -3.0, "repeated_trigrams": -4.0,
                   "lexical_diversity": 2.0}),
    "insh": (-2.0, {"comparative_claims": 3.0, "connectives": 2.5, "stated_differences": 1.0, "methods_discussed": 1.0}),
    "stru": (-2.5, {"heading_coverage": 1.5, "paragraphs": 0.5, "lists_or_tables": 0.5, "citation_compliance": 1.5,
                    "length_completeness": 1.0, "citation_validity": 0.5}),
}
_CONNECTIVES = re.compile(r"\b(?:because|since|therefore|thus|hence|so that|which means|suggests?|indicates?|implies|"
                          r"trade-?offs?|whereas|while|however|but|although|in contrast|by contrast|overall|in short|"
                          r"if|unless|at the cost of)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?")
_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_LIST = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+\S|^\s*\|.*\|\s*$")

SCORE_SYSTEM = ("You are a careful evaluator of long-form deep research reports. Score strictly and consistently. "
                "Return only valid JSON.")
SCORE_USER = """Task:
{task}

Report:
{report}

Score the report on three dimensions in [0, 1]:
(1) READ.: clarity, coherence, and ease of reading.
(2) INSH.: depth beyond surface summary; synthesis, comparisons, or non-trivial reasoning.
(3) STRU.: report completeness and organization (sections, references, and visual integration where applicable).
Output JSON with keys: read, insh, stru."""
WEIGHT_SYSTEM = ("You set task-adaptive importance weights. Use only the task description and observable report "
                 "properties. Return only valid JSON.")
WEIGHT_USER = """Task:
{task}

Report (for observables only, do not score quality here):
{report}

Produce weights over {{READ., INSH., STRU.}} such that they sum to 1.
Output JSON with keys: w_read, w_insh, w_stru."""
ALPHA_SYSTEM = ("You set a fusion coefficient alpha in [0, 1] using only observable signals (length, section presence, "
                "formatting compliance). Do not use any model identity or external metadata. Return only valid JSON.")
ALPHA_USER = """Task:
{task}

Report:
{report}

Choose alpha so that when the report is short, poorly structured, or non-compliant, the formula channel gets higher
weight (larger alpha); when the report is complete and well-formed, rely more on judge scoring (smaller alpha).
Output JSON: {{"alpha": number}}."""
NUDGE = "Reply with the JSON object asked for and nothing else."


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _mattr(words: list[str], window: int = 50) -> float:
    """Moving-average type-token ratio (lexical diversity that does not fall with length)."""
    if not words:
        return 0.0
    if len(words) <= window:
        return len(set(words)) / len(words)
    ratios = [len(set(words[i:i + window])) / window for i in range(0, len(words) - window + 1)]
    return sum(ratios) / len(ratios)


def features(text: str, score: ReportScore) -> dict[str, float]:
    """phi(R): observable text features, each in [0, 1] except the sentence length over 22 words."""
    cites, malformed, spans = parse_citations(text)
    plain = list(text)
    for a, b in spans:
        plain[a:b] = " " * (b - a)
    body = "".join(plain)
    lines = body.split("\n")
    sentences = [s for s in split_sentences(body) if not _HEADING.match(s.text) and not _LIST.match(s.text)
                 and len(_WORD.findall(s.text)) >= 3]
    lengths = [len(_WORD.findall(s.text)) for s in sentences]
    words = [w.lower() for w in _WORD.findall(body)]
    trigrams = [tuple(words[i:i + 3]) for i in range(len(words) - 2)]
    counts = Counter(trigrams)
    repeated = sum(v for v in counts.values() if v > 1) / len(trigrams) if trigrams else 0.0
    claim_sentences = {d.claim.sentence for d in score.details}
    cited_sentences = {d.claim.sentence for d in score.details if d.cited}
    kinds = [d.claim.kind for d in score.details]
    n_s = max(1, len(sentences))
    subjects = {d.claim.subject.lower() for d in score.details}
    headings = sum(1 for ln in lines if _HEADING.match(ln))
    blocks = [b for b in re.split(r"\n\s*\n", body) if b.strip()]
    return {
        "mean_sentence_words_over_22": max(0.0, (sum(lengths) / len(lengths) if lengths else 0.0) - 22.0),
        "long_sentences": sum(1 for n in lengths if n > 30) / n_s,
        "repeated_trigrams": repeated,
        "lexical_diversity": _mattr(words),
        "comparative_claims": sum(1 for k in kinds if k in ("compare", "rank")) / max(1, len(kinds)),
        "connectives": min(1.0, sum(len(_CONNECTIVES.findall(s.text)) for s in sentences) / n_s),
        "stated_differences": sum(1 for d in score.details if d.claim.kind == "compare" and d.claim.value is not None)
        / max(1, sum(1 for k in kinds if k == "compare")),
        "methods_discussed": min(1.0, len(subjects) / 4.0),
        "heading_coverage": min(1.0, headings / 3.0),
        "paragraphs": min(1.0, (len(blocks) - 1) / 3.0) if blocks else 0.0,
        "lists_or_tables": 1.0 if any(_LIST.match(ln) for ln in lines) else 0.0,
        "citation_compliance": len(cited_sentences) / len(claim_sentences) if claim_sentences else 0.0,
        "length_completeness": min(1.0, len(words) / min(300.0, score.max_words / 2)),
        "citation_validity": len(cites) / (len(cites) + len(malformed)) if (cites or malformed) else 0.0,
    }


def formula_channel(phi: dict[str, float]) -> dict[str, float]:
    out = {}
    for d, (bias, beta) in BETAS.items():
        out[d] = min(1.0, max(0.0, _sigmoid(bias + sum(b * phi[f] for f, b in beta.items()))))
    return out


def alpha_det(phi: dict[str, float]) -> float:
    """Eq. 8: clip(1 - (0.35 L + 0.35 H + 0.20 C + 0.10 R_ref)); larger when the report is short or ill-formed."""
    a = 1.0 - (0.35 * phi["length_completeness"] + 0.35 * phi["heading_coverage"] + 0.20 * phi["citation_compliance"]
               + 0.10 * phi["citation_validity"])
    return min(1.0, max(0.0, a))


def _dims(reply: str) -> dict[str, float] | None:
    data = read_json(reply, dict)
    if not isinstance(data, dict):
        return None
    out = {}
    for d in FLAE_DIMENSIONS:
        v = number(data.get(d, data.get(d.upper(), data.get(d.upper() + "."))), 0.0, 1.0)
        if v is None:
            return None
        out[d] = v
    return out


def _alpha(reply: str) -> float | None:
    data: Any = read_json(reply, dict)
    return number(data.get("alpha"), 0.0, 1.0) if isinstance(data, dict) else None


def flae(judge: Judge, task: str, text: str, score: ReportScore) -> FlaeScore:
    """FLAE of one report: the formula channel always; the judge channel, weights and alpha from `judge`."""
    phi = features(text, score)
    out = FlaeScore(features={k: round(v, 4) for k, v in phi.items()}, formula=formula_channel(phi), alpha_det=alpha_det(phi))
    fill = {"task": task, "report": text}
    judged = judge.ask_parsed("report_flae", judge.chat_body(SCORE_SYSTEM, SCORE_USER.format(**fill)), _dims, NUDGE)
    w = judge.ask_parsed("report_flae", judge.chat_body(WEIGHT_SYSTEM, WEIGHT_USER.format(**fill)),
                         lambda r: weights(read_json(r, dict), FLAE_DIMENSIONS, "w_"), NUDGE)
    alpha = judge.ask_parsed("report_flae", judge.chat_body(ALPHA_SYSTEM, ALPHA_USER.format(**fill)), _alpha, NUDGE)
    out.judged, out.weights, out.alpha = judged, w, alpha
    missing = [name for name, v in (("dimension scores", judged), ("weights", w), ("alpha", alpha)) if v is None]
    if missing:
        out.error = f"no readable {', '.join(missing)} from {judge.name} after a retry"
        return out
    assert judged is not None and w is not None and alpha is not None
    out.fused = {d: alpha * out.formula[d] + (1 - alpha) * judged[d] for d in FLAE_DIMENSIONS}
    out.value = 100.0 * sum(w[d] * out.fused[d] for d in FLAE_DIMENSIONS)
    return out
