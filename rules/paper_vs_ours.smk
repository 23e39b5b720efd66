# The paper-vs-ours table, generated from the claims files of config/claims/ (one per paper, read in name order)
# and every family's measured claims (CLAIM_FILES, read when the jobs are planned, so every rules file has appended
# its own whatever the order of the includes); the families skipped for an absent data set (NEEDS_DATA,
# rules/common.smk) are passed as settings. Publishing in docs/results/ is `docs_results`, below.
import glob

from dogs.workflow.published import KEY_FIGURES, figure_family, publish_families


use rule experiment_step as paper_vs_ours_summarise with:
    """All four papers: the paper-vs-ours table from config/claims/ and every family's measured claims (the target is `table_paper_vs_ours`)."""
    input:
        claims=sorted(glob.glob("config/claims/*.yaml")),
        measured=lambda wildcards: CLAIM_FILES,
    output:
        md=result("paper_vs_ours/paper_vs_ours.md"),
        html=report(
            result("paper_vs_ours/paper_vs_ours.html"),
            caption=caption(
                "The paper-vs-ours table: one row per published claim of the four papers, with the paper's value, the quantity we compare, the criterion and the wording of our measurement (config/claims/), our measured value and the verdict."
            ),
            category="0. Paper vs ours, all four papers",
            subcategory="the table",
            labels={
                "paper": "all four papers",
                "section": "all",
                "figure": "paper-vs-ours table",
                "panels": "one row per claim, coloured by verdict",
            },
        ),
        csv=result("paper_vs_ours/paper_vs_ours.csv"),
    log:
        result("logs/paper_vs_ours/summarise.log"),
    params:
        **step("paper_vs_ours", "summarise", given={"needs_data": NEEDS_DATA}),


# ---- Named targets, each declared with `target` (rules/common.smk)
rule table_paper_vs_ours:
    """All four papers: the paper-vs-ours table, one row per claim with its verdict; results/paper_vs_ours/."""
    input:
        result("paper_vs_ours/paper_vs_ours.md"),
        result("paper_vs_ours/paper_vs_ours.html"),


target("table_paper_vs_ours")


# The families docs_results publishes: --config publish_families=[name,...], else every family with claims rows.
PUBLISH_FAMILIES = publish_families(config.get("publish_families"))


rule docs_results:
    """Publishes each family's rows of the paper-vs-ours table and its key figures from a paper-scale run in docs/results/ (to commit; `--config publish_families=[name]` republishes only those), each family stamped with its run's git revision, date and machine, and regenerates the README's verdict counts from the table."""

    # No output: a refused publish (a dirty checkout, a run of another commit) leaves the published files as they were,
    # which Snakemake would delete as a failed job's outputs; and the rule runs whenever it is asked for.
    input:
        measured=[result(f"claims/{family}.json") for family in PUBLISH_FAMILIES],
        figures=[
            figure(path)
            for path, _, _ in KEY_FIGURES
            if figure_family(path) in PUBLISH_FAMILIES
        ],
    log:
        # beside this repository's own results, not in the published run's folders (which may be read-only)
        "results/logs/paper_vs_ours/publish.log",
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        # the folders the inputs lie in, derived from the inputs themselves (a family may have no key figure)
        results=lambda wildcards, input: os.path.dirname(
            os.path.dirname(input.measured[0])
        ),
        figures=lambda wildcards, input: (
            os.path.dirname(os.path.dirname(input.figures[0]))
            if input.figures
            else FIGURES
        ),
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


target("docs_results", in_all=False)
