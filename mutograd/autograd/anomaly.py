"""Anomaly mode: every node keeps the forward stack that created it, and backward stops at the
first node that fails or produces NaN/Inf, showing that stack.

    >>> import mutograd as mg
    >>> x = mg.tensor([0.0, 1.0], requires_grad=True)
    >>> with mg.detect_anomaly():
    ...     y = x.sqrt()                       # the gradient of sqrt at 0 is inf
    ...     try:
    ...         y.sum().backward()
    ...     except mg.BackwardError as e:
    ...         print(str(e).splitlines()[0])
    Function 'SqrtBackward0' returned inf values in its 0th output.

It costs a stack walk per node, so it is a debugging switch (off by default), as in PyTorch.
"""
import sys

from ..errors import BackwardError
from ..switches import ImmediateSwitch, ScopedSwitch
from . import sites
from .explain import forward_stack, node_label

_NOTE = "mutograd anomaly mode"


def is_anomaly_enabled():
    """Whether anomaly mode is on."""
    return sites.Flags.anomaly


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode also checks each backward node's gradients for NaN and Inf."""
    return sites.Flags.anomaly and sites.Flags.check_nan


class _AnomalyFlags:
    """The switch: anomaly mode and its NaN check."""

    def _read(self):
        return sites.Flags.anomaly, sites.Flags.check_nan

    def _write(self, flags):
        sites.Flags.anomaly, sites.Flags.check_nan = flags


class detect_anomaly(_AnomalyFlags, ScopedSwitch):
    """Context manager (and decorator): anomaly mode for a block.

    Example::

        with mutograd.detect_anomaly():
            loss = model(x).sum()
            loss.backward()      # an error here shows the forward line of the failing node
    """

    def __init__(self, check_nan=True):
        self.check_nan = bool(check_nan)
        self.value = (True, self.check_nan)


class set_detect_anomaly(_AnomalyFlags, ImmediateSwitch):
    """Turn anomaly mode on or off now; as a context manager, restore the old mode after."""

    def __init__(self, mode, check_nan=True):
        self._swap((bool(mode), bool(check_nan)))


def checked_apply(node, g, into=None, graph=False):
    """``node.apply(g, into)`` (``node.apply_graph(g)`` with ``graph``) under anomaly mode: name
    the node and its forward stack on failure."""
    try:
        grads = node.apply_graph(g) if graph else node.apply(g, into)
    except Exception as e:
        _annotate(e, node)
        raise
    if sites.Flags.check_nan:
        for i, gi in enumerate(grads):
            gi = getattr(gi, "values", gi)   # a RegionGrad: its nonzero part
            gi = getattr(gi, "_data", gi)    # graph mode: the tensor's array
            if gi is None or getattr(gi, "dtype", None) is None or gi.dtype.kind not in "fc":
                continue
            xp = getattr(node, "xp", None) or sys.modules["numpy"]
            if not bool(xp.isfinite(gi).all()):
                raise _nonfinite(node, i, gi, xp)
    return grads


def _nonfinite(node, i, gi, xp):
    kind = "nan" if bool(xp.isnan(gi).any()) else "inf"
    lines = [f"Function '{node.name()}' returned {kind} values in its {i}th output.",
             f"The gradient for input {i} of {node_label(node)} is not finite."]
    text = forward_stack(node)
    if text:
        lines.append(text)
    err = BackwardError("\n".join(lines))
    err.node = node.name()
    return err


def _annotate(e, node):
    """Attach the forward stack to an exception raised inside a node's backward (once)."""
    if getattr(e, "_anomaly_node", None) is not None:
        return
    e._anomaly_node = node.name()
    text = forward_stack(node)
    if not text or text in str(e):
        return
    note = f"Error detected in {node.name()} ({_NOTE}). {text}"
    if hasattr(e, "add_note"):
        e.add_note(note)
    else:   # Python 3.10: no notes; print it as PyTorch does
        print(note, file=sys.stderr)
