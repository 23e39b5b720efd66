"""Seeds: one root seed in the config; every rule and replicate derives its own.

``seed_sequence(root, "ising10", 3)`` is ``numpy.random.SeedSequence(root,
spawn_key=(crc32("ising10"), 3))``: the same root and path give the same
stream on every machine, and different paths give independent streams (the
SeedSequence guarantee). Strings are hashed with CRC-32, which is stable
across Python processes (unlike ``hash``).
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["seed_sequence", "extend_seed", "make_rng", "seed_record"]


def _key(part) -> int:
    if isinstance(part, (bool, np.bool_)):
        raise TypeError("seed path parts must be strings or non-negative integers, not bool")
    if isinstance(part, (int, np.integer)):
        if part < 0:
            raise ValueError(f"seed path integers must be >= 0, got {part}")
        return int(part)
    if isinstance(part, str):
        return zlib.crc32(part.encode("utf-8"))
    raise TypeError(f"seed path parts must be strings or non-negative integers, got {type(part).__name__}")


def _check_root(root) -> int:
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or root < 0:
        raise ValueError(f"the root seed must be a non-negative integer, got {root!r}")
    return int(root)


def seed_sequence(root: int, *path) -> np.random.SeedSequence:
    """The SeedSequence for ``path`` (strings and integers) under the root seed."""
    return np.random.SeedSequence(_check_root(root), spawn_key=tuple(_key(p) for p in path))


def extend_seed(seed: np.random.SeedSequence, *parts) -> np.random.SeedSequence:
    """``seed`` with ``parts`` appended to its path: ``extend_seed(seed_sequence(r, *a), *b) == seed_sequence(r, *a, *b)``."""
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a numpy.random.SeedSequence, got {type(seed).__name__}")
    return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + tuple(_key(p) for p in parts))


def make_rng(root: int, *path) -> np.random.Generator:
    """A PCG64 Generator for ``path`` under the root seed."""
    return np.random.default_rng(seed_sequence(root, *path))


def seed_record(root: int, *path) -> dict:
    """What a sidecar records so the stream can be rebuilt: root seed, path and spawn key."""
    return {"root_seed": _check_root(root), "path": [str(p) for p in path], "spawn_key": [_key(p) for p in path]}
