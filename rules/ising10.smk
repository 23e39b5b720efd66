# DoGS §5.1 and App. B.1: 10x10 random Ising, TV guarantees of uniform, systematic, DoGS, iterated DoGS (Figs. 1, 9).
# Compute (guarantees, samplers) -> summarise (tables, claims) -> plot; a plot rule never runs a sampler.
# Every step rule (`use rule experiment_step`, the Snakefile) runs `python -m dogs.experiments.<family> <step>
# {params.args}`: step() (rules/common.smk) passes the config slice, the seed, and the rule's named inputs,
# outputs and wildcards (dogs/workflow/shell.py).
#   ising10/rep{rep}/             model.npz, guarantees.csv, scans.npz (+ DoGS scans of every T, measured error)


ISING10_REPLICATES = list(range(config["ising10"]["n_replicates"]))


wildcard_constraints:
    rep=r"\d+",


use rule experiment_step as ising10_compute_guarantees with:  # model, TV guarantees of the four scans, DoGS re-optimised for every T
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
    resources:
        mem_mb=memory_mb("ising10"),
    params:
        **step("ising10", "compute-guarantees"),


use rule experiment_step as ising10_compute_measure with:  # sampler: marginal error of independent chains against junction-tree marginals
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
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("ising10"),
    params:
        **step("ising10", "compute-measure"),


use rule experiment_step as ising10_summarise with:
    """DoGS §5.1 (10x10 Ising): the summary tables and the measured claims of the paper-vs-ours table."""
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
    params:
        **step("ising10", "summarise"),


use rule experiment_step as ising10_plot_fig1 with:
    """DoGS §5.1 (10x10 Ising): draws Fig. 1 (the target is `fig1`)."""
    input:
        guarantees=result("ising10/rep0/guarantees.csv"),
        measured=result("ising10/rep0/measured_error.csv"),
    output:
        figure=report(
            figure("ising10/fig1_guarantees_rep0.png"),
            caption=caption(
                "Regenerates DoGS Fig. 1: total-variation guarantees (Dobrushin variation, Theorem 8)"
                " of the uniform, systematic, DoGS and iterated DoGS scans against the sampling "
                "budget T on a random 10x10 Ising model (replicate 0), with the measured marginal "
                "error of independent chains against junction-tree marginals. As in the paper, the "
                "legend quotes the best guarantee each scan achieves on the plotted axis."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.1 10x10 Ising",
            labels={
                "paper": "DoGS",
                "section": "§5.1",
                "figure": "Fig. 1",
                "panels": "TV guarantees of four scans, measured error (replicate 0)",
            },
        ),
    log:
        result("logs/ising10/plot_fig1.log"),
    params:
        **step("ising10", "plot-fig1"),


use rule experiment_step as ising10_plot_fig9 with:
    """DoGS §5.1 (10x10 Ising): draws Fig. 9 (the target is `fig9`)."""
    input:
        guarantees=expand(
            result("ising10/rep{rep}/guarantees.csv"), rep=ISING10_REPLICATES[1:]
        ),
    output:
        figure=report(
            figure("ising10/fig9_guarantees_replicates.png"),
            caption=caption(
                "Regenerates DoGS Fig. 9 (App. B.1): the guarantees of Fig. 1 on nine independent "
                "random 10x10 Ising models."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.1 10x10 Ising",
            labels={
                "paper": "DoGS",
                "section": "App. B.1",
                "figure": "Fig. 9",
                "panels": "replicates 1-9",
            },
        ),
    log:
        result("logs/ising10/plot_fig9.log"),
    params:
        **step("ising10", "plot-fig9"),


CLAIM_FILES.append(result("claims/ising10.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig1:
    """DoGS Fig. 1 (§5.1): 10x10 Ising TV guarantees, replicate 0, with the measured marginal error of independent chains; figures/ising10/."""
    input:
        figure("ising10/fig1_guarantees_rep0.png"),


target("fig1")


rule fig9:
    """DoGS Fig. 9 (App. B.1): the Fig. 1 guarantees for replicates 1-9; figures/ising10/."""
    input:
        figure("ising10/fig9_guarantees_replicates.png"),


target("fig9")
