r"""Many independent chains recorded after many scan lengths, in as few runs as possible.

The measured error and bias curves of DoGS (§5.1 beyond the paper, Figs. 5, 8, 13) need, for every
scan and every length ``T`` of a grid, the values of some variables after ``T`` steps of ``N``
independent chains (each chain is one draw from the law of the length-``T`` sampler). Two kinds of scan
families make this cheap or not:

- a *prefix* family, where the length-``T`` scan is the first ``T`` steps of one long scan (uniform and
  systematic scans): one run of the longest scan records every ``T``;
- a *per-length* family ``{T: Scan}`` whose members differ (DoGS re-optimised for every ``T``): one run
  per ``T``.

Seeds: a prefix family runs from ``seed``; the member of length ``T`` of a per-length family runs from
``extend_seed(seed, T)`` (:func:`dogs.seeds.extend_seed`), so every recorded value can be replayed.
:func:`samples_by_scan` runs several named families, the family ``name`` from ``extend_seed(seed, name)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work
from dogs.samplers.gibbs import run_gibbs
from dogs.scans.base import Scan
from dogs.seeds import extend_seed

if TYPE_CHECKING:  # pandas is not a core dependency: imported where a table is made
    import pandas as pd

__all__ = ["LengthSamples", "mean_by_scan_and_length", "samples_at_lengths", "samples_by_scan"]


@dataclass(frozen=True, eq=False)
class LengthSamples:
    """Values of ``record_vars`` after each ``T`` of ``lengths``, from independent chains.

    Attributes
    ----------
    lengths : (R,) int64 array
    values : (n_chains, R, V) int8 array
        ``values[c, r, v]``: variable ``record_vars[v]`` of chain ``c`` after ``lengths[r]`` steps.
    record_vars : (V,) int64 array
    work : Work
        Everything the runs cost (the sampler contract of :mod:`dogs.samplers.base`).
    """

    lengths: np.ndarray
    values: np.ndarray
    record_vars: np.ndarray
    work: Work


def samples_at_lengths(model: BinaryPairwiseMRF, scans: Scan | Mapping[int, Scan], lengths, *,
                       seed: np.random.SeedSequence, n_chains: int, initial_state=1, record_vars) -> LengthSamples:
    """Record ``record_vars`` after every ``T`` in ``lengths`` steps of ``n_chains`` independent Gibbs chains.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    scans : Scan or mapping ``{T: Scan}``
        A prefix family (one scan of length at least ``max(lengths)``, whose first ``T`` steps are the
        length-``T`` scan) or a per-length family (the scan of each ``T``, of length ``T``).
    lengths : array of int
        The grid of ``T`` (sorted and made unique).
    seed : numpy.random.SeedSequence
        Root of the chains' seeds (see the module docstring).
    n_chains, initial_state
        As in :func:`~dogs.samplers.run_gibbs`.
    record_vars : array of int
        The variables to record.
    """
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a numpy.random.SeedSequence, got {type(seed).__name__}")
    lengths = np.unique(np.asarray(lengths, dtype=np.int64))
    if lengths.size == 0 or lengths[0] < 0:
        raise ValueError("lengths must be a non-empty list of non-negative integers")
    record_vars = np.atleast_1d(np.asarray(record_vars, dtype=np.int64))
    if isinstance(scans, Scan):
        if scans.length < lengths[-1]:
            raise ValueError(f"the scan has {scans.length} steps, fewer than the longest length {lengths[-1]}")
        prefix = scans if scans.length == lengths[-1] else Scan(scans.indices[: lengths[-1]], scans.n_vars)
        out = run_gibbs(model, prefix, seed=seed, n_chains=n_chains, initial_state=initial_state,
                        record_vars=record_vars, record_times=lengths)
        return LengthSamples(lengths, out.recorded, record_vars, out.work)
    missing = [int(t) for t in lengths if int(t) not in scans]
    if missing:
        raise KeyError(f"no scan of length {missing[0]} in the per-length family")
    values, work = [], Work(0, 0)
    for t in lengths:
        scan = scans[int(t)]
        if scan.length != t:
            raise ValueError(f"the scan stored for T = {int(t)} has length {scan.length}")
        out = run_gibbs(model, scan, seed=extend_seed(seed, int(t)), n_chains=n_chains, initial_state=initial_state,
                        record_vars=record_vars, record_times=[int(t)])
        values.append(out.recorded[:, 0, :])
        work = work + out.work
    return LengthSamples(lengths, np.stack(values, axis=1), record_vars, work)


def samples_by_scan(model: BinaryPairwiseMRF, families: Mapping[str, Scan | Mapping[int, Scan]], lengths, *,
                    seed: np.random.SeedSequence, n_chains: int, initial_state=1, record_vars,
                    progress: Callable[[str], None] | None = None) -> Iterator[tuple[str, LengthSamples]]:
    """:func:`samples_at_lengths` for every named scan family; family ``name`` runs from ``extend_seed(seed, name)``.

    Yields ``(name, LengthSamples)`` in the order of ``families``; ``progress`` gets a line per family.
    """
    for name, family in families.items():
        out = samples_at_lengths(model, family, lengths, seed=extend_seed(seed, name), n_chains=n_chains,
                                 initial_state=initial_state, record_vars=record_vars)
        if progress:
            progress(f"{name}: {out.lengths.size} lengths x {n_chains} chains, {out.work.site_updates:,} site updates")
        yield name, out


def mean_by_scan_and_length(model: BinaryPairwiseMRF, families: Mapping[str, Scan | Mapping[int, Scan]], lengths, *,
                            target: int, seed: np.random.SeedSequence, n_chains: int, initial_state=1,
                            progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Mean and standard error of ``X_target^T`` over ``n_chains`` chains for every scan family and ``T``.

    Columns scan, T, mean, se, n_chains (:func:`dogs.summaries.mean_by_length`); seeds as in
    :func:`samples_by_scan`. With zero field and ``E_pi[X_target] = 0`` the mean is the bias of the
    length-``T`` sampler (DoGS Figs. 5, 8, 13).
    """
    import pandas as pd

    from dogs.summaries import mean_by_length

    frames = []
    for name, out in samples_by_scan(model, families, lengths, seed=seed, n_chains=n_chains,
                                     initial_state=initial_state, record_vars=[target], progress=progress):
        frame = mean_by_length(out.lengths, out.values[:, :, 0])
        frame.insert(0, "scan", name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
