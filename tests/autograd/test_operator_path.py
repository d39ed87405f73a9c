"""The operators' short road to the ufunc (Note [The operator path] in
mutograd/autograd/dispatch.py) gives what the generic path gives: every case runs with the short
road on and off (off: no input counts as small) and must agree in values, dtype, gradients,
versions and errors."""
import numpy as np
import pytest

import mutograd as mg
from mutograd import memory


def _t(values, dtype="float32", rg=False):
    return mg.tensor(np.asarray(values), dtype=dtype, requires_grad=rg)


def _run(case, short):
    """(outputs as arrays, dtypes, requires_grad flags, versions, gradients) or the error."""
    old = memory._cache.small_bytes
    if not short:
        memory._cache.small_bytes = 0
    try:
        a = _t([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], rg=True)
        b = _t([[2.0, 0.5, -1.0], [1.0, 2.0, 3.0]], rg=True)
        try:
            outs = case(a, b)
        except Exception as e:   # noqa: BLE001 (the error itself is compared)
            return type(e), str(e)
        grads = []
        try:
            for o in outs:
                if isinstance(o, mg.Tensor) and o.requires_grad:
                    o.sum().backward(retain_graph=True)
        except Exception as e:   # noqa: BLE001 (a stale saved value: the error is compared)
            return type(e), str(e)
        for t in (a, b):
            grads.append(None if t.grad is None else t.grad.numpy().copy())
        return ([o.numpy().copy() for o in outs], [o.dtype for o in outs],
                [o.requires_grad for o in outs], [o._version for o in outs], grads)
    finally:
        memory._cache.small_bytes = old


def _ints():
    return _t([1, 2, 3], "int32"), _t([4, 5, 6], "int32")


CASES = [
    ("tensor + tensor", lambda a, b: [a + b]),
    ("tensor * tensor", lambda a, b: [a * b]),
    ("tensor - int", lambda a, b: [a - 2]),
    ("tensor / float", lambda a, b: [a / 2.5]),
    ("int + float", lambda a, b: [2.5 + a]),
    ("tensor * bool", lambda a, b: [a * True]),
    ("no grad", lambda a, b: [a.detach() * b.detach()]),
    ("maximum", lambda a, b: [mg.maximum(a, b)]),
    ("comparison", lambda a, b: [a < b]),
    ("broadcast", lambda a, b: [a + b[0]]),
    ("0-d tensor", lambda a, b: [a * mg.tensor(2.0, dtype="float64")]),
    ("float32 + float64", lambda a, b: [a + b.detach().double()]),
    ("view operand", lambda a, b: [a[0] * b[1]]),
    ("shape mismatch", lambda a, b: [a + b[:, :2]]),
    ("int tensors", lambda a, b: [_ints()[0] + _ints()[1]]),
    ("int tensor / int", lambda a, b: [_ints()[0] / 2]),
    ("int tensor * float", lambda a, b: [_ints()[0] * 1.5]),
    ("int tensor * int", lambda a, b: [_ints()[0] * 3]),
    ("in place add_", lambda a, b: [a.detach().add_(b.detach())]),
    ("in place iadd", lambda a, b: [_iadd(a.detach(), b.detach())]),
    ("in place with scalar", lambda a, b: [a.detach().mul_(3)]),
    ("in place, int div_", lambda a, b: [_ints()[0].div_(2)]),
    ("in place, int add_ float", lambda a, b: [_ints()[0].add_(1.5)]),
    ("in place, broadcast source", lambda a, b: [a.detach().add_(b.detach()[0])]),
    ("in place, shape error", lambda a, b: [a.detach()[0].add_(b.detach())]),
    ("in place on a leaf that requires grad", lambda a, b: [a.add_(1)]),
    ("in place, source requires grad", lambda a, b: [(a * 1).add_(b)]),
    ("in place on a view", lambda a, b: [_view_write(a.detach(), b.detach())]),
    ("in place, int overflow", lambda a, b: [_t([1, 2], "int8").add_(1000)]),
    # recorded writes into a non-leaf: the node becomes its history (rules 5 and 6)
    ("recorded add_", lambda a, b: [(a * 1).add_(b)]),
    ("recorded mul_ saves the old values", lambda a, b: [(a * 2).mul_(b)]),
    ("recorded mul_ of the source's history", lambda a, b: [_mul_twice(a * 1, b * 3)]),
    ("recorded div_", lambda a, b: [(a + 1).div_(b)]),
    ("recorded sub_ scalar", lambda a, b: [(a * 1).sub_(2.5)]),
    ("recorded iadd", lambda a, b: [_iadd(a * 1, b)]),
    ("recorded imul", lambda a, b: [_imul(a * 1, b)]),
    ("recorded, source without grad", lambda a, b: [(a * 1).mul_(b.detach())]),
    ("recorded, constant written with grad", lambda a, b: [a.detach().mul_(b)]),
    ("recorded, saved value then written", lambda a, b: _saved_then_written(a, b)),
    ("recorded, retained and hooked", lambda a, b: [_retained_write(a, b)]),
    ("recorded, under no_grad", lambda a, b: [_no_grad_write(a * 1, b)]),
    ("recorded, written with itself", lambda a, b: [_self_write(a * 1)]),
    ("recorded pow_", lambda a, b: [(a * 1).pow_(b.detach().abs())]),
]


def _mul_twice(h, g):
    h.mul_(g)
    return h.mul_(g)


def _imul(x, y):
    x *= y
    return x


def _saved_then_written(a, b):
    h = a * 1
    s = h.exp()          # saves h (its output, and exp's input through the output)
    p = h * b            # saves h
    h.add_(b)
    return [s, p, h]     # p's backward reads the stale h: both paths raise the same error


def _retained_write(a, b):
    h = a * 1
    h.retain_grad()
    h.register_hook(lambda g: g * 2)
    h.mul_(b)
    return h


def _no_grad_write(h, b):
    with mg.no_grad():
        h.mul_(b)
    return h


def _self_write(h):
    return h.mul_(h)


def _iadd(x, y):
    x += y
    return x


def _view_write(x, y):
    x[0].add_(y[0])
    return x


@pytest.mark.parametrize("case", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_operator_path_matches_the_generic_path(case):
    short, generic = _run(case, True), _run(case, False)
    if isinstance(generic[0], type):   # an error: the same class and message
        assert short == generic
        return
    for s, g in zip(short[0], generic[0]):
        np.testing.assert_array_equal(s, g)
    assert short[1:4] == generic[1:4]
    for s, g in zip(short[4], generic[4]):
        assert (s is None) == (g is None)
        if s is not None:
            np.testing.assert_array_equal(s, g)


def test_small_inputs_take_the_short_road():
    """A check that the road is taken at all: the generic ``run`` is not reached."""
    from mutograd.autograd import dispatch
    a, b = _t([1.0, 2.0]), _t([3.0, 4.0])
    seen = []
    real = dispatch.run
    dispatch.run = lambda *args, **kw: seen.append(args[0].name) or real(*args, **kw)
    try:
        a + b
        a * 2
        a.add_(b)
        a += b
        h = _t([1.0, 2.0], rg=True) * 1
        h.mul_(_t([3.0, 4.0], rg=True))   # a recorded write into a non-leaf
        h += 1
        assert seen == []
        a + _t(1.0)     # a 0-d operand takes the generic path
        assert seen == ["add"]
    finally:
        dispatch.run = real


@pytest.mark.parametrize("other", [None, "a", object(), {1: 2}], ids=["None", "str", "object",
                                                                      "dict"])
def test_an_operand_that_is_no_tensor_is_pythons_type_error(other):
    # the operators return NotImplemented, as PyTorch's do: Python then raises its own TypeError
    # naming both types (or asks the other operand), and == compares by identity
    x = mg.ones(2)
    name = type(other).__name__
    for expr in (lambda: x * other, lambda: other * x, lambda: x / other, lambda: other - x,
                 lambda: x @ other, lambda: x & other, lambda: x ** other):
        with pytest.raises(TypeError, match=f"unsupported operand type.*'(Tensor|{name})'|"
                                             f"converted to an index"):   # ("a" * x repeats)
            expr()
    y = other
    with pytest.raises(TypeError, match=r"\*=|converted to an index"):
        y *= x
    with pytest.raises(TypeError, match=r"\*="):
        x *= other
    assert (x == other) is False and (x != other) is True
    assert x.tolist() == [1.0, 1.0] and x._version == 0


def test_array_likes_stay_operands():
    x = mg.ones(2, dtype="float32")
    assert (np.ones(2) + x).tolist() == [2.0, 2.0]
    assert (x + np.float32(2)).dtype == mg.float32
    assert (x * [2, 3]).tolist() == [2.0, 3.0]
