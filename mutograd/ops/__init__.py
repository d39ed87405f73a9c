"""The op declarations, and the step that turns them into functions, methods and operators."""
from ..tensor import Tensor
from . import (  # noqa: F401  (fills ... special: the in-place surface, docs/inplace_api.md)
    activations,
    argument_orders,
    binary_math,
    complex_views,
    convolution,
    copying,
    creation,
    elementwise,
    embedding,
    factorizations,
    fills,
    grids,
    indexing,
    linalg,
    matmul,
    matrices,
    matrix_updates,
    memory_layout,
    normalization,
    pooling,
    predicates,
    products,
    reduction,
    sampling,
    scans,
    scatter,
    scatter_reduce,
    searching,
    shaping,
    softmax,
    sorting,
    special,
    spectral,
    statistics,
    storage,
    type_promotion,
    unary_math,
    view_copies,
    views,
)
from . import signatures
from .registry import OPS, binary, call, call_inplace, defop  # noqa: F401
from ..autograd.dispatch import foreign_operand, small_write

# Public names that differ from the op's declared name
ALIASES = {
    "clip": "clamp", "multiply": "mul", "subtract": "sub", "divide": "div",
    "true_divide": "div", "mod": "remainder", "floor_mod": "remainder", "greater_than": "gt",
    "greater_equal": "ge", "less_than": "lt", "less_equal": "le", "equal": "eq",
    "not_equal": "ne", "negative": "neg", "absolute": "abs", "arctan2": "atan2", "concat": "cat",
    "concatenate": "cat", "swapdims": "swapaxes", "moveaxis": None, "cast": "astype",
    "expand_dims": "unsqueeze", "greater": "gt", "less": "lt", "fix": "trunc",
}
ALIASES = {k: v for k, v in ALIASES.items() if v is not None}

# Functions the registry does not make (composites and helpers), by public name
FUNCTIONS = {
    "expand_as": views.expand_as, "split": views.split,
    "chunk": views.chunk, "unbind": views.unbind, "contiguous": shaping.contiguous,
    **argument_orders.FUNCTIONS, **scatter.FUNCTIONS, **sorting.FUNCTIONS,
}
ALIASES.update(special.ALIASES)
ALIASES.update(unary_math.ALIASES)
FUNCTIONS.update(storage.FUNCTIONS)
FUNCTIONS.update(copying.FUNCTIONS)
FUNCTIONS.update({"detach_": Tensor.detach_, "requires_grad_": Tensor.requires_grad_})
FUNCTIONS.update(searching.FUNCTIONS)
FUNCTIONS.update(statistics.FUNCTIONS)
FUNCTIONS.update(complex_views.FUNCTIONS)
for _module in (reduction, shaping, indexing, softmax, scans, products, matrices, grids,
                predicates, type_promotion, binary_math, unary_math, sampling, creation,
                view_copies):
    FUNCTIONS.update(_module.FUNCTIONS)
FUNCTIONS.update(linalg.FUNCTIONS)
# mg.rrelu, mg.dropout_, ...: nn.functional's implementation (nn needs only the ops above)
from ..nn.functional.dropouts import TOPLEVEL as _dropouts  # noqa: E402

FUNCTIONS.update(_dropouts)


def _public():
    """Every public function: name -> callable (out-of-place and ``_`` in-place forms)."""
    names = {}
    for name, op in OPS.items():
        if not hasattr(op, "function"):
            continue
        if op.method is not False and op.method != "inplace" and name not in (
                "getitem", "index", "values_at", "index_put"):
            names[name] = op.function
        if op.inplace_function is not None and op.method is not False and \
                op.has_inplace != "internal":
            names[name + "_"] = op.inplace_function
    names.update(FUNCTIONS)
    for alias, target in ALIASES.items():
        for suffix in ("", "_"):
            if target + suffix in names:
                names[alias + suffix] = names[target + suffix]
    return names


PUBLIC = _public()
_NOT_METHODS = {"cat", "stack", "einsum", "where"}

for _name, _fn in PUBLIC.items():
    if _name not in _NOT_METHODS and not hasattr(Tensor, _name):
        setattr(Tensor, _name, signatures.method(_fn))
for _op in OPS.values():   # methods that take another input than the first as self (defop writes=)
    if _op.self_function is not None:
        setattr(Tensor, _op.name, _op.self_function)
        setattr(Tensor, _op.name + "_", _op.inplace_function)


def _swap(op):
    o = OPS[op]

    def f(self, other):
        if foreign_operand(other):
            return NotImplemented
        return call(o, [other, self], o.defaults)
    return f


def _binary(op):
    # straight to the op (the function's argument parsing is not needed for two operands)
    return binary(OPS[op])


def _inplace(op):
    o = OPS[op]
    d = o.defaults

    def f(self, other):
        if small_write(o, self, other):   # Note [The operator path]
            return self
        if foreign_operand(other):
            return NotImplemented
        return call_inplace(o, (self, other), d)
    return f


for _dunder, _op in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                     ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow"),
                     ("matmul", "matmul")):
    setattr(Tensor, f"__{_dunder}__", _binary(_op))
    setattr(Tensor, f"__r{_dunder}__", _swap(_op))
    setattr(Tensor, f"__i{_dunder}__", _inplace(_op))

for _dunder, _op in (("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("le", "le"), ("gt", "gt"),
                     ("ge", "ge")):
    setattr(Tensor, f"__{_dunder}__", _binary(_op))


def _logic(logical, bitwise):
    def f(self, other):
        if foreign_operand(other):
            return NotImplemented
        o = other._data.dtype if isinstance(other, Tensor) else None
        is_bool = self._data.dtype.kind == "b" and (o is None or o.kind == "b")
        return call(OPS[logical if is_bool else bitwise], [self, other], {})
    return f


def _ilogic(logical, bitwise):
    def f(self, other):
        if foreign_operand(other):
            return NotImplemented
        op = logical if self._data.dtype.kind == "b" else bitwise
        return call_inplace(OPS[op], [self, other], {})
    return f


for _dunder, _lo, _bw in (("and", "logical_and", "bitwise_and"),
                          ("or", "logical_or", "bitwise_or"),
                          ("xor", "logical_xor", "bitwise_xor")):
    setattr(Tensor, f"__{_dunder}__", _logic(_lo, _bw))
    setattr(Tensor, f"__r{_dunder}__", _logic(_lo, _bw))
    setattr(Tensor, f"__i{_dunder}__", _ilogic(_lo, _bw))

Tensor.__neg__ = OPS["neg"].function
Tensor.__abs__ = OPS["abs"].function
Tensor.__pos__ = lambda self: self
Tensor.__invert__ = lambda self: call(
    OPS["logical_not" if self._data.dtype.kind == "b" else "bitwise_not"], [self], {})
