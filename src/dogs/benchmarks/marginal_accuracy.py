r"""Marginal accuracy at a fixed time budget on UAI'08-style grids with evidence: DoGS, systematic scan, pgmpy.

Run ``python -m dogs.benchmarks.marginal_accuracy --out results/benchmarks/uai_mar.json --figure uai_mar.png``.

Models: ``side x side`` open ±1 grids (:func:`dogs.models.binary.grid_model`) with couplings and fields
drawn uniformly from ``[-coupling, coupling]`` and ``[-field, field]`` (seeded), the shape of the UAI'08
"grids" benchmark. Evidence: ``--evidence`` variables (drawn without replacement) are observed at
random spins and the model is conditioned on them (:func:`dogs.models.evidence.condition`: an observed
spin ``s_j`` is removed and adds :math:`\theta_{ij} s_j` to the field of each neighbour ``i``). Exact marginals of the conditioned model come from the junction tree
(:func:`dogs.exact.junction_tree.junction_tree_marginals`).

Each sampler runs ``--chains`` chains from random starts for ``--seconds`` of wall time (compilation
excluded by a warm-up) and estimates :math:`P(X_i = +1)` by the mean over every recorded pass:

- ``systematic``: passes through the systematic scan (one sweep per pass);
- ``dogs``: passes through DoGS Algorithm 2 run on two systematic sweeps with :math:`d = \mathbf 1`
  (all marginals targeted), DoGS §4; setup time counts against the budget;
- ``pgmpy``: pgmpy's ``GibbsSampling`` (one chain, draws in batches until the budget is spent), on grids
  up to ``--pgmpy-max-side`` only (it is pure Python).

Errors per grid: the mean over variables of the Hellinger distance
:math:`H(p, q) = \sqrt{\tfrac12 \sum_k (\sqrt{p_k} - \sqrt{q_k})^2}` between estimated and exact
marginals, and the largest absolute error of a marginal probability. The table is printed and written
(JSON), and ``--figure`` draws both errors per grid side by side.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from dogs.bounds import influence_bound
from dogs.exact.junction_tree import junction_tree_marginals
from dogs.io import machine_info, write_json
from dogs.models.binary import grid_model
from dogs.models.evidence import condition
from dogs.samplers import run_gibbs
from dogs.scans import dogs_scan, systematic_scan
from dogs.seeds import make_rng

__all__ = ["hellinger", "main"]


def hellinger(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hellinger distance between binary marginals given by their P(+1) (one per variable)."""
    p, q = np.clip(p, 0, 1), np.clip(q, 0, 1)
    return np.sqrt(0.5 * ((np.sqrt(p) - np.sqrt(q)) ** 2 + (np.sqrt(1 - p) - np.sqrt(1 - q)) ** 2))


def _run_scan(model, scan, seconds: float, chains: int, seed: int, started: float) -> tuple[np.ndarray, int]:
    streams = np.random.SeedSequence(seed)
    rng = np.random.default_rng(streams.spawn(1)[0])
    state = np.where(rng.random((chains, model.n_vars)) < 0.5, -1, 1).astype(np.int8)
    total, passes = np.zeros(model.n_vars), 0
    while time.perf_counter() - started < seconds or passes == 0:
        state = run_gibbs(model, scan, seed=int(rng.integers(2**62)), n_chains=chains, initial_state=state).states
        total += (state == 1).mean(axis=0)
        passes += 1
    return total / passes, passes


def _run_pgmpy(model, seconds: float, seed: int) -> tuple[np.ndarray, int]:
    from pgmpy.sampling import GibbsSampling

    from dogs.models.pgmpy_interop import to_pgmpy

    np.random.seed(seed % 2**32)  # pgmpy draws from numpy's global generator
    network = to_pgmpy(model, names=[f"x{i}" for i in range(model.n_vars)])
    sampler = GibbsSampling(network)
    started, frames = time.perf_counter(), []
    while time.perf_counter() - started < seconds or not frames:
        if frames:  # go on from the last draw, so the batches form one chain
            last = frames[-1].iloc[-1]
            start = [(name, int(last[name])) for name in network.nodes()]
            frames.append(sampler.sample(start_state=start, size=20, seed=int((seed + len(frames)) % 2**31)))
        else:
            frames.append(sampler.sample(size=20, seed=int(seed % 2**31)))
    draws = np.concatenate([f[[f"x{i}" for i in range(model.n_vars)]].to_numpy() for f in frames])
    return (draws == 1).mean(axis=0), draws.shape[0]  # state 1 = spin +1 (label 0 = spin -1)


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m dogs.benchmarks.marginal_accuracy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/uai_mar.json"), help="JSON output")
    parser.add_argument("--figure", type=Path, default=None, help="PNG figure of the errors (optional)")
    parser.add_argument("--sides", type=int, nargs="+", default=[3, 6, 10, 16],
                        help="grid sides, 2 to 18 (exact marginals of a 20x20 grid exceed the junction tree's cap)")
    parser.add_argument("--coupling", type=float, default=0.25, help="couplings drawn from U[-c, c]")
    parser.add_argument("--field", type=float, default=0.5, help="fields drawn from U[-f, f]")
    parser.add_argument("--evidence", type=int, default=3, help="observed variables per grid")
    parser.add_argument("--seconds", type=float, default=5.0, help="wall-time budget per sampler and grid")
    parser.add_argument("--chains", type=int, default=4, help="chains of the dogs samplers")
    parser.add_argument("--pgmpy-max-side", type=int, default=3, help="largest grid side given to pgmpy")
    parser.add_argument("--seed", type=int, default=0, help="root seed")
    args = parser.parse_args(argv)
    problems = [message for bad, message in (
        (any(not 2 <= side <= 18 for side in args.sides), "--sides must lie in 2..18"),
        (not (args.seconds > 0 and np.isfinite(args.seconds)), "--seconds must be a positive number"),
        (args.chains < 1 or args.evidence < 0 or args.seed < 0, "--chains must be >= 1, --evidence and --seed >= 0"),
        (not (args.coupling >= 0 and args.field >= 0), "--coupling and --field must be >= 0"),
    ) if bad]
    if problems:
        parser.error("; ".join(problems))
    return args


def main(argv=None) -> dict:
    args = _parse(argv)
    run_gibbs(grid_model(2, 2, 0.1), systematic_scan(4, 4), seed=0)  # compile (or load) the kernel first
    rng = make_rng(args.seed)
    rows = []
    for side in args.sides:
        p = side * side
        full = grid_model(side, side, rng.uniform(-args.coupling, args.coupling, 2 * side * (side - 1)),
                          rng.uniform(-args.field, args.field, p))
        observed_vars = rng.choice(p, size=min(args.evidence, p - 1), replace=False)
        observed = {int(i): int(label) for i, label in zip(observed_vars, rng.choice([0, 1], size=observed_vars.size))}
        model = condition(full, observed).model  # label 0 is spin -1, label 1 is spin +1
        exact = np.array([m[1] for m in junction_tree_marginals(model).node_marginals])
        samplers = {"systematic": None, "dogs": None}
        if side <= args.pgmpy_max_side:
            samplers["pgmpy"] = None
        for name in samplers:
            seed = int(rng.integers(2**62))
            started = time.perf_counter()
            if name == "pgmpy":
                estimate, passes = _run_pgmpy(model, args.seconds, seed)
                length = model.n_vars
            else:
                scan = systematic_scan(model.n_vars, model.n_vars)
                if name == "dogs":
                    scan = dogs_scan(systematic_scan(model.n_vars, 2 * model.n_vars), np.ones(model.n_vars),
                                     influence_bound(model)).scan
                estimate, passes = _run_scan(model, scan, args.seconds, args.chains, seed, started)
                length = scan.length
            errors = hellinger(estimate, exact)
            rows.append({"side": side, "variables": model.n_vars, "evidence": sorted(observed), "sampler": name,
                         "mean_hellinger": float(errors.mean()),
                         "max_marginal_error": float(np.abs(estimate - exact).max()),
                         "passes": int(passes), "scan_length": int(length),
                         "seconds": time.perf_counter() - started})
    report = {"benchmark": "uai_mar", "machine": machine_info(), "settings": vars(args) | {
        "out": str(args.out), "figure": None if args.figure is None else str(args.figure)}, "rows": rows}
    print(f"{'side':>5} {'sampler':>11} {'mean Hellinger':>15} {'max marg. err':>14} {'passes':>8}")
    for r in rows:
        print(f"{r['side']:>5} {r['sampler']:>11} {r['mean_hellinger']:>15.4g} {r['max_marginal_error']:>14.4g} "
              f"{r['passes']:>8}")
    write_json(args.out, report)
    if args.figure is not None:
        _figure(rows, args.figure, args.seconds)
    return report


def _figure(rows: list[dict], path: Path, seconds: float) -> None:
    from dogs.plotting import style

    sides = sorted({r["side"] for r in rows})
    names = [n for n in ("systematic", "dogs", "pgmpy") if any(r["sampler"] == n for r in rows)]
    fig, axes = style.subplots(1, 2, figsize=(9, 3.6))
    width = 0.8 / len(names)
    for ax, key, label in ((axes[0], "mean_hellinger", "mean Hellinger error"),
                           (axes[1], "max_marginal_error", "max marginal error")):
        for k, name in enumerate(names):
            values = [next((r[key] for r in rows if r["side"] == s and r["sampler"] == name), np.nan) for s in sides]
            ax.bar(np.arange(len(sides)) + k * width, values, width, label=name)
        ax.set_xticks(np.arange(len(sides)) + width * (len(names) - 1) / 2, [f"{s}x{s}" for s in sides])
        ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.set_xlabel(f"grid (with evidence), {seconds:g} s per sampler")
    axes[0].legend()
    style.save_figure(fig, path)


if __name__ == "__main__":
    main()
