"""Model files for the ``dogs`` command: UAI networks and the package's own ``.npz`` binary models.

A ``.npz`` model is read without unpickling (``allow_pickle=False``): its archive must hold exactly the
arrays ``shape``, ``edges``, ``theta`` and ``h`` (:meth:`dogs.models.BinaryPairwiseMRF.to_npz_dict`),
each array's header is checked (real numbers, sizes within the memory limit and within the archive)
before its data are read, and the values must be finite with magnitudes at most
:data:`MAX_ABS_PARAMETER` (our choice: far beyond any model that mixes, yet small enough that sums of
log potentials over a clique stay finite in float64).
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import numpy as np

from dogs.cli._checks import InputError, TooLargeError, readable_file
from dogs.cli._guard import Guard

__all__ = ["MAX_ABS_PARAMETER", "load_model"]

#: Largest accepted magnitude of a coupling or field in a ``.npz`` model.
MAX_ABS_PARAMETER = 1e150

_NPZ_KINDS = {"shape": "iu", "edges": "iu", "theta": "iuf", "h": "iuf"}
_KIND_NAMES = {"b": "boolean", "c": "complex", "O": "Python object", "U": "text", "S": "byte-string",
               "V": "structured", "M": "date", "m": "time-delta"}


def load_model(path: str, guard: Guard):
    """``(model, log_constant)`` from a ``.uai`` or a package ``.npz`` file, checked before use.

    A pairwise ``MARKOV`` network with positive entries gives a pairwise model; any other UAI file (``BAYES``,
    a factor over more than two variables, zero entries) a :class:`~dogs.models.factor_graph.DiscreteFactorGraph`
    (:func:`dogs.models.uai.read_uai_model`), which every subcommand takes.
    """
    file = readable_file(path, "model file")
    suffix = file.suffix.lower()
    if suffix not in (".uai", ".npz"):
        raise InputError(f"model file {path}: unknown format {file.suffix or '(no suffix)'!r}; use a .uai network "
                         "or a dogs .npz model")
    guard.check(f"model file {path} (read whole)", 2.0 * file.stat().st_size)
    model, constant = _read_uai(file, guard) if suffix == ".uai" else (_read_npz(file, guard), 0.0)
    guard.model(f"model file {path} ({model.n_vars} variables, {model.n_edges} interactions)", model.n_vars,
                model.n_edges)
    return model, constant


def _read_uai(file: Path, guard: Guard):
    from dogs.models.uai import read_uai_model

    return read_uai_model(file, max_table_entries=guard.table_entries())


def _read_npz(file: Path, guard: Guard):
    from dogs.models.binary import BinaryPairwiseMRF

    with open(file, "rb") as stream:
        head = stream.read(6)
    if head == b"\x93NUMPY":
        raise InputError(f"model file {file} is a single .npy array, not a .npz model archive (a dogs model holds "
                         "the arrays shape, edges, theta and h)")
    if not zipfile.is_zipfile(file):
        raise InputError(f"model file {file} is not a .npz archive (empty, truncated or another format); a dogs "
                         "model holds the arrays shape, edges, theta and h")
    try:
        with zipfile.ZipFile(file) as archive:
            arrays = _npz_arrays(archive, file, guard)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        if isinstance(exc, (InputError, TooLargeError)):
            raise
        raise InputError(f"model file {file} is a damaged .npz archive ({exc})") from None
    shape, edges, theta, h = (arrays[k] for k in ("shape", "edges", "theta", "h"))
    if shape.ndim != 1 or shape.size not in (1, 2) or np.any(shape < 1):
        raise InputError(f"model file {file}: 'shape' must list one or two positive sizes, got {shape.tolist()}")
    if edges.ndim != 2 or edges.shape[1:] != (2,):
        raise InputError(f"model file {file}: 'edges' must have shape (E, 2), got {edges.shape}")
    if h.ndim != 1 or h.size < 1:
        raise InputError(f"model file {file}: 'h' must be a non-empty 1-d array, got shape {h.shape}")
    if theta.shape != (len(edges),):
        raise InputError(f"model file {file}: 'theta' must hold one coupling per edge ({len(edges)}), got shape "
                         f"{theta.shape}")
    if int(np.prod(shape, dtype=np.float64)) != h.size:
        raise InputError(f"model file {file}: 'shape' {shape.tolist()} does not match the {h.size} variables of 'h'")
    for name, values in (("theta", theta), ("h", h)):
        finite = np.isfinite(values)
        if not finite.all():
            raise InputError(f"model file {file}: '{name}' holds {values[~finite][0]} at index "
                             f"{int(np.argmin(finite))}; parameters must be finite")
        big = np.abs(values) > MAX_ABS_PARAMETER
        if big.any():
            k = int(np.argmax(big))
            raise InputError(f"model file {file}: '{name}' holds {values[k]:g} at index {k}; magnitudes above "
                             f"{MAX_ABS_PARAMETER:g} are refused (log potentials would overflow float64)")
    try:
        return BinaryPairwiseMRF(edges.astype(np.int64), theta.astype(np.float64), h.astype(np.float64),
                                 shape=tuple(int(s) for s in shape) if shape.size == 2 else None)
    except (ValueError, TypeError) as exc:
        raise InputError(f"model file {file}: {exc}") from None


def _npz_arrays(archive: zipfile.ZipFile, file: Path, guard: Guard) -> dict:
    names = archive.namelist()
    keys = {name[:-4] for name in names if name.endswith(".npy")}
    strays = [name for name in names if not name.endswith(".npy")]
    missing = [k for k in _NPZ_KINDS if k not in keys]
    extra = sorted(keys - set(_NPZ_KINDS))
    if strays or missing or extra:
        problem = (f"lacks {', '.join(map(repr, missing))}" if missing
                   else f"holds unexpected entries {', '.join(map(repr, (extra + strays)[:3]))}")
        raise InputError(f"model file {file} {problem}; a dogs model holds exactly the arrays shape, edges, theta, h")
    arrays = {}
    for key, kinds in _NPZ_KINDS.items():
        info = archive.getinfo(key + ".npy")
        with archive.open(info) as stream:
            version = np.lib.format.read_magic(stream)
            shape, fortran, dtype = (np.lib.format.read_array_header_1_0(stream) if version == (1, 0)
                                     else np.lib.format.read_array_header_2_0(stream))
        if dtype.hasobject or dtype.kind not in kinds:
            kind = _KIND_NAMES.get(dtype.kind, str(dtype))
            wanted = "integers" if kinds == "iu" else "real numbers"
            raise InputError(f"model file {file}: array '{key}' holds {kind} values ({dtype}); it must hold {wanted}")
        n_bytes = float(np.prod(shape, dtype=np.float64)) * dtype.itemsize
        guard.check(f"model file {file}: array '{key}' of shape {shape}", 4.0 * n_bytes)
        if n_bytes > info.file_size:
            raise InputError(f"model file {file}: array '{key}' declares shape {shape} but the archive holds only "
                             f"{info.file_size} bytes of it (truncated)")
        with archive.open(info) as stream:
            arrays[key] = np.lib.format.read_array(stream, allow_pickle=False)
    return arrays
