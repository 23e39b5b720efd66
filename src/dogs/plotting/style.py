"""Shared matplotlib style of every figure: fonts, sizes, grid, and an atomic PNG writer.

Usage::

    from dogs.plotting import style

    fig, ax = style.subplots(1, 2, figsize=(10, 4))
    ...
    style.save_figure(fig, "figures/x/y.png")

Figures are plain :class:`matplotlib.figure.Figure` objects (no pyplot state, so no
figure leaks and no display backend is needed) with constrained layout.
:func:`save_figure` writes PNG at :data:`DPI` dots per inch through
:func:`dogs.io.atomic_path`, so an interrupted run never leaves half a figure, with the figure's title and
number of panels in the PNG's metadata.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib as mpl  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from dogs.io import atomic_path  # noqa: E402

__all__ = ["DPI", "RC_PARAMS", "apply_style", "panels", "subplots", "save_figure"]

#: Resolution of every PNG figure.
DPI = 150

#: The rcParams every figure uses (applied by :func:`subplots`).
RC_PARAMS = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 8.5,
    "legend.framealpha": 0.9,
    "figure.titlesize": 12,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "savefig.dpi": DPI,
    "savefig.bbox": "tight",
    "savefig.facecolor": "white",
}


def apply_style() -> None:
    """Update matplotlib's rcParams with :data:`RC_PARAMS`."""
    mpl.rcParams.update(RC_PARAMS)


def subplots(nrows: int = 1, ncols: int = 1, *, figsize=None, **kwargs):
    """A styled figure with a grid of axes: ``(fig, axes)`` as in :func:`matplotlib.pyplot.subplots`.

    Parameters
    ----------
    nrows, ncols : int
        Grid shape.
    figsize : (float, float), optional
        Inches; default 5 x 3.8 per panel.
    **kwargs
        Passed to :meth:`matplotlib.figure.Figure.subplots` (``sharex``, ``squeeze``, ...).
    """
    apply_style()
    if figsize is None:
        figsize = (5.0 * ncols, 3.8 * nrows)
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes


def panels(fig) -> int:
    """The number of visible plot panels of ``fig`` (colour bars are not panels)."""
    return sum(1 for ax in fig.axes if ax.get_visible() and not hasattr(ax, "_colorbar"))


def save_figure(fig, path, *, dpi: int = DPI) -> Path:
    """Write ``fig`` as PNG at ``dpi`` (default 150) to ``path`` atomically, then release it.

    The PNG carries the figure's title (its suptitle, which names the paper figure it regenerates) as its
    ``Title`` and its number of panels (:func:`panels`) as ``Panels``: the published figures are checked by them
    (:mod:`dogs.workflow.published`).
    """
    path = Path(path)
    title = fig._suptitle.get_text() if fig._suptitle is not None else ""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi,
                    metadata={"Title": " ".join(title.split()), "Panels": str(panels(fig))})
    if fig.canvas.manager is not None:  # a pyplot figure: release it from pyplot's registry
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path
