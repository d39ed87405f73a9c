"""Errors that name the user's tensor: what was asked for, in the user's terms (shape, dtype,
hook name), not the NumPy array or buffer behind it."""
import re

import numpy as np
import pytest

import mutograd as mg
from mutograd import memory
from mutograd.errors import BackwardError, DTypeError, PlaceError

# ---- non-numeric data ----------------------------------------------------------------------

NOT_NUMBERS = [
    ("abc", None, "str 'abc'"),
    (b"ab", None, "bytes b'ab'"),
    (None, None, "NoneType"),
    (["a"], None, "list holding str"),
    ([1, None], None, "list holding NoneType"),
    ([[1, 2], [3, "x"]], None, "list holding str"),
    (["1.5"], "float32", "list holding str"),        # NumPy would parse it for a dtype
    ([1, None], "float32", "list holding NoneType"),  # ... and make None a nan
    (np.array([1, "a"], dtype=object), None, "ndarray of dtype object"),
    (np.array([1, 2], dtype=object), None, "ndarray of dtype object"),
    (np.array(["a", "b"]), None, "ndarray of dtype <U1"),
    ({1: 2}, None, "dict"),
]


@pytest.mark.parametrize("data, dtype, named", NOT_NUMBERS,
                         ids=[f"{type(d).__name__}-{i}" for i, (d, _, _) in
                              enumerate(NOT_NUMBERS)])
def test_tensor_of_non_numeric_data_is_a_type_error_naming_the_data(data, dtype, named):
    with pytest.raises(TypeError, match="a tensor holds numbers") as info:
        mg.tensor(data, dtype=dtype)
    assert isinstance(info.value, DTypeError)
    assert str(info.value).endswith(f"not {named}")


@pytest.mark.parametrize("make", [mg.tensor, mg.Tensor, mg.to_tensor, mg.as_tensor],
                         ids=lambda f: f.__name__)
def test_every_constructor_refuses_a_string(make):
    with pytest.raises(TypeError, match="not str 'abc'"):
        make("abc")


@pytest.mark.parametrize("data, dtype, expected", [
    ([1, 2], None, [1, 2]),
    ([[1.5], [2.5]], "float64", [[1.5], [2.5]]),
    (np.array([1, 2], dtype=object), "float32", [1, 2]),   # an explicit dtype converts
    ([True, False], None, [True, False]),
    ([np.float32(1), 2], None, [1, 2]),
    ([mg.ones(1), mg.zeros(1)], None, [[1], [0]]),
    (3, None, 3),
    (1 + 2j, None, 1 + 2j),
])
def test_numeric_data_is_still_accepted(data, dtype, expected):
    np.testing.assert_array_equal(mg.tensor(data, dtype=dtype).numpy(), expected)


@pytest.mark.torch
@pytest.mark.parametrize("data", ["abc", ["a"], [1, None], None, np.array([1, 2], dtype=object),
                                  b"ab"], ids=repr)
def test_pytorch_refuses_the_same_data(data):
    torch = pytest.importorskip("torch")
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        torch.tensor(data)
    with pytest.raises(TypeError):
        mg.tensor(data)


# ---- an allocation too large ---------------------------------------------------------------

HUGE = (2 ** 20, 10, 2 ** 10)          # 40 GiB of float32: more than the test machine has


@pytest.mark.parametrize("make", [
    lambda x: x.expand(*HUGE) + 1,     # the result's buffer comes from the buffer cache
    lambda x: mg.zeros(*HUGE),
    lambda x: mg.ones(*HUGE),
    lambda x: mg.empty(*HUGE),
    lambda x: mg.randn(*HUGE),
    lambda x: mg.rand(*HUGE),
    lambda x: mg.full(list(HUGE), 1.0),
], ids=["op-result", "zeros", "ones", "empty", "randn", "rand", "full"])
def test_a_too_large_tensor_is_a_memory_error_naming_it(make):
    import gc
    x = mg.ones(10, 2 ** 10)           # something live, named by the message
    gc.collect()
    gc.disable()                       # (garbage freed in between would change the count)
    try:
        live = memory.allocated()
        with pytest.raises(MemoryError) as info:
            make(x)
    finally:
        gc.enable()
    msg = str(info.value)
    assert msg.startswith("cannot allocate a tensor of shape [1048576, 10, 1024] and dtype "
                          "float32 (40.0 GiB) on cpu; live tensors hold ")
    assert f"live tensors hold {memory._fmt(live)} there" in msg
    assert "uint8" not in msg and "42949672960" not in msg
    assert isinstance(info.value.__cause__, MemoryError)      # NumPy's own, kept


def test_the_memory_error_message_formats_bytes():
    e = memory.out_of_memory((3, 2), "float64")
    assert str(e).startswith("cannot allocate a tensor of shape [3, 2] and dtype float64 (48 B) "
                             "on cpu; live tensors hold ")
    assert [memory._fmt(n) for n in (0, 1023, 1024, 3 * 2 ** 20, 40 * 2 ** 30, 2 ** 50)] == [
        "0 B", "1023 B", "1.0 KiB", "3.0 MiB", "40.0 GiB", "1024.0 TiB"]


def test_a_failed_cached_allocation_drops_the_cache_and_tries_again(monkeypatch):
    """PyTorch's caching allocator frees its cached blocks before it gives up: so does ours."""
    old = memory.set_cache(enabled=True)
    try:
        x = mg.ones(1 << 16)               # (named: not a dead temporary to write into)
        y = x + 1                          # 256 KiB: from the cache ...
        del y                              # ... and back into it
        assert memory._cache.held > 0
        real = np.empty
        calls = []

        def empty(shape, dtype=float, *a, **k):
            if dtype is np.uint8 and not calls:
                calls.append(shape)
                raise MemoryError("no room")
            return real(shape, dtype, *a, **k)
        monkeypatch.setattr(memory.np, "empty", empty)
        arr, raw = memory.take((1 << 20,), "float32")   # a size class nothing cached fits
        assert arr.shape == (1 << 20,) and calls and memory._cache.held == 0
    finally:
        monkeypatch.undo()
        memory.set_cache(**old)


# ---- a gradient hook that changes the gradient ---------------------------------------------

def to_scalar(g):
    return g.sum()


def to_four(g):
    return mg.ones(4)


def to_float64(g):
    return g.double()


def to_array(g):
    return [1.0, 2.0, 3.0]


HOOKS = [
    (to_scalar, r"hook 'to_scalar' has changed the size of value: it changed the gradient's "
                r"shape from \[3\] to \[\]"),
    (to_four, r"hook 'to_four' has changed the size of value: it changed the gradient's shape "
              r"from \[3\] to \[4\]"),
    (to_float64, "hook 'to_float64' has changed the type of value: it changed the gradient's "
                 "dtype from float32 to float64"),
    (to_array, "hook 'to_array' returned a list: a gradient hook returns a tensor"),
]


@pytest.mark.parametrize("where", ["leaf", "non-leaf"])
@pytest.mark.parametrize("hook, message", HOOKS, ids=[h.__name__ for h, _ in HOOKS])
def test_a_hook_changing_the_gradient_is_named(hook, message, where):
    x = mg.ones(3, requires_grad=True)
    y = x * 2
    (x if where == "leaf" else y).register_hook(hook)
    with pytest.raises(BackwardError, match=message):
        (y * 3).sum().backward()


def test_a_hook_named_by_its_qualified_name():
    class Scaler:
        def hook(self, g):
            return g[:1]
    x = mg.ones(3, requires_grad=True)
    x.register_hook(Scaler().hook)
    with pytest.raises(RuntimeError, match="hook 'test_a_hook_named_by_its_qualified_name"
                                           r".<locals>.Scaler.hook' has changed the size"):
        (x * 1).sum().backward()


def test_a_hook_returning_the_right_shape_and_dtype_still_replaces_the_gradient():
    x = mg.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20, 20, 20])


@pytest.mark.torch
@pytest.mark.parametrize("hook, message", HOOKS[:3], ids=[h.__name__ for h, _ in HOOKS[:3]])
def test_pytorch_refuses_the_same_hooks(hook, message):
    torch = pytest.importorskip("torch")
    x = torch.ones(3, requires_grad=True)
    x.register_hook(lambda g: {"to_scalar": g.sum(), "to_four": torch.ones(4),
                               "to_float64": g.double()}[hook.__name__])
    word = "type" if hook is to_float64 else "size"
    with pytest.raises(RuntimeError, match=f"has changed the {word} of value"):
        (x * 2).sum().backward()


# ---- assigning .grad -----------------------------------------------------------------------

def test_assigned_grad_of_another_dtype_is_refused():
    p = mg.zeros(3, requires_grad=True)
    with pytest.raises(DTypeError, match="assigned grad has data of a different type: dtype "
                                         "float64 for a tensor of dtype float32"):
        p.grad = mg.zeros(3, dtype="float64")
    assert p.grad is None


def test_assigned_grad_of_another_shape_is_refused():
    p = mg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"assigned grad has data of a different size: shape "
                                           r"\[4\] for a tensor of shape \[3\]"):
        p.grad = mg.zeros(4)
    assert p.grad is None


def test_assigned_grad_on_another_place_is_refused(fake_gpu):
    p = mg.zeros(3, requires_grad=True)
    with pytest.raises(PlaceError, match="assigned grad has data located on a different place"):
        p.grad = mg.zeros(3, device="gpu")
    assert p.grad is None


def test_assigned_grad_that_matches_is_kept_and_accumulated_into():
    p = mg.zeros(3, requires_grad=True)
    g = mg.ones(3)
    p.grad = g
    assert p.grad is g
    (p * 2).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [3, 3, 3])
    p.grad = None
    assert p.grad is None


@pytest.mark.parametrize("namespace", ["torch", "paddle"])
def test_the_dialects_refuse_a_grad_of_another_dtype_too(namespace):
    import importlib
    ns = importlib.import_module(f"mutograd.compat.{namespace}")
    p = ns.zeros([3])
    p.stop_gradient = False
    with pytest.raises(RuntimeError, match="assigned grad has data of a different type"):
        p.grad = ns.zeros([3], dtype="float64")


@pytest.mark.torch
def test_pytorch_refuses_the_same_assignments():
    torch = pytest.importorskip("torch")
    p = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="different size|size"):
        p.grad = torch.zeros(4)
    with pytest.raises(RuntimeError, match="dtype"):
        p.grad = torch.zeros(3, dtype=torch.float64)


@pytest.mark.parametrize("make,shape", [
    (lambda: mg.eye(2 ** 19), "[524288, 524288]"),
    (lambda: mg.linspace(0, 1, 2 ** 40), "[1099511627776]"),
], ids=["eye", "linspace"])
def test_other_factories_name_the_tensor_too(make, shape):
    with pytest.raises(MemoryError, match=rf"cannot allocate a tensor of shape {re.escape(shape)}"):
        make()


@pytest.mark.parametrize("call", [
    lambda x: mg.maximum(x, None), lambda x: mg.add(x, None), lambda x: mg.mul(x * 1, None),
    lambda x: mg.atan2(x, None)], ids=["maximum", "add", "mul-recorded", "atan2"])
def test_none_for_a_tensor_operand_is_a_type_error_naming_the_op(call):
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"^\w+\(\): argument 2 must be a Tensor or a number, "
                                        r"not None$"):
        call(x)
    assert mg.clamp(x, None, 0.5).tolist() == [0.5, 0.5]   # there None is an open bound
