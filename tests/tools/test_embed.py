"""The MiniLM encoder on onnxruntime: sentence-transformers' vectors, an export cached by content, no torch at run time."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tools import embed as E

REPO = Path(__file__).resolve().parents[2]
LONG = ("Graph neural networks propagate node features along edges; residual propagation keeps the input signal "
        "while smoothing over the neighbourhood, which helps on heterophilous graphs such as Chameleon. ")
VARIED = [
    "",
    "   ",
    "a",
    "graph neural networks",
    "The paper by Okafor et al. (2021) that introduced residual propagation for node classification",
    "BLEU on WMT'14 En-De: 28.4 vs. 27.3 (+1.1)",
    "Ünïcödé, àccents, ß and 漢字 go through the BERT normaliser",
    "Table 2: accuracy (%) on Cora, Citeseer and PubMed; best in bold.",
    "e^{i\\pi} + 1 = 0 and x_{t+1} = x_t - \\eta \\nabla L(x_t)",
    "https://arxiv.org/abs/2106.01234v2",
    LONG * 3,    # about 120 word pieces
    LONG * 12,   # far past the model's 256: truncated
    "speech recognition " * 400,
]


@pytest.fixture(scope="module")
def reference():
    """sentence-transformers on torch, the encoder the project used before (and the yardstick)."""
    from tools._embed_export import ReferenceEncoder

    return ReferenceEncoder()


@pytest.fixture(scope="module")
def onnx() -> E.OnnxEncoder:
    cache = E.model_cache_dir()
    files = E.model_files(cache)
    return E.OnnxEncoder(E.onnx_model_path(cache), files)


@pytest.mark.slow
def test_onnx_vectors_equal_sentence_transformers(onnx, reference):
    got, want = onnx.encode(VARIED), reference.encode(VARIED)
    assert got.shape == want.shape == (len(VARIED), E.EMBED_DIM) and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosine = (got * want).sum(axis=1)
    worst = int(cosine.argmin())
    assert cosine.min() >= 0.999, f"text {worst} ({VARIED[worst][:40]!r}...): cosine {cosine[worst]:.6f}"
    assert np.abs(got - want).max() < 1e-4  # in fact float rounding: the same graph, the same weights


@pytest.mark.slow
def test_long_texts_are_cut_at_the_models_256_word_pieces(onnx, reference):
    head = LONG * 10  # well past 256 word pieces on its own
    a, b = head + " about speech.", head + " about proteins, folding and molecular dynamics."
    for enc in (onnx, reference):
        va, vb = enc.encode([a, b])
        assert float(va @ vb) > 0.99999  # the endings were cut off by both encoders alike
    short = onnx.encode(["graph neural networks about speech", "graph neural networks about proteins"])
    assert float(short[0] @ short[1]) < 0.99


def test_batch_composition_does_not_change_a_vector(onnx):
    """Padding to the longest text of a batch and the attention budget split must not move vectors."""
    texts = VARIED + [f"query number {i} about transformers" for i in range(40)]
    together = onnx.encode(texts, batch_size=32)
    alone = np.vstack([onnx.encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=2e-5)


@pytest.mark.slow
def test_an_index_embedded_by_the_old_encoder_answers_new_queries_the_same(onnx, reference):
    """Indexes built before the switch (sandbox/build, rag caches) stay consistent with ONNX queries."""
    from tests.tools.search_fixtures import paper_docs

    docs = [text for _, text in paper_docs()]
    queries = ["a paper on graph learning for molecules", "speech recognition for low-resource languages",
               "image segmentation with transformers", "protein structure prediction", "federated learning privacy"]
    old_index = reference.encode(docs)
    old_rank = np.argsort(-(reference.encode(queries) @ old_index.T), axis=1)[:, :5]
    new_rank = np.argsort(-(onnx.encode(queries) @ old_index.T), axis=1)[:, :5]
    assert (old_rank == new_rank).all()


def test_embed_and_embed_query_keep_their_contract():
    vecs = E.embed(["one", "two words", ""])
    assert vecs.shape == (3, E.EMBED_DIM) and vecs.dtype == np.float32 and vecs.flags.c_contiguous
    assert E.embed([]).shape == (0, E.EMBED_DIM)
    q = E.embed_query("two words")
    assert q.shape == (1, E.EMBED_DIM)
    np.testing.assert_allclose(q[0], vecs[1], atol=1e-5)
    assert E.embed_query("two words") is q  # memoised
    assert not q.flags.writeable


def test_weights_hash_is_remembered_by_file_stamp_and_redone_when_the_file_changes(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights v1")
    cache = tmp_path / "cache"
    first = E._weights_sha256(weights, cache)
    assert first == hashlib.sha256(b"weights v1").hexdigest()
    memo = json.loads((cache / "weights-sha256.json").read_text())
    memo[str(weights)]["sha256"] = "remembered"  # a second start must trust the memo, not re-read 90 MB
    (cache / "weights-sha256.json").write_text(json.dumps(memo))
    assert E._weights_sha256(weights, cache) == "remembered"
    weights.write_bytes(b"weights v2, longer")  # new content (size and mtime change): hashed again
    assert E._weights_sha256(weights, cache) == hashlib.sha256(b"weights v2, longer").hexdigest()


def test_cache_key_names_package_version_and_weights():
    files = E.model_files()
    assert files.max_seq_length == 256
    assert files.package_version in files.cache_key and files.weights_sha256[:16] in files.cache_key
    assert files.cache_key.endswith(f"-x{E.EXPORT_FORMAT}")


PROBE = """
import json, sys
from tools.embed import embed_query
v = embed_query("hybrid retrieval of scientific papers")
print(json.dumps({"vec": v[0].tolist(), "torch": "torch" in sys.modules, "st": "sentence_transformers" in sys.modules}))
"""


def _probe(cache: Path) -> dict:
    env = dict(os.environ, EPI_MODEL_CACHE=str(cache), HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    env.pop("EPI_EMBED_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_fresh_machine_exports_once_and_later_processes_never_load_torch(tmp_path):
    cache = tmp_path / "models"
    first = _probe(cache)  # no export yet: this process makes it (with torch)
    [folder] = [p for p in cache.iterdir() if p.is_dir()]
    assert folder.name == E.model_files(cache).cache_key
    meta = json.loads((folder / "export.json").read_text())
    assert meta["max_abs_diff"] < 1e-4
    second = _probe(cache)
    assert not second["torch"] and not second["st"]
    np.testing.assert_allclose(second["vec"], first["vec"], atol=1e-6)


def test_a_damaged_cached_export_is_exported_again(tmp_path, monkeypatch):
    """A truncated or foreign model.onnx in the cache is replaced instead of failing every search."""
    import shutil

    good = E.onnx_model_path()  # this machine's real export (made by the sandbox build at the latest)
    files = E.model_files(tmp_path)
    damaged = tmp_path / files.cache_key / "model.onnx"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"not an onnx model")
    exports = []

    def export_once(folder, target, max_len):  # noqa: ANN001  (the real export is tested above; ~40 s)
        exports.append(target)
        shutil.copyfile(good, target)
        return target

    monkeypatch.setattr("tools._embed_export.export_once", export_once)
    monkeypatch.setenv("EPI_MODEL_CACHE", str(tmp_path))
    E._load_encoder.cache_clear()
    try:
        encoder = E.get_encoder()
        assert isinstance(encoder, E.OnnxEncoder) and exports == [damaged]
        np.testing.assert_allclose(encoder.encode(["graph neural networks"]),
                                   E.OnnxEncoder(good, files).encode(["graph neural networks"]), atol=1e-6)
    finally:
        E._load_encoder.cache_clear()  # later tests get the default cache's encoder again
