"""The checks of the scan functions' arguments, shared by :mod:`dogs.scans.variation` and :mod:`dogs.scans.dogs`.

Each ``as_*`` function validates one kind of argument and returns it converted (a float vector, a canonical CSR
bound, an integer length), raising ``TypeError`` or ``ValueError`` with a message that names the argument. The
public functions of the package call them once, on entry; kernels (:mod:`dogs._kernels.variation`) receive only
what they return. :class:`Influence` is a validated influence bound :math:`\bar C`: its CSR arrays and, on demand,
the sparsity pattern of its transpose.
"""

from __future__ import annotations

import math
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
    pattern_is_symmetric,
    transpose_pattern,
)
from dogs.models.graph import is_symmetric_neighbour_pattern
from dogs.scans.base import Scan

__all__ = ["Influence", "as_epsilon", "as_influence", "as_length", "as_lengths", "as_scan", "as_weights"]


class Influence:
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


def as_influence(influence, n_vars: int | None = None, name: str = "influence") -> Influence:
    """Validate and convert an influence bound; ``n_vars`` (from the scan) fixes the expected shape.

    A parallel numba pass checks a CSR matrix in canonical form (``O(nnz)``, no copy; a second pass
    finds the first problem for the message); other sparse formats and dense arrays are converted by
    scipy first, and unsorted or duplicated indices are summed into canonical form.
    """
    if isinstance(influence, Influence):
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
            return _checked_shape(Influence(rows, indptr, indices, data, symmetric=True), n_vars, name)
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
        matrix = Influence(rows, indptr, indices, data)
    return _checked_shape(matrix, n_vars, name)


def _checked_shape(matrix: Influence, n_vars: int | None, name: str) -> Influence:
    if n_vars is not None and matrix.n_vars != n_vars:
        raise ValueError(
            f"{name} has shape ({matrix.n_vars}, {matrix.n_vars}) but the scan is over n_vars = {n_vars} variables"
        )
    return matrix


def as_scan(scan, name: str = "scan") -> Scan:
    if not isinstance(scan, Scan):
        raise TypeError(f"{name} must be a dogs.scans.Scan (see systematic_scan, uniform_scan, explicit_scan), "
                        f"got {type(scan).__name__}")
    return scan


def as_weights(weights, n_vars: int, name: str = "weights") -> np.ndarray:
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


def as_length(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


def as_lengths(lengths, max_length: int | None, name: str = "lengths") -> np.ndarray:
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


def as_epsilon(epsilon, name: str = "epsilon", allow_none: bool = True) -> float:
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
