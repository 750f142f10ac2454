"""From a raw answer to the part a grader reads: reasoning stripped, the span after the last answer marker found.

A careful grader skips the model's thinking and everything before the last `Final answer:`, reads the line
it committed to, reads the lines after it for an alternative offered there (`Final answer: 77.2\nor 84.7`
hedges), and ignores markdown and LaTeX dressing. `extract_answer` does exactly that and nothing
format-specific: `text` is the committed part, `rest` the rest of the span; the per-format rules (numbers,
choice letters, sets, text) live in `match.py`, `match_set.py` and `numbers.py`.
"""
from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from typing import Literal

MAX_ANSWER_CHARS = 50_000  # after reasoning is stripped; longer is not an answer a grader would read
Source = Literal["final_line", "boxed", "answer_phrase", "whole"]

_REASONING_BLOCK = re.compile(
    r"<(think|thinking|reasoning|reflection|scratchpad|analysis)\b[^>]*>.*?</\1\s*>|◁think▷.*?◁/think▷", re.I | re.S)
_REASONING_OPEN = re.compile(r"<(?:think|thinking|reasoning|reflection|scratchpad)\b[^>]*>|◁think▷", re.I)
_REASONING_CLOSE = re.compile(r"</(?:think|thinking|reasoning|reflection|scratchpad)\s*>|◁/think▷", re.I)
_HARMONY_FINAL = re.compile(r"<\|channel\|>\s*final\s*<\|message\|>", re.I)
_HARMONY_TAGS = re.compile(r"<\|[a-z_]+\|>", re.I)

# "Final answer:", "**Final Answer**:", "FINAL ANSWER -", "The final answer is"; the last one wins.
_FINAL_MARKER = re.compile(r"(?:the\s+)?final\s+answer\s*(?:is\b\s*:?|[:：=\-–—]|\n)", re.I)
# "Answer: X" at a line start, or "the answer is X" anywhere: weaker, used when no final-answer marker.
_ANSWER_MARKER = re.compile(r"(?:^|\n)[ \t>#]*answer\s*[:：]|\bthe\s+(?:correct\s+)?answer\s+is\b\s*:?", re.I)
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")

_LATEX_WRAPPERS = re.compile(r"\\(?:text|textbf|textit|mathrm|mathbf|mathit|operatorname|emph|texttt)\s*\{([^{}]*)\}")
_LATEX_SYMBOLS = {
    r"\%": "%", r"\times": "×", r"\cdot": "·", r"\approx": "≈", r"\pm": "±", r"\sim": "~", r"\leq": "≤",
    r"\geq": "≥", r"\le": "≤", r"\ge": "≥", r"\to": "→", r"\rightarrow": "→", r"\degree": "°", r"\circ": "°",
    r"\left": "", r"\right": "", r"\displaystyle": "", r"\quad": " ", r"\qquad": " ",
}
_LATEX_SPACE_BETWEEN_DIGITS = re.compile(r"(?<=\d)\\[,;: ](?=\d{3})")
_LATEX_SPACES = re.compile(r"\\[,;:! ]")
_THIN_SPACE_THOUSANDS = re.compile(r"(?<=\d)[\u00a0\u2009\u202f\u2007](?=\d{3}(?!\d))")
_TIMES_TEN = re.compile(r"(\d(?:\.\d+)?)\s*(?:×|x|\*|\\times)\s*10\s*(?:\^\s*\{?\s*([-+−]?\d+)\s*\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_MARKDOWN_EMPHASIS = re.compile(r"\*\*|__|~~|`+")
_SINGLE_STAR = re.compile(r"(?<![\s*])\*(?=[\s.,;:!?)]|$)|(?:(?<=[\s(])|^)\*(?=[^\s*])", re.M)
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]*", re.M)
_QUOTE_PREFIX = re.compile(r"^[ \t]*>(?![ \t]*[\d.=])[ \t]?", re.M)  # a blockquote, not "> 77"


@dataclass(frozen=True)
class ExtractedAnswer:
    """The part of an answer to grade, where it came from, and why there is none (problem) if so.

    `text` is what the answer commits to (the marker's line, or the block under a bare marker); `rest` is
    the rest of the span after the marker, read only for alternatives it offers (empty without a marker)."""

    text: str
    source: Source
    problem: str | None = None
    rest: str = ""

    @property
    def ok(self) -> bool:
        return self.problem is None and bool(self.text.strip())


def strip_reasoning(s: str) -> str:
    """Drop `<think>…</think>` style blocks; text before a lone closing tag, or after a lone opening one, is thinking too."""
    m = _HARMONY_FINAL.search(s)
    if m:
        s = s[m.end():]
    s = _REASONING_BLOCK.sub("\n", s)
    closes = list(_REASONING_CLOSE.finditer(s))
    if closes:
        s = s[closes[-1].end():]
    opened = _REASONING_OPEN.search(s)
    if opened:
        s = s[: opened.start()]
    return _HARMONY_TAGS.sub(" ", s)


def _looks_binary(s: str) -> bool:
    if "\x00" in s:
        return True
    sample = s[:4000]
    bad = sum(1 for c in sample if (unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") and c not in "\n\r\t") or c == "\ufffd")
    return bad > max(3, len(sample) // 20)


def unbox(s: str) -> str | None:
    """The content of the last `\\boxed{...}` (braces balanced), or None."""
    found = None
    for m in _BOXED.finditer(s):
        depth, i = 1, m.end()
        while i < len(s) and depth:
            depth += {"{": 1, "}": -1}.get(s[i], 0)
            i += 1
        if depth == 0:
            found = s[m.end(): i - 1]
    return found


def clean_markup(s: str) -> str:
    """Markdown emphasis, LaTeX dressing and unicode variants removed; numbers left as a reader sees them."""
    s = _THIN_SPACE_THOUSANDS.sub("", s)
    s = _TIMES_TEN.sub(lambda m: f"{m.group(1)}e{(m.group(2) or m.group(3)).translate(_SUPERSCRIPTS).replace('−', '-')}", s)
    s = _unwrap_boxes(s)
    for _ in range(3):
        s = _LATEX_WRAPPERS.sub(r"\1", s)
    s = _LATEX_SPACE_BETWEEN_DIGITS.sub("", s)
    for k in sorted(_LATEX_SYMBOLS, key=len, reverse=True):
        s = s.replace(k, _LATEX_SYMBOLS[k])
    s = _LATEX_SPACES.sub(" ", s)
    s = s.replace("\\(", " ").replace("\\)", " ").replace("\\[", " ").replace("\\]", " ").replace("$", " ")
    s = s.replace("\u2212", "-").replace("\ufe63", "-").replace("\uff0d", "-")
    s = unicodedata.normalize("NFKC", s)
    s = _MARKDOWN_EMPHASIS.sub("", s)
    s = _SINGLE_STAR.sub("", s)
    s = _HEADING.sub("", s)
    s = _QUOTE_PREFIX.sub("", s)
    return s


def _unwrap_boxes(s: str) -> str:
    """Replace every `\\boxed{X}` by X (balanced braces)."""
    out, i = [], 0
    for m in list(_BOXED.finditer(s)):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while j < len(s) and depth:
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            j += 1
        if depth:
            break
        out.append(s[i: m.start()])
        out.append(s[m.end(): j - 1])
        i = j
    out.append(s[i:])
    return "".join(out)


def _after_marker(s: str, end: int) -> tuple[str, str]:
    """What follows a marker: (the rest of its line, or the block of lines under it when the line is empty;
    every line after that)."""
    rest = s[end:]
    line, _, below = rest.partition("\n")
    if line.strip(" \t*_:-"):
        return line.strip(), below.strip()
    block: list[str] = []
    lines = below.splitlines()
    i = 0
    for i, ln in enumerate(lines):
        if not ln.strip():
            if block:
                break
            continue
        block.append(ln.strip())
    else:
        i = len(lines)
    return "\n".join(block), "\n".join(lines[i:]).strip()


def extract_answer(raw: str | bytes | None) -> ExtractedAnswer:
    """The text to grade: after the last `Final answer:`, else a `\\boxed{}`, else `Answer:`, else the whole answer."""
    if raw is None:
        return ExtractedAnswer("", "whole", "no answer")
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not raw.strip():
        return ExtractedAnswer("", "whole", "empty answer")
    if _looks_binary(raw):
        return ExtractedAnswer("", "whole", "binary data, not an answer")
    s = strip_reasoning(raw)
    if not s.strip():
        return ExtractedAnswer("", "whole", "only reasoning, no answer after it")
    if len(s) > MAX_ANSWER_CHARS:
        return ExtractedAnswer("", "whole", f"answer of {len(s):,} characters is too long to grade (limit {MAX_ANSWER_CHARS:,})")
    plain = _MARKDOWN_EMPHASIS.sub("", s)
    finals = list(_FINAL_MARKER.finditer(plain))
    if finals:
        text, rest = _after_marker(plain, finals[-1].end())
        return ExtractedAnswer(clean_markup(text).strip(), "final_line", None if text.strip() else "a final-answer marker with no value",
                               rest=clean_markup(rest).strip())
    boxed = unbox(s)
    if boxed is not None and boxed.strip():
        return ExtractedAnswer(clean_markup(boxed).strip(), "boxed")
    answers = list(_ANSWER_MARKER.finditer(plain))
    if answers:
        text, rest = _after_marker(plain, answers[-1].end())
        if text.strip():
            return ExtractedAnswer(clean_markup(text).strip(), "answer_phrase", rest=clean_markup(rest).strip())
    return ExtractedAnswer(clean_markup(s).strip(), "whole")


def last_line(text: str) -> str:
    """The last non-empty line (a conclusion comes last)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def strip_trailing_punct(s: str) -> str:
    return s.strip().rstrip(".!;:,").strip()


_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})


def normalize_text(s: str) -> str:
    """Case, unicode, punctuation, articles and whitespace normalised (SQuAD-style)."""
    s = unicodedata.normalize("NFKC", s).lower().replace("\u2212", "-")
    s = s.translate(_PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())
