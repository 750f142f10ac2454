"""Frozen generators: corpus v1 and v2 (`corpus_v1`, `corpus_v2`) and the episode generators of benchmarks
v1 and v2 (`episodegen_v1`, `episodegen_v2`).

They reproduce episodes/sandbox-v1.jsonl and episodes/sandbox-v2.jsonl (and their corpora and cue images)
byte for byte, and write the `source` fields and generator stamps they always wrote ("corpus-1.1",
"corpus-2.0", "episodegen-1", "episodegen-2.1"). They are never extended: a new version extends the living
generator (`sandbox.corpus`, `sandbox.episodegen`). Code here imports only other legacy modules and the shared
stable infrastructure (`sandbox.corpus.model`, `sandbox.paths`, `sandbox.world`, the tools); the living generator
never imports it (tests/sandbox/test_legacy_boundary.py).
"""
