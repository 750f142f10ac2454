"""Load an episode file (JSONL) and refuse a malformed one before anything runs.

Every problem found is collected (up to MAX_PROBLEMS) into one EpisodeFileError whose message lists
each as `FILE:LINE: episode 'ID': FIELD: what is wrong`, so a user fixes a file in one pass.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sandbox.corpus.model import Catalog, CatalogEntry
from tools import ALL_TOOLS, exposed_units, get_tool

from .episode import Episode
from .safe_paths import PathOutside, resolve_inside

MAX_PROBLEMS = 20


@functools.lru_cache(maxsize=None)
def tool_parameters(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) parameter names of a registered tool, read from the schema the tool generates
    from its own signature: no copy to drift."""
    schema = get_tool(name).parameters
    required = tuple(schema.get("required", []))
    return required, tuple(p for p in schema.get("properties", {}) if p not in required)
# Tools whose `paper` argument names a corpus paper, and which float number argument they take.
PAPER_TOOLS: dict[str, str | None] = {"pdf_extract": None, "pdf_rag": None, "figure_extract": "figure", "table_extract": "table"}
# Pydantic inserts union-member tags into error locations; they are not field names.
_UNION_TAGS = {"str", "int", "float", "bool", "list", "dict"}


@dataclass(frozen=True)
class EpisodeProblem:
    """One thing wrong with an episode file, located as precisely as we can."""

    file: str
    line: int | None
    episode_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        parts = [where]
        if self.line is not None:
            parts.append(f"episode {self.episode_id!r}" if self.episode_id else "episode ?")
        if self.field:
            parts.append(self.field)
        return ": ".join(parts + [self.message])


class EpisodeFileError(ValueError):
    """An episode file that cannot be used; `problems` lists each mistake with file, line, id and field."""

    def __init__(self, problems: list[EpisodeProblem], more: int = 0):
        self.problems = problems
        self.more = more
        lines = [str(p) for p in problems]
        if more:
            lines.append(f"... and {more} more problem(s) not shown")
        head = f"{len(problems) + more} problem(s) in episode file:" if len(problems) + more > 1 else ""
        super().__init__("\n".join(([head] if head else []) + lines))


class EpisodeSet(BaseModel):
    """A loaded, validated episode file: its path, content hash, episodes and the line of each."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    path: Path
    sha256: str = Field(description="sha256 of the file bytes; runs record it to pin the benchmark version")
    episodes: list[Episode]
    lines: dict[str, int] = Field(default_factory=dict, description="episode id -> 1-based line in the file")

    def get(self, episode_id: str) -> Episode | None:
        for e in self.episodes:
            if e.id == episode_id:
                return e
        return None


class _Collector:
    """Gathers problems, keeping the first MAX_PROBLEMS and counting the rest."""

    def __init__(self, file: str):
        self.file = file
        self.problems: list[EpisodeProblem] = []
        self.more = 0

    def add(self, line: int | None, episode_id: str | None, field: str | None, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(EpisodeProblem(self.file, line, episode_id, field, message))
        else:
            self.more += 1

    def raise_if_any(self) -> None:
        if self.problems:
            raise EpisodeFileError(self.problems, self.more)


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a dotted path: ('turns', 2, 'answer', 'format') -> turns[2].answer.format."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _UNION_TAGS or "[" in part:
            continue
        else:
            out += f".{part}" if out else part
    return out or "(episode)"


def _validation_problems(err: ValidationError) -> list[tuple[str, str]]:
    """(field path, message) pairs, merging the several errors pydantic gives for one union field."""
    merged: dict[str, list[str]] = {}
    for e in err.errors(include_url=False):
        path = field_path(tuple(e["loc"]))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "missing":
            msg = "required field is missing"
        elif e["type"] == "extra_forbidden":
            msg = "unknown field (check the spelling; see episodes/README.md)"
        if msg not in merged.setdefault(path, []):
            merged[path].append(msg)
    return [(p, "; ".join(ms)) for p, ms in merged.items()]


def _read_text(path: Path, out: _Collector) -> str | None:
    if not path.exists():
        out.add(None, None, None, "no such file")
        return None
    if not path.is_file():
        out.add(None, None, None, "not a file (a folder?)")
        return None
    data = path.read_bytes()
    if b"\x00" in data:
        out.add(None, None, None, "not a text file (binary content); an episode file is JSONL text, one episode per line")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        out.add(None, None, None, f"not UTF-8 text (bad byte at offset {e.start}); save the file as UTF-8 JSONL")
        return None
    if not text.strip():
        out.add(None, None, None, "empty file: no episodes (expected one JSON object per line)")
        return None
    return text


def load_episodes(path: Path, *, catalog: Catalog | None = None) -> EpisodeSet:
    """Read and check an episode file; raise EpisodeFileError listing every problem found.

    Checks the schema, unique ids, tool names in checklists, cue image files (relative to the file's
    folder) and, given a catalog, that every paper, figure and table named by evidence or checklist exists.
    """
    path = Path(path)
    out = _Collector(str(path))
    text = _read_text(path, out)
    out.raise_if_any()
    assert text is not None
    episodes: list[Episode] = []
    lines: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj: Any = json.loads(raw)
        except json.JSONDecodeError as e:
            found = re.search(r'"id"\s*:\s*"([^"\\]{1,200})"', raw)  # name the episode even when the line is broken
            out.add(lineno, found.group(1) if found else None, None, f"invalid JSON ({e.msg}, column {e.colno})")
            continue
        if not isinstance(obj, dict):
            out.add(lineno, None, None, f"expected a JSON object (one episode), got a JSON {type(obj).__name__}")
            continue
        ep_id = obj.get("id") if isinstance(obj.get("id"), str) and obj.get("id") else None
        try:
            ep = Episode.model_validate(obj)
        except ValidationError as e:
            for field, msg in _validation_problems(e):
                out.add(lineno, ep_id, field, msg)
            continue
        if ep.id in lines:
            out.add(lineno, ep.id, "id", f"duplicate episode id (first used on line {lines[ep.id]})")
            continue
        lines[ep.id] = lineno
        for field, msg in episode_reference_problems(ep, base_dir=path.parent, catalog=catalog):
            out.add(lineno, ep.id, field, msg)
        for field, msg in annotation_problems(ep):
            out.add(lineno, ep.id, field, msg)
        episodes.append(ep)
    out.raise_if_any()
    return EpisodeSet(path=path, sha256=hashlib.sha256(path.read_bytes()).hexdigest(), episodes=episodes, lines=lines)


def _float_problem(entry: CatalogEntry, unit: str) -> str | None:
    """Why `unit` does not exist in the catalog entry, or None if it does."""
    if unit == "text":
        return None
    kind, n = unit.split(":")
    have = entry.figures if kind == "figure" else entry.tables
    if int(n) in have:
        return None
    listing = ", ".join(str(x) for x in sorted(have)) or "none"
    return f"paper {entry.id} has no {kind} {n} (its {kind}s: {listing})"


def _paper_entry(catalog: Catalog, ref: str, *, allow_title: bool) -> CatalogEntry | None:
    entry = catalog.get(ref)
    if entry is None and allow_title:
        norm = " ".join(ref.lower().split())
        matches = [p for p in catalog.papers if " ".join(p.title.lower().split()) == norm]
        entry = matches[0] if len(matches) == 1 else None
    return entry


def _step_problems(where: str, step: Any, catalog: Catalog | None) -> list[tuple[str, str]]:
    """(field, message) for a checklist step naming an unknown tool, wrong arguments or a missing paper/float."""
    if step.tool not in ALL_TOOLS:
        return [(f"{where}.tool", f"unknown tool {step.tool!r}; known tools: {', '.join(ALL_TOOLS)}")]
    required, optional = tool_parameters(step.tool)
    unknown = [a for a in step.args if a not in required + optional]
    missing = [a for a in required if a not in step.args]
    if unknown or missing:
        what = [f"unknown argument(s) {', '.join(map(repr, unknown))}"] if unknown else []
        what += [f"missing argument(s) {', '.join(map(repr, missing))}"] if missing else []
        return [(f"{where}.args", f"{'; '.join(what)}; {step.tool} takes {', '.join(required + optional)}")]
    if catalog is None or step.tool not in PAPER_TOOLS:
        return []
    ref = step.args.get("paper")
    if not isinstance(ref, str):
        return [(f"{where}.args.paper", f"{step.tool} needs a 'paper' argument (a corpus paper id)")]
    entry = _paper_entry(catalog, ref, allow_title=True)
    if entry is None:
        return [(f"{where}.args.paper", f"no paper {ref!r} in the catalog")]
    float_arg = PAPER_TOOLS[step.tool]
    if float_arg is not None:
        n = step.args.get(float_arg)
        if isinstance(n, bool) or not isinstance(n, int):
            return [(f"{where}.args.{float_arg}", f"{step.tool} needs an integer {float_arg!r} argument")]
        if (why := _float_problem(entry, f"{float_arg}:{n}")) is not None:
            return [(f"{where}.args.{float_arg}", why)]
    return []


CUE_IMAGE_MAX_BYTES = 20 * 1024 * 1024  # what OpenAI-style endpoints accept per image; a cue is a cropped figure
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")  # PNG, JPEG, GIF (WebP below)


def cue_image_bytes_problem(head: bytes, size: int) -> str | None:
    """Why these bytes are not a cue image we send to a model, or None: at most CUE_IMAGE_MAX_BYTES, and a PNG,
    JPEG, GIF or WebP file by its first bytes (an episode file from elsewhere may name anything)."""
    if size > CUE_IMAGE_MAX_BYTES:
        return f"cue image is {size / 2**20:.1f} MiB; the limit is {CUE_IMAGE_MAX_BYTES // 2**20} MiB"
    if not (head.startswith(_IMAGE_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")):
        return "cue image is not a PNG, JPEG, GIF or WebP file (by its first bytes)"
    return None


def cue_image_problem(image: str, base_dir: Path) -> str | None:
    """Why a cue image cannot be used, or None: it must be a file inside the episode file's folder, named by a
    relative path that neither climbs out (`..`) nor leaves through a symlink (the file is sent to the model),
    and an image of bounded size (cue_image_bytes_problem)."""
    try:
        real = resolve_inside(base_dir, image)
    except PathOutside as e:
        return f"cue image {e}: an episode file names only images inside its own folder"
    if not real.is_file():
        return f"image file not found: {base_dir / image}"
    with real.open("rb") as fh:
        head = fh.read(16)
    return cue_image_bytes_problem(head, real.stat().st_size)


def episode_reference_problems(ep: Episode, *, base_dir: Path, catalog: Catalog | None) -> list[tuple[str, str]]:
    """(field, message) for every reference in `ep` that points at nothing: tools, images, papers, floats."""
    problems: list[tuple[str, str]] = []
    for ti, turn in enumerate(ep.turns):
        if turn.cue is not None and turn.cue.image is not None and (why := cue_image_problem(turn.cue.image, base_dir)):
            problems.append((f"turns[{ti}].cue.image", why))
        for ci, step in enumerate(turn.checklist):
            problems += _step_problems(f"turns[{ti}].checklist[{ci}]", step, catalog)
        if catalog is None:
            continue
        for ei, ev in enumerate(turn.evidence):
            entry = _paper_entry(catalog, ev.paper, allow_title=False)
            if entry is None:
                problems.append((f"turns[{ti}].evidence[{ei}].paper", f"no paper {ev.paper!r} in the catalog"))
            elif (why := _float_problem(entry, ev.unit)) is not None:
                problems.append((f"turns[{ti}].evidence[{ei}].unit", why))
    if ep.report is not None:
        problems += report_problems(ep, catalog)
    return problems


def report_problems(ep: Episode, catalog: Catalog | None) -> list[tuple[str, str]]:
    """(field, message) for a report turn whose checklist, facts or persona point at nothing."""
    rep = ep.report
    assert rep is not None
    problems: list[tuple[str, str]] = []
    for ci, step in enumerate(rep.checklist):
        problems += _step_problems(f"report.checklist[{ci}]", step, catalog)
    columns = {c for f in rep.facts for c in f.columns}
    for pi, c in enumerate(rep.persona.constraints if rep.persona else []):
        if c.field not in ("dataset", "year") and c.field not in columns:
            problems.append((f"report.persona.constraints[{pi}].field",
                             f"{c.field!r} is neither 'dataset', 'year' nor a column of a table in report.facts"))
    if catalog is None:
        return problems
    for fi, f in enumerate(rep.facts):
        entry = _paper_entry(catalog, f.paper, allow_title=False)
        if entry is None:
            problems.append((f"report.facts[{fi}].paper", f"no paper {f.paper!r} in the catalog"))
        elif (why := _float_problem(entry, f.unit)) is not None:
            problems.append((f"report.facts[{fi}].unit", why))
    return problems


def annotation_problems(ep: Episode) -> list[tuple[str, str]]:
    """(field, message) for `reads` annotations that point at nothing: a `turn` that is not an earlier
    turn, or a paper/unit missing from the evidence of the turn the value was read in.

    (`Condition.passes` naming a non-candidate is refused by the schema itself.)"""
    problems: list[tuple[str, str]] = []
    for ti, turn in enumerate(ep.turns):
        for ri, read in enumerate(turn.reads):
            where = f"turns[{ti}].reads[{ri}]"
            source = ti
            if read.turn is not None:
                if not 1 <= read.turn <= ti:
                    earlier = f"1..{ti}" if ti else "none (this is turn 1)"
                    problems.append((f"{where}.turn", f"turn {read.turn} is not an earlier turn (turns are 1-based; "
                                                      f"earlier turns here: {earlier})"))
                    continue
                source = read.turn - 1
            have = {ev.key for ev in ep.turns[source].evidence}
            if (read.paper, read.unit) not in have:
                listing = ", ".join(f"{p} {u}" for p, u in sorted(have)) or "none"
                problems.append((f"{where}.unit" if any(p == read.paper for p, _ in have) else f"{where}.paper",
                                 f"{read.paper} {read.unit} is not among the evidence of turn {source + 1} ({listing})"))
    return problems


def checklist_coverage_problems(ep: Episode) -> list[tuple[str, str]]:
    """Evidence a replayed checklist would not reach (so the oracle scores EC = 1): a memory-only turn's
    evidence must come from the checklists of earlier turns, a tool turn's from its own checklist or an
    earlier one (a unit an earlier turn exposed is in memory, and EC credits memory: a minimal checklist
    does not open the same figure twice)."""
    problems: list[tuple[str, str]] = []
    earlier: set[tuple[str, str]] = set()
    for ti, turn in enumerate(ep.turns):
        own: set[tuple[str, str]] = set()
        for step in turn.checklist:
            own |= exposed_units(step.tool, step.args)
        reach = earlier if turn.memory_only else own | earlier
        for ei, ev in enumerate(turn.evidence):
            if ev.key not in reach:
                src = "earlier turns' checklists" if turn.memory_only else "this turn's or an earlier turn's checklist"
                problems.append((f"turns[{ti}].evidence[{ei}]", f"{ev.paper} {ev.unit} is not exposed by {src}"))
        earlier |= own
    if ep.report is not None:
        own = {u for step in ep.report.checklist for u in exposed_units(step.tool, step.args)}
        for ei, ev in enumerate(ep.report.evidence):
            if ev.key not in earlier | own:
                problems.append((f"report.evidence[{ei}]", f"{ev.paper} {ev.unit} is not exposed by the report's or an "
                                                          f"earlier turn's checklist"))
    return problems


class EpisodeStats(BaseModel):
    """Composition of an episode set (what `epi episodes stats --json` prints)."""

    episodes: int
    by_split: dict[str, int]
    by_task_type: dict[str, int]
    by_initiation: dict[str, int]
    by_area: dict[str, int]
    turns_per_episode: dict[str, int] = Field(description="number of turns -> number of episodes")
    turns: int
    memory_only_turns: int
    by_answer_format: dict[str, int] = Field(description="over all turns")
    papers_per_episode_mean: float


def episode_stats(episodes: list[Episode]) -> EpisodeStats:
    """Count an episode set by split, task type, initiation, area, turn count and answer format."""
    def counts(values: list[str]) -> dict[str, int]:
        return dict(sorted(Counter(values).items()))

    turn_counts = Counter(len(e.turns) for e in episodes)
    n_papers = [len(e.papers) for e in episodes]
    return EpisodeStats(
        episodes=len(episodes),
        by_split=counts([e.split for e in episodes]),
        by_task_type=counts([e.task_type for e in episodes]),
        by_initiation=counts([e.initiation for e in episodes]),
        by_area=counts([e.area for e in episodes]),
        turns_per_episode={str(k): v for k, v in sorted(turn_counts.items())},
        turns=sum(len(e.turns) for e in episodes),
        memory_only_turns=sum(t.memory_only for e in episodes for t in e.turns),
        by_answer_format=counts([t.answer.format for e in episodes for t in e.turns]),
        papers_per_episode_mean=round(sum(n_papers) / len(n_papers), 2) if n_papers else 0.0,
    )
