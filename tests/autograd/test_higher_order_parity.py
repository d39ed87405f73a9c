"""Gradient graphs that PyTorch builds in a particular way, matched here: which gradients require
grad, which are new tensors and which share memory, found by the differential fuzzer. Each
program runs with ``torch`` bound to mutograd's dialect and to PyTorch, and the names it binds
are compared: values, ``requires_grad`` and identity (a program records the versions it
compares, as differences: how many writes an op makes into a result it creates is not a
behaviour)."""
import numpy as np
import pytest

import mutograd.compat.torch as mtorch

KINKS = {   # ops whose gradient is the incoming one masked by where the input lies
    "relu": "torch.relu(x)", "abs": "x.abs()", "hardtanh": "torch.nn.functional.hardtanh(x)",
    "relu6": "torch.nn.functional.relu6(x)", "leaky_relu": "torch.nn.functional.leaky_relu(x)",
    "threshold": "torch.nn.functional.threshold(x, 0.1, 0.0)",
    "max_pool2d": "torch.nn.functional.max_pool2d(x.reshape(1, 1, 2, 3), 2, 1)",
}

PROGRAMS = {
    # Note [Gradients at a kink, differentiated again]: the first gradient requires grad and
    # its derivative is zeros, not "unused"
    **{f"kink_{name}": f"""
x = torch.tensor([-1.5, -0.2, 0.0, 0.3, 0.9, 2.0], dtype=torch.float64, requires_grad=True)
y = {expr}
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
rg = torch.tensor(g.requires_grad)
h = torch.autograd.grad(g.sum(), x)[0] + 0.0   # (PyTorch's zeros may be a ZeroTensor)
""" for name, expr in KINKS.items()},
    "kink_with_grad_outputs": """
x = torch.tensor([[-0.5, 0.4], [1.3, -0.8]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[-0.8, 0.9], [1.3, 0.7]], dtype=torch.float64, requires_grad=True)
g, = torch.autograd.grad(torch.relu(x), [x], grad_outputs=w, create_graph=True)
h = torch.autograd.grad(g, [x, w], grad_outputs=torch.ones(2, 2, dtype=torch.float64),
                        allow_unused=True)
""",
    "kink_edge_runs_the_output_hooks": """
x = torch.tensor([[0.4, 1.3, -1.4], [0.2, -0.5, 0.8]], dtype=torch.float64, requires_grad=True)
y = torch.relu(x)
y.register_hook(lambda t: t + 1)
w = torch.tensor([[0.9, -0.3, 1.0], [-0.8, 0.7, 1.4]], dtype=torch.float64, requires_grad=True)
g, = torch.autograd.grad(y, [x], grad_outputs=w, create_graph=True)
h = torch.autograd.grad(g, [x, w], grad_outputs=torch.ones(2, 3, dtype=torch.float64))
""",
    # a write into all of a tensor (x[:], x[0:], x[...]) is a copy into the tensor itself in
    # PyTorch: the old value's gradient is plain zeros, the value's is the incoming gradient
    "whole_write_then_constant": """
c = torch.zeros(1, 4, 3, dtype=torch.float64).detach()
x = torch.tensor(-1.3, dtype=torch.float64, requires_grad=True)
c[0:] = x
c[0:] = torch.tensor(-0.151, dtype=torch.float64)
w = torch.ones(1, 4, 3, dtype=torch.float64, requires_grad=True) * 2
g, = torch.autograd.grad(c, x, w, create_graph=True)
""",
    "ellipsis_write_gives_the_incoming_gradient": """
x = torch.tensor([1.5, 1.0, -1.4], dtype=torch.float64, requires_grad=True)
v = torch.dot(x.square(), x.square())
s = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
v[...] = s
loss = v * 0.937
gx, gv, gs = torch.autograd.grad(loss, [x, v, s], create_graph=True)
""",
    "view_write_keeps_the_history": """
x = torch.tensor([1.0, 1.4, -0.1, -0.2], dtype=torch.float64, requires_grad=True)
m = (x * 2.5).mean()
m[None] = -0.289
g, = torch.autograd.grad(m.pow(2) * 0.954, [x], create_graph=True)
""",
    # a region's value gradient is a new tensor: writing it leaves the other gradient alone
    "region_value_gradient_is_a_copy": """
c = torch.full((1, 3), 0.5, dtype=torch.float64)
x = torch.tensor([-0.5], dtype=torch.float64, requires_grad=True)
c[..., 2] = x
c.addcmul_(torch.full((1, 3), 0.1, dtype=torch.float64), torch.full((1, 3), 0.1,
                                                                     dtype=torch.float64))
gc, gx = torch.autograd.grad((c * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum(),
                             [c, x], create_graph=True)
before = gc._version
gx[-1].fill_(0.725)
gc_written = torch.tensor(gc._version - before)
""",
    # mean's gradient has memory of its own (PyTorch divides the expanded gradient)
    "mean_gradient_is_writable": """
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
g, = torch.autograd.grad((x * x).mean(), x, create_graph=True)
g.add_(1.0)
""",
    # sum's gradient is a new view, never the incoming tensor itself
    "sum_gradient_is_a_new_tensor": """
x = torch.tensor([-0.5], dtype=torch.float64, requires_grad=True)
v = x.sum(dim=0, keepdim=True)
gx, gv = torch.autograd.grad((v * 0.5).sum(), [x, v], create_graph=True)
""",
    # a 0-d gradient of a broadcast input is a sum, not a view of the incoming gradient
    "scalar_gradient_is_not_a_view": """
x = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
c = torch.zeros((1,), dtype=torch.float64)
c.add_(x)
g, = torch.autograd.grad(c.sum(), [x], create_graph=True)
g -= x
g.register_hook(lambda t: t * 2)
g.detach().add_(0.949)
(g.square() * 0.5).sum().backward()
""",
    # Note [Leaves made after they were saved]
    "leaf_made_after_it_was_saved": """
x = torch.tensor([[0.9], [-0.5], [-0.5]], dtype=torch.float64, requires_grad=True)
c = torch.linspace(-1.0, 1.0, 3, dtype=torch.float64).reshape(1, 3)
v = x @ c
c.requires_grad_()
g, = torch.autograd.grad(v.sum(), [x], create_graph=True)
rg = torch.tensor(g.requires_grad)
""",
    # Note [Gradients of replayed views]
    "replayed_view_gradient_is_new": """
x = torch.tensor([[-1.1, -0.2, -0.9], [-0.0, -0.6, 1.1]], dtype=torch.float64,
                 requires_grad=True)
v = x.reshape(-1)
with torch.no_grad():
    x.copy_(x * 0.9)
s = v.sum()
gx, gs = torch.autograd.grad(s * 1.3, [x, s], create_graph=True)
before = gx._version
gs.abs_()
gx_written = torch.tensor(gx._version - before)
""",
    # the saved output of a write through a view is the view itself, with its hooks
    "retained_view_sees_the_second_backward": """
x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
v = (torch.exp(x) - x).reshape(1)
v.exp_()
loss = (v * 0.5).sum()
g, = torch.autograd.grad(loss, [x], create_graph=True)
v.retain_grad()
h, = torch.autograd.grad(g.pow(2).sum() + loss, [x], create_graph=True)
vg = v.grad
""",
    # a custom Function's saved input that is a view without history requires grad (a view
    # made under no_grad of a tensor that requires grad), though its gradient goes nowhere
    "function_saves_a_view_without_history": """
class MulFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x
x = torch.tensor(-0.8, dtype=torch.float64, requires_grad=True)
with torch.no_grad():
    v = x.t()
g, = torch.autograd.grad(MulFn.apply(v, x) * 0.662, [x], create_graph=True)
""",
    # Note [The layout of .grad]: .grad is laid out as its leaf, first and second order
    "grad_layout_follows_the_leaf": """
x = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
(torch.stack([x.t(), x.t()], 0) * torch.linspace(-0.5, 1.5, 24, dtype=torch.float64).reshape(
    2, 3, 4)).sum().backward(create_graph=True)
y = torch.zeros(3, 4, dtype=torch.float64).t().requires_grad_()
(y * 2).sum().backward()
z = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
(z.t() * 2).sum().backward()
strides = torch.tensor([list(x.grad.stride()), list(y.grad.stride()), list(z.grad.stride())])
before = x.grad._version
x.grad.reshape(12).mul_(2)   # a view of a row-major .grad: the write reaches it
x_grad_written = torch.tensor(x.grad._version - before)
""",
    "op_saves_a_view_without_history": """
x = torch.tensor([[0.3, 0.9, 1.2], [-0.4, -0.9, 0.4]], dtype=torch.float64, requires_grad=True)
with torch.no_grad():
    v = x.permute(1, 0)
y = torch.matmul(v, x)
y.sum().backward(create_graph=True)
rg = torch.tensor(x.grad.requires_grad)
""",
    # x[...] is an alias (its gradient is the incoming one itself), x[0:] a slice
    "getitem_alias_and_full_slice": """
x = torch.tensor([[0.9, -0.7], [1.2, 0.2]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[-1.2, 1.5], [0.1, 0.4]], dtype=torch.float64, requires_grad=True)
g1, = torch.autograd.grad(x[...], [x], grad_outputs=w, create_graph=True)
g2, = torch.autograd.grad(x[0:], [x], grad_outputs=w, create_graph=True)
leaves = torch.tensor([g1.is_leaf, g2.is_leaf])
""",
    # *_like factories keep the layout of their input (preserve_format)
    "like_factories_preserve_the_layout": """
x = torch.zeros(4, 2, dtype=torch.float64).t()
strides = torch.tensor([list(f(x).stride()) for f in (
    torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like, torch.randn_like,
    lambda t: torch.full_like(t, 2.0), lambda t: torch.randint_like(t, 3),
    lambda t: torch.zeros_like(t, memory_format=torch.contiguous_format))])
""",
    # x[:, None] is an unsqueeze in PyTorch (the whole slice is skipped): its gradient is a
    # view of the incoming one, so a write into one gradient shows in the other
    "unsqueeze_by_index_passes_a_view": """
x = torch.tensor([[[-1.2], [-1.3], [0.6]], [[0.7], [-1.0], [-0.6]]], dtype=torch.float64,
                 requires_grad=True)
v = x[:, None].sum(-3)
gx, gv = torch.autograd.grad((v * torch.linspace(-0.5, 1.5, 6, dtype=torch.float64)
                              .reshape(2, 3, 1)).sum(), [x, v], create_graph=True)
gv.masked_fill_(torch.tensor([True]), 0.184)
""",
    # the saved constant is c itself: requires_grad_() on an alias of it (.detach()) leaves
    # the gradient computed from it without history
    "alias_of_a_saved_constant_made_a_leaf": """
c = torch.tensor([[0.3, -0.5, 1.3], [0.2, -1.1, 0.8]], dtype=torch.float64)
x = torch.tensor([[-1.2, -0.7], [0.0, -0.3], [-0.2, -1.2]], dtype=torch.float64,
                 requires_grad=True)
y = c @ x
alias = c.detach()
alias.requires_grad_()
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
""",
    # a custom Function that saves the view it wrote: its node is reached by itself (the saved
    # output's history) and inside the CopySlices of the write, in one backward
    "function_saving_a_written_view": """
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y
x = torch.tensor([[1.3, -0.3, -0.7]], dtype=torch.float64, requires_grad=True)
v = (x * x).t()
Exp.apply(v)
w = v + 1
loss = (w * torch.linspace(-0.5, 1.5, 3, dtype=torch.float64).reshape(3, 1)).sum()
g, gw = torch.autograd.grad(loss, [x, w], create_graph=True)
((g.pow(2).sum() + 0.01).sqrt() + loss).backward()
xg = x.grad
""",
    # a gradient is a tensor of its own where PyTorch's is (not a view of a buffer the formula
    # made): a hook on it and a write through a view of it act on it alone
    "matrix_vector_gradient_is_its_own_tensor": """
x = torch.tensor([-0.6, -0.1, -0.4, 0.7], dtype=torch.float64, requires_grad=True)
m = torch.tensor([[-0.1, -0.2, -0.8, 1.0], [-1.5, 1.1, -1.1, 1.0], [-0.4, 0.6, -0.8, -1.0]],
                 dtype=torch.float64, requires_grad=True)
gx, gm = torch.autograd.grad(m @ x, [x, m], grad_outputs=torch.ones(3, dtype=torch.float64),
                             create_graph=True)
gx.register_hook(lambda g: g + 1)
gx.reshape(4, 1)[:, -1, None] = torch.tensor(0.4, dtype=torch.float64)
h = torch.autograd.grad(gx, [x, m], grad_outputs=torch.linspace(-1.0, 1.0, 4,
                        dtype=torch.float64), allow_unused=True)
""",
    "unfold_gradient_is_its_own_tensor": """
x = torch.tensor([[0.7, 1.4, 0.1], [-0.5, -1.3, 1.2]], dtype=torch.float64, requires_grad=True)
g, = torch.autograd.grad((x.unfold(1, 1, 2) * 2).sum(), [x], create_graph=True)
v = g.select(1, 0)
g.requires_grad_()
flags = torch.tensor([v.requires_grad, g.is_leaf])
""",
    # a view made under no_grad has no gradient edge: the saved value only its gradient would
    # read may be written before the second backward
    "no_grad_view_needs_no_gradient": """
x = torch.tensor([0.7, 1.0, 1.0], dtype=torch.float64, requires_grad=True)
v = x + x
with torch.no_grad():
    t = x.t()
y = t @ v
gx, gv, gy = torch.autograd.grad(y * 0.814, [x, v, y], create_graph=True)
gy.sub_(0.25)
(((gv.pow(2).sum() + 0.01).sqrt() - 1) ** 2).backward()
xg = x.grad
""",
    # PyTorch's sum_to reshapes its sum into a view: a hook registered on it after a write
    # stays with the value before the next write
    "summed_gradient_is_a_view_of_its_sum": """
x = torch.tensor([1.3, 0.9, -0.6, -0.6], dtype=torch.float64, requires_grad=True)
m = torch.tensor([[-0.3, 0.3, 1.5, -1.4], [-0.1, -0.4, 1.4, -0.7]], dtype=torch.float64,
                 requires_grad=True)
gx, gm = torch.autograd.grad(x * m, [x, m], grad_outputs=torch.ones(2, 4, dtype=torch.float64),
                             create_graph=True)
gx.div_(1.8)
gx.register_hook(lambda g: g * 2)
gx[torch.tensor([3, 0])] = torch.tensor(-1.4, dtype=torch.float64)
(gx * torch.linspace(-0.5, 1.5, 4, dtype=torch.float64)).sum().backward()
mg_ = m.grad
""",
    # Note [Leaves made after they were saved], for a custom Function's saved tensors and for
    # several views made under no_grad of one tensor
    "function_saved_constant_made_a_leaf": """
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x
x = torch.tensor([[1.2, 0.3, 0.1], [1.0, 0.2, -1.1]], dtype=torch.float64, requires_grad=True)
e = x.exp()
with torch.no_grad():
    c = e.detach()
y = Mul.apply(c, e)
c.requires_grad_()
g, = torch.autograd.grad(y, [x], grad_outputs=torch.ones(2, 3, dtype=torch.float64),
                         create_graph=True)
(g.square() * 0.5).sum().backward()
cg = c.grad
""",
    "second_no_grad_view_of_a_saved_view": """
x = torch.tensor([0.8], dtype=torch.float64, requires_grad=True)
with torch.no_grad():
    v = x[0::2]
w = v.squeeze(0)
(x @ v * 0.74).backward(create_graph=True)
g = x.grad
""",
    # Note [Indexing gradients]: x[None, i] is an unsqueeze, then a select: its gradient is a
    # squeeze (a view) of the select's, so overwriting it keeps a history
    "leading_none_index_gradient_is_a_view": """
x = torch.tensor([[1.0, 0.9, 1.0], [-1.0, -1.0, -1.2], [-0.6, -0.9, -0.9]], dtype=torch.float64,
                 requires_grad=True)
v = x[None, -2, ...]
g, = torch.autograd.grad((v * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum(), [x],
                         create_graph=True)
with torch.no_grad():
    g.div_(2.0)
g.sub_(v)
g.copy_(torch.tensor(-0.313, dtype=torch.float64))
h, = torch.autograd.grad(g.pow(2).sum(), [x], create_graph=True)
""",
    # a write through an as_strided view of a base whose gradient arrives transposed
    "written_as_strided_view_with_a_transposed_gradient": """
x = torch.tensor([[[0.6, -0.5, 0.5], [0.7, 1.4, -1.5], [-0.1, 1.4, -1.3]],
                  [[-0.6, 0.7, 0.7], [0.9, 1.0, -0.9], [-1.3, -0.7, 1.4]]], dtype=torch.float64,
                 requires_grad=True)
v = x[torch.tensor([0, 1]), 1:]
w = v.select(0, 0).as_strided((2, 2), (1, 2))
w.mul_(1.5)
loss = (v.transpose(2, 1) * torch.linspace(-0.5, 1.5, 12, dtype=torch.float64)
        .reshape(2, 3, 2)).sum()
loss.backward(create_graph=True)
g = x.grad
""",
    # a tensor's hooks stay on the node of its first hook across a change of shape only, and
    # move to the new history after a write
    "hooks_across_a_shape_change_and_a_write": """
c = torch.tensor([[1.0, 0.8, 0.2], [1.3, 0.0, -1.5]], dtype=torch.float64)
x = torch.tensor([0.6, -0.5, 0.2], dtype=torch.float64, requires_grad=True)
v = c.sigmoid()
v.sub_(x * 2)
m = torch.mean(v, 1, False)
v.register_hook(lambda g: g * 2)
v.unsqueeze_(0)
v.register_hook(lambda g: g * g)
g1, = torch.autograd.grad(m, [x], grad_outputs=torch.tensor([0.2, 0.8], dtype=torch.float64),
                          create_graph=True)
v.mul_(3.0)
v.register_hook(lambda g: g + 1)
g2, = torch.autograd.grad(v.sum(), [x])
""",
    # as_strided's gradient is a view of a flat buffer in PyTorch: a hook on it is left
    # behind by a write into it
    "as_strided_gradient_is_a_view": """
x = torch.tensor([-0.2, 0.8, -1.5, 0.0], dtype=torch.float64, requires_grad=True)
d = x.as_strided((2, 2), (1, 2)).diagonal(1)
g, = torch.autograd.grad(d.sum() * 0.5, [x], create_graph=True)
g *= d.abs() * 2
g.register_hook(lambda t: t * t)
g.sub_(0.25)
g.pow(2).sum().backward()
xg = x.grad
""",
    # a broadcast input's gradient is the sum itself, not a view of it (PyTorch's sum_to): a
    # write through a view of it keeps a hook registered before on it
    "broadcast_gradient_is_not_a_view": """
x1 = torch.tensor([1.0, -1.1], dtype=torch.float64, requires_grad=True)
x2 = torch.tensor([0.1], dtype=torch.float64, requires_grad=True)
v = torch.cat([torch.mul(x2, x1).cos_(), x1], dim=0)
g1, g2 = torch.autograd.grad((v.abs() + 1).log().sum(), [x1, x2], create_graph=True)
g2.register_hook(lambda g: g * g)
g2.t().clamp_(-0.6, 0.7)
(((g2.pow(2).sum() + 0.01).sqrt() - 1) ** 2).backward()
x1g = x1.grad
""",
    # a fill through overlapping windows, differentiated with create_graph
    "fill_through_overlapping_windows": """
x = torch.tensor([0.9, 1.1, -0.7, 0.2], dtype=torch.float64, requires_grad=True)
w = (x.reshape(1, 4) + 1.145).unsqueeze(0).unfold(2, 2, 1)
w.fill_(-0.77)
o = torch.tensor([[[[0.9, 0.8], [-1.1, -0.4], [0.8, 0.1]]]], dtype=torch.float64,
                 requires_grad=True)
g, = torch.autograd.grad(w, [x], grad_outputs=o, create_graph=True)
""",
    # Note [Result layouts]: a create_graph gradient summed from a transposed and a C-ordered
    # term is laid out in C order, so reshape(-1) is a view and the write reaches g12
    "summed_gradient_layout": """
x2 = torch.tensor([[-0.2, -1.1, -0.8], [0.3, -0.4, 0.9], [-0.4, 1.2, 0.8]], dtype=torch.float64,
                  requires_grad=True)
v3 = x2 ** 3
v3.copy_(x2.transpose(1, 0))
loss8 = (v3 * torch.linspace(-0.5, 1.5, 9, dtype=torch.float64).reshape(3, 3)).sum()
loss8.backward(create_graph=True)
loss11 = (x2.grad.square() * 0.5).sum() + loss8
g12, = torch.autograd.grad(loss11, [x2], create_graph=True)
v13 = g12.reshape(-1,)
v13[-3] = -1.335
""",
    # a view made a leaf's descendant by requires_grad_() on an expand view, whose base is then
    # written without grad: its history is regenerated as a node of its own (PyTorch's
    # AsStridedBackward0), which grad() reaches
    "regenerated_view_is_a_gradient_target": """
c2 = torch.tensor([[0.1, -1.0], [-0.8, 1.2]], dtype=torch.float64)
v4 = c2.expand(2, 2, 2)
v4.requires_grad_()
v5 = v4.expand(2, 2, 2, 2)
c2 += c2.clone()
loss6 = (v5 * torch.linspace(-0.5, 1.5, 16, dtype=torch.float64).reshape(2, 2, 2, 2)).sum()
g7 = torch.autograd.grad(loss6, [v4, v5], retain_graph=True, allow_unused=True)
""",
    # a broadcast input's gradient that drops a leading axis is a view of the sum, in the
    # input's dtype (max's tie share was float64 and cast after the sum, a copy): a hook on it
    # is left behind by a write through it, as in PyTorch
    "leading_axis_gradient_is_a_view_in_its_dtype": """
x = torch.tensor([0.6, 0.5, -1.1], dtype=torch.float32, requires_grad=True)
c = torch.tensor([[0.3, 0.3, 0.3]], dtype=torch.float32)
y = torch.maximum(c, x) ** 2
g, = torch.autograd.grad(y, [x], grad_outputs=torch.ones_like(y), create_graph=True)
g.register_hook(lambda t: t + 1)
g.copy_(torch.tensor(1.0, dtype=torch.float32))
(g * 1).sum().backward()
xg = x.grad
""",
    # views replayed after their base was written: the gradient into the base is laid out as
    # the base (PyTorch's as_strided_backward), so reshape(6) of it is a view and the write
    # through it counts on the gradient
    "replayed_view_gradient_in_the_base_layout": """
x2 = torch.tensor([[-0.5, 0.6, 0.8], [-0.9, -1.0, -0.4]], dtype=torch.float64,
                  requires_grad=True)
v6 = x2.transpose(1, 0)
v7 = v6.unfold(1, 2, 2)
v9 = v6.detach()
v9[torch.tensor([2, 0, 1])] = -1.395
loss10 = (v7 * torch.linspace(-0.5, 1.5, 6, dtype=torch.float64).reshape(3, 1, 2)).sum()
g11, = torch.autograd.grad(loss10, [x2], create_graph=True)
v13 = g11.reshape(6,)
v13.masked_fill_(torch.tensor(True), -0.122)
version = torch.tensor(float(g11._version))
""",
    # a clone of a broadcast view is C-ordered (preserve_format keeps a stride-0 axis in
    # place), so reshape(6) is a view of it and the write through its detach() reaches it
    "clone_of_an_expanded_tensor": """
x1 = torch.tensor([0.9, -0.1, 0.6], dtype=torch.float64)
v4 = x1.expand(2, 3).clone()
v6 = v4.reshape(6,).detach()
v6.index_add_(0, torch.tensor([1, 1, 0]), (x1 * 2))
""",
    # an empty view's gradient is zeros with no history (as_strided_backward of an empty
    # output), however large the views between it and its base are
    "empty_regenerated_view_gradient_has_no_history": """
c2 = torch.tensor([[0.1, 0.4, 0.0], [-0.9, 0.7, -0.9], [-1.3, -1.4, 0.9]], dtype=torch.float64)
v6 = c2.narrow(1, 2, 1).diagonal(1)
x7 = torch.tensor([1.1], dtype=torch.float64, requires_grad=True)
c2.copy_(x7)
x8 = torch.tensor([], dtype=torch.float64, requires_grad=True)
g9, = torch.autograd.grad(v6, [x7], grad_outputs=x8, create_graph=True)
""",
    "empty_written_view_sends_nothing_to_its_gradient": """
x1 = torch.tensor([[-1.5]], dtype=torch.float64, requires_grad=True)
v4 = (x1 @ x1).select(0, 0)[1::2]
v4.zero_()
x5 = torch.tensor([], dtype=torch.float64, requires_grad=True)
g6, = torch.autograd.grad(v4, [x1], grad_outputs=x5, create_graph=True)
(g6 * 0.5).sum().backward()
x5_grad = x5.grad
""",
    # the gradient into a base through a replayed view is a view of a new flat storage, as
    # PyTorch's as_strided_backward gives it: requires_grad_() on it makes it a leaf, and a
    # view of it made before stays a view of that storage, which requires no grad
    "replayed_view_gradient_is_a_view_of_a_new_storage": """
x2 = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64, requires_grad=True)
v3 = x2.view(6,)
with torch.no_grad():
    v3.mul_(2)
g9, = torch.autograd.grad(v3.mean(), [x2], create_graph=True)
is_view = torch.tensor(g9._is_view())
v12 = g9.expand(2, 2, 3)
g9.requires_grad_()
""",
    # the one root of a grad() that no input needs still runs its tensor's hooks and keeps its
    # retained grad; an interior node, or one of several roots, that no input needs runs nothing
    "unneeded_root_runs_its_hooks": """
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
c = torch.tensor([1.3, 1.0], dtype=torch.float64, requires_grad=True)
ones = torch.ones(2, dtype=torch.float64)
y = c * 2
y.register_hook(lambda g: g * 3)
y.retain_grad()
gx = torch.autograd.grad(y, [x], grad_outputs=ones, allow_unused=True)
z = c * 3
z.retain_grad()
w = z * 2
v = c * 4
v.retain_grad()
gx2 = torch.autograd.grad(w, [x], grad_outputs=ones, allow_unused=True)
gx3 = torch.autograd.grad([v, c * 5], [x], grad_outputs=[ones, ones], allow_unused=True)
y_grad, z_grad, v_grad = y.grad, z.grad, v.grad
""",
    # a view made under no_grad requires grad, with no history; its detach() requires none,
    # even where it is saved and differentiated again
    "detached_no_grad_view_is_a_constant": """
x1 = torch.tensor([-1.1, 1.1, -0.5], dtype=torch.float64, requires_grad=True)
with torch.no_grad():
    v3 = x1[0::2]
v4 = v3.detach()
x5 = torch.tensor(-0.9, dtype=torch.float64, requires_grad=True)
g7, = torch.autograd.grad(v4 * x5, [x5], grad_outputs=torch.ones(2, dtype=torch.float64),
                          create_graph=True)
g8, = torch.autograd.grad(v3 * x5, [x5], grad_outputs=torch.ones(2, dtype=torch.float64),
                          create_graph=True)
""",
    # the layout contract of .grad: a leaf that is one dense block gets its own layout, an
    # expanded or strided one a row-major gradient, at first and at higher order
    "grad_layout_of_leaves_that_are_not_dense": """
x = torch.tensor([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0], [3.5, 4.0, 4.5], [5.0, 5.5, 6.0]],
                 dtype=torch.float64)
e = x.t().select(0, 1).expand(2, 4).detach().requires_grad_()
s = x[:, ::2].detach().requires_grad_()
t = x.t().detach().requires_grad_()
(e * 2).sum().backward()
(s * 2).sum().backward()
(t * 2).sum().backward()
first = torch.tensor([list(e.grad.stride()), list(s.grad.stride()), list(t.grad.stride())])
e.grad = s.grad = t.grad = None
((e * e).sum() + (s * s).sum() + (t * t).sum()).backward(create_graph=True)
higher = torch.tensor([list(e.grad.stride()), list(s.grad.stride()), list(t.grad.stride())])
e.grad.reshape(-1).mul_(0.5)
e_grad = e.grad
""",
    # a view made under no_grad of a tensor that requires grad requires grad itself: a hook may
    # be registered on it (it never runs), and requires_grad_() makes it a leaf of later ops
    "hook_on_a_no_grad_view": """
x5 = torch.tensor([1.2, -0.4], dtype=torch.float64, requires_grad=True)
with torch.no_grad():
    v6 = x5.unsqueeze(0)
v6.register_hook(lambda g: g * 2)
rg = torch.tensor(v6.requires_grad)
v6.requires_grad_()
(torch.tanh(v6) * 0.5).sum().backward()
v6_grad, x5_grad = v6.grad, x5.grad
""",
    # PyTorch's cat gives an empty 1-D input new zeros: no history
    "cat_gives_an_empty_input_new_zeros": """
x1 = torch.tensor([[-1.4, -0.5, 0.5, -1.3]], dtype=torch.float64, requires_grad=True)
w = torch.zeros(0, dtype=torch.float64, requires_grad=True)
v3 = x1.diagonal(-1) * 1.5
v3.retain_grad()
v7 = torch.cat([v3, v3]) * torch.cat([w, w]).exp()
g9, gw = torch.autograd.grad(v7.sum(), [x1, w], create_graph=True)
v3_grad = v3.grad
""",
}


def _run(torch, src):
    """The tensors ``src`` binds, tuples flattened: {name or name[i]: tensor or None}."""
    env = {"torch": torch}
    exec(compile(src, "<program>", "exec"), env)
    out = {}
    for k, v in env.items():
        if isinstance(v, torch.Tensor):
            out[k] = v
        elif isinstance(v, tuple):
            out.update((f"{k}[{i}]", t) for i, t in enumerate(v))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    mine, theirs = _run(mtorch, PROGRAMS[name]), _run(torch, PROGRAMS[name])
    assert sorted(mine) == sorted(theirs)
    for k, b in theirs.items():
        a = mine[k]
        assert (a is None) == (b is None), k
        if b is None:
            continue
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   err_msg=k)
        assert a.requires_grad == b.requires_grad, k
        same = sorted(j for j in theirs if theirs[j] is b)
        assert sorted(j for j in mine if mine[j] is a) == same, (k, "identity")


def test_kinked_gradients_record_a_zero_edge_without_pytorch():
    x = mtorch.tensor([-1.0, 0.5, 2.0], dtype=mtorch.float64, requires_grad=True)
    for f in (mtorch.relu, mtorch.abs):
        (g,) = mtorch.autograd.grad(f(x).sum(), x, create_graph=True)
        assert g.requires_grad and g.grad_fn.name() == "KinkBackward0"
        (h,) = mtorch.autograd.grad(g.sum(), x)
        assert h.tolist() == [0.0, 0.0, 0.0]
    # first order is untouched: no extra node, no history
    (g,) = mtorch.autograd.grad(mtorch.relu(x).sum(), x)
    assert g.grad_fn is None and g.tolist() == [0.0, 1.0, 1.0]


@pytest.mark.torch
@pytest.mark.parametrize("index", ["[0:]", "[:]", "[-4:]", "[0:4]", "[0:100]", "[...]", "[:, :]",
                                   "[:, 0:]", "[::1]", "[None]", "[-5:]", "[:4]", "[0:-0]",
                                   "[..., :]", "[:, ...]", "[1:]", "[0]"])
def test_which_writes_count_as_writes_into_the_whole_tensor(index):
    # PyTorch's indexing returns the tensor itself for some spellings of "all of it" and a view
    # for others; the gradient of the overwritten value requires grad only through a view
    torch = pytest.importorskip("torch")
    src = f"""
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
c = (x * 1.0).expand(4, 2).clone()
c{index} = torch.tensor(0.5, dtype=torch.float64)
g, = torch.autograd.grad(c.sin(), [x], grad_outputs=torch.ones(4, 2, dtype=torch.float64),
                         create_graph=True, allow_unused=True)
"""
    mine, theirs = _run(mtorch, src), _run(torch, src)
    if theirs["g"] is None:
        assert mine["g"] is None
    else:
        assert mine["g"].requires_grad == theirs["g"].requires_grad
        np.testing.assert_allclose(mine["g"].detach().numpy(), theirs["g"].detach().numpy())
