"""What ``help()`` and editors show for a declared op: a real signature and a docstring.

``defop`` calls :func:`attach` once per function it makes, so the text costs nothing per call.
Everything comes from the declaration (``OpDef``): the inputs and attributes of the forward give
the signature, the gradient's parameter names what the backward saves (the same words as
docs/ops.md), the op's kind a one-line summary when ``defop(doc=...)`` is absent, and a small
example on ``mg.tensor`` inputs when ``defop(example=...)`` is absent.

Note [Example outputs]
    A generated example shows its result, computed once at declaration by the op's own forward
    on NumPy arrays equal to the example's inputs (no tensor is made, so nothing is counted by the
    allocator and no random state is used) and printed as a tensor. The text is therefore what
    this machine computes, to the last digit, and ``tests/docs/test_signatures.py`` runs every
    example through the public function with doctest: a public function that disagrees with its
    op, or an example that cannot run, fails there. Inputs follow the parameter names (``x``,
    ``index``, ``mask``, ``mat1``, ...) and the op's kind; an input set whose forward fails or gives
    NaN is replaced by the next candidate (integers for bitwise ops, values above 1 for ``acosh``).
    Ops whose arguments cannot be guessed from names get their call in ``CALLS`` below; ops
    that draw random numbers show only their result's shape. A forward that loads a module on
    first use (SciPy's special functions and triangular solves) is not run at declaration, so
    that ``import mutograd`` loads nothing more: its example shows ``Tensor(...)``.
"""
import inspect
import sys

import numpy as np

from ..autograd.arguments import _KW_ALIASES

_P = inspect.Parameter
_EMPTY = inspect.Parameter.empty

# Ops whose example call cannot be made from parameter names: name -> (inputs, attributes).
# Inputs are Python values turned into ``mg.tensor``; attributes are passed by keyword.
# (Candidates for ``defop(example=...)`` in the declarations.)
CALLS = {
    "diag_embed": (([1.0, 2.0],), {"offset": 0}),
    "unflatten": ((None,), {"axis": 1, "shape": (3, 1)}),
    "expand": (([1.0, 2.0, 3.0],), {"shape": (2, 3)}),
    "broadcast_to": (([1.0, 2.0, 3.0],), {"shape": (2, 3)}),
    "getitem": ((None,), {"index": (0, slice(1, None))}),
    "index": ((None,), {"index": ([1, 0],)}),
    "index_put": ((None, [9.0]), {"index": ([1],)}),
    "as_strided": ((None,), {"size": (2, 2), "stride": (1, 2)}),
    "unfold": (([1.0, 2.0, 3.0, 4.0],), {"axis": 0, "size": 2, "step": 1}),
    "values_at": ((None, [[2], [2]]), {"axis": 1}),
    "renorm": ((None,), {"p": 2, "axis": 0, "max_norm": 1.0}),
    "embedding_renorm": ((None, [1]), {"max_norm": 1.0}),
    "pad": ((None,), {"pads": ((0, 0), (1, 1)), "mode": "constant", "value": 0.0}),
    "conv2d": (([[[[1.0, 2.0], [3.0, 4.0]]]], [[[[1.0]]]]),
               {"stride": (1, 1), "padding": (0, 0), "dilation": (1, 1), "groups": 1}),
    "conv_transpose2d": (([[[[1.0, 2.0], [3.0, 4.0]]]], [[[[1.0]]]]),
                         {"stride": (1, 1), "padding": (0, 0), "output_padding": (0, 0),
                          "dilation": (1, 1), "groups": 1}),
    "max_pool2d": (([[[[1.0, 2.0], [3.0, 4.0]]]],),
                   {"kernel_size": (2, 2), "stride": (2, 2), "padding": (0, 0),
                    "dilation": (1, 1)}),
    "avg_pool2d": (([[[[1.0, 2.0], [3.0, 4.0]]]],),
                   {"kernel_size": (2, 2), "stride": (2, 2), "padding": (0, 0)}),
    "adaptive_avg_pool2d": (([[[[1.0, 2.0], [3.0, 4.0]]]],), {"output_size": (1, 1)}),
    "max_unpool": (([[[[4.0]]]], [[[[3]]]]), {"output_size": (2, 2)}),
    "normalize": ((None,), {"axis": 1, "eps": 1e-12}),
    "layer_norm": ((None, [1.0, 1.0], [0.0, 0.0]), {"axis": (1,), "eps": 1e-5}),
    "attention_softmax": ((None, [0.0, 0.0]), {"scale": 1.0}),
    "imag": (([1 + 2j, 3 - 1j],), {}),
    "view_as_real": (([1 + 2j, 3 - 1j],), {}),
    "view_as_complex": (([[1.0, 2.0], [3.0, 4.0]],), {}),
    "clamp": ((None,), {"min": 0.4, "max": 0.6}),
    "fill_diagonal_tensor": ((None, [5.0, 5.0]), {}),
    "copy": ((None, [7.0, 8.0, 9.0]), {}),
    "masked_select": ((None, [[True, False], [False, True]]), {}),
    "embedding": (([[1.0, 2.0], [3.0, 4.0]], [1, 0]), {}),
    "einsum": ((([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]),), {"equation": "ij,j->i"}),
    "cat": ((([1.0, 2.0], [3.0]),), {}),
    "stack": ((([1.0, 2.0], [3.0, 4.0]),), {}),
    "multigammaln": (([1.5, 2.0, 3.0],), {"p": 2}),
    "polygamma": ((None,), {"n": 1}),
    "threshold": ((None,), {"threshold": 0.5, "value": 0.0}),
    "argtopk": ((None,), {"k": 2}),
    "geometric": ((None,), {"probs": 0.5}),
    "addmv": (([1.0, 1.0], None, None), {}),
    "addbmm": (([[1.0, 2.0], [3.0, 4.0]], None, None), {}),
    "cumsum": ((None,), {"axis": 1}),
    "cumprod": ((None,), {"axis": 1}),
    "masked_scatter": ((None, [True, False, True], [7.0, 8.0]), {}),
}

# Ops with a method flag whose generated function is still not public (ops/__init__.py)
_INTERNAL = {"getitem", "index", "values_at", "index_put"}

# Whole examples, for calls the generated form cannot write (PyTorch's orders: the attribute
# before the tensors)
EXAMPLES = {
    "gather": ">>> import mutograd as mg\n>>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])\n"
              ">>> mg.gather(x, 1, mg.tensor([[1], [0]])).tolist()\n[[2.0], [3.0]]\n",
    "index_select": ">>> import mutograd as mg\n>>> x = mg.tensor([[2.0, 1.0], [1.0, 3.0]])\n"
                    ">>> mg.index_select(x, 0, mg.tensor([1, 0])).tolist()\n"
                    "[[1.0, 3.0], [2.0, 1.0]]\n",
    "polygamma": ">>> import mutograd as mg\n>>> x = mg.tensor([0.25, 0.5, 0.75])\n"
                 ">>> mg.polygamma(1, x)   # doctest: +ELLIPSIS\nTensor(...)\n",
    # the method form of defop(writes="x"): x.where_(condition, y) writes x
    "where_": ">>> import mutograd as mg\n>>> x = mg.tensor([1.0, 2.0])\n"
              ">>> x.where_(mg.tensor([True, False]), 0.0) is x, x.tolist()\n"
              "(True, [1.0, 0.0])\n",
    # storage swaps (defop kind="storage"): the tensor keeps its identity, its storage changes
    "cast_": ">>> import mutograd as mg\n>>> x = mg.tensor([1.5, 2.5])\n"
             ">>> x.cast_('int64') is x, x.dtype\n(True, int64)\n",
    "resize_": ">>> import mutograd as mg\n>>> x = mg.tensor([1.0, 2.0, 3.0, 4.0])\n"
               ">>> x.resize_(2, 2) is x, x.tolist()\n(True, [[1.0, 2.0], [3.0, 4.0]])\n",
    "resize_as_": ">>> import mutograd as mg\n>>> x = mg.tensor([1.0, 2.0, 3.0, 4.0])\n"
                  ">>> x.resize_as_(mg.zeros([2])) is x, x.tolist()\n(True, [1.0, 2.0])\n",
    "set_": ">>> import mutograd as mg\n>>> x, s = mg.tensor([0.0]), mg.tensor([1.0, 2.0])\n"
            ">>> x.set_(s) is x, x.tolist()\n(True, [1.0, 2.0])\n",
}

# Values of required attributes, by name, for ops not in CALLS
_ATTRS = {"axis": 0, "shape": (3, 2), "perm": (1, 0), "axis0": 0, "axis1": 1, "start": 0,
          "length": 2, "index": 1, "dtype": "float64", "shifts": 1, "reps": (2,),
          "repeats": 2, "k": 2, "offset": 0}

# The candidate inputs of an example, tried in order (Note [Example outputs]).
_FLOATS = ([0.25, 0.5, 0.75], [2.0, 1.0, 0.5], [0.5, 0.25, 0.125])
_CANDIDATES = (_FLOATS, ([1.5, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 2.5, 2.0]),
               ([1, 2, 3], [3, 2, 1], [2, 2, 2]),
               ([0.25, 0.5, 0.75], [3, 2, 1], [2, 2, 2]))
_MATRIX = [[2.0, 1.0], [1.0, 3.0]]      # symmetric positive definite: every linalg op runs
_TABLE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
_BY_NAME = {"mask": [True, False, True], "cond": [True, False, True], "index": [1, 0],
            "indices": [1, 0], "value": 0.0, "weight": 0.5, "min": 0.4, "max": 0.6,
            "lo": 0.4, "hi": 0.6, "noise": [1.0, 1.0, 1.0], "vec": [1.0, 1.0],
            "vec1": [1.0, 2.0], "vec2": [1.0, 1.0], "src": [7.0, 8.0], "source": [7.0, 8.0]}


# ---- signatures ------------------------------------------------------------------------------

def signature(op, inplace=False, first=None):
    """The call signature of ``op``'s function (``inplace``: of its ``op_`` form); ``first``
    renames the first input (``self`` for a method)."""
    kw_only = False
    params = []
    leading = op.leading
    if leading:   # einsum(equation, *operands)
        params = [_P(name, _P.POSITIONAL_OR_KEYWORD) for name in leading]
        params.append(_P("operands", _P.VAR_POSITIONAL))
        kw_only = True
    for name in ([] if leading else ["tensors"] if op.variadic else op.inputs):
        params.append(_P(name, _P.POSITIONAL_OR_KEYWORD))
    if op.varargs:
        params.append(_P(op.varargs, _P.VAR_POSITIONAL))
        kw_only = True
    for name, default in op.attrs:
        if name != op.varargs and name not in leading:
            params.append(_P(name, _P.KEYWORD_ONLY if kw_only else _P.POSITIONAL_OR_KEYWORD,
                             default=default))
    if op.takes_out and not inplace:
        params.append(_P("out", _P.KEYWORD_ONLY, default=None))
    if first and params:
        params[0] = params[0].replace(name=first)
    return inspect.Signature(params, __validate_parameters__=False)


_METHODS = {}


def method(fn):
    """``fn`` as a ``Tensor`` method: a generated function gets a copy of itself (same code and
    closure, so no extra call) whose signature names its first input ``self``; any other
    function is returned as it is."""
    op = getattr(fn, "_op", None)
    if op is None:
        return fn
    if fn in _METHODS:   # an alias names the same method (``Tensor.multiply is Tensor.mul``)
        return _METHODS[fn]
    m = _METHODS[fn] = type(fn)(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                fn.__closure__)
    m.__dict__.update(fn.__dict__)
    m.__doc__ = fn.__doc__
    m.__qualname__ = "Tensor." + fn.__name__
    m.__signature__ = signature(op, op.inplace_function is fn, first="self")
    return m


# ---- what the backward saves (docs/ops.md, column "saves for backward") ----------------------

def saves(op):
    """What ``op``'s backward node keeps when every input needs a gradient, in words."""
    if op.variadic:
        return "inputs" if op.saves_inputs else "nothing"
    if not op.differentiable:
        return "-"
    names = set()
    for uses in op.uses:
        names |= uses
    if not names:
        return "nothing"
    result = "result, copied if written" if op.copy_out else "result"
    parts = [result if n == "out" else f"kept: {n}" if n in op.keeps else n
             for n in sorted(names, key=lambda n: (n != "out", n in op.keeps, n))]
    if op.has_inplace and op.takes_out and op.inputs and op.inputs[0] in names:
        parts.append("copy of x in place")
    return ", ".join(parts)


# ---- docstrings ------------------------------------------------------------------------------

def _code(names):
    return ", ".join(f"``{n}``" for n in names)


def summary(op, inplace=False):
    """The one-line summary: ``defop(doc=...)``, else a sentence from the op's kind."""
    if inplace:
        return (f"``{op.name}`` written into ``{(op.inputs or ['x'])[0]}`` itself, which is "
                f"returned (same object, version bumped).")
    if op.doc:
        return op.doc
    ins = _code(op.inputs) or "``tensors``"
    name = f"``{op.name}``"
    if op.kind == "elementwise":
        what = "as a bool tensor" if op.result == "bool" else "in a new tensor"
        if op.n_in == 1:
            return f"{name} of each element of {ins}, {what}."
        return f"{name} of {ins}, element by element (broadcast together), {what}."
    if op.kind == "reduction":
        over = "over ``axis`` (every element when None)" if "axis" in op.attr_names else \
            "over every element"
        return f"{name} of ``{op.inputs[0]}`` {over}."
    if op.kind == "view":
        return f"{name}: a view of ``{op.inputs[0]}`` that shares its storage and version."
    if op.kind == "scan":
        return f"{name} of ``{op.inputs[0]}`` along an axis; the result has its shape."
    if op.kind == "matmul":
        return f"The matrix product {name} of {ins}."
    if op.kind == "index":
        return f"{name}: ``{op.inputs[0]}`` with values written at indices (a new tensor)."
    if op.kind == "variadic":
        return f"{name} of a list of tensors."
    return f"The {name} op on {ins}."


def _arguments(op, inplace):
    lines = []
    ins = op.inputs or ["tensors"]
    if op.leading:
        lines.append("    operands: the tensors (or one list or tuple of them).")
    elif op.variadic:
        lines.append("    tensors: a list or tuple of tensors.")
    elif len(ins) == 1:
        lines.append(f"    {ins[0]}: the input tensor" + (", written." if inplace else "."))
    else:
        lines.append(f"    {', '.join(ins)}: the input tensors (a Python number where a scalar "
                     f"will do)" + ("; the first is written." if inplace else "."))
    for name, default in op.attrs:
        what = "required" if default is _EMPTY else f"default {default!r}"
        if name == op.varargs:
            what = "ints as varargs or one list"
        lines.append(f"    {name}: {what}.")
    if op.takes_out and not inplace:
        lines.append("    out: a tensor to write the result into (returned).")
    aliases = [(t, _code(sorted(a + "=" for a, u in _KW_ALIASES.items() if u == t)))
               for t in op.attr_names if t in _KW_ALIASES.values()]
    if aliases:
        lines.append("    Also by keyword: " + "; ".join(f"{a} for ``{t}``" for t, a in aliases)
                     + ".")
    return lines


def docstring(op, inplace=False, example=None):
    """The docstring of ``op``'s function (or its ``op_`` form)."""
    saved = saves(op)
    text = [summary(op, inplace), "", "Arguments:", *_arguments(op, inplace), "",
            "No gradient." if saved == "-" else f"Backward saves: {saved} (docs/ops.md)."]
    example = example or _example(op, inplace)
    if example:   # else: no example could be made (Note [Example outputs])
        text += ["", "Example::", ""] + ["    " + line for line in example.splitlines()]
    return "\n".join(text) + "\n"


def attach(fn, op, inplace=False):
    """Give a generated function its signature and docstring (once, at declaration)."""
    fn.__signature__ = signature(op, inplace)
    example = EXAMPLES.get(op.name + "_") if inplace else op.example or EXAMPLES.get(op.name)
    fn.__doc__ = docstring(op, inplace, example)
    fn._op = op
    return fn


# ---- examples (Note [Example outputs]) -------------------------------------------------------

def _call_name(op, inplace):
    """How an example calls the function: ``mg.name`` when it is public, else through OPS."""
    public = op.method is not False and (
        op.has_inplace != "internal" if inplace else op.method != "inplace")
    if public and op.name not in _INTERNAL:
        return "mg." + op.name + ("_" if inplace else "")
    return f'OPS["{op.name}"].{"inplace_function" if inplace else "function"}'


def _inputs(op, values):
    """Python values of the op's inputs for one candidate set."""
    if op.kind in ("reduction", "scan", "view", "other"):
        first = _MATRIX if op.kind == "other" else _TABLE
        return [first] + [_BY_NAME.get(n, first) for n in op.inputs[1:]]
    if op.kind == "matmul":
        m = [[1.0, 2.0], [3.0, 4.0]]
        m = [1.0, 2.0] if op.name in ("dot", "outer") else [m] if "bmm" in op.name else m
        return [_BY_NAME.get(n, m) if n.startswith("vec") else m for n in op.inputs]
    if op.kind == "index":
        return [[0.0, 0.0, 0.0]] + [_BY_NAME.get(n, [1.0, 2.0]) for n in op.inputs[1:]]
    return [values[i] if i < len(values) and n not in _BY_NAME else _BY_NAME.get(n, values[0])
            for i, n in enumerate(op.inputs)]


def _array(v):
    """The array ``mg.tensor(v)`` holds (float32, int64 or bool)."""
    if isinstance(v, list):
        return np.array(v, dtype={"f": np.float32, "i": np.int64, "b": np.bool_,
                                  "c": np.complex64}[
            np.asarray(v).dtype.kind])
    return v


def _shown(value):
    """A forward's result printed as the public function's tensor prints."""
    text = repr(tuple(_Shown(v) for v in value) if isinstance(value, tuple) else _Shown(value))
    return "\n".join(line or "<BLANKLINE>" for line in text.split("\n"))


class _Shown:
    """An array printed as a tensor, without making one (so the allocator counts nothing)."""

    def __init__(self, arr):
        self.arr = np.asarray(arr)

    def __repr__(self):
        from ..printing import format_tensor
        from ..tensor import Tensor
        t = Tensor.__new__(Tensor)
        t._data, t._rg, t.grad_fn, t._base = self.arr, False, None, None
        return format_tensor(t)


def _attrs_for(op):
    given = {}
    for name, default in op.attrs:
        if default is _EMPTY:
            given[name] = _ATTRS[name]
    return given


class _NoImports:
    """A finder that refuses every import while an example's forward runs: mutograd's import
    must not load what a forward loads on first use (SciPy)."""

    def find_spec(self, name, path=None, target=None):
        raise ImportError(f"{name}: not loaded for a docstring example")


def _run(op, values, attrs):
    sys.meta_path.insert(0, _NO_IMPORTS)
    try:
        return _forward(op, values, attrs)
    finally:
        sys.meta_path.remove(_NO_IMPORTS)


_NO_IMPORTS = _NoImports()


def _forward(op, values, attrs):
    arrays = [([_array(t) for t in v] if op.variadic else _array(v)) for v in values]
    kw = dict(op.defaults, **attrs)
    if op.variadic:
        return op.fwd(np, arrays[0], **kw)
    if op.takes_out:
        kw["out"] = None
    if op.keeps:
        kw["keep"] = None
    return op.fwd(np, *arrays, **kw)


def _literal(v):
    if isinstance(v, tuple):
        return "(" + ", ".join(map(_literal, v)) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, slice):
        return f"slice({v.start!r}, {v.stop!r}, {v.step!r})"
    return repr(v)


def _example(op, inplace):
    lines = ["import mutograd as mg"]
    fn = _call_name(op, inplace or op.method == "inplace")
    if fn.startswith("OPS"):
        lines.append("from mutograd.ops import OPS")
    if op.name in CALLS:
        values, attrs = CALLS[op.name]
        first = _inputs(op, _FLOATS)
        values = [first[i] if v is None else v for i, v in enumerate(values)]
        candidates = [values]
    else:
        attrs = _attrs_for(op)
        candidates = [_inputs(op, c) for c in _CANDIDATES]
    if not isinstance(attrs.get(op.varargs, ()), tuple):
        attrs = dict(attrs, **{op.varargs: (attrs[op.varargs],)})
    random = "generator" in op.attr_names
    result = unloaded = None
    for values in candidates:
        if random:
            break
        try:
            with np.errstate(all="ignore"):
                result = _run(op, values, attrs)
        except ImportError:   # its forward loads a module on first use: shown unprinted
            unloaded = values
            continue
        except Exception:   # noqa: BLE001 (any failure: try the next inputs)
            continue
        arrays = result if isinstance(result, tuple) else (result,)
        if all(not (np.asarray(a).dtype.kind in "fc" and np.isnan(a).any()) for a in arrays):
            break
    else:
        if unloaded is None:
            return None   # tests/docs/test_signatures.py names the op
        values = unloaded
    args = []
    for i, v in enumerate(values):
        if op.variadic:
            args.append("[" + ", ".join(f"mg.tensor({t!r})" for t in v) + "]")
        elif isinstance(v, list):
            name = "xyzw"[i]
            lines.append(f"{name} = mg.tensor({v!r})")
            args.append(name)
        else:
            args.append(repr(v))
    args += [", ".join(map(_literal, v)) if k == op.varargs else f"{k}={_literal(v)}"
             for k, v in attrs.items()]
    text = "".join(f">>> {line}\n" for line in lines) + f">>> {fn}({', '.join(args)})"
    if inplace:
        return text + " is x\nTrue\n"
    if random:
        return text + f".shape\n{list(np.shape(values[0]))}\n"
    if result is None:   # (values after an ImportError above)
        return text + "   # doctest: +ELLIPSIS\nTensor(...)\n"
    return text + f"\n{_shown(result)}\n"
