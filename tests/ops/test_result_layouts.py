"""The memory layout of new results, as PyTorch 2.13 lays them out (Note [Result layouts] in
mutograd/ops/registry.py): reductions and scans C-contiguous, sort and flip in the input's
strides, an element-wise result in its first operand's. The layout decides what a later view,
``reshape`` or ``as_strided`` of the result shares, so it is behaviour, not a detail. The
strides below were recorded from PyTorch; the ``torch``-marked test checks the recording."""
import numpy as np
import pytest

import mutograd.compat.torch as mt

PERMS = [(2, 0, 1), (0, 2, 1), (1, 0, 2), (2, 1, 0)]   # of a C-contiguous [3, 4, 5] tensor


def _input(lib, perm):
    x = lib.tensor(np.arange(60.0).reshape(3, 4, 5) % 7, dtype=lib.float64)
    return x.permute(*perm)


def _contiguous_like(lib, x):
    return x.contiguous() + 0


CASES = {
    "sum": lambda L, x: x.sum(1), "sum_dims": lambda L, x: x.sum((0, 2)),
    "mean": lambda L, x: x.mean(0), "amax": lambda L, x: x.amax(1),
    "max_values": lambda L, x: x.max(1)[0], "prod": lambda L, x: x.prod(2),
    "std": lambda L, x: x.std(1), "var": lambda L, x: x.var(0),
    "logsumexp": lambda L, x: x.logsumexp(1), "norm": lambda L, x: x.norm(dim=1),
    "all": lambda L, x: (x > 2).all(1), "any": lambda L, x: (x > 2).any(0),
    "argmax": lambda L, x: x.argmax(1), "count_nonzero": lambda L, x: x.count_nonzero(1),
    "nansum": lambda L, x: x.nansum(1), "aminmax": lambda L, x: x.aminmax(dim=1)[0],
    "cumsum": lambda L, x: x.cumsum(1), "cumprod": lambda L, x: x.cumprod(0),
    "logcumsumexp": lambda L, x: x.logcumsumexp(1), "cummax": lambda L, x: x.cummax(1)[0],
    "log_softmax": lambda L, x: x.log_softmax(0), "softmax": lambda L, x: x.softmax(0),
    "roll": lambda L, x: x.roll(1, 0), "tril": lambda L, x: x.tril(),
    "masked_fill": lambda L, x: x.masked_fill(x > 3, 0.0),
    "renorm": lambda L, x: x.renorm(2, 0, 1.0),
    "sort": lambda L, x: x.sort(1)[0], "sort_indices": lambda L, x: x.sort(0)[1],
    "argsort": lambda L, x: x.argsort(2), "flip": lambda L, x: x.flip(0),
    "topk": lambda L, x: x.topk(2, 1)[0], "sin": lambda L, x: x.sin(),
    "add_contiguous": lambda L, x: x + _contiguous_like(L, x),
    "contiguous_add": lambda L, x: _contiguous_like(L, x) + x,
    "div_keepdim": lambda L, x: x / x.sum(1, keepdim=True),
    "add_fn": lambda L, x: L.add(x, _contiguous_like(L, x), alpha=2),
    "gt": lambda L, x: x > _contiguous_like(L, x),
    "maximum": lambda L, x: L.maximum(x, _contiguous_like(L, x)),
    "where": lambda L, x: L.where(_contiguous_like(L, x) > 2, x, 0.0),
    "normalize": lambda L, x: L.nn.functional.normalize(x, dim=1),
    "sum_keepdim": lambda L, x: x.sum(1, keepdim=True), "clone": lambda L, x: x.clone(),
    "clone_broadcast": lambda L, x: x[:1].expand(*x.shape).clone(),
    "to_broadcast": lambda L, x: x[:1].expand(*x.shape).to(L.float32),
    "zeros_like_broadcast": lambda L, x: L.zeros_like(x[:1].expand(*x.shape)),
    "flip_broadcast": lambda L, x: x[:1].expand(*x.shape).flip(1),
}

PYTORCH_STRIDES = {
    'sum': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'sum_dims': [(1,), (1,), (1,), (1,)],
    'mean': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'amax': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'max_values': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'prod': [(3, 1), (5, 1), (3, 1), (4, 1)],
    'std': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'var': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'logsumexp': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'norm': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'all': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'any': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'argmax': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'count_nonzero': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'nansum': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'aminmax': [(4, 1), (4, 1), (5, 1), (3, 1)],
    'cumsum': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'cumprod': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'logcumsumexp': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'cummax': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'log_softmax': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'softmax': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'roll': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'tril': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'masked_fill': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'renorm': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'sort': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'sort_indices': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'argsort': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'flip': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'topk': [(8, 4, 1), (8, 4, 1), (10, 5, 1), (6, 3, 1)],
    'sin': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'add_contiguous': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'contiguous_add': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'div_keepdim': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'add_fn': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'gt': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'maximum': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'where': [(12, 4, 1), (20, 4, 1), (15, 5, 1), (12, 3, 1)],
    'normalize': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'sum_keepdim': [(4, 4, 1), (4, 4, 1), (5, 5, 1), (3, 3, 1)],
    'clone': [(1, 20, 5), (20, 1, 5), (5, 20, 1), (1, 5, 20)],
    'clone_broadcast': [(12, 4, 1), (20, 1, 5), (15, 5, 1), (12, 1, 4)],
    'to_broadcast': [(12, 4, 1), (20, 1, 5), (15, 5, 1), (12, 1, 4)],
    'zeros_like_broadcast': [(12, 4, 1), (20, 1, 5), (15, 5, 1), (12, 1, 4)],
    'flip_broadcast': [(12, 4, 1), (20, 1, 5), (15, 5, 1), (12, 1, 4)],
}


@pytest.mark.parametrize("name", list(CASES))
def test_result_layout_is_pytorchs(name):
    got = [tuple(CASES[name](mt, _input(mt, p)).stride()) for p in PERMS]
    assert got == PYTORCH_STRIDES[name]


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_recorded_strides_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    assert [tuple(CASES[name](torch, _input(torch, p)).stride()) for p in PERMS] == \
        PYTORCH_STRIDES[name]


def _unfolded(lib):   # overlapping windows: strides (4, 1, 1), two of them tied
    return lib.tensor(np.arange(12.0).reshape(3, 4), dtype=lib.float64).unfold(1, 3, 1)


def _expanded(lib, dtype="float64"):   # a broadcast axis: stride 0
    return lib.tensor(np.arange(15.0).reshape(3, 1, 5), dtype=getattr(lib, dtype)).expand(3, 4, 5)


# element-wise results of inputs whose strides tie or are 0, where NumPy's order "K" and
# PyTorch's differ: PyTorch puts the smaller of two tied axes inside, a broadcast axis in place
TIED = {
    "unfold_abs": (lambda L: _unfolded(L).abs(), (6, 1, 2)),
    "unfold_plus_scalar": (lambda L: _unfolded(L) + 1, (6, 1, 2)),
    "unfold_plus_itself": (lambda L: _unfolded(L) + _unfolded(L), (6, 1, 2)),
    "unfold_sigmoid": (lambda L: _unfolded(L).sigmoid(), (6, 1, 2)),
    "unfold_mul_fn": (lambda L: L.mul(_unfolded(L), 2.0), (6, 1, 2)),
    "expand_sin": (lambda L: _expanded(L).sin(), (20, 5, 1)),
    "expand_times_scalar": (lambda L: _expanded(L) * 2, (20, 5, 1)),
    "expand_transposed_exp": (lambda L: _expanded(L).transpose(0, 2).exp(), (1, 5, 20)),
    # promoted first (float32 to float64): the layout is still the operands' own
    "expand_promoted_minimum": (lambda L: L.minimum(
        _expanded(L, "float32"), L.tensor(np.arange(5.0), dtype=L.float64)), (20, 5, 1)),
    "expand_promoted_add": (lambda L: _expanded(L, "float32").transpose(0, 2) +
                            L.tensor(np.arange(3.0), dtype=L.float64), (1, 5, 20)),
}


@pytest.mark.parametrize("name", list(TIED))
def test_tied_and_broadcast_strides_are_laid_out_as_pytorch(name):
    fn, strides = TIED[name]
    assert tuple(fn(mt).stride()) == strides


@pytest.mark.torch
@pytest.mark.parametrize("name", list(TIED))
def test_recorded_tied_strides_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, strides = TIED[name]
    assert tuple(fn(torch).stride()) == strides


def test_a_reduction_of_a_permuted_tensor_reshapes_to_a_view():
    # the fuzz program that found the class: PyTorch's sum is C-contiguous, so reshape(15) is a
    # view and a shape-only write through it bumps the sum's version
    s = _input(mt, (2, 0, 1)).sum(-1)
    v = s.reshape(15)
    v.unsqueeze_(0)
    assert s._version == 1 and v._base is s


@pytest.mark.parametrize("name", list(CASES))
def test_the_layout_changes_no_value_or_gradient(name):
    """Each case on a permuted input against the same case on a C-contiguous copy of it:
    values and first-order gradients equal."""
    results = []
    for perm in PERMS:
        for contiguous in (False, True):
            x = _input(mt, perm).detach()
            x = (x.contiguous() if contiguous else x).requires_grad_()
            y = CASES[name](mt, x)
            grad = None
            if y.requires_grad:
                (y * mt.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
                grad = x.grad.numpy()
            results.append((y.detach().numpy(), grad))
    for (a, ga), (b, gb) in zip(results[::2], results[1::2]):
        assert np.array_equal(a, b)
        assert (ga is None) == (gb is None) and (ga is None or np.allclose(ga, gb))
