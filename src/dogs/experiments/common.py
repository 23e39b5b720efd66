"""Small helpers the experiment steps share beyond the shell (:mod:`dogs.workflow.shell`): a stopwatch, and a pool
of single-threaded worker processes that a step reuses for all its parallel work."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor


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
