"""Random problems shared by the Dobrushin-variation and DoGS tests: influence matrices, scans, weights."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from dogs.scans.base import UNIFORM


def random_influence(rng, p, density, row_sum):
    """Sparse non-negative p x p matrix, zero diagonal, continuous entries; non-empty rows sum to ~``row_sum``."""
    dense = rng.uniform(0.05, 1.0, (p, p)) * (rng.random((p, p)) < density)
    np.fill_diagonal(dense, 0.0)
    sums = dense.sum(axis=1, keepdims=True)
    dense = np.divide(dense * row_sum * rng.uniform(0.5, 1.0, (p, 1)), sums, out=np.zeros_like(dense), where=sums > 0)
    return sparse.csr_matrix(dense)


def random_steps(rng, p, length, kind):
    steps = rng.integers(0, p, length)
    if kind == "uniform":
        steps[:] = UNIFORM
    elif kind == "mixed":
        steps[rng.random(length) < 0.4] = UNIFORM
    elif kind == "systematic":
        steps = np.arange(length) % p
    return steps


def random_weights(rng, p, kind):
    if kind == "ones":
        return np.ones(p)
    if kind == "basis":
        d = np.zeros(p)
        d[rng.integers(p)] = 1.0
        return d
    d = rng.uniform(0, 2, p)
    d[rng.random(p) < 0.3] = 0.0
    return d
