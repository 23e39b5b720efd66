r"""numba kernel for loopy belief propagation on binary pairwise MRFs (spins in {-1, +1}).

For ``p(s) ∝ exp(sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i)`` a normalised message
``m_{i->j}`` on the two states of ``s_j`` is stored as its *field* ``u_{i->j}``:

.. math::

    m_{i \to j}(s_j) = \frac{e^{u_{i \to j} s_j}}{2 \cosh u_{i \to j}}, \qquad
    m_{i \to j}(+1) = \sigma(2 u_{i \to j}),

and the sum-product update ``m_{i->j}(s_j) ∝ sum_{s_i} exp(h_i s_i + theta_ij s_i s_j)
prod_{k in N(i) \ j} m_{k->i}(s_i)`` becomes, with the cavity field
``c = h_i + sum_{k in N(i) \ j} u_{k->i}``,

.. math::

    u_{i \to j} = \tfrac12\big[\log\cosh(c + \theta_{ij}) - \log\cosh(c - \theta_{ij})\big],

evaluated as ``logcosh(x) = |x| + log1p(exp(-2|x|)) - log 2`` so that no step overflows
(``|u_{i->j}| <= |theta_ij|`` whatever ``c``).

Storage is by CSR slot of the model: ``u_in[s]`` for slot ``s`` of row ``i`` (neighbour
``k = neighbors[s]``) is the message ``u_{k->i}`` *into* ``i``; ``reverse[s]`` is the slot of
row ``k`` that points back at ``i``, so the message ``u_{i->k}`` lives at ``u_in[reverse[s]]``.

Schedules (one *iteration* = every directed message recomputed once):

- ``SEQUENTIAL`` (0): for ``i = 0, ..., d-1`` in node order, recompute every message out of
  ``i`` (``i -> j`` for its neighbours in increasing ``j``) from the *current* messages into
  ``i``, writing each result immediately (Gauss-Seidel). Messages out of ``i`` do not depend
  on each other, so this is the same as updating directed edges one by one in the order
  (source node, target node).
- ``PARALLEL`` (1): every message recomputed from the previous iteration's messages (Jacobi).

The change of an iteration is ``sum`` over directed edges and both states of
``|m_new - m_old|``, i.e. ``sum 2 |sigma(2 u_new) - sigma(2 u_old)|``, between the messages at
the start and at the end of the iteration. The loop stops after the first iteration whose
change is ``< tolerance``, or after ``max_iterations`` iterations.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SEQUENTIAL = 0
PARALLEL = 1

_LOG2 = math.log(2.0)


@njit(inline="always", cache=True)
def _logcosh(x):
    a = abs(x)
    return a + math.log1p(math.exp(-2.0 * a)) - _LOG2


@njit(inline="always", cache=True)
def _sigmoid(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(inline="always", cache=True)
def _message(cavity, theta):
    return 0.5 * (_logcosh(cavity + theta) - _logcosh(cavity - theta))


@njit(cache=True)
def loopy_bp_fields(indptr, neighbors, coupling, reverse, h, u_in, schedule, tolerance, max_iterations, changes):
    """Run loopy BP in place on ``u_in``; return ``(iterations, converged)``.

    ``changes[t]`` receives the change of iteration ``t`` (``changes`` has length >= ``max_iterations``).
    """
    d = h.size
    source = u_in.copy() if schedule == PARALLEL else u_in
    for t in range(max_iterations):
        if schedule == PARALLEL:
            source[:] = u_in
        change = 0.0
        for i in range(d):
            start, stop = indptr[i], indptr[i + 1]
            total = h[i]
            for s in range(start, stop):
                total += source[s]
            for s in range(start, stop):
                out = reverse[s]
                new = _message(total - source[s], coupling[s])
                change += 2.0 * abs(_sigmoid(2.0 * new) - _sigmoid(2.0 * u_in[out]))
                u_in[out] = new
        changes[t] = change
        if change < tolerance:
            return t + 1, True
    return max_iterations, False
