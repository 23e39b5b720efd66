"""numba caching of ``dogs._kernels`` is keyed on the source of every kernel file.

numba checks a cached function against its own file only, so a cached caller
would keep running an old callee from another file. ``dogs._kernels`` puts the
cache in a folder named by a hash of all kernel sources (see its docstring):
these tests check that any change to a callee's file gives a new folder, that
every cached kernel lives in the current folder, and, end to end in fresh
processes, that a caller sees its callee's edit.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.caching import FunctionCache
from numba.core.registry import CPUDispatcher

import dogs._kernels
from dogs._kernels._cache import DIR_PREFIX, cache_dir_for, kernel_source_hash

KERNELS = Path(dogs._kernels.__file__).parent


@pytest.fixture
def kernel_copy(tmp_path):
    folder = tmp_path / "kernels"
    folder.mkdir()
    for path in KERNELS.glob("*.py"):
        shutil.copy(path, folder / path.name)
    return folder


def test_editing_a_callee_file_gives_a_new_cache_folder(kernel_copy, tmp_path):
    before = cache_dir_for(kernel_copy, str(tmp_path / "base"))
    assert before.parent == tmp_path / "base" and before.name.startswith(DIR_PREFIX)
    assert cache_dir_for(kernel_copy, str(tmp_path / "base")) == before  # deterministic
    rng = kernel_copy / "rng.py"  # called by gibbs.py, which itself is left unchanged
    rng.write_text(rng.read_text() + "\n# an edit of the callee only\n")
    after = cache_dir_for(kernel_copy, str(tmp_path / "base"))
    assert after != before and after.parent == before.parent


def test_adding_or_renaming_a_kernel_file_gives_a_new_hash(kernel_copy):
    start = kernel_source_hash(kernel_copy)
    (kernel_copy / "new_kernel.py").write_text("")
    added = kernel_source_hash(kernel_copy)
    (kernel_copy / "new_kernel.py").rename(kernel_copy / "other_kernel.py")
    renamed = kernel_source_hash(kernel_copy)
    assert len({start, added, renamed}) == 3


def test_an_inherited_cache_folder_is_not_nested(tmp_path):
    """A child process inherits NUMBA_CACHE_DIR = <base>/dogs-kernels-<hash>; it must reuse <base>."""
    own = cache_dir_for(KERNELS, str(tmp_path))
    assert cache_dir_for(KERNELS, str(own)) == own
    assert cache_dir_for(KERNELS, str(tmp_path / f"{DIR_PREFIX}0123456789abcdef")) == own


def test_every_cached_kernel_uses_the_current_source_folder():
    import numba

    assert Path(numba.config.CACHE_DIR) == dogs._kernels.CACHE_DIR
    assert dogs._kernels.CACHE_DIR.name == f"{DIR_PREFIX}{kernel_source_hash(KERNELS)}"
    n_cached = 0
    for info in pkgutil.iter_modules([str(KERNELS)]):
        module = importlib.import_module(f"dogs._kernels.{info.name}")
        for obj in vars(module).values():
            if isinstance(obj, CPUDispatcher) and isinstance(obj._cache, FunctionCache):
                assert Path(obj._cache.cache_path).parent == dogs._kernels.CACHE_DIR, obj
                n_cached += 1
    assert n_cached > 10


# ------------------------------------------------------------------ end to end, fresh processes

_CALLEE = "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
_CALLER = (
    "from numba import njit\n\nfrom {package}.callee import value\n\n\n"
    "@njit(cache=True)\ndef read():\n    return value()\n"
)
_SOURCE_KEYED_INIT = (
    "from pathlib import Path\n\nfrom dogs._kernels._cache import use_source_keyed_cache\n\n"
    "use_source_keyed_cache(Path(__file__).parent)\n"
)


def _package(root: Path, name: str, init: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text(init)
    (folder / "callee.py").write_text(_CALLEE.format(1))
    (folder / "caller.py").write_text(_CALLER.format(package=name))
    return folder


def _run_caller(root: Path, package: str, cache: Path) -> int:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    code = f"from {package}.caller import read; print(read())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


def test_a_cached_caller_sees_its_edited_callee(tmp_path):
    folder = _package(tmp_path, "keyedkernels", _SOURCE_KEYED_INIT)
    cache = tmp_path / "cache"
    assert _run_caller(tmp_path, "keyedkernels", cache) == 1
    first = cache_dir_for(folder, str(cache))
    assert list(first.rglob("caller.read-*.nbi")), "the caller was not cached in the source-keyed folder"
    assert _run_caller(tmp_path, "keyedkernels", cache) == 1  # loaded from the cache
    (folder / "callee.py").write_text(_CALLEE.format(2))  # the caller's own file is unchanged
    assert _run_caller(tmp_path, "keyedkernels", cache) == 2
    assert cache_dir_for(folder, str(cache)) != first


def test_plain_numba_caching_keeps_a_stale_caller(tmp_path):
    """The problem the source-keyed folder solves: without it the caller runs the old callee."""
    folder = _package(tmp_path, "plainkernels", "")
    cache = tmp_path / "cache"
    assert _run_caller(tmp_path, "plainkernels", cache) == 1
    (folder / "callee.py").write_text(_CALLEE.format(2))
    result = _run_caller(tmp_path, "plainkernels", cache)
    if result == 2:
        pytest.skip("this numba version invalidates a cached caller when a callee's file changes")
    assert result == 1
