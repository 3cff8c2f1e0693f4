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
