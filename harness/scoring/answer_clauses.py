"""How a careful grader reads the words around each candidate of an answer: asserted, offered, a reason, negated.

`Final answer: D, because C is lower` answers D: C sits in a reason. `D (not C)` answers D: C is negated.
`D, or possibly C` offers C as an alternative, so it hedges. `not D` and `D is wrong` negate the only
candidate: a wrong answer, not an unreadable one. The reading is a small state machine over cue words,
walked once per answer; each format (numbers, letters, names, set items) asks it for the mode of each of
its mentions (`Clauses.mode`). Sentences, semicolons and line breaks end every clause; a comma ends a
negation; a parenthesis restores the mode it interrupted.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, Literal

Mode = Literal["assert", "alternative", "reason", "negated"]

# Words that end a sentence with a period without ending it ("vs. NorloDet", "Fig. 3", "et al. (2020)").
_ABBREVIATIONS = r"(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)(?<!\bal)(?<!\bfig)(?<!\bfigs)(?<!\btab)(?<!\beq)(?<!\bsec)(?<!\bno)" \
                 r"(?<!\bapprox)(?<!\bcf)(?<!\bresp)(?<!\betc)(?<!\bca)(?<!\bincl)(?<!\bVs)(?<!\bFig)(?<!\bTab)(?<!\bEq)" \
                 r"(?<!\bSec)(?<!\bNo)(?<!\bp)(?<!\bpp)"
_SENTENCE_END = re.compile(_ABBREVIATIONS + r"[.!?](?=\s+[\"'“(*]*[A-Z⟦]|\s*$)")
_SENTENCE_OR_SEMICOLON_END = re.compile(_SENTENCE_END.pattern + r"|;")
# cue -> what it does to the mode of the words after it
_CUES: list[tuple[str, str]] = [
    ("boundary", _ABBREVIATIONS + r"[.!?](?=\s|$)|[;\n:]"),
    ("open", r"[(\[]"),
    ("close", r"[)\]]"),
    ("negated", r"\b(?:anything\s+but|but\s+not|rather\s+than|instead\s+of|other\s+than|except(?:\s+for)?|excluding|"
                r"not|never|neither|nor|no\s+longer)\b|n[’']t\b"),
    ("reason", r"\b(?:because|since|as|given|while|whereas|although|though|compar(?:e|es|ed|ing)|relative\s+to|than|"
               r"ahead\s+of|behind|beats?|beating|outperforms?|outperforming|over|against|unlike|improves?\s+(?:on|over)|"
               r"which|who|whose|where)\b"),
    ("alternative", r"\b(?:either|maybe|possibly|perhaps|alternatively|otherwise|unless|or\s+else|if\s+not|and/or|"
                    r"(?:could|might|may|would)\s+(?:also\s+)?be|instead(?!\s+of)|vs\b\.?|versus)\b|\s/\s|(?<=\w\w)/(?=\w\w)"),
    ("condition", r"\b(?:if|assuming|supposing|in\s+case)\b"),
    ("comma_or", r",\s*or\b"),
    ("or", r"\bor\b"),
    ("assert", r"\b(?:but|so|therefore|thus|hence)\b|\bthe\s+(?:correct\s+)?answer\s+is\b"),
    ("comma", r","),
]
_CUE = re.compile("|".join(f"(?P<{name}_{i}>{pattern})" for i, (name, pattern) in enumerate(_CUES)), re.I)

# What a mention is said to be, right after it: "D is incorrect", "SolbelParse is also possible".
_POST_NEGATED = re.compile(
    r"^[\s%*\"'”’)\]]*(?:(?:is|was|are|were|seems|appears|would\s+be|can\s+be|must\s+be)\s+(?:(?:also|clearly|definitely)\s+)?"
    r"(?:not\b|wrong|incorrect|false|ruled\s+out|excluded|eliminated|impossible)|"
    r"(?:isn[’']t|wasn[’']t|aren[’']t|does\s+not|doesn[’']t|do\s+not|don[’']t|cannot|can[’']t)\b)", re.I)
POST_ALTERNATIVE = re.compile(
    r"^[\s%*\"'”’)\]]*(?:(?:is|are|seems|looks|(?:would|could|might|may)\s+be)\s+)?(?:also\s+)?(?:possible|plausible|likely|"
    r"an?\s+(?:option|alternative|candidate|possibility))\b|"
    r"^[\s%*\"'”’)\]]*(?:is|are|(?:would|could|might|may)\s+be)\s+also\s+(?:correct|right|acceptable|valid|fine)\b|"
    r"^[\s%*\"'”’)\]]*(?:might|could|may|would)\s+(?:also\s+)?(?:be\s+(?:correct|right|acceptable|valid|fine|it)|"
    r"be\b|fit|work|apply|qualify|hold|do)\b", re.I)
# "(C is a close second)": a remark about another option inside parentheses, not an offer of it
_POST_STATEMENT = re.compile(r"^[\s%*\"'”’]*(?:is|was|are|has|had|scores?|reaches|achieves|gets|comes|ranks|trails|follows|lags)\b",
                             re.I)
# "(C: 70.1)": another option labelled with its value inside parentheses, a remark when nothing offers it
_POST_LABELLED = re.compile(r"^[\s*\"'”’]*[:=]\s*[-+−]?\.?\d")


# A condition's consequent that reads as an answer: "84.7", "84.7 instead", "it is SolbelParse", "the answer is C"
# (not "the full model reaches 79.1" or "C catches up": a statement about another, as on any line after the answer)
_ANSWER_LEAD = re.compile(r"^\s*(?:then\s+)?(?:(?:it|this|that|my\s+answer|the\s+(?:correct\s+)?(?:answer|value|result|number|"
                          r"method|option|choice|name))\s+(?:is|would\s+be|will\s+be|becomes)\s+)?", re.I)
_ANSWER_TOKEN = re.compile(r"[-+−]?\(?[\w.\-/:%⟦⟧]+\)?")
_ANSWER_TAIL = re.compile(r"^[\s%.,!)*\"'’”]*(?:(?:instead|too|also|then|rather|as\s+well|percent|points?|pp)\b[\s.,!)]*)*$", re.I)


def answer_like(consequent: str) -> bool:
    """Whether the words after a condition's comma state an answer and nothing else."""
    rest = consequent[_ANSWER_LEAD.match(consequent).end():]  # type: ignore[union-attr]
    token = _ANSWER_TOKEN.match(rest)
    return bool(token) and bool(_ANSWER_TAIL.match(rest[token.end():]))  # type: ignore[union-attr]


@dataclass(frozen=True)
class Cue:
    start: int
    end: int
    kind: str
    text: str


@dataclass
class Clauses:
    """The mode of every position of one answer text, from its cue words (computed once)."""

    text: str
    cues: list[Cue] = field(default_factory=list)
    _ends: list[int] = field(default_factory=list)
    _modes: list[Mode] = field(default_factory=list)
    _depths: list[int] = field(default_factory=list)
    _opened: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, after_answer: bool = False) -> "Clauses":
        """`after_answer`: the text is the rest of a span after the answer it committed to, where the consequent of
        a condition that reads as an answer ("If the test split is meant, 84.7.", "..., it is SolbelParse") offers
        another answer (not one that says something of another: "..., the full model reaches 79.1"); in the answer
        itself a condition only mentions ("D (if we ignore C)"), and what follows its comma is asserted again."""
        out = cls(text=text)
        state: str = "assert"  # a Mode, or "condition" (read as "reason") up to the condition's comma
        consequent = False
        stack: list[tuple[str, int]] = []
        for m in _CUE.finditer(text):
            kind = (m.lastgroup or "").rsplit("_", 1)[0]
            cue = Cue(m.start(), m.end(), kind, m.group(0))
            offers = False
            if kind == "comma" and state == "condition" and after_answer:
                consequent_text = re.split(r"[;\n]|[.!?](?=\s+[A-Z])", text[m.end():], maxsplit=1)[0]
                offers = answer_like(consequent_text)
                if offers:
                    cue = Cue(m.start(), m.end(), "alternative", m.group(0))  # the consequent offers what it names
            out.cues.append(cue)
            if kind == "boundary":
                if not (cue.text == ":" and stack):  # "(NorloDet: 70.1)": a colon inside a parenthesis labels, it ends nothing
                    state, stack, consequent = "assert", [], False
            elif kind == "condition":
                if state == "assert":
                    state = "condition"
            elif kind == "comma" and state == "condition":
                state, consequent = ("alternative", True) if offers else ("assert", False)
            elif kind == "assert" and consequent and state == "alternative":
                pass  # "If ..., the answer is 84.7": still the condition's answer
            elif kind == "open":
                stack.append((state, m.end()))
            elif kind == "close":
                if stack:
                    state = stack.pop()[0]
            elif kind == "comma":
                if state == "negated":
                    state = "assert"
            elif kind == "comma_or":
                state = "alternative"
            elif kind == "or":
                if state in ("assert", "alternative"):
                    state = "alternative"
            else:
                state = kind  # type: ignore[assignment]
            out._ends.append(m.end())
            out._modes.append("reason" if state == "condition" else state)  # type: ignore[arg-type]
            out._depths.append(len(stack))
            out._opened.append(stack[-1][1] if stack else -1)
        return out

    def mode(self, start: int, end: int | None = None) -> Mode:
        """The mode of the mention at [start, end): what it is said to be after it wins over the clause it sits in."""
        if end is not None:
            after = self.text[end:end + 60]
            if _POST_NEGATED.match(after):
                return "negated"
            if POST_ALTERNATIVE.match(after):
                return "alternative"
        i = bisect.bisect_right(self._ends, start) - 1
        if end is not None and i >= 0 and self._depths[i] > 0 and _POST_STATEMENT.match(self.text[end:end + 30]):
            return "reason"
        if (end is not None and i >= 0 and self._depths[i] > 0 and self._modes[i] == "assert"
                and _POST_LABELLED.match(self.text[end:end + 30])):
            return "reason"
        return self._modes[i] if i >= 0 else "assert"

    def aside(self, start: int) -> str | None:
        """The words of the parenthesis a position sits in, up to that position (None outside parentheses)."""
        i = bisect.bisect_right(self._ends, start) - 1
        if i < 0 or self._opened[i] < 0:
            return None
        return self.text[self._opened[i]:start]

    def alternative_cues(self) -> list[Cue]:
        """The cues that open an alternative ("or", "maybe", "unless", "/", "vs."), in order."""
        return [c for c in self.cues if c.kind in ("alternative", "comma_or") or (c.kind == "or" and self.mode(c.start) != "negated"
                                                                                  and self.mode(c.start) != "reason")]

    def clause_after(self, cue: Cue) -> str:
        """The words a cue governs: up to the next boundary, parenthesis or cue that changes the mode."""
        stop = len(self.text)
        for c in self.cues:
            if c.start >= cue.end and c.kind in ("boundary", "close", "negated", "reason", "alternative", "assert",
                                                  "comma_or", "or"):
                stop = c.start
                break
        return self.text[cue.end:stop]


def sentences(text: str, semicolons: bool = True) -> list[str]:
    """The sentences of a text, one line at a time (a period ends one only before a capital or the end; a
    semicolon ends one too unless `semicolons` is False, as in a list of set items)."""
    out: list[str] = []
    end = _SENTENCE_OR_SEMICOLON_END if semicolons else _SENTENCE_END
    for line in text.splitlines():
        start = 0
        for m in end.finditer(line):
            piece = line[start:m.end()].strip()
            if piece:
                out.append(piece)
            start = m.end()
        rest = line[start:].strip()
        if rest:
            out.append(rest)
    return out


# A name as a reader spots it: a capital inside the word or a digit ("BresaParse", "GPT-2"), or a capitalised
# word that does not start its clause.
_NAME = re.compile(r"[A-Za-z][\w\-]*")
_COMMON = {"i", "it", "its", "the", "a", "an", "this", "that", "these", "those", "both", "all", "only", "also", "be",
           "is", "are", "or", "and", "if", "question", "answer", "final", "note"}


def has_name(text: str, exclude: set[str] | None = None) -> bool:
    """Whether a clause names something: a word with an inner capital or a digit, or a capitalised word not
    at its start ("maybe SolbelParse" yes; "possibly the first neural parser" no). `exclude`: lower-case names
    that do not count (the gold, the items already answered)."""
    exclude = exclude or set()
    words = _NAME.findall(text)
    for i, w in enumerate(words):
        low = w.lower()
        if low in exclude or low in _COMMON:
            continue
        if any(c.isupper() for c in w[1:]) or any(c.isdigit() for c in w) or (i > 0 and w[0].isupper()):
            return True
        if i == 0 and w[0].isupper() and len(words) == 1:
            return True
    return False


def commit_split(text: str, rest: str, source: str, has_candidate: Callable[[str], bool]) -> tuple[str, str]:
    """(the sentence an answer commits to, the rest of its span). After a marker the first sentence that
    holds a candidate commits and the sentences after it join the rest (read only for alternatives); a
    boxed value or an answer without a marker is read whole."""
    if source not in ("final_line", "answer_phrase"):
        return text, rest
    parts = sentences(text)
    for i, part in enumerate(parts):
        if has_candidate(part):
            return part, "\n".join([*parts[i + 1:], *([rest] if rest else [])])
    return text, rest


_BARE_WORDS = re.compile(r"\b(?:or|and/or|maybe|possibly|perhaps|alternatively|either|else|option|choice|answer)\b", re.I)


def is_bare(segment: str, spans: list[tuple[int, int]]) -> bool:
    """A line that holds nothing but its mentions and hedge words ("79.1", "or 84.7", "(C)"): a second answer."""
    out, last = [], 0
    for a, b in sorted(spans):
        out.append(segment[last:a])
        last = max(last, b)
    out.append(segment[last:])
    left = _BARE_WORDS.sub(" ", "".join(out))
    left = re.sub(r"%|\b(?:percent|pp|points?)\b", " ", left, flags=re.I)
    return not re.search(r"\w", left)
