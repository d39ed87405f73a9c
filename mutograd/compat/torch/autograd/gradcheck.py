"""``torch.autograd.gradcheck``: the gradients backward computes against central finite
differences, element by element (use float64 inputs). (``gradgradcheck`` needs higher-order
gradients, which mutograd does not compute: it is refused, see _refusals.py.)

    >>> import mutograd.compat.torch as torch
    >>> x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda t: (t ** 3).sin(), (x,))
    True
"""
import numpy as np

from ....autograd import engine as _engine
from ....autograd.grad_mode import no_grad
from ....errors import MutogradError
from ....tensor import Tensor


class GradcheckError(MutogradError, RuntimeError):
    """The analytical and numerical Jacobians differ (PyTorch's ``GradcheckError``)."""


def _outputs(func, inputs):
    out = func(*inputs)
    return [o for o in (out if isinstance(out, (tuple, list)) else (out,))
            if isinstance(o, Tensor)]


def _check(func, inputs, eps, atol, rtol, raise_exception, what):
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(func, inputs)
    for k, out in enumerate(outs):
        if not out.dtype.is_floating_point:
            continue
        n_out = out.numel()
        for i in diff:
            x = inputs[i]
            numerical = np.zeros((x.numel(), n_out))
            flat = x._data.reshape(-1)        # a view: perturbed in place, then restored
            for j in range(x.numel()):
                old = flat[j].copy()
                with no_grad():
                    flat[j] = old + eps
                    plus = _outputs(func, inputs)[k].detach().numpy().reshape(-1).copy()
                    flat[j] = old - eps
                    minus = _outputs(func, inputs)[k].detach().numpy().reshape(-1).copy()
                    flat[j] = old
                numerical[j] = (plus - minus) / (2 * eps)
            analytical = np.zeros((x.numel(), n_out))
            for m in range(n_out):
                g = np.zeros(n_out, out._data.dtype)
                g[m] = 1
                outs = _outputs(func, inputs)
                (gx,) = _engine.grad([outs[k]], [x], [Tensor(g.reshape(out._data.shape))],
                                     retain_graph=True, allow_unused=True)
                if gx is not None:
                    analytical[:, m] = gx.detach().numpy().reshape(-1)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                msg = (f"{what}: Jacobian mismatch for output {k} with respect to input {i},\n"
                       f"numerical:{numerical}\nanalytical:{analytical}\n")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Whether the gradients of ``func`` at ``inputs`` match finite differences; raises
    :class:`GradcheckError` with both Jacobians when not (unless ``raise_exception=False``)."""
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise ValueError("gradcheck: forward-mode and batched checks need forward-mode AD, "
                         "which mutograd does not have; leave them False")
    return _check(func, inputs, eps, atol, rtol, raise_exception, "gradcheck")
