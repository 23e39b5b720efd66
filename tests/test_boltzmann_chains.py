"""The Boltzmann-machine chains in parallel give the serial numbers; the quadratic form behind every log ratio.

No statistical tests here: every comparison is exact (bit for bit) or up to floating-point rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from dogs._kernels.quadratic import quadratic_values
from dogs.experiments import boltzmann, common
from dogs.learning.boltzmann_posterior import _SpinForms, pair_statistics
from dogs.models import BinaryPairwiseMRF, grid_model
from dogs.samplers.binary import log_mean_exp_quadratic
from dogs.seeds import seed_sequence

from experiment_cli import merged_configs

FULL, _ = merged_configs()


def _forms():
    rng = np.random.default_rng(808)
    dense, _ = _SpinForms(50).model(rng.normal(0.0, 0.3, 50 * 49 // 2))
    upper = np.triu(rng.normal(0.0, 0.7, (7, 7)), 1)
    return {
        "dense_50": dense,
        "dense_7": BinaryPairwiseMRF.dense(upper + upper.T, rng.normal(0.0, 0.5, 7)),
        "grid_5x6": grid_model(5, 6, rng.normal(0.0, 0.4, 49), rng.normal(0.0, 0.2, 30)),
        "no_edges": BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), [], rng.normal(0.0, 1.0, 4)),
    }


FORMS = _forms()


@pytest.mark.parametrize("name", sorted(FORMS))
def test_quadratic_values_equal_the_log_potential(name):
    form = FORMS[name]
    states = np.where(np.random.default_rng(9).random((300, form.n_vars)) < 0.5, 1, -1).astype(np.int8)
    values = np.empty(len(states))
    quadratic_values(form.indptr, form.neighbors, form.coupling, form.h, states, values)
    expected = form.log_potential(states)
    np.testing.assert_allclose(values, expected, rtol=1e-13, atol=1e-13 * np.abs(form.theta).sum())
    np.testing.assert_allclose(log_mean_exp_quadratic(states, form), log_mean_exp_quadratic(states.astype(float), form),
                               rtol=1e-13, atol=1e-13)


def _one_state_at_a_time(form, state) -> float:
    """The kernel's sum for one state in plain Python: the pair terms over each row's slots with j > i, in row
    order, then the unary terms."""
    pair = 0.0
    for i in range(form.n_vars):
        for slot in range(form.indptr[i], form.indptr[i + 1]):
            j = form.neighbors[slot]
            if j > i:
                pair += float(form.coupling[slot]) * float(int(state[i]) * int(state[j]))
    unary = 0.0
    for i in range(form.n_vars):
        unary += float(form.h[i]) * float(state[i])
    return pair + unary


@pytest.mark.parametrize("name", sorted(FORMS))
@pytest.mark.parametrize("n_states", [0, 1, 8, 19])
def test_quadratic_values_sum_each_state_in_row_order(name, n_states):
    """States are summed side by side in blocks (the last one partial): each value is still bit-identical to the
    state's own left-to-right sum."""
    form = FORMS[name]
    states = np.where(np.random.default_rng(n_states).random((n_states, form.n_vars)) < 0.5, 1, -1).astype(np.int8)
    values = np.empty(n_states)
    quadratic_values(form.indptr, form.neighbors, form.coupling, form.h, states, values)
    expected = np.array([_one_state_at_a_time(form, state) for state in states])
    assert values.tobytes() == expected.tobytes()


@pytest.mark.parametrize("sampler", ["exact", "hmc", "cmh", "aas_rb", "aag_rb"])
def test_chains_in_worker_processes_give_the_serial_numbers(sampler):
    """Each chain depends on its own seed only, so spreading chains over processes changes no number."""
    cfg = {**FULL["boltzmann"], "outer_samples": 4}
    spec = {"chains": 5, "inner_samples": 20, "prior": {"mean": "zero", "variance": 3.0},
            "start": {"mean": "zero", "variance": 2.0}}
    y = np.random.default_rng(3).integers(0, 2, (30, 6))
    statistic = pair_statistics(y).sum(axis=0)
    serial = boltzmann.run_chains(cfg, spec, statistic, 6, 30, sampler, seed_sequence(1, "chains", sampler))
    parallel = boltzmann.run_chains(cfg, spec, statistic, 6, 30, sampler, seed_sequence(1, "chains", sampler), workers=2)
    assert serial.keys() == parallel.keys()
    for key in serial:
        np.testing.assert_array_equal(serial[key], parallel[key])


def test_shutdown_ends_the_worker_processes_and_counts_their_cpu_time():
    """After shutdown_workers no pool is left, the workers' CPU time is in this process's finished children's (the
    step's last log line reports it), and a later call starts new workers."""
    import resource

    cfg = {**FULL["boltzmann"], "outer_samples": 4}
    spec = {"chains": 4, "inner_samples": 20, "prior": {"mean": "zero", "variance": 3.0},
            "start": {"mean": "zero", "variance": 2.0}}
    statistic = pair_statistics(np.random.default_rng(4).integers(0, 2, (30, 6))).sum(axis=0)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    first = boltzmann.run_chains(cfg, spec, statistic, 6, 30, "hmc", seed_sequence(2, "chains"), workers=2)
    assert common.open_worker_pools() == 1
    boltzmann.shutdown_workers()
    assert common.open_worker_pools() == 0
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert children_after.ru_utime + children_after.ru_stime > children_before.ru_utime + children_before.ru_stime
    again = boltzmann.run_chains(cfg, spec, statistic, 6, 30, "hmc", seed_sequence(2, "chains"), workers=2)
    boltzmann.shutdown_workers()
    np.testing.assert_array_equal(first["weights"], again["weights"])
