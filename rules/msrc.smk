# DoGS §5.5 (Figs. 6, 7, 16): targeted MSRC v1 segmentation with the Markov field aspect model.
#   msrc/                 features.npz (every image's descriptors and words), dogs_scan.npz, summary.csv (split means),
#                         differences.csv (paired split differences with 95 % intervals), claims
#   msrc/split{k}/        hamming.csv (per test image, method and region), labels.npz (label maps)
# The images come from the data directory (docs/data.md).


MSRC_SPLITS = list(range(config["msrc"]["splits"]))


wildcard_constraints:
    split=r"\d+",


use rule experiment_step as msrc_compute_features with:
    """DoGS §5.5 (MSRC segmentation), a compute step: every image: DAISY descriptors, colour and position words, majority patch labels."""
    input:
        # the MSRC v1 zip in the data directory (stops the workflow with instructions when it is missing or corrupt)
        archive=lambda wildcards: os.path.join(
            dataset("msrc_v1"), "MSRC_ObjCategImageDatabase_v1.zip"
        ),
    output:
        features=result("msrc/features.npz"),
    log:
        result("logs/msrc/compute_features.log"),
    benchmark:
        result("benchmarks/snakemake/msrc_compute_features.tsv")
    priority: LONG  # the 20 splits wait for it
    resources:
        mem_mb=memory_mb("msrc"),
    params:
        **step("msrc", "compute-features"),


use rule experiment_step as msrc_compute_scan with:
    """DoGS §5.5 (MSRC segmentation), a compute step: the DoGS scan of the centre region, once for every image."""
    output:
        dogs_scan=result("msrc/dogs_scan.npz"),
    log:
        result("logs/msrc/compute_scan.log"),
    resources:
        mem_mb=memory_mb("msrc"),
    params:
        **step("msrc", "compute-scan"),


use rule experiment_step as msrc_compute_split with:  # sampler: PLSA on the training images, MFAM Gibbs on the test images, every scan
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
    resources:
        mem_mb=memory_mb("msrc"),
    params:
        **step("msrc", "compute-split"),


use rule experiment_step as msrc_summarise with:
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
    params:
        **step("msrc", "summarise"),


use rule experiment_step as msrc_plot_fig6 with:
    """DoGS §5.5 (MSRC segmentation): draws Fig. 6 (the target is `fig6`)."""
    input:
        labels=[result("msrc/split0/labels.npz")],
    output:
        figure=report(
            figure("msrc/fig6_segmentation.png"),
            caption=caption(
                "Regenerates DoGS Fig. 6: the example test image of the first split (the first test image whose centre region is at least half one object class: cow, aeroplane, face, car or bicycle) with the 12 x 8 centre region outlined, its ground-truth patch labels, and the PLSA, systematic-scan and DoGS segmentations of the Markov field aspect model with each one's centre-region Hamming error; MSRC label colours, legend below (black: void, or one of the rare classes mapped to void)."
            ),
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
    params:
        **step("msrc", "plot-fig6"),


use rule experiment_step as msrc_plot_fig16 with:
    """DoGS §5.5 (MSRC segmentation): draws Fig. 16 (the target is `fig16`)."""
    input:
        labels=expand(result("msrc/split{split}/labels.npz"), split=MSRC_SPLITS[:3]),
    output:
        figure=report(
            figure("msrc/fig16_segmentation_repetitions.png"),
            caption=caption(
                "Regenerates DoGS Fig. 16 (App. B.4): the segmentation panels of Fig. 6 for two "
                "further independent train/test splits, each with its own example test image chosen "
                "by the same rule."
            ),
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
    params:
        **step("msrc", "plot-fig16"),


use rule experiment_step as msrc_plot_fig7 with:
    """DoGS §5.5 (MSRC segmentation): draws Fig. 7 (the target is `fig7`)."""
    input:
        summary=result("msrc/summary.csv"),
        differences=result("msrc/differences.csv"),
    output:
        figure=report(
            figure("msrc/fig7_hamming_error.png"),
            caption=caption(
                "Regenerates DoGS Fig. 7 (left): the average Hamming error of PLSA, the systematic "
                "scan and the DoGS scan over the splits (mean ± s.d. of the split means), on the "
                "centre region and on the whole image; segmentations from the most frequent update "
                "draw of 20 chains. Right (ours): the paired differences of the centre-region errors,"
                " mean and 95 % interval over the splits; the split-to-split spread on the left hides"
                " them because both scans segment the same images. Every labelling rule and chain "
                "count is in results/msrc/differences.csv."
            ),
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
    params:
        **step("msrc", "plot-fig7"),


data_claims("msrc", "msrc_v1", result("claims/msrc.json"))


# ---- Named targets, each declared with `target` (rules/common.smk)
rule fig6:
    """DoGS Fig. 6 (§5.5, needs MSRC v1): a test image with the centre region outlined and its segmentations; figures/msrc/."""
    input:
        figure("msrc/fig6_segmentation.png"),


target("fig6", needs="msrc_v1")


rule fig7:
    """DoGS Fig. 7 (§5.5, needs MSRC v1): average Hamming error of PLSA, systematic scan and DoGS over the splits; figures/msrc/."""
    input:
        figure("msrc/fig7_hamming_error.png"),


target("fig7", needs="msrc_v1")


rule fig16:
    """DoGS Fig. 16 (App. B.4, needs MSRC v1): two more independent repetitions of Fig. 6; figures/msrc/."""
    input:
        figure("msrc/fig16_segmentation_repetitions.png"),


target("fig16", needs="msrc_v1")
