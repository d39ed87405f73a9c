"""``torch.autograd.gradcheck`` and ``gradgradcheck``: the derivatives mutograd computes against
central finite differences (use float64 inputs).

``gradcheck`` compares the Jacobian of each output with respect to each input that requires
grad: by backward (vector-Jacobian products, one per output element) unless
``check_backward_ad=False``, and by forward mode (Jacobian-vector products, the double-VJP
construction) with ``check_forward_ad=True``. ``fast_mode=True`` compares one random projection
``u^T J v`` per pair instead of the whole Jacobian. The other options check what PyTorch's do:
``nondet_tol`` (backward run twice agrees), ``check_grad_dtypes``, ``check_undefined_grad``
(zero output gradients give zero input gradients), ``check_batched_grad`` and
``check_batched_forward_grad`` (``mutograd.func.vmap`` over several output gradients or
tangents gives what one at a time gives). ``gradgradcheck`` runs ``gradcheck`` on the function
that maps the inputs and output gradients to the input gradients (computed with
``create_graph=True``): second derivatives, reverse over reverse and, with
``check_fwd_over_rev=True``, forward over reverse.

    >>> import mutograd.compat.torch as torch
    >>> x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda t: (t ** 3).sin(), (x,))
    True
    >>> torch.autograd.gradgradcheck(lambda t: (t ** 3).sin(), (x,))
    True
"""
import warnings

import numpy as np

from ....autograd import engine as _engine
from ....autograd.grad_mode import enable_grad, no_grad
from ....errors import MutogradError
from ....tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(MutogradError, RuntimeError):
    """The analytical and numerical Jacobians differ (PyTorch's ``GradcheckError``)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs):
    """The floating outputs of ``func(*inputs)`` (other outputs have no derivative)."""
    with enable_grad():
        out = func(*inputs)
    return [o for o in _as_tuple(out)
            if isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _values(func, inputs):
    with no_grad():
        return [o.detach().numpy().astype(np.float64).reshape(-1).copy()
                for o in _outputs(func, inputs)]


def _numerical(func, inputs, i, eps, direction=None):
    """Derivatives of every output by central differences in input ``i``: a matrix (input
    elements x output elements) per output, or with ``direction`` the directional derivative
    along it (a vector per output)."""
    a = inputs[i]._data
    if direction is not None:
        old = a.copy()
        a += eps * direction
        plus = _values(func, inputs)
        a[...] = old - eps * direction
        minus = _values(func, inputs)
        a[...] = old
        return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]
    cols = None
    for j in range(a.size):
        k = np.unravel_index(j, a.shape)
        old = a[k].copy()
        a[k] = old + eps
        plus = _values(func, inputs)
        a[k] = old - eps
        minus = _values(func, inputs)
        a[k] = old
        if cols is None:
            cols = [np.zeros((a.size, p.size)) for p in plus]
        for c, p, m in zip(cols, plus, minus):
            c[j] = (p - m) / (2 * eps)
    return cols if cols is not None else [np.zeros((0, 0))]


def _vjp(outputs, inputs, diff, grads_out):
    """``(gradient per differentiable input)`` of ``outputs`` with output gradients
    ``grads_out`` (arrays; None where zero); unused inputs give None."""
    pairs = [(o, g) for o, g in zip(outputs, grads_out) if o.requires_grad and g is not None]
    if not pairs:
        return [None] * len(diff)
    with enable_grad():
        gs = _engine.grad([o for o, _ in pairs], [inputs[i] for i in diff],
                          [Tensor(np.asarray(g).reshape(o._data.shape).astype(o._data.dtype))
                           for o, g in pairs], retain_graph=True, allow_unused=True)
    return list(gs)


def _reverse(outputs, inputs, diff):
    """The Jacobians by backward: ``jac[o][i]`` (input elements x output elements)."""
    jac = [[np.zeros((inputs[i].numel(), o.numel())) for i in diff] for o in outputs]
    for k, o in enumerate(outputs):
        for m in range(o.numel()):
            e = np.zeros(o.numel())
            e[m] = 1
            grads = _vjp([o], inputs, diff, [e])
            for n, g in enumerate(grads):
                if g is not None:
                    jac[k][n][:, m] = g.detach().numpy().reshape(-1)
    return jac


def _forward(func, inputs, diff, tangents):
    """The Jacobian-vector products of every output for the tangents of the inputs ``diff``
    (double-VJP forward mode), as flat arrays."""
    from ....func import jvp
    primals = tuple(inputs[i].detach() for i in diff)   # the check needs no graph around it

    def f(*xs):
        args = list(inputs)
        for i, x in zip(diff, xs):
            args[i] = x
        return tuple(_outputs(func, args))
    ts = tuple(Tensor(np.asarray(t).reshape(inputs[i]._data.shape).astype(inputs[i]._data.dtype))
               for i, t in zip(diff, tangents))
    _, res = jvp(f, primals, ts)
    return [r.detach().numpy().reshape(-1) for r in res]


def _forward_jacobian(func, inputs, diff, outputs):
    jac = [[np.zeros((inputs[i].numel(), o.numel())) for i in diff] for o in outputs]
    for n, i in enumerate(diff):
        for j in range(inputs[i].numel()):
            ts = [np.zeros(inputs[d].numel()) for d in diff]
            ts[n][j] = 1
            for k, col in enumerate(_forward(func, inputs, diff, ts)):
                jac[k][n][j] = col
    return jac


def _mismatch(kind, k, i, numerical, analytical):
    return GradcheckError(f"{kind}mismatch for output {k} with respect to input {i},\n"
                          f"numerical:{numerical}\nanalytical:{analytical}\n")


def _compare(num, ana, diff, atol, rtol, kind):
    for k, (nrow, arow) in enumerate(zip(num, ana)):
        for n, i in enumerate(diff):
            if not np.allclose(arow[n], nrow[n], rtol=rtol, atol=atol):
                raise _mismatch(kind, k, i, nrow[n], arow[n])


def _slow(func, inputs, diff, outputs, eps, atol, rtol, nondet_tol, backward, forward):
    num = [[None] * len(diff) for _ in outputs]
    for n, i in enumerate(diff):
        for k, c in enumerate(_numerical(func, inputs, i, eps)):
            num[k][n] = c
    if backward:
        ana = _reverse(outputs, inputs, diff)
        _compare(num, ana, diff, atol, rtol, "Jacobian ")
        again = _reverse(_outputs(func, inputs), inputs, diff)
        for k, (a, b) in enumerate(zip(ana, again)):
            for n in range(len(diff)):
                if not np.allclose(a[n], b[n], rtol=0, atol=nondet_tol):
                    raise GradcheckError(
                        f"Backward is not reentrant, i.e., running backward with same input and "
                        f"grad_output multiple times gives different values, although analytical "
                        f"gradient matches numerical gradient. The tolerance for nondeterminism "
                        f"was {nondet_tol}.")
    if forward:
        _compare(num, _forward_jacobian(func, inputs, diff, outputs), diff, atol, rtol,
                 "Jacobian computed with forward mode ")


def _fast(func, inputs, diff, outputs, eps, atol, rtol, backward, forward):
    """``u^T J v`` for random ``u`` (per output) and ``v`` (per input), each pair."""
    rng = np.random.default_rng(0)
    us = [rng.uniform(-1, 1, o.numel()) for o in outputs]
    for n, i in enumerate(diff):
        v = rng.uniform(-1, 1, inputs[i]._data.shape)
        num = [u @ d for u, d in zip(us, _numerical(func, inputs, i, eps, v))]
        if backward:
            for k, (o, u) in enumerate(zip(outputs, us)):
                (g,) = _vjp([o], inputs, [i], [u])
                ana = 0.0 if g is None else float(g.detach().numpy().reshape(-1) @ v.reshape(-1))
                if not np.isclose(ana, num[k], rtol=rtol, atol=atol):
                    raise _mismatch("Jacobian ", k, i, num[k], ana)
        if forward:
            ts = [v if d == i else np.zeros(inputs[d].numel()) for d in diff]
            for k, (col, u) in enumerate(zip(_forward(func, inputs, diff, ts), us)):
                if not np.isclose(u @ col, num[k], rtol=rtol, atol=atol):
                    raise _mismatch("Jacobian computed with forward mode ", k, i, num[k],
                                    u @ col)


def _check_dtypes(outputs, inputs, diff):
    for o in outputs:
        grads = _vjp([o], inputs, diff, [np.ones(o.numel())])
        for i, g in zip(diff, grads):
            if g is not None and (g.dtype != inputs[i].dtype or g.shape != inputs[i].shape):
                raise GradcheckError(f"Gradient has dtype mismatch or shape mismatch for input "
                                     f"{i}: got {g.dtype} {list(g.shape)}, expected "
                                     f"{inputs[i].dtype} {list(inputs[i].shape)}")


def _check_undefined(outputs, inputs, diff):
    for o in outputs:
        for g in _vjp([o], inputs, diff, [np.zeros(o.numel())]):
            if g is not None and np.any(g.detach().numpy() != 0):
                raise GradcheckError('Expected backward function to handle undefined output '
                                     'grads. Please look at "Notes about undefined output '
                                     'gradients" in "tools/autograd/derivatives.yaml"')


def _check_batched(func, inputs, diff, outputs, atol, rtol, forward):
    """vmap over two output gradients (or tangents) against one at a time."""
    from ....func import jvp, vjp, vmap
    from ....ops.shaping import stack
    rng = np.random.default_rng(1)
    primals = tuple(inputs[i].detach() for i in diff)

    def f(*xs):
        args = list(inputs)
        for i, x in zip(diff, xs):
            args[i] = x
        return tuple(_outputs(func, args))
    if forward:
        batch = [Tensor(rng.uniform(-1, 1, (2,) + tuple(p.shape)).astype(p._data.dtype))
                 for p in primals]
        got = vmap(lambda *ts: jvp(f, primals, ts)[1])(*batch)
        want = [stack(list(c), 0) for c in zip(*[jvp(f, primals, tuple(t[b] for t in batch))[1]
                                                  for b in range(2)])]
        what = "forward AD"
    else:
        batch = [Tensor(rng.uniform(-1, 1, (2,) + tuple(o.shape)).astype(o._data.dtype))
                 for o in outputs]
        got = vmap(lambda *gs: vjp(f, *primals)[1](gs))(*batch)
        want = [stack(list(c), 0) for c in zip(*[vjp(f, *primals)[1](tuple(g[b] for g in batch))
                                                  for b in range(2)])]
        what = "backward AD"
    for k, (g, w) in enumerate(zip(got, want)):
        if not np.allclose(g.detach().numpy(), w.detach().numpy(), rtol=rtol, atol=atol):
            raise GradcheckError(f"While computing batched gradients ({what}), got a mismatch "
                                 f"for result {k}:\nbatched:\n{g}\nexpected:\n{w}")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Whether the derivatives of ``func`` at ``inputs`` match finite differences; raises
    :class:`GradcheckError` with both Jacobians when not (unless ``raise_exception=False``)."""
    if not (check_forward_ad or check_backward_ad):
        raise ValueError("Expected at least one of check_forward_ad or check_backward_ad to be "
                         "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise ValueError("Setting check_batched_forward_grad=True requires check_forward_ad to "
                         "be True")
    if check_batched_grad and not check_backward_ad:
        raise ValueError("Setting check_batched_grad=True requires check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff:
        if inputs[i].dtype.is_complex:
            raise ValueError(f"gradcheck: input {i} is complex; mutograd's gradcheck checks "
                             f"real inputs")
        if inputs[i].dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          f"point or complex. This check will likely fail if all the inputs "
                          f"are not of double precision floating point or complex.")
    try:
        outputs = _outputs(func, inputs)
        if fast_mode:
            _fast(func, inputs, diff, outputs, eps, atol, rtol, check_backward_ad,
                  check_forward_ad)
        else:
            _slow(func, inputs, diff, outputs, eps, atol, rtol, nondet_tol, check_backward_ad,
                  check_forward_ad)
        if check_backward_ad and check_grad_dtypes:
            _check_dtypes(outputs, inputs, diff)
        if check_backward_ad and check_undefined_grad:
            _check_undefined(outputs, inputs, diff)
        if check_batched_grad:
            _check_batched(func, inputs, diff, outputs, atol, rtol, forward=False)
        if check_batched_forward_grad:
            _check_batched(func, inputs, diff, outputs, atol, rtol, forward=True)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Whether the second derivatives of ``func`` match finite differences of its first:
    :func:`gradcheck` of ``(inputs, grad_outputs) -> input gradients`` (computed with
    ``create_graph=True``). Random output gradients are drawn when none are given."""
    inputs = _as_tuple(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor(rng.uniform(-1, 1, tuple(o.shape)).astype(o._data.dtype),
                                    requires_grad=True) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivatives(*args):
        xs, gs = args[:n_in], args[n_in:]
        outs = _outputs(func, xs)
        diff = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        pairs = [(o, g) for o, g in zip(outs, gs) if o.requires_grad]
        with enable_grad():
            grads = _engine.grad([o for o, _ in pairs], diff, [g for _, g in pairs],
                                 create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
                     fast_mode=fast_mode, masked=masked)
