"""An in-place op whose other input shares the written tensor's storage (``y.mul_(y)``).

The other input would be saved after the write, holding the result instead of its value: backward
must raise (as PyTorch does), never use it. Inputs that are saved by nobody are fine.
"""
import numpy as np
import pytest
from helpers import numeric_grad

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
    (_self_mul, True, None),
    (_view_mul, True, None),
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
