"""Claims from report text, deterministically: sentences that state numbers, rankings and comparisons about
named methods become atomic `Claim`s carrying the citations of their sentence (phrasing patterns: `_patterns.py`;
comparison words and the methods they link, with coordination and ellipsis: `_compare.py`).

Per sentence: citations are read and blanked out (`_citations`); methods, datasets, quantities and setting
words are found with the episode's lexicon (`_lexicon`); numbers and their units come from the answer
matcher's reader (`scoring.numbers.find_mentions`: identifiers such as "CIFAR-100", "Table 2" and years are
never values). A number is a setting ("50 pretraining epochs"), a difference ("1.9 points above"), a ratio
("2.3 times"), a limit ("a 40M parameter limit") or a value; a value belongs to the method the sentence
ties it to ("A and B reach 1 and 2, respectively", "111 for B", "A ... B, 1 versus 2", else the nearest
method before it, else after it). A comparison word between two methods ("outperforms", "trails", "lower
than") makes a compare claim, a superlative ("the lowest FID", "tops") a rank claim; "better" and
"worse" read through the quantity's direction (a lower FID is better). Precision and recall are measured on
hand-labelled sentences (tests/harness/data/report_claims_labelled.json, `bench/report_extractor.py`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from harness.episode import Claim
from harness.scoring.numbers import find_mentions
from tools import EvidenceUnit

from ._citations import Citation, parse_citations
from ._compare import Comparison, Span, _clause_before, _distinct, find_comparisons
from ._lexicon import (
    COST_FAMILIES, IMPLIED_QUANTITY, Lexicon, content_aliases, _UNIT_WORDS, _unit_of, head_aliases as _head_aliases, name_root, quantity_aliases, quantity_family,
    quantity_patterns, setting_keywords, _verb_forms, _PAREN,
)
from ._patterns import (
    IMPLIED_BY_COMPARATIVE, _ABBREV, _AGENT_AFTER, _ANAPHOR, _AND_JOIN, _APPOSITION, _AT_JOIN, _BARE_END,
    _BOUND_BEFORE, _CAMEL, _CLAUSE_BREAK, _CLAUSE_SETTING_AFTER, _CLAUSE_SETTING_BEFORE, _CLAUSE_START, _COMPARE_RE,
    _COUNT_AFTER, _DATASET_JOIN, _DIFFERENCE_NOUN, _DIFF_AFTER, _DIFF_AFTER_OBJECT, _DIFF_BEFORE, _FOR_AFTER,
    _FROM_BEFORE, _GOVERNED, _HYPER_BEFORE, _LABEL_JOIN, _LIMIT_AFTER, _LIMIT_BEFORE, _MARKUP, _NEGATED,
    _NOT_A_RESULT, _PAIR_JOIN, _PARTICIPLE_AFTER, _POINTS_AFTER, _POINT_COMPOUND, _PRONOUN_START, _RANGE_BEFORE,
    _RANGE_JOIN, _RANK_RE, _RATIO_AFTER, _SETTING_BEFORE_JOIN, _SETTING_COMPOUND, _SETTING_LIST_JOIN,
    _SETTING_SUPERLATIVE, _SET_TO_VERB, _SKIP_ROLES, _SUBSET_AFTER, _SPLIT, _TIE_VERB, _TIE_WORD, _TRAJECTORY_BEFORE, _UNSTATED,
    _VALUE_RANGE_BEFORE, _OWN_BEST, _RELATIVE_AFTER, _REACH_BEFORE, _OF_AFTER, _SETTING_RANGE, _SLASH_JOIN,
    _LATER_CLAUSE, _COUNT_PREP_BEFORE, _OVER_ALL_FRONTED, _GERUND_FROM, _MORE_DIFF_ON, _OVER_ALL_DATASETS, _ON_ALL_COUNTS, _DATASET_OF_AFTER, _INTRODUCES_NUMBER, _NOT_A_RESULT_BEFORE, _CONFIDENCE_AFTER, _TOP_N_BEFORE, _SAME_BEFORE, _SET_AGAIN_BEFORE, _ORDINAL_BEFORE, _DIFFERENCE_BEFORE, _THAN_ALL_SUBSET, _SUBSET_BEFORE,
)


@dataclass
class Number:
    value: float
    start: int
    end: int
    role: str  # value | setting | diff
    unit: str | None = None
    slack: float = 0.0  # half a unit of the last printed digit
    x_label: str | None = None
    thousands: bool = False  # written with a glued "k" ("1.2k img/s")
    at: "Number | None" = None  # the setting this value is stated at, read off the sentence's structure
    magnitude: str | None = None  # a glued "M" or "B" ("44.1M")


@dataclass
class Sentence:
    text: str
    start: int
    cites: list[Citation]
    header: list[str] | None = None  # a markdown table row: its table's header cells
    header_cites: list[Citation] | None = None  # the citations of the header line or of the caption right above it


def _slack(raw: str) -> float:
    digits = raw.split(".")[1] if "." in raw else ""
    return 0.5 * 10 ** (-len(digits))


def split_sentences(text: str) -> list[Sentence]:
    """Sentences (lines first: bullets and table rows stand alone), each with the citations written in it; a
    citation standing alone after a sentence belongs to that sentence."""
    cites, _, _ = parse_citations(text)
    out: list[Sentence] = []
    pos = 0
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    header: list[str] | None = None
    header_cites: list[Citation] = []
    for i, line in enumerate(lines):
        if not _TABLE_ROW.match(line):
            header = None
        elif i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]) and not _TABLE_RULE.match(line):
            header = _cells(line)  # "| Method | Params (M) | CIFAR-100 |" over "|---|---|---|"
            above = next((k for k in range(i - 1, -1, -1) if lines[k].strip()), None)
            span = [(starts[i], starts[i + 1])] + ([(starts[above], starts[above + 1])] if above is not None
                                                   and not _TABLE_ROW.match(lines[above]) else [])
            header_cites = [c for c in cites if any(a <= c.start < b for a, b in span)]
        elif header is not None and _TABLE_ROW.match(line) and not _TABLE_RULE.match(line):
            mine = [c for c in cites if pos <= c.start < pos + len(line)]
            out.append(Sentence(line, pos, mine, header, header_cites))
            pos += len(line) + 1
            continue
        pieces: list[tuple[int, str]] = []
        last = 0
        for m in _SPLIT.finditer(line):
            head = line[last:m.start()]
            if _ABBREV.search(head.rstrip()):
                continue  # "e.g. 62.85", "vs. 21.26": not the end of a sentence
            pieces.append((last, head))
            last = m.end()
        pieces.append((last, line[last:]))
        for off, piece in pieces:
            if not piece.strip():
                continue
            a, b = pos + off, pos + off + len(piece)
            mine = [c for c in cites if a <= c.start < b]
            stripped = _BRACKETS_ONLY.sub("", piece).strip(" .|;,")
            if not stripped and out:
                out[-1].cites.extend(mine)
                continue
            out.append(Sentence(piece, a, mine))
        pos += len(line) + 1
    return out


_BRACKETS_ONLY = re.compile(r"\[[^\[\]]*\]")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
# a table cell that states one number: "73.86", "**73.86%**", "73.9 ± 0.2", "1,240"
_CELL_NUMBER = re.compile(r"^[*_`\s]*([-+]?\d[\d,]*(?:\.\d+)?)\s*(%)?\s*(?:(?:±|\+/-|\+-)\s*\d[\d.]*\s*%?)?[*_`\s]*$")


_NOT_A_RESULT_COLUMN = re.compile(r"(?<![\w-])(?:year|venue|date|rank|#|no\.|id|ref|reference|source|citation|paper|"
                                  r"notes?|comment)(?![\w-])", re.I)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


class ClaimExtractor:
    """Reads claims from report text with the names of one episode (`Lexicon`)."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        self._fronted: str | None = None
        self._elided_words: list[tuple[int, int]] = []
        self._methods: list[Span] = []
        pats: list[tuple[str, str, str]] = []
        for m in lex.methods:
            pats.append(("method", m, m))
        for d in lex.datasets:
            pats.append(("dataset", d, d))
            base = re.sub(r"\s*\([^()]*\)\s*$", "", d)
            if base != d:
                pats.append(("dataset", d, base))
        pats += [("dataset", d, a) for d, a in _dataset_short_names(lex)]
        for q in lex.quantities:
            for a in quantity_aliases(q):
                pats.append(("quantity", q, a))
        for q, a in _head_aliases(lex):  # "latency" for "decoding latency (ms)", "F1" for "macro-F1 (%)"
            pats.append(("quantity", q, a))
        # a unit word a quantity is also measured in ("dB" of "SNR (dB)" next to "SI-SDRi (dB)") names no setting
        q_unit_words = {w for q in lex.quantities for w in _UNIT_WORDS.get((_unit_of(q) or "").lower(), [])}
        for x in lex.settings:
            for k in setting_keywords(x):
                if k not in q_unit_words or k == x.lower():
                    pats.append(("setting", x, k))
        # a unit written as a quantity's alias ("mm" of "MPJPE (mm)" and "PA-MPJPE (mm)") names neither when two share it
        shared = {a for a in {p[2] for p in pats if p[0] == "quantity"}
                  if len({p[1] for p in pats if p[0] == "quantity" and p[2] == a}) > 1
                  and all(a == (_unit_of(p[1]) or "").lower() for p in pats if p[0] == "quantity" and p[2] == a)}
        pats = [p for p in pats if not (p[0] == "quantity" and p[2] in shared)]
        pats.sort(key=lambda p: -len(p[2]))
        self._verbs = {v for q in lex.quantities for v in _verb_forms(_PAREN.sub("", q).strip())}
        self._setting_words = {k: x for x in lex.settings for k in setting_keywords(x) if " " not in k
                               and k not in q_unit_words}
        self._pats = [(kind, canon, re.compile(rf"(?<![\w-]){_plural(kind, alias)}(?![\w-])", re.I))
                      for kind, canon, alias in pats]
        # a quantity named by its own words ("communication rounds", "uploading", "annotators preferred", "R-1")
        self._pats += [("quantity", q, re.compile(p, re.I)) for q, p in content_aliases(lex)]
        # acronyms with their case ("RTF", "IS") and phrases whose initials spell the episode's acronym ("word error rate")
        self._pats += [("quantity", q, re.compile(rf"(?<![\w-]){p}s?(?![\w-])")) for q in lex.quantities
                       for p in quantity_patterns(q)]
        # the root unit of each quantity and setting ("decoding latency (ms)": second; "SNR (dB)": dimensionless): a
        # number written with a unit of that root names it ("41 ms", "At 5 dB") when no other name shares the root
        # the one setting counted in a magnitude ("training iterations (k)", "model size (B)") that no quantity shares
        units = [(_unit_of(x) or "").lower() for x in lex.settings]
        q_units = {(_unit_of(q) or "").lower() for q in lex.quantities}
        self._magnitude_axes = {u: x for u, x in zip(units, lex.settings)
                                if u in ("k", "m", "b") and units.count(u) == 1 and u not in q_units}
        # "k = 16", "k=32" for "neighbours (k)": an axis whose bracket holds a one-letter symbol, named by it before "="
        self._symbol_axes = {u: x for x in lex.settings for u in [_unit_of(x) or ""]
                             if re.fullmatch(r"[A-Za-zα-ωΑ-Ω]", u)}
        self._fraction_axes = {re.sub(r"\s+", "", u): x for x in lex.settings
                               for u in [_unit_of(x) or ""] if re.fullmatch(r"/\s*\d+", u)}
        self._roots: dict[str, list[tuple[str, str, float | None]]] = {}
        for kind, names in (("quantity", list(lex.quantities)), ("setting", lex.settings)):
            for name in names:
                root = name_root(name)
                if root is not None:
                    self._roots.setdefault(root[0], []).append((kind, name, root[1]))
        # "the baseline" for the one method named "... baseline"
        baselines = [m for m in lex.methods if re.search(r"\bbaseline$", m, re.I)]
        if len(baselines) == 1:
            self._pats.append(("method", baselines[0], re.compile(r"(?<=\bthe )baseline(?![\w-])", re.I)))
        # "the FCN-style curve" for "FCN-style baseline": a baseline named by its head before a word for its plot entry
        for m in lex.methods:
            head = re.sub(r"[\s\-]+baseline$", "", m, flags=re.I)
            if head != m and len(head) >= 3:
                self._pats.append(("method", m, re.compile(rf"(?<![\w-]){_flex(head)}(?=\s+(?:curve|line|bars?|series|"
                                                           rf"model|network|entry|row|variant|run)\b)", re.I)))

    # ---- mentions ---------------------------------------------------------------------------
    def spans(self, s: str) -> list[Span]:
        taken: list[tuple[int, int]] = []
        out: list[Span] = []
        for kind, canon, rx in self._pats:
            for m in rx.finditer(s):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                taken.append(m.span())
                out.append(Span(kind, canon, m.start(), m.end()))
        for m in find_mentions(s):  # "41 ms", "0.8 s", "At 100 hours": the unit names the quantity or setting
            if m.unit is None or m.unit.kind != "physical":
                continue
            same = self._roots.get(m.unit.root, [])  # the names of that root; of several, the one of that scale
            exact = [r for r in same if r[2] is not None and math.isclose(r[2], m.unit.factor)]
            pick = exact if len(exact) == 1 else same
            u = re.compile(rf"\s*{re.escape(m.unit.text)}(?![\w-])").match(s, m.end)
            if len(pick) != 1 or u is None or any(a < u.end() and u.start() < b for a, b in taken):
                continue
            kind, canon, _ = pick[0]
            a = u.end() - len(m.unit.text)
            taken.append((a, u.end()))
            out.append(Span(kind, canon, a, u.end(), unit=True))
        for m in _CAMEL.finditer(s):  # a method the episode's facts do not know: still a claim's subject
            if not any(a < m.end() and m.start() < b for a, b in taken):
                taken.append(m.span())
                out.append(Span("method", m.group(0), m.start(), m.end()))
        named = sorted((sp for sp in out if sp.kind == "method"), key=lambda sp: sp.start)
        for m in _ANAPHOR.finditer(s):  # "A ...; its score is 81.4", "the former needs 210 GFLOPs, the latter 35"
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            before = _distinct([x for x in named if x.end <= m.start()])
            if m.group(0).lower().startswith("the"):
                ref = (before[-2] if "former" in m.group(0).lower() else before[-1]) if len(before) >= 2 else None
            else:  # "it", "its": the sentence's subject, the first method no preposition governs
                ref = next((x for x in before if not _GOVERNED.search(s[max(0, x.start - 16):x.start])), None)
            if ref is not None:
                out.append(Span("method", ref.canon, m.start(), m.end(), pronoun=True))
        return sorted(out, key=lambda sp: sp.start)

    def numbers(self, s: str, spans: list[Span]) -> list[Number]:
        settings = [sp for sp in spans if sp.kind == "setting"]
        out: list[Number] = []
        ends: list[Number] = []  # the two ends of a change over a setting ("as the epochs grow from 50 to 300")
        for m in find_mentions(s):
            compound = m.role == "identifier" and _POINT_COMPOUND.match(s[m.end:]) is not None  # "a 3.5-point deficit"
            joined = (_SETTING_COMPOUND.match(s[m.end:]) if m.role == "identifier"
                      else re.match(r"[kKM]-([a-z]+)\b", s[m.end:]))  # "a 64k-token context" on "(k tokens)"
            axis = None
            if joined:  # "a 12-epoch schedule"; "a 30-frame buffer" (the unit word "frames"); "a 336-step lookback
                # window", "a 30-frame track buffer": the setting named right after the compound
                w = joined.group(1).lower()
                axis = self._setting_words.get(w) or self._setting_words.get(w + "s")
                named_next = next((sp for sp in settings if sp.start >= m.end + joined.end()
                                   and re.fullmatch(r"\s+", s[m.end + joined.end():sp.start])), None)
                axis = named_next.canon if named_next is not None else axis
            if axis is not None and not any(sp.start <= m.start < sp.end for sp in spans if sp.kind != "setting"):
                out.append(Number(float(m.text.replace(",", "")), m.start, m.end, "setting", None, _slack(m.text.replace(",", "")), axis))  # "12-epoch", "2,000-image"
                continue
            sym = next((x for u, x in self._symbol_axes.items()
                        if re.search(rf"(?<![\w-]){re.escape(u)}\s*=\s*$", s[max(0, m.start - 6):m.start])), None)
            if sym is not None and re.fullmatch(r"\d+(?:\.\d+)?", m.text):
                out.append(Number(float(m.text), m.start, m.end, "setting", None, _slack(m.text), sym))  # "k = 16"
                continue
            whole = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(/\s*\d+)", m.text)
            frac = whole or (re.match(r"\s*(/\s*\d+)", s[m.end:]) if self._fraction_axes else None)
            axis = self._fraction_axes.get(re.sub(r"\s+", "", frac.group(2 if whole else 1))) if frac else None
            if axis is not None:  # "ε = 8/255" on "perturbation budget ε (/255)": the setting's own unit
                top = whole.group(1) if whole else m.text
                out.append(Number(float(top), m.start, m.end, "setting", None, _slack(top), axis))
                continue
            # "Grappa-Q 90.4%": a number read as a reference ("Q 3") by a letter that ends a named method is its value
            named_ref = m.role == "reference" and any(sp.kind in ("method", "dataset") and sp.end <= m.start and re.fullmatch(
                r"[ \t]+", s[sp.end:m.start]) and re.search(r"[-\s][A-Za-z]$", s[sp.start:sp.end]) for sp in spans)
            if (m.role in _SKIP_ROLES and not compound and not named_ref) or any(sp.start <= m.start < sp.end for sp in spans
                                                                                  if sp.kind != "setting"):
                continue
            try:
                raw = float(m.text.replace(",", ""))
            except ValueError:
                continue
            ranged = next((sp for sp in settings if sp.end <= m.start and _SETTING_RANGE.match(s[sp.end:m.start])), None)
            if ranged is not None:  # "widening the beam from 1 to 8": a change over the setting, no value (its ends may
                # be the settings of a change of value: below)
                ends.append(Number(raw, m.start, m.end, "setting", None, _slack(m.text.replace(",", "")), ranged.canon))
                continue
            if _GERUND_FROM.search(s[:m.start]):  # "Doubling the context from 16k to 32k tokens lifts ...": the ends of a
                # change of a setting, no values ("Going from 6 to 12 layers cuts A's WER from 6.9% to 5.8%": the values'
                # settings, below)
                ax = next((sp.canon for sp in settings if sp.start >= m.end and re.fullmatch(
                    r"\s*[kKMB%]?\s*(?:(?:to|-|–)\s*[\d.,]+\s*[kKMB%]?\s*)?", s[m.end:sp.start])), None)
                if ax is not None:
                    raw_end = m.text.replace(",", "")
                    ends.append(Number(float(raw_end), m.start, m.end, "setting", None, _slack(raw_end), ax))
                continue
            test = _NOT_A_RESULT_BEFORE.search(s, max(0, m.start - 24), m.start)
            if test is not None and any(sp.start <= test.start() < sp.end for sp in settings):
                test = None  # "at a Dirichlet alpha of 0.1": the episode's setting, not a test's level
            if test is not None or _CONFIDENCE_AFTER.match(s[m.end:]):
                continue  # "p = 0.31", "a significance level of 0.05", "95% confidence": a test's number, no result
            reach = _REACH_BEFORE.search(s[:m.start])
            if reach is not None and (_UNSTATED.search(_clause_before(s, reach.start()))
                                      or _NEGATED.search(s[:reach.start()])):
                continue  # "Neither A nor B reaches 30 BLEU": a bound not reached
            after = s[m.end:]
            glued = re.match(r"B(?![A-Za-z])|[kKM%]?", after).group(0)  # type: ignore[union-attr]
            rest = after[len(glued):]
            unit = "%" if (m.unit is not None and m.unit.kind == "percent") else None
            num = Number(raw, m.start, m.end, "value", unit, _slack(m.text), thousands=glued in ("k", "K"),
                         magnitude=glued.upper() if glued in ("M", "B") else None)
            lim = _LIMIT_BEFORE.search(s, max(0, m.start - 40), m.start)
            if lim is not None and any(sp.start <= lim.start() < sp.end for sp in settings):
                lim = None  # "at a detection threshold of 0.6": the episode's setting, not a limit
            if (_RATIO_AFTER.match(rest) or _LIMIT_AFTER.match(rest) or lim is not None
                    or _BOUND_BEFORE.search(s[max(0, m.start - 40):m.start])):
                continue
            near = [sp for sp in settings if 0 <= sp.start - m.end <= 24 and not any(  # not "142 GFLOPs per clip"
                q.kind == "quantity" and m.end <= q.start < sp.start for q in spans) and re.fullmatch(
                r"[\s%kK]*(?:(?!(?:when|while|as|if|and|or|but|than|because|since|until|whereas|with|at|for|on|in|using|under|"
                r"after|by)\b)[a-z\-]+\s+){0,2}",
                s[m.end:sp.start], re.I)]  # not "improves by 0.02 when the embedding dimension ..."
            before = [sp for sp in settings if 0 <= m.start - sp.end <= 14 and not _SAME_BEFORE.search(s[:sp.start]) and (
                (_SETTING_BEFORE_JOIN.match(s[sp.end:m.start].replace("%", "")) and not (
                    "(" in s[sp.end:m.start] and re.search(r"\d\s*[kKMB%]?\s*$", s[:sp.start])))  # not "320k iterations (45.2%)"
                or (re.fullmatch(r"\s+to\s+", s[sp.end:m.start]) and _SET_TO_VERB.search(s[:sp.start]))
                or (_APPOSITION.match(s[sp.end:m.start]) and _SETTING_SUPERLATIVE.search(s[max(0, sp.start - 14):sp.start])))]
            hit = (near or before)
            named = next((sp for sp in spans if sp.kind == "quantity" and 0 <= sp.start - m.end - len(glued) <= 2), None)
            named_unit = (_unit_of(named.canon) or "").lower() if named is not None else ""
            if (not hit and glued in ("k", "K", "M", "B") and glued.lower() in self._magnitude_axes
                    and (named is None or (named_unit in ("k", "m", "b") and named_unit != glued.lower()))):
                num.role, num.x_label, num.thousands = "setting", self._magnitude_axes[glued.lower()], False
                out.append(num)  # "At 80k, ...", "13B parameters" on "model size (B)" (not "Params (M)"): the one axis
                # counted in that magnitude
                continue
            if glued and re.match(r"-[A-Za-z]", rest) and not any(sp.kind == "quantity" and sp.start == m.end + len(glued) + 1
                                                                  for sp in spans):
                continue  # "a 2.1M-snippet index", "a 50k-image corpus": a count that qualifies a noun, no result
            by_verb = None if hit else self._verb_setting(s, m.start, rest, m.end + len(glued))
            if by_verb is not None:  # "Re-ranking the top 1,000 candidates", "when 50 passages are retrieved",
                # "Sampling 10 candidates per problem": a count the verb of a setting's name sets
                num.role, num.x_label = "setting", by_verb
                out.append(num)
                continue
            if not hit and _TOP_N_BEFORE.search(s[:m.start]) and re.match(r"\s*(?:[\w\-]+\s+){0,2}?[a-z][\w\-]*s\b", rest):
                continue  # "the top 1,000 BM25 candidates", "the first 20 queries": a count, no result
            noun = re.match(r"\s*(?:[A-Za-z0-9][\w\-]*\s+)?(?!(?:its|this|is|was|has|as|thus|plus|across|versus|whereas|less|"
                            r"unless|does|always|us|puts|gets|sets|lets|keeps|stays|sits|lags|leads|trails|beats|tops|"
                            r"edges|rises|falls|drops|grows|reaches|hits|gains|loses|wins)\b)([a-z]{3,}s|[A-Z]{2,}s)\b"
                            r"(?!\s+(?:it|its|the|them|[A-Z]))", rest)
            if (not hit and noun is not None and _COUNT_PREP_BEFORE.search(s[:m.start]) and noun.group(1).lower() not in (
                    "points", "times", "pts") and not any(sp.start < m.end + len(glued) + noun.end() and sp.end > m.end + len(glued)
                                                        for sp in spans)):
                continue  # "evaluated on 2,000 questions", "on 4 A100 GPUs", "over 3 seeds": a count of things
            if (not hit and glued in ("M", "B") and glued.lower() not in self._magnitude_axes
                    and not any((_unit_of(k) or "").upper() == glued for k in self.lex.quantities)
                    and not any(sp.kind == "quantity" and 0 <= sp.start - m.end - 1 <= 3 for sp in spans)):
                continue  # "the 13B model", "8.8M passages" where no quantity is counted in that magnitude: no result
            count = _COUNT_AFTER.match(rest)
            if not hit and (_HYPER_BEFORE.search(s[max(0, m.start - 30):m.start]) or (count is not None and not any(
                    sp.start < m.end + len(glued) + count.end() and sp.end > m.end + len(glued) for sp in spans))):
                continue  # "300 queries", "3 seeds", "a batch size of 16": a count or a hyperparameter, not a result
            named = next((sp for sp in spans if sp.kind == "quantity" and 0 <= sp.start - m.end - len(glued) <= 2), None)
            # "by 1.3 points", "1.4 points under B" with "number of points" an axis: a difference, not the setting
            diff_points = _POINTS_AFTER.match(rest) is not None and (
                _POINTS_DIFF.match(rest) is not None or _DIFF_BEFORE.search(s[max(0, m.start - 80):m.start]) is not None)
            if hit and not diff_points:
                num.role, num.x_label = "setting", hit[0].canon
            elif diff_points or (_DIFF_AFTER.match(rest) or _POINTS_AFTER.match(rest) or (named is not None and (
                    _DIFF_AFTER.match(s[named.end:]) or _POINTS_AFTER.match(s[named.end:])))  # "3 Dice points"
                  or ((s[max(0, m.start - 1):m.start] in ("+", "−") or m.text[:1] in ("+", "−")) and re.match(
                      r"\s*(?:%|points?|pts?|pp|[A-Za-z]{1,6})?\s*(?:over|vs\.?|versus|against)\b", rest, re.I))
                  # "outperforms B on both X (+0.30) and Y (+1.43)": a signed number alone in brackets is a difference
                  or (re.search(r"\(\s*[+−]\s*$", s[:m.start]) or (m.text[:1] in ("+", "−") and s[:m.start].rstrip().endswith("(")))
                  and re.match(r"\s*(?:%|points?|pts?|pp|[A-Za-z]{1,6})?\s*\)", rest, re.I)
                  or (_DIFF_BEFORE.search(s[max(0, m.start - 80):m.start]) and not (
                      re.search(r"\bcost(?:s|ing)?\s+(?:about\s+|roughly\s+|around\s+|~)?$", s[:m.start])
                      and named is not None and quantity_family(named.canon) in COST_FAMILIES))):
                num.role = "diff"  # "1.9 points above", "1.38 AP more than", "by 0.6" (not "costs 142 GFLOPs": a cost)
            elif m.role == "bound":
                continue
            out.append(num)
        for m in _WORD_NUMBER.finditer(s):  # "with four layers", "three speakers": a setting written in words
            sp = next((x for x in settings if x.start >= m.end() and re.fullmatch(r"\s+(?:[a-z\-]+\s+)?", s[m.end():x.start])),
                      None)
            if sp is not None and not any(n.start <= m.start() < n.end for n in out):
                out.append(Number(float(_WORD_VALUES[m.group(0).lower()]), m.start(), m.end(), "setting", None, 0.5,
                                  sp.canon))
        out.sort(key=lambda n: n.start)
        first = next((n for n in out if n.role == "setting"), None)
        for a, b in zip(out, out[1:]):  # "83.1 at 300" after "78.2 at 50 epochs": 300 is a second setting
            if (first is not None and a.role == "value" and b.role == "value" and b.unit is None
                    and _AT_JOIN.match(s[a.end:b.start]) and _BARE_END.match(s[b.end:])):
                b.role, b.x_label = "setting", first.x_label
        axes = list(dict.fromkeys(sp.canon for sp in settings))
        if first is None and len(axes) == 1:  # "grows with the horizon: from 0.371 at 96 to 0.497 at 720": the one axis
            for a, b in zip(out, out[1:]):  # the sentence names, its numbers written after a value and "at"
                if (a.role == "value" and b.role == "value" and b.unit is None and _AT_JOIN.match(s[a.end:b.start])
                        and re.match(r"\s*(?:[.,;:)\]]|$|(?:and|to|on|in|for|while|whereas|but)\b)", s[b.end:], re.I)):
                    b.role, b.x_label = "setting", axes[0]
            first = next((n for n in out if n.role == "setting"), None)
        for n in out:  # "..., yet only 3.88 when the sampler is cut to 4", "B at 50" after "At 8 steps": a bare number
            # set by a verb of change in a clause of its own, or right after a method and "at", is a second setting of
            # the axis the sentence named
            if (first is None or n.role != "value" or n.unit is not None or n.magnitude or n.start < first.start
                    or not re.fullmatch(r"\d+", s[n.start:n.end]) or not re.fullmatch(r"\d+", s[first.start:first.end])):
                continue  # an integer like the setting's own ("at 50" after "At 8 steps"; not "B at 72.40")
            if (_SET_AGAIN_BEFORE.search(s[:n.start]) or any(sp.kind == "method" and re.fullmatch(r"\s+at\s+", s[sp.end:n.start])
                                                              for sp in spans)) and _BARE_END.match(s[n.end:]):
                n.role, n.x_label = "setting", first.x_label
        for n in out:  # "..., and at 160k it has reached 81.9": a clause opened by "at N" names a setting of the axis
            if (first is not None and n.role in ("value", "diff") and n.unit == first.unit
                    and _CLAUSE_SETTING_BEFORE.search(s[:n.start])
                    and _CLAUSE_SETTING_AFTER.match(re.sub(r"^[kKM%]", "", s[n.end:]))):
                n.role, n.x_label = "setting", first.x_label
        for a, b in zip(out, out[1:]):  # "between 320 and 1024 pixels": a range, not one setting
            if (b.role == "setting" and _RANGE_BEFORE.search(s[max(0, a.start - 12):a.start])
                    and _RANGE_JOIN.match(s[a.end:b.start])):
                a.role = b.role = "range"
            elif (a.role == b.role == "value" and _RANGE_JOIN.match(s[a.end:b.start])
                  and (_VALUE_RANGE_BEFORE.search(s[max(0, a.start - 30):a.start]) or re.fullmatch(r"[-–]", s[a.end:b.start]))):
                a.role = b.role = "range"  # "ranges between 70 and 75", "(90.0-90.4%)": a range, not two values
        for a, b in zip(out, out[1:]):  # "at label rates of 5% and 20%", "at 2 and 8 layers": a list of settings
            if {a.role, b.role} == {"setting", "value"} and a.unit == b.unit and (_SETTING_LIST_JOIN.match(s[a.end:b.start]) or (
                    a.role == "setting" and re.fullmatch(r"\s*[A-Za-z\-]+(?:\s+[A-Za-z\-]+)?\s+(?:instead\s+of|rather\s+than)\s+",
                                                         s[a.end:b.start], re.I))):  # "4 iterations instead of 32"
                x_label = a.x_label if a.role == "setting" else b.x_label
                a.role = b.role = "setting"
                a.x_label = b.x_label = x_label
        vals = [n for n in out if n.role == "value"]
        if len(ends) == 2 and len(vals) == 2 and _FROM_BEFORE.search(s[:vals[0].start]) and _RANGE_JOIN.match(
                s[vals[0].end:vals[1].start]) and (vals[1].end <= ends[0].start or ends[1].end <= vals[0].start):
            # "improves from 67.0% to 73.1% as the epochs grow from 50 to 300": each end of the change at its setting
            for v, x in zip(vals, ends):
                v.at = x
            out = sorted(out + ends, key=lambda n: n.start)
        for a, b in zip(out, out[1:]):  # "gains of 0.09, 0.55 and 0.82 BLEU", "by 0.21 on clean and 0.35 on final"
            if a.role == "diff" and b.role == "value" and (_SETTING_LIST_JOIN.match(s[a.end:b.start]) or (
                    _DIFF_LIST_JOIN.fullmatch(s[a.end:b.start]) and _DIFF_LIST_END.match(s[b.end:]))):
                b.role = "diff"  # a list of differences
        for n in out:  # "1.2k img/s" is 1200 (a setting's "40k iterations" stays on its axis, which counts in k)
            if n.thousands and n.role in ("value", "diff"):
                n.value, n.slack = n.value * 1000, n.slack * 1000
        return out

    # ---- claims -----------------------------------------------------------------------------
    def row_claims(self, sent: Sentence) -> list[Claim]:
        """A markdown table row under its header: one value per number cell, the method named in the row (or in the
        column's header, for a table whose rows are datasets), the dataset and quantity its column or row names; the
        citations of the row, else of the header or the caption above it. A table claim states no setting."""
        header = sent.header or []
        blank = _blank(sent.text, sent.start, sent.cites)
        cells = _cells(blank)
        cites = [EvidenceUnit(paper=c.paper, unit=c.unit) for c in _unique(sent.cites or sent.header_cites or [])]

        def named(cell: str, kind: str) -> str | None:
            found = list(dict.fromkeys(sp.canon for sp in self.spans(_MARKUP.sub(" ", cell)) if sp.kind == kind))
            return found[0] if len(found) == 1 else None

        row_method = next((m for m in (named(c, "method") for c in cells[:1]) if m), None)
        row_dataset = named(cells[0], "dataset") if cells else None
        row_quantity = named(cells[0], "quantity") if cells else None
        out: list[Claim] = []
        for j, cell in enumerate(cells[1:], start=1):
            m = _CELL_NUMBER.match(cell)
            if m is None or j >= len(header):
                continue
            head = _blank(header[j], 0, [])
            subject = row_method or named(head, "method")
            if subject is None or _NOT_A_RESULT_COLUMN.search(head) or (
                    re.fullmatch(r"(?:19|20)\d\d", m.group(1)) and not named(head, "quantity")):
                continue  # "| Year |", "| Venue |", "| Rank |": no result
            quantity = named(head, "quantity") or row_quantity
            dataset = named(head, "dataset") or row_dataset
            raw = m.group(1).replace(",", "")
            out.append(Claim(kind="value", subject=subject, value=float(raw), unit="%" if m.group(2) else None,
                             tolerance=_slack(raw), quantity=quantity, dataset=dataset, cites=cites,
                             sentence=sent.text.strip()))
        return out

    def sentence_claims(self, sent: Sentence) -> list[Claim]:
        if sent.header is not None:
            return self.row_claims(sent)
        s = _blank(sent.text, sent.start, sent.cites)
        s = _MARKUP.sub(lambda m: " " * len(m.group(0)), s)
        spans = self.spans(s)
        methods = [sp for sp in spans if sp.kind == "method"]
        if not methods:
            return []
        self._methods = methods
        nums = self.numbers(s, spans)
        datasets = [sp for sp in spans if sp.kind == "dataset"]
        quants = [sp for sp in spans if sp.kind == "quantity"]
        # a setting is a plotted one: a sentence citing only tables states its claims at none ("After 1M environment
        # steps, A's return is 11,230 [P1, Table 1]": the table's value), the number is still no value
        tables_only = bool(sent.cites) and all(c.unit.startswith("table") for c in sent.cites)
        settings = [n for n in nums if n.role == "setting"] if not tables_only else []
        setting = settings[0] if settings else None
        cites = [EvidenceUnit(paper=c.paper, unit=c.unit) for c in _unique(sent.cites)]
        base = dict(cites=cites, sentence=sent.text.strip(),
                    x_label=setting.x_label if setting else None, x=setting.value if setting else None)
        claims: list[Claim] = []
        values = [n for n in nums if n.role == "value"]
        comparisons = find_comparisons(s, methods)
        owners = self._owners(s, values, methods, comparisons)
        # "At label rates of 5% and 20%, A scores 70.2 and 79.9, respectively": the settings pair with the values
        paired = (re.search(r"\brespectively\b", s, re.I) is not None and len(settings) == len(values) >= 2
                  and all(x.end <= values[0].start for x in settings))
        for i, n in enumerate(values):
            at = settings[i] if paired else n.at if n.at is not None and settings else _setting_for(s, n.start, n.end, settings)
            mine = base | (dict(x_label=at.x_label, x=at.value) if at is not None else {})
            # a quantity named by a verb ("and forgets the least") names only what comes after it
            mine_q = [x for x in quants if not (x.start >= n.end and s[x.start:x.end].lower() in self._verbs)]
            if any(x.end <= n.start and not re.search(r"[;]|,\s*(?:and|or|while|whereas|but)\b", s[x.end:n.start]) for x in mine_q):
                # "the best MRR on X, 42.1, and the best nDCG on Y, 74.6": a quantity of the next coordinated phrase
                mine_q = [x for x in mine_q if not (x.start >= n.end and re.match(
                    r"[^,;]*?,\s*(?:and|or)\s+(?:the|its|a|an|their)\b", s[n.end:x.start]))]
            q = _nearest(_own_quantities(s, n, mine_q, methods, values, datasets), n.start, n.end)
            group = _slash_group(s, n, values)
            named = [x for x in quants if group and 0 <= x.start - group[-1].end <= 3] if group else []
            if named:  # "34.1/0.925 PSNR/SSIM": the quantities in order
                listed = _quantity_list(s, named[0], quants)
                if len(listed) == len(group):
                    q = listed[group.index(n)]
            elif group:  # "44.3 / 21.0 / 40.6 on D (R-1 / R-2 / R-L)": a list of as many quantities later in the clause
                later = next((x for x in quants if x.start >= group[-1].end and not re.search(r"[;]|\.(?!\d)", s[group[-1].end:x.start])), None)
                listed = _quantity_list(s, later, quants) if later is not None else []
                if len(listed) == len(group) >= 2:
                    q = listed[group.index(n)]
            if n.magnitude is not None and (q is None or (_unit_of(q) or "").upper() != n.magnitude) and not any(
                    x.kind == "quantity" and 0 <= x.start - n.end <= 4 for x in spans):
                # "Wynlo (44.1M)", "needs only 17.3M and runs at 2,910 img/s": the one quantity counted in millions
                counted = [k for k in self.lex.quantities if (_unit_of(k) or "").upper() == n.magnitude]
                q = counted[0] if len(counted) == 1 else q
            value, slack = _rescaled(n, q)
            per_model = q is not None and quantity_family(q) in COST_FAMILIES
            for owner in owners.get(id(n), []):
                claims.append(Claim(kind="value", subject=owner.canon, value=value, unit=n.unit, tolerance=slack,
                                    quantity=q, dataset=self._dataset_for(s, n, nums, datasets, per_model), **mine))
        for c in list(comparisons):  # "A and B both reach 93.4, 0.7 below C": the comparison is each tied method's
            for n in values:
                o = owners.get(id(n), [])
                if (c.subject is not None and len(o) == 2 and o[1] is c.subject and c.subject.end <= n.start
                        and n.end <= c.start):
                    comparisons.append(replace(c, subject=o[0]))
        # "Parameter-wise, A is the leanest": the sentence's quantity, for a comparison or rank that names none
        self._fronted = self._fronted_quantity(s)
        claims += self._compares(comparisons, s, datasets, quants, nums, base, settings)
        # "trails B on X but wins on Y": a word read as an elided comparison with B ranks nothing
        self._elided_words = [(c.start, c.end) for c in comparisons if c.own_quantity and c.subject is not None
                              and c.object is not None and re.fullmatch(r"(?:leads?|wins?)", c.word)]
        claims += self._ranks(s, methods, datasets, quants, base, settings, spans)
        out: list[Claim] = []  # "more than four times B's": two comparison words state one claim
        for c in claims:
            if c not in out:
                out.append(c)
        return out

    def _owners(self, s: str, values: list[Number], methods: list[Span],
                comparisons: list[Comparison]) -> dict[int, list[Span]]:
        one = self._owner(s, values, methods, comparisons)
        owners = {k: [v] for k, v in one.items()}
        for i, n in enumerate(values):  # "A and B tie at 74.1", "Both A and B score 61.2": the value is both methods'
            o = one.get(id(n))
            prior = _distinct([m for m in methods if m.end <= n.start])
            if o is None or len(prior) < 2 or prior[-1] is not o:
                continue
            a, b = prior[-2], prior[-1]
            gap = s[b.end:n.start]
            paired = i + 1 < len(values) and _PAIR_JOIN.match(s[n.end:values[i + 1].start])
            tied = ((_AND_JOIN.match(s[a.end:b.start])
                     and (_TIE_WORD.search(gap) or _TIE_WORD.search(s[max(0, a.start - 12):a.start])))
                    or re.search(r"[:;]\s*(?:they\s+)?(?:both|each)\b", gap))  # "A is no better than B: both score 34.9"
            compared = any(c.subject is not None and (c.object is a or c.object is b)
                           for c in comparisons)  # "faster than both A and B, ..." (not "Under 20 dB, A and B tie")
            if a.canon != b.canon and re.match(r"\s*(?:%|[A-Za-z/]{1,8})?\s*\)?\s*(?:for|with|from)\s+both\b", s[n.end:], re.I):
                owners[id(n)] = [a, b]  # "matches B's MAE (0.327 for both)": the value of the two methods named last
                continue
            if (a.canon != b.canon and (tied or _TIE_VERB.match(s[a.end:b.start])) and not paired and not compared
                    and not any(b.end <= v.start < n.start for v in values)
                    and not any(one.get(id(v)) is a for v in values)):
                owners[id(n)] = [a, b]
        return owners

    def _owner(self, s: str, values: list[Number], methods: list[Span], comparisons: list[Comparison]) -> dict[int, Span]:
        owners: dict[int, Span] = {}
        if self._respective_datasets(s, values) and methods and not _PRONOUN_START.match(s):
            subj = next((m for m in methods if not m.pronoun and not _GOVERNED.search(s[max(0, m.start - 16):m.start])),
                        methods[0])
            for n in values:  # "A beats B, with FIDs of 1, 2 and 3 on X, Y and Z respectively": the subject's values
                owners[id(n)] = subj
            return owners
        if re.search(r"\brespectively\b", s, re.I):
            first = values[0].start if values else 0
            listed = _distinct([m for m in methods if m.end <= first])
            after = _distinct([m for m in methods if values and m.start >= values[-1].end])
            if values and len(listed) < len(values) and len(after) == len(values):
                listed = after  # "their scores are 75.5 and 70.0, A and B respectively"
            if values and len(listed) >= len(values):
                for n, m in zip(values, listed[-len(values):]):
                    owners[id(n)] = m
                return owners
        pronoun = bool(_PRONOUN_START.match(s))
        done: set[int] = set()
        for i, n in enumerate(values):
            if id(n) in owners or id(n) in done:
                continue
            after = [m for m in methods if m.start >= n.end]
            if after and re.fullmatch(r"\s*(?:%|[A-Za-z/]{1,8})?\s*\(\s*", s[n.end:after[0].start]) \
                    and re.match(r"\s*\)", s[after[0].end:]):
                owners[id(n)] = after[0]  # "0.071 (LumaRec) vs. 0.066 (QuorraCF)"
                continue
            if after and (_FOR_AFTER.match(s[n.end:after[0].start])
                          or (re.search(r"\bthe\s+$", s[:n.start]) and (_OF_AFTER.match(s[n.end:after[0].start])
                              or re.fullmatch(r"\s*(?:%|[kKMB]|[A-Za-z/]{1,8})?\s*", s[n.end:after[0].start])))):
                owners[id(n)] = after[0]  # "236 ms for B", "the 1.2M of B", "the 6 h B needs"
                continue
            if i + 1 < len(values) and _PAIR_JOIN.match(s[n.end:values[i + 1].start]):
                nxt = values[i + 1]
                # "A edges out B, 1 versus 2", "Compared with B, A is lighter (1 vs 2)", "It beats B, 1 versus 2":
                # the pair follows the comparison's subject and object, in that order (an unnamed subject owns nothing)
                cmp = next((c for c in reversed(comparisons) if c.object is not None and c.object.end <= n.start
                            and c.end <= n.start and not any(max(c.end, c.object.end) <= x.start < n.start
                                                             for x in methods if x is not c.pronoun_object)),
                           None)
                if cmp is not None:
                    first_, second = cmp.subject, cmp.object
                    if _FROM_BEFORE.search(s[:n.start]):  # "A improves on B, from 9.7 to 6.6": from B's to A's
                        first_, second = second, first_
                    for num, who in ((n, first_), (nxt, second)):
                        if who is not None:
                            owners[id(num)] = who
                    done |= {id(n), id(nxt)}
                    continue
                prior = _distinct([m for m in methods if m.end <= n.start])
                if len(prior) >= 2:
                    owners[id(n)], owners[id(nxt)] = prior[-2], prior[-1]
                    continue
                later = [m for m in methods if m.start >= nxt.end]
                if prior and re.search(r"\b(?:vs\.?|versus|against)\s*\(?\s*$", s[n.end:nxt.start], re.I) and not (
                        later and (_FOR_AFTER.match(s[nxt.end:later[0].start]) or re.fullmatch(
                        r"\s*(?:%|[A-Za-z/]{1,8})?\s*\(\s*", s[nxt.end:later[0].start]))):
                    owners[id(n)] = prior[-1]  # "A decodes faster (380 vs. 288 sentences per second)": the other
                    done |= {id(n), id(nxt)}  # number is of a method the clause does not name
                    continue
            # "with B just behind it (50.27)": a pronoun compared with owns no number; the value is B's
            prior = [m for m in methods if m.end <= n.start
                     and not (m.pronoun and any(c.end <= m.start and not s[c.end:m.start].strip() for c in comparisons))]
            owners_after = [m for m in methods if m.start >= n.end and not re.search(r"[;:]", s[n.end:m.start])]
            brk = max((b.end() for b in _CLAUSE_START.finditer(s, 0, n.start)), default=0)
            by = next((c for c in comparisons if prior and c.subject is not None and c.object is prior[-1]
                       and c.end <= prior[-1].start), None)
            if owners_after and not any(brk <= m.start for m in prior) and _AGENT_AFTER.match(s[n.end:owners_after[0].start]):
                owners[id(n)] = owners_after[0]  # "..., while the worst (64.3) belongs to the MLP baseline"
            elif by is not None and _PARTICIPLE_AFTER.match(s[prior[-1].end:n.start]):
                owners[id(n)] = by.subject  # "A is faster than B, processing about 5,200 nodes/s": A's
            elif prior:
                owners[id(n)] = prior[-1]
            elif owners_after and not pronoun:  # "It reaches 45.0, ahead of B": 45.0 is not B's
                owners[id(n)] = owners_after[0]
        return owners

    def _respective_datasets(self, s: str, values: list[Number]) -> dict[int, str]:
        """"with FIDs of 11.1, 9.5 and 8.7 on X, Y and Z respectively": each value's dataset, in order."""
        if len(values) < 2:
            return {}
        respectively = re.search(r"\brespectively\b", s[values[-1].end:], re.I) is not None
        if not all(_SETTING_LIST_JOIN.match(s[a.end:b.start]) for a, b in zip(values, values[1:])):
            return {}
        datasets = [sp for sp in self.spans(s) if sp.kind == "dataset" and sp.start >= values[-1].end]
        if not datasets or not re.fullmatch(r"\s*%?\s*(?:[A-Za-z/]+\s+)?(?:on|in|for)\s+(?:the\s+)?", s[values[-1].end:datasets[0].start]):
            return {}
        listed = _dataset_list(s, datasets[0].start, datasets)
        if not respectively and not (len(values) >= 3 and re.search(r"\band\b", s[values[-2].end:values[-1].start])):
            return {}  # "scores 82.0, 90.5 and 88.1 on X, Y and Z": a list of three or more pairs in order without it
        return {id(n): d for n, d in zip(values, listed)} if len(listed) == len(values) else {}

    def _dataset_for(self, s: str, n: Number, nums: list[Number], datasets: list[Span],
                     per_model: bool = False) -> str | None:
        respective = self._respective_datasets(s, [o for o in nums if o.role == "value"])
        if id(n) in respective:
            return respective[id(n)]
        labelled = [d for d in datasets if d.end <= n.start and (_LABEL_JOIN.match(s[d.end:n.start]) or (
            re.fullmatch(r"[ \t]+", s[d.end:n.start]) and not _DATASET_OF_AFTER.match(s[n.end:])))]  # "BBBP 73.6, Tox21 77.4"
        if labelled:  # "CIFAR-10: 6.21; CelebA-HQ 256: 11.4"
            return labelled[-1].canon
        opened = s.rfind("(", 0, n.start)
        if opened >= 0 and ")" not in s[opened:n.start]:  # "on HalfCheetah (3,420 vs 2,980)": the dataset before it
            right_before = [d for d in datasets if d.end <= opened and not s[d.end:opened].strip()]
            if right_before:
                return right_before[-1].canon
        group = _slash_group(s, n, nums)
        if group is not None:  # "29.1 / 41.6 / 34.0 BLEU on X, Y and Z": one dataset each, in order
            listed = _dataset_list(s, group[-1].end, datasets)
            if len(listed) == len(group):
                return listed[group.index(n)]
        nxt = min((o.start for o in nums if o.start > n.end), default=len(s))
        after = [d for d in datasets if n.end <= d.start < nxt and not _CLAUSE_BREAK.search(s[n.end:d.start])
                 and not _INTRODUCES_NUMBER.match(s[d.end:])  # not "..., and FreeSolv with 1.12": the next number's
                 and not any(n.end <= x.start and x.end <= d.start and re.search(r"(?:(?:,\s*|\s+)(?:and|while|whereas|but)|;)\s*(?:the\s+)?$",
                                                                             s[n.end:x.start]) and not re.match(r"\s*\(", s[x.end:])
                             for x in self._methods)
                 # not "A comes first with 91.2%, and B first on Y": Y is the next subject's
                 and not (re.match(r"[^,;]*?,\s*(?:and|or)\s+(?:the|its|a|an|their)\b", s[n.end:d.start]) and any(
                     x.end <= n.start and not re.search(r";|,\s*(?:and|or|while|whereas|but)\b", s[x.end:n.start])
                     for x in datasets))]  # "the best MRR on X, 42.1, and the best nDCG on Y": Y is the next phrase's
        if per_model:  # "at 41 GFLOPs, although its K400 top-1 ...": a cost takes only a dataset it is stated on
            after = [d for d in after if re.search(r"\b(?:on|in|for|over|across)\s+(?:the\s+)?$", s[n.end:d.start], re.I)]
        if after:
            return after[0].canon
        before = [d for d in datasets if d.end <= n.start]
        if per_model:  # a cost measured per model does not take a dataset named for another clause ("...; 310M parameters")
            before = [d for d in before if not _CLAUSE_BREAK.search(s[d.end:n.start])
                      and not any(d.end <= o.start < n.start for o in nums if o.role == "value")
                      and not any(o is not n and o.role == "value" and _DATASET_OF.match(s[o.end:d.start]) for o in nums
                                  if o.end <= d.start)]
        if before:
            return before[-1].canon
        if per_model:
            return None
        fronted = re.match(r"\W*(?:compared\s+(?:with|to)|relative\s+to|against|versus|unlike|next\s+to)\s+[^,;]*$",
                           s[:n.start], re.I)
        distinct = {d.canon for d in datasets if fronted  # "Compared to B (72.7%), A reaches 73.9% on X": X is B's too
                    or not _CLAUSE_BREAK.search(s[n.end:max(n.end, d.start)])}
        return distinct.pop() if len(distinct) == 1 else None

    def _fronted_quantity(self, s: str) -> str | None:
        """"Parameter-wise, ...", "Latency-wise, ...", "In terms of parameters, ...": a fronted quantity."""
        m = re.match(r"\W*(?:([A-Za-z][\w@\-]*?(?:\s+[A-Za-z][\w@\-]*?)?)-wise|in\s+terms\s+of\s+([^,;]{2,40}?))\s*,", s, re.I)
        if m is None:
            return None
        word = m.group(1).replace("-", " ") if m.group(1) else m.group(2)  # "Training-time-wise": "training time"
        for w in (word, word + "s"):
            found = {sp.canon for sp in self.spans(w) if sp.kind == "quantity"}
            if len(found) == 1:
                return found.pop()
        return None

    def _verb_setting(self, s: str, start: int, rest: str, end: int) -> str | None:
        """The setting whose name's first word is the verb that governs a count ("Re-ranking the top 1,000 candidates",
        "the top 50 candidates are re-ranked", "Sampling 10 programs" on "re-ranking depth", "samples per problem")."""
        noun = re.match(r"\s*(?:[\w\-]+\s+){0,2}?([a-z][\w\-]*s)\b", rest)
        if noun is None:
            return None
        verbs = []
        before = re.search(r"([A-Za-z][\w\-]+)\s+(?:(?:the|only|just|its|their|top|first|next|all|about|roughly|up\s+to)\s+)*$", s[:start])
        if before is not None:
            verbs.append(before.group(1))
        after = re.match(r"\s+(?:are|is|were|was|get|gets|got|being|been)\s+(?:\w+ly\s+|only\s+)?([\w\-]+ed)\b",
                         rest[noun.end():])
        if after is not None:
            verbs.append(after.group(1))
        for v in verbs:
            stem = _stem(v)
            found = [x for x in self.lex.settings if len(stem) >= 5 and (w := _PAREN.sub("", x).strip().lower().split())
                     and _stem(w[0]) == stem and w[0] not in ("number", "size")]
            if len(found) == 1:
                return found[0]
        return None

    def _implied(self, family: str | None) -> str | None:
        """The quantity a cost word implies ("faster": throughput); a speed word in a context without a throughput
        names its one time quantity ("nine times slower" in latency per query)."""
        if family is None:
            return None
        found = [k for k in self.lex.quantities if quantity_family(k) == family]
        if not found and family in ("throughput", "time"):
            found = [k for k in self.lex.quantities if quantity_family(k) in ("time", "rtf", "throughput")]
            found = found if len(found) == 1 else []
        return found[0] if found else None

    def _counts_time(self, quantity: str | None) -> bool:
        """Whether being faster means less of `quantity`: a time, a real-time factor, or a quantity other than a cost
        where lower is better (what it takes to get somewhere: "rounds to target", "steps to converge")."""
        if quantity is None:
            return False
        fam = quantity_family(quantity)
        return fam in ("time", "rtf") or (fam not in COST_FAMILIES and not self._direction(quantity))

    def _direction(self, quantity: str | None) -> bool:
        if quantity is not None and quantity in self.lex.quantities:
            return self.lex.quantities[quantity]
        d = self.lex.result_direction
        return True if d is None else d

    def _compares(self, comparisons, s, datasets, quants, nums, base, settings) -> list[Claim]:  # noqa: ANN001
        out: list[Claim] = []
        stated: dict[tuple[str, str], str | None] = {}  # the quantity of each pair's last quality comparison
        for c in comparisons:
            if c.subject is None or c.object is None or c.subject.canon == c.object.canon:
                continue
            if c.own_quantity:
                q = _nearest([x for x in quants if c.start <= x.start <= c.end + 24], c.start, c.end)
                before = stated.get((c.subject.canon, c.object.canon))
                if q is None and c.quality and re.fullmatch(r"(?:leads?|wins?|trails?|lags?)", c.word) and before is not None:
                    q = before  # "trails B on X ROUGE-L (a vs b) but wins on Y": the same quantity elided
            else:  # the quantity its own clause names after it ("lags B by 1.4 AP"), else the nearest
                stop = min([o.start for o in comparisons if o.start > c.end]
                           + [b.start() for b in _CLAUSE_START.finditer(s, c.end)] + [len(s)])
                ahead = [x for x in quants if c.end <= x.start < stop and not _names_other_value(s, x, nums, c)]
                q = ahead[0].canon if ahead else _nearest(
                    [x for x in quants if not _names_other_value(s, x, nums, c)] or quants, c.start, c.end)
                if c.quality and not ahead and q is not None and quantity_family(q) in COST_FAMILIES:
                    q = None  # "more accurate than B (67.6M parameters)", "better than B ... but uses more parameters":
                    # a word of quality is no cost
                more = _quantity_list(s, ahead[0], quants)[1:] if ahead else []
            # "0.3 EPE worse than B": the quantity its own difference names, written into the comparative
            unit_of_diff = next((x for x in quants if x.end <= c.start and re.fullmatch(r"\s*(?:points?|pts?|pp)?\s*", s[x.end:c.start])
                                 and any(n.role == "diff" and n.end <= x.start and re.fullmatch(r"\s*", s[n.end:x.start])
                                         for n in nums)), None)
            if unit_of_diff is not None and (not c.own_quantity or q is None):
                q, more = unit_of_diff.canon, []
            implied = next((IMPLIED_BY_COMPARATIVE[w] for w in c.word.split() if w in IMPLIED_BY_COMPARATIVE), None)
            cost = self._implied(implied)
            if cost is not None and (q is None or (quantity_family(q) not in COST_FAMILIES and not c.own_quantity and not (
                    ahead and re.fullmatch(r"\s*(?:[\w\-]+\s+)?", s[c.end:ahead[0].start])))):
                q = cost  # "three times faster than B": throughput; "nine times slower than B yet 2.3 MRR points more
                # accurate": a word of cost takes no quality named for another comparison (the latency, with only one)
            q = q if q is not None else self._fronted
            up = c.pol > 0 if not c.quality else (c.pol > 0) == self._direction(q)
            if re.search(r"fast|slow|quick", c.word) and self._counts_time(q):
                up = not up  # "4x faster than B, 3.2 ms against 12.9 ms": the lower latency; "converges twice as fast,
                # needing 180 rounds": the fewer rounds to target
            lo = max(c.lo, c.subject.end)
            diffs = [n for n in nums if n.role == "diff" and lo <= n.start and not re.search(r";|\.\s", s[lo:n.start])
                     and (n.start < c.end or _DIFF_AFTER_OBJECT.match(s[max(c.end, c.object.end):n.start]))]
            # the difference written into the comparative itself ("1.1 dB more than B") before an earlier one
            own = [n for n in diffs if n.end <= c.start and re.fullmatch(r"\s*(?:%|[A-Za-z/]{1,8})?\s*", s[n.end:c.start])]
            diff = (own or diffs or [None])[0]
            group = [o for o in comparisons if o.start == c.start and o.subject is c.subject and o.object is not None]
            if len(group) >= 2 and c in group:  # "edges out both B and C, by 0.4 and 0.9 points respectively"
                last_obj = max(o.object.end for o in group)
                listed = [n for n in nums if n.role == "diff" and n.start >= last_obj and not re.search(r"[;]", s[last_obj:n.start])]
                if len(listed) == len(group) and re.search(r"\brespectively\b", s[listed[-1].end:listed[-1].end + 40], re.I):
                    diff = listed[sorted(group, key=lambda o: o.object.start).index(c)]
            by_dataset = {x.canon: n for n in nums for x in datasets
                          if n.role == "diff" and c.object.end <= x.end <= n.start
                          and not _CLAUSE_START.search(s[c.object.end:n.start])
                          and re.fullmatch(r"\s*\(\s*[+−]?\s*", s[x.end:n.start])}
            if diff is not None and diff.unit == "%" and not _POINTS_AFTER.match(s[diff.end:]) and (
                    _RELATIVE_AFTER.match(s[diff.end + 1:])
                                                          or (q is not None and "%" not in q)):
                diff = None  # "by 15% relative", "30% worse" in FID: a relative difference, not the values' difference
            obj_at = next((n for n in settings if n.start >= c.object.end and _OBJECT_SETTING.fullmatch(
                s[c.object.end:n.start])), None)
            subj_at = [n for n in settings if n.end <= c.start]
            if obj_at is not None and subj_at and subj_at[-1].x_label == obj_at.x_label \
                    and not math.isclose(subj_at[-1].value, obj_at.value):
                continue  # "at 8 negatives, A is still below B with a single negative": two settings, no comparison
            if c.quality and q is not None and quantity_family(q) not in COST_FAMILIES:
                stated[(c.subject.canon, c.object.canon)] = q
            at = _setting_for(s, c.start, c.end, settings)
            mine = base | (dict(x_label=at.x_label, x=at.value) if at is not None else {})
            near = _datasets_near(s, datasets, c.start)
            if q is not None and quantity_family(q) in COST_FAMILIES:  # "... on X (a vs b) but uses more parameters":
                near = [d for d in near if d is None or not any(  # a cost compares no dataset of an earlier clause
                    x.canon == d and x.end <= c.start and _CLAUSE_BREAK.search(s[x.end:c.start]) for x in datasets)] or [None]
            if near == [None] and (q is None or quantity_family(q) not in COST_FAMILIES):
                # "A beats B by 0.71 MOS yet is itself 0.33 behind C on X": the coordinated predicate's dataset is X
                nxt_c = next((o for o in comparisons if o is not c and o.subject is c.subject and o.start > c.end
                              and o.lo == c.object.end), None)
                if nxt_c is not None:
                    near = _datasets_near(s, datasets, nxt_c.start)
            named = list(dict.fromkeys(d.canon for d in datasets))
            if len(named) == 2 and re.match(r"\s*(?:on|in|across|for)\s+both(?![\w-])(?!\s+(?:of\s+)?(?:the\s+)?(?-i:[A-Z]))",
                                            s[c.object.end:], re.I):
                near = named  # "keeps 61.9 on X and 48.4 on Y, more than B on both": one claim per dataset named
            for d in near:  # "beats B on both X and Y": one claim per dataset ("X (+0.30) and Y (+1.43)": each its own)
                dd = by_dataset.get(d, diff)
                out.append(Claim(kind="compare", subject=c.subject.canon, object=c.object.canon,
                                 relation=">" if up else "<", quantity=q, dataset=d,
                                 value=dd.value if dd else None, tolerance=dd.slack if dd else None, **mine))
                for n2, d2 in (self._more_differences(s, diff, nums, datasets) if diff is not None else []):
                    # "lags B by 0.75 FID on X and by 0.39 on Y": the same comparison on Y, by its own difference
                    out.append(Claim(kind="compare", subject=c.subject.canon, object=c.object.canon,
                                     relation=">" if up else "<", quantity=q, dataset=d2, value=n2.value,
                                     tolerance=n2.slack, **mine))
                for q2 in (more if not c.own_quantity and diff is None else []):  # "beats B in both PSNR and SSIM"
                    up2 = c.pol > 0 if not c.quality else (c.pol > 0) == self._direction(q2)
                    out.append(Claim(kind="compare", subject=c.subject.canon, object=c.object.canon,
                                     relation=">" if up2 else "<", quantity=q2, dataset=d, **mine))
        return out

    def _more_differences(self, s: str, diff: Number, nums: list[Number], datasets: list[Span]) -> list[tuple[Number, str]]:
        """"by 0.75 FID on X and by 0.39 on Y": the differences coordinated with `diff`, each with its dataset."""
        out: list[tuple[Number, str]] = []
        last = diff
        for n in nums:
            if n.start <= last.end or n.role != "diff":
                continue
            on = _MORE_DIFF_ON.match(s[last.end:n.start])
            d_on = next((x for x in datasets if on is not None and last.end + on.start("d") == x.start
                         and last.end + on.end("d") == x.end), None)
            if d_on is not None:  # "by 1.2 points on X and on Y by 2.2 points": its dataset before it
                out.append((n, d_on.canon))
                last = n
                continue
            if not _MORE_DIFF_JOIN.match(s[last.end:n.start]):
                break
            d = next((x for x in datasets if x.start >= n.end and _DATASET_OF.match(s[n.end:x.start])), None)
            if d is None:
                break
            out.append((n, d.canon))
            last = n
        return out

    def _ranks(self, s, methods, datasets, quants, base, settings, spans) -> list[Claim]:  # noqa: ANN001
        out: list[Claim] = []
        triggers = sorted(m.start() for rx, _, _ in _RANK_RE for m in rx.finditer(s))
        for rx, pol, quality in _RANK_RE:
            for m in rx.finditer(s):
                word = m.group(0).lower()
                if any(a <= m.start() < b for a, b in self._elided_words):
                    continue
                if re.match(r"(?:fast|slow|quick)(?:est|er\b)", word) and _TRAJECTORY_BEFORE.search(s[:m.start()]):
                    continue  # "converges fastest": how a curve moves, not a throughput
                if (_NEGATED.search(re.sub(r"(?:the|a|an)\s+$", "", s[:m.start()], flags=re.I))
                        or _UNSTATED.search(_clause_before(s, m.start())) or _NOT_A_RESULT.match(s[m.end():])):
                    continue  # "is not the best", "neither A nor B is the best", "the best choice for": no rank
                if any(sp.kind == "setting" and sp.start >= m.end() and re.fullmatch(r"\s*", s[m.end():sp.start])
                       for sp in spans):
                    continue  # "the lowest label rate": a superlative of the setting, not a rank of a method
                if _SUBSET_AFTER.match(s[m.end():]):
                    continue  # "the worst MSE among the learned models": a subset, no rank among the methods
                if _DIFFERENCE_NOUN.match(s[m.end():]):
                    continue  # "the largest gap, 16.4 points, separates A from B": no method is ranked
                if word in ("most", "least") and not re.match(r"\s+(?:of|among|in|on|at|for|across|overall)\b|\s*[,.;()]|\s*$", s[m.end():]) and not any(
                        x.kind == "quantity" and re.fullmatch(r"\s+", s[m.end():x.start]) for x in spans if x.start >= m.end()) \
                        and not _RANKED_ENTITY.match(s[m.end():]):
                    continue  # "the most memory" ranks, and "the most reliable grasper" (a word for what is ranked); "the
                    # most common failure" does not
                if re.search(r"\b(?:(?:one|two|three)\s+of|among)\s+the\s+(?:[\w\-]+\s+)?$|\bthe\s+(?:two|three|four|five|top|\d+)\s+$",
                             s[:m.start()], re.I):
                    continue  # "one of the two best", "among the fastest", "the three best": no single method ranked
                if _OWN_BEST.search(s[:m.start()]):
                    continue  # "reaches its best FID at a scale of 1.5": the method's own optimum, no rank
                if _ORDINAL_BEFORE.search(s[:m.start()]):
                    continue  # "the second highest", "third-best", "the next fastest": a place, not the first or last
                if _DIFFERENCE_BEFORE.search(s[:m.start()]):
                    continue  # "a margin larger than any other in the table": a superlative of a difference
                if (word not in ("most", "least") and _THAN_ALL_SUBSET.match(s[m.end():])) or _THAN_ALL_SUBSET.search(word):
                    continue  # "slower than every non-autoregressive model": a subset the sentence qualifies
                if _SUBSET_BEFORE.search(s[:m.start()]):
                    continue  # "Among the flow-based systems, A has the lowest ...", "Of the learned models, ...": a subset
                if word == "last" and not any(x.end <= m.start() and re.fullmatch(r"\s+", s[x.end:m.start()]) for x in methods):
                    continue  # "with the BM25 stage last" ranks; a bare "last" elsewhere is no rank
                if re.match(r"leads?$", word) and any(x.start >= m.end() and re.fullmatch(r"\s*(?:the\s+)?", s[m.end():x.start], re.I)
                                                      for x in methods):
                    continue  # "leads the CTC baseline": a comparison with that method, not a rank
                colon = s.rfind(":", 0, m.start())
                if any(re.fullmatch(r"[\s*_]*", s[x.end:colon]) for x in methods if x.end <= colon):
                    colon = -1  # "- A: below every other curve": a label, not a clause of its own
                clause_start = max(s.rfind(";", 0, m.start()), colon,
                                   max((b.end() for b in _CLAUSE_START.finditer(s, 0, m.start())), default=0))
                prior = [x for x in methods if clause_start <= x.start and x.end <= m.start()]
                later = [x for x in methods if x.start >= m.end()]
                subj = prior[-1] if prior else (later[0] if later else None)
                appos = next((x for x in later if re.fullmatch(r"\s*(?:[\w\-]+\s+)?,\s*(?:the\s+)?", s[m.end():x.start])
                              and re.match(r"\s*(?:[,.;)\[]|$)", s[x.end:])), None)
                if appos is not None:  # "5.8 points behind the leader, B, on X": the method in apposition to it
                    subj = appos
                if subj is None and re.search(r"\d[\d.,]*\s*(?:%|[A-Za-z/\-]+(?:\s+[A-Za-z/\-]+){0,8})?\s*,\s*(?:the\s+)?$",
                                              s[clause_start:m.start()]) and s[clause_start:clause_start + 1] == ":":
                    # "A is expensive: 31 hours per run, the longest": the superlative of a value that elaborates on A
                    subj = next((x for x in reversed(methods) if x.end <= clause_start), None)
                if subj is None:
                    continue
                if len(prior) >= 2 and _AND_JOIN.match(re.sub(r"\([^()]*\)", "", s[prior[-2].end:subj.start])) \
                        and prior[-2].canon != subj.canon:
                    continue  # "A (82.4%) and B (81.1%) lead the table": two methods are no single best
                stop = min([t for t in triggers if t > m.start()] + [b.start() for b in _CLAUSE_START.finditer(s, m.end())]
                           + [len(s)])
                ahead = [x for x in quants if m.end() <= x.start < stop]  # "the lowest FID", "fastest, at 169 img/s"
                # its own quantity: the one ahead of it, else the one its word implies ("the lowest FID, and the
                # fastest"), else the nearest one not past the next superlative ("most accurate ..., and the fewest
                # parameters": none; "the best accuracy (72.9) ..., while the worst (64.3)": accuracy)
                family = IMPLIED_QUANTITY.get(word)
                implied = next((k for k in self.lex.quantities if quantity_family(k) == family), None) if family else None
                appos = re.search(r"\d[\d.,]*\s*(?:%|[A-Za-z/]+)?\)?(?:\s+(?:on|in|at|for)\s+[^,;()]{1,40}?)?\s*,\s*"
                                  r"(?:the\s+|its\s+)?$", s[:m.start()])
                if appos is not None and not (ahead and re.fullmatch(r"\s*(?:[\w\-]+\s+)?", s[m.end():ahead[0].start])):
                    # "an FID of 2.19 on X, the lowest in the comparison, and an Inception Score of 278": in apposition
                    # to a value, the superlative takes that value's quantity, not one named later
                    own = [x for x in quants if x.end <= m.start() and x.start >= clause_start]
                    ahead = own[-1:] if own else ahead
                q = ahead[0].canon if ahead else implied or _nearest([x for x in quants if x.start < stop], m.start(), m.end())
                counted = _counted_before(s, clause_start, m.start(), quants)
                if not ahead and not implied and counted is not None:
                    q = counted  # "needs 410 communication rounds to hit the target accuracy, the fewest": the quantity
                    # the clause's one number counts, not the nearest name
                if quality and not implied and q is not None and quantity_family(q) in COST_FAMILIES and not re.match(
                        r"most\s+(?:efficient|frugal|economical)", word) and not (  # a word of efficiency ranks a cost
                        ahead and re.fullmatch(r"\s*(?:[\w\-]+\s+)?", s[m.end():ahead[0].start])):
                    q = None  # "the lightest (67.6M parameters) but the least accurate": a quality word is no cost
                q = q if q is not None else self._fronted
                up = pol > 0 if not quality else (pol > 0) == self._direction(q)
                if re.match(r"(?:fast|slow|quick)", word) and self._counts_time(q):
                    up = not up  # "the slowest, at 312 ms": the highest latency
                at = _setting_for(s, m.start(), m.end(), settings)
                mine = base | (dict(x_label=at.x_label, x=at.value) if at is not None else {})
                mine_d = [x for x in datasets if not (x.start >= m.end() and _INTRODUCES_NUMBER.match(s[x.end:])
                                                      and any(y.end <= m.start() for y in datasets))]
                if q is not None and quantity_family(q) in COST_FAMILIES:  # a cost ranks only on a dataset it is stated on
                    mine_d = [x for x in mine_d if re.search(r"\b(?:on|in|for|over|across)\s+(?:the\s+)?$", s[:x.start], re.I)]
                near = _datasets_near(s, mine_d, m.start())
                every = _OVER_ALL_DATASETS.match(s[m.end():]) or _OVER_ALL_FRONTED.search(s[:m.start()])
                named_d = list(dict.fromkeys(x.canon for x in datasets))
                if every is not None and len(named_d) >= 2 and (every.group(1).lower() != "both" or len(named_d) == 2):
                    near = named_d  # "tops both classification benchmarks, with 74.9 on X and 79.3 on Y": one rank each
                counts = _ON_ALL_COUNTS.match(s[m.end():])
                own_q = list(dict.fromkeys(x.canon for x in quants if clause_start <= x.start < m.start()))
                if counts is not None and len(own_q) >= 2 and quality:
                    for q2 in own_q:  # "37.9% accuracy with 58.3% forgetting, the worst on both counts": one rank each
                        up2 = (pol > 0) == self._direction(q2)
                        out.extend(Claim(kind="rank", subject=subj.canon, relation="max" if up2 else "min", quantity=q2,
                                         dataset=d, **mine) for d in near)
                    continue
                out.extend(Claim(kind="rank", subject=subj.canon, relation="max" if up else "min", quantity=q, dataset=d,
                                 **mine) for d in near)
                if ahead and ahead[0].canon == q and quality:  # "the best on X in both PSNR and SSIM": each quantity
                    for q2 in _quantity_list(s, ahead[0], quants)[1:]:
                        up2 = (pol > 0) == self._direction(q2)
                        out.extend(Claim(kind="rank", subject=subj.canon, relation="max" if up2 else "min", quantity=q2,
                                         dataset=d, **mine) for d in _datasets_near(s, datasets, m.start()))
        return out

    def leftovers(self, sent: Sentence, claims: list[Claim]) -> list[str]:
        """What in the sentence no claim the rules read accounts for: numbers no claim states, a comparison or a
        superlative without a claim of that kind (the sentences a judged extractor is asked about)."""
        s = _MARKUP.sub(lambda m: " " * len(m.group(0)), _blank(sent.text, sent.start, sent.cites))
        used = [v for c in claims for v in (c.value, c.x) if v is not None]
        loose = [n for n in self.numbers(s, self.spans(s))
                 if n.role in ("value", "diff") and not any(math.isclose(n.value, u) for u in used)]
        out = [f"numbers no claim states: {', '.join(f'{n.value:g}' for n in loose)}"] if loose else []
        if any(rx.search(s) for rx, _, _ in _COMPARE_RE) and not any(c.kind == "compare" for c in claims):
            out.append("a comparison without a compare claim")
        if any(rx.search(s) for rx, _, _ in _RANK_RE) and not any(c.kind == "rank" for c in claims):
            out.append("a superlative without a rank claim")
        return out

    def extract(self, text: str) -> list[Claim]:
        claims: list[Claim] = []
        for sent in split_sentences(text):
            claims.extend(self.sentence_claims(sent))
        return claims


_MAGNITUDES = {"k": 1e3, "m": 1e6, "b": 1e9}


def _rescaled(n: Number, quantity: str | None) -> tuple[float, float]:
    """A value with a glued magnitude ("412K", "1.2M") in the magnitude its quantity is counted in ("Params (K)":
    412; "Params (M)": 0.412 for "412K"); else as read."""
    q_unit = (_unit_of(quantity) or "").lower() if quantity else ""
    glued = "k" if n.thousands else (n.magnitude or "").lower()
    if q_unit not in _MAGNITUDES or glued not in _MAGNITUDES:
        return n.value, n.slack
    raw, slack = (n.value / 1000, n.slack / 1000) if n.thousands else (n.value, n.slack)  # "412K": read as 412,000
    f = _MAGNITUDES[glued] / _MAGNITUDES[q_unit]
    return round(raw * f, 9), slack * f


# "the most reliable grasper", "the most communication-hungry method": an adjective before a noun for a ranked method
# (a generic one, or an agent noun in -er/-or: "detector", "summariser", "planner")
_RANKED_ENTITY = re.compile(r"\s+[a-z][a-z\-]+\s+(?:method|model|system|network|approach|variant|architecture|"
                            r"[a-z]{3,}(?:er|or))s?\b(?!\s+(?:of|to)\b)", re.I)


def _counted_before(s: str, start: int, at: int, quants: list[Span]) -> str | None:
    """The quantity written right after the one number of the clause that a superlative in apposition (", the
    fewest") follows ("410 communication rounds", "24.5 MB"), if any."""
    if not re.search(r",\s*(?:the\s+)?$", s[start:at]):
        return None
    found = list(re.finditer(r"(?<![\w.-])\d[\d.,]*\s*[%kKMB]?(?![\w-])", s[start:at]))
    if len(found) != 1:
        return None
    e = start + found[0].end()
    own = [x for x in quants if e <= x.start < at and re.fullmatch(r"\s*(?:[A-Za-z][\w\-]*\s+)?", s[e:x.start])]
    return own[0].canon if own else None


def _stem(word: str) -> str:
    """"re-ranked", "re-ranking" -> "re-rank"; "Sampling", "samples" -> "sampl"."""
    w = word.lower()
    for suf in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[:-len(suf)]
    return w


def _own_quantities(s: str, n: Number, quants: list[Span], methods: list[Span], values: list[Number],
                    datasets: list[Span]) -> list[Span]:
    """The quantities a value may carry: not one named after another method and its own number ("A is the most
    accurate (82.2) and B the fastest (1.2k img/s)": 82.2 is no throughput); "82.2 and 81.4 mIoU" share theirs; not
    one measured per model that another number names as its unit, past a dataset ("2.4 on X ..., with 88 utterances
    per second": 2.4 is no throughput); not
    one in a later clause when its own clause names one ("(291), even though its FID ...")."""
    out = [q for q in quants if q.start < n.end or not (any(n.end <= x.start < q.start for x in methods)
                                                         and any(n.end <= v.start < q.start for v in values))]
    out = [q for q in out if not (quantity_family(q.canon) in COST_FAMILIES and any(
        v is not n and 0 <= q.start - v.end <= 3 and re.fullmatch(r"[\s%kKM]*", s[v.end:q.start])
        and any(min(n.end, v.end) <= d.start < max(n.start, v.start) for d in datasets) for v in values))]
    # "(5.2% vs 5.4%) but uses more parameters (48.6M vs 44.1M)": a quantity of a later clause with numbers of its own
    out = [q for q in out if q.start < n.end or not (_LATER_CLAUSE.search(s[n.end:q.start])
                                                      and any(v.start >= q.end for v in values))]
    # "the best exact match, 89.2, and an F1 of 94.6": a quantity after the value that names a number of its own
    out = [q for q in out if q.start < n.end or not any(
        v is not n and v.start >= q.end and re.fullmatch(r"\s*(?:is|was|of|=|:)\s*(?:about|roughly|~)?\s*", s[q.end:v.start])
        for v in values)]
    if any(q.end <= n.start for q in out):
        out = [q for q in out if q.end <= n.start or not _LATER_CLAUSE.search(s[n.end:q.start])]
    if n.unit == "%":  # "(77.5M params): 73.8% / 62.5%": a percentage is no quantity measured in another unit
        out = [q for q in out if ((_unit_of(q.canon) or "%") in ("%", "") or q.unit) and not (
            _unit_of(q.canon) is None and quantity_family(q.canon) in COST_FAMILIES)]  # nor a cost ("84.3% at 9.1 GFLOPs")
    glued = [q for q in out if q.start >= n.end and re.fullmatch(r"[\s%kKMB]*", s[n.end:q.start]) and not q.unit]
    if glued and any(q.end <= n.start and any(v.end <= q.start and re.fullmatch(r"[\s%kKMB]*", s[v.end:q.start])
                                              for v in values if v is not n) for q in out):
        return glued[:1]  # "30.2 QoE, 6.5% rebuffering": the name right after a value, not the one of the value before
    # a unit written after another number ("needs only 7.1 ms for 30.40") is that number's, and those joined to it
    return [q for q in out if not q.unit or _unit_reaches(s, n, q, values)]


def _unit_reaches(s: str, n: Number, q: Span, values: list[Number]) -> bool:
    """Whether the unit span `q` measures `n`: it follows `n`, or a number `n` is listed with ("0.8 and 1.2 ms")."""
    if q.end <= n.start and _UNIT_THEN_PAIR.fullmatch(s[q.end:n.start]):
        return True  # "gains 4.20 dB on Set5 (32.62 vs 28.42)": the pair in brackets after it is in that unit
    chain = [v for v in values if v.end <= q.start]
    if not chain:
        return False
    i = len(chain) - 1
    if not re.fullmatch(r"\s*", s[chain[i].end:q.start]):
        return False
    while True:
        if chain[i] is n:
            return True
        if i == 0 or not _UNIT_LIST_JOIN.match(s[chain[i - 1].end:chain[i].start]):
            return False
        i -= 1


_UNIT_THEN_PAIR = re.compile(r"[^;()]{0,40}\(\s*(?:[\d.,]*\d\s*(?:vs\.?|versus|against|to|/)\s*)?")
_POINTS_DIFF = re.compile(r"^\s*(?:percentage[\s-]+)?points?\s+(?:\w+\s+)?(?:under|over|above|below|ahead|behind|higher|"
                          r"lower|more|less|short|clear|better|worse|up|down)\b", re.I)
# "B with a single negative", "B at 16 layers": the setting the comparison's object is stated at
_OBJECT_SETTING = re.compile(r"\s*(?:['’]s\s+)?(?:\([^()]*\)\s*)?(?:with|at|using|under)\s+(?:(?:a|an|only|just|its|the)\s+)?",
                             re.I)
_UNIT_LIST_JOIN = re.compile(r"^\s*(?:,|,?\s*and|,?\s*or|to|-|–|/|versus|vs\.?)\s*$", re.I)


_DIFF_LIST_JOIN = re.compile(r"\s*(?:%|points?|pts?|[A-Za-z]{1,6})?\s*(?:on|in|for)\s+[^,;]{1,30}?\s*,?\s*and\s+", re.I)
_DIFF_LIST_END = re.compile(r"\s*(?:%|points?|pts?|[A-Za-z]{1,6})?\s*(?:on|in|for)\s", re.I)
# "by 0.75 FID on CIFAR-10 and by 0.39 on FFHQ": a second difference of the same comparison
_MORE_DIFF_JOIN = re.compile(r"^\s*(?:%|points?|pts?|pp|[A-Za-z]{1,6}(?:[\s-]+points?)?|[\w@\-]{1,12}\s+points?)?\s*(?:(?:on|in|for)\s+[^,;]{1,40}?)?\s*,?\s*"
                             r"(?:and|but\s+only|while)\s+(?:by\s+)?(?:only\s+|just\s+|about\s+|roughly\s+)?$", re.I)
_DATASET_OF = re.compile(r"^\s*%?\s*(?:[\w/%]+\s+)?(?:on|in|for)\s+(?:the\s+)?$", re.I)  # "5.6 on test-other"


_WORD_VALUES = {"single": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "sixteen": 16, "twenty": 20, "thirty-two": 32, "fifty": 50,
                "sixty-four": 64, "hundred": 100}
_WORD_NUMBER = re.compile(rf"(?<![\w-])(?:{'|'.join(sorted(_WORD_VALUES, key=len, reverse=True))})(?![\w-])", re.I)


def _dataset_short_names(lex: Lexicon) -> list[tuple[str, str]]:
    """Short forms of dataset names that stay unique: what follows a first word two datasets share ("test-other" for
    "LibriSpeech test-other" next to "LibriSpeech test-clean"), and a name without a trailing version or size token
    ("LVIS" for "LVIS v1", "FFHQ" for "FFHQ 256") when no other dataset starts with it."""
    names = [re.sub(r"\s*\([^()]*\)\s*$", "", d) for d in lex.datasets]
    taken = {n.lower() for n in names} | {m.lower() for m in lex.methods}
    cands: dict[str, set[str]] = {}
    for d, n in zip(lex.datasets, names):
        words = n.split()
        if len(words) < 2:
            continue
        group = [o.split() for o in names if o.split()[0] == words[0]]
        if len(group) >= 2:  # what follows the words the group shares ("MS MARCO dev", "MS MARCO eval": "dev", "eval")
            k = 0
            while all(len(g) > k + 1 and g[k] == words[k] for g in group):
                k += 1
            cands.setdefault(" ".join(words[k:]).lower(), set()).add(d)
        elif re.search(r"\d", words[-1]) and len(" ".join(words[:-1])) >= 3:
            cands.setdefault(" ".join(words[:-1]).lower(), set()).add(d)
    out = []
    for a, ds in cands.items():
        if len(ds) == 1 and a not in taken and len(a) >= 3 and not any(
                o.lower().startswith(a) and o != next(iter(ds)) for o in lex.datasets):
            out.append((next(iter(ds)), a))
    return out


def _names_other_value(s: str, q: Span, nums: list[Number], c: Comparison) -> bool:
    """Whether quantity `q`, after comparison `c`, names a value of its own ("..., and its EM is 68.2", "68.2 EM")."""
    for n in nums:
        if n.role != "value" or c.start <= n.start < c.end:
            continue
        if 0 <= n.start - q.end <= 12 and re.fullmatch(r"\s*(?:is|was|of|=|:|at)?\s*", s[q.end:n.start]):
            return True
    return False


def _quantity_list(s: str, first: Span, quants: list[Span]) -> list[str]:
    """The quantities coordinated with `first` ("both PSNR and SSIM", "EM, F1 and accuracy")."""
    out = [first]
    for q in quants:
        if q.start >= out[-1].end and _QUANTITY_JOIN.match(s[out[-1].end:q.start]):
            out.append(q)
    return list(dict.fromkeys(q.canon for q in out))


_QUANTITY_JOIN = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:,\s*(?:and\s+)?|and\s+|&\s*|/\s*)(?:in\s+|the\s+)?$", re.I)


def _slash_group(s: str, n: Number, nums: list[Number]) -> list[Number] | None:
    """The values joined by slashes that `n` is one of ("29.1 / 41.6 / 34.0"), or None."""
    i = next((k for k, o in enumerate(nums) if o is n), None)
    if i is None:
        return None
    lo = hi = i
    while lo > 0 and _SLASH_JOIN.match(s[nums[lo - 1].end:nums[lo].start]):
        lo -= 1
    while hi + 1 < len(nums) and _SLASH_JOIN.match(s[nums[hi].end:nums[hi + 1].start]):
        hi += 1
    return nums[lo:hi + 1] if hi > lo else None


def _dataset_list(s: str, at: int, datasets: list[Span]) -> list[str]:
    """The datasets of the coordination that follows `at` in its clause ("on X, Y and Z")."""
    after = [d for d in datasets if d.start >= at and not _CLAUSE_BREAK.search(s[at:d.start])]
    if not after:
        return []
    out = [after[0]]
    for d in after[1:]:
        if not _DATASET_JOIN.match(s[out[-1].end:d.start]):
            break
        out.append(d)
    return [d.canon for d in out]


def _plural(kind: str, alias: str) -> str:
    """The pattern of a name; a quantity or setting word may be plural ("their accuracies", "label rates"), a method or
    dataset name not."""
    pat = _flex(alias)
    if kind not in ("quantity", "setting") or not alias[-1:].isalpha():
        return pat
    return pat[:-1] + "(?:y|ies)" if alias.endswith("y") else pat + "(?:s|es)?"


def _flex(alias: str) -> str:
    return r"[\s\-]*".join(re.escape(w) for w in re.split(r"[\s\-]+", alias.strip()))


def _blank(text: str, offset: int, cites: list[Citation]) -> str:
    _, _, spans = parse_citations(text)
    out = list(text)
    for a, b in spans:
        out[a:b] = " " * (b - a)
    return "".join(out)


def _unique(cites: list[Citation]) -> list[Citation]:
    seen: dict[tuple[str, str], Citation] = {}
    for c in cites:
        seen.setdefault(c.key, c)
    return list(seen.values())


def _nearest(spans: list[Span], start: int, end: int) -> str | None:
    if not spans:
        return None
    return min(spans, key=lambda sp: min(abs(sp.start - end), abs(start - sp.end))).canon


def _setting_for(s: str, start: int, end: int, settings: list[Number]) -> Number | None:
    """The setting a value, comparison or rank is stated at: the one right after it ("78.2 at 50 epochs"), else the
    last one before it, else the sentence's first."""
    if len(settings) <= 1:
        return settings[0] if settings else None
    right = next((n for n in settings if n.start >= end and _AT_JOIN.match(s[end:n.start])), None)
    if right is not None:
        return right
    before = [n for n in settings if n.end <= start]
    if len(before) >= 2 and re.search(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+$", s[before[-2].end:before[-1].start]):
        before = before[:-1]  # "Feeding 81 frames instead of 27, A ...": the setting in effect is the first
    own = [n for n in settings if n.start >= end and not _CLAUSE_BREAK.search(s[end:n.start])]
    if before and own and _CLAUSE_BREAK.search(s[before[-1].end:start]):
        return own[0]  # "A needs 50 steps to reach 2.5, while B gets to 3.0 in 10 steps": its own clause's setting
    return before[-1] if before else settings[0]


def _datasets_near(s: str, datasets: list[Span], at: int) -> list[str | None]:
    """The dataset a comparison or rank is about, or every dataset of a coordination it sits in ("first on X and Y");
    not one named after a later clause starts ("the highest throughput but the lowest accuracy on CiteSeer")."""
    every = datasets
    datasets = [d for d in datasets if d.start < at or not _CLAUSE_BREAK.search(s[at:d.start])]
    own = [d for d in datasets if d.start >= at]
    if own and any(d.end <= at for d in datasets) and all(_CLAUSE_BREAK.search(s[d.end:at]) for d in datasets if d.end <= at):
        datasets = own  # "A is second on X but tops the column on Y": its own clause's dataset, not the earlier clause's
    one = _dataset_near(datasets, at)
    if one is None:
        return [None]
    pick = min((d for d in datasets if d.canon == one), key=lambda d: abs(d.start - at))
    datasets = every  # "leading on X (2.0%), Y (4.1%) and Z (6.2%)": the list goes on past a bracketed value
    i = datasets.index(pick)
    lo = hi = i
    while lo > 0 and _DATASET_JOIN.match(s[datasets[lo - 1].end:datasets[lo].start]):
        lo -= 1
    while hi + 1 < len(datasets) and _DATASET_JOIN.match(s[datasets[hi].end:datasets[hi + 1].start]):
        hi += 1
    return list(dict.fromkeys(d.canon for d in datasets[lo:hi + 1]))


def _dataset_near(datasets: list[Span], at: int) -> str | None:
    distinct = {d.canon for d in datasets}
    if len(distinct) <= 1:
        return distinct.pop() if distinct else None
    return min(datasets, key=lambda d: abs(d.start - at)).canon


def extract_claims(text: str, lex: Lexicon) -> list[Claim]:
    """Every claim the report states about a named method, with the citations of its sentence."""
    return ClaimExtractor(lex).extract(text)
