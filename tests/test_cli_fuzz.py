"""A generated corpus of hostile inputs for the ``dogs`` command: every case must fail cleanly.

Each case is malformed UAI or ``.npz`` model files, bad side files (scans, weights) or bad arguments,
grouped by class: truncated files, wrong counts, huge declared sizes, non-ASCII digits, NaN / infinite /
negative entries and all-zero tables, garbage bytes, wrong container types, bad options and output paths. For every
case the command must exit with 2 (bad input) or 3 (too large), print exactly one line on standard
error and nothing on standard output, never a traceback, and stay within bounded memory (``MAX_TRACED_BYTES``
per case, measured with ``tracemalloc``, which sees numpy's allocations: a huge declared size is refused, not
allocated; no time is asserted, CI being a loaded machine). The corpus is built from fixed seeds, so every run
tries the same cases.
"""

from __future__ import annotations

import io
import os
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

from test_cli import CYCLE

from dogs.cli import EXIT_BAD_INPUT, EXIT_TOO_LARGE, main
from dogs.models import grid_model

MAX_TRACED_BYTES = 256 * 2**20

GOOD_UAI = CYCLE  # a 4-cycle of binary variables with unary, pairwise and constant factors

SAMPLE = ["sample", "--scan", "systematic", "--length", "8", "--draws", "4"]


def _uai_cases() -> dict[str, tuple[bytes, int]]:
    """name -> (file bytes, expected exit code); all read with 'dogs exact'."""
    text = GOOD_UAI
    cases = {}
    last_token = len(text.rstrip()) - len(text.split()[-1])
    for cut in range(0, last_token, 7):  # truncated anywhere before the last entry (a cut inside it leaves a number)
        cases[f"truncated at byte {cut}"] = (text[:cut].encode(), EXIT_BAD_INPUT)
    replace = {
        # wrong counts
        "fewer variables declared": ("MARKOV\n4\n", "MARKOV\n3\n"),
        "more variables declared": ("MARKOV\n4\n", "MARKOV\n5\n"),
        "fewer factors declared": ("2 2 2 2\n7\n", "2 2 2 2\n6\n"),
        "more factors declared": ("2 2 2 2\n7\n", "2 2 2 2\n8\n"),
        "table count too small": ("4\n3.0 1.0 0.5", "3\n3.0 1.0 0.5"),
        "table count too large": ("4\n3.0 1.0 0.5", "5\n3.0 1.0 0.5"),
        "scope size too large": ("2 2 3\n", "3 2 3\n"),
        "unknown variable": ("2 3 0\n", "2 3 9\n"),
        "variable twice in a scope": ("2 3 0\n", "2 3 3\n"),
        "cardinality one": ("2 2 2 2\n", "2 1 2 2\n"),
        "trailing tokens": ("5.0\n", "5.0\n7 7\n"),
        # huge declared sizes
        "10^12 variables": ("MARKOV\n4\n", "MARKOV\n1000000000000\n"),
        "10^30 variables": ("MARKOV\n4\n", "MARKOV\n1000000000000000000000000000000\n"),
        "10^12 factors": ("2 2 2 2\n7\n", "2 2 2 2\n1000000000000\n"),
        "cardinality 10^9": ("2 2 2 2\n", "2 2 2 1000000000\n"),
        "scope of 10^6 variables": ("1 0\n2 0 1", "1000000 0\n2 0 1"),
        "table count 10^15": ("4\n3.0 1.0 0.5", "1000000000000000\n3.0 1.0 0.5"),
        "variable index 10^18": ("2 3 0\n", "2 3 999999999999999999\n"),
        # non-ASCII digits and separators
        "full-width digit cardinality": ("2 2 2 2\n", "2 2 2 \uff12\n"),
        "full-width digit entry": ("1.0 2.0\n", "1.0 \uff12.0\n"),
        "arabic-indic digit count": ("2 2 2 2\n7\n", "2 2 2 2\n\u0667\n"),
        "no-break space": ("1.0 2.0\n", "1.0\u00a02.0\n"),
        "underscore in an entry": ("1.0 2.0\n", "1_0 2.0\n"),
        "underscore in a count": ("2 2 2 2\n7\n", "2 2 2 2\n0_7\n"),
        "hexadecimal entry": ("1.0 2.0\n", "0x1 2.0\n"),
        "signed count": ("2 2 2 2\n7\n", "2 2 2 2\n+7\n"),
        "negative variable index": ("2 3 0\n", "2 3 -1\n"),
        "float cardinality": ("2 2 2 2\n", "2 2 2 2.0\n"),
        "exponent count": ("2 2 2 2\n7\n", "2 2 2 2\n7e0\n"),
        "comma decimal": ("1.0 2.0\n", "1,0 2.0\n"),
        # NaN, infinite, negative, zero entries
        "nan entry": ("1.0 2.0\n", "nan 2.0\n"),
        "inf entry": ("1.0 2.0\n", "inf 2.0\n"),
        "overflowing entry": ("1.0 2.0\n", "1e400 2.0\n"),
        "negative entry": ("1.0 2.0\n", "-1.0 2.0\n"),
        "factor zero everywhere": ("1.0 2.0\n", "0 0\n"),
        "factor negative zero everywhere": ("1.0 2.0\n", "-0.0 -0.0\n"),
        "positive entry that reads as zero": ("1.0 2.0\n", "1e-400 2.0\n"),
        # not a network of the declared kind (seven tables for four variables is no Bayesian network)
        "bayes network": ("MARKOV", "BAYES"),
        "no header word": ("MARKOV\n", ""),
        "all on one line": (None, None),
    }
    for name, (old, new) in replace.items():
        if old is None:
            cases[name] = (" ".join(text.split()).encode(), EXIT_BAD_INPUT)
            continue
        assert old in text, name
        cases[name] = (text.replace(old, new, 1).encode(), EXIT_BAD_INPUT)
    rng = np.random.default_rng(29)
    for k in range(6):
        cases[f"random bytes {k}"] = (rng.integers(0, 256, int(rng.integers(1, 4000)), dtype=np.uint8).tobytes(),
                                      EXIT_BAD_INPUT)
    alphabet = list("0123456789 \n.-+eE")
    for k in range(6):
        body = "".join(rng.choice(alphabet, int(rng.integers(1, 400))))
        cases[f"random number soup {k}"] = (f"MARKOV\n{body}".encode(), EXIT_BAD_INPUT)
    for k in range(4):  # a valid prefix, then flipped bytes
        data = bytearray(text.encode())
        for position in rng.integers(0, len(data), 3):
            data[position] = int(rng.integers(0, 256))
        if bytes(data) != text.encode():
            cases[f"flipped bytes {k}"] = (bytes(data), EXIT_BAD_INPUT)
    cases["empty file"] = (b"", EXIT_BAD_INPUT)
    cases["only whitespace"] = (b" \n\t\n", EXIT_BAD_INPUT)
    cases["nul bytes"] = (b"\0" * 64, EXIT_BAD_INPUT)
    cases["utf-16 text"] = (text.encode("utf-16"), EXIT_BAD_INPUT)
    cases["zip archive named .uai"] = (_zip({"h.npy": _npy(np.zeros(3))}), EXIT_BAD_INPUT)
    return cases


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _zip(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _huge_header(shape, dtype="<f8") -> bytes:
    """A .npy header declaring ``shape`` followed by a few bytes of data (the rest never written)."""
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}".encode()
    header += b" " * (63 - (len(header) + 10) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * 64


def _npz_cases() -> dict[str, tuple[bytes, int]]:
    """name -> (file bytes, expected exit code); all read with 'dogs bound'."""
    good = {k: np.asarray(v) for k, v in grid_model(2, 2, coupling=0.3, field=0.1).to_npz_dict().items()}

    def variant(**changes):
        arrays = {**good, **changes}
        return _zip({f"{k}.npy": _npy(v) for k, v in arrays.items() if v is not None})

    rng = np.random.default_rng(30)
    cases = {
        "empty npz": (b"", EXIT_BAD_INPUT),
        "garbage npz": (rng.integers(0, 256, 500, dtype=np.uint8).tobytes(), EXIT_BAD_INPUT),
        "npy renamed npz": (_npy(np.zeros(4)), EXIT_BAD_INPUT),
        "uai text named npz": (GOOD_UAI.encode(), EXIT_BAD_INPUT),
        "zip without arrays": (_zip({"readme.txt": b"hello"}), EXIT_BAD_INPUT),
        "missing theta": (variant(theta=None), EXIT_BAD_INPUT),
        "extra array": (variant(extra=np.zeros(2)), EXIT_BAD_INPUT),
        "pickled objects": (variant(h=np.array([object(), 1, 2, 3], dtype=object)), EXIT_BAD_INPUT),
        "complex field": (variant(h=good["h"] + 1j), EXIT_BAD_INPUT),
        "boolean field": (variant(h=np.array([True, False, True, False])), EXIT_BAD_INPUT),
        "text field": (variant(h=np.array(["a", "b", "c", "d"])), EXIT_BAD_INPUT),
        "negative shape": (variant(shape=np.array([-2, -2])), EXIT_BAD_INPUT),
        "shape mismatch": (variant(shape=np.array([3, 3])), EXIT_BAD_INPUT),
        "three-dimensional shape": (variant(shape=np.array([1, 2, 2])), EXIT_BAD_INPUT),
        "float edges": (variant(edges=good["edges"].astype(float)), EXIT_BAD_INPUT),
        "three-column edges": (variant(edges=np.zeros((4, 3), dtype=int)), EXIT_BAD_INPUT),
        "edge out of range": (variant(edges=good["edges"] + 10), EXIT_BAD_INPUT),
        "self-loop": (variant(edges=np.array([[0, 0], [0, 1], [1, 3], [2, 3]])), EXIT_BAD_INPUT),
        "duplicate edge": (variant(edges=np.array([[0, 1], [0, 1], [1, 3], [2, 3]])), EXIT_BAD_INPUT),
        "theta of the wrong length": (variant(theta=np.zeros(7)), EXIT_BAD_INPUT),
        "nan coupling": (variant(theta=np.array([np.nan, 0.1, 0.1, 0.1])), EXIT_BAD_INPUT),
        "infinite field": (variant(h=np.array([np.inf, 0, 0, 0])), EXIT_BAD_INPUT),
        "coupling 1e308": (variant(theta=np.array([1e308, -1e308, 1e308, 0.1])), EXIT_BAD_INPUT),
        "empty field": (variant(h=np.zeros(0), shape=np.array([0])), EXIT_BAD_INPUT),
        "array declaring 8 TB": (_zip({"shape.npy": _npy(good["shape"]), "edges.npy": _npy(good["edges"]),
                                       "theta.npy": _npy(good["theta"]), "h.npy": _huge_header((10**12,))}),
                                 EXIT_TOO_LARGE),
        "truncated array": (_zip({"shape.npy": _npy(good["shape"]), "edges.npy": _npy(good["edges"]),
                                  "theta.npy": _npy(good["theta"]), "h.npy": _huge_header((1000,))}), EXIT_BAD_INPUT),
    }
    damaged = bytearray(variant())
    damaged[len(damaged) // 2] ^= 0xFF
    cases["flipped byte in the archive"] = (bytes(damaged), EXIT_BAD_INPUT)
    cut = variant()
    cases["archive cut short"] = (cut[: len(cut) // 2], EXIT_BAD_INPUT)
    return cases


def _argument_cases(tmp) -> dict[str, tuple[list[str], int]]:
    """name -> (argv, expected exit code) on a good model, with bad options and side files."""
    model = tmp / "good.npz"
    np.savez(model, **grid_model(3, 3, coupling=0.2).to_npz_dict())
    m = str(model)
    files = {
        "zeros.txt": b"0 0 0 0 0 0 0 0 0\n", "short.txt": b"1 1\n", "nan.txt": b"1 1 1 1 nan 1 1 1 1\n",
        "unicode.txt": "1 1 1 1 \uff11 1 1 1 1\n".encode(), "fraction.txt": b"0 1.5 2\n", "beyond.txt": b"0 9\n",
        "blank.txt": b"\n", "minus2.txt": b"0 -2\n",
    }
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    np.save(tmp / "complex.npy", np.ones(9) + 1j)
    np.save(tmp / "objects.npy", np.array([object()] * 9, dtype=object), allow_pickle=True)
    (tmp / "adir").mkdir()
    t = {name: str(tmp / name) for name in list(files) + ["complex.npy", "objects.npy", "adir"]}
    scan = ["scan", m, "--target", "0"]
    return {
        "no subcommand": ([], EXIT_BAD_INPUT),
        "unknown subcommand": (["frobnicate", m], EXIT_BAD_INPUT),
        "missing model argument": (["bound"], EXIT_BAD_INPUT),
        "unknown option": (["bound", m, "--colour", "red"], EXIT_BAD_INPUT),
        "bad method": (["bound", m, "--method", "theorem99"], EXIT_BAD_INPUT),
        "bad format": (["bound", m, "--format", "xml"], EXIT_BAD_INPUT),
        "unknown model suffix": (["bound", t["zeros.txt"]], EXIT_BAD_INPUT),
        "model is a directory": (["bound", t["adir"]], EXIT_BAD_INPUT),
        "budget 1e12": (scan + ["--budget", "1e12", "--max-memory-gb", "4"], EXIT_TOO_LARGE),
        "budget 10^40": (scan + ["--budget", "1" + "0" * 40, "--max-memory-gb", "4"], EXIT_TOO_LARGE),
        "budget zero": (scan + ["--budget", "0"], EXIT_BAD_INPUT),
        "budget float": (scan + ["--budget", "12.5"], EXIT_BAD_INPUT),
        "budget full-width": (scan + ["--budget", "\uff11\uff10"], EXIT_BAD_INPUT),
        "budget underscore": (scan + ["--budget", "1_0"], EXIT_BAD_INPUT),
        "budget exponent 1e99": (scan + ["--budget", "1e99"], EXIT_BAD_INPUT),
        "budget with a scan file": (["scan", m, "--target", "0", "--base", t["beyond.txt"], "--budget", "9"],
                                    EXIT_BAD_INPUT),
        "no budget": (scan, EXIT_BAD_INPUT),
        "target and weights": (scan + ["--weights", t["zeros.txt"], "--budget", "9"], EXIT_BAD_INPUT),
        "target full-width": (["scan", m, "--target", "\uff10", "--budget", "9"], EXIT_BAD_INPUT),
        "target trailing comma": (["scan", m, "--target", "0,", "--budget", "9"], EXIT_BAD_INPUT),
        "target negative": (["scan", m, "--target", "-1", "--budget", "9"], EXIT_BAD_INPUT),
        "target beyond": (["scan", m, "--target", "9", "--budget", "9"], EXIT_BAD_INPUT),
        "weights all zero": (["scan", m, "--weights", t["zeros.txt"], "--budget", "9"], EXIT_BAD_INPUT),
        "weights too few": (["scan", m, "--weights", t["short.txt"], "--budget", "9"], EXIT_BAD_INPUT),
        "weights nan": (["scan", m, "--weights", t["nan.txt"], "--budget", "9"], EXIT_BAD_INPUT),
        "weights non-ascii": (["scan", m, "--weights", t["unicode.txt"], "--budget", "9"], EXIT_BAD_INPUT),
        "weights complex npy": (["scan", m, "--weights", t["complex.npy"], "--budget", "9"], EXIT_BAD_INPUT),
        "weights pickled npy": (["scan", m, "--weights", t["objects.npy"], "--budget", "9"], EXIT_BAD_INPUT),
        "weights a directory": (["scan", m, "--weights", t["adir"], "--budget", "9"], EXIT_BAD_INPUT),
        "epsilon nan": (scan + ["--budget", "9", "--epsilon", "nan"], EXIT_BAD_INPUT),
        "epsilon inf": (scan + ["--budget", "9", "--epsilon", "inf"], EXIT_BAD_INPUT),
        "epsilon negative": (scan + ["--budget", "9", "--epsilon", "-0.1"], EXIT_BAD_INPUT),
        "epsilon word": (scan + ["--budget", "9", "--epsilon", "small"], EXIT_BAD_INPUT),
        "epsilon with iterate": (scan + ["--budget", "9", "--epsilon", "0.1", "--iterate"], EXIT_BAD_INPUT),
        "scan out missing directory": (scan + ["--budget", "9", "--out", str(tmp / "no" / "s.txt")], EXIT_BAD_INPUT),
        "scan out a directory": (scan + ["--budget", "9", "--out", t["adir"]], EXIT_BAD_INPUT),
        "bound out wrong suffix": (["bound", m, "--out", str(tmp / "c.npy")], EXIT_BAD_INPUT),
        "bound out bare suffix": (["bound", m, "--out", str(tmp / ".npz")], EXIT_BAD_INPUT),
        "length 1e9": (SAMPLE[:3] + ["--length", "1e12", m, "--max-memory-gb", "4"], EXIT_TOO_LARGE),
        "chains 1e9": (SAMPLE + [m, "--chains", "1e9", "--max-memory-gb", "4"], EXIT_TOO_LARGE),
        "draws 1e10": (SAMPLE[:5] + ["--draws", "1e10", m, "--max-memory-gb", "4"], EXIT_TOO_LARGE),
        "chains zero": (SAMPLE + [m, "--chains", "0"], EXIT_BAD_INPUT),
        "draws three": (SAMPLE[:5] + ["--draws", "3", m], EXIT_BAD_INPUT),
        "seed negative": (SAMPLE + [m, "--seed", "-1"], EXIT_BAD_INPUT),
        "seed 2^64": (SAMPLE + [m, "--seed", str(2**64)], EXIT_BAD_INPUT),
        "start beyond": (SAMPLE + [m, "--start", "2"], EXIT_BAD_INPUT),
        "start word": (SAMPLE + [m, "--start", "dispersed"], EXIT_BAD_INPUT),
        "vars beyond": (SAMPLE + [m, "--vars", "0,9"], EXIT_BAD_INPUT),
        "length with a scan file": (["sample", m, "--scan", t["beyond.txt"], "--length", "9"], EXIT_BAD_INPUT),
        "scan file fraction": (["sample", m, "--scan", t["fraction.txt"]], EXIT_BAD_INPUT),
        "scan file beyond": (["sample", m, "--scan", t["beyond.txt"]], EXIT_BAD_INPUT),
        "scan file minus two": (["sample", m, "--scan", t["minus2.txt"]], EXIT_BAD_INPUT),
        "scan file blank": (["sample", m, "--scan", t["blank.txt"]], EXIT_BAD_INPUT),
        "scan file missing": (["sample", m, "--scan", str(tmp / "nope.txt")], EXIT_BAD_INPUT),
        "save chains wrong suffix": (SAMPLE + [m, "--save-chains", str(tmp / "c.zarr")], EXIT_BAD_INPUT),
        "memory limit zero": (["bound", m, "--max-memory-gb", "0"], EXIT_BAD_INPUT),
        "memory limit nan": (["bound", m, "--max-memory-gb", "nan"], EXIT_BAD_INPUT),
        "memory limit tiny": (["bound", m, "--max-memory-gb", "1e-9"], EXIT_TOO_LARGE),
        "table entries zero": (["exact", m, "--max-table-entries", "0"], EXIT_BAD_INPUT),
        "table entries too few": (["exact", m, "--max-table-entries", "10"], EXIT_TOO_LARGE),
    }


def _run(argv, capsys):
    tracemalloc.start()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out = capsys.readouterr()
    return code, out.out, out.err, peak


def _assert_clean_failure(name, expected, code, out, err, peak):
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == expected, f"{name}: exit {code} (expected {expected}): {err}"
    assert out == "", f"{name}: printed {out[:200]!r}"
    assert len(lines) == 1 and "Traceback" not in err, f"{name}: {err}"
    assert peak < MAX_TRACED_BYTES, f"{name}: {peak / 2**20:.0f} MB"


@pytest.fixture(scope="module", autouse=True)
def _warm(tmp_path_factory):
    """Import the package's modules and load (or compile) the numba reading kernels once, before the cases."""
    directory = tmp_path_factory.mktemp("warm")
    (directory / "good.uai").write_text(GOOD_UAI)
    np.savez(directory / "good.npz", **grid_model(2, 2, coupling=0.3).to_npz_dict())
    for argv in (["exact", str(directory / "good.uai")], ["bound", str(directory / "good.npz")]):
        assert main(argv) == 0


def test_malformed_uai_files(tmp_path, capsys):
    cases = _uai_cases()
    assert len(cases) > 60
    for k, (name, (data, expected)) in enumerate(sorted(cases.items())):
        path = tmp_path / f"case{k}.uai"
        path.write_bytes(data)
        _assert_clean_failure(name, expected, *_run(["exact", str(path)], capsys))
    # wrong container types under a .uai name
    (tmp_path / "dir.uai").mkdir()
    os.mkfifo(tmp_path / "fifo.uai")
    (tmp_path / "link.uai").symlink_to(tmp_path / "link.uai")
    for name in ("dir.uai", "fifo.uai", "link.uai", "missing.uai"):
        _assert_clean_failure(name, EXIT_BAD_INPUT, *_run(["bound", str(tmp_path / name)], capsys))


def test_malformed_npz_models(tmp_path, capsys):
    for k, (name, (data, expected)) in enumerate(sorted(_npz_cases().items())):
        path = tmp_path / f"case{k}.npz"
        path.write_bytes(data)
        _assert_clean_failure(name, expected, *_run(["bound", str(path)], capsys))


def test_bad_arguments(tmp_path, capsys):
    for name, (argv, expected) in sorted(_argument_cases(tmp_path).items()):
        _assert_clean_failure(name, expected, *_run(argv, capsys))


@pytest.mark.parametrize("command", ["bound", "exact"])
def test_the_good_files_of_the_corpus_work(tmp_path, capsys, command):
    """The corpus is built by breaking files that work: the unbroken ones must succeed."""
    (tmp_path / "good.uai").write_text(GOOD_UAI)
    np.savez(tmp_path / "good.npz", **grid_model(2, 2, coupling=0.3, field=0.1).to_npz_dict())
    for name in ("good.uai", "good.npz"):
        code, out, err, _ = _run([command, str(tmp_path / name)], capsys)
        assert code == 0 and out and all(": warning: " in line for line in err.splitlines()), err
