# DoGS replication workflow: the table of contents.
#   snakemake --cores 2                                   every figure and table, paper scale
#   snakemake --cores 2 --configfile config/smoke.yaml    the same DAG at tiny scale (CI)
#   snakemake --cores 2 fig_he2a                          one figure group
# Settings: config/config.yaml (documented), validated against config/schema.yaml.

from snakemake.utils import validate


configfile: "config/config.yaml"


validate(config, "config/schema.yaml")


include: "rules/common.smk"
include: "rules/benchmarks.smk"
include: "rules/scan_order.smk"
include: "rules/tables.smk"


# ---- DoGS core library speed (Gibbs step, DoGS setup on 10^6 variables, Algorithm 2 scaling)
rule benchmarks:
    input:
        result("benchmarks/summary.md"),


# ---- He, De Sa, Mitliagkas & Re (2016), Scan order in Gibbs sampling
rule table_he1:  # Table 1: mixing-time orders, our fitted exponents beside the paper's
    input:
        result("scan_order/table1_exponents.md"),


rule fig_he2a:  # Fig. 2a: mixing time vs n, random / best / worst systematic scan
    input:
        figure("scan_order/fig2a_mixing_time_vs_n.png"),


rule fig_he2b:  # Fig. 2b: two islands, mass on the other island over time
    input:
        figure("scan_order/fig2b_two_islands_mass.png"),


rule fig_he2c:  # Fig. 2c: sorted mixing times of every permutation
    input:
        figure("scan_order/fig2c_permutations.png"),


# ---- Paper-vs-ours table
rule table_paper_vs_ours:
    input:
        result("tables/paper_vs_ours.md"),


rule all:
    default_target: True
    input:
        rules.benchmarks.input,
        rules.table_he1.input,
        rules.fig_he2a.input,
        rules.fig_he2b.input,
        rules.fig_he2c.input,
        rules.table_paper_vs_ours.input,
