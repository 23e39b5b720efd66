"""Checks of the ``dogs`` command's arguments and files, made before any computation.

Every failure is an :class:`InputError` (exit code 2) or a :class:`TooLargeError` (exit code 3) whose
message names the option or file and says what is wrong, in one line.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

import numpy as np

from dogs.resources import TooLargeError

__all__ = ["InputError", "TooLargeError", "count", "non_negative_float", "output_path", "read_index_file",
           "readable_file", "seed"]


class InputError(ValueError):
    """Bad arguments or files (exit code 2)."""


_COUNT = re.compile(r"[0-9]+(?:[eE][0-9]+)?")


def count(text: str, option: str, minimum: int = 1) -> int:
    """A whole number written with ASCII digits (``1000`` or ``1e3``), at least ``minimum``."""
    if not isinstance(text, str) or not _COUNT.fullmatch(text):
        raise InputError(f"{option} takes a whole number such as 1000 or 1e3, got {text!r}")
    mantissa, _, exponent = text.lower().partition("e")
    if exponent and int(exponent) > 30:
        raise InputError(f"{option} {text} is far too large")
    value = int(mantissa) * 10 ** int(exponent or 0)
    if value < minimum:
        raise InputError(f"{option} must be at least {minimum}, got {text}")
    return value


def seed(text: str) -> int:
    """A seed: a whole number from 0 to 2^63 - 1."""
    value = count(text, "--seed", minimum=0)
    if value >= 2**63:
        raise InputError(f"--seed must be below 2^63, got {text}")
    return value


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def non_negative_float(text: str, option: str) -> float:
    """A finite, non-negative decimal number written in ASCII."""
    if not _DECIMAL.fullmatch(text):
        raise InputError(f"{option} takes a decimal number such as 0.01, got {text!r}")
    value = float(text)
    if not np.isfinite(value) or value < 0:
        raise InputError(f"{option} must be a finite non-negative number, got {text}")
    return value


def readable_file(path: str, what: str) -> Path:
    """``path`` as a regular file that can be opened for reading (a directory, pipe or device is refused)."""
    file = Path(path)
    try:
        mode = file.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{what} {path} not found") from None
    except OSError as exc:
        raise InputError(f"{what} {path} cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{what} {path} is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{what} {path} is not a regular file (a pipe or device cannot be read as one)")
    try:
        with open(file, "rb"):
            pass
    except OSError as exc:
        raise InputError(f"{what} {path} cannot be read ({exc.strerror or exc})") from None
    return file


def output_path(path: str | None, option: str, suffixes: tuple[str, ...]) -> Path | None:
    """Check, before any computation, that a result can be written to ``path``.

    The name must end in one of ``suffixes`` (the file is written at exactly that path), the path must
    not be a directory, and its directory must exist and accept a new file (tried by creating and
    removing a temporary file there, which also catches read-only file systems).
    """
    if path is None:
        return None
    file = Path(path)
    if not file.name or not any(file.name.lower().endswith(s) for s in suffixes) or file.name.lower() in suffixes:
        raise InputError(f"{option} {path}: the file name must end in {' or '.join(suffixes)}")
    if file.is_dir():
        raise InputError(f"{option} {path} is a directory; give a file name")
    directory = file.parent
    if not directory.is_dir():
        raise InputError(f"{option} {path}: the directory {directory} does not exist")
    if file.exists() and not file.is_file():
        raise InputError(f"{option} {path} exists and is not a regular file")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".probe", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot write in {directory} ({exc.strerror or exc})") from None
    return file


def read_index_file(path: str, what: str, max_entries: int) -> np.ndarray:
    """The numbers of a text file (whitespace separated, ASCII) or a ``.npy`` array, as float64.

    Refuses non-ASCII text, anything that is not a plain decimal number, ``.npy`` files holding
    Python objects, complex or boolean values, and files with more than ``max_entries`` numbers.
    """
    file = readable_file(path, what)
    if file.suffix.lower() == ".npy":
        return _read_npy(file, what, max_entries)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"{what} {path} cannot be read ({exc.strerror or exc})") from None
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path}: byte 0x{data[exc.start]:02x} is not ASCII; the file must list plain "
                         "ASCII numbers") from None
    tokens = text.split()
    if len(tokens) > max_entries:
        raise TooLargeError(f"{what} {path} lists {len(tokens)} numbers, more than the {max_entries} the memory "
                            "limit allows (raise it with --max-memory-gb)")
    for k, token in enumerate(tokens):
        if not _DECIMAL.fullmatch(token):
            raise InputError(f"{what} {path}: entry {k} is {token[:24]!r}, not a decimal number")
    return np.array([float(t) for t in tokens], dtype=np.float64)


def _read_npy(file: Path, what: str, max_entries: int) -> np.ndarray:
    try:
        with open(file, "rb") as stream:
            version = np.lib.format.read_magic(stream)
            shape, _, dtype = (np.lib.format.read_array_header_1_0(stream) if version == (1, 0)
                               else np.lib.format.read_array_header_2_0(stream))
    except (ValueError, OSError, EOFError) as exc:
        raise InputError(f"{what} {file} is not a readable .npy array ({exc})") from None
    if dtype.kind not in "iuf":
        raise InputError(f"{what} {file} holds {dtype} values; it must hold real numbers (integers or floats)")
    if int(np.prod(shape, dtype=np.float64)) > max_entries:
        raise TooLargeError(f"{what} {file} holds an array of shape {shape}, more than the {max_entries} numbers "
                            "the memory limit allows (raise it with --max-memory-gb)")
    try:
        values = np.load(file, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InputError(f"{what} {file} cannot be read as a .npy array ({exc})") from None
    return np.asarray(values, dtype=np.float64).ravel()
