"""PyTorch's autograd API around modes and modules (issue 27 item 3): grad-mode decorators on
generators and coroutines, inference tensors and their rules, activation checkpointing (both
forms, hooks firing once, PyTorch 2.13's warnings) and Module backward hooks.

As in tests/autograd/test_autograd_hooks_api.py, each program takes a namespace and returns plain
values: compared with the recording without PyTorch, and the recording with PyTorch (marked
``torch``).
"""
import asyncio
import warnings

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt


def _v(t):
    if t is None:
        return None
    return [round(float(v), 4) for v in np.asarray(t.detach().tolist(), dtype=float).ravel()]


def _error(f):
    try:
        return f()
    except (RuntimeError, TypeError, ValueError) as e:
        return str(e).split(": ")[0][:60]


# ---- grad-mode decorators -------------------------------------------------------------------
def generator_decorators(L):
    seen = []

    def mode(tag):
        seen.append((tag, L.is_grad_enabled()))

    @L.no_grad()
    def gen():
        mode("first")
        got = yield 1
        mode(f"got {got}")
        try:
            yield 2
        except ValueError:
            mode("thrown")
            yield 3
        return "done"

    it = gen()
    mode("before")
    next(it)
    mode("between")
    it.send("s")
    it.throw(ValueError("v"))
    mode("after throw")
    try:
        next(it)
    except StopIteration as stop:
        seen.append(stop.value)

    @L.enable_grad()
    def on():
        mode("enable_grad inside")
        yield

    with L.no_grad():
        for _ in on():
            mode("no_grad outside")

    @L.set_grad_enabled(False)
    def off():
        mode("set_grad_enabled inside")
        yield

    for _ in off():
        mode("outside")

    @L.inference_mode()
    def inf():
        seen.append(("inference inside", L.is_inference_mode_enabled()))
        yield

    for _ in inf():
        seen.append(("inference outside", L.is_inference_mode_enabled()))

    @L.no_grad
    def bare():
        mode("no parentheses")
        yield

    for _ in bare():
        mode("outside")
    it = gen()
    next(it)
    it.close()
    mode("after close")
    return seen


# ---- inference tensors ----------------------------------------------------------------------
def inference_rules(L):
    with L.inference_mode():
        t = L.ones(3)
        view = t[:2]
        t.add_(1)                                   # inside the mode: allowed
        made_rg = L.ones(2, requires_grad=True).is_inference()
    w = L.ones(3, requires_grad=True)
    n = L.ones(3)
    with L.inference_mode():
        normal_view = n.view(3).is_inference()
        n.add_(1)
    return {
        "save": _error(lambda: (w * t).sum()),
        "no save": _v(t.exp()),
        "add, saving nothing": _error(lambda: (w + t).sum().backward()),
        "in place": _error(lambda: t.add_(1)),
        "through a view": _error(lambda: view.mul_(2)),
        "setitem": _error(lambda: t.__setitem__(0, 5.0)),
        "copy_": _error(lambda: t.copy_(L.ones(3))),
        "under no_grad": _error(lambda: L.no_grad()(lambda: t.add_(1))()),
        "requires_grad_": _error(lambda: t.requires_grad_()),
        "version": _error(lambda: t._version),
        "is_inference": [t.is_inference(), t.view(3).is_inference(), t.detach().is_inference(),
                         t.clone().is_inference(), normal_view, made_rg, n.is_inference()],
    }


# ---- checkpointing --------------------------------------------------------------------------
def checkpoint_hooks(L, reentrant):
    w = L.tensor([2.0, -1.0], requires_grad=True)
    calls = {"leaf": 0, "inner": 0, "post_acc": 0, "forward": 0, "module": 0}

    def count(key):
        calls[key] += 1
    w.register_hook(lambda g: count("leaf"))
    w.register_post_accumulate_grad_hook(lambda t: count("post_acc"))
    lin = L.nn.Linear(2, 2)
    with L.no_grad():
        lin.weight.copy_(L.tensor([[1.0, -2.0], [0.5, 3.0]]))
        lin.bias.fill_(0.1)
    lin.register_forward_hook(lambda *a: count("forward"))
    lin.register_full_backward_hook(lambda *a: count("module"))

    def f(x):
        h = (x * w).exp()
        if h.requires_grad:
            h.register_hook(lambda g: count("inner"))
        return lin(h).sum() * x.sum()

    x = L.tensor([0.5, 0.25], requires_grad=True)
    checkpoint = L.utils.checkpoint.checkpoint
    checkpoint(f, x, use_reentrant=reentrant).backward()
    # each hook once per backward; forward hooks also run when the segment is recomputed
    res = {"calls": dict(calls), "x.grad": _v(x.grad), "w.grad": _v(w.grad)}
    x2 = L.tensor([0.5, 0.25], requires_grad=True)
    res["grad()"] = _error(lambda: _v(L.autograd.grad(checkpoint(f, x2, use_reentrant=reentrant),
                                                      x2)[0]))
    x3 = L.tensor([0.5, 0.25], requires_grad=True)
    h3 = x3 * 1
    y3 = checkpoint(lambda t: (t * t).exp().sum(), h3, use_reentrant=reentrant)
    h3.add_(1)
    res["input written"] = _error(lambda: y3.backward())
    x4 = L.tensor([0.5, 0.25], requires_grad=True)
    y4 = checkpoint(lambda t: (t * t).exp().sum(), x4, use_reentrant=reentrant)
    y4.backward(retain_graph=True)
    y4.backward()
    res["twice"] = _v(x4.grad)
    return res


def checkpoint_arguments(L):
    checkpoint = L.utils.checkpoint.checkpoint
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpoint(lambda t: t * 2, L.ones(2, requires_grad=True))
        checkpoint(lambda t: t * 2, L.ones(2), use_reentrant=True)
        checkpoint(lambda t: t * 2, L.ones(2), use_reentrant=False)
    x = L.ones(1, requires_grad=True)
    return ([str(w.message)[:80] for w in caught],
            _error(lambda: checkpoint(lambda t, s: t * s, x, s=2, use_reentrant=True)),
            _v(checkpoint(lambda t, s: t * s, x, s=2, use_reentrant=False)))


def checkpoint_create_graph(L):
    x = L.tensor([0.5, 0.25], requires_grad=True)
    y = L.utils.checkpoint.checkpoint(lambda t: (t ** 3).sum(), x, use_reentrant=False)
    (g,) = L.autograd.grad(y, x, create_graph=True)
    return _v(g), _v(L.autograd.grad(g.sum(), x)[0])


# ---- module backward hooks ------------------------------------------------------------------
def module_backward_hooks(L):
    lin = L.nn.Linear(2, 1)
    with L.no_grad():
        lin.weight.copy_(L.tensor([[1.0, -2.0]]))
        lin.bias.fill_(0.5)
    seen = []
    lin.register_full_backward_pre_hook(lambda m, go: seen.append(("pre", [_v(g) for g in go])))
    handle = lin.register_full_backward_hook(
        lambda m, gi, go: seen.append(("full", [_v(g) for g in gi], [_v(g) for g in go])))
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (lin(x) * L.tensor([[1.0], [2.0]])).sum().backward()
    res = {"seen": seen[:], "x.grad": _v(x.grad), "weight.grad": _v(lin.weight.grad)}
    handle.remove()
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x.grad = None
    lin(x).sum().backward()
    res["replaced"] = _v(x.grad)

    class Three(L.nn.Module):
        def forward(self, a, b, k=None):
            return a * b, a + 1, 3

    m = Three()
    got = []
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2, go[1], None))
    m.register_full_backward_hook(
        lambda mod, gi, go: got.append(([_v(g) for g in gi], [_v(g) for g in go])))
    a = L.tensor([1.0, 2.0], requires_grad=True)
    p, q, r = m(a, L.tensor([3.0, 4.0]), k=5)
    p.sum().backward()
    res["tuple"] = (got, _v(a.grad), q.requires_grad, r)
    no_input = []
    lin2 = L.nn.Linear(2, 1)
    lin2.register_full_backward_hook(lambda mod, gi, go: no_input.append(gi))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lin2(L.ones(1, 2)).sum().backward()
    res["no input requires grad"] = no_input
    res["mixing"] = _error(lambda: lin2.register_backward_hook(lambda *a: None))
    seq = L.nn.Sequential(L.nn.Linear(2, 3), L.nn.Tanh(), L.nn.Linear(3, 1))
    order = []
    for i, sub in enumerate(seq):
        sub.register_full_backward_hook(
            lambda mod, gi, go, i=i: order.append((i, [None if g is None else list(g.shape)
                                                       for g in gi])))
    seq(L.ones(4, 2)).sum().backward()
    res["order"] = order
    return res


PROGRAMS = {
    "generator_decorators": (generator_decorators, [
        ("before", True), ("first", False), ("between", True), ("got s", False),
        ("thrown", False), ("after throw", True), "done", ("enable_grad inside", True),
        ("no_grad outside", False), ("set_grad_enabled inside", False), ("outside", True),
        ("inference inside", True), ("inference outside", False), ("no parentheses", False),
        ("outside", True), ("first", False), ("after close", True)]),
    "inference_rules": (inference_rules, {
        "save": "Inference tensors cannot be saved for backward. Please do no",
        "no save": [7.3891, 7.3891, 7.3891], "add, saving nothing": None,
        "in place": "Inplace update to inference tensor outside InferenceMode is ",
        "through a view": "Inplace update to inference tensor outside InferenceMode is ",
        "setitem": "Inplace update to inference tensor outside InferenceMode is ",
        "copy_": "Inplace update to inference tensor outside InferenceMode is ",
        "under no_grad": "Inplace update to inference tensor outside InferenceMode is ",
        "requires_grad_": "Setting requires_grad=True on inference tensor outside Infer",
        "version": "Inference tensors do not track version counter.",
        "is_inference": [True, True, True, False, False, True, False]}),
    "checkpoint_reentrant": (lambda L: checkpoint_hooks(L, True), {
        "calls": {"leaf": 1, "inner": 1, "post_acc": 1, "forward": 2, "module": 1},
        "x.grad": [11.1724, 4.4721], "w.grad": [1.529, 0.146],
        "grad()": "When use_reentrant=True, torch.utils.checkpoint is incompati",
        "input written": "one of the variables needed for gradient computation has bee",
        "twice": [2.5681, 1.0645]}),
    "checkpoint_non_reentrant": (lambda L: checkpoint_hooks(L, False), {
        "calls": {"leaf": 1, "inner": 1, "post_acc": 1, "forward": 2, "module": 1},
        "x.grad": [11.1724, 4.4721], "w.grad": [1.529, 0.146], "grad()": [11.1724, 4.4721],
        "input written": "one of the variables needed for gradient computation has bee",
        "twice": [2.5681, 1.0645]}),
    "checkpoint_arguments": (checkpoint_arguments, (
        ["torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
         "None of the inputs have requires_grad=True. Gradients will be None"],
        "Unexpected keyword arguments", [2.0])),
    "checkpoint_create_graph": (checkpoint_create_graph, ([0.75, 0.1875], [3.0, 1.5])),
    "module_backward_hooks": (module_backward_hooks, {
        "seen": [("pre", [[1.0, 2.0]]), ("full", [[1.0, -2.0, 2.0, -4.0]], [[1.0, 2.0]])],
        "x.grad": [1.0, -2.0, 2.0, -4.0], "weight.grad": [7.0, 10.0],
        "replaced": [10.0, -20.0, 10.0, -20.0],
        # zeros for b, which does not require grad (PyTorch's materialized gradient)
        "tuple": ([([[6.0, 8.0], [0.0, 0.0]], [[2.0, 2.0], None, None])], [6.0, 8.0], True, 3),
        "no input requires grad": [(None,)],
        "mixing": "Cannot use both regular backward hooks and full backward hoo",
        "order": [(2, [[4, 3]]), (1, [[4, 3]]), (0, [None])]}),
}

_TORCH_DIFFERS = {}     # (program, key): PyTorch's value where ours differs on purpose


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_gives_pytorchs_result(name):
    program, want = PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert program(mt) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_recorded_result_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    program, want = PROGRAMS[name]
    if isinstance(want, dict):
        want = {k: _TORCH_DIFFERS.get((name, k), v) for k, v in want.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert program(torch) == want


# ---- mutograd's own ---------------------------------------------------------------------------
def test_a_decorated_coroutine_runs_in_the_mode_at_each_step():
    # PyTorch sets the mode only while the coroutine object is made; here each step of its
    # body runs in it, and the event loop's other tasks run in theirs
    seen = []

    @mg.no_grad()
    async def work():
        seen.append(("work", mg.is_grad_enabled()))
        await asyncio.sleep(0)
        seen.append(("work again", mg.is_grad_enabled()))
        return 7

    async def main():
        task = asyncio.ensure_future(work())
        await asyncio.sleep(0)
        seen.append(("main", mg.is_grad_enabled()))
        return await task

    assert asyncio.run(main()) == 7
    assert seen == [("work", False), ("main", True), ("work again", False)]


def test_a_refused_write_into_an_inference_tensor_changes_nothing():
    # PyTorch writes, then raises; here the values are unchanged (design.md rule 10)
    with mg.inference_mode():
        t = mg.ones([3])
    with pytest.raises(mg.InplaceError):
        t.add_(1)
    with pytest.raises(mg.InplaceError):
        t[0] = 5.0
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_native_checkpoint_defaults_to_the_reentrant_form_without_a_warning():
    from mutograd.autograd import checkpoint
    x = mg.ones([2], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint(lambda t: (t * t).sum(), x)
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_a_recomputation_that_saves_differently_is_refused():
    from mutograd.autograd.recompute import CheckpointError, checkpoint
    x = mg.ones([2], requires_grad=True)
    calls = []

    def f(t):
        calls.append(1)
        return (t * t).sum() if len(calls) == 1 else (t * t * t).sum()
    y = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="different number of tensors"):
        y.backward()


def test_set_materialize_grads_false_gives_none_for_an_output_without_gradient():
    got = []

    class Two(mg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, ga, gb):
            got.append(gb)
            return ga * 2

    a = mg.ones([2], requires_grad=True)
    p, _ = Two.apply(a)
    p.sum().backward()
    assert got == [None] and a.grad.tolist() == [2.0, 2.0]


def test_node_hooks_module_hooks_and_checkpointing_on_a_device(fake_gpu):
    # hooks see tensors on the gradient's place; a several-output Function packs there
    x = mg.tensor([1.0, 2.0], requires_grad=True, place="gpu:0")
    y = x * 3
    places = []
    y.grad_fn.register_prehook(lambda go: places.append(str(go[0].place)) or (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: places.append(str(gi[0].place)))

    class Two(mg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb * 3

    p, q = Two.apply(y)
    p.grad_fn.register_prehook(lambda go: (go[0] * 10, go[1]))
    from mutograd.autograd.recompute import checkpoint
    checkpoint(lambda t: (t * t).sum(), p, use_reentrant=False).backward()
    assert places == ["gpu:0", "gpu:0"] and str(x.grad.place) == "gpu:0"
    # d/dp (p.p) = 2p = 12x, times 10 (pre-hook), times 2 (backward), times 2 (pre-hook), 3
    np.testing.assert_allclose(x.grad.cpu().numpy(), 12 * np.array([1.0, 2.0]) * 10 * 2 * 2 * 3)
    lin = mg.nn.Linear(2, 1).to("gpu:0")
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(str(gi[0].place)))
    lin(mg.ones([3, 2], requires_grad=True, place="gpu:0")).sum().backward()
    assert seen == ["gpu:0"]
