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
