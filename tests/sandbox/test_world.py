"""SandboxWorld (resolve, bytes, search) and `epi sandbox add|stats` over a small built corpus."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from sandbox.corpus.build import load_catalog, load_ground_truth
from sandbox.legacy.corpus_v1.layout import render_paper
from sandbox.legacy.corpus_v1.plan import plan_corpus
from sandbox.legacy.corpus_v1.prose import reference_string
from sandbox.world import SandboxNotBuilt, SandboxWorld
from tools import PaperNotFound

from .test_corpus import built_sandbox  # noqa: F401  (session fixture, built once)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def world(built_sandbox: Path) -> SandboxWorld:  # noqa: F811
    return SandboxWorld(built_sandbox)


async def test_resolve_accepts_id_title_url_and_arxiv_id(world: SandboxWorld) -> None:
    e = world.catalog.papers[3]
    for ref in (e.id, e.id.lower(), e.title, e.title.upper().replace(":", ""), f"  {e.title}  ",
                f"https://sandbox.local/papers/{e.id}", f"http://mirror.example/pdf/{e.id}.pdf",
                e.arxiv_id, f"arXiv:{e.arxiv_id}v2", f"https://arxiv.org/abs/{e.arxiv_id}"):
        meta = await world.resolve(ref)
        assert meta.id == e.id, ref
    assert meta.url == f"https://sandbox.local/papers/{e.id}" and meta.title == e.title and meta.year == e.year


async def test_resolve_fuzzy_title_with_a_typo(world: SandboxWorld) -> None:
    e = world.catalog.papers[5]
    typo = e.title[:10] + e.title[11:]  # one character dropped
    assert (await world.resolve(typo)).id == e.id


@pytest.mark.parametrize("ref", ["../catalog.json", "/etc/passwd", "corpus/../../secret.pdf", "~/x.pdf",
                                 "file:///etc/passwd", "C:\\Windows\\x.pdf", "https://sandbox.local/papers/../P001"])
async def test_resolve_refuses_paths(world: SandboxWorld, ref: str) -> None:
    with pytest.raises(PaperNotFound, match="refusing|does not name"):
        await world.resolve(ref)


@pytest.mark.parametrize("ref", ["", "P999", "9999.99999", "https://sandbox.local/papers/P999",
                                 "A Title That Matches Nothing In The Corpus At All"])
async def test_resolve_unknown_says_what_was_not_found(world: SandboxWorld, ref: str) -> None:
    with pytest.raises(PaperNotFound) as err:
        await world.resolve(ref)
    assert str(err.value)


async def test_pdf_bytes_are_the_corpus_file(world: SandboxWorld, built_sandbox: Path) -> None:  # noqa: F811
    meta = await world.resolve("P002")
    data = await world.pdf_bytes(meta)
    assert data.startswith(b"%PDF-") and data == (built_sandbox / "corpus" / "P002.pdf").read_bytes()


def test_pdf_bytes_never_leave_the_sandbox(built_sandbox: Path, tmp_path: Path) -> None:  # noqa: F811
    root = tmp_path / "sb"
    root.mkdir()
    catalog = load_catalog(built_sandbox)
    assert catalog is not None
    catalog.papers[0].pdf = "../outside.pdf"
    (tmp_path / "outside.pdf").write_bytes(b"%PDF-1.4 secret")
    (root / "catalog.json").write_text(catalog.model_dump_json())
    with pytest.raises(PermissionError, match="outside the sandbox"):
        SandboxWorld(root).pdf_path(catalog.papers[0].id)


def test_unbuilt_sandbox_says_how_to_build(tmp_path: Path) -> None:
    with pytest.raises(SandboxNotBuilt, match="epi sandbox build"):
        SandboxWorld(tmp_path)


async def test_search_finds_a_paper_by_title_and_by_authors(world: SandboxWorld) -> None:
    e = world.catalog.papers[7]
    hits = await world.search(e.title, 5)
    assert hits[0].paper_id == e.id and hits[0].url == f"https://sandbox.local/papers/{e.id}"
    assert e.authors[0] in hits[0].snippet and str(e.year) in hits[0].snippet
    family = " ".join(a.split()[-1] for a in e.authors[:2])
    hits = await world.search(f"{family} {e.venue} {e.year}", 5)
    assert e.id in [h.paper_id for h in hits]


# ---- the CLI: stats and add --------------------------------------------------------------

def _cli(args: list[str], sandbox: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run `epi ...` in-process through harness.cli.main (the real entry point); return exit code and output."""
    from harness.cli import main

    monkeypatch.setenv("EPI_SANDBOX_DIR", str(sandbox))
    monkeypatch.setattr(sys, "argv", ["epi", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


def test_stats_json_has_the_promised_keys(built_sandbox: Path, monkeypatch, capsys) -> None:  # noqa: F811
    code, out = _cli(["sandbox", "stats", "--json"], built_sandbox, monkeypatch, capsys)
    assert code == 0
    stats = json.loads(out)
    gt = load_ground_truth(built_sandbox)
    assert stats["papers"] == len(gt.papers) and stats["areas"] == 6
    assert stats["figures"] == sum(len(p.figures) for p in gt.papers)
    assert stats["pages"] == sum(p.pages for p in gt.papers) and stats["tables"] > 0
    assert sum(stats["by_area"].values()) == stats["papers"] and set(stats["layouts"]) == {"one_column", "two_column"}


def test_stats_on_unbuilt_sandbox_is_a_user_error(tmp_path: Path, monkeypatch, capsys) -> None:
    code, out = _cli(["sandbox", "stats", "--json"], tmp_path, monkeypatch, capsys)
    assert code == 2 and "epi sandbox build" in out and "Traceback" not in out


@pytest.fixture
def sandbox_copy(built_sandbox: Path, tmp_path: Path) -> Path:  # noqa: F811
    dst = tmp_path / "sandbox"
    shutil.copytree(built_sandbox, dst, ignore=shutil.ignore_patterns("cache"))
    return dst


def _foreign_paper(tmp_path: Path) -> tuple[Path, object]:
    """A real paper PDF from a corpus with another seed (so it is new to the sandbox)."""
    gt = plan_corpus(99, 6)
    p = next(q for q in gt.papers if q.references)
    by_id = {q.id: q for q in gt.papers}
    path = tmp_path / "my paper.pdf"
    path.write_bytes(render_paper(p, [reference_string(by_id[r]) for r in p.references], set()))
    return path, p


@pytest.mark.slow
def test_add_a_real_pdf_catalogs_and_indexes_it(sandbox_copy: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    path, paper = _foreign_paper(tmp_path)
    code, out = _cli(["sandbox", "add", str(path), "--sandbox", str(sandbox_copy)], sandbox_copy, monkeypatch, capsys)
    assert code == 0, out
    catalog = load_catalog(sandbox_copy)
    assert catalog is not None
    entry = catalog.get("U001")
    assert entry is not None and entry.origin == "added" and entry.pages == paper.pages
    assert entry.title == paper.title
    assert entry.figures == [f.n for f in paper.figures] and entry.tables == [t.n for t in paper.tables]
    assert (sandbox_copy / entry.pdf).read_bytes() == path.read_bytes()
    import asyncio
    world = SandboxWorld(sandbox_copy)
    assert asyncio.run(world.resolve("U001")).title == paper.title
    assert asyncio.run(world.search(paper.title, 3))[0].paper_id == "U001"
    code, out = _cli(["sandbox", "add", str(path), "--sandbox", str(sandbox_copy)], sandbox_copy, monkeypatch, capsys)
    assert code == 0 and "already" in out and len(load_catalog(sandbox_copy).papers) == len(catalog.papers)


def _bad_inputs(tmp_path: Path) -> dict[str, Path]:
    good = pymupdf.open()
    good.new_page().insert_text((72, 72), "A locked paper")
    encrypted = tmp_path / "locked.pdf"
    good.save(encrypted, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    text = tmp_path / "notes.txt"
    text.write_text("just some notes, not a paper\n")
    return {"encrypted": encrypted, "corrupt": corrupt, "empty": empty, "text": text,
            "missing": tmp_path / "nope.pdf", "folder": tmp_path}


@pytest.mark.parametrize("case", ["encrypted", "corrupt", "empty", "text", "missing", "folder"])
def test_add_refuses_unreadable_input_and_leaves_the_sandbox_unchanged(
        case: str, sandbox_copy: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    bad = _bad_inputs(tmp_path)[case]
    before = (sandbox_copy / "catalog.json").read_bytes()
    index_before = (sandbox_copy / "index" / "ids.json").read_bytes()
    code, out = _cli(["sandbox", "add", str(bad), "--sandbox", str(sandbox_copy)], sandbox_copy, monkeypatch, capsys)
    assert code == 2, out
    assert "Traceback" not in out and bad.name in out.replace("\n", "")
    assert (sandbox_copy / "catalog.json").read_bytes() == before
    assert (sandbox_copy / "index" / "ids.json").read_bytes() == index_before
    assert not (sandbox_copy / "added").exists() or not any((sandbox_copy / "added").iterdir())


@pytest.mark.slow
def test_add_from_a_real_subprocess_exits_2_without_traceback(sandbox_copy: Path, tmp_path: Path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.5\n%%EOF garbage")
    env = {"PATH": "/usr/bin:/bin", "EPI_SANDBOX_DIR": str(sandbox_copy), "HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, "-m", "harness", "sandbox", "add", str(bad), "--sandbox", str(sandbox_copy)],
                       cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr + r.stdout
    err = r.stderr.replace("\n", "")
    assert "broken.pdf" in err and "corrupt" in err.lower()


async def test_search_is_the_general_engine_over_page_text(world: SandboxWorld, built_sandbox: Path) -> None:  # noqa: F811
    """No re-ranking on top of the index, and the body of a paper is searchable like its header."""
    from tools.search_index import HybridIndex

    index = HybridIndex.load(built_sandbox / "index")
    for q in ("image classification", "Okafor CVPR 2021", world.catalog.papers[2].title):
        assert [h.paper_id for h in await world.search(q, 5)] == [d for d, _ in index.search(q, 5)]
    gt = load_ground_truth(built_sandbox)
    cited = max(gt.papers, key=lambda q: sum(q.id in r.references for r in gt.papers))
    citers = {r.id for r in gt.papers if cited.id in r.references}
    hits = [h.paper_id for h in await world.search(cited.method, 10)]
    assert hits[0] == cited.id and citers & set(hits[1:])  # its name in other papers' bodies is found too


async def test_corpus_v3_ids_resolve(built_sandbox: Path, tmp_path: Path) -> None:  # noqa: F811
    """Corpus v3 numbers its papers Q0001...; a tool given such an id finds the paper (it once fell through to
    the title search and failed)."""
    root = tmp_path / "sb"
    root.mkdir()
    catalog = load_catalog(built_sandbox)
    assert catalog is not None
    catalog.papers[0].id = "Q0042"
    (root / "catalog.json").write_text(catalog.model_dump_json())
    meta = await SandboxWorld(root).resolve("Q0042")
    assert meta.id == "Q0042" and meta.title == catalog.papers[0].title
