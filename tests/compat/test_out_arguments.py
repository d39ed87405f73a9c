"""``out=`` in the torch dialect (Note [Writing into out=] in mutograd/autograd/out_arguments.py),
against PyTorch: which functions take it, what is written, versions, resizing, dtypes, and the
errors before any write."""
import json
import os
import warnings

import numpy as np
import pytest

import mutograd.compat.torch as mt
from mutograd.compat.torch.out_arguments import out_functions

R = np.random.default_rng(0)
A = R.standard_normal((3, 4)).astype(np.float32)
B = R.standard_normal((3, 4)).astype(np.float32)
SQ = (R.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)

# (id, call(T, a, b, sq, **out) -> result, out(T) -> the out argument)
CASES = [
    ("cat", lambda T, a, b, sq, **o: T.cat([a, b], 0, **o), lambda T: T.zeros(6, 4)),
    ("stack", lambda T, a, b, sq, **o: T.stack([a, b], 1, **o), lambda T: T.zeros(3, 2, 4)),
    ("sum-dim", lambda T, a, b, sq, **o: T.sum(a, 1, **o), lambda T: T.zeros(3)),
    ("mean-keepdim", lambda T, a, b, sq, **o: T.mean(a, 0, True, **o), lambda T: T.zeros(1, 4)),
    ("clamp", lambda T, a, b, sq, **o: T.clamp(a, -0.5, 0.5, **o), lambda T: T.zeros(3, 4)),
    ("where", lambda T, a, b, sq, **o: T.where(a > 0, a, b, **o), lambda T: T.zeros(3, 4)),
    ("index_select", lambda T, a, b, sq, **o: T.index_select(a, 1, T.tensor([2, 0]), **o),
     lambda T: T.zeros(3, 2)),
    ("add-alpha", lambda T, a, b, sq, **o: T.add(a, b, alpha=2, **o), lambda T: T.zeros(3, 4)),
    ("matmul", lambda T, a, b, sq, **o: T.matmul(a, b.T, **o), lambda T: T.zeros(3, 3)),
    ("exp-into-float64", lambda T, a, b, sq, **o: T.exp(a, **o),
     lambda T: T.zeros(3, 4, dtype=T.float64)),
    ("cumsum", lambda T, a, b, sq, **o: T.cumsum(a, 1, **o), lambda T: T.zeros(3, 4)),
    ("linalg.inv", lambda T, a, b, sq, **o: T.linalg.inv(sq, **o), lambda T: T.zeros(3, 3)),
    ("arange", lambda T, a, b, sq, **o: T.arange(5, **o),
     lambda T: T.zeros(5, dtype=T.int64)),
    ("resize-empty", lambda T, a, b, sq, **o: T.mul(a, b, **o), lambda T: T.zeros(0)),
    ("sort", lambda T, a, b, sq, **o: T.sort(a, 1, **o),
     lambda T: (T.zeros(3, 4), T.zeros(3, 4, dtype=T.int64))),
    ("topk", lambda T, a, b, sq, **o: T.topk(a, 2, **o),
     lambda T: [T.zeros(3, 2), T.zeros(3, 2, dtype=T.int64)]),
    ("max-dim", lambda T, a, b, sq, **o: T.max(a, 1, **o),
     lambda T: (T.zeros(3), T.zeros(3, dtype=T.int64))),
]


def _np(r):
    return [np.asarray(t.numpy()) for t in (r if isinstance(r, tuple) else (r,))]


@pytest.mark.torch
@pytest.mark.parametrize("name,call,make_out", CASES, ids=[c[0] for c in CASES])
def test_out_is_written_and_returned_as_in_pytorch(name, call, make_out):
    torch = pytest.importorskip("torch")
    got = {}
    for T in (mt, torch):
        out = make_out(T)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        versions = [o._version for o in outs]
        r = call(T, T.tensor(A), T.tensor(B), T.tensor(SQ), out=out)
        rs = r if isinstance(r, tuple) else (r,)
        assert all(x is o for x, o in zip(rs, outs)), "out= returns the objects passed"
        assert [o._version for o in outs] > versions
        got[T] = _np(r)
    for m, t in zip(got[mt], got[torch]):
        assert m.dtype == t.dtype and m.shape == t.shape
        np.testing.assert_allclose(m, t, rtol=1e-5, atol=1e-6)


# (id, call(T) -> raises, expected error class in both, message fragment)
REFUSALS = [
    ("input-requires-grad",
     lambda T: T.add(T.ones(2, requires_grad=True), 1, out=T.zeros(2)), RuntimeError,
     "don't support automatic differentiation"),
    ("out-requires-grad", lambda T: T.add(T.ones(2), 1, out=T.zeros(2, requires_grad=True)),
     RuntimeError, "don't support automatic differentiation"),
    ("float-into-long", lambda T: T.add(T.ones(2), 1.5, out=T.zeros(2, dtype=T.int64)),
     RuntimeError, "result type Float can't be cast to the desired output type Long"),
    ("indices-into-float", lambda T: T.sort(T.ones(3), out=(T.zeros(3), T.zeros(3))),
     RuntimeError, "Expected out tensor to have dtype long int, but got float instead"),
    ("partial-overlap", lambda T: (lambda b: T.add(b[:4], 1, out=b[1:5]))(T.arange(6.0)),
     RuntimeError, "refer to a single memory location"),
    ("tuple-length", lambda T: T.topk(T.ones(3), 1, out=(T.zeros(1),)), TypeError,
     "expected tuple of 2 elements but got 1"),
    ("not-taken", lambda T: T.relu(T.ones(2), out=T.zeros(2)), TypeError,
     "unexpected keyword argument 'out'"),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,call,error,text", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusals_match_pytorch_and_write_nothing(name, call, error, text):
    torch = pytest.importorskip("torch")
    for T in (torch, mt):
        with pytest.raises(error, match=text):
            call(T)


def test_nothing_is_written_when_the_check_fails():
    out = mt.zeros(3)
    with pytest.raises(RuntimeError):
        mt.sort(mt.ones(3), out=(out, mt.zeros(3)))       # indices must be int64
    assert out.tolist() == [0.0, 0.0, 0.0] and out._version == 0


def test_a_larger_out_is_resized_with_pytorchs_warning_and_an_empty_one_silently():
    a = mt.ones(2, 3)
    big = mt.zeros(5)
    with pytest.warns(UserWarning, match=r"resized since it had shape \[5\].*shape \[2, 3\]"):
        assert mt.add(a, a, out=big) is big
    assert big.shape == (2, 3) and big.tolist() == [[2.0] * 3] * 2
    empty = mt.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.add(a, a, out=empty)
    assert empty.shape == (2, 3)


def test_out_may_be_an_input_and_a_saved_tensor_write_is_caught():
    b = mt.arange(4.0)
    assert mt.add(b, 1, out=b) is b and b.tolist() == [1.0, 2.0, 3.0, 4.0]
    w = mt.ones(3, requires_grad=True)
    h = w * 1.0
    y = (h * h).sum()               # saves h
    with mt.no_grad():
        mt.mul(mt.ones(3), 2, out=h)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_the_recorded_list_is_what_the_dialect_takes():
    """Every function PyTorch gives ``out=`` that the dialect has takes it; the list is the one
    recorded from the real wheel (tools/api_coverage.py --record)."""
    path = os.path.join(os.path.dirname(mt.__file__), "out_functions.json")
    with open(path) as f:
        recorded = json.load(f)
    assert {"torch", "torch.linalg", "torch.special", "torch.fft"} <= set(recorded)
    names = out_functions()
    assert "torch.cat" in names and "torch.sort" in names and "torch.relu" not in names
    assert "torch.linalg.svd" in names
    assert len(names) > 300
