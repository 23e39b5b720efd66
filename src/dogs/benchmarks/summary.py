"""Summarise the core-library benchmarks beside the paper's figures, and write their claims.

Reads the JSON of :mod:`dogs.benchmarks.gibbs`, :mod:`dogs.benchmarks.dogs` and
:mod:`dogs.benchmarks.binary_samplers` and writes a readable ``summary.md`` plus ``claims/benchmarks.json`` for the paper-vs-ours table. The
paper's figures (DoGS §5.2 and its footnote 1: 12.65 µs per Gibbs step, 15 s of DoGS setup on
10^6 variables, a DoGS scan of length 16) appear here only as the paper's side.

Usage::

    python -m dogs.benchmarks.summary --gibbs gibbs.json --dogs dogs.json --binary binary_samplers.json \\
        --md summary.md --claims claims.json [--smoke]
"""

from __future__ import annotations

import argparse

from dogs.claims import measured, write_claims
from dogs.io import atomic_path, read_json


def _paper_setup(dogs: dict) -> dict:
    """The §5.2 setup with the paper's systematic scan ``q_t = e_{(t mod p)+1}``."""
    return dogs["setup"]["scans"]["paper"]


def build_claims(gibbs: dict, dogs: dict) -> dict:
    grid = gibbs["grid"]
    step_ns = grid["sample_point"]["best_ns_per_site_update"]
    paper_step_ns = gibbs["paper_step_s"] * 1e9
    side = gibbs["settings"]["side"]
    setup = _paper_setup(dogs)
    setup_s = setup["total_setup_seconds"]
    paper_setup_s = dogs["setup"]["paper_setup_seconds"]
    n_vars = dogs["setup"]["n_vars"]
    paper_length = dogs["setup"]["paper_dogs_length"]
    length = setup["dogs_length"]
    return {
        "dogs_s52_gibbs_step_time": measured(
            step_ns * 1e-9,
            ours_ns=step_ns,
            paper_ns=paper_step_ns,
            paper_over_ours=paper_step_ns / step_ns,
            median_ns=grid["sample_point"]["median_ns_per_site_update"],
            repeats=gibbs["settings"]["repeats"],
            side=side,
        ),
        "dogs_s52_setup_time": measured(
            setup_s,
            ours_s=setup_s,
            paper_s=paper_setup_s,
            n_vars=n_vars,
            bound_s=dogs["setup"]["bound_seconds"],
            epsilon_s=setup["variation_seconds"],
            doubling_s=setup["length_doubling_seconds"],
        ),
        "dogs_s52_dogs_length": measured(
            length,
            ours_length=length,
            paper_length=paper_length,
            lengths_tried=setup["lengths_tried"],
            epsilon=setup["epsilon"],
            dogs_bound=setup["dogs_variation"],
        ),
    }


def summary_markdown(gibbs: dict, dogs: dict, smoke: bool) -> str:
    grid = gibbs["grid"]
    cmp_ = gibbs["pgmpy_comparison"]
    setup = _paper_setup(dogs)
    base = dogs["setup"]["scans"]["base"]
    lines = ["# Core-library benchmarks", ""]
    if smoke:
        lines += ["**Smoke run: small grids, not comparable with the paper.**", ""]
    lines += [
        f"Machine: {gibbs['machine']['cpu_model']}, {gibbs['machine']['cpu_count_logical']} cores. "
        "Timings are best (median) of repeated runs after JIT warm-up.",
        "",
        "| measurement | ours | paper / peer |",
        "|---|---|---|",
        f"| Gibbs systematic scan, {grid['n_vars']:,} variables: ns per site update | "
        f"{grid['sample_point']['best_ns_per_site_update']:.1f} ({grid['sample_point']['median_ns_per_site_update']:.1f}) | {gibbs['paper_step_s'] * 1e9:.0f} (DoGS §5.2) |",
        f"| one sample point of {grid['steps_per_sample_point']:,} steps incl. state reset: ms | "
        f"{grid['sample_point']['best_s'] * 1e3:.1f} ({grid['sample_point']['median_s'] * 1e3:.1f}) | — |",
        f"| {cmp_['model']}: µs per site update | {cmp_['ours_us_per_site_update_best']:.3f} | "
        f"pgmpy GibbsSampling {cmp_['pgmpy_us_per_site_update_best']:.1f} ({cmp_['pgmpy_over_ours_same_sweeps']:.0f}x slower) |",
        f"| DoGS setup on {dogs['setup']['n_vars']:,} variables, d = e_1: s | {setup['total_setup_seconds']:.2f} | {dogs['setup']['paper_setup_seconds']:g} (DoGS §5.2) |",
        f"| &nbsp; bound (Theorem 11) / epsilon / length doubling: s | {dogs['setup']['bound_seconds']:.3f} / "
        f"{setup['variation_seconds']:.3f} / {setup['length_doubling_seconds']:.3f} | — |",
        f"| DoGS length found by doubling (systematic q_t = e_(t mod p)+1) | {setup['dogs_length']} | {dogs['setup']['paper_dogs_length']} (DoGS §5.2) |",
        f"| &nbsp; its bound vs epsilon | {setup['dogs_variation']:.4g} vs {setup['epsilon']:.4g} | — |",
        f"| DoGS length with a systematic scan starting at variable 1 | {base['dogs_length']} "
        f"(epsilon {base['epsilon']:.4g}) | — |",
        "",
        "## Algorithm 2 scaling (time per input step)",
        "",
        "| sweep | scan | weights | p | T | forward + backward: µs per step |",
        "|---|---|---|---|---|---|",
    ]
    for row in dogs["scaling"]:
        per_step = (row["forward_seconds"] + row["backward_seconds"]) / max(row["length"], 1) * 1e6
        lines.append(f"| {row['sweep']} | {row['scan']} | {row['weights']} | {row['n_vars']:,} | {row['length']:,} | {per_step:.3f} |")
    return "\n".join(lines) + "\n"


#: The project's own speed targets on a 2-core machine (engineering goals, not claims of any paper).
SPEED_TARGETS = {
    "setup_s": 0.050,
    "bound_ns_per_entry": 5.0,
    "dogs_ns_per_step_e1": 200.0,
    "gibbs_ns_per_update": 5.0,
}


def _dogs_step_ns(dogs: dict, weights: str) -> float | None:
    """Algorithm 2 ns per input step on the largest grid of the scaling table (systematic input scan)."""
    rows = [r for r in dogs["scaling"] if r["scan"] == "systematic" and r["weights"] == weights and r["sweep"] == "p"]
    if not rows:
        return None
    row = max(rows, key=lambda r: r["n_vars"])
    return 1e9 * (row["forward_seconds"] + row["backward_seconds"]) / row["length"]


def targets_markdown(gibbs: dict, dogs: dict) -> str:
    """Measured speed beside the project's targets (``SPEED_TARGETS``) and the paper's figures."""
    setup = _paper_setup(dogs)
    bound_ns = 1e9 * dogs["setup"]["bound_seconds"] / max(dogs["setup"]["bound_nnz"], 1)
    step_e1, step_ones = _dogs_step_ns(dogs, "e_1"), _dogs_step_ns(dogs, "1")
    gibbs_ns = gibbs["grid"]["sample_point"]["best_ns_per_site_update"]

    def verdict(value, target):
        return "—" if value is None else ("met" if value <= target else "not met")

    lines = [
        "## Speed against the project's targets",
        "",
        "| quantity | measured | target | met | paper |",
        "|---|---|---|---|---|",
        f"| DoGS setup on {dogs['setup']['n_vars']:,} variables (bound + epsilon + doubling), s | "
        f"{setup['total_setup_seconds']:.3f} | <= {SPEED_TARGETS['setup_s']:g} | "
        f"{verdict(setup['total_setup_seconds'], SPEED_TARGETS['setup_s'])} | {dogs['setup']['paper_setup_seconds']:g} |",
        f"| Theorem 11 bound, ns per stored entry | {bound_ns:.2f} | <= {SPEED_TARGETS['bound_ns_per_entry']:g} | "
        f"{verdict(bound_ns, SPEED_TARGETS['bound_ns_per_entry'])} | — |",
        f"| Algorithm 2, deterministic input, d = e_1: ns per input step | "
        f"{'—' if step_e1 is None else f'{step_e1:.0f}'} | <= {SPEED_TARGETS['dogs_ns_per_step_e1']:g} | "
        f"{verdict(step_e1, SPEED_TARGETS['dogs_ns_per_step_e1'])} | — |",
        f"| Algorithm 2, deterministic input, d = 1: ns per input step | "
        f"{'—' if step_ones is None else f'{step_ones:.0f}'} | documented | — | — |",
        f"| Gibbs systematic scan, {gibbs['grid']['n_vars']:,} variables: ns per site update | {gibbs_ns:.2f} | "
        f"<= {SPEED_TARGETS['gibbs_ns_per_update']:g} | {verdict(gibbs_ns, SPEED_TARGETS['gibbs_ns_per_update'])} | "
        f"{gibbs['paper_step_s'] * 1e9:,.0f} |",
    ]
    if "roofline" in gibbs:
        roof, band, many = gibbs["roofline"], gibbs["bandwidth"], gibbs["many_chains"]
        lines += [
            f"| &nbsp; bytes per site update / achieved GB/s / share of one thread's copy bandwidth | "
            f"{gibbs['grid']['bytes_per_site_update']:.0f} / {roof['achieved_gb_per_s']:.1f} / "
            f"{100 * roof['fraction_of_one_thread_copy']:.0f}% | — | — | copy: {band['one_thread_gb_per_s']:.1f} GB/s on one "
            f"thread, {band['all_threads_gb_per_s']:.1f} on all |",
            f"| {many['chains']} independent chains: M site updates per s, 1 thread / {many['threads']} threads | "
            f"{many['one_thread_updates_per_s'] / 1e6:.0f} / {many['all_threads_updates_per_s'] / 1e6:.0f} "
            f"({many['scaling']:.2f}x) | — | — | — |",
        ]
    return "\n".join(lines) + "\n"


def binary_samplers_markdown(binary: dict) -> str:
    """The cost of the annular-augmentation paper's samplers at its equal-cost budget (no paper figures exist)."""
    lines = [
        "## Binary samplers of the annular-augmentation paper (cost per single-flip density evaluation)",
        "",
        "One chain per run, at the equal-cost budget of "
        f"{binary['settings']['hmc_samples']} exact-HMC samples (AA §3); best of {binary['settings']['repeats']} runs. "
        "An evaluation is one single-flip log-density difference actually computed (`Work.density_evaluations`); "
        "CMH + LBP in its discrete-event form skips the proposals it would hold, so it computes fewer.",
        "",
    ]
    for model in binary["models"].values():
        budget = model["budget"]
        lines += [
            f"**{model['description']}**: budget F = {budget['density_evaluations']:,.0f} (authors' units); "
            f"loopy BP (100 sweeps) {model['lbp']['best_s_100_sweeps'] * 1e3:.2f} ms.",
            "",
            "| sampler | run: ms | evaluations | ns per evaluation | µs per unit |",
            "|---|---|---|---|---|",
        ]
        for name, row in model["samplers"].items():
            lines.append(f"| {name} | {row['best_s'] * 1e3:.2f} | {row['density_evaluations']:,} | "
                         f"{row['best_ns_per_density_evaluation']:.1f} | {row['best_us_per_unit']:.2f} per {row['unit']} |")
        many = model["parallel_aag_rb"]
        lines += ["", f"AAG + RB with {many['chains']} chains on {many['threads']} threads: "
                      f"{many['speedup_over_one_chain']:.2f}x the throughput of one chain.", ""]
    proj = binary["heatmap_projection"]
    lines.append(f"Projected 9x9 heatmap experiment ({proj['settings']} settings x {proj['runs']} runs x "
                 f"{proj['samplers']} samplers, sampling and LBP only): {proj['one_core_s'] / 60:.1f} min on one core, "
                 f"{proj['all_cores_s'] / 60:.1f} min on {proj['cores']}.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gibbs", required=True)
    parser.add_argument("--dogs", required=True)
    parser.add_argument("--binary", required=True, help="JSON of dogs.benchmarks.binary_samplers")
    parser.add_argument("--md", required=True)
    parser.add_argument("--claims", required=True)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    gibbs, dogs = read_json(args.gibbs), read_json(args.dogs)
    claims = build_claims(gibbs, dogs)
    text = (summary_markdown(gibbs, dogs, args.smoke) + "\n" + targets_markdown(gibbs, dogs) + "\n"
            + binary_samplers_markdown(read_json(args.binary)))
    write_claims(args.claims, "benchmarks", claims, smoke=args.smoke)
    with atomic_path(args.md) as tmp:
        tmp.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
