"""A persisted hybrid text index: BM25 (bm25s) over the whole text, MiniLM + faiss over its lead, fused.

A general engine, the way a web search engine indexes a page: BM25 scores every word of a document
(for a paper: title, authors, venue, year, abstract, body and references, as its PDF prints them);
the dense encoder reads the document's lead (`DENSE_CHARS`, for a paper its header and abstract) and
catches paraphrases. Both scores are brought to [0, 1] and mixed with one fixed weight. There is no
field bonus and nothing tuned to how a benchmark phrases its cues. Used by the sandbox world's search
(one document per paper) and by pdf_rag (one document per chunk of a paper).

Adding documents (`add`): BM25's statistics are global (each term's idf depends on how many documents
hold it, every length is measured against the average), so an index that keeps its tokenized documents
(`keep_tokens`, `tokens.npz`) recomputes them over the old tokens and the new ones, exactly as a full
build over the same documents would; the dense side keeps the old vectors and embeds only the new
documents (the encoder embeds each text independently of its batch). What a rebuild costs is reading
and embedding every document again; an add reads and embeds only the new ones.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from .embed import EMBED_DIM, embed, embed_query
from .search_version import ENGINE_VERSION  # noqa: F401  (named in run reports: search results depend on it)

INDEX_FORMAT = 3
TOKENS_FILE = "tokens.npz"  # the tokenized documents, for `add` (optional: an index without it can still be searched)
EMPTY_TOKEN = "\u2205"  # stands in for a document without a token: bm25s needs one (it never matches a query)
BM25_WEIGHT = 0.35  # share of the lexical side in the fused score; tuned on tests/tools/search_fixtures.py
FUSION_DEPTH = 80  # candidates fused per side for any k <= 80 (the same for every k web_search allows)
DENSE_CHARS = 2000  # the lead of a document the dense side embeds (the encoder reads ~256 word pieces anyway)
SearchMode = Literal["hybrid", "bm25", "dense"]

# English function words plus words that every citation cue carries and that therefore say nothing
# about which paper is meant ("the paper by X et al. that introduced ...").
STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have how i if in
    into is it its itself may might more most no nor not of on or our over so such than that the their them
    then there these they this those through to too under up us very was we were what when where which while
    who whom why will with would you your also about after again all any both each few other same some only
    own just should now et al paper papers work works study studies article introduced introduces introduce
    proposed proposes propose presented presents present described describes called named one"""
    .split()
)
_TOKEN_RE = re.compile(r"[a-z0-9]+")


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _light_stem(tok: str) -> str:
    """Fold plurals and a few common endings so 'graphs'/'graph', 'networks'/'network' meet."""
    if tok.isdigit() or len(tok) <= 3:
        return tok
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", "")):
        if tok.endswith(suffix) and len(tok) - len(suffix) >= 4:
            return tok[: -len(suffix)] + repl
    if tok.endswith("s") and not tok.endswith(("ss", "us", "is")):
        return tok[:-1]
    return tok


def tokenize(text: str) -> list[str]:
    """Lowercased, accent-folded word tokens without stopwords, lightly stemmed; years and numbers kept."""
    text = _strip_accents(text.lower())
    out = []
    for tok in _TOKEN_RE.findall(text):
        if tok in STOPWORDS or (len(tok) == 1 and not tok.isdigit()):
            continue
        out.append(_light_stem(tok))
    return out


class SearchIndexError(ValueError):
    """The index files are missing, unreadable or from another format version."""


@dataclass
class HybridIndex:
    """BM25 + dense index over (doc_id, text) documents; `search` returns (doc_id, fused score)."""

    ids: list[str]
    bm25: "object" = field(repr=False)  # bm25s.BM25
    dense: "object" = field(repr=False)  # faiss.IndexFlatIP
    out_dir: Path | None = None
    _ceilings: np.ndarray | None = field(default=None, repr=False)
    tokens: list[list[str]] | None = field(default=None, repr=False)  # what BM25 indexed, kept for `add`

    # ---- building and loading -------------------------------------------------------------
    @classmethod
    def build(cls, docs: list[tuple[str, str]], out_dir: Path | None, *, keep_tokens: bool = False,
              vectors: np.ndarray | None = None) -> "HybridIndex":
        """Index the documents and, when out_dir is given, persist the index there. With keep_tokens the
        tokenized documents are kept (and saved) so that documents can be added later (`add`). `vectors`:
        the documents' dense vectors already computed (`embed` of each text's lead, in their order)."""
        import faiss

        if not docs:
            raise ValueError("HybridIndex.build: no documents to index")
        ids = _checked_ids([d for d, _ in docs], "HybridIndex.build")
        texts = [t or "" for _, t in docs]
        if vectors is not None and vectors.shape != (len(docs), EMBED_DIM):
            raise ValueError(f"HybridIndex.build: vectors of shape {vectors.shape} for {len(docs)} documents")
        tokens = document_tokens(texts)
        dense = faiss.IndexFlatIP(EMBED_DIM)
        dense.add(np.ascontiguousarray(vectors, dtype=np.float32) if vectors is not None
                  else embed([t[:DENSE_CHARS] for t in texts]))
        index = cls(ids=ids, bm25=_bm25(tokens), dense=dense, out_dir=None, tokens=tokens if keep_tokens else None)
        if out_dir is not None:
            index.save(Path(out_dir))
        return index

    def with_tokens(self, docs: list[tuple[str, str]]) -> "HybridIndex":
        """This index, keeping the tokens of its documents (given again, in its order), so that `add` works on
        an index built without keep_tokens; the documents are tokenized, not embedded again."""
        if [d for d, _ in docs] != self.ids:
            raise SearchIndexError("with_tokens: the documents given are not this index's, in its order")
        tokens = document_tokens([t or "" for _, t in docs])
        again = HybridIndex(ids=self.ids, bm25=_bm25(tokens), dense=self.dense)
        if not same_bm25(again, self):
            raise SearchIndexError("with_tokens: these documents do not tokenize to what this index holds; rebuild it")
        self.tokens = tokens
        return self

    def add(self, docs: list[tuple[str, str]], out_dir: Path | None = None) -> "HybridIndex":
        """A new index holding this one's documents and then `docs`: exactly what `build` over all of them gives
        (BM25 recomputed over the kept tokens and the new ones; the old dense vectors kept, the new documents
        embedded). Persisted to out_dir when given. Needs the kept tokens (`keep_tokens`, `with_tokens`)."""
        import faiss

        if self.tokens is None:
            raise SearchIndexError(f"the search index{f' in {self.out_dir}' if self.out_dir else ''} keeps no tokens, "
                                   "so documents cannot be added to it; rebuild it (it then keeps them)")
        if not docs:
            raise ValueError("HybridIndex.add: no documents to add")
        ids = _checked_ids(self.ids + [d for d, _ in docs], "HybridIndex.add")
        texts = [t or "" for _, t in docs]
        tokens = self.tokens + document_tokens(texts)
        dense = faiss.IndexFlatIP(EMBED_DIM)
        dense.add(self.vectors())
        dense.add(embed([t[:DENSE_CHARS] for t in texts]))
        index = HybridIndex(ids=ids, bm25=_bm25(tokens), dense=dense, out_dir=None, tokens=tokens)
        if out_dir is not None:
            index.save(Path(out_dir))
        return index

    def bm25_columns(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Every term's BM25 scores: term -> (document rows, scores). The numbers bm25s gives terms depend on the
        process (they follow a set's order), so two indexes are compared term by term, never array by array."""
        vocab, sc = self.bm25.vocab_dict, self.bm25.scores
        data, rows, ptr = sc["data"], sc["indices"], sc["indptr"]
        # bm25s adds the empty token "" past the last column: it has no scores
        return {t: (rows[ptr[i]:ptr[i + 1]], data[ptr[i]:ptr[i + 1]]) for t, i in vocab.items() if i + 1 < len(ptr)}

    def vectors(self) -> np.ndarray:
        """The dense vectors of the documents, in their order."""
        return self.dense.reconstruct_n(0, self.dense.ntotal)

    def save(self, out_dir: Path) -> None:
        import faiss

        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "ids.json").unlink(missing_ok=True)  # an index being rewritten is not complete
        self.bm25.save(str(out_dir / "bm25"), show_progress=False)
        faiss.write_index(self.dense, str(out_dir / "dense.faiss"))
        if self.tokens is not None:
            _save_tokens(self.tokens, out_dir / TOKENS_FILE)
        else:
            (out_dir / TOKENS_FILE).unlink(missing_ok=True)
        meta = {"format": INDEX_FORMAT, "embed_dim": EMBED_DIM, "ids": self.ids}
        # written last: its presence marks a complete index
        tmp = out_dir / "ids.json.tmp"
        tmp.write_text(json.dumps(meta), encoding="utf-8")
        tmp.replace(out_dir / "ids.json")
        self.out_dir = out_dir

    @classmethod
    def load(cls, out_dir: Path) -> "HybridIndex":
        """Load an index persisted by `build`; raise SearchIndexError naming the folder if it is not one."""
        import bm25s
        import faiss

        out_dir = Path(out_dir)
        meta_path = out_dir / "ids.json"
        if not meta_path.is_file():
            raise SearchIndexError(f"no search index in {out_dir} (ids.json missing); build it first")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if meta.get("format") != INDEX_FORMAT:
                raise SearchIndexError(f"search index in {out_dir} has format {meta.get('format')}, expected {INDEX_FORMAT}; rebuild it")
            bm25 = bm25s.BM25.load(str(out_dir / "bm25"), show_progress=False, verbosity=0)
            dense = faiss.read_index(str(out_dir / "dense.faiss"))
        except SearchIndexError:
            raise
        except Exception as e:  # corrupt files of any kind: say which folder and how to fix it
            raise SearchIndexError(f"search index in {out_dir} is unreadable ({type(e).__name__}: {e}); rebuild it") from e
        ids = list(meta["ids"])
        if dense.ntotal != len(ids):
            raise SearchIndexError(f"search index in {out_dir} is inconsistent ({dense.ntotal} vectors, {len(ids)} ids); rebuild it")
        tokens = _load_tokens(out_dir / TOKENS_FILE) if (out_dir / TOKENS_FILE).is_file() else None
        if tokens is not None and len(tokens) != len(ids):
            tokens = None  # from another build: `add` will ask for a rebuild rather than mix two
        return cls(ids=ids, bm25=bm25, dense=dense, out_dir=out_dir, tokens=tokens)

    def __len__(self) -> int:
        return len(self.ids)

    # ---- querying --------------------------------------------------------------------------
    def _term_ceilings(self) -> np.ndarray:
        """Per vocabulary term, its best BM25 contribution in any document (0 for unused terms)."""
        if self._ceilings is None:
            data, indptr = self.bm25.scores["data"], self.bm25.scores["indptr"]
            ceil = np.zeros(len(indptr) - 1, dtype=np.float32)
            nonempty = np.flatnonzero(np.diff(indptr) > 0)
            if len(nonempty):
                ceil[nonempty] = np.maximum.reduceat(data, indptr[nonempty])
            self._ceilings = ceil
        return self._ceilings

    def bm25_ranking(self, query: str, depth: int) -> list[tuple[int, float]]:
        """(row, score in [0, 1]) of documents sharing a query term, best first.

        The score is BM25 divided by the sum of each query term's best score anywhere, so a document
        matching one weak word of a long cue scores low, and one matching every word scores near 1.
        """
        vocab = self.bm25.vocab_dict
        tok_ids = sorted({vocab[t] for t in tokenize(query) if t in vocab})
        if not tok_ids:
            return []
        scores = self.bm25.get_scores_from_ids(tok_ids)
        ceiling = float(self._term_ceilings()[tok_ids].sum()) or 1.0
        order = np.argsort(-scores, kind="stable")[:depth]
        return [(int(i), float(scores[i]) / ceiling) for i in order if scores[i] > 0]

    def dense_ranking(self, query: str, depth: int) -> list[tuple[int, float]]:
        """(row, cosine) of the nearest documents, best first."""
        scores, rows = self.dense.search(embed_query(query), min(depth, len(self.ids)))
        return [(int(r), float(s)) for r, s in zip(rows[0], scores[0]) if r >= 0]

    def search(self, query: str, k: int, mode: SearchMode = "hybrid") -> list[tuple[str, float]]:
        """The k best documents for the query as (doc_id, score), best first.

        hybrid: a convex combination of the normalised BM25 score (see bm25_ranking) and the dense
        cosine min-max scaled over the top FUSION_DEPTH, BM25_WEIGHT on the lexical side (Bruch et al. 2023
        found such a combination beats reciprocal-rank fusion); bm25 / dense return one side only.
        """
        if k <= 0 or not query.strip():
            return []
        if mode == "bm25":
            return [(self.ids[r], s) for r, s in self.bm25_ranking(query, k)]
        if mode == "dense":
            return [(self.ids[r], s) for r, s in self.dense_ranking(query, k)]
        # the candidates (and the dense scaling over them) do not depend on k up to web_search's largest k
        # (20), so the first k results of a query are the first k of any larger k: an agent asking for 5
        # sees the head of what one asking for 20 sees (with max(50, 4k), k=10 and k=20 ranked differently)
        depth = max(FUSION_DEPTH, k)
        lexical = dict(self.bm25_ranking(query, depth))
        dense = dict(self.dense_ranking(query, depth))
        lo, hi = (min(dense.values()), max(dense.values())) if dense else (0.0, 1.0)
        span = (hi - lo) or 1.0
        fused = {
            row: BM25_WEIGHT * lexical.get(row, 0.0) + (1 - BM25_WEIGHT) * (dense.get(row, lo) - lo) / span
            for row in lexical.keys() | dense.keys()
        }
        best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [(self.ids[r], round(s, 6)) for r, s in best]


def same_bm25(a: HybridIndex, b: HybridIndex) -> bool:
    """The same BM25 index: the same documents, and for every term the same score in every document (so the
    same idf, document lengths and average length)."""
    if a.ids != b.ids:
        return False
    ca, cb = a.bm25_columns(), b.bm25_columns()
    return ca.keys() == cb.keys() and all(
        np.array_equal(ca[t][0], cb[t][0]) and np.array_equal(ca[t][1], cb[t][1]) for t in ca)


def document_tokens(texts: list[str]) -> list[list[str]]:
    """What BM25 indexes for each text: its tokens, or the placeholder for a text without any."""
    return [tokenize(t) or [EMPTY_TOKEN] for t in texts]


def _bm25(tokens: list[list[str]]) -> object:
    """BM25 over the tokenized documents, terms numbered in order of first appearance: bm25s numbers them in a
    set's order, which changes from process to process (string hashing), and with it the order in which a
    query's term scores are summed, so the same documents ranked differently in the last float digits."""
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in tokens]
    bm25 = bm25s.BM25()
    bm25.index((ids, vocab), show_progress=False)
    return bm25


def _checked_ids(ids: list[str], where: str) -> list[str]:
    if len(set(ids)) != len(ids):
        dupes = sorted({d for d in ids if ids.count(d) > 1})
        raise ValueError(f"{where}: duplicate document ids {dupes[:5]}")
    return ids


def _save_tokens(tokens: list[list[str]], path: Path) -> None:
    """The tokenized documents as a vocabulary, one flat array of token numbers and each document's offset."""
    vocab: dict[str, int] = {}
    flat = [vocab.setdefault(t, len(vocab)) for doc in tokens for t in doc]
    offsets = np.cumsum([0] + [len(doc) for doc in tokens], dtype=np.int64)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, vocab=np.array(list(vocab), dtype=str), ids=np.array(flat, dtype=np.int32), offsets=offsets)
    tmp.replace(path)


def _load_tokens(path: Path) -> list[list[str]] | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            vocab, flat, offsets = z["vocab"].tolist(), z["ids"], z["offsets"]
    except (OSError, ValueError, KeyError):
        return None  # unreadable: `add` will ask for a rebuild
    words = [vocab[i] for i in flat.tolist()]
    return [words[offsets[k]:offsets[k + 1]] for k in range(len(offsets) - 1)]


def paper_document_text(
    title: str,
    authors: list[str],
    venue: str | None,
    year: int | None,
    abstract: str | None,
    references: list[str] | tuple[str, ...] = (),
) -> str:
    """A paper's page text when only its metadata is at hand: title, authors, venue and year, abstract,
    references, each once and in the order a paper prints them (no field is repeated or boosted)."""
    parts = [title, ", ".join(authors), f"{venue or ''} {year or ''}".strip(), abstract or ""]
    if references:
        parts.append("References\n" + "\n".join(references))
    return "\n".join(p for p in parts if p)
