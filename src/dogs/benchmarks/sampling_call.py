r"""The path users take: ``dogs.sample`` end to end beside the raw kernel on the same work, and beside pgmpy.

Run::

    python -m dogs.benchmarks.sampling_call --out results/benchmarks/sampling.json --table sampling.md

Models: open ``side x side`` Ising grids (default sides 4, 32 and 1000: 16, 1 024 and 10^6 variables),
``theta_ij ~ U[0, 0.25]``, zero field (the grids of :mod:`dogs.benchmarks.chains`). At every side and chain count
(default 1, 8 and 64), ``dogs.sample`` runs its defaults (dispersed starts, one systematic sweep per draw, the
convergence check and the ``InferenceData`` it returns) for ``draws`` draws (default 4000, 1000 and 25 by side),
recording every variable up to ``--record-at-most`` (default 10 000; above it, that many spread evenly: a
``(chains, draws, variables)`` array of every variable of a 10^6 grid would hold 1.6 GB at 64 chains and 25 draws).

Reported per row, best of ``repeats`` wall-clock times (``time.perf_counter``, numba's compilation excluded by a
first call on the same shapes):

- *end to end*: the whole ``dogs.sample`` call, in ns per site update (``chains x draws x p`` updates) and in
  us per draw (per chain and recorded pass);
- *raw kernel*: the kernel calls alone on the same work (``prepare_gibbs_draws(...).run(0, draws)``: the same
  chains, seeds, scan, recorded variables and kernel, everything else prepared before the clock starts);
- their ratio, what the call costs beyond its kernel.

pgmpy's ``GibbsSampling`` runs beside on the ``--pgmpy-side`` grid (default 4 x 4; one chain,
:func:`dogs.benchmarks.gibbs.benchmark_pgmpy`: its own draw of the same grid law, ``--pgmpy-sweeps`` sweeps), and the
table gives how many times its time per update is ours end to end at every chain count of that side.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dogs.benchmarks.chains import grid_model_for_benchmark
from dogs.benchmarks.gibbs import benchmark_pgmpy, machine_info, run_record, timed, write_result_and_table

__all__ = ["benchmark_row", "main", "markdown_table", "recorded_variables"]


def recorded_variables(n_vars: int, at_most: int) -> np.ndarray | None:
    """Every variable (``None``) when there are at most ``at_most``, else ``at_most`` of them spread evenly."""
    if n_vars <= at_most:
        return None
    return np.unique(np.linspace(0, n_vars - 1, at_most).astype(np.int64))


def benchmark_row(model, side: int, chains: int, draws: int, variables, repeats: int, seed: int) -> dict:
    """``dogs.sample`` end to end and its raw kernel on the same work: one row of the table."""
    from dogs.sampling_call import SamplingWarning, sample
    from dogs.samplers.gibbs import gibbs_kernel, prepare_gibbs_draws
    from dogs.scans import systematic_scan

    def end_to_end():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)  # short runs on big grids do not converge: not timed here
            return sample(model, chains=chains, draws=draws, seed=seed, variables=variables, progress=False)

    end_to_end()  # compiles (or loads) the kernels for these shapes
    e2e = timed(end_to_end, repeats)
    scan = systematic_scan(model.n_vars, model.n_vars)
    start = np.where(np.random.default_rng(seed).random((chains, model.n_vars)) < 0.5, -1, 1).astype(np.int8)

    def prepared():
        return prepare_gibbs_draws(model, scan, seed=seed, draws=draws, n_chains=chains, initial_state=start,
                                   record_vars=variables)

    prepared().run(0, draws)
    raw = []
    for _ in range(repeats):
        ready = prepared()
        begin = time.perf_counter()
        ready.run(0, draws)
        raw.append(time.perf_counter() - begin)
    updates = chains * draws * model.n_vars
    best, best_raw = min(e2e), min(raw)
    return {"side": side, "n_vars": model.n_vars, "chains": chains, "draws": draws,
            "recorded": model.n_vars if variables is None else int(variables.size),
            "kernel": gibbs_kernel(model, scan, chains), "site_updates": updates,
            "end_to_end_s": e2e, "raw_kernel_s": raw,
            "end_to_end_ns_per_update": best / updates * 1e9, "raw_ns_per_update": best_raw / updates * 1e9,
            "end_to_end_us_per_draw": best / (chains * draws) * 1e6, "end_to_end_over_raw": best / best_raw}


def markdown_table(rows: list[dict], pgmpy_ns: float | None, pgmpy_side: int, header: str) -> str:
    """The rows as a markdown table, with pgmpy's time per update over ours on its grid (side ``pgmpy_side``)."""
    lines = [header, "", "| variables | chains | draws | recorded | kernel | end to end, ns/update | us/draw | "
             "raw kernel, ns/update | end to end / raw | pgmpy / ours |", "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        versus = (f"{pgmpy_ns / row['end_to_end_ns_per_update']:,.0f}x"
                  if pgmpy_ns is not None and row["side"] == pgmpy_side else "")
        lines.append(f"| {row['n_vars']:,} | {row['chains']} | {row['draws']} | {row['recorded']:,} | {row['kernel']} | "
                     f"{row['end_to_end_ns_per_update']:.2f} | {row['end_to_end_us_per_draw']:.2f} | "
                     f"{row['raw_ns_per_update']:.2f} | {row['end_to_end_over_raw']:.2f} | {versus} |")
    if pgmpy_ns is not None:
        lines.append(f"\npgmpy GibbsSampling on the {pgmpy_side}x{pgmpy_side} grid, one chain: {pgmpy_ns:,.0f} ns per "
                     "site update.")
    return "\n".join(lines) + "\n"


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m dogs.benchmarks.sampling_call", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write (atomically)")
    parser.add_argument("--table", type=Path, required=True, help="markdown table to write")
    parser.add_argument("--sides", nargs="+", type=int, default=[4, 32, 1000], help="grid sides (default 4 32 1000)")
    parser.add_argument("--draws", nargs="+", type=int, default=[4000, 1000, 25],
                        help="draws per chain, one per side (default 4000 1000 25)")
    parser.add_argument("--chains", nargs="+", type=int, default=[1, 8, 64], help="chain counts (default 1 8 64)")
    parser.add_argument("--record-at-most", type=int, default=10000,
                        help="variables recorded at most (default 10000; larger grids record that many, spread)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats, the best reported (default 5)")
    parser.add_argument("--threads", type=int, default=2, help="numba threads (default 2)")
    parser.add_argument("--pgmpy-side", type=int, default=4, help="grid side of the pgmpy run (default 4, 2..5)")
    parser.add_argument("--pgmpy-sweeps", type=int, default=100, help="sweeps of the pgmpy run (default 100; 0 skips it)")
    parser.add_argument("--seed", type=int, default=20170806, help="root seed")
    args = parser.parse_args(argv)
    if len(args.draws) != len(args.sides):
        parser.error(f"give one --draws per side: {len(args.sides)} sides, {len(args.draws)} draws")
    numbers = [*args.sides, *args.draws, *args.chains, args.record_at_most, args.repeats, args.threads]
    if min(numbers) < 1 or min(args.sides) < 2 or min(args.draws) < 4 or args.pgmpy_sweeps < 0 or args.seed < 0 \
            or not 2 <= args.pgmpy_side <= 5:
        parser.error("sides >= 2, draws >= 4, chains, repeats, threads and --record-at-most >= 1, "
                     "--pgmpy-sweeps and --seed >= 0, --pgmpy-side 2..5 (pgmpy tables every conditional: p 2^p)")
    memory = max(8.0 * c * s * s + float(c) * d * min(s * s, args.record_at_most)
                 for s, d in zip(args.sides, args.draws) for c in args.chains)
    from dogs.resources import format_bytes, memory_limit_bytes

    if memory > memory_limit_bytes():
        parser.error(f"the largest row needs about {format_bytes(memory)}, more than this machine's limit "
                     f"({format_bytes(memory_limit_bytes())}): lower --sides, --chains or --draws")
    return args


def main(argv=None) -> dict:
    import numba

    args = _parse(argv)
    started = time.perf_counter()
    threads = min(args.threads, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(threads)
    model_seeds = np.random.SeedSequence(args.seed).spawn(len(args.sides) + 1)
    rows = []
    for side, draws, model_seed in zip(args.sides, args.draws, model_seeds):
        model = grid_model_for_benchmark(side, model_seed)
        variables = recorded_variables(model.n_vars, args.record_at_most)
        for chains in args.chains:
            rows.append(benchmark_row(model, side, chains, draws, variables, args.repeats, args.seed))
            row = rows[-1]
            print(f"{model.n_vars} variables, {chains} chains x {draws} draws: end to end "
                  f"{row['end_to_end_ns_per_update']:.2f} ns/update, raw {row['raw_ns_per_update']:.2f} "
                  f"({row['end_to_end_over_raw']:.2f}x)", flush=True)
    pgmpy = None
    if args.pgmpy_sweeps:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            pgmpy = benchmark_pgmpy(args.pgmpy_side, args.pgmpy_sweeps, args.repeats, model_seeds[-1])
    pgmpy_ns = None if pgmpy is None else pgmpy["pgmpy"]["best_ns_per_site_update"]
    header = (f"dogs.sample end to end (its defaults: dispersed starts, one systematic sweep per draw, convergence "
              f"check, InferenceData) beside its raw kernel on the same work; open grids, theta ~ U[0, 0.25], zero "
              f"field; best of {args.repeats}; numba threads {threads}, {os.cpu_count()} cores")
    result = {**run_record("dogs.benchmarks.sampling_call", argv, args, machine_info()), "rows": rows,
              "pgmpy_comparison": pgmpy, "elapsed_s": time.perf_counter() - started}
    write_result_and_table(result, args.out, args.table, markdown_table(rows, pgmpy_ns, args.pgmpy_side, header))
    print(f"wrote {args.out}, {args.table} in {result['elapsed_s']:.1f} s", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
