"""The names a report's claims are about, read from the episode's unit facts: methods, datasets, quantities
(metrics and table columns, each with whether higher is better) and swept settings, with the ways reports
write them ("ImageNet-1K" for "ImageNet-1K (linear)", "parameters" for "Params (M)", "50k iterations" for
"training iterations (k)"). The extractor finds mentions with it; it never decides what is true."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.episode import PaperFacts, UnitFacts

# Words reports use for the efficiency columns and common metrics (domain vocabulary, not sentence templates).
QUANTITY_WORDS: dict[str, list[str]] = {
    "params": ["parameters", "parameter count", "params", "param"],
    "gflops": ["gflops", "gflop", "flops"],
    "throughput": ["throughput", "images per second", "images/s", "images / s", "img/s", "images/sec", "imgs/s"],
    "top-1": ["top-1 accuracy", "top-1"],
    "accuracy": ["accuracy"],
    "miou": ["miou"],
    "ap": ["box ap", "ap"],
    "fid": ["fid"],
}
# Superlatives that imply their quantity when the sentence names none.
IMPLIED_QUANTITY = {"lightest": "params", "heaviest": "params", "fastest": "throughput", "slowest": "throughput",
                    "cheapest": "gflops"}
_PAREN = re.compile(r"\s*\([^()]*\)\s*$")
_SUFFIX = re.compile(r"\s*\((?:ours|full)\)\s*$", re.I)


def norm_name(s: str) -> str:
    """A method or dataset name compared loosely: case, '(ours)', possessive, dashes and spaces ignored."""
    s = _SUFFIX.sub("", s.strip())
    s = re.sub(r"['’]s$", "", s)
    return re.sub(r"[\s\-_]+", "", s.lower())


def quantity_family(name: str) -> str | None:
    low = name.lower()
    for fam in ("params", "gflops", "throughput", "fid", "miou"):
        if any(w in low for w in QUANTITY_WORDS[fam]):
            return fam
    if "top-1" in low:
        return "top-1"
    if "ap" in low.split():
        return "ap"
    if "accuracy" in low:
        return "accuracy"
    return None


def quantity_aliases(name: str) -> list[str]:
    """The canonical name, its name without a unit in brackets, and the family's words."""
    base = _PAREN.sub("", name).strip()
    out = [name, base]
    fam = quantity_family(name)
    if fam:
        out += QUANTITY_WORDS[fam]
        if fam == "top-1" and "linear" in base.lower():
            out += ["linear top-1", "linear-probe top-1"]
    return list(dict.fromkeys(a.lower() for a in out if a))


def setting_keywords(x_label: str) -> list[str]:
    """Words that mark a number as a setting on `x_label`: 'pretraining epochs' -> pretraining epochs, epochs."""
    base = _PAREN.sub("", x_label).strip().lower()
    words = base.split()
    out = [base]
    if base.startswith("number of "):
        out.append(base.removeprefix("number of "))
    if len(words) > 1:
        out.append(words[-1])
    if base.endswith("s"):
        out += [k[:-1] for k in list(out) if k.endswith("s")]
    if "label" in base or "labelled" in base:
        out += ["labels", "labelled", "labeled", "label rate", "labelled fraction", "labeled fraction"]
    if "resolution" in base:
        out += ["px", "pixels", "resolution"]
    return list(dict.fromkeys(out))


@dataclass
class Lexicon:
    methods: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    quantities: dict[str, bool] = field(default_factory=dict)  # canonical name -> higher is better
    settings: list[str] = field(default_factory=list)  # x labels

    def add_method(self, name: str) -> None:
        name = _SUFFIX.sub("", name).strip()
        if name and name.lower() != "ours" and norm_name(name) not in {norm_name(m) for m in self.methods}:
            self.methods.append(name)

    @property
    def result_direction(self) -> bool | None:
        """Whether higher is better for the result metrics (not the efficiency columns), when they agree."""
        dirs = {hb for q, hb in self.quantities.items() if quantity_family(q) not in ("params", "gflops", "throughput")}
        return dirs.pop() if len(dirs) == 1 else None


def lexicon_from_facts(facts: list[UnitFacts], papers: list[PaperFacts] = ()) -> Lexicon:  # type: ignore[assignment]
    lex = Lexicon()
    for p in papers:
        lex.add_method(p.method)
    for u in facts:
        if u.kind == "table":
            for row in u.rows:
                if row:
                    lex.add_method(row[0])
            for col in u.columns[1:]:
                if quantity_family(col) in ("params", "gflops", "throughput"):
                    lex.quantities.setdefault(col, col not in u.lower_is_better)
                elif col not in lex.datasets and u.metric:
                    lex.datasets.append(col)
        else:
            for s in u.series:
                lex.add_method(s.method or s.label)
                if u.kind == "bar":
                    for x in s.x:
                        if isinstance(x, str) and x not in lex.datasets:
                            lex.datasets.append(x)
            if u.dataset and u.dataset not in lex.datasets:
                lex.datasets.append(u.dataset)
            if u.kind == "line" and u.x_label and u.x_label not in lex.settings:
                lex.settings.append(u.x_label)
        if u.metric:
            lex.quantities.setdefault(u.metric, u.higher_is_better)
    return lex
