"""Writing a result into the buffer of a dead temporary, and the checks that make it safe.

Note [Dead temporaries]
    In ``((x*2+1).exp()).tanh()`` the results of ``x*2``, ``+1`` and ``exp`` are temporaries that
    nothing but the expression can see: the next op may write its result into the temporary's
    buffer instead of allocating one (NumPy does this for its own arrays; here it makes the
    chain allocate one buffer instead of four, and cost the in-place chain plus one pass that
    writes a second buffer). A silent wrong result is the danger, so every condition below
    must hold, or the op allocates:

    - Nothing else refers to the tensor: its reference count is exactly what the entry point
      sees for a value on the interpreter's stack. The operators (``binary``) and the generated
      functions and methods (``_make_function``: ``t.exp()``, ``mg.exp(t)``) are the only entry
      points; each count is measured at import on probes called the same way (``_calibrate``),
      and the reuse switches itself off when a name bound to the value would not add exactly one
      (an interpreter whose stack borrows references, or another Python implementation). Any
      other route (a wrapper, a list, a function that keeps it) adds references: no reuse.
    - Nothing else refers to its memory: the tensor's array owns its buffer, or is the whole of
      a raw buffer from the cache held by the tensor's own storage (or lent to the array by
      ``memory.empty``, as a matrix product's result is), and no other array (a view,
      an array from ``numpy()``, a saved value of a backward node, a value the pack hook of
      ``saved_tensors_hooks`` kept) refers to either: their reference counts are the baseline.
      A tensor view, ``detach()`` or ``.data`` alias refers to the tensor or to the array.
    - Autograd does not need its values: no node saved it (saved records hold the array), the
      op about to run does not save its input (its plan for the inputs that need a gradient),
      it is not a leaf requiring grad, and its node has no hook and retains no gradient (a
      user's ``retain_grad()`` or ``register_hook`` on it); its version counter is not watched
      nor guarded (``allow_mutation_on_saved_tensors``).
    - It is a plain CPU tensor (not a subclass, not a view) with nothing in its ``__dict__``
      (a name, hooks, a gradient, a place), C-contiguous and writable, and the result has its
      shape and dtype (no broadcasting growth, no promotion).
    - No diagnostic keeps it: the memory timeline (``memtrace``) attributes each buffer to the op
      that allocated it and anomaly mode keeps forward stacks, so both turn the reuse off.
    - The op is element-wise with an in-place form (``op.pool``): its forward already supports
      ``out`` being its first input, as ``op_`` does.

    Only results of at least the buffer cache's threshold are reused (smaller ones cost little to
    allocate; the check is not free). ``memory.set_reuse(False)`` (or the environment variable
    ``MUTOGRAD_REUSE_TEMPORARIES=0``) turns it off; the tests compare against that.

    Known limit: a C extension that calls an operator while holding only a borrowed reference
    to a tensor that a container keeps (NumPy's arithmetic on an object array of tensors) looks
    like the interpreter's stack to the operator's count; the method and function entry points
    (called with a fresh argument tuple) are not affected. Such code should turn the reuse off.
"""
import sys

import numpy as np

from .. import memory
from ..memory import _cache
from ..tensor import Tensor
from .grad_mode import _state
from .sites import Flags as _flags

_ndarray = np.ndarray
_getrc = sys.getrefcount


def _calibrate():
    """The reference counts a temporary shows at the operator and function entry points (plus
    one for ``_unshared``'s own parameter), or -1 each where a name would not add one."""
    class Probe:
        def __add__(self, other):
            return _getrc(self)

        def method(*args, **kw):
            return _getrc(args[0])

    def fn(*args, **kw):
        return _getrc(args[0])

    def named():
        p = Probe()
        return p + 1, p.method(), fn(p)

    temp = (Probe() + 1, Probe().method(), fn(Probe()))
    ok = (sys.implementation.name == "cpython" and temp[1] == temp[2]
          and named() == tuple(c + 1 for c in temp))
    return (temp[0] + 1, temp[1] + 1) if ok else (-1, -1)


DEAD_OP, DEAD_ARGS = _calibrate()


def unshared(t, refs, held=0):
    """Whether tensor ``t`` and its memory are referred to by nothing but the expression being
    evaluated (Note [Dead temporaries]): ``refs`` is the count the entry point expects, ``held``
    the references it holds to ``t``'s array itself."""
    if _getrc(t) != refs or type(t) is not Tensor or t._base is not None or t.__dict__:
        return False
    arr = t._data
    if type(arr) is not _ndarray:
        return False
    base = arr.base
    if _getrc(arr) != 3 + held:    # t._data, arr and the argument
        return False
    # the raw buffer: held by the array, by the storage or the return record of memory.empty,
    # by ``base`` and by the argument
    return base is None or ((base is t._storage.buf or memory.fresh(arr))
                            and _getrc(base) == 4)


def reusable(op, t, inputs, xa, rg):
    """The remaining conditions of Note [Dead temporaries] for writing ``op``'s result into the
    buffer of its first input ``t``, whose references the entry point checked."""
    if (inputs[0] is not t or xa is not t._data or not _cache.reuse
            or memory._recorder is not None or _flags.anomaly):
        return False
    fn = t.grad_fn
    if fn is None:
        if t._rg:
            return False   # a leaf that requires grad
    elif fn.hooks is not None or fn.retained is not None:
        return False
    c = t._counter
    if c.watched or c.guards is not None:
        return False
    if not (xa.flags.c_contiguous and xa.flags.writeable):
        return False
    if rg and op.differentiable and _state.enabled:
        mask = 0
        for i, u in enumerate(inputs):
            if isinstance(u, Tensor) and u._rg and op.grad_fns[i] is not None:
                mask |= 1 << i
        if op.inputs[0] in op.plan(mask):
            return False   # the node about to be recorded saves the input
    return True
