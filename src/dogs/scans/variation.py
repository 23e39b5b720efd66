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
  converted once to CSR.
"""

from __future__ import annotations

import math
import mmap
import numbers

import numpy as np
from scipy import sparse

from dogs._kernels.variation import (
    DIAGONAL,
    INFLUENCE_OK,
    NEGATIVE,
    NOT_CANONICAL,
    NOT_FINITE,
    OUT_OF_RANGE,
    check_influence,
    count_influence_problems,
    count_value_problems,
    left_variation,
    pattern_is_symmetric,
    transpose_pattern,
    variation_curve,
)
from dogs.models.graph import is_symmetric_neighbour_pattern
from dogs.scans.base import UNIFORM, Scan

__all__ = ["dobrushin_variation", "dobrushin_variation_curve", "uniform_variation_curve"]


class _Influence:
    """A validated influence bound: CSR arrays (``int32`` or ``int64`` indptr/indices as scipy stores them,
    ``float64`` data) and, on demand, the sparsity pattern of its transpose (for DoGS, which must find the
    rows that read a given ``b_j``)."""

    __slots__ = ("n_vars", "indptr", "indices", "data", "_columns")

    def __init__(self, n_vars, indptr, indices, data, symmetric: bool = False):
        self.n_vars = n_vars
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self._columns = (indptr, indices) if symmetric else None

    def columns(self):
        """``(col_indptr, col_indices)``: ``col_indices[col_indptr[j]:col_indptr[j + 1]]`` are the rows reading ``j``.

        A symmetric pattern (every pairwise model's bound) is its own transpose and is returned as is.
        """
        if self._columns is None:
            if pattern_is_symmetric(self.indptr, self.indices):
                self._columns = (self.indptr, self.indices)
            else:
                self._columns = transpose_pattern(self.indptr, self.indices, self.n_vars)
        return self._columns

    def max_blanket(self) -> int:
        """``m``: the largest number of stored entries in any row or column of :math:`\\bar C`."""
        col_indptr, _ = self.columns()
        rows = np.diff(self.indptr).max(initial=0)
        cols = np.diff(col_indptr).max(initial=0)
        return int(max(rows, cols))


_INFLUENCE_PROBLEMS = {
    NOT_FINITE: "must be finite",
    NEGATIVE: "must be entrywise non-negative (it bounds the Dobrushin influence)",
    DIAGONAL: "must have a zero diagonal: the Dobrushin influence of a variable on itself is 0 (Definition 6)",
    OUT_OF_RANGE: "has a column index outside [0, p)",
}


def _as_influence(influence, n_vars: int | None = None, name: str = "influence") -> _Influence:
    """Validate and convert an influence bound; ``n_vars`` (from the scan) fixes the expected shape.

    A parallel numba pass checks a CSR matrix in canonical form (``O(nnz)``, no copy; a second pass
    finds the first problem for the message); other sparse formats and dense arrays are converted by
    scipy first, and unsorted or duplicated indices are summed into canonical form.
    """
    if isinstance(influence, _Influence):
        matrix = influence
    else:
        if sparse.issparse(influence):
            csr = influence if influence.format == "csr" else influence.tocsr()
        else:
            if isinstance(influence, (str, bytes)) or influence is None:
                raise TypeError(f"{name} must be a scipy.sparse matrix or a 2-d array, got {type(influence).__name__}")
            array = np.asarray(influence)
            if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
                raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
            if array.ndim != 2:
                raise ValueError(f"{name} must be a 2-d (p x p) matrix, got shape {array.shape}")
            csr = sparse.csr_matrix(array)
        if np.iscomplexobj(csr.data) or not (np.issubdtype(csr.dtype, np.number) or csr.dtype == bool):
            raise TypeError(f"{name} must hold real numbers, got dtype {csr.dtype}")
        rows, cols = csr.shape
        if rows != cols or rows < 1:
            raise ValueError(f"{name} must be a square p x p matrix, got shape {csr.shape}")
        indptr, indices = np.ascontiguousarray(csr.indptr), np.ascontiguousarray(csr.indices)
        data = np.ascontiguousarray(csr.data, dtype=np.float64)
        if is_symmetric_neighbour_pattern(indptr, indices):  # a bound on a model's pattern: check values only
            if data.size != indices.size:
                raise ValueError(f"{name} has {data.size} values for {indices.size} stored entries")
            if count_value_problems(data):
                raise ValueError(f"{name} must be finite and entrywise non-negative (it bounds the Dobrushin "
                                 "influence)")
            return _checked_shape(_Influence(rows, indptr, indices, data, symmetric=True), n_vars, name)
        problems = count_influence_problems(indptr, indices, data)
        code, row = (INFLUENCE_OK, -1) if problems == 0 else check_influence(indptr, indices, data)
        if code == NOT_CANONICAL:
            csr = csr.copy()
            csr.sum_duplicates()  # sorts column indices and adds duplicates
            indptr, indices = np.ascontiguousarray(csr.indptr), np.ascontiguousarray(csr.indices)
            data = np.ascontiguousarray(csr.data, dtype=np.float64)
            code, row = check_influence(indptr, indices, data)
        if code != INFLUENCE_OK:
            raise ValueError(f"{name} {_INFLUENCE_PROBLEMS[code]} (row {row})")
        matrix = _Influence(rows, indptr, indices, data)
    return _checked_shape(matrix, n_vars, name)


def _checked_shape(matrix: _Influence, n_vars: int | None, name: str) -> _Influence:
    if n_vars is not None and matrix.n_vars != n_vars:
        raise ValueError(
            f"{name} has shape ({matrix.n_vars}, {matrix.n_vars}) but the scan is over n_vars = {n_vars} variables"
        )
    return matrix


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


def _as_scan(scan, name: str = "scan") -> Scan:
    if not isinstance(scan, Scan):
        raise TypeError(f"{name} must be a dogs.scans.Scan (see systematic_scan, uniform_scan, explicit_scan), "
                        f"got {type(scan).__name__}")
    return scan


def _as_weights(weights, n_vars: int, name: str = "weights") -> np.ndarray:
    """``d`` as a float vector: a 1-d array of length p, or a sparse 1 x p / p x 1 vector. Dense 2-d arrays
    (``(p, 1)`` as much as ``(3, 3)``) are refused, so a matrix is never silently flattened."""
    if sparse.issparse(weights):
        if 1 not in weights.shape:
            raise ValueError(f"{name} must be a vector, got a sparse matrix of shape {weights.shape}")
        weights = weights.toarray().ravel()
    if weights is None or isinstance(weights, (str, bytes)):
        raise TypeError(f"{name} must be a 1-d array of p = {n_vars} non-negative numbers, got {type(weights).__name__}")
    array = np.asarray(weights)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool) \
            or np.iscomplexobj(array):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.ndim != 1 or array.size != n_vars:
        raise ValueError(f"{name} must be a 1-d array of length p = {n_vars}, got shape {np.shape(weights)}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    if count_value_problems(array):  # one pass without temporaries; the messages below say which problem
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must be finite")
        raise ValueError(f"{name} must be non-negative (d in DoGS Definition 7)")
    return array


def support_of(d: np.ndarray) -> np.ndarray:
    """The indices ``i`` with ``d_i != 0``, increasing: ``numpy.flatnonzero(d)``, taken on the boolean mask, which
    numpy scans several times faster than a float array."""
    return np.flatnonzero(d != 0.0)


def _as_length(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


def _as_lengths(lengths, max_length: int | None, name: str = "lengths") -> np.ndarray:
    array = np.asarray(lengths)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        if array.size == 0 and array.ndim == 1:
            array = array.astype(np.int64)
        else:
            raise TypeError(f"{name} must be integers (prefix lengths), got dtype {array.dtype}")
    if array.ndim > 1:
        raise ValueError(f"{name} must be a 1-d sequence of prefix lengths, got shape {array.shape}")
    array = np.atleast_1d(array).astype(np.int64)
    if array.size and array.min() < 0:
        raise ValueError(f"{name} must be >= 0, got {array.min()}")
    if max_length is not None and array.size and array.max() > max_length:
        raise ValueError(f"{name} must be <= the scan length {max_length}, got {array.max()}")
    return array


def _as_epsilon(epsilon, name: str = "epsilon", allow_none: bool = True) -> float:
    if epsilon is None:
        if allow_none:
            return -math.inf
        raise TypeError(f"{name} must be a non-negative number, got None")
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(epsilon).__name__}")
    epsilon = float(epsilon)
    if math.isnan(epsilon) or epsilon < 0:
        raise ValueError(f"{name} must be >= 0, got {epsilon}")
    return epsilon


def _curve(steps: np.ndarray, weights: np.ndarray, matrix: _Influence, lengths: np.ndarray) -> np.ndarray:
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
    scan = _as_scan(scan)
    matrix = _as_influence(influence, scan.n_vars)
    d = _as_weights(weights, scan.n_vars)
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
    scan = _as_scan(scan)
    matrix = _as_influence(influence, scan.n_vars)
    d = _as_weights(weights, scan.n_vars)
    if lengths is None:
        lengths = np.arange(scan.length + 1, dtype=np.int64)
    else:
        lengths = _as_lengths(lengths, scan.length)
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
    matrix = _as_influence(influence, n_vars)
    d = _as_weights(weights, n_vars)
    lengths = _as_lengths(lengths, None)
    longest = int(lengths.max(initial=0))
    steps = np.full(longest, UNIFORM, dtype=np.int64)
    return _curve(steps, d, matrix, lengths)
