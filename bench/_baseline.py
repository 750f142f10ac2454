"""The sandbox a baseline commit's code runs on, for the side-by-side scripts (startup.py, vs_inspect.py).

Both measure sandbox-v1 on corpus v1 (sandbox/build-v1, `make sandbox-v1`). A baseline commit reads an
older search-index format than the index built by this code: given ours, every search of its run fails,
and its run stops after one request per episode, which measures nothing. So the baseline gets the built
corpus copied without its index and caches, and its own `epi sandbox build` finds the corpus up to date
and writes only the index, in its own format (about 10 s).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def corpus_v1() -> Path:
    """Where corpus v1 is built (EPI_SANDBOX_DIR overrides, as for epi itself)."""
    return Path(os.environ.get("EPI_SANDBOX_DIR", str(REPO / "sandbox" / "build-v1")))


def baseline_sandbox(root: Path, tmp: Path, env: dict[str, str]) -> Path | None:
    """Corpus v1 indexed by the baseline code in `root` (run with `env`), in `tmp`; None with a message."""
    src = corpus_v1()
    if not (src / "catalog.json").is_file():
        print(f"(baseline skipped: no corpus v1 in {src}; `make sandbox-v1` builds it)")
        return None
    dst = tmp / "baseline-sandbox"
    if not dst.is_dir():
        shutil.copytree(src, dst, ignore=lambda d, names: [n for n in names if d == str(src) and n in ("index", "cache")])
    done = subprocess.run([sys.executable, "-m", "harness", "sandbox", "build"], env={**env, "EPI_SANDBOX_DIR": str(dst)},
                          cwd=root, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0 or not (dst / "index").is_dir():
        print(f"(baseline skipped: its `epi sandbox build` failed: {(done.stderr or done.stdout).strip()[-300:]})")
        return None
    return dst
