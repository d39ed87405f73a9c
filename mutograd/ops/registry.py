"""Declaring an op once: ``defop`` turns a forward and its gradient into every public form.

    defop("mul", lambda xp, x, y, out=None: xp.multiply(x, y, out=out),
          grad=(lambda g, y: g * y, lambda g, x: g * x))

gives ``mutograd.mul``, ``mutograd.mul_``, ``Tensor.mul``, ``Tensor.mul_`` and a backward node
class ``MulBackward``. The forward's parameters say what the op takes: after ``xp``, the leading
parameters without a default are its inputs (tensors or scalars), ``out`` is where an in-place or
pre-allocated result goes, and the rest are attributes (``axis``, ``alpha``, ...). A gradient's
parameter names are the save contract: ``out`` is the result, input names are inputs, ``x_shape``
is only metadata, attributes and ``xp`` are passed in; ``into`` is where the result may be
written (Note [Reusing the incoming gradient]). What is saved follows from those names, per
call, for the inputs that need a gradient (STYLE.md, "One declaration per op").

Note [Reusing the incoming gradient]
    A gradient formula that takes a parameter ``into`` gets the incoming gradient array ``g``
    there when the backward engine owns it (no one else refers to it: not a leaf's ``.grad``, not
    retained, not another node's input) and the node has a single input edge, else None. It may
    then write its result into ``g`` (``xp.multiply(g, out > 0, out=into)``) instead of
    allocating: the ReLU, exp, tanh and sigmoid backward of a training step reuse one buffer.

Note [In-place saving]
    For ``op_(x, ...)`` the written tensor ``x`` is both input and output. A gradient that uses
    ``out`` saves ``x`` after the write, with the bumped version (no copy). A gradient that uses the
    overwritten input ``x`` needs its old value: a copy is taken before the write, and only when
    that gradient will be needed; the copy is a counted storage. Other inputs are saved by
    reference and version-checked.

Note [Float results of integer inputs]
    An op declared ``result="float"`` (exp, log, sqrt, div, sigmoid, softmax, ...) whose tensor
    inputs are all integer or bool computes in the default float dtype (float32 unless
    ``set_default_dtype`` changed it), as PyTorch and Paddle do; NumPy alone would pick the
    smallest float that holds the input (float16 for bool and int8, float64 for int64), and
    ``reciprocal`` would stay integer. Inputs with a float among them keep NumPy's promotion
    (docs/ops.md). The forward is wrapped once, at declaration; the ufunc fast path is taken only
    for a float first input, where the two agree.

Note [Values kept from the forward]
    A gradient may need a value the forward computes anyway, and recomputing it can cost more
    than the op (layer norm's mean and variance, a convolution's columns). A forward that takes
    ``keep`` gets a dict there when a backward node will be recorded (None otherwise) and stores
    such arrays in it under names its gradient takes as parameters, declared with
    ``defop(..., keeps=(...))``. They are private to the node: saved as copies are (counted,
    freed after backward, never version-checked, since no one else can write them), and taken
    before an in-place form overwrites its input. Max pooling keeps the position of each
    window's maximum instead of its input. In graph mode (create_graph) a kept value comes as a
    constant without history, right for positions but not for a value that depends on the
    inputs: a formula using one also saves those inputs and, when ``graph_mode(xp)``
    (autograd/graph_arrays.py), recomputes it from them.

Note [Ufunc fast path]
    Many forwards, called with their default attributes and no ``out``, are exactly one NumPy
    ufunc (``add`` with ``alpha=1`` is ``numpy.add``); the declaration names it
    (``defop(..., ufunc=np.add)``). The runner then calls the ufunc directly when the attributes
    are the defaults (the caller passed none) and the backend is NumPy, skipping the forward's
    Python frame and keyword passing: the largest fixed cost left on the per-op path of small
    tensors. A test checks, for every op with a ufunc, that the ufunc and the declared forward
    give the same values and dtypes on every dtype of the op table. An op with a float result is
    run through its ufunc only for a float first input (Note [Float results of integer inputs]).

Note [Fused gradients]
    Under create_graph a gradient formula records each operation it makes (Note
    [Differentiable gradient formulas] in autograd/graph_arrays.py): tanh's ``g * (1 - y * y)``
    is four nodes, the fused cross-entropy's about twenty, and each costs a dispatch when it is
    recorded and a node visit when the gradient is differentiated. Where that dominates (the
    Hessian-vector product of a small network), the formula is itself declared as an op, named
    ``<op>_backward`` as PyTorch's ``aten::tanh_backward``: its forward is the first-order
    formula, the formula calls ``xp.recorded("<op>_backward", ...)`` when ``graph_mode(xp)``, and
    the backward op's own gradients are written in the array namespace again, so the third
    order comes from them. One implementation of the formula, one node per gradient, and the
    backward op is a row of the op table with first- and second-order checks like any other.
"""
import inspect

from .. import memory
from ..autograd.arguments import bind
from ..autograd.dispatch import run, run_variadic, swap_storage, write
from ..autograd.op_functions import _make_function, _variadic_function
from ..autograd.op_node import OpNode, VarNode
from ..autograd.promotion import _in_default_float
from .gradients import zero_gradient

_EMPTY = inspect.Parameter.empty

OPS = {}


class OpDef:
    """One op's declaration. See the module docstring for how it is read."""

    pool = False   # set by defop: results may come from the buffer cache
    ufunc = None   # set by defop(ufunc=...): the NumPy ufunc equal to fwd with default attrs
    region = None  # the attribute holding the index of the part of x the in-place form writes
    copy_out = False  # set by defop: a later write into the saved output copies it first

    wants_layout = False   # its gradient computes in an input's layout (matmul with W.t())
    variadic = False   # an op over a list of tensors (cat, stack, einsum): kind="variadic"
    leading = ()       # set by defop: attributes a variadic op takes before its tensors
    runner = None      # the path of an op kind that does not go through run()'s own
    keywords = {}      # set by defop: the op's own other spellings of its keyword arguments
    written_first = None   # defop(writes=...): the declaration with the written input first
    kink = False       # defop(kink=True): Note [Gradients at a kink, differentiated again]
    meets = False      # set in __init__: Note [Type promotion] in autograd/promotion.py
    elementwise = False   # set in __init__: Note [Result layouts]
    operands = None    # defop(operands=...): the indices of the inputs whose dtypes meet
    layout = None      # defop(layout=...): Note [Result layouts]

    def __init__(self, name, fwd, grad, kind, inplace, varargs, result, fill, node_name,
                 keeps=(), saves_inputs=False):
        self.name = name
        self.keeps = tuple(keeps)   # Note [Values kept from the forward]
        self.iname = name + "_"   # the in-place form's name, for messages and the write log
        self.fwd = fwd
        self.kind = kind
        # operands must share a dtype in a dialect that does not promote them (Tensor
        # ._same_dtype_operands): the matrix products and convolutions of PyTorch
        self.same_dtype = kind == "matmul"
        self.has_inplace = inplace
        self.varargs = varargs
        self.result = result
        self.fill = fill
        params = list(inspect.signature(fwd).parameters.values())[1:]
        self.inputs, self.attrs = [], []
        self.takes_out = False
        if kind == "variadic":   # fwd(xp, arrays, **attrs); its one input is the list
            self.inputs = ["tensors"]
            self.attrs = [(p.name, p.default) for p in params[1:]]
        else:
            self._read_parameters(params)
        self.n_in = len(self.inputs)
        self.index = {n: i for i, n in enumerate(self.inputs)}
        self.attr_names = [a for a, _ in self.attrs]
        self.defaults = {a: d for a, d in self.attrs if d is not _EMPTY}
        self.required = [a for a, d in self.attrs if d is _EMPTY]
        if kind == "variadic":   # grad(g, xs, xp, **attrs) -> a list, xs the inputs or shapes
            self._init_variadic(grad, saves_inputs, node_name)
            return
        if kind == "storage":   # Note [Storage-changing writes] in autograd/dispatch.py
            self.runner = swap_storage
        # Note [Type promotion] in autograd/promotion.py: the ops whose operands' dtypes meet
        # (``meets``: a dialect's rule checks them, Tensor._operand_rule), and those of them that
        # compute in the promoted dtype (``promotes``; a comparison too: float32 against a 0-d
        # float64 compares in float32, as PyTorch's)
        self.elementwise = kind == "elementwise"   # its result follows its first input's layout
        self.meets = self.elementwise and self.n_in > 1
        self.promotes = self.meets and result != "same"
        self.float_result = result == "float"
        if self.float_result:   # Note [Float results of integer inputs]
            self.fwd = fwd = _in_default_float(fwd, self.n_in)
        if grad is not None and not isinstance(grad, (tuple, list)):
            grad = (grad,)
        self.differentiable = grad is not None
        self.grad_fns = []
        self.sources = {}
        for fn in grad or ():
            if fn is None:
                self.grad_fns.append(None)
                continue
            ps = list(inspect.signature(fn).parameters.values())[1:]
            names = [p.name for p in ps if p.kind != p.VAR_KEYWORD]
            self.grad_fns.append((fn, names, len(names) < len(ps)))
            for p in names:
                self.sources[p] = self._source(p)
        self.grad_fns += [None] * (self.n_in - len(self.grad_fns))
        if not self.differentiable and self.n_in:
            self.grad_fns[0] = (zero_gradient, ["xp"], False)   # used only by the in-place form
            self.sources["xp"] = "xp"
        self.uses = [set() if gf is None else {p for p in gf[1] if self.sources[p] == "saved"}
                     for gf in self.grad_fns]
        self.takes_into = "into" in self.sources
        self.wants_layout = "transposed" in self.sources.values()
        # whether some gradient may need the value an in-place form overwrites
        self.saves_x = bool(self.inputs) and any(self.inputs[0] in u for u in self.uses)
        self.plans = {}
        self.node_cls = self._node_class(OpNode, node_name)

    def _node_class(self, base, node_name):
        return type(node_name or _camel(self.name) + "Backward", (base,),
                    {"__slots__": (), "op": self})

    def _read_parameters(self, params):
        """Inputs, attributes and ``out`` from the forward's parameters (module docstring)."""
        for p in params:
            if p.name == "out":
                self.takes_out = True
            elif p.name == "keep":
                if not self.keeps:
                    raise TypeError(f"{self.name}: a forward taking keep= needs "
                                    f"defop(keeps=...)")
            elif (p.kind == p.POSITIONAL_OR_KEYWORD and p.default is _EMPTY
                  and not self.attrs and not self.takes_out):
                self.inputs.append(p.name)
            elif p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                self.attrs.append((p.name, p.default))

    def _source(self, p):
        if p == "out" or p in self.index or p in self.keeps:
            return "saved"
        if p == "into":
            return "into"
        if p == "xp":
            return "xp"
        if p.endswith("_shape") and p[:-6] in self.index:
            return "shape"
        if p.endswith("_dtype") and p[:-6] in self.index:
            return "dtype"
        if p.endswith("_transposed") and p[:-11] in self.index:
            return "transposed"   # the input is laid out as a transposed (F-order) matrix
        if p in self.attr_names:
            return "attr"
        raise TypeError(f"gradient of {self.name!r} takes an unknown parameter {p!r}")

    def plan(self, mask):
        """Names to save when the inputs in ``mask`` need a gradient (cached per mask)."""
        names = self.plans.get(mask)
        if names is None:
            names = set()
            for i, uses in enumerate(self.uses):
                if mask >> i & 1:
                    names |= uses
            names = self.plans[mask] = tuple(sorted(names))
        return names

    bind = bind   # inputs and attributes from a call's arguments (autograd/arguments.py)

    def _init_variadic(self, grad, saves_inputs, node_name):
        self.variadic = True
        self.runner = run_variadic
        self.grad = grad
        self.saves_inputs = saves_inputs   # else the gradient gets the inputs' shapes
        self.promotes = self.float_result = False
        self.differentiable = grad is not None
        self.node_cls = self._node_class(VarNode, node_name)


# Note [Result layouts]
#     A new result is laid out as PyTorch lays it out, since the layout decides what a later
#     ``view``, ``reshape`` or ``as_strided`` of it shares. Element-wise ops keep their input's
#     order of strides in both NumPy and PyTorch, except where two strides tie (overlapping
#     ``unfold`` windows) or one is 0: PyTorch puts the smaller of two tied dimensions inside
#     and keeps a broadcast one in place, and the runner lays such a result out that way
#     (dispatch.first_layout). PyTorch's reductions, scans (cumsum,
#     log_softmax), roll, tril/triu, masked_fill and renorm give a C-contiguous result whatever
#     the input's strides, where NumPy keeps the input's order: those are declared
#     ``layout="C"``. sort, argsort and flip lay their result out as PyTorch's preserve_format
#     copies its input (memory.empty_preserving), where NumPy gives C order: ``layout=
#     "input"``. A result written into ``out=`` keeps that buffer's layout. The copy this
#     costs happens only for an input that is not C-contiguous.


def _laid_out(fwd, layout):
    """``fwd`` whose new result has the declared layout (Note [Result layouts])."""
    def forward(xp, *args, **kw):
        r = fwd(xp, *args, **kw)
        if kw.get("out") is not None or getattr(r, "ndim", 0) < 2 or not hasattr(r, "flags"):
            return r   # written into out=, one axis at most, or a batched array (vmap)
        x = args[0]
        if layout == "C":
            if not r.flags.c_contiguous:
                return xp.ascontiguousarray(r)
            if 1 in r.shape and not getattr(x, "flags", r.flags).c_contiguous:
                c = xp.empty(r.shape, r.dtype)   # a kept axis's stride, as PyTorch's
                if c.strides != r.strides:
                    c[...] = r
                    return c
            return r
        if r.shape == x.shape and not x.flags.c_contiguous:
            laid = memory.empty_preserving(xp, x, r.dtype)
            if laid.strides != r.strides:
                laid[...] = r
                return laid
        return r
    forward.__signature__ = inspect.signature(fwd)
    return forward


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def defop(name, fwd, grad=None, kind="elementwise", inplace=True, varargs=None, result=None,
          fill=False, method=True, node_name=None, aliases=(), keeps=(), copy_out=False,
          doc=None, example=None, ufunc=None, saves_inputs=False, undo=None, inplace_name=None,
          keywords=None, writes=None, promotes=None, leading=(), kink=False, same_dtype=None,
          operands=None, layout=None):
    """Declare an op; returns the OpDef. See the module docstring.

    ``doc``: the one-line summary ``help()`` shows; ``example``: a runnable expression using
    ``mg`` (a default one is made from the op's kind when omitted); ``ufunc``: the NumPy ufunc
    equal to the forward with default attributes (Note [Ufunc fast path]). A view op with
    ``inplace=True`` gets an in-place form that changes the tensor's own geometry (Note [Metadata
    in place] in autograd/dispatch.py); ``undo(old_array, attrs)`` gives the view op and
    attributes that take the new geometry back to ``old_array``'s (a reshape by default);
    ``inplace="internal"`` makes the in-place form without publishing it; ``inplace_name``: the
    name the in-place form has in messages and the write log (``name + "_"`` by default);
    ``keywords``: other spellings of the op's keyword arguments (``{"min_val": "min"}``), besides
    the ones every op takes (``dim`` for ``axis``, ...); a spelling mapped to None is accepted
    and ignored. ``kind="storage"`` declares a storage swap (Note [Storage-changing writes] in
    autograd/dispatch.py). ``writes``: the input the in-place form writes when it is not the
    first: ``where(condition, x, y)`` with ``writes="x"`` gives ``x.where_(condition, y)``, and
    the method ``x.where(condition, y)`` (``op.self_function``) takes that input as ``self``.
    ``kink=True``: the gradient is the incoming one masked by where the input lies (relu, abs,
    hardtanh, max pooling), and is recorded with a zero edge to that input under create_graph
    (Note [Gradients at a kink, differentiated again] in autograd/graph_arrays.py).
    ``same_dtype=True``: its operands must share a dtype when a tensor of a dialect that does
    not promote them takes part (``Tensor._same_dtype_operands``; the default for
    ``kind="matmul"``). ``promotes=False``: the runner leaves Note [Type promotion] (in
    autograd/promotion.py) to the forward (an element-wise op with several inputs has it
    applied before its forward); ``operands``: the names of the inputs whose dtypes meet there,
    when not all of them (``where``'s condition does not). ``layout``: the memory layout of a new
    result (Note [Result layouts]): ``"C"`` (the default of ``kind="reduction"``) or
    ``"input"``; None keeps the backend's.

    ``kind="variadic"`` declares an op over a list of tensors, ``fwd(xp, arrays, **attrs)`` with
    ``grad(g, xs, xp, **attrs)`` returning one gradient per input (``xs``: the inputs when
    ``saves_inputs``, else their shapes): ``cat(tensors, axis=0)``. ``leading``: attributes its
    function takes before the tensors, which then come one by one or as one list
    (``einsum(equation, *operands)``)."""
    op = OpDef(name, fwd, grad, kind, inplace, varargs, result, fill, node_name, keeps,
               saves_inputs)
    op.layout = layout or ("C" if kind == "reduction" else None)
    if op.layout is not None:
        op.fwd = _laid_out(op.fwd, op.layout)
    op.doc = doc
    op.example = example
    if same_dtype is not None:
        op.same_dtype = same_dtype
    if ufunc is not None:
        op.ufunc = ufunc
    op.copy_out = copy_out   # Note [Outputs copied on write] in autograd/saved.py
    if inplace_name is not None:
        op.iname = inplace_name
    if keywords:
        op.keywords = keywords
    if promotes is not None:
        op.promotes = promotes
    if operands is not None:
        op.operands = tuple(op.index[n] for n in operands)
    op.kink = kink
    OPS[name] = op
    op.leading = tuple(leading)
    op.function = None   # a storage swap exists only in place
    if kind != "storage":
        op.function = _variadic_function(op) if op.variadic else _make_function(op, False)
        op.function.__name__ = op.function.__qualname__ = name
    op.inplace_function = None
    if inplace and (op.takes_out or kind in ("view", "storage")):
        op.undo = undo or _reshape_back
        op.inplace_function = _make_function(op, True)
        op.inplace_function.__name__ = op.inplace_function.__qualname__ = name + "_"
    op.self_function = None
    if writes is not None:
        _written_first(op, fwd, grad, writes, varargs, node_name, keeps)
        if operands is not None:
            op.written_first.operands = tuple(op.written_first.index[n] for n in operands)
    op.method = method
    op.aliases = aliases
    # Large results of element-wise ops may come from the buffer cache (Note [The buffer
    # cache]); an op whose forward treats ``out`` as holding ``x`` already must set False.
    op.pool = (kind == "elementwise" and op.takes_out and inplace is True and not fill
               and result in (None, "float") and writes is None)
    from .signatures import attach   # what help() shows (signatures.py imports this module)
    if op.function is not None:
        attach(op.function, op)
    if op.written_first is not None:   # the in-place form runs the reordered declaration
        first = op.written_first
        first.method, first.doc, first.example, first.aliases = method, doc, None, aliases
        attach(op.inplace_function, first, inplace=True)
    elif op.inplace_function is not None:
        attach(op.inplace_function, op, inplace=True)
    return op


def _written_first(op, fwd, grad, writes, varargs, node_name, keeps):
    """``op``'s method and in-place forms when they take input ``writes`` first (defop's
    ``writes``): a copy of the declaration with that input moved to the front, whose first
    input the runner writes. It makes the same backward node, with the inputs in its order."""
    n = op.n_in
    i = op.index[writes]
    order = [i] + [j for j in range(n) if j != i]
    sig = inspect.signature(fwd)
    ps = list(sig.parameters.values())

    def moved(xp, *args, **kw):
        back = [None] * n
        for k, j in enumerate(order):
            back[j] = args[k]
        return fwd(xp, *back, *args[n:], **kw)
    moved.__signature__ = sig.replace(parameters=[ps[0]] + [ps[1 + j] for j in order] + ps[1 + n:])
    grads = tuple(grad) if isinstance(grad, (tuple, list)) else (grad,)
    grads += (None,) * (n - len(grads))
    first = OpDef(op.name, moved, tuple(grads[j] for j in order), op.kind, True, varargs,
                  op.result, op.fill, node_name or _camel(op.name) + "Backward", keeps)
    first.copy_out = op.copy_out
    op.written_first = first
    op.has_inplace = False   # op itself writes no input: its in-place form is first's
    op.self_function = _make_function(first, False)
    op.inplace_function = _make_function(first, True)
    op.self_function.__name__ = op.self_function.__qualname__ = op.name
    op.inplace_function.__name__ = op.inplace_function.__qualname__ = op.name + "_"


def _reshape_back(old, attrs):
    return OPS["view"], {"shape": old.shape}


# the runner's names as the op modules knew them
from ..autograd.dispatch import _record, _refresh, binary  # noqa: E402, F401
from ..autograd.inplace import check_leaf, check_writable  # noqa: E402, F401
from ..autograd.op_node import fit, unbroadcast  # noqa: E402, F401
call = run
call_inplace = write
