"""Small helpers the experiment steps share beyond the shell (:mod:`dogs.experiments._cli`)."""

from __future__ import annotations

import time


class Stopwatch:
    """Wall-clock seconds of a block: ``with Stopwatch() as sw: ...; sw.seconds``."""

    def __enter__(self):
        self._start = time.perf_counter()
        self.seconds = None
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._start
        return False
