"""The rules of writing in place (design.md rules 4, 9 and 10), applied by the op runner
(autograd/dispatch.py) before anything is written: the leaf rule, the shape, dtype and overlap
checks, inputs that overlap the output, and the copies a gradient needs of the values a write
destroys (Note [In-place saving] in ops/registry.py).
"""
import numpy as np

from .. import dtypes, memory
from ..errors import DTypeError, InplaceError, OverlapError, ShapeError
from .explain import leaf_error
from .grad_mode import _state
from .node import save_copy
from ..tensor import Tensor
from .view_write import check_layout, internal_overlap


def check_leaf(x, what, rg=False):
    """design.md rule 4: no in-place write to a leaf that requires grad (or its view); and no
    write with grad mode on through a view made under no_grad() when it or an input (``rg``)
    requires grad (Note [Views without history] in tensor.py)."""
    base = x._base
    if base is None:
        if x._rg and x.grad_fn is None:
            raise leaf_error(x, what)
    elif "_nograd_view" in x.__dict__ and _state.enabled and (rg or x._rg or base._rg):
        raise nograd_view_error(x, what)
    elif base._rg and base.grad_fn is None:
        raise leaf_error(x, what)
    else:
        lv = x.__dict__.get("_leaf_view")
        if (lv is not None and lv._rg and lv.grad_fn is None) or (x._rg and x.grad_fn is None):
            raise leaf_error(x, what, lv if lv is not None else x)


def nograd_view_error(x, what=None):
    """PyTorch's error for a view made under no_grad() that is written with grad mode on
    (``what``: the write), or used with grad mode on after a write into its base or another of
    its views (``what`` None). Note [Views without history] in tensor.py."""
    made_by = x.__dict__.get("_function_output")
    if made_by is not None and what is not None:
        return InplaceError(
            f"Output {made_by[1]} of {made_by[0]} is a view and is being modified inplace. "
            "This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. "
            "This behavior is forbidden. You can fix this by cloning the output of the custom "
            "Function.")
    head = "A view was created in no_grad mode and " + (
        "is being modified inplace with grad mode enabled" if what is not None else
        "its base or another view of its base has been modified inplace with grad mode "
        "enabled")
    via = " -> ".join(op.name for op, _ in x._view_chain) or "a view"
    how = f" ({what}() writes" if what is not None else " (it is used"
    return InplaceError(
        f"{head}{how} through the view made by {via}, shape {list(x.shape)}, whose base "
        f"requires grad or gets an input that does). Given that this use case is ambiguous and "
        f"error-prone, it is forbidden. You can clarify your code by moving both the view and "
        f"the inplace either both inside the no_grad block (if you don't want the inplace to be "
        f"tracked) or both outside (if you want the inplace to be tracked).")


def check_no_grad(x, what):
    """A write without a gradient refuses a tensor that requires grad while grad mode is on,
    instead of giving a fake gradient (Note [Storage-changing writes] in dispatch.py)."""
    if _state.enabled and x._rg:
        raise InplaceError(
            f"{what}() has no gradient, and the tensor it writes (shape {list(x.shape)}) "
            f"requires grad; call it under no_grad() or on a tensor that does not require grad")


def check_writable(op, x, arrays):
    """design.md rule 10: refuse a write that cannot be done safely, before any data changes."""
    xa = x._data
    shape = xa.shape
    if len(arrays) == 2 and op.result is None and op.kind == "elementwise":
        y = arrays[1]   # the common case, decided early: an input just like x, no aliasing
        if (type(y) is np.ndarray and y.shape == shape and y.dtype == xa.dtype
                and xa.flags.c_contiguous):   # contiguous: no element shares a location
            return
    simple = False
    if op.kind == "elementwise":
        dt = xa.dtype
        simple = True   # every input has x's dtype or is a scalar that keeps it
        for a in arrays[1:]:
            s = a.shape if type(a) is np.ndarray else getattr(a, "shape", None)
            if s is None:
                if not (type(a) is int or (type(a) is float and dt.kind in "fc")):
                    simple = False
                continue
            if a.dtype != dt:
                simple = False
            if s != shape:
                try:
                    b = np.broadcast_shapes(shape, s)
                except ValueError:
                    raise ShapeError(f"{op.name}_(): the shapes {list(shape)} and {list(s)} do "
                                     f"not broadcast") from None
                if b != shape:
                    raise ShapeError(
                        f"{op.name}_(): output with shape {list(shape)} doesn't match the "
                        f"broadcast shape {list(b)}; an in-place op cannot change the shape of "
                        f"the tensor it writes")
    if op.result != "same" and op.kind != "index" and (
            op.kind != "elementwise" or not simple or op.result == "bool"
            or (op.result == "float" and xa.dtype.kind not in "fc")):
        rt = result_dtype(op, xa, arrays)
        if rt != xa.dtype and not np.can_cast(rt, xa.dtype, "same_kind"):
            raise DTypeError(f"{op.name}_(): result type {rt} can't be cast to the desired "
                             f"output type {xa.dtype} of the tensor written in place")
    if not op.fill and internal_overlap(xa):
        raise OverlapError(
            f"{op.name}_(): unsupported operation: more than one element of the written-to "
            f"tensor refers to a single memory location (an expanded tensor or overlapping "
            f"as_strided windows, shape {list(shape)}, strides {list(xa.strides)}). Please "
            f"clone() the tensor before performing the operation.")


def result_dtype(op, xa, arrays):
    """The dtype an element-wise op's result would have, without computing it."""
    if op.result == "bool":
        return np.dtype(bool)
    same = True
    for a in arrays[1:]:
        d = getattr(a, "dtype", None)
        if d is None:
            if a is None or isinstance(a, (slice, str)):
                continue
            same = same and (isinstance(a, (bool, int)) or xa.dtype.kind in "fc") and not (
                isinstance(a, complex) and xa.dtype.kind != "c")
        elif d != xa.dtype:
            same = False
    # dtypes, not arrays: the same promotion (NumPy 2), and no backend array reaches NumPy
    rt = xa.dtype if same else np.result_type(*[getattr(a, "dtype", a) for a in arrays
                                                if a is not None
                                                and not isinstance(a, (slice, str))])
    if op.result == "float" and rt.kind not in "fc":
        rt = np.dtype(dtypes.default_float.np)   # Note [Float results of integer inputs]
    return rt


def read_first(xa, arrays, xp):
    """Note [Inputs that overlap the output]: copy the inputs that share memory with ``xa``.

    ``x[1:].add_(x[:-1])`` must read ``x[:-1]`` before the write, as NumPy does; and a saved input
    that the write overwrites would give its gradient formula the new values. So each such input
    is replaced by a copy taken before the write (kept for backward only when it is saved).
    Returns the indices of the copied inputs.
    """
    found = []
    own = xa.base is None
    for i in range(1, len(arrays)):
        a = arrays[i]
        if own and a is not xa and type(a) is xp.ndarray and a.base is None:
            continue   # two arrays that own their memory: separate allocations (the cheap case)
        if type(a) is xp.ndarray and a.size and xp.may_share_memory(a, xa):
            arrays[i] = a.copy()
            found.append(i)
    return found



def prepare_write(op, x, inputs, arrays, rg, enabled):
    """Check and prepare ``op_`` writing into tensor ``x`` (the first of ``inputs``), before any
    data changes. Returns whether a backward node will be recorded and the saved copies of the
    values the write destroys that a gradient needs (input index -> saved record, or None).
    May replace entries of ``arrays`` by copies (Note [Inputs that overlap the output])."""
    if enabled and (x.grad_fn is None or x._base is not None):   # a non-view non-leaf passes
        check_leaf(x, op.iname, rg)                              # rule 4
    check_writable(op, x, arrays)
    overlap = read_first(x._data, arrays, x._place.xp)
    # A write without a gradient formula into a tensor that requires grad gets a zero gradient.
    record = rg and enabled and (op.differentiable or x._rg)
    copies = None
    if record and (op.saves_x or overlap or x._base is not None):
        mask = 0
        for i, t in enumerate(inputs):
            if isinstance(t, Tensor) and t._rg and op.grad_fns[i] is not None:
                mask |= 1 << i
        plan = op.plan(mask)
        if x._base is not None:
            check_layout(x)   # before the write: nothing changes if it is refused
        for i in [0] + overlap:   # Note [In-place saving], Note [Inputs that overlap the output]
            if op.inputs[i] in plan:
                arr = x._data.copy() if i == 0 else arrays[i]
                copies = copies or {}
                copies[i] = save_copy(arr, memory.Storage(arr.nbytes, str(x._place)),
                                      inputs[i].__dict__.get("name"))
    return record, copies
