"""Speed benchmarks, runnable as modules (``python -m dogs.benchmarks.<name>``)."""

from dogs.extras import require

require("workflow", "dogs.benchmarks")  # before the imports below: a missing package names its extra
