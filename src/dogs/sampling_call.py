r"""One sampling call: a model and a scan in, ArviZ data out (DoGS Algorithm 1, several chains).

:func:`sample` runs ``chains`` Gibbs chains, each from its own start (by default labels drawn uniformly
at random, so the chains start dispersed; for a factor graph, random states of positive probability),
through the scan ``warmup`` times, discarded, then ``draws`` times more; the state after each of those passes is one
draw. Each pass is a Gibbs kernel that
leaves the model's distribution invariant, so every chain is a Markov chain on the model. Every pass of
every chain runs inside one kernel call per chunk of passes, the draws written by the kernel itself
(:mod:`dogs.samplers.draws`: :func:`~dogs.samplers.gibbs.run_gibbs_draws` for ±1 models,
:func:`~dogs.samplers.discrete_gibbs.run_discrete_gibbs_draws` for discrete pairwise ones,
:func:`~dogs.samplers.factor_gibbs.run_factor_gibbs_draws` for factor graphs); each chain has one random
stream through all its passes. The draws are the posterior group of the installed ArviZ's data
(``arviz.InferenceData`` with ArviZ 0.2x, ``xarray.DataTree`` with 1.x; :mod:`dogs.arviz_interop`): the
variable ``label`` with dimensions ``(chain, draw, node)``, states as labels ``0 .. K_i - 1`` (for a ±1
model label 0 is the spin -1), coordinates ``node`` = the model's own indices. ArviZ comes with the
``arviz`` extra (:mod:`dogs.extras`); without it :func:`sample` stops before any chain runs.

Warm-up (``warmup``, default 0): the starts are not draws of the model (dispersed labels, or a forward sample that
ignores the evidence), and the first passes remember them, a bias the standard errors do not measure. ``warmup=w``
runs ``w`` passes of every chain and discards them before the first draw (``warmup=draws`` discards the first half
of each chain, the rule of Gelman et al., *Bayesian Data Analysis*, 3rd ed., 2013, §11.4). It runs in its own
kernel calls, recording nothing, with its own random streams (spawned from the chains' root), so ``warmup=0`` gives
the draws of a call without it. The default records every pass: on the Bayesian-network scoreboard
(:mod:`dogs.benchmarks.networks`, a fixed time budget) discarding half of each chain cost more coverage than it
gained, since fewer kept draws leave more rare states unseen (docs/performance.md).

Blocks (factor graphs, ``blocks="auto"``): variables tied by zero entries are updated jointly, a step on any
of them drawing the whole block from its exact conditional (:mod:`dogs.samplers.factor_blocks`), so that
deterministic relations (asia's ``either = tub or lung``) no longer make the chains reducible. With
``blocks="elimination"`` every step draws a block of up to the whole model exactly, by variable elimination
(:mod:`dogs.samplers.elimination_blocks`, the blocking Gibbs sampler of Jensen, Kong & Kjaerulff 1995): the remedy
for near-deterministic networks, on which single-site chains agree on wrong answers. ``"auto"`` takes those
elimination blocks where the enumerated blocks leave some factor with a zero entry split between blocks
(:func:`~dogs.samplers.factor_blocks.automatic_blocks`). With blocks, a pass leaves out the draws that a later
step overwrites before anything reads them (:mod:`dogs.samplers.block_scans`): the same kernel per pass, fewer
block draws when a scan chosen variable by variable (DoGS's) steps on a block's variables again and again.

Evidence (:mod:`dogs.models.evidence`): the chains run on the conditioned model; the observed
variables are left out of the draws (they never change) and listed in the attribute ``evidence``; the
reported variables keep their original indices. A scan given as indices is in original indices too:
its steps on observed variables are skipped (updating an observed variable leaves it unchanged) and a
``-1`` step picks one of the unobserved variables uniformly; a named scan is built over the
unobserved variables.

Certificate (``certify=True``, :mod:`dogs.certificates`): for every reported variable ``i``, DoGS
Theorem 8 with :math:`d = e_i` bounds the total-variation distance between the marginal of
:math:`X_i` after one pass and its stationary (conditional) marginal, from any start; the attribute
``certificate`` (JSON) holds that bound, and the bound on the bias of the average over all recorded
draws, :math:`\frac1K \sum_{w < k \le w + K} \min(1, \mathcal V_k(i))` after a warm-up of ``w`` passes, or ``null``
with the reason where the bound is vacuous (:math:`\ge 1`).

:func:`marginals` turns the draws into estimates of every :math:`P(X_i = k)`: the mean of the
indicator draws :math:`1[X_i = k]`, ArviZ's rank-normalised split :math:`\hat R` and bulk and tail
effective sample sizes (Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021), and the standard error of the
mean: the larger of ArviZ's Monte Carlo standard error (``arviz.mcse``: the draws' standard deviation over the
square root of their effective sample size) and the chains' means' standard deviation over the square root of
their number (:func:`chains_standard_error`), or, where every draw is independent and exact, the binomial
:math:`\sqrt{\hat p (1 - \hat p) / n}`. A marginal with :math:`\hat R > 1.01` (:data:`RHAT_THRESHOLD`) or whose
indicator never changed is not ``converged``. Each estimate gets an interval, ``lower`` to ``upper``: the
probabilities within three standard errors of it, the standard error taken at the probability itself
(:func:`score_interval`, Wilson's score interval), and for a state never drawn (or always) the bound of
:func:`unseen_bound`.

Warnings (:class:`SamplingWarning`, through :mod:`warnings`): when a certificate is vacuous for some
variable, and when some marginal has not converged (split R-hat from the label counts in closed form,
:mod:`dogs.convergence`, equal to ArviZ's; with one chain it is undefined, and the warning says that
convergence was not checked). A progress bar (tqdm, on standard error) appears
on runs longer than two seconds when standard error is a terminal, and a one-line notice says so when
the Gibbs kernels are compiled for the first time (numba's on-disk cache holds no compiled kernel yet;
compilation takes seconds, once per version of the kernels).
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np

from dogs.arviz_interop import import_arviz, indicator_diagnostics, posterior_draws, to_arviz
from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.discrete import DiscretePairwiseMRF, cardinalities
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.evidence import condition
from dogs.resources import TooLargeError, format_bytes, memory_limit_bytes
from dogs.samplers.block_scans import without_overwritten_draws
from dogs.samplers.elimination_blocks import EliminationBlocks, elimination_blocks
from dogs.scans.base import SCAN_NAMES, UNIFORM, Scan, make_scan

__all__ = ["RHAT_THRESHOLD", "UNSEEN_LEVEL", "SamplingWarning", "boundary_unseen_bound", "chains_standard_error",
           "check_sampling_memory", "conditioned_positive_starts", "diagnose", "import_arviz", "marginals",
           "once_per_block", "sample", "sampling_memory_bytes", "sampling_warnings", "scan_given_evidence",
           "scan_in_original", "score_interval", "unseen_bound"]

#: Largest split R-hat taken as converged (Vehtari et al. 2021).
RHAT_THRESHOLD = 1.01
#: Probability that a state of probability above :func:`unseen_bound` goes unseen in independent draws: the two-sided
#: tail beyond three standard deviations of a normal, so that the bound matches the 3-standard-error intervals.
UNSEEN_LEVEL = math.erfc(3.0 / math.sqrt(2.0))
#: Standard errors on each side of an estimate in the intervals of :func:`marginals` (the level of
#: :data:`UNSEEN_LEVEL`).
INTERVAL_STANDARD_ERRORS = 3.0
#: Seconds a run lasts before its progress bar appears.
PROGRESS_DELAY_SECONDS = 2.0


class SamplingWarning(UserWarning):
    """A certificate that certifies nothing, or chains that have not converged."""


def diagnose(indicators: np.ndarray) -> dict[str, np.ndarray]:
    """ArviZ diagnostics of indicator draws ``(chains, draws, marginals)``: mean, mcse, r_hat, ess_bulk, ess_tail,
    and ``std_error``, the larger of ``mcse`` and :func:`chains_standard_error` (the standard error reported).

    Marginals whose draws are all equal get NaN for everything but the mean; with one chain R-hat is NaN (it
    compares chains) and ``std_error`` is ``mcse``.
    """
    values = np.asarray(indicators, dtype=np.float64)
    out = {"mean": values.mean(axis=(0, 1)), **indicator_diagnostics(values)}
    out["std_error"] = np.fmax(out["mcse"], chains_standard_error(values))
    constant = values.min(axis=(0, 1)) == values.max(axis=(0, 1))
    for key in ("r_hat", "ess_bulk", "ess_tail", "mcse", "std_error"):
        out[key][constant] = np.nan
    return out


def chains_standard_error(draws: np.ndarray) -> np.ndarray:
    r"""The standard error of the mean of draws ``(chains, draws, k)`` read off the chains' own means,
    :math:`s_{\bar x} / \sqrt C`, with :math:`s_{\bar x}` the standard deviation of the :math:`C` chains' means (NaN
    with one chain).

    The chains start independently, so once each chain's mean is close to normal this estimates the variance of
    the overall mean without estimating any autocorrelation: nothing is truncated, and a chain's rare long
    excursion counts in full. ArviZ's ``mcse`` sums estimated autocorrelations up to where they turn noisy
    (Geyer's initial sequence), which on chains not much longer than their slowest excursions leaves part of the
    sum out, and the standard error too small. With :math:`C - 1` degrees of freedom (7 for 8 chains) the chains'
    estimate alone is too noisy to report; :func:`marginals` reports the larger of the two. How each compares with
    the spread of independent runs is measured by :mod:`dogs.benchmarks.standard_errors`."""
    draws = np.asarray(draws, dtype=np.float64)
    chains = draws.shape[0]
    if chains < 2:
        return np.full(draws.shape[2:], np.nan)
    return draws.mean(axis=1).std(axis=0, ddof=1) / math.sqrt(chains)


def _whole(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _scan_for(scan, length, conditioned) -> Scan:
    """The scan over the reduced model's variables (see the module docstring)."""
    m = conditioned.model.n_vars
    if isinstance(scan, str):
        if scan not in SCAN_NAMES:
            raise ValueError(f"unknown scan {scan!r}; give one of {', '.join(SCAN_NAMES)}, a Scan or indices")
        steps = m if length is None else _whole(length, "length", 1)
        return make_scan(scan, m, steps)
    if length is not None:
        raise ValueError("length sets the length of a named scan; a Scan or index sequence has its own")
    return scan_given_evidence(scan, conditioned)


def once_per_block(scan: Scan, blocks) -> Scan:
    """``scan`` without its steps on a block's variables other than the block's first (lowest) one: a systematic
    sweep then draws each block once, as one unit, instead of once per variable in it (each such draw is from the
    same kind of joint conditional, so the repeats cost the block's whole enumeration again and again). Any scan of
    Gibbs updates leaves the distribution invariant, so this changes the cost of a sweep, not what is sampled."""
    skipped = np.zeros(scan.n_vars, dtype=bool)
    for block in blocks:
        skipped[np.sort(np.asarray(block))[1:]] = True
    indices = np.asarray(scan.indices, dtype=np.int64)
    return Scan(indices[(indices < 0) | ~skipped[np.maximum(indices, 0)]], scan.n_vars)


def scan_given_evidence(scan, conditioned) -> Scan:
    """A scan in the original numbering (a :class:`Scan` or indices) as a scan of ``conditioned.model``.

    Steps on observed variables are dropped (an update of an observed variable leaves it unchanged); a
    ``-1`` step stays a uniform step, now over the unobserved variables. :func:`scan_in_original` goes back.
    """
    m = conditioned.model.n_vars
    if isinstance(scan, Scan):
        if scan.n_vars != conditioned.n_vars:
            raise ValueError(f"the scan is over {scan.n_vars} variables, the model has {conditioned.n_vars}")
        indices = np.asarray(scan.indices, dtype=np.int64)
    else:
        indices = np.asarray(Scan(np.asarray(scan), conditioned.n_vars).indices, dtype=np.int64)
    reduced_index = np.full(conditioned.n_vars, -2, dtype=np.int64)
    reduced_index[conditioned.free] = np.arange(m)
    mapped = np.where(indices == UNIFORM, UNIFORM, reduced_index[np.maximum(indices, 0)])
    mapped = mapped[mapped != -2]
    if mapped.size == 0:
        raise ValueError("the scan updates no unobserved variable: every step is on an observed one")
    return Scan(mapped, m)


def scan_in_original(scan: Scan, conditioned) -> np.ndarray:
    """The indices of a scan of ``conditioned.model`` in the original numbering (``-1`` stays ``-1``)."""
    indices = np.asarray(scan.indices, dtype=np.int64)
    return np.where(indices == UNIFORM, UNIFORM, conditioned.free[np.maximum(indices, 0)])


def _starts(start, cards: np.ndarray, chains: int, conditioned, rng, model) -> np.ndarray:
    """Starting labels ``(chains, m)`` of the reduced model; a factor graph's dispersed starts are random states of
    positive probability (:func:`dogs.samplers.factor_gibbs.positive_starts`)."""
    if isinstance(start, str):
        if start != "dispersed":
            raise ValueError(f"start must be 'dispersed', a label or an array of labels, got {start!r}")
        if isinstance(conditioned.model, DiscreteFactorGraph):
            return conditioned_positive_starts(model, conditioned, chains, rng)
        same = cards.size and cards.min() == cards.max()  # one scalar bound: numpy draws much faster than per entry
        dtype = np.int8 if cards.max(initial=2) <= 127 else np.int32
        return rng.integers(0, int(cards[0]) if same else cards, size=(chains, cards.size), dtype=dtype)
    if isinstance(start, (int, np.integer)) and not isinstance(start, bool):
        if not 0 <= start < int(cards.min()):
            raise ValueError(f"start label must lie in 0..{int(cards.min()) - 1} (a label every variable has), "
                             f"got {start}")
        return np.full((chains, cards.size), int(start), dtype=np.int8 if cards.max(initial=2) <= 127 else np.int32)
    labels = np.asarray(start)
    if labels.ndim == 1:
        labels = np.broadcast_to(labels, (chains, labels.size))
    if labels.shape != (chains, conditioned.n_vars) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"start must be integer labels of shape ({conditioned.n_vars},) or ({chains}, "
                         f"{conditioned.n_vars}), got shape {labels.shape} of {labels.dtype}")
    labels = labels[:, conditioned.free].astype(np.int32)
    if np.any(labels < 0) or np.any(labels >= cards):
        raise ValueError("start holds a label outside 0..K_i - 1")
    return labels


def conditioned_positive_starts(model, conditioned, chains: int, rng) -> np.ndarray:
    """Random starts of positive probability of a conditioned factor graph, assigned in the topological order of
    the original network when it is a Bayesian network (forward sampling, evidence aside), and if that search
    exhausts its cap, by maximum cardinality search on the conditioned model's blankets."""
    from dogs.samplers.factor_gibbs import NoPositiveStartError, assignment_order, positive_starts

    if isinstance(model, DiscreteFactorGraph) and model.kind == "BAYES":
        reduced_index = np.full(conditioned.n_vars, -1, dtype=np.int64)
        reduced_index[conditioned.free] = np.arange(conditioned.free.size)
        order = reduced_index[assignment_order(model)]
        try:
            return positive_starts(conditioned.model, chains, rng, order=order[order >= 0])
        except NoPositiveStartError:
            pass  # evidence far downstream: the search along the conditioned model's blankets may still find one
    return positive_starts(conditioned.model, chains, rng)


def _kernel_cache_empty(stem: str) -> bool:
    """True when numba's on-disk cache holds no compiled ``stem`` kernel (``module.function``; it will compile on
    first use)."""
    from numba.core import config

    folder = Path(config.CACHE_DIR or ".")
    try:
        return not any(folder.rglob(f"{stem}-*.nbi"))
    except OSError:
        return False


def _notice_compilation(model, scan, chains: int, draws: int, binary: bool) -> None:
    """One line on standard error before the kernel that will run is compiled for the first time."""
    import importlib

    from dogs.samplers.discrete_gibbs import discrete_draws_kernel
    from dogs.samplers.factor_gibbs import factor_draws_kernel
    from dogs.samplers.gibbs import draws_kernel

    if binary:
        module, name = draws_kernel(model, scan, chains, draws)
    elif isinstance(model, DiscreteFactorGraph):
        module, name = factor_draws_kernel(scan, chains, draws)
    else:
        module, name = discrete_draws_kernel(scan, chains, draws)
    kernel = getattr(importlib.import_module(f"dogs._kernels.{module}"), name)
    if not kernel.signatures and _kernel_cache_empty(f"{module}.{name}"):
        print("dogs: compiling the Gibbs sampling kernels (first run of this version; about 10-20 s, cached "
              "afterwards)", file=sys.stderr, flush=True)


def sample(model, scan="systematic", *, length=None, chains: int = 4, draws: int = 250, seed=0,
           start="dispersed", evidence=None, certify: bool = False, variables=None, influence=None,
           progress: bool | None = None, blocks="auto", warmup: int = 0):
    r"""Gibbs draws of ``model`` from ``chains`` chains through ``scan``, as ArviZ data.

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
    scan : "systematic", "uniform", Scan or sequence of int
        A named scan of ``length`` steps over the unobserved variables (default: one sweep, as many steps as
        unobserved variables; ``systematic`` is :func:`dogs.scans.make_scan`'s), or the indices of one pass
        (``-1`` = a uniformly chosen variable), in the model's numbering, whose steps on observed variables are
        skipped.
    length : int, optional
        Steps of a named scan, counted over the unobserved variables: with evidence, ``length`` steps update
        unobserved variables whatever the scan (the ``dogs sample`` command means the same).
    chains, draws : int
        Number of chains (>= 1) and of recorded passes per chain (>= 4, for split R-hat).
    seed : int or numpy.random.SeedSequence
        Same seed, same draws: ``SeedSequence(seed).spawn(2)`` gives the starts' stream and the root of the
        chains' streams (one per chain, :func:`dogs.samplers.chain_seeds`), each running through all recorded
        passes; with a warm-up, that root's ``spawn(2)`` gives the warm-up's root and the recorded passes' root.
    start : "dispersed", int, or array of labels
        ``dispersed``: every chain from labels drawn uniformly (a factor graph: a random state of positive
        probability, :func:`dogs.samplers.factor_gibbs.positive_starts`); an int: that label everywhere; an array
        ``(p,)`` or ``(chains, p)`` of labels (observed entries are ignored). A factor graph's starts must have
        positive probability.
    evidence : dict, optional
        ``{variable: label}``: sample the conditional distribution given it (module docstring).
    certify : bool
        Add the Theorem 8 certificate of every reported variable (module docstring, :mod:`dogs.certificates`).
    variables : sequence of int, optional
        Record these variables only (original indices, unobserved); default all unobserved.
    influence : sparse matrix, optional
        :math:`\bar C` of the conditioned model for the certificate (default
        :func:`dogs.bounds.influence_bound` with ``auto``: Theorem 11 for ±1 models, 10 otherwise), checked by
        :func:`dogs.bounds.check_influence_bound` (shape, entries in ``[0, 1]``, the model's edges).
    progress : bool, optional
        Show a progress bar (default: when standard error is a terminal; it appears after two seconds).
    blocks : "auto", "elimination", None or sequence of sequences of int
        Factor graphs only: blocks of variables, each drawn jointly from its exact conditional whenever the scan
        steps on one of its variables (:mod:`dogs.samplers.factor_blocks`; a remedy for reducible single-site
        Gibbs); the ``systematic`` scan then steps on each block once per sweep, at its first variable
        (:func:`once_per_block`), so ``scan_length`` counts units, not variables; any scan then leaves out the
        draws a later step overwrites before they are read (:mod:`dogs.samplers.block_scans`, the same kernel per
        pass). ``auto`` (default): the variables tied by zero entries, within
        :data:`~dogs.samplers.factor_blocks.MAX_BLOCK_CONFIGURATIONS` candidate configurations per block (its
        internal support, :func:`~dogs.samplers.factor_blocks.deterministic_blocks`), or, where those blocks leave a
        factor with a zero entry split, the ``"elimination"`` blocks
        (:func:`~dogs.samplers.factor_blocks.automatic_blocks`); none with ``certify`` (the certificate bounds
        single-site updates); ``"elimination"``: blocks of up to the whole model, each the model minus a
        cutset, drawn exactly by variable elimination (:func:`~dogs.samplers.elimination_blocks.elimination_blocks`;
        where the whole model fits, every sweep is an independent exact draw), a step on a variable drawing its
        home block; ``None``: single-site updates only; a sequence: these disjoint blocks, in the model's numbering
        (observed variables are left out of them). The blocks used (for ``"elimination"``, their homes) are in the
        attribute ``blocks`` (JSON, original indices), and how they were drawn in ``block_update``
        (``"enumeration"``, ``"elimination"`` or ``"none"``).
    warmup : int, default 0
        Passes of every chain run and discarded before the first draw (module docstring).

    Returns
    -------
    arviz.InferenceData (ArviZ 0.2x) or xarray.DataTree (ArviZ 1.x)
        ``posterior.label`` ``(chain, draw, node)``; attributes (``posterior.attrs``): ``n_vars``,
        ``scan_length`` (steps per pass, over the unobserved variables), ``warmup``, ``seed``, ``start``, ``binary``,
        ``block_update``, ``independent_draws`` (1 when an elimination block holds every unobserved variable, so
        that every pass is an independent exact draw), and JSON texts ``cardinalities`` (of the reported
        variables), ``evidence``, ``blocks``, ``draw_conditions`` (with elimination blocks: each block's boundary
        and the block that draws each variable last in a pass, for :func:`marginals`) and ``certificate``
        (``null`` unless ``certify``).

    Raises
    ------
    TypeError, ValueError
        Bad arguments, before any sampling.
    dogs.resources.TooLargeError
        When the draws and chain states would need more memory than :func:`dogs.resources.memory_limit_bytes`
        allows (:func:`sampling_memory_bytes`), before anything is allocated.

    Warns
    -----
    SamplingWarning
        Vacuous certificates (with ``certify``); marginals with split R-hat above :data:`RHAT_THRESHOLD` or
        undefined (one chain, or an indicator that never changed); none with ``independent_draws``, whose chains
        cannot fail to mix.

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> data = sample(grid_model(3, 3, 0.2), chains=2, draws=20, seed=0, progress=False)
    >>> data.posterior["label"].shape
    (2, 20, 9)
    """
    if not isinstance(model, (BinaryPairwiseMRF, DiscretePairwiseMRF, DiscreteFactorGraph)):
        raise TypeError("model must be a BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph, got "
                        f"{type(model).__name__}")
    import_arviz()  # the 'arviz' extra, before any chain runs
    chains = _whole(chains, "chains", 1)
    draws = _whole(draws, "draws", 4)
    conditioned = condition(model, evidence or {})
    reduced = conditioned.model
    binary = isinstance(reduced, BinaryPairwiseMRF)
    cards = cardinalities(reduced)
    one_pass = _scan_for(scan, length, conditioned)
    recorded = _recorded(variables, conditioned)
    check_sampling_memory(reduced.n_vars, chains, draws, cards[recorded])
    warmup = _whole(warmup, "warmup", 0)
    chosen_blocks = _blocks_for(blocks, conditioned, certify)
    block_lists = chosen_blocks.homes if isinstance(chosen_blocks, EliminationBlocks) else chosen_blocks
    if isinstance(scan, str) and scan == "systematic" and block_lists:
        one_pass = once_per_block(one_pass, block_lists)
    if block_lists:
        one_pass = without_overwritten_draws(one_pass, reduced, chosen_blocks)
    bound = None
    if certify:
        from dogs.bounds import check_influence_bound, influence_bound

        bound = influence_bound(reduced) if influence is None else check_influence_bound(influence, reduced)
    elif influence is not None:
        raise ValueError("influence is the bound of the certificate: give it with certify=True")
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    start_stream, chain_stream = root.spawn(2)
    state = _starts(start, cards, chains, conditioned, np.random.default_rng(start_stream), model)
    certificate = None
    if certify:
        from dogs.certificates import marginal_certificate

        certificate = marginal_certificate(one_pass, bound, passes=draws, warmup=warmup)
    _notice_compilation(reduced, one_pass, chains, warmup or draws, binary)  # the first kernel call's passes
    labels = _run(reduced, one_pass, state, chain_stream, recorded, draws, binary, progress, chosen_blocks, warmup)

    original = conditioned.free[recorded]
    conditions = _draw_conditions(chosen_blocks, reduced, one_pass, recorded, conditioned.free)
    attrs = {"n_vars": int(conditioned.n_vars), "scan_length": int(one_pass.length), "warmup": int(warmup),
             "seed": str(root.entropy), "start": str(start) if isinstance(start, (str, int)) else "array",
             "binary": int(binary), "cardinalities": json.dumps(cards[recorded].tolist()),
             "evidence": json.dumps({str(k): v for k, v in conditioned.evidence.items()}),
             "blocks": json.dumps([conditioned.free[b].tolist() for b in block_lists]),
             "block_update": ("elimination" if isinstance(chosen_blocks, EliminationBlocks) else
                              "enumeration" if block_lists else "none"),
             "factor_graph": int(isinstance(reduced, DiscreteFactorGraph)),
             "independent_draws": int(conditions is not None and all(
                 b >= 0 and not conditions["boundaries"][b] for b in conditions["last_block"])),
             "draw_conditions": json.dumps(conditions),
             "certificate": json.dumps(None if certificate is None else _certificate_json(certificate, recorded,
                                                                                          original))}
    data = to_arviz(labels, original, attrs)
    for message in sampling_warnings(data):
        warnings.warn(message, SamplingWarning, stacklevel=2)
    return data


def _draw_conditions(blocks, model, one_pass: Scan, recorded: np.ndarray, original: np.ndarray):
    """What the recorded draw of each variable is conditioned on, for elimination blocks (else ``None``).

    A pass draws a block's variables jointly from their exact conditional given the block's *boundary* (its
    neighbours outside it); the block that holds a variable and is drawn last in the pass sets its recorded value.
    Returns ``{"boundaries": [...], "last_block": [...]}``: each block's boundary (original indices) and, per
    recorded variable, the index of that last block (-1 where a pass need not draw one: no block holds it, or the
    pass has uniform steps, whose variables are random)."""
    if not isinstance(blocks, EliminationBlocks):
        return None
    steps = np.asarray(one_pass.indices, dtype=np.int64)
    home = np.full(model.n_vars, -1, dtype=np.int64)
    for b, variables in enumerate(blocks.homes):
        home[variables] = b
    last = np.full(model.n_vars, -1, dtype=np.int64)
    if not np.any(steps == UNIFORM):
        for v in steps.tolist():
            if home[v] >= 0:
                last[blocks.blocks[home[v]]] = home[v]
            else:  # a single-site update, given the variable's neighbours
                last[v] = -1
    boundaries = []
    for variables in blocks.blocks:
        inside = np.zeros(model.n_vars, dtype=bool)
        inside[variables] = True
        neighbours = np.concatenate([model.neighbors[model.indptr[v]:model.indptr[v + 1]] for v in variables])
        boundaries.append(original[np.unique(neighbours[~inside[neighbours]])].tolist())
    return {"boundaries": boundaries, "last_block": last[recorded].tolist()}


#: Bytes per chain and variable of the chain states: the start's labels, the chains' state and a lane layout.
_STATE_BYTES = 12
#: Bytes per half chain and marginal of the convergence check (:mod:`dogs.convergence`: counts and shares).
_COUNT_BYTES = 32


def sampling_memory_bytes(n_vars: int, chains: int, draws: int, recorded_cardinalities) -> float:
    """Generous estimate of the memory :func:`sample` allocates: the chain states of ``n_vars`` variables, the draws
    of the recorded variables (one byte per label below 128 states, else four) and their convergence check."""
    cards = np.asarray(recorded_cardinalities, dtype=np.int64)
    label_bytes = 1 if cards.size == 0 or cards.max() <= 127 else 4
    marginals = float(cards.sum())
    return (float(chains) * n_vars * _STATE_BYTES + float(chains) * draws * cards.size * label_bytes
            + 2.0 * chains * marginals * _COUNT_BYTES)


def check_sampling_memory(n_vars: int, chains: int, draws: int, recorded_cardinalities, limit: int | None = None):
    """Raise :class:`dogs.resources.TooLargeError` when :func:`sampling_memory_bytes` exceeds ``limit`` (default
    :func:`dogs.resources.memory_limit_bytes`), naming what to reduce; before anything is allocated."""
    need = sampling_memory_bytes(n_vars, chains, draws, recorded_cardinalities)
    limit = memory_limit_bytes() if limit is None else limit
    if need > limit:
        raise TooLargeError(f"chains={chains} x draws={draws} x {len(recorded_cardinalities)} recorded variables (and "
                            f"the states of {n_vars} variables per chain) need about {format_bytes(need)} of memory, "
                            f"more than the limit of {format_bytes(limit)}: record fewer variables (variables=), or "
                            "use fewer draws or chains")


def _recorded(variables, conditioned) -> np.ndarray:
    """Reduced indices of the variables to record."""
    if variables is None:
        return np.arange(conditioned.model.n_vars)
    chosen = np.unique(np.asarray(variables, dtype=np.int64).ravel())
    if chosen.size == 0 or chosen.min() < 0 or chosen.max() >= conditioned.n_vars:
        raise ValueError(f"variables must be indices in 0..{conditioned.n_vars - 1}")
    if not conditioned.evidence:
        return chosen
    observed = [int(i) for i in chosen if int(i) in conditioned.evidence]
    if observed:
        raise ValueError(f"variable {observed[0]} is observed (evidence): it has no sampled marginal")
    reduced_index = np.full(conditioned.n_vars, -1, dtype=np.int64)
    reduced_index[conditioned.free] = np.arange(conditioned.free.size)
    return reduced_index[chosen]


def _blocks_for(blocks, conditioned, certify: bool):
    """The blocks of :func:`sample` in the reduced model's numbering (see its ``blocks``): a list of arrays, or
    :class:`~dogs.samplers.elimination_blocks.EliminationBlocks` for ``"elimination"``."""
    factor_graph = isinstance(conditioned.model, DiscreteFactorGraph)
    if blocks is None:
        return []
    if isinstance(blocks, str):
        if blocks not in ("auto", "elimination"):
            raise ValueError(f"blocks must be 'auto', 'elimination', None or a sequence of blocks of variables, got "
                             f"{blocks!r}")
        if blocks == "elimination" and (not factor_graph or certify):
            raise ValueError("blocks='elimination' is for factor graphs (DiscreteFactorGraph) without certify (the "
                             "certificate bounds single-site updates)")
        if not factor_graph or certify:
            return []
        if blocks == "elimination":
            return elimination_blocks(conditioned.model)
        from dogs.samplers.factor_blocks import automatic_blocks

        return automatic_blocks(conditioned.model)
    if not factor_graph:
        raise ValueError("blocks are for factor graphs (DiscreteFactorGraph); pairwise models take blocks=None")
    if certify:
        raise ValueError("the certificate bounds single-site updates: give blocks=None (or 'auto') with certify=True")
    from dogs.samplers.factor_blocks import pack_blocks

    reduced_index = np.full(conditioned.n_vars, -1, dtype=np.int64)
    reduced_index[conditioned.free] = np.arange(conditioned.free.size)
    out = []
    for block in blocks:
        variables = np.asarray(block)
        if variables.ndim != 1 or not np.issubdtype(variables.dtype, np.integer) or variables.size == 0 \
                or variables.min() < 0 or variables.max() >= conditioned.n_vars:
            raise ValueError(f"every block must be a non-empty sequence of variable indices in "
                             f"0..{conditioned.n_vars - 1}, got {block!r}")
        free = reduced_index[variables]
        out.append(free[free >= 0])
    out = [b for b in out if b.size > 1]
    pack_blocks(conditioned.model, out)  # disjoint, distinct, within the size limit: checked before any sampling
    return out


def _run(model, one_pass, state, chain_stream, recorded, draws, binary, progress, blocks=(), warmup=0) -> np.ndarray:
    """The draws ``(chains, draws, V)`` after ``warmup`` passes recorded nowhere: every pass of every chain in one
    kernel call per chunk of passes (:mod:`dogs.samplers.draws`), the progress bar advanced between chunks; the
    warm-up and the recorded passes each have their own root of chain streams (``chain_stream.spawn(2)``)."""
    from dogs.samplers.discrete_gibbs import run_discrete_gibbs_draws
    from dogs.samplers.factor_gibbs import run_factor_gibbs_draws
    from dogs.samplers.gibbs import run_gibbs_draws

    chains = state.shape[0]
    show = sys.stderr.isatty() if progress is None else bool(progress)
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=warmup + draws, desc="sampling", unit="pass", file=sys.stderr, delay=PROGRESS_DELAY_SECONDS,
                   leave=False)
    try:
        runner = (run_gibbs_draws if binary else run_factor_gibbs_draws if isinstance(model, DiscreteFactorGraph)
                  else run_discrete_gibbs_draws)
        start = state
        if binary:  # labels 0/1 as spins -1/+1, in place
            start = state.astype(np.int8, copy=False)
            start *= 2
            start -= 1
        options = {}
        if runner is run_factor_gibbs_draws:
            options = {"elimination": blocks} if isinstance(blocks, EliminationBlocks) else {"blocks": blocks}
        on_passes = None if bar is None else bar.update
        if warmup:
            warmup_stream, chain_stream = chain_stream.spawn(2)
            start = runner(model, one_pass, seed=warmup_stream, draws=warmup, n_chains=chains, initial_state=start,
                           record_vars=recorded[:0], on_passes=on_passes, **options).states
        result = runner(model, one_pass, seed=chain_stream, draws=draws, n_chains=chains, initial_state=start,
                        record_vars=recorded, on_passes=on_passes, **options)
    finally:
        if bar is not None:
            bar.close()
    return result.labels


def _certificate_json(certificate, recorded: np.ndarray, original: np.ndarray) -> list[dict]:
    return [{"variable": int(i), "bound": certificate.bound(int(r)), "bound_average": certificate.average_bound(int(r)),
             "reason": certificate.reason(int(r))} for r, i in zip(recorded.tolist(), original.tolist())]


def marginals(data):
    r"""Estimates of every ``P(X_i = k)`` of :func:`sample`'s draws, as a ``pandas.DataFrame``.

    Columns ``variable`` (original index), ``state``, ``probability`` (mean of the indicator draws),
    ``std_error`` (the larger of ``arviz.mcse`` and :func:`chains_standard_error`; where the draws are
    independent, attribute ``independent_draws``, the binomial :math:`\sqrt{\hat p (1 - \hat p) / n}` of all
    :math:`n` draws), ``mcse``, ``r_hat``, ``ess_bulk``, ``ess_tail`` (ArviZ's; NaN where the indicator never
    changed), ``converged`` (R-hat defined and at most :data:`RHAT_THRESHOLD`, or the draws independent: the
    marginals :func:`sample` does not warn about), ``unseen_bound`` (for a state never drawn, or always, of a
    variable whose other states' indicators did change: the distance from its estimate 0 or 1 within which the
    probability lies, :func:`unseen_bound` of that variable's changing indicators; NaN elsewhere, in particular for
    a variable that never changed, whose draws say nothing about its rare states, unless an elimination block draws
    it from its exact conditional given a boundary that moved: :func:`boundary_unseen_bound`, attribute
    ``draw_conditions``; where the draws are independent, attribute ``independent_draws``, every indicator's
    effective size is the number of draws, and every state never drawn, or always, gets the bound of that many
    draws), and
    ``lower`` and ``upper``, the interval of every estimate: :func:`score_interval` where the indicator changed,
    the estimate to ``unseen_bound`` from it where it did not (NaN where that bound is NaN), and
    with a certificate ``bound`` and ``bound_average`` (NaN where vacuous; see :mod:`dogs.certificates`).
    """
    import pandas as pd

    labels, variables, attrs = posterior_draws(data)
    cards = json.loads(attrs["cardinalities"])
    binary = bool(attrs["binary"])
    certificate = json.loads(attrs.get("certificate", "null"))
    bounds = {row["variable"]: row for row in certificate} if certificate else {}
    rows = []
    if binary:
        stats = diagnose(labels)
        for m, i in enumerate(variables.tolist()):
            rows += [_row(i, k, stats, m, complement=k == 0) for k in (0, 1)]
    else:
        offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
        indicators = np.empty(labels.shape[:2] + (int(offsets[-1]),), dtype=np.int8)
        for m in range(variables.size):
            for k in range(cards[m]):
                indicators[:, :, offsets[m] + k] = labels[:, :, m] == k
        stats = diagnose(indicators)
        for m, i in enumerate(variables.tolist()):
            rows += [_row(i, k, stats, int(offsets[m]) + k) for k in range(cards[m])]
    table = pd.DataFrame(rows, columns=["variable", "state", "probability", "std_error", "mcse", "r_hat",
                                        "ess_bulk", "ess_tail", "converged"])
    changed = np.isfinite(table["std_error"].to_numpy())
    ess = table["ess_bulk"].to_numpy()
    unseen_bounds = np.full(len(table), np.nan)
    for rows in table.groupby("variable", sort=False).indices.values():
        if changed[rows].any() and not changed[rows].all():  # some state drawn, some never
            unseen = rows[~changed[rows]]
            unseen_bounds[unseen] = unseen_bound(ess[rows[changed[rows]]], labels.shape[0], labels.shape[1])
    conditions = json.loads(attrs.get("draw_conditions", "null"))
    if conditions is not None:
        found = _conditioned_bounds(table, changed, conditions, labels.shape[0] * labels.shape[1])
        unseen_bounds = np.where(np.isfinite(found), found, unseen_bounds)
    estimate = table["probability"].to_numpy()
    if int(attrs.get("independent_draws", 0)):  # the effective size of every indicator is the number of draws
        n_draws = labels.shape[0] * labels.shape[1]
        table["std_error"] = np.where(changed, np.sqrt(estimate * (1.0 - estimate) / n_draws), np.nan)
        unseen_bounds[~changed] = unseen_bound([n_draws], *labels.shape[:2])
        table["converged"] = True  # chains of independent exact draws cannot fail to mix
    table["unseen_bound"] = unseen_bounds
    lower, upper = score_interval(estimate, table["std_error"].to_numpy())
    table["lower"] = np.where(changed, lower, np.maximum(estimate - unseen_bounds, 0.0))
    table["upper"] = np.where(changed, upper, np.minimum(estimate + unseen_bounds, 1.0))
    if certificate is not None:
        for key in ("bound", "bound_average"):
            table[key] = [np.nan if bounds[i][key] is None else bounds[i][key] for i in table["variable"]]
    return table


def score_interval(estimate, std_error, z: float = INTERVAL_STANDARD_ERRORS) -> tuple[np.ndarray, np.ndarray]:
    r"""The probabilities :math:`p` within ``z`` standard errors of the estimate :math:`\hat p` of an indicator's
    mean, the standard error taken at :math:`p` itself: :math:`|\hat p - p| \le z \sqrt{p (1 - p) / n}`, with
    :math:`n = \hat p (1 - \hat p) / s^2` the effective sample size that the reported standard error :math:`s`
    implies (:func:`marginals`). Solved for :math:`p` this is Wilson's (1927) score interval,

    .. math::

        \frac{\hat p + z^2 / 2n \pm z \sqrt{s^2 + z^2 / 4n^2}}{1 + z^2 / n},

    which becomes :math:`\hat p \pm z s` as :math:`n` grows. Where a state was drawn only a few times the plain
    :math:`\hat p \pm z s` takes the standard error at :math:`\hat p`, too small when :math:`\hat p` fell below
    :math:`p`, and covers such states far less often than its nominal level (Brown, Cai & DasGupta 2001, *Interval
    estimation for a binomial proportion*, Statistical Science 16); the score interval does not. Returns
    ``(lower, upper)`` arrays, NaN where :math:`s` is not a positive number or :math:`\hat p` is 0 or 1 (a state
    never drawn, or always: :func:`unseen_bound`)."""
    p = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(std_error, dtype=np.float64)
    valid = np.isfinite(se) & (se > 0) & (p > 0) & (p < 1)
    se = np.where(valid, se, 1.0)
    n = np.where(valid, p * (1.0 - p), 1.0) / se ** 2
    shrink = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / shrink
    half = z * np.sqrt(se ** 2 + z * z / (4.0 * n * n)) / shrink
    return (np.where(valid, np.maximum(centre - half, 0.0), np.nan),
            np.where(valid, np.minimum(centre + half, 1.0), np.nan))


def unseen_bound(effective_sizes, chains: int, draws: int) -> float:
    r"""How far from its estimate (0 or 1) the probability of a state may lie when its indicator never changed.

    ``n`` independent draws miss a state of probability ``p`` with probability :math:`(1 - p)^n \le e^{-pn}`,
    below :data:`UNSEEN_LEVEL` once :math:`p > -\ln(\text{UNSEEN\_LEVEL}) / n \approx 5.9 / n` (the "rule of
    three" of Hanley & Lippman-Hand 1983 at the 3-standard-error level). Draws of a Markov chain are not
    independent, and an indicator that never changed has no autocorrelation to estimate, so ``n`` is the smallest
    bulk effective sample size among the indicators that did change (``effective_sizes``, :func:`marginals` passes
    those of the same variable's other states: a stand-in for how well the chains explored that variable, at most
    ``chains * draws``), or ``chains`` when none is given. The bound is the probability's distance from the
    estimate, capped at 1."""
    sizes = np.asarray(effective_sizes, dtype=np.float64)
    sizes = sizes[np.isfinite(sizes)]
    n = float(np.clip(sizes.min(), 1.0, chains * draws)) if sizes.size else float(chains)
    return min(1.0, -np.log(UNSEEN_LEVEL) / n)


def boundary_unseen_bound(draws: int, boundary_size: float) -> float:
    r"""How far from its estimate the probability of a state may lie when its variable never changed in ``draws``
    block draws, each from its exact conditional given a boundary whose chains have effective sample size
    ``boundary_size``.

    Given the boundary's path the draws are independent, the ``t``-th leaving the state with probability
    :math:`q_t`; all ``draws`` stay with probability :math:`\prod_t (1 - q_t) \le e^{-M \bar q}`, below
    :data:`UNSEEN_LEVEL` once the path's average :math:`\bar q` exceeds :math:`a = -\ln(\text{UNSEEN\_LEVEL}) / M`
    (:func:`unseen_bound`). The probability :math:`p = E[q]` differs from :math:`\bar q` by the Monte Carlo error of
    a function of the boundary with values in [0, 1], whose standard deviation is at most :math:`\sqrt p`: within 3
    standard errors, :math:`p \le a + 3 \sqrt{p / n}`, so :math:`\sqrt p \le 3 / (2 \sqrt n) + \sqrt{9 / (4 n) + a}`
    with ``n = boundary_size`` (:func:`marginals` takes the smallest bulk ESS of the boundary's indicators, as
    :func:`unseen_bound` does for a variable's own). With ``n`` as large as the draws the bound is about 19 / M,
    against 5.9 / M for independent draws. Capped at 1."""
    a = -np.log(UNSEEN_LEVEL) / max(int(draws), 1)
    n = max(float(boundary_size), 1.0)
    return min(1.0, (1.5 / np.sqrt(n) + np.sqrt(2.25 / n + a)) ** 2)


def _conditioned_bounds(table, changed: np.ndarray, conditions: dict, draws: int) -> np.ndarray:
    """Bounds for the marginals of each variable that never changed and that a block draws last in every pass (NaN
    elsewhere): :func:`boundary_unseen_bound` of the block's boundary, whose size is the smallest bulk ESS of its
    indicators that changed (at most ``draws``; an empty boundary: independent draws), plus the bound of each
    boundary variable that never changed either (the boundary's path held it at one value; the probability of
    the others, at most its bound, is what that path missed). Found in rounds, a variable once its unchanged
    boundary variables have theirs; NaN where a boundary variable was not recorded or its bound is never found."""
    groups = list(table.groupby("variable", sort=False).indices.items())
    rows_of = dict(groups)
    ess = table["ess_bulk"].to_numpy()
    unchanged = {v: m for m, (v, rows) in enumerate(groups) if not changed[rows].any()}
    bound = {}
    pending = [v for v, m in unchanged.items() if conditions["last_block"][m] >= 0]
    while pending:
        left = []
        for v in pending:
            boundary = conditions["boundaries"][conditions["last_block"][unchanged[v]]]
            if any(u not in rows_of or (u in unchanged and u not in bound) for u in boundary):
                left.append(v)
                continue
            moved = [rows_of[u] for u in boundary if u not in unchanged]
            sizes = np.concatenate([[float(draws)]] + [ess[r[changed[r]]] for r in moved])
            size = float(np.min(np.where(np.isfinite(sizes), sizes, 1.0)))
            bound[v] = min(1.0, (boundary_unseen_bound(draws, size) if moved else unseen_bound([draws], draws, 1))
                           + sum(bound[u] for u in boundary if u in unchanged))
        if len(left) == len(pending):  # the rest wait on each other, or on unrecorded variables
            break
        pending = left
    out = np.full(len(table), np.nan)
    for v, value in bound.items():
        out[rows_of[v]] = value
    return out


def _row(variable: int, state: int, stats: dict, m: int, complement: bool = False) -> dict:
    r_hat, mean = stats["r_hat"][m], stats["mean"][m]
    return {"variable": variable, "state": state, "probability": float(1.0 - mean if complement else mean),
            "std_error": float(stats["std_error"][m]), "mcse": float(stats["mcse"][m]), "r_hat": float(r_hat),
            "ess_bulk": float(stats["ess_bulk"][m]), "ess_tail": float(stats["ess_tail"][m]),
            "converged": bool(np.isfinite(r_hat) and r_hat <= RHAT_THRESHOLD)}


def sampling_warnings(data, table=None) -> list[str]:
    """The warnings of :func:`sample` for its draws ``data``: vacuous certificates, unconverged marginals (not for
    independent draws, attribute ``independent_draws``).

    Split R-hat comes from ``table`` (:func:`marginals`) when given, else from the label counts in closed form
    (:func:`dogs.convergence.indicator_rhat`, equal to ArviZ's): no ArviZ call, so the check costs a pass over
    the draws.
    """
    posterior = data.posterior
    out = []
    certificate = json.loads(posterior.attrs.get("certificate", "null"))
    if certificate:
        vacuous = [row for row in certificate if row["bound"] is None]
        if vacuous:
            out.append(f"the certificate is vacuous for {len(vacuous)} of {len(certificate)} variables (e.g. "
                       f"variable {vacuous[0]['variable']}: {vacuous[0]['reason']}); their bias is not bounded "
                       "(use a longer scan, or a DoGS scan targeting them)")
    if int(posterior.attrs.get("independent_draws", 0)):  # chains of independent exact draws cannot fail to mix
        return out
    variables, r_hat = _r_hats(data, table)
    bad = ~(r_hat <= RHAT_THRESHOLD)  # NaN (undefined) counts as not converged
    if not bad.any():
        return out
    n_chains = posterior.sizes["chain"]
    if n_chains < 2:
        out.append(f"convergence was not checked: split R-hat compares two or more chains, and this run has one; "
                   f"its {int(bad.sum())} marginals are reported with R-hat undefined (use chains >= 2 from dispersed "
                   "starts to check that they agree)")
        return out
    finite = np.isfinite(r_hat) & bad
    if finite.any():
        worst = int(np.argmax(np.where(finite, r_hat, -np.inf)))
        detail = f"largest {r_hat[worst]:.3g} at variable {int(variables[worst])}"
    else:
        detail = f"e.g. variable {int(variables[np.argmax(bad)])}, whose chains never changed it"
    start = posterior.attrs.get("start", "dispersed")
    starts = ("dispersed random starts" if start in ("dispersed", "random")
              else f"all chains starting at label {start}" if start.isdigit() else "the given starts")
    message = (f"split R-hat exceeds {RHAT_THRESHOLD} or is undefined for {int(bad.sum())} of {r_hat.size} marginals "
               f"({detail}): the {n_chains} chains ({starts}) disagree or never moved, so these estimates and "
               "their standard errors are not reliable; use a longer scan or more draws, and check the chains")
    if int(posterior.attrs.get("factor_graph", 0)) and posterior.attrs.get("block_update") != "elimination":
        message += (". On a factor graph with deterministic or near-deterministic tables single-site chains can "
                    "also agree on wrong answers, which R-hat cannot see, so the other marginals may be wrong too: "
                    "blocks='elimination' (dogs sample --blocks elimination) draws blocks of up to the whole model "
                    "exactly")
    out.append(message)
    return out


def _r_hats(data, table=None) -> tuple[np.ndarray, np.ndarray]:
    """``(variable, r_hat)`` of every marginal, in :func:`marginals`' row order."""
    if table is not None:
        return table["variable"].to_numpy(), table["r_hat"].to_numpy(dtype=np.float64)
    from dogs.convergence import indicator_rhat

    labels, nodes, attrs = posterior_draws(data)
    cards = np.asarray(json.loads(attrs["cardinalities"]), dtype=np.int64)
    return np.repeat(nodes, cards), indicator_rhat(labels, cards)
