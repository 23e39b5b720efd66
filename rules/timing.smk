# DoGS §5.2 and App. B.2: end-to-end wall-clock time of the systematic scan vs DoGS (E4).
# compute (one trial per job: model, timed DoGS setup, timed sampling of both scans)
#   -> summarise (per grid side: summary.json, speed-up table) -> summarise-claims; the figure rules only plot.
# The main grid (timing.main_side, paper 1000) has timing.main_trials trials: trial 0 is Fig. 2, the
# others Fig. 10; the small grid (timing.small_side, paper 300) has one trial, Fig. 11. Figure names
# are fixed by role (the targets at the end of this file); result folders carry the actual side.
# Every step rule (`use rule experiment_step`, the Snakefile) runs `python -m dogs.experiments.timing <step>
# {params.args}`: step() (rules/common.smk) passes the config slice, the seed, and the rule's named inputs,
# outputs and wildcards (dogs/workflow/shell.py).

TIMING_MAIN = config["timing"]["main_side"]
TIMING_SMALL = config["timing"]["small_side"]


# Trial numbers per grid side: timing.main_trials on the main grid (trial 0 = Fig. 2), one on the small
# grid (the main grid's entry wins if both sides are equal).
TIMING_TRIALS = {
    TIMING_SMALL: [0],
    TIMING_MAIN: list(range(config["timing"]["main_trials"])),
}


use rule experiment_step as timing_compute with:
    output:
        run=result("timing/L{side}/trial{trial}/run.json"),
        trace=result("timing/L{side}/trial{trial}/trace.csv"),
    log:
        result("logs/timing/L{side}/trial{trial}.log"),
    benchmark:
        result("benchmarks/snakemake/timing_compute_L{side}_trial{trial}.tsv")
    wildcard_constraints:
        side=r"\d+",
        trial=r"\d+",
    priority: CLOCKED
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("timing"),
    params:
        **step("timing", "compute"),


use rule experiment_step as timing_summarise with:
    input:
        runs=lambda w: [
            result(f"timing/L{w.side}/trial{k}/run.json")
            for k in TIMING_TRIALS[int(w.side)]
        ],
        traces=lambda w: [
            result(f"timing/L{w.side}/trial{k}/trace.csv")
            for k in TIMING_TRIALS[int(w.side)]
        ],
    output:
        summary=result("timing/L{side}/summary.json"),
        speedup=result("timing/L{side}/speedup.csv"),
    log:
        result("logs/timing/L{side}/summarise.log"),
    wildcard_constraints:
        side=r"\d+",
    params:
        **step("timing", "summarise"),


use rule experiment_step as timing_compute_epsilon with:
    """DoGS §5.2 (end-to-end timing), a compute step: App. B.2: the DoGS bias for smaller early-stopping levels (main grid, trial 0)."""
    output:
        epsilon=result(f"timing/L{TIMING_MAIN}/epsilon_sweep.csv"),
    log:
        result("logs/timing/epsilon_sweep.log"),
    benchmark:
        result("benchmarks/snakemake/timing_compute_epsilon.tsv")
    resources:
        mem_mb=memory_mb("timing"),
    params:
        **step("timing", "compute-epsilon"),


use rule experiment_step as timing_summarise_claims with:
    """DoGS §5.2 (end-to-end timing): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        main=result(f"timing/L{TIMING_MAIN}/summary.json"),
        small=result(f"timing/L{TIMING_SMALL}/summary.json"),
        epsilon=result(f"timing/L{TIMING_MAIN}/epsilon_sweep.csv"),
    output:
        claims=result("claims/timing.json"),
    log:
        result("logs/timing/claims.log"),
    params:
        **step("timing", "summarise-claims"),


use rule experiment_step as timing_plot_fig2 with:
    """DoGS §5.2 (end-to-end timing): draws Fig. 2 (the target is `fig2`)."""
    input:
        summary=result(f"timing/L{TIMING_MAIN}/summary.json"),
        speedup=result(f"timing/L{TIMING_MAIN}/speedup.csv"),
        trace=result(f"timing/L{TIMING_MAIN}/trial0/trace.csv"),
    output:
        figure=report(
            figure("timing/fig2_L1000.png"),
            caption=caption(
                "Regenerates DoGS Fig. 2: the estimate of E[X_1] against wall-clock time for the systematic scan and the DoGS scan on a 1000x1000 Ising grid, and the end-to-end speed-up of DoGS (setup included) against the number of sample points, measured and predicted, beside the speed-up the paper's own timings imply."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.2 timing",
            labels={
                "paper": "DoGS",
                "section": "§5.2",
                "figure": "Fig. 2",
                "panels": "E[X_1] vs time; speed-up vs samples (1000x1000)",
            },
        ),
    log:
        result("logs/timing/fig2.log"),
    params:
        **step("timing", "plot-fig2"),


use rule experiment_step as timing_plot_fig10 with:
    """DoGS §5.2 (end-to-end timing): draws Fig. 10 (the target is `fig10`)."""
    input:
        summary=result(f"timing/L{TIMING_MAIN}/summary.json"),
        speedup=result(f"timing/L{TIMING_MAIN}/speedup.csv"),
        traces=[
            result(f"timing/L{TIMING_MAIN}/trial{k}/trace.csv")
            for k in TIMING_TRIALS[TIMING_MAIN][1:]
        ],
    output:
        figure=report(
            figure("timing/fig10_L1000_trials.png"),
            caption=caption(
                "Regenerates DoGS Fig. 10 (App. B.2): the timing run of Fig. 2 on independent random "
                "grids."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.2 timing",
            labels={
                "paper": "DoGS",
                "section": "App. B.2",
                "figure": "Fig. 10",
                "panels": "three more trials (1000x1000)",
            },
        ),
    log:
        result("logs/timing/fig10.log"),
    params:
        **step("timing", "plot-fig10"),


use rule experiment_step as timing_plot_fig11 with:
    """DoGS §5.2 (end-to-end timing): draws Fig. 11 (the target is `fig11`)."""
    input:
        summary=result(f"timing/L{TIMING_SMALL}/summary.json"),
        speedup=result(f"timing/L{TIMING_SMALL}/speedup.csv"),
        trace=result(f"timing/L{TIMING_SMALL}/trial0/trace.csv"),
    output:
        figure=report(
            figure("timing/fig11_L300.png"),
            caption=caption(
                "Regenerates DoGS Fig. 11 (App. B.2): the timing run on a 300x300 grid."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.2 timing",
            labels={
                "paper": "DoGS",
                "section": "App. B.2",
                "figure": "Fig. 11",
                "panels": "300x300",
            },
        ),
    log:
        result("logs/timing/fig11.log"),
    params:
        **step("timing", "plot-fig11"),


CLAIM_FILES.append(result("claims/timing.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig2:
    """DoGS Fig. 2 (§5.2): 10^6-variable Ising, estimate of E[X_1] vs wall-clock time and end-to-end speed-up; figures/timing/."""
    input:
        figure("timing/fig2_L1000.png"),


target("fig2")


rule fig10:
    """DoGS Fig. 10 (App. B.2): three more independent trials of Fig. 2 (1000x1000); figures/timing/."""
    input:
        figure("timing/fig10_L1000_trials.png"),


target("fig10")


rule fig11:
    """DoGS Fig. 11 (App. B.2): Fig. 2 at 300x300; figures/timing/."""
    input:
        figure("timing/fig11_L300.png"),


target("fig11")
