"""Where the sandbox keeps what it builds: EPI_SANDBOX_DIR, or sandbox/build/ in the checkout."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent


def sandbox_dir() -> Path:
    env = os.environ.get("EPI_SANDBOX_DIR")
    return Path(env).resolve() if env else PACKAGE_DIR / "build"


def corpus_dir() -> Path:
    return sandbox_dir() / "corpus"


def catalog_path() -> Path:
    return sandbox_dir() / "catalog.json"


def ground_truth_path() -> Path:
    return sandbox_dir() / "ground_truth.json"


def index_dir() -> Path:
    return sandbox_dir() / "index"


def cache_dir() -> Path:
    """Content-hash cache for parsed PDFs, embeddings and crops (EPI_CACHE_DIR overrides)."""
    env = os.environ.get("EPI_CACHE_DIR")
    return Path(env).resolve() if env else sandbox_dir() / "cache"
