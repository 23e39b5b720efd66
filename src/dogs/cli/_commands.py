r"""``dogs bound``, ``dogs scan`` and ``dogs exact``: influence bounds, DoGS scans and their certificates.

Honest certificates. The Dobrushin variation :math:`\mathcal V` of a scan (DoGS Definition 7) bounds
the total-variation error of the targeted marginals after the scan (Theorem 8), and a total-variation
distance never exceeds 1: a variation :math:`\ge 1` certifies nothing. So

- every variation is reported with a ``*_vacuous`` flag (variation :math:`\ge 1`) and a warning on
  standard error when it is set;
- DoGS is compared with its base by ratios named for their direction: ``variation_ratio_dogs_over_base``
  (:math:`\mathcal V_{DoGS} / \min(1, \mathcal V_{base})`, lower is better for DoGS, reported only when
  the DoGS variation is below 1: two vacuous bounds improve nothing) and ``length_ratio_dogs_over_base``
  (an ``--epsilon`` search may return a much shorter scan that only meets the target: then the variation
  ratio is above 1 by design and the length ratio is the gain);
- an ``--epsilon`` target is met only by a variation below 1 as well as at most the target;
- ``dogs bound`` flags a bound whose largest row sum reaches 1: Dobrushin's condition then fails and
  the bound certifies no mixing by itself (a particular scan's variation may still fall below 1).

``--evidence FILE`` (:mod:`dogs.cli._evidence`) works on the model conditioned on the observed values, in
the model's own indices: ``bound`` writes a ``p x p`` matrix whose rows and columns of observed variables
are zero (an observed variable never changes and influences nothing); ``scan`` targets unobserved
variables only, skips base-scan steps on observed ones, and writes the DoGS scan in the model's indices
(a ``-1`` step is a uniform choice among the unobserved variables); ``exact`` gives the conditional
marginals of the unobserved variables and ``log_partition`` = log of the network's mass with the evidence
fixed (log Z + log P(evidence); for a ``BAYES`` network, where Z = 1, log P(evidence)), and says so when
evidence has probability zero. Every subcommand takes factor graphs (``BAYES`` files, factors over three or more
variables, zero entries; :class:`~dogs.models.factor_graph.DiscreteFactorGraph`) as it takes pairwise networks.
"""

from __future__ import annotations

import numpy as np

from dogs.cli._checks import InputError, TooLargeError, count, non_negative_float, output_path, read_index_file
from dogs.cli._evidence import conditioned_model
from dogs.cli._guard import Guard
from dogs.cli._models import load_model
from dogs.cli._output import write_bound, write_scan
from dogs.cli._plots import check_plot, plot_scan
from dogs.extras import require
from dogs.models.discrete import cardinalities

__all__ = ["cmd_bound", "cmd_exact", "cmd_scan", "make_scan", "scan_comparison", "scan_summary"]

#: Largest double below 1: the effective ``--epsilon`` target when the requested one is 1 or more.
_BELOW_ONE = float(np.nextafter(1.0, 0.0))


def _bound(model, method: str, guard: Guard):
    """The influence bound of ``model`` by ``method`` (:func:`dogs.bounds.influence_bound`).

    A :class:`~dogs.models.factor_graph.DiscreteFactorGraph` takes ``auto`` (exact influence where the Markov
    blanket is small, the factor bound elsewhere), ``exact``, ``factor``, ``theorem10`` (the factor bound without
    its binary refinement) and, for binary networks without zero entries, ``theorem12`` (on the parity
    expansion, as printed).
    """
    from dogs.bounds import influence_bound
    from dogs.models.factor_graph import DiscreteFactorGraph

    if isinstance(model, DiscreteFactorGraph):
        _check_factor_graph_method(model, method, guard)
        return influence_bound(model, method).tocsr()
    if hasattr(model, "cardinalities") and method in ("auto", "theorem10"):
        guard.theorem10(model.cardinalities[model.edges].tolist())
    if (method == "theorem12" and not hasattr(model, "cardinalities")) or method == "factor":
        guard.check(f"--method {method} on {model.n_edges} edges (Python objects per factor)", 2048.0 * model.n_edges)
    if method in ("theorem11", "theorem12") and hasattr(model, "cardinalities"):
        raise InputError(f"--method {method} needs a binary model (every variable with 2 states); use theorem10")
    return influence_bound(model, method).tocsr()


def _check_factor_graph_method(model, method: str, guard: Guard) -> None:
    """Refuse a method the factor graph cannot take, and requests beyond the memory limit, before any work."""
    from dogs.bounds_factor import CHUNK_ENTRIES, MAX_BLANKET_WORK, blanket_work

    if method == "theorem11":
        raise InputError("--method theorem11 is for binary pairwise networks; on this network use factor (Theorem "
                         "11 on binary pairwise factors), exact or auto")
    if method == "theorem12" and (np.any(model.cardinalities != 2) or not np.all(np.isfinite(model.log_values))):
        raise InputError("--method theorem12 needs a binary network without zero entries (DoGS Theorem 12 on its "
                         "parity expansion); use factor, which is Theorem 12 with Lemma 14's denominator on parity "
                         "factors, or auto")
    work = blanket_work(model)
    if method == "exact" and work.max(initial=0.0) > MAX_BLANKET_WORK:
        i = int(np.argmax(work))
        raise TooLargeError(f"--method exact enumerates every Markov blanket: variable {i} has {work[i]:.4g} blanket "
                            f"configurations x states, more than {MAX_BLANKET_WORK}; use auto (exact where the "
                            "blanket is small) or factor")
    cells = float(np.sum(model.cardinalities[model.neighbors].astype(np.float64) ** 2))
    guard.check(f"the influence bound of {model.n_vars} variables ({model.neighbors.size} blanket pairs)",
                8.0 * (10.0 * cells + 8.0 * CHUNK_ENTRIES))


def cmd_bound(args, guard: Guard):
    out = output_path(args.out, "--out", (".npz",))
    model, _ = load_model(args.model, guard)
    reduced, conditioned = conditioned_model(args.evidence, model)
    bound = _bound(reduced, args.method, guard)
    if conditioned is not None:
        bound = _in_original(bound, conditioned)
    row_sums = np.asarray(bound.sum(axis=1)).ravel()
    largest = float(row_sums.max(initial=0.0))
    if out is not None:
        write_bound(bound, out)
    warnings = []
    if largest >= 1:
        warnings.append(f"the bound's row sums reach {largest:.4g} (>= 1 in {int(np.sum(row_sums >= 1))} rows): "
                        "Dobrushin's condition fails, so the bound certifies no mixing by itself; a scan built on "
                        "it certifies something only where its variation is below 1")
    result = {"n_vars": model.n_vars, "method": args.method, "nonzeros": int(bound.nnz), "max_row_sum": largest,
              "rows_at_or_above_one": int(np.sum(row_sums >= 1)), "dobrushin_condition": largest < 1,
              "vacuous": largest >= 1, "out": None if out is None else str(out)}
    return result, warnings


def _in_original(bound, conditioned):
    """The bound of the conditioned model as a ``p x p`` matrix in the original indices (observed rows zero)."""
    from scipy import sparse

    coo = bound.tocoo()
    free = conditioned.free
    return sparse.csr_matrix((coo.data, (free[coo.row], free[coo.col])), shape=(conditioned.n_vars,) * 2)


def make_scan(spec: str, n_vars: int, length: int | None, option: str, guard: Guard):
    """A systematic or uniform scan of ``length`` steps, or the scan in a file (then ``length`` must be None).

    ``systematic`` is the library's :func:`dogs.scans.base.systematic_scan`: step ``t = 0, 1, ...``
    updates variable ``t mod p``, so every sweep starts on variable 0 and ends on variable ``p - 1``.
    """
    from dogs.scans.base import explicit_scan, systematic_scan, uniform_scan

    if spec in ("systematic", "uniform"):
        if length is None:
            raise InputError(f"a {spec} scan needs its length: give {option}")
        guard.scan(option, length)
        return systematic_scan(n_vars, length) if spec == "systematic" else uniform_scan(n_vars, length)
    if length is not None:
        raise InputError(f"{option} sets the length of a systematic or uniform scan; the scan file {spec} has its "
                         f"own length, so leave {option} out")
    values = read_index_file(spec, "scan file", max(1, guard.limit // 32))
    if values.size == 0:
        raise InputError(f"scan file {spec} is empty")
    bad = (values != np.round(values)) | (values < -1) | (values >= n_vars)
    if bad.any():
        raise InputError(f"scan file {spec}: entry {int(np.argmax(bad))} is {values[bad][0]:g}; entries must be "
                         f"variable indices 0..{n_vars - 1} (or -1 for a uniform step)")
    return explicit_scan(values.astype(np.int64), n_vars)


def _weights(args, n_vars: int, guard: Guard) -> np.ndarray:
    if (args.target is None) == (args.weights is None):
        raise InputError("give exactly one of --target and --weights")
    if args.target is not None:
        try:
            targets = [count(t.strip(), "--target", minimum=0) for t in args.target.split(",")]
        except InputError:
            raise InputError(f"--target takes variable indices separated by commas, got {args.target!r}") from None
        if max(targets) >= n_vars:
            raise InputError(f"--target indices must lie in 0..{n_vars - 1}, got {max(targets)}")
        d = np.zeros(n_vars)
        d[targets] = 1.0
        return d
    d = read_index_file(args.weights, "weights file", max(1, guard.limit // 16))
    if d.size != n_vars or np.any(d < 0) or not np.all(np.isfinite(d)):
        raise InputError(f"weights file {args.weights}: needs {n_vars} non-negative finite numbers, got {d.size} "
                         f"numbers{'' if d.size != n_vars else ' with a negative or non-finite one'}")
    if not np.any(d > 0):
        raise InputError(f"weights file {args.weights}: every weight is zero, so every scan has variation 0 and "
                         "nothing is targeted; give at least one positive weight")
    return d


def cmd_scan(args, guard: Guard):
    from dogs.scans.dogs import dogs_scan, iterated_dogs, length_doubling_dogs
    from dogs.scans.variation import dobrushin_variation

    out = output_path(args.out, "--out", (".txt", ".npy"))
    budget = None if args.budget is None else count(args.budget, "--budget")
    if args.epsilon is not None and args.epsilon != "base":
        non_negative_float(args.epsilon, "--epsilon")
    if args.epsilon is not None and args.iterate:
        raise InputError("--epsilon (length doubling) and --iterate are two different searches: give one")
    model, _ = load_model(args.model, guard)
    p = model.n_vars
    d = _weights(args, p, guard)
    targets = np.flatnonzero(d)  # in the model's own indices, before any conditioning
    plot = check_plot(args.plot, model)
    base = make_scan(args.base, p, budget, "--budget", guard)
    reduced, conditioned = conditioned_model(args.evidence, model)
    if conditioned is not None:
        from dogs.sampling_call import scan_given_evidence

        observed = [i for i in conditioned.evidence if d[i] > 0]
        if observed:
            raise InputError(f"the target includes variable {observed[0]}, which the evidence observes (its "
                             "marginal is exact); target unobserved variables")
        d = d[conditioned.free]
        base = scan_given_evidence(base, conditioned)
    bound = _bound(reduced, args.method, guard)
    base_variation = float(dobrushin_variation(base, d, bound))
    warnings = []
    if args.epsilon is not None:
        target = base_variation if args.epsilon == "base" else non_negative_float(args.epsilon, "--epsilon")
        goal = min(target, _BELOW_ONE)
        try:
            result = length_doubling_dogs(base, d, bound, goal, bisect=True)
        except ValueError as exc:
            why = (f" (the target {target:.4g} is >= 1, which any variation meets without certifying anything, so "
                   "a variation below 1 was sought)" if target >= 1 else "")
            raise InputError(f"--epsilon {args.epsilon}: no DoGS scan reached the target{why}: {exc}") from None
        out_fields = {"mode": "length doubling and bisection", "epsilon": target, "target_met": True,
                      "lengths_tried": result.lengths_tried.tolist()}
        if result.length == len(base.indices) and result.dogs_result.early_stop_step == result.length:
            # No shorter scan met the target and early stopping kept the whole base scan unchanged: optimise
            # every step instead, so the answer is a DoGS scan of the base length with a lower variation.
            result = dogs_scan(base, d, bound, keep_targets=args.keep_targets)
            out_fields["mode"] = "length doubling and bisection (no shorter scan met the target: every step optimised)"
    elif args.iterate:
        result = iterated_dogs(base, d, bound, keep_targets=args.keep_targets)
        out_fields = {"mode": "iterated"}
    else:
        result = dogs_scan(base, d, bound, keep_targets=args.keep_targets)
        out_fields = {"mode": "one run of Algorithm 2"}
    run = getattr(result, "dogs_result", result)  # length doubling's accepted run, or the result itself
    restored = run.restored
    if restored.size:
        where = ("the base scan is returned: putting them back would have raised the variation above the base's"
                 if run.kept_input else "each was put back at one of the base scan's steps for it")
        warnings.append(f"Algorithm 2 dropped {restored.size} target variables that the base scan updates; {where} "
                        "(--keep-targets: a chain that never updates a variable cannot estimate it)")
    dogs_variation = float(result.variation)
    indices = result.scan.indices
    if conditioned is not None:
        from dogs.sampling_call import scan_in_original

        indices = scan_in_original(result.scan, conditioned)
    if out is not None:
        write_scan(indices, out)
    if plot is not None:
        plot_scan(plot, indices[indices >= 0], targets, base_variation, dogs_variation)
    row_sums = np.asarray(bound.sum(axis=1)).ravel()
    base_vacuous, dogs_vacuous = base_variation >= 1, dogs_variation >= 1
    if base_vacuous or dogs_vacuous:
        which = "both variations are" if base_vacuous and dogs_vacuous else (
            "the base scan's variation is" if base_vacuous else "the DoGS scan's variation is")
        warnings.append(f"{which} >= 1 (base {base_variation:.3g}, DoGS {dogs_variation:.3g}): a variation >= 1 "
                        "bounds nothing (total variation never exceeds 1)"
                        + ("; no variation ratio is reported" if dogs_vacuous else ""))
    if out is None:
        warnings.append("the DoGS scan was not saved (its summary is printed); give --out SCAN.txt or SCAN.npy to "
                        "keep it for 'dogs sample --scan'")
    result_fields = {
        "n_vars": p, "observed": len(conditioned.evidence) if conditioned is not None else 0, "base": args.base,
        "base_length": len(base.indices), "base_variation": base_variation,
        "base_vacuous": base_vacuous, "dogs_length": len(result.scan.indices), "dogs_variation": dogs_variation,
        "dogs_vacuous": dogs_vacuous, "vacuous": dogs_vacuous,
        **scan_comparison(base_variation, dogs_variation, len(base.indices), len(result.scan.indices)),
        "keep_targets": bool(args.keep_targets), "restored_targets": int(restored.size),
        "kept_base": bool(run.kept_input),
        "max_row_sum": float(row_sums.max(initial=0.0)), "dobrushin_condition": bool(row_sums.max(initial=0.0) < 1),
        **out_fields, **scan_summary(indices, p),
        "saved": out is not None, "out": None if out is None else str(out)}
    return result_fields, warnings


def scan_comparison(base_variation: float, dogs_variation: float, base_length: int, dogs_length: int) -> dict:
    r"""DoGS against its base as two ratios, each named for its direction, and one sentence saying both.

    ``variation_ratio_dogs_over_base`` is :math:`\mathcal V_{DoGS} / \min(1, \mathcal V_{base})` (below 1:
    DoGS certifies a smaller error), reported only when the DoGS variation is below 1 (a vacuous bound
    improves nothing). With ``--epsilon`` DoGS may pick a much *shorter* scan that only meets the target,
    so its variation can be far above a long base scan's; the length ratio says what was gained.
    """
    variation_ratio = dogs_variation / min(1.0, base_variation) if 0 < base_variation and dogs_variation < 1 else None
    if dogs_variation == 0 and base_variation == 0:
        variation_ratio = 1.0
    length_ratio = dogs_length / base_length
    if variation_ratio is None:
        text = f"the DoGS variation is {dogs_variation:.3g} (>= 1: vacuous), so no variation ratio is reported"
    else:
        text = (f"DoGS variation / base variation = {variation_ratio:.3g} (lower is better for DoGS: "
                f"{'DoGS certifies less error' if variation_ratio < 1 else 'DoGS certifies no less error'})")
    text += (f"; DoGS length / base length = {length_ratio:.3g} (lower is better for DoGS: "
             f"{dogs_length} vs {base_length} steps)")
    return {"variation_ratio_dogs_over_base": variation_ratio, "length_ratio_dogs_over_base": length_ratio,
            "comparison": text}


def scan_summary(indices: np.ndarray, n_vars: int, shown: int = 10) -> dict:
    """What a scan does, in a few numbers: distinct variables, the most visited ones, its last steps."""
    steps = np.asarray(indices)
    deterministic = steps[steps >= 0]
    visits = np.bincount(deterministic, minlength=n_vars)
    top = np.argsort(-visits, kind="stable")[:min(shown, n_vars)]
    return {"scan_distinct_variables": int(np.count_nonzero(visits)),
            "scan_uniform_steps": int(steps.size - deterministic.size),
            "scan_most_visited": [{"variable": int(i), "visits": int(visits[i])} for i in top if visits[i] > 0],
            "scan_last_steps": steps[-shown:].tolist()}


def cmd_exact(args, guard: Guard):
    from dogs.exact.elimination import ModelTooLargeError
    from dogs.exact.enumeration import ZeroProbabilityError
    from dogs.exact.junction_tree import junction_tree_marginals

    cap = count(args.max_table_entries, "--max-table-entries")
    model, constant = load_model(args.model, guard)
    full = model
    model, conditioned = conditioned_model(args.evidence, model)
    free = np.arange(model.n_vars) if conditioned is None else conditioned.free
    constant += 0.0 if conditioned is None else conditioned.log_constant
    require("pgmpy", "this command (pgmpy's junction tree)")  # the request is checked; can this install serve it?
    guard.junction_tree(model.n_vars, model.n_edges)
    allowed = min(cap, max(1, guard.limit // 24))  # clique tables, messages and beliefs in float64
    try:
        exact = junction_tree_marginals(model, max_table_entries=allowed)
    except ModelTooLargeError as exc:
        limit = (f"--max-table-entries {args.max_table_entries}" if allowed == cap
                 else f"{allowed} entries, what the memory limit allows")
        raise TooLargeError(f"the model is too large for exact inference (limit {limit}): {exc}") from None
    except ZeroProbabilityError:
        where = f"the evidence in {args.evidence} has probability zero" if conditioned is not None else \
            "the network gives every state probability zero"
        raise InputError(f"{where}: the junction tree found the network's mass to be 0 (its zero entries rule out "
                         "every state)") from None
    except FloatingPointError:
        raise InputError("the model's log potentials overflow float64 in the junction tree (parameters too large "
                         "for exact inference)") from None
    rows = [{"variable": int(free[r]), "state": k, "probability": float(m[k])}
            for r, m in enumerate(exact.node_marginals) for k in range(len(m))]
    cards = cardinalities(full)
    evidence = [] if conditioned is None else [{"variable": i, "state": k, "cardinality": int(cards[i])}
                                               for i, k in conditioned.evidence.items()]
    return {"n_vars": full.n_vars, "log_partition": float(exact.log_partition + constant), "method": exact.method,
            "evidence": evidence, "marginals": rows}, []
