r"""Exact Gibbs-sampler chains on small discrete state spaces: kernels, evolution, mixing times, weighted TV.

A discrete distribution is given by unnormalised natural-log weights
:math:`L(x)` over the product space :math:`\mathcal{X} = \prod_i \{0, \dots, K_i - 1\}`
(``cardinalities = (K_0, ..., K_{p-1})``), states enumerated in C order (the
last variable fastest), :math:`\pi(x) \propto e^{L(x)}`; ``L(x) = -inf`` marks a
state of probability zero. For distributions whose support is a tiny part of the
product space, every function also accepts ``states=``: the (distinct) states
that carry the listed log weights, all other states having weight zero. Moves of
a Gibbs sampler never leave the support, so the chain restricted to it is exact.

Single-site Gibbs kernel of variable :math:`i` (He et al. 2016, §5: :math:`P_i`)

.. math::

    P_i(x, y) = \mathbb{1}[x_{-i} = y_{-i}]\,
                \frac{\pi(y)}{\sum_{a} \pi(x_{-i}, X_i = a)} ,

a sparse row-stochastic matrix that leaves :math:`\pi` invariant. The random
scan kernel is :math:`P = \sum_i q_i P_i` (:math:`q_i = 1/p` for the uniform
scan); a systematic scan with permutation :math:`\alpha` is the
time-inhomogeneous chain :math:`P_{\alpha_1} P_{\alpha_2} \cdots` repeated
sweep after sweep. Distributions are row vectors and evolve as
:math:`\mu \mapsto \mu P_i`.

Mixing time (He et al. 2016, §3; Levin, Peres & Wilmer p. 55), time counted
in single-variable updates,

.. math::

    t_{\mathrm{mix}}(\epsilon) = \min\{t : \max_{x_0} \|\delta_{x_0} P^{(t)} - \pi\|_{TV} \le \epsilon\},

the maximum over starting distributions being attained at point masses (TV is
convex). Every kernel used here leaves :math:`\pi` invariant, so each start's
distance :math:`\|\delta_{x_0} P^{(t)} - \pi\|_{TV}` is non-increasing in
:math:`t` (a :math:`\pi`-invariant kernel is a TV contraction towards
:math:`\pi`); the algorithms below rely on this to stop a start as soon as it
is within :math:`\epsilon`, and to find :math:`t_{\mathrm{mix}}` by repeated
squaring and bisection on whole sweeps.

Chains whose :math:`\pi` sits mostly on one state (the He et al. counterexamples with a large
:math:`M`) can be bracketed without following every start: :func:`top_state_mixing_bracket` needs
one backward recursion :math:`h_t(x) = P^{(t)}(x, top)` for all starts at once, O(sweep length x N)
memory instead of the N x N of every start's distribution.

Weighted total variation (DoGS Definition 4),
:math:`\|\mu - \nu\|_{d,TV} = \sup_f |E_\mu f - E_\nu f|` over :math:`f` with
:math:`|f(x) - f(y)| \le \sum_i d_i \mathbb{1}[x_i \ne y_i]`, is computed
exactly as a linear program in :func:`weighted_tv`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.special import logsumexp

from dogs._kernels.chains import step_rows

__all__ = [
    "MAX_STATES",
    "MixingTimeNotReached",
    "state_space",
    "state_index",
    "unique_rows",
    "stationary_distribution",
    "site_kernel",
    "site_kernels",
    "random_scan_kernel",
    "evolve",
    "tv_distance",
    "worst_case_tv_curve",
    "mixing_time",
    "systematic_mixing_times",
    "MixingBracket",
    "top_state_mixing_bracket",
    "weighted_tv",
]

#: Largest number of states any function here will enumerate or build a kernel over.
MAX_STATES = 2_000_000
#: Largest state space for which :func:`mixing_time` uses dense repeated squaring (beyond it: sparse stepping).
DENSE_LIMIT = 3000
#: Memory budget (bytes) for the dense matrices of one batch in the repeated-squaring search.
_DENSE_BUDGET = 768 * 2**20
#: Memory budget (bytes) for one block of start distributions in sparse stepping.
_BLOCK_BUDGET = 256 * 2**20


class MixingTimeNotReached(RuntimeError):
    """The chain was not within epsilon of stationarity after ``max_updates`` single-variable updates."""


# --------------------------------------------------------------------------------------------------
# state spaces and kernels


def _check_cardinalities(cardinalities, max_states=MAX_STATES) -> np.ndarray:
    card = np.asarray(cardinalities)
    if card.ndim != 1 or card.size < 1 or not np.issubdtype(card.dtype, np.integer):
        raise ValueError(f"cardinalities must be a non-empty 1-d integer sequence, got {cardinalities!r}")
    if np.any(card < 1):
        raise ValueError(f"cardinalities must all be >= 1, got {card.tolist()}")
    size = math.prod(int(k) for k in card)
    if max_states is not None and size > max_states:
        raise ValueError(
            f"cardinalities: the product space has {size} states, more than the exact-computation limit "
            f"max_states={max_states}"
        )
    return card.astype(np.int64)


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
    card = _check_cardinalities(cardinalities, max_states)
    grids = np.indices(tuple(card), dtype=np.int64)
    return grids.reshape(card.size, -1).T.copy()


def state_index(states, cardinalities) -> np.ndarray:
    """Flat C-order index of each state (rows of ``states``) in the product space of ``cardinalities``."""
    card = _check_cardinalities(cardinalities, None)
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
    card = _check_cardinalities(cardinalities, MAX_STATES if states is None else None)
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


def _check_kernels(kernels) -> list:
    kernels = list(kernels)
    if not kernels:
        raise ValueError("kernels must be a non-empty sequence of square matrices")
    n_states = kernels[0].shape[0]
    for k, kernel in enumerate(kernels):
        if kernel.ndim != 2 or kernel.shape != (n_states, n_states):
            raise ValueError(f"kernels[{k}] has shape {kernel.shape}; expected ({n_states}, {n_states})")
    return kernels


def random_scan_kernel(kernels, probabilities=None) -> sp.csr_matrix:
    r"""Random-scan kernel :math:`P = \sum_i q_i P_i` (uniform :math:`q_i = 1/p` by default).

    Parameters
    ----------
    kernels : sequence of (N, N) matrices
        The site kernels :math:`P_i` (e.g. from :func:`site_kernels`).
    probabilities : (p,) array, optional
        Selection probabilities :math:`q` (DoGS §2.1); non-negative, summing to one.
    """
    kernels = _check_kernels(kernels)
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


# --------------------------------------------------------------------------------------------------
# evolution and distances


def tv_distance(p, q) -> np.ndarray | float:
    r"""Total variation :math:`\|p - q\|_{TV} = \frac12 \sum_x |p(x) - q(x)|` along the last axis."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    out = 0.5 * np.abs(p - q).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


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
    kernels = _check_kernels(kernels)
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


def _check_stationary(stationary, n_states) -> np.ndarray:
    pi = np.asarray(stationary, dtype=np.float64)
    if pi.shape != (n_states,):
        raise ValueError(f"stationary must have shape ({n_states},), got {pi.shape}")
    if np.any(pi < 0) or not np.isclose(pi.sum(), 1.0, atol=1e-9):
        raise ValueError("stationary must be a probability vector (non-negative, summing to 1)")
    return pi


def _check_starts(starts, pi) -> np.ndarray:
    if starts is None:
        return np.flatnonzero(pi > 0)
    starts = np.asarray(starts)
    if starts.ndim != 1 or starts.size == 0 or not np.issubdtype(starts.dtype, np.integer):
        raise ValueError("starts must be a non-empty 1-d integer array of state indices")
    if starts.min() < 0 or starts.max() >= pi.size:
        raise ValueError(f"starts must be state indices in [0, {pi.size - 1}]")
    return np.unique(starts.astype(np.int64))


def _check_epsilon(epsilon) -> float:
    if not isinstance(epsilon, (int, float, np.floating)) or not 0 < epsilon < 1:
        raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
    return float(epsilon)


def _check_count(value, name) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _sweep(scan, n_sites) -> np.ndarray | None:
    """``None`` for the random scan, else the sweep as an int array (validated)."""
    if isinstance(scan, str):
        if scan != "random":
            raise ValueError(f"scan must be 'random' or a sequence of site indices, got scan={scan!r}")
        return None
    order = np.asarray(scan)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError(f"scan must be 'random' or a non-empty 1-d sequence of site indices, got scan={scan!r}")
    if order.min() < 0 or order.max() >= n_sites:
        raise ValueError(f"scan: site indices must lie in [0, {n_sites - 1}]")
    return order.astype(np.int64)


def worst_case_tv_curve(kernels, stationary, scan, n_updates, *, starts=None) -> np.ndarray:
    r"""Worst-case distance :math:`d(t) = \max_{x_0} \|\delta_{x_0} P^{(t)} - \pi\|_{TV}` for ``t = 0 .. n_updates``.

    Parameters
    ----------
    kernels : sequence of (N, N) matrices
        Site kernels.
    stationary : (N,) array
        :math:`\pi`.
    scan : ``"random"`` or 1-d int sequence
        Random scan, or one sweep of a systematic scan (repeated; e.g. a permutation).
    n_updates : int
        Number of single-variable updates.
    starts : 1-d int array, optional
        Start states (indices) to maximise over; default every state with :math:`\pi > 0`.

    Returns
    -------
    (n_updates + 1,) array.
    """
    kernels = _check_kernels(kernels)
    n_states = kernels[0].shape[0]
    pi = _check_stationary(stationary, n_states)
    order = _sweep(scan, len(kernels))
    n_updates = _check_count(n_updates, "n_updates")
    starts = _check_starts(starts, pi)
    stepper = _RowStepper(kernels, order)
    curve = np.zeros(n_updates + 1)
    block = max(1, _BLOCK_BUDGET // (16 * n_states))
    for lo in range(0, starts.size, block):
        chunk = starts[lo : lo + block]
        rows = np.zeros((chunk.size, n_states))
        rows[np.arange(chunk.size), chunk] = 1.0
        out = np.empty_like(rows)
        tv = np.empty(chunk.size)
        curve[0] = max(curve[0], float(np.max(0.5 * np.abs(rows - pi).sum(axis=1))))
        for t in range(n_updates):
            stepper.step(rows, t, pi, out, tv)
            rows, out = out, rows
            curve[t + 1] = max(curve[t + 1], float(tv.max()))
    return curve


# --------------------------------------------------------------------------------------------------
# mixing times


def _dense(kernel) -> np.ndarray:
    return kernel.toarray() if sp.issparse(kernel) else np.asarray(kernel, dtype=np.float64)


def _batch_tv(rows: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Worst TV over the start rows of each batch member: rows (B, S, N) -> (B,)."""
    return 0.5 * np.abs(rows - pi).sum(axis=-1).max(axis=-1)


def _dense_search(period_ops, starts, epsilon_check, max_periods):
    """Repeated squaring + bisection over whole periods.

    ``period_ops`` (B, N, N): the operator of one period (sweep) of each batch member;
    ``starts``: indices of the point-mass starts. Assumes ``d(0) > epsilon``. Returns ``k`` (B,),
    the least number of periods with ``d(k) <= epsilon``, and the rows after ``k - 1`` periods
    (B, S, N). ``epsilon_check(rows)`` is ``True`` where the worst start is within epsilon.
    """
    batch, n_states = period_ops.shape[0], period_ops.shape[1]
    powers = [period_ops]
    below = epsilon_check(period_ops[:, starts, :])  # rows of a point mass = rows of the operator
    while not below.all():
        if 2 ** len(powers) > max_periods:
            raise MixingTimeNotReached(f"not within epsilon after {2 ** (len(powers) - 1)} sweeps")
        powers.append(powers[-1] @ powers[-1])
        below |= epsilon_check(powers[-1][:, starts, :])
    count = np.zeros(batch, dtype=np.int64)
    rows = np.broadcast_to(np.eye(n_states)[starts], (batch, starts.size, n_states)).copy()
    for bit in range(len(powers) - 2, -1, -1):
        candidate = rows @ powers[bit]
        above = ~epsilon_check(candidate)
        rows[above] = candidate[above]
        count[above] += 2**bit
    return count + 1, rows


#: Up to this many states, the site kernels are held dense and a batch of sweeps is multiplied at once.
_BATCHED_LIMIT = 128


def _dense_mixing_times(kernels, orders, pi, starts, epsilon, max_updates):
    """Mixing times of sweeps (B, L) by dense repeated squaring of the one-sweep operators."""
    n_states = pi.size

    def within(rows):
        return _batch_tv(rows, pi) <= epsilon

    if within(np.eye(n_states)[starts][None])[0]:
        return np.zeros(len(orders), dtype=np.int64)
    length = orders.shape[1]
    batched = n_states <= _BATCHED_LIMIT
    stack = np.stack([_dense(k) for k in kernels]) if batched else None
    sparse_kernels = None if batched else [sp.csr_matrix(k) for k in kernels]
    max_periods = max(1, max_updates // length)
    per_member = 8 * n_states * (n_states * 44 + starts.size * 4)
    batch = max(1, min(len(orders), _DENSE_BUDGET // per_member)) if batched else 1
    out = np.zeros(len(orders), dtype=np.int64)
    for lo in range(0, len(orders), batch):
        chunk = orders[lo : lo + batch]
        if batched:
            ops = stack[chunk[:, 0]].copy()
            for r in range(1, length):
                ops = ops @ stack[chunk[:, r]]
        else:  # dense @ sparse: O(N nnz) per site instead of O(N^3)
            op = _dense(sparse_kernels[chunk[0, 0]])
            for site in chunk[0, 1:]:
                op = np.asarray(op @ sparse_kernels[site])
            ops = op[None]
        periods, rows = _dense_search(ops, starts, within, max_periods)
        del ops
        result = (periods - 1) * length
        pending = np.ones(len(chunk), dtype=bool)
        for r in range(length):
            if batched:
                rows = rows @ stack[chunk[:, r]]
            else:
                rows = np.asarray(rows[0] @ sparse_kernels[chunk[0, r]])[None]
            hit = pending & within(rows)
            result[hit] += r + 1
            pending &= ~hit
        if pending.any():  # cannot happen for pi-invariant kernels; guards against non-invariant input
            raise RuntimeError("distance did not reach epsilon within the sweep that squaring located")
        out[lo : lo + batch] = result
    if out.max() > max_updates:
        raise MixingTimeNotReached(f"not within epsilon={epsilon} after max_updates={max_updates} updates")
    return out


class _RowStepper:
    """Steps blocks of distributions (rows) with sparse CSR kernels through the fused numba kernel."""

    def __init__(self, kernels, order):
        if order is None:
            self.kernels = [random_scan_kernel(kernels)]
            self.sequence = np.zeros(1, dtype=np.int64)
        else:
            self.kernels = [sp.csr_matrix(k, dtype=np.float64) for k in kernels]
            self.sequence = order
        for k in self.kernels:
            k.sort_indices()
        self.parts = [(k.indptr.astype(np.int64), k.indices.astype(np.int64), k.data) for k in self.kernels]

    def step(self, rows, t, pi, out, tv):
        """Apply the kernel of update ``t + 1`` (0-based ``t``) to ``rows``; results in ``out`` and ``tv``."""
        indptr, indices, data = self.parts[self.sequence[t % self.sequence.size]]
        step_rows(rows, indptr, indices, data, pi, out, tv)


def _sparse_mixing_time(kernels, order, pi, starts, epsilon, max_updates, progress=None):
    """Mixing time by stepping blocks of point masses with sparse kernels, dropping starts once mixed."""
    n_states = pi.size
    stepper = _RowStepper(kernels, order)
    block = max(1, _BLOCK_BUDGET // (16 * n_states))
    worst = 0
    for lo in range(0, starts.size, block):
        chunk = starts[lo : lo + block]
        rows = np.zeros((chunk.size, n_states))
        rows[np.arange(chunk.size), chunk] = 1.0
        rows = rows[0.5 * np.abs(rows - pi).sum(axis=1) > epsilon]
        out = np.empty_like(rows)
        tv = np.empty(rows.shape[0])
        t = 0
        while rows.shape[0]:
            if t >= max_updates:
                raise MixingTimeNotReached(f"not within epsilon={epsilon} after max_updates={max_updates} updates")
            stepper.step(rows, t, pi, out, tv)
            rows, out = out, rows
            t += 1
            far = tv > epsilon
            if not far.all():
                worst = max(worst, t)
                rows = np.ascontiguousarray(rows[far])
                out = np.empty_like(rows)
                tv = np.empty(rows.shape[0])
        if progress is not None:
            progress(f"starts {lo + chunk.size}/{starts.size}: worst so far {worst} updates")
    return worst


def mixing_time(
    kernels,
    stationary,
    scan="random",
    *,
    epsilon: float = 0.25,
    starts=None,
    max_updates: int = 10**12,
    dense_limit: int = DENSE_LIMIT,
    progress=None,
) -> int:
    r"""Exact mixing time :math:`t_{\mathrm{mix}}(\epsilon)` in single-variable updates (He et al. 2016, §3).

    .. math::

        t_{\mathrm{mix}}(\epsilon) = \min\{t : \max_{x_0 \in \text{starts}}
        \|\delta_{x_0} P^{(t)} - \pi\|_{TV} \le \epsilon\},

    with :math:`P^{(t)} = P^t` for the random scan and
    :math:`P^{(t)} = P_{\alpha_1} \cdots P_{\alpha_t}` (indices of the sweep
    :math:`\alpha` taken cyclically) for a systematic scan.

    Up to ``dense_limit`` states: repeated squaring of the dense one-sweep operator and
    bisection over whole sweeps, then single updates inside the last sweep. Beyond it:
    blocks of point masses stepped with the sparse kernels, each start dropped once it
    is within :math:`\epsilon` (its distance never grows again).

    Parameters
    ----------
    kernels : sequence of (N, N) matrices
        Site kernels, each leaving ``stationary`` invariant.
    stationary : (N,) array
        :math:`\pi`.
    scan : ``"random"`` or 1-d int sequence
        Random scan, or one sweep of a systematic scan (a permutation of the sites, repeated).
    epsilon : float
        TV threshold in (0, 1) (paper: 1/4).
    starts : 1-d int array, optional
        Start states to maximise over; default every state with :math:`\pi > 0` in double
        precision. Pass them explicitly when some state's probability underflows to 0 (e.g.
        weights :math:`M^{-k}` below 1e-308): such states are often the worst starts. A smaller
        set is exact when it meets every orbit of a symmetry group of the chain.
    max_updates : int
        Give up (:class:`MixingTimeNotReached`) beyond this many updates.
    dense_limit : int
        Largest state space handled by dense squaring.
    progress : callable, optional
        Receives progress messages (sparse stepping only).

    Returns
    -------
    int
    """
    kernels = _check_kernels(kernels)
    pi = _check_stationary(stationary, kernels[0].shape[0])
    order = _sweep(scan, len(kernels))
    epsilon = _check_epsilon(epsilon)
    max_updates = _check_count(max_updates, "max_updates")
    starts = _check_starts(starts, pi)
    if pi.size <= dense_limit and 8 * starts.size > pi.size:  # few starts: sparse stepping is cheaper
        if order is None:
            one = np.zeros((1, 1), dtype=np.int64)
            return int(_dense_mixing_times([random_scan_kernel(kernels)], one, pi, starts, epsilon, max_updates)[0])
        return int(_dense_mixing_times(kernels, order[None, :], pi, starts, epsilon, max_updates)[0])
    return _sparse_mixing_time(kernels, order, pi, starts, epsilon, max_updates, progress)


def systematic_mixing_times(kernels, stationary, orders, *, epsilon: float = 0.25, starts=None, max_updates: int = 10**12) -> np.ndarray:
    r"""Exact :math:`t_{\mathrm{mix}}(S_\alpha, \epsilon)` of many systematic scans at once (small state spaces).

    The same quantity as :func:`mixing_time` with ``scan=alpha`` for each row ``alpha``
    of ``orders``, computed with batched dense products (every site kernel is held
    dense), so it is meant for state spaces of at most a few hundred states and many
    permutations (He et al. 2016, Fig. 2c).

    Parameters
    ----------
    kernels : sequence of (N, N) matrices
        Site kernels.
    stationary : (N,) array
        :math:`\pi`.
    orders : (B, L) int array
        One sweep per row.
    epsilon, starts, max_updates
        As in :func:`mixing_time`.

    Returns
    -------
    (B,) int64 array.
    """
    kernels = _check_kernels(kernels)
    pi = _check_stationary(stationary, kernels[0].shape[0])
    orders = np.asarray(orders)
    if orders.ndim != 2 or orders.size == 0 or not np.issubdtype(orders.dtype, np.integer):
        raise ValueError("orders must be a non-empty 2-d integer array, one sweep per row")
    if orders.min() < 0 or orders.max() >= len(kernels):
        raise ValueError(f"orders: site indices must lie in [0, {len(kernels) - 1}]")
    if pi.size > DENSE_LIMIT:
        raise ValueError(f"stationary: {pi.size} states is too many for batched dense computation (limit {DENSE_LIMIT})")
    return _dense_mixing_times(
        kernels, orders.astype(np.int64), pi, _check_starts(starts, pi), _check_epsilon(epsilon), _check_count(max_updates, "max_updates")
    )


@dataclass(frozen=True)
class MixingBracket:
    r"""Bounds :math:`t_{low} \le t_{mix}(\epsilon) \le t_{high}` on a worst-case mixing time.

    Attributes
    ----------
    lower, upper : int or None
        ``lower`` is a proven lower bound; ``upper`` a proven upper bound, ``None`` when the bound
        never reaches ``epsilon`` (:func:`top_state_mixing_bracket`: :math:`\pi(top) < 1 - \epsilon`).
        ``lower == upper`` is the exact mixing time.
    top_mass : float
        :math:`\pi(top)` of the state the bracket is built on.
    """

    lower: int
    upper: int | None
    top_mass: float

    @property
    def exact(self) -> bool:
        return self.upper is not None and self.upper == self.lower


def top_state_mixing_bracket(kernels, stationary, scan, top, *, epsilon: float = 0.25, starts=None,
                             max_updates: int = 10**9) -> MixingBracket:
    r"""Bracket the worst-case mixing time of a chain whose :math:`\pi` sits mostly on one state, in O(sweep x N) memory.

    For any start :math:`x` and :math:`\mu = \delta_x P^{(t)}`, with :math:`h_t(x) = P^{(t)}(x, top)`,

    .. math::

        \pi(top) - h_t(x) \;\le\; \|\mu - \pi\|_{TV} \;\le\; 1 - \min(h_t(x), \pi(top)),

    (the lower bound is the event :math:`\{top\}`; the upper one bounds every other state's
    :math:`(\pi(y) - \mu(y))^+` by :math:`\pi(y)`). :math:`h_t` for every start at once is a backward
    recursion: random scan :math:`h_t = P h_{t-1}`; a systematic sweep :math:`\alpha` of length
    :math:`p`, :math:`t = mp + r`, :math:`h_t = Q^m R_r 1_{top}` with :math:`Q = P_{\alpha_1} \cdots P_{\alpha_p}`
    and :math:`R_r = P_{\alpha_1} \cdots P_{\alpha_r}`: one vector per phase :math:`r`, each advanced by
    :math:`Q` once per sweep. With :math:`d(t)` the worst-case distance, :math:`d(t) > \epsilon` for every
    :math:`t` below the first :math:`t` at which the largest lower bound is within :math:`\epsilon` (``lower``),
    and :math:`d(t) \le \epsilon` at the first :math:`t` at which the largest upper bound is (``upper``):
    :math:`t_{mix}(\epsilon) = \min\{t : d(t) \le \epsilon\}` lies between them, and ``lower == upper``
    is its exact value. The gap shrinks with :math:`1 - \pi(top)`.

    Parameters
    ----------
    kernels : sequence of (N, N) sparse matrices
        Site kernels, each leaving ``stationary`` invariant.
    stationary : (N,) array
        :math:`\pi`.
    scan : ``"random"`` or 1-d int sequence
        Random scan, or one sweep of a systematic scan (repeated).
    top : int
        Index of the heavy state.
    epsilon : float
        TV threshold (paper: 1/4).
    starts : 1-d int array, optional
        Start states to maximise over; default every state (also those whose :math:`\pi` underflows to 0).
    max_updates : int
        Give up (:class:`MixingTimeNotReached`) beyond this many updates.

    Returns
    -------
    MixingBracket
        ``upper`` is ``None`` when :math:`\pi(top) < 1 - \epsilon` (the upper bound is then useless).
    """
    kernels = _check_kernels(kernels)
    n_states = kernels[0].shape[0]
    pi = _check_stationary(stationary, n_states)
    order = _sweep(scan, len(kernels))
    epsilon = _check_epsilon(epsilon)
    max_updates = _check_count(max_updates, "max_updates")
    top = _check_count(top, "top")
    if top >= n_states:
        raise ValueError(f"top must be a state index in [0, {n_states - 1}], got {top}")
    starts = np.arange(n_states) if starts is None else _check_starts(starts, pi)
    pi_top = float(pi[top])
    certifiable = pi_top >= 1.0 - epsilon
    if order is None:
        matrices, length = [random_scan_kernel(kernels)], 1
        order = np.zeros(1, dtype=np.int64)
    else:
        matrices, length = [sp.csr_matrix(k, dtype=np.float64) for k in kernels], order.size
    # column r: R_r 1_top = P_{alpha_1} ... P_{alpha_r} 1_top (column 0 is 1_top itself)
    phases = np.zeros((n_states, length))
    phases[top, :] = 1.0
    for j in range(length - 2, -1, -1):
        phases[:, j + 1:] = matrices[order[j]] @ phases[:, j + 1:]
    lower = upper = None
    done = 0
    while True:
        worst = phases[starts].min(axis=0)  # min over starts of h_t, t = done + r
        for r in range(length):
            if lower is None and pi_top - worst[r] <= epsilon:
                lower = done + r
            if upper is None and certifiable and 1.0 - min(worst[r], pi_top) <= epsilon:
                upper = done + r
        if lower is not None and (upper is not None or not certifiable):
            break
        done += length
        if done > max_updates:
            raise MixingTimeNotReached(f"not within epsilon={epsilon} after max_updates={max_updates} updates")
        for j in range(length - 1, -1, -1):  # one more sweep in front of every phase: h <- Q h
            phases = matrices[order[j]] @ phases
    return MixingBracket(lower=int(lower), upper=None if upper is None else int(upper), top_mass=pi_top)


# --------------------------------------------------------------------------------------------------
# weighted total variation


def weighted_tv(mu, nu, weights, cardinalities) -> float:
    r"""The :math:`d`-weighted total variation of DoGS Definition 4, exactly, as a linear program.

    .. math::

        \|\mu - \nu\|_{d,TV} = \sup\Big\{ |E_\mu f - E_\nu f| :
        |f(x) - f(y)| \le \sum_i d_i \mathbb{1}[x_i \ne y_i] \ \forall x, y \Big\}.

    The weighted Hamming metric is the path metric of single-coordinate moves, so it
    suffices to impose :math:`|f(x) - f(y)| \le d_i` for every pair differing only in
    coordinate :math:`i` (all value pairs :math:`a \ne b` of :math:`x_i`); :math:`d_i = 0`
    forces :math:`f` not to depend on :math:`x_i` (equality constraints). The objective
    :math:`\max_f (\mu - \nu)^\top f` equals the supremum of the absolute value because
    :math:`-f` is feasible whenever :math:`f` is; :math:`f` is pinned to 0 at the first
    state (the objective ignores constants). Solved with HiGHS (:func:`scipy.optimize.linprog`).

    Parameters
    ----------
    mu, nu : (N,) arrays
        Probability vectors over the product space of ``cardinalities`` (C order).
    weights : (p,) array
        Non-negative :math:`d`.
    cardinalities : sequence of int
        ``K_i`` of each variable.

    Returns
    -------
    float
    """
    card = _check_cardinalities(cardinalities, 200_000)
    n_states = math.prod(int(k) for k in card)
    mu = _check_stationary(np.asarray(mu, dtype=np.float64).reshape(-1), n_states)
    nu = _check_stationary(np.asarray(nu, dtype=np.float64).reshape(-1), n_states)
    d = np.asarray(weights, dtype=np.float64)
    if d.shape != (card.size,) or np.any(~np.isfinite(d)) or np.any(d < 0):
        raise ValueError(f"weights must be {card.size} finite non-negative numbers, got {weights!r}")
    grid = np.arange(n_states).reshape(tuple(card))
    ub_rows, ub_cols, ub_vals, ub_rhs = [], [], [], []
    eq_rows, eq_cols, eq_vals = [], [], []
    n_ub = n_eq = 0
    for i, k in enumerate(card):
        if d[i] == 0:
            pairs = [(a, a + 1) for a in range(k - 1)]  # a chain of equalities ties every value together
        else:
            pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        for a, b in pairs:
            left = np.take(grid, a, axis=i).ravel()
            right = np.take(grid, b, axis=i).ravel()
            m = left.size
            if d[i] == 0:
                r = n_eq + np.arange(m)
                eq_rows += [r, r]
                eq_cols += [left, right]
                eq_vals += [np.ones(m), -np.ones(m)]
                n_eq += m
            else:
                for sign in (1.0, -1.0):
                    r = n_ub + np.arange(m)
                    ub_rows += [r, r]
                    ub_cols += [left, right]
                    ub_vals += [np.full(m, sign), np.full(m, -sign)]
                    ub_rhs.append(np.full(m, d[i]))
                    n_ub += m
    a_ub = b_ub = a_eq = b_eq = None
    if n_ub:
        a_ub = sp.csr_matrix((np.concatenate(ub_vals), (np.concatenate(ub_rows), np.concatenate(ub_cols))), shape=(n_ub, n_states))
        b_ub = np.concatenate(ub_rhs)
    if n_eq:
        a_eq = sp.csr_matrix((np.concatenate(eq_vals), (np.concatenate(eq_rows), np.concatenate(eq_cols))), shape=(n_eq, n_states))
        b_eq = np.zeros(n_eq)
    bounds = [(0.0, 0.0)] + [(None, None)] * (n_states - 1)
    res = linprog(-(mu - nu), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"weighted_tv: the linear program failed ({res.message})")
    return max(0.0, float(-res.fun))
