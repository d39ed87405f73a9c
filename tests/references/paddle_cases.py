"""In-place cases recorded from Paddle 3.3.1 (paddle_reference.py) and replayed on mutograd
(tests/compat/test_paddle_reference.py). ``call(lib, *tensors)`` is written once for both:
mutograd's main namespace takes Paddle's names and argument orders; ``F(lib)`` is the functional
module.
"""
import numpy as np


def F(lib):
    """``paddle.nn.functional`` for Paddle; mutograd's main namespace holds the same names."""
    return lib.nn.functional if lib.__name__ == "paddle" else lib


class Case:
    def __init__(self, key, call, inputs, grad=True):
        self.key, self.call, self.grad = key, call, grad
        self._inputs = inputs

    def inputs(self):
        rng = np.random.default_rng(sum(map(ord, self.key)))   # stable across runs
        return [np.asarray(a(rng) if callable(a) else a) for a in self._inputs]


def U(lo, hi, shape=(3, 4)):
    return lambda rng: rng.uniform(lo, hi, shape)


def _fn(lib, name, x):
    """``lib.name`` where the package has it, else the method ``x.name`` (Paddle has many
    in-place APIs only as methods)."""
    f = getattr(lib, name, None)
    return (lambda *a, **k: f(x, *a, **k)) if f is not None else getattr(x, name)


def _u(name, lo=-2.0, hi=2.0, grad=True, **attrs):
    return Case(name, lambda lib, x: _fn(lib, name, x)(**attrs), [U(lo, hi)], grad)


def _b(name, lo=-2.0, hi=2.0, grad=True, shape=(4,)):
    return Case(name, lambda lib, x, y: _fn(lib, name, x)(y), [U(lo, hi), U(lo, hi, shape)],
                grad)


CASES = [
    _u("acos_", -0.9, 0.9), _u("asin_", -0.9, 0.9), _u("atan_"), _u("acosh_", 1.2, 3),
    _u("asinh_"), _u("atanh_", -0.9, 0.9), _u("cosh_"), _u("sinh_"),
    _u("digamma_", 0.5, 3), _u("lgamma_", 0.5, 3), _u("gammaln_", 0.5, 3), _u("erf_"),
    Case("erfinv_", lambda lib, x: x.erfinv_(), [U(-0.9, 0.9)]),
    _u("i0_"), _u("sinc_"), _u("frac_"),
    _u("logit_", 0.1, 0.9),
    Case("logit_eps", lambda lib, x: lib.logit_(x, eps=0.2), [U(0.05, 0.95)]),
    Case("polygamma_", lambda lib, x: lib.polygamma_(x, 2), [U(0.5, 3)]),
    Case("multigammaln_", lambda lib, x: lib.multigammaln_(x, 3), [U(1.5, 4)]),
    Case("nan_to_num_", lambda lib, x: lib.nan_to_num_(x, nan=1.5, posinf=9.0, neginf=-9.0),
         [np.array([[np.nan, np.inf, -np.inf, 0.25], [1.0, -2.0, np.nan, 3.0]])]),
    _b("hypot_", 0.1, 2), _b("copysign_"), _b("gammainc_", 0.5, 3, grad=False),
    _b("gammaincc_", 0.5, 3, grad=False),
    Case("ldexp_", lambda lib, x, y: lib.ldexp_(x, y), [U(-2, 2), np.array([0, 1, 2, 3])]),
    Case("hardtanh_", lambda lib, x: F(lib).hardtanh_(x, -0.5, 0.5), [U(-2, 2)]),
    Case("thresholded_relu_", lambda lib, x: F(lib).thresholded_relu_(x, 0.5), [U(-2, 2)]),
    Case("leaky_relu_", lambda lib, x: F(lib).leaky_relu_(x, 0.1), [U(-2, 2)]),
    Case("elu_", lambda lib, x: F(lib).elu_(x, 0.7), [U(-2, 2)]),
    Case("softmax_", lambda lib, x: F(lib).softmax_(x, axis=0), [U(-2, 2)]),
    Case("addmm_", lambda lib, x, a, b: lib.addmm_(x, a, b, beta=0.5, alpha=2.0),
         [U(-1, 1), U(-1, 1, (3, 5)), U(-1, 1, (5, 4))]),
    Case("baddbmm_", lambda lib, x, a, b: lib.baddbmm_(x, a, b, beta=0.5, alpha=2.0),
         [U(-1, 1, (2, 3, 4)), U(-1, 1, (2, 3, 5)), U(-1, 1, (2, 5, 4))]),
    Case("renorm_", lambda lib, x: lib.renorm_(x, 2.0, 0, 1.0), [U(-2, 2)]),
    Case("renorm_p3_axis1", lambda lib, x: lib.renorm_(x, 3.0, 1, 1.5), [U(-2, 2)]),
    Case("fill_diagonal_", lambda lib, x: x.fill_diagonal_(2.5), [U(-1, 1, (4, 4))]),
    Case("fill_diagonal_offset_wrap", lambda lib, x: x.fill_diagonal_(2.5, offset=0, wrap=True),
         [U(-1, 1, (7, 3))]),
    Case("fill_diagonal_tensor_", lambda lib, x, y: x.fill_diagonal_tensor_(y, offset=1),
         [U(-1, 1, (4, 5)), U(-1, 1, (4,))]),
    Case("put_along_axis_", lambda lib, x, i, v: x.put_along_axis_(i, v, 0),
         [U(-1, 1, (4, 3)), np.array([[0, 1, 2], [3, 0, 1]]), U(-1, 1, (2, 3))]),
    Case("put_along_axis_add", lambda lib, x, i, v: x.put_along_axis_(i, v, 0, "add"),
         [U(-1, 1, (4, 3)), np.array([[0, 1, 2], [0, 1, 2]]), U(-1, 1, (2, 3))]),
    Case("put_along_axis_mul", lambda lib, x, i, v: x.put_along_axis_(i, v, 0, "mul"),
         [U(-1, 1, (4, 3)), np.array([[0, 1, 2], [0, 1, 3]]), U(-1, 1, (2, 3))]),
    Case("where_", lambda lib, c, x, y: lib.where_(c, x, y),
         [np.array([True, False, True, False]), U(-1, 1, (4,)), U(-1, 1, (4,))]),
    Case("gcd_", lambda lib, x, y: lib.gcd_(x, y), [np.array([12, 18, -7, 0]),
                                                    np.array([8, 27, 21, 5])], grad=False),
    Case("lcm_", lambda lib, x, y: lib.lcm_(x, y), [np.array([4, 6, -3, 0]),
                                                    np.array([6, 4, 5, 5])], grad=False),
    Case("bitwise_left_shift_", lambda lib, x, y: lib.bitwise_left_shift_(x, y),
         [np.array([1, 3, -4, 7]), np.array([1, 2, 1, 0])], grad=False),
    Case("bitwise_right_shift_", lambda lib, x, y: lib.bitwise_right_shift_(x, y),
         [np.array([16, 3, -4, 7]), np.array([1, 2, 1, 0])], grad=False),
    Case("bitwise_invert_", lambda lib, x: lib.bitwise_invert_(x), [np.array([0, 3, -4, 7])],
         grad=False),
    Case("cast_", lambda lib, x: lib.cast_(x, "float32"), [U(-2, 2)], grad=False),
    Case("equal_float", lambda lib, x: lib.equal_(x, lib.to_tensor(np.array(0.5))),
         [np.array([0.5, 1.0, 0.5, -1.0])], grad=False),
    Case("less_than_float", lambda lib, x: lib.less_than_(x, lib.to_tensor(np.array(0.5))),
         [np.array([0.25, 1.0, 0.5, -1.0])], grad=False),
    Case("cumsum_", lambda lib, x: lib.cumsum_(x, 1), [U(-1, 1)]),
    Case("tril_", lambda lib, x: lib.tril_(x, 1), [U(-1, 1)]),
    Case("lerp_", lambda lib, x, y: x.lerp_(y, 0.3), [U(-1, 1), U(-1, 1)]),
    Case("scale_", lambda lib, x: x.scale_(2.0, 0.5), [U(-1, 1)]),
    Case("clip_", lambda lib, x: x.clip_(-0.5, 0.5), [U(-1, 1)]),
    Case("square_", lambda lib, x: lib.square_(x), [U(-1, 1)]),
    # the common arithmetic, for completeness of the recorded list
    _u("abs_", 0.1, 2), _u("neg_"), _u("exp_"), _u("expm1_"), _u("log_", 0.2, 3),
    _u("log1p_", -0.5, 3), _u("log2_", 0.2, 3), _u("log10_", 0.2, 3), _u("sqrt_", 0.2, 3),
    _u("rsqrt_", 0.2, 3), _u("sin_"), _u("cos_"), _u("tan_", -1.2, 1.2), _u("tanh_"),
    _u("sigmoid_"), _u("reciprocal_", 0.2, 3), _u("floor_"), _u("ceil_"), _u("round_"),
    _u("trunc_"), Case("relu_", lambda lib, x: F(lib).relu_(x), [U(-2, 2)]),
    _b("add_"), _b("subtract_"), _b("multiply_"), _b("divide_", 0.2, 2),
    Case("pow_", lambda lib, x: lib.pow_(x, 1.7), [U(0.5, 2)]),
    _b("remainder_", 0.3, 2, grad=False), _b("floor_mod_", 0.3, 2, grad=False),
    Case("floor_divide_", lambda lib, x, y: lib.floor_divide_(x, y),
         [np.array([7, -7, 9, 4]), np.array([2, 2, -4, 3])], grad=False),
    Case("masked_fill_", lambda lib, x, m: x.masked_fill_(m, -1.0),
         [U(-1, 1, (4,)), np.array([True, False, True, False])]),
    Case("cumprod_", lambda lib, x: lib.cumprod_(x, 1), [U(0.5, 1.5)]),
    Case("triu_", lambda lib, x: lib.triu_(x, -1), [U(-1, 1)]),
    Case("logical_and_", lambda lib, x, y: lib.logical_and_(x, y),
         [np.array([True, False, True, False]), np.array([True, True, False, False])],
         grad=False),
    Case("logical_not_", lambda lib, x: lib.logical_not_(x),
         [np.array([True, False, True])], grad=False),
    Case("bitwise_xor_", lambda lib, x, y: lib.bitwise_xor_(x, y),
         [np.array([5, 3, -4, 7]), np.array([1, 2, 1, 0])], grad=False),
]
