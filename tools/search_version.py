"""The version of the search engine (`tools/search_index.py`), importable without the engine itself.

Run reports name it (search results, and so an agent's score, depend on it); the sandbox world reads it
at start-up, where loading numpy and the index code would cost time for nothing."""

ENGINE_VERSION = "bm25s+minilm-lead/4"  # 4: the fused candidates no longer depend on k
