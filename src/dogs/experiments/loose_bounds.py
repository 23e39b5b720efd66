r"""DoGS §5.6 (Fig. 8): DoGS with a loose influence bound ``C_bar = s * C_hat``.

Model: toroidal 40x40 grid, zero field, ``theta_ij = 0.165`` (the paper's "≈ 0.165"), target the top-left
variable (``d = e_1``). ``C_hat`` is DoGS Theorem 11 (``tanh 0.165`` on every edge); for each looseness
factor ``s`` (paper: 1.0, 1.1, 1.3, 1.5) every computation uses ``C_bar = s * C_hat``
(:func:`dogs.bounds.loosen`): the guarantees of the systematic scan (in the paper's phase, and for every ``T``
in the phase whose last step updates the target, ``systematic_aligned``, the fair baseline at that budget)
and of DoGS (Algorithm 2 on the systematic scan of the same length, re-optimised for every ``T``), and the
DoGS scan itself.

Beyond the paper, ``bound_tight`` evaluates the same scans with the tight ``C_hat``: it separates the two
effects of looseness, a weaker certificate (``bound``) and a possibly worse scan (``bound_tight`` of the
DoGS scan optimised with ``s * C_hat``, against the one optimised with ``C_hat``).

Measured bias (bottom row of Fig. 8): ``n_chains`` independent chains per scan, ``T`` and ``s``, all
started at ``+1`` (our choice; ``E_pi[X_1] = 0`` by symmetry), mean of ``X_1^T`` and its standard error.
The systematic scan does not depend on ``s``; it is measured with fresh chains in every column.

The verdict (``compute-bias-verdict``, beyond the paper): the paper's 300 chains per ``T`` cannot tell the
``s = 1`` and ``s = 1.5`` bias curves apart (their expected ``|bias|`` differ by a few per cent at short
``T``, a 300-chain standard error is about 0.06), so a verdict read from them is noise. The verdict reads
``verdict.n_chains`` chains per ``T`` (``>= 10^4``) over the short lengths where the curves differ, in
``verdict.repetitions`` independent repetitions (seeds): for each ``s > 1`` the mean ``|bias|`` over those
lengths relative to the ``s = 1`` scan's, with a 95% interval (delta method over the independent chains),
the settling ``T`` of every repetition, and whether DoGS settles no later than the systematic scan
ending on the target.

Steps (``python -m dogs.experiments.loose_bounds <step> ...``, see :mod:`dogs.workflow.shell`):

``compute-guarantees``  outputs model, guarantees (scale, scan, T, bound, bound_tight; T on the union of the
                        guarantee and bias grids), dogs_scans, runs
``compute-bias``        output bias (scale, scan, T, mean, se, n_chains)
``compute-bias-verdict`` output bias (repetition, scale, scan, T, mean, se, n_chains) on the verdict lengths
``summarise``           outputs summary and claims
``plot-fig8``           the figure
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dogs.bounds import influence_binary_pairwise, loosen
from dogs.claims import measured
from dogs.experiments.common import scan_family
from dogs.io import write_csv, write_meta, write_npz
from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.samplers.recording import mean_by_scan_and_length
from dogs.scans.base import systematic_scan_ending_on
from dogs.scans.dogs import dogs_scan
from dogs.scans.guarantees import length_grid, systematic
from dogs.scans.variation import dobrushin_variation, dobrushin_variation_curve
from dogs.seeds import seed_record, seed_sequence
from dogs.summaries import bias_settles_at, mean_abs_bias, mean_abs_bias_with_se, ratio_interval
from dogs.workflow.cost import BYTES_PER_STEP, BYTES_PER_VARIABLE, Work, grid_sum, grid_total
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "loose_bounds"
#: Scans of the verdict measurement: DoGS and the fair systematic baseline (last step on the target at every T).
VERDICT_SCANS = ("systematic_aligned", "dogs")


def scale_label(scale: float) -> str:
    """Key fragment of a looseness factor: ``1.1 -> "1.1"`` (as in the config)."""
    return f"{scale:g}"


def check_settings(settings: dict) -> None:
    """The checks that span several keys (the schema checks each key on its own)."""
    side = settings["side"]
    if settings["target"] >= side * side:
        raise SettingsError(f"config key loose_bounds.target: must index a variable 0..{side * side - 1}, "
                            f"got {settings['target']}")
    labels = [scale_label(s) for s in settings["scales"]]
    if len(set(labels)) != len(labels):
        raise SettingsError(f"config key loose_bounds.scales: lists a factor twice: {settings['scales']!r}")
    for key, spec in (("lengths", settings["lengths"]), ("bias.lengths", settings["bias"]["lengths"])):
        if spec["stop"] < spec["start"]:
            raise SettingsError(f"config key loose_bounds.{key}: stop < start: {spec!r}")


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    p = s["side"] ** 2
    count, total = grid_sum(s["lengths"])
    b_count, b_max = grid_sum(s["bias"]["lengths"])
    return {
        "loose_bounds.side": p * BYTES_PER_VARIABLE,
        "loose_bounds.lengths": len(s["scales"]) * (total * BYTES_PER_STEP * 2 + count * p * 8),
        "loose_bounds.bias.n_chains": s["bias"]["n_chains"] * (p * 2 + b_count * len(s["bias"]["scans"]) * 8),
        # the verdict's chains: one repetition at a time, two scans (systematic_aligned, dogs)
        "loose_bounds.verdict.n_chains": s["verdict"]["n_chains"] * (p * 2 + grid_sum(s["verdict"]["lengths"])[0] * 2 * 8),
    }


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    p = s["side"] ** 2
    count, _ = grid_sum(s["lengths"])
    b, v = s["bias"], s["verdict"]
    return [
        Work("loose_bounds_compute_guarantees", {"loose_bounds.scales": len(s["scales"]),
                                                 "loose_bounds.lengths": grid_total(s["lengths"]) + count * p}),
        Work("loose_bounds_compute_bias", {"loose_bounds.scales": len(s["scales"]),
                                           "loose_bounds.bias.n_chains": b["n_chains"],
                                           "loose_bounds.bias.lengths": grid_total(b["lengths"]),
                                           "loose_bounds.bias.scans": len(b["scans"])}),
        Work("loose_bounds_compute_bias_verdict", {"loose_bounds.scales": len(s["scales"]),
                                                   "loose_bounds.verdict.repetitions": v["repetitions"],
                                                   "loose_bounds.verdict.n_chains": v["n_chains"],
                                                   "loose_bounds.verdict.lengths": 2 * grid_total(v["lengths"])}),
    ]


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def build_model(cfg: dict) -> BinaryPairwiseMRF:
    return grid_model(cfg["side"], cfg["side"], cfg["coupling"], cfg["field"], torus=cfg["torus"])


def loose_guarantees(model: BinaryPairwiseMRF, target: int, tight, scales, lengths, progress=None, phase: str = "paper"):
    """Guarantees for ``d = e_target`` of systematic (both phases) and DoGS for every looseness factor; DoGS scans
    keyed ``dogs_s<s>_T<T>``."""
    lengths = np.unique(np.asarray(lengths, dtype=np.int64))
    p = model.n_vars
    weights = np.zeros(p)
    weights[target] = 1.0
    longest = systematic(p, int(lengths.max()), phase)
    tight_sys = dobrushin_variation_curve(longest, weights, tight, lengths)
    aligned = {int(t): systematic_scan_ending_on(p, int(t), target) for t in lengths}
    tight_aligned = {t: dobrushin_variation(scan, weights, tight) for t, scan in aligned.items()}
    rows, scans, runs = [], {}, []
    for scale in scales:
        bound = loosen(tight, scale)
        loose_sys = dobrushin_variation_curve(longest, weights, bound, lengths)
        rows += [(scale, "systematic", int(t), float(v), float(w)) for t, v, w in zip(lengths, loose_sys, tight_sys)]
        rows += [(scale, "systematic_aligned", t, float(dobrushin_variation(scan, weights, bound)), float(tight_aligned[t]))
                 for t, scan in aligned.items()]
        for t in lengths:
            result = dogs_scan(systematic(p, int(t), phase), weights, bound)
            scans[f"dogs_s{scale_label(scale)}_T{int(t)}"] = result.scan.indices
            rows.append((scale, "dogs", int(t), result.variation, dobrushin_variation(result.scan, weights, tight)))
            runs.append({"scale": scale, "T": int(t), "dogs_seconds": result.elapsed_seconds})
        if progress:
            last = rows[-1]
            progress(f"s = {scale_label(scale)}: at T = {last[2]} systematic {loose_sys[-1]:.3e}, DoGS {last[3]:.3e} "
                     f"(with C-hat: {last[4]:.3e})")
    frame = pd.DataFrame(rows, columns=["scale", "scan", "T", "bound", "bound_tight"])
    return frame, scans, pd.DataFrame(runs)


@EXPERIMENT.step("compute-guarantees")
def compute_guarantees(ctx):
    cfg = ctx.settings
    model = build_model(cfg)
    tight = influence_binary_pairwise(model)
    ctx.log.info("%dx%d torus %s, coupling %s, max C-hat %.4f, max row sum x 1.5 = %.3f", cfg["side"], cfg["side"],
                 cfg["torus"], cfg["coupling"], tight.data.max(), 1.5 * float(np.asarray(tight.sum(axis=1)).max()))
    lengths = np.union1d(np.union1d(length_grid(**cfg["lengths"]), length_grid(**cfg["bias"]["lengths"])),
                         length_grid(**cfg["verdict"]["lengths"]))
    frame, scans, runs = loose_guarantees(model, cfg["target"], tight, cfg["scales"], lengths, progress=ctx.log.info,
                                          phase=cfg["systematic_phase"])
    seconds = ctx.elapsed()
    extra = {"target": cfg["target"], "weights": "d = e_target", "influence": "s x Theorem 11"}
    outputs = {
        "model": (lambda path: write_npz(path, **model.to_npz_dict()), "40x40 toroidal Ising grid of DoGS §5.6, zero field"),
        "guarantees": (lambda path: write_csv(frame, path),
                       "bound: Dobrushin variation computed with C-bar = scale x C-hat (the scan's certificate in that "
                       "setting); bound_tight: the same scan evaluated with C-hat"),
        "dogs_scans": (lambda path: write_npz(path, **scans), "DoGS scans optimised with scale x C-hat, keys dogs_s<scale>_T<T>"),
        "runs": (lambda path: write_csv(runs, path), "Algorithm 2 timings per scale and T"),
    }
    for key, (write, description) in outputs.items():
        write(ctx.output(key))
        write_meta(ctx.output(key), settings=cfg, seed=None, elapsed_seconds=seconds,
                   extra={**extra, "description": description})


def _bias_by_scale(model, stored: dict, cfg: dict, scans, lengths, n_chains: int, seed_path: tuple, log) -> pd.DataFrame:
    """Mean and s.e. of ``X_target^T`` for every looseness factor and scan; seeds per scale label under ``seed_path``."""
    frames = []
    for scale in cfg["scales"]:
        label = scale_label(scale)
        renamed = {f"dogs_T{key.rsplit('_T', 1)[1]}": value for key, value in stored.items()
                   if key.startswith(f"dogs_s{label}_T")}
        families = {name: scan_family(name, renamed, lengths, model.n_vars, cfg["systematic_phase"], cfg["target"])
                    for name in scans}
        frame = mean_by_scan_and_length(model, families, lengths, target=cfg["target"],
                                        seed=seed_sequence(*seed_path, label), n_chains=n_chains,
                                        initial_state=cfg["bias"]["initial_state"],
                                        progress=lambda m, label=label: log("s = %s: %s", label, m))
        frame.insert(0, "scale", scale)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _model_and_scans(ctx):
    """The model and the stored DoGS scans (``{array name: array}``) that the bias steps sample."""
    model = BinaryPairwiseMRF.from_npz(ctx.input("model"))
    with np.load(ctx.input("dogs_scans")) as stored:
        return model, dict(stored)


@EXPERIMENT.step("compute-bias")
def compute_bias(ctx):
    cfg = ctx.settings
    bias = cfg["bias"]
    model, stored = _model_and_scans(ctx)
    frame = _bias_by_scale(model, stored, cfg, bias["scans"], length_grid(**bias["lengths"]), bias["n_chains"],
                           (ctx.seed, FAMILY, "bias"), ctx.log.info)
    write_csv(frame, ctx.output("bias"))
    write_meta(ctx.output("bias"), settings=cfg, seed=seed_record(ctx.seed, FAMILY, "bias"),
               elapsed_seconds=ctx.elapsed(),
               extra={"threads": ctx.threads, "description": "mean and standard error of X_target^T over n_chains "
                      "independent chains started at initial_state, per looseness factor; seeds per "
                      "(scale label, scan[, T]) under the recorded path"})


@EXPERIMENT.step("compute-bias-verdict")
def compute_bias_verdict(ctx):
    cfg = ctx.settings
    verdict = cfg["verdict"]
    model, stored = _model_and_scans(ctx)
    frames = []
    for repetition in range(verdict["repetitions"]):
        ctx.log.info("repetition %d of %d (%d chains per T)", repetition + 1, verdict["repetitions"], verdict["n_chains"])
        frame = _bias_by_scale(model, stored, cfg, VERDICT_SCANS, length_grid(**verdict["lengths"]), verdict["n_chains"],
                               (ctx.seed, FAMILY, "verdict", repetition), ctx.log.info)
        frame.insert(0, "repetition", repetition)
        frames.append(frame)
    write_csv(pd.concat(frames, ignore_index=True), ctx.output("bias"))
    write_meta(ctx.output("bias"), settings=cfg, seed=seed_record(ctx.seed, FAMILY, "verdict"),
               elapsed_seconds=ctx.elapsed(),
               extra={"threads": ctx.threads, "description": "mean and standard error of X_target^T over n_chains "
                      "independent chains per repetition, looseness factor, scan and T, on the verdict lengths; seeds "
                      "per (repetition, scale label, scan[, T]) under the recorded path"})


def degradation(bias: pd.DataFrame, scales, level: float) -> dict:
    """The §5.6 quantities from the verdict measurement (one or several repetitions pooled).

    For every ``s > 1``: the mean ``|bias|`` of the ``s``-loose DoGS scan over the verdict lengths relative to
    the ``s = 1`` scan's, with a 95% interval; the largest estimate, lower and upper end over ``s``; and the
    share of (repetition, ``s``) in which DoGS settles at or below ``level`` no later than the systematic scan
    ending on the target.
    """
    dogs = bias[bias["scan"] == "dogs"]
    reference = mean_abs_bias_with_se(dogs[dogs["scale"] == 1.0])
    ratios = {s: ratio_interval(mean_abs_bias_with_se(dogs[dogs["scale"] == s]), reference) for s in scales if s > 1.0}
    not_later = []
    for (_, _), group in bias.groupby(["repetition", "scale"]):
        by_scan = {scan: bias_settles_at(g, level) for scan, g in group.groupby("scan")}
        d, sys_t = by_scan.get("dogs"), by_scan.get("systematic_aligned")
        not_later.append(d is not None and (sys_t is None or d <= sys_t))
    return {
        "max_ratio": max(r[0] for r in ratios.values()) if ratios else math.nan,
        "max_ratio_low": max(r[1] for r in ratios.values()) if ratios else math.nan,
        "max_ratio_high": max(r[2] for r in ratios.values()) if ratios else math.nan,
        "share_not_later_than_systematic": float(np.mean(not_later)) if not_later else math.nan,
    }, ratios


@EXPERIMENT.step("summarise")
def summarise(ctx):
    """Per looseness factor: certificates, the C-hat penalty of the scan, and how fast the measured bias settles.

    The figure's numbers (the paper's 300 chains, every T) go to the summary table; the verdict of
    ``dogs_s56_graceful_degradation`` is read from the verdict measurement (:func:`degradation`), pooled over
    its repetitions and, beside it, from each repetition alone. The C-hat guarantee penalty of the loose scan
    is reported as information.
    """
    cfg = ctx.settings
    guarantees = pd.read_csv(ctx.input("guarantees"))
    bias = pd.read_csv(ctx.input("bias"))
    verdict_bias = pd.read_csv(ctx.input("bias_verdict"))
    level = cfg["bias"]["speed_level"]
    t_max = int(length_grid(**cfg["lengths"]).max())
    rows = []
    ref_tight = guarantees[(guarantees["scale"] == 1.0) & (guarantees["scan"] == "dogs")].set_index("T")["bound_tight"]
    for scale in cfg["scales"]:
        g = guarantees[guarantees["scale"] == scale].set_index(["scan", "T"])
        b = bias[bias["scale"] == scale]
        row = {
            "scale": scale,
            "T": t_max,
            "systematic_bound": float(g.loc[("systematic", t_max), "bound"]),
            "dogs_bound": float(g.loc[("dogs", t_max), "bound"]),
            "dogs_bound_tight": float(g.loc[("dogs", t_max), "bound_tight"]),
            "tight_penalty": float(g.loc[("dogs", t_max), "bound_tight"] / ref_tight.loc[t_max]),
            "level": level,
        }
        for scan, group in b.groupby("scan"):
            row[f"{scan}_settles_at"] = bias_settles_at(group, level)
            row[f"{scan}_mean_abs_bias"] = mean_abs_bias(group)
        v = verdict_bias[(verdict_bias["scale"] == scale) & (verdict_bias["scan"] == "dogs")]
        row["verdict_dogs_settles_at"] = [bias_settles_at(group, level) for _, group in v.groupby("repetition")]
        rows.append(row)
    table = pd.DataFrame(rows)
    worst = table.loc[table["scale"].idxmax()]

    pooled, ratios = degradation(verdict_bias, cfg["scales"], level)
    by_seed = [degradation(group, cfg["scales"], level)[0] for _, group in verdict_bias.groupby("repetition")]
    reference_settles = table.loc[table["scale"] == 1.0, "verdict_dogs_settles_at"].iloc[0]
    claims = {
        "dogs_s56_graceful_degradation": measured(
            pooled, by_seed=by_seed, repetitions=int(verdict_bias["repetition"].nunique()),
            chains=int(verdict_bias["n_chains"].iloc[0]), T_min=int(verdict_bias["T"].min()),
            T_max=int(verdict_bias["T"].max()), level=level, reference_settles_at=list(reference_settles),
            ratio_by_scale={scale_label(s): list(r) for s, r in ratios.items()},
            by_scale=[{k: _plain(v) for k, v in r.items()} for r in rows],
            figure_dogs_settles_at=[r.get("dogs_settles_at") for r in rows]),
        "dogs_s56_guarantee_penalty": measured(
            float(worst["tight_penalty"]), scale=float(worst["scale"]), T=t_max,
            dogs_bound=float(worst["dogs_bound"]), systematic_bound=float(worst["systematic_bound"])),
    }
    write_csv(table, ctx.output("summary"))
    write_meta(ctx.output("summary"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "per looseness factor: guarantees at the largest T (bound: with scale x C-hat; "
                                     "tight: with C-hat), the C-hat penalty of the scan against the s = 1 scan, per "
                                     "scan the T at which the median |measured bias| over 3 consecutive lengths "
                                     "reaches the level and the mean |bias| (the figure's chains), and the DoGS "
                                     "settling T of every repetition of the verdict measurement"})
    ctx.write_claims(claims)


def _plain(value):
    """A table cell for the claims file: NaN as None (``write_json`` converts numpy scalars itself)."""
    return None if isinstance(value, (float, np.floating)) and not math.isfinite(value) else value


@EXPERIMENT.step("plot-fig8")
def plot_fig8(ctx):
    from dogs.plotting import ising as plots

    fig = plots.figure_loose_bounds(pd.read_csv(ctx.input("guarantees")), pd.read_csv(ctx.input("bias")),
                                    side=ctx.settings["side"], coupling=ctx.settings["coupling"])
    plots.save(fig, ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
