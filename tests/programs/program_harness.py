"""Running an example program of ``examples/`` through real PyTorch and through mutograd.

Both runs execute the same file: once with ``import torch`` giving PyTorch, once giving
``mutograd.compat.torch``. Weights go from the PyTorch model to the mutograd one as NumPy arrays
(``load_state_dict``), so both start from identical numbers; batches are made once in NumPy.
"""
import runpy
from pathlib import Path

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat as compat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# float32 tolerances of the issue: loss relative 1e-4; a parameter's distance from PyTorch's
# relative to how far it moved from its start
LOSS_RTOL = 1e-4
TRAJ_RTOL = 2e-3


def load(name, framework, dialect="torch"):
    """The globals of ``examples/<name>.py`` run (not as __main__) against ``framework``:
    ``'torch'`` or ``'paddle'`` (the real one; skips without it) or ``'mutograd'`` (its
    ``dialect`` namespace)."""
    path = str(EXAMPLES / f"{name}.py")
    if framework == "torch":
        torch = pytest.importorskip("torch")
        torch.set_num_threads(1)     # tiny models: threads only add overhead on a busy machine
        return runpy.run_path(path, run_name=f"example_{name}")
    if framework == "paddle":
        pytest.importorskip("paddle")
        return runpy.run_path(path, run_name=f"example_{name}")
    with compat.importing_as(dialect):
        return runpy.run_path(path, run_name=f"example_{name}")


def to_numpy(t):
    """A tensor of either framework as a float64/int NumPy array (a copy)."""
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "cpu") and not isinstance(t, mg.Tensor):
        t = t.cpu()
    a = t.numpy() if hasattr(t, "numpy") else np.asarray(t)
    return np.array(a)


def hand_over(torch_model, mg_model):
    """Copy every parameter and buffer of ``torch_model`` into ``mg_model`` (in place)."""
    state = {k: mg.tensor(to_numpy(v)) for k, v in torch_model.state_dict().items()}
    mg_model.load_state_dict(state)


def _trained(model):
    """Named parameters that train (real Paddle also lists BatchNorm's statistics, with
    ``stop_gradient=True``)."""
    for n, p in model.named_parameters():
        if not getattr(p, "stop_gradient", not p.requires_grad):
            yield n, p


def params(model):
    """``{name: numpy array}`` of a model's trained parameters."""
    return {n: to_numpy(p) for n, p in _trained(model)}


def grads(model):
    """``{name: numpy array}`` of a model's parameter gradients (zeros where None)."""
    return {n: (to_numpy(p.grad) if p.grad is not None else np.zeros(tuple(p.shape)))
            for n, p in _trained(model)}


def assert_close_dict(got, want, rtol=1e-4, atol=1e-6, what="gradient"):
    assert list(got) == list(want), f"{what} names differ: {list(got)} vs {list(want)}"
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=atol,
                                   err_msg=f"{what} of {k}")


def assert_trajectory(start, got, want, rtol=TRAJ_RTOL, atol=1e-6):
    """Each parameter's difference from the real framework is small next to how far the real
    framework moved it (``atol``: float32 noise, for a parameter training leaves in place, such
    as a bias right before a BatchNorm)."""
    assert list(got) == list(want)
    moves = []
    for k in want:
        moved = np.abs(want[k] - start[k]).max()
        err = np.abs(got[k] - want[k]).max()
        assert err <= rtol * moved + atol, f"{k}: off by {err:.3g} after moving {moved:.3g}"
        moves.append(moved)
    assert max(moves) > 1e-3, "training did not move the parameters"


def assert_loss(got, want):
    assert abs(got - want) <= LOSS_RTOL * abs(want), f"loss {got} vs PyTorch {want}"


def assert_same_state_layout(torch_model, mg_model):
    """Construction: the same state-dict names, in the same order, with the same shapes (the
    order is what optimizers and checkpoints follow)."""
    want = [(k, tuple(v.shape)) for k, v in torch_model.state_dict().items()]
    got = [(k, tuple(v.shape)) for k, v in mg_model.state_dict().items()]
    assert got == want


def run_example(name, *args, timeout=300):
    """``python -m mutograd run --as torch examples/<name>.py args``: its stdout (exit 0)."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", "torch",
                        str(EXAMPLES / f"{name}.py"), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout
