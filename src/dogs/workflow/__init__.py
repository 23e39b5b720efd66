"""The workflow wing: what runs the experiments under Snakemake, shared by every experiment family.

- :mod:`dogs.workflow.shell`: the step shell; :class:`~dogs.workflow.shell.Experiment` is the one object a family
  declares (its steps, its cross-key ``check``, its ``memory`` and ``work`` models), and the command line of a step.
- :mod:`dogs.workflow.guard`: everything the Snakefile checks about a config before planning a job.
- :mod:`dogs.workflow.cost`: the generic cost engine (memory checks, :class:`~dogs.workflow.cost.Work`, the
  measured rates, the time table, calibration).
- :mod:`dogs.workflow.keys`: which config keys the cost models read, and the table of them in docs/configuration.md.

Nothing here knows a family by name: the functions take the family objects (``dogs.experiments.FAMILIES``) as an
argument, so this package sits below the experiments it runs.
"""

from dogs.extras import require

require("workflow", "dogs.workflow")  # before the imports below: a missing package names its extra
