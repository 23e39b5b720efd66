r"""Figures of He, De Sa, Mitliagkas & Ré (2016), Fig. 2a-c: results in, figure out.

Every function takes the tidy tables written by :mod:`dogs.experiments.scan_order` and returns a
matplotlib figure; nothing is computed here beyond reading columns (the dotted guide lines of
Fig. 2a are :math:`c\,n^{\beta}` with the paper's :math:`\beta`, drawn through our largest-n point).
One colour per scan across all panels (:data:`SCAN_STYLE`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from dogs.plotting import style

__all__ = ["SCAN_STYLE", "MODEL_TITLES", "FIG2A_MODELS", "figure_mixing_vs_n", "figure_island_mass", "figure_permutations"]

SCAN_STYLE = {
    "random": {"label": "random scan", "color": "#4d4d4d", "marker": "o", "linestyle": "-"},
    "best_systematic": {"label": "best systematic", "color": "#1f77b4", "marker": "s", "linestyle": "-"},
    "worst_systematic": {"label": "worst systematic", "color": "#d62728", "marker": "^", "linestyle": "--"},
}
MODEL_TITLES = {
    "sequence_of_dependencies": "Sequence of dependencies",
    "two_islands": "Two islands",
    "discrete_pyramid": "Discrete pyramid",
    "memorize_and_repeat": "Memorize and repeat",
    "soft_dependencies": "Soft dependencies",
}
UPDATES = "t_mix (single-variable updates)"
#: Forward transitions from the bottom to the top state, of which M is a multiple (see dogs.counterexamples.models).
_PATH_LENGTH = {
    "sequence_of_dependencies": (lambda n: n, "n"),
    "memorize_and_repeat": (lambda n: 2 * n * n, "x 2n^2"),
    "soft_dependencies": (lambda n: (2 * n - 1) * n * n, "x (2n-1) n^2"),
}
#: Models of He et al.'s App. A: in Table 1 but not in their Fig. 2a.
APPENDIX_MODELS = ("memorize_and_repeat", "soft_dependencies")
_SOURCE_NOTE = {
    "all permutations": "over all perms",
    "paper's named order": "paper's order",
    "any order (all equivalent by symmetry)": "any order (symmetric)",
}


_PLAIN = FuncFormatter(lambda value, _pos: f"{value:g}")


def _plain_log(axis, minor_labels: bool = True):
    """Label a logarithmic axis with plain numbers (2, 3, 5, 10, ...) instead of 2 x 10^0."""
    axis.set_major_locator(LogLocator(base=10))
    axis.set_major_formatter(_PLAIN)
    axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 3.0, 5.0)))
    axis.set_minor_formatter(_PLAIN if minor_labels else NullFormatter())


def _smoke_title(fig, text, smoke):
    fig.suptitle(text + ("\nSMOKE RUN: small n, not comparable with the paper" if smoke else ""))


def _scan_label(scan, row, levels=False):
    base = SCAN_STYLE[scan]["label"] + (" (level chain)" if levels else "")
    if row is None:
        return base
    fitted = f"2^({row['fitted_alpha']:.2f}n) n^{row['fitted_beta']:.2f}" if row["paper_alpha"] else f"n^{row['fitted_beta']:.2f}"
    interval = f" [{row['beta_low']:.2f}, {row['beta_high']:.2f}]" if "beta_low" in row and not row["paper_alpha"] else ""
    return f"{base}: fit {fitted}{interval} (Table 1: {row['paper_order']})"


#: The models of He et al.'s Fig. 2a (our first figure, with the two islands' polynomial factor as its fourth
#: panel) and of its App. A (the second figure): at most four panels each, so that the text stays readable.
FIG2A_MODELS = ("sequence_of_dependencies", "discrete_pyramid", "two_islands")


def figure_mixing_vs_n(details: pd.DataFrame, reduced: pd.DataFrame, exponents: pd.DataFrame, *,
                       bridge_weight: float, epsilon: float, smoke: bool = False, appendix: bool = False):
    """Fig. 2a: exact mixing time against n for random, best and worst systematic scan, each model of He et al.'s
    figure (2 x 2 panels); with ``appendix``, the App. A models of Table 1 instead (1 x 2 panels).

    Filled markers: best/worst over all permutations; open markers: the paper's named orders or,
    for models symmetric under relabelling, any order. Dotted lines: Table 1's order through our
    largest-n point. Two islands: full model (markers) and the reduced model of §4 (lines); the
    last panel divides the reduced two-islands times by :math:`2^n` to show the polynomial factor.
    The App. A models (memorize and repeat, soft dependencies; in Table 1, not in He et al.'s
    Fig. 2a) show their random scan from the level chains, far beyond the full models of their
    systematic scans; bracketed values are drawn at their lower bound (the brackets are narrower
    than a marker: ``t_mix_upper`` in the data).
    """
    panels = list(APPENDIX_MODELS if appendix else FIG2A_MODELS)
    fig, axes = style.subplots(1 if appendix else 2, 2, figsize=(11.0, 4.9 if appendix else 9.4))
    axes = axes.ravel()
    for ax, name in zip(axes, panels):
        sub = details[details["model"] == name]
        for scan, st in SCAN_STYLE.items():
            data = sub[sub["scan"] == scan].sort_values("n")
            if data.empty:
                continue
            rows = exponents[(exponents["model"] == name) & (exponents["scan"] == scan) & exponents["primary"]]
            row = rows.iloc[0] if len(rows) else None
            enumerated = data["order_source"] == "all permutations"
            face = np.where(enumerated, st["color"], "white")
            if name == "two_islands":
                red = reduced[np.isclose(reduced["bridge_weight"], bridge_weight) & (reduced["scan"] == scan)].sort_values("n")
                ax.plot(red["n"], red["t_mix"], color=st["color"], linestyle=st["linestyle"], linewidth=1.2,
                        label=_scan_label(scan, row) + " [reduced]")
                ax.scatter(data["n"], data["t_mix"], s=30, marker=st["marker"], facecolors=face, edgecolors=st["color"], zorder=3)
            else:
                levels = name in APPENDIX_MODELS and scan == "random"
                ax.plot(data["n"], data["t_mix"], color=st["color"], linestyle=st["linestyle"], linewidth=1.2,
                        label=_scan_label(scan, row, levels))
                ax.scatter(data["n"], data["t_mix"], s=30, marker=st["marker"], facecolors=face, edgecolors=st["color"], zorder=3)
                if row is not None:  # Table 1's order through our largest-n point
                    n_grid = np.geomspace(data["n"].min(), data["n"].max(), 50)
                    n_last, t_last = data["n"].iloc[-1], data["t_mix"].iloc[-1]
                    ax.plot(n_grid, t_last * (n_grid / n_last) ** row["paper_beta"], color=st["color"], linestyle=":", linewidth=1.0, alpha=0.8)
        params = sub.iloc[0] if len(sub) else None
        title = MODEL_TITLES[name] + (" (App. A; not in He et al.'s Fig. 2a)" if name in APPENDIX_MODELS else "")
        if params is not None and not pd.isna(params["M"]):
            path, text = _PATH_LENGTH[name]
            title += f"\n(M = {params['M'] / path(params['n']):g} {text})"
        if name == "two_islands":
            title += f" (bridge weight {bridge_weight:g})"
            ax.set_yscale("log")
            ax.set_xlabel("n (variables per island; 2n in all)")
        else:
            ax.set_xscale("log")
            ax.set_yscale("log")
            _plain_log(ax.xaxis, minor_labels=bool(len(sub)) and sub["n"].max() / sub["n"].min() < 100)
            span = sub.loc[sub["scan"].isin(list(SCAN_STYLE)), "t_mix"]
            _plain_log(ax.yaxis, minor_labels=bool(len(span)) and span.max() / span.min() < 30)
            ax.set_xlabel("n (number of variables)")
        ax.set_title(title)
        ax.set_ylabel(UPDATES)
        sources = sorted(set(sub["order_source"]) - {"random scan"})
        note = "systematic: " + "; ".join(f"{_SOURCE_NOTE.get(s, s)} (n = {_n_range(sub, s)})" for s in sources)
        ax.text(0.98, 0.02, note.replace("; ", ";\n") if len(note) > 60 else note, transform=ax.transAxes, ha="right",
                va="bottom", fontsize=8.5, color="#555555")
        ax.legend(loc="upper left")
    if appendix:
        _smoke_title(fig, f"He et al. 2016, Table 1 (App. A models, not in their Fig. 2a): exact mixing times "
                          f"t_mix(eps = {epsilon:g}) against n", smoke)
        return fig
    ax = axes[3]
    full = details[details["model"] == "two_islands"]
    for scan, st in SCAN_STYLE.items():
        red = reduced[np.isclose(reduced["bridge_weight"], bridge_weight) & (reduced["scan"] == scan)].sort_values("n")
        ax.plot(red["n"], red["t_mix"] / 2.0 ** red["n"], color=st["color"], linestyle=st["linestyle"], label=st["label"] + " (reduced)")
        data = full[full["scan"] == scan].sort_values("n")
        ax.scatter(data["n"], data["t_mix"] / 2.0 ** data["n"], s=30, marker=st["marker"], facecolors="white", edgecolors=st["color"], zorder=3,
                   label=st["label"] + " (full model, paper's orders)" if scan != "random" else st["label"] + " (full model)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_log(ax.xaxis)
    _plain_log(ax.yaxis)
    ax.set_xlabel("n (variables per island)")
    ax.set_ylabel("t_mix / 2^n (single-variable updates)")
    ax.set_title("Two islands: polynomial factor t_mix / 2^n\n(Table 1: 1, 1, n for random, best, worst)")
    ax.legend(loc="upper left")
    _smoke_title(fig, f"He et al. 2016, Fig. 2a: exact mixing times t_mix(eps = {epsilon:g}) against n, worst case "
                      "over starting states\nfilled markers: best/worst over all permutations; open: paper's named "
                      "orders (or any order, symmetric models);\ndotted: Table 1's order through our largest n", smoke)
    return fig


def _n_range(frame, source):
    ns = sorted(frame.loc[frame["order_source"] == source, "n"].unique())
    return f"{ns[0]}..{ns[-1]}" if len(ns) > 1 else f"{ns[0]}"


def figure_island_mass(table: pd.DataFrame, *, smoke: bool = False):
    """Fig. 2b: mass on the other island (y) over updates, from island x at equilibrium, for three scans."""
    fig, ax = style.subplots(1, 1, figsize=(8.0, 4.8))
    n = int(table["n"].iloc[0])
    weight = float(table["bridge_weight"].iloc[0])
    for scan, st in SCAN_STYLE.items():
        data = table[table["scan"] == scan].sort_values("update")
        order = data["order"].iloc[0]
        label = st["label"] if scan == "random" else f"{st['label']}: {order}"
        ax.plot(data["update"], data["mass_island_y"], color=st["color"], linestyle=st["linestyle"], label=label)
    stationary = float(table["stationary_island_y"].iloc[0])
    ax.axhline(stationary, color="black", linestyle=":", linewidth=1.0, label=f"stationary mass of island y ({stationary:.3f})")
    ax.set_xlabel(f"single-variable updates (one sweep = {2 * n} updates)")
    ax.set_ylabel("probability mass on island y (the other island)")
    ax.set_ylim(0, max(0.55, stationary * 1.1))
    ax.legend(loc="lower right")
    _smoke_title(fig, f"He et al. 2016, Fig. 2b: two islands, n = {n} per island, bridge weight {weight:g} x the other states;\n"
                      "start: stationary distribution restricted to island x", smoke)
    return fig


def figure_permutations(table: pd.DataFrame, *, epsilon: float, smoke: bool = False):
    """Fig. 2c: sorted exact mixing times of every systematic permutation, against random scan."""
    models = [m for m in ("sequence_of_dependencies", "two_islands") if m in set(table["model"])]
    fig, axes = style.subplots(1, len(models), figsize=(6.8 * len(models), 4.8), squeeze=False)
    for ax, name in zip(axes[0], models):
        sub = table[table["model"] == name]
        perms = sub[sub["scan"] == "systematic"].sort_values("rank")
        t_random = float(sub.loc[sub["scan"] == "random", "t_mix"].iloc[0])
        n = int(sub["n"].iloc[0])
        ax.step(perms["rank"], perms["t_mix"], where="mid", color=SCAN_STYLE["best_systematic"]["color"],
                label=f"systematic scan, each of {len(perms)} permutations (sorted)")
        ax.axhline(t_random, color=SCAN_STYLE["random"]["color"], linestyle="--", label=f"random scan ({t_random:g})")
        first, last = perms.iloc[0], perms.iloc[-1]
        ax.scatter([first["rank"]], [first["t_mix"]], color=SCAN_STYLE["best_systematic"]["color"], zorder=3,
                   label=f"fastest ({first['t_mix']:g}): {first['order']}")
        ax.scatter([last["rank"]], [last["t_mix"]], color=SCAN_STYLE["worst_systematic"]["color"], marker="^", zorder=3,
                   label=f"slowest ({last['t_mix']:g}): {last['order']}")
        title = MODEL_TITLES[name] + f", n = {n}"
        if name == "two_islands":
            title += f" per island, bridge weight {float(sub['bridge_weight'].iloc[0]):g}"
        ax.set_title(title)
        ax.set_xlabel("permutation, sorted by mixing time (rank)")
        ax.set_ylabel(UPDATES)
        if perms["t_mix"].max() > 5 * perms["t_mix"].min():  # wide range: logarithmic axis
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
        ax.legend(loc="best", fontsize=8)
    _smoke_title(fig, f"He et al. 2016, Fig. 2c: sorted exact mixing times t_mix(eps = {epsilon:g}) of every systematic-scan permutation", smoke)
    return fig
