"""Whole-object checkpoints (mutograd/serialization/objects.py): ``save(model)`` pickles, the
default ``load`` refuses it as PyTorch 2.6+ does, ``weights_only=False`` loads it, warning
nothing (as PyTorch 2.13)."""
import io
import pickle
import warnings

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as mtorch
from mutograd.errors import CheckpointError, WeightsOnlyError

REFUSAL = r"Weights only load failed.*`weights_only` set to `False`"


def _net(ns):
    return ns.nn.Sequential(ns.nn.Linear(3, 4), ns.nn.ReLU(), ns.nn.Linear(4, 2))


SAVES = {   # dialect: (save, load, a model of it, an optimizer of the model)
    "mutograd": (mg.save, mg.load, lambda: _net(mg), lambda m: mg.optim.Adam(m.parameters())),
    "torch": (mtorch.save, mtorch.load, lambda: _net(mtorch),
              lambda m: mtorch.optim.Adam(m.parameters())),
    "paddle": (paddle.save, paddle.load,
               lambda: paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(),
                                            paddle.nn.Linear(4, 2)),
               lambda m: paddle.optimizer.Adam(parameters=m.parameters())),
}


@pytest.mark.parametrize("dialect", SAVES)
def test_whole_module_and_optimizer_round_trip_with_weights_only_false(dialect, tmp_path):
    save, load, make, make_opt = SAVES[dialect]
    model = make()
    opt = make_opt(model)
    save(model, tmp_path / "m.pt")
    save({"model": model, "opt": opt, "epoch": 3}, tmp_path / "all.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # PyTorch 2.13 warns nothing here
        back = load(tmp_path / "m.pt", weights_only=False)
        both = load(tmp_path / "all.pt", weights_only=False)
    x = model[0].weight._result_class(mg.randn([5, 3]).numpy())   # a tensor of the dialect
    assert type(back) is type(model)
    np.testing.assert_array_equal(back(x).detach().numpy(), model(x).detach().numpy())
    assert type(back[0].weight) is type(model[0].weight)
    assert both["epoch"] == 3 and type(both["opt"]) is type(opt)


@pytest.mark.parametrize("dialect", SAVES)
def test_default_load_refuses_a_whole_object_naming_weights_only_false(dialect, tmp_path):
    save, load, make, _ = SAVES[dialect]
    save(make(), tmp_path / "m.pt")
    with pytest.raises(WeightsOnlyError, match=REFUSAL) as info:
        load(tmp_path / "m.pt")
    assert isinstance(info.value, pickle.UnpicklingError)
    assert isinstance(info.value, CheckpointError)
    assert "refused to load the global mutograd." in str(info.value)


def test_state_dicts_keep_the_safe_format(tmp_path):
    model = _net(mtorch)
    mtorch.save(model.state_dict(), tmp_path / "sd.pt")
    assert not (tmp_path / "sd.pt").read_bytes().startswith(b"\x80")   # not a pickle
    sd = mtorch.load(tmp_path / "sd.pt")
    assert sd.keys() == model.state_dict().keys()
    assert mtorch.load(tmp_path / "sd.pt", weights_only=False).keys() == sd.keys()


def test_file_objects_and_map_location(tmp_path):
    buf = io.BytesIO()
    mtorch.save(mtorch.nn.Linear(2, 2), buf)
    buf.seek(0)
    lin = mtorch.load(buf, map_location="cpu", weights_only=False)
    assert lin.weight.device.type == "cpu"


def test_unpicklable_objects_are_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="could not pickle"):
        mg.save({"f": lambda: 0}, tmp_path / "x")


def test_a_hostile_pickle_is_still_refused_by_default(tmp_path):
    class Boom:
        def __reduce__(self):
            return (eval, ("1",))
    p = tmp_path / "boom.pt"
    p.write_bytes(pickle.dumps(Boom(), protocol=4))
    with pytest.raises(WeightsOnlyError, match="refused to load the global builtins.eval"):
        mtorch.load(p)


@pytest.mark.torch
def test_pytorch_refuses_the_same_way(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.Linear(2, 3), tmp_path / "t.pt")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as info:
        torch.load(tmp_path / "t.pt")
    assert "weights_only" in str(info.value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(torch.load(tmp_path / "t.pt", weights_only=False), torch.nn.Linear)
    # a PyTorch archive of a whole object stays refused here, whatever weights_only says
    with pytest.raises(WeightsOnlyError, match="pickles a whole object"):
        mtorch.load(tmp_path / "t.pt", weights_only=False)
