r"""DoGS §5.5 (Figs. 6, 7, 16): targeted image segmentation of MSRC v1 with the Markov field aspect model.

Patches of 20 x 20 pixels on a 10-pixel stride (a 20 x 31 grid on every image, portrait ones transposed) get
three words each (texture, colour, position; :mod:`dogs.segmentation.features`). PLSA
(:mod:`dogs.learning.plsa`) is fitted by EM on the training images with image-level labels (each image's
mixture restricted to the classes present in it) and folded in on each test image. The MFAM posterior
(DoGS eq. 4, :mod:`dogs.segmentation.mfam`) with ``sigma = 0.48`` is sampled from ``X^0`` = the PLSA MAP
labelling by Gibbs with two scans: the systematic scan of length ``T = 620`` and the DoGS scan targeting the
centred 12 x 8 patch rectangle (``d`` its indicator, Theorem 10 bound, ``epsilon`` = the systematic scan's
marginal Dobrushin variation, length doubling; computed once, it does not depend on the image). A patch's
segmentation is its most frequent label over the updates of ``chains`` independent chains (``X^0``'s label if
the scan never updates it). Error: the Hamming error of the patch labels against the majority ground-truth
class of each patch, void patches excluded, on the centre region and on the whole image.

Steps (``python -m dogs.experiments.msrc <step> ...``, see :mod:`dogs.experiments._cli`):

``compute-features``  output features (npz): every selected image's descriptors, words and patch labels
``compute-scan``      output dogs_scan (npz): the DoGS scan, its bound, epsilon and setup seconds
``compute-split``     wildcard ``split``; inputs features, dogs_scan; outputs hamming (csv), labels (npz)
``summarise``         inputs hamming (every split), dogs_scan; outputs summary (csv) and claims
``plot-fig6``, ``plot-fig7``, ``plot-fig16``
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from dogs.bounds import influence_pairwise
from dogs.claims import measured
from dogs.data import require_dataset
from dogs.experiments._cli import Experiment, SettingsError
from dogs.io import write_csv, write_meta, write_npz
from dogs.learning.plsa import fit_plsa, fold_in, patch_log_likelihoods
from dogs.samplers.discrete_gibbs import run_discrete_gibbs
from dogs.scans.base import Scan, systematic_scan
from dogs.scans.dogs import length_doubling_dogs
from dogs.scans.variation import dobrushin_variation
from dogs.segmentation.features import (
    colour_words,
    learn_codebook,
    patch_grid,
    patch_labels,
    position_words,
    quantise,
    texture_descriptors,
)
from dogs.segmentation.mfam import centre_weights, hamming_error, mfam_model
from dogs.segmentation.msrc import CLASSES, MSRCArchive
from dogs.seeds import seed_record, seed_sequence

FAMILY = "msrc"
METHODS = ("plsa", "systematic", "dogs")
GRID = (20, 31)  # the patch grid of a 320 x 213 image (landscape after transposing portrait images)


def check_settings(settings: dict) -> None:
    rows, cols = settings["region"]
    if rows > GRID[0] or cols > GRID[1]:
        raise SettingsError(f"config key msrc.region: {settings['region']} does not fit the {GRID} patch grid")


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings)


def selected_names(archive: MSRCArchive, per_group) -> list[str]:
    names = archive.names()
    if per_group is None:
        return names
    return [n for n in names if int(n.split("_")[1]) <= per_group]


@EXPERIMENT.step("compute-features")
def compute_features(ctx):
    cfg = ctx.settings
    archive = MSRCArchive(require_dataset("msrc_v1"))
    names = selected_names(archive, cfg["images_per_group"])
    colour = cfg["colour"]
    descriptors, colours, labels, present, transposed = [], [], [], [], []
    for k, name in enumerate(names):
        image = archive.read(name)
        if patch_grid(*image.rgb.shape[:2]) != GRID:
            raise SettingsError(f"image {name}: its patch grid is {patch_grid(*image.rgb.shape[:2])}, not {GRID}")
        descriptors.append(texture_descriptors(image.rgb))
        colours.append(colour_words(image.rgb, colour["hue_bins"], colour["value_bins"], colour["saturation_floor"]))
        labels.append(patch_labels(image.labels, len(CLASSES)))
        present.append(np.isin(np.arange(len(CLASSES)), image.labels))
        transposed.append(image.transposed)
        if (k + 1) % 40 == 0:
            ctx.log.info("features of %d/%d images; about %.0f s left", k + 1, len(names),
                         ctx.elapsed() / (k + 1) * (len(names) - k - 1))
    write_npz(ctx.output("features"), names=np.array(names), descriptors=np.stack(descriptors),
              colour_words=np.stack(colours), position_words=position_words(*GRID, *cfg["position_cells"]),
              patch_labels=np.stack(labels), present=np.stack(present), transposed=np.array(transposed),
              classes=np.array(CLASSES))
    write_meta(ctx.output("features"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "per image: DAISY descriptors at the 620 patch centres, colour words, majority "
                                     "patch labels (-1 void), the classes present in its ground truth"})


def dogs_region_scan(sigma: float, region) -> dict:
    """The DoGS scan of DoGS §5.5 and its certificate: systematic input of length 620, d = the region, Theorem 10."""
    started = time.perf_counter()
    model = mfam_model(np.zeros((GRID[0] * GRID[1], len(CLASSES))), GRID, sigma)  # the bound ignores the unary terms
    bound = influence_pairwise(model)
    weights = centre_weights(GRID, region)
    systematic = systematic_scan(model.n_vars, model.n_vars)
    epsilon = dobrushin_variation(systematic, weights, bound)
    doubling = length_doubling_dogs(systematic, weights, bound, epsilon)
    return {"scan": doubling.scan.indices, "length": doubling.length, "systematic_length": systematic.length,
            "epsilon": epsilon, "variation": doubling.variation, "bound_value": float(bound.data.max()),
            "lengths_tried": doubling.lengths_tried, "seconds": time.perf_counter() - started}


@EXPERIMENT.step("compute-scan")
def compute_scan(ctx):
    cfg = ctx.settings
    out = dogs_region_scan(cfg["sigma"], cfg["region"])
    write_npz(ctx.output("dogs_scan"), **out)
    write_meta(ctx.output("dogs_scan"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "DoGS scan targeting the centre region (Algorithm 2 with length doubling on the "
                                     "systematic scan of length 620, Theorem 10 bound tanh(sigma/2) on every edge)"})
    ctx.log.info("DoGS length %d (systematic %d), variation %.4f <= epsilon %.4f, %.1f ms", out["length"],
                 out["systematic_length"], out["variation"], out["epsilon"], 1e3 * out["seconds"])


def segment(model, scan: Scan, start: np.ndarray, chains: int, seed) -> tuple[np.ndarray, float]:
    """Most frequent label per patch over the updates of ``chains`` chains from ``start`` (``start`` where none)."""
    tic = time.perf_counter()
    result = run_discrete_gibbs(model, scan, seed=seed, n_chains=chains, initial_state=start, count_labels=True)
    seconds = time.perf_counter() - tic
    counts = result.label_counts.sum(axis=0)  # (p, K)
    labels = np.where(counts.sum(axis=1) > 0, counts.argmax(axis=1), start)
    return labels, seconds


@EXPERIMENT.step("compute-split")
def compute_split(ctx):
    cfg = ctx.settings
    split = ctx.wildcard("split")
    with np.load(ctx.input("features")) as f:
        names, descriptors, colours = f["names"], f["descriptors"], f["colour_words"]
        positions, truth, present = f["position_words"], f["patch_labels"], f["present"]
    with np.load(ctx.input("dogs_scan")) as s:
        dogs_scan = Scan(s["scan"], GRID[0] * GRID[1])
    n_test = cfg["test_images"]
    if n_test >= len(names):
        raise SettingsError(f"config key msrc.test_images: {n_test} of {len(names)} images leaves none to train on")
    path = (FAMILY, "split", split)
    order = np.random.default_rng(seed_sequence(ctx.seed, *path, "partition")).permutation(len(names))
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    codebook = learn_codebook(descriptors[train].reshape(-1, descriptors.shape[2]), cfg["codebook_size"],
                              seed_sequence(ctx.seed, *path, "codebook"))
    ctx.log.info("split %d: codebook of %d texture words learned (%.0f s so far)", split, cfg["codebook_size"],
                 ctx.elapsed())
    words = [np.column_stack([quantise(descriptors[k], codebook), colours[k], positions]) for k in range(len(names))]
    n_words = (cfg["codebook_size"], cfg["colour"]["hue_bins"] + cfg["colour"]["value_bins"],
               cfg["position_cells"][0] * cfg["position_cells"][1])
    plsa, _ = fit_plsa([words[k] for k in train], [present[k] for k in train], n_words, len(CLASSES),
                       iterations=cfg["plsa"]["iterations"], smoothing=cfg["plsa"]["smoothing"],
                       seed=seed_sequence(ctx.seed, *path, "plsa"))
    ctx.log.info("split %d: %d training / %d test images; PLSA log-likelihood %.1f -> %.1f", split, len(train), len(test),
                 plsa.log_likelihoods[0], plsa.log_likelihoods[-1])
    systematic = systematic_scan(GRID[0] * GRID[1], GRID[0] * GRID[1])
    centre = centre_weights(GRID, cfg["region"]).astype(bool)
    rows, maps, seconds = [], {}, {"systematic": 0.0, "dogs": 0.0}
    segmenting = time.perf_counter()
    for n, k in enumerate(test):
        if n and n % 6 == 0:
            per_image = (time.perf_counter() - segmenting) / n
            ctx.log.info("split %d: %d/%d test images segmented; about %.0f s left", split, n, len(test),
                         per_image * (len(test) - n))
        theta, responsibilities = fold_in(plsa, words[k], iterations=cfg["plsa"]["fold_in_iterations"])
        start = responsibilities.argmax(axis=1)
        model = mfam_model(np.log(np.maximum(theta, 1e-300)) + patch_log_likelihoods(plsa, words[k]), GRID, cfg["sigma"])
        labels = {"plsa": start}
        for method, scan in (("systematic", systematic), ("dogs", dogs_scan)):
            labels[method], used = segment(model, scan, start, cfg["chains"],
                                           seed_sequence(ctx.seed, *path, "gibbs", method, int(k)))
            seconds[method] += used
        for method in METHODS:
            for region, mask in (("centre", centre), ("image", None)):
                rows.append((str(names[k]), method, region, hamming_error(labels[method], truth[k], mask)))
            maps[f"{names[k]}/{method}"] = labels[method].astype(np.int8)
        maps[f"{names[k]}/truth"] = truth[k]
    frame = pd.DataFrame(rows, columns=["image", "method", "region", "hamming_error"])
    write_csv(frame, ctx.output("hamming"))
    per_variable = {m: seconds[m] / len(test) / int(centre.sum()) for m in seconds}
    write_meta(ctx.output("hamming"), settings=cfg, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
               extra={"split": split, "test_images": [str(names[k]) for k in test],
                      "seconds_per_region_variable": per_variable,
                      "description": "Hamming error of the patch labels (void patches excluded) on the centre region "
                                     "and on the whole image, per test image and method"})
    example = str(names[test[0]])
    write_npz(ctx.output("labels"), grid=np.array(GRID), example=example,
              example_rgb=MSRCArchive(require_dataset("msrc_v1")).read(example).rgb, **maps)
    write_meta(ctx.output("labels"), settings=cfg, seed=seed_record(ctx.seed, *path), elapsed_seconds=ctx.elapsed(),
               extra={"description": "'<image>/<method>': patch label map (row-major on the 20 x 31 grid, class index "
                                     "in " + ", ".join(CLASSES) + "); '<image>/truth': majority ground truth (-1 void); "
                                     "example_rgb: the first test image (for Figs. 6 and 16)"})
    means = frame.groupby(["method", "region"])["hamming_error"].mean()
    ctx.log.info("split %d centre errors: %s", split, ", ".join(f"{m} {means[(m, 'centre')]:.3f}" for m in METHODS))


def split_means(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Mean Hamming error per split, method and region (images with a labelled patch in the region only)."""
    rows = []
    for split, frame in enumerate(frames):
        for (method, region), group in frame.groupby(["method", "region"]):
            rows.append((split, method, region, float(group["hamming_error"].mean())))
    return pd.DataFrame(rows, columns=["split", "method", "region", "mean_error"])


@EXPERIMENT.step("summarise")
def summarise(ctx):
    cfg = ctx.settings
    frames = [pd.read_csv(p) for p in ctx.inputs("hamming")]
    means = split_means(frames)
    write_csv(means, ctx.output("summary"))
    write_meta(ctx.output("summary"), settings=cfg, seed=None, elapsed_seconds=ctx.elapsed(),
               extra={"description": "mean Hamming error over each split's test images, per method and region"})
    with np.load(ctx.input("dogs_scan")) as s:
        length, systematic_length, setup = int(s["length"]), int(s["systematic_length"]), float(s["seconds"])
    centre = means[means["region"] == "centre"].pivot(index="split", columns="method", values="mean_error")
    n = len(centre)

    def paired(a, b):  # (mean of b - a) / s.e. over splits: > 2 means a is better by 2 s.e.
        diff = centre[b] - centre[a]
        return float(diff.mean() / (diff.std(ddof=1) / np.sqrt(n))) if n > 1 and diff.std(ddof=1) > 0 else float("nan")

    text = ", ".join(f"{m} {centre[m].mean():.3f} ± {centre[m].std(ddof=1) if n > 1 else 0:.3f}" for m in METHODS)
    claims = {
        "msrc_dogs_length": measured(
            f"DoGS length {length} against the systematic {systematic_length} ({systematic_length / length:.2f}x shorter)",
            systematic_length / length),
        "msrc_setup_time": measured(f"{1e3 * setup:.1f} ms, once for all test images", setup),
        "msrc_dogs_as_accurate": measured(
            f"centre-region Hamming error over {n} splits (mean ± s.d.): {text}",
            {"dogs_minus_systematic": float((centre["dogs"] - centre["systematic"]).mean()),
             "dogs_worse_by_se": -paired("dogs", "systematic")}),
        "msrc_mfam_beats_plsa": measured(
            f"centre-region Hamming error over {n} splits: {text}",
            min(paired("systematic", "plsa"), paired("dogs", "plsa"))),
    }
    ctx.write_claims(claims)


@EXPERIMENT.step("plot-fig6")
def plot_fig6(ctx):
    from dogs.plotting.msrc import segmentation_panels

    segmentation_panels(ctx.inputs("labels")[:1], ctx.settings["region"], ctx.output("figure"))


@EXPERIMENT.step("plot-fig16")
def plot_fig16(ctx):
    from dogs.plotting.msrc import segmentation_panels

    segmentation_panels(ctx.inputs("labels")[1:3], ctx.settings["region"], ctx.output("figure"))


@EXPERIMENT.step("plot-fig7")
def plot_fig7(ctx):
    from dogs.plotting.msrc import error_bars

    error_bars(pd.read_csv(ctx.input("summary")), ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
