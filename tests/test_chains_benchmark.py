"""The CPU peers of :mod:`dogs.benchmarks.chains` sample our distribution, so their rows time the same work.

``pi(x) ∝ exp(sum_{i<j} theta_ij x_i x_j + sum_i h_i x_i)``, each edge once: ferrotherm and peapods are handed it
in their own conventions (``exp(-beta E)`` with ``E = -sum J s s - sum h s``; ``exp(sum J s s / T)`` on bonds of
a periodic lattice), and independent chains of each are compared, site by site and edge by edge, with exact
enumeration. The peer tests are skipped when the peer is not installed (CI does not install the ``peers`` extra);
the placement of peapods's couplings is checked without it. Statistical tests state their false-failure rate;
every seed below was fixed before the test was first run. No timing is asserted.
"""

from __future__ import annotations

import functools
import importlib.util

import numpy as np
import pytest
from scipy import stats

from dogs.benchmarks.chains import peapods_couplings
from dogs.exact.chains import site_kernels, stationary_distribution, tv_distance
from dogs.exact.enumeration import as_discrete_model, brute_force, log_potential_tensor
from dogs.models import grid_model
from dogs.models.binary import grid_edges

ROWS, COLS = 3, 3
SWEEPS = 100
CHAINS = 20_000
# 9 sites + 12 edges per model; each test at most 2 models: Bonferroni to 1e-4 per test.
_COMPARISONS = 2 * (ROWS * COLS + len(grid_edges(ROWS, COLS)))
_FALSE_FAILURE_RATE = 1e-4


def _needs(peer: str):
    """Skip (before any fixture runs) when ``peer`` is not installed: CI does not install the ``peers`` extra."""
    return pytest.mark.skipif(importlib.util.find_spec(peer) is None,
                              reason=f"{peer} (the optional peers extra) is not installed")


def _test_model(field: bool):
    """A 3 x 3 open grid with ``theta_ij ~ U[-1, 1]`` (both signs, strong enough that a wrong convention shows) and
    zero field or ``h_i ~ U[-0.5, 0.5]``."""
    rng = np.random.default_rng(2024)
    theta = rng.uniform(-1.0, 1.0, len(grid_edges(ROWS, COLS)))
    h = rng.uniform(-0.5, 0.5, ROWS * COLS)
    return grid_model(ROWS, COLS, theta, h if field else 0.0)


def _stationary(model):
    """``(P(x_i = +1) per site, P(x_i = x_j) per edge)`` by exact enumeration."""
    exact = brute_force(model)
    same = np.array([table[0, 0] + table[1, 1] for table in exact.edge_marginals])
    return np.stack(exact.node_marginals)[:, 1], same


def _worst_case_tv_after_sweeps(model) -> float:
    """Exact worst-case (over every start) TV to ``pi`` after ``SWEEPS`` sweeps, the largest over three site orders:
    row-major, and the two checkerboard orders (black then white sites, white then black)."""
    lw = log_potential_tensor(as_discrete_model(model)).ravel()
    kernels, pi = [k.toarray() for k in site_kernels(lw, [2] * model.n_vars)], stationary_distribution(lw)
    black = [s for s in range(model.n_vars) if (s // COLS + s % COLS) % 2 == 0]
    white = [s for s in range(model.n_vars) if s not in black]
    worst = 0.0
    for order in (range(model.n_vars), black + white, white + black):
        sweep = np.linalg.multi_dot([kernels[i] for i in order])  # row x: the law after one sweep from x
        worst = max(worst, float(tv_distance(np.linalg.matrix_power(sweep, SWEEPS), pi).max()))
    return worst


def _assert_matches_exact(states: np.ndarray, model) -> None:
    """Two-sided exact binomial tests of the ``+1`` count per site and the agreement count per edge, each at level
    ``1e-4 / _COMPARISONS``, against exact enumeration; ``states`` is ``(chains, p)`` of independent chains."""
    site, same = _stationary(model)
    level = _FALSE_FAILURE_RATE / _COMPARISONS
    n = len(states)
    for i, prob in enumerate(site):
        count = int((states[:, i] > 0).sum())
        assert stats.binomtest(count, n, prob).pvalue > level, f"site {i}: {count / n:.4f} vs exact {prob:.4f}"
    for e, ((i, j), prob) in enumerate(zip(model.edges, same)):
        count = int((states[:, i] == states[:, j]).sum())
        assert stats.binomtest(count, n, prob).pvalue > level, f"edge {e} ({i}, {j}): {count / n:.4f} vs exact {prob:.4f}"


def _wrong_conventions(model):
    """The models a wrong conversion would sample: each edge counted twice or halved, the sign flipped, and the
    couplings of the two bond directions swapped (a transposed lattice; the grid is square)."""
    transposed = np.empty_like(model.theta)
    index = {(int(i), int(j)): e for e, (i, j) in enumerate(model.edges)}
    for e, (i, j) in enumerate(model.edges):
        r, c = divmod(int(i), COLS)
        mirror = sorted((c * COLS + r, (j % COLS) * COLS + j // COLS))
        transposed[e] = model.theta[index[tuple(mirror)]]
    for theta, h in ((2 * model.theta, 2 * model.h), (model.theta / 2, model.h / 2), (-model.theta, -model.h),
                     (transposed, model.h)):
        yield grid_model(ROWS, COLS, theta, h)


@functools.cache
def _checked_model(field: bool):
    """:func:`_test_model`, with the two premises of the peer tests checked exactly."""
    model = _test_model(field)
    # After SWEEPS sweeps every chain's law is within 1e-6 of pi, whatever its start, in row-major and in
    # checkerboard sweeps, so the frequencies are Binomial with the exact probabilities (off by at most 1e-6, far
    # below the standard error ~3.5e-3 of 20 000 chains).
    assert _worst_case_tv_after_sweeps(model) < 1e-6
    # Power: each wrong convention moves some site or edge probability by more than 0.05, 14 standard errors.
    right = np.concatenate(_stationary(model))
    for wrong in _wrong_conventions(model):
        assert np.max(np.abs(np.concatenate(_stationary(wrong)) - right)) > 0.05
    return model


@pytest.fixture(params=[False, True], ids=["zero field", "field"])
def model(request):
    return _checked_model(request.param)


@_needs("ferrotherm")
def test_ferrotherm_samples_our_distribution(model):
    """20 000 independent ferrotherm chains (one ``Sim`` each, seeds from one SeedSequence), each from all ``+1``
    through 100 chromatic block-Gibbs sweeps, against exact enumeration: false-failure rate at most 1e-4 over both
    models (the zero-field model of the benchmark's kind and one with a field, which checks the sign of ``h``)."""
    from dogs.benchmarks.chains import ferrotherm_simulation

    seeds = np.random.SeedSequence(31).generate_state(CHAINS, dtype=np.uint64)
    states = np.empty((CHAINS, model.n_vars), dtype=np.int8)
    for k, seed in enumerate(seeds):
        sim = ferrotherm_simulation(model, seed=int(seed))
        sim.spins = [1] * model.n_vars
        sim.sweep(SWEEPS)
        states[k] = sim.numpy()
    assert np.unique(states, axis=0).shape[0] > 100  # the chains are not copies of one another
    _assert_matches_exact(states, model)


@_needs("peapods")
def test_peapods_samples_our_distribution():
    """20 000 peapods replicas (its own batch of independent chains, each with its own generator, from its random
    starts) through 100 Gibbs sweeps at ``T = 1``, against exact enumeration on the zero-field model (peapods has no field): false-failure
    rate at most 1e-4 / 2."""
    from dogs.benchmarks.chains import peapods_ising, peapods_sweeps

    model = _checked_model(field=False)  # its premise covers any start, so peapods's random ones too
    ising = peapods_ising(model, CHAINS)
    peapods_sweeps(ising, SWEEPS)
    # peapods's public API reports summary statistics only; its simulation object holds the states,
    # replica-major, sites row-major
    states = np.asarray(ising._sim.get_spins()).reshape(CHAINS, model.n_vars)
    assert np.unique(states, axis=0).shape[0] > 100
    _assert_matches_exact(states, model)


def test_peapods_couplings_put_each_edge_on_its_bond():
    """``[r, c, 0]`` is the bond to ``(r + 1, c)``, ``[r, c, 1]`` the one to ``(r, c + 1)``, the wrap-around bonds 0."""
    rows, cols = 3, 4
    theta = np.arange(1, len(grid_edges(rows, cols)) + 1, dtype=np.float64)
    model = grid_model(rows, cols, theta)
    couplings = peapods_couplings(model)
    assert couplings.shape == (rows, cols, 2) and couplings.dtype == np.float32
    expected = np.zeros((rows, cols, 2))
    for (i, j), value in zip(model.edges, theta):
        r, c = divmod(int(i), cols)
        expected[r, c, 0 if j == i + cols else 1] = value
    np.testing.assert_array_equal(couplings, expected)
    assert not couplings[-1, :, 0].any() and not couplings[:, -1, 1].any()  # the wrap-around bonds
    assert np.count_nonzero(couplings) == len(theta)


def test_peapods_couplings_refuse_what_peapods_cannot_sample():
    with pytest.raises(ValueError, match="zero field"):
        peapods_couplings(grid_model(3, 3, 0.1, 0.2))
    with pytest.raises(ValueError, match="open grid"):
        peapods_couplings(grid_model(3, 3, 0.1, torus=True))
    with pytest.raises(ValueError, match="shape"):
        from dogs.models import BinaryPairwiseMRF

        peapods_couplings(BinaryPairwiseMRF(np.array([[0, 1]]), np.array([0.1]), np.zeros(2)))
