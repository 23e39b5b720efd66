r"""Certified bias bounds for Gibbs estimates of single marginals (DoGS Theorem 8 with :math:`d = e_i`).

Let :math:`\bar C` bound the Dobrushin influence matrix entrywise (DoGS Definition 6, Theorems 10-11:
:func:`dogs.bounds.influence_bound`) and :math:`q_1, \dots, q_T` be a scan. With
:math:`B(q) = I - \operatorname{diag}(q)(I - \bar C)` and :math:`M = B(q_T) \cdots B(q_1)` (one pass
of the scan), DoGS Theorem 8 with :math:`d = e_i` (for which the :math:`d`-weighted total variation of
Definition 4 is the total variation of variable :math:`i`'s marginal) says, for **any** starting
distribution :math:`\mu_0`,

.. math::

    \| \mu_k^{(i)} - \pi^{(i)} \|_{TV} \le \mathcal V_k(i) = e_i^\top M^k \mathbf 1 ,

where :math:`\mu_k^{(i)}` is the marginal of :math:`X_i` in the state after :math:`k` passes (the scan
repeated :math:`k` times is a scan of :math:`kT` steps, whose variation is :math:`e_i^\top M^k
\mathbf 1`). A total variation never exceeds 1, so :math:`\min(1, \mathcal V_k(i))` bounds it too, and
a variation :math:`\ge 1` certifies nothing (*vacuous*).

Averages of recorded draws. The estimate of :math:`P(X_i = a)` from draws after passes
:math:`k = 1, \dots, K` of a chain is :math:`\hat p = \frac1K \sum_k \mathbb 1[X_i^{(k)} = a]`, whose
bias is

.. math::

    |E \hat p - \pi_i(a)| = \Big|\frac1K \sum_k \big(\mu_k^{(i)}(a) - \pi_i(a)\big)\Big|
    \le \frac1K \sum_{k=1}^K \| \mu_k^{(i)} - \pi^{(i)} \|_{TV}
    \le \frac1K \sum_{k=1}^K \min\big(1, \mathcal V_k(i)\big),

since :math:`|\mu(A) - \pi(A)| \le \|\mu - \pi\|_{TV}` for every event :math:`A`. Each chain may start
anywhere (the bound holds for any start, so for random or adversarial starts alike), and the estimate
pooled over chains is an average of per-chain estimates, with the same bound. The bound says nothing
about the Monte Carlo error (the standard error), only about the bias.

Warm-up. Draws after ``w`` passes run and discarded (the ``warmup`` of :func:`dogs.sampling_call.sample`) are the
draws after passes :math:`w + 1, \dots, w + K`; their average's bias is bounded by the same sum over
:math:`k = w + 1, \dots, w + K`, divided by ``K``. The terms shrink with ``k`` (below), so a warm-up never loosens
the bound.

Because Theorem 8 holds from *any* start, the state after ``k`` passes is also ``j <= k`` passes after
the start :math:`\mu_{k-j}`, so :math:`\| \mu_k^{(i)} - \pi^{(i)} \|_{TV} \le \mathcal V_j(i)` for every
``j <= k``, and the reported bound on the bias of the average is

.. math::

    \frac1K \sum_{k=1}^K \min\big(1, \min_{j \le k} \mathcal V_j(i)\big)
    \;\le\; \min\Big(\mathcal V_1(i),\ \frac1K \sum_{k=1}^K \min\big(1, \mathcal V_k(i)\big)\Big).

Where Dobrushin's condition fails :math:`\mathcal V_k(i)` can grow with ``k``; the running minimum keeps
the average bound from loosening as more draws are recorded (it is never above the one-pass bound).

Cost: one forward pass of :math:`b \leftarrow B(q_t) b` per pass of the scan, :math:`O(K (p + T m))`
for a deterministic scan with Markov blankets of size :math:`m` (the kernel of
:mod:`dogs.scans.variation`), giving every variable's bound at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs._kernels.variation import variation_curve
from dogs.scans.base import Scan
from dogs.scans.checks import as_influence, as_scan

__all__ = ["MarginalCertificate", "marginal_certificate"]


@dataclass(frozen=True, eq=False)
class MarginalCertificate:
    """Theorem 8 bounds for every variable of a model (module docstring).

    Attributes
    ----------
    variation : (p,) float array
        :math:`\\mathcal V_1(i)`, the Dobrushin variation of one pass with :math:`d = e_i` (may be >= 1).
    average : (p,) float array
        :math:`\\frac1K \\sum_{w < k \\le w + K} \\min(1, \\min_{j \\le k} \\mathcal V_j(i))`: the bound on the bias
        of the average of the draws after passes ``w + 1..w + K`` (module docstring; never above ``variation``).
    passes : int
        ``K``.
    warmup : int
        ``w``, the passes run before the first recorded draw.
    max_row_sum : float
        Largest row sum of :math:`\\bar C` (Dobrushin's condition holds when it is below 1).
    """

    variation: np.ndarray
    average: np.ndarray
    passes: int
    max_row_sum: float
    warmup: int = 0

    def bound(self, i: int) -> float | None:
        """The one-pass bound of variable ``i``, or ``None`` when it is vacuous (>= 1)."""
        value = float(self.variation[i])
        return value if value < 1.0 else None

    def average_bound(self, i: int) -> float | None:
        """The bound on the bias of the average over the ``passes`` draws, or ``None`` when it is >= 1."""
        value = float(self.average[i])
        return value if value < 1.0 else None

    def reason(self, i: int) -> str | None:
        """Why the one-pass bound of variable ``i`` is vacuous (``None`` when it is not)."""
        value = float(self.variation[i])
        if value < 1.0:
            return None
        why = (f"Dobrushin's condition fails (the influence bound's largest row sum is {self.max_row_sum:.3g})"
               if self.max_row_sum >= 1 else "the scan does not update the variable's neighbourhood often enough")
        return f"variation {value:.3g} >= 1 after one pass certifies nothing: {why}"


def marginal_certificate(scan: Scan, influence, passes: int = 1, warmup: int = 0) -> MarginalCertificate:
    r"""Theorem 8 bounds :math:`\mathcal V_1(i)` and the average bound over ``passes`` passes after ``warmup``
    discarded ones, for every ``i``.

    Parameters
    ----------
    scan : Scan
        One pass (deterministic steps and uniform ``-1`` steps alike).
    influence : (p, p) sparse matrix or array_like
        :math:`\bar C`, entrywise bound on the Dobrushin influence (non-negative, zero diagonal).
    passes : int, default 1
        ``K``, the number of recorded passes averaged.
    warmup : int, default 0
        ``w``, the passes run and discarded before the first recorded one.
    """
    scan = as_scan(scan)
    matrix = as_influence(influence, scan.n_vars)
    if isinstance(passes, bool) or not isinstance(passes, (int, np.integer)) or passes < 1:
        raise ValueError(f"passes must be a positive integer, got {passes!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, (int, np.integer)) or warmup < 0:
        raise ValueError(f"warmup must be a non-negative integer, got {warmup!r}")
    n = scan.n_vars
    b = np.ones(n)
    weights = np.zeros(n)
    stop = np.array([scan.length], dtype=np.int64)
    steps = np.ascontiguousarray(scan.indices)
    total = np.zeros(n)
    best = np.ones(n)  # min(1, V_1(i), ..., V_k(i)) after pass k
    first = None
    for k in range(int(warmup) + int(passes)):
        variation_curve(matrix.indptr, matrix.indices, matrix.data, steps, weights, stop, b)
        if first is None:
            first = b.copy()
        np.minimum(best, b, out=best)
        if k >= warmup:
            total += best
        if not np.any(best):  # every later term is 0
            break
    rows = np.repeat(np.arange(n), np.diff(np.asarray(matrix.indptr, dtype=np.int64)))
    row_sums = np.bincount(rows, weights=matrix.data, minlength=n)
    return MarginalCertificate(variation=first, average=total / int(passes), passes=int(passes),
                               max_row_sum=float(row_sums.max(initial=0.0)), warmup=int(warmup))
