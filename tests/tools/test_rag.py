"""pdf_rag: section/paragraph chunks of one paper ranked for a question, with pages and cited floats."""
from __future__ import annotations

import pytest

from tools.pdf.model import FloatRef, ParsedPaper, TextBlock
from tools.pdf_rag import chunk_paper, float_mentions, format_spans, rank_chunks

BOX = (72.0, 100.0, 540.0, 200.0)


def _paper(sha: str = "a" * 64) -> ParsedPaper:
    para = [
        ("Introduction", 1, "Birdsong detection in forests is hard because of wind and rain noise. We study detectors "
         "that work with few labels. Our contributions are a dataset of thirty species and a recurrent model."),
        ("Introduction", 1, "Prior work used handcrafted spectral features; see Table 1 for a comparison of earlier systems."),
        ("Method", 2, "The model is a convolutional recurrent network over log-mel spectrograms. Convolutions extract local "
         "patterns and a bidirectional GRU aggregates them over time. Training uses focal loss to handle class imbalance, "
         "with a learning rate of 0.001 and batch size 64 for 40 epochs on one GPU."),
        ("Results", 4, "Figure 2 plots precision against recall for every species; the recurrent model dominates the baseline. "
         "Detection F1 improves from 0.61 to 0.78 on the held-out forest (Table 2)."),
        ("Results", 5, "Figures 3-4 show failure cases: heavy rain masks high-frequency calls, and insects trigger false alarms."),
        ("Conclusion", 6, "Recurrent models with focal loss are a strong default for bioacoustic monitoring."),
    ]
    blocks = [TextBlock(text=t, page=p, bbox=BOX, section=s) for s, p, t in para]
    floats = dict(
        figures=[FloatRef(kind="figure", n=n, page=p, caption=c, caption_bbox=BOX) for n, p, c in [
            (1, 2, "Figure 1: Architecture of the convolutional recurrent network."),
            (2, 4, "Figure 2: Precision-recall curves per species."),
            (3, 5, "Figure 3: Spectrogram of a rain-masked call."),
            (4, 5, "Figure 4: Insect noise causing false alarms.")]],
        tables=[FloatRef(kind="table", n=n, page=p, caption=c, caption_bbox=BOX) for n, p, c in [
            (1, 1, "Table 1: Earlier birdsong systems."), (2, 4, "Table 2: Detection F1 on the held-out forest.")]],
    )
    return ParsedPaper(sha256=sha, pages=6, title="Learning to Detect Birdsong", blocks=blocks, **floats)


def test_float_mentions_expand_ranges_lists_and_abbreviations():
    assert float_mentions("see Fig. 2 and Tables 1 and 3; Figures 4-6") == ["figure:2", "table:1", "table:3", "figure:4", "figure:5", "figure:6"]
    assert float_mentions("Figure 9 and Table 1", known={"table:1"}) == ["table:1"]
    assert float_mentions("the figures show no table") == []


def test_chunks_follow_sections_and_keep_pages_and_mentions():
    chunks = chunk_paper(_paper())
    body = [c for c in chunks if not c.section.endswith("caption")]
    # the two short introduction paragraphs are joined; sections never mix
    assert [(c.section, c.page) for c in body] == [
        ("Introduction", 1), ("Method", 2), ("Results", 4), ("Results", 5), ("Conclusion", 6)]
    intro = body[0]
    assert "handcrafted" in intro.text and intro.page == 1 and intro.mentions == ["table:1"]
    results = [c for c in body if c.section == "Results"]
    assert results[0].page == 4 and {"figure:2", "table:2"} <= set(results[0].mentions)
    assert sum(c.section.endswith("caption") for c in chunks) == 6


def test_long_paragraphs_are_split_with_overlap():
    words = [f"w{i}" for i in range(500)]
    parsed = ParsedPaper(sha256="b" * 64, pages=1, blocks=[TextBlock(text=" ".join(words), page=1, bbox=BOX, section="A")])
    chunks = chunk_paper(parsed)
    assert len(chunks) == 4 and all(len(c.text.split()) <= 180 for c in chunks)
    assert chunks[1].text.split()[0] == "w150"  # 30 words of overlap with the first window


@pytest.mark.parametrize("query,section,page", [
    ("what learning rate and batch size were used for training", "Method", 2),
    ("how much did F1 improve on the held-out forest", "Results", 4),
    ("which failure cases were observed", "Results", 5),
])
def test_rank_chunks_finds_the_passage_that_answers(tmp_path, query, section, page):
    spans = rank_chunks(_paper(), query, 3, tmp_path)
    # the answering paragraph, or the caption of the float it cites, then that paragraph
    assert (section, page) in [(s.chunk.section, s.chunk.page) for s in spans[:2]]
    assert spans[0].chunk.page == page
    assert [s.rank for s in spans] == [1, 2, 3]


def test_chunk_index_is_cached_on_disk_by_sha_and_reused(tmp_path):
    sha = "c" * 64
    rank_chunks(_paper(sha), "learning rate and batch size", 2, tmp_path)
    folder = tmp_path / "rag" / sha
    assert (folder / "chunks.json").is_file() and (folder / "index" / "ids.json").is_file()
    from tools import pdf_rag as mod

    mod._CACHE._mem.clear()  # a new process: must come back from disk without re-embedding
    stamp = (folder / "chunks.json").stat().st_mtime_ns
    again = rank_chunks(_paper(sha), "learning rate and batch size", 2, tmp_path)
    assert (folder / "chunks.json").stat().st_mtime_ns == stamp
    assert again[0].chunk.section == "Method"


def test_format_spans_names_section_page_and_floats(tmp_path):
    spans = rank_chunks(_paper(), "precision recall per species", 2, tmp_path)
    text = format_spans("Learning to Detect Birdsong", "P007", "precision recall per species", spans)
    assert "[1] (section" in text and "page 4" in text and "Figure 2" in text


def test_paper_without_text_is_a_data_access_error(tmp_path):
    from tools import ToolError

    with pytest.raises(ToolError, match="no extractable text") as e:
        rank_chunks(ParsedPaper(sha256="d" * 64, pages=1), "anything", 3, tmp_path)
    assert e.value.kind == "data_access"


def _build_in_child(cache: str, log: str, barrier) -> None:  # noqa: ANN001
    """A second process (a run beside another): ranks the same paper once both are at the start line."""
    import time
    from pathlib import Path

    from tools import pdf_rag as mod

    original = mod.chunk_paper

    def slow_chunks(parsed):  # noqa: ANN001, ANN202
        with open(log, "a") as f:  # this process builds the index (chunks, then embeddings)
            f.write("built\n")
        time.sleep(1.0)  # long enough that an unguarded second process would start its own build
        return original(parsed)

    mod.chunk_paper = slow_chunks
    barrier.wait()
    spans = rank_chunks(_paper("d" * 64), "learning rate and batch size", 2, Path(cache))
    assert spans and spans[0].chunk.section == "Method"


def test_two_processes_sharing_a_cache_embed_a_paper_once(tmp_path):
    """make run's agents run side by side over one cache: the second process to open a paper waits for the first
    one's index and reads it instead of embedding the paper again (and neither fails on the other's folder)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    log = tmp_path / "builds.log"
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_build_in_child, args=(str(tmp_path), str(log), barrier)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    assert log.read_text().splitlines() == ["built"]
    assert (tmp_path / "rag" / ("d" * 64) / "chunks.json").is_file()
