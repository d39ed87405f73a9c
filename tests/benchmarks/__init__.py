"""benchmarks/: the workloads and ``python -m benchmarks``."""
