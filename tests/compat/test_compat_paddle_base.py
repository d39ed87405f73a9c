"""``paddle.base`` as a package with the names Paddle's own tests import (``core``,
``wrapped_decorator``, ``framework``, ``dygraph``, ``unique_name``), and hooks and
``no_grad_vars`` in Paddle's double-grad programs (test/legacy_test/
test_imperative_double_grad.py and test_tensor_register_hook.py)."""
import numpy as np
import pytest

import mutograd.compat as compat
import mutograd.compat.paddle as paddle

with compat.importing_as("paddle"):
    import paddle.nn.functional as F
    from paddle import base
    from paddle.base import core, unique_name
    from paddle.base.dygraph.base import to_variable
    from paddle.base.framework import in_dygraph_mode, in_pir_mode, use_pir_api
    from paddle.base.wrapped_decorator import signature_safe_contextmanager, wrap_decorator


def test_the_names_paddles_tests_import():
    assert base.in_dygraph_mode() and in_dygraph_mode() and not in_pir_mode()
    assert not use_pir_api()
    assert core.is_compiled_with_cuda() == paddle.is_compiled_with_cuda()
    assert not core.is_compiled_with_rocm() and not core.is_compiled_with_xpu()
    assert core.VarDesc.VarType.FP32 == paddle.float32 == core.DataType.FLOAT32
    assert isinstance(paddle.ones([1]), core.eager.Tensor) and base.Tensor is core.eager.Tensor
    assert base.CPUPlace() == paddle.CPUPlace()
    with base.dygraph.guard():
        x = to_variable(np.ones(2, "float32"))
    assert x.tolist() == [1.0, 1.0] and base.dygraph.base.enabled()
    base.set_flags({"FLAGS_sort_sum_gradient": True})
    assert base.get_flags("FLAGS_sort_sum_gradient") == {"FLAGS_sort_sum_gradient": True}
    with pytest.raises(RuntimeError, match="eagerly"):
        base.disable_dygraph()


def test_wrapped_decorators_keep_the_signature():
    def twice(func):
        def run(*args, **kwargs):
            return 2 * func(*args, **kwargs)
        return run

    @wrap_decorator(twice)
    def f(a, b=1):
        """Doc."""
        return a + b
    assert f(1) == 4 and f.__name__ == "f" and f.__doc__ == "Doc."

    @signature_safe_contextmanager
    def cm(log):
        log.append("in")
        yield 5
        log.append("out")
    log = []
    with cm(log) as v:
        assert v == 5
    assert log == ["in", "out"]


def test_unique_names():
    with unique_name.guard():
        assert [unique_name.generate("fc"), unique_name.generate("fc")] == ["fc_0", "fc_1"]
    with unique_name.guard("pre_"):
        assert unique_name.generate("fc") == "pre_fc_0"


def test_backward_final_hook_runs_once_after_the_next_backward():
    calls = []
    core.eager._add_backward_final_hook(lambda: calls.append(1))
    x = paddle.to_tensor([1.0], stop_gradient=False)
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert calls == [1]


def _random(shape):
    return paddle.to_tensor(np.random.default_rng(0).uniform(-1, 1, shape).astype("float32"))


def test_no_grad_vars_in_a_double_grad():
    x = _random([5, 10])
    x.stop_gradient = False
    y1, y2 = F.relu(x), F.relu(x)
    w_mean = paddle.mean((y1 + y2) * (y1 + y2))
    (dx,) = base.dygraph.grad([w_mean], [x], create_graph=True, no_grad_vars=[y2])
    assert not y2.stop_gradient and not dx.stop_gradient
    xs = x.numpy()
    want = 1.0 / xs.size * (np.maximum(xs, 0) + y2.numpy()) * (xs > 0) * 2
    np.testing.assert_allclose(dx.numpy(), want, rtol=1e-5)


def test_gradient_accumulation_with_create_graph():
    x = _random([5, 10])
    xs, n = x.numpy(), x.numpy().size
    x.stop_gradient = False
    (dx,) = base.dygraph.grad([paddle.mean((F.relu(x) + 1) ** 2)], [x], create_graph=True)
    dx_want = 1.0 / n * (np.maximum(xs, 0) + 1) * (xs > 0) * 2
    np.testing.assert_allclose(dx.numpy(), dx_want, rtol=1e-5)
    loss = paddle.mean(dx * dx + x * x)
    for i in range(3):
        loss.backward(retain_graph=True)
        want = (i + 1) * 2.0 / n * (xs + dx_want * (xs > 0) * 2 / n)
        np.testing.assert_allclose(x.gradient(), want, rtol=1e-5)


def test_a_tensor_hook_runs_in_paddle_grad():
    x1 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    x2 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    out1, out2 = x1 * 2, x2 * 2
    seen = []
    out2.register_hook(lambda g: seen.append(g.numpy()))
    out4 = paddle.mean(paddle.multiply(out1, out2))
    d2, _ = paddle.grad([out4], [out2, out1])
    np.testing.assert_array_equal(seen[0], [1.0, 2.0])
    np.testing.assert_array_equal(d2.numpy(), [1.0, 2.0])


def test_register_hook_on_a_gradient_made_with_create_graph():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (dx,) = paddle.grad([(x * x * x).sum()], [x], create_graph=True)   # 3 x^2
    handle = dx.register_hook(lambda g: g * 3)
    dx.sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 3 * 6 * np.array([1.0, 2.0]))
    assert handle.remove() and not handle.remove()
    x.clear_grad()
    dx.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.array([1.0, 2.0]))
