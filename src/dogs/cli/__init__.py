"""``dogs``: DoGS on your own model from the command line.

Models are UAI files (``.uai``, :mod:`dogs.models.uai`), ``MARKOV`` or ``BAYES``: a pairwise network with
positive entries is read as a pairwise model (one whose variables all have two states as a ±1 model, label 0 =
spin -1), any other (factors over three or more variables, zero entries, ``BAYES`` tables) as a discrete factor
graph (:class:`~dogs.models.factor_graph.DiscreteFactorGraph`), which every subcommand takes; or the package's
own binary model files (``.npz``, :meth:`dogs.models.BinaryPairwiseMRF.to_npz_dict`).

Subcommands (``dogs <subcommand> --help`` for the options)::

    dogs bound MODEL [--method auto|theorem10|theorem11|theorem12|exact|factor] [--out C.npz]
    dogs scan MODEL (--target I[,J...] | --weights FILE) [--budget T] [--epsilon E|base]
                    [--base systematic|uniform|FILE] [--iterate] [--no-keep-targets] [--method ...]
                    [--out SCAN.txt|.npy]
    dogs sample MODEL [--scan systematic|uniform|FILE] [--length T] [--chains N] [--draws D] [--seed S]
                      [--start random|K] [--vars I,J...] [--save-chains CHAINS.nc] [--certify]
    dogs exact MODEL [--max-table-entries N]

``bound`` writes the influence bound (DoGS Theorems 10-12, Definition 2) as a scipy sparse ``.npz``;
``scan`` runs Algorithm 2 on a base scan of length ``T`` (once, iterated, or by length doubling down
to the target variation ``E``, DoGS §5.2) and prints the certificate, the Dobrushin variation
(Definition 7) of the base scan and of the DoGS scan, each flagged vacuous when it is 1 or more (a target
variable Algorithm 2 drops, as it can where the bound does not contract, is put back unless
``--no-keep-targets``: :func:`dogs.scans.dogs_scan`'s ``keep_targets``);
``sample`` runs chains from dispersed starts through a scan and reports every marginal with ArviZ's
split R-hat, effective sample sizes and ESS-based standard errors; ``exact`` gives the junction-tree
marginals and ``log Z`` (with the treewidth guard). Results print as JSON (or CSV with
``--format csv``); warnings (vacuous certificates, chains that did not converge) go to standard error.
Every subcommand takes ``--evidence FILE`` (a UAI ``.evid`` file) to condition the model on observed
values; ``sample --certify`` adds DoGS Theorem 8's bias bound to every marginal.

Every request is checked before any computation: arguments, input files (format, sizes, values) and
output paths, and a resource guard estimates the memory the request needs and refuses it above the
limit (80 % of physical memory, or ``--max-memory-gb``). Exit codes: 0 success; 2 bad arguments, a
malformed or unsupported file, or a subcommand or option whose optional packages are not installed (the
message names the extra: ``sample`` needs ``arviz``, ``exact`` needs ``pgmpy``, ``--plot`` needs ``plot``;
:mod:`dogs.extras`); 3 a request too large for the memory limit or for exact inference; 1 an internal
error (a bug: please report it). Errors are one line on standard error.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_TOO_LARGE", "EXIT_UNEXPECTED", "build_parser", "main", "package_version",
           "plain_text"]

EXIT_OK, EXIT_UNEXPECTED, EXIT_BAD_INPUT, EXIT_TOO_LARGE = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) instead of a usage block."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} ('{self.prog} --help' lists the options)\n")


def _parser() -> argparse.ArgumentParser:
    from dogs.cli._commands import cmd_bound, cmd_exact, cmd_scan
    from dogs.cli._sample import cmd_sample

    parser = _Parser(prog="dogs", description=plain_text(__doc__.split("\n\n")[0]),
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Exit codes: 0 success, 2 bad input, 3 too large, 1 internal error.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    methods = ["auto", "theorem10", "theorem11", "theorem12", "exact", "factor"]

    def common(p, formats=("json", "csv"), format_help="output format (default json)"):
        p.add_argument("model", help="model file: .uai (MARKOV or BAYES network, any factors) or a dogs binary .npz")
        p.add_argument("--format", choices=list(formats), default="json", help=format_help)
        p.add_argument("--evidence", metavar="FILE",
                       help="UAI evidence file (.evid: n, then n pairs 'variable value'): condition on it; results "
                            "keep the model's indices and leave observed variables out")
        p.add_argument("--max-memory-gb", default=None,
                       help="memory limit of the resource guard (default: 80%% of this machine's memory)")

    p = sub.add_parser("bound", help="influence bound C-bar (DoGS Theorems 10-12)")
    common(p)
    p.add_argument("--method", choices=methods, default="auto",
                   help="auto: Theorem 11 for binary pairwise models, Theorem 10 for other pairwise ones; for "
                        "factor graphs the exact influence where the Markov blanket is small, the factor bound "
                        "elsewhere (factor: that bound everywhere)")
    p.add_argument("--out", help="write C-bar here (scipy sparse, a .npz file name)")
    p.set_defaults(run=cmd_bound)

    p = sub.add_parser("scan", help="a DoGS scan (Algorithm 2) and its certificate")
    common(p)
    p.add_argument("--target", help="target variables, comma separated: d is their indicator (d = e_i for one)")
    p.add_argument("--weights", help="file of p non-negative weights d, not all zero (text or .npy)")
    p.add_argument("--budget", help="length T of a systematic or uniform base scan")
    p.add_argument("--base", default="systematic",
                   help="base scan: systematic (step t = 0, 1, ... updates variable t mod p: sweeps start on "
                        "variable 0), uniform, or a file of indices")
    p.add_argument("--epsilon", help="target variation (a number, or 'base' for the base scan's own): the shortest "
                                     "DoGS scan at or below it and below 1, found by length doubling (DoGS §5.2) "
                                     "up to the budget, then bisection")
    p.add_argument("--iterate", action="store_true", help="iterate Algorithm 2 until it stops improving")
    p.add_argument("--keep-targets", action=argparse.BooleanOptionalAction, default=True,
                   help="put back every target variable that Algorithm 2 drops (it can, where the influence bound "
                        "does not contract: deterministic factors), or keep the base scan where that would raise "
                        "the variation (default; --no-keep-targets: Algorithm 2 alone, as published)")
    p.add_argument("--method", choices=methods, default="auto", help="influence bound (as for 'dogs bound')")
    p.add_argument("--out", help="write the DoGS scan's indices here (.txt: one per line, or .npy)")
    p.add_argument("--plot", help="grid-shaped models: write a map of how often the DoGS scan visits each site, "
                                  "with its certificate, to this .png file")
    p.set_defaults(run=cmd_scan)

    p = sub.add_parser("sample", help="Gibbs estimates of marginals, with ArviZ R-hat, ESS and standard errors")
    common(p, ("json", "csv", "uai-mar"), "output format (default json; uai-mar: the UAI competition's MAR "
                                          "result format, every variable's marginal)")
    p.add_argument("--scan", default="systematic",
                   help="systematic (default), uniform, or a file of indices (from 'dogs scan')")
    p.add_argument("--length", help="steps of a systematic or uniform scan, counted over the unobserved variables "
                                    "(default: one sweep of them; not with a scan file)")
    p.add_argument("--chains", default="4", help="chains, each from its own start (default 4)")
    p.add_argument("--draws", default="250", help="passes through the scan per chain, each recorded (default 250)")
    p.add_argument("--warmup", default="0", help="passes per chain run and discarded before the first draw (default 0; "
                                                 "--warmup equal to --draws discards the first half of each chain)")
    p.add_argument("--seed", default="0", help="seed (default 0)")
    p.add_argument("--start", default="random",
                   help="'random' (default: every chain from its own random state: uniform labels on a pairwise model, "
                        "on a factor graph a state of positive probability drawn variable by variable, by forward "
                        "sampling on a Bayesian network) or a label K for every variable")
    p.add_argument("--vars", help="report these variables only (comma separated; default all)")
    p.add_argument("--save-chains", help="write the draws as ArviZ data (netCDF, a .nc file name)")
    p.add_argument("--certify", action="store_true",
                   help="add DoGS Theorem 8 bounds per variable, valid from any start: 'bound' on the TV distance "
                        "of its marginal after one pass of the scan from its stationary marginal, 'bound_average' "
                        "on the bias of the reported average over the draws (mean over k of min(1, the smallest "
                        "variation of j <= k passes)); null with 'bound_reason' where 1 or more (vacuous); not with "
                        "--format uai-mar")
    p.add_argument("--blocks", choices=("auto", "elimination", "none"), default="auto",
                   help="factor graphs: 'auto' (default) draws the variables tied by zero entries jointly, by "
                        "enumeration where blocks of a few hundred configurations hold every such tie, else as "
                        "'elimination' does; "
                        "'elimination' draws blocks of up to the whole model exactly by variable elimination (for "
                        "near-deterministic networks on which single-site chains stall); 'none': single-site "
                        "updates")
    p.add_argument("--plot", help="grid-shaped models: write a map of the estimated P(X_i = 1) to this .png file")
    p.set_defaults(run=cmd_sample)

    p = sub.add_parser("exact", help="junction-tree marginals and log Z")
    common(p, ("json", "csv", "uai-mar"), "output format (default json; uai-mar: the UAI competition's MAR "
                                         "result format, every variable's marginal)")
    p.add_argument("--max-table-entries", default=str(2**27),
                   help="treewidth guard: largest total clique-table size (default 2^27)")
    p.set_defaults(run=cmd_exact)
    return parser


def package_version() -> str:
    """The installed distribution's version (``dogs-gibbs``, :data:`dogs.extras.DISTRIBUTION`), from its metadata."""
    from importlib.metadata import PackageNotFoundError, version

    from dogs.extras import DISTRIBUTION

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def plain_text(text: str) -> str:
    """Help text without reST markup: ``literal`` and :role:`target` become plain words (argparse prints raw)."""
    import re

    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def build_parser() -> argparse.ArgumentParser:
    """The ``dogs`` argument parser, every subcommand and option with its help (the documentation's command
    reference is generated from it, and a test fails for an option without help)."""
    return _parser()


def main(argv=None) -> int:
    """Run the ``dogs`` command; returns the exit code."""
    from dogs.cli._checks import InputError, TooLargeError, non_negative_float
    from dogs.cli._guard import Guard
    from dogs.cli._output import print_result
    from dogs.exact.elimination import ModelTooLargeError
    from dogs.extras import MissingExtraError
    from dogs.models.uai import UAIError, UAITooLargeError

    args = _parser().parse_args(argv)
    prefix = f"dogs {args.command}"
    try:
        limit = None if args.max_memory_gb is None else non_negative_float(args.max_memory_gb, "--max-memory-gb")
        if limit is not None and not 0 < limit < 1e9:
            raise InputError(f"--max-memory-gb must be a positive number of gigabytes, got {args.max_memory_gb}")
        result, warnings = args.run(args, Guard(limit))
    except (TooLargeError, UAITooLargeError, ModelTooLargeError) as exc:
        print(f"{prefix}: too large: {_one_line(exc)}", file=sys.stderr)
        return EXIT_TOO_LARGE
    except MemoryError as exc:
        print(f"{prefix}: too large: ran out of memory ({_one_line(exc)}); lower the sizes or raise "
              "--max-memory-gb only if the machine has the memory", file=sys.stderr)
        return EXIT_TOO_LARGE
    except (InputError, UAIError, ValueError, TypeError, MissingExtraError) as exc:
        print(f"{prefix}: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: one line, the traceback only on request
        if os.environ.get("DOGS_DEBUG"):
            raise
        print(f"{prefix}: internal error ({type(exc).__name__}: {_one_line(exc)}); please report it "
              "(DOGS_DEBUG=1 shows the traceback)", file=sys.stderr)
        return EXIT_UNEXPECTED
    for warning in warnings:
        print(f"{prefix}: warning: {warning}", file=sys.stderr)
    try:
        print_result(result, args.format, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader (head, say) stopped early: not an error of ours
        sys.stderr.close()
    return EXIT_OK


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
