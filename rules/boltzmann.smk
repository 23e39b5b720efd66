# Boltzmann-machine posteriors with estimated partition-function ratios (AA §3.2, appendix A.4, Figs. 6-8).
#   boltzmann/{dataset}/        data.npz, posterior_{sampler}.npz (the W samples of every chain)
#   boltzmann/{dataset}/variants/{variant}/   posterior_{sampler}.npz of sensitivity runs and errata diagnostics
#   boltzmann/                  log_ratio_errors.csv (Fig. 6), fractions_within.csv (Fig. 8),
#                                   posterior_moments.csv (Fig. 7), claims
# The heart data set comes from the data directory (docs/data.md); the synthetic ones are drawn here.


from dogs.experiments.boltzmann import FIG8_DATASETS, dataset_units

BM_DATASETS = config["boltzmann"]["datasets"]
BM_UNITS = {name: dataset_units(spec) for name, spec in BM_DATASETS.items()}
BM_SMALL = [n for n in BM_DATASETS if BM_UNITS[n] <= 10]
BM_LARGE = [n for n in BM_DATASETS if BM_UNITS[n] > 10]
BM_VARIANTS = config["boltzmann"].get("variants") or {}
# The posterior files of each data set, one per inner sampler; the exact chain only for d <= 10.
BM_CHAIN_FILES = {
    n: [
        result(f"boltzmann/{n}/posterior_{s}.npz")
        for s in config["boltzmann"]["samplers"]
        if s != "exact" or BM_UNITS[n] <= 10
    ]
    for n in BM_DATASETS
}
# The folder of every variant and data set it runs (one posterior file per inner sampler inside).
BM_VARIANT_FOLDERS = [
    result(f"boltzmann/{d}/variants/{v}")
    for v, spec in BM_VARIANTS.items()
    for d in spec["datasets"]
]


wildcard_constraints:
    bm_dataset="|".join(BM_DATASETS),
    bm_variant="|".join(BM_VARIANTS) or "(?!)",


use rule experiment_step as boltzmann_compute_data with:  # the heart-disease table, or synthetic data from a random Boltzmann machine
    input:
        # the heart-disease table for the heart data set (stops the workflow with instructions when it is missing)
        lambda wildcards: (
            [os.path.join(dataset("heart_disease"), "reinis_counts.csv")]
            if BM_DATASETS[wildcards.bm_dataset]["source"] == "heart_disease"
            else []
        ),
    output:
        data=result("boltzmann/{bm_dataset}/data.npz"),
    log:
        result("logs/boltzmann/compute_data_{bm_dataset}.log"),
    resources:
        mem_mb=memory_mb("boltzmann"),
    params:
        **step("boltzmann", "compute-data"),


use rule experiment_step as boltzmann_compute_chains with:  # sampler: approximate MH chains with every inner sampler and the exact ratio (d <= 10)
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
    threads: ALL_CORES  # independent chains over every core (single-threaded worker processes)
    resources:
        mem_mb=lambda wildcards, threads: memory_mb("boltzmann") + 250 * threads,  # + a worker process per thread
    params:
        **step("boltzmann", "compute-chains"),


use rule experiment_step as boltzmann_compute_chains_large with:  # the same without the exact chain (2^d states cannot be enumerated)
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
    threads: ALL_CORES  # independent chains over every core (single-threaded worker processes)
    resources:
        mem_mb=lambda wildcards, threads: memory_mb("boltzmann") + 250 * threads,  # + a worker process per thread
    params:
        **step("boltzmann", "compute-chains"),


use rule experiment_step as boltzmann_compute_variant with:  # sampler: the inner samplers of a sensitivity run or an errata diagnostic, one data set
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
    threads: ALL_CORES  # independent chains over every core (single-threaded worker processes)
    resources:
        mem_mb=lambda wildcards, threads: memory_mb("boltzmann") + 250 * threads,  # + a worker process per thread
    params:
        **step("boltzmann", "compute-variant"),


use rule experiment_step as boltzmann_summarise with:
    """Annular augmentation §3.2 (Boltzmann machine): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        chains=[path for n in BM_DATASETS for path in BM_CHAIN_FILES[n]],
        variant_chains=BM_VARIANT_FOLDERS,
    output:
        errors=result("boltzmann/log_ratio_errors.csv"),
        fractions=result("boltzmann/fractions_within.csv"),
        posterior=result("boltzmann/posterior_moments.csv"),
        claims=result("claims/boltzmann.json"),
    log:
        result("logs/boltzmann/summarise.log"),
    params:
        **step("boltzmann", "summarise"),


use rule experiment_step as boltzmann_plot_fig6 with:
    """Annular augmentation §3.2 (Boltzmann machine): draws Fig. 6 (the target is `fig_aa6`)."""
    input:
        errors=result("boltzmann/log_ratio_errors.csv"),
    output:
        figure=report(
            figure("boltzmann/fig6_log_ratio_errors.png"),
            caption=caption(
                "Regenerates AA Fig. 6: per inner sampler (exact HMC, CMH, AAS + RB, AAG + RB), the mean ± s.d. over chains of each chain's mean absolute error of the estimated log partition-function ratio log Z(W')/Z(W) against the exact ratio, for the heart-disease data (left) and synthetic data with d = 10 (right)."
            ),
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
    params:
        **step("boltzmann", "plot-fig6"),


use rule experiment_step as boltzmann_plot_fig7 with:
    """Annular augmentation §3.2 (Boltzmann machine): draws Fig. 7 (the target is `fig_aa7`)."""
    input:
        chains=BM_CHAIN_FILES["heart"],
    output:
        figure=report(
            figure("boltzmann/fig7_posterior.png"),
            caption=caption(
                "Regenerates AA Fig. 7: the posterior of each heart-disease Boltzmann-machine weight "
                "from the exact-ratio chains against the chains driven by CMH and AAS + RB estimates "
                "(second halves of all chains pooled), one panel per weight."
            ),
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
    params:
        **step("boltzmann", "plot-fig7"),


use rule experiment_step as boltzmann_plot_fig8 with:
    """Annular augmentation §3.2 (Boltzmann machine): draws Fig. 8 from its synthetic data sets' chains alone, so it needs no data set (the target is `fig_aa8`)."""
    input:
        chains=[
            path
            for name in FIG8_DATASETS
            if name in config["boltzmann"]["datasets"]
            for path in BM_CHAIN_FILES[name]
        ],
    output:
        figure=report(
            figure("boltzmann/fig8_fraction_within.png"),
            caption=caption(
                "Regenerates AA Fig. 8: per inner sampler, the fraction of posterior samples within "
                "20% of each true weight, weights sorted by that fraction (higher curves are better),"
                " for the synthetic models with d = 25 and d = 50 units."
            ),
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
    params:
        **step("boltzmann", "plot-fig8"),


use rule experiment_step as boltzmann_plot_errata with:
    """Annular augmentation §3.2 (Boltzmann machine): diagnostics of the authors' code: B1 (CMH's ratio / F) and B2 (cross-chain error) (the target is `fig_aa_errata_b1_b2`)."""
    input:
        errors=result("boltzmann/log_ratio_errors.csv"),
        posterior=result("boltzmann/posterior_moments.csv"),
    output:
        figure=report(
            figure("boltzmann/errata_b1_b2.png"),
            caption=caption(
                "Diagnostics of the authors' code, not results of ours (heart data). B1: the authors' CMH estimate sums L = 1.5 F samples but divides by F, adding log 1.5 to every log-ratio estimate; reproduced, it raises CMH's outer acceptance far above every other sampler's and widens its posterior (left, middle), the paper's Fig. 7 \"CMH is off\". B2: the authors' Fig. 6 measured each sampler's estimates against the exact ratios of a separate chain with its own proposals; measured that way the error neither falls with F nor separates the samplers (right, dashed), while the error against the chain's own exact ratios falls with F (solid)."
            ),
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
    params:
        **step("boltzmann", "plot-errata"),


data_claims("boltzmann", "heart_disease", result("claims/boltzmann.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig_aa6:
    """Annular augmentation Fig. 6 (§3.2, needs the heart data): error of the estimated log partition-function ratios; figures/boltzmann/."""
    input:
        figure("boltzmann/fig6_log_ratio_errors.png"),


target("fig_aa6", needs="heart_disease")


rule fig_aa7:
    """Annular augmentation Fig. 7 (§3.2, needs the heart data): posterior of W, exact ratio against CMH and AAS + RB; figures/boltzmann/."""
    input:
        figure("boltzmann/fig7_posterior.png"),


target("fig_aa7", needs="heart_disease")


rule fig_aa8:
    """Annular augmentation Fig. 8 (§3.2): fraction of posterior samples within 20% of the true weights, d = 25 and 50; figures/boltzmann/."""
    input:
        figure("boltzmann/fig8_fraction_within.png"),


target("fig_aa8", needs="heart_disease")


rule fig_aa_errata_b1_b2:
    """Annular augmentation Figs. 6-7 diagnostics of the authors' code (needs the heart data; docs/paper-vs-ours.md); figures/boltzmann/."""
    input:
        figure("boltzmann/errata_b1_b2.png"),


target("fig_aa_errata_b1_b2", needs="heart_disease")
