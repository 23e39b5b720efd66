r"""How DoGS and Gibbs scale with the number of variables: time and peak memory per variable, 10^4 to 10^8.

Run::

    python -m dogs.benchmarks.scaling measure --out results/benchmarks/scaling.json --sides 100 316 1000 3162 10000
    python -m dogs.benchmarks.scaling plot --report results/benchmarks/scaling.json --figure scaling.png

The DoGS paper stops at 10^6 variables (§5.2). For each side ``L`` the model is the §5.2 one at ``p = L^2``
variables: an open ``L x L`` Ising grid, ``theta_ij ~ U[0, 0.25]`` (seeded per side), zero field, target
``d = e_1``. A fresh process per side runs, in order (every stage's inputs are the earlier stages' outputs):

``model``       the grid model (:func:`dogs.models.grid_model`; not a DoGS stage, but every stage reads it)
``bound``       the influence bound of DoGS Theorem 11 (:func:`dogs.bounds.influence_binary_pairwise`)
``scan``        the systematic scan of length ``T = 2p`` in the paper's phase (§5.2's input)
``variation``   its Dobrushin variation ``epsilon`` for ``d = e_1`` (Definition 7)
``doubling``    the length-doubling search of §5.2 (Algorithm 2 on ``2, 4, 8, ...`` steps until ``<= epsilon``)
``algorithm2``  Algorithm 2 without early stopping on one sweep of that scan (``T = p`` steps): time per step
``algorithm2_fixed``  the same on the first ``FIXED_STEPS = 10^5`` steps of the paper-phase systematic scan, at
                every ``p`` (several sweeps when ``p < 10^5``): time per step of its forward and backward
                passes (the call's ``O(p)`` input checks are the other stages' business: here they would be
                divided by a fixed ``T``)
``gibbs_graph`` the Gibbs kernels' copy of the neighbourhoods (:func:`dogs.samplers.gibbs.kernel_graph`)
``gibbs``       one systematic sweep of the Gibbs sampler (DoGS Algorithm 1) from all ``+1``: time per update

Why two Algorithm 2 stages: a step costs ``O(m (m + log s))`` with ``s`` the support of ``d`` (the heap),
and from ``d = e_1`` the support grows with the number of steps already optimised, not with ``p``: about
3 000 variables after 10^5 steps, 14 000 after 10^6, 66 000 after 10^7. On one sweep (``T = p``) the time
per step therefore grows slowly with ``p`` through ``T``; at a fixed ``T`` it shows what ``p`` itself costs.
On a long sweep the variation can underflow to 0 (10^8 steps on the §5.2 grid: every entry of ``d``
falls below the smallest double); the steps after that move no weight and cost only the rewind of ``b``,
so such a side's time per step is not comparable, and the spread below leaves it out (the report says so).

Time: wall clock (``time.perf_counter``) after a numba warm-up on a tiny grid; the best of ``repeats`` runs
for the stages that are cheap to repeat (all but ``model`` and ``gibbs_graph``), more runs (up to
``MAX_REPEATS``) while a stage has spent less than ``MIN_STAGE_SECONDS``, with every repeat recorded. Per variable means
divided by ``p`` (for ``algorithm2`` and ``gibbs``, by the ``p`` steps of the sweep: time per step).

Memory: the resident set size of the process (Linux ``/proc/self/status``; the peak ``VmHWM`` is reset at
the start of every stage through ``/proc/self/clear_refs``), minus the resident size before the model was
built (the interpreter and its libraries). ``peak_bytes`` of a stage is the most the process held during it
(so it includes the stage's inputs, which the process keeps), ``held_bytes`` what it holds after it. Each
side's process runs with glibc's ``MALLOC_MMAP_THRESHOLD_`` at 64 KiB, so every large array is its own
mapping, returned to the system when freed, and the resident size follows the live arrays. Without
``clear_refs`` (not Linux) only the peak over the whole process is known; then every stage reports it.

A side is skipped, with the reason recorded, when its estimated peak (the bytes per variable of the
largest side measured so far, at least the model's own arrays, times ``p``, plus a quarter) exceeds the
memory the system reports available (``MemAvailable``) or ``--max-memory-gb``. ``largest_p_in_memory`` in the JSON is the machine's physical
memory over the peak per variable of the largest side (when that side has at least 10^6 variables).

The JSON (written atomically by :func:`dogs.io.write_json`) records the machine, the settings, the seed and
every repeat.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from dogs.io import machine_info, write_json
from dogs.seeds import make_rng, seed_record, seed_sequence

__all__ = ["STAGES", "TIMED_STAGES", "main", "measure_side", "per_variable_growth", "per_variable_spread"]

#: The stages measured on every side, in the order they run.
STAGES = ("model", "bound", "scan", "variation", "doubling", "algorithm2", "algorithm2_fixed", "gibbs_graph", "gibbs")
#: Stages whose time the issue's "time per variable" reading applies to (``model`` and ``scan`` are inputs).
TIMED_STAGES = ("bound", "variation", "doubling", "algorithm2", "algorithm2_fixed", "gibbs")
#: A repeated stage runs at least ``--repeats`` times and on until it has spent this long (at most ``MAX_REPEATS``
#: runs): on small grids one run is a few hundred microseconds, and its best of three still carried the noise of
#: the first touch of fresh memory (2-3x between benchmark runs at 10^5 variables).
MIN_STAGE_SECONDS = 0.5
MAX_REPEATS = 100
#: Input length of the ``algorithm2_fixed`` stage, the same at every ``p``.
FIXED_STEPS = 10**5
#: The record of each Algorithm 2 stage's final variation: a side where it underflowed to 0 is left out of the
#: stage's spread and growth (module docstring).
_FINAL_VARIATION = {"algorithm2": "algorithm2_variation", "algorithm2_fixed": "algorithm2_fixed_variation"}
MAX_COUPLING = 0.25
#: Child processes: every array above this size is its own mapping, returned to the system when freed.
MMAP_THRESHOLD_BYTES = 64 * 1024
_HEADROOM = 1.25
# The grid model's own arrays per variable (offsets, four int32 neighbours and float64 couplings, the field, the
# state): the least a side can need, used when a small side's peak is below the page resolution of the RSS.
_MIN_BYTES_PER_VARIABLE = 8 + 4 * 4 + 4 * 8 + 8 + 1
#: Below this many variables the interpreter's own allocations blur the bytes per variable: no extrapolation.
MIN_P_FOR_EXTRAPOLATION = 10**6


# --------------------------------------------------------------------------- memory readings
def resident_bytes() -> tuple[int, int]:
    """``(current, peak)`` resident set size of this process in bytes (``VmRSS``, ``VmHWM``); ``(0, 0)`` off Linux."""
    current = peak = 0
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    current = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return current, peak


def reset_peak() -> bool:
    """Reset the peak resident size to the current one (Linux ``clear_refs``); whether that was possible."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def available_bytes() -> int | None:
    """The memory the system reports available for new work (``MemAvailable``), or None where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def physical_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


# --------------------------------------------------------------------------- one side
def _warm_up() -> None:
    """Compile or load every kernel the stages run, on a 4 x 4 grid."""
    measure_side(4, seed=0, repeats=1)


def measure_side(side: int, *, seed: int, repeats: int) -> dict:
    """Every stage of :data:`STAGES` on the ``side x side`` grid, in this process; returns the side's record."""
    from dogs.bounds import influence_binary_pairwise
    from dogs.models.binary import grid_model
    from dogs.samplers.gibbs import kernel_graph, run_gibbs
    from dogs.scans.base import paper_systematic_scan
    from dogs.scans.dogs import dogs_scan, length_doubling_dogs
    from dogs.scans.variation import dobrushin_variation

    p = side * side
    baseline, _ = resident_bytes()
    peaks_resettable = reset_peak()
    stages: dict[str, dict] = {}
    live: dict[str, object] = {}

    def stage(name, compute, times=repeats, per=p, timed=None):
        seconds = []
        reset_peak()
        spent = time.perf_counter()
        while len(seconds) < times or (times > 1 and len(seconds) < MAX_REPEATS
                                       and time.perf_counter() - spent < MIN_STAGE_SECONDS):
            live[name] = None  # the previous repeat's result is freed before the next one is computed
            tic = time.perf_counter()
            live[name] = compute()
            seconds.append(time.perf_counter() - tic if timed is None else timed(live[name]))
        current, peak = resident_bytes()
        best = min(seconds)
        stages[name] = {"seconds": best, "seconds_repeats": seconds, "ns_per_variable": best / per * 1e9,
                        "peak_bytes": max(peak - baseline, 0), "held_bytes": max(current - baseline, 0),
                        "peak_bytes_per_variable": max(peak - baseline, 0) / p}
        return live[name]

    rng = make_rng(seed, "benchmarks", "scaling", side)
    couplings = rng.uniform(0.0, MAX_COUPLING, 2 * side * (side - 1))
    model = stage("model", lambda: grid_model(side, side, couplings), times=1)
    del couplings
    bound = stage("bound", lambda: influence_binary_pairwise(model))
    weights = np.zeros(p)
    weights[0] = 1.0
    scan = stage("scan", lambda: paper_systematic_scan(p, 2 * p))
    epsilon = stage("variation", lambda: dobrushin_variation(scan, weights, bound))
    doubling = stage("doubling", lambda: length_doubling_dogs(scan, weights, bound, epsilon))
    algorithm2 = stage("algorithm2", lambda: dogs_scan(scan.prefix(p), weights, bound))
    fixed_scan = paper_systematic_scan(p, FIXED_STEPS)
    algorithm2_fixed = stage("algorithm2_fixed", lambda: dogs_scan(fixed_scan, weights, bound), per=FIXED_STEPS,
                             timed=lambda result: result.forward_seconds + result.backward_seconds)
    record = {
        "side": side, "n_vars": p, "n_edges": int(model.n_edges), "epsilon": float(epsilon),
        "dogs_length": int(doubling.length), "dogs_variation": float(doubling.variation),
        "algorithm2_variation": float(algorithm2.variation),
        "algorithm2_fixed_variation": float(algorithm2_fixed.variation),
        # how far Algorithm 2 spread d over the sweep: its heap and work space grow with this, not with p
        "algorithm2_distinct_variables": int(np.count_nonzero(np.bincount(algorithm2.scan.indices, minlength=p))),
        "algorithm2_forward_seconds": float(algorithm2.forward_seconds),
        "algorithm2_backward_seconds": float(algorithm2.backward_seconds),
    }
    del algorithm2, algorithm2_fixed, fixed_scan, doubling, bound, scan  # Gibbs reads the model and one sweep only
    live.clear()
    sweep = paper_systematic_scan(p, p)
    stage("gibbs_graph", lambda: kernel_graph(model), times=1)
    gibbs_seed = seed_sequence(seed, "benchmarks", "scaling", side, "gibbs")
    result = stage("gibbs", lambda: run_gibbs(model, sweep, seed=gibbs_seed))
    record["gibbs_mean_spin"] = float(result.states.mean())
    record["stages"] = stages
    record["baseline_resident_bytes"] = baseline
    record["peaks_per_stage"] = peaks_resettable
    return record


def _run_side_in_child(side: int, seed: int, repeats: int) -> dict:
    """:func:`measure_side` in a fresh process (clean memory readings; an out-of-memory kill loses one side)."""
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD_BYTES)}
    command = [sys.executable, "-m", "dogs.benchmarks.scaling", "measure", "--child-side", str(side),
               "--seed", str(seed), "--repeats", str(repeats)]
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"side": side, "n_vars": side * side, "failed": f"exit status {proc.returncode}: "
                                                               f"{proc.stderr.strip().splitlines()[-1:] or ''}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- summary
def per_variable_spread(sides: list[dict], stage: str, smallest_p: int = 10**5) -> float | None:
    """Largest over smallest time per variable of ``stage`` over the measured sides from about ``smallest_p`` on.

    "About": a square grid of side 316 (99 856 variables) counts as 10^5 (every ``p`` from 0.9 ``smallest_p``).
    """
    values = _per_variable(sides, stage, smallest_p)
    return max(values) / min(values) if len(values) >= 2 else None


def per_variable_growth(sides: list[dict], stage: str, smallest_p: int = 10**5) -> float | None:
    """Time per variable of ``stage`` at the largest measured ``p`` over its smallest value from ``smallest_p`` on.

    1 when the cost per variable never rises (a stage with a fixed part gets cheaper per variable); the spread
    of :func:`per_variable_spread` counts a fall and a rise alike.
    """
    values = _per_variable(sides, stage, smallest_p)
    return values[-1] / min(values) if len(values) >= 2 else None


def _per_variable(sides: list[dict], stage: str, smallest_p: int) -> list[float]:
    return [s["stages"][stage]["ns_per_variable"] for s in sides
            if "stages" in s and s["n_vars"] >= 0.9 * smallest_p and not _underflowed(s, stage)]


def _underflowed(side: dict, stage: str) -> bool:
    """True when ``stage`` is an Algorithm 2 stage whose variation underflowed to 0 on this side (module docstring)."""
    return stage in _FINAL_VARIATION and side.get(_FINAL_VARIATION[stage]) == 0.0


def spread_exclusions(sides: list[dict]) -> list[dict]:
    """The sides left out of a stage's spread and growth, with the reason."""
    return [{"stage": stage, "n_vars": side["n_vars"],
             "reason": "the Dobrushin variation underflowed to 0: the later steps move no weight"}
            for side in sides if "stages" in side for stage in TIMED_STAGES if _underflowed(side, stage)]


def _print_table(report: dict, stream=sys.stdout) -> None:
    measured = [s for s in report["sides"] if "stages" in s]
    print("time per variable (ns; the Algorithm 2 stages and gibbs: per step) and peak memory per variable (bytes)",
          file=stream)
    widths = {name: max(12, len(name)) for name in STAGES}
    print(f"  {'p':>11} " + " ".join(f"{name:>{widths[name]}}" for name in STAGES), file=stream)
    for s in measured:
        print(f"  {s['n_vars']:>11,} " + " ".join(f"{s['stages'][n]['ns_per_variable']:>{widths[n]}.2f}"
                                                  for n in STAGES), file=stream)
        print(f"  {'':>11} " + " ".join(f"{s['stages'][n]['peak_bytes_per_variable']:>{widths[n] - 1}.1f}B"
                                        for n in STAGES), file=stream)
    for s in report["sides"]:
        if "stages" not in s:
            print(f"  p = {s['n_vars']:,}: {s.get('skipped') or s.get('failed')}", file=stream)
    spread, growth = report["time_per_variable_spread"], report["time_per_variable_growth"]
    for excluded in report["spread_exclusions"]:
        print(f"  left out of the {excluded['stage']} spread: p = {excluded['n_vars']:,} ({excluded['reason']})",
              file=stream)
    print("largest / smallest time per variable from 10^5 variables on: "
          + ", ".join(f"{k} {v:.2f}x" for k, v in spread.items() if v is not None), file=stream)
    print("time per variable at the largest p / smallest from 10^5 on: "
          + ", ".join(f"{k} {v:.2f}x" for k, v in growth.items() if v is not None), file=stream)
    if report["largest_p_in_memory"]:
        print(f"largest p in this machine's memory: {report['largest_p_in_memory']:.3g} "
              f"({report['peak_bytes_per_variable']:.0f} bytes per variable at the largest p)", file=stream)


def measure(args) -> dict | None:
    """The ``measure`` subcommand: every side in its own process, then the report."""
    if args.child_side is not None:
        _warm_up()
        print(json.dumps(measure_side(args.child_side, seed=args.seed, repeats=args.repeats)))
        return None
    started = time.perf_counter()
    sides, per_variable = [], None
    for side in sorted(set(args.sides)):
        p = side * side
        limit = available_bytes()
        if args.max_memory_gb is not None:
            limit = min(limit or math.inf, args.max_memory_gb * 2**30)
        per_variable_needed = max(per_variable or 0.0, _MIN_BYTES_PER_VARIABLE)
        need = None if per_variable is None else per_variable_needed * p * _HEADROOM
        if need is not None and limit is not None and need > limit:
            sides.append({"side": side, "n_vars": p, "skipped": f"needs about {need / 2**30:.1f} GiB "
                                                                f"({per_variable_needed:.0f} bytes per variable), "
                                                                f"{limit / 2**30:.1f} GiB allowed"})
            print(f"p = {p:,}: skipped, {sides[-1]['skipped']}", flush=True)
            continue
        print(f"p = {p:,} ({side} x {side}) ...", flush=True)
        record = _run_side_in_child(side, args.seed, args.repeats)
        sides.append(record)
        if "stages" in record:
            per_variable = max(stage["peak_bytes_per_variable"] for stage in record["stages"].values())
            print(f"  done: peak {per_variable:.0f} bytes per variable", flush=True)
        else:
            print(f"  failed: {record['failed']}", flush=True)
    measured = [s for s in sides if "stages" in s]
    largest = measured[-1] if measured else None
    peak_per_variable = (max(st["peak_bytes_per_variable"] for st in largest["stages"].values())
                         if largest else None)
    physical = physical_bytes()
    report = {
        "benchmark": "scaling",
        "machine": {**machine_info(), "physical_memory_bytes": physical},
        "settings": {"sides": sorted(set(args.sides)), "seed": args.seed, "repeats": args.repeats,
                     "max_memory_gb": args.max_memory_gb, "max_coupling": MAX_COUPLING},
        "seed_record": seed_record(args.seed, "benchmarks", "scaling"),
        "stages": list(STAGES),
        "sides": sides,
        "time_per_variable_spread": {name: per_variable_spread(measured, name) for name in TIMED_STAGES},
        "time_per_variable_growth": {name: per_variable_growth(measured, name) for name in TIMED_STAGES},
        "spread_exclusions": spread_exclusions(measured),
        "peak_bytes_per_variable": peak_per_variable,
        "largest_p_in_memory": (physical / peak_per_variable if physical and peak_per_variable
                                and largest["n_vars"] >= MIN_P_FOR_EXTRAPOLATION else None),
        "elapsed_seconds": time.perf_counter() - started,
    }
    _print_table(report)
    write_json(args.out, report)
    print(f"wrote {args.out} ({report['elapsed_seconds']:.1f} s)")
    return report


def plot(args) -> None:
    """The ``plot`` subcommand: the figure of a report (:func:`dogs.plotting.scaling.plot_scaling`)."""
    from dogs.io import read_json
    from dogs.plotting.scaling import plot_scaling
    from dogs.plotting.style import save_figure

    save_figure(plot_scaling(read_json(args.report)), args.figure)
    print(f"wrote {args.figure}")


def main(argv=None) -> dict | None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("measure", help="measure every side; write the JSON report")
    run.add_argument("--out", type=Path, default=Path("results/benchmarks/scaling.json"), help="JSON output path")
    run.add_argument("--sides", type=int, nargs="+", default=[100, 316, 1000, 3162],
                     help="grid sides, p = side^2 (100 316 1000 3162 10000 for 10^4 .. 10^8)")
    run.add_argument("--seed", type=int, default=0, help="root seed (couplings of every grid, the Gibbs streams)")
    run.add_argument("--repeats", type=int, default=3, help="runs per stage (model: one); the best is reported")
    run.add_argument("--max-memory-gb", type=float, default=None,
                     help="skip a side whose estimated peak exceeds this (default: the available memory)")
    run.add_argument("--child-side", type=int, default=None, help=argparse.SUPPRESS)
    draw = commands.add_parser("plot", help="draw the figure of a report")
    draw.add_argument("--report", type=Path, required=True, help="JSON report of `measure`")
    draw.add_argument("--figure", type=Path, required=True, help="PNG output path")
    args = parser.parse_args(argv)
    if args.command == "plot":
        plot(args)
        return None
    if any(side < 2 for side in args.sides) or args.repeats < 1 or args.seed < 0:
        parser.error("every side must be >= 2, --repeats >= 1 and --seed >= 0")
    if args.max_memory_gb is not None and not args.max_memory_gb > 0:
        parser.error("--max-memory-gb must be > 0")
    return measure(args)


if __name__ == "__main__":
    main()
