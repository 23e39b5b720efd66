r"""In-kernel pseudo-random numbers: xoshiro256** seeded through splitmix64.

numba kernels cannot share ``numpy.random.Generator`` objects across
``prange`` threads, so every chain carries its own 256-bit xoshiro256**
state (Blackman & Vigna, *Scrambled linear pseudorandom number generators*,
ACM TOMS 2021), packed in a ``(4,)`` ``uint64`` array. The state is filled
from a single ``uint64`` seed by four outputs of splitmix64 (Steele, Lea &
Flood, OOPSLA 2014), the seeding recipe the xoshiro authors recommend; the
public samplers derive those seeds from :class:`numpy.random.SeedSequence`.

Uniform doubles use the top 53 bits of each output,

.. math::

    u = \lfloor r / 2^{11} \rfloor \cdot 2^{-53} \in [0, 1),

and a uniform index in ``{0, ..., n-1}`` is ``floor(u n)`` of the *same* kind of
uniform (bias at most ``n / 2^53``), so a plain-Python reference that reads
the stream from :func:`uniform_stream` sees exactly the numbers a kernel
consumed.

Everything here is private: arrays and scalars in, arrays and scalars out.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "SPLITMIX64_INCREMENT",
    "splitmix64_next",
    "seed_state",
    "xoshiro_next",
    "uniform_from_bits",
    "next_uniform",
    "uniform_stream",
]

SPLITMIX64_INCREMENT = np.uint64(0x9E3779B97F4A7C15)
_SPLITMIX64_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_SPLITMIX64_MUL2 = np.uint64(0x94D049BB133111EB)
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0  # 2**-53, exact


@njit(inline="always", cache=True)
def _rotate_left(value, shift):
    return (value << np.uint64(shift)) | (value >> np.uint64(64 - shift))


@njit(cache=True)
def splitmix64_next(counter):
    """One splitmix64 step: returns ``(output, new_counter)`` for a ``uint64`` counter."""
    counter = np.uint64(counter + SPLITMIX64_INCREMENT)
    z = counter
    z = np.uint64((z ^ (z >> np.uint64(30))) * _SPLITMIX64_MUL1)
    z = np.uint64((z ^ (z >> np.uint64(27))) * _SPLITMIX64_MUL2)
    return z ^ (z >> np.uint64(31)), counter


@njit(cache=True)
def seed_state(seed):
    """xoshiro256** state (a ``(4,)`` ``uint64`` array) from a ``uint64`` seed via four splitmix64 outputs.

    splitmix64 never returns four zeros in a row, so the state is never the
    forbidden all-zero state.
    """
    state = np.empty(4, dtype=np.uint64)
    counter = np.uint64(seed)
    for k in range(4):
        state[k], counter = splitmix64_next(counter)
    return state


@njit(inline="always", cache=True)
def xoshiro_next(s0, s1, s2, s3):
    """One xoshiro256** step on a state held in four scalars: returns ``(output, s0, s1, s2, s3)``.

    Kernels keep the state in registers this way and write it back once.
    """
    result = _rotate_left(np.uint64(s1 * np.uint64(5)), 7) * np.uint64(9)
    shifted = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= shifted
    s3 = _rotate_left(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always", cache=True)
def uniform_from_bits(bits):
    """Uniform double in ``[0, 1)`` from the top 53 bits of a ``uint64``: ``(bits >> 11) * 2**-53``."""
    return np.float64(bits >> np.uint64(11)) * _TWO_POW_MINUS_53


@njit(cache=True)
def next_uniform(state):
    """Advance a ``(4,)`` ``uint64`` xoshiro256** state in place and return the next uniform in ``[0, 1)``."""
    bits, state[0], state[1], state[2], state[3] = xoshiro_next(state[0], state[1], state[2], state[3])
    return uniform_from_bits(bits)


@njit(cache=True)
def uniform_stream(seed, n):
    """The first ``n`` uniforms in ``[0, 1)`` of the stream seeded with the ``uint64`` ``seed``.

    This is the sequence a kernel seeded with ``seed`` consumes, in order;
    plain-Python references read it to replay the kernel's randomness.
    """
    state = seed_state(seed)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.float64)
    for k in range(n):
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        out[k] = uniform_from_bits(bits)
    return out
