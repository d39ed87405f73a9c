"""The op declarations, and the step that turns them into functions, methods and operators."""
from ..tensor import Tensor
from . import (  # noqa: F401  (fills ... special: the in-place surface, docs/inplace_api.md)
    activations,
    binary_math,
    complex_views,
    convolution,
    copying,
    creation,
    elementwise,
    embedding,
    factorizations,
    fills,
    fourier,
    grids,
    indexing,
    linalg,
    losses,
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
    standard_gamma,
    statistics,
    storage,
    type_promotion,
    unary_math,
    view_copies,
    views,
)
from . import signatures
from .registry import OPS, binary, call, call_inplace, defop  # noqa: F401
from .. import tensor_factories, tensor_methods  # (they use the submodules above)
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

# Functions the registry does not make (composites, and the public forms that read arguments a
# declaration cannot), by public name, from each family's FUNCTIONS
FUNCTIONS = {"contiguous": shaping.contiguous, "detach_": Tensor.detach_,
             "requires_grad_": Tensor.requires_grad_}
ALIASES.update(special.ALIASES)
ALIASES.update(unary_math.ALIASES)
for _module in (views, elementwise, fills, special, normalization, scatter, scatter_reduce,
                sorting, storage, copying, searching, statistics, complex_views, reduction,
                shaping, indexing, softmax, scans, products, matrices, grids, predicates,
                type_promotion, binary_math, unary_math, sampling, creation, view_copies):
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
from .. import linalg as linalg_namespace, transfer  # noqa: E402  (they use FUNCTIONS above)
# Modules that declare Tensor methods which are not ops: TENSOR_METHODS, name -> function or
# property (no two declare one name; tests/ops/test_tensor_methods_generator.py)
_DECLARING = (activations, complex_views, creation, indexing, linalg, memory_layout, predicates,
              reduction, sampling, scans, shaping, special, views, tensor_methods,
              tensor_factories, transfer)


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


_UNARY = {
    "__neg__": OPS["neg"].function,
    "__abs__": OPS["abs"].function,
    "__pos__": lambda self: self,
    "__invert__": lambda self: call(
        OPS["logical_not" if self._data.dtype.kind == "b" else "bitwise_not"], [self], {}),
}


def _attach_methods():
    """Set Tensor's methods and operators, the one place that sets attributes on Tensor: each
    name declared in a TENSOR_METHODS, else each public function the class body lacks; over
    those, the ops that take another input as self, then the operators."""
    methods = {}
    for module in _DECLARING:
        methods.update(module.TENSOR_METHODS)
    for name, fn in PUBLIC.items():
        if name not in _NOT_METHODS and name not in methods and not hasattr(Tensor, name):
            methods[name] = signatures.method(fn)
    for op in OPS.values():   # another input than the first as self (defop writes=)
        if op.self_function is not None:
            methods[op.name] = op.self_function
            methods[op.name + "_"] = op.inplace_function
    for dunder, op in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                       ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow"),
                       ("matmul", "matmul")):
        methods[f"__{dunder}__"] = _binary(op)
        methods[f"__r{dunder}__"] = _swap(op)
        methods[f"__i{dunder}__"] = _inplace(op)
    for dunder in ("eq", "ne", "lt", "le", "gt", "ge"):
        methods[f"__{dunder}__"] = _binary(dunder)
    for dunder, lo, bw in (("and", "logical_and", "bitwise_and"),
                           ("or", "logical_or", "bitwise_or"),
                           ("xor", "logical_xor", "bitwise_xor")):
        methods[f"__{dunder}__"] = _logic(lo, bw)
        methods[f"__r{dunder}__"] = _logic(lo, bw)
        methods[f"__i{dunder}__"] = _ilogic(lo, bw)
    methods.update(_UNARY)
    for name, fn in linalg_namespace.METHODS.items():   # only names nothing else declares
        if name not in methods and not hasattr(Tensor, name):
            methods[name] = fn
    for name, attr in methods.items():
        setattr(Tensor, name, attr)


_attach_methods()
