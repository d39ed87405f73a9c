"""Cross-entropy of a linear layer's logits (PyTorch's ``linear_cross_entropy`` and
``LinearCrossEntropyLoss``), with PyTorch's shapes: ``linear_weight`` (C, *out_features,
in_features) gives logits (N, C, *out_features), a K-dimensional loss.

    >>> import mutograd as mg
    >>> loss = mg.nn.LinearCrossEntropyLoss(4, 3)
    >>> loss(mg.randn([5, 4]), mg.tensor([0, 2, 1, 1, 0])).shape
    []
"""
import dataclasses
import math

from ..errors import ShapeError
from ..tensor import Tensor
from . import functional as F
from .layers import Linear
from .module import Module

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """PyTorch's settings of its batch-chunked kernel (chunk size, accumulation). They choose
    how PyTorch saves memory, not what is computed: mutograd accepts them and computes the
    logits of the whole batch, with the same result."""
    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(input @ linear_weight^T + linear_bias, target, ...)`` with the classes on
    ``linear_weight``'s first axis and any ``out_features`` after them.

        >>> import mutograd as mg
        >>> linear_cross_entropy(mg.zeros([2, 3]), mg.zeros([4, 3]), mg.tensor([0, 3])).item()
        1.3862943649291992
    """
    if input.ndim not in (1, 2):
        raise ShapeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise ShapeError(f"expected linear_weight with dimensionality at least 2, got "
                         f"{linear_weight.ndim}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise ShapeError(f"expected equal input and linear_weight last dimensions "
                         f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                         f"respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise ShapeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                         f"{tuple(linear_bias.shape)}")
    batch = tuple(input.shape[:-1])
    if out_features and not batch:
        raise ShapeError(f"K-dimensional loss defined by linear_weight shape "
                         f"{tuple(linear_weight.shape)} requires batched input, (N, "
                         f"{in_features}), got unbatched input with shape {tuple(input.shape)}")
    flat_w = linear_weight.reshape(-1, in_features)
    flat_b = None if linear_bias is None else linear_bias.reshape(-1)
    logits = F.linear(input, flat_w, flat_b).reshape(*batch, num_classes, *out_features)
    probs = isinstance(target, Tensor) and tuple(target.shape) == tuple(logits.shape)
    if probs and ignore_index is not None:
        raise ValueError("ignore_index cannot be specified when target contains probabilities")
    return F.cross_entropy(logits, target, weight, -100 if ignore_index is None else ignore_index,
                           reduction, label_smoothing)


class LinearCrossEntropyLoss(Module):
    """A ``Linear(in_features, num_classes * prod(out_features))`` (``.linear``) followed by
    the cross-entropy of its logits, as PyTorch's (``weight`` is a buffer)."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        super().__init__()
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise ShapeError(f"expected weight shape to be {(num_classes,)}, got "
                             f"{tuple(weight.shape)}")
        if not 0 <= label_smoothing <= 1.0:
            raise ValueError(f"expected label_smoothing to be in range [0, 1], got "
                             f"{label_smoothing}")
        self.register_buffer("weight", weight)
        self.reduction, self.num_classes = reduction, num_classes
        self.out_features, self.ignore_index = tuple(out_features), ignore_index
        self.label_smoothing, self.options = label_smoothing, options
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             dtype=dtype)

    def forward(self, input, target):
        w = self.linear.weight.reshape(self.num_classes, *self.out_features,
                                       self.linear.in_features)
        b = None if self.linear.bias is None else self.linear.bias.reshape(
            self.num_classes, *self.out_features)
        return linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight,
                                    reduction=self.reduction, ignore_index=self.ignore_index,
                                    label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}")
