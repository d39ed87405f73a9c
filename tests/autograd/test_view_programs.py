"""Random programs of views and in-place writes, checked against their out-of-place rewrite.

Each program starts from ``h = a * 1`` (``a`` a 3x4 leaf) and runs random steps: take a view of a
live view (slices with steps, select, narrow, transpose, permute, t, diagonal, view, unsqueeze,
squeeze, as_strided, split/chunk/unbind outputs), change a view's own geometry in place (t_,
transpose_, reshape_, squeeze_, unsqueeze_), write into a view in place (unary ops, binary ops
with another view or a leaf that requires grad, item assignment, masked_fill_, index_add_,
index_fill_), or compute an ordinary result from a view. It ends with a reduction over ``h`` and
the ordinary results.

The rewrite keeps the base as a plain value ``B`` and each view as a map of flat positions into
``B`` (the same view ops applied to ``arange``). Reading a view gathers ``B`` at its map; writing
``op(v)`` makes a new ``B = where(mask, gathered new values, B)``: no in-place op, no view write.
Both must give the same values and gradients.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import mutograd as mg

settings.register_profile("views-ci", max_examples=int(os.environ.get("VIEW_PROGRAMS", "250")),
                          deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The slow-marked sweep: a small sample by default, thousands with VIEW_PROGRAMS_NIGHTLY=5000.
settings.register_profile("views-nightly",
                          max_examples=int(os.environ.get("VIEW_PROGRAMS_NIGHTLY", "40")),
                          deadline=None, suppress_health_check=[HealthCheck.too_slow])

SHAPE = (3, 4)
N = 12
A = np.linspace(-0.9, 1.3, N).reshape(SHAPE)


class Functional:
    """The rewrite: the base as a value and views as flat-position maps."""

    def __init__(self, a):
        self.B = a * 1.0

    def read(self, pos):
        flat = self.B.reshape(-1)
        return flat[mg.tensor(pos.reshape(-1))].reshape(pos.shape) if pos.size else \
            mg.zeros(pos.shape, dtype="float64")

    def write(self, pos, new):
        """``B[pos] = new`` as ``where(mask, new gathered by position, B)`` (pos has no repeats)."""
        if not pos.size:
            return
        flat_pos = pos.reshape(-1)
        mask = np.zeros(N, bool)
        mask[flat_pos] = True
        where_in = np.zeros(N, np.int64)
        where_in[flat_pos] = np.arange(flat_pos.size)
        new_flat = new.expand(pos.shape).reshape(-1) if tuple(new.shape) != pos.shape \
            else new.reshape(-1)
        spread = new_flat[mg.tensor(where_in)]
        self.B = mg.where(mg.tensor(mask), spread, self.B.reshape(-1)).reshape(*SHAPE)


def _view_steps(shape, contiguous):
    """The view ops that apply to a tensor of ``shape``: (description, function) pairs."""
    nd = len(shape)
    ops = []
    for d in range(nd):
        n = shape[d]
        if n:
            ops.append((f"select({d})", lambda t, d=d, n=n: t.select(d, n - 1)))
            ops.append((f"narrow({d})", lambda t, d=d, n=n: t.narrow(d, n // 2, n - n // 2)))
            ops.append((f"[::2]@{d}", lambda t, d=d: t[(slice(None),) * d + (slice(None, None,
                                                                                   2),)]))
            ops.append((f"[::-1]@{d}" if False else f"[1:]@{d}",
                        lambda t, d=d: t[(slice(None),) * d + (slice(1, None),)]))
            ops.append((f"split({d})", lambda t, d=d: mg.split(t, 2, d)[-1]))
            ops.append((f"chunk({d})", lambda t, d=d: mg.chunk(t, 2, d)[0]))
            ops.append((f"unbind({d})", lambda t, d=d: t.unbind(d)[0]))
        if shape[d] == 1:
            ops.append((f"squeeze({d})", lambda t, d=d: t.squeeze(d)))
    if nd < 4:
        ops.append(("unsqueeze(0)", lambda t: t.unsqueeze(0)))
    if nd >= 2:
        ops.append(("transpose(0,-1)", lambda t: t.transpose(0, nd - 1)))
        ops.append(("permute(rev)", lambda t: t.permute(*range(nd - 1, -1, -1))))
        ops.append(("diagonal", lambda t: t.diagonal()))
        if shape[-1]:
            ops.append(("[None, ..., 0]", lambda t: t[None, ..., 0]))
    if nd <= 2:
        ops.append(("t", lambda t: t.t()))
    if contiguous:
        ops.append(("view(-1)", lambda t: t.view(-1)))
        size = int(np.prod(shape))
        if size >= 4:
            ops.append(("as_strided", lambda t: t.as_strided((2, 2), (1, 2), 0)))
    return ops


def _meta_steps(shape, contiguous):
    """In-place view ops for a tensor of ``shape``: (description, in place, out of place)."""
    nd = len(shape)
    ops = [("squeeze", lambda t: t.squeeze_(), lambda t: t.squeeze())]
    if nd < 4:
        ops.append(("unsqueeze(0)", lambda t: t.unsqueeze_(0), lambda t: t.unsqueeze(0)))
    if nd <= 2:
        ops.append(("t", lambda t: t.t_(), lambda t: t.t()))
    if nd >= 2:
        ops.append(("transpose(0,-1)", lambda t: t.transpose_(0, nd - 1),
                    lambda t: t.transpose(0, nd - 1)))
    if contiguous:
        ops.append(("reshape(-1)", lambda t: t.reshape_(-1), lambda t: t.reshape(-1)))
    return ops


UNARY = [("exp_", "exp"), ("sin_", "sin"), ("tanh_", "tanh"), ("sigmoid_", "sigmoid"),
         ("neg_", "neg"), ("square_", "square")]


@st.composite
def programs(draw, longest=9):
    return draw(st.integers(0, 2 ** 31)), draw(st.integers(3, longest))


def _run(seed, steps, data):
    rng = np.random.default_rng(seed)
    a1 = mg.tensor(A, requires_grad=True)
    a2 = mg.tensor(A, requires_grad=True)
    h = a1 * 1.0
    fn = Functional(a2)
    views = [(h, np.arange(N).reshape(SHAPE), "h")]
    outs1, outs2, leaves = [], [], []
    log = []
    # A write after an op that saved a tensor of the base by reference (exp_ keeps its output,
    # mul_ keeps a non-overlapping other view) must make backward raise, as it must in PyTorch.
    saved_ref = stale = False
    for _ in range(steps):
        v, pos, name = views[int(rng.integers(len(views)))]
        kind = rng.choice(["view", "view", "unary", "binary", "leaf", "setitem", "scatter",
                           "meta", "ordinary"])
        if kind == "scatter" and (v.ndim == 0 or v.shape[0] == 0):
            kind = "unary"
        if kind not in ("view", "ordinary"):   # metadata ops are writes too (rule 9)
            stale = stale or saved_ref
        if kind == "meta":
            # an in-place view op changes the tensor's own geometry (and, on h, the base's)
            ops = _meta_steps(tuple(v.shape), v.is_contiguous())
            desc, f_, f = ops[int(rng.integers(len(ops)))]
            i = next(k for k, e in enumerate(views) if e[0] is v)
            f_(v)
            views[i] = (v, f(mg.tensor(pos)).numpy().copy(), f"{name}.{desc}")
            log.append(f"{name}.{desc}_")
            continue
        if kind == "view":
            ops = _view_steps(tuple(v.shape), v.is_contiguous())
            desc, f = ops[int(rng.integers(len(ops)))]
            pm = f(mg.tensor(pos)).numpy().copy()
            views.append((f(v), pm, f"{name}.{desc}"))
            log.append(f"{name}.{desc}")
            continue
        if kind == "unary":
            op_, op = UNARY[int(rng.integers(len(UNARY)))]
            getattr(v, op_)()
            fn.write(pos, getattr(fn.read(pos), op)())
            saved_ref = saved_ref or op in ("exp", "tanh", "sigmoid")
            log.append(f"{name}.{op_}()")
        elif kind == "binary":
            same = [(u, p, n) for u, p, n in views if tuple(u.shape) == tuple(v.shape)]
            u, upos, uname = same[int(rng.integers(len(same)))]
            which = rng.choice(["add_", "mul_", "sub_"])
            old_u = fn.read(upos)                  # the other input, read before the write
            saved_ref = saved_ref or (which == "mul_" and not np.may_share_memory(
                u.numpy(), v.numpy()))            # an overlapping input is copied instead
            getattr(v, which)(u)
            fn.write(pos, getattr(fn.read(pos), which[:-1])(old_u))
            log.append(f"{name}.{which}({uname})")
        elif kind == "leaf":
            w = rng.uniform(0.5, 1.5, tuple(v.shape)[-1:] if v.ndim else ())
            l1, l2 = mg.tensor(w, requires_grad=True), mg.tensor(w, requires_grad=True)
            leaves.append((l1, l2))
            which = rng.choice(["add_", "mul_"])
            getattr(v, which)(l1 * 1.0)
            fn.write(pos, getattr(fn.read(pos), which[:-1])(l2 * 1.0))
            log.append(f"{name}.{which}(leaf{w.shape})")
        elif kind == "scatter":
            which = rng.choice(["masked_fill_", "index_add_", "index_fill_"])
            n0 = v.shape[0]
            idx = mg.tensor(rng.integers(0, n0, size=3))          # repeats allowed
            if which == "masked_fill_":
                m = mg.tensor(rng.random(tuple(v.shape)) > 0.5)
                v.masked_fill_(m, -0.5)
                fn.write(pos, fn.read(pos).masked_fill(m, -0.5))
            elif which == "index_fill_":
                v.index_fill_(0, idx, 0.75)
                fn.write(pos, fn.read(pos).index_fill(0, idx, 0.75))
            else:
                w = rng.uniform(-1, 1, (3,) + tuple(v.shape)[1:])
                l1, l2 = mg.tensor(w, requires_grad=True), mg.tensor(w, requires_grad=True)
                leaves.append((l1, l2))
                v.index_add_(0, idx, l1 * 1.0, alpha=0.5)
                fn.write(pos, fn.read(pos).index_add(0, idx, l2 * 1.0, alpha=0.5))
            log.append(f"{name}.{which}(...)")
        elif kind == "setitem":
            if v.ndim == 0 or v.shape[0] == 0:
                idx = ...
            else:
                n0 = v.shape[0]
                choices = [0, slice(None, None, 2), slice(1, None),
                           np.array([n0 - 1, 0]) if n0 > 1 else np.array([0]),
                           rng.random(tuple(v.shape)) > 0.5,
                           (..., 0) if v.ndim > 1 and v.shape[-1] else -1,
                           (None, 0)]
                idx = choices[int(rng.integers(len(choices)))]
            target = pos[idx]
            if rng.random() < 0.5:
                v[idx] = 0.25
                fn.write(target, mg.tensor(np.full(target.shape, 0.25)))
                log.append(f"{name}[{idx!r}] = 0.25")
            else:
                w = rng.uniform(-1, 1, target.shape[-1:] if target.ndim else ())
                l1, l2 = mg.tensor(w, requires_grad=True), mg.tensor(w, requires_grad=True)
                leaves.append((l1, l2))
                v[idx if not isinstance(idx, np.ndarray) or idx.dtype != bool
                  else mg.tensor(idx)] = l1 * 2.0
                fn.write(target, (l2 * 2.0).expand(target.shape))
                log.append(f"{name}[{idx!r}] = leaf{w.shape} * 2")
        else:
            c = float(rng.uniform(0.5, 2))
            outs1.append((v * c).exp())             # saves its own output only
            outs2.append((fn.read(pos) * c).exp())
            log.append(f"exp({name} * {c:.2f})")
    if data is None:
        note("\n".join(log))
    if data is not None:
        data.append(log)
    wts = np.random.default_rng(seed + 1)
    h_pos = views[0][1]                   # h's own map: t_()/reshape_() may have changed it
    h2 = fn.read(h_pos)
    W = mg.tensor(wts.standard_normal(tuple(h.shape)))
    loss1 = (h * W).sum()
    loss2 = (h2 * W).sum()
    for o1, o2 in zip(outs1, outs2):
        wo = mg.tensor(wts.standard_normal(tuple(o1.shape)))
        loss1 = loss1 + (o1 * wo).sum()
        loss2 = loss2 + (o2 * wo).sum()
    # overflow (repeated exp_ and square_) makes inf/nan whose placement is not the point here
    finite = all(np.all(np.abs(t.numpy()) < 1e8) for t in [h, h2] + outs1 + outs2)
    if data is None:
        assume(finite)
    elif not finite:
        return
    np.testing.assert_allclose(h.numpy(), h2.numpy(), rtol=1e-10, atol=1e-12)
    for o1, o2 in zip(outs1, outs2):
        np.testing.assert_allclose(o1.numpy(), o2.numpy(), rtol=1e-10, atol=1e-12)
    if stale:
        with pytest.raises(mg.VersionError, match="modified by an inplace operation"):
            loss1.backward()
        return
    loss1.backward()
    loss2.backward()
    np.testing.assert_allclose(a1.grad.numpy(), a2.grad.numpy(), rtol=1e-9, atol=1e-12)
    for l1, l2 in leaves:
        # a leaf written into an empty region gets a zero gradient, or none in the rewrite
        g1 = np.zeros(l1.shape) if l1.grad is None else l1.grad.numpy()
        g2 = np.zeros(l2.shape) if l2.grad is None else l2.grad.numpy()
        np.testing.assert_allclose(g1, g2, rtol=1e-9, atol=1e-12)


@settings(settings.get_profile("views-ci"))
@given(programs())
def test_random_view_programs_agree_with_their_out_of_place_rewrite(prog):
    _run(*prog, None)


@pytest.mark.slow
@settings(settings.get_profile("views-nightly"))
@given(programs(longest=16))
def test_many_random_view_programs(prog):
    _run(*prog, None)


def test_the_generator_covers_every_kind_of_step():
    logs = []
    for seed in range(60):
        _run(seed, 9, logs)
    text = "\n".join("\n".join(log) for log in logs)
    for piece in ("select", "narrow", "[::2]", "split", "chunk", "unbind", "transpose",
                  "permute", "diagonal", ".t", "view(-1)", "as_strided", "unsqueeze",
                  "exp_()", "add_(", "mul_(leaf", "] = 0.25", "] = leaf", "exp(h",
                  "masked_fill_", "index_add_", "index_fill_", ".t_", "reshape(-1)_"):
        assert piece in text, piece
