"""The op table: one OpInfo per public op drives every generic check in test_ops.py.

Adding an op is one line in its declaration module and one line here.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import scipy.special


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
                                      # "out", "other" (another input) or "input" (a copy)
    positive: bool = False            # inputs kept away from 0 (|x| >= 0.1, sign preserved)
    int_ok: bool = True               # accepts integer tensors out of place
    atol: float = 1e-6
    torch_name: Optional[str] = None  # name in PyTorch when it differs (None: same)


def _u(name, ref, **kw):
    return OpInfo(name, ref, **kw)


def _b(name, ref, **kw):
    kw.setdefault("shapes", ((3, 4), (4,)))
    return OpInfo(name, ref, nargs=2, **kw)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


OPS = [
    _u("neg", np.negative),
    _u("abs", np.abs, saves="input", positive=True),
    _u("exp", np.exp, saves="out"),
    _u("expm1", np.expm1, saves="out"),
    _u("log", np.log, domain=(0.2, 3), saves="input"),
    _u("log1p", np.log1p, domain=(-0.5, 3), saves="input"),
    _u("log2", np.log2, domain=(0.2, 3), saves="input"),
    _u("log10", np.log10, domain=(0.2, 3), saves="input"),
    _u("sqrt", np.sqrt, domain=(0.2, 3), saves="out"),
    _u("rsqrt", lambda x: 1 / np.sqrt(x), domain=(0.2, 3), saves="out"),
    _u("square", np.square, saves="input"),
    _u("reciprocal", np.reciprocal, positive=True, saves="out"),
    _u("sin", np.sin, saves="input"),
    _u("cos", np.cos, saves="input"),
    _u("tan", np.tan, domain=(-1.2, 1.2), saves="out"),
    _u("tanh", np.tanh, saves="out"),
    _u("sigmoid", _sigmoid, saves="out"),
    _u("relu", lambda x: np.maximum(x, 0), positive=True, saves="out"),
    _u("relu6", lambda x: np.clip(x, 0, 6), domain=(-3, 8), positive=True, saves="out"),
    _u("leaky_relu", lambda x: np.where(x > 0, x, 0.01 * x), positive=True, saves="out"),
    _u("elu", lambda x: np.where(x > 0, x, np.expm1(x)), positive=True, saves="out"),
    _u("gelu", lambda x: 0.5 * x * (1 + scipy.special.erf(x / np.sqrt(2))), saves="input"),
    _u("silu", lambda x: x * _sigmoid(x), saves="input"),
    _u("softplus", lambda x: np.log1p(np.exp(x)), saves="input"),
    _u("clamp", lambda x: np.clip(x, -0.5, 0.5), attrs={"min": -0.5, "max": 0.5},
       saves="input", positive=True),
    _u("scale", lambda x: 2.5 * x + 1, attrs={"scale": 2.5, "bias": 1.0}),
    _b("add", np.add),
    _b("sub", np.subtract),
    _b("mul", np.multiply, saves="other"),
    _b("div", np.divide, positive=True, saves="out"),
    _b("pow", np.power, domain=(0.5, 2), saves="input"),
    _b("maximum", np.maximum, saves="input"),
    _b("minimum", np.minimum, saves="input"),
    _b("atan2", np.arctan2, positive=True, saves="input"),
]
