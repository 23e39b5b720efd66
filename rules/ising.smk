# DoGS §5.1, §5.4, §5.6 and App. B.1/B.3: Ising guarantee experiments (Figs. 1, 4, 5, 8, 9, 12-15).
# Compute (guarantees, samplers) -> summarise (tables, claims) -> plot; a plot rule never runs a sampler.
# The interpreter is passed as params.python (= PYTHON of common.smk) so that shell commands read no globals (lint).
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
rule ising10_replicate:  # model, TV guarantees of the four scans, DoGS re-optimised for every T
    output:
        model=result("ising10/rep{rep}/model.npz"),
        guarantees=result("ising10/rep{rep}/guarantees.csv"),
        scans=result("ising10/rep{rep}/scans.npz"),
        dogs_scans=result("ising10/rep{rep}/dogs_scans.npz"),
        runs=result("ising10/rep{rep}/dogs_runs.csv"),
    params:
        python=PYTHON,
        settings=settings("ising10"),
        seed=config["root_seed"],
        outdir=subpath(output.model, parent=True),
    log:
        result("logs/ising10/replicate_rep{rep}.log"),
    benchmark:
        result("benchmarks/snakemake/ising10_replicate_rep{rep}.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising10 replicate --settings {params.settings:q} --seed {params.seed}"
        " --replicate {wildcards.rep} --outdir {params.outdir} > {log} 2>&1"


rule ising10_measure:  # sampler: marginal error of independent chains against junction-tree marginals
    input:
        model=result("ising10/rep{rep}/model.npz"),
        guarantees=result("ising10/rep{rep}/guarantees.csv"),
        dogs_scans=result("ising10/rep{rep}/dogs_scans.npz"),
    output:
        measured=result("ising10/rep{rep}/measured_error.csv"),
        exact=result("ising10/rep{rep}/exact_marginals.npz"),
    params:
        python=PYTHON,
        settings=settings("ising10"),
        seed=config["root_seed"],
        outdir=subpath(input.model, parent=True),
    threads: 2
    log:
        result("logs/ising10/measure_rep{rep}.log"),
    benchmark:
        result("benchmarks/snakemake/ising10_measure_rep{rep}.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising10 measure --settings {params.settings:q} --seed {params.seed}"
        " --replicate {wildcards.rep} --outdir {params.outdir} --threads {threads} > {log} 2>&1"


rule ising10_summary:
    input:
        guarantees=expand(result("ising10/rep{rep}/guarantees.csv"), rep=ISING10_REPLICATES),
        measured=expand(result("ising10/rep{rep}/measured_error.csv"), rep=config["ising10"]["measure"]["replicates"]),
    output:
        summary=result("ising10/summary.csv"),
        claims=result("claims/ising10.json"),
    params:
        python=PYTHON,
        settings=settings("ising10"),
        seed=config["root_seed"],
        smoke="--smoke" if config["smoke"] else "",
    log:
        result("logs/ising10/summary.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising10 summary --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --measured {input.measured} --summary {output.summary}"
        " --claims {output.claims} {params.smoke} > {log} 2>&1"


rule ising10_fig1:
    input:
        guarantees=result("ising10/rep0/guarantees.csv"),
        measured=result("ising10/rep0/measured_error.csv"),
    output:
        figure("ising10/fig1_guarantees_rep0.png"),
    params:
        python=PYTHON,
        settings=settings("ising10"),
        seed=config["root_seed"],
    log:
        result("logs/ising10/fig1.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising10 fig1 --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --measured {input.measured} --out {output} > {log} 2>&1"


rule ising10_fig9:
    input:
        guarantees=expand(result("ising10/rep{rep}/guarantees.csv"), rep=ISING10_REPLICATES[1:]),
    output:
        figure("ising10/fig9_guarantees_replicates.png"),
    params:
        python=PYTHON,
        settings=settings("ising10"),
        seed=config["root_seed"],
    log:
        result("logs/ising10/fig9.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising10 fig9 --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --out {output} > {log} 2>&1"


# ---------------------------------------------------------------- E2: 40x40 marginal guarantees (DoGS §5.4, App. B.3)
rule ising40_guarantees:  # target e_1; open grid (theta = atanh 1/4) or torus (theta = 0.25)
    output:
        model=result("ising40/{model}/model.npz"),
        guarantees=result("ising40/{model}/guarantees.csv"),
        scans=result("ising40/{model}/scans.npz"),
        dogs_scans=result("ising40/{model}/dogs_scans.npz"),
        runs=result("ising40/{model}/dogs_runs.csv"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
        outdir=subpath(output.model, parent=True),
    log:
        result("logs/ising40/guarantees_{model}.log"),
    benchmark:
        result("benchmarks/snakemake/ising40_guarantees_{model}.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 guarantees --settings {params.settings:q} --seed {params.seed}"
        " --model {wildcards.model} --outdir {params.outdir} > {log} 2>&1"


rule ising40_profile:  # summarise the DoGS scan of the largest T: by distance, by segment, by step
    input:
        scans=result("ising40/{model}/scans.npz"),
    output:
        histogram=result("ising40/{model}/profile_histogram.csv"),
        profile=result("ising40/{model}/profile.npz"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
        outdir=subpath(input.scans, parent=True),
    log:
        result("logs/ising40/profile_{model}.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 profile --settings {params.settings:q} --seed {params.seed}"
        " --model {wildcards.model} --outdir {params.outdir} > {log} 2>&1"


rule ising40_bias:  # sampler: bias of X_1^T on the torus, independent chains per T (repetition 0 = Fig. 5)
    input:
        model=result("ising40/torus/model.npz"),
        dogs_scans=result("ising40/torus/dogs_scans.npz"),
    output:
        result("ising40/torus/bias_rep{repetition}.csv"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
        outdir=subpath(input.model, parent=True),
    threads: 2
    log:
        result("logs/ising40/bias_rep{repetition}.log"),
    benchmark:
        result("benchmarks/snakemake/ising40_bias_rep{repetition}.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 bias --settings {params.settings:q} --seed {params.seed}"
        " --repetition {wildcards.repetition} --outdir {params.outdir} --out {output} --threads {threads}"
        " > {log} 2>&1"


rule ising40_summary:
    input:
        guarantees=expand(result("ising40/{model}/guarantees.csv"), model=["open", "torus"]),
        profiles=expand(result("ising40/{model}/profile.npz"), model=["open", "torus"]),
        bias=expand(result("ising40/torus/bias_rep{repetition}.csv"), repetition=ISING40_REPETITIONS),
    output:
        summary=result("ising40/summary.csv"),
        claims=result("claims/ising40.json"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
        smoke="--smoke" if config["smoke"] else "",
    log:
        result("logs/ising40/summary.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 summary --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --profiles {input.profiles} --bias {input.bias}"
        " --summary {output.summary} --claims {output.claims} {params.smoke} > {log} 2>&1"


rule ising40_fig4:
    input:
        guarantees=result("ising40/open/guarantees.csv"),
        histogram=result("ising40/open/profile_histogram.csv"),
    output:
        figure("ising40/fig4_open_guarantees.png"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
    log:
        result("logs/ising40/fig4.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 fig4 --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --histograms {input.histogram} --out {output} > {log} 2>&1"


rule ising40_fig5:
    input:
        guarantees=result("ising40/torus/guarantees.csv"),
        bias=result("ising40/torus/bias_rep0.csv"),
    output:
        figure("ising40/fig5_torus_guarantees_bias.png"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
    log:
        result("logs/ising40/fig5.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 fig5 --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --bias {input.bias} --out {output} > {log} 2>&1"


rule ising40_fig12:
    input:
        profile=result("ising40/open/profile.npz"),
    output:
        figure("ising40/fig12_open_frequency_maps.png"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
    log:
        result("logs/ising40/fig12.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 fig12 --settings {params.settings:q} --seed {params.seed}"
        " --profiles {input.profile} --out {output} > {log} 2>&1"


rule ising40_fig13:
    input:
        bias=expand(result("ising40/torus/bias_rep{repetition}.csv"), repetition=ISING40_REPETITIONS[1:]),
    output:
        figure("ising40/fig13_torus_bias_repetitions.png"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
    log:
        result("logs/ising40/fig13.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 fig13 --settings {params.settings:q} --seed {params.seed}"
        " --bias {input.bias} --out {output} > {log} 2>&1"


rule ising40_fig14:
    input:
        bias=result("ising40/torus/bias_rep0.csv"),
        histogram=result("ising40/torus/profile_histogram.csv"),
        profile=result("ising40/torus/profile.npz"),
    output:
        figure("ising40/fig14_torus_profile.png"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
    log:
        result("logs/ising40/fig14.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 fig14 --settings {params.settings:q} --seed {params.seed}"
        " --bias {input.bias} --histograms {input.histogram} --profiles {input.profile} --out {output}"
        " > {log} 2>&1"


rule ising40_fig15:
    input:
        profile=result("ising40/torus/profile.npz"),
    output:
        figure("ising40/fig15_torus_frequency_maps.png"),
    params:
        python=PYTHON,
        settings=settings("ising40"),
        seed=config["root_seed"],
    log:
        result("logs/ising40/fig15.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.ising40 fig15 --settings {params.settings:q} --seed {params.seed}"
        " --profiles {input.profile} --out {output} > {log} 2>&1"


# ---------------------------------------------------------------- E3: loose influence bounds (DoGS §5.6, Fig. 8)
rule loose_bounds_guarantees:  # C-bar = s * C-hat for every s; DoGS re-optimised for every s and T
    output:
        model=result("loose_bounds/model.npz"),
        guarantees=result("loose_bounds/guarantees.csv"),
        dogs_scans=result("loose_bounds/dogs_scans.npz"),
        runs=result("loose_bounds/dogs_runs.csv"),
    params:
        python=PYTHON,
        settings=settings("loose_bounds"),
        seed=config["root_seed"],
        outdir=subpath(output.model, parent=True),
    log:
        result("logs/loose_bounds/guarantees.log"),
    benchmark:
        result("benchmarks/snakemake/loose_bounds_guarantees.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.loose_bounds guarantees --settings {params.settings:q} --seed {params.seed}"
        " --outdir {params.outdir} > {log} 2>&1"


rule loose_bounds_bias:  # sampler: bias of X_1^T for every s
    input:
        model=result("loose_bounds/model.npz"),
        dogs_scans=result("loose_bounds/dogs_scans.npz"),
    output:
        result("loose_bounds/bias.csv"),
    params:
        python=PYTHON,
        settings=settings("loose_bounds"),
        seed=config["root_seed"],
        outdir=subpath(input.model, parent=True),
    threads: 2
    log:
        result("logs/loose_bounds/bias.log"),
    benchmark:
        result("benchmarks/snakemake/loose_bounds_bias.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.loose_bounds bias --settings {params.settings:q} --seed {params.seed}"
        " --outdir {params.outdir} --out {output} --threads {threads} > {log} 2>&1"


rule loose_bounds_summary:
    input:
        guarantees=result("loose_bounds/guarantees.csv"),
        bias=result("loose_bounds/bias.csv"),
    output:
        summary=result("loose_bounds/summary.csv"),
        claims=result("claims/loose_bounds.json"),
    params:
        python=PYTHON,
        settings=settings("loose_bounds"),
        seed=config["root_seed"],
        smoke="--smoke" if config["smoke"] else "",
    log:
        result("logs/loose_bounds/summary.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.loose_bounds summary --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --bias {input.bias} --summary {output.summary}"
        " --claims {output.claims} {params.smoke} > {log} 2>&1"


rule loose_bounds_fig8:
    input:
        guarantees=result("loose_bounds/guarantees.csv"),
        bias=result("loose_bounds/bias.csv"),
    output:
        figure("loose_bounds/fig8_loose_bounds.png"),
    params:
        python=PYTHON,
        settings=settings("loose_bounds"),
        seed=config["root_seed"],
    log:
        result("logs/loose_bounds/fig8.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.loose_bounds fig8 --settings {params.settings:q} --seed {params.seed}"
        " --guarantees {input.guarantees} --bias {input.bias} --out {output} > {log} 2>&1"


CLAIM_FILES.extend(
    [result("claims/ising10.json"), result("claims/ising40.json"), result("claims/loose_bounds.json")]
)
