"""The MSRC v1 image database read straight from its zip, every member checked against the manifest.

MSRC v1 (Microsoft Research Cambridge Object Recognition Image Database, version 1; Winn, Criminisi &
Minka 2005) has 240 photographs ``<group>_<n>_s.bmp`` (groups 1-8, n = 1-30) with pixel-wise label
images ``<group>_<n>_s_GT.bmp``; 214 are 320 x 213 (width x height) and 26 are portrait (213 x 320).
Label colours (the database's own table):

- the nine classes of DoGS §5.5 and Verbeek & Triggs (2007): building (128,0,0), grass (0,128,0),
  tree (128,128,0), cow (0,0,128), sky (128,128,128), aeroplane (192,0,0), face (192,128,0),
  car (64,0,128), bicycle (192,0,128);
- void (0,0,0): unlabelled pixels, mostly along object boundaries;
- four rare colours, horse (128,0,128), sheep (0,128,128), mountain (64,0,0), water (64,128,0), in 3-8
  images each (the database's notes say there are too few to learn from): mapped to void here (our
  choice), so they neither train nor count in the error.

:class:`MSRCArchive` reads images as RGB (some BMPs carry a 4th byte that is not alpha; it is dropped),
maps label colours to class indices ``0..8`` (void = -1), and transposes the 26 portrait images (24 of
group 2, ``3_2`` and ``8_12``; rows and columns swapped, so the picture is mirrored about its diagonal) so that
every image is 320 wide and its patch grid 20 rows x 31 columns. The paper's one DoGS scan serves every test
image, so its images must share one grid too; it does not say how. Transposition keeps every patch's
neighbours (the MFAM's Potts graph is the same), only the position words see the swap. Every member read is checked against its
SHA-256 in ``MANIFEST.csv``; a mismatch or a missing member raises :class:`~dogs.data.DatasetMissingError`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dogs.data import DatasetMissingError

__all__ = ["CLASSES", "MSRCArchive", "MSRCImage", "VOID", "label_image"]

ARCHIVE = "MSRC_ObjCategImageDatabase_v1.zip"
MEMBER_FOLDER = "MSRC_ObjCategImageDatabase_v1"
CLASSES = ("building", "grass", "tree", "cow", "sky", "aeroplane", "face", "car", "bicycle")
VOID = -1
_COLOURS = {
    (128, 0, 0): 0, (0, 128, 0): 1, (128, 128, 0): 2, (0, 0, 128): 3, (128, 128, 128): 4,
    (192, 0, 0): 5, (192, 128, 0): 6, (64, 0, 128): 7, (192, 0, 128): 8,
    (0, 0, 0): VOID, (128, 0, 128): VOID, (0, 128, 128): VOID, (64, 0, 0): VOID, (64, 128, 0): VOID,
}


def label_image(rgb: np.ndarray) -> np.ndarray:
    """Class index of every pixel of a ground-truth colour image (void and rare classes -1); unknown colours raise."""
    code = (rgb[..., 0].astype(np.int64) << 16) | (rgb[..., 1].astype(np.int64) << 8) | rgb[..., 2]
    table = {(r << 16) | (g << 8) | b: k for (r, g, b), k in _COLOURS.items()}
    keys = np.array(sorted(table))
    values = np.array([table[k] for k in keys])
    position = np.searchsorted(keys, code)
    position = np.minimum(position, len(keys) - 1)
    if not np.all(keys[position] == code):
        bad = code[keys[position] != code][0]
        raise DatasetMissingError(f"label image holds the colour {(bad >> 16, (bad >> 8) & 255, bad & 255)}, "
                                  "which is not an MSRC v1 label colour")
    return values[position].astype(np.int8)


@dataclass(frozen=True)
class MSRCImage:
    """One image: ``rgb`` (H, W, 3) uint8 and ``labels`` (H, W) int8, landscape (``transposed`` if stored portrait)."""

    name: str
    rgb: np.ndarray
    labels: np.ndarray
    transposed: bool

    @property
    def group(self) -> int:
        return int(self.name.split("_")[0])


class MSRCArchive:
    """The zip and its manifest in a data-set folder (see :func:`dogs.data.require_dataset`)."""

    def __init__(self, folder):
        folder = Path(folder)
        self.path = folder / ARCHIVE
        with open(folder / "MANIFEST.csv", newline="") as handle:
            self.manifest = {row["file"]: row for row in csv.DictReader(handle)}
        self._zip = zipfile.ZipFile(self.path)

    def names(self) -> list[str]:
        """The 240 image names ``<group>_<n>`` in group, then number order."""
        names = [f[: -len("_s.bmp")] for f, row in self.manifest.items() if row["kind"] == "image"]
        return sorted(names, key=lambda n: tuple(int(x) for x in n.split("_")))

    def _member(self, file: str) -> bytes:
        if file not in self.manifest:
            raise DatasetMissingError(f"{file} is not in the MSRC manifest")
        try:
            data = self._zip.read(f"{MEMBER_FOLDER}/{file}")
        except KeyError:
            raise DatasetMissingError(f"{self.path} has no member {file}") from None
        if hashlib.sha256(data).hexdigest() != self.manifest[file]["sha256"]:
            raise DatasetMissingError(f"{self.path}: member {file} does not match its SHA-256 in MANIFEST.csv")
        return data

    def read(self, name: str) -> MSRCImage:
        from PIL import Image

        rgb = np.asarray(Image.open(io.BytesIO(self._member(f"{name}_s.bmp"))).convert("RGB"))
        gt = np.asarray(Image.open(io.BytesIO(self._member(f"{name}_s_GT.bmp"))).convert("RGB"))
        if rgb.shape != gt.shape:
            raise DatasetMissingError(f"{name}: image {rgb.shape} and labels {gt.shape} differ in size")
        labels = label_image(gt)
        transposed = rgb.shape[0] > rgb.shape[1]
        if transposed:
            rgb, labels = np.ascontiguousarray(rgb.transpose(1, 0, 2)), np.ascontiguousarray(labels.T)
        return MSRCImage(name, rgb, labels, transposed)
