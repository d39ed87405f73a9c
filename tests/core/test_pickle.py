"""Tensors pickle (Note [Pickled tensors] in mutograd/pickling.py): copy, deepcopy and pickle
round trips for every tensor class, views sharing memory, autograd flags as PyTorch keeps them,
a multiprocessing queue to a spawned process, and matplotlib."""
import copy
import io
import multiprocessing
import pickle

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as mtorch

MAKERS = {   # every tensor class: a function making one from an array
    "mg.Tensor": lambda a: mg.to_tensor(a),
    "torch.Tensor": lambda a: mtorch.tensor(a),
    "paddle.Tensor": lambda a: paddle.to_tensor(a),
    "mg.Parameter": lambda a: mg.nn.Parameter(mg.to_tensor(a)),
    "torch.Parameter": lambda a: mtorch.nn.Parameter(mtorch.tensor(a)),
    "paddle.Parameter": lambda a: paddle.create_parameter(
        list(a.shape), str(a.dtype), default_initializer=paddle.nn.initializer.Assign(a)),
}
ARRAYS = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1 + 2j, -3j], np.complex64),
          np.array([[True, False]]), np.arange(4, dtype=np.float16), np.arange(5, dtype=np.int64),
          np.float64(2.5) * np.ones(()), np.zeros((0, 3), np.float32)]
ROUND_TRIPS = {"pickle": lambda t: pickle.loads(pickle.dumps(t)),
               "pickle2": lambda t: pickle.loads(pickle.dumps(t, protocol=2)),
               "copy": copy.copy, "deepcopy": copy.deepcopy}


def _same(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert a.requires_grad == b.requires_grad


@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("kind", MAKERS)
def test_round_trip_keeps_class_dtype_values_and_flag(kind, how):
    for arr in ARRAYS:
        if "Parameter" in kind and arr.dtype.kind not in "fc":
            continue
        if kind == "paddle.Parameter" and arr.dtype.kind == "c":
            continue
        t = MAKERS[kind](arr)
        _same(t, ROUND_TRIPS[how](t))


def test_copy_shares_memory_and_counter_as_torch_copy_shares_storage():
    w = mg.ones([3], requires_grad=True)
    c = copy.copy(w)
    assert c is not w and c.is_leaf and c.requires_grad
    assert np.shares_memory(c.numpy(), w.detach().numpy())
    with mg.no_grad():
        c.add_(1)
    assert w._version == c._version == 1 and w.tolist() == [2.0, 2.0, 2.0]


def test_views_pickled_together_share_memory():
    x = mg.arange(6.0)
    a, v, t = pickle.loads(pickle.dumps([x, x[1:3], x.reshape([2, 3]).t()]))
    a[1] = 100.0
    assert v.tolist() == [100.0, 2.0]
    assert t.tolist() == [[0.0, 3.0], [100.0, 4.0], [2.0, 5.0]]
    assert v._version == a._version == 1   # one version counter, as one storage
    alone = pickle.loads(pickle.dumps(x[4:]))   # a view alone: its base's bytes, its own view
    assert alone.tolist() == [4.0, 5.0] and not np.shares_memory(alone.numpy(), x.numpy())


def test_tied_weights_stay_tied():
    lin = mg.nn.Linear(3, 3)
    model = mg.nn.Sequential(lin, mg.nn.ReLU(), mg.nn.Linear(3, 3))
    model[2].weight = lin.weight
    back = pickle.loads(pickle.dumps(model))
    assert back[2].weight is back[0].weight


def test_autograd_state_as_pytorch():
    w = mg.ones([3], requires_grad=True)
    w.grad = mg.full([3], 5.0)
    y = w * 2
    for t, rg in ((w, True), (y, True), (y.detach(), False)):
        back = pickle.loads(pickle.dumps(t))
        assert back.requires_grad is rg and back.is_leaf and back.grad_fn is None
        assert back.grad is None   # PyTorch does not pickle .grad
    back = pickle.loads(pickle.dumps(y))
    back.sum().backward()
    assert back.grad.tolist() == [1.0, 1.0, 1.0]
    c = copy.copy(y)   # a copy of a non-leaf: a leaf over the same memory, as in PyTorch
    assert c.requires_grad and c.grad_fn is None


@pytest.mark.torch
def test_autograd_state_matches_torch():
    torch = pytest.importorskip("torch")
    w = torch.ones(3, requires_grad=True)
    w.grad = torch.full((3,), 5.0)
    for t in (w, w * 2):
        back = pickle.loads(pickle.dumps(t))
        assert back.requires_grad and back.is_leaf and back.grad is None
    assert copy.copy(w * 2).grad_fn is None
    # views: torch.save keeps views of one storage sharing it, plain pickle copies each (a
    # fresh storage object per tensor defeats the memo); mutograd's pickle, which its
    # whole-object checkpoints use, shares as torch.save does (Note [Pickled tensors])
    x = torch.arange(6.0)
    buf = io.BytesIO()
    torch.save([x, x[1:3]], buf)
    buf.seek(0)
    a, v = torch.load(buf)
    a[1] = 100.0
    assert v.tolist() == [100.0, 2.0]
    a, v = pickle.loads(pickle.dumps([x, x[1:3]]))
    a[1] = 100.0
    assert v.tolist() == [1.0, 2.0]


def test_public_attributes_kept_and_module_round_trip():
    t = mg.ones([2])
    t.name, t.note = "w0", {"lr": 2}
    back = pickle.loads(pickle.dumps(t))
    assert back.name == "w0" and back.note == {"lr": 2}
    p = paddle.create_parameter([2], "float32")
    p.optimize_attr["learning_rate"] = 0.5
    assert pickle.loads(pickle.dumps(p)).optimize_attr == {"learning_rate": 0.5}
    net = mtorch.nn.Sequential(mtorch.nn.Linear(4, 3), mtorch.nn.ReLU(), mtorch.nn.Linear(3, 2))
    back = pickle.loads(pickle.dumps(net))
    x = mtorch.randn(5, 4)
    np.testing.assert_array_equal(net(x).detach().numpy(), back(x).detach().numpy())
    assert type(back[0].weight) is mtorch.nn.Parameter


def test_unpickling_calls_only_the_rebuilders():
    from mutograd.pickling import rebuild_tensor
    data = pickle.dumps(mg.ones([3]))
    assert b"rebuild_tensor" in data and b"rebuild_storage" in data
    assert b"numpy" not in data and b"__setstate__" not in data
    storage = copy.copy(mg.ones([3])).__reduce_ex__(4)[1][1]
    for bad in ((dict, storage, "float32", (3,), (4,), 0),          # not a Tensor class
                (mg.Tensor, storage, "object", (3,), (4,), 0),      # not an allow-listed dtype
                (mg.Tensor, storage, "float32", (4,), (4,), 0),     # past the bytes
                (mg.Tensor, b"abc", "float32", (3,), (4,), 0)):     # not a storage
        with pytest.raises((TypeError, ValueError)):
            rebuild_tensor(*bad, False, "cpu")


def test_gpu_tensor_pickles_through_host(fake_gpu):
    t = mg.to_tensor([1.0, 2.0], place="gpu:0")
    back = pickle.loads(pickle.dumps(t))
    assert str(back.place) == str(t.place) and back.tolist() == [1.0, 2.0]
    from mutograd.pickling import rebuild_tensor, reduce_tensor
    func, args = reduce_tensor(t)
    args = pickle.loads(pickle.dumps(args))
    on_missing = rebuild_tensor(*args[:7], "gpu:7")   # a place this machine lacks: the CPU
    assert on_missing.place.kind == "cpu" and on_missing.tolist() == [1.0, 2.0]


def _child_sum(queue_in, queue_out):
    t = queue_in.get()
    queue_out.put((type(t).__name__, t.sum().item(), t.requires_grad))


def test_multiprocessing_queue_to_spawned_process():
    ctx = multiprocessing.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_child_sum, args=(q_in, q_out))
    p.start()
    q_in.put(mtorch.arange(5.0, requires_grad=True))
    p.join(60)     # the child puts its answer and exits (a crash shows as its exit code)
    assert p.exitcode == 0
    assert q_out.get(timeout=10) == ("Tensor", 10.0, True)


def test_matplotlib_plots_a_tensor():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    line, = plt.plot(mg.linspace(0, 3, 50))
    plt.close("all")
    assert len(line.get_ydata()) == 50
