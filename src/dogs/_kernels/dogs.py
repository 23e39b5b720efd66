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
    ``O(m)`` row product and an ``O(log s)`` heap update, ``s`` = the size of the
    support of ``d``.

Sparse state (no ``O(p)`` work for a sparse ``d`` and a short input scan)
------------------------------------------------------------------------
Every variable with :math:`(d_t)_i = 0` has the derivative :math:`w_i = 0`
exactly, so the heap holds only the support of ``d``; the best of all the
others, by the tie rule below, is the *smallest index* ``z`` with ``d_z = 0``,
tracked alongside (it only moves when a variable enters or leaves the
support). The choice is the smaller of the heap's top and ``(0, 0, z)``:
exactly the argmin over all ``p`` keys. The vector ``b`` starts as
:math:`\mathbf 1`: it is held as values plus a "set" mask that starts all
zero (a read of an unset entry gives ``1.0``), and ``d``, ``w``, the mask and
the sum tree start as zero-filled allocations, which the operating system
provides without touching the memory. A run of Algorithm 2 on ``T`` steps with
``d = e_i`` therefore costs ``O(T m (m + log T))``, independent of ``p``.

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

Speed
-----
:func:`dogs_backward` is compiled with numba's ``_nrt=False``: it allocates nothing (its work space is
passed in), so it needs no reference counting. With it, every inlined helper that takes an array
(the heap operations, the row products) would take and release a reference to each array on every
call -- an atomic read-modify-write per array that the compiler could not remove across the helpers'
branches, about 45 per step, and most of the time of a step. Positions, variables and CSR slots
are handled as unsigned integers, so numba emits no negative-index fix-ups. The sift-down picks
the smaller child by adding the comparison's outcome to the index instead of branching on it
(which child is smaller is a coin flip the branch predictor cannot learn). None of this changes a
result; on a 300 x 300 grid with ``d = e_1`` and a systematic input scan a step went from about
350 ns to 180 ns (reference counting and unsigned indices) and then to 145 ns (the child choice),
measured with ``python -m dogs.benchmarks.dogs``.

Everything here is private and takes arrays and scalars only; the public
wrappers in :mod:`dogs.scans.dogs` validate and cast.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dogs._kernels.variation import tree_set, tree_total, uniform_step

__all__ = [
    "key_precedes",
    "heap_push",
    "heap_remove",
    "heap_update",
    "heapify",
    "dogs_forward",
    "dogs_backward",
    "clear_workspace",
]


@njit(cache=True, inline="always")
def key_precedes(w_a, d_a, var_a, w_b, d_b, var_b):
    """True when key ``(w_a, -d_a, var_a)`` comes before ``(w_b, -d_b, var_b)`` (lexicographic)."""
    if w_a != w_b:
        return w_a < w_b
    if d_a != d_b:
        return d_a > d_b
    return var_a < var_b


# The heap is four arrays and a size n: heap_var[pos] is the variable at heap position pos < n,
# heap_w[pos] and heap_d[pos] its key (kept next to it for cache locality), where[var] = pos + 1
# (0 when var is not in the heap). Positions are unsigned (see "Speed" in the module docstring).

_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _place(heap_var, heap_w, heap_d, where, pos, var, key_w, key_d):
    heap_var[pos], heap_w[pos], heap_d[pos] = var, key_w, key_d
    where[np.uint64(var)] = pos + _ONE


@njit(cache=True, inline="always")
def _sift_up(heap_var, heap_w, heap_d, where, pos):
    pos = np.uint64(pos)
    var, key_w, key_d = heap_var[pos], heap_w[pos], heap_d[pos]
    while pos > 0:
        parent = (pos - _ONE) >> _ONE
        if not key_precedes(key_w, key_d, var, heap_w[parent], heap_d[parent], heap_var[parent]):
            break
        _place(heap_var, heap_w, heap_d, where, pos, heap_var[parent], heap_w[parent], heap_d[parent])
        pos = parent
    _place(heap_var, heap_w, heap_d, where, pos, var, key_w, key_d)
    return pos


@njit(cache=True, inline="always")
def _sift_down(heap_var, heap_w, heap_d, where, n, pos):
    n, pos = np.uint64(n), np.uint64(pos)
    var, key_w, key_d = heap_var[pos], heap_w[pos], heap_d[pos]
    while True:
        child = pos + pos + _ONE
        if child >= n:
            break
        right = min(child + _ONE, n - _ONE)  # a missing right child compares with itself: False
        child += np.uint64(key_precedes(
            heap_w[right], heap_d[right], heap_var[right], heap_w[child], heap_d[child], heap_var[child]
        ))
        if not key_precedes(heap_w[child], heap_d[child], heap_var[child], key_w, key_d, var):
            break
        _place(heap_var, heap_w, heap_d, where, pos, heap_var[child], heap_w[child], heap_d[child])
        pos = child
    _place(heap_var, heap_w, heap_d, where, pos, var, key_w, key_d)


@njit(cache=True, inline="always")
def heap_update(heap_var, heap_w, heap_d, where, n, var, key_w, key_d):
    """Give ``var`` (in the heap) the key ``(key_w, -key_d, var)`` and restore heap order (``O(log n)``)."""
    pos = np.uint64(where[np.uint64(var)]) - _ONE
    if heap_w[pos] == key_w and heap_d[pos] == key_d:
        return
    heap_w[pos] = key_w
    heap_d[pos] = key_d
    pos = _sift_up(heap_var, heap_w, heap_d, where, pos)
    _sift_down(heap_var, heap_w, heap_d, where, n, pos)


@njit(cache=True, inline="always")
def heap_push(heap_var, heap_w, heap_d, where, n, var, key_w, key_d):
    """Insert ``var`` (not in the heap) with its key; returns the new size ``n + 1``."""
    _place(heap_var, heap_w, heap_d, where, np.uint64(n), var, key_w, key_d)
    _sift_up(heap_var, heap_w, heap_d, where, n)
    return n + 1


@njit(cache=True, inline="always")
def heap_remove(heap_var, heap_w, heap_d, where, n, var):
    """Remove ``var`` (in the heap); returns the new size ``n - 1``."""
    pos = np.uint64(where[np.uint64(var)]) - _ONE
    where[np.uint64(var)] = 0
    last = np.uint64(n - 1)
    if pos != last:
        _place(heap_var, heap_w, heap_d, where, pos, heap_var[last], heap_w[last], heap_d[last])
        pos = _sift_up(heap_var, heap_w, heap_d, where, pos)
        _sift_down(heap_var, heap_w, heap_d, where, last, pos)
    return n - 1


@njit(cache=True)
def heapify(heap_var, heap_w, heap_d, where, n):
    """Bottom-up heap order on the first ``n`` positions (filled by the caller); sets ``where`` (``O(n)``)."""
    for pos in range(n):
        where[heap_var[pos]] = pos + 1
    for pos in range(n // 2 - 1, -1, -1):
        _sift_down(heap_var, heap_w, heap_d, where, n, pos)


@njit(cache=True, inline="always")
def _b(b_value, b_set, j):
    """``b_j``: the stored value where set, else 1."""
    return b_value[j] if b_set[j] else 1.0


@njit(cache=True, inline="always")
def _row_dot(indptr, indices, data, b_value, b_set, row):
    r"""``(C̄ b)_row`` over the stored slots of ``row``, left to right; unset entries of ``b`` read as 1."""
    row = np.uint64(row)
    total = 0.0
    slot, end = np.uint64(indptr[row]), np.uint64(indptr[row + _ONE])
    while slot < end:
        total += data[slot] * _b(b_value, b_set, np.uint64(indices[slot]))
        slot += _ONE
    return total


@njit(cache=True, inline="always")
def _derivative(indptr, indices, data, b_value, b_set, d, k):
    r"""``w_k = -d_k ((I - C̄) b)_k = -d_k (b_k - (C̄ b)_k)``; exactly 0 when ``d_k = 0``."""
    k = np.uint64(k)
    if d[k] == 0.0:
        return 0.0
    return -d[k] * (_b(b_value, b_set, k) - _row_dot(indptr, indices, data, b_value, b_set, k))


@njit(cache=True, inline="always")
def _refresh(indptr, indices, data, b_value, b_set, d, w, heap_var, heap_w, heap_d, where, n, k):
    """Recompute ``w_k`` from the current ``d`` and ``b``; ``k`` enters, moves in or leaves the heap. Returns ``n``."""
    k = np.uint64(k)
    if d[k] != 0.0:
        w[k] = _derivative(indptr, indices, data, b_value, b_set, d, k)
        if where[k] == 0:
            return heap_push(heap_var, heap_w, heap_d, where, n, k, w[k], d[k])
        heap_update(heap_var, heap_w, heap_d, where, n, k, w[k], d[k])
        return n
    w[k] = 0.0
    if where[k] != 0:
        return heap_remove(heap_var, heap_w, heap_d, where, n, k)
    return n


@njit(cache=True)
def _support_variation(heap_var, n, d, b_value, b_set):
    """``d^T b`` over the support of ``d`` (the ``n`` variables in the heap)."""
    total = 0.0
    for pos in range(n):
        k = heap_var[pos]
        total += d[k] * _b(b_value, b_set, k)
    return total


@njit(cache=True)
def _materialise(b_value, b_set):
    """Write ``1.0`` into every unset entry of ``b`` (before a dense operation on it).

    Written as a select and an unconditional store, then one fill of the mask: the form with two
    conditional stores (``b_value[j] = 1.0; b_set[j] = 1`` under ``if not b_set[j]``) is vectorised by
    LLVM into masked stores that corrupt the byte mask on AVX-512 processors (seen with numba 0.68 on
    AMD Zen 4: entries already set were cleared). ``tests/test_dogs_algorithm.py`` catches it.
    """
    for j in range(b_value.size):
        b_value[j] = b_value[j] if b_set[j] else 1.0
    b_set[:] = 1


@njit(cache=True)
def dogs_forward(indptr, indices, data, steps, b_value, b_set, previous_values, uniform_snapshots):
    r"""Forward pass of Algorithm 2: ``b <- b_T`` (in place), recording what each step overwrote.

    Parameters
    ----------
    indptr, indices, data : arrays
        CSR form of :math:`\bar C`.
    steps : (T,) int32 or int64
        Input scan (``-1`` = uniform step).
    b_value, b_set : (p,) float64, (p,) uint8
        :math:`b`: ``b_j = b_value[j]`` where ``b_set[j]``, else 1. On entry :math:`b_0 = \mathbf 1`
        (``b_set`` all zero), on exit :math:`b_T`.
    previous_values : (T,) float64
        Output: for a deterministic step ``t`` (0-based), :math:`(b_t)_{i}` before the
        update, ``i = steps[t]`` (this is :math:`\Delta^b_t` in stored form).
    uniform_snapshots : (U, p) float64
        Output: row ``u`` is ``b`` before the ``u``-th uniform step.
    """
    scratch = np.empty(b_value.size) if uniform_snapshots.shape[0] > 0 else np.empty(0)
    n_uniform = 0
    for t in range(steps.size):
        site = steps[t]
        if site >= 0:
            previous_values[t] = _b(b_value, b_set, site)
            b_value[site] = _row_dot(indptr, indices, data, b_value, b_set, site)
            b_set[site] = 1
        else:
            if n_uniform == 0:
                _materialise(b_value, b_set)
            uniform_snapshots[n_uniform, :] = b_value
            n_uniform += 1
            uniform_step(indptr, indices, data, b_value, scratch)


@njit(cache=True, _nrt=False)
def dogs_backward(
    indptr, indices, data, col_indptr, col_indices, steps, support, weights, epsilon,
    b_value, b_set, previous_values, uniform_snapshots, out_steps, d, w, where, heap_var, heap_w, heap_d,
    tree, offsets,
):
    r"""Backward pass of Algorithm 2 (coordinate descent from ``t = T`` down to ``1``).

    Parameters
    ----------
    indptr, indices, data : arrays
        CSR form of :math:`\bar C` (rows: who is influenced).
    col_indptr, col_indices : arrays
        CSR form of the sparsity pattern of :math:`\bar C^\top`: ``col_indices[col_indptr[j]:col_indptr[j+1]]``
        are the rows ``k`` with :math:`\bar C_{kj} \ne 0` (whose :math:`(\bar C b)_k` reads :math:`b_j`).
    steps : (T,) int32 or int64
        Input scan (``-1`` = uniform step).
    support : (s,) int64
        The indices ``i`` with :math:`d_i > 0`, increasing.
    weights : (p,) float64
        :math:`d = d_T \ge 0`.
    epsilon : float
        Early-stopping level: stop as soon as :math:`\mathcal V \le \epsilon` (``-inf``: never).
    b_value, b_set, previous_values, uniform_snapshots : arrays
        State left by :func:`dogs_forward` (``b`` = :math:`b_T`); ``b`` is rewound in place.
    out_steps : (T,) of the type of ``steps``
        Holds a copy of ``steps`` on entry; optimised steps are written into it.
    d, w : (p,) float64, zero
        Work space for :math:`d_t` and ``w``.
    where : (p,) int64, zero
        Work space: heap positions.
    heap_var, heap_w, heap_d : (p,) int64, float64, float64
        Work space for the heap (any contents).
    tree : float64, zero, of length ``offsets[-1]``
        Work space: the sum tree of :math:`d_i b_i`, kept only with early stopping (``epsilon > -inf``),
        where :math:`\mathcal V` is needed after every step; otherwise :math:`\mathcal V` is summed over
        the support at both ends and the tree is never touched.
    offsets : int64
        ``tree_offsets(p)``.

    The work space is passed in (zero-filled where it says so: ``numpy.zeros``, which the operating
    system provides lazily) rather than allocated here, so that a run on a short scan touches only what
    it uses, and so that the kernel needs no reference counting (see "Speed" in the module docstring).

    Returns
    -------
    input_variation : float
        :math:`d^\top b_T`.
    variation : float
        :math:`d_{s}^\top b_{s}` where ``s`` is where the pass ended: the variation of ``out_steps``.
    stop : int
        ``s``: the number of leading input steps kept by early stopping, ``-1`` if the pass reached ``t = 1``
        without stopping (then every step was optimised).
    support_size : int
        The number of variables with :math:`d_i \ne 0` at the end; they are ``heap_var[:support_size]``
        (what :func:`clear_workspace` needs).
    """
    n_vars = b_value.size
    # Without early stopping V is needed only at both ends: no sum tree, V = d^T b over the support.
    track = epsilon > -np.inf

    # Initial state: d = d_T, w = -d ⊙ (I - C̄) b_T on the support, V = d^T b_T.
    for s in range(support.size):
        k = support[s]
        d[k] = weights[k]
    n = 0
    for s in range(support.size):
        k = support[s]
        w[k] = _derivative(indptr, indices, data, b_value, b_set, d, k)
        heap_var[s], heap_w[s], heap_d[s] = k, w[k], d[k]
        if track:
            tree_set(tree, offsets, k, d[k] * _b(b_value, b_set, k))
    n = support.size
    heapify(heap_var, heap_w, heap_d, where, n)
    zero = 0  # the smallest index with d = 0 (n_vars: none)
    while zero < n_vars and d[zero] != 0.0:
        zero += 1
    input_variation = tree_total(tree, offsets) if track else _support_variation(heap_var, n, d, b_value, b_set)
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
            rewound = np.uint64(site)
            b_value[rewound] = previous_values[t]
            if d[rewound] != 0.0:
                if track:
                    tree_set(tree, offsets, rewound, d[rewound] * b_value[rewound])
                n = _refresh(indptr, indices, data, b_value, b_set, d, w, heap_var, heap_w, heap_d, where, n, rewound)
            slot, end = np.uint64(col_indptr[rewound]), np.uint64(col_indptr[rewound + _ONE])
            while slot < end:
                k = np.uint64(col_indices[slot])
                if d[k] != 0.0:
                    n = _refresh(indptr, indices, data, b_value, b_set, d, w, heap_var, heap_w, heap_d, where, n, k)
                slot += _ONE
        else:
            n_uniform -= 1
            for j in range(n_vars):
                b_value[j] = uniform_snapshots[n_uniform, j]
            n = 0
            for k in range(n_vars):
                if d[k] != 0.0:
                    w[k] = _derivative(indptr, indices, data, b_value, b_set, d, k)
                    heap_var[n], heap_w[n], heap_d[n] = k, w[k], d[k]
                    n += 1
                    if track:
                        tree_set(tree, offsets, k, d[k] * b_value[k])
            heapify(heap_var, heap_w, heap_d, where, n)
        # q_t* = e_{argmin w} over all p keys (w, -d, index): the heap's top or (0, 0, zero).
        if n == 0:
            best = zero
        elif zero < n_vars and key_precedes(0.0, 0.0, zero, heap_w[0], heap_d[0], heap_var[0]):
            best = zero
        else:
            best = heap_var[0]
        out_steps[t] = best
        chosen = np.uint64(best)
        moved = d[chosen]
        if moved != 0.0:
            # d_{t-1}^T = d_t^T B(e_{i*}): d[i*] -> 0 (zero diagonal), row i* of C̄ receives moved weight.
            d[chosen] = 0.0
            if track:
                tree_set(tree, offsets, best, 0.0)
            n = _refresh(indptr, indices, data, b_value, b_set, d, w, heap_var, heap_w, heap_d, where, n, chosen)
            if best < zero:
                zero = best
            row_start, row_end = np.uint64(indptr[chosen]), np.uint64(indptr[chosen + _ONE])
            for slot in range(row_start, row_end):
                j = np.uint64(indices[slot])
                d[j] += moved * data[slot]
                if track:
                    tree_set(tree, offsets, j, d[j] * _b(b_value, b_set, j))
            for slot in range(row_start, row_end):
                n = _refresh(indptr, indices, data, b_value, b_set, d, w, heap_var, heap_w, heap_d, where, n,
                             indices[slot])
            while zero < n_vars and d[zero] != 0.0:
                zero += 1
        if track:
            variation = tree_total(tree, offsets)  # d_{t-1}^T b_{t-1}
    if not track:
        variation = _support_variation(heap_var, n, d, b_value, b_set)
    return input_variation, variation, stop, n


@njit(cache=True)
def clear_workspace(steps, b_set, d, w, where, heap_var, support_size, tree, offsets, tracked):
    """Zero what one run of :func:`dogs_forward` and :func:`dogs_backward` wrote into the zero-filled work space.

    The forward pass set ``b_set`` at the sites of ``steps`` (all of it at a uniform step); the backward
    pass leaves ``d``, ``w``, ``where`` and the sum tree's leaves non-zero only on the final support of
    ``d``, ``heap_var[:support_size]`` (a variable leaving the support gets ``w = 0``, ``where = 0`` and a zero
    leaf). Setting those leaves to zero recomputes every ancestor from zero children, so the tree is exactly
    empty again. Cost ``O(T + support_size log p)`` instead of a fresh ``O(p)`` allocation per run.
    """
    for t in range(steps.size):
        if steps[t] < 0:
            b_set[:] = 0
            break
        b_set[steps[t]] = 0
    for pos in range(support_size):
        k = heap_var[pos]
        d[k] = 0.0
        w[k] = 0.0
        where[k] = 0
        if tracked:
            tree_set(tree, offsets, k, 0.0)
