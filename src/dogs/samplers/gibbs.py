r"""Gibbs sampling of binary pairwise MRFs with any scan (DoGS Algorithm 1).

For the model of :class:`~dogs.models.BinaryPairwiseMRF`,
``pi(x) ∝ exp(sum_{i<j} theta_ij x_i x_j + sum_i theta_i x_i)`` on
``x in {-1, +1}^p``, step ``t`` of the scan updates one site ``i`` (the
scan's index, or a uniformly drawn site where the scan holds ``-1``, DoGS §2.1)
by drawing from its full conditional

.. math::

    \pi(X_i = +1 \mid x_{-i}) = \sigma\Big(2\big(\theta_i + \textstyle\sum_{k \in N(i)} \theta_{ik} x_k\big)\Big),
    \qquad \sigma(z) = 1 / (1 + e^{-z})

(DoGS Appendix A.4, single-count convention). One call runs ``n_chains``
independent chains of ``T = len(scan)`` steps from the same initial state
and, optionally, records chosen variables after chosen step counts in the
same pass (e.g. ``X_1^T`` for every ``T`` of a grid, to measure the bias of
a length-``T`` sampler for many ``T`` without rerunning; DoGS §5.2, Fig. 5).

Work is reported as the sampler contract asks (:mod:`dogs.samplers.base`): site
updates, and single-flip density evaluations (one per binary update). Randomness: per-chain ``uint64`` seeds
are derived with :meth:`numpy.random.SeedSequence.spawn` and drive the
in-kernel xoshiro256** streams of :mod:`dogs._kernels.rng`; the seeds are
returned with the result so every chain can be replayed.

Three kernels (``kernel=``): the one-chain kernel of :mod:`dogs._kernels.gibbs` (each chain a dependent
sequence of updates, exactly the float64 rule) and, from ``LANES_FROM_CHAINS`` chains on a scan without
uniform steps, a chain-vectorised kernel (a site of 8 chains per vector instruction, per-chain xoshiro128+
streams from the same seeds): on graphs of degree at most 4 :mod:`dogs._kernels.gibbs_table` (the
conditional tabulated, exact to ``2^-31``), on others :mod:`dogs._kernels.gibbs_lanes` (float32, exact up to
a stated bound below ``1e-6`` for moderate fields). Same law, other random numbers.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from dogs._kernels.gibbs import (field_thresholds, gibbs_chain, gibbs_chain_draws, gibbs_chains, gibbs_chains_draws,
                                 padded_neighbourhoods, seed_states)
from dogs._kernels.gibbs_lanes import (FIELD_SCALE, LANE_WIDTH, gibbs_lanes, gibbs_lanes_block_draws, gibbs_lanes_draws,
                                       lane_states)
from dogs._kernels.gibbs_table import (STATE_PADDING, bits_to_spins, gibbs_table, gibbs_table_block_draws,
                                       gibbs_table_draws, slot_table, spins_to_bits)
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import ChainsResult, Work, chain_seeds, check_n_chains
from dogs.samplers.checks import NO_INDICES, check_int, check_model_and_scan, check_recording, check_spin_states
from dogs.samplers.draws import DrawsResult, PreparedDraws, check_record_vars, passes_per_call, run_draws, use_threads
from dogs.scans.base import Scan

__all__ = ["FLOAT_LANES_FROM_CHAINS", "GIBBS_KERNELS", "LANES_FROM_CHAINS", "LANE_WIDTH", "MAX_BLOCK_LANES", "GibbsResult",
           "chain_seeds", "draws_kernel", "gibbs_kernel", "kernel_graph", "lanes_apply", "prepare_gibbs_draws", "run_gibbs",
           "run_gibbs_draws"]

_LOW_THRESHOLDS, _HIGH_THRESHOLDS = field_thresholds()

#: Values of ``run_gibbs(kernel=...)``.
GIBBS_KERNELS = ("auto", "chains", "lanes")
#: ``kernel="auto"`` takes the table kernel (degree <= 4) from this many chains, one vector width: on one thread it
#: beats the one-chain kernel on two (300 x 300 grid: 1.6 against 4.8 ns per update at 8 chains; docs/performance.md).
LANES_FROM_CHAINS = LANE_WIDTH
#: ... and the float32 kernel (higher degrees) from two vector widths, so that both threads of a 2-core machine get a
#: block of lanes (a block of 8 lanes costs it twice as much per lane as a block of 16).
FLOAT_LANES_FROM_CHAINS = 2 * LANE_WIDTH
#: Lanes per block of the chain-vectorised kernel at most (per site, a block's spin rows and random states stay in
#: cache); more chains make more blocks, which the numba threads share.
MAX_BLOCK_LANES = 256
#: The lane kernel needs every scaled field ``|FIELD_SCALE| (|theta_i| + sum_k |theta_ik|)`` far inside float32's range.
_MAX_SCALED_FIELD = 2.0**100


@dataclass(frozen=True, eq=False)
class GibbsResult(ChainsResult):
    """Output of :func:`run_gibbs`.

    Attributes
    ----------
    states : (n_chains, p) int8 array
        State of every chain after the whole scan, spins in {-1, +1}.
    recorded : (n_chains, R, V) int8 array or None
        ``recorded[c, r, v]`` is the value of ``record_vars[v]`` in chain ``c``
        after ``record_times[r]`` steps; ``None`` when nothing was recorded.
    record_vars : (V,) int64 array or None
    record_times : (R,) int64 array or None
    work : Work
        ``n_chains * len(scan)`` site updates, each one single-flip density evaluation
        (the sampler contract of :mod:`dogs.samplers.base`).
    seeds : (n_chains,) uint64 array
        Seed of each chain's in-kernel stream (from ``SeedSequence.spawn``).
    """


def run_gibbs(
    model: BinaryPairwiseMRF,
    scan: Scan,
    *,
    seed,
    n_chains: int = 1,
    initial_state=1,
    record_vars=None,
    record_times=None,
    kernel: str = "auto",
) -> GibbsResult:
    r"""Run ``n_chains`` independent Gibbs chains through ``scan`` (DoGS Algorithm 1).

    Step ``t`` updates ``i = scan.indices[t]`` (or a uniformly drawn site when
    it is ``-1``): with ``f_i = h_i + sum_k theta_ik x_k`` and a fresh uniform
    ``u``, ``x_i <- +1`` if ``u < sigma(2 f_i)`` else ``-1``. The decision is
    exactly that floating-point rule (see :mod:`dogs._kernels.gibbs`).

    Parameters
    ----------
    model : BinaryPairwiseMRF
    scan : Scan
        Scan over ``model.n_vars`` variables; ``-1`` entries are uniform steps.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of the per-chain seeds (:func:`chain_seeds`). Same seed, same output.
    n_chains : int, default 1
        Number of independent chains (run in parallel with numba threads when > 1).
    initial_state : +1, -1 or array, default +1
        Start of every chain: a spin, a ``(p,)`` state shared by all chains or
        a ``(n_chains, p)`` array; values must be -1 or +1.
    record_vars, record_times : array-like of int, optional
        Give both or neither. Record the values of ``record_vars`` (indices in
        ``[0, p)``) after ``record_times[r]`` steps, for non-decreasing
        ``record_times`` in ``[0, len(scan)]`` (0 = the initial state).
    kernel : {"auto", "chains", "lanes"}, default "auto"
        ``"chains"``: each chain runs the one-chain kernel of :mod:`dogs._kernels.gibbs` (xoshiro256**
        streams, the decision exactly the float64 rule). ``"lanes"``: all chains run together in a
        chain-vectorised kernel (one vector operation updates a site of 8 chains, xoshiro128+ streams):
        on graphs of degree at most 4 :mod:`dogs._kernels.gibbs_table` (the conditional tabulated, exact
        to ``2^-31``), else :mod:`dogs._kernels.gibbs_lanes` (float32, the conditional exact up to a
        stated bound, below ``1e-6`` for moderate fields); it needs a scan without uniform ``-1`` steps
        (every chain must update the same site) and, off the table, fields within float32 range
        (:func:`lanes_apply`). ``"auto"`` takes
        ``"lanes"`` where :func:`lanes_apply` from ``LANES_FROM_CHAINS`` (8) chains on the table kernel and
        ``FLOAT_LANES_FROM_CHAINS`` (16) on the float32 kernel, else ``"chains"``.
        The two kernels draw different random streams from the same seeds: same law, other numbers.

    Returns
    -------
    GibbsResult
        Final states, recordings, work in site updates and the per-chain seeds.

    Raises
    ------
    TypeError, ValueError
        On a non-model, a non-scan, a scan over a different number of
        variables, bad ``n_chains``, seed, initial state or recording arguments,
        an unknown ``kernel`` or ``kernel="lanes"`` where it does not apply;
        raised before any sampling.

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> from dogs.scans import systematic_scan
    >>> model = grid_model(3, 3, coupling=0.2)
    >>> result = run_gibbs(model, systematic_scan(9, 90), seed=0, n_chains=4, record_vars=[0], record_times=[9, 90])
    >>> result.recorded.shape, result.site_updates
    ((4, 2, 1), 360)
    """
    check_model_and_scan(model, scan)
    n_chains = check_n_chains(n_chains)
    n_vars, n_steps = model.n_vars, scan.length
    spins = check_spin_states(initial_state, n_vars, n_chains, single_spin=True)
    record_vars, record_times = check_recording(record_vars, record_times, n_vars, n_steps)
    lanes = gibbs_kernel(model, scan, n_chains, kernel) != "chains"
    seeds = chain_seeds(seed, n_chains)

    recording = record_vars is not None
    rec_vars = record_vars if recording else NO_INDICES
    rec_times = record_times if recording else NO_INDICES
    recorded = np.zeros((n_chains, rec_times.size, rec_vars.size), dtype=np.int8)
    if lanes:
        _run_lanes(model, scan, spins, seeds, rec_vars, rec_times, recorded)
        return _result(spins, recorded if recording else None, record_vars, record_times, n_steps, seeds)
    rng_states = seed_states(seeds)
    arrays = (kernel_graph(model), model.h, scan.indices)
    if n_chains == 1:
        gibbs_chain(*arrays, spins[0], rng_states[0], _LOW_THRESHOLDS, _HIGH_THRESHOLDS, rec_vars, rec_times, recorded[0])
    else:
        gibbs_chains(*arrays, spins, rng_states, _LOW_THRESHOLDS, _HIGH_THRESHOLDS, rec_vars, rec_times, recorded)
    return _result(spins, recorded if recording else None, record_vars, record_times, n_steps, seeds)


def _result(states, recorded, record_vars, record_times, n_steps: int, seeds) -> GibbsResult:
    n_chains = states.shape[0]
    return GibbsResult(
        states=states,
        recorded=recorded,
        record_vars=record_vars,
        record_times=record_times,
        work=Work(site_updates=n_chains * n_steps, density_evaluations=n_chains * n_steps),
        seeds=seeds,
    )


def gibbs_kernel(model: BinaryPairwiseMRF, scan: Scan, n_chains: int, kernel: str = "auto") -> str:
    """The kernel :func:`run_gibbs` runs for these arguments: ``"chains"`` (:mod:`dogs._kernels.gibbs`), ``"table"``
    (:mod:`dogs._kernels.gibbs_table`) or ``"float32"`` (:mod:`dogs._kernels.gibbs_lanes`); see ``kernel`` there.

    Raises
    ------
    ValueError
        For an unknown ``kernel``, or ``kernel="lanes"`` where :func:`lanes_apply` is false.
    """
    if kernel not in GIBBS_KERNELS:
        raise ValueError(f"kernel must be one of {GIBBS_KERNELS}, got {kernel!r}")
    if kernel == "chains" or (kernel == "auto" and n_chains < LANES_FROM_CHAINS):
        return "chains"
    if not lanes_apply(model, scan):
        if kernel == "lanes":
            raise ValueError("kernel='lanes' needs a scan without uniform (-1) steps and fields within float32 range")
        return "chains"
    lanes = "table" if _lane_arrays(model).table is not None else "float32"
    if kernel == "auto" and lanes == "float32" and n_chains < FLOAT_LANES_FROM_CHAINS:
        return "chains"
    return lanes


def draws_kernel(model: BinaryPairwiseMRF, scan: Scan, n_chains: int, draws: int, kernel: str = "auto") -> tuple[str, str]:
    """``(module, function)`` under :mod:`dogs._kernels` of the kernel that the first call of :func:`run_gibbs_draws`
    runs for these arguments (for a notice before numba compiles it)."""
    which = gibbs_kernel(model, scan, n_chains, kernel)
    units = n_chains if which == "chains" else _block_layout(n_chains)[0]
    threads = use_threads(units, passes_per_call(draws, n_chains * scan.length) * n_chains * scan.length)
    module, parallel, unit = {"chains": ("gibbs", "gibbs_chains_draws", "gibbs_chain_draws"),
                              "table": ("gibbs_table", "gibbs_table_draws", "gibbs_table_block_draws"),
                              "float32": ("gibbs_lanes", "gibbs_lanes_draws", "gibbs_lanes_block_draws")}[which]
    return module, parallel if threads else unit


def lanes_apply(model: BinaryPairwiseMRF, scan: Scan) -> bool:
    """Whether a chain-vectorised kernel can run ``scan`` on ``model``: no uniform ``-1`` step (all chains
    update the same site) and either degree at most 4 (the table kernel takes any field) or every site's
    ``|theta_i| + sum_k |theta_ik|`` below ``2^100 / |FIELD_SCALE|`` (its scaled field stays finite in float32)."""
    if scan.length and int(scan.indices.min()) < 0:
        return False
    arrays = _lane_arrays(model)
    return arrays.table is not None or bool(arrays.largest_field < _MAX_SCALED_FIELD)


def _block_layout(n_chains: int) -> tuple[int, int]:
    """``(n_blocks, W)``: lanes in blocks of ``W`` (a multiple of ``LANE_WIDTH``, at most ``MAX_BLOCK_LANES``), at
    least one block per numba thread where the chains allow; ``n_blocks W >= n_chains``. The spins do not depend on it."""
    groups = -(-n_chains // LANE_WIDTH)
    n_blocks = max(min(numba.get_num_threads(), groups), -(-groups * LANE_WIDTH // MAX_BLOCK_LANES))
    width = -(-groups // n_blocks) * LANE_WIDTH
    return n_blocks, width


class _Lanes(NamedTuple):
    """Chains laid out as lanes for a lane kernel (:func:`_to_lanes`)."""

    spins: np.ndarray  # table kernel: (n_blocks, p + 1, W) int8 bits; float32 kernel: (n_blocks, p, W) float32
    states: np.ndarray  # (n_blocks, 4, W + STATE_PADDING) uint32
    table: tuple | None


def _to_lanes(model, spins, seeds) -> _Lanes:
    """Lay out the chains ``spins`` (C, p) int8 with their ``seeds`` as blocks of lanes.

    Lanes beyond the ``C`` chains (padding to whole blocks) start as chain 0 with its seed; their spins are never
    read back. Each lane row of the random states is padded by ``STATE_PADDING`` words (blocks of different threads
    a cache line apart).
    """
    n_chains, n_vars = spins.shape
    n_blocks, width = _block_layout(n_chains)
    lanes = np.arange(n_blocks * width)
    lanes[lanes >= n_chains] = 0
    table = _lane_arrays(model).table
    states = np.zeros((n_blocks, 4, width + STATE_PADDING), dtype=np.uint32)
    states[:, :, :width] = lane_states(seeds[lanes]).reshape(4, n_blocks, width).transpose(1, 0, 2)
    if table is None:
        lane_spins = np.ascontiguousarray(spins[lanes].astype(np.float32).reshape(n_blocks, width, n_vars).transpose(0, 2, 1))
    else:
        lane_spins = np.zeros((n_blocks, n_vars + 1, width), dtype=np.int8)  # row p: the padding slots' neighbour, always -1
        spins_to_bits(spins, lanes, lane_spins)
    return _Lanes(lane_spins, states, table)


def _from_lanes(lanes: _Lanes, spins) -> None:
    """Write the chains' states back from their lanes into ``spins`` (C, p) int8."""
    if lanes.table is None:
        n_blocks, n_vars, width = lanes.spins.shape
        spins[:] = lanes.spins.transpose(0, 2, 1).reshape(n_blocks * width, n_vars)[:spins.shape[0]]
    else:
        bits_to_spins(lanes.spins, spins)


def _run_lanes(model, scan, spins, seeds, rec_vars, rec_times, recorded) -> None:
    """Run the chains in a lane kernel: ``spins`` (C, p) int8 and ``recorded`` (C, R, V) int8 filled in place."""
    lanes = _to_lanes(model, spins, seeds)
    n_blocks, width = lanes.states.shape[0], lanes.spins.shape[2]
    lane_recorded = np.zeros((n_blocks, width) + recorded.shape[1:], dtype=np.int8)
    if lanes.table is None:
        indptr, neighbors, weights, bias = _lane_arrays(model)[:4]
        gibbs_lanes(indptr, neighbors, weights, bias, scan.indices, lanes.spins, lanes.states, rec_vars, rec_times,
                    lane_recorded)
    else:
        gibbs_table(*lanes.table, scan.indices, lanes.spins, lanes.states, rec_vars, rec_times, lane_recorded)
    _from_lanes(lanes, spins)
    recorded[:] = lane_recorded.reshape((n_blocks * width,) + recorded.shape[1:])[:spins.shape[0]]


def run_gibbs_draws(
    model: BinaryPairwiseMRF,
    scan: Scan,
    *,
    seed,
    draws: int,
    n_chains: int = 1,
    initial_state=1,
    record_vars=None,
    kernel: str = "auto",
    on_passes=None,
) -> DrawsResult:
    r"""Run ``n_chains`` chains through ``draws`` passes of ``scan``, recording ``record_vars`` after every pass.

    Each chain is one dependent sequence of ``draws`` repetitions of the scan (DoGS Algorithm 1 on the scan
    repeated ``draws`` times) with one in-kernel random stream, and its draws are written by the kernel into
    ``labels`` (:mod:`dogs.samplers.draws`): no Python runs per draw. The kernels and their choice are those of
    :func:`run_gibbs` (``kernel``); the update rule, and so the law of the draws, is the same.
    :func:`prepare_gibbs_draws` then :func:`dogs.samplers.draws.run_draws`.

    Parameters
    ----------
    model, scan, seed, n_chains, initial_state, kernel
        As in :func:`run_gibbs`. Same seed, same draws, with any number of threads and any chunking.
    draws : int
        Passes per chain (>= 1), each recorded.
    record_vars : array-like of int, optional
        Variables to record (default: all).
    on_passes : callable, optional
        Called with the number of passes just done after each kernel call (a progress bar).

    Returns
    -------
    DrawsResult
        ``labels`` ``(n_chains, draws, V)`` int8: 1 for the spin ``+1``, 0 for ``-1``; the final spins; work; seeds.

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> from dogs.scans import systematic_scan
    >>> result = run_gibbs_draws(grid_model(3, 3, 0.2), systematic_scan(9, 9), seed=0, draws=50, n_chains=2)
    >>> result.labels.shape, result.work.site_updates
    ((2, 50, 9), 900)
    """
    prepared = prepare_gibbs_draws(model, scan, seed=seed, draws=draws, n_chains=n_chains, initial_state=initial_state,
                                   record_vars=record_vars, kernel=kernel)
    return run_draws(prepared, on_passes)


def prepare_gibbs_draws(model: BinaryPairwiseMRF, scan: Scan, *, seed, draws: int, n_chains: int = 1, initial_state=1,
                        record_vars=None, kernel: str = "auto") -> PreparedDraws:
    """The checked, seeded and laid-out chains of :func:`run_gibbs_draws` (same arguments), ready to run."""
    check_model_and_scan(model, scan)
    n_chains = check_n_chains(n_chains)
    draws = check_int("draws", draws)
    spins = check_spin_states(initial_state, model.n_vars, n_chains, single_spin=True)
    record_vars = check_record_vars(record_vars, model.n_vars)
    which = gibbs_kernel(model, scan, n_chains, kernel)
    seeds = chain_seeds(seed, n_chains)
    labels = np.empty((n_chains, draws, record_vars.size), dtype=np.int8)
    per_pass = n_chains * scan.length
    lanes = None
    if which == "chains":
        graph, h, rng_states = kernel_graph(model), model.h, seed_states(seeds)

        def run(first, count):
            if use_threads(n_chains, count * per_pass):
                gibbs_chains_draws(graph, h, scan.indices, spins, rng_states, _LOW_THRESHOLDS, _HIGH_THRESHOLDS,
                                   record_vars, labels, first, count)
                return
            for c in range(n_chains):
                gibbs_chain_draws(graph, h, scan.indices, spins[c], rng_states[c], _LOW_THRESHOLDS, _HIGH_THRESHOLDS,
                                  record_vars, labels[c], first, count)
    else:
        lanes = _to_lanes(model, spins, seeds)
        n_blocks, width = lanes.states.shape[0], lanes.states.shape[2] - STATE_PADDING
        if lanes.table is None:
            model_arrays = _lane_arrays(model)[:4]
            parallel, per_block = gibbs_lanes_draws, gibbs_lanes_block_draws
        else:
            model_arrays = lanes.table
            parallel, per_block = gibbs_table_draws, gibbs_table_block_draws

        def run(first, count):
            if use_threads(n_blocks, count * per_pass):
                parallel(*model_arrays, scan.indices, lanes.spins, lanes.states, record_vars, labels, first, count)
                return
            for b in range(n_blocks):
                per_block(*model_arrays, scan.indices, lanes.spins[b], lanes.states[b], record_vars, labels, b * width,
                          first, count)

    def finish():
        if lanes is not None:
            _from_lanes(lanes, spins)
        updates = n_chains * draws * scan.length
        return DrawsResult(labels=labels, record_vars=record_vars, states=spins, work=Work(updates, updates), seeds=seeds)

    return PreparedDraws(labels=labels, updates_per_pass=per_pass, run=run, finish=finish)


class _LaneArrays(NamedTuple):
    indptr: np.ndarray
    neighbors: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    largest_field: float
    table: tuple | None


_LANE_ARRAYS: "weakref.WeakKeyDictionary[BinaryPairwiseMRF, _LaneArrays]" = weakref.WeakKeyDictionary()


def _lane_arrays(model: BinaryPairwiseMRF) -> _LaneArrays:
    """``(indptr, neighbors, weights, bias, largest scaled field, table)`` of the lane kernels, built once per model:
    ``weights = fl32(FIELD_SCALE theta_ik)`` per CSR slot, ``bias = fl32(FIELD_SCALE theta_i)``, the largest
    ``|FIELD_SCALE| (|theta_i| + sum_k |theta_ik|)`` over the sites (for :mod:`dogs._kernels.gibbs_lanes`), and the
    slots and thresholds of :func:`dogs._kernels.gibbs_table.slot_table` on graphs of degree at most 4, else ``None``."""
    arrays = _LANE_ARRAYS.get(model)
    if arrays is None:
        site_of_slot = np.repeat(np.arange(model.n_vars), np.diff(model.indptr))
        absolute = np.abs(model.h.astype(np.float64))
        np.add.at(absolute, site_of_slot, np.abs(model.coupling))
        with np.errstate(over="ignore"):
            weights = (FIELD_SCALE * model.coupling).astype(np.float32)
            bias = (FIELD_SCALE * model.h).astype(np.float32)
        table = slot_table(model.indptr, model.neighbors, model.coupling, model.h)
        arrays = _LaneArrays(model.indptr, model.neighbors, weights, bias, abs(FIELD_SCALE) * float(absolute.max(initial=0.0)),
                             table)
        _LANE_ARRAYS[model] = arrays
    return arrays


_KERNEL_GRAPHS: "weakref.WeakKeyDictionary[BinaryPairwiseMRF, object]" = weakref.WeakKeyDictionary()


def kernel_graph(model: BinaryPairwiseMRF):
    """The model's neighbourhoods in the layout the Gibbs kernels read, built once per model.

    The padded fixed-width table of :func:`dogs._kernels.gibbs.padded_neighbourhoods` for
    bounded-degree graphs (grids, chains), else the CSR tuple ``(indptr, neighbors, coupling
    bits)``. Both layouts give the same samples (:mod:`dogs._kernels.gibbs`); the padded one is
    faster (4.2 against 6.2 ns per site update on a 1000 x 1000 grid). The table takes about ``12 (L + U)``
    bytes per site (int32 neighbours) beside the model's CSR arrays (48 MB for a 1000 x 1000 grid) and is kept while the
    model lives (models are immutable).
    """
    graph = _KERNEL_GRAPHS.get(model)
    if graph is None:
        csr = (model.indptr, model.neighbors, model.coupling.view(np.uint64))
        padded = padded_neighbourhoods(*csr)
        graph = csr if padded is None else padded
        _KERNEL_GRAPHS[model] = graph
    return graph
