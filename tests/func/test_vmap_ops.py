"""vmap over every row of the op table: ``vmap(f)`` of a batch equals ``f`` of each sample,
stacked, and ``vmap(grad(f))`` equals each sample's gradient (per-sample gradients). This runs
every op's forward and gradient formula on batched arrays, so it checks the batching rules and
the per-sample fallback (Note [Batching rules]) across the whole table, without an outside
oracle beyond the op itself run one sample at a time."""
import numpy as np
import pytest
from tests.op_db import OPS

import mutograd as mg
from mutograd.func import grad, vmap
from mutograd.func.batched_array import VmapError

N = 3


def _samples(info):
    """N samples of one row whose arrays have the same shapes and dtypes, and the positions of
    the arguments that differ between them (batched); the rest must be equal."""
    rng = np.random.default_rng(7)
    ss = [info.draw(rng) for _ in range(N)]
    first = ss[0]
    batched = []
    for k, a in enumerate(first.args):
        if isinstance(a, np.ndarray):
            if any(np.shape(s.args[k]) != a.shape or np.asarray(s.args[k]).dtype != a.dtype
                   for s in ss):
                return None, None
            if any(not np.array_equal(s.args[k], a) for s in ss[1:]):
                batched.append(k)
        elif any(not _same(s.args[k], a) for s in ss[1:]):
            return None, None
    if any(set(s.kwargs) != set(first.kwargs) or
           any(not _same(s.kwargs[k], v) for k, v in first.kwargs.items()) for s in ss[1:]):
        return None, None
    return ss, batched


def _same(a, b):
    try:
        return bool(np.all(np.asarray(a, dtype=object) == np.asarray(b, dtype=object)))
    except ValueError:
        return False


def _tensors(args):
    return [mg.tensor(a) if isinstance(a, np.ndarray) else a for a in args]


def _parts(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _run(info, fn, args, kwargs):
    return info.call(fn, *args, **kwargs) if info.call else fn(*args, **kwargs)


# rows that vmap refuses, as PyTorch's does: the function reads the data as Python values
REFUSED = {"max_unpool2d-2d-longer-output": "item()", "max_unpool3d": "item()"}


def _batchable(info, differentiable):
    """Rows whose samples differ in some (differentiable) argument: there is a batch."""
    if getattr(mg, info.name, None) is None and info.call is None:
        return False   # a method-only row (copy_, fill_): test_vmap.py writes in place
    ss, batched = _samples(info)
    if differentiable:
        return info.grad and bool(ss) and any(k in batched for k in ss[0].diff)
    return bool(batched)


def _cases(differentiable):
    return [pytest.param(o, id=o.id) for o in OPS if _batchable(o, differentiable)]


@pytest.mark.parametrize("info", _cases(False))
def test_vmap_of_an_op_is_the_op_on_each_sample(info):
    ss, batched = _samples(info)
    fn = getattr(mg, info.name, None)
    base = _tensors(ss[0].args)

    def one(*xs):
        args = list(base)
        for k, x in zip(batched, xs):
            args[k] = x
        return _parts(_run(info, fn, args, ss[0].kwargs))
    stacked = [mg.tensor(np.stack([s.args[k] for s in ss])) for k in batched]
    want = [one(*[mg.tensor(s.args[k]) for k in batched]) for s in ss]
    if info.id in REFUSED or any(o.shape != w.shape for s in want[1:] for o, w in
                                 zip(want[0], s)):
        # a Python value read from the data, or a result whose shape depends on it
        with pytest.raises(VmapError):
            vmap(one)(*stacked)
        return
    got = vmap(one)(*stacked)
    for j, g in enumerate(got):
        w = np.stack([np.asarray(o[j].numpy()) for o in want])
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12,
                                   err_msg=f"output {j}")


@pytest.mark.parametrize("info", _cases(True))
def test_per_sample_gradients_of_an_op(info):
    ss, batched = _samples(info)
    diff = [k for k in ss[0].diff if k in batched]
    fn = getattr(mg, info.name, None)
    base = _tensors(ss[0].args)
    rng = np.random.default_rng(3)
    outs = _parts(_run(info, fn, base, ss[0].kwargs))
    ws = [mg.tensor(rng.standard_normal(tuple(o.shape))) for o in outs
          if o.dtype.is_floating_point]

    def loss(*xs):
        args = list(base)
        for k, x in zip(batched, xs):
            args[k] = x
        parts = [p for p in _parts(_run(info, fn, args, ss[0].kwargs))
                 if p.dtype.is_floating_point]
        return sum((p * w).sum() for p, w in zip(parts, ws))
    argnums = tuple(batched.index(k) for k in diff)
    stacked = [mg.tensor(np.stack([s.args[k] for s in ss])) for k in batched]
    shapes = [tuple(p.shape) for p in outs]
    if info.id in REFUSED or any(tuple(p.shape) != sh for s in ss[1:] for p, sh in zip(
            _parts(_run(info, fn, _tensors(s.args), s.kwargs)), shapes)):
        with pytest.raises(VmapError):   # see test_vmap_of_an_op_is_the_op_on_each_sample
            vmap(grad(loss, argnums=argnums))(*stacked)
        return
    try:
        want = [grad(loss, argnums=argnums)(*[mg.tensor(s.args[k]) for k in batched])
                for s in ss]
    except Exception as e:   # one sample's gradient refuses (an input written in place)
        with pytest.raises(type(e)):
            vmap(grad(loss, argnums=argnums))(*stacked)
        return
    got = vmap(grad(loss, argnums=argnums))(*stacked)
    for n in range(N):
        for g, w in zip(got, want[n]):
            np.testing.assert_allclose(g.numpy()[n], w.numpy(), rtol=1e-9, atol=1e-11)
