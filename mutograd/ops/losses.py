"""Fused losses: ``cross_entropy_indices``, the softmax cross-entropy of logits (N, C) against
class indices (N,) as one op, the common case of ``nn.functional.cross_entropy``: one node in
place of five (log_softmax, the pick of each target, the weighting, the sum, the mean), and its
gradient ``(softmax(x) - onehot(target)) * w`` without the intermediate tensors. The gradient
is written in the array namespace, so it differentiates itself (a Hessian through the softmax).

    >>> import mutograd as mg
    >>> F = mg.nn.functional
    >>> round(F.cross_entropy(mg.tensor([[2.0, 0.0], [0.0, 2.0]]), mg.tensor([0, 1])).item(), 4)
    0.1269
"""
from ..autograd.graph_arrays import graph_mode
from .registry import defop


def _target_weights(xp, target, weight, ignore_index, dtype):
    """The class each row reads (0 for an ignored one) and each row's weight (0 if ignored)."""
    valid = target != ignore_index
    safe = xp.where(valid, target, 0)
    wt = valid.astype(dtype) if weight is None else weight[safe] * valid
    return safe, wt


def _cross_entropy_indices(xp, x, target, weight, *, ignore_index=-100, reduction="mean"):
    z = x - x.max(axis=1, keepdims=True)
    safe, wt = _target_weights(xp, target, weight, ignore_index, x.dtype)
    picked = z[xp.arange(x.shape[0]), safe] - xp.log(xp.exp(z).sum(axis=1))
    loss = -picked * wt
    if reduction == "none":
        return loss
    total = xp.asarray(loss.sum())
    if reduction == "sum":
        return total
    denom = wt.sum()   # 0 when every row is ignored: the mean is NaN (0/0), as PyTorch's
    return total / xp.where(denom == 0, xp.nan, denom)


def _softmax_rows(xp, x):
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _onehot(xp, safe, x):
    return (xp.arange(x.shape[1]) == safe[:, None]).astype(x.dtype)


def _row_scales(xp, grad, wt, reduction):
    """Each row's factor in the gradient: its weight times the incoming gradient, over the
    total weight for 'mean' (every row ignored: every weight 0, and a zero gradient)."""
    if reduction == "mean":
        denom = wt.sum()
        grad = grad / xp.where(denom == 0, 1, denom)
    return wt * grad


def _cross_entropy_indices_backward(xp, grad, x, target, weight, *, ignore_index=-100,
                                    reduction="mean"):
    safe, wt = _target_weights(xp, target, weight, ignore_index, x.dtype)
    scale = _row_scales(xp, grad, wt, reduction)
    return (_softmax_rows(xp, x) - _onehot(xp, safe, x)) * scale[:, None]


def _cross_entropy_indices_grad(g, x, target, weight, ignore_index, reduction, xp):
    if graph_mode(xp):   # one node (Note [Fused gradients] in registry.py)
        return xp.recorded("cross_entropy_indices_backward", g, x, target, weight,
                           ignore_index=ignore_index, reduction=reduction)
    return _cross_entropy_indices_backward(xp, g, x, target, weight, ignore_index=ignore_index,
                                           reduction=reduction)


# the backward op's gradients: it is linear in ``grad``, and softmax's Jacobian-vector product
# (s * (v - sum(v * s))) in ``x``
def _ce_backward_grad_grad(g, x, target, weight, ignore_index, reduction, xp):
    safe, wt = _target_weights(xp, target, weight, ignore_index, x.dtype)
    rows = ((_softmax_rows(xp, x) - _onehot(xp, safe, x)) * g).sum(axis=1)
    per_row = _row_scales(xp, rows, wt, reduction)
    return per_row if reduction == "none" else per_row.sum()


def _ce_backward_grad_x(g, grad, x, target, weight, ignore_index, reduction, xp):
    _, wt = _target_weights(xp, target, weight, ignore_index, x.dtype)
    s = _softmax_rows(xp, x)
    return s * (g - (g * s).sum(axis=1, keepdims=True)) * _row_scales(xp, grad, wt,
                                                                      reduction)[:, None]


defop("cross_entropy_indices", _cross_entropy_indices, kind="other", inplace=False,
      method=False, grad=(_cross_entropy_indices_grad, None, None),
      node_name="NllLossBackward",   # PyTorch's name for the node of F.cross_entropy
      example=(">>> import mutograd as mg\n>>> from mutograd.ops import OPS\n"
               ">>> x, target = mg.tensor([[2.0, 0.0], [0.0, 2.0]]), mg.tensor([0, 1])\n"
               ">>> round(OPS['cross_entropy_indices'].function(x, target, None).item(), 4)\n"
               "0.1269\n"),
      doc="Softmax cross-entropy of logits (N, C) against class indices (N,), each row weighted "
          "by its class's ``weight`` (rows of ``ignore_index`` count 0); ``reduction`` 'mean' "
          "divides by the total weight.")
defop("cross_entropy_indices_backward", _cross_entropy_indices_backward, kind="other",
      inplace=False, method=False, node_name="NllLossBackwardBackward",
      grad=(_ce_backward_grad_grad, _ce_backward_grad_x, None, None),
      example=(">>> import mutograd as mg\n>>> from mutograd.ops import OPS\n"
               ">>> x, target = mg.tensor([[2.0, 0.0], [0.0, 2.0]]), mg.tensor([0, 1])\n"
               ">>> g = OPS['cross_entropy_indices_backward'].function(mg.tensor(1.0), x, target,"
               " None)\n>>> [round(v, 4) for v in g[0].tolist()]\n[-0.0596, 0.0596]\n"),
      doc="The gradient of ``cross_entropy_indices`` in its logits, ``(softmax(x) - "
          "onehot(target)) * w``, as one op (Note [Fused gradients] in ops/registry.py).")
