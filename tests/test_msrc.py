"""MSRC segmentation (DoGS §5.5): patches and labels, features, PLSA, the MFAM posterior, the data checks, the steps."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import zipfile

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from dogs.data import DatasetMissingError, require_dataset
from dogs.experiments import msrc
from dogs.learning.plsa import fit_plsa, fold_in, patch_log_likelihoods
from dogs.segmentation.features import colour_words, kmeans_plus_plus, learn_codebook, patch_grid, patch_labels, position_words
from dogs.scans.base import Scan
from dogs.scans.variation import dobrushin_variation
from dogs.segmentation.labelling import labels_from_final_states, labels_from_updates
from dogs.segmentation.mfam import centre_weights, hamming_error, mfam_model
from dogs.segmentation.msrc import CLASSES, MSRCArchive, label_image
from dogs.segmentation.region_scan import drop_idle_steps, region_scan, region_systematic_scan

from experiment_cli import SCHEMA, assert_judged, merged_configs, outputs_in, run

FULL, SMOKE = merged_configs()
HAS_DATA = "DOGS_DATA_DIR" in os.environ


def test_the_patch_grid_of_an_msrc_image():
    assert patch_grid(213, 320) == (20, 31)
    assert patch_grid(40, 40) == (3, 3)
    with pytest.raises(ValueError):
        patch_grid(10, 320)


def test_majority_labels_on_a_hand_made_label_image():
    labels = np.full((40, 40), -1, dtype=np.int8)  # 3 x 3 patches of 20 x 20 at stride 10
    labels[:20, :20] = 2  # patch (0, 0): all class 2
    labels[:20, 20:] = 5  # patch (0, 2): all class 5; patch (0, 1) straddles: 10 columns of 2, 10 of 5 -> tie -> 2
    labels[20:, :] = 1
    labels[25:30, :] = -1  # void does not vote
    out = patch_labels(labels, 9).reshape(3, 3)
    assert out[0].tolist() == [2, 2, 5]
    assert out[2].tolist() == [1, 1, 1]  # rows 20-39: class 1 (void stripe ignored)
    assert out[1, 0] == 2  # rows 10-29: 200 pixels of class 2, 100 of class 1, 100 void
    all_void = np.full((20, 20), -1, dtype=np.int8)
    assert patch_labels(all_void, 9).tolist() == [-1]


def test_colour_and_position_words():
    rgb = np.zeros((20, 40, 3), dtype=np.uint8)
    rgb[:, :20] = (255, 0, 0)  # saturated red: hue bin 0
    rgb[:, 20:] = (250, 250, 250)  # white: a grey-level word, the brightest
    words = colour_words(rgb, hue_bins=12, value_bins=4, saturation_floor=0.15)
    assert words.tolist() == [0, 0, 15]  # the middle patch is half red, half white: tie -> the smaller word
    assert position_words(4, 6, 2, 3).reshape(4, 6).tolist() == [[0, 0, 1, 1, 2, 2]] * 2 + [[3, 3, 4, 4, 5, 5]] * 2


def test_kmeans_plus_plus_draws_the_seeds_of_scipys_kmeans2():
    """Same generator state, same seeds as ``kmeans2(minit="++")``: the codebooks do not depend on which is used."""
    from scipy.cluster.vq import kmeans2

    rng = np.random.default_rng(40)
    data = np.concatenate([rng.normal(centre, 0.3, (150, 5)) for centre in rng.normal(0, 3, (12, 5))])
    for seed in range(5):
        seeds = kmeans_plus_plus(data, 12, np.random.default_rng(seed))
        assert {tuple(row) for row in seeds} <= {tuple(row) for row in data} and len({tuple(row) for row in seeds}) == 12
        ours, _ = kmeans2(data, seeds, iter=3, minit="matrix")
        scipys, _ = kmeans2(data, 12, iter=3, minit="++", seed=np.random.default_rng(seed))
        np.testing.assert_array_equal(ours, scipys)
    codebook = learn_codebook(data, 12, seed=1, max_points=1000)  # subsampled, then seeded and refined
    assert codebook.shape == (12, 5) and np.isfinite(codebook).all()


def test_label_colours():
    rgb = np.array([[[128, 0, 0], [0, 0, 0], [128, 0, 128], [192, 0, 128]]], dtype=np.uint8)
    assert label_image(rgb).tolist() == [[0, -1, -1, 8]]  # building, void, horse -> void, bicycle
    with pytest.raises(DatasetMissingError, match="not an MSRC v1 label colour"):
        label_image(np.array([[[1, 2, 3]]], dtype=np.uint8))


def test_hamming_error_on_a_hand_made_map():
    truth = np.array([0, 1, 2, -1, 3, 3])
    predicted = np.array([0, 2, 2, 5, 3, 1])
    assert hamming_error(predicted, truth) == pytest.approx(2 / 5)  # void excluded
    assert hamming_error(predicted, truth, mask=[1, 1, 0, 1, 0, 0]) == pytest.approx(1 / 2)
    assert np.isnan(hamming_error(predicted, truth, mask=[0, 0, 0, 1, 0, 0]))


def test_centre_region():
    d = centre_weights((20, 31), (8, 12)).reshape(20, 31)
    assert d.sum() == 96 and d[6:14, 9:21].all()


def test_the_mfam_posterior_is_eq_4():
    rng = np.random.default_rng(0)
    unary = rng.normal(size=(6, 3))
    model = mfam_model(unary, (2, 3), 0.48)
    x = rng.integers(0, 3, size=6)
    by_hand = unary[np.arange(6), x].sum() + 0.48 * sum(x[i] == x[j] for i, j in model.edges)
    assert len(model.edges) == 7
    got = sum(model.unary[i][x[i]] for i in range(6)) + sum(t[x[i], x[j]] for (i, j), t in zip(model.edges, model.tables))
    assert got == pytest.approx(by_hand)


def _planted_topics(seed, n_images=40, patches=60):
    rng = np.random.default_rng(seed)
    n_classes, n_words = 3, (12, 8)
    beta = [rng.dirichlet(np.full(n, 0.3), size=n_classes).T for n in n_words]
    words, allowed = [], []
    for _ in range(n_images):
        present = rng.random(n_classes) < 0.6
        present[rng.integers(n_classes)] = True
        theta = rng.dirichlet(np.ones(present.sum()))
        z = rng.choice(np.flatnonzero(present), size=patches, p=theta)
        words.append(np.column_stack([[rng.choice(n, p=b[:, k]) for k in z] for n, b in zip(n_words, beta)]))
        allowed.append(present)
    return words, allowed, n_words, beta


def test_plsa_em_never_decreases_the_likelihood_and_recovers_planted_topics():
    words, allowed, n_words, beta = _planted_topics(1)
    model, thetas = fit_plsa(words, allowed, n_words, 3, iterations=60, smoothing=0.0, seed=2)
    assert np.all(np.diff(model.log_likelihoods) >= -1e-8 * np.abs(model.log_likelihoods[1:]))
    for fitted, planted in zip(model.beta, beta):  # image-level labels fix the topics' identities
        assert np.abs(fitted - planted).sum(axis=0).max() < 0.5  # L1 distance between word distributions
    assert all(np.all(t[~a] == 0) for t, a in zip(thetas, allowed))  # supervision respected
    theta, responsibilities = fold_in(model, words[0], iterations=30)
    assert theta.sum() == pytest.approx(1.0) and responsibilities.shape == (60, 3)
    assert patch_log_likelihoods(model, words[0]).shape == (60, 3)


def test_plsa_row_counts_equal_numpy_add_at_bit_for_bit():
    from dogs._kernels.plsa import add_rows

    rng = np.random.default_rng(5)
    rows = rng.integers(0, 7, 500)  # many repeats: the order of the terms of each sum matters
    values = rng.random((500, 4)) * 10.0 ** rng.integers(-8, 8, (500, 1))
    expected, counts = np.full((7, 4), 0.01), np.full((7, 4), 0.01)
    np.add.at(expected, rows, values)
    add_rows(counts, rows, values)
    assert np.array_equal(counts, expected)


def test_plsa_refuses_words_outside_the_vocabulary():
    words, allowed, n_words, _ = _planted_topics(1)
    for bad in (-1, n_words[0]):
        broken = [w.copy() for w in words]
        broken[1][3, 0] = bad
        with pytest.raises(ValueError, match="image 1: a word outside"):
            fit_plsa(broken, allowed, n_words, 3, iterations=2, smoothing=0.0, seed=2)


def _fake_dataset(folder, corrupt_member=False):
    """A two-image MSRC-like zip and manifest (2 x 2 pixel images) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    members, rows = {}, []
    for name in ("1_1", "1_2"):
        for suffix, colour in (("_s.bmp", (10, 20, 30)), ("_s_GT.bmp", (0, 128, 0))):
            buffer = io.BytesIO()
            Image.fromarray(np.full((40, 40, 3), colour, dtype=np.uint8)).save(buffer, format="BMP")
            members[name + suffix] = buffer.getvalue()
            rows.append({"file": name + suffix, "kind": "label" if "GT" in suffix else "image",
                         "sha256": hashlib.sha256(members[name + suffix]).hexdigest()})
    if corrupt_member:
        members["1_2_s.bmp"] = members["1_2_s.bmp"][:-4] + b"\0\0\0\0"
    with zipfile.ZipFile(folder / "MSRC_ObjCategImageDatabase_v1.zip", "w") as z:
        for file, data in members.items():
            z.writestr(f"MSRC_ObjCategImageDatabase_v1/{file}", data)
    with open(folder / "MANIFEST.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["file", "kind", "sha256"])
        writer.writeheader()
        writer.writerows(rows)


def test_members_are_checked_against_the_manifest(tmp_path):
    _fake_dataset(tmp_path / "ok")
    archive = MSRCArchive(tmp_path / "ok")
    assert archive.names() == ["1_1", "1_2"]
    image = archive.read("1_1")
    assert image.rgb.shape == (40, 40, 3) and set(np.unique(image.labels)) == {1}
    _fake_dataset(tmp_path / "bad", corrupt_member=True)
    with pytest.raises(DatasetMissingError, match="does not match its SHA-256"):
        MSRCArchive(tmp_path / "bad").read("1_2")


@pytest.mark.parametrize("damage", ["text", "truncated"])
def test_a_damaged_zip_is_refused_before_use(tmp_path, monkeypatch, damage):
    folder = tmp_path / "msrc_v1"
    folder.mkdir()
    if damage == "text":
        (folder / "MSRC_ObjCategImageDatabase_v1.zip").write_text("not a zip")
    else:
        (folder / "MSRC_ObjCategImageDatabase_v1.zip").write_bytes(b"PK\x03\x04" + b"\0" * 1000)
    (folder / "MANIFEST.csv").write_text("file,kind,sha256\n")
    monkeypatch.setenv("DOGS_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetMissingError, match="corrupt or a different version"):
        require_dataset("msrc_v1")


def test_the_configs_pass_the_experiment_checks(capsys):
    for config in (FULL, SMOKE):
        msrc.EXPERIMENT.context(["summarise", "--settings", json.dumps(config["msrc"]), "--schema", str(SCHEMA)])
    too_many = {**FULL["msrc"], "chains_reported": [1, FULL["msrc"]["chains"] + 1]}
    with pytest.raises(SystemExit):
        msrc.EXPERIMENT.context(["summarise", "--settings", json.dumps(too_many), "--schema", str(SCHEMA)])
    assert "config key msrc.chains_reported: [21] exceed msrc.chains = 20" in capsys.readouterr().err


def _path_influence(n: int, c: float) -> np.ndarray:
    """Influence bound of a path 0 - 1 - ... - (n-1) with ``c`` on every edge."""
    return c * (np.eye(n, k=1) + np.eye(n, k=-1))


def test_idle_steps_are_dropped_and_the_variation_kept_exactly():
    # Path 0-1-2-3-4, target 4. Steps: 0, 1, 4, 3, 4. Nothing after the updates of 0 and 1 reads variable 2,
    # so their values never reach 4: idle. The first update of 4 is read by 3, which the last step reads.
    influence, d = _path_influence(5, 0.4), np.eye(5)[4]
    scan = Scan([0, 1, 4, 3, 4], 5)
    shorter, full, idle = drop_idle_steps(scan, d, influence)
    assert shorter.indices.tolist() == [4, 3, 4] and idle.tolist() == [0, 1]
    assert dobrushin_variation(shorter, d, influence) == pytest.approx(full, rel=1e-15)
    assert full == dobrushin_variation(scan, d, influence)
    assert dobrushin_variation(Scan([3, 4], 5), d, influence) > full  # the first update of 4 is not idle
    # by hand: b = 1; b_4 <- 0.4 b_3 = 0.4; b_3 <- 0.4 (b_2 + b_4) = 0.56; b_4 <- 0.4 b_3 = 0.224
    assert full == pytest.approx(0.224)
    # an idle step in the middle: the update of 2 is overwritten before anything reads it
    middle = Scan([2, 2, 3, 4], 5)
    assert drop_idle_steps(middle, d, influence)[0].indices.tolist() == [2, 3, 4]
    assert drop_idle_steps(Scan([0, 1], 5), d, influence)[0].length == 0  # nothing reaches 4
    with pytest.raises(ValueError, match="deterministic"):
        drop_idle_steps(Scan([0, -1, 4], 5), d, influence)


def test_the_systematic_phase_ending_on_the_region_has_the_smallest_variation():
    weights, bound = centre_weights(msrc.GRID, (8, 12)), region_bound(0.48)
    paper = region_systematic_scan(msrc.GRID, (8, 12))
    aligned = region_systematic_scan(msrc.GRID, (8, 12), "ending_on_region")
    assert paper.indices[-1] == 0 and aligned.indices[-1] == 13 * 31 + 20  # the region's last patch, row-major
    assert sorted(aligned.indices.tolist()) == list(range(620))
    every_phase = [dobrushin_variation(Scan(np.roll(np.arange(620), -k), 620), weights, bound) for k in range(0, 620, 7)]
    assert dobrushin_variation(aligned, weights, bound) <= min(every_phase) + 1e-12
    with pytest.raises(ValueError, match="phase"):
        region_systematic_scan(msrc.GRID, (8, 12), "first")


def test_the_dogs_scan_of_the_centre_region():
    """DoGS §5.5: length doubling returns 128 steps; without the 18 idle top-row steps, the paper's 110."""
    out = region_scan(0.48, msrc.GRID, (8, 12))
    assert out.bound_value == pytest.approx(np.tanh(0.24)) and out.systematic_length == 620
    assert out.doubling_scan.length == 128 and out.lengths_tried.tolist() == [2, 4, 8, 16, 32, 64, 128]
    assert out.doubling_scan.indices[:18].tolist() == list(range(1, 19))  # the systematic input's top row, untouched
    assert out.scan.indices.tolist() == out.doubling_scan.indices[18:].tolist() and out.idle_steps.tolist() == list(range(18))
    assert out.scan.length == out.steps_in_region == 110 and out.region_size == 96
    aligned = region_scan(0.48, msrc.GRID, (8, 12), phase="ending_on_region")
    assert aligned.epsilon < out.epsilon and (aligned.doubling_scan.length, aligned.scan.length) == (128, 114)
    weights = centre_weights(msrc.GRID, (8, 12))
    assert dobrushin_variation(out.scan, weights, np.asarray(region_bound(0.48))) == pytest.approx(out.variation, rel=1e-12)
    assert out.variation <= out.epsilon
    assert 0.85 < out.epsilon / 96 < 0.95  # the certificate: vacuous for the region's marginal TV
    rows = out.scan.indices // msrc.GRID[1]
    last_update = [np.flatnonzero(rows == r).max() for r in range(6, 14)]  # the region's grid rows, top to bottom
    assert all(a > b for a, b in zip(last_update, last_update[1:]))  # swept bottom to top


def region_bound(sigma):
    from dogs.bounds import influence_pairwise

    return influence_pairwise(mfam_model(np.zeros((620, 2)), msrc.GRID, sigma)).toarray()


def test_labelling_rules_on_hand_made_chains():
    counts = np.zeros((3, 4, 3), dtype=np.int64)  # 3 chains, 4 patches, 3 labels
    counts[0, 0, 2] = 1
    counts[1, 0, 1] = 1
    counts[2, 0, 1] = 1  # patch 0: draws 2, 1, 1
    counts[:, 1, 0] = 1
    counts[0, 1, 2] = 2  # patch 1: chain 0 drew 0 once and 2 twice, chains 1-2 drew 0
    start = np.array([0, 1, 2, 1])  # patches 2 and 3 are never updated
    assert labels_from_updates(counts, start, 3).tolist() == [1, 0, 2, 1]
    assert labels_from_updates(counts, start, 1).tolist() == [2, 2, 2, 1]
    states = np.array([[2, 2, 2, 1], [1, 0, 2, 1], [0, 0, 2, 1]])
    assert labels_from_final_states(states, 3, 3).tolist() == [0, 0, 2, 1]  # patch 0: a three-way tie -> 0
    assert labels_from_final_states(states, 3, 2).tolist() == [1, 0, 2, 1]
    with pytest.raises(ValueError, match="n_chains"):
        labels_from_updates(counts, start, 4)


def test_paired_differences_across_labellings_and_chains():
    rows = []
    for split in range(4):
        rows.append((split, "plsa", "plsa_map", 0, "centre", 0.40 + 0.01 * split))
        for labelling, chains in (("updates", 5), ("final_states", 5), ("updates", 1)):
            for method, error in (("systematic", 0.30), ("dogs", 0.30 + 0.001 * (split % 2)),
                                  ("systematic_aligned", 0.30 - 0.002 * (split % 2)), ("systematic_reversed", 0.31)):
                rows.append((split, method, labelling, chains, "centre", error + 0.01 * split))
    means = pd.DataFrame(rows, columns=["split", "method", "labelling", "chains", "region", "mean_error"])
    diff = msrc.paired_differences(means)
    assert len(diff) == 3 * len(msrc.COMPARISONS)
    row = diff[(diff.comparison == "dogs_minus_systematic") & (diff.labelling == "updates") & (diff.chains == 5)].iloc[0]
    assert row["mean"] == pytest.approx(0.0005) and row["splits"] == 4 and row["low"] < 0.0005 < row["high"]
    gain = diff[(diff.comparison == "plsa_minus_systematic") & (diff.chains == 1)].iloc[0]
    assert gain["mean"] == pytest.approx(0.10) and gain["low"] == pytest.approx(0.10)  # no spread: a point
    claims = msrc.accuracy_claims(means, diff, chains=5)
    aligned = diff[(diff.comparison == "dogs_minus_aligned") & (diff.labelling == "updates") & (diff.chains == 5)].iloc[0]
    assert aligned["mean"] == pytest.approx(0.0015) and aligned["high"] > row["high"]
    # judged against the baseline less favourable to DoGS: here the aligned one
    assert claims["msrc_dogs_as_accurate"]["value"]["difference_high"] == pytest.approx(aligned["high"])
    assert claims["msrc_dogs_as_accurate"]["quantities"]["judged_against"] == "dogs_minus_aligned"
    assert claims["msrc_mfam_beats_plsa"]["value"]["gain_low"] == pytest.approx(0.0995, abs=1e-3)
    assert_judged(claims)


def test_the_example_image_has_an_object_in_its_centre():
    centre = centre_weights(msrc.GRID, (8, 12)).astype(bool)
    grass, sheep, cow = np.full(620, CLASSES.index("grass")), np.full(620, CLASSES.index("grass")), np.full(620, 1)
    sheep[centre] = -1  # a sheep is void in the nine-class setup
    cow[np.flatnonzero(centre)[:60]] = CLASSES.index("cow")
    assert msrc.example_position(np.stack([grass, sheep, cow]), centre) == 2
    assert msrc.example_position(np.stack([sheep, grass]), centre) == 1  # no object anywhere: most labelled centre


@pytest.mark.skipif(not HAS_DATA, reason="no data directory configured")
def test_experiment_steps_end_to_end(tmp_path):
    tiny = {**SMOKE["msrc"], "images_per_group": 1, "test_images": 2, "codebook_size": 8,
            "plsa": {"iterations": 3, "smoothing": 0.01, "fold_in_iterations": 3}, "chains": 2, "chains_reported": [1]}
    out = outputs_in(tmp_path, features="features.npz", dogs_scan="dogs_scan.npz")
    run(msrc, "compute-features", tiny, 3, outputs={"features": out["features"]})
    run(msrc, "compute-scan", tiny, 3, outputs={"dogs_scan": out["dogs_scan"]})
    split = outputs_in(tmp_path, hamming="hamming.csv", labels="labels.npz")
    run(msrc, "compute-split", tiny, 3, inputs=out, outputs=split, wildcards={"split": 0})
    frame = pd.read_csv(split["hamming"])
    assert list(frame.columns) == ["image", "method", "labelling", "chains", "region", "hamming_error"]
    # per image: PLSA once, 4 sampled scans x 2 labelling rules x chain counts {1, 2}; two regions each
    assert len(frame) == 2 * (1 + 4 * 2 * 2) * 2
    with np.load(split["labels"]) as labels:
        example = str(labels["example"])
        assert {f"{example}/{m}" for m in ("truth", "plsa", "systematic", "dogs")} <= set(labels.files)
    claims = tmp_path / "claims.json"
    run(msrc, "summarise", tiny, 3, inputs={"hamming": [split["hamming"]], "dogs_scan": out["dogs_scan"]},
        outputs={"summary": tmp_path / "summary.csv", "differences": tmp_path / "differences.csv", "claims": claims},
        smoke=True)
    measured = json.loads(claims.read_text())["claims"]
    assert measured["msrc_dogs_length"]["value"] == pytest.approx(620 / 110)
    assert_judged(measured)
    run(msrc, "plot-fig6", tiny, 3, inputs={"labels": [split["labels"]]}, outputs={"figure": tmp_path / "fig6.png"})
    run(msrc, "plot-fig7", tiny, 3, inputs={"summary": tmp_path / "summary.csv", "differences": tmp_path / "differences.csv"},
        outputs={"figure": tmp_path / "fig7.png"})
    assert (tmp_path / "fig6.png").stat().st_size > 0 and (tmp_path / "fig7.png").stat().st_size > 0
