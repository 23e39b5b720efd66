r"""numba kernel of one blocked-Gibbs update drawn by exact elimination (forward filtering, backward sampling).

Given the variables outside the block ``B`` at their current labels, the update draws ``x_B`` from

.. math::

    \pi(X_B = c \mid x_{-B}) \propto \prod_{f \,:\, S_f \cap B \ne \emptyset} a_f\big(x_{S_f}^{(B \to c)}\big),
    \qquad a_f = \phi_f / \max \phi_f,

exactly, along the plan's elimination order ``v_1, ..., v_m`` of ``B`` (bucket elimination, Dechter 1999,
"Bucket elimination: a unifying framework for reasoning", Artificial Intelligence 113; drawing blocks this way is
the blocking Gibbs sampler of Jensen, Kong & Kjaerulff 1995):

1. **Forward.** Step ``k`` multiplies its inputs (the factors whose first variable in the order is ``v_k``, with
   the variables outside ``B`` at their current labels, and the messages of earlier steps sent to it) into a
   table ``P_k`` over its scope ``U_k`` (``v_k`` last, C order), then sums ``v_k`` out into the message
   ``m_k(y) = sum_c P_k(y, c)``, divided by its largest entry (a positive constant per step, which the draws do
   not see). Inputs over one variable of the scope are first folded into one vector per variable (rescaled to
   largest entry 1); each entry of ``P_k`` then costs one product per scope variable and per other input, their
   offsets moved along by an odometer. Entries are products of numbers in ``[0, 1]``; a table whose largest entry
   is below ``TINY = 2**-600`` is recomputed from log values (``exp(l - max l)``), as the single-site kernel does.
2. **Backward.** In reverse order, ``v_k`` is drawn from the slice of ``P_k`` at the variables of ``U_k`` already
   drawn, by the inverse CDF of :mod:`dogs._kernels.discrete_gibbs` with ONE fresh uniform per variable.

The last table is :math:`\propto \pi(v_m \mid x_{-B})` and each slice of ``P_k`` is
:math:`\propto \pi(v_k \mid v_{k+1}, \dots, v_m, x_{-B})`, so the joint draw is exact (the chain rule). A message
of largest entry 0 means the current ``x_{-B}`` has no completion of positive weight (a state of probability
0): the block keeps its labels, as the single-site rule does.

Private; :func:`dogs.samplers.elimination_blocks.pack_elimination_blocks` plans and packs the arrays (and
documents the tuple).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dogs._kernels.discrete_gibbs import TINY, label_from_cumulative
from dogs._kernels.rng import uniform_from_bits, xoshiro_next

__all__ = ["elimination_block_update"]


@njit(inline="always", cache=True)
def _partial_products(vectors, stride, digits, partial, first, last, log_domain):
    """``partial[pos]``, the product (sum of logs) of the vectors of positions ``0..pos`` at their digits, for
    ``pos`` from ``first`` to ``last - 1`` (the odometer changed position ``first`` and reset the later ones)."""
    for pos in range(first, last):
        value = vectors[pos * stride + digits[pos]]
        if pos > 0:
            value = partial[pos - 1] + value if log_domain else partial[pos - 1] * value
        partial[pos] = value


@njit(cache=True)
def _fill_table(exp_values, log_values, card, lo, hi, scope_vars, scope_strides, first_input, single_start,
                end_input, input_source, input_strides, stride_start, bases, start, stride, digits, offsets,
                last_strides, vectors, products, messages, log_domain):
    """``P_k`` into ``products[start:]`` (linear, or log values when ``log_domain``); returns its largest entry.

    The step's scope is ``scope_vars[lo:hi]``, its inputs ``first_input:end_input`` (from ``single_start`` on, those
    over one scope variable), input ``i``'s stride at scope position ``pos`` is
    ``input_strides[stride_start[i] + pos]`` (0 when absent) and its offset before them ``bases[i - first_input]``;
    the vector of position ``pos`` starts at ``vectors[pos * stride]``."""
    n_pos = hi - lo
    n_entries = scope_strides[lo] * card[scope_vars[lo]]
    for pos in range(n_pos):
        digits[pos] = 0
        for c in range(card[scope_vars[lo + pos]]):
            vectors[pos * stride + c] = 0.0 if log_domain else 1.0
    for i in range(single_start, end_input):
        pos = 0
        while input_strides[stride_start[i] + pos] == 0 and pos < n_pos - 1:
            pos += 1
        step = input_strides[stride_start[i] + pos]
        largest = 0.0
        for c in range(card[scope_vars[lo + pos]]):
            offset = bases[i - first_input] + c * step
            if input_source[i] >= 0:
                value = log_values[offset] if log_domain else exp_values[offset]
            elif log_domain:
                value = math.log(messages[offset]) if messages[offset] > 0.0 else -np.inf
            else:
                value = messages[offset]
            if log_domain:
                vectors[pos * stride + c] += value
            else:
                vectors[pos * stride + c] *= value
                largest = max(largest, vectors[pos * stride + c])
        if not log_domain and largest > 0.0:
            for c in range(card[scope_vars[lo + pos]]):
                vectors[pos * stride + c] /= largest
    n_multi = single_start - first_input
    n_factors = 0  # the inputs over several variables: factors first, then messages (the plan's order)
    for j in range(n_multi):
        offsets[j] = bases[j]
        last_strides[j] = input_strides[stride_start[first_input + j] + n_pos - 1]
        if input_source[first_input + j] >= 0:
            n_factors += 1
    last = n_pos - 1  # the eliminated variable, the fastest axis: an inner loop of its own
    n_labels = card[scope_vars[hi - 1]]
    partial = np.empty(max(last, 1))  # products of the other variables' vectors up to each position
    _partial_products(vectors, stride, digits, partial, 0, last, log_domain)
    peak = -np.inf
    for r in range(n_entries // n_labels):
        prefix = partial[last - 1] if last > 0 else (0.0 if log_domain else 1.0)
        row = start + r * n_labels
        for c in range(n_labels):
            if log_domain:
                value = prefix + vectors[last * stride + c]
                for j in range(n_factors):
                    value += log_values[offsets[j] + c * last_strides[j]]
                for j in range(n_factors, n_multi):
                    entry = messages[offsets[j] + c * last_strides[j]]
                    value += math.log(entry) if entry > 0.0 else -np.inf
            else:
                value = prefix * vectors[last * stride + c]
                for j in range(n_factors):
                    value *= exp_values[offsets[j] + c * last_strides[j]]
                for j in range(n_factors, n_multi):
                    value *= messages[offsets[j] + c * last_strides[j]]
            products[row + c] = value
            if value > peak:
                peak = value
        pos = last - 1  # the odometer over the other variables, moving each input's offset along
        while pos >= 0:
            digits[pos] += 1
            for j in range(n_multi):
                offsets[j] += input_strides[stride_start[first_input + j] + pos]
            n_pos_labels = card[scope_vars[lo + pos]]
            if digits[pos] < n_pos_labels:
                break
            digits[pos] = 0
            for j in range(n_multi):
                offsets[j] -= n_pos_labels * input_strides[stride_start[first_input + j] + pos]
            pos -= 1
        if pos >= 0:
            _partial_products(vectors, stride, digits, partial, pos, last, log_domain)
    return peak


@njit(cache=True)
def elimination_block_update(packed, plan, block, state, buffers, s0, s1, s2, s3):
    """Draw elimination block ``block`` from its exact conditional (module docstring), in place; returns
    ``(table entries computed, s0, s1, s2, s3)``.

    ``packed`` is :func:`dogs.samplers.factor_gibbs.pack_factor_graph`'s tuple, ``plan`` that of
    :func:`dogs.samplers.elimination_blocks.pack_elimination_blocks`, ``buffers`` ``(products, messages, digits,
    bases, offsets, last_strides, vectors, work)`` sized by its ``buffer_sizes``.
    """
    card, scope_vars_f, strides_f, table_starts, exp_values, log_values = (packed[0], packed[5], packed[6], packed[7],
                                                                           packed[8], packed[9])
    (_, step_indptr, step_var, scope_indptr, scope_vars, scope_strides, msg_start, input_indptr, input_source,
     input_strides, stride_start, prod_start, single_start, outside_indptr, outside_slots, sizes, _) = plan
    products, messages, digits, bases, offsets, last_strides, vectors, work = buffers
    entries = 0
    first, last = step_indptr[block], step_indptr[block + 1]
    for k in range(first, last):
        for i in range(input_indptr[k], input_indptr[k + 1]):
            source = input_source[i]
            if source < 0:
                base = msg_start[-source - 1]
            else:
                base = table_starts[source]
                for slot in range(outside_indptr[i], outside_indptr[i + 1]):
                    q = outside_slots[slot]
                    base += np.int64(state[scope_vars_f[q]]) * strides_f[q]
            bases[i - input_indptr[k]] = base
        lo, hi = scope_indptr[k], scope_indptr[k + 1]
        start = prod_start[k]
        n_entries = scope_strides[lo] * card[scope_vars[lo]]
        peak = _fill_table(exp_values, log_values, card, lo, hi, scope_vars, scope_strides, input_indptr[k],
                           single_start[k], input_indptr[k + 1], input_source, input_strides, stride_start, bases,
                           start, sizes[4], digits, offsets, last_strides, vectors, products, messages, False)
        if peak < TINY:  # the log domain, then exp(l - max l)
            peak = _fill_table(exp_values, log_values, card, lo, hi, scope_vars, scope_strides, input_indptr[k],
                               single_start[k], input_indptr[k + 1], input_source, input_strides, stride_start, bases,
                               start, sizes[4], digits, offsets, last_strides, vectors, products, messages, True)
            for c in range(n_entries):
                products[start + c] = math.exp(products[start + c] - peak) if peak > -np.inf else 0.0
        entries += n_entries
        n_labels = np.int64(card[step_var[k]])
        largest = 0.0
        for r in range(n_entries // n_labels):
            total = 0.0
            for c in range(n_labels):
                total += products[start + r * n_labels + c]
            messages[msg_start[k] + r] = total
            largest = max(largest, total)
        if largest <= 0.0:  # no completion of positive weight: keep the labels
            return entries, s0, s1, s2, s3
        for r in range(n_entries // n_labels):
            messages[msg_start[k] + r] /= largest
    for k in range(last - 1, first - 1, -1):
        lo, hi = scope_indptr[k], scope_indptr[k + 1]
        offset = prod_start[k]
        for pos in range(hi - lo - 1):
            offset += np.int64(state[scope_vars[lo + pos]]) * scope_strides[lo + pos]
        n_labels = np.int64(card[step_var[k]])
        total = 0.0
        for c in range(n_labels):
            total += products[offset + c]
            work[c] = total
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        state[step_var[k]] = label_from_cumulative(work, np.uint64(n_labels), uniform_from_bits(bits))
    return entries, s0, s1, s2, s3
