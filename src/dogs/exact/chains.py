r"""Exact Gibbs-sampler chains on small discrete state spaces: kernels, evolution, mixing times, weighted TV.

A discrete distribution is given by unnormalised natural-log weights
:math:`L(x)` over the product space :math:`\mathcal{X} = \prod_i \{0, \dots, K_i - 1\}`
(``cardinalities = (K_0, ..., K_{p-1})``), states enumerated in C order (the
last variable fastest), :math:`\pi(x) \propto e^{L(x)}`; ``L(x) = -inf`` marks a
state of probability zero. For distributions whose support is a tiny part of the
product space, every function also accepts ``states=``: the (distinct) states
that carry the listed log weights, all other states having weight zero. Moves of
a Gibbs sampler never leave the support, so the chain restricted to it is exact.

Single-site Gibbs kernel of variable :math:`i` (He et al. 2016, §5: :math:`P_i`)

.. math::

    P_i(x, y) = \mathbb{1}[x_{-i} = y_{-i}]\,
                \frac{\pi(y)}{\sum_{a} \pi(x_{-i}, X_i = a)} ,

a sparse row-stochastic matrix that leaves :math:`\pi` invariant. The random
scan kernel is :math:`P = \sum_i q_i P_i` (:math:`q_i = 1/p` for the uniform
scan); a systematic scan with permutation :math:`\alpha` is the
time-inhomogeneous chain :math:`P_{\alpha_1} P_{\alpha_2} \cdots` repeated
sweep after sweep. Distributions are row vectors and evolve as
:math:`\mu \mapsto \mu P_i`.

Mixing time (He et al. 2016, §3; Levin, Peres & Wilmer p. 55), time counted
in single-variable updates,

.. math::

    t_{\mathrm{mix}}(\epsilon) = \min\{t : \max_{x_0} \|\delta_{x_0} P^{(t)} - \pi\|_{TV} \le \epsilon\},

the maximum over starting distributions being attained at point masses (TV is
convex). Every kernel used here leaves :math:`\pi` invariant, so each start's
distance :math:`\|\delta_{x_0} P^{(t)} - \pi\|_{TV}` is non-increasing in
:math:`t` (a :math:`\pi`-invariant kernel is a TV contraction towards
:math:`\pi`); the algorithms below rely on this to stop a start as soon as it
is within :math:`\epsilon`, and to find :math:`t_{\mathrm{mix}}` by repeated
squaring and bisection on whole sweeps.

Chains whose :math:`\pi` sits mostly on one state (the He et al. counterexamples with a large
:math:`M`) can be bracketed without following every start: :func:`top_state_mixing_bracket` needs
one backward recursion :math:`h_t(x) = P^{(t)}(x, top)` for all starts at once, O(sweep length x N)
memory instead of the N x N of every start's distribution.

Weighted total variation (DoGS Definition 4),
:math:`\|\mu - \nu\|_{d,TV} = \sup_f |E_\mu f - E_\nu f|` over :math:`f` with
:math:`|f(x) - f(y)| \le \sum_i d_i \mathbb{1}[x_i \ne y_i]`, is computed
exactly as a linear program in :func:`weighted_tv`.

This module is the front of four: :mod:`~dogs.exact.transitions` (state spaces, kernels, evolution),
:mod:`~dogs.exact.mixing` (TV curves, mixing times, brackets), :mod:`~dogs.exact.distances` (TV, weighted TV) and
:mod:`~dogs.exact.chain_checks` (the argument checks they share); every public name is importable from here.
"""

from dogs.exact.chain_checks import MAX_STATES
from dogs.exact.distances import tv_distance, weighted_tv
from dogs.exact.mixing import (DENSE_LIMIT, MixingBracket, MixingTimeNotReached, mixing_time, systematic_mixing_times,
                               top_state_mixing_bracket, worst_case_tv_curve)
from dogs.exact.transitions import (evolve, random_scan_kernel, site_kernel, site_kernels, state_index, state_space,
                                    stationary_distribution, unique_rows)

__all__ = [
    "MAX_STATES",
    "DENSE_LIMIT",
    "MixingTimeNotReached",
    "state_space",
    "state_index",
    "unique_rows",
    "stationary_distribution",
    "site_kernel",
    "site_kernels",
    "random_scan_kernel",
    "evolve",
    "tv_distance",
    "worst_case_tv_curve",
    "mixing_time",
    "systematic_mixing_times",
    "MixingBracket",
    "top_state_mixing_bracket",
    "weighted_tv",
]
