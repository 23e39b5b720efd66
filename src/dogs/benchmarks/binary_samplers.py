r"""Cost of the binary samplers of the annular-augmentation paper, in ns per single-flip density evaluation.

Run::

    python -m dogs.benchmarks.binary_samplers --out results/benchmarks/binary_samplers.json [--hmc-samples 1000]

Fagan, Bhandari & Cunningham (2017, §3) compare their twelve samplers at an equal number of density
evaluations (:func:`dogs.samplers.equal_cost_budget`). This benchmark runs each of them once at that
budget on two models and reports the wall-clock cost:

1. the **9x9 torus** of their §3.1 (``d = 81``, coupling ``W = 0.4``, fields ``b_i ~ 0.2 U[-1, 1]``,
   travel time ``2.5 pi``, clique size 4: 1446 annular iterations, 2875 CMH samples of 81
   proposals, 1000 exact-HMC trajectories);
2. a **50-variable fully connected Boltzmann machine** in spin form, with the law of their synthetic
   data (appendix: ``W_ij ~ N(0, 1)``, ``b_i ~ 0.1 U[-1, 1]``; converted by
   :func:`dogs.models.boltzmann.boltzmann_to_spin`), travel time ``1.5 pi``, clique size ``d - 1``.

For every sampler: the best and median seconds of ``--repeats`` single-chain runs after a JIT
warm-up, the single-flip log-density differences the run reports
(``result.work.density_evaluations``), ns per such evaluation, and the time per annular iteration,
CMH sample (``d`` proposals) or HMC trajectory. Loopy BP (100 sequential sweeps, the authors' cap;
it is run once per setting for the LBP prior) is timed on the same models. One more row runs AAG+RB
with one chain per core to show how independent chains scale over cores.

The last block projects the run time of the 9x9 heatmap experiment (AA §3.1: ``--heatmap-settings``
settings x ``--heatmap-runs`` runs x the twelve samplers at the equal-cost budget) from the
measured single-chain times, on one core and on all cores of this machine.

The JSON (written atomically) records the machine, the seed, the settings and every repeat.
Timings are machine-dependent by nature: they are reported, never asserted in tests.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from dogs.benchmarks.gibbs import machine_info, run_record, timed
from dogs.io import write_json

__all__ = ["SAMPLERS", "benchmark_model", "main", "models"]

#: The twelve samplers of AA §3.1 (Figs. 3-5): name -> (kind, options).
SAMPLERS = {
    "HMC": ("hmc", {}),
    "CMH": ("cmh", {}),
    "CMH + LBP": ("cmh_lbp", {}),
    "AAS": ("annular", {"operator": "slice", "rao_blackwell": False}),
    "AAS + RB": ("annular", {"operator": "slice", "rao_blackwell": True}),
    "AAS + RB + LBP": ("annular", {"operator": "slice", "rao_blackwell": True, "lbp": True}),
    "AAG": ("annular", {"operator": "gibbs", "rao_blackwell": False}),
    "AAG + RB": ("annular", {"operator": "gibbs", "rao_blackwell": True}),
    "AAG + RB + LBP": ("annular", {"operator": "gibbs", "rao_blackwell": True, "lbp": True}),
    "AAST": ("annular", {"operator": "suwa_todo", "rao_blackwell": False}),
    "AAST + RB": ("annular", {"operator": "suwa_todo", "rao_blackwell": True}),
    "AAST + RB + LBP": ("annular", {"operator": "suwa_todo", "rao_blackwell": True, "lbp": True}),
}


def models(seed: np.random.SeedSequence, bm_size: int) -> dict:
    """The two benchmark models with their budget settings (module docstring)."""
    from dogs.models import grid_model
    from dogs.models.boltzmann import boltzmann_to_spin

    torus_seed, bm_seed = seed.spawn(2)
    rng = np.random.default_rng(torus_seed)
    torus = grid_model(9, 9, 0.4, 0.2 * rng.uniform(-1.0, 1.0, 81), torus=True)
    rng = np.random.default_rng(bm_seed)
    weights = np.triu(rng.normal(0.0, 1.0, (bm_size, bm_size)), 1)
    machine, _ = boltzmann_to_spin(weights, 0.1 * rng.uniform(-1.0, 1.0, bm_size))
    return {
        "ising_9x9_torus": {
            "model": torus,
            "description": "9x9 torus, W = 0.4, b ~ 0.2 U[-1, 1] (AA §3.1)",
            "travel_time_periods": 2.5,
            "clique_size": 4,
        },
        f"boltzmann_{bm_size}": {
            "model": machine,
            "description": f"fully connected Boltzmann machine, d = {bm_size}, W ~ N(0, 1), b ~ 0.1 U[-1, 1] (AA appendix)",
            "travel_time_periods": 1.5,
            "clique_size": bm_size - 1,
        },
    }


def _runner(kind: str, options: dict, model, budget, lbp_marginals, initial_state, seed):
    """A no-argument function running one sampler at ``budget`` (``budget=None``: a tiny warm-up run)."""
    from dogs.samplers import annular_sampler, coordinate_metropolis, coordinate_metropolis_lbp, exact_hmc

    if kind == "hmc":
        return lambda n: exact_hmc(model, n_samples=n or budget.hmc_samples, travel_time=budget.hmc_travel_time,
                                   seed=seed, initial_state=initial_state)
    if kind == "cmh":
        return lambda n: coordinate_metropolis(model, n_samples=n or budget.cmh_samples, seed=seed,
                                               initial_state=initial_state)
    if kind == "cmh_lbp":
        return lambda n: coordinate_metropolis_lbp(model, lbp_marginals, n_samples=n or budget.cmh_samples,
                                                   seed=seed, initial_state=initial_state)
    prior = lbp_marginals if options.get("lbp") else None
    return lambda n: annular_sampler(model, operator=options["operator"], prior=prior,
                                     n_iterations=n or budget.annular_iterations, seed=seed,
                                     initial_state=initial_state, rao_blackwell=options["rao_blackwell"])


def _per_unit(kind: str, budget) -> tuple[str, int]:
    if kind == "hmc":
        return "trajectory", budget.hmc_samples
    if kind in ("cmh", "cmh_lbp"):
        return f"sample ({budget.cmh_proposals_per_sample} proposals)", budget.cmh_samples
    return "iteration", budget.annular_iterations


def benchmark_model(entry: dict, hmc_samples: int, repeats: int, seed: np.random.SeedSequence) -> dict:
    """Every sampler once per repeat on one model at the equal-cost budget of ``hmc_samples`` HMC samples."""
    import numba

    from dogs.inference import loopy_belief_propagation
    from dogs.samplers import annular_sampler, equal_cost_budget

    model = entry["model"]
    d = model.n_vars
    budget = equal_cost_budget(d, travel_time_periods=entry["travel_time_periods"], n_hmc_samples=hmc_samples,
                               clique_size=entry["clique_size"])
    loopy_belief_propagation(model, max_iterations=1)  # warm-up
    lbp_times = timed(lambda: loopy_belief_propagation(model, max_iterations=100, tolerance=1e-300), repeats)
    lbp = loopy_belief_propagation(model)
    lbp_marginals = np.clip(lbp.node_marginals, 1e-6, 1 - 1e-6)
    start_seed, run_seed = seed.spawn(2)
    initial_state = np.where(np.random.default_rng(start_seed).random(d) < lbp_marginals, 1, -1).astype(np.int8)

    rows = {}
    for name, (kind, options) in SAMPLERS.items():
        run = _runner(kind, options, model, budget, lbp_marginals, initial_state, run_seed)
        run(5)  # JIT warm-up (or cache load)
        results = []
        times = timed(lambda: results.append(run(None)), repeats)
        evaluations = results[-1].work.density_evaluations
        unit, count = _per_unit(kind, budget)
        best, median = min(times), float(np.median(times))
        rows[name] = {
            "best_s": best,
            "median_s": median,
            "repeats_s": times,
            "density_evaluations": evaluations,
            "best_ns_per_density_evaluation": best / evaluations * 1e9,
            "median_ns_per_density_evaluation": median / evaluations * 1e9,
            "unit": unit,
            "units": count,
            "best_us_per_unit": best / count * 1e6,
        }

    cores = numba.get_num_threads()
    chains = cores
    run_many = lambda: annular_sampler(model, operator="gibbs", n_iterations=budget.annular_iterations,  # noqa: E731
                                       seed=run_seed, initial_state=initial_state, n_chains=chains)
    run_many()
    many_times = timed(run_many, repeats)
    single = rows["AAG + RB"]["best_s"]
    return {
        "description": entry["description"],
        "n_vars": d,
        "n_edges": len(model.edges),
        "budget": budget.as_dict(),
        "lbp": {
            "best_s_100_sweeps": min(lbp_times),
            "median_s_100_sweeps": float(np.median(lbp_times)),
            "converged": bool(lbp.converged),
            "iterations": int(lbp.iterations),
        },
        "samplers": rows,
        "parallel_aag_rb": {
            "threads": cores,
            "chains": chains,
            "best_s": min(many_times),
            "chains_per_second": chains / min(many_times),
            "speedup_over_one_chain": chains * single / min(many_times),
        },
    }


def heatmap_projection(torus: dict, settings: int, runs: int, cores: int) -> dict:
    """Projected time of the 9x9 heatmap experiment from the measured single-chain times."""
    per_run = sum(row["best_s"] for row in torus["samplers"].values())
    lbp = torus["lbp"]["best_s_100_sweeps"]
    one_core = settings * (runs * per_run + lbp)
    return {
        "settings": settings,
        "runs": runs,
        "samplers": len(torus["samplers"]),
        "seconds_all_samplers_one_run": per_run,
        "one_core_s": one_core,
        "cores": cores,
        "all_cores_s": one_core / cores,
    }


def _table(result: dict) -> str:
    lines = []
    for key, model in result["models"].items():
        lines.append(f"{key}: {model['description']}; budget F = {model['budget']['density_evaluations']:,.0f}")
        lines.append(f"  {'sampler':<18}{'s':>9}{'evaluations':>14}{'ns/eval':>10}   per unit")
        for name, row in model["samplers"].items():
            lines.append(f"  {name:<18}{row['best_s']:9.4f}{row['density_evaluations']:14,d}"
                         f"{row['best_ns_per_density_evaluation']:10.2f}   {row['best_us_per_unit']:.2f} µs per {row['unit']}")
        lines.append(f"  LBP, 100 sweeps: {model['lbp']['best_s_100_sweeps'] * 1e3:.2f} ms")
    proj = result["heatmap_projection"]
    lines.append(f"9x9 heatmaps, {proj['settings']} settings x {proj['runs']} runs x {proj['samplers']} samplers: "
                 f"{proj['one_core_s'] / 60:.1f} min on one core, {proj['all_cores_s'] / 60:.1f} min on {proj['cores']}")
    return "\n".join(lines)


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--hmc-samples", type=int, default=1000,
                        help="budget: the cost of this many exact-HMC samples (AA §3: 1000)")
    parser.add_argument("--bm-size", type=int, default=50, help="variables of the Boltzmann machine")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per sampler")
    parser.add_argument("--heatmap-settings", type=int, default=25, help="settings of the projected heatmap run")
    parser.add_argument("--heatmap-runs", type=int, default=20, help="runs per setting of the projected heatmap run")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in ("hmc_samples", "repeats", "heatmap_settings", "heatmap_runs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.bm_size < 3:
        parser.error("--bm-size must be >= 3")
    if args.seed < 0:
        parser.error("--seed must be >= 0")
    return args


def main(argv=None) -> dict:
    args = _parse(argv)
    started = time.perf_counter()
    info = machine_info()
    model_seed, *run_seeds = np.random.SeedSequence(args.seed).spawn(3)
    entries = models(model_seed, args.bm_size)
    measured = {key: benchmark_model(entry, args.hmc_samples, args.repeats, run_seed)
                for (key, entry), run_seed in zip(entries.items(), run_seeds)}
    result = {
        **run_record("dogs.benchmarks.binary_samplers", argv, args, info),
        "models": measured,
        "heatmap_projection": heatmap_projection(measured["ising_9x9_torus"], args.heatmap_settings,
                                                 args.heatmap_runs, info["numba_threads"]),
    }
    result["elapsed_s"] = time.perf_counter() - started
    write_json(args.out, result)
    print(_table(result))
    print(f"wrote {args.out} in {result['elapsed_s']:.1f} s")
    return result


if __name__ == "__main__":
    main()
