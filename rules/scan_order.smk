# He, De Sa, Mitliagkas & Re (2016), Scan order in Gibbs sampling: Table 1 and Fig. 2, computed exactly.
# Compute (exact mixing times from transition matrices; App. A models' random scan on their level chains) ->
# summarise (mixing_times.csv, exponents, claims) -> plot.
# A figure rule never computes a mixing time. Its targets close this file.
# Every step rule (`use rule experiment_step`, the Snakefile) runs `python -m dogs.experiments.scan_order <step>
# {params.args}`: step() (rules/common.smk) passes the config slice, the seed, and the rule's named inputs,
# outputs and wildcards (dogs/workflow/shell.py).
#   scan_order/mixing/{scan_model}.csv        Fig. 2a / Table 1: random, best, worst systematic per n (+ paper's orders),
#                                             each row's method (exact, top-state bracket, level chain)
#   scan_order/two_islands_reduced.csv        the reduced two-islands chain of §4 (islands mix instantly)
#   scan_order/bridge_efficiency.csv          §3.2 / App. C bridge efficiencies of the full two-islands model
#   scan_order/fig2b_island_mass.csv          Fig. 2b
#   scan_order/permutations/{perm_model}.csv  Fig. 2c
#   scan_order/mixing_times.csv               model, n, scan, t_mix, t_mix_upper (where bracketed), method
# Every CSV has its <name>.meta.json sidecar (settings, seed, timing, versions), written by the step.

SCAN_ORDER_MODELS = [
    "sequence_of_dependencies",
    "two_islands",
    "discrete_pyramid",
    "memorize_and_repeat",
    "soft_dependencies",
]
SCAN_ORDER_PERMUTATION_MODELS = ["sequence_of_dependencies", "two_islands"]
# The report caption of both Fig. 2a outputs (the paper's panels and the App. A models).
SCAN_ORDER_FIG2A_CAPTION = caption(
    "Regenerates He et al. Fig. 2a: exact mixing times (epsilon = 1/4, worst start) of random scan and of the best and worst systematic scans against the number of variables. The sequence of dependencies, discrete pyramid and two islands (reduced chain of §4) are the paper's panels (fig2a_mixing_time_vs_n.png); memorize and repeat and soft dependencies (App. A) are in Table 1 but not in He et al.'s figure (fig2a_appendix_models.png): their random scan comes from the level chains (exact lumping; soft dependencies' merge phase bracketed), to n = 48 and n = 1024, their systematic scans from the full models to n = 8."
)

CLAIM_FILES.append(result("claims/scan_order.json"))


use rule experiment_step as scan_order_compute_mixing with:  # t_mix of one model for every n: random, best and worst systematic scan
    output:
        mixing=result("scan_order/mixing/{scan_model}.csv"),
    log:
        result("logs/scan_order/mixing_{scan_model}.log"),
    benchmark:
        result("benchmarks/snakemake/scan_order_compute_mixing_{scan_model}.tsv")
    wildcard_constraints:
        scan_model="|".join(SCAN_ORDER_MODELS),
    priority: LONG
    resources:
        mem_mb=memory_mb("scan_order"),
    params:
        **step("scan_order", "compute-mixing"),


use rule experiment_step as scan_order_compute_islands with:
    """He et al. 2016, a compute step: reduced two-islands chain (Fig. 2a) and exact bridge efficiencies (§3.2, App. C)."""
    output:
        reduced=result("scan_order/two_islands_reduced.csv"),
        efficiency=result("scan_order/bridge_efficiency.csv"),
    log:
        result("logs/scan_order/islands.log"),
    benchmark:
        result("benchmarks/snakemake/scan_order_compute_islands.tsv")
    resources:
        mem_mb=memory_mb("scan_order"),
    params:
        **step("scan_order", "compute-islands"),


use rule experiment_step as scan_order_compute_island_mass with:
    """He et al. 2016, a compute step: Fig. 2b: mass on the other island over updates (bridge mass 0.1)."""
    output:
        mass=result("scan_order/fig2b_island_mass.csv"),
    log:
        result("logs/scan_order/island_mass.log"),
    benchmark:
        result("benchmarks/snakemake/scan_order_compute_island_mass.tsv")
    resources:
        mem_mb=memory_mb("scan_order"),
    params:
        **step("scan_order", "compute-island-mass"),


use rule experiment_step as scan_order_compute_permutations with:  # Fig. 2c: exact t_mix of every permutation, and of random scan
    output:
        permutations=result("scan_order/permutations/{perm_model}.csv"),
    log:
        result("logs/scan_order/permutations_{perm_model}.log"),
    benchmark:
        result("benchmarks/snakemake/scan_order_compute_permutations_{perm_model}.tsv")
    wildcard_constraints:
        perm_model="|".join(SCAN_ORDER_PERMUTATION_MODELS),
    resources:
        mem_mb=memory_mb("scan_order"),
    params:
        **step("scan_order", "compute-permutations"),


use rule experiment_step as scan_order_summarise with:
    """He et al. 2016: mixing_times.csv, Table 1 exponents beside the paper's orders, claims."""
    input:
        mixing=expand(
            result("scan_order/mixing/{scan_model}.csv"), scan_model=SCAN_ORDER_MODELS
        ),
        reduced=result("scan_order/two_islands_reduced.csv"),
        efficiency=result("scan_order/bridge_efficiency.csv"),
        mass=result("scan_order/fig2b_island_mass.csv"),
        permutations=expand(
            result("scan_order/permutations/{perm_model}.csv"),
            perm_model=SCAN_ORDER_PERMUTATION_MODELS,
        ),
        paper_claims="config/claims/he2016.yaml",
    output:
        mixing_times=result("scan_order/mixing_times.csv"),
        exponents=result("scan_order/table1_exponents.csv"),
        markdown=result("scan_order/table1_exponents.md"),
        claims=result("claims/scan_order.json"),
    log:
        result("logs/scan_order/summarise.log"),
    params:
        **step("scan_order", "summarise"),


rule scan_order_table1_page:
    """He et al. 2016 Table 1 beside ours, as a page of the report (the target is `table_he1`)."""
    input:
        markdown=result("scan_order/table1_exponents.md"),
    output:
        page=report(
            result("scan_order/table1_exponents.html"),
            caption=caption(
                "He et al. (2016), Table 1: the orders of the mixing times of random and systematic scan on the paper's models, the paper's exponents beside ours, fitted to exact mixing times (with the fit, its interval and the verdict per row). Generated from ``results/scan_order/table1_exponents.md``."
            ),
            category="2. He et al. 2016, scan order",
            subcategory="Table 1 and Fig. 2",
            labels={
                "paper": "He et al. 2016",
                "section": "§3",
                "figure": "Table 1",
                "panels": "mixing-time orders, the paper's beside our fitted exponents",
            },
        ),
    log:
        result("logs/scan_order/table1_page.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
    shell:
        "{params.python} -m dogs.workflow.report_pages {input.markdown} {output.page}"
        " --title 'He et al. 2016, Table 1: ours beside the paper' > {log} 2>&1"


use rule experiment_step as scan_order_plot_fig2a with:
    """He et al. 2016: draws Fig. 2a (the target is `fig_he2a`)."""
    input:
        mixing=expand(
            result("scan_order/mixing/{scan_model}.csv"), scan_model=SCAN_ORDER_MODELS
        ),
        reduced=result("scan_order/two_islands_reduced.csv"),
        exponents=result("scan_order/table1_exponents.csv"),
    output:
        figure=report(
            figure("scan_order/fig2a_mixing_time_vs_n.png"),
            caption=SCAN_ORDER_FIG2A_CAPTION,
            category="2. He et al. 2016, scan order",
            subcategory="Table 1 and Fig. 2",
            labels={
                "paper": "He et al. 2016",
                "section": "§3",
                "figure": "Fig. 2a",
                "panels": "mixing time vs n, the figure's three models",
            },
        ),
        appendix=report(
            figure("scan_order/fig2a_appendix_models.png"),
            caption=SCAN_ORDER_FIG2A_CAPTION,
            category="2. He et al. 2016, scan order",
            subcategory="Table 1 and Fig. 2",
            labels={
                "paper": "He et al. 2016",
                "section": "App. A",
                "figure": "Fig. 2a, App. A models",
                "panels": "mixing time vs n, memorize and repeat, soft dependencies",
            },
        ),
    log:
        result("logs/scan_order/fig2a.log"),
    params:
        **step("scan_order", "plot-fig2a"),


use rule experiment_step as scan_order_plot_fig2b with:
    """He et al. 2016: draws Fig. 2b (the target is `fig_he2b`)."""
    input:
        mass=result("scan_order/fig2b_island_mass.csv"),
    output:
        figure=report(
            figure("scan_order/fig2b_two_islands_mass.png"),
            caption=caption(
                "Regenerates He et al. Fig. 2b: mass on the other island over single-variable updates"
                " in the two-islands model with bridge mass 0.1, for random scan and the good and bad"
                " systematic scans."
            ),
            category="2. He et al. 2016, scan order",
            subcategory="Table 1 and Fig. 2",
            labels={
                "paper": "He et al. 2016",
                "section": "§3",
                "figure": "Fig. 2b",
                "panels": "two islands: mass on the other island",
            },
        ),
    log:
        result("logs/scan_order/fig2b.log"),
    params:
        **step("scan_order", "plot-fig2b"),


use rule experiment_step as scan_order_plot_fig2c with:
    """He et al. 2016: draws Fig. 2c (the target is `fig_he2c`)."""
    input:
        permutations=expand(
            result("scan_order/permutations/{perm_model}.csv"),
            perm_model=SCAN_ORDER_PERMUTATION_MODELS,
        ),
    output:
        figure=report(
            figure("scan_order/fig2c_permutations.png"),
            caption=caption(
                "Regenerates He et al. Fig. 2c: sorted exact mixing times of every permutation used "
                "as a systematic scan, beside random scan, for the sequence of dependencies and two "
                "islands models."
            ),
            category="2. He et al. 2016, scan order",
            subcategory="Table 1 and Fig. 2",
            labels={
                "paper": "He et al. 2016",
                "section": "§3",
                "figure": "Fig. 2c",
                "panels": "sorted mixing times of every permutation",
            },
        ),
    log:
        result("logs/scan_order/fig2c.log"),
    params:
        **step("scan_order", "plot-fig2c"),


# ---- Named targets, each declared with `target` (rules/common.smk)
rule table_he1:
    """He et al. 2016 Table 1: mixing-time orders, our fitted exponents beside the paper's; results/scan_order/table1_exponents.md."""
    input:
        result("scan_order/table1_exponents.md"),
        result("scan_order/table1_exponents.html"),


target("table_he1")


rule fig_he2a:
    """He et al. 2016 Fig. 2a: mixing time vs n, random / best / worst systematic scan; figures/scan_order/."""
    input:
        figure("scan_order/fig2a_mixing_time_vs_n.png"),


target("fig_he2a")


rule fig_he2b:
    """He et al. 2016 Fig. 2b: two islands, mass on the other island over time; figures/scan_order/."""
    input:
        figure("scan_order/fig2b_two_islands_mass.png"),


target("fig_he2b")


rule fig_he2c:
    """He et al. 2016 Fig. 2c: sorted mixing times of every permutation; figures/scan_order/."""
    input:
        figure("scan_order/fig2c_permutations.png"),


target("fig_he2c")
