"""Short programs, written outside this project, on which autograd once went wrong.

Each program is source text run with ``torch`` bound to ``mutograd.compat.torch``; what it must
give was recorded from PyTorch 2.13 (``EXPECTED``), and when PyTorch is installed the same text
is also run on it, so the recorded answer is checked against the oracle too. A program either
returns a dict of values (compared as float64) or raises (the class and part of the message are
compared). The first four reach the engine's gradient-buffer reuse (Note [Gradient ownership]);
the others reach custom Functions, views made without history, retained gradients and hooks on
views, the shape-only in-place ops, and gradients made with create_graph.
"""
import numpy as np
import pytest

import mutograd.compat.torch as mtorch

PROGRAMS = {
    # no in-place op at all: one gradient array handed to two edges, one of them a view
    "exp_shared_by_a_view_and_an_add": """
x = torch.tensor([1., 2.], requires_grad=True)
t0 = x.exp(); t3 = t0 + x; v = t0[:]
(v * 10 + t3 * 100).sum().backward()
result = {"grad": x.grad}
""",
    "a_leaf_reached_through_a_view_and_directly": """
x = torch.tensor([1., 2.], requires_grad=True)
v = x[:]; t1 = x + v; t3 = x + 0.5
((v * 1).sum() + (t3 * 10).sum() + (t1 * 100).sum()).backward()
result = {"grad": x.grad}
""",
    "a_0d_view_summed_and_written": """
x0 = torch.tensor([[1.32, 1.04, -0.97], [1.01, 0.81, 0.73]], dtype=torch.float64,
                  requires_grad=True)
v0 = x0[-1, 2]; t1 = v0.tanh(); t2 = v0.sum(); t2.add_(-2.0)
((v0 * -0.85).sum() + (t1 * 0.13).sum() + (t2 * 0.11).sum()).backward()
result = {"grad": x0.grad}
""",
    "a_0d_result_written_then_copied_into_rows": """
x0 = torch.tensor([-0.12, -0.44, -1.1, -0.67, 1.35], dtype=torch.float64, requires_grad=True)
t0 = x0 @ x0; t0[...] = 0.5; t0.sub_(t0)
t5 = x0.pow(2) @ torch.ones(5, 3, dtype=torch.float64); t5[1::3] = t0
(t5 * torch.tensor([0.57, -0.32, -0.61], dtype=torch.float64)).sum().backward()
result = {"grad": x0.grad}
""",
    "x_plus_x_and_a_transposed_view": """
x = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True)
h = x * 2
y = h + h
z = y.t() * 3 + y
(z * torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64)).sum().backward()
result = {"grad": x.grad}
""",
    "function_writing_a_view_in_place": """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.pow_(2); ctx.mark_dirty(x); ctx.save_for_backward(x); return x
    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * 2 * y.sqrt()
a = torch.tensor([1., 2., 3.], requires_grad=True)
c = a.clone()
out = F.apply(c[1:])
c.sum().backward()
result = {"grad": a.grad, "c": c, "version": c._version}
""",
    "function_writing_a_non_leaf_in_place": """
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2); ctx.mark_dirty(x); return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
a = torch.tensor([1., 2., 3.], requires_grad=True)
h = a * 1.5
y = Double.apply(h)
(y * y).sum().backward()
result = {"grad": a.grad, "same": float(y is h)}
""",
    "function_writing_a_leaf_in_place": """
class G(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1); ctx.mark_dirty(x); return x
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1., 2., 3.], requires_grad=True)
G.apply(a)
""",
    "function_returning_its_input_unchanged": """
class Same(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 3
a = torch.tensor([1., 2.], requires_grad=True)
y = Same.apply(a)
(y * 1).sum().backward()
result = {"grad": a.grad, "a_is_leaf": float(a.is_leaf), "same": float(y is a)}
""",
    "a_view_made_without_history_then_requiring_grad": """
x = torch.ones(2)
with torch.no_grad():
    y = x.view(2)
y.requires_grad_(True)
z = y.view(2)
z *= 3
""",
    "retained_gradients_of_views_after_a_write": """
b = torch.tensor([1.], requires_grad=True).clone()
v = b[:]; v2 = b[:]
v.retain_grad(); v2.retain_grad()
v.mul_(2)
seen = []
v.register_hook(lambda g: seen.append(g.clone()))
(v + v2).sum().backward()
result = {"v": v.grad, "v2": v2.grad, "hook": seen[0], "calls": float(len(seen))}
""",
    "retained_gradient_of_a_tensor_written_in_place": """
a = torch.tensor([1., 2.], requires_grad=True)
h = a * 1
h.retain_grad()
h.mul_(3)
(h * h).sum().backward()
result = {"h": h.grad, "a": a.grad}
""",
    "retained_gradient_accumulates_over_two_backward_passes": """
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
y = x.sigmoid()
y.retain_grad()
y.sum().backward(retain_graph=True)
y.sum().backward()
result = {"y": y.grad}
""",
    "reshape_of_an_empty_tensor_is_a_view": """
x = torch.ones(0, 3, dtype=torch.float64)
y = x.reshape(-1)
y.tanh_()
result = {"version": x._version, "view": float(y._base is x)}
""",
    "a_leaf_view_whose_base_was_written": """
c9 = torch.tensor([[-1.4, -1.2, 0.1]], dtype=torch.float64)
v12, v13, v14 = c9[:, 0:1], c9[:, 1:2], c9[:, 2:3]
v14.requires_grad_()
v12.add_(v14)
(v14 * -0.5).sum().backward()
""",
    "a_float32_tensor_times_a_float64_0d_tensor": """
a = torch.tensor([1.5, 2.0], dtype=torch.float32)
b = torch.tensor(2.0, dtype=torch.float64)
i = torch.tensor([1, 2])
result = {"mul": float((a * b).dtype == torch.float32),
          "div": float((a / b).dtype == torch.float32),
          "int_times_float": float((i * 2.5).dtype == torch.float32),
          "add_alpha": float(torch.add(a, 0.8, alpha=0.5).dtype == torch.float32)}
""",
    "cat_of_transposed_tensors_is_contiguous_so_reshape_is_a_view": """
x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64).t()
s = torch.stack([x, x], 0)
r = s.reshape(-1)
s.add_(1)
result = {"r": r, "version": r._version}
""",
    "a_value_with_a_leading_size_1_axis_written_into_a_row": """
v = torch.zeros(2, 3, requires_grad=True) * 1
w = torch.ones(1, 3, requires_grad=True)
v[0] = w * 2
(v * torch.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
result = {"w": w.grad}
""",
    "a_mask_write_of_a_value_with_a_leading_size_1_axis": """
x = torch.zeros(2, 3, requires_grad=True) * 1
w = torch.ones(1, 4, requires_grad=True)
x[torch.tensor([[True, False, True], [False, True, True]])] = w * 3
(x * torch.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
result = {"x": x, "w": w.grad}
""",
    "retain_grad_twice_around_a_transpose_in_place": """
x2 = torch.tensor([[-0.3, 0.2], [1.2, -1.5]], dtype=torch.float64, requires_grad=True)
v5 = x2 * 0.5
v5.retain_grad()
v5.t_()
v5.retain_grad()
(v5.square() * torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64)).sum().backward()
result = {"v5": v5.grad, "x2": x2.grad}
""",
    "set_under_no_grad_keeps_requires_grad": """
p = torch.ones(4, requires_grad=True)
with torch.no_grad():
    p.set_(torch.zeros(3))
result = {"requires_grad": float(p.requires_grad), "leaf": float(p.is_leaf),
          "numel": float(p.numel())}
""",
    "data_set_to_an_integer_tensor": """
a = torch.ones(3, requires_grad=True)
a.data = torch.tensor(3)
""",
    "shape_only_in_place_ops_are_writes": """
x = torch.zeros(2, 3)
versions = []
for f in (lambda t: t.t_(), lambda t: t.transpose_(0, 1), lambda t: t.unsqueeze_(0),
          lambda t: t.squeeze_(0)):
    f(x)
    versions.append(x._version)
result = {"versions": torch.tensor(versions, dtype=torch.float64)}
""",
    "shape_only_in_place_op_after_a_save": """
a = torch.ones(2, 3, requires_grad=True)
h = a * 2
y = (h * h).sum()
h.t_()
y.backward()
""",    "a_quotient_saved_by_div_then_written_by_relu_": """
x = torch.tensor([-0.55, 0.8], dtype=torch.float64, requires_grad=True)
t = x / (x.sigmoid() + 0.5)
t.relu_()
t.sum().backward()
result = {"grad": x.grad}
""",
    "a_view_made_under_no_grad_written_with_grad_mode_on": """
a = torch.ones(3, requires_grad=True)
h = a * 2
with torch.no_grad():
    v = h[:2]
v.mul_(3)
""",
    "a_view_made_under_no_grad_used_after_its_base_was_written": """
a = torch.ones(3, requires_grad=True)
h = a * 2
with torch.no_grad():
    v = h[:2]
with torch.no_grad():
    h.add_(1)
w = v * 2
""",
    "grad_of_a_hooked_non_leaf_alone_or_with_an_input_behind_it": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
v = x * 1
v.register_hook(lambda g: g + 1)
alone, = torch.autograd.grad((v * 3).sum(), [v])
x2 = torch.tensor([1.0, 2.0], requires_grad=True)
v2 = x2 * 1
v2.register_hook(lambda g: g + 1)
first, behind = torch.autograd.grad((v2 * 3).sum(), [v2, x2])
result = {"alone": alone, "first": first, "behind": behind}
""",
    "a_retained_gradient_is_not_the_gradient_grad_returns": """
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
v = x.sin()
v.retain_grad()
gx, gv = torch.autograd.grad((v * v).sum(), [x, v], create_graph=True)
gv.mul_(10)
result = {"retained": v.grad, "gv": gv, "retained_requires_grad": float(v.grad.requires_grad)}
""",
    "create_graph_through_a_function_that_saves_the_input_it_wrote": """
class Exp_(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x.exp_())
        ctx.save_for_backward(x)   # x after the write: the function's output
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_tensors[0]
x = torch.tensor([-0.3, 0.5], dtype=torch.float64, requires_grad=True)
y = Exp_.apply(x * 1)
g, = torch.autograd.grad(y.sum(), [x], create_graph=True)
h, = torch.autograd.grad(g.sum(), [x])
result = {"g": g, "h": h}
""",
    "a_penalty_on_x_grad_then_a_second_backward": """
x = torch.tensor([0.1, -0.4], dtype=torch.float64, requires_grad=True)
loss = (x * x).sum()
loss.backward(create_graph=True)
g = x.grad
(g.square().sum() + loss).backward()
result = {"grad": x.grad, "same": float(g is x.grad)}
""",
    "a_grad_transposed_in_place_then_accumulated_into": """
x = torch.ones(4, 2, dtype=torch.float64, requires_grad=True)
(x * 2).sum().backward()
x.grad.t_()
(x * 2).sum().backward()
""",
    "grad_of_an_input_whose_node_saved_a_value_written_since": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 1).exp()
z = y * 3
with torch.no_grad():
    y.mul_(2)
g, = torch.autograd.grad(z.sum(), [y])
result = {"g": g}
""",
    "create_graph_through_a_0d_tensor_unsqueezed_and_unbound": """
x = torch.tensor(1.1, dtype=torch.float64, requires_grad=True)
v, = x.unsqueeze(0).clone().unbind(0)
gx, gv = torch.autograd.grad((v * v) * 1.5, [x, v], create_graph=True)
h, = torch.autograd.grad(gx, [x])
result = {"gx": gx, "h": h}
""",
}

# What PyTorch 2.13 gives (values as nested lists; errors as (class name, message part)).
EXPECTED = {
    "exp_shared_by_a_view_and_an_add": {"grad": [399.010986328125, 912.7962036132812]},
    "a_leaf_reached_through_a_view_and_directly": {"grad": [211.0, 211.0]},
    "a_0d_view_summed_and_written": {
        "grad": [[0.0, 0.0, 0.0], [0.0, 0.0, -0.6604673558789047]]},
    "a_0d_result_written_then_copied_into_rows": {
        "grad": [0.009600000000000001, 0.0352, 0.088, 0.053600000000000016, -0.10800000000000001]},
    "x_plus_x_and_a_transposed_view": {"grad": [[16.0, 44.0], [36.0, 64.0]]},
    "function_writing_a_view_in_place": {"grad": [1.0, 4.0, 6.0], "c": [1.0, 4.0, 9.0],
                                         "version": 2.0},
    "function_writing_a_non_leaf_in_place": {"grad": [18.0, 36.0, 54.0], "same": 1.0},
    "function_writing_a_leaf_in_place": (
        "RuntimeError", "a leaf Variable that requires grad"),
    "function_returning_its_input_unchanged": {"grad": [3.0, 3.0], "a_is_leaf": 1.0,
                                               "same": 0.0},
    "a_view_made_without_history_then_requiring_grad": ("RuntimeError", "inplace"),
    "retained_gradients_of_views_after_a_write": {"v": [1.0], "v2": [1.0], "hook": [1.0],
                                                  "calls": 1.0},
    "retained_gradient_of_a_tensor_written_in_place": {"h": [6.0, 12.0], "a": [18.0, 36.0]},
    "retained_gradient_accumulates_over_two_backward_passes": {"y": [2.0, 2.0]},
    "reshape_of_an_empty_tensor_is_a_view": {"version": 1.0, "view": 1.0},
    "a_leaf_view_whose_base_was_written": ("RuntimeError", "moved into the graph interior"),
    "a_float32_tensor_times_a_float64_0d_tensor": {"mul": 1.0, "div": 1.0, "int_times_float": 1.0,
                                                   "add_alpha": 1.0},
    "cat_of_transposed_tensors_is_contiguous_so_reshape_is_a_view": {
        "r": [2.0, 4.0, 6.0, 3.0, 5.0, 7.0, 2.0, 4.0, 6.0, 3.0, 5.0, 7.0], "version": 1.0},
    "a_value_with_a_leading_size_1_axis_written_into_a_row": {"w": [[2.0, 4.0, 6.0]]},
    "a_mask_write_of_a_value_with_a_leading_size_1_axis": {
        "x": [[3.0, 0.0, 3.0], [0.0, 3.0, 3.0]], "w": [[3.0, 9.0, 15.0, 18.0]]},
    "retain_grad_twice_around_a_transpose_in_place": {
        "v5": [[-0.3, 0.6], [2.4, -6.0]], "x2": [[-0.15, 0.3], [1.2, -3.0]]},
    "set_under_no_grad_keeps_requires_grad": {"requires_grad": 1.0, "leaf": 1.0, "numel": 3.0},
    "data_set_to_an_integer_tensor": ("RuntimeError", "must be floating point"),
    "shape_only_in_place_ops_are_writes": {"versions": [1.0, 2.0, 3.0, 4.0]},
    "shape_only_in_place_op_after_a_save": (
        "RuntimeError", "modified by an inplace operation"),
    "a_quotient_saved_by_div_then_written_by_relu_": {"grad": [0.0, 0.7195045706466275]},
    "a_view_made_under_no_grad_written_with_grad_mode_on": (
        "RuntimeError", "A view was created in no_grad mode and is being modified inplace"),
    "a_view_made_under_no_grad_used_after_its_base_was_written": (
        "RuntimeError", "A view was created in no_grad mode and its base or another view"),
    "grad_of_a_hooked_non_leaf_alone_or_with_an_input_behind_it": {
        "alone": [4.0, 4.0], "first": [3.0, 3.0], "behind": [4.0, 4.0]},
    "a_retained_gradient_is_not_the_gradient_grad_returns": {
        "retained": [1.682941969615793, 1.8185948536513634],
        "gv": [16.82941969615793, 18.185948536513635], "retained_requires_grad": 1.0},
    "create_graph_through_a_function_that_saves_the_input_it_wrote": {
        "g": [0.7408182206817179, 1.6487212707001282],
        "h": [0.7408182206817179, 1.6487212707001282]},
    "a_penalty_on_x_grad_then_a_second_backward": {"grad": [1.2, -4.8], "same": 1.0},
    "a_grad_transposed_in_place_then_accumulated_into": ("RuntimeError", "size"),
    "grad_of_an_input_whose_node_saved_a_value_written_since": {"g": [3.0, 3.0]},
    "create_graph_through_a_0d_tensor_unsqueezed_and_unbound": {"gx": 3.3000000000000003,
                                                                "h": 3.0},
}


def run(source, torch):
    """The program's ``result`` as float64 arrays, or the exception it raised."""
    scope = {"torch": torch}
    try:
        exec(compile(source, "<program>", "exec"), scope)
    except Exception as e:   # the error is part of what is compared
        return e
    return {k: np.asarray(v.detach().numpy() if hasattr(v, "detach") else v, np.float64)
            for k, v in scope["result"].items()}


def check(got, expected):
    if isinstance(expected, tuple):
        cls, part = expected
        assert isinstance(got, Exception), f"expected {cls}, got {got}"
        assert cls in [c.__name__ for c in type(got).__mro__], repr(got)
        assert part in str(got), str(got)
        return
    assert not isinstance(got, Exception), repr(got)
    assert sorted(got) == sorted(expected)
    for k, v in expected.items():
        np.testing.assert_allclose(got[k], np.asarray(v, np.float64), rtol=1e-6, atol=1e-9,
                                   err_msg=k)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_mutograd_gives_what_pytorch_gives(name):
    check(run(PROGRAMS[name], mtorch), EXPECTED[name])


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_recorded_answer_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    check(run(PROGRAMS[name], torch), EXPECTED[name])
