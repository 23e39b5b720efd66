r"""Speed of the Gibbs sampler: ns per site update on a large grid, and a side-by-side with pgmpy.

Run::

    python -m dogs.benchmarks.gibbs --out results/benchmarks/gibbs.json [--side 1000]

What is measured (wall clock, ``time.perf_counter``, after JIT warm-up; best
and median of ``--repeats`` repeats):

1. **Large grid** (DoGS §5.2, Fig. 2): an open ``side x side`` Ising grid with
   ``theta_ij ~ U[0, 0.25]`` and zero field, one chain, a systematic
   (row-major) scan of ``T = 2 side^2`` steps. One *sample point* is one call of
   :func:`dogs.samplers.run_gibbs` with ``initial_state=+1``: it includes
   validation, seeding and resetting the state to all ``+1``. ns per site update
   is that time divided by ``T``. The paper reports 12.65 µs per Gibbs step
   (DoGS §5.2, footnote 1, 2015 MacBook Pro); the ratio is written next to ours.
2. **pgmpy side by side**: ``pgmpy.sampling.GibbsSampling`` on a small grid
   (default 4 x 4, same parameter law) against ``run_gibbs`` on the same model,
   both doing the same number of systematic sweeps and both returning the
   state after every sweep (ours via ``record_times``). pgmpy's constructor
   tabulates each conditional over all ``2^(p-1)`` states of the other
   variables, so its setup time is reported separately and a 4 x 4 grid is
   about the largest that fits the budget. pgmpy draws from numpy's global
   random state; we neither seed nor read it (this is a timing, not a
   statistical, comparison). Ours is also timed on a long run of the same
   model, where the per-call overhead is amortised.
3. **Roofline**: the bytes one site update moves (:func:`bytes_per_site_update`)
   over its time, against a STREAM-like copy measured in the same run on one
   thread and on all (:mod:`dogs._kernels.bandwidth`).
4. **Many chains**: ``--chains`` independent chains (``run_gibbs(n_chains=...)``,
   numba ``prange`` over chains) on a 100 x 100 grid, site updates per second
   with one numba thread and with all of them, and the scaling factor.

What limits the kernel (measured on a 2-core AMD EPYC, 1000 x 1000 grid, one process, same output bit
for bit): not memory (under half of one thread's copy bandwidth) but the chain of steps through the spin
written the step before, which the next site (its right neighbour) reads. With the CSR layout the
kernel took 6.2-6.9 ns per update (``valgrind --tool=callgrind``: about 103 instructions), 4.8 ns with
that dependency removed (spins written to a separate array). Two changes of
:mod:`dogs._kernels.gibbs` bring it to 4.2-4.4 ns: the padded fixed-width layout (loop counts known at
compile time, no ``indptr``: 6.7 -> 5.5 ns alone) and deciding the spin for both values of the
last-written neighbour before reading it (the dependency chain shrinks to a load and a select: 5.5 ->
4.1-4.2 ns). The CSR kernel, kept for graphs the padding would bloat (tori, dense models), makes the same
two-candidate decision: 6.6 -> 6.2 ns on this grid. Summing the field in one loop instead would change its
rounding, and so the samples; the kernels keep the documented order.

The JSON (written atomically by :func:`dogs.io.write_json`) records the CPU
model, core count, numba/numpy/pgmpy versions, the seed, the settings and every
repeat, so it can be read without this code.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dogs.io import machine_info as io_machine_info
from dogs.io import atomic_path, write_json

PAPER_STEP_SECONDS = 12.65e-6  # DoGS §5.2 footnote 1: one Gibbs step on a 2015 MacBook Pro

__all__ = [
    "PAPER_STEP_SECONDS",
    "benchmark_bandwidth",
    "benchmark_grid",
    "benchmark_many_chains",
    "benchmark_pgmpy",
    "bytes_per_site_update",
    "machine_info",
    "main",
    "run_record",
    "timed",
]


def run_record(module: str, argv, args, info: dict) -> dict:
    """The head of a benchmark's result record: the module, its command line, seed and settings (the parsed
    ``args``), the machine (``info``, :func:`machine_info`) and the UTC time."""
    return {
        "benchmark": module,
        "command": " ".join([Path(sys.executable).name, "-m", module, *(argv if argv is not None else sys.argv[1:])]),
        "seed": args.seed,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": info,
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_result_and_table(result: dict, json_path, table_path, table: str) -> None:
    """The end of a benchmark with a markdown table: ``result`` written as JSON and ``table`` as text (each
    atomically, the folder made), and the table printed."""
    write_json(json_path, result)
    Path(table_path).parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(table_path) as tmp:
        tmp.write_text(table)
    print(table)


def machine_info() -> dict:
    """CPU model, core counts and library versions of this machine."""
    import numba
    import pgmpy

    cpu_model = io_machine_info()["cpu"]
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu_model": cpu_model,
        "cpu_count_logical": os.cpu_count(),
        "cpu_count_usable": usable,
        "numba_threads": numba.get_num_threads(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "pgmpy": pgmpy.__version__,
    }


def _grid_with_uniform_couplings(side: int, rng: np.random.Generator, max_coupling: float = 0.25):
    from dogs.models import grid_model
    from dogs.models.binary import grid_edges

    n_edges = len(grid_edges(side, side))
    return grid_model(side, side, rng.uniform(0.0, max_coupling, n_edges), 0.0)


def timed(function, repeats: int) -> list[float]:
    """Wall-clock seconds of ``repeats`` calls of ``function()`` (``time.perf_counter``), one per call."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def _summary(seconds: list[float], per: int) -> dict:
    best, median = min(seconds), float(np.median(seconds))
    return {
        "best_s": best,
        "median_s": median,
        "best_ns_per_site_update": best / per * 1e9,
        "median_ns_per_site_update": median / per * 1e9,
        "repeats_s": seconds,
    }


def benchmark_grid(side: int, repeats: int, seed: np.random.SeedSequence) -> dict:
    """One-chain systematic scan of ``2 side^2`` steps on the ``side x side`` open grid (see the module docstring)."""
    from dogs.samplers import run_gibbs
    from dogs.scans import systematic_scan

    model_seed, run_seed = seed.spawn(2)
    start = time.perf_counter()
    model = _grid_with_uniform_couplings(side, np.random.default_rng(model_seed))
    n_steps = 2 * model.n_vars
    scan = systematic_scan(model.n_vars, n_steps)
    setup = time.perf_counter() - start
    run_gibbs(model, systematic_scan(model.n_vars, 10), seed=run_seed)  # JIT warm-up (or cache load)
    sample_point = lambda: run_gibbs(model, scan, seed=run_seed, initial_state=1)  # noqa: E731
    times = timed(sample_point, repeats)
    return {
        "model": f"open {side}x{side} grid, theta ~ U[0, 0.25], zero field",
        "scan": "systematic (row-major)",
        "n_vars": model.n_vars,
        "bytes_per_site_update": bytes_per_site_update(model, scan.indices[: model.n_vars]),
        "steps_per_sample_point": n_steps,
        "model_and_scan_setup_s": setup,
        "sample_point": _summary(times, n_steps),
        "paper_step_s": PAPER_STEP_SECONDS,
        "speedup_vs_paper_step_best": PAPER_STEP_SECONDS / (min(times) / n_steps),
    }


def bytes_per_site_update(model, scan_indices) -> float:
    """Bytes a systematic-scan site update reads and writes, averaged over the scan (the roofline numerator).

    Per step: the scan index (8) and the field ``h[i]`` (8); the site's neighbourhood in the layout the
    kernel reads (:func:`dogs.samplers.gibbs.kernel_graph`): with the padded layout its record of
    ``W = L + U`` slots (``16 W``: index and coupling bits per slot), with CSR ``indptr[i]`` and
    ``indptr[i + 1]`` (8, the second is the next step's first) and the index and coupling of each stored
    slot (16 per neighbour); then one neighbour spin per slot read (1, mostly cached) and the new spin (1).
    """
    from dogs.samplers.gibbs import kernel_graph

    graph = kernel_graph(model)
    if isinstance(graph, np.ndarray):
        width = graph.dtype["lower"].shape[0] + graph.dtype["upper"].shape[0]
        return 8 + 8 + width * (16 + 1) + 1
    degree = np.diff(model.indptr)[np.asarray(scan_indices) % model.n_vars].mean()
    return 8 + 8 + 8 + degree * (16 + 1) + 1


def benchmark_bandwidth(repeats: int, n_bytes: int = 2**28) -> dict:
    """STREAM-like copy on one thread and on every numba thread: GB/s of read + write traffic."""
    import numba

    from dogs._kernels.bandwidth import copy_parallel, copy_serial

    source = np.ones(n_bytes // 16)
    target = np.empty_like(source)
    out = {"array_bytes": int(source.nbytes), "threads": numba.get_num_threads()}
    for name, kernel in (("one_thread", copy_serial), ("all_threads", copy_parallel)):
        kernel(source, target)  # JIT and first touch
        seconds = min(timed(lambda: kernel(source, target), repeats))
        out[f"{name}_gb_per_s"] = 2 * source.nbytes / seconds / 1e9
    return out


def benchmark_many_chains(side: int, n_chains: int, sweeps: int, repeats: int, seed: np.random.SeedSequence) -> dict:
    """Independent chains over all cores: site updates per second with one numba thread and with all of them."""
    import numba

    from dogs.samplers import run_gibbs
    from dogs.scans import systematic_scan

    model = _grid_with_uniform_couplings(side, np.random.default_rng(seed))
    scan = systematic_scan(model.n_vars, sweeps * model.n_vars)
    updates = n_chains * scan.length
    threads_all = numba.get_num_threads()
    rates = {}
    try:
        for label, threads in (("one_thread", 1), ("all_threads", threads_all)):
            numba.set_num_threads(threads)
            run_gibbs(model, systematic_scan(model.n_vars, 10), seed=0, n_chains=n_chains)  # warm-up
            best = min(timed(lambda: run_gibbs(model, scan, seed=1, n_chains=n_chains, initial_state=1), repeats))
            rates[label] = updates / best
    finally:
        numba.set_num_threads(threads_all)
    return {
        "model": f"open {side}x{side} grid, theta ~ U[0, 0.25], zero field",
        "chains": n_chains,
        "site_updates_per_run": updates,
        "threads": threads_all,
        "one_thread_updates_per_s": rates["one_thread"],
        "all_threads_updates_per_s": rates["all_threads"],
        "scaling": rates["all_threads"] / rates["one_thread"],
    }


def _pgmpy_network(model):
    """pgmpy ``DiscreteMarkovNetwork`` of a binary MRF: state 0 = spin -1, state 1 = spin +1, factors ``exp(.)``."""
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork

    names = [f"x{i}" for i in range(model.n_vars)]
    spins = np.array([-1.0, 1.0])
    network = DiscreteMarkovNetwork()
    network.add_nodes_from(names)
    for (i, j), theta in zip(model.edges, model.theta):
        network.add_edge(names[i], names[j])
        network.add_factors(DiscreteFactor([names[i], names[j]], [2, 2], np.exp(theta * np.outer(spins, spins)).ravel()))
    for i in range(model.n_vars):
        network.add_factors(DiscreteFactor([names[i]], [2], np.exp(model.h[i] * spins)))
    return network, names


def benchmark_pgmpy(side: int, sweeps: int, repeats: int, seed: np.random.SeedSequence) -> dict:
    """pgmpy ``GibbsSampling`` vs ``run_gibbs`` on the same ``side x side`` grid, same sweeps, state kept every sweep."""
    from pgmpy.sampling import GibbsSampling

    from dogs.samplers import run_gibbs
    from dogs.scans import systematic_scan

    model_seed, run_seed = seed.spawn(2)
    model = _grid_with_uniform_couplings(side, np.random.default_rng(model_seed))
    p = model.n_vars
    network, names = _pgmpy_network(model)
    start = time.perf_counter()
    sampler = GibbsSampling(network)
    pgmpy_setup = time.perf_counter() - start
    all_plus = [(name, 1) for name in names]

    def pgmpy_run():
        # sample(size=n) does n - 1 sweeps; its tqdm bar goes to a discarded buffer
        with contextlib.redirect_stderr(io.StringIO()):
            sampler.sample(start_state=all_plus, size=sweeps + 1)

    pgmpy_run()  # warm-up
    pgmpy_times = timed(pgmpy_run, repeats)
    n_updates = sweeps * p

    scan = systematic_scan(p, n_updates)
    every_sweep = np.arange(0, n_updates + 1, p)
    ours_run = lambda: run_gibbs(model, scan, seed=run_seed, record_vars=np.arange(p), record_times=every_sweep)  # noqa: E731
    ours_run()
    ours_times = timed(ours_run, max(repeats, 5))

    long_updates = 10**6 // p * p
    long_scan = systematic_scan(p, long_updates)
    long_run = lambda: run_gibbs(model, long_scan, seed=run_seed)  # noqa: E731
    long_run()
    long_times = timed(long_run, max(repeats, 5))

    pgmpy_us = min(pgmpy_times) / n_updates * 1e6
    ours_us = min(ours_times) / n_updates * 1e6
    return {
        "model": f"open {side}x{side} grid, theta ~ U[0, 0.25], zero field",
        "sweeps": sweeps,
        "site_updates": n_updates,
        "pgmpy_setup_s": pgmpy_setup,
        "pgmpy": _summary(pgmpy_times, n_updates),
        "ours_same_sweeps": _summary(ours_times, n_updates),
        "ours_long_run": {"site_updates": long_updates, **_summary(long_times, long_updates)},
        "pgmpy_us_per_site_update_best": pgmpy_us,
        "ours_us_per_site_update_best": ours_us,
        "ours_long_run_us_per_site_update_best": min(long_times) / long_updates * 1e6,
        "pgmpy_over_ours_same_sweeps": pgmpy_us / ours_us,
    }


def _table(result: dict) -> str:
    grid, side_by_side = result["grid"], result["pgmpy_comparison"]
    bandwidth, roofline, many = result["bandwidth"], result["roofline"], result["many_chains"]
    point = grid["sample_point"]
    rows = [
        f"Gibbs benchmark on {result['machine']['cpu_model']} ({result['machine']['cpu_count_usable']} usable cores)",
        f"  {grid['model']}, systematic scan, one chain, {grid['steps_per_sample_point']:,} steps per sample point",
        f"    ns per site update      best {point['best_ns_per_site_update']:8.2f}   median {point['median_ns_per_site_update']:8.2f}",
        f"    sample point (ms)       best {point['best_s'] * 1e3:8.2f}   median {point['median_s'] * 1e3:8.2f}",
        f"    paper: 12.65 us/step -> ours is {grid['speedup_vs_paper_step_best']:,.0f}x faster per step",
        f"    roofline: {grid['bytes_per_site_update']:.0f} bytes per update -> "
        f"{roofline['achieved_gb_per_s']:.1f} GB/s = {100 * roofline['fraction_of_one_thread_copy']:.0f}% of one thread's "
        f"copy bandwidth ({bandwidth['one_thread_gb_per_s']:.1f} GB/s; all threads {bandwidth['all_threads_gb_per_s']:.1f} GB/s)",
        f"  many chains: {many['chains']} chains on a {many['model']}: "
        f"{many['one_thread_updates_per_s'] / 1e6:.0f} M site updates/s on 1 thread, "
        f"{many['all_threads_updates_per_s'] / 1e6:.0f} M on {many['threads']} ({many['scaling']:.2f}x)",
        f"  {side_by_side['model']}, {side_by_side['sweeps']} sweeps, state kept every sweep",
        f"    pgmpy GibbsSampling     {side_by_side['pgmpy_us_per_site_update_best']:10.3f} us/site update"
        f"   (setup {side_by_side['pgmpy_setup_s']:.1f} s)",
        f"    dogs run_gibbs          {side_by_side['ours_us_per_site_update_best']:10.3f} us/site update"
        f"   (long run {side_by_side['ours_long_run_us_per_site_update_best'] * 1e3:.2f} ns)",
        f"    ratio pgmpy / ours      {side_by_side['pgmpy_over_ours_same_sweeps']:10,.0f}x",
    ]
    return "\n".join(rows)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m dogs.benchmarks.gibbs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write (atomically)")
    parser.add_argument("--side", type=_positive_int, default=1000, help="side of the large open grid (default 1000)")
    parser.add_argument("--repeats", type=_positive_int, default=7, help="timed repeats per measurement (default 7)")
    parser.add_argument("--pgmpy-side", type=_positive_int, default=4, help="side of the pgmpy grid (default 4; setup is O(p 2^p))")
    parser.add_argument("--pgmpy-sweeps", type=_positive_int, default=100, help="systematic sweeps per pgmpy run (default 100)")
    parser.add_argument("--seed", type=int, default=20170806, help="root seed of the model parameters and chains")
    parser.add_argument("--chains", type=_positive_int, default=64, help="independent chains of the all-cores run (default 64)")
    args = parser.parse_args(argv)
    if args.side < 2 or args.pgmpy_side < 2:
        parser.error("--side and --pgmpy-side must be >= 2")
    if args.pgmpy_side > 5:
        parser.error("--pgmpy-side above 5 makes pgmpy's GibbsSampling setup enumerate > 2^24 states per variable")
    if args.seed < 0:
        parser.error("--seed must be non-negative")
    return args


def main(argv=None) -> dict:
    args = _parse(argv)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pgmpy's deprecation notices on import
        info = machine_info()
        grid_seed, pgmpy_seed, many_seed = np.random.SeedSequence(args.seed).spawn(3)
        grid = benchmark_grid(args.side, args.repeats, grid_seed)
        side_by_side = benchmark_pgmpy(args.pgmpy_side, args.pgmpy_sweeps, min(args.repeats, 3), pgmpy_seed)
        bandwidth = benchmark_bandwidth(args.repeats)
        many = benchmark_many_chains(min(args.side, 100), args.chains, 20, min(args.repeats, 3), many_seed)
    seconds_per_update = grid["sample_point"]["best_s"] / grid["steps_per_sample_point"]
    achieved = grid["bytes_per_site_update"] / seconds_per_update / 1e9
    roofline = {"achieved_gb_per_s": achieved,
                "fraction_of_one_thread_copy": achieved / bandwidth["one_thread_gb_per_s"]}
    result = {
        **run_record("dogs.benchmarks.gibbs", argv, args, info),
        "grid": grid,
        "pgmpy_comparison": side_by_side,
        "bandwidth": bandwidth,
        "roofline": roofline,
        "many_chains": many,
        "paper_step_s": PAPER_STEP_SECONDS,
        "elapsed_s": time.perf_counter() - started,
    }
    write_json(args.out, result)
    print(_table(result))
    print(f"wrote {args.out} in {result['elapsed_s']:.1f} s")
    return result


if __name__ == "__main__":
    main()
