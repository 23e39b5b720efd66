r"""numba kernels for Gibbs sampling of discrete pairwise MRFs (Potts models) with an arbitrary scan.

Model (DoGS eq. (2); a Potts model is DoGS eq. (4)):

.. math::

    \pi(x) \propto \exp\Big(\sum_i \phi_i(x_i) + \sum_{(i,j) \in E} \theta^{ij}(x_i, x_j)\Big),
    \qquad x_i \in \{0, \dots, K_i - 1\}.

One step (DoGS Algorithm 1) picks ``i = scan[t]`` (or, when ``scan[t] == -1``,
``i = floor(u' p)`` for a fresh uniform ``u'``) and draws the new ``x_i`` from the
full conditional ``softmax(l)``,

.. math::

    l(k) = \phi_i(k) + \sum_{j \in N(i)} \theta^{ij}(k, x_j), \qquad k = 0, \dots, K_i - 1,

by inverse CDF with ONE fresh uniform ``u``. Uniforms come from the per-chain
xoshiro256** stream of :mod:`dogs._kernels.rng`, in the order: site uniform (only
on ``-1`` steps), then the label uniform.

Floating-point rule (replayed bit for bit by the plain-Python reference of the tests)
-------------------------------------------------------------------------------------
``exp`` is the C library's (numba's scalar ``math.exp``, the same function as
Python's ``math.exp``; no vector math library is involved). The weights
``w_k ∝ exp l(k)`` are products of exponentials tabulated once per run, so an update
costs no ``exp``:

.. math::

    w_k = a_i(k) \prod_{s} b_s(k, x_{j_s}), \qquad
    a_i(k) = e^{\phi_i(k) - \max_{k'} \phi_i(k')}, \qquad
    b_s(k, y) = e^{\theta^{ij}(k, y) - \max_{k'} \theta^{ij}(k', y)},

multiplied left to right (``a_i(k)`` first, then the CSR slots ``s`` of ``i`` in
order, ``j_s`` the neighbour of slot ``s``). Every factor lies in ``[0, 1]`` and
normalising each row by its maximum changes no conditional, since it multiplies
all ``w_k`` by the same constant. Then:

1. cumulative sums ``c_k = w_0 + ... + w_k`` (left to right) and ``W = c_{K_i - 1}``;
2. if ``W >= TINY = 2**-600``: ``target = u * W`` and the new label is
   ``#{k : c_k <= target}`` (the first ``k`` with ``target < c_k``, which has ``w_k > 0``:
   a label of zero weight is never drawn). A guard maps a count of ``K_i`` to
   ``#{k : c_k < W}`` (the last label whose weight moved the sum); it cannot fire, since
   ``u <= 1 - 2**-53`` gives ``fl(u * W) < W`` in round-to-nearest for every ``W > 0``;
3. if ``W < TINY`` (the factors of every label multiply to less than ``2**-600 ~ 1e-180``:
   only with enormous, conflicting potentials) the update is redone in the log domain:
   ``l(k)`` accumulated left to right (``phi_i(k)``, then the slots in order),
   ``m = max_k l(k)`` (strict ``>``, first to last), ``w_k = exp(l(k) - m)``, and
   step 1-2 on these weights (``W >= 1`` here).

Accuracy: the factors are at most 1, so the partial products of ``w_k`` decrease; if one
of them leaves the normal range (below ``2**-1022``, or an ``exp`` underflows to 0), the
exact ``w_k`` is below ``2**-1022`` too and, as ``W >= 2**-600``, the label's conditional
probability is below ``2**-422``. Otherwise each ``w_k`` is within a few ulps of
``exp l(k)`` times the common constant. So the rule samples the full conditional to
rounding error, like the log-domain rule, without its ``K_i`` calls to ``exp``.

Packed model (built by :mod:`dogs.samplers.discrete_gibbs`)
-----------------------------------------------------------
``card`` (p,) int64
    ``K_i``.
``log_unary``, ``exp_unary`` (p * Kmax,) float64
    ``phi_i(k)`` and ``a_i(k)`` at ``i * Kmax + k`` for ``k < K_i`` (padding unused).
``indptr``, ``neighbors`` (p+1,), (S,) int32 or int64 (the model's index type)
    CSR neighbour lists of the model.
``slot_offset`` (S,) int64; ``log_tables``, ``exp_tables`` (N,) float64
    The table of CSR slot ``s`` of site ``i`` (neighbour ``j``), oriented ``(x_j, k)``,
    row-major with rows of length ``K_i``: ``theta^{ij}(k, y) = log_tables[slot_offset[s] + y K_i + k]``
    and ``b_s(k, y) = exp_tables[...]`` at the same place, so a neighbour contributes one
    contiguous row. Identical oriented tables are stored once (a Potts model with one
    coupling needs a single ``K x K`` block, its table being symmetric).

Optional outputs: ``recorded[r, v]`` is ``x[record_vars[v]]`` after ``record_times[r]``
steps; ``counts[i * Kmax + k]`` (a flat ``(p, Kmax)`` array; an empty array counts
nothing) counts the steps ``t >= count_from`` (0-based) whose update set ``x_i = k``.
The kernels return the number of single-flip density evaluations, ``sum over steps (K_i - 1)``.

Everything is private and takes arrays and scalars only; the public wrapper
:func:`dogs.samplers.discrete_gibbs.run_discrete_gibbs` validates and packs.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from dogs._kernels.rng import uniform_from_bits, xoshiro_next

__all__ = ["TINY", "exp_rows", "label_from_cumulative", "discrete_gibbs_chain", "discrete_gibbs_chain_draws",
           "discrete_gibbs_chains", "discrete_gibbs_chains_draws"]

TINY = 2.0**-600


@njit(cache=True)
def exp_rows(values, starts, row_lengths, n_rows):
    """Row-normalised exponentials of blocks of rows: ``exp(v - max of its row)``.

    Block ``b`` holds ``n_rows[b]`` rows of ``row_lengths[b]`` values from ``values[starts[b]]`` on
    (row-major); the output has the shape of ``values`` (entries outside blocks stay 0).
    """
    out = np.zeros_like(values)
    for b in range(starts.size):
        length = row_lengths[b]
        for r in range(n_rows[b]):
            base = starts[b] + r * length
            peak = values[base]
            for k in range(1, length):
                if values[base + k] > peak:
                    peak = values[base + k]
            for k in range(length):
                out[base + k] = math.exp(values[base + k] - peak)
    return out


@njit(inline="always", cache=True)
def label_from_cumulative(cumulative, n_states, u):
    """Inverse-CDF label from cumulative weights ``c_0 <= ... <= c_{n-1} = W`` and a uniform ``u`` (steps 2)."""
    total = cumulative[n_states - 1]
    target = u * total
    label = np.uint64(0)
    for k in range(n_states):
        label += np.uint64(cumulative[k] <= target)
    if label == n_states:
        label = np.uint64(0)
        for k in range(n_states):
            label += np.uint64(cumulative[k] < total)
    return label


@njit(inline="always", cache=True)
def _log_domain_cumulative(log_unary, log_tables, indptr, neighbors, slot_offset, state, site, n_states, k_max, work):
    """Step 3 of the rule: cumulative weights ``exp(l(k) - max l)`` into ``work``."""
    base = site * k_max
    for k in range(n_states):
        work[k] = log_unary[base + k]
    for slot in range(np.uint64(indptr[site]), np.uint64(indptr[site + np.uint64(1)])):
        row = np.uint64(slot_offset[slot]) + np.uint64(state[np.uint64(neighbors[slot])]) * n_states
        for k in range(n_states):
            work[k] += log_tables[row + k]
    peak = work[0]
    for k in range(1, n_states):
        if work[k] > peak:
            peak = work[k]
    acc = 0.0
    for k in range(n_states):
        acc += math.exp(work[k] - peak)
        work[k] = acc


@njit(inline="always", cache=True)
def _advance(
    card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, k_max,
    scan, start, stop, state, work, counts, count_from, s0, s1, s2, s3,
):  # fmt: skip
    """Run scan steps ``start <= t < stop`` on ``state`` in place; returns ``(evaluations, s0, s1, s2, s3)``.

    Indices are cast to unsigned after the ``-1`` test so numba emits no negative-index fix-ups.
    """
    n_vars = state.size
    counting = counts.size > 0
    evaluations = 0
    one = np.uint64(1)
    for t in range(start, stop):
        step_site = scan[t]
        if step_site < 0:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            step_site = np.int64(uniform_from_bits(bits) * n_vars)
        site = np.uint64(step_site)
        n_states = np.uint64(card[site])
        base = site * k_max
        for k in range(n_states):
            work[k] = exp_unary[base + k]
        for slot in range(np.uint64(indptr[site]), np.uint64(indptr[site + one])):
            row = np.uint64(slot_offset[slot]) + np.uint64(state[np.uint64(neighbors[slot])]) * n_states
            for k in range(n_states):
                work[k] *= exp_tables[row + k]
        acc = 0.0
        for k in range(n_states):
            acc += work[k]
            work[k] = acc
        if acc < TINY:
            _log_domain_cumulative(log_unary, log_tables, indptr, neighbors, slot_offset, state, site, n_states, k_max, work)
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        label = label_from_cumulative(work, n_states, uniform_from_bits(bits))
        state[site] = label
        evaluations += np.int64(n_states) - 1
        if counting and t >= count_from:
            counts[site * k_max + label] += 1
    return evaluations, s0, s1, s2, s3


@njit(cache=True)
def discrete_gibbs_chain(
    card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, scan, state, rng_state,
    record_vars, record_times, recorded, counts, count_from,
):  # fmt: skip
    """Run one chain through the whole scan, in place; returns the density evaluations done.

    Parameters
    ----------
    card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables
        The packed model (module docstring); ``Kmax = log_unary.size // card.size``.
    scan : (T,) int32 or int64
        Scan indices in ``[-1, p)``; ``-1`` draws the site uniformly.
    state : (p,) int32
        Labels ``0 <= x_i < K_i``, overwritten with the state after ``T`` steps.
    rng_state : (4,) uint64
        xoshiro256** state, advanced in place.
    record_vars : (V,) int64, record_times : (R,) int64, recorded : (R, V) int32
        ``recorded[r]`` receives ``x[record_vars]`` after ``record_times[r]`` steps (non-decreasing, in ``[0, T]``).
    counts : (p * Kmax,) int64 or (0,) int64
        Label counts ``counts[i * Kmax + k]`` (a flat ``(p, Kmax)`` array), incremented in place
        (steps ``t >= count_from``); an empty array counts nothing.
    count_from : int
        First (0-based) step whose update is counted.
    """
    k_max = np.uint64(log_unary.size // card.size)
    work = np.empty(k_max, dtype=np.float64)
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    evaluations = 0
    done = 0
    for r in range(record_times.size):
        stop = record_times[r]
        n, s0, s1, s2, s3 = _advance(
            card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, k_max,
            scan, done, stop, state, work, counts, count_from, s0, s1, s2, s3,
        )  # fmt: skip
        evaluations += n
        done = stop
        for v in range(record_vars.size):
            recorded[r, v] = state[record_vars[v]]
    n, s0, s1, s2, s3 = _advance(
        card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, k_max,
        scan, done, scan.size, state, work, counts, count_from, s0, s1, s2, s3,
    )  # fmt: skip
    evaluations += n
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(parallel=True, cache=True)
def discrete_gibbs_chains(
    card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, scan, states, rng_states,
    record_vars, record_times, recorded, counts, count_from, evaluations,
):  # fmt: skip
    """Independent chains in parallel (``prange`` over chains).

    Row ``c`` of ``states`` (C, p), ``rng_states`` (C, 4), ``recorded`` (C, R, V),
    ``counts`` (C, p * Kmax) or (C, 0) and ``evaluations`` (C,) int64 belongs to
    chain ``c``; every other argument is shared and read only. See :func:`discrete_gibbs_chain`.
    """
    for c in prange(states.shape[0]):
        evaluations[c] = discrete_gibbs_chain(
            card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, scan, states[c],
            rng_states[c], record_vars, record_times, recorded[c], counts[c], count_from,
        )  # fmt: skip



@njit(cache=True)
def discrete_gibbs_chain_draws(
    card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, scan, state, rng_state,
    record_vars, labels, first, count,
):  # fmt: skip
    """Run ``count`` passes of the whole scan on one chain, in place, writing a draw after each pass; returns the
    density evaluations done.

    One dependent sequence: pass ``k + 1`` starts where pass ``k`` ended. After pass ``k`` the labels of
    ``record_vars`` go to ``labels[first + k]`` (a ``(D, V)`` array, int8 or int32). Other arguments as in
    :func:`discrete_gibbs_chain`.
    """
    k_max = np.uint64(log_unary.size // card.size)
    work = np.empty(k_max, dtype=np.float64)
    counts = np.zeros(0, dtype=np.int64)
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    evaluations = 0
    for k in range(count):
        n, s0, s1, s2, s3 = _advance(
            card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, k_max,
            scan, 0, scan.size, state, work, counts, 0, s0, s1, s2, s3,
        )  # fmt: skip
        evaluations += n
        row = labels[first + k]
        for v in range(record_vars.size):
            row[v] = state[record_vars[v]]
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(parallel=True, cache=True)
def discrete_gibbs_chains_draws(
    card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, scan, states, rng_states,
    record_vars, labels, first, count, evaluations,
):  # fmt: skip
    """:func:`discrete_gibbs_chain_draws` for independent chains in parallel (``prange`` over chains): row ``c`` of
    ``states`` (C, p), ``rng_states`` (C, 4), ``labels`` (C, D, V) and ``evaluations`` (C,) int64 (added to) belongs
    to chain ``c``."""
    for c in prange(states.shape[0]):
        evaluations[c] += discrete_gibbs_chain_draws(
            card, log_unary, exp_unary, indptr, neighbors, slot_offset, log_tables, exp_tables, scan, states[c],
            rng_states[c], record_vars, labels[c], first, count,
        )  # fmt: skip
