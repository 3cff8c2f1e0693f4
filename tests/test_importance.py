"""Importance: calibrated character noise, the similarity formula (Eq. 4) and the KL form (Eq. 3)."""

import math

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from elite_ui.methods.elite.importance import kl_divergence, noise_levels, perturb, similarity_importance

from .conftest import trigram_embed

TEXT = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
        "must be in want of a wife. However little known the feelings or views of such a man may be. ") * 6


@pytest.mark.parametrize("level", [0.05, 0.2, 0.5, 0.9])
def test_noise_rate_is_calibrated(level):
    rates = [Levenshtein.distance(TEXT, perturb(TEXT, level, seed)) / len(TEXT) for seed in range(20)]
    assert abs(float(np.mean(rates)) - level) < 0.05 + 0.1 * level


def test_noise_is_seeded_and_levels_lie_in_zero_one():
    assert perturb(TEXT, 0.3, 7) == perturb(TEXT, 0.3, 7) != perturb(TEXT, 0.3, 8)
    levels = noise_levels(1000, np.random.default_rng(0))
    assert all(0 < x <= 1 for x in levels) and 0.45 < np.mean(levels) < 0.55


def test_importance_is_one_minus_mean_cosine():
    same, sims = similarity_importance("Mr. Darcy", ["Mr. Darcy", "Mr. Darcy"], trigram_embed)
    assert same == pytest.approx(0.0, abs=1e-9) and sims == pytest.approx([1.0, 1.0])
    moved, sims = similarity_importance("Mr. Darcy", ["Mr. Darcy", "the weather"], trigram_embed)
    assert moved == pytest.approx(1 - (1 + sims[1]) / 2) and moved > 0.3
    assert math.isnan(similarity_importance("x", [], trigram_embed)[0])


def test_importance_is_never_below_zero():
    """A cosine rounded a hair above 1 read as "-0.00" in the trace."""
    def rounding(texts):
        return np.array([[1.0, 0.0]] + [[1.0000001, 0.0]] * (len(texts) - 1))

    assert similarity_importance("A", ["A", "A"], rounding)[0] == 0.0
    p = {"A": math.log(0.5), "B": math.log(0.5)}
    assert kl_divergence(p, dict(p)) >= 0.0


def test_kl_divergence_of_option_distributions():
    p = {"A": math.log(0.7), "B": math.log(0.1), "C": math.log(0.1), "D": math.log(0.1)}
    assert kl_divergence(p, p) == pytest.approx(0.0, abs=1e-9)
    q = {"A": math.log(0.25), "B": math.log(0.25), "C": math.log(0.25), "D": math.log(0.25)}
    expected = 0.7 * math.log(0.7 / 0.25) + 3 * 0.1 * math.log(0.1 / 0.25)
    assert kl_divergence(p, q) == pytest.approx(expected, rel=1e-6)


def test_the_status_says_how_far_importance_is_through_its_calls():
    """Importance is the paper preset's long stage: before each of its calls a live event says how far it is
    ("importance, 12 of 76 calls"); the trace keeps none of them."""
    from elite_ui.book import load_book
    from elite_ui.methods.elite import PRESETS, Elite
    from elite_ui.methods.trace import Kind, Trace
    from elite_ui.models import ScriptedLLM
    from elite_ui.testing.browser import ROOT

    llm = ScriptedLLM({"terms": ["Toad\nHall"], "judge": ["Yes."], "importance": ["Toad Hall."]})
    trace, progress = Trace("Where does Toad live?"), []
    for event in Elite(llm, PRESETS["paper"], embed=lambda texts: np.ones((len(texts), 4))).ask(
            load_book(ROOT / "assets" / "the-wind-in-the-willows.txt"), "Where does Toad live?"):
        trace.add(event)
        if event.kind == Kind.CALLS:
            progress.append(event.data)
    made = sum(r.purpose == "importance" for r in llm.log)
    assert [p.done for p in progress] == list(range(made)) and {p.total for p in progress} == {made}
    assert progress[-1].said() == f"importance, {made - 1} of {made} calls"
    assert not any(e.kind == Kind.CALLS for e in trace.events)
