# DoGS §5.6: loose influence bounds, C-bar = s * C-hat (Fig. 8).
# Compute (guarantees, samplers) -> summarise (tables, claims) -> plot; a plot rule never runs a sampler.
# Every rule runs `python -m dogs.experiments.<family> <step> {params.args}`: step_args (common.smk) passes the
# config slice, the seed, and the rule's named inputs, outputs and wildcards (dogs/workflow/shell.py).
#   loose_bounds/                 guarantees and bias with C-bar = s * C-hat


rule loose_bounds_compute_guarantees:
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
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("loose_bounds"),
    params:
        python=PYTHON,
        args=step_args("loose_bounds"),
    shell:
        "{params.python} -m dogs.experiments.loose_bounds compute-guarantees {params.args} > {log} 2>&1"


rule loose_bounds_compute_bias:
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
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("loose_bounds"),
    params:
        python=PYTHON,
        args=step_args("loose_bounds"),
    shell:
        "{params.python} -m dogs.experiments.loose_bounds compute-bias {params.args} > {log} 2>&1"


rule loose_bounds_compute_bias_verdict:
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
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("loose_bounds"),
    params:
        python=PYTHON,
        args=step_args("loose_bounds"),
    shell:
        "{params.python} -m dogs.experiments.loose_bounds compute-bias-verdict {params.args} > {log} 2>&1"


rule loose_bounds_summarise:
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
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("loose_bounds"),
    shell:
        "{params.python} -m dogs.experiments.loose_bounds summarise {params.args} > {log} 2>&1"


rule loose_bounds_plot_fig8:
    """DoGS §5.6 (loose bounds): draws Fig. 8 (the target is `fig8`)."""
    input:
        guarantees=result("loose_bounds/guarantees.csv"),
        bias=result("loose_bounds/bias.csv"),
    output:
        figure=report(
            figure("loose_bounds/fig8_loose_bounds.png"),
            caption="captions/loose_bounds_fig8.rst",
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
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("loose_bounds"),
    shell:
        "{params.python} -m dogs.experiments.loose_bounds plot-fig8 {params.args} > {log} 2>&1"


CLAIM_FILES.append(result("claims/loose_bounds.json"))
