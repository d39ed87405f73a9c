"""PyTorch's conventions of the torch dialect's losses that ``test_modules_vs_pytorch.py`` does
not pin down: which class is a ``_WeightedLoss``, the ``weight``/``pos_weight`` buffers with and
without a weight, the errors of bad arguments (their class in both dialects), the mean over
targets that are all ignored, and the shapes ``GaussianNLLLoss`` takes for ``var``. PyTorch
2.13 is the oracle of every case."""
import warnings

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

LOSSES = [name for name in dir(torch.nn) if name.endswith("Loss")
          and isinstance(getattr(torch.nn, name), type)]


@pytest.mark.parametrize("name", LOSSES)
def test_weighted_loss_base_as_pytorch(name):
    from torch.nn.modules.loss import _Loss, _WeightedLoss

    from mutograd.compat.torch.nn.modules import loss
    ours, theirs = getattr(mt.nn, name), getattr(torch.nn, name)
    assert issubclass(ours, loss._WeightedLoss) == issubclass(theirs, _WeightedLoss)
    assert issubclass(ours, loss._Loss) == issubclass(theirs, _Loss)


# class, constructor keywords: a weight buffer registered as None without a weight, in
# state_dict with one (BCEWithLogitsLoss's pos_weight too)
BUFFERS = [("NLLLoss", {}), ("CrossEntropyLoss", {}), ("BCELoss", {}),
           ("BCEWithLogitsLoss", {}), ("MultiMarginLoss", {}), ("MultiLabelSoftMarginLoss", {}),
           ("BCEWithLogitsLoss", {"pos_weight": 3}), ("BCEWithLogitsLoss", {"weight": 3}),
           ("NLLLoss", {"weight": 3}), ("MultiMarginLoss", {"weight": 3})]


@pytest.mark.parametrize("name, sizes", BUFFERS)
def test_weight_buffers_as_pytorch(name, sizes):
    values = np.arange(1.0, 4.0)
    theirs = getattr(torch.nn, name)(**{k: torch.tensor(values[:n]) for k, n in sizes.items()})
    ours = getattr(mt.nn, name)(**{k: mt.tensor(values[:n]) for k, n in sizes.items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert dict(ours.named_buffers()).keys() == dict(theirs.named_buffers()).keys()
    assert list(ours._buffers) == list(theirs._buffers)    # None entries included
    ours = ours.to(mt.float32)
    for key in sizes:
        assert ours.state_dict()[key].dtype == mt.float32   # buffers cast with the module


def _x(lib, dtype="float64"):
    return lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=getattr(lib, dtype))


def _probs(lib):
    return lib.softmax(_x(lib), 1)


def _classes(lib):
    return lib.tensor([1, 0, 3])


# what is called (lib: torch or the dialect), the error class PyTorch raises
ERRORS = [
    ("cross_entropy weight of the wrong length", lambda lib: lib.nn.functional.cross_entropy(
        _x(lib), _classes(lib), weight=lib.ones(3, dtype=lib.float64))),
    ("cross_entropy probabilities, weight of the wrong length",
     lambda lib: lib.nn.functional.cross_entropy(_x(lib), _probs(lib),
                                                 weight=lib.ones(5, dtype=lib.float64))),
    ("nll_loss weight of two dimensions", lambda lib: lib.nn.functional.nll_loss(
        _x(lib), _classes(lib), weight=lib.ones(4, 1, dtype=lib.float64))),
    ("nll_loss weight of another dtype", lambda lib: lib.nn.functional.nll_loss(
        _x(lib), _classes(lib), weight=lib.ones(4, dtype=lib.float32))),
    ("cross_entropy weight of another dtype", lambda lib: lib.nn.CrossEntropyLoss(
        weight=lib.ones(4, dtype=lib.float16))(_x(lib), _classes(lib))),
    ("ignore_index with probabilities", lambda lib: lib.nn.CrossEntropyLoss(ignore_index=0)(
        _x(lib), _probs(lib))),
    ("label_smoothing above 1", lambda lib: lib.nn.CrossEntropyLoss(label_smoothing=1.5)(
        _x(lib), _classes(lib))),
    ("linear_cross_entropy label_smoothing", lambda lib: lib.nn.LinearCrossEntropyLoss(
        4, 3, label_smoothing=2.0)),
    ("linear_cross_entropy label_smoothing below 0", lambda lib: lib.nn.LinearCrossEntropyLoss(
        4, 3, label_smoothing=-0.5)),
    ("linear_cross_entropy ignore_index with probabilities",
     lambda lib: lib.nn.functional.linear_cross_entropy(
         _x(lib), lib.ones(4, 4, dtype=lib.float64), _probs(lib), ignore_index=-100)),
    ("huber delta complex", lambda lib: lib.nn.HuberLoss(delta=1j)),
    ("huber delta a string", lambda lib: lib.nn.HuberLoss(delta="1")),
]
# errors that are also ValueError, so that Paddle code catching that still does
ALSO_VALUE_ERROR = {"label_smoothing above 1", "linear_cross_entropy label_smoothing",
                    "linear_cross_entropy label_smoothing below 0",
                    "linear_cross_entropy ignore_index with probabilities",
                    "ignore_index with probabilities"}


@pytest.mark.parametrize("what, call", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_arguments_raise_what_pytorch_raises(what, call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    expected = type(theirs.value)
    assert expected in (RuntimeError, TypeError, ValueError)
    with pytest.raises(expected) as ours:
        call(mt)
    if what in ALSO_VALUE_ERROR:
        assert isinstance(ours.value, ValueError)


# what PyTorch accepts though it looks wrong: a probability target's weight of another dtype
# (promoted), a negative label_smoothing (bounded only from above)
ACCEPTED = [
    ("probabilities, float32 weight", lambda lib, x: lib.nn.functional.cross_entropy(
        x, _probs(lib), weight=lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float32))),
    ("indices, negative label_smoothing", lambda lib, x: lib.nn.functional.cross_entropy(
        x, _classes(lib), label_smoothing=-0.1)),
    ("probabilities, negative label_smoothing", lambda lib, x: lib.nn.CrossEntropyLoss(
        label_smoothing=-0.1)(x, _probs(lib))),
]


@pytest.mark.parametrize("what, call", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_what_pytorch_accepts_gives_its_values(what, call):
    results = []
    for lib in (torch, mt):
        x = _x(lib).requires_grad_()
        loss = call(lib, x)
        loss.backward()
        results.append((loss.detach().numpy(), x.grad.numpy(), str(loss.dtype)))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12, atol=1e-12)
    assert results[1][2] == results[0][2]


@pytest.mark.parametrize("name, kwargs", [
    ("cross_entropy", {}), ("cross_entropy", {"label_smoothing": 0.2}),
    ("cross_entropy", {"weight": True}), ("nll_loss", {}), ("nll_loss", {"weight": True}),
    ("cross_entropy", {"reduction": "sum"})])
def test_mean_over_ignored_targets_is_nan_with_zero_gradient(name, kwargs):
    """Every target ignored: the mean is 0/0 (NaN), its gradient 0; NumPy warns of nothing."""
    results = []
    for lib in (torch, mt):
        x = _x(lib).requires_grad_()
        kw = dict(kwargs)
        if kw.pop("weight", False):
            kw["weight"] = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)
        target = lib.tensor([-100, -100, -100])
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            loss = getattr(lib.nn.functional, name)(x, target, **kw)
            loss.backward()
        results.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])


@pytest.mark.parametrize("input_shape, var_shape", [
    ((4, 3), (4, 3)), ((4, 3), (4,)), ((4, 3), (4, 1)), ((4, 3), (1, 3)),
    ((2, 3, 5, 5), (2, 1, 5, 5)), ((2, 3, 5), (2, 3)), ((2, 3, 5), (2, 1, 1)),
    ((2, 3, 5), (3, 5)), ((4, 3), (2, 3)), ((4, 3), (1, 1)), ((4, 3), (3,)), ((3,), ()),
    ((4, 3), None)])
def test_gaussian_nll_var_shapes_as_pytorch(input_shape, var_shape):
    """``var`` of ``input``'s shape, one dimension short, or of size 1 in exactly one
    dimension; ``None`` stands for a float var."""
    rng = np.random.default_rng(1)
    x, t = rng.standard_normal(input_shape), rng.standard_normal(input_shape)
    v = 0.7 if var_shape is None else rng.random(var_shape) + 0.1
    results = []
    for lib in (torch, mt):
        xs = lib.tensor(x, requires_grad=True)
        vs = v if var_shape is None else lib.tensor(v, requires_grad=True)
        try:
            loss = lib.nn.GaussianNLLLoss(reduction="sum")(xs, lib.tensor(t), var=vs)
        except ValueError as e:
            results.append(type(e))
            continue
        loss.backward()
        results.append([loss.detach().numpy(), xs.grad.numpy()] +
                       ([] if var_shape is None else [vs.grad.numpy()]))
    if not isinstance(results[0], list):
        assert results[1] is results[0]
        return
    assert isinstance(results[1], list), results[1]
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_losses_take_pytorchs_keywords():
    x, t = mt.tensor([[0.2, 0.8]], dtype=mt.float64), mt.tensor([1])
    assert mt.nn.CrossEntropyLoss()(input=x, target=t).item() == pytest.approx(
        torch.nn.CrossEntropyLoss()(input=torch.tensor([[0.2, 0.8]], dtype=torch.float64),
                                    target=torch.tensor([1])).item())
    assert mt.nn.GaussianNLLLoss()(input=x, target=x, var=x.abs()).shape == ()
    assert isinstance(mg.nn.functional.nll_loss(input=x, target=t), mg.Tensor)


def test_linear_cross_entropy_repr_as_pytorch():
    ours = repr(mt.nn.LinearCrossEntropyLoss(4, 3, ignore_index=2, label_smoothing=0.5))
    theirs = repr(torch.nn.LinearCrossEntropyLoss(4, 3, ignore_index=2, label_smoothing=0.5))
    assert ours == theirs


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("shapes", [((2, 1), (2, 3)), ((3,), ()), ((4,), (2, 4))])
def test_regression_losses_broadcast_with_pytorchs_warning(name, shapes):
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(s) for s in shapes)
    results = []
    for lib in (torch, mt):
        xt = lib.tensor(x, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = getattr(lib.nn.functional, name)(xt, lib.tensor(y))
        assert any("different to the input size" in str(w.message) for w in caught)
        loss.backward()
        results.append((loss.detach().numpy(), xt.grad.numpy()))
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
