"""Issue 24, finding 6: hostile PDFs. A page tree that lies about /Count crashed `epi paper inspect` and
`epi sandbox add` with a RuntimeError and went through pdf_extract as an exception; a 1 MB flate bomb took
47 s to inspect and 70 s to add; a 10 MB file with a 60000 x 60000 image took 97 s to render its figure.
Each is now a clear refusal: exit 2 at the CLI, an error result from every PDF tool, within seconds."""
from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tools import World, get_tool
from tools.pdf import FloatRef, PdfError, crop_figure, parse_pdf

from ..harness.test_run_cli import epi
from .pdf_hostile import cyclic_page_tree_pdf, flate_bomb_pdf, huge_image_pdf, lying_count_pdf, plain_pdf
from .test_pdf_tools import FolderWorld  # a user's folder of PDFs, paper id = file stem: untrusted

PDF_TOOLS = {"pdf_extract": {}, "pdf_rag": {"query": "results"}, "figure_extract": {"figure": 1},
             "table_extract": {"table": 1}}
# the figure of huge_image_pdf: the image is drawn at (162, 176)-(450, 392), its caption below it
HUGE_FIGURE = FloatRef(kind="figure", n=1, page=1, caption="Figure 1: A plot", caption_bbox=(72, 397, 314, 410),
                       bbox=(162, 176, 450, 410))


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The hostile files of finding 6, written once per session (about 12 MB, built in well under a second)."""
    root = tmp_path_factory.mktemp("hostile_pdfs")
    made = {"count": lying_count_pdf(), "cycle": cyclic_page_tree_pdf(), "bomb": flate_bomb_pdf(512),
            "image": huge_image_pdf(), "plain": plain_pdf()}
    for name, data in made.items():
        (root / f"{name}.pdf").write_bytes(data)
    return {name: root / f"{name}.pdf" for name in made}


def _call(world: World, tool: str, args: dict):
    return asyncio.run(get_tool(tool)(world, args))


def _cli(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         env: dict[str, str] | None = None) -> tuple[int, str]:
    """`epi ...` in-process through the real entry point: exit code and everything printed, on one line."""
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    code, out = epi(args, capsys, monkeypatch)
    return code, " ".join(out.split())


def test_the_honest_file_of_the_same_writer_parses(hostile: dict[str, Path]) -> None:
    """The generator writes valid PDFs: what the other tests refuse is the flaw, not the writer."""
    parsed = parse_pdf(hostile["plain"].read_bytes())
    assert parsed.pages == 2 and parsed.markdown.count("We study how retrieval models") >= 2


@pytest.mark.parametrize("name", ["count", "cycle"])
def test_a_page_tree_that_lies_is_a_pdf_error_naming_the_tree(hostile: dict[str, Path], name: str) -> None:
    with pytest.raises(PdfError) as e:
        parse_pdf(hostile[name].read_bytes())
    assert "page tree" in e.value.message


@pytest.mark.parametrize("tool", list(PDF_TOOLS))
def test_every_pdf_tool_returns_an_error_result_for_a_lying_page_tree(
        hostile: dict[str, Path], tmp_path: Path, tool: str) -> None:
    world = FolderWorld(hostile["count"].parent, tmp_path / "cache")
    res = _call(world, tool, {"paper": "count", **PDF_TOOLS[tool]})
    assert res.is_error and "page tree" in res.error and "100000" in res.error, res.error
    assert res.error_kind == "data_access"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("tool", ["pdf_extract", "pdf_rag"])
def test_a_flate_bomb_is_refused_by_the_tools(hostile: dict[str, Path], tmp_path: Path, tool: str) -> None:
    world = FolderWorld(hostile["bomb"].parent, tmp_path / "cache")
    res = _call(world, tool, {"paper": "bomb", **PDF_TOOLS[tool]})
    assert res.is_error and res.error_kind == "limit", res.error
    assert "decompress" in res.error and "EPI_PDF_MAX_DECOMPRESSED_MB" in res.error


@pytest.mark.timeout(200)
def test_a_huge_image_is_refused_before_figure_extract_renders_it(hostile: dict[str, Path], tmp_path: Path) -> None:
    world = FolderWorld(hostile["image"].parent, tmp_path / "cache")
    res = _call(world, "figure_extract", {"paper": "image", "figure": 1})
    assert res.is_error and res.error_kind == "limit", res.error
    assert "60000 x 60000" in res.error and "EPI_PDF_MAX_IMAGE_MEGAPIXELS" in res.error


@pytest.mark.timeout(200)
def test_cropping_a_huge_image_is_refused_before_rendering(hostile: dict[str, Path]) -> None:
    """The render itself checks the pixels of what it would draw, whoever parsed the file."""
    with pytest.raises(PdfError) as e:
        crop_figure(hostile["image"].read_bytes(), HUGE_FIGURE)
    assert e.value.kind == "limit" and "60000 x 60000" in e.value.message


@pytest.mark.timeout(200)
@pytest.mark.parametrize("name, words", [("count", "page tree"), ("cycle", "page tree"),
                                         ("bomb", "decompress"), ("image", "60000 x 60000")])
def test_epi_paper_inspect_refuses_with_exit_2(hostile: dict[str, Path], tmp_path: Path, name: str, words: str,
                                               monkeypatch, capsys) -> None:
    code, out = _cli(["paper", "inspect", str(hostile[name]), "--json"], monkeypatch, capsys,
                     {"EPI_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 2 and f"{name}.pdf" in out and words in out, out
    assert "Traceback" not in out


@pytest.mark.timeout(200)
def test_epi_paper_figure_refuses_a_huge_image_with_exit_2(hostile: dict[str, Path], tmp_path: Path,
                                                           monkeypatch, capsys) -> None:
    png = tmp_path / "fig.png"
    code, out = _cli(["paper", "figure", str(hostile["image"]), "1", "--out", str(png)], monkeypatch, capsys,
                     {"EPI_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 2 and "image.pdf" in out and "60000 x 60000" in out, out
    assert not png.exists()


@pytest.fixture
def sandbox_copy(tiny_sandbox: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "sandbox"
    shutil.copytree(tiny_sandbox, dst, ignore=shutil.ignore_patterns("cache"))
    return dst


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name, words", [("count", "page tree"), ("bomb", "decompress")])
def test_epi_sandbox_add_refuses_and_leaves_the_sandbox_unchanged(
        hostile: dict[str, Path], sandbox_copy: Path, name: str, words: str, monkeypatch, capsys) -> None:
    before = (sandbox_copy / "catalog.json").read_bytes()
    code, out = _cli(["sandbox", "add", str(hostile[name]), "--sandbox", str(sandbox_copy)], monkeypatch, capsys,
                     {"EPI_SANDBOX_DIR": str(sandbox_copy)})
    assert code == 2 and f"{name}.pdf" in out and words in out, out
    assert "sandbox was not changed" in out and "Traceback" not in out
    assert (sandbox_copy / "catalog.json").read_bytes() == before
    assert not (sandbox_copy / "added").exists() or not any((sandbox_copy / "added").iterdir())
    # into a corpus still to be made from it: refused before the folder is made
    new = sandbox_copy.parent / "mine"
    code, out = _cli(["sandbox", "add", str(hostile[name]), "--sandbox", str(new)], monkeypatch, capsys)
    assert code == 2 and "sandbox was not changed" in out and not new.exists()
