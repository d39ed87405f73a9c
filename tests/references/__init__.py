"""Results and weights files recorded from PyTorch and Paddle, and the scripts that record them
(run as ``python -m tests.references.NAME``)."""
