r"""He, De Sa, Mitliagkas & Ré (2016), *Scan order in Gibbs sampling*: Table 1 and Figure 2, computed exactly.

The models, exact mixing times and two-islands analyses are :mod:`dogs.counterexamples`; this module
turns the ``scan_order`` config slice into result tables, Table 1 beside the paper's orders, the
family's measured claims and Figs. 2a-c. Mixing times are exact or exactly bracketed
(:mod:`dogs.exact.chains`, :mod:`dogs.counterexamples.levels`):
:math:`t_{mix}(\epsilon) = \min\{t : \max_{x_0} \|\delta_{x_0} P^{(t)} - \pi\|_{TV} \le \epsilon\}`,
:math:`\epsilon = 1/4`, counted in single-variable updates; nothing here is random (``--seed`` is
only recorded). "Best" and "worst" systematic scan: over all permutations when there are at most
``enumerate_max_variables`` variables and ``enumerate_max_states`` states, else as
:mod:`dogs.counterexamples.mixing` says; every row names its ``order_source`` and ``method``. The
random scan of memorize and repeat and soft dependencies (App. A) runs on their level chains at the
``level_chain_n`` sizes, far beyond the full state space; their systematic scans on the full model
(``n_values``), beyond ``bracket_min_states`` states through the top-state bracket.

Steps (``python -m dogs.experiments.scan_order <step> ...``, see :mod:`dogs.workflow.shell`; each
is one rule of ``rules/scan_order.smk``):

``compute-mixing``        output ``mixing``: one model (wildcard ``scan_model``) at every ``n`` of
                          ``n_values``: random, best and worst systematic scan, the paper's orders
                          (Fig. 2a, Table 1); App. A models: random scan on the level chain at every
                          ``n`` of ``level_chain_n``.
``compute-islands``       outputs ``reduced`` (the reduced two-islands chain of §4 at every
                          ``reduced_two_islands_n``) and ``efficiency`` (bridge efficiencies, §3.2, App. C).
``compute-island-mass``   output ``mass``: Fig. 2b, mass on the other island over updates.
``compute-permutations``  output ``permutations``: Fig. 2c, every permutation of one model
                          (wildcard ``perm_model``).
``summarise``             inputs ``mixing`` (every model), ``reduced``, ``efficiency``, ``mass``,
                          ``permutations`` (both models), ``paper_claims``; outputs ``mixing_times``
                          (model, n, scan, t_mix, t_mix_upper where bracketed, method), ``exponents``
                          and ``markdown`` (Table 1 beside the paper's orders) and ``claims``.
``plot-fig2a``            inputs ``mixing``, ``reduced``, ``exponents``; output ``figure``.
``plot-fig2b``            input ``mass``; output ``figure``.
``plot-fig2c``            input ``permutations``; output ``figure``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dogs.claims import load_paper_claims, measured, worded_in_code, verdict
from dogs.counterexamples import (
    ALL_PERMUTATIONS,
    LEVEL_MODELS,
    LEVELS_BRACKET,
    LEVELS_EXACT,
    MIN_LOWER_TERMS_POINTS,
    MODEL_NAMES,
    SCANS,
    bridge_efficiencies,
    fit_exponents,
    fit_with_lower_terms,
    interval_errors,
    island_mass_curves,
    level_chain,
    level_chain_rows,
    make_model,
    order_text,
    parse_order,
    permutation_mixing_table,
    reduced_mixing_rows,
    scan_mixing_rows,
    state_count,
    two_islands,
)
from dogs.counterexamples.levels import level_chain_memory_bytes, level_chain_updates
from dogs.exact.chains import MAX_STATES
from dogs.io import atomic_path, write_csv, write_meta
from dogs.workflow.cost import Work
from dogs.workflow.shell import Experiment, SettingsError

__all__ = ["EXPERIMENT", "PERMUTATION_MODELS", "SHORT_NAMES", "check_settings", "exponents_table",
           "exponents_markdown", "build_claims", "load_scan_order_claims", "parse_order"]

FAMILY = "scan_order"
#: The models of Fig. 2c (every permutation of their variables).
PERMUTATION_MODELS = ("sequence_of_dependencies", "two_islands")
#: Short model names in the claim ids of config/claims/he2016.yaml (``he2016_table1_<model>_<scan>``).
SHORT_NAMES = {
    "sequence_of_dependencies": "seqdep",
    "two_islands": "islands",
    "discrete_pyramid": "pyramid",
    "memorize_and_repeat": "memorize",
    "soft_dependencies": "soft",
}
SCAN_SHORT = {"random": "random", "best_systematic": "best", "worst_systematic": "worst"}


def check_settings(settings: dict) -> None:
    """The checks that span several keys (the schema checks each key on its own): model sizes against ``max_states``,
    and the level chains' top-state mass against ``epsilon``.

    Counting states and building a level chain are cheap; building a model too large for exact
    computation is not, so every size the config asks for is checked here, before any step runs.
    """
    limit = min(settings["max_states"], MAX_STATES)
    for name in MODEL_NAMES:
        for n in settings["n_values"][name]:
            count = state_count(name, n)
            if count > limit:
                raise SettingsError(f"config key scan_order.n_values.{name}: n={n} gives {count} states, more than "
                                    f"scan_order.max_states={settings['max_states']} (and the exact-chain limit "
                                    f"{MAX_STATES}) allows")
    for name in LEVEL_MODELS:
        for n in settings["level_chain_n"][name]:
            top = level_chain(name, n, M_factor=settings["M_factor"]).upper_tail_low()[-1]
            if top < 1 - settings["epsilon"]:
                raise SettingsError(f"config key scan_order.level_chain_n.{name}: at n={n}, M_factor="
                                    f"{settings['M_factor']} leaves pi(top) >= {top:.3f} < 1 - epsilon, too little for "
                                    f"the level chain's bound; raise scan_order.M_factor")
    sizes = [("fig2b.n", "two_islands", settings["fig2b"]["n"])]
    sizes += [(f"fig2c.{name}_n", name, settings["fig2c"][f"{name}_n"]) for name in PERMUTATION_MODELS]
    for key, name, n in sizes:
        count = state_count(name, n)
        if count > limit:
            raise SettingsError(f"config key scan_order.{key}: n={n} gives {count} states, more than "
                                f"scan_order.max_states={limit} allows")


# ------------------------------------------------------------------------------------------ the memory model
# What one job needs, from its config slice alone: memory (bytes) and run time (seconds). scan_order_memory has the
# guard's estimator signature, settings -> {config key: bytes}, deliberately generous upper bounds from the arrays
# the code allocates; scan_order_seconds gives rough run times per key on an unloaded 2-core machine (orders of
# magnitude, for planning, not a limit).
#
# Measured peaks (resident memory of the whole process, on a loaded 2-core machine): memorize and repeat
# n = 8 (1,431,049 states, 8 variables) about 1.3 GB and 35 s; soft dependencies n = 8 (101,474 states) about
# 0.35 GB and 6 s, n = 9 (1,590,617 states) 1.6 GB and 55 s; the level chain of memorize and repeat at n = 48
# (4609 levels, 122,437 updates) a few MB and 30 s.

#: A full model's states (int64 per variable), one sparse kernel per variable, one recursion vector per
#: variable and the temporaries of building them, per state and variable (generous: 1.3 GB measured at
#: 1.43 million states and 8 variables, against 1.47 GB estimated).
BYTES_PER_STATE_AND_VARIABLE = 128
#: The dense batches of exact systematic mixing times (:mod:`dogs.exact.chains` bounds them itself).
DENSE_BATCH_BYTES = 768 * 2**20
#: Seconds per level-vector update of a level chain, and per state and variable of a full model (unloaded).
_SECONDS_PER_LEVEL_UPDATE = 1.5e-9
_SECONDS_PER_STATE_AND_VARIABLE = 2.0e-6


def _variables(name: str, n: int) -> int:
    return 2 * n if name == "two_islands" else n


def scan_order_memory(settings: dict) -> dict[str, float]:
    """``{config key: bytes}`` of one scan-order job: the largest full model ``max_states`` admits (with the most
    variables any model of ``n_values`` has among those near that size), the dense batches, and the level chains."""
    limit = int(settings["max_states"])
    variables = 1
    for name in MODEL_NAMES:
        for n in settings["n_values"][name]:
            if state_count(name, n) * 8 >= limit:  # models within a factor 8 of the cap set the width
                variables = max(variables, _variables(name, n))
    if variables == 1:
        variables = max(_variables(name, n) for name in MODEL_NAMES for n in settings["n_values"][name])
    out = {
        "scan_order.max_states": float(limit) * variables * BYTES_PER_STATE_AND_VARIABLE,
        "scan_order.enumerate_max_states": float(DENSE_BATCH_BYTES),
    }
    chains = settings.get("level_chain_n") or {}
    out["scan_order.level_chain_n"] = max((level_chain_memory_bytes(name, n) for name in LEVEL_MODELS
                                           for n in chains.get(name, [])), default=0.0)
    return out


def scan_order_seconds(settings: dict) -> dict[str, float]:
    """``{config key: seconds}``: rough run times of the full models of every ``n_values`` entry and of the level chains."""
    out = {}
    for name in MODEL_NAMES:
        states = sum(min(state_count(name, n), int(settings["max_states"])) * _variables(name, n)
                     for n in settings["n_values"][name])
        out[f"scan_order.n_values.{name}"] = states * _SECONDS_PER_STATE_AND_VARIABLE
    for name in LEVEL_MODELS:
        work = sum(level_chain_updates(name, n) for n in (settings.get("level_chain_n") or {}).get(name, []))
        out[f"scan_order.level_chain_n.{name}"] = work * _SECONDS_PER_LEVEL_UPDATE
    return out


def memory_needed(s: dict) -> dict[str, float]:
    """The memory model: ``{config key: bytes}`` of one job (:mod:`dogs.workflow.cost`)."""
    # Fig. 2b keeps, for each of three scans, the distribution over the 2^(n+1) - 1 states after every update
    # (measured: 3.5 kB per update at n = 6, 127 states).
    states_2b = 2 ** (s["fig2b"]["n"] + 1) - 1
    # below bracket_min_states states a systematic scan's worst case follows a distribution from every start:
    # states^2 numbers for the largest such model
    exact_states = min(s["bracket_min_states"], s["max_states"])
    return {**scan_order_memory(s), "scan_order.bracket_min_states": float(exact_states) ** 2 * 8,
            "scan_order.fig2b.updates": s["fig2b"]["updates"] * (3 * states_2b * 8 + 3 * 9 * 8)}


def work_needed(s: dict) -> list[Work]:
    """The work model: the :class:`~dogs.workflow.cost.Work` of each compute rule."""
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


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


def _write_table(frame: pd.DataFrame, path, ctx, extra=None) -> None:
    write_csv(frame, path)
    write_meta(path, settings=ctx.settings, seed=ctx.seed, elapsed_seconds=ctx.elapsed(), extra=extra)


def _read_many(paths) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


def _model_wildcard(ctx, wildcard: str, allowed) -> str:
    name = ctx.wildcard(wildcard, str)
    if name not in allowed:
        raise SettingsError(f"wildcard {wildcard}={name!r} must be one of {', '.join(allowed)}")
    return name


# ------------------------------------------------------------------------------------------------
# compute


@EXPERIMENT.step("compute-mixing")
def compute_mixing(ctx):
    """Fig. 2a / Table 1: mixing times of one model at every ``n`` of ``n_values``, and its level chain's (App. A models)."""
    cfg = ctx.settings
    name = _model_wildcard(ctx, "scan_model", MODEL_NAMES)
    out = ctx.output("mixing")
    rows = []
    levels = name in LEVEL_MODELS  # random scan from the level chain at level_chain_n, not from the full model
    for n in cfg["n_values"][name]:
        started = ctx.elapsed()
        model = make_model(name, n, M_factor=cfg["M_factor"], bridge_weight=cfg["bridge_weight"], max_states=cfg["max_states"])
        new = scan_mixing_rows(model, cfg["epsilon"], enumerate_max_variables=cfg["enumerate_max_variables"],
                               enumerate_max_states=cfg["enumerate_max_states"],
                               bracket_min_states=cfg["bracket_min_states"], random=not levels, progress=ctx.log.info)
        rows += new
        summary = ", ".join(f"{r['scan']} {_bracket_text(r)}" for r in new if r["scan"] in SCANS)
        ctx.log.info("%s n=%d (%d states): %s [%.2f s]", name, n, model.n_states, summary, ctx.elapsed() - started)
        del model
    if levels:
        rows += level_chain_rows(name, cfg["level_chain_n"][name], M_factor=cfg["M_factor"], epsilon=cfg["epsilon"],
                                 progress=ctx.log.info)
    _write_table(pd.DataFrame(rows), out, ctx)


def _bracket_text(row) -> str:
    upper = row.get("t_mix_upper")
    return f"{row['t_mix']}" if upper is None or pd.isna(upper) else f"[{row['t_mix']}, {int(upper)}]"


@EXPERIMENT.step("compute-islands")
def compute_islands(ctx):
    """The reduced two-islands chain (Fig. 2a, §4) and exact bridge efficiencies of the full model (§3.2, App. C)."""
    cfg = ctx.settings
    reduced_out, efficiency_out = ctx.output("reduced"), ctx.output("efficiency")
    reduced = reduced_mixing_rows(cfg["reduced_two_islands_n"], (cfg["bridge_weight"], cfg["negligible_bridge_weight"]),
                                  cfg["epsilon"], progress=ctx.log.info)
    _write_table(pd.DataFrame(reduced), reduced_out, ctx)
    rows = []
    for weight in (cfg["negligible_bridge_weight"], cfg["bridge_weight"]):
        for n in cfg["n_values"]["two_islands"]:
            for scan, efficiency in bridge_efficiencies(two_islands(n, weight)).items():
                rows.append({"n": n, "bridge_weight": weight, "scan": scan, "efficiency": efficiency})
    efficiency = pd.DataFrame(rows)
    ctx.log.info("bridge efficiencies:\n%s", efficiency.to_string(index=False))
    _write_table(efficiency, efficiency_out, ctx)


@EXPERIMENT.step("compute-island-mass")
def compute_island_mass(ctx):
    """Fig. 2b: mass on the other island over updates, two islands with the modified bridge weight (§4: 0.1)."""
    cfg, out = ctx.settings, ctx.output("mass")
    n, updates = cfg["fig2b"]["n"], cfg["fig2b"]["updates"]
    table = island_mass_curves(two_islands(n, cfg["modified_bridge_weight"]), updates)
    _write_table(table, out, ctx)
    ctx.log.info("island mass curves: n = %d, %d updates", n, updates)


@EXPERIMENT.step("compute-permutations")
def compute_permutations(ctx):
    """Fig. 2c: the exact mixing time of every permutation of one model (bridge weight 0.1), and of random scan."""
    cfg = ctx.settings
    name = _model_wildcard(ctx, "perm_model", PERMUTATION_MODELS)
    out = ctx.output("permutations")
    model = make_model(name, cfg["fig2c"][f"{name}_n"], M_factor=cfg["M_factor"],
                       bridge_weight=cfg["modified_bridge_weight"], max_states=cfg["max_states"])
    table = permutation_mixing_table(model, cfg["epsilon"])
    _write_table(table, out, ctx)
    ctx.log.info("%s: %d permutations", name, len(table) - 1)


# ------------------------------------------------------------------------------------------------
# summarise


def table1_id(model: str, scan: str) -> str:
    """The claim id of Table 1's order for ``model`` under ``scan``, e.g. ``he2016_table1_seqdep_best``."""
    return f"he2016_table1_{SHORT_NAMES[model]}_{SCAN_SHORT[scan]}"


#: Closed forms of systematic mixing times checked on every computed n: (text, formula, first n, last n, whose, order).
#: One that holds at every computed n decides its Table 1 row (the reading of each row says why it continues).
CLOSED_FORMS = {
    ("sequence_of_dependencies", "best_systematic"): ("n", lambda n: n, 2, None, "paper, §3.1", "n"),
    ("sequence_of_dependencies", "worst_systematic"): ("n(n-1)+1", lambda n: n * (n - 1) + 1, 2, None, "paper, §3.1",
                                                       "n^2"),
    ("memorize_and_repeat", "best_systematic"): ("3n^2-3n+1", lambda n: 3 * n * n - 3 * n + 1, 2, None, "ours", "n^2"),
    ("memorize_and_repeat", "worst_systematic"): ("3n^2-3n+1", lambda n: 3 * n * n - 3 * n + 1, 2, None, "ours", "n^2"),
    ("soft_dependencies", "best_systematic"): ("3n-5", lambda n: 3 * n - 5, 4, 8, "ours, window 2: n = 4..8", "n"),
}
#: The lower-order terms the derivations of the random scans carry (§3.1, App. A.2, A.3): (text, relative terms
#: (g, k) = n^-g log^k n), fitted by dogs.counterexamples.growth.fit_with_lower_terms; every other row by fit_exponents.
#: Sequence of dependencies: n transitions, each a geometric wait of mean n, whose sum has spread n^(3/2) and a skew
#: of order n.
LOWER_TERMS = {
    ("sequence_of_dependencies", "random"): ("n^(3/2) + n", ((0.5, 0), (1.0, 0))),
    ("memorize_and_repeat", "random"): ("n^2 log n + n^2", ((1.0, 1), (1.0, 0))),
    ("soft_dependencies", "random"): ("n log n + n", ((0.5, 1), (0.5, 0))),
}


def _table1_frame(details: pd.DataFrame, name: str, scan: str) -> pd.DataFrame:
    """The rows Table 1 is fitted on: the level chain for the App. A models' random scan, else the full model."""
    data = details[(details["model"] == name) & (details["scan"] == scan)]
    if "method" in data and name in LEVEL_MODELS and scan == "random":
        data = data[data["method"].isin([LEVELS_EXACT, LEVELS_BRACKET])]
    return data.sort_values("n")


def _fit_bracket(frame: pd.DataFrame, exponential: bool, fraction: float, terms=None) -> dict:
    """The fit on the lower bounds ``t_mix``, its intervals widened by the fit on ``t_mix_upper``.

    :func:`fit_with_lower_terms` when ``terms`` (of :data:`LOWER_TERMS`) are given, else :func:`fit_exponents`.
    Either fit's interval is the union of the two.
    """
    def fit_on(data):
        if terms is not None:
            return fit_with_lower_terms(data, terms, fraction)
        return fit_exponents(data, exponential=exponential, fraction=fraction)

    fit = fit_on(frame[["n", "t_mix"]])
    upper = frame["t_mix_upper"] if "t_mix_upper" in frame else pd.Series(np.nan, index=frame.index)
    fit["bracketed"] = bool(upper.notna().any())
    if fit["bracketed"]:
        high = fit_on(frame.assign(t_mix=upper.fillna(frame["t_mix"]))[["n", "t_mix"]])
        for name in ("alpha", "beta"):
            fit[f"{name}_low"] = min(fit[f"{name}_low"], high[f"{name}_low"])
            fit[f"{name}_high"] = max(fit[f"{name}_high"], high[f"{name}_high"])
    return fit


def _closed_form(name: str, scan: str, frame: pd.DataFrame) -> dict:
    """Where a closed form of Table 1's systematic scans holds exactly among the computed n."""
    if (name, scan) not in CLOSED_FORMS:
        return {"closed_form": "", "closed_form_hits": np.nan, "closed_form_n": "", "closed_form_order": ""}
    text, formula, first, last, whose, order = CLOSED_FORMS[(name, scan)]
    inside = frame[(frame["n"] >= first) & (frame["n"] <= (last if last is not None else np.inf))]
    exact = inside["t_mix_upper"].isna() if "t_mix_upper" in inside else pd.Series(True, index=inside.index)
    hits = int(((inside["t_mix"] == inside["n"].map(formula)) & exact).sum())
    return {"closed_form": f"{text} ({whose})", "closed_form_hits": hits / len(inside) if len(inside) else np.nan,
            "closed_form_n": " ".join(str(v) for v in inside["n"]), "closed_form_order": order}


def _table1_quantities(r) -> dict:
    """The criterion's quantities of a Table 1 row: the exponent errors, and a closed form's share and order."""
    out = {"exponent_error_low": float(r["error_low"]), "exponent_error_high": float(r["error_high"])}
    if r["closed_form"]:
        out["closed_form_share"] = float(r["closed_form_hits"])
        out["closed_form_order_error"] = abs(parse_order(r["closed_form_order"])[1] - float(r["paper_beta"]))
    return out


def _windows_text(n_values) -> str:
    """Soft dependencies' windows floor(sqrt n) over the fitted n: ``2`` or ``17..32``."""
    windows = sorted({math.isqrt(int(v)) for v in n_values})
    return f"{windows[0]}" if len(windows) == 1 else f"{windows[0]}..{windows[-1]}"


def exponents_table(details: pd.DataFrame, reduced: pd.DataFrame, paper: dict, settings: dict) -> pd.DataFrame:
    """Fitted exponents and their intervals for every (model, scan) beside Table 1's orders (read from the paper's claims)."""
    records = []
    for name in MODEL_NAMES:
        for scan in SCANS:
            claim_id = table1_id(name, scan)
            if claim_id not in paper:
                raise SettingsError(f"config/claims/he2016.yaml lacks the row {claim_id}")
            paper_order = str(paper[claim_id]["paper_value"])
            alpha_p, beta_p = parse_order(paper_order)
            sources = [("full model", _table1_frame(details, name, scan))]
            if name in LEVEL_MODELS and scan == "random":
                sources = [("level chain of the full model", sources[0][1])]
            if name == "two_islands":
                red = reduced[(reduced["bridge_weight"] == settings["bridge_weight"]) & (reduced["scan"] == scan)]
                sources.insert(0, ("reduced model (islands mix instantly)", red.sort_values("n")))
            for k, (label, frame) in enumerate(sources):
                lower = LOWER_TERMS.get((name, scan), (None, None))
                if len(frame) < MIN_LOWER_TERMS_POINTS:  # too few n (smoke runs): the fit of every other row
                    lower = (None, None)
                fit = _fit_bracket(frame, bool(alpha_p), settings["fit_fraction"], terms=lower[1])
                low, high = interval_errors(fit, alpha_p, beta_p)
                criterion = paper[claim_id].get("criterion")
                fitted_n = frame["n"].to_numpy()[-fit["points"]:]
                records.append({
                    "claim_id": claim_id, "model": name, "scan": scan, "fit_on": label, "primary": k == 0,
                    "paper_order": paper_order, "paper_alpha": alpha_p, "paper_beta": beta_p,
                    "fitted_alpha": fit["alpha"], "fitted_beta": fit["beta"], "alpha_se": fit["alpha_se"],
                    "beta_se": fit["beta_se"], "local_alpha": fit["local_alpha"], "local_beta": fit["local_beta"],
                    "alpha_low": fit["alpha_low"], "alpha_high": fit["alpha_high"],
                    "beta_low": fit["beta_low"], "beta_high": fit["beta_high"], "corrected": fit["corrected"],
                    "fit_n_min": fit["n_min"], "fit_n_max": fit["n_max"], "fit_points": fit["points"],
                    "n_values": " ".join(str(v) for v in frame["n"]),
                    "t_mix_at_n_max": int(frame["t_mix"].iloc[-1]), "bracketed": fit["bracketed"],
                    "lower_terms": lower[0] or "",
                    "methods": "; ".join(sorted(set(frame["method"].dropna()))) if "method" in frame else "exact (every start followed)",
                    "orders": "; ".join(sorted(set(frame["order_source"].dropna()) - {"random scan"})) if "order_source" in frame else "",
                    "windows": _windows_text(fitted_n) if name == "soft_dependencies" else "",
                    **_closed_form(name, scan, frame),
                    "error_low": low, "error_high": high,
                })
                records[-1]["verdict"] = verdict(criterion, _table1_quantities(records[-1])) if criterion else "not judged"
    return pd.DataFrame.from_records(records)


def _interval_text(row) -> str:
    """``[lo, hi]`` of beta (and alpha for an exponential order)."""
    parts = [f"alpha [{row['alpha_low']:.2f}, {row['alpha_high']:.2f}]"] if row["paper_alpha"] else []
    d = 3 if row.get("lower_terms") else 2  # the jackknife intervals are narrower than 0.01
    parts.append(f"beta [{row['beta_low']:.2f}, {row['beta_high']:.2f}]" if row["paper_alpha"]
                 else f"[{row['beta_low']:.{d}f}, {row['beta_high']:.{d}f}]")
    return ", ".join(parts)


def _local_text(row) -> str:
    if row["paper_alpha"]:
        return f"2^({row['local_alpha']:.2f} n) n^{row['local_beta']:.2f}"
    return f"{row['local_beta']:.2f}"


def exponents_markdown(table: pd.DataFrame, details: pd.DataFrame, settings: dict, smoke: bool) -> str:
    """Table 1 of the paper beside our fitted exponents and their intervals, as Markdown."""
    lines = ["# He et al. (2016), Table 1: mixing-time orders, ours beside the paper's", ""]
    if smoke:
        lines += ["**SMOKE RUN: small n only; exponents are NOT comparable with the paper.**", ""]
    lines += [
        f"Mixing times t_mix(eps = {settings['epsilon']}) in single-variable updates, worst case over all starting",
        "states, exact or bracketed (method column of `mixing/<model>.csv`). Table 1's orders are big-O statements;",
        "exact values carry no noise, so the uncertainty of an exponent is that of extrapolating past the lower-order",
        "terms. 'corrected': least squares of log t = c + alpha n log 2 + beta log n + d/n (t = a 2^(alpha n) n^beta",
        f"(1 + d/n)) on the largest {settings['fit_fraction']:.0%} of the n values (at least 4 points, 5 for two",
        "islands); 'local': the pure power law through the two largest n (three for two islands). The interval spans",
        "both, the corrected fit widened by two standard errors, and the fit on the upper bounds where values are",
        "bracketed. Table 1's orders differ in exponent by at least 1/2: the verdict is 'reproduced' when the whole",
        "interval lies within 1/4 of the paper's exponent, 'not reproduced' when it lies entirely further, and",
        "'inconclusive' when it straddles that line (criteria of config/claims/he2016.yaml).",
        "The random scans of sequence of dependencies, memorize and repeat and soft dependencies fit the lower-order",
        "terms their derivations carry (n^(3/2) + n, n^2 log n + n^2, n log n + n: t = a n^beta (1 + b u_1 + c u_2));",
        "exact values leave no noise, so the interval is the union of estimate +- 2 standard errors over the fit and",
        "every leave-one-out fit (a jackknife over n): these rows read 'reproduced' when it contains the paper's",
        "exponent and both its ends lie within 1/4 of it, 'inconclusive' when it contains it but is wider, 'not",
        "reproduced' otherwise. A closed form that holds exactly at every computed n decides its row by its own order",
        "(column 'closed form'); one that fails somewhere leaves the fit to say 'not reproduced' (interval entirely",
        "beyond 1/4) or 'inconclusive'.",
        "",
        "| model | scan | paper (Table 1) | ours: corrected fit | interval | local | fit n | t_mix at largest n | closed form | fit on | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in table.iterrows():
        closed = "-"
        if r["closed_form"]:
            closed = f"{r['closed_form']}: exact at {r['closed_form_hits']:.0%} of n = {r['closed_form_n']}"
        window = f" (windows {r['windows']})" if r["windows"] else ""
        lines.append(
            f"| {r['model'].replace('_', ' ')} | {r['scan'].replace('_', ' ')} | {r['paper_order']} | "
            f"{order_text(r['fitted_alpha'], r['fitted_beta'])} | {_interval_text(r)} | {_local_text(r)} | "
            f"{r['fit_n_min']}..{r['fit_n_max']}{window} | {r['t_mix_at_n_max']:,} | {closed} | {r['fit_on']} | {r['verdict']} |"
        )
    lines += ["", "## Mixing times", "",
              "Best/worst systematic: over all permutations where enumerated (the order is in `mixing/<model>.csv`),",
              "else the paper's named orders or, for models symmetric under relabelling, any order. Random scan of",
              "memorize and repeat and soft dependencies: their level chains (dogs.counterexamples.levels). [a, b]: a",
              f"bracketed value. M from M_factor = {settings['M_factor']} (dogs.counterexamples.models.model_M).", "",
              "| model | n | states | random | best systematic | worst systematic | M | seconds |", "|---|---|---|---|---|---|---|---|"]
    data = details[details["scan"].isin(SCANS)].copy()
    data["value"] = [_bracket_text(r) for r in data.to_dict("records")]
    wide = data.pivot_table(index=["model", "n"], columns="scan", values="value", aggfunc="first").reset_index()
    extra = data.groupby(["model", "n"]).agg(n_states=("n_states", "first"), M=("M", "first"),
                                             seconds=("seconds", "sum")).reset_index()
    wide = wide.merge(extra, on=["model", "n"])
    wide["model"] = pd.Categorical(wide["model"], MODEL_NAMES, ordered=True)
    for _, r in wide.sort_values(["model", "n"]).iterrows():
        m_text = "-" if pd.isna(r["M"]) else f"{r['M']:g}"
        states = "-" if pd.isna(r["n_states"]) else f"{int(r['n_states']):,}"
        cells = [("-" if pd.isna(r.get(scan)) else r[scan]) for scan in SCANS]
        lines.append(f"| {r['model'].replace('_', ' ')} | {r['n']} | {states} | {' | '.join(cells)} | {m_text} | "
                     f"{r['seconds']:.2f} |")
    return "\n".join(lines) + "\n"


def _hitting(path: pd.DataFrame, fraction: float) -> float:
    """First update at which island y holds ``fraction`` of its stationary mass (inf if never)."""
    reached = path["update"][path["mass_island_y"] >= fraction * path["stationary_island_y"]]
    return float(reached.iloc[0]) if len(reached) else math.inf


def _table1_text(r) -> str:
    """The measured side of a Table 1 row, in words."""
    fit = "corrected fit" if r["corrected"] else "pure power law (too few n for the corrected fit)"
    if r["lower_terms"]:
        fit = f"fit with the paper's lower-order terms {r['lower_terms']}, interval over leave-one-out fits"
    text = (f"{order_text(r['fitted_alpha'], r['fitted_beta'])}, interval {_interval_text(r)} ({fit} on n = "
            f"{r['fit_n_min']}..{r['fit_n_max']}, {r['fit_points']} points; local exponent {_local_text(r)}); "
            f"{r['fit_on']}, {r['methods']}")
    if r["orders"]:
        text += f"; best/worst over {r['orders']}"
    if r["windows"]:
        text += f"; window floor(sqrt n) = {r['windows']} over the fitted n"
    text += f"; t_mix = {r['t_mix_at_n_max']:,} at n = {r['fit_n_max']}"
    if r["closed_form"]:
        text += f"; t_mix = {r['closed_form']} exactly at {r['closed_form_hits']:.0%} of n = {r['closed_form_n']}"
    return text


def _table1_details(r) -> dict:
    keys = ("fitted_alpha", "fitted_beta", "alpha_se", "beta_se", "local_alpha", "local_beta", "alpha_low", "alpha_high",
            "beta_low", "beta_high", "paper_alpha", "paper_beta", "fit_n_min", "fit_n_max", "fit_points", "n_values",
            "t_mix_at_n_max", "bracketed", "methods", "windows", "closed_form", "closed_form_hits", "lower_terms")
    out = {}
    for key in keys:
        value = r[key]
        out[key] = value.item() if hasattr(value, "item") else value
    return out


def build_claims(details, reduced, efficiency, island_mass, permutations, exponents, settings) -> dict:
    """Measured side of every scan_order claim (the criteria are in ``config/claims/he2016.yaml``).

    Table 1: ``exponent_error_low`` / ``exponent_error_high``, the nearest and farthest distance of the
    exponents' intervals from the paper's order (:func:`dogs.counterexamples.growth.interval_errors`).
    Closed forms: the share of ``n`` at which they hold exactly, or the largest relative error. Fig. 2b:
    how many times more updates the worst scan needs than the slower of random and best to put half the
    stationary mass on the other island. Fig. 2c: the shares of permutations that are much faster or
    slower than the median permutation, and the fastest and slowest permutation against random scan.
    """
    claims = {}
    for _, r in exponents[exponents["primary"]].iterrows():
        claims[r["claim_id"]] = worded_in_code(_table1_text(r), _table1_quantities(r), **_table1_details(r))
    for _, r in exponents[~exponents["primary"]].iterrows():  # two islands on the full model, beside the reduced chain
        claims[r["claim_id"]]["quantities"]["full_model"] = _table1_details(r)
        claims[r["claim_id"]]["quantities"]["text"] += (f"; full model (n = {r['fit_n_min']}..{r['fit_n_max']}): "
                                          f"{order_text(r['fitted_alpha'], r['fitted_beta'])}, {_interval_text(r)}")

    seq = details[details["model"] == "sequence_of_dependencies"]
    best = seq[seq["scan"] == "paper_best_order"].sort_values("n")
    hits = int((best["t_mix"] == best["n"]).sum())
    claims["he2016_s31_best_one_sweep"] = measured(
        {"share_exact": hits / len(best)}, n=best["n"].tolist(), t_mix=best["t_mix"].tolist(), hits=hits,
        values=len(best), n_min=int(best["n"].min()), n_max=int(best["n"].max()), M_factor=settings["M_factor"])
    worst = seq[seq["scan"] == "paper_worst_order"].sort_values("n")
    formula = worst["n"] * (worst["n"] - 1) + 1
    hits = int((worst["t_mix"] == formula).sum())
    claims["he2016_s31_worst_closed_form"] = measured(
        {"share_exact": hits / len(worst)}, n=worst["n"].tolist(), t_mix=worst["t_mix"].tolist(), hits=hits,
        values=len(worst), n_min=int(worst["n"].min()), n_max=int(worst["n"].max()))

    def efficiency_at(weight):
        sub = efficiency[np.isclose(efficiency["bridge_weight"], weight)]
        n_max = int(sub["n"].max())
        at = sub[sub["n"] == n_max].set_index("scan")["efficiency"]
        return n_max, at

    for key, weight, (random, best, worst_times_n) in (
        ("he2016_s32_bridge_efficiency", settings["negligible_bridge_weight"], (0.5, 1.0, 1.0)),
        ("he2016_appC_bridge_efficiency", settings["bridge_weight"], (0.5, 2 / 3, 2.0)),
    ):
        n_e, eff = efficiency_at(weight)
        errors = [abs(eff["random"] / random - 1), abs(eff["best_systematic"] / best - 1),
                  abs(eff["worst_systematic"] * n_e / worst_times_n - 1)]
        claims[key] = measured(
            {"relative_error": max(errors)}, n=n_e, **{k: float(v) for k, v in eff.items()},
            worst_times_n=float(eff["worst_systematic"] * n_e), bridge_weight=weight)

    red = reduced[np.isclose(reduced["bridge_weight"], settings["negligible_bridge_weight"])]
    n_r = int(red["n"].max())
    at = red[red["n"] == n_r].set_index("scan")["t_mix"].astype(float)
    ratio_best = at["random"] / at["best_systematic"]
    ratio_worst = at["worst_systematic"] / at["random"]
    claims["he2016_s32_ratio_random_best"] = measured(
        {"relative_error": abs(ratio_best / 2 - 1)}, ratio=float(ratio_best), n=n_r,
        bridge_weight=settings["negligible_bridge_weight"])
    claims["he2016_s32_ratio_worst_random"] = measured(
        {"relative_error": abs(ratio_worst / (n_r / 2) - 1)}, ratio=float(ratio_worst), n=n_r,
        ratio_over_half_n=float(ratio_worst / (n_r / 2)))

    pyr = details[(details["model"] == "discrete_pyramid") & (details["order_source"] == ALL_PERMUTATIONS)]
    if len(pyr):
        wide = pyr.pivot_table(index="n", columns="scan", values="t_mix")
        equal = int((wide["best_systematic"] == wide["worst_systematic"]).sum())
        claims["he2016_s33_pyramid_all_orders_equal"] = measured(
            {"share_equal": equal / len(wide)}, n=wide.index.tolist(), equal=equal, enumerated=len(wide))

    small = details[details["scan"].isin(SCANS)]
    small = small[small.groupby("model")["n"].rank(method="dense") <= 2]
    spread = small.groupby(["model", "n"])["t_mix"].agg(lambda t: t.max() / t.min())
    (model_max, n_max), largest = spread.idxmax(), float(spread.max())
    claims["he2016_s4_order_matters_small"] = measured(
        largest, by_model_and_n={f"{m} n={n}": float(v) for (m, n), v in spread.items()},
        largest_model=model_max.replace("_", " "), largest_n=int(n_max),
        spread=[{"model": m.replace("_", " "), "n": int(n), "ratio": float(v)} for (m, n), v in spread.items()])

    hit = {scan: _hitting(island_mass[island_mass["scan"] == scan], 0.5) for scan in SCANS}
    factor = hit["worst_systematic"] / max(hit["random"], hit["best_systematic"])
    n_b = int(island_mass["n"].iloc[0])
    claims["he2016_s4_fig2b"] = measured(
        {"slowdown": factor}, **hit, n=n_b, bridge_weight=settings["modified_bridge_weight"])

    for name, key in (("sequence_of_dependencies", "he2016_s4_fig2c_seqdep"), ("two_islands", "he2016_s4_fig2c_islands")):
        sub = permutations[permutations["model"] == name]
        t_r = float(sub.loc[sub["scan"] == "random", "t_mix"].iloc[0])
        t_s = sub.loc[sub["scan"] == "systematic", "t_mix"].to_numpy(dtype=float)
        n_p = int(sub["n"].iloc[0])
        median = float(np.median(t_s))
        shares = {
            "fraction_fast": float(np.mean(t_s <= median / 2)),  # much faster than the median permutation
            "fraction_slow": float(np.mean(t_s >= 1.5 * median)),  # much slower than the median permutation
            "share_faster_than_random": float(np.mean(t_s < t_r)),
            "slowest_over_random": float(t_s.max() / t_r),
            "fastest_over_random": float(t_s.min() / t_r),
        }
        fastest = int(np.sum(t_s == t_s.min()))
        claims[key] = measured(
            shares, t_random=t_r, median=median, distinct_values=int(np.unique(t_s).size),
            permutations_at_fastest=fastest, permutations=int(t_s.size), n=n_p, fastest=float(t_s.min()),
            slowest=float(t_s.max()))
    return claims


def load_scan_order_claims(path) -> dict:
    """The paper's side of this family's claims: ``{id: row}`` from ``config/claims/he2016.yaml``."""
    return {row["id"]: row for row in load_paper_claims(path) if row["family"] == FAMILY}


@EXPERIMENT.step("summarise")
def summarise(ctx):
    """mixing_times.csv, Table 1 exponents beside the paper's orders (CSV and Markdown), and the claims."""
    cfg = ctx.settings
    outputs = {name: ctx.output(name) for name in ("mixing_times", "exponents", "markdown", "claims")}
    paper = load_scan_order_claims(ctx.input("paper_claims"))
    details = _read_many(ctx.inputs("mixing"))
    reduced = pd.read_csv(ctx.input("reduced"))
    efficiency = pd.read_csv(ctx.input("efficiency"))
    island_mass = pd.read_csv(ctx.input("mass"))
    permutations = _read_many(ctx.inputs("permutations"))
    exponents = exponents_table(details, reduced, paper, cfg)
    claims = build_claims(details, reduced, efficiency, island_mass, permutations, exponents, cfg)
    unknown = sorted(set(claims) - set(paper))
    if unknown:
        raise SettingsError(f"{ctx.input('paper_claims')} lacks the rows {', '.join(unknown)}")
    mixing = details[details["scan"].isin(SCANS)][["model", "n", "scan", "t_mix", "t_mix_upper", "method"]]
    mixing = mixing.assign(model=pd.Categorical(mixing["model"], MODEL_NAMES, ordered=True),
                           scan=pd.Categorical(mixing["scan"], SCANS, ordered=True),
                           t_mix_upper=mixing["t_mix_upper"].astype("Int64")).sort_values(["model", "n", "scan"])
    _write_table(mixing.astype({"model": str, "scan": str}), outputs["mixing_times"], ctx,
                 extra={"epsilon": cfg["epsilon"], "unit": "single-variable updates", "models": "full (not reduced)",
                        "t_mix_upper": "a proven upper bound where t_mix (then a proven lower bound) is bracketed; "
                                       "empty where t_mix is exact"})
    _write_table(exponents, outputs["exponents"], ctx)
    with atomic_path(outputs["markdown"]) as tmp:
        tmp.write_text(exponents_markdown(exponents, details, cfg, ctx.smoke))
    ctx.write_claims(claims)
    write_meta(outputs["claims"], settings=cfg, seed=ctx.seed, elapsed_seconds=ctx.elapsed())


# ------------------------------------------------------------------------------------------------
# plot


@EXPERIMENT.step("plot-fig2a")
def plot_fig2a(ctx):
    """Fig. 2a: mixing time against n, random, best and worst systematic scan, the models of He et al.'s figure
    (output ``figure``) and, as a second figure, the App. A models of their Table 1 (output ``appendix``)."""
    from dogs.plotting import scan_order as plots
    from dogs.plotting.style import save_figure

    tables = (_read_many(ctx.inputs("mixing")), pd.read_csv(ctx.input("reduced")), pd.read_csv(ctx.input("exponents")))
    for output, appendix in (("figure", False), ("appendix", True)):
        if output == "figure" or ctx.has_output(output):
            fig = plots.figure_mixing_vs_n(*tables, bridge_weight=ctx.settings["bridge_weight"],
                                           epsilon=ctx.settings["epsilon"], smoke=ctx.smoke, appendix=appendix)
            save_figure(fig, ctx.output(output))


@EXPERIMENT.step("plot-fig2b")
def plot_fig2b(ctx):
    """Fig. 2b: two islands, mass on the other island over updates."""
    from dogs.plotting import scan_order as plots
    from dogs.plotting.style import save_figure

    save_figure(plots.figure_island_mass(pd.read_csv(ctx.input("mass")), smoke=ctx.smoke), ctx.output("figure"))


@EXPERIMENT.step("plot-fig2c")
def plot_fig2c(ctx):
    """Fig. 2c: sorted mixing times of every permutation, beside random scan."""
    from dogs.plotting import scan_order as plots
    from dogs.plotting.style import save_figure

    fig = plots.figure_permutations(_read_many(ctx.inputs("permutations")), epsilon=ctx.settings["epsilon"], smoke=ctx.smoke)
    save_figure(fig, ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
