"""Score one report turn from the episode file and the trace alone: claims read from the report, each checked
against the episode's unit facts, its citations, what the agent opened, the gold claim set and the persona."""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from harness.episode import Claim, Persona, ReportTurn
from harness.trace_fold import EpisodeFold

from ._citations import parse_citations
from ._extract import ClaimExtractor, split_sentences
from ._lexicon import lexicon_from_facts, norm_name
from ._model import ClaimVerdict, ReportScore
from ._opened import opened_keys
from ._verify import FactBook

if TYPE_CHECKING:
    from harness.scoring.judge import Judge

_RECOMMEND = re.compile(r"\b(?:recommend(?:ed|s)?|suggest(?:ed|s)?|(?:should|would)\s+(?:use|adopt|pick|choose|go\s+with)|"
                        r"go\s+with|opt\s+for|best\s+(?:choice|option|fit|bet)|choose|pick)\b", re.I)
_OPS = {"<=": lambda a, b: a <= b + 1e-9, ">=": lambda a, b: a >= b - 1e-9, "==": lambda a, b: math.isclose(a, b)}


def covers(claim: Claim, gold: Claim) -> bool:
    """A report claim covers a gold claim (LiveDRBench): same kind, subjects and relation, the same dataset,
    quantity and setting where the report names them (the setting must be named when the gold has one), and a
    value within the gold's tolerance plus the report's printed precision."""
    if claim.kind != gold.kind or claim.relation != gold.relation:
        return False
    if norm_name(claim.subject) != norm_name(gold.subject) or norm_name(claim.object or "") != norm_name(gold.object or ""):
        return False
    for mine, theirs in ((claim.dataset, gold.dataset), (claim.quantity, gold.quantity)):
        if mine is not None and theirs is not None and norm_name(mine) != norm_name(theirs):
            return False
    if gold.x is not None and (claim.x is None or not math.isclose(claim.x, gold.x)):
        return False
    if gold.kind == "value":
        return claim.value is not None and gold.value is not None and \
            abs(claim.value - gold.value) <= (gold.tolerance or 0.0) + (claim.tolerance or 0.0) + 1e-9
    return True


class PersonaCheck:
    """Which methods and datasets a persona's constraints rule out, from the episode's facts."""

    def __init__(self, persona: Persona | None, turn: ReportTurn):
        self.persona = persona
        self.excluded: dict[str, str] = {}  # normalised method -> the constraint it breaks
        self.dataset: tuple[str, str] | None = None
        if persona is None:
            return
        years = {norm_name(p.method): p.year for p in turn.papers if p.year is not None}
        for c in persona.constraints:
            if c.field == "dataset":
                self.dataset = (norm_name(str(c.value)), c.text)
                continue
            if c.field == "year":
                for m, y in years.items():
                    if not _OPS[c.op](float(y), float(c.value)):
                        self.excluded.setdefault(m, c.text)
                continue
            for u in turn.facts:
                if u.kind != "table" or c.field not in u.columns:
                    continue
                i = u.columns.index(c.field)
                for r in u.rows:
                    try:
                        v = float(r[i])
                    except (ValueError, IndexError):
                        continue
                    if not _OPS[c.op](v, float(c.value)):
                        self.excluded.setdefault(norm_name(r[0]), c.text)

    def violation(self, claim: Claim) -> str | None:
        for name in (claim.subject, claim.object):
            if name and norm_name(name) in self.excluded:
                return self.excluded[norm_name(name)]
        if self.dataset and claim.dataset and norm_name(claim.dataset) != self.dataset[0]:
            return self.dataset[1]
        return None


def _opened(fold: EpisodeFold, upto: int) -> set[tuple[str, str]]:
    return opened_keys(fold, upto)


def score_report(turn: ReportTurn, fold: EpisodeFold, number: int, judge: "Judge | None" = None) -> ReportScore:
    """The report metrics of report turn `turn` (turn `number` of the episode) from its trace. With a `judge`, the
    sentences the rules could not fully parse are also read by it (judged extraction); every claim, whoever read
    it, is checked by rules."""
    out = ReportScore(turn=number, max_words=turn.max_words, gold=len(turn.gold),
                      persona_checked=turn.persona is not None and bool(turn.persona.constraints))
    tf = fold.turns.get(number)
    out.ran = bool(tf and tf.ran)
    text = (tf.answer_text if tf else None) or ""
    if not text.strip():
        out.problems.append("no report: the turn never ran" if not out.ran else "empty report")
        return out
    out.words = len(text.split())
    if out.words > turn.max_words:
        out.problems.append(f"over the word limit: {out.words} words > {turn.max_words}")
    book = FactBook(turn.facts, turn.papers)
    cites, malformed, _ = parse_citations(text)
    out.problems += [p.why for p in malformed]
    for c in {c.key: c for c in cites}.values():
        if not book.known_paper(c.paper):
            out.problems.append(f"citation of unknown paper {c.paper}")
        elif not book.known_unit(c.paper, c.unit):
            out.problems.append(f"citation of unknown unit {c.paper} {c.unit}")
    if not cites:
        out.problems.append("no citations in the syntax [PAPER, Figure N] / [PAPER, Table N] / [PAPER]")
    extractor = ClaimExtractor(lexicon_from_facts(turn.facts, turn.papers))
    persona = PersonaCheck(turn.persona, turn)
    opened = _opened(fold, number)
    unread: set[str] = set()
    sentences = split_sentences(text)
    rule_claims = [extractor.sentence_claims(sent) for sent in sentences]
    extra: list[list[Claim]] = [[] for _ in sentences]
    if judge is not None:
        from ._judge_extract import PROMPT_VERSION, JudgedExtractor, judged_claims
        from ._judged_model import JudgedReport

        reader = JudgedExtractor(judge, extractor.lex, text)
        extra = judged_claims(extractor, reader, sentences, rule_claims)
        out.extraction = f"rules + {judge.name} ({PROMPT_VERSION})"
        out.judged = JudgedReport(judge=judge.name, prompt_versions={"extract": PROMPT_VERSION}, extraction=reader.record)
    for sent, mine, theirs in zip(sentences, rule_claims, extra):
        for claim in mine:
            out.details.append(_verdict(claim, book, opened, persona, unread))
        for claim in theirs:
            v = _verdict(claim, book, opened, persona, unread)
            v.extracted_by = judge.name if judge is not None else "rules"
            out.details.append(v)
        if persona.excluded and _RECOMMEND.search(sent.text):
            out.recommendations += 1
            named = [m for m in extractor.spans(sent.text) if m.kind == "method"]
            hit = next((m for m in named if norm_name(m.canon) in persona.excluded), None)
            if hit is not None:
                out.persona_violations += 1
    if not out.details:
        out.problems.append("no claims about named methods found")
    _cover(out.details, turn.gold)
    out.claims = len(out.details)
    for d in out.details:
        setattr(out, d.label, getattr(out, d.label) + 1)
        out.cited += d.cited
        out.paper_supported += d.cited and d.paper_supported
        out.unit_supported += d.cited and d.unit_supported
        out.opened_supported += d.cited and d.opened_supported
        out.figure_claims += d.cites_figure
        out.figure_supported += d.figure_supported
        out.persona_violations += d.violates is not None
        out.citations += len(d.claim.cites)
        out.citations_opened += sum(u.key in opened for u in d.claim.cites)
    out.gold_covered = sum(1 for d in out.details if d.gold is not None)
    out.unread = sorted(unread)
    if out.unread:
        out.problems.append(f"cites {len(out.unread)} unit(s) never opened in the episode: {', '.join(out.unread)}")
    return out


def _verdict(claim: Claim, book: FactBook, opened: set[tuple[str, str]], persona: PersonaCheck,
             unread: set[str]) -> ClaimVerdict:
    any_unit = book.check_any(claim)
    label = {"supported": "right", "contradicted": "wrong", "unresolved": "unknown"}[any_unit]
    v = ClaimVerdict(claim=claim, label=label, cited=bool(claim.cites), violates=persona.violation(claim))  # type: ignore[arg-type]
    for u in claim.cites:
        ok = book.check(claim, u.paper, u.unit) == "supported"
        v.unit_supported |= ok
        v.paper_supported |= ok or book.check_paper(claim, u.paper) == "supported"
        v.opened_supported |= ok and u.key in opened
        if u.unit.startswith("figure:"):
            v.cites_figure = True
            v.figure_supported |= ok
        if u.key not in opened:
            unread.add(u.label())
    return v


def _cover(details: list[ClaimVerdict], gold: list[Claim]) -> None:
    """Greedy one-to-one (each gold claim used once, as `match_set.score_items` matches set items)."""
    used: set[int] = set()
    for d in details:
        for i, g in enumerate(gold):
            if i not in used and covers(d.claim, g):
                used.add(i)
                d.gold = i
                break
