"""Gibbs sampler for binary pairwise MRFs: RNG, exact fast decision, kernel vs plain Python, marginals, input checks.

Statistical tests state their false-failure rate; every seed below was fixed
before the test was first run and never changed to make a test pass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy import stats

from dogs._kernels.gibbs import (
    MAX_PADDING_RATIO,
    THRESHOLD_BIN_BITS,
    field_thresholds,
    gibbs_chain,
    gibbs_chains,
    padded_neighbourhoods,
    seed_states,
    spin_from_field,
)
from dogs._kernels.rng import splitmix64_next, uniform_stream, xoshiro_next
from dogs.exact.enumeration import brute_force
from dogs.models import BinaryPairwiseMRF, grid_model
from dogs.models.binary import grid_edges
from dogs.samplers import GibbsResult, chain_seeds, run_gibbs
from dogs.samplers.gibbs import kernel_graph
from dogs.scans import Scan, explicit_scan, systematic_scan, uniform_scan

MASK64 = (1 << 64) - 1


# ------------------------------------------------------------------ plain-Python references
def _splitmix64_reference(counter: int) -> tuple[int, int]:
    counter = (counter + 0x9E3779B97F4A7C15) & MASK64
    z = counter
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31), counter


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


def _uniform_stream_reference(seed: int, n: int) -> list[float]:
    """xoshiro256** (Blackman & Vigna) seeded by splitmix64, top 53 bits -> [0, 1); Python integers."""
    counter, state = seed, []
    for _ in range(4):
        out, counter = _splitmix64_reference(counter)
        state.append(out)
    s0, s1, s2, s3 = state
    uniforms = []
    for _ in range(n):
        result = (_rotl((s1 * 5) & MASK64, 7) * 9) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        uniforms.append((result >> 11) * 2.0**-53)
    return uniforms


def _prob_plus_reference(doubled_field: float) -> float:
    """``1 / (1 + exp(-g))`` in plain Python, with C semantics on overflow (``exp -> inf``, result 0)."""
    try:
        e = math.exp(-doubled_field)
    except OverflowError:
        e = math.inf
    return 1.0 / (1.0 + e)


def gibbs_reference(model, scan_indices, seed, initial, record_vars=(), record_times=()):
    """One Gibbs chain in plain Python on the uniform stream of ``seed`` (the kernel's contract).

    Step ``t``: ``i = scan[t]``, or ``i = int(u' * p)`` for the next uniform ``u'`` when ``scan[t] == -1``;
    ``f = (h_i + sum_{k > i} theta_ik x_k) + sum_{k < i} theta_ik x_k``, each partial sum over the CSR slots of
    ``i`` in order; next uniform ``u``;
    ``x_i = +1 if u < 1 / (1 + exp(-2 f)) else -1``. Returns ``(final state, recordings)``.
    """
    scan_indices = [int(i) for i in scan_indices]
    p = model.n_vars
    n_uniforms = len(scan_indices) + sum(1 for i in scan_indices if i < 0)
    uniforms = [float(u) for u in uniform_stream(np.uint64(seed), n_uniforms)]
    indptr = [int(v) for v in model.indptr]
    neighbors = [int(v) for v in model.neighbors]
    coupling = [float(v) for v in model.coupling]
    h = [float(v) for v in model.h]
    x = [int(v) for v in initial]
    times, recordings, next_record, k = list(record_times), [], 0, 0
    for t in range(len(scan_indices) + 1):
        while next_record < len(times) and times[next_record] == t:
            recordings.append([x[v] for v in record_vars])
            next_record += 1
        if t == len(scan_indices):
            break
        i = scan_indices[t]
        if i < 0:
            i = int(uniforms[k] * p)
            k += 1
        lower, upper = 0.0, h[i]
        for slot in range(indptr[i], indptr[i + 1]):
            if neighbors[slot] < i:
                lower += coupling[slot] * x[neighbors[slot]]
            else:
                upper += coupling[slot] * x[neighbors[slot]]
        f = upper + lower
        u = uniforms[k]
        k += 1
        x[i] = 1 if u < _prob_plus_reference(2.0 * f) else -1
    return np.array(x, dtype=np.int8), np.array(recordings, dtype=np.int8).reshape(len(times), len(record_vars))


# ------------------------------------------------------------------ models used below
def _random_grid(rows, cols, torus, rng, coupling_scale=0.5, field_scale=0.3):
    n_edges = len(grid_edges(rows, cols, torus))
    return grid_model(
        rows,
        cols,
        rng.uniform(-coupling_scale, coupling_scale, n_edges),
        rng.uniform(-field_scale, field_scale, rows * cols),
        torus=torus,
    )


def _random_band_graph(p, offsets, keep, rng, scale=1.0, field=None):
    """Edges ``(i, i + d)`` for ``d`` in ``offsets``, each kept with probability ``keep``: bounded, irregular degrees."""
    edges = np.array([(i, i + d) for d in offsets for i in range(p - d)])
    edges = edges[rng.random(len(edges)) < keep]
    h = rng.normal(0, scale, p) if field is None else field
    return BinaryPairwiseMRF(edges, rng.normal(0, scale, len(edges)), h)


def _random_graph(p, n_edges, rng, scale):
    pairs = np.array([(i, j) for i in range(p) for j in range(i + 1, p)])
    edges = pairs[rng.choice(len(pairs), size=n_edges, replace=False)]
    return BinaryPairwiseMRF(edges, rng.normal(0, scale, n_edges), rng.normal(0, scale, p))


# ------------------------------------------------------------------ RNG
def test_splitmix64_and_xoshiro_match_published_values():
    # splitmix64 from 0: first output 0xE220A8397B1DCDAF; xoshiro256** from state (1, 2, 3, 4):
    # 11520, 0, 1509978240, 1215971899390074240 (reference C implementation of Blackman & Vigna).
    assert int(splitmix64_next(np.uint64(0))[0]) == 0xE220A8397B1DCDAF
    state = [np.uint64(v) for v in (1, 2, 3, 4)]
    outputs = []
    for _ in range(4):
        out, *state = xoshiro_next(*state)
        outputs.append(int(out))
    assert outputs == [11520, 0, 1509978240, 1215971899390074240]


@pytest.mark.parametrize("seed", [0, 1, 2**63 + 12345, 2**64 - 1])
def test_uniform_stream_matches_python_integers(seed):
    stream = uniform_stream(np.uint64(seed), 2000)
    assert stream.dtype == np.float64
    np.testing.assert_array_equal(stream, _uniform_stream_reference(seed, 2000))
    assert stream.min() >= 0.0 and stream.max() < 1.0


# ------------------------------------------------------------------ exact fast decision
@njit
def _spins_from_fields(doubled_fields, bits, low, high):
    out = np.empty(doubled_fields.size, dtype=np.int8)
    for n in range(doubled_fields.size):
        out[n] = spin_from_field(doubled_fields[n], bits[n], low, high)
    return out


def test_threshold_decision_equals_reference_rule_on_adversarial_inputs():
    """The table decision must give ``u < 1/(1+exp(-2f))`` exactly, including at the thresholds and the boundary."""
    rng = np.random.default_rng(20240601)
    low, high = field_thresholds()
    n_bins = 1 << THRESHOLD_BIN_BITS
    bits = list(rng.integers(0, 2**64, size=600, dtype=np.uint64))
    # draws at the bin edges and the extremes of [0, 1)
    for j in range(0, n_bins, 37):
        edge = j << (64 - THRESHOLD_BIN_BITS)
        bits += [np.uint64(edge), np.uint64((edge - (1 << 11)) & MASK64)]
    bits += [np.uint64(0), np.uint64(MASK64), np.uint64(1 << 11)]
    fields, draws = [], []
    for b in bits:
        u = (int(b) >> 11) * 2.0**-53
        j = int(b) >> (64 - THRESHOLD_BIN_BITS)
        centres = [low[j], high[j], 0.0]
        if 0.0 < u < 1.0:
            centres.append((math.log(u) - math.log1p(-u)) / 2)  # the exact boundary f = logit(u) / 2
        for c in centres:
            if not math.isfinite(c):
                continue
            f = c
            for _ in range(8):  # walk 8 ulps each way from the centre
                f = math.nextafter(f, math.inf)
                fields.append(f)
            f = c
            for _ in range(8):
                f = math.nextafter(f, -math.inf)
                fields.append(f)
            fields.append(c)
            draws += [b] * 17
        extremes = [math.inf, -math.inf, math.nan, 400.0, -400.0, 1e-300, -1e-300, 18.0, -18.0, 372.5, -372.5, 1e308, -1e308]
        fields += extremes
        draws += [b] * len(extremes)
    fields = np.array(fields)
    draws = np.array(draws, dtype=np.uint64)
    got = _spins_from_fields(fields, draws, low, high)
    want = [1 if (int(b) >> 11) * 2.0**-53 < _prob_plus_reference(2.0 * float(f)) else -1 for f, b in zip(fields, draws)]
    np.testing.assert_array_equal(got, want)


def test_threshold_tables_bracket_the_logit():
    low, high = field_thresholds()
    assert low[0] == -np.inf and high[-1] == np.inf
    assert np.all(low[1:] < high[:-1])  # neighbouring bins overlap by the margin
    assert np.all(np.diff(low) > 0) and np.all(np.diff(high) > 0)


# ------------------------------------------------------------------ kernel == plain Python, bit for bit
def _scan_cases(p, rng):
    n_steps = 700
    mixed = rng.integers(0, p, n_steps)
    mixed[rng.random(n_steps) < 0.4] = -1
    return {
        "systematic": systematic_scan(p, n_steps),
        "explicit": explicit_scan(rng.integers(0, p, n_steps), p),
        "uniform": uniform_scan(p, n_steps),
        "mixed": explicit_scan(mixed, p),
    }


@pytest.mark.parametrize("scan_name", ["systematic", "explicit", "uniform", "mixed"])
@pytest.mark.parametrize("n_chains", [1, 5])
def test_kernel_matches_plain_python_reference(scan_name, n_chains):
    rng = np.random.default_rng(1 + 10 * n_chains + len(scan_name))
    models = [
        _random_grid(3, 4, False, rng),
        _random_grid(3, 3, True, rng),
        _random_band_graph(20, (1, 2, 5), 0.8, rng),  # padded layout with irregular degrees
        _random_graph(7, 9, rng, scale=2.0),  # irregular degrees, strong couplings
        _random_graph(5, 6, rng, scale=300.0),  # |2 f| up to ~1e3: exp overflows on the fallback path
        BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), [], rng.normal(0, 1, 3)),  # no edges
    ]
    for model in models:
        p = model.n_vars
        scan = _scan_cases(p, rng)[scan_name]
        initial = rng.choice(np.array([-1, 1], dtype=np.int8), size=(n_chains, p))
        record_vars = [0, p - 1, 1]
        record_times = sorted([0, 1, 1, 17, p, 350, len(scan)])
        result = run_gibbs(
            model, scan, seed=99, n_chains=n_chains, initial_state=initial, record_vars=record_vars, record_times=record_times
        )
        assert result.states.shape == (n_chains, p) and result.states.dtype == np.int8
        assert result.recorded.shape == (n_chains, len(record_times), len(record_vars))
        assert result.site_updates == n_chains * len(scan)
        for c in range(n_chains):
            final, recorded = gibbs_reference(model, scan.indices, result.seeds[c], initial[c], record_vars, record_times)
            np.testing.assert_array_equal(result.states[c], final)
            np.testing.assert_array_equal(result.recorded[c], recorded)


def test_recording_at_zero_and_end_gives_initial_and_final_state():
    model = _random_grid(4, 4, False, np.random.default_rng(3))
    initial = np.where(np.arange(16) % 3 == 0, -1, 1)
    scan = uniform_scan(16, 200)
    result = run_gibbs(model, scan, seed=4, n_chains=3, initial_state=initial, record_vars=np.arange(16), record_times=[0, 200])
    np.testing.assert_array_equal(result.recorded[:, 0, :], np.broadcast_to(initial, (3, 16)))
    np.testing.assert_array_equal(result.recorded[:, 1, :], result.states)


def test_empty_scan_returns_initial_state():
    model = grid_model(2, 3, 0.3)
    result = run_gibbs(model, systematic_scan(6, 0), seed=0, n_chains=2, initial_state=-1)
    np.testing.assert_array_equal(result.states, -np.ones((2, 6)))
    assert result.site_updates == 0 and result.recorded is None


# ------------------------------------------------------------------ the two neighbourhood layouts
def _csr(model):
    return (model.indptr, model.neighbors, model.coupling.view(np.uint64))


_NEGATIVE_ZERO_BITS = np.float64(-0.0).view(np.uint64)


@pytest.mark.parametrize("case", ["grid", "chain", "band"])
def test_padded_table_holds_every_row_in_order_with_pads_outside(case):
    rng = np.random.default_rng(31)
    model = {
        "grid": _random_grid(5, 7, False, rng),
        "chain": _random_band_graph(9, (1,), 1.0, rng),
        "band": _random_band_graph(40, (1, 3, 4), 0.8, rng),
    }[case]
    table = padded_neighbourhoods(*_csr(model))
    width_lower, width_upper = table.dtype["lower"].shape[0], table.dtype["upper"].shape[0]
    bits = model.coupling.view(np.uint64)
    for i in range(model.n_vars):
        row = slice(model.indptr[i], model.indptr[i + 1])
        neighbours, coupling = model.neighbors[row], bits[row]
        below = neighbours < i
        pads_lower, pads_upper = width_lower - below.sum(), width_upper - (~below).sum()
        np.testing.assert_array_equal(table["lower"][i], np.r_[np.full(pads_lower, i), neighbours[below]])
        np.testing.assert_array_equal(table["lower_coupling"][i], np.r_[np.full(pads_lower, _NEGATIVE_ZERO_BITS), coupling[below]])
        np.testing.assert_array_equal(table["upper"][i], np.r_[neighbours[~below], np.full(pads_upper, i)])
        np.testing.assert_array_equal(table["upper_coupling"][i], np.r_[coupling[~below], np.full(pads_upper, _NEGATIVE_ZERO_BITS)])
    assert model.n_vars * (width_lower + width_upper) <= MAX_PADDING_RATIO * model.neighbors.size
    assert not table.flags.writeable


def test_layout_is_padded_for_bounded_degree_graphs_and_csr_otherwise():
    rng = np.random.default_rng(32)
    padded = [grid_model(30, 30, 0.2), _random_band_graph(50, (1,), 1.0, rng), _random_band_graph(60, (1, 2, 7), 0.9, rng)]
    csr = [
        grid_model(6, 6, 0.2, torus=True),  # the wrap-around edges give some sites 4 lower neighbours
        BinaryPairwiseMRF.dense(np.ones((8, 8)), np.zeros(8)),  # K_8: padding would double the slots
        BinaryPairwiseMRF(np.array([(0, k) for k in range(1, 30)]), 0.1, np.zeros(30)),  # star
        BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), [], np.zeros(4)),  # no edges
        BinaryPairwiseMRF(np.array([[0, 1]]), 0.2, np.zeros(2)),  # one edge: 4 padded slots for 2 stored
    ]
    for model in padded:
        assert isinstance(kernel_graph(model), np.ndarray)
        assert kernel_graph(model) is kernel_graph(model)  # built once per model
    for model in csr:
        graph = kernel_graph(model)
        assert isinstance(graph, tuple) and graph[0] is model.indptr


def test_layouts_give_identical_spins_over_long_runs_with_zero_sums():
    """The padded kernel against the CSR kernel, bit for bit, where zero partial sums and the fallback occur.

    Couplings and fields include ``+0.0`` and ``-0.0`` (so partial sums can be zeros of
    either sign, the case the padding argument of :mod:`dogs._kernels.gibbs` covers), and
    60 000 steps per run reach the reference-rule fallback about 100 times (``2 / 2^10`` of
    steps). Systematic (the dependency-breaking path), uniform, and mixed scans; one and
    several chains.
    """
    rng = np.random.default_rng(33)
    couplings = rng.choice([0.0, -0.0, 0.3, -0.7, 1.1], size=len(grid_edges(12, 12)))
    fields = rng.choice([0.0, -0.0, 0.2, -0.4], size=144)
    models = [
        grid_model(12, 12, couplings, fields),
        _random_band_graph(150, (1, 2, 9), 0.75, rng, scale=0.8, field=rng.choice([0.0, -0.0, 0.5], size=150)),
    ]
    low, high = field_thresholds()
    no_vars, no_records = np.zeros(0, dtype=np.int64), np.zeros((4, 0, 0), dtype=np.int8)
    for model in models:
        table = padded_neighbourhoods(*_csr(model))
        assert table is not None
        p, n_steps = model.n_vars, 60_000
        mixed = rng.integers(0, p, n_steps)
        mixed[rng.random(n_steps) < 0.3] = -1
        for indices in (systematic_scan(p, n_steps).indices, uniform_scan(p, n_steps).indices, mixed):
            start = rng.choice(np.array([-1, 1], dtype=np.int8), size=(4, p))
            states = seed_states(chain_seeds(rng.integers(2**32), 4))
            outputs = []
            for graph in (_csr(model), table):
                spins, rng_state = start[0].copy(), states[0].copy()
                gibbs_chain(graph, model.h, indices, spins, rng_state, low, high, no_vars, no_vars, no_records[0])
                all_spins, all_states = start.copy(), states.copy()
                gibbs_chains(graph, model.h, indices, all_spins, all_states, low, high, no_vars, no_vars, no_records)
                outputs.append((spins, rng_state, all_spins, all_states))
            for csr_output, padded_output in zip(*outputs):
                np.testing.assert_array_equal(csr_output, padded_output)


# ------------------------------------------------------------------ marginals against exact enumeration
def _all_states(p):
    codes = np.arange(2**p)[:, None] >> np.arange(p)[None, :] & 1
    return (2 * codes - 1).astype(np.float64)  # row s: spins of state s, bit i <-> site i


def _exact_law_over_time(model, scan_indices, initial, times):
    """Exact law of X^t (2^p states) at each of ``times``, propagating the start state through the scan's kernels."""
    p = model.n_vars
    states = _all_states(p)
    index_of_flip = np.arange(2**p)[:, None] ^ (1 << np.arange(p))[None, :]
    plus_prob = np.stack([model.conditional_plus(states, i) for i in range(p)], axis=1)  # (2^p, p)
    is_plus = states > 0

    def site_kernel(law, i):
        # mass moves to x_i = +1 with prob sigma(2 f_i), which ignores the current x_i
        same, flipped = law, law[index_of_flip[:, i]]
        target_plus = np.where(is_plus[:, i], plus_prob[:, i], 1 - plus_prob[:, i])
        return (same + flipped) * target_plus

    law = np.zeros(2**p)
    law[int(np.sum((np.asarray(initial) > 0) << np.arange(p)))] = 1.0
    out, t = {}, 0
    for stop in sorted(set(times)):
        for step in scan_indices[t:stop]:
            law = np.mean([site_kernel(law, i) for i in range(p)], axis=0) if step < 0 else site_kernel(law, step)
        t = stop
        out[stop] = law @ is_plus  # P(X_i^t = +1) for every site
    return out


# 2 models x 2 scans x 4 record times x 9 sites = 144 comparisons, Bonferroni to 1e-4 overall.
_MARGINAL_COMPARISONS = 2 * 2 * 4 * 9
_MARGINAL_FALSE_FAILURE_RATE = 1e-4


@pytest.mark.parametrize("torus", [False, True], ids=["open", "torus"])
@pytest.mark.parametrize("scan_name", ["systematic", "uniform"])
def test_marginals_match_exact_enumeration(torus, scan_name):
    """P(X_i^t = +1) estimated from independent chains vs the exact law of X^t and the exact stationary marginals.

    Chains are independent, so the count of ``+1`` at site ``i`` and time ``t`` is
    exactly Binomial(n_chains, P(X_i^t = +1)) with the exact transient law computed
    by enumeration; each two-sided exact binomial test runs at level
    ``1e-4 / 144`` (Bonferroni over all sites, times, models and scans of this test),
    so the overall false-failure rate of this test is at most 1e-4. With 40 000 chains
    the test detects an error of about 0.0125 in a marginal (5 standard errors);
    sampling with ``sigma(f)`` instead of ``sigma(2 f)`` is off by up to 0.12 here.
    At the last time the exact transient law equals the stationary marginals
    of :func:`dogs.exact.enumeration.brute_force` to 1e-6 (checked exactly; the standard error is ~2.5e-3), so the
    last comparison is against the target distribution itself.
    """
    rng = np.random.default_rng(7 if torus else 8)
    model = _random_grid(3, 3, torus, rng, coupling_scale=0.5, field_scale=0.3)
    n_sweeps, p, n_chains = 40, 9, 40_000
    scan = systematic_scan(p, n_sweeps * p) if scan_name == "systematic" else uniform_scan(p, n_sweeps * p)
    record_times = [1, 5, 3 * p, n_sweeps * p]
    result = run_gibbs(model, scan, seed=2024, n_chains=n_chains, record_vars=np.arange(p), record_times=record_times)
    exact = _exact_law_over_time(model, scan.indices, np.ones(p), record_times)
    stationary = np.stack(brute_force(model).node_marginals)[:, 1]
    np.testing.assert_allclose(exact[record_times[-1]], stationary, atol=1e-6, rtol=0)

    level = _MARGINAL_FALSE_FAILURE_RATE / _MARGINAL_COMPARISONS
    counts = (result.recorded > 0).sum(axis=0)  # (times, sites)
    for r, t in enumerate(record_times):
        for i in range(p):
            prob = exact[t][i]
            if min(prob, 1 - prob) < 1e-12:  # deterministic at early times (site not yet updated)
                assert counts[r, i] == n_chains * round(prob)
                continue
            pvalue = stats.binomtest(int(counts[r, i]), n_chains, prob).pvalue
            assert pvalue > level, f"site {i} after {t} steps: {counts[r, i] / n_chains:.4f} vs exact {prob:.4f}"


# ------------------------------------------------------------------ determinism and seeds
def test_same_seed_same_output_different_seeds_differ():
    model = _random_grid(10, 10, True, np.random.default_rng(11))
    scan = uniform_scan(100, 3000)
    kwargs = dict(n_chains=4, record_vars=[0, 50], record_times=[10, 1000, 3000])
    a = run_gibbs(model, scan, seed=5, **kwargs)
    b = run_gibbs(model, scan, seed=5, **kwargs)
    c = run_gibbs(model, scan, seed=6, **kwargs)
    np.testing.assert_array_equal(a.states, b.states)
    np.testing.assert_array_equal(a.recorded, b.recorded)
    np.testing.assert_array_equal(a.seeds, b.seeds)
    # 4 chains x 100 sites after 3000 random updates: identical states by chance has probability < 1e-30
    assert not np.array_equal(a.states, c.states)
    assert len(set(a.seeds.tolist())) == 4  # each chain its own stream
    assert not np.array_equal(a.states[0], a.states[1])


def test_seed_sequence_is_not_advanced_and_generator_is():
    model = grid_model(3, 3, 0.2)
    scan = uniform_scan(9, 500)
    root = np.random.SeedSequence(123)
    first = run_gibbs(model, scan, seed=root, n_chains=3)
    second = run_gibbs(model, scan, seed=root, n_chains=3)
    np.testing.assert_array_equal(first.seeds, second.seeds)
    assert root.n_children_spawned == 0
    np.testing.assert_array_equal(chain_seeds(123, 3), first.seeds)  # int seed == SeedSequence(int)
    expected = [child.generate_state(1, np.uint64)[0] for child in np.random.SeedSequence(123).spawn(3)]
    np.testing.assert_array_equal(first.seeds, expected)
    generator = np.random.default_rng(0)
    assert not np.array_equal(chain_seeds(generator, 2), chain_seeds(generator, 2))
    np.testing.assert_array_equal(chain_seeds(np.random.default_rng(0), 2), chain_seeds(np.random.default_rng(0), 2))


def test_result_type():
    result = run_gibbs(grid_model(2, 2, 0.1), systematic_scan(4, 8), seed=0)
    assert isinstance(result, GibbsResult) and result.n_chains == 1 and result.seeds.dtype == np.uint64


# ------------------------------------------------------------------ bad input
_MODEL = grid_model(3, 3, 0.2)
_SCAN = systematic_scan(9, 18)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(model="grid"), TypeError, "model"),
        (dict(scan=np.arange(9)), TypeError, "scan"),
        (dict(scan=systematic_scan(8, 16)), ValueError, "n_vars"),
        (dict(n_chains=0), ValueError, "n_chains"),
        (dict(n_chains=-3), ValueError, "n_chains"),
        (dict(n_chains=2.0), TypeError, "n_chains"),
        (dict(n_chains=True), TypeError, "n_chains"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=1.5), TypeError, "seed"),
        (dict(seed=None), TypeError, "seed"),
        (dict(initial_state=0), ValueError, "initial_state"),
        (dict(initial_state=np.array([1, 0, 1, 1, 1, 1, 1, 1, 1])), ValueError, "initial_state"),
        (dict(initial_state=np.full(9, 2)), ValueError, "initial_state"),
        (dict(initial_state=np.ones(8)), ValueError, "initial_state"),
        (dict(initial_state=np.ones((3, 9))), ValueError, "initial_state"),  # n_chains is 2
        (dict(initial_state=np.ones(9, dtype=bool)), TypeError, "initial_state"),
        (dict(initial_state="+1"), TypeError, "initial_state"),
        (dict(initial_state=np.full(9, np.nan)), ValueError, "initial_state"),
        (dict(record_vars=[0]), ValueError, "record_times"),
        (dict(record_times=[3]), ValueError, "record_vars"),
        (dict(record_vars=[9], record_times=[3]), ValueError, "record_vars"),
        (dict(record_vars=[-1], record_times=[3]), ValueError, "record_vars"),
        (dict(record_vars=[0.5], record_times=[3]), TypeError, "record_vars"),
        (dict(record_vars=[0], record_times=[19]), ValueError, "record_times"),
        (dict(record_vars=[0], record_times=[-1]), ValueError, "record_times"),
        (dict(record_vars=[0], record_times=[5, 3]), ValueError, "non-decreasing"),
        (dict(record_vars=[[0, 1]], record_times=[3]), ValueError, "record_vars"),
    ],
)
def test_bad_input_raises_clear_errors(kwargs, error, match):
    call = dict(model=_MODEL, scan=_SCAN, seed=0, n_chains=2)
    call.update(kwargs)
    model, scan = call.pop("model"), call.pop("scan")
    with pytest.raises(error, match=match):
        run_gibbs(model, scan, **call)


def test_seed_is_required():
    with pytest.raises(TypeError, match="seed"):
        run_gibbs(_MODEL, _SCAN)  # no hidden randomness


def test_scan_of_other_model_size_rejected_even_if_indices_fit():
    scan = Scan(np.zeros(5, dtype=np.int64), 20)
    with pytest.raises(ValueError, match="n_vars = 20"):
        run_gibbs(_MODEL, scan, seed=0)


@pytest.mark.parametrize("root", [
    np.random.SeedSequence(0),
    np.random.SeedSequence(20170806, spawn_key=(123456789, 3, 2**40 + 5)),  # multi-word key parts
    np.random.SeedSequence(2**100 + 7),                                     # multi-word entropy
    np.random.SeedSequence([1, 2, 3, 4, 5, 6], spawn_key=(7,)),             # entropy longer than the pool
    np.random.SeedSequence(),                                               # fresh OS entropy
])
def test_vectorised_chain_seeds_are_numpys_spawned_seeds(root):
    """chain_seeds hashes every child at once; it must give numpy's SeedSequence.spawn(...) words exactly, so that
    results stay reproducible across the change and across numpy's own implementation."""
    from dogs.samplers.base import _spawned_first_words

    def fresh():
        return np.random.SeedSequence(entropy=root.entropy, spawn_key=root.spawn_key)

    expected = np.array([c.generate_state(1, np.uint64)[0] for c in fresh().spawn(257)], dtype=np.uint64)
    fast = _spawned_first_words(fresh(), 257)
    assert fast is not None and np.array_equal(fast, expected)
    np.testing.assert_array_equal(chain_seeds(fresh(), 257), expected)
    for n in (1, 19, 20):  # numpy's loop below the threshold, the array version from it on: the same words
        np.testing.assert_array_equal(chain_seeds(fresh(), n), expected[:n])
    spawned = fresh()
    spawned.spawn(2)  # a root that already spawned children is left to numpy (it starts at child 2)
    assert _spawned_first_words(spawned, 3) is None


@pytest.mark.parametrize("root", [
    np.random.SeedSequence(20170806, spawn_key=(123456789, 3, 2**40 + 5)),
    np.random.SeedSequence(2**100 + 7),
    np.random.SeedSequence([1, 2, 3, 4, 5, 6], spawn_key=(7,)),
    np.random.SeedSequence(5, pool_size=8),  # not numpy's default pool: numpy's path
])
@pytest.mark.parametrize("suffix", [(), (4,), (2**33 + 1, 0)])
def test_spawned_chain_seeds_are_numpys(root, suffix):
    """spawned_chain_seeds hashes every child's descendant at once: the words chain_seeds gives each of them."""
    from dogs.samplers.base import spawned_chain_seeds

    expected = [chain_seeds(np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, c, *suffix)), 1)[0]
                for c in range(23)]
    np.testing.assert_array_equal(spawned_chain_seeds(root, 23, suffix), np.array(expected, dtype=np.uint64))
    if not suffix:  # the children of a fresh root's spawn(), as chain_seeds seeds each
        children = np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key, pool_size=root.pool_size).spawn(23)
        if root.pool_size == np.random.SeedSequence(0).pool_size:
            np.testing.assert_array_equal(spawned_chain_seeds(root, 23), [chain_seeds(c, 1)[0] for c in children])
