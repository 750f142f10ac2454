"""One measured job of bench/pdf_limits.py, run in its own process by whichever code PYTHONPATH names (the
baseline commit's or this checkout's), so it uses only what both versions have: the tools and their worlds.
Prints one JSON object: the seconds each tool call took and the errors it returned.

    python bench/_pdf_driver.py folder DIR CACHE      pdf_extract each PDF of DIR (cold), then every figure and table
    python bench/_pdf_driver.py sandbox N CACHE       pdf_extract the first N papers of the built sandbox (v2)
    python bench/_pdf_driver.py hostile FILE CACHE    pdf_extract FILE, then figure_extract its Figure 1
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


async def _timed(tool: str, world, args: dict, out: dict) -> object:  # noqa: ANN001
    from tools import get_tool

    t = time.perf_counter()
    try:
        res = await get_tool(tool)(world, args)
    except Exception as e:  # the baseline let some hostile files through as exceptions: record, go on
        out.setdefault("errors", []).append(f"{tool} {args.get('paper')}: raised {type(e).__name__}: {e}")
        return None
    finally:
        out.setdefault(tool, []).append(round(time.perf_counter() - t, 4))
    if res.is_error:
        out.setdefault("errors", []).append(f"{tool} {args.get('paper')}: {res.error[:160]}")
    return res


def _folder_world(files: dict[str, Path], cache: Path):  # noqa: ANN202
    from tools import PaperMeta, PaperNotFound, World

    class FolderWorld(World):
        async def search(self, query, k):  # noqa: ANN001, ANN202
            return []

        async def resolve(self, ref):  # noqa: ANN001, ANN202
            if ref not in files:
                raise PaperNotFound(ref)
            return PaperMeta(id=ref, title=ref)

        async def pdf_bytes(self, paper):  # noqa: ANN001, ANN202
            return files[paper.id].read_bytes()

    return FolderWorld(cache)


async def folder(root: Path, cache: Path, out: dict) -> None:
    world = _folder_world({p.stem: p for p in sorted(root.glob("*.pdf"))}, cache)
    for pid in sorted(p.stem for p in root.glob("*.pdf")):
        res = await _timed("pdf_extract", world, {"paper": pid}, out)
        data = (res.data if res is not None else None) or {}
        for f in data.get("figures", []):
            await _timed("figure_extract", world, {"paper": pid, "figure": f["n"]}, out)
        for t in data.get("tables", []):
            await _timed("table_extract", world, {"paper": pid, "table": t["n"]}, out)


async def sandbox(n: int, out: dict) -> None:
    from sandbox.world import SandboxWorld

    world = SandboxWorld()
    for entry in world.catalog.papers[:n]:
        await _timed("pdf_extract", world, {"paper": entry.id}, out)


async def hostile(path: Path, cache: Path, out: dict) -> None:
    world = _folder_world({"x": path}, cache)
    res = await _timed("pdf_extract", world, {"paper": "x"}, out)
    if res is not None and not res.is_error and (res.data or {}).get("figures"):
        await _timed("figure_extract", world, {"paper": "x", "figure": 1}, out)


def main() -> None:
    job, arg, cache = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out: dict = {}
    if job == "folder":
        asyncio.run(folder(Path(arg), cache, out))
    elif job == "sandbox":
        asyncio.run(sandbox(int(arg), out))
    else:
        asyncio.run(hostile(Path(arg), cache, out))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
