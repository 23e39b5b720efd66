r"""The twelve binary samplers of the annular-augmentation comparison, by name, at one equal-cost budget.

Fagan, Bhandari & Cunningham (2017, §3) compare, at an equal number of density evaluations
(:func:`~dogs.samplers.budget.equal_cost_budget`):

========================  =============================================================================
name                      sampler
========================  =============================================================================
``HMC``                   exact HMC (:func:`~dogs.samplers.exact_hmc.exact_hmc`), ``hmc_samples`` trajectories of
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

The table is :data:`SAMPLER_SPECS`: one :class:`SamplerSpec` per sampler, saying which sampler runs, with which
Operator 2 and prior, and which estimator it reports; the display names are only labels (results files and
claims use them), never parsed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.annular import annular_sampler
from dogs.samplers.binary import BinaryChainResult, empirical_estimates, log_mean_exp_quadratic
from dogs.samplers.budget import EqualCostBudget
from dogs.samplers.exact_hmc import exact_hmc
from dogs.samplers.metropolis import coordinate_metropolis, coordinate_metropolis_lbp

__all__ = ["AA_SAMPLERS", "PRIOR_CLIP", "SAMPLER_SPECS", "SamplerEstimate", "SamplerSpec", "chain_index", "chain_seed",
           "run_length", "run_samplers", "sampler_spec"]


@dataclass(frozen=True)
class SamplerSpec:
    """One sampler of the comparison.

    Attributes
    ----------
    name : str
        Display name (AA Figs. 3-5), the label of its rows in results files and claims.
    sampler : {"exact_hmc", "cmh", "cmh_lbp", "annular"}
        The sampler that runs.
    operator : {"gibbs", "slice", "suwa_todo"} or None
        Operator 2 of an annular sampler (:data:`dogs.samplers.annular.OPERATORS`).
    prior : {"lbp"} or None
        ``"lbp"``: the sampler uses loopy BP's marginals (the CMH proposal, the stretched annular prior).
    estimator : {"plain", "rao_blackwell"}
        Averages over the recorded states, or the Rao-Blackwellised estimates.
    """

    name: str
    sampler: str
    operator: str | None = None
    prior: str | None = None
    estimator: str = "plain"

    @property
    def chain(self) -> tuple:
        """What determines the chain: samplers with the same ``chain`` differ only in the estimator."""
        return self.sampler, self.operator, self.prior


def _annular_specs(short: str, operator: str) -> tuple[SamplerSpec, ...]:
    return (SamplerSpec(short, "annular", operator),
            SamplerSpec(f"{short} + RB", "annular", operator, estimator="rao_blackwell"),
            SamplerSpec(f"{short} + RB + LBP", "annular", operator, prior="lbp", estimator="rao_blackwell"))


#: The twelve samplers of AA Figs. 3-5, in the paper's order.
SAMPLER_SPECS = (
    SamplerSpec("HMC", "exact_hmc"),
    SamplerSpec("CMH", "cmh"),
    SamplerSpec("CMH + LBP", "cmh_lbp", prior="lbp"),
    *_annular_specs("AAS", "slice"),
    *_annular_specs("AAG", "gibbs"),
    *_annular_specs("AAST", "suwa_todo"),
)
#: Their display names, in the same order.
AA_SAMPLERS = tuple(spec.name for spec in SAMPLER_SPECS)
_SPECS_BY_NAME = {spec.name: spec for spec in SAMPLER_SPECS}
PRIOR_CLIP = 1e-9


def sampler_spec(name: str) -> SamplerSpec:
    """The :class:`SamplerSpec` of display name ``name`` (one of :data:`AA_SAMPLERS`)."""
    spec = _SPECS_BY_NAME.get(name)
    if spec is None:
        raise ValueError(f"unknown sampler {name!r}; expected a name from {AA_SAMPLERS}")
    return spec


def run_length(spec: SamplerSpec, budget: EqualCostBudget) -> int:
    """The run length of ``spec``'s sampler under ``budget``: HMC trajectories, CMH recorded states, CMH + LBP
    proposed flips or annular iterations."""
    return {"exact_hmc": budget.hmc_samples, "cmh": budget.cmh_samples, "cmh_lbp": budget.cmh_lbp_proposals,
            "annular": budget.annular_iterations}[spec.sampler]


@dataclass(frozen=True, eq=False)
class SamplerEstimate:
    """The estimates of one sampler run of :func:`run_samplers`.

    Attributes
    ----------
    node_marginals : (d,) float array
    edge_tables : (E, 2, 2) float array
    log_ratio : float or None
        The estimate of ``log E_p[exp q]`` when a ``delta`` form was given.
    density_evaluations : int
    state : (d,) int8 array
        The chain's final state.
    """

    node_marginals: np.ndarray
    edge_tables: np.ndarray
    log_ratio: float | None
    density_evaluations: int
    state: np.ndarray


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
    """``k`` of :func:`chain_seed`: the index in :data:`SAMPLER_SPECS` of the first sampler running the same chain as
    sampler ``name`` (the plain annular sampler for its ``+ RB`` version)."""
    chain = sampler_spec(name).chain
    return next(k for k, spec in enumerate(SAMPLER_SPECS) if spec.chain == chain)


def run_samplers(model: BinaryPairwiseMRF, budget: EqualCostBudget, *, names=AA_SAMPLERS, lbp_marginals=None, seed,
                 initial_state, edges=None, delta: BinaryPairwiseMRF | None = None) -> dict[str, SamplerEstimate]:
    """Run the named samplers from one initial state at the budget of :func:`equal_cost_budget`.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    budget : EqualCostBudget
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
    unknown = [n for n in names if n not in _SPECS_BY_NAME]
    if unknown:
        raise ValueError(f"unknown samplers {unknown}; expected names from {AA_SAMPLERS}")
    specs = [_SPECS_BY_NAME[n] for n in names]
    if any(spec.prior == "lbp" for spec in specs) and lbp_marginals is None:
        raise ValueError("the LBP samplers need lbp_marginals")
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a numpy.random.SeedSequence, got {type(seed).__name__}")
    prior = None if lbp_marginals is None else np.clip(np.asarray(lbp_marginals, dtype=np.float64),
                                                       PRIOR_CLIP, 1.0 - PRIOR_CLIP)
    d = model.n_vars
    common = dict(initial_state=initial_state, edges=edges, delta=delta)
    out: dict[str, SamplerEstimate] = {}
    for spec in specs:
        if spec.name in out:
            continue
        n, seed_of_chain = run_length(spec, budget), chain_seed(seed, spec.name)
        if spec.sampler == "exact_hmc":
            result = exact_hmc(model, n_samples=n, travel_time=budget.hmc_travel_time, seed=seed_of_chain, **common)
        elif spec.sampler == "cmh":
            result = coordinate_metropolis(model, n_samples=n, proposals_per_sample=d, seed=seed_of_chain, **common)
        elif spec.sampler == "cmh_lbp":
            result = coordinate_metropolis_lbp(model, prior, n_proposals=n, proposals_per_sample=d, seed=seed_of_chain,
                                               **common)
        else:
            result = annular_sampler(model, operator=spec.operator, prior=prior if spec.prior == "lbp" else None,
                                     n_iterations=n, seed=seed_of_chain, rao_blackwell=True, **common)
        for same in specs:  # every requested estimator of this chain (an annular sampler and its + RB version)
            if same.chain == spec.chain:
                if same.estimator == "rao_blackwell":
                    out[same.name] = _estimate(result, result.node_marginals, result.edge_tables, result.log_ratio)
                else:
                    out[same.name] = _plain(result, delta)
    return {name: out[name] for name in names}
