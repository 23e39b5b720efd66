r"""numba kernels for the Dobrushin variation (DoGS Definition 7).

The coupling bounds of DoGS §3 evolve as

.. math::

    b_0 = \mathbf 1, \qquad b_t = B(q_t)\, b_{t-1}, \qquad
    B(q) = I - \operatorname{diag}(q)(I - \bar C),

and the Dobrushin variation of the first ``t`` steps is :math:`d^\top b_t`.
With :math:`\bar C` stored in CSR form (zero diagonal):

- a deterministic step :math:`q = e_i` changes one entry,
  :math:`b_i \leftarrow (\bar C b)_i = \sum_j \bar C_{ij} b_j` (row ``i`` only: ``O(m)``);
- a uniform step :math:`q = \mathbf 1 / p` changes all entries,
  :math:`b \leftarrow (1 - 1/p)\, b + (1/p)\, \bar C b` (``O(nnz)``).

Every quantity is a sum of non-negative terms, so the recursion is
numerically benign. The running value :math:`d^\top b` is kept in a
*pairwise-sum tree* (leaf ``i`` holds :math:`d_i b_i`, each internal node the
sum of its two children): changing one leaf costs ``O(log p)`` and the root is
a pairwise sum of non-negative terms, accurate to ``O(log p)`` roundings
*relative to the value itself*. A running sum of increments would instead
accumulate roundings of the (much larger) early values and lose all relative
accuracy once the variation has decayed by many orders of magnitude.

Everything here is private and takes arrays and scalars only; the public
wrappers in :mod:`dogs.scans.variation` validate and cast (``int64`` index
arrays, ``float64`` values).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "row_dot",
    "uniform_step",
    "tree_leaf_count",
    "tree_build",
    "tree_set",
    "forward_variation",
    "variation_curve",
]


@njit(cache=True, inline="always")
def row_dot(indptr, indices, data, vector, row):
    r"""``(C̄ v)_row = sum_j C̄[row, j] v_j`` over the stored slots of ``row``, left to right."""
    total = 0.0
    for slot in range(indptr[row], indptr[row + 1]):
        total += data[slot] * vector[indices[slot]]
    return total


@njit(cache=True)
def uniform_step(indptr, indices, data, b, scratch):
    r"""In place ``b <- B(1/p) b = (1 - 1/p) b + (1/p) C̄ b``; ``scratch`` (p,) receives ``C̄ b``."""
    n_vars = b.size
    inv_p = 1.0 / n_vars
    keep = 1.0 - inv_p
    for i in range(n_vars):
        scratch[i] = row_dot(indptr, indices, data, b, i)
    for i in range(n_vars):
        b[i] = keep * b[i] + inv_p * scratch[i]


@njit(cache=True)
def tree_leaf_count(n_leaves):
    """Smallest power of two ``>= n_leaves`` (the leaf layer of a pairwise-sum tree)."""
    size = 1
    while size < n_leaves:
        size *= 2
    return size


@njit(cache=True)
def tree_build(tree, leaf_count, values):
    """Fill ``tree`` (2 * leaf_count,) from ``values`` (p,): leaves ``tree[leaf_count + i]``, root ``tree[1]``."""
    for i in range(leaf_count):
        tree[leaf_count + i] = values[i] if i < values.size else 0.0
    for node in range(leaf_count - 1, 0, -1):
        tree[node] = tree[2 * node] + tree[2 * node + 1]


@njit(cache=True, inline="always")
def tree_set(tree, leaf_count, leaf, value):
    """Set one leaf and refresh its ancestors (``O(log p)``); the root ``tree[1]`` is the total."""
    node = leaf_count + leaf
    tree[node] = value
    node >>= 1
    while node >= 1:
        tree[node] = tree[2 * node] + tree[2 * node + 1]
        node >>= 1


@njit(cache=True)
def forward_variation(indptr, indices, data, steps, b):
    r"""Run ``b <- B(q_t) b`` for every step in ``steps`` (in place on ``b``).

    ``steps[t] = i >= 0`` is :math:`q_{t+1} = e_i`, ``-1`` the uniform step.
    Deterministic steps cost ``O(m)``, uniform steps ``O(nnz + p)``.
    """
    scratch = np.empty(0)
    for t in range(steps.size):
        site = steps[t]
        if site >= 0:
            b[site] = row_dot(indptr, indices, data, b, site)
        else:
            if scratch.size == 0:
                scratch = np.empty(b.size)
            uniform_step(indptr, indices, data, b, scratch)


@njit(cache=True)
def variation_curve(indptr, indices, data, steps, weights, record_lengths, b):
    r"""Dobrushin variation :math:`d^\top b_t` after each prefix length in ``record_lengths``.

    Parameters
    ----------
    indptr, indices, data : arrays
        CSR form of :math:`\bar C` (``int64``, ``int64``, ``float64``).
    steps : (T,) int64
        Scan indices (``-1`` = uniform step).
    weights : (p,) float64
        The weight vector ``d``.
    record_lengths : (R,) int64
        Strictly increasing prefix lengths in ``[0, T]``.
    b : (p,) float64
        Start vector (``1``), overwritten with :math:`b_L`, ``L = record_lengths[-1]``.

    Returns
    -------
    (R,) float64
        ``values[r] = d^T b_{record_lengths[r]}`` (root of the pairwise-sum tree).
    """
    n_vars = b.size
    leaf_count = tree_leaf_count(n_vars)
    tree = np.zeros(2 * leaf_count)
    products = weights * b
    tree_build(tree, leaf_count, products)
    values = np.empty(record_lengths.size)
    scratch = np.empty(0)
    t = 0
    for r in range(record_lengths.size):
        stop = record_lengths[r]
        while t < stop:
            site = steps[t]
            if site >= 0:
                b[site] = row_dot(indptr, indices, data, b, site)
                if weights[site] != 0.0:
                    tree_set(tree, leaf_count, site, weights[site] * b[site])
            else:
                if scratch.size == 0:
                    scratch = np.empty(n_vars)
                uniform_step(indptr, indices, data, b, scratch)
                for i in range(n_vars):
                    products[i] = weights[i] * b[i]
                tree_build(tree, leaf_count, products)
            t += 1
        values[r] = tree[1]
    return values
