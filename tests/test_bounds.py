"""Tests of the Dobrushin influence bounds (DoGS Theorems 10-12) against brute-force influence.

The brute-force reference is checked twice: ``exact_influence`` (enumerates each
Markov blanket) is compared with a literal evaluation of Definition 6 over the
full joint state space, and the bounds are compared with ``exact_influence``.
"""

from __future__ import annotations

import itertools
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from dogs.bounds import (
    BOUND_METHODS,
    exact_influence,
    exact_influence_higher_order,
    influence_binary_pairwise,
    influence_bound,
    influence_higher_order,
    influence_pairwise,
    loosen,
)
from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.models.discrete import DiscretePairwiseMRF

# Deterministic hypothesis profile: the same examples on every run and in CI.
settings.register_profile(
    "dogs-bounds",
    derandomize=True,
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
BOUNDS_PROFILE = settings.get_profile("dogs-bounds")

TOL = 1e-12


# --------------------------------------------------------------------------- strategies
def _reals(bound):
    return st.floats(min_value=-bound, max_value=bound, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def binary_models(draw, max_p=8, coupling=3.0, field=6.0, zero_field=False):
    """Random sparse graph, couplings of both signs, weak to strong fields."""
    p = draw(st.integers(2, max_p))
    pairs = list(itertools.combinations(range(p), 2))
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = np.array([e for e, k in zip(pairs, keep) if k], dtype=np.int64).reshape(-1, 2)
    theta = np.array(draw(st.lists(_reals(coupling), min_size=len(edges), max_size=len(edges))))
    h = np.zeros(p) if zero_field else np.array(draw(st.lists(_reals(field), min_size=p, max_size=p)))
    return BinaryPairwiseMRF(edges, theta, h)


@st.composite
def discrete_models(draw, max_p=6):
    """Random discrete tables (2-4 states) or a 3-state Potts model, on a random sparse graph."""
    p = draw(st.integers(2, max_p))
    pairs = list(itertools.combinations(range(p), 2))
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = np.array([e for e, k in zip(pairs, keep) if k], dtype=np.int64).reshape(-1, 2)
    if draw(st.booleans()):  # Potts, DoGS eq. (4)
        sigma = draw(_reals(3.0))
        unary = np.array(draw(st.lists(_reals(3.0), min_size=3 * p, max_size=3 * p))).reshape(p, 3)
        return DiscretePairwiseMRF.potts(edges, 3, sigma, unary)
    card = draw(st.lists(st.integers(2, 4), min_size=p, max_size=p))
    unary = [np.array(draw(st.lists(_reals(3.0), min_size=k, max_size=k))) for k in card]
    tables = []
    for i, j in edges:
        flat = draw(st.lists(_reals(3.0), min_size=card[i] * card[j], max_size=card[i] * card[j]))
        tables.append(np.array(flat).reshape(card[i], card[j]))
    return DiscretePairwiseMRF(np.array(card), unary, edges, tables)


@st.composite
def higher_order_models(draw, max_p=7, max_size=3):
    """``(n_vars, factors, h)`` with factors of size 2..max_size, both signs, weak to strong fields."""
    p = draw(st.integers(3, max_p))
    scope = st.lists(st.integers(0, p - 1), min_size=2, max_size=max_size, unique=True).map(tuple)
    factors = draw(st.lists(st.tuples(scope, _reals(2.0)), min_size=0, max_size=6))
    h = np.array(draw(st.lists(_reals(5.0), min_size=p, max_size=p)))
    return p, factors, h


# --------------------------------------------------------------------------- references
def definition6_bruteforce(cards, log_potential) -> np.ndarray:
    """Dense Dobrushin influence straight from Definition 6 over the full joint state space.

    ``log_potential`` maps integer states ``(N, p)`` to unnormalised log densities.
    """
    cards = tuple(int(k) for k in cards)
    p = len(cards)
    states = np.stack(np.unravel_index(np.arange(int(np.prod(cards))), cards), axis=1)
    logp = log_potential(states)
    strides = np.array([int(np.prod(cards[k + 1 :])) for k in range(p)])
    influence = np.zeros((p, p))
    for i in range(p):
        # conditional of x_i at every joint state (the value of x_i itself is irrelevant)
        base = states @ strides - states[:, i] * strides[i]
        cond = np.stack([logp[base + a * strides[i]] for a in range(cards[i])], axis=1)
        cond = np.exp(cond - cond.max(axis=1, keepdims=True))
        cond /= cond.sum(axis=1, keepdims=True)
        for j in range(p):
            if j == i:
                continue
            for v in range(cards[j]):
                other = states @ strides + (v - states[:, j]) * strides[j]
                tv = 0.5 * np.abs(cond - cond[other]).sum(axis=1)
                influence[i, j] = max(influence[i, j], tv.max())
    return influence


def binary_log_potential(model: BinaryPairwiseMRF):
    return lambda states: model.log_potential(2.0 * states - 1.0)


def higher_order_log_potential(p, factors, h):
    def log_potential(states):
        spins = 2.0 * states - 1.0
        out = spins @ h
        for scope, theta_s in factors:
            out = out + theta_s * np.prod(spins[:, list(scope)], axis=1)
        return out

    return log_potential


def field_margin(model: BinaryPairwiseMRF) -> np.ndarray:
    """Per CSR slot ``|theta_i| - sum_{k != j} |theta_ik|``; ``b* != 1`` iff it is > 0."""
    rows = np.repeat(np.arange(model.n_vars), np.diff(model.indptr))
    total = np.zeros(model.n_vars)
    np.add.at(total, rows, np.abs(model.coupling))
    return np.abs(model.h[rows]) - (total[rows] - np.abs(model.coupling))


def assert_structure(mat, pattern_rows, pattern_cols, p):
    """CSR, (p, p), zero diagonal, entries only on the given (Markov-blanket) pairs, finite, >= 0."""
    assert sparse.issparse(mat) and mat.format == "csr"
    assert mat.shape == (p, p)
    dense = mat.toarray()
    assert np.all(np.diag(dense) == 0)
    allowed = np.zeros((p, p), dtype=bool)
    allowed[pattern_rows, pattern_cols] = True
    assert not np.any(dense[~allowed])
    assert np.all(np.isfinite(mat.data)) and np.all(mat.data >= 0)


def blanket_pairs(model):
    rows = np.repeat(np.arange(model.n_vars), np.diff(model.indptr))
    return rows, np.asarray(model.neighbors)


def higher_order_pairs(factors):
    pairs = [(i, j) for scope, _ in factors for i, j in itertools.permutations(scope, 2)]
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


# --------------------------------------------------------------------------- the reference itself
@BOUNDS_PROFILE
@given(binary_models(max_p=6))
def test_exact_influence_binary_matches_definition6(model):
    reference = definition6_bruteforce([2] * model.n_vars, binary_log_potential(model))
    np.testing.assert_allclose(exact_influence(model).toarray(), reference, atol=TOL, rtol=0)


@BOUNDS_PROFILE
@given(discrete_models(max_p=5))
def test_exact_influence_discrete_matches_definition6(model):
    reference = definition6_bruteforce(model.cardinalities, model.log_potential)
    np.testing.assert_allclose(exact_influence(model).toarray(), reference, atol=TOL, rtol=0)


@BOUNDS_PROFILE
@given(higher_order_models(max_p=6))
def test_exact_influence_higher_order_matches_definition6(problem):
    p, factors, h = problem
    reference = definition6_bruteforce([2] * p, higher_order_log_potential(p, factors, h))
    exact = exact_influence_higher_order(p, factors, h).toarray()
    np.testing.assert_allclose(exact, reference, atol=TOL, rtol=0)


@BOUNDS_PROFILE
@given(binary_models(max_p=6))
def test_exact_influence_is_the_same_for_binary_and_discrete_forms(model):
    np.testing.assert_allclose(
        exact_influence(model).toarray(), exact_influence(model.to_discrete()).toarray(), atol=TOL, rtol=0
    )


# --------------------------------------------------------------------------- Theorem 11
@BOUNDS_PROFILE
@given(binary_models(zero_field=True))
def test_theorem11_at_zero_field_is_tanh_of_coupling(model):
    bound = influence_binary_pairwise(model)
    np.testing.assert_allclose(bound.data, np.tanh(np.abs(model.coupling)), atol=TOL, rtol=0)
    np.testing.assert_array_equal(bound.indices, model.neighbors)


@BOUNDS_PROFILE
@given(binary_models())
def test_theorem11_is_exact_when_b_star_is_not_one_and_an_upper_bound_always(model):
    bound = influence_binary_pairwise(model)
    exact = exact_influence(model)
    np.testing.assert_array_equal(bound.indptr, exact.indptr)
    np.testing.assert_array_equal(bound.indices, exact.indices)
    assert np.all(bound.data >= exact.data - TOL)
    b_star_not_one = field_margin(model) > 0
    np.testing.assert_allclose(bound.data[b_star_not_one], exact.data[b_star_not_one], atol=TOL, rtol=0)


def test_theorem11_exactness_case_is_exercised():
    """A star whose centre has a field stronger than all but one coupling: b* != 1 for every slot of the centre."""
    model = BinaryPairwiseMRF([[0, 1], [0, 2], [0, 3]], [0.7, -0.4, 1.1], [3.0, 0.2, -0.1, 0.0])
    assert np.all(field_margin(model)[: model.indptr[1]] > 0)
    np.testing.assert_allclose(
        influence_binary_pairwise(model).toarray(), exact_influence(model).toarray(), atol=TOL, rtol=0
    )
    # and the field really tightens the bound below tanh|theta|
    assert influence_binary_pairwise(model)[0, 1] < np.tanh(0.7) - 0.1


@BOUNDS_PROFILE
@given(binary_models())
def test_theorem11_never_exceeds_theorem10(model):
    """Theorem 11 <= Theorem 10 on binary models.

    Theorem 10 on the table ``theta_ij x_i x_j`` is ``tanh|theta_ij|``. Theorem 11 is
    Lemma 14's expression ``|w - w'| b / ((1 + b w)(1 + b w'))`` with ``w w' = 1``,
    evaluated at ``b = b*``; in ``b`` it rises up to ``b = 1/sqrt(w w') = 1`` and falls
    after, and at ``b = 1`` it equals ``tanh|theta_ij|``. Restricting ``b`` to an
    interval (clipping 1 to it) can only lower it.
    """
    thm11 = influence_binary_pairwise(model)
    thm10 = influence_pairwise(model.to_discrete())
    assert np.all(thm11.data <= thm10.data + 1e-15)


def test_theorem11_is_numerically_safe_for_extreme_parameters():
    """Large couplings and fields: finite, in [0, 1], and equal to a 60-digit evaluation of
    ``sinh(2t) / (cosh(2t) + cosh(2g))``, ``g = max(0, |h_i| - sum_{k != j}|theta_ik|)``,
    to 1e-9 relative or 1e-15 absolute (values far below 1e-16 are only accurate absolutely)."""
    getcontext().prec = 60

    def tanh(x: Decimal) -> Decimal:  # no overflow: exp of a nonpositive argument only
        e = (-2 * abs(x)).exp()
        return (1 - e) / (1 + e) * (1 if x >= 0 else -1)

    cases = [  # (theta_01, theta_02, h_0)
        (400.0, 0.0, 800.5),
        (1e-8, 0.5, 30.0),
        (700.0, -700.0, 0.0),
        (5.0, 2.0, -1e6),
        (3.0, 1e300, 0.0),
        (20.0, -0.1, 20.05),
        (2.0, 3.0, 4.0),
    ]
    for t01, t02, h0 in cases:
        model = BinaryPairwiseMRF([[0, 1], [0, 2]], [t01, t02], [h0, 0.0, 0.0])
        bound = influence_binary_pairwise(model)
        assert np.all(np.isfinite(bound.data)) and np.all((bound.data >= 0) & (bound.data <= 1))
        for j, (t, other) in ((1, (t01, t02)), (2, (t02, t01))):
            t, g = abs(Decimal(t)), max(Decimal(0), abs(Decimal(h0)) - abs(Decimal(other)))
            expected = float((tanh(t + g) + tanh(t - g)) / 2)
            assert bound[0, j] == pytest.approx(expected, rel=1e-9, abs=1e-15), (t01, t02, h0, j)


def test_table_tanh_is_within_two_ulps_of_a_50_digit_reference():
    """The kernel's ``tanh`` (addition theorem on a 1/32 table) on tiny, grid-point, mid and saturating inputs."""
    from dogs._kernels.bounds import TANH_TABLE, tanh_nonnegative

    getcontext().prec = 50
    rng = np.random.default_rng(11)
    xs = np.concatenate([10.0 ** rng.uniform(-300, -1, 300), rng.uniform(0, 1, 300), rng.uniform(1, 25, 300),
                         np.arange(0, 640) / 32.0, [0.0, 19.0, 19.375, 1e300]])
    compiled = njit_tanh(TANH_TABLE, xs, tanh_nonnegative)
    for x, got in zip(xs, compiled):
        d = Decimal(float(x))
        if d < Decimal("1e-12"):
            expected = float(d - d**3 / 3)  # the next term is below 1e-48 relative
        else:
            e = (-2 * d).exp()
            expected = float((1 - e) / (1 + e))
        assert abs(got - expected) <= 2 * np.spacing(expected), (x, got, expected)


def njit_tanh(table, xs, tanh_nonnegative):
    from numba import njit

    @njit
    def apply(values, table):
        out = np.empty(values.size)
        for k in range(values.size):
            out[k] = tanh_nonnegative(values[k], table)
        return out

    return apply(np.asarray(xs, dtype=np.float64), table)


def test_theorem11_on_a_1000_by_1000_grid():
    """The paper's 10^6-variable scale (DoGS §5.2): one stored entry per directed edge. Its speed is
    measured by the benchmarks (``dogs.benchmarks.dogs``), not asserted here."""
    rng = np.random.default_rng(0)
    model = grid_model(1000, 1000, rng.uniform(-0.5, 0.5, 1_998_000), field=rng.normal(0.0, 1.0, 1_000_000))
    bound = influence_binary_pairwise(model)
    assert bound.shape == (10**6, 10**6) and bound.nnz == 3_996_000
    assert np.all(bound.data >= 0) and np.all(bound.data <= np.tanh(0.5) + 1e-12)


# --------------------------------------------------------------------------- Theorem 10
@BOUNDS_PROFILE
@given(discrete_models())
def test_theorem10_dominates_exact_influence_on_discrete_models(model):
    bound = influence_pairwise(model)
    exact = exact_influence(model)
    np.testing.assert_array_equal(bound.indices, exact.indices)
    assert np.all(bound.data >= exact.data - TOL)
    assert np.all(bound.data < 1.0)


@BOUNDS_PROFILE
@given(binary_models())
def test_theorem10_dominates_exact_influence_on_binary_models(model):
    exact = exact_influence(model)
    for bound in (influence_pairwise(model), influence_pairwise(model.to_discrete())):
        assert np.all(bound.data >= exact.data - TOL)


@BOUNDS_PROFILE
@given(binary_models())
def test_theorem10_binary_closed_form_matches_table_form(model):
    closed = influence_pairwise(model)
    tables = influence_pairwise(model.to_discrete())
    np.testing.assert_allclose(closed.toarray(), tables.toarray(), atol=TOL, rtol=0)
    np.testing.assert_allclose(closed.data, np.tanh(np.abs(model.coupling)), atol=TOL, rtol=0)


def test_theorem10_ising_edge_gives_tanh_and_is_attained():
    """An isolated Ising edge: Theorem 10 = tanh|theta| = the exact influence (zero field)."""
    for theta in (-1.3, 0.25, 2.0):
        model = BinaryPairwiseMRF([[0, 1]], [theta], [0.0, 0.0]).to_discrete()
        np.testing.assert_allclose(influence_pairwise(model).toarray(), np.tanh(abs(theta)) * (1 - np.eye(2)), atol=TOL)
        np.testing.assert_allclose(exact_influence(model).toarray(), np.tanh(abs(theta)) * (1 - np.eye(2)), atol=TOL)


def test_theorem10_reads_the_oscillation_inside_the_max():
    """Theorem 10 is tanh(osc / 4) with osc = max_{a,b}[(t_ax - t_ay) - (t_bx - t_by)].

    Table of edge (0, 1) oriented (x_0, x_1): moving x_1 from 0 to 1 shifts the logits of
    x_0 by delta = (0, 1, 3), so osc = 3 and the influence of x_1 on x_0 is at most
    tanh(3 / 4). Reading the bracket as printed in the extracted text (b unbound) or
    dropping the 1/2 would give other numbers; only this one is attained (below) and
    gives tanh|theta| on Ising edges.
    """
    table = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, 3.0]])
    model = DiscretePairwiseMRF(np.array([3, 2]), [np.zeros(3), np.zeros(2)], [[0, 1]], [table])
    bound = influence_pairwise(model)
    assert bound[0, 1] == pytest.approx(np.tanh(3.0 / 4.0), abs=TOL)
    # reverse: moving x_0 from 0 to 2 shifts the logits of x_1 by (0, 3): osc = 3 again
    assert bound[1, 0] == pytest.approx(np.tanh(3.0 / 4.0), abs=TOL)
    # attained: x_0 restricted (almost) to states 0 and 2 with log-odds -1.5 -> +1.5 as x_1 moves
    strong = DiscretePairwiseMRF(
        np.array([3, 2]), [np.array([0.0, -40.0, -1.5]), np.zeros(2)], [[0, 1]], [table]
    )
    assert exact_influence(strong)[0, 1] == pytest.approx(np.tanh(3.0 / 4.0), abs=1e-9)


# --------------------------------------------------------------------------- Theorem 12
@BOUNDS_PROFILE
@given(higher_order_models())
def test_theorem12_dominates_exact_influence(problem):
    p, factors, h = problem
    exact = exact_influence_higher_order(p, factors, h)
    paper = influence_higher_order(p, factors, h)
    tight = influence_higher_order(p, factors, h, tight=True)
    for bound in (paper, tight):
        np.testing.assert_array_equal(bound.indices, exact.indices)
        assert np.all(bound.data >= exact.data - TOL)
    assert np.all(tight.data <= paper.data + TOL)
    assert np.all(tight.data < 1.0)


@BOUNDS_PROFILE
@given(binary_models())
def test_theorem12_on_pairwise_factors_relates_to_theorem11(model):
    """On pairwise factors, A_ij = |theta_ij| and B_ij = sum_{k != j}|theta_ik|, so

    * the tight form (Lemma 14 denominator kept) is exactly Theorem 11;
    * the printed form has denominator (1 + b*)^2 <= (1 + b* e^{2t})(1 + b* e^{-2t}) and equals
      Theorem 11 * (cosh 2|theta_ij| + cosh 2g) / (1 + cosh 2g), g = |log b*| / 2.
    """
    factors = [(tuple(e), float(t)) for e, t in zip(model.edges.tolist(), model.theta)]
    thm11 = influence_binary_pairwise(model)
    tight = influence_higher_order(model.n_vars, factors, model.h, tight=True)
    paper = influence_higher_order(model.n_vars, factors, model.h)
    np.testing.assert_allclose(tight.toarray(), thm11.toarray(), atol=TOL, rtol=0)
    g = np.maximum(field_margin(model), 0.0)
    ratio = (np.cosh(2 * np.abs(model.coupling)) + np.cosh(2 * g)) / (1 + np.cosh(2 * g))
    np.testing.assert_array_equal(paper.indices, thm11.indices)
    np.testing.assert_allclose(paper.data, thm11.data * ratio, rtol=1e-10, atol=TOL)
    assert np.all(paper.data >= thm11.data - TOL)


def test_theorem12_printed_form_can_exceed_one():
    """The printed (1 + b*)^2 denominator makes the bound vacuous for strong interactions."""
    factors = [((0, 1, 2), 2.0)]
    paper = influence_higher_order(3, factors, np.zeros(3))
    assert paper[0, 1] == pytest.approx(np.sinh(4.0) / 2.0)
    assert paper[0, 1] > 1.0
    assert influence_higher_order(3, factors, np.zeros(3), tight=True)[0, 1] == pytest.approx(np.tanh(2.0))


def test_theorem12_is_numerically_safe():
    bound = influence_higher_order(3, [((0, 1, 2), 1e3), ((0, 1), 1e-9)], [1e4, -1e4, 0.0])
    assert not np.any(np.isnan(bound.data)) and np.all(bound.data >= 0)
    tight = influence_higher_order(3, [((0, 1, 2), 1e3), ((0, 1), 1e-9)], [1e4, -1e4, 0.0], tight=True)
    assert np.all(np.isfinite(tight.data)) and np.all(tight.data <= 1)


# --------------------------------------------------------------------------- structure
@BOUNDS_PROFILE
@given(binary_models())
def test_output_structure_binary(model):
    rows, cols = blanket_pairs(model)
    for name in BOUND_METHODS:
        assert_structure(influence_bound(model, name), rows, cols, model.n_vars)
    assert_structure(influence_pairwise(model.to_discrete()), rows, cols, model.n_vars)


@BOUNDS_PROFILE
@given(discrete_models())
def test_output_structure_discrete(model):
    rows, cols = blanket_pairs(model)
    for mat in (influence_pairwise(model), exact_influence(model), influence_bound(model)):
        assert_structure(mat, rows, cols, model.n_vars)


@BOUNDS_PROFILE
@given(higher_order_models())
def test_output_structure_higher_order(problem):
    p, factors, h = problem
    rows, cols = higher_order_pairs(factors)
    for mat in (
        influence_higher_order(p, factors, h),
        influence_higher_order(p, factors, h, tight=True),
        exact_influence_higher_order(p, factors, h),
    ):
        assert_structure(mat[:, :], rows, cols, p)
        assert mat.nnz == len(set(zip(rows.tolist(), cols.tolist())))


def test_isolated_variables_and_empty_models():
    model = BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), [], [0.5, -0.2, 0.0])
    for name in BOUND_METHODS:
        mat = influence_bound(model, name)
        assert mat.shape == (3, 3) and mat.nnz == 0
    assert influence_higher_order(4, [], np.zeros(4)).nnz == 0
    assert exact_influence_higher_order(4, [], np.zeros(4)).nnz == 0


def test_repeated_scopes_add_up():
    once = influence_higher_order(3, [((0, 1, 2), 0.6)], [0.1, 0.2, 0.3], tight=True)
    twice = influence_higher_order(3, [((0, 1, 2), 0.2), ((2, 1, 0), 0.4)], [0.1, 0.2, 0.3], tight=True)
    np.testing.assert_allclose(once.toarray(), twice.toarray(), atol=TOL)


# --------------------------------------------------------------------------- loosen and dispatch
def test_loosen_scales_and_keeps_pattern():
    model = grid_model(3, 4, 0.3, field=0.2)
    base = influence_binary_pairwise(model)
    before = base.toarray().copy()
    loose = loosen(base, 1.3)
    np.testing.assert_allclose(loose.toarray(), 1.3 * before)
    np.testing.assert_array_equal(loose.indices, base.indices)
    np.testing.assert_array_equal(base.toarray(), before)  # input untouched
    np.testing.assert_allclose(loosen(before, 1.5).toarray(), 1.5 * before)
    assert loosen(base, 1).format == "csr"


@pytest.mark.parametrize("factor", [0.99, 0.0, -2.0, float("nan"), float("inf")])
def test_loosen_rejects_factors_that_are_not_at_least_one(factor):
    with pytest.raises(ValueError, match="factor"):
        loosen(sparse.eye(3, format="csr"), factor)


def test_loosen_rejects_bad_bounds():
    with pytest.raises(TypeError, match="factor"):
        loosen(sparse.eye(3, format="csr"), "1.5")
    with pytest.raises(ValueError, match="square"):
        loosen(np.ones((2, 3)), 1.1)
    with pytest.raises(ValueError, match="nonnegative"):
        loosen(-np.eye(2), 1.1)


def test_influence_bound_dispatch():
    binary = grid_model(3, 3, 0.4, field=0.7)
    discrete = DiscretePairwiseMRF.potts([[0, 1], [1, 2]], 3, 0.8, np.zeros((3, 3)))
    np.testing.assert_array_equal(influence_bound(binary).toarray(), influence_binary_pairwise(binary).toarray())
    np.testing.assert_array_equal(influence_bound(discrete).toarray(), influence_pairwise(discrete).toarray())
    np.testing.assert_array_equal(influence_bound(binary, "theorem10").toarray(), influence_pairwise(binary).toarray())
    np.testing.assert_array_equal(influence_bound(binary, "exact").toarray(), exact_influence(binary).toarray())
    np.testing.assert_array_equal(influence_bound(discrete, "exact").toarray(), exact_influence(discrete).toarray())
    factors = [(tuple(e), float(t)) for e, t in zip(binary.edges.tolist(), binary.theta)]
    np.testing.assert_array_equal(
        influence_bound(binary, "theorem12").toarray(), influence_higher_order(9, factors, binary.h).toarray()
    )


# --------------------------------------------------------------------------- bad input
def test_unknown_method_lists_the_options():
    with pytest.raises(ValueError, match="theorem10.*theorem11.*theorem12.*exact"):
        influence_bound(grid_model(2, 2, 0.1), "theorem13")
    with pytest.raises(ValueError, match="unknown method"):
        influence_bound(grid_model(2, 2, 0.1), None)


def test_wrong_model_types():
    discrete = DiscretePairwiseMRF.potts([[0, 1]], 3, 0.5, np.zeros((2, 3)))
    with pytest.raises(TypeError, match="model must be a BinaryPairwiseMRF"):
        influence_binary_pairwise(discrete)
    with pytest.raises(TypeError, match="model must be a DiscretePairwiseMRF"):
        influence_pairwise(np.eye(2))
    with pytest.raises(TypeError, match="model"):
        exact_influence({"edges": []})
    with pytest.raises(TypeError, match="BinaryPairwiseMRF"):
        influence_bound(discrete, "theorem11")
    with pytest.raises(TypeError, match="BinaryPairwiseMRF"):
        influence_bound(discrete, "theorem12")
    with pytest.raises(TypeError, match="model"):
        influence_bound("ising")


def test_exact_influence_refuses_large_blankets():
    star = BinaryPairwiseMRF(np.stack([np.zeros(21, np.int64), np.arange(1, 22)], axis=1), 0.1, np.zeros(22))
    with pytest.raises(ValueError, match=r"variable 0 has 21 blanket variables"):
        exact_influence(star)
    with pytest.raises(ValueError, match="blanket"):
        exact_influence(star.to_discrete())
    with pytest.raises(ValueError, match="blanket"):
        exact_influence_higher_order(22, [((0, k), 0.1) for k in range(1, 22)], np.zeros(22))
    small = grid_model(3, 3, 0.2)
    with pytest.raises(ValueError, match="max_states"):
        exact_influence(small, max_states=8)  # centre has 4 neighbours: 16 states
    with pytest.raises(ValueError, match="max_states"):
        exact_influence(small, max_states=0)
    assert exact_influence(small, max_states=16).nnz == small.indptr[-1]


@pytest.mark.parametrize(
    ("n_vars", "factors", "h", "error", "match"),
    [
        (3.0, [], np.zeros(3), TypeError, "n_vars"),
        (0, [], np.zeros(0), ValueError, "n_vars"),
        (3, [], np.zeros(2), ValueError, r"h must have shape"),
        (3, [], np.array([0.0, np.nan, 0.0]), ValueError, "h must be finite"),
        (3, [], np.array(["a", "b", "c"]), TypeError, "h must be real"),
        (3, "01", np.zeros(3), TypeError, "factors must be a sequence"),
        (3, [(0, 1)], np.zeros(3), TypeError, r"factors\[0\]"),
        (3, [((0,), 1.0)], np.zeros(3), ValueError, r"factors\[0\] must involve at least 2"),
        (3, [((0, 0), 1.0)], np.zeros(3), ValueError, "distinct"),
        (3, [((0, 3), 1.0)], np.zeros(3), ValueError, r"0\.\.2"),
        (3, [((0, 1.5), 1.0)], np.zeros(3), TypeError, "integers"),
        (3, [((0, 1), "x")], np.zeros(3), TypeError, "theta_S must be a real"),
        (3, [((0, 1), float("inf"))], np.zeros(3), ValueError, "theta_S must be finite"),
    ],
)
def test_higher_order_input_validation(n_vars, factors, h, error, match):
    with pytest.raises(error, match=match):
        influence_higher_order(n_vars, factors, h)
    with pytest.raises(error, match=match):
        exact_influence_higher_order(n_vars, factors, h)


def test_tight_flag_must_be_boolean():
    with pytest.raises(TypeError, match="tight"):
        influence_higher_order(2, [((0, 1), 1.0)], np.zeros(2), tight="yes")
