"""An in-place op whose other input shares the written tensor's storage (``y.mul_(y)``).

An input that shares memory with the written tensor is read before the write (design.md rule
10, Note [Inputs that overlap the output] in autograd/inplace.py): when its gradient formula
needs it, the copy taken before the write is what is saved, so the gradient is that of the
out-of-place rewrite (PyTorch raises at backward instead).
"""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg

A = np.array([3.0, 2.0, -1.0])


def _self_mul(y):
    y.mul_(y)


def _view_mul(y):
    y[1:].mul_(y[:2])


def _self_add(y):
    y.add_(y)


def _sub_first(y):
    y.sub_(y[:1])          # sub saves nothing: reads y[0] before the write, as NumPy


CASES = [  # (write, raises, reference function of the input for the gradient)
    (_self_mul, False, lambda a: a * a),
    (_view_mul, False, lambda a: np.concatenate([a[:1], a[1:] * a[:2]])),
    (_sub_first, False, lambda a: a - a[0]),
    (_self_add, False, lambda a: 2 * a),
]


@pytest.mark.parametrize("write,raises,ref", CASES, ids=[c[0].__name__ for c in CASES])
def test_inplace_with_an_aliased_input(write, raises, ref):
    x = mg.tensor(A, requires_grad=True)
    y = x * 1
    write(y)
    if raises:
        with pytest.raises(mg.VersionError, match="modified by an inplace operation"):
            y.sum().backward()
        assert x.grad is None
        return
    y.sum().backward()
    (expected,) = numeric_grad(lambda a: float(ref(a).sum()), [A.copy()])
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
