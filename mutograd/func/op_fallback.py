"""The per-op fallback of vmap: an op whose forward or gradient formula cannot run on batched
arrays runs once per sample.

Note [Per-op fallback]
    The batching rules (Note [Batching rules]) batch what NumPy dispatches: its functions and
    ufuncs. An op's own code can still need one sample at a time: a plain array indexed or
    written by a batched one, ``numpy.asarray``, a branch on ``xp is numpy`` that takes the
    device path under vmap's namespace, a Python value read from the data (``int(n)``). While
    vmap runs, every declared op's forward and first-order gradient formulas are wrapped: with
    batched arguments they run batched, and if that raises they run again once per sample, on
    plain arrays and the backend module itself, the results stacked, as PyTorch's vmap
    fallback does. A genuine error then comes from the per-sample run. A forward that writes
    into one of its inputs (an in-place form) is not run twice: its error stands. Gradient
    formulas evaluated with create_graph get no fallback (their arrays are tensors, which have
    no per-sample view), so an op that needs one is a VmapError there.
"""
import numpy as np

from .batched_array import BatchedArray
from .batching_rules import _at, _size, _stack, level_of

_pairs = []    # (an op's attribute dict, its own attributes, the wrapped ones), made once
_installed = False


def install(ops):
    """Wrap every op's forward and gradient formulas (ops: the registry's table)."""
    global _installed
    ops = list(ops)
    if len(_pairs) != len(ops):   # the first time, or ops declared since
        _pairs[:] = [_pair(op.__dict__) for op in ops]
    for d, _, wrapped in _pairs:
        d.update(wrapped)
    _installed = True


def _pair(d):
    own = {k: d[k] for k in ("fwd", "grad_fns", "grad") if d.get(k) is not None}
    return d, own, _wrapped(own)


def _wrapped(own):
    out = {"fwd": _forward(own["fwd"])}
    if "grad_fns" in own:
        out["grad_fns"] = [None if gf is None else (_formula(gf[0], gf[1]),) + tuple(gf[1:])
                           for gf in own["grad_fns"]]
    if "grad" in own:   # a variadic op's one formula
        out["grad"] = _formula(own["grad"], ())
    return out


def uninstall():
    global _installed
    if _installed:
        for d, own, _ in _pairs:
            d.update(own)
        _installed = False


def _forward(fwd):
    def forward(xp, *args, **kwargs):
        if level_of(args, kwargs) is None:
            return fwd(xp, *args, **kwargs)
        try:
            return fwd(xp, *args, **kwargs)
        except Exception:
            out = kwargs.get("out")
            if out is not None and any(out is a for a in args):
                raise
            return _each(fwd, (xp,) + args, kwargs)
    forward.__wrapped__ = fwd
    return forward


def _formula(fn, params):
    def formula(g, *args, **kwargs):
        if level_of((g,) + args, kwargs) is None:
            return fn(g, *args, **kwargs)
        try:
            return fn(g, *args, **kwargs)
        except Exception:
            # the per-sample runs must not write into the engine's buffer
            args = tuple(None if p == "into" else a for p, a in zip(params, args)) \
                + args[len(params):]
            return _each(fn, (g,) + args, kwargs)
    formula.__wrapped__ = fn
    return formula


def _each(fn, args, kwargs):
    """``fn(*args, **kwargs)`` once per sample of the highest level, the results stacked; a
    batching namespace among the arguments becomes its backend module once no batched array is
    left (Note [Per-op fallback])."""
    from ..autograd.engine import RegionGrad
    from .batching_rules import VmapError, _WRITE, _batched
    from .layers import BatchedNamespace
    level = level_of(args, kwargs)
    n = _size(args, level, kwargs)
    out = kwargs.get("out")
    if out is not None and not _batched(out, level):
        raise VmapError(_WRITE)
    keep = kwargs.get("keep")
    keeps = []
    results = []
    for i in range(n):
        a = _at(args, i, level, 2)
        kw = {k: _at(v, i, level, 1) for k, v in kwargs.items()}
        if keep is not None:
            kw["keep"] = {}
            keeps.append(kw["keep"])
        if level_of(a, kw) is None:
            a = [x.base if isinstance(x, BatchedNamespace) else x for x in a]
            kw = {k: v.base if isinstance(v, BatchedNamespace) else v for k, v in kw.items()}
        r = fn(*a, **kw)
        results.append(r.materialize() if type(r) is RegionGrad else r)
    if keep is not None:
        for k in keeps[0]:
            keep[k] = BatchedArray(np.stack([d[k] for d in keeps]), level)
    if out is not None:
        return out
    return _stack(results, level, getattr(fn, "__name__", "op"))
