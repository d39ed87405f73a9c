"""The autograd API (issue 2 item 5): backward, accumulation, retain_grad, hooks, grad(),
grad modes, the requires_grad/stop_gradient flag, detach, data, versions and error classes."""
import threading

import numpy as np
import pytest

import mutograd as mg


def _x(values=(1.0, 2.0, 3.0)):
    return mg.tensor(list(values), requires_grad=True)


# ---- backward --------------------------------------------------------------------------------
def test_backward_of_a_non_scalar_uses_implicit_ones_in_the_main_namespace():
    x = _x()
    (x * 2).backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_backward_with_an_explicit_gradient():
    x = _x()
    (x * x).backward(mg.tensor([1.0, 0.0, 2.0]))
    assert x.grad.tolist() == [2.0, 0.0, 12.0]
    with pytest.raises(mg.BackwardError, match=r"Mismatch in shape: grad_output has a shape of "
                                               r"\[2\] and output has a shape of \[3\]"):
        (x * x).backward(mg.ones(2))


def test_leaves_accumulate_grad_across_backward_calls():
    x = _x()
    (x * 2).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0, 5.0]
    assert x.grad is g                       # accumulated in place, as PyTorch
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_backward_on_a_tensor_that_does_not_require_grad_raises():
    with pytest.raises(mg.BackwardError, match="does not require grad"):
        mg.ones(2).sum().backward()


def test_a_second_backward_fails_only_when_saved_values_were_freed():
    x = _x()
    y = (x + 2).sum()                        # AddBackward saves nothing
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    y = (x * 2).sum()                        # the constant 2 is freed too, as in PyTorch
    y.backward()
    with pytest.raises(mg.BackwardError, match="second time"):
        y.backward()
    z = (x * x).sum()                        # MulBackward saves x
    z.backward()
    with pytest.raises(mg.BackwardError, match="retain_graph=True") as e:
        z.backward()
    assert "MulBackward" in str(e.value) and "second time" in str(e.value)
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, ValueError)
    x.grad = None
    w = (x * x).sum()
    w.backward(retain_graph=True)
    w.backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]


# ---- retain_grad and hooks -------------------------------------------------------------------
def test_retain_grad_keeps_the_grad_of_a_non_leaf():
    x = _x()
    h = x * 2
    h.retain_grad()
    other = x * 3
    (h * other).sum().backward()
    assert h.retains_grad and h.grad.tolist() == [3.0, 6.0, 9.0]
    assert other.grad is None and not other.retains_grad


def test_retain_grad_after_an_in_place_rebase_retains_the_latest_version():
    x = _x()
    h = x * 2
    h.retain_grad()
    h.mul_(5)                                # h is now 10 x; its grad is that of the new value
    (h * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert h.grad.tolist() == [1.0, 2.0, 3.0]
    assert x.grad.tolist() == [10.0, 20.0, 30.0]


def test_retain_grad_on_a_tensor_without_grad_raises_and_on_a_leaf_is_a_no_op():
    with pytest.raises(mg.BackwardError, match="requires_grad=False"):
        mg.ones(2).retain_grad()
    x = _x()
    x.retain_grad()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("where", ["leaf", "non-leaf"])
def test_register_hook_replaces_the_gradient_and_can_be_removed(where):
    x = _x()
    h = x if where == "leaf" else x * 1.0
    seen = []

    def hook(g):
        seen.append(g.tolist())
        return g * 10

    handle = h.register_hook(hook)
    (h * 2).sum().backward(retain_graph=True)   # x * 1.0 saved the 1.0 for the second run
    assert seen == [[2.0, 2.0, 2.0]] and x.grad.tolist() == [20.0, 20.0, 20.0]
    handle.remove()
    x.grad = None
    h = x if where == "leaf" else h
    (h * 2).sum().backward(retain_graph=True)
    assert len(seen) == 1 and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_a_hook_returning_none_keeps_the_gradient():
    x = _x()
    seen = []
    x.register_hook(lambda g: seen.append(g.shape))
    (x * 2).sum().backward()
    assert seen == [[3]] and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_register_hook_on_a_tensor_without_grad_raises():
    with pytest.raises(mg.BackwardError, match="doesn't require gradient"):
        mg.ones(2).register_hook(lambda g: g)


# ---- mg.grad --------------------------------------------------------------------------------
def test_grad_returns_gradients_and_leaves_dot_grad_untouched():
    x = _x()
    (gx,) = mg.grad((x * x).sum(), [x])
    assert gx.tolist() == [2.0, 4.0, 6.0] and x.grad is None
    (gx,) = mg.grad(x * x, [x], grad_outputs=[mg.tensor([1.0, 0.0, 1.0])])
    assert gx.tolist() == [2.0, 0.0, 6.0]


def test_grad_gives_a_tuple_as_pytorch_and_a_list_in_paddles_dialect():
    import mutograd.compat.paddle as paddle
    import mutograd.compat.torch as torch
    x = _x()
    assert type(mg.grad((x * x).sum(), [x])) is tuple
    assert type(mg.autograd.grad((x * x).sum(), x)) is tuple
    assert type(torch.autograd.grad((x * x).sum(), [x])) is tuple
    assert type(paddle.grad((x * x).sum(), [x])) is list
    assert type(paddle.autograd.grad((x * x).sum(), [x])) is list


def test_grad_with_retain_graph_and_allow_unused():
    x, unused = _x(), _x([1.0])
    y = (x * x).sum()
    mg.grad(y, [x], retain_graph=True)
    y.backward()                              # the graph was kept
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    z = (x * x).sum()
    with pytest.raises(mg.BackwardError, match="allow_unused=True"):
        mg.grad(z, [x, unused], retain_graph=True)
    gx, gu = mg.grad(z, [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 4.0, 6.0] and gu is None
    with pytest.raises(mg.BackwardError, match="retain_graph=True"):
        mg.grad(z, [x])


def test_grad_of_an_intermediate():
    x = _x()
    h = x * 2
    (gh,) = mg.grad((h * h).sum(), [h])
    assert gh.tolist() == [4.0, 8.0, 12.0] and h.grad is None and x.grad is None


# ---- grad modes -----------------------------------------------------------------------------
MODES = [
    ("no_grad", lambda: mg.no_grad(), False), ("enable_grad", lambda: mg.enable_grad(), True),
    ("set_grad_enabled(False)", lambda: mg.set_grad_enabled(False), False),
    ("set_grad_enabled(True)", lambda: mg.set_grad_enabled(True), True),
    ("inference_mode", lambda: mg.inference_mode(), False),
    ("inference_mode(False)", lambda: mg.inference_mode(False), True),
]


@pytest.mark.parametrize("name, make, enabled", MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("outer", [True, False])
def test_grad_modes_as_context_managers(name, make, enabled, outer):
    mg.set_grad_enabled(outer)
    x = _x()
    with make():
        assert mg.is_grad_enabled() is enabled
        y = x * 2
    assert mg.is_grad_enabled() is outer
    assert (y.grad_fn is not None) is enabled and y.requires_grad is enabled


@pytest.mark.parametrize("name, make, enabled", MODES, ids=[m[0] for m in MODES])
def test_grad_modes_as_decorators_with_parentheses(name, make, enabled):
    for outer in (True, False):
        mg.set_grad_enabled(outer)

        @make()
        def f():
            return mg.is_grad_enabled()

        assert mg.is_grad_enabled() is outer      # decorating switches nothing
        assert f() is enabled
        assert mg.is_grad_enabled() is outer


@pytest.mark.parametrize("mode, enabled", [(mg.no_grad, False), (mg.enable_grad, True),
                                           (mg.inference_mode, False)])
def test_grad_modes_as_decorators_without_parentheses(mode, enabled):
    mg.set_grad_enabled(not enabled)

    @mode
    def f(a, b=1):
        """doc"""
        return mg.is_grad_enabled(), a + b

    assert f(1, b=2) == (enabled, 3) and f.__doc__ == "doc" and f.__name__ == "f"
    assert mg.is_grad_enabled() is (not enabled)


def test_decorated_function_restores_the_mode_when_it_raises():
    @mg.no_grad()
    def f():
        raise KeyError("boom")

    with pytest.raises(KeyError):
        f()
    assert mg.is_grad_enabled()


def test_set_grad_enabled_as_a_plain_call_switches_at_once():
    mg.set_grad_enabled(False)
    assert not mg.is_grad_enabled()
    mg.set_grad_enabled(True)
    assert mg.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}
    inside = threading.Event()
    done = threading.Event()

    def worker():
        seen["start"] = mg.is_grad_enabled()
        with mg.no_grad():
            seen["worker"] = mg.is_grad_enabled()
            inside.set()
            done.wait(5)

    with mg.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        inside.wait(5)
    seen["main, while worker is in no_grad"] = mg.is_grad_enabled()
    x = _x()
    y = x * 2
    done.set()
    t.join(5)
    assert seen == {"start": True, "worker": False, "main, while worker is in no_grad": True}
    assert y.grad_fn is not None


# ---- flags ---------------------------------------------------------------------------------
def test_requires_grad_and_stop_gradient_are_one_flag():
    a = mg.ones(2)
    assert a.stop_gradient and not a.requires_grad
    a.stop_gradient = False
    assert a.requires_grad
    a.requires_grad = False
    assert a.stop_gradient
    assert a.requires_grad_() is a and a.requires_grad and not a.stop_gradient
    assert a.requires_grad_(False) is a and a.stop_gradient
    assert mg.ones(2, stop_gradient=False).requires_grad


def test_requires_grad_errors():
    with pytest.raises(mg.BackwardError, match="only Tensors of floating point dtype"):
        mg.tensor([1, 2]).requires_grad_()
    h = _x() * 2
    with pytest.raises(mg.BackwardError, match="only change requires_grad flags of leaf"):
        h.requires_grad = False


@pytest.mark.parametrize("outputs", [None, [None], 3, "loss"])
def test_outputs_that_are_not_tensors_are_a_clear_type_error(outputs):
    import mutograd.compat.torch as torch
    x = _x()
    for call in (lambda: mg.grad(outputs, [x]), lambda: torch.autograd.grad(outputs, [x]),
                 lambda: torch.autograd.backward(outputs), lambda: mg.autograd.backward(outputs)):
        with pytest.raises(TypeError, match="outputs to differentiate must be tensors, got"):
            call()


def test_stop_gradient_on_a_non_leaf_cuts_the_graph():
    x = _x()
    h = x * 2
    h.stop_gradient = True
    assert h.is_leaf and not h.requires_grad


def test_is_leaf():
    x = _x()
    assert x.is_leaf and mg.ones(2).is_leaf and not (x * 2).is_leaf
    with mg.no_grad():
        assert (x * 2).is_leaf
    assert (x * 2).detach().is_leaf


# ---- detach and data -----------------------------------------------------------------------
def test_detach_shares_storage_and_version_counter():
    x = _x()
    h = x * 2
    d = h.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    assert np.shares_memory(d.numpy(), h.numpy())
    d.add_(1)
    assert h.tolist() == [3.0, 5.0, 7.0] and h._version == 1 == d._version


def test_a_write_through_detach_after_a_save_makes_backward_raise():
    x = _x()
    h = x * 2
    y = (h * h).sum()
    h.detach().zero_()
    with pytest.raises(mg.VersionError, match="modified by an inplace operation"):
        y.backward()


def test_detach_in_place():
    x = _x()
    h = x * 2
    assert h.detach_() is h and h.is_leaf and not h.requires_grad
    v = (x * 2)[1:]
    with pytest.raises(mg.InplaceError, match="Can't detach views in-place"):
        v.detach_()


def test_data_getter_shares_the_version_counter():
    x = _x()
    h = x * 1.0
    y = (h * h).sum()
    d = h.data
    assert not d.requires_grad and np.shares_memory(d.numpy(), h.numpy())
    d.add_(1)                                 # design.md rule 7: seen by autograd
    assert h._version == 1
    with pytest.raises(mg.VersionError, match="expected version 0 instead"):
        y.backward()


def test_data_setter_replaces_storage_may_change_shape_and_bumps_version():
    w = _x()
    new = mg.zeros(2, 2)
    w.data = new
    assert w.shape == [2, 2] and w._version == 1 and w.requires_grad and w.is_leaf
    assert np.shares_memory(w.numpy(), new.numpy())
    (w * 2).sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    with pytest.raises(TypeError, match="data must be set to a Tensor"):
        w.data = [1.0]


def test_version_names():
    x = mg.ones(2)
    assert x._version == x.inplace_version == x._inplace_version() == 0
    x.add_(1)
    x[0] = 5.0
    x.data.mul_(2)
    assert x._version == x.inplace_version == x._inplace_version() == 3


# ---- error classes ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls, bases", [
    (mg.InplaceError, (RuntimeError, ValueError)), (mg.VersionError, (RuntimeError, ValueError)),
    (mg.BackwardError, (RuntimeError, ValueError)), (mg.ShapeError, (RuntimeError, ValueError)),
    (mg.OverlapError, (RuntimeError, ValueError)), (mg.PlaceError, (RuntimeError, ValueError)),
    (mg.DTypeError, (RuntimeError, TypeError)),
])
def test_error_classes_subclass_what_the_frameworks_raise(cls, bases):
    assert issubclass(cls, mg.MutogradError)
    for b in bases:
        assert issubclass(cls, b)


@pytest.mark.parametrize("trigger, cls", [
    (lambda: _x().add_(1), mg.InplaceError),
    (lambda: mg.ones(3).add_(mg.ones(2)), mg.ShapeError),
    (lambda: mg.tensor([1, 2]).exp_(), mg.DTypeError),
    (lambda: mg.ones(1, 3).expand(2, 3).mul_(2), mg.OverlapError),
    (lambda: mg.ones(2).sum().backward(), mg.BackwardError),
])
def test_existing_except_clauses_catch_our_errors(trigger, cls):
    for clause in (RuntimeError, cls):
        with pytest.raises(clause):
            trigger()
