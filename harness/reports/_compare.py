"""Comparisons in a sentence of a report (for `_extract.py`): each comparison word with the methods it links, and
what coordination, ellipsis and a fronted object add ("ahead of B and well clear of C", "beats both B and C", "A and
B both outperform C", "less accurate than B but 30% faster", "Compared with B, A is lighter")."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ._patterns import (
    _AGAINST_ALL, _AUX_BEFORE, _BY_BEFORE, _COMPARATIVE, _COMPARATIVE_LEAD, _COMPARATIVE_RE, _COMPARE_RE, _COORD_GAP,
    _ELIDED, _ELIDED_VERB, _FRONTED, _FRONTED_SUBJECT, _HEDGED, _LIST_JOIN, _NEGATED, _OBJ_END, _OBJ_JOIN,
    _OF_THE_TWO, _PARTICIPLE, _SUBJ_GAP, _OBJ_DIFF_JOIN, _BY_NEXT, _PLURAL_SUBJECT, _UNSTATED, _VERB_BEFORE, _VERB_COMPARE,
)


@dataclass
class Span:
    kind: str  # method | dataset | quantity | setting
    canon: str
    start: int
    end: int
    pronoun: bool = False  # "it", "its", "the former": a method the sentence named before
    unit: bool = False  # a quantity named by the unit written after a number ("18.3 ms")


@dataclass
class Comparison:
    """A comparison word (or a fronted "compared with B, A is ...") and the methods it links."""

    start: int
    end: int
    subject: Span | None
    object: Span | None
    pol: int
    quality: bool
    word: str
    lo: int = -1  # where its stated difference may start (after the previous object in a coordination)
    own_quantity: bool = False  # its quantity only where it stands ("but 40% faster"), not the sentence's nearest
    pronoun_object: Span | None = None  # "beats it": an object the clause names only by a pronoun


def find_comparisons(s: str, methods: list[Span]) -> list[Comparison]:
    """Every comparison word with the methods it links (subject None for a pronoun: "It trails B")."""
    out: list[Comparison] = []
    for rx, rx_pol, quality in _COMPARE_RE:
        pol = rx_pol
        for m in rx.finditer(s):
            if any(c.start <= m.start() < c.end or c.start < m.end() <= c.end for c in out):
                continue
            word = m.group(0).strip()
            if rx_pol == 0:  # a verb of change: its direction is the verb's, its object the method right after it
                pol = -1 if re.match(r"(?:reduc|lower|cut|decreas|trim|shrink)", word, re.I) else 1
                if not any(x.start >= m.end() and re.fullmatch(r"\s*(?:the\s+)?", s[m.end():x.start], re.I) for x in methods):
                    continue
            if _AGAINST_ALL.match(s[m.end():]):
                continue  # "lower than any other curve": a rank
            if (_NEGATED.search(s[:m.start()]) or (_HEDGED.search(s[:m.start()]) and _VERB_COMPARE.match(word))
                    or _UNSTATED.search(_clause_before(s, m.start()))):
                continue  # "does not beat B", "nearly catches B"
            subj = [x for x in methods if x.end <= m.start()]
            if (subj and re.fullmatch(r"(?:more|less)\s+than", word, re.I)
                    and _VERB_BEFORE.search(s[:subj[-1].start])):
                continue  # "hurts A more than B"
            obj = [x for x in methods if x.start >= m.end() and not re.search(r";|\.(?!\d)|,\s*(?:while|whereas|but)\b",
                                                                                s[m.end():x.start], re.I)]
            if re.fullmatch(r"lead(?:s|ing)?|edg(?:es|ed|ing)", word, re.I) and not (obj and re.fullmatch(r"\s*(?:the\s+)?",
                                                                                         s[m.end():obj[0].start], re.I)):
                continue  # "leads B by 0.8" and "edges B" compare; "leads with 55.96" ranks, "graph edges" nothing
            if _PARTICIPLE.match(word) and (_AUX_BEFORE.search(s[:m.start()])
                                            or (obj and _BY_BEFORE.search(s[m.end():obj[0].start]))):
                pol = -pol  # "is outperformed on COCO by B", "A, beaten only by B"
            # "B is just behind it": a pronoun object gives no comparison (the labelling rule; a pronoun subject does)
            out.append(Comparison(m.start(), m.end(), subj[-1] if subj else None,
                                  obj[0] if obj and not obj[0].pronoun else None, pol, quality, m.group(0).lower(),
                                  pronoun_object=obj[0] if obj and obj[0].pronoun and re.fullmatch(
                                      r"\s*", s[m.end():obj[0].start]) else None))
            group = _GROUP_OBJECT.match(s[m.end():])
            named = _distinct([x for x in obj if not x.pronoun])
            if group is not None and subj and len(named) == _GROUP_SIZE.get(group.group(1).lower(), -1):
                # "overtakes both graph methods, ... 0.0431 for B and 0.0417 for C": the group is the methods named after it
                out.extend(Comparison(m.start(), m.end(), subj[-1], x, pol, quality, m.group(0).lower(), lo=named[0].end)
                           for x in named[1:])
            pol = rx_pol
    for c in list(out):  # "both smaller and faster than B": each comparative compares
        if c.word.endswith("than") and c.subject is not None and c.object is not None:
            for rx, pol, quality in _COMPARATIVE_RE:
                m = re.search(rf"(?:{_bare(rx)})(?![\w-])\s*(?:,|and|or)\s*$", s[c.subject.end:c.start], re.I)
                if m is not None:
                    at = c.subject.end + m.start()
                    out.append(Comparison(at, c.subject.end + m.end(), c.subject, c.object, pol, quality,
                                          m.group(0).split()[0].lower().strip(","), own_quantity=True))
                    break
    out = _coordinated(s, sorted(out, key=lambda c: c.start), methods)
    out += _elided(s, out, methods)
    for i, o in enumerate(methods):  # "Compared with B, A is lighter": object first, comparative without "than"
        if not _FRONTED.search(s[max(0, o.start - 30):o.start]):
            continue
        subj = next((x for x in methods[i + 1:] if _FRONTED_SUBJECT.fullmatch(s[o.end:x.start])), None)
        if subj is None or any(c.subject is subj and c.object is not None for c in out):
            continue
        for rx, pol, quality in _COMPARATIVE_RE:
            m = rx.match(s, subj.end)
            if m is not None:
                word = m.group(0).split()[-1].lower()
                out.append(Comparison(subj.end, m.end(), subj, o, pol, quality, word))
                break
        else:  # "Relative to B, A cuts rebuffering from 6.5% to 1.9%": a verb of change against the fronted method
            m = _FRONTED_CHANGE.match(s, subj.end)
            if m is not None:
                verb = m.group(1).lower()
                pol = -1 if re.match(r"(?:cut|reduc|lower|decreas|trim|halv)", verb) else 1
                out.append(Comparison(subj.end, m.end(), subj, o, pol, verb.startswith("improv"), verb))
    for m in _GAP_BETWEEN.finditer(s):  # "the gap between A and B is 0.016, in A's favour": A is the better one
        pair = [x for x in methods if m.end() <= x.start and not re.search(r"[;]|\.(?!\d)", s[m.end():x.start])][:2]
        if len(pair) < 2 or not _AND_ONLY.fullmatch(s[pair[0].end:pair[1].start]) or pair[0].canon == pair[1].canon:
            continue
        fav = next((f for f in _FAVOUR.finditer(s, pair[1].end) if not re.search(r";", s[pair[1].end:f.start()])), None)
        won = next((x for x in methods if fav is not None and fav.start() <= x.start < fav.end()), None)
        if won is None or won.canon not in (pair[0].canon, pair[1].canon):
            continue
        winner, loser = (pair[0], pair[1]) if won.canon == pair[0].canon else (pair[1], pair[0])
        out.append(Comparison(m.start(), fav.end(), winner, loser, 1, True, "favour", lo=pair[1].end))
    for m in _OF_THE_TWO.finditer(s):  # "so A is the better of the two": the object is the other method named
        subj = [x for x in methods if x.end <= m.start()]
        others = {x.canon: x for x in methods if subj and x.canon != subj[-1].canon}
        if not subj or len(others) != 1:
            continue
        word = m.group(1).lower()
        pol, quality = next((p, q) for rx, p, q in _COMPARATIVE if re.fullmatch(rx, word, re.I))
        out.append(Comparison(m.start(), m.end(), subj[-1], next(iter(others.values())), pol, quality,
                              word.split()[-1]))
    return sorted(out, key=lambda c: c.start)

_FRONTED_CHANGE = re.compile(r"\s+(?:(?:also|further|substantially|sharply|clearly|markedly)\s+)?(cuts?|reduces?|lowers?|decreases?|"
                             r"trims?|halves|raises?|increases?|boosts?|lifts?|improves?)\b", re.I)
_GAP_BETWEEN = re.compile(r"\b(?:gap|difference|margin|spread)\s+between\s+(?:the\s+)?", re.I)
_AND_ONLY = re.compile(r"\s*(?:['’]s\s+[\w@%\-/]+\s+)?and\s+(?:the\s+)?", re.I)
# "in A's favour", "in favour of A", "favouring A"
_FAVOUR = re.compile(r"\bin\s+(?:the\s+)?[A-Z][\w\-+]*(?:\s+[\w\-]+)?['’]s?\s+favou?r\b|\bin\s+favou?r\s+of\s+(?:the\s+)?[A-Z][\w\-+]*|"
                     r"\bfavou?ring\s+(?:the\s+)?[A-Z][\w\-+]*")
_GROUP_OBJECT = re.compile(r"^\s+(?:the\s+)?(both|two|three|four|all\s+three|all\s+four)\s+(?:other\s+)?(?:[\w\-]+\s+)?"
                           r"(?:methods|models|baselines|systems|networks|approaches|competitors|rivals|alternatives|variants)\b",
                           re.I)
_GROUP_SIZE = {"both": 2, "two": 2, "three": 3, "four": 4, "all three": 3, "all four": 4}


def _coordinated(s: str, found: list[Comparison], methods: list[Span]) -> list[Comparison]:
    """Coordination: "ahead of B at 57.6 and well clear of C" (the second word's subject is the first's), "beats
    both B and C" (one comparison per object), "A and B both outperform C" (one per subject)."""
    for prev, c in zip(found, found[1:]):
        if (prev.object is not None and c.subject is prev.object and prev.subject is not None
                and _COORD_GAP.match(s[prev.object.end:c.start])):
            c.subject, c.lo = prev.subject, prev.object.end
            if c.object is None and c.pronoun_object is not None and c.pronoun_object.canon == prev.subject.canon:
                c.object = prev.object  # "A trails B in FID but beats it in IS": "it" is B, the subject stays A
    out: list[Comparison] = []
    for c in found:
        out.append(c)
        if c.object is None:
            continue
        last = c.object
        for x in methods:
            if x.start < last.end:
                continue
            if x.canon != last.canon and _OBJ_DIFF_JOIN.match(s[last.end:x.start]) and _BY_NEXT.match(s[x.end:]):
                out.append(Comparison(c.start, c.end, c.subject, x, c.pol, c.quality, c.word, lo=x.end))
                last = x  # "beats B by 9.8 average accuracy, and C by 1.1": the same subject, its own difference
                continue
            if not (_OBJ_JOIN.match(s[last.end:x.start]) and _OBJ_END.match(s[x.end:])) or x.canon == last.canon:
                break
            out.append(Comparison(c.start, c.end, c.subject, x, c.pol, c.quality, c.word, lo=last.end))
            last = x
    more: list[Comparison] = []
    for c in out:  # "A and B reach 72.3 and 70.1; both are beaten by C": each of the two
        if c.subject is None or not _PLURAL_SUBJECT.search(s[c.subject.end:c.start]):
            continue
        prior = _distinct([x for x in methods if x.end <= c.subject.start])
        if prior and _LIST_JOIN.match(s[prior[-1].end:c.subject.start]) and prior[-1].canon != c.subject.canon:
            more.append(Comparison(c.start, c.end, prior[-1], c.object, c.pol, c.quality, c.word, lo=c.lo))
    for c in out:
        if c.subject is None or not _SUBJ_GAP.match(s[c.subject.end:c.start]):
            continue
        prior = [x for x in methods if x.end <= c.subject.start]
        chain: list[Span] = []
        right, anded = c.subject, False
        for x in reversed(prior):  # "A, B and C all beat D"
            gap = s[x.end:right.start]
            if x.canon == right.canon or not _LIST_JOIN.match(gap) or any(o.object is x for o in out):
                break
            anded = anded or bool(re.search(r"\band\b", gap))
            chain.append(x)
            right = x
        if anded:
            more.extend(Comparison(c.start, c.end, x, c.object, c.pol, c.quality, c.word, lo=c.lo) for x in chain)
    return out + more

def _elided(s: str, found: list[Comparison], methods: list[Span]) -> list[Comparison]:
    """"A is less accurate than B but 40% faster": a comparative without "than" after a comparison, with no method
    between, compares the same two methods."""
    out: list[Comparison] = []
    for c in found:
        if c.subject is None or c.object is None or c.object.start < c.end:
            continue
        tail = s[c.object.end:]
        lead = _ELIDED.match(tail)
        if lead is None:
            continue
        at = c.object.end + lead.end()
        for rx, pol, quality in [*_COMPARATIVE_RE, *_ELIDED_VERB]:
            m = re.compile(rf"(?:{_bare(rx)})(?![\w-])", re.I).match(s, at)
            if m is None or re.match(r"\s+than\b", s[m.end():], re.I):
                continue
            if any(x.start < m.end() and x.end > c.object.end for x in methods if x is not c.object) \
                    or any(o.start >= c.object.end and o.start < m.end() for o in found):
                continue
            out.append(Comparison(at, m.end(), c.subject, c.object, pol, quality, m.group(0).lower(), lo=c.object.end,
                                  own_quantity=True))
            break
    return out


def _clause_before(s: str, at: int) -> str:
    """The text of the clause that `at` is in, up to `at`."""
    start = max([0] + [b.end() for b in re.finditer(r"[;:]|,\s*(?:while|whereas|but)\b", s[:at])])
    return s[start:at]


def _bare(rx: re.Pattern[str]) -> str:
    """A comparative pattern without its leading stretch of clause (matched right where the word is)."""
    return rx.pattern.removeprefix(_COMPARATIVE_LEAD)


def _distinct(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for sp in spans:
        if not out or out[-1].canon != sp.canon:
            out.append(sp)
    return out


def _bare(rx: re.Pattern[str]) -> str:
    """A comparative pattern without its leading stretch of clause (matched right where the word is)."""
    return rx.pattern.removeprefix(_COMPARATIVE_LEAD)
