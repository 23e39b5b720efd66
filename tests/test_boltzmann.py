"""{0, 1} Boltzmann machine <-> spin (±1) model: exact agreement of densities, log Z, round trips, validation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from dogs.exact import brute_force
from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.models.boltzmann import boltzmann_to_spin, spin_to_boltzmann, spin_to_zero_one, zero_one_to_spin


def zero_one_states(d: int) -> np.ndarray:
    return np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.int8)


def log_f01(W_upper: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``sum_{i<j} W_ij y_i y_j + sum_i b_i y_i`` straight from the definition (upper triangle of W)."""
    y = y.astype(np.float64)
    return np.einsum("ni,ij,nj->n", y, np.triu(W_upper, 1), y) + y @ b


def random_boltzmann(d: int, seed: int, symmetric: bool = True):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.normal(0.0, 1.5, (d, d)), 1)
    b = rng.uniform(-2.0, 2.0, d)
    return (upper + upper.T if symmetric else upper), b, upper


CASES = [(d, seed, sym) for d, seed in [(1, 0), (2, 1), (3, 2), (5, 3), (6, 4), (8, 5)] for sym in (True, False)]


@pytest.mark.parametrize("d, seed, symmetric", CASES)
def test_log_densities_agree_at_every_state_up_to_the_offset(d, seed, symmetric):
    W, b, upper = random_boltzmann(d, seed, symmetric)
    model, offset = boltzmann_to_spin(W, b)
    assert model.n_vars == d and model.n_edges == d * (d - 1) // 2
    y = zero_one_states(d)
    s = zero_one_to_spin(y)
    np.testing.assert_allclose(log_f01(upper, b, y), model.log_potential(s) + offset, rtol=0, atol=1e-12)
    assert log_f01(upper, b, y[:1])[0] == 0.0  # y = 0 has log f01 = 0, so offset = -log f_spin(-1, ..., -1)
    np.testing.assert_allclose(offset, -model.log_potential(-np.ones(d)), rtol=0, atol=1e-12)


@pytest.mark.parametrize("d, seed, symmetric", CASES)
def test_log_partition_functions_differ_by_the_offset(d, seed, symmetric):
    W, b, upper = random_boltzmann(d, seed, symmetric)
    model, offset = boltzmann_to_spin(W, b)
    log_z01 = logsumexp(log_f01(upper, b, zero_one_states(d)))
    log_z_spin = brute_force(model).log_partition
    np.testing.assert_allclose(log_z01 - log_z_spin, offset, rtol=0, atol=1e-11)


def test_symmetric_and_upper_triangular_inputs_give_the_same_model():
    W, b, upper = random_boltzmann(7, 8)
    m1, o1 = boltzmann_to_spin(W, b)
    m2, o2 = boltzmann_to_spin(upper, b)
    np.testing.assert_array_equal(m1.edges, m2.edges)
    np.testing.assert_array_equal(m1.theta, m2.theta)
    np.testing.assert_allclose(m1.h, m2.h, rtol=0, atol=1e-14)
    assert o1 == o2


def test_parameters_match_the_formulas():
    W = np.array([[0.0, 2.0, -4.0], [2.0, 0.0, 8.0], [-4.0, 8.0, 0.0]])
    b = np.array([1.0, -2.0, 0.5])
    model, offset = boltzmann_to_spin(W, b)
    np.testing.assert_array_equal(model.edges, [[0, 1], [0, 2], [1, 2]])
    np.testing.assert_array_equal(model.theta, [0.5, -1.0, 2.0])  # W / 4, not W / 2 or W / 8
    np.testing.assert_array_equal(model.h, [0.5 + (2 - 4) / 4, -1.0 + (2 + 8) / 4, 0.25 + (-4 + 8) / 4])
    assert offset == (2 - 4 + 8) / 4 + (1 - 2 + 0.5) / 2


@pytest.mark.parametrize("seed", range(4))
def test_round_trip_spin_to_boltzmann_to_spin_is_the_identity(seed):
    rng = np.random.default_rng(100 + seed)
    if seed % 2:  # sparse structure: pass the edges back in
        model = grid_model(3, 3, rng.normal(0, 1, 18), rng.normal(0, 1, 9), torus=True)
        edges = model.edges
    else:
        w = np.triu(rng.normal(0, 1, (6, 6)), 1)
        model = BinaryPairwiseMRF.dense(w + w.T, rng.normal(0, 1, 6))
        edges = None
    W, b, offset = spin_to_boltzmann(model)
    np.testing.assert_array_equal(W, W.T)
    np.testing.assert_array_equal(np.diag(W), 0.0)
    back, offset_back = boltzmann_to_spin(W, b, edges=edges)
    np.testing.assert_array_equal(back.edges, model.edges)
    np.testing.assert_array_equal(back.theta, model.theta)  # exact: powers of two
    np.testing.assert_allclose(back.h, model.h, rtol=0, atol=1e-13)
    np.testing.assert_allclose(offset_back, offset, rtol=0, atol=1e-13)
    # and the densities agree with the {0,1} form built from (W, b)
    y = zero_one_states(model.n_vars)
    np.testing.assert_allclose(log_f01(W, b, y), model.log_potential(zero_one_to_spin(y)) + offset, atol=1e-11)


def test_round_trip_boltzmann_to_spin_to_boltzmann():
    W, b, _ = random_boltzmann(6, 9)
    model, offset = boltzmann_to_spin(W, b)
    W2, b2, offset2 = spin_to_boltzmann(model)
    np.testing.assert_array_equal(W2, W)
    np.testing.assert_allclose(b2, b, rtol=0, atol=1e-13)
    np.testing.assert_allclose(offset2, offset, rtol=0, atol=1e-13)


def test_sparse_edges_and_zero_couplings():
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 0] = 1.2
    b = np.array([0.1, 0.2, -0.3, 0.0])
    full, _ = boltzmann_to_spin(W, b)
    assert full.n_edges == 6  # default: every pair, zero couplings included
    sparse, offset = boltzmann_to_spin(W, b, edges=[[1, 0]])
    np.testing.assert_array_equal(sparse.edges, [[0, 1]])
    y = zero_one_states(4)
    np.testing.assert_allclose(log_f01(W, b, y), sparse.log_potential(zero_one_to_spin(y)) + offset, atol=1e-14)
    with pytest.raises(ValueError, match=r"W\[0, 1\].*not in edges"):
        boltzmann_to_spin(W, b, edges=[[2, 3]])


# ------------------------------------------------------------------ data conversion
def test_data_conversions_round_trip():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, (50, 6)).astype(np.uint8)
    s = zero_one_to_spin(y)
    assert s.dtype == np.int8 and set(np.unique(s)) == {-1, 1}
    np.testing.assert_array_equal(s, 2 * y.astype(int) - 1)
    np.testing.assert_array_equal(spin_to_zero_one(s), y)
    np.testing.assert_array_equal(zero_one_to_spin(spin_to_zero_one(s)), s)
    np.testing.assert_array_equal(zero_one_to_spin(y.astype(bool)), s)
    np.testing.assert_array_equal(zero_one_to_spin(y.astype(float)), s)
    np.testing.assert_array_equal(spin_to_zero_one(s.astype(float)), y)
    assert zero_one_to_spin(1).shape == ()


@pytest.mark.parametrize("bad", [[0, 2], [0, -1], [0.5, 1], [np.nan, 0]])
def test_zero_one_to_spin_rejects_other_values(bad):
    with pytest.raises(ValueError, match="only 0 and 1"):
        zero_one_to_spin(np.array(bad))


@pytest.mark.parametrize("bad", [[0, 1], [1, 2], [-1, 0.5], [np.nan, 1]])
def test_spin_to_zero_one_rejects_other_values(bad):
    with pytest.raises(ValueError, match="only -1 and 1"):
        spin_to_zero_one(np.array(bad))


def test_data_conversion_rejects_non_numbers():
    with pytest.raises(TypeError):
        zero_one_to_spin(np.array(["0", "1"]))
    with pytest.raises(TypeError):
        spin_to_zero_one(np.array([1 + 0j, -1]))


# ------------------------------------------------------------------ validation
def test_asymmetric_W_is_rejected():
    W, b, _ = random_boltzmann(4, 3)
    W[2, 0] += 0.5
    with pytest.raises(ValueError, match=r"symmetric or strictly upper triangular.*W\[\d, \d\]"):
        boltzmann_to_spin(W, b)
    with pytest.raises(ValueError, match="symmetric or strictly upper triangular"):
        boltzmann_to_spin(np.tril(np.ones((3, 3)), -1), np.zeros(3))  # lower triangular


def test_nonzero_diagonal_is_rejected():
    W, b, _ = random_boltzmann(4, 3)
    W[1, 1] = 0.3
    with pytest.raises(ValueError, match="zero diagonal"):
        boltzmann_to_spin(W, b)


@pytest.mark.parametrize(
    "W, b, error, match",
    [
        (np.zeros((3, 3)), np.zeros(4), ValueError, "shape"),
        (np.zeros((3, 4)), np.zeros(3), ValueError, "shape"),
        (np.zeros((0, 0)), np.zeros(0), ValueError, "non-empty"),
        (np.zeros((2, 2)), np.zeros((2, 1)), ValueError, "1-d"),
        (np.array([[0.0, np.inf], [np.inf, 0.0]]), np.zeros(2), ValueError, "finite"),
        (np.zeros((2, 2)), np.array([np.nan, 0.0]), ValueError, "finite"),
        (np.array([["a", "b"], ["c", "d"]]), np.zeros(2), TypeError, "real"),
        (np.zeros((2, 2), dtype=complex), np.zeros(2), TypeError, "real"),
    ],
)
def test_bad_weights(W, b, error, match):
    with pytest.raises(error, match=match):
        boltzmann_to_spin(W, b)


def test_spin_to_boltzmann_needs_a_binary_model():
    with pytest.raises(TypeError, match="BinaryPairwiseMRF"):
        spin_to_boltzmann(np.zeros((3, 3)))
