r"""DoGS §5.1 and Appendix B.1 (Figs. 1, 9): TV guarantees of Gibbs scans on a random 10x10 Ising model.

Model (one per replicate ``r``; ``r = 0`` is Fig. 1, ``r = 1..9`` Fig. 9): a non-toroidal
``side x side`` grid, ``pi(x) ∝ exp(sum_{(i,j)} theta_ij x_i x_j + sum_i theta_i x_i)`` with each edge
counted once, unary ``theta_i`` drawn uniformly from the set ``field_values`` (paper: {0, 1}) and
couplings ``theta_ij ~ U[coupling_range]`` (paper: [0, 0.25]). ``C_bar`` is DoGS Theorem 11 and
``d = 1`` (full TV), so the Dobrushin variation (Definition 7) bounds ``||pi_T - pi||_TV`` (Theorem 8).
The four scans and their guarantee curves are those of :mod:`dogs.scans.guarantees`.

Beyond the paper (``compute-measure``): with pgmpy junction-tree marginals ``p_i = pi(X_i = +1)``
as truth, ``N`` independent chains per scan and per ``T`` (all started at ``+1``) estimate
``p_hat_i`` and the error ``sum_i |p_hat_i - p_i|``, the sum of the marginal TVs. With ``d = 1`` the
guarantee bounds the ``d``-weighted TV (Definition 4), and every ``f(x) = sum_i g_i(x_i)`` with
``g_i`` in ``[0, 1]`` has 1-bounded differences, so the sum of marginal TVs never exceeds the guarantee:
the measured error sits below it up to Monte Carlo noise (:func:`dogs.summaries.noise_floor`).

Steps (``python -m dogs.experiments.ising10 <step> ...``, see :mod:`dogs.workflow.shell`):

``compute-guarantees``  outputs model, guarantees (replicate, scan, T, bound), scans (the largest T),
                        dogs_scans (every T), runs (Algorithm 2 timings); wildcard ``rep``.
``compute-measure``     outputs exact (junction-tree marginals) and measured
                        (replicate, scan, T, error, bound, noise_floor, n_chains); wildcard ``rep``.
``summarise``           outputs summary (every replicate and T, one column per scan) and claims.
``plot-fig1``, ``plot-fig9``  the figures.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dogs.bounds import influence_binary_pairwise
from dogs.claims import measured
from dogs.experiments.common import scan_family, write_guarantee_results
from dogs.io import write_csv, write_meta, write_npz
from dogs.models.binary import BinaryPairwiseMRF, grid_edges, grid_model
from dogs.samplers.recording import samples_by_scan
from dogs.scans.guarantees import guarantee_curves, length_grid, steps_to_reach
from dogs.seeds import make_rng, seed_record, seed_sequence
from dogs.summaries import first_staying_at_or_below, noise_floor
from dogs.workflow.cost import BYTES_PER_STEP, BYTES_PER_VARIABLE, Work, grid_sum, grid_total
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "ising10"


def check_settings(settings: dict) -> None:
    """The checks that span several keys (the schema checks each key on its own)."""
    n_rep = settings["n_replicates"]
    bad = [r for r in settings["measure"]["replicates"] if r >= n_rep]
    if bad:
        raise SettingsError(f"config key ising10.measure.replicates: replicates {bad} do not exist (n_replicates = {n_rep})")
    low, high = settings["coupling_range"]
    if high < low:
        raise SettingsError(f"config key ising10.coupling_range: high < low: {settings['coupling_range']!r}")
    for key, spec in (("lengths", settings["lengths"]), ("measure.lengths", settings["measure"]["lengths"])):
        if spec["stop"] < spec["start"]:
            raise SettingsError(f"config key ising10.{key}: stop < start: {spec!r}")


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    p = s["side"] ** 2
    count, total = grid_sum(s["lengths"])
    m = s["measure"]
    m_count, _ = grid_sum(m["lengths"])
    return {
        "ising10.side": p * BYTES_PER_VARIABLE,
        "ising10.lengths": total * BYTES_PER_STEP * 3 + count * p * 8,
        "ising10.measure.n_chains": m["n_chains"] * (p * 2 + m_count * len(m["scans"]) * 8),
    }


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    p = s["side"] ** 2
    count, _ = grid_sum(s["lengths"])
    m = s["measure"]
    return [
        Work("ising10_compute_guarantees", {"ising10.n_replicates": s["n_replicates"],
                                            "ising10.lengths": grid_total(s["lengths"]) + count * p},
             jobs=s["n_replicates"]),
        Work("ising10_compute_measure", {"ising10.measure.replicates": len(m["replicates"]),
                                         "ising10.measure.n_chains": m["n_chains"],
                                         "ising10.measure.lengths": grid_total(m["lengths"]),
                                         "ising10.measure.scans": len(m["scans"])}, jobs=len(m["replicates"])),
    ]


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def make_model(side: int, field_values, coupling_range, rng: np.random.Generator) -> BinaryPairwiseMRF:
    """Random ``side x side`` open grid of DoGS §5.1: ``theta_i`` uniform on ``field_values``, ``theta_ij ~ U[range]``."""
    n_edges = len(grid_edges(side, side))
    couplings = rng.uniform(coupling_range[0], coupling_range[1], size=n_edges)
    fields = rng.choice(np.asarray(field_values, dtype=np.float64), size=side * side)
    return grid_model(side, side, couplings, fields, torus=False)


def _replicate(ctx) -> int:
    rep = ctx.wildcard("rep")
    if rep >= ctx.settings["n_replicates"]:
        raise SettingsError(f"config key ising10.n_replicates: replicate {rep} does not exist "
                            f"(n_replicates = {ctx.settings['n_replicates']})")
    return rep


@EXPERIMENT.step("compute-guarantees")
def compute_guarantees(ctx):
    cfg, rep = ctx.settings, _replicate(ctx)
    lengths = length_grid(**cfg["lengths"])
    if rep in cfg["measure"]["replicates"]:
        lengths = np.union1d(lengths, length_grid(**cfg["measure"]["lengths"]))
    model = make_model(cfg["side"], cfg["field_values"], cfg["coupling_range"], make_rng(ctx.seed, FAMILY, rep, "model"))
    influence = influence_binary_pairwise(model)
    ctx.log.info("replicate %d: %dx%d grid, max row sum of C-bar %.3f, %d lengths up to %d", rep, cfg["side"],
                 cfg["side"], float(np.asarray(influence.sum(axis=1)).max()), len(lengths), lengths.max())
    frame, per_length, runs = guarantee_curves(model.n_vars, np.ones(model.n_vars), influence, lengths,
                                               cfg["max_iterations"], progress=ctx.log.info, phase=cfg["systematic_phase"])
    frame.insert(0, "replicate", rep)
    seconds, seed = ctx.elapsed(), seed_record(ctx.seed, FAMILY, rep, "model")
    settings = {**cfg, "replicate": rep}
    write_guarantee_results(ctx, model, frame, per_length, runs, t_max=int(lengths.max()), phase=cfg["systematic_phase"],
                            descriptions={"model": "10x10 open Ising grid of DoGS §5.1; edges row-major r*L+c, theta "
                                                   "aligned with edges, h unary",
                                          "guarantees": "Dobrushin variation (TV guarantee, Theorem 8; d = 1, C-bar of "
                                                        "Theorem 11) of each scan of length T"},
                            settings=settings, seed=seed, seconds=seconds)


def measure_marginal_error(model: BinaryPairwiseMRF, p_plus, scans, lengths, stored, n_chains: int,
                           initial_state: int, seed: np.random.SeedSequence, progress=None,
                           phase: str = "paper") -> pd.DataFrame:
    """``sum_i |p_hat_i - p_i|`` from ``n_chains`` independent chains for every scan and length."""
    families = {name: scan_family(name, stored, lengths, model.n_vars, phase) for name in scans}
    rows = [(name, int(t), float(np.abs((out.values[:, r, :] == 1).mean(axis=0) - p_plus).sum()))
            for name, out in samples_by_scan(model, families, lengths, seed=seed, n_chains=n_chains,
                                             initial_state=initial_state, record_vars=np.arange(model.n_vars),
                                             progress=progress)
            for r, t in enumerate(out.lengths)]
    return pd.DataFrame(rows, columns=["scan", "T", "error"])


@EXPERIMENT.step("compute-measure")
def compute_measure(ctx):
    from dogs.exact import junction_tree_marginals

    cfg, rep = ctx.settings, _replicate(ctx)
    measure = cfg["measure"]
    if rep not in measure["replicates"]:
        raise SettingsError(f"config key ising10.measure.replicates: replicate {rep} is not listed; "
                            "its guarantees lack the measurement lengths")
    model = BinaryPairwiseMRF.from_npz(ctx.input("model"))
    guarantees = pd.read_csv(ctx.input("guarantees"))
    exact = junction_tree_marginals(model)
    exact_seconds = ctx.elapsed()
    p_plus = exact.node_marginals_array[:, 1]
    ctx.log.info("junction-tree marginals in %.2f s", exact_seconds)
    with np.load(ctx.input("dogs_scans")) as stored:
        frame = measure_marginal_error(model, p_plus, measure["scans"], length_grid(**measure["lengths"]), dict(stored),
                                       measure["n_chains"], measure["initial_state"],
                                       seed_sequence(ctx.seed, FAMILY, rep, "measure"), progress=ctx.log.info,
                                       phase=cfg["systematic_phase"])
    floor = noise_floor(p_plus, measure["n_chains"])
    bounds = guarantees.set_index(["scan", "T"])["bound"]
    frame["bound"] = [float(bounds.loc[(s, t)]) for s, t in zip(frame["scan"], frame["T"])]
    frame["noise_floor"] = floor
    frame["n_chains"] = measure["n_chains"]
    frame.insert(0, "replicate", rep)
    settings = {**cfg, "replicate": rep}
    write_npz(ctx.output("exact"), p_plus=p_plus, node_marginals=exact.node_marginals_array,
              log_partition=np.float64(exact.log_partition))
    write_meta(ctx.output("exact"), settings=settings, seed=None, elapsed_seconds=exact_seconds,
               extra={"method": exact.method, "description": "pgmpy junction-tree node marginals [P(-1), P(+1)]"})
    write_csv(frame, ctx.output("measured"))
    write_meta(ctx.output("measured"), settings=settings, seed=seed_record(ctx.seed, FAMILY, rep, "measure"),
               elapsed_seconds=ctx.elapsed(),
               extra={"description": "sum_i |p_hat_i(+1) - p_i(+1)| from n_chains independent chains started at "
                                     "initial_state; bound = the scan's TV guarantee at T; noise_floor = expected "
                                     "error of n_chains exact samples", "threads": ctx.threads})
    ctx.log.info("noise floor %.4f", floor)


def _share_from_one_run(systematic, dogs, iterated):
    """Share of the log-improvement systematic -> iterated DoGS obtained by one run of Algorithm 2."""
    total = np.log(systematic) - np.log(iterated)
    return float((np.log(systematic) - np.log(dogs)) / total) if total > 0 else 1.0


def axis_end_window(median_orders_by_t: pd.Series, low: float, high: float) -> dict:
    """The axis ends ``T`` at which a growing log-ratio curve lies in ``[low, high]``.

    ``from_T``: the first ``T`` from which the curve stays at least ``low`` (``None`` if never on the grid).
    ``to_T``: the last ``T`` of the grid at which it is at most ``high``, when the curve exceeds ``high`` on the
    grid; otherwise ``None``, and ``to_T_extrapolated`` is where a straight line fitted (least squares) to the
    last half of the grid reaches ``high`` (``None`` if it does not rise). ``slopes_per_100`` are the least-squares
    slopes (per 100 steps) of the third and the last quarter of the grid: when the slope falls, the curve bends below
    the line and reaches ``high`` later than it, so ``to_T_extrapolated`` is a lower bound. ``to_T_text`` words the
    upper end.
    """
    t = np.asarray(median_orders_by_t.index, dtype=np.float64)
    y = median_orders_by_t.to_numpy(dtype=np.float64)
    start = first_staying_at_or_below(t, -y, -low)
    above = np.flatnonzero(y > high)
    to_t, extrapolated, slopes = None, None, None
    if above.size:
        inside = np.flatnonzero(y[: above[0]] <= high)
        to_t = int(t[inside[-1]]) if inside.size else None
    else:
        half = slice(len(t) // 2, None)
        slope, intercept = np.polyfit(t[half], y[half], 1)
        extrapolated = float((high - intercept) / slope) if slope > 0 else None
        quarter = len(t) // 4
        if quarter >= 2:
            slopes = [float(100 * np.polyfit(t[k:k + quarter], y[k:k + quarter], 1)[0])
                      for k in (len(t) - 2 * quarter, len(t) - quarter)]
    if to_t is not None:
        text = str(to_t)
    elif extrapolated is None:
        text = "past our grid"
    elif slopes is not None and slopes[1] < slopes[0]:
        text = (f"past our grid, later than T ≈ {extrapolated:.0f} (where a straight line through the last half of the "
                f"grid reaches 10^{high:g}; the curve stays below it, its slope falling from {slopes[0]:.3f} to "
                f"{slopes[1]:.3f} decades per 100 steps over the grid's last two quarters)")
    else:
        text = f"past our grid, about T ≈ {extrapolated:.0f} (a straight line through the last half of the grid)"
    return {"from_T": None if start is None else int(start), "to_T": to_t, "to_T_extrapolated": extrapolated,
            "slopes_per_100": slopes, "to_T_text": text}


def guarantee_claims(on_grid: pd.DataFrame, budget_levels) -> dict:
    """The measured side of the §5.1 claims from the guarantee curves (one row per replicate and T).

    The paper's convention (DoGS §5, first paragraph): "the numbers in the legend state the best guarantee
    achieved for each algorithm plotted", i.e. the value at the end of the plotted axis. The axis end is a
    setting of ours (the paper does not give its T axis), so every quantity judged there is also reported
    across T, with the range of axis ends for which the verdict would hold. A guarantee of 1 or more
    certifies nothing; comparisons "for all T" are made where the systematic guarantee is below 1.
    """
    t_end = int(on_grid["T"].max())
    end = on_grid[on_grid["T"] == t_end].set_index("replicate")
    replicates = sorted(on_grid["replicate"].unique())
    certified = on_grid[on_grid["systematic"] < 1]
    span = {"T_min": int(on_grid["T"].min()), "T_axis_end": t_end, "replicates": len(replicates)}

    uniform_over_systematic = certified["uniform"] / certified["systematic"]
    better = on_grid["systematic"] < on_grid["uniform"]
    ratio_at_axis_end = end["uniform"] / end["systematic"]
    claims = {"dogs_s51_systematic_beats_uniform": measured(
        {"share_better": float(better.mean()),
         "min_ratio_where_certified": float(uniform_over_systematic.min()) if len(certified) else math.nan},
        **span, points_better=int(better.sum()), points=int(better.size), certified_from_T=int(certified["T"].min()),
        ratio_at_axis_end={int(k): float(v) for k, v in ratio_at_axis_end.items()},
        ratio_at_axis_end_range=[float(ratio_at_axis_end.min()), float(ratio_at_axis_end.max())])}

    ratios = {}
    for level in budget_levels:
        per_rep = []
        for _, group in on_grid.groupby("replicate"):
            t_sys = steps_to_reach(group["T"], group["systematic"], level)
            t_dogs = steps_to_reach(group["T"], group["dogs"], level)
            per_rep.append(t_dogs / t_sys)
        ratios[float(level)] = per_rep
    budget_share = float(np.nanmedian(np.concatenate([np.asarray(r) for r in ratios.values()])))
    claims["dogs_s51_budget_ratio"] = measured(
        budget_share, by_level={f"{level:g}": r for level, r in ratios.items()},
        share_by_level=[{"level": level, "median": float(np.nanmedian(r)), "min": float(np.nanmin(r)),
                         "max": float(np.nanmax(r))} for level, r in ratios.items()])

    orders_end = -np.log10(end["dogs"] / end["systematic"])
    by_t = on_grid.assign(orders=-np.log10(on_grid["dogs"] / on_grid["systematic"])).groupby("T")["orders"].median()
    from_t = {level: first_staying_at_or_below(by_t.index, -by_t.to_numpy(), -level) for level in (1.5, 2.0)}
    window = axis_end_window(by_t, 1.5, 2.5)
    picks = dict.fromkeys(by_t.index[[len(by_t) // 8, len(by_t) // 4, len(by_t) // 2, -1]])
    claims["dogs_s51_dogs_two_orders"] = measured(
        {"median_orders_at_axis_end": float(orders_end.median())},
        by_seed=[{"median_orders_at_axis_end": float(v)} for v in orders_end],  # each replicate, as Figs. 1 and 9
        **span, orders_at_axis_end={int(k): float(v) for k, v in orders_end.items()},
        orders_at_axis_end_range=[float(orders_end.min()), float(orders_end.max())],
        median_orders_by_T={int(t): float(v) for t, v in by_t.items()},
        median_orders_at_picked_T=[{"T": int(t), "orders": float(by_t[t])} for t in picks],
        axis_end_from_which_at_least={"1.5": from_t[1.5], "2.0": from_t[2.0]},
        axis_end_window={key: window[key] for key in ("from_T", "to_T", "to_T_extrapolated", "slopes_per_100")},
        axis_end_window_to=window["to_T_text"], budget_share=budget_share)

    shares_end = np.array([_share_from_one_run(r["systematic"], r["dogs"], r["dogs_iterated"]) for _, r in end.iterrows()])
    shares_all = certified.assign(share=[_share_from_one_run(r["systematic"], r["dogs"], r["dogs_iterated"])
                                         for _, r in certified.iterrows()])
    smallest_by_t = shares_all.groupby("T")["share"].min()
    claims["dogs_s51_bulk_single_run"] = measured(
        {"median_share": float(np.median(shares_end)), "min_share": float(shares_end.min())},
        T_axis_end=t_end, replicates=int(shares_end.size), replicates_above_half=int((shares_end > 0.5).sum()),
        share_by_replicate={int(k): float(v) for k, v in zip(end.index, shares_end)},
        share_range_certified_T=[float(shares_all["share"].min()), float(shares_all["share"].max())],
        smallest_share_by_T={int(t): float(v) for t, v in smallest_by_t.items()},
        certified_T=int(smallest_by_t.size), certified_T_all_above_half=int((smallest_by_t > 0.5).sum()))

    further = -np.log10(end["dogs_iterated"] / end["dogs"])
    claims["dogs_s51_iterated_adds"] = measured(
        {"median_further_orders": float(further.median()), "min_further_orders": float(further.min())},
        T_axis_end=t_end, max_further_orders=float(further.max()),
        further_orders_by_replicate={int(k): float(v) for k, v in further.items()})
    return claims


@EXPERIMENT.step("summarise")
def summarise(ctx):
    cfg = ctx.settings
    grid = length_grid(**cfg["lengths"])
    long = pd.concat([pd.read_csv(path) for path in ctx.inputs("guarantees")])
    wide = long.pivot_table(index=["replicate", "T"], columns="scan", values="bound").reset_index()
    wide.columns.name = None
    wide["ratio_dogs_over_systematic"] = wide["dogs"] / wide["systematic"]
    wide["ratio_iterated_over_systematic"] = wide["dogs_iterated"] / wide["systematic"]
    on_grid = wide[wide["T"].isin(grid)]
    claims = guarantee_claims(on_grid, cfg["budget_levels"])
    # beyond the paper: when does the measured marginal error of each scan reach twice the noise floor?
    for path in ctx.inputs("measured"):
        errors = pd.read_csv(path)
        floor = float(errors["noise_floor"].iloc[0])
        # first T from which the error stays within twice the noise floor
        reach = {scan: first_staying_at_or_below(group["T"], group["error"], 2 * floor)
                 for scan, group in errors.groupby("scan")}
        rep = int(errors["replicate"].iloc[0])
        claims["dogs_s51_dogs_two_orders"]["quantities"][f"measured_rep{rep}"] = {
            "noise_floor": floor, "n_chains": int(errors["n_chains"].iloc[0]),
            "first_T_error_within_2x_noise_floor": reach}
        ctx.log.info("replicate %d: first T with measured error <= 2 x noise floor (%.3f) from then on: %s",
                     rep, 2 * floor, reach)

    write_csv(wide, ctx.output("summary"))
    write_meta(ctx.output("summary"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "TV guarantees per replicate and T, one column per scan; ratios to systematic"})
    ctx.write_claims(claims)


@EXPERIMENT.step("plot-fig1")
def plot_fig1(ctx):
    from dogs.plotting import ising as plots

    measured = pd.read_csv(ctx.input("measured")) if ctx.has_input("measured") else None
    fig = plots.figure_ising10_replicate(pd.read_csv(ctx.input("guarantees")), measured, side=ctx.settings["side"],
                                         n_chains=ctx.settings["measure"]["n_chains"])
    plots.save(fig, ctx.output("figure"))


@EXPERIMENT.step("plot-fig9")
def plot_fig9(ctx):
    from dogs.plotting import ising as plots

    frames = {}
    for path in ctx.inputs("guarantees"):
        frame = pd.read_csv(path)
        frames[int(frame["replicate"].iloc[0])] = frame
    plots.save(plots.figure_ising10_replicates(frames, side=ctx.settings["side"]), ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
