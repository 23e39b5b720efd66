r"""Maximum likelihood for binary pairwise MRFs: exact optimum and projected stochastic gradient ascent.

Model (spins ±1, each edge once, :class:`~dogs.models.BinaryPairwiseMRF`) with parameters
``eta = (theta_e for e in edges, h_i for i in sites)`` and sufficient statistics
``phi(x) = (x_i x_j for (i, j) in edges, x_i for i in sites)``:

.. math::

    p_\eta(x) = \exp\big(\eta^\top \phi(x) - \log Z(\eta)\big).

For training data ``x^(1..N)`` the ridge-regularised average log-likelihood and its gradient are

.. math::

    \ell(\eta) = \eta^\top \bar\phi - \log Z(\eta) - \tfrac{\lambda}{2} \|\eta\|^2, \qquad
    \nabla \ell(\eta) = \bar\phi - \mathbb E_\eta[\phi(X)] - \lambda \eta,

``bar phi`` the empirical moments. Learning keeps the couplings in Liu & Domke's fast-mixing set
``||R(theta)|| <= c`` (:mod:`dogs.learning.projection`; fields are free) by projected gradient ascent

.. math::

    \eta_{k+1} = P\big(\eta_k + \gamma\, \widehat{\nabla \ell}(\eta_k)\big),

where the model moments ``E_eta[phi]`` are exact (:func:`exact_moments`, enumeration of ``2^p``
states) or estimated from independent Gibbs chains (:func:`gibbs_moments`) run with any scan: the
uniform random scan of Domke (2015, §6), or a DoGS scan recomputed at every step from the current
estimate (DoGS §5.3: Algorithm 2 with ``d = 1``, early stopping at ``epsilon``, the influence bound of
Theorem 11 at ``eta_k``, input = the uniform random scan). The ascent is concave and the constraint
set convex, so ``eta*`` (:func:`exact_optimum`) is unique when ``lambda > 0``; it is certified by the
projected-gradient norm ``||(P(eta + gamma grad) - eta) / gamma|| <= tol``.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass

import numpy as np

from dogs.bounds import influence_binary_pairwise
from dogs.learning.projection import project_couplings
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.gibbs import run_gibbs
from dogs.scans.base import Scan, uniform_scan
from dogs.scans.dogs import dogs_scan, length_doubling_dogs

__all__ = [
    "MAX_ENUMERATION_VARS",
    "ExactOptimum",
    "LearningProblem",
    "dogs_moment_scan",
    "exact_moments",
    "exact_optimum",
    "gibbs_moments",
    "sufficient_statistics",
]

#: Exact moments enumerate ``2^p`` states: refuse beyond this many variables.
MAX_ENUMERATION_VARS = 22


def sufficient_statistics(states: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``phi(x) = (x_i x_j over edges, x_i over sites)`` for each row of ``states`` (spins ±1)."""
    states = np.asarray(states, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    return np.concatenate([states[:, edges[:, 0]] * states[:, edges[:, 1]], states], axis=1)


@dataclass(frozen=True)
class LearningProblem:
    """A learning problem: the graph, the training data's empirical moments, the ridge and the fast-mixing set.

    ``parameters`` vectors are ``(theta over edges, h over sites)``.
    """

    edges: np.ndarray
    n_vars: int
    data_moments: np.ndarray
    regularizer: float = 0.0
    norm: str = "infinity"
    radius: float = 2.5

    @classmethod
    def from_data(cls, edges, n_vars: int, data, **kwargs) -> "LearningProblem":
        data = np.asarray(data)
        if data.ndim != 2 or data.shape[1] != n_vars or not np.all(np.abs(data) == 1):
            raise ValueError(f"data must be an (N, {n_vars}) array of spins -1/+1")
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        return cls(edges, int(n_vars), sufficient_statistics(data, edges).mean(axis=0), **kwargs)

    def __post_init__(self):
        if isinstance(self.regularizer, bool) or not isinstance(self.regularizer, numbers.Real) or self.regularizer < 0:
            raise ValueError(f"regularizer must be a number >= 0, got {self.regularizer!r}")

    @property
    def n_parameters(self) -> int:
        return len(self.edges) + self.n_vars

    def model(self, parameters) -> BinaryPairwiseMRF:
        parameters = np.asarray(parameters, dtype=np.float64)
        return BinaryPairwiseMRF(self.edges, parameters[: len(self.edges)], parameters[len(self.edges):])

    def gradient(self, parameters, model_moments) -> np.ndarray:
        """``bar phi - E[phi] - lambda eta`` for the given (exact or estimated) model moments."""
        return self.data_moments - np.asarray(model_moments) - self.regularizer * np.asarray(parameters)

    def project(self, parameters) -> np.ndarray:
        """Couplings onto ``||R(theta)|| <= c`` (Liu & Domke), fields unchanged."""
        parameters = np.asarray(parameters, dtype=np.float64)
        n_edges = len(self.edges)
        theta = project_couplings(self.edges, self.n_vars, parameters[:n_edges], self.radius, self.norm).theta
        return np.concatenate([theta, parameters[n_edges:]])

    def step(self, parameters, model_moments, step_size: float) -> np.ndarray:
        """One projected gradient-ascent step."""
        return self.project(np.asarray(parameters) + step_size * self.gradient(parameters, model_moments))


def _all_states(n_vars: int) -> np.ndarray:
    if n_vars > MAX_ENUMERATION_VARS:
        raise ValueError(f"exact moments enumerate 2^p states; p = {n_vars} exceeds {MAX_ENUMERATION_VARS}")
    return np.array(list(itertools.product((-1.0, 1.0), repeat=n_vars)))


def exact_moments(problem: LearningProblem, parameters, states: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """``(E_eta[phi], log Z(eta))`` by enumerating all ``2^p`` states."""
    states = _all_states(problem.n_vars) if states is None else states
    features = sufficient_statistics(states, problem.edges)
    energy = features @ np.asarray(parameters, dtype=np.float64)
    top = energy.max()
    weights = np.exp(energy - top)
    total = weights.sum()
    return weights @ features / total, float(top + np.log(total))


@dataclass(frozen=True)
class ExactOptimum:
    """``eta*``, its exact moments and log-likelihood, and the convergence certificate."""

    parameters: np.ndarray
    moments: np.ndarray
    log_likelihood: float
    projected_gradient_norm: float
    iterations: int


def exact_optimum(problem: LearningProblem, *, tol: float = 1e-10, max_iterations: int = 100_000) -> ExactOptimum:
    """The constrained, regularised maximum-likelihood parameters by projected gradient ascent on exact moments.

    Each step ``eta+ = P(eta + s grad l(eta))`` takes the largest ``s`` in ``1, 1/2, 1/4, ...`` (starting from
    twice the last accepted one) with the sufficient increase
    ``l(eta+) >= l(eta) + grad . (eta+ - eta) - ||eta+ - eta||^2 / (2 s)`` (Armijo's rule for projected
    gradients; it holds for every ``s <= 1 / (n_parameters + lambda)``, a bound on the Hessian's norm since
    every statistic is ±1). The loop ends when the gradient mapping ``||P(eta + grad l) - eta||`` (unit
    step: the certificate of stationarity on the constraint set) is ``<= tol``.
    """
    states = _all_states(problem.n_vars)

    def evaluate(parameters):
        moments, log_z = exact_moments(problem, parameters, states)
        value = parameters @ problem.data_moments - log_z - 0.5 * problem.regularizer * parameters @ parameters
        return value, moments

    parameters = np.zeros(problem.n_parameters)
    value, moments = evaluate(parameters)
    step, norm = 1.0, np.inf
    floor = 1.0 / (problem.n_parameters + problem.regularizer)
    for iteration in range(1, max_iterations + 1):
        gradient = problem.gradient(parameters, moments)
        norm = float(np.linalg.norm(problem.project(parameters + gradient) - parameters))
        if norm <= tol:
            break
        step = min(1.0, 2.0 * step)
        while True:
            candidate = problem.project(parameters + step * gradient)
            move = candidate - parameters
            new_value, new_moments = evaluate(candidate)
            if new_value >= value + gradient @ move - move @ move / (2.0 * step) or step <= floor:
                break
            step /= 2.0
        parameters, value, moments = candidate, new_value, new_moments
    else:
        raise RuntimeError(f"exact optimum not reached: projected-gradient norm {norm:.3e} > {tol:.1e} "
                           f"after {max_iterations} iterations")
    return ExactOptimum(parameters, moments, float(value), norm, iteration)


def dogs_moment_scan(model: BinaryPairwiseMRF, length: int, epsilon: float, mode: str = "same") -> Scan:
    """The DoGS scan of DoGS §5.3 at the current estimate: ``d = 1``, bound of Theorem 11, uniform input.

    ``mode="same"``: Algorithm 2 with early stopping at ``epsilon`` on the uniform random scan of ``length``
    steps (the same number of site updates as the uniform baseline). ``mode="doubling"``: the shortest
    power-of-two prefix meeting ``epsilon`` (§5.2's length doubling); if even ``length`` steps cannot,
    the ``"same"`` scan.
    """
    if mode not in ("same", "doubling"):
        raise ValueError(f"mode must be 'same' or 'doubling', got {mode!r}")
    bound = influence_binary_pairwise(model)
    weights = np.ones(model.n_vars)
    base = uniform_scan(model.n_vars, length)
    if mode == "doubling":
        try:
            return length_doubling_dogs(base, weights, bound, epsilon).scan
        except ValueError:
            pass
    return dogs_scan(base, weights, bound, epsilon=epsilon).scan


def gibbs_moments(problem: LearningProblem, parameters, scan: Scan, *, n_chains: int, seed, initial_state=1):
    """Monte Carlo ``E_eta[phi]``: the final states of ``n_chains`` independent chains run through ``scan``.

    Returns ``(moments, site_updates)``.
    """
    result = run_gibbs(problem.model(parameters), scan, n_chains=n_chains, seed=seed, initial_state=initial_state)
    return sufficient_statistics(result.states, problem.edges).mean(axis=0), result.work.site_updates
