"""The importance of a chunk: how much the model's answer moves when the chunk is blurred with character noise.

Imp(c, q) = 1 - mean over λ ~ U(0,1] of cos(E(θ(c⊕q)), E(θ(ε_λ(c)⊕q)))  (the paper's Eq. 4), where ε_λ is
textnoisr's calibrated character noise (its character error rate converges to λ), θ the model's answer and E a
sentence embedding. For multiple-choice questions the exact Eq. 3 needs no sampled answers: the KL divergence
between the option-letter distributions given the original and the perturbed chunk.
"""

from __future__ import annotations

import math

import numpy as np
from textnoisr.noise import CharNoiseAugmenter

from ...models.embedder import Embed

NOISE_ACTIONS = ("insert", "substitute", "delete")
"""textnoisr's swap action caps the error rate near 0.52; these three reach any λ in (0, 1]."""


def perturb(text: str, level: float, seed: int) -> str:
    """``text`` with character noise at rate ``level`` (expected character error rate)."""
    return CharNoiseAugmenter(noise_level=level, actions=NOISE_ACTIONS, seed=seed).add_noise(text)


def noise_levels(samples: int, rng: np.random.Generator) -> list[float]:
    """``samples`` draws from U(0, 1] (numpy draws [0, 1); one minus that is (0, 1])."""
    return [float(1.0 - rng.random()) for _ in range(samples)]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / denominator) if denominator else 0.0


def kl_divergence(p_log: dict[str, float], q_log: dict[str, float]) -> float:
    """KL(P || Q) between two distributions over the same letters, each renormalised from log-probabilities (at
    least 0: the smoothing can put it a hair below)."""
    keys = sorted(p_log)
    p = np.exp(np.array([p_log[k] for k in keys]) - max(p_log.values()))
    q = np.exp(np.array([q_log.get(k, -30.0) for k in keys]) - max(q_log.values()))
    p, q = p / p.sum(), q / q.sum()
    return max(0.0, float(np.sum(p * (np.log(p + 1e-12) - np.log(q + 1e-12)))))


def similarity_importance(base_answer: str, perturbed_answers: list[str], embed: Embed) -> tuple[float, list[float]]:
    """1 - mean cosine similarity between the base answer and each perturbed answer (at least 0: rounding puts a
    cosine a hair above 1), and the similarities."""
    if not perturbed_answers:
        return math.nan, []
    vectors = embed([base_answer, *perturbed_answers])
    sims = [cosine(vectors[0], v) for v in vectors[1:]]
    return max(0.0, 1.0 - float(np.mean(sims))), sims
