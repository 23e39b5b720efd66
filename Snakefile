# DoGS replication workflow: the table of contents.
#   snakemake --cores 2                                   every figure and table, paper scale (the data
#                                                         experiments when their data set is present)
#   snakemake --cores 2 all_with_data                     the same, stopping if a data set is missing
#   snakemake --cores 2 --configfile config/smoke.yaml    the same DAG at tiny scale (CI)
#   snakemake --cores 2 fig_he2a                          one figure group (put targets before --configfile)
# Settings: config/config.yaml (shared) and config/families/<family>.yaml (each family's own), validated against
# config/schema.yaml with each family's schema (docs/configuration.md).
# Contents: no list of families or figures is kept here. Every rules/<family>.smk is included (below); each defines its
# rules and its named targets, declaring every target with `target(...)` (rules/common.smk); the aggregate targets
# at the end are made of the declared ones. `snakemake --list-target-rules` lists them, and the figure index
# (docs/generated/figure-index.md, built from the target rules' docstrings) says which paper figure each makes.

import glob
import os
import sys

from dogs.experiments import FAMILIES
from dogs.workflow.cost import time_table
from dogs.workflow.families import with_family_defaults
from dogs.workflow.guard import check_workflow_config, config_files_in_order


configfile: "config/config.yaml"


# Every family's settings come from its own file, config/families/<family>.yaml (its smoke and calibration overrides
# when the config says smoke: true, calibration: true), under the config files and --config of the run
# (src/dogs/workflow/families.py).
config.update(with_family_defaults(config))


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


# The experiment step rule. Every rules file runs the steps of its family's module (src/dogs/workflow/shell.py) as
#     use rule experiment_step as <family>_<step> with:
# stating the step's inputs, outputs, log, benchmark, threads and resources, and
#     params: **step("<family>", "<step>")
# (rules/common.smk); the command, `python -m dogs.experiments.<family> <step> {params.args} > {log} 2>&1`, the
# interpreter and the conda environment come from here. No file matches its own output: it never runs itself.
rule experiment_step:
    output:
        "{experiment_step,(?!)}",
    log:
        "{experiment_step}.log",
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
    shell:
        "{params.python} -m dogs.experiments.{params.family} {params.step} {params.args} > {log} 2>&1"


# Every family's rules, rules/<family>.smk, in name order (a new family's rules file is included by being there).
for rules_file in sorted(glob.glob(os.path.join(workflow.basedir, "rules", "*.smk"))):
    if os.path.basename(rules_file) != "common.smk":

        include: rules_file


# ---- The aggregate targets: made of every target the rules files declared with `target` (in `all` unless declared
# with in_all=False), by the data set each needs.
rule all_without_data:
    """Every figure and table of the four papers that needs no data set from the data directory."""
    input:
        target_inputs(aggregated(needs=None)),


rule all_with_data:
    """Every figure and table of the four papers (needs both data sets: planning stops if one is missing or corrupt)."""
    input:
        rules.all_without_data.input,
        # experiments on the data sets of the data directory (see docs/data.md)
        target_inputs(aggregated(needs=data_sets())),


rule all:
    """Every figure and table of the four papers whose data set is present (all_with_data when both are); says how to add the others."""
    default_target: True
    input:
        rules.all_without_data.input,
        *[
            if_data_present(name, target_inputs(aggregated(needs=[name])))
            for name in data_sets()
        ],


onsuccess:
    announce_absent_data()
