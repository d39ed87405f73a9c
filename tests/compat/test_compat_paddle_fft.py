"""``paddle.fft`` (``mutograd.compat.paddle.fft``): Paddle's signatures over ``mutograd.fft``,
checked against NumPy's transforms."""
import doctest
import inspect

import numpy as np
import pytest

import mutograd.compat.paddle as paddle
import mutograd.compat.paddle.fft as paddle_fft

R = np.random.default_rng(3)
X = R.standard_normal((3, 4)) + 1j * R.standard_normal((3, 4))
REAL = R.standard_normal((3, 4))

ONE = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", ONE + TWO + N_D)
def test_signatures_are_paddles(name):
    params = inspect.signature(getattr(paddle.fft, name)).parameters
    if name in ONE:
        want = {"x": inspect.Parameter.empty, "n": None, "axis": -1, "norm": "backward",
                "name": None}
    else:
        want = {"x": inspect.Parameter.empty, "s": None,
                "axes": (-2, -1) if name in TWO else None, "norm": "backward", "name": None}
    assert {k: p.default for k, p in params.items()} == want


def test_frequency_and_shift_signatures_are_paddles():
    for name in ("fftfreq", "rfftfreq"):
        assert list(inspect.signature(getattr(paddle.fft, name)).parameters) == [
            "n", "d", "dtype", "name"]
    for name in ("fftshift", "ifftshift"):
        assert list(inspect.signature(getattr(paddle.fft, name)).parameters) == [
            "x", "axes", "name"]


# (paddle call, NumPy reference), the input real when the NumPy function takes a real signal
CASES = [
    ("fft", dict(n=5, axis=0, norm="ortho"), np.fft.fft, dict(n=5, axis=0, norm="ortho"), X),
    ("ifft", dict(axis=-1), np.fft.ifft, dict(axis=-1), X),
    ("rfft", dict(n=6, norm="forward"), np.fft.rfft, dict(n=6, norm="forward"), REAL),
    ("irfft", dict(n=5, axis=0), np.fft.irfft, dict(n=5, axis=0), X),
    ("hfft", dict(n=6), np.fft.hfft, dict(n=6), X),
    ("ihfft", dict(axis=0), np.fft.ihfft, dict(axis=0), REAL),
    ("fft2", dict(s=(2, 5)), np.fft.fft2, dict(s=(2, 5)), X),
    ("rfft2", dict(axes=(1, 0)), np.fft.rfft2, dict(axes=(1, 0)), REAL),
    ("irfft2", dict(norm="ortho"), np.fft.irfft2, dict(norm="ortho"), X),
    ("ifftn", dict(axes=(0,)), np.fft.ifftn, dict(axes=(0,)), X),
    ("rfftn", dict(s=(4, 6), axes=(0, 1)), np.fft.rfftn, dict(s=(4, 6), axes=(0, 1)), REAL),
    ("irfftn", dict(), np.fft.irfftn, dict(), X),
]


@pytest.mark.parametrize("name,kw,ref,ref_kw,a", CASES, ids=[c[0] for c in CASES])
def test_values_match_numpy_and_results_are_paddle_tensors(name, kw, ref, ref_kw, a):
    r = getattr(paddle.fft, name)(paddle.to_tensor(a), **kw, name="spectrum")
    assert type(r) is paddle.Tensor
    np.testing.assert_allclose(r.numpy(), ref(a, **ref_kw), rtol=1e-12, atol=1e-12)


def test_frequencies_and_shifts():
    f = paddle.fft.fftfreq(5, d=0.5)
    assert type(f) is paddle.Tensor and f.dtype == paddle.float32
    np.testing.assert_allclose(f.numpy(), np.fft.fftfreq(5, 0.5), rtol=1e-6)
    g = paddle.fft.rfftfreq(6, dtype="float64")
    assert g.dtype == paddle.float64 and g.tolist() == list(np.fft.rfftfreq(6))
    x = paddle.to_tensor(REAL)
    np.testing.assert_array_equal(paddle.fft.fftshift(x, axes=[1]).numpy(),
                                  np.fft.fftshift(REAL, axes=[1]))
    np.testing.assert_array_equal(paddle.fft.ifftshift(x).numpy(), np.fft.ifftshift(REAL))


def test_gradient_flows_with_stop_gradient_false():
    x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    paddle.fft.irfft(paddle.fft.rfft(x), n=4).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(4), rtol=1e-6)


def test_docstring_examples():
    result = doctest.testmod(paddle_fft, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
