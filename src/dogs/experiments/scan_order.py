r"""He, De Sa, Mitliagkas & Ré (2016), *Scan order in Gibbs sampling*: Table 1 and Figure 2, computed exactly.

Steps (each one Snakemake rule of ``rules/scan_order.smk``)::

    python -m dogs.experiments.scan_order mixing --model NAME --out CSV        # Fig. 2a / Table 1, one model
    python -m dogs.experiments.scan_order islands --reduced-out CSV --efficiency-out CSV
    python -m dogs.experiments.scan_order island-mass --out CSV                # Fig. 2b
    python -m dogs.experiments.scan_order permutations --model NAME --out CSV  # Fig. 2c
    python -m dogs.experiments.scan_order summarise ...                        # mixing_times.csv, exponents, claims
    python -m dogs.experiments.scan_order plot-fig2a|plot-fig2b|plot-fig2c ...

all with ``--settings JSON`` (the ``scan_order`` slice of the config) and ``--seed`` (recorded; nothing
here is random). Mixing times are exact (:mod:`dogs.exact.chains`):
:math:`t_{mix}(\epsilon) = \min\{t : \max_{x_0} \|\delta_{x_0} P^{(t)} - \pi\|_{TV} \le \epsilon\}`,
:math:`\epsilon = 1/4`, counted in single-variable updates.

"Best" and "worst" systematic scan: the minimum and maximum over *all* permutations of the
variables when there are at most ``enumerate_max_variables`` variables and at most
``enumerate_max_states`` states; otherwise, for models invariant under every relabelling of the
variables (discrete pyramid, memorize and repeat), any order (all are equivalent); otherwise the
paper's named best and worst orders. Every row says which (``order_source``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from dogs.claims import claim, write_claims
from dogs.exact.chains import evolve, mixing_time, systematic_mixing_times
from dogs.experiments.common import Stopwatch, base_parser
from dogs.io import atomic_path, write_csv, write_meta
from dogs.models.scan_order import (
    MIN_N,
    MODEL_NAMES,
    bridge_efficiency,
    island_masses,
    make_model,
    reduced_two_islands,
    state_count,
    two_islands,
)

__all__ = [
    "SCANS",
    "PERMUTATION_MODELS",
    "SHORT_NAMES",
    "check_settings",
    "model_mixing_rows",
    "reduced_islands_rows",
    "bridge_efficiency_rows",
    "island_mass_table",
    "permutation_table",
    "parse_order",
    "fit_exponents",
    "main",
]

SCANS = ("random", "best_systematic", "worst_systematic")
#: Smallest one-step probability kept in the reduced two-islands chain: 1 - p then keeps >= 6 digits of p.
REDUCED_MIN_PROBABILITY = 1e-10
PAPER_ORDER_SCANS = ("paper_best_order", "paper_worst_order")
PERMUTATION_MODELS = ("sequence_of_dependencies", "two_islands")
SHORT_NAMES = {
    "sequence_of_dependencies": "seqdep",
    "two_islands": "islands",
    "discrete_pyramid": "pyramid",
    "memorize_and_repeat": "memorize",
    "soft_dependencies": "soft",
}
SCAN_SHORT = {"random": "random", "best_systematic": "best", "worst_systematic": "worst"}
ALL_PERMUTATIONS = "all permutations"
SYMMETRIC = "any order (all equivalent by symmetry)"
NAMED = "paper's named order"

_REQUIRED = {
    "epsilon": float,
    "M_factor": float,
    "bridge_weight": float,
    "modified_bridge_weight": float,
    "negligible_bridge_weight": float,
    "max_states": int,
    "enumerate_max_variables": int,
    "enumerate_max_states": int,
    "fit_fraction": float,
    "exponent_tolerance": float,
    "closed_form_tolerance": float,
    "n_values": dict,
    "reduced_two_islands_n": list,
    "fig2b": dict,
    "fig2c": dict,
}


def log(message: str) -> None:
    """Progress line for the rule's log file."""
    print(message, flush=True)


# ------------------------------------------------------------------------------------------------
# settings


def _int_list(value, key, minimum):
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} must be a non-empty list of integers")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{key} must contain integers, got {v!r}")
        if v < minimum:
            raise ValueError(f"{key}: n={v} is too small (minimum {minimum})")
    if len(set(value)) != len(value):
        raise ValueError(f"{key} must not repeat a value")
    return sorted(value)


def check_settings(settings: dict) -> dict:
    """Validate the ``scan_order`` config slice; ``ValueError`` naming the key, before any computation.

    Also checks that every requested model size fits ``max_states`` (cheap state counts).
    """
    if not isinstance(settings, dict):
        raise ValueError("settings must be a mapping (the scan_order config slice)")
    for key, kind in _REQUIRED.items():
        if key not in settings:
            raise ValueError(f"settings lack the key scan_order.{key}")
        value = settings[key]
        if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"scan_order.{key} must be a number, got {value!r}")
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"scan_order.{key} must be an integer, got {value!r}")
        if kind in (dict, list) and not isinstance(value, kind):
            raise ValueError(f"scan_order.{key} must be a {kind.__name__}")
    unknown = set(settings) - set(_REQUIRED)
    if unknown:
        raise ValueError(f"unknown settings key(s): {', '.join('scan_order.' + k for k in sorted(unknown))}")
    if not 0 < settings["epsilon"] < 0.5:
        raise ValueError(f"scan_order.epsilon must lie in (0, 1/2), got {settings['epsilon']}")
    for key in ("M_factor", "bridge_weight", "modified_bridge_weight", "negligible_bridge_weight", "exponent_tolerance", "closed_form_tolerance"):
        if not settings[key] > 0:
            raise ValueError(f"scan_order.{key} must be positive, got {settings[key]}")
    if not 0 < settings["fit_fraction"] <= 1:
        raise ValueError(f"scan_order.fit_fraction must lie in (0, 1], got {settings['fit_fraction']}")
    for key in ("max_states", "enumerate_max_variables", "enumerate_max_states"):
        if settings[key] < 1:
            raise ValueError(f"scan_order.{key} must be >= 1, got {settings[key]}")
    n_values = settings["n_values"]
    if set(n_values) != set(MODEL_NAMES):
        missing = sorted(set(MODEL_NAMES) - set(n_values))
        extra = sorted(set(n_values) - set(MODEL_NAMES))
        raise ValueError(f"scan_order.n_values must have one list per model; missing {missing}, unknown model {extra}")
    for name in MODEL_NAMES:
        ns = _int_list(n_values[name], f"scan_order.n_values.{name}", MIN_N[name])
        if len(ns) < 2:
            raise ValueError(f"scan_order.n_values.{name} needs at least two values of n to fit an exponent")
        for n in ns:
            count = state_count(name, n)
            if count > settings["max_states"]:
                raise ValueError(
                    f"scan_order.n_values.{name}: n={n} gives {count} states, more than "
                    f"scan_order.max_states={settings['max_states']} allows"
                )
    reduced = _int_list(settings["reduced_two_islands_n"], "scan_order.reduced_two_islands_n", MIN_N["two_islands"])
    if max(reduced) > 34:
        raise ValueError("scan_order.reduced_two_islands_n: n > 34 is beyond double precision (2^-n underflows 1 - q)")
    fig2b, fig2c = settings["fig2b"], settings["fig2c"]
    if set(fig2b) != {"n", "updates"}:
        raise ValueError("scan_order.fig2b must have exactly the keys n and updates")
    _int_list([fig2b["n"]], "scan_order.fig2b.n", MIN_N["two_islands"])
    if isinstance(fig2b["updates"], bool) or not isinstance(fig2b["updates"], int) or fig2b["updates"] < 1:
        raise ValueError(f"scan_order.fig2b.updates must be a positive integer, got {fig2b['updates']!r}")
    if state_count("two_islands", fig2b["n"]) > settings["max_states"]:
        raise ValueError(f"scan_order.fig2b.n={fig2b['n']} exceeds scan_order.max_states")
    if set(fig2c) != {f"{m}_n" for m in PERMUTATION_MODELS}:
        raise ValueError(f"scan_order.fig2c must have exactly the keys {[f'{m}_n' for m in PERMUTATION_MODELS]}")
    for name in PERMUTATION_MODELS:
        (n,) = _int_list([fig2c[f"{name}_n"]], f"scan_order.fig2c.{name}_n", MIN_N[name])
        n_vars = 2 * n if name == "two_islands" else n
        if n_vars > 9:
            raise ValueError(f"scan_order.fig2c.{name}_n={n}: {n_vars} variables have too many permutations (limit 9)")
    return settings


# ------------------------------------------------------------------------------------------------
# compute


def _perm_index(perms: np.ndarray, order: np.ndarray) -> int:
    return int(np.flatnonzero(np.all(perms == order, axis=1))[0])


def model_mixing_rows(name: str, n: int, settings: dict) -> list[dict]:
    """Exact mixing times of one model at one ``n``: random, best and worst systematic, and the paper's orders.

    Returns rows with ``model, n, scan, t_mix, order_source, order, n_variables, n_states, M,
    bridge_weight, seconds``; ``scan`` is one of :data:`SCANS` or :data:`PAPER_ORDER_SCANS`.
    """
    eps = settings["epsilon"]
    with Stopwatch() as build:
        model = make_model(name, n, M_factor=settings["M_factor"], bridge_weight=settings["bridge_weight"], max_states=settings["max_states"])
        kernels, pi = model.kernels(), model.stationary()
    # every support state is a start, also those whose probability underflows to 0 in double precision
    # (M^-k far below 1e-308): the default of mixing_time (pi > 0) would drop exactly the worst starts
    every = np.arange(model.n_states)
    base = {
        "model": name, "n": n, "n_variables": model.n_vars, "n_states": model.n_states,
        "M": model.parameters.get("M", np.nan), "bridge_weight": model.parameters.get("bridge_weight", np.nan),
    }
    rows = []

    def add(scan, t_mix, source, order, seconds):
        rows.append({**base, "scan": scan, "t_mix": int(t_mix), "order_source": source,
                     "order": "" if order is None else model.order_names(order), "seconds": round(seconds, 4)})

    with Stopwatch() as sw:
        t_random = mixing_time(kernels, pi, "random", epsilon=eps, starts=model.random_scan_starts)
    add("random", t_random, "random scan", None, sw.seconds + build.seconds)
    named_best, named_worst = model.named_orders["best_systematic"], model.named_orders["worst_systematic"]
    if model.n_vars <= settings["enumerate_max_variables"] and model.n_states <= settings["enumerate_max_states"]:
        with Stopwatch() as sw:
            perms = np.array(list(itertools.permutations(range(model.n_vars))), dtype=np.int64)
            times = systematic_mixing_times(kernels, pi, perms, epsilon=eps, starts=every)
        best, worst = int(np.argmin(times)), int(np.argmax(times))
        add("best_systematic", times[best], ALL_PERMUTATIONS, perms[best], sw.seconds)
        add("worst_systematic", times[worst], ALL_PERMUTATIONS, perms[worst], 0.0)
        add("paper_best_order", times[_perm_index(perms, named_best)], ALL_PERMUTATIONS, named_best, 0.0)
        add("paper_worst_order", times[_perm_index(perms, named_worst)], ALL_PERMUTATIONS, named_worst, 0.0)
    elif model.orders_equivalent:
        with Stopwatch() as sw:
            t = mixing_time(kernels, pi, named_best, epsilon=eps, starts=every, progress=log)
        for scan, order in (("best_systematic", named_best), ("worst_systematic", named_best),
                            ("paper_best_order", named_best), ("paper_worst_order", named_worst)):
            add(scan, t, SYMMETRIC, order, sw.seconds if scan == "best_systematic" else 0.0)
    else:
        with Stopwatch() as sw_best:
            t_best = mixing_time(kernels, pi, named_best, epsilon=eps, starts=every, progress=log)
        with Stopwatch() as sw_worst:
            t_worst = mixing_time(kernels, pi, named_worst, epsilon=eps, starts=every, progress=log)
        add("best_systematic", t_best, NAMED, named_best, sw_best.seconds)
        add("worst_systematic", t_worst, NAMED, named_worst, sw_worst.seconds)
        add("paper_best_order", t_best, NAMED, named_best, 0.0)
        add("paper_worst_order", t_worst, NAMED, named_worst, 0.0)
    return rows


def reduced_islands_rows(settings: dict) -> list[dict]:
    """Mixing times of the reduced two-islands chain (:class:`~dogs.models.scan_order.ReducedTwoIslands`).

    For every ``n`` of ``reduced_two_islands_n`` and two bridge weights: the Table 1 model's
    (``bridge_weight``) and a negligible one (``negligible_bridge_weight``, the §3.2 analysis);
    random scan and the paper's named best and worst orders. Sizes whose island-to-bridge
    probability falls below :data:`REDUCED_MIN_PROBABILITY` are skipped (logged): double precision
    would no longer resolve ``1 - p``.
    """
    rows = []
    for weight in (settings["bridge_weight"], settings["negligible_bridge_weight"]):
        for n in settings["reduced_two_islands_n"]:
            chain = reduced_two_islands(n, weight)
            to_bridge = chain.kernels[0][0, 1]
            if to_bridge < REDUCED_MIN_PROBABILITY:
                log(f"reduced two islands, bridge weight {weight}: n={n} skipped, P(island -> bridge) = {to_bridge:.1e} "
                    f"< {REDUCED_MIN_PROBABILITY:g} would lose digits in 1 - P")
                continue
            for scan in SCANS:
                order = "random" if scan == "random" else chain.named_orders[scan]
                t = mixing_time(list(chain.kernels), chain.stationary, order, epsilon=settings["epsilon"], max_updates=10**16)
                rows.append({"model": "two_islands_reduced", "n": n, "bridge_weight": weight, "scan": scan,
                             "t_mix": int(t), "order_source": "random scan" if scan == "random" else NAMED})
        log(f"reduced two islands, bridge weight {weight}: n = {settings['reduced_two_islands_n']} done")
    return rows


def bridge_efficiency_rows(settings: dict) -> list[dict]:
    """Exact bridge efficiencies (§3.2, App. C) of the full two-islands model, for every ``n`` of Fig. 2a."""
    rows = []
    for weight in (settings["negligible_bridge_weight"], settings["bridge_weight"]):
        for n in settings["n_values"]["two_islands"]:
            model = two_islands(n, weight)
            for scan in SCANS:
                order = "random" if scan == "random" else model.named_orders[scan]
                rows.append({"n": n, "bridge_weight": weight, "scan": scan,
                             "efficiency": bridge_efficiency(model, order)})
    return rows


def island_mass_table(settings: dict) -> pd.DataFrame:
    r"""Fig. 2b: mass on island y over updates, started from :math:`\pi` conditioned on island x.

    Two islands with the modified bridge weight (§4: 0.1), ``n = fig2b.n``; random scan, the best
    systematic scan :math:`x_1, y_1, x_2, y_2, \dots` and the worst :math:`x_1..x_n, y_1..y_n`.
    """
    n, updates = settings["fig2b"]["n"], settings["fig2b"]["updates"]
    model = two_islands(n, settings["modified_bridge_weight"])
    kernels, pi = model.kernels(), model.stationary()
    on_x = model.states[:, :n].sum(axis=1) > 0
    start = np.where(on_x, pi, 0.0)
    start /= start.sum()
    stationary_y = float(island_masses(model, pi)[2])
    frames = []
    for scan in SCANS:
        if scan == "random":
            indices = np.full(updates, -1, dtype=np.int64)
        else:
            order = model.named_orders[scan]
            indices = np.resize(order, updates)
        path = evolve(start, kernels, indices, return_path=True)
        masses = island_masses(model, path)
        frames.append(pd.DataFrame({
            "scan": scan, "update": np.arange(updates + 1), "mass_island_x": masses[:, 0],
            "mass_bridge": masses[:, 1], "mass_island_y": masses[:, 2], "stationary_island_y": stationary_y,
            "n": n, "bridge_weight": settings["modified_bridge_weight"],
            "order": "random scan" if scan == "random" else model.order_names(model.named_orders[scan]),
        }))
    return pd.concat(frames, ignore_index=True)


def permutation_table(name: str, settings: dict) -> pd.DataFrame:
    """Fig. 2c: the exact mixing time of every permutation (sorted) and of random scan."""
    if name not in PERMUTATION_MODELS:
        raise ValueError(f"model must be one of {PERMUTATION_MODELS} for Fig. 2c, got model={name!r}")
    n = settings["fig2c"][f"{name}_n"]
    weight = settings["modified_bridge_weight"]
    model = make_model(name, n, M_factor=settings["M_factor"], bridge_weight=weight, max_states=settings["max_states"])
    kernels, pi = model.kernels(), model.stationary()
    eps = settings["epsilon"]
    every = np.arange(model.n_states)
    perms = np.array(list(itertools.permutations(range(model.n_vars))), dtype=np.int64)
    times = systematic_mixing_times(kernels, pi, perms, epsilon=eps, starts=every)
    t_random = mixing_time(kernels, pi, "random", epsilon=eps, starts=model.random_scan_starts)
    order = np.argsort(times, kind="stable")
    frame = pd.DataFrame({
        "model": name, "n": n, "bridge_weight": weight if name == "two_islands" else np.nan,
        "scan": "systematic", "rank": np.arange(1, len(perms) + 1), "t_mix": times[order],
        "order": [model.order_names(p) for p in perms[order]],
    })
    random_row = pd.DataFrame([{"model": name, "n": n, "bridge_weight": frame["bridge_weight"].iloc[0],
                                "scan": "random", "rank": 0, "t_mix": t_random, "order": "random scan"}])
    return pd.concat([random_row, frame], ignore_index=True)


# ------------------------------------------------------------------------------------------------
# summarise


_ORDER_PATTERN = re.compile(r"^\s*(?:n\^\(?(?P<num>\d+)(?:/(?P<den>\d+))?\)?|(?P<lin>n))?\s*(?:\*?\s*(?P<exp>2\^n))?\s*$")


def parse_order(text: str) -> tuple[float, float]:
    r"""Parse an order of growth ``n``, ``n^2``, ``n^(3/2)``, ``2^n``, ``n 2^n`` into :math:`(\alpha, \beta)`.

    The order is :math:`2^{\alpha n} n^{\beta}`.
    """
    m = _ORDER_PATTERN.match(str(text))
    if not m or not (m.group("num") or m.group("lin") or m.group("exp")):
        raise ValueError(f"cannot parse the order of growth {text!r}")
    if m.group("num"):
        beta = int(m.group("num")) / int(m.group("den") or 1)
    else:
        beta = 1.0 if m.group("lin") else 0.0
    return (1.0 if m.group("exp") else 0.0), beta


def _fit_points(frame: pd.DataFrame, fraction: float) -> pd.DataFrame:
    frame = frame.sort_values("n")
    k = max(3, math.ceil(fraction * len(frame)))
    return frame.tail(min(k, len(frame)))


def fit_exponents(frame: pd.DataFrame, exponential: bool, fraction: float) -> dict:
    r"""Fitted growth of ``t_mix`` against ``n`` on the largest ``fraction`` of the ``n`` values (at least 3).

    Polynomial: slope :math:`\beta` of :math:`\log t` on :math:`\log n`, and the local slope between
    the two largest ``n``. Exponential (``exponential=True``): :math:`\alpha` = slope of
    :math:`\log_2 t` on ``n``, and :math:`\beta` = slope of :math:`\log(t / 2^n)` on :math:`\log n`.
    """
    pts = _fit_points(frame, fraction)
    n = pts["n"].to_numpy(dtype=float)
    t = pts["t_mix"].to_numpy(dtype=float)
    out = {"n_min": int(n.min()), "n_max": int(n.max()), "points": len(n)}
    if exponential:
        out["alpha"] = float(np.polyfit(n, np.log2(t), 1)[0])
        out["beta"] = float(np.polyfit(np.log(n), np.log(t) - n * math.log(2), 1)[0])
        out["local_beta"] = float(np.log((t[-1] / 2 ** n[-1]) / (t[-2] / 2 ** n[-2])) / np.log(n[-1] / n[-2]))
    else:
        out["alpha"] = 0.0
        out["beta"] = float(np.polyfit(np.log(n), np.log(t), 1)[0])
        out["local_beta"] = float(np.log(t[-1] / t[-2]) / np.log(n[-1] / n[-2]))
    return out


def _verdict(error: float, tolerance: float) -> str:
    if error <= tolerance:
        return "reproduced"
    if error <= 2 * tolerance:
        return "partly"
    return "not reproduced"


def _order_text(alpha: float, beta: float) -> str:
    if alpha:
        return f"2^({alpha:.2f} n) n^{beta:.2f}"
    return f"n^{beta:.2f}"


def load_scan_order_claims(path) -> dict:
    """The paper's side of this family's claims: ``{id: row}`` from ``config/paper_claims.yaml``."""
    rows = yaml.safe_load(Path(path).read_text()) or []
    return {row["id"]: row for row in rows if row.get("family") == "scan_order"}


def table1_id(model: str, scan: str) -> str:
    return f"he2016_table1_{SHORT_NAMES[model]}_{SCAN_SHORT[scan]}"


def exponents_table(details: pd.DataFrame, reduced: pd.DataFrame, paper: dict, settings: dict) -> pd.DataFrame:
    """Fitted exponents of every (model, scan) beside Table 1's orders (read from the paper's claims)."""
    records = []
    for name in MODEL_NAMES:
        for scan in SCANS:
            claim_id = table1_id(name, scan)
            if claim_id not in paper:
                raise ValueError(f"config/paper_claims.yaml lacks the row {claim_id}")
            paper_order = str(paper[claim_id]["paper_value"])
            alpha_p, beta_p = parse_order(paper_order)
            sources = []
            data = details[(details["model"] == name) & (details["scan"] == scan)]
            sources.append(("full model", data))
            if name == "two_islands":
                red = reduced[(reduced["bridge_weight"] == settings["bridge_weight"]) & (reduced["scan"] == scan)]
                sources.insert(0, ("reduced model (islands mix instantly)", red))
            for k, (label, frame) in enumerate(sources):
                fit = fit_exponents(frame, exponential=bool(alpha_p), fraction=settings["fit_fraction"])
                error = max(abs(fit["alpha"] - alpha_p), abs(fit["beta"] - beta_p))
                order_sources = sorted(set(frame["order_source"])) if "order_source" in frame else []
                records.append({
                    "claim_id": claim_id, "model": name, "scan": scan, "fit_on": label, "primary": k == 0,
                    "paper_order": paper_order, "paper_alpha": alpha_p, "paper_beta": beta_p,
                    "fitted_alpha": fit["alpha"], "fitted_beta": fit["beta"], "local_beta": fit["local_beta"],
                    "fit_n_min": fit["n_min"], "fit_n_max": fit["n_max"], "fit_points": fit["points"],
                    "n_values": " ".join(str(v) for v in sorted(frame["n"])),
                    "orders": "; ".join(order_sources),
                    "error": error, "verdict": _verdict(error, settings["exponent_tolerance"]),
                })
    return pd.DataFrame.from_records(records)


def exponents_markdown(table: pd.DataFrame, details: pd.DataFrame, settings: dict, smoke: bool) -> str:
    """Table 1 of the paper beside our fitted exponents, as Markdown."""
    lines = ["# He et al. (2016), Table 1: mixing-time orders, ours beside the paper's", ""]
    if smoke:
        lines += ["**SMOKE RUN: small n only; exponents are NOT comparable with the paper.**", ""]
    lines += [
        f"Exact mixing times t_mix(eps = {settings['epsilon']}) in single-variable updates, worst case over all",
        "starting states. Our exponent is the least-squares slope of log t_mix on log n over the largest",
        f"{settings['fit_fraction']:.0%} of the n values (at least 3 points); 'local' is the slope between the two",
        "largest n. Two islands (exponential): t_mix ~ 2^(alpha n) n^beta, alpha = slope of log2 t_mix on n and",
        "beta = slope of log(t_mix / 2^n) on log n. Verdict: |ours - paper| <= "
        f"{settings['exponent_tolerance']} reproduced, <= {2 * settings['exponent_tolerance']} partly.",
        "",
        "| model | scan | paper (Table 1) | ours: fitted | local | fit n | best/worst over | fit on | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in table.iterrows():
        lines.append(
            f"| {r['model'].replace('_', ' ')} | {r['scan'].replace('_', ' ')} | {r['paper_order']} | "
            f"{_order_text(r['fitted_alpha'], r['fitted_beta'])} | {r['local_beta']:.2f} | "
            f"{r['fit_n_min']}..{r['fit_n_max']} | {r['orders'] or '-'} | {r['fit_on']} | {r['verdict']} |"
        )
    lines += ["", "## Exact mixing times", "",
              "Where best/worst were found over all permutations, the order achieving them is listed in",
              "`mixing/<model>.csv`. M = M_factor x (forward transitions from bottom to top state), "
              f"M_factor = {settings['M_factor']}.", "",
              "| model | n | states | random | best systematic | worst systematic | M | seconds |", "|---|---|---|---|---|---|---|---|"]
    wide = details[details["scan"].isin(SCANS)].pivot_table(index=["model", "n"], columns="scan", values="t_mix").reset_index()
    extra = details.groupby(["model", "n"]).agg(n_states=("n_states", "first"), M=("M", "first"), seconds=("seconds", "sum")).reset_index()
    wide = wide.merge(extra, on=["model", "n"])
    wide["model"] = pd.Categorical(wide["model"], MODEL_NAMES, ordered=True)
    for _, r in wide.sort_values(["model", "n"]).iterrows():
        m_text = "-" if pd.isna(r["M"]) else f"{r['M']:g}"
        lines.append(f"| {r['model'].replace('_', ' ')} | {r['n']} | {r['n_states']} | {int(r['random'])} | "
                     f"{int(r['best_systematic'])} | {int(r['worst_systematic'])} | {m_text} | {r['seconds']:.2f} |")
    return "\n".join(lines) + "\n"


def _hitting(path: pd.DataFrame, fraction: float) -> float:
    """First update at which island y holds ``fraction`` of its stationary mass (inf if never)."""
    reached = path["update"][path["mass_island_y"] >= fraction * path["stationary_island_y"]]
    return float(reached.iloc[0]) if len(reached) else math.inf


def build_claims(details, reduced, efficiency, island_mass, permutations, exponents, settings) -> dict:
    """Measured side of every scan_order claim, with verdicts computed from the numbers.

    Verdict rules (our choices, stated in each claim's text): Table 1 exponents within
    ``exponent_tolerance`` (twice: partly); closed forms within ``closed_form_tolerance`` relative;
    Fig. 2b: the worst scan needs at least twice the updates of random and best to put half the
    stationary mass on the other island; Fig. 2c sequence of dependencies: at most 5% (and at least
    one) of the permutations mix in half the median permutation's time, and none is slower than
    random scan; Fig. 2c two islands: at most 15% (and at least one) take 1.5 times the median, and
    none is faster than half of random scan's time (the bridge-efficiency limit, 1 vs 1/2).
    """
    tol, rel = settings["exponent_tolerance"], settings["closed_form_tolerance"]
    claims = {}
    for _, r in exponents[exponents["primary"]].iterrows():
        over = "" if r["scan"] == "random" else f"; best/worst over {r['orders']}"
        ours = (f"{_order_text(r['fitted_alpha'], r['fitted_beta'])} (fit n = {r['fit_n_min']}..{r['fit_n_max']}, "
                f"{r['fit_on']}; local slope {r['local_beta']:.2f}{over})")
        claims[r["claim_id"]] = claim(ours, r["verdict"], fitted_alpha=r["fitted_alpha"], fitted_beta=r["fitted_beta"],
                                      local_beta=r["local_beta"], paper_alpha=r["paper_alpha"], paper_beta=r["paper_beta"])

    seq = details[details["model"] == "sequence_of_dependencies"]
    best = seq[seq["scan"] == "paper_best_order"].sort_values("n")
    hits = int((best["t_mix"] == best["n"]).sum())
    claims["he2016_s31_best_one_sweep"] = claim(
        f"t_mix(x1..xn) = n at {hits} of {len(best)} values of n ({best['n'].min()}..{best['n'].max()}, M = {settings['M_factor']:g} n)",
        "reproduced" if hits == len(best) else ("partly" if hits >= len(best) / 2 else "not reproduced"),
        n=best["n"].tolist(), t_mix=best["t_mix"].tolist())
    worst = seq[seq["scan"] == "paper_worst_order"].sort_values("n")
    formula = worst["n"] * (worst["n"] - 1) + 1
    hits = int((worst["t_mix"] == formula).sum())
    claims["he2016_s31_worst_closed_form"] = claim(
        f"t_mix(xn..x1) = n(n-1)+1 at {hits} of {len(worst)} values of n ({worst['n'].min()}..{worst['n'].max()})",
        "reproduced" if hits == len(worst) else ("partly" if hits >= len(worst) / 2 else "not reproduced"),
        n=worst["n"].tolist(), t_mix=worst["t_mix"].tolist())

    def efficiency_at(weight):
        sub = efficiency[np.isclose(efficiency["bridge_weight"], weight)]
        n_max = int(sub["n"].max())
        at = sub[sub["n"] == n_max].set_index("scan")["efficiency"]
        return n_max, at

    n_e, eff = efficiency_at(settings["negligible_bridge_weight"])
    errs = [abs(eff["random"] - 0.5) / 0.5, abs(eff["best_systematic"] - 1.0), abs(eff["worst_systematic"] * n_e - 1.0)]
    claims["he2016_s32_bridge_efficiency"] = claim(
        f"random {eff['random']:.4f}, best {eff['best_systematic']:.4f}, worst {eff['worst_systematic']:.4f} = "
        f"{eff['worst_systematic'] * n_e:.3f}/n (n = {n_e}, bridge weight {settings['negligible_bridge_weight']:g})",
        _verdict(max(errs), rel), **{k: float(v) for k, v in eff.items()})
    n_e, eff = efficiency_at(settings["bridge_weight"])
    errs = [abs(eff["random"] - 0.5) / 0.5, abs(eff["best_systematic"] - 2 / 3) / (2 / 3), abs(eff["worst_systematic"] * n_e / 2 - 1.0)]
    claims["he2016_appC_bridge_efficiency"] = claim(
        f"random {eff['random']:.4f}, best {eff['best_systematic']:.4f}, worst {eff['worst_systematic']:.4f} = "
        f"{eff['worst_systematic'] * n_e:.3f}/n (n = {n_e}, bridge weight {settings['bridge_weight']:g})",
        _verdict(max(errs), rel), **{k: float(v) for k, v in eff.items()})

    red = reduced[np.isclose(reduced["bridge_weight"], settings["negligible_bridge_weight"])]
    n_r = int(red["n"].max())
    at = red[red["n"] == n_r].set_index("scan")["t_mix"].astype(float)
    ratio_best = at["random"] / at["best_systematic"]
    ratio_worst = at["worst_systematic"] / at["random"]
    claims["he2016_s32_ratio_random_best"] = claim(
        f"t_mix(random)/t_mix(best) = {ratio_best:.3f} (reduced model, n = {n_r}, bridge weight {settings['negligible_bridge_weight']:g})",
        _verdict(abs(ratio_best / 2 - 1), rel), ratio=float(ratio_best), n=n_r)
    claims["he2016_s32_ratio_worst_random"] = claim(
        f"t_mix(worst)/t_mix(random) = {ratio_worst:.2f} = {ratio_worst / (n_r / 2):.3f} x n/2 (reduced model, n = {n_r})",
        _verdict(abs(ratio_worst / (n_r / 2) - 1), rel), ratio=float(ratio_worst), n=n_r)

    pyr = details[(details["model"] == "discrete_pyramid") & (details["order_source"] == ALL_PERMUTATIONS)]
    if len(pyr):
        wide = pyr.pivot_table(index="n", columns="scan", values="t_mix")
        equal = int((wide["best_systematic"] == wide["worst_systematic"]).sum())
        claims["he2016_s33_pyramid_all_orders_equal"] = claim(
            f"min = max over all permutations at {equal} of {len(wide)} enumerated n ({', '.join(str(v) for v in wide.index)})",
            "reproduced" if equal == len(wide) else "not reproduced", n=wide.index.tolist())

    hit = {scan: _hitting(island_mass[island_mass["scan"] == scan], 0.5) for scan in SCANS}
    fast = max(hit["random"], hit["best_systematic"])
    factor = hit["worst_systematic"] / fast
    n_b = int(island_mass["n"].iloc[0])
    claims["he2016_s4_fig2b"] = claim(
        f"updates until island y holds half its stationary mass: random {hit['random']:g}, best {hit['best_systematic']:g}, "
        f"worst {hit['worst_systematic']:g} ({factor:.1f}x slower; n = {n_b}, bridge weight {settings['modified_bridge_weight']:g})",
        "reproduced" if factor >= 2 else ("partly" if factor > 1 else "not reproduced"), **{k: v for k, v in hit.items()})

    for name, key in (("sequence_of_dependencies", "he2016_s4_fig2c_seqdep"), ("two_islands", "he2016_s4_fig2c_islands")):
        sub = permutations[permutations["model"] == name]
        t_r = float(sub.loc[sub["scan"] == "random", "t_mix"].iloc[0])
        t_s = sub.loc[sub["scan"] == "systematic", "t_mix"].to_numpy(dtype=float)
        n_p = int(sub["n"].iloc[0])
        median = float(np.median(t_s))
        if name == "sequence_of_dependencies":
            frac_fast = float(np.mean(t_s <= median / 2))
            slowest_ratio = float(t_s.max() / t_r)
            ok = [0 < frac_fast <= 0.05, slowest_ratio <= 1.0 + rel]
            claims[key] = claim(
                f"{frac_fast:.2%} of the {t_s.size} permutations mix in at most half the median permutation's time "
                f"(fastest {t_s.min():g}, median {median:g}, random scan {t_r:g}); slowest permutation / random = "
                f"{slowest_ratio:.2f} (n = {n_p})",
                "reproduced" if all(ok) else ("partly" if any(ok) else "not reproduced"),
                fraction_fast=frac_fast, slowest_over_random=slowest_ratio, t_random=t_r, median=median)
        else:
            frac_slow = float(np.mean(t_s >= 1.5 * median))
            fastest_ratio = float(t_s.min() / t_r)
            ok = [0 < frac_slow <= 0.15, fastest_ratio >= 0.5 * (1 - rel)]
            claims[key] = claim(
                f"{frac_slow:.2%} of the {t_s.size} permutations take at least 1.5x the median permutation's time "
                f"(slowest {t_s.max():g} = {t_s.max() / t_r:.2f}x random scan's {t_r:g}); fastest permutation / random = "
                f"{fastest_ratio:.2f} (a factor 1/2 is the bridge-efficiency limit); {np.unique(t_s).size} distinct values "
                f"(n = {n_p}, bridge weight {settings['modified_bridge_weight']:g})",
                "reproduced" if all(ok) else ("partly" if any(ok) else "not reproduced"),
                fraction_slow=frac_slow, fastest_over_random=fastest_ratio, t_random=t_r, median=median,
                distinct_values=int(np.unique(t_s).size))
    return claims


# ------------------------------------------------------------------------------------------------
# command line


def _write_table(frame: pd.DataFrame, path, args, seconds, extra=None) -> None:
    write_csv(frame, path)
    write_meta(path, settings=args.settings, seed=args.seed, elapsed_seconds=seconds, extra=extra)


def _read_many(paths) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


def main(argv=None) -> int:
    parser = base_parser(__doc__.splitlines()[0])
    parser.add_argument("step", choices=["mixing", "islands", "island-mass", "permutations", "summarise",
                                         "plot-fig2a", "plot-fig2b", "plot-fig2c"])
    parser.add_argument("--model", help="model name (mixing, permutations)")
    parser.add_argument("--out", help="output file")
    parser.add_argument("--reduced-out")
    parser.add_argument("--efficiency-out")
    parser.add_argument("--mixing", nargs="*", default=[], help="per-model mixing CSVs (summarise)")
    parser.add_argument("--reduced")
    parser.add_argument("--efficiency")
    parser.add_argument("--island-mass")
    parser.add_argument("--permutations", nargs="*", default=[])
    parser.add_argument("--paper-claims")
    parser.add_argument("--exponents")
    parser.add_argument("--mixing-out")
    parser.add_argument("--exponents-out")
    parser.add_argument("--markdown-out")
    parser.add_argument("--claims-out")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    settings = check_settings(args.settings)

    if args.step == "mixing":
        if args.model not in MODEL_NAMES:
            raise ValueError(f"--model must be one of {MODEL_NAMES}, got model={args.model!r}")
        with Stopwatch() as sw:
            rows = []
            for n in settings["n_values"][args.model]:
                with Stopwatch() as one:
                    new = model_mixing_rows(args.model, n, settings)
                rows += new
                summary = ", ".join(f"{r['scan']} {r['t_mix']}" for r in new if r["scan"] in SCANS)
                log(f"{args.model} n={n} ({new[0]['n_states']} states): {summary} [{one.seconds:.2f} s]")
        _write_table(pd.DataFrame(rows), args.out, args, sw.seconds)
    elif args.step == "islands":
        with Stopwatch() as sw:
            reduced = pd.DataFrame(reduced_islands_rows(settings))
        _write_table(reduced, args.reduced_out, args, sw.seconds)
        with Stopwatch() as sw:
            eff = pd.DataFrame(bridge_efficiency_rows(settings))
        log(eff.to_string(index=False))
        _write_table(eff, args.efficiency_out, args, sw.seconds)
    elif args.step == "island-mass":
        with Stopwatch() as sw:
            table = island_mass_table(settings)
        _write_table(table, args.out, args, sw.seconds)
        log(f"island mass curves: n = {settings['fig2b']['n']}, {settings['fig2b']['updates']} updates [{sw.seconds:.2f} s]")
    elif args.step == "permutations":
        with Stopwatch() as sw:
            table = permutation_table(args.model, settings)
        _write_table(table, args.out, args, sw.seconds)
        log(f"{args.model}: {len(table) - 1} permutations [{sw.seconds:.2f} s]")
    elif args.step == "summarise":
        with Stopwatch() as sw:
            details = _read_many(args.mixing)
            reduced = pd.read_csv(args.reduced)
            efficiency = pd.read_csv(args.efficiency)
            island_mass = pd.read_csv(args.island_mass)
            permutations = _read_many(args.permutations)
            paper = load_scan_order_claims(args.paper_claims)
            exponents = exponents_table(details, reduced, paper, settings)
            claims = build_claims(details, reduced, efficiency, island_mass, permutations, exponents, settings)
            unknown = sorted(set(claims) - set(paper))
            if unknown:
                raise ValueError(f"config/paper_claims.yaml lacks the rows {', '.join(unknown)}")
        mixing = details[details["scan"].isin(SCANS)][["model", "n", "scan", "t_mix"]]
        mixing = mixing.assign(model=pd.Categorical(mixing["model"], MODEL_NAMES, ordered=True),
                               scan=pd.Categorical(mixing["scan"], SCANS, ordered=True)).sort_values(["model", "n", "scan"])
        _write_table(mixing.astype({"model": str, "scan": str}), args.mixing_out, args, sw.seconds,
                     extra={"epsilon": settings["epsilon"], "unit": "single-variable updates", "models": "full (not reduced)"})
        _write_table(exponents, args.exponents_out, args, sw.seconds)
        with atomic_path(args.markdown_out) as tmp:
            tmp.write_text(exponents_markdown(exponents, details, settings, args.smoke))
        write_claims(args.claims_out, "scan_order", claims, smoke=args.smoke)
        write_meta(args.claims_out, settings=args.settings, seed=args.seed, elapsed_seconds=sw.seconds)
        for key, value in claims.items():
            log(f"{key}: {value['verdict']}: {value['ours']}")
    else:
        from dogs.plotting import scan_order as plots
        from dogs.plotting.style import save_figure

        if args.step == "plot-fig2a":
            fig = plots.figure_mixing_vs_n(_read_many(args.mixing), pd.read_csv(args.reduced), pd.read_csv(args.exponents),
                                           bridge_weight=settings["bridge_weight"], epsilon=settings["epsilon"], smoke=args.smoke)
        elif args.step == "plot-fig2b":
            fig = plots.figure_island_mass(pd.read_csv(args.island_mass), smoke=args.smoke)
        else:
            fig = plots.figure_permutations(_read_many(args.permutations), epsilon=settings["epsilon"], smoke=args.smoke)
        save_figure(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
