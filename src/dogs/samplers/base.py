r"""The sampler contract: what every sampler in :mod:`dogs.samplers` takes and returns.

Every sampler is a function of ``(model, <its schedule: a scan or a budget>, *, seed, n_chains,
initial_state, ...)`` that returns a result object with at least

``states``
    the final state of every chain, shape ``(n_chains, p)``;
``work``
    a :class:`Work` record of what the run cost, in the two units the papers compare samplers by:

    - ``site_updates``: single-variable updates (one Gibbs conditional draw, one Metropolis proposal at
      one site). This is the cost unit of DoGS (a scan of length ``T`` costs ``T`` per chain) and of
      He et al. (2016).
    - ``density_evaluations``: single-flip log-density differences
      :math:`\log\pi(x^{(i\to\cdot)}) - \log\pi(x)`, the unit by which the annular-augmentation paper
      (Fagan, Bhandari & Cunningham 2017, §3 and its appendix) puts exact HMC, coordinate
      Metropolis-Hastings and annular augmentation at equal cost. A binary Gibbs update evaluates one
      such difference; a Gibbs update of a ``K``-state variable evaluates ``K - 1``.

    Counts are totals over all chains.

and, where the sampler records along the way, the recorded values (``recorded``) or estimates. The
randomness is reproducible: ``seed`` is a non-negative int, a :class:`numpy.random.SeedSequence` or a
:class:`numpy.random.Generator`, and the same seed gives the same result on every machine and with any
number of threads (each chain has its own stream, :func:`chain_seeds`).

The samplers of the annular-augmentation paper (annular Gibbs, slice and Suwa-Todo operators, coordinate
Metropolis-Hastings, exact HMC) follow the same contract, so experiments compare them at equal
``work.density_evaluations``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from dogs._kernels.gibbs import seed_states
from dogs._kernels.rng import seed_state
from dogs.samplers.checks import check_int

__all__ = ["ChainsResult", "Work", "chain_seeds", "check_n_chains", "kernel_rng_state", "kernel_rng_states", "spawned_chain_seeds"]


@dataclass(frozen=True)
class Work:
    """Work done by a sampler run, summed over chains (see the module docstring for the units)."""

    site_updates: int
    density_evaluations: int

    def __post_init__(self):
        if type(self.site_updates) is int and type(self.density_evaluations) is int \
                and self.site_updates >= 0 and self.density_evaluations >= 0:
            return  # the common case, checked fast: every sampler run makes one Work (many per second in inner runs)
        for name in ("site_updates", "density_evaluations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
            object.__setattr__(self, name, int(value))

    def __add__(self, other: "Work") -> "Work":
        if not isinstance(other, Work):
            return NotImplemented
        return Work(self.site_updates + other.site_updates, self.density_evaluations + other.density_evaluations)


@dataclass(frozen=True, eq=False)
class ChainsResult:
    """Base of the results of the multi-chain Gibbs samplers: the fields they share (``states``, one row per chain;
    the recorded values ``recorded[c, r, v]`` of ``record_vars[v]`` after ``record_times[r]`` steps, or ``None``;
    ``work``; the chains' kernel ``seeds``), and ``n_chains`` and ``site_updates`` read from them. Subclasses add
    their own fields after these."""

    states: np.ndarray
    recorded: np.ndarray | None
    record_vars: np.ndarray | None
    record_times: np.ndarray | None
    work: Work
    seeds: np.ndarray

    @property
    def n_chains(self) -> int:
        return self.states.shape[0]

    @property
    def site_updates(self) -> int:
        return self.work.site_updates


def check_n_chains(n_chains) -> int:
    """``n_chains`` as a positive int; a clear error otherwise."""
    return check_int("n_chains", n_chains)


def kernel_rng_state(rng) -> np.ndarray:
    """The xoshiro256** state ``(4,) uint64`` of a single chain: from a kernel seed word (a ``numpy.uint64``, as
    :func:`chain_seeds` and :func:`spawned_chain_seeds` make them) or from any ``seed`` of :func:`chain_seeds`
    (child 0 of ``SeedSequence(seed)``). This is the ``rng`` argument of the samplers' ``run`` layer."""
    return seed_state(rng if isinstance(rng, np.uint64) else chain_seeds(rng, 1)[0])


def kernel_rng_states(rng, n_chains: int) -> np.ndarray:
    """``(n_chains, 4) uint64`` xoshiro256** states, one per chain: from ``(n_chains,)`` kernel seed words (a
    ``numpy.uint64`` array; one chain: also a ``numpy.uint64``) or from any ``seed`` of :func:`chain_seeds`."""
    if isinstance(rng, np.uint64) and n_chains == 1:
        return seed_state(rng)[None, :]
    if isinstance(rng, np.ndarray) and rng.dtype == np.uint64:
        if rng.shape != (n_chains,):
            raise ValueError(f"rng must hold one kernel seed per chain ({n_chains}), got shape {rng.shape}")
        seeds = rng
    else:
        seeds = chain_seeds(rng, n_chains)
    return seed_states(seeds)


def chain_seeds(seed, n_chains: int) -> np.ndarray:
    """Per-chain ``uint64`` kernel seeds: child ``c`` of ``SeedSequence(seed).spawn(n_chains)``, one word each.

    ``seed`` is a non-negative int, a :class:`numpy.random.SeedSequence` (not
    advanced: the same object always yields the same seeds; pass different
    children for independent runs) or a :class:`numpy.random.Generator`
    (advanced: 128 bits are drawn from it as entropy).
    """
    n_chains = check_n_chains(n_chains)
    if isinstance(seed, np.random.SeedSequence):
        root = seed  # only read: its children are made below, as a fresh copy's spawn() would make them
    elif isinstance(seed, np.random.Generator):
        root = np.random.SeedSequence([int(w) for w in seed.integers(0, 2**32, size=4, dtype=np.uint64)])
    elif isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        root = np.random.SeedSequence(int(seed))
    else:
        raise TypeError(
            f"seed must be a non-negative int, a numpy.random.SeedSequence or a numpy.random.Generator, "
            f"got {type(seed).__name__}"
        )
    fast = _spawned_first_words(root, n_chains) if n_chains >= _VECTORISED_FROM else None
    if fast is not None:
        return fast
    # child c of a fresh copy of root, as spawn() makes it (without copying root or spawning: a third of the cost of
    # the single chain that every sampler run seeds)
    return np.array([np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, c), pool_size=root.pool_size)
                     .generate_state(1, np.uint64)[0] for c in range(n_chains)], dtype=np.uint64)


#: From this many chains on :func:`chain_seeds` hashes them all at once; below, numpy's loop is faster (one chain:
#: 16 us against 175 us for the array version, which every single-chain sampler run pays; even at 18 to 20).
_VECTORISED_FROM = 20


# numpy.random.SeedSequence's hash constants (O'Neill's seed_seq, as numpy implements it)
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R, _XSHIFT = 0xCA01F9DD, 0x4973F715, 16


def _uint32_words(value) -> list[int] | None:
    """A non-negative int (or a sequence of them) as numpy's SeedSequence reads it: 32-bit words, least
    significant first, at least one word per int; ``None`` for any other input (the slow path handles it)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) and value >= 0:
        value, words = int(value), []
        while True:
            words.append(value & 0xFFFFFFFF)
            value >>= 32
            if not value:
                return words
    if isinstance(value, (tuple, list)):
        words = []
        for item in value:
            part = _uint32_words(item) if isinstance(item, numbers.Integral) else None
            if part is None:
                return None
            words += part
        return words
    return None


#: numpy's default SeedSequence pool size: a key suffix builds its SeedSequences with it.
_DEFAULT_POOL_SIZE = np.random.SeedSequence(0).pool_size


def spawned_chain_seeds(parent: np.random.SeedSequence, n_children: int, key_suffix: tuple = ()) -> np.ndarray:
    """``chain_seeds(SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, c, *key_suffix)), 1)[0]`` for
    ``c < n_children``: the kernel seed of a single chain seeded by each of ``parent.spawn(n_children)``'s children
    (``key_suffix = ()``) or by a named descendant of each (say, :func:`dogs.samplers.suite.chain_seed`'s).

    One vectorised hash instead of two SeedSequences per child: a caller that seeds many short runs, one after
    another, from the children of one parent (an MCMC over parameters) pays ~0.1 us per run instead of ~20 us.
    The same words as numpy's path, tested.
    """
    n_children = check_n_chains(n_children)
    suffix = tuple(key_suffix)
    fast = _spawned_first_words(parent, n_children, (*suffix, 0)) if parent.pool_size == _DEFAULT_POOL_SIZE else None
    if fast is not None:
        return fast
    key = tuple(parent.spawn_key)
    children = (np.random.SeedSequence(parent.entropy, spawn_key=(*key, c, *suffix)) for c in range(n_children))
    return np.array([chain_seeds(child, 1)[0] for child in children], dtype=np.uint64)


def _spawned_first_words(root: np.random.SeedSequence, n_children: int, key_suffix: tuple = ()) -> np.ndarray | None:
    """``[c.generate_state(1, np.uint64)[0] for c in root.spawn(n_children)]`` for a fresh ``root``, vectorised;
    with ``key_suffix``, the same for the SeedSequences whose spawn keys are those children's followed by the suffix.

    numpy hashes each child's entropy (the root's entropy, padded to the pool size, then its spawn key and
    the child's index) with a hash whose constants depend only on the number of words, the same for every
    child below 2^32; so the whole computation runs on arrays over the children. ~100 us per child in
    numpy's Python loop, ~0.1 us here. Returns ``None`` when the root is not of the plain form this
    mirrors (the caller then asks numpy). Tested word for word against numpy.
    """
    entropy, spawn_key = _uint32_words(root.entropy), _uint32_words(list(root.spawn_key))
    suffix = _uint32_words(list(key_suffix))
    if entropy is None or spawn_key is None or suffix is None or n_children >= 2**32 or root.n_children_spawned:
        return None
    pool_size = root.pool_size
    if len(entropy) < pool_size:  # numpy pads the run entropy when there is a spawn key (always, for a child)
        entropy = entropy + [0] * (pool_size - len(entropy))
    words = [np.full(n_children, w, dtype=np.uint32) for w in entropy + spawn_key]
    words.append(np.arange(n_children, dtype=np.uint32))
    words += [np.full(n_children, w, dtype=np.uint32) for w in suffix]
    with np.errstate(over="ignore"):
        hash_const = np.uint32(_INIT_A)

        def hashmix(value):
            nonlocal hash_const
            value = value ^ hash_const
            hash_const = hash_const * np.uint32(_MULT_A)
            value = value * hash_const
            return value ^ (value >> np.uint32(_XSHIFT))

        def mix(x, y):
            result = np.uint32(_MIX_MULT_L) * x - np.uint32(_MIX_MULT_R) * y
            return result ^ (result >> np.uint32(_XSHIFT))

        zero = np.zeros(n_children, dtype=np.uint32)
        pool = [hashmix(words[i] if i < len(words) else zero) for i in range(pool_size)]
        for i_src in range(pool_size):
            for i_dst in range(pool_size):
                if i_src != i_dst:
                    pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
        for i_src in range(pool_size, len(words)):
            for i_dst in range(pool_size):
                pool[i_dst] = mix(pool[i_dst], hashmix(words[i_src]))
        hash_const, state = np.uint32(_INIT_B), []
        for i_dst in range(2):  # one uint64 = two uint32 words, low word first
            value = pool[i_dst % pool_size] ^ hash_const
            hash_const = hash_const * np.uint32(_MULT_B)
            value = value * hash_const
            state.append(value ^ (value >> np.uint32(_XSHIFT)))
    return state[0].astype(np.uint64) | (state[1].astype(np.uint64) << np.uint64(32))
