"""PyTorch-dialect modules and objects: ``torch.autograd.Variable`` and gradient edges,
``torch.accelerator``, ``torch.onnx``/``torch.hub`` (importable, refusing with a reason),
``nn.Embedding(max_norm=)``, ``nn.Dropout2d`` on 2-D input, and the order of re-assigned
submodules."""
import warnings

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd.errors import MutogradError

W = np.random.RandomState(0).randn(6, 3).astype(np.float32) * 2
IDX = [[0, 2], [2, 5]]


def test_variable_is_a_detached_leaf_and_every_tensor_is_one():
    t = mt.ones(2)
    v = mt.autograd.Variable(t, requires_grad=True)
    assert v is not t and v.is_leaf and v.requires_grad and not t.requires_grad
    assert isinstance(t, mt.autograd.Variable) and issubclass(mg.Tensor, mt.autograd.Variable)
    with mg.no_grad():
        v.add_(1)
    assert t.tolist() == [2.0, 2.0]              # shares the data, as PyTorch
    with pytest.raises(TypeError, match="Variable data has to be a tensor"):
        mt.autograd.Variable([1.0])


def test_gradient_edge_as_an_input_of_grad():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    edge = mt.autograd.graph.get_gradient_edge(y)
    assert edge.node is y.grad_fn and edge.output_nr == 0 and len(edge) == 3   # as PyTorch
    (g,) = mt.autograd.grad((y * y).sum(), edge)
    assert g.tolist() == [6.0, 12.0]
    (g,) = mt.autograd.grad((y * y).sum(), [mt.autograd.graph.get_gradient_edge(x)])
    assert g.tolist() == [18.0, 36.0]
    with pytest.raises(RuntimeError, match="does not require gradients"):
        mt.autograd.graph.get_gradient_edge(mt.ones(1))
    # an edge made by hand names the same place, as in PyTorch
    (g,) = mt.autograd.grad((y * y).sum(), mt.autograd.graph.GradientEdge(y.grad_fn, 0))
    assert g.tolist() == [6.0, 12.0]


@pytest.mark.torch
def test_gradient_edge_matches_pytorch():
    torch = pytest.importorskip("torch")
    out = []
    for T in (torch, mt):
        x = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        h = x.exp()
        loss = (h * h).sum()
        out.append(T.autograd.grad(loss, T.autograd.graph.get_gradient_edge(h))[0].tolist())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-6)


def test_accelerator_gives_the_real_answer():
    assert mt.accelerator.is_available() is mg.cuda.is_available()
    if not mg.cuda.is_available():
        assert mt.accelerator.current_accelerator() is None
        assert mt.accelerator.device_count() == 0
        assert mt.accelerator.current_device_index() == -1
    else:
        assert mt.accelerator.current_accelerator() == mt.device("cuda")


@pytest.mark.parametrize("module, call, words", [
    ("onnx", lambda m: m.export(mt.nn.Linear(2, 2), mt.ones(1, 2), "m.onnx"), "state_dict"),
    ("onnx", lambda m: m.dynamo_export(mt.nn.Linear(2, 2)), "JIT"),
    ("hub", lambda m: m.load("pytorch/vision", "resnet18"), "load_state_dict"),
    ("hub", lambda m: m.load_state_dict_from_url("https://example.com/w.pt"), "torch.load"),
])
def test_onnx_and_hub_import_and_refuse_with_the_alternative(module, call, words):
    import importlib
    m = importlib.import_module("mutograd.compat.torch." + module)
    assert getattr(mt, module) is m
    with pytest.raises(MutogradError, match=f"torch.{module}.*not supported") as e:
        call(m)
    assert isinstance(e.value, RuntimeError) and words in str(e.value)


def test_onnx_and_hub_helpers_that_need_nothing_work(tmp_path):
    assert mt.onnx.is_in_onnx_export() is False
    mt.hub.set_dir(str(tmp_path))
    assert mt.hub.get_dir() == str(tmp_path)


@pytest.mark.torch
@pytest.mark.parametrize("max_norm, norm_type, padding_idx", [
    (1.0, 2.0, None), (0.5, 1.0, None), (2.0, 2.0, 2), (100.0, 2.0, None)])
def test_embedding_max_norm_renormalises_like_pytorch(max_norm, norm_type, padding_idx):
    torch = pytest.importorskip("torch")
    res = []
    for T in (torch, mt):
        w = T.nn.Parameter(T.tensor(W))
        out = T.nn.functional.embedding(T.tensor(IDX), w, padding_idx=padding_idx,
                                        max_norm=max_norm, norm_type=norm_type)
        (out * T.arange(12.).reshape(2, 2, 3)).sum().backward()
        res.append([_np(w), _np(out), _np(w.grad)])
    for want, got in zip(*res):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.torch
def test_embedding_module_max_norm_like_pytorch():
    torch = pytest.importorskip("torch")
    res = []
    for T in (torch, mt):
        e = T.nn.Embedding(6, 3, max_norm=1.0, _weight=T.tensor(W))
        out = e(T.tensor([[1, 4], [4, 0]]))
        res.append((_np(e.weight), _np(out)))
    for want, got in zip(*res):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_embedding_max_norm_is_a_counted_write():
    e = mt.nn.Embedding(4, 3, max_norm=0.1)
    v = e.weight._version
    out = e(mt.tensor([1, 1]))
    assert e.weight._version == v + 1
    assert np.allclose(np.linalg.norm(out.detach().numpy(), axis=1), 0.1, rtol=1e-5)
    assert "max_norm=0.1" in repr(e)
    with pytest.raises(ValueError, match="sparse"):
        mt.nn.functional.embedding(mt.tensor([0]), e.weight, sparse=True)


def _np(t):
    return t.detach().numpy()


def test_dropout2d_on_2d_warns_and_drops_elementwise():
    mg.seed(1)
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        y = mt.nn.Dropout2d(0.5)(mt.ones(40, 50))
    kept = y.numpy() != 0
    # element-wise: rows are neither all kept nor all dropped
    assert 0 < kept.mean() < 1 and (kept.any(1) & ~kept.all(1)).all()
    assert set(np.unique(y.numpy())) <= {0.0, 2.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # 4-D input: channels, no warning
        mt.nn.functional.dropout2d(mt.ones(2, 3, 4, 4))


class _Net(mt.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = mt.nn.Linear(2, 2)
        self.b = mt.nn.Linear(2, 2)
        self.p = mt.nn.Parameter(mt.ones(1))
        self.q = mt.nn.Parameter(mt.ones(1))


def test_reassigned_submodule_and_parameter_keep_their_place():
    m = _Net()
    before = list(m.state_dict())
    m.a = mt.nn.Linear(2, 2)
    m.p = mt.nn.Parameter(mt.zeros(1))
    assert [n for n, _ in m.named_parameters()] == before == list(m.state_dict())
    assert m.p.tolist() == [0.0]
    m.b = None                                  # a module slot set to None stays in place
    m.b = mt.nn.Linear(2, 2)
    assert list(m.state_dict()) == before


@pytest.mark.torch
def test_reassignment_order_matches_pytorch():
    torch = pytest.importorskip("torch")
    orders = []
    for T in (torch, mt):
        m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU(), T.nn.Linear(2, 2))
        m.extra = T.nn.Linear(2, 1)
        m[0] = T.nn.Linear(2, 2)
        m.extra = T.nn.Linear(2, 1)
        setattr(m, "2", T.nn.Linear(2, 2))
        orders.append(list(m.state_dict()))
    assert orders[0] == orders[1]


@pytest.mark.torch
def test_sequential_item_assignment_and_deletion_like_pytorch():
    torch = pytest.importorskip("torch")
    res = []
    for T in (torch, mt):
        s = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU(), T.nn.Linear(3, 1), T.nn.Tanh())
        s[1] = T.nn.Sigmoid()
        del s[0]
        res.append((list(s.state_dict()), [type(m).__name__ for m in s], list(s._modules)))
    assert res[0] == res[1]


def test_save_and_load_through_file_objects(tmp_path):
    import io
    net = mt.nn.Linear(3, 2)
    buf = io.BytesIO()
    mt.save({"model": net.state_dict(), "step": 7}, buf)
    buf.seek(0)
    back = mt.load(buf, map_location="cpu", weights_only=True)
    assert back["step"] == 7 and back["model"]["weight"].tolist() == net.weight.tolist()
    with open(tmp_path / "w.pt", "wb") as f:
        mt.save(net.state_dict(), f)
    with open(tmp_path / "w.pt", "rb") as f:
        assert mt.load(f)["bias"].tolist() == net.bias.tolist()
    assert mt.load(tmp_path / "w.pt")["bias"].tolist() == net.bias.tolist()   # a path too
    with pytest.raises(mg.errors.CheckpointError, match="truncated|not a mutograd"):
        mt.load(io.BytesIO(b"garbage"))


def _rosen(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


@pytest.mark.torch
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lbfgs_follows_pytorch_step_by_step(line_search_fn, dtype):
    torch = pytest.importorskip("torch")
    x0 = np.array([-1.5, 2.0, 0.5, -0.7], dtype=dtype)
    res = []
    for T in (torch, mt):
        w = T.nn.Parameter(T.tensor(x0))
        b = T.nn.Parameter(T.tensor(x0[:2] * 0.5))
        opt = T.optim.LBFGS([w, b], lr=0.8, max_iter=12, history_size=4,
                            line_search_fn=line_search_fn)

        def closure():
            opt.zero_grad()
            loss = _rosen(w) + (b * b).sum()
            loss.backward()
            return loss
        trace = []
        for _ in range(3):
            trace.append(float(opt.step(closure).detach()))
        res.append((trace, _np(w), _np(b), opt.state[w]["func_evals"], opt.state[w]["n_iter"]))
    (lt, wt, bt, ft, nt), (lm, wm, bm, fm, nm) = res
    # float32: PyTorch keeps the scalars of the update (y.s, H_diag) in float32, these are
    # Python floats; the paths agree to rounding, which the line search can amplify near 0
    tol = 1e-9 if dtype == "float64" else 2e-3
    np.testing.assert_allclose(lm, lt, rtol=tol)
    np.testing.assert_allclose(wm, wt, rtol=tol, atol=tol)
    np.testing.assert_allclose(bm, bt, rtol=tol, atol=tol)
    if dtype == "float64":
        assert (fm, nm) == (ft, nt)


def test_lbfgs_needs_a_closure_and_one_group():
    w = mt.nn.Parameter(mt.ones(2))
    opt = mt.optim.LBFGS([w])
    with pytest.raises(RuntimeError, match="closure"):
        opt.step(None)
    with pytest.raises(ValueError, match="per-parameter options"):
        mt.optim.LBFGS([{"params": [w]}, {"params": [mt.nn.Parameter(mt.ones(1))]}])
    with pytest.raises(ValueError, match="strong_wolfe"):
        mt.optim.LBFGS([w], line_search_fn="backtracking")
    v = w._version
    opt.step(lambda: (opt.zero_grad(), (w * w).sum().backward(), (w * w).sum())[-1] * 1)
    assert w._version > v and np.allclose(w.tolist(), 0, atol=1e-6)


def test_torch_tensor_is_the_real_class():
    assert mt.Tensor is not mg.Tensor and issubclass(mt.Tensor, mg.Tensor)
    x = mt.ones(2)
    assert type(x) is mt.Tensor and isinstance(mt.nn.Parameter(x), mt.Tensor)
    assert isinstance(mt.nn.Parameter(mg.ones([2])), mt.Tensor)   # a main tensor converts
    assert not isinstance(mg.ones([2]), mt.Tensor)
    mt.Tensor.twice = lambda self: self * 2     # a method added to the class reaches tensors
    try:
        assert x.twice().tolist() == [2.0, 2.0]
    finally:
        del mt.Tensor.twice
    assert not hasattr(x, "twice")
    assert mt.Tensor(2, 3).shape == mt.Size([2, 3]) and mt.Tensor(2, 3).sum().item() == 0
    assert mt.Tensor(3).tolist() == [0.0, 0.0, 0.0]               # PyTorch: 3 elements
    assert type(mt.Tensor(3)) is mt.Tensor
    assert mt.Tensor(mt.Size([1, 2])).shape == mt.Size([1, 2])
    assert mt.Tensor([[1.0, 2.0]]).tolist() == [[1.0, 2.0]] and mt.Tensor().shape == mt.Size([0])
    assert mg.Tensor(5).item() == 5 and mg.Tensor(5).ndim == 0    # the value 5 for main ones


@pytest.mark.torch
def test_node_names_as_pytorch_prints_them():
    torch = pytest.importorskip("torch")

    def names(T):
        class MyFn(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = T.ones(2, requires_grad=True)
        c = x.clone()
        f = MyFn.apply(x)
        return [c.grad_fn.name(), (x * 2).grad_fn.name(), (x + 1).sum().grad_fn.name(),
                f.grad_fn.name(), type(f.grad_fn).__name__, repr(c).split("grad_fn=")[1]]

    assert names(mt) == names(torch)
    # a main tensor's nodes have PyTorch's numbered names too
    assert mg.ones([1], requires_grad=True).clone().grad_fn.name() == "CloneBackward0"


@pytest.mark.torch
@pytest.mark.parametrize("name, kw", [
    ("Adamax", {}), ("Adamax", {"weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}), ("NAdam", {"weight_decay": 0.05, "momentum_decay": 0.01}),
    ("NAdam", {"weight_decay": 0.05, "decoupled_weight_decay": True}),
    ("RAdam", {}), ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("ASGD", {}), ("ASGD", {"lambd": 0.1, "t0": 3, "weight_decay": 0.01}),
    ("Rprop", {}), ("Rprop", {"etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
])
def test_other_optimizers_follow_pytorch_step_by_step(name, kw):
    torch = pytest.importorskip("torch")
    w0 = np.array([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]])
    res = []
    for T in (torch, mt):
        w = T.nn.Parameter(T.tensor(w0))
        b = T.nn.Parameter(T.tensor(w0[0] * 0.1))
        opt = getattr(T.optim, name)([w, b], lr=0.05, **kw)
        for step in range(8):
            opt.zero_grad()
            loss = ((w * w).sum() * (1 + 0.1 * step) + (w[0] * b).sin().sum()
                    + (b ** 3).sum())
            loss.backward()
            opt.step()
        res.append((_np(w), _np(b)))
        if name == "ASGD":
            res[-1] += (opt.state[w]["ax"].numpy(),)
    # PyTorch keeps NAdam's mu_product and ASGD's eta/mu as float32 scalars: agreement to
    # their rounding
    for want, got in zip(*res):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


class _Stream:
    """An IterableDataset in either framework: squares of 0..n-1 as float arrays."""

    @staticmethod
    def make(T, n):
        class Squares(T.utils.data.IterableDataset):
            def __iter__(self):
                return iter([np.array([float(i * i)]) for i in range(n)])

            def __len__(self):
                return n
        return Squares()


@pytest.mark.torch
@pytest.mark.parametrize("batch_size, drop_last", [(2, False), (2, True), (3, False), (None,
                                                                                        False)])
def test_iterable_datasets_load_like_pytorch(batch_size, drop_last):
    torch = pytest.importorskip("torch")
    res = []
    for T in (torch, mt):
        ds = _Stream.make(T, 5) + _Stream.make(T, 2)
        dl = T.utils.data.DataLoader(ds, batch_size=batch_size, drop_last=drop_last)
        res.append(([b.numpy().tolist() for b in dl], len(dl), len(ds)))
    assert res[0] == res[1]


@pytest.mark.torch
def test_stack_dataset_default_convert_and_worker_info_like_pytorch():
    torch = pytest.importorskip("torch")
    res = []
    for T in (torch, mt):
        a = T.utils.data.TensorDataset(T.arange(4.))
        s = T.utils.data.StackDataset(a, T.utils.data.TensorDataset(T.arange(4) * 2))
        d = T.utils.data.StackDataset(x=a, y=a)
        conv = T.utils.data.default_convert({"a": np.ones(2), "b": [np.zeros(1), 3]})
        res.append((len(s), [t.tolist() for p in s[2] for t in p], sorted(d[1]),
                    conv["a"].tolist(), conv["b"][0].tolist(), conv["b"][1],
                    T.utils.data.get_worker_info()))
    assert res[0] == res[1]
    with pytest.raises(ValueError, match="Size mismatch"):
        mt.utils.data.StackDataset(mt.utils.data.TensorDataset(mt.ones(2)),
                                   mt.utils.data.TensorDataset(mt.ones(3)))
    with pytest.raises(ValueError, match="IterableDataset"):
        mt.utils.data.DataLoader(_Stream.make(mt, 2), shuffle=True)


def test_weighted_random_sampler():
    mt.manual_seed(0)
    s = mt.utils.data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000)
    idx = list(s)
    assert len(s) == 4000 and len(idx) == 4000 and 0 not in idx
    assert abs(idx.count(2) / 4000 - 0.75) < 0.03
    g = mt.Generator().manual_seed(3)
    once = list(mt.utils.data.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False,
                                                    generator=g))
    assert sorted(once) == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="without replacement"):
        mt.utils.data.WeightedRandomSampler([1, 0], 2, replacement=False)
    with pytest.raises(ValueError, match="num_samples"):
        mt.utils.data.WeightedRandomSampler([1, 1], 0)


@pytest.mark.parametrize("f, ok", [
    (lambda t: (t ** 3).sin(), True),
    (lambda t: t.softmax(0) * t, True),
    (lambda t: (t.exp().sum(), t * 2), True),                        # several outputs
    (lambda t: _Twice.apply(t), False),                              # a wrong backward
])
def test_gradcheck(f, ok):
    x = mt.tensor([0.3, -1.2, 0.5], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(f, (x,), raise_exception=False) is ok
    if not ok:
        with pytest.raises(mt.autograd.GradcheckError, match="Jacobian mismatch") as e:
            mt.autograd.gradcheck(f, x)
        assert isinstance(e.value, RuntimeError)
    assert x.tolist() == [0.3, -1.2, 0.5]       # the perturbations are undone


class _Twice(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3


def test_autograd_helpers():
    with pytest.raises(RuntimeError, match=r"use torch.tensor\(...\) instead"):
        mt.autograd.variable(mt.ones(1))
    assert mt.autograd.is_multithreading_enabled() is True
    assert mt.autograd.is_view_replay_enabled() is False
    with mt.autograd.set_multithreading_enabled(False):
        pass
    assert callable(mt.autograd.gradgradcheck)   # second order: tests/autograd/test_functional.py


@pytest.mark.torch
def test_inference_tensors_like_pytorch():
    torch = pytest.importorskip("torch")

    def run(T):
        x = T.ones(2, requires_grad=True)
        out = []
        with T.inference_mode():
            y = x * 2
            out += [T.is_inference_mode_enabled(), y.is_inference(), y[0].is_inference(),
                    y.detach().is_inference(), y.requires_grad]
            with T.inference_mode(False):
                z = x * 3
                out += [z.is_inference(), z.requires_grad, T.is_inference_mode_enabled()]
        w = x * 2
        out += [w.is_inference(), x.is_inference(), T.is_inference_mode_enabled(),
                y.is_inference()]

        @T.inference_mode()
        def f(a):
            return a + 1
        out += [f(x).is_inference(), f(x).requires_grad, (x + 1).is_inference()]
        return out
    assert run(mt) == run(torch)


def test_inference_mode_is_per_thread():
    import threading
    seen = {}
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait()
        seen["other"] = (mt.ones(1).is_inference(), mt.is_inference_mode_enabled())
        done.set()
    t = threading.Thread(target=other)
    t.start()
    with mt.inference_mode():
        inside.set()
        done.wait()
        seen["here"] = mt.ones(1).is_inference()
    t.join()
    assert seen == {"other": (False, False), "here": True}
    assert not mt.ones(1).is_inference()


def test_sync_batchnorm_data_parallel_lazy_linear_and_aliases():
    x = mt.randn(4, 3, 5, 5)
    bn = mt.nn.BatchNorm2d(3)
    sync = mt.nn.SyncBatchNorm.convert_sync_batchnorm(mt.nn.Sequential(bn, mt.nn.ReLU()))
    assert type(sync[0]) is mt.nn.SyncBatchNorm and sync[0].weight is bn.weight
    ref = mt.nn.BatchNorm2d(3)
    np.testing.assert_allclose(sync(x).detach().numpy(), ref(x).relu().detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(bn.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-6)
    dp = mt.nn.DataParallel(mt.nn.Linear(3, 2))
    assert dp(mt.ones(1, 3)).tolist() == dp.module(mt.ones(1, 3)).tolist()
    assert [n for n, _ in dp.named_parameters()] == ["module.weight", "module.bias"]
    lazy = mt.nn.LazyLinear(2)
    assert isinstance(lazy.weight, mt.nn.UninitializedParameter)
    y = lazy(mt.ones(5, 7))
    assert y.shape == mt.Size([5, 2]) and lazy.in_features == 7
    assert list(lazy.weight.shape) == [2, 7] and not isinstance(lazy.weight,
                                                                mt.nn.UninitializedParameter)
    assert issubclass(mt.nn.NLLLoss2d, mt.nn.NLLLoss)   # as in PyTorch
    assert issubclass(mt.nn.RNN, mt.nn.RNNBase) and issubclass(mt.nn.GRUCell, mt.nn.RNNCellBase)
    c = mt.nn.Container(a=mt.nn.Linear(1, 1))
    assert [n for n, _ in c.named_parameters()] == ["a.weight", "a.bias"]
    with pytest.raises(AttributeError, match="SparseAdam is not supported.*dense"):
        mt.optim.SparseAdam


@pytest.mark.torch
def test_factory_kwargs_like_pytorch():
    torch = pytest.importorskip("torch")
    for kw in (None, {"dtype": "x"}, {"device": "cpu", "factory_kwargs": {"dtype": "y"}}):
        assert mt.nn.factory_kwargs(kw) == torch.nn.factory_kwargs(kw)
