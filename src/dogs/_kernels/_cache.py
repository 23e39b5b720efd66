"""Numba cache directory keyed on the source of every kernel file (see :mod:`dogs._kernels`).

numba checks a cached function against a hash of *its own* source file only. A
kernel that calls a jitted function from another file (``gibbs.py`` calls
``rng.py``; ``inline="always"`` callees are even copied into the caller) keeps
its cached machine code when only the callee's file changes, and runs the old
callee. :func:`use_source_keyed_cache` points numba's cache at a directory
named by a hash of all ``*.py`` files of the kernel folder, so editing, adding
or removing any kernel file sends every kernel to a fresh, empty cache.

numba reads ``numba.config.CACHE_DIR`` (set from ``NUMBA_CACHE_DIR``) when a
function is decorated with ``cache=True``: the dispatcher builds its cache
object then, and the cache object picks its directory then
(``numba.core.caching.UserProvidedCacheLocator``; with ``CACHE_DIR`` empty numba
uses ``__pycache__`` next to the source). So the setting must be in place
before a kernel module is imported; ``dogs/_kernels/__init__.py`` runs before
any of its submodules and sets it there. The environment variable is set as
well, because numba re-reads every ``NUMBA_*`` variable before each compilation
whenever one of them has changed, which would otherwise undo the setting for
kernel modules imported later; child processes inherit it and use the same
directory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["DIR_PREFIX", "STALE_AFTER_SECONDS", "cache_dir_for", "kernel_source_hash", "use_source_keyed_cache"]

#: Name prefix of the per-source-hash cache folders.
DIR_PREFIX = "dogs-kernels-"
#: A sibling cache folder unused (not imported from) for this long is deleted.
STALE_AFTER_SECONDS = 7 * 24 * 3600


def kernel_source_hash(directory) -> str:
    """SHA-256 (first 16 hex digits) over the names and bytes of every ``*.py`` file in ``directory``."""
    digest = hashlib.sha256()
    for path in sorted(Path(directory).glob("*.py")):
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _base_dir(directory: Path, configured: str) -> Path:
    """Where the per-hash folders live: ``NUMBA_CACHE_DIR`` if set, else the kernel folder's ``__pycache__``.

    A configured directory that is itself one of our per-hash folders (inherited
    from a parent process) stands for its parent.
    """
    if configured:
        base = Path(configured)
        return base.parent if base.name.startswith(DIR_PREFIX) else base
    return directory / "__pycache__"


def cache_dir_for(directory, configured: str = "") -> Path:
    """The cache folder for the current sources of ``directory`` (``configured``: the current ``NUMBA_CACHE_DIR``)."""
    directory = Path(directory)
    return _base_dir(directory, configured) / f"{DIR_PREFIX}{kernel_source_hash(directory)}"


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _prune_siblings(current: Path) -> None:
    """Delete per-hash folders next to ``current`` that no process has used for :data:`STALE_AFTER_SECONDS`."""
    now = time.time()
    try:
        siblings = [p for p in current.parent.iterdir() if p.name.startswith(DIR_PREFIX) and p != current]
    except OSError:
        return
    for path in siblings:
        try:
            if now - path.stat().st_mtime > STALE_AFTER_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def use_source_keyed_cache(directory) -> Path:
    """Point numba's cache at the folder of the current kernel sources; return that folder.

    Must run before the kernel modules of ``directory`` are imported. Falls back
    to numba's user-wide cache folder when the default location is not writable
    (an installed, read-only package). Touches the folder (its modification time
    marks it as in use) and deletes sibling folders unused for a week.
    """
    from numba.core import config

    directory = Path(directory).resolve()
    configured = os.environ.get("NUMBA_CACHE_DIR", "") or config.CACHE_DIR
    target = cache_dir_for(directory, configured)
    if not _writable(target) and not configured:
        from numba.misc.appdirs import AppDirs

        user_cache = AppDirs(appname="numba", appauthor=False).user_cache_dir
        target = cache_dir_for(directory, user_cache)
        _writable(target)
    try:
        os.utime(target)
    except OSError:
        pass
    _prune_siblings(target)
    config.CACHE_DIR = str(target)
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    return target
