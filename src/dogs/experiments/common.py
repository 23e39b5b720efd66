"""Small helpers the experiment steps share beyond the shell (:mod:`dogs.workflow.shell`): a stopwatch, a pool
of single-threaded worker processes that a step reuses for all its parallel work, and the writer of the five outputs
of a guarantee step (DoGS §5.1 and §5.4 compute the same curves on different grids) with the reader of its scans.

Stored scans: the DoGS scans of every ``T`` are kept as index arrays under the keys ``<scan>_T<T>``
(:func:`scan_arrays`), and :func:`stored_scan` rebuilds a scan from such a store (the systematic scan
is rebuilt, never stored). :func:`scan_family` gives what :mod:`dogs.samplers.recording` runs: one long
scan for the prefix-closed uniform and systematic scans, ``{T: Scan}`` for the DoGS scans."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Mapping

import numpy as np

from dogs.scans.base import Scan, systematic_scan_ending_on, uniform_scan
from dogs.scans.guarantees import systematic


def write_guarantee_results(ctx, model, guarantees, per_length, runs, *, t_max: int, phase: int, descriptions: dict,
                            settings: dict, seed, seconds: float, extra: dict | None = None) -> None:
    """Write a guarantee step's outputs ``model``, ``guarantees``, ``scans``, ``dogs_scans`` and ``runs``, each with
    its sidecar.

    ``guarantees``, ``per_length`` and ``runs`` are what :func:`dogs.scans.guarantees.guarantee_curves` returns for
    lengths up to ``t_max``;
    ``descriptions`` gives the sidecar descriptions of ``model`` and ``guarantees`` (the other three are the same for
    every grid); ``extra`` goes into every sidecar before the description.
    """
    from dogs.io import write_csv, write_meta, write_npz

    outputs = {
        "model": (lambda path: write_npz(path, **model.to_npz_dict()), descriptions["model"]),
        "guarantees": (lambda path: write_csv(guarantees, path), descriptions["guarantees"]),
        "scans": (lambda path: write_npz(path, **longest_scan_arrays(model.n_vars, per_length, t_max, phase)),
                  f"variable index sequences of the largest T = {t_max}"),
        "dogs_scans": (lambda path: write_npz(path, **scan_arrays(per_length)), "DoGS scans of every T, keys <scan>_T<T>"),
        "runs": (lambda path: write_csv(runs, path), "Algorithm 2 timings and iterated-DoGS runs per T"),
    }
    for name, (write, description) in outputs.items():
        write(ctx.output(name))
        write_meta(ctx.output(name), settings=settings, seed=seed, elapsed_seconds=seconds,
                   extra={**(extra or {}), "description": description})


def longest_scan_arrays(n_vars: int, per_length: Mapping[str, Mapping[int, Scan]], t_max: int,
                        phase: str = "paper") -> dict:
    """Index arrays of the length-``t_max`` scans: the systematic scan and every scan of ``per_length``."""
    out = {"systematic": systematic(n_vars, t_max, phase).indices}
    for name, by_t in per_length.items():
        out[name] = by_t[t_max].indices
    return {k: np.asarray(v, dtype=np.int64) for k, v in out.items()}


def scan_arrays(per_length: Mapping[str, Mapping[int, Scan]]) -> dict:
    """Index arrays of every scan of ``per_length`` under the keys ``<scan>_T<T>``."""
    return {f"{name}_T{t}": np.asarray(scan.indices, dtype=np.int64)
            for name, by_t in per_length.items() for t, scan in by_t.items()}


def stored_scan(arrays: Mapping[str, np.ndarray], name: str, length: int, n_vars: int, phase: str = "paper") -> Scan:
    """The scan ``name`` of length ``length``: ``systematic`` is rebuilt, others read from ``arrays``."""
    if name == "systematic":
        return systematic(n_vars, int(length), phase)
    key = f"{name}_T{int(length)}"
    if key not in arrays:
        raise KeyError(f"{key} is not in the stored scans (was the length grid changed?)")
    return Scan(np.asarray(arrays[key]), n_vars)


def scan_family(name: str, arrays: Mapping[str, np.ndarray], lengths, n_vars: int, phase: str = "paper",
                target: int | None = None) -> Scan | dict:
    """The scans named ``name`` for every ``T`` in ``lengths``, as :func:`dogs.samplers.samples_at_lengths` takes them.

    ``uniform`` and ``systematic`` are prefix-closed: one scan of length ``max(lengths)``. DoGS scans
    and ``systematic_aligned`` (built here, ending on ``target``) differ per ``T``: ``{T: Scan}``.
    """
    longest = int(np.max(lengths))
    if name == "uniform":
        return uniform_scan(n_vars, longest)
    if name == "systematic":
        return systematic(n_vars, longest, phase)
    if name == "systematic_aligned":
        if target is None:
            raise ValueError("the systematic_aligned scan ends on a target variable: give target")
        return {int(t): systematic_scan_ending_on(n_vars, int(t), target) for t in np.unique(lengths)}
    return {int(t): stored_scan(arrays, name, int(t), n_vars, phase) for t in np.unique(lengths)}


class Stopwatch:
    """Wall-clock seconds of a block: ``with Stopwatch() as sw: ...; sw.seconds``."""

    def __enter__(self):
        self._start = time.perf_counter()
        self.seconds = None
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._start
        return False


def _single_threaded_worker() -> None:
    """Worker processes of :func:`worker_pool` run one thread each (numba and BLAS): the processes are the parallelism."""
    import numba
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(1)
    threadpool_limits(limits=1)


_POOLS: dict[int, ProcessPoolExecutor] = {}


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` processes, started once and reused by every later call until :func:`shutdown_workers`.

    Started by ``spawn``, not ``fork``: a forked copy of a process whose numba threads are running dies at its
    first parallel kernel (the annular samplers' kernel is one). Starting a worker costs an import of this
    package (about a second), so one pool serves all the work of a job (all the inner samplers of a Boltzmann job).
    """
    if workers not in _POOLS:
        _POOLS[workers] = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                              initializer=_single_threaded_worker)
    return _POOLS[workers]


def open_worker_pools() -> int:
    """How many pools :func:`worker_pool` has started and not yet shut down."""
    return len(_POOLS)


def discard_worker_pool(workers: int) -> None:
    """Forget the pool of ``workers`` processes (a broken one): the next :func:`worker_pool` call starts new ones."""
    _POOLS.pop(workers, None)


def shutdown_workers() -> None:
    """End the worker processes started by :func:`worker_pool` (their CPU time then counts as this process's
    finished children's, which the step's last log line reports)."""
    while _POOLS:
        _POOLS.popitem()[1].shutdown(wait=True)
