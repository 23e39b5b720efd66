r"""Many chains side by side: our two Gibbs kernels, THRML, ferrotherm, peapods and pgmpy on the CPU, in updates per ns.

Run::

    python -m dogs.benchmarks.chains --out results/benchmarks/chains.json --table chains.md --figure chains.png

Model and scan (as the single-chain benchmark, :mod:`dogs.benchmarks.gibbs`, DoGS §5.2): an open
``side x side`` Ising grid (default 300 x 300), ``theta_ij ~ U[0, 0.25]``, zero field, every chain started
at all ``+1`` (peapods: its own random start) and run for ``sweeps`` sweeps (default 100, ``sweeps p`` site
updates per chain). Time: wall clock (``time.perf_counter``), warm-up excluded (a first call on the same shapes:
JIT, thread pools), the best of ``repeats`` (default 3). Reported per sampler and chain count: ns per site
update of wall time, the same times the threads that had work (ns per update *per core*: ours, the numba
threads with a chain or a block of 8 lanes; THRML, every core, as JAX uses them all; ferrotherm, the threads
it used; peapods, the cores with a replica; pgmpy one), and updates per ns.

Samplers:

``ours, one-chain kernel``  :func:`dogs.samplers.run_gibbs` with ``kernel="chains"`` (numba ``prange`` over
    chains, each chain one dependent sequence of updates; the kernel the paper's timing uses), at the
    chain counts of ``--chain-kernel-chains``.
``ours, vector kernel``  ``kernel="lanes"`` (on this grid the table kernel of :mod:`dogs._kernels.gibbs_table`:
    a site of 8 chains per vector instruction), at the chain counts of ``--chains`` that are at least 8.
``THRML``  THRML's block Gibbs (the JAX library, ``thrml.models.IsingEBM`` and ``IsingSamplingProgram``)
    on the CPU with its two checkerboard blocks as free blocks (every sweep updates the black then the
    white sites; a checkerboard sweep and a systematic sweep are both ``p`` updates), ``jax.vmap`` over the
    chains, ``jax.jit`` compiled and warmed up on the same shapes before timing, at ``--thrml-chains``.
    Optional: without ``thrml`` (the ``peers`` extra of ``pyproject.toml``) one line says so.
``ferrotherm``  ferrotherm's chromatic block Gibbs (Rust, called through its C ABI): ``ferrotherm.Model`` with
    one ``couple(i, j, theta_ij)`` per edge and ``bias(i, h_i)`` per non-zero field, built at ``beta = 1``.
    Its energy is ``E(s) = -sum_ij J_ij s_i s_j - sum_i h_i s_i`` with each added coupling counted once and its
    law ``exp(-beta E)``, so ``J = theta``, ``h = h``, ``beta = 1`` is our ``pi`` exactly (double precision).
    One ``Sim`` is one chain and its own parallelism is inside a sweep (each colour class split over
    ``--threads`` threads), so its row has **one chain**, beside our one-chain rows. Every timed run starts
    from all ``+1`` (set outside the clock) and is one call ``Sim.sweep(sweeps, threads)``; a sweep updates
    every site once (the benchmark checks the library's update counter: ``sweeps p`` per run).
    Per core: the threads it reports having used. Optional, as THRML.
``peapods``  peapods's Gibbs sweeps (Rust): ``peapods.Ising`` on its periodic square lattice with one coupling
    per bond, ``theta_ij`` on the grid's bonds and ``0`` on the wrap-around bonds (so the open grid exactly),
    one temperature ``T = 1`` and ``--peapods-chains`` replicas (default 8), its own batch of independent
    chains, run in parallel over the replicas by its thread pool (every core). A Gibbs update flips ``s_i``
    with probability ``1 / (1 + exp(2 s_i h_i / T))``, ``h_i = sum_j J_ij s_j``, each bond once: the law
    ``exp(sum J_ij s_i s_j / T)``, our ``pi`` at ``J = theta`` (in float32) and ``T = 1``. It has no field, so
    it takes zero-field models only. A sweep visits every site once in a fixed order. ``Ising.sample(sweeps,
    sweep_mode="gibbs", warmup_ratio=1.0)`` makes every sweep a warm-up sweep, so no observable is measured
    during the timed sweeps (as in our rows). peapods cannot set a state: its replicas start from its own
    random state (``Ising.reset`` outside the clock before every timed run), not from all ``+1``.
    Per core: every core with a replica. Optional, as THRML.
``pgmpy``  ``pgmpy.sampling.GibbsSampling`` on a small grid only (its setup tables every conditional over
    all other variables, ``O(p 2^p)``), one chain, via :func:`dogs.benchmarks.gibbs.benchmark_pgmpy`.

numba threads: ``--threads`` (default 2), also ferrotherm's threads. JAX and peapods use their own thread pools
(all cores), as their users get them.

``tests/test_chains_benchmark.py`` checks that each peer samples the same distribution as ours: its per-site and
per-edge frequencies over independent chains on a small grid against exact enumeration.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dogs.benchmarks.gibbs import benchmark_pgmpy, machine_info, run_record, timed, write_result_and_table
from dogs.samplers.gibbs import LANE_WIDTH

__all__ = ["benchmark_ferrotherm", "benchmark_ours", "benchmark_peapods", "benchmark_thrml", "ferrotherm_simulation",
           "grid_model_for_benchmark", "main", "markdown_table", "peapods_couplings", "peapods_ising", "peapods_sweeps",
           "plot_rates"]


def grid_model_for_benchmark(side: int, seed: np.random.SeedSequence):
    """The open ``side x side`` grid, ``theta_ij ~ U[0, 0.25]``, zero field."""
    from dogs.models import grid_model
    from dogs.models.binary import grid_edges

    rng = np.random.default_rng(seed)
    return grid_model(side, side, rng.uniform(0.0, 0.25, len(grid_edges(side, side))), 0.0)


def _row(sampler: str, chains: int, updates: int, seconds: list[float], threads: int) -> dict:
    best = min(seconds)
    ns = best / updates * 1e9
    return {"sampler": sampler, "chains": chains, "site_updates": updates, "threads": threads, "best_s": best,
            "repeats_s": seconds, "ns_per_update": ns, "ns_per_update_per_core": ns * threads,
            "updates_per_ns": 1.0 / ns}


def benchmark_ours(model, sweeps: int, chains: int, kernel: str, repeats: int, threads: int) -> dict:
    """``run_gibbs(kernel=...)`` with ``chains`` chains and ``sweeps`` systematic sweeps: a row of the table."""
    from dogs.samplers import run_gibbs
    from dogs.scans import systematic_scan

    scan = systematic_scan(model.n_vars, sweeps * model.n_vars)
    run_gibbs(model, systematic_scan(model.n_vars, model.n_vars), seed=0, n_chains=chains, kernel=kernel)  # JIT/cache
    seconds = timed(lambda: run_gibbs(model, scan, seed=1, n_chains=chains, initial_state=1, kernel=kernel), repeats)
    label = "ours, one-chain kernel" if kernel == "chains" else "ours, vector kernel"
    working = min(threads, chains if kernel == "chains" else -(-chains // LANE_WIDTH))  # threads with a chain or a block
    return _row(label, chains, chains * scan.length, seconds, working)


def _thrml_sampler(model, side: int, sweeps: int, chains: int):
    """A jitted ``run(keys) -> final states`` of THRML block Gibbs on ``model`` (two checkerboard blocks, vmap over chains)."""
    import jax
    import jax.numpy as jnp
    from thrml import Block, SamplingSchedule, SpinNode, sample_states
    from thrml.models import IsingEBM, IsingSamplingProgram

    nodes = [SpinNode() for _ in range(model.n_vars)]
    edges = [(nodes[int(i)], nodes[int(j)]) for i, j in model.edges]
    ebm = IsingEBM(nodes, edges, jnp.asarray(model.h, dtype=jnp.float32), jnp.asarray(model.theta, dtype=jnp.float32),
                   jnp.array(1.0))
    colour = [(k // side + k % side) % 2 for k in range(model.n_vars)]
    blocks = [Block([nodes[k] for k in range(model.n_vars) if colour[k] == c]) for c in (0, 1)]
    program = IsingSamplingProgram(ebm, blocks, clamped_blocks=[])
    schedule = SamplingSchedule(n_warmup=sweeps, n_samples=1, steps_per_sample=1)
    start = [jnp.ones((chains, len(block)), dtype=jnp.bool_) for block in blocks]  # all +1
    watched = [Block(nodes[:1])]

    def one_chain(key, state):
        return sample_states(key, program, schedule, list(state), [], watched)

    batched = jax.jit(jax.vmap(one_chain))

    def run(seed: int):
        keys = jax.random.split(jax.random.key(seed), chains)
        return jax.block_until_ready(batched(keys, start))

    return run


def benchmark_thrml(model, side: int, sweeps: int, chains: int, repeats: int) -> dict:
    """THRML's CPU block Gibbs with ``chains`` vmapped chains: a row of the table (see the module docstring)."""
    run = _thrml_sampler(model, side, sweeps, chains)
    run(0)  # compile and warm up on the same shapes
    seconds = timed(lambda: run(1), repeats)
    return _row("THRML (CPU, JAX)", chains, chains * sweeps * model.n_vars, seconds, os.cpu_count() or 1)


def _thrml_version() -> str | None:
    try:
        import jax
        import thrml  # noqa: F401
        from importlib.metadata import version

        return f"thrml {version('thrml')}, jax {jax.__version__} ({jax.default_backend()})"
    except ImportError:
        return None


def _timed_from(reset, function, repeats: int) -> list[float]:
    """Wall-clock seconds of ``repeats`` calls of ``function()``, each after ``reset()`` (outside the clock)."""
    seconds = []
    for _ in range(repeats):
        reset()
        seconds += timed(function, 1)
    return seconds


def _peer_version(name: str) -> str | None:
    """``"name version"`` of an installed peer, ``None`` when it cannot be imported."""
    try:
        __import__(name)
    except ImportError:
        return None
    from importlib.metadata import version

    return f"{name} {version(name)}"


def ferrotherm_simulation(model, seed: int):
    """A ferrotherm ``Sim`` (one chain) of ``model`` at ``beta = 1``: ``J_ij = theta_ij`` once per edge, ``h = h``."""
    import ferrotherm

    builder = ferrotherm.Model(model.n_vars)
    builder.couple_many(zip(model.edges[:, 0].tolist(), model.edges[:, 1].tolist(), model.theta.tolist()))
    for i in np.flatnonzero(model.h):
        builder.bias(int(i), float(model.h[i]))
    return builder.build(beta=1.0, seed=seed)


def benchmark_ferrotherm(model, sweeps: int, repeats: int, threads: int) -> dict:
    """One ferrotherm chain from all ``+1``, ``sweeps`` chromatic block-Gibbs sweeps on ``threads`` threads: a row."""
    sim = ferrotherm_simulation(model, seed=1)
    start = [1] * model.n_vars

    def from_start():
        sim.spins = start

    sim.sweep(1, threads=threads)  # warm-up: first-call costs (thread start, caches)
    before = sim.node_updates
    seconds = _timed_from(from_start, lambda: sim.sweep(sweeps, threads=threads), repeats)
    if sim.node_updates - before != repeats * sweeps * model.n_vars:
        raise RuntimeError(f"ferrotherm made {sim.node_updates - before} updates, not {repeats} x {sweeps} sweeps")
    return _row("ferrotherm (Rust, chromatic block Gibbs)", 1, sweeps * model.n_vars, seconds, max(1, sim.threads_used))


def peapods_couplings(model) -> np.ndarray:
    """``model``'s couplings on peapods's periodic ``rows x cols`` lattice, shape ``(rows, cols, 2)``, float32.

    ``[r, c, 0]`` is the bond from ``(r, c)`` to ``(r + 1, c)`` and ``[r, c, 1]`` the one to ``(r, c + 1)``
    (peapods's forward neighbours); the wrap-around bonds stay ``0``, so the lattice is the open grid.
    """
    if model.shape is None or len(model.shape) != 2:
        raise ValueError("peapods runs on a lattice: the model needs a (rows, cols) shape")
    if np.any(model.h != 0):
        raise ValueError("peapods has no field: the model must have zero field")
    rows, cols = model.shape
    i, j = model.edges[:, 0].astype(np.int64), model.edges[:, 1].astype(np.int64)
    right = (j == i + 1) & (i % cols != cols - 1)
    down = j == i + cols
    if not np.all(right | down):
        raise ValueError("peapods takes the open grid's edges only (each site to its right and lower neighbour)")
    couplings = np.zeros((rows, cols, 2), dtype=np.float32)
    couplings[i // cols, i % cols, np.where(down, 0, 1)] = model.theta
    return couplings


def peapods_ising(model, chains: int):
    """A ``peapods.Ising`` of ``model`` (:func:`peapods_couplings`) at ``T = 1`` with ``chains`` replicas."""
    from peapods import Ising

    return Ising(tuple(model.shape), couplings=peapods_couplings(model), temperatures=np.array([1.0]),
                 n_replicas=chains)


def peapods_sweeps(ising, sweeps: int) -> None:
    """``sweeps`` Gibbs sweeps of every replica of ``ising``, all of them warm-up sweeps (no observable measured)."""
    with warnings.catch_warnings():  # its summary statistics of no recorded sweep are 0 / 0
        warnings.simplefilter("ignore", RuntimeWarning)
        ising.sample(sweeps, sweep_mode="gibbs", warmup_ratio=1.0)


def benchmark_peapods(model, sweeps: int, chains: int, repeats: int) -> dict:
    """peapods's Gibbs sweeps on ``chains`` replicas (random starts, see the module docstring): a row of the table."""
    ising = peapods_ising(model, chains)
    peapods_sweeps(ising, 1)  # warm-up: first-call costs (thread pool, caches)
    seconds = _timed_from(ising.reset, lambda: peapods_sweeps(ising, sweeps), repeats)
    return _row("peapods (Rust, Gibbs sweeps, random starts)", chains, chains * sweeps * model.n_vars, seconds,
                min(chains, os.cpu_count() or 1))


def markdown_table(rows: list[dict], header: str) -> str:
    """The rows as a markdown table: sampler, chains, ns per update, ns per update per core, updates per ns."""
    lines = [header, "", "| sampler | chains | ns per update | ns per update per core | updates per ns |",
             "|---|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['sampler']} | {row['chains']} | {row['ns_per_update']:.3f} | "
                     f"{row['ns_per_update_per_core']:.3f} | {row['updates_per_ns']:.4g} |")
    return "\n".join(lines) + "\n"


def plot_rates(rows: list[dict], path: Path, title: str) -> None:
    """Updates per ns against chains (log-log), one line per sampler."""
    from dogs.plotting.style import save_figure
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 4.0))
    ax = fig.add_subplot()
    for sampler in dict.fromkeys(row["sampler"] for row in rows):
        mine = sorted((row["chains"], row["updates_per_ns"]) for row in rows if row["sampler"] == sampler)
        ax.plot([c for c, _ in mine], [r for _, r in mine], marker="o", label=sampler)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("independent chains")
    ax.set_ylabel("site updates per ns (wall clock)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    save_figure(fig, path)


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m dogs.benchmarks.chains", description=__doc__.split("\n\n")[0])
    positive = dict(type=int)
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write (atomically)")
    parser.add_argument("--table", type=Path, required=True, help="markdown table to write")
    parser.add_argument("--figure", type=Path, required=True, help="PNG figure to write")
    parser.add_argument("--side", default=300, help="grid side (default 300)", **positive)
    parser.add_argument("--sweeps", default=100, help="systematic sweeps per chain (default 100)", **positive)
    parser.add_argument("--chains", nargs="+", default=[1, 8, 64, 1024], help="chain counts (vector kernel: those >= 8)",
                        **positive)
    parser.add_argument("--chain-kernel-chains", nargs="+", default=[1, 8, 64], help="chain counts of the one-chain kernel",
                        **positive)
    parser.add_argument("--thrml-chains", nargs="+", default=[1, 8, 64], help="chain counts of THRML", **positive)
    parser.add_argument("--peapods-chains", default=8, help="replicas (chains) of peapods (default 8)", **positive)
    parser.add_argument("--repeats", default=3, help="timed repeats, the best reported (default 3)", **positive)
    parser.add_argument("--threads", default=2, help="numba threads (default 2)", **positive)
    parser.add_argument("--pgmpy-side", default=4, help="grid side of the pgmpy run (default 4; 0 skips it)", type=int)
    parser.add_argument("--pgmpy-sweeps", default=100, help="sweeps of the pgmpy run (default 100)", **positive)
    parser.add_argument("--seed", type=int, default=20170806, help="root seed of the model parameters")
    args = parser.parse_args(argv)
    numbers = [args.side, args.sweeps, args.repeats, args.threads, args.pgmpy_sweeps, args.peapods_chains, *args.chains,
               *args.chain_kernel_chains, *args.thrml_chains]
    if min(numbers) < 1 or args.side < 2 or args.seed < 0 or not (args.pgmpy_side == 0 or 2 <= args.pgmpy_side <= 5):
        parser.error("sizes, counts and repeats must be positive, --side >= 2, --seed >= 0, --pgmpy-side 0 or 2..5")
    return args


def main(argv=None) -> dict:
    import numba

    args = _parse(argv)
    started = time.perf_counter()
    threads = min(args.threads, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(threads)
    model_seed, pgmpy_seed = np.random.SeedSequence(args.seed).spawn(2)
    model = grid_model_for_benchmark(args.side, model_seed)
    rows = []
    for chains in args.chain_kernel_chains:
        rows.append(benchmark_ours(model, args.sweeps, chains, "chains", args.repeats, threads))
        print(f"ours, one-chain kernel, {chains} chains: {rows[-1]['ns_per_update']:.3f} ns/update", flush=True)
    for chains in (c for c in args.chains if c >= 8):
        rows.append(benchmark_ours(model, args.sweeps, chains, "lanes", args.repeats, threads))
        print(f"ours, vector kernel, {chains} chains: {rows[-1]['ns_per_update']:.3f} ns/update", flush=True)
    thrml = _thrml_version()
    if thrml is None:
        print("THRML not installed (pip install -e '.[peers]'): its rows are skipped")
    else:
        for chains in args.thrml_chains:
            rows.append(benchmark_thrml(model, args.side, args.sweeps, chains, args.repeats))
            print(f"THRML, {chains} chains: {rows[-1]['ns_per_update']:.3f} ns/update", flush=True)
    peers = {name: _peer_version(name) for name in ("ferrotherm", "peapods")}
    for name, run in (("ferrotherm", lambda: benchmark_ferrotherm(model, args.sweeps, args.repeats, threads)),
                      ("peapods", lambda: benchmark_peapods(model, args.sweeps, args.peapods_chains, args.repeats))):
        if peers[name] is None:
            print(f"{name} not installed (pip install -e '.[peers]'): its row is skipped")
            continue
        rows.append(run())
        print(f"{name}, {rows[-1]['chains']} chains: {rows[-1]['ns_per_update']:.3f} ns/update", flush=True)
    pgmpy = None
    if args.pgmpy_side:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            pgmpy = benchmark_pgmpy(args.pgmpy_side, args.pgmpy_sweeps, args.repeats, pgmpy_seed)
        rows.append(_row(f"pgmpy GibbsSampling ({args.pgmpy_side}x{args.pgmpy_side} grid)", 1, pgmpy["site_updates"],
                         pgmpy["pgmpy"]["repeats_s"], 1))
    header = (f"Open {args.side}x{args.side} grid, theta ~ U[0, 0.25], zero field, {args.sweeps} sweeps per chain, "
              f"best of {args.repeats}; numba threads {threads}, {os.cpu_count()} cores; "
              + "; ".join([thrml or "THRML not installed"]
                          + [version or f"{name} not installed" for name, version in peers.items()]))
    result = {**run_record("dogs.benchmarks.chains", argv, args, machine_info()), "rows": rows, "thrml": thrml, **peers,
              "pgmpy_comparison": pgmpy, "elapsed_s": time.perf_counter() - started}
    write_result_and_table(result, args.out, args.table, markdown_table(rows, header))
    plot_rates(rows, args.figure, f"{args.side}x{args.side} grid, {args.sweeps} sweeps")
    print(f"wrote {args.out}, {args.table}, {args.figure} in {result['elapsed_s']:.1f} s", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
