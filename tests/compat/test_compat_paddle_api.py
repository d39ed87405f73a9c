"""The Paddle namespace's mechanisms that the recorded Paddle cases do not reach: the Paddle
Tensor type's methods (``paddle.Tensor`` against the main Tensor), writes and saved values,
refusals, ParamAttr with optimizers and clipping, local-file datasets and the docstring examples.
(The coverage of Paddle's names is tools/api_coverage.py's, checked by
tests/compat/test_api_coverage.py.)"""
import doctest
import gzip
import importlib

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle

MODULES = [ "functions", "base", "io", "metric", "tensor_ops", "framework", "_refusals",
           "nn.initializer", "nn.rnn", "nn.generic", "optimizer.lr", "vision.transforms",
           "tensor"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module("mutograd.compat.paddle." + name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE
                             | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ---- the paddle Tensor type -------------------------------------------------------------------
# A tensor of the paddle namespace (``paddle.Tensor``) follows Paddle; a main tensor
# (``mg.tensor``) follows the main namespace's rules, whatever module imported the paddle one.


def test_paddle_tensors_get_paddle_s_methods_and_main_tensors_do_not():
    y = paddle.ones([1, 3]).expand([2, 3])
    assert type(y) is paddle.Tensor
    assert y._base is None and y.add_(1.0).tolist() == [[2.0] * 3] * 2
    assert mg.ones([1, 3]).expand([2, 3])._base is not None      # imported paddle or not
    assert paddle.ones([2], dtype="int32").float32().dtype == paddle.float32
    for name in ("set_value", "gather_nd", "float32", "is_dense", "gradient"):
        assert hasattr(paddle.Tensor, name) and not hasattr(mg.Tensor, name), name


@pytest.mark.parametrize("method", ["expand", "broadcast_to", "expand_as"])
def test_expand_copies_on_a_paddle_tensor_and_is_a_view_on_a_main_one(method):
    arg = [3, 4] if method != "expand_as" else paddle.zeros([3, 4])
    x = paddle.ones([1, 4])
    y = getattr(x, method)(arg)
    y.add_(1.0)
    x.mul_(5.0)
    assert y.tolist() == [[2.0] * 4] * 3
    x = mg.ones([1, 4])
    v = getattr(x, method)(arg if method != "expand_as" else mg.zeros([3, 4]))
    assert v._base is x
    with pytest.raises(mg.OverlapError):
        v.add_(1.0)


def test_set_value_on_a_leaf_is_a_data_write_on_paddle_tensors_only():
    with pytest.raises(AttributeError, match="set_value"):
        mg.tensor([1.0, 2.0], requires_grad=True).set_value([3.0, 4.0])
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (w * w).sum()                       # saves w
    w.set_value(np.array([3.0, 4.0], "float32"))
    assert w.tolist() == [3.0, 4.0] and w.inplace_version == 1 and w.is_leaf
    with pytest.raises(mg.VersionError, match="wrapper_version_snapshot:0"):
        y.backward()                        # the value saved before the write is stale


def test_paddle_version_wording_only_for_paddle_tensors():
    import mutograd.compat.torch as torch

    def stale(leaf, run=lambda c, a: c.sum().backward()):
        a = leaf([0.5, 1.0])
        b = a.exp()
        c = b.sin()
        b.add_(1.0)
        with pytest.raises(mg.VersionError) as info:
            run(c, a)
        return str(info.value)
    assert "wrapper_version_snapshot" not in stale(lambda v: torch.tensor(v, requires_grad=True))
    assert "wrapper_version_snapshot" not in stale(lambda v: mg.tensor(v, requires_grad=True))
    for run in (lambda c, a: c.sum().backward(), lambda c, a: paddle.grad(c.sum(), a)):
        msg = stale(lambda v: paddle.to_tensor(v, stop_gradient=False), run)
        assert "received tensor_version:1 != wrapper_version_snapshot:0" in msg
        assert "saved by SinBackward" in msg          # mutograd's own explanation stays


def test_where_and_cumsum_bindings_follow_the_tensor_type():
    c = mg.tensor([True, False])
    x = mg.tensor([1.0, 2.0])
    assert x.where_(c, mg.tensor([9.0, 9.0])) is x and x.tolist() == [1.0, 9.0]
    with pytest.raises(mg.ShapeError):
        mg.ones([2, 2]).cumsum_()
    c = paddle.to_tensor([True, False])
    x = paddle.to_tensor([1.0, 2.0])
    assert c.where_(x, paddle.to_tensor([9.0, 9.0])) is x and c.tolist() == [True, False]
    assert x.tolist() == [1.0, 9.0]
    z = paddle.ones([2, 2])
    assert z.cumsum_() is z and z.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_integer_stop_gradient_false_is_accepted_on_paddle_tensors():
    with pytest.raises(mg.BackwardError):
        mg.tensor([1, 2]).stop_gradient = False
    x = paddle.to_tensor([1, 2])
    x.stop_gradient = False
    assert x.stop_gradient is False and not x.requires_grad
    x.stop_gradient = True
    assert x.stop_gradient is True


# ---- refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path,words", [
    ("bfloat16", "NumPy has no bfloat16"), ("uint32", "uint8 only"), ("flops", "parameter counts"),
    ("nn.SyncBatchNorm", "across ranks"), ("nn.functional.ctc_loss", "fused kernel"),
    ("base.dygraph.Tracer", "mutograd.autograd"),
    ("enable_compat", "mutograd.compat.torch"), ("nn.NoSuchLayer", "not supported yet"),
])
def test_refused_names_say_why_and_what_to_use(path, words):
    obj = paddle
    *parents, last = path.split(".")
    for p in parents:
        obj = getattr(obj, p)
    with pytest.raises(AttributeError, match=words):
        getattr(obj, last)


def test_static_graph_switches_refuse():
    with pytest.raises(RuntimeError, match="eagerly"):
        paddle.base.dygraph.disable_dygraph()
    assert paddle.base.in_dygraph_mode() and paddle.in_dynamic_mode()


def test_recurrent_layers_check_padded_lengths():
    with pytest.raises(ValueError, match="sequence_length"):
        paddle.nn.LSTM(2, 3)(paddle.ones([1, 4, 2]), sequence_length=paddle.to_tensor([5]))
    with pytest.raises(ValueError, match="direction"):
        paddle.nn.GRU(2, 3, direction="backward")


# ---- parameters, optimizers, clipping ----------------------------------------------------------

def test_param_attr_regularizer_is_that_parameter_s_weight_decay():
    class L2Decay:
        coeff = 0.5
    w_attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0),
                              regularizer=L2Decay())
    lin = paddle.nn.Linear(1, 1, weight_attr=w_attr,
                           bias_attr=paddle.nn.initializer.Constant(1.0))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
    lin(paddle.zeros([1, 1])).sum().backward()     # weight gradient 0, bias gradient 1
    opt.step()
    assert lin.weight.tolist() == [[pytest.approx(0.95)]]    # 1 - 0.1 * 0.5 * 1
    assert lin.bias.tolist() == [pytest.approx(0.9)]


def test_need_clip_false_leaves_that_gradient_unclipped():
    a = paddle.create_parameter([2], "float32",
                                attr=paddle.ParamAttr(need_clip=False,
                                                      initializer=paddle.nn.initializer.Constant(
                                                          1.0)))
    b = paddle.create_parameter([2], "float32",
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=[a, b],
                               grad_clip=paddle.nn.ClipGradByValue(0.5))
    ((a + b) * 3).sum().backward()
    opt.step()
    assert a.tolist() == [-2.0, -2.0] and b.tolist() == [0.5, 0.5]


def test_global_initializer_applies_until_reset():
    init = paddle.nn.initializer
    init.set_global_initializer(init.Constant(0.25), init.Constant(-1.0))
    try:
        lin = paddle.nn.Linear(2, 2)
        explicit = paddle.nn.Linear(2, 2, weight_attr=init.Constant(3.0))
    finally:
        init.set_global_initializer(None)
    assert lin.weight.tolist() == [[0.25] * 2] * 2 and lin.bias.tolist() == [-1.0, -1.0]
    assert explicit.weight.tolist() == [[3.0] * 2] * 2
    assert paddle.nn.Linear(2, 2).bias.tolist() == [0.0, 0.0]


def test_set_state_dict_is_not_strict_and_reports_keys():
    lin = paddle.nn.Linear(2, 2)
    missing, unexpected = lin.set_state_dict({"weight": np.ones((2, 2), "float32"),
                                              "extra": np.zeros(1)})
    assert missing == ["bias"] and unexpected == ["extra"]
    assert lin.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(mg.nn.StateDictError, match="size mismatch"):
        lin.set_dict({"weight": np.ones((3, 2), "float32")})


# ---- data -------------------------------------------------------------------------------------

def _idx(path, arr, code):
    head = bytes([0, 0, code, arr.ndim]) + b"".join(int(d).to_bytes(4, "big")
                                                     for d in arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(head + arr.astype(">u1").tobytes())


def test_mnist_reads_local_idx_files(tmp_path):
    images = (np.arange(3 * 28 * 28) % 256).reshape(3, 28, 28).astype(np.uint8)
    _idx(tmp_path / "img.gz", images, 0x08)
    _idx(tmp_path / "lab.gz", np.array([7, 1, 4], np.uint8), 0x08)
    T = paddle.vision.transforms
    ds = paddle.vision.datasets.MNIST(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"),
                                      transform=T.ToTensor())
    image, label = ds[1]
    assert len(ds) == 3 and list(image.shape) == [1, 28, 28]
    np.testing.assert_allclose(image.numpy()[0], images[1] / 255.0, rtol=1e-6)
    assert label.dtype == np.int64 and label.tolist() == [1]
    raw = paddle.vision.datasets.FashionMNIST(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"),
                                              backend="cv2")
    assert raw[2][0].dtype == np.float32 and raw[2][0].shape == (28, 28)
    with pytest.raises(FileNotFoundError, match="nothing is downloaded"):
        paddle.vision.datasets.MNIST(mode="test")


def test_image_folders(tmp_path):
    from PIL import Image
    for cls, n in (("cat", 2), ("dog", 1)):
        (tmp_path / cls).mkdir()
        for i in range(n):
            Image.fromarray(np.full((4, 5, 3), i * 50, np.uint8)).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    ds = paddle.vision.datasets.DatasetFolder(str(tmp_path),
                                              transform=paddle.vision.transforms.ToTensor())
    assert ds.classes == ["cat", "dog"] and ds.targets == [0, 0, 1]
    img, target = ds[1]
    assert list(img.shape) == [3, 4, 5] and target == 0
    np.testing.assert_allclose(img.numpy(), 50 / 255.0, rtol=1e-6)
    flat = paddle.vision.datasets.ImageFolder(str(tmp_path))
    assert len(flat) == 3 and np.asarray(flat[2][0]).shape == (4, 5, 3)


def test_dataloader_with_batch_sampler_and_refusals():
    ds = paddle.io.TensorDataset([paddle.arange(6).astype("float32"), paddle.arange(6)])
    bs = paddle.io.BatchSampler(sampler=paddle.io.SequenceSampler(ds), batch_size=4)
    batches = list(paddle.io.DataLoader(ds, batch_sampler=bs))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5]]
    assert all(isinstance(b, list) for b in batches)

    class Stream(paddle.io.IterableDataset):
        def __iter__(self):
            yield from range(3)
    with pytest.raises(ValueError, match="shuffle"):
        paddle.io.DataLoader(Stream(), shuffle=True)
    # a comprehension, not list(): list() asks for len(), refused for a stream (as in Paddle)
    assert [b.tolist() for b in paddle.io.DataLoader(Stream(), batch_size=2)] == [[0, 1], [2]]
    with pytest.raises(ValueError, match="IterableDataset"):
        list(paddle.io.DataLoader(Stream(), batch_size=2))
    chained = paddle.io.ChainDataset([Stream(), Stream()])
    assert [s for s in chained] == [0, 1, 2, 0, 1, 2]
    w = list(paddle.io.WeightedRandomSampler([0.0, 1.0, 0.0], 5))
    assert w == [1] * 5


@pytest.mark.parametrize("make,shape", [
    (lambda T: T.RandomResizedCrop(3), (3, 3, 3)),
    (lambda T: T.RandomResizedCrop((2, 5), scale=(0.5, 0.5)), (2, 5, 3)),
    (lambda T: T.ColorJitter(0.4, 0.4, 0.4, 0.1), (4, 6, 3)),
    (lambda T: T.RandomRotation(20), (4, 6, 3)),
    (lambda T: T.RandomErasing(prob=1.0, value=9), (4, 6, 3)),
])
def test_random_transforms_keep_type_shape_and_range(make, shape):
    import random
    random.seed(0)
    img = (np.arange(4 * 6 * 3) * 7 % 256).reshape(4, 6, 3).astype(np.uint8)
    out = np.asarray(make(paddle.vision.transforms)(img))
    assert out.shape == shape and out.dtype == np.uint8


def test_random_erasing_on_a_tensor_writes_a_region_and_keeps_the_rest():
    import random
    random.seed(1)
    t = paddle.vision.transforms.ToTensor()(np.zeros((8, 8, 3), np.uint8))
    out = paddle.vision.transforms.RandomErasing(prob=1.0, value=[1.0, 2.0, 3.0])(t)
    a = out.numpy()
    assert t.numpy().max() == 0                          # not in place by default
    erased = a[0] == 1.0
    assert erased.any() and not erased.all()
    np.testing.assert_array_equal(a[2][erased], 3.0)
    assert (a[:, ~erased] == 0).all()


def test_paddle_lbfgs_takes_the_same_steps_as_the_core_one():
    import mutograd as mg
    import mutograd.compat.paddle as paddle

    def run(make):
        w = mg.nn.Parameter(mg.tensor([1.5, -0.5], dtype="float64"))
        opt = make([w])

        def closure():
            opt.zero_grad()
            loss = ((w - mg.tensor([0.3, 0.7], dtype="float64")) ** 2).sum() + (w ** 4).sum()
            loss.backward()
            return loss
        for _ in range(3):
            opt.step(closure)
        return w.numpy()
    ours = run(lambda ps: paddle.optimizer.LBFGS(learning_rate=0.5, max_iter=5, parameters=ps,
                                                 line_search_fn="strong_wolfe"))
    core = run(lambda ps: mg.optim.LBFGS(ps, lr=0.5, max_iter=5, line_search_fn="strong_wolfe"))
    np.testing.assert_array_equal(ours, core)
    assert abs(ours - np.array([0.3, 0.7])).max() < 0.5


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss"])
def test_regression_losses_broadcast_silently_as_paddle(name):
    """Paddle broadcasts a target of another shape without a word; the torch dialect (and the
    main namespace) warn as PyTorch does (tests/nn/test_loss_conventions.py)."""
    import warnings
    x, y = paddle.to_tensor([[1.0], [2.0]]), paddle.to_tensor([[0.5, 1.0, 3.0]] * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = getattr(paddle.nn.functional, name)(x, y)
    expected = getattr(mg.nn.functional, name)(mg.tensor(x.numpy()).expand(2, 3),
                                                mg.tensor(y.numpy()))
    np.testing.assert_allclose(loss.numpy(), expected.numpy(), rtol=1e-6)
