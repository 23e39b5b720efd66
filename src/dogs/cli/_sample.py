r"""``dogs sample``: Gibbs estimates of marginals with ArviZ convergence diagnostics.

Each of ``--chains`` chains starts from its own state (by default uniformly random labels, so the chains
start dispersed) and passes through the scan ``--draws`` times; the state after each pass is one draw.
Every pass is a Gibbs kernel that leaves the model's distribution invariant, so each chain is a Markov
chain on the model, and a DoGS scan's certificate (its Dobrushin variation) bounds the error of the
targeted marginals after every pass from any start.

For every reported marginal :math:`P(X_i = k)` the indicator draws :math:`1[X_i = k]` give

- the estimate: their mean over all chains and draws;
- the split, rank-normalised :math:`\hat R` and the bulk and tail effective sample sizes of Vehtari,
  Gelman, Simpson, Carpenter & Bürkner (2021), computed by ArviZ (``arviz.rhat``, ``arviz.ess``);
- the standard error: ArviZ's Monte Carlo standard error of the mean (``arviz.mcse``), the standard
  deviation of the draws over the square root of their effective sample size, so autocorrelated draws
  and chains that disagree are not counted as independent information.

A marginal with :math:`\hat R > 1.01` (the threshold of Vehtari et al.), or whose indicator never
changed in any chain, is flagged ``converged: false`` and a warning goes to standard error: the chains
have not forgotten their starts, and the estimate and its standard error mean little. A marginal whose
indicator is constant in every draw of every chain has no defined :math:`\hat R`, ESS or standard error
(reported as null). ``--save-chains`` writes the draws as an ArviZ ``InferenceData`` (netCDF).
"""

from __future__ import annotations

import warnings as _warnings

import numpy as np

from dogs.cli._checks import InputError, count, output_path, seed as parse_seed
from dogs.cli._commands import make_scan
from dogs.cli._guard import Guard
from dogs.cli._models import cardinalities, load_model, pairwise_only
from dogs.cli._plots import check_mar_request, check_plot, plot_sample

__all__ = ["RHAT_THRESHOLD", "cmd_sample", "diagnose"]

#: Largest split R-hat taken as converged (Vehtari et al. 2021).
RHAT_THRESHOLD = 1.01


def _arviz():
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")  # ArviZ 0.2x announces its coming refactor on import
        import arviz

    return arviz


def diagnose(indicators: np.ndarray) -> dict[str, np.ndarray]:
    """ArviZ diagnostics of indicator draws ``(chains, draws, marginals)``: mean, mcse, r_hat, ess_bulk, ess_tail.

    Marginals whose draws are all equal get NaN for everything but the mean.
    """
    az = _arviz()
    values = np.asarray(indicators, dtype=np.float64)
    out = {"mean": values.mean(axis=(0, 1))}
    with _warnings.catch_warnings(), np.errstate(all="ignore"):
        _warnings.simplefilter("ignore")  # e.g. "more chains than draws", which is no error here
        dataset = az.convert_to_dataset({"x": values})
        out["r_hat"] = np.asarray(az.rhat(dataset, method="rank")["x"].values, dtype=np.float64)
        out["ess_bulk"] = np.asarray(az.ess(dataset, method="bulk")["x"].values, dtype=np.float64)
        out["ess_tail"] = np.asarray(az.ess(dataset, method="tail")["x"].values, dtype=np.float64)
        out["mcse"] = np.asarray(az.mcse(dataset, method="mean")["x"].values, dtype=np.float64)
    constant = values.min(axis=(0, 1)) == values.max(axis=(0, 1))
    for key in ("r_hat", "ess_bulk", "ess_tail", "mcse"):
        out[key][constant] = np.nan
    return out


def _variables(text: str | None, n_vars: int) -> np.ndarray:
    if text is None:
        return np.arange(n_vars)
    try:
        chosen = [count(t.strip(), "--vars", minimum=0) for t in text.split(",")]
    except InputError:
        raise InputError(f"--vars takes variable indices separated by commas, got {text!r}") from None
    if max(chosen) >= n_vars:
        raise InputError(f"--vars indices must lie in 0..{n_vars - 1}, got {max(chosen)}")
    return np.unique(np.array(chosen, dtype=np.int64))


def _starts(spec: str, cards: np.ndarray, chains: int, rng, binary: bool) -> np.ndarray:
    """Starting states ``(chains, p)``: labels drawn uniformly (``random``), or one label everywhere."""
    if spec == "random":
        labels = (rng.random((chains, cards.size)) * cards).astype(np.int64)
    else:
        label = count(spec, "--start", minimum=0)
        if label >= int(cards.min()):
            raise InputError(f"--start must be 'random' or a label every variable has (0..{int(cards.min()) - 1}), "
                             f"got {spec}")
        labels = np.full((chains, cards.size), label, dtype=np.int64)
    return (2 * labels - 1).astype(np.int8) if binary else labels


def cmd_sample(args, guard: Guard):
    from dogs.models.binary import BinaryPairwiseMRF
    from dogs.samplers import run_discrete_gibbs, run_gibbs

    saved = output_path(args.save_chains, "--save-chains", (".nc",))
    chains = count(args.chains, "--chains")
    draws = count(args.draws, "--draws", minimum=4)
    length = None if args.length is None else count(args.length, "--length")
    root = parse_seed(args.seed)
    if args.start != "random":
        count(args.start, "--start", minimum=0)
    model = pairwise_only(load_model(args.model, guard)[0], "sample")
    check_mar_request(args.format, args.vars)
    plot = check_plot(args.plot, model)
    cards = cardinalities(model)
    variables = _variables(args.vars, model.n_vars)
    binary = isinstance(model, BinaryPairwiseMRF)
    diagnosed = variables.size if binary else int(cards[variables].sum())
    guard.sampling(model.n_vars, chains, draws, diagnosed, saved is not None)
    scan = make_scan(args.scan, model.n_vars, length, "--length", guard)

    streams = np.random.SeedSequence(root).spawn(draws + 1)
    state = _starts(args.start, cards, chains, np.random.default_rng(streams[0]), binary)
    labels = np.empty((chains, draws, variables.size), dtype=np.int8 if cards.max() <= 127 else np.int32)
    for k in range(draws):
        if binary:
            state = run_gibbs(model, scan, seed=streams[k + 1], n_chains=chains, initial_state=state).states
            labels[:, k, :] = (state[:, variables] + 1) // 2
        else:
            state = run_discrete_gibbs(model, scan, seed=streams[k + 1], n_chains=chains, initial_state=state).states
            labels[:, k, :] = state[:, variables]

    if binary:
        stats = diagnose(labels)
        rows = []
        for m, i in enumerate(variables.tolist()):
            for k in (0, 1):
                rows.append(_row(i, k, stats, m, complement=k == 0))
    else:
        rows = []
        offsets = np.concatenate([[0], np.cumsum(cards[variables])])
        indicators = np.empty((chains, draws, int(offsets[-1])), dtype=np.int8)
        for m, i in enumerate(variables.tolist()):
            for k in range(int(cards[i])):
                indicators[:, :, offsets[m] + k] = labels[:, :, m] == k
        stats = diagnose(indicators)
        for m, i in enumerate(variables.tolist()):
            rows += [_row(i, k, stats, int(offsets[m]) + k) for k in range(int(cards[i]))]
    if saved is not None:
        _save_chains(saved, labels, variables, args, root, scan.length)

    warnings = _warnings_for(rows, chains, args.start)
    r_hats = [r["r_hat"] for r in rows if r["r_hat"] is not None]
    result = {"n_vars": model.n_vars, "chains": chains, "draws": draws, "scan_length": scan.length, "seed": root,
              "start": args.start, "site_updates": chains * draws * scan.length,
              "converged": all(r["converged"] for r in rows),
              "marginals_not_converged": sum(not r["converged"] for r in rows),
              "max_r_hat": max(r_hats) if r_hats else None,
              "min_ess_bulk": min((r["ess_bulk"] for r in rows if r["ess_bulk"] is not None), default=None),
              "saved_chains": None if saved is None else str(saved), "marginals": rows}
    if plot is not None:
        plot_sample(plot, result)
    return result, warnings


def _number(value) -> float | None:
    return float(value) if np.isfinite(value) else None


def _row(variable: int, state: int, stats: dict, m: int, complement: bool = False) -> dict:
    """One reported marginal; ``complement``: P(state 0) of a binary variable from the diagnostics of state 1."""
    r_hat = stats["r_hat"][m]
    mean = stats["mean"][m]
    return {"variable": variable, "state": state, "probability": float(1.0 - mean if complement else mean),
            "std_error": _number(stats["mcse"][m]), "r_hat": _number(r_hat), "ess_bulk": _number(stats["ess_bulk"][m]),
            "ess_tail": _number(stats["ess_tail"][m]), "converged": bool(np.isfinite(r_hat) and r_hat <= RHAT_THRESHOLD)}


def _warnings_for(rows: list[dict], chains: int, start: str) -> list[str]:
    bad = [r for r in rows if not r["converged"]]
    if not bad:
        return []
    finite = [r for r in bad if r["r_hat"] is not None]
    worst = max(finite, key=lambda r: r["r_hat"]) if finite else bad[0]
    detail = (f"largest {worst['r_hat']:.3g} at variable {worst['variable']}" if finite
              else f"e.g. variable {worst['variable']}, whose chains never changed it")
    starts = "dispersed random starts" if start == "random" else f"all chains starting at label {start}"
    return [f"split R-hat exceeds {RHAT_THRESHOLD} or is undefined for {len(bad)} of {len(rows)} marginals "
            f"({detail}): the {chains} chains ({starts}) disagree or never moved, so these estimates and their "
            "standard errors are not reliable; use a longer scan or more --draws, and check the saved chains"]


def _save_chains(path, labels: np.ndarray, variables: np.ndarray, args, root: int, scan_length: int) -> None:
    from dogs.io import atomic_path

    az = _arviz()
    data = az.from_dict(posterior={"label": labels}, coords={"variable": variables}, dims={"label": ["variable"]},
                        attrs={"model": str(args.model), "scan": str(args.scan), "scan_length": scan_length,
                               "seed": root, "start": str(args.start)})
    with atomic_path(path) as tmp:
        data.to_netcdf(str(tmp))
