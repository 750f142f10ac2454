"""A scored report as a person reads it (issue 32 item 4), for the viewer and `epi replay`: the report text in
pieces (plain text, sentences, citations), every claim with its marks, every citation linked to the trace step that
first opened its unit, and the judged numbers with their judge and calibration. Built from files only (the trace
and the report's score); the text is data, shown escaped by whoever renders it."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from harness.trace_fold import EpisodeFold

from ._citations import parse_citations
from ._extract import split_sentences
from ._judge_io import describe_claim
from ._judged_model import JudgedReport
from ._model import ClaimVerdict, ReportScore
from ._opened import opened_calls

Mark = Literal["false", "off_persona", "unread", "uncited", "unknown", "true"]
MARKS: tuple[Mark, ...] = ("false", "off_persona", "unread", "uncited", "unknown", "true")  # worst first
MARK_LABEL = {"true": "true", "false": "false", "unknown": "unverifiable", "uncited": "uncited",
              "unread": "cited but unread", "off_persona": "off-persona"}
MAX_VIEW_CHARS = 60_000


class CitationLink(BaseModel):
    text: str = Field(description="as written, e.g. '[P001, Table 1]'")
    units: list[str] = Field(default_factory=list, description="the units it cites, 'P001 table:1'")
    opened: list[bool] = Field(default_factory=list, description="per unit: the trace shows it opened")
    turn: int | None = Field(default=None, description="where the first cited unit was first opened")
    step: int | None = None


class ClaimMark(BaseModel):
    text: str = Field(description="the claim in plain words")
    kind: str
    marks: list[Mark]
    primary: Mark
    extracted_by: str = "rules"
    violates: str | None = None
    gold: int | None = None
    support: list[str] = Field(default_factory=list, description="judged support per cited unit, 'P001 table:1: supported'")


class Piece(BaseModel):
    text: str = ""
    sentence: int | None = Field(default=None, description="index of the sentence it belongs to")
    cite: int | None = Field(default=None, description="index of the citation it is")
    claims: list[int] = Field(default_factory=list, description="a marks piece: the claims read from the sentence before")


class ReportView(BaseModel):
    turn: int
    extraction: str = "rules"
    pieces: list[Piece] = Field(default_factory=list)
    sentence_marks: list[Mark | None] = Field(default_factory=list, description="per sentence: its worst claim mark")
    citations: list[CitationLink] = Field(default_factory=list)
    claims: list[ClaimMark] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict, description="claims per mark")
    problems: list[str] = Field(default_factory=list)
    judged: JudgedReport | None = None
    cut: bool = Field(default=False, description="the text was longer than the view shows")


def claim_marks(d: ClaimVerdict, opened: set[tuple[str, str]]) -> list[Mark]:
    marks: list[Mark] = [{"right": "true", "wrong": "false", "unknown": "unknown"}[d.label]]  # type: ignore[list-item]
    if not d.cited:
        marks.append("uncited")
    elif any(u.key not in opened for u in d.claim.cites):
        marks.append("unread")
    if d.violates is not None:
        marks.append("off_persona")
    return marks


def _first_openings(fold: EpisodeFold, upto: int) -> dict[tuple[str, str], tuple[int, int]]:
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for t, ev, keys in opened_calls(fold, upto):
        for k in keys:
            out.setdefault(k, (t, ev.step))
    return out


def report_view(text: str, score: ReportScore, fold: EpisodeFold) -> ReportView:
    """The view of one scored report (its turn's answer `text`, its `score`, the episode's trace fold)."""
    cut = len(text) > MAX_VIEW_CHARS
    text = text[:MAX_VIEW_CHARS]
    openings = _first_openings(fold, score.turn)
    opened = set(openings)
    view = ReportView(turn=score.turn, extraction=score.extraction, problems=list(score.problems), judged=score.judged, cut=cut)
    support: dict[int, list[str]] = {}
    for s in (score.judged.support if score.judged else []):
        verdict = "no verdict" if s.judged is None else ("supported" if s.judged else "unsupported")
        support.setdefault(s.claim, []).append(f"{s.unit}: {verdict}" + (f" ({s.why})" if s.why else ""))
    for i, d in enumerate(score.details):
        marks = claim_marks(d, opened)
        view.claims.append(ClaimMark(text=describe_claim(d.claim), kind=d.claim.kind, marks=marks,
                                     primary=min(marks, key=MARKS.index), extracted_by=d.extracted_by,
                                     violates=d.violates, gold=d.gold, support=support.get(i, [])))
        for m in marks:
            view.counts[m] = view.counts.get(m, 0) + 1
    cites, _, spans = parse_citations(text)
    for a, b in spans:
        units = [c for c in cites if c.start == a]
        first = next((openings[c.key] for c in units if c.key in openings), None)
        view.citations.append(CitationLink(text=text[a:b], units=[c.as_unit().label() for c in units],
                                           opened=[c.key in opened for c in units],
                                           turn=first[0] if first else None, step=first[1] if first else None))
    sentences = split_sentences(text)
    by_sentence: list[list[int]] = [[] for _ in sentences]
    k = 0
    for i, d in enumerate(score.details):  # claims come in sentence order; each names its sentence
        while k < len(sentences) and sentences[k].text.strip() != d.claim.sentence:
            k += 1
        if k < len(sentences):
            by_sentence[k].append(i)
        else:
            k = 0  # not found in order (should not happen): leave it in the claim list only
    view.sentence_marks = [min((view.claims[i].primary for i in idx), key=MARKS.index) if idx else None
                           for idx in by_sentence]
    view.pieces = _pieces(text, sentences, spans, by_sentence)
    return view


def _pieces(text: str, sentences: list, spans: list[tuple[int, int]], by_sentence: list[list[int]]) -> list[Piece]:
    out: list[Piece] = []
    pos = 0

    def plain(upto: int, sentence: int | None) -> None:
        nonlocal pos
        while pos < upto:
            hit = next(((j, a, b) for j, (a, b) in enumerate(spans) if pos <= a < upto), None)
            if hit is None:
                out.append(Piece(text=text[pos:upto], sentence=sentence))
                pos = upto
                return
            j, a, b = hit
            if a > pos:
                out.append(Piece(text=text[pos:a], sentence=sentence))
            out.append(Piece(text=text[a:b], sentence=sentence, cite=j))
            pos = b

    for k, s in enumerate(sentences):
        plain(s.start, None)
        plain(s.start + len(s.text), k)
        if by_sentence[k]:
            out.append(Piece(claims=by_sentence[k], sentence=k))
    plain(len(text), None)
    return [p for p in out if p.text or p.claims]
