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


def test_a_common_word_is_counted_and_an_empty_phrase_never_is(pride):
    from elite_ui.methods.elite import Elite, Settings
    from elite_ui.methods.elite.counting import ASK_WHAT, mention_order
    from elite_ui.models import ScriptedLLM

    question = "How many times is the word first mentioned?"
    assert fallback_phrase(question, pride) == "first" and mention_order(question) is None
    engine = Elite(ScriptedLLM({"count_phrase": [""]}), Settings(), embed=lambda texts: None)
    answered = engine.run(pride, question).answer
    assert answered.count.phrase == "first" and answered.count.total > 50 and '""' not in answered.text
    asked = engine.run(pride, "How many times is it mentioned?").answer
    assert asked.text == ASK_WHAT and asked.count is None


def test_a_word_of_a_name_the_question_writes_counts_the_whole_name(willows):
    """Issue 38's example question "How many times is Toad Hall mentioned?": the demo model names "hall" (or the
    fallback takes the last word), and the house is counted, not every hall; a word with no such name stays."""
    from elite_ui.methods.elite.counting import counting_phrase

    question = "How many times is Toad Hall mentioned?"
    assert counting_phrase(question, ["hall"], willows) == ("Toad Hall", "model")
    assert counting_phrase(question, [], willows)[0] == "Toad Hall"
    assert count(willows, "Toad Hall").total < count(willows, "hall").total
    assert counting_phrase("How many times does Toad laugh?", ["laugh"], willows) == ("laugh", "model")
