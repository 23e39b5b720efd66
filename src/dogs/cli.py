"""``dogs``: DoGS on your own model from the command line.

Models are pairwise Markov networks in the UAI format (``.uai``, :mod:`dogs.models.uai`; a network
whose variables all have two states is read as a ±1 model, label 0 = spin -1), binary UAI networks
with larger factors (``bound`` and ``scan`` only, DoGS Theorem 12), or the package's own binary model
files (``.npz``, :meth:`dogs.models.BinaryPairwiseMRF.from_npz`).

Subcommands (``dogs <subcommand> --help`` for the options)::

    dogs bound MODEL [--method auto|theorem10|theorem11|theorem12|exact] [--out C.npz]
    dogs scan MODEL (--target I[,J...] | --weights FILE) --budget T [--epsilon E|base]
                    [--base systematic|uniform|FILE] [--iterate] [--method ...] [--out SCAN.txt]
    dogs sample MODEL --scan systematic|uniform|FILE [--length T] --chains N [--seed S] [--start K]
    dogs exact MODEL [--max-table-entries N]

``bound`` writes the influence bound (DoGS Theorems 10-12, Definition 2) as a scipy sparse ``.npz``;
``scan`` runs Algorithm 2 on a base scan of length ``T`` (once, iterated, or by length doubling down
to the target variation ``E``, DoGS §5.2) and prints the certificate, the Dobrushin variation
(Definition 7) of the base scan and of the DoGS scan; ``sample`` estimates every marginal from the
final states of independent Gibbs chains through a scan, with standard errors; ``exact`` gives the
junction-tree marginals and ``log Z`` (with the treewidth guard). Results print as JSON (or CSV with
``--format csv``). Exit codes: 0 success; 2 bad arguments or a malformed or unsupported model file;
3 a model too large for exact inference; 1 anything unexpected.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

EXIT_OK, EXIT_UNEXPECTED, EXIT_BAD_INPUT, EXIT_TOO_LARGE = 0, 1, 2, 3


class InputError(ValueError):
    """Bad arguments or files (exit code 2)."""


# ------------------------------------------------------------------------------------------ models
@dataclass(frozen=True)
class HigherOrderBinary:
    """A binary network with factors over more than two variables, in the parity form of DoGS Theorem 12."""

    n_vars: int
    factors: list
    h: np.ndarray


def load_model(path: str):
    """``(model, log_constant)`` from a ``.uai`` or a package ``.npz`` file.

    A UAI network with a factor over more than two (binary) variables gives a :class:`HigherOrderBinary`,
    which ``bound`` and ``scan`` accept (Theorem 12) and ``sample`` and ``exact`` refuse.
    """
    from dogs.models.binary import BinaryPairwiseMRF
    from dogs.models.uai import pairwise_model, parity_form, read_uai_factors, to_binary_pairwise

    file = Path(path)
    if not file.is_file():
        raise InputError(f"model file {path} not found")
    if file.suffix.lower() == ".uai":
        cards, factors = read_uai_factors(file)
        if any(len(scope) > 2 for scope, _ in factors):
            n_vars, parities, h, constant = parity_form(cards, factors, source=file)
            return HigherOrderBinary(n_vars, parities, h), constant
        model, constant = pairwise_model(cards, factors, source=file)
        if np.all(model.cardinalities == 2):
            model, offset = to_binary_pairwise(model)
            constant += offset
        return model, constant
    if file.suffix.lower() == ".npz":
        try:
            return BinaryPairwiseMRF.from_npz(file), 0.0
        except (KeyError, ValueError, OSError) as exc:
            raise InputError(f"{path} is not a dogs binary model file (arrays shape, edges, theta, h): {exc}") from None
    raise InputError(f"{path}: unknown model format {file.suffix!r} (use .uai or a dogs .npz)")


def _cardinalities(model) -> np.ndarray:
    """States per variable (a ±1 model has two: label 0 = spin -1, label 1 = spin +1)."""
    return model.cardinalities if hasattr(model, "cardinalities") else np.full(model.n_vars, 2)


# ------------------------------------------------------------------------------------------ scans
def _read_indices(path: str, what: str) -> np.ndarray:
    file = Path(path)
    if not file.is_file():
        raise InputError(f"{what} file {path} not found")
    try:
        values = np.load(file) if file.suffix == ".npy" else np.loadtxt(file, ndmin=1)
    except ValueError as exc:
        raise InputError(f"{what} file {path} cannot be read as numbers: {exc}") from None
    return np.asarray(values).ravel()


def _scan(spec: str, n_vars: int, length: int | None):
    from dogs.scans.base import explicit_scan, paper_systematic_scan, uniform_scan

    if spec in ("systematic", "uniform"):
        if length is None or length < 1:
            raise InputError(f"a {spec} scan needs a positive length (--budget or --length)")
        return paper_systematic_scan(n_vars, length) if spec == "systematic" else uniform_scan(n_vars, length)
    values = _read_indices(spec, "scan")
    if values.size == 0 or np.any(values != np.round(values)) or values.min() < -1 or values.max() >= n_vars:
        raise InputError(f"scan file {spec}: entries must be variable indices 0..{n_vars - 1} (or -1 for a uniform step)")
    return explicit_scan(values.astype(np.int64), n_vars)


def _weights(args, n_vars: int) -> np.ndarray:
    if (args.target is None) == (args.weights is None):
        raise InputError("give exactly one of --target and --weights")
    if args.target is not None:
        try:
            targets = [int(t) for t in args.target.split(",")]
        except ValueError:
            raise InputError(f"--target takes variable indices separated by commas, got {args.target!r}") from None
        if min(targets) < 0 or max(targets) >= n_vars:
            raise InputError(f"--target indices must lie in 0..{n_vars - 1}")
        d = np.zeros(n_vars)
        d[targets] = 1.0
        return d
    d = _read_indices(args.weights, "weights")
    if d.size != n_vars or np.any(d < 0) or not np.all(np.isfinite(d)):
        raise InputError(f"weights file {args.weights}: needs {n_vars} non-negative finite numbers, got {d.size}")
    return d


def _write_scan(indices: np.ndarray, path: str) -> None:
    if path.endswith(".npy"):
        np.save(path, indices)
    else:
        np.savetxt(path, indices, fmt="%d")


# ------------------------------------------------------------------------------------------ commands
def _bound(model, method: str):
    """The influence bound of ``model`` by ``method`` (Theorem 12 for a :class:`HigherOrderBinary`)."""
    from dogs.bounds import influence_bound, influence_higher_order

    if isinstance(model, HigherOrderBinary):
        if method not in ("auto", "theorem12"):
            raise InputError(f"a network with factors over more than two variables takes --method auto or theorem12 "
                             f"(DoGS Theorem 12), not {method}")
        return influence_higher_order(model.n_vars, model.factors, model.h).tocsr()
    return influence_bound(model, method).tocsr()


def _pairwise(model, command: str):
    if isinstance(model, HigherOrderBinary):
        raise InputError(f"'dogs {command}' supports pairwise networks only; this one has factors over more than "
                         "two variables ('dogs bound' and 'dogs scan' handle it with DoGS Theorem 12)")
    return model


def cmd_bound(args) -> dict:
    model, _ = load_model(args.model)
    bound = _bound(model, args.method)
    row_sums = np.asarray(bound.sum(axis=1)).ravel()
    if args.out:
        sparse.save_npz(args.out, bound)
    return {"n_vars": model.n_vars, "method": args.method, "nonzeros": int(bound.nnz),
            "max_row_sum": float(row_sums.max(initial=0.0)),
            "dobrushin_condition": bool(row_sums.max(initial=0.0) < 1), "out": args.out}


def cmd_scan(args) -> dict:
    from dogs.scans.dogs import dogs_scan, iterated_dogs, length_doubling_dogs
    from dogs.scans.variation import dobrushin_variation

    model, _ = load_model(args.model)
    p = model.n_vars
    d = _weights(args, p)
    base = _scan(args.base, p, args.budget)
    bound = _bound(model, args.method)
    base_variation = dobrushin_variation(base, d, bound)
    if args.epsilon is not None:
        epsilon = base_variation if args.epsilon == "base" else _positive_float(args.epsilon, "--epsilon")
        result = length_doubling_dogs(base, d, bound, epsilon)
        out = {"mode": "length doubling", "epsilon": epsilon, "lengths_tried": result.lengths_tried.tolist()}
    elif args.iterate:
        result = iterated_dogs(base, d, bound)
        out = {"mode": "iterated"}
    else:
        result = dogs_scan(base, d, bound)
        out = {"mode": "one run of Algorithm 2"}
    if args.out:
        _write_scan(result.scan.indices, args.out)
    return {"n_vars": p, "base": args.base, "base_length": len(base.indices), "base_variation": float(base_variation),
            "dogs_length": len(result.scan.indices), "dogs_variation": float(result.variation),
            "improvement": float(base_variation / result.variation) if result.variation > 0 else None,
            **out, "out": args.out}


def _positive_float(text: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{option} takes a number or 'base', got {text!r}") from None
    if not np.isfinite(value) or value < 0:
        raise InputError(f"{option} must be a non-negative number, got {text!r}")
    return value


def cmd_sample(args) -> dict:
    from dogs.models.binary import BinaryPairwiseMRF
    from dogs.samplers import run_discrete_gibbs, run_gibbs

    model = _pairwise(load_model(args.model)[0], "sample")
    if args.chains < 1:
        raise InputError(f"--chains must be positive, got {args.chains}")
    scan = _scan(args.scan, model.n_vars, args.length)
    if args.start is not None and not 0 <= args.start < int(_cardinalities(model).min()):
        raise InputError(f"--start must be a label every variable has (0..{int(_cardinalities(model).min()) - 1})")
    if isinstance(model, BinaryPairwiseMRF):
        start = 1 if args.start in (None, 1) else -1
        states = (run_gibbs(model, scan, seed=args.seed, n_chains=args.chains, initial_state=start).states + 1) // 2
    else:
        states = run_discrete_gibbs(model, scan, seed=args.seed, n_chains=args.chains,
                                    initial_state=args.start or 0).states
    rows = []
    cards = _cardinalities(model)
    for i in range(model.n_vars):
        for k in range(int(cards[i])):
            hits = states[:, i] == k
            mean = float(hits.mean())
            rows.append({"variable": i, "state": k, "probability": mean,
                         "std_error": float(hits.std(ddof=1) / np.sqrt(args.chains)) if args.chains > 1 else None})
    return {"n_vars": model.n_vars, "chains": args.chains, "scan_length": len(scan.indices), "seed": args.seed,
            "marginals": rows}


def cmd_exact(args) -> dict:
    from dogs.exact.junction_tree import junction_tree_marginals

    model, constant = load_model(args.model)
    _pairwise(model, "exact")
    exact = junction_tree_marginals(model, max_table_entries=args.max_table_entries)
    rows = [{"variable": i, "state": k, "probability": float(m[k])}
            for i, m in enumerate(exact.node_marginals) for k in range(len(m))]
    return {"n_vars": model.n_vars, "log_partition": float(exact.log_partition + constant), "method": exact.method,
            "marginals": rows}


# ------------------------------------------------------------------------------------------ shell
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dogs", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Exit codes: 0 success, 2 bad input, 3 model too large, 1 unexpected.")
    sub = parser.add_subparsers(dest="command", required=True)
    methods = ["auto", "theorem10", "theorem11", "theorem12", "exact"]

    def common(p):
        p.add_argument("model", help="model file: .uai (pairwise MARKOV network) or a dogs binary .npz")
        p.add_argument("--format", choices=["json", "csv"], default="json", help="output format (default json)")

    p = sub.add_parser("bound", help="influence bound C-bar (DoGS Theorems 10-12)")
    common(p)
    p.add_argument("--method", choices=methods, default="auto",
                   help="auto: Theorem 11 for binary models, Theorem 10 otherwise")
    p.add_argument("--out", help="write C-bar here (scipy sparse .npz)")
    p.set_defaults(run=cmd_bound)

    p = sub.add_parser("scan", help="a DoGS scan (Algorithm 2) and its certificate")
    common(p)
    p.add_argument("--target", help="target variables, comma separated: d is their indicator (d = e_i for one)")
    p.add_argument("--weights", help="file of p non-negative weights d (text or .npy)")
    p.add_argument("--budget", type=int, required=True, help="length T of the base scan")
    p.add_argument("--base", default="systematic",
                   help="base scan: systematic (q_t = e_((t mod p)+1)), uniform, or a file of indices")
    p.add_argument("--epsilon", help="target variation: a number, or 'base' for the base scan's own (length doubling)")
    p.add_argument("--iterate", action="store_true", help="iterate Algorithm 2 until it stops improving")
    p.add_argument("--method", choices=methods, default="auto", help="influence bound (as for 'dogs bound')")
    p.add_argument("--out", help="write the DoGS scan's indices here (text, or .npy)")
    p.set_defaults(run=cmd_scan)

    p = sub.add_parser("sample", help="Gibbs estimates of every marginal, with standard errors")
    common(p)
    p.add_argument("--scan", required=True, help="systematic, uniform, or a file of indices (from 'dogs scan')")
    p.add_argument("--length", type=int, help="length of a systematic or uniform scan")
    p.add_argument("--chains", type=int, required=True, help="independent chains")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--start", type=int, help="starting label of every variable (default: 1 for binary, else 0)")
    p.set_defaults(run=cmd_sample)

    p = sub.add_parser("exact", help="junction-tree marginals and log Z")
    common(p)
    p.add_argument("--max-table-entries", type=int, default=2**27,
                   help="treewidth guard: largest total clique-table size (default 2^27)")
    p.set_defaults(run=cmd_exact)
    return parser


def _print(result: dict, fmt: str, stream) -> None:
    if fmt == "json":
        json.dump(result, stream, indent=2)
        stream.write("\n")
        return
    rows = result.get("marginals")
    if rows is None:
        rows = [{k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in result.items()}]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    stream.write(buffer.getvalue())


def main(argv=None) -> int:
    from dogs.exact.elimination import ModelTooLargeError
    from dogs.models.uai import UAIError

    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result = args.run(args)
    except ModelTooLargeError as exc:
        print(f"dogs {args.command}: the model is too large for exact inference: {exc}", file=sys.stderr)
        return EXIT_TOO_LARGE
    except (InputError, UAIError, ValueError, TypeError, MemoryError) as exc:
        print(f"dogs {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        _print(result, args.format, sys.stdout)
    except BrokenPipeError:  # the reader (head, say) stopped early: not an error of ours
        sys.stderr.close()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
