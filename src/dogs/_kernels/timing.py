r"""numba kernel of :func:`dogs.samplers.points.sample_points`, the timed sampling loop of DoGS §5.2 and App. B.2.

One *sample point* is one run of the Gibbs sampler through a whole scan from the all ``+1``
state, keeping only the target spin at the end (``X_1^T`` for ``d = e_1``). The experiment draws
many independent sample points per scan and times them; calling
:func:`dogs.samplers.gibbs.run_gibbs` once per point would add its validation, seeding and
allocation of a ``p``-vector to every point (about 10 µs, more than a whole 16-step DoGS point), so
this kernel draws a *batch* of points in one call, reusing one state buffer:

for each point ``k``: run the scan steps with :func:`dogs._kernels.gibbs.advance` (the very
step of ``run_gibbs``, same exact fast decision), record ``out[k] = spins[target]``, then reset
the state to all ``+1``.

Randomness: one xoshiro256** stream (:mod:`dogs._kernels.rng`) runs on through the batch and
across batches, so point ``k`` consumes exactly the uniforms that ``run_gibbs``'s kernel
:func:`dogs._kernels.gibbs.gibbs_chain` would consume if called ``k + 1`` times in a row on the same
``rng_state`` array (tested in ``tests/test_sample_points.py``); the first point equals
``run_gibbs(model, scan, seed=s, initial_state=1)`` for the seed whose state is passed in.

Reset. After a point only the sites the scan visited can differ from ``+1``. With
``sparse_reset`` the kernel writes ``+1`` back to the visited sites (``T`` byte stores); otherwise
it fills the whole state (``p`` bytes). The caller picks the cheaper valid option: sparse when the
scan is deterministic and shorter than ``p``. Either way the next point starts from all ``+1``.

Private: arrays and scalars only; :func:`dogs.samplers.points.sample_points` validates and calls it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dogs._kernels.gibbs import advance

__all__ = ["draw_sample_points"]


@njit(cache=True)
def draw_sample_points(graph, h, scan, spins, rng_state, low, high, target, sparse_reset, out):
    """Draw ``out.size`` independent sample points of ``spins[target]`` after the whole ``scan``.

    Parameters
    ----------
    graph, h
        The model's neighbourhoods and field exactly as :func:`dogs.samplers.gibbs.run_gibbs` passes
        them to :func:`dogs._kernels.gibbs.gibbs_chain` (either layout, see :mod:`dogs._kernels.gibbs`).
    scan : (T,) int32 or int64
        Scan indices; ``-1`` (uniform) entries require ``sparse_reset = False``.
    spins : (p,) int8
        Must be all ``+1`` on entry; all ``+1`` again on return (it is the reused buffer).
    rng_state : (4,) uint64
        xoshiro256** state, advanced in place.
    low, high
        Threshold tables of the exact fast decision, as ``run_gibbs`` passes them.
    target : int
        Recorded variable.
    sparse_reset : bool
        Reset only the visited sites (see the module docstring).
    out : (n,) int8
        Receives the ``n`` sample points (spins in {-1, +1}).

    Returns
    -------
    int
        ``sum(out)``, so the caller's running estimate needs no second pass.
    """
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    n_steps = scan.size
    plus = np.int8(1)
    total = 0
    for k in range(out.size):
        s0, s1, s2, s3 = advance(graph, h, scan, 0, n_steps, spins, low, high, s0, s1, s2, s3)
        value = spins[target]
        out[k] = value
        total += value
        if sparse_reset:
            for t in range(n_steps):
                spins[scan[t]] = plus
        else:
            spins[:] = plus
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return total
