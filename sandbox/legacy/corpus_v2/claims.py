"""Claim sentences of corpus v2 and the check that each one holds in the paper's own tables and figures.

The writer states results only through the templates below; the checker parses every sentence of a
paper back (independently of how it was written), evaluates it against the printed tables and the
plotted values, and the build fails on a false claim. A sentence that names a method, a table or a
figure and makes a comparison no template covers is refused too, so no unchecked claim can slip in.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from sandbox.corpus.model import FigureGT, PaperGT, TableGT

BEST = "On {ds}, {m} obtains the best {metric} among all compared methods."
GAIN = "{m} improves over the strongest baseline, {b}, by {gap:.2f} points on {ds}."
STRONGER = "{b} is stronger than {m} on {ds}."
CURVES = "All curves of Figure {n} {verb} as {phrase} grows."
DEEPER = "The baselines of Figure {n} degrade as the network gets deeper."
SHIFT = "Every method in Figure {n} scores {word} than in Table 1 on the same dataset."
ABLATION = "Removing the {comp} causes the largest drop on {ds}."
SMALLEST = "{b} has the fewest parameters among the compared methods."

_COMPARATIVE = re.compile(r"\b(best|outperform\w*|stronger|weaker|improves? over|beats?|surpass\w*|largest|smallest|"
                          r"fewest|degrade\w*|higher than|lower than|better than|worse than)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


class ClaimError(ValueError):
    """A claim sentence that is false, or a comparison no claim template can check."""


def _and_list(text: str) -> list[str]:
    parts = re.split(r", and |, | and ", text)
    return [x.strip() for x in parts if x.strip()]


def _main(p: PaperGT) -> TableGT:
    return next(t for t in p.tables if t.role == "main" or t.n == 1)


def _row(t: TableGT, m: str) -> list[str] | None:
    return next((r for r in t.rows if r[0] in (m, f"{m} (ours)")), None)


def _col(t: TableGT, ds: str) -> dict[str, float]:
    c = t.columns.index(ds)
    return {r[0].removesuffix(" (ours)"): float(r[c]) for r in t.rows}


def _ranked(t: TableGT, ds: str) -> list[str]:
    vals = _col(t, ds)
    return sorted(vals, key=lambda k: -vals[k] if t.higher_is_better else vals[k])


def _figure(p: PaperGT, n: str) -> FigureGT:
    return next(f for f in p.figures if f.n == int(n))


def _check_best(p: PaperGT, g: dict[str, str]) -> bool:
    t = _main(p)
    return all(_ranked(t, ds)[0] == g["m"] for ds in _and_list(g["ds"])) and g["metric"] == t.metric


def _check_gain(p: PaperGT, g: dict[str, str]) -> bool:
    t = _main(p)
    ranked = _ranked(t, g["ds"])
    vals = _col(t, g["ds"])
    return ranked[:2] == [g["m"], g["b"]] and f"{abs(vals[g['m']] - vals[g['b']]):.2f}" == g["gap"]


def _check_stronger(p: PaperGT, g: dict[str, str]) -> bool:
    t = _main(p)
    vals = _col(t, g["ds"])
    a, b = vals[g["b"]], vals[g["m"]]
    return a > b if t.higher_is_better else a < b


def _monotone(ys: list[float], rising: bool) -> bool:
    return all((b > a) if rising else (b < a) for a, b in zip(ys, ys[1:]))


def _check_curves(p: PaperGT, g: dict[str, str]) -> bool:
    f = _figure(p, g["n"])
    return f.kind == "line" and all(_monotone(s.y, g["verb"] == "rise") for s in f.series)


def _check_deeper(p: PaperGT, g: dict[str, str]) -> bool:
    f = _figure(p, g["n"])
    higher = _main(p).higher_is_better
    return f.kind == "line" and all(_monotone(s.y, not higher) for s in f.series if s.label != "Ours")


def _check_shift(p: PaperGT, g: dict[str, str]) -> bool:
    f, t = _figure(p, g["n"]), _main(p)
    lower = g["word"] == "lower"
    for s in f.series:
        for ds, y in zip(s.x, s.y):
            ref = _col(t, str(ds))[s.method or s.label]
            if (y >= ref) if lower else (y <= ref):
                return False
    return f.kind == "bar"


def _check_ablation(p: PaperGT, g: dict[str, str]) -> bool:
    t = next(t for t in p.tables if t.role == "ablation")
    vals = {r[0]: float(r[t.columns.index(g["ds"])]) for r in t.rows[1:]}
    worst = min(vals, key=vals.get) if t.higher_is_better else max(vals, key=vals.get)
    return worst == f"w/o {g['comp']}"


def _check_smallest(p: PaperGT, g: dict[str, str]) -> bool:
    t = next(t for t in p.tables if t.role == "efficiency")
    params = {r[0].removesuffix(" (ours)"): float(r[1]) for r in t.rows}
    return min(params, key=params.get) == g["b"]


def _pattern(template: str) -> re.Pattern[str]:
    groups = {"ds": r"(?P<ds>[^.]+?)", "m": r"(?P<m>[^\s,]+)", "metric": r"(?P<metric>.+?)", "b": r"(?P<b>.+?)",
              "gap": r"(?P<gap>\d+\.\d\d)", "n": r"(?P<n>\d+)", "verb": r"(?P<verb>rise|fall)", "phrase": r".+?",
              "word": r"(?P<word>lower|higher)", "comp": r"(?P<comp>.+?)"}
    out, pos = "", 0
    for m in re.finditer(r"\{(\w+)(?::[^}]*)?\}", template):
        out += re.escape(template[pos:m.start()]) + groups[m.group(1)]
        pos = m.end()
    return re.compile(out + re.escape(template[pos:]) + "$")


CHECKS: list[tuple[re.Pattern[str], Callable[[PaperGT, dict[str, str]], bool]]] = [
    (_pattern(GAIN), _check_gain), (_pattern(BEST), _check_best), (_pattern(STRONGER), _check_stronger),
    (_pattern(CURVES), _check_curves), (_pattern(DEEPER), _check_deeper), (_pattern(SHIFT), _check_shift),
    (_pattern(ABLATION), _check_ablation), (_pattern(SMALLEST), _check_smallest),
]


def sentences(p: PaperGT) -> list[str]:
    texts = [p.abstract] + [para for s in p.sections for para in s.paragraphs]
    return [s.strip() for t in texts for s in _SENTENCE.split(t) if s.strip()]


def check_claims(p: PaperGT) -> int:
    """Check every claim sentence of a paper; return how many were checked, raise ClaimError on a bad one."""
    names = {p.method} | {r[0].removesuffix(" (ours)") for t in p.tables for r in t.rows}
    checked = 0
    for s in sentences(p):
        for pat, check in CHECKS:
            m = pat.match(s)
            if m is not None:
                try:
                    ok = check(p, m.groupdict())
                except (StopIteration, KeyError, ValueError, IndexError):
                    ok = False
                if not ok:
                    raise ClaimError(f"{p.id}: false claim: {s!r}")
                checked += 1
                break
        else:
            if _COMPARATIVE.search(s) and (any(n in s for n in names) or re.search(r"\b(Figure|Table) \d", s)):
                raise ClaimError(f"{p.id}: a comparison no claim template can check: {s!r}")
    return checked
