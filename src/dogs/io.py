"""Result files: tidy CSV, ``.npz`` arrays, JSON, and the ``*.meta.json`` sidecar.

Every writer is atomic: it writes a temporary file in the destination folder
and renames it into place, so an interrupted or failing run never leaves a
half-written result behind. The sidecar ``<result>.meta.json`` records what
made the result (config slice, seed, package versions, git revision, elapsed
seconds), so a result never needs the code that made it to be read.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import platform
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

import numpy as np

from dogs.extras import DISTRIBUTION

__all__ = ["atomic_path", "remove_stale_temporaries", "write_csv", "write_npz", "write_json", "read_json", "write_meta", "meta_path", "machine_info",
           "git_revision"]

_UMASK = os.umask(0)
os.umask(_UMASK)
_PACKAGES = (DISTRIBUTION, "numpy", "scipy", "numba", "pgmpy", "pandas", "matplotlib", "scikit-image", "snakemake")


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; rename it onto ``path`` only if the block succeeds.

    The temporary file is hidden and named ``.<name>.<pid>.<random>.tmp<suffixes>``. A writer killed
    outright (SIGKILL, power loss) cannot remove its own; the next write of the same result removes
    every such leftover whose process is gone (:func:`remove_stale_temporaries`).
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp" + "".join(path.suffixes),
                                   dir=path.parent)
    except OSError as exc:  # name the result, not the hidden temporary file the message would otherwise name
        raise type(exc)(exc.errno, f"cannot write {path}: its folder {path.parent} cannot be written "
                                   f"({exc.strerror or exc})") from None
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes owner-only files; results are for everyone to read
    try:
        yield Path(tmp)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise type(exc)(exc.errno, f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def remove_stale_temporaries(path) -> list[Path]:
    """Remove the temporaries of :func:`atomic_path` for ``path`` whose writing process no longer runs."""
    path = Path(path)
    removed = []
    for candidate in path.parent.glob(f".{glob.escape(path.name)}.*.tmp*"):
        pid_text = candidate.name[len(path.name) + 2:].split(".", 1)[0]
        if pid_text.isdigit() and _process_alive(int(pid_text)):
            continue
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()
            removed.append(candidate)
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_csv(frame, path) -> Path:
    """Write a pandas DataFrame as tidy CSV (no index)."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.17g")
    return Path(path)


def write_npz(path, **arrays) -> Path:
    """Write arrays to a compressed ``.npz``."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez_compressed(handle, **arrays)
    return Path(path)


def _to_jsonable(value):
    if isinstance(value, dict):
        return {str(k): _to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(path, obj) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(_to_jsonable(obj), indent=2, sort_keys=False) + "\n")
    return Path(path)


def read_json(path):
    return json.loads(Path(path).read_text())


def meta_path(result_path) -> Path:
    """``results/x/guarantees.csv`` -> ``results/x/guarantees.meta.json``."""
    result_path = Path(result_path)
    name = result_path.name.split(".")[0]
    return result_path.with_name(f"{name}.meta.json")


def _package_versions() -> dict:
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_revision(folder=None) -> str | None:
    """The git commit checked out in ``folder`` (default: this package's source), ``-dirty`` when tracked files
    differ from it; None outside a repository."""
    where = Path(__file__).parent if folder is None else Path(folder)
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=where)
        if out.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=5, cwd=where,
        )
        return out.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def machine_info() -> dict:
    """CPU model and core count of this machine (for timing results)."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform()}


def write_meta(result_path, *, settings: dict, seed=None, elapsed_seconds: float | None = None, extra: dict | None = None) -> Path:
    """Write the sidecar ``<result>.meta.json`` next to ``result_path``."""
    meta = {
        "result": Path(result_path).name,
        "settings": settings,
        "seed": seed,
        "elapsed_seconds": elapsed_seconds,
        "versions": _package_versions(),
        "git_revision": git_revision(),
    }
    if extra:
        meta.update(extra)
    return write_json(meta_path(result_path), meta)
