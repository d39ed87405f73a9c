"""Derivatives of a function of tensors: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``
and ``hvp`` (PyTorch's ``torch.autograd.functional``; ``mutograd.compat.torch`` exposes this
module under that name).

Each takes ``func`` and its ``inputs`` (a tensor or a tuple of tensors) and answers in the same
shape: a tuple where the inputs (or outputs) were a tuple. ``create_graph=True`` returns results
with history (differentiable again); otherwise they are detached. ``strict=True`` raises when
an output does not depend on an input, instead of returning zeros there. The inputs are never
the tensors the function sees: each call differentiates fresh aliases of them (PyTorch's
behaviour), so a function that also closes over an input treats that use as a constant.

    >>> import mutograd as mg
    >>> from mutograd.autograd.functional import hessian, jacobian
    >>> jacobian(lambda x: x ** 2, mg.tensor([1.0, 3.0])).tolist()
    [[2.0, 0.0], [0.0, 6.0]]
    >>> hessian(lambda x: (x ** 3).sum(), mg.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
"""
from . import engine
from .forward_ad import jvp_of
from .grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x, what, fn):
    """``(was_tuple, tuple of tensors)``; anything but tensors is a TypeError."""
    from ..tensor import Tensor
    was = isinstance(x, tuple)
    xs = x if was else (x,)
    for i, el in enumerate(xs):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if was else f"the given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but {where} has type {type(el)}.")
    return was, xs


def _unpack(res, tuples):
    """``res`` (nested tuples) shaped back: ``tuples`` is whether the inputs were a tuple, or
    ``(outputs were a tuple, inputs were a tuple)`` for a nested result."""
    if isinstance(tuples, tuple):
        if not tuples[1]:
            res = tuple(r[0] for r in res)
        return res if tuples[0] else res[0]
    return res if tuples else res[0]


def _prepare(inputs, create_graph, need_graph):
    """Fresh tensors to differentiate with respect to: with ``create_graph`` an input that
    requires grad keeps its history (a view of it), otherwise a detached leaf."""
    with enable_grad():
        return tuple(x.view_as(x) if create_graph and x.requires_grad
                     else x.detach().requires_grad_(need_graph) for x in inputs)


def _finish(xs, create_graph):
    """Results without history unless ``create_graph`` (nested tuples allowed)."""
    from ..tensor import Tensor
    if create_graph:
        return xs
    return tuple(x.detach() if isinstance(x, Tensor) else _finish(x, False) for x in xs)


def _validate_v(v, like, was_tuple):
    if len(v) != len(like):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                           f"{len(v)}." if was_tuple else
                           "The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, like)):
        if tuple(a.shape) != tuple(b.shape):
            where = f"Entry {i} in " if was_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {list(b.shape)} but got "
                               f"{list(a.shape)}.")


_INDEPENDENT = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
}


def _check_requires_grad(xs, kind, strict):
    """In strict mode, each of ``xs`` must depend on the inputs (require grad)."""
    if not strict:
        return
    for i, x in enumerate(xs):
        if x is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not x.requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None for every input when none
    does); unused inputs give None."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    with enable_grad():
        return engine.grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs],
                           retain_graph=retain_graph, create_graph=create_graph,
                           allow_unused=True)


_NONE_IN_STRICT = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _zeros_for_none(grads, like, strict, create_graph, stage):
    """``grads`` with zeros where one is None; strict mode raises there instead, and with
    ``create_graph`` also where a gradient does not depend on the inputs."""
    from ..ops.creation import zeros_like
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_NONE_IN_STRICT[stage].format(i=i))
            g = zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               f"create_graph=True.")
        res.append(g)
    return tuple(res)


def _call(func, inputs, fn):
    with enable_grad():
        return _as_tuple(func(*inputs), "outputs of the user-provided function", fn)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T J)``: the vector-Jacobian product of ``func`` at ``inputs``.

    ``v`` has the outputs' shapes; it may be omitted for a function returning one element.

        >>> import mutograd as mg
        >>> from mutograd.autograd.functional import vjp
        >>> out, g = vjp(lambda x: x.exp().sum(), mg.tensor([0.0, 1.0]))
        >>> [round(a, 4) for a in g.tolist()]
        [1.0, 2.7183]
    """
    was_in, inputs = _as_tuple(inputs, "inputs", "vjp")
    xs = _prepare(inputs, create_graph, True)
    was_out, outputs = _call(func, xs, "vjp")
    _check_requires_grad(outputs, "outputs", strict)
    if v is not None:
        _, v = _as_tuple(v, "v", "vjp")
        v = _prepare(v, create_graph, False)
        _validate_v(v, outputs, was_out)
    elif len(outputs) != 1 or outputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the user-provided function "
                           "returns a single Tensor with a single element.")
    grads = _grad(outputs, xs, v, create_graph)
    grads = _zeros_for_none(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), was_out),
            _unpack(_finish(grads, create_graph), was_in))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), J v)``: the Jacobian-vector product of ``func`` at ``inputs``
    (Note [Forward mode by double VJP] in autograd/forward_ad.py).

    ``v`` has the inputs' shapes; it may be omitted for a single input of one element.

        >>> import mutograd as mg
        >>> from mutograd.autograd.functional import jvp
        >>> out, t = jvp(lambda x: x ** 2, mg.tensor([1.0, 3.0]), mg.tensor([1.0, 1.0]))
        >>> t.tolist()
        [2.0, 6.0]
    """
    was_in, inputs = _as_tuple(inputs, "inputs", "jvp")
    xs = _prepare(inputs, create_graph, True)
    v = _v_for_inputs(v, inputs, was_in, create_graph, "jvp")
    was_out, outputs = _call(func, xs, "jvp")
    _check_requires_grad(outputs, "outputs", strict)
    first = (lambda gs: _check_requires_grad(gs, "grad_inputs", True)) if strict else None
    res = jvp_of(outputs, xs, v, create_graph, check_first=first)
    res = _zeros_for_none(res, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), was_out),
            _unpack(_finish(res, create_graph), was_out))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j``, a tensor of
    shape ``outputs[i].shape + inputs[j].shape`` (nested tuples when either is a tuple).

    ``strategy="reverse-mode"`` computes it a row at a time, one backward per output element;
    ``"forward-mode"`` (with ``vectorize=True``) a column at a time by Jacobian-vector products.
    ``vectorize=True`` computes all rows (or columns) in one batched pass through
    :func:`mutograd.func.vmap`, running ``func`` again inside it.

        >>> import mutograd as mg
        >>> from mutograd.autograd.functional import jacobian
        >>> jx, jy = jacobian(lambda x, y: x * y, (mg.tensor([2.0]), mg.tensor([3.0])))
        >>> jx.tolist(), jy.tolist()
        ([[3.0]], [[2.0]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                         'Hint: If your function has side effects, such as modifying the '
                         'inputs, you should use "reverse-mode"')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                "`strategy='forward-mode'` are not supported together (yet). Please either "
                "set `create_graph=False` or `strategy='reverse-mode'`.")
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                "`strategy=\"forward-mode\"` are not supported together (yet). Please either "
                "set `strict=False` or `strategy=\"reverse-mode\"`.")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian is only implemented for "
                                      "`vectorize=True`.")
        return _jacobian_vectorized(func, inputs, "forward")
    if vectorize:
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        return _jacobian_vectorized(func, inputs, "reverse", create_graph)
    was_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
    xs = _prepare(inputs, create_graph, True)
    was_out, outputs = _call(func, xs, "jacobian")
    _check_requires_grad(outputs, "outputs", strict)
    jac = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in xs]
        flat = out.reshape(-1)
        for j in range(flat.shape[0]):
            grads = _grad((flat[j],), xs, retain_graph=True, create_graph=create_graph)
            for k, g in enumerate(grads):
                if g is None and strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in "
                                       f"strict mode.")
                if g is not None and strict and create_graph and not g.requires_grad:
                    raise RuntimeError(f"The jacobian of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in "
                                       f"strict mode when create_graph=True.")
                rows[k].append(g)
        jac.append(tuple(_rows_to_jacobian(r, out, x) for r, x in zip(rows, xs)))
    return _unpack(_finish(tuple(jac), create_graph), (was_out, was_in))


def _rows_to_jacobian(rows, out, x):
    """The rows (gradients of each output element; None for zeros) as one tensor of shape
    ``out.shape + x.shape``."""
    from ..ops.creation import zeros, zeros_like
    from ..ops.shaping import stack
    shape = tuple(out.shape) + tuple(x.shape)
    if not rows:
        return zeros(shape, dtype=x.dtype)
    return stack([zeros_like(x) if g is None else g for g in rows], 0).reshape(shape)


def _jacobian_vectorized(func, inputs, mode, create_graph=False):
    """The Jacobian as one batched pass over the standard basis (``jacrev``/``jacfwd`` of
    mutograd.func, whose layout ``jacobian`` shares)."""
    from ..func import jacfwd, jacrev
    was_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
    argnums = tuple(range(len(inputs)))
    if mode == "forward":
        jac = jacfwd(lambda *a: func(*a), argnums=argnums)(*inputs)
    else:
        xs = _prepare(inputs, create_graph, False)
        jac = jacrev(lambda *a: func(*a), argnums=argnums)(*xs)
    was_out = isinstance(jac, tuple) and len(jac) and isinstance(jac[0], tuple)
    jac = jac if was_out else (jac,)
    return _unpack(_finish(jac, create_graph), (was_out, was_in))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of ``func`` (which returns one element) at ``inputs``: the Jacobian of its
    gradient, shaped ``inputs[i].shape + inputs[j].shape`` (nested tuples for several inputs).

        >>> import mutograd as mg
        >>> from mutograd.autograd.functional import hessian
        >>> hessian(lambda x: (x[0] * x[1]), mg.tensor([1.0, 2.0])).tolist()
        [[0.0, 1.0], [1.0, 0.0]]
    """
    was_in, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def gradient(*xs):
        was_out, outs = _call(func, xs, "hessian")
        _one_element(outs, was_out, "hessian")
        grads = _zeros_for_none(_grad(outs, xs, create_graph=True), xs, False, True, "back")
        _check_requires_grad(grads, "jacobian", strict)
        return grads

    jac = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(jac, (was_in, was_in))


def _one_element(outputs, was_out, fn):
    if was_out or not outputs:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a "
                           f"single element")


def _v_for_inputs(v, inputs, was_in, create_graph, fn):
    if v is not None:
        _, v = _as_tuple(v, "v", fn)
        v = _prepare(v, create_graph, False)
        _validate_v(v, inputs, was_in)
        return v
    if len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    from ..ops.creation import ones_like
    return (ones_like(inputs[0]),)


def _gradient_of_one_element(func, inputs, v, create_graph, strict, fn):
    """What vhp and hvp start from: the inputs (as given, and the aliases ``xs``), ``v``, the
    function's one-element output and its gradient, with graph."""
    was_in, inputs = _as_tuple(inputs, "inputs", fn)
    xs = _prepare(inputs, create_graph, True)
    v = _v_for_inputs(v, inputs, was_in, create_graph, fn)
    was_out, outputs = _call(func, xs, fn)
    _check_requires_grad(outputs, "outputs", strict)
    _one_element(outputs, was_out, fn)
    jac = _grad(outputs, xs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return was_in, inputs, xs, v, was_out, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T H)``: the vector-Hessian product of ``func`` (one element out).

        >>> import mutograd as mg
        >>> from mutograd.autograd.functional import vhp
        >>> vhp(lambda x: (x ** 3).sum(), mg.tensor([1.0, 2.0]), mg.tensor([1.0, 1.0]))[1].tolist()
        [6.0, 12.0]
    """
    was_in, inputs, xs, v, was_out, outputs, jac = _gradient_of_one_element(
        func, inputs, v, create_graph, strict, "vhp")
    res = _grad(jac, xs, v, create_graph)
    res = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), was_out),
            _unpack(_finish(res, create_graph), was_in))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), H v)``: the Hessian-vector product of ``func`` (one element out), by
    the double-backward construction (equal to :func:`vhp` where the Hessian is symmetric).

        >>> import mutograd as mg
        >>> from mutograd.autograd.functional import hvp
        >>> hvp(lambda x: (x ** 3).sum(), mg.tensor([1.0, 2.0]), mg.tensor([1.0, 0.0]))[1].tolist()
        [6.0, 0.0]
    """
    from ..ops.creation import zeros_like
    was_in, inputs, xs, v, was_out, outputs, jac = _gradient_of_one_element(
        func, inputs, v, create_graph, strict, "hvp")
    us = tuple(zeros_like(x).requires_grad_() for x in xs)
    back = _grad(jac, xs, us, create_graph=True)
    _check_requires_grad(back, "hessian", strict)
    res = _grad(back, us, v, create_graph)
    res = _zeros_for_none(res, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), was_out),
            _unpack(_finish(res, create_graph), was_in))
