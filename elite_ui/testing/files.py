"""Book files made on the fly for tests and benchmarks: an EPUB with chapters (ebooklib) and a PDF with pages and
a running header (PyMuPDF)."""

from __future__ import annotations

import pymupdf
from ebooklib import epub


def make_epub(path, chapters, title="An Epub Story", author="E. Author"):
    book = epub.EpubBook()
    book.set_identifier("id1")
    book.set_title(title)
    book.add_author(author)
    items = []
    for n, (heading, body) in enumerate(chapters, 1):
        item = epub.EpubHtml(title=heading, file_name=f"ch{n}.xhtml")
        item.content = f"<html><body><h1>{heading}</h1>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.spine = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    epub.write_epub(str(path), book)
    return path


def make_pdf(path, pages, header="THE RUNNING HEADER"):
    doc = pymupdf.open()
    for n, lines in enumerate(pages, 1):
        page = doc.new_page()
        page.insert_text((72, 40), header)
        y = 100
        for line in lines:
            page.insert_text((72, y), line)
            y += 14
        page.insert_text((300, 800), str(n))
    doc.save(str(path))
    return path
