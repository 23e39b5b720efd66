r"""DoGS §5.4 and Appendix B.3 (Figs. 4, 5, 12-15): marginal guarantees for the top-left variable of 40x40 grids.

Two zero-field models (``models.open`` and ``models.torus`` in the config):

- ``open``: non-toroidal 40x40 grid, ``theta_ij = atanh(1/4)`` (the paper's "≈ 1/3.915"), so that
  Theorem 11 gives ``C_bar_ij = 1/4`` exactly;
- ``torus``: toroidal 40x40 grid, ``theta_ij = 0.25``.

Target ``d = e_1`` (row-major variable 0, the top-left corner): the Dobrushin variation bounds the
marginal TV of ``X_1^T``. The guarantees of the uniform, systematic, DoGS (Algorithm 2 on the
systematic scan of the same length, re-optimised for every ``T``) and iterated DoGS scans are those of
:func:`dogs.experiments.ising10.guarantee_curves`.

Measured bias (torus, Figs. 5, 13, 14): ``n_chains`` independent chains per scan and per ``T``, all
started at ``+1`` (our choice: with zero field ``E_pi[X_1] = 0`` and a symmetric start would show no bias
at any ``T``); the bias is the mean of ``X_1^T`` (its target value is 0), with standard error
``sd / sqrt(n_chains)``. Since ``x -> x_1 / 2`` has ``e_1``-bounded differences,
``|E[X_1^T]| <= 2 x`` (the guarantee). Repetition 0 is Fig. 5; repetitions ``1..repetitions`` are Fig. 13.

Scan profile (Figs. 4 right, 12, 14, 15): for the DoGS scan of the largest ``T``, how often each variable
is sampled by Manhattan distance to the target (on the torus the distance wraps around), the spatial
sampling frequency over successive segments of the scan, and the distance of the updated variable at
every step (distance-time profile).

Steps (``python -m dogs.experiments.ising40 <step> --settings JSON --seed ROOT ...``):

``guarantees --model M``  model.npz, guarantees.csv, scans.npz (largest T), dogs_scans.npz (every T), dogs_runs.csv
``profile --model M``     profile_histogram.csv and profile.npz (segment maps, distance by step)
``bias --repetition K``   bias_rep<K>.csv (scan, T, mean, se, n_chains) for the torus
``summary``               summary.csv and claims/ising40.json
``fig4 fig5 fig12 fig13 fig14 fig15``  the figures
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from dogs.bounds import influence_binary_pairwise
from dogs.experiments.common import Stopwatch, base_parser
from dogs.experiments.ising10 import (
    add_step_arguments,
    _fail,
    _integer,
    _number,
    check_bias_settings,
    guarantee_curves,
    largest_scans,
    lengths_from,
    log,
    per_length_arrays,
    recorded_samples,
    require,
    set_threads,
    write_summary,
)
from dogs.io import write_csv, write_meta, write_npz
from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.seeds import seed_record

__all__ = ["bias_area", "check_settings", "first_below", "manhattan_distance", "measure_bias", "scan_profile"]

FAMILY = "ising40"
MODEL_NAMES = ("open", "torus")
BIAS_MODEL = "torus"


# --------------------------------------------------------------------------- settings
def check_model_settings(section, key: str) -> dict:
    coupling = _number(require(section, "coupling", key), f"{key}.coupling")
    torus = require(section, "torus", key)
    if not isinstance(torus, bool):
        _fail(f"{key}.torus", f"must be true or false, got {torus!r}")
    field = _number(require(section, "field", key), f"{key}.field")
    lengths = lengths_from(require(section, "lengths", key), f"{key}.lengths")
    segments = require(section, "segments", key)
    if not isinstance(segments, list) or len(segments) < 2:
        _fail(f"{key}.segments", f"must be a list of at least two fractions, got {segments!r}")
    segments = [_number(v, f"{key}.segments", 0.0) for v in segments]
    if segments[0] != 0.0 or segments[-1] != 1.0 or np.any(np.diff(segments) <= 0):
        _fail(f"{key}.segments", f"must increase strictly from 0 to 1, got {segments!r}")
    return {"coupling": coupling, "torus": torus, "field": field, "lengths": lengths, "segments": segments}


def check_settings(settings: dict) -> dict:
    """Validate the ``ising40`` config slice before any computation."""
    p = "ising40"
    side = _integer(require(settings, "side", p), f"{p}.side", 2)
    target = _integer(require(settings, "target", p), f"{p}.target", 0)
    if target >= side * side:
        _fail(f"{p}.target", f"must index a variable 0..{side * side - 1}, got {target}")
    max_iter = _integer(require(settings, "max_iterations", p), f"{p}.max_iterations", 1)
    models = require(settings, "models", p)
    if not isinstance(models, dict) or set(models) != set(MODEL_NAMES):
        _fail(f"{p}.models", f"must have exactly the sections {', '.join(MODEL_NAMES)}, got {sorted(models) if isinstance(models, dict) else models!r}")
    parsed = {name: check_model_settings(models[name], f"{p}.models.{name}") for name in MODEL_NAMES}
    for name, section in parsed.items():
        if section["torus"] and side < 3:
            _fail(f"{p}.side", f"a torus needs a side >= 3, got {side}")
    bias = require(settings, "bias", p)
    b = f"{p}.bias"
    bias_cfg = check_bias_settings(bias, b, with_repetitions=True)
    return {"side": side, "target": target, "max_iterations": max_iter, "models": parsed, "bias": bias_cfg}


# --------------------------------------------------------------------------- computations
def manhattan_distance(side: int, target: int, torus: bool) -> np.ndarray:
    """Manhattan distance of every variable (row-major) to ``target`` on a ``side x side`` grid (wrapping on a torus)."""
    r, c = np.divmod(np.arange(side * side), side)
    tr, tc = divmod(int(target), side)
    dr, dc = np.abs(r - tr), np.abs(c - tc)
    if torus:
        dr, dc = np.minimum(dr, side - dr), np.minimum(dc, side - dc)
    return (dr + dc).astype(np.int64)


def scan_profile(indices, side: int, target: int, torus: bool, segments) -> dict:
    """Where a deterministic scan spends its steps, relative to the systematic scan's rate ``T / p``.

    Returns the per-distance histogram (DataFrame: distance, n_sites, visits, visits_per_site,
    systematic_visits_per_site), the segment maps ``(n_segments, side, side)`` of
    ``visits * p / segment length`` (1 = the systematic scan's rate), the segment bounds in steps, and
    the distance of the updated variable at every step.
    """
    indices = np.asarray(indices, dtype=np.int64)
    p, length = side * side, indices.size
    distance = manhattan_distance(side, target, torus)
    visits = np.bincount(indices, minlength=p)
    by_d = pd.DataFrame({"distance": distance, "visits": visits}).groupby("distance")
    histogram = pd.DataFrame({
        "distance": by_d.size().index.astype(np.int64),
        "n_sites": by_d.size().to_numpy(),
        "visits": by_d["visits"].sum().to_numpy(),
    })
    histogram["visits_per_site"] = histogram["visits"] / histogram["n_sites"]
    histogram["systematic_visits_per_site"] = length / p
    bounds = np.unique(np.round(np.asarray(segments) * length).astype(np.int64))
    maps = np.zeros((bounds.size - 1, side, side))
    for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        counts = np.bincount(indices[lo:hi], minlength=p)
        maps[k] = (counts * p / max(hi - lo, 1)).reshape(side, side)
    return {"histogram": histogram, "maps": maps, "segment_bounds": bounds, "distance_by_step": distance[indices],
            "mean_distance_by_segment": np.array([distance[indices[lo:hi]].mean() if hi > lo else np.nan
                                                  for lo, hi in zip(bounds[:-1], bounds[1:])])}


def measure_bias(model: BinaryPairwiseMRF, target: int, scans, lengths, stored, n_chains: int, initial_state: int,
                 seed_path: tuple, root: int, progress=log) -> pd.DataFrame:
    """Mean and standard error of ``X_target^T`` over ``n_chains`` independent chains, for every scan and ``T``."""
    rows = []
    for name, t, values in recorded_samples(model, scans, lengths, stored, n_chains, initial_state, [target],
                                            seed_path, root, progress, "bias of"):
        column = values[:, 0].astype(np.float64)
        rows.append((name, t, column.mean(), column.std(ddof=1) / np.sqrt(n_chains)))
    frame = pd.DataFrame(rows, columns=["scan", "T", "mean", "se"])
    frame["n_chains"] = n_chains
    return frame


def first_below(frame: pd.DataFrame, level: float):
    """First ``T`` of the grid at which the measured ``|mean|`` is at most ``level`` (None if never).

    ``level`` is chosen well above the Monte Carlo noise (2 s.e.), so the first crossing marks the
    decay of the bias rather than a chance fluctuation.
    """
    ordered = frame.sort_values("T")
    hit = ordered[np.abs(ordered["mean"]) <= level]
    return int(hit["T"].iloc[0]) if len(hit) else None


def bias_area(frame: pd.DataFrame) -> float:
    """Mean of ``|mean|`` over the grid: one number per curve, lower is faster decay."""
    return float(np.abs(frame["mean"]).mean())


# --------------------------------------------------------------------------- steps
def build_model(cfg: dict, name: str) -> BinaryPairwiseMRF:
    section = cfg["models"][name]
    return grid_model(cfg["side"], cfg["side"], section["coupling"], section["field"], torus=section["torus"])


def target_weights(n_vars: int, target: int) -> np.ndarray:
    weights = np.zeros(n_vars)
    weights[target] = 1.0
    return weights


def step_guarantees(args, cfg):
    name = args.model
    out = Path(args.outdir)
    section = cfg["models"][name]
    lengths = section["lengths"]
    if name == BIAS_MODEL:
        lengths = np.union1d(lengths, cfg["bias"]["lengths"])
    with Stopwatch() as sw:
        model = build_model(cfg, name)
        influence = influence_binary_pairwise(model)
        weights = target_weights(model.n_vars, cfg["target"])
        log(f"{name}: {cfg['side']}x{cfg['side']} grid, coupling {section['coupling']:.6g}, torus {section['torus']}, "
            f"max C-bar {influence.data.max():.4f}, {len(lengths)} lengths up to {lengths.max()}")
        frame, per_length, runs = guarantee_curves(model, weights, influence, lengths, cfg["max_iterations"])
    settings = {**args.settings, "model": name}
    seed = None  # the models and the guarantees are deterministic
    extra = {"target": cfg["target"], "weights": "d = e_target", "influence": "Theorem 11"}
    write_npz(out / "model.npz", **model.to_npz_dict())
    write_meta(out / "model.npz", settings=settings, seed=seed, elapsed_seconds=sw.seconds,
               extra={"description": f"40x40 {name} Ising grid of DoGS §5.4, zero field; edges row-major r*L+c"})
    write_csv(frame, out / "guarantees.csv")
    write_meta(out / "guarantees.csv", settings=settings, seed=seed, elapsed_seconds=sw.seconds,
               extra={**extra, "description": "Dobrushin variation (marginal TV guarantee of the target) of each scan of length T"})
    write_npz(out / "scans.npz", **largest_scans(model, per_length, int(lengths.max())))
    write_meta(out / "scans.npz", settings=settings, seed=seed, elapsed_seconds=sw.seconds,
               extra={**extra, "T": int(lengths.max()), "description": "variable index sequences of the largest T"})
    write_npz(out / "dogs_scans.npz", **per_length_arrays(per_length))
    write_meta(out / "dogs_scans.npz", settings=settings, seed=seed, elapsed_seconds=sw.seconds,
               extra={**extra, "description": "DoGS scans of every T, keys <scan>_T<T>"})
    write_csv(runs, out / "dogs_runs.csv")
    write_meta(out / "dogs_runs.csv", settings=settings, seed=seed, elapsed_seconds=sw.seconds)
    log(f"{name} done in {sw.seconds:.1f} s")


def step_profile(args, cfg):
    name = args.model
    out = Path(args.outdir)
    section = cfg["models"][name]
    with np.load(out / "scans.npz") as scans:
        indices = np.asarray(scans["dogs"])
    with Stopwatch() as sw:
        prof = scan_profile(indices, cfg["side"], cfg["target"], section["torus"], section["segments"])
    settings = {**args.settings, "model": name}
    write_csv(prof["histogram"], out / "profile_histogram.csv")
    write_meta(out / "profile_histogram.csv", settings=settings, seed=None, elapsed_seconds=sw.seconds,
               extra={"scan": "dogs", "T": int(indices.size), "target": cfg["target"],
                      "description": "visits of the DoGS scan of the largest T by Manhattan distance to the target"})
    write_npz(out / "profile.npz", maps=prof["maps"], segment_bounds=prof["segment_bounds"],
              distance_by_step=prof["distance_by_step"], mean_distance_by_segment=prof["mean_distance_by_segment"],
              target=np.int64(cfg["target"]), torus=np.bool_(section["torus"]))
    write_meta(out / "profile.npz", settings=settings, seed=None, elapsed_seconds=sw.seconds,
               extra={"description": "maps: visits * p / segment length per site (1 = systematic rate) for steps "
                                     "segment_bounds[k]..segment_bounds[k+1]; distance_by_step: distance of the updated "
                                     "variable to the target at each step"})
    log(f"{name}: mean distance to the target by segment {np.round(prof['mean_distance_by_segment'], 2).tolist()}")


def step_bias(args, cfg):
    set_threads(args.threads)
    out = Path(args.outdir)
    bias = cfg["bias"]
    model = BinaryPairwiseMRF.from_npz(out / "model.npz")
    with np.load(out / "dogs_scans.npz") as stored, Stopwatch() as sw:
        stored = dict(stored)
        frame = measure_bias(model, cfg["target"], bias["scans"], bias["lengths"], stored, bias["n_chains"],
                             bias["initial_state"], (FAMILY, BIAS_MODEL, "bias", args.repetition), args.seed)
    path = Path(args.out)
    write_csv(frame, path)
    write_meta(path, settings=args.settings, seed=seed_record(args.seed, FAMILY, BIAS_MODEL, "bias", args.repetition),
               elapsed_seconds=sw.seconds,
               extra={"repetition": args.repetition, "target": cfg["target"], "threads": args.threads,
                      "description": "mean and standard error of X_target^T over n_chains independent chains "
                                     "started at initial_state; E_pi[X_target] = 0"})
    level = bias["speed_level"]
    for scan, group in frame.groupby("scan"):
        log(f"repetition {args.repetition}, {scan}: |bias| first <= {level:g} at T = {first_below(group, level)}")


def _share_one_run(last: pd.Series) -> float:
    total = np.log(last["systematic"]) - np.log(last["dogs_iterated"])
    return float((np.log(last["systematic"]) - np.log(last["dogs"])) / total) if total > 0 else 1.0


def step_summary(args, cfg):
    from dogs.claims import claim

    rows, claims = [], {}
    guarantees = {Path(p).parent.name: pd.read_csv(p) for p in args.guarantees}
    lasts = {}
    for name, frame in guarantees.items():
        wide = frame.pivot_table(index="T", columns="scan", values="bound").reset_index()
        wide.columns.name = None
        wide.insert(0, "model", name)
        wide["ratio_dogs_over_systematic"] = wide["dogs"] / wide["systematic"]
        rows.append(wide)
        on_grid = wide[wide["T"].isin(cfg["models"][name]["lengths"])]
        lasts[name] = on_grid.iloc[-1]
    summary = pd.concat(rows)

    last = lasts["open"]
    share = _share_one_run(last)
    verdict = "reproduced" if share >= 0.5 and last["dogs"] < last["systematic"] else "not reproduced"
    claims["dogs_s54_bulk_single_run"] = claim(
        f"open {cfg['side']}x{cfg['side']}, T = {int(last['T'])}: systematic {last['systematic']:.3g}, DoGS {last['dogs']:.3g}, "
        f"iterated {last['dogs_iterated']:.3g} (uniform {last['uniform']:.3g}); one run gives {share:.0%} of the "
        f"log-improvement", verdict, T=int(last["T"]), share=share,
        bounds={k: float(last[k]) for k in ("uniform", "systematic", "dogs", "dogs_iterated")})

    bias = [pd.read_csv(p) for p in args.bias]
    level = cfg["bias"]["speed_level"]
    reach, areas = [], []
    for frame in bias:
        groups = {scan: g for scan, g in frame.groupby("scan")}
        if {"systematic", "dogs"} <= set(groups):
            reach.append((first_below(groups["systematic"], level), first_below(groups["dogs"], level)))
            areas.append((bias_area(groups["systematic"]), bias_area(groups["dogs"])))
    if reach:
        grid_max = int(cfg["bias"]["lengths"].max())
        # DoGS never reaching the level counts as no speed-up; systematic never reaching it as an infinite one
        speedups = [0.0 if d is None else (np.inf if s is None else s / d) for s, d in reach]
        area_ratio = [a_s / a_d if a_d > 0 else np.inf for a_s, a_d in areas]
        if all(x >= 2 for x in speedups):
            verdict = "reproduced"
        elif sum(x > 1 for x in speedups) > len(speedups) / 2:
            verdict = "partly"
        else:
            verdict = "not reproduced"
        fmt = ", ".join(f"{s if s is not None else f'>{grid_max}'} vs {d if d is not None else f'>{grid_max}'}"
                        for s, d in reach)
        claims["dogs_s54_bias_faster"] = claim(
            f"torus, {len(reach)} repetitions x {cfg['bias']['n_chains']} chains: |measured bias of X_1| first "
            f"<= {level:g} at T = {fmt} (systematic vs DoGS), speed-up {np.median(speedups):.1f}x (median); "
            f"mean |bias| over T = {int(cfg['bias']['lengths'].min())}..{grid_max} is {np.median(area_ratio):.1f}x "
            f"lower with DoGS", verdict, level=level,
            first_T_systematic=[s for s, _ in reach], first_T_dogs=[d for _, d in reach],
            speedup=[float(x) for x in speedups], mean_abs_bias_ratio=[float(x) for x in area_ratio])

    torus = guarantees.get(BIAS_MODEL)
    if reach and torus is not None:
        bounds = torus.pivot_table(index="T", columns="scan", values="bound")
        excess = []  # per repetition: median over T of (measured gain) / (guarantee gain)
        for frame in bias:
            groups = {scan: g.set_index("T") for scan, g in frame.groupby("scan")}
            sys_b, dogs_b = groups["systematic"], groups["dogs"]
            informative = sys_b.index[np.abs(sys_b["mean"]) > level]  # systematic still clearly biased
            if len(informative) == 0:
                continue
            floor = np.maximum(np.abs(dogs_b.loc[informative, "mean"]), 2 * dogs_b.loc[informative, "se"])
            measured_gain = np.abs(sys_b.loc[informative, "mean"]) / floor
            bound_gain = bounds.loc[informative, "systematic"] / bounds.loc[informative, "dogs"]
            excess.append(float(np.median(measured_gain / bound_gain)))
        if excess:
            above = sum(x > 1 for x in excess)
            verdict = "reproduced" if above == len(excess) else ("partly" if above > len(excess) / 2 else "not reproduced")
            claims["dogs_s51_actual_gains_exceed_bound_gains"] = claim(
                f"torus, X_1: over the T where the systematic bias is still above {level:g}, the measured gain "
                f"|bias_sys| / max(|bias_DoGS|, 2 s.e.) is {np.median(excess):.1f}x the guarantee gain "
                f"V_sys / V_DoGS (median over T; per repetition {', '.join(f'{x:.1f}' for x in excess)})",
                verdict, ratio_measured_gain_over_bound_gain=excess, level=level)

    profiles = {Path(p).parent.name: np.load(p) for p in args.profiles}
    monotone = {}
    for name, prof in profiles.items():
        means = np.asarray(prof["mean_distance_by_segment"])
        monotone[name] = (bool(np.all(np.diff(means) < 0)), [round(float(x), 2) for x in means])
    n_ok = sum(ok for ok, _ in monotone.values())
    verdict = "reproduced" if n_ok == len(monotone) else ("partly" if n_ok else "not reproduced")
    claims["dogs_b3_zeroes_in"] = claim(
        "mean distance to the target of the sampled variables over successive segments of the DoGS scan: "
        + "; ".join(f"{name} {' > '.join(map(str, means))}" for name, (_, means) in monotone.items()),
        verdict, mean_distance_by_segment={k: v for k, (_, v) in monotone.items()})

    write_summary(summary, Path(args.summary), args.settings, "marginal TV guarantees per model and T, one column per scan",
                  args.claims, FAMILY, claims, args.smoke)


def step_figure(args, cfg):
    from dogs.plotting import ising as plots

    side, target = cfg["side"], cfg["target"]
    step = args.step
    if step == "fig4":
        fig = plots.figure_open_guarantees(pd.read_csv(args.guarantees[0]), pd.read_csv(args.histograms[0]),
                                           side=side)
    elif step == "fig5":
        fig = plots.figure_torus_guarantees_bias(pd.read_csv(args.guarantees[0]), pd.read_csv(args.bias[0]),
                                                 side=side, coupling=cfg["models"]["torus"]["coupling"])
    elif step in ("fig12", "fig15"):
        with np.load(args.profiles[0]) as prof:
            fig = plots.figure_frequency_maps(prof["maps"], prof["segment_bounds"], side=side, target=target,
                                              torus=bool(prof["torus"]))
    elif step == "fig13":
        fig = plots.figure_bias_repetitions([pd.read_csv(p) for p in args.bias], side=side)
    elif step == "fig14":
        with np.load(args.profiles[0]) as prof:
            distance = np.asarray(prof["distance_by_step"])
        fig = plots.figure_torus_profile(pd.read_csv(args.bias[0]), pd.read_csv(args.histograms[0]), distance,
                                         side=side)
    plots.save(fig, args.out)


def main(argv=None):
    parser = base_parser(__doc__.splitlines()[0])
    parser.add_argument("step", choices=["guarantees", "profile", "bias", "summary",
                                         "fig4", "fig5", "fig12", "fig13", "fig14", "fig15"])
    parser.add_argument("--model", choices=MODEL_NAMES)
    parser.add_argument("--repetition", type=int, default=0)
    parser.add_argument("--guarantees", nargs="*", default=[])
    parser.add_argument("--bias", nargs="*", default=[])
    parser.add_argument("--profiles", nargs="*", default=[])
    parser.add_argument("--histograms", nargs="*", default=[])
    add_step_arguments(parser)
    args = parser.parse_args(argv)
    cfg = check_settings(args.settings)
    if args.step in ("guarantees", "profile") and args.model is None:
        parser.error(f"step {args.step} needs --model")
    if args.step == "bias" and args.repetition > cfg["bias"]["repetitions"]:
        _fail("ising40.bias.repetitions", f"repetition {args.repetition} > repetitions = {cfg['bias']['repetitions']}")
    {"guarantees": step_guarantees, "profile": step_profile, "bias": step_bias, "summary": step_summary}.get(
        args.step, step_figure)(args, cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
