"""The public functions ``defop`` makes for an op (``mg.exp``, ``mg.exp_``, ``mg.cat``): the
fast path of a call with only the inputs, the binding of attributes and keywords otherwise
(autograd/arguments.py), ``out=``, and the in-place form's small writes, all ending in the runner
(autograd/dispatch.py).
"""
from ..tensor import Tensor
from . import temporaries
from .dispatch import run, write, write_out
from .dispatch import small_write as _small_write

_getrc = temporaries._getrc


def _make_function(op, inplace):
    """The public function of ``op`` (``inplace``: its ``op_`` form, writing its first input)."""
    n = op.n_in
    defaults = op.defaults
    small = inplace and n == 2 and op.kind == "elementwise"

    def fn(*args, **kw):
        if len(args) == n and not kw:
            if inplace:
                x = args[0]
                if type(x) is Tensor:
                    if small and _small_write(op, x, args[1]):
                        return x
                    return run(op, args, defaults, x)
                return write(op, args, defaults)   # refuses a first argument not a Tensor
            if (_getrc(args[0]) == temporaries.DEAD_ARGS - 1 and op.pool
                    and temporaries.unshared(args[0], temporaries.DEAD_ARGS)):
                return run(op, args, defaults, None, args[0])   # Note [Dead temporaries]
            return run(op, args, defaults)
        out = kw.pop("out", None) if op.takes_out and not inplace else None
        inputs, attrs = op.bind(args, kw)
        if out is not None:
            return write_out(op, inputs, attrs, out)
        return write(op, inputs, attrs) if inplace else run(op, inputs, attrs)
    return fn


def _variadic_function(op):
    """The public function of an op over a list of tensors: ``cat(tensors, axis=0)``, or
    ``einsum(equation, *operands)`` with ``leading`` attributes (defop)."""
    k = len(op.leading)
    defaults = op.defaults

    def fn(*args, **kw):
        if k:
            kw.update(zip(op.leading, args[:k]))
            rest = args[k:]
            args = (rest[0] if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else rest,)
        elif len(args) == 1 and not kw:
            return run(op, list(args[0]), defaults)
        inputs, attrs = op.bind(args, kw)
        return run(op, list(inputs[0]), attrs)
    return fn
