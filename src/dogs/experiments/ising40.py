r"""DoGS §5.4 and Appendix B.3 (Figs. 4, 5, 12-15): marginal guarantees for the top-left variable of 40x40 grids.

Two zero-field models (``models.open`` and ``models.torus`` in the config):

- ``open``: non-toroidal 40x40 grid, ``theta_ij = atanh(1/4)`` (the paper's "≈ 1/3.915"), so that
  Theorem 11 gives ``C_bar_ij = 1/4`` exactly;
- ``torus``: toroidal 40x40 grid, ``theta_ij = 0.25``.

Target ``d = e_1`` (row-major variable 0, the top-left corner): the Dobrushin variation bounds the
marginal TV of ``X_1^T``. The guarantees of the uniform, systematic, DoGS (Algorithm 2 on the
systematic scan of the same length, re-optimised for every ``T``) and iterated DoGS scans are those of
:func:`dogs.scans.guarantees.guarantee_curves`.

Measured bias (torus, Figs. 5, 13, 14): ``n_chains`` independent chains per scan and per ``T``, all
started at ``+1`` (our choice: with zero field ``E_pi[X_1] = 0`` and a symmetric start would show no bias
at any ``T``); the bias is the mean of ``X_1^T`` (its target value is 0), with standard error
``sd / sqrt(n_chains)``. Since ``x -> x_1 / 2`` has ``e_1``-bounded differences,
``|E[X_1^T]| <= 2 x`` (the guarantee). Repetition 0 is Fig. 5; repetitions ``1..repetitions`` are Fig. 13.

Scan profile (Figs. 4 right, 12, 14, 15): :func:`dogs.scans.profile.scan_profile` of the DoGS scan of
the largest ``T``.

Steps (``python -m dogs.experiments.ising40 <step> ...``, see :mod:`dogs.workflow.shell`):

``compute-guarantees``  outputs model, guarantees, scans (largest T), dogs_scans (every T), runs; wildcard ``model``
``summarise-profile``   outputs histogram and profile (segment maps, distance by step); wildcard ``model``
``compute-bias``        output bias (scan, T, mean, se, n_chains) on the torus; wildcard ``repetition``
``summarise``           outputs summary and claims
``plot-fig4`` ... ``plot-fig15``  the figures
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dogs.bounds import influence_binary_pairwise
from dogs.claims import measured
from dogs.experiments.common import scan_family, write_guarantee_results
from dogs.io import write_csv, write_meta, write_npz
from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.samplers.recording import mean_by_scan_and_length
from dogs.scans.guarantees import GUARANTEE_SCANS, guarantee_curves, length_grid
from dogs.scans.profile import scan_profile
from dogs.seeds import seed_record, seed_sequence
from dogs.summaries import SETTLE_WINDOW, bias_settles_at, first_at_or_below, mean_abs_bias
from dogs.workflow.cost import BYTES_PER_STEP, BYTES_PER_VARIABLE, Work, grid_sum, grid_total
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "ising40"
MODEL_NAMES = ("open", "torus")
BIAS_MODEL = "torus"


def check_settings(settings: dict) -> None:
    """The checks that span several keys (the schema checks each key on its own)."""
    side = settings["side"]
    if settings["target"] >= side * side:
        raise SettingsError(f"config key ising40.target: must index a variable 0..{side * side - 1}, "
                            f"got {settings['target']}")
    for name, section in settings["models"].items():
        segments = section["segments"]
        if segments[0] != 0.0 or segments[-1] != 1.0 or np.any(np.diff(segments) <= 0):
            raise SettingsError(f"config key ising40.models.{name}.segments: must increase strictly from 0 to 1, "
                                f"got {segments!r}")
        if section["lengths"]["stop"] < section["lengths"]["start"]:
            raise SettingsError(f"config key ising40.models.{name}.lengths: stop < start")
    if settings["bias"]["lengths"]["stop"] < settings["bias"]["lengths"]["start"]:
        raise SettingsError("config key ising40.bias.lengths: stop < start")


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    p = s["side"] ** 2
    out = {"ising40.side": p * BYTES_PER_VARIABLE}
    for name, model in s["models"].items():
        count, total = grid_sum(model["lengths"])
        out[f"ising40.models.{name}.lengths"] = total * BYTES_PER_STEP * 3 + count * p * 8
    b_count, b_max = grid_sum(s["bias"]["lengths"])
    out["ising40.bias.n_chains"] = s["bias"]["n_chains"] * (p * 2 + b_count * len(s["bias"]["scans"]) * 8)
    out["ising40.bias.lengths"] = b_max * BYTES_PER_STEP * len(s["bias"]["scans"])
    return out


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    p = s["side"] ** 2
    out = []
    for name, model in s["models"].items():
        count, _ = grid_sum(model["lengths"])
        out.append(Work("ising40_compute_guarantees",
                        {f"ising40.models.{name}.lengths": grid_total(model["lengths"]) + count * p}))
    b = s["bias"]
    out.append(Work("ising40_compute_bias", {"ising40.bias.repetitions": b["repetitions"] + 1,
                                             "ising40.bias.n_chains": b["n_chains"],
                                             "ising40.bias.lengths": grid_total(b["lengths"]),
                                             "ising40.bias.scans": len(b["scans"])}, jobs=b["repetitions"] + 1))
    return out


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def _model_name(ctx) -> str:
    name = ctx.wildcard("model", str)
    if name not in MODEL_NAMES:
        raise SettingsError(f"wildcard model must be one of {', '.join(MODEL_NAMES)}, got {name!r}")
    return name


def build_model(cfg: dict, name: str) -> BinaryPairwiseMRF:
    section = cfg["models"][name]
    return grid_model(cfg["side"], cfg["side"], section["coupling"], section["field"], torus=section["torus"])


def target_weights(n_vars: int, target: int) -> np.ndarray:
    """``d = e_target``: the marginal of one variable."""
    weights = np.zeros(n_vars)
    weights[target] = 1.0
    return weights


@EXPERIMENT.step("compute-guarantees")
def compute_guarantees(ctx):
    cfg, name = ctx.settings, _model_name(ctx)
    section = cfg["models"][name]
    lengths = length_grid(**section["lengths"])
    if name == BIAS_MODEL:
        lengths = np.union1d(lengths, length_grid(**cfg["bias"]["lengths"]))
    model = build_model(cfg, name)
    influence = influence_binary_pairwise(model)
    ctx.log.info("%s: %dx%d grid, coupling %.6g, torus %s, max C-bar %.4f, %d lengths up to %d", name, cfg["side"],
                 cfg["side"], section["coupling"], section["torus"], influence.data.max(), len(lengths), lengths.max())
    frame, per_length, runs = guarantee_curves(model.n_vars, target_weights(model.n_vars, cfg["target"]), influence,
                                               lengths, cfg["max_iterations"], scans=GUARANTEE_SCANS,
                                               progress=ctx.log.info, phase=cfg["systematic_phase"], target=cfg["target"])
    frame.insert(0, "model", name)
    settings, seconds = {**cfg, "model": name}, ctx.elapsed()
    extra = {"target": cfg["target"], "weights": "d = e_target", "influence": "Theorem 11"}
    write_guarantee_results(ctx, model, frame, per_length, runs, t_max=int(lengths.max()), phase=cfg["systematic_phase"],
                            descriptions={"model": f"40x40 {name} Ising grid of DoGS §5.4, zero field; edges row-major "
                                                   "r*L+c",
                                          "guarantees": "Dobrushin variation (marginal TV guarantee of the target) of "
                                                        "each scan of length T"},
                            settings=settings, seed=None, seconds=seconds, extra=extra)


@EXPERIMENT.step("summarise-profile")
def summarise_profile(ctx):
    cfg, name = ctx.settings, _model_name(ctx)
    section = cfg["models"][name]
    with np.load(ctx.input("scans")) as scans:
        indices = np.asarray(scans["dogs"])
    prof = scan_profile(indices, cfg["side"], cfg["target"], section["torus"], section["segments"])
    settings, seconds = {**cfg, "model": name}, ctx.elapsed()
    write_csv(prof["histogram"], ctx.output("histogram"))
    write_meta(ctx.output("histogram"), settings=settings, seed=None, elapsed_seconds=seconds,
               extra={"scan": "dogs", "T": int(indices.size), "target": cfg["target"],
                      "description": "visits of the DoGS scan of the largest T by Manhattan distance to the target"})
    write_npz(ctx.output("profile"), maps=prof["maps"], segment_bounds=prof["segment_bounds"],
              distance_by_step=prof["distance_by_step"], mean_distance_by_segment=prof["mean_distance_by_segment"],
              target=np.int64(cfg["target"]), torus=np.bool_(section["torus"]))
    write_meta(ctx.output("profile"), settings=settings, seed=None, elapsed_seconds=seconds,
               extra={"description": "maps: visits * p / segment length per site (1 = systematic rate) for steps "
                                     "segment_bounds[k]..segment_bounds[k+1]; distance_by_step: distance of the updated "
                                     "variable to the target at each step"})
    ctx.log.info("%s: mean distance to the target by segment %s", name,
                 np.round(prof["mean_distance_by_segment"], 2).tolist())


@EXPERIMENT.step("compute-bias")
def compute_bias(ctx):
    cfg = ctx.settings
    bias = cfg["bias"]
    repetition = ctx.wildcard("repetition")
    if repetition > bias["repetitions"]:
        raise SettingsError(f"config key ising40.bias.repetitions: repetition {repetition} > "
                            f"repetitions = {bias['repetitions']}")
    model = BinaryPairwiseMRF.from_npz(ctx.input("model"))
    lengths = length_grid(**bias["lengths"])
    with np.load(ctx.input("dogs_scans")) as stored:
        families = {name: scan_family(name, dict(stored), lengths, model.n_vars, cfg["systematic_phase"], cfg["target"])
                    for name in bias["scans"]}
    path = (FAMILY, BIAS_MODEL, "bias", repetition)
    frame = mean_by_scan_and_length(model, families, lengths, target=cfg["target"], seed=seed_sequence(ctx.seed, *path),
                                    n_chains=bias["n_chains"], initial_state=bias["initial_state"],
                                    progress=ctx.log.info)
    frame.insert(0, "repetition", repetition)
    write_csv(frame, ctx.output("bias"))
    write_meta(ctx.output("bias"), settings=cfg, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
               extra={"repetition": repetition, "target": cfg["target"], "threads": ctx.threads,
                      "description": "mean and standard error of X_target^T over n_chains independent chains "
                                     "started at initial_state; E_pi[X_target] = 0"})
    level = bias["speed_level"]
    for scan, group in frame.groupby("scan"):
        ctx.log.info("repetition %d, %s: |bias| first <= %g at T = %s", repetition, scan, level,
                     first_at_or_below(group, level))


def _share_one_run(last: pd.Series) -> float:
    total = np.log(last["systematic"]) - np.log(last["dogs_iterated"])
    return float((np.log(last["systematic"]) - np.log(last["dogs"])) / total) if total > 0 else 1.0


@EXPERIMENT.step("summarise")
def summarise(ctx):
    cfg = ctx.settings
    rows, claims = [], {}
    guarantees = {name: pd.read_csv(ctx.input(f"guarantees_{name}")) for name in MODEL_NAMES}
    lasts = {}
    for name, frame in guarantees.items():
        wide = frame.pivot_table(index="T", columns="scan", values="bound").reset_index()
        wide.columns.name = None
        wide.insert(0, "model", name)
        wide["ratio_dogs_over_systematic"] = wide["dogs"] / wide["systematic"]
        rows.append(wide)
        on_grid = wide[wide["T"].isin(length_grid(**cfg["models"][name]["lengths"]))]
        lasts[name] = on_grid.iloc[-1]
    summary = pd.concat(rows)

    last = lasts["open"]
    share = _share_one_run(last)
    further = float(np.log10(last["dogs"] / last["dogs_iterated"]))
    p = cfg["side"] ** 2
    open_grid = summary[(summary["model"] == "open")]
    open_swept = open_grid[open_grid["T"] >= p]
    shares = [_share_one_run(row) for _, row in open_swept.iterrows()]
    open_sweep = {"side": cfg["side"], "one_sweep_T": p, "T_max": int(open_grid["T"].max())}
    claims["dogs_s54_bulk_single_run"] = measured(
        {"share": share, "further_orders": further}, **open_sweep,
        T=int(last["T"]), bounds={k: float(last[k]) for k in ("uniform", "systematic", "dogs", "dogs_iterated")},
        share_range_from_one_sweep=[min(shares), max(shares)])
    better = open_swept["systematic"] < open_swept["uniform"]
    aligned_better = open_grid["systematic_aligned"] < open_grid["uniform"]
    claims["dogs_s54_systematic_beats_uniform"] = measured(
        {"share_better": float(better.mean()), "share_better_aligned_every_T": float(aligned_better.mean())},
        **open_sweep, T_better=int(better.sum()), T_swept=int(better.size), T_aligned_better=int(aligned_better.sum()),
        T_grid=int(aligned_better.size), T_min=int(open_grid["T"].min()),
        ratio_at_axis_end=float(last["uniform"] / last["systematic"]))

    bias = [pd.read_csv(p) for p in ctx.inputs("bias")]
    bias_lengths = length_grid(**cfg["bias"]["lengths"])
    level = cfg["bias"]["speed_level"]
    grid_max = int(bias_lengths.max())
    settles = {"systematic_aligned": [], "systematic": [], "dogs": []}
    areas = []
    for frame in bias:
        groups = {scan: g for scan, g in frame.groupby("scan")}
        if not set(settles) <= set(groups):
            continue
        for scan in settles:
            settles[scan].append(bias_settles_at(groups[scan], level))
        areas.append((mean_abs_bias(groups["systematic_aligned"]), mean_abs_bias(groups["dogs"])))

    def speedups(baseline):
        # DoGS never reaching the level counts as no speed-up; the baseline never reaching it as an infinite one
        return [0.0 if d is None else (np.inf if s is None else s / d) for s, d in zip(settles[baseline], settles["dogs"])]

    if settles["dogs"]:
        fair, paper_phase = speedups("systematic_aligned"), speedups("systematic")
        area_ratio = [a_s / a_d if a_d > 0 else np.inf for a_s, a_d in areas]
        claims["dogs_s54_bias_faster"] = measured(
            {"min_speedup": float(min(fair)), "median_speedup": float(np.median(fair))}, level=level,
            by_seed=[{"min_speedup": float(x), "median_speedup": float(x)} for x in fair],
            first_T={scan: values for scan, values in settles.items()}, speedup=[float(x) for x in fair],
            speedup_paper_phase=[float(x) for x in paper_phase], mean_abs_bias_ratio=[float(x) for x in area_ratio],
            repetitions=len(fair), chains=int(bias[0]["n_chains"].iloc[0]), window=SETTLE_WINDOW,
            first_T_dogs=settles["dogs"], first_T_aligned=settles["systematic_aligned"],
            first_T_paper_phase=settles["systematic"], one_sweep_T=cfg["side"] ** 2,
            median_speedup_paper_phase=float(np.median(paper_phase)), T_min=int(bias_lengths.min()), T_max=grid_max,
            median_mean_abs_bias_ratio=float(np.median(area_ratio)))

    torus = guarantees.get(BIAS_MODEL)
    if settles["dogs"] and torus is not None:
        bounds = torus.pivot_table(index="T", columns="scan", values="bound")
        excess = []  # per repetition: median over T of (measured gain) / (guarantee gain)
        for frame in bias:
            groups = {scan: g.set_index("T") for scan, g in frame.groupby("scan")}
            sys_b, dogs_b = groups["systematic_aligned"], groups["dogs"]
            informative = sys_b.index[np.abs(sys_b["mean"]) > level]  # the baseline still clearly biased
            if len(informative) == 0:
                continue
            floor = np.maximum(np.abs(dogs_b.loc[informative, "mean"]), 2 * dogs_b.loc[informative, "se"])
            measured_gain = np.abs(sys_b.loc[informative, "mean"]) / floor
            bound_gain = bounds.loc[informative, "systematic_aligned"] / bounds.loc[informative, "dogs"]
            excess.append(float(np.median(measured_gain / bound_gain)))
        if excess:
            claims["dogs_s51_actual_gains_exceed_bound_gains"] = measured(
                {"median_excess": float(np.median(excess)), "share_above": float(np.mean(np.array(excess) > 1))},
                by_seed=[{"median_excess": x, "share_above": float(x > 1)} for x in excess],
                ratio_measured_gain_over_bound_gain=excess, level=level)

    torus_rows = summary[summary["model"] == BIAS_MODEL]
    below = torus_rows["dogs"] < torus_rows["systematic_aligned"]
    below_paper = torus_rows["dogs"] < torus_rows["systematic"]
    last_torus = torus_rows.iloc[-1]
    claims["dogs_s54_torus_gap"] = measured(
        {"share_below": float(below.mean())}, share_below_paper_phase=float(below_paper.mean()),
        T_below=int(below.sum()), T_count=int(below.size), T_below_paper_phase=int(below_paper.sum()),
        T_axis_end=int(last_torus["T"]), systematic_bound=float(last_torus["systematic_aligned"]),
        dogs_bound=float(last_torus["dogs"]), bound_ratio=float(last_torus["systematic_aligned"] / last_torus["dogs"]))
    histogram = pd.read_csv(ctx.input("histogram_open"))
    mean_distance = float(np.average(histogram["distance"], weights=histogram["visits"]))
    systematic_distance = float(np.average(histogram["distance"],
                                           weights=histogram["systematic_visits_per_site"] * histogram["n_sites"]))
    claims["dogs_s54_distance_histogram"] = measured(mean_distance, systematic_distance=systematic_distance)

    profiles = {name: np.load(ctx.input(f"profile_{name}")) for name in MODEL_NAMES}
    monotone = {}
    for name, prof in profiles.items():
        means = np.asarray(prof["mean_distance_by_segment"])
        monotone[name] = (bool(np.all(np.diff(means) < 0)), [round(float(x), 2) for x in means])
    if "dogs_s54_bias_faster" in claims:  # information: the torus bias run is dogs_s54_bias_faster's evidence
        torus_speedup = claims["dogs_s54_bias_faster"]["value"]["min_speedup"]
        claims["dogs_b3_fig14_torus_repeat"] = measured(
            {"min_speedup": torus_speedup, "torus_zeroes_in": int(monotone[BIAS_MODEL][0])},
            torus_mean_distance_by_segment=monotone[BIAS_MODEL][1])
    claims["dogs_b3_zeroes_in"] = measured(
        {"share_decreasing": float(np.mean([ok for ok, _ in monotone.values()]))},
        mean_distance_by_segment={k: v for k, (_, v) in monotone.items()})

    write_csv(summary, ctx.output("summary"))
    write_meta(ctx.output("summary"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "marginal TV guarantees per model and T, one column per scan"})
    ctx.write_claims(claims)


@EXPERIMENT.step("plot-fig4")
def plot_fig4(ctx):
    from dogs.plotting import ising as plots

    fig = plots.figure_open_guarantees(pd.read_csv(ctx.input("guarantees")), pd.read_csv(ctx.input("histogram")),
                                       side=ctx.settings["side"])
    plots.save(fig, ctx.output("figure"))


@EXPERIMENT.step("plot-fig5")
def plot_fig5(ctx):
    from dogs.plotting import ising as plots

    fig = plots.figure_torus_guarantees_bias(pd.read_csv(ctx.input("guarantees")), pd.read_csv(ctx.input("bias")),
                                             side=ctx.settings["side"],
                                             coupling=ctx.settings["models"]["torus"]["coupling"])
    plots.save(fig, ctx.output("figure"))


def _plot_frequency_maps(ctx):
    from dogs.plotting import ising as plots

    with np.load(ctx.input("profile")) as prof:
        fig = plots.figure_frequency_maps(prof["maps"], prof["segment_bounds"], side=ctx.settings["side"],
                                          target=ctx.settings["target"], torus=bool(prof["torus"]))
    plots.save(fig, ctx.output("figure"))


EXPERIMENT.step("plot-fig12")(_plot_frequency_maps)
EXPERIMENT.step("plot-fig15")(_plot_frequency_maps)


@EXPERIMENT.step("plot-fig13")
def plot_fig13(ctx):
    from dogs.plotting import ising as plots

    fig = plots.figure_bias_repetitions([pd.read_csv(p) for p in ctx.inputs("bias")], side=ctx.settings["side"])
    plots.save(fig, ctx.output("figure"))


@EXPERIMENT.step("plot-fig14")
def plot_fig14(ctx):
    from dogs.plotting import ising as plots

    with np.load(ctx.input("profile")) as prof:
        distance = np.asarray(prof["distance_by_step"])
    fig = plots.figure_torus_profile(pd.read_csv(ctx.input("bias")), pd.read_csv(ctx.input("histogram")), distance,
                                     side=ctx.settings["side"])
    plots.save(fig, ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
