r"""The draws of :func:`dogs.sample` as ArviZ data, for both ArviZ lines, and the diagnostics of indicator draws.

ArviZ 0.2x holds MCMC output in ``arviz.InferenceData``; ArviZ 1.x (arviz-base and arviz-stats behind the ``arviz``
namespace) in ``xarray.DataTree``. :func:`to_arviz` builds the one the installed ArviZ uses, in one layout for both:
the group ``posterior`` holds the variable ``label`` with dimensions ``(chain, draw, node)``, the coordinate ``node``
holds the model's variable indices, and the group's attributes (``posterior.attrs``) those of the sampling call.
Either object reads the same way: ``data.posterior["label"]``, ``data.posterior.attrs``, ``arviz.summary(data)``,
``arviz.rhat(data)``, ``arviz.ess(data)``, ``data.to_netcdf(path)`` (and ``arviz.from_netcdf(path)`` back).
:func:`posterior_draws` reads the layout back from either.

The dimension is named ``node``, not ``variable``: ArviZ 1.x's ``summary`` stacks the variables of a data set along
xarray's default stacking dimension, ``variable``, and fails on data that has a dimension of that name.

:func:`indicator_diagnostics` gives, through the installed ArviZ, the rank-normalised split :math:`\hat R` and the
bulk and tail effective sample sizes of Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), and the Monte Carlo
standard error of the mean (the draws' standard deviation over the square root of their effective sample size).
Both lines give the same :math:`\hat R`, bulk ESS and standard error; on 0/1 draws the tail ESS can differ, since
the tail ESS is the smaller ESS of the indicators of the 5 % and 95 % quantiles, one of which is constant for 0/1
draws: ArviZ 0.2x counts a constant indicator as ``chains * draws`` effective draws, ArviZ 1.x leaves it out.

ArviZ is an optional dependency (the ``arviz`` extra, :mod:`dogs.extras`); :func:`import_arviz` says which extra
to install when it is missing.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np

from dogs.extras import DISTRIBUTION, MissingExtraError, require

__all__ = ["LABEL", "NODE", "arviz_major_version", "check_netcdf_writer", "import_arviz", "indicator_diagnostics",
           "posterior_draws", "to_arviz"]

#: Name of the posterior variable holding the draws (states as labels ``0 .. K_i - 1``).
LABEL = "label"
#: Name of the dimension (and coordinate) of the model's variables.
NODE = "node"


def import_arviz():
    """``arviz``, imported without its import-time announcements (ArviZ 0.2x announces its refactor).

    Raises :class:`dogs.extras.MissingExtraError`, naming the ``arviz`` extra, when ArviZ or pandas is missing.
    """
    require("arviz", "sampling with ArviZ output (dogs.sample, dogs.marginals)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import arviz

    return arviz


def arviz_major_version(az) -> int:
    """The ArviZ line of the module ``az``: 0 (``InferenceData``) or 1 and later (``xarray.DataTree``)."""
    return int(str(az.__version__).split(".")[0])


def to_arviz(labels: np.ndarray, nodes: np.ndarray, attrs: dict):
    """The draws ``labels`` ``(chain, draw, node)`` as the installed ArviZ's data (layout in the module docstring).

    Parameters
    ----------
    labels : ndarray of int
        Draws, states as labels.
    nodes : ndarray of int
        The model's index of each recorded variable (the coordinate ``node``).
    attrs : dict
        Attributes of the ``posterior`` group (numbers and strings, so that the data saves to netCDF).

    Returns
    -------
    arviz.InferenceData (ArviZ 0.2x) or xarray.DataTree (ArviZ 1.x)
    """
    az = import_arviz()
    groups = {LABEL: np.asarray(labels)}
    layout = {"coords": {NODE: np.asarray(nodes)}, "dims": {LABEL: [NODE]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if arviz_major_version(az) >= 1:
            data = az.from_dict({"posterior": groups}, **layout)
        else:
            data = az.from_dict(posterior=groups, **layout)
    data.posterior.attrs.update(attrs)  # from_dict's attrs= does not reach the posterior group in ArviZ 0.2x
    return data


def posterior_draws(data) -> tuple[np.ndarray, np.ndarray, dict]:
    """``(labels, nodes, attrs)`` of :func:`to_arviz`'s data, from either ArviZ line or a saved netCDF file."""
    posterior = data.posterior
    return (np.asarray(posterior[LABEL].values), np.asarray(posterior[NODE].values, dtype=np.int64),
            dict(posterior.attrs))


def indicator_diagnostics(values: np.ndarray) -> dict[str, np.ndarray]:
    """ArviZ's ``r_hat`` (rank), ``ess_bulk``, ``ess_tail`` and ``mcse`` (of the mean) of draws ``(chain, draw, k)``.

    Each is an array of ``k`` floats. With one chain ``r_hat`` is NaN (it compares chains; ArviZ is not asked, since
    it would log a warning on the terminal for every marginal). Undefined values of draws that never change may be
    NaN or finite, depending on the ArviZ line, so callers decide what a constant series reports.
    """
    az = import_arviz()
    values = np.asarray(values, dtype=np.float64)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # e.g. "more chains than draws", which is no error here
        dataset = az.convert_to_dataset({"x": values})

        def statistic(function, method):
            return np.asarray(function(dataset, method=method)["x"].values, dtype=np.float64)

        r_hat = np.full(values.shape[2:], np.nan) if values.shape[0] < 2 else statistic(az.rhat, "rank")
        return {"r_hat": r_hat, "ess_bulk": statistic(az.ess, "bulk"), "ess_tail": statistic(az.ess, "tail"),
                "mcse": statistic(az.mcse, "mean")}


def check_netcdf_writer() -> None:
    """Raise :class:`dogs.extras.MissingExtraError` unless a netCDF4 writer is installed (h5netcdf with h5py, or
    netCDF4).

    ArviZ 0.2x installs h5netcdf and h5py; ArviZ 1.x neither, and its ``to_netcdf`` fails only after the data is
    built.
    """
    writers = [("h5netcdf", "h5py"), ("netCDF4",)]
    if not any(all(importlib.util.find_spec(name) for name in writer) for writer in writers):
        raise MissingExtraError("saving draws as netCDF needs the 'arviz' extra (h5netcdf and h5py not installed): "
                                f"pip install '{DISTRIBUTION}[arviz]'")
