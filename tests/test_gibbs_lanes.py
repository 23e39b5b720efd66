"""Chain-vectorised Gibbs kernels (the table kernel on degree <= 4, the float32 kernel elsewhere): the table's and
the polynomial's bounds, kernels vs plain Python, layout independence, kernel choice, the vector code, and
marginals against exact enumeration.

Statistical tests state their false-failure rate; every seed below was fixed before the test was first run
and never changed to make a test pass.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from numba import njit
from scipy import stats
from test_gibbs import _exact_law_over_time, _random_band_graph, _random_grid

from dogs._kernels.gibbs_lanes import (
    EXP2_RELATIVE_ERROR,
    FIELD_SCALE,
    exp2_approx,
    exp2_coefficients,
    lane_states,
    plus_probability,
)
import dogs._kernels.gibbs_table as gibbs_table_module
from dogs._kernels.gibbs_table import slot_table, stored_entry
from dogs._kernels.rng import splitmix64_next
from dogs.exact.enumeration import brute_force
from dogs.models import BinaryPairwiseMRF
from dogs.samplers import run_gibbs
from dogs.samplers.gibbs import FLOAT_LANES_FROM_CHAINS, LANES_FROM_CHAINS, lanes_apply
from dogs.scans import explicit_scan, systematic_scan, uniform_scan

MASK32 = (1 << 32) - 1


@njit
def _exp2_many(a):
    out = np.empty(a.size, dtype=np.float32)
    for k in range(a.size):
        out[k] = exp2_approx(a[k])
    return out


# ------------------------------------------------------------------ the approximation and its bound
def test_exp2_relative_error_is_within_the_stated_bound():
    # the float32s of [-1/2, 1/2] spaced 2^-18 apart, shifted by every integer exponent of the clamp range's ends
    # and middle, plus a dense grid over the whole range
    r = np.arange(-(2**17), 2**17 + 1, dtype=np.float64) / 2.0**18
    a = np.concatenate([r + n for n in (-124, -60, -1, 0, 1, 60, 124)] + [np.linspace(-125, 125, 10**6)]).astype(np.float32)
    exact = np.exp2(a.astype(np.float64))
    error = np.abs(_exp2_many(a).astype(np.float64) / exact - 1.0)
    assert error.max() <= EXP2_RELATIVE_ERROR
    assert error.max() > EXP2_RELATIVE_ERROR / 16  # the bound is not loose by orders of magnitude
    # clamped outside [-125, 125]: still finite and positive
    ends = _exp2_many(np.array([-1e30, -200, 200, 1e30], dtype=np.float32))
    assert np.all(np.isfinite(ends)) and np.all(ends > 0)


def test_exp2_coefficients_interpolate_at_chebyshev_nodes():
    coefficients = exp2_coefficients().astype(np.float64)
    r = np.linspace(-0.5, 0.5, 1001)
    assert np.abs(np.polynomial.polynomial.polyval(r, coefficients) / np.exp2(r) - 1).max() < 4e-7


def test_conditional_probability_is_the_gibbs_conditional_within_the_stated_bound():
    """``q`` exactly (threshold count over the 2^24 grid of ``u``) vs ``sigma(2 f)`` for a one-term field ``f``.

    Bound of the module docstring: ``2^-24 + 2^-23 + eps_P / 4 + (ln 2 / 4) |a - y| + 2^-125`` with
    ``a = fl32(FIELD_SCALE f)`` and ``y = FIELD_SCALE f``.
    """
    fields = np.concatenate([np.linspace(-10, 10, 401), [-1e3, -60.0, -44.0, 44.0, 60.0, 1e3, 0.0, 1e-30, -1e-30]])
    for f in fields:
        a = np.float32(FIELD_SCALE * f)
        sigma = 1.0 / (1.0 + math.exp(-2.0 * f)) if f > -300 else 0.0
        bound = 2.0**-24 + 2.0**-23 + EXP2_RELATIVE_ERROR / 4 + math.log(2) / 4 * abs(float(a) - FIELD_SCALE * f) + 2.0**-125
        q = plus_probability(a)
        assert abs(q - sigma) <= bound, (f, q, sigma)
    # the decision is a probability, not rounded to 0 or 1 where sigma is not
    assert 0.0 < plus_probability(np.float32(FIELD_SCALE * -8.0)) < 1e-6


# ------------------------------------------------------------------ plain-Python reference
def _lane_state_reference(seed: int) -> list[int]:
    words, counter = [], int(seed)
    for _ in range(2):
        counter = (counter + 0x9E3779B97F4A7C15) & ((1 << 64) - 1)
        z = counter
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & ((1 << 64) - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & ((1 << 64) - 1)
        z ^= z >> 31
        words += [z & MASK32, z >> 32]
    return words


def _xoshiro128plus_reference(state: list[int]) -> int:
    output = (state[0] + state[3]) & MASK32
    s0, s1, s2, s3 = state
    s2, s3 = s2 ^ s0, s3 ^ s1
    s1, s0 = s1 ^ s2, s0 ^ s3
    state[:] = [s0, s1, s2 ^ ((state[1] << 9) & MASK32), ((s3 << 11) | (s3 >> 21)) & MASK32]
    return output


def _exp2_reference(a: np.float32) -> np.float32:
    c = [np.float32(v) for v in exp2_coefficients()]
    y = min(max(a, np.float32(-125.0)), np.float32(125.0))
    n = np.rint(y)
    r = np.float32(y - n)
    poly = c[5]
    for k in range(4, -1, -1):
        poly = np.float32(np.float32(poly * r) + c[k])
    return (np.array([poly], dtype=np.float32).view(np.int32) + (int(n) << 23)).view(np.float32)[0]


def lanes_reference(model, scan_indices, seed, initial, record_vars, record_times):
    """One chain of the lane kernel in plain Python with float32 scalars: same draws, same roundings."""
    state = _lane_state_reference(int(seed))
    weights = (FIELD_SCALE * model.coupling).astype(np.float32)
    bias = (FIELD_SCALE * model.h).astype(np.float32)
    x = [np.float32(v) for v in initial]
    recordings, next_record = [], 0
    for t in range(len(scan_indices) + 1):
        while next_record < len(record_times) and record_times[next_record] == t:
            recordings.append([int(x[v]) for v in record_vars])
            next_record += 1
        if t == len(scan_indices):
            break
        i = int(scan_indices[t])
        a = bias[i]
        for slot in range(model.indptr[i], model.indptr[i + 1]):
            a = np.float32(a + np.float32(weights[slot] * x[model.neighbors[slot]]))
        k = np.float32(_xoshiro128plus_reference(state) >> 8)
        x[i] = np.float32(1.0) if np.float32(np.float32(k * _exp2_reference(a)) + k) < np.float32(2.0**24) else np.float32(-1.0)
    return np.array(x, dtype=np.int8), np.array(recordings, dtype=np.int8).reshape(len(record_times), len(record_vars))


def table_reference(model, scan_indices, seed, initial, record_vars, record_times):
    """One chain of the table kernel in plain Python: the same generator, ``+1`` iff ``output >> 1 < T_{i,c}``."""
    state = _lane_state_reference(int(seed))
    _, thresholds = slot_table(model.indptr, model.neighbors, model.coupling, model.h)
    x = [int(v) for v in initial]
    recordings, next_record = [], 0
    for t in range(len(scan_indices) + 1):
        while next_record < len(record_times) and record_times[next_record] == t:
            recordings.append([x[v] for v in record_vars])
            next_record += 1
        if t == len(scan_indices):
            break
        i = int(scan_indices[t])
        configuration = sum(1 << k for k, slot in enumerate(range(model.indptr[i], model.indptr[i + 1]))
                            if x[model.neighbors[slot]] > 0)
        x[i] = 1 if (_xoshiro128plus_reference(state) >> 1) < thresholds[i, stored_entry(configuration)] else -1
    return np.array(x, dtype=np.int8), np.array(recordings, dtype=np.int8).reshape(len(record_times), len(record_vars))


def _sigma(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def test_table_is_the_gibbs_conditional_within_two_to_the_minus_31():
    """``|T_{i,c} / 2^31 - sigma(2 f_i(c))| <= 2^-31`` (+ float64 rounding) for every site and configuration,
    ``f_i(c)`` summed here in plain Python: open grid, torus, a path (padding slots) and fields where sigma is 0 or 1."""
    rng = np.random.default_rng(31)
    models = [_random_grid(4, 5, False, rng, coupling_scale=2.0, field_scale=1.0), _random_grid(3, 4, True, rng),
              _random_band_graph(7, (1,), 1.0, rng), _random_grid(2, 3, False, rng, coupling_scale=50.0, field_scale=40.0)]
    for model in models:
        slots, thresholds = slot_table(model.indptr, model.neighbors, model.coupling, model.h)
        for i in range(model.n_vars):
            row = slice(model.indptr[i], model.indptr[i + 1])
            terms = list(zip(model.neighbors[row], model.coupling[row]))
            assert slots[i].tolist() == [j for j, _ in terms] + [model.n_vars] * (4 - len(terms))
            for c in range(16):
                f = math.fsum([float(model.h[i])] + [w * (1 if c >> k & 1 else -1) for k, (_, w) in enumerate(terms)])
                assert abs(thresholds[i, stored_entry(c)] / 2.0**31 - _sigma(2 * f)) <= 2.0**-31 + 1e-15, (i, c)
    assert {0, 2**31 - 1} <= set(np.unique(slot_table(models[3].indptr, models[3].neighbors, models[3].coupling, models[3].h)[1]))
    band = _random_band_graph(12, (1, 2, 5), 1.0, rng)  # degree above 4: no table
    assert slot_table(band.indptr, band.neighbors, band.coupling, band.h) is None


def test_table_kernel_vector_code(monkeypatch):
    """On AVX2 the lookup is two ``vpermd`` in the compiled kernel; the portable path (LLVM's generic gather, which
    LLVM may lower to scalar loads) gives the same spins."""
    model = _random_grid(4, 4, True, np.random.default_rng(8), coupling_scale=1.0)
    scan = systematic_scan(16, 16 * 30)
    lanes = run_gibbs(model, scan, seed=5, n_chains=24, kernel="lanes")
    slots, thresholds = slot_table(model.indptr, model.neighbors, model.coupling, model.h)
    empty = np.zeros(0, dtype=np.int64)

    def compiled_fresh():  # not from numba's cache, so that the intrinsic's code generation runs again (serial: the
        kernel = numba.njit(gibbs_table_module.gibbs_table.py_func)  # vector code is the same, the compile faster)
        bits = np.zeros((1, 17, 24), dtype=np.int8)
        bits[0, :16] = -1  # every chain starts at +1 (run_gibbs's default), held as the byte -1
        states = np.zeros((1, 4, 24 + gibbs_table_module.STATE_PADDING), dtype=np.uint32)
        states[0, :, :24] = lane_states(lanes.seeds)
        kernel(slots, thresholds, scan.indices, bits, states, empty, empty, np.zeros((1, 24, 0, 0), dtype=np.int8))
        return kernel, -2 * bits[0, :16].T.astype(np.int64) - 1

    kernel, spins = compiled_fresh()
    np.testing.assert_array_equal(spins, lanes.states)
    if gibbs_table_module._host_has_avx2():
        assembly = "".join(kernel.inspect_asm().values())
        assert "vpermd" in assembly and "ymm" in assembly
    monkeypatch.setattr(gibbs_table_module, "_host_has_avx2", lambda: False)
    kernel, gathered = compiled_fresh()
    np.testing.assert_array_equal(gathered, lanes.states)
    assert "vpermd" not in "".join(kernel.inspect_asm().values())  # the other path ran (LLVM may scalarise the gather)


def test_lane_states_match_plain_python_seeding():
    seeds = np.array([0, 1, 2**63 + 5, 2**64 - 1], dtype=np.uint64)
    states = lane_states(seeds)
    for c, seed in enumerate(seeds):
        assert states[:, c].tolist() == _lane_state_reference(int(seed))
    assert splitmix64_next(np.uint64(0))[0] != 0  # the seeding never yields an all-zero state (module docstring)


@pytest.mark.parametrize("n_chains", [8, 13])
def test_lane_kernels_match_plain_python_references(n_chains):
    rng = np.random.default_rng(43 + n_chains)
    models = [
        _random_grid(3, 4, False, rng),  # the table kernel (degree <= 4) ...
        _random_grid(3, 3, True, rng),
        BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), [], rng.normal(0, 1, 3)),  # no edges
        _random_grid(3, 3, False, rng, coupling_scale=400.0, field_scale=300.0),  # sigma rounds to 0 or 1 somewhere
        _random_band_graph(12, (1, 2, 5), 0.8, rng),  # ... and the float32 kernel (degree up to 6)
    ]
    for model in models:
        steps = explicit_scan(rng.integers(0, model.n_vars, 6 * model.n_vars), model.n_vars)
        starts = rng.choice(np.array([-1, 1], dtype=np.int8), size=(n_chains, model.n_vars))
        watched = dict(record_vars=[0, model.n_vars - 1], record_times=sorted([0, 1, model.n_vars, 3 * model.n_vars, len(steps)]))
        result = run_gibbs(model, steps, seed=7, n_chains=n_chains, initial_state=starts, kernel="lanes", **watched)
        reference = table_reference if slot_table(model.indptr, model.neighbors, model.coupling, model.h) else lanes_reference
        replayed = [reference(model, steps.indices, seed, start, **watched) for seed, start in zip(result.seeds, starts)]
        np.testing.assert_array_equal(result.states, np.stack([final for final, _ in replayed]))
        np.testing.assert_array_equal(result.recorded, np.stack([recorded for _, recorded in replayed]))


def test_chain_output_does_not_depend_on_the_other_chains_or_the_threads():
    model = _random_grid(6, 6, True, np.random.default_rng(5))
    scan = systematic_scan(36, 36 * 20)
    threads = numba.get_num_threads()
    few = run_gibbs(model, scan, seed=11, n_chains=8, record_vars=[0, 7], record_times=[5, 400], kernel="lanes")
    try:
        numba.set_num_threads(1)
        many = run_gibbs(model, scan, seed=11, n_chains=300, record_vars=[0, 7], record_times=[5, 400])
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(many.states[:8], few.states)
    np.testing.assert_array_equal(many.recorded[:8], few.recorded)
    # and the chains differ from each other (36 sites x 20 sweeps: equal states by chance is < 1e-10)
    assert len({row.tobytes() for row in many.states}) > 250


def test_kernel_choice():
    model = _random_grid(3, 3, False, np.random.default_rng(2))
    scan = systematic_scan(9, 90)
    lanes = run_gibbs(model, scan, seed=3, n_chains=LANES_FROM_CHAINS, kernel="lanes")
    assert np.array_equal(run_gibbs(model, scan, seed=3, n_chains=LANES_FROM_CHAINS).states, lanes.states)  # auto: lanes
    chains = run_gibbs(model, scan, seed=3, n_chains=LANES_FROM_CHAINS - 1, kernel="chains")
    assert np.array_equal(run_gibbs(model, scan, seed=3, n_chains=LANES_FROM_CHAINS - 1).states, chains.states)  # below
    # the float32 kernel (degree > 4) from FLOAT_LANES_FROM_CHAINS chains only
    band = _random_band_graph(12, (1, 2, 5), 1.0, np.random.default_rng(4))
    band_scan = systematic_scan(12, 60)
    for n_chains, kernel in ((FLOAT_LANES_FROM_CHAINS - 1, "chains"), (FLOAT_LANES_FROM_CHAINS, "lanes")):
        expected = run_gibbs(band, band_scan, seed=3, n_chains=n_chains, kernel=kernel).states
        assert np.array_equal(run_gibbs(band, band_scan, seed=3, n_chains=n_chains).states, expected)
    # a uniform scan draws a site per chain: auto keeps the per-chain kernel, lanes refuses
    assert not lanes_apply(model, uniform_scan(9, 90))
    with pytest.raises(ValueError, match="uniform"):
        run_gibbs(model, uniform_scan(9, 90), seed=3, n_chains=8, kernel="lanes")
    with pytest.raises(ValueError, match="kernel must be one of"):
        run_gibbs(model, scan, seed=3, n_chains=8, kernel="simd")
    # fields beyond float32: the float32 kernel (degree 5 here) refuses, auto falls back; the table takes them
    star = np.array([[0, k] for k in range(1, 6)])
    huge = BinaryPairwiseMRF(star, [1e300] * 5, np.zeros(6))
    assert not lanes_apply(huge, systematic_scan(6, 12))
    assert run_gibbs(huge, systematic_scan(6, 12), seed=0, n_chains=16).states.shape == (16, 6)
    huge_pair = BinaryPairwiseMRF(np.array([[0, 1]]), [1e300], [0.0, 0.0])
    assert lanes_apply(huge_pair, systematic_scan(2, 4))
    assert np.all(run_gibbs(huge_pair, systematic_scan(2, 4), seed=0, n_chains=16, kernel="lanes").states == 1)


# ------------------------------------------------------------------ marginals against exact enumeration
# 3 models x 3 seeds x 4 record times x 9 sites = 324 comparisons, Bonferroni to 1e-4 overall (as in test_gibbs).
_SEEDS = (101, 202, 303)
_COMPARISONS = 3 * len(_SEEDS) * 4 * 9
_FALSE_FAILURE_RATE = 1e-4


@pytest.mark.parametrize("graph", ["open", "torus", "band"])
def test_lane_marginals_match_exact_enumeration(graph):
    """P(X_i^t = +1) from 40 000 independent lane-kernel chains vs the exact law of X^t, at three seeds: the 3 x 3
    grid and torus run the table kernel, a band graph of degree up to 6 the float32 kernel.

    Each count of ``+1`` is Binomial(40 000, P(X_i^t = +1)) up to the kernel's stated rounding (below 1e-6
    per update here, invisible beside the standard error ~2.5e-3); each two-sided exact binomial test runs
    at level ``1e-4 / 324``, so the false-failure rate of the three cases together is at most 1e-4. The scan is
    40 sweeps, each in its own random order (the lane kernel needs one scan shared by the chains); the last time is long enough
    that the exact law equals the stationary marginals of :func:`dogs.exact.enumeration.brute_force`.
    """
    rng = np.random.default_rng({"open": 18, "torus": 17, "band": 19}[graph])
    if graph == "band":
        model = _random_band_graph(9, (1, 2, 3), 1.0, rng, scale=0.4)
        assert slot_table(model.indptr, model.neighbors, model.coupling, model.h) is None  # the float32 kernel
    else:
        model = _random_grid(3, 3, graph == "torus", rng, coupling_scale=0.5, field_scale=0.3)
    p, n_chains = 9, 40_000
    scan = explicit_scan(np.concatenate([rng.permutation(p) for _ in range(40)]), p)  # 40 sweeps in random orders
    record_times = [1, 5, 3 * p, 40 * p]
    exact = _exact_law_over_time(model, scan.indices, np.ones(p), record_times)
    stationary = np.stack(brute_force(model).node_marginals)[:, 1]
    np.testing.assert_allclose(exact[record_times[-1]], stationary, atol=1e-6, rtol=0)
    level = _FALSE_FAILURE_RATE / _COMPARISONS
    for seed in _SEEDS:
        result = run_gibbs(model, scan, seed=seed, n_chains=n_chains, record_vars=np.arange(p),
                           record_times=record_times, kernel="lanes")
        counts = (result.recorded > 0).sum(axis=0)
        for r, t in enumerate(record_times):
            for i in range(p):
                prob = exact[t][i]
                if min(prob, 1 - prob) < 1e-12:
                    assert counts[r, i] == n_chains * round(prob)
                    continue
                pvalue = stats.binomtest(int(counts[r, i]), n_chains, prob).pvalue
                assert pvalue > level, f"seed {seed}, site {i} after {t} steps: {counts[r, i] / n_chains:.4f} vs {prob:.4f}"
