r"""``dogs sample``: Gibbs estimates of marginals with ArviZ convergence diagnostics.

Each of ``--chains`` chains starts from its own state (by default uniformly random labels, so the chains
start dispersed), passes through the scan ``--warmup`` times (default 0) to forget its start, those passes
discarded, then ``--draws`` times more; the state after each of these passes is one draw.
Every pass is a Gibbs kernel that leaves the model's distribution invariant, so each chain is a Markov
chain on the model, and a DoGS scan's certificate (its Dobrushin variation) bounds the error of the
targeted marginals after every pass from any start.

For every reported marginal :math:`P(X_i = k)` the indicator draws :math:`1[X_i = k]` give

- the estimate: their mean over all chains and draws;
- the split, rank-normalised :math:`\hat R` and the bulk and tail effective sample sizes of Vehtari,
  Gelman, Simpson, Carpenter & Bürkner (2021), computed by ArviZ (``arviz.rhat``, ``arviz.ess``);
- the standard error: the larger of ArviZ's Monte Carlo standard error of the mean (``arviz.mcse``, the
  standard deviation of the draws over the square root of their effective sample size, so autocorrelated
  draws and chains that disagree are not counted as independent information) and the standard deviation of
  the chains' means over the square root of their number (which estimates no autocorrelation, so a slow
  chain's long excursions count in full; :func:`dogs.sampling_call.chains_standard_error`); where every pass is an
  independent exact draw, the binomial :math:`\sqrt{\hat p (1 - \hat p) / n}`;
- the interval ``lower`` to ``upper``: the probabilities within three standard errors of the estimate, the
  standard error taken at the probability (Wilson's score interval, :func:`dogs.sampling_call.score_interval`;
  for a state never drawn, 0 to its ``unseen_bound``).

A marginal with :math:`\hat R > 1.01` (the threshold of Vehtari et al.), or whose indicator never
changed in any chain, is flagged ``converged: false`` and a warning goes to standard error: the chains
have not forgotten their starts, and the estimate and its standard error mean little. Not so where every
pass is an independent exact draw (``--blocks elimination`` on a model that fits one block): such chains
cannot fail to mix, every marginal counts as converged, and a state never drawn gets the bound of all the
draws. A marginal whose indicator is constant in every draw of every chain has no defined :math:`\hat R`,
ESS or standard error (reported as null). ``--save-chains`` writes the draws as ArviZ data (netCDF;
:mod:`dogs.arviz_interop`).

The work is the library's :func:`dogs.sampling_call.sample` (this module checks the arguments, builds the
scan and formats the result), so the command and the library give the same numbers for the same seed.

``--evidence FILE`` (a UAI ``.evid`` file, :mod:`dogs.models.evidence`) samples the conditional
distribution given the observed values. Results keep the model's variable indices; observed variables
are left out of ``marginals`` and listed under ``evidence``. A systematic or uniform scan is built over
the unobserved variables, so ``--length`` counts steps that update unobserved variables (default: one sweep
of them), as the library's ``length`` does; a scan file's steps on observed variables are skipped (an update
of an observed variable leaves it unchanged).

``--certify`` adds to every marginal DoGS Theorem 8's bound (:mod:`dogs.certificates`): ``bound``,
the total-variation distance between the variable's marginal after one pass of the scan and its
stationary marginal, from any start; ``bound_average``, the bound on the bias of the reported estimate
(the average over the draws after passes W+1..W+D, W the warm-up): the mean over k of min(1, the smallest variation of
j <= k passes), never above ``bound``. Either is null where it is 1 or more (it certifies nothing), with
``bound_reason``. The MAR format (``--format uai-mar``) holds marginals only, so ``--certify`` is refused
with it.
"""

from __future__ import annotations

import warnings as _warnings

import numpy as np

from dogs.cli._checks import InputError, count, output_path, seed as parse_seed
from dogs.cli._commands import make_scan
from dogs.cli._evidence import load_evidence
from dogs.cli._guard import Guard
from dogs.cli._models import load_model
from dogs.models.discrete import cardinalities
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.cli._plots import check_mar_request, check_plot, plot_sample
from dogs.extras import require
from dogs.sampling_call import RHAT_THRESHOLD, diagnose
from dogs.scans.base import SCAN_NAMES

__all__ = ["RHAT_THRESHOLD", "cmd_sample", "diagnose"]


def _variables(text: str | None, n_vars: int) -> np.ndarray | None:
    if text is None:
        return None
    try:
        chosen = [count(t.strip(), "--vars", minimum=0) for t in text.split(",")]
    except InputError:
        raise InputError(f"--vars takes variable indices separated by commas, got {text!r}") from None
    if max(chosen) >= n_vars:
        raise InputError(f"--vars indices must lie in 0..{n_vars - 1}, got {max(chosen)}")
    return np.unique(np.array(chosen, dtype=np.int64))


def cmd_sample(args, guard: Guard):
    from dogs.arviz_interop import check_netcdf_writer
    from dogs.sampling_call import SamplingWarning, marginals, sample, sampling_warnings

    saved = output_path(args.save_chains, "--save-chains", (".nc",))
    chains = count(args.chains, "--chains")
    draws = count(args.draws, "--draws", minimum=4)
    warmup = count(args.warmup, "--warmup", minimum=0)
    length = None if args.length is None else count(args.length, "--length")
    root = parse_seed(args.seed)
    start = "dispersed" if args.start == "random" else count(args.start, "--start", minimum=0)
    model = load_model(args.model, guard)[0]
    evidence = load_evidence(args.evidence, model)
    check_mar_request(args.format, args.vars, args.certify)
    if args.blocks == "elimination" and (args.certify or not isinstance(model, DiscreteFactorGraph)):
        raise InputError("--blocks elimination is for factor graphs (UAI files, pgmpy networks) without --certify "
                         "(the certificate bounds single-site updates)")
    plot = check_plot(args.plot, model)
    variables = _variables(args.vars, model.n_vars)
    if variables is not None and any(int(i) in evidence for i in variables):
        observed = next(int(i) for i in variables if int(i) in evidence)
        raise InputError(f"--vars names variable {observed}, which the evidence observes: it has no sampled marginal")
    cards = cardinalities(model)
    if start != "dispersed" and start >= int(cards.min()):
        raise InputError(f"--start must be 'random' or a label every variable has (0..{int(cards.min()) - 1}), "
                         f"got {args.start}")
    reported = np.setdiff1d(np.arange(model.n_vars) if variables is None else variables, list(evidence))
    diagnosed = reported.size if not hasattr(model, "cardinalities") else int(cards[reported].sum())
    require("arviz", "this command (ArviZ diagnostics)")  # the request is checked; can this install serve it?
    if saved is not None:
        check_netcdf_writer()
    guard.sampling(model.n_vars, chains, draws, cards[reported], diagnosed, saved is not None)
    if args.scan in SCAN_NAMES:  # the library builds it over the unobserved variables: --length counts their steps
        guard.scan("--length", model.n_vars - len(evidence) if length is None else length)
        scan = args.scan
    else:
        scan = make_scan(args.scan, model.n_vars, length, "--length", guard)
        length = None

    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore", SamplingWarning)  # reported from the table below, once
        data = sample(model, scan, length=length, chains=chains, draws=draws, seed=root, start=start,
                      evidence=evidence, certify=args.certify, variables=variables,
                      blocks=None if args.blocks == "none" else args.blocks, warmup=warmup)
    table = marginals(data)
    warnings = sampling_warnings(data, table)
    rows = [_row(record, args.certify) for record in table.to_dict("records")]
    if args.certify:
        reasons = {r["variable"]: r["reason"] for r in _certificate(data)}
        for row in rows:
            row["bound_reason"] = reasons[row["variable"]]
    if saved is not None:
        _save_chains(saved, data, args)

    r_hats = [r["r_hat"] for r in rows if r["r_hat"] is not None]
    scan_length = int(data.posterior.attrs["scan_length"])
    result = {"n_vars": model.n_vars, "chains": chains, "draws": draws, "warmup": warmup, "scan_length": scan_length,
              "seed": root, "start": args.start, "site_updates": chains * (warmup + draws) * scan_length,
              "evidence": [{"variable": i, "state": k, "cardinality": int(cards[i])} for i, k in evidence.items()],
              "converged": all(r["converged"] for r in rows),
              "marginals_not_converged": sum(not r["converged"] for r in rows),
              "max_r_hat": max(r_hats) if r_hats else None,
              "min_ess_bulk": min((r["ess_bulk"] for r in rows if r["ess_bulk"] is not None), default=None),
              "block_update": str(data.posterior.attrs["block_update"]),
              "independent_draws": bool(int(data.posterior.attrs["independent_draws"])),
              "saved_chains": None if saved is None else str(saved), "marginals": rows}
    if args.certify:
        bounds = [r["bound"] for r in rows]
        result["certified_variables"] = len({r["variable"] for r in rows if r["bound"] is not None})
        result["max_bound"] = None if any(b is None for b in bounds) else max(bounds, default=None)
    if plot is not None:
        certificate = ""
        if args.certify:
            worst = result["max_bound"]
            certificate = ("certificate (DoGS Thm 8): bias of every average <= "
                           + (f"{max(r['bound_average'] for r in rows):.3g}" if worst is not None else
                              "vacuous for some variable (>= 1)"))
        plot_sample(plot, result, certificate)
    return result, warnings


def _certificate(data) -> list[dict]:
    import json

    return json.loads(data.posterior.attrs["certificate"])


def _number(value) -> float | None:
    return float(value) if np.isfinite(value) else None


def _row(record: dict, certify: bool) -> dict:
    row = {"variable": int(record["variable"]), "state": int(record["state"]),
           "probability": float(record["probability"]), "std_error": _number(record["std_error"]),
           "r_hat": _number(record["r_hat"]), "ess_bulk": _number(record["ess_bulk"]),
           "ess_tail": _number(record["ess_tail"]), "converged": bool(record["converged"]),
           "unseen_bound": _number(record["unseen_bound"]), "lower": _number(record["lower"]),
           "upper": _number(record["upper"])}
    if certify:
        row["bound"] = _number(record["bound"])
        row["bound_average"] = _number(record["bound_average"])
    return row


def _save_chains(path, data, args) -> None:
    from dogs.io import atomic_path

    data.posterior.attrs.update({"model": str(args.model), "scan": str(args.scan)})
    with atomic_path(path) as tmp:
        data.to_netcdf(str(tmp))
