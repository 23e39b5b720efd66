r"""Dobrushin variation of a scan (DoGS Definition 7, Theorem 8).

For a non-negative weight vector :math:`d \in \mathbb R^p` and an entrywise
upper bound :math:`\bar C` on the Dobrushin influence matrix (DoGS eq. (1);
``influence[i, j]`` bounds the influence of variable ``j`` on variable ``i``),
the Dobrushin variation of a scan :math:`q_1, \dots, q_T` is

.. math::

    \mathcal V(q_1, \dots, q_T; d, \bar C) = d^\top B(q_T) \cdots B(q_1)\, \mathbf 1,
    \qquad B(q) = I - \operatorname{diag}(q)\,(I - \bar C).

By DoGS Theorem 8 (proof in Appendix A.2: :math:`b_t = B(q_t) \cdots B(q_1)\mathbf 1`
bounds the marginal coupling probabilities entrywise) it dominates the
:math:`d`-weighted total variation between the law of the ``T``-th Gibbs
state and the target: :math:`\|\pi_T - \pi\|_{d,\mathrm{TV}} \le \mathcal V`.

Cost. A deterministic step :math:`q_t = e_i` only sets
:math:`b_i \leftarrow (\bar C b)_i`, ``O(m)`` work for a Markov blanket of size
``m``; a uniform step applies :math:`B(\mathbf 1/p)` to all of ``b``
(``O(nnz(C̄) + p)``). A whole scan costs ``O(p + T m)`` for deterministic scans
and ``O(p)`` memory; the numba kernels live in :mod:`dogs._kernels.variation`.

Inputs shared by every function here:

- ``weights``: 1-d array of ``p`` finite non-negative numbers (``d``; ``e_1`` for the
  first variable's marginal, ``np.ones(p)`` for full total variation);
- ``influence``: ``p x p`` scipy sparse matrix (or dense array) of finite
  non-negative numbers with zero diagonal (:math:`\bar C_{ii} = 0` by Definition 6);
  converted once to CSR. The checks of both live in :mod:`dogs.scans.checks`.
"""

from __future__ import annotations

import mmap
import numbers

import numpy as np

from dogs._kernels.variation import left_variation, variation_curve
from dogs.scans.base import UNIFORM, Scan
from dogs.scans.checks import Influence, as_influence, as_lengths, as_scan, as_weights

__all__ = ["dobrushin_variation", "dobrushin_variation_curve", "uniform_variation_curve"]


#: Below this size :func:`lazy_zeros` clears an ordinary array instead of mapping pages.
_LAZY_FROM_BYTES = 1 << 16


def lazy_zeros(n: int, dtype=np.float64) -> np.ndarray:
    """A zero array of ``n`` entries whose pages the operating system provides on first touch.

    ``numpy.zeros`` of a few MB can come from recycled heap memory and is then cleared in full; the
    kernels here often touch only a few entries of an ``O(p)`` work space (one marginal, a short scan).
    An anonymous memory map is zero by definition and costs nothing until written. Below
    ``_LAZY_FROM_BYTES`` an ordinary cleared array is returned: mapping and unmapping cost system calls
    (tens of microseconds), clearing a small array less.
    """
    dtype = np.dtype(dtype)
    if int(n) * dtype.itemsize < _LAZY_FROM_BYTES:
        return np.zeros(int(n), dtype=dtype)
    buffer = mmap.mmap(-1, max(1, int(n) * dtype.itemsize))
    return np.frombuffer(buffer, dtype=dtype, count=int(n))


def support_of(d: np.ndarray) -> np.ndarray:
    """The indices ``i`` with ``d_i != 0``, increasing: ``numpy.flatnonzero(d)``, taken on the boolean mask, which
    numpy scans several times faster than a float array."""
    return np.flatnonzero(d != 0.0)


def _curve(steps: np.ndarray, weights: np.ndarray, matrix: Influence, lengths: np.ndarray) -> np.ndarray:
    """Variation after each prefix length in ``lengths`` (any order, repeats allowed), in one forward pass."""
    if lengths.size == 0:
        return np.empty(0)
    unique, inverse = np.unique(lengths, return_inverse=True)
    b = np.ones(matrix.n_vars)
    values = variation_curve(matrix.indptr, matrix.indices, matrix.data, steps, weights, unique, b)
    return values[inverse]


def dobrushin_variation(scan: Scan, weights, influence) -> float:
    r"""Dobrushin variation :math:`\mathcal V(q_1, \dots, q_T; d, \bar C)` of a scan (DoGS Definition 7).

    .. math::

        \mathcal V = d^\top B(q_T) \cdots B(q_1)\,\mathbf 1, \qquad
        B(q) = I - \operatorname{diag}(q)(I - \bar C).

    By DoGS Theorem 8 this bounds the ``d``-weighted total variation between
    the ``T``-th Gibbs state and the target.

    Parameters
    ----------
    scan : Scan
        The scan; deterministic steps are ``e_i``, ``UNIFORM`` steps are ``1/p``.
    weights : (p,) array_like
        Non-negative variable weights ``d``.
    influence : (p, p) sparse matrix or array_like
        Entrywise bound :math:`\bar C` on the Dobrushin influence, ``[i, j]`` = influence of ``j`` on ``i``;
        non-negative, zero diagonal.

    Returns
    -------
    float
        The Dobrushin variation.

    Notes
    -----
    Computed from the left, :math:`u^\top = d^\top B(q_T) \cdots B(q_t)`, :math:`\mathcal V = u^\top \mathbf 1`
    (:func:`dogs._kernels.variation.left_variation`): a deterministic step costs ``O(m)`` only when it
    updates a variable that carries weight, so for one marginal (``d = e_i``) the cost is ``O(T)`` plus
    ``O(m)`` per step that reaches the weighted region, instead of ``O(T m)``; ``O(nnz + p)`` per
    uniform step; ``O(p)`` memory.
    """
    scan = as_scan(scan)
    matrix = as_influence(influence, scan.n_vars)
    d = as_weights(weights, scan.n_vars)
    support = support_of(d)
    u = np.zeros(scan.n_vars)
    u[support] = d[support]
    left_variation(matrix.indptr, matrix.indices, matrix.data, scan.indices, u)
    return float(np.sum(u))


def dobrushin_variation_curve(scan: Scan, weights, influence, lengths=None) -> np.ndarray:
    r"""Dobrushin variation of every prefix of a scan, in a single forward pass.

    Returns :math:`\mathcal V_t = d^\top B(q_t) \cdots B(q_1) \mathbf 1` (DoGS Definition 7)
    for ``t = 0, 1, ..., T`` (``V_0 = sum(d)``), or for the prefix lengths in ``lengths``.

    Parameters
    ----------
    scan : Scan
        The scan.
    weights : (p,) array_like
        Non-negative variable weights ``d``.
    influence : (p, p) sparse matrix or array_like
        Influence bound :math:`\bar C` (non-negative, zero diagonal).
    lengths : sequence of int, optional
        Prefix lengths in ``[0, T]`` (any order, repeats allowed). Default: ``0, 1, ..., T``.

    Returns
    -------
    ndarray of float
        ``values[k]`` is the variation of the first ``lengths[k]`` steps.

    Notes
    -----
    The running value :math:`d^\top b_t` is held in a pairwise-sum tree over the terms
    :math:`d_i (b_t)_i \ge 0` (``O(log p)`` per step that touches a weighted variable), so
    each entry is accurate relative to itself even after the variation has decayed by
    many orders of magnitude. The pass stops at the largest requested length.
    """
    scan = as_scan(scan)
    matrix = as_influence(influence, scan.n_vars)
    d = as_weights(weights, scan.n_vars)
    if lengths is None:
        lengths = np.arange(scan.length + 1, dtype=np.int64)
    else:
        lengths = as_lengths(lengths, scan.length)
    return _curve(scan.indices, d, matrix, lengths)


def uniform_variation_curve(n_vars: int, lengths, weights, influence) -> np.ndarray:
    r"""Dobrushin variation of the uniform random scan :math:`q_t = \mathbf 1 / p` for several lengths.

    .. math::

        \mathcal V_T = d^\top B(\mathbf 1/p)^T \mathbf 1, \qquad
        B(\mathbf 1/p) = (1 - 1/p)\, I + \bar C / p \quad (\text{DoGS Definition 7, §2.1}).

    Parameters
    ----------
    n_vars : int
        Number of variables ``p``.
    lengths : sequence of int
        Scan lengths ``T >= 0`` (any order, repeats allowed).
    weights : (p,) array_like
        Non-negative variable weights ``d``.
    influence : (p, p) sparse matrix or array_like
        Influence bound :math:`\bar C` (non-negative, zero diagonal).

    Returns
    -------
    ndarray of float
        ``values[k]`` is the variation of the uniform scan of length ``lengths[k]``.

    Notes
    -----
    One pass of ``max(lengths)`` sparse products: ``O((nnz + p) max(lengths))`` time, ``O(p)`` memory.
    """
    if isinstance(n_vars, bool) or not isinstance(n_vars, numbers.Integral) or n_vars < 1:
        raise ValueError(f"n_vars must be a positive integer, got {n_vars!r}")
    n_vars = int(n_vars)
    matrix = as_influence(influence, n_vars)
    d = as_weights(weights, n_vars)
    lengths = as_lengths(lengths, None)
    longest = int(lengths.max(initial=0))
    steps = np.full(longest, UNIFORM, dtype=np.int64)
    return _curve(steps, d, matrix, lengths)
