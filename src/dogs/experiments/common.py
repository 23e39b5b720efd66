"""Small helpers the experiment steps share beyond the shell (:mod:`dogs.workflow.shell`): a stopwatch, a pool
of single-threaded worker processes that a step reuses for all its parallel work, and the writer of the five outputs
of a guarantee step (DoGS §5.1 and §5.4 compute the same curves on different grids)."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor


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
    from dogs.scans.guarantees import longest_scan_arrays, scan_arrays

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
