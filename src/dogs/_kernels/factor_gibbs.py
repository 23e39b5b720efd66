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

Blocks (:mod:`dogs.samplers.factor_blocks`). A variable may belong to a block ``B`` (``block_of[i] >= 0``);
a step on ``i`` then draws the whole block from its joint conditional given the rest,

.. math::

    \pi(X_B = c \mid x_{-B}) \propto w_c = \prod_{f \cap B \ne \emptyset} a_f\big(x_{S_f}^{(B \to c)}\big),

over the block's listed candidate configurations ``c`` (its internal support, which holds every configuration of
positive conditional probability whatever the rest; in C order over the sorted block variables, the last
fastest), each weight the product of the block's factors (each factor once, in the block's list order), with the
same log-domain fallback, and ONE label uniform picks the configuration by the same inverse CDF. A block whose
every candidate has weight 0 (a state of probability 0) keeps its labels. ``|B| = 1`` or no block: the
single-site update above. A variable whose home is an *elimination block* (``plan[0][i] >= 0``,
:mod:`dogs.samplers.elimination_blocks`) draws that block instead, exactly, by variable elimination
(:mod:`dogs._kernels.elimination_block`; one uniform per variable of the block). Every step is a Gibbs kernel of
``pi``, so any scan of them leaves ``pi`` invariant.

Everything is private and takes arrays and scalars only; :func:`dogs.samplers.factor_gibbs.run_factor_gibbs_draws`
validates, packs and casts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from dogs._kernels.discrete_gibbs import TINY, label_from_cumulative
from dogs._kernels.elimination_block import elimination_block_update
from dogs._kernels.rng import uniform_from_bits, xoshiro_next

__all__ = ["factor_block_weights", "factor_gibbs_chain_draws", "factor_gibbs_chains_draws", "factor_site_weights"]


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
def _entry(scope_starts, scope_vars, strides, table_starts, state, f):
    """Flat index of factor ``f``'s entry at the current ``state``."""
    offset = table_starts[f]
    for q in range(scope_starts[f], scope_starts[f + 1]):
        offset += np.int64(state[scope_vars[q]]) * strides[q]
    return offset


@njit(inline="always", cache=True)
def _cumulative_from_logs(work, n):
    """Replace the log weights ``work[:n]`` by the cumulative sums of ``exp(work - max)`` (the log-domain update of
    the module docstring; all zeros when every weight is -inf)."""
    peak = -np.inf
    for k in range(n):
        if work[k] > peak:
            peak = work[k]
    total = 0.0
    for k in range(n):
        if peak > -np.inf:
            total += math.exp(work[k] - peak)
        work[k] = total


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
        _cumulative_from_logs(work, n_states)
    return n_states


@njit(inline="always", cache=True)
def _set_configuration(configs, first, block_vars, lo, hi, state, configuration):
    """Write the block's listed configuration number ``configuration`` (its rows start at ``configs[first]``, one
    label per block variable) into ``state``."""
    row = first + configuration * (hi - lo)
    for q in range(lo, hi):
        state[block_vars[q]] = configs[row + q - lo]


@njit(inline="always", cache=True)
def factor_block_weights(packed, blocks, state, block, work):
    """Cumulative weights of the candidate configurations of ``block`` into ``work`` (module docstring); returns
    their number. ``state`` is left at the last configuration: the caller writes the drawn one."""
    (_, _, _, _, scope_starts, scope_vars, strides, table_starts, exp_values, log_values) = packed
    _, block_indptr, block_vars, block_factor_indptr, block_factors, _, config_indptr, configs = blocks
    lo, hi = block_indptr[block], block_indptr[block + 1]
    f_lo, f_hi = block_factor_indptr[block], block_factor_indptr[block + 1]
    first = config_indptr[block]
    n_configs = (config_indptr[block + 1] - first) // (hi - lo)
    total = 0.0
    for c in range(n_configs):
        _set_configuration(configs, first, block_vars, lo, hi, state, c)
        weight = 1.0
        for slot in range(f_lo, f_hi):
            weight *= exp_values[_entry(scope_starts, scope_vars, strides, table_starts, state, block_factors[slot])]
        total += weight
        work[c] = total
    if total < TINY:  # the log domain, as for one site
        for c in range(n_configs):
            _set_configuration(configs, first, block_vars, lo, hi, state, c)
            log_weight = 0.0
            for slot in range(f_lo, f_hi):
                f = block_factors[slot]
                log_weight += log_values[_entry(scope_starts, scope_vars, strides, table_starts, state, f)]
            work[c] = log_weight
        _cumulative_from_logs(work, n_configs)
    return n_configs


@njit(inline="always", cache=True)
def _advance(packed, blocks, plan, scan, state, buffers, s0, s1, s2, s3):
    """One pass of the scan on ``state`` in place; returns ``(evaluations, s0, s1, s2, s3)``."""
    n_vars = state.size
    block_of, block_indptr, block_vars = blocks[0], blocks[1], blocks[2]
    config_indptr, configs = blocks[6], blocks[7]
    elimination_of = plan[0]
    work, saved = buffers[0], buffers[1]
    evaluations = 0
    for t in range(scan.size):
        step_site = scan[t]
        if step_site < 0:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            step_site = np.int64(uniform_from_bits(bits) * n_vars)
        site = np.int64(step_site)
        if elimination_of[site] >= 0:
            entries, s0, s1, s2, s3 = elimination_block_update(packed, plan, elimination_of[site], state, buffers[2:],
                                                               s0, s1, s2, s3)
            evaluations += entries
            continue
        block = block_of[site]
        if block < 0:
            n_states = factor_site_weights(packed, state, site, work)
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            if work[n_states - 1] > 0.0:
                state[site] = label_from_cumulative(work, np.uint64(n_states), uniform_from_bits(bits))
            evaluations += n_states - 1
            continue
        lo, hi = block_indptr[block], block_indptr[block + 1]
        for q in range(lo, hi):  # the current labels, kept if no candidate has weight
            saved[q - lo] = state[block_vars[q]]
        n_configs = factor_block_weights(packed, blocks, state, block, work)
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        if n_configs > 0 and work[n_configs - 1] > 0.0:
            drawn = np.int64(label_from_cumulative(work, np.uint64(n_configs), uniform_from_bits(bits)))
            _set_configuration(configs, config_indptr[block], block_vars, lo, hi, state, drawn)
        else:
            for q in range(lo, hi):
                state[block_vars[q]] = saved[q - lo]
        evaluations += max(n_configs - 1, 0)
    return evaluations, s0, s1, s2, s3


@njit(inline="always", cache=True)
def _buffers(packed, blocks, plan, state):
    """A chain's work arrays: the label and configuration weights, a block's saved labels, and the elimination
    kernel's ``(products, messages, digits, bases, offsets, last_strides, vectors, work)``."""
    sizes = plan[15]
    work = np.empty(max(np.int64(packed[0].max()), blocks[5]), dtype=np.float64)
    saved = np.empty(max(np.int64(1), np.max(np.diff(blocks[1])) if blocks[1].size > 1 else np.int64(1)),
                     dtype=state.dtype)
    return (work, saved, np.empty(sizes[0], dtype=np.float64), np.empty(sizes[1], dtype=np.float64),
            np.zeros(sizes[2], dtype=np.int64), np.zeros(sizes[3], dtype=np.int64), np.zeros(sizes[3], dtype=np.int64),
            np.zeros(sizes[3], dtype=np.int64), np.empty(sizes[2] * sizes[4], dtype=np.float64), work)


@njit(cache=True)
def factor_gibbs_chain_draws(packed, blocks, plan, scan, state, rng_state, record_vars, labels, first, count):
    """Run ``count`` passes of the whole scan on one chain, in place, writing a draw after each pass; returns the
    density evaluations done (``K_i - 1`` per single-site update, configurations ``- 1`` per block update, table
    entries per elimination-block update).

    ``packed`` is the tuple of :func:`dogs.samplers.factor_gibbs.pack_factor_graph`, ``blocks`` that of
    :func:`dogs.samplers.factor_blocks.pack_blocks` (``block_of, block_indptr, block_vars, block_factor_indptr,
    block_factors, largest block's candidate configurations, config_indptr, configs``), ``plan`` that of
    :func:`dogs.samplers.elimination_blocks.pack_elimination_blocks` (a step on a variable of an elimination block
    draws that block: :mod:`dogs._kernels.elimination_block`); ``scan`` (T,) int64 in ``[-1, p)``; ``state`` (p,)
    int32 labels; ``rng_state`` (4,) uint64, advanced in place. One dependent sequence: pass ``k + 1`` starts where
    pass ``k`` ended; after pass ``k`` the labels of ``record_vars`` go to ``labels[first + k]`` (a ``(D, V)``
    array, int8 or int32).
    """
    buffers = _buffers(packed, blocks, plan, state)
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    evaluations = 0
    for k in range(count):
        n, s0, s1, s2, s3 = _advance(packed, blocks, plan, scan, state, buffers, s0, s1, s2, s3)
        evaluations += n
        row = labels[first + k]
        for v in range(record_vars.size):
            row[v] = state[record_vars[v]]
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(parallel=True, cache=True)
def factor_gibbs_chains_draws(packed, blocks, plan, scan, states, rng_states, record_vars, labels, first, count,
                              evaluations):
    """:func:`factor_gibbs_chain_draws` for independent chains in parallel (``prange`` over chains): row ``c`` of
    ``states`` (C, p), ``rng_states`` (C, 4), ``labels`` (C, D, V) and ``evaluations`` (C,) (added to) is chain
    ``c``'s."""
    for c in prange(states.shape[0]):
        evaluations[c] += factor_gibbs_chain_draws(packed, blocks, plan, scan, states[c], rng_states[c], record_vars,
                                                   labels[c], first, count)
