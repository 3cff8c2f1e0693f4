"""Book files made on the fly for tests and benchmarks: an EPUB with chapters (ebooklib), a PDF with pages and a
running header, a typeset-looking PDF without an outline (PyMuPDF), and one novel in all three formats."""

from __future__ import annotations

from pathlib import Path

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


def make_book_pdf(path, chapters: list[tuple[str, str]], lines_per_page: int = 48, width: int = 84):
    """A typeset-looking PDF of ``chapters`` (title, text): the body in 11 points wrapped at ``width`` characters,
    with the ligatures ﬁ and ﬂ a typesetter would use, each chapter on a new page under a 16-point bold title
    (wrapped when long), no outline: a book printed to PDF without bookmarks. The body font is PyMuPDF's own
    Droid Sans Fallback, which has the ligatures' glyphs."""
    import textwrap

    body = pymupdf.Font("cjk")
    doc = pymupdf.open()
    for title, text in chapters:
        page, y = doc.new_page(), 90
        page.insert_font(fontname="body", fontbuffer=body.buffer)
        for line in textwrap.wrap(title, 28):
            page.insert_text((72, y), line, fontsize=16, fontname="hebo")
            y += 24
        for paragraph in text.split("\n\n"):
            for line in textwrap.wrap(" ".join(paragraph.split()), width) or [""]:
                if y > 72 + 14 * lines_per_page:
                    page, y = doc.new_page(), 72
                    page.insert_font(fontname="body", fontbuffer=body.buffer)
                page.insert_text((72, y), line.replace("fi", "ﬁ").replace("fl", "ﬂ"), fontsize=11, fontname="body")
                y += 14
            y += 7
    doc.save(str(path))
    return path


def same_novel(book, folder) -> tuple:
    """The chapters of a loaded ``book`` written again as an EPUB and as a PDF without an outline (the browser
    walkthrough opens one novel in all three formats)."""
    from html import escape

    chapters = [(c.title, book.text[c.start : c.end].split("\n", 2)[-1]) for c in book.chapters if c.kind == "chapter"]
    epub_chapters = [(escape(title), "".join(f"<p>{escape(' '.join(p.split()))}</p>" for p in text.split("\n\n")
                                             if p.strip())) for title, text in chapters]
    stem = Path(folder) / Path(book.path).stem
    return (make_epub(stem.with_suffix(".epub"), epub_chapters, title=book.title, author=book.author),
            make_book_pdf(stem.with_suffix(".pdf"), chapters))
