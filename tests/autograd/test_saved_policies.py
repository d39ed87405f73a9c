"""Saved-tensor policies (``mutograd.autograd.graph``, design.md rule 11): pack/unpack hooks,
``allow_mutation_on_saved_tensors`` (region copies, counted bytes, ``check`` lines),
``increment_version``, in both dialects and against PyTorch where it is installed."""
import operator
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd.autograd.graph import (
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    increment_version,
    save_on_cpu,
    saved_tensors_hooks,
)
from mutograd.errors import VersionError
from tests.helpers import counting


def _torch():
    return pytest.importorskip("torch")


def _run(*args, cwd):
    """``python -m mutograd ...`` with this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(mg.__file__)) + os.pathsep + \
        env.get("PYTHONPATH", "")
    env.pop("MUTOGRAD_STRICT", None)
    return subprocess.run([sys.executable, "-m", "mutograd", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, check=False)


# ---- the module: callable and importable -----------------------------------------------------


def test_graph_is_a_callable_module_in_every_spelling():
    import mutograd.autograd.graph as g
    assert g is mg.autograd.graph
    assert g.saved_tensors_hooks is saved_tensors_hooks
    a = mg.ones([2], requires_grad=True)
    y = (a * 2).exp_()
    assert mg.autograd.graph(y).startswith("tensor [2] float32, version 1\n#1 ExpBackward0")
    assert mg.autograd.graph(y, format="dot") == mg.autograd.graph(y).dot()
    assert mt.autograd.graph.allow_mutation_on_saved_tensors.__wrapped__ is \
        allow_mutation_on_saved_tensors
    import mutograd.compat.paddle as paddle
    assert paddle.autograd.saved_tensors_hooks is saved_tensors_hooks


def test_torch_autograd_graph_imports_as_a_module_under_the_import_hook(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import torch\n"
        "from torch.autograd.graph import (allow_mutation_on_saved_tensors, increment_version,\n"
        "                                  saved_tensors_hooks)\n"
        "a = torch.ones(3, requires_grad=True)\n"
        "with allow_mutation_on_saved_tensors():\n"
        "    b = a.clone()\n"
        "    y = (b ** 2).sum()\n"
        "    b.sin_()\n"
        "    y.backward()\n"
        "print(torch.__name__, a.grad.tolist())\n")
    proc = _run("run", "--as", "torch", str(script), cwd=tmp_path)
    assert proc.stdout == "mutograd.compat.torch [2.0, 2.0, 2.0]\n", proc.stderr


# ---- saved_tensors_hooks -------------------------------------------------------------------


# programs whose nodes save the same tensors in mutograd and PyTorch
HOOK_PROGRAMS = {
    "mul_both": lambda lib, a, b: (a * b).sum(),
    "mul_exp": lambda lib, a, b: (a * b).exp().sum(),
    "sin": lambda lib, a, b: a.sin().sum() + b.sum(),
    "matmul": lambda lib, a, b: (a.reshape(2, 3) @ b.reshape(3, 2)).sum(),
    "sin_in_place": lambda lib, a, b: (a * 1).sin_().sum() + b.sum(),
    "pow_tanh": lambda lib, a, b: (a ** 3).tanh().sum() * b.sum(),
}


def _hooked(lib, program):
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.detach().numpy().copy())
        return ("box", t.detach().clone())

    def unpack(box):
        unpacked.append(box[1].numpy().copy())
        return box[1]

    a = lib.tensor(np.linspace(0.1, 0.6, 6), requires_grad=True)
    b = lib.tensor(np.linspace(-0.5, 0.7, 6), requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = program(lib, a, b)
    n_packed_before_backward = len(packed)
    y.backward()
    return packed, unpacked, n_packed_before_backward, a.grad.numpy(), b.grad.numpy()


def _sorted(arrays):
    return sorted((tuple(np.round(a.ravel(), 12)) for a in arrays))


@pytest.mark.torch
@pytest.mark.parametrize("name", HOOK_PROGRAMS)
def test_pack_and_unpack_calls_and_values_match_pytorch(name):
    torch = _torch()
    torch.set_default_dtype(torch.float64)
    try:
        ref = _hooked(torch, HOOK_PROGRAMS[name])
    finally:
        torch.set_default_dtype(torch.float32)
    got = _hooked(mt, HOOK_PROGRAMS[name])
    assert len(got[0]) == len(ref[0]) and len(got[1]) == len(ref[1])
    assert got[2] == len(got[0])            # every pack happens in the forward
    assert _sorted(got[0]) == _sorted(ref[0])
    assert _sorted(got[1]) == _sorted(ref[1])
    np.testing.assert_allclose(got[3], ref[3], rtol=1e-12)
    np.testing.assert_allclose(got[4], ref[4], rtol=1e-12)


def test_pack_receives_the_saved_tensor_itself_with_grad_mode_off():
    seen = []
    a = mg.ones([3], requires_grad=True)
    h = a * 2
    with saved_tensors_hooks(lambda t: seen.append((t, mg.is_grad_enabled())) or t.detach(),
                             lambda t: t):
        y = a.sin()
        z = h.exp()
    assert [s[0] for s in seen] == [a, z]
    assert [s[1] for s in seen] == [False, False]
    (y.sum() + z.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos(1) + 2 * np.exp(2), rtol=1e-6)


def test_nested_hooks_use_the_innermost_pair_and_restore_the_outer():
    log = []

    def hooks(tag):
        return saved_tensors_hooks(lambda t: log.append(tag) or (tag, t.detach()),
                                   lambda p: log.append("un" + p[0]) or p[1])
    a = mg.ones([2], requires_grad=True)
    with hooks("outer"):
        with hooks("inner"):
            y1 = a.sin()
        y2 = a.cos()
    y3 = a.tanh()           # no hooks: saves its output as usual
    assert log == ["inner", "outer"]
    # (node names as PyTorch prints them: this module imports the torch namespace)
    assert "SinBackward0 saves x (packed by a saved_tensors_hooks pack hook)" in \
        mg.autograd.graph(y1)
    assert "TanhBackward0 saves out v0" in mg.autograd.graph(y3)
    (y1.sum() + y2.sum() + y3.sum()).backward()
    assert sorted(log[2:]) == ["uninner", "unouter"]


def test_hooks_are_per_thread():
    log = []
    a = mg.ones([2], requires_grad=True)
    other = {}

    def work():
        other["y"] = a.sin()
        with saved_tensors_hooks(lambda t: log.append("thread") or t.detach(), lambda t: t):
            other["z"] = a.cos()

    with saved_tensors_hooks(lambda t: log.append("main") or t.detach(), lambda t: t):
        th = threading.Thread(target=work)
        th.start()
        th.join()
        y = a.exp()
    assert log == ["thread", "main"]
    (other["y"].sum() + other["z"].sum() + y.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos(1) - np.sin(1) + np.exp(1), rtol=1e-6)


def test_hooks_apply_to_a_custom_function_and_to_the_copy_an_in_place_op_keeps():
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    packed = []
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: packed.append(t.numpy().copy()) or t.numpy().copy(),
                             lambda arr: mg.tensor(arr)):
        y = Cube.apply(a).sum() + (a * 1).sin_().sum()   # sin_ keeps a copy of a * 1
    assert [p.tolist() for p in packed] == [[1.0, 2.0], [1.0, 2.0]]
    y.backward()
    np.testing.assert_allclose(a.grad.numpy(), 3 * np.array([1.0, 4.0]) + np.cos([1.0, 2.0]),
                               rtol=1e-6)


@pytest.mark.parametrize("unpack, cls, message", [
    (lambda p: 5, TypeError,
     "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"),
    (lambda p: mg.ones([4]), mg.errors.BackwardError,
     "unpack_hook returned a tensor of shape [4] and dtype float32 for a tensor of shape [3]"),
])
def test_an_unpack_hook_that_breaks_the_contract_is_an_error(unpack, cls, message):
    a = mg.ones([3], requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach(), unpack):
        y = a.sin().sum()
    with pytest.raises(cls) as e:
        y.backward()
    assert message in str(e.value)


@pytest.mark.parametrize("keep", ["detach", "itself"])
def test_a_write_into_a_tensor_the_hooks_kept_is_still_the_version_error(keep):
    # PyTorch computes this gradient from the written values (cos(3) instead of cos(2))
    a = mg.ones([3], requires_grad=True)
    b = a * 2
    with saved_tensors_hooks((lambda t: t.detach()) if keep == "detach" else (lambda t: t),
                             lambda t: t):
        y = b.sin().sum()
    b.add_(1)
    with pytest.raises(VersionError, match="modified by an inplace operation") as e:
        y.backward()
    assert e.value.writes[0][1] == "add_"


def test_unpack_runs_at_each_backward_of_a_retained_graph_and_not_after_it_is_freed():
    calls = []
    a = mg.ones([3], requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach(), lambda t: calls.append(1) or t):
        y = a.sin().sum()
    y.backward(retain_graph=True)
    y.backward()
    assert len(calls) == 2
    with pytest.raises(mg.errors.BackwardError, match="backward through the graph a second time"):
        y.backward()


def test_a_packed_copy_is_independent_of_later_writes():
    a = mg.ones([3], requires_grad=True)
    b = a * 2
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = b.sin().sum()
    b.add_(1)
    y.backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.cos(2.0), rtol=1e-6)


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("hooks are off here"):
        with pytest.raises(RuntimeError, match="^hooks are off here$"):
            with save_on_cpu():
                pass
    a = mg.ones([2], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with disable_saved_tensors_hooks("no saving under hooks"):
            a.sum()          # saves nothing: fine
            with pytest.raises(RuntimeError, match="^no saving under hooks$"):
                a.sin()
    with saved_tensors_hooks(lambda t: t, lambda t: t):   # enabled again after the block
        a.sin().sum().backward()


@pytest.mark.torch
def test_disable_saved_tensors_hooks_raises_where_pytorch_does():
    torch = _torch()
    for lib in (torch, mt):
        g = lib.autograd.graph
        with g.disable_saved_tensors_hooks("off"):
            with pytest.raises(RuntimeError, match="off"):
                with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass


def test_save_on_cpu_moves_saved_tensors_off_the_device_and_back(fake_gpu):
    a = mg.tensor([0.5, 1.0, 2.0], requires_grad=True, place="gpu:0")
    kept = []
    with save_on_cpu():
        h = a * 3
        y = (h.sin() * h).sum()
    for node in (y.grad_fn.next[0], y.grad_fn.next[0].next[0]):
        for rec in node.saved.values():
            kept.append(rec.packed[1].place.kind)
    assert kept and set(kept) == {"cpu"}
    y.backward()
    assert a.grad.place.kind == "gpu"
    x = 3 * np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(a.grad.cpu().numpy(), 3 * (np.cos(x) * x + np.sin(x)),
                               rtol=1e-5)


def test_paddle_saved_tensors_hooks():
    import mutograd.compat.paddle as paddle
    packed = []
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with paddle.autograd.saved_tensors_hooks(lambda t: packed.append(1) or t.numpy(),
                                             lambda arr: paddle.to_tensor(arr)):
        y = (x * x).sum()
    y.backward()
    assert packed == [1, 1]
    assert x.grad.numpy().tolist() == [2.0, 4.0]


# ---- allow_mutation_on_saved_tensors: gradients -------------------------------------------


def _setitem(t, idx, v):
    t[idx] = v
    return t


def _view2d_column(lib, b):
    v = b.view(2, 3)
    v[:, 1] = 0
    return b


# (write, whether the loss also uses the written values, whether PyTorch gets it right: its
# context finds the saved tensor by data pointer and version, so it misses a write through a
# view that starts elsewhere than the saved tensor's first element, x[1:3] = v included)
WRITES = {
    "sin_": (lambda lib, b: b.sin_(), True, True),
    "mul_": (lambda lib, b: b.mul_(3), True, True),
    "+=": (lambda lib, b: operator.iadd(b, 1), True, True),
    "-= tensor": (lambda lib, b: operator.isub(b, lib.ones(6)), True, True),
    "setitem slice": (lambda lib, b: _setitem(b, slice(1, 3), 0.5), True, False),
    "setitem list": (lambda lib, b: _setitem(b, [0, 4, 4], 5.0), True, True),
    "setitem mask": (lambda lib, b: _setitem(b, b > 0.3, 0.0), True, True),
    "index_put_ accumulate": (lambda lib, b: b.index_put_((lib.tensor([1, 1, 5]),),
                                                          lib.tensor([1.0, 2.0, 3.0]),
                                                          accumulate=True), True, True),
    "masked_fill_": (lambda lib, b: b.masked_fill_(b < 0.3, -1.0), True, True),
    "copy_": (lambda lib, b: b.copy_(lib.ones(6) * 7), True, True),
    "fill_": (lambda lib, b: b.fill_(2.0), True, True),
    "zero_": (lambda lib, b: b.zero_(), True, True),
    "uniform_": (lambda lib, b: b.uniform_(), False, True),
    "normal_": (lambda lib, b: b.normal_(), False, True),
    "clamp_": (lambda lib, b: b.clamp_(0.2, 0.4), True, True),
    "view then mul_": (lambda lib, b: b[1:4].mul_(2), True, False),
    "view2d column setitem": (_view2d_column, True, False),
    "transposed view add_": (lambda lib, b: b.view(2, 3).t().add_(1), True, True),
    "detach alias zero_": (lambda lib, b: b.detach().zero_(), False, True),
    ".data alias mul_": (lambda lib, b: b.data.mul_(2), False, True),
}


def _mutation_program(lib, write, uses_new, saved):
    """``b`` is saved by mul and sin (``saved`` is identity, or a clone for the oracle), then
    written in place; the loss may also use the written ``b``."""
    a = lib.tensor(np.linspace(0.1, 0.6, 6), requires_grad=True)
    b = a * 1.5
    s = saved(b)
    y = (s * s).sum() + s.sin().sum()
    write(lib, b)
    if uses_new:
        y = y + (b * lib.arange(6.0)).sum()
    y.backward()
    return a.grad.numpy()


@pytest.mark.torch
@pytest.mark.parametrize("name", WRITES)
def test_gradient_after_a_write_matches_pytorch(name):
    torch = _torch()
    write, uses_new, torch_right = WRITES[name]
    torch.set_default_dtype(torch.float64)
    try:
        # the oracle: PyTorch saving a clone, so the write cannot touch what was saved
        expected = _mutation_program(torch, write, uses_new, lambda t: t.clone())
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            torch_ctx = _mutation_program(torch, write, uses_new, lambda t: t)
    finally:
        torch.set_default_dtype(torch.float32)
    with mt.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        got = _mutation_program(mt, write, uses_new, lambda t: t)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # PyTorch's context misses writes through a view of the saved tensor (a silently wrong
    # gradient); elsewhere it agrees
    assert np.allclose(torch_ctx, expected, rtol=1e-12) == torch_right
    assert ctx.nbytes > 0
    # the default is unchanged: the same program outside the context is the version error
    with pytest.raises(VersionError):
        _mutation_program(mt, write, uses_new, lambda t: t)


@pytest.mark.torch
def test_a_write_through_out_matches_pytorch():
    torch = _torch()

    def program(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([4.0, 5.0, 6.0])
        y = (a * w).sum()                 # saves w for a's gradient
        lib.mul(lib.ones(3), 10.0, out=w)
        y.backward()
        return a.grad.numpy()

    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        expected = program(torch)
    with mt.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        got = program(mt)
    assert got.tolist() == expected.tolist() == [4.0, 5.0, 6.0]
    assert ctx.nbytes == 12
    with pytest.raises(VersionError):
        program(mt)


def test_the_loss_may_use_the_saved_value_and_each_later_write():
    a = mg.tensor([0.5, 1.0, 1.5], requires_grad=True)
    with allow_mutation_on_saved_tensors():
        b = a * 1
        y = (b * b).sum()          # 2b
        b.mul_(2)
        y = y + (b * b).sum()      # 2 * 2 * (2b)
        b[0] = 0.0
        y = y + b.exp().sum()      # exp(b) * 2, nothing for b[0]
        y.backward()
    x = np.array([0.5, 1.0, 1.5])
    expected = 2 * x + 8 * x + np.array([0.0, 2 * np.exp(2.0), 2 * np.exp(3.0)])
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)


def test_a_saved_expanded_tensor_gets_every_element_that_shares_the_written_location():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([[1.0], [2.0]], requires_grad=True)
    with allow_mutation_on_saved_tensors() as ctx:
        h = a * 1
        y = (h.expand(2, 3) * w).sum()     # saves the expanded h for w's gradient
        h[1] = 10.0
        y.backward()
    assert w.grad.tolist() == [[6.0], [6.0]]
    assert ctx.nbytes == 8                 # h[1] seen twice in the expanded saved tensor


def test_custom_function_saved_tensors_are_restored():
    class Square(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with allow_mutation_on_saved_tensors() as ctx:
        h = a * 1
        y = Square.apply(h).sum()
        h[1:] = 0.0
        y.backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]
    assert ctx.nbytes == 8


def test_an_optimizer_step_before_backward_keeps_the_old_weight():
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = mg.tensor([[1.0, 1.0]], requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.5)
    w.grad = mg.ones([2, 2])
    with allow_mutation_on_saved_tensors() as ctx:
        y = (x @ w).sum()          # saves w for x's gradient
        opt.step()                 # w changes in place
        y.backward()
    assert x.grad.tolist() == [[3.0, 7.0]]
    assert w.tolist() == [[0.5, 1.5], [2.5, 3.5]]
    assert [c.what for c in ctx.copies] == ["SGD.step"]


def test_writes_that_change_no_saved_value_copy_nothing():
    a = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with allow_mutation_on_saved_tensors() as ctx:
        h = a * 1
        y = (h * h).sum()
        h.data = mg.zeros([4])           # a new buffer: the saved one is untouched
        h.add_(1)                        # writes the new buffer only
        y.backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0, 8.0]
    assert ctx.copies == []


# ---- allow_mutation_on_saved_tensors: copied bytes -----------------------------------------


def _x1000():
    return mg.arange(1000, dtype="float32")


def _ones45():
    return mg.ones([4, 5], dtype="float64")


COPIES = {
    # case: (the saved tensor's values, what saves it, the writes, bytes copied)
    "two elements": (_x1000, lambda x: (x * x).sum(),
                     lambda x: _setitem(x, slice(2, 4), 0.0), 8),
    "every tenth": (_x1000, lambda x: x.sin().sum(),
                    lambda x: _setitem(x, slice(None, None, 10), 1.0), 400),
    "repeated list index": (_x1000, lambda x: x.sin().sum(),
                            lambda x: _setitem(x, [1, 5, 5, 1], 0.0), 8),
    "boolean mask": (_x1000, lambda x: x.sin().sum(),
                     lambda x: _setitem(x, x.detach() >= 990, 0.0), 40),
    "overlapping writes count each element once": (
        _x1000, lambda x: x.sin().sum(),
        lambda x: (_setitem(x, slice(2, 4), 0.0), _setitem(x, slice(3, 6), 1.0)), 16),
    "whole tensor after a part": (_x1000, lambda x: x.sin().sum(),
                                  lambda x: (_setitem(x, slice(0, 10), 0.0), x.mul_(2)), 4000),
    "float64 column": (_ones45, lambda x: x.sin().sum(),
                       lambda x: _setitem(x, (slice(None), 1), 0.0), 32),
    "transposed view row": (_ones45, lambda x: x.sin().sum(), lambda x: x.t()[1].zero_(), 32),
    "saved view, base written elsewhere": (_x1000, lambda x: x[:10].sin().sum(),
                                           lambda x: _setitem(x, slice(500, None), 0.0), 0),
    "saved view, base written across it": (_x1000, lambda x: x[:10].sin().sum(),
                                           lambda x: _setitem(x, slice(5, 15), 0.0), 20),
    "strided saved view": (lambda: mg.ones([6, 4]), lambda x: x[:, ::2].t().sin().sum(),
                           lambda x: x[1:3].fill_(2.0), 16),
    "saved by two nodes": (_x1000, lambda x: (x * x).sum() + x.sin().sum(),
                           lambda x: _setitem(x, 7, 0.0), 4),
    "through detach": (_x1000, lambda x: x.sin().sum(),
                       lambda x: x.detach()[990:].zero_(), 40),
    "through .data": (_x1000, lambda x: x.sin().sum(), lambda x: x.data[:3].add_(1), 12),
    "out=": (_x1000, lambda x: x.sin().sum(),
             lambda x: mg.add(mg.ones([1000]), 1, out=x.detach()), 4000),
}


@pytest.mark.parametrize("case", COPIES)
def test_a_write_copies_exactly_the_saved_elements_it_overwrites(case):
    values, use, write, nbytes = COPIES[case]
    leaf = values().requires_grad_()
    before = mg.memory.stats()["saved_mutation.copied_bytes"]
    with allow_mutation_on_saved_tensors() as ctx:
        x = leaf * 1
        y = use(x)
        with counting() as c:
            write(x)
        assert c["bytes"] == nbytes          # the kept values are a counted storage
        y.backward()
    assert ctx.nbytes == nbytes
    assert mg.memory.stats()["saved_mutation.copied_bytes"] - before == nbytes
    # backward saw the values as saved: the gradient of the same program without the write
    fresh = values().requires_grad_()
    use(fresh * 1).backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), fresh.grad.numpy())


def test_the_kept_values_are_freed_with_the_node():
    x = _x1000().requires_grad_() * 1
    with allow_mutation_on_saved_tensors():
        y = x.sin().sum()
        before = mg.memory.allocated()
        x[0:100] = 0.0
        assert mg.memory.allocated() - before == 400
        y.backward()                     # frees the node's saved values and the kept copy
        assert mg.memory.allocated() == before + 4000    # less the leaf's new .grad
        with counting() as c:
            x[100:200] = 0.0             # nothing saved any more: nothing copied
        assert c["bytes"] == 0


# ---- allow_mutation_on_saved_tensors: scope, nesting, threads ------------------------------


def test_outside_the_context_a_write_into_a_saved_tensor_is_still_the_version_error():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    y = (h * h).sum()
    h[0] = 5.0
    with pytest.raises(VersionError) as e:
        y.backward()
    assert "is at version 1; expected version 0 instead" in str(e.value)
    assert "x[index] = value (index_put_) at " in str(e.value)


@pytest.mark.torch
def test_a_tensor_saved_before_the_context_is_not_protected_inside_it_as_in_pytorch():
    torch = _torch()
    for lib in (torch, mt):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        h = a * 1
        y = (h * h).sum()
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            h.mul_(2)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.backward()


def test_what_was_saved_inside_stays_protected_after_the_block():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    with allow_mutation_on_saved_tensors() as ctx:
        h = a * 1
        y = (h * h).sum()
    h.mul_(3)                        # after the block: still copied (PyTorch raises at backward)
    text = mg.autograd.graph(y)
    assert "saves x v0 written since (now v1); 8 bytes kept to restore it" in text
    y.backward()
    assert a.grad.tolist() == [2.0, 4.0]
    assert ctx.nbytes == 8


def test_nested_contexts_each_log_what_was_saved_inside_them():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with allow_mutation_on_saved_tensors() as outer:
        h = a * 1
        y = h.sin().sum()
        with allow_mutation_on_saved_tensors() as inner:
            g = a * 2
            z = g.cos().sum()
            g.zero_()
        h[0] = 0.0
        (y + z).backward()
    assert (outer.nbytes, inner.nbytes) == (4, 12)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(a.grad.numpy(), np.cos(x) - 2 * np.sin(2 * x), rtol=1e-6)


def test_the_context_is_per_thread():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = {}

    def work():
        h = a * 1
        out["y"] = (h * h).sum()
        out["h"] = h

    with allow_mutation_on_saved_tensors():
        th = threading.Thread(target=work)
        th.start()
        th.join()
        out["h"].add_(1)             # saved in a thread without the policy: not protected
        with pytest.raises(VersionError):
            out["y"].backward()


def test_writes_from_another_thread_are_copied_too():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    with allow_mutation_on_saved_tensors():
        h = a * 1
        y = (h * h).sum()
    th = threading.Thread(target=lambda: h.add_(1))
    th.start()
    th.join()
    y.backward()
    assert a.grad.tolist() == [2.0, 4.0]


def test_metadata_and_storage_writes_need_no_copy():
    a = mg.ones([2, 3], requires_grad=True)
    with allow_mutation_on_saved_tensors() as ctx:
        h = a * 2
        y = (h * h).sum()
        h.t_()                                    # a new shape, the same values
        h.data = mg.zeros([3, 2])                 # a new buffer
        y.backward()
    assert a.grad.tolist() == [[8.0] * 3] * 2
    assert ctx.copies == []


# ---- increment_version -----------------------------------------------------------------------


@pytest.mark.torch
def test_increment_version_bumps_like_pytorch():
    torch = _torch()
    for lib in (torch, mt):
        t, u = lib.zeros(2), lib.zeros(2)
        v = t[1:]
        lib.autograd.graph.increment_version(t)
        lib.autograd.graph.increment_version([t, u])
        assert (t._version, v._version, u._version) == (2, 2, 1)


def test_increment_version_is_a_write_no_copy_can_cover():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    with allow_mutation_on_saved_tensors():
        h = a * 1
        y = (h * h).sum()
        h.numpy()[0] = 7.0           # behind autograd's back ...
        increment_version(h)         # ... and said so: the old value is gone
        with pytest.raises(VersionError) as e:
            y.backward()
    assert "increment_version at " in str(e.value)


# ---- python -m mutograd check --------------------------------------------------------------


def test_check_lists_each_copy_with_the_line_of_the_write(tmp_path):
    src = ("import mutograd as mg\n"
           "from mutograd.autograd.graph import allow_mutation_on_saved_tensors\n"
           "a = mg.ones([1000], requires_grad=True)\n"
           "with allow_mutation_on_saved_tensors():\n"
           "    x = a * 1\n"
           "    y = (x * x).sum()\n"
           "    x[2:4] = 0\n"
           "    x.mul_(2)\n"
           "    y.backward()\n")
    path = tmp_path / "script.py"
    path.write_text(src)
    proc = _run("check", str(path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "mutograd check: 2 write(s) into saved tensors copied 4000 bytes "
        "(allow_mutation_on_saved_tensors):\n"
        f"  copy: x[index] = value (index_put_) at {path}:7 copied 8 bytes of a tensor of shape "
        f"[1000] and dtype float32 saved at {path}:6\n"
        "      x[2:4] = 0\n"
        f"  copy: mul_ at {path}:8 copied 3992 bytes of a tensor of shape [1000] and dtype "
        f"float32 saved at {path}:6\n"
        "      x.mul_(2)\n"
        f"mutograd check: {path} ran clean under strict and anomaly mode; 2 in-place writes seen "
        "(index_put_: 1, mul_: 1)\n")


@pytest.mark.parametrize("name", ["mutograd.autograd.saved", "mutograd.autograd.graph"])
def test_docstring_examples(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
