"""Every code example of /work/shared/seeds/ runs verbatim through the compat namespaces.

Each example is copied here as data and executed with ``import paddle`` / ``import torch``
resolving to ``mutograd.compat.paddle`` / ``mutograd.compat.torch``; the check asserts what its
document says it prints, returns or raises. One intentional difference (design.md rule 7): the
``.data`` write after a save in seed 003 raises, as that document says it should.
"""
import contextlib
import io
import re

import numpy as np
import pytest

from mutograd import compat

# ---- seed 000 (and 002, the same document rendered as HTML): paddle ----------------------------
SCALE_INPLACE = '''
import paddle
a = paddle.randn([3, 4])
a.stop_gradient=False
x = a.scale(2.0)
print(x)
# Tensor(shape=[3, 4], dtype=float32, place=Place(gpu:0), stop_gradient=False,
#        [[ 0.21718574,  2.82289553, -4.42365265, -4.73598146],
#         [-5.24532938, -4.69758368, -1.76940155,  4.37858629],
#         [ 0.04942622,  2.00082755, -3.87005639,  2.72555494]])
print(id(x))
#140110962616016
y = x.scale_(2.0)
print(y)
# Tensor(shape=[3, 4], dtype=float32, place=Place(gpu:0), stop_gradient=False,
#        [[ 0.43437147 ,  5.64579105 , -8.84730530 , -9.47196293 ],
#         [-10.49065876, -9.39516735 , -3.53880310 ,  8.75717258 ],
#         [ 0.09885245 ,  4.00165510 , -7.74011278 ,  5.45110989 ]])
print(id(y))
# 140110962616016
print(y is x)
# True
print(x)
# Tensor(shape=[3, 4], dtype=float32, place=Place(gpu:0), stop_gradient=False,
#        [[ 0.43437147 ,  5.64579105 , -8.84730530 , -9.47196293 ],
#         [-10.49065876, -9.39516735 , -3.53880310 ,  8.75717258 ],
#         [ 0.09885245 ,  4.00165510 , -7.74011278 ,  5.45110989 ]])
y.backward()
print(a.grad)
# Tensor(shape=[3, 4], dtype=float32, place=Place(gpu:0), stop_gradient=False,
#        [[4., 4., 4., 4.],
#         [4., 4., 4., 4.],
#         [4., 4., 4., 4.]])
'''

LEAF_SCALE_ = '''
import paddle
a = paddle.randn([3, 4])
a.stop_gradient=False
x = a.scale_(2.0)
# ValueError: (InvalidArgument) Leaf Var () that doesn't stop gradient can't use inplace strategy.
'''

# ---- seed 001: paddle -------------------------------------------------------------------------
GUIDE_SCALE = '''
import paddle

# 初始化一个随机张量
a = paddle.randn([3, 4])

# 记录x的原始id
original_id = id(x)

# 使用非Inplace操作进行缩放
x = a.scale(2.0)

print("Before inplace operation, a:")
print(a)

# 使用Inplace操作进行缩放
a.scale_(2.0)  # 注意这里是对a直接进行操作

print("After inplace operation, a:")
print(a)

# 检查a是否为新的张量
print("a is a new tensor:", id(x) != original_id)
'''

GUIDE_LEAF = '''
import paddle

# 初始化Tensor
x = paddle.randn([3, 4])
x.stop_gradient = False

# 执行Inplace操作后，再次进行计算和反向传播
x.scale_(2.0)
y = x.sum()
y.backward()
print("在Inplace操作后x的梯度:\\n", x.grad)
'''

# ---- seed 003: torch --------------------------------------------------------------------------
FLOAT_TENSOR_LEAF = '''
import torch

w = torch.FloatTensor(10) # w 是个 leaf tensor
w.requires_grad = True    # 将 requires_grad 设置为 True
w.normal_()               # 在执行这句话就会报错
'''

DATA_INIT = '''
w.data = w.data.normal() # 可以使用曲线救国的方法来初始化参数
'''

_MATMUL_HEAD = '''import torch
x = torch.FloatTensor([[1., 2.]])
w1 = torch.FloatTensor([[2.], [1.]])
w2 = torch.FloatTensor([3.])
w1.requires_grad = True
w2.requires_grad = True

d = torch.matmul(x, w1)
'''

SAVED_WRITE = _MATMUL_HEAD + '''f = torch.matmul(d, w2)
d[:] = 1 # 因为这句, 代码报错了 RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation

f.backward()
'''

WRITE_BEFORE_USE = _MATMUL_HEAD + '''d[:] = 1   # 稍微调换一下位置, 就没有问题了
f = torch.matmul(d, w2)
f.backward()
'''

DATA_WRITE = _MATMUL_HEAD + '''
d_ = d.data

f = torch.matmul(d, w2)
d_[:] = 1

f.backward()

# 这段代码没有报错, 但是计算上的确错了
# 如果 打印 w2.grad 结果看一下的话, 得到 是 1, 但是正确的结果应该是 4.
'''

DETACH_WRITE = _MATMUL_HEAD + '''
d_ = d.detach() # 换成 .detach(), 就可以看到 程序报错了...

f = torch.matmul(d, w2)
d_[:] = 1
f.backward()
'''

VERSION_MSG = "modified by an inplace operation"
PADDLE_LEAF_MSG = "Leaf Var that doesn't stop gradient can't use inplace strategy"
TORCH_LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation"


def run(code, framework, ns=None):
    """Execute ``code`` with ``import <framework>`` giving the compat namespace; returns
    (globals, stdout lines)."""
    ns = {} if ns is None else ns
    out = io.StringIO()
    with compat.importing_as(framework), contextlib.redirect_stdout(out):
        exec(compile(code, f"<seed example ({framework})>", "exec"), ns)  # noqa: S102 (the test)
    return ns, out.getvalue().splitlines()


def _floats(lines):
    return np.array([float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]\d+)?", "\n".join(lines))])


def check_scale_inplace(ns, lines):
    a, x, y = ns["a"], ns["x"], ns["y"]
    assert y is x
    head = "Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,"
    assert lines[0] == head
    printed_ids = [ln for ln in lines if ln.isdigit()]
    assert printed_ids == [str(id(x)), str(id(x))]
    assert "True" in lines
    np.testing.assert_allclose(x.numpy(), 4 * a.numpy(), rtol=1e-6)
    # the two prints of x after scale_ show the same values, twice those printed before
    blocks = "\n".join(lines).split("Tensor(shape=")[1:]
    before, after_y, after_x, grad = (_floats([b.split("\n", 1)[1]]) for b in blocks)
    np.testing.assert_allclose(after_y, 2 * before, rtol=1e-6)
    np.testing.assert_array_equal(after_x, after_y)
    np.testing.assert_array_equal(grad, np.full(12, 4.0))
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 4), 4.0, np.float32))


@pytest.mark.parametrize("seed", ["000", "002"])
def test_seed_scale_inplace_keeps_identity_and_gradient(seed):
    ns, lines = run(SCALE_INPLACE, "paddle")
    check_scale_inplace(ns, lines)


@pytest.mark.parametrize("seed,code", [("000", LEAF_SCALE_), ("002", LEAF_SCALE_),
                                       ("001", GUIDE_LEAF)])
def test_seed_paddle_leaf_inplace_raises_value_error(seed, code):
    ns = {}
    with pytest.raises(ValueError, match=PADDLE_LEAF_MSG):
        run(code, "paddle", ns)
    leaf = ns.get("a", ns.get("x"))
    assert leaf.inplace_version == 0 and leaf.grad is None   # refused before any write
    assert "y" not in ns                                       # nothing after the error ran


def test_seed_001_guide_as_written_uses_x_before_defining_it():
    # The document's own bug: ``original_id = id(x)`` comes before ``x`` exists.
    with pytest.raises(NameError, match="'x'"):
        run(GUIDE_SCALE, "paddle")


def test_seed_001_guide_rest_runs_with_the_id_recorded_from_a():
    # The rest of the example, with the evident intent (record a's id) in place of id(x). Its
    # printed "x is a new tensor: False" contradicts its own code: x = a.scale(2.0) is new.
    code = GUIDE_SCALE.replace("original_id = id(x)", "original_id = id(a)")
    ns, lines = run(code, "paddle")
    a, x = ns["a"], ns["x"]
    assert ns["original_id"] == id(a)          # scale_ kept a's identity
    assert lines[0] == "Before inplace operation, a:"
    assert lines[1] == ("Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), "
                        "stop_gradient=True,")
    i = lines.index("After inplace operation, a:")
    np.testing.assert_allclose(_floats(lines[i + 1:-1]), 2 * _floats(lines[2:i]), rtol=1e-6)
    np.testing.assert_array_equal(a.numpy(), x.numpy())
    assert lines[-1] == "a is a new tensor: True"
    assert a.inplace_version == 1


def test_seed_003_float_tensor_leaf_normal_raises_runtime_error():
    ns = {}
    with pytest.raises(RuntimeError, match=TORCH_LEAF_MSG):
        run(FLOAT_TENSOR_LEAF, "torch", ns)
    w = ns["w"]
    assert w.shape == [10] and str(w.dtype) == "torch.float32" and w._version == 0


def test_seed_003_data_init_line():
    # ``w.data.normal()`` is the document's typo: Tensor has no out-of-place ``normal`` (neither
    # has PyTorch's). With ``normal_()`` the workaround the document means works: the leaf is
    # initialised through ``.data`` and stays a leaf that requires grad.
    code = FLOAT_TENSOR_LEAF.replace("w.normal_()", "")
    ns, _ = run(code, "torch")
    with pytest.raises(AttributeError, match="normal"):
        run(DATA_INIT, "torch", ns)
    ns, _ = run(DATA_INIT.replace("normal()", "normal_()"), "torch", ns)
    w = ns["w"]
    assert w.is_leaf and w.requires_grad and np.abs(w.detach().numpy()).sum() > 0
    assert w._version == 2   # the fill, then the storage replacement


@pytest.mark.parametrize("code", [SAVED_WRITE, DETACH_WRITE, DATA_WRITE],
                         ids=["setitem", "detach", "data"])
def test_seed_003_write_to_saved_tensor_raises_runtime_error(code):
    # For ``.data`` PyTorch computes w2.grad == 1 silently (the document's complaint); the
    # correct value is 4 and we raise instead (design.md rule 7).
    ns = {}
    with pytest.raises(RuntimeError, match=VERSION_MSG):
        run(code, "torch", ns)
    assert ns["w1"].grad is None and ns["w2"].grad is None


def test_seed_003_write_before_use_is_fine():
    ns, _ = run(WRITE_BEFORE_USE, "torch")
    np.testing.assert_array_equal(ns["w2"].grad.numpy(), [1.0])        # df/dw2 = d = 1
    np.testing.assert_array_equal(ns["w1"].grad.numpy(), [[0.0], [0.0]])  # d was overwritten
    np.testing.assert_array_equal(ns["f"].detach().numpy(), [[3.0]][0])
