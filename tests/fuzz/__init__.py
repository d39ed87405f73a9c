"""A seeded differential fuzzer of ``mutograd.compat.torch`` against PyTorch.

``generate`` writes random straight-line autograd programs (leaves, ordinary ops, every kind of
view, every in-place form, grad-mode blocks, custom Functions, hooks, several backward passes) as
source text, ``run`` executes each one through both frameworks statement by statement and
classifies any disagreement, ``shrink`` reduces a failing program to a short runnable reproducer.
``python -m tests.fuzz --n 20000 --seed 0 --jobs 2`` runs a sweep; docs/fuzzing.md explains it.
"""
