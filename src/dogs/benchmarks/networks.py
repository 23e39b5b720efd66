r"""A scoreboard on the Bayesian networks pgmpy bundles: DoGS, the systematic scan, blocked Gibbs and pgmpy against
exact answers.

Run::

    python -m dogs.benchmarks.networks --out results/benchmarks/networks.json --table networks.md --figure networks.png

Networks: the discrete networks of the bnlearn repository that pgmpy ships (``pgmpy.utils.get_example_model``),
read with :func:`dogs.models.from_pgmpy` as :class:`~dogs.models.factor_graph.DiscreteFactorGraph` s. A network
is scored when exact inference fits: our junction tree's clique tables at most ``--max-table-entries`` entries
(default ``2^24``, 128 MB of float64 before pgmpy's temporaries) once conditioned on its evidence; the others are
listed with the size that ruled them out.

Evidence: ``--evidence`` variables (default 3) chosen at random by the network's seed, observed at their values
in a forward sample of the network (:func:`dogs.samplers.factor_gibbs.positive_starts` in topological order), so
every evidence set has positive probability. Exact posteriors: the junction tree of the conditioned network.

Samplers, each for ``--seconds`` of wall time (default 5) including its setup, every unobserved variable's
marginal estimated from ``--chains`` chains (default 8; pgmpy: one):

``DoGS``  Algorithm 2 (:func:`dogs.scans.dogs_scan`) on a base of two systematic sweeps, targeting every
    unobserved variable (``d = 1``), with the influence bound of :func:`dogs.bounds.influence_bound` (``auto``:
    exact over the Markov blanket where it is small, the factor-graph bound elsewhere) and ``keep_targets=True``
    (what ``dogs scan`` does by default: a target Algorithm 2 drops is put back), then ``dogs.sample`` with that
    scan;
``DoGS-alg2``  the same with Algorithm 2's own scan (``keep_targets=False``, the paper's algorithm), a
    diagnostic: where the bound does not contract its greedy choice drops variables, whose chains then report
    their starts (the ``scan's bound`` column counts them);
``systematic``  ``dogs.sample`` with one systematic sweep per draw;
both with ``dogs.sample``'s default blocks (``--blocks none``: single-site updates): the variables tied by zero
entries, enumerated, or where such blocks cannot hold every tie the ``blocked`` row's elimination blocks
(:func:`dogs.samplers.factor_blocks.automatic_blocks`; DoGS's scan then orders their draws, less the draws a
later step overwrites, :mod:`dogs.samplers.block_scans`); runs with blocks claim no certified bias (the
certificate bounds single-site updates);
``blocked``  ``dogs.sample`` with ``blocks="elimination"`` (:mod:`dogs.samplers.elimination_blocks`): a sweep
    draws each block of up to the whole network, the network minus a cutset, exactly by variable elimination (the
    blocking Gibbs sampler of Jensen, Kong & Kjaerulff 1995); where the whole network fits the caps
    (:data:`~dogs.samplers.elimination_blocks.ELIMINATION_STEP_ENTRIES` per step,
    :data:`~dogs.samplers.elimination_blocks.ELIMINATION_BLOCK_ENTRIES` per block) there is one block and every
    draw is independent and exact, so the row measures the intervals and the cost of exact draws, not Gibbs
    mixing (the ``blocks`` column says ``1 (p variables)`` then);
``pgmpy``  ``pgmpy.sampling.GibbsSampling`` on the conditioned network (pgmpy's sampler takes no evidence, so
    it gets our conditioned factor graph as a Markov network), one chain from a state of positive probability, its
    states counted per variable. It runs in a child process stopped at twice the budget plus 10 s: its setup
    tabulates every variable's kernel over the whole Markov blanket and takes minutes and gigabytes on child and
    larger networks; the row then says it did not finish.

A sampler whose start search (:func:`dogs.samplers.factor_gibbs.positive_starts`, with its work cap) finds no
state of positive probability under the evidence is reported as such, not scored.

Draws are sized to the budget by two pilot runs (the time per pass and the fixed cost); a run that fits more than
:data:`MAX_DRAWS` passes per chain into the budget records every ``k``-th pass (``k`` passes per draw). Every sampler
keeps every pass (``dogs.sample``'s default ``warmup=0``; discarding the first half of each chain was measured and
cost more coverage than it gained, docs/performance.md). Reported per network and sampler:
the mean and the largest ``|estimate - exact|`` over every state of every unobserved variable, and for ours
the *coverage* of the reported intervals: the share of marginals whose exact probability lies within three
standard errors of the estimate plus the certified bias (``bound_average`` where it is below 1, else 0: a vacuous
certificate adds nothing), the standard error that of the estimate at that probability (the interval ``lower`` to
``upper`` of :func:`dogs.marginals`: Wilson's score interval, :func:`dogs.sampling_call.score_interval`, whose
effective sample size is the one the reported standard error implies: the larger of ArviZ's Monte Carlo standard
error and the chains' means' standard error, or the binomial one of independent draws). The JSON keeps as
``coverage_wald`` the share within three *reported* standard errors (the standard error at the estimate), the rule
of the runs before the score interval, which misses states drawn a few times whose estimate fell below their
probability. A state never seen (or never left) in any draw has no standard error; its interval is the one :func:`dogs.marginals` reports,
``unseen_bound`` from the estimate (:func:`dogs.sampling_call.unseen_bound`: about 5.9 over the smallest effective
sample size of its variable's other states, the rule of three at the 3-standard-error level; a variable that never
changed gets none, and its states count as misses unless exact; but where every draw is independent and exact, a
one-block ``blocked`` row, every indicator's effective size is the number of draws, and every unseen state gets the
bound of that many draws). Many networks hold states of probability
below ``1e-4`` (27% of mildew's marginals under its evidence) that no run of a few seconds sees; before that bound
they counted as misses unless exactly 0, and the JSON keeps that share as ``coverage_unseen_exact``. Chains that
do not mix
(determinism can make single-site Gibbs reducible) show as large R-hat; the count of unconverged marginals is
reported beside, and so is the coverage of the converged ones alone (split R-hat at most
:data:`dogs.sampling_call.RHAT_THRESHOLD`, or independent draws: the column ``converged`` of
:func:`dogs.marginals`): the intervals a user who heeds the R-hat warning would trust, so a
shortfall there is a failure the warning did not catch.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dogs.benchmarks.gibbs import machine_info, run_record, write_result_and_table

__all__ = ["BUNDLED_NETWORKS", "choose_evidence", "covered", "covered_by_interval", "main", "markdown_table",
           "network_seed", "observe", "score_network"]

#: The discrete Bayesian networks pgmpy bundles, smallest first (variables).
BUNDLED_NETWORKS = ("cancer", "earthquake", "survey", "asia", "sachs", "child", "insurance", "water", "mildew",
                    "alarm", "barley", "hailfinder", "hepar2", "win95pts", "pathfinder", "munin1", "andes",
                    "diabetes", "pigs", "link", "munin2", "munin4", "munin3", "munin")
#: Samplers of the scoreboard, in table order.
SAMPLERS = ("DoGS", "DoGS-alg2", "systematic", "blocked", "pgmpy")
#: Our samplers (scored with intervals), in table order.
OURS = ("DoGS", "DoGS-alg2", "systematic", "blocked")


def load_network(name: str):
    """``(factor graph, pgmpy network)`` of a bundled network."""
    from pgmpy.utils import get_example_model

    from dogs.models import from_pgmpy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        network = get_example_model(name)
    return from_pgmpy(network).model, network


def network_seed(name: str, root: int) -> np.random.SeedSequence:
    """The seed of network ``name`` under the scoreboard's root seed ``root``: one child of ``root`` per bundled
    network, so that a network's evidence and draws do not depend on which other networks run."""
    return np.random.SeedSequence(root).spawn(len(BUNDLED_NETWORKS))[BUNDLED_NETWORKS.index(name)]


def choose_evidence(model, n_evidence: int, rng: np.random.Generator) -> dict[int, int]:
    """``n_evidence`` variables observed at their values in one forward sample of ``model`` (positive probability)."""
    from dogs.samplers.factor_gibbs import positive_starts

    state = positive_starts(model, 1, rng)[0]
    chosen = np.sort(rng.choice(model.n_vars, size=min(n_evidence, model.n_vars - 1), replace=False))
    return {int(i): int(state[i]) for i in chosen}


def observe(model, n_evidence: int, seed: np.random.SeedSequence):
    """``(evidence, conditioned model, run seed)`` of a network under its seed ``seed`` (:func:`network_seed`): the
    first child of ``seed`` chooses the evidence (:func:`choose_evidence`), the second is left for the runs."""
    from dogs.models.evidence import condition

    evidence_seed, run_seed = seed.spawn(2)
    evidence = choose_evidence(model, n_evidence, np.random.default_rng(evidence_seed))
    return evidence, condition(model, evidence), run_seed


#: Draws per chain at most: a run that fits more passes into the budget takes several passes per draw (thinning),
#: so that the draws and ArviZ's diagnostics of them stay small.
MAX_DRAWS = 4000


def _warm_up(run) -> None:
    """Compile and load everything ``run(draws, passes)`` calls, on one thread and on numba's threads, so that no
    timing below includes a first call: a run splits its chains between threads only when it is large
    (:func:`dogs.samplers.draws.use_threads`), and the pilot runs may be smaller than the final one."""
    from dogs.samplers import draws as draws_module

    threshold = draws_module.THREADS_FROM_UPDATES
    draws_module.THREADS_FROM_UPDATES = 0
    try:
        run(4, 1)
    finally:
        draws_module.THREADS_FROM_UPDATES = threshold
    run(4, 1)


def _budgeted(budget: float, run, pilot_draws: int = 32, updates_per_pass: int = 0,
              thinning: bool = True) -> tuple[int, int]:
    """``(draws, passes per draw)`` that fill ``budget`` seconds of ``run(draws, passes)``, at most :data:`MAX_DRAWS`
    draws: the fixed cost is the shortest of three 4-draw runs, the time per pass from pilot runs of ``pilot_draws``
    draws whose passes per draw grow fourfold until the passes take a tenth of the budget (so that noise in the
    fixed cost cannot pass for the passes' time) and a pilot has at least
    :data:`dogs.samplers.draws.THREADS_FROM_UPDATES` site updates (``updates_per_pass`` per pass, 0: not counted; so
    that the pilot runs on threads when the final run does) or has taken a quarter of the budget (steps so costly,
    large blocks, that few passes fit). Without ``thinning`` (a pass of ``run`` whose draws leave nothing for the
    next pass's to build on, one block holding the model: ``passes`` would cost nothing and change nothing) the
    pilot's draws grow instead, up to :data:`MAX_DRAWS`, and every pass is a draw (at most :data:`MAX_DRAWS`: such
    a run may end before its budget)."""
    from dogs.samplers.draws import THREADS_FROM_UPDATES

    _warm_up(run)
    fixed = np.inf
    for _ in range(3):
        start = time.perf_counter()
        run(4, 1)
        fixed = min(fixed, time.perf_counter() - start)
    passes = 1
    while True:
        start = time.perf_counter()
        run(pilot_draws, passes)
        spent = time.perf_counter() - start - fixed
        pilot_updates = pilot_draws * passes * updates_per_pass
        threaded_like_the_run = not updates_per_pass or pilot_updates >= THREADS_FROM_UPDATES
        if (spent >= 0.1 * budget and (threaded_like_the_run or spent >= 0.25 * budget)) or passes >= 1 << 20 \
                or pilot_draws >= MAX_DRAWS:
            break
        if thinning:
            passes *= 4
        else:
            pilot_draws *= 4
    per_pass = max(spent, 1e-6) / (pilot_draws * passes)
    total = max(4, int((budget - fixed) / per_pass))
    thin = max(1, -(-total // MAX_DRAWS)) if thinning else 1
    return max(4, min(total // thin, MAX_DRAWS)), thin


def _ours(model, scan, reduced_scan, conditioned, bound, chains: int, seconds: float, seed: int, setup: float,
          blocks="auto") -> dict:
    """``dogs.sample`` for what remains of ``seconds`` after ``setup``: its marginals, and the Theorem 8 certificate
    of the draws from the influence bound already computed (outside the budget, for both of our samplers alike);
    with blocks the certificate, which bounds single-site updates, is not claimed (``bound_average`` NaN)."""
    from dogs.certificates import marginal_certificate
    from dogs.sampling_call import SamplingWarning, marginals, sample
    from dogs.scans import Scan

    evidence = conditioned.evidence

    def run(draws, passes):
        if isinstance(scan, str):
            one_draw, length = scan, passes * conditioned.model.n_vars
        else:
            one_draw, length = np.tile(scan, passes), None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)
            return sample(model, one_draw, length=length, chains=chains, draws=draws, seed=seed, evidence=evidence,
                          progress=False, blocks=blocks)

    steps = int(run(4, 1).posterior.attrs["scan_length"])  # a pass's updates, a block's draw counted once
    # two passes drawn as one: no more draws than one pass where each pass's draws overwrite all the last one's
    thinning = int(run(4, 2).posterior.attrs["scan_length"]) > steps
    draws, thin = _budgeted(max(seconds - setup, 0.1), run, updates_per_pass=steps * chains, thinning=thinning)
    start = time.perf_counter()
    data = run(draws, thin)
    elapsed = setup + time.perf_counter() - start
    table = marginals(data)
    certificate = marginal_certificate(Scan(np.tile(reduced_scan.indices, thin), reduced_scan.n_vars), bound,
                                       passes=draws, warmup=int(data.posterior.attrs["warmup"]))
    reduced_of = {int(i): r for r, i in enumerate(conditioned.free)}
    table["bound_average"] = [certificate.average_bound(reduced_of[int(i)]) for i in table["variable"]]
    table["bound_average"] = table["bound_average"].astype(float)
    used = json.loads(data.posterior.attrs["blocks"])
    if used:
        table["bound_average"] = np.nan
    return {"draws": draws, "thin": thin, "seconds": elapsed, "table": table, "blocks": used}


def _pgmpy_run(conditioned, seconds: float, seed: int, start_labels, results) -> None:
    """pgmpy's GibbsSampling on the conditioned network for ``seconds`` (setup included), from ``start_labels`` (a
    state of positive probability of the conditioned network: pgmpy's own random start would have probability 0 on
    most networks with zeros, and its conditionals there are 0/0); marginals by counting its states, put on
    ``results`` (a queue: this runs in a child process, see :func:`_pgmpy`)."""
    import contextlib
    import io

    from pgmpy.sampling import GibbsSampling

    from dogs.models import to_pgmpy

    start = time.perf_counter()
    try:
        network = to_pgmpy(conditioned.model)
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            sampler = GibbsSampling(network)
            setup = time.perf_counter() - start
            if setup > seconds:
                results.put({"error": f"setup took {setup:.1f} s, over the budget"})
                return

            start_state = [(name, int(label)) for name, label in zip(network.nodes(), start_labels)]

            def run(size, passes):  # pgmpy keeps every sweep: ours keep every passes-th
                return sampler.sample(start_state=start_state, size=size * passes, seed=seed).iloc[::passes]

            size, thin = _budgeted(seconds - setup, run)
            samples = run(size, thin)
    except Exception as exc:  # pgmpy's sampler on a network it cannot handle: reported, not raised
        results.put({"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"})
        return
    estimates = []
    for r, name in enumerate(network.nodes()):
        values = np.asarray(samples[name])
        k_states = int(conditioned.model.cardinalities[r])
        estimates.append(np.bincount(values.astype(np.int64), minlength=k_states)[:k_states] / values.size)
    results.put({"draws": size, "seconds": time.perf_counter() - start, "estimates": estimates})


def _pgmpy(conditioned, seconds: float, seed: int, start_labels, run=_pgmpy_run) -> dict:
    """:func:`_pgmpy_run` in a child process, stopped after ``2 seconds + 10`` s: pgmpy's GibbsSampling tabulates
    each variable's kernel over its whole Markov blanket when it starts, which cannot be interrupted from inside and
    takes minutes and gigabytes on networks such as child (a sampler that cannot start within the budget is reported
    as such, not waited for)."""
    import multiprocessing
    import queue

    limit = 2 * seconds + 10
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=run, args=(conditioned, seconds, seed, start_labels, results), daemon=True)
    child.start()
    try:
        return results.get(timeout=limit)
    except queue.Empty:
        return {"error": f"GibbsSampling did not finish within {limit:g} s (setup over the budget; stopped)"}
    finally:
        child.terminate()
        child.join()


def _errors(estimates: list[np.ndarray], exact: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([np.abs(np.asarray(e) - np.asarray(x)) for e, x in zip(estimates, exact)])


def covered_by_interval(exact, lower, upper, errors, bias) -> np.ndarray:
    """Which marginals the reported intervals cover (module docstring): the exact probability within ``lower`` to
    ``upper`` (:func:`dogs.marginals`) widened by the certified bias on each side, or, where the interval is NaN
    (a state never drawn of a variable that never changed, with no bound), ``|error|`` at most the bias."""
    exact, lower, upper = (np.asarray(a, dtype=np.float64) for a in (exact, lower, upper))
    errors, bias = np.asarray(errors), np.asarray(bias)
    inside = (exact >= lower - bias - 1e-12) & (exact <= upper + bias + 1e-12)
    return np.where(np.isfinite(lower) & np.isfinite(upper), inside, errors <= bias + 1e-12)


def covered(errors, std_errors, unseen_bounds, bias) -> tuple[np.ndarray, np.ndarray]:
    """Which marginals the plain intervals cover (the rule before :func:`covered_by_interval`, kept in the JSON as
    ``coverage_wald``): ``|error|`` at most three standard errors plus the certified bias, or, for a state whose
    indicator never changed (NaN standard error), at most its ``unseen_bound`` plus the bias (a NaN bound: exactly
    right only); and the same under the rule before ``unseen_bound`` (such a state covered only when exactly
    right)."""
    from dogs.sampling_call import INTERVAL_STANDARD_ERRORS

    errors, std_errors, bias = np.asarray(errors), np.asarray(std_errors), np.asarray(bias)
    within = errors <= INTERVAL_STANDARD_ERRORS * std_errors + bias
    unseen = ~np.isfinite(std_errors)
    exact_only = within | (unseen & (errors <= bias + 1e-12))
    reach = np.nan_to_num(np.asarray(unseen_bounds, dtype=np.float64), nan=0.0)
    return exact_only | (unseen & (errors <= reach + bias + 1e-12)), exact_only


def score_network(name: str, *, n_evidence: int, chains: int, seconds: float, max_table_entries: int,
                  seed: np.random.SeedSequence, blocks="auto", samplers=SAMPLERS) -> dict:
    """One network's row: its size, evidence, exact feasibility and the errors of each of ``samplers`` (module
    docstring)."""
    from dogs.bounds import influence_bound
    from dogs.exact import ModelTooLargeError, junction_tree_marginals
    from dogs.sampling_call import conditioned_positive_starts, scan_in_original
    from dogs.samplers.factor_gibbs import NoPositiveStartError
    from dogs.scans import UnvisitedVariablesWarning, dogs_scan, systematic_scan

    model, _ = load_network(name)
    row = {"network": name, "variables": model.n_vars, "factors": model.n_factors,
           "table_entries": int(model.log_values.size), "zero_entries": int(np.sum(np.isinf(model.log_values)))}
    evidence, conditioned, run_seed = observe(model, n_evidence, seed)
    row["evidence"] = {str(k): v for k, v in evidence.items()}
    try:
        exact = junction_tree_marginals(conditioned.model, max_table_entries=max_table_entries)
    except ModelTooLargeError as exc:
        row["skipped"] = f"exact inference out of reach: {' '.join(str(exc).split())[:200]}"
        return row
    truth = [np.asarray(m) for m in exact.node_marginals]
    seed_int = int(run_seed.generate_state(1)[0])
    reduced = conditioned.model
    start = time.perf_counter()
    bound = influence_bound(reduced)  # part of each DoGS run's setup, and the certificates' (outside the budget)
    bound_seconds = time.perf_counter() - start
    runs, base = [], systematic_scan(reduced.n_vars, 2 * reduced.n_vars)
    for sampler, keep_targets in (("DoGS", True), ("DoGS-alg2", False)):
        if sampler not in samplers:
            continue
        start = time.perf_counter()
        with warnings.catch_warnings():  # the unvisited variables are counted in the row instead
            warnings.simplefilter("ignore", UnvisitedVariablesWarning)
            result = dogs_scan(base, np.ones(reduced.n_vars), bound, keep_targets=keep_targets)
        setup = bound_seconds + time.perf_counter() - start
        row[sampler + "_scan"] = {
            "length": int(result.scan.length), "variation": float(result.variation), "setup_s": setup,
            "unvisited": int(np.sum(np.bincount(result.scan.indices, minlength=reduced.n_vars) == 0)),
            "restored": int(result.restored.size), "kept_input": bool(result.kept_input)}
        runs.append((sampler, scan_in_original(result.scan, conditioned), result.scan, setup, blocks))
    sweep = systematic_scan(reduced.n_vars, reduced.n_vars)
    runs += [("systematic", "systematic", sweep, 0.0, blocks), ("blocked", "systematic", sweep, 0.0, "elimination")]
    for sampler, scan, reduced_scan, setup_s, sampler_blocks in runs:
        if sampler not in samplers:
            continue
        try:
            out = _ours(model, scan, reduced_scan, conditioned, bound, chains, seconds, seed_int, setup_s,
                        sampler_blocks)
        except NoPositiveStartError as exc:  # reported in the row: the sequential search has a work cap
            row[sampler] = {"error": f"no start: {' '.join(str(exc).split())[:120]}"}
            continue
        table = out["table"]
        estimates = [table[table["variable"] == int(i)]["probability"].to_numpy() for i in conditioned.free]
        errors = _errors(estimates, truth)
        bias = table["bound_average"].fillna(0.0).to_numpy()
        order = [(int(i), k) for i, x in zip(conditioned.free, truth) for k in range(len(x))]
        lookup = {(int(v), int(s)): r for r, (v, s) in enumerate(zip(table["variable"], table["state"]))}
        rows = [lookup[key] for key in order]
        std_errors = table["std_error"].to_numpy()[rows]
        within_wald, within_unseen_exact = covered(errors, std_errors, table["unseen_bound"].to_numpy()[rows],
                                                   bias[rows])
        within = covered_by_interval(np.concatenate(truth), table["lower"].to_numpy()[rows],
                                     table["upper"].to_numpy()[rows], errors, bias[rows])
        converged = table["converged"].to_numpy()[rows]
        row[sampler] = {"draws": out["draws"], "thin": out["thin"], "seconds": out["seconds"],
                        "mean_error": float(errors.mean()),
                        "max_error": float(errors.max()), "coverage": float(within.mean()),
                        "coverage_wald": float(within_wald.mean()),
                        "coverage_unseen_exact": float(within_unseen_exact.mean()),
                        "unseen": int(np.sum(~np.isfinite(std_errors))),
                        "unconverged": int((~table["converged"]).sum()), "marginals": int(errors.size),
                        "converged_coverage": float(within[converged].mean()) if converged.any() else None,
                        "certified": int(np.isfinite(table["bound_average"]).sum()),
                        "blocks": len(out["blocks"]), "blocked_variables": sum(map(len, out["blocks"]))}
    if "pgmpy" not in samplers:
        return row
    try:
        pgmpy_start = conditioned_positive_starts(model, conditioned, 1, np.random.default_rng(run_seed))[0]
    except NoPositiveStartError:
        row["pgmpy"] = {"error": "no start of positive probability found (the search of ours)"}
        return row
    out = _pgmpy(conditioned, seconds, seed_int % 2**32, pgmpy_start)
    if "error" in out:
        row["pgmpy"] = {"error": out["error"]}
    else:
        errors = _errors(out["estimates"], truth)
        row["pgmpy"] = {"draws": out["draws"], "seconds": out["seconds"], "mean_error": float(errors.mean()),
                        "max_error": float(errors.max())}
    return row


def _run_samplers(row: dict) -> list[str]:
    """The samplers of :data:`SAMPLERS` that ``row`` holds (``--samplers`` may leave some out)."""
    return [s for s in SAMPLERS if s in row]


def markdown_table(rows: list[dict], header: str) -> str:
    """Scored networks, then the ones out of reach."""
    lines = [header, "", "| network | variables | evidence | sampler | draws | mean error | max error | coverage | "
             "coverage where converged | unconverged | certified | blocks | scan's bound |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        if "skipped" in row:
            continue
        for sampler in _run_samplers(row):
            cell = row[sampler]
            if "error" in cell:
                lines.append(f"| {row['network']} | {row['variables']} | {len(row['evidence'])} | {sampler} | "
                             f"{cell['error']} | | | | | | | | |")
                continue
            coverage = f"{cell['coverage']:.1%}" if "coverage" in cell else ""
            if "coverage" in cell:
                share = cell.get("converged_coverage")
                coverage += " | " + ("none converged" if share is None else f"{share:.1%}")
            else:
                coverage += " | "
            extra = (f"{cell['unconverged']}/{cell['marginals']} | {cell['certified']}/{cell['marginals']} | "
                     + (f"{cell['blocks']} ({cell['blocked_variables']} variables)" if cell.get("blocks") else "0")
                     if "coverage" in cell else " | | ")
            scan_bound = ""
            if sampler + "_scan" in row:
                scan = row[sampler + "_scan"]
                scan_bound = f"{scan['variation']:.3g}" + (" (vacuous)" if scan["variation"] >= 1 else "")
                if scan["unvisited"]:
                    scan_bound += f", {scan['unvisited']} never updated"
                if scan["restored"]:
                    scan_bound += (f", {scan['restored']} put back" if not scan["kept_input"] else
                                   f", {scan['restored']} dropped: base scan kept")
            lines.append(f"| {row['network']} | {row['variables']} | {len(row['evidence'])} | {sampler} | "
                         f"{cell['draws']:,} | {cell['mean_error']:.2e} | {cell['max_error']:.2e} | {coverage} | "
                         f"{extra} | {scan_bound} |")
    skipped = [row for row in rows if "skipped" in row]
    if skipped:
        lines += ["", "Out of reach of exact inference at this limit:", ""]
        lines += [f"- {row['network']} ({row['variables']} variables): {row['skipped']}" for row in skipped]
    return "\n".join(lines) + "\n"


def plot_scores(rows: list[dict], path: Path, title: str) -> None:
    """Mean and largest error per network and sampler (log scale), coverage above ours."""
    from matplotlib.figure import Figure

    from dogs.plotting.style import save_figure

    scored = [row for row in rows if "skipped" not in row and any("mean_error" in row[s] for s in _run_samplers(row))]
    fig = Figure(figsize=(min(14.0, max(6.0, 0.6 * len(scored) + 2)), 5.0), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / len(SAMPLERS)
    x = np.arange(len(scored))
    for s, sampler in enumerate(SAMPLERS):
        mean = [row.get(sampler, {}).get("mean_error", np.nan) for row in scored]
        worst = [row.get(sampler, {}).get("max_error", np.nan) for row in scored]
        shift = (s - (len(SAMPLERS) - 1) / 2) * width
        bars = ax.bar(x + shift, mean, width, label=f"{sampler}: mean error")
        ax.scatter(x + shift, worst, marker="_", s=120, color=bars.patches[0].get_facecolor() if bars.patches
                   else None, label=f"{sampler}: largest error")
    for i, row in enumerate(scored):
        coverages = [f"{row[s]['coverage']:.0%}" for s in OURS if "coverage" in row.get(s, {})]
        if coverages:
            ax.annotate("\n".join(coverages), (i, 1.0), xycoords=("data", "axes fraction"), ha="center",
                        va="bottom", fontsize=6, xytext=(0, 2), textcoords="offset points")
    if scored:
        ax.set_yscale("log")
    else:
        ax.text(0.5, 0.5, "no network within reach of exact inference", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_xticks(x, [row["network"] for row in scored], rotation=30, ha="right")
    ax.set_ylabel("|estimate - exact posterior marginal|")
    ax.set_title(title + "\n(numbers above: coverage of " + ", ".join(OURS) + ", top to bottom; 3 SE + certified bias)",
                 fontsize=9, pad=30)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    save_figure(fig, path)


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m dogs.benchmarks.networks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write (atomically)")
    parser.add_argument("--table", type=Path, required=True, help="markdown table to write")
    parser.add_argument("--figure", type=Path, required=True, help="PNG figure to write")
    parser.add_argument("--networks", nargs="+", default=list(BUNDLED_NETWORKS),
                        help="bundled networks (default: all 24 discrete ones)")
    parser.add_argument("--evidence", type=int, default=3, help="observed variables per network (default 3)")
    parser.add_argument("--chains", type=int, default=8, help="chains of our samplers (default 8)")
    parser.add_argument("--seconds", type=float, default=5.0, help="wall-clock budget per sampler (default 5)")
    parser.add_argument("--max-table-entries", type=int, default=2**24,
                        help="exact inference's limit on clique-table entries (default 2^24)")
    parser.add_argument("--seed", type=int, default=20170806, help="root seed")
    parser.add_argument("--samplers", nargs="+", choices=SAMPLERS, default=list(SAMPLERS),
                        help="samplers to run (default: all four)")
    parser.add_argument("--blocks", choices=("auto", "none"), default="auto",
                        help="blocks of DoGS and the systematic scan (dogs.sample's blocks=: 'auto' or none; default "
                             "auto); the blocked sampler always draws elimination blocks")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.networks) - set(BUNDLED_NETWORKS))
    if unknown:
        parser.error(f"unknown networks {unknown}; choose from {', '.join(BUNDLED_NETWORKS)}")
    if args.evidence < 0 or args.chains < 2 or not (math.isfinite(args.seconds) and args.seconds > 0) \
            or args.max_table_entries < 1 or args.seed < 0:
        parser.error("--evidence >= 0, --chains >= 2 (split R-hat), --seconds > 0, --max-table-entries >= 1, "
                     "--seed >= 0")
    return args


def _warm_up_setup() -> None:
    """Compile the influence bound's and DoGS's kernels on the smallest network, so that no network's DoGS setup
    time includes compilation."""
    from dogs.bounds import influence_bound
    from dogs.scans import dogs_scan, systematic_scan

    model, _ = load_network(BUNDLED_NETWORKS[0])
    dogs_scan(systematic_scan(model.n_vars, 2 * model.n_vars), np.ones(model.n_vars), influence_bound(model))


def main(argv=None) -> dict:
    args = _parse(argv)
    started = time.perf_counter()
    _warm_up_setup()
    rows = []
    for name in args.networks:
        row = score_network(name, n_evidence=args.evidence, chains=args.chains, seconds=args.seconds,
                            max_table_entries=args.max_table_entries, seed=network_seed(name, args.seed),
                            blocks=None if args.blocks == "none" else "auto", samplers=args.samplers)
        rows.append(row)
        summary = row.get("skipped") or ", ".join(
            f"{s} {row[s]['mean_error']:.2e}" + (f" ({row[s]['coverage']:.0%})" if "coverage" in row[s] else "")
            if "error" not in row[s] else f"{s}: {row[s]['error'][:60]}" for s in _run_samplers(row))
        print(f"{name}: {summary}", flush=True)
    header = (f"Bundled Bayesian networks with {args.evidence} observed variables each, every sampler for "
              f"{args.seconds:g} s of wall time (setup included); ours {args.chains} chains, pgmpy one; errors against "
              f"the exact posterior marginals (junction tree, at most {args.max_table_entries:,} clique-table entries)")
    result = {**run_record("dogs.benchmarks.networks", argv, args, machine_info()), "rows": rows,
              "elapsed_s": time.perf_counter() - started}
    write_result_and_table(result, args.out, args.table, markdown_table(rows, header))
    plot_scores(rows, args.figure, f"{args.seconds:g} s per sampler, {args.evidence} observed variables")
    print(f"wrote {args.out}, {args.table}, {args.figure} in {result['elapsed_s']:.1f} s", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
