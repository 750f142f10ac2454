"""Bad PDFs give one clear PdfError (tools: an error result; CLI: exit 2, one line), never a crash or a hang."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from tools.pdf import PdfError, parse_pdf

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realpdfs" / "N18-3011.pdf"


def _small_pdf(pages: int = 1, text: str = "Hello") -> bytes:
    doc = pymupdf.open()
    for i in range(pages):
        doc.new_page().insert_text((72, 72), f"{text} {i + 1}")
    data = doc.tobytes()
    doc.close()
    return data


def _encrypted_pdf() -> bytes:
    doc = pymupdf.open(stream=_small_pdf(), filetype="pdf")
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")
    doc.close()
    return data


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b"<html><body>not a pdf</body></html>", "not a PDF"),
    (b"%PDF-1.7\n" + os.urandom(2000), "corrupt"),
    (REAL.read_bytes()[:2000] if REAL.is_file() else b"%PDF-1.4\n1 0 obj", "corrupt"),
])
def test_unreadable_input_names_the_problem(data: bytes, words: str) -> None:
    with pytest.raises(PdfError) as e:
        parse_pdf(data)
    assert words.lower() in e.value.message.lower()
    assert e.value.kind == "data_access"


def test_encrypted_pdf_is_refused() -> None:
    with pytest.raises(PdfError, match="encrypted"):
        parse_pdf(_encrypted_pdf())


def test_page_cap_refuses_a_500_page_pdf_quickly() -> None:
    data = _small_pdf(500)
    with pytest.raises(PdfError, match=r"more than 300 pages \(its page tree says 500\), over the limit of 300") as e:
        parse_pdf(data)
    assert e.value.kind == "limit" and "EPI_PDF_MAX_PAGES" in e.value.message
    assert parse_pdf(data, max_pages=600).pages == 500


def test_pdf_without_text_layer_says_so() -> None:
    doc = pymupdf.open()
    doc.new_page().draw_rect(pymupdf.Rect(100, 100, 300, 300), color=(0, 0, 0))
    with pytest.raises(PdfError, match="no text layer"):
        parse_pdf(doc.tobytes())


@pytest.mark.slow
def test_cli_reports_bad_files_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "notes.pdf"
    bad.write_text("just some notes")
    epi = Path(sys.executable).parent / "epi"
    res = subprocess.run([str(epi), "paper", "inspect", str(bad), "--json"], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert res.returncode == 2
    assert "notes.pdf" in res.stderr and "not a PDF" in res.stderr
    assert "Traceback" not in res.stderr + res.stdout


def test_cli_user_errors_name_the_file(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import harness.cli  # noqa: F401
    from harness.cli._apps import UserError, app

    res = CliRunner().invoke(app, ["paper", "table", str(tmp_path / "nope.pdf"), "1", "--json"])
    assert isinstance(res.exception, UserError) and "nope.pdf: no such file" in str(res.exception)
    if REAL.is_file():
        res = CliRunner().invoke(app, ["paper", "figure", str(REAL), "7", "--out", str(tmp_path / "f.png")])
        assert isinstance(res.exception, UserError)
        assert "no Figure 7; the figures found are: 1" in str(res.exception)
