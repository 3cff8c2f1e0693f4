"""Collection: overlap arithmetic, inflections, ranking, widening and merging."""

import numpy as np
import pytest

from elite_ui.app.render.common import highlight
from elite_ui.methods.elite.retrieval import collect, widen
from elite_ui.methods.elite.settings import FeedbackSettings, RetrievalSettings
from elite_ui.settings import with_overrides

STORY = ("The old captain opened the letter. Rain fell on the harbour. The captain read the letters twice. "
         "A gull cried. Nobody came to the harbour that night. The ship sailed at dawn. "
         "Years later, the captain burned every letter in the harbour.")


def best(k: int, **how) -> RetrievalSettings:
    """Collection keeping the ``k`` best sentences, ranked as ``how`` says."""
    return RetrievalSettings(recall_index=k, **how)


def test_overlap_counts_distinct_target_words(write_book):
    book = write_book(STORY)
    hits = collect(book, ["captain", "letter", "harbour"], best(10))
    assert [(h.sentence_id, h.score) for h in hits][:1] == [(6, 3)]
    scores = {h.sentence_id: h.score for h in hits}
    assert scores == {0: 2, 1: 1, 2: 2, 4: 1, 6: 3}
    assert sorted(hits[0].matched) == ["captain", "harbour", "letter"]


def test_inflected_forms_match_and_multiword_terms_split_into_words(write_book):
    book = write_book(STORY)
    [top] = collect(book, ["the captain's letters"], best(1))
    assert top.score == 2 and top.sentence_id in {0, 2}
    assert {h.sentence_id for h in collect(book, ["burn"], best(5))} == {6}


def test_ties_go_to_rarer_words_then_book_order(write_book):
    book = write_book(STORY)
    ranked = [h.sentence_id for h in collect(book, ["gull", "harbour"], best(10))]
    assert ranked[0] == 3, "gull occurs once, harbour three times: the gull sentence ranks first"
    assert ranked[1:] == [1, 4, 6]


def test_required_and_excluded_sentences(write_book):
    book = write_book(STORY)
    hits = collect(book, ["captain", "dawn"], best(10), required=["dawn"])
    assert [h.sentence_id for h in hits] == [5]
    hits = collect(book, ["captain"], best(10), exclude={0, 2})
    assert [h.sentence_id for h in hits] == [6]


def test_stopwords_and_unknown_words_retrieve_nothing(write_book):
    book = write_book(STORY)
    assert collect(book, ["the", "of it"], best(5)) == []
    assert collect(book, ["zeppelin"], best(5)) == []


def test_a_word_typed_without_its_marks_finds_the_book_s_word_with_them(write_book):
    """A reader (and a model) types "Eponine" and "cafe"; an English book writes "Éponine" and "café". The words
    it writes without marks are found as before, and the match is shown on the word as the book writes it."""
    book = write_book("The rain fell on the street. Éponine waited at the café. A cafe is no inn. Nobody came.")
    assert [h.sentence_id for h in collect(book, ["Eponine"], best(5))] == [1]
    assert sorted(h.sentence_id for h in collect(book, ["cafe"], best(5))) == [1, 2]
    hit = collect(book, ["Eponine"], best(5))[0]
    assert "<mark>Éponine</mark> waited" in highlight(book, book.sentence(hit.sentence_id).text, hit.matched)


def test_a_family_s_plural_finds_its_one_name_and_back(write_book):
    """A reader asks about "the Bennets"; the book mostly writes "Mrs. Bennet" and "her five daughters". English
    inflects no name, so "Bennets" had found only the sentences that write the plural. A word English inflects is
    left as it is: "news" is no plural of "new"."""
    book = write_book("Mrs. Bennet had five daughters. The Bennets lived at Longbourn. The news was new to them. "
                      "Mr. Lucas and the Lucases came. Nobody else did.")
    assert sorted(h.sentence_id for h in collect(book, ["Bennets"], best(5))) == [0, 1]
    assert sorted(h.sentence_id for h in collect(book, ["Bennet"], best(5))) == [0, 1]
    assert sorted(h.sentence_id for h in collect(book, ["Lucas"], best(5))) == [3]
    assert book.forms("lucas") == ("lucas", "lucases") and "new" not in book.forms("news")
    hit = collect(book, ["Bennets"], best(5))[0]
    assert "Mrs. <mark>Bennet</mark> had" in highlight(book, book.sentence(hit.sentence_id).text, hit.matched)


def test_top_k_is_respected(pride):
    assert len(collect(pride, ["Elizabeth", "Darcy"], best(25))) == 25


def test_widening_adds_neighbours_and_merges_overlaps(write_book):
    book = write_book(STORY)
    hits = collect(book, ["gull", "dawn"], best(5))
    chunks = widen(book, hits, 1)
    assert [(c.first, c.last, c.hits) for c in chunks] == [(2, 6, [3, 5])]
    assert chunks[0].text.startswith("The captain read") and chunks[0].text.endswith("in the harbour.")
    separate = widen(book, collect(book, ["letter"], best(5)), 0)
    assert [(c.first, c.last) for c in separate] == [(0, 0), (2, 2), (6, 6)]


def test_widening_stops_at_the_book_edges(write_book):
    book = write_book(STORY)
    [chunk] = widen(book, collect(book, ["opened"], best(1)), 2)
    assert (chunk.first, chunk.last) == (0, 2)


def test_bm25_lets_one_rare_word_outweigh_common_ones(write_book):
    book = write_book(STORY)
    by_overlap = [h.sentence_id for h in collect(book, ["captain", "harbour", "gull"], best(3))]
    by_bm25 = [h.sentence_id for h in collect(book, ["captain", "harbour", "gull"], best(3, ranking="bm25"))]
    assert by_overlap[0] == 6, "Eq. 1: the sentence with two of the words wins"
    assert by_bm25[0] == 3, "BM25: the one sentence with the rare 'gull' wins"


def test_the_bm25_formulas_are_lucene_s(write_book):
    import math

    import numpy as np

    from elite_ui.methods.lexical import idf_lucene, saturation
    assert idf_lucene(1, 7) == math.log(1 + 6.5 / 1.5) and idf_lucene(7, 7) > 0
    short, long = saturation(np.array([4.0, 16.0]), 8.0)
    assert short > 1 > long > 0


def test_smoothing_ranks_clustered_matches_first(write_book):
    book = write_book("A gull. The sea was grey. A lone gull flew. Then a captain came. The captain saw a gull. "
                      "Dawn broke over the captain and his ship.")
    alone = collect(book, ["gull", "captain"], best(1, ranking="bm25"))
    cluster = collect(book, ["gull", "captain"], best(1, ranking="bm25", reach=2, decay=0.5))
    assert alone[0].sentence_id == 4 and cluster[0].sentence_id == 4
    spread = collect(book, ["gull"], best(3, ranking="bm25", reach=2, decay=0.5))
    assert spread[0].sentence_id == 2, "the gull with gulls around it ranks first"
    assert spread[0].weight > spread[-1].weight


def test_span_bm25_scores_fixed_chunks_as_documents(write_book):
    import numpy as np

    from elite_ui.methods.lexical import span_bm25, targets
    book = write_book("A gull. The sea was grey. A lone gull flew. Then a captain came. The captain saw a gull. "
                      "Dawn broke over the captain and his ship.")
    scores = span_bm25(book, targets(book, ["gull", "captain"]), np.asarray([0, 2, 4]))
    assert scores.shape == (3,) and scores[2] > scores[1] > 0, "both words twice beat one word once"
    assert span_bm25(book, targets(book, ["whale"]), np.asarray([0, 3])).tolist() == [0.0, 0.0]


def test_a_second_tiling_starts_every_chunk_halfway_into_the_first_ones(pride):
    """Half-overlapping passages (issue 27): a boundary of the first tiling falls inside a chunk of the second (all
    but where a one-sentence chunk of 100 words or more starts in both), and each tiling covers the book once from
    its first start."""
    from elite_ui.methods.lexical import chunks, overlaps_half, tilings

    first, second = tilings(pride, 100, 2)
    assert first == chunks(pride, 100) and tilings(pride, 100, 1) == [first]
    assert [b + 1 for _, b in second[:-1]] == [a for a, _ in second[1:]] and second[-1][1] == len(pride) - 1
    assert [a for a, _ in second] == sorted({a + (b + 1 - a) // 2 for a, b in first} - {0})
    inside = [any(a < start <= b for a, b in second) for start, _ in first[1:] if start > second[0][0]]
    assert sum(inside) >= 0.95 * len(inside)
    assert overlaps_half((10, 19), [(15, 30)]) is False and overlaps_half((10, 19), [(14, 30)]) is True


def test_a_book_of_one_sentence_is_searched_with_every_tiling_setting(write_book):

    from elite_ui.methods.chunk_rag import ChunkRag, ChunkSettings
    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.methods.lexical import tilings
    from elite_ui.models import ScriptedLLM

    book = write_book("A lantern hung by the door.")
    assert tilings(book, 100, 2) == [[(0, 0)]]
    for count in (1, 2, 4):
        trace = Elite(ScriptedLLM({}), with_overrides(PRESETS["laptop"], model_terms=False, fuse_tilings=count)).run(
            book, "Where was the lantern?", generate=False)
        assert trace.answer.evidence == [0]
        placed = ChunkRag(ScriptedLLM({}), ChunkSettings(tilings=count)).run(book, "Where was the lantern?",
                                                                           generate=False)
        assert placed.answer.evidence == [0]


def test_half_overlapping_fixed_chunks_straddle_boundaries_and_never_repeat_half_a_chunk(pride):

    from elite_ui.methods.chunk_rag import ChunkRag, ChunkSettings
    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.methods.lexical import overlaps_half, targets, tilings
    from elite_ui.models import ScriptedLLM

    settings = with_overrides(PRESETS["laptop"], fuse_chunks=100, fuse_tilings=2, best_neighbours=False)
    elite = Elite(ScriptedLLM({}), settings)
    fixed = elite.fixed_chunks(pride, elite.tiled(pride, targets(pride, ["Darcy", "letter"])), 0.0)
    spans = [(c.first, c.last) for c in fixed]
    second = set(tilings(pride, 100, 2)[1])
    assert any(span in second for span in spans), "some chunks come from the second tiling"
    assert not any(overlaps_half(span, spans[:n]) for n, span in enumerate(spans))
    assert [c.weight for c in fixed] == sorted((c.weight for c in fixed), reverse=True)

    rag = ChunkRag(ScriptedLLM({}), ChunkSettings(tilings=2, evidence_tokens=1500))
    placed = rag.run(pride, "What did Darcy's letter say?", generate=False).of("retrieval")[0].data.chunks
    spans = [(c.first, c.last) for c in placed]
    assert len(spans) > 3 and not any(overlaps_half(span, spans[:n]) for n, span in enumerate(spans))


def test_the_best_fixed_chunks_neighbours_come_right_after_it(pride):
    """best_neighbours (issue 27): the same chunks, the best first, then those overlapping or meeting it, then the
    rest in their order."""

    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.methods.lexical import targets, touches
    from elite_ui.models import ScriptedLLM

    found = targets(pride, ["Darcy", "letter"])
    placed = {}
    for near in (False, True):
        elite = Elite(ScriptedLLM({}), with_overrides(PRESETS["laptop"], best_neighbours=near))
        placed[near] = [(c.first, c.last) for c in elite.fixed_chunks(pride, elite.tiled(pride, found), 0.0)]
    plain, near = placed[False], placed[True]
    best = plain[0]
    beside = [span for span in plain[1:] if touches(span, best)]
    assert beside and plain.index(beside[0]) > 1, "in BM25's order a neighbour of the best comes later"
    assert near == [best, *beside, *(span for span in plain[1:] if span not in beside)]
    assert touches((10, 19), (20, 30)) and touches((10, 19), (15, 30)) and not touches((10, 19), (21, 30))


def test_passage_weight_places_a_window_in_a_well_matched_stretch_first(write_book):
    """passage_weight (issue 27): two lone matches of a word score alike as sentences; the one whose fixed chunk
    also holds the question's other word, beyond the smoothing's reach, is placed first."""

    import numpy as np

    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.methods.lexical import passage_scores, targets
    from elite_ui.models import ScriptedLLM

    filler = [f"Nothing happened on day number {n} at all." for n in range(60)]
    sentences = [*filler[:20], "A lantern hung by the door.", *filler[20:40], "The orchard lay quiet.",
                 *filler[40:45], "A lantern hung by the gate.", *filler[45:]]
    book = write_book(" ".join(sentences))
    question = "Where did the lantern hang near the orchard?"
    door, gate = (next(sid for sid in range(len(book)) if place in book.sentence(sid).text)
                  for place in ("door", "gate"))
    order = {}
    for weight in (0.0, 1.0):
        elite = Elite(ScriptedLLM({}), with_overrides(PRESETS["laptop"], model_terms=False, passage_weight=weight,
                                               fuse_chunks=60, fuse_tilings=1, best_neighbours=False))
        trace = elite.run(book, question, generate=False)
        windows = [c for e in trace.of("chunks") for c in e.data.chunks]
        ranked, _ = elite.ordered(book, {c.key: c for c in windows}, trace.of("terms")[-1].data.all, question)
        order[weight] = [c.first + 1 for c in ranked if not c.fixed and "lantern" in c.text]
    assert order[0.0] == [door, gate] and order[1.0] == [gate, door]
    tiled = Elite(ScriptedLLM({}), with_overrides(PRESETS["laptop"], fuse_chunks=60, fuse_tilings=2)).tiled(
        book, targets(book, ["lantern", "orchard"]))
    spread = passage_scores(book, tiled)
    for spans, scores in tiled:
        for (a, b), score in zip(spans, scores, strict=True):
            assert np.all(spread[a : b + 1] >= score)
    assert spread[gate] > spread[door] > 0


def test_chunk_fusion_interleaves_fixed_chunks_with_the_windows(pride):

    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.models import ScriptedLLM

    settings = with_overrides(PRESETS["laptop"], model_terms=False, fuse_chunks=100)
    plain = Elite(ScriptedLLM({}), with_overrides(settings, fuse_chunks=0)).run(pride, "What did Darcy's letter say?",
                                                                          generate=False)
    fused = Elite(ScriptedLLM({}), settings).run(pride, "What did Darcy's letter say?", generate=False,
                                                 about=[4000])
    assert fused.answer.evidence != plain.answer.evidence
    assert 4000 in fused.answer.evidence, "a pinned passage stays first"
    assert not fused.of("llm_call"), "fusion costs no model call"
    [retrieval] = [e.data for e in fused.of("retrieval")]
    assert retrieval.method == "bm25" and retrieval.chunks and not plain.of("retrieval")
    best = max(retrieval.chunks, key=lambda c: c.score)
    assert set(range(best.first, best.last + 1)) <= set(fused.answer.evidence), "the best fixed chunk is placed whole"
    assert 60 <= len(pride.span_text(best.first, best.last).split()) <= 160
    assert all(not set(range(c.first, c.last + 1)).isdisjoint(fused.answer.evidence) for c in retrieval.chunks)
    from elite_ui.app import render
    assert "Passages by BM25" in render.trace_html(pride, fused.events)


@pytest.mark.parametrize("model", ["rm3", "bo1"])
def test_feedback_takes_the_first_hits_rare_words_not_the_query_nor_the_common_ones(willows, model):
    """Pseudo-relevance feedback (issue 27): the words weighed by RM3 or Bo1 come from the feedback sentences,
    leave out the query's words in any form, stopwords and words of more than 2% of the book's sentences."""
    from elite_ui.methods.elite.retrieval import feedback_words

    hits = collect(willows, ["Toad", "Hall"], best(20, ranking="bm25"))
    known = {f for w in ("toad", "hall") for f in willows.forms(w)}
    how = FeedbackSettings(feedback_terms=8, feedback_docs=10, feedback_model=model)
    words = feedback_words(willows, hits, how, known)
    assert 0 < len(words) <= 8 and not set(words) & known
    in_hits = {w for h in hits[:10] for w in willows.lexicon.content_words(h.text)}
    assert set(words) <= in_hits
    frequency = willows.index.document_frequency
    assert all(frequency[willows.index.vocabulary[w]] <= 0.02 * len(willows) for w in words)
    assert feedback_words(willows, [], how, known) == []


def test_bo1_weighs_a_word_by_how_far_its_feedback_frequency_exceeds_chance(willows):
    """Bo1 (Amati 2003, as Terrier computes it): tf_x log2((1 + P_n) / P_n) + log2(1 + P_n), P_n = F / N. Of two
    words seen as often in the feedback sentences, the rarer in the book weighs more; of two equally rare, the one
    seen more often."""
    import math

    from elite_ui.methods.elite.retrieval import bo1_weights
    from elite_ui.methods.trace import Hit

    vocabulary, frequency = willows.index.vocabulary, willows.index.document_frequency
    rare, common = sorted(["mole", "badger"], key=lambda w: frequency[vocabulary[w]])
    hit = Hit.at(willows.sentence(0), score=1, matched=[], text="", rank=1, weight=1.0)
    weights = bo1_weights(willows, [(hit, [rare, common, rare])])
    p = frequency[vocabulary[rare]] / len(willows)
    assert weights[rare] == pytest.approx(2 * math.log2((1 + p) / p) + math.log2(1 + p))
    assert bo1_weights(willows, [(hit, [rare, common])])[rare] > bo1_weights(willows, [(hit, [rare, common])])[common]
    assert weights[rare] > bo1_weights(willows, [(hit, [rare])])[rare]


def test_the_feedback_pass_searches_its_words_and_shows_them_as_feedback_terms(willows):

    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.methods.trace import Kind
    from elite_ui.models import ScriptedLLM

    settings = with_overrides(PRESETS["laptop"], feedback_terms=6)
    trace = Elite(ScriptedLLM({"terms": ["Toad\nHall"]}), settings).run(willows, "Where does Toad live?",
                                                                        generate=False)
    terms = [e.data.new for e in trace.events if e.kind == Kind.TERMS]
    assert len(terms) == 2 and {t.origin for t in terms[1]} == {"feedback"} and len(terms[1]) <= 6
    assert trace.totals().llm_calls == 1, "no model call for the feedback"
    off = Elite(ScriptedLLM({"terms": ["Toad\nHall"]}), PRESETS["laptop"]).run(willows, "Where does Toad live?",
                                                                               generate=False)
    assert sum(e.kind == Kind.TERMS for e in off.events) == 1


def test_a_reranker_reorders_the_passages_found_and_adds_none(willows):
    """MiniLM as a reranker (issue 27): reciprocal rank fusion of the passages' lexical order and their similarity
    to the question; the same passages come back."""
    from elite_ui.methods.elite.retrieval import reranked

    found = widen(willows, collect(willows, ["Toad", "Hall"], best(30, ranking="bm25")), 1)

    def embed(texts):  # the question is closest to passages that speak of a river
        return np.array([[1.0, 0.0]] + [[1.0, 0.0] if "river" in t else [0.0, 1.0] for t in texts[1:]])

    after = reranked(found, "Where does Toad live?", embed)
    assert sorted(c.key for c in after) == sorted(c.key for c in found)
    first_river = next(n for n, c in enumerate(found) if "river" in c.text)
    assert next(n for n, c in enumerate(after) if "river" in c.text) <= first_river
    assert reranked(found[:1], "Where?", embed) == found[:1]


def test_term_proximity_counts_close_pairs_of_distinct_target_words_only(write_book):
    """BM25TP's pair weight (issue 27): two target words one word apart count more than three apart, beyond five
    apart or alone nothing."""
    from elite_ui.methods.lexical import proximity_scores, targets

    book = write_book("CHAPTER I\n\nThe red lamp burned. The red old brass lamp burned. The red one was far from any "
                      "of the other things in the lamp room. The lamp shone. Red, red, red.")
    found = targets(book, ["red lamp"])
    scores = proximity_scores(book, found, range(len(book)))
    adjacent, three, far, alone, twice = (scores[sid] for sid in range(1, 6))
    assert adjacent > three > 0 and far == alone == twice == 0
