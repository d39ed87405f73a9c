"""Shared test helpers: sampling inputs, finite-difference gradients, byte counting."""
import contextlib
import gc
from pathlib import Path

import numpy as np

import mutograd as mg

ROOT = Path(__file__).resolve().parents[1]          # the repository
REFERENCES = ROOT / "tests" / "references"          # recorded from PyTorch and Paddle


def sample(info, shape, rng, dtype=np.float64):
    lo, hi = info.domain
    a = rng.uniform(lo, hi, shape)
    if info.positive:   # keep away from kinks/poles at 0, keep the sign
        a = np.where(np.abs(a) < 0.1, np.copysign(0.1, a) + a, a)
    return a.astype(dtype)


def inputs(info, rng, dtype=np.float64):
    return [sample(info, s, rng, dtype) for s in info.shapes[:info.nargs]]


def numeric_grad(f, arrays, eps=1e-6):
    """Central finite differences of scalar ``f(*arrays)`` w.r.t. each array (float64)."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            i = it.multi_index
            old = a[i]
            a[i] = old + eps
            hi = f(*arrays)
            a[i] = old - eps
            lo = f(*arrays)
            a[i] = old
            g[i] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


@contextlib.contextmanager
def counting():
    """Yields a dict whose 'bytes' and 'allocations' are filled with what the block allocated."""
    res = {}
    # no cyclic collection inside the block: garbage from earlier tests (cycles through saved
    # tracebacks) freed there would skew the exact byte counts
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = mg.memory.allocated()
        n = mg.memory.num_allocations()
        yield res
        res["bytes"] = mg.memory.allocated() - before
        res["allocations"] = mg.memory.num_allocations() - n
    finally:
        if enabled:
            gc.enable()


def ref_result(info, args, kwargs):
    """An op table row's reference result; attributes are passed when the reference names
    them."""
    import inspect
    try:
        params = inspect.signature(info.ref).parameters
    except (TypeError, ValueError):
        params = {}
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return info.ref(*args, **kwargs)
    return info.ref(*args, **{k: v for k, v in kwargs.items() if k in params})


def seeded_draw(f, a, where, differentiable):
    """A random function ``f`` of the tensor ``a`` made on ``where``, after ``mg.seed(5)``: its
    result as a host array, and the gradient it sends back to its input (None when not
    ``differentiable``); the tests of drawing on a device compare these for two places."""
    x = mg.tensor(a, device=where, requires_grad=True)
    mg.seed(5)
    out = f(x)
    assert str(out.place) == where
    if not differentiable:
        return out.cpu().numpy(), None
    weights = np.arange(out.numel(), dtype=np.float64).reshape(out.shape) % 7
    (out * mg.tensor(weights, device=where)).sum().backward()
    return out.detach().cpu().numpy(), x.grad.cpu().numpy()
