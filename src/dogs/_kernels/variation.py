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

The tree is stored 8-ary: every node holds the pairwise sum
``((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))`` of eight children that
share one cache line. That is exactly the binary pairwise-sum tree with three
of every four levels left implicit (zero padding adds exact zeros), so every
node value equals the binary tree's bit for bit, while an update touches
``log_8 p`` cache lines instead of ``log_2 p``.

The variation of a whole scan can also be computed from the left,
:math:`u_T = d`, :math:`u_{t-1}^\top = u_t^\top B(q_t)`, :math:`\mathcal V = u_0^\top \mathbf 1`
(:func:`left_variation`): a deterministic step :math:`q_t = e_i` moves
:math:`u_i` onto row ``i`` of :math:`\bar C` (:math:`u_j \mathrel{+}= u_i \bar C_{ij}`,
:math:`u_i \leftarrow 0`) and is a no-op when :math:`u_i = 0`, so for a sparse ``d`` (one
marginal) only the steps that reach the weighted variables cost ``O(m)``.

Everything here is private and takes arrays and scalars only; the public
wrappers in :mod:`dogs.scans.variation` validate and cast (``int64`` index
arrays, ``float64`` values).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = [
    "INFLUENCE_OK",
    "check_influence",
    "count_influence_problems",
    "count_value_problems",
    "pattern_is_symmetric",
    "transpose_pattern",
    "row_dot",
    "uniform_step",
    "tree_offsets",
    "tree_build",
    "tree_set",
    "tree_total",
    "left_variation",
    "variation_curve",
]


#: Codes of :func:`check_influence`.
INFLUENCE_OK, NOT_FINITE, NEGATIVE, DIAGONAL, NOT_CANONICAL, OUT_OF_RANGE = 0, 1, 2, 3, 4, 5


@njit(cache=True, parallel=True)
def count_influence_problems(indptr, indices, data):
    """Number of stored entries that :func:`check_influence` would object to (a fast parallel pass, 0 if fine)."""
    n_rows = indptr.size - 1
    problems = 0
    for i in prange(n_rows):
        previous = -1
        local = 0
        for slot in range(indptr[i], indptr[i + 1]):
            j = indices[slot]
            value = data[slot]
            bad = (j <= previous) | (j >= n_rows) | (not (value >= 0.0)) | (not (value < np.inf)) \
                | ((j == i) & (value != 0.0))
            local += 1 if bad else 0
            previous = j
        problems += local
    return problems


@njit(cache=True, parallel=True)
def count_value_problems(data):
    """Number of stored values that are negative or not finite (a vectorised parallel pass)."""
    problems = 0
    for slot in prange(data.size):
        value = data[slot]
        problems += 0 if (value >= 0.0) and (value < np.inf) else 1
    return problems


@njit(cache=True)
def check_influence(indptr, indices, data):
    """One pass over a CSR influence bound: ``(code, row)`` of the first problem, ``(INFLUENCE_OK, -1)`` if none.

    Problems, in the order checked per entry: a column index outside ``[0, p)`` (``OUT_OF_RANGE``), column
    indices not strictly increasing within the row (``NOT_CANONICAL``: unsorted or duplicated), a non-finite
    value (``NOT_FINITE``), a negative value (``NEGATIVE``), a non-zero diagonal entry (``DIAGONAL``).
    """
    n_rows = indptr.size - 1
    for i in range(n_rows):
        previous = -1
        for slot in range(indptr[i], indptr[i + 1]):
            j = indices[slot]
            if j < 0 or j >= n_rows:
                return OUT_OF_RANGE, i
            if j <= previous:
                return NOT_CANONICAL, i
            previous = j
            value = data[slot]
            if not np.isfinite(value):
                return NOT_FINITE, i
            if value < 0.0:
                return NEGATIVE, i
            if j == i and value != 0.0:
                return DIAGONAL, i
    return INFLUENCE_OK, -1


@njit(cache=True, inline="always")
def _row_contains(indptr, indices, row, column):
    """Whether the sorted indices of ``row`` contain ``column`` (linear scan of short rows, else bisection)."""
    lo = indptr[row]
    hi = indptr[row + 1]
    if hi - lo <= 16:
        for slot in range(lo, hi):
            if indices[slot] >= column:
                return indices[slot] == column
        return False
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < column:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[row + 1] and indices[lo] == column


@njit(cache=True, parallel=True)
def pattern_is_symmetric(indptr, indices):
    """Whether ``(i, j)`` stored implies ``(j, i)`` stored (canonical CSR; ``O(nnz)`` for short rows)."""
    n_rows = indptr.size - 1
    missing = 0
    for i in prange(n_rows):
        local = 0
        for slot in range(indptr[i], indptr[i + 1]):
            if not _row_contains(indptr, indices, indices[slot], i):
                local += 1
        missing += local
    return missing == 0


@njit(cache=True)
def transpose_pattern(indptr, indices, n_cols):
    """CSR pattern of the transpose (counting sort, ``O(nnz + p)``); rows of the result are sorted."""
    counts = np.zeros(n_cols + 1, dtype=np.int64)
    for slot in range(indices.size):
        counts[indices[slot] + 1] += 1
    for j in range(n_cols):
        counts[j + 1] += counts[j]
    out = np.empty(indices.size, dtype=np.int64)
    fill = counts[:-1].copy()
    for i in range(indptr.size - 1):
        for slot in range(indptr[i], indptr[i + 1]):
            j = indices[slot]
            out[fill[j]] = i
            fill[j] += 1
    return counts, out


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
def tree_offsets(n_leaves):
    """Level starts of an 8-ary sum tree over ``n_leaves`` leaves; the last entry is the total length.

    Level 0 (the leaves) and every level below the root are padded to a multiple of 8; the root level
    has one node. ``tree = np.zeros(offsets[-1])`` is the empty tree.
    """
    sizes = [max(8, (n_leaves + 7) // 8 * 8)]
    while sizes[-1] > 8:
        parents = (sizes[-1] + 7) // 8
        sizes.append(parents if parents == 1 else (parents + 7) // 8 * 8)
    sizes.append(1)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    for level in range(len(sizes)):
        offsets[level + 1] = offsets[level] + sizes[level]
    return offsets


@njit(cache=True, inline="always")
def _pairwise8(tree, base):
    """Pairwise sum of the eight entries ``tree[base:base + 8]`` (the binary tree's order)."""
    return ((tree[base] + tree[base + 1]) + (tree[base + 2] + tree[base + 3])) + (
        (tree[base + 4] + tree[base + 5]) + (tree[base + 6] + tree[base + 7])
    )


@njit(cache=True)
def tree_build(tree, offsets, values):
    """Fill ``tree`` from ``values`` (p,): leaves ``tree[i] = values[i]``, then every level above."""
    n_levels = offsets.size - 1
    for i in range(offsets[1]):
        tree[i] = values[i] if i < values.size else 0.0
    for level in range(1, n_levels):
        for node in range(offsets[level + 1] - offsets[level]):
            tree[offsets[level] + node] = _pairwise8(tree, offsets[level - 1] + 8 * node) \
                if 8 * node < offsets[level] - offsets[level - 1] else 0.0


@njit(cache=True, inline="always")
def tree_set(tree, offsets, leaf, value):
    """Set one leaf and refresh its ancestors (``log_8 p`` cache lines); :func:`tree_total` is the sum."""
    tree[leaf] = value
    node = leaf
    for level in range(1, offsets.size - 1):
        node >>= 3
        tree[offsets[level] + node] = _pairwise8(tree, offsets[level - 1] + 8 * node)


@njit(cache=True, inline="always")
def tree_total(tree, offsets):
    """The root: the pairwise sum of all leaves."""
    return tree[offsets[offsets.size - 2]]


@njit(cache=True)
def left_variation(indptr, indices, data, steps, u):
    r"""Run :math:`u^\top \leftarrow u^\top B(q_t)` for ``t = T, ..., 1`` (in place on ``u``, which starts as ``d``).

    Afterwards :math:`\mathcal V = u^\top \mathbf 1`. A deterministic step on ``i`` with :math:`u_i = 0`
    is skipped; otherwise :math:`u_j \mathrel{+}= u_i \bar C_{ij}` over row ``i`` and :math:`u_i = 0`
    (zero diagonal). A uniform step is :math:`u^\top \leftarrow (1 - 1/p)\, u^\top + (1/p)\, u^\top \bar C`
    (``O(nnz + p)``).
    """
    scratch = np.empty(0)
    n_vars = u.size
    for t in range(steps.size - 1, -1, -1):
        site = steps[t]
        if site >= 0:
            weight = u[site]
            if weight != 0.0:
                u[site] = 0.0
                for slot in range(indptr[site], indptr[site + 1]):
                    u[indices[slot]] += weight * data[slot]
        else:
            if scratch.size == 0:
                scratch = np.empty(n_vars)
            inv_p = 1.0 / n_vars
            keep = 1.0 - inv_p
            for j in range(n_vars):
                scratch[j] = keep * u[j]
            for i in range(n_vars):
                weight = inv_p * u[i]
                if weight != 0.0:
                    for slot in range(indptr[i], indptr[i + 1]):
                        scratch[indices[slot]] += weight * data[slot]
            for j in range(n_vars):
                u[j] = scratch[j]


@njit(cache=True)
def variation_curve(indptr, indices, data, steps, weights, record_lengths, b):
    r"""Dobrushin variation :math:`d^\top b_t` after each prefix length in ``record_lengths``.

    Parameters
    ----------
    indptr, indices, data : arrays
        CSR form of :math:`\bar C` (``int32`` or ``int64`` indices, ``float64`` data).
    steps : (T,) int32 or int64
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
    offsets = tree_offsets(n_vars)
    tree = np.zeros(offsets[-1])
    products = weights * b
    tree_build(tree, offsets, products)
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
                    tree_set(tree, offsets, site, weights[site] * b[site])
            else:
                if scratch.size == 0:
                    scratch = np.empty(n_vars)
                uniform_step(indptr, indices, data, b, scratch)
                for i in range(n_vars):
                    products[i] = weights[i] * b[i]
                tree_build(tree, offsets, products)
            t += 1
        values[r] = tree_total(tree, offsets)
    return values
