"""Property-based tests: any bytes end in a Book or our BookError, and any model output parses without raising."""

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elite_ui.book import load_book
from elite_ui.book.formats import read_txt
from elite_ui.book.load import assemble
from elite_ui.book.segment import paragraph_spans
from elite_ui.errors import BookError
from elite_ui.methods.parsing import parse_choice, parse_sentence_ids, parse_terms, parse_verdict

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=3000)
SENTENCEY = st.lists(st.sampled_from(["Mr.", "Dr.", "the", "fox", "ran", ".", "!", "?", "\n", "\n\n", " ", "“", "”",
                                      "\u200b", "\u202e", "é", "中文", "A.", "—", "\t"]), max_size=400).map("".join)


@FAST
@given(data=st.binary(max_size=4000), suffix=st.sampled_from([".txt", ".epub", ".pdf"]))
def test_any_bytes_end_in_a_book_or_a_clear_error(tmp_path, data, suffix):
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(data)
    try:
        book = load_book(path)
    except BookError as exc:
        message = str(exc)
        assert message and "\n" not in message
    else:
        assert len(book) >= 1


@FAST
@given(text=st.one_of(TEXT, SENTENCEY))
@example(text="0\u20280")
def test_sentences_tile_the_text_in_order(text):
    try:
        draft = read_txt(text.encode("utf-8"), "fuzz.txt")
        book = assemble(draft, path="fuzz.txt", fmt="txt", digest="")
    except BookError:
        return
    starts, ends = book.bounds[:, 0], book.bounds[:, 1]
    assert np.all(starts < ends) and np.all(ends[:-1] <= starts[1:])
    for i in range(len(book)):
        s = book.sentence(i).text
        assert s == s.strip() and s
    paragraphs = paragraph_spans(book.text)
    assert all(a < b for a, b in paragraphs)


@FAST
@given(reply=TEXT, limit=st.integers(1, 12))
def test_any_reply_parses_into_bounded_terms(reply, limit):
    terms = parse_terms(reply, limit)
    assert len(terms) <= limit and len({t.casefold() for t in terms}) == len(terms)
    assert all(t and len(t.split()) <= 5 for t in terms)
    sufficient, reason = parse_verdict(reply)
    assert sufficient in (True, False, None) and len(reason) <= 200
    assert parse_choice(reply, {"A": "Mr. Darcy", "B": "Mr. Collins"}) in ("A", "B", None)
    assert all(isinstance(i, int) for i in parse_sentence_ids(reply))
