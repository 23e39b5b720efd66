r"""numba kernels for Gibbs sampling of binary pairwise MRFs with an arbitrary scan.

One step of the Gibbs sampler (DoGS Algorithm 1) for

.. math::

    \pi(x) \propto \exp\Big(\sum_{i<j} \theta_{ij} x_i x_j + \sum_i \theta_i x_i\Big),
    \qquad x \in \{-1, +1\}^p,

picks ``i = scan[t]`` (or, when ``scan[t] == -1``, ``i = floor(u' p)`` for a
fresh uniform ``u'``), forms the local field over the CSR slots of ``i``

.. math::

    f_i = \theta_i + \sum_{k \in N(i)} \theta_{ik} x_k

(accumulated left to right: ``h[i]`` first, then the slots in CSR order) and,
with a fresh uniform ``u``, sets

.. math::

    x_i = +1 \text{ if } u < \sigma(2 f_i) = \frac{1}{1 + e^{-2 f_i}}, \text{ else } -1,

which is the full conditional ``pi(X_i = +1 | x_{-i})`` (DoGS Appendix A.4).
Uniforms come from the per-chain xoshiro256** stream of
:mod:`dogs._kernels.rng`, in the order: (index uniform, if the step is
uniform), then acceptance uniform. Plain-Python references replay that order
on :func:`dogs._kernels.rng.uniform_stream` and match bit for bit.

Everything is private and takes arrays and scalars only; the public wrapper
:func:`dogs.samplers.gibbs.run_gibbs` validates and casts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from dogs._kernels.rng import seed_state, uniform_from_bits, xoshiro_next

__all__ = ["seed_states", "gibbs_chain", "gibbs_chains"]


@njit(cache=True)
def seed_states(seeds):
    """``(n, 4)`` ``uint64`` xoshiro256** states, one per ``uint64`` seed (splitmix64 seeding)."""
    states = np.empty((seeds.size, 4), dtype=np.uint64)
    for c in range(seeds.size):
        states[c, :] = seed_state(seeds[c])
    return states


@njit(inline="always", cache=True)
def _advance(indptr, neighbors, coupling, h, scan, start, stop, spins, s0, s1, s2, s3):
    """Run scan steps ``start <= t < stop`` on ``spins`` (int8, in place); returns the new RNG state."""
    n_vars = spins.size
    for t in range(start, stop):
        site = scan[t]
        if site < 0:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            site = np.int64(uniform_from_bits(bits) * n_vars)
        field = h[site]
        for slot in range(indptr[site], indptr[site + 1]):
            field += coupling[slot] * spins[neighbors[slot]]
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        prob_plus = 1.0 / (1.0 + math.exp(-2.0 * field))
        spins[site] = 1 if uniform_from_bits(bits) < prob_plus else -1
    return s0, s1, s2, s3


@njit(cache=True)
def gibbs_chain(indptr, neighbors, coupling, h, scan, spins, rng_state, record_vars, record_times, recorded):
    """Run one chain through the whole scan, in place, recording at checkpoints.

    Parameters
    ----------
    indptr, neighbors, coupling : arrays
        CSR neighbour structure of the model (``int64``, index array, ``float64``).
    h : (p,) float64
        Unary parameters.
    scan : (T,) int64
        Scan indices; ``-1`` draws the site uniformly.
    spins : (p,) int8
        State, overwritten with the state after ``T`` steps.
    rng_state : (4,) uint64
        xoshiro256** state, advanced in place.
    record_vars : (V,) int64
        Variables to record.
    record_times : (R,) int64
        Non-decreasing step counts in ``[0, T]``; ``recorded[r]`` holds the values
        of ``record_vars`` after ``record_times[r]`` steps.
    recorded : (R, V) int8
        Output buffer.
    """
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    done = 0
    for r in range(record_times.size):
        stop = record_times[r]
        s0, s1, s2, s3 = _advance(indptr, neighbors, coupling, h, scan, done, stop, spins, s0, s1, s2, s3)
        done = stop
        for v in range(record_vars.size):
            recorded[r, v] = spins[record_vars[v]]
    s0, s1, s2, s3 = _advance(indptr, neighbors, coupling, h, scan, done, scan.size, spins, s0, s1, s2, s3)
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3


@njit(parallel=True, cache=True)
def gibbs_chains(indptr, neighbors, coupling, h, scan, spins, rng_states, record_vars, record_times, recorded):
    """Independent chains in parallel (``prange`` over chains): row ``c`` of ``spins`` (C, p),
    ``rng_states`` (C, 4) and ``recorded`` (C, R, V) belongs to chain ``c``; see :func:`gibbs_chain`."""
    for c in prange(spins.shape[0]):
        gibbs_chain(indptr, neighbors, coupling, h, scan, spins[c], rng_states[c], record_vars, record_times, recorded[c])
