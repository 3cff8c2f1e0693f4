"""Books beyond English: each generated sample (French, German, Spanish, Chinese) is recognised, cut into sentences
and words in its own way, and its questions find their facts through its stopwords, stems or segmentation."""

import pytest

from elite_ui.book import load_book
from elite_ui.book.lexicon import ENGLISH
from elite_ui.methods.elite import Elite, Settings
from elite_ui.methods.elite.retrieval import collect
from elite_ui.methods.elite.settings import RetrievalSettings
from elite_ui.models import ScriptedLLM
from elite_ui.settings import made
from elite_ui.testing.languages import SAMPLES, sample_text

from .conftest import trigram_embed

LANGUAGES = sorted(SAMPLES)


@pytest.fixture(scope="module", params=LANGUAGES)
def sample(request, tmp_path_factory):
    text, described = sample_text(request.param)
    path = tmp_path_factory.mktemp(request.param) / f"{request.param}.txt"
    path.write_text(text, encoding="utf-8")
    return load_book(path), described


def test_the_language_title_author_and_chapters_are_recognised(sample):
    book, described = sample
    assert book.language == described.language and book.summary()["language"] == described.language
    assert book.title == described.title and book.author == described.author
    assert [c.title for c in book.chapters[1:]] == [described.heading.format(n=n) for n in (1, 2, 3)]


def test_every_sentence_is_cut_where_it_ends(sample):
    book, described = sample
    assert len(book) == 2 + 3 * (1 + 12 * 4 + 3)
    texts = {book.sentence(i).text for i in range(len(book))}
    assert set(described.filler) <= texts and {fact for fact, _, _ in described.facts} <= texts


@pytest.mark.parametrize("sentences", [
    ["Il pleuvait depuis le matin.", "À midi elle partit.", "Ça va bien.", "Étienne vint.", "M. Émile Zola arriva."],
    ["Llovía todo el día sin parar.", "Él vino tarde.", "Ángel no vino.", "¿Dónde estás ahora?"],
    ["He came at last.", "“Éponine!” she cried.", "Then Mr. Évariste spoke."]])
def test_a_sentence_opening_with_a_capital_beyond_a_to_z_is_one(sentences, tmp_path):
    """blingfire starts no sentence before "À", "Ça", "É" or "Á" (it does before "Über"): they had run on into the
    sentence before (a French book's sentences two or three at a time)."""
    path = tmp_path / "book.txt"
    path.write_text(" ".join(sentences), encoding="utf-8")
    book = load_book(path)
    assert [book.sentence(i).text for i in range(len(book))] == sentences


def test_in_a_book_of_a_language_with_marks_a_word_without_them_is_another_word(tmp_path):
    """An English book's "cafe" finds its "café" (docs/method.md); a French book's "ou" (or) is no "où" (where)."""
    path = tmp_path / "livre.txt"
    path.write_text("Il ne savait pas où aller, ni quoi faire. Le café ou le thé ? " * 20, encoding="utf-8")
    book = load_book(path)
    assert book.language == "fr" and book.forms("ou") == ("ou",), "the marks are the French stemmer's to weigh"


def test_stopwords_are_the_language_s_own(sample):
    book, described = sample
    for _, question, _ in described.facts:
        kept = book.lexicon.content_words(question)
        assert kept and not set(kept) & book.lexicon.stopwords
        assert len(kept) < len(book.lexicon.words(question))


@pytest.mark.parametrize("position", [0, 1, 2])
def test_a_question_s_own_words_find_its_fact_first(sample, position):
    book, described = sample
    fact, question, _ = described.facts[position]
    hits = collect(book, book.lexicon.content_words(question), RetrievalSettings(recall_index=3))
    assert hits[0].text == fact


def test_chinese_cut_as_english_finds_none_of_its_facts(tmp_path):
    """What segmentation fixes: read as English, a Chinese clause is one "word" that no question shares."""
    text, described = sample_text("zh")
    path = tmp_path / "zh.txt"
    path.write_text(text, encoding="utf-8")
    book = load_book(path)
    english = book.read_as("en")
    first = RetrievalSettings(recall_index=1)
    assert not any(collect(english, ENGLISH.content_words(q), first) for _, q, _ in described.facts)


def test_inflected_forms_come_from_the_book_through_the_stem(sample):
    book, _ = sample
    if book.language == "zh":
        assert book.forms("钥匙") == ("钥匙",)
        return
    verb = {"fr": "trouvé", "de": "fanden", "es": "encontraron"}[book.language]
    found = {"fr": "trouvèrent", "de": "fanden", "es": "encontraron"}[book.language]
    assert found in book.forms(verb)


def test_the_loop_answers_from_the_fact_with_terms_in_the_book_s_language(sample):
    book, described = sample
    fact, question, searched = described.facts[2]
    llm = ScriptedLLM({"terms": [searched], "judge": ["YES. It says so."], "answer": ["[S0]"]})
    trace = Elite(llm, made(Settings, importance_samples=0, iter_max=1, recall_index=3), embed=trigram_embed).run(
        book, question)
    hits = trace.of("collection")[0].data.hits
    assert hits[0].text == fact
    assert any(fact in book.span_text(c.first, c.last) for c in trace.of("chunks")[0].data.chunks)


def test_counting_questions_in_the_language_count_whole_words(sample):
    book, described = sample
    question, word, uses = described.counted
    llm = ScriptedLLM({"count_phrase": [word]})
    trace = Elite(llm, made(Settings, importance_samples=0), embed=trigram_embed).run(book, question)
    assert trace.of("count")[0].data.total == uses > 0


def test_a_parsed_book_keeps_its_language_in_the_cache(tmp_path):
    text, _ = sample_text("zh")
    path = tmp_path / "zh.txt"
    path.write_text(text, encoding="utf-8")
    first = load_book(path, cache_dir=tmp_path / "cache")
    again = load_book(path, cache_dir=tmp_path / "cache")
    assert again.stats["cached"] and again.language == "zh" and again.index.vocabulary == first.index.vocabulary


def test_a_book_of_one_repeated_word_is_read_as_english():
    from elite_ui.book.lexicon import detect_language

    assert detect_language("Pemberley " * 5000) == "en"
