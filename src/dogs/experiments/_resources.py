"""The resource guard: the memory one job and the time all jobs of a config ask for, estimated before anything runs.

**Memory.** Each experiment family has an estimator that turns its settings into the largest allocations
one job of the family makes, each named by the config key that drives it (the grid side, the scan
lengths, the number of chains, ...). The estimates are deliberately generous upper bounds from the
array sizes the code allocates (bytes per variable, per scan step, per chain and recorded point), not
measurements: their purpose is to refuse a config that cannot fit long before it is tried, with a
message that names the key, the estimate and the limit. The limit is ``resources.max_memory_gb``
from the config when given, else :data:`DEFAULT_FRACTION` of the machine's physical memory.

**Time.** Each family's ``_time_<family>`` function turns its settings into the :class:`Work` of each
compute rule: a product of factors, each named by its config key; :data:`JOB_RATES` (CPU seconds per
unit, measured) turns it into seconds, plus :data:`JOB_OVERHEAD_SECONDS` per job and
:data:`JIT_SECONDS_PER_RULE` per rule. :func:`check_config_time` refuses a config whose estimated CPU
hours, all jobs summed, exceed ``resources.max_hours`` (default :data:`DEFAULT_MAX_HOURS`), naming the
key that grew most against the shipped config. :func:`calibrate` measures the rates again.

**Keys.** Every numeric config key is read by an estimate or listed in :data:`NOT_SCALING` with the
reason (:func:`keys_read` records what the estimators read; ``tests/test_guard.py`` checks the schema
against it, and ``python -m dogs.experiments._resources table`` prints the README's table).

The Snakefile checks every family before planning any job (``src/dogs/experiments/_guard.py``), and the
experiment shell checks its slice's memory again before a step runs (direct command-line use).
"""

from __future__ import annotations

import math
import os

__all__ = ["DEFAULT_FRACTION", "DEFAULT_MAX_HOURS", "JOB_RATES", "NOT_SCALING", "ResourceError", "Work", "calibrate",
           "check_config_memory", "check_config_time", "check_memory", "estimate_hours", "estimate_memory",
           "estimate_work", "keys_read", "memory_limit_bytes", "numeric_schema_keys", "scaling_table", "schema_pattern",
           "time_table"]

#: Share of the machine's physical memory a single job may ask for when the config sets no limit.
DEFAULT_FRACTION = 0.8
#: Bytes per variable of a model with its influence bound, sampler state and work space (generous).
_PER_VARIABLE = 256
#: Bytes per step of a stored scan (int64) with its DoGS work arrays (forward values, output).
_PER_STEP = 32


class ResourceError(ValueError):
    """A config slice whose estimated memory exceeds the limit; the message names the key."""


def memory_limit_bytes(max_memory_gb: float | None = None) -> int:
    """``max_memory_gb`` (the config's ``resources.max_memory_gb``) in bytes, else :data:`DEFAULT_FRACTION` of
    physical memory."""
    if max_memory_gb is not None:
        return int(float(max_memory_gb) * 1024**3)
    return int(DEFAULT_FRACTION * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def _grid_sum(grid: dict) -> tuple[int, int]:
    """``(number of lengths, sum of lengths)`` of a ``{start, stop, step | per_decade}`` grid, without building it
    (a log-spaced grid counts every length as ``stop``: generous, for the memory estimate)."""
    start, stop = int(grid["start"]), int(grid["stop"])
    step, per_decade = grid.get("step"), grid.get("per_decade")
    if stop < start:
        return 0, 0
    if step:
        count = (stop - start) // int(step) + 1
        return count, count * (start + start + (count - 1) * int(step)) // 2
    decades = math.log10(max(stop, 1) / max(start, 1))
    count = int(decades * int(per_decade or 1)) + 2
    return count, count * stop


def _grid_total(grid: dict) -> int:
    """Sum of the lengths of a grid, closer for a log-spaced one (the geometric series up to ``stop``)."""
    count, total = _grid_sum(grid)
    if grid.get("step") or count == 0:
        return total
    ratio = 10 ** (1 / int(grid["per_decade"]))
    return min(total, int(int(grid["stop"]) * ratio / (ratio - 1)) + int(grid["start"]))


def _ising10(s: dict) -> dict[str, float]:
    p = s["side"] ** 2
    count, total = _grid_sum(s["lengths"])
    m = s["measure"]
    m_count, _ = _grid_sum(m["lengths"])
    return {
        "ising10.side": p * _PER_VARIABLE,
        "ising10.lengths": total * _PER_STEP * 3 + count * p * 8,
        "ising10.measure.n_chains": m["n_chains"] * (p * 2 + m_count * len(m["scans"]) * 8),
    }


def _ising40(s: dict) -> dict[str, float]:
    p = s["side"] ** 2
    out = {"ising40.side": p * _PER_VARIABLE}
    for name, model in s["models"].items():
        count, total = _grid_sum(model["lengths"])
        out[f"ising40.models.{name}.lengths"] = total * _PER_STEP * 3 + count * p * 8
    b_count, b_max = _grid_sum(s["bias"]["lengths"])
    out["ising40.bias.n_chains"] = s["bias"]["n_chains"] * (p * 2 + b_count * len(s["bias"]["scans"]) * 8)
    out["ising40.bias.lengths"] = b_max * _PER_STEP * len(s["bias"]["scans"])
    return out


def _loose_bounds(s: dict) -> dict[str, float]:
    p = s["side"] ** 2
    count, total = _grid_sum(s["lengths"])
    b_count, b_max = _grid_sum(s["bias"]["lengths"])
    return {
        "loose_bounds.side": p * _PER_VARIABLE,
        "loose_bounds.lengths": len(s["scales"]) * (total * _PER_STEP * 2 + count * p * 8),
        "loose_bounds.bias.n_chains": s["bias"]["n_chains"] * (p * 2 + b_count * len(s["bias"]["scans"]) * 8),
        # the verdict's chains: one repetition at a time, two scans (systematic_aligned, dogs)
        "loose_bounds.verdict.n_chains": s["verdict"]["n_chains"] * (p * 2 + _grid_sum(s["verdict"]["lengths"])[0] * 2 * 8),
    }


def _timing(s: dict) -> dict[str, float]:
    out = {}
    for key in ("main_side", "small_side"):
        p = s[key] ** 2
        out[f"timing.{key}"] = p * _PER_VARIABLE + s["systematic_sweeps"] * p * _PER_STEP
    return out


def _benchmarks(s: dict) -> dict[str, float]:
    return {
        "benchmarks.gibbs_side": s["gibbs_side"] ** 2 * _PER_VARIABLE,
        "benchmarks.dogs_side": s["dogs_side"] ** 2 * (_PER_VARIABLE + 2 * _PER_STEP),
        "benchmarks.pgmpy_side": 8.0 * 2 ** min(s["pgmpy_side"] * 2, 1000) * 4,  # a junction-tree clique table
        "benchmarks.binary_bm_size": s["binary_bm_size"] ** 2 * 8 * 16 + s["binary_hmc_samples"] * s["binary_bm_size"] * 8,
    }


def _scan_order(s: dict) -> dict[str, float]:
    from dogs.counterexamples.resources import scan_order_memory  # the models' own estimate, next to their code

    # Fig. 2b keeps, for each of three scans, the distribution over the 2^(n+1) - 1 states after every update
    # (measured: 3.5 kB per update at n = 6, 127 states).
    states_2b = 2 ** (s["fig2b"]["n"] + 1) - 1
    # below bracket_min_states states a systematic scan's worst case follows a distribution from every start:
    # states^2 numbers for the largest such model
    exact_states = min(s["bracket_min_states"], s["max_states"])
    return {**scan_order_memory(s), "scan_order.bracket_min_states": float(exact_states) ** 2 * 8,
            "scan_order.fig2b.updates": s["fig2b"]["updates"] * (3 * states_2b * 8 + 3 * 9 * 8)}


def _mcmc_mle(s: dict) -> dict[str, float]:
    out = {}
    for k, model in enumerate(s["models"]):
        p = model["rows"] * model["cols"]
        out[f"mcmc_mle.models.{k}"] = 2.0 ** min(p, 1000) * (p + 8) * 8  # exact moments by enumeration
    out["mcmc_mle.chains"] = s["chains"] * max(m["rows"] * m["cols"] for m in s["models"]) * 16
    out["mcmc_mle.n_train"] = s["n_train"] * max(m["rows"] * m["cols"] for m in s["models"]) * 16
    return out


def _annular_ising(s: dict) -> dict[str, float]:
    p = s["side"] ** 2
    t = s["travel_time_periods"]
    proposals = s["hmc_samples"] * (p * t + p + 4 * p * (t - 0.5)) / 4  # CMH + LBP's proposed flips (the budget)
    return {
        "annular_ising.side": p * _PER_VARIABLE + 8.0 * 2 ** min(2 * s["side"] + 1, 1000),  # torus treewidth 2 side
        # estimator sums per sample event; CMH + LBP stores up to one state and count per proposal
        "annular_ising.hmc_samples": s["hmc_samples"] * 64 * (p + 2 * p) * 8 + proposals * (p + 8),
    }


def _boltzmann_job(s: dict, spec: dict, d: int) -> float:
    """Bytes of one Boltzmann chains job: the weights of every chain, the data, the inner samples, log Z tables."""
    return (spec["chains"] * d * d * 16 + spec.get("data_points", 2000) * d * 8
            + s["outer_samples"] * d * d * 8 * len(s["samplers"])
            + spec["inner_samples"] * 64 * d * 8
            + (8.0 * 2 ** min(d, 1000) if d <= 30 else 0.0))  # log Z by enumeration


def _variant_runs(s: dict):
    """``(variant, data set, the data set's settings with the variant's counts, units)`` of every variant run."""
    for variant, change in (s.get("variants") or {}).items():
        for name in change["datasets"]:
            spec = s["datasets"].get(name)
            if spec is None:
                continue
            merged = {**spec, "chains": change.get("chains", spec["chains"]),
                      "inner_samples": change.get("inner_samples", spec["inner_samples"])}
            yield variant, name, merged, spec.get("units", 6)


def _boltzmann(s: dict) -> dict[str, float]:
    out = {}
    for name, spec in s["datasets"].items():
        out[f"boltzmann.datasets.{name}"] = _boltzmann_job(s, spec, spec.get("units", 6))
    for variant, name, spec, d in _variant_runs(s):
        out[f"boltzmann.variants.{variant}"] = max(out.get(f"boltzmann.variants.{variant}", 0.0),
                                                   _boltzmann_job(s, spec, d))
    return out


def _msrc(s: dict) -> dict[str, float]:
    rows, cols = s["region"]
    return {
        "msrc.codebook_size": s["codebook_size"] * 200 * 8 * 64,
        "msrc.chains": s["chains"] * s["test_images"] * rows * cols * 8 * 16,
    }


_ESTIMATORS = {
    "ising10": _ising10, "ising40": _ising40, "loose_bounds": _loose_bounds, "timing": _timing,
    "benchmarks": _benchmarks, "scan_order": _scan_order, "mcmc_mle": _mcmc_mle, "annular_ising": _annular_ising,
    "boltzmann": _boltzmann, "msrc": _msrc,
}


def estimate_memory(family: str, settings: dict) -> dict[str, float]:
    """``{config key: bytes}``: the estimated memory each key's allocations need in one job of ``family``."""
    estimator = _ESTIMATORS.get(family)
    return {} if estimator is None else {key: float(value) for key, value in estimator(settings).items()}


def check_memory(family: str, settings: dict, limit_bytes: int) -> float:
    """Raise :class:`ResourceError` naming the key when one job of ``family`` would need more than the limit.

    Returns the estimate (bytes): the sum over the keys, as one job may hold all of them at once.
    """
    items = estimate_memory(family, settings)
    total = sum(items.values())
    if total > limit_bytes:
        ranked = sorted(items.items(), key=lambda kv: -kv[1])
        key = ranked[0][0]
        shares = ", ".join(f"{name}: {_gib(value)}" for name, value in ranked[:3] if value > 0.01 * total)
        raise ResourceError(
            f"config key {key}: these settings need an estimated {_gib(total)} of memory in one {family} job "
            f"({shares}), more than the limit of {_gib(limit_bytes)}. Reduce {key}, or raise the limit "
            f"deliberately with resources.max_memory_gb in the config.")
    return total


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 1024**3:.3g} GiB" if n_bytes < 1e30 else "astronomically many GiB"


def check_config_memory(config: dict) -> None:
    """Check every family section of a whole (validated) config against its limit (the Snakefile's guard)."""
    limit = memory_limit_bytes((config.get("resources") or {}).get("max_memory_gb"))
    for family in _ESTIMATORS:
        if isinstance(config.get(family), dict):
            check_memory(family, config[family], limit)


# ------------------------------------------------------------------------------------------ run time
#
# The time estimate: each compute rule's work as a product of factors, each named by the config key that drives
# it, times a rate per rule measured from the benchmark files the workflow writes (JOB_RATES below). Rules that
# only summarise or plot cost JOB_OVERHEAD_SECONDS each. The factors are counts of elementary operations (site
# updates, scan steps, matrix entries, ...): within one rule, operations of different kinds are counted alike, so
# the estimate is an order of magnitude, not a schedule; its purpose is to refuse a config that asks for days.


class Work:
    """The work of the jobs of one compute rule: ``jobs`` jobs of ``prod(factors)`` units in all, plus
    ``seconds`` of work the config gives in seconds (the timing experiment's sampling budgets)."""

    __slots__ = ("rule", "factors", "jobs", "seconds")

    def __init__(self, rule: str, factors: dict[str, float], jobs: int = 1, seconds: float = 0.0):
        self.rule, self.jobs, self.seconds = rule, int(jobs), float(seconds)
        self.factors = {key: float(value) for key, value in factors.items()}

    @property
    def units(self) -> float:
        return math.prod(self.factors.values())

    def __repr__(self) -> str:
        return f"Work({self.rule!r}, {self.factors}, jobs={self.jobs}, seconds={self.seconds})"


def _time_ising10(s: dict) -> list[Work]:
    p = s["side"] ** 2
    count, _ = _grid_sum(s["lengths"])
    m = s["measure"]
    return [
        Work("ising10_compute_guarantees", {"ising10.n_replicates": s["n_replicates"],
                                            "ising10.lengths": _grid_total(s["lengths"]) + count * p},
             jobs=s["n_replicates"]),
        Work("ising10_compute_measure", {"ising10.measure.replicates": len(m["replicates"]),
                                         "ising10.measure.n_chains": m["n_chains"],
                                         "ising10.measure.lengths": _grid_total(m["lengths"]),
                                         "ising10.measure.scans": len(m["scans"])}, jobs=len(m["replicates"])),
    ]


def _time_ising40(s: dict) -> list[Work]:
    p = s["side"] ** 2
    out = []
    for name, model in s["models"].items():
        count, _ = _grid_sum(model["lengths"])
        out.append(Work("ising40_compute_guarantees",
                        {f"ising40.models.{name}.lengths": _grid_total(model["lengths"]) + count * p}))
    b = s["bias"]
    out.append(Work("ising40_compute_bias", {"ising40.bias.repetitions": b["repetitions"] + 1,
                                             "ising40.bias.n_chains": b["n_chains"],
                                             "ising40.bias.lengths": _grid_total(b["lengths"]),
                                             "ising40.bias.scans": len(b["scans"])}, jobs=b["repetitions"] + 1))
    return out


def _time_loose_bounds(s: dict) -> list[Work]:
    p = s["side"] ** 2
    count, _ = _grid_sum(s["lengths"])
    b, v = s["bias"], s["verdict"]
    return [
        Work("loose_bounds_compute_guarantees", {"loose_bounds.scales": len(s["scales"]),
                                                 "loose_bounds.lengths": _grid_total(s["lengths"]) + count * p}),
        Work("loose_bounds_compute_bias", {"loose_bounds.scales": len(s["scales"]),
                                           "loose_bounds.bias.n_chains": b["n_chains"],
                                           "loose_bounds.bias.lengths": _grid_total(b["lengths"]),
                                           "loose_bounds.bias.scans": len(b["scans"])}),
        Work("loose_bounds_compute_bias_verdict", {"loose_bounds.scales": len(s["scales"]),
                                                   "loose_bounds.verdict.repetitions": v["repetitions"],
                                                   "loose_bounds.verdict.n_chains": v["n_chains"],
                                                   "loose_bounds.verdict.lengths": 2 * _grid_total(v["lengths"])}),
    ]


#: timing_compute in units of one Gibbs step: the model and the five timed DoGS setups cost about as much per
#: variable as this many systematic sample points of two sweeps (scaling benchmark, 10^6 variables: 1.2 us per
#: variable for the model, 0.2 us per setup, 8.4 ns per two-sweep point), and a DoGS sample point (16 steps and
#: the reset of the visited sites, 0.4 us) as this many steps.
_TIMING_SETUP_POINTS = 250
_TIMING_DOGS_POINT_STEPS = 100


def _time_timing(s: dict) -> list[Work]:
    trials = s["main_trials"] + 1  # the main grid's trials and the small grid's one
    variables = s["main_trials"] * s["main_side"] ** 2 + s["small_side"] ** 2  # over all trials
    return [
        # the systematic points (sweeps * p Gibbs steps each) and, in the same units, the model and setups
        Work("timing_compute", {"timing.systematic_sweeps": s["systematic_sweeps"], "timing.main_side": variables,
                                "timing.systematic_points": s["systematic_points"] + _TIMING_SETUP_POINTS},
             jobs=trials, seconds=trials * s["full_reset_probe_seconds"]),
        Work("timing_compute", {"timing.dogs_points": trials * s["dogs_points"] * _TIMING_DOGS_POINT_STEPS}, jobs=0),
        Work("timing_compute_epsilon", {"timing.epsilon_factors": len(s["epsilon_factors"]),
                                        "timing.epsilon_points": s["epsilon_points"]}),
    ]


def _time_benchmarks(s: dict) -> list[Work]:
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
    ]


def _time_scan_order(s: dict) -> list[Work]:
    from dogs.counterexamples.levels import LEVEL_MODELS, level_chain_updates  # imported only where estimated
    from dogs.counterexamples.models import MODEL_NAMES, state_count
    level_updates = {name: sum(level_chain_updates(name, n) for n in (s.get("level_chain_n") or {}).get(name, []))
                     for name in LEVEL_MODELS}

    # exact mixing times of each model (one job each, its own rate: the models' chains and the search for the best
    # and worst orders differ), counted in states
    perms = s["fig2c"]
    permutations = (math.factorial(perms["sequence_of_dependencies_n"])
                    * state_count("sequence_of_dependencies", perms["sequence_of_dependencies_n"]) ** 2
                    + math.factorial(2 * perms["two_islands_n"]) * state_count("two_islands", perms["two_islands_n"]) ** 2)
    return [
        *(Work(f"scan_order_compute_mixing:{name}",
               {f"scan_order.n_values.{name}": sum(state_count(name, n) for n in s["n_values"][name])})
          for name in MODEL_NAMES),
        Work("scan_order_compute_islands", {"scan_order.n_values.two_islands": sum(
            state_count("two_islands", n) ** 2 for n in s["n_values"]["two_islands"])}),
        # three scans, one distribution over the states per update
        Work("scan_order_compute_island_mass", {"scan_order.fig2b.updates": s["fig2b"]["updates"],
                                                "scan_order.fig2b.n": state_count("two_islands", s["fig2b"]["n"])}),
        Work("scan_order_compute_permutations", {"scan_order.fig2c": permutations}, jobs=2),
        # the random scan of the App. A models on their level chains (inside compute_mixing), timed per update
        *(Work(f"scan_order_level_chains:{name}", {f"scan_order.level_chain_n.{name}": updates}, jobs=0)
          for name, updates in level_updates.items()),
    ]


def _time_mcmc_mle(s: dict) -> list[Work]:
    out = []
    for k, model in enumerate(s["models"]):
        p = model["rows"] * model["cols"]
        out.append(Work("mcmc_mle_compute_optimum", {f"mcmc_mle.models.{k}": 2.0 ** p * p * p,
                                                     "mcmc_mle.n_train": 1 + s["n_train"] / 2.0 ** p}))
        out.append(Work("mcmc_mle_compute_trace", {
            f"mcmc_mle.models.{k}": p, "mcmc_mle.mc_sweeps": sum(s["mc_sweeps"]), "mcmc_mle.replicates": 2 * s["replicates"],
            "mcmc_mle.gradient_steps": s["gradient_steps"], "mcmc_mle.chains": s["chains"]}))
    return out


def _time_annular_ising(s: dict) -> list[Work]:
    p = s["side"] ** 2
    sampled = truth_only = 0
    for group in s["groups"].values():
        count = max(len(v) if isinstance(v, list) else 1 for v in (group["strength"], group["bias_scale"]))
        if group["samplers"]:
            sampled += count
        else:
            truth_only += count
    # truth: a junction tree of the torus (cliques of 2 side + 1 spins); LBP sweeps up to its cap; per bias draw,
    # at W and at W/2 (the diagnostic of the authors' coupling)
    truth = 2 * (2.0 ** (2 * s["side"] + 1) * p + s["lbp"]["max_iterations"] * p * 4)
    return [
        Work("annular_ising_compute", {"annular_ising.groups": sampled, "annular_ising.runs": s["runs"],
                                       "annular_ising.bias_draws": s["bias_draws"],
                                       "annular_ising.hmc_samples": s["hmc_samples"],
                                       "annular_ising.travel_time_periods": s["travel_time_periods"],
                                       "annular_ising.side": p + truth / max(1, s["runs"] * s["hmc_samples"])},
             jobs=sampled),
        Work("annular_ising_compute_truth", {"annular_ising.groups": truth_only, "annular_ising.bias_draws":
                                             s["bias_draws"], "annular_ising.side": truth}, jobs=truth_only),
    ]


def _time_boltzmann(s: dict) -> list[Work]:
    out = []
    for name, spec in s["datasets"].items():
        d = spec.get("units", 6)
        exact = 2.0 ** d if d <= 10 else 0.0  # the exact ratio by enumeration, at every outer step
        data = spec.get("data_points", 2000) * (spec.get("data_sweeps", 1) * d * d + exact)
        out.append(Work("boltzmann_compute_data", {f"boltzmann.datasets.{name}.data_points": data}))
        out.append(Work("boltzmann_compute_chains" if d <= 10 else "boltzmann_compute_chains_large", {
            "boltzmann.samplers": len(s["samplers"]), f"boltzmann.datasets.{name}.chains": spec["chains"],
            "boltzmann.outer_samples": s["outer_samples"],
            f"boltzmann.datasets.{name}.inner_samples": spec["inner_samples"] + exact,
            "boltzmann.travel_time_periods": s["travel_time_periods"], f"boltzmann.datasets.{name}.units": d * d}))
    # a variant job runs the same chains (boltzmann_compute_variant): counted at the rate of the chains of its d
    for variant, name, spec, d in _variant_runs(s):
        change = s["variants"][variant]
        exact = 2.0 ** d if d <= 10 else 0.0
        out.append(Work("boltzmann_compute_chains" if d <= 10 else "boltzmann_compute_chains_large", {
            "boltzmann.samplers": len(change.get("samplers", s["samplers"])),
            f"boltzmann.variants.{variant}.chains": spec["chains"], "boltzmann.outer_samples": s["outer_samples"],
            f"boltzmann.variants.{variant}.inner_samples": spec["inner_samples"] + exact,
            "boltzmann.travel_time_periods": s["travel_time_periods"], f"boltzmann.datasets.{name}.units": d * d}))
    return out


def _time_msrc(s: dict) -> list[Work]:
    images = 8 * (s["images_per_group"] or 30)
    rows, cols = s["region"]
    patches = 140  # patches per image on the fixed patch grid (10 x 14)
    train = max(images - s["test_images"], 1)
    colour, cells = s["colour"], s["position_cells"]
    words = s["codebook_size"] + colour["hue_bins"] + colour["value_bins"] + cells[0] * cells[1]
    per_split = (train * patches * s["codebook_size"]  # k-means codebook
                 + s["plsa"]["iterations"] * train * patches * words  # PLSA by EM
                 + s["test_images"] * patches * (s["plsa"]["fold_in_iterations"] * words + s["chains"] * 2 * rows * cols))
    return [
        Work("msrc_compute_features", {"msrc.images_per_group": images}),
        Work("msrc_compute_split", {"msrc.splits": s["splits"], "msrc.codebook_size": per_split}, jobs=s["splits"]),
    ]


_TIME_ESTIMATORS = {
    "ising10": _time_ising10, "ising40": _time_ising40, "loose_bounds": _time_loose_bounds, "timing": _time_timing,
    "benchmarks": _time_benchmarks, "scan_order": _time_scan_order, "mcmc_mle": _time_mcmc_mle,
    "annular_ising": _time_annular_ising, "boltzmann": _time_boltzmann, "msrc": _time_msrc,
}

#: CPU seconds of a job that does next to nothing (interpreter, imports, reading and writing a few files): every
#: job pays it. Measured with the rates (JOB_RATES), as the least CPU time of any job of that run.
JOB_OVERHEAD_SECONDS = 0.96

#: CPU seconds the first job of a compute rule spends compiling its numba kernels in a fresh checkout (later jobs
#: load them from numba's cache). Measured in a smoke run from a fresh checkout: the first job of a rule less a
#: later one, 5 to 26 s (ising10_compute_guarantees 27.5 - 1.5, ising40_compute_guarantees 27.3 - 1.8,
#: annular_ising_compute 19.2 - 2.2, boltzmann_compute_chains 14.3 - 1.5, msrc_compute_split 6.8 - 1.5).
JIT_SECONDS_PER_RULE = 20.0

#: CPU seconds per unit of work of each compute rule (:class:`Work`; units as the ``_time_<family>`` functions
#: count them; ``scan_order_compute_mixing:<model>`` per model). Measured by ``python -m dogs.experiments._resources
#: calibrate results/benchmarks config/config.yaml`` from the CPU times in the benchmark files Snakemake wrote for the
#: compute rules in the timed paper-scale run (``snakemake --cores 2 --forceall all_with_data`` on a quiet 2-core AMD
#: EPYC, numba's cache warm): at the shipped settings the estimate is that run's job time by construction, and it
#: grows with each key as the work does. ``config/calibration.yaml`` measures them again at small settings.
JOB_RATES: dict[str, float] = {
    "annular_ising_compute": 1.8e-08,
    "benchmark_binary_samplers": 2.39e-07,
    "benchmark_dogs": 2.65e-06,
    "benchmark_gibbs": 8.86e-07,
    "boltzmann_compute_chains": 2.86e-09,
    "boltzmann_compute_chains_large": 1.22e-09,
    # exact-HMC trajectories on d^2 couplings (no benchmark file: measured once, before the chains' log-ratio
    # bookkeeping got cheaper, which the data step does not have)
    "boltzmann_compute_data": 6.11e-09,
    "ising10_compute_guarantees": 6.56e-06,
    "ising10_compute_measure": 7.17e-09,
    "ising40_compute_bias": 1.63e-08,
    "ising40_compute_guarantees": 6.03e-06,
    "loose_bounds_compute_bias": 1.2e-08,
    "loose_bounds_compute_bias_verdict": 3.32e-08,
    "loose_bounds_compute_guarantees": 5.59e-07,
    "mcmc_mle_compute_optimum": 5.77e-08,
    "mcmc_mle_compute_trace": 4.57e-08,
    "msrc_compute_features": 0.0563,
    "msrc_compute_split": 2.02e-08,
    "scan_order_compute_island_mass": 6.43e-07,
    "scan_order_compute_islands": 8.77e-08,
    "scan_order_compute_mixing:discrete_pyramid": 0.00272,
    "scan_order_compute_mixing:memorize_and_repeat": 1.12e-05,
    "scan_order_compute_mixing:sequence_of_dependencies": 0.00272,
    "scan_order_compute_mixing:soft_dependencies": 2.22e-05,
    "scan_order_compute_mixing:two_islands": 0.00542,
    "scan_order_compute_permutations": 1.91e-07,
    # level-vector updates of the App. A level chains (run inside compute_mixing): measured with the chains
    # themselves, dogs.counterexamples.resources._SECONDS_PER_LEVEL_UPDATE, not by calibrate
    "scan_order_level_chains:memorize_and_repeat": 1.5e-09,
    "scan_order_level_chains:soft_dependencies": 1.5e-09,
    "timing_compute": 2.82e-09,
    "timing_compute_epsilon": 2.48e-07,
}

#: Compute rules without a measured rate, and the measured rule whose rate they borrow (the same kind of work: the
#: truth of the annular settings is the part of annular_ising_compute that computes it).
RATE_FROM = {"annular_ising_compute_truth": "annular_ising_compute"}

#: Default of ``resources.max_hours``: the longest estimated job time (all jobs, summed) of one run. A choice: about
#: three times the paper-scale estimate (0.65 CPU hours with the rates above), the headroom it had over the estimate
#: of the rates it replaced (4 hours over 1.5); settings that ask for more are refused unless the limit is raised.
DEFAULT_MAX_HOURS = 2.0


def estimate_work(family: str, settings: dict) -> list[Work]:
    """The :class:`Work` of every compute rule of ``family`` under ``settings`` (empty for an unknown family)."""
    estimator = _TIME_ESTIMATORS.get(family)
    return [] if estimator is None else estimator(settings)


def work_seconds(work: Work, rates: dict | None = None, overhead: float | None = None) -> float:
    """Estimated job seconds of ``work``: the start-up of every job, the seconds the config asks for, and the units
    at the rule's measured rate (:data:`JOB_RATES`; a rule without one counts its start-up only)."""
    rates = JOB_RATES if rates is None else rates
    overhead = JOB_OVERHEAD_SECONDS if overhead is None else overhead
    rate = rates.get(work.rule, rates.get(RATE_FROM.get(work.rule), 0.0))
    return work.jobs * overhead + work.seconds + rate * work.units


def family_seconds(works: list[Work]) -> float:
    """Estimated CPU seconds of all compute jobs of a family: their :func:`work_seconds` and the numba compilation
    of every rule once (:data:`JIT_SECONDS_PER_RULE`)."""
    return sum(work_seconds(w) for w in works) + JIT_SECONDS_PER_RULE * len({w.rule for w in works})


def estimate_hours(family: str, settings: dict) -> float:
    """Estimated CPU hours of all compute jobs of ``family`` (start-up and compilation included)."""
    return family_seconds(estimate_work(family, settings)) / 3600


def _blame(work: Work, reference: Work | None) -> str:
    """The key of ``work`` that grew most against the same work under the reference (shipped) settings."""
    def growth(key):
        base = reference.factors.get(key) if reference is not None else None
        return work.factors[key] / base if base else work.factors[key]
    return max(work.factors, key=growth) if work.factors else work.rule


def _hours(seconds: float) -> str:
    hours = seconds / 3600
    if hours >= 1e6:
        return f"{hours:.2g} hours ({hours / 24 / 365:.2g} years)"
    return f"{hours:.3g} hours" if hours >= 0.1 else f"{seconds / 60:.2g} minutes"


def check_config_time(config: dict, reference: dict | None = None) -> dict[str, float]:
    """Raise :class:`ResourceError` naming the key when the estimated job time of a whole config exceeds
    ``resources.max_hours`` (default :data:`DEFAULT_MAX_HOURS`); return the estimated hours per family.

    The key named is that of the largest compute rule which grew most against ``reference`` (the shipped
    ``config/config.yaml``, when given), so a config that multiplies one count by 10^6 is told which one.
    """
    limit = (config.get("resources") or {}).get("max_hours")
    limit = DEFAULT_MAX_HOURS if limit is None else float(limit)
    works = {family: estimate_work(family, config[family]) for family in _TIME_ESTIMATORS
             if isinstance(config.get(family), dict)}
    hours = {family: family_seconds(items) / 3600 for family, items in works.items()}
    total = sum(hours.values())
    if total > limit:
        family = max(hours, key=hours.get)
        work = max(works[family], key=work_seconds)
        base = None
        if reference is not None and isinstance(reference.get(family), dict):
            base = next((w for w in estimate_work(family, reference[family]) if w.rule == work.rule), None)
        key = _blame(work, base)
        raise ResourceError(
            f"config key {key}: these settings ask for an estimated {_hours(total * 3600)} of jobs "
            f"({family}: {_hours(hours[family] * 3600)}, most of it in {work.rule}), more than the limit of "
            f"resources.max_hours = {limit:g}. Reduce {key}, or raise the limit deliberately with resources.max_hours "
            "in the config.")
    return hours


def time_table(hours: dict[str, float]) -> str:
    """The lines ``snakemake`` prints before planning: estimated job time per family and in all."""
    lines = ["Estimated job time in CPU hours of all jobs (README, \"Configuration and what is checked\"):"]
    lines += [f"  {family:<14} {_hours(h * 3600)}" for family, h in sorted(hours.items(), key=lambda kv: -kv[1])]
    lines.append(f"  {'in all':<14} {_hours(sum(hours.values()) * 3600)}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ calibration


#: Benchmark files whose names do not start with their rule's name (``rules/*.smk``), by the start of their path
#: below ``benchmarks/``: the per-model rates of scan_order_compute_mixing, and the names of result folders written
#: before every benchmark file was named ``benchmarks/snakemake/<rule>[_<wildcards>].tsv``.
_BENCHMARK_NAMES = {
    "snakemake/scan_order_compute_mixing_": "scan_order_compute_mixing:",
    "snakemake/timing_run_": "timing_compute",
    "snakemake/timing_epsilon_sweep": "timing_compute_epsilon",
    "scan_order/mixing_": "scan_order_compute_mixing:",  # one rate per model: scan_order_compute_mixing:<model>
    "scan_order/islands": "scan_order_compute_islands",
    "scan_order/island_mass": "scan_order_compute_island_mass",
    "scan_order/permutations_": "scan_order_compute_permutations",
}


def rule_of(benchmark_file: str, rules, config: dict | None = None) -> str | None:
    """The compute rule of a benchmark file ``.../benchmarks/<folder>/<name>.tsv``: the longest rule name ``<name>``
    starts with (followed by ``_`` or a number), else :data:`_BENCHMARK_NAMES`. Both Boltzmann chain rules write
    ``boltzmann_compute_chains_<data set>``: a data set of more than 10 units is the ``_large`` rule's."""
    path = str(benchmark_file).replace(os.sep, "/")
    stem = os.path.basename(path).removesuffix(".tsv")
    for prefix, rule in _BENCHMARK_NAMES.items():
        if "/benchmarks/" + prefix in path or path.startswith("benchmarks/" + prefix):
            return rule + stem.removeprefix(prefix.split("/")[-1]) if rule.endswith(":") else rule
    names = [r for r in rules if stem == r or stem.startswith(r + "_") or stem.removeprefix(r).isdigit()]
    rule = max(names, key=len) if names else None
    if rule == "boltzmann_compute_variant" and config is not None:  # <variant>_<data set>: the chains of its d
        rest = stem.removeprefix(rule + "_")
        variant = max((v for v in config["boltzmann"].get("variants") or {} if rest.startswith(v + "_")), key=len,
                      default=None)
        rule, stem = "boltzmann_compute_chains", "boltzmann_compute_chains_" + (rest[len(variant) + 1:] if variant else rest)
    if rule == "boltzmann_compute_chains" and config is not None:
        spec = config["boltzmann"]["datasets"].get(stem.removeprefix(rule + "_"), {})
        if spec.get("units", 6) > 10:
            rule += "_large"
    return rule


def calibrate(benchmark_files, config: dict, rules) -> tuple[float, dict[str, float]]:
    """``(overhead, rates)`` measured from the benchmark files of a complete run of ``config``.

    Times are the CPU seconds Snakemake records (column ``cpu_time``), which a machine shared with other work
    inflates far less than wall-clock seconds (Snakemake samples them every second for the first 30 s of a job,
    then every 30 s, so the last seconds of a long job can be missed). The overhead is the least CPU time of any
    job (one with next to no work); the rate of a compute rule is its jobs' total CPU seconds, less their
    overhead and the seconds the config fixes, per unit of its estimated work (at least 5% of its seconds).
    """
    import csv
    import statistics

    seconds: dict[str, float] = {}
    job_seconds = []
    for path in benchmark_files:
        with open(path) as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        rule = rule_of(path, rules, config)
        if rule is not None and rows and rows[-1]["cpu_time"] not in ("", "NA"):
            seconds[rule] = seconds.get(rule, 0.0) + float(rows[-1]["cpu_time"])
            job_seconds.append(float(rows[-1]["cpu_time"]))
    works = [w for family in _TIME_ESTIMATORS if isinstance(config.get(family), dict)
             for w in estimate_work(family, config[family])]
    compute = {w.rule for w in works}
    overhead = min(job_seconds) if job_seconds else JOB_OVERHEAD_SECONDS
    rates = {}
    for rule in sorted(compute & set(seconds)):
        mine = [w for w in works if w.rule == rule]
        fixed = sum(w.jobs * overhead + w.seconds for w in mine)
        units = sum(w.units for w in mine)
        rates[rule] = max(seconds[rule] - fixed, 0.05 * seconds[rule]) / units if units else 0.0
    return overhead, rates


# ------------------------------------------------------------------------------------------ keys read
#
# Every numeric key of config/schema.yaml either feeds an estimate (memory or time) or is listed below as not
# scaling, with the reason. tests/test_guard.py walks the schema and fails for a numeric key that is neither, so
# a new key cannot be forgotten: give it a factor in the family's _<family> (memory) or _time_<family> function
# above, or add it here with the reason it costs neither memory nor time.

NOT_SCALING: dict[str, str] = {
    "root_seed": "a seed",
    "resources.max_memory_gb": "the memory limit itself",
    "resources.max_hours": "the time limit itself",
    "benchmarks.heatmap_settings": "the benchmark projects a run time from it; nothing runs that many times",
    "benchmarks.heatmap_runs": "the benchmark projects a run time from it; nothing runs that many times",
    "benchmarks.scaling_sides[]": "the scaling benchmark is not part of `all` (target `scaling`); it skips every side "
                                  "that would not fit the memory available",
    "benchmarks.scaling_repeats": "the scaling benchmark is not part of `all` (target `scaling`)",
    "timing.max_coupling": "a model parameter",
    "timing.doubling_start": "first length of the doubling search, which stops at the DoGS length (16 at paper scale)",
    "timing.checkpoints_per_decade": "points of the running estimate recorded per decade of sample count (logarithmic)",
    "timing.speedup_samples[]": "numbers of sample points at which the measured speed-up curve is read (no sampling)",
    "timing.settle_level": "a level of the summary",
    "timing.target_setup_seconds": "an engineering target, reported",
    "timing.target_step_seconds": "an engineering target, reported",
    "timing.target_point_seconds": "an engineering target, reported",
    "timing.epsilon_factors[]": "early-stopping levels; their number is counted (timing.epsilon_factors)",
    "ising10.budget_levels[]": "levels of the summary",
    "ising10.field_values[]": "model parameters",
    "ising10.coupling_range[]": "model parameters",
    "ising10.max_iterations": "a cap: iterated DoGS stops at its first run that does not improve (a few runs)",
    "ising10.measure.replicates[]": "replicate numbers; their count is counted (ising10.measure.replicates)",
    "ising10.measure.initial_state": "a spin value",
    "ising40.target": "a variable index",
    "ising40.max_iterations": "a cap: iterated DoGS stops at its first run that does not improve (a few runs)",
    "ising40.models.open.coupling": "a model parameter",
    "ising40.models.open.field": "a model parameter",
    "ising40.models.open.segments[]": "fractions of a scan for the frequency maps",
    "ising40.models.torus.coupling": "a model parameter",
    "ising40.models.torus.field": "a model parameter",
    "ising40.models.torus.segments[]": "fractions of a scan for the frequency maps",
    "ising40.bias.initial_state": "a spin value",
    "ising40.bias.speed_level": "a level of the summary",
    "loose_bounds.coupling": "a model parameter",
    "loose_bounds.field": "a model parameter",
    "loose_bounds.target": "a variable index",
    "loose_bounds.scales[]": "looseness factors; their number is counted (loose_bounds.scales)",
    "loose_bounds.bias.initial_state": "a spin value",
    "loose_bounds.bias.speed_level": "a level of the summary",
    "scan_order.epsilon": "the TV threshold (t_mix grows as log 1/epsilon, bounded by the schema's range)",
    "scan_order.bridge_weight": "a model parameter",
    "scan_order.modified_bridge_weight": "a model parameter",
    "scan_order.negligible_bridge_weight": "a model parameter",
    "scan_order.enumerate_max_variables": "a cap (at most 9! permutations, schema maximum)",
    "scan_order.enumerate_max_states": "a cap on the models whose permutations are enumerated (at most 9 variables)",
    "scan_order.fit_fraction": "a share of the fitted points",
    "scan_order.M_factor": "measured: t_mix and the run time do not grow with M (M_factor 10 to 10^5 at n = 16: the same "
                           "t_mix within 1%, no more CPU seconds); the schema bounds it at 10^6",
    "scan_order.reduced_two_islands_n[]": "measured: the reduced chain's exact t_mix takes 0.01 s of CPU at n = 32; "
                                          "the schema bounds n at 32 (beyond, double precision cannot resolve it)",
    "mcmc_mle.regularizer": "a model parameter",
    "mcmc_mle.radius": "a model parameter",
    "mcmc_mle.step_size": "a step size",
    "mcmc_mle.initial_state": "a spin value",
    "mcmc_mle.epsilon": "an early-stopping level (the DoGS scan is at most as long as the uniform one it starts from)",
    "mcmc_mle.accuracy_level": "a level of the summary",
    "mcmc_mle.smoothing_window": "a window of the summary",
    "mcmc_mle.exact_tolerance": "a tolerance (the exact optimum's iterations on 2^p states are counted per model)",
    "annular_ising.lbp.tolerance": "a tolerance (LBP's iterations are capped by annular_ising.lbp.max_iterations, counted)",
    "annular_ising.high_strength": "a level of the summary",
    "annular_ising.high_strength_zero_bias": "a level of the summary",
    "boltzmann.proposal_variance": "a model parameter",
    "boltzmann.datasets.*.prior.variance": "a model parameter",
    "boltzmann.datasets.*.start.variance": "a model parameter",
    "boltzmann.variants.*.prior.variance": "a model parameter",
    "boltzmann.variants.*.start.variance": "a model parameter",
    "boltzmann.within": "a level of the summary",
    "boltzmann.synthetic_bias": "a model parameter",
    "msrc.sigma": "a model parameter",
    "msrc.colour.saturation_floor": "a feature threshold",
    "msrc.plsa.smoothing": "a smoothing weight",
    "msrc.chains_reported[]": "subsets of the first n chains re-labelled from the stored draws (n at most msrc.chains, which the estimates read)",
}


class _Reads:
    """Records the dotted keys an estimator reads from a settings mapping (``[i]`` for list items)."""

    def __init__(self):
        self.keys: set[str] = set()

    def wrap(self, value, path: str):
        if isinstance(value, dict):
            return _TrackedDict(value, path, self)
        if isinstance(value, list) and any(isinstance(item, dict) for item in value):
            return [self.wrap(item, f"{path}[{i}]") for i, item in enumerate(value)]
        return value


class _TrackedDict(dict):
    def __init__(self, data: dict, path: str, reads: _Reads):
        super().__init__(data)
        self._path, self._reads = path, reads

    def _key(self, key) -> str:
        return f"{self._path}.{key}" if self._path else str(key)

    def __getitem__(self, key):
        self._reads.keys.add(self._key(key))
        return self._reads.wrap(super().__getitem__(key), self._key(key))

    def get(self, key, default=None):
        self._reads.keys.add(self._key(key))
        return self._reads.wrap(super().get(key, default), self._key(key))

    def items(self):
        return [(key, self[key]) for key in self]

    def values(self):
        return [self[key] for key in self]


def keys_read(family: str, settings: dict) -> tuple[set[str], set[str]]:
    """``(keys the memory estimate reads, keys the time estimate reads)`` of ``family`` under ``settings``."""
    found = []
    for function in (estimate_memory, estimate_work):
        reads = _Reads()
        function(family, reads.wrap(settings, family))
        found.append(reads.keys)
    return found[0], found[1]


def schema_pattern(schema: dict, key: str) -> str:
    """The schema's name of a concrete dotted key: ``boltzmann.datasets.heart.chains`` ->
    ``boltzmann.datasets.*.chains``, ``mcmc_mle.models[0].rows`` -> ``mcmc_mle.models[].rows``."""
    import re

    out, node = [], schema
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", key):
        if part.startswith("["):
            out[-1] += "[]"
            node = node.get("items", {}) if isinstance(node, dict) else {}
            continue
        properties = node.get("properties", {}) if isinstance(node, dict) else {}
        if part in properties:
            out.append(part)
            node = properties[part]
        else:
            out.append("*")
            extra = node.get("additionalProperties") if isinstance(node, dict) else None
            node = extra if isinstance(extra, dict) else {}
    return ".".join(out)


def numeric_schema_keys(schema: dict, prefix: str = "") -> set[str]:
    """Every key pattern of ``schema`` whose value may be a number (``x[]`` for list items, ``*`` for free names)."""
    out: set[str] = set()
    if not isinstance(schema, dict):
        return out
    for alternative in schema.get("oneOf", []) + schema.get("anyOf", []):
        out |= numeric_schema_keys(alternative, prefix)
    kind = schema.get("type")
    kinds = {kind} if isinstance(kind, str) else set(kind or ())
    numeric_enum = any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in schema.get("enum", []))
    if kinds & {"integer", "number"} or numeric_enum:
        out.add(prefix)
    for name, sub in schema.get("properties", {}).items():
        out |= numeric_schema_keys(sub, f"{prefix}.{name}" if prefix else name)
    if isinstance(schema.get("additionalProperties"), dict):
        out |= numeric_schema_keys(schema["additionalProperties"], f"{prefix}.*")
    if isinstance(schema.get("items"), dict):
        out |= numeric_schema_keys(schema["items"], f"{prefix}[]")
    return out


def scaling_table(schema: dict, configs) -> str:
    """The README's table of which keys each estimate reads, per family, from the shipped ``configs``, and the
    numeric keys marked as not scaling (:data:`NOT_SCALING`)."""
    read: dict[str, tuple[set, set]] = {}
    for config in configs:
        for family in _ESTIMATORS:
            if isinstance(config.get(family), dict):
                memory, time_ = keys_read(family, config[family])
                mine = read.setdefault(family, (set(), set()))
                mine[0].update(schema_pattern(schema, k) for k in memory)
                mine[1].update(schema_pattern(schema, k) for k in time_)
    numeric = numeric_schema_keys(schema)

    def cell(family, keys):
        import re

        leaves = {k for k in keys if k in numeric or k + "[]" in numeric}  # numbers, and lists of numbers
        grids = {re.sub(r"\.(start|stop|step|per_decade)$", "", k) for k in leaves}  # a length grid as one key
        short = sorted(k.removeprefix(family + ".") for k in grids)
        return ", ".join(f"`{k}`" for k in short) or "–"

    lines = ["| family | memory estimate reads | time estimate reads | marked as not scaling |",
             "|---|---|---|---|"]
    for family, (memory, time_) in read.items():
        quiet = {k for k in NOT_SCALING if k.startswith(family + ".")}
        lines.append(f"| {family} | {cell(family, memory)} | {cell(family, time_)} | {cell(family, quiet)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m dogs.experiments._resources table`` prints the README's table of keys;
    ``... calibrate FOLDER [CONFIG ...]`` prints the overhead and rates measured from the benchmark files under
    FOLDER (``results/.../benchmarks``) of a complete run of the merged CONFIG files (default: config/config.yaml
    and config/smoke.yaml)."""
    import argparse
    import glob

    import yaml

    parser = argparse.ArgumentParser(prog="python -m dogs.experiments._resources", description=main.__doc__)
    parser.add_argument("command", choices=["table", "calibrate"])
    parser.add_argument("folder", nargs="?", help="benchmark files (calibrate): results/.../benchmarks")
    parser.add_argument("configs", nargs="*", help="config files of the run, in merge order")
    args = parser.parse_args(argv)

    def merged(paths):
        from snakemake.utils import update_config

        out: dict = {}
        for path in paths:
            update_config(out, yaml.safe_load(open(path)))
        return out

    if args.command == "table":
        schema = yaml.safe_load(open("config/schema.yaml"))
        full = merged(["config/config.yaml"])
        print(scaling_table(schema, [full, merged(["config/config.yaml", "config/smoke.yaml"])]))
        return 0
    if not args.folder:
        parser.error("calibrate needs the folder of benchmark files")
    config = merged(args.configs or ["config/config.yaml", "config/smoke.yaml"])
    files = sorted(glob.glob(os.path.join(args.folder, "**", "*.tsv"), recursive=True))
    rules = {w.rule for family in _TIME_ESTIMATORS for w in estimate_work(family, config[family])}
    overhead, rates = calibrate(files, config, rules)
    print(f"JOB_OVERHEAD_SECONDS = {overhead:.3g}")
    print("JOB_RATES = {")
    for rule, rate in rates.items():
        print(f'    "{rule}": {rate:.3g},')
    print("}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
