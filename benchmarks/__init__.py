"""Side-by-side benchmarks of mutograd, PyTorch, Paddle and hand-written NumPy (see README.md)."""
