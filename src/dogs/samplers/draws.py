r"""Draws of many passes in one kernel call: what :func:`~dogs.samplers.gibbs.run_gibbs_draws` and
:func:`~dogs.samplers.discrete_gibbs.run_discrete_gibbs_draws` share.

A *draw* is the state of a chain after one more pass of the scan (DoGS Algorithm 1 with the scan
repeated): chain ``c`` runs the scan ``D`` times as one dependent sequence, and after pass ``k`` the
labels of the recorded variables are written to ``labels[c, k]``. The kernels write them into the
output array themselves, so ``D`` draws cost one validation, one set of random streams and one kernel
launch per chunk of passes, not a Python call per draw.

Chunks. The passes run in calls of :func:`passes_per_call` passes (about :data:`UPDATES_PER_CALL`
site updates each): between two calls the caller hears how many passes are done (a progress bar) and
Ctrl-C is seen. Each chain's state and stream carry over from one call to the next, so the draws do not
depend on the chunking: the same seed gives the same draws with or without a progress bar.

Threads. A call splits its chains (or blocks of lanes) between numba's threads only when it has at least
:data:`THREADS_FROM_UPDATES` site updates to do (:func:`use_threads`); smaller calls run the units one after
another on the calling thread. A parallel region costs a thread wake-up and a join, microseconds on a quiet
machine but milliseconds on a loaded one (the other thread waits for a time slice), which on a small model
would cost more than the sampling itself. The draws are the same either way: each chain has its own stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numba
import numpy as np

from dogs.samplers.base import Work
from dogs.samplers.checks import check_index_array, frozen

__all__ = ["THREADS_FROM_UPDATES", "UPDATES_PER_CALL", "DrawsResult", "PreparedDraws", "check_record_vars", "label_dtype",
           "passes_per_call", "run_draws", "run_passes", "use_threads"]

#: Site updates (over all chains) per kernel call: 2^25, a tenth of a second to a second of kernel time.
UPDATES_PER_CALL = 1 << 25
#: Site updates of a call from which its units are split between threads: 2^20, about a millisecond of work.
THREADS_FROM_UPDATES = 1 << 20


@dataclass(frozen=True, eq=False)
class DrawsResult:
    """Output of the draws samplers.

    Attributes
    ----------
    labels : (n_chains, draws, V) int8 or int32 array
        ``labels[c, k, v]``: the label of ``record_vars[v]`` in chain ``c`` after pass ``k + 1`` (for a ±1 model,
        0 is the spin -1 and 1 the spin +1).
    record_vars : (V,) int64 array
    states : (n_chains, p) array
        The state of every chain after the last pass (spins for a ±1 model, labels otherwise).
    work : Work
        ``n_chains * draws * len(scan)`` site updates and their density evaluations (:mod:`dogs.samplers.base`).
    seeds : (n_chains,) uint64 array
        Seed of each chain's in-kernel stream.
    """

    labels: np.ndarray
    record_vars: np.ndarray
    states: np.ndarray
    work: Work
    seeds: np.ndarray


@dataclass(frozen=True, eq=False)
class PreparedDraws:
    """Chains checked, seeded and laid out for their kernel, ready to run (the ``prepare_*_draws`` functions).

    ``run(first, count)`` runs passes ``first .. first + count - 1`` of every chain in one kernel call (on the
    threads when :func:`use_threads` says so), writing their draws into ``labels``; each chain continues where the
    previous call left it. ``finish()`` returns the :class:`DrawsResult` once every pass has run.
    :func:`run_draws` does both; a benchmark times ``run(0, draws)`` alone, the raw kernel on the same work.
    """

    labels: np.ndarray
    updates_per_pass: int
    run: Callable[[int, int], None]
    finish: Callable[[], DrawsResult]


def run_draws(prepared: PreparedDraws, on_passes: Callable[[int], None] | None = None) -> DrawsResult:
    """Every pass of ``prepared`` in chunks (:func:`run_passes`), then its result."""
    run_passes(prepared.run, prepared.labels.shape[1], prepared.updates_per_pass, on_passes)
    return prepared.finish()


def check_record_vars(record_vars, n_vars: int) -> np.ndarray:
    """Read-only int64 indices in ``[0, n_vars)`` of the variables to record (default: all)."""
    if record_vars is None:
        return frozen(np.arange(n_vars, dtype=np.int64))
    indices = check_index_array("record_vars", record_vars)
    if indices.size and (indices.min() < 0 or indices.max() >= n_vars):
        raise ValueError(f"record_vars must index variables 0..{n_vars - 1}")
    return frozen(indices)


def label_dtype(largest_cardinality: int):
    """int8 for labels below 128, else int32: the type of the ``labels`` array."""
    return np.int8 if largest_cardinality <= 127 else np.int32


def passes_per_call(draws: int, updates_per_pass: int) -> int:
    """Passes per kernel call: about :data:`UPDATES_PER_CALL` site updates, at least one pass, at most ``draws``."""
    return int(min(draws, max(1, UPDATES_PER_CALL // max(1, updates_per_pass))))


def use_threads(units: int, updates: int) -> bool:
    """Whether a call of ``updates`` site updates over ``units`` chains or blocks runs them on numba's threads."""
    return units > 1 and updates >= THREADS_FROM_UPDATES and numba.get_num_threads() > 1


def run_passes(run: Callable[[int, int], None], draws: int, updates_per_pass: int,
               on_passes: Callable[[int], None] | None = None) -> None:
    """Call ``run(first, count)`` on consecutive chunks of passes covering ``0 .. draws - 1``, then
    ``on_passes(count)`` after each (when given)."""
    chunk = passes_per_call(draws, updates_per_pass)
    for first in range(0, draws, chunk):
        count = min(chunk, draws - first)
        run(first, count)
        if on_passes is not None:
            on_passes(count)
