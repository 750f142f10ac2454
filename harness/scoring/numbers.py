"""Which numbers in an answer are answers: every number is found, then given a role the way a reader would.

Never answers: numbers inside identifiers ("P027", "CIFAR-100", "ImageNet-1K", "top-1"), after a
reference word ("Table 2", "Fig. 3b", "turn 1"), citation years and brackets ("Smith et al. (2020)",
"[12]"), ordinals ("2nd"), the operands of a worked sum ("77.23 - 67.21 = 10.02" answers 10.02) and
uncertainties ("± 0.12"). Set aside when another value remains: numbers that restate the question
("at 400 epochs" when the question says 400), comparisons ("2.1 points higher"), bounds ("more than 70")
and operands of a sum without a result. Whatever is left is a candidate value; `numbers_in` returns
them with their units (see `units.py`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from .answer_clauses import Clauses
from .units import UnitInfo, read_unit

Role = Literal["candidate", "identifier", "reference", "citation", "ordinal", "operand", "uncertainty",
               "echo", "relative", "bound", "soft_operand", "year", "setting", "reason", "negated"]
HARD_ROLES = {"identifier", "reference", "citation", "ordinal", "operand", "uncertainty"}
SOFT_ROLES = {"echo", "relative", "bound", "soft_operand", "year", "setting", "reason"}
# Words after a number that make it a count describing the setup ("300 epochs", "8 GPUs"), not a reading
_FUNCTION_WORDS = {"in", "of", "and", "or", "on", "at", "for", "to", "the", "a", "an", "is", "was", "with", "from", "by",
                   "as", "vs", "than", "which", "that", "this", "it", "its", "i", "e", "g", "ie", "eg", "are", "were",
                   # words that open a reason, a comparison, a negation or an alternative after a value
                   "because", "since", "while", "whereas", "although", "though", "versus", "not", "but", "so", "compared",
                   "unlike", "given", "over", "ahead", "behind", "beats", "unless", "maybe", "possibly", "perhaps",
                   "instead", "rather", "if", "when", "where", "according", "per", "here", "there", "too", "either"}
_SETTING_BEFORE = re.compile(r"\b(?:batch\s+size|resolution|seed|budget|width|depth|size|learning\s+rate|lr|"
                             r"temperature|k)\s*(?:of|=|:)?\s*$", re.I)

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+(?![\d])|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")
_REFERENCE_BEFORE = re.compile(
    r"(?:\b(?:tables?|tab|figures?|figs?|sections?|secs?|eqs?|equations?|appendix|appendices|app|algorithms?|alg|"
    r"theorems?|lemmas?|propositions?|definitions?|corollary|chapters?|ch|pages?|pp?|lines?|rows?|cols?|columns?|"
    r"steps?|turns?|options?|questions?|q|examples?|experiments?|exp|stages?|phases?|rounds?|parts?|items?|refs?|"
    r"references?|footnotes?|notes?|panels?|subfigures?|versions?|ver|v|ranks?|run|seeds?|folds?|blocks?|"
    r"episodes?|papers?)\.?|\bnos?\.|§|#)\s*[(\[]?\s*$", re.I)
_REFERENCE_CONTINUES = re.compile(r"^\s*[)\]]?\s*(?:,|and|&|-|–|to|or)\s*[(\[]?\s*$", re.I)
_CITATION_PAREN = re.compile(r"\((?=[^()]*[A-Z][A-Za-z])[^()]{0,160}?\b(?:19|20)\d\d[a-z]?\b[^()]{0,60}\)")
_CITATION_NAME_YEAR = re.compile(r"(?:et\s+al\.?|[A-Z][a-z][\w\-]*)\s*,?\s*\(\s*(?:19|20)\d\d[a-z]?\s*\)")
_CITATION_BRACKET = re.compile(r"\[\s*\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\s*\]")
_ETAL_BEFORE = re.compile(r"et\s+al\.?\s*,?\s*\(?\s*$", re.I)
_UNCERTAINTY_BEFORE = re.compile(r"(?:±|\+/-|\+-|\bstd\.?\s*(?:of\s*)?)\s*\(?\s*$", re.I)
_BOUND_BEFORE = re.compile(
    r"(?:\b(?:at\s+least|at\s+most|more\s+than|less\s+than|greater\s+than|fewer\s+than|higher\s+than|"
    r"lower\s+than|up\s+to|over|under|above|below|exceeds?|exceeding)|>=?|<=?|≥|≤|≳|≲)\s*$", re.I)
_RELATIVE_AFTER = re.compile(
    r"^\s*(?:%|pp|p\.p\.|percentage\s+points?|points?|pts)?\s*(?:higher|lower|above|below|more|less|better|worse|"
    r"ahead|behind|over|under|gain|improvement|drop|decrease|increase|margin|gap|fewer|greater|smaller|larger)\b", re.I)
_RELATIVE_BEFORE = re.compile(r"\b(?:by|gap\s+of|margin\s+of|improvement\s+of|gain\s+of|drop\s+of)\s*(?:about\s+|roughly\s+|~\s*)?$", re.I)
# "... lower than the full model's 79.10", "... below the full model (79.10%)": the value compared against
_COMPARED_TO = re.compile(r"\b(?:than|compared\s+(?:to|with)|relative\s+to|below|above|behind|ahead\s+of|"
                          r"against|(?:up|down)\s+from)(?![A-Za-z])[^.;:\d=]{0,40}$", re.I)
# "vs. 70.1 for NorloDet", "vs. the full model's 79.10": a comparison only when the other is named; a bare
# "77.2 vs. 84.7" names no other and offers two candidates
_VERSUS_BEFORE = re.compile(r"\b(?:versus|vs)\b\.?([^.;:\d=]{0,40})$", re.I)
_FILLER = re.compile(r"\b(?:about|roughly|approximately|approx|around|only|just|nearly|almost|the|a|an|of|at|~)\b|[~≈(\s]", re.I)
_NAMED_AFTER = re.compile(r"^\s*%?\s*\)?\s*(?:(?:for|of|by|from|with|on|in|at|using|under)\s+[\w\"'“‘]*[A-Za-z]|\(\s*[A-Za-z])", re.I)
# "(the full model has 79.1)": a value a parenthetical remark gives to something else
_ATTRIBUTED = re.compile(r"[A-Za-z][\w'’\-]*\s+(?:has|have|had|reaches|reached|gets|got|scores|scored|achieves|achieved|"
                         r"obtains|obtained|attains|attained|is|was|are|were)\s+(?:about\s+|only\s+|roughly\s+|~\s*)?$", re.I)
# "(NorloDet: 70.1)", "(the full model: 79.1)", "(Cora: 77.2, PubMed: 70.1)": a value a parenthesis labels with
# something (the label after the last comma; a label that offers, like "or"/"alternatively", or a bare "note" is none)
_LABELLED = re.compile(r"(?:^|[,;(])\s*(?!(?:or|and/or|maybe|possibly|perhaps|alternatively|otherwise|either|else|also|"
                       r"note|nb|alt|alternative|other|instead)\b)[A-Za-z][\w'’\-]*(?:\s+[\w'’\-]+){0,3}\s*[:=]\s*"
                       r"(?:about\s+|only\s+|roughly\s+|~\s*)?$", re.I)
# "(70.1 for NorloDet)": a value a parenthesis gives to another that is named
_FOR_NAMED_AFTER = re.compile(r"^\s*%?\s*(?:for|by)\s+(?:the\s+)?[\w\"'“‘]*[A-Za-z]", re.I)
# "3/4", "1:2": two integers joined by a slash or a colon, no spaces, are one value (a fraction or a ratio)
_FRACTION = re.compile(r"(?<![\w.,/:\-])(\d{1,4})([/:])(\d{1,4})(?![\w/:]|[.,]\d)")
_NUMTOK = r"\(?\s*[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?\s*%?\s*\)?"
_OP = r"\s*[-+×x*/÷]\s*"
_EXPR_EQ = re.compile(rf"((?:{_NUMTOK})(?:{_OP}(?:{_NUMTOK}))+)\s*(?:=|≈|≃|~=|->|→|=>)\s*[-+]?\d")
_EQ_EXPR = re.compile(rf"(?:=|≈|≃|~=)\s*((?:{_NUMTOK})(?:{_OP}(?:{_NUMTOK}))+)(?!\s*[=≈])")
_EXPR_SPACED = re.compile(rf"((?:{_NUMTOK})(?:\s+[-+×x*/÷]\s+(?:{_NUMTOK}))+)")
# "in the 2019 paper", "since 2020": a year that dates something, set aside when another value is given
_YEAR_BEFORE = re.compile(r"\b(?:in|since|from|until|by|circa|early|late|mid|the|its|their)\s*-?\s*$", re.I)
_YEAR_AFTER = re.compile(r"^\s*(?:paper|work|study|version|edition|release|survey|benchmark|challenge|competition|"
                         r"conference|workshop|model|dataset)s?\b", re.I)
_ORDINAL = re.compile(r"^(?:st|nd|rd|th)\b", re.I)
_GLUED_WORD = re.compile(r"^[A-Za-z%°µμ]+")
_NEXT_WORD = re.compile(r"^\s*(\(?%\)?|percentage\s+points?|per\s+cent|[A-Za-z%°µμ][A-Za-z0-9/°µμ.]*)")
_ASSIGN_END = re.compile(r"[=≈~]\s*$")


@dataclass
class Mention:
    """One number as written in the answer, with its unit and its role."""

    value: float
    text: str
    start: int
    end: int
    unit: UnitInfo | None = None
    role: Role = "candidate"

    def same_value(self, other: "Mention") -> bool:
        """Equal as quantities: same number, or the same share written as percent and as fraction."""
        a, b = self.value, other.value
        if _close(a, b):
            return _units_agree(self.unit, other.unit)
        pa = self.unit is not None and self.unit.kind == "percent"
        pb = other.unit is not None and other.unit.kind == "percent"
        if pa != pb:
            return _close(a / 100, b) if pa else _close(a, b / 100)
        if self.unit and other.unit and self.unit.kind == other.unit.kind == "physical" and self.unit.root == other.unit.root:
            return _close(a * self.unit.factor, b * other.unit.factor)
        return False


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _units_agree(a: UnitInfo | None, b: UnitInfo | None) -> bool:
    return a is None or b is None or a.compatible(b) or a.kind == "label" or b.kind == "label"


def _token_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    ts = start
    while ts > 0 and not text[ts - 1].isspace():
        ts -= 1
    te = end
    while te < len(text) and not text[te].isspace():
        te += 1
    return ts, te


def _parse(raw: str) -> float | None:
    try:
        v = float(raw.replace(",", ""))
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _spans(pattern: re.Pattern[str], text: str, group: int = 0) -> list[tuple[int, int]]:
    return [m.span(group) for m in pattern.finditer(text)]


def _inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a <= start and end <= b for a, b in spans)


def _fractions(text: str, operands: list[tuple[int, int]]) -> list[Mention]:
    """"3/4" and "1:2" as one value each, unless they are the operands of a worked sum ("3/4 = 0.75")."""
    out = []
    for m in _FRACTION.finditer(text):
        num, den = int(m.group(1)), int(m.group(3))
        if den == 0 or _inside(operands, m.start(), m.end()) or (len(m.group(1)) == 4 and 1900 <= num <= 2099):
            continue
        out.append(Mention(value=num / den, text=m.group(0), start=m.start(), end=m.end()))
    return out


def find_mentions(text: str) -> list[Mention]:
    """Every number in `text` with its unit and role (before the question is taken into account)."""
    out: list[Mention] = []
    cite_years = _spans(_CITATION_PAREN, text) + _spans(_CITATION_NAME_YEAR, text)
    cite_brackets = _spans(_CITATION_BRACKET, text)
    operands = _spans(_EXPR_EQ, text, 1) + _spans(_EQ_EXPR, text, 1)
    soft_operands = _spans(_EXPR_SPACED, text, 1)
    fractions = _fractions(text, operands)
    spans = [(f.start, f.end) for f in fractions]
    for f in fractions:
        _classify(text, f, cite_years, cite_brackets, operands, soft_operands)
        out.append(f)
    for m in _NUMBER.finditer(text):
        start, end, raw = m.start(), m.end(), m.group(0)
        if _inside(spans, start, end):
            continue
        if raw[0] in "+-" and start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".)]"):
            start, raw = start + 1, raw[1:]  # a hyphen or minus between words/values, not a sign
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "."):
            continue  # the tail of a longer token already seen ("P027" -> "027"), or "1.2.3"
        value = _parse(raw)
        if value is None:
            continue
        mention = Mention(value=value, text=raw, start=start, end=end)
        _classify(text, mention, cite_years, cite_brackets, operands, soft_operands)
        out.append(mention)
    out.sort(key=lambda x: x.start)
    _continue_references(text, out)
    return out


def _classify(text: str, m: Mention, cite_years, cite_brackets, operands, soft_operands) -> None:  # noqa: ANN001
    ts, te = _token_bounds(text, m.start, m.end)
    prefix = text[ts:m.start].lstrip("([{\"'“‘*")
    after = text[m.end:te]
    before = text[max(0, m.start - 60):m.start]
    glued = _GLUED_WORD.match(after)
    if any(c.isalpha() for c in prefix) and not _ASSIGN_END.search(prefix):
        m.role = "identifier"
        return
    if after[:1] == "-" and after[1:2].isalpha():
        m.role = "identifier"  # "5-shot", "8-bit", "3-layer": a setting, not a value
        return
    if glued:
        word = glued.group(0)
        if _ORDINAL.match(word):
            m.role = "ordinal"
            return
        if word.lower() in ("x", "×"):
            pass
        else:
            unit = read_unit(word, glued=True)
            if unit is None and word[0] != "%":
                m.role = "identifier"  # "2a", "3D", "20K-token": part of a name
                return
            m.unit = unit
    if m.unit is None:
        nxt = _NEXT_WORD.match(text[m.end + (len(glued.group(0)) if glued else 0):])
        if nxt:
            word = nxt.group(1).strip("()")
            m.unit = read_unit(word, glued=False) if not word.lower().startswith("x") else None
    if m.unit is not None and m.unit.kind == "magnitude":
        m.value *= m.unit.factor
        m.unit = None
    if _REFERENCE_BEFORE.search(before):
        m.role = "reference"
    elif _inside(cite_brackets, m.start, m.end) or (
            1900 <= m.value <= 2099 and m.value.is_integer() and (_inside(cite_years, m.start, m.end) or _ETAL_BEFORE.search(before))):
        m.role = "citation"
    elif _UNCERTAINTY_BEFORE.search(before):
        m.role = "uncertainty"
    elif _inside(operands, m.start, m.end):
        m.role = "operand"
    elif _BOUND_BEFORE.search(before):
        m.role = "bound"
    elif (_RELATIVE_AFTER.match(text[m.end:m.end + 40]) or _RELATIVE_BEFORE.search(before)
          or _COMPARED_TO.search(before) or _named_versus(text, m, before)):
        m.role = "relative"
    elif _inside(soft_operands, m.start, m.end):
        m.role = "soft_operand"
    elif (m.unit is None and m.text.isdigit() and len(m.text) == 4 and 1900 <= m.value <= 2099
          and (_YEAR_BEFORE.search(before) or _YEAR_AFTER.match(text[m.end:m.end + 20]))):
        m.role = "year"
    elif m.unit is None and ((m.text.isdigit() and _counted_noun_after(text, m)) or _SETTING_BEFORE.search(before)):
        m.role = "setting"


def _named_versus(text: str, m: Mention, before: str) -> bool:
    """"vs. 70.1 for NorloDet", "vs. NorloDet's 70.1": a value set against another that is named."""
    vs = _VERSUS_BEFORE.search(before)
    if vs is None:
        return False
    between = _FILLER.sub(" ", vs.group(1))
    return bool(re.search(r"[A-Za-z]", between)) or bool(_NAMED_AFTER.match(text[m.end:m.end + 40]))


def _counted_noun_after(text: str, m: Mention) -> bool:
    """"300 epochs", "8 GPUs", "224px": the number counts something that is not a unit."""
    nxt = re.match(r"[ \t]*([A-Za-z][A-Za-z\-]*)", text[m.end:m.end + 30])
    return bool(nxt) and nxt.group(1).lower() not in _FUNCTION_WORDS


def _continue_references(text: str, mentions: list[Mention]) -> None:
    """"Tables 2 and 3", "Figures 1-3": numbers chained to a reference are references too."""
    for prev, cur in zip(mentions, mentions[1:]):
        small_int = cur.text.isdigit() and len(cur.text) <= 2
        if prev.role == "reference" and small_int and cur.role not in HARD_ROLES and _REFERENCE_CONTINUES.match(text[prev.end:cur.start]):
            cur.role = "reference"


def question_numbers(question: str | None) -> list[float]:
    """Numbers the question states (its conditions, like "GFLOPs = 7"): restating them is not answering."""
    if not question:
        return []
    return [m.value for m in find_mentions(question) if m.role not in ("citation",)]


_ALTERNATIVE_WORDS = re.compile(r"\bor\b|\beither\b|\bpossibly\b|\bmaybe\b|\bperhaps\b|\bbetween\b|\s/\s|\d\s*/\s*\d", re.I)


def _read_clauses(text: str, mentions: list[Mention]) -> bool:
    """Negated values ("not 77.2", "77.2 is wrong") and values in a reason ("because the full model's 79.1 ...")
    are not offered; returns whether some value is offered as an alternative ("or possibly 79.1")."""
    clauses = Clauses.of(text)
    offered = False
    for m in mentions:
        if m.role in HARD_ROLES:
            continue
        mode = clauses.mode(m.start, m.end)
        aside = clauses.aside(m.start)
        if mode == "assert" and aside is not None and (
                _ATTRIBUTED.search(aside) or _LABELLED.search(aside)
                or (not _ALTERNATIVE_WORDS.search(aside) and not re.search(r"\d", aside)
                    and _FOR_NAMED_AFTER.match(text[m.end:m.end + 40]))):
            mode = "reason"  # "77.2 (the full model has 79.1)", "(NorloDet: 70.1)", "(70.1 for NorloDet)": a remark about another row
        if mode == "negated":
            m.role = "negated"
        elif mode == "reason" and m.role == "candidate":
            m.role = "reason"
        elif mode == "alternative" and m.role in ("candidate", "setting"):
            offered = True
    return offered


def numbers_in(text: str, question: str | None = None, gold_unit: UnitInfo | None = None) -> tuple[list[Mention], list[Mention]]:
    """(candidate values, all mentions). Soft roles count only when no plain candidate is left.

    When the answer offers alternatives ("or", "either", "possibly", "a / b"), counts and settings
    stay candidates, so a hedge is never resolved by guessing which number was meant. Otherwise, when
    the gold has a unit, a number in another unit ("224 px", "0.5 s") is set aside if another is left.
    Negated values are never candidates (`negated`); values in a reason or comparison clause are soft.
    """
    mentions = find_mentions(text)
    asked = question_numbers(question)
    for m in mentions:
        if m.role == "candidate" and any(_close(m.value, q) for q in asked):
            m.role = "echo"
    offered = _read_clauses(text, mentions)
    unfractioned = _FRACTION.sub(" ", text)
    hedging = offered or bool(_ALTERNATIVE_WORDS.search(unfractioned))
    plain = [m for m in mentions if m.role == "candidate" or (hedging and m.role == "setting")]
    if plain and gold_unit is not None and gold_unit.kind != "label" and not hedging:
        same = [m for m in plain if m.unit is None or m.unit.kind == "label" or m.unit.compatible(gold_unit)]
        plain = same or plain
    if plain:
        return plain, mentions
    soft = [m for m in mentions if m.role in ("echo", "relative", "soft_operand", "year", "setting")]
    reasons = [m for m in mentions if m.role == "reason"]
    bounds = [m for m in mentions if m.role == "bound"]
    return (soft or reasons or bounds), mentions


def distinct_values(cands: list[Mention]) -> list[Mention]:
    """One mention per distinct quantity (77.23 and 77.23% and 0.7723 given as a fraction of it are one)."""
    out: list[Mention] = []
    for c in cands:
        if not any(c.same_value(o) for o in out):
            out.append(c)
    return out
