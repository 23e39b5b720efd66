"""Compact index types (int32 below 2^31) change no result: the kernels give the int64 arrays' outputs bit for bit.

Models, scans and the Gibbs neighbourhood table store indices as ``int32`` (:func:`dogs.models.graph.index_dtype`).
Each test runs a kernel on the library's ``int32`` arrays and on ``int64`` copies of the same arrays and
compares every output exactly. No statistical tests.
"""

from __future__ import annotations

import numpy as np
import pytest

from dogs._kernels.gibbs import field_thresholds, gibbs_chain, padded_neighbourhoods
from dogs._kernels.rng import seed_state
from dogs.bounds import influence_binary_pairwise
from dogs.models import grid_model
from dogs.samplers import run_gibbs
from dogs.scans import dobrushin_variation, dogs_scan, explicit_scan, systematic_scan, uniform_scan
from dogs.scans.base import paper_systematic_scan
from dogs.scans.variation import dobrushin_variation_curve

LOW, HIGH = field_thresholds()


def _models():
    rng = np.random.default_rng(31)
    return {
        "grid": grid_model(9, 11, rng.uniform(-0.6, 0.6, 2 * 9 * 11 - 9 - 11), rng.normal(0.0, 0.3, 99)),
        "torus": grid_model(6, 7, rng.uniform(0.0, 0.5, 84), 0.1, torus=True),
    }


MODELS = _models()


def test_library_arrays_are_int32():
    model = MODELS["grid"]
    for array in (model.edges, model.indptr, model.neighbors, model.edge_of):
        assert array.dtype == np.int32
    for scan in (systematic_scan(99, 300), paper_systematic_scan(99, 5), uniform_scan(99, 4), explicit_scan([3, -1], 99)):
        assert scan.indices.dtype == np.int32
    bound = influence_binary_pairwise(model)
    assert bound.indices is model.neighbors and bound.indptr is model.indptr  # shared, not copied
    table = padded_neighbourhoods(model.indptr, model.neighbors, model.coupling.view(np.uint64))
    assert table.dtype["lower"].base == np.int32 and table.dtype.itemsize == 48  # 64 with int64 indices


@pytest.mark.parametrize("name, layout", [("grid", "padded"), ("grid", "csr"), ("torus", "csr")])
def test_gibbs_kernel_gives_the_same_states_with_int64_indices(name, layout):
    model = MODELS[name]
    scan = np.concatenate([np.arange(model.n_vars), np.full(50, -1), np.arange(model.n_vars)[::-1]])

    def graph(index_type):
        csr = (model.indptr.astype(index_type), model.neighbors.astype(index_type), model.coupling.view(np.uint64))
        return padded_neighbourhoods(*csr) if layout == "padded" else csr

    assert graph(np.int32) is not None  # the grid has a padded table
    finals = []
    for index_type in (np.int32, np.int64):
        spins = np.ones(model.n_vars, dtype=np.int8)
        state = seed_state(np.uint64(77))
        recorded = np.zeros((2, 3), dtype=np.int8)
        gibbs_chain(graph(index_type), model.h, scan.astype(index_type), spins, state, LOW, HIGH,
                    np.array([0, 5, 9]), np.array([10, scan.size - 1]), recorded)
        finals.append((spins, state, recorded))
    for a, b in zip(*finals):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["systematic", "uniform", "mixed"])
def test_dogs_and_variation_give_the_same_results_with_int64_steps(kind):
    model = MODELS["grid"]
    bound = influence_binary_pairwise(model)
    p = model.n_vars
    steps = {"systematic": np.arange(3 * p) % p, "uniform": np.full(40, -1),
             "mixed": np.concatenate([np.full(20, -1), np.arange(2 * p) % p])}[kind]
    weights = np.zeros(p)
    weights[[0, 50]] = [1.0, 0.5]
    wide = explicit_scan(steps.astype(np.int64), p)
    narrow = explicit_scan(steps.astype(np.int32), p)
    object.__setattr__(wide, "indices", steps.astype(np.int64))  # force the int64 path the library no longer builds
    assert wide.indices.dtype == np.int64 and narrow.indices.dtype == np.int32
    assert dobrushin_variation(wide, weights, bound) == dobrushin_variation(narrow, weights, bound)
    np.testing.assert_array_equal(dobrushin_variation_curve(wide, weights, bound),
                                  dobrushin_variation_curve(narrow, weights, bound))
    a, b = dogs_scan(wide, weights, bound), dogs_scan(narrow, weights, bound, epsilon=None)
    np.testing.assert_array_equal(a.scan.indices, b.scan.indices)
    assert a.variation == b.variation and a.input_variation == b.input_variation


def test_run_gibbs_equals_the_int64_kernel_run():
    model = MODELS["torus"]
    scan = systematic_scan(model.n_vars, 500)
    result = run_gibbs(model, scan, seed=5, n_chains=1)
    csr = (model.indptr.astype(np.int64), model.neighbors.astype(np.int64), model.coupling.view(np.uint64))
    spins = np.ones(model.n_vars, dtype=np.int8)
    empty = np.zeros(0, dtype=np.int64)
    gibbs_chain(csr, model.h, scan.indices.astype(np.int64), spins, seed_state(result.seeds[0]), LOW, HIGH, empty, empty,
                np.zeros((0, 0), dtype=np.int8))
    np.testing.assert_array_equal(result.states[0], spins)
