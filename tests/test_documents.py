"""Loading books: encodings, repairs, structure, formats and the clear errors for bad files."""

import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from elite_ui.book import load_book
from elite_ui.errors import BookError
from elite_ui.testing.files import make_epub, make_pdf

from .conftest import BOOKS

GUTENBERG = """The Project Gutenberg eBook of Tiny Tale

Title: Tiny Tale
Author: Ann Writer

*** START OF THE PROJECT GUTENBERG EBOOK TINY TALE ***

CHAPTER I

Mr. Brown met the fox. It ran away!

CHAPTER II

The fox came back. Mr. Brown smiled.

*** END OF THE PROJECT GUTENBERG EBOOK TINY TALE ***

Licence text that must not be read as part of the book.
"""


def test_gutenberg_header_and_licence_are_dropped_and_metadata_kept(write_book):
    book = write_book(GUTENBERG)
    assert (book.title, book.author) == ("Tiny Tale", "Ann Writer")
    assert "Licence" not in book.text and "START OF" not in book.text
    assert [c.title for c in book.chapters] == ["CHAPTER I", "CHAPTER II"]


def test_sentences_have_stable_ids_offsets_and_chapters(write_book):
    book = write_book(GUTENBERG)
    texts = [book.sentence(i).text for i in range(len(book))]
    assert "Mr. Brown met the fox." in texts, "no split after the title abbreviation Mr."
    for i in range(len(book)):
        s = book.sentence(i)
        assert book.text[s.start:s.end] == s.text
    smiled = book.sentence(texts.index("Mr. Brown smiled."))
    assert smiled.chapter_title == "CHAPTER II" and smiled.citation == f"S{smiled.id}, ch. 2"
    assert load_book(book.path).bounds.tolist() == book.bounds.tolist()


def test_bom_crlf_and_latin1_are_normalised(tmp_path):
    path = tmp_path / "old.txt"
    path.write_bytes("\ufeffCaf\u00e9 au lait.\r\nIt was good.\r\n\r\nThe end.".encode("utf-8"))
    book = load_book(path)
    assert "\r" not in book.text and not book.text.startswith("\ufeff") and book.text.startswith("Café")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Le garçon était très fâché contre sa sœur, qui riait. Il partit à midi.".encode("cp1252"))
    assert "garçon était très fâché" in load_book(latin).text


def test_mojibake_in_real_books_is_repaired():
    """Both books carry a lossy clean-up's damage too: a quote mark and a C1 control for each curly quote, apostrophe
    and dash (Jane Eyre's em dashes had cut sentences in two at a quote mark)."""
    jane = load_book(BOOKS["jane-eyre-excerpt.txt"])
    assert "Adèle" in jane.text and "AdÃ¨le" not in jane.text
    assert "Mrs. Fairfax’s" in jane.text and "—" in jane.text
    pride = load_book(BOOKS["pride-and-prejudice.txt"])
    assert not re.search("[\u0080-\u009f]", pride.text)
    opening = "“My dear Mr. Bennet,” said his lady to him one day, “have you heard that Netherfield Park is let at"
    assert opening in " ".join(pride.text.split())


def test_every_shipped_novel_loads_with_chapters():
    """(``python -m benchmarks.chapters`` checks the same of the 15-novel corpus.)"""
    for name in ("pride-and-prejudice.txt", "the-wind-in-the-willows.txt"):
        book = load_book(BOOKS[name])
        assert len(book) > 2000 and len(book.chapters) >= 10, name
        assert "PROJECT GUTENBERG" not in book.text[-3000:].upper(), name


def test_hard_wrapped_lines_without_blank_lines_keep_whole_sentences_and_their_headings(write_book):
    """Several corpus files (Emma, Middlemarch, Huckleberry Finn) lost their blank lines: a sentence must not end
    at every line break, and a chapter heading must stay a heading."""
    import textwrap

    body = ("Emma turned away her head, divided between tears and smiles, and the evening went on without "
            "her father noticing anything at all. ") * 4
    chapters = [f"CHAPTER {n}\n" + textwrap.fill(body + f"The end of chapter {n} came quietly.", 70)
                + "\n" + textwrap.fill("A second paragraph, as long as the first one, follows it here. " * 5, 70)
                for n in ("I", "II", "III", "IV")]
    book = write_book("Emma\n" + "\n".join(chapters))
    assert [c.title for c in book.chapters][-4:] == ["CHAPTER I", "CHAPTER II", "CHAPTER III", "CHAPTER IV"]
    first = next(s for s in (book.sentence(i) for i in range(len(book))) if s.text.startswith("Emma turned"))
    assert first.text.endswith("anything at all.") and "\n" in first.text, "one sentence across its line breaks"
    verse = write_book("Songs\n" + "\n".join(f"Line {n} of a song, short and sweet" for n in range(60)))
    assert len(verse) == 61, "the title, then lines that are not hard-wrapped stay a paragraph each"


def test_a_pdf_saved_as_text_loses_its_page_furniture_and_keeps_sentences_across_pages(write_book):
    """Huckleberry Finn in the corpus is a PDF saved as text: "N of 496" after every page, the title as a running
    header, a publisher's line every few pages, a page number run on to a page's last word, words its lines broke
    ("some- body"). None of it may be read as the book's sentences or names, a sentence a page break cuts is one
    sentence again, and a broken word is whole where the book writes it whole elsewhere or English has it, and keeps
    its hyphen where the book writes it so elsewhere or neither."""
    import textwrap

    body = textwrap.fill(" ".join(f"Huck went down to the river on day {n} and Jim waited {n + 3} hours by raft "
                                  f"{n * 7} for him, as widow {n % 13} slept." for n in range(200)), 60).splitlines()
    pages, total = [body[i:i + 30] for i in range(0, len(body), 30)], len(body) // 30 + 1
    text = ("The Raft\n\nCHAPTER I.\nSomebody came, and then some- body went off in a hap- hazard way to a "
            "sugar- hogshead, good- natured and good-natured.\n")
    for n, page in enumerate(pages, 1):
        ad = "\neBook brought to you by\n\nMake a PDF of it.\n" if n % 4 == 0 else ""
        last = page[-1] + (f"{n} of {total}" if n == 5 else f"\n\n{n} of {total}")
        text += "\n".join([*page[:-1], last]) + f"\n\nThe Raft Story\n{ad}\n"
    book = write_book(text)
    sentences = [" ".join(book.sentence(i).text.split()) for i in range(len(book))]
    assert not [s for s in sentences if re.search(r" of \d|Raft Story|eBook|PDF", s)]
    assert sum(s.startswith("Huck went down") for s in sentences) == 200
    assert all(s.endswith(" slept.") for s in sentences if s.startswith("Huck went down"))
    assert ("Somebody came, and then somebody went off in a haphazard way to a sugar-hogshead, good-natured and "
            "good-natured.") in sentences, "broken words joined"
    form_fed = write_book("\f".join("\n".join(page) + "\n\nThe Raft Story" for page in pages))
    assert not any("Raft Story" in form_fed.sentence(i).text for i in range(len(form_fed)))
    plain = "Page 3 was torn.\n\n" + "\n\n".join(["He read page 12 aloud.", "5 of 9 men came.", "Page 7"] * 3)
    assert write_book(plain).text.strip() == plain, "a text that numbers no pages (a few lines aside) is as it is"


def test_index_maps_words_to_sentences(write_book):
    book = write_book("The fox ran. A dog sat. The fox slept.")
    assert book.index.postings("fox").tolist() == [0, 2]
    assert book.index.postings("cat").tolist() == []


def test_epub_in_spine_order_with_titles_and_html_stripped(tmp_path):
    path = make_epub(tmp_path / "story.epub", [
        ("The Beginning", "<p>Alice found a <b>key</b>.</p><script>alert(1)</script><p>It was gold.</p>"),
        ("The End", "<p>The key opened the door.</p>"),
    ])
    book = load_book(path)
    assert (book.title, book.author) == ("An Epub Story", "E. Author")
    assert [c.title for c in book.chapters] == ["The Beginning", "The End"]
    assert "alert" not in book.text and "<b>" not in book.text
    door = next(book.sentence(i) for i in range(len(book)) if "door" in book.sentence(i).text)
    assert door.chapter_title == "The End"


def test_an_epub_missing_a_chapter_file_opens_without_it_and_says_so(tmp_path):
    from elite_ui.app.render.book import book_card
    from elite_ui.book.formats import epub_spine
    from elite_ui.records import book_record
    from elite_ui.testing.hostile import rezip

    whole = make_epub(tmp_path / "whole.epub", [("One", "<p>Alice found a key.</p>"),
                                                ("Two", "<p>The key opened the red door.</p>"),
                                                ("Three", "<p>Behind the door a garden grew.</p>")]).read_bytes()
    with zipfile.ZipFile(io.BytesIO(whole)) as archive:
        package = archive.read("EPUB/content.opf").decode()
    with_style = package.replace("<manifest>", '<manifest><item id="css" href="style/gone.css" media-type="text/css"/>')
    assert with_style != package
    path = tmp_path / "torn.epub"
    path.write_bytes(rezip(whole, {"EPUB/ch2.xhtml": None, "EPUB/content.opf": with_style.encode()}))
    book = load_book(path, cache_dir=tmp_path / "cache")
    assert "Alice found a key." in book.text and "garden grew" in book.text and "red door" not in book.text
    assert [c.title for c in book.chapters] == ["One", "Three"]
    said = "1 chapter file the book lists is missing from it (ch2.xhtml); read without it"
    assert book.load_note().endswith(said) and said in book_card(book) and said in book_card(book, hosted=True)
    assert book_record(book, "id")["missing"] == ["ch2.xhtml"]
    again = load_book(path, cache_dir=tmp_path / "cache")
    assert again.stats["cached"] and again.load_note().endswith(said), "the cache keeps what was missing"
    torn, kept = epub_spine(path.read_bytes(), "torn.epub"), epub_spine(whole, "whole.epub")
    assert [i.name for i in torn.items] == [i.name if i.name != "ch2.xhtml" else "" for i in kept.items], (
        "the spine keeps its places: a reading app's position by spine index points where it did")
    assert "missing" not in load_book(tmp_path / "whole.epub").load_note()


def test_pdf_keeps_pages_joins_hyphens_and_drops_running_lines(tmp_path):
    pages = [["Chapter 1", "", "The captain looked at the extra-", "ordinary map. He smiled. The crew sang all"],
             ["night long, and the mate was para-"], ["lysed with fear.", "Nobody slept but Mrs."],
             ["Forster, who read in the girls'", "Hall.", "'Land!' cried the boy.", "'Where?' asked she."],
             ["Chapter 2", "", "At dawn the ship reached the island."]]
    pages += [["The good-humoured mate, well-"], ["known and good-", "humoured, sang."]]
    book = load_book(make_pdf(tmp_path / "voyage.pdf", pages))
    assert "extraordinary map" in book.text
    assert "The good-humoured mate, well-known and good-humoured, sang." in book.text, (
        "a compound the book writes elsewhere, or no English word, keeps the hyphen a line break left")
    assert "RUNNING HEADER" not in book.text
    sentences = {book.sentence(i).text: book.sentence(i) for i in range(len(book))}
    crew = sentences["The crew sang all night long, and the mate was paralysed with fear."]
    assert crew.page == 1, "a sentence the page breaks cut is one, cited to the page it starts on"
    assert sentences["Nobody slept but Mrs. Forster, who read in the girls' Hall."].page == 3, "nor does a title"
    assert {"'Land!' cried the boy.", "'Where?' asked she."} <= set(sentences)
    dawn = next(s for text, s in sentences.items() if "dawn" in text)
    assert dawn.page == 5 and dawn.citation.endswith("p. 5")


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.txt", b"", "empty"),
    ("noise.txt", bytes(range(256)) * 40, "binary"),
    ("book.docx", b"PK\x03\x04", "unsupported"),
    ("bad.epub", b"this is not a zip", "not a readable EPUB"),
    ("bad.pdf", b"%PDF-1.4 garbage", "not a readable PDF"),
    ("blank.txt", b"   \n\n  ...  \n", "no readable text"),
])
def test_bad_files_give_one_clear_sentence(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(BookError, match=message):
        load_book(path)


def test_encrypted_and_image_only_pdfs(tmp_path):
    source = make_pdf(tmp_path / "plain.pdf", [["Secret words here."]])
    doc = pymupdf.open(source)
    doc.save(str(tmp_path / "locked.pdf"), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    with pytest.raises(BookError, match="encrypted"):
        load_book(tmp_path / "locked.pdf")
    image = pymupdf.open()
    page = image.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 200, 200), fill=(0, 0, 0))
    image.save(str(tmp_path / "scan.pdf"))
    with pytest.raises(BookError, match="no text layer"):
        load_book(tmp_path / "scan.pdf")


def test_epub_without_text(tmp_path):
    path = make_epub(tmp_path / "empty.epub", [("", "<div></div>")])
    with pytest.raises(BookError, match="no readable text"):
        load_book(path)


def test_a_50_mb_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.truncate(50 * 1024 * 1024)
    with pytest.raises(BookError, match=r"50\.0 MB; the limit is 20 MB"):
        load_book(path)


def test_a_book_seen_before_opens_from_its_parsed_structure(tmp_path):
    cache = tmp_path / "cache"
    pdf = make_pdf(tmp_path / "voyage.pdf", [["The ship left port."], ["A storm rose at night."], ["They landed."]])
    for path in (BOOKS["pride-and-prejudice.txt"], pdf):
        first = load_book(path, cache_dir=cache)
        again = load_book(path, cache_dir=cache)
        assert first.stats["cached"] is False and again.stats["cached"] is True
        assert again.stats["cache_bytes"] == first.stats["cache_bytes"] > 0
        assert "opened from the cache" in again.load_note() and "cached for next time" in first.load_note()
        assert again.text == first.text and again.chapters == first.chapters and again.digest == first.digest
        assert (again.title, again.author, again.format) == (first.title, first.author, first.format)
        for name in ("bounds", "paragraph_of", "chapter_of"):
            assert np.array_equal(getattr(again, name), getattr(first, name))
        assert again.index.vocabulary == first.index.vocabulary
        assert np.array_equal(again.index.postings("darcy"), first.index.postings("darcy"))
        assert again.sentence(len(again) - 1) == first.sentence(len(first) - 1)
    assert load_book(pdf, cache_dir=cache).page_starts is not None
    [stored] = [p for p in (cache / "books").iterdir() if p.stat().st_size < 10_000]
    stored.write_bytes(b"PK garbage")
    reparsed = load_book(pdf, cache_dir=cache)
    assert reparsed.stats["cached"] is False and len(reparsed) == len(load_book(pdf))


def test_a_cache_that_cannot_be_written_says_so_and_leaves_no_partial_file(tmp_path, monkeypatch):
    unwritable = tmp_path / "a-file"
    unwritable.write_text("not a folder")
    book = load_book(BOOKS["pride-and-prejudice.txt"], cache_dir=unwritable)
    assert book.stats["cache_bytes"] == 0 and "not cached (the cache folder cannot be written)" in book.load_note()

    def torn(path, **arrays):
        Path(path).write_bytes(b"PK half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("elite_ui.book.cache.np.savez", torn)
    full = tmp_path / "full"
    assert "not cached" in load_book(BOOKS["pride-and-prejudice.txt"], cache_dir=full).load_note()
    assert list((full / "books").iterdir()) == [], "no .partial.npz left behind"


def test_a_pdf_without_outline_finds_its_chapters_by_font_and_spells_out_ligatures(tmp_path):
    from elite_ui.methods.elite.counting import count
    from elite_ui.testing.files import make_book_pdf

    wind = load_book(BOOKS["the-wind-in-the-willows.txt"])
    chapters = [c for c in wind.chapters if c.kind == "chapter"]
    chosen = [0, 1, 6]  # VII's title wraps over two lines in the PDF
    body = [wind.span_text(chapters[n].first_sentence + 1, chapters[n + 1].first_sentence - 1) for n in chosen]
    pdf = load_book(make_book_pdf(tmp_path / "wind.pdf", [(chapters[n].title, b) for n, b in zip(chosen, body,
                                                                                                 strict=True)]))
    assert [c.title for c in pdf.chapters] == ["I. THE RIVER BANK", "II. THE OPEN ROAD",
                                               "VII. THE PIPER AT THE GATES OF DAWN"]
    assert [c.ref for c in pdf.chapters] == ["ch. 1", "ch. 2", "ch. 7"]
    assert not any(ch in pdf.text for ch in "ﬁﬂ"), "the ligatures are spelled out"
    plain = load_book(make_txt(tmp_path / "plain.txt", "\n\n".join(body)))
    assert count(pdf, "first").total == count(plain, "first").total > 5, "ﬁrst is counted as first"


def make_txt(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_ligatures_and_full_width_letters_are_spelled_out_in_every_format(tmp_path):
    """And a soft hyphen or a word joiner inside a word (an e-book hyphenated for its reader) is dropped, so that
    the word is found, counted and named whole."""
    from elite_ui.book.text import compatible
    from elite_ui.methods.elite.counting import count

    text = ("The ﬁrst oﬃcer's ﬂag ﬂew. Ｔｏａｄ came ſoon after, oﬀ to the river. Eliza\u00adbeth was extra\u00ad"
            "ordinary, said Eliza\u2060beth's sister.")
    epub_book = load_book(make_epub(tmp_path / "l.epub", [("One", f"<p>{text}</p>")]))
    txt_book = load_book(make_txt(tmp_path / "l.txt", text))
    for book in (epub_book, txt_book):
        assert ("The first officer's flag flew. Toad came soon after, off to the river. Elizabeth was extraordinary, "
                "said Elizabeth's sister.") in book.text
        assert count(book, "Elizabeth").total == 2
    assert compatible("the extra\u00ad\nordinary") == "the extra-\nordinary", "a soft hyphen a line's end shows"


def test_an_epub_reads_as_it_shows_without_note_marks_or_page_numbers(tmp_path):
    """A drop capital or small capitals in an element of their own run on into their word ("<span>I</span>t"),
    a note's reference mark or a printed page's number (Project Gutenberg's "[Pg 23]") is no word of the book,
    text in a ``div`` that holds no paragraph is read as one, and the text a ``div`` holds beside its paragraphs
    is read where it stands."""
    from elite_ui.methods.elite.counting import count

    body = ('<p><span class="dropcap">I</span>t was <span class="smcap">Mr</span>. Darcy<a href="#n1" '
            'epub:type="noteref"><sup>1</sup></a> who came.<br/>Then M<sup>me</sup> Bovary left<sup>*</sup>.'
            '<span class="pagenum"><a id="Page_23">[Pg 23]</a></span> At home<span epub:type="pagebreak" '
            'title="24">24</span> Darcy sat.</p>')
    book = load_book(make_epub(tmp_path / "marks.epub", [("One", body)]))
    assert "It was Mr. Darcy who came. Then Mme Bovary left. At home Darcy sat." in book.text
    assert count(book, "Darcy").total == 2
    divs = ('<div class="para">It was a dark night.</div><div class="poem"><div class="stanza"><span>Twinkle, '
            'twinkle, little bat!<br/></span><span>How I wonder what you are at!</span></div></div><div><p>Then '
            'she spoke.</p></div>')
    written = load_book(make_epub(tmp_path / "divs.epub", [("Two", divs)])).text
    assert written.endswith("It was a dark night.\n\nTwinkle, twinkle, little bat! How I wonder what you are at!"
                            "\n\nThen she spoke."), "paragraphs and stanzas written as divs are read"
    mixed = ('<div class="letter">Dear Jane, <i>I write</i> in haste.<p>The ball is on Friday.</p>Yours ever,'
             '<br/>Charlotte<!-- signed --><blockquote><p>A postscript.</p></blockquote></div>')
    written = load_book(make_epub(tmp_path / "mixed.epub", [("Three", mixed)])).text
    assert written.endswith("Dear Jane, I write in haste.\n\nThe ball is on Friday.\n\nYours ever, Charlotte\n\n"
                            "A postscript."), "the text a div holds beside its paragraphs is read, in its place"


def test_a_books_card_can_show_before_its_sentences_are_found(tmp_path):
    """The page shows the card as soon as the file is read (issue 29, item 10): the first reading's chapter count
    is the finished book's, in every format; a book in the cache opens whole at once."""
    from elite_ui.app.render import reading_card
    from elite_ui.book import open_file
    from elite_ui.testing.files import same_novel

    txt = BOOKS["pride-and-prejudice.txt"]
    for path in (txt, *same_novel(load_book(txt), tmp_path)):
        opening = open_file(path)
        assert opening.book is None and "indexing its words" in reading_card(opening)
        assert opening.chapters() == opening.finish().summary()["chapters"] == 61, path
    open_file(txt, cache_dir=tmp_path / "cache").finish()
    again = open_file(txt, cache_dir=tmp_path / "cache")
    assert again.book is not None and again.finish().stats["cached"]
