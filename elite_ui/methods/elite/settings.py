"""ELITE's settings, each described once (its help and range), in typed groups, one per stage of the loop, and the
presets."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...settings import Checked, made, setting, with_overrides
from ..base import AnswerSettings


@dataclass(frozen=True)
class TermsSettings(Checked):
    """Where the search terms come from: the model, the question, the options, the book's names."""

    max_terms: int = setting(10, "terms asked for at the start and per breadth-wise expansion", low=1, high=30)
    model_terms: bool = setting(True, "ask the model for search terms (no: search the question's and options' own "
                                      "words only)", panel=True)
    terms_example: bool = setting(False, "ask for the words the passage that answers would use (actions, objects, "
                                         "feelings, synonyms), shown one worked example (more evidence on the tune "
                                         "novels with a 1.5B model, not on the held-out ones)", panel=True)
    imagined_passage: bool = setting(False, "for a question without options, ask the model to write the passage "
                                            "that would answer (two sentences in the novel's words, imagined) and "
                                            "search its words the question does not say, up to imagined_words, in "
                                            "place of a list of terms (query2doc)", panel=True)
    imagined_words: int = setting(12, "the most words of the imagined passage searched (imagined_passage); a "
                                      "question with options still asks for max_terms terms", low=1, high=30)
    question_words: bool = setting(True, "also search for the question's own content words, beside the model's "
                                         "terms", panel=True)
    model_weight: float = setting(1.0, "what a match of the model's own terms counts for in the bm25 rankings, "
                                       "beside the question's words (1: alike; a weak model's terms can count "
                                       "for less)", low=0.0, high=1.0, panel=True)
    option_words: bool = setting(False, "also search for the words of the multiple-choice options, and show which "
                                        "option each retrieved sentence supports", panel=True)
    name_variants: bool = setting(True, "when a term names a character, also search its other names (the book's "
                                        "name index)", panel=True)


@dataclass(frozen=True)
class RetrievalSettings(Checked):
    """How sentences are ranked against the terms and widened into chunks (collection)."""

    recall_index: int = setting(25, "sentences kept per collection step (the top K by the ranking)", low=1, high=100,
                                panel=True)
    neighbor_num: int = setting(2, "sentences added on each side of a hit to make its chunk", low=0, high=10,
                                panel=True)
    ranking: str = setting("overlap", "how sentences are ranked: overlap (distinct matched words, the paper's "
                                      "Eq. 1) or bm25 (rare words count more, long sentences less)",
                           choices=("overlap", "bm25"), panel=True)
    reach: int = setting(0, "neighbours on each side whose scores add to a sentence's rank, so clustered matches "
                            "win (0: none)", low=0, high=10, panel=True)
    decay: float = setting(0.5, "the weight of a neighbour's score, per sentence of distance", low=0.0, high=1.0)
    proximity: float = setting(0.0, "weight of term proximity in placing the passages: pairs of target words at most "
                                    "5 words apart in a sentence add to its bm25 score (0: off; with ranking bm25)",
                               low=0.0, high=5.0, panel=True)
    part_extracts: int = setting(0, "for a question that asks only what happens in the part of the book it names "
                                    "(\"What happens in chapter 3?\", \"How does the novel open?\"), pin that many "
                                    "of the part's most central sentences (LexRank, as the Story tab picks them) as "
                                    "evidence first (0: search for it as for any question)", low=0, high=20,
                                 panel=True)
    rerank: bool = setting(False, "place the passages found in an order fused (reciprocal rank fusion) from their "
                                  "ranking and their MiniLM similarity to the question (the embedding retrieves "
                                  "nothing)", panel=True)

    @property
    def weighted(self) -> bool:
        """Whether chunks rank by their hits' weights (the ``bm25`` ranking), not by the paper's overlap counts."""
        return self.ranking == "bm25"


@dataclass(frozen=True)
class FusionSettings(Checked):
    """Fixed chunks of the book placed in turn with the sentence windows."""

    fuse_chunks: int = setting(0, "words of fixed chunks ranked by BM25 over every term tried, placed in turn with "
                                  "the sentence windows, a fixed chunk first (0: windows only)", low=0, high=1000,
                               panel=True)
    fuse_tilings: int = setting(1, "tilings of the book the fixed chunks come from, each offset by a share of a "
                                   "chunk: 2 adds chunks straddling every boundary (half-overlapping passages)",
                                low=1, high=4, panel=True)
    passage_weight: float = setting(0.0, "what the BM25 score of the fixed chunk around a sentence adds to its rank "
                                         "when the windows are placed, both scaled to the question's best (with "
                                         "fuse_chunks; 0: the sentence's own score only)", low=0.0, high=5.0,
                                    panel=True)
    best_neighbours: bool = setting(False, "place the fixed chunks that overlap or meet the best one right after it "
                                           "(with fuse_chunks): the answer often lies beside the best match",
                                    panel=True)


@dataclass(frozen=True)
class FeedbackSettings(Checked):
    """Pseudo-relevance feedback: a second pass on the first pass's words, no model call."""

    feedback_terms: int = setting(0, "pseudo-relevance feedback: words taken from the first pass's best "
                                     "sentences and searched in a second pass, no model call (0: off)", low=0,
                                  high=20, panel=True)
    feedback_docs: int = setting(10, "the first pass's sentences the feedback words are taken from", low=1,
                                 high=100)
    feedback_model: str = setting("rm3", "how feedback words are weighed: rm3 (relevance model) or bo1 (divergence "
                                         "from randomness)", choices=("rm3", "bo1"))


@dataclass(frozen=True)
class ImportanceSettings(Checked):
    """Each chunk's importance: how much the answer moves when the chunk is perturbed."""

    importance_samples: int = setting(3, "noise levels λ sampled per chunk for its importance (0 turns importance "
                                         "off)", low=0, high=10, panel=True)
    importance_chunks: int = setting(0, "score only this many new chunks per iteration, best overlap first (0: "
                                        "all)", low=0, high=50, panel=True)


@dataclass(frozen=True)
class ExplorationSettings(Checked):
    """The judge, further iterations, breadth- and depth-wise expansion."""

    iter_max: int = setting(5, "iterations of collect-judge-explore at most", low=1, high=10, panel=True)
    judge: bool = setting(True, "ask the model whether the evidence suffices, and search again while it does not "
                                "(no: one iteration)", panel=True)
    judge_default: bool = setting(False, "verdict taken when the judge's reply says neither yes nor no (no: keep "
                                         "searching)")
    next_terms: str = setting("explore", "where the next iteration's terms come from: explore (breadth- and "
                                         "depth-wise calls) or judge (the judge's reply, no extra call)",
                              choices=("explore", "judge"), panel=True)
    deep_search_index: int = setting(5, "how many of an iteration's chunks depth-wise exploration reads", low=1,
                                     high=20, panel=True)
    deep_search_num: int = setting(10, "depth-wise terms per iteration, at most", low=1, high=30, panel=True)


@dataclass(frozen=True)
class AnsweringSettings(Checked):
    """What the answer reads (budget, order, the trim) and the votes for a choice."""

    evidence_tokens: int = setting(2000, "token budget for the evidence shown to the judge and to the answer (0: as "
                                         "much as the model's context holds beside the prompt and the answer)",
                                   low=0, high=32000, panel=True)
    evidence_order: str = setting("book", "the order the model reads the evidence in: book (book order) or rank (the "
                                          "best passage first, each passage in book order)",
                                  choices=("book", "rank"), panel=True)
    trim: bool = setting(True, "let the model drop evidence it finds irrelevant before answering (the paper's "
                               "organising step)", panel=True)
    voter_num: int = setting(10, "votes cast for a multiple-choice answer; the majority wins", low=1, high=20,
                             panel=True)
    rotated_votes: bool = setting(False, "each vote at temperature 0 reads the options shifted one more place under "
                                         "the same letters, after the passages (a small model's leaning to a letter "
                                         "is voted out); off: the votes after the first are sampled")


@dataclass(frozen=True)
class Settings(AnswerSettings):
    """ELITE's settings in groups, one per stage, then its answer step's. The paper's six (recall_index,
    neighbor_num, deep_search_index, deep_search_num, voter_num, iter_max) carry its names and defaults."""

    terms: TermsSettings = field(default_factory=TermsSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    fusion: FusionSettings = field(default_factory=FusionSettings)
    feedback: FeedbackSettings = field(default_factory=FeedbackSettings)
    importance: ImportanceSettings = field(default_factory=ImportanceSettings)
    exploration: ExplorationSettings = field(default_factory=ExplorationSettings)
    answering: AnsweringSettings = field(default_factory=AnsweringSettings)


PRESETS = {
    "paper": made(Settings, grounding=False),
    "laptop": made(
        Settings, recall_index=100, neighbor_num=1, deep_search_index=2, deep_search_num=5, voter_num=3, iter_max=2,
        max_terms=6, model_weight=0.5, option_words=True, ranking="bm25", reach=3, judge=False,
        importance_samples=0, importance_chunks=3, trim=False, fuse_chunks=100, fuse_tilings=2, passage_weight=1.0,
        best_neighbours=True, evidence_tokens=800, answer_tokens=96,
    ),
}
PRESETS["capable"] = with_overrides(PRESETS["laptop"], voter_num=1, passage_check=True, imagined_passage=True)
PRESETS["demo"] = with_overrides(
    PRESETS["laptop"], judge=True, next_terms="explore", iter_max=2, max_terms=4, deep_search_index=2,
    deep_search_num=3, importance_samples=1, importance_chunks=2, trim=True, evidence_tokens=600, answer_tokens=64)
"""``paper``: the paper's settings, every stage on, and none it does not have (no grounding check). ``laptop``,
the default: what measured best on the embedded model (docs/benchmark.md, "ELITE stage by stage" and "novels-300"):
the model's terms (counting half) beside the question's and options' own words, sentences ranked by BM25 with their
neighbours' scores and the score of the chunk around them, widened by one sentence on each side and placed in turn
with 100-word chunks ranked by BM25 over the same terms, from two half-overlapping tilings of the book, the best
chunk's neighbours right after it (chunk fusion), and one pass. The judge with further iterations, breadth- and
depth-wise expansion, importance and trimming each found no more evidence there (breadth/depth found less), so they
are off; each is one setting away (``--judge``, ``--importance-samples 1``...). ``capable``, for a model of a
billion parameters or more (:func:`elite_ui.reading.preset_for`): the same settings but one vote for a choice,
and the passage check (``passage_check``: the model asked whether the passage each kept answer sentence cites
answers the question, one short call a sentence), chosen on the tune novels' answers and measured on the held-out
ones (docs/benchmark.md, "The passage check"), and the model's terms for an open question taken from the passage
it imagines would answer (``imagined_passage``, up to 12 words, ``imagined_words``; docs/benchmark.md, "The passage
the model imagines": more of the gold evidence found, on the held-out novels beyond the noise, the answers the
same); a question with options asks for six terms, as ``laptop`` does.
Measured with Qwen2.5-Coder-1.5B (docs/benchmark.md, "Answers with a real model"), the two sampled votes after
the first changed 2 of 45 answers on QuALITY and 2 of 60 on the held-out novels-dev, one right each way, for two
calls more; twice the evidence (1,600 tokens) led on the tune novels and not on the held-out ones, and took longer,
so it was not adopted; the judge with further iterations, the trim and importance each answered fewer questions
right on the tune novels (the judge only ever said "not enough"); for a question that asks what happens in a part
of the book, its central sentences first (``part_extracts``) and a recap's answer (``part_recaps``) moved the answers
within the noise (docs/benchmark.md, "A question that asks what happens in a part"); what a real model is found to
gain from goes here. ``demo``: every stage of the paper shown
on a question in under a minute on the embedded model (docs/settings.md, "The demo preset"): the judge, breadth-
and depth-wise terms for a second iteration, importance of the two best new passages at one noise level, and the
trim, on a smaller evidence budget."""
