"""Scans, Dobrushin variation and DoGS scan optimisation (DoGS §§3-4)."""

from dogs.scans.base import SCAN_NAMES, UNIFORM, Scan, explicit_scan, make_scan, systematic_scan, uniform_scan

__all__ = ["SCAN_NAMES", "UNIFORM", "Scan", "explicit_scan", "make_scan", "systematic_scan", "uniform_scan"]
