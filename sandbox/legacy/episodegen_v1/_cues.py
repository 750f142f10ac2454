"""Seed cues that point at exactly one paper: a title, a citation cue, an indirect hint, a citation link.

Each cue records the metadata fields it states; a cue is only used if exactly one paper among its
candidates (the whole corpus, or the papers linked to an earlier one) matches all of those fields.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ._facts import CorpusFacts

FieldValue = str | int | tuple[str, ...]


@dataclass(frozen=True)
class PaperCue:
    """A cue text, the paper it designates and the fields (name -> value) it states about that paper."""

    text: str
    target: str
    fields: tuple[tuple[str, FieldValue], ...]
    candidates: tuple[str, ...]
    query: str = ""
    image: str | None = None

    @property
    def search_query(self) -> str:
        """What the minimal checklist searches for: the cue itself, or the title once a citation names it."""
        return self.query or self.text


def technique(cf: CorpusFacts, pid: str) -> str | None:
    """What the method is built on, from a title like 'ZarNet: Sparse Window Attention for X' (lower-cased)."""
    title = cf.papers[pid].title
    if ":" not in title:
        return None
    desc = title.split(":", 1)[1].strip()
    desc = re.split(r"\s+(?:for|in|on|with|towards|via)\s+", desc, maxsplit=1)[0].strip()
    return desc.lower() if desc and cf.papers[pid].method.lower() not in desc.lower() else None


def field_value(cf: CorpusFacts, pid: str, name: str) -> FieldValue | None:
    p = cf.papers[pid]
    values: dict[str, FieldValue | None] = {
        "title": " ".join(p.title.lower().split()),
        "surname": cf.surname(pid),
        "venue": p.venue,
        "year": p.year,
        "task": p.task,
        "method": p.method,
        "technique": technique(cf, pid),
        "datasets": tuple(p.datasets[:2]),
    }
    return values[name]


def matches(cf: CorpusFacts, pid: str, fields: tuple[tuple[str, FieldValue], ...]) -> bool:
    """Does paper `pid` fit every stated field? Datasets match if the paper uses all those named."""
    for name, want in fields:
        if name == "datasets":
            if not set(want) <= set(cf.papers[pid].datasets):  # type: ignore[arg-type]
                return False
        elif field_value(cf, pid, name) != want:
            return False
    return True


def matching_papers(cf: CorpusFacts, cue: PaperCue) -> list[str]:
    return [c for c in cue.candidates if matches(cf, c, cue.fields)]


def _first_unique(cf: CorpusFacts, pid: str, candidates: list[str],
                  variants: list[tuple[tuple[str, ...], str]]) -> PaperCue | None:
    """The first variant (fields stated, text template) whose fields single out `pid` among candidates."""
    for names, template in variants:
        vals = {n: field_value(cf, pid, n) for n in names}
        if any(v in (None, "", ()) for v in vals.values()):
            continue
        fields = tuple((n, vals[n]) for n in names)
        cue = PaperCue("", pid, fields, tuple(candidates))  # type: ignore[arg-type]
        if matching_papers(cf, cue) == [pid]:
            p = cf.papers[pid]
            ds = p.datasets[:2]
            text = template.format(
                title=p.title, surname=cf.surname(pid), venue=p.venue, year=p.year, task=p.task,
                method=p.method, technique=vals.get("technique") or "", datasets=" and ".join(ds),
            )
            return PaperCue(text, pid, fields, tuple(candidates))  # type: ignore[arg-type]
    return None


def title_cue(cf: CorpusFacts, pid: str) -> PaperCue | None:
    return _first_unique(cf, pid, cf.ids, [(("title",), 'The paper titled "{title}".')])


def citation_cue(cf: CorpusFacts, pid: str) -> PaperCue | None:
    """Author surname + venue and year + what the paper introduced."""
    return _first_unique(cf, pid, cf.ids, [
        (("surname", "venue", "year", "task"), "{surname} et al. ({venue} {year}), the paper that introduced a new method for {task}."),
        (("surname", "venue", "year", "task", "method"), "{surname} et al. ({venue} {year}), the paper that introduced {method} for {task}."),
    ])


def hint_cue(cf: CorpusFacts, pid: str, rng: random.Random) -> PaperCue | None:
    """Method, task and datasets described without any identifier (no title, author, venue or name)."""
    variants = [
        (("technique", "task", "datasets"), "A method based on {technique} for {task}, evaluated on {datasets}."),
        (("task", "datasets"), "A paper proposing a new {task} method that reports results on {datasets}."),
        (("technique", "task"), "A {task} method whose key idea is {technique}."),
    ]
    rng.shuffle(variants)
    variants.append((("technique", "task", "datasets", "year"),
                     "A {year} method based on {technique} for {task}, evaluated on {datasets}."))
    variants.append((("task", "datasets", "year"), "A {year} paper proposing a new {task} method with results on {datasets}."))
    return _first_unique(cf, pid, cf.ids, variants)


def initiation_cue(cf: CorpusFacts, pid: str, initiation: str, rng: random.Random) -> PaperCue | None:
    if initiation == "direct_title":
        return title_cue(cf, pid)
    if initiation == "citation":
        return citation_cue(cf, pid)
    return hint_cue(cf, pid, rng)


def link_cue(cf: CorpusFacts, src: str, src_turn: int, dst: str, rng: random.Random) -> PaperCue | None:
    """A cue reaching `dst` through the citation link with `src` (the paper found in turn `src_turn`)."""
    ref = f"the paper from turn {src_turn}"
    if dst in cf.cites[src]:
        variants = [
            (("method",), f"Among the papers that {ref} cites: the one that introduced {{method}}."),
            (("surname", "year"), f"Among the papers that {ref} cites: the one by {{surname}} et al. ({{year}})."),
            (("task", "year"), f"Among the papers that {ref} cites: the {{year}} paper on {{task}}."),
        ]
        candidates = cf.cites[src]
    elif dst in cf.cited_by[src]:
        variants = [
            (("surname", "year"), f"A paper that cites {ref}: the one by {{surname}} et al. ({{year}})."),
            (("method",), f"A paper that cites {ref}: the one that introduced {{method}}."),
            (("venue", "year"), f"A paper that cites {ref}: the one published at {{venue}} {{year}}."),
        ]
        candidates = cf.cited_by[src]
    else:
        return None
    rng.shuffle(variants)
    cue = _first_unique(cf, dst, candidates, variants)
    # Following a citation link, a researcher searches the cited (or citing) paper's title.
    return PaperCue(cue.text, dst, cue.fields, cue.candidates, query=cf.papers[dst].title) if cue else None
