r"""E4: end-to-end wall-clock time of systematic scan vs DoGS (DoGS §5.2, App. B.2, Figs. 2, 10, 11).

Steps (``python -m dogs.experiments.timing <step> ...``, see :mod:`dogs.workflow.shell`; one
Snakemake rule each, ``rules/timing.smk``)::

    compute            wildcards side, trial; outputs run (JSON record), trace (running estimates, CSV)
    summarise          wildcard side; inputs runs, traces (every trial of the side);
                       outputs summary (JSON), speedup (CSV)
    compute-epsilon    output epsilon (CSV): App. B.2, the long-run DoGS estimate of E[X_1] on the main
                       grid (trial 0) for the early-stopping levels epsilon_factors x epsilon
    summarise-claims   inputs main, small (the two sides' summaries), epsilon; output claims
    plot-fig2          inputs summary, speedup, trace (main grid, trial 0); output figure
    plot-fig10         inputs summary, speedup, traces (main grid, trials 1..); output figure
    plot-fig11         inputs summary, speedup, trace (small grid); output figure

What one trial does (``compute``):

1. **Model.** A ``side x side`` open (non-toroidal) Ising grid, one coupling per edge
   :math:`\theta_{ij} \sim U[0, 0.25]`, zero field (so :math:`\mathbb E_\pi[X_1] = 0` by the
   symmetry :math:`x \mapsto -x`), drawn from the seed stream ``("timing", side, trial)``.
   Target :math:`d = e_1` (variable ``0``, the top-left corner). Building it is not timed
   as setup: both samplers need the model. Nor is the Gibbs kernels' copy of its neighbourhoods
   (:func:`dogs.samplers.gibbs.kernel_graph`, about 11 ms on :math:`10^6` variables), built once
   per model by the first sampling call before that call's clock starts and shared by both scans.
2. **DoGS setup** (timed, the paper's 15 s): the influence bound :math:`\bar C` (Theorem 11), the
   systematic input scan of length ``T = sweeps * side^2`` and its Dobrushin variation
   :math:`\epsilon` (Definition 7), and the length-doubling search of §5.2 (Algorithm 2 on the
   first :math:`\tilde T = 2, 4, 8, \dots` steps until the DoGS variation is at most
   :math:`\epsilon`). ``setup_seconds`` is the sum of those parts, from the median of
   ``SETUP_REPEATS`` (5) repeats of the whole setup (every repeat gives the same scan): a single
   cold run of a few milliseconds varies by a factor of ten with the machine's load.
3. **Sampling** (timed): for each scan, ``systematic_points`` or ``dogs_points`` independent sample points
   ``X_1^T`` with :func:`dogs.samplers.points.sample_points` (fresh all ``+1`` start each time,
   one xoshiro256** stream per scan from the seed stream ``("timing", side, trial, scan)``), recording
   the running estimate of :math:`\mathbb E[X_1]` at checkpoints (about ``checkpoints_per_decade`` per
   decade of sample count). The clock covers everything a user waits for. On the figure's time axis
   the DoGS curve starts at ``setup_seconds``; the systematic curve at 0.

The speed-up of DoGS over the systematic scan after ``n`` sample points (Fig. 2 right) is

.. math::

    S(n) = \frac{n\, T\, t_\mathrm{sys}}{t_\mathrm{setup} + n\, \tilde T\, t_\mathrm{DoGS}},

with :math:`t` the measured mean time per step *of a sample point* (sampling seconds over points
times length, so the state reset and loop overhead are in it). Where both runs reached ``n`` points
the measured ratio of the two clocks is reported too. The paper's implied curve uses its own
numbers (15 s, 12.65 µs for both scans, ``T = 2 \cdot 10^6``, :math:`\tilde T = 16`).

Numba compilation (or cache loading) is done in a warm-up on a tiny grid before any clock starts
and reported as ``warmup_seconds``. Load averages are recorded before and after each timed part.
"""

from __future__ import annotations

import math
import os
import time
from typing import Callable

import numpy as np
import pandas as pd

from dogs.bounds import influence_binary_pairwise
from dogs.experiments.common import Stopwatch
from dogs.io import machine_info, read_json, write_csv, write_json, write_meta
from dogs.models.binary import grid_edges, grid_model
from dogs.samplers.points import sample_points
from dogs.scans.dogs import length_doubling_dogs
from dogs.scans.guarantees import systematic as systematic_in_phase
from dogs.scans.variation import dobrushin_variation
from dogs.seeds import make_rng, seed_record, seed_sequence
from dogs.summaries import first_staying_at_or_below, measured_speedup, predicted_speedup
from dogs.workflow.cost import BYTES_PER_STEP, BYTES_PER_VARIABLE, Work
from dogs.workflow.shell import Experiment, SettingsError

__all__ = [
    "EXPERIMENT",
    "PAPER",
    "TARGET_VARIABLE",
    "build_claims",
    "check_side_and_trial",
    "grid_for_trial",
    "measured_speedup",
    "predicted_speedup",
    "run_trial",
    "summarise_trials",
    "target_weights",
]

FAMILY = "timing"

#: The paper's published figures (DoGS §2.1, §5.2 incl. footnote 1, App. B.2): the paper's side only.
PAPER = {
    "setup_seconds": 15.0,  # §5.2: DoGS setup on the 10^6-variable model, 2015 MacBook Pro
    "seconds_per_step": 12.65e-6,  # §5.2 footnote 1: one Gibbs step
    "dogs_length": 16,  # §5.2 (1000 x 1000) and App. B.2 (300 x 300)
    "systematic_length_main": 2 * 10**6,  # §5.2
    "systematic_length_small": 190_000,  # App. B.2 text ("190K"), about 2 sweeps of 300^2
}

TARGET_VARIABLE = 0  # X_1, the top-left corner (d = e_1)

def check_settings(settings: dict) -> None:
    """The one check spanning several keys: both scans draw enough points for every speed-up read."""
    largest = max(settings["speedup_samples"])
    for key in ("systematic_points", "dogs_points"):
        if settings[key] < largest:
            raise SettingsError(f"config key timing.{key} = {settings[key]} is below the largest of "
                                f"timing.speedup_samples ({largest}): the measured speed-up there needs that many points")


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    out = {}
    for key in ("main_side", "small_side"):
        p = s[key] ** 2
        out[f"timing.{key}"] = p * BYTES_PER_VARIABLE + s["systematic_sweeps"] * p * BYTES_PER_STEP
    return out


#: timing_compute in units of one Gibbs step: the model and the five timed DoGS setups cost about as much per
#: variable as this many systematic sample points of two sweeps (scaling benchmark, 10^6 variables: 1.2 us per
#: variable for the model, 0.2 us per setup, 8.4 ns per two-sweep point), and a DoGS sample point (16 steps and
#: the reset of the visited sites, 0.4 us) as this many steps.
_TIMING_SETUP_POINTS = 250
_TIMING_DOGS_POINT_STEPS = 100


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    trials = s["main_trials"] + 1  # the main grid's trials and the small grid's one
    variables = s["main_trials"] * s["main_side"] ** 2 + s["small_side"] ** 2  # over all trials
    return [
        # the systematic points (sweeps * p Gibbs steps each) and, in the same units, the model and setups
        Work("timing_compute", {"timing.systematic_sweeps": s["systematic_sweeps"], "timing.main_side": variables,
                                "timing.systematic_points": s["systematic_points"] + _TIMING_SETUP_POINTS},
             jobs=trials, seconds=trials * s["full_reset_probe_seconds"]),
        Work("timing_compute", {"timing.dogs_points": trials * s["dogs_points"] * _TIMING_DOGS_POINT_STEPS}, jobs=0),
        Work("timing_compute_epsilon", {"timing.epsilon_factors": len(s["epsilon_factors"]),
                                        "timing.epsilon_points": s["epsilon_points"]}),
    ]


# Every other key is checked on its own by config/schema.yaml (the shell).
EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def check_side_and_trial(settings: dict, side: int, trial: int | None = None) -> None:
    """The grid side must be ``main_side`` or ``small_side``; the trial one of that grid's trials."""
    main, small = settings["main_side"], settings["small_side"]
    if side not in (main, small):
        raise SettingsError(f"grid side {side} is neither timing.main_side ({main}) nor timing.small_side ({small})")
    if trial is None:
        return
    n_trials = settings["main_trials"] if side == main else 1
    if not 0 <= trial < n_trials:
        raise SettingsError(f"trial {trial} does not exist on the {side}x{side} grid (trials 0..{n_trials - 1}; "
                            "timing.main_trials on the main grid, one on the small grid)")


# --------------------------------------------------------------------------- pieces
def target_weights(n_vars: int) -> np.ndarray:
    """:math:`d = e_1`: the target ``X_1`` (:data:`TARGET_VARIABLE`) alone."""
    weights = np.zeros(n_vars)
    weights[TARGET_VARIABLE] = 1.0
    return weights


def grid_for_trial(side: int, max_coupling: float, root_seed: int, trial: int):
    """The trial's open ``side x side`` grid, :math:`\\theta_{ij} \\sim U[0, max\\_coupling]`, zero field."""
    rng = make_rng(root_seed, FAMILY, side, trial)
    couplings = rng.uniform(0.0, max_coupling, len(grid_edges(side, side)))
    return grid_model(side, side, couplings, field=0.0, torus=False)


def _warm_up(settings: dict) -> float:
    """Compile or load every kernel the clocks will run, on a tiny grid; returns the seconds spent."""
    tic = time.perf_counter()
    model = grid_for_trial(4, settings["max_coupling"], 0, 0)
    bound = influence_binary_pairwise(model)
    weights = target_weights(model.n_vars)
    scan = systematic_in_phase(model.n_vars, 64, "paper")
    epsilon = dobrushin_variation(scan, weights, bound)
    length_doubling_dogs(scan, weights, bound, epsilon)
    for sparse in (True, False):
        sample_points(model, scan.prefix(8), seed=np.random.SeedSequence(0), target=TARGET_VARIABLE,
                      budget_seconds=0.01, per_decade=2, max_points=3, sparse_reset=sparse)
    return time.perf_counter() - tic


def _loadavg() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def _quiet(message: str) -> None:
    """The default progress sink of :func:`run_trial`: drop the line."""


# --------------------------------------------------------------------------- compute
#: The DoGS setup of a trial is timed this many times and the median run is kept: one cold run of a
#: few milliseconds swings by a factor of ten with what else the machine does (choice).
SETUP_REPEATS = 5


def _bound_and_epsilon(model, weights, length: int, settings: dict):
    """The setup's first three parts: ``(bound, systematic scan, epsilon, seconds per part)``."""
    with Stopwatch() as sw_bound:
        bound = influence_binary_pairwise(model)
    with Stopwatch() as sw_scan:
        systematic = systematic_in_phase(model.n_vars, length, settings["systematic_order"])
    with Stopwatch() as sw_eps:
        epsilon = dobrushin_variation(systematic, weights, bound)
    parts = {
        "bound_seconds": sw_bound.seconds,
        "systematic_scan_seconds": sw_scan.seconds,
        "epsilon_seconds": sw_eps.seconds,
    }
    return bound, systematic, epsilon, parts


def _timed_setup(model, weights, length: int, settings: dict):
    """The DoGS setup once: ``(bound, systematic scan, epsilon, length-doubling result, seconds per part)``."""
    bound, systematic, epsilon, parts = _bound_and_epsilon(model, weights, length, settings)
    with Stopwatch() as sw_doubling:
        doubling = length_doubling_dogs(systematic, weights, bound, epsilon, start_length=settings["doubling_start"])
    parts["doubling_seconds"] = sw_doubling.seconds
    return bound, systematic, epsilon, doubling, parts


def run_trial(settings: dict, root_seed: int, side: int, trial: int, *,
              progress: Callable[[str], None] = _quiet) -> tuple[dict, pd.DataFrame]:
    """One trial: model, timed DoGS setup, timed sampling of both scans. Returns (run record, tidy trace).

    ``settings`` is the validated ``timing`` config slice; each scan draws a fixed number of sample points
    (``systematic_points``, ``dogs_points``), so the estimates do not depend on the machine's speed, only the
    clocks do; ``progress`` gets a line per stage.
    """
    check_side_and_trial(settings, side, trial)
    started = time.perf_counter()
    progress(f"trial {trial} on the {side}x{side} grid: warming up the kernels (load {_loadavg()})")
    warmup_seconds = _warm_up(settings)

    with Stopwatch() as sw:
        model = grid_for_trial(side, settings["max_coupling"], root_seed, trial)
    model_seconds = sw.seconds
    p = model.n_vars
    length = settings["systematic_sweeps"] * p
    weights = target_weights(p)
    progress(f"model built in {model_seconds:.2f} s (p = {p}); timing the DoGS setup")

    load_setup = _loadavg()
    timings = []
    for _ in range(SETUP_REPEATS):  # every repeat computes the same bound, epsilon and scan; the last is kept
        bound, systematic, epsilon, doubling, parts = _timed_setup(model, weights, length, settings)
        timings.append(parts)
    parts = sorted(timings, key=lambda t: sum(t.values()))[SETUP_REPEATS // 2]
    setup_seconds = float(sum(parts.values()))
    load_setup_end = _loadavg()
    dogs = doubling.scan
    progress(f"setup {setup_seconds:.3f} s ({', '.join(f'{k} {v:.3f}' for k, v in parts.items())}); "
             f"epsilon = {epsilon:.4e}, DoGS length {dogs.length} with bound {doubling.variation:.4e} "
             f"(tried {doubling.lengths_tried.tolist()})")

    runs, rows = {}, []
    for name, scan in (("systematic", systematic), ("dogs", dogs)):
        load_before = _loadavg()
        points = settings[f"{name}_points"]
        progress(f"sampling {points} points of the {name} scan (T = {scan.length}) (load {load_before})")
        run = sample_points(model, scan, seed=seed_sequence(root_seed, FAMILY, side, trial, name),
                            target=TARGET_VARIABLE, budget_seconds=None,
                            per_decade=settings["checkpoints_per_decade"], max_points=points)
        offset = setup_seconds if name == "dogs" else 0.0
        point = run.total_seconds / run.n_points
        runs[name] = {
            "length": scan.length,
            "n_points": run.n_points,
            "sampling_seconds": run.total_seconds,
            "seconds_per_sample_point": point,
            "seconds_per_step": point / scan.length,
            "estimate": float(run.estimates[-1]),
            "std_error": float(run.std_errors[-1]),
            "reset": run.reset,
            "clock_offset_seconds": offset,
            "loadavg_before": load_before,
            "loadavg_after": _loadavg(),
        }
        progress(f"  {run.n_points} points in {run.total_seconds:.2f} s: {point * 1e3:.4g} ms per point, "
                 f"{point / scan.length * 1e9:.3f} ns per step (reset: {run.reset}); estimate {run.estimates[-1]:+.5f} "
                 f"± {run.std_errors[-1]:.5f}")
        rows.append(pd.DataFrame({
            "side": side, "trial": trial, "scan": name, "length": scan.length, "n_samples": run.counts,
            "sampling_seconds": run.seconds, "wall_clock_seconds": run.seconds + offset, "sum": run.sums,
            "estimate": run.estimates, "std_error": run.std_errors,
        }))

    probe = None
    if settings["full_reset_probe_seconds"] > 0 and dogs.length < p:
        run = sample_points(model, dogs, seed=seed_sequence(root_seed, FAMILY, side, trial, "full-reset-probe"),
                            target=TARGET_VARIABLE, budget_seconds=settings["full_reset_probe_seconds"],
                            per_decade=settings["checkpoints_per_decade"], sparse_reset=False)
        probe = {"n_points": run.n_points, "seconds_per_sample_point": run.total_seconds / run.n_points,
                 "note": "DoGS points with a full p-byte state reset instead of resetting the visited sites; "
                         "not used in the speed-up"}
        progress(f"full-reset probe: {probe['seconds_per_sample_point'] * 1e9:.0f} ns per DoGS point")

    record = {
        "experiment": "DoGS §5.2 / App. B.2 end-to-end timing",
        "side": side,
        "trial": trial,
        "n_vars": p,
        "model": {"grid": [side, side], "torus": False, "theta": f"U[0, {float(settings['max_coupling'])}] per edge",
                  "field": 0.0, "n_edges": model.n_edges, "build_seconds": model_seconds},
        "target": "E[X_1], X_1 = variable 0 (top-left corner); d = e_1; exact value 0 by symmetry",
        "systematic_order": settings["systematic_order"],
        "systematic_length": length,
        "systematic_bound": float(epsilon),
        "dogs_length": dogs.length,
        "dogs_bound": float(doubling.variation),
        "dogs_scan": dogs.indices,
        "lengths_tried": doubling.lengths_tried,
        "variations_tried": doubling.variations_tried,
        "setup_seconds": setup_seconds,
        "setup_parts": parts,
        "setup_seconds_repeats": [float(sum(t.values())) for t in timings],
        "setup_loadavg": [load_setup, load_setup_end],
        "warmup_seconds": warmup_seconds,
        "sampling": runs,
        "dogs_full_reset_probe": probe,
        "seconds_per_step_systematic": runs["systematic"]["seconds_per_step"],
        "seconds_per_step_dogs": runs["dogs"]["seconds_per_step"],
        "machine": {**machine_info(), "loadavg_at_end": _loadavg()},
        "elapsed_seconds": time.perf_counter() - started,
    }
    return record, pd.concat(rows, ignore_index=True)


@EXPERIMENT.step("compute")
def compute(ctx):
    side, trial = ctx.wildcard("side"), ctx.wildcard("trial")
    check_side_and_trial(ctx.settings, side, trial)
    record, trace = run_trial(ctx.settings, ctx.seed, side, trial, progress=ctx.log.info)
    record["seed"] = seed_record(ctx.seed, FAMILY, side, trial)
    write_csv(trace, ctx.output("trace"))
    write_json(ctx.output("run"), record)
    for name in ("trace", "run"):
        write_meta(ctx.output(name), settings=ctx.settings, seed=record["seed"], elapsed_seconds=ctx.elapsed())
    ctx.log.info("wrote %s and %s", ctx.output("run"), ctx.output("trace"))


def epsilon_sweep(settings: dict, root_seed: int, *, progress: Callable[[str], None] = _quiet) -> pd.DataFrame:
    r"""App. B.2: does a smaller early-stopping level shrink the long-run bias of the DoGS estimate?

    On the main grid (trial 0), for every factor ``f`` of ``epsilon_factors``, length doubling finds the
    shortest power-of-two DoGS scan with Dobrushin variation at most :math:`f\,\epsilon` (``epsilon`` =
    the systematic scan's own variation, as in §5.2), and ``epsilon_points`` independent sample points
    estimate :math:`\mathbb E[X_1^T]` (all spins start at +1; :math:`\mathbb E_\pi[X_1] = 0` by symmetry,
    so the estimate is the bias, within its standard error). Theorem 8 bounds it by ``2 V``.
    """
    side = settings["main_side"]
    model = grid_for_trial(side, settings["max_coupling"], root_seed, 0)
    p = model.n_vars
    weights = target_weights(p)
    bound, systematic, epsilon, _ = _bound_and_epsilon(model, weights, settings["systematic_sweeps"] * p, settings)
    rows = []
    for k, factor in enumerate(settings["epsilon_factors"]):
        doubling = length_doubling_dogs(systematic, weights, bound, factor * epsilon,
                                        start_length=settings["doubling_start"])
        run = sample_points(model, doubling.scan, seed=seed_sequence(root_seed, FAMILY, side, 0, "epsilon", k),
                            target=TARGET_VARIABLE, budget_seconds=None, max_points=settings["epsilon_points"])
        rows.append({"side": side, "factor": factor, "epsilon": factor * epsilon, "dogs_length": doubling.scan.length,
                     "dogs_variation": doubling.variation, "theorem8_bound": 2 * doubling.variation,
                     "n_points": run.n_points, "estimate": float(run.estimates[-1]),
                     "std_error": float(run.std_errors[-1])})
        progress(f"epsilon x {factor:g}: DoGS length {doubling.scan.length}, variation {doubling.variation:.4g}; "
                 f"estimate {run.estimates[-1]:+.5f} ± {run.std_errors[-1]:.5f} from {run.n_points} points")
    return pd.DataFrame(rows)


@EXPERIMENT.step("compute-epsilon")
def compute_epsilon(ctx):
    frame = epsilon_sweep(ctx.settings, ctx.seed, progress=ctx.log.info)
    write_csv(frame, ctx.output("epsilon"))
    write_meta(ctx.output("epsilon"), settings=ctx.settings, seed=seed_record(ctx.seed, FAMILY, "epsilon"),
               elapsed_seconds=ctx.elapsed(),
               extra={"description": "per early-stopping factor: DoGS length and variation, and the mean of X_1 over "
                                     "epsilon_points independent sample points (the bias: E_pi[X_1] = 0)"})


# --------------------------------------------------------------------------- summarise
_HEADLINE = ("dogs_length", "dogs_bound", "systematic_length", "systematic_bound", "setup_seconds",
             "seconds_per_step_systematic", "seconds_per_step_dogs")


def _speedup_rows(record: dict, trace: pd.DataFrame, samples, paper_curve: bool) -> pd.DataFrame:
    sys_run, dogs_run = record["sampling"]["systematic"], record["sampling"]["dogs"]
    n_max = max(max(samples), int(trace["n_samples"].max()))
    n = np.unique(np.concatenate([np.round(np.logspace(0, math.log10(n_max), 200)), samples]).astype(np.int64))
    kwargs = {"setup_seconds": record["setup_seconds"]}
    predicted = predicted_speedup(n, systematic_point_seconds=sys_run["seconds_per_sample_point"],
                                  dogs_point_seconds=dogs_run["seconds_per_sample_point"], **kwargs)
    part = {name: trace[trace["scan"] == name] for name in ("systematic", "dogs")}
    measured = measured_speedup(n, systematic=(part["systematic"]["n_samples"], part["systematic"]["sampling_seconds"]),
                                dogs=(part["dogs"]["n_samples"], part["dogs"]["sampling_seconds"]), **kwargs)
    curves = [("predicted", predicted), ("measured", measured)]
    if paper_curve:  # only where the paper states its setup time: the 10^6-variable grid of §5.2
        curves.append(("paper_implied", predicted_speedup(
            n, setup_seconds=PAPER["setup_seconds"],
            systematic_point_seconds=PAPER["systematic_length_main"] * PAPER["seconds_per_step"],
            dogs_point_seconds=PAPER["dogs_length"] * PAPER["seconds_per_step"])))
    frames = []
    for kind, values in curves:
        frames.append(pd.DataFrame({"side": record["side"], "trial": record["trial"], "kind": kind, "n_samples": n,
                                    "speedup": values}))
    return pd.concat(frames, ignore_index=True).dropna(subset=["speedup"])


def _settles_at(trace: pd.DataFrame, scan: str, level: float):
    """First wall-clock time (setup included) from which ``|running estimate|`` stays at most ``level``; None if
    it never does by the end of the run (E[X_1] = 0 by symmetry)."""
    part = trace[trace["scan"] == scan]
    return first_staying_at_or_below(part["wall_clock_seconds"], np.abs(part["estimate"]), level)


def summarise_trials(settings: dict, records: list[dict], traces: list[pd.DataFrame]) -> tuple[dict, pd.DataFrame]:
    """Per-side summary (headline = trial 0, the figure's run; spread over all trials) and the speed-up table."""
    if len(records) != len(traces) or not records:
        raise SettingsError(f"summarise needs one trace per run record, got {len(records)} runs and {len(traces)} traces")
    order = np.argsort([r["trial"] for r in records])
    records = [records[i] for i in order]
    traces = [traces[i] for i in order]
    sides = {r["side"] for r in records}
    if len(sides) != 1:
        raise SettingsError(f"summarise one side at a time, got runs of sides {sorted(sides)}")
    side = sides.pop()
    samples = settings["speedup_samples"]
    is_main = side == settings["main_side"]
    speedup = pd.concat([_speedup_rows(r, t, samples, is_main) for r, t in zip(records, traces)], ignore_index=True)
    head = records[0]

    def at(kind, trial, n):
        rows = speedup[(speedup["kind"] == kind) & (speedup["trial"] == trial) & (speedup["n_samples"] == n)]
        return float(rows["speedup"].iloc[0]) if len(rows) else None

    sys_run, dogs_run = head["sampling"]["systematic"], head["sampling"]["dogs"]
    summary = {
        "experiment": "DoGS §5.2 / App. B.2 end-to-end timing",
        "side": side,
        "role": "main (Figs. 2, 10)" if is_main else "small (Fig. 11)",
        "n_vars": head["n_vars"],
        "headline_trial": head["trial"],
        **{key: head[key] for key in _HEADLINE},
        "dogs_bound_over_systematic_bound": head["dogs_bound"] / head["systematic_bound"],
        "setup_parts": head["setup_parts"],
        "seconds_per_sample_point_systematic": sys_run["seconds_per_sample_point"],
        "seconds_per_sample_point_dogs": dogs_run["seconds_per_sample_point"],
        "n_points_systematic": sys_run["n_points"],
        "n_points_dogs": dogs_run["n_points"],
        "estimate_systematic": [sys_run["estimate"], sys_run["std_error"]],
        "estimate_dogs": [dogs_run["estimate"], dogs_run["std_error"]],
        "reset": {"systematic": sys_run["reset"], "dogs": dogs_run["reset"]},
        "dogs_full_reset_probe": head["dogs_full_reset_probe"],
        "speedup": {str(n): {"predicted": at("predicted", head["trial"], n), "measured": at("measured", head["trial"], n),
                             "paper_implied": at("paper_implied", head["trial"], n)} for n in samples},
        "speedup_limit": sys_run["seconds_per_sample_point"] / dogs_run["seconds_per_sample_point"],
        "settle": {"level": float(settings["settle_level"]),
                   "seconds": [{"trial": int(r["trial"]), **{scan: _settles_at(t, scan, settings["settle_level"])
                                                            for scan in ("systematic", "dogs")}}
                               for r, t in zip(records, traces)]},
        "machine": head["machine"],
        "loadavg": {"setup": head["setup_loadavg"],
                    "systematic": [sys_run["loadavg_before"], sys_run["loadavg_after"]],
                    "dogs": [dogs_run["loadavg_before"], dogs_run["loadavg_after"]]},
        "points": {"systematic": int(settings["systematic_points"]), "dogs": int(settings["dogs_points"])},
        "paper": {
            "setup_seconds": PAPER["setup_seconds"],
            "seconds_per_step": PAPER["seconds_per_step"],
            "dogs_length": PAPER["dogs_length"],
            "systematic_length": PAPER["systematic_length_main" if is_main else "systematic_length_small"],
            "machine": "2015 MacBook Pro",
        },
        "targets": {
            "setup_seconds": float(settings["target_setup_seconds"]),
            "seconds_per_step_systematic": float(settings["target_step_seconds"]),
            "seconds_per_sample_point_systematic": float(settings["target_point_seconds"]),
            "note": "engineering targets for the 1000 x 1000 run; not asserted in tests",
            "met": {
                "setup_seconds": head["setup_seconds"] <= settings["target_setup_seconds"],
                "seconds_per_step_systematic": head["seconds_per_step_systematic"] <= settings["target_step_seconds"],
                "seconds_per_sample_point_systematic":
                    sys_run["seconds_per_sample_point"] <= settings["target_point_seconds"],
            },
        },
        "trials": [
            {"trial": r["trial"], **{key: r[key] for key in _HEADLINE},
             "seconds_per_sample_point_systematic": r["sampling"]["systematic"]["seconds_per_sample_point"],
             "seconds_per_sample_point_dogs": r["sampling"]["dogs"]["seconds_per_sample_point"],
             "estimate_systematic": [r["sampling"]["systematic"]["estimate"], r["sampling"]["systematic"]["std_error"]],
             "estimate_dogs": [r["sampling"]["dogs"]["estimate"], r["sampling"]["dogs"]["std_error"]],
             "speedup": {str(n): at("predicted", r["trial"], n) for n in samples},
             "loadavg": {"setup": r["setup_loadavg"],
                         "systematic": [r["sampling"]["systematic"]["loadavg_before"],
                                        r["sampling"]["systematic"]["loadavg_after"]],
                         "dogs": [r["sampling"]["dogs"]["loadavg_before"], r["sampling"]["dogs"]["loadavg_after"]]}}
            for r in records
        ],
    }
    return summary, speedup


@EXPERIMENT.step("summarise")
def summarise(ctx):
    side = ctx.wildcard("side")
    check_side_and_trial(ctx.settings, side)
    run_paths, trace_paths = ctx.inputs("runs"), ctx.inputs("traces")
    if len(run_paths) != len(trace_paths):
        raise SettingsError(f"inputs runs ({len(run_paths)} files) and traces ({len(trace_paths)}) must pair up")
    records = [read_json(path) for path in run_paths]
    other = [r["side"] for r in records if r["side"] != side]
    if other:
        raise SettingsError(f"summarising the side-{side} grid but a run is of side {other[0]}")
    summary, speedup = summarise_trials(ctx.settings, records, [pd.read_csv(path) for path in trace_paths])
    write_json(ctx.output("summary"), summary)
    write_csv(speedup, ctx.output("speedup"))
    for name in ("summary", "speedup"):
        write_meta(ctx.output(name), settings=ctx.settings, seed=ctx.seed, elapsed_seconds=ctx.elapsed())
    ctx.log.info("wrote %s: setup %.3f s, DoGS length %d, speed-up %s", ctx.output("summary"),
                 summary["setup_seconds"], summary["dogs_length"], summary["speedup"])


# --------------------------------------------------------------------------- claims
def _speedups(summary: dict, kind: str) -> list[tuple[int, float]]:
    """``[(sample points, speed-up)]`` of one curve (``measured`` or ``predicted``), increasing in points."""
    return [(int(n), summary["speedup"][n][kind]) for n in sorted(summary["speedup"], key=int)
            if summary["speedup"][n][kind] is not None]


def modal_length(lengths) -> tuple[int | None, int]:
    """The most common DoGS length over the grids and how many grids have it; ``(None, count)`` on a tie.

    The paper states one length for a random grid; over independent grids of the same model the typical
    (modal) length is the one that speaks to it, not the length of one grid picked by its label."""
    counts = pd.Series(list(lengths)).value_counts()
    if counts.empty:
        return None, 0
    tied = counts[counts == counts.iloc[0]]
    return (int(tied.index[0]) if len(tied) == 1 else None), int(counts.iloc[0])


def build_claims(main: dict, small: dict, epsilon: pd.DataFrame | None = None) -> dict:
    """Measured claims of the timing family (ids ``timing_e2e_*``); ``config/claims/dogs.yaml`` judges and words them."""
    from dogs.claims import measured

    trials = main["trials"]
    setups = [t["setup_seconds"] for t in trials]
    claims = {
        "timing_e2e_setup_seconds": measured(
            main["setup_seconds"], setup_seconds_trials=setups, parts=main["setup_parts"],
            loadavg=main["loadavg"]["setup"], n_vars=main["n_vars"], trials=len(trials), setup_seconds_max=max(setups),
            cpu=main["machine"]["cpu"]),
        "timing_e2e_step_seconds": measured(
            main["seconds_per_step_systematic"], seconds_per_step_dogs=main["seconds_per_step_dogs"],
            loadavg=main["loadavg"]["systematic"],
            seconds_per_sample_point=main["seconds_per_sample_point_systematic"],
            systematic_length=main["systematic_length"], cpu=main["machine"]["cpu"]),
    }
    for key, summary in (("timing_e2e_dogs_length", main), ("timing_e2e_dogs_length_small", small)):
        trials = sorted(summary["trials"], key=lambda t: t["trial"])
        these = [t["dogs_length"] for t in trials]
        mode, mode_count = modal_length(these)
        claims[key] = measured(
            {"mode_length": mode, "median_length": float(np.median(these)), "min_length": min(these),
             "max_length": max(these)}, dogs_length=these, mode_count=mode_count, grids=len(these),
            fig2_grid_length=these[0], dogs_bound=summary["dogs_bound"], epsilon=summary["systematic_bound"],
            side=summary["side"], systematic_length=summary["systematic_length"],
            figure=2 if key == "timing_e2e_dogs_length" else 11)

    for key, summary in (("timing_e2e_speedup", main), ("timing_e2e_speedup_small", small)):
        clocks = _speedups(summary, "measured")
        predicted = _speedups(summary, "predicted")
        claims[key] = measured(
            {"speedup_first": clocks[0][1] if clocks else None, "speedup_last": clocks[-1][1] if clocks else None,
             "growth": clocks[-1][1] / clocks[0][1] if clocks else None},
            speedup=summary["speedup"], speedup_limit=summary["speedup_limit"],
            measured_clocks=[{"points": n, "speedup": v} for n, v in clocks], predicted=[v for _, v in predicted])

    settle = main["settle"]
    ratios = [0.0 if t["dogs"] is None else (math.inf if t["systematic"] is None else t["systematic"] / t["dogs"])
              for t in settle["seconds"]]
    claims["dogs_s52_estimate_settles_faster"] = measured(
        {"min_ratio": float(min(ratios)), "median_ratio": float(np.median(ratios))}, settle=settle,
        grids=len(ratios), clocks=settle["seconds"])

    if epsilon is not None and len(epsilon) >= 2:
        ordered = epsilon.sort_values("factor", ascending=False)
        first, last = ordered.iloc[0], ordered.iloc[-1]
        drop = (abs(first["estimate"]) - abs(last["estimate"])) / math.hypot(first["std_error"], last["std_error"])
        claims["timing_b2_bias_reducible_by_epsilon"] = measured(
            {"bias_drop_in_se": float(drop),
             "bias_ratio": float(abs(last["estimate"]) / abs(first["estimate"])) if first["estimate"] != 0 else None},
            rows=ordered.to_dict(orient="records"))

    # Theorem 8 for a ±1 variable: |E_T[X_1] - E_pi[X_1]| <= 2 TV <= 2 V; check the long-run DoGS estimates against it.
    rows = []
    for summary in (main, small):
        for t in summary["trials"]:
            estimate, error = t["estimate_dogs"]
            rows.append((abs(estimate) <= 2 * t["dogs_bound"] + 3 * error, abs(estimate) > 3 * error))
    within = sum(ok for ok, _ in rows)
    detected = sum(seen for _, seen in rows)
    claims["timing_e2e_dogs_bias"] = measured(
        {"share_within_bound": within / len(rows)}, runs=len(rows), within_bound=within, detectable=detected,
        main_estimate=main["estimate_dogs"][0], main_std_error=main["estimate_dogs"][1])
    return claims


@EXPERIMENT.step("summarise-claims")
def summarise_claims(ctx):
    main, small = read_json(ctx.input("main")), read_json(ctx.input("small"))
    for role, summary, key in (("main", main, "main_side"), ("small", small, "small_side")):
        if summary["side"] != ctx.settings[key]:
            raise SettingsError(f"input {role} is the summary of the side-{summary['side']} grid, "
                                f"not of timing.{key} = {ctx.settings[key]}")
    epsilon = pd.read_csv(ctx.input("epsilon")) if ctx.has_input("epsilon") else None
    ctx.write_claims(build_claims(main, small, epsilon))
    write_meta(ctx.output("claims"), settings=ctx.settings, seed=ctx.seed, elapsed_seconds=ctx.elapsed())


# --------------------------------------------------------------------------- plots
def _plot(ctx, *, role_key: str, trials: bool) -> None:
    """Read the side's summary and speed-up table and the trials' traces; write one figure."""
    from dogs.plotting.style import save_figure
    from dogs.plotting.timing import plot_main, plot_trials

    summary = read_json(ctx.input("summary"))
    if summary["side"] != ctx.settings[role_key]:
        raise SettingsError(f"step {ctx.step} plots the timing.{role_key} = {ctx.settings[role_key]} grid, "
                            f"but input summary is of side {summary['side']}")
    speedup = pd.read_csv(ctx.input("speedup"))
    if trials:
        figure = plot_trials(summary, [pd.read_csv(path) for path in ctx.inputs("traces")], speedup)
    else:
        figure = plot_main(summary, pd.read_csv(ctx.input("trace")), speedup)
    save_figure(figure, ctx.output("figure"))
    ctx.log.info("wrote %s", ctx.output("figure"))


@EXPERIMENT.step("plot-fig2")
def plot_fig2(ctx):
    """Fig. 2: the main grid, trial 0."""
    _plot(ctx, role_key="main_side", trials=False)


@EXPERIMENT.step("plot-fig10")
def plot_fig10(ctx):
    """Fig. 10: the main grid, the further trials."""
    _plot(ctx, role_key="main_side", trials=True)


@EXPERIMENT.step("plot-fig11")
def plot_fig11(ctx):
    """Fig. 11: the small grid."""
    _plot(ctx, role_key="small_side", trials=False)


if __name__ == "__main__":
    EXPERIMENT.run()
