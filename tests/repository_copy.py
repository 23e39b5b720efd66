"""A clean copy of the repository, as a fresh clone would hold it, for tests that build or plan from one.

The copy holds the files git tracks plus new files not yet committed (so a test sees the working tree's edits),
without results, figures, virtual environments, build folders or data sets. Outside a git checkout the tree is
copied without what the workflow and the tools generate.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import cpu_limited

ROOT = Path(__file__).resolve().parents[1]
_GENERATED = {".git", ".venv", "results", "figures", ".snakemake", "__pycache__", ".pytest_cache", ".hypothesis",
              "build", "dist"}


def repository_files() -> list[str] | None:
    """The repository's files as a clone would hold them (tracked, plus new ones git does not ignore), or None."""
    try:
        proc = cpu_limited.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                               cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    listed = proc.stdout
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def _ignore_generated(folder, names):
    here = Path(folder).resolve()
    skipped = {n for n in names if n in _GENERATED or n.endswith(".egg-info")}
    if here == ROOT / "data":  # the data directory of a clone holds its README only
        skipped |= {n for n in names if n != "README.md"}
    return skipped


def copy_repository(destination) -> Path:
    """Copy the repository to ``destination`` (a folder that does not exist yet); returns it as a Path."""
    destination = Path(destination)
    files = repository_files()
    if files is None:
        shutil.copytree(ROOT, destination, ignore=_ignore_generated)
    else:
        for name in files:
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, destination / name)
    return destination
