"""Scans, Dobrushin variation and DoGS scan optimisation (DoGS §§3-4)."""

from dogs.scans.base import (
    SCAN_NAMES,
    UNIFORM,
    Scan,
    explicit_scan,
    make_scan,
    paper_systematic_scan,
    systematic_scan,
    systematic_scan_ending_on,
    uniform_scan,
)
from dogs.scans.dogs import (
    DoGSResult,
    UnvisitedVariablesWarning,
    IteratedDoGSResult,
    LengthDoublingResult,
    dogs_scan,
    iterated_dogs,
    length_doubling_dogs,
)
from dogs.scans.variation import dobrushin_variation, dobrushin_variation_curve, uniform_variation_curve

__all__ = [
    "SCAN_NAMES",
    "UNIFORM",
    "Scan",
    "explicit_scan",
    "make_scan",
    "systematic_scan",
    "paper_systematic_scan",
    "systematic_scan_ending_on",
    "uniform_scan",
    "dobrushin_variation",
    "dobrushin_variation_curve",
    "uniform_variation_curve",
    "dogs_scan",
    "iterated_dogs",
    "length_doubling_dogs",
    "DoGSResult",
    "UnvisitedVariablesWarning",
    "IteratedDoGSResult",
    "LengthDoublingResult",
]
