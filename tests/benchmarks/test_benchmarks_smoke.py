"""Every benchmark workload runs once at a tiny size for every installed contestant."""
import importlib.util
import json

import numpy as np
import pytest

from benchmarks import run as bench
from benchmarks.workloads import CONTESTANTS, discover
from benchmarks.workloads_mlp import _Mlp

WORKLOADS = discover()
HAVE = [c for c in CONTESTANTS if c in ("mutograd", "numpy") or importlib.util.find_spec(c)]
CASES = [(n, c) for n, w in WORKLOADS.items() for c in HAVE if hasattr(w, c)]


def test_every_workload_has_mutograd_and_numpy_or_torch():
    assert {"add_nograd", "mul_grad", "add__nograd", "add__nonleaf_grad", "relu_out",
            "relu_inplace", "chain_out", "chain_inplace", "mlp_step", "mlp_step_inplace",
            "deep_mlp"} <= set(WORKLOADS)
    for w in WORKLOADS.values():
        assert hasattr(w, "mutograd") and (hasattr(w, "numpy") or hasattr(w, "torch"))


# the PyTorch contestant's cases carry the torch marker, so CI's `-m torch` pass runs them
@pytest.mark.parametrize("name, contestant", [
    pytest.param(n, c, marks=[pytest.mark.torch] if c == "torch" else [], id=f"{n}-{c}")
    for n, c in CASES])
def test_workload_runs_once_at_tiny_size(name, contestant):
    if contestant == "torch":
        import torch
        torch.set_num_threads(1)
    w = WORKLOADS[name]
    fn = getattr(w, contestant)(w.tiny)
    fn()
    fn()


def _losses(contestant, inplace, steps=3):
    cls = type("M", (_Mlp,), {"inplace": inplace})
    step = getattr(cls, contestant)(_Mlp.tiny)
    return [float(np.asarray(step() if contestant == "numpy" else step().detach().numpy()))
            for _ in range(steps)]


@pytest.mark.parametrize("inplace", [False, True])
def test_mlp_step_contestants_compute_the_same_training(inplace):
    """The hand-written NumPy backward and mutograd's autograd take the same SGD steps."""
    ref = _losses("numpy", inplace)
    np.testing.assert_allclose(_losses("mutograd", inplace), ref, rtol=1e-5)
    assert ref[-1] < ref[0]
    if "torch" in HAVE:
        np.testing.assert_allclose(_losses("torch", inplace), ref, rtol=1e-5)


def test_run_writes_json_and_a_table_with_memory_from_a_subprocess(tmp_path):
    res = bench.run(["relu_inplace"], ["mutograd", "numpy"], tiny=True, repeat=2, threads=1,
                    memory=True, out_dir=str(tmp_path), quiet=True)
    with open(res["path"]) as f:
        data = json.load(f)
    row = data["workloads"]["relu_inplace"]["contestants"]
    assert set(row) == {"mutograd", "numpy"}
    assert row["mutograd"]["min"] <= row["mutograd"]["median"] <= row["mutograd"]["max"]
    assert row["mutograd"]["mg_bytes_per_unit"] == 0       # relu_ allocates nothing
    assert row["mutograd"]["rss_peak"] is not None
    text = bench.table(data)
    assert "| x.relu_(), in place | ms |" in text and "mutograd / numpy" in text


PADDLE_CASES = [n for n, w in WORKLOADS.items() if hasattr(w, "paddle")]


@pytest.mark.parametrize("name", PADDLE_CASES)
def test_paddle_contestant_code_runs_on_the_paddle_dialect(name, monkeypatch):
    """Paddle is not installed here: its contestant code runs on ``mutograd.compat.paddle``,
    which has Paddle's names and signatures, so a typo in it cannot wait for a machine with
    Paddle."""
    if importlib.util.find_spec("paddle"):
        pytest.skip("the real Paddle is installed; the workload test above runs it")
    import mutograd.compat.paddle as dialect
    monkeypatch.setitem(__import__("sys").modules, "paddle", dialect)
    w = WORKLOADS[name]
    fn = w.paddle(w.tiny)
    fn()
    fn()
    if name.startswith("mlp_step"):
        inplace = name.endswith("inplace")
        np.testing.assert_allclose(_losses("paddle", inplace), _losses("numpy", inplace),
                                   rtol=1e-5)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["nn_mlp_step", "nn_mlp_step_inplace", "cnn_step"])
def test_nn_workloads_train_exactly_like_pytorch(name):
    """Same initial weights, same data: mutograd's nn/optim and PyTorch's take the same steps."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    w = WORKLOADS[name]
    a, b = w.mutograd(w.tiny), w.torch(w.tiny)
    la = [float(a().detach().numpy()) for _ in range(3)]
    lb = [float(b().detach().numpy()) for _ in range(3)]
    np.testing.assert_allclose(la, lb, rtol=1e-5)
    assert la[-1] < la[0]
