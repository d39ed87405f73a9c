"""Paddle's rule for the dtypes that meet in an element-wise op (``paddle.Tensor._operand_rule``,
Note [Type promotion] in mutograd/autograd/promotion.py).

Paddle 3.3.1 promotes two tensors of different dtypes only when both are floats or one is
complex: ``float32 + int64``, ``int32 < int64`` and ``logical_and(bool, float32)`` raise
TypeError, where PyTorch would promote. Its arithmetic operators and functions and its
comparisons count a 0-d tensor as a number (``float32 tensor + int64 0-d tensor`` is float32),
its other functions (``maximum``, ``atan2``, ``where``, the logical ones) and every in-place form
do not. Python numbers never take part. Where the dtypes may meet, the result dtype is
PyTorch's, which Paddle's equals (recorded in tests/references/paddle_api_cases.py).
"""
import numpy as np
# the ops Paddle checks, and those of them that count a 0-d tensor as a number
CHECKED = frozenset({
    "add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "eq", "ne", "lt", "le",
    "gt", "ge", "copysign", "maximum", "minimum", "atan2", "where", "logical_and", "logical_or",
    "logical_xor", "nextafter"})
ZERO_DIM_AS_NUMBER = frozenset({
    "add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "eq", "ne", "lt", "le",
    "gt", "ge", "copysign"})


def operand_rule(op, arrays, in_place):
    """Raise Paddle's TypeError when ``op``'s tensor operands (``arrays``) have dtypes Paddle
    does not promote; return whether 0-d tensors count as numbers in the promotion."""
    if op.name not in CHECKED:
        return True
    numbers = not in_place and op.name in ZERO_DIM_AS_NUMBER
    values = arrays if op.operands is None else [arrays[i] for i in op.operands]
    if in_place:   # Paddle checks that the operand fits the written tensor first
        try:
            if np.broadcast_shapes(*(np.shape(a) for a in arrays)) != np.shape(arrays[0]):
                return numbers
        except ValueError:
            return numbers
    dts = [a.dtype for a in values if hasattr(a, "dtype") and (a.ndim or not numbers)]
    first = dts[0] if dts else None
    for d in dts[1:]:
        if d != first and not ({d.kind, first.kind} <= {"f"} or "c" in (d.kind, first.kind)):
            raise TypeError(
                "(InvalidType) Type promotion only support calculations between floating-point "
                "numbers and between complex and real numbers. But got different data type x: "
                f"{first.name}, y: {d.name}. Cast one with .astype(...) first "
                "(Paddle does not promote integers and floats)")
    return numbers
