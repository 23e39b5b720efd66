"""The cost engine of the workflow: the memory one job and the time all jobs of a config ask for, before anything runs.

Each experiment family declares its own cost in its :class:`~dogs.workflow.shell.Experiment` object
(``memory=``, ``work=``); this module holds what is common to all of them and checks a whole config against the
limits. Every function that looks at more than one family takes the families as an argument (the workflow passes
``dogs.experiments.FAMILIES``), so this module knows no family by name.

**Memory.** A family's memory model turns its settings into the largest allocations one job makes, each named by
the config key that drives it (the grid side, the scan lengths, the number of chains, ...). The estimates are
deliberately generous upper bounds from the array sizes the code allocates (:data:`BYTES_PER_VARIABLE`,
:data:`BYTES_PER_STEP`, per chain and recorded point), not measurements: their purpose is to refuse a config that
cannot fit long before it is tried, with a message that names the key, the estimate and the limit. The limit is
``resources.max_memory_gb`` from the config when given, else :func:`dogs.resources.memory_limit_bytes`'s share of
the machine's physical memory.

**Time.** A family's work model turns its settings into the :class:`Work` of each compute rule: a product of
factors, each named by its config key; :data:`JOB_RATES` (CPU seconds per unit, measured) turns it into seconds,
plus :data:`JOB_OVERHEAD_SECONDS` per job and :data:`JIT_SECONDS_PER_RULE` per rule. :func:`check_config_time`
refuses a config whose estimated CPU hours, all jobs summed, exceed ``resources.max_hours`` (default
:data:`DEFAULT_MAX_HOURS`), naming the key that grew most against the shipped config. :func:`calibrate` measures the
rates again.

**Keys.** Every numeric config key is read by an estimate or marked in ``config/schema.yaml``, beside the key, as
not scaling with the reason (``x-not-scaling``; :mod:`dogs.workflow.keys` records what the estimates read and
prints the table in docs/configuration.md).

The workflow's guard (:mod:`dogs.workflow.guard`) checks every family before planning any job, and the step shell
(:mod:`dogs.workflow.shell`) checks its slice's memory again before a step runs (direct command-line use).
"""

from __future__ import annotations

import math
import os

from dogs.resources import memory_limit_bytes

__all__ = ["BYTES_PER_STEP", "BYTES_PER_VARIABLE", "DEFAULT_MAX_HOURS", "JIT_SECONDS_PER_RULE", "JOB_OVERHEAD_SECONDS",
           "JOB_RATES", "RATE_FROM", "ResourceError", "Work", "calibrate", "check_config_memory", "check_config_time",
           "check_memory", "configured", "estimate_hours", "family_seconds", "grid_sum", "grid_total", "rule_of",
           "time_table", "work_seconds"]

#: Bytes per variable of a model with its influence bound, sampler state and work space (generous).
BYTES_PER_VARIABLE = 256
#: Bytes per step of a stored scan (int64) with its DoGS work arrays (forward values, output).
BYTES_PER_STEP = 32


class ResourceError(ValueError):
    """A config slice whose estimated memory or time exceeds the limit; the message names the key."""


def configured(config: dict, families) -> list:
    """``(family, settings)`` of every family of ``families`` whose config section is in ``config``."""
    return [(family, config[family.config_section]) for family in families
            if family.config_section and isinstance(config.get(family.config_section), dict)]


def grid_sum(grid: dict) -> tuple[int, int]:
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


def grid_total(grid: dict) -> int:
    """Sum of the lengths of a grid, closer for a log-spaced one (the geometric series up to ``stop``)."""
    count, total = grid_sum(grid)
    if grid.get("step") or count == 0:
        return total
    ratio = 10 ** (1 / int(grid["per_decade"]))
    return min(total, int(int(grid["stop"]) * ratio / (ratio - 1)) + int(grid["start"]))


def check_memory(family, settings: dict, limit_bytes: int) -> float:
    """Raise :class:`ResourceError` naming the key when one job of ``family`` (an experiment object) would need more
    than the limit.

    Returns the estimate (bytes): the sum over the keys, as one job may hold all of them at once.
    """
    items = family.estimate_memory(settings)
    total = sum(items.values())
    if total > limit_bytes:
        ranked = sorted(items.items(), key=lambda kv: -kv[1])
        key = ranked[0][0]
        shares = ", ".join(f"{name}: {_gib(value)}" for name, value in ranked[:3] if value > 0.01 * total)
        raise ResourceError(
            f"config key {key}: these settings need an estimated {_gib(total)} of memory in one "
            f"{family.config_section} job ({shares}), more than the limit of {_gib(limit_bytes)}. Reduce {key}, or "
            "raise the limit deliberately with resources.max_memory_gb in the config.")
    return total


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 1024**3:.3g} GiB" if n_bytes < 1e30 else "astronomically many GiB"


def check_config_memory(config: dict, families) -> None:
    """Check every family's section of a whole (validated) config against its limit (the Snakefile's guard)."""
    limit = memory_limit_bytes((config.get("resources") or {}).get("max_memory_gb"))
    for family, settings in configured(config, families):
        check_memory(family, settings, limit)


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


#: CPU seconds of a job that does next to nothing (interpreter, imports, reading and writing a few files): every
#: job pays it. Measured with the rates (JOB_RATES), as the least CPU time of any job of that run.
JOB_OVERHEAD_SECONDS = 0.96

#: CPU seconds the first job of a compute rule spends compiling its numba kernels in a fresh checkout (later jobs
#: load them from numba's cache). Measured in a smoke run from a fresh checkout: the first job of a rule less a
#: later one, 5 to 26 s (ising10_compute_guarantees 27.5 - 1.5, ising40_compute_guarantees 27.3 - 1.8,
#: annular_ising_compute 19.2 - 2.2, boltzmann_compute_chains 14.3 - 1.5, msrc_compute_split 6.8 - 1.5).
JIT_SECONDS_PER_RULE = 20.0

#: CPU seconds per unit of work of each compute rule (:class:`Work`; units as the families' work models count
#: them; ``scan_order_compute_mixing:<model>`` per model). Measured by ``python -m dogs.experiments calibrate
#: results/benchmarks config/config.yaml`` from the CPU times in the benchmark files Snakemake wrote for the
#: compute rules in the timed paper-scale run (``snakemake --cores 2 --forceall all_with_data`` on a quiet 2-core AMD
#: EPYC, numba's cache warm): at the shipped settings the estimate is that run's job time by construction, and it
#: grows with each key as the work does. ``config/calibration.yaml`` measures them again at small settings.
JOB_RATES: dict[str, float] = {
    "annular_ising_compute": 1.8e-08,
    "benchmark_binary_samplers": 2.39e-07,
    "benchmark_dogs": 2.65e-06,
    "benchmark_gibbs": 8.86e-07,
    # not from calibrate: the exact marginals of an 18x18 grid took 19.2 s for 2^18 * 18^2 units
    "benchmarks_uai_mar": 2.26e-07,
    # not from calibrate: one mixed unit (a site update of the vector kernel, the one-chain kernel or THRML),
    # from the many-chain run in docs/performance.md (about 3 CPU minutes for 3.3e10 units on a loaded machine)
    "benchmarks_chains": 6.0e-09,
    # not from calibrate: one site update of the sampling-call benchmark, end to end or raw (the one-chain kernel's
    # 5-10 ns and the vector kernels' 1-2 ns, with the calls' overhead on the small grids)
    "benchmarks_sampling": 6.0e-09,
    # not from calibrate: loading a network and its exact marginals, per clique-table entry allowed (a bound: most
    # networks need far fewer entries than the limit)
    "benchmarks_networks": 1.0e-08,
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
    # themselves, dogs.experiments.scan_order._SECONDS_PER_LEVEL_UPDATE, not by calibrate
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


def estimate_hours(family, settings: dict) -> float:
    """Estimated CPU hours of all compute jobs of ``family`` (an experiment object; start-up and compilation
    included)."""
    return family_seconds(family.estimate_work(settings)) / 3600


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


def check_config_time(config: dict, families, reference: dict | None = None) -> dict[str, float]:
    """Raise :class:`ResourceError` naming the key when the estimated job time of a whole config exceeds
    ``resources.max_hours`` (default :data:`DEFAULT_MAX_HOURS`); return the estimated hours per family.

    The key named is that of the largest compute rule which grew most against ``reference`` (the shipped
    ``config/config.yaml``, when given), so a config that multiplies one count by 10^6 is told which one.
    """
    limit = (config.get("resources") or {}).get("max_hours")
    limit = DEFAULT_MAX_HOURS if limit is None else float(limit)
    objects = {family.config_section: family for family, _ in configured(config, families)}
    works = {name: family.estimate_work(config[name]) for name, family in objects.items()}
    hours = {name: family_seconds(items) / 3600 for name, items in works.items()}
    total = sum(hours.values())
    if total > limit:
        name = max(hours, key=hours.get)
        work = max(works[name], key=work_seconds)
        base = None
        if reference is not None and isinstance(reference.get(name), dict):
            base = next((w for w in objects[name].estimate_work(reference[name]) if w.rule == work.rule), None)
        key = _blame(work, base)
        raise ResourceError(
            f"config key {key}: these settings ask for an estimated {_hours(total * 3600)} of jobs "
            f"({name}: {_hours(hours[name] * 3600)}, most of it in {work.rule}), more than the limit of "
            f"resources.max_hours = {limit:g}. Reduce {key}, or raise the limit deliberately with resources.max_hours "
            "in the config.")
    return hours


def time_table(hours: dict[str, float]) -> str:
    """The lines ``snakemake`` prints before planning: estimated job time per family and in all."""
    lines = ["Estimated job time in CPU hours of all jobs (docs/configuration.md):"]
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


def calibrate(benchmark_files, config: dict, rules, families) -> tuple[float, dict[str, float]]:
    """``(overhead, rates)`` measured from the benchmark files of a complete run of ``config`` (its ``families``).

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
    works = [w for family, settings in configured(config, families) for w in family.estimate_work(settings)]
    compute = {w.rule for w in works}
    overhead = min(job_seconds) if job_seconds else JOB_OVERHEAD_SECONDS
    rates = {}
    for rule in sorted(compute & set(seconds)):
        mine = [w for w in works if w.rule == rule]
        fixed = sum(w.jobs * overhead + w.seconds for w in mine)
        units = sum(w.units for w in mine)
        rates[rule] = max(seconds[rule] - fixed, 0.05 * seconds[rule]) / units if units else 0.0
    return overhead, rates
