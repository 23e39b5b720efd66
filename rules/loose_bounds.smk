# DoGS §5.6: loose influence bounds, C-bar = s * C-hat (Fig. 8).
# Compute (guarantees, samplers) -> summarise (tables, claims) -> plot; a plot rule never runs a sampler.
# Every step rule (`use rule experiment_step`, the Snakefile) runs `python -m dogs.experiments.<family> <step>
# {params.args}`: step() (rules/common.smk) passes the config slice, the seed, and the rule's named inputs,
# outputs and wildcards (dogs/workflow/shell.py).
#   loose_bounds/                 guarantees and bias with C-bar = s * C-hat


use rule experiment_step as loose_bounds_compute_guarantees with:
    """DoGS §5.6 (loose bounds), a compute step: C-bar = s * C-hat for every s; DoGS re-optimised for every s and T."""
    output:
        model=result("loose_bounds/model.npz"),
        guarantees=result("loose_bounds/guarantees.csv"),
        dogs_scans=result("loose_bounds/dogs_scans.npz"),
        runs=result("loose_bounds/dogs_runs.csv"),
    log:
        result("logs/loose_bounds/compute_guarantees.log"),
    benchmark:
        result("benchmarks/snakemake/loose_bounds_compute_guarantees.tsv")
    priority: LONG  # the bias jobs wait for it
    resources:
        mem_mb=memory_mb("loose_bounds"),
    params:
        **step("loose_bounds", "compute-guarantees"),


use rule experiment_step as loose_bounds_compute_bias with:
    """DoGS §5.6 (loose bounds), a compute step: sampler: bias of X_1^T for every s."""
    input:
        model=result("loose_bounds/model.npz"),
        dogs_scans=result("loose_bounds/dogs_scans.npz"),
    output:
        bias=result("loose_bounds/bias.csv"),
    log:
        result("logs/loose_bounds/compute_bias.log"),
    benchmark:
        result("benchmarks/snakemake/loose_bounds_compute_bias.tsv")
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("loose_bounds"),
    params:
        **step("loose_bounds", "compute-bias"),


use rule experiment_step as loose_bounds_compute_bias_verdict with:
    """DoGS §5.6 (loose bounds), a compute step: sampler: the verdict's many chains at short T, several repetitions."""
    input:
        model=result("loose_bounds/model.npz"),
        dogs_scans=result("loose_bounds/dogs_scans.npz"),
    output:
        bias=result("loose_bounds/bias_verdict.csv"),
    log:
        result("logs/loose_bounds/compute_bias_verdict.log"),
    benchmark:
        result("benchmarks/snakemake/loose_bounds_compute_bias_verdict.tsv")
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("loose_bounds"),
    params:
        **step("loose_bounds", "compute-bias-verdict"),


use rule experiment_step as loose_bounds_summarise with:
    """DoGS §5.6 (loose bounds): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        guarantees=result("loose_bounds/guarantees.csv"),
        bias=result("loose_bounds/bias.csv"),
        bias_verdict=result("loose_bounds/bias_verdict.csv"),
    output:
        summary=result("loose_bounds/summary.csv"),
        claims=result("claims/loose_bounds.json"),
    log:
        result("logs/loose_bounds/summarise.log"),
    params:
        **step("loose_bounds", "summarise"),


use rule experiment_step as loose_bounds_plot_fig8 with:
    """DoGS §5.6 (loose bounds): draws Fig. 8 (the target is `fig8`)."""
    input:
        guarantees=result("loose_bounds/guarantees.csv"),
        bias=result("loose_bounds/bias.csv"),
    output:
        figure=report(
            figure("loose_bounds/fig8_loose_bounds.png"),
            caption=caption(
                "Regenerates DoGS Fig. 8: DoGS computed with a loose influence bound s x C-hat (s = 1 to 1.5) on the 40x40 torus: its guarantee under the loose and the tight bound, and the measured bias of X_1 (300 chains per T, as in the paper) against the systematic scan in the paper's phase and ending on X_1 at every T. The verdict on graceful degradation reads a separate measurement with 10^4 chains per T in three repetitions (results/loose_bounds/bias_verdict.csv)."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.6 loose bounds",
            labels={
                "paper": "DoGS",
                "section": "§5.6",
                "figure": "Fig. 8",
                "panels": "guarantees and bias for C-bar = s C-hat",
            },
        ),
    log:
        result("logs/loose_bounds/plot_fig8.log"),
    params:
        **step("loose_bounds", "plot-fig8"),


CLAIM_FILES.append(result("claims/loose_bounds.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig8:
    """DoGS Fig. 8 (§5.6): loose influence bounds, C-bar = s * C-hat; figures/loose_bounds/."""
    input:
        figure("loose_bounds/fig8_loose_bounds.png"),


target("fig8")
