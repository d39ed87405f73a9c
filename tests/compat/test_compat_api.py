"""The compat namespaces: where PyTorch and Paddle clash, each gets its own signature; a
tensor's type (``torch.Tensor``, ``paddle.Tensor`` or the main one) decides the few clashing
Tensor methods; the import alias runs unmodified scripts."""
import sys

import numpy as np
import pytest
from tests.helpers import counting

import mutograd as mg
import mutograd.compat.paddle as P
import mutograd.compat.paddle.nn.functional as PF
import mutograd.compat.torch as T
import mutograd.compat.torch.nn.functional as TF
from mutograd import compat
from mutograd.errors import BackwardError, PlaceError, ShapeError


def x34():
    return mg.arange(12.0).reshape(3, 4)


def t34():
    return T.arange(12.0).reshape(3, 4)


def shapes(ts):
    return [list(t.shape) for t in ts]


# (id, call, expected result or (exception class, message pattern))
CLASHES = [
    ("torch.transpose", lambda: T.transpose(x34(), 0, 1).shape, [4, 3]),
    ("paddle.transpose", lambda: P.transpose(x34(), [1, 0]).shape, [4, 3]),
    ("paddle.transpose-dims", lambda: P.transpose(x34(), 0, 1), (TypeError, r"perm must list")),
    ("torch.split-size", lambda: shapes(T.split(mg.arange(6), 2)), [[2], [2], [2]]),
    ("paddle.split-count", lambda: shapes(P.split(mg.arange(6), 2)), [[3], [3]]),
    ("paddle.split-list", lambda: shapes(P.split(mg.arange(6), [1, -1])), [[1], [5]]),
    ("paddle.split-uneven", lambda: P.split(mg.arange(5), 2), (ShapeError, "not divisible")),
    ("torch.max-dim", lambda: [t.tolist() for t in T.max(x34(), 1)],
     [[3.0, 7.0, 11.0], [3, 3, 3]]),
    ("torch.max-all", lambda: T.max(x34()).item(), 11.0),
    ("torch.max-other", lambda: T.max(x34(), mg.full([3, 4], 5.0)).sum().item(), 6 * 5 + 51.0),
    ("paddle.max-axis", lambda: P.max(x34(), 1).tolist(), [3.0, 7.0, 11.0]),
    ("paddle.min-axis-keepdim", lambda: P.min(x34(), 0, keepdim=True).shape, [1, 4]),
    ("paddle.sum-order", lambda: P.sum(x34(), 1, "float64", True).dtype, mg.float64),
    ("torch.randn-varargs", lambda: T.randn(3, 4).shape, [3, 4]),
    ("torch.randn-list", lambda: T.randn([3, 4]).shape, [3, 4]),
    ("paddle.randn-list", lambda: P.randn([3, 4]).shape, [3, 4]),
    ("paddle.randn-varargs", lambda: P.randn(3, 4), (TypeError, r"one list, e.g. paddle.randn")),
    ("paddle.zeros", lambda: P.zeros([2], "int64").tolist(), [0, 0]),
    ("paddle.uniform", lambda: float(P.uniform([1000]).min()) < -0.9, True),
    ("FloatTensor-size", lambda: (T.FloatTensor(10).shape, T.FloatTensor(10).dtype),
     ([10], mg.float32)),
    ("FloatTensor-data", lambda: T.FloatTensor([[1.0, 2.0]]).tolist(), [[1.0, 2.0]]),
    ("LongTensor-data", lambda: T.LongTensor([1, 2]).dtype, mg.int64),
    ("Tensor-sizes", lambda: (T.Tensor(2, 3).shape, T.Tensor(2, 3).dtype), ([2, 3], mg.float32)),
    ("Tensor-Size", lambda: T.Tensor(T.Size([2, 1])).shape, [2, 1]),
    ("Tensor-bad", lambda: T.Tensor([1.0], [2.0]), (TypeError, "sizes as ints")),
    ("isinstance-Tensor", lambda: isinstance(t34(), T.Tensor), True),
    ("isinstance-FloatTensor", lambda: isinstance(t34(), T.FloatTensor), True),
    ("isinstance-LongTensor", lambda: isinstance(t34(), T.LongTensor), False),
    ("FloatTensor-type", lambda: (type(T.FloatTensor([1.0])), type(T.LongTensor(2))),
     (T.Tensor, T.Tensor)),
    ("torch.Tensor.method", lambda: T.Tensor.add(x34(), 1).sum().item(), 78.0),
    ("to_tensor-default", lambda: P.to_tensor([1.0]).stop_gradient, True),
    ("to_tensor-stop_gradient", lambda: P.to_tensor([1.0], stop_gradient=False).requires_grad,
     True),
    ("torch.tensor-requires_grad", lambda: T.tensor([1.0], requires_grad=True).is_leaf, True),
    ("torch.tensor-int", lambda: T.tensor([1, 2]).dtype, T.long),
    ("dtype-float", lambda: T.float, mg.float32), ("dtype-int", lambda: T.int, mg.int32),
    ("dtype-long", lambda: T.long, mg.int64), ("dtype-double", lambda: T.double, mg.float64),
    ("dtype-half", lambda: T.half, mg.float16), ("dtype-short", lambda: T.short, mg.int16),
    ("dtype-bool", lambda: T.bool, mg.bool), ("dtype-cast", lambda: x34().to(T.int).dtype,
                                               mg.int32),
    ("torch.Size", lambda: T.Size([3, 4]) == t34().shape == t34().size(), True),
    ("Size-slice", lambda: isinstance(t34().shape[1:], T.Size) and t34().shape[1:] == [4], True),
    ("Size-add", lambda: (isinstance(t34().shape + (5,), T.Size), (2,) + t34().shape),
     (True, [2, 3, 4])),
    ("Size-index", lambda: type(t34().shape[-1]), int),
    ("torch.is_tensor", lambda: (T.is_tensor(x34()), T.is_tensor([1])), (True, False)),
    ("torch.manual_seed", lambda: (T.manual_seed(3) is T.default_generator, T.initial_seed()),
     (True, 3)),
    ("torch.Generator", lambda: T.Generator().manual_seed(1).initial_seed(), 1),
    ("torch-F.pad", lambda: T.nn.functional.pad(T.ones(1, 2), (1, 0), value=5.0).tolist(),
     [[5.0, 1.0, 1.0]]),
    ("paddle-F.pad-NCHW", lambda: P.nn.functional.pad(P.ones([1, 2, 3, 4]), [1, 1, 2, 0]).shape,
     [1, 2, 5, 6]),
    ("paddle-F.pad-all-axes", lambda: P.nn.functional.pad(P.ones([2, 1]), [1, 0, 0, 2],
                                                          value=3.0).tolist(),
     [[3.0, 3.0, 3.0], [1.0, 3.0, 3.0], [1.0, 3.0, 3.0]]),
    ("paddle-F.pad-NHWC", lambda: P.nn.functional.pad(P.ones([1, 3, 4, 2]), [1, 1, 2, 0],
                                                      mode="reflect", data_format="NHWC").shape,
     [1, 5, 6, 2]),
    ("torch.randn-generator", lambda: T.equal(T.randn(4, generator=T.Generator().manual_seed(2)),
                                              T.randn(4, generator=T.Generator().manual_seed(2))),
     True),
    ("random_split-generator", lambda: [len(p) for p in T.utils.data.random_split(
        list(range(10)), [0.7, 0.3], generator=T.Generator().manual_seed(42))], [7, 3]),
    ("paddle.set_device", lambda: str(P.set_device("cpu")), "cpu"),
    ("paddle.set_device-npu", lambda: P.set_device("npu:0"), (PlaceError, "unknown place")),
    ("paddle.seed", lambda: P.seed(5), 5),
    ("paddle.matmul-transpose", lambda: P.matmul(x34(), x34(), transpose_y=True).shape, [3, 3]),
    ("paddle.matmul_-shape", lambda: P.matmul_(x34(), mg.ones([4, 2])),
     (ShapeError, "product has shape")),
    ("paddle.in_dynamic_mode", lambda: P.in_dynamic_mode(), True),
    ("torch.allclose", lambda: T.allclose(x34(), x34() + 1e-9), True),
    ("torch.allclose-far", lambda: T.allclose(x34(), x34() + 1e-3), False),
    ("paddle.allclose", lambda: (P.allclose(x34(), x34()).dtype, P.allclose(x34(), x34()).item()),
     (mg.bool, True)),
    ("torch.equal", lambda: (T.equal(x34(), x34()), T.equal(x34(), x34().t())), (True, False)),
    ("torch.cuda", lambda: (T.cuda.is_available(), T.cuda.device_count()), (False, 0)),
    ("paddle.device", lambda: (P.device.get_device(), P.is_compiled_with_cuda()), ("cpu", False)),
    ("paddle.enable_static", lambda: P.enable_static(), (NotImplementedError, "eagerly")),
]


@pytest.mark.parametrize("call,expected", [c[1:] for c in CLASHES], ids=[c[0] for c in CLASHES])
def test_clashing_names_follow_their_framework(call, expected):
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], type) \
            and issubclass(expected[0], Exception):
        with pytest.raises(expected[0], match=expected[1]):
            call()
    else:
        assert call() == expected


def test_torch_from_numpy_shares_memory_and_manual_seed_reproduces():
    a = np.zeros(3)
    t = T.from_numpy(a)
    t.add_(1)
    np.testing.assert_array_equal(a, [1.0, 1.0, 1.0])
    T.manual_seed(3)
    r = T.randn(4).tolist()
    T.manual_seed(3)
    assert T.randn(4).tolist() == r


# ---- in-place functions: same object, version + 1, no bytes, values ----------------------------
INPLACE = [
    ("paddle.add_", lambda x: P.add_(x, mg.ones([2, 2])), lambda a: a + 1),
    ("paddle.abs_", lambda x: P.abs_(x), np.abs),
    ("paddle.relu_", lambda x: P.relu_(x), lambda a: np.maximum(a, 0)),
    ("paddle.multiply_", lambda x: P.multiply_(x, mg.full([2, 2], 3.0)), lambda a: 3 * a),
    ("paddle.scale_", lambda x: P.scale_(x, 2.0, 1.0), lambda a: 2 * a + 1),
    ("Tensor.scale_", lambda x: x.scale_(2.0), lambda a: 2 * a),
    ("Tensor.multiply_", lambda x: x.multiply_(x), np.square),
    ("Tensor.matmul_", lambda x: x.matmul_(mg.tensor([[0.0, 2.0], [1.0, 0.0]])),
     lambda a: a @ np.array([[0.0, 2.0], [1.0, 0.0]], np.float32)),
    ("F.relu-inplace", lambda x: TF.relu(x, inplace=True), lambda a: np.maximum(a, 0)),
    ("F.leaky_relu-inplace", lambda x: TF.leaky_relu(x, 0.1, inplace=True),
     lambda a: np.where(a > 0, a, 0.1 * a)),
    ("F.hardtanh-inplace", lambda x: TF.hardtanh(x, inplace=True), lambda a: np.clip(a, -1, 1)),
    ("paddle F.relu_", lambda x: PF.relu_(x), lambda a: np.maximum(a, 0)),
    ("paddle F.elu_", lambda x: PF.elu_(x, 1.0), lambda a: np.where(a > 0, a, np.exp(a) - 1)),
]


@pytest.mark.parametrize("write,ref", [c[1:] for c in INPLACE], ids=[c[0] for c in INPLACE])
def test_inplace_forms_write_into_their_input(write, ref):
    a = np.array([[-1.5, 0.5], [2.0, -0.25]], np.float32)
    x = mg.tensor(a)
    with counting() as c:
        y = write(x)
    assert y is x and x.inplace_version == 1 and x._inplace_version() == 1
    assert c["bytes"] == 0
    np.testing.assert_allclose(x.numpy(), ref(a), rtol=1e-6)


def test_paddle_matmul_inplace_counts_its_workspace():
    x, y = mg.ones([2, 2]), mg.full([2, 2], 2.0)
    with counting() as c:
        assert P.matmul_(x, y) is x
    assert c["bytes"] == 0 and x.tolist() == [[4.0, 4.0], [4.0, 4.0]] and x.inplace_version == 1


def test_functional_out_of_place_forms_leave_the_input():
    x = mg.tensor([-1.0, 2.0])
    assert TF.relu(x).tolist() == [0.0, 2.0] and x.tolist() == [-1.0, 2.0]
    assert PF.gelu(x, approximate=True).shape == [2]
    np.testing.assert_allclose(PF.softmax(x).numpy(), TF.softmax(x, dim=0).numpy())


# ---- Paddle's Tensor methods: set_value, clear_grad, retain_grads, grad ------------------------
def test_set_value_on_a_leaf_is_a_data_write_that_moves_the_version():
    w = P.to_tensor([1.0, 2.0], stop_gradient=False)
    y = w * w                           # saves w
    assert w.set_value([3.0, 4.0]) is w  # Paddle's way to load weights: no refusal
    assert w.tolist() == [3.0, 4.0] and w.inplace_version == 1
    assert w.is_leaf and not w.stop_gradient and w.grad_fn is None
    with pytest.raises(ValueError, match="tensor_version:1 != wrapper_version_snapshot:0"):
        y.sum().backward()
    with pytest.raises(ValueError, match="tensor_version:1 != wrapper_version_snapshot:0"):
        P.grad(y.sum(), [w])
    with P.no_grad():
        assert w.set_value(np.array([5.0, 6.0])) is w
    assert w.tolist() == [5.0, 6.0] and w.inplace_version == 2
    with pytest.raises(ShapeError, match="must be equal"):
        w.set_value([1.0])              # would broadcast, but Paddle wants the same shape
    with pytest.raises(ShapeError, match="do not broadcast"):
        w.set_value([1.0, 2.0, 3.0])
    assert w.tolist() == [5.0, 6.0] and w.inplace_version == 2
    (w * w).sum().backward()            # a graph built after the write is fine
    assert w.grad.tolist() == [10.0, 12.0]


def test_set_value_on_a_non_leaf_rebases_its_history():
    w = P.to_tensor([1.0, 2.0], stop_gradient=False)
    v = P.to_tensor([5.0, 6.0], stop_gradient=False)
    y = w * 2
    z = y * y               # saves y
    y.set_value(v)
    (y * y).sum().backward()
    assert w.grad.tolist() == [0.0, 0.0] and v.grad.tolist() == [10.0, 12.0]
    with pytest.raises(ValueError, match="modified by an inplace operation"):
        z.sum().backward()


def test_clear_grad_retain_grads_and_paddle_grad():
    w = P.to_tensor([1.0, 2.0], stop_gradient=False)
    y = w * 3
    y.retain_grads()
    (y * y).sum().backward()
    assert y.grad.tolist() == [6.0, 12.0] and w.grad.tolist() == [18.0, 36.0]
    np.testing.assert_array_equal(w.gradient(), [18.0, 36.0])
    w.clear_grad()
    assert w.grad is None and w.gradient() is None
    (g,) = P.grad((w * w).sum(), [w])
    assert g.tolist() == [2.0, 4.0] and w.grad is None


def test_pylayer_and_function():
    class Cube(P.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 3 * x * x

    x = P.to_tensor([2.0], stop_gradient=False)
    Cube.apply(x).backward()
    assert x.grad.tolist() == [12.0]
    assert T.autograd.Function is mg.autograd.Function


class Split3(P.autograd.PyLayer):
    """Two outputs: 3x and x*x (the second saved through ctx)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3, x * x

    @staticmethod
    def backward(ctx, g3, gsq):
        (x,) = ctx.saved_tensor()
        return g3 * 3 + gsq * 2 * x


@pytest.mark.parametrize("use,expected", [
    (lambda a, b: a.sum() + b.sum(), [3.0 + 4.0, 3.0 - 2.0]),
    (lambda a, b: b.sum(), [4.0, -2.0]),                    # a unused: its gradient is zero
    (lambda a, b: (a * b).sum(), [36.0, 9.0]),             # d(3x^3)/dx = 9x^2
])
def test_pylayer_with_two_outputs(use, expected):
    x = P.to_tensor([2.0, -1.0], stop_gradient=False)
    a, b = Split3.apply(x)
    assert not a.stop_gradient and not b.stop_gradient
    use(a, b).backward()
    assert x.grad.tolist() == expected


def test_pylayer_output_modified_before_backward_raises():
    x = P.to_tensor([2.0, -1.0], stop_gradient=False)
    y = x * 1
    a, b = Split3.apply(y)
    y.add_(1)                       # saved by the PyLayer
    with pytest.raises(ValueError, match="modified by an inplace operation"):
        (a + b).sum().backward()


# ---- the tensor types: a tensor's namespace decides the clashing methods -----------------------
def _split_count(x):
    return len(x.split(2))


def _max_kind(x):
    r = x.max(1)
    return "pair" if isinstance(r, tuple) else "values"


def _uniform_min(x):
    return float(x.uniform_().min()) < -0.5


NAMESPACES = {None: mg, "torch": T, "paddle": P}

DIALECT = [  # (method, namespace that makes the tensor (None: the main one), expected)
    (_split_count, None, 2), (_split_count, "torch", 2), (_split_count, "paddle", 2),
    (_max_kind, None, "pair"), (_max_kind, "torch", "pair"), (_max_kind, "paddle", "values"),
    (_uniform_min, None, False), (_uniform_min, "torch", False), (_uniform_min, "paddle", True),
    (lambda x: repr(x.shape), None, "[4, 1000]"),
    (lambda x: repr(x.shape), "torch", "torch.Size([4, 1000])"),
    (lambda x: repr(x.shape), "paddle", "[4, 1000]"),
    (lambda x: str(x.dtype), None, "float32"), (lambda x: str(x.dtype), "torch", "torch.float32"),
    (lambda x: str(x.dtype), "paddle", "paddle.float32"),
    (lambda x: x.type(), None, "mutograd.float32"),
    (lambda x: x.type(), "torch", "torch.FloatTensor"),
    (lambda x: x.type(T.DoubleTensor).dtype, "torch", mg.float64),
    (lambda x: x.type("torch.LongTensor").dtype, "torch", mg.int64),
]


@pytest.mark.parametrize("method,name,expected", DIALECT,
                         ids=[f"{m.__name__}-{d}" for m, d, _ in DIALECT])
def test_the_tensor_type_decides_clashing_methods(method, name, expected):
    x = NAMESPACES[name].zeros([4, 1000])   # split(2): torch 2 pieces of 2 rows; paddle 2 pieces
    assert type(x) is (mg.Tensor if name is None else NAMESPACES[name].Tensor)
    assert method(x) == expected


def test_split_differs_between_tensor_types():
    assert shapes(T.arange(6).split(2)) == [[2], [2], [2]]
    p = P.arange(6)
    assert shapes(p.split(2)) == [[3], [3]] and isinstance(p.split(2), list)
    assert shapes(mg.arange(6).split(2)) == [[2], [2], [2]]


def _grad_leaf(name):
    if name == "paddle":
        return P.to_tensor([1.0, 2.0], stop_gradient=False)
    return NAMESPACES[name].tensor([1.0, 2.0], requires_grad=True)


@pytest.mark.parametrize("name,raises", [(None, False), ("paddle", False), ("torch", True)])
def test_backward_scalar_rule_per_tensor_type(name, raises):
    x = _grad_leaf(name)
    if raises:
        with pytest.raises(RuntimeError, match="only for scalar outputs"):
            (x * 2).backward()
        assert x.grad is None
    else:
        (x * 2).backward()
        assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(BackwardError, match="only for scalar outputs"):
        T.autograd.backward([x * 2])
    P.autograd.backward([x * 2])      # Paddle's function accepts any shape


PRINTS = [
    (lambda: T.tensor([[1.0, 2.0]], requires_grad=True),
     "tensor([[1., 2.]], requires_grad=True)"),
    (lambda: T.tensor([0.5, 1.23456789]), "tensor([0.5000, 1.2346])"),
    (lambda: T.tensor([1.0, 2.0], dtype=T.float64), "tensor([1., 2.], dtype=torch.float64)"),
    (lambda: T.tensor([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: P.to_tensor([[1.5, -2.0]]),
     ("Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
      "       [[ 1.50000000, -2.        ]])")),
    (lambda: P.to_tensor([4.0, 4.0], stop_gradient=False),
     ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
      "       [4., 4.])")),
    (lambda: mg.tensor([4.0, 4.0], requires_grad=True),     # the main tensor: Paddle's layout
     ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
      "       [4., 4.])")),
]


@pytest.mark.parametrize("make,text", PRINTS)
def test_printing_follows_the_tensor_type(make, text):
    assert repr(make()) == text


def test_a_tensor_prints_by_its_type_in_any_module_and_thread():
    import threading
    t, p, m = T.tensor([1.0, 2.0]), P.to_tensor([1.0, 2.0]), mg.tensor([1.0, 2.0])
    texts = {"torch": "tensor([1., 2.])",
             "paddle": "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,"
                       "\n       [1., 2.])"}
    seen = []
    worker = threading.Thread(target=lambda: seen.append((repr(t), repr(p), repr(m))))
    worker.start()
    worker.join()
    # a module that imports neither namespace (this one's globals hold both) prints them alike
    g = {}
    exec("def show(*ts):\n    return tuple(repr(x) for x in ts)", g)
    assert seen == [g["show"](t, p, m)] == [(texts["torch"], texts["paddle"], texts["paddle"])]


def test_an_op_keeps_the_type_of_its_first_dialect_tensor():
    t, p, m = T.ones(2), P.ones([2]), mg.ones([2])
    assert type(m + t) is T.Tensor and type(t + m) is T.Tensor
    assert type(m * p) is P.Tensor and type(mg.relu(p)) is P.Tensor
    assert type(m + m) is mg.Tensor
    assert type(T.relu(m)) is T.Tensor and type(P.nn.functional.relu(m)) is P.Tensor


def test_dtype_objects_print_by_namespace_and_compare_equal():
    assert (str(T.float32), str(P.float32), str(mg.float32)) == (
        "torch.float32", "paddle.float32", "float32")
    assert T.float32 == P.float32 == mg.float32 and T.int64 == mg.int64


def test_node_names_are_pytorchs_whatever_the_tensor_type():
    for x in (T.tensor([1.0], requires_grad=True), P.to_tensor([1.0], stop_gradient=False),
              mg.tensor([1.0], requires_grad=True)):
        y = x * 2
        assert y.grad_fn.name() == "MulBackward0" and repr(y.grad_fn) == "<MulBackward0>"


def test_unknown_dialect_is_refused():
    with pytest.raises(ValueError, match="unknown dialect 'jax'"), compat.importing_as("jax"):
        pass
    with pytest.raises(ValueError, match="unknown dialect 'jax'"):
        compat.install("jax")


def test_importing_as_aliases_modules_and_restores_them():
    before = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    with compat.importing_as("torch") as ns:
        import torch
        import torch.nn.functional as F
        from torch.autograd import grad
        assert torch is ns is T and F is TF and grad is T.autograd.grad
        # the alias gives torch's tensors; main tensors keep the main rules inside it too
        assert repr(torch.tensor([1.0])) == "tensor([1.])"
        assert repr(mg.tensor([1.0]).shape) == "[1]" and str(mg.tensor([1.0]).dtype) == "float32"
    after = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    assert after == before


def test_run_script_runs_an_unmodified_paddle_script(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(
        "import sys\n"
        "import paddle\n"
        "import paddle.nn.functional as F\n"
        "x = paddle.to_tensor([[-1.0, 2.0]], stop_gradient=False)\n"
        "y = F.relu(x * 2)\n"
        "y.backward()\n"
        "print(sys.argv[1:], x.grad.tolist(), y.split(2, axis=1)[0].shape)\n")
    g = compat.run_script(script, "paddle", ["--epochs", "1"])
    assert capsys.readouterr().out == "['--epochs', '1'] [[0.0, 2.0]] [1, 1]\n"
    assert g["__name__"] == "__main__" and isinstance(g["x"], P.Tensor)
    assert "paddle" not in sys.modules
