"""Generate ``docs/ops.md``, the op list, from the registry: ``python -m mutograd.tools.opdocs``.

Each row comes from the op's one declaration: its public forms, its kind, and what its backward
saves (read from the gradient's parameter names, STYLE.md "One declaration per op"). A test
checks that the committed page is current.
"""
import os
import sys

import mutograd as mg
from mutograd.tools import write_main
import mutograd.compat.paddle  # noqa: F401  (registers set_value, listed too)
from mutograd.ops import ALIASES, FUNCTIONS, OPS
from mutograd.ops.signatures import saves as _saves

HEADER = """# Ops

Generated from the op registry by `python -m mutograd.tools.opdocs`; do not edit by hand.

Forms: `mg.op(...)` (function), `x.op(...)` (method), `mg.op_(x, ...)` / `x.op_(...)` (in place,
returning `x` itself). **Saves** is what the backward node keeps when every input needs a
gradient: `result` (the output; free when run in place; `result, copied if written` when a later
write into it first copies the written region, once, so that chains such as `b.asin_().asin_()`
run as in PyTorch: Note [Outputs copied on write]), an input by name (kept by reference and
version-checked), `kept: name` (an array the forward computed for the backward, private to the
node: never version-checked, freed after backward), `copy of x in place` (the in-place form
copies the overwritten input first, one counted buffer, only when its gradient is needed), or
nothing (shapes and attributes only).
Ops without a gradient are marked `-`.

`help(mg.add)` (or `help(x.add)`, `inspect.signature(mg.add)`) shows a generated op's
signature, what its backward saves and an example whose output is printed; editors complete
`mg.` and `x.` from the stub `mutograd/__init__.pyi`, which `python -m mutograd.tools.stubs`
regenerates after an op is added or renamed (`tests/docs/test_signatures.py` checks it is current).

Linear algebra beyond products is in `mutograd.linalg` (`torch.linalg`): `norm`, `vector_norm`,
`matrix_norm`, `inv`, `det`, `slogdet`, `solve`, `matrix_power`, `cross`, `vecdot`, each with
gradients (the declared ops `inverse`, `det`, `logabsdet`, `solve` below).

Both conventions are accepted where they do not clash: `axis=`/`dim=`, `keepdim`/`keepdims`,
shapes as a list or as varargs, Paddle-only names such as `take_along_axis(x, index, axis)` and
`put_along_axis`. Where they clash the main namespace follows PyTorch and `mutograd.compat.paddle`
follows Paddle: `split(x, 2)` makes pieces of size 2, `max(x, axis)` with an int axis returns
`(values, indices)`, and the positional orders are PyTorch's only: `gather(x, dim, index)`,
`index_select(x, dim, index)`, `transpose(x, dim0, dim1)`, `polygamma(n, x)`, `index_add(x, dim,
index, source)`, `scatter(x, dim, index, src)`, ... A call in Paddle's order (`gather(x, index,
axis)`, `transpose(x, perm)`, ...) is a TypeError that names both forms; the paddle namespace
and `paddle.Tensor` take Paddle's. The in-place view ops (`reshape_`, `squeeze_`, `unsqueeze_`,
`t_`, `transpose_`, `flatten_`, `as_strided_`) change the tensor's own shape and strides: no
data moves, the version is bumped as for every write (PyTorch and Paddle do the same), and the
history is rebased onto the view op's node.

Type promotion of element-wise ops is PyTorch's (`torch.result_type`; Note [Type promotion] in
`mutograd/autograd/promotion.py`), in every namespace. Within a kind (bool, integer, float,
complex) dtypes promote as NumPy's do; an integer tensor meeting a float or complex tensor gives
that float or complex dtype (`int64 tensor + float32 tensor` is float32, where NumPy would give
float64). Python numbers are weak (`float32 tensor + 1.5` stays float32, `int32 tensor + 1`
stays int32) and so are 0-d tensors (`float32 tensor * float64 0-d tensor` is float32), unless
they are of a higher kind: an integer tensor meeting a Python float gives the default float
dtype (`int64 tensor * 2.5` is float32), and meeting a float64 0-d tensor gives float64. Two
Python scalars given to `where` take the default dtypes
(float32, int64). Also PyTorch's and Paddle's rule: an op whose result is a float (`exp`,
`log`, `sqrt`, `sin`, `sigmoid`, `softmax`, `reciprocal`, `/`, ...) given only integer or bool
tensors computes in the default float dtype (float32 unless `set_default_dtype` changed it), so
`int / int` and `exp(bool)` are float32, where NumPy alone would give float64 and float16 (Note
[Float results of integer inputs] in `mutograd/ops/registry.py`). A shape or dtype the backend
refuses raises `ShapeError` / `DTypeError` naming the op; an in-place op checks broadcasting and
the result's dtype before it writes anything.

"""

EXTREMAL = """
## Extremal inputs

`tests/ops/test_extremal.py` runs every row of the op table against PyTorch on NaN, +inf, -inf, -0.0
and +0.0 mixed into normal inputs, on empty tensors ((0,), (0, 3), (3, 0)), on 0-d tensors (with
`dim=0` and `dim=-1`) and on int64 and bool inputs where PyTorch takes them. What holds:

- An error is raised exactly where PyTorch raises one, and it is a `MutogradError`: a dimension
  or an index out of range is an `IndexRangeError` (also an `IndexError` and a `ValueError`;
  in `gather` and the `scatter` family a `GatherIndexError`, a `RuntimeError` too, as PyTorch
  raises there), never a `ZeroDivisionError` or a backend's own error.
- A 0-d tensor has one dimension for a dim argument, as in PyTorch: `dim=0` and `dim=-1` name
  its element (`x.sum(0)`, `x.max(-1)`, `gather`, `index_select`, the scatter and `index_*`
  family), any other dim is out of range (`mutograd/ops/axes.py`).
- The ops that work along a dimension a tensor must really have (`select`, `narrow`, `split`,
  `chunk`, `unbind`, `unflatten`, `repeat_interleave` with a dim) refuse a 0-d tensor, as PyTorch
  does; `cumsum`/`cumprod` of a 0-d tensor stay 0-d; `tril`/`triu` need a matrix and `outer`
  two vectors; `x.mT` of a 0-d tensor is `x`.
- Results have PyTorch's dtype, shape, NaN positions, infinities and signs of zero (`relu`,
  `elu`, `erfinv` and `remainder` keep -0.0 where PyTorch does, `cumsum` starts from +0.0), and
  gradients take PyTorch's value at a kink: `relu'(0) = 0`, `abs'(0) = 0`, `sign(NaN) = 0` and
  `sign' = 0`, clamp passes the gradient at a bound, a tensor bound gets it only where it binds
  (`min < max`), a max/min tie splits it in half and a NaN gives it to both sides; `max()` over
  all elements gives it to the NaN elements when the result is NaN; `relu`, `elu` and
  `threshold` pass a NaN through with its gradient. A descending sort puts NaN first and keeps
  equal elements in order.

Deliberate differences: `cat` and `roll` check the dim of an empty
1-D tensor, which PyTorch skips; `take_along_axis` takes a 0-d tensor as `gather` does
(PyTorch's `take_along_dim` refuses one); `addcmul` of integer tensors refuses a non-integral
`value`, which PyTorch truncates; an in-place op never resizes an empty tensor (PyTorch's `addr_`
does); PyTorch's hardtanh gradient at NaN depends on which of its CPU loops ran, so it is not
compared. The cases that still differ are listed, by class, in `KNOWN_BUGS` of the test.
"""

# public names that are composites of declared ops, and what they are built from
COMPOSITES = {
    "max": "amax; argmax + values_at with an int axis; maximum with a tensor",
    "min": "amin; argmin + values_at with an int axis; minimum with a tensor",
    "var": "var", "std": "std", "softmax": "softmax", "log_softmax": "log_softmax",
    "transpose": "permute or swapaxes; `transpose_` changes the tensor's metadata",
    "expand_as": "expand",
    "split": "narrow (views)", "chunk": "narrow (views)", "unbind": "select (views)",
    "contiguous": "clone when not contiguous", "gather": "gather; index_select (Paddle order)",
    "take_along_axis": "gather", "index_select": "index_select", "where": "where",
    "clamp": "clamp", "index_put": "index_put",
    "uniform": "uniform (in-place fill)", "normal": "normal (in-place fill)", "einsum": "einsum",
    "cat": "cat", "stack": "stack",
}


def _forms(name, op):
    forms = []
    if hasattr(mg, name):
        forms.append(f"`mg.{name}`")
    if hasattr(mg.Tensor, name):
        forms.append(f"`x.{name}`")
    if hasattr(mg, name + "_"):
        forms.append(f"`{name}_`")
    return ", ".join(forms) or "internal"


def rows():
    """``(name, forms, kind, aliases, saves)`` for every declared op, by name."""
    aliases = {}
    for alias, target in ALIASES.items():
        aliases.setdefault(target, []).append(alias)
    out = []
    for name in sorted(OPS):
        op = OPS[name]
        kind = getattr(op, "kind", "variadic")
        out.append((name, _forms(name, op), kind, ", ".join(sorted(aliases.get(name, []))),
                    _saves(op)))
    return out


def render():
    lines = [HEADER, "| op | forms | kind | aliases | saves for backward |",
             "|---|---|---|---|---|"]
    for name, forms, kind, aliases, saves in rows():
        lines.append(f"| `{name}` | {forms} | {kind} | {aliases} | {saves} |")
    lines += ["", "## Functions composed from declared ops", "",
              "| function | forms | built from |", "|---|---|---|"]
    for base in sorted({n.rstrip("_") for n in FUNCTIONS}):
        what = COMPOSITES.get(base) or (f"alias of {ALIASES[base]}" if base in ALIASES else "")
        lines.append(f"| `{base}` | {_forms(base, None)} | {what} |")
    return "\n".join(lines) + "\n" + EXTREMAL


def main(argv=None):
    return write_main(argv, "python -m mutograd.tools.opdocs",
                      "Write the op list generated from the registry.",
                      os.path.join("docs", "ops.md"), render)


if __name__ == "__main__":
    sys.exit(main())
