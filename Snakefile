# DoGS replication workflow: the table of contents.
#   snakemake --cores 2                                   every figure and table, paper scale (the data
#                                                         experiments when their data set is present)
#   snakemake --cores 2 all_with_data                     the same, stopping if a data set is missing
#   snakemake --cores 2 --configfile config/smoke.yaml    the same DAG at tiny scale (CI)
#   snakemake --cores 2 fig_he2a                          one figure group (put targets before --configfile)
# Settings: config/config.yaml (documented), validated against config/schema.yaml.

import glob
import os
import sys

from dogs.experiments import FAMILIES
from dogs.workflow.cost import time_table
from dogs.workflow.guard import check_workflow_config, config_files_in_order
from dogs.workflow.published import KEY_FIGURES, figure_family, publish_families


configfile: "config/config.yaml"


report: "rules/captions/workflow.rst"


# The guard (src/dogs/workflow/guard.py), before any rule is read: every config file read defensively (Snakemake
# parsed the --configfile ones already; docs/configuration.md, "Hostile config files"), the schema, strict numbers, every family's
# cross-key checks, and the estimated memory of one job and time of all jobs against resources.max_memory_gb and
# max_hours, for every family of FAMILIES (src/dogs/experiments/__init__.py); each error names the key and the config
# file that set it. The estimated job time per family is printed.
ESTIMATED_HOURS = check_workflow_config(
    config,
    config_files_in_order(workflow.configfiles, workflow.overwrite_configfiles),
    FAMILIES,
)
if workflow.is_main_process:
    print(time_table(ESTIMATED_HOURS), file=sys.stderr)


include: "rules/common.smk"


# Every family's rules, rules/<family>.smk, in name order: annular_ising, benchmarks, boltzmann, ising10, ising40,
# loose_bounds, mcmc_mle, msrc, paper_vs_ours (the table of every family's claims), scan_order, timing. A new
# family's rules file is included by being there (docs/contributing.md).
for rules_file in sorted(glob.glob(os.path.join(workflow.basedir, "rules", "*.smk"))):
    if os.path.basename(rules_file) != "common.smk":

        include: rules_file


# ---- DoGS core library speed (Gibbs step, DoGS setup on 10^6 variables, Algorithm 2 scaling)
rule benchmarks:
    """DoGS §5.2 footnote 1 and §4.2: speed of the core library (Gibbs step, DoGS setup on 10^6 variables, many chains), marginal accuracy with evidence; results/benchmarks/."""
    input:
        result("benchmarks/summary.md"),
        figure("benchmarks/uai_mar.png"),  # marginal accuracy with evidence: DoGS, systematic scan, pgmpy
        figure("benchmarks/chains.png"),  # many chains: our two kernels, THRML and pgmpy
        result("benchmarks/sampling.md"),  # the sampling call end to end beside its raw kernel and pgmpy
        figure("benchmarks/networks.png"),  # Bayesian networks with evidence: errors and coverage against exact


rule scaling:
    """DoGS §5.2 (our addition): time and memory from 10^4 to 10^8 variables, not part of `all` as it needs most of the memory; figures/benchmarks/scaling.png."""
    input:
        figure("benchmarks/scaling.png"),


# ---- DoGS §5.1 / App. B.1: 10x10 Ising, TV guarantees of uniform, systematic, DoGS, iterated DoGS
rule fig1:
    """DoGS Fig. 1 (§5.1): 10x10 Ising TV guarantees, replicate 0, with the measured marginal error of independent chains; figures/ising10/."""
    input:
        figure("ising10/fig1_guarantees_rep0.png"),


rule fig9:
    """DoGS Fig. 9 (App. B.1): the Fig. 1 guarantees for replicates 1-9; figures/ising10/."""
    input:
        figure("ising10/fig9_guarantees_replicates.png"),


# ---- DoGS §5.4 / App. B.3: 40x40 marginal guarantees (target: top-left variable)
rule fig4:
    """DoGS Fig. 4 (§5.4): 40x40 open grid, marginal guarantees and DoGS sampling frequency by distance to the target; figures/ising40/."""
    input:
        figure("ising40/fig4_open_guarantees.png"),


rule fig5:
    """DoGS Fig. 5 (§5.4): 40x40 torus, guarantees and measured bias of X_1^T (300 chains per T); figures/ising40/."""
    input:
        figure("ising40/fig5_torus_guarantees_bias.png"),


rule fig12:
    """DoGS Fig. 12 (App. B.3): open grid, spatial sampling frequency over successive segments of the DoGS scan; figures/ising40/."""
    input:
        figure("ising40/fig12_open_frequency_maps.png"),


rule fig13:
    """DoGS Fig. 13 (App. B.3): torus, three independent repetitions of the bias measurement; figures/ising40/."""
    input:
        figure("ising40/fig13_torus_bias_repetitions.png"),


rule fig14:
    """DoGS Fig. 14 (App. B.3): torus, bias, DoGS histogram by distance, distance-time profile; figures/ising40/."""
    input:
        figure("ising40/fig14_torus_profile.png"),


rule fig15:
    """DoGS Fig. 15 (App. B.3): torus, spatial sampling frequency over successive segments of the DoGS scan; figures/ising40/."""
    input:
        figure("ising40/fig15_torus_frequency_maps.png"),


# ---- DoGS §5.6: loose influence bounds, C-bar = s * C-hat
rule fig8:
    """DoGS Fig. 8 (§5.6): loose influence bounds, C-bar = s * C-hat; figures/loose_bounds/."""
    input:
        figure("loose_bounds/fig8_loose_bounds.png"),


# ---- DoGS §5.2 / App. B.2: end-to-end wall-clock time on 10^6 (and 9x10^4) variables
rule fig2:
    """DoGS Fig. 2 (§5.2): 10^6-variable Ising, estimate of E[X_1] vs wall-clock time and end-to-end speed-up; figures/timing/."""
    input:
        figure("timing/fig2_L1000.png"),


rule fig10:
    """DoGS Fig. 10 (App. B.2): three more independent trials of Fig. 2 (1000x1000); figures/timing/."""
    input:
        figure("timing/fig10_L1000_trials.png"),


rule fig11:
    """DoGS Fig. 11 (App. B.2): Fig. 2 at 300x300; figures/timing/."""
    input:
        figure("timing/fig11_L300.png"),


# ---- He, De Sa, Mitliagkas & Re (2016), Scan order in Gibbs sampling
rule table_he1:
    """He et al. 2016 Table 1: mixing-time orders, our fitted exponents beside the paper's; results/scan_order/table1_exponents.md."""
    input:
        result("scan_order/table1_exponents.md"),
        result("scan_order/table1_exponents.html"),


rule fig_he2a:
    """He et al. 2016 Fig. 2a: mixing time vs n, random / best / worst systematic scan; figures/scan_order/."""
    input:
        figure("scan_order/fig2a_mixing_time_vs_n.png"),


rule fig_he2b:
    """He et al. 2016 Fig. 2b: two islands, mass on the other island over time; figures/scan_order/."""
    input:
        figure("scan_order/fig2b_two_islands_mass.png"),


rule fig_he2c:
    """He et al. 2016 Fig. 2c: sorted mixing times of every permutation; figures/scan_order/."""
    input:
        figure("scan_order/fig2c_permutations.png"),


# ---- DoGS §5.3: MCMC maximum likelihood (Domke 2015, §6) with uniform-scan and DoGS gradient estimates
rule fig3:
    """DoGS Fig. 3 (§5.3): MCMC maximum likelihood (with Liu & Domke's projection), parameter error vs gradient step and site updates, uniform scan vs DoGS; figures/mcmc_mle/."""
    input:
        figure("mcmc_mle/fig3_parameter_error.png"),


# ---- Fagan, Bhandari & Cunningham (2017), annular augmentation: 9x9 periodic Ising, twelve samplers at equal cost
rule fig_aa3:
    """Annular augmentation Fig. 3 (§3.1): 9x9 Ising heatmaps, c = 0.2, W = 0.1 .. 0.8 (multimodal); figures/annular_ising/."""
    input:
        figure("annular_ising/fig3_heatmaps.png"),


rule fig_aa4:
    """Annular augmentation Fig. 4 (§3.1): heatmaps, c = 0, W = 0.25 .. 5 (bimodal); figures/annular_ising/."""
    input:
        figure("annular_ising/fig4_heatmaps.png"),


rule fig_aa5:
    """Annular augmentation Fig. 5 (§3.1): heatmaps, W = 0.2, c = 0.2 .. 4 (unimodal); figures/annular_ising/."""
    input:
        figure("annular_ising/fig5_heatmaps.png"),


rule tables_aa:
    """Annular augmentation appendix Tables 1-9, ours beside the paper's; results/annular_ising/tables_aa.md (and .csv)."""
    input:
        result("annular_ising/tables_aa.md"),
        result("annular_ising/tables_aa.csv"),
        result("annular_ising/tables_aa.html"),


rule fig_aa_errata_w2:
    """Annular augmentation Fig. 5 diagnostic: scored against the truth at W/2, as the authors' code did (docs/paper-vs-ours.md); figures/annular_ising/."""
    input:
        figure("annular_ising/errata_w2_fig5.png"),


# ---- DoGS §5.5: targeted MSRC v1 segmentation with the Markov field aspect model (images from the data directory)
rule fig6:
    """DoGS Fig. 6 (§5.5, needs MSRC v1): a test image with the centre region outlined and its segmentations; figures/msrc/."""
    input:
        figure("msrc/fig6_segmentation.png"),


rule fig7:
    """DoGS Fig. 7 (§5.5, needs MSRC v1): average Hamming error of PLSA, systematic scan and DoGS over the splits; figures/msrc/."""
    input:
        figure("msrc/fig7_hamming_error.png"),


rule fig16:
    """DoGS Fig. 16 (App. B.4, needs MSRC v1): two more independent repetitions of Fig. 6; figures/msrc/."""
    input:
        figure("msrc/fig16_segmentation_repetitions.png"),


# ---- Annular augmentation §3.2: Boltzmann-machine posteriors (heart-disease data from the data directory; synthetic)
rule fig_aa6:
    """Annular augmentation Fig. 6 (§3.2, needs the heart data): error of the estimated log partition-function ratios; figures/boltzmann/."""
    input:
        figure("boltzmann/fig6_log_ratio_errors.png"),


rule fig_aa7:
    """Annular augmentation Fig. 7 (§3.2, needs the heart data): posterior of W, exact ratio against CMH and AAS + RB; figures/boltzmann/."""
    input:
        figure("boltzmann/fig7_posterior.png"),


rule fig_aa8:
    """Annular augmentation Fig. 8 (§3.2): fraction of posterior samples within 20% of the true weights, d = 25 and 50; figures/boltzmann/."""
    input:
        figure("boltzmann/fig8_fraction_within.png"),


rule fig_aa_errata_b1_b2:
    """Annular augmentation Figs. 6-7 diagnostics of the authors' code (needs the heart data; docs/paper-vs-ours.md); figures/boltzmann/."""
    input:
        figure("boltzmann/errata_b1_b2.png"),


# ---- Paper-vs-ours table
rule table_paper_vs_ours:
    """All four papers: the paper-vs-ours table, one row per claim with its verdict; results/paper_vs_ours/."""
    input:
        result("paper_vs_ours/paper_vs_ours.md"),
        result("paper_vs_ours/paper_vs_ours.html"),


# The families docs_results publishes: --config publish_families=[name,...], else every family with claims rows.
PUBLISH_FAMILIES = publish_families(config.get("publish_families"))


rule docs_results:
    """Publishes each family's rows of the paper-vs-ours table and its key figures from a paper-scale run in docs/results/ (to commit; `--config publish_families=[name]` republishes only those), each family stamped with its run's git revision, date and machine, and regenerates the README's verdict counts from the table."""
    # No output: a refused publish (a dirty checkout, a run of another commit) leaves the published files as they were,
    # which Snakemake would delete as a failed job's outputs; and the rule runs whenever it is asked for.
    input:
        measured=[result(f"claims/{family}.json") for family in PUBLISH_FAMILIES],
        figures=[figure(path) for path, _, _ in KEY_FIGURES if figure_family(path) in PUBLISH_FAMILIES],
    log:
        # beside this repository's own results, not in the published run's folders (which may be read-only)
        "results/logs/paper_vs_ours/publish.log",
    conda:
        "envs/environment.yaml"  # CONDA_ENV is relative to rules/
    params:
        python=PYTHON,
        # the folders the inputs lie in, derived from the inputs themselves (a family may have no key figure)
        results=lambda wildcards, input: os.path.dirname(os.path.dirname(input.measured[0])),
        figures=lambda wildcards, input: os.path.dirname(os.path.dirname(input.figures[0])) if input.figures else FIGURES,
        families=" ".join(PUBLISH_FAMILIES),
        # refused from a dirty checkout or a run of another commit unless told (--config publish_allow_dirty=True ...)
        told=" ".join(
            flag
            for key, flag in (
                ("publish_allow_dirty", "--allow-dirty"),
                ("publish_allow_other_commit", "--allow-other-commit"),
            )
            if config.get(key)
        ),
    shell:
        "{params.python} -m dogs.workflow.published publish --results {params.results:q} --figures {params.figures:q} "
        "--families {params.families} --out docs/results --readme README.md {params.told} > {log} 2>&1"


rule all_without_data:
    """Every figure and table of the four papers that needs no data set from the data directory."""
    input:
        rules.benchmarks.input,
        rules.fig1.input,
        rules.fig9.input,
        rules.fig4.input,
        rules.fig5.input,
        rules.fig12.input,
        rules.fig13.input,
        rules.fig14.input,
        rules.fig15.input,
        rules.fig8.input,
        rules.fig2.input,
        rules.fig3.input,
        rules.fig10.input,
        rules.fig11.input,
        rules.fig_aa3.input,
        rules.fig_aa4.input,
        rules.fig_aa5.input,
        rules.tables_aa.input,
        rules.fig_aa_errata_w2.input,
        rules.table_he1.input,
        rules.fig_he2a.input,
        rules.fig_he2b.input,
        rules.fig_he2c.input,
        rules.table_paper_vs_ours.input,


rule all_with_data:
    """Every figure and table of the four papers (needs both data sets: planning stops if one is missing or corrupt)."""
    input:
        rules.all_without_data.input,
        # experiments on the data sets of the data directory (see docs/data.md)
        rules.fig6.input,
        rules.fig7.input,
        rules.fig16.input,
        rules.fig_aa6.input,
        rules.fig_aa7.input,
        rules.fig_aa8.input,
        rules.fig_aa_errata_b1_b2.input,


rule all:
    """Every figure and table of the four papers whose data set is present (all_with_data when both are); says how to add the others."""
    default_target: True
    input:
        rules.all_without_data.input,
        if_data_present(
            "msrc_v1", rules.fig6.input, rules.fig7.input, rules.fig16.input
        ),
        if_data_present(
            "heart_disease",
            rules.fig_aa6.input,
            rules.fig_aa7.input,
            rules.fig_aa8.input,
            rules.fig_aa_errata_b1_b2.input,
        ),


onsuccess:
    announce_absent_data()
