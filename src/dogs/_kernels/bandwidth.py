"""numba kernels of a STREAM-like copy, the memory-bandwidth yardstick of the benchmarks.

``b[i] = a[i]`` over two large ``float64`` arrays moves ``2 * 8`` bytes per element (one read, one
write; write-allocate traffic is not counted, as in McCalpin's STREAM "Copy"). The serial version
measures what one core can stream, the parallel one (``prange``) what all cores can.
"""

from __future__ import annotations

from numba import njit, prange

__all__ = ["copy_parallel", "copy_serial"]


@njit(cache=True)
def copy_serial(source, target):
    """``target[:] = source`` on one thread."""
    for i in range(source.size):
        target[i] = source[i]


@njit(cache=True, parallel=True)
def copy_parallel(source, target):
    """``target[:] = source`` on numba's threads."""
    for i in prange(source.size):
        target[i] = source[i]
