r"""Exact Gibbs transitions on small discrete state spaces: state spaces, the stationary distribution, single-site
and random-scan kernels as sparse matrices, and the evolution of distributions under a scan.

The conventions (log weights over the product space in C order, ``states=`` for a support listing, the kernel
:math:`P_i` of He et al. 2016, §5) are those of :mod:`dogs.exact.chains`, which re-exports every public name here.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from dogs.exact.chain_checks import MAX_STATES, check_cardinalities, check_kernels

__all__ = ["MAX_STATES", "evolve", "random_scan_kernel", "site_kernel", "site_kernels", "state_index", "state_space",
           "stationary_distribution", "unique_rows"]


def state_space(cardinalities, *, max_states: int | None = MAX_STATES) -> np.ndarray:
    """Every state of the product space, in C order (last variable fastest).

    Parameters
    ----------
    cardinalities : sequence of int
        Number of values ``K_i`` of each variable; variable ``i`` takes values ``0 .. K_i - 1``.
    max_states : int or None
        Refuse (``ValueError``) product spaces with more states than this.

    Returns
    -------
    (N, p) int64 array, ``N = prod(K_i)``; row ``s`` is the state with flat C-order index ``s``.
    """
    card = check_cardinalities(cardinalities, max_states)
    grids = np.indices(tuple(card), dtype=np.int64)
    return grids.reshape(card.size, -1).T.copy()


def state_index(states, cardinalities) -> np.ndarray:
    """Flat C-order index of each state (rows of ``states``) in the product space of ``cardinalities``."""
    card = check_cardinalities(cardinalities, None)
    states = np.asarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape[1] != card.size:
        raise ValueError(f"states must have shape (N, {card.size}), got {states.shape}")
    if np.any(states < 0) or np.any(states >= card):
        raise ValueError("states: a value lies outside 0 .. K_i - 1")
    return np.ravel_multi_index(tuple(states.T), tuple(card))


def stationary_distribution(log_weights) -> np.ndarray:
    r"""Normalise log weights: :math:`\pi = e^{L - \log\sum e^{L}}` (``-inf`` gives probability zero)."""
    lw = np.asarray(log_weights, dtype=np.float64)
    if lw.ndim != 1 or lw.size == 0:
        raise ValueError("log_weights must be a non-empty 1-d array")
    if np.any(np.isnan(lw)) or np.any(lw == np.inf):
        raise ValueError("log_weights must not contain NaN or +inf")
    if not np.any(np.isfinite(lw)):
        raise ValueError("log_weights: every state has weight zero")
    return np.exp(lw - logsumexp(lw))


def _states_and_weights(log_weights, cardinalities, states):
    """Validated ``(states (N, p), log_weights (N,))``; ``states=None`` means the whole product space."""
    card = check_cardinalities(cardinalities, MAX_STATES if states is None else None)
    lw = np.asarray(log_weights, dtype=np.float64)
    if lw.ndim != 1:
        raise ValueError(f"log_weights must be 1-d, got shape {lw.shape}")
    if np.any(np.isnan(lw)) or np.any(lw == np.inf):
        raise ValueError("log_weights must not contain NaN or +inf")
    if states is None:
        size = math.prod(int(k) for k in card)
        if lw.size != size:
            raise ValueError(f"log_weights has {lw.size} entries; the product space of {card.tolist()} has {size}")
        return state_space(card), lw
    states = np.asarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape != (lw.size, card.size):
        raise ValueError(f"states must have shape ({lw.size}, {card.size}) to match log_weights, got {states.shape}")
    if np.any(states < 0) or np.any(states >= card):
        raise ValueError("states: a value lies outside 0 .. K_i - 1")
    if lw.size > MAX_STATES:
        raise ValueError(f"states: {lw.size} states, more than the exact-computation limit {MAX_STATES}")
    if unique_rows(states)[0].shape[0] != states.shape[0]:
        raise ValueError("states must be distinct")
    return states, lw


def unique_rows(rows: np.ndarray):
    """``np.unique(rows, axis=0, return_index=True, return_inverse=True)`` for non-negative integer rows.

    Rows whose values fit a mixed-radix int64 key (the product of the columns' ranges below 2**62) are
    sorted as one key each, several times faster than numpy's row-wise unique on a million rows; others
    fall back to it. Returns ``(unique rows, index of each one's first occurrence, inverse)``.
    """
    rows = np.asarray(rows, dtype=np.int64)
    radix = rows.max(axis=0) + 1 if rows.size else np.ones(rows.shape[1], dtype=np.int64)
    if rows.size and rows.min() >= 0 and float(np.sum(np.log2(radix.astype(np.float64)))) < 62:
        weights = np.r_[np.cumprod(radix[::-1])[::-1][1:], 1]  # C order: the last column fastest
        keys = rows @ weights
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return rows[first], first, inverse.reshape(-1)
    unique, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    return unique, first, inverse.reshape(-1)


def _check_site(i, p) -> int:
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < p:
        raise ValueError(f"site index i must be an integer in [0, {p - 1}], got {i!r}")
    return int(i)


def _fiber_kernel(states: np.ndarray, lw: np.ndarray, i: int) -> sp.csr_matrix:
    """Gibbs kernel of site ``i`` over the listed states (the core of :func:`site_kernel`)."""
    n_states = states.shape[0]
    rest = np.delete(states, i, axis=1)
    if rest.shape[1] == 0:
        group = np.zeros(n_states, dtype=np.int64)
    else:
        group = unique_rows(rest)[2]
    order = np.argsort(group, kind="stable")
    g_sorted = group[order]
    first = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    sizes = np.diff(np.r_[first, n_states])
    lw_sorted = lw[order]
    # conditional probabilities inside each fibre x_{-i} = const; an all-zero-weight fibre stays put
    gmax = np.maximum.reduceat(lw_sorted, first)
    dead = ~np.isfinite(gmax)
    shift = np.repeat(np.where(dead, 0.0, gmax), sizes)
    w = np.exp(lw_sorted - shift)
    w[np.repeat(dead, sizes)] = 0.0
    total = np.add.reduceat(w, first)
    prob = w / np.repeat(np.where(total > 0, total, 1.0), sizes)
    size_of = np.repeat(sizes, sizes)  # fibre size of each sorted position
    start_of = np.repeat(first, sizes)  # first sorted position of its fibre
    nnz = int(size_of.sum())
    row_pos = np.repeat(np.arange(n_states), size_of)
    row_first = np.repeat(np.cumsum(size_of) - size_of, size_of)
    col_pos = np.repeat(start_of, size_of) + (np.arange(nnz) - row_first)
    data = prob[col_pos]
    rows, cols = order[row_pos], order[col_pos]
    keep = data > 0
    kernel = sp.csr_matrix((data[keep], (rows[keep], cols[keep])), shape=(n_states, n_states))
    # rows of an all-zero fibre: identity (the chain never visits them from the support)
    stuck = np.flatnonzero(np.asarray(kernel.sum(axis=1)).ravel() == 0)
    if stuck.size:
        kernel = (kernel + sp.csr_matrix((np.ones(stuck.size), (stuck, stuck)), shape=kernel.shape)).tocsr()
    kernel.sort_indices()
    return kernel


def site_kernel(log_weights, cardinalities, i, *, states=None) -> sp.csr_matrix:
    r"""Single-site Gibbs update of variable ``i`` as a sparse row-stochastic matrix.

    :math:`P_i(x, y) = \mathbb{1}[x_{-i} = y_{-i}]\, \pi(y) / \sum_a \pi(x_{-i}, a)`
    (He et al. 2016, §5). A state whose whole fibre :math:`\{(x_{-i}, a)\}` has
    weight zero is left where it is (identity row), so the matrix is always stochastic.

    Parameters
    ----------
    log_weights : (N,) array
        Unnormalised natural-log weights; ``-inf`` is weight zero.
    cardinalities : sequence of int
        ``K_i`` of each variable.
    i : int
        The variable updated (0-based).
    states : (N, p) int array, optional
        The states that ``log_weights`` refers to (a support listing); default: the whole
        product space in C order, ``N = prod(K_i)``.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (N, N).
    """
    states, lw = _states_and_weights(log_weights, cardinalities, states)
    return _fiber_kernel(states, lw, _check_site(i, states.shape[1]))


def site_kernels(log_weights, cardinalities, *, states=None) -> list:
    """:func:`site_kernel` for every variable ``i = 0 .. p-1`` (the state listing is validated once)."""
    states, lw = _states_and_weights(log_weights, cardinalities, states)
    return [_fiber_kernel(states, lw, i) for i in range(states.shape[1])]


def random_scan_kernel(kernels, probabilities=None) -> sp.csr_matrix:
    r"""Random-scan kernel :math:`P = \sum_i q_i P_i` (uniform :math:`q_i = 1/p` by default).

    Parameters
    ----------
    kernels : sequence of (N, N) matrices
        The site kernels :math:`P_i` (e.g. from :func:`site_kernels`).
    probabilities : (p,) array, optional
        Selection probabilities :math:`q` (DoGS §2.1); non-negative, summing to one.
    """
    kernels = check_kernels(kernels)
    if probabilities is None:
        q = np.full(len(kernels), 1.0 / len(kernels))
    else:
        q = np.asarray(probabilities, dtype=np.float64)
        if q.shape != (len(kernels),) or np.any(q < 0) or not np.isclose(q.sum(), 1.0):
            raise ValueError(f"probabilities must be {len(kernels)} non-negative numbers summing to 1")
    total = sp.csr_matrix(kernels[0].shape)
    for qi, kernel in zip(q, kernels):
        if qi > 0:
            total = total + qi * sp.csr_matrix(kernel)
    total = sp.csr_matrix(total)
    total.sort_indices()
    return total


def _scan_array(scan_indices, n_sites) -> np.ndarray:
    idx = getattr(scan_indices, "indices", scan_indices)
    idx = np.asarray(idx)
    if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise ValueError("scan_indices must be a 1-d integer sequence (-1 = a uniformly random site)")
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < -1 or idx.max() >= n_sites):
        raise ValueError(f"scan_indices must lie in [-1, {n_sites - 1}] (-1 = a uniformly random site)")
    return idx


def evolve(distributions, kernels, scan_indices, *, return_path: bool = False) -> np.ndarray:
    r"""Apply site kernels in the order of a scan to one or many distributions at once.

    Computes :math:`\mu P_{i_1} P_{i_2} \cdots P_{i_T}` for every row :math:`\mu`
    of ``distributions``; an index ``-1`` (:data:`dogs.scans.UNIFORM`) applies the
    uniform random-scan kernel :math:`\frac1p \sum_i P_i` (the scan encoding of
    :mod:`dogs.scans.base`). Use the identity matrix (or rows of it) as
    ``distributions`` to follow every point-mass start.

    Parameters
    ----------
    distributions : (N,) or (S, N) array
        Probability row vector(s) over the states the kernels act on.
    kernels : sequence of (N, N) matrices
        Site kernels :math:`P_0, \dots, P_{p-1}`.
    scan_indices : 1-d int sequence or :class:`dogs.scans.Scan`
        :math:`i_1, \dots, i_T` (0-based; ``-1`` = uniform random site).
    return_path : bool
        Also return every intermediate distribution.

    Returns
    -------
    Array of the shape of ``distributions`` (after ``T`` updates), or, with
    ``return_path``, of shape ``(T + 1,) + distributions.shape`` (index ``t`` = after ``t`` updates).
    """
    kernels = check_kernels(kernels)
    n_states = kernels[0].shape[0]
    dist = np.asarray(distributions, dtype=np.float64)
    single = dist.ndim == 1
    if dist.ndim not in (1, 2) or dist.shape[-1] != n_states:
        raise ValueError(f"distributions must have shape (N,) or (S, N) with N = {n_states}, got {dist.shape}")
    idx = _scan_array(scan_indices, len(kernels))
    transposed = [sp.csr_matrix(k).T.tocsr() for k in kernels]
    uniform_t = random_scan_kernel(kernels).T.tocsr() if np.any(idx == -1) else None
    cols = dist.reshape(-1, n_states).T.copy()  # (N, S): distributions as columns
    path = [cols.T.copy()] if return_path else None
    for i in idx:
        cols = (uniform_t if i < 0 else transposed[i]) @ cols
        if return_path:
            path.append(cols.T.copy())
    if return_path:
        out = np.stack(path)
        return out[:, 0, :] if single else out
    return cols.T[0].copy() if single else cols.T.copy()
