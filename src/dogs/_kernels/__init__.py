"""Private numba kernels: arrays and scalars in, arrays out. Public wrappers live elsewhere and validate input.

Caching
-------
Kernels are compiled with ``@njit(cache=True)``: the test suite and the workflow
start many processes, and each would otherwise recompile every kernel it uses
(seconds per kernel family; the parallel Gibbs and DoGS kernels take longest).

numba's cache is not safe on its own here: it checks a cached function against
a hash of the function's *own* source file, while several kernels call jitted
functions from other files of this folder (for instance ``gibbs.py`` calls
``rng.py``, ``dogs.py`` calls ``variation.py``, ``timing.py`` calls ``gibbs.py``;
``inline="always"`` callees are copied into their callers). After an edit of the
callee's file alone, numba would load the caller from the cache and run the old
callee (the numba docs list this under the known limitations of caching).

The choice: this ``__init__`` runs before any kernel module and calls
:func:`dogs._kernels._cache.use_source_keyed_cache`, which sets numba's cache
directory (``numba.config.CACHE_DIR`` and ``NUMBA_CACHE_DIR``) to a folder named by a
hash of every ``*.py`` file in this folder: ``__pycache__/dogs-kernels-<hash>/``
here, or ``<NUMBA_CACHE_DIR>/dogs-kernels-<hash>/`` when ``NUMBA_CACHE_DIR`` is set.
numba fixes a function's cache directory when the ``cache=True`` decorator runs,
so every kernel module imported afterwards uses that folder. Any change to any
kernel file therefore starts all kernels from an empty cache (one recompilation
per edit), and never mixes code compiled from different versions of the
sources. Folders of old sources are deleted once unused for a week. Side effect:
other ``cache=True`` functions decorated later in the same process (outside this
package) are cached under the same folder, keyed as numba usually keys them.

Rules for kernel files that keep this sound: a kernel calls jitted code and reads
module-level constants (numba freezes globals into the compiled code) only from
files in this folder, and kernel modules are imported as ``dogs._kernels.<name>``
so that this ``__init__`` has run. ``tests/test_kernel_cache.py`` checks that a
caller sees an edited callee in a new process.
"""

from pathlib import Path as _Path

from dogs._kernels._cache import use_source_keyed_cache as _use_source_keyed_cache

CACHE_DIR = _use_source_keyed_cache(_Path(__file__).parent)
"""The numba cache folder of the current kernel sources."""
