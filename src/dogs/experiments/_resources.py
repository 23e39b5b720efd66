"""The resource guard: the memory a config slice asks for, estimated before anything is allocated.

Each experiment family has an estimator that turns its settings into the largest allocations one job
of the family makes, each named by the config key that drives it (the grid side, the scan lengths,
the number of chains, ...). The estimates are deliberately generous upper bounds from the array sizes
the code allocates (bytes per variable, per scan step, per chain and recorded point), not
measurements: their purpose is to refuse a config that cannot fit long before it is tried, with a
message that names the key, the estimate and the limit.

The limit is ``resources.max_memory_gb`` from the config when given, else :data:`DEFAULT_FRACTION` of
the machine's physical memory. The Snakefile checks every family before planning any job, and the
experiment shell checks its slice again before a step runs (direct command-line use).
"""

from __future__ import annotations

import math
import os

__all__ = ["DEFAULT_FRACTION", "ResourceError", "check_config_memory", "check_memory", "estimate_memory",
           "memory_limit_bytes"]

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
    """``(number of lengths, sum of lengths)`` of a ``{start, stop, step | per_decade}`` grid, without building it."""
    start, stop = int(grid["start"]), int(grid["stop"])
    if stop < start:
        return 0, 0
    if grid.get("step"):
        count = (stop - start) // int(grid["step"]) + 1
        return count, count * (start + start + (count - 1) * int(grid["step"])) // 2
    decades = math.log10(max(stop, 1) / max(start, 1))
    count = int(decades * int(grid.get("per_decade", 1))) + 2
    return count, count * stop


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
    # chains.py bounds its dense batches itself; the sparse kernels hold about n * states entries of 16 bytes
    return {"scan_order.max_states": s["max_states"] * 64 * 16 * 8}


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
    return {
        "annular_ising.side": p * _PER_VARIABLE + 8.0 * 2 ** min(2 * s["side"] + 1, 1000),  # torus treewidth 2 side
        "annular_ising.hmc_samples": s["hmc_samples"] * 64 * (p + 2 * p) * 8,  # estimator sums per sample event
    }


def _boltzmann(s: dict) -> dict[str, float]:
    out = {}
    for name, spec in s["datasets"].items():
        d = spec.get("units", 6)
        out[f"boltzmann.datasets.{name}"] = (spec["chains"] * d * d * 16 + spec.get("data_points", 2000) * d * 8
                                             + s["outer_samples"] * d * d * 8 * len(s["samplers"])
                                             + spec["inner_samples"] * 64 * d * 8
                                             + (8.0 * 2 ** min(d, 1000) if d <= 30 else 0.0))  # log Z by enumeration
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
