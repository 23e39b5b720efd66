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
from dogs.segmentation.mfam import centre_weights, hamming_error, mfam_model
from dogs.segmentation.msrc import MSRCArchive, label_image

from experiment_cli import SCHEMA, merged_configs, outputs_in, run

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


def test_the_configs_pass_the_experiment_checks():
    for config in (FULL, SMOKE):
        msrc.EXPERIMENT.context(["summarise", "--settings", json.dumps(config["msrc"]), "--schema", str(SCHEMA)])


def test_the_dogs_scan_of_the_centre_region():
    out = msrc.dogs_region_scan(0.48, (8, 12))
    assert out["variation"] <= out["epsilon"] and out["length"] < out["systematic_length"] == 620
    assert out["bound_value"] == pytest.approx(np.tanh(0.24))


@pytest.mark.skipif(not HAS_DATA, reason="no data directory configured")
def test_experiment_steps_end_to_end(tmp_path):
    tiny = {**SMOKE["msrc"], "images_per_group": 1, "test_images": 2, "codebook_size": 8,
            "plsa": {"iterations": 3, "smoothing": 0.01, "fold_in_iterations": 3}, "chains": 2}
    out = outputs_in(tmp_path, features="features.npz", dogs_scan="dogs_scan.npz")
    run(msrc, "compute-features", tiny, 3, outputs={"features": out["features"]})
    run(msrc, "compute-scan", tiny, 3, outputs={"dogs_scan": out["dogs_scan"]})
    split = outputs_in(tmp_path, hamming="hamming.csv", labels="labels.npz")
    run(msrc, "compute-split", tiny, 3, inputs=out, outputs=split, wildcards={"split": 0})
    frame = pd.read_csv(split["hamming"])
    assert list(frame.columns) == ["image", "method", "region", "hamming_error"] and len(frame) == 2 * 3 * 2
    claims = tmp_path / "claims.json"
    run(msrc, "summarise", tiny, 3, inputs={"hamming": [split["hamming"]], "dogs_scan": out["dogs_scan"]},
        outputs={"summary": tmp_path / "summary.csv", "claims": claims}, smoke=True)
    assert "msrc_dogs_length" in json.loads(claims.read_text())["claims"]
