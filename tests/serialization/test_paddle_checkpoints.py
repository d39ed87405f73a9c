"""Paddle's checkpoint files both ways, against files and results recorded with Paddle 3.3.1
(tests/references/make_paddle_checkpoints.py writes them; Paddle is never imported here).

- mutograd reads Paddle's ``.pdparams``/``.pdopt``: the weights into the same model, the
  optimizer's accumulators and learning-rate scheduler into the same optimizer, and one more
  step gives Paddle's next parameters;
- Paddle read what mutograd wrote (recorded: same keys, names, learning rate and next step),
  and mutograd still writes those bytes;
- Paddle's parameter names (``linear_0.w_0``) and optimizer state layout, and mutograd's own
  older formats still read.
"""
import doctest
import importlib
import io
import json
import os
import pickle

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
from mutograd.serialization.interop import PADDLE_NAME_TABLE
from tests.references.make_paddle_checkpoints import CASES, build, optimizer, train_step

DIR = os.path.join(os.path.dirname(__file__), "..", "references", "paddle_checkpoints")
with open(os.path.join(DIR, "expected.json")) as _f:
    EXPECTED = json.load(_f)
X = np.array(EXPECTED["input"], np.float32)


def _restored(case, prefix=""):
    """The case's model and optimizer built here, restored from its files (Paddle's, or
    those written here with ``prefix='mutograd_'``)."""
    path = os.path.join(DIR, prefix + case)
    with paddle.base.unique_name.guard():
        model = build(paddle)
        opt, sched = optimizer(paddle, case, model.parameters())
    model.set_state_dict(paddle.load(path + ".pdparams"))
    opt.set_state_dict(paddle.load(path + ".pdopt"))
    return model, opt, sched


@pytest.mark.parametrize("case", CASES)
def test_paddle_files_restore_training_here(case):
    want = EXPECTED["cases"][case]
    model, opt, sched = _restored(case)
    raw = pickle.load(open(os.path.join(DIR, case + ".pdparams"), "rb"))   # our own file
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), raw[k])
    assert {k: v.name for k, v in model.state_dict().items()} == want["names"]
    assert opt.get_lr() == pytest.approx(want["lr"])
    train_step(paddle, model, opt, sched, X)
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(v.numpy(), np.array(want["after_next_step"][k]),
                                   rtol=2e-5, atol=2e-6, err_msg=k)


@pytest.mark.parametrize("case", CASES)
def test_state_dicts_have_paddle_s_keys(case):
    want = EXPECTED["cases"][case]
    model, opt, _ = _restored(case)
    assert list(model.state_dict()) == want["model_keys"]
    assert list(opt.state_dict()) == want["optimizer_keys"]


@pytest.mark.parametrize("case", CASES)
def test_paddle_read_the_files_written_here(case):
    """What Paddle made of mutograd_<case>.* when they were recorded."""
    want = EXPECTED["cases"][case]
    read = want["paddle_reads_mutograd"]
    assert read[".pdparams"]["keys"] == want["model_keys"]
    assert read[".pdparams"]["name_table"] == want["names"]
    assert read[".pdopt"]["keys"] == want["optimizer_keys"]
    assert read["lr"] == pytest.approx(want["lr"])
    assert read["max_diff_after_next_step"] < 1e-6


@pytest.mark.parametrize("case", CASES)
def test_paddle_save_still_writes_the_recorded_bytes(case):
    model, opt, _ = _restored(case)
    for ext, sd in ((".pdparams", model.state_dict()), (".pdopt", opt.state_dict())):
        buf = io.BytesIO()
        paddle.save(sd, buf)
        with open(os.path.join(DIR, "mutograd_" + case + ext), "rb") as f:
            assert buf.getvalue() == f.read(), ext


@pytest.mark.parametrize("case", CASES)
def test_files_written_here_restore_training_here(case):
    want = EXPECTED["cases"][case]
    model, opt, sched = _restored(case, "mutograd_")
    assert opt.get_lr() == pytest.approx(want["lr"])
    train_step(paddle, model, opt, sched, X)
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(v.numpy(), np.array(want["after_next_step"][k]),
                                   rtol=2e-5, atol=2e-6, err_msg=k)


def test_the_issue_s_scheduler_round_trip():
    net = paddle.nn.Linear(2, 2)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    opt = paddle.optimizer.Adam(learning_rate=sched, parameters=net.parameters())
    for _ in range(3):
        net(paddle.ones([1, 2])).sum().backward()
        opt.step()
        opt.clear_grad()
        sched.step()
    opt2 = paddle.optimizer.Adam(learning_rate=paddle.optimizer.lr.StepDecay(
        0.1, step_size=1, gamma=0.5), parameters=net.parameters())
    opt2.set_state_dict(opt.state_dict())
    assert opt2.get_lr() == 0.0125
    assert opt2.state[net.weight]["step"] == 3
    np.testing.assert_array_equal(opt2.state[net.weight]["exp_avg"].numpy(),
                                  opt.state[net.weight]["exp_avg"].numpy())


ROUND_TRIPS = {   # every optimizer of the dialect: its state through paddle.save and back
    "SGD": {}, "Momentum": {"use_nesterov": True}, "Adam": {"amsgrad": True}, "AdamW": {},
    "Adagrad": {}, "Adadelta": {}, "RMSProp": {"centered": True, "momentum": 0.5},
    "Adamax": {}, "Lamb": {}, "NAdam": {}, "RAdam": {}, "Rprop": {}, "ASGD": {"batch_num": 2},
}


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_a_restored_optimizer_takes_the_same_next_step(name):
    mg.seed(0)
    net = paddle.nn.Linear(3, 2)
    x = paddle.randn([4, 3])

    def step(opt):
        (net(x) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
        return [p.numpy().copy() for p in net.parameters()]
    make = getattr(paddle.optimizer, name)
    opt = make(learning_rate=0.01, parameters=net.parameters(), **ROUND_TRIPS[name])
    step(opt)
    before = step(opt)
    buf = io.BytesIO()
    paddle.save(opt.state_dict(), buf)
    restored = make(learning_rate=0.01, parameters=net.parameters(), **ROUND_TRIPS[name])
    restored.set_state_dict(paddle.load(io.BytesIO(buf.getvalue())))
    want = step(opt)
    for p, w in zip(net.parameters(), before):
        p.set_value(w)
    for got, w in zip(step(restored), want):
        np.testing.assert_array_equal(got, w)


def test_layers_get_paddle_s_automatic_names():
    with paddle.base.unique_name.guard():
        a, b = paddle.nn.Linear(2, 3), paddle.nn.Linear(3, 1, bias_attr=False)
        bn = paddle.nn.BatchNorm2D(2, weight_attr=False)
        named = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="my_w"))

        class Own(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.scale = self.create_parameter([2], is_bias=True)
        own = Own()
    assert (a.full_name(), b.full_name(), own.full_name()) == ("linear_0", "linear_1", "own_0")
    assert [p.name for p in a.parameters()] == ["linear_0.w_0", "linear_0.b_0"]
    assert [p.name for p in b.parameters()] == ["linear_1.w_0"]
    # Paddle 3.3.1: without a weight, the statistics are w_0 and w_1
    assert {k: v.name for k, v in bn.state_dict().items()} == {
        "bias": "batch_norm2d_0.b_0", "_mean": "batch_norm2d_0.w_0",
        "_variance": "batch_norm2d_0.w_1"}
    assert [p.name for p in named.parameters()] == ["my_w", "linear_2.b_0"]
    assert own.scale.name == "own_0.b_0"


def test_what_paddle_save_writes():
    """Paddle's rules: a state dict gets the name table; anything else keeps its containers,
    a tensor in it is ``(name, array)``."""
    with paddle.base.unique_name.guard():
        net = paddle.nn.Linear(2, 1)
    buf = io.BytesIO()
    paddle.save(net.state_dict(), buf)
    raw = pickle.loads(buf.getvalue())
    assert buf.getvalue()[:2] == b"\x80\x04" and type(raw) is dict
    assert raw[PADDLE_NAME_TABLE] == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}
    assert type(raw["weight"]) is np.ndarray and raw["weight"].dtype == np.float32
    buf = io.BytesIO()
    paddle.save({"model": net.state_dict(), "epoch": 3, "a": np.arange(2)}, buf, protocol=2)
    raw = pickle.loads(buf.getvalue())
    assert buf.getvalue()[:2] == b"\x80\x02" and PADDLE_NAME_TABLE not in raw
    assert raw["model"]["weight"][0] == "linear_0.w_0" and raw["epoch"] == 3
    back = paddle.load(io.BytesIO(buf.getvalue()))
    assert type(back["model"]["weight"]) is paddle.Tensor
    np.testing.assert_array_equal(back["model"]["weight"].numpy(), net.weight.numpy())
    assert type(paddle.load(io.BytesIO(buf.getvalue()), return_numpy=True)["a"]) is np.ndarray


def test_older_formats_still_load(tmp_path):
    with paddle.base.unique_name.guard():
        net = paddle.nn.Linear(2, 1)
    sd = {k: v.numpy() for k, v in net.state_dict().items()}
    # what mutograd's paddle format wrote before: NumPy's own pickling, no name table
    (tmp_path / "old.pdparams").write_bytes(pickle.dumps(sd, protocol=4))
    # paddle.save here wrote mutograd checkpoints before
    mg.save(net.state_dict(), str(tmp_path / "ckpt.pdparams"))
    for name in ("old.pdparams", "ckpt.pdparams"):
        back = paddle.load(str(tmp_path / name))
        assert list(back) == ["weight", "bias"]
        np.testing.assert_array_equal(back["weight"].numpy(), sd["weight"])
    # and an optimizer state in mutograd's form
    opt = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
    net(paddle.ones([1, 2])).sum().backward()
    opt.step()
    old = mg.optim.Optimizer.state_dict(opt)
    opt2 = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
    opt2.set_state_dict(old)
    np.testing.assert_array_equal(opt2.state[net.weight]["momentum_buffer"].numpy(),
                                  opt.state[net.weight]["momentum_buffer"].numpy())


def test_an_optimizer_state_for_other_parameters_is_refused():
    with paddle.base.unique_name.guard():
        paddle.nn.Linear(2, 1)
        net = paddle.nn.Linear(2, 1)      # linear_1: the file's are linear_0, conv2d_0, ...
    opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
    state = paddle.load(os.path.join(DIR, "adam.pdopt"))
    with pytest.raises(mg.optim.optimizer.OptimizerStateError, match="same order"):
        opt.set_state_dict(state)
    state["linear_1.w_0_moment1_0"] = mg.zeros([2, 1])
    state["linear_1.w_0_beta1_pow_acc_0"] = mg.full([1], 0.81)
    with pytest.warns(UserWarning, match="conv2d_0.w_0_moment1_0") as caught:
        opt.set_state_dict(state)    # some entries fit: the others are named in a warning
    assert caught[0].filename == __file__
    assert opt.state[net.weight]["step"] == 1


@pytest.mark.parametrize("name", ["checkpoints", "nn.naming", "optimizer.state"])
def test_docstring_examples(name):
    module = importlib.import_module("mutograd.compat.paddle." + name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE
                             | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
