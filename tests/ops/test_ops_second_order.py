"""Second-order checks for every differentiable row of the op table (design.md rule 13).

For a row's sample, with weights ``w`` on its float outputs and ``u`` on its inputs, the first
gradient ``gx(x, w)`` of ``sum(f(x) * w)`` is taken with ``create_graph=True``; the gradient of
``sum(gx * u)`` with respect to ``x`` and to ``w`` (its Hessian-vector product, and the forward
derivative a double-VJP gives) must equal float64 central finite differences of the first-order
gradient, and PyTorch's double backward when it is installed. The in-place form is checked the
same way, written on a non-leaf.
"""
import numpy as np
import pytest
from tests.helpers import numeric_grad, ref_result
from tests.op_db import OPS

import mutograd as mg

WRITES = ("elementwise", "scan", "linalg", "index", "other")


def _parts(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _float_parts(r):
    return [p for p in _parts(r) if p.dtype.is_floating_point]


def _run(info, fn, args, kwargs):
    return info.call(fn, *args, **kwargs) if info.call else fn(*args, **kwargs)


def _forms(info, s):
    forms = [("function", getattr(mg, info.name, None))] if info.function else []
    if info.inplace and info.kind in WRITES and 0 in s.diff:
        forms.append(("inplace", getattr(mg, info.name + "_", None)))
    return forms


def _first(info, fn, inplace, s, xs, ws, create_graph):
    """The first gradient of ``sum(f(x) * w)`` w.r.t. the float inputs ``xs``."""
    args = list(s.args)
    for i, x in zip(s.diff, xs):
        args[i] = x
    args = [mg.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    for i, x in zip(s.diff, xs):
        args[i] = x
    if inplace:
        args[0] = args[0] * 1.0
    parts = _float_parts(_run(info, fn, args, s.kwargs))
    loss = sum((p * w).sum() for p, w in zip(parts, ws))
    return mg.grad(loss, list(xs), create_graph=create_graph, allow_unused=True)


def _weights(info, s, rng):
    return [rng.standard_normal(np.shape(p)) for p in _parts(ref_result(info, s.args, s.kwargs))
            if np.asarray(p).dtype.kind == "f"]


def _cases(fd=True):
    return [pytest.param(o, id=o.id) for o in OPS if o.grad and (o.fd or not fd)]


def _second(info, fn, inplace, s, w_arrays, u_arrays):
    xs = [mg.tensor(s.args[i], requires_grad=True) for i in s.diff]
    ws = [mg.tensor(w, requires_grad=True) for w in w_arrays]
    gx = _first(info, fn, inplace, s, xs, ws, True)
    total = None
    for g, u in zip(gx, u_arrays):
        if g is not None and g.requires_grad:
            term = (g * mg.tensor(u)).sum()
            total = term if total is None else total + term
    if total is None:
        return [np.zeros_like(s.args[i]) for i in s.diff] + [np.zeros_like(w) for w in w_arrays]
    got = mg.grad(total, xs + ws, allow_unused=True)
    return [np.zeros(tuple(t.shape)) if g is None else g.numpy() for g, t in zip(got, xs + ws)]


@pytest.mark.parametrize("info", _cases())
def test_second_order_matches_finite_differences(info):
    rng = np.random.default_rng(5)
    s = info.draw(rng)
    w_arrays = _weights(info, s, rng)
    u_arrays = [rng.standard_normal(np.shape(s.args[i])) for i in s.diff]
    for form, fn in _forms(info, s):
        inplace = form == "inplace"

        def first_dot_u(*arrays):
            xs = [mg.tensor(a) for a in arrays[:len(s.diff)]]
            for x in xs:
                x.requires_grad_()
            ws = [mg.tensor(a) for a in arrays[len(s.diff):]]
            gx = _first(info, fn, inplace, s, xs, ws, False)
            return float(sum((g.numpy() * u).sum() for g, u in zip(gx, u_arrays)
                             if g is not None))

        point = [s.args[i].copy() for i in s.diff] + [w.copy() for w in w_arrays]
        expected = numeric_grad(first_dot_u, point)
        got = _second(info, fn, inplace, s, w_arrays, u_arrays)
        for k, (g, e) in enumerate(zip(got, expected)):
            what = f"input {s.diff[k]}" if k < len(s.diff) else f"weight {k - len(s.diff)}"
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5,
                                       err_msg=f"{form}: d/d({what})")


@pytest.mark.torch
@pytest.mark.parametrize("info", [p for p in _cases(fd=False) if p.values[0].torch is not False
                                  and not p.values[0].torch_inplace])
def test_second_order_matches_pytorch(info):
    torch = pytest.importorskip("torch")
    from tests.ops.test_ops import _torch_fn
    rng = np.random.default_rng(6)
    s = info.draw(rng)
    w_arrays = _weights(info, s, rng)
    u_arrays = [rng.standard_normal(np.shape(s.args[i])) for i in s.diff]
    tt = [torch.tensor(a, requires_grad=i in s.diff) if isinstance(a, np.ndarray) else a
          for i, a in enumerate(s.args)]
    tw = [torch.tensor(w, requires_grad=True) for w in w_arrays]
    if callable(info.torch):
        out = _parts(info.torch(torch, *tt, **s.kwargs))
    else:
        out = _parts(_run(info, _torch_fn(info, torch), tt, s.kwargs))
    loss = sum((p * w).sum() for p, w in zip([p for p in out if p.dtype.is_floating_point], tw))
    txs = [tt[i] for i in s.diff]
    tg = torch.autograd.grad(loss, txs, create_graph=True, allow_unused=True)
    total = sum((g * torch.tensor(u)).sum() for g, u in zip(tg, u_arrays)
                if g is not None and g.requires_grad)
    if not torch.is_tensor(total):
        want = [np.zeros(tuple(t.shape)) for t in txs + tw]
    else:
        # force: a gradient PyTorch knows to be zero (abs's second) is a ZeroTensor
        want = [np.zeros(tuple(t.shape)) if g is None else g.numpy(force=True)
                for g, t in zip(torch.autograd.grad(total, txs + tw, allow_unused=True),
                                txs + tw)]
    got = _second(info, getattr(mg, info.name, None), False, s, w_arrays, u_arrays)
    for k, (g, e) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-7, err_msg=f"derivative {k}")
