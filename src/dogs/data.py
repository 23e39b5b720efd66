"""Where the data sets live, and a clear stop when one is missing or corrupt.

Data sets are never committed. The data directory is, in order of precedence:

1. the environment variable ``DOGS_DATA_DIR``;
2. the config key ``data_dir``;
3. ``data/`` in the repository.

Each data set sits in its own sub-folder (``msrc_v1/``, ``heart_disease/``)
with the file names of its provenance README. :func:`require_dataset` checks
the files exist and match their published checksums, and otherwise raises
:class:`DatasetMissingError` saying where to get the data and where to put it.

An *absent* data set (none of its files in the data directory) and a *bad* one
(some files missing, or a checksum that does not match) are different things:
the workflow skips the experiments of an absent data set and says how to add it
(:func:`is_absent`, :func:`absent_notice`), but a bad data set is an error.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dogs.extras import require

__all__ = ["DATASETS", "HEART_DISEASE_FACTORS", "DatasetAbsentError", "DatasetMissingError", "absent_notice",
           "data_dir", "is_absent", "load_heart_disease", "require_dataset"]

ENV_VAR = "DOGS_DATA_DIR"


class DatasetMissingError(FileNotFoundError):
    """A data set is missing or does not match its checksum."""


class DatasetAbsentError(DatasetMissingError):
    """None of a data set's files is in the data directory (not yet added, as opposed to incomplete or corrupt)."""


@dataclass(frozen=True)
class Dataset:
    folder: str
    files: dict  # file name -> SHA-256 (None: existence only)
    source: str  # where to get it
    enables: str  # what the workflow runs with it


DATASETS = {
    "heart_disease": Dataset(
        folder="heart_disease",
        files={"reinis_counts.csv": "2a65f86cf8b2efa814c07058085b02ec2b153f92a8e1462feabff180df733311"},
        source=(
            "the 'reinis' table of the R package gRbase (Reinis et al. 1981; Edwards & Havranek 1985), "
            "exported as reinis_counts.csv with columns smoke,mental,phys,systol,protein,family,count "
            "(64 rows, counts summing to 1841; see data/README.md)"
        ),
        enables=("the Boltzmann-machine posteriors of the annular-augmentation paper, its Figs. 6-8 "
                 "(targets fig_aa6, fig_aa7, fig_aa8)"),
    ),
    "msrc_v1": Dataset(
        folder="msrc_v1",
        files={
            "MSRC_ObjCategImageDatabase_v1.zip": "aaece8871c6e295febf2cb8018b7fbbd0fb8f7c78982003c8071e601cf674f27",
            "MANIFEST.csv": "63edc17127299f96cc43f0c4f0d37d172cb6ebdb91dd6187d6314e0dfc9b7306",
        },
        source=(
            "Microsoft Research Cambridge Object Recognition Image Database v1, from Microsoft's download "
            "page (search 'MSRC object category image database v1'); keep the zip as downloaded, next to "
            "MANIFEST.csv (one row per member: file, kind, bytes, sha256, ...; see data/README.md)"
        ),
        enables="the MSRC segmentation of DoGS §5.5, DoGS Figs. 6, 7 and 16 (targets fig6, fig7, fig16)",
    ),
}


def data_dir(config_value: str | None = None) -> Path:
    """The data directory: ``$DOGS_DATA_DIR``, else the config key ``data_dir``, else ``data/``."""
    value = os.environ.get(ENV_VAR) or config_value or "data"
    return Path(value).expanduser()


_CHECKED: dict = {}  # (path, size, mtime) -> SHA-256, so that a process hashes each file once


def _sha256(path: Path) -> str:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _CHECKED:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _CHECKED[key] = digest.hexdigest()
    return _CHECKED[key]


def _spec(name: str) -> Dataset:
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; expected one of {', '.join(DATASETS)}")
    return DATASETS[name]


def _where_to_put(spec: Dataset, config_value: str | None) -> str:
    files = " and ".join(f"<data dir>/{spec.folder}/{file_name}" for file_name in spec.files)
    now = data_dir(config_value).resolve()
    return f"{files}, where <data dir> is ${ENV_VAR}, or the config key data_dir, or data/ (now: {now})"


def is_absent(name: str, config_value: str | None = None) -> bool:
    """Whether none of data set ``name``'s files is in the data directory (an incomplete data set is not absent)."""
    spec = _spec(name)
    folder = data_dir(config_value) / spec.folder
    return not any((folder / file_name).is_file() for file_name in spec.files)


def require_dataset(name: str, config_value: str | None = None) -> Path:
    """Return the folder of data set ``name``, or raise :class:`DatasetMissingError` with instructions.

    :class:`DatasetAbsentError` (a subclass) when none of its files is there; the plain error when it is
    incomplete or a file does not have its published SHA-256.
    """
    spec = _spec(name)
    folder = data_dir(config_value) / spec.folder
    for file_name, checksum in spec.files.items():
        path = folder / file_name
        if not path.is_file():
            error = DatasetAbsentError if is_absent(name, config_value) else DatasetMissingError
            raise error(
                f"data set '{name}' not found: expected {path}.\n"
                f"  Get it from {spec.source}.\n"
                f"  Put it at {_where_to_put(spec, config_value)}."
            )
        if checksum is not None and _sha256(path) != checksum:
            raise DatasetMissingError(
                f"data set '{name}' is corrupt or a different version: {path} does not have SHA-256 {checksum}.\n"
                f"  Get a fresh copy from {spec.source}."
            )
    return folder


def absent_notice(name: str, config_value: str | None = None) -> str:
    """Three lines for a user whose data directory lacks data set ``name``: what it enables, where to get and put it."""
    spec = _spec(name)
    return (
        f"Data set '{name}' is not in the data directory: this run leaves out {spec.enables}; "
        f"their rows of the paper-vs-ours table read 'needs data'.\n"
        f"  Get it from {spec.source}.\n"
        f"  Put it at {_where_to_put(spec, config_value)}."
    )


#: The six risk factors of the heart-disease table, in its column order (Edwards & Havranek's A-F).
HEART_DISEASE_FACTORS = ("smoke", "mental", "phys", "systol", "protein", "family")


def load_heart_disease(folder) -> np.ndarray:
    """The 1841 people of the heart-disease table as ``{0, 1}`` rows (int8), one column per risk factor.

    ``reinis_counts.csv`` has one row per cell of the 2^6 table with levels ``y``/``n`` (the source's own
    labels). Its provenance notes establish that the first level ``y`` is the *absent or low* state (no
    strenuous work, blood pressure < 140, negative family history, ...), so ``x = 1`` codes the level ``n``:
    the risk factor present or high. Any consistent coding describes the same Boltzmann machine up to the
    signs of its parameters. Each cell's row is repeated ``count`` times.
    """
    require("workflow", "dogs.data.load_heart_disease")
    import pandas as pd

    path = Path(folder) / "reinis_counts.csv"
    table = pd.read_csv(path)
    expected = [*HEART_DISEASE_FACTORS, "count"]
    if list(table.columns) != expected or len(table) != 64:
        raise DatasetMissingError(f"{path}: expected 64 rows with columns {expected}")
    levels = table[list(HEART_DISEASE_FACTORS)]
    if not levels.isin(["y", "n"]).all().all():
        raise DatasetMissingError(f"{path}: levels must be 'y' or 'n'")
    units = (levels == "n").to_numpy().astype(np.int8)
    return np.repeat(units, table["count"].to_numpy(), axis=0)
