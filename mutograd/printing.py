"""How tensors print: each tensor type has its layout (``Tensor._print_style``).

A ``torch.Tensor`` prints as ``tensor([...])`` and a ``paddle.Tensor`` as ``Tensor(shape=...)``,
wherever it is printed. ``set_printoptions(style=...)`` chooses the layout of the main
namespace's tensors only (Paddle's by default); the other options (precision, threshold, ...)
apply to every layout.
"""
import numpy as np

_options = {"style": "paddle", "precision": None, "threshold": 1000, "edgeitems": 3,
            "linewidth": 80, "sci_mode": None}

def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     sci_mode=None, style=None, profile=None):
    """Set how tensors print; ``style`` is the main namespace's layout, ``'paddle'`` (the
    default) or ``'torch'`` (a dialect's tensors always print in their framework's layout)."""
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth),
                       ("sci_mode", sci_mode), ("style", style)):
        if value is not None:
            _options[key] = value


def _body(arr, prefix, precision):
    if arr.dtype.kind in "fc":
        # Both frameworks print every element with the same number of decimals (8 in Paddle,
        # 4 in PyTorch), except that integral values print as ``1.``.
        finite = arr[np.isfinite(arr)]
        integral = arr.dtype.kind == "f" and bool((finite == np.round(finite)).all())
        kw = {"precision": precision, "floatmode": "maxprec" if integral else "fixed"}
        if _options["sci_mode"] is False:
            kw["suppress_small"] = True
    else:
        kw = {}
    return np.array2string(np.asarray(arr), separator=", ", prefix=prefix,
                           threshold=_options["threshold"], edgeitems=_options["edgeitems"],
                           max_line_width=_options["linewidth"], **kw)


# ---- Paddle's layout -------------------------------------------------------------------------
# Each element is formatted on its own (a float with an integral value as ``4.``, others with
# ``precision`` decimals), left-aligned to the widest element; when any element is negative the
# others get a leading space for the sign. Long tensors show ``edgeitems`` at each end.


def _precision(style):
    """Decimals shown: the user's choice, else each framework's own (PyTorch 4, Paddle 8)."""
    if _options["precision"] is not None:
        return _options["precision"]
    return 4 if style == "torch" else 8


def _paddle_item(v, width=0, signed=False, precision=8):
    if isinstance(v, (np.floating, float)):
        if _options["sci_mode"]:
            s = f"{v:.{precision}e}"
        elif np.isfinite(v) and np.ceil(v) == v:
            s = f"{v:.0f}."
        else:
            s = f"{v:.{precision}f}"
    else:
        s = str(v)
    if signed and not v < 0:   # a sign column: non-negative values get a leading space
        s = " " + s
    return s.ljust(width)


def _edges(arr, summary):
    """The elements shown: all, or ``edgeitems`` at both ends of every axis."""
    k = _options["edgeitems"]
    if not summary or arr.ndim == 0:
        return arr
    for axis, n in enumerate(arr.shape):
        if n > 2 * k:
            arr = np.concatenate([arr.take(range(k), axis), arr.take(range(n - k, n), axis)], axis)
    return arr


def _paddle_body(arr, summary, indent, width, signed, precision):
    k = _options["edgeitems"]
    if arr.ndim == 0:
        return _paddle_item(arr[()], width, signed, precision)
    cut = summary and arr.shape[0] > 2 * k
    if arr.ndim == 1:
        items = [_paddle_item(v, width, signed, precision) for v in (arr[:k] if cut else arr)]
        if cut:
            items += ["..."] + [_paddle_item(v, width, signed, precision) for v in arr[-k:]]
        per_line = max(1, (_options["linewidth"] - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [_paddle_body(r, summary, indent + 1, width, signed, precision)
            for r in (arr[:k] if cut else arr)]
    if cut:
        rows += ["..."] + [_paddle_body(r, summary, indent + 1, width, signed, precision)
                           for r in arr[-k:]]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _paddle(arr, indent, precision):
    if arr.dtype.kind == "c":
        return _body(arr, " " * indent, precision)
    summary = arr.size > _options["threshold"]
    shown = _edges(arr, summary).reshape(-1)
    signed = bool(arr.dtype.kind in "fi" and shown.size and (shown < 0).any())
    width = max((len(_paddle_item(v, 0, signed, precision)) for v in shown), default=0)
    return _paddle_body(arr, summary, indent, width, signed, precision)


def format_tensor(t, style=None):
    """``repr(t)`` in ``style``: ``'torch'``, ``'paddle'``, or None for the main namespace's."""
    arr = t._data if t._place.kind == "cpu" else t._place.xp.asnumpy(t._data)
    style = style or _options["style"]
    precision = _precision(style)
    if style == "torch":
        prefix = "tensor("
        extras = []
        if t._place.kind != "cpu":
            extras.append(f"device='cuda:{t._place.index}'")
        if arr.dtype not in (np.float32, np.int64, np.bool_) or arr.size == 0:
            extras.append(f"dtype=torch.{arr.dtype}")
        if t.grad_fn is not None:
            extras.append(f"grad_fn=<{t.grad_fn.name()}>")
        elif t.requires_grad:
            extras.append("requires_grad=True")
        body = _body(arr, prefix, precision)
        return prefix + body + "".join(", " + e for e in extras) + ")"
    head = (f"Tensor(shape={list(arr.shape)}, dtype={arr.dtype}, place={t._place!r}, "
            f"stop_gradient={not t.requires_grad},\n")
    return head + "       " + _paddle(arr, 7, precision) + ")"
