"""Small binary targets with exact answers, shared by the tests of the binary samplers.

Every sampler is tested the same way: start ``n`` independent chains from exact draws of ``p`` (by
enumeration), run them, and test that the final states are still distributed as ``p`` (a chi-square
goodness-of-fit test). A kernel that leaves ``p`` invariant passes with exactly the stated
false-failure rate, whatever its mixing speed; a wrong acceptance ratio or a wrong weight fails.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

from dogs.models.binary import BinaryPairwiseMRF, grid_model


def all_states(d: int) -> np.ndarray:
    """Every state of ``{-1, +1}^d``, shape ``(2^d, d)``, int8."""
    return np.array(list(itertools.product((-1, 1), repeat=d)), dtype=np.int8)


def exact_distribution(model: BinaryPairwiseMRF):
    """``(states, probabilities)`` by enumeration."""
    states = all_states(model.n_vars)
    logp = model.log_potential(states.astype(np.float64))
    p = np.exp(logp - logp.max())
    return states, p / p.sum()


def exact_node_marginals(model: BinaryPairwiseMRF) -> np.ndarray:
    states, p = exact_distribution(model)
    return p @ (states == 1)


def exact_edge_tables(model: BinaryPairwiseMRF, edges) -> np.ndarray:
    """``tables[e, a, b] = p(s_i = 2a - 1, s_j = 2b - 1)``."""
    states, p = exact_distribution(model)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    tables = np.zeros((len(edges), 2, 2))
    for e, (i, j) in enumerate(edges):
        for a in (0, 1):
            for b in (0, 1):
                tables[e, a, b] = p[(states[:, i] == 2 * a - 1) & (states[:, j] == 2 * b - 1)].sum()
    return tables


def exact_draws(model: BinaryPairwiseMRF, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` independent exact draws, shape ``(n, d)``, int8."""
    states, p = exact_distribution(model)
    return states[rng.choice(len(p), size=n, p=p)]


def chi_square_pvalue(draws, model: BinaryPairwiseMRF, min_expected: float = 5.0) -> float:
    """p-value of the chi-square test that ``draws`` (rows = independent states) come from ``model``.

    Cells with expected count below ``min_expected`` are pooled into one cell (sorted by probability).
    """
    states, p = exact_distribution(model)
    draws = np.asarray(draws)
    index = ((draws == 1).astype(np.int64) * (1 << np.arange(model.n_vars)[::-1])).sum(axis=1)
    counts = np.bincount(index, minlength=len(p))  # all_states is in binary order with -1 -> 0
    expected = p * len(draws)
    order = np.argsort(expected)
    small = np.cumsum(expected[order]) < min_expected * 2
    small_cells = order[small] if small.any() else order[:0]
    keep = np.setdiff1d(np.arange(len(p)), small_cells)
    obs = np.append(counts[keep], counts[small_cells].sum())
    exp = np.append(expected[keep], expected[small_cells].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp).pvalue)


def small_models() -> dict:
    """Named test targets, ``d <= 8``: fields, couplings of both signs, a frustrated loop, a bimodal case."""
    rng = np.random.default_rng(20170410)
    dense = rng.normal(0.0, 0.6, size=(6, 6))
    dense = np.triu(dense, 1)
    dense = dense + dense.T
    return {
        "chain_with_fields": BinaryPairwiseMRF(edges=[[0, 1], [1, 2], [2, 3]], theta=[0.8, -0.5, 0.3],
                                               h=[0.4, -0.2, 0.0, 0.7]),
        "torus_3x3_biased": grid_model(3, 3, 0.35, rng.uniform(-0.5, 0.5, size=9), torus=True),
        "dense_mixed_signs": BinaryPairwiseMRF.dense(dense, rng.uniform(-0.3, 0.3, size=6)),
        "frustrated_triangle": BinaryPairwiseMRF(edges=[[0, 1], [1, 2], [0, 2]], theta=[-1.0, -1.0, -1.0],
                                                 h=[0.1, 0.0, -0.1]),
        "bimodal_2x4": grid_model(2, 4, 1.2, 0.0),
    }


# ------------------------------------------------------------------ plain-Python pieces of the kernel references
def flip_delta_reference(model: BinaryPairwiseMRF, s, i: int) -> float:
    """``log p(s with s_i flipped) - log p(s) = -2 s_i f_i``, the local field ``f_i`` summed left to right (``h[i]``
    first, then the CSR slots of ``i``), as the kernels sum it."""
    field = float(model.h[i])
    for slot in range(model.indptr[i], model.indptr[i + 1]):
        field += float(model.coupling[slot]) * s[model.neighbors[slot]]
    return -2.0 * s[i] * field


def logit(p: float) -> float:
    """``log p - log(1 - p)``, infinite at 0 and 1."""
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    return math.log(p) - math.log(1.0 - p)


def proposed_flip_reference(model: BinaryPairwiseMRF, s: list, weights: list, total: float, plus, minus, u) -> float:
    """One proposed flip of the discrete-event CMH + LBP chain, as its kernels make it: the site by its propensity
    (``weights``, summing to ``total``; one uniform of ``u``), then the MH test (a second uniform). Updates ``s`` and
    ``weights`` in place and returns the new total (summed left to right)."""
    target, running, chosen = u() * total, 0.0, -1
    for j in range(len(weights)):
        running += weights[j]
        if target < running:
            chosen = j
            break
    if chosen < 0:  # rounding guard: the last site with positive propensity
        chosen = max(j for j in range(len(weights)) if weights[j] > 0.0)
    if u() < math.exp(flip_delta_reference(model, s, chosen) + s[chosen] * logit(plus[chosen])):
        s[chosen] = -s[chosen]
        weights[chosen] = minus[chosen] if s[chosen] > 0 else plus[chosen]
        total = 0.0
        for value in weights:
            total += value
    return total
