"""The op table: one OpInfo per public op (and per attribute variant) drives every generic check
in test_ops.py.

Adding an op is one line in its declaration module and one line here. Most ops take float inputs
of ``shapes`` sampled from ``domain``; ops that need integer indices, masks or a list of tensors
give a ``make(rng) -> Sample`` instead, and ``call`` when the public function is not called as
``fn(*args, **kwargs)``.
"""
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.special
import scipy.special as sc


class Sample(NamedTuple):
    args: list             # numpy arrays (-> tensors) and Python scalars, in call order
    kwargs: dict           # attributes, passed as keywords
    diff: tuple            # positions in ``args`` of the float inputs that get gradients


@dataclass
class OpInfo:
    name: str                         # public name: mg.<name>, Tensor.<name>, <name>_ if inplace
    ref: Callable                     # NumPy/SciPy reference on float64 arrays (and attrs)
    nargs: int = 1                    # tensor inputs, the first is the one written in place
    shapes: tuple = ((3, 4),)         # input shapes (broadcasting shapes allowed after the first)
    domain: tuple = (-2.0, 2.0)       # sampling range of the inputs
    attrs: dict = field(default_factory=dict)
    inplace: bool = True              # has an ``_`` form
    grad: bool = True                 # differentiable (gradcheck in float64)
    saves: str = "nothing"            # in place, x alone requiring grad keeps: "nothing",
                                      # "out", "other" (another input), "input" (a copy) or
                                      # "kept" (a private array of x's size from the forward);
                                      # "mask" (the same, a byte per element);
                                      # "out-copied": "out", copied by a later write into it
                                      # (Note [Outputs copied on write])
    positive: bool = False            # inputs kept away from 0 (|x| >= 0.1, sign preserved)
    int_ok: bool = True               # accepts integer tensors out of place
    atol: float = 1e-6
    torch_name: str | None = None  # name in PyTorch when it differs (None: same)
    kind: str = "elementwise"         # elementwise | reduction | scan | linalg | view | copy | nn
    variant: str = ""                 # test id suffix for an attribute variant
    make: Callable | None = None   # rng -> Sample (or the input arrays), for inputs that are
                                   # not plain floats
    call: Callable | None = None   # (fn, *args, **kw) -> result, when not fn(*args, **kw)
    method: bool = True               # Tensor.<name> exists
    torch: object = True              # False: no PyTorch counterpart; or (torch, *args, **kw)
    float_out: bool = False           # result is floating for integer inputs (x_ on int raises)
    fd: bool = True                   # gradient checked by finite differences (not at a kink)
    function: bool = True             # has an out-of-place mg.<name> (copy_ has none)
    view_ok: bool = True              # its ``_`` form is also written through a view
    workspace: bool | None = None     # in place, one temporary buffer is counted (and freed);
                                      # None: a linalg row
    torch_inplace: object = False     # compare the ``_`` form with PyTorch's instead of the
                                      # function: True (its ``<name>_`` method on a non-leaf) or
                                      # (torch, *tensors) -> the in-place result
    copies_for_others: bool = False   # in place, x is copied when another input's gradient
                                      # needs it (y's of mul_), even if x's does not
    covers: tuple = ()                # registry ops the row runs besides ``name`` (coverage)
    xfail: dict = field(default_factory=dict)  # check (test function name) -> the bug it shows

    def __post_init__(self):
        if self.workspace is None:
            self.workspace = self.kind == "linalg"

    @property
    def id(self):
        return self.name + (f"-{self.variant}" if self.variant else "")

    def draw(self, rng):
        """A Sample: the ``make`` function's, or float inputs of ``shapes`` from ``domain``.

        ``make`` may also give just the input arrays: then the attributes are the keywords and
        every float array gets a gradient."""
        if self.make is not None:
            s = self.make(rng)
            if isinstance(s, Sample):
                return s
            return Sample(list(s), dict(self.attrs),
                          tuple(i for i, a in enumerate(s) if np.asarray(a).dtype.kind == "f"))
        lo, hi = self.domain
        arrays = []
        for shape in self.shapes[:self.nargs]:
            a = rng.uniform(lo, hi, shape)
            if self.positive:   # keep away from kinks/poles at 0, keep the sign
                a = np.where(np.abs(a) < 0.1, np.copysign(0.1, a) + a, a)
            arrays.append(a)
        return Sample(arrays, dict(self.attrs), tuple(range(self.nargs)))


def _u(name, ref, **kw):
    return OpInfo(name, ref, **kw)


def _b(name, ref, **kw):
    kw.setdefault("shapes", ((3, 4), (4,)))
    return OpInfo(name, ref, nargs=2, **kw)


def _r(name, ref, variant="", **kw):
    kw.setdefault("inplace", False)
    return OpInfo(name, ref, kind="reduction", variant=variant, **kw)


def _v(name, ref, variant="", **kw):
    kw.setdefault("inplace", False)
    return OpInfo(name, ref, kind="view", variant=variant, **kw)


def _c(name, ref, variant="", **kw):
    kw.setdefault("inplace", False)
    return OpInfo(name, ref, kind="copy", variant=variant, **kw)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _floats(rng, *shapes, lo=-2.0, hi=2.0):
    return [rng.uniform(lo, hi, s) for s in shapes]


def _with(extra, kwargs=None, diff=(0,), shapes=((3, 4),), lo=-2.0, hi=2.0):
    """A ``make``: float inputs of ``shapes`` followed by ``extra(rng)`` non-float arguments."""
    def make(rng):
        xs = _floats(rng, *shapes, lo=lo, hi=hi)
        return Sample(xs + list(extra(rng)), dict(kwargs or {}), diff)
    return make


def _distinct(rng, shape):
    """Values with distinct magnitudes (argmax/max/sort-like ops have one answer)."""
    n = int(np.prod(shape))
    return (rng.permutation(n) / n * 4 - 2 + 0.05).reshape(shape)


def _distinct_make(kwargs, shape=(3, 4)):
    return lambda rng: Sample([_distinct(rng, shape)], dict(kwargs), (0,))


def _max(x, axis=None, keepdim=False):
    if axis is None:
        return np.max(x)
    return (np.max(x, axis=axis, keepdims=keepdim), np.argmax(x, axis=axis, keepdims=keepdim))


def _min(x, axis=None, keepdim=False):
    if axis is None:
        return np.min(x)
    return (np.min(x, axis=axis, keepdims=keepdim), np.argmin(x, axis=axis, keepdims=keepdim))


def _sort(x, axis=-1, descending=False):
    idx = np.argsort(-x if descending else x, axis, kind="stable")
    return np.take_along_axis(x, idx, axis), idx


def _topk(x, k, axis=-1, largest=True):
    idx = np.take(np.argsort(-x if largest else x, axis, kind="stable"), np.arange(k), axis)
    return np.take_along_axis(x, idx, axis), idx


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _norm(x, p=2, axis=None, keepdim=False):
    return np.sum(np.abs(x) ** p, axis=axis, keepdims=keepdim) ** (1 / p)


def _torch_dim(name, **rename):
    """A PyTorch call for ``name`` with our keyword names mapped to PyTorch's."""
    def run(torch, *args, **kw):
        kw = {rename.get(k, "dim" if k == "axis" else k): v for k, v in kw.items()}
        return getattr(torch, name)(*args, **kw)
    return run


def _index_make(rng):
    x = rng.uniform(-2, 2, (3, 4))
    return Sample([x, 1, rng.integers(0, 4, (3, 5))], {}, (0,))


def _mask(rng, shape=(3, 4)):
    m = rng.random(shape) < 0.5
    m.flat[0], m.flat[1] = True, False
    return m


def _getitem(index):
    return lambda fn, x: x[index]


def _mk_list(shapes, kwargs):
    return lambda rng: Sample(_floats(rng, *shapes), dict(kwargs), tuple(range(len(shapes))))


# ---- convolution and pooling (mutograd.nn.functional): references written window by window --
def _nnf():
    import mutograd.nn.functional as F
    return F


def _ops():
    from mutograd.ops import OPS
    return OPS


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _windows(x, kernel, stride, padding, dilation, fill=0.0):
    """Every window of ``x`` (N, C, H, W) as a list of (oh, ow, window (N, C, kh, kw))."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = map(_pair, (kernel, stride, padding, dilation))
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    return oh, ow, [(a, b, xp[:, :, a * sh:a * sh + dh * (kh - 1) + 1:dh,
                             b * sw:b * sw + dw * (kw - 1) + 1:dw])
                    for a in range(oh) for b in range(ow)]


def _conv2d_ref(x, w, stride=1, padding=0, dilation=1, groups=1):
    o, cg = w.shape[:2]
    oh, ow, wins = _windows(x, w.shape[2:], stride, padding, dilation)
    out = np.zeros((x.shape[0], o, oh, ow))
    for a, b, win in wins:
        for k in range(o):
            g = k // (o // groups)
            out[:, k, a, b] = (win[:, g * cg:(g + 1) * cg] * w[k]).sum(axis=(1, 2, 3))
    return out


def _conv_transpose2d_ref(x, w, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    # the transpose of conv2d: scatter every input pixel times its kernel into the output
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = map(_pair, (stride, padding, output_padding,
                                                          dilation))
    n, cin, h, wd = x.shape
    og, kh, kw = w.shape[1:]
    ig = cin // groups
    hf, wf = (h - 1) * sh + dh * (kh - 1) + 1 + oph, (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    full = np.zeros((n, og * groups, hf, wf))
    for c in range(cin):
        g = c // ig
        for a in range(h):
            for b in range(wd):
                full[:, g * og:(g + 1) * og, a * sh:a * sh + dh * (kh - 1) + 1:dh,
                     b * sw:b * sw + dw * (kw - 1) + 1:dw] += (
                    x[:, c, a, b][:, None, None, None] * w[c])
    return full[:, :, ph:hf - ph, pw:wf - pw]


def _pool_ref(reduce):
    def ref(x, kernel_size, stride=None, padding=0, dilation=1, count_include_pad=True):
        fill = -np.inf if reduce == "max" else 0.0
        oh, ow, wins = _windows(x, kernel_size, stride or kernel_size, padding, dilation, fill)
        out = np.zeros(x.shape[:2] + (oh, ow))
        for a, b, win in wins:
            if reduce == "max":
                out[:, :, a, b] = win.max(axis=(2, 3))
            elif count_include_pad:
                out[:, :, a, b] = win.mean(axis=(2, 3))
            else:
                inside = _windows(np.ones((1, 1) + x.shape[2:]), kernel_size,
                                  stride or kernel_size, padding, dilation)[2]
                out[:, :, a, b] = win.sum(axis=(2, 3)) / inside[a * ow + b][2].sum()
        return out
    return ref


def _nn(name, ref, shapes, attrs=None, variant="", distinct=False, **kw):
    """A row of a function of mutograd.nn.functional (no mg.<name>, no method, no ``_`` form),
    compared with torch.nn.functional.<name>; float inputs of ``shapes``, or the row's
    ``make``."""
    def make(rng):
        xs = _floats(rng, *shapes)
        if distinct:            # max-pool: no ties inside a window
            xs[0] = _distinct(rng, shapes[0])
        return Sample(xs, dict(attrs or {}), tuple(range(len(shapes))))
    kw.setdefault("make", make)
    kw.setdefault("call", lambda fn, *a, **k: getattr(_nnf(), name)(*a, **k))
    kw.setdefault("torch", lambda torch, *a, **k: getattr(torch.nn.functional, name)(*a, **k))
    return OpInfo(name, ref, nargs=len(shapes), shapes=shapes, inplace=False, method=False,
                  kind="nn", variant=variant, **kw)


def _unpool_ref(x, indices, kernel_size, output_size):
    n, c = x.shape[:2]
    out = np.zeros((n, c, int(np.prod(output_size))))
    np.put_along_axis(out, indices.reshape(n, c, -1), x.reshape(n, c, -1), 2)
    return out.reshape((n, c) + tuple(output_size))


def _unpool(shape, kernel, output_size, variant=""):
    """A row of max_unpool{1,2,3}d: indices one per non-overlapping window (as max pooling with
    stride = kernel gives), at a random element of it."""
    nd = len(shape) - 2
    name = f"max_unpool{nd}d"

    def make(rng):
        pos = np.meshgrid(*[np.arange(o) * kernel for o in shape[2:]], indexing="ij")
        pos = [p + rng.integers(0, kernel, shape) for p in pos]   # (N, C, *S) per axis
        flat = np.ravel_multi_index(pos, output_size)
        return Sample([rng.uniform(-2, 2, shape), flat],
                      {"kernel_size": kernel, "output_size": output_size}, (0,))
    return OpInfo(name, _unpool_ref, nargs=2, shapes=(shape,), inplace=False, method=False,
                  kind="nn", variant=variant, make=make, covers=("max_unpool",),
                  call=lambda fn, *a, **k: getattr(_nnf(), name)(*a, **k),
                  torch=lambda torch, *a, **k: getattr(torch.nn.functional, name)(*a, **k))


BASE = [
    # ---- unary ---------------------------------------------------------------------------
    _u("neg", np.negative),
    _u("abs", np.abs, saves="input", positive=True),
    _u("sign", np.sign, grad=True, positive=True),
    _u("exp", np.exp, saves="out", float_out=True),
    _u("expm1", np.expm1, saves="out", float_out=True),
    _u("log", np.log, domain=(0.2, 3), saves="input", float_out=True),
    _u("log1p", np.log1p, domain=(-0.5, 3), saves="input"),
    _u("log2", np.log2, domain=(0.2, 3), saves="input"),
    _u("log10", np.log10, domain=(0.2, 3), saves="input"),
    _u("sqrt", np.sqrt, domain=(0.2, 3), saves="out", float_out=True),
    _u("rsqrt", lambda x: 1 / np.sqrt(x), domain=(0.2, 3), saves="out", float_out=True),
    _u("square", np.square, saves="input"),
    _u("reciprocal", np.reciprocal, positive=True, saves="out"),
    _u("sin", np.sin, saves="input", float_out=True),
    _u("cos", np.cos, saves="input", float_out=True),
    _u("tan", np.tan, domain=(-1.2, 1.2), saves="out-copied"),
    _u("tanh", np.tanh, saves="out", float_out=True),
    _u("sigmoid", _sigmoid, saves="out", float_out=True),
    # the Bessel functions beside i0 (whose row is with the in-place surface's)
    _u("i0e", sc.i0e, inplace=False, float_out=True, torch_name="special.i0e"),
    _u("i1", sc.i1, inplace=False, float_out=True, torch_name="special.i1"),
    _u("i1e", sc.i1e, inplace=False, float_out=True, torch_name="special.i1e"),
    _u("relu", lambda x: np.maximum(x, 0), positive=True, saves="out"),
    _u("relu6", lambda x: np.clip(x, 0, 6), domain=(-3, 8), positive=True, saves="out-copied",
       torch_name="nn.functional.relu6"),
    _u("leaky_relu", lambda x: np.where(x > 0, x, 0.01 * x), positive=True, saves="out-copied",
       torch_name="nn.functional.leaky_relu"),
    _u("leaky_relu", lambda x: np.where(x > 0, x, 0.2 * x), positive=True, saves="out-copied",
       attrs={"negative_slope": 0.2}, variant="slope", torch_name="nn.functional.leaky_relu"),
    # a negative slope: the output's sign no longer tells where x > 0, so the forward keeps
    # where it is (and the output, copied by a later write, is not needed)
    _u("leaky_relu", lambda x: np.where(x > 0, x, -0.3 * x), positive=True, saves="mask",
       attrs={"negative_slope": -0.3}, variant="negative_slope",
       torch_name="nn.functional.leaky_relu"),
    _u("elu", lambda x: np.where(x > 0, x, np.expm1(x)), positive=True, saves="out",
       torch_name="nn.functional.elu"),
    _u("elu", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), positive=True, saves="out",
       attrs={"alpha": 0.5}, variant="alpha", torch_name="nn.functional.elu"),
    _u("gelu", lambda x: 0.5 * x * (1 + scipy.special.erf(x / np.sqrt(2))), saves="input",
       torch_name="nn.functional.gelu"),
    _u("gelu", lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
       saves="input", attrs={"approximate": "tanh"}, variant="tanh",
       torch_name="nn.functional.gelu"),
    _u("silu", lambda x: x * _sigmoid(x), saves="input", torch_name="nn.functional.silu"),
    _u("softplus", lambda x: np.log1p(np.exp(x)), saves="input",
       torch_name="nn.functional.softplus"),
    _u("clamp", lambda x: np.clip(x, -0.5, 0.5), attrs={"min": -0.5, "max": 0.5},
       saves="input", positive=True),
    _u("clip", lambda x: np.maximum(x, -0.5), attrs={"min": -0.5}, saves="input",
       positive=True, variant="min-only"),
    _u("exp2", np.exp2, saves="out"),
    _b("fmod", np.fmod, positive=True, domain=(-5, 5), copies_for_others=True),
    _u("floor", np.floor, positive=True),
    _u("ceil", np.ceil, positive=True),
    _u("trunc", np.trunc, positive=True),
    _u("round", np.round, positive=True, domain=(-3, 3)),
    _u("round", lambda x: np.round(x, 2), attrs={"decimals": 2}, positive=True,
       variant="decimals"),
    _u("scale", lambda x: 2.5 * x + 1, attrs={"scale": 2.5, "bias": 1.0}, torch=False),
    _u("scale", lambda x: 2.5 * (x + 1), attrs={"scale": 2.5, "bias": 1.0,
                                                 "bias_after_scale": False},
       variant="bias-first", torch=False),
    _u("pow", lambda x, y: x ** y, make=_with(lambda rng: [3]), saves="input",
       variant="scalar"),
    _u("pow", lambda x, y: x ** y, make=_with(lambda rng: [0.5], lo=0.3, hi=2),
       saves="input", variant="sqrt"),
    # ---- binary --------------------------------------------------------------------------
    _b("add", np.add),
    _b("add", lambda x, y, alpha: x + alpha * y, attrs={"alpha": 2.0}, variant="alpha"),
    _b("sub", np.subtract),
    _b("mul", np.multiply, saves="other", copies_for_others=True),
    _b("mul", np.multiply, saves="other", variant="same-shape", shapes=((3, 4), (3, 4)),
       copies_for_others=True),
    _b("div", np.divide, positive=True, saves="other", copies_for_others=True, float_out=True),
    _b("floor_divide", np.floor_divide, positive=True, grad=False, domain=(0.5, 5)),
    _b("remainder", np.remainder, positive=True, domain=(0.5, 5), copies_for_others=True),
    _b("pow", np.power, domain=(0.5, 2), saves="input"),
    _b("maximum", np.maximum, saves="input"),
    _b("minimum", np.minimum, saves="input"),
    _b("atan2", np.arctan2, positive=True, saves="input", float_out=True),
    OpInfo("lerp", lambda x, y, w: x + w * (y - x), nargs=3, shapes=((3, 4), (4,), (3, 1)),
           saves="other", copies_for_others=True),
    OpInfo("lerp", lambda x, y, w: x + w * (y - x), variant="scalar-weight",
           make=_with(lambda rng: [0.3], shapes=((3, 4), (3, 4)), diff=(0, 1)),
           saves="nothing"),
    OpInfo("addcmul", lambda x, a, b, value=1: x + value * a * b, nargs=3,
           shapes=((3, 4), (4,), (3, 4)), attrs={"value": 0.5}, saves="other"),
    OpInfo("addcdiv", lambda x, a, b, value=1: x + value * a / b, nargs=3,
           shapes=((3, 4), (4,), (3, 4)), attrs={"value": 0.5}, positive=True, saves="other"),
    OpInfo("clamp", lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi), nargs=3,
           shapes=((3, 4), (4,), (3, 1)), variant="tensor-bounds", saves="input",
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), rng.uniform(-1.5, -0.1, (4,)),
                                    rng.uniform(0.1, 1.5, (3, 1))], {}, (0, 1, 2))),
    OpInfo("clamp", lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi), nargs=3,
           variant="crossed-bounds", saves="input",      # lo > hi in row 0: the result is hi
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)),
                                    np.array([1.5, 0.5, 1.7, -0.2]),
                                    np.array([[-0.8], [1.0], [1.9]])], {}, (0, 1, 2))),
    OpInfo("masked_fill", lambda x, m, v: np.where(m, v, x), variant="scalar",
           make=_with(lambda rng: [_mask(rng, (4,)), 0.5]), saves="nothing"),
    OpInfo("masked_fill", lambda x, m, v: np.where(m, v, x), variant="tensor-value",
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), _mask(rng), np.array(0.5)],
                                   {}, (0, 2)), saves="nothing"),
    OpInfo("where", lambda c, x, y: np.where(c, x, y), inplace=False, method=False,
           make=lambda rng: Sample([_mask(rng)] + _floats(rng, (3, 4), (4,)), {}, (1, 2))),
    OpInfo("where", lambda c, x, y: np.where(c, x, y), inplace=False, method=False,
           variant="scalar", make=lambda rng: Sample([_mask(rng), rng.uniform(-2, 2, (3, 4)),
                                                      0.0], {}, (1,))),
    # ---- comparisons and logic (no gradient; the in-place form keeps the written dtype) -----
    *[_b(n, getattr(np, f), grad=False, torch=True) for n, f in (
        ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
        ("gt", "greater"), ("ge", "greater_equal"))],
    *[OpInfo(n, getattr(np, n), nargs=2, grad=False, make=lambda rng: Sample(
        [_mask(rng), _mask(rng, (4,))], {}, ())) for n in (
        "logical_and", "logical_or", "logical_xor")],
    *[OpInfo(n, getattr(np, n), nargs=2, grad=False,
             make=lambda rng: Sample([rng.integers(-8, 8, (3, 4)), rng.integers(-8, 8, (4,))],
                                     {}, ()))
      for n in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    OpInfo("bitwise_not", np.invert, grad=False,
           make=lambda rng: Sample([rng.integers(-8, 8, (3, 4))], {}, ())),
    *[OpInfo(n, getattr(np, n), grad=False, inplace=False, make=lambda rng: Sample(
        [np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.0]])], {}, ()))
      for n in ("isnan", "isinf", "isfinite")],
    OpInfo("logical_not", np.logical_not, grad=False,
           make=lambda rng: Sample([_mask(rng)], {}, ())),
    # ---- reductions ------------------------------------------------------------------------
    _r("sum", np.sum),
    _r("sum", lambda x: np.sum(x, 1), attrs={"axis": 1}, variant="axis1"),
    _r("sum", lambda x: np.sum(x, (0, 1), keepdims=True), attrs={"axis": (0, 1),
                                                                 "keepdim": True},
       variant="all-keepdim", torch=_torch_dim("sum")),
    _r("sum", lambda x: np.sum(x, -1, keepdims=True), attrs={"dim": -1, "keepdims": True},
       variant="torch-names", torch=False),
    _r("mean", np.mean),
    _r("mean", lambda x: np.mean(x, 0, keepdims=True), attrs={"axis": 0, "keepdim": True},
       variant="axis0-keepdim"),
    _r("prod", np.prod, positive=True),
    _r("prod", lambda x: np.prod(x, 1), attrs={"axis": 1}, positive=True, variant="axis1"),
    _r("prod", lambda x: np.prod(x, 1), variant="with-zero", attrs={"axis": 1},
       make=lambda rng: Sample([np.array([[0.0, 1.5, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, -1.0]])],
                               {"axis": 1}, (0,))),
    _r("max", np.max, make=_distinct_make({}), covers=("max_all",)),
    _r("max", _max, make=_distinct_make({"axis": 1}), variant="axis1", covers=("values_at",)),
    _r("max", _max, make=_distinct_make({"axis": 0, "keepdim": True}), variant="keepdim"),
    _r("min", np.min, make=_distinct_make({}), covers=("min_all",)),
    _r("min", _min, make=_distinct_make({"axis": -1}), variant="axis-1"),
    _r("amax", np.amax, make=_distinct_make({})),
    _r("amax", lambda x, axis: np.amax(x, axis), make=_distinct_make({"axis": 1}),
       variant="axis1"),
    _r("amax", lambda x, axis: np.amax(x, axis), variant="ties", fd=False,
       make=lambda rng: Sample([np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])], {"axis": 1},
                               (0,))),
    _r("amin", lambda x, axis, keepdim: np.amin(x, axis, keepdims=keepdim),
       make=_distinct_make({"axis": 0, "keepdim": True})),
    _r("argmax", np.argmax, grad=False, make=_distinct_make({})),
    _r("argmax", lambda x, axis: np.argmax(x, axis), grad=False,
       make=_distinct_make({"axis": 1}), variant="axis1"),
    _r("argmin", lambda x, axis, keepdim: np.argmin(x, axis, keepdims=keepdim), grad=False,
       make=_distinct_make({"axis": 0, "keepdim": True})),
    _r("var", lambda x: np.var(x, ddof=1)),
    _r("var", lambda x, axis, unbiased: np.var(x, axis, ddof=0),
       attrs={"axis": 1, "unbiased": False}, variant="biased-axis1"),
    _r("std", lambda x: np.std(x, ddof=1)),
    _r("std", lambda x, axis, keepdim: np.std(x, axis, ddof=1, keepdims=keepdim),
       attrs={"axis": 0, "keepdim": True}, variant="axis0-keepdim"),
    _r("norm", _norm, torch=lambda torch, x: torch.linalg.vector_norm(x)),
    _r("norm", _norm, attrs={"p": 1, "axis": 1}, positive=True, variant="p1-axis1",
       torch=lambda torch, x, p, axis: torch.linalg.vector_norm(x, p, dim=axis)),
    _r("norm", _norm, attrs={"p": 3, "axis": 0, "keepdim": True}, positive=True,
       variant="p3-keepdim",
       torch=lambda torch, x, p, axis, keepdim: torch.linalg.vector_norm(
           x, p, dim=axis, keepdim=keepdim)),
    _r("norm", lambda x, p, axis: np.max(np.abs(x), axis), attrs={"p": float("inf"), "axis": 1},
       make=_distinct_make({"p": float("inf"), "axis": 1}), variant="inf",
       torch=lambda torch, x, p, axis: torch.linalg.vector_norm(x, p, dim=axis)),
    _r("logsumexp", lambda x: scipy.special.logsumexp(x),
       torch=lambda torch, x: torch.logsumexp(x, dim=(0, 1))),
    _r("logsumexp", lambda x, axis, keepdim: scipy.special.logsumexp(x, axis, keepdims=keepdim),
       attrs={"axis": 1, "keepdim": True}, variant="axis1-keepdim"),
    _r("all", lambda x, axis: np.all(x, axis), grad=False, attrs={"axis": 1},
       make=lambda rng: Sample([_mask(rng)], {"axis": 1}, ())),
    _r("any", np.any, grad=False, make=lambda rng: Sample([_mask(rng)], {}, ())),
    # ---- scans and normalisations (in place allowed: the result has the input's shape) ------
    OpInfo("softmax", _softmax, kind="scan", saves="out", float_out=True,
           torch=lambda torch, x, axis=-1: torch.softmax(x, axis)),
    OpInfo("softmax", _softmax, kind="scan", saves="out", attrs={"axis": 0}, variant="axis0",
           torch=lambda torch, x, axis=-1: torch.softmax(x, axis)),
    OpInfo("log_softmax", lambda x, axis=-1: np.log(_softmax(x, axis)), kind="scan",
           saves="out", attrs={"dim": 1}, torch=_torch_dim("log_softmax")),
    OpInfo("cumsum", lambda x, axis: np.cumsum(x, axis), kind="scan", attrs={"axis": 1}),
    OpInfo("cumsum", lambda x, axis: np.cumsum(x, axis), kind="scan", attrs={"axis": 0},
           variant="axis0"),
    OpInfo("cumsum", lambda x: np.cumsum(x), kind="scan", inplace=False, variant="flat",
           torch=lambda torch, x: torch.cumsum(x.reshape(-1), 0)),
    OpInfo("cumsum", lambda x: np.cumsum(x), kind="scan", variant="1d", shapes=((5,),),
           torch=lambda torch, x: torch.cumsum(x, 0)),
    OpInfo("tril", np.tril, kind="scan"),
    OpInfo("triu", lambda x, diagonal: np.triu(x, diagonal), kind="scan",
           attrs={"diagonal": 1}),
    OpInfo("cumprod", lambda x, axis: np.cumprod(x, axis), kind="scan", attrs={"axis": 1},
           saves="input", positive=True),
    # ---- linear algebra --------------------------------------------------------------------
    _b("matmul", np.matmul, shapes=((3, 4), (4, 4)), kind="linalg", saves="other",
       copies_for_others=True),
    _b("matmul", np.matmul, shapes=((2, 3, 4), (4, 5)), kind="linalg", inplace=False,
       variant="batch-broadcast"),
    _b("matmul", np.matmul, shapes=((2, 1, 3, 4), (3, 4, 2)), kind="linalg", inplace=False,
       variant="batch-both"),
    _b("matmul", np.matmul, shapes=((4,), (2, 4, 3)), kind="linalg", inplace=False,
       variant="1d-left"),
    _b("matmul", np.matmul, shapes=((2, 3, 4), (4,)), kind="linalg", inplace=False,
       variant="1d-right"),
    _b("matmul", np.matmul, shapes=((4,), (4,)), kind="linalg", inplace=False, variant="1d-1d"),
    _b("mm", np.matmul, shapes=((3, 4), (4, 2)), kind="linalg", inplace=False),
    _b("bmm", np.matmul, shapes=((2, 3, 4), (2, 4, 5)), kind="linalg", inplace=False),
    _b("dot", np.dot, shapes=((5,), (5,)), kind="linalg", inplace=False),
    _b("outer", np.outer, shapes=((3,), (4,)), kind="linalg", inplace=False),
    _b("outer", np.outer, shapes=((2, 3), (2, 1)), kind="linalg", inplace=False,
       variant="flattened", torch=False),     # Paddle's and NumPy's; PyTorch wants 1-D
    OpInfo("einsum", lambda a, b: np.einsum("ij,jk->ik", a, b), kind="linalg", inplace=False,
           method=False, make=_mk_list(((3, 4), (4, 2)), {}),
           call=lambda fn, a, b: fn("ij,jk->ik", a, b),
           torch=lambda torch, a, b: torch.einsum("ij,jk->ik", a, b)),
    OpInfo("einsum", lambda a: np.einsum("ii->i", a), kind="linalg", inplace=False,
           method=False, variant="diagonal", make=_mk_list(((3, 3),), {}),
           call=lambda fn, a: fn("ii->i", a), torch=lambda torch, a: torch.einsum("ii->i", a)),
    # an ellipsis: the dimensions it stands for broadcast (the second operand's batch of 5
    # against the first's 1), so the first's gradient sums over them
    OpInfo("einsum", lambda a, b: np.einsum("...ij,...jk->...ik", a, b), kind="linalg",
           inplace=False, method=False, variant="ellipsis-broadcast",
           make=_mk_list(((2, 1, 3, 4), (5, 4, 2)), {}),
           call=lambda fn, a, b: fn("...ij,...jk->...ik", a, b),
           torch=lambda torch, a, b: torch.einsum("...ij,...jk->...ik", a, b)),
    OpInfo("einsum", lambda a, b: np.einsum("i...j,...jj", a, b), kind="linalg",
           inplace=False, method=False, variant="ellipsis-implicit-diagonal",
           make=_mk_list(((2, 3, 4), (3, 4, 4)), {}),
           call=lambda fn, a, b: fn("i...j,...jj", a, b),
           torch=lambda torch, a, b: torch.einsum("i...j,...jj", a, b)),
    OpInfo("einsum", lambda a, b: np.einsum("bij,bjk->bik", a, b), kind="linalg",
           inplace=False, method=False, variant="list-operands",
           make=_mk_list(((2, 3, 4), (2, 4, 2)), {}),
           call=lambda fn, a, b: fn("bij,bjk->bik", [a, b]),
           torch=lambda torch, a, b: torch.einsum("bij,bjk->bik", a, b)),
    # ---- views (share storage and the version counter; the `_` forms change metadata) ------
    _v("view", lambda x: x.reshape(2, 6), make=_mk_list(((3, 4),), {}),
       call=lambda fn, x: fn(x, 2, 6), torch=lambda torch, x: x.view(2, 6), method=True),
    _v("reshape", lambda x: x.reshape(4, 3), make=_mk_list(((3, 4),), {}), inplace=True,
       call=lambda fn, x: fn(x, [4, 3]), torch=lambda torch, x: torch.reshape(x, (4, 3))),
    _v("reshape", lambda x: x.reshape(2, -1, 2), make=_mk_list(((3, 4),), {}), inplace=True,
       variant="varargs", call=lambda fn, x: fn(x, 2, -1, 2),
       torch=lambda torch, x: x.reshape(2, -1, 2)),
    _v("transpose", lambda x: np.swapaxes(x, 0, 2), shapes=((2, 3, 4),), inplace=True,
       make=_mk_list(((2, 3, 4),), {}), call=lambda fn, x: fn(x, 0, 2)),
    _v("transpose", lambda x: np.transpose(x, (1, 2, 0)), inplace=True, variant="perm",
       make=_mk_list(((2, 3, 4),), {}), call=lambda fn, x: fn(x, perm=[1, 2, 0]),
       torch=lambda torch, x: x.permute(1, 2, 0)),
    _v("t", np.transpose, inplace=True),
    _v("T", lambda x: np.transpose(x), make=_mk_list(((2, 3, 4),), {}), method=False,
       call=lambda fn, x: x.T, torch=lambda torch, x: x.permute(2, 1, 0)),
    _v("mT", lambda x: np.swapaxes(x, -1, -2), make=_mk_list(((2, 3, 4),), {}), method=False,
       call=lambda fn, x: x.mT, torch=lambda torch, x: x.mT),
    _v("swapaxes", lambda x, axis0, axis1: np.swapaxes(x, axis0, axis1),
       attrs={"axis0": 0, "axis1": 1}, torch=lambda torch, x, axis0, axis1: x.swapaxes(0, 1)),
    _v("permute", lambda x: np.transpose(x, (2, 0, 1)), make=_mk_list(((2, 3, 4),), {}),
       call=lambda fn, x: fn(x, 2, 0, 1), torch=lambda torch, x: x.permute(2, 0, 1)),
    _v("squeeze", np.squeeze, make=_mk_list(((3, 1, 4, 1),), {}), inplace=True),
    _v("squeeze", lambda x, axis: np.squeeze(x, axis), variant="axis", inplace=True,
       make=_mk_list(((3, 1, 4, 1),), {"axis": 1}), torch=_torch_dim("squeeze")),
    _v("unsqueeze", lambda x, axis: np.expand_dims(x, axis), attrs={"axis": 1}, inplace=True,
       torch=_torch_dim("unsqueeze")),
    _v("unsqueeze", lambda x, dim: np.expand_dims(x, dim), attrs={"dim": -1}, inplace=True,
       variant="dim-last"),
    _v("expand", lambda x: np.broadcast_to(x, (2, 3, 4)), make=_mk_list(((3, 1),), {}),
       call=lambda fn, x: fn(x, 2, 3, 4), torch=lambda torch, x: x.expand(2, 3, 4)),
    _v("expand", lambda x: np.broadcast_to(x, (2, 3, 4)), make=_mk_list(((3, 1),), {}),
       variant="minus-one", call=lambda fn, x: fn(x, [2, -1, 4]),
       torch=lambda torch, x: x.expand(2, -1, 4)),
    _v("expand_as", lambda x, y: np.broadcast_to(x, y.shape),
       make=lambda rng: Sample(_floats(rng, (3, 1), (2, 3, 4)), {}, (0,))),
    _v("broadcast_to", lambda x: np.broadcast_to(x, (2, 3, 4)), make=_mk_list(((3, 1),), {}),
       call=lambda fn, x: fn(x, [2, 3, 4]), torch=lambda torch, x: torch.broadcast_to(
           x, (2, 3, 4))),
    _v("flatten", lambda x: x.reshape(-1), make=_mk_list(((2, 3, 4),), {}), inplace=True),
    _v("flatten", lambda x, start_axis: x.reshape(2, -1), make=_mk_list(((2, 3, 4),),
                                                                          {"start_axis": 1}),
       inplace=True, variant="start", torch=_torch_dim("flatten", start_axis="start_dim")),
    _v("unflatten", lambda x, axis, shape: x.reshape(3, 2, 2), attrs={"axis": 1,
                                                                      "shape": (2, 2)},
       torch=lambda torch, x, axis, shape: x.unflatten(axis, shape)),
    _v("narrow", lambda x: x[:, 1:3], call=lambda fn, x: fn(x, 1, 1, 2)),
    _v("select", lambda x: x[:, 2], call=lambda fn, x: fn(x, 1, 2)),
    _v("diagonal", lambda x: np.diagonal(x).copy()),
    _v("diagonal", lambda x, offset: np.diagonal(x, offset).copy(), attrs={"offset": 1},
       variant="offset"),
    _v("as_strided", lambda x: np.lib.stride_tricks.as_strided(x, (3, 3), (32, 8)),
       call=lambda fn, x: fn(x, [3, 3], [4, 1]),
       torch=lambda torch, x: torch.as_strided(x, (3, 3), (4, 1))),
    _v("unfold", lambda x: np.lib.stride_tricks.sliding_window_view(x, 2, axis=1)[:, ::1],
       call=lambda fn, x: fn(x, 1, 2, 1), torch=lambda torch, x: x.unfold(1, 2, 1)),
    _v("getitem", lambda x: x[1:, ::2], method=False, call=_getitem(
        (slice(1, None), slice(None, None, 2))), torch=lambda torch, x: x[1:, ::2]),
    _v("getitem", lambda x: x[..., None, 1], method=False, variant="ellipsis-none",
       call=_getitem((Ellipsis, None, 1)), torch=lambda torch, x: x[..., None, 1]),
    _v("getitem", lambda x: x[-1], method=False, variant="int",
       call=_getitem(-1), torch=lambda torch, x: x[-1]),
    _v("split", lambda x: tuple(np.split(x, [2], axis=1)), call=lambda fn, x: fn(x, 2, 1),
       torch=lambda torch, x: torch.split(x, 2, 1)),
    _v("split", lambda x: tuple(np.split(x, [1, 3], axis=1)), variant="sections",
       call=lambda fn, x: fn(x, [1, 2, 1], axis=1),
       torch=lambda torch, x: torch.split(x, [1, 2, 1], 1)),
    _v("chunk", lambda x: tuple(np.split(x, [2], axis=0)), call=lambda fn, x: fn(x, 2)),
    _v("unbind", lambda x: tuple(x[:, i] for i in range(4)), attrs={"axis": 1},
       torch=_torch_dim("unbind")),
    # ---- non-view ops (new storage) --------------------------------------------------------
    _c("cat", lambda a, b, axis: np.concatenate([a, b], axis), method=False,
       make=_mk_list(((3, 4), (2, 4)), {"axis": 0}), call=lambda fn, a, b, axis: fn([a, b], axis),
       torch=lambda torch, a, b, axis: torch.cat([a, b], axis)),
    _c("concat", lambda a, b, axis: np.concatenate([a, b], axis), method=False,
       make=_mk_list(((3, 4), (3, 2)), {"axis": 1}),
       call=lambda fn, a, b, axis: fn([a, b], axis=axis),
       torch=lambda torch, a, b, axis: torch.cat([a, b], axis)),
    _c("stack", lambda a, b, axis: np.stack([a, b], axis), method=False,
       make=_mk_list(((3, 4), (3, 4)), {"axis": 1}), call=lambda fn, a, b, axis: fn([a, b],
                                                                                     dim=axis),
       torch=lambda torch, a, b, axis: torch.stack([a, b], axis)),
    _c("flip", lambda x: np.flip(x, 1), call=lambda fn, x: fn(x, 1),
       torch=lambda torch, x: torch.flip(x, (1,))),
    _c("flip", lambda x: np.flip(x, (0, 1)), call=lambda fn, x: fn(x, [0, 1]), variant="list",
       torch=lambda torch, x: torch.flip(x, (0, 1))),
    _c("roll", lambda x, shifts, axis: np.roll(x, shifts, axis),
       attrs={"shifts": 1, "axis": 1}, torch=_torch_dim("roll", axis="dims")),
    _c("repeat", lambda x: np.tile(x, (2, 1, 3)), call=lambda fn, x: fn(x, 2, 1, 3),
       torch=lambda torch, x: x.repeat(2, 1, 3)),
    _c("tile", lambda x: np.tile(x, (1, 2)), call=lambda fn, x: fn(x, [1, 2])),
    _c("repeat_interleave", lambda x, repeats, axis: np.repeat(x, repeats, axis),
       attrs={"repeats": 2, "axis": 1}),
    _c("repeat_interleave", lambda x, repeats, axis: np.repeat(x, repeats, axis),
       variant="per-row", attrs={"repeats": np.array([1, 0, 2]), "axis": 0}, torch=False),
    _c("gather", lambda x, dim, idx: np.take_along_axis(x, idx, dim), make=_index_make),
    _c("take_along_axis", lambda x, idx, axis: np.take_along_axis(x, idx, axis), torch=False,
       make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), rng.integers(0, 3, (2, 4))],
                               {"axis": 0}, (0,))),
    _c("index_select", lambda x, dim, idx: np.take(x, idx, dim),
       make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), 1, np.array([3, 0, 3])], {}, (0,))),
    # Paddle's keyword spellings (not its positional order, which only the paddle namespace takes)
    _c("index_select", lambda x, idx, axis: np.take(x, idx, axis), variant="keywords",
       torch=False, make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), np.array([2, 2, 0])],
                                            {"axis": 0}, (0,)),
       call=lambda fn, x, idx, axis: fn(x, index=idx, axis=axis)),
    _c("masked_select", lambda x, m: x[m],
       make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), _mask(rng)], {}, (0,))),
    _c("masked_select", lambda x, m: np.broadcast_to(x, (3, 4))[np.broadcast_to(m, (3, 4))],
       variant="broadcast",
       make=lambda rng: Sample([rng.uniform(-2, 2, (4,)), _mask(rng)], {}, (0,))),
    _c("getitem", lambda x: x[[2, 0, 2]], method=False, variant="int-array", covers=("index",),
       call=_getitem(np.array([2, 0, 2])), torch=lambda torch, x: x[[2, 0, 2]]),
    _c("getitem", lambda x: x[x > 0], method=False, variant="mask",
       call=lambda fn, x: x[x > 0], torch=lambda torch, x: x[x > 0]),
    _c("clone", np.copy),
    _c("contiguous", lambda x: np.ascontiguousarray(x.T), call=lambda fn, x: fn(x.t()),
       torch=lambda torch, x: x.t().contiguous()),
    _c("astype", lambda x: x.astype(np.float32), atol=1e-6, fd=False,
       torch=lambda torch, x: x.to(torch.float32),
       call=lambda fn, x: fn(x, "float32")),
    _c("cast", lambda x: x.astype(np.int32), grad=False, torch=False,
       call=lambda fn, x: fn(x, "int32")),
    # ordering (mutograd/ops/sorting.py): indices by a stable sort, values a gather
    _c("argsort", lambda x, axis: np.argsort(x, axis, kind="stable"), grad=False,
       make=_distinct_make({"axis": 1})),
    _c("argsort", lambda x, axis, descending: np.argsort(-x, axis, kind="stable"), grad=False,
       variant="descending-axis0", make=_distinct_make({"axis": 0, "descending": True})),
    _c("sort", _sort, make=_distinct_make({"axis": 1})),
    _c("sort", _sort, variant="descending-axis0",
       make=_distinct_make({"axis": 0, "descending": True})),
    _c("topk", _topk, make=lambda rng: Sample([_distinct(rng, (3, 5)), 2], {"axis": 1}, (0,)),
       covers=("argtopk",)),
    _c("topk", _topk, variant="smallest-axis0",
       make=lambda rng: Sample([_distinct(rng, (4, 3)), 3], {"axis": 0, "largest": False},
                               (0,))),
    # ---- convolution and pooling (each a function of mutograd.nn.functional) -----------------
    _nn("conv2d", _conv2d_ref, ((2, 3, 5, 6), (4, 3, 3, 2))),
    _nn("conv2d", _conv2d_ref, ((2, 2, 7, 6), (3, 2, 3, 3)), {"stride": (2, 1), "padding": 1},
        variant="stride-pad"),
    _nn("conv2d", _conv2d_ref, ((1, 2, 7, 7), (2, 2, 2, 3)),
        {"dilation": (2, 1), "padding": (2, 1), "stride": 2}, variant="dilation"),
    _nn("conv2d", _conv2d_ref, ((2, 4, 5, 4), (6, 2, 2, 3)), {"groups": 2, "stride": (1, 2)},
        variant="groups"),
    _nn("conv2d", _conv2d_ref, ((1, 1, 4, 5), (2, 1, 5, 1)), {"padding": (1, 0)},
        variant="tall-kernel"),
    _nn("conv_transpose2d", _conv_transpose2d_ref, ((2, 4, 3, 3), (4, 3, 3, 2)),
        {"stride": 2, "padding": 1, "output_padding": 1}),
    _nn("conv_transpose2d", _conv_transpose2d_ref, ((1, 4, 3, 2), (4, 1, 2, 3)),
        {"stride": (1, 2), "groups": 2, "dilation": 2}, variant="groups-dilation"),
    _nn("conv_transpose2d", _conv_transpose2d_ref, ((2, 2, 3, 4), (2, 3, 2, 3)),
        {"dilation": 2, "output_padding": 1}, variant="output-padding-stride1"),
    # max_pool2d keeps the position of each window's maximum, saving neither input nor result
    _nn("max_pool2d", _pool_ref("max"), ((2, 3, 6, 6),), {"kernel_size": 2}, distinct=True,
        saves="kept"),
    _nn("max_pool2d", _pool_ref("max"), ((1, 2, 7, 6),),
        {"kernel_size": 3, "stride": 2, "padding": 1}, variant="overlap-pad", distinct=True,
        saves="kept"),
    _nn("max_pool2d", _pool_ref("max"), ((1, 2, 7, 7),),
        {"kernel_size": (2, 3), "stride": (3, 1), "dilation": (2, 1)}, variant="dilation",
        distinct=True),
    _nn("max_pool2d", _pool_ref("max"), ((2, 2, 5, 7),), {"kernel_size": 2}, variant="odd",
        distinct=True),
    _nn("avg_pool2d", _pool_ref("avg"), ((2, 3, 6, 6),), {"kernel_size": 2}),
    _nn("avg_pool2d", _pool_ref("avg"), ((1, 2, 7, 5),),
        {"kernel_size": 3, "stride": 2, "padding": 1}, variant="overlap-pad"),
    _nn("avg_pool2d", _pool_ref("avg"), ((1, 2, 5, 6),),
        {"kernel_size": 3, "stride": (2, 1), "padding": 1, "count_include_pad": False},
        variant="exclude-pad"),
    # max_unpool: each value at its index (declared in mutograd/ops/pooling.py)
    _unpool((2, 3, 4), 2, (8,)),
    _unpool((1, 2, 3, 2), 2, (7, 5), variant="2d-longer-output"),
    _unpool((1, 2, 2, 2, 3), 2, (4, 4, 6)),
]



# ---- the rest of the in-place surface (docs/inplace_api.md) ---------------------------------
# These rows are compared with PyTorch through their ``_`` form (``torch_inplace``): PyTorch's
# in-place method on a non-leaf, or the row's own PyTorch form of the in-place result.
_FLOAT_RESULT = {   # the ``_`` form refuses to write its float result into an integer tensor
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "celu", "copysign", "cosh", "deg2rad",
    "digamma", "erf", "erfc", "erfinv", "float_power", "hardsigmoid", "hypot", "i0", "ldexp",
    "lgamma", "logit", "mish", "multigammaln", "polygamma", "rad2deg", "selu", "sinc", "sinh",
    "xlogy"}
_SURFACE_KIND = {
    **dict.fromkeys(("addmm", "addmv", "addr", "baddbmm", "addbmm"), "linalg"),
    **dict.fromkeys(("scatter_reduce", "put_along_axis", "index_reduce"), "index"),
    **dict.fromkeys(("embedding_renorm", "fill_diagonal", "fill_diagonal_tensor", "renorm"),
                    "other")}


def _placed(args):
    """A ``call`` from ``args(tensors, attrs) -> (positional, keywords)``."""
    def call(fn, *ts, **attrs):
        pos, kw = args(list(ts), attrs)
        return fn(*pos, **kw)
    return call


def _s(name, ref, sample=None, args=None, tref=None, **kw):
    """A row of the in-place surface: ``sample(rng)`` gives its input arrays, ``args`` places
    them, ``tref(torch, *tensors)`` is PyTorch's form of the in-place result."""
    if sample is not None:
        kw["make"] = sample
    if args is not None:
        kw["call"] = _placed(args)
    plain = not (sample or args or kw.get("attrs")) and kw.get("torch_name") != ""
    kw.setdefault("torch_inplace", tref or plain)
    kw.setdefault("torch", False)
    kw.setdefault("float_out", name in _FLOAT_RESULT)
    kw.setdefault("kind", _SURFACE_KIND.get(name, "elementwise"))
    return OpInfo(name, ref, **kw)


def _su(name, ref, **kw):
    return _s(name, ref, **kw)


def _sb(name, ref, **kw):
    kw.setdefault("shapes", ((3, 4), (4,)))
    return _s(name, ref, nargs=2, **kw)


def _sm(name, ref, shapes, **kw):
    kw.setdefault("attrs", {"beta": 0.5, "alpha": 2.0})
    return _s(name, ref, nargs=3, shapes=shapes, view_ok=False, workspace=True, **kw)


def _n_first(fn, x, n):
    """``mg.polygamma(n, x)`` takes PyTorch's order; the method and ``polygamma_`` take ``x``
    first (as in both frameworks)."""
    return fn(n, x) if getattr(fn, "__name__", None) == "polygamma" else fn(x, n=n)


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
    return _s(
        name, _scatter_ref(reduce, include_self), nargs=3, sample=_scatter_sample,
        attrs={"axis": 0, "reduce": reduce, "include_self": include_self}, args=_scatter_args,
        variant=reduce + ("" if include_self else "-exclude-self"),
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
    return _s(
        "index_reduce", _index_reduce_ref(reduce), nargs=3, sample=_index_reduce_sample,
        attrs={"axis": 0}, saves="input", view_ok=False, variant=reduce,
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


SURFACE = [
    # inverse trig and hyperbolic: gradients through the output, no copy in place
    _su("asin", np.arcsin, domain=(-0.9, 0.9), saves="out-copied"),
    _su("acos", np.arccos, domain=(-0.9, 0.9), saves="out-copied"),
    _su("atan", np.arctan, saves="out-copied"),
    # PyTorch has no derivative for asinh_, acosh_, atanh_ in place: compare with its out-of-place
    _su("asinh", np.arcsinh, saves="out-copied", tref=lambda torch, x: torch.asinh(x)),
    _su("acosh", np.arccosh, domain=(1.2, 3), saves="out-copied",
       tref=lambda torch, x: torch.acosh(x)),
    _su("atanh", np.arctanh, domain=(-0.9, 0.9), saves="out-copied",
       tref=lambda torch, x: torch.atanh(x)),
    _su("sinh", np.sinh, saves="out-copied"),
    _su("cosh", np.cosh, saves="input"),
    _su("deg2rad", np.deg2rad),
    _su("rad2deg", np.rad2deg),
    _su("frac", lambda x: x - np.trunc(x)),
    _su("sgn", np.sign, positive=True),
    _su("nan_to_num", np.nan_to_num, saves="input"),
    # activations
    _su("hardtanh", lambda x: np.clip(x, -0.5, 0.5), attrs={"min": -0.5, "max": 0.5},
       positive=True, saves="out-copied",
       tref=lambda torch, x: torch.nn.functional.hardtanh(x, -0.5, 0.5)),
    _su("celu", lambda x: _celu(x, 1.5), attrs={"alpha": 1.5}, positive=True, saves="out",
       tref=lambda torch, x: torch.celu(x, 1.5)),
    _su("selu", lambda x: _SS * np.where(x > 0, x, _SA * np.expm1(x)), positive=True,
       saves="out", tref=lambda torch, x: torch.selu(x)),
    _su("mish", lambda x: x * np.tanh(np.logaddexp(0, x)), saves="input",
       tref=lambda torch, x: torch.nn.functional.mish(x)),
    _su("hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), domain=(-4, 4), saves="out-copied",
       tref=lambda torch, x: torch.nn.functional.hardsigmoid(x)),
    _su("threshold", lambda x: np.where(x > 0.3, x, -1.0),
       attrs={"threshold": 0.3, "value": -1.0}, saves="input",
       tref=lambda torch, x: torch.threshold(x, 0.3, -1.0)),
    _su("thresholded_relu", lambda x: np.where(x > 0.5, x, 0.0), attrs={"threshold": 0.5},
       saves="input"),
    _su("clamp_min", lambda x: np.maximum(x, 0.2), attrs={"min": 0.2}, saves="input",
       tref=lambda torch, x: torch.clamp_min(x, 0.2)),
    _su("clamp_max", lambda x: np.minimum(x, 0.2), attrs={"max": 0.2}, saves="input",
       tref=lambda torch, x: torch.clamp_max(x, 0.2)),
    # special functions (scipy.special)
    _su("digamma", sc.digamma, domain=(0.5, 3), saves="input"),
    _su("lgamma", sc.gammaln, domain=(0.5, 3), saves="input"),
    _su("erf", sc.erf, saves="input"),
    _su("erfc", sc.erfc, saves="input"),
    _su("erfinv", sc.erfinv, domain=(-0.9, 0.9), saves="out-copied"),
    _su("i0", sc.i0, saves="input"),
    _su("sinc", np.sinc, saves="input"),
    _su("polygamma", lambda x: sc.polygamma(2, x), attrs={"n": 2}, domain=(0.5, 3),
       saves="input", tref=lambda torch, x: torch.polygamma(2, x), call=_n_first),
    _su("multigammaln", lambda x: _mgl(x, 3), attrs={"p": 3}, domain=(1.5, 4), saves="input",
       tref=lambda torch, x: torch.mvlgamma(x, 3)),
    _su("logit", sc.logit, domain=(0.1, 0.9), saves="input"),
    _su("logit", lambda x: sc.logit(np.clip(x, 0.2, 0.8)), attrs={"eps": 0.2}, domain=(0.05, 0.95),
       saves="input", variant="eps", tref=lambda torch, x: torch.logit(x, 0.2)),
    _sb("xlogy", sc.xlogy, domain=(0.2, 2), saves="other", copies_for_others=True),
    # binary element-wise
    _sb("copysign", np.copysign, positive=True, saves="input"),
    _sb("hypot", np.hypot, positive=True, saves="input"),
    _sb("ldexp", lambda x, y: x * np.exp2(y), saves="other"),
    _sb("float_power", np.power, domain=(0.5, 2), saves="input"),
    _sb("nextafter", np.nextafter),
    # matrix updates: beta * x + alpha * product
    _sm("addmm", lambda x, a, b: 0.5 * x + 2 * a @ b, ((3, 4), (3, 5), (5, 4)),
       tref=lambda torch, x, a, b: torch.addmm(x, a, b, beta=0.5, alpha=2.0)),
    _sm("addmv", lambda x, a, v: 0.5 * x + 2 * a @ v, ((3,), (3, 4), (4,)),
       tref=lambda torch, x, a, v: torch.addmv(x, a, v, beta=0.5, alpha=2.0)),
    _sm("addr", lambda x, a, b: 0.5 * x + 2 * np.outer(a, b), ((3, 4), (3,), (4,)),
       tref=lambda torch, x, a, b: torch.addr(x, a, b, beta=0.5, alpha=2.0)),
    _sm("baddbmm", lambda x, a, b: 0.5 * x + 2 * a @ b, ((2, 3, 4), (2, 3, 5), (2, 5, 4)),
       tref=lambda torch, x, a, b: torch.baddbmm(x, a, b, beta=0.5, alpha=2.0)),
    _sm("addbmm", lambda x, a, b: 0.5 * x + 2 * (a @ b).sum(0), ((3, 4), (2, 3, 5), (2, 5, 4)),
       tref=lambda torch, x, a, b: torch.addbmm(x, a, b, beta=0.5, alpha=2.0)),
    _su("renorm", lambda x: _renorm(x, 2, 0, 1.0), attrs={"p": 2, "axis": 0, "max_norm": 1.0},
       saves="input", view_ok=False, tref=lambda torch, x: torch.renorm(x, 2, 0, 1.0)),
    _su("renorm", lambda x: _renorm(x, 3, 1, 1.5), attrs={"p": 3, "axis": 1, "max_norm": 1.5},
       saves="input", variant="p3-axis1", view_ok=False,
       tref=lambda torch, x: torch.renorm(x, 3, 1, 1.5)),
    _s("embedding_renorm", _emb_ref, nargs=2, sample=_emb_sample,
                attrs={"max_norm": 0.8, "norm_type": 2.0}, saves="input", view_ok=False),
    # writes of other tensors' values
    _sb("copy", lambda x, y: np.broadcast_to(y, x.shape) + 0 * x, function=False, method=False,
       tref=lambda torch, x, y: x.clone().copy_(y)),
    _s("fill_diagonal", _fill_diag_ref, nargs=2, shapes=((4, 4), ()), view_ok=False,
                torch_name=""),      # PyTorch's fill value is a number, not a tensor
    _s("fill_diagonal_tensor", _fill_diag_tensor_ref, nargs=2, shapes=((4, 5), (4,)),
                attrs={"offset": 1}, view_ok=False),
    # reductions into x at indices
    *[_scatter_row(r) for r in ("sum", "prod", "mean", "amax", "amin", "assign")],
    _scatter_row("sum", include_self=False),
    _scatter_row("mean", include_self=False),
    _s("put_along_axis", _scatter_ref("assign"), nargs=3, sample=_scatter_sample,
                attrs={"axis": 0}, args=lambda ts, at: ((ts[0], ts[1], ts[2], at["axis"]), {}),
                saves="input", view_ok=False),
    _s("put_along_axis", _scatter_ref("sum"), nargs=3, sample=_scatter_sample,
                attrs={"axis": 0}, saves="input", view_ok=False,
                args=lambda ts, at: ((ts[0], ts[1], ts[2], at["axis"], "add"), {}),
                variant="add"),
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


# ---- index writes, linear algebra and the rest of the registry ----------------------------------
def _scatter_add_ref(x, axis, index, src):
    out = x.copy()
    np.add.at(out, (index, np.broadcast_to(np.arange(index.shape[1]), index.shape)), src)
    return out


def _index_add_ref(x, axis, index, src):
    out = x.copy()
    np.add.at(out, index, src)
    return out


def _index_fill_ref(x, axis, index, value):
    out = x.copy()
    out[:, index] = value
    return out


def _diag_embed_ref(x):
    return np.stack([np.diag(r) for r in x])


def _expm(x):
    import scipy.linalg
    return scipy.linalg.expm(x)


def _square(rng, n=3):
    return [rng.uniform(-0.5, 0.5, (n, n)) + 2 * np.eye(n)]     # well conditioned


def _index_copy_ref(x, axis, index, src):
    out = x.copy()
    out[:, index] = src
    return out


def _masked_scatter_ref(x, mask, src):
    out = x.copy()
    m = np.broadcast_to(mask, x.shape)
    out[m] = src.reshape(-1)[:m.sum()]
    return out


def _put_ref(x, index, src, accumulate=False):
    out = x.copy()
    flat = out.reshape(-1)              # a view of the copy
    if accumulate:
        np.add.at(flat, index, src.reshape(-1))
    else:
        flat[index] = src.reshape(-1)
    return out


def _scatter_at(reduce):
    """scatter(x, 0, index, src): the surface rows' reference, with the axis argument."""
    return lambda x, axis, index, src: _scatter_ref(reduce)(x, index, src)


def _scatter_make(unique, lo=-2.0, hi=2.0):
    """x (4, 3), then axis 0, an index and a src (3, 3); ``unique``: no row repeats in a
    column, so every write is kept."""
    def make(rng):
        index = (np.stack([rng.permutation(4)[:3] for _ in range(3)], axis=1) if unique
                 else rng.integers(0, 4, (3, 3)))
        return Sample([rng.uniform(lo, hi, (4, 3)), 0, index, rng.uniform(lo, hi, (3, 3))],
                      {}, (0, 3))
    return make


def _with_kwargs(make, **kwargs):
    return lambda rng: make(rng)._replace(kwargs=kwargs)


def _spd(rng, n=3):
    b = rng.uniform(-1, 1, (n, n))
    return [b @ b.T + n * np.eye(n)]                        # symmetric positive definite


def _sym(a):
    # Cholesky reads one triangle; on (a + a^T) / 2 its finite differences and its gradient
    # (symmetric, as PyTorch's) agree
    return (a + np.swapaxes(a, -1, -2)) / 2


def _cholesky_ref(a, upper=False):
    low = np.linalg.cholesky(_sym(a))
    return low.T if upper else low


def _full_rank(shape):
    return lambda rng: [rng.uniform(-0.5, 0.5, shape) + 2 * np.eye(*shape)]


def _solve_make(b_shape):
    return lambda rng: Sample(_square(rng) + [rng.uniform(-2, 2, b_shape)], {}, (0, 1))


def _solve_ref(a, b, left=True):
    return np.linalg.solve(a, b) if left else np.linalg.solve(a.T, b.T).T


def _solve_tri_ref(a, b, upper, left=True, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        np.fill_diagonal(t, 1.0)
    return _solve_ref(t, b, left)


def _negative_det(rng):
    return [_square(rng)[0][[1, 0, 2]]]                    # rows swapped: det < 0


def _set_value(x, v):
    """The set_value op itself (paddle.Tensor.set_value also lets a leaf be loaded)."""
    from mutograd.ops.registry import OPS, call_inplace
    return call_inplace(OPS["set_value"], [x, v], {})


def _paddle_write(rng):
    import mutograd.compat.paddle  # noqa: F401  (declares the set_value op)
    return _floats(rng, (3, 4), (3, 4))


WRITES_AND_LINALG = [
    _u("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, domain=(-2.5, 2.5), saves="input",
       torch_name="nn.functional.hardswish"),
    _u("conj_physical", lambda x: x.copy()),
    _b("gammainc", sc.gammainc, domain=(0.5, 2.0), grad=False, float_out=True,
       copies_for_others=True, torch_name="special.gammainc"),    # no x gradient; y's needs x
    _b("gammaincc", sc.gammaincc, domain=(0.5, 2.0), grad=False, float_out=True,
       copies_for_others=True, torch_name="special.gammaincc"),    # no x gradient; y's needs x
    OpInfo("fill", lambda x, v: np.broadcast_to(v, x.shape) + 0 * x, nargs=2,
           shapes=((3, 4), ()), function=False, method=False, torch=False),
    OpInfo("zero", np.zeros_like, function=False, method=False, torch=False),
    OpInfo("scatter_add", _scatter_add_ref, kind="index", view_ok=False, torch=False,
           make=lambda rng: Sample([rng.uniform(-2, 2, (4, 3)), 0, rng.integers(0, 4, (5, 3)),
                                    rng.uniform(-2, 2, (5, 3))], {}, (0, 3))),
    OpInfo("index_add", _index_add_ref, kind="index", view_ok=False, torch=False,
           make=lambda rng: Sample([rng.uniform(-2, 2, (4, 3)), 0, np.array([0, 2, 2, 3, 0]),
                                    rng.uniform(-2, 2, (5, 3))], {}, (0, 3))),
    OpInfo("index_fill", _index_fill_ref, kind="index", view_ok=False, torch=False,
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), 1, np.array([0, 2]), 0.5], {},
                                   (0,))),
    OpInfo("diag_embed", _diag_embed_ref, kind="copy", inplace=False, shapes=((2, 3),)),
    OpInfo("matrix_exp", _expm, kind="linalg", inplace=False, make=_square, torch=False,
           call=lambda fn, x: mg_linalg().matrix_exp(x)),
    OpInfo("det", np.linalg.det, kind="linalg", inplace=False, make=_square, torch=False,
           call=lambda fn, x: mg_linalg().det(x)),
    OpInfo("inverse", np.linalg.inv, kind="linalg", inplace=False, make=_square, torch=False,
           call=lambda fn, x: mg_linalg().inv(x)),
    # index writes: unique indices where a repeat would keep only one write
    OpInfo("index_copy", _index_copy_ref, kind="index",
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), 1, np.array([3, 0]),
                                    rng.uniform(-2, 2, (3, 2))], {}, (0, 3))),
    OpInfo("masked_scatter", _masked_scatter_ref, kind="index",     # the mask broadcasts
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), _mask(rng, (4,)),
                                    rng.uniform(-2, 2, (2, 6))], {}, (0, 2))),
    OpInfo("put", _put_ref, kind="index",
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), np.array([5, -1, 0, 7]),
                                    rng.uniform(-2, 2, (2, 2))], {}, (0, 2))),
    OpInfo("put", _put_ref, kind="index", variant="accumulate",       # repeats add up
           make=lambda rng: Sample([rng.uniform(-2, 2, (3, 4)), np.array([5, 5, 0, -1]),
                                    rng.uniform(-2, 2, (4,))], {"accumulate": True}, (0, 2))),
    OpInfo("scatter", _scatter_at("assign"), kind="index", make=_scatter_make(unique=True)),
    OpInfo("scatter", _scatter_at("sum"), kind="index", variant="add",
           make=_with_kwargs(_scatter_make(unique=False), reduce="add"),
           torch=lambda torch, x, axis, index, src, reduce: torch.scatter_add(x, axis, index,
                                                                              src)),
    # x's gradient needs src, src's needs x (products commute: repeats are fine)
    OpInfo("scatter", _scatter_at("prod"), kind="index", variant="multiply",
           make=_with_kwargs(_scatter_make(unique=False, lo=0.5, hi=2.0), reduce="multiply"),
           saves="other", copies_for_others=True, covers=("scatter_mul",),
           torch=lambda torch, x, axis, index, src, reduce: torch.scatter_reduce(
               x, axis, index, src, "prod")),
    # Paddle's x.set_value(v): an in-place write with no ``_`` name and no function
    OpInfo("set_value", lambda x, v: v + 0 * x, nargs=2, make=_paddle_write, function=False,
           call=lambda fn, x, v: _set_value(x, v), torch=False,
           torch_inplace=lambda torch, x, v: (x * 1.0).copy_(v)),
    # linear algebra on well-conditioned matrices
    *[OpInfo("linalg_cholesky", _cholesky_ref, kind="linalg", inplace=False, method=False,
             variant=v, make=_spd, attrs=attrs, saves="out",
             call=lambda fn, a, **k: mg_linalg().cholesky((a + a.mT) / 2, **k),
             torch=lambda torch, a, **k: torch.linalg.cholesky((a + a.mT) / 2, **k))
      for v, attrs in (("", {}), ("upper", {"upper": True}))],
    *[OpInfo("linalg_pinv", np.linalg.pinv, kind="linalg", inplace=False, method=False,
             variant=v, make=_full_rank(shape), saves="out",
             call=lambda fn, a: mg_linalg().pinv(a),
             torch=lambda torch, a: torch.linalg.pinv(a))
      for v, shape in (("", (3, 4)), ("tall", (4, 3)))],
    *[OpInfo("solve", _solve_ref, kind="linalg", inplace=False, method=False, variant=v,
             make=_with_kwargs(_solve_make(b_shape), **kwargs), saves="out",
             call=lambda fn, a, b, **k: mg_linalg().solve(a, b, **k),
             torch=lambda torch, a, b, **k: torch.linalg.solve(a, b, **k), xfail=xfail)
      for v, b_shape, kwargs, xfail in (
          ("", (3, 2), {}, {}), ("vector", (3,), {}, {}),
          ("right", (2, 3), {"left": False}, {}))],
    *[OpInfo("solve_triangular", _solve_tri_ref, kind="linalg", inplace=False, method=False,
             variant=v, make=_with_kwargs(_solve_make(b_shape), **kwargs), saves="out",
             call=lambda fn, a, b, **k: mg_linalg().solve_triangular(a, b, **k),
             torch=lambda torch, a, b, **k: torch.linalg.solve_triangular(a, b, **k))
      for v, b_shape, kwargs in (
          ("", (3, 2), {"upper": True}),
          ("lower-unit-right", (2, 3), {"upper": False, "left": False, "unitriangular": True}))],
    OpInfo("slogdet", np.linalg.slogdet, kind="linalg", inplace=False, make=_negative_det,
           covers=("logabsdet", "slogdet_sign")),
]


def mg_linalg():
    import mutograd
    return mutograd.linalg


# ---- normalisation, embedding, padding, adaptive pooling (mutograd.nn.functional) ------------
def _adaptive_avg_pool2d_ref(x, output_size):
    """The mean of bin i of n: input cells floor(i*n_in/n) to ceil((i+1)*n_in/n)."""
    (h, w), (oh, ow) = x.shape[2:], _pair(output_size)
    oh, ow = oh or h, ow or w
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * h // oh:-(-(i + 1) * h // oh),
                                j * w // ow:-(-(j + 1) * w // ow)].mean(axis=(2, 3))
    return out


def _embedding_make(**kwargs):
    return lambda rng: Sample([np.array([[0, 2, 4], [2, 2, 1]]), rng.uniform(-2, 2, (5, 3))],
                              kwargs, (1,))


def _standardized(x, axes, eps=1e-5):
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)


def _layer_norm_ref(x, weight=None, bias=None, *, normalized_shape, eps=1e-5):
    out = _standardized(x, tuple(range(x.ndim - len(normalized_shape), x.ndim)), eps)
    return out * (1 if weight is None else weight) + (0 if bias is None else bias)


def _layer_norm_call(fn, x, *weight_bias, normalized_shape, **kw):
    return _nnf().layer_norm(x, normalized_shape, *weight_bias, **kw)


def _layer_norm_torch(torch, x, *weight_bias, normalized_shape, **kw):
    return torch.nn.functional.layer_norm(x, normalized_shape, *weight_bias, **kw)


def _batch_norm_ref(x, weight, bias):
    return _standardized(x, (0, 2)) * weight[:, None] + bias[:, None]


def _pad_ref(x, pad, mode="constant", value=None):
    """``pad`` is (left, right) of the last axis, then of the one before, ...; a negative size
    crops (constant mode)."""
    k = len(pad) // 2
    widths = [(0, 0)] * (x.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in range(k)][::-1]
    x = x[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(widths, x.shape))]
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if mode == "constant":
        return np.pad(x, widths, constant_values=value or 0.0)
    return np.pad(x, widths, {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


def _cross_entropy_ref(x, target, weight=None, *, ignore_index=-100, reduction="mean"):
    logp = x - x.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    wt = (np.ones(x.shape[1]) if weight is None else weight)[safe] * valid
    loss = -logp[np.arange(len(safe)), safe] * wt
    return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / wt.sum()}[reduction]


def _cross_entropy_make(weighted, **attrs):
    """Logits (5, 4), class indices with one ignored row, and class weights."""
    def make(rng):
        xs = [rng.uniform(-2, 2, (5, 4)), np.array([0, 3, 1, -100, 2])]
        if weighted:
            xs.append(rng.uniform(0.5, 2.0, 4))
        return Sample(xs, {"ignore_index": -100, **attrs}, (0,))
    return make


def _cross_entropy_backward_ref(g, x, target, weight=None, *, ignore_index=-100,
                                reduction="mean"):
    e = np.exp(x - x.max(1, keepdims=True))
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    wt = (np.ones(x.shape[1]) if weight is None else weight)[safe] * valid
    scale = wt * g / (wt.sum() if reduction == "mean" else 1)
    return (e / e.sum(1, keepdims=True) - np.eye(x.shape[1])[safe]) * scale[:, None]


def _cross_entropy_backward_make(weighted, reduction):
    """The incoming gradient (one per row for 'none'), then the cross-entropy's inputs."""
    def make(rng):
        s = _cross_entropy_make(weighted, reduction=reduction)(rng)
        g = rng.uniform(0.5, 2.0, (5,) if reduction == "none" else ())
        return Sample([g] + s.args + [None] * (not weighted), s.kwargs, (0, 1))
    return make


def _cross_entropy_backward_torch(torch, g, x, target, weight=None, **kw):
    """PyTorch's gradient of its cross-entropy in the logits, with its graph."""
    loss = torch.nn.functional.cross_entropy(x, target, weight, **kw)
    return torch.autograd.grad(loss, x, g, create_graph=True)[0]


def _fused_gradient(name, ref, shapes, torch, **kw):
    """A row of a gradient declared as an op (Note [Fused gradients] in ops/registry.py)."""
    return _nn(name, ref, shapes, call=lambda fn, *a, **k: _ops()[name].function(*a, **k),
               torch=torch, **kw)


NN = [
    # gradients declared as ops: their own gradients are the third order of their op
    _fused_gradient("tanh_backward", lambda g, y: g * (1 - y * y), ((3, 4), (3, 4)),
                    lambda torch, g, y: torch.ops.aten.tanh_backward(g, y)),
    _fused_gradient("sigmoid_backward", lambda g, y: g * y * (1 - y), ((3, 4), (3, 4)),
                    lambda torch, g, y: torch.ops.aten.sigmoid_backward(g, y)),
    *[_fused_gradient("cross_entropy_indices_backward", _cross_entropy_backward_ref, (),
                      _cross_entropy_backward_torch, variant=f"{r}{'-weighted' * w}",
                      make=_cross_entropy_backward_make(w, r))
      for r in ("mean", "sum", "none") for w in (False, True)],
    # x @ W.T + b as one op (ops/matmul.py)
    _nn("linear", lambda x, w, b: x @ w.T + b, ((3, 4), (5, 4), (5,)), covers=("linear",)),
    _nn("linear", lambda x, w: x @ w.T, ((3, 4), (5, 4)), variant="no-bias"),
    _nn("linear", lambda x, w, b: x @ w.T + b, ((2, 3, 4), (5, 4), (5,)), variant="stacked"),
    _nn("linear", lambda x, w, b: x @ w.T + b, ((4,), (5, 4), (5,)), variant="vector"),
    _nn("linear", lambda x, w, b, in_out: x @ w + b, ((3, 4), (4, 5), (5,)), {"in_out": True},
        variant="in-out", call=lambda fn, *a, **k: _ops()["linear"].function(*a, **k),
        torch=lambda torch, x, w, b, in_out: x @ w + b),   # Paddle's weight layout
    # the fused softmax cross-entropy over class indices (ops/losses.py)
    *[_nn("cross_entropy", _cross_entropy_ref, (), variant=f"{r}{'-weighted' * w}",
          make=_cross_entropy_make(w, reduction=r), covers=("cross_entropy_indices",))
      for r in ("mean", "sum", "none") for w in (False, True)],
    _nn("adaptive_avg_pool2d", _adaptive_avg_pool2d_ref, ((2, 3, 5, 7),),
        {"output_size": (2, 3)}),                                   # overlapping bins
    _nn("adaptive_avg_pool2d", _adaptive_avg_pool2d_ref, ((1, 2, 3, 5),),
        {"output_size": (4, None)}, variant="larger-and-kept"),
    _nn("embedding", lambda idx, w: w[idx], ((2, 3), (5, 3)), make=_embedding_make()),
    _nn("embedding", lambda idx, w: w[idx], ((2, 3), (5, 3)), variant="padding-idx", fd=False,
        make=_embedding_make(padding_idx=2)),      # row 2 gets no gradient: PyTorch checks it
    _nn("layer_norm", _layer_norm_ref, ((2, 3, 4), (3, 4), (3, 4)),
        {"normalized_shape": (3, 4)}, saves="input", call=_layer_norm_call,
        torch=_layer_norm_torch),
    _nn("layer_norm", _layer_norm_ref, ((3, 4),), {"normalized_shape": (4,), "eps": 0.1},
        variant="no-affine", saves="input", call=_layer_norm_call, torch=_layer_norm_torch),
    # batch norm in training: the registry's ``normalize`` over (N, L), then scale and shift
    _nn("batch_norm", _batch_norm_ref, ((4, 3, 2), (3,), (3,)), covers=("normalize",),
        saves="input",
        call=lambda fn, x, w, b: _nnf().batch_norm(x, None, None, w, b, training=True),
        torch=lambda torch, x, w, b: torch.nn.functional.batch_norm(x, None, None, w, b,
                                                                    training=True)),
    _nn("pad", _pad_ref, ((2, 3, 4),), {"pad": (1, 2, -1, 1), "value": 0.5}),
    *[_nn("pad", _pad_ref, ((1, 2, 3, 4),), {"pad": (1, 2, 2, 1), "mode": mode}, variant=mode)
      for mode in ("reflect", "replicate", "circular")],
]


# ---- torch.special's functions beyond the above (mutograd/ops/special.py) ---------------------
def _sp_u(name, ref, **kw):
    """A special function of one input, with no in-place form (PyTorch has none)."""
    return _u(name, ref, inplace=False, float_out=True, torch_name="special." + name, **kw)


def _chebyshev_u(n, x):
    return sc.eval_chebyu(n, x)


def _third_fourth(sign):
    """V_n = U_n - U_(n-1) and W_n = U_n + U_(n-1) (U_(-1) = 0)."""
    return lambda n, x: sc.eval_chebyu(n, x) + sign * np.where(
        n > 0, sc.eval_chebyu(np.maximum(n - 1, 0), x), 0)


def _polynomial_ref(of, shifted=False):
    """A reference ``(x, n)``: ``of(n, x)`` for n >= 0, 0 for a negative degree."""
    def ref(x, n):
        t = 2 * x - 1 if shifted else x
        return np.where(n >= 0, of(np.maximum(n, 0), t), 0.0)
    return ref


_POLYNOMIAL_REFS = {
    "chebyshev_polynomial_t": sc.eval_chebyt, "chebyshev_polynomial_u": _chebyshev_u,
    "chebyshev_polynomial_v": _third_fourth(-1), "chebyshev_polynomial_w": _third_fourth(1),
    "hermite_polynomial_h": sc.eval_hermite, "hermite_polynomial_he": sc.eval_hermitenorm,
    "laguerre_polynomial_l": sc.eval_laguerre, "legendre_polynomial_p": sc.eval_legendre,
}


def _polynomial_row(name, of, shifted=False):
    # integer degrees from -1 (a zero polynomial) to 6, broadcast against x; no gradient
    return OpInfo(name, _polynomial_ref(of, shifted), nargs=2, grad=False, inplace=False,
                  float_out=True, torch_name="special." + name,
                  make=lambda rng: Sample([rng.uniform(-1.5, 1.5, (3, 4)),
                                           rng.integers(-1, 7, (4,))], {}, ()))


SPECIAL = [
    _sp_u("entr", sc.entr, domain=(0.2, 3)),
    _sp_u("erfcx", sc.erfcx),
    _sp_u("ndtr", sc.ndtr, domain=(-3, 3)),
    _sp_u("log_ndtr", sc.log_ndtr, domain=(-3, 3)),
    _sp_u("ndtri", sc.ndtri, domain=(0.05, 0.95)),
    _b("xlog1py", sc.xlog1py, domain=(0.2, 2), inplace=False, float_out=True,
       torch_name="special.xlog1py"),
    # no derivative w.r.t. the exponent (as in PyTorch): the gradient w.r.t. q alone
    OpInfo("zeta", sc.zeta, nargs=2, inplace=False, float_out=True, torch_name="special.zeta",
           make=lambda rng: Sample([rng.uniform(1.5, 3, (3, 4)), rng.uniform(0.5, 2, (4,))],
                                   {}, (1,))),
    # no gradient in PyTorch, none here
    *[_sp_u(n, ref, grad=False, domain=dom) for n, ref, dom in (
        ("airy_ai", lambda x: sc.airy(x)[0], (-4, 4)), ("bessel_j0", sc.j0, (-5, 5)),
        ("bessel_j1", sc.j1, (-5, 5)), ("bessel_y0", sc.y0, (0.2, 5)),
        ("bessel_y1", sc.y1, (0.2, 5)), ("modified_bessel_k0", sc.k0, (0.2, 5)),
        ("modified_bessel_k1", sc.k1, (0.2, 5)), ("scaled_modified_bessel_k0", sc.k0e, (0.2, 5)),
        ("scaled_modified_bessel_k1", sc.k1e, (0.2, 5)),
        ("spherical_bessel_j0", lambda x: sc.spherical_jn(0, x), (-5, 5)))],
    *[_polynomial_row(n, of) for n, of in _POLYNOMIAL_REFS.items()],
    *[_polynomial_row("shifted_" + n, _POLYNOMIAL_REFS[n], shifted=True)
      for n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w")],
]


# ---- the one table -----------------------------------------------------------------------------
OPS = BASE + SURFACE + WRITES_AND_LINALG + NN + SPECIAL
IDS = [o.id for o in OPS]
