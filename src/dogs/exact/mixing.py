r"""Exact worst-case mixing of Gibbs chains on small state spaces: the TV curve, mixing times (dense repeated squaring
or sparse stepping), batched systematic-scan mixing times, and a bracket for chains whose :math:`\pi` sits on one
state.

Time is counted in single-variable updates and the worst case is over point-mass starts; every kernel leaves
:math:`\pi` invariant, so each start's distance to :math:`\pi` never grows, which lets the searches stop a start
once it is within :math:`\epsilon` (the definitions are in :mod:`dogs.exact.chains`, which re-exports every public
name here).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dogs._kernels.chains import step_rows
from dogs.exact.chain_checks import check_chain, check_count, check_epsilon, check_kernels, check_starts, check_stationary
from dogs.exact.transitions import random_scan_kernel

__all__ = ["DENSE_LIMIT", "MixingBracket", "MixingTimeNotReached", "mixing_time", "systematic_mixing_times",
           "top_state_mixing_bracket", "worst_case_tv_curve"]

#: Largest state space for which :func:`mixing_time` uses dense repeated squaring (beyond it: sparse stepping).
DENSE_LIMIT = 3000
#: Memory budget (bytes) for the dense matrices of one batch in the repeated-squaring search.
_DENSE_BUDGET = 768 * 2**20
#: Memory budget (bytes) for one block of start distributions in sparse stepping.
_BLOCK_BUDGET = 256 * 2**20


class MixingTimeNotReached(RuntimeError):
    """The chain was not within epsilon of stationarity after ``max_updates`` single-variable updates."""


def _point_mass_blocks(starts, n_states):
    """``(starts done, rows)`` for successive blocks of the point masses at ``starts``, each within the memory budget."""
    block = max(1, _BLOCK_BUDGET // (16 * n_states))
    for lo in range(0, starts.size, block):
        chunk = starts[lo : lo + block]
        rows = np.zeros((chunk.size, n_states))
        rows[np.arange(chunk.size), chunk] = 1.0
        yield lo + chunk.size, rows


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
    kernels, pi, order = check_chain(kernels, stationary, scan)
    n_states = pi.size
    n_updates = check_count(n_updates, "n_updates")
    starts = check_starts(starts, pi)
    stepper = _RowStepper(kernels, order)
    curve = np.zeros(n_updates + 1)
    for _, rows in _point_mass_blocks(starts, n_states):
        out = np.empty_like(rows)
        tv = np.empty(rows.shape[0])
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
    worst = 0
    for done, rows in _point_mass_blocks(starts, n_states):
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
            progress(f"starts {done}/{starts.size}: worst so far {worst} updates")
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
    kernels, pi, order = check_chain(kernels, stationary, scan)
    epsilon = check_epsilon(epsilon)
    max_updates = check_count(max_updates, "max_updates")
    starts = check_starts(starts, pi)
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
    orders : (B, L) int array
        One sweep per row.
    kernels, stationary, epsilon, starts, max_updates
        As in :func:`mixing_time`.

    Returns
    -------
    (B,) int64 array.
    """
    kernels = check_kernels(kernels)
    pi = check_stationary(stationary, kernels[0].shape[0])
    orders = np.asarray(orders)
    if orders.ndim != 2 or orders.size == 0 or not np.issubdtype(orders.dtype, np.integer):
        raise ValueError("orders must be a non-empty 2-d integer array, one sweep per row")
    if orders.min() < 0 or orders.max() >= len(kernels):
        raise ValueError(f"orders: site indices must lie in [0, {len(kernels) - 1}]")
    if pi.size > DENSE_LIMIT:
        raise ValueError(f"stationary: {pi.size} states is too many for batched dense computation (limit {DENSE_LIMIT})")
    return _dense_mixing_times(
        kernels, orders.astype(np.int64), pi, check_starts(starts, pi), check_epsilon(epsilon), check_count(max_updates, "max_updates")
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
    kernels, pi, order = check_chain(kernels, stationary, scan)
    n_states = pi.size
    epsilon = check_epsilon(epsilon)
    max_updates = check_count(max_updates, "max_updates")
    top = check_count(top, "top")
    if top >= n_states:
        raise ValueError(f"top must be a state index in [0, {n_states - 1}], got {top}")
    starts = np.arange(n_states) if starts is None else check_starts(starts, pi)
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

