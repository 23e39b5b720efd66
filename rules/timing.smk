# DoGS §5.2 and App. B.2: end-to-end wall-clock time of the systematic scan vs DoGS (E4).
# run (one trial per job: model, timed DoGS setup, timed sampling of both scans)
#   -> summarise (per grid side: summary.json, speed-up table) -> claims; the figure rules only plot.
# The main grid (timing.main_side, paper 1000) has timing.main_trials trials: trial 0 is Fig. 2, the
# others Fig. 10; the small grid (timing.small_side, paper 300) has one trial, Fig. 11. Figure names
# are fixed by role (the Snakefile's targets); result folders carry the actual side.
# The interpreter is passed as params.python (= PYTHON of common.smk) so that shell commands read no globals (lint).

TIMING_MAIN = config["timing"]["main_side"]
TIMING_SMALL = config["timing"]["small_side"]


# Trial numbers per grid side: timing.main_trials on the main grid (trial 0 = Fig. 2), one on the small
# grid (the main grid's entry wins if both sides are equal).
TIMING_TRIALS = {TIMING_SMALL: [0], TIMING_MAIN: list(range(config["timing"]["main_trials"]))}


rule timing_run:
    output:
        run=result("timing/L{side}/trial{trial}/run.json"),
        trace=result("timing/L{side}/trial{trial}/trace.csv"),
    wildcard_constraints:
        side=r"\d+",
        trial=r"\d+",
    params:
        python=PYTHON,
        settings=settings("timing"),
        seed=config["root_seed"],
    # A timed rule takes every core so that Snakemake never runs another of its jobs beside it
    # (the job itself is single-threaded); other load on the machine is recorded, not prevented.
    threads: workflow.cores
    log:
        result("logs/timing/L{side}/trial{trial}.log"),
    benchmark:
        result("benchmarks/snakemake/timing_run_L{side}_trial{trial}.tsv")
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.timing run --settings {params.settings:q} --seed {params.seed}"
        " --side {wildcards.side} --trial {wildcards.trial} --run {output.run} --trace {output.trace} > {log} 2>&1"


rule timing_summarise:
    input:
        runs=lambda w: [result(f"timing/L{w.side}/trial{k}/run.json") for k in TIMING_TRIALS[int(w.side)]],
        traces=lambda w: [result(f"timing/L{w.side}/trial{k}/trace.csv") for k in TIMING_TRIALS[int(w.side)]],
    output:
        summary=result("timing/L{side}/summary.json"),
        speedup=result("timing/L{side}/speedup.csv"),
    wildcard_constraints:
        side=r"\d+",
    params:
        python=PYTHON,
        settings=settings("timing"),
        seed=config["root_seed"],
    log:
        result("logs/timing/L{side}/summarise.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.timing summarise --settings {params.settings:q} --seed {params.seed}"
        " --side {wildcards.side} --runs {input.runs} --traces {input.traces}"
        " --summary {output.summary} --speedup {output.speedup} > {log} 2>&1"


rule timing_claims:
    input:
        main=result(f"timing/L{TIMING_MAIN}/summary.json"),
        small=result(f"timing/L{TIMING_SMALL}/summary.json"),
    output:
        claims=result("claims/timing.json"),
    params:
        python=PYTHON,
        settings=settings("timing"),
        seed=config["root_seed"],
        smoke="--smoke" if config["smoke"] else "",
    log:
        result("logs/timing/claims.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.timing claims --settings {params.settings:q} --seed {params.seed}"
        " --main-summary {input.main} --small-summary {input.small} --claims {output.claims} {params.smoke} > {log} 2>&1"


rule timing_fig2:
    input:
        summary=result(f"timing/L{TIMING_MAIN}/summary.json"),
        speedup=result(f"timing/L{TIMING_MAIN}/speedup.csv"),
        trace=result(f"timing/L{TIMING_MAIN}/trial0/trace.csv"),
    output:
        figure("timing/fig2_L1000.png"),
    params:
        python=PYTHON,
        settings=settings("timing"),
        seed=config["root_seed"],
    log:
        result("logs/timing/fig2.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.timing plot --settings {params.settings:q} --seed {params.seed} --kind main"
        " --summary {input.summary} --speedup {input.speedup} --traces {input.trace} --out {output} > {log} 2>&1"


rule timing_fig10:
    input:
        summary=result(f"timing/L{TIMING_MAIN}/summary.json"),
        speedup=result(f"timing/L{TIMING_MAIN}/speedup.csv"),
        traces=[result(f"timing/L{TIMING_MAIN}/trial{k}/trace.csv") for k in TIMING_TRIALS[TIMING_MAIN][1:]],
    output:
        figure("timing/fig10_L1000_trials.png"),
    params:
        python=PYTHON,
        settings=settings("timing"),
        seed=config["root_seed"],
    log:
        result("logs/timing/fig10.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.timing plot --settings {params.settings:q} --seed {params.seed} --kind trials"
        " --summary {input.summary} --speedup {input.speedup} --traces {input.traces} --out {output} > {log} 2>&1"


rule timing_fig11:
    input:
        summary=result(f"timing/L{TIMING_SMALL}/summary.json"),
        speedup=result(f"timing/L{TIMING_SMALL}/speedup.csv"),
        trace=result(f"timing/L{TIMING_SMALL}/trial0/trace.csv"),
    output:
        figure("timing/fig11_L300.png"),
    params:
        python=PYTHON,
        settings=settings("timing"),
        seed=config["root_seed"],
    log:
        result("logs/timing/fig11.log"),
    conda:
        CONDA_ENV
    shell:
        "{params.python} -m dogs.experiments.timing plot --settings {params.settings:q} --seed {params.seed} --kind small"
        " --summary {input.summary} --speedup {input.speedup} --traces {input.trace} --out {output} > {log} 2>&1"


CLAIM_FILES.append(result("claims/timing.json"))
