"""The three file formats, each read into a :class:`~elite_ui.book.model.Draft`: plain text (a PDF saved as text
without its page numbers and running lines), EPUB (ebooklib: the spine in order, titles from the table of contents)
and PDF (PyMuPDF: page text, outline, running lines dropped)."""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from lemminflect import getAllLemmas

from ..errors import BookError
from .headings import headings, title_and_author
from .lexicon import WORD
from .model import Draft
from .segment import TITLE_ABBREVIATION, paragraph_spans
from .text import compatible, decode, repair, strip_gutenberg

BLOCKS = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "div", "section", "article", "aside",
          "header", "footer", "figcaption", "caption", "td", "th", "dd", "dt")
HOLDING = BLOCKS
"""An EPUB's text comes in blocks: each of these elements that holds none of :data:`HOLDING` is one (a paragraph
written as a ``div``, as some converters write every one, or a poem's stanza, as Project Gutenberg does, is one too;
a ``div`` holding paragraphs is not, but the text it holds between them is: :func:`runs`)."""

SKIPPED = ("script", "style", "head")
"""Elements an XHTML document's text is read without (:func:`html_blocks`)."""

MAX_UNPACKED = 256 * 1024 * 1024
"""An epub whose members unpack to more than this (a zip bomb) is refused before anything is unpacked."""


def read_txt(data: bytes, name: str) -> Draft:
    text, meta = strip_gutenberg(unpaged(compatible(repair(decode(data, name)))))
    paragraphs = paragraph_spans(text)
    title, author = title_and_author(text, paragraphs, meta)
    return Draft(text, paragraphs, headings(text, paragraphs), title, author)


def block_text(text: str) -> str:
    """A block's text as the book keeps it: compatibility characters spelled out, white space collapsed."""
    return " ".join(compatible(text).split())


NOTE_MARK = re.compile(r"[\d*†‡§¶\s]+")
"""What a superscript that marks a note holds: digits or a reference mark ("1", "*", "†")."""


def marks_place(name: str, kinds: str, classes: list[str], text: str) -> bool:
    """Whether an XHTML element (its tag ``name``, its ``epub:type`` and ``role`` words, its classes and, a ``sup``,
    its text) marks a place, not the book's words: a note's reference (EPUB's ``noteref``, or a superscript digit or
    mark: "Darcy<sup>1</sup>") or a printed page's number (``pagebreak``, Project Gutenberg's ``pagenum``: "[Pg
    23]")."""
    kinds = kinds.replace("doc-", "").split()
    return ("noteref" in kinds or "pagebreak" in kinds or "pagenum" in classes
            or (name == "sup" and bool(NOTE_MARK.fullmatch(text))))


def html_blocks(html: bytes) -> list[str]:
    """Text of the block elements of an XHTML document, in order, as a reader sees it: scripts, styles, note
    references and page numbers removed (:func:`marks_place`), a line break a space, and the words of inline elements
    written as they run ("<span>I</span>t", a drop capital, is "It"; "<b>Mr</b>." is "Mr.")."""
    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)  # XHTML read leniently as HTML, on purpose
        soup = BeautifulSoup(html, "lxml")
    for tag in soup(list(SKIPPED)):
        tag.decompose()
    for tag in soup.find_all(lambda t: marks_place(t.name, f"{t.get('epub:type', '')} {t.get('role', '')}",
                                                   t.get("class") or [], t.get_text() if t.name == "sup" else "")):
        tag.decompose()
    for tag in soup("br"):
        tag.replace_with(" ")
    if soup.find(list(HOLDING)) is None:  # no block at all: paragraphs at its blank lines
        return [line for line in (" ".join(x.split()) for x in compatible(soup.get_text("\n")).split("\n\n")) if line]
    return [text for text in map(block_text, runs(soup)) if text]


def runs(root) -> Iterator[str]:
    """The text of ``root``'s blocks in reading order (:func:`pieces`, read from BeautifulSoup's tree): a block's
    text, or a run's, its strings and inline elements read as ``get_text`` reads them (no comment, no doctype)."""
    from bs4 import Tag

    walked = pieces(root, lambda e: e.children, lambda e: e.name if isinstance(e, Tag) else "", lambda e: e.parents,
                    root.find_all(list(HOLDING)))
    for _, piece in walked:
        yield "".join(c.get_text("") for c in piece) if isinstance(piece, list) else piece.get_text("")


def pieces(root, children, name, parents, holding) -> Iterator[tuple[object, object]]:
    """``root``'s blocks in reading order, each with the element it is in: a block element holding none of
    :data:`HOLDING`, or a run (a list of strings and inline elements), the text an element holding blocks has
    between them (a ``div``'s own opening line before its paragraphs), cut where a block starts or a holding
    element ends. For any tree, given a node's ``children``, ``name`` (its tag, "" for a string) and ``parents``,
    and the ``holding`` elements in it. Walked without recursion: a hostile file may nest blocks thousands deep."""
    # each element holding a block, marked once going up from every block; kept, so that an element's id stays its
    # own in a tree that makes its nodes when asked (lxml)
    holders: dict[int, object] = {}
    for block in holding:
        for parent in parents(block):
            if id(parent) in holders:
                break
            holders[id(parent)] = parent
    run: list = []
    stack = [(root, iter(children(root)))]
    while stack:
        holder, nodes = stack[-1]
        child = next(nodes, None)
        holds = child is not None and id(child) in holders
        block = child is not None and name(child) in BLOCKS
        if run and (child is None or holds or block):
            yield holder, run
            run = []
        if child is None:
            stack.pop()
        elif holds:
            stack.append((child, iter(children(child))))
        elif block:
            yield holder, child
        else:
            run.append(child)


@dataclass
class SpineItem:
    """One item of an EPUB's spine, in order: its file name, its XHTML, its text blocks as the book reads them
    and where the first of them starts in the book's text (an item without text has no blocks)."""

    name: str
    content: bytes
    blocks: list[str]
    start: int


class Spine(NamedTuple):
    """An EPUB as ebooklib reads it, every item of its spine in order, and the text documents it lists but lacks."""

    book: object
    items: list[SpineItem]
    missing: list[str]


@lru_cache(maxsize=2)
def epub_spine(data: bytes, name: str) -> Spine:
    """The EPUB's :class:`Spine`, or :class:`BookError` saying why it cannot be read; the last two read are kept (a
    book opened from a library is read, then its reading apps' places followed in it: one parse, not two)."""
    import io

    import ebooklib
    from ebooklib import epub

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
            if unpacked <= MAX_UNPACKED:
                data, missing = without_missing_files(archive, data)
    except Exception as exc:  # zipfile raises BadZipFile, NotImplementedError, struct.error, EOFError...
        raise BookError(f"{name} is not a readable EPUB file ({type(exc).__name__}).") from None
    if unpacked > MAX_UNPACKED:
        raise BookError(f"{name} unpacks to {unpacked / 2**20:,.0f} MB, far more than any book; it was refused.")
    try:
        book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except Exception as exc:  # ebooklib lets zipfile, lxml and its own errors through, of many types
        raise BookError(f"{name} is not a readable EPUB file ({type(exc).__name__}).") from None
    items, offset = [], 0
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        document = item is not None and item.get_type() == ebooklib.ITEM_DOCUMENT
        content = item.get_content() if document else b""
        blocks = html_blocks(content) if document else []
        items.append(SpineItem(item.get_name() if item is not None else "", content, blocks, offset))
        offset += sum(len(block) + 2 for block in blocks)
    return Spine(book, items, missing)


def without_missing_files(archive: zipfile.ZipFile, data: bytes) -> tuple[bytes, list[str]]:
    """The EPUB ``data`` with the files its package lists but does not hold struck from its manifest (ebooklib
    refuses a whole book for one missing chapter, image or style sheet; the spine keeps its places, read as empty,
    so that a reading app's position by spine index still points where it did), and the names of the missing
    files the spine reads (chapters; the navigation document aside); ``data`` as it is when nothing is missing or
    its package cannot be read here (ebooklib then says what is wrong)."""
    import io
    import posixpath
    from urllib.parse import unquote

    from lxml import etree

    held = set(archive.namelist())
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        container = etree.fromstring(archive.read("META-INF/container.xml"), parser)
        opf_path = container.xpath("//*[local-name()='rootfile']/@full-path")[0]
        package = etree.fromstring(archive.read(opf_path), parser)
    except (KeyError, IndexError, etree.XMLSyntaxError):
        return data, []
    folder, struck, missing = posixpath.dirname(opf_path), False, []
    read = set(package.xpath("//*[local-name()='spine']/*[local-name()='itemref']/@idref"))
    for item in package.xpath("//*[local-name()='manifest']/*[local-name()='item']"):
        href = unquote(item.get("href", "").split("#")[0])
        if href and posixpath.normpath(posixpath.join(folder, href)) not in held:
            struck = True
            if item.get("id") in read and "nav" not in item.get("properties", "").split():
                missing.append(href)
            item.getparent().remove(item)
    if not struck:
        return data, []
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as repaired:
        for info in archive.infolist():
            repaired.writestr(info, etree.tostring(package, xml_declaration=True, encoding="utf-8")
                              if info.filename == opf_path else archive.read(info))
    return out.getvalue(), missing


def read_epub(data: bytes, name: str) -> Draft:
    book, items, missing = epub_spine(data, name)
    titles = {}
    for link in flatten_toc(book.toc):
        titles.setdefault(link.href.split("#")[0], link.title)
    paragraphs: list[tuple[int, int]] = []
    chapters: list[tuple[str, int]] = []
    for item in items:
        if not item.blocks:
            continue
        title = titles.get(item.name) or (item.blocks[0] if len(item.blocks[0]) <= 120 else "")
        if title:
            chapters.append((title, item.start))
        offset = item.start
        for block in item.blocks:
            paragraphs.append((offset, offset + len(block)))
            offset += len(block) + 2
    text = "\n\n".join(block for item in items for block in item.blocks)
    meta_title = book.get_metadata("DC", "title")
    meta_author = book.get_metadata("DC", "creator")
    return Draft(
        text,
        paragraphs,
        chapters,
        meta_title[0][0] if meta_title else "",
        meta_author[0][0] if meta_author else "",
        missing=missing,
    )


def flatten_toc(toc) -> list:
    out = []
    for entry in toc:
        if isinstance(entry, tuple):
            section, children = entry
            if hasattr(section, "href"):
                out.append(section)
            out.extend(flatten_toc(children))
        elif hasattr(entry, "href"):
            out.append(entry)
    return out


def read_pdf(data: bytes, name: str) -> Draft:
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
        count = doc.page_count
    except Exception as exc:  # PyMuPDF raises its own and plain RuntimeErrors for broken files
        raise BookError(f"{name} is not a readable PDF file ({type(exc).__name__}).") from None
    if doc.needs_pass:
        raise BookError(f"{name} is encrypted; open it with its password and save an unprotected copy.")
    lines = []
    for number in range(count):
        try:
            lines.append(page_lines(doc.load_page(number)))
        except Exception:  # a damaged page is skipped; the rest of the book still loads
            lines.append([])
    try:
        meta, toc = doc.metadata or {}, doc.get_toc(simple=True)
    except Exception:  # a damaged outline or info dictionary costs only the chapter titles
        meta, toc = {}, []
    doc.close()
    pages, marked = set_off_headings(lines)
    pages = drop_running_lines(pages)
    written = whole_words("\n".join(pages))
    parts: list[str] = []
    page_starts: list[int] = []
    paragraphs: list[tuple[int, int]] = []
    offset = 0
    for page in pages:
        page_starts.append(offset)
        blocks = [joined_words(" ".join(b.split()), written) for b in re.split(PARAGRAPH_BREAK, page)]
        for n, block in enumerate(b for b in blocks if b):
            if n == 0 and parts and runs_on(parts[-1], block, marked):  # a paragraph the page break cut
                start = paragraphs[-1][0]
                head, space, last = parts[-1].rpartition(" ")  # the page break's broken word, if any, is here
                parts[-1] = head + space + joined_words(f"{last} {block}", written)
                page_starts[-1] = start + len(parts[-1]) - len(block)
                paragraphs[-1] = (start, start + len(parts[-1]))
                offset = start + len(parts[-1]) + 2
                continue
            paragraphs.append((offset, offset + len(block)))
            parts.append(block)
            offset += len(block) + 2
    text = "\n\n".join(parts)
    if not WORD.search(text):
        raise BookError(f"{name} has no text layer (it is probably scanned images); run OCR on it first.")
    chapters = [(title, page_starts[page - 1]) for _level, title, page in toc if 0 < page <= len(page_starts)]
    if not chapters:
        by_font = [(title, a) for title, a in ((text[a:b], a) for a, b in paragraphs) if title in marked]
        chapters = by_font if len(by_font) >= 2 else headings(text, paragraphs)
    return Draft(text, paragraphs, chapters, meta.get("title", ""), meta.get("author", ""), page_starts)


PARAGRAPH_BREAK = re.compile(r"\n\s*\n|(?:(?<=[.!?_])|(?<=[.!?_—][\"'”’])|(?<=[.!?][\"'”’][\"'”’]))\n(?=[A-Z“‘\"'_])")
"""Where a PDF page's lines start a paragraph: after a blank line, or where a line that ends a sentence (its
closing quotes after the full stop or a dash, or an italic's underscore) is followed by one that opens with a capital
or a quotation mark; a possessive's apostrophe ("the girls'") ends no paragraph."""


def runs_on(last: str, first: str, headings: set[str]) -> bool:
    """Whether a page's ``first`` block goes on with the ``last`` one of the page before: a paragraph the page break
    cut, which ends in no full stop or other closing mark ("... said to" / "Mr. Darcy") but a title's ("... said
    Mrs." / "Forster"), neither being a heading."""
    tail = last[-8:]  # a paragraph that runs over many pages is long: only its end is looked at
    title = TITLE_ABBREVIATION.search(tail + " ", max(0, len(tail) - 6))
    ends = re.search(r"[\w,;-]$", tail) or (title and title.end() == len(tail))
    longest = max(map(len, headings), default=0)
    return bool(ends) and first not in headings and (len(last) > longest or last not in headings)


def page_lines(page) -> list[tuple[str, float, bool]]:
    """A PDF page's lines of text, each with its largest font size and whether it is all bold (PyMuPDF's
    ``dict`` output: blocks, lines, spans)."""
    out = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            spans = [s for s in line["spans"] if s["text"].strip()]
            if spans:
                text = compatible("".join(s["text"] for s in line["spans"]))
                out.append((text, max(s["size"] for s in spans), all(s["flags"] & 16 for s in spans)))
    return out


def set_off_headings(pages: list[list[tuple[str, float, bool]]]) -> tuple[list[str], set[str]]:
    """Each page's text, a heading set off as its own paragraph, and the headings: short lines in a larger font
    than the body's (or bold where the body is not); a title wrapped over several lines is joined."""
    sizes = sorted((size, len(text)) for page in pages for text, size, _ in page)
    total = sum(n for _, n in sizes)
    body, seen = 0.0, 0
    for size, n in sizes:
        seen += n
        if seen * 2 >= total:
            body = size
            break
    bold_body = sum(len(t) for page in pages for t, _, bold in page if bold) * 2 > total
    texts, marked = [], set()
    for page in pages:
        out, heading = [], []
        for text, size, bold in [*page, ("", 0.0, False)]:  # an empty last line closes a heading at the page end
            if (size >= body * 1.15 or (bold and not bold_body)) and len(text.strip()) <= 90 and WORD.search(text):
                heading.append(text.strip())
                continue
            if heading:
                title = " ".join(" ".join(heading).split())
                marked.add(title)
                out.append(f"\n\n{title}\n\n")
                heading = []
            out.append(text)
        texts.append("\n".join(out))
    return texts, marked


PAGE_NUMBER = re.compile(
    r"^[ \t]*(?:page[ \t]+\d{1,5}(?:[ \t]+of[ \t]+\d{1,5})?|\d{1,5}[ \t]+of[ \t]+(\d{1,5}))[ \t]*$",
    re.IGNORECASE | re.MULTILINE)
"""A line that only numbers a page ("5 of 496", "Page 12"), as a PDF saved as text keeps them."""


def unpaged(text: str) -> str:
    """A text cut into pages (by form feeds, or by lines that number its pages: a PDF saved as text) joined again
    without its running headers, footers and page numbers, a page's last line run on into the next page's first
    unless it ends a sentence, and the words its lines broke joined (:func:`joined_words`); any other text as it
    is."""
    pages = pages_of(text)
    if len(pages) < 4:
        return text
    joined = []
    for page in drop_running_lines(pages):
        if page.strip():
            joined += ["\n\n" if joined and re.search(r"[.!?\"”’]\s*$", joined[-1]) else "\n", page.strip("\n")]
    return joined_words("".join(joined[1:]))


BROKEN_WORD = re.compile(r"\b([A-Za-z]*[a-z])-(?: |\n)([a-z]+)\b")
"""A word a page broke at a line's end: "some-" and "body" on two lines, or "some- body" on one (a PDF's lines
joined, or a PDF saved as text)."""


def whole_words(text: str) -> tuple[Counter, Counter]:
    """How often ``text`` writes each word, lower-cased, and each hyphened word ("good-humoured"): what a broken
    word is joined to or kept as (:func:`joined_words`)."""
    lower = text.lower()
    return Counter(re.findall(r"[a-z]+", lower)), Counter(re.findall(r"[a-z]+-[a-z]+", lower))


def joined_words(text: str, written: tuple[Counter, Counter] | None = None) -> str:
    """Each :data:`BROKEN_WORD` of ``text`` written as the book (``written``: its :func:`whole_words`; None: those
    of ``text``) more often writes it elsewhere: whole ("somebody") or hyphened ("good-humoured"); one it writes
    neither way joined where English has the word ("para- lysed": lemminflect's lemmas), else kept with its hyphen
    ("sugar-hogshead")."""
    whole, hyphened = whole_words(text) if written is None else written

    def join(m: re.Match) -> str:
        word, kept = m.group(1) + m.group(2), f"{m.group(1)}-{m.group(2)}"
        joined, split = whole[word.lower()], hyphened[kept.lower()]
        if joined or split:
            return word if joined >= split else kept
        return word if getAllLemmas(word.lower()) else kept

    return BROKEN_WORD.sub(join, text)


NUMBERED_PAGES = 10
"""The least page-number lines that make a text a paged one (a book that writes "Page 5" in a list of contents
is not)."""


def pages_of(text: str) -> list[str]:
    """``text`` cut at its form feeds, else at its :data:`PAGE_NUMBER` lines when it has :data:`NUMBERED_PAGES` of
    them (and at a page's number "of" the page count run on to the page's last word: "country a46 of 496"), each cut
    left out."""
    if text.count("\f") >= 3:
        return text.split("\f")
    marks = list(PAGE_NUMBER.finditer(text))
    if len(marks) < NUMBERED_PAGES:
        return [text]
    totals = Counter(m.group(1) for m in marks if m.group(1))
    if totals:
        glued = re.compile(rf"(?<=[^\s\d])\d{{1,5}}[ \t]+of[ \t]+{totals.most_common(1)[0][0]}[ \t]*$", re.MULTILINE)
        marks = sorted([*marks, *glued.finditer(text)], key=lambda m: m.start())
    starts, ends = [0, *(m.end() for m in marks)], [*(m.start() for m in marks), len(text)]
    return [text[a:b] for a, b in zip(starts, ends, strict=True)]


RUNNING_DEPTH = 3
"""How many times the running lines at the pages' edges are looked for, each on what the last left."""


def drop_running_lines(pages: list[str]) -> list[str]:
    """Remove running headers and footers: first/last lines that recur, digits aside, on many pages, or verbatim
    on one page in twenty (a publisher's line every few pages), and again on what is left (a header over a
    publisher's line of two), unless that would leave no text at all (pages that are all alike)."""
    if len(pages) < 3:
        return pages

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", line.strip().lower())

    def edges(lines: list[str]) -> set[int]:
        nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
        return set(nonblank[:2] + nonblank[-2:])

    out = pages
    for _ in range(RUNNING_DEPTH):
        split = [page.splitlines() for page in out]
        rims = [edges(lines) for lines in split]
        keyed, verbatim = Counter(), Counter()
        for lines, rim in zip(split, rims, strict=True):
            keyed.update({key(lines[i]) for i in rim})
            verbatim.update({lines[i].strip() for i in rim})
        running = {k for k, n in keyed.items() if n >= max(3, len(pages) // 2) or re.fullmatch(r"#|page #", k)}
        often = {line for line, n in verbatim.items() if n >= max(3, len(pages) // 20)}
        dropped = ["\n".join(ln for i, ln in enumerate(lines)
                             if not (i in rim and (key(ln) in running or ln.strip() in often)))
                   for lines, rim in zip(split, rims, strict=True)]
        if dropped == out or not any(WORD.search(page) for page in dropped):
            break
        out = dropped
    return out
