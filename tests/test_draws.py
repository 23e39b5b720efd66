"""Every draw inside one kernel call (``run_gibbs_draws``, ``run_discrete_gibbs_draws``, and ``dogs.sample`` on top).

The draws kernels run the very update of the checkpoint kernels (``run_gibbs``, ``run_discrete_gibbs``), which
the tests of test_gibbs.py, test_gibbs_lanes.py and test_discrete_gibbs.py check against plain-Python references.
So ``D`` passes of one call are compared bit for bit with one checkpoint run of the scan repeated ``D`` times,
recorded at the end of every pass, from the same seeds: one dependent sequence per chain, every kernel. Then: the
same draws whatever the chunking and the threads, and ``dogs.sample``'s estimates against exact marginals.

The statistical test states its false-failure rate; its seed was fixed before it was first run.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from test_gibbs import _random_band_graph, _random_grid

import dogs.samplers.draws as draws_module
from dogs.exact.enumeration import brute_force
from dogs.models import DiscretePairwiseMRF, grid_model
from dogs.models.binary import grid_edges
from dogs.models.evidence import condition
from dogs.sampling_call import sample
from dogs.samplers import run_discrete_gibbs, run_gibbs
from dogs.samplers.discrete_gibbs import run_discrete_gibbs_draws
from dogs.samplers.gibbs import gibbs_kernel, run_gibbs_draws
from dogs.scans import Scan, systematic_scan, uniform_scan


def _repeated(scan: Scan, passes: int) -> Scan:
    return Scan(np.tile(scan.indices, passes), scan.n_vars)


def _binary_case(kind):
    rng = np.random.default_rng(3)
    if kind == "table":  # degree <= 4: the table kernel from 8 chains
        return _random_grid(4, 5, True, rng), 9
    return _random_band_graph(24, (1, 2, 3, 5), 0.8, rng, scale=0.4), 17  # degree > 4: the float32 kernel


@pytest.mark.parametrize("kernel, kind", [("chains", "table"), ("chains", "band"), ("lanes", "table"),
                                          ("lanes", "band")])
@pytest.mark.parametrize("n_chains", [1, 3, 8, 19])
def test_draws_are_the_checkpoint_kernel_on_the_repeated_scan(kernel, kind, n_chains):
    model, _ = _binary_case(kind)
    scan = systematic_scan(model.n_vars, model.n_vars + 5)  # kernel="lanes" pads fewer than 8 chains to a block
    passes, variables = 13, np.array([0, 5, 7, model.n_vars - 1])
    result = run_gibbs_draws(model, scan, seed=41, draws=passes, n_chains=n_chains, initial_state=-1,
                             record_vars=variables, kernel=kernel)
    checkpoints = run_gibbs(model, _repeated(scan, passes), seed=41, n_chains=n_chains, initial_state=-1,
                            record_vars=variables, record_times=scan.length * np.arange(1, passes + 1), kernel=kernel)
    np.testing.assert_array_equal(result.labels, (checkpoints.recorded + 1) // 2)
    np.testing.assert_array_equal(result.states, checkpoints.states)
    np.testing.assert_array_equal(result.seeds, checkpoints.seeds)
    assert result.labels.dtype == np.int8 and result.work.site_updates == n_chains * passes * scan.length


def test_uniform_steps_and_padded_lanes():
    model = grid_model(3, 4, coupling=0.3, field=0.1)
    scan = uniform_scan(12, 20)  # -1 steps: the one-chain kernel
    result = run_gibbs_draws(model, scan, seed=2, draws=6, n_chains=2)
    reference = run_gibbs(model, _repeated(scan, 6), seed=2, n_chains=2, record_vars=np.arange(12),
                          record_times=20 * np.arange(1, 7))
    np.testing.assert_array_equal(result.labels, (reference.recorded + 1) // 2)
    scan = systematic_scan(12, 12)  # 11 chains in 2 blocks of 8 lanes, 5 lanes of padding
    assert gibbs_kernel(model, scan, 11) == "table"
    result = run_gibbs_draws(model, scan, seed=2, draws=6, n_chains=11)
    reference = run_gibbs(model, _repeated(scan, 6), seed=2, n_chains=11, record_vars=np.arange(12),
                          record_times=12 * np.arange(1, 7))
    np.testing.assert_array_equal(result.labels, (reference.recorded + 1) // 2)


def _potts(scale=0.6):
    rng = np.random.default_rng(8)
    edges = grid_edges(3, 3)
    cards = np.array([3, 2, 4, 3, 3, 2, 4, 3, 3])
    tables = [rng.normal(0, scale, (cards[i], cards[j])) for i, j in edges]
    return DiscretePairwiseMRF(cards, [rng.normal(0, 0.5, k) for k in cards], edges, tables)


@pytest.mark.parametrize("n_chains", [1, 4])
@pytest.mark.parametrize("uniform", [False, True])
def test_discrete_draws_are_the_checkpoint_kernel_on_the_repeated_scan(n_chains, uniform):
    model = _potts()
    scan = uniform_scan(9, 14) if uniform else systematic_scan(9, 14)
    result = run_discrete_gibbs_draws(model, scan, seed=5, draws=11, n_chains=n_chains, initial_state=0)
    reference = run_discrete_gibbs(model, _repeated(scan, 11), seed=5, n_chains=n_chains, initial_state=0,
                                   record_vars=np.arange(9), record_times=14 * np.arange(1, 12))
    np.testing.assert_array_equal(result.labels, reference.recorded)
    np.testing.assert_array_equal(result.states, reference.states)
    assert result.work == reference.work and result.labels.dtype == np.int8


@pytest.mark.parametrize("n_chains", [2, 24])
def test_the_same_draws_whatever_the_chunks_and_the_threads(monkeypatch, n_chains):
    model, potts = grid_model(5, 5, coupling=0.25), _potts()
    scan = systematic_scan(25, 25)
    whole = run_gibbs_draws(model, scan, seed=9, draws=40, n_chains=n_chains)  # one call, on one thread
    plain = run_discrete_gibbs_draws(potts, systematic_scan(9, 9), seed=1, draws=20, n_chains=n_chains, initial_state=1)
    calls = []
    monkeypatch.setattr(draws_module, "UPDATES_PER_CALL", 3 * 25 * n_chains)  # three passes per kernel call
    monkeypatch.setattr(draws_module, "THREADS_FROM_UPDATES", 0)  # every call on the threads
    chunked = run_gibbs_draws(model, scan, seed=9, draws=40, n_chains=n_chains, on_passes=calls.append)
    assert calls == [3] * 13 + [1]
    np.testing.assert_array_equal(chunked.labels, whole.labels)
    threaded = run_discrete_gibbs_draws(potts, systematic_scan(9, 9), seed=1, draws=20, n_chains=n_chains,
                                        initial_state=1)
    np.testing.assert_array_equal(plain.labels, threaded.labels)


def test_bad_arguments_are_refused_before_sampling():
    model = grid_model(3, 3, coupling=0.2)
    scan = systematic_scan(9, 9)
    with pytest.raises(ValueError, match="draws"):
        run_gibbs_draws(model, scan, seed=0, draws=0)
    with pytest.raises(ValueError, match="record_vars"):
        run_gibbs_draws(model, scan, seed=0, draws=3, record_vars=[9])
    with pytest.raises(TypeError, match="DiscretePairwiseMRF"):
        run_discrete_gibbs_draws(model, scan, seed=0, draws=3, initial_state=0)


# ------------------------------------------------------------------ dogs.sample against exact answers
@pytest.mark.parametrize("kind", ["binary", "potts"])
def test_sample_estimates_are_within_their_errors_and_certified_bias_of_the_exact_marginals(kind):
    """Per marginal, |estimate - exact| <= 4.5 standard errors + the certified bias of the average.

    The standard error is that of the mean over 48 independent chains of each chain's average (a t statistic with
    47 degrees of freedom); the chains' starts add a bias that Theorem 8 bounds (``bound_average``). With
    P(|t_47| > 4.5) = 4.4e-5 and at most 24 marginals, the false-failure rate is below 1.1e-3.
    """
    if kind == "binary":
        model, evidence = grid_model(3, 3, coupling=np.linspace(-0.25, 0.25, 12), field=0.1), {4: 1}
    else:  # couplings weak enough for Dobrushin's condition, so that every bias is certified
        model, evidence = _potts(scale=0.25), {0: 2}
    chains, draws = 48, 400
    data = sample(model, chains=chains, draws=draws, seed=2026, evidence=evidence, certify=True, progress=False)
    labels = data.posterior["label"].values
    variables = data.posterior["node"].values
    bounds = {row["variable"]: row["bound_average"] for row in json.loads(data.posterior.attrs["certificate"])}
    exact = brute_force(condition(model, evidence).model).node_marginals
    free = [i for i in range(model.n_vars) if i not in evidence]
    critical = stats.t.ppf(1 - 4.4e-5 / 2, chains - 1)
    assert critical == pytest.approx(4.5, abs=0.05)
    checked = 0
    for m, i in enumerate(variables.tolist()):
        for k, probability in enumerate(exact[free.index(i)]):
            per_chain = (labels[:, :, m] == k).mean(axis=1)
            error = abs(per_chain.mean() - probability)
            std_error = per_chain.std(ddof=1) / np.sqrt(chains)
            assert bounds[i] is not None and error <= critical * std_error + bounds[i], (i, k, error, std_error)
            checked += 1
    assert checked == sum(len(e) for e in exact)

