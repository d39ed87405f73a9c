"""PyTorch's autograd API around the graph (issue 27 item 3): node hooks, next_functions, saved
values, gradient edges, multi-grad hooks, backward(inputs=...), grad()'s inputs and hooks, the
second backward through freed values, and second-order nodes in errors.

Each program takes a namespace (``mutograd.compat.torch`` or ``torch``) and returns what it
saw as plain Python values. The tests without PyTorch compare mutograd with the recorded
result; the ``torch``-marked ones check that the recording is what PyTorch 2.13 gives.
"""
import re

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt


def _v(t):
    """A tensor's values, rounded (None stays None)."""
    if t is None:
        return None
    return [round(float(v), 5) for v in np.asarray(t.detach().tolist(), dtype=float).ravel()]


def _vs(ts):
    return tuple(_v(t) for t in ts)


def _error(f):
    """The start of the message ``f()`` raises (RuntimeError or TypeError), or its result."""
    try:
        return f()
    except (RuntimeError, TypeError) as e:
        return str(e)


# ---- programs --------------------------------------------------------------------------------
def node_hooks_order(L):
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    acc = y.grad_fn.next_functions[0][0]
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(("post", _vs(gi), _vs(go))))
    y.grad_fn.register_prehook(lambda go: seen.append(("pre", _vs(go))))
    acc.register_hook(lambda gi, go: seen.append(("acc_post", _vs(gi), _vs(go))))
    acc.register_prehook(lambda go: seen.append(("acc_pre", _vs(go))))
    x.register_hook(lambda g: seen.append(("leaf", _v(g))))
    y.register_hook(lambda g: seen.append(("tensor", _v(g))))
    x.register_post_accumulate_grad_hook(lambda t: seen.append(("post_acc", _v(t.grad))))
    z.backward()
    return seen


def node_hooks_replace(L):
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    seen = []
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    y.grad_fn.register_hook(lambda gi, go: seen.append(_vs(go)) or (gi[0] + 1, None))
    handle = y.grad_fn.register_prehook(lambda go: (go[0] * 100,))
    handle.remove()
    z.backward()
    return seen, _v(x.grad)


def node_hook_errors(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    res = []
    for kind, hook in [("pre", lambda go: go[0]), ("pre", lambda go: (go[0], go[0])),
                       ("pre", lambda go: (go[0][:1],)),
                       ("post", lambda gi, go: (gi[0][:1], None))]:
        y = x * 2
        getattr(y.grad_fn, "register_prehook" if kind == "pre" else "register_hook")(hook)
        res.append(_error(lambda: y.sum().backward()))
    return res


def node_hooks_create_graph(L):
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append((_vs(gi), gi[0].requires_grad)))
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = L.autograd.grad(g.sum(), x)   # through the hook's doubling, recorded
    return seen, _v(g), _v(h)


def custom_function_node_hooks(L):
    class Two(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2, b * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2, gb * 3

    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0], requires_grad=True)
    p, q = Two.apply(a, b)
    seen = []
    p.grad_fn.register_prehook(lambda go: seen.append(("pre", _vs(go))))
    p.grad_fn.register_hook(lambda gi, go: seen.append(("post", _vs(gi), _vs(go))))
    p.sum().backward()
    return (seen, p.grad_fn.name(), q.grad_fn.name(), p.output_nr, q.output_nr,
            [(n.name(), i) for n, i in (p * q).sum().grad_fn.next_functions[0][0].next_functions])


def copy_slices_hooks(L):
    x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
    h = x * 1
    h[1:].mul_(2)
    seen = []
    h.grad_fn.register_prehook(lambda go: seen.append(("pre", _vs(go))))
    h.grad_fn.register_hook(lambda gi, go: seen.append(("post", _vs(gi))))
    (h * h).sum().backward()
    return seen, _v(x.grad)


def next_functions(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    acc = y.grad_fn.next_functions[0][0]
    return ([(type(n).__name__ if n is not None else None, i)
             for n, i in y.grad_fn.next_functions],
            acc is y.grad_fn.next_functions[0][0], acc.variable is x, acc.next_functions,
            acc is (x + 1).grad_fn.next_functions[0][0], x.output_nr,
            isinstance(y.grad_fn, L.autograd.graph.Node), isinstance(acc, L.autograd.graph.Node))


def saved_values(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    w = x * x
    y = x * 3
    e = x.exp()
    p = x ** 2
    h = x * 2
    z = h * h
    return (w.grad_fn._saved_self is x, _v(w.grad_fn._saved_other), _v(y.grad_fn._saved_other),
            y.grad_fn._saved_self, _v(e.grad_fn._saved_result),
            e.grad_fn._saved_result.grad_fn is e.grad_fn,
            hasattr(e.grad_fn, "_saved_self"),
            _v(p.grad_fn._saved_self), int(p.grad_fn._saved_exponent),
            z.grad_fn._saved_self.grad_fn is h.grad_fn,
            tuple(x.sum().grad_fn._saved_self_sym_sizes))


def saved_values_freed_and_stale(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = x * x
    a.sum().backward()
    freed = _error(lambda: a.grad_fn._saved_self)
    h = x * 1
    c = h * h
    h.add_(1)
    stale = _error(lambda: c.grad_fn._saved_self)
    return freed, stale


def raw_saved_hooks(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = x * x
    raw = a.grad_fn._raw_saved_self
    log = []

    def pack(t):
        log.append(("pack", _v(t)))
        return t * 1

    def unpack(t):
        log.append(("unpack", _v(t)))
        return t
    raw.register_hooks(pack, unpack)
    again = _error(lambda: raw.register_hooks(pack, unpack))
    a.sum().backward()
    return log, again, _v(x.grad)


def custom_function_node_attributes(L):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            ctx.k = 5
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2

    x = L.tensor([1.0, 2.0], requires_grad=True)
    o = F.apply(x)
    res = (o.grad_fn.k, _v(o.grad_fn.saved_tensors[0]), o.grad_fn.needs_input_grad,
           len(o.grad_fn._raw_saved_tensors))
    o.sum().backward()
    return res, _error(lambda: o.grad_fn.saved_tensors), _error(lambda: o.sum().backward())


def gradient_edges(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    edge = L.autograd.graph.get_gradient_edge(y)
    leaf_edge = L.autograd.graph.get_gradient_edge(x)
    z = (y * y).sum()
    (gy,) = L.autograd.grad(z, edge, retain_graph=True)
    (gx,) = L.autograd.grad(z, [leaf_edge], retain_graph=True)
    made = L.autograd.graph.GradientEdge(y.grad_fn, 0)
    (gm,) = L.autograd.grad(z, made, retain_graph=True)
    (go,) = L.autograd.grad([edge], [x], grad_outputs=[L.ones(2)])
    # one GradientEdge as the output (it is a named tuple: not a sequence of outputs)
    (ge,) = L.autograd.grad(L.autograd.graph.get_gradient_edge(x * 5), x, grad_outputs=L.ones(2))
    return (edge.node is y.grad_fn, edge.output_nr, type(leaf_edge.node).__name__,
            leaf_edge.node.variable is x, _v(gy), _v(gx), _v(gm), _v(go), _v(ge))


def leaf_nodes(L):
    """A leaf's AccumulateGrad is one node for all the ops that read the leaf; the graph keeps
    the node and the node its leaf, so a leaf dropped by the program still gets its hooks and
    its .grad. Once the graph is gone nothing keeps the leaf (no cycle through its node)."""
    import gc
    import weakref
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = x * 3
    acc = y.grad_fn.next_functions[0][0]
    same, is_x = acc is z.grad_fn.next_functions[0][0], acc.variable is x
    seen = []
    x.register_hook(lambda g: seen.append(_v(g)))
    acc.register_prehook(lambda gs: seen.append("pre"))
    del x, acc
    (y + z).sum().backward(retain_graph=True)
    leaf = y.grad_fn.next_functions[0][0].variable
    grad = _v(leaf.grad)
    ref = weakref.ref(leaf)
    gc.disable()
    try:
        del y, z, leaf
        alive = ref() is not None
    finally:
        gc.enable()
    w = L.tensor([1.0], requires_grad=True)
    before = (w * 2).grad_fn.next_functions[0][0]
    hooked = []
    before.register_prehook(lambda gs: hooked.append("kept"))
    (w * 2).sum().backward()   # the node held above is the one this graph reaches
    del before
    (w * 2).grad_fn.next_functions[0][0].register_prehook(lambda gs: hooked.append("lost"))
    (w * 2).sum().backward()   # nothing kept that node: this graph has a new one, no hook
    return same, is_x, seen, grad, alive, hooked


def multi_grad_hooks(L):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = a * b
    seen = []
    L.autograd.graph.register_multi_grad_hook(
        (a, b, c, d), lambda gs: seen.append([g is not None for g in gs]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    first = []
    handle = L.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: first.append(_v(g)), mode="any")
    (a * b).sum().backward()
    handle.remove()
    (a * b).sum().backward()
    return seen, first


def _backward_inputs_case(L, case):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    w = L.tensor([3.0, 4.0], requires_grad=True)
    if case == "leaf":
        y, inputs, out = x, [x], (x * w).sum()
    elif case == "single":
        y, inputs, out = x, x, (x * w).sum()
    elif case == "non_leaf":
        y = x * 2
        inputs, out = [y], (y * y).sum()
    elif case == "view":
        y = x[:1]
        inputs, out = [y], (y * y).sum()
    elif case == "generator":
        y, inputs, out = x, (t for t in [x]), (x * w).sum()
    elif case == "in_place":
        y = x * 2
        y.mul_(3)
        inputs, out = [y], (y * y).sum()
    elif case == "accumulate":
        (x * w).sum().backward()
        y, inputs, out = x, [x], (x * w).sum()
    else:   # "output_itself"
        y = (x * 2).sum()
        inputs, out = [y], y
    out.backward(inputs=inputs)
    return _v(y.grad), _v(w.grad), _v(x.grad)


def backward_inputs(L):
    return {c: _backward_inputs_case(L, c) for c in
            ("leaf", "single", "non_leaf", "view", "generator", "in_place", "accumulate",
             "output_itself")}


def grad_takes_gradients_around_hooks(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    w = y * y
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append("node") or (go[0] * 0 + 1,))
    y.register_hook(lambda g: seen.append("tensor") or g * 10)
    alone = _vs(L.autograd.grad(w.sum(), y, retain_graph=True))
    n = len(seen)
    both = _vs(L.autograd.grad(w.sum(), [y, x]))
    return alone, seen[:n], both, seen[n:]


def second_backward(L):
    res = {}
    for name, make in [("add", lambda x: (x + 2).sum()), ("mul_scalar", lambda x: (x * 2).sum()),
                       ("exp", lambda x: x.exp().sum())]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = make(x)
        y.backward()
        res[name] = _error(lambda: y.backward() or "ran")

    class Sq(L.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return 2 * t * g

    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = Sq.apply(x).sum()
    y.backward()
    res["function"] = _error(lambda: y.backward() or "ran")
    # grad() runs only what its inputs need: the other branch is not freed
    x = L.tensor([1.0, 2.0], requires_grad=True)
    w = L.tensor([3.0, 4.0], requires_grad=True)
    y = (x.exp() + w.exp()).sum()
    L.autograd.grad(y, x)
    res["other_branch"] = _v(L.autograd.grad(y, w)[0])
    return res


PROGRAMS = {
    "node_hooks_order": (node_hooks_order, [
        ("tensor", [6.0, 12.0]), ("pre", ([6.0, 12.0],)),
        ("post", ([18.0, 36.0], None), ([6.0, 12.0],)), ("leaf", [18.0, 36.0]),
        ("acc_pre", ([18.0, 36.0],)), ("post_acc", [18.0, 36.0]),
        ("acc_post", (), ([18.0, 36.0],))]),
    "node_hooks_replace": (node_hooks_replace, ([([60.0, 120.0],)], [181.0, 361.0])),
    "node_hook_errors": (node_hook_errors, [
        "expected tuple, but hook returned 'Tensor'",
        "hook '<lambda>' has returned an incorrect number of values (got",
        "hook '<lambda>' has changed the size of value",
        "hook '<lambda>' has changed the size of value"]),
    # the second grad() runs ExpBackward again (the gradient used its saved result): its
    # hooks run there too, the post-hook now seeing gradients without history
    "node_hooks_create_graph": (node_hooks_create_graph, (
        [(([5.43656, 14.77811],), True), (([10.87313, 29.55622],), False)],
        [5.43656, 14.77811], [10.87313, 29.55622])),
    "custom_function_node_hooks": (custom_function_node_hooks, (
        [("pre", ([1.0, 1.0], None)), ("post", ([2.0, 2.0], [0.0]), ([1.0, 1.0], None))],
        "TwoBackward", "TwoBackward", 0, 1, [("TwoBackward", 0), ("TwoBackward", 1)])),
    "copy_slices_hooks": (copy_slices_hooks, (
        [("pre", ([2.0, 8.0, 12.0],)), ("post", ([2.0, 16.0, 24.0], None))], [2.0, 16.0, 24.0])),
    "next_functions": (next_functions, (
        [("AccumulateGrad", 0), (None, 0)], True, True, (), True, 0, True, True)),
    "saved_values": (saved_values, (
        True, [1.0, 2.0], [3.0], None, [2.71828, 7.38906], True, False, [1.0, 2.0], 2, True,
        (2,))),
    "saved_values_freed_and_stale": (saved_values_freed_and_stale, (
        "Trying to backward through the graph a second time (or",
        "one of the variables needed for gradient computation has")),
    "raw_saved_hooks": (raw_saved_hooks, (
        [("pack", [1.0, 2.0]), ("unpack", [1.0, 2.0])],
        "Calling register_hooks on a saved tensor whose hooks have", [2.0, 4.0])),
    "custom_function_node_attributes": (custom_function_node_attributes, (
        (5, [1.0, 2.0], (True,), 1),
        "Trying to backward through the graph a second time (or",
        "Trying to backward through the graph a second time (or")),
    "gradient_edges": (gradient_edges, (
        True, 0, "AccumulateGrad", True, [6.0, 12.0], [18.0, 36.0], [6.0, 12.0], [3.0, 3.0],
        [5.0, 5.0])),
    "leaf_nodes": (leaf_nodes, (True, True, [[5.0, 5.0], "pre"], [5.0, 5.0], False, ["kept"])),
    "multi_grad_hooks": (multi_grad_hooks, (
        [[True, True, True, False], [True, False, True, False],
         [True, True, False, False], [True, True, False, False]], [[3.0, 4.0]])),
    "backward_inputs": (backward_inputs, {
        "leaf": ([3.0, 4.0], None, [3.0, 4.0]), "single": ([3.0, 4.0], None, [3.0, 4.0]),
        "non_leaf": ([4.0, 8.0], None, None), "view": ([2.0], None, None),
        "generator": ([3.0, 4.0], None, [3.0, 4.0]), "in_place": ([12.0, 24.0], None, None),
        "accumulate": ([6.0, 8.0], [1.0, 2.0], [6.0, 8.0]),
        "output_itself": ([1.0], None, None)}),
    "grad_takes_gradients_around_hooks": (grad_takes_gradients_around_hooks, (
        ([40.0, 80.0],), ["tensor"], ([4.0, 8.0], [2.0, 2.0]), ["tensor", "node"])),
    "second_backward": (second_backward, {
        "add": "ran", "mul_scalar": "Trying to backward through the graph a second time (or",
        "exp": "Trying to backward through the graph a second time (or",
        "function": "Trying to backward through the graph a second time (or",
        "other_branch": [20.08554, 54.59815]}),
}


def _normal(res):
    """Error messages cut to the words both frameworks share (ours go on with a fix; ours name
    a hook by its qualified name)."""
    if isinstance(res, str):
        return re.sub(r"hook '[^']*'", "hook", res).split(": ")[0][:50]
    if isinstance(res, dict):
        return {k: _normal(v) for k, v in res.items()}
    if isinstance(res, (list, tuple)):
        return type(res)(_normal(v) for v in res)
    return res


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_gives_pytorchs_result(name):
    program, want = PROGRAMS[name]
    assert _normal(program(mt)) == _normal(want)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_recorded_result_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    program, want = PROGRAMS[name]
    assert _normal(program(torch)) == _normal(want)


# ---- departures and mutograd's own additions ------------------------------------------------
def test_node_hooks_see_none_for_a_python_scalar_operand():
    # mutograd keeps one edge per declared input: x ** 2 has (x, None) where PyTorch's
    # PowBackward0 has one edge; post-hooks see None for it
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 2
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
    y.sum().backward()
    assert seen == [2] and y.grad_fn.next_functions[1] == (None, 0)


def test_metadata_and_handles():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    y.grad_fn.metadata["tag"] = 1
    assert y.grad_fn.metadata == {"tag": 1}
    h = y.grad_fn.register_hook(lambda gi, go: None)
    assert h.remove() is True and h.remove() is False   # Paddle's handle answers


def test_second_order_node_names_the_backward_that_made_it():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = (h ** 3).sum()                            # line A
    (g,) = mg.grad(y, h, create_graph=True)       # line B: PowBackward's backward saves h
    h.add_(1)                                     # line C
    with pytest.raises(mg.VersionError) as e:
        mg.grad((g * g).sum(), x)
    msg = str(e.value)
    lines = {k: _line_of(k) for k in ("line A", "line B", "line C")}
    assert re.search(rf"created during the backward of PowBackward0? \(created at \S+:"
                     rf"{lines['line A']}\), run at \S+:{lines['line B']}", msg), msg
    assert "add_ at " in msg and f":{lines['line C']} " in msg


def test_anomaly_mode_shows_the_forward_that_induced_a_second_order_node():
    with mg.detect_anomaly():
        a = mg.tensor([0.0, 1.0], requires_grad=True)
        b = a ** 1.5                               # line D
        (gb,) = mg.grad(b.sum(), a, create_graph=True)
        with pytest.raises(mg.BackwardError) as e, np.errstate(divide="ignore"):
            mg.grad(gb.sum(), a)
    msg = str(e.value)
    assert "Previous calculation was induced by PowBackward" in msg
    assert f"line {_line_of('line D')}" in msg


def _line_of(tag):
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + tag) or f"# {tag}:" in line:
                return i
    raise AssertionError(tag)


def test_no_grad_vars_cut_the_gradient():
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y1, y2 = x.relu(), x.relu()
    w = ((y1 + y2) ** 2).mean()
    (g,) = mg.grad(w, x, create_graph=True, no_grad_vars=[y2])
    xs = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(g.numpy(), (np.maximum(xs, 0) * 2) * (xs > 0) * 2 / 3, rtol=1e-6)
