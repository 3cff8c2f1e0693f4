"""The counting path: detection, inflected forms, whole words, case."""

from elite_ui.methods.elite.counting import count, fallback_phrase, is_counting, phrase_forms


def test_counting_questions_are_detected():
    assert is_counting("How many times does Elizabeth laugh?")
    assert is_counting("how often is Pemberley mentioned")
    assert not is_counting("How many sisters does Elizabeth have?")


def test_inflected_whole_word_case_insensitive_count(write_book):
    book = write_book("He laughed. They LAUGH at slaughter. Laughing, she left. The laughter faded. Laughs!")
    result = count(book, "laugh")
    assert result.total == 4
    assert sorted(o.matched.lower() for o in result.occurrences) == ["laugh", "laughed", "laughing", "laughs"]
    assert [o.sentence_id for o in result.occurrences] == [0, 1, 2, 4]


def test_phrases_count_across_line_breaks(write_book):
    book = write_book("Mr. Darcy bowed. Then Mr.\nDarcy left; mr darcy!")
    assert count(book, "Mr. Darcy").total == 3
    assert phrase_forms(book, "walk home")[:1] == ["walk home"] and "walked home" in phrase_forms(book, "walk home")


def test_phrase_falls_back_to_quotes_or_the_last_content_word(pride):
    assert fallback_phrase('How many times is "Pemberley" mentioned?', pride) == "Pemberley"
    assert fallback_phrase("How many times does Elizabeth laugh in the novel?", pride) == "laugh"


def test_counting_on_a_real_novel(pride):
    assert count(pride, "laugh").total == 41
