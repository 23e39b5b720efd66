r"""Gibbs sampling of discrete pairwise MRFs (Potts models) with any scan (DoGS Algorithm 1).

For the model of :class:`~dogs.models.DiscretePairwiseMRF` (DoGS eq. (2)),

.. math::

    \pi(x) \propto \exp\Big(\sum_i \phi_i(x_i) + \sum_{(i,j) \in E} \theta^{ij}(x_i, x_j)\Big),
    \qquad x_i \in \{0, \dots, K_i - 1\},

step ``t`` of the scan updates one site ``i`` (the scan's index, or a uniformly
drawn site where the scan holds ``-1``, DoGS §2.1) by drawing from its full conditional

.. math::

    \pi(X_i = k \mid x_{-i}) = \frac{\exp l_i(k)}{\sum_{k'} \exp l_i(k')},
    \qquad l_i(k) = \phi_i(k) + \sum_{j \in N(i)} \theta^{ij}(k, x_j).

For the Potts / Markov-field-aspect model of DoGS eq. (4) (the MSRC segmentation
experiment, §5.5), ``theta^{ij}(a, b) = sigma [a == b]``: build it with
:meth:`DiscretePairwiseMRF.potts`. One call runs ``n_chains`` independent chains
of ``T = len(scan)`` steps and, optionally, in the same pass records chosen
variables after chosen step counts and counts, per chain and site, how often each
label was drawn (the segmentation of §5.5 is the most frequent label per patch:
:func:`most_frequent_labels`).

Work follows the sampler contract (:mod:`dogs.samplers.base`): one site update per
step, and ``K_i - 1`` single-flip density evaluations for an update of a
``K_i``-state variable. Randomness: per-chain ``uint64`` seeds from
:meth:`numpy.random.SeedSequence.spawn` drive the in-kernel xoshiro256** streams of
:mod:`dogs._kernels.rng`; one uniform per update draws the label by inverse CDF
(plus one for the site on ``-1`` steps). The exact floating-point rule is in
:mod:`dogs._kernels.discrete_gibbs`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from dogs._kernels.discrete_gibbs import (discrete_gibbs_chain, discrete_gibbs_chain_draws, discrete_gibbs_chains,
                                          discrete_gibbs_chains_draws, exp_rows)
from dogs._kernels.gibbs import seed_states
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.samplers.base import ChainsResult, Work, chain_seeds, check_n_chains
from dogs.samplers.checks import NO_INDICES, check_int, check_recording
from dogs.samplers.draws import (DrawsResult, PreparedDraws, check_record_vars, label_dtype, passes_per_call, run_draws,
                                 use_threads)
from dogs.scans.base import Scan

__all__ = ["DiscreteGibbsResult", "discrete_draws_kernel", "most_frequent_labels", "prepare_discrete_gibbs_draws",
           "run_discrete_gibbs", "run_discrete_gibbs_draws"]

STATE_DTYPE = np.int32


@dataclass(frozen=True, eq=False)
class DiscreteGibbsResult(ChainsResult):
    """Output of :func:`run_discrete_gibbs`.

    Attributes
    ----------
    states : (n_chains, p) int32 array
        State of every chain after the whole scan, labels ``0 <= x_i < K_i``.
    recorded : (n_chains, R, V) int32 array or None
        ``recorded[c, r, v]`` is the label of ``record_vars[v]`` in chain ``c``
        after ``record_times[r]`` steps; ``None`` when nothing was recorded.
    record_vars : (V,) int64 array or None
    record_times : (R,) int64 array or None
    label_counts : (n_chains, p, Kmax) int64 array or None
        ``label_counts[c, i, k]``: how many updates of site ``i`` at steps
        ``t >= count_from`` (0-based) of chain ``c`` drew the label ``k``
        (``Kmax = max_i K_i``; columns ``k >= K_i`` stay 0). ``None`` unless ``count_labels``.
    count_from : int
        First counted step (0 when nothing was counted).
    work : Work
        ``n_chains * len(scan)`` site updates; density evaluations summed over all
        updates, ``K_i - 1`` for an update of site ``i`` (:mod:`dogs.samplers.base`).
    seeds : (n_chains,) uint64 array
        Seed of each chain's in-kernel stream (from ``SeedSequence.spawn``).
    """

    label_counts: np.ndarray | None
    count_from: int


def run_discrete_gibbs(
    model: DiscretePairwiseMRF,
    scan: Scan,
    *,
    seed,
    n_chains: int = 1,
    initial_state,
    record_vars=None,
    record_times=None,
    count_labels: bool = False,
    count_from: int = 0,
) -> DiscreteGibbsResult:
    r"""Run ``n_chains`` independent Gibbs chains of a discrete pairwise MRF through ``scan`` (DoGS Algorithm 1).

    Step ``t`` updates ``i = scan.indices[t]`` (or a uniformly drawn site when it is
    ``-1``) by a draw from the full conditional of the model of DoGS eq. (2)
    (a Potts model, DoGS eq. (4), when ``theta^{ij}(a, b) = sigma [a == b]``):

    .. math::

        \pi(X_i = k \mid x_{-i}) \propto \exp\Big(\phi_i(k) + \sum_{j \in N(i)} \theta^{ij}(k, x_j)\Big),
        \qquad k = 0, \dots, K_i - 1,

    by inverse CDF with one fresh uniform. The weights ``exp l_i(k)`` (up to a common
    factor) are products of exponentials tabulated once per call, so an update costs no
    ``exp``; the exact floating-point rule, which falls back to the log domain when all
    weights underflow, is in :mod:`dogs._kernels.discrete_gibbs`.

    Parameters
    ----------
    model : DiscretePairwiseMRF
        A binary model can be passed as ``binary_model.to_discrete()`` (state 0 = spin -1).
    scan : Scan
        Scan over ``model.n_vars`` variables; ``-1`` entries are uniform steps.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of the per-chain seeds (:func:`~dogs.samplers.base.chain_seeds`). Same seed, same
        output, with any number of threads.
    n_chains : int, default 1
        Number of independent chains (run in parallel with numba threads when > 1).
    initial_state : int or array of int
        Start of every chain: one label for every site, a ``(p,)`` state shared by all
        chains or a ``(n_chains, p)`` array; integers with ``0 <= x_i < K_i``.
    record_vars, record_times : array-like of int, optional
        Give both or neither. Record the labels of ``record_vars`` (indices in
        ``[0, p)``) after ``record_times[r]`` steps, for non-decreasing
        ``record_times`` in ``[0, len(scan)]`` (0 = the initial state).
    count_labels : bool, default False
        Count, per chain and site, the labels drawn by the updates (``label_counts``).
    count_from : int, default 0
        With ``count_labels``: count only the updates at steps ``t >= count_from``
        (0-based; a burn-in of ``count_from`` steps).

    Returns
    -------
    DiscreteGibbsResult
        Final states, recordings, label counts, work and the per-chain seeds.

    Raises
    ------
    TypeError, ValueError
        On a non-model, a non-scan, a scan over a different number of variables,
        bad ``n_chains``, seed, initial state (type, shape, a label out of range),
        recording or counting arguments, or log potentials whose conditional sums
        overflow; raised before any sampling.

    References
    ----------
    Mitliagkas & Mackey (2017), *Improving Gibbs sampler scan quality with DoGS*,
    Algorithm 1 (the Gibbs sampler with a scan), eq. (2) (discrete pairwise MRF),
    eq. (4) (Markov field aspect model / Potts), §5.5 (image segmentation).

    Examples
    --------
    >>> import numpy as np
    >>> from dogs.models import DiscretePairwiseMRF, grid_edges
    >>> from dogs.scans import systematic_scan
    >>> model = DiscretePairwiseMRF.potts(grid_edges(3, 3), 4, 0.48, np.zeros((9, 4)), shape=(3, 3))
    >>> result = run_discrete_gibbs(model, systematic_scan(9, 90), seed=0, n_chains=2, initial_state=0, count_labels=True)
    >>> result.states.shape, result.label_counts.shape, result.work
    ((2, 9), (2, 9, 4), Work(site_updates=180, density_evaluations=540))
    """
    _check_model_and_scan(model, scan)
    n_chains = check_n_chains(n_chains)
    n_vars, n_steps = model.n_vars, scan.length
    states = _initial_states(initial_state, n_chains, model.cardinalities)
    record_vars, record_times = check_recording(record_vars, record_times, n_vars, n_steps)
    count_labels, count_from = _check_counting(count_labels, count_from)
    packed = _pack(model)
    card, k_max = packed[0], packed[1].size // n_vars
    seeds = chain_seeds(seed, n_chains)

    recording = record_vars is not None
    rec_vars = record_vars if recording else NO_INDICES
    rec_times = record_times if recording else NO_INDICES
    recorded = np.zeros((n_chains, rec_times.size, rec_vars.size), dtype=STATE_DTYPE)
    counts = np.zeros((n_chains, n_vars * k_max if count_labels else 0), dtype=np.int64)  # flat (p, Kmax) per chain
    rng_states = seed_states(seeds)
    card, log_unary, exp_unary, slot_offset, log_tables, exp_tables = packed
    arrays = (card, log_unary, exp_unary, model.indptr, model.neighbors, slot_offset, log_tables, exp_tables, scan.indices)
    if n_chains == 1:
        evaluations = int(
            discrete_gibbs_chain(*arrays, states[0], rng_states[0], rec_vars, rec_times, recorded[0], counts[0], count_from)
        )
    else:
        per_chain = np.zeros(n_chains, dtype=np.int64)
        discrete_gibbs_chains(*arrays, states, rng_states, rec_vars, rec_times, recorded, counts, count_from, per_chain)
        evaluations = int(per_chain.sum())
    return DiscreteGibbsResult(
        states=states,
        recorded=recorded if recording else None,
        record_vars=record_vars,
        record_times=record_times,
        label_counts=counts.reshape(n_chains, n_vars, k_max) if count_labels else None,
        count_from=count_from,
        work=Work(site_updates=n_chains * n_steps, density_evaluations=evaluations),
        seeds=seeds,
    )


def run_discrete_gibbs_draws(
    model: DiscretePairwiseMRF,
    scan: Scan,
    *,
    seed,
    draws: int,
    n_chains: int = 1,
    initial_state,
    record_vars=None,
    on_passes=None,
) -> DrawsResult:
    """Run ``n_chains`` chains through ``draws`` passes of ``scan``, recording ``record_vars`` after every pass.

    Each chain is one dependent sequence of ``draws`` repetitions of the scan with one in-kernel random stream (the
    update rule of :func:`run_discrete_gibbs`), its draws written by the kernel into ``labels``
    (:mod:`dogs.samplers.draws`). :func:`prepare_discrete_gibbs_draws` then :func:`dogs.samplers.draws.run_draws`.

    Parameters
    ----------
    model, scan, seed, n_chains, initial_state
        As in :func:`run_discrete_gibbs`. Same seed, same draws, with any number of threads and any chunking.
    draws : int
        Passes per chain (>= 1), each recorded.
    record_vars : array-like of int, optional
        Variables to record (default: all).
    on_passes : callable, optional
        Called with the number of passes just done after each kernel call (a progress bar).

    Returns
    -------
    DrawsResult
        ``labels`` ``(n_chains, draws, V)`` (int8 when every ``K_i <= 127``, else int32), final states, work, seeds.
    """
    prepared = prepare_discrete_gibbs_draws(model, scan, seed=seed, draws=draws, n_chains=n_chains,
                                            initial_state=initial_state, record_vars=record_vars)
    return run_draws(prepared, on_passes)


def prepare_discrete_gibbs_draws(model: DiscretePairwiseMRF, scan: Scan, *, seed, draws: int, n_chains: int = 1,
                                 initial_state, record_vars=None) -> PreparedDraws:
    """The checked, seeded and packed chains of :func:`run_discrete_gibbs_draws` (same arguments), ready to run."""
    _check_model_and_scan(model, scan)
    n_chains = check_n_chains(n_chains)
    draws = check_int("draws", draws)
    states = _initial_states(initial_state, n_chains, model.cardinalities)
    record_vars = check_record_vars(record_vars, model.n_vars)
    card, log_unary, exp_unary, slot_offset, log_tables, exp_tables = _pack(model)
    seeds = chain_seeds(seed, n_chains)
    rng_states = seed_states(seeds)
    labels = np.empty((n_chains, draws, record_vars.size), dtype=label_dtype(int(card.max())))
    arrays = (card, log_unary, exp_unary, model.indptr, model.neighbors, slot_offset, log_tables, exp_tables, scan.indices)
    evaluations = np.zeros(n_chains, dtype=np.int64)
    per_pass = n_chains * scan.length

    def run(first, count):
        if use_threads(n_chains, count * per_pass):
            discrete_gibbs_chains_draws(*arrays, states, rng_states, record_vars, labels, first, count, evaluations)
            return
        for c in range(n_chains):
            evaluations[c] += discrete_gibbs_chain_draws(*arrays, states[c], rng_states[c], record_vars, labels[c], first,
                                                         count)

    def finish():
        work = Work(site_updates=n_chains * draws * scan.length, density_evaluations=int(evaluations.sum()))
        return DrawsResult(labels=labels, record_vars=record_vars, states=states, work=work, seeds=seeds)

    return PreparedDraws(labels=labels, updates_per_pass=per_pass, run=run, finish=finish)


def discrete_draws_kernel(scan: Scan, n_chains: int, draws: int) -> tuple[str, str]:
    """``(module, function)`` under :mod:`dogs._kernels` of the kernel that the first call of
    :func:`run_discrete_gibbs_draws` runs (for a notice before numba compiles it)."""
    per_pass = n_chains * scan.length
    threads = use_threads(n_chains, passes_per_call(draws, per_pass) * per_pass)
    return "discrete_gibbs", "discrete_gibbs_chains_draws" if threads else "discrete_gibbs_chain_draws"


def _check_model_and_scan(model, scan) -> None:
    if not isinstance(model, DiscretePairwiseMRF):
        raise TypeError(
            f"model must be a DiscretePairwiseMRF, got {type(model).__name__}"
            + (" (use model.to_discrete())" if hasattr(model, "to_discrete") else "")
        )
    if not isinstance(scan, Scan):
        raise TypeError(f"scan must be a dogs.scans.Scan, got {type(scan).__name__}")
    if scan.n_vars != model.n_vars:
        raise ValueError(f"scan is over n_vars = {scan.n_vars} variables but the model has {model.n_vars}")


def most_frequent_labels(result: DiscreteGibbsResult, *, pool_chains: bool = False) -> np.ndarray:
    """Most frequent label of every site during sampling (the segmentation of DoGS §5.5).

    Parameters
    ----------
    result : DiscreteGibbsResult
        From :func:`run_discrete_gibbs` with ``count_labels=True``.
    pool_chains : bool, default False
        Add the counts of all chains before taking the mode.

    Returns
    -------
    (n_chains, p) int32 array, or (p,) when ``pool_chains``
        The label with the largest count (ties: the smallest such label); ``-1`` where
        the site was never updated in the counted steps.
    """
    if not isinstance(result, DiscreteGibbsResult):
        raise TypeError(f"result must be a DiscreteGibbsResult, got {type(result).__name__}")
    if result.label_counts is None:
        raise ValueError("the run did not count labels: call run_discrete_gibbs(..., count_labels=True)")
    counts = result.label_counts.sum(axis=0) if pool_chains else result.label_counts
    labels = np.argmax(counts, axis=-1).astype(STATE_DTYPE)
    labels[counts.sum(axis=-1) == 0] = -1
    return labels


# ---------------------------------------------------------------- packing
def _pack(model: DiscretePairwiseMRF):
    """Flat arrays for the kernels (layout in :mod:`dogs._kernels.discrete_gibbs`).

    Returns ``(card, log_unary, exp_unary, slot_offset, log_tables, exp_tables)``. The table of CSR
    slot ``s`` of site ``i`` is stored oriented ``(x_neighbour, k)``, row-major with rows of length
    ``K_i``; identical oriented tables (the same array, or equal contents) are stored once.
    """
    card = np.ascontiguousarray(model.cardinalities, dtype=np.int64)
    n_vars, k_max = card.size, int(card.max())
    if np.all(card == k_max):
        log_unary = np.array(model.unary, dtype=np.float64).reshape(n_vars, k_max)
    else:
        log_unary = np.zeros((n_vars, k_max), dtype=np.float64)
        for i, phi in enumerate(model.unary):
            log_unary[i, : card[i]] = phi
    bound = np.abs(log_unary).max(axis=1)
    log_unary = log_unary.ravel()

    # one key per CSR slot: (which table object, transposed?); the owner is the row variable iff owner < neighbour
    owner = np.repeat(np.arange(n_vars, dtype=np.int64), np.diff(model.indptr))
    transposed = owner < model.neighbors
    table_code: dict[int, int] = {}
    edge_table = np.array([table_code.setdefault(id(t), len(table_code)) for t in model.tables], dtype=np.int64)
    keys = 2 * edge_table[model.edge_of] + transposed
    unique_keys, first_slot, slot_key = np.unique(keys, return_index=True, return_inverse=True)
    by_content, pieces, starts, row_lengths, n_rows = {}, [], [], [], []
    key_offset = np.empty(len(unique_keys), dtype=np.int64)
    key_bound = np.empty(len(unique_keys))
    size = 0
    for u, slot in enumerate(first_slot.tolist()):
        table = model.tables[model.edge_of[slot]]
        oriented = np.ascontiguousarray(table.T if transposed[slot] else table)  # (K_neighbour, K_owner)
        content = (oriented.shape, oriented.tobytes())
        if content not in by_content:
            by_content[content] = (size, float(np.abs(oriented).max()))
            pieces.append(oriented.ravel())
            starts.append(size)
            n_rows.append(oriented.shape[0])
            row_lengths.append(oriented.shape[1])
            size += oriented.size
        key_offset[u], key_bound[u] = by_content[content]
    slot_offset = np.ascontiguousarray(key_offset[slot_key], dtype=np.int64)
    with np.errstate(over="ignore"):
        np.add.at(bound, owner, key_bound[slot_key])
    if not np.all(np.isfinite(bound)):
        bad = int(np.flatnonzero(~np.isfinite(bound))[0])
        raise ValueError(f"the log potentials around site {bad} are too large: its conditional log weights overflow")
    log_tables = np.ascontiguousarray(np.concatenate(pieces) if pieces else np.zeros(0), dtype=np.float64)
    exp_unary = _exp_unary(log_unary, card, k_max)
    exp_tables = exp_rows(log_tables, *(np.array(v, dtype=np.int64) for v in (starts, row_lengths, n_rows)))
    return card, log_unary, exp_unary, slot_offset, log_tables, exp_tables


def _exp_unary(log_unary, card, k_max):
    """``exp(phi_i(k) - max_k phi_i(k))`` for ``k < K_i`` (rows of length ``K_i``, padding 0)."""
    starts = np.arange(card.size, dtype=np.int64) * k_max
    return exp_rows(log_unary, starts, card, np.ones(card.size, dtype=np.int64))


# ---------------------------------------------------------------- validation
def _initial_states(initial_state, n_chains: int, card: np.ndarray) -> np.ndarray:
    n_vars = card.size
    values = np.asarray(initial_state)
    if values.dtype == bool or not np.issubdtype(values.dtype, np.integer):
        raise TypeError(f"initial_state must hold integer labels, got dtype {values.dtype}")
    if not (values.ndim == 0 or values.shape in ((n_vars,), (n_chains, n_vars))):
        raise ValueError(
            f"initial_state must be a label, a ({n_vars},) state or a ({n_chains}, {n_vars}) array, got shape {values.shape}"
        )
    states = np.broadcast_to(values, (n_chains, n_vars))
    bad = (states < 0) | (states >= card[None, :])
    if np.any(bad):
        c, i = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"initial_state labels must satisfy 0 <= x_i < K_i: variable {i} has K_i = {card[i]}, got {states[c, i]}"
        )
    return np.ascontiguousarray(states, dtype=STATE_DTYPE).copy()


def _check_counting(count_labels, count_from):
    if not isinstance(count_labels, (bool, np.bool_)):
        raise TypeError(f"count_labels must be a bool, got {type(count_labels).__name__}")
    if isinstance(count_from, (bool, np.bool_)) or not isinstance(count_from, numbers.Integral):
        raise TypeError(f"count_from must be an integer, got {type(count_from).__name__}")
    if count_from < 0:
        raise ValueError(f"count_from must be >= 0, got {count_from}")
    if count_from and not count_labels:
        raise ValueError("count_from is only meaningful with count_labels=True")
    return bool(count_labels), int(count_from)
