"""Where names from data become paths: the one place ids are made file-safe and paths are kept in their folder.

Episode ids, run ids and the id of a continued run (`epi replay --from-turn`) come from files other people
write; an image named by an episode file or a trace is a path someone else chose. Each is turned into a path
here and nowhere else: an id becomes a single file name (`safe_name`), a run id the user types must already
be one (`check_folder_name`), and a path read from data is resolved (symlinks followed) and used only when it
lands inside the folder it belongs to (`resolve_inside`).
"""
from __future__ import annotations

import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 150


class PathOutside(ValueError):
    """A path named by data that is absolute, climbs out of its folder, or leads out of it through a symlink."""


def safe_name(s: str) -> str:
    """A single file name for an id: every run of characters other than letters, digits, `.`, `_` and `-`
    becomes `_`; never empty, never `.` or `..`, at most 150 characters. Different ids may share a name."""
    name = _UNSAFE.sub("_", s)[:MAX_NAME]
    if not name.strip("."):  # "", ".", "..", "...": a name that is no name, or one that climbs
        name = "_" * max(1, len(name))
    return name


def check_folder_name(name: str, what: str = "run id") -> str:
    """`name` unchanged if it can be used as one folder name as it is: not empty, no `/`, `\\`, NUL or other
    control character, not starting with `.` (so never `.` or `..`), at most 150 characters; else ValueError
    saying so. For names the user types, where silently changing them would leave the user looking for a
    folder that is not there."""
    if (not name or name.startswith(".") or len(name) > MAX_NAME
            or any(c in "/\\" or ord(c) < 32 or 127 <= ord(c) < 160 for c in name)):
        raise ValueError(f"{what} {name!r} must be a plain folder name (no '/', '\\' or control characters, not "
                         f"starting with '.', at most {MAX_NAME} characters), e.g. {safe_name(name).lstrip('.')[:40] or 'run1'!r}")
    return name


def is_inside(path: Path, folder: Path) -> bool:
    """Whether `path`, with every symlink followed, is `folder` or lies under it (`folder` resolved too)."""
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, RuntimeError):  # a symlink loop: not a place to read from
        return False


def resolve_inside(folder: Path, name: str | Path, *, allow_absolute: bool = False) -> Path:
    """The real path of `name` taken relative to `folder`, when it stays inside `folder`.

    Refused (PathOutside, saying why): an absolute `name` (unless `allow_absolute`, and then it must still lie
    inside `folder`), a `name` whose `..` climbs out, and one that leaves through a symlink (of the file or of
    a folder on the way). Whether the file exists is the caller's question."""
    p = Path(name)
    if p.is_absolute() and not allow_absolute:
        raise PathOutside(f"{str(name)!r} is an absolute path; name a file inside {folder} by a relative path")
    target = p if p.is_absolute() else Path(folder) / p
    try:
        real, home = target.resolve(), Path(folder).resolve()
    except (OSError, RuntimeError) as e:  # a symlink loop
        raise PathOutside(f"{str(name)!r} cannot be resolved ({e})") from None
    if not real.is_relative_to(home):
        how = "climbs out of" if ".." in p.parts else "is outside" if p.is_absolute() else "leads through a symlink out of"
        raise PathOutside(f"{str(name)!r} {how} {folder}")
    return real
