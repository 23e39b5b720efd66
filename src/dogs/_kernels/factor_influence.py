r"""numba kernel for the exact Dobrushin influence of a discrete factor graph, by enumerating Markov blankets.

For a variable ``i`` with blanket ``B = neighbors[indptr[i]:indptr[i + 1]]`` (sorted), the blanket's
configurations are numbered in C order (the last blanket variable changes fastest), and

.. math::

    L(c, k) = \sum_{f \ni i} \theta_f(x_i = k, x_{S_f \setminus i} = c_{S_f \setminus i})

are the conditional logits of ``x_i`` at configuration ``c`` (``-inf`` entries allowed). Configuration
``c`` is *defined* when some state has a finite logit; its conditional is ``softmax(L(c, .))``. For every
blanket variable ``j`` (CSR slot ``s``) the kernel writes

.. math::

    \text{out}[s] = \max_{c, c'} \; t(c, c'),

over the pairs of configurations that differ only in ``x_j``, with ``t`` the total-variation distance of
the two conditionals when both are defined, 1 when exactly one is, and 0 when neither is (the convention
of :mod:`dogs.bounds_factor`). Work per variable: ``N K_i (sum_f |S_f| + sum_j (K_j - 1) / 2)`` for ``N``
blanket configurations; memory ``N K_i`` doubles, allocated per variable inside the parallel loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["exact_factor_influence"]


@njit(cache=True, parallel=True)
def exact_factor_influence(card, scope_starts, scope_vars, table_starts, log_values, strides, factor_indptr,
                           factor_ids, indptr, neighbors, rows, out):
    """Write the exact influence of every slot of every variable in ``rows`` into ``out`` (module docstring).

    The arrays are a :class:`dogs.models.factor_graph.DiscreteFactorGraph`'s; ``out`` has one entry per
    slot of ``neighbors``, and slots of variables outside ``rows`` are left alone.
    """
    for r in prange(rows.size):
        i = rows[r]
        lo = indptr[i]
        m = indptr[i + 1] - lo
        k_i = card[i]
        radix = np.empty(m, dtype=np.int64)
        n_conf = 1
        for a in range(m - 1, -1, -1):
            radix[a] = n_conf
            n_conf *= card[neighbors[lo + a]]
        logits = np.zeros((n_conf, k_i))
        for s in range(factor_indptr[i], factor_indptr[i + 1]):
            f = factor_ids[s]
            first = scope_starts[f]
            size = scope_starts[f + 1] - first
            axis = np.empty(size, dtype=np.int64)  # blanket axis of each scope variable (-1 for i)
            stride_i = 0
            for q in range(size):
                v = scope_vars[first + q]
                if v == i:
                    axis[q] = -1
                    stride_i = strides[first + q]
                else:
                    axis[q] = np.searchsorted(neighbors[lo:lo + m], v)
            for c in range(n_conf):
                offset = table_starts[f]
                for q in range(size):
                    if axis[q] >= 0:
                        v = scope_vars[first + q]
                        offset += ((c // radix[axis[q]]) % card[v]) * strides[first + q]
                for k in range(k_i):
                    logits[c, k] += log_values[offset + k * stride_i]
        defined = np.zeros(n_conf, dtype=np.bool_)
        for c in range(n_conf):  # logits -> conditional probabilities, in place
            peak = -np.inf
            for k in range(k_i):
                peak = max(peak, logits[c, k])
            if peak == -np.inf:
                continue
            defined[c] = True
            total = 0.0
            for k in range(k_i):
                logits[c, k] = np.exp(logits[c, k] - peak)
                total += logits[c, k]
            for k in range(k_i):
                logits[c, k] /= total
        for a in range(m):
            k_j = card[neighbors[lo + a]]
            step = radix[a]
            best = 0.0
            for c in range(n_conf):
                digit = (c // step) % k_j
                for b in range(digit + 1, k_j):
                    other = c + (b - digit) * step
                    if defined[c] and defined[other]:
                        tv = 0.0
                        for k in range(k_i):
                            tv += abs(logits[c, k] - logits[other, k])
                        best = max(best, 0.5 * tv)
                    elif defined[c] or defined[other]:
                        best = 1.0
            out[lo + a] = best
