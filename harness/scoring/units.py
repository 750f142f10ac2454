"""Units after a number: percent, magnitude words (k, million), or a physical unit read by `pint`.

A word after a number is a unit only when it names one: "77.23 ms" has a unit, "11631 extractions" and
"400 epochs" do not (counted nouns), and English words that pint happens to know ("in" inch, "at"
atmosphere, "a" year) are never units here. Percentage points are percent for matching.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Kind = Literal["percent", "magnitude", "physical", "label"]

PERCENT_WORDS = {"%", "percent", "per cent", "pct", "pp", "p.p.", "percentage point", "percentage points",
                 "percent points", "points", "point", "pts", "pt", "％"}
MAGNITUDES = {"k": 1e3, "K": 1e3, "thousand": 1e3, "M": 1e6, "m": 1e6, "mn": 1e6, "mil": 1e6, "million": 1e6,
              "millions": 1e6, "B": 1e9, "b": 1e9, "bn": 1e9, "billion": 1e9, "billions": 1e9, "T": 1e12,
              "trillion": 1e12}
GLUED_MAGNITUDES = {"k", "K", "M", "B", "bn", "T"}  # "11.6k", "7B": only glued, a spaced "7 M" is not a magnitude
# Words pint parses that, after a number in an answer, are English or ML shorthand, never units.
NOT_UNITS = {"a", "an", "at", "in", "are", "as", "b", "t", "l", "d", "cd", "mil", "pi", "count", "ha", "bar", "fps",
             "pt", "x", "e", "c", "ft", "it", "g", "k", "K", "M", "B", "point", "points", "dozen", "gross", "u",
             "m", "h", "s", "p", "P", "G", "F", "T", "C", "A", "V", "W", "N", "R", "Bq", "rad", "sr", "mol",
             "percent", "degree", "deg", "one", "turn", "cycle", "bit", "baud", "year", "years", "mile", "inch",
             "foot", "feet", "yard", "ton", "tons", "pound", "pounds", "stone", "acre", "grain", "carat", "px", "pixel",
             "pixels", "shot", "shots", "dot", "dots", "pica", "line", "lines", "step", "steps", "run", "runs"}
# Short physical units that are unambiguous after a number in an ML paper (pint reads them).
SHORT_UNITS = {"ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "ns", "us", "µs", "μs", "GB", "MB", "KB",
               "kB", "TB", "GiB", "MiB", "KiB", "TiB", "Hz", "kHz", "MHz", "GHz", "kW", "kWh", "m", "cm", "mm", "km",
               "kg", "mg", "dB", "°C", "K", "W"}
# Root units of the quantities papers in this field report: time, information, frequency, power, energy,
# length, mass, temperature, angle, and dimensionless ratios (dB, ppm).
PAPER_DIMENSIONS = {"second", "bit", "1 / second", "kilogram * meter ** 2 / second ** 3", "kilogram * meter ** 2 / second ** 2",
                    "meter", "kilogram", "kelvin", "radian", "dimensionless"}
_WORD = re.compile(r"^[A-Za-zµμ°%][A-Za-z0-9µμ°/\-.]*$")


@dataclass(frozen=True)
class UnitInfo:
    """What a unit word means: its kind, its scale to the kind's root unit, and how it was written."""

    kind: Kind
    factor: float = 1.0
    root: str = ""
    text: str = ""

    def compatible(self, other: "UnitInfo") -> bool:
        if self.kind != other.kind:
            return False
        if self.kind == "physical":
            return self.root == other.root
        if self.kind == "label":
            return self.text.lower() == other.text.lower()
        return True


_registry_lock = threading.Lock()  # a run may warm the registry in a background thread (harness.preload)


@lru_cache(maxsize=1)
def _make_registry():  # noqa: ANN202 - a pint.UnitRegistry
    import pint

    try:
        return pint.UnitRegistry(cache_folder=":auto:")  # parsed definitions cached on disk: faster next time
    except OSError:  # no writable cache folder: parse the definitions each time
        return pint.UnitRegistry()


def _registry():  # noqa: ANN202 - a pint.UnitRegistry (imported lazily: loading it takes a moment)
    with _registry_lock:  # built once even when two threads ask first
        return _make_registry()


def preload_units() -> None:
    """Import pint and build its registry now (~0.25 s) rather than at the first unit word scored."""
    _registry()


@lru_cache(maxsize=2048)
def _physical(word: str) -> UnitInfo | None:
    if not _WORD.match(word):
        return None
    try:
        import pint

        ureg = _registry()
        factor, root = ureg.get_root_units(ureg.parse_units(word))
    except (pint.errors.PintError, ValueError, AttributeError, TypeError, KeyError, SyntaxError):
        return None
    if str(root) not in PAPER_DIMENSIONS:
        return None  # pint knows "shot" (a volume) and "barn" (an area); answers about papers do not
    return UnitInfo("physical", float(factor), str(root), word)


def read_unit(word: str, *, glued: bool) -> UnitInfo | None:
    """The unit a word after a number names, or None for a counted noun or ordinary word.

    `glued`: the word touches the number ("77ms", "11.6k"); only glued single letters are magnitudes.
    """
    w = word.strip()
    if not w:
        return None
    low = w.lower()
    if w in PERCENT_WORDS or low in PERCENT_WORDS:
        return UnitInfo("percent", 1.0, "percent", w)
    if w in MAGNITUDES and (glued or len(w) > 2):
        if glued or w not in GLUED_MAGNITUDES:
            return UnitInfo("magnitude", MAGNITUDES[w], "", w)
    if w in SHORT_UNITS:
        return _physical(w)
    if w in NOT_UNITS or low in NOT_UNITS or len(w) < 2:
        return None
    return _physical(w)


def gold_unit(text: str | None) -> UnitInfo | None:
    """The unit named in an episode's `unit` field: percent, a magnitude, a physical unit, or a plain label."""
    if text is None or not text.strip():
        return None
    t = text.strip()
    if t in PERCENT_WORDS or t.lower() in PERCENT_WORDS:
        return UnitInfo("percent", 1.0, "percent", t)
    if t in MAGNITUDES and len(t) > 0:
        return UnitInfo("magnitude", MAGNITUDES[t], "", t)
    phys = _physical(t)
    return phys or UnitInfo("label", 1.0, "", t)
