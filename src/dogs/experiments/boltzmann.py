r"""Boltzmann-machine posteriors with estimated partition-function ratios (AA §3.2, appendix A.4, Figs. 6-8).

Approximate Metropolis-Hastings over the weights of a fully connected Boltzmann machine with zero biases
(:func:`dogs.learning.boltzmann_posterior.approximate_mh`): proposal ``N(W, proposal_variance I)``, prior
``N(0, prior_variance I)``, and the ratio ``Z(W')/Z(W)`` of every proposal estimated from ``F`` inner samples of
HMC, CMH, AAS + RB or AAG + RB at the paper's equal-cost budget (AA eq. 5); the chain with the exact ratio
(enumeration) runs beside them where ``2^d`` states can be enumerated.

Datasets (``config``): ``heart`` (the heart-disease table, 1841 people, 6 risk factors: Fig. 6 left, Fig. 7),
``synthetic10`` (d = 10, ``W_ij ~ N(0, 1)``, ``b_i ~ U[-0.1, 0.1]``, exact samples by enumeration: Fig. 6 right)
and ``synthetic25`` / ``synthetic50`` (data from independent exact-HMC chains: Fig. 8). Error of a chain: the mean
over its steps of ``|log Z(W')/Z(W) - estimate|`` (needs the exact ratio: d <= 10). Fig. 8: the fraction of
posterior samples of each weight within ``within`` (20%) of its true value.

Steps (``python -m dogs.experiments.boltzmann <step> ...``, see :mod:`dogs.experiments._cli`):

``compute-data``    wildcard ``bm_dataset``; output data (npz: y, statistic, d, N, W_true, b_true)
``compute-chains``  wildcard ``bm_dataset``; input data; outputs ``chains_<sampler>`` (npz), one per inner sampler
                    (the exact chain only when d <= 10)
``summarise``       inputs chains (every dataset and sampler); outputs errors (csv), fractions (csv), claims
``plot-fig6``, ``plot-fig7``, ``plot-fig8``
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import pandas as pd

from dogs.claims import measured
from dogs.data import load_heart_disease, require_dataset
from dogs.experiments._cli import Experiment, SettingsError
from dogs.io import write_csv, write_meta, write_npz
from dogs.learning.boltzmann_posterior import MAX_ENUMERATION_UNITS, approximate_mh, pair_statistics
from dogs.models.boltzmann import boltzmann_to_spin, spin_to_zero_one
from dogs.samplers.exact_hmc import exact_hmc
from dogs.seeds import seed_record, seed_sequence

FAMILY = "boltzmann"
#: The data sets behind each figure (config keys of boltzmann.datasets).
FIG6_DATASETS = ("heart", "synthetic10")
FIG8_DATASETS = ("synthetic25", "synthetic50")
#: Exact log partition-function ratios (enumeration, the error metric of Fig. 6 and the exact chain) up to this d.
ERROR_UNITS = 10
#: Path-friendly names of the inner samplers and their names in :data:`dogs.samplers.suite.AA_SAMPLERS`.
SAMPLERS = {"exact": "exact", "hmc": "HMC", "cmh": "CMH", "aas_rb": "AAS + RB", "aag_rb": "AAG + RB"}
ANNULAR = ("aas_rb", "aag_rb")


def check_settings(settings: dict) -> None:
    for name, spec in settings["datasets"].items():
        if spec["source"] == "synthetic":
            missing = [k for k in ("units", "data_points") if k not in spec]
            if missing:
                raise SettingsError(f"config key boltzmann.datasets.{name}: a synthetic data set needs {missing}")
            if spec["units"] > MAX_ENUMERATION_UNITS and "data_sweeps" not in spec:
                raise SettingsError(f"config key boltzmann.datasets.{name}: {spec['units']} units cannot be sampled "
                                    "exactly; give data_sweeps (exact-HMC trajectories per data point)")


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings)


def dataset_settings(settings: dict, name: str) -> dict:
    if name not in settings["datasets"]:
        raise SettingsError(f"wildcard bm_dataset={name!r} is not in config key boltzmann.datasets")
    return settings["datasets"][name]


def synthetic_data(units: int, points: int, bias_range: float, sweeps: int | None, seed: np.random.SeedSequence):
    """``(y, W_true, b_true)``: ``W_ij ~ N(0, 1)``, ``b_i ~ U[-bias_range, bias_range]``, ``points`` {0, 1} samples.

    Exact draws by enumeration when ``2^units`` states can be listed; otherwise the final states of ``points``
    independent exact-HMC chains of ``sweeps`` trajectories (travel time ``1.5 pi``) from uniform random starts.
    """
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.standard_normal((units, units)), 1)
    weights = upper + upper.T
    bias = rng.uniform(-bias_range, bias_range, units)
    if units <= MAX_ENUMERATION_UNITS:
        states = np.array(list(itertools.product((0, 1), repeat=units)), dtype=np.int8)
        energy = pair_statistics(states) @ upper[np.triu_indices(units, 1)] + states @ bias
        probabilities = np.exp(energy - energy.max())
        probabilities /= probabilities.sum()
        y = states[rng.choice(len(states), size=points, p=probabilities)]
    else:
        model, _ = boltzmann_to_spin(weights, bias)
        starts = np.where(rng.random((points, units)) < 0.5, 1, -1)
        children = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1)).spawn(points)
        y = np.stack([spin_to_zero_one(exact_hmc(model, n_samples=sweeps, travel_time=1.5 * np.pi, seed=children[n],
                                                 initial_state=starts[n], edges=np.zeros((0, 2), dtype=np.int64)).state)
                      for n in range(points)])
    return y.astype(np.int8), weights, bias


@EXPERIMENT.step("compute-data")
def compute_data(ctx):
    cfg = ctx.settings
    name = ctx.wildcard("bm_dataset", str)
    spec = dataset_settings(cfg, name)
    path = (FAMILY, name, "data")
    if spec["source"] == "heart_disease":
        y = load_heart_disease(require_dataset("heart_disease"))
        truth = {}
        description = "the heart-disease table (Reinis et al. 1981) as {0, 1} rows; 1 = risk factor present or high"
    else:
        y, weights, bias = synthetic_data(spec["units"], spec["data_points"], cfg["synthetic_bias"],
                                          spec.get("data_sweeps"), seed_sequence(ctx.seed, *path))
        truth = {"W_true": weights[np.triu_indices(spec["units"], 1)], "b_true": bias}
        description = ("synthetic data (AA appendix A.4): exact samples by enumeration" if spec["units"] <= MAX_ENUMERATION_UNITS
                       else f"synthetic data: final states of independent exact-HMC chains of {spec['data_sweeps']} trajectories")
    write_npz(ctx.output("data"), y=y, statistic=pair_statistics(y).sum(axis=0), d=y.shape[1], N=len(y), **truth)
    write_meta(ctx.output("data"), settings=cfg, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
               extra={"dataset": name, "description": description})
    ctx.log.info("%s: %d data points, d = %d", name, len(y), y.shape[1])


def run_chain(cfg: dict, spec: dict, statistic, d: int, n_data: int, sampler: str, child: np.random.SeedSequence):
    """One approximate MH chain of :func:`run_chains` from its own seed ``child`` (start, then chain)."""
    m = d * (d - 1) // 2
    init_seed, chain_seed = child.spawn(2)
    initial = cfg["initial_sd"] * np.random.default_rng(init_seed).standard_normal(m)
    return approximate_mh(statistic, n_data, d=d, sampler=SAMPLERS[sampler], initial=initial,
                          n_steps=cfg["outer_samples"], prior_variance=cfg["prior_variance"],
                          proposal_variance=cfg["proposal_variance"], inner_samples=spec["inner_samples"],
                          travel_time_periods=cfg["travel_time_periods"], seed=chain_seed,
                          exact_ratios=d <= ERROR_UNITS)


def _single_threaded_worker() -> None:
    """Worker processes of :func:`run_chains` run one thread each (numba and BLAS): the processes are the parallelism."""
    import numba
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(1)
    threadpool_limits(limits=1)


@functools.cache
def _worker_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` processes for :func:`run_chains`, started once per process and reused by every later call.

    Started by ``spawn``, not ``fork``: a forked copy of a process whose numba threads are running dies at its
    first parallel kernel (the annular samplers' kernel is one). Starting a worker costs an import of this
    package (about a second), so one pool serves all the inner samplers of a job; it ends with the process.
    """
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_single_threaded_worker)


def run_chains(cfg: dict, spec: dict, statistic, d: int, n_data: int, sampler: str, root: np.random.SeedSequence,
               progress=None, workers: int = 1) -> dict:
    """``spec["chains"]`` independent approximate MH chains with one inner sampler (or the exact ratio).

    Chain ``c`` runs from child ``c`` of ``root`` (:func:`run_chain`) and from nothing else, so its numbers do
    not depend on ``workers``: with ``workers > 1`` the chains are spread over that many single-threaded
    worker processes (:func:`_worker_pool`) and collected in chain order.
    """
    m = d * (d - 1) // 2
    chains, steps = spec["chains"], cfg["outer_samples"]
    out = {"weights": np.empty((chains, steps, m), dtype=np.float32), "estimated": np.empty((chains, steps)),
           "exact": np.empty((chains, steps)), "acceptance": np.empty(chains), "density_evaluations": 0}
    one = functools.partial(run_chain, cfg, spec, statistic, d, n_data, sampler)
    children = root.spawn(chains)
    workers = max(1, min(int(workers), chains))
    if workers == 1:
        results = map(one, children)
    else:  # a few chains per task: little pickling overhead, and the last tasks still balance the workers
        results = _worker_pool(workers).map(one, children, chunksize=max(1, min(8, chains // (32 * workers))))
    try:
        for c, chain in enumerate(results):
            out["weights"][c], out["estimated"][c], out["exact"][c] = chain.weights, chain.estimated, chain.exact
            out["acceptance"][c] = chain.accepted.mean()
            out["density_evaluations"] += chain.density_evaluations
            if progress and (c + 1) % max(1, chains // 10) == 0:
                progress(c + 1, out["acceptance"][: c + 1].mean())
    except BrokenProcessPool:
        _worker_pool.cache_clear()  # a later call starts new workers instead of reusing the broken pool
        raise
    return out


@EXPERIMENT.step("compute-chains")
def compute_chains(ctx):
    """Every inner sampler of the rule's outputs ``chains_<sampler>`` on one data set, one after the other."""
    cfg = ctx.settings
    name = ctx.wildcard("bm_dataset", str)
    spec = dataset_settings(cfg, name)
    with np.load(ctx.input("data")) as data:
        statistic, d, n_data = data["statistic"], int(data["d"]), int(data["N"])
        truth = {"W_true": data["W_true"]} if "W_true" in data.files else {}
    samplers = [s for s in cfg["samplers"] if s != "exact" or d <= ERROR_UNITS]
    total = len(samplers) * spec["chains"]
    for k, sampler in enumerate(samplers):
        path = (FAMILY, name, "chains", sampler)

        def progress(done, acceptance, k=k, sampler=sampler):
            finished = k * spec["chains"] + done
            left = ctx.elapsed() / finished * (total - finished)
            ctx.log.info("%s / %s: chain %d/%d, acceptance %.2f; about %.0f s left", name, sampler, done,
                         spec["chains"], acceptance, left)

        out = run_chains(cfg, spec, statistic, d, n_data, sampler, seed_sequence(ctx.seed, *path), progress,
                         workers=ctx.threads)
        target = ctx.output(f"chains_{sampler}")
        write_npz(target, dataset=name, sampler=sampler, **out, **truth)
        write_meta(target, settings=cfg, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
                   extra={"dataset": name, "sampler": SAMPLERS[sampler],
                          "description": "weights[c, k] = W (upper triangle, float32) after outer step k of chain c; "
                                         "estimated / exact = log Z(W') - log Z(W) of step k's proposal (exact: NaN "
                                         "when 2^d states are not enumerated)"})


# ---------------------------------------------------------------- summaries
def chain_errors(chains: dict) -> pd.DataFrame:
    """Per dataset, sampler and chain: the mean over steps of |exact - estimated| log ratio (AA Fig. 6)."""
    rows = []
    for (dataset, sampler), c in chains.items():
        if sampler == "exact" or not np.all(np.isfinite(c["exact"])):
            continue
        errors = np.abs(c["exact"] - c["estimated"]).mean(axis=1)
        rows += [(dataset, SAMPLERS[sampler], k, float(e)) for k, e in enumerate(errors)]
    return pd.DataFrame(rows, columns=["dataset", "sampler", "chain", "mean_abs_error"])


def within_fractions(chains: dict, within: float) -> pd.DataFrame:
    """Per dataset with true weights, sampler and weight: the fraction of samples within ``within`` of the truth."""
    rows = []
    for (dataset, sampler), c in chains.items():
        if "W_true" not in c:
            continue
        truth = c["W_true"]
        close = np.abs(c["weights"] - truth) <= within * np.abs(truth)
        fractions = close.reshape(-1, truth.size).mean(axis=0)
        rows += [(dataset, SAMPLERS[sampler], k, float(truth[k]), float(f)) for k, f in enumerate(fractions)]
    return pd.DataFrame(rows, columns=["dataset", "sampler", "weight", "true_value", "fraction_within"])


def posterior_shift(chains: dict, dataset: str, sampler: str) -> float:
    """Largest over weights of |posterior mean - exact chain's mean| / pooled s.e. of the difference (second halves)."""
    a, b = chains[(dataset, sampler)]["weights"], chains[(dataset, "exact")]["weights"]
    half = a.shape[1] // 2
    per_chain_a, per_chain_b = a[:, half:].mean(axis=1), b[:, half:].mean(axis=1)  # chain means: independent
    se = np.sqrt(per_chain_a.var(axis=0, ddof=1) / len(a) + per_chain_b.var(axis=0, ddof=1) / len(b))
    return float(np.max(np.abs(per_chain_a.mean(axis=0) - per_chain_b.mean(axis=0)) / se))


def _better(errors: pd.DataFrame, dataset: str, a: str, b: str) -> float:
    """(mean error of b - mean error of a) / s.e. of the difference: > 2 means a is better by 2 s.e."""
    x = errors[(errors["dataset"] == dataset) & (errors["sampler"] == a)]["mean_abs_error"]
    y = errors[(errors["dataset"] == dataset) & (errors["sampler"] == b)]["mean_abs_error"]
    return float((y.mean() - x.mean()) / np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y)))


def build_claims(errors: pd.DataFrame, fractions: pd.DataFrame, chains: dict) -> dict:
    claims = {}
    means = errors.groupby(["dataset", "sampler"])["mean_abs_error"].agg(["mean", "std"])
    heart = "heart"

    def text(dataset):
        rows = means.loc[dataset]
        return "; ".join(f"{name} {r['mean']:.4f} ± {r['std']:.4f}" for name, r in rows.iterrows())

    if heart in set(errors["dataset"]):
        vs_cmh = min(_better(errors, heart, a, "CMH") for a in ("AAS + RB", "AAG + RB"))
        vs_hmc = max(abs(means.loc[(heart, a), "mean"] / means.loc[(heart, "HMC"), "mean"] - 1.0)
                     for a in ("AAS + RB", "AAG + RB"))
        claims["aa_fig6_heart_annular_vs_cmh_hmc"] = measured(
            f"mean over chains of the mean |log ratio error| (± s.d.): {text(heart)}",
            {"beats_cmh_by_se": vs_cmh, "relative_gap_to_hmc": vs_hmc})
        claims["aa_fig7_cmh_shifts_posterior"] = measured(
            "largest |posterior mean - exact chain's| / s.e. over the 15 weights: "
            + ", ".join(f"{SAMPLERS[s]} {posterior_shift(chains, heart, s):.1f}" for s in ("cmh", "aas_rb", "aag_rb", "hmc")
                        if (heart, s) in chains),
            {"cmh_shift": posterior_shift(chains, heart, "cmh"),
             "annular_shift": max(posterior_shift(chains, heart, s) for s in ANNULAR)})
    synthetic = FIG6_DATASETS[1]
    if synthetic in set(errors["dataset"]):
        margin = min(_better(errors, synthetic, a, b) for a in ("AAS + RB", "AAG + RB") for b in ("HMC", "CMH"))
        claims["aa_fig6_synthetic_annular_best"] = measured(
            f"{synthetic}: mean |log ratio error| (± s.d.): {text(synthetic)}", margin)
    fractions = fractions[fractions["dataset"].isin(FIG8_DATASETS)]
    if not fractions.empty:
        summary = fractions.groupby(["dataset", "sampler"])["fraction_within"].mean()
        parts, margins = [], []
        for dataset in sorted(set(fractions["dataset"])):
            rows = summary.loc[dataset]
            parts.append(f"{dataset}: " + ", ".join(f"{n} {v:.3f}" for n, v in rows.items()))
            margins.append(min(rows[a] for a in ("AAS + RB", "AAG + RB")) / max(rows[b] for b in ("HMC", "CMH")))
        claims["aa_fig8_fraction_within"] = measured(
            "mean over weights of the fraction of posterior samples within 20% of the true weight: " + "; ".join(parts),
            float(min(margins)))
    return claims


def _load_chains(paths) -> dict:
    out = {}
    for path in paths:
        with np.load(path) as c:
            dataset, sampler = str(c["dataset"]), str(c["sampler"])
            out[(dataset, sampler)] = {k: c[k] for k in c.files}
    return out


@EXPERIMENT.step("summarise")
def summarise(ctx):
    cfg = ctx.settings
    chains = _load_chains(ctx.inputs("chains"))
    errors = chain_errors(chains)
    fractions = within_fractions(chains, cfg["within"])
    write_csv(errors, ctx.output("errors"))
    write_meta(ctx.output("errors"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "per dataset, inner sampler and chain: the mean over the chain's outer steps of "
                                     "|exact log Z(W')/Z(W) - estimate| (AA Fig. 6)"})
    write_csv(fractions, ctx.output("fractions"))
    write_meta(ctx.output("fractions"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": f"fraction of posterior samples (all chains and steps) within {cfg['within']:.0%} "
                                     "of each true weight (AA Fig. 8)"})
    ctx.write_claims(build_claims(errors, fractions, chains))


@EXPERIMENT.step("plot-fig6")
def plot_fig6(ctx):
    from dogs.plotting.boltzmann import figure6

    figure6(pd.read_csv(ctx.input("errors")), ctx.output("figure"))


@EXPERIMENT.step("plot-fig7")
def plot_fig7(ctx):
    from dogs.plotting.boltzmann import figure7

    figure7(_load_chains(ctx.inputs("chains")), "heart", ctx.output("figure"))


@EXPERIMENT.step("plot-fig8")
def plot_fig8(ctx):
    from dogs.plotting.boltzmann import figure8

    figure8(pd.read_csv(ctx.input("fractions")), ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
