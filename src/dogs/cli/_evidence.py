"""``--evidence FILE`` of the ``dogs`` command: a UAI evidence file, checked against the model before any work.

The file format and the conditioning are the library's (:mod:`dogs.models.evidence`): one line ``n`` then
``n`` pairs ``variable value`` (0-based), or the older ``1 n ...`` form with a sample count of one. Results
keep the model's own variable indices; observed variables are left out of the reported marginals and listed
under ``evidence``.
"""

from __future__ import annotations

from dogs.cli._checks import InputError, readable_file

__all__ = ["conditioned_model", "load_evidence"]


def load_evidence(path: str | None, model) -> dict:
    """``{variable: label}`` from the evidence file ``path`` (empty without one), checked against ``model``."""
    from dogs.models.evidence import EvidenceError, check_evidence, read_uai_evidence

    if path is None:
        return {}
    file = readable_file(path, "evidence file")
    try:
        evidence = check_evidence(model, read_uai_evidence(file, model.n_vars))
    except EvidenceError as exc:
        message = str(exc)
        raise InputError(message if message.startswith("evidence file") else f"evidence file {path}: {message}") from None
    if len(evidence) == model.n_vars:
        raise InputError(f"evidence file {path} fixes all {model.n_vars} variables: nothing is left to infer")
    return evidence


def conditioned_model(path: str | None, model):
    """``(model given the evidence, ConditionedModel or None)``; without evidence the model itself."""
    from dogs.models.evidence import condition

    evidence = load_evidence(path, model)
    if not evidence:
        return model, None
    conditioned = condition(model, evidence)
    return conditioned.model, conditioned
