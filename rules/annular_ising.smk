# Annular augmentation on the periodic Ising lattice (AA §3.1, Figs. 3-5, Tables 1-9).
#   annular_ising/{group}/setting{k}/   truth.npz (junction tree, LBP; per bias draw), errors.csv (twelve samplers x draws x runs)
#   annular_ising/                      summary.csv, tables_aa.md / .csv (ours beside the paper's), claims
#   figures: heatmaps per group; errata_w2_fig5.png (the authors' W/2 scoring of Fig. 5, a diagnostic)


from dogs.experiments.annular_ising import group_settings

AA_GROUPS = config["annular_ising"]["groups"]
AA_SAMPLER_GROUPS = [name for name, group in AA_GROUPS.items() if group["samplers"]]
AA_TRUTH_GROUPS = [name for name, group in AA_GROUPS.items() if not group["samplers"]]
# Every (group, setting index) pair: a group's settings are the values of its list-valued key.
AA_SETTINGS = [
    (name, k)
    for name, group in AA_GROUPS.items()
    for k in range(len(group_settings(group)))
]
# The report's panel label of each heatmap figure: the setting the paper's figure varies over.
AA_FIGURE_SETTINGS = {
    "fig3": "c = 0.2 (multimodal)",
    "fig4": "c = 0 (bimodal)",
    "fig5": "W = 0.2 (unimodal)",
}


wildcard_constraints:
    aa_setting=r"\d+",
    aa_figure="|".join(AA_SAMPLER_GROUPS),


use rule experiment_step as annular_ising_compute with:  # sampler: truth, LBP and the twelve samplers at equal cost, one setting
    output:
        truth=result("annular_ising/{aa_group}/setting{aa_setting}/truth.npz"),
        errors=result("annular_ising/{aa_group}/setting{aa_setting}/errors.csv"),
    log:
        result("logs/annular_ising/compute_{aa_group}_setting{aa_setting}.log"),
    benchmark:
        result(
            "benchmarks/snakemake/annular_ising_compute_{aa_group}_setting{aa_setting}.tsv"
        )
    wildcard_constraints:
        aa_group="|".join(AA_SAMPLER_GROUPS),
    resources:
        mem_mb=memory_mb("annular_ising"),
    params:
        **step("annular_ising", "compute"),


use rule experiment_step as annular_ising_compute_truth with:  # truth and LBP only (Table 1), one setting
    output:
        truth=result("annular_ising/{aa_group}/setting{aa_setting}/truth.npz"),
    log:
        result("logs/annular_ising/compute_{aa_group}_setting{aa_setting}.log"),
    wildcard_constraints:
        aa_group="|".join(AA_TRUTH_GROUPS) or "(?!)",
    resources:
        mem_mb=memory_mb("annular_ising"),
    params:
        **step("annular_ising", "compute"),


use rule experiment_step as annular_ising_summarise with:
    """Annular augmentation §3.1 (9x9 Ising): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        truth=[
            result(f"annular_ising/{g}/setting{k}/truth.npz") for g, k in AA_SETTINGS
        ],
        errors=[
            result(f"annular_ising/{g}/setting{k}/errors.csv")
            for g, k in AA_SETTINGS
            if g in AA_SAMPLER_GROUPS
        ],
        paper_tables="config/paper_tables/annular_augmentation.csv",
    output:
        summary=result("annular_ising/summary.csv"),
        tables_md=result("annular_ising/tables_aa.md"),
        tables_csv=result("annular_ising/tables_aa.csv"),
        claims=result("claims/annular_ising.json"),
    log:
        result("logs/annular_ising/summarise.log"),
    params:
        **step("annular_ising", "summarise"),


rule annular_ising_tables_page:
    """Annular augmentation appendix Tables 1-9 beside ours, as a page of the report (the target is `tables_aa`)."""
    input:
        markdown=result("annular_ising/tables_aa.md"),
    output:
        page=report(
            result("annular_ising/tables_aa.html"),
            caption=caption(
                "Annular augmentation sampling (Fagan, Bhandari & Cunningham 2017), appendix Tables 1-9: the node and pairwise errors of every sampler at each coupling strength and field, the paper's numbers beside ours (with intervals over runs) and the W/2 diagnostic rows. Generated from ``results/annular_ising/tables_aa.md``."
            ),
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.1 9x9 Ising",
            labels={
                "paper": "Annular augmentation",
                "section": "App.",
                "figure": "Tables 1-9",
                "panels": "errors at each (W, c), the paper's beside ours",
            },
        ),
    log:
        result("logs/annular_ising/tables_page.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
    shell:
        "{params.python} -m dogs.workflow.report_pages {input.markdown} {output.page}"
        " --title 'Annular augmentation, appendix Tables 1-9: ours beside the paper' > {log} 2>&1"


use rule experiment_step as annular_ising_plot_heatmaps with:
    input:
        summary=result("annular_ising/summary.csv"),
    output:
        figure=report(
            figure("annular_ising/{aa_figure}_heatmaps.png"),
            caption=caption(
                "Regenerates AA Fig. {{ snakemake.wildcards.aa_figure[3:] }} ({{ "
                "snakemake.wildcards.aa_figure }}): errors of the twelve binary samplers at equal "
                "cost on the 9x9 Ising torus (node RMSE and pairwise error against the junction-tree "
                "truth), one heatmap cell per sampler and setting: the median over independent bias "
                "draws of the mean over runs (the paper shows one draw)."
            ),
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.1 9x9 Ising",
            labels=lambda wildcards: {
                "paper": "Annular augmentation",
                "section": "§3.1",
                "figure": f"Fig. {wildcards.aa_figure.removeprefix('fig')}",
                "panels": f"node and pairwise error heatmaps, twelve samplers, {AA_FIGURE_SETTINGS.get(wildcards.aa_figure, wildcards.aa_figure)}",
            },
        ),
    log:
        result("logs/annular_ising/plot_{aa_figure}.log"),
    params:
        **step("annular_ising", "plot-heatmaps"),


use rule experiment_step as annular_ising_plot_errata with:
    """Annular augmentation §3.1 (9x9 Ising): diagnostic: Fig. 5 scored against the truth at W/2, as the authors' code did (the target is `fig_aa_errata_w2`)."""
    input:
        summary=result("annular_ising/summary.csv"),
        paper_tables="config/paper_tables/annular_augmentation.csv",
    output:
        figure=report(
            figure("annular_ising/errata_w2_fig5.png"),
            caption=caption(
                "Diagnostic of the authors' code, not a result of ours: AA Fig. 5 (W = 0.2) node RMSE of HMC, CMH and the annular + LBP samplers scored against the truth at W (left, ours) and against the truth at W/2 (right), the coupling the authors' code gave its junction tree while its samplers used W; the paper's Table 8 is drawn beside the latter. Scored at W/2 the samplers are on par, as printed; scored at W the annular + LBP samplers are several times better."
            ),
            category="3. Annular augmentation (Fagan et al. 2017)",
            subcategory="§3.1 9x9 Ising",
            labels={
                "paper": "Annular augmentation",
                "section": "§3.1 (diagnostic)",
                "figure": "Fig. 5 at W/2",
                "panels": "scored as the authors' code did",
            },
        ),
    log:
        result("logs/annular_ising/plot_errata.log"),
    params:
        **step("annular_ising", "plot-errata"),


CLAIM_FILES.append(result("claims/annular_ising.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig_aa3:
    """Annular augmentation Fig. 3 (§3.1): 9x9 Ising heatmaps, c = 0.2, W = 0.1 .. 0.8 (multimodal); figures/annular_ising/."""
    input:
        figure("annular_ising/fig3_heatmaps.png"),


target("fig_aa3")


rule fig_aa4:
    """Annular augmentation Fig. 4 (§3.1): heatmaps, c = 0, W = 0.25 .. 5 (bimodal); figures/annular_ising/."""
    input:
        figure("annular_ising/fig4_heatmaps.png"),


target("fig_aa4")


rule fig_aa5:
    """Annular augmentation Fig. 5 (§3.1): heatmaps, W = 0.2, c = 0.2 .. 4 (unimodal); figures/annular_ising/."""
    input:
        figure("annular_ising/fig5_heatmaps.png"),


target("fig_aa5")


rule tables_aa:
    """Annular augmentation appendix Tables 1-9, ours beside the paper's; results/annular_ising/tables_aa.md (and .csv)."""
    input:
        result("annular_ising/tables_aa.md"),
        result("annular_ising/tables_aa.csv"),
        result("annular_ising/tables_aa.html"),


target("tables_aa")


rule fig_aa_errata_w2:
    """Annular augmentation Fig. 5 diagnostic: scored against the truth at W/2, as the authors' code did (docs/paper-vs-ours.md); figures/annular_ising/."""
    input:
        figure("annular_ising/errata_w2_fig5.png"),


target("fig_aa_errata_w2")
