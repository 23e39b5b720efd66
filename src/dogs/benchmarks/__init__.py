"""Speed benchmarks, runnable as modules (``python -m dogs.benchmarks.<name>``)."""
