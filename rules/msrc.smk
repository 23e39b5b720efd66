# DoGS §5.5 (Figs. 6, 7, 16): targeted MSRC v1 segmentation with the Markov field aspect model.
#   msrc/                 features.npz (every image's descriptors and words), dogs_scan.npz, summary.csv (split means),
#                         differences.csv (paired split differences with 95 % intervals), claims
#   msrc/split{k}/        hamming.csv (per test image, method and region), labels.npz (label maps)
# The images come from the data directory (docs/data.md).

MSRC_SPLITS = list(range(config["msrc"]["splits"]))


wildcard_constraints:
    split=r"\d+",


rule msrc_compute_features:
    """DoGS §5.5 (MSRC segmentation), a compute step: every image: DAISY descriptors, colour and position words, majority patch labels."""
    input:
        archive=msrc_archive,
    output:
        features=result("msrc/features.npz"),
    log:
        result("logs/msrc/compute_features.log"),
    benchmark:
        result("benchmarks/snakemake/msrc_compute_features.tsv")
    priority: LONG  # the 20 splits wait for it
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("msrc"),
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc compute-features {params.args} > {log} 2>&1"


rule msrc_compute_scan:
    """DoGS §5.5 (MSRC segmentation), a compute step: the DoGS scan of the centre region, once for every image."""
    output:
        dogs_scan=result("msrc/dogs_scan.npz"),
    log:
        result("logs/msrc/compute_scan.log"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("msrc"),
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc compute-scan {params.args} > {log} 2>&1"


rule msrc_compute_split:  # sampler: PLSA on the training images, MFAM Gibbs on the test images, every scan
    input:
        features=result("msrc/features.npz"),
        dogs_scan=result("msrc/dogs_scan.npz"),
    output:
        hamming=result("msrc/split{split}/hamming.csv"),
        labels=result("msrc/split{split}/labels.npz"),
    log:
        result("logs/msrc/compute_split{split}.log"),
    benchmark:
        result("benchmarks/snakemake/msrc_compute_split{split}.tsv")
    conda:
        CONDA_ENV
    resources:
        mem_mb=memory_mb("msrc"),
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc compute-split {params.args} > {log} 2>&1"


rule msrc_summarise:
    """DoGS §5.5 (MSRC segmentation): the summary tables and the measured claims of the paper-vs-ours table."""
    input:
        hamming=expand(result("msrc/split{split}/hamming.csv"), split=MSRC_SPLITS),
        dogs_scan=result("msrc/dogs_scan.npz"),
    output:
        summary=result("msrc/summary.csv"),
        differences=result("msrc/differences.csv"),
        claims=result("claims/msrc.json"),
    log:
        result("logs/msrc/summarise.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc summarise {params.args} > {log} 2>&1"


rule msrc_plot_fig6:
    """DoGS §5.5 (MSRC segmentation): draws Fig. 6 (the target is `fig6`)."""
    input:
        labels=[result("msrc/split0/labels.npz")],
    output:
        figure=report(
            figure("msrc/fig6_segmentation.png"),
            caption="captions/msrc_fig6.rst",
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.5 MSRC segmentation",
            labels={
                "paper": "DoGS",
                "section": "§5.5",
                "figure": "Fig. 6",
                "panels": "a test image and its segmentations",
            },
        ),
    log:
        result("logs/msrc/plot_fig6.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc plot-fig6 {params.args} > {log} 2>&1"


rule msrc_plot_fig16:
    """DoGS §5.5 (MSRC segmentation): draws Fig. 16 (the target is `fig16`)."""
    input:
        labels=expand(result("msrc/split{split}/labels.npz"), split=MSRC_SPLITS[:3]),
    output:
        figure=report(
            figure("msrc/fig16_segmentation_repetitions.png"),
            caption="captions/msrc_fig16.rst",
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.5 MSRC segmentation",
            labels={
                "paper": "DoGS",
                "section": "App. B.4",
                "figure": "Fig. 16",
                "panels": "two more repetitions of Fig. 6",
            },
        ),
    log:
        result("logs/msrc/plot_fig16.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc plot-fig16 {params.args} > {log} 2>&1"


rule msrc_plot_fig7:
    """DoGS §5.5 (MSRC segmentation): draws Fig. 7 (the target is `fig7`)."""
    input:
        summary=result("msrc/summary.csv"),
        differences=result("msrc/differences.csv"),
    output:
        figure=report(
            figure("msrc/fig7_hamming_error.png"),
            caption="captions/msrc_fig7.rst",
            category="1. DoGS (Mitliagkas & Mackey 2017)",
            subcategory="§5.5 MSRC segmentation",
            labels={
                "paper": "DoGS",
                "section": "§5.5",
                "figure": "Fig. 7",
                "panels": "Hamming error of PLSA, systematic, DoGS",
            },
        ),
    log:
        result("logs/msrc/plot_fig7.log"),
    conda:
        CONDA_ENV
    params:
        python=PYTHON,
        args=step_args("msrc"),
    shell:
        "{params.python} -m dogs.experiments.msrc plot-fig7 {params.args} > {log} 2>&1"


data_claims("msrc", "msrc_v1", result("claims/msrc.json"))
