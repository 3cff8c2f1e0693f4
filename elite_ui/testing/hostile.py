"""Hostile books, generated on the fly: broken epubs (truncated, members missing or garbled, a zip bomb, deep
nesting), broken PDFs (truncated, cross-reference table garbled or gone, no trailer) and odd text files.

``variants(folder)`` writes every one and returns (name, path); tests load each, and
``benchmarks/hostile.py`` times them.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from .files import make_epub, make_pdf

CUTS = (0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 0.999)
STORY = [("One", "<p>Alice found a key under the stone.</p>" * 20),
         ("Two", "<p>The key opened the red door.</p>" * 20),
         ("Three", "<p>Behind the door a garden grew.</p>" * 20)]


def rezip(source: bytes, change: dict[str, bytes | None]) -> bytes:
    """``source`` (a zip) with members replaced, or dropped where the new content is None."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(source)) as old, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename in change:
                if change[info.filename] is not None:
                    new.writestr(info.filename, change[info.filename])
            else:
                new.writestr(info, old.read(info.filename))
    return out.getvalue()


def epubs(folder: Path) -> dict[str, bytes]:
    good = make_epub(folder / "good.epub", STORY).read_bytes()
    with zipfile.ZipFile(io.BytesIO(good)) as z:
        members = z.namelist()
    opf = next(m for m in members if m.endswith(".opf"))
    chapter = next(m for m in members if m.endswith("ch1.xhtml"))
    out = {f"epub-cut-{cut}": good[: int(len(good) * cut)] for cut in CUTS}
    out |= {f"epub-without-{Path(m).name}": rezip(good, {m: None}) for m in members}
    out |= {
        "epub-opf-garbled": rezip(good, {opf: b"<package><broken"}),
        "epub-opf-binary": rezip(good, {opf: bytes(range(256)) * 8}),
        "epub-container-garbled": rezip(good, {"META-INF/container.xml": b"\x00\xff<rootfile"}),
        "epub-chapter-binary": rezip(good, {chapter: bytes(range(256)) * 40}),
        "epub-chapter-deeply-nested": rezip(good, {chapter: b"<html><body>" + b"<div>" * 50000 + b"deep"
                                                   + b"</div>" * 50000 + b"</body></html>"}),
        "epub-spine-to-missing-items": rezip(good, {chapter: None, opf.replace(".opf", "-x.opf"): b""}),
        "epub-zip-bomb": rezip(good, {chapter: b"<p>" + b"a" * 300_000_000 + b"</p>"}),
        "epub-central-directory-flipped": good[:-40] + bytes(b ^ 0xFF for b in good[-40:]),
        "epub-not-a-zip": b"PK\x03\x04" + b"\x00" * 200,
    }
    return out


def pdfs(folder: Path) -> dict[str, bytes]:
    good = make_pdf(folder / "good.pdf", [[f"Alice found key {n}.", f"Door {n} opened onto the garden."]
                                          for n in ("one", "two", "three")]).read_bytes()
    xref = good.rfind(b"xref")
    out = {f"pdf-cut-{cut}": good[: int(len(good) * cut)] for cut in CUTS}
    out |= {
        "pdf-xref-offsets-garbled": good[:xref] + re.sub(rb"\d{10} \d{5}", b"9999999999 00000", good[xref:]),
        "pdf-xref-removed": good[:xref] + good[xref:].replace(b"xref", b"junk", 1),
        "pdf-startxref-beyond-end": re.sub(rb"startxref\s+\d+", b"startxref\n99999999", good),
        "pdf-trailer-removed": good.replace(b"trailer", b"xxxxxxx"),
        "pdf-header-only": b"%PDF-1.7\n%%EOF\n",
        "pdf-negative-page-count": re.sub(rb"/Count \d+", b"/Count -1", good),
        "pdf-objects-garbled": good[:200] + bytes(b ^ 0x5A for b in good[200:600]) + good[600:],
        "pdf-one-paragraph-over-every-page": make_pdf(  # each page's break runs the paragraph on: it grows long
            folder / "long.pdf", [[f"and the river ran past the mill {n} {k} and" for k in range(50)]
                                  for n in range(300)], header="").read_bytes(),
    }
    return out


def texts() -> dict[str, bytes]:
    body = "Alice found a key. The key opened the door. "
    return {
        "txt-one-character": b"a",
        "txt-no-punctuation-1mb": ("word " * 200_000).encode(),
        "txt-one-line-3mb": (body * 70_000).encode(),
        "txt-zero-width-and-rtl": ("Alice\u200b found\u200d a key\u202e. \u2067The door\u2069 opened. " * 500).encode(),
        "txt-utf16-bom": (body * 500).encode("utf-16"),
        "txt-utf16-no-bom": (body * 500).encode("utf-16-le"),
        "txt-latin1-and-utf8-mixed": (body * 100).encode() + "Adèle à Noël. ".encode("latin-1") * 100,
        "txt-nul-bytes": (body * 200).encode().replace(b" ", b"\x00", 50),
        "txt-cr-only": (body + "\r").encode() * 500,
        "txt-only-whitespace": b" \n\t\r\n " * 1000,
        "txt-only-punctuation": b".!?;:" * 1000,
        "txt-control-characters": bytes(range(1, 32)) * 200,
        "txt-form-fed-long-pages": "\f".join(["Alice found a key.\n" * 20_000] * 4).encode(),
    }


def variants(folder: Path) -> list[tuple[str, Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in {**epubs(folder), **pdfs(folder), **texts()}.items():
        path = folder / f"{name}.{name.split('-')[0]}"
        path.write_bytes(data)
        out.append((name, path))
    return out
