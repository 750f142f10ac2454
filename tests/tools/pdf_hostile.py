"""Hostile PDFs written byte by byte (PyMuPDF refuses to save most of them): a page tree that lies,
a flate bomb, a huge image. Each builds in milliseconds, whatever it decompresses to, because a deflate
stream of one repeated chunk is the same compressed block repeated (see `repeat_deflate`)."""
from __future__ import annotations

import zlib

from .pdf_synth import FILLER

_MOD = 65521


class RawPdf:
    """A PDF as numbered objects, written with a correct xref table."""

    def __init__(self) -> None:
        self.objs: list[bytes | None] = []

    def reserve(self) -> int:
        self.objs.append(None)
        return len(self.objs)

    def set(self, num: int, body: bytes | str) -> int:
        self.objs[num - 1] = body.encode("latin-1") if isinstance(body, str) else body
        return num

    def add(self, body: bytes | str) -> int:
        return self.set(self.reserve(), body)

    def stream(self, head: str, data: bytes, num: int | None = None) -> int:
        """A stream object: `head` is the inside of its dictionary without /Length."""
        body = f"<< {head} /Length {len(data)} >>\nstream\n".encode("latin-1") + data + b"\nendstream"
        return self.set(num or self.reserve(), body)

    def tobytes(self, root: int) -> bytes:
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for i, body in enumerate(self.objs, 1):
            assert body is not None, f"object {i} reserved but never set"
            offsets.append(len(out))
            out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
        xref = len(out)
        out += f"xref\n0 {len(self.objs) + 1}\n0000000000 65535 f \n".encode()
        out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
        out += f"trailer\n<< /Size {len(self.objs) + 1} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
        return bytes(out)


def _adler_combine(a: int, b: int, len_b: int) -> int:
    """adler32 of x+y from adler32(x), adler32(y) and len(y) (zlib's adler32_combine)."""
    a1, b1 = a & 0xFFFF, a >> 16
    a2, b2 = b & 0xFFFF, b >> 16
    s1 = (a1 + a2 - 1) % _MOD
    s2 = (b1 + len_b * a1 + b2 - len_b) % _MOD
    return (s2 << 16) | s1


def repeat_deflate(chunk: bytes, times: int) -> bytes:
    """zlib data of `chunk` repeated `times` times, in O(len(chunk)) work: after a full flush, each
    further copy of the chunk compresses to the same bytes, so one compressed copy is repeated."""
    c = zlib.compressobj(9)
    first = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    tail = c.flush(zlib.Z_FINISH)[:-4]  # the empty final block, without the checksum zlib computed
    one = zlib.adler32(chunk)
    total, doubling, n = 1, one, times
    length = len(chunk)
    while n:  # adler32 of the chunk repeated, by doubling
        if n & 1:
            total = _adler_combine(total, doubling, length)
        doubling = _adler_combine(doubling, doubling, length)
        length *= 2
        n >>= 1
    return first + again * (times - 1) + tail + total.to_bytes(4, "big")


def _text_ops(lines: list[str], x: float = 72, y: float = 720, size: float = 10) -> str:
    esc = [s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for s in lines]
    return f"BT /F1 {size} Tf {size * 1.25} TL {x} {y} Td " + " ".join(f"({s}) Tj T*" for s in esc) + " ET\n"


def _body_lines(n: int = 12) -> list[str]:
    words = FILLER * 6
    return [" ".join(words[i * 11:(i + 1) * 11]) for i in range(n)]


def _text_page(pdf: RawPdf, parent: int, font: int, title: str, extra_content: bytes = b"",
               resources: str = "") -> int:
    ops = _text_ops([title], y=740, size=14) + _text_ops(_body_lines())
    content = pdf.stream("", ops.encode("latin-1") + extra_content)
    return pdf.add(f"<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 612 792] "
                   f"/Resources << /Font << /F1 {font} 0 R >> {resources} >> /Contents {content} 0 R >>")


def _skeleton() -> tuple[RawPdf, int, int, int]:
    pdf = RawPdf()
    catalog = pdf.reserve()
    pages = pdf.reserve()
    pdf.set(catalog, f"<< /Type /Catalog /Pages {pages} 0 R >>")
    font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    return pdf, catalog, pages, font


def lying_count_pdf(count: int = 100_000, real_pages: int = 2) -> bytes:
    """A page tree whose root says /Count `count` over `real_pages` pages."""
    pdf, catalog, pages, font = _skeleton()
    kids = [_text_page(pdf, pages, font, f"Page {i + 1} of a paper") for i in range(real_pages)]
    pdf.set(pages, f"<< /Type /Pages /Count {count} /Kids [{' '.join(f'{k} 0 R' for k in kids)}] >>")
    return pdf.tobytes(catalog)


def cyclic_page_tree_pdf() -> bytes:
    """An inner /Pages node (object 4) that lists the root (object 2) among its kids: the tree loops."""
    pdf, catalog, pages, font = _skeleton()
    inner = pdf.reserve()
    page = _text_page(pdf, inner, font, "A paper with a looping page tree")
    pdf.set(inner, f"<< /Type /Pages /Parent {pages} 0 R /Count 2 /Kids [{page} 0 R {pages} 0 R] >>")
    pdf.set(pages, f"<< /Type /Pages /Count 2 /Kids [{inner} 0 R] >>")
    return pdf.tobytes(catalog)


def flate_bomb_pdf(decompressed_mb: int = 1024) -> bytes:
    """A one-page paper whose content stream inflates to `decompressed_mb` MB of drawing operators
    (about 1 MB on disk per GB)."""
    pdf, catalog, pages, font = _skeleton()
    ops = _text_ops(["A paper whose page content is a flate bomb"], y=740, size=14) + _text_ops(_body_lines())
    chunk = b"0 0 m 1 1 l S\n" * (2**20 // 14) + b"\n" * (2**20 % 14)
    bomb = pdf.stream("/Filter /FlateDecode", repeat_deflate(chunk, decompressed_mb))
    head = pdf.stream("", ops.encode("latin-1"))
    page = pdf.add(f"<< /Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] "
                   f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents [{head} 0 R {bomb} 0 R] >>")
    pdf.set(pages, f"<< /Type /Pages /Count 1 /Kids [{page} 0 R] >>")
    return pdf.tobytes(catalog)


def huge_image_pdf(side: int = 60_000, rgb: bool = True) -> bytes:
    """A paper with `Figure 1`: a side x side image drawn in a 4 x 3 inch box above its caption.
    The pixels are zeros, so a 60000 x 60000 RGB image (10.8 GB decoded) is about 10 MB on disk."""
    pdf, catalog, pages, font = _skeleton()
    comps = 3 if rgb else 1
    row = bytes(side * comps)
    most = max(1, 2**20 // len(row))  # whole rows per chunk of at most 1 MB, a divisor of the height
    rows_per_chunk = max(d for d in range(1, min(side, most) + 1) if side % d == 0)
    chunk, times = row * rows_per_chunk, side // rows_per_chunk
    image = pdf.stream(f"/Type /XObject /Subtype /Image /Width {side} /Height {side} /BitsPerComponent 8 "
                       f"/ColorSpace /{'DeviceRGB' if rgb else 'DeviceGray'} /Filter /FlateDecode",
                       repeat_deflate(chunk, times))
    ops = (_text_ops(["A paper with a very large figure"], y=740, size=14) + _text_ops(_body_lines(6), y=715)
           + "q 288 0 0 216 162 400 cm /Im1 Do Q\n"
           + _text_ops(["Figure 1: A plot of everything we measured, at full resolution."], y=385, size=9)
           + _text_ops(_body_lines(8), y=340))
    content = pdf.stream("", ops.encode("latin-1"))
    page = pdf.add(f"<< /Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font} "
                   f"0 R >> /XObject << /Im1 {image} 0 R >> >> /Contents {content} 0 R >>")
    pdf.set(pages, f"<< /Type /Pages /Count 1 /Kids [{page} 0 R] >>")
    return pdf.tobytes(catalog)


def plain_pdf(pages: int = 2, *, indirect: bool = False, count: int | None = None) -> bytes:
    """A well-formed paper of the same writer, to show the checks pass honest files. `indirect` puts the
    root's /Kids and /Count in objects of their own (legal, and a walker must follow them); `count` lies."""
    pdf, catalog, root, font = _skeleton()
    kids = " ".join(f"{_text_page(pdf, root, font, f'Page {i + 1} of an honest paper')} 0 R" for i in range(pages))
    count = pages if count is None else count
    if indirect:
        pdf.set(root, f"<< /Type /Pages /Count {pdf.add(str(count))} 0 R /Kids {pdf.add(f'[{kids}]')} 0 R >>")
    else:
        pdf.set(root, f"<< /Type /Pages /Count {count} /Kids [{kids}] >>")
    return pdf.tobytes(catalog)


def glyph_flood_pdf(mb: int = 1) -> bytes:
    """A 6 KB paper whose page shows `mb` million glyphs at a size of 0.0001 pt (all inside the page, so
    none is clipped away): text extraction keeps about 100 bytes per glyph, so it costs memory and time."""
    pdf, catalog, pages, font = _skeleton()
    head = pdf.stream("", (_text_ops(["A paper with one very long line"], y=740, size=14)
                           + _text_ops(_body_lines())).encode("latin-1"))
    flood = b"BT /F1 0.0001 Tf 10 10 Td (" + b"A" * (mb * 2**20) + b") Tj ET\n"
    body = pdf.stream("/Filter /FlateDecode", zlib.compress(flood, 6))
    page = pdf.add(f"<< /Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] "
                   f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents [{head} 0 R {body} 0 R] >>")
    pdf.set(pages, f"<< /Type /Pages /Count 1 /Kids [{page} 0 R] >>")
    return pdf.tobytes(catalog)
