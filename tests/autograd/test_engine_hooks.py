"""Engine hooks: a leaf's gradient is accumulated as soon as it is final, post-accumulate
hooks, callbacks at the end of backward (what data-parallel training builds on), and a node that
receives no gradient."""
import numpy as np
import pytest

import mutograd as mg
from mutograd.errors import BackwardError


def test_post_accumulate_hook_runs_as_soon_as_a_leaf_is_final():
    events = []
    w1 = mg.tensor([[1.0, 2.0]], dtype="float64", requires_grad=True)
    w2 = mg.tensor([[3.0], [4.0]], dtype="float64", requires_grad=True)
    x = mg.tensor([[1.0], [2.0]], dtype="float64")
    h = mg.tanh(x @ w1)
    h.register_hook(lambda g: events.append("h"))
    out = (h @ w2).sum()
    w2.register_post_accumulate_grad_hook(lambda p: events.append(("w2", p.grad.tolist())))
    w1.register_post_accumulate_grad_hook(lambda p: events.append("w1"))
    dist_grad = (np.tanh(np.array([[1.0], [2.0]]) @ np.array([[1.0, 2.0]]))).sum(0)
    out.backward()
    # w2's gradient is final before backward reaches h: it must be reported first
    assert events[0][0] == "w2" and np.allclose(events[0][1], dist_grad[:, None])
    assert events[1:] == ["h", "w1"]
    out2 = (mg.tanh(x @ w1) @ w2).sum()
    out2.backward()
    assert len(events) == 5 and np.allclose(w2.grad.numpy(), 2 * dist_grad[:, None])


def test_post_accumulate_hook_only_on_leaves_that_require_grad():
    x = mg.ones([2], requires_grad=True)
    for t in (x * 2, mg.ones([2])):
        with pytest.raises(BackwardError, match="post accumulate grad hooks can only be "
                           "registered on leaf tensors that require grad"):
            t.register_post_accumulate_grad_hook(print)
    handle = x.register_post_accumulate_grad_hook(lambda p: pytest.fail("removed"))
    handle.remove()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_queue_callback_runs_after_every_gradient_and_once():
    from mutograd.autograd.engine import queue_callback
    seen = []
    a = mg.ones([2], requires_grad=True)
    b = mg.ones([2], requires_grad=True)

    def hook(p):
        if not seen:
            queue_callback(lambda: seen.append((a.grad.tolist(), b.grad.tolist())))
        seen.append("hook")
    a.register_post_accumulate_grad_hook(hook)
    (a * 3 + b * 2).sum().backward()
    assert seen == ["hook", ([3.0, 3.0], [2.0, 2.0])]
    (b * 2).sum().backward()          # a callback never leaks into a later backward
    assert len(seen) == 2


def test_queue_callback_outside_backward_and_from_a_nested_backward():
    from mutograd.autograd.engine import queue_callback
    with pytest.raises(BackwardError, match=r"queue_callback\(\) can only be called during "
                       r"backward \(from a hook\)"):
        queue_callback(print)
    order = []
    a = mg.ones([2], requires_grad=True)
    c = mg.ones([2], requires_grad=True)

    def hook(p):
        queue_callback(lambda: order.append("outer"))
        with mg.enable_grad():            # a backward inside a hook runs its own callbacks
            (c * 2).sum().backward()
        order.append("nested done")
    c.register_post_accumulate_grad_hook(
        lambda p: queue_callback(lambda: order.append("inner")))
    a.register_post_accumulate_grad_hook(hook)
    (a * 3).sum().backward()
    assert order == ["inner", "nested done", "outer"]


class _NoGrad(mg.Function):
    """Passes values through and sends no gradient back (``backward`` returns None)."""

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return None


@pytest.mark.parametrize("how", ["backward", "grad"])
def test_a_node_that_receives_no_gradient_does_not_block_its_inputs(how):
    # b feeds both m (whose only consumer sends nothing back) and the output directly:
    # d out / dx = 3 * 2 through b alone; before, b waited for m forever and x got nothing
    x = mg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    b = x * 3
    m = b * 1
    out = (_NoGrad.apply(m) + b * 2).sum()
    if how == "backward":
        out.backward()
        got = x.grad
    else:
        (got,) = mg.grad(out, [x])
    assert got.tolist() == [6.0, 6.0]


# ---- Note [Region gradients] ----------------------------------------------------------------
def _region_program(h):
    a, b, c = h.split(2, dim=1)
    return (a * 2 + b.exp() + c * c).sum() + (a * a).sum() + h[:, 1].sum() + h.sum()


def _region_expected(xa):
    g = np.ones_like(xa)                     # from h.sum()
    g[:, 0:2] += 2 + 2 * xa[:, 0:2]          # a * 2 and a * a
    g[:, 2:4] += np.exp(xa[:, 2:4])
    g[:, 4:6] += 2 * xa[:, 4:6]
    g[:, 1] += 1                             # h[:, 1]
    return g


def test_region_gradients_add_into_one_buffer_with_the_right_values():
    xa = np.random.default_rng(0).standard_normal((3, 6))
    x = mg.tensor(xa, requires_grad=True)
    h = x * 1.0
    h.retain_grad()
    _region_program(h).backward()
    np.testing.assert_allclose(x.grad.numpy(), _region_expected(xa), rtol=1e-12)
    np.testing.assert_allclose(h.grad.numpy(), _region_expected(xa), rtol=1e-12)
    # a region gradient reaching a leaf directly, and through autograd.grad
    x2 = mg.tensor(xa, requires_grad=True)
    (gx,) = mg.autograd.grad(_region_program(x2), [x2])
    np.testing.assert_allclose(gx.numpy(), _region_expected(xa), rtol=1e-12)
    x3 = mg.tensor(xa, requires_grad=True)
    x3[:, 3].sum().backward()
    assert x3.grad.numpy()[:, 3].tolist() == [1.0] * 3 and x3.grad.numpy().sum() == 3.0


def test_anomaly_mode_sees_a_non_finite_region_gradient():
    x = mg.tensor(np.ones((2, 4)), requires_grad=True)
    a, _ = (x * 1.0).split(2, dim=1)
    g = mg.tensor(np.array([[np.nan, 1.0], [1.0, 1.0]]))   # straight into the narrow's backward
    with mg.autograd.detect_anomaly():
        with pytest.raises(BackwardError, match="'NarrowBackward0' returned nan values"):
            a.backward(g)
