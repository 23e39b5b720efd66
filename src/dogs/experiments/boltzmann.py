r"""Boltzmann-machine posteriors with estimated partition-function ratios (AA §3.2, appendix A.4, Figs. 6-8).

Approximate Metropolis-Hastings over the weights of a fully connected Boltzmann machine with zero biases
(:func:`dogs.learning.boltzmann_posterior.approximate_mh`): proposal ``N(W, proposal_variance I)``, the prior and the
chains' start per data set (``prior`` and ``start`` of each data set: mean ``zero`` or ``truth``, a variance), and the
ratio ``Z(W')/Z(W)`` of every proposal estimated from ``F`` inner samples of HMC, CMH, AAS + RB or AAG + RB at the
paper's equal-cost budget (AA eq. 5); the chain with the exact ratio (enumeration) runs beside them where ``2^d``
states can be enumerated. ``model_form`` chooses the {0, 1} form of the paper's text or the ±1 zero-field form of
the authors' code; ``inner_start`` restarts each inner run from random signs (the authors' code) or keeps its state.

Our "AAG + RB" is the annular chain with the Gibbs operator, Rao-Blackwellised; the authors' code ran the Suwa-Todo
chain under that name in these experiments (``InnerMCMC.m`` calls ``AAG_RB_data``, which uses the Suwa-Todo
operator with Gibbs-weight RB). Our AAST is in the Ising experiment.

Datasets (``config``): ``heart`` (the heart-disease table, 1841 people, 6 risk factors: Fig. 6 left, Fig. 7),
``synthetic10`` (d = 10, ``W_ij ~ N(0, 1)``, ``b_i ~ U[-0.1, 0.1]``, exact samples by enumeration: Fig. 6 right)
and ``synthetic25`` / ``synthetic50`` (data from independent exact-HMC chains: Fig. 8). Error of a chain: the mean
over its steps of ``|log Z(W')/Z(W) - estimate|`` (needs the exact ratio: d <= 10). Fig. 8: the fraction of
posterior samples of each weight within ``within`` (20%) of its true value.

Variants (``variants``): extra runs of some data sets with some settings changed, each in its own folder: the
sensitivity of a verdict to a choice (our earlier prior and start, a persistent inner chain), and the diagnostics
of the authors' code (``cmh_ratio: authors``, B1: CMH's ratio divided by F instead of L; runs at other F, B2: the
error measured against the exact ratios of a *different* chain, as the authors' Fig. 6 did). A variant whose only
changes are ``chains``, ``inner_samples`` or ``samplers`` runs the main protocol (it enters the B2 series).

Steps (``python -m dogs.experiments.boltzmann <step> ...``, see :mod:`dogs.workflow.shell`):

``compute-data``    wildcard ``bm_dataset``; output data (npz: y, statistic, d, N, W_true, b_true)
``compute-chains``  wildcard ``bm_dataset``; input data; outputs ``chains_<sampler>`` (npz), one per inner sampler
                    (the exact chain only when d <= 10)
``compute-variant`` wildcards ``bm_dataset``, ``bm_variant``; input data; output chains (a folder of
                    ``posterior_<sampler>.npz``, one per inner sampler of the variant)
``summarise``       inputs chains and variant_chains (folders); outputs errors (csv, per variant, data set, sampler and chain:
                    error, cross-chain error, acceptance), fractions (csv), posterior (csv), claims
``plot-fig6``, ``plot-fig7``, ``plot-fig8``, ``plot-errata`` (B1 and B2)
"""

from __future__ import annotations

import functools
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dogs.claims import measured
from dogs.data import load_heart_disease, require_dataset
from dogs.experiments.common import discard_worker_pool, shutdown_workers, worker_pool
from dogs.io import write_csv, write_meta, write_npz
from dogs.learning import posterior_accuracy as accuracy
from dogs.learning.boltzmann_posterior import (
    MAX_ENUMERATION_UNITS,
    MAX_SPLIT_ENUMERATION_UNITS,
    approximate_mh,
    authors_cmh_offset,
    form_statistic,
    synthetic_data,
)
from dogs.seeds import seed_record, seed_sequence
from dogs.workflow.cost import Work
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "boltzmann"
#: The data sets behind each figure (config keys of boltzmann.datasets).
FIG6_DATASETS = ("heart", "synthetic10")
FIG8_DATASETS = ("synthetic25", "synthetic50")
#: Exact log partition-function ratios (enumeration, the error metric of Fig. 6 and the exact chain) up to this d.
ERROR_UNITS = 10
#: Path-friendly names of the inner samplers and their names in :data:`dogs.samplers.suite.AA_SAMPLERS`.
SAMPLERS = {"exact": "exact", "hmc": "HMC", "cmh": "CMH", "aas_rb": "AAS + RB", "aag_rb": "AAG + RB"}
ANNULAR = ("aas_rb", "aag_rb")
MAIN = "main"
#: The data sets of Fig. 8 (synthetic, d = 25 and 50 in the paper).
FIG8_DATASETS = ("synthetic25", "synthetic50")
#: Keys of a variant that keep the main protocol (its runs enter the B2 series over F).
PROTOCOL_KEEPING = {"datasets", "chains", "inner_samples", "samplers"}


def dataset_units(spec: dict) -> int:
    """Units d of a data set's Boltzmann machine (6 for the heart-disease table)."""
    return 6 if spec["source"] == "heart_disease" else spec["units"]


def check_settings(settings: dict) -> None:
    check = settings["fig8_ratio_check"]["dataset"]
    if check in settings["datasets"] and settings["datasets"][check]["source"] != "synthetic":
        raise SettingsError(f"config key boltzmann.fig8_ratio_check.dataset: {check!r} is not a synthetic data set "
                            "(Fig. 8's data sets have true weights)")
    for name, spec in settings["datasets"].items():
        if spec["source"] == "synthetic":
            missing = [k for k in ("units", "data_points") if k not in spec]
            if missing:
                raise SettingsError(f"config key boltzmann.datasets.{name}: a synthetic data set needs {missing}")
            if spec["units"] > MAX_ENUMERATION_UNITS and "data_sweeps" not in spec:
                raise SettingsError(f"config key boltzmann.datasets.{name}: {spec['units']} units cannot be sampled "
                                    "exactly; give data_sweeps (exact-HMC trajectories per data point)")
        else:
            for key in ("prior", "start"):
                if spec[key]["mean"] == "truth":
                    raise SettingsError(f"config key boltzmann.datasets.{name}.{key}.mean: the heart data have no true "
                                        "weights to centre on; use zero")
    for variant, spec in (settings.get("variants") or {}).items():
        if variant == MAIN:
            raise SettingsError(f"config key boltzmann.variants.{MAIN}: the name is reserved for the main runs")
        for dataset in spec["datasets"]:
            if dataset not in settings["datasets"]:
                raise SettingsError(f"config key boltzmann.variants.{variant}.datasets: {dataset!r} is not a data set")
            for key in ("prior", "start"):
                if key in spec and spec[key]["mean"] == "truth" and settings["datasets"][dataset]["source"] != "synthetic":
                    raise SettingsError(f"config key boltzmann.variants.{variant}.{key}.mean: data set {dataset!r} has "
                                        "no true weights to centre on")
        if spec.get("cmh_ratio") == "authors" and "cmh" not in spec.get("samplers", settings["samplers"]):
            raise SettingsError(f"config key boltzmann.variants.{variant}.cmh_ratio: the variant runs no CMH chain")


def _boltzmann_job(s: dict, spec: dict, d: int) -> float:
    """Bytes of one Boltzmann chains job: the weights of every chain, the data, the inner samples, log Z tables."""
    return (spec["chains"] * d * d * 16 + spec.get("data_points", 2000) * d * 8
            + s["outer_samples"] * d * d * 8 * len(s["samplers"])
            + spec["inner_samples"] * 64 * d * 8
            + (8.0 * 2 ** min(d, 1000) if d <= 30 else 0.0))  # log Z by enumeration


def _variant_runs(s: dict):
    """``(variant, data set, the data set's settings with the variant's counts, units)`` of every variant run."""
    for variant, change in (s.get("variants") or {}).items():
        for name in change["datasets"]:
            spec = s["datasets"].get(name)
            if spec is None:
                continue
            merged = {**spec, "chains": change.get("chains", spec["chains"]),
                      "inner_samples": change.get("inner_samples", spec["inner_samples"])}
            yield variant, name, merged, spec.get("units", 6)


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    out = {}
    for name, spec in s["datasets"].items():
        out[f"boltzmann.datasets.{name}"] = _boltzmann_job(s, spec, spec.get("units", 6))
    for variant, name, spec, d in _variant_runs(s):
        out[f"boltzmann.variants.{variant}"] = max(out.get(f"boltzmann.variants.{variant}", 0.0),
                                                   _boltzmann_job(s, spec, d))
    return out


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    out = []
    for name, spec in s["datasets"].items():
        d = spec.get("units", 6)
        exact = 2.0 ** d if d <= 10 else 0.0  # the exact ratio by enumeration, at every outer step
        data = spec.get("data_points", 2000) * (spec.get("data_sweeps", 1) * d * d + exact)
        out.append(Work("boltzmann_compute_data", {f"boltzmann.datasets.{name}.data_points": data}))
        out.append(Work("boltzmann_compute_chains" if d <= 10 else "boltzmann_compute_chains_large", {
            "boltzmann.samplers": len(s["samplers"]), f"boltzmann.datasets.{name}.chains": spec["chains"],
            "boltzmann.outer_samples": s["outer_samples"],
            f"boltzmann.datasets.{name}.inner_samples": spec["inner_samples"] + exact,
            "boltzmann.travel_time_periods": s["travel_time_periods"], f"boltzmann.datasets.{name}.units": d * d},
            benchmark_names=(f"boltzmann_compute_chains_{name}",)))  # both chain rules write this name
    # a variant job runs the same chains (boltzmann_compute_variant): counted at the rate of the chains of its d
    for variant, name, spec, d in _variant_runs(s):
        change = s["variants"][variant]
        exact = 2.0 ** d if d <= 10 else 0.0
        out.append(Work("boltzmann_compute_chains" if d <= 10 else "boltzmann_compute_chains_large", {
            "boltzmann.samplers": len(change.get("samplers", s["samplers"])),
            f"boltzmann.variants.{variant}.chains": spec["chains"], "boltzmann.outer_samples": s["outer_samples"],
            f"boltzmann.variants.{variant}.inner_samples": spec["inner_samples"] + exact,
            "boltzmann.travel_time_periods": s["travel_time_periods"], f"boltzmann.datasets.{name}.units": d * d},
            benchmark_names=(f"boltzmann_compute_variant_{variant}_{name}",)))
    return out


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def dataset_settings(settings: dict, name: str) -> dict:
    if name not in settings["datasets"]:
        raise SettingsError(f"wildcard bm_dataset={name!r} is not in config key boltzmann.datasets")
    return settings["datasets"][name]


def variant_settings(settings: dict, variant: str, name: str) -> dict:
    """The data set's settings with the variant's changes (``chains``, ``inner_samples``, ``prior``, ``start``,
    ``inner_start``, ``cmh_ratio``) applied; ``samplers`` the variant's inner samplers."""
    spec = dataset_settings(settings, name)
    variants = settings.get("variants") or {}
    if variant not in variants:
        raise SettingsError(f"wildcard bm_variant={variant!r} is not in config key boltzmann.variants")
    change = variants[variant]
    if name not in change["datasets"]:
        raise SettingsError(f"variant {variant!r} does not run data set {name!r} (config key "
                            f"boltzmann.variants.{variant}.datasets)")
    return {**spec, **{k: v for k, v in change.items() if k != "datasets"},
            "samplers": change.get("samplers", settings["samplers"])}


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
                                          spec.get("data_sweeps"), seed_sequence(ctx.seed, *path), cfg["model_form"])
        truth = {"W_true": weights[np.triu_indices(spec["units"], 1)], "b_true": bias}
        description = ("synthetic data (AA appendix A.4): exact samples by enumeration" if spec["units"] <= MAX_ENUMERATION_UNITS
                       else f"synthetic data: final states of independent exact-HMC chains of {spec['data_sweeps']} trajectories")
        description += f", {cfg['model_form']} form"
    write_npz(ctx.output("data"), y=y, statistic=form_statistic(y, cfg["model_form"]), d=y.shape[1], N=len(y),
              model_form=cfg["model_form"], **truth)
    write_meta(ctx.output("data"), settings=cfg, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
               extra={"dataset": name, "description": description + "; statistic: sum of phi(x) in the model's form"})
    ctx.log.info("%s: %d data points, d = %d", name, len(y), y.shape[1])


@dataclass(frozen=True)
class ChainProtocol:
    """How the chains of one run start and what they target besides the data: ``initial(seed)`` draws a chain's
    starting weights; ``options`` are the keyword arguments of :func:`approximate_mh` that the protocol sets."""

    start_mean: np.ndarray
    start_sd: float
    options: dict

    def initial(self, seed) -> np.ndarray:
        return self.start_mean + self.start_sd * np.random.default_rng(seed).standard_normal(self.start_mean.size)


def chain_protocol(cfg: dict, spec: dict, d: int, sampler: str, truth=None) -> ChainProtocol:
    """The prior ``N(mu, v I)`` and start ``N(mu0, v0 I)`` of ``spec`` (mean ``zero`` or ``truth``), the inner start,
    the model form, and for CMH the ratio offset of the authors' normalisation when ``spec["cmh_ratio"] == "authors"``
    (a diagnostic)."""
    m = d * (d - 1) // 2

    def mean(which):
        if spec[which]["mean"] == "zero":
            return np.zeros(m)
        if truth is None:
            raise SettingsError(f"{which} centred on the truth needs true weights (synthetic data)")
        return np.asarray(truth, dtype=np.float64)

    offset = (authors_cmh_offset(d, spec["inner_samples"], cfg["travel_time_periods"])
              if sampler == "cmh" and spec.get("cmh_ratio", "correct") == "authors" else 0.0)
    options = {"prior_mean": mean("prior"), "prior_variance": float(spec["prior"]["variance"]),
               "inner_start": spec.get("inner_start", cfg["inner_start"]), "model_form": cfg["model_form"],
               "ratio_offset": offset}
    return ChainProtocol(mean("start"), float(np.sqrt(spec["start"]["variance"])), options)


def run_chain(cfg: dict, spec: dict, statistic, d: int, n_data: int, sampler: str, protocol: ChainProtocol,
              child: np.random.SeedSequence):
    """One approximate MH chain of :func:`run_chains` from its own seed ``child`` (start, then chain)."""
    init_seed, chain_seed = child.spawn(2)
    return approximate_mh(statistic, n_data, d=d, sampler=SAMPLERS[sampler], initial=protocol.initial(init_seed),
                          n_steps=cfg["outer_samples"], proposal_variance=cfg["proposal_variance"],
                          inner_samples=spec["inner_samples"], travel_time_periods=cfg["travel_time_periods"],
                          seed=chain_seed, exact_ratios=d <= ERROR_UNITS, **protocol.options)


def run_chains(cfg: dict, spec: dict, statistic, d: int, n_data: int, sampler: str, root: np.random.SeedSequence,
               progress=None, truth=None, workers: int = 1) -> dict:
    """``spec["chains"]`` independent approximate MH chains with one inner sampler (or the exact ratio); prior, start
    and inner options from :func:`chain_protocol` (``truth``: the true weights, for a prior or start centred on them).

    Chain ``c`` runs from child ``c`` of ``root`` (:func:`run_chain`) and from nothing else, so its numbers do
    not depend on ``workers``: with ``workers > 1`` the chains are spread over that many single-threaded
    worker processes (:func:`dogs.experiments.common.worker_pool`) and collected in chain order.
    """
    m = d * (d - 1) // 2
    chains, steps = spec["chains"], cfg["outer_samples"]
    protocol = chain_protocol(cfg, spec, d, sampler, truth)
    out = {"weights": np.empty((chains, steps, m), dtype=np.float32), "estimated": np.empty((chains, steps)),
           "exact": np.empty((chains, steps)), "acceptance": np.empty(chains), "density_evaluations": 0}
    one = functools.partial(run_chain, cfg, spec, statistic, d, n_data, sampler, protocol)
    children = root.spawn(chains)
    workers = max(1, min(int(workers), chains))
    if workers == 1:
        results = map(one, children)
    else:  # a few chains per task: little pickling overhead, and the last tasks still balance the workers
        results = worker_pool(workers).map(one, children, chunksize=max(1, min(8, chains // (32 * workers))))
    try:
        for c, chain in enumerate(results):
            out["weights"][c], out["estimated"][c], out["exact"][c] = chain.weights, chain.estimated, chain.exact
            out["acceptance"][c] = chain.accepted.mean()
            out["density_evaluations"] += chain.density_evaluations
            if progress and (c + 1) % max(1, chains // 10) == 0:
                progress(c + 1, out["acceptance"][: c + 1].mean())
    except BrokenProcessPool:
        discard_worker_pool(workers)  # a later call starts new workers instead of reusing the broken pool
        raise
    return out


def _load_data(ctx, form: str):
    """``(statistic in the model's form, d, N, W_true or None)`` of the rule's data input."""
    with np.load(ctx.input("data")) as data:
        stored = str(data["model_form"]) if "model_form" in data.files else "zero_one"
        if stored != form:
            raise SettingsError(f"{ctx.input('data')} was drawn in the {stored} form but boltzmann.model_form is "
                                f"{form}; re-run compute-data")
        truth = data["W_true"] if "W_true" in data.files else None
        return form_statistic(data["y"], form), int(data["d"]), int(data["N"]), truth


def _write_chains(ctx, target, out, name, sampler, variant, spec, path, truth):
    extra = {} if truth is None else {"W_true": truth}
    write_npz(target, dataset=name, sampler=sampler, variant=variant, inner_samples=spec["inner_samples"], **out, **extra)
    write_meta(target, settings=ctx.settings, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
               extra={"dataset": name, "sampler": SAMPLERS[sampler], "variant": variant,
                      "run_settings": {k: v for k, v in spec.items() if k != "samplers"},
                      "description": "weights[c, k] = W (upper triangle, float32) after outer step k of chain c; "
                                     "estimated / exact = log Z(W') - log Z(W) of step k's proposal (exact: NaN "
                                     "when 2^d states are not enumerated)"})


def _run_samplers(ctx, spec: dict, name: str, variant: str, seed_path: tuple, target_of) -> None:
    """Every inner sampler of ``spec["samplers"]`` on data set ``name`` (the exact chain only when d <= 10), one after
    the other: ``spec["chains"]`` chains each from the seed ``seed_path + (sampler,)``, written to ``target_of(sampler)``."""
    cfg = ctx.settings
    statistic, d, n_data, truth = _load_data(ctx, cfg["model_form"])
    samplers = [s for s in spec["samplers"] if s != "exact" or d <= ERROR_UNITS]
    total = len(samplers) * spec["chains"]
    label = name if variant == MAIN else f"{variant} / {name}"
    try:
        for k, sampler in enumerate(samplers):
            path = (*seed_path, sampler)

            def progress(done, acceptance, k=k, sampler=sampler):
                finished = k * spec["chains"] + done
                left = ctx.elapsed() / finished * (total - finished)
                ctx.log.info("%s / %s: chain %d/%d, acceptance %.2f; about %.0f s left", label, sampler, done,
                             spec["chains"], acceptance, left)

            out = run_chains(cfg, spec, statistic, d, n_data, sampler, seed_sequence(ctx.seed, *path), progress,
                             truth=truth, workers=ctx.threads)
            _write_chains(ctx, target_of(sampler), out, name, sampler, variant, spec, path, truth)
    finally:
        shutdown_workers()  # the workers' CPU time then counts in the step's last log line


@EXPERIMENT.step("compute-chains")
def compute_chains(ctx):
    """Every inner sampler of the rule's outputs ``chains_<sampler>`` on one data set, one after the other."""
    name = ctx.wildcard("bm_dataset", str)
    spec = {**dataset_settings(ctx.settings, name), "samplers": ctx.settings["samplers"]}
    _run_samplers(ctx, spec, name, MAIN, (FAMILY, name, "chains"), lambda sampler: ctx.output(f"chains_{sampler}"))


@EXPERIMENT.step("compute-variant")
def compute_variant(ctx):
    """The inner samplers of one variant on one data set (a sensitivity run or a diagnostic of the authors' code),
    one ``posterior_<sampler>.npz`` each in the output folder ``chains``."""
    name, variant = ctx.wildcard("bm_dataset", str), ctx.wildcard("bm_variant", str)
    spec = variant_settings(ctx.settings, variant, name)
    folder = ctx.output("chains")
    folder.mkdir(parents=True, exist_ok=True)
    _run_samplers(ctx, spec, name, variant, (FAMILY, name, "variant", variant),
                  lambda sampler: folder / f"posterior_{sampler}.npz")


# ---------------------------------------------------------------- summaries
def _load_chains(paths) -> dict:
    """``{(variant, dataset, sampler): arrays}`` of chain files (``variant`` is ``main`` for the main runs)."""
    out = {}
    for path in paths:
        with np.load(path) as c:
            variant = str(c["variant"]) if "variant" in c.files else MAIN
            out[(variant, str(c["dataset"]), str(c["sampler"]))] = {k: c[k] for k in c.files}
    return out


def chain_errors(chains: dict) -> pd.DataFrame:
    """Per variant, data set, sampler and chain: the mean over steps of |exact - estimated| log ratio (AA Fig. 6), the
    same against the exact ratios of the exact-ratio chain with the same index (the authors' cross-chain metric, B2),
    and the outer acceptance rate."""
    rows = []
    for (variant, dataset, sampler), c in chains.items():
        own = np.abs(c["exact"] - c["estimated"]).mean(axis=1) if sampler != "exact" else np.full(len(c["exact"]), np.nan)
        reference = chains.get((variant, dataset, "exact"))
        cross = np.full(len(own), np.nan)
        if sampler != "exact" and reference is not None:
            n = min(len(own), len(reference["exact"]))
            cross[:n] = np.abs(reference["exact"][:n] - c["estimated"][:n]).mean(axis=1)
        for k in range(len(own)):
            rows.append((variant, dataset, SAMPLERS[sampler], int(c["inner_samples"]) if "inner_samples" in c else -1,
                         k, float(own[k]), float(cross[k]), float(c["acceptance"][k])))
    return pd.DataFrame(rows, columns=["variant", "dataset", "sampler", "inner_samples", "chain", "mean_abs_error",
                                       "cross_chain_error", "acceptance"])


def posterior_shift(chains: dict, dataset: str, sampler: str, variant: str = MAIN) -> float:
    """Largest over weights of |posterior mean - exact chain's mean| / pooled s.e. of the difference (second halves)."""
    a, b = chains[(variant, dataset, sampler)]["weights"], chains[(MAIN, dataset, "exact")]["weights"]
    half = a.shape[1] // 2
    per_chain_a, per_chain_b = a[:, half:].mean(axis=1), b[:, b.shape[1] // 2:].mean(axis=1)  # chain means: independent
    se = np.sqrt(per_chain_a.var(axis=0, ddof=1) / len(a) + per_chain_b.var(axis=0, ddof=1) / len(b))
    return float(np.max(np.abs(per_chain_a.mean(axis=0) - per_chain_b.mean(axis=0)) / se))


def _better(errors: pd.DataFrame, dataset: str, a: str, b: str, variant: str = MAIN) -> float:
    """(mean error of b - mean error of a) / s.e. of the difference: > 2 means a is better by 2 s.e."""
    rows = errors[(errors["dataset"] == dataset) & (errors["variant"] == variant)]
    x = rows[rows["sampler"] == a]["mean_abs_error"]
    y = rows[rows["sampler"] == b]["mean_abs_error"]
    return float((y.mean() - x.mean()) / np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y)))


def _mean_error(errors: pd.DataFrame, variant: str, dataset: str, sampler: str, column: str = "mean_abs_error") -> float:
    rows = errors[(errors["variant"] == variant) & (errors["dataset"] == dataset) & (errors["sampler"] == sampler)]
    return float(rows[column].mean())


def _error_stats(errors: pd.DataFrame, variant: str, dataset: str) -> dict:
    """``{sampler: {"mean": m, "sd": s}}``: mean and s.d. over chains of the mean |log ratio error| (no exact chain)."""
    rows = errors[(errors["variant"] == variant) & (errors["dataset"] == dataset) & (errors["sampler"] != "exact")]
    stats = rows.groupby("sampler")["mean_abs_error"].agg(["mean", "std"])
    return {name: {"mean": float(r["mean"]), "sd": float(r["std"])} for name, r in stats.iterrows()}


def sensitivity_variants(settings: dict, dataset: str) -> list[str]:
    """The variants that change the protocol (not only chains, F or samplers) and run ``dataset``."""
    return [name for name, spec in (settings.get("variants") or {}).items()
            if dataset in spec["datasets"] and not set(spec) <= PROTOCOL_KEEPING and spec.get("cmh_ratio") != "authors"]


def errata_b1_variants(settings: dict) -> list[str]:
    return [name for name, spec in (settings.get("variants") or {}).items() if spec.get("cmh_ratio") == "authors"]


def errata_b2_runs(settings: dict, dataset: str = "heart") -> list[str]:
    """The main runs and the variants that keep the main protocol on ``dataset`` (the B2 series over F)."""
    return [MAIN] + [name for name, spec in (settings.get("variants") or {}).items()
                     if dataset in spec["datasets"] and set(spec) <= PROTOCOL_KEEPING]


def fraction_margin(chains: dict, datasets, within: float, variant: str, rng) -> dict:
    """Each annular sampler against HMC and CMH on each data set: the ratio of their mean fractions of samples within
    ``within`` of the truth with simultaneous 95% bootstrap intervals (:func:`dogs.learning.posterior_accuracy.
    fraction_margin`), and ``fractions``, the mean per data set and sampler. Empty when a run is missing."""
    keys = [(d, s) for d in datasets for s in ("hmc", "cmh", *ANNULAR)]
    if any((variant, d, s) not in chains for d, s in keys):
        return {}
    per_chain = {(d, s): accuracy.close_to_truth(chains[(variant, d, s)]["weights"], chains[(variant, d, s)]["W_true"],
                                                 within).mean(axis=(1, 2)) for d, s in keys}
    pairs = [((d, a), (d, b)) for d in datasets for a in ANNULAR for b in ("hmc", "cmh")]
    return {**accuracy.fraction_margin(per_chain, pairs, rng),
            "fractions": {f"{d} {SAMPLERS[s]}": float(v.mean()) for (d, s), v in per_chain.items()}}


def fig8_claim(chains: dict, large, settings: dict, seed, check: pd.DataFrame) -> dict:
    """The Fig. 8 row, judged by the paired log-ratio errors of ``check`` (:func:`fig8_ratio_check`); the fractions
    within 20%, their start level, their course over the outer steps (:mod:`dogs.learning.posterior_accuracy`), the
    outer acceptance and the fraction ratios (also of the sensitivity variants) reported beside it."""
    within = settings["within"]
    ratio = accuracy.paired_margin(check, [SAMPLERS[a] for a in ANNULAR], ["HMC", "CMH"])
    main = fraction_margin(chains, large, within, MAIN, np.random.default_rng(seed))
    others = {v: {k: r[k] for k in ("margin", "margin_low", "margin_high")}
              for v in sensitivity_variants(settings, large[0])
              if (r := fraction_margin(chains, large, within, v, np.random.default_rng(seed)))}
    runs = {d: {SAMPLERS[s]: chains[(MAIN, d, s)] for s in ("hmc", "cmh", *ANNULAR)} for d in large}
    level = {key: {d: accuracy.prior_fraction(runs[d]["HMC"]["W_true"], settings["datasets"][d][key]["mean"],
                                              settings["datasets"][d][key]["variance"], within) for d in large}
             for key in ("start", "prior")}
    steps = runs[large[0]]["HMC"]["weights"].shape[1]
    marks = sorted({0, steps // 4, steps // 2, 3 * steps // 4, steps - 1})
    by_step = {d: {s: [float(x) for x in accuracy.fraction_by_step(c["weights"], c["W_true"], within)[marks]]
                   for s, c in runs[d].items()} for d in large}
    acceptance = {d: {s: float(c["acceptance"].mean()) for s, c in runs[d].items()} for d in large}
    return measured({"ratio_error_margin": ratio["margin_se"]}, ratio_errors=ratio["mean_abs_error"],
                    ratio_margins=ratio["by_pair"], ratio_check_pairs=ratio["pairs"], start_fraction=level["start"],
                    prior_fraction=level["prior"], fraction_steps=marks, fraction_by_step=by_step,
                    outer_acceptance=acceptance, fractions=main["fractions"], sensitivity=others,
                    fraction_margin={k: main[k] for k in ("margin", "margin_low", "margin_high")},
                    dataset=check["dataset"].iloc[0], within=within, outer_steps=[m + 1 for m in marks],
                    annular_errors_are="smaller" if ratio["margin_se"] >= 0 else "larger",
                    margin_se_size=abs(ratio["margin_se"]),
                    fraction_course=[{"dataset": d, "sampler": k, "fractions": xs} for d in large
                                     for k, xs in by_step[d].items()],
                    acceptance_by_run=[{"dataset": d, "sampler": k, "acceptance": x} for d in large
                                       for k, x in acceptance[d].items()])


def fig8_ratio_check(chains: dict, settings: dict, seed) -> pd.DataFrame:
    """:func:`dogs.learning.posterior_accuracy.ratio_check` on the main chains of ``fig8_ratio_check.dataset`` (empty
    when they did not run or their ``2^d`` states cannot be enumerated)."""
    spec = settings["fig8_ratio_check"]
    dataset = spec["dataset"]
    present = [s for s in ("hmc", "cmh", *ANNULAR) if (MAIN, dataset, s) in chains]
    d = dataset_units(settings["datasets"][dataset]) if dataset in settings["datasets"] else 0
    if not present or d > MAX_SPLIT_ENUMERATION_UNITS:
        return pd.DataFrame()
    check = accuracy.ratio_check({SAMPLERS[s]: chains[(MAIN, dataset, s)]["weights"] for s in present},
                             {SAMPLERS[s]: SAMPLERS[s] for s in present}, d=d, states=spec["states"],
                             proposal_variance=settings["proposal_variance"],
                             inner_samples=settings["datasets"][dataset]["inner_samples"],
                             travel_time_periods=settings["travel_time_periods"], model_form=settings["model_form"],
                             seed=seed)
    check.insert(0, "dataset", dataset)
    return check


#: The judged rows, each also measured on every group of chains alone (``by_seed``; config ``seed_groups``).
PER_SEED_ROWS = ("aa_fig6_heart_annular_vs_cmh_hmc", "aa_fig6_synthetic_annular_best", "aa_fig7_cmh_shifts_posterior",
                 "aa_fig8_fraction_within")


def _chain_group(chains: dict, group: int, groups: int) -> dict:
    """The chains ``group, group + groups, ...`` of every run (the rows ``chain % groups == group`` of the errors)."""
    return {key: {k: (v[group::groups] if k in ("weights", "estimated", "exact", "acceptance") else v)
                  for k, v in c.items()} for key, c in chains.items()}


def build_claims(errors: pd.DataFrame, fractions: pd.DataFrame, chains: dict, settings: dict, seed,
                 check: pd.DataFrame | None = None, groups: int | None = None) -> dict:
    """The measured claims; ``check``: :func:`fig8_ratio_check`. With ``groups`` (default: config ``seed_groups``) > 1
    each row of :data:`PER_SEED_ROWS` is also measured on every group of chains alone (``by_seed``; Fig. 8: every
    group of the checked pairs, pair index mod ``groups``)."""
    claims = {}
    heart = "heart"
    present = set(zip(errors["variant"], errors["dataset"]))
    annular = [SAMPLERS[a] for a in ANNULAR]

    def heart_numbers(variant):
        vs_cmh = min(_better(errors, heart, a, "CMH", variant) for a in annular)
        vs_hmc = max(_mean_error(errors, variant, heart, a) / _mean_error(errors, variant, heart, "HMC") for a in annular)
        return vs_cmh, vs_hmc

    if (MAIN, heart) in present:
        vs_cmh, vs_hmc = heart_numbers(MAIN)
        sensitivity = {v: heart_numbers(v) for v in sensitivity_variants(settings, heart) if (v, heart) in present}
        claims["aa_fig6_heart_annular_vs_cmh_hmc"] = measured(
            {"beats_cmh_by_se": vs_cmh, "annular_over_hmc_max": vs_hmc},
            sensitivity={v: {"beats_cmh_by_se": a, "annular_over_hmc_max": b} for v, (a, b) in sensitivity.items()},
            errors=_error_stats(errors, MAIN, heart))
        if (MAIN, heart, "exact") in chains:
            shifts = {SAMPLERS[s]: posterior_shift(chains, heart, s) for s in ("cmh", *ANNULAR, "hmc")
                      if (MAIN, heart, s) in chains}
            claims["aa_fig7_cmh_shifts_posterior"] = measured(
                {"cmh_shift": shifts["CMH"], "annular_shift": max(shifts[a] for a in annular)}, shifts=shifts)
    synthetic = FIG6_DATASETS[1]
    if (MAIN, synthetic) in present:
        def margin(variant):
            return min(_better(errors, synthetic, a, b, variant) for a in annular for b in ("HMC", "CMH"))

        sensitivity = {v: margin(v) for v in sensitivity_variants(settings, synthetic) if (v, synthetic) in present}
        claims["aa_fig6_synthetic_annular_best"] = measured(
            margin(MAIN), sensitivity=sensitivity, dataset=synthetic, errors=_error_stats(errors, MAIN, synthetic),
            variants={v: {"margin": m, "errors": _error_stats(errors, v, synthetic)} for v, m in sensitivity.items()})
    large = [d for d in FIG8_DATASETS if (MAIN, d, "hmc") in chains]
    if large and check is not None and not check.empty:
        claims["aa_fig8_fraction_within"] = fig8_claim(chains, large, settings, seed, check)
    for variant in errata_b1_variants(settings):
        if (variant, heart) not in present or (MAIN, heart) not in present:
            continue
        acceptance = errors[(errors["variant"] == MAIN) & (errors["dataset"] == heart)].groupby("sampler")["acceptance"].mean()
        b1 = errors[(errors["variant"] == variant) & (errors["dataset"] == heart) & (errors["sampler"] == "CMH")]
        moments = accuracy.posterior_moments({k: v for k, v in chains.items() if k[1] == heart and k[0] in (MAIN, variant)},
                                             SAMPLERS)
        sd = moments.pivot_table(index="weight", columns=["variant", "sampler"], values="sd")
        sd_ratio = (sd[(variant, "CMH")] / sd[(MAIN, "exact")]) if (MAIN, "exact") in sd else pd.Series([np.nan])
        offset = authors_cmh_offset(dataset_units(settings["datasets"][heart]), int(b1["inner_samples"].iloc[0]),
                                    settings["travel_time_periods"])
        claims["aa_errata_b1_cmh_normalisation"] = measured(
            {"cmh_acceptance_authors": float(b1["acceptance"].mean()),
             "others_acceptance_max": float(acceptance.drop("CMH", errors="ignore").max()),
             "cmh_error_authors": float(b1["mean_abs_error"].mean()),
             "cmh_error": _mean_error(errors, MAIN, heart, "CMH"),
             "sd_ratio_median": float(sd_ratio.median())}, variant=variant, offset=offset,
            acceptance={k: float(v) for k, v in acceptance.items()}, sd_ratio_min=float(sd_ratio.min()),
            sd_ratio_max=float(sd_ratio.max()))
    runs = [v for v in errata_b2_runs(settings) if (v, heart) in present]
    if len(runs) > 1:
        series = (errors[errors["variant"].isin(runs) & (errors["dataset"] == heart) & (errors["sampler"] != "exact")]
                  .groupby(["inner_samples", "sampler"])[["mean_abs_error", "cross_chain_error"]].mean().reset_index())
        by_f = series.groupby("inner_samples")[["mean_abs_error", "cross_chain_error"]].mean()
        f_low, f_high = by_f.index.min(), by_f.index.max()
        claims["aa_errata_b2_cross_chain"] = measured(
            {"error_ratio_last_over_first": float(by_f.loc[f_high, "mean_abs_error"] / by_f.loc[f_low, "mean_abs_error"]),
             "cross_chain_ratio_last_over_first": float(by_f.loc[f_high, "cross_chain_error"]
                                                        / by_f.loc[f_low, "cross_chain_error"])},
            series=series.to_dict(orient="records"), f_high=f_high,
            errors_by_f=[{"F": f, "error": e} for f, e in by_f["mean_abs_error"].items()],
            cross_chain_by_f=[{"F": f, "error": e} for f, e in by_f["cross_chain_error"].items()],
            at_f_high=series[series["inner_samples"] == f_high].to_dict(orient="records"))
    groups = settings.get("seed_groups", 1) if groups is None else groups
    if groups > 1:
        per_group = [build_claims(errors[errors["chain"] % groups == g], fractions, _chain_group(chains, g, groups),
                                  settings, seed, None if check is None or check.empty else
                                  check[check["pair"] % groups == g], groups=1) for g in range(groups)]
        for key in PER_SEED_ROWS:
            if key in claims:
                value = claims[key]["value"]
                missing = dict.fromkeys(value) if isinstance(value, dict) else None  # a group too small to measure
                claims[key]["by_seed"] = [one[key]["value"] if key in one else missing for one in per_group]
    return claims


@EXPERIMENT.step("summarise")
def summarise(ctx):
    cfg = ctx.settings
    folders = ctx.inputs("variant_chains") if ctx.has_input("variant_chains") else []  # none without variants
    chains = _load_chains([*ctx.inputs("chains"), *(p for folder in folders for p in sorted(folder.glob("posterior_*.npz")))])
    errors = chain_errors(chains)
    fractions = accuracy.within_fractions(chains, cfg["within"], SAMPLERS)
    write_csv(errors, ctx.output("errors"))
    write_meta(ctx.output("errors"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "per variant (main: the main runs), data set, inner sampler and chain: the mean "
                                     "over the chain's outer steps of |exact log Z(W')/Z(W) - estimate| (AA Fig. 6), "
                                     "the same against the exact ratios of the exact chain with the same index (the "
                                     "authors' cross-chain metric), and the outer acceptance rate"})
    write_csv(fractions, ctx.output("fractions"))
    write_meta(ctx.output("fractions"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": f"fraction of posterior samples (all chains and steps) within {cfg['within']:.0%} "
                                     "of each true weight (AA Fig. 8)"})
    write_csv(accuracy.posterior_moments(chains, SAMPLERS), ctx.output("posterior"))
    write_meta(ctx.output("posterior"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "posterior mean and s.d. of each weight, second halves of all chains pooled"})
    check = fig8_ratio_check(chains, cfg, seed_sequence(ctx.seed, FAMILY, "ratio_check"))
    ctx.write_claims(build_claims(errors, fractions, chains, cfg, seed_sequence(ctx.seed, FAMILY, "bootstrap"), check))


def _main(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["variant"] == MAIN]


@EXPERIMENT.step("plot-fig6")
def plot_fig6(ctx):
    from dogs.plotting.boltzmann import figure6

    errors = _main(pd.read_csv(ctx.input("errors")))
    figure6(errors[errors["sampler"] != "exact"], ctx.output("figure"))


@EXPERIMENT.step("plot-fig7")
def plot_fig7(ctx):
    from dogs.plotting.boltzmann import figure7

    chains = {(d, s): c for (v, d, s), c in _load_chains(ctx.inputs("chains")).items() if v == MAIN}
    figure7(chains, "heart", ctx.output("figure"))


@EXPERIMENT.step("plot-fig8")
def plot_fig8(ctx):
    """Fig. 8 from the chains of :data:`FIG8_DATASETS` alone (synthetic: it needs no data set)."""
    from dogs.plotting.boltzmann import figure8

    chains = {key: c for key, c in _load_chains(ctx.inputs("chains")).items() if key[0] == MAIN}
    figure8(_main(accuracy.within_fractions(chains, ctx.settings["within"], SAMPLERS)), ctx.output("figure"))


@EXPERIMENT.step("plot-errata")
def plot_errata(ctx):
    from dogs.plotting.boltzmann import errata

    cfg = ctx.settings
    errors = pd.read_csv(ctx.input("errors"))
    errors = errors[errors["dataset"] == "heart"]
    posterior = pd.read_csv(ctx.input("posterior"))
    posterior = posterior[posterior["dataset"] == "heart"]
    b1 = errata_b1_variants(cfg)
    if errors.empty or not b1:
        raise SettingsError("the errata figure needs the heart runs and a variant with cmh_ratio: authors")
    errata(errors[errors["variant"].isin([MAIN, b1[0]])], posterior[posterior["variant"].isin([MAIN, b1[0]])], b1[0],
           errors[errors["variant"].isin(errata_b2_runs(cfg))], ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
