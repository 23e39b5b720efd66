r"""numba kernel: the steps of a pass of block updates whose draw the next step touching it overwrites.

Step ``t`` *writes* its unit's variables :math:`W_t` (a block, or one site) and *reads* their neighbours outside
them :math:`R_t` (the only variables its conditional depends on). Scanning the pass backwards, step ``t`` is dropped
when the first later step that is kept and writes or reads any variable of :math:`W_t` writes all of :math:`W_t`
(the rule and its proof are in :mod:`dogs.samplers.block_scans`). ``next_touch[x]`` holds the first kept step
after the current one that writes or reads ``x``.

Private; :func:`dogs.samplers.block_scans.without_overwritten_draws` builds the arrays and checks them.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def overwritten_steps(step_units, write_indptr, writes, read_indptr, reads, n_vars):
    """Boolean mask of the steps to keep. Unit ``u`` writes ``writes[write_indptr[u]:write_indptr[u + 1]]`` and
    reads ``reads[read_indptr[u]:read_indptr[u + 1]]``; ``step_units[t]`` is the unit of step ``t``."""
    n_steps = step_units.size
    keep = np.ones(n_steps, dtype=np.bool_)
    next_touch = np.full(n_vars, n_steps, dtype=np.int64)
    marked = np.full(n_vars, -1, dtype=np.int64)  # marked[x] == s: x is written by step s (the step last marked)
    for t in range(n_steps - 1, -1, -1):
        unit = step_units[t]
        first = n_steps
        for k in range(write_indptr[unit], write_indptr[unit + 1]):
            first = min(first, next_touch[writes[k]])
        if first < n_steps:
            other = step_units[first]
            covered = other == unit
            if not covered:
                for k in range(write_indptr[other], write_indptr[other + 1]):
                    marked[writes[k]] = first
                covered = True
                for k in range(write_indptr[unit], write_indptr[unit + 1]):
                    if marked[writes[k]] != first:
                        covered = False
                        break
                for k in range(write_indptr[other], write_indptr[other + 1]):
                    marked[writes[k]] = -1
            if covered:
                keep[t] = False
                continue
        for k in range(write_indptr[unit], write_indptr[unit + 1]):
            next_touch[writes[k]] = t
        for k in range(read_indptr[unit], read_indptr[unit + 1]):
            next_touch[reads[k]] = t
    return keep
