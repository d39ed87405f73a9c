"""``mutograd.compat.torch.nn`` modules against PyTorch, driven by PyTorch's own table of modules
(``module_db`` of ``torch.testing._internal.common_modules``: constructor arguments, inputs and
the inputs that must raise, for about a hundred ``torch.nn`` classes).

For every entry whose class the dialect has and every sample of it, each check is one test
(``Linear-s0-forward-train``), so that differences can be counted:

- ``repr``: the module's text;
- ``state_dict``: keys (in order), shapes and dtypes, before anything is copied;
- ``forward-train`` / ``forward-eval``: with PyTorch's state copied in, the outputs (and the
  buffers after the call: running statistics); a module whose PyTorch output changes with the
  seed (dropout in training) is compared by shapes only;
- ``backward-train`` / ``backward-eval``: the gradients of the inputs and of the parameters for a
  fixed random cotangent of every output;
- ``types``: whatever PyTorch does, every tensor the module returns, and every gradient it gives
  its inputs and parameters, is the dialect's ``torch.Tensor`` (not a main-namespace tensor);
- ``error``: each of the entry's inputs that PyTorch rejects must raise in the dialect, at the same
  stage (construction or call), an instance of the class PyTorch raises.

The first sample of every module is the fast part; the others are marked ``slow`` and bounded
to the first ``MODULE_DB_SAMPLES`` (4) of each module and mode; ``MODULE_DB_SAMPLES=all`` runs
every sample (about 12,600 tests, 7 minutes on 2 cores).

    python -m pytest -q -p no:cacheprovider tests/nn/test_modules_vs_pytorch.py -k "Linear-s0"
"""
import contextlib
import copy
import dataclasses
import itertools
import os
import weakref
import zlib

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")   # common_modules imports it

_frozen = torch.backends.flags_frozen()
from torch.testing._internal import common_modules  # noqa: E402
if not _frozen:
    # importing PyTorch's test utilities freezes torch.backends' global flags; other tests of
    # this process may set them
    setattr(torch.backends, "__allow_nonbracketed_mutation_flag", True)

pytestmark = pytest.mark.torch

RTOL, ATOL = 1e-7, 1e-9
_BOUND = os.environ.get("MODULE_DB_SAMPLES", "4")
SAMPLES_PER_MODULE = None if _BOUND == "all" else int(_BOUND)

# entries left out, by why (anything in module_db that is not listed here is compared)
OUT_OF_SCOPE = {
    "lazy: parameters are made at the first call (materialisation is not what is compared)":
        [i.name for i in common_modules.module_db if i.is_lazy],
    "quantized": [i.name for i in common_modules.module_db
                  if "quantized" in i.module_cls.__module__],
    "the dialect has no class of this name": [
        i.name for i in common_modules.module_db if not hasattr(mt.nn, i.module_cls.__name__)],
    "no float64 on the CPU (CUDA-only)": [
        i.name for i in common_modules.module_db
        if torch.float64 not in i.supported_dtypes("cpu")],
}
_LEFT_OUT = {name for names in OUT_OF_SCOPE.values() for name in names}
INFOS = {i.name.removeprefix("nn."): i for i in common_modules.module_db
         if i.name not in _LEFT_OUT}


# ---- the samples, made once ------------------------------------------------------------------
_CONSTRUCTED = weakref.WeakKeyDictionary()   # torch module -> (args, kwargs) it was built with


@contextlib.contextmanager
def _recording_constructor_arguments():
    """Remember the arguments of every torch.nn module built in the block: a sample may pass a
    module as an argument (TransformerEncoder's layer), and the dialect's twin is built from
    them. Each ``__init__`` of torch.nn is wrapped for the block; the first one entered is the
    most derived class's, which sees the caller's arguments."""
    def recording(init):
        def __init__(self, *args, **kwargs):
            if self not in _CONSTRUCTED:
                _CONSTRUCTED[self] = (args, kwargs)
            init(self, *args, **kwargs)
        return __init__
    inits = {c: vars(c)["__init__"] for v in vars(torch.nn).values()
             if isinstance(v, type) and issubclass(v, torch.nn.Module)
             for c in v.__mro__ if issubclass(c, torch.nn.Module) and "__init__" in vars(c)}
    for cls, init in inits.items():
        cls.__init__ = recording(init)
    try:
        yield
    finally:
        for cls, init in inits.items():
            cls.__init__ = init


def _make_samples():
    samples, errors = {}, {}
    with torch.random.fork_rng(), _recording_constructor_arguments():
        torch.manual_seed(0)
        for name, info in INFOS.items():
            for training in (True, False):
                samples[name, training] = info.module_inputs_func(
                    info, device="cpu", dtype=torch.float64, requires_grad=True,
                    training=training)
            if info.module_error_inputs_func is not None:
                errors[name] = info.module_error_inputs_func(
                    info, device="cpu", dtype=torch.float64, requires_grad=True, training=True)
    return samples, errors


SAMPLES, ERRORS = _make_samples()


# ---- one converter: PyTorch's values as the dialect's ----------------------------------------
def to_dialect(value):
    """``value`` (a sample's argument) with PyTorch's tensors, dtypes, devices, sizes, modules,
    option objects and functions replaced by the dialect's; tensors are copied (same
    ``requires_grad``), containers converted element by element.

        >>> to_dialect((torch.ones(2, dtype=torch.float64), torch.int64, [3]))[1]
        torch.int64
    """
    if isinstance(value, torch.Tensor):
        out = mt.from_numpy(value.detach().numpy().copy())
        return out.requires_grad_() if value.requires_grad else out
    if isinstance(value, torch.dtype):
        return getattr(mt, str(value).removeprefix("torch."))
    if isinstance(value, torch.device):
        return mt.device(str(value))
    if isinstance(value, torch.Size):
        return mt.Size(value)
    if isinstance(value, torch.nn.Module):
        args, kwargs = _CONSTRUCTED[value]
        ours = getattr(mt.nn, type(value).__name__)(*to_dialect(args), **to_dialect(kwargs))
        _copy_state(value, ours)
        return ours
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: to_dialect(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return getattr(mt.nn, type(value).__name__)(**fields)
    if callable(value) and getattr(value, "__module__", "").startswith("torch"):
        name = value.__name__
        return getattr(mt.nn.functional, name, None) or getattr(mt, name)
    if isinstance(value, (list, tuple)):
        return type(value)(to_dialect(v) for v in value)
    if isinstance(value, dict):
        return {k: to_dialect(v) for k, v in value.items()}
    return value


def _fresh_torch(value):
    """A sample's argument with its PyTorch tensors copied (a module may write its input)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_fresh_torch(v) for v in value)
    if isinstance(value, dict):
        return {k: _fresh_torch(v) for k, v in value.items()}
    return value


def _copy_state(theirs, ours):
    """PyTorch's parameters and buffers into ours; only the shared keys when the key sets differ
    (the ``state_dict`` check reports that)."""
    state = {k: mt.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    own = ours.state_dict()
    shared = state.keys() == own.keys()
    ours.load_state_dict(state if shared else {k: v for k, v in state.items() if k in own},
                         strict=shared)


# ---- building and running --------------------------------------------------------------------
def _construct(name, sample):
    """The two modules of ``sample``, cast to float64 as PyTorch's own module tests do."""
    info, ctor = INFOS[name], sample.constructor_input
    torch.manual_seed(0)
    theirs = info.module_cls(*_fresh_torch(ctor.args), **_fresh_torch(ctor.kwargs))
    theirs = theirs.to(torch.float64)
    mt.manual_seed(0)
    ours = getattr(mt.nn, info.module_cls.__name__)(*to_dialect(ctor.args),
                                                    **to_dialect(ctor.kwargs))
    ours = ours.to(mt.float64)
    return theirs, ours


def _call(module, sample, convert, seed=0):
    args, kwargs = convert(sample.forward_input.args), convert(sample.forward_input.kwargs)
    (torch.manual_seed if isinstance(module, torch.nn.Module) else mt.manual_seed)(seed)
    return args, kwargs, module(*_positional(module, args), **kwargs)


def _positional(module, args):
    """What ``module`` is called with. PyTorch's CTC backward gives ``log_probs`` the gradient
    of the logits they are assumed to be the log_softmax of, which disagrees with finite
    differences; ours is the derivative for ``log_probs`` itself. The two agree through a
    log_softmax, so CTCLoss is called on the log_softmax of the sample's log_probs."""
    if type(module).__name__ != "CTCLoss":
        return args
    log_softmax = torch.log_softmax if isinstance(module, torch.nn.Module) else mt.log_softmax
    return (log_softmax(args[0], -1), *args[1:])


def _flat(value):
    """The leaves of a nested output or argument list, tensors and None and scalars."""
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _flat(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _flat(v)]
    return [value]


def _numpy(t):
    return None if t is None else (t.detach().numpy() if hasattr(t, "detach") else t)


def _is_random(theirs, sample):
    """Whether PyTorch's output changes with the seed (dropout in training, sampled pooling);
    asked of a copy, whose running statistics may move."""
    first = _flat(_call(copy.deepcopy(theirs), sample, _fresh_torch, seed=0)[2])
    second = _flat(_call(copy.deepcopy(theirs), sample, _fresh_torch, seed=1)[2])
    return any(isinstance(a, torch.Tensor) and not torch.equal(a, b)
               for a, b in zip(first, second))


def _assert_same(got, want, what, shapes_only=False):
    """Same structure, and tensors of the same shape, dtype and values."""
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), f"{what}: {len(got)} leaves, PyTorch has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        where = f"{what}[{i}]"
        if not isinstance(w, torch.Tensor):
            assert not isinstance(g, mg.Tensor) and (shapes_only or g == w), \
                f"{where}: {g!r}, PyTorch gives {w!r}"
            continue
        assert isinstance(g, mg.Tensor), f"{where}: {type(g).__name__}, PyTorch gives a tensor"
        assert isinstance(g, mt.Tensor), \
            f"{where}: a {type(g).__module__}.Tensor, not the dialect's torch.Tensor"
        assert tuple(g.shape) == tuple(w.shape), \
            f"{where}: shape {tuple(g.shape)}, PyTorch {tuple(w.shape)}"
        assert str(g.dtype) == str(w.dtype), f"{where}: dtype {g.dtype}, PyTorch {w.dtype}"
        if not shapes_only:
            np.testing.assert_allclose(_numpy(g), _numpy(w), rtol=RTOL, atol=ATOL,
                                       equal_nan=True, err_msg=where)


def _run(name, sample, training):
    """Both modules, PyTorch's state copied into ours, called on the sample in ``training``
    mode: (theirs, ours, their (args, kwargs, output), ours, whether the output is random)."""
    theirs, ours = _construct(name, sample)
    _copy_state(theirs, ours)
    theirs.train(training)
    ours.train(training)
    random = _is_random(theirs, sample)
    return (theirs, ours, _call(theirs, sample, _fresh_torch), _call(ours, sample, to_dialect),
            random)


def _check_forward(name, sample, training):
    theirs, ours, (_, _, want), (_, _, got), random = _run(name, sample, training)
    _assert_same(got, want, "output", shapes_only=random)
    if not random:
        buffers, own = dict(theirs.named_buffers()), dict(ours.named_buffers())
        _assert_same([b for k, b in own.items() if k in buffers],
                     [b for k, b in buffers.items() if k in own], "buffers after the call")


def _check_backward(name, sample, training, seed):
    """The outputs' values are the forward check's concern; here only their gradients."""
    theirs, ours, (t_args, t_kwargs, want), (o_args, o_kwargs, got), random = \
        _run(name, sample, training)
    rng = np.random.default_rng(seed)
    t_loss, o_loss = 0, 0
    for i, (w, g) in enumerate(zip(_flat(want), _flat(got))):
        if not (isinstance(w, torch.Tensor) and w.requires_grad):
            continue
        assert isinstance(g, mg.Tensor) and g.requires_grad, \
            f"output[{i}] needs a gradient in PyTorch, not here"
        assert tuple(g.shape) == tuple(w.shape), \
            f"output[{i}]: shape {tuple(g.shape)}, PyTorch {tuple(w.shape)} (no common cotangent)"
        cot = rng.standard_normal(tuple(w.shape))
        t_loss = t_loss + (w * torch.from_numpy(cot)).sum()
        o_loss = o_loss + (g * mt.from_numpy(cot)).sum()
    if isinstance(t_loss, int):
        pytest.skip("no output of PyTorch's needs a gradient")
    t_loss.backward()
    o_loss.backward()
    t_leaves = [(f"input[{i}]", v) for i, v in enumerate(_flat((t_args, t_kwargs)))
                if isinstance(v, torch.Tensor) and v.requires_grad]
    o_leaves = [v for v in _flat((o_args, o_kwargs)) if isinstance(v, mg.Tensor)
                and v.requires_grad]
    ours_params = dict(ours.named_parameters())
    t_leaves += [(f"parameter {k}", p) for k, p in theirs.named_parameters() if k in ours_params]
    o_leaves += [ours_params[k] for k, _ in theirs.named_parameters() if k in ours_params]
    for (what, w), g in zip(t_leaves, o_leaves):
        want_grad = _numpy(w.grad)
        got_grad = _numpy(g.grad)
        if want_grad is None or got_grad is None:   # no gradient and a zero gradient agree
            assert not np.any(want_grad if got_grad is None else got_grad), \
                f"gradient of {what}: {'None' if got_grad is None else 'values'} here, " \
                f"{'None' if want_grad is None else 'values'} in PyTorch"
            continue
        _assert_same(g.grad, w.grad, f"gradient of {what}", shapes_only=random)


def _check_types(name, sample):
    """Every tensor out of the dialect's module, and every gradient into its inputs and
    parameters, is a ``torch.Tensor`` of the dialect."""
    _, ours = _construct(name, sample)
    args, kwargs, got = _call(ours, sample, to_dialect)
    outputs = [v for v in _flat(got) if isinstance(v, mg.Tensor)]
    for i, v in enumerate(outputs):
        assert isinstance(v, mt.Tensor), f"output tensor {i}: a {type(v).__module__}.Tensor"
    needing = [v for v in outputs if v.requires_grad and v.dtype.is_floating_point]
    if needing:
        sum(v.sum() for v in needing).backward()
    leaves = [v for v in _flat((args, kwargs)) if isinstance(v, mg.Tensor) and v.requires_grad]
    for what, v in [("an input", v) for v in leaves] + list(ours.named_parameters()):
        assert v.grad is None or isinstance(v.grad, mt.Tensor), \
            f"gradient of {what}: a {type(v.grad).__module__}.Tensor"


# ---- the parameters --------------------------------------------------------------------------
CHECKS = ("repr", "state_dict", "types", "forward-train", "backward-train", "forward-eval",
          "backward-eval")


def _cases():
    for name in INFOS:
        for check in CHECKS:
            training = not check.endswith("-eval")
            for index in range(len(SAMPLES[name, training]))[:SAMPLES_PER_MODULE]:
                marks = () if index == 0 else pytest.mark.slow
                yield pytest.param(name, index, check, id=f"{name}-s{index}-{check}",
                                   marks=marks)


def _error_cases():
    for name, errors in ERRORS.items():
        for index in range(len(errors)):
            yield pytest.param(name, index, id=f"{name}-e{index}-error")


def _described(sample):
    return f"[sample {sample.desc!r}] " if sample.desc else ""


@pytest.mark.parametrize("name, index, check", list(_cases()))
def test_module_matches_pytorch(name, index, check):
    training = not check.endswith("-eval")
    sample = SAMPLES[name, training][index]
    try:
        if check == "repr":
            theirs, ours = _construct(name, sample)
            lines = itertools.zip_longest(repr(ours).splitlines(), repr(theirs).splitlines())
            for i, (g, w) in enumerate(lines):
                assert g == w, f"repr line {i}: {g!r}, PyTorch {w!r}"
        elif check == "state_dict":
            theirs, ours = _construct(name, sample)
            want, got = theirs.state_dict(), ours.state_dict()
            assert list(got) == list(want), \
                f"keys: missing {[k for k in want if k not in got]}, extra " \
                f"{[k for k in got if k not in want]}, order {list(got)} vs {list(want)}"
            for k in want:
                assert (tuple(got[k].shape), str(got[k].dtype)) == \
                    (tuple(want[k].shape), str(want[k].dtype)), \
                    f"{k}: {tuple(got[k].shape)} {got[k].dtype}, PyTorch " \
                    f"{tuple(want[k].shape)} {want[k].dtype}"
        elif sample.forward_input is None:
            pytest.skip("the sample has no forward input")
        elif check == "types":
            _check_types(name, sample)
        elif check.startswith("forward"):
            _check_forward(name, sample, training)
        else:
            _check_backward(name, sample, training, zlib.crc32(f"{name}{index}".encode()))
    except AssertionError as e:
        raise AssertionError(_described(sample) + str(e)) from None


@pytest.mark.parametrize("name, index", list(_error_cases()))
def test_module_rejects_what_pytorch_rejects(name, index):
    error = ERRORS[name][index]
    sample, expected = error.module_error_input, error.error_type
    at_construction = error.error_on == common_modules.ModuleErrorEnum.CONSTRUCTION_ERROR
    stage = "construction" if at_construction else "the call"
    ctor = sample.constructor_input
    cls = getattr(mt.nn, INFOS[name].module_cls.__name__)
    prefix, raised_at = _described(sample), "construction"
    # as PyTorch's own test of these inputs: no cast to float64 (some are dtype mismatches)
    with pytest.raises(expected):
        module = INFOS[name].module_cls(*_fresh_torch(ctor.args), **_fresh_torch(ctor.kwargs))
        if not at_construction:
            _call(module, sample, _fresh_torch)
    try:
        module = cls(*to_dialect(ctor.args), **to_dialect(ctor.kwargs))
        raised_at = "the call"
        if not at_construction:
            _call(module, sample, to_dialect)
    except Exception as e:   # noqa: BLE001 - the class is what is checked
        assert isinstance(e, expected), \
            f"{prefix}raised {type(e).__name__} at {raised_at} ({e}), PyTorch raises " \
            f"{expected.__name__} at {stage} ({error.error_regex!r})"
        assert raised_at == stage, \
            f"{prefix}raised {type(e).__name__} at {raised_at}, PyTorch at {stage}"
        return
    pytest.fail(f"{prefix}did not raise; PyTorch raises {expected.__name__} at {stage} "
                f"({error.error_regex!r})")
