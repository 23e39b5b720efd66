"""Tests of the exact-chain machinery (:mod:`dogs.exact.chains`).

Every fast path is checked against a literal reference: kernels against the conditional
distribution computed state by state, mixing times (dense squaring, sparse stepping, batched
permutations) against a plain step-by-step loop over dense matrices, and the weighted TV linear
program against closed forms (plain TV, marginal TV).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dogs.exact.chains import (
    MixingTimeNotReached,
    evolve,
    mixing_time,
    random_scan_kernel,
    site_kernel,
    site_kernels,
    state_index,
    state_space,
    stationary_distribution,
    systematic_mixing_times,
    tv_distance,
    weighted_tv,
    worst_case_tv_curve,
)
from dogs.scans import Scan

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def distributions(draw, max_vars=4, max_card=3, zeros=True):
    """Random small distributions over product spaces, some states of weight zero."""
    p = draw(st.integers(1, max_vars))
    card = draw(st.lists(st.integers(2, max_card), min_size=p, max_size=p))
    size = int(np.prod(card))
    lw = np.array(draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=size, max_size=size)))
    if zeros and size > 2:
        dead = draw(st.lists(st.integers(0, size - 1), max_size=size // 3))
        lw[dead] = -np.inf
        if not np.isfinite(lw).any():
            lw[0] = 0.0
    return card, lw


def reference_kernel(lw, card, i):
    """P_i(x, y) state by state from the definition."""
    states = state_space(card)
    n = len(states)
    weights = np.exp(np.where(np.isfinite(lw), lw, -np.inf))
    kernel = np.zeros((n, n))
    for a, x in enumerate(states):
        fibre = [b for b, y in enumerate(states) if np.array_equal(np.delete(y, i), np.delete(x, i))]
        total = weights[fibre].sum()
        if total == 0:
            kernel[a, a] = 1.0
        else:
            kernel[a, fibre] = weights[fibre] / total
    return kernel


def reference_mixing_time(kernels, pi, scan, epsilon, starts=None, limit=100000):
    """Step-by-step worst-case TV with dense matrices until it is within epsilon."""
    dense = [np.asarray(k.todense()) for k in kernels]
    starts = np.flatnonzero(pi > 0) if starts is None else starts
    rows = np.eye(len(pi))[starts]
    mean = sum(dense) / len(dense)
    t = 0
    while np.max(0.5 * np.abs(rows - pi).sum(axis=1)) > epsilon:
        rows = rows @ (mean if isinstance(scan, str) else dense[scan[t % len(scan)]])
        t += 1
        assert t < limit
    return t


# ------------------------------------------------------------------------------------------ state space


def test_state_space_is_c_order_last_variable_fastest():
    states = state_space([2, 3])
    assert states.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    np.testing.assert_array_equal(state_index(states, [2, 3]), np.arange(6))


def test_stationary_distribution_normalises_and_zeroes():
    pi = stationary_distribution([0.0, np.log(3.0), -np.inf])
    np.testing.assert_allclose(pi, [0.25, 0.75, 0.0])


# ------------------------------------------------------------------------------------------ kernels


@PROPERTY
@given(distributions())
def test_site_kernels_match_the_definition_and_leave_pi_invariant(problem):
    card, lw = problem
    pi = stationary_distribution(lw)
    for i, kernel in enumerate(site_kernels(lw, card)):
        dense = kernel.toarray()
        np.testing.assert_allclose(dense, reference_kernel(lw, card, i), atol=1e-12)
        np.testing.assert_allclose(dense.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(pi @ dense, pi, atol=1e-12)
        flow = pi[:, None] * dense  # Gibbs updates are reversible: detailed balance
        np.testing.assert_allclose(flow, flow.T, atol=1e-12)


@PROPERTY
@given(distributions(zeros=True))
def test_support_listing_gives_the_restricted_kernel(problem):
    card, lw = problem
    support = np.flatnonzero(np.isfinite(lw))
    full = site_kernel(lw, card, 0).toarray()
    restricted = site_kernel(lw[support], card, 0, states=state_space(card)[support]).toarray()
    np.testing.assert_allclose(restricted, full[np.ix_(support, support)], atol=1e-12)


def test_random_scan_kernel_is_the_mixture():
    lw = np.random.default_rng(1).normal(size=8)
    kernels = site_kernels(lw, [2, 2, 2])
    mean = sum(k.toarray() for k in kernels) / 3
    np.testing.assert_allclose(random_scan_kernel(kernels).toarray(), mean)
    q = np.array([0.5, 0.25, 0.25])
    weighted = sum(w * k.toarray() for w, k in zip(q, kernels))
    np.testing.assert_allclose(random_scan_kernel(kernels, q).toarray(), weighted)


# ------------------------------------------------------------------------------------------ evolution


def test_evolve_applies_kernels_in_scan_order():
    rng = np.random.default_rng(2)
    lw = rng.normal(size=12)
    kernels = site_kernels(lw, [2, 3, 2])
    dense = [k.toarray() for k in kernels]
    scan = np.array([2, 0, -1, 1, 1])
    expected = np.eye(12)
    for i in scan:
        expected = expected @ (sum(dense) / 3 if i < 0 else dense[i])
    np.testing.assert_allclose(evolve(np.eye(12), kernels, scan), expected, atol=1e-12)
    np.testing.assert_allclose(evolve(np.eye(12)[3], kernels, Scan(scan, 3)), expected[3], atol=1e-12)
    path = evolve(np.eye(12)[3], kernels, scan, return_path=True)
    assert path.shape == (6, 12)
    np.testing.assert_allclose(path[0], np.eye(12)[3])
    np.testing.assert_allclose(path[-1], expected[3], atol=1e-12)


def test_tv_distance():
    assert tv_distance([1.0, 0.0], [0.5, 0.5]) == pytest.approx(0.5)
    np.testing.assert_allclose(tv_distance(np.eye(2), [0.5, 0.5]), [0.5, 0.5])


# ------------------------------------------------------------------------------------------ mixing times


@PROPERTY
@given(distributions(max_vars=3, max_card=3), st.sampled_from([0.1, 0.25, 0.4]), st.randoms(use_true_random=False))
def test_mixing_time_matches_step_by_step_reference(problem, epsilon, rnd):
    card, lw = problem
    pi = stationary_distribution(lw)
    kernels = site_kernels(lw, card)
    order = list(range(len(card)))
    rnd.shuffle(order)
    for scan in ("random", order):
        expected = reference_mixing_time(kernels, pi, scan, epsilon)
        assert mixing_time(kernels, pi, scan, epsilon=epsilon) == expected  # dense squaring
        assert mixing_time(kernels, pi, scan, epsilon=epsilon, dense_limit=0) == expected  # sparse stepping
    assert systematic_mixing_times(kernels, pi, np.array([order]), epsilon=epsilon)[0] == reference_mixing_time(kernels, pi, order, epsilon)


def test_systematic_mixing_times_of_every_permutation():
    lw = np.random.default_rng(3).normal(scale=2.0, size=16)
    kernels = site_kernels(lw, [2, 2, 2, 2])
    pi = stationary_distribution(lw)
    perms = np.array(list(itertools.permutations(range(4))))
    batched = systematic_mixing_times(kernels, pi, perms)
    assert batched.tolist() == [reference_mixing_time(kernels, pi, list(p), 0.25) for p in perms]


def test_worst_case_curve_is_non_increasing_and_crosses_at_the_mixing_time():
    lw = np.random.default_rng(4).normal(scale=2.0, size=27)
    kernels = site_kernels(lw, [3, 3, 3])
    pi = stationary_distribution(lw)
    for scan in ("random", [2, 0, 1]):
        curve = worst_case_tv_curve(kernels, pi, scan, 60)
        assert np.all(np.diff(curve) <= 1e-12)
        t = mixing_time(kernels, pi, scan)
        assert curve[t] <= 0.25 < curve[t - 1]


def test_fewer_starts_never_increase_the_mixing_time():
    lw = np.random.default_rng(5).normal(scale=2.0, size=8)
    kernels = site_kernels(lw, [2, 2, 2])
    pi = stationary_distribution(lw)
    every = mixing_time(kernels, pi, "random")
    assert max(mixing_time(kernels, pi, "random", starts=[s]) for s in range(8)) == every


def test_mixing_time_gives_up_after_max_updates():
    lw = np.array([0.0, -8.0, -8.0, 0.0])  # two wells: slow
    kernels = site_kernels(lw, [2, 2])
    with pytest.raises(MixingTimeNotReached):
        mixing_time(kernels, stationary_distribution(lw), "random", max_updates=3)


# ------------------------------------------------------------------------------------------ weighted TV


@PROPERTY
@given(distributions(max_vars=3, max_card=3, zeros=False), st.randoms(use_true_random=False))
def test_weighted_tv_closed_forms(problem, rnd):
    card, lw = problem
    pi = stationary_distribution(lw)
    mu = np.eye(pi.size)[rnd.randrange(pi.size)]
    p = len(card)
    plain = tv_distance(mu, pi)
    ones = weighted_tv(mu, pi, np.ones(p), card)
    assert ones >= plain - 1e-9  # d = 1 dominates TV
    assert ones == pytest.approx(weighted_tv(pi, mu, np.ones(p), card), abs=1e-9)  # symmetric
    assert weighted_tv(mu, pi, 3.0 * np.ones(p), card) == pytest.approx(3.0 * ones, abs=1e-8)  # homogeneous
    assert weighted_tv(mu, pi, np.zeros(p), card) == pytest.approx(0.0, abs=1e-12)
    for i in range(p):  # d = e_i: TV of the i-th marginals
        axes = tuple(j for j in range(p) if j != i)
        marginal = tv_distance(mu.reshape(card).sum(axis=axes), pi.reshape(card).sum(axis=axes))
        assert weighted_tv(mu, pi, np.eye(p)[i], card) == pytest.approx(marginal, abs=1e-9)


def test_weighted_tv_of_one_binary_variable_is_tv():
    mu, nu = np.array([0.9, 0.1]), np.array([0.3, 0.7])
    assert weighted_tv(mu, nu, [1.0], [2]) == pytest.approx(0.6)


def test_weighted_tv_uses_the_weighted_hamming_metric():
    # point masses at (0, 0) and (1, 1): the best f separates them by d_0 + d_1
    mu, nu = np.eye(4)[0], np.eye(4)[3]
    assert weighted_tv(mu, nu, [0.5, 2.0], [2, 2]) == pytest.approx(2.5)


# ------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "call, key",
    [
        (lambda k, pi: mixing_time(k, pi, "sideways"), "scan"),
        (lambda k, pi: mixing_time(k, pi, "random", epsilon=1.5), "epsilon"),
        (lambda k, pi: mixing_time(k, pi, [0, 5]), "scan"),
        (lambda k, pi: mixing_time(k, pi, "random", max_updates=-1), "max_updates"),
        (lambda k, pi: worst_case_tv_curve(k, pi, "random", -3), "n_updates"),
        (lambda k, pi: mixing_time(k, pi[:2], "random"), "stationary"),
        (lambda k, pi: mixing_time(k, pi, "random", starts=[9]), "starts"),
        (lambda k, pi: evolve(np.ones(3), k, [0]), "distributions"),
        (lambda k, pi: evolve(pi, k, [7]), "scan_indices"),
    ],
)
def test_bad_input_names_the_key(call, key):
    lw = np.zeros(4)
    kernels = site_kernels(lw, [2, 2])
    with pytest.raises(ValueError, match=key):
        call(kernels, stationary_distribution(lw))


def test_state_space_too_large_is_refused_before_enumeration():
    with pytest.raises(ValueError, match="max_states"):
        state_space([10] * 12)
    with pytest.raises(ValueError, match="cardinalities"):
        site_kernels(np.zeros(4), [2, 0])
    with pytest.raises(ValueError, match="site index"):
        site_kernel(np.zeros(4), [2, 2], 2)
    with pytest.raises(ValueError, match="log_weights"):
        site_kernels(np.zeros(5), [2, 2])


def test_sparse_step_kernel_matches_numpy():
    """The numba kernel of the sparse mixing-time path equals ``rows @ P`` and its TV to pi."""
    import scipy.sparse as sparse

    from dogs._kernels.chains import step_rows

    rng = np.random.default_rng(3)
    kernel = sparse.random(40, 40, density=0.2, random_state=rng, format="csr") + sparse.eye(40, format="csr")
    kernel = sparse.csr_matrix(kernel.multiply(1.0 / kernel.sum(axis=1)))
    kernel.sort_indices()
    rows = rng.dirichlet(np.ones(40), size=7)
    pi = rng.dirichlet(np.ones(40))
    out, tv = np.empty_like(rows), np.empty(7)
    step_rows(rows, kernel.indptr.astype(np.int64), kernel.indices.astype(np.int64), kernel.data, pi, out, tv)
    np.testing.assert_allclose(out, rows @ kernel.toarray(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tv, 0.5 * np.abs(rows @ kernel.toarray() - pi).sum(axis=1), rtol=1e-12)
