"""The memory limit every guard of this package shares: the ``dogs`` command's and the workflow's.

A job or a request may ask for at most :func:`memory_limit_bytes`: the limit the user gave (the config's
``resources.max_memory_gb``, the command's ``--max-memory-gb``), else :data:`DEFAULT_FRACTION` of the machine's
physical memory. This module sits on the ground floor (it imports nothing of the package), so the command line for
users' own models and the paper workflow read the same limit without importing each other.
"""

from __future__ import annotations

import os

__all__ = ["DEFAULT_FRACTION", "TooLargeError", "format_bytes", "memory_limit_bytes"]

#: Share of the machine's physical memory a single job may ask for when the config sets no limit.
DEFAULT_FRACTION = 0.8


class TooLargeError(ValueError):
    """A request whose memory estimate exceeds the limit, or a model too large for exact inference (the ``dogs``
    command's exit code 3); raised before anything large is allocated."""


def format_bytes(n_bytes: float) -> str:
    """``n_bytes`` in the largest unit of TB, GB, MB, kB that keeps it at least 1 (three significant digits)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{max(n_bytes, 0) / 1e3:.3g} kB"


def memory_limit_bytes(max_memory_gb: float | None = None) -> int:
    """``max_memory_gb`` (the config's ``resources.max_memory_gb``) in bytes, else :data:`DEFAULT_FRACTION` of
    physical memory."""
    if max_memory_gb is not None:
        return int(float(max_memory_gb) * 1024**3)
    return int(DEFAULT_FRACTION * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
