r"""numba kernels for DoGS Algorithm 2 (scan selection by coordinate descent).

Notation (DoGS §§3-4, Algorithm 2): :math:`B(q) = I - \operatorname{diag}(q)(I - \bar C)`,
:math:`b_t = B(q_t) b_{t-1}` with :math:`b_0 = \mathbf 1`,
:math:`d_T = d` and :math:`d_{t-1}^\top = d_t^\top B(q_t^*)`.
The objective for step ``t`` is linear in :math:`q_t`,

.. math::

    d_t^\top B(q_t)\, b_{t-1} = d_t^\top b_{t-1} + q_t^\top w, \qquad
    w = -\, d_t \odot (I - \bar C)\, b_{t-1},

so the coordinate minimiser is :math:`q_t^* = e_{i^*}`, :math:`i^* = \arg\min_i w_i`.

Kernels
-------
:func:`dogs_forward`
    Forward pass. A deterministic step :math:`q_t = e_i` changes only
    :math:`b_i`; its change :math:`\Delta_{t-1}^b` is recorded as the
    overwritten value :math:`(b_{t-1})_i` (one float per step, so the
    backward restore is exact in floating point). A uniform step changes all of
    ``b``; the whole :math:`b_{t-1}` is recorded (``O(p)`` per uniform step).
:func:`dogs_backward`
    Backward pass with the derivative vector ``w`` in an indexed binary
    min-heap. After a deterministic step only the entries of ``w`` whose inputs
    changed are recomputed *from the current* ``d`` *and* ``b`` (never by
    accumulating increments): ``i_t`` and the rows that read ``b_{i_t}``
    (column ``i_t`` of :math:`\bar C`), then ``i*`` and the entries of ``d``
    that received weight (row ``i*``). That is ``O(m)`` entries, each an
    ``O(m)`` row product and an ``O(log p)`` heap update.

Heap order (the tie rule)
-------------------------
Entries are ordered by the key ``(w_i, -d_i, i)``: smallest derivative first;
among exact ties the variable carrying the most weight :math:`(d_t)_i`;
then the smallest index. The middle key matters when no variable strictly
improves (``min w = 0``, e.g. ``d = e_1`` right after the target was
updated): every variable with :math:`d_i = 0` ties at zero but choosing one
is a wasted step, whereas choosing a weighted variable with
:math:`w_i = 0` keeps :math:`\mathcal V` and moves its weight onto its
neighbours, where earlier steps can reduce it.

Everything here is private and takes arrays and scalars only; the public
wrappers in :mod:`dogs.scans.dogs` validate and cast.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dogs._kernels.variation import row_dot, tree_build, tree_leaf_count, tree_set, uniform_step

__all__ = [
    "key_precedes",
    "heap_update",
    "heapify",
    "dogs_forward",
    "dogs_backward",
]


@njit(cache=True, inline="always")
def key_precedes(w_a, d_a, var_a, w_b, d_b, var_b):
    """True when key ``(w_a, -d_a, var_a)`` comes before ``(w_b, -d_b, var_b)`` (lexicographic)."""
    if w_a != w_b:
        return w_a < w_b
    if d_a != d_b:
        return d_a > d_b
    return var_a < var_b


# The heap is four arrays: heap_var[pos] is the variable at heap position pos, heap_w[pos] and
# heap_d[pos] its key (kept next to it for cache locality), where[var] its position.


@njit(cache=True)
def _sift_up(heap_var, heap_w, heap_d, where, pos):
    var, key_w, key_d = heap_var[pos], heap_w[pos], heap_d[pos]
    while pos > 0:
        parent = (pos - 1) >> 1
        if not key_precedes(key_w, key_d, var, heap_w[parent], heap_d[parent], heap_var[parent]):
            break
        heap_var[pos], heap_w[pos], heap_d[pos] = heap_var[parent], heap_w[parent], heap_d[parent]
        where[heap_var[pos]] = pos
        pos = parent
    heap_var[pos], heap_w[pos], heap_d[pos] = var, key_w, key_d
    where[var] = pos
    return pos


@njit(cache=True)
def _sift_down(heap_var, heap_w, heap_d, where, pos):
    n = heap_var.size
    var, key_w, key_d = heap_var[pos], heap_w[pos], heap_d[pos]
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        right = child + 1
        if right < n and key_precedes(
            heap_w[right], heap_d[right], heap_var[right], heap_w[child], heap_d[child], heap_var[child]
        ):
            child = right
        if not key_precedes(heap_w[child], heap_d[child], heap_var[child], key_w, key_d, var):
            break
        heap_var[pos], heap_w[pos], heap_d[pos] = heap_var[child], heap_w[child], heap_d[child]
        where[heap_var[pos]] = pos
        pos = child
    heap_var[pos], heap_w[pos], heap_d[pos] = var, key_w, key_d
    where[var] = pos


@njit(cache=True)
def heap_update(heap_var, heap_w, heap_d, where, var, key_w, key_d):
    """Give ``var`` the key ``(key_w, -key_d, var)`` and restore heap order (``O(log p)``; no-op if unchanged)."""
    pos = where[var]
    if heap_w[pos] == key_w and heap_d[pos] == key_d:
        return
    heap_w[pos] = key_w
    heap_d[pos] = key_d
    pos = _sift_up(heap_var, heap_w, heap_d, where, pos)
    _sift_down(heap_var, heap_w, heap_d, where, pos)


@njit(cache=True)
def heapify(heap_var, heap_w, heap_d, where, w, d):
    """Bottom-up heap construction over all variables with keys ``(w_i, -d_i, i)`` (``O(p)``)."""
    n = heap_var.size
    for i in range(n):
        heap_var[i] = i
        heap_w[i] = w[i]
        heap_d[i] = d[i]
        where[i] = i
    for pos in range(n // 2 - 1, -1, -1):
        _sift_down(heap_var, heap_w, heap_d, where, pos)


@njit(cache=True, inline="always")
def _derivative(indptr, indices, data, b, d, k):
    r"""``w_k = -d_k ((I - C̄) b)_k = -d_k (b_k - (C̄ b)_k)``; exactly 0 when ``d_k = 0``."""
    if d[k] == 0.0:
        return 0.0
    return -d[k] * (b[k] - row_dot(indptr, indices, data, b, k))


@njit(cache=True, inline="always")
def _refresh(indptr, indices, data, b, d, w, heap_var, heap_w, heap_d, where, k):
    """Recompute ``w_k`` from the current ``d`` and ``b`` and reposition ``k`` in the heap."""
    w[k] = _derivative(indptr, indices, data, b, d, k)
    heap_update(heap_var, heap_w, heap_d, where, k, w[k], d[k])


@njit(cache=True)
def dogs_forward(indptr, indices, data, steps, b, previous_values, uniform_snapshots):
    r"""Forward pass of Algorithm 2: ``b <- b_T`` (in place), recording what each step overwrote.

    Parameters
    ----------
    indptr, indices, data : arrays
        CSR form of :math:`\bar C`.
    steps : (T,) int64
        Input scan (``-1`` = uniform step).
    b : (p,) float64
        :math:`b_0 = \mathbf 1` on entry, :math:`b_T` on exit.
    previous_values : (T,) float64
        Output: for a deterministic step ``t`` (0-based), :math:`(b_t)_{i}` before the
        update, ``i = steps[t]`` (this is :math:`\Delta^b_t` in stored form).
    uniform_snapshots : (U, p) float64
        Output: row ``u`` is ``b`` before the ``u``-th uniform step.
    """
    scratch = np.empty(b.size) if uniform_snapshots.shape[0] > 0 else np.empty(0)
    n_uniform = 0
    for t in range(steps.size):
        site = steps[t]
        if site >= 0:
            previous_values[t] = b[site]
            b[site] = row_dot(indptr, indices, data, b, site)
        else:
            uniform_snapshots[n_uniform, :] = b
            n_uniform += 1
            uniform_step(indptr, indices, data, b, scratch)


@njit(cache=True)
def dogs_backward(
    indptr, indices, data, col_indptr, col_indices, steps, weights, epsilon,
    b, previous_values, uniform_snapshots, out_steps,
):
    r"""Backward pass of Algorithm 2 (coordinate descent from ``t = T`` down to ``1``).

    Parameters
    ----------
    indptr, indices, data : arrays
        CSR form of :math:`\bar C` (rows: who is influenced).
    col_indptr, col_indices : arrays
        CSR form of the sparsity pattern of :math:`\bar C^\top`: ``col_indices[col_indptr[j]:col_indptr[j+1]]``
        are the rows ``k`` with :math:`\bar C_{kj} \ne 0` (whose :math:`(\bar C b)_k` reads :math:`b_j`).
    steps : (T,) int64
        Input scan (``-1`` = uniform step).
    weights : (p,) float64
        :math:`d = d_T \ge 0`.
    epsilon : float
        Early-stopping level: stop as soon as :math:`\mathcal V \le \epsilon` (``-inf``: never).
    b, previous_values, uniform_snapshots : arrays
        State left by :func:`dogs_forward` (``b`` = :math:`b_T`); ``b`` is rewound in place.
    out_steps : (T,) int64
        Holds a copy of ``steps`` on entry; optimised steps are written into it.

    Returns
    -------
    input_variation : float
        :math:`d^\top b_T`.
    variation : float
        :math:`d_{s}^\top b_{s}` where ``s`` is where the pass ended: the variation of ``out_steps``.
    stop : int
        ``s``: the number of leading input steps kept by early stopping, ``-1`` if the pass reached ``t = 1``
        without stopping (then every step was optimised).
    """
    n_vars = b.size
    d = np.zeros(n_vars)
    w = np.zeros(n_vars)
    heap_var = np.empty(n_vars, dtype=np.int64)
    heap_w = np.zeros(n_vars)
    heap_d = np.zeros(n_vars)
    where = np.empty(n_vars, dtype=np.int64)
    leaf_count = tree_leaf_count(n_vars)
    tree = np.zeros(2 * leaf_count)

    # Initial state: d = d_T, w = -d ⊙ (I - C̄) b_T, V = d^T b_T.
    # Keys (0, 0, i) in index order already form a heap; insert the support of d one entry at a time
    # when it is small (O(||d||_0 (m + log p))), otherwise fill everything and heapify (O(nnz + p)).
    support = np.flatnonzero(weights)
    if support.size * 32 < n_vars:
        for i in range(n_vars):
            heap_var[i] = i
            where[i] = i
        for s in range(support.size):
            k = support[s]
            d[k] = weights[k]
            w[k] = _derivative(indptr, indices, data, b, d, k)
            heap_update(heap_var, heap_w, heap_d, where, k, w[k], d[k])
            tree_set(tree, leaf_count, k, d[k] * b[k])
    else:
        for k in range(n_vars):
            d[k] = weights[k]
        for s in range(support.size):
            k = support[s]
            w[k] = _derivative(indptr, indices, data, b, d, k)
        heapify(heap_var, heap_w, heap_d, where, w, d)
        tree_build(tree, leaf_count, d * b)
    input_variation = tree[1]
    variation = input_variation
    n_uniform = uniform_snapshots.shape[0]
    stop = -1

    for t in range(steps.size - 1, -1, -1):
        if variation <= epsilon:
            stop = t + 1
            break
        # Rewind b_t -> b_{t-1} and refresh every w entry that reads the restored values.
        site = steps[t]
        if site >= 0:
            b[site] = previous_values[t]
            if d[site] != 0.0:
                tree_set(tree, leaf_count, site, d[site] * b[site])
            _refresh(indptr, indices, data, b, d, w, heap_var, heap_w, heap_d, where, site)
            for slot in range(col_indptr[site], col_indptr[site + 1]):
                k = col_indices[slot]
                if d[k] != 0.0:
                    _refresh(indptr, indices, data, b, d, w, heap_var, heap_w, heap_d, where, k)
        else:
            n_uniform -= 1
            b[:] = uniform_snapshots[n_uniform]
            for k in range(n_vars):
                w[k] = _derivative(indptr, indices, data, b, d, k)
            heapify(heap_var, heap_w, heap_d, where, w, d)
            tree_build(tree, leaf_count, d * b)
        # q_t* = e_{argmin w} (key order (w, -d, index)); then d_{t-1}^T = d_t^T B(e_{i*}).
        best = heap_var[0]
        out_steps[t] = best
        moved = d[best]
        if moved != 0.0:
            d[best] = 0.0  # d_t[i*] (1 - C̄_{i* i*}) with a zero diagonal
            tree_set(tree, leaf_count, best, 0.0)
            for slot in range(indptr[best], indptr[best + 1]):
                j = indices[slot]
                d[j] += moved * data[slot]
                tree_set(tree, leaf_count, j, d[j] * b[j])
            _refresh(indptr, indices, data, b, d, w, heap_var, heap_w, heap_d, where, best)
            for slot in range(indptr[best], indptr[best + 1]):
                _refresh(indptr, indices, data, b, d, w, heap_var, heap_w, heap_d, where, indices[slot])
        variation = tree[1]  # d_{t-1}^T b_{t-1}
    return input_variation, variation, stop
