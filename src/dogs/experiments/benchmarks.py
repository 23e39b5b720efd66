"""The benchmarks family: the cost of the ``benchmarks`` config section (the library's speed benchmarks).

Its steps are the scripts of :mod:`dogs.benchmarks` (``python -m dogs.benchmarks.<name>``, called by
``rules/benchmarks.smk``), which take command-line options rather than the config slice; this module declares what
the workflow needs to know about the family before anything runs: the memory one benchmark job needs and the work
of each benchmark rule, as every other family does in its own module.
"""

from __future__ import annotations

from dogs.workflow.cost import BYTES_PER_STEP, BYTES_PER_VARIABLE, Work
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "benchmarks"


def check_settings(s: dict) -> None:
    """The checks that span several keys (the schema checks each key on its own)."""
    if len(s["sampling_draws"]) != len(s["sampling_sides"]):
        raise SettingsError(f"config key benchmarks.sampling_draws: one number of draws per side of "
                            f"benchmarks.sampling_sides ({len(s['sampling_sides'])}), got {len(s['sampling_draws'])}")


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    return {
        "benchmarks.gibbs_side": s["gibbs_side"] ** 2 * BYTES_PER_VARIABLE,
        "benchmarks.dogs_side": s["dogs_side"] ** 2 * (BYTES_PER_VARIABLE + 2 * BYTES_PER_STEP),
        "benchmarks.pgmpy_side": 8.0 * 2 ** min(s["pgmpy_side"] * 2, 1000) * 4,  # a junction-tree clique table
        "benchmarks.binary_bm_size": s["binary_bm_size"] ** 2 * 8 * 16 + s["binary_hmc_samples"] * s["binary_bm_size"] * 8,
        # the junction tree of the largest grid: cliques of about side + 1 binary variables, side^2 of them, float64,
        # twice over for messages and beliefs (measured: 18x18 peaks at 2.3 GB, this gives 2.7 GB)
        "benchmarks.uai_mar_sides": 16.0 * 2.0 ** (max(s["uai_mar_sides"]) + 1) * max(s["uai_mar_sides"]) ** 2,
        # float32 spins of every chain, site-major, with the couplings and THRML's copy of the state
        "benchmarks.chains_side": s["chains_side"] ** 2 * (16.0 * max(s["chains_counts"]) + BYTES_PER_VARIABLE),
        # the chains' states (start, spins, lanes) and the draws of at most 10 000 recorded variables
        "benchmarks.sampling_sides": max(side**2 * (12.0 * max(s["sampling_chains"]) + BYTES_PER_VARIABLE)
                                         + float(max(s["sampling_chains"])) * draws * min(side**2, 10_000)
                                         for side, draws in zip(s["sampling_sides"], s["sampling_draws"])),
        # the junction tree's clique tables (float64), several alive at once in pgmpy's calibration
        "benchmarks.networks_table_entries": 8.0 * 4 * s["networks_table_entries"],
    }


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
    p_pgmpy = s["pgmpy_side"] ** 2
    return [
        # the Gibbs sweeps of every repeat, and pgmpy's setup, which tables every conditional: p 2^p
        Work("benchmark_gibbs", {"benchmarks.repeats": s["repeats"],
                                 "benchmarks.gibbs_side": s["gibbs_side"] ** 2 + p_pgmpy * 2.0 ** p_pgmpy}),
        Work("benchmark_dogs", {"benchmarks.dogs_side": s["dogs_side"] ** 2}),
        # every sampler at the budget of binary_hmc_samples exact-HMC trajectories, on the 9x9 torus and the d-unit
        # Boltzmann machine (d^2 couplings per trajectory step)
        Work("benchmark_binary_samplers", {"benchmarks.repeats": s["repeats"],
                                           "benchmarks.binary_hmc_samples": s["binary_hmc_samples"],
                                           "benchmarks.binary_bm_size": 81 + s["binary_bm_size"] ** 2}),
        # three samplers for uai_mar_seconds of wall time on every grid, plus the exact marginals of each grid
        Work("benchmarks_uai_mar", {"benchmarks.uai_mar_sides": sum(2.0 ** side * side ** 2 for side in s["uai_mar_sides"])},
             seconds=3 * len(s["uai_mar_sides"]) * s["uai_mar_seconds"]),
        # every site of every chain, every sweep, every repeat: the vector kernel at every count, the one-chain
        # kernel and THRML at the counts up to 64
        Work("benchmarks_chains", {"benchmarks.repeats": s["repeats"], "benchmarks.chains_sweeps": s["chains_sweeps"],
                                   "benchmarks.chains_side": s["chains_side"] ** 2,
                                   "benchmarks.chains_counts": sum(s["chains_counts"])
                                   + 2 * sum(c for c in s["chains_counts"] if c <= 64)}),
        # every site of every chain, every draw, twice (end to end and raw) per repeat and warm-up
        Work("benchmarks_sampling", {"benchmarks.repeats": 2 * (s["repeats"] + 1),
                                     "benchmarks.sampling_sides": sum(side**2 * draws for side, draws in
                                                                      zip(s["sampling_sides"], s["sampling_draws"])),
                                     "benchmarks.sampling_chains": sum(s["sampling_chains"])}),
        # per network: our two samplers for networks_seconds each, pgmpy's for at most twice that plus 10 s, and
        # loading it with its exact marginals (by the clique-table entries allowed)
        Work("benchmarks_networks",
             {"benchmarks.networks_table_entries": len(s["networks"]) * s["networks_table_entries"]},
             seconds=len(s["networks"]) * (4 * s["networks_seconds"] + 10)),
        # the same, one sampler, once per seed of networks_evidence_seeds
        Work("benchmarks_networks_evidence",
             {"benchmarks.networks_table_entries": len(s["networks"]) * s["networks_table_entries"],
              "benchmarks.networks_evidence_seeds": len(s["networks_evidence_seeds"])},
             jobs=len(s["networks_evidence_seeds"]),
             seconds=len(s["networks_evidence_seeds"]) * len(s["networks"]) * (s["networks_seconds"] + 10)),
        # every run of every case: its sampling (about the scoreboard's budget), ArviZ's diagnostics of every marginal
        Work("benchmarks_standard_errors",
             {"benchmarks.standard_errors_runs": s["standard_errors_runs"] * len(s["standard_errors_cases"])}),
    ]


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)
