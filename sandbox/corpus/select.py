"""Which corpus folder an episode file runs on, read from the file's `source` fields.

Every generated episode says what it was built over: its `source` ends with
`ground_truth=<corpus generator version>/seed=<corpus seed>` (e.g. `ground_truth=corpus-1.1/seed=7`
for episodes/sandbox-v1.jsonl). `epi run` and `epi episodes audit` both call `corpus_for_episodes`:

- `--sandbox DIR` given: DIR must hold that corpus, else one line naming the corpus the file needs and
  the command that builds it (CorpusMismatch, exit 2);
- not given: the sandbox folder (EPI_SANDBOX_DIR, else sandbox/build) if it holds that corpus, else
  the corpus version's own folder (sandbox/build-v1 for v1, see versions.py) if it does, else the
  same one line.

A file whose sources name no corpus (hand-written episodes), or a corpus no registered version writes,
runs on the folder given or the default one, as before: its papers are checked against that catalog.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .. import paths

_SOURCE_CORPUS = re.compile(r"ground_truth=(\S+?)/seed=(\d{1,9})\b")
_MAX_SCAN = 64 * 1024 * 1024  # bytes of an episode file read for its sources (the loader bounds the rest)


class CorpusMismatch(ValueError):
    """The corpus folder does not hold the corpus the episode file was built for; the message is one line."""


@dataclass(frozen=True)
class NeededCorpus:
    """The corpus an episode file was generated over, as its `source` fields say."""

    generator_version: str  # e.g. corpus-1.1
    seed: int

    @property
    def label(self) -> str:
        return f"{self.generator_version}/seed={self.seed}"


def needed_corpus(episodes_file: Path) -> NeededCorpus | None:
    """The corpus most of the file's episodes name in their `source`; None if none names one (or the file
    cannot be read: the episode loader reports that, with its line)."""
    try:
        with open(episodes_file, "rb") as fh:
            raw = fh.read(_MAX_SCAN)
    except OSError:
        return None
    found: Counter[tuple[str, int]] = Counter()
    for line in raw.splitlines():
        if b'"source"' not in line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        src = obj.get("source") if isinstance(obj, dict) else None
        if isinstance(src, str) and (m := _SOURCE_CORPUS.search(src)):
            found[(m.group(1), int(m.group(2)))] += 1
    if not found:
        return None
    (gv, seed), _ = found.most_common(1)[0]
    return NeededCorpus(gv, seed)


def _holds(root: Path) -> NeededCorpus | None:
    """The corpus the folder's catalog.json says it holds; None when there is no readable catalog."""
    try:
        with open(Path(root) / "catalog.json", "rb") as fh:
            head = json.loads(fh.read())
        return NeededCorpus(str(head["generator_version"]), int(head["seed"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def build_command(need: NeededCorpus) -> tuple[str, Path | None]:
    """The command that builds `need`, and the folder it writes (None: no registered version writes it)."""
    from .versions import DEFAULT_CORPUS, DEFAULT_SEED, default_dir, version_name_of

    try:  # from the stamps alone: importing a generator to learn its stamp cost `epi run` seconds of start-up
        name = version_name_of(need.generator_version)
    except ValueError:
        return "", None
    cmd = "epi sandbox build" + ("" if name == DEFAULT_CORPUS else f" --corpus {name}")
    if need.seed != DEFAULT_SEED:
        cmd += f" --seed {need.seed}"
    return cmd, default_dir(name)


def corpus_for_episodes(episodes_file: Path, sandbox: Path | None) -> Path | None:
    """The corpus folder to run `episodes_file` on: `sandbox` if given, else None (the default folder) or the
    folder of the corpus version the file names. CorpusMismatch (one line) when no such folder holds it."""
    need = needed_corpus(episodes_file)
    if need is None:
        return sandbox
    cmd, version_dir = build_command(need)
    if not cmd:  # a corpus no version of this code writes: use the folder given, its catalog judges the file
        return sandbox
    if sandbox is not None:
        held = _holds(sandbox)
        if held == need:
            return sandbox
        where = f"--sandbox {sandbox} holds {held.label}" if held else f"--sandbox {sandbox} holds no built corpus"
        raise CorpusMismatch(f"{episodes_file} was built for corpus {need.label} but {where}; build it with "
                             f"`{cmd}` (into {version_dir}) and pass --sandbox {version_dir}")
    default = paths.sandbox_dir()
    if _holds(default) == need:
        return None
    assert version_dir is not None
    if _holds(version_dir) == need:
        return version_dir
    held = _holds(default)
    what = f"the sandbox in {default} holds {held.label}" if held else f"the sandbox in {default} is not built"
    raise CorpusMismatch(f"{episodes_file} was built for corpus {need.label}, which is not built ({what}); "
                         f"build it with `{cmd}` (into {version_dir})")
