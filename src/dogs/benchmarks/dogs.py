r"""Timing benchmark of the Dobrushin variation and DoGS Algorithm 2.

Run ``python -m dogs.benchmarks.dogs --out results/benchmarks/dogs.json``.

Part (i) repeats the DoGS setup of §5.2: a ``1000 x 1000`` open Ising grid,
:math:`\theta_{ij} \sim U[0, 0.25]` (seeded), zero field, :math:`d = e_1`.
It times

1. the influence bound :math:`\bar C` (DoGS Theorem 11, which at zero field is
   :math:`\tanh|\theta_{ij}|` on every edge) -- via
   :func:`dogs.bounds.influence_binary_pairwise` when that is importable, else
   computed inline (the JSON says which);
2. :math:`\epsilon`, the Dobrushin variation (Definition 7) of the systematic
   scan of length :math:`T = 2 \cdot 10^6`;
3. the length-doubling search of §5.2 (Algorithm 2 on the first
   :math:`\tilde T = 2, 4, 8, \dots` steps until :math:`\mathcal V \le \epsilon`).

The paper reports 15 s of setup and a DoGS scan of length 16. The paper's
systematic scan is :math:`q_t = e_{(t \bmod p) + 1}` (§2.1), which starts at
variable 2 and ends every sweep on variable 1; :func:`dogs.scans.systematic_scan`
starts at variable 1. Both are timed; the paper's is the headline.

Part (ii) is a scaling table of Algorithm 2 on grids: time as ``T`` grows
(fixed ``p``) and as ``p`` grows (fixed ``T``), for :math:`d = e_1` and
:math:`d = \mathbf 1`, with systematic (deterministic) input scans, plus a
few uniform input scans whose steps are dense. DoGS §4 states
``O(||d||_0 + (m log p + m^2) T)`` time for deterministic scans, so the time per
step should be nearly flat in ``p`` (up to the ``log p`` heap depth and cache
effects) and ``O(nnz + p)`` per uniform step.

Numba compilation (or loading the on-disk cache) happens in a warm-up on a
tiny problem and is reported separately. Model construction is reported but
is not part of the DoGS setup time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import sparse

from dogs.io import machine_info, write_json
from dogs.models.binary import grid_model
from dogs.scans.base import paper_systematic_scan, systematic_scan, uniform_scan
from dogs.scans.dogs import dogs_scan, length_doubling_dogs
from dogs.scans.variation import dobrushin_variation
from dogs.seeds import make_rng, seed_record

__all__ = ["influence_for", "setup_benchmark", "scaling_benchmark", "main"]

PAPER_SETUP_SECONDS = 15.0
PAPER_DOGS_LENGTH = 16
TARGET_SETUP_SECONDS = 1.0


def influence_for(model) -> tuple[sparse.csr_matrix, str]:
    """Theorem 11 bound for ``model`` and where it came from.

    Uses :func:`dogs.bounds.influence_binary_pairwise` if importable; otherwise, valid only at zero field,
    :math:`\\bar C_{ij} = \\tanh|\\theta_{ij}|` on each edge built from the model's CSR neighbour lists.
    """
    try:
        from dogs.bounds import influence_binary_pairwise
    except ImportError:
        influence_binary_pairwise = None
    if influence_binary_pairwise is not None:
        return influence_binary_pairwise(model), "dogs.bounds.influence_binary_pairwise"
    if np.any(model.h != 0):
        raise RuntimeError("dogs.bounds is unavailable and the inline tanh|theta| bound needs a zero field")
    p = model.n_vars
    bound = sparse.csr_matrix((np.tanh(np.abs(model.coupling)), model.neighbors, model.indptr), shape=(p, p))
    return bound, "inline tanh|theta_ij| (zero field)"


def _grid(rows: int, rng):
    n_edges = 2 * rows * (rows - 1)
    return grid_model(rows, rows, rng.uniform(0.0, 0.25, n_edges))


def _warm_up() -> float:
    """Compile or load every kernel on a tiny problem; returns the seconds spent."""
    tic = time.perf_counter()
    model = _grid(3, np.random.default_rng(0))
    bound, _ = influence_for(model)
    weights = np.ones(model.n_vars)
    for scan in (systematic_scan(9, 20), uniform_scan(9, 5)):
        dobrushin_variation(scan, weights, bound)
        dogs_scan(scan, weights, bound, epsilon=0.0)
        dogs_scan(scan, np.eye(1, 9)[0], bound)
    length_doubling_dogs(systematic_scan(9, 64), weights, bound, dobrushin_variation(systematic_scan(9, 64), weights, bound))
    return time.perf_counter() - tic


def setup_benchmark(rows: int = 1000, length: int = 2 * 10**6, seed: int = 0, model=None) -> tuple[dict, object]:
    """Part (i): the §5.2 DoGS setup on a ``rows x rows`` grid with ``d = e_1``; returns (report, model)."""
    rng = make_rng(seed, "benchmarks", "dogs", "grid")
    tic = time.perf_counter()
    if model is None:
        model = _grid(rows, rng)
    model_seconds = time.perf_counter() - tic
    p = model.n_vars

    tic = time.perf_counter()
    bound, bound_source = influence_for(model)
    bound_seconds = time.perf_counter() - tic
    weights = np.zeros(p)
    weights[0] = 1.0

    scans = {}
    for name, make in (("paper", paper_systematic_scan), ("base", systematic_scan)):
        scan = make(p, length)
        tic = time.perf_counter()
        epsilon = dobrushin_variation(scan, weights, bound)
        variation_seconds = time.perf_counter() - tic
        tic = time.perf_counter()
        doubling = length_doubling_dogs(scan, weights, bound, epsilon)
        doubling_seconds = time.perf_counter() - tic
        scans[name] = {
            "scan": ("q_t = e_{(t mod p)+1} (DoGS §2.1, starts at variable 2)" if name == "paper"
                     else "dogs.scans.systematic_scan (starts at variable 1)"),
            "epsilon": epsilon,
            "variation_seconds": variation_seconds,
            "length_doubling_seconds": doubling_seconds,
            "total_setup_seconds": bound_seconds + variation_seconds + doubling_seconds,
            "dogs_length": doubling.length,
            "dogs_variation": doubling.variation,
            "dogs_variation_over_epsilon": doubling.variation / epsilon if epsilon > 0 else None,
            "lengths_tried": doubling.lengths_tried,
            "variations_tried": doubling.variations_tried,
            "dogs_scan": doubling.scan.indices,
        }
    return {
        "grid": [rows, rows],
        "n_vars": p,
        "theta": "U[0, 0.25] per edge, zero field",
        "weights": "e_1",
        "input_length": length,
        "seed": seed,
        "seed_record": seed_record(seed, "benchmarks", "dogs", "grid"),
        "model_build_seconds": model_seconds,
        "bound_source": bound_source,
        "bound_seconds": bound_seconds,
        "bound_nnz": int(bound.nnz),
        "scans": scans,
        "paper_setup_seconds": PAPER_SETUP_SECONDS,
        "paper_dogs_length": PAPER_DOGS_LENGTH,
        "target_setup_seconds": TARGET_SETUP_SECONDS,
    }, model


def _time_dogs(scan, weights, bound, repeats: int) -> tuple[float, float]:
    """Best-of-``repeats`` forward and backward seconds of Algorithm 2 (no early stopping)."""
    best = None
    for _ in range(repeats):
        result = dogs_scan(scan, weights, bound)
        if best is None or result.forward_seconds + result.backward_seconds < sum(best):
            best = (result.forward_seconds, result.backward_seconds)
    return best


def scaling_benchmark(seed: int = 0, big_model=None, sides=(100, 300, 1000), fixed_side: int = 300,
                      lengths=(10**4, 3 * 10**4, 10**5, 3 * 10**5), fixed_length: int = 10**5,
                      uniform_sides=(10, 30, 100), uniform_length: int = 1000, repeats: int = 2) -> list[dict]:
    """Part (ii): Algorithm 2 time versus ``T`` (fixed ``p``) and versus ``p`` (fixed ``T``)."""
    rows = []
    models = {}

    def model_of(side):
        if side not in models:
            if big_model is not None and big_model.shape == (side, side):
                models[side] = big_model
            else:
                models[side] = _grid(side, make_rng(seed, "benchmarks", "dogs", "scaling", side))
        return models[side]

    def add(sweep, side, length, weight_name, scan_kind):
        model = model_of(side)
        p = model.n_vars
        bound, _ = influence_for(model)
        weights = np.ones(p) if weight_name == "1" else np.eye(1, p)[0]
        scan = systematic_scan(p, length) if scan_kind == "systematic" else uniform_scan(p, length)
        forward, backward = _time_dogs(scan, weights, bound, repeats)
        rows.append({
            "sweep": sweep, "scan": scan_kind, "weights": weight_name, "n_vars": p, "length": length,
            "forward_seconds": forward, "backward_seconds": backward,
            "ns_per_step": 1e9 * (forward + backward) / length,
        })

    for weight_name in ("e_1", "1"):
        for length in lengths:
            add("T", fixed_side, length, weight_name, "systematic")
        for side in sides:
            add("p", side, fixed_length, weight_name, "systematic")
        for side in uniform_sides:
            add("p", side, uniform_length, weight_name, "uniform")
    return rows


def _print_report(setup: dict, scaling: list[dict], warmup_seconds: float, stream=sys.stdout):
    p = setup["n_vars"]
    print(f"DoGS §5.2 setup: {setup['grid'][0]}x{setup['grid'][1]} grid (p = {p}), d = e_1, "
          f"systematic input of length {setup['input_length']}, seed {setup['seed']}", file=stream)
    print(f"  numba warm-up {warmup_seconds:.2f} s, model construction {setup['model_build_seconds']:.2f} s "
          f"(neither counted below)", file=stream)
    print(f"  bound C̄ ({setup['bound_source']}): {setup['bound_seconds']:.3f} s", file=stream)
    header = f"  {'input scan':<8} {'epsilon':>11} {'V(eps) s':>9} {'doubling s':>10} {'total s':>8} " \
             f"{'DoGS T~':>7} {'DoGS V':>11}  lengths tried"
    print(header, file=stream)
    for name, row in setup["scans"].items():
        print(f"  {name:<8} {row['epsilon']:>11.4e} {row['variation_seconds']:>9.3f} "
              f"{row['length_doubling_seconds']:>10.3f} {row['total_setup_seconds']:>8.3f} {row['dogs_length']:>7d} "
              f"{row['dogs_variation']:>11.4e}  {list(map(int, row['lengths_tried']))}", file=stream)
    print(f"  paper: {setup['paper_setup_seconds']:.0f} s setup, DoGS length {setup['paper_dogs_length']}; "
          f"target here <= {setup['target_setup_seconds']:.0f} s", file=stream)
    print("\nAlgorithm 2 scaling (best of repeats; no early stopping)", file=stream)
    print(f"  {'sweep':<5} {'scan':<10} {'d':<4} {'p':>8} {'T':>8} {'forward s':>10} {'backward s':>10} "
          f"{'ns/step':>9}", file=stream)
    for row in scaling:
        print(f"  {row['sweep']:<5} {row['scan']:<10} {row['weights']:<4} {row['n_vars']:>8d} {row['length']:>8d} "
              f"{row['forward_seconds']:>10.4f} {row['backward_seconds']:>10.4f} {row['ns_per_step']:>9.0f}",
              file=stream)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/dogs.json"), help="JSON output path")
    parser.add_argument("--seed", type=int, default=0, help="root seed (couplings of every grid)")
    parser.add_argument("--side", type=int, default=1000, help="grid side of the §5.2 setup (paper: 1000)")
    parser.add_argument("--length", type=int, default=2 * 10**6, help="systematic input length (paper: 2e6)")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    warmup_seconds = _warm_up()
    setup, model = setup_benchmark(args.side, args.length, args.seed)
    # the scaling table never uses grids larger than the setup's (a smoke run stays small)
    sides = tuple(side for side in (100, 300, 1000) if side <= args.side) or (args.side,)
    scaling = scaling_benchmark(args.seed, big_model=model, sides=sides, fixed_side=min(300, args.side),
                                uniform_sides=tuple(side for side in (10, 30, 100) if side <= args.side) or (args.side,))
    report = {
        "benchmark": "dogs",
        "machine": machine_info(),
        "settings": {"seed": args.seed, "side": args.side, "length": args.length},
        "warmup_seconds": warmup_seconds,
        "setup": setup,
        "scaling": scaling,
        "elapsed_seconds": time.perf_counter() - started,
    }
    _print_report(setup, scaling, warmup_seconds)
    write_json(args.out, report)
    print(f"\nwrote {args.out} ({report['elapsed_seconds']:.1f} s)")
    return report


if __name__ == "__main__":
    main()
