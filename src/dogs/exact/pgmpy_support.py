"""What the pgmpy-based engines share: a quiet lazy import, node names, reading factor axes by name.

Facts about pgmpy 1.1 that both :mod:`dogs.exact.junction_tree` and
:mod:`dogs.exact.variable_elimination` rely on:

- importing pgmpy (models, factors, inference) takes about 2 s, so it is imported
  lazily, inside the engines, and its progress bars are switched off there;
- a node named by the integer ``0`` is taken for "no node" in places (pgmpy tests
  ``if node:``, so ``get_cardinality(0)`` returns the dict of all cardinalities
  instead of one number): every variable ``v`` is named by the string
  :func:`node_name` ``(v) = "x{v}"``;
- the axis order of a factor product comes from a Python set, so it changes with
  ``PYTHONHASHSEED``: tables are always read by variable name
  (:func:`table_by_name`), never by axis position;
- ``DiscreteFactor`` values are laid out in C order over its variable list (the
  last variable varies fastest), so a numpy array whose axes follow that list can
  be passed as it is;
- state names fix the index-to-state mapping, and two factors that list one
  variable's states in different orders cannot be multiplied: every factor gives
  variable ``v`` the states ``0 .. K_v - 1`` in that order.
"""

from __future__ import annotations

import numpy as np

from dogs.extras import require

__all__ = ["import_pgmpy", "node_name", "table_by_name"]


def import_pgmpy() -> None:
    """Import pgmpy (about 2 s the first time) and silence its progress bars.

    Raises :class:`dogs.extras.MissingExtraError`, naming the ``pgmpy`` extra, when pgmpy is not installed.
    """
    require("pgmpy", "exact inference through pgmpy (junction tree, variable elimination)")
    from pgmpy import config

    config.set_show_progress(False)


def node_name(v: int) -> str:
    """pgmpy node name of variable ``v``: a string, since pgmpy mistakes the integer node 0 for "no node"."""
    return f"x{v}"


def table_by_name(factor, names: list) -> np.ndarray:
    """Values of a pgmpy factor summed onto the variables ``names``, with axes in the order of ``names``.

    Axes are found by variable name (the factor's own axis order depends on the
    hash seed); the result is not normalised.
    """
    axes = [factor.variables.index(n) for n in names]
    values = np.asarray(factor.values, dtype=np.float64)
    others = tuple(a for a in range(len(factor.variables)) if a not in axes)
    table = values.sum(axis=others) if others else values
    kept = sorted(axes)
    return np.transpose(table, [kept.index(a) for a in axes])
