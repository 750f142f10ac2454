"""One living generator, one frozen legacy: imports go one way (issue 26, item 4).

The living generator (`sandbox/corpus`, `sandbox/episodegen`) never imports `sandbox.legacy`, so extending it
cannot reach the frozen v1/v2 code; legacy code imports only other legacy modules and the shared stable
infrastructure, so a change to the living generator cannot change what v1 and v2 regenerate. Read from the
source files' import statements (lazy imports inside functions included), without importing anything.
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SANDBOX = REPO / "sandbox"
LIVING = ("sandbox/corpus", "sandbox/episodegen")
# The living side's module that may name legacy code: the version dispatch. (The v2 report benchmark's generator
# is frozen in sandbox/legacy/reportgen_v2; the living report generator reads corpus v3 through V3Facts.)
DISPATCH = {"sandbox/corpus/versions.py"}
# What legacy code may import from the sandbox package besides itself.
SHARED = ("sandbox.corpus.model", "sandbox.paths", "sandbox.world")


def module_name(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(rel: str, source: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file at `rel` (relative to the repo), relative
    imports resolved; `from pkg import name` counts as pkg.name (name may be a submodule)."""
    package = module_name(rel).split(".")
    if not rel.endswith("__init__.py"):
        package = package[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return out


def boundary_problems(rel: str, source: str) -> list[str]:
    """The imports of one source file that cross the living/legacy boundary the wrong way."""
    problems = []
    for line, mod in imported_modules(rel, source):
        if rel.startswith(LIVING) and rel not in DISPATCH and (mod == "sandbox.legacy" or mod.startswith("sandbox.legacy.")):
            problems.append(f"{rel}:{line}: the living generator imports legacy code ({mod})")
        if rel.startswith("sandbox/legacy/") and mod.startswith("sandbox.") \
                and not mod.startswith(("sandbox.legacy.",) + tuple(s + "." for s in SHARED)) and mod not in SHARED:
            problems.append(f"{rel}:{line}: legacy code imports {mod}, which is neither legacy nor shared infrastructure")
    return problems


def _sources() -> list[Path]:
    files = [p for d in ("corpus", "episodegen", "legacy") for p in (SANDBOX / d).rglob("*.py")]
    return [p for p in files if "__pycache__" not in p.parts]


def test_imports_cross_the_legacy_boundary_one_way_only() -> None:
    files = _sources()
    assert any("legacy/corpus_v1" in p.as_posix() for p in files) and any("episodegen" in p.as_posix() for p in files)
    problems = [x for p in files for x in boundary_problems(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8"))]
    assert problems == []


def test_the_scan_catches_a_forbidden_import_either_way() -> None:
    """Each form of a forbidden import, in a living file and in a legacy file, is found (and allowed ones are not)."""
    living = "sandbox/episodegen/generate.py"
    for src in ("from sandbox.legacy.episodegen_v2.facts import Point\n",
                "from ..legacy.corpus_v1 import prose\n",
                "def f():\n    import sandbox.legacy.corpus_v2.plan\n"):
        assert len(boundary_problems(living, src)) == 1, src
    assert boundary_problems("sandbox/corpus/plan.py", "from ..legacy import corpus_v1\n") != []
    assert boundary_problems("sandbox/corpus/versions.py", "from ..legacy.corpus_v1 import plan\n") == []
    legacy = "sandbox/legacy/episodegen_v2/facts.py"
    for src in ("from sandbox.episodegen.facts import Point\n",
                "from ...episodegen import slots\n",
                "from sandbox.corpus.layout import render_paper\n",
                "from sandbox.corpus import prose\n"):
        assert len(boundary_problems(legacy, src)) == 1, src
    for src in ("from sandbox.corpus.model import GroundTruth\n", "from ..episodegen_v1._model import DraftTurn\n",
                "from sandbox import paths\n", "from tools import call_signature\n"):
        assert boundary_problems(legacy, src) == [], src
