"""Forward-mode derivatives (Jacobian-vector products) by the double-VJP construction, and the
dual tensors of PyTorch's ``torch.autograd.forward_ad`` built on it.

Note [Forward mode by double VJP]
    For outputs ``y = f(x)``, a vector-Jacobian product ``g(u) = J^T u`` is linear in ``u``.
    Computed with ``create_graph=True`` from a ``u`` that requires grad, it is a function of
    ``u`` whose own VJP with a tangent ``t`` is ``d/du <J^T u, t> = J t``: the Jacobian-vector
    product, from two reverse passes (the second over the graph of the first). ``u`` is zeros:
    the value does not matter, since ``g`` is linear in it. Every op whose gradient formula is
    differentiable (design.md rule 13: all of them) runs forward mode this way; no op has a
    forward rule of its own. The cost is one forward, one backward that records its graph and a
    backward through that graph, about three times a VJP; a real forward rule would cost one.
    What the first backward saves is versioned, so an in-place write between the forward and
    the JVP is the usual version error.

Dual tensors (``make_dual``) are tensors that require grad, registered with their tangent for
the current dual level; ``unpack_dual(y)`` runs the construction from ``y`` back to the dual
tensors ``y`` depends on. Ops on dual tensors therefore record a graph (they need grad mode on),
and the tangents of a level are dropped when it exits.

    >>> import mutograd as mg
    >>> import mutograd.autograd.forward_ad as fwAD
    >>> x = mg.tensor([0.0, 1.0])
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(x, mg.tensor([1.0, 2.0]))
    ...     y = d * d * 3
    ...     fwAD.unpack_dual(y).tangent.tolist()
    [0.0, 12.0]
"""
import collections
import threading
import weakref

from . import engine
from .grad_mode import enable_grad
from .node import AccumulateGrad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "jvp_of", "make_dual", "tracks_outside", "unpack_dual"]


def _differentiable(t):
    return t.requires_grad and t.dtype.is_floating_point


def jvp_of(outputs, inputs, tangents, create_graph=False, check_first=None):
    """``J t`` for each of ``outputs`` (tensors computed from ``inputs``, which require grad),
    one ``tangents`` entry per input (None: a zero tangent). Returns a tuple aligned with
    ``outputs``: None where an output does not depend on the inputs. Note [Forward mode by
    double VJP]; ``create_graph`` makes the result differentiable (with respect to the inputs,
    the tangents and anything else it depends on). ``check_first`` is called with the first
    pass's gradients (one per input, None where unused), for strict mode's checks."""
    from ..ops.creation import zeros_like
    used = [i for i, o in enumerate(outputs) if _differentiable(o)]
    res = [None] * len(outputs)
    if not used:
        return tuple(res)
    us = [zeros_like(outputs[i]).requires_grad_() for i in used]
    with enable_grad():
        gs = engine.grad([outputs[i] for i in used], list(inputs), us, create_graph=True,
                         allow_unused=True)
        if check_first is not None:
            check_first(gs)
        pairs = [(g, t) for g, t in zip(gs, tangents)
                 if g is not None and t is not None and g.requires_grad]
        if not pairs:
            return tuple(res)
        js = engine.grad([g for g, _ in pairs], us, [t for _, t in pairs],
                         create_graph=create_graph, allow_unused=True)
    for i, j in zip(used, js):
        res[i] = j
    return tuple(res)


UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _Levels(threading.local):
    level = -1        # the current dual level of this thread (-1: none)
    duals = None      # [(weakref to the dual tensor, its tangent, whether its primal tracks)]


_levels = _Levels()


def enter_dual_level():
    """Enter a new dual level and return its number (0); one level at a time, as in PyTorch."""
    if _levels.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.level, _levels.duals = 0, []
    return 0


def exit_dual_level(*, level=None):
    """Leave the current dual level: its dual tensors lose their tangents."""
    if level is not None and level != _levels.level:
        raise RuntimeError(f"Trying to exit a forward AD level ({level}) that was not the last "
                           f"one entered ({_levels.level})")
    _levels.level, _levels.duals = -1, None


class dual_level:   # noqa: N801 - PyTorch's name
    """A context manager inside which dual tensors carry tangents.

    ``with dual_level(): ...`` is ``enter_dual_level()`` then ``exit_dual_level()``."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _check_level(level, what):
    if _levels.level < 0:
        raise RuntimeError(f"Trying to {what} for forward AD but no level exists, make sure to "
                           f"enter_dual_level() first.")
    if level is not None and level != _levels.level:
        raise RuntimeError(f"Invalid level given to {what}: {level} (the current level is "
                           f"{_levels.level})")


def make_dual(tensor, tangent, *, level=None):
    """A tensor with ``tensor``'s value whose tangent is ``tangent`` at the current level.

    Ops on it record a graph (Note [Forward mode by double VJP]); :func:`unpack_dual` gives the
    tangent of anything computed from it. When ``tensor`` requires grad, the dual tensor keeps
    its history, so reverse mode sees through it."""
    _check_level(level, "create a dual Tensor")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: "
                             f"{t.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if tangent.dtype != tensor.dtype:
        tangent = tangent.to(tensor.dtype)
    tracks = tensor.requires_grad
    with enable_grad():
        dual = tensor.view_as(tensor) if tracks else tensor.detach().requires_grad_()
    _levels.duals.append((weakref.ref(dual), tangent, tracks))
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor`` at the current level; the tangent is None for a
    tensor that does not depend on a dual tensor (and after the level exited)."""
    if _levels.level < 0 or not hasattr(tensor, "requires_grad"):
        return UnpackedDualTensor(tensor, None)
    _check_level(level, "unpack a dual Tensor")
    live = [(d(), t, tr) for d, t, tr in _levels.duals]
    live = [(d, t, tr) for d, t, tr in live if d is not None]
    for d, t, tr in live:
        if d is tensor:
            return UnpackedDualTensor(tensor if tr else tensor.detach(), t)
    if not _differentiable(tensor):
        return UnpackedDualTensor(tensor, None)
    duals = [d for d, _, _ in live]
    outside = tracks_outside([tensor], duals)
    (tangent,) = jvp_of((tensor,), duals, [t for _, t, _ in live],
                        create_graph=outside or any(t.requires_grad for _, t, _ in live))
    return UnpackedDualTensor(tensor if outside else tensor.detach(), tangent)


def tracks_outside(outputs, own):
    """Whether reverse mode outside a transform can differentiate ``outputs``: their graph
    reaches a leaf that requires grad other than ``own`` (the leaves the transform made itself).
    A transform then records the graph of what it computes (``create_graph``), so that the
    result is differentiable as PyTorch's transforms are; otherwise it need not."""
    skip = {id(a) for a in own if a.grad_fn is None}
    seen, stack = set(), []
    for t in outputs:
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad and id(t) not in skip:
            return True
    while stack:
        node = stack.pop()
        for e in node.next:
            if e is None:
                continue
            if type(e) is AccumulateGrad:
                if id(e.variable) not in skip:
                    return True
            elif id(e) not in seen:
                seen.add(id(e))
                stack.append(e)
    return False
