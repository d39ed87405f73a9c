"""Rows of the op table for the rest of the in-place surface (docs/inplace_api.md).

Same ``OpInfo`` as op_db.py, with a few fields for ops whose inputs are not all float tensors
of broadcasting shapes (indices, conditions) or whose arguments are not in input order.
"""
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.special as sc
from op_db import OpInfo


@dataclass
class SurfaceInfo(OpInfo):
    sample: Callable | None = None   # rng -> input arrays (the first is written in place)
    args: Callable | None = None     # (inputs, attrs) -> (positional, keywords) of mg.<name>
    method: bool = True                 # x.<name>_(...) takes the same arguments after x
    function: bool = True               # has an out-of-place mg.<name>
    view_ok: bool = True                # write it through a view in the view test
    tref: Callable | None = None     # (torch, *tensors) -> the same result in PyTorch
    workspace: bool = False             # in place, a temporary buffer is counted (and freed)


def _u(name, ref, **kw):
    return SurfaceInfo(name, ref, **kw)


def _b(name, ref, **kw):
    kw.setdefault("shapes", ((3, 4), (4,)))
    return SurfaceInfo(name, ref, nargs=2, **kw)


def _m(name, ref, shapes, **kw):
    kw.setdefault("attrs", {"beta": 0.5, "alpha": 2.0})
    return SurfaceInfo(name, ref, nargs=3, shapes=shapes, view_ok=False, workspace=True, **kw)


def _mgl(x, p):
    return p * (p - 1) / 4 * np.log(np.pi) + sum(sc.gammaln(x - i / 2) for i in range(p))


def _renorm(x, p, axis, maxnorm):
    others = tuple(i for i in range(x.ndim) if i != axis)
    n = (np.abs(x) ** p).sum(axis=others, keepdims=True) ** (1 / p)
    return x * np.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)


def _celu(x, a):
    return np.maximum(x, 0) + np.minimum(0, a * np.expm1(x / a))


_SA, _SS = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


# ---- scatter family: inputs are (x, index, src) -------------------------------------------
def _scatter_sample(rng):
    x = rng.uniform(0.5, 2, (4, 3))
    index = rng.integers(0, 4, (5, 3))
    src = rng.uniform(0.5, 2, (5, 3))
    return [x, index, src]


def _scatter_ref(reduce, include_self=True):
    def ref(x, index, src):
        out = x.copy()
        cols = np.broadcast_to(np.arange(x.shape[1]), index.shape)
        groups = {}
        for (i, j), k in np.ndenumerate(index):
            groups.setdefault((k, cols[i, j]), []).append(src[i, j])
        for pos, vals in groups.items():
            vals = ([x[pos]] if include_self else []) + vals
            out[pos] = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max,
                        "amin": np.min, "assign": lambda v: v[-1]}[reduce](vals)
        return out
    return ref


def _scatter_args(ts, at):
    return (ts[0], at["axis"], ts[1], ts[2], at["reduce"]), {
        "include_self": at.get("include_self", True)}


def _scatter_row(reduce, include_self=True):
    name = "scatter_reduce"
    return SurfaceInfo(
        name, _scatter_ref(reduce, include_self), nargs=3, sample=_scatter_sample,
        attrs={"axis": 0, "reduce": reduce, "include_self": include_self}, args=_scatter_args,
        saves="input", view_ok=False,
        tref=None if reduce == "assign" else (lambda torch, x, i, s: torch.scatter_reduce(
            x, 0, i, s, reduce, include_self=include_self)))


def _index_reduce_sample(rng):
    return [rng.uniform(0.5, 2, (4, 3)), rng.integers(0, 4, (5,)), rng.uniform(0.5, 2, (5, 3))]


def _index_reduce_ref(reduce):
    def ref(x, index, src):
        full = np.broadcast_to(index[:, None], src.shape)
        return _scatter_ref(reduce)(x, full, src)
    return ref


def _index_reduce_row(reduce):
    return SurfaceInfo(
        "index_reduce", _index_reduce_ref(reduce), nargs=3, sample=_index_reduce_sample,
        attrs={"axis": 0}, saves="input", view_ok=False,
        args=lambda ts, at: ((ts[0], at["axis"], ts[1], ts[2], reduce), {}),
        tref=lambda torch, x, i, s: x.index_reduce(0, i, s, reduce))


def _emb_sample(rng):
    return [rng.uniform(-1, 1, (5, 3)), np.array([0, 2, 2, 4])]


def _emb_ref(w, idx):
    out = w.copy()
    for r in set(idx.tolist()):
        n = np.linalg.norm(w[r])
        if n > 0.8:
            out[r] = w[r] * 0.8 / (n + 1e-7)
    return out


def _fill_diag_ref(x, v):
    out = x.copy()
    np.fill_diagonal(out, v)
    return out


def _fill_diag_tensor_ref(x, y):
    out = x.copy()
    out[np.arange(4), np.arange(4) + 1] = y
    return out


OPS = [
    # inverse trig and hyperbolic: gradients through the output, no copy in place
    _u("asin", np.arcsin, domain=(-0.9, 0.9), saves="out-copied"),
    _u("acos", np.arccos, domain=(-0.9, 0.9), saves="out-copied"),
    _u("atan", np.arctan, saves="out-copied"),
    # PyTorch has no derivative for asinh_, acosh_, atanh_ in place: compare with its out-of-place
    _u("asinh", np.arcsinh, saves="out-copied", tref=lambda torch, x: torch.asinh(x)),
    _u("acosh", np.arccosh, domain=(1.2, 3), saves="out-copied",
       tref=lambda torch, x: torch.acosh(x)),
    _u("atanh", np.arctanh, domain=(-0.9, 0.9), saves="out-copied",
       tref=lambda torch, x: torch.atanh(x)),
    _u("sinh", np.sinh, saves="out-copied"),
    _u("cosh", np.cosh, saves="input"),
    _u("deg2rad", np.deg2rad),
    _u("rad2deg", np.rad2deg),
    _u("frac", lambda x: x - np.trunc(x)),
    _u("sgn", np.sign, positive=True),
    _u("nan_to_num", np.nan_to_num, saves="input"),
    # activations
    _u("hardtanh", lambda x: np.clip(x, -0.5, 0.5), attrs={"min": -0.5, "max": 0.5},
       positive=True, saves="out-copied",
       tref=lambda torch, x: torch.nn.functional.hardtanh(x, -0.5, 0.5)),
    _u("celu", lambda x: _celu(x, 1.5), attrs={"alpha": 1.5}, positive=True, saves="out",
       tref=lambda torch, x: torch.celu(x, 1.5)),
    _u("selu", lambda x: _SS * np.where(x > 0, x, _SA * np.expm1(x)), positive=True,
       saves="out", tref=lambda torch, x: torch.selu(x)),
    _u("mish", lambda x: x * np.tanh(np.logaddexp(0, x)), saves="input",
       tref=lambda torch, x: torch.nn.functional.mish(x)),
    _u("hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), domain=(-4, 4), saves="out-copied",
       tref=lambda torch, x: torch.nn.functional.hardsigmoid(x)),
    _u("threshold", lambda x: np.where(x > 0.3, x, -1.0),
       attrs={"threshold": 0.3, "value": -1.0}, saves="input",
       tref=lambda torch, x: torch.threshold(x, 0.3, -1.0)),
    _u("thresholded_relu", lambda x: np.where(x > 0.5, x, 0.0), attrs={"threshold": 0.5},
       saves="input"),
    _u("clamp_min", lambda x: np.maximum(x, 0.2), attrs={"min": 0.2}, saves="input",
       tref=lambda torch, x: torch.clamp_min(x, 0.2)),
    _u("clamp_max", lambda x: np.minimum(x, 0.2), attrs={"max": 0.2}, saves="input",
       tref=lambda torch, x: torch.clamp_max(x, 0.2)),
    # special functions (scipy.special)
    _u("digamma", sc.digamma, domain=(0.5, 3), saves="input"),
    _u("lgamma", sc.gammaln, domain=(0.5, 3), saves="input"),
    _u("erf", sc.erf, saves="input"),
    _u("erfc", sc.erfc, saves="input"),
    _u("erfinv", sc.erfinv, domain=(-0.9, 0.9), saves="out-copied"),
    _u("i0", sc.i0, saves="input"),
    _u("sinc", np.sinc, saves="input"),
    _u("polygamma", lambda x: sc.polygamma(2, x), attrs={"n": 2}, domain=(0.5, 3),
       saves="input", tref=lambda torch, x: torch.polygamma(2, x)),
    _u("multigammaln", lambda x: _mgl(x, 3), attrs={"p": 3}, domain=(1.5, 4), saves="input",
       tref=lambda torch, x: torch.mvlgamma(x, 3)),
    _u("logit", sc.logit, domain=(0.1, 0.9), saves="input"),
    _u("logit", lambda x: sc.logit(np.clip(x, 0.2, 0.8)), attrs={"eps": 0.2}, domain=(0.05, 0.95),
       saves="input", tref=lambda torch, x: torch.logit(x, 0.2)),
    _b("xlogy", sc.xlogy, domain=(0.2, 2), saves="input"),
    # binary element-wise
    _b("copysign", np.copysign, positive=True, saves="input"),
    _b("hypot", np.hypot, positive=True, saves="input"),
    _b("ldexp", lambda x, y: x * np.exp2(y), saves="other"),
    _b("float_power", np.power, domain=(0.5, 2), saves="input"),
    _b("nextafter", np.nextafter),
    # matrix updates: beta * x + alpha * product
    _m("addmm", lambda x, a, b: 0.5 * x + 2 * a @ b, ((3, 4), (3, 5), (5, 4)),
       tref=lambda torch, x, a, b: torch.addmm(x, a, b, beta=0.5, alpha=2.0)),
    _m("addmv", lambda x, a, v: 0.5 * x + 2 * a @ v, ((3,), (3, 4), (4,)),
       tref=lambda torch, x, a, v: torch.addmv(x, a, v, beta=0.5, alpha=2.0)),
    _m("addr", lambda x, a, b: 0.5 * x + 2 * np.outer(a, b), ((3, 4), (3,), (4,)),
       tref=lambda torch, x, a, b: torch.addr(x, a, b, beta=0.5, alpha=2.0)),
    _m("baddbmm", lambda x, a, b: 0.5 * x + 2 * a @ b, ((2, 3, 4), (2, 3, 5), (2, 5, 4)),
       tref=lambda torch, x, a, b: torch.baddbmm(x, a, b, beta=0.5, alpha=2.0)),
    _m("addbmm", lambda x, a, b: 0.5 * x + 2 * (a @ b).sum(0), ((3, 4), (2, 3, 5), (2, 5, 4)),
       tref=lambda torch, x, a, b: torch.addbmm(x, a, b, beta=0.5, alpha=2.0)),
    _u("renorm", lambda x: _renorm(x, 2, 0, 1.0), attrs={"p": 2, "axis": 0, "max_norm": 1.0},
       saves="input", view_ok=False, tref=lambda torch, x: torch.renorm(x, 2, 0, 1.0)),
    _u("renorm", lambda x: _renorm(x, 3, 1, 1.5), attrs={"p": 3, "axis": 1, "max_norm": 1.5},
       saves="input", view_ok=False, tref=lambda torch, x: torch.renorm(x, 3, 1, 1.5)),
    SurfaceInfo("embedding_renorm", _emb_ref, nargs=2, sample=_emb_sample,
                attrs={"max_norm": 0.8, "norm_type": 2.0}, saves="input", view_ok=False),
    # writes of other tensors' values
    _b("copy", lambda x, y: np.broadcast_to(y, x.shape) + 0 * x, function=False,
       tref=lambda torch, x, y: x.clone().copy_(y)),
    SurfaceInfo("fill_diagonal", _fill_diag_ref, nargs=2, shapes=((4, 4), ()), view_ok=False,
                torch_name=""),      # PyTorch's fill value is a number, not a tensor
    SurfaceInfo("fill_diagonal_tensor", _fill_diag_tensor_ref, nargs=2, shapes=((4, 5), (4,)),
                attrs={"offset": 1}, view_ok=False),
    # reductions into x at indices
    *[_scatter_row(r) for r in ("sum", "prod", "mean", "amax", "amin", "assign")],
    _scatter_row("sum", include_self=False),
    _scatter_row("mean", include_self=False),
    SurfaceInfo("put_along_axis", _scatter_ref("assign"), nargs=3, sample=_scatter_sample,
                attrs={"axis": 0}, args=lambda ts, at: ((ts[0], ts[1], ts[2], at["axis"]), {}),
                saves="input", view_ok=False),
    SurfaceInfo("put_along_axis", _scatter_ref("sum"), nargs=3, sample=_scatter_sample,
                attrs={"axis": 0}, saves="input", view_ok=False,
                args=lambda ts, at: ((ts[0], ts[1], ts[2], at["axis"], "add"), {})),
    *[_index_reduce_row(r) for r in ("prod", "mean", "amax", "amin")],
]

# Ops with no gradient: in place they keep the written tensor's dtype and give the old values a
# zero gradient. (name, inputs after x, reference, input domain)
NO_GRAD = [
    ("eq", (0.5,), lambda x: x == 0.5), ("ne", (0.5,), lambda x: x != 0.5),
    ("lt", (0.5,), lambda x: x < 0.5), ("le", (0.5,), lambda x: x <= 0.5),
    ("gt", (0.5,), lambda x: x > 0.5), ("ge", (0.5,), lambda x: x >= 0.5),
    ("equal", (0.5,), lambda x: x == 0.5), ("not_equal", (0.5,), lambda x: x != 0.5),
    ("greater_than", (0.5,), lambda x: x > 0.5), ("greater_equal", (0.5,), lambda x: x >= 0.5),
    ("less_than", (0.5,), lambda x: x < 0.5), ("less_equal", (0.5,), lambda x: x <= 0.5),
    ("less", (0.5,), lambda x: x < 0.5),
    ("logical_and", (1.0,), lambda x: np.logical_and(x, 1.0)),
    ("logical_or", (0.0,), lambda x: np.logical_or(x, 0.0)),
    ("logical_xor", (1.0,), lambda x: np.logical_xor(x, 1.0)),
    ("logical_not", (), np.logical_not),
    ("floor", (), np.floor), ("ceil", (), np.ceil), ("round", (), np.round),
    ("trunc", (), np.trunc), ("sign", (), np.sign), ("sgn", (), np.sign),
    ("heaviside", (0.5,), lambda x: np.heaviside(x, 0.5)),
]

# Integer-only ops: (name, x, y, reference)
INT_OPS = [
    ("gcd", np.gcd), ("lcm", np.lcm), ("bitwise_left_shift", np.left_shift),
    ("bitwise_right_shift", np.right_shift), ("bitwise_and", np.bitwise_and),
    ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor),
]
