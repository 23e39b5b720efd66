r"""The sampler contract: what every sampler in :mod:`dogs.samplers` takes and returns.

Every sampler is a function of ``(model, <its schedule: a scan or a budget>, *, seed, n_chains,
initial_state, ...)`` that returns a result object with at least

``states``
    the final state of every chain, shape ``(n_chains, p)``;
``work``
    a :class:`Work` record of what the run cost, in the two units the papers compare samplers by:

    - ``site_updates``: single-variable updates (one Gibbs conditional draw, one Metropolis proposal at
      one site). This is the cost unit of DoGS (a scan of length ``T`` costs ``T`` per chain) and of
      He et al. (2016).
    - ``density_evaluations``: single-flip log-density differences
      :math:`\log\pi(x^{(i\to\cdot)}) - \log\pi(x)`, the unit by which the annular-augmentation paper
      (Fagan, Bhandari & Cunningham 2017, §3 and its appendix) puts exact HMC, coordinate
      Metropolis-Hastings and annular augmentation at equal cost. A binary Gibbs update evaluates one
      such difference; a Gibbs update of a ``K``-state variable evaluates ``K - 1``.

    Counts are totals over all chains.

and, where the sampler records along the way, the recorded values (``recorded``) or estimates. The
randomness is reproducible: ``seed`` is a non-negative int, a :class:`numpy.random.SeedSequence` or a
:class:`numpy.random.Generator`, and the same seed gives the same result on every machine and with any
number of threads (each chain has its own stream, :func:`chain_seeds`).

The samplers of the annular-augmentation paper (annular Gibbs, slice and Suwa-Todo operators, coordinate
Metropolis-Hastings, exact HMC) follow the same contract, so experiments compare them at equal
``work.density_evaluations``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["Work", "chain_seeds", "check_n_chains"]


@dataclass(frozen=True)
class Work:
    """Work done by a sampler run, summed over chains (see the module docstring for the units)."""

    site_updates: int
    density_evaluations: int

    def __post_init__(self):
        for name in ("site_updates", "density_evaluations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
            object.__setattr__(self, name, int(value))

    def __add__(self, other: "Work") -> "Work":
        if not isinstance(other, Work):
            return NotImplemented
        return Work(self.site_updates + other.site_updates, self.density_evaluations + other.density_evaluations)


def check_n_chains(n_chains) -> int:
    """``n_chains`` as a positive int; a clear error otherwise."""
    if isinstance(n_chains, (bool, np.bool_)) or not isinstance(n_chains, numbers.Integral):
        raise TypeError(f"n_chains must be an integer, got {type(n_chains).__name__}")
    if n_chains < 1:
        raise ValueError(f"n_chains must be >= 1, got {n_chains}")
    return int(n_chains)


def chain_seeds(seed, n_chains: int) -> np.ndarray:
    """Per-chain ``uint64`` kernel seeds: child ``c`` of ``SeedSequence(seed).spawn(n_chains)``, one word each.

    ``seed`` is a non-negative int, a :class:`numpy.random.SeedSequence` (not
    advanced: the same object always yields the same seeds; pass different
    children for independent runs) or a :class:`numpy.random.Generator`
    (advanced: 128 bits are drawn from it as entropy).
    """
    n_chains = check_n_chains(n_chains)
    if isinstance(seed, np.random.SeedSequence):
        root = np.random.SeedSequence(entropy=seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    elif isinstance(seed, np.random.Generator):
        root = np.random.SeedSequence([int(w) for w in seed.integers(0, 2**32, size=4, dtype=np.uint64)])
    elif isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        root = np.random.SeedSequence(int(seed))
    else:
        raise TypeError(
            f"seed must be a non-negative int, a numpy.random.SeedSequence or a numpy.random.Generator, "
            f"got {type(seed).__name__}"
        )
    return np.array([child.generate_state(1, np.uint64)[0] for child in root.spawn(n_chains)], dtype=np.uint64)
