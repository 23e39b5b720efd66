# DoGS §5.1, §5.4, §5.6 and App. B.1/B.3: Ising guarantee experiments (Figs. 1, 4, 5, 8, 9, 12-15).
# Compute (guarantees, samplers) -> summarise (tables, claims) -> plot; a plot rule never runs a sampler.
# Every rule runs `python -m dogs.experiments.<family> <step> {params.args}`: step_args (common.smk) passes the
# config slice, the seed, and the rule's named inputs, outputs and wildcards (dogs/workflow/shell.py).
#   ising10/rep{rep}/             model.npz, guarantees.csv, scans.npz (+ DoGS scans of every T, measured error)
#   ising40/{model}/              the same for the open grid and the torus (+ scan profile, bias of X_1)
#   loose_bounds/                 guarantees and bias with C-bar = s * C-hat


ISING10_REPLICATES = list(range(config["ising10"]["n_replicates"]))
ISING40_REPETITIONS = list(range(config["ising40"]["bias"]["repetitions"] + 1))


wildcard_constraints:
    rep=r"\d+",
    repetition=r"\d+",
    model="open|torus",


# ---------------------------------------------------------------- E1: 10x10 random Ising (DoGS §5.1, App. B.1)


rule ising10_compute_guarantees:  # model, TV guarantees of the four scans, DoGS re-optimised for every T
    output:
        model=result("ising10/rep{rep}/model.npz"),
        guarantees=result("ising10/rep{rep}/guarantees.csv"),
        scans=result("ising10/rep{rep}/scans.npz"),
        dogs_scans=result("ising10/rep{rep}/dogs_scans.npz"),
        runs=result("ising10/rep{rep}/dogs_runs.csv"),
    log:
        result("logs/ising10/compute_guarantees_rep{rep}.log"),
    benchmark:
        result("benchmarks/snakemake/ising10_compute_guarantees_rep{rep}.tsv")
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("ising10"),
    params:
        python=PYTHON,
        args=step_args("ising10"),
    shell:
        "{params.python} -m dogs.experiments.ising10 compute-guarantees {params.args} > {log} 2>&1"


rule ising10_compute_measure:  # sampler: marginal error of independent chains against junction-tree marginals
    input:
        model=result("ising10/rep{rep}/model.npz"),
        guarantees=result("ising10/rep{rep}/guarantees.csv"),
        dogs_scans=result("ising10/rep{rep}/dogs_scans.npz"),
    output:
        measured=result("ising10/rep{rep}/measured_error.csv"),
        exact=result("ising10/rep{rep}/exact_marginals.npz"),
    log:
        result("logs/ising10/compute_measure_rep{rep}.log"),
    benchmark:
        result("benchmarks/snakemake/ising10_compute_measure_rep{rep}.tsv")
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("ising10"),
    params:
        python=PYTHON,
        args=step_args("ising10"),
    shell:
        "{params.python} -m dogs.experiments.ising10 compute-measure {params.args} > {log} 2>&1"


rule ising10_summarise:
    input:
        guarantees=expand(
            result("ising10/rep{rep}/guarantees.csv"), rep=ISING10_REPLICATES
        ),
        measured=expand(
            result("ising10/rep{rep}/measured_error.csv"),
            rep=config["ising10"]["measure"]["replicates"],
        ),
    output:
        summary=result("ising10/summary.csv"),
        claims=result("claims/ising10.json"),
    log:
        result("logs/ising10/summarise.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising10"),
    shell:
        "{params.python} -m dogs.experiments.ising10 summarise {params.args} > {log} 2>&1"


rule ising10_plot_fig1:
    input:
        guarantees=result("ising10/rep0/guarantees.csv"),
        measured=result("ising10/rep0/measured_error.csv"),
    output:
        figure=report(
            figure("ising10/fig1_guarantees_rep0.png"),
            caption="captions/ising10_fig1.rst",
            category="DoGS 5.1, 10x10 Ising",
        ),
    log:
        result("logs/ising10/plot_fig1.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising10"),
    shell:
        "{params.python} -m dogs.experiments.ising10 plot-fig1 {params.args} > {log} 2>&1"


rule ising10_plot_fig9:
    input:
        guarantees=expand(
            result("ising10/rep{rep}/guarantees.csv"), rep=ISING10_REPLICATES[1:]
        ),
    output:
        figure=report(
            figure("ising10/fig9_guarantees_replicates.png"),
            caption="captions/ising10_fig9.rst",
            category="DoGS 5.1, 10x10 Ising",
        ),
    log:
        result("logs/ising10/plot_fig9.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising10"),
    shell:
        "{params.python} -m dogs.experiments.ising10 plot-fig9 {params.args} > {log} 2>&1"


# ---------------------------------------------------------------- E2: 40x40 marginal guarantees (DoGS §5.4, App. B.3)


rule ising40_compute_guarantees:  # target e_1; open grid (theta = atanh 1/4) or torus (theta = 0.25)
    output:
        model=result("ising40/{model}/model.npz"),
        guarantees=result("ising40/{model}/guarantees.csv"),
        scans=result("ising40/{model}/scans.npz"),
        dogs_scans=result("ising40/{model}/dogs_scans.npz"),
        runs=result("ising40/{model}/dogs_runs.csv"),
    log:
        result("logs/ising40/compute_guarantees_{model}.log"),
    benchmark:
        result("benchmarks/snakemake/ising40_compute_guarantees_{model}.tsv")
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("ising40"),
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 compute-guarantees {params.args} > {log} 2>&1"


rule ising40_summarise_profile:  # the DoGS scan of the largest T: by distance, by segment, by step
    input:
        scans=result("ising40/{model}/scans.npz"),
    output:
        histogram=result("ising40/{model}/profile_histogram.csv"),
        profile=result("ising40/{model}/profile.npz"),
    log:
        result("logs/ising40/summarise_profile_{model}.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 summarise-profile {params.args} > {log} 2>&1"


rule ising40_compute_bias:  # sampler: bias of X_1^T on the torus, independent chains per T (repetition 0 = Fig. 5)
    input:
        model=result("ising40/torus/model.npz"),
        dogs_scans=result("ising40/torus/dogs_scans.npz"),
    output:
        bias=result("ising40/torus/bias_rep{repetition}.csv"),
    log:
        result("logs/ising40/compute_bias_rep{repetition}.log"),
    benchmark:
        result("benchmarks/snakemake/ising40_compute_bias_rep{repetition}.tsv")
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("ising40"),
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 compute-bias {params.args} > {log} 2>&1"


rule ising40_summarise:
    input:
        guarantees_open=result("ising40/open/guarantees.csv"),
        guarantees_torus=result("ising40/torus/guarantees.csv"),
        profile_open=result("ising40/open/profile.npz"),
        profile_torus=result("ising40/torus/profile.npz"),
        histogram_open=result("ising40/open/profile_histogram.csv"),
        bias=expand(
            result("ising40/torus/bias_rep{repetition}.csv"),
            repetition=ISING40_REPETITIONS,
        ),
    output:
        summary=result("ising40/summary.csv"),
        claims=result("claims/ising40.json"),
    log:
        result("logs/ising40/summarise.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 summarise {params.args} > {log} 2>&1"


rule ising40_plot_fig4:
    input:
        guarantees=result("ising40/open/guarantees.csv"),
        histogram=result("ising40/open/profile_histogram.csv"),
    output:
        figure=report(
            figure("ising40/fig4_open_guarantees.png"),
            caption="captions/ising40_fig4.rst",
            category="DoGS 5.4, 40x40 marginals",
        ),
    log:
        result("logs/ising40/plot_fig4.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 plot-fig4 {params.args} > {log} 2>&1"


rule ising40_plot_fig5:
    input:
        guarantees=result("ising40/torus/guarantees.csv"),
        bias=result("ising40/torus/bias_rep0.csv"),
    output:
        figure=report(
            figure("ising40/fig5_torus_guarantees_bias.png"),
            caption="captions/ising40_fig5.rst",
            category="DoGS 5.4, 40x40 marginals",
        ),
    log:
        result("logs/ising40/plot_fig5.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 plot-fig5 {params.args} > {log} 2>&1"


rule ising40_plot_fig12:
    input:
        profile=result("ising40/open/profile.npz"),
    output:
        figure=report(
            figure("ising40/fig12_open_frequency_maps.png"),
            caption="captions/ising40_fig12.rst",
            category="DoGS 5.4, 40x40 marginals",
        ),
    log:
        result("logs/ising40/plot_fig12.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 plot-fig12 {params.args} > {log} 2>&1"


rule ising40_plot_fig13:
    input:
        bias=expand(
            result("ising40/torus/bias_rep{repetition}.csv"),
            repetition=ISING40_REPETITIONS[1:],
        ),
    output:
        figure=report(
            figure("ising40/fig13_torus_bias_repetitions.png"),
            caption="captions/ising40_fig13.rst",
            category="DoGS 5.4, 40x40 marginals",
        ),
    log:
        result("logs/ising40/plot_fig13.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 plot-fig13 {params.args} > {log} 2>&1"


rule ising40_plot_fig14:
    input:
        bias=result("ising40/torus/bias_rep0.csv"),
        histogram=result("ising40/torus/profile_histogram.csv"),
        profile=result("ising40/torus/profile.npz"),
    output:
        figure=report(
            figure("ising40/fig14_torus_profile.png"),
            caption="captions/ising40_fig14.rst",
            category="DoGS 5.4, 40x40 marginals",
        ),
    log:
        result("logs/ising40/plot_fig14.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 plot-fig14 {params.args} > {log} 2>&1"


rule ising40_plot_fig15:
    input:
        profile=result("ising40/torus/profile.npz"),
    output:
        figure=report(
            figure("ising40/fig15_torus_frequency_maps.png"),
            caption="captions/ising40_fig15.rst",
            category="DoGS 5.4, 40x40 marginals",
        ),
    log:
        result("logs/ising40/plot_fig15.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("ising40"),
    shell:
        "{params.python} -m dogs.experiments.ising40 plot-fig15 {params.args} > {log} 2>&1"


# ---------------------------------------------------------------- E3: loose influence bounds (DoGS §5.6, Fig. 8)


rule loose_bounds_compute_guarantees:  # C-bar = s * C-hat for every s; DoGS re-optimised for every s and T
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


rule loose_bounds_compute_bias:  # sampler: bias of X_1^T for every s
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


rule loose_bounds_compute_bias_verdict:  # sampler: the verdict's many chains at short T, several repetitions
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
    input:
        guarantees=result("loose_bounds/guarantees.csv"),
        bias=result("loose_bounds/bias.csv"),
    output:
        figure=report(
            figure("loose_bounds/fig8_loose_bounds.png"),
            caption="captions/loose_bounds_fig8.rst",
            category="DoGS 5.6, loose bounds",
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


CLAIM_FILES.extend(
    [
        result("claims/ising10.json"),
        result("claims/ising40.json"),
        result("claims/loose_bounds.json"),
    ]
)
