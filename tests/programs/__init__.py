"""Ported example programs (examples/) against PyTorch and Paddle (docs/programs.md)."""
