"""Gibbs sampler for discrete pairwise MRFs (Potts): kernel vs plain Python, marginals, binary case, input checks.

Statistical tests state their false-failure rate; every seed below was fixed
before the test was first run and never changed to make a test pass.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from numba import njit
from scipy import stats
from scipy.special import logsumexp

from dogs._kernels.discrete_gibbs import TINY, label_from_cumulative
from dogs._kernels.rng import uniform_stream
from dogs.exact.enumeration import brute_force
from dogs.models import BinaryPairwiseMRF, DiscretePairwiseMRF, grid_edges, grid_model
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.discrete_gibbs import DiscreteGibbsResult, most_frequent_labels, run_discrete_gibbs
from dogs.scans import Scan, explicit_scan, systematic_scan, uniform_scan

SIGMA = 0.48  # the Potts coupling of the MSRC experiment (DoGS §5.5)


# ------------------------------------------------------------------ plain-Python reference
def _row_exp(values):
    """``exp(v - max v)`` with Python floats (the C library's ``exp``, as in the kernels)."""
    peak = max(values)
    return [math.exp(v - peak) for v in values]


def _label(cumulative, u):
    total = cumulative[-1]
    target = u * total
    label = sum(1 for c in cumulative if c <= target)
    if label == len(cumulative):
        label = sum(1 for c in cumulative if c < total)
    return label


def discrete_gibbs_reference(model, scan_indices, seed, initial, record_vars=(), record_times=(), count_from=0):
    """One chain in plain Python on the uniform stream of ``seed`` (the rule of :mod:`dogs._kernels.discrete_gibbs`).

    Step ``t``: ``i = scan[t]``, or ``i = int(u' * p)`` for the next uniform ``u'`` when ``scan[t] == -1``.
    Weights ``w_k = a_i(k) * prod_slots b(k, x_j)`` with ``a_i = exp(phi_i - max phi_i)`` and
    ``b(., y) = exp(theta(., y) - max theta(., y))`` (slots in CSR order); cumulative sums ``c``; if
    ``c[-1] < 2**-600`` the weights are redone as ``exp(l - max l)`` from the log conditional ``l``.
    Next uniform ``u``; the label is ``#{k : c_k <= u c[-1]}``. Everything is built from the model
    (``pair_table``), not from the kernel's packed arrays. Returns
    ``(state, recordings, counts (p, Kmax), evaluations, fallbacks)``.
    """
    scan_indices = [int(i) for i in scan_indices]
    p = model.n_vars
    card = [int(k) for k in model.cardinalities]
    k_max = max(card)
    n_uniforms = len(scan_indices) + sum(1 for i in scan_indices if i < 0)
    uniforms = [float(u) for u in uniform_stream(np.uint64(seed), n_uniforms)]
    unary = [[float(v) for v in phi] for phi in model.unary]
    slots = [
        [(int(model.neighbors[s]), model.pair_table(i, s).tolist()) for s in range(model.indptr[i], model.indptr[i + 1])]
        for i in range(p)
    ]  # per site: (neighbour j, table[x_i][x_j])
    a = [_row_exp(phi) for phi in unary]
    x = [int(v) for v in initial]
    counts = np.zeros((p, k_max), dtype=np.int64)
    times, recordings, next_record, n, evaluations, fallbacks = list(record_times), [], 0, 0, 0, 0
    for t in range(len(scan_indices) + 1):
        while next_record < len(times) and times[next_record] == t:
            recordings.append([x[v] for v in record_vars])
            next_record += 1
        if t == len(scan_indices):
            break
        i = scan_indices[t]
        if i < 0:
            i = int(uniforms[n] * p)
            n += 1
        K = card[i]
        w = list(a[i])
        for j, table in slots[i]:
            column = _row_exp([table[k][x[j]] for k in range(K)])
            for k in range(K):
                w[k] *= column[k]
        cumulative, acc = [], 0.0
        for k in range(K):
            acc += w[k]
            cumulative.append(acc)
        if acc < 2.0**-600:
            fallbacks += 1
            logits = list(unary[i])
            for j, table in slots[i]:
                for k in range(K):
                    logits[k] += table[k][x[j]]
            cumulative, acc = [], 0.0
            for value in _row_exp(logits):
                acc += value
                cumulative.append(acc)
        u = uniforms[n]
        n += 1
        x[i] = _label(cumulative, u)
        evaluations += K - 1
        if t >= count_from:
            counts[i, x[i]] += 1
    recorded = np.array(recordings, dtype=np.int32).reshape(len(times), len(record_vars))
    return np.array(x, dtype=np.int32), recorded, counts, evaluations, fallbacks


# ------------------------------------------------------------------ models used below
def _potts_grid(rows, cols, n_states, rng, unary_scale=1.0, sigma=SIGMA):
    unary = rng.normal(0.0, unary_scale, (rows * cols, n_states))
    return DiscretePairwiseMRF.potts(grid_edges(rows, cols), n_states, sigma, unary, shape=(rows, cols))


def _random_discrete(cardinalities, edges, rng, scale):
    card = np.asarray(cardinalities)
    unary = [rng.normal(0.0, scale, k) for k in card]
    tables = [rng.normal(0.0, scale, (card[i], card[j])) for i, j in edges]
    return DiscretePairwiseMRF(card, unary, edges, tables)


def _random_graph_edges(p, n_edges, rng):
    pairs = np.array([(i, j) for i in range(p) for j in range(i + 1, p)])
    edges = pairs[rng.choice(len(pairs), size=n_edges, replace=False)]
    flip = rng.random(n_edges) < 0.5  # some given as (j, i): the model transposes their tables
    edges[flip] = edges[flip][:, ::-1]
    return edges


def _conflict_model():
    """Two neighbours pull site 0 to opposite labels with weight e^-500 each: only the log-domain rule is exact."""
    edges = np.array([[0, 1], [0, 2]])
    table_a = np.array([[0.0, 0.0], [-500.0, -500.0]])  # theta(x_0 = 1, .) = -500
    table_b = np.array([[-500.0, -500.0, -500.0], [0.0, 0.0, 0.0]])  # theta(x_0 = 0, .) = -500
    return DiscretePairwiseMRF(np.array([2, 2, 3]), [np.zeros(2), np.zeros(2), np.zeros(3)], edges, [table_a, table_b])


def _reference_models(rng):
    mixed_card = rng.integers(2, 6, 7)
    return {
        "potts_grid": _potts_grid(3, 4, 5, rng),
        "potts_shared_table_symmetric": _potts_grid(2, 3, 21, rng, unary_scale=2.0),
        "mixed_cardinalities": _random_discrete(mixed_card, _random_graph_edges(7, 10, rng), rng, scale=1.5),
        "huge_potentials": _random_discrete(rng.integers(2, 5, 6), _random_graph_edges(6, 9, rng), rng, scale=300.0),
        "conflict": _conflict_model(),
        "no_edges": DiscretePairwiseMRF(np.array([3, 2, 4]), [rng.normal(0, 1, k) for k in (3, 2, 4)], np.zeros((0, 2)), []),
    }


def _scan_cases(p, rng):
    n_steps = 600
    mixed = rng.integers(0, p, n_steps)
    mixed[rng.random(n_steps) < 0.4] = -1
    return {
        "systematic": systematic_scan(p, n_steps),
        "explicit": explicit_scan(rng.integers(0, p, n_steps), p),
        "uniform": uniform_scan(p, n_steps),
        "mixed": explicit_scan(mixed, p),
    }


def _random_initial(model, n_chains, rng):
    return np.stack([rng.integers(0, model.cardinalities) for _ in range(n_chains)]).astype(np.int64)


# ------------------------------------------------------------------ (a) kernel == plain Python, bit for bit
@pytest.mark.parametrize("scan_name", ["systematic", "explicit", "uniform", "mixed"])
@pytest.mark.parametrize("n_chains", [1, 4])
def test_kernel_matches_plain_python_reference(scan_name, n_chains):
    rng = np.random.default_rng(3 + 10 * n_chains + len(scan_name))
    fallbacks = 0
    for name, model in _reference_models(rng).items():
        p = model.n_vars
        scan = _scan_cases(p, rng)[scan_name]
        initial = _random_initial(model, n_chains, rng)
        record_vars = [0, p - 1, 1]
        record_times = sorted([0, 1, 1, 17, p, 350, len(scan)])
        count_from = 100
        result = run_discrete_gibbs(
            model, scan, seed=77, n_chains=n_chains, initial_state=initial, record_vars=record_vars,
            record_times=record_times, count_labels=True, count_from=count_from,
        )  # fmt: skip
        k_max = int(model.cardinalities.max())
        assert result.states.shape == (n_chains, p) and result.states.dtype == np.int32
        assert result.recorded.shape == (n_chains, len(record_times), len(record_vars))
        assert result.label_counts.shape == (n_chains, p, k_max)
        total_evaluations = 0
        for c in range(n_chains):
            final, recorded, counts, evaluations, n_fallbacks = discrete_gibbs_reference(
                model, scan.indices, result.seeds[c], initial[c], record_vars, record_times, count_from
            )
            np.testing.assert_array_equal(result.states[c], final, err_msg=name)
            np.testing.assert_array_equal(result.recorded[c], recorded, err_msg=name)
            np.testing.assert_array_equal(result.label_counts[c], counts, err_msg=name)
            total_evaluations += evaluations
            fallbacks += n_fallbacks
        assert result.work == Work(n_chains * len(scan), total_evaluations), name
    assert fallbacks > 0  # the log-domain branch was exercised (conflict and huge-potential models)


@njit
def _labels_from(cumulatives, n_states, uniforms):
    out = np.empty(uniforms.size, dtype=np.int64)
    for n in range(uniforms.size):
        out[n] = label_from_cumulative(cumulatives[n], n_states, uniforms[n])
    return out


def test_inverse_cdf_rule_at_the_edges():
    """Ties at the cumulative sums, zero weights, and the guard for ``u * W == W`` (unreachable for ``u < 1``)."""
    cumulative = np.array([0.25, 0.25, 0.75, 1.0, 1.0])  # weights .25, 0, .5, .25, 0
    uniforms = np.array([0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999, 1.0 - 2.0**-53, 1.0])
    got = _labels_from(np.tile(cumulative, (uniforms.size, 1)), 5, uniforms)
    # u = 1.0 (outside the stream's range) exercises the guard: the last label of positive weight
    np.testing.assert_array_equal(got, [0, 0, 2, 2, 3, 3, 3, 3])
    assert [_label(list(cumulative), float(u)) for u in uniforms] == got.tolist()
    # u * W < W for every u < 1 and every W > 0 in round-to-nearest: the guard never fires in sampling
    rng = np.random.default_rng(5)
    for total in np.concatenate([rng.uniform(1e-300, 1e300, 1000), 2.0 ** np.arange(-600, 600, 7.0), [TINY, 1.0, 21.0]]):
        assert (1.0 - 2.0**-53) * total < total


def test_recording_and_counts_bookkeeping():
    rng = np.random.default_rng(12)
    model = _potts_grid(4, 4, 6, rng)
    initial = rng.integers(0, 6, 16)
    scan = uniform_scan(16, 400)
    result = run_discrete_gibbs(
        model, scan, seed=4, n_chains=3, initial_state=initial, record_vars=np.arange(16), record_times=[0, 400],
        count_labels=True, count_from=150,
    )  # fmt: skip
    np.testing.assert_array_equal(result.recorded[:, 0, :], np.broadcast_to(initial, (3, 16)))
    np.testing.assert_array_equal(result.recorded[:, 1, :], result.states)
    np.testing.assert_array_equal(result.label_counts.sum(axis=(1, 2)), [250, 250, 250])
    assert result.count_from == 150


def test_empty_scan_returns_initial_state():
    model = _potts_grid(2, 3, 4, np.random.default_rng(0))
    result = run_discrete_gibbs(model, systematic_scan(6, 0), seed=0, n_chains=2, initial_state=3, count_labels=True)
    np.testing.assert_array_equal(result.states, np.full((2, 6), 3))
    assert result.work == Work(0, 0) and result.recorded is None
    assert np.all(result.label_counts == 0)
    np.testing.assert_array_equal(most_frequent_labels(result), np.full((2, 6), -1))


def test_identical_tables_are_stored_once():
    from dogs.samplers.discrete_gibbs import _pack

    model = _potts_grid(10, 10, 21, np.random.default_rng(1))
    card, log_unary, exp_unary, slot_offset, log_tables, exp_tables = _pack(model)
    assert log_tables.size == 21 * 21  # sigma * I is symmetric: one block serves both orientations
    asymmetric = _random_discrete([2, 3, 4], np.array([[0, 1], [1, 2]]), np.random.default_rng(2), 1.0)
    *_, log_tables, _ = _pack(asymmetric)
    assert log_tables.size == 2 * (6 + 12)  # distinct tables: both orientations of each


# ------------------------------------------------------------------ (b) marginals against exact enumeration
def _log_potential_tensor(model):
    card = tuple(int(k) for k in model.cardinalities)
    states = np.indices(card).reshape(len(card), -1).T
    return model.log_potential(states).reshape(card)


def _exact_law_over_time(model, scan_indices, initial, times):
    """Exact law of X^t at each of ``times`` (dense tensor over all joint states), from the point mass at ``initial``.

    The kernel of a step at site ``i`` sums the law over axis ``i`` and multiplies by the full
    conditional ``pi(x_i | x_{-i}) = exp(L - logsumexp_i L)``; a uniform step averages the ``p`` kernels.
    Returns ``{t: [P(X_i^t = .) for every i]}``.
    """
    log_pot = _log_potential_tensor(model)
    p = log_pot.ndim
    conditionals = [np.exp(log_pot - logsumexp(log_pot, axis=i, keepdims=True)) for i in range(p)]

    def site_kernel(law, i):
        return law.sum(axis=i, keepdims=True) * conditionals[i]

    law = np.zeros(log_pot.shape)
    law[tuple(int(v) for v in initial)] = 1.0
    out, t = {}, 0
    for stop in sorted(set(times)):
        for step in scan_indices[t:stop]:
            law = np.mean([site_kernel(law, i) for i in range(p)], axis=0) if step < 0 else site_kernel(law, step)
        t = stop
        out[stop] = [law.sum(axis=tuple(a for a in range(p) if a != i)) for i in range(p)]
    return out


_MIXED_CARDINALITIES = np.array([2, 3, 4, 3, 2, 3, 4, 3, 2])


def _marginal_model(name):
    rng = np.random.default_rng({"potts": 31, "mixed": 32}[name])
    if name == "potts":
        return _potts_grid(3, 3, 3, rng, unary_scale=1.0)
    return _random_discrete(_MIXED_CARDINALITIES, grid_edges(3, 3), rng, scale=0.5)


# (27 + 26) (site, label) cells x 4 record times x 2 scans = 424 comparisons, Bonferroni to 1e-4 overall.
_MARGINAL_COMPARISONS = (9 * 3 + int(_MIXED_CARDINALITIES.sum())) * 4 * 2
_MARGINAL_FALSE_FAILURE_RATE = 1e-4


def _check_binomial(count, n, prob, level, where):
    if min(prob, 1 - prob) < 1e-12:  # deterministic (e.g. site not yet updated)
        assert count == n * round(prob), where
        return
    pvalue = stats.binomtest(int(count), n, prob).pvalue
    assert pvalue > level, f"{where}: {count / n:.4f} vs exact {prob:.4f} (p-value {pvalue:.2g})"


@pytest.mark.parametrize("model_name", ["potts", "mixed"])
@pytest.mark.parametrize("scan_name", ["systematic", "uniform"])
def test_marginals_match_exact_enumeration(model_name, scan_name):
    """P(X_i^t = k) from independent chains vs the exact transient law and the exact stationary marginals.

    Chains are independent, so the number of chains with ``X_i^t = k`` is exactly
    Binomial(n_chains, P(X_i^t = k)), with the transient law computed exactly by
    propagating the start state through the scan's kernels over all joint states.
    Each two-sided exact binomial test runs at level ``1e-4 / 424`` (Bonferroni over
    all labels, sites, times, models and scans of this test), so the overall
    false-failure rate of the test is at most 1e-4. With 40 000 chains an error of
    about 0.012 in a marginal is detected (5 standard errors). At the last time the
    exact transient law equals the stationary marginals of
    :func:`dogs.exact.enumeration.brute_force` to 1e-6 (checked exactly), so the last
    comparison is against the target distribution itself.
    """
    model = _marginal_model(model_name)
    n_sweeps, p, n_chains = 30, 9, 40_000
    scan = systematic_scan(p, n_sweeps * p) if scan_name == "systematic" else uniform_scan(p, n_sweeps * p)
    record_times = [1, 5, 3 * p, n_sweeps * p]
    result = run_discrete_gibbs(
        model, scan, seed=2025, n_chains=n_chains, initial_state=0, record_vars=np.arange(p), record_times=record_times
    )
    exact = _exact_law_over_time(model, scan.indices, np.zeros(p, dtype=int), record_times)
    stationary = brute_force(model).node_marginals
    for i in range(p):
        np.testing.assert_allclose(exact[record_times[-1]][i], stationary[i], atol=1e-6, rtol=0)

    level = _MARGINAL_FALSE_FAILURE_RATE / _MARGINAL_COMPARISONS
    for r, t in enumerate(record_times):
        for i in range(p):
            counts = np.bincount(result.recorded[:, r, i], minlength=model.cardinalities[i])
            assert counts.size == model.cardinalities[i]  # no label out of range
            for k in range(model.cardinalities[i]):
                _check_binomial(counts[k], n_chains, exact[t][i][k], level, f"site {i} label {k} after {t} steps")


def test_label_counts_estimate_marginals_of_one_long_chain():
    """Label frequencies of one long systematic chain approach the exact marginals (a loose consistency check).

    Not a calibrated test: 200 000 sweeps of a 3x3 Potts model with K = 3 give frequencies
    within ~0.003 of the marginals (autocorrelated draws); the tolerance 0.02 is > 6 times that.
    """
    model = _marginal_model("potts")
    result = run_discrete_gibbs(model, systematic_scan(9, 9 * 200_000), seed=8, initial_state=0, count_labels=True, count_from=900)
    frequencies = result.label_counts[0] / result.label_counts[0].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(frequencies, np.stack(brute_force(model).node_marginals), atol=0.02)
    modes = most_frequent_labels(result)
    np.testing.assert_array_equal(modes[0], np.argmax(result.label_counts[0], axis=1))


# ------------------------------------------------------------------ (c) a binary model as a 2-state discrete model
_BINARY_COMPARISONS = 9 * 2
_BINARY_FALSE_FAILURE_RATE = 1e-4


def test_binary_model_as_two_state_model_has_the_exact_binary_marginals():
    """``BinaryPairwiseMRF.to_discrete()`` sampled with this sampler vs the exact marginals of the binary model.

    40 sweeps from the all-(-1) state (label 0) of a 3x3 grid with couplings and fields up to 0.5;
    the exact transient law of the 2-state model after 40 sweeps equals the exact
    binary marginals ``P(x_i = +1)`` to 1e-6 (checked), so the count of label 1 is
    Binomial(40 000, P(x_i = +1)) up to that error. 9 sites x 2 scans = 18 exact binomial tests
    at level ``1e-4 / 18`` each: overall false-failure rate at most 1e-4.
    """
    rng = np.random.default_rng(41)
    edges = grid_edges(3, 3)
    binary = grid_model(3, 3, rng.uniform(-0.5, 0.5, len(edges)), rng.uniform(-0.5, 0.5, 9))
    exact_plus = np.array([m[1] for m in brute_force(binary).node_marginals])  # state 1 = spin +1
    discrete = binary.to_discrete()
    n_chains, p, n_sweeps = 40_000, 9, 40
    level = _BINARY_FALSE_FAILURE_RATE / _BINARY_COMPARISONS
    for scan in (systematic_scan(p, n_sweeps * p), uniform_scan(p, n_sweeps * p)):
        law = _exact_law_over_time(discrete, scan.indices, np.zeros(p, dtype=int), [len(scan)])[len(scan)]
        np.testing.assert_allclose([m[1] for m in law], exact_plus, atol=1e-6, rtol=0)
        result = run_discrete_gibbs(discrete, scan, seed=17, n_chains=n_chains, initial_state=0)
        plus = (result.states == 1).sum(axis=0)
        for i in range(p):
            _check_binomial(plus[i], n_chains, exact_plus[i], level, f"site {i}")


# ------------------------------------------------------------------ (e) determinism, seeds, threads
def test_same_seed_same_output_different_seeds_differ():
    model = _potts_grid(10, 10, 21, np.random.default_rng(11))
    scan = uniform_scan(100, 3000)
    kwargs = dict(n_chains=4, initial_state=0, record_vars=[0, 50], record_times=[10, 1000, 3000], count_labels=True)
    a = run_discrete_gibbs(model, scan, seed=5, **kwargs)
    b = run_discrete_gibbs(model, scan, seed=5, **kwargs)
    c = run_discrete_gibbs(model, scan, seed=6, **kwargs)
    for field in ("states", "recorded", "label_counts", "seeds"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.work == b.work
    # 4 chains x 100 sites with 21 labels after 3000 random updates: equal by chance has probability < 1e-30
    assert not np.array_equal(a.states, c.states)
    assert len(set(a.seeds.tolist())) == 4
    assert not np.array_equal(a.states[0], a.states[1])
    np.testing.assert_array_equal(a.seeds, chain_seeds(5, 4))


def test_thread_count_and_single_chain_path_do_not_change_the_output():
    model = _random_discrete(
        np.random.default_rng(13).integers(2, 8, 36), grid_edges(6, 6), np.random.default_rng(14), scale=1.0
    )
    scan = explicit_scan(np.where(np.arange(2000) % 3 == 0, -1, np.arange(2000) % 36), 36)
    kwargs = dict(seed=np.random.SeedSequence(99), n_chains=7, initial_state=1, record_vars=[3, 4], record_times=[0, 999, 2000], count_labels=True)
    default_threads = numba.get_num_threads()
    outputs = []
    try:
        for threads in sorted({1, default_threads}):
            numba.set_num_threads(threads)
            outputs.append(run_discrete_gibbs(model, scan, **kwargs))
    finally:
        numba.set_num_threads(default_threads)
    for other in outputs[1:]:
        for field in ("states", "recorded", "label_counts"):
            np.testing.assert_array_equal(getattr(outputs[0], field), getattr(other, field))
        assert outputs[0].work == other.work
    # chain c of a multi-chain run (prange kernel) == a one-chain run (serial kernel) from the same stream:
    # child 0 of SeedSequence(99).spawn(n) does not depend on n
    single = run_discrete_gibbs(model, scan, **{**kwargs, "n_chains": 1})
    np.testing.assert_array_equal(single.states[0], outputs[0].states[0])
    np.testing.assert_array_equal(single.label_counts[0], outputs[0].label_counts[0])


def test_result_type_and_most_frequent_labels():
    counts = np.zeros((2, 3, 4), dtype=np.int64)
    counts[0] = [[0, 5, 5, 0], [1, 0, 0, 7], [0, 0, 0, 0]]
    counts[1] = [[0, 0, 9, 0], [8, 0, 0, 0], [0, 3, 0, 0]]
    result = DiscreteGibbsResult(
        states=np.zeros((2, 3), dtype=np.int32), recorded=None, record_vars=None, record_times=None,
        label_counts=counts, count_from=0, work=Work(0, 0), seeds=np.zeros(2, dtype=np.uint64),
    )  # fmt: skip
    np.testing.assert_array_equal(most_frequent_labels(result), [[1, 3, -1], [2, 0, 1]])  # ties -> smaller label
    np.testing.assert_array_equal(most_frequent_labels(result, pool_chains=True), [2, 0, 1])
    assert result.n_chains == 2 and result.site_updates == 0
    plain = run_discrete_gibbs(_potts_grid(2, 2, 3, np.random.default_rng(0)), systematic_scan(4, 8), seed=0, initial_state=0)
    assert isinstance(plain, DiscreteGibbsResult) and plain.label_counts is None and plain.seeds.dtype == np.uint64
    with pytest.raises(ValueError, match="count_labels=True"):
        most_frequent_labels(plain)
    with pytest.raises(TypeError, match="DiscreteGibbsResult"):
        most_frequent_labels(counts)


# ------------------------------------------------------------------ (f) work counts
def test_work_counts_density_evaluations_per_update():
    card = np.array([2, 5, 3, 21])
    model = _random_discrete(card, np.array([[0, 1], [1, 2], [2, 3], [0, 3]]), np.random.default_rng(6), 1.0)
    indices = np.array([0, 1, 2, 3, 3, 3, 1])
    result = run_discrete_gibbs(model, explicit_scan(indices, 4), seed=0, n_chains=5, initial_state=0)
    assert result.work == Work(5 * 7, 5 * int((card[indices] - 1).sum()))  # 5 * (1 + 4 + 2 + 20*3 + 4)
    assert result.work.density_evaluations == 5 * 71
    # uniform steps: the evaluations follow the drawn sites, replayed by the reference
    scan = uniform_scan(4, 500)
    result = run_discrete_gibbs(model, scan, seed=3, n_chains=3, initial_state=0)
    expected = sum(discrete_gibbs_reference(model, scan.indices, s, np.zeros(4, dtype=int))[3] for s in result.seeds)
    assert result.work == Work(3 * 500, expected)
    # a Potts grid with K = 21 on a systematic scan: 20 evaluations per update
    potts = _potts_grid(3, 3, 21, np.random.default_rng(0))
    assert run_discrete_gibbs(potts, systematic_scan(9, 90), seed=0, n_chains=2, initial_state=0).work == Work(180, 3600)


# ------------------------------------------------------------------ (d) bad input
_MODEL = DiscretePairwiseMRF.potts(grid_edges(3, 3), 3, SIGMA, np.zeros((9, 3)))
_SMALL_FIRST = DiscretePairwiseMRF(np.array([2, 4]), [np.zeros(2), np.zeros(4)], np.array([[0, 1]]), [np.zeros((2, 4))])
_SCAN = systematic_scan(9, 18)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(model="grid"), TypeError, "model"),
        (dict(model=grid_model(3, 3, 0.2)), TypeError, "to_discrete"),
        (dict(scan=np.arange(9)), TypeError, "scan"),
        (dict(scan=systematic_scan(8, 16)), ValueError, "n_vars"),
        (dict(scan=Scan(np.zeros(5, dtype=np.int64), 20)), ValueError, "n_vars = 20"),
        (dict(n_chains=0), ValueError, "n_chains"),
        (dict(n_chains=2.0), TypeError, "n_chains"),
        (dict(n_chains=True), TypeError, "n_chains"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=1.5), TypeError, "seed"),
        (dict(seed=None), TypeError, "seed"),
        (dict(initial_state=3), ValueError, "initial_state"),
        (dict(initial_state=-1), ValueError, "initial_state"),
        (dict(initial_state=np.array([0, 1, 2, 0, 1, 2, 0, 1, 3])), ValueError, "variable 8"),
        (dict(initial_state=np.zeros(8, dtype=int)), ValueError, "initial_state"),
        (dict(initial_state=np.zeros((3, 9), dtype=int)), ValueError, "initial_state"),  # n_chains is 2
        (dict(initial_state=np.zeros(9)), TypeError, "initial_state"),  # floats are not labels
        (dict(initial_state=np.zeros(9, dtype=bool)), TypeError, "initial_state"),
        (dict(initial_state="0"), TypeError, "initial_state"),
        (dict(initial_state=None), TypeError, "initial_state"),
        (dict(record_vars=[0]), ValueError, "record_times"),
        (dict(record_times=[3]), ValueError, "record_vars"),
        (dict(record_vars=[9], record_times=[3]), ValueError, "record_vars"),
        (dict(record_vars=[-1], record_times=[3]), ValueError, "record_vars"),
        (dict(record_vars=[0.5], record_times=[3]), TypeError, "record_vars"),
        (dict(record_vars=[0], record_times=[19]), ValueError, "record_times"),
        (dict(record_vars=[0], record_times=[5, 3]), ValueError, "non-decreasing"),
        (dict(count_labels=1), TypeError, "count_labels"),
        (dict(count_labels=True, count_from=-1), ValueError, "count_from"),
        (dict(count_labels=True, count_from=2.0), TypeError, "count_from"),
        (dict(count_from=5), ValueError, "count_labels"),
    ],
)
def test_bad_input_raises_clear_errors(kwargs, error, match):
    call = dict(model=_MODEL, scan=_SCAN, seed=0, n_chains=2, initial_state=0)
    call.update(kwargs)
    model, scan = call.pop("model"), call.pop("scan")
    with pytest.raises(error, match=match):
        run_discrete_gibbs(model, scan, **call)


def test_label_range_is_checked_per_variable():
    scan = systematic_scan(2, 4)
    run_discrete_gibbs(_SMALL_FIRST, scan, seed=0, initial_state=[1, 3])
    with pytest.raises(ValueError, match=r"variable 0 has K_i = 2, got 3"):
        run_discrete_gibbs(_SMALL_FIRST, scan, seed=0, initial_state=3)


def test_seed_and_initial_state_are_required():
    with pytest.raises(TypeError, match="seed"):
        run_discrete_gibbs(_MODEL, _SCAN, initial_state=0)  # no hidden randomness
    with pytest.raises(TypeError, match="initial_state"):
        run_discrete_gibbs(_MODEL, _SCAN, seed=0)


def test_overflowing_potentials_rejected_before_sampling():
    big = DiscretePairwiseMRF(
        np.array([2, 2, 2]), [np.array([0.0, 1e308]), np.zeros(2), np.zeros(2)], np.array([[0, 1], [0, 2]]),
        [np.array([[0.0, 0.0], [1e308, 0.0]]), np.zeros((2, 2))],
    )  # fmt: skip
    with pytest.raises(ValueError, match="site 0"):
        run_discrete_gibbs(big, systematic_scan(3, 3), seed=0, initial_state=0)
