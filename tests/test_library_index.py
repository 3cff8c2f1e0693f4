"""Ask across my library (issue 37): every book of a folder library in one index, kept current book by book,
searched for books, chapters and sentences, each book up to where its reading app left the reader (a book no app
has opened only when asked for), an unreadable book skipped with its reason; and a question asked across it, from
the command line and through the API."""

from __future__ import annotations

import shutil

import pytest

from elite_ui.across import ask_across, put_together
from elite_ui.ask import main
from elite_ui.book import reading_ceiling
from elite_ui.library.index import LibraryIndex
from elite_ui.models import ScriptedLLM
from elite_ui.testing.reading_apps import koreader_sidecar

from .conftest import BOOKS

client_module = pytest.importorskip("gradio_client")


@pytest.fixture
def library(tmp_path, pride):
    """Pride and Prejudice read to a tenth (KOReader), The Wind in the Willows read to its end, the Jane Eyre
    excerpt never opened, and a file that is no EPUB."""
    folder = tmp_path / "books"
    folder.mkdir()
    for name in ("pride-and-prejudice.txt", "the-wind-in-the-willows.txt", "jane-eyre-excerpt.txt"):
        shutil.copy(BOOKS[name], folder / name)
    koreader_sidecar(folder / "pride-and-prejudice.txt", {"percent_finished": 0.1})
    koreader_sidecar(folder / "the-wind-in-the-willows.txt", {"percent_finished": 1.0})
    (folder / "broken.epub").write_bytes(b"this is no zip")
    return folder


def test_the_library_is_searched_at_once_each_book_up_to_where_the_reader_is(library, tmp_path, pride):
    index = LibraryIndex(library, tmp_path / "cache")
    done = index.update()
    assert (done.added, done.removed) == (3, 0)
    assert done.skipped == [("broken", done.skipped[0][1])] and "EPUB" in done.skipped[0][1]
    toad = index.search("Toad Hall")
    assert [b.title for b in toad.books] == ["The Wind in the Willows"]
    assert any("Toad Hall" in h.text for h in toad.books[0].hits) and toad.books[0].hits[0].chapter
    tenth = reading_ceiling(pride, "10%")[0]
    assert index.search("Bennet").books[0].ceiling == pytest.approx(tenth, abs=30)
    late = "Lambton"  # first named past the first tenth of Pride and Prejudice
    assert min(i for i in range(len(pride)) if late in pride.sentence(i).text) > tenth
    assert index.search(late).books == [], "nothing past where the reader is"
    unread = index.search("Lowood")
    assert unread.books == [] and unread.unread_left == 1, "a book no app opened is searched only when asked"
    asked = index.search("Lowood", unread=True)
    assert asked.books[0].key == "jane-eyre-excerpt.txt" and asked.books[0].ceiling is None


def test_only_what_changed_is_read_again_and_a_restart_reuses_the_index(library, tmp_path):
    """Each book read into the index is told as it is (the page shows it: a first search reads every book)."""
    cache = tmp_path / "cache"
    told = []
    LibraryIndex(library, cache).update(lambda *said: told.append(said))
    assert [(done, books) for done, books, _ in told] == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert all(isinstance(label, str) and label for _, _, label in told)
    told = []
    again = LibraryIndex(library, cache).update(lambda *said: told.append(said))  # a restart: the same file
    assert (again.added, again.changed, again.removed, again.kept) == (0, 0, 0, 3) and told == [], "nothing read"
    willows = library / "the-wind-in-the-willows.txt"
    text = willows.read_text(encoding="utf-8")
    middle = text.index("\n\n", len(text) // 2)
    willows.write_text(text[:middle] + "\n\nThe Marshalsea was a prison by the river." + text[middle:],
                       encoding="utf-8")
    (library / "jane-eyre-excerpt.txt").unlink()
    index = LibraryIndex(library, cache)
    done = index.update()
    assert (done.added, done.changed, done.removed, done.kept) == (0, 1, 1, 1)
    assert [b.title for b in index.search("Marshalsea").books] == ["The Wind in the Willows"]
    assert index.search("Lowood", unread=True).books == [], "a removed book's sentences are gone"
    assert [b.title for b in index.search("Toad Hall").books] == ["The Wind in the Willows"]


def test_a_damaged_index_file_is_built_again(library, tmp_path):
    """The index is a cache: a file that is no database (a crash, a full disk) is read again from the books, not
    an error at every search."""
    index = LibraryIndex(library, tmp_path / "cache")
    index.path.write_bytes(b"no database" * 100)
    again = LibraryIndex(library, tmp_path / "cache")
    assert again.update().added == 3
    assert [b.title for b in again.search("Toad Hall").books] == ["The Wind in the Willows"]


def test_a_question_across_the_library_names_each_book_that_says(library, tmp_path):
    index = LibraryIndex(library, tmp_path / "cache")
    index.update()
    asked = []

    def answer(book, question):
        asked.append((book.title, question.ceiling))
        said = book.title == "The Wind in the Willows"
        sentence = next(i for i in range(len(book)) if "Toad Hall" in book.sentence(i).text) if said else 0
        return {"answer": f"Toad lives at Toad Hall [S{sentence}]." if said else "Not found so far.", "citations": [
            {"sentence": sentence, "label": f"S{sentence}", "chapter": "chapter 1",
             "text": book.sentence(sentence).text}] if said else []}

    answered = ask_across(index, "Where does Toad live in Toad Hall?", answer)
    assert asked[0][0] == "The Wind in the Willows" and asked[0][1].startswith("S")
    assert answered["answer"].startswith("In The Wind in the Willows: Toad lives at Toad Hall (chapter 1). (chapter "
                                         "1: “"), "a label of one book's sentence numbers names no book: its chapter"
    assert put_together([], 0, 2).startswith("Nothing in your library")
    assert put_together([], 0, 2, "name one").endswith("2 books you have not opened hold the words too (name one).")


def test_the_command_line_asks_across_a_library(library, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ELITE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("elite_ui.ask.open_llm", lambda *a, **k: ScriptedLLM(default="Toad Hall\nToad"))
    assert main(["--library", str(library), "--across", "Where does Toad live?", "--json",
                 str(tmp_path / "across.json")]) == 0
    out, err = capsys.readouterr()
    assert "3 books indexed" in err and "1 skipped: broken" in err
    assert "The Wind in the Willows (up to S" in err and out.strip()
    assert main(["--across", "Where?"]) == 2
    assert "give it with --library" in capsys.readouterr().err


def test_the_api_searches_and_asks_the_hosts_library(library, tmp_path):
    from elite_ui.testing.browser import ROOT, start_app, stop_app

    process, url = start_app("--scripted", str(ROOT / "tests" / "data" / "scripted.json"), "--library",
                             str(library), cache=tmp_path / "cache")
    try:
        client = client_module.Client(url, verbose=False)
        found = client.predict(words="Toad Hall", api_name="/search_library")
        assert found["books"][0]["title"] == "The Wind in the Willows" and found["books"][0]["sentences"]
        answered = client.predict(question="Where does Toad live in Toad Hall?", api_name="/ask_library")
        assert answered["books"][0]["title"] == "The Wind in the Willows"
        assert answered["books"][0]["answer"]["up_to"] and answered["answer"]
        assert answered["searched"]["books"][0]["up_to"].startswith("up to S")
    finally:
        stop_app(process)


def test_words_too_common_to_rank_in_bounds_still_find_their_sentences(library, tmp_path, monkeypatch):
    """A search whose ranking runs past its steps (here: none at all) takes the sentences holding the words in
    book order instead: found, each under its ceiling, never an error."""
    index = LibraryIndex(library, tmp_path / "cache")
    index.update()
    monkeypatch.setattr("elite_ui.library.index.RANK_STEPS", 0)
    found = index.search("Toad Hall")
    assert [b.title for b in found.books] == ["The Wind in the Willows"] and found.books[0].hits
    assert all(h.score == 1.0 for h in found.books[0].hits), "taken unranked, in book order"
    assert found.unread_left in (1, None), "Jane Eyre's Thornfield Hall, in a book no app has opened"


def test_in_hosted_mode_a_question_across_the_library_counts_with_its_addresss_sessions(library, tmp_path):
    """``ask_library`` is a session of its address while it runs: one with as many sessions with a book open as
    ``--sessions-per-visitor`` allows is refused in one sentence, before any book is asked."""
    from types import SimpleNamespace

    from elite_ui.app.api import Api, ApiError
    from elite_ui.app.config import Config
    from elite_ui.app.state import Session
    from elite_ui.app.visitors import Visitors
    from elite_ui.book import load_book

    config = Config(hosted=True, sessions_per_visitor=1, library=str(library))
    ctx = SimpleNamespace(config=config, visitors=Visitors(config), cache_dir=tmp_path / "cache",
                          model=SimpleNamespace(llm=ScriptedLLM({}), status=""))
    tab = Session()
    tab.visitor, tab.book = "local", load_book(BOOKS["the-wind-in-the-willows.txt"])  # "local": no request
    ctx.visitors.sessions["a tab"] = tab
    with pytest.raises(ApiError, match="1 sessions with a book open"):
        next(Api(ctx).ask_library("Where does Toad live?"))
