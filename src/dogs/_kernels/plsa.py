r"""numba kernel for the M-step counts of PLSA (:mod:`dogs.learning.plsa`).

:func:`add_rows` is ``numpy.add.at(target, rows, values)`` for a 2-d ``target``:
``target[rows[n], :] += values[n, :]`` for ``n = 0, 1, ...`` in order. Every entry of ``target`` receives its
terms in the same order as in NumPy's form, so the sums are the same float64 numbers; NumPy's unbuffered
``add.at`` on rows took about half of a PLSA fit on MSRC (about 2 s per split).

Private: arrays only; the public user is :func:`dogs.learning.plsa.fit_plsa`.
"""

from __future__ import annotations

from numba import njit

__all__ = ["add_rows"]


@njit(cache=True)
def add_rows(target, rows, values):
    """``target[rows[n], :] += values[n, :]`` for every ``n`` in increasing order (``rows`` in range)."""
    for n in range(rows.size):
        row = rows[n]
        for k in range(values.shape[1]):
            target[row, k] += values[n, k]
