r"""numba kernels for Gibbs sampling of discrete factor graphs with an arbitrary scan.

Model (:class:`dogs.models.factor_graph.DiscreteFactorGraph`):

.. math::

    \pi(x) \propto \prod_f \phi_f(x_{S_f}), \qquad x_i \in \{0, \dots, K_i - 1\}, \quad \phi_f \ge 0.

One step (DoGS Algorithm 1) picks ``i = scan[t]`` (or, when ``scan[t] == -1``, ``i = floor(u' p)`` for a fresh
uniform ``u'``) and draws the new ``x_i`` from its full conditional, the product of the factors that contain it:

.. math::

    \pi(X_i = k \mid x_{-i}) \propto w_k = \prod_{f \ni i} a_f\big(x_{S_f}^{(i \to k)}\big), \qquad
    a_f = \phi_f / \max \phi_f = e^{\theta_f - \max \theta_f},

by inverse CDF with ONE fresh uniform ``u`` (the rule of :mod:`dogs._kernels.discrete_gibbs`, whose
``label_from_cumulative`` this module shares): cumulative sums ``c_k`` left to right, ``W = c_{K_i - 1}``, and the
label ``#{k : c_k <= u W}``, which never draws a label of weight 0. Uniforms come from the chain's xoshiro256**
stream (:mod:`dogs._kernels.rng`) in the order: site uniform (only on ``-1`` steps), then the label uniform.

Table lookups. Every factor's table is stored flat in C order (the model's layout), so the entry of
``x_{S_f}`` with ``x_i = k`` is ``base + k s_i``, ``base = table_starts[f] + sum_{j in S_f, j != i} x_j s_j`` with
the strides ``s``; an update of ``i`` costs, per factor containing it, ``|S_f| - 1`` multiply-adds for the base and
``K_i`` lookups and products, multiplied in the order of the model's ``factor_ids`` of ``i``. Each ``a_f`` lies in
``[0, 1]``, so the products decrease; if ``W`` falls below ``TINY = 2**-600`` (many small factors), the update is
redone in the log domain (``l_k = sum_f theta_f``, ``w_k = exp(l_k - max l)``), as in the pairwise kernel. Zero
entries (``theta = -inf``, ``a = 0``) stay exact zeros in both. A site whose every label has weight 0 (a state of
probability 0: never reached from a start of positive probability, since the current label always has weight
``> 0`` there) keeps its label.

Everything is private and takes arrays and scalars only; :func:`dogs.samplers.factor_gibbs.run_factor_gibbs_draws`
validates, packs and casts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from dogs._kernels.discrete_gibbs import TINY, label_from_cumulative
from dogs._kernels.rng import uniform_from_bits, xoshiro_next

__all__ = ["factor_gibbs_chain_draws", "factor_gibbs_chains_draws", "factor_site_weights"]


@njit(inline="always", cache=True)
def _base(scope_starts, scope_vars, strides, table_starts, state, f, position):
    """``table_starts[f] + sum_{j in S_f, j != i} x_j s_j`` for the variable at ``position`` of factor ``f``."""
    lo, hi = scope_starts[f], scope_starts[f + 1]
    base = table_starts[f]
    for q in range(lo, hi):
        if q != lo + position:
            base += np.int64(state[np.uint64(scope_vars[q])]) * strides[q]
    return base


@njit(inline="always", cache=True)
def factor_site_weights(packed, state, site, work):
    """Cumulative weights of the labels of ``site`` into ``work[:K_i]`` (module docstring); returns ``K_i``."""
    (card, factor_indptr, factor_ids, factor_positions, scope_starts, scope_vars, strides, table_starts,
     exp_values, log_values) = packed
    n_states = np.int64(card[site])
    for k in range(n_states):
        work[k] = 1.0
    for slot in range(factor_indptr[site], factor_indptr[site + 1]):
        f, position = factor_ids[slot], factor_positions[slot]
        base = _base(scope_starts, scope_vars, strides, table_starts, state, f, position)
        step = strides[scope_starts[f] + position]
        for k in range(n_states):
            work[k] *= exp_values[base + k * step]
    total = 0.0
    for k in range(n_states):
        total += work[k]
        work[k] = total
    if total < TINY:  # every product small, or all zero: the log domain
        for k in range(n_states):
            work[k] = 0.0
        for slot in range(factor_indptr[site], factor_indptr[site + 1]):
            f, position = factor_ids[slot], factor_positions[slot]
            base = _base(scope_starts, scope_vars, strides, table_starts, state, f, position)
            step = strides[scope_starts[f] + position]
            for k in range(n_states):
                work[k] += log_values[base + k * step]
        peak = -np.inf
        for k in range(n_states):
            if work[k] > peak:
                peak = work[k]
        total = 0.0
        for k in range(n_states):
            if peak > -np.inf:
                total += math.exp(work[k] - peak)
            work[k] = total
    return n_states


@njit(inline="always", cache=True)
def _advance(packed, scan, state, work, s0, s1, s2, s3):
    """One pass of the scan on ``state`` in place; returns ``(evaluations, s0, s1, s2, s3)``."""
    n_vars = state.size
    evaluations = 0
    for t in range(scan.size):
        step_site = scan[t]
        if step_site < 0:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            step_site = np.int64(uniform_from_bits(bits) * n_vars)
        site = np.int64(step_site)
        n_states = factor_site_weights(packed, state, site, work)
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        if work[n_states - 1] > 0.0:
            state[site] = label_from_cumulative(work, np.uint64(n_states), uniform_from_bits(bits))
        evaluations += n_states - 1
    return evaluations, s0, s1, s2, s3


@njit(cache=True)
def factor_gibbs_chain_draws(packed, scan, state, rng_state, record_vars, labels, first, count):
    """Run ``count`` passes of the whole scan on one chain, in place, writing a draw after each pass; returns the
    density evaluations done (``K_i - 1`` per update).

    ``packed`` is the tuple of :func:`dogs.samplers.factor_gibbs.pack_factor_graph`; ``scan`` (T,) int64 in
    ``[-1, p)``; ``state`` (p,) int32 labels; ``rng_state`` (4,) uint64, advanced in place. One dependent sequence:
    pass ``k + 1`` starts where pass ``k`` ended; after pass ``k`` the labels of ``record_vars`` go to
    ``labels[first + k]`` (a ``(D, V)`` array, int8 or int32).
    """
    work = np.empty(packed[0].max(), dtype=np.float64)
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    evaluations = 0
    for k in range(count):
        n, s0, s1, s2, s3 = _advance(packed, scan, state, work, s0, s1, s2, s3)
        evaluations += n
        row = labels[first + k]
        for v in range(record_vars.size):
            row[v] = state[record_vars[v]]
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(parallel=True, cache=True)
def factor_gibbs_chains_draws(packed, scan, states, rng_states, record_vars, labels, first, count, evaluations):
    """:func:`factor_gibbs_chain_draws` for independent chains in parallel (``prange`` over chains): row ``c`` of
    ``states`` (C, p), ``rng_states`` (C, 4), ``labels`` (C, D, V) and ``evaluations`` (C,) (added to) is chain
    ``c``'s."""
    for c in prange(states.shape[0]):
        evaluations[c] += factor_gibbs_chain_draws(packed, scan, states[c], rng_states[c], record_vars, labels[c],
                                                   first, count)
