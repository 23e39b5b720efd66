r"""DoGS: Dobrushin-optimised Gibbs scans (DoGS Algorithm 2, §4; length doubling, §5.2).

Algorithm 2 minimises the Dobrushin variation (Definition 7)

.. math::

    \mathcal V(q_1, \dots, q_T; d, \bar C) = d^\top B(q_T) \cdots B(q_1)\,\mathbf 1,
    \qquad B(q) = I - \operatorname{diag}(q)(I - \bar C),

by one backward sweep of coordinate descent over the steps. With
:math:`b_{t-1} = B(q_{t-1}) \cdots B(q_1) \mathbf 1` (input scan) and
:math:`d_t^\top = d^\top B(q_T^*) \cdots B(q_{t+1}^*)` (already optimised
suffix), the objective is linear in :math:`q_t`:

.. math::

    d_t^\top B(q_t)\, b_{t-1} = d_t^\top b_{t-1} + q_t^\top w, \qquad
    w = \partial \mathcal V / \partial q_t = -\, d_t \odot (I - \bar C)\, b_{t-1},

so :math:`q_t^* = e_{i^*}` with :math:`i^* = \arg\min_i w_i`, and then
:math:`d_{t-1}^\top = d_t^\top B(q_t^*)`. The sweep never increases
:math:`\mathcal V` (the minimum of a linear function over the simplex is at
most its value at the input :math:`q_t`), so the output is never worse than
the input scan.

Implementation notes (all in :mod:`dogs._kernels.dogs`):

- Forward pass: stores :math:`b_T` and, per deterministic step, the one entry
  it overwrote (``O(T)`` storage; per uniform step the whole ``b``).
- Backward pass: ``w`` lives in an indexed binary min-heap; after each step
  only the ``O(m)`` entries whose inputs changed are recomputed *from the
  current* ``d`` and ``b`` (no accumulated increments, so no drift):
  ``O(m log p + m^2)`` per deterministic step, ``O(nnz + p)`` per uniform step,
  ``O(p + T)`` memory for deterministic input scans (DoGS §4's cost statement). The heap
  holds only the support of ``d`` and nothing is initialised in ``O(p)``, so for one
  marginal and a short input scan (length doubling) a run costs nothing in ``p``.
- :math:`\mathcal V` is kept in a pairwise-sum tree over :math:`d_i b_i \ge 0`
  (``O(m log p)`` per step), so it stays accurate relative to itself as it decays.
  Algorithm 2's line ":math:`\mathcal V \leftarrow \mathcal V + d^\top \operatorname{diag}(q^*_t - q_t) b`"
  omits the factor :math:`-(I - \bar C)`; the correct change is
  :math:`(q_t^* - q_t)^\top w`, which the tree realises exactly.
- Ties: ``argmin`` uses the key ``(w_i, -d_i, i)`` -- among exactly equal
  derivatives the variable with the most weight :math:`(d_t)_i`, then the
  smallest index. This decides what happens when nothing strictly improves
  (``min w = 0``): choosing an unweighted variable would waste the step,
  choosing a weighted one with :math:`w_i = 0` keeps :math:`\mathcal V` and
  pushes its weight onto its neighbours, where earlier steps can reduce it.
- Early stopping: before optimising step ``t``, if :math:`\mathcal V \le \epsilon`
  the input steps ``1..t`` are kept unchanged and the sweep ends.

Keeping the targets (``dogs_scan(..., keep_targets=True)``, not in the paper). The variation bounds the
bias only when it is below 1. Where the influence bound does not contract (deterministic or near-deterministic
factors: a parent that determines its child has influence 1 on it) :math:`\mathcal V` exceeds 1 whatever the
scan, and the greedy choice may drop a targeted variable altogether: a variable never updated keeps
:math:`b_i = 1`, so with :math:`d_i \ge 1` dropping it already makes the variation vacuous, and the chain then
reports its start as its marginal (and conditions its neighbours on it). With ``keep_targets`` each targeted
variable that the input updated and the output dropped is put back at one of the input's steps for it, the
latest whose variable in the output is updated elsewhere too (else the latest optimised step whose variable is),
so no other variable is dropped in turn; the scan returned is the repaired one or the input, whichever has the
smaller variation. It therefore updates every targeted variable its input updated, and its variation is still at
most the input's. On a bound that contracts Algorithm 2 seldom drops a target (doing so costs :math:`d_i` of
variation), and then nothing changes.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from dogs._kernels.dogs import clear_workspace, dogs_backward, dogs_forward
from dogs._kernels.variation import tree_offsets
from dogs.scans.base import UNIFORM, Scan
from dogs.scans.checks import Influence, as_epsilon, as_influence, as_scan, as_weights
from dogs.scans.variation import dobrushin_variation, lazy_zeros, support_of

__all__ = [
    "UnvisitedVariablesWarning",
    "DoGSResult",
    "IteratedDoGSResult",
    "LengthDoublingResult",
    "dogs_scan",
    "iterated_dogs",
    "length_doubling_dogs",
]

#: Refuse uniform input scans whose per-step snapshots of ``b`` would exceed this many bytes.
MAX_SNAPSHOT_BYTES = 2 * 1024**3


class UnvisitedVariablesWarning(UserWarning):
    """A DoGS scan never updates some variables it targets (``d_i > 0``) that its input scan updated.

    Algorithm 2 minimises the Dobrushin variation, which is an error bound only when it is below 1. With an
    influence bound that does not contract (rows summing to 1 or more, as on networks with deterministic factors)
    the variation grows with every step whatever the scan, and the greedy choice can starve a variable: a chain
    that never updates a variable cannot estimate its marginal.
    """


def _dropped_targets(input_steps: np.ndarray, output_steps: np.ndarray, n_vars: int, d: np.ndarray) -> np.ndarray:
    """The targeted variables (``d_i > 0``) that ``input_steps`` updates and ``output_steps`` never does, increasing.

    A uniform step may update any variable: an input with one drops nothing (the output's steps are the input's
    or deterministic)."""
    if np.any(input_steps == UNIFORM):
        return np.empty(0, dtype=np.int64)
    before = np.bincount(input_steps, minlength=n_vars) > 0
    after = np.bincount(output_steps[output_steps >= 0], minlength=n_vars) > 0
    return np.flatnonzero(before & ~after & (np.asarray(d) > 0))


def _warn_unvisited(input_steps: np.ndarray, result: DoGSResult, d: np.ndarray) -> None:
    """:class:`UnvisitedVariablesWarning` when ``result``'s scan drops targeted variables its input updated."""
    dropped = _dropped_targets(input_steps, result.scan.indices, result.scan.n_vars, d)
    if dropped.size:
        vacuous = " (at least 1: the bound certifies nothing here)" if result.variation >= 1 else ""
        warnings.warn(
            f"the DoGS scan never updates {dropped.size} of the variables it targets (first: "
            f"{', '.join(map(str, dropped[:5].tolist()))}), which its input scan updated; its Dobrushin variation is "
            f"{result.variation:.3g}{vacuous}. A chain that never updates a variable cannot estimate it: pass "
            f"keep_targets=True, or use a scan that updates every variable (e.g. systematic).",
            UnvisitedVariablesWarning, stacklevel=3)


@dataclass(frozen=True, eq=False)
class DoGSResult:
    """Output of one run of DoGS Algorithm 2 (:func:`dogs_scan`).

    Attributes
    ----------
    scan : Scan
        The optimised scan: input steps ``1..early_stop_step`` (if early stopping fired), optimised steps after.
    variation : float
        Its Dobrushin variation :math:`\\mathcal V(q^*; d, \\bar C)`.
    input_variation : float
        Dobrushin variation of the input scan (``>= variation``).
    early_stop_step : int or None
        ``t`` such that the backward sweep stopped before optimising step ``t`` because
        :math:`\\mathcal V \\le \\epsilon`; input steps ``1..t`` are kept. ``None`` if the sweep
        reached ``t = 1`` (every step optimised).
    epsilon : float or None
        The early-stopping level used.
    forward_seconds, backward_seconds : float
        Wall-clock time of the two passes (validation and setup not included; see ``elapsed_seconds``).
    elapsed_seconds : float
        Wall-clock time of the whole call, validation included.
    restored : ndarray of int
        With ``keep_targets``: the targeted variables Algorithm 2 dropped and the scan updates again (empty when it
        dropped none, or without ``keep_targets``).
    kept_input : bool
        With ``keep_targets``: True when the repaired scan's variation exceeded the input's, so the input scan
        was returned (``variation == input_variation``).
    """

    scan: Scan
    variation: float
    input_variation: float
    early_stop_step: int | None
    epsilon: float | None
    forward_seconds: float
    backward_seconds: float
    elapsed_seconds: float
    restored: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    kept_input: bool = False

    @property
    def length(self) -> int:
        return self.scan.length

    @property
    def n_optimized_steps(self) -> int:
        """Number of trailing steps the backward sweep chose (``T - early_stop_step``)."""
        return self.scan.length - (self.early_stop_step or 0)


@dataclass(frozen=True, eq=False)
class IteratedDoGSResult:
    """Output of :func:`iterated_dogs`.

    Attributes
    ----------
    scan : Scan
        Best scan found (lowest Dobrushin variation; the earliest on ties).
    variation : float
        Its Dobrushin variation.
    variations : ndarray
        ``variations[0]`` is the input's variation, ``variations[k]`` the variation after run ``k``.
    n_iterations : int
        Runs of Algorithm 2 performed.
    converged : bool
        True if the last run did not improve (the variation stopped improving); False if the cap was hit.
    elapsed_seconds : float
    restored : ndarray of int
        With ``keep_targets``: every targeted variable some run dropped and got back, increasing.
    kept_input : bool
        With ``keep_targets``: True when the best scan is ``input_scan`` itself after some run's repair
        returned its input.
    """

    scan: Scan
    variation: float
    variations: np.ndarray
    n_iterations: int
    converged: bool
    elapsed_seconds: float
    restored: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    kept_input: bool = False


@dataclass(frozen=True, eq=False)
class LengthDoublingResult:
    """Output of :func:`length_doubling_dogs` (DoGS §5.2).

    Attributes
    ----------
    scan : Scan
        The accepted DoGS scan, of length ``length``.
    variation : float
        Its Dobrushin variation (``<= epsilon``).
    length : int
        The accepted length ``T~``.
    epsilon : float
        The target.
    lengths_tried : ndarray of int
        Every ``T~`` tried, in order (without ``bisect`` the last one is ``length``).
    variations_tried : ndarray of float
        DoGS variation reached at each ``T~``.
    dogs_result : DoGSResult
        The accepted run of Algorithm 2.
    elapsed_seconds : float
        Wall-clock time of the whole search (validation included).
    """

    scan: Scan
    variation: float
    length: int
    epsilon: float
    lengths_tried: np.ndarray
    variations_tried: np.ndarray
    dogs_result: DoGSResult = field(repr=False)
    elapsed_seconds: float


class _Workspace:
    """Algorithm 2's ``O(p)`` arrays in one zero-filled mapping, reused by every run on the same ``p``.

    One :func:`lazy_zeros` buffer holds them all (the pages a run never touches are never provided, and
    one mapping is one system call to make and one to return). ``b_set``, ``d``, ``w``, ``where`` and the
    sum tree must be zero when a run starts: each run clears what it wrote
    (:func:`dogs._kernels.dogs.clear_workspace`), so the next one finds them zero again; the other arrays
    may hold anything. Length doubling runs Algorithm 2 some ``log2 T`` times on short scans: with nine
    mappings made and returned per run, that was most of its cost up to ``p ~ 10^6``.
    """

    def __init__(self, n_vars: int):
        self.offsets = tree_offsets(n_vars)  # the sum tree's levels (used with early stopping only)
        layout = {"b_set": (np.uint8, n_vars), "d": (np.float64, n_vars), "w": (np.float64, n_vars),
                  "where": (np.int64, n_vars), "tree": (np.float64, int(self.offsets[-1])),
                  "b_value": (np.float64, n_vars),  # b = 1 until set (dogs._kernels.dogs: no O(p) initialisation)
                  "heap_var": (np.int64, n_vars), "heap_w": (np.float64, n_vars), "heap_d": (np.float64, n_vars)}
        starts, total = {}, 0
        for name, (dtype, count) in layout.items():
            starts[name] = total
            total += -(-count * np.dtype(dtype).itemsize // 64) * 64  # every array starts on a cache line
        buffer = lazy_zeros(total, np.uint8)
        for name, (dtype, count) in layout.items():
            setattr(self, name, buffer[starts[name]:starts[name] + count * np.dtype(dtype).itemsize].view(dtype))


def _run_dogs(steps: np.ndarray, n_vars: int, d: np.ndarray, matrix: Influence, epsilon: float, started: float,
              support: np.ndarray | None = None, workspace: _Workspace | None = None):
    """Algorithm 2 on validated inputs (``epsilon = -inf``: no early stopping); ``support`` = ``support_of(d)``.

    ``workspace``: a :class:`_Workspace` of ``n_vars`` shared by several runs (a fresh one when omitted).
    """
    n_uniform = int(np.count_nonzero(steps == UNIFORM))
    if n_uniform * n_vars * 8 > MAX_SNAPSHOT_BYTES:
        raise MemoryError(
            f"the input scan has {n_uniform} uniform steps over p = {n_vars} variables; storing b before each "
            f"(Algorithm 2's Delta_t for a uniform step is dense) needs {n_uniform * n_vars * 8 / 1024**3:.1f} GiB"
        )
    col_indptr, col_indices = matrix.columns()
    if support is None:
        support = support_of(d)
    space = _Workspace(n_vars) if workspace is None else workspace
    b_value, b_set = space.b_value, space.b_set
    previous_values = np.empty(steps.size)
    snapshots = np.empty((n_uniform, n_vars))
    out_steps = steps.copy()

    tic = time.perf_counter()
    dogs_forward(matrix.indptr, matrix.indices, matrix.data, steps, b_value, b_set, previous_values, snapshots)
    forward_seconds = time.perf_counter() - tic

    tic = time.perf_counter()
    input_variation, variation, stop, support_size = dogs_backward(
        matrix.indptr, matrix.indices, matrix.data, col_indptr, col_indices, steps, support, d, float(epsilon),
        b_value, b_set, previous_values, snapshots, out_steps, space.d, space.w, space.where,
        space.heap_var, space.heap_w, space.heap_d, space.tree, space.offsets,
    )
    backward_seconds = time.perf_counter() - tic
    if workspace is not None:
        clear_workspace(steps, b_set, space.d, space.w, space.where, space.heap_var, support_size, space.tree,
                        space.offsets, epsilon > -math.inf)
    return DoGSResult(
        scan=Scan(out_steps, n_vars),
        variation=float(variation),
        input_variation=float(input_variation),
        early_stop_step=None if stop < 0 else int(stop),
        epsilon=None if epsilon == -math.inf else float(epsilon),
        forward_seconds=forward_seconds,
        backward_seconds=backward_seconds,
        elapsed_seconds=time.perf_counter() - started,
    )


def _check_keep_targets(keep_targets) -> None:
    if not isinstance(keep_targets, (bool, np.bool_)):
        raise TypeError(f"keep_targets must be True or False, got {keep_targets!r}")


def _restore_targets(input_steps: np.ndarray, result: DoGSResult, d: np.ndarray, matrix: Influence,
                     started: float) -> DoGSResult:
    """``result`` with every targeted variable it dropped put back (``keep_targets``; the module docstring).

    A dropped variable ``v`` takes the latest of the input's steps for ``v`` whose variable in the output is
    updated at another step too, else the latest optimised step (after any kept by early stopping) whose variable
    is; if no such step is left, the input scan is returned. Then the repaired scan or the input, whichever has the
    smaller variation."""
    n_vars = result.scan.n_vars
    dropped = _dropped_targets(input_steps, result.scan.indices, n_vars, d)
    if not dropped.size:
        return result
    steps = result.scan.indices.copy()
    counts = np.bincount(steps[steps >= 0], minlength=n_vars)
    by_variable = np.argsort(input_steps, kind="stable")  # the input's steps grouped by variable, in order
    bounds = np.searchsorted(input_steps[by_variable], np.stack([dropped, dropped + 1]))
    fallback = steps.size - 1  # moves down only: a step it passed holds a variable updated nowhere else
    first_optimised = result.early_stop_step or 0

    def replaceable(t: int) -> bool:
        return steps[t] >= 0 and counts[steps[t]] > 1

    repaired = True
    for v, lo, hi in zip(dropped, *bounds):
        chosen = next((int(t) for t in by_variable[lo:hi][::-1] if replaceable(int(t))), None)
        if chosen is None:
            while fallback >= first_optimised and not replaceable(fallback):
                fallback -= 1
            if fallback < first_optimised:
                repaired = False
                break
            chosen = fallback
        counts[steps[chosen]] -= 1
        steps[chosen], counts[v] = v, 1
    variation = float(dobrushin_variation(Scan(steps, n_vars), d, matrix)) if repaired else math.inf
    kept_input = not variation <= result.input_variation
    return DoGSResult(
        scan=Scan(input_steps.copy(), n_vars) if kept_input else Scan(steps, n_vars),
        variation=result.input_variation if kept_input else variation,
        input_variation=result.input_variation,
        early_stop_step=None if kept_input else result.early_stop_step,
        epsilon=result.epsilon,
        forward_seconds=result.forward_seconds,
        backward_seconds=result.backward_seconds,
        elapsed_seconds=time.perf_counter() - started,
        restored=dropped,
        kept_input=kept_input,
    )


def dogs_scan(input_scan: Scan, weights, influence, epsilon: float | None = None, *,
              keep_targets: bool = False) -> DoGSResult:
    r"""Optimise a scan by DoGS Algorithm 2 (coordinate descent on the Dobrushin variation).

    Forward pass :math:`b_t = B(q_t) b_{t-1}`, :math:`b_0 = \mathbf 1`; backward pass for
    :math:`t = T, \dots, 1`: stop if :math:`\mathcal V \le \epsilon`; else rewind
    :math:`b_{t-1}`, set :math:`w = -d_t \odot (I - \bar C) b_{t-1}`, choose
    :math:`q_t^* = e_{\arg\min_i w_i}` and update :math:`d_{t-1}^\top = d_t^\top B(q_t^*)`.

    Parameters
    ----------
    input_scan : Scan
        Any scan: deterministic, uniform (all ``UNIFORM``) or mixed.
    weights : (p,) array_like
        Non-negative variable weights ``d`` (``e_1`` for one marginal, ``1`` for full TV).
    influence : (p, p) sparse matrix or array_like
        Influence bound :math:`\bar C` (non-negative, zero diagonal), ``[i, j]`` = influence of ``j`` on ``i``.
    epsilon : float, optional
        Target accuracy for early stopping (``>= 0``); ``None`` optimises every step.
    keep_targets : bool
        Put back every targeted variable that the input updated and Algorithm 2 dropped, or return the input
        where that repair would raise the variation above the input's (module docstring; not in the paper). Off
        by default: Algorithm 2 as published, which warns with :class:`UnvisitedVariablesWarning` instead.

    Returns
    -------
    DoGSResult
        Optimised scan, its variation, the input's variation, the early-stopping step and timings (and, with
        ``keep_targets``, the variables restored).

    Notes
    -----
    Time ``O(||d||_0 + p + (m log p + m^2) T)`` and memory ``O(p + T)`` for deterministic input
    scans (``m`` = largest Markov blanket, i.e. row or column of :math:`\bar C`); each uniform input
    step costs ``O(nnz + p)`` time and ``O(p)`` memory. Ties in ``argmin w`` are broken by the key
    ``(w_i, -d_i, i)`` (see the module docstring). DoGS §4, Algorithm 2.
    """
    started = time.perf_counter()
    input_scan = as_scan(input_scan, "input_scan")
    matrix = as_influence(influence, input_scan.n_vars)
    d = as_weights(weights, input_scan.n_vars)
    eps = as_epsilon(epsilon)
    _check_keep_targets(keep_targets)
    result = _run_dogs(input_scan.indices, input_scan.n_vars, d, matrix, eps, started)
    if keep_targets:
        return _restore_targets(input_scan.indices, result, d, matrix, started)
    _warn_unvisited(input_scan.indices, result, d)
    return result


def iterated_dogs(
    input_scan: Scan, weights, influence, epsilon: float | None = None, max_iterations: int = 20, *,
    keep_targets: bool = False,
) -> IteratedDoGSResult:
    r"""Re-run Algorithm 2 on its own output until the Dobrushin variation stops improving (DoGS §5.1).

    Run ``k`` optimises the scan returned by run ``k - 1`` (run 0's input is ``input_scan``). Each run
    never increases :math:`\mathcal V`, so the sequence ``variations`` is non-increasing; iteration stops
    at the first run that does not lower it strictly, or after ``max_iterations`` runs.

    Parameters
    ----------
    input_scan : Scan
        Starting scan.
    weights, influence
        As in :func:`dogs_scan`.
    epsilon : float, optional
        Early-stopping level passed to every run.
    max_iterations : int
        Cap on the number of runs (``>= 1``).
    keep_targets : bool
        As in :func:`dogs_scan`, applied to every run's output (so every run's input updates every target).

    Returns
    -------
    IteratedDoGSResult
        The best scan, its variation, and the variation after every run.
    """
    started = time.perf_counter()
    input_scan = as_scan(input_scan, "input_scan")
    matrix = as_influence(influence, input_scan.n_vars)
    d = as_weights(weights, input_scan.n_vars)
    eps = as_epsilon(epsilon)
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, numbers.Integral):
        raise TypeError(f"max_iterations must be an integer, got {type(max_iterations).__name__}")
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be >= 1, got {max_iterations}")
    _check_keep_targets(keep_targets)

    best_scan, best_variation = input_scan, None
    variations: list[float] = []
    converged = False
    n_iterations = 0
    current = input_scan
    support = support_of(d)
    workspace = _Workspace(input_scan.n_vars)
    restored: set[int] = set()
    while n_iterations < max_iterations:
        tic = time.perf_counter()
        result = _run_dogs(current.indices, current.n_vars, d, matrix, eps, tic, support, workspace)
        if keep_targets:
            result = _restore_targets(current.indices, result, d, matrix, tic)
            restored.update(result.restored.tolist())
        n_iterations += 1
        if not variations:
            variations.append(result.input_variation)
            best_variation = result.input_variation
        variations.append(result.variation)
        if result.variation < best_variation:
            best_scan, best_variation = result.scan, result.variation
            current = result.scan
        else:
            converged = True
            break
    return IteratedDoGSResult(
        scan=best_scan,
        variation=float(best_variation),
        variations=np.asarray(variations),
        n_iterations=n_iterations,
        converged=converged,
        elapsed_seconds=time.perf_counter() - started,
        restored=np.array(sorted(restored), dtype=np.int64),
        kept_input=bool(restored) and best_scan is input_scan,
    )


def length_doubling_dogs(
    input_scan: Scan, weights, influence, epsilon: float, start_length: int = 2, bisect: bool = False
) -> LengthDoublingResult:
    r"""Shortest DoGS scan meeting a Dobrushin-variation target, by length doubling (DoGS §5.2).

    For :math:`\tilde T = ` ``start_length``, ``2 start_length``, ``4 start_length``, ... (while below
    the input length ``T``), and finally :math:`\tilde T = T` itself: run Algorithm 2 (early stopping at
    ``epsilon``) on the first :math:`\tilde T` steps of ``input_scan``; accept the first DoGS scan with
    :math:`\mathcal V \le \epsilon`. In §5.2 the input is a systematic scan of length ``T`` and
    ``epsilon`` its own variation. Any ``T`` works: when it is not ``start_length`` times a power of two,
    the last length tried is ``T`` (the whole input), not the next power of two.

    With ``bisect=True``, once a length :math:`\tilde T` meets the target and the one before it
    (:math:`\tilde T / 2`, or the previous length) did not, the lengths between them are bisected and
    the shortest length found to meet the target is accepted (Algorithm 2's output is not guaranteed to
    improve monotonically with the length, so this is the shortest on the bisection path, which is at
    most the doubling answer). ``bisect=False`` (the default) is the paper's scheme.

    At the whole input length with ``epsilon`` at least the input's own variation, early stopping fires
    before the first step and the input comes back unchanged (Algorithm 2 as written); run
    :func:`dogs_scan` without ``epsilon`` to optimise it at that length instead.

    Parameters
    ----------
    input_scan : Scan
        Scan whose prefixes seed Algorithm 2.
    weights, influence
        As in :func:`dogs_scan`.
    epsilon : float
        Target Dobrushin variation (``>= 0``).
    start_length : int
        First :math:`\tilde T` (``>= 1``, at most the input length).
    bisect : bool
        Refine the accepted length by bisection between the last failing and the first accepted length.

    Returns
    -------
    LengthDoublingResult
        Accepted scan, its variation and length, and every length tried with its variation.

    Raises
    ------
    ValueError
        If not even the whole input length meets the target (the message lists every length tried and
        its variation).
    """
    started = time.perf_counter()
    input_scan = as_scan(input_scan, "input_scan")
    matrix = as_influence(influence, input_scan.n_vars)
    d = as_weights(weights, input_scan.n_vars)
    eps = as_epsilon(epsilon, allow_none=False)
    if isinstance(start_length, bool) or not isinstance(start_length, numbers.Integral):
        raise TypeError(f"start_length must be an integer, got {type(start_length).__name__}")
    if start_length < 1:
        raise ValueError(f"start_length must be >= 1, got {start_length}")
    if not isinstance(bisect, bool):
        raise TypeError(f"bisect must be True or False, got {bisect!r}")
    if start_length > input_scan.length:
        raise ValueError(f"start_length = {start_length} exceeds the input scan length {input_scan.length}")

    lengths: list[int] = []
    variations: list[float] = []
    support = support_of(d)
    workspace = _Workspace(input_scan.n_vars)

    def attempt(length: int) -> DoGSResult:
        result = _run_dogs(input_scan.indices[:length], input_scan.n_vars, d, matrix, eps, time.perf_counter(),
                           support, workspace)
        lengths.append(length)
        variations.append(result.variation)
        return result

    failed, length = 0, int(start_length)
    while True:
        result = attempt(length)
        if result.variation <= eps:
            break
        if length == input_scan.length:
            tried = ", ".join(f"{n}: {v:.3e}" for n, v in zip(lengths, variations))
            raise ValueError(
                f"length doubling did not reach epsilon = {eps:.3e}: not even the whole input scan (length "
                f"{input_scan.length}) did (lengths tried and DoGS variations: {tried})"
            )
        failed, length = length, min(2 * length, input_scan.length)
    accepted, accepted_length = result, length
    if bisect:
        low, high = failed, accepted_length  # low fails (or is 0), high meets the target
        while high - low > 1:
            middle = (low + high) // 2
            trial = attempt(middle)
            if trial.variation <= eps:
                high, accepted, accepted_length = middle, trial, middle
            else:
                low = middle
    return LengthDoublingResult(
        scan=accepted.scan,
        variation=accepted.variation,
        length=accepted_length,
        epsilon=eps,
        lengths_tried=np.asarray(lengths, dtype=np.int64),
        variations_tried=np.asarray(variations),
        dogs_result=accepted,
        elapsed_seconds=time.perf_counter() - started,
    )
