"""The story so far and the character X-Ray: made from the book cut at the ceiling, every sentence cited."""

from __future__ import annotations

from elite_ui.ask import main
from elite_ui.book import load_book, reading_ceiling
from elite_ui.book.names import NameIndex, names_for
from elite_ui.book.story import mentioning, recap, together, xray

from .conftest import BOOKS


def test_the_story_so_far_stops_at_the_ceiling(pride):
    last, label = reading_ceiling(pride, "chapter 3")
    chapters = recap(pride.up_to(last, label))
    assert [c.ref for c in chapters] == ["ch. 1", "ch. 2", "ch. 3"]
    for chapter in chapters:
        assert len(chapter.sentences) == 3 and chapter.sentences == sorted(chapter.sentences)
        assert all(pride.sentence(sid).chapter_ref == chapter.ref and sid <= last for sid in chapter.sentences)
    assert [c.ref for c in recap(pride, last_chapters=2)] == ["ch. 60", "ch. 61"]


def test_x_ray_companions_are_the_books_own(pride, willows):
    names = names_for(pride, None)
    elizabeth = xray(pride, names, names.find("Elizabeth"))
    nearest = {name for name, _, _ in elizabeth.companions[:7]}
    assert {"Mr. Darcy", "Jane", "Mr. Bingley", "Charlotte Lucas", "Mr. Collins", "George Wickham"} <= nearest
    assert len(nearest & {"Mr. Bennet", "Mrs. Bennet"}) == 1, "a parent, as near as the other"
    assert elizabeth.mentions > 500 and sum(n for _, n in elizabeth.by_chapter) == elizabeth.mentions
    assert len(elizabeth.story) == sum(n > 0 for _, n in elizabeth.by_chapter) and elizabeth.story[0] == elizabeth.first
    assert "Lizzy" in pride.sentence(elizabeth.first).text and pride.sentence(elizabeth.first).chapter_ref == "ch. 1"
    names = names_for(willows, None)
    toad = xray(willows, names, names.find("Toad"))
    assert [name for name, _, _ in toad.companions[:3]] == ["Rat", "Badger", "Mole"]
    last, label = reading_ceiling(willows, "chapter 3")
    early = xray(willows.up_to(last, label), names, names.find("Toad"))
    assert "Badger" not in [name for name, _, _ in early.companions], "the Badger meets Toad in chapter 4"
    assert early.mentions < toad.mentions and all(sid <= last for _, _, ids in early.companions for sid in ids)


def test_a_character_is_named_by_their_own_variants_as_the_book_writes_them(tmp_path):
    """Middlemarch's Lydgate was named in 42 sentences of his 964 mentions ("Lydgate" is also in "Sir Godwin
    Lydgate", so only "Tertius" was his own word); "Mr. Bennet" was named by every "Mrs. Bennet" and "Miss Bennet",
    Will Ladislaw by the word "will" and Grey Beaver by "the grey wolf". A sentence names a character where one of
    their variants is written out, capitalised, and not inside another's longer name."""
    lines = ["Lydgate came in.", "Mrs. Lydgate sang.", "Sir Godwin Lydgate wrote a letter.", "Tertius smiled.",
             "The grey wolf ran, and we will see.", "Grey Beaver smoked, and Will laughed.", "Mr. Lydgate bowed."]
    path = tmp_path / "story.txt"
    path.write_text("CHAPTER I\n\n" + "\n\n".join(lines) + "\n", encoding="utf-8")
    book = load_book(path)
    names = NameIndex.from_text("\n".join(["Lydgate: Mr. Lydgate, Tertius", "Rosamond: Mrs. Lydgate",
                                           "Sir Godwin: Sir Godwin Lydgate", "Grey Beaver: Beaver, Grey",
                                           "Will Ladislaw: Will, Ladislaw"]))
    said = {c.name: [book.sentence(int(s)).text for s in mentioning(book, names, c)] for c in names.characters}
    assert said["Lydgate"] == ["Lydgate came in.", "Tertius smiled.", "Mr. Lydgate bowed."]
    assert said["Rosamond"] == ["Mrs. Lydgate sang."] and said["Sir Godwin"] == ["Sir Godwin Lydgate wrote a letter."]
    assert said["Grey Beaver"] == said["Will Ladislaw"] == ["Grey Beaver smoked, and Will laughed."]


def test_the_passages_two_characters_share_are_whole_paragraphs_naming_both(willows):
    names = names_for(willows, None)
    toad, badger = names.find("Toad"), names.find("Badger")
    shared = together(willows, names, toad, badger)
    assert len(shared) == {n: c for n, c, _ in xray(willows, names, toad).companions}["Badger"]
    for first, last in shared:
        text = willows.span_text(first, last)
        assert "Toad" in text and "Badger" in text
        assert willows.paragraph_of[first] == willows.paragraph_of[last] != willows.paragraph_of[first - 1]
    cut, label = reading_ceiling(willows, "chapter 3")
    assert together(willows.up_to(cut, label), names, toad, badger) == []


def test_the_command_line_prints_a_recap_and_an_x_ray(capsys):
    book = str(BOOKS["the-wind-in-the-willows.txt"])
    assert main([book, "--recap", "--up-to", "chapter 2"]) == 0
    out = capsys.readouterr().out
    assert "The story so far, up to chapter 2" in out and "[S" in out and "ch. 3" not in out
    assert main([book, "--xray", "Toad"]) == 0
    assert "Appears with" in capsys.readouterr().out
    assert main([book, "--xray", "Chairman"]) == 0  # said, as the page says it, where a list would be empty
    out = capsys.readouterr().out
    assert "Described:\n  none found\n" in out and out.endswith("(shared paragraphs):\n  no one\n")
    assert main([book, "--xray", "Nobody"]) == 2 and main([book]) == 2
    assert "give a question" in capsys.readouterr().err


def test_a_recap_sentence_without_a_label_is_cited_by_its_words_and_a_copied_one_is_no_recap(write_book):
    """Issue 38: the 1.5B model wrote its recap sentences without labels, or copied the chapter's sentences out;
    a sentence is cited by the fewest chapter sentences that hold its words, and a copy is dropped and counted."""
    from elite_ui.methods.recap import cited

    book = write_book("The Owl\n\nCHAPTER I\n\nMirek kept the light. He trimmed the lamp.\n\nCHAPTER II\n\n"
                      "An owl nested in the lamp room. Mirek fed it.\n\nCHAPTER III\n\nThe owl flew away.\n")
    said = cited(book, "Mirek keeps the light [S2]. Nobody came. An owl nested [S5, S99].", range(7))
    assert (said.lines, said.dropped, said.matched) == ([("Mirek keeps the light.", [2]), ("An owl nested.", [5])],
                                                        1, 0)
    fed = next(s for s in range(len(book)) if "fed" in book.sentence(s).text)
    said = cited(book, "Mirek fed the owl. The lighthouse burned down. An owl nested in the lamp room.",
                 range(len(book)))
    assert said.lines == [("Mirek fed the owl.", [fed])] and (said.dropped, said.matched, said.copied) == (2, 2, 1), (
        "a sentence without a label is cited by its words where they support it; one nothing supports is dropped, "
        "and one copied out of the chapter too")


def test_a_recap_sentence_its_labels_do_not_support_is_dropped_and_one_written_again_kept_once(write_book):
    """The 1.5B model's labels drift down the chapter as it loops ("Mrs. Bennet asks if he is married or single
    [S132]", again at S134, S136): a sentence its labels do not support is dropped, one written again is kept once,
    a copy of the prompt's worked example cites no sentence, a quotation's closing mark split off is no sentence,
    and one copying the sentences it cites run together is no recap."""
    from elite_ui.methods.prompts import EXAMPLE_RECAP
    from elite_ui.methods.recap import cited

    book = write_book("The Owl\n\nCHAPTER I\n\nMirek kept the light. He trimmed the lamp.\n\nCHAPTER II\n\n"
                      "An owl nested in the lamp room. Mirek fed it.\n\nCHAPTER III\n\nThe owl flew away.\n")
    fed = next(s for s in range(len(book)) if "fed" in book.sentence(s).text)
    said = cited(book, f"Mirek fed the owl [S{fed}]. Mirek fed the owl [S{fed}]. Mirek fed the owl [S2].",
                 range(len(book)))
    assert said.lines == [("Mirek fed the owl.", [fed])] and said.dropped == 0, "written again: kept once"
    said = cited(book, "Mirek feeds the owl [S2]. The lighthouse burned down [S2].", range(len(book)))
    assert (said.lines, said.dropped) == ([], 2), "their labels do not support them"
    assert cited(book, "Mirek fed the owl [S2].", range(len(book)), checked=False).lines == [
        ("Mirek fed the owl.", [2])], "condensing the recaps' lines checks their labels only"
    assert cited(book, EXAMPLE_RECAP, range(len(book))).lines == []
    said = cited(book, 'Mirek says, "Feed the owl!\n". [S2]', range(len(book)))
    assert all(any(c.isalpha() for c in text) for text, _ in said.lines), "a quotation's closing mark is no sentence"
    said = cited(book, "Mirek kept the light, he trimmed the lamp [S2, S3].", range(len(book)))
    assert (said.lines, said.copied) == ([], 1), "two sentences copied out, cited together"


def test_a_recap_cut_by_its_length_ends_at_its_last_whole_sentence(tmp_path, write_book):
    """A reply stopped at its length (the 1.5B model loops) loses its unfinished last sentence, which would else be
    cited by its words."""
    from elite_ui.methods.recap import Recaps
    from elite_ui.models import ScriptedLLM
    from elite_ui.models.base import finished

    book = write_book("The Owl\n\nCHAPTER I\n\nMirek kept the light. He trimmed the lamp. Mirek fed the owl.\n")
    llm = ScriptedLLM(lambda request: "Mirek keeps the light [S2]. Mirek feeds the owl [S4]. " + "Mirek trims the lamp "
                      * 80)
    recaps = finished(Recaps(llm, book, tmp_path).build())
    assert [t for t, _ in recaps[0].lines] == ["Mirek keeps the light.", "Mirek feeds the owl."]


def test_written_recaps_cite_their_chapter_are_kept_and_resume_after_a_stop(tmp_path, write_book, monkeypatch):
    import threading

    import pytest

    from elite_ui.errors import Cancelled
    from elite_ui.methods.recap import Recaps
    from elite_ui.models import ScriptedLLM
    from elite_ui.models.base import finished

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
    recaps = finished(Recaps(llm, book, tmp_path, stop).build())
    assert len(llm.log) == calls + 2, "the first chapter came from the cache"
    from elite_ui.methods import recap as recap_module

    monkeypatch.setattr(recap_module, "WRITTEN_VERSION", recap_module.WRITTEN_VERSION + 1)
    finished(Recaps(llm, book, tmp_path, stop).build())
    assert len(llm.log) == calls + 5, "recaps written before the way of writing them changed are written again"
    for chapter, written in zip(book.chapters[1:], recaps, strict=True):
        assert written.ref == chapter.ref
        assert all(chapter.first_sentence <= sid for _, ids in written.lines for sid in ids)
    assert sum(w.dropped for w in recaps) > 0, "sentences citing another chapter are left out"
    last, label = reading_ceiling(book, "chapter 2")
    cut = list(Recaps(llm, book.up_to(last, label), tmp_path).build())
    assert len(cut) == 2

    def broken(request):
        raise RuntimeError("llama_decode returned -1")

    from elite_ui.methods.recap import Written
    condensed = ScriptedLLM(lambda request: "Mirek keeps the light [S2]. Something else [S3]. An owl comes [S5].")
    recaps = [Written("ch. 1", "", [("Mirek keeps a lamp.", [2]), ("He trims it.", [3])]),
              Written("ch. 2", "", [("An owl nests.", [5]), ("Mirek feeds it.", [6])])]
    so_far = Recaps(condensed, book, tmp_path / "so-far").so_far([Written("ch. 1", "", [("Mirek keeps a lamp.", [2])]),
                                                                  Written("ch. 2", "", [("An owl nests.", [5])])])
    assert so_far.lines == [("Mirek keeps the light.", [2]), ("An owl comes.", [5])] and so_far.dropped == 1, (
        "a sentence citing nothing the recaps cited (S3 is the chapter's, not the recaps') is left out")
    import re

    def first_label(request):
        return "Event [{}].".format(re.search(r"S\d+", request.messages[-1]["content"]).group())

    rounds = ScriptedLLM(first_label)
    monkeypatch.setattr(recap_module, "WINDOW_SHARE", 16 / rounds.n_ctx)
    writer = Recaps(rounds, book, tmp_path / "rounds")
    assert writer.so_far(recaps).lines == [("Event.", [2])] and len(rounds.log) == 2 + 1, (
        "recaps too long for one window: a call per window of two, then a round over what those wrote")
    writer.so_far(recaps)
    assert len(rounds.log) == 3, "kept: condensing the same recaps again makes no call"

    from elite_ui.errors import ModelError
    with pytest.raises(ModelError, match="failed while writing a recap: llama_decode"):
        next(Recaps(ScriptedLLM(broken), book, tmp_path / "other").build())


def test_a_written_recap_leaves_out_the_chapters_with_nothing_citable_and_says_so(pride):
    from elite_ui.app.render.story import written_html
    from elite_ui.methods.recap import Written

    first, second = pride.chapters[1], pride.chapters[2]
    recaps = [Written(first.ref, first.title, [("Mr. Bingley takes Netherfield.", [first.first_sentence])]),
              Written(second.ref, second.title, [])]
    shown = written_html(pride, recaps, "in the whole book", "SmolLM2", Written("", "", []))
    assert shown.count("<h4>") == 1 and "So far" not in shown
    assert "Nothing the model wrote of 1 chapter could be cited; it is left out." in shown
    recaps[0].matched = 2
    assert "2 sentences the model wrote without a usable label are cited to the sentences that hold their words." \
        in written_html(pride, recaps, "in the whole book", "SmolLM2", Written("", "", []))


def test_the_xray_describes_a_character_by_what_they_are_like_not_a_passing_state(pride):
    """Issue 38: "Described" holds sentences that say what the character is like (Darcy "was clever", Mr. Collins
    "is a conceited, pompous, narrow-minded, silly man"), not one about someone beside them (Mr. Hurst) nor a
    passing state ("Elizabeth was distressed")."""
    from elite_ui.book.names import found_names
    from elite_ui.book.story import xray

    names = found_names(pride)

    def described(who: str) -> list[str]:
        return [pride.sentence(sid).text for sid in xray(pride, names, names.find(who)).described]

    darcy = described("Mr. Darcy")
    assert any("Darcy was clever" in s for s in darcy) and not any("Mr. Hurst" in s for s in darcy)
    assert any("conceited, pompous, narrow-minded, silly man" in s for s in described("Mr. Collins"))
    elizabeth = described("Elizabeth Bennet")
    assert elizabeth and not any(s.startswith(("Elizabeth was distressed", "Elizabeth looked surprised"))
                                 for s in elizabeth)
    assert any("she had a lively, playful disposition" in s for s in elizabeth), "'she' in the next sentence"
    bingley = described("Mr. Bingley")
    assert any("Mr. Bingley was good-looking and gentlemanlike" in s for s in bingley)
    assert not any("punctual" in s for who in ("Mr. Bingley", "Mr. Collins", "Mr. Darcy") for s in described(who)), (
        "'was punctual to his time' is an occasion, not a trait")
    wickham = described("Wickham")
    assert any("by no means a respectable young man" in s for s in wickham)
    assert not any(s.startswith("The farewell between herself and Mr. Wickham") for s in wickham), (
        "the farewell was friendly: a name after 'between' is no subject")


def test_a_character_the_book_calls_the_mole_is_described_as_the_mole(willows):
    """The sample book writes "the Mole", "the Rat": "The Mole was a good listener" describes the Mole (the X-Ray
    said "none found" for both)."""
    from elite_ui.book.names import found_names
    from elite_ui.book.story import xray

    names = found_names(willows)
    mole = [willows.sentence(sid).text for sid in xray(willows, names, names.find("Mole")).described]
    assert any(s.startswith("The Mole was a good listener") for s in mole)
