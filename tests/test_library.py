"""The reader's own reading apps (issue 26): places in an EPUB as Calibre and KOReader write them, a Calibre
library and KOReader sidecars made to each app's format, read and never written; hostile files end in one
sentence."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from elite_ui.book import load_book
from elite_ui.book.formats import epub_spine
from elite_ui.library import CalibreLibrary, LibraryError, locate, read_sidecar, sidecar_for
from elite_ui.library.model import Reading
from elite_ui.library.places import cfi_place, xpointer_place
from elite_ui.testing.reading_apps import calibre_library, koreader_sidecar, nested_epub, written_places

from .conftest import BOOKS

NOW = 1_780_000_000.0


@pytest.fixture(scope="module")
def pride_epub(tmp_path_factory):
    """Pride and Prejudice as an EPUB with nesting (paragraphs in a div, words in italics), and the book read."""
    path = nested_epub(load_book(BOOKS["pride-and-prejudice.txt"]), tmp_path_factory.mktemp("epub") / "pride.epub")
    return path, load_book(path)


def sentences(book, n: int, seed: int = 0) -> list[int]:
    rng = np.random.default_rng(seed)
    return sorted(rng.choice(np.arange(book.first_read, len(book)), n, replace=False).tolist())


def test_every_way_apps_write_a_place_lands_on_its_sentence(pride_epub):
    """Calibre's CFI, the standard CFI and KOReader's xpointer of 40 sentences (some after an italic word, so a
    second text node) each map to that sentence through the EPUB's structure, not a percentage."""
    path, book = pride_epub
    items = epub_spine(path.read_bytes(), path.name).items
    for sid in sentences(book, 40):
        written = written_places(path, book, sid)
        for place in (written.calibre, written.standard):
            assert book.sentence_at(cfi_place(items, place)) == sid, place
        assert book.sentence_at(xpointer_place(items, written.koreader)) == sid, written.koreader
    nested = [written_places(path, book, sid).koreader for sid in sentences(book, 200, seed=1)]
    assert any("text()[2]" in place for place in nested), "some places follow an inline element"


def test_a_place_after_a_drop_capital_a_note_mark_a_page_number_or_a_script_lands_on_its_sentence(tmp_path):
    """The EPUB reader leaves note marks, page numbers, scripts and styles out and runs a drop capital on into its
    word; a KOReader place counted through the XHTML's own text nodes still lands on its sentence."""
    from elite_ui.testing.files import make_epub

    body = ('<p>Before it all.</p><p><span class="dropcap">I</span>t was <span class="smcap">Mr</span>. Darcy<a '
            'href="#n1" epub:type="noteref"><sup>1</sup></a> who came.<br/>Then M<sup>me</sup> Bovary left<sup>*'
            '</sup>.<span class="pagenum">[Pg 23]</span> At home<span epub:type="pagebreak">24</span> Darcy sat.</p>'
            '<p>Here <script>var x = "Hidden words. More of them.";</script>she went. Later <style>p { color: red; }'
            '</style>he came.</p>')
    path = make_epub(tmp_path / "marks.epub", [("One", body)])
    book = load_book(path)
    items = epub_spine(path.read_bytes(), path.name).items
    said = {book.sentence(i).text: i for i in range(len(book))}
    for paragraph, node, offset, sentence in [
        (2, 2, 2, "It was Mr. Darcy who came."), (2, 4, 0, "Then Mme Bovary left."), (2, 8, 1, "At home Darcy sat."),
        (3, 1, 1, "Here she went."), (3, 2, 10, "Later he came."), (3, 3, 0, "Later he came.")]:
        place = xpointer_place(items, f"/body/DocFragment[1]/body/p[{paragraph}]/text()[{node}].{offset}")
        assert place is not None and book.sentence_at(place) == said[sentence], (paragraph, node, offset)


def test_a_place_in_the_text_a_div_holds_beside_its_paragraphs_lands_on_its_sentence(tmp_path):
    """A letter's opening and closing lines written in its ``div`` beside the paragraphs (which the EPUB reader reads
    where they stand) are places too: a KOReader or Calibre place there lands on that sentence, not on the next
    paragraph, which the reader has not reached; one in the space between two paragraphs, on the next; so does
    every sentence's place as the apps write it."""
    from elite_ui.testing.files import make_epub

    body = ('<p>Before the letter came.</p><div class="letter">Dear <i>Jane</i>, I write in haste.<p>The news is '
            'bad.</p>\n<p>Lydia is gone.</p>Yours ever, Lizzy.</div><p>After it all.</p>')
    path = make_epub(tmp_path / "letter.epub", [("One", body)])
    book = load_book(path)
    items = epub_spine(path.read_bytes(), path.name).items
    said = {book.sentence(i).text: i for i in range(len(book))}
    for place, sentence in [("div/text()[1].2", "Dear Jane, I write in haste."),
                            ("div/text()[2].4", "Dear Jane, I write in haste."),
                            ("div/i", "Dear Jane, I write in haste."),
                            ("div/text()[3].0", "Lydia is gone."),
                            ("div/text()[4].3", "Yours ever, Lizzy."),
                            ("div", "Dear Jane, I write in haste."),
                            ("", "One"),
                            ("div/p[2]/text().2", "Lydia is gone.")]:
        found = xpointer_place(items, f"/body/DocFragment[1]/body/{place}".rstrip("/"))
        assert book.sentence_at(found) == said[sentence], (place, book.text[found:found + 20])
    for sid in range(book.first_read, len(book)):
        written = written_places(path, book, sid)
        for place in (written.calibre, written.standard):
            assert book.sentence_at(cfi_place(items, place)) == sid, place
        assert book.sentence_at(xpointer_place(items, written.koreader)) == sid, written.koreader


def test_every_place_lands_on_its_sentence_in_randomly_nested_blocks(tmp_path):
    """In 30 seeded documents of nested ``div``s holding paragraphs, quotations, italics and their own text in any
    order, each sentence's place as the three apps write it lands on that sentence."""
    import random

    from elite_ui.testing.files import make_epub

    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"]

    def sentence(r: random.Random) -> str:
        said = [r.choice(words) for _ in range(r.randint(3, 7))]
        if r.random() < 0.4:
            said[1] = f"<i>{said[1]}</i>"
        return " ".join(said).capitalize() + r.choice(".!?")

    def div(r: random.Random, depth: int) -> str:
        parts = []
        for _ in range(r.randint(1, 4)):
            kind = r.random()
            parts.append(f"<p>{sentence(r)} {sentence(r)}</p>" if kind < 0.35 else
                         f"<blockquote>{sentence(r)}</blockquote>" if kind < 0.5 else
                         div(r, depth + 1) if kind < 0.7 and depth < 4 else sentence(r) + " ")
        return f"<div>{''.join(parts)}</div>\n"

    for seed in range(30):
        r = random.Random(seed)
        body = "<p>Start here now.</p>\n" + "".join(div(r, 0) for _ in range(r.randint(1, 3))) + "<p>The end.</p>"
        path = make_epub(tmp_path / f"{seed}.epub", [("One", body)])
        book = load_book(path)
        items = epub_spine(path.read_bytes(), path.name).items
        for sid in range(book.first_read, len(book)):
            written = written_places(path, book, sid)
            for place in (written.calibre, written.standard):
                assert book.sentence_at(cfi_place(items, place)) == sid, (seed, place)
            assert book.sentence_at(xpointer_place(items, written.koreader)) == sid, (seed, written.koreader)


@pytest.mark.parametrize("place", ["epubcfi(/999/2/4/2/1:0)", "epubcfi(/6/4/2)", "epubcfi()", "epubcfi(/x)",
                                   "/body/DocFragment[0]/body/p", "/body/DocFragment[3]/body/p[99999]/text().4",
                                   "javascript:alert(1)", "epubcfi(" + "/2" * 5000 + ")", ""])
def test_a_place_that_cannot_be_followed_is_none(pride_epub, place):
    path, _ = pride_epub
    items = epub_spine(path.read_bytes(), path.name).items
    found = cfi_place(items, place) if place.startswith("epubcfi") else xpointer_place(items, place)
    assert found is None or isinstance(found, int)


def digests(folder: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def highlights_of(book, path, sids: list[int]) -> list[dict]:
    """Calibre highlights of these sentences, written as Calibre's viewer writes them; their text set in the
    typography an e-reader shows (curly quotes, a dash, a ligature) where the book file has others."""
    out = []
    for n, sid in enumerate(sids):
        where = written_places(path, book, sid)
        shown = book.sentence(sid).text.replace("'", "\u2019").replace("fi", "\ufb01").replace("--", "\u2014")
        out.append({"type": "highlight", "uuid": f"u{n}", "highlighted_text": shown, "notes": f"note {n}",
                    "spine_index": where.spine_index, "start_cfi": where.in_item, "end_cfi": where.in_item,
                    "toc_family_titles": ["Chapter"], "epoch": NOW - 3600 * n})
    return out


def test_a_calibre_library_gives_its_books_position_and_highlights_read_only(pride_epub, tmp_path):
    path, book = pride_epub
    sample = Path(__file__).resolve().parents[1] / "assets" / "the-wind-in-the-willows.txt"
    at = sentences(book, 1, seed=3)[0]
    marked = sentences(book, 12, seed=4)
    library = calibre_library(tmp_path / "Calibre Library", [
        {"title": "Pride and Prejudice", "author": "Jane Austen", "files": [path, BOOKS["pride-and-prejudice.txt"]],
         "position": (written_places(path, book, at).calibre, 0.5, NOW - 2 * 86400),
         "highlights": highlights_of(book, path, marked)},
        {"title": "The Wind in the Willows", "author": "Kenneth Grahame", "files": [sample],
         "position": ("", 0.25, NOW)}])
    before = digests(library)
    shelf = CalibreLibrary(library)
    found = shelf.search("austen")
    assert [b.title for b in found] == ["Pride and Prejudice"] and found[0].file().suffix == ".epub"
    assert {b.title for b in shelf.search("")} == {"Pride and Prejudice", "The Wind in the Willows"}
    reading = shelf.reading(found[0], "epub")
    located = locate(book, found[0].file(), [reading])
    assert located.sentence == at and located.how == "exact"
    assert located.said(book, now=NOW).startswith(f"You are at {book.chapters[book.chapter_of[at]].name}")
    assert "(from Calibre, 2 days ago)" in located.said(book, now=NOW)
    assert sorted(f.sentences[0] for f in located.found) == marked, "every highlight on its own sentence"
    assert all(f.how == "exact" for f in located.found) and located.found[-1].marked.note == "note 0"
    willows = shelf.search("willows")[0]
    txt = load_book(willows.file())
    assert locate(txt, willows.file(), [shelf.reading(willows, "txt")]).how == "fraction"
    assert digests(library) == before, "the library is never written"


def test_a_koreader_sidecar_gives_the_position_and_annotations_and_the_latest_app_wins(pride_epub, tmp_path):
    path, book = pride_epub
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    at, marked = sentences(book, 1, seed=5)[0], sentences(book, 8, seed=6)
    sidecar = koreader_sidecar(copy, {
        "last_xpointer": written_places(path, book, at).koreader, "percent_finished": 0.42,
        "summary": {"modified": "2026-05-01", "status": "reading"},
        "annotations": [{"text": book.sentence(s).text, "note": "mine", "chapter": "Chapter",
                         "pos0": written_places(path, book, s).koreader, "datetime": "2026-05-01 21:14:03"}
                        for s in marked]})
    before = digests(tmp_path)
    assert sidecar_for(copy) == sidecar
    reading = read_sidecar(sidecar)
    assert reading.position.source == "KOReader" and reading.position.fraction == 0.42
    located = locate(book, copy, [reading])
    assert located.sentence == at and located.how == "exact" and located.source == "KOReader"
    assert [f.sentences[0] for f in located.found] == marked
    assert digests(tmp_path) == before


def test_a_highlight_with_a_stale_place_and_changed_words_is_found_fuzzily(pride_epub):
    from elite_ui.library import Marked, Reading

    path, book = pride_epub
    sid = sentences(book, 1, seed=7)[0]
    text = book.sentence(sid).text
    words = text.split()
    changed = " ".join([*words[:-2], "somewhat", *words[-1:]]) if len(words) > 6 else text
    elsewhere = written_places(path, book, sentences(book, 1, seed=8)[0]).calibre
    found = locate(book, path, [Reading("Calibre", marked=[Marked("Calibre", changed, place=elsewhere)])]).found[0]
    assert sid in found.sentences and found.how in ("exact", "fuzzy")


def test_a_line_the_book_says_twice_is_taken_in_the_chapter_the_app_names(pride_epub):
    from elite_ui.library import Marked, Reading

    path, book = pride_epub
    twice = [i for i in range(book.first_read, len(book)) if book.sentence(i).text == "This cannot be!"]
    assert len(twice) == 2 and book.chapter_of[twice[0]] != book.chapter_of[twice[1]]
    later = book.chapters[int(book.chapter_of[twice[1]])].title
    assert later == "CHAPTER LIX."
    marks = [Marked("KOReader", "This cannot be!"), Marked("KOReader", "This cannot be!", chapter="Chapter LIX"),
             Marked("KOReader", "This cannot be!", chapter="Chapter XCIX")]
    found = locate(book, path, [Reading("KOReader", marked=marks)]).found
    assert [f.sentences for f in found] == [[twice[0]], [twice[1]], [twice[0]]], (
        "by its text alone the first; in the chapter named, that chapter's; a chapter the book lacks changes nothing")


HOSTILE_DBS = {
    "not a database": b"SQLite format 2\x00 this is not one",
    "random bytes": bytes(range(256)) * 40,
}


@pytest.mark.parametrize("name", list(HOSTILE_DBS))
def test_a_file_that_is_not_a_calibre_database_is_one_sentence(tmp_path, name):
    (tmp_path / "metadata.db").write_bytes(HOSTILE_DBS[name])
    with pytest.raises(LibraryError, match=r"^.+\.$"):
        CalibreLibrary(tmp_path).search("")


def test_calibre_rows_of_the_wrong_type_or_size_or_leaving_the_library_are_left_out(pride_epub, tmp_path):
    path, book = pride_epub
    library = calibre_library(tmp_path / "lib", [{"title": "Pride", "author": "Austen", "files": [path]}])
    outside = tmp_path / "secret.txt"
    outside.write_text("CHAPTER I\n\nA secret outside the library.\n")
    db = sqlite3.connect(library / "metadata.db")
    db.execute("INSERT INTO books (id, title, sort, path) VALUES (2, 'Escape', 'Escape', '../..')")
    db.execute("INSERT INTO data (book, format, uncompressed_size, name) VALUES (2, 'TXT', 1, ?)",
               (str(outside.with_suffix("")).lstrip("/"),))
    db.execute("INSERT INTO books (id, title, sort, path) VALUES (3, ?, 'x', 'x')", ("x" * 100_000,))
    for cfi, frac, epoch in (("epubcfi(/4/2)", "half", "yesterday"), (12, 1e308, "NaN"),
                             ("x" * 1_000_000, -1, 1e30)):
        db.execute("INSERT INTO last_read_positions (book, format, user, device, cfi, epoch, pos_frac) VALUES "
                   "(1, 'EPUB', 'u', ?, ?, ?, ?)", (str(epoch), cfi, epoch, frac))
    hostile = ("{not json", json.dumps([1, 2]), json.dumps({"highlighted_text": 5}), "[" * 100_000 + "]" * 100_000,
               json.dumps({"highlighted_text": "x" * 200_000}), json.dumps({"highlighted_text": "", "removed": True}))
    for n, data in enumerate(hostile):
        db.execute("INSERT INTO annotations (book, format, user_type, user, timestamp, annot_id, annot_type, "
                   "annot_data) VALUES (1, 'EPUB', 'local', 'v', 'soon', ?, 'highlight', ?)", (f"a{n}", data))
    db.commit()
    db.close()
    shelf = CalibreLibrary(library)
    assert [b.title for b in shelf.search("")] == ["Pride"], "no book outside the library, none without files"
    reading = shelf.reading(shelf.search("Pride")[0], "epub")
    assert reading.marked == []
    assert reading.position is None or (reading.position.fraction is None and reading.position.when is None)
    assert locate(book, path, [reading]).sentence in (None, *range(len(book)))


SIDECARS = {
    "a call": 'return { ["percent_finished"] = os.execute("touch /tmp/elite-pwned") }',
    "a function": "return { f = function() return 1 end }",
    "statements": 'os.execute("touch /tmp/elite-pwned")\nreturn {}',
    "a name": "return { percent_finished = secret }",
    "an operation": 'return { ["text"] = "a" .. "b" }',
    "not lua": "{{{{ not lua at all",
    "not a table": 'return "text"',
    "deep": "return " + "{" * 50 + "}" * 50,
    "deep parentheses": "return { a = " + "(" * 100_000 + "1" + ")" * 100_000 + " }",
    "an unclosed string": 'return { text = "never closed }',
}


@pytest.mark.parametrize("name", list(SIDECARS))
def test_a_sidecar_with_code_or_no_table_is_one_sentence_and_nothing_runs(tmp_path, name):
    path = tmp_path / "book.sdr" / "metadata.epub.lua"
    path.parent.mkdir()
    path.write_text(SIDECARS[name])
    with pytest.raises(LibraryError, match=r"^.+\.$"):
        read_sidecar(path)
    assert not Path("/tmp/elite-pwned").exists()


def test_brackets_are_counted_outside_strings_and_comments_before_parsing():
    """Issue 36 item 6: the nesting is counted in one pass before luaparser reads the file; brackets inside
    strings, long strings and comments do not count, and a real sidecar's shape passes."""
    from elite_ui.library.koreader import MAX_BRACKETS, brackets

    assert brackets('return { ["a"] = { [1] = "x" } }') == 3
    assert brackets('return { t = "((((\\"((((", u = \'{{{{\', v = [==[ ]] (((( ]==] } -- ((((\n--[[ {{{{ ]]') == 1
    assert brackets("return { t = [[ never closed") > MAX_BRACKETS
    assert brackets("(" * 100_000) > MAX_BRACKETS


def test_highlights_are_bounded_in_number_length_and_fuzzy_work(pride_epub):
    """Issue 36 item 6: 1,200 highlights of 10,000 characters each (none the book's text) are not all looked for,
    none is compared loosely (too long), and what was not done is said in sentences."""
    from elite_ui.library.located import FUZZY_CHARS, MAX_HIGHLIGHTS
    from elite_ui.library.model import Marked

    path, book = pride_epub
    long = Reading("Calibre", marked=[Marked("Calibre", f"{n} " + "Elizabeth walked on alone. " * 370)
                                     for n in range(1200)])
    located = locate(book, path, [long])
    assert len(located.found) == MAX_HIGHLIGHTS and located.left_out == 200
    assert located.exact_only == MAX_HIGHLIGHTS and all(len(m.text) > FUZZY_CHARS for m in long.marked)
    said = located.said(book)
    assert "0 of 1000 highlights found" in said and "exact text only" in said and "200 more were not looked for" \
        in said
    common = Marked("Calibre", "She was not the one to be in the room with him at all then.")  # 60 passages each
    few = Reading("Calibre", marked=[common] * 60)
    spent = locate(book, path, [few])
    assert spent.fuzzy_left == 0 and spent.exact_only > 0, "the loose comparisons of all highlights are bounded"


def test_a_highlight_is_found_exactly_however_its_spacing_and_dashes_differ():
    """Any run of white space stands for a space, any run of dashes for a dash; the place found is the book's own
    text, and only within the stretch searched."""
    from elite_ui.library.located import Plain

    plain = Plain("He said:\n\n  \u201cNo --  never\u201d\u00a0and   left---for good.")
    at = plain.find('"No - never" and left-for', 0, len(plain.text))
    assert plain.text[slice(*at)] == '"No --  never" and   left---for'
    assert plain.find('"No - never" and left-for', 0, 20) is None
    assert plain.find("left-for good.", 12, 999) == (len(plain.text) - 16, len(plain.text))
    places = [plain.in_text(i) for i in range(len(plain.squeezed))]
    assert all(plain.text[at] == c or (c == " " and plain.text[at].isspace())
               for c, at in zip(plain.squeezed, places, strict=True)), "each squeezed character's own place"
    assert [plain.in_squeezed(at) for at in places] == list(range(len(plain.squeezed))), "each way, the same place"
    assert plain.in_squeezed(places[-1] + 1) == len(plain.squeezed)


def test_a_folder_library_does_not_follow_a_link_to_a_book_outside_it(pride_epub, tmp_path):
    from elite_ui.library import open_shelf

    path, _ = pride_epub
    books = tmp_path / "Books"
    books.mkdir()
    (books / "inside.epub").write_bytes(path.read_bytes())
    (books / "outside.epub").symlink_to(path)
    (books / "also-inside.epub").symlink_to(books / "inside.epub")
    assert sorted(b.title for b in open_shelf(books).search("")) == ["also-inside", "inside"]


def test_sidecar_values_of_the_wrong_type_are_left_out(tmp_path):
    path = tmp_path / "book.sdr" / "metadata.epub.lua"
    path.parent.mkdir()
    path.write_text('return { ["percent_finished"] = "lots", ["last_xpointer"] = 12, ["annotations"] = '
                    '{ [1] = "text", [2] = { ["text"] = 5 }, [3] = { ["text"] = "kept", ["datetime"] = "never" } } }')
    reading = read_sidecar(path)
    assert reading.position is None and [m.text for m in reading.marked] == ["kept"]
    path.write_bytes(b"\xff\xfe not utf-8 \x00")
    with pytest.raises(LibraryError):
        read_sidecar(path)


def test_the_command_line_finds_the_book_in_the_library_and_stops_where_the_reader_is(pride_epub, tmp_path,
                                                                                       capsys):
    from elite_ui.ask import main

    path, book = pride_epub
    at = 400
    library = calibre_library(tmp_path / "lib", [
        {"title": "Pride and Prejudice", "author": "Jane Austen", "files": [path],
         "position": (written_places(path, book, at).calibre, 0.3, NOW)},
        {"title": "Persuasion", "author": "Jane Austen", "files": [BOOKS["pride-and-prejudice.txt"]]}])
    assert main(["--library", str(library), "pride", "--recap"]) == 0
    out = capsys.readouterr()
    chapter = book.chapters[book.chapter_of[at]]
    assert f"You are at {chapter.name}" in out.err and "from Calibre" in out.err
    assert f"up to S{at}" in out.out and book.chapters[book.chapter_of[at] + 1].title not in out.out
    assert main(["--library", str(library), "austen", "Who?"]) == 2
    assert "2 books of the library match “austen”" in capsys.readouterr().err


def test_a_folder_of_books_with_koreader_sidecars_is_a_library_too(pride_epub, tmp_path):
    from elite_ui.library import BookFolder, located_in, open_shelf

    path, book = pride_epub
    books = tmp_path / "Books" / "Austen"
    books.mkdir(parents=True)
    copy = books / "pride.epub"
    copy.write_bytes(path.read_bytes())
    (books / "notes.md").write_text("not a book")
    koreader_sidecar(copy, {"last_xpointer": written_places(path, book, 700).koreader, "percent_finished": 0.5})
    shelf = open_shelf(tmp_path / "Books")
    assert isinstance(shelf, BookFolder) and [b.title for b in shelf.search("prid")] == ["pride"]
    entry = shelf.book(shelf.search("prid")[0].id)
    located, problems = located_in(book, shelf, entry)
    assert located.sentence == 700 and located.source == "KOReader" and problems == []
    (copy.with_suffix(".sdr") / "metadata.epub.lua").write_text('return { x = os.exit() }')
    located, problems = located_in(book, shelf, entry)
    assert located.sentence is None and len(problems) == 1 and "holds code" in problems[0]
    with pytest.raises(LibraryError, match="not a folder"):
        open_shelf(tmp_path / "nowhere")


def test_sidecars_kept_in_koreaders_settings_folder_are_found_by_path_and_by_partial_md5(pride_epub, tmp_path):
    """KOReader keeps sidecars beside the book, or in its settings folder: ``docsettings/`` mirrors the book's
    path, ``hashdocsettings/`` names it by util.partialMD5 (samples at 0, 1 KiB, 4 KiB... of the file)."""
    import hashlib

    from elite_ui.library.koreader import partial_md5

    path, _ = pride_epub
    data = path.read_bytes()
    samples = b"".join(data[o:o + 1024] for o in (0, *(1024 << (2 * i) for i in range(11))) if o < len(data))
    assert partial_md5(path) == hashlib.md5(samples).hexdigest()
    settings = tmp_path / "koreader"
    mirrored = settings / "docsettings" / str(path.resolve().parent).lstrip("/") / f"{path.stem}.sdr"
    mirrored.mkdir(parents=True)
    (mirrored / "metadata.epub.lua").write_text("return {}")
    assert sidecar_for(path) is None and sidecar_for(path, settings) == mirrored / "metadata.epub.lua"
    (mirrored / "metadata.epub.lua").unlink()
    digest = partial_md5(path)
    hashed = settings / "hashdocsettings" / digest[:2] / f"{digest}.sdr"
    hashed.mkdir(parents=True)
    (hashed / "metadata.epub.lua").write_text("return {}")
    assert sidecar_for(path, settings) == hashed / "metadata.epub.lua"


def test_an_older_koreader_sidecar_gives_its_highlights_with_their_notes(pride_epub, tmp_path):
    """KOReader before 2024.07 kept highlights by page (``highlight``) and their notes in ``bookmarks`` (where
    ``notes`` held the highlighted text and ``text`` the reader's note)."""
    path, book = pride_epub
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    marked = sentences(book, 3, seed=9)
    where = {s: written_places(path, book, s).koreader for s in marked}
    koreader_sidecar(copy, {
        "highlight": {12: [{"text": book.sentence(s).text, "pos0": where[s], "chapter": "Chapter",
                            "datetime": "2023-01-02 10:00:00"} for s in marked[:2]],
                      40: [{"text": book.sentence(marked[2]).text, "pos0": where[marked[2]]}]},
        "bookmarks": [{"notes": book.sentence(marked[0]).text, "text": "my old note", "pos0": where[marked[0]]}]})
    reading = read_sidecar(sidecar_for(copy))
    assert [m.note for m in reading.marked] == ["my old note", "", ""]
    assert sorted(f.sentences[0] for f in locate(book, copy, [reading]).found) == marked
