"""Optional dependencies: the named extras of the distribution, and the one-line error that names the one to install.

The core of the package (``pip install dogs-gibbs``) needs numpy, scipy, numba and tqdm: models, influence bounds,
scans and DoGS (Algorithm 2), the samplers, exact inference by enumeration and the ``dogs`` command's ``bound`` and
``scan``. The rest comes with an extra (``pip install 'dogs-gibbs[arviz]'``):

==========  ========================================================  ===========================================
extra       packages                                                  what needs it
==========  ========================================================  ===========================================
pgmpy       pgmpy                                                     :mod:`dogs.models.pgmpy_interop`, the junction
                                                                      tree and variable elimination of
                                                                      :mod:`dogs.exact` (``dogs exact``)
arviz       arviz (0.2x or 1.x), pandas, h5netcdf                     :func:`dogs.sample` and :func:`dogs.marginals`
                                                                      (``dogs sample``, ``--save-chains``)
plot        matplotlib, pandas                                        :mod:`dogs.plotting` (``--plot``)
workflow    the three above and snakemake, scikit-image, pyyaml,      the Snakefile: :mod:`dogs.experiments`,
            threadpoolctl, markdown-it-py                             :mod:`dogs.workflow`, the result tables
all         every extra above
==========  ========================================================  ===========================================

:func:`require` is called where a feature starts (a subpackage's ``__init__``, a module's first line, a function
that imports the package lazily); a missing package raises :class:`MissingExtraError` (an ``ImportError``) with one
line naming the extra, before any computation. ``pyproject.toml`` is the source of the extras; :data:`EXTRAS` holds
the import names of the packages each feature imports (h5netcdf, which only ``--save-chains`` needs, is checked
there), and a test keeps the two in step.
"""

from __future__ import annotations

import importlib.util

__all__ = ["DISTRIBUTION", "EXTRAS", "MissingExtraError", "require"]

#: The distribution's name on the package index (the import name is ``dogs``).
DISTRIBUTION = "dogs-gibbs"

#: Import names of each extra's packages (``pyproject.toml`` lists their distributions and versions).
EXTRAS: dict[str, tuple[str, ...]] = {
    "pgmpy": ("pgmpy",),
    "arviz": ("arviz", "pandas"),
    "plot": ("matplotlib", "pandas"),
    "workflow": ("snakemake", "pandas", "matplotlib", "skimage", "yaml", "threadpoolctl", "markdown_it", "pgmpy",
                 "arviz"),
}


class MissingExtraError(ImportError):
    """A feature whose optional packages are not installed; the message names the extra that installs them."""


def require(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtraError` unless every package of ``extra`` is installed.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.
    feature : str
        What needs it, for the message (a module or function name).
    """
    missing = [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(f"{feature} needs the '{extra}' extra ({', '.join(missing)} not installed): "
                                f"pip install '{DISTRIBUTION}[{extra}]'")
