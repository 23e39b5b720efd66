r"""How close an approximate-MH posterior over Boltzmann weights is, and what decides it (AA Fig. 8, appendix A.4.2).

AA Fig. 8 plots, per inner sampler, the fraction of the posterior samples of the weights that lie within 20% of
the true weights, 'higher curves indicate better performance'. Under the authors' protocol (prior and start centred on
the true weights) every chain starts at the level of its start distribution (:func:`prior_fraction` of the start,
about 0.17 at d = 25) and drifts away from it during the run, the faster the more proposals it accepts; so the
fraction ranks the samplers by how fast their chains leave a start placed on the truth, not by how well their
estimated ratios reproduce the posterior. This module gives what the reader needs to see that (the start level,
the fraction by outer step) and measures what the figure is meant to show by a quantity the
start does not decide: the error of each inner sampler's estimate of ``log Z(W') - log Z(W)`` against the exact ratio
(enumeration of the ``2^d`` states, :func:`dogs.learning.boltzmann_posterior.log_partition_split`, feasible at
d = 25) on the same (W, W') pairs for every sampler, W taken from the chains' second halves and W' a proposal of
the outer chain (:func:`ratio_check`); the samplers are compared by the paired differences of their absolute
errors (:func:`paired_margin`).
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.learning.posterior_accuracy")  # before the imports below: a missing package names its extra

import numpy as np
import pandas as pd
from scipy.special import erf, ndtr

from dogs.learning.boltzmann_posterior import estimate_log_ratios, log_partition_split

__all__ = [
    "close_to_truth",
    "fraction_by_step",
    "fraction_margin",
    "paired_margin",
    "posterior_moments",
    "prior_fraction",
    "ratio_check",
    "within_fractions",
]


def close_to_truth(weights, truth, within: float) -> np.ndarray:
    """``(chains, steps, weights)`` booleans: the sample of ``W_ij`` within ``within`` of the true weight."""
    truth = np.asarray(truth)
    return np.abs(np.asarray(weights) - truth) <= within * np.abs(truth)


def prior_fraction(truth, mean: str, variance: float, within: float) -> float:
    """The fraction within ``within`` of the true weights expected under ``N(mean, variance I)`` (``mean``: ``truth``
    or ``zero``), averaged over the weights: for the prior, the level a sampler reaches when the data carry no
    information; for the chains' start, the level every chain starts at."""
    w = np.abs(np.asarray(truth, dtype=np.float64))
    sd = np.sqrt(variance)
    if mean == "truth":
        return float(np.mean(erf(within * w / (sd * np.sqrt(2.0)))))
    return float(np.mean(ndtr((1.0 + within) * w / sd) - ndtr((1.0 - within) * w / sd)))  # ndtr: the normal cdf


def fraction_by_step(weights, truth, within: float) -> np.ndarray:
    """The fraction of the weights within ``within`` of the truth after each outer step, averaged over the chains."""
    return close_to_truth(weights, truth, within).mean(axis=(0, 2))


def fraction_margin(per_chain: dict, pairs, rng, resamples: int = 10000, level: float = 0.95) -> dict:
    """The ratio of the mean fractions of each pair ``(a, b)`` of keys of ``per_chain`` (``{key: fraction of each
    chain}``), with bootstrap intervals (chains resampled independently per key) at the simultaneous ``level``
    (Bonferroni over the pairs). ``margin``: the smallest ratio; ``margin_low`` / ``margin_high``: the smallest lower /
    upper interval end over the pairs (``margin_low > 1``: every pair is above 1; ``margin_high < 1``: some pair is
    below 1)."""
    boot = {key: values[rng.integers(len(values), size=(resamples, len(values)))].mean(axis=1)
            for key, values in per_chain.items()}
    tail = 100 * (1 - level) / (2 * len(pairs))
    points, lows, highs = [], [], []
    with np.errstate(divide="ignore", invalid="ignore"):
        for a, b in pairs:
            points.append(per_chain[a].mean() / per_chain[b].mean())
            low, high = np.nanpercentile(boot[a] / boot[b], [tail, 100 - tail])
            lows.append(low)
            highs.append(high)
    return {"margin": float(min(points)), "margin_low": float(min(lows)), "margin_high": float(min(highs))}


def ratio_check(sources: dict, samplers: dict, *, d: int, states: int, proposal_variance: float, inner_samples: int,
                travel_time_periods: float, model_form: str, seed: np.random.SeedSequence) -> pd.DataFrame:
    """Each inner sampler's estimate of ``log Z(W') - log Z(W)`` against the exact ratio on ``states`` pairs.

    ``sources``: ``{sampler: weights (chains, steps, m)}``, the chains whose states are checked; pair ``k`` takes W
    from source ``k mod len(sources)`` (sources in name order) at a random chain and a random step of the second half,
    and W' = W + ``N(0, proposal_variance I)``, the outer chain's proposal. ``samplers``: ``{name: inner sampler of
    dogs.samplers.log_ratio}``, each run on every pair at the budget ``inner_samples`` (each from its own seed).
    Returns one row per (pair, sampler): pair, source, chain, step, sampler, exact, estimated, abs_error."""
    if states < 2:
        raise ValueError(f"the ratio check needs at least 2 pairs, got {states}")
    pick_seed, *sampler_seeds = seed.spawn(1 + len(samplers))
    rng = np.random.default_rng(pick_seed)
    names = sorted(sources)
    picks = []
    for k in range(states):
        source = names[k % len(names)]
        chains, steps = sources[source].shape[:2]
        picks.append((source, int(rng.integers(chains)), int(rng.integers(steps // 2, steps))))
    weights = np.array([sources[s][c, t] for s, c, t in picks], dtype=np.float64)
    proposals = weights + np.sqrt(proposal_variance) * rng.standard_normal(weights.shape)
    exact = np.array([log_partition_split(p, d, model_form) - log_partition_split(w, d, model_form)
                      for w, p in zip(weights, proposals)])
    rows = []
    for (name, inner), child in zip(samplers.items(), sampler_seeds):
        estimated = estimate_log_ratios(weights, proposals, d=d, sampler=inner, inner_samples=inner_samples,
                                        travel_time_periods=travel_time_periods, seed=child, model_form=model_form)
        rows += [(k, s, c, t, name, exact[k], estimated[k], abs(estimated[k] - exact[k]))
                 for k, (s, c, t) in enumerate(picks)]
    return pd.DataFrame(rows, columns=["pair", "source", "chain", "step", "sampler", "exact", "estimated", "abs_error"])


def paired_margin(check: pd.DataFrame, better, worse) -> dict:
    """How much smaller the absolute ratio errors of the samplers ``better`` are than those of ``worse`` on the same
    pairs: per (a in better, b in worse) the mean over pairs of ``|error_b| - |error_a|`` over its standard error
    (s.d. of the paired differences / sqrt(pairs)); ``margin_se``: the smallest over the (a, b); ``mean_abs_error``:
    per sampler. NaN with fewer than 2 pairs."""
    errors = check.pivot_table(index="pair", columns="sampler", values="abs_error")
    margins = {}
    for a in better:
        for b in worse:
            diff = (errors[b] - errors[a]).to_numpy()
            se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
            margins[f"{a} vs {b}"] = float(diff.mean() / se) if se > 0 else float("nan")
    return {"margin_se": float(min(margins.values())) if margins else float("nan"), "by_pair": margins,
            "mean_abs_error": {k: float(v) for k, v in errors.mean().items()}, "pairs": int(len(errors))}


def within_fractions(chains: dict, within: float, names: dict) -> pd.DataFrame:
    """Per variant, data set with true weights, sampler (``names[sampler]``) and weight of the runs ``chains``
    (``{(variant, data set, sampler): arrays}``): the fraction of samples within ``within`` of the truth (all chains
    and steps; AA Fig. 8's statistic, divided by the number of samples)."""
    rows = []
    for (variant, dataset, sampler), c in chains.items():
        if "W_true" not in c:
            continue
        truth = c["W_true"]
        fractions = close_to_truth(c["weights"], truth, within).reshape(-1, truth.size).mean(axis=0)
        rows += [(variant, dataset, names[sampler], k, float(truth[k]), float(f)) for k, f in enumerate(fractions)]
    return pd.DataFrame(rows, columns=["variant", "dataset", "sampler", "weight", "true_value", "fraction_within"])


def posterior_moments(chains: dict, names: dict) -> pd.DataFrame:
    """Per variant, data set, sampler (``names[sampler]``) and weight: mean and s.d. of the second halves of all chains
    pooled (AA Fig. 7)."""
    rows = []
    for (variant, dataset, sampler), c in chains.items():
        w = c["weights"][:, c["weights"].shape[1] // 2:].reshape(-1, c["weights"].shape[2])
        rows += [(variant, dataset, names[sampler], k, float(w[:, k].mean()), float(w[:, k].std(ddof=1)))
                 for k in range(w.shape[1])]
    return pd.DataFrame(rows, columns=["variant", "dataset", "sampler", "weight", "mean", "sd"])
