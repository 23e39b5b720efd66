"""The scan-order counterexamples of He, De Sa, Mitliagkas & Ré (2016), *Scan order in Gibbs sampling*.

Small discrete distributions on which random scan and systematic scans mix at different orders
in ``n`` (Table 1, Fig. 2), analysed exactly with the chains of :mod:`dogs.exact.chains`:

- :mod:`dogs.counterexamples.models`: the five models of Table 1 as support states with log
  weights (:class:`ScanOrderModel`, :func:`make_model`), and the paper's formulas to check them;
- :mod:`dogs.counterexamples.mixing`: exact mixing times under random scan and the best and worst
  systematic scans (Table 1, Fig. 2a), and of every permutation (Fig. 2c);
- :mod:`dogs.counterexamples.levels`: the random scan of the App. A models lumped onto levels (exact
  for memorize and repeat, bracketed for soft dependencies), for Table 1 at large ``n``;
- :mod:`dogs.counterexamples.islands`: the two-islands model analysed: island masses over time
  (Fig. 2b), bridge efficiency (§3.2, App. C), the reduced chain where islands mix instantly (§4);
- :mod:`dogs.counterexamples.growth`: Table 1's orders of growth, parsed and fitted.

This package may import :mod:`dogs.exact` and :mod:`dogs.models`; neither imports it.
"""

from dogs.extras import require

require("workflow", "dogs.counterexamples")  # before the imports below: a missing package names its extra

from dogs.counterexamples.growth import (
    MIN_LOWER_TERMS_POINTS,
    fit_exponents,
    fit_with_lower_terms,
    interval_errors,
    order_text,
    parse_order,
)
from dogs.counterexamples.islands import (
    ReducedTwoIslands,
    bridge_efficiencies,
    bridge_efficiency,
    island_mass_curves,
    island_masses,
    reduced_mixing_rows,
    reduced_two_islands,
)
from dogs.counterexamples.levels import LEVEL_MODELS, level_chain, levels_of_states, random_scan_mixing_bracket
from dogs.counterexamples.mixing import (
    ALL_PERMUTATIONS,
    EXACT,
    LEVELS_BRACKET,
    LEVELS_EXACT,
    NAMED,
    TOP_BRACKET,
    PAPER_ORDER_SCANS,
    SCANS,
    SYMMETRIC,
    level_chain_rows,
    permutation_mixing_table,
    scan_mixing_rows,
)
from dogs.counterexamples.models import (
    MIN_N,
    MODEL_NAMES,
    ScanOrderModel,
    definition_log_weights,
    discrete_pyramid,
    make_model,
    memorize_and_repeat,
    model_M,
    sequence_of_dependencies,
    soft_dependencies,
    soft_prefix_accepted,
    state_count,
    two_islands,
)

__all__ = [
    "ALL_PERMUTATIONS",
    "EXACT",
    "LEVELS_BRACKET",
    "LEVELS_EXACT",
    "LEVEL_MODELS",
    "TOP_BRACKET",
    "MIN_LOWER_TERMS_POINTS",
    "MIN_N",
    "MODEL_NAMES",
    "NAMED",
    "PAPER_ORDER_SCANS",
    "SCANS",
    "SYMMETRIC",
    "ReducedTwoIslands",
    "ScanOrderModel",
    "bridge_efficiencies",
    "bridge_efficiency",
    "definition_log_weights",
    "discrete_pyramid",
    "fit_exponents",
    "fit_with_lower_terms",
    "interval_errors",
    "level_chain",
    "level_chain_rows",
    "levels_of_states",
    "model_M",
    "random_scan_mixing_bracket",
    "island_mass_curves",
    "island_masses",
    "make_model",
    "memorize_and_repeat",
    "order_text",
    "parse_order",
    "permutation_mixing_table",
    "reduced_mixing_rows",
    "reduced_two_islands",
    "scan_mixing_rows",
    "sequence_of_dependencies",
    "soft_dependencies",
    "soft_prefix_accepted",
    "state_count",
    "two_islands",
]
