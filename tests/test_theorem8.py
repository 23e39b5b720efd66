r"""DoGS Theorem 8 as a property test, against exact transition matrices.

For a scan :math:`q_1, \dots, q_T`, a weight vector :math:`d \ge 0` and an entrywise
upper bound :math:`\bar C` on the Dobrushin influence,

.. math::

    \|\pi_T - \pi\|_{d,TV} \le \mathcal{V}(q_1, \dots, q_T; d, \bar C) = d^\top B(q_T) \cdots B(q_1) \mathbf 1 ,

whatever the starting distribution. We check it for every point-mass start (the worst
case, by convexity of the left side) on random small binary pairwise MRFs: :math:`\pi_T`
comes from the exact single-site Gibbs kernels (:mod:`dogs.exact.chains`), the left side
is the exact weighted TV of Definition 4 (a linear program), and :math:`\bar C` is either
the exact influence (brute force over Markov blankets: the tightest bound, so the
strongest test) or Theorem 11's bound.

Everything is exact, so there is no false-failure rate beyond floating-point rounding,
which the tolerance ``1e-9`` covers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dogs.bounds import exact_influence, influence_binary_pairwise
from dogs.exact.chains import evolve, site_kernels, state_space, stationary_distribution, weighted_tv
from dogs.models import BinaryPairwiseMRF
from dogs.scans import Scan
from dogs.scans.variation import dobrushin_variation

TOLERANCE = 1e-9


def _log_weights(model: BinaryPairwiseMRF) -> np.ndarray:
    spins = 2.0 * state_space([2] * model.n_vars) - 1.0  # state index 0 = spin -1
    return model.log_potential(spins)


def _worst_weighted_tv(model: BinaryPairwiseMRF, scan: Scan, weights: np.ndarray) -> float:
    """max over point-mass starts of ||delta_x P_{i_1} ... P_{i_T} - pi||_{d,TV}, exactly."""
    cards = [2] * model.n_vars
    log_w = _log_weights(model)
    pi = stationary_distribution(log_w)
    kernels = site_kernels(log_w, cards)
    after = evolve(np.eye(pi.size), kernels, scan.indices)
    return max(weighted_tv(row, pi, weights, cards) for row in after)


@st.composite
def small_problems(draw, max_vars=6):
    p = draw(st.integers(2, max_vars))
    pairs = [(i, j) for i in range(p) for j in range(i + 1, p)]
    mask = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = np.array([pair for pair, keep in zip(pairs, mask) if keep], dtype=np.int64).reshape(-1, 2)
    strength = draw(st.sampled_from([0.3, 0.8, 1.5]))
    values = st.floats(-strength, strength, allow_nan=False)
    theta = np.array(draw(st.lists(values, min_size=len(edges), max_size=len(edges))))
    h = np.array(draw(st.lists(st.floats(-1.5, 1.5), min_size=p, max_size=p)))
    model = BinaryPairwiseMRF(edges, theta, h)
    length = draw(st.integers(0, 3 * p))
    steps = st.integers(-1, p - 1) if draw(st.booleans()) else st.integers(0, p - 1)  # with or without uniform steps
    scan = Scan(np.array(draw(st.lists(steps, min_size=length, max_size=length)), dtype=np.int64), p)
    weights = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=p, max_size=p)))
    return model, scan, weights


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems())
def test_dobrushin_variation_bounds_exact_weighted_tv(problem):
    model, scan, weights = problem
    tv = _worst_weighted_tv(model, scan, weights)
    exact_bound = dobrushin_variation(scan, weights, exact_influence(model))
    theorem11_bound = dobrushin_variation(scan, weights, influence_binary_pairwise(model))
    assert tv <= exact_bound + TOLERANCE
    assert exact_bound <= theorem11_bound + TOLERANCE  # a looser C-bar never gives a smaller guarantee


def test_theorem8_at_eight_variables_all_256_starts():
    """One larger case (p = 8, a ring with chords, field, marginal weights) with every start."""
    rng = np.random.default_rng(8)
    edges = np.array([(i, (i + 1) % 8) for i in range(8)] + [(0, 4), (2, 6)])
    model = BinaryPairwiseMRF(edges, rng.uniform(-0.4, 0.4, len(edges)), rng.uniform(-0.5, 0.5, 8))
    scan = Scan(rng.permutation(np.tile(np.arange(8), 2)), 8)
    weights = np.zeros(8)
    weights[[0, 3]] = 1.0
    tv = _worst_weighted_tv(model, scan, weights)
    bound = dobrushin_variation(scan, weights, exact_influence(model))
    assert 0.0 < tv <= bound + TOLERANCE
    assert bound < weights.sum()  # the guarantee is informative here, not the trivial sum(d)


def test_bound_is_attained_for_independent_variables():
    """No couplings: C = 0, and after every variable is updated once pi_T = pi exactly (V = 0)."""
    model = BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), np.zeros(0), np.array([0.3, -0.2, 0.7]))
    scan = Scan(np.array([2, 0, 1]), 3)
    weights = np.ones(3)
    assert dobrushin_variation(scan, weights, exact_influence(model)) == pytest.approx(0.0, abs=1e-15)
    assert _worst_weighted_tv(model, scan, weights) == pytest.approx(0.0, abs=1e-9)
    # before the last update variable 1 still holds its start: the worst start is the less likely
    # spin, at TV distance max(p, 1 - p) from its marginal p = sigma(2 h_1); the bound is d_1 = 1
    prefix = scan.prefix(2)
    p_plus = 1.0 / (1.0 + np.exp(-2 * -0.2))
    assert _worst_weighted_tv(model, prefix, weights) == pytest.approx(max(p_plus, 1 - p_plus), abs=1e-9)
    assert dobrushin_variation(prefix, weights, exact_influence(model)) == pytest.approx(1.0)
