"""``--plot FILE.png`` and ``--format uai-mar`` of the ``dogs`` command: checks made before any computation,
and the pictures and files made afterwards by the library (:mod:`dogs.plotting.grid_maps`, :mod:`dogs.uai_mar`).
"""

from __future__ import annotations

import numpy as np

from dogs.cli._checks import InputError, output_path

__all__ = ["check_mar_request", "check_plot", "plot_sample", "plot_scan"]


def check_plot(path: str | None, model):
    """``(file, (rows, cols))`` for ``--plot``, or None; refuses a non-grid model before any computation."""
    file = output_path(path, "--plot", (".png",))
    if file is None:
        return None
    from dogs.plotting.grid_maps import NotAGridError, grid_shape  # the 'plot' extra

    try:
        return file, grid_shape(model)
    except NotAGridError as exc:
        raise InputError(f"--plot draws maps of grid-shaped models only: {exc}") from None


def check_mar_request(fmt: str, variables: str | None, certify: bool = False) -> None:
    """The MAR format lists every variable's marginal and nothing else: refuse ``--vars`` and ``--certify`` with it."""
    if fmt != "uai-mar":
        return
    if variables is not None:
        raise InputError("--format uai-mar writes the marginals of every variable (the UAI MAR format lists all); "
                         "leave out --vars")
    if certify:
        raise InputError("--format uai-mar has no place for the certificate's bounds (the MAR format holds marginals "
                         "only); use --format json or csv with --certify")


def plot_sample(plot, result: dict, certificate: str = "") -> None:
    """The marginal map P(X_i = 1) of a ``dogs sample`` result (variables not reported are left blank)."""
    file, shape = plot
    values = np.full(shape[0] * shape[1], np.nan)
    for row in result["marginals"]:
        if row["state"] == 1:
            values[row["variable"]] = row["probability"]
    from dogs.plotting.grid_maps import plot_marginal_map

    text = certificate or (f"{result['chains']} chains x {result['draws']} draws, scan of {result['scan_length']} "
                           f"steps; max split R-hat {result['max_r_hat']:.3g}" if result.get("max_r_hat") is not None
                           else f"{result['chains']} chains x {result['draws']} draws")
    plot_marginal_map(values, shape, file, state=1, certificate=text)


def plot_scan(plot, indices, targets, base_variation: float, dogs_variation: float) -> None:
    """The visit-frequency map of a DoGS scan, its certificate (Dobrushin variation, DoGS Theorem 8) in the title."""
    from dogs.plotting.grid_maps import plot_visit_map

    file, shape = plot
    bound = ("vacuous (>= 1)" if dogs_variation >= 1 else f"{dogs_variation:.3g}")
    text = (f"certificate (DoGS Thm 8): weighted TV error after the scan <= {bound}\n"
            f"(base scan: {base_variation:.3g}); red circles: targets")
    plot_visit_map(indices, shape, file, targets=targets, certificate=text)
