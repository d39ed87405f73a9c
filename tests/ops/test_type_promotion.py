"""Result dtypes of element-wise ops on mixed operands against PyTorch 2.13 (Note [Type promotion]
in mutograd/autograd/promotion.py): every pair of dtypes, as tensors with dimensions, 0-d
tensors and Python numbers, for the arithmetic, comparison and selection ops. The main
namespace follows the same rule."""
import itertools

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mtorch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]
SCALARS = [2, 2.5, True, 1j]
OPS = {
    "add": lambda lib, a, b: a + b, "rsub": lambda lib, a, b: b - a,
    "mul": lambda lib, a, b: lib.mul(a, b), "div": lambda lib, a, b: a / b,
    "where": lambda lib, a, b: lib.where(lib.tensor([True, False]), a, b),
    "maximum": lambda lib, a, b: lib.maximum(a, b), "atan2": lambda lib, a, b: lib.atan2(a, b),
    "lt": lambda lib, a, b: a < b, "remainder": lambda lib, a, b: lib.remainder(a, b),
    "copysign": lambda lib, a, b: lib.copysign(a, b),
}


def _operand(lib, dtype, zero_dim):
    value = np.array(True) if dtype == "bool" else np.array(3, dtype)
    return lib.tensor(value if zero_dim else np.stack([value, value]))


def _outcome(lib, op, a, b):
    try:
        r = OPS[op](lib, a, b)
    except (RuntimeError, TypeError):   # both refuse (bool subtraction, complex maximum, ...)
        return "error"
    return str(r.dtype).replace("torch.", "")


def _cases():
    for op in OPS:
        for (x, y), shapes in itertools.product(itertools.product(DTYPES, DTYPES),
                                                [(False, False), (False, True), (True, False)]):
            if x != y:
                yield op, x, shapes[0], y, shapes[1]
        for x, s in itertools.product(DTYPES, SCALARS):
            yield op, x, False, s, None


@pytest.mark.torch
@pytest.mark.parametrize("op", list(OPS))
def test_result_dtypes_match_pytorch(op):
    torch = pytest.importorskip("torch")
    wrong = []
    for name, x, x0, y, y0 in (c for c in _cases() if c[0] == op):
        outcomes = []
        for lib in (torch, mtorch):
            a = _operand(lib, x, x0)
            b = y if y0 is None else _operand(lib, y, y0)
            outcomes.append(_outcome(lib, op, a, b))
        if outcomes[0] == "complex32":   # no complex32 here: its nearest, as NumPy has it
            outcomes[0] = "complex64"
        if outcomes[0] != outcomes[1] and outcomes[0] != "error":
            wrong.append((x, x0, y, y0, *outcomes))
    assert not wrong, f"{len(wrong)} differ (x, x 0-d, y, y 0-d, torch, ours): {wrong[:8]}"


@pytest.mark.parametrize("x, y, expected", [
    (mg.ones([2], dtype="int64"), mg.ones([2]), "float32"),
    (mg.ones([2], dtype="int64"), mg.ones([2], dtype="complex64"), "complex64"),
    (mg.ones([2]), mg.tensor(2.0, dtype="float64"), "float32"),
    (mg.ones([2], dtype="int32"), mg.tensor(2, dtype="int64"), "int32"),
    (mg.ones([2], dtype="int64"), mg.tensor(2.0, dtype="float64"), "float64"),
    (mg.ones([2], dtype="bool"), 2.0, "float32"),
    (mg.ones([2], dtype="float16"), mg.ones([2], dtype="int64"), "float16"),
])
def test_main_namespace_promotes_as_pytorch(x, y, expected):
    assert str((x + y).dtype) == expected
    assert str(mg.result_type(x, y)) == expected


def test_mixed_dtype_gradients_keep_each_input_dtype():
    x = mg.ones([3], dtype="float32", requires_grad=True)
    y = mg.full([3], 2.0, dtype="float64", requires_grad=True)
    (x * y).sum().backward()
    assert (x.grad.dtype, y.grad.dtype) == (mg.float32, mg.float64)
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2])


# comparisons compute in the promoted dtype, like arithmetic: float32 against a 0-d float64
# compares in float32, an int64 tensor against a Python float in the default float dtype
COMPARISONS = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}
COMPARED = [   # (x values, x dtype, y, y dtype or None for a Python number, PyTorch's eq)
    ([0.1, 0.5], "float32", 0.1, "float64", [True, False]),
    ([16777217, 3], "int64", 16777216.5, None, [True, False]),
]


def _compared(lib, i):
    xs, xd, y, yd, _ = COMPARED[i]
    x = lib.tensor(xs, dtype=getattr(lib, xd))
    return x, (y if yd is None else lib.tensor(y, dtype=getattr(lib, yd)))


@pytest.mark.parametrize("i", range(len(COMPARED)))
def test_comparisons_compute_in_the_promoted_dtype(i):
    x, y = _compared(mtorch, i)
    eq = COMPARED[i][4]
    assert (x == y).tolist() == eq and (x != y).tolist() == [not e for e in eq]
    assert mtorch.eq(x, y).tolist() == eq
    # the order ops agree with equality at the same precision
    assert [a or b for a, b in zip((x < y).tolist(), (x > y).tolist())] == [not e for e in eq]


@pytest.mark.torch
@pytest.mark.parametrize("i", range(len(COMPARED)))
def test_compared_values_are_pytorchs(i):
    torch = pytest.importorskip("torch")
    for op in COMPARISONS.values():
        assert op(*_compared(mtorch, i)).tolist() == op(*_compared(torch, i)).tolist()
