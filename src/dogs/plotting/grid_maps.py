r"""Maps of a grid-shaped model: its marginals and how often a scan visits each site.

For a model whose variables lie on an ``rows x cols`` lattice (row-major numbering, 4-neighbour
edges), two pictures say more than a list of numbers:

- the **marginal map**: :math:`P(X_i = k)` for one state ``k`` (label 1, i.e. spin +1, by default),
  site by site;
- the **visit-frequency map** of a scan :math:`(q_t)_{t=1}^T`: the fraction of its deterministic steps
  that update each site. A DoGS scan for a target marginal (DoGS Algorithm 2 with :math:`d = e_i`)
  spends its steps near the target, and ever closer to it towards the end of the scan (DoGS §5.4,
  Figures 12 and 15); the map shows where the budget went.

The certificate (the scan's Dobrushin variation, which bounds the total-variation error of the
targeted marginals after the scan, DoGS Theorem 8) goes in the figure's title.

A model is grid-shaped when it carries a lattice ``shape`` (:func:`dogs.models.binary.grid_model`
sets one) or, for a model read from a file, when its number of variables is a square ``s * s`` and
every edge joins 4-neighbours of the ``s x s`` lattice (open or toroidal): :func:`grid_shape`.
"""

from __future__ import annotations

import numpy as np

from dogs.plotting import style

__all__ = ["NotAGridError", "grid_shape", "plot_marginal_map", "plot_visit_map", "visit_frequencies"]


class NotAGridError(ValueError):
    """The model's variables do not lie on a lattice, so there is no map to draw."""


def _lattice_pairs(side: int) -> set[tuple[int, int]]:
    pairs = set()
    for r in range(side):
        for c in range(side):
            i = r * side + c
            for j in (r * side + (c + 1) % side, ((r + 1) % side) * side + c):  # right and down, wrapping
                if i != j:
                    pairs.add((min(i, j), max(i, j)))
    return pairs


def grid_shape(model) -> tuple[int, int]:
    """``(rows, cols)`` of a grid-shaped model; :class:`NotAGridError` (with the reason) otherwise."""
    shape = getattr(model, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[0]), int(shape[1])
    p = int(model.n_vars)
    side = int(round(np.sqrt(p)))
    if side * side != p:
        raise NotAGridError(f"the model has {p} variables, not a square number, and no lattice shape: its "
                            "variables do not lie on a square grid, so there is no map to draw")
    edges = np.asarray(model.edges).reshape(-1, 2)
    allowed = _lattice_pairs(side)
    for i, j in edges.tolist():
        if (min(i, j), max(i, j)) not in allowed:
            raise NotAGridError(f"the model's edge ({i}, {j}) does not join lattice neighbours of a {side} x {side} "
                                "grid (row-major numbering): its variables do not lie on a grid, so there is no "
                                "map to draw")
    return side, side


def visit_frequencies(indices, n_vars: int) -> np.ndarray:
    """Fraction of a scan's deterministic steps that update each variable (zeros for an all-uniform scan)."""
    steps = np.asarray(indices)
    deterministic = steps[steps >= 0]
    counts = np.bincount(deterministic, minlength=n_vars).astype(np.float64)
    return counts / max(1, deterministic.size)


def _map(values: np.ndarray, shape: tuple[int, int], path, title: str, label: str, cmap: str, vmin, vmax,
         marked=()) -> None:
    rows, cols = shape
    fig, ax = style.subplots(1, 1, figsize=(4.8, 4.4))
    image = ax.imshow(np.asarray(values, dtype=np.float64).reshape(rows, cols), cmap=cmap, vmin=vmin, vmax=vmax,
                      interpolation="nearest")
    for i in marked:
        ax.plot(i % cols, i // cols, marker="o", markersize=8, markerfacecolor="none", markeredgecolor="red",
                markeredgewidth=1.5)
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    ax.grid(False)
    ax.set_title(title, fontsize=9)
    fig.colorbar(image, ax=ax, label=label)
    style.save_figure(fig, path)


def plot_marginal_map(probabilities, shape: tuple[int, int], path, state: int = 1, certificate: str = "") -> None:
    """Write a PNG map of ``probabilities[i]`` = :math:`P(X_i = \\text{state})` on the ``shape`` lattice.

    ``certificate``: a line of text for the title (e.g. the scan's Dobrushin variation and what it bounds).
    """
    values = np.asarray(probabilities, dtype=np.float64)
    if values.size != shape[0] * shape[1]:
        raise ValueError(f"{values.size} probabilities for a {shape[0]} x {shape[1]} grid")
    title = f"estimated P(X = {state}) per site" + (f"\n{certificate}" if certificate else "")
    _map(values, shape, path, title, f"P(X = {state})", "viridis", 0.0, 1.0)


def plot_visit_map(indices, shape: tuple[int, int], path, targets=(), certificate: str = "") -> None:
    """Write a PNG map of how often the scan ``indices`` updates each site; ``targets`` are circled in red."""
    n_vars = shape[0] * shape[1]
    freq = visit_frequencies(indices, n_vars)
    steps = np.asarray(indices)
    title = (f"share of the scan's {steps.size} steps at each site" + (f"\n{certificate}" if certificate else ""))
    _map(freq, shape, path, title, "fraction of steps", "magma", 0.0, max(float(freq.max()), 1e-12),
         marked=[int(t) for t in targets])
