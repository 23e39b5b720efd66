# The paper-vs-ours table, generated from the claims files of config/claims/ (one per paper, read in name order)
# and every family's measured claims (CLAIM_FILES, read when the jobs are planned, so every rules file has appended
# its own whatever the order of the includes); the families skipped for an absent data set (NEEDS_DATA,
# rules/common.smk) are passed as settings. Publishing in docs/results/ is the Snakefile's `docs_results`.
import glob


rule paper_vs_ours_summarise:
    """All four papers: the paper-vs-ours table from config/claims/ and every family's measured claims (the target is `table_paper_vs_ours`)."""
    input:
        claims=sorted(glob.glob("config/claims/*.yaml")),
        measured=lambda wildcards: CLAIM_FILES,
    output:
        md=result("paper_vs_ours/paper_vs_ours.md"),
        html=report(
            result("paper_vs_ours/paper_vs_ours.html"),
            caption="captions/paper_vs_ours.rst",
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
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args(given={"needs_data": NEEDS_DATA}),
    shell:
        "{params.python} -m dogs.experiments.paper_vs_ours summarise {params.args} > {log} 2>&1"

