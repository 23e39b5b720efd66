# DoGS §5.3 (Fig. 3): MCMC maximum likelihood with uniform-scan and DoGS gradient estimates.
#   mcmc_mle/{mle_model}/   training_data.npz, theta_star.npz (exact optimum), trace.csv (every run's error)
#   mcmc_mle/               summary.csv (site updates to the accuracy level), claims

MCMC_MLE_MODELS = [m["name"] for m in config["mcmc_mle"]["models"]]


wildcard_constraints:
    mle_model="|".join(MCMC_MLE_MODELS),


use rule experiment_step as mcmc_mle_compute_optimum with:  # training data and the exact constrained optimum eta* (enumeration)
    output:
        training_data=result("mcmc_mle/{mle_model}/training_data.npz"),
        theta_star=result("mcmc_mle/{mle_model}/theta_star.npz"),
    log:
        result("logs/mcmc_mle/compute_optimum_{mle_model}.log"),
    benchmark:
        result("benchmarks/snakemake/mcmc_mle_compute_optimum_{mle_model}.tsv")
    resources:
        mem_mb=memory_mb("mcmc_mle"),
    params:
        **step("mcmc_mle", "compute-optimum"),


use rule experiment_step as mcmc_mle_compute_trace with:  # sampler: projected stochastic gradient ascent, both scans, every replicate
    input:
        training_data=result("mcmc_mle/{mle_model}/training_data.npz"),
        theta_star=result("mcmc_mle/{mle_model}/theta_star.npz"),
    output:
        trace=result("mcmc_mle/{mle_model}/trace.csv"),
    log:
        result("logs/mcmc_mle/compute_trace_{mle_model}.log"),
    benchmark:
        result("benchmarks/snakemake/mcmc_mle_compute_trace_{mle_model}.tsv")
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("mcmc_mle"),
    params:
        **step("mcmc_mle", "compute-trace"),


use rule experiment_step as mcmc_mle_summarise with:
    """DoGS §5.3 (MCMC maximum likelihood): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        traces=expand(
            result("mcmc_mle/{mle_model}/trace.csv"), mle_model=MCMC_MLE_MODELS
        ),
    output:
        summary=result("mcmc_mle/summary.csv"),
        claims=result("claims/mcmc_mle.json"),
    log:
        result("logs/mcmc_mle/summarise.log"),
    params:
        **step("mcmc_mle", "summarise"),


use rule experiment_step as mcmc_mle_plot_fig3 with:
    """DoGS §5.3 (MCMC maximum likelihood): draws Fig. 3 (the target is `fig3`)."""
    input:
        traces=expand(
            result("mcmc_mle/{mle_model}/trace.csv"), mle_model=MCMC_MLE_MODELS
        ),
    output:
        figure=report(
            figure("mcmc_mle/fig3_parameter_error.png"),
            caption=caption(
                "Regenerates DoGS Fig. 3: parameter error of projected stochastic gradient ascent on "
                "the 3x3 and 4x4 Ising models of Domke (2015) with gradient estimates from the "
                "uniform random scan and from DoGS, against the work in site updates, five replicates"
                " each."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.3 MCMC maximum likelihood",
            labels={
                "paper": "DoGS (with Liu & Domke 2014)",
                "section": "§5.3",
                "figure": "Fig. 3",
                "panels": "parameter error vs gradient step and site updates",
            },
        ),
    log:
        result("logs/mcmc_mle/plot_fig3.log"),
    params:
        **step("mcmc_mle", "plot-fig3"),


CLAIM_FILES.append(result("claims/mcmc_mle.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig3:
    """DoGS Fig. 3 (§5.3): MCMC maximum likelihood (with Liu & Domke's projection), parameter error vs gradient step and site updates, uniform scan vs DoGS; figures/mcmc_mle/."""
    input:
        figure("mcmc_mle/fig3_parameter_error.png"),


target("fig3")
