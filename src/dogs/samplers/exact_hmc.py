r"""Exact HMC for binary distributions (Pakman & Paninski 2013), a baseline of the annular-augmentation paper.

Target: :class:`~dogs.models.BinaryPairwiseMRF`, ``p(s) ∝ exp(sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i)``
on ``s in {-1, +1}^d``.

Gaussian augmentation
---------------------
Introduce ``y in R^d`` with density ``pi(y) ∝ p(sign y) exp(-|y|^2 / 2)``. Every orthant has the same
Gaussian mass, so ``sign(y)`` is distributed as ``p``, and given ``s = sign(y)`` the magnitudes
``|y_j|`` are independent half-normal. HMC on ``y`` with momentum ``v ~ N(0, I)`` has Hamiltonian

.. math::

    H(y, v) = \tfrac12 |y|^2 + \tfrac12 |v|^2 - \log p(\operatorname{sign} y).

Inside an orthant the last term is constant, so the flow is exact and harmonic,
``y(t) = y cos t + v sin t``: each coordinate oscillates with period ``2 pi`` and its own amplitude
``A_j = (y_j^2 + v_j^2)^{1/2}``, reaching the wall ``y_j = 0`` every ``pi`` with speed ``|v_j| = A_j``.

Wall crossing rule (derivation)
-------------------------------
At the wall ``y_j = 0`` the potential ``U = -log p(sign y)`` jumps; only the momentum normal to the
wall, ``v_j``, exchanges energy with it. Write the jump of the *log-density* met by crossing,

.. math::

    \Delta_j = \log p(s^{(j)}) - \log p(s) = -2 s_j \Big(h_j + \sum_{k} \theta_{jk} s_k\Big),

with ``s`` the signs before the wall and ``s^{(j)}`` the signs after it (``s_j`` flipped): this is
"after minus before" in the direction of motion, whichever side the particle comes from. Energy
conservation across the wall, ``v_j'^2 / 2 - log p(s^{(j)}) = v_j^2 / 2 - log p(s)``, gives
``v_j'^2 = v_j^2 + 2 Delta_j``. Hence:

- if ``v_j^2 + 2 Delta_j > 0`` the particle **crosses**: ``s_j <- -s_j`` and
  ``|v_j| <- (v_j^2 + 2 Delta_j)^{1/2}``, same direction;
- otherwise it **reflects**: ``v_j <- -v_j`` (and ``s_j`` is unchanged).

A crossing towards higher density (``Delta_j > 0``) always happens; one towards lower density needs
enough kinetic energy. (If the log-density difference is instead written with a fixed orientation,
``D_j = log p(.., s_j = +1, ..) - log p(.., s_j = -1, ..)``, the same rule reads
``v_j^2 + 2 sign(v_j) D_j > 0``, the form in which Pakman & Paninski state it; with the
direction-of-motion ``Delta_j`` used here there is no ``sign(v_j)`` factor.) Pakman & Paninski (2013,
§2-3) show that this piecewise flow with reflections and refractions preserves volume and ``H`` and
is reversible, so a trajectory of fixed duration ``T`` after a fresh ``v ~ N(0, I)`` leaves ``pi(y)``,
hence ``p`` on the signs, invariant. The kernel uses ``v_j^2 = A_j^2`` at every hit (the hit times
of ``j`` are ``pi`` apart), see :mod:`dogs._kernels.exact_hmc` for the exact floating-point steps.

Initial magnitudes
------------------
``|y|`` is carried from one trajectory to the next, but the first trajectory needs a starting ``|y|``
for the given spins. By default it is drawn half-normal (``|z|``, ``z ~ N(0, 1)`` per coordinate, from
the chain's stream), the conditional law of ``|y|`` given ``s`` under ``pi``: an exact draw of ``s``
then gives an exact draw of ``y`` and the chain is stationary from its first trajectory (what the
invariance tests check). ``initial_magnitude=1.0`` instead starts at the ±1 point itself, as the
annular-augmentation authors' comparison did; ``y`` is then not stationary at the start, so the first
recorded states are not exact draws even when the initial spins are (a burn-in effect only).

Work (:mod:`dogs.samplers.base`): one site update and one density evaluation per wall hit, about
``d T / pi`` per trajectory (each coordinate hits every ``pi``).

Two layers (:mod:`dogs.samplers`): :func:`prepare_hmc` checks the model, the start, the travel time and the
starting magnitudes once and returns a frozen :class:`PreparedHMC`; :func:`run_hmc` runs ``n`` trajectories of
it from a seed and returns the chain (:class:`~dogs.samplers.binary.BinaryChain`) and its
:class:`~dogs.samplers.base.Work`. :func:`exact_hmc` is the two with the plain estimates
(:func:`~dogs.samplers.binary.plain_result`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs._kernels.exact_hmc import exact_hmc_chain, normal_draws
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work, kernel_rng_state
from dogs.samplers.binary import BinaryChain, BinaryChainResult, plain_result
from dogs.samplers.checks import (check_delta, check_edges, check_int, check_model, check_positive_real, check_spins,
                                  frozen)

__all__ = ["PreparedHMC", "exact_hmc", "prepare_hmc", "run_hmc"]


@dataclass(frozen=True, eq=False)
class PreparedHMC:
    """Checked arguments of exact HMC (:func:`prepare_hmc`), ready for :func:`run_hmc`.

    Attributes
    ----------
    travel_time : float
        Duration of a trajectory.
    initial_magnitude : (d,) float64 array, read-only, or None
        Starting ``|y|``; ``None``: half-normal draws from the chain's stream.
    model, initial_state, edges, delta
        As in :class:`~dogs.samplers.metropolis.PreparedCMH` (``edges`` and ``delta`` for the estimates only).
    """

    model: BinaryPairwiseMRF
    initial_state: np.ndarray
    travel_time: float
    initial_magnitude: np.ndarray | None = None
    edges: np.ndarray | None = None
    delta: BinaryPairwiseMRF | None = None


def exact_hmc(
    model: BinaryPairwiseMRF,
    *,
    n_samples: int,
    travel_time: float = 2.5 * np.pi,
    seed,
    initial_state,
    edges=None,
    delta: BinaryPairwiseMRF | None = None,
    initial_magnitude=None,
) -> BinaryChainResult:
    r"""Exact HMC with the Gaussian augmentation: one chain, one recorded state per trajectory.

    Each of the ``n_samples`` trajectories draws ``v ~ N(0, I)`` and follows the exact flow for time
    ``travel_time``, crossing the wall ``y_j = 0`` iff ``v_j^2 + 2 Delta_j > 0`` with ``Delta_j`` the
    log-density change of flipping ``s_j`` (reflecting otherwise); the signs after the trajectory are
    recorded (derivation in the module docstring).

    Parameters
    ----------
    model : BinaryPairwiseMRF
    n_samples : int
        Number of trajectories, each giving one recorded state (>= 1).
    travel_time : float, default ``2.5 pi``
        Duration of a trajectory (> 0). The paper uses ``2.5 pi`` on the 2D Ising model and ``1.5 pi``
        for the Boltzmann machines.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the chain's stream (:func:`~dogs.samplers.base.chain_seeds`, one chain).
    initial_state : (d,) array of -1/+1
        The initial signs ``s = sign(y)``.
    edges : (E, 2) int array, optional
        Pairs whose 2x2 tables are estimated; default ``model.edges``.
    delta : BinaryPairwiseMRF, optional
        Quadratic form ``q``; the result then carries ``log mean_n exp q(s_n)``.
    initial_magnitude : None, positive float or (d,) array of positive floats
        Starting ``|y|``. ``None`` (default): half-normal draws from the chain's stream (stationary
        start given exact spins); ``1.0``: start at the ±1 point (the authors' comparison).

    Returns
    -------
    BinaryChainResult
        Plain estimates over the recorded states; ``work`` counts the wall hits, each one site update
        and one density evaluation.

    Raises
    ------
    TypeError, ValueError
        On a bad model, count, travel time, magnitudes, seed, initial state, edge list or ``delta``.

    References
    ----------
    Pakman & Paninski (2013), *Auxiliary-variable exact Hamiltonian Monte Carlo samplers for binary
    distributions*, NIPS (Gaussian augmentation, wall crossing); Fagan, Bhandari & Cunningham (2017),
    *Annular augmentation sampling*, §3 (the Exact-HMC baseline, travel time ``2.5 pi``).

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> model = grid_model(3, 3, 0.3, 0.1, torus=True)
    >>> result = exact_hmc(model, n_samples=20, seed=0, initial_state=np.ones(9))
    >>> result.samples.shape, result.work.site_updates == result.work.density_evaluations
    ((20, 9), True)
    """
    prepared = prepare_hmc(model, travel_time=travel_time, initial_state=initial_state, edges=edges, delta=delta,
                           initial_magnitude=initial_magnitude)
    n_samples = check_int("n_samples", n_samples)
    return plain_result(*run_hmc(prepared, seed, n_samples), prepared.edges, prepared.delta)


def prepare_hmc(model: BinaryPairwiseMRF, *, travel_time: float = 2.5 * np.pi, initial_state, edges=None,
                delta: BinaryPairwiseMRF | None = None, initial_magnitude=None) -> PreparedHMC:
    """The checked, frozen arguments of :func:`exact_hmc` but the number of trajectories and the seed."""
    model = check_model(model)
    spins = check_spins(initial_state, model.n_vars)
    edges = check_edges(edges, model)
    delta = check_delta(delta, model)
    travel_time = check_positive_real("travel_time", travel_time)
    magnitude = _check_magnitude(initial_magnitude, model.n_vars)
    return PreparedHMC(model, frozen(spins), travel_time, magnitude, frozen(edges), delta)


def run_hmc(prepared: PreparedHMC, rng, n: int) -> tuple[BinaryChain, Work]:
    """``n`` trajectories (``n >= 1``, not checked) of the chain of :func:`exact_hmc` from ``rng`` (a seed of
    :func:`~dogs.samplers.base.chain_seeds` or a kernel seed word, :func:`~dogs.samplers.base.kernel_rng_state`):
    the chain and its work (one site update and one density evaluation per wall hit)."""
    model = prepared.model
    rng_state = kernel_rng_state(rng)
    spins = prepared.initial_state.copy()
    position = np.empty(model.n_vars, dtype=np.float64)
    if prepared.initial_magnitude is None:
        normal_draws(position, rng_state)
        np.abs(position, out=position)
    else:
        position[:] = prepared.initial_magnitude
    position *= spins
    samples = np.empty((n, model.n_vars), dtype=np.int8)
    hits = int(exact_hmc_chain(model.indptr, model.neighbors, model.coupling, model.h, spins, position, rng_state, n,
                               prepared.travel_time, samples))
    return BinaryChain(samples, spins), Work(hits, hits)


def _check_magnitude(initial_magnitude, n_vars: int):
    if initial_magnitude is None:
        return None
    values = np.asarray(initial_magnitude)
    if values.dtype == bool or not (np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)):
        raise TypeError(f"initial_magnitude must be None or positive numbers, got dtype {values.dtype}")
    if values.shape not in ((), (n_vars,)):
        raise ValueError(f"initial_magnitude must be a scalar or have shape ({n_vars},), got {values.shape}")
    values = np.broadcast_to(values.astype(np.float64), (n_vars,))
    if not (np.all(np.isfinite(values)) and np.all(values > 0.0)):
        raise ValueError("initial_magnitude must be finite and > 0")
    return frozen(values.copy())
