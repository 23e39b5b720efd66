# Speed of the core library, measured on this machine beside the paper's figures
# (DoGS §5.2: 12.65 µs per Gibbs step; 15 s of DoGS setup on 10^6 variables).
# Timing numbers are machine-dependent by nature: they are reported, never asserted in tests.
# Each timing rule claims every core, so Snakemake never runs another job beside it, and runs before the rest
# (CLOCKED, rules/common.smk).


rule benchmark_gibbs:
    output:
        result("benchmarks/gibbs.json"),
    log:
        result("logs/benchmarks/gibbs.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_gibbs.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        side=config["benchmarks"]["gibbs_side"],
        pgmpy_side=config["benchmarks"]["pgmpy_side"],
        repeats=config["benchmarks"]["repeats"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.gibbs --out {output} --side {params.side}"
        " --pgmpy-side {params.pgmpy_side} --repeats {params.repeats} --seed {params.seed} > {log} 2>&1"


rule benchmark_dogs:
    output:
        result("benchmarks/dogs.json"),
    log:
        result("logs/benchmarks/dogs.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_dogs.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        side=config["benchmarks"]["dogs_side"],
        length=2 * config["benchmarks"]["dogs_side"] ** 2,  # two sweeps, as in DoGS §5.2 (2e6 on 1000x1000)
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.dogs --out {output} --side {params.side}"
        " --length {params.length} --seed {params.seed} > {log} 2>&1"


rule benchmark_binary_samplers:
    output:
        result("benchmarks/binary_samplers.json"),
    log:
        result("logs/benchmarks/binary_samplers.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_binary_samplers.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        hmc_samples=config["benchmarks"]["binary_hmc_samples"],
        bm_size=config["benchmarks"]["binary_bm_size"],
        repeats=config["benchmarks"]["repeats"],
        settings=config["benchmarks"]["heatmap_settings"],
        runs=config["benchmarks"]["heatmap_runs"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.binary_samplers --out {output} --hmc-samples {params.hmc_samples}"
        " --bm-size {params.bm_size} --repeats {params.repeats} --heatmap-settings {params.settings}"
        " --heatmap-runs {params.runs} --seed {params.seed} > {log} 2>&1"


rule benchmark_scaling:  # DoGS and Gibbs from 10^4 to 10^8 variables: time and peak memory per stage
    output:
        result("benchmarks/scaling.json"),
    log:
        result("logs/benchmarks/scaling.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_scaling.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    params:
        python=PYTHON,
        sides=" ".join(str(s) for s in config["benchmarks"]["scaling_sides"]),
        repeats=config["benchmarks"]["scaling_repeats"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.scaling measure --out {output} --sides {params.sides}"
        " --repeats {params.repeats} --seed {params.seed} > {log} 2>&1"


rule plot_benchmark_scaling:
    input:
        result("benchmarks/scaling.json"),
    output:
        report(
            figure("benchmarks/scaling.png"),
            caption="captions/benchmark_scaling.rst",
            category="benchmarks",
            subcategory="Speed and scaling",
        ),
    log:
        result("logs/benchmarks/scaling_plot.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
    shell:
        "{params.python} -m dogs.benchmarks.scaling plot --report {input} --figure {output} > {log} 2>&1"


rule summarise_benchmarks:
    input:
        gibbs=result("benchmarks/gibbs.json"),
        dogs=result("benchmarks/dogs.json"),
        binary=result("benchmarks/binary_samplers.json"),
    output:
        md=result("benchmarks/summary.md"),
        claims=result("claims/benchmarks.json"),
    log:
        result("logs/benchmarks/summary.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        smoke="--smoke" if config["smoke"] else "",
    shell:
        "{params.python} -m dogs.benchmarks.summary --gibbs {input.gibbs} --dogs {input.dogs} --binary {input.binary}"
        " --md {output.md} --claims {output.claims} {params.smoke} > {log} 2>&1"


CLAIM_FILES.append(result("claims/benchmarks.json"))


# Many chains side by side (updates per ns against chains): our one-chain and vector Gibbs kernels, THRML's CPU block
# Gibbs when the optional `peers` extra is installed (one line in the log says so otherwise) and pgmpy on a small grid.
# The smoke setting is tiny: it checks the pipeline, not the speed.
rule benchmark_chains:
    output:
        json=result("benchmarks/chains.json"),
        table=result("benchmarks/chains.md"),
        figure=report(
            figure("benchmarks/chains.png"),
            caption="captions/benchmark_chains.rst",
            category="benchmarks",
            subcategory="Speed and scaling",
        ),
    log:
        result("logs/benchmarks/chains.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_chains.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        sizes=(
            "--side 12 --sweeps 2 --chains 1 8 --chain-kernel-chains 1 --thrml-chains 8 --repeats 1"
            " --pgmpy-side 2 --pgmpy-sweeps 5"
            if config["smoke"]
            else "--side 300 --sweeps 100 --chains 1 8 64 1024 --chain-kernel-chains 1 8 64 --thrml-chains 1 8 64"
            " --repeats 3 --pgmpy-side 4 --pgmpy-sweeps 100"
        ),
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.chains --out {output.json} --table {output.table} --figure {output.figure}"
        " {params.sizes} --threads {threads} --seed {params.seed} > {log} 2>&1"
