# DoGS §5.4 and App. B.3: 40x40 marginal guarantees on the open grid and the torus (Figs. 4, 5, 12-15).
# Compute (guarantees, samplers) -> summarise (tables, claims) -> plot; a plot rule never runs a sampler.
# Every step rule (`use rule experiment_step`, the Snakefile) runs `python -m dogs.experiments.<family> <step>
# {params.args}`: step() (rules/common.smk) passes the config slice, the seed, and the rule's named inputs,
# outputs and wildcards (dogs/workflow/shell.py).
#   ising40/{model}/              the same for the open grid and the torus (+ scan profile, bias of X_1)


ISING40_REPETITIONS = list(range(config["ising40"]["bias"]["repetitions"] + 1))


wildcard_constraints:
    repetition=r"\d+",
    model="open|torus",


use rule experiment_step as ising40_compute_guarantees with:  # target e_1; open grid (theta = atanh 1/4) or torus (theta = 0.25)
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
    resources:
        mem_mb=memory_mb("ising40"),
    params:
        **step("ising40", "compute-guarantees"),


use rule experiment_step as ising40_summarise_profile with:  # the DoGS scan of the largest T: by distance, by segment, by step
    input:
        scans=result("ising40/{model}/scans.npz"),
    output:
        histogram=result("ising40/{model}/profile_histogram.csv"),
        profile=result("ising40/{model}/profile.npz"),
    log:
        result("logs/ising40/summarise_profile_{model}.log"),
    params:
        **step("ising40", "summarise-profile"),


use rule experiment_step as ising40_compute_bias with:  # sampler: bias of X_1^T on the torus, independent chains per T (repetition 0 = Fig. 5)
    input:
        model=result("ising40/torus/model.npz"),
        dogs_scans=result("ising40/torus/dogs_scans.npz"),
    output:
        bias=result("ising40/torus/bias_rep{repetition}.csv"),
    log:
        result("logs/ising40/compute_bias_rep{repetition}.log"),
    benchmark:
        result("benchmarks/snakemake/ising40_compute_bias_rep{repetition}.tsv")
    threads: ALL_CORES  # independent chains over every core (numba prange)
    resources:
        mem_mb=memory_mb("ising40"),
    params:
        **step("ising40", "compute-bias"),


use rule experiment_step as ising40_summarise with:
    """DoGS §5.4 (40x40 marginals): the summary tables and the measured claims of the paper-vs-ours table."""
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
    params:
        **step("ising40", "summarise"),


use rule experiment_step as ising40_plot_fig4 with:
    """DoGS §5.4 (40x40 marginals): draws Fig. 4 (the target is `fig4`)."""
    input:
        guarantees=result("ising40/open/guarantees.csv"),
        histogram=result("ising40/open/profile_histogram.csv"),
    output:
        figure=report(
            figure("ising40/fig4_open_guarantees.png"),
            caption=caption(
                "Regenerates DoGS Fig. 4: marginal TV guarantees for the top-left variable of the 40x40 open grid (uniform, systematic, DoGS, iterated DoGS), and the histogram of the distance of the DoGS scan's sampled variables from the target."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.4 40x40 marginals",
            labels={
                "paper": "DoGS",
                "section": "§5.4",
                "figure": "Fig. 4",
                "panels": "open grid: guarantees, frequency by distance",
            },
        ),
    log:
        result("logs/ising40/plot_fig4.log"),
    params:
        **step("ising40", "plot-fig4"),


use rule experiment_step as ising40_plot_fig5 with:
    """DoGS §5.4 (40x40 marginals): draws Fig. 5 (the target is `fig5`)."""
    input:
        guarantees=result("ising40/torus/guarantees.csv"),
        bias=result("ising40/torus/bias_rep0.csv"),
    output:
        figure=report(
            figure("ising40/fig5_torus_guarantees_bias.png"),
            caption=caption(
                "Regenerates DoGS Fig. 5: marginal guarantees on the 40x40 torus (theta = 0.25) for the systematic scan and DoGS, and the measured bias of X_1 with standard errors from 300 independent chains per T. Beside the paper's systematic scan (every sweep ends on X_1, so X_1 is not updated before one sweep) the dashed curve is the systematic scan whose last step updates X_1 at every T, the fair baseline of the verdicts."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.4 40x40 marginals",
            labels={
                "paper": "DoGS",
                "section": "§5.4",
                "figure": "Fig. 5",
                "panels": "torus: guarantees, bias of X_1^T",
            },
        ),
    log:
        result("logs/ising40/plot_fig5.log"),
    params:
        **step("ising40", "plot-fig5"),


use rule experiment_step as ising40_plot_fig12 with:
    """DoGS §5.4 (40x40 marginals): draws Fig. 12 (the target is `fig12`)."""
    input:
        profile=result("ising40/open/profile.npz"),
    output:
        figure=report(
            figure("ising40/fig12_open_frequency_maps.png"),
            caption=caption(
                "Regenerates DoGS Fig. 12 (App. B.3): how often each site of the open grid is sampled"
                " in successive segments of the DoGS scan; the scan zeroes in on the target."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.4 40x40 marginals",
            labels={
                "paper": "DoGS",
                "section": "App. B.3",
                "figure": "Fig. 12",
                "panels": "open grid: sampling frequency by segment",
            },
        ),
    log:
        result("logs/ising40/plot_fig12.log"),
    params:
        **step("ising40", "plot-fig12"),


use rule experiment_step as ising40_plot_fig13 with:
    """DoGS §5.4 (40x40 marginals): draws Fig. 13 (the target is `fig13`)."""
    input:
        bias=expand(
            result("ising40/torus/bias_rep{repetition}.csv"),
            repetition=ISING40_REPETITIONS[1:],
        ),
    output:
        figure=report(
            figure("ising40/fig13_torus_bias_repetitions.png"),
            caption=caption(
                "Regenerates DoGS Fig. 13 (App. B.3): the bias measurement of Fig. 5 repeated three "
                "times."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.4 40x40 marginals",
            labels={
                "paper": "DoGS",
                "section": "App. B.3",
                "figure": "Fig. 13",
                "panels": "torus: three bias repetitions",
            },
        ),
    log:
        result("logs/ising40/plot_fig13.log"),
    params:
        **step("ising40", "plot-fig13"),


use rule experiment_step as ising40_plot_fig14 with:
    """DoGS §5.4 (40x40 marginals): draws Fig. 14 (the target is `fig14`)."""
    input:
        bias=result("ising40/torus/bias_rep0.csv"),
        histogram=result("ising40/torus/profile_histogram.csv"),
        profile=result("ising40/torus/profile.npz"),
    output:
        figure=report(
            figure("ising40/fig14_torus_profile.png"),
            caption=caption(
                "Regenerates DoGS Fig. 14 (App. B.3): bias comparison on the torus, the DoGS scan's histogram by distance to the target and its distance-time profile."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.4 40x40 marginals",
            labels={
                "paper": "DoGS",
                "section": "App. B.3",
                "figure": "Fig. 14",
                "panels": "torus: bias, histogram, distance-time profile",
            },
        ),
    log:
        result("logs/ising40/plot_fig14.log"),
    params:
        **step("ising40", "plot-fig14"),


use rule experiment_step as ising40_plot_fig15 with:
    """DoGS §5.4 (40x40 marginals): draws Fig. 15 (the target is `fig15`)."""
    input:
        profile=result("ising40/torus/profile.npz"),
    output:
        figure=report(
            figure("ising40/fig15_torus_frequency_maps.png"),
            caption=caption(
                "Regenerates DoGS Fig. 15 (App. B.3): sampling frequency maps of the torus DoGS scan "
                "over successive segments."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.4 40x40 marginals",
            labels={
                "paper": "DoGS",
                "section": "App. B.3",
                "figure": "Fig. 15",
                "panels": "torus: sampling frequency by segment",
            },
        ),
    log:
        result("logs/ising40/plot_fig15.log"),
    params:
        **step("ising40", "plot-fig15"),


CLAIM_FILES.append(result("claims/ising40.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig4:
    """DoGS Fig. 4 (§5.4): 40x40 open grid, marginal guarantees and DoGS sampling frequency by distance to the target; figures/ising40/."""
    input:
        figure("ising40/fig4_open_guarantees.png"),


target("fig4")


rule fig5:
    """DoGS Fig. 5 (§5.4): 40x40 torus, guarantees and measured bias of X_1^T (300 chains per T); figures/ising40/."""
    input:
        figure("ising40/fig5_torus_guarantees_bias.png"),


target("fig5")


rule fig12:
    """DoGS Fig. 12 (App. B.3): open grid, spatial sampling frequency over successive segments of the DoGS scan; figures/ising40/."""
    input:
        figure("ising40/fig12_open_frequency_maps.png"),


target("fig12")


rule fig13:
    """DoGS Fig. 13 (App. B.3): torus, three independent repetitions of the bias measurement; figures/ising40/."""
    input:
        figure("ising40/fig13_torus_bias_repetitions.png"),


target("fig13")


rule fig14:
    """DoGS Fig. 14 (App. B.3): torus, bias, DoGS histogram by distance, distance-time profile; figures/ising40/."""
    input:
        figure("ising40/fig14_torus_profile.png"),


target("fig14")


rule fig15:
    """DoGS Fig. 15 (App. B.3): torus, spatial sampling frequency over successive segments of the DoGS scan; figures/ising40/."""
    input:
        figure("ising40/fig15_torus_frequency_maps.png"),


target("fig15")
