"""The PDF limits (issue 24 item 4): defaults a user can raise, the child process that holds the first parse of
an untrusted file to seconds and memory, the cache that makes it a one-time cost, and who is trusted."""
from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

import tools.pdf._isolate as isolate_module
import tools.pdf._load as load_module
from tools import get_tool
from tools.pdf import PdfError, PdfLimits, PdfLimitsError, parse_cached, parse_isolated, parse_pdf

from .pdf_hostile import flate_bomb_pdf, glyph_flood_pdf, huge_image_pdf, plain_pdf
from .test_pdf_hostile import _cli, hostile  # noqa: F401  (session fixture)
from .test_pdf_tools import FolderWorld

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realpdfs" / "N18-3011.pdf"


def _no_child(*args, **kwargs):
    raise AssertionError("a parse process was asked for")


# ---- the limits themselves ----------------------------------------------------------------------
def test_limits_come_from_defaults_then_environment_then_the_option() -> None:
    d = PdfLimits()
    assert (d.pages, d.file_mb, d.decompressed_mb, d.image_megapixels, d.seconds, d.memory_mb) == (
        300, 50, 256, 100, 60, 2048)
    env = PdfLimits.from_env({"EPI_PDF_MAX_SECONDS": "120", "EPI_PDF_MAX_IMAGE_MEGAPIXELS": "400", "HOME": "/x"})
    assert env.seconds == 120 and env.image_megapixels == 400 and env.pages == 300
    both = env.with_overrides(["seconds=5", "decompressed-mb = 1024"])
    assert both.seconds == 5 and both.decompressed_mb == 1024 and both.image_megapixels == 400


@pytest.mark.parametrize("env, pairs, words", [
    ({"EPI_PDF_MAX_SECONDS": "soon"}, [], "EPI_PDF_MAX_SECONDS='soon'"),
    ({"EPI_PDF_MAX_PAGES": "0"}, [], "EPI_PDF_MAX_PAGES='0'"),
    ({}, ["pixels=5"], "name among pages, file_mb"),
    ({}, ["seconds"], "expected name=value"),
    ({}, ["memory_mb=-1"], "--pdf-limit memory_mb='-1'"),
])
def test_a_bad_limit_is_refused_naming_where_it_was_set(env: dict, pairs: list[str], words: str) -> None:
    with pytest.raises(PdfLimitsError) as e:
        PdfLimits.from_env(env).with_overrides(pairs)
    assert words in str(e.value)


def test_the_file_size_limit_refuses_before_anything_is_parsed(hostile: dict[str, Path], monkeypatch) -> None:
    monkeypatch.setattr(isolate_module._ZYGOTE, "worker", _no_child)
    with pytest.raises(PdfError) as e:
        parse_isolated(hostile["image"].read_bytes(), PdfLimits(file_mb=5))
    assert e.value.kind == "limit" and "the file is 10.2 MB, over the limit of 5 MB" in e.value.message


# ---- the checks, in process (fast) --------------------------------------------------------------
def test_checks_measure_an_honest_file_and_refuse_each_hostile_one(hostile: dict[str, Path]) -> None:
    parsed = parse_pdf(hostile["plain"].read_bytes(), limits=PdfLimits())
    assert parsed.measured is not None and parsed.measured.largest_image_pixels == 0
    assert 0 < parsed.measured.decompressed_bytes < 10_000
    for name, words in (("bomb", "decompress to more than 256 MB"), ("image", "image of 60000 x 60000 pixels"),
                        ("count", "says /Count 100000 at object 2 but holds 2 pages"),
                        ("cycle", "page tree reaches object 2 twice")):
        with pytest.raises(PdfError) as e:
            parse_pdf(hostile[name].read_bytes(), limits=PdfLimits())
        assert words in e.value.message, (name, e.value.message)


def test_the_page_tree_walk_follows_indirect_kids_and_counts() -> None:
    assert parse_pdf(plain_pdf(3, indirect=True), limits=PdfLimits()).pages == 3
    with pytest.raises(PdfError, match="says /Count 7 at object 2 but holds 3 pages"):
        parse_pdf(plain_pdf(3, indirect=True, count=7))


def test_raising_a_limit_lets_the_same_file_through(hostile: dict[str, Path]) -> None:
    data = hostile["image"].read_bytes()
    parsed = parse_pdf(data, limits=PdfLimits(image_megapixels=4000))
    assert parsed.measured.largest_image_pixels == 60_000 * 60_000 and parsed.figure(1) is not None


# ---- the child process --------------------------------------------------------------------------
def test_the_child_parses_exactly_what_the_process_parses() -> None:
    data = REAL.read_bytes() if REAL.is_file() else plain_pdf(3)
    here, there = parse_pdf(data, limits=PdfLimits()), parse_isolated(data, PdfLimits())
    assert there == here


def test_the_parse_processes_get_no_secret_from_the_callers_environment(monkeypatch) -> None:
    isolate_module._ZYGOTE._stop()  # started again below, while the caller's environment holds a key
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-0123")
    assert parse_isolated(plain_pdf(), PdfLimits()).pages == 2
    zygote = isolate_module._ZYGOTE._proc
    assert zygote is not None and zygote.poll() is None
    environ = Path(f"/proc/{zygote.pid}/environ").read_bytes()
    assert b"PATH=" in environ and b"sk-canary-0123" not in environ and b"OPENAI_API_KEY" not in environ


def test_one_zygote_forks_every_worker_and_comes_back_if_it_dies() -> None:
    parse_isolated(plain_pdf(), PdfLimits())
    zygote = isolate_module._ZYGOTE._proc
    assert parse_isolated(plain_pdf(3), PdfLimits()).pages == 3
    assert isolate_module._ZYGOTE._proc is zygote  # no new interpreter for the second file
    zygote.kill()
    zygote.wait()
    assert parse_isolated(plain_pdf(4), PdfLimits()).pages == 4
    assert isolate_module._ZYGOTE._proc is not zygote


def test_seconds_limit_stops_a_parse_mupdf_cannot_interrupt() -> None:
    with pytest.raises(PdfError) as e:
        parse_isolated(glyph_flood_pdf(1), PdfLimits(seconds=0.5))
    assert e.value.kind == "limit" and "EPI_PDF_MAX_SECONDS" in e.value.message
    assert "longer than 0.5 s" in e.value.message or "more than 0.5 CPU seconds" in e.value.message


@pytest.mark.slow
def test_memory_limit_stops_a_parse_that_needs_more_and_raising_it_lets_it_through() -> None:
    data = glyph_flood_pdf(1)
    with pytest.raises(PdfError) as e:
        parse_isolated(data, PdfLimits(memory_mb=200))
    assert e.value.kind == "limit" and "needs more memory, over the limit of 200 MB" in e.value.message
    assert "EPI_PDF_MAX_MEMORY_MB" in e.value.message
    assert parse_isolated(data, PdfLimits(memory_mb=2048)).pages == 1


# ---- the cache: the child runs once per file ----------------------------------------------------
def test_the_first_parse_is_cached_and_the_cache_keeps_the_limits(tmp_path: Path, monkeypatch) -> None:
    data = huge_image_pdf(6000, rgb=False)  # 36 megapixels
    first = parse_cached(data, tmp_path, limits=PdfLimits())
    assert first.measured is not None and first.measured.largest_image_pixels == 36_000_000
    monkeypatch.setattr(load_module, "parse_isolated", _no_child)
    assert parse_cached(data, tmp_path, limits=PdfLimits()) == first
    with pytest.raises(PdfError) as e:  # a lower limit refuses the cached parse, as a fresh one would
        parse_cached(data, tmp_path, limits=PdfLimits(image_megapixels=10))
    assert "36 megapixels, over the limit of 10 megapixels" in e.value.message


def test_a_refusal_is_remembered_for_the_same_limits_only(tmp_path: Path, monkeypatch) -> None:
    data = flate_bomb_pdf(300)
    with pytest.raises(PdfError, match="decompress"):
        parse_cached(data, tmp_path, limits=PdfLimits())
    monkeypatch.setattr(load_module, "parse_isolated", _no_child)
    with pytest.raises(PdfError, match="decompress"):  # no second child for the same file and limits
        parse_cached(data, tmp_path, limits=PdfLimits())
    with pytest.raises(AssertionError, match="parse process"):  # other limits: parsed again
        parse_cached(data, tmp_path, limits=PdfLimits(decompressed_mb=512))


def test_trusted_bytes_parse_in_process(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(load_module, "parse_isolated", _no_child)
    parsed = parse_cached(plain_pdf(), tmp_path, limits=PdfLimits(), trusted=True)
    assert parsed.pages == 2 and parsed.measured is None


def test_the_sandbox_trusts_its_generated_papers_only(tiny_sandbox: Path) -> None:
    from sandbox.world import SandboxWorld
    from tools import PaperMeta

    world = SandboxWorld(tiny_sandbox)
    generated = world.catalog.papers[0]
    assert world.pdf_trusted(world.meta(generated))
    added = generated.model_copy(update={"id": "U001", "origin": "added"})
    world._by_id["U001"] = added
    try:
        assert not world.pdf_trusted(world.meta(added))
    finally:
        del world._by_id["U001"]
    assert not world.pdf_trusted(PaperMeta(id="U999", title="not in the catalog"))


# ---- tools and CLI --------------------------------------------------------------------------------
def test_a_tool_reads_the_world_limits_and_the_environment(hostile: dict[str, Path], tmp_path: Path,
                                                           monkeypatch) -> None:
    world = FolderWorld(hostile["image"].parent, tmp_path / "cache")
    monkeypatch.setenv("EPI_PDF_MAX_IMAGE_MEGAPIXELS", "4000")
    res = asyncio.run(get_tool("pdf_extract")(world, {"paper": "image"}))
    assert not res.is_error and res.data["figures"][0]["n"] == 1
    world.pdf_limits = PdfLimits()  # the world's own limits win over the environment
    res = asyncio.run(get_tool("pdf_extract")(world, {"paper": "image"}))
    assert res.is_error and "an image of 3,600 megapixels, over the limit of 100 megapixels" in res.error
    world.pdf_limits = None
    monkeypatch.setenv("EPI_PDF_MAX_SECONDS", "never")
    res = asyncio.run(get_tool("pdf_extract")(world, {"paper": "image"}))
    assert res.is_error and "EPI_PDF_MAX_SECONDS='never'" in res.error


def test_epi_paper_inspect_takes_a_raised_limit(hostile: dict[str, Path], tmp_path: Path, monkeypatch, capsys) -> None:
    env = {"EPI_CACHE_DIR": str(tmp_path / "cache")}
    args = ["paper", "inspect", str(hostile["image"]), "--json"]
    code, out = _cli(args + ["--pdf-limit", "image_megapixels=4000"], monkeypatch, capsys, env)
    assert code == 0 and '"caption": "Figure 1: A plot of everything' in out, out
    code, out = _cli(args + ["--pdf-limit", "megapixels=4000"], monkeypatch, capsys, env)
    assert code == 2 and "--pdf-limit 'megapixels=4000'" in out and "image_megapixels" in out
    code, out = _cli(["paper", "inspect", str(hostile["plain"]), "--pdf-limit", "file_mb=0.001"], monkeypatch,
                     capsys, env)
    assert code == 2 and "plain.pdf" in out and "over the limit of 0.001 MB" in out


def test_epi_paper_figure_renders_an_ordinary_figure(tmp_path: Path, monkeypatch, capsys) -> None:
    path = tmp_path / "small.pdf"
    path.write_bytes(huge_image_pdf(600, rgb=False))
    out_png = tmp_path / "f.png"
    code, out = _cli(["paper", "figure", str(path), "1", "--out", str(out_png)], monkeypatch, capsys,
                     {"EPI_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 0 and out_png.read_bytes().startswith(b"\x89PNG"), out
    code, out = _cli(["paper", "figure", str(path), "1", "--out", str(out_png), "--dpi", "20000"], monkeypatch,
                     capsys, {"EPI_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 2 and "at 20000 dpi makes a" in out and "image_megapixels" in out


@pytest.mark.slow
def test_the_cli_refusal_from_a_real_process_has_no_traceback(hostile: dict[str, Path], tmp_path: Path) -> None:
    import sys

    env = {**os.environ, "EPI_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "300"}
    r = subprocess.run([sys.executable, "-m", "harness", "paper", "inspect", str(hostile["count"])],
                       capture_output=True, text=True, timeout=120, env=env, cwd=Path(__file__).resolve().parents[2])
    assert r.returncode == 2 and "Traceback" not in r.stderr + r.stdout
    assert "count.pdf" in r.stderr and "page tree" in r.stderr
