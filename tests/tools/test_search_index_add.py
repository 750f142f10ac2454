"""Adding documents to a search index gives exactly the index a full rebuild over the same documents gives:
the BM25 statistics (each term's idf, every document's length, the average length, hence every score), the
dense vectors, and the results of every query, hybrid, lexical and dense. Only the new documents are embedded."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from tools import search_index
from tools.search_index import HybridIndex, SearchIndexError, same_bm25

DOCS = [
    ("A", "Graph neural networks for molecule property prediction. We study message passing on molecular graphs."),
    ("B", "Vision transformers at scale: image classification with patches and attention on ImageNet."),
    ("C", "Stripe pooling for semantic segmentation of high resolution images; refinement of boundaries."),
    ("D", "A survey of reinforcement learning for robotic grasping with sparse rewards."),
    ("E", ""),  # a document without a token still takes its row
]
NEW = [
    ("F", "Message passing neural networks on graphs predict molecule properties; attention over atoms."),
    ("G", "Segmentation with transformers: boundaries refined by stripe attention at high resolution."),
]
QUERIES = ["graph neural networks molecules", "high resolution segmentation", "attention", "robotic grasping rewards",
           "transformers image classification", "stripe pooling"]


def bm25_statistics(tokens: list[list[str]]) -> tuple[dict[str, float], list[int], float]:
    """idf of every term (Lucene's, as bm25s computes it), each document's length, the average length."""
    n = len(tokens)
    df = Counter(t for doc in tokens for t in set(doc))
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    lengths = [len(doc) for doc in tokens]
    return idf, lengths, sum(lengths) / n


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    root = tmp_path_factory.mktemp("index-add")
    base = HybridIndex.build(DOCS, root / "base", keep_tokens=True)
    added = HybridIndex.load(root / "base").add(NEW, root / "added")
    full = HybridIndex.build(DOCS + NEW, root / "full", keep_tokens=True)
    return base, HybridIndex.load(root / "added"), HybridIndex.load(root / "full"), added


def test_bm25_statistics_equal_a_full_rebuild(indexes):
    base, added, full, _ = indexes
    assert added.ids == full.ids == [d for d, _ in DOCS + NEW]
    assert added.tokens == full.tokens
    idf, lengths, avgdl = bm25_statistics(added.tokens)
    assert (idf, lengths, avgdl) == bm25_statistics(full.tokens)
    assert avgdl != bm25_statistics(base.tokens)[2]  # the add changed the average length...
    assert idf["attention"] < bm25_statistics(base.tokens)[0]["attention"]  # ...and the idf of a term the new docs hold
    assert same_bm25(added, full)  # every (document, term) score: idf, length and average length in it
    a, f = added.bm25_columns(), full.bm25_columns()
    assert a.keys() == f.keys() and all(np.array_equal(a[t][1], f[t][1]) for t in a)
    assert not same_bm25(base, HybridIndex(ids=base.ids, bm25=added.bm25, dense=base.dense))


def test_dense_vectors_equal_a_full_rebuild_and_old_ones_are_kept(indexes):
    base, added, full, _ = indexes
    assert np.array_equal(added.vectors(), full.vectors())
    assert np.array_equal(added.vectors()[: len(DOCS)], base.vectors())


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_every_query_gets_the_results_of_a_full_rebuild(indexes, mode):
    base, added, full, in_memory = indexes
    for q in QUERIES:
        want = full.search(q, 7, mode)
        assert added.search(q, 7, mode) == want == in_memory.search(q, 7, mode), q
    # and the add did change something: the new documents are found
    assert {d for d, _ in added.search("stripe attention segmentation transformers", 3)} & {"G"}


def test_only_the_new_documents_are_embedded(tmp_path, monkeypatch):
    base = HybridIndex.build(DOCS, tmp_path / "i", keep_tokens=True)
    seen: list[str] = []
    real = search_index.embed
    monkeypatch.setattr(search_index, "embed", lambda texts: (seen.extend(texts), real(texts))[1])
    base.add(NEW)
    assert seen == [t for _, t in NEW]


def test_an_index_without_tokens_refuses_an_add_until_it_is_given_its_documents(tmp_path):
    plain = HybridIndex.build(DOCS, tmp_path / "plain")  # an index built before adds kept tokens
    loaded = HybridIndex.load(tmp_path / "plain")
    assert loaded.tokens is None
    with pytest.raises(SearchIndexError, match="keeps no tokens"):
        loaded.add(NEW)
    with pytest.raises(SearchIndexError, match="not this index's"):
        loaded.with_tokens(DOCS[:-1])
    with pytest.raises(SearchIndexError, match="do not tokenize"):
        loaded.with_tokens([(d, t + " extra words") for d, t in DOCS])
    full = HybridIndex.build(DOCS + NEW, None)
    grown = loaded.with_tokens(DOCS).add(NEW)
    assert [grown.search(q, 7) for q in QUERIES] == [full.search(q, 7) for q in QUERIES]
    assert plain.tokens is None


def test_adding_an_id_already_there_is_refused(indexes):
    base, *_ = indexes
    with pytest.raises(ValueError, match="duplicate document ids"):
        base.add([("A", "again")])


def test_an_index_is_the_same_whichever_process_builds_it(tmp_path):
    """bm25s numbered terms in a set's order, which changes with the process's string hashing: two builds of the
    same documents summed a query's term scores in another order and ranked ties apart. Terms are now numbered
    in order of first appearance, so an index rebuilt elsewhere (or added to) is the same, array for array."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    code = ("import json, sys\nfrom pathlib import Path\nfrom tools.search_index import HybridIndex\n"
            "HybridIndex.build([tuple(d) for d in json.loads(sys.argv[1])], Path(sys.argv[2]))")
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(repo), "HF_HUB_OFFLINE": "1"}
        subprocess.run([sys.executable, "-c", code, json.dumps(DOCS + NEW), str(tmp_path / seed)], env=env, cwd=repo,
                       check=True, timeout=300)
    a, b = HybridIndex.load(tmp_path / "1"), HybridIndex.load(tmp_path / "2")
    assert a.bm25.vocab_dict == b.bm25.vocab_dict
    for key in ("data", "indices", "indptr"):
        assert np.array_equal(a.bm25.scores[key], b.bm25.scores[key]), key
    for q in QUERIES:
        assert a.search(q, 7, "bm25") == b.search(q, 7, "bm25"), q
