"""View and in-place programs run through mutograd and PyTorch: values and gradients must agree.

Every program starts from ``h = a * 1`` (``a`` a 3x4 float64 leaf), writes through a view and ends
with ``(h * W).sum()``. PyTorch refuses writes into the outputs of ``split``/``chunk``/``unbind``;
there the reference is PyTorch running the program's out-of-place rewrite (the written region
gathered, the write applied to that copy, the result put back with ``where``).
"""
import numpy as np
import pytest

import mutograd as mg

pytestmark = pytest.mark.torch

A = np.linspace(-1.0, 1.5, 12).reshape(3, 4)
W = np.arange(1.0, 13.0).reshape(3, 4) / 4

VIEWS = [
    ("slice_step", lambda t, L: t[1:, ::2]),
    ("negative_index", lambda t, L: t[-1, 1:]),
    ("select", lambda t, L: t.select(0, 1)),
    ("narrow", lambda t, L: t.narrow(1, 1, 2)),
    ("transpose", lambda t, L: t.transpose(0, 1)[2]),
    ("permute", lambda t, L: t.permute(1, 0)[::2]),
    ("t", lambda t, L: t.t()[1:3, 0]),
    ("diagonal", lambda t, L: t.diagonal()),
    ("diagonal_offset", lambda t, L: t.diagonal(1)),
    ("view", lambda t, L: t.view(12)[2:7]),
    ("reshape", lambda t, L: t.reshape(2, 6)[1]),
    ("unsqueeze", lambda t, L: t.unsqueeze(0)[0, 2]),
    ("squeeze", lambda t, L: t[1:2].squeeze(0)),
    ("none_ellipsis", lambda t, L: t[None, ..., 1]),
    ("scalar", lambda t, L: t[1, 2]),
    ("as_strided", lambda t, L: t.as_strided((2, 2), (4, 1), 1)),
    ("view_of_views", lambda t, L: t[1:].t()[::2].select(1, 0)),
    ("split", lambda t, L: L.split(t, 2, 1)[1]),
    ("chunk", lambda t, L: L.chunk(t, 3, 0)[2]),
    ("unbind", lambda t, L: t.unbind(1)[3]),
]

WRITES = [
    ("mul_scalar", lambda v, leaf: v.mul_(3.0)),
    ("add_leaf", lambda v, leaf: v.add_(leaf * 2.0)),
    ("mul_leaf", lambda v, leaf: v.mul_(leaf)),
    ("div_leaf", lambda v, leaf: v.div_(leaf + 2.0)),
    ("exp_", lambda v, leaf: v.exp_()),
    ("sin_", lambda v, leaf: v.sin_()),
    ("sigmoid_", lambda v, leaf: v.sigmoid_()),
    ("neg_", lambda v, leaf: v.neg_()),
    ("pow_", lambda v, leaf: v.pow_(2)),
    ("clamp_", lambda v, leaf: v.clamp_(-0.5, 0.5)),
    ("fill_", lambda v, leaf: v.fill_(0.5)),
    ("setitem_leaf", lambda v, leaf: v.__setitem__(..., leaf * 3.0)),
    ("iadd_then_tanh", lambda v, leaf: v.__iadd__(leaf).tanh_()),
]


class Lib:
    """What a program needs from a library: the module, tensors, and how leaves are made."""

    def __init__(self, module):
        self.m = module

    def tensor(self, a, grad=False):
        if self.m is mg:
            return mg.tensor(a, requires_grad=grad)
        return self.m.tensor(np.asarray(a), dtype=self.m.float64, requires_grad=grad)

    def split(self, t, n, d):
        return self.m.split(t, n, d)

    def chunk(self, t, n, d):
        return self.m.chunk(t, n, d)


def _refused(e):
    return "is a view and is being modified inplace" in str(e) or \
        "view of a leaf" in str(e) or "multiple" in str(e)


def _run(lib, view, write, rewrite=False):
    """Values of h and gradients of a and the leaf for one program in one library."""
    a = lib.tensor(A, grad=True)
    h = a * 1.0
    shape = tuple(view(lib.tensor(np.zeros((3, 4))), lib).shape)
    leaf = lib.tensor(np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape), grad=True)
    if not rewrite:
        write(view(h, lib), leaf)
    else:
        # The out-of-place rewrite: gather the view's region, write the copy, put it back.
        pos = view(lib.tensor(np.arange(12.0).reshape(3, 4)), lib)
        pos = np.asarray(pos.detach().numpy(), dtype=np.int64)
        flat_pos = pos.reshape(-1)
        flat = h.reshape(-1)
        region = flat[lib.tensor(flat_pos).long()].reshape(shape) if lib.m is not mg \
            else flat[mg.tensor(flat_pos)].reshape(shape)
        write(region, leaf)
        mask = np.zeros(12, bool)
        mask[flat_pos] = True
        inv = np.zeros(12, np.int64)
        inv[flat_pos] = np.arange(flat_pos.size)
        spread = region.reshape(-1)[lib.m.tensor(inv)]
        h = lib.m.where(lib.m.tensor(mask), spread, flat).reshape(3, 4)
    (h * lib.tensor(W)).sum().backward()
    return [h.detach().numpy().copy(), a.grad.numpy().copy(),
            None if leaf.grad is None else leaf.grad.numpy().copy()]


def _compare(got, want):
    for g, w in zip(got, want):
        if w is None or g is None:
            assert (g is None or not np.any(g)) and (w is None or not np.any(w))
        else:
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("write", WRITES, ids=[w[0] for w in WRITES])
@pytest.mark.parametrize("view", VIEWS, ids=[v[0] for v in VIEWS])
def test_write_through_view_matches_pytorch(view, write):
    torch = pytest.importorskip("torch")
    tl, ml = Lib(torch), Lib(mg)
    got = _run(ml, view[1], write[1])
    try:
        want = _run(tl, view[1], write[1])
    except RuntimeError as e:
        if not _refused(e):
            raise
        assert view[0] in ("split", "chunk", "unbind"), str(e)
        want = _run(tl, view[1], write[1], rewrite=True)
    _compare(got, want)
    # and mutograd's own rewrite agrees too
    _compare(got, _run(ml, view[1], write[1], rewrite=True))


# ---- longer programs, written out ---------------------------------------------------------


def _p_view_after_base_write(h, L, leaf):
    v = h[1]
    h.mul_(2.0)
    return [v.exp()]


def _p_sibling_views(h, L, leaf):
    col, row = h[:, 1], h[1]
    row.sin_()
    return [col * 1.0]


def _p_chain_of_writes(h, L, leaf):
    v = h.t()[1:]
    v.mul_(leaf[0, 0])
    h[2].add_(1.0)
    v[0].exp_()                  # last: exp_ keeps its output for backward
    return [v.sum(0)]


def _p_write_view_then_base_op(h, L, leaf):
    h[:, ::2].sin_()
    h.mul_(leaf)
    return []


def _p_view_of_view_written_twice(h, L, leaf):
    v = h.view(12)[1::3]
    v.add_(leaf.reshape(-1)[:4])
    v.reshape(2, 2).t()[0].sigmoid_()
    return [v * 2.0]


def _p_masked_fill_on_transpose(h, L, leaf):
    h.t().masked_fill_(L.m.tensor(A.T > 0.5), 0.25)
    return []


def _p_index_add_on_view(h, L, leaf):
    h[1:].index_add_(1, L.m.tensor(np.array([0, 2, 2])), leaf[:2, :3] * 1.0)
    return []


def _p_scatter_on_view(h, L, leaf):
    h.t()[::2].scatter_(1, L.m.tensor(np.array([[2, 0], [1, 0]])), leaf[:2, :2] * 1.0)
    return []


def _p_mask_setitem_on_view(h, L, leaf):
    v = h[:, 1:]
    v[L.m.tensor(A[:, 1:] > 0)] = 0.0
    return [v * leaf[:, 1:]]


def _p_int_array_setitem_on_view(h, L, leaf):
    v = h.t()
    v[L.m.tensor(np.array([3, 0]))] = leaf[:2, :3] * 1.0
    return []


def _p_setitem_then_read_view(h, L, leaf):
    v = h[0]
    h[0, 1:3] = leaf[0, :2] * 1.0
    return [v.exp()]


def _p_diag_written_then_matmul(h, L, leaf):
    h[:, :3].diagonal().mul_(leaf[0, :3])
    return [h[:, :3] @ h[:, :3].t()]


def _p_unsqueeze_expand_read(h, L, leaf):
    v = h.unsqueeze(0)
    v[0, 0].exp_()
    return [v.expand(2, 3, 4) * 1.0]


def _p_nested_select(h, L, leaf):
    h.select(1, 2).select(0, 1).mul_(leaf[0, 0])
    return [h[1] * 1.0]


def _p_inplace_on_non_view_then_view(h, L, leaf):
    h.mul_(2.0)
    h[1:].mul_(leaf[1:] * 1.0)
    h[:2].exp_()
    return []


def _p_two_overlapping_views(h, L, leaf):
    h[:2].mul_(2.0)
    h[1:].add_(leaf[1:])
    return []


def _p_clamp_then_setitem_scalar(h, L, leaf):
    h[::2, 1:].clamp_(min=-0.2)
    h[1, ...] = 0.0
    return [h * leaf]


def _p_old_view_after_base_t_(h, L, leaf):
    v = h[1]
    h.t_()
    v.mul_(leaf[0])
    return [h * 1.0]


def _p_old_view_after_base_unsqueeze_(h, L, leaf):
    v = h[:, 1:3]
    h.unsqueeze_(0)
    v.sin_()
    return [h[0] * leaf]


def _p_view_of_transposed_base_written(h, L, leaf):
    h.t_()
    h[1:3].mul_(leaf.t()[1:3])
    return []


PROGRAMS = [v for k, v in sorted(globals().items()) if k.startswith("_p_")]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__[3:] for p in PROGRAMS])
def test_program_matches_pytorch(program):
    torch = pytest.importorskip("torch")

    def run(lib):
        a = lib.tensor(A, grad=True)
        leaf = lib.tensor(np.linspace(0.5, 1.5, 12).reshape(3, 4), grad=True)
        h = a * 1.0
        outs = program(h, lib, leaf)
        loss = (h * lib.tensor(W.reshape(tuple(h.shape)))).sum()   # h may be reshaped in place
        for i, o in enumerate(outs):
            loss = loss + (o * (i + 2.0)).sum()
        loss.backward()
        return [h.detach().numpy().copy(), a.grad.numpy().copy(),
                None if leaf.grad is None else leaf.grad.numpy().copy()] + \
            [o.detach().numpy().copy() for o in outs]

    _compare(run(Lib(mg)), run(Lib(torch)))


def test_a_write_after_exp_through_a_view_raises_in_both():
    torch = pytest.importorskip("torch")
    for lib in (Lib(mg), Lib(torch)):
        a = lib.tensor(A, grad=True)
        h = a * 1.0
        h[0].exp_()                      # keeps its output (a view of h) for backward
        h[1].mul_(2.0)                   # a later write to the same storage
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            h.sum().backward()


def test_the_suite_has_at_least_150_programs():
    assert len(VIEWS) * len(WRITES) + len(PROGRAMS) >= 150
