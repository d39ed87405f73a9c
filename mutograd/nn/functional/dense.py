"""Linear and bilinear maps: ``x @ W.T + b`` and ``x1^T A x2 + b``.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.linear(mg.ones([2, 3]), mg.ones([4, 3]), mg.zeros([4])).tolist()
    [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]
"""


from ...errors import ShapeError
from ...ops import OPS, call, call_inplace


# ---- layers --------------------------------------------------------------------------------
def linear(x, weight, bias=None):
    """``x @ weight.T + bias`` (PyTorch's weight layout: out_features x in_features): one op
    (``linear`` in ops/matmul.py) for a matrix weight and a vector bias."""
    if weight.ndim == 2 and (bias is None or tuple(bias.shape) == tuple(weight.shape[:1])):
        return call(OPS["linear"], [x, weight, bias], OPS["linear"].defaults)
    out = call(OPS["matmul"], [x, call(OPS["t"], [weight], {})], {})
    if bias is not None:
        call_inplace(OPS["add"], [out, bias], OPS["add"].defaults)
    return out


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T A_k x2 + b_k`` with ``weight`` A of shape (out, in1, in2).

        >>> import mutograd as mg
        >>> bilinear(mg.ones([1, 2]), mg.ones([1, 3]), mg.ones([4, 2, 3])).tolist()
        [[6.0, 6.0, 6.0, 6.0]]
    """
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2 or \
            tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise ShapeError(f"bilinear: inputs of shapes {list(input1.shape)} and "
                         f"{list(input2.shape)} do not fit a weight of shape "
                         f"{list(weight.shape)}")
    mixed = input1 @ weight.permute(1, 0, 2).reshape(in1, out_f * in2)
    out = (mixed.reshape(*input1.shape[:-1], out_f, in2) * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias
