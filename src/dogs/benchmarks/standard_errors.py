r"""Reported standard errors against the spread of independent runs.

A standard error is right when it matches the standard deviation of its estimate over independent runs of the
same sampler with the same settings. For each case (a bundled network, the root seed whose evidence the networks
scoreboard would observe, and a number of draws per chain) this script repeats one sampler's run ``--runs`` times
with other seeds and compares, for every marginal whose estimate varies between runs, that spread :math:`s` with
the root mean square over the runs of each rule's standard error :math:`\sigma`:

``mcse``  ArviZ's Monte Carlo standard error of the mean (the draws' standard deviation over the square root of
    their effective sample size, Vehtari et al. 2021);
``chains``  :func:`dogs.sampling_call.chains_standard_error`, the chains' means' standard deviation over the
    square root of their number;
``reported``  what :func:`dogs.marginals` reports: the larger of the two, or, where every draw is an independent
    exact draw (one elimination block), the binomial :math:`\sqrt{\hat p (1 - \hat p) / n}`.

A ratio :math:`s / \sigma` above 1 is a standard error too small. Per rule the JSON and the table give the ratio's
quantiles over the marginals, and the share of drawn marginals (states drawn at least once in the run) whose exact
probability lies within that rule's interval (:func:`dogs.sampling_call.score_interval` at 3 standard errors,
nominal 99.73%) in each run: mean and lowest over the runs. States never drawn get the bound of
:func:`dogs.marginals` whatever the rule, so they are left out.

``python -m dogs.benchmarks.standard_errors --out OUT.json --table OUT.md --cases mildew:2:540 diabetes:5:93``

The cases of ``config/families/benchmarks.yaml`` (``benchmarks.standard_errors_cases``) are the blocked sampler's
runs of the networks scoreboard under other evidence whose coverage fell short (mildew at seed 2, diabetes at seed
5), with the draws those runs got in 5 s, and two that did not (water at seed 3, a chain that mixed well; insurance
at seed 5, independent draws).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dogs.benchmarks.gibbs import machine_info, run_record, write_result_and_table

__all__ = ["RULES", "main", "markdown_table", "measure_case", "parse_case"]

#: The standard-error rules compared, in table order (module docstring).
RULES = ("mcse", "chains", "reported")
#: Quantiles of the ratio of the runs' spread to a rule's standard error, over the marginals.
RATIO_QUANTILES = (0.25, 0.5, 0.75, 0.95)


def parse_case(text: str) -> tuple[str, int, int]:
    """``(network, seed, draws)`` from ``NETWORK:SEED:DRAWS``: a bundled network under the evidence of the
    scoreboard's root ``seed``, with ``draws`` draws per chain."""
    from dogs.benchmarks.networks import BUNDLED_NETWORKS

    parts = text.split(":")
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit() or int(parts[2]) < 4:
        raise argparse.ArgumentTypeError(f"a case is NETWORK:SEED:DRAWS with DRAWS >= 4, got {text!r}")
    if parts[0] not in BUNDLED_NETWORKS:
        raise argparse.ArgumentTypeError(f"unknown network {parts[0]!r}; choose from {', '.join(BUNDLED_NETWORKS)}")
    return parts[0], int(parts[1]), int(parts[2])


def _conditioned(network: str, seed: int, n_evidence: int, max_table_entries: int):
    """The network, the evidence the scoreboard observes under root ``seed``
    (:func:`dogs.benchmarks.networks.observe`), and the exact posterior marginals, concatenated."""
    from dogs.benchmarks.networks import load_network, network_seed, observe
    from dogs.exact import junction_tree_marginals

    model, _ = load_network(network)
    evidence, conditioned, _ = observe(model, n_evidence, network_seed(network, seed))
    exact = junction_tree_marginals(conditioned.model, max_table_entries=max_table_entries).node_marginals
    return model, evidence, conditioned, np.concatenate([np.asarray(m) for m in exact])


def measure_case(case: tuple[str, int, int], *, runs: int, chains: int, n_evidence: int, blocks,
                 max_table_entries: int, run_seed: int, progress=None) -> dict:
    """One case's comparison (module docstring); ``run_seed + r`` seeds run ``r``."""
    from dogs.sampling_call import chains_standard_error, marginals, posterior_draws, sample, score_interval

    network, seed, draws = case
    model, evidence, conditioned, truth = _conditioned(network, seed, n_evidence, max_table_entries)
    order = [(int(v), k) for v, n_states in zip(conditioned.free, conditioned.model.cardinalities)
             for k in range(int(n_states))]
    estimates, errors, coverage = [], {rule: [] for rule in RULES}, {rule: [] for rule in RULES}
    started = time.perf_counter()
    for r in range(runs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = sample(model, "systematic", chains=chains, draws=draws, seed=run_seed + r, evidence=evidence,
                          progress=False, blocks=blocks)
        labels, variables, attrs = posterior_draws(data)
        table = marginals(data)
        lookup = {(int(v), int(k)): j for j, (v, k) in enumerate(zip(table["variable"], table["state"]))}
        rows = np.array([lookup[key] for key in order])
        column = {int(v): m for m, v in enumerate(variables.tolist())}
        indicators = np.stack([labels[:, :, column[v]] == k for v, k in order], axis=2).astype(np.int8)
        drawn = np.isfinite(table["std_error"].to_numpy()[rows])
        estimate = table["probability"].to_numpy()[rows]
        estimates.append(estimate)
        by_rule = {"mcse": table["mcse"].to_numpy()[rows], "chains": chains_standard_error(indicators),
                   "reported": table["std_error"].to_numpy()[rows]}
        for rule, std_error in by_rule.items():
            std_error = np.where(drawn, std_error, np.nan)
            errors[rule].append(std_error)
            lower, upper = score_interval(estimate, std_error)
            inside = (truth >= lower - 1e-12) & (truth <= upper + 1e-12)
            coverage[rule].append(float(inside[drawn].mean()))
        if progress is not None:
            progress(f"{network} (seed {seed}): run {r + 1} of {runs}")
    estimates = np.asarray(estimates)
    spread = estimates.std(axis=0, ddof=1)
    varies = spread > 0
    bias_z = np.abs(estimates.mean(axis=0) - truth)[varies] / (spread[varies] / np.sqrt(runs))
    out = {"network": network, "evidence_seed": seed, "draws": draws, "chains": chains, "runs": runs,
           "marginals": int(truth.size), "marginals_varying": int(varies.sum()), "blocks": attrs["blocks"],
           "independent_draws": bool(int(attrs.get("independent_draws", 0))),
           "bias_z_quantiles": dict(zip(("0.5", "0.9", "0.99", "1.0"),
                                        np.quantile(bias_z, (0.5, 0.9, 0.99, 1.0)).tolist())) if bias_z.size else None,
           "seconds": time.perf_counter() - started, "rules": {}}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a marginal never drawn in any run: NaN, left out
        for rule in RULES:
            rms = np.sqrt(np.nanmean(np.square(errors[rule]), axis=0))
            compared = varies & np.isfinite(rms) & (rms > 0)
            ratio = spread[compared] / rms[compared]
            out["rules"][rule] = {
                "ratio_quantiles": dict(zip(map(str, RATIO_QUANTILES), np.quantile(ratio, RATIO_QUANTILES).tolist()))
                if ratio.size else None,
                "marginals_compared": int(compared.sum()), "coverage_per_run": coverage[rule],
                "coverage_mean": float(np.mean(coverage[rule])), "coverage_lowest": float(np.min(coverage[rule]))}
    return out


def markdown_table(cases: list[dict], header: str) -> str:
    """One row per case and rule: the ratio of the runs' spread to the standard error (quartiles and 95th
    percentile over the marginals), and the coverage of that rule's intervals (mean and lowest over the runs)."""
    lines = [header, "", "| network | evidence seed | draws per chain | blocks | rule | spread / standard error: "
             "25%, 50%, 75%, 95% | coverage, mean of runs | coverage, lowest run |",
             "|---|---:|---:|---|---|---|---:|---:|"]
    for case in cases:
        n_blocks = len(json.loads(case["blocks"]))
        blocks = ("independent draws" if case["independent_draws"]
                  else f"{n_blocks} elimination blocks" if n_blocks else "single-site")
        for rule in RULES:
            cell = case["rules"][rule]
            ratios = ", ".join(f"{x:.2f}" for x in cell["ratio_quantiles"].values()) if cell["ratio_quantiles"] else ""
            lines.append(f"| {case['network']} | {case['evidence_seed']} | {case['draws']:,} | {blocks} | {rule} | "
                         f"{ratios} | {cell['coverage_mean']:.2%} | {cell['coverage_lowest']:.2%} |")
    return "\n".join(lines) + "\n"


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m dogs.benchmarks.standard_errors",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write (atomically)")
    parser.add_argument("--table", type=Path, required=True, help="markdown table to write")
    parser.add_argument("--cases", nargs="+", type=parse_case, required=True,
                        help="NETWORK:SEED:DRAWS, a bundled network under the evidence of the scoreboard's root SEED "
                             "with DRAWS draws per chain")
    parser.add_argument("--runs", type=int, default=12, help="independent runs per case (default 12)")
    parser.add_argument("--chains", type=int, default=8, help="chains per run (default 8, the scoreboard's)")
    parser.add_argument("--evidence", type=int, default=3, help="observed variables per network (default 3)")
    parser.add_argument("--blocks", choices=("elimination", "auto", "none"), default="elimination",
                        help="dogs.sample's blocks= (default elimination: the scoreboard's blocked sampler)")
    parser.add_argument("--max-table-entries", type=int, default=2**24,
                        help="exact inference's limit on clique-table entries (default 2^24)")
    parser.add_argument("--seed", type=int, default=1000, help="seed of the first run; run r takes SEED + r")
    args = parser.parse_args(argv)
    if args.runs < 3 or args.chains < 2 or args.evidence < 0 or args.max_table_entries < 1 or args.seed < 0:
        parser.error("--runs >= 3 (a spread), --chains >= 2, --evidence >= 0, --max-table-entries >= 1, --seed >= 0")
    return args


def main(argv=None) -> dict:
    args = _parse(argv)
    started = time.perf_counter()
    blocks = None if args.blocks == "none" else args.blocks
    cases = [measure_case(case, runs=args.runs, chains=args.chains, n_evidence=args.evidence, blocks=blocks,
                          max_table_entries=args.max_table_entries, run_seed=args.seed,
                          progress=lambda text: print(text, file=sys.stderr, flush=True)) for case in args.cases]
    header = (f"Standard errors against the spread of {args.runs} independent runs per case ({args.chains} chains, "
              f"blocks={args.blocks}, {args.evidence} observed variables as the networks scoreboard chooses them "
              "under the evidence seed): a ratio above 1 is a standard error too small; coverage of the 3-standard-"
              "error score intervals over the states drawn (nominal 99.73%)")
    result = {**run_record("dogs.benchmarks.standard_errors", argv, args, machine_info()), "cases": cases,
              "elapsed_s": time.perf_counter() - started}
    write_result_and_table(result, args.out, args.table, markdown_table(cases, header))
    print(f"wrote {args.out}, {args.table} in {result['elapsed_s']:.1f} s", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
