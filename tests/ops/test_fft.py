"""``mutograd.fft`` against NumPy, PyTorch 2.13 and float64 finite differences.

One table of cases (a function, a real or complex input of a shape, its arguments) drives the
values (NumPy and PyTorch), the dtypes, the gradients of a real loss (PyTorch and finite
differences) and the second derivatives (PyTorch). A complex input is ``view_as_complex`` of a
real leaf, so every gradient is of a real tensor, in PyTorch's convention (Note [Complex
gradients] in mutograd/ops/elementwise.py). The generic op table (tests/op_db.py) takes real
results only, so the transforms have this table of their own.
"""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg
import mutograd.compat.torch as mt

R = np.random.default_rng(7)


class Case:
    def __init__(self, fn, shape, complex_in=False, **kw):
        self.fn, self.shape, self.complex_in, self.kw = fn, shape, complex_in, kw
        self.data = R.standard_normal(tuple(shape) + ((2,) if complex_in else ()))
        self.id = f"{fn}-{'c' if complex_in else 'r'}{'x'.join(map(str, shape))}-" + "-".join(
            f"{k}={v}" for k, v in kw.items())


CASES = [
    Case("fft", (5,), True),
    Case("fft", (6,), n=8),
    Case("fft", (3, 4), True, n=3, dim=0, norm="ortho"),
    Case("fft", (2, 5), norm="forward"),
    Case("ifft", (4, 6), True, dim=0),
    Case("ifft", (5,), True, n=7, norm="forward"),
    Case("ifft", (5,), norm="ortho"),
    Case("rfft", (6,)),
    Case("rfft", (3, 5), n=4, dim=0, norm="ortho"),
    Case("rfft", (7,), n=10, norm="forward"),
    Case("irfft", (4,), True),
    Case("irfft", (3, 5), True, n=7),
    Case("irfft", (4, 3), True, n=4, dim=0, norm="ortho"),
    Case("irfft", (5,), True, n=6, norm="forward"),
    Case("irfft", (4,)),
    Case("hfft", (4,), True),
    Case("hfft", (3, 5), True, n=7, norm="ortho"),
    Case("ihfft", (6,)),
    Case("ihfft", (2, 5), n=6, norm="forward"),
    Case("fft2", (3, 4), True),
    Case("fft2", (2, 3, 4), s=(4, 5), norm="ortho"),
    Case("fft2", (3, 3, 2), True, dim=(0, 2)),
    Case("ifft2", (3, 4), True, s=(2, 5), norm="forward"),
    Case("rfft2", (4, 6)),
    Case("rfft2", (2, 3, 5), s=(4, 4), dim=(0, 2), norm="ortho"),
    Case("irfft2", (4, 4), True),
    Case("irfft2", (3, 4), True, s=(3, 5), norm="forward"),
    Case("hfft2", (3, 4), True),
    Case("ihfft2", (4, 6), norm="ortho"),
    Case("fftn", (2, 3, 4), True),
    Case("fftn", (3, 4), s=(5,), norm="ortho"),
    Case("fftn", (2, 3, 4), True, dim=(2, 0), s=(3, 3)),
    Case("ifftn", (2, 3, 4), True, dim=(0, 1), norm="forward"),
    Case("rfftn", (2, 3, 4)),
    Case("rfftn", (3, 4, 5), dim=(2, 0), norm="forward"),
    Case("irfftn", (2, 3, 4), True),
    Case("irfftn", (3, 4, 3), True, dim=(2, 0), s=(5, 4)),
    Case("hfftn", (2, 3, 4), True, norm="ortho"),
    Case("ihfftn", (2, 3, 4)),
    Case("fftshift", (4, 5)),
    Case("fftshift", (3, 4), True, dim=1),
    Case("ifftshift", (5, 3), dim=(0,)),
]
IDS = [c.id for c in CASES]


def _numpy_kwargs(case):
    kw = dict(case.kw)
    if "dim" in kw:
        one = case.fn in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
        kw["axis" if one else "axes"] = kw.pop("dim")
    elif "s" in kw:   # (NumPy 2 asks for the axes with s; PyTorch's are the last len(s))
        kw["axes"] = tuple(range(-len(kw["s"]), 0))
    return kw


def _np(t):
    return t.resolve_conj().detach().numpy()   # (PyTorch's conjugation may be lazy)


def _input(T, case, requires_grad=False, dtype="float64"):
    leaf = T.tensor(case.data, dtype=getattr(T, dtype), requires_grad=requires_grad)
    return leaf, (T.view_as_complex(leaf) if case.complex_in else leaf)


def _run(T, case, x):
    return getattr(T.fft, case.fn)(x, **case.kw)


def _loss(T, out, w):
    """A real loss, quadratic in ``out``, so that its gradient depends on the input."""
    parts = T.view_as_real(out.resolve_conj()) if out.is_complex() else out
    return (parts * parts * w).sum()


def _weights(T, case, out):
    n = out.numel() * (2 if out.is_complex() else 1)
    shape = tuple(out.shape) + ((2,) if out.is_complex() else ())
    return T.tensor(np.linspace(-1.0, 2.0, n).reshape(shape))


def _torch_grads(T, case, order):
    leaf, x = _input(T, case, requires_grad=True)
    out = _run(T, case, x)
    loss = _loss(T, out, _weights(T, case, out))
    (g,) = T.autograd.grad(loss, leaf, create_graph=order == 2)
    if order == 1:
        return _np(g)
    u = T.tensor(np.cos(np.arange(g.numel())).reshape(tuple(g.shape)))
    (h,) = T.autograd.grad((g * u).sum(), leaf)
    return _np(h)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_match_numpy(case):
    ref = getattr(np.fft, case.fn, None)
    if ref is None:
        pytest.skip(f"NumPy has no {case.fn}")
    a = case.data[..., 0] + 1j * case.data[..., 1] if case.complex_in else case.data
    _, x = _input(mg, case)
    np.testing.assert_allclose(_run(mg, case, x).numpy(), ref(a, **_numpy_kwargs(case)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_and_dtypes_match_pytorch(case):
    torch = pytest.importorskip("torch")
    for dtype, tol in (("float64", 1e-12), ("float32", 1e-5)):
        got, want = (_run(T, case, _input(T, case, dtype=dtype)[1]) for T in (mt, torch))
        assert str(got.dtype) == str(want.dtype), case.id
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(_np(got), _np(want), rtol=tol, atol=tol)


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradients_match_pytorch(case):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(_torch_grads(mt, case, 1), _torch_grads(torch, case, 1),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_second_order_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(_torch_grads(mt, case, 2), _torch_grads(torch, case, 2),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradients_match_finite_differences(case):
    leaf, x = _input(mg, case, requires_grad=True)
    out = _run(mg, case, x)
    w = _weights(mg, case, out)
    _loss(mg, out, w).backward()

    def f(a):
        t = mg.tensor(a)
        return _loss(mg, _run(mg, case, mg.view_as_complex(t) if case.complex_in else t),
                     w).item()
    (num,) = numeric_grad(f, [case.data.copy()])
    np.testing.assert_allclose(leaf.grad.numpy(), num, rtol=1e-6, atol=1e-6)


def test_third_order_is_a_transform_too():
    # the gradient of a gradient of a gradient: each a recorded transform (xp.fft in graph mode)
    x = mg.tensor([0.5, -1.0, 2.0, 0.25, 1.5], dtype=mg.float64, requires_grad=True)
    y = mg.fft.rfft(x)
    loss = (mg.view_as_real(y) ** 4).sum()
    (g,) = mg.autograd.grad(loss, x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x, create_graph=True)
    (k,) = mg.autograd.grad((h * h).sum(), x)
    eps = 1e-5

    def h_of(a):
        t = mg.tensor(a, requires_grad=True)
        (g,) = mg.autograd.grad((mg.view_as_real(mg.fft.rfft(t)) ** 4).sum(), t,
                                create_graph=True)
        (h,) = mg.autograd.grad(g.sum(), t)
        return (h * h).sum().item()
    a = x.detach().numpy().copy()
    num = [(h_of(a + eps * e) - h_of(a - eps * e)) / (2 * eps) for e in np.eye(5)]
    np.testing.assert_allclose(k.numpy(), num, rtol=1e-5, atol=1e-5)


# ---- dtypes, arguments, errors -----------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("fn,dtype", [("fft", "int64"), ("rfft", "int32"), ("irfft", "int64"),
                                      ("fft", "bool"), ("ihfft", "int64")])
def test_integer_inputs_promote_to_the_default_float_as_pytorch(fn, dtype):
    torch = pytest.importorskip("torch")
    got, want = (getattr(T.fft, fn)(T.tensor([1, 0, 2, 3], dtype=getattr(T, dtype)))
                 for T in (mt, torch))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-6)


def test_default_dtype_decides_integer_promotion():
    old = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.fft.fft(mg.tensor([1, 2])).dtype == mg.complex128
        assert mg.fft.fftfreq(3).dtype == mg.float64
    finally:
        mg.set_default_dtype(old)


@pytest.mark.torch
@pytest.mark.parametrize("call", [
    lambda T: T.fft.rfft(T.ones(4, dtype=T.complex64)),
    lambda T: T.fft.ihfft(T.ones(4, dtype=T.complex64)),
    lambda T: T.fft.fft(T.ones(4), n=0),
    lambda T: T.fft.irfft(T.ones(1)),
    lambda T: T.fft.fftn(T.ones(4, 4), s=(3,), dim=(0, 1)),
    lambda T: T.fft.fft(T.ones(4, dtype=T.float16)),
    lambda T: T.fft.fft(T.ones(4), dim=3),
    lambda T: T.fft.fft2(T.ones(4, 4), dim=(1, 1)),
    lambda T: T.fft.fft(T.ones(3), n=-1),
    lambda T: T.fft.fft(T.ones(0)),
    lambda T: T.fft.rfftn(T.ones(2, 3), dim=()),
    lambda T: T.fft.fft(T.tensor(1.0)),
], ids=["rfft-complex", "ihfft-complex", "n=0", "irfft-one-bin", "s-dim-lengths", "float16",
        "dim-range", "dims-repeat", "n=-1", "empty", "rfftn-no-dims", "fft-0d"])
def test_errors_are_pytorchs_classes(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(want.type):
        call(mt)


@pytest.mark.torch
@pytest.mark.parametrize("call", [lambda T: T.fft.fftn(T.ones(2, 3), dim=()),
                                  lambda T: T.fft.ifftn(T.tensor(2.0, dtype=T.float64)),
                                  lambda T: T.fft.fftfreq(0)], ids=["no-dims", "0d", "empty"])
def test_transforms_of_nothing_match_pytorch(call):
    torch = pytest.importorskip("torch")
    got, want = call(mt), call(torch)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(_np(got), _np(want))


def test_invalid_norm_is_named():
    with pytest.raises(ValueError, match='Invalid normalization mode: "bad"'):
        mg.fft.fft(mg.ones(4), norm="bad")


def test_out_receives_the_result():
    buf = mg.zeros(3, dtype=mg.complex64)
    r = mg.fft.rfft(mg.tensor([1.0, 2.0, 3.0, 4.0]), out=buf)
    assert r is buf and buf._version == 1
    assert buf.tolist() == [10 + 0j, -2 + 2j, -2 + 0j]


@pytest.mark.torch
@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n,d", [(1, 1.0), (4, 1.0), (5, 0.5), (8, 0.1)])
def test_frequencies_match_pytorch_and_numpy(fn, n, d):
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "float64"):
        got = getattr(mt.fft, fn)(n, d, dtype=getattr(mt, dtype))
        want = getattr(torch.fft, fn)(n, d, dtype=getattr(torch, dtype))
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_allclose(got.numpy(), getattr(np.fft, fn)(n, d), rtol=1e-6)
    assert getattr(mg.fft, fn)(n, requires_grad=True).requires_grad


# ---- saving (design.md rules 2 and 3) ------------------------------------------------------
def _written_after(T, transform, write):
    """The gradient of the leaf under ``transform(h)``, ``h`` a complex tensor made from it,
    with ``h`` multiplied by 3 in place after the call when ``write``."""
    a = T.tensor([1.0, 2.0, -1.0, 0.5, 0.25, -2.0], requires_grad=True)
    h = T.view_as_complex((a * 1.0).reshape(3, 2))
    y = transform(T, h)
    if write:
        h.mul_(3.0)
    y = T.view_as_real(y) if y.is_complex() else y
    (y * T.tensor(np.linspace(-1.0, 2.0, y.numel()).reshape(tuple(y.shape)))).sum().backward()
    return a.grad.numpy()


TRANSFORMS = {"fft": lambda T, h: T.fft.fft(h), "irfft": lambda T, h: T.fft.irfft(h, n=4),
              "hfft": lambda T, h: T.fft.hfft(h, n=5)}


@pytest.mark.torch
@pytest.mark.parametrize("name", TRANSFORMS)
def test_complex_input_transforms_save_nothing_as_pytorchs(name):
    # fft_c2c and fft_c2r need only shapes and attributes, as PyTorch's FftC2C and FftC2R:
    # a write into the input after the call changes no gradient, in either
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(_written_after(mt, TRANSFORMS[name], True),
                               _written_after(torch, TRANSFORMS[name], True), rtol=1e-6)


@pytest.mark.torch
def test_rfft_keeps_only_the_input_shape():
    # PyTorch's FftR2C keeps its input, so a later write into it is a version error there; the
    # gradient needs only the input's shape (design.md rule 3), so here the write is allowed
    torch = pytest.importorskip("torch")
    grads = []
    for T, write in ((mt, True), (torch, False), (torch, True)):
        a = T.tensor([1.0, 2.0, -1.0, 0.5, 3.0], requires_grad=True)
        h = a * 1.0
        y = T.view_as_real(T.fft.rfft(h))
        if write:
            h.mul_(3.0)
        loss = (y * T.tensor(np.linspace(-1.0, 2.0, 6).reshape(3, 2))).sum()
        if T is torch and write:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                loss.backward()
            break
        loss.backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-6)


def test_a_write_to_a_transform_saved_by_a_later_op_raises_at_backward():
    a = mg.tensor([1.0, 2.0, -1.0, 0.5], requires_grad=True)
    y = mg.fft.rfft(a)
    loss = (y * y).abs().sum()               # MulBackward saves y
    y.mul_(2.0)
    with pytest.raises(mg.VersionError, match=r"modified by:\n  mul_ at .*test_fft.py"):
        loss.backward()


def test_a_write_to_a_tensor_the_gradient_graph_saved_raises_at_the_second_backward():
    a = mg.tensor([1.0, 2.0, -1.0, 0.5], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad((mg.view_as_real(mg.fft.rfft(a)) ** 2).sum(), a, create_graph=True)
    u = mg.tensor([1.0, 0.0, 2.0, 1.0], dtype=mg.float64)
    s = (g * g * u).sum()                     # saves g, a transform of a's gradient graph
    g.add_(1.0)
    with pytest.raises(mg.VersionError, match=r"modified by:\n  add_ at .*test_fft.py"):
        mg.autograd.grad(s, a)


# ---- the torch dialect -------------------------------------------------------------------
def test_torch_dialect_names_and_types():
    import mutograd.compat as compat
    r = mt.fft.rfft(mt.ones(4))
    assert type(r) is mt.Tensor and str(r.dtype) == "torch.complex64"
    assert type(mt.fft.fftfreq(4)) is mt.Tensor
    with compat.importing_as("torch"):
        import torch
        from torch.fft import irfft, rfft
        assert irfft(rfft(torch.tensor([1.0, 2.0, 3.0, 4.0]))).tolist() == [1.0, 2.0, 3.0, 4.0]
        assert torch.fft.fftshift(torch.arange(5)).tolist() == [3, 4, 0, 1, 2]


def test_namespace_docstring_examples():
    import doctest

    import mutograd.fft
    result = doctest.testmod(mutograd.fft, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("case", [c for c in CASES if c.fn in ("fft", "rfft", "irfft", "ihfft",
                                                               "fft2", "irfftn")][::2],
                         ids=lambda c: c.id)
def test_on_a_device_equal_the_cpus(case, fake_gpu):
    # the constants of the gradients (fft_c2r's doubled bins) are made on the tensor's place
    got = []
    for where in ("cpu", "gpu:0"):
        leaf = mg.tensor(case.data, device=where, requires_grad=True)
        out = _run(mg, case, mg.view_as_complex(leaf) if case.complex_in else leaf)
        assert str(out.place) == where
        _loss(mg, out, _weights(mg, case, out).to(where)).backward()
        got.append([t.detach().cpu().numpy() for t in (out, leaf.grad)])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
