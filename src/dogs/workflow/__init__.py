"""The workflow wing: what runs the experiments under Snakemake, shared by every experiment family.

- :mod:`dogs.workflow.shell`: the step shell; :class:`~dogs.workflow.shell.Experiment` is the one object a family
  declares (its steps, its cross-key ``check``, its ``memory`` and ``work`` models), and the command line of a step.
- :mod:`dogs.workflow.guard`: everything the Snakefile checks about a config before planning a job.
- :mod:`dogs.workflow.families`: the family files (``config/families/<family>.yaml``: each family's settings, smoke
  and calibration overrides, rates and schema), and the config and schema of a run derived from them.
- :mod:`dogs.workflow.cost`: the generic cost engine (memory checks, :class:`~dogs.workflow.cost.Work`, the time
  table, calibration from the benchmark files of a complete run).
- :mod:`dogs.workflow.keys`: which config keys the cost models read, and the key table of the configuration reference.

Nothing here knows a family by name: the functions take the family objects (``dogs.experiments.FAMILIES``) and the
family files as arguments, so this package sits below the experiments it runs (``tests/test_family_files.py`` fails
when a module here names a family's section, keys or rules).
"""

from dogs.extras import require

require("workflow", "dogs.workflow")  # before the imports below: a missing package names its extra
