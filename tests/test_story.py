"""The story so far and the character X-Ray: made from the book cut at the ceiling, every sentence cited."""

from __future__ import annotations

from elite_ui.ask import main
from elite_ui.book import load_book, reading_ceiling
from elite_ui.book.names import names_for
from elite_ui.book.story import recap, xray

from .conftest import BOOKS


def test_the_story_so_far_stops_at_the_ceiling(pride):
    last, label = reading_ceiling(pride, "chapter 3")
    chapters = recap(pride.up_to(last, label))
    assert [c.ref for c in chapters] == ["ch. 1", "ch. 2", "ch. 3"]
    for chapter in chapters:
        assert len(chapter.sentences) == 3 and chapter.sentences == sorted(chapter.sentences)
        assert all(pride.sentence(sid).chapter_ref == chapter.ref and sid <= last for sid in chapter.sentences)
    assert [c.ref for c in recap(pride, last_chapters=2)] == ["ch. 60", "ch. 61"]


def test_x_ray_companions_are_the_books_own(pride):
    names = names_for(pride, None)
    elizabeth = xray(pride, names, names.find("Elizabeth"))
    assert {name for name, _, _ in elizabeth.companions[:5]} == {"Mr. Darcy", "Jane", "Mr. Bingley", "Mrs. Bennet",
                                                                 "Wickham"}
    assert elizabeth.mentions > 500 and sum(n for _, n in elizabeth.by_chapter) == elizabeth.mentions
    assert len(elizabeth.story) == sum(n > 0 for _, n in elizabeth.by_chapter) and elizabeth.story[0] == elizabeth.first
    assert "Lizzy" in pride.sentence(elizabeth.first).text and pride.sentence(elizabeth.first).chapter_ref == "ch. 1"
    willows = load_book(BOOKS["the-wind-in-the-willows.txt"])
    names = names_for(willows, None)
    toad = xray(willows, names, names.find("Toad"))
    assert [name for name, _, _ in toad.companions[:3]] == ["Rat", "Badger", "Mole"]
    last, label = reading_ceiling(willows, "chapter 3")
    early = xray(willows.up_to(last, label), names, names.find("Toad"))
    assert "Badger" not in [name for name, _, _ in early.companions], "the Badger meets Toad in chapter 4"
    assert early.mentions < toad.mentions and all(sid <= last for _, _, ids in early.companions for sid in ids)


def test_the_command_line_prints_a_recap_and_an_x_ray(capsys):
    book = str(BOOKS["the-wind-in-the-willows.txt"])
    assert main([book, "--recap", "--up-to", "chapter 2"]) == 0
    out = capsys.readouterr().out
    assert "The story so far, up to chapter 2" in out and "[S" in out and "ch. 3" not in out
    assert main([book, "--xray", "Toad"]) == 0
    assert "Appears with" in capsys.readouterr().out
    assert main([book, "--xray", "Nobody"]) == 2 and main([book]) == 2
    assert "give a question" in capsys.readouterr().err


def test_written_recaps_cite_their_chapter_are_kept_and_resume_after_a_stop(tmp_path, write_book):
    import threading

    import pytest

    from elite_ui.errors import Cancelled
    from elite_ui.methods.recap import Recaps, cited
    from elite_ui.models import ScriptedLLM

    assert cited("Mirek keeps the light [S2]. Nobody came. An owl nested [S5, S99].", 0, 6) == (
        [("Mirek keeps the light.", [2]), ("An owl nested.", [5])], 1)
    book = write_book("The Owl\n\nCHAPTER I\n\nMirek kept the light. He trimmed the lamp.\n\nCHAPTER II\n\n"
                      "An owl nested in the lamp room. Mirek fed it.\n\nCHAPTER III\n\nThe owl flew away.\n")
    llm = ScriptedLLM(lambda request: "Something happens [S2]. Then more [S5]. And an owl [S8].")
    stop = threading.Event()
    steps = Recaps(llm, book, tmp_path, stop).build()
    assert next(steps) == (1, 3)
    stop.set()
    with pytest.raises(Cancelled):
        next(steps)
    stop.clear()
    calls = len(llm.log)
    steps = Recaps(llm, book, tmp_path, stop).build()
    while True:
        try:
            next(steps)
        except StopIteration as done:
            recaps = done.value
            break
    assert len(llm.log) == calls + 2, "the first chapter came from the cache"
    for chapter, written in zip(book.chapters[1:], recaps, strict=True):
        assert written.ref == chapter.ref
        assert all(chapter.first_sentence <= sid for _, ids in written.lines for sid in ids)
    assert sum(w.dropped for w in recaps) > 0, "sentences citing another chapter are left out"
    last, label = reading_ceiling(book, "chapter 2")
    cut = list(Recaps(llm, book.up_to(last, label), tmp_path).build())
    assert len(cut) == 2

    def broken(request):
        raise RuntimeError("llama_decode returned -1")

    from elite_ui.errors import ModelError
    with pytest.raises(ModelError, match="failed while writing a recap: llama_decode"):
        next(Recaps(ScriptedLLM(broken), book, tmp_path / "other").build())
