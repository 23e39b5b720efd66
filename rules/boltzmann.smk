# Boltzmann-machine posteriors with estimated partition-function ratios (AA §3.2, appendix A.4, Figs. 6-8).
#   boltzmann/{dataset}/        data.npz, posterior_{sampler}.npz (the W samples of every chain)
#   boltzmann/{dataset}/variants/{variant}/   posterior_{sampler}.npz of sensitivity runs and errata diagnostics
#   boltzmann/                  log_ratio_errors.csv (Fig. 6), fractions_within.csv (Fig. 8),
#                                   posterior_moments.csv (Fig. 7), claims
# The heart data set comes from the data directory (docs/data.md); the synthetic ones are drawn here.


from dogs.experiments.boltzmann import FIG8_DATASETS

BM_SMALL = [n for n in config["boltzmann"]["datasets"] if bm_units(n) <= 10]
BM_LARGE = [n for n in config["boltzmann"]["datasets"] if bm_units(n) > 10]
BM_VARIANTS = config["boltzmann"].get("variants") or {}


wildcard_constraints:
    bm_dataset="|".join(config["boltzmann"]["datasets"]),
    bm_variant="|".join(BM_VARIANTS) or "(?!)",


rule boltzmann_compute_data:  # the heart-disease table, or synthetic data from a random Boltzmann machine
    input:
        bm_data_inputs,
    output:
        data=result("boltzmann/{bm_dataset}/data.npz"),
    log:
        result("logs/boltzmann/compute_data_{bm_dataset}.log"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("boltzmann"),
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann compute-data {params.args} > {log} 2>&1"


rule boltzmann_compute_chains:  # sampler: approximate MH chains with every inner sampler and the exact ratio (d <= 10)
    input:
        data=result("boltzmann/{bm_dataset}/data.npz"),
    output:
        **{
            f"chains_{s}": result(f"boltzmann/{{bm_dataset}}/posterior_{s}.npz")
            for s in config["boltzmann"]["samplers"]
        },
    log:
        result("logs/boltzmann/compute_chains_{bm_dataset}.log"),
    benchmark:
        result("benchmarks/snakemake/boltzmann_compute_chains_{bm_dataset}.tsv")
    wildcard_constraints:
        bm_dataset="|".join(BM_SMALL) or "(?!)",
    priority: WIDE
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (single-threaded worker processes)
    resources:
        mem_mb=lambda wildcards, threads: memory_mb("boltzmann") + 250 * threads,  # + a worker process per thread
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann compute-chains {params.args} > {log} 2>&1"


rule boltzmann_compute_chains_large:  # the same without the exact chain (2^d states cannot be enumerated)
    input:
        data=result("boltzmann/{bm_dataset}/data.npz"),
    output:
        **{
            f"chains_{s}": result(f"boltzmann/{{bm_dataset}}/posterior_{s}.npz")
            for s in config["boltzmann"]["samplers"]
            if s != "exact"
        },
    log:
        result("logs/boltzmann/compute_chains_{bm_dataset}.log"),
    benchmark:
        result("benchmarks/snakemake/boltzmann_compute_chains_{bm_dataset}.tsv")
    wildcard_constraints:
        bm_dataset="|".join(BM_LARGE) or "(?!)",
    priority: WIDE
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (single-threaded worker processes)
    resources:
        mem_mb=lambda wildcards, threads: memory_mb("boltzmann") + 250 * threads,  # + a worker process per thread
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann compute-chains {params.args} > {log} 2>&1"


rule boltzmann_compute_variant:  # sampler: the inner samplers of a sensitivity run or an errata diagnostic, one data set
    input:
        data=result("boltzmann/{bm_dataset}/data.npz"),
    output:
        chains=directory(result("boltzmann/{bm_dataset}/variants/{bm_variant}")),
    log:
        result("logs/boltzmann/compute_variant_{bm_variant}_{bm_dataset}.log"),
    benchmark:
        result(
            "benchmarks/snakemake/boltzmann_compute_variant_{bm_variant}_{bm_dataset}.tsv"
        )
    priority: WIDE
    conda:
        CONDA_ENV
    threads: ALL_CORES  # independent chains over every core (single-threaded worker processes)
    resources:
        mem_mb=lambda wildcards, threads: memory_mb("boltzmann") + 250 * threads,  # + a worker process per thread
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann compute-variant {params.args} > {log} 2>&1"


rule boltzmann_summarise:
    """Annular augmentation §3.2 (Boltzmann machine): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        chains=bm_chain_files(),
        variant_chains=bm_variant_folders(),
    output:
        errors=result("boltzmann/log_ratio_errors.csv"),
        fractions=result("boltzmann/fractions_within.csv"),
        posterior=result("boltzmann/posterior_moments.csv"),
        claims=result("claims/boltzmann.json"),
    log:
        result("logs/boltzmann/summarise.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann summarise {params.args} > {log} 2>&1"


rule boltzmann_plot_fig6:
    """Annular augmentation §3.2 (Boltzmann machine): draws Fig. 6 (the target is `fig_aa6`)."""
    input:
        errors=result("boltzmann/log_ratio_errors.csv"),
    output:
        figure=report(
            figure("boltzmann/fig6_log_ratio_errors.png"),
            caption="captions/heart_fig6.rst",
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.2 Boltzmann machine",
            labels={
                "paper": "Annular augmentation",
                "section": "§3.2",
                "figure": "Fig. 6",
                "panels": "log partition-function ratio errors",
            },
        ),
    log:
        result("logs/boltzmann/plot_fig6.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann plot-fig6 {params.args} > {log} 2>&1"


rule boltzmann_plot_fig7:
    """Annular augmentation §3.2 (Boltzmann machine): draws Fig. 7 (the target is `fig_aa7`)."""
    input:
        chains=bm_chain_files("heart"),
    output:
        figure=report(
            figure("boltzmann/fig7_posterior.png"),
            caption="captions/heart_fig7.rst",
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.2 Boltzmann machine",
            labels={
                "paper": "Annular augmentation",
                "section": "§3.2",
                "figure": "Fig. 7",
                "panels": "heart-data posterior of W",
            },
        ),
    log:
        result("logs/boltzmann/plot_fig7.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann plot-fig7 {params.args} > {log} 2>&1"


rule boltzmann_plot_fig8:
    """Annular augmentation §3.2 (Boltzmann machine): draws Fig. 8 from its synthetic data sets' chains alone, so it needs no data set (the target is `fig_aa8`)."""
    input:
        chains=[
            path
            for name in FIG8_DATASETS
            if name in config["boltzmann"]["datasets"]
            for path in bm_chain_files(name)
        ],
    output:
        figure=report(
            figure("boltzmann/fig8_fraction_within.png"),
            caption="captions/heart_fig8.rst",
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.2 Boltzmann machine",
            labels={
                "paper": "Annular augmentation",
                "section": "§3.2",
                "figure": "Fig. 8",
                "panels": "fraction within 20% of the true weights",
            },
        ),
    log:
        result("logs/boltzmann/plot_fig8.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann plot-fig8 {params.args} > {log} 2>&1"


rule boltzmann_plot_errata:
    """Annular augmentation §3.2 (Boltzmann machine): diagnostics of the authors' code: B1 (CMH's ratio / F) and B2 (cross-chain error) (the target is `fig_aa_errata_b1_b2`)."""
    input:
        errors=result("boltzmann/log_ratio_errors.csv"),
        posterior=result("boltzmann/posterior_moments.csv"),
    output:
        figure=report(
            figure("boltzmann/errata_b1_b2.png"),
            caption="captions/heart_errata.rst",
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.2 Boltzmann machine",
            labels={
                "paper": "Annular augmentation",
                "section": "§3.2 (diagnostic)",
                "figure": "Figs. 6-7 diagnostics",
                "panels": "B1 CMH normalisation, B2 cross-chain error",
            },
        ),
    log:
        result("logs/boltzmann/plot_errata.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("boltzmann"),
    shell:
        "{params.python} -m dogs.experiments.boltzmann plot-errata {params.args} > {log} 2>&1"


data_claims("boltzmann", "heart_disease", result("claims/boltzmann.json"))
