"""The small MLP (Adam) and small CNN (SGD, momentum, StepLR) workloads: they run at their tiny
size, and mutograd and PyTorch, given the same weights and data, take the same steps."""
import numpy as np
import pytest

from benchmarks.workloads import discover

WORKLOADS = discover()
SMALL = ["small_mlp_adam", "small_cnn_sgd"]


def _losses(step, units):
    return [float(step().detach().numpy()) for _ in range(units)]


@pytest.mark.parametrize("name", SMALL)
def test_small_workload_trains_at_tiny_size_on_mutograd(name):
    w = WORKLOADS[name]
    assert w.unit == "ms" and not hasattr(w, "numpy")
    losses = _losses(w.mutograd(w.tiny), 4)
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]


@pytest.mark.parametrize("name", SMALL)
def test_small_workload_full_size_builds_the_models_of_its_description(name):
    """One unit at full size: a 64-feature batch of 32 for the MLP, 28x28 images for the CNN."""
    w = WORKLOADS[name]
    assert w.full["batch"] == 32
    loss = w.mutograd(w.full)()
    assert loss.shape == () and np.isfinite(float(loss.detach().numpy()))


@pytest.mark.torch
@pytest.mark.parametrize("name", SMALL)
def test_small_workload_trains_exactly_like_pytorch(name):
    """Same initial weights and data: six units (the CNN's StepLR lowers the rate every two)
    give the same losses within float32 rounding."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    w = WORKLOADS[name]
    ours = _losses(w.mutograd(w.tiny), 6)
    theirs = _losses(w.torch(w.tiny), 6)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[-1] < ours[0]


@pytest.mark.torch
def test_the_cnn_schedule_changes_the_steps():
    """Without StepLR, PyTorch's losses from the third unit on differ: the schedule the two
    contestants share is really stepped once per unit."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    w = WORKLOADS["small_cnn_sgd"]
    ours = _losses(w.mutograd(w.tiny), 4)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(torch.optim.lr_scheduler.StepLR, "step", lambda self: None)
        unscheduled = _losses(w.torch(w.tiny), 4)
    np.testing.assert_allclose(ours[:3], unscheduled[:3], rtol=1e-5)
    assert abs(ours[3] - unscheduled[3]) > 1e-4 * abs(ours[3])
