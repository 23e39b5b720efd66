r"""The twelve binary samplers of the annular-augmentation comparison, by name, at one equal-cost budget.

Fagan, Bhandari & Cunningham (2017, §3) compare, at an equal number of density evaluations
(:func:`~dogs.samplers.budget.equal_cost_budget`):

========================  =============================================================================
name                      sampler
========================  =============================================================================
``HMC``                   exact HMC (:func:`~dogs.samplers.exact_hmc`), ``hmc_samples`` trajectories of
                          ``hmc_travel_time``
``CMH``                   coordinate Metropolis-Hastings, ``cmh_samples`` recorded states ``d`` proposals apart
``CMH + LBP``             CMH with the LBP proposal, discrete-event form (AA appendix A.3), ``cmh_lbp_proposals``
                          proposed flips (the budget spent in proposals, as the authors' code does)
``AAS``, ``AAS + RB``     annular augmentation, slice operator, uniform prior (lattice); plain / Rao-Blackwellised
``AAS + RB + LBP``        the same with the LBP prior (stretched thresholds)
``AAG`` ...               the Gibbs operator (same three variants)
``AAST`` ...              the Suwa-Todo operator (same three variants)
========================  =============================================================================

An annular sampler and its ``+ RB`` version differ only in the estimator (the chain does not depend
on ``rao_blackwell``, :mod:`dogs.samplers.annular`): :func:`run_samplers` runs that chain once and
returns both estimates, a paired comparison of the estimators. The LBP prior is loopy BP's node
marginals clipped to ``[PRIOR_CLIP, 1 - PRIOR_CLIP]`` (a prior of exactly 0 or 1 would freeze a
coordinate of the stretched annulus).
"""

from __future__ import annotations

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.annular import annular_sampler
from dogs.samplers.binary import BinaryChainResult, empirical_estimates, log_mean_exp_quadratic
from dogs.samplers.exact_hmc import exact_hmc
from dogs.samplers.metropolis import coordinate_metropolis, coordinate_metropolis_lbp

__all__ = ["AA_SAMPLERS", "PRIOR_CLIP", "SAMPLER_OPERATORS", "SamplerEstimate", "chain_index", "chain_seed",
           "run_samplers"]

#: The twelve samplers of AA Figs. 3-5, in the paper's order.
AA_SAMPLERS = (
    "HMC", "CMH", "CMH + LBP",
    "AAS", "AAS + RB", "AAS + RB + LBP",
    "AAG", "AAG + RB", "AAG + RB + LBP",
    "AAST", "AAST + RB", "AAST + RB + LBP",
)
#: Operator 2 of each annular sampler (:data:`dogs.samplers.annular.OPERATORS`).
SAMPLER_OPERATORS = {"AAS": "slice", "AAG": "gibbs", "AAST": "suwa_todo"}
PRIOR_CLIP = 1e-9


class SamplerEstimate(dict):
    """``{"node_marginals", "edge_tables", "log_ratio", "density_evaluations", "state"}`` of one sampler run
    (``state``: the chain's final state)."""


def _estimate(result: BinaryChainResult, node, tables, log_ratio) -> SamplerEstimate:
    return SamplerEstimate(node_marginals=node, edge_tables=tables, log_ratio=log_ratio,
                           density_evaluations=int(result.work.density_evaluations), state=result.state)


def _plain(result: BinaryChainResult, delta) -> SamplerEstimate:
    """The plain estimates of a chain: its own when it made plain ones, else recomputed from its (weighted) samples."""
    if not result.rao_blackwellised:
        return _estimate(result, result.node_marginals, result.edge_tables, result.log_ratio)
    samples, weights = result.samples, result.sample_weights
    log_ratio = None if delta is None else log_mean_exp_quadratic(samples, delta, weights)
    return _estimate(result, *empirical_estimates(samples, result.edges, weights), log_ratio)


def chain_seed(seed: np.random.SeedSequence, name: str) -> np.random.SeedSequence:
    """The seed of the chain that sampler ``name`` of :func:`run_samplers` runs: child ``k`` of ``seed`` (the same
    SeedSequence as ``seed.spawn()``'s ``k``-th, without building the others) for the ``k``-th chain of
    :data:`AA_SAMPLERS`; an annular sampler and its ``+ RB`` version share the plain one's chain (the RB + LBP
    version runs its own)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, chain_index(name)))


def chain_index(name: str) -> int:
    """``k`` of :func:`chain_seed`: the index in :data:`AA_SAMPLERS` of the chain that sampler ``name`` runs."""
    base = name.split(" ")[0]
    return AA_SAMPLERS.index(base if base in SAMPLER_OPERATORS and not name.endswith("LBP") else name)


def run_samplers(model: BinaryPairwiseMRF, budget: dict, *, names=AA_SAMPLERS, lbp_marginals=None, seed,
                 initial_state, edges=None, delta: BinaryPairwiseMRF | None = None) -> dict[str, SamplerEstimate]:
    """Run the named samplers from one initial state at the budget of :func:`equal_cost_budget`.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    budget : dict
        :func:`~dogs.samplers.budget.equal_cost_budget` for this model.
    names : sequence of str
        A subset of :data:`AA_SAMPLERS`.
    lbp_marginals : (d,) array, optional
        Loopy-BP node marginals ``p(s_i = +1)``; required by the ``LBP`` samplers.
    seed : numpy.random.SeedSequence
        Each distinct chain uses its own child (spawned in :data:`AA_SAMPLERS` order), so adding or
        removing a sampler never changes another one's chain.
    initial_state : (d,) array of ±1
        Shared by every sampler (the paper starts all samplers from the same point).
    edges, delta
        As in the samplers: the pairs whose tables are estimated, and the quadratic form of a
        log partition-function ratio (AA eq. 5).

    Returns
    -------
    dict
        ``{name: SamplerEstimate}`` in the order of ``names``.
    """
    unknown = [n for n in names if n not in AA_SAMPLERS]
    if unknown:
        raise ValueError(f"unknown samplers {unknown}; expected names from {AA_SAMPLERS}")
    if any("LBP" in n for n in names) and lbp_marginals is None:
        raise ValueError("the LBP samplers need lbp_marginals")
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a numpy.random.SeedSequence, got {type(seed).__name__}")
    prior = None if lbp_marginals is None else np.clip(np.asarray(lbp_marginals, dtype=np.float64),
                                                       PRIOR_CLIP, 1.0 - PRIOR_CLIP)
    d = model.n_vars
    common = dict(initial_state=initial_state, edges=edges, delta=delta)
    out: dict[str, SamplerEstimate] = {}
    for name in names:
        if name in out:
            continue
        if name == "HMC":
            result = exact_hmc(model, n_samples=budget["hmc_samples"], travel_time=budget["hmc_travel_time"],
                               seed=chain_seed(seed, name), **common)
            out[name] = _plain(result, delta)
        elif name == "CMH":
            result = coordinate_metropolis(model, n_samples=budget["cmh_samples"], proposals_per_sample=d,
                                           seed=chain_seed(seed, name), **common)
            out[name] = _plain(result, delta)
        elif name == "CMH + LBP":
            result = coordinate_metropolis_lbp(model, prior, n_proposals=budget["cmh_lbp_proposals"],
                                               proposals_per_sample=d, seed=chain_seed(seed, name), **common)
            out[name] = _plain(result, delta)
        else:
            base = name.split(" ")[0]
            with_lbp = name.endswith("LBP")
            result = annular_sampler(model, operator=SAMPLER_OPERATORS[base], prior=prior if with_lbp else None,
                                     n_iterations=budget["annular_iterations"], seed=chain_seed(seed, name),
                                     rao_blackwell=True, **common)
            rb = _estimate(result, result.node_marginals, result.edge_tables, result.log_ratio)
            if with_lbp:
                out[name] = rb
            else:
                if f"{base} + RB" in names:
                    out[f"{base} + RB"] = rb
                if base in names:
                    out[base] = _plain(result, delta)
    return {name: out[name] for name in names}
