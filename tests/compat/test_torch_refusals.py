"""Where PyTorch refuses, the torch dialect refuses too, with the same error class and PyTorch's
words (plus mutograd's detail): mixed dtypes in matrix products, numpy() of a tensor that
requires grad, integer division by zero, zero steps and strides, float class indices; and the
leaf error speaks the dialect's API."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt

# (id, call(T), error class both raise, fragment of PyTorch's message ours contains)
REFUSALS = [
    ("matmul-dtypes", lambda T: T.ones(2, 3) @ T.ones(3, 2, dtype=T.float64), RuntimeError,
     "same dtype"),
    ("linear-dtypes", lambda T: T.nn.Linear(3, 2)(T.ones(2, 3, dtype=T.float64)), RuntimeError,
     "mat1 and mat2 must have the same dtype"),
    ("mm-int", lambda T: T.mm(T.ones(2, 3), T.ones(3, 2, dtype=T.int64)), RuntimeError,
     "same dtype"),
    ("numpy-requires-grad", lambda T: T.ones(2, requires_grad=True).numpy(), RuntimeError,
     r"Can't call numpy\(\) on Tensor that requires grad. Use tensor.detach\(\).numpy\(\)"),
    ("floor-divide-by-zero", lambda T: T.tensor([3, 4]) // 0, RuntimeError, "ZeroDivisionError"),
    ("tensor-divisor-zero", lambda T: T.tensor([3, 4]) // T.tensor([0, 1]), RuntimeError,
     "ZeroDivisionError"),
    ("remainder-by-zero", lambda T: T.tensor([3, 4]) % 0, RuntimeError, "ZeroDivisionError"),
    ("fmod-by-zero", lambda T: T.fmod(T.tensor([3, 4]), 0), RuntimeError, "ZeroDivisionError"),
    ("div-trunc-by-zero", lambda T: T.div(T.tensor([3]), T.tensor([0]), rounding_mode="trunc"),
     RuntimeError, "ZeroDivisionError"),
    ("conv-stride-0", lambda T: T.nn.functional.conv2d(T.ones(1, 1, 3, 3), T.ones(1, 1, 2, 2),
                                                       stride=0),
     RuntimeError, "non-positive stride is not supported"),
    ("conv-dilation-0", lambda T: T.nn.functional.conv2d(T.ones(1, 1, 3, 3),
                                                         T.ones(1, 1, 2, 2), dilation=0),
     RuntimeError, "dilation should be greater than zero"),
    ("arange-step-0", lambda T: T.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    ("cross-entropy-float-indices",
     lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.ones(3)), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    ("linear-shapes", lambda T: T.nn.Linear(3, 2)(T.ones(2, 4)), RuntimeError,
     r"mat1 and mat2 shapes cannot be multiplied \(2x4 and 3x2\)"),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,call,error,text", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_the_torch_dialect_refuses_as_pytorch_does(name, call, error, text):
    torch = pytest.importorskip("torch")
    for T in (torch, mt):
        with pytest.raises(error, match=text):
            call(T)


def test_promoting_products_still_promote():
    """``outer`` and ``addr`` are element-wise products in PyTorch: they promote, as here."""
    t = mt.outer(mt.arange(3), mt.ones(2))
    assert t.dtype.is_floating_point and t.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert mt.addr(mt.ones(3, 2), mt.arange(3), mt.ones(2)).dtype.is_floating_point


def test_the_main_namespace_keeps_numpys_promotion_and_numpy_export():
    assert (mg.ones(2, 3) @ mg.ones(3, 2, dtype="float64")).dtype == mg.float64
    x = mg.ones(2, requires_grad=True)
    assert isinstance(x.numpy(), np.ndarray)       # detaching is explicit only in the dialect
    assert mt.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]


def test_integer_division_by_zero_is_an_error_in_every_namespace_and_floats_give_inf():
    with pytest.raises(ZeroDivisionError):
        mg.tensor([1, 2]) // 0
    assert (mg.tensor([1.0]) / 0).tolist() == [float("inf")]
    assert (mg.tensor([5, 7]) // mg.tensor([2, 3])).tolist() == [2, 2]


def test_the_leaf_error_speaks_the_dialects_api():
    with pytest.raises(RuntimeError) as e:
        mt.ones(2, requires_grad=True).add_(1)
    msg = str(e.value)
    assert "torch.no_grad()" in msg and "mutograd.no_grad" not in msg
    assert "Leaf Var that doesn't stop gradient" not in msg
    assert "a leaf Variable that requires grad is being used in an in-place operation" in msg
    assert "test_torch_refusals.py" in msg                   # where the leaf was created
    import mutograd.compat.paddle as paddle
    p = paddle.ones([2])
    p.stop_gradient = False
    with pytest.raises(ValueError) as e:
        p.add_(paddle.ones([2]))
    assert "Leaf Var that doesn't stop gradient can't use inplace strategy" in str(e.value)
    assert "paddle.no_grad()" in str(e.value)


def test_device_predicates_answer_false():
    x = mt.ones(2)
    for name in ("is_xpu", "is_mps", "is_meta", "is_ipu", "is_mtia", "is_maia", "is_vulkan",
                 "is_xla", "is_mkldnn", "is_quantized", "is_nested", "is_sparse"):
        assert getattr(x, name) is False, name
    assert x.is_cpu and not x.is_cuda
