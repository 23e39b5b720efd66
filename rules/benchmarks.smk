# Speed of the core library, measured on this machine beside the paper's figures
# (DoGS §5.2: 12.65 µs per Gibbs step; 15 s of DoGS setup on 10^6 variables).
# Timing numbers are machine-dependent by nature: they are reported, never asserted in tests.
# Each timing rule claims every core, so Snakemake never runs another job beside it, and runs before the rest
# (CLOCKED, rules/common.smk).


rule benchmark_gibbs:
    """DoGS §5.2 (speed benchmarks): time of one single-site Gibbs update on the 10^6-variable Ising grid (§5.2 footnote 1), beside pgmpy's sampler."""
    output:
        result("benchmarks/gibbs.json"),
    log:
        result("logs/benchmarks/gibbs.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_gibbs.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        side=config["benchmarks"]["gibbs_side"],
        pgmpy_side=config["benchmarks"]["pgmpy_side"],
        repeats=config["benchmarks"]["repeats"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.gibbs --out {output} --side {params.side}"
        " --pgmpy-side {params.pgmpy_side} --repeats {params.repeats} --seed {params.seed} > {log} 2>&1"


rule benchmark_dogs:
    """DoGS §5.2 (speed benchmarks): time of the DoGS setup on 10^6 variables (bound, epsilon, length doubling; §5.2, §4.2)."""
    output:
        result("benchmarks/dogs.json"),
    log:
        result("logs/benchmarks/dogs.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_dogs.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        side=config["benchmarks"]["dogs_side"],
        length=2 * config["benchmarks"]["dogs_side"] ** 2,  # two sweeps, as in DoGS §5.2 (2e6 on 1000x1000)
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.dogs --out {output} --side {params.side}"
        " --length {params.length} --seed {params.seed} > {log} 2>&1"


rule benchmark_binary_samplers:
    """DoGS §5.2 (speed benchmarks): speed of the twelve binary samplers of annular augmentation at the paper's equal-cost budget."""
    output:
        result("benchmarks/binary_samplers.json"),
    log:
        result("logs/benchmarks/binary_samplers.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_binary_samplers.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        hmc_samples=config["benchmarks"]["binary_hmc_samples"],
        bm_size=config["benchmarks"]["binary_bm_size"],
        repeats=config["benchmarks"]["repeats"],
        settings=config["benchmarks"]["heatmap_settings"],
        runs=config["benchmarks"]["heatmap_runs"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.binary_samplers --out {output} --hmc-samples {params.hmc_samples}"
        " --bm-size {params.bm_size} --repeats {params.repeats} --heatmap-settings {params.settings}"
        " --heatmap-runs {params.runs} --seed {params.seed} > {log} 2>&1"


rule benchmark_scaling:
    """DoGS §5.2 (speed benchmarks), a compute step: DoGS and Gibbs from 10^4 to 10^8 variables: time and peak memory per stage."""
    output:
        result("benchmarks/scaling.json"),
    log:
        result("logs/benchmarks/scaling.log"),
    benchmark:
        result("benchmarks/snakemake/benchmark_scaling.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    params:
        python=PYTHON,
        sides=" ".join(str(s) for s in config["benchmarks"]["scaling_sides"]),
        repeats=config["benchmarks"]["scaling_repeats"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.scaling measure --out {output} --sides {params.sides}"
        " --repeats {params.repeats} --seed {params.seed} > {log} 2>&1"


rule plot_benchmark_scaling:
    """DoGS §5.2 (speed benchmarks): draws the scaling figure, time and memory from 10^4 to 10^8 variables (the target is `scaling`)."""
    input:
        result("benchmarks/scaling.json"),
    output:
        report(
            figure("benchmarks/scaling.png"),
            caption=caption(
                "Not a figure of the papers: how DoGS and Gibbs scale beyond DoGS §5.2's 10^6 variables. Left, the seconds of each stage (best of the repeats) on square open Ising grids of 10^4 to 10^8 variables, against a line proportional to p: building the model, the Theorem 11 influence bound, a systematic scan of 2p steps, its Dobrushin variation, length doubling, Algorithm 2 on a one-sweep input, and a Gibbs sweep. Right, each stage's peak resident memory, with the number of variables this machine's memory holds. Made by ``snakemake scaling`` (not part of ``all``)."
            ),
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.2 speed benchmarks",
            labels={
                "paper": "DoGS",
                "section": "§5.2 (ours)",
                "figure": "scaling",
                "panels": "time and memory, 10^4 to 10^8 variables",
            },
        ),
    log:
        result("logs/benchmarks/scaling_plot.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
    shell:
        "{params.python} -m dogs.benchmarks.scaling plot --report {input} --figure {output} > {log} 2>&1"


rule summarise_benchmarks:
    """DoGS §5.2 (speed benchmarks): the benchmarks' summary beside the papers' numbers and their measured claims (the target is `benchmarks`)."""
    input:
        gibbs=result("benchmarks/gibbs.json"),
        dogs=result("benchmarks/dogs.json"),
        binary=result("benchmarks/binary_samplers.json"),
    output:
        md=result("benchmarks/summary.md"),
        claims=result("claims/benchmarks.json"),
    log:
        result("logs/benchmarks/summary.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        smoke="--smoke" if config["smoke"] else "",
    shell:
        "{params.python} -m dogs.benchmarks.summary --gibbs {input.gibbs} --dogs {input.dogs} --binary {input.binary}"
        " --md {output.md} --claims {output.claims} {params.smoke} > {log} 2>&1"


CLAIM_FILES.append(result("claims/benchmarks.json"))


# ---- Marginal accuracy at a fixed time budget on UAI'08-style grids with evidence (DoGS, systematic, pgmpy)
rule benchmarks_uai_mar:
    """Beyond the papers: marginal accuracy with evidence at a fixed time budget (DoGS, systematic scan, pgmpy), UAI MAR style."""
    output:
        json=result("benchmarks/uai_mar.json"),
        png=report(
            figure("benchmarks/uai_mar.png"),
            caption=caption(
                "Mean Hellinger error (left) and largest marginal error (right) of P(X_i = +1) against exact junction-tree marginals, on random ±1 grids conditioned on observed spins, after a fixed wall-time budget per sampler: the systematic scan, DoGS (Algorithm 2 on two systematic sweeps, all marginals targeted) and pgmpy's GibbsSampling (smallest grids only). Timing-dependent: numbers vary between machines and runs."
            ),
            category="4. Library benchmarks",
            subcategory="marginal accuracy with evidence",
            labels={
                "paper": "beyond the papers",
                "section": "UAI'08-style grids",
                "figure": "marginal accuracy",
                "panels": "mean Hellinger and max marginal error per grid",
            },
        ),
    log:
        result("logs/benchmarks/uai_mar.log"),
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    params:
        python=PYTHON,
        sides=" ".join(str(s) for s in config["benchmarks"]["uai_mar_sides"]),
        seconds=config["benchmarks"]["uai_mar_seconds"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.marginal_accuracy --out {output.json} --figure {output.png} --sides {params.sides}"
        " --seconds {params.seconds} --seed {params.seed} > {log} 2>&1"


# Many chains side by side (updates per ns against chains): our one-chain and vector Gibbs kernels; THRML's CPU block
# Gibbs, ferrotherm and peapods when the optional `peers` extra is installed (one line in the log says so otherwise);
# pgmpy on a small grid.
# The smoke setting is tiny: it checks the pipeline, not the speed.
rule benchmarks_chains:
    """Beyond the papers: many chains side by side, updates per ns against chains (our one-chain and vector Gibbs kernels, THRML, ferrotherm, peapods, pgmpy)."""
    output:
        json=result("benchmarks/chains.json"),
        table=result("benchmarks/chains.md"),
        figure=report(
            figure("benchmarks/chains.png"),
            caption=caption(
                "Not a figure of the papers: Site updates per ns (wall clock) against the number of independent chains on the open grid of the chains benchmark (300 x 300 at full scale, theta ~ U[0, 0.25], zero field, 100 systematic sweeps per chain, best of 3): our one-chain Gibbs kernel (numba threads over chains), our chain-vectorised kernel (a site of 8 chains per vector instruction), and, when the optional ``peers`` extra is installed, THRML's CPU block Gibbs (two checkerboard blocks, vmap over chains), ferrotherm's chromatic block Gibbs and peapods's Gibbs sweeps (Rust, on its periodic lattice); pgmpy's GibbsSampling on a small grid. The table beside it is ``benchmarks/chains.md``."
            ),
            category="4. Library benchmarks",
            subcategory="many chains",
            labels={
                "paper": "beyond the papers",
                "section": "open grid, zero field",
                "figure": "many-chain throughput",
                "panels": "updates per ns against chains, ours beside THRML and pgmpy",
            },
        ),
    log:
        result("logs/benchmarks/chains.log"),
    benchmark:
        result("benchmarks/snakemake/benchmarks_chains.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        side=config["benchmarks"]["chains_side"],
        sweeps=config["benchmarks"]["chains_sweeps"],
        chains=" ".join(str(c) for c in config["benchmarks"]["chains_counts"]),
        # the one-chain kernel and THRML at the counts up to 64 (beyond, they only take longer at the same rate)
        few=" ".join(str(c) for c in config["benchmarks"]["chains_counts"] if c <= 64),
        repeats=config["benchmarks"]["repeats"],
        pgmpy_side=config["benchmarks"]["pgmpy_side"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.chains --out {output.json} --table {output.table} --figure {output.figure}"
        " --side {params.side} --sweeps {params.sweeps} --chains {params.chains} --chain-kernel-chains {params.few}"
        " --thrml-chains {params.few} --repeats {params.repeats} --pgmpy-side {params.pgmpy_side}"
        " --pgmpy-sweeps {params.sweeps} --threads {threads} --seed {params.seed} > {log} 2>&1"


# The sampling call end to end (dogs.sample: starts, kernel, convergence check, InferenceData) beside its raw kernel
# on the same work, on grids of 16 to 10^6 variables at 1 to 64 chains, and pgmpy's GibbsSampling on the 4x4 grid.
rule benchmarks_sampling:
    """Beyond the papers: the sampling call end to end beside its raw kernel (16 to 10^6 variables, 1 to 64 chains) and pgmpy; results/benchmarks/sampling.md."""
    output:
        json=result("benchmarks/sampling.json"),
        table=result("benchmarks/sampling.md"),
    log:
        result("logs/benchmarks/sampling.log"),
    benchmark:
        result("benchmarks/snakemake/benchmarks_sampling.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        sides=" ".join(str(s) for s in config["benchmarks"]["sampling_sides"]),
        draws=" ".join(str(d) for d in config["benchmarks"]["sampling_draws"]),
        chains=" ".join(str(c) for c in config["benchmarks"]["sampling_chains"]),
        repeats=config["benchmarks"]["repeats"],
        pgmpy_side=config["benchmarks"]["pgmpy_side"],
        pgmpy_sweeps=config["benchmarks"]["chains_sweeps"],
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.sampling_call --out {output.json} --table {output.table} --sides {params.sides}"
        " --draws {params.draws} --chains {params.chains} --repeats {params.repeats} --pgmpy-side {params.pgmpy_side}"
        " --pgmpy-sweeps {params.pgmpy_sweeps} --threads {threads} --seed {params.seed} > {log} 2>&1"


# Bayesian networks from pgmpy's bundle with evidence: DoGS, the systematic scan, elimination blocks and pgmpy's
# GibbsSampling at a fixed time budget, scored against exact posterior marginals, with the coverage of our reported
# intervals.
# The scoreboard's settings, shared by its run and its reruns under other evidence.
NETWORKS_SETTINGS = (
    f"--networks {' '.join(config['benchmarks']['networks'])}"
    f" --evidence {config['benchmarks']['networks_evidence']}"
    f" --seconds {config['benchmarks']['networks_seconds']}"
    f" --chains {config['benchmarks']['networks_chains']}"
    f" --max-table-entries {config['benchmarks']['networks_table_entries']}"
)


rule benchmarks_networks:
    """Beyond the papers: the bundled Bayesian networks with evidence, marginal errors and interval coverage of DoGS, the systematic scan, blocked Gibbs by elimination and pgmpy at a fixed time budget."""
    output:
        json=result("benchmarks/networks.json"),
        table=result("benchmarks/networks.md"),
        figure=report(
            figure("benchmarks/networks.png"),
            caption=caption(
                "Mean (bars) and largest (ticks) absolute error of every posterior marginal against the exact junction-tree posterior, on the Bayesian networks pgmpy bundles with a few observed variables each, after a fixed wall-time budget per sampler (setup included): DoGS (Algorithm 2 on two systematic sweeps, every unobserved marginal targeted), the systematic scan, blocked Gibbs by elimination (all three through ``dogs.sample``) and pgmpy's GibbsSampling. The percentages above each network are the coverages of our three samplers, top to bottom: the share of marginals whose exact answer lies within 3 standard errors plus the certified bias (a state never drawn: within its reported bound). Timing-dependent: numbers vary between machines and runs."
            ),
            category="4. Library benchmarks",
            subcategory="Bayesian networks",
            labels={
                "paper": "beyond the papers",
                "section": "pgmpy's bundled networks",
                "figure": "networks scoreboard",
                "panels": "mean and largest marginal error per network and sampler",
            },
        ),
    log:
        result("logs/benchmarks/networks.log"),
    benchmark:
        result("benchmarks/snakemake/benchmarks_networks.tsv")
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        settings=NETWORKS_SETTINGS,
        seed=config["root_seed"],
    shell:
        "{params.python} -m dogs.benchmarks.networks --out {output.json} --table {output.table}"
        " --figure {output.figure} {params.settings} --seed {params.seed} > {log} 2>&1"


# The blocked sampler of the scoreboard again under other evidence, one root seed per run (no coverage verdict on
# one draw of the evidence), then one table beside the scoreboard's own seed.
rule benchmarks_networks_evidence:
    """Beyond the papers: the networks scoreboard's blocked sampler (elimination blocks) under the evidence another root seed chooses, coverage of its intervals against exact posteriors."""
    output:
        json=result("benchmarks/networks_evidence/seed{seed}.json"),
        table=result("benchmarks/networks_evidence/seed{seed}.md"),
        figure=result("benchmarks/networks_evidence/seed{seed}.png"),  # not a report figure: the table is the result
    log:
        result("logs/benchmarks/networks_evidence/seed{seed}.log"),
    benchmark:
        result("benchmarks/snakemake/benchmarks_networks_evidence_{seed}.tsv")
    wildcard_constraints:
        seed=r"\d+",
    priority: CLOCKED
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        settings=NETWORKS_SETTINGS,
    shell:
        "{params.python} -m dogs.benchmarks.networks --out {output.json} --table {output.table}"
        " --figure {output.figure} {params.settings} --samplers blocked --seed {wildcards.seed} > {log} 2>&1"


rule benchmarks_networks_evidence_summary:
    """Beyond the papers: the blocked sampler's coverage per network under the scoreboard's evidence and every other seed's, in one table."""
    input:
        scoreboard=result("benchmarks/networks.json"),
        others=expand(
            result("benchmarks/networks_evidence/seed{seed}.json"),
            seed=config["benchmarks"]["networks_evidence_seeds"],
        ),
    output:
        result("benchmarks/networks_evidence.md"),
    log:
        result("logs/benchmarks/networks_evidence.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
    shell:
        "{params.python} -m dogs.benchmarks.networks_evidence --table {output} {input.scoreboard} {input.others}"
        " > {log} 2>&1"


# The reported standard errors against the spread of independent runs of the blocked sampler, per case.
rule benchmarks_standard_errors:
    """Beyond the papers: the standard errors of dogs.marginals (ArviZ's mcse, the chains' means, the larger reported) against the spread of independent runs of the networks scoreboard's blocked sampler."""
    output:
        json=result("benchmarks/standard_errors.json"),
        table=result("benchmarks/standard_errors.md"),
    log:
        result("logs/benchmarks/standard_errors.log"),
    benchmark:
        result("benchmarks/snakemake/benchmarks_standard_errors.tsv")
    conda:
        CONDA_ENV
    threads: ALL_CORES
    resources:
        mem_mb=memory_mb("benchmarks"),
    params:
        python=PYTHON,
        cases=" ".join(config["benchmarks"]["standard_errors_cases"]),
        runs=config["benchmarks"]["standard_errors_runs"],
        evidence=config["benchmarks"]["networks_evidence"],
        chains=config["benchmarks"]["networks_chains"],
        entries=config["benchmarks"]["networks_table_entries"],
    shell:
        "{params.python} -m dogs.benchmarks.standard_errors --out {output.json} --table {output.table}"
        " --cases {params.cases} --runs {params.runs} --evidence {params.evidence} --chains {params.chains}"
        " --max-table-entries {params.entries} > {log} 2>&1"


# ---- Named targets, each declared with `target` (rules/common.smk)
rule benchmarks:
    """DoGS §5.2 footnote 1 and §4.2: speed of the core library (Gibbs step, DoGS setup on 10^6 variables, many chains), marginal accuracy with evidence; results/benchmarks/."""
    input:
        result("benchmarks/summary.md"),
        figure("benchmarks/uai_mar.png"),  # marginal accuracy with evidence: DoGS, systematic scan, pgmpy
        figure("benchmarks/chains.png"),  # many chains: our two kernels, THRML and pgmpy
        result("benchmarks/sampling.md"),  # the sampling call end to end beside its raw kernel and pgmpy
        figure("benchmarks/networks.png"),  # Bayesian networks with evidence: errors and coverage against exact
        result("benchmarks/networks_evidence.md"),  # the blocked sampler's coverage under other evidence
        result("benchmarks/standard_errors.md"),  # the reported standard errors against independent runs


target("benchmarks")


rule scaling:
    """DoGS §5.2 (our addition): time and memory from 10^4 to 10^8 variables, not part of `all` as it needs most of the memory; figures/benchmarks/scaling.png."""
    input:
        figure("benchmarks/scaling.png"),


target("scaling", in_all=False)
