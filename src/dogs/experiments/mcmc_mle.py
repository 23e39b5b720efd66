r"""DoGS §5.3 (Fig. 3): MCMC maximum likelihood of Ising grids with uniform-scan and DoGS gradient estimates.

The experiment of Domke (2015, §6) as DoGS replicates it: learn the couplings and fields of a 3x3 and a
4x4 Ising grid from training data with independent Rademacher entries by projected stochastic gradient
ascent (:mod:`dogs.learning.mle`), the couplings kept in Liu & Domke's fast-mixing set
``||R(theta)|| <= c`` (:mod:`dogs.learning.projection`). Every gradient needs the model moments; they are
estimated from ``chains`` independent Gibbs chains, all started at ``+1``, run for ``mc_sweeps * p`` site
updates with

- the **uniform random scan** (Domke's baseline), or
- a **DoGS scan** recomputed at every step from the current estimate (Algorithm 2 with ``d = 1``,
  early stopping at ``epsilon``, the Theorem 11 bound at the estimate, the uniform random scan of the
  same length as input; ``dogs_length: same``), so both use the same site updates per gradient.

``param_error`` is ``||eta_k - eta*||_2`` over all couplings and fields, ``eta*`` the exact constrained
optimum (enumeration of ``2^p`` states, projected gradient ascent to a projected-gradient norm below
``exact_tolerance``). Domke's suggested step counts, chain counts, step size, ``c`` and regulariser are
not in our texts: every such value in the config is marked "(choice)". ``mc_sweeps`` is a list: its
first entry is Fig. 3's setting, the others a sensitivity table (how many site updates per gradient the
uniform scan needs before the two scans agree).

Steps (``python -m dogs.experiments.mcmc_mle <step> ...``, see :mod:`dogs.workflow.shell`):

``compute-optimum``  wildcard ``mle_model``; outputs training_data (npz), theta_star (npz)
``compute-trace``    wildcard ``mle_model``; input theta_star, training_data; output trace (csv)
``summarise``        inputs traces (one per model); outputs summary (csv) and claims
``plot-fig3``        inputs traces; output figure
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dogs.claims import measured, worded_in_code
from dogs.io import write_csv, write_meta, write_npz
from dogs.learning.mle import LearningProblem, dogs_moment_scan, exact_optimum, gibbs_moments
from dogs.models.graph import grid_edges
from dogs.scans.base import uniform_scan
from dogs.seeds import seed_record, seed_sequence
from dogs.summaries import first_sustained_at_or_below
from dogs.workflow.cost import Work
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "mcmc_mle"
SCANS = ("uniform", "dogs")


def check_settings(settings: dict) -> None:
    """Checks that span several keys."""
    names = [m["name"] for m in settings["models"]]
    if len(set(names)) != len(names):
        raise SettingsError(f"config key mcmc_mle.models: model names repeat: {names}")
    for m in settings["models"]:
        if m["rows"] * m["cols"] > 20:
            raise SettingsError(f"config key mcmc_mle.models: {m['name']} has {m['rows'] * m['cols']} variables; the "
                                "exact optimum enumerates 2^p states, at most 2^20 here")
    if len(set(settings["mc_sweeps"])) != len(settings["mc_sweeps"]):
        raise SettingsError(f"config key mcmc_mle.mc_sweeps: values repeat: {settings['mc_sweeps']}")


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    out = {}
    for k, model in enumerate(s["models"]):
        p = model["rows"] * model["cols"]
        out[f"mcmc_mle.models.{k}"] = 2.0 ** min(p, 1000) * (p + 8) * 8  # exact moments by enumeration
    out["mcmc_mle.chains"] = s["chains"] * max(m["rows"] * m["cols"] for m in s["models"]) * 16
    out["mcmc_mle.n_train"] = s["n_train"] * max(m["rows"] * m["cols"] for m in s["models"]) * 16
    return out


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    out = []
    for k, model in enumerate(s["models"]):
        p = model["rows"] * model["cols"]
        out.append(Work("mcmc_mle_compute_optimum", {f"mcmc_mle.models.{k}": 2.0 ** p * p * p,
                                                     "mcmc_mle.n_train": 1 + s["n_train"] / 2.0 ** p}))
        out.append(Work("mcmc_mle_compute_trace", {
            f"mcmc_mle.models.{k}": p, "mcmc_mle.mc_sweeps": sum(s["mc_sweeps"]), "mcmc_mle.replicates": 2 * s["replicates"],
            "mcmc_mle.gradient_steps": s["gradient_steps"], "mcmc_mle.chains": s["chains"]}))
    return out


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def model_settings(settings: dict, name: str) -> dict:
    for m in settings["models"]:
        if m["name"] == name:
            return m
    raise SettingsError(f"wildcard model={name!r} is not in config key mcmc_mle.models")


def problem_for(settings: dict, shape: dict, data: np.ndarray) -> LearningProblem:
    edges = grid_edges(shape["rows"], shape["cols"])
    return LearningProblem.from_data(edges, shape["rows"] * shape["cols"], data, regularizer=settings["regularizer"],
                                     norm=settings["norm"], radius=settings["radius"])


@EXPERIMENT.step("compute-optimum")
def compute_optimum(ctx):
    cfg = ctx.settings
    name = ctx.wildcard("mle_model", str)
    shape = model_settings(cfg, name)
    p = shape["rows"] * shape["cols"]
    path = (FAMILY, name, "training_data")
    rng = np.random.default_rng(seed_sequence(ctx.seed, *path))
    data = rng.choice(np.array([-1, 1], dtype=np.int8), size=(cfg["n_train"], p))
    problem = problem_for(cfg, shape, data)
    optimum = exact_optimum(problem, tol=cfg["exact_tolerance"])
    ctx.log.info("%s: eta* found in %d iterations, projected-gradient norm %.2e, ||eta*|| = %.4f, log-likelihood %.5f",
                 name, optimum.iterations, optimum.projected_gradient_norm, np.linalg.norm(optimum.parameters),
                 optimum.log_likelihood)
    n_edges = len(problem.edges)
    write_npz(ctx.output("training_data"), data=data, shape=np.array([shape["rows"], shape["cols"]]))
    write_meta(ctx.output("training_data"), settings=cfg, seed=seed_record(ctx.seed, *path),
               elapsed_seconds=ctx.elapsed(), extra={"description": "training data: independent Rademacher entries"})
    write_npz(ctx.output("theta_star"), edges=problem.edges, theta=optimum.parameters[:n_edges],
              field=optimum.parameters[n_edges:], moments=optimum.moments, data_moments=problem.data_moments,
              log_likelihood=optimum.log_likelihood, projected_gradient_norm=optimum.projected_gradient_norm)
    write_meta(ctx.output("theta_star"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "exact constrained, regularised maximum-likelihood parameters; moments are "
                                     "E[x_i x_j] over edges then E[x_i]",
                      "iterations": optimum.iterations})


def learning_trace(problem: LearningProblem, optimum: np.ndarray, scan_name: str, *, sweeps: int, steps: int,
                   step_size: float, chains: int, epsilon: float, dogs_length: str, initial_state: int, seed,
                   progress=None) -> pd.DataFrame:
    """One replicate: projected stochastic gradient ascent from 0, the error after every gradient step."""
    p = problem.n_vars
    length = sweeps * p
    parameters = np.zeros(problem.n_parameters)
    children = np.random.SeedSequence(entropy=seed.entropy, spawn_key=seed.spawn_key).spawn(steps)
    rows, work = [], 0
    for step in range(1, steps + 1):
        if scan_name == "uniform":
            scan = uniform_scan(p, length)
        else:
            scan = dogs_moment_scan(problem.model(parameters), length, epsilon, dogs_length)
        moments, updates = gibbs_moments(problem, parameters, scan, n_chains=chains, seed=children[step - 1],
                                         initial_state=initial_state)
        work += updates
        parameters = problem.step(parameters, moments, step_size)
        rows.append((step, work, scan.length, float(np.linalg.norm(parameters - optimum))))
        if progress and step % max(1, steps // 4) == 0:
            progress(f"  {scan_name}: step {step}/{steps}, error {rows[-1][3]:.4f}")
    return pd.DataFrame(rows, columns=["step", "site_updates", "scan_length", "param_error"])


@EXPERIMENT.step("compute-trace")
def compute_trace(ctx):
    cfg = ctx.settings
    name = ctx.wildcard("mle_model", str)
    shape = model_settings(cfg, name)
    with np.load(ctx.input("training_data")) as data_file:
        data = data_file["data"]
    with np.load(ctx.input("theta_star")) as star:
        optimum = np.concatenate([star["theta"], star["field"]])
    problem = problem_for(cfg, shape, data)
    frames = []
    runs = [(sweeps, scan, rep) for sweeps in cfg["mc_sweeps"] for scan in SCANS for rep in range(cfg["replicates"])]
    for k, (sweeps, scan_name, rep) in enumerate(runs, 1):
        path = (FAMILY, name, "trace", sweeps, scan_name, rep)
        frame = learning_trace(problem, optimum, scan_name, sweeps=sweeps, steps=cfg["gradient_steps"],
                               step_size=cfg["step_size"], chains=cfg["chains"], epsilon=cfg["epsilon"],
                               dogs_length=cfg["dogs_length"], initial_state=cfg["initial_state"],
                               seed=seed_sequence(ctx.seed, *path))
        frames.append(frame.assign(model=name, mc_sweeps=sweeps, scan=scan_name, replicate=rep))
        eta = ctx.elapsed() / k * (len(runs) - k)
        ctx.log.info("%s run %d/%d (%d sweeps, %s, replicate %d): final error %.4f; about %.0f s left",
                     name, k, len(runs), sweeps, scan_name, rep, frame["param_error"].iloc[-1], eta)
    trace = pd.concat(frames, ignore_index=True)[
        ["model", "mc_sweeps", "replicate", "scan", "step", "site_updates", "scan_length", "param_error"]]
    write_csv(trace, ctx.output("trace"))
    write_meta(ctx.output("trace"), settings=cfg, seed=seed_record(ctx.seed, FAMILY, name, "trace"),
               elapsed_seconds=ctx.elapsed(),
               extra={"description": "param_error = ||eta_k - eta*||_2 after gradient step k; site_updates cumulative "
                                     "over all chains; replicate r of every scan uses the seed path "
                                     "(mcmc_mle, model, trace, mc_sweeps, scan, r)"})


def work_to_accuracy(trace: pd.DataFrame, level: float, window: int) -> pd.DataFrame:
    """Site updates at which each run's trailing-median error first reaches ``level`` (``reached`` False: never).

    A run that never reaches it gets its total work as a lower bound (``reached = False``).
    """
    rows = []
    keys = ["model", "mc_sweeps", "scan", "replicate"]
    for key, run in trace.groupby(keys, sort=True):
        run = run.sort_values("step")
        hit = first_sustained_at_or_below(run["site_updates"], run["param_error"], level, window)
        reached = hit is not None
        rows.append((*key, int(hit) if reached else int(run["site_updates"].iloc[-1]), reached,
                     float(run["param_error"].iloc[-window:].median())))
    return pd.DataFrame(rows, columns=[*keys, "site_updates_to_level", "reached", "final_median_error"])


def speedups(work: pd.DataFrame) -> pd.DataFrame:
    """Per model, sweeps and replicate: uniform work / DoGS work to the level (a lower bound if uniform never got there)."""
    pivot = work.pivot_table(index=["model", "mc_sweeps", "replicate"], columns="scan",
                             values="site_updates_to_level").reset_index()
    reached = work.pivot_table(index=["model", "mc_sweeps", "replicate"], columns="scan", values="reached",
                               aggfunc="first").reset_index()
    out = pivot[["model", "mc_sweeps", "replicate"]].copy()
    out["ratio_uniform_over_dogs"] = pivot["uniform"] / pivot["dogs"]
    out["uniform_reached"] = reached["uniform"].astype(bool)
    out["dogs_reached"] = reached["dogs"].astype(bool)
    return out


@EXPERIMENT.step("summarise")
def summarise(ctx):
    cfg = ctx.settings
    trace = pd.concat([pd.read_csv(path) for path in ctx.inputs("traces")], ignore_index=True)
    level, window = cfg["accuracy_level"], cfg["smoothing_window"]
    work = work_to_accuracy(trace, level, window)
    ratios = speedups(work)
    summary = work.merge(ratios, on=["model", "mc_sweeps", "replicate"], how="left")
    write_csv(summary, ctx.output("summary"))
    write_meta(ctx.output("summary"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": f"site updates until the trailing median (window {window}) of the parameter "
                                     f"error reaches {level}; ratio = uniform / DoGS per replicate (a lower bound "
                                     "when uniform never reached the level)"})
    main = cfg["mc_sweeps"][0]
    fig3 = ratios[ratios["mc_sweeps"] == main]
    dogs_all_reached = bool(work[(work["mc_sweeps"] == main) & (work["scan"] == "dogs")]["reached"].all())
    parts = []
    for name, group in fig3.groupby("model"):
        never = int((~group["uniform_reached"]).sum())
        low, high = group["ratio_uniform_over_dogs"].min(), group["ratio_uniform_over_dogs"].max()
        span = f"{low:.2g}x" if f"{low:.2g}" == f"{high:.2g}" else f"{low:.2g}-{high:.2g}x"
        parts.append(f"{name}: uniform/DoGS site updates {'>= ' if never else ''}{span}"
                     + (f" (a lower bound: uniform never reached the level in {never} of {len(group)} runs)"
                        if never else ""))
    sensitivity = [{"sweeps": int(sweeps), "median_ratio": float(group["ratio_uniform_over_dogs"].median())}
                   for sweeps, group in ratios.groupby("mc_sweeps")]
    claims = {
        "dogs_s53_faster_to_accuracy": worded_in_code(
            f"{main} sweeps per gradient, error level {level}: " + "; ".join(parts)
            + ("" if dogs_all_reached else "; DoGS did not reach the level in every replicate"),
            {"min_ratio": float(fig3["ratio_uniform_over_dogs"].min()),
             "median_ratio": float(fig3["ratio_uniform_over_dogs"].median()),
             "dogs_reached_all": dogs_all_reached},
            ratios=fig3.to_dict("records"),
        ),
        "dogs_s53_sensitivity": measured(
            float(ratios["ratio_uniform_over_dogs"].median()), by_sweeps=sensitivity,
        ),
    }
    ctx.write_claims(claims)


@EXPERIMENT.step("plot-fig3")
def plot_fig3(ctx):
    from dogs.plotting.mcmc_mle import figure3

    cfg = ctx.settings
    trace = pd.concat([pd.read_csv(path) for path in ctx.inputs("traces")], ignore_index=True)
    figure3(trace[trace["mc_sweeps"] == cfg["mc_sweeps"][0]], cfg["accuracy_level"], ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
