"""How tensors print: Paddle's layout by default, PyTorch's in the ``compat.torch`` dialect."""
import numpy as np

_options = {"style": "paddle", "precision": None, "threshold": 1000, "edgeitems": 3,
            "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     sci_mode=None, style=None, profile=None):
    """Set how tensors print; ``style`` is ``'paddle'`` (the default) or ``'torch'``."""
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth),
                       ("sci_mode", sci_mode), ("style", style)):
        if value is not None:
            _options[key] = value


def _body(arr, prefix):
    if arr.dtype.kind in "fc":
        # Both frameworks print every element with the same number of decimals (8 in Paddle,
        # 4 in PyTorch), except that integral values print as ``1.``.
        precision = _options["precision"]
        if precision is None:
            precision = 4 if _options["style"] == "torch" else 8
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


def format_tensor(t):
    arr = t._data if t._place.kind == "cpu" else t._place.xp.asnumpy(t._data)
    if _options["style"] == "torch":
        prefix = "tensor("
        extras = []
        if t._place.kind != "cpu":
            extras.append(f"device='cuda:{t._place.index}'")
        if arr.dtype not in (np.float32, np.int64, np.bool_) or arr.size == 0:
            extras.append(f"dtype=torch.{arr.dtype}")
        if t.grad_fn is not None:
            extras.append(f"grad_fn={t.grad_fn!r}")
        elif t._rg:
            extras.append("requires_grad=True")
        body = _body(arr, prefix)
        return prefix + body + "".join(", " + e for e in extras) + ")"
    head = (f"Tensor(shape={list(arr.shape)}, dtype={arr.dtype}, place={t._place!r}, "
            f"stop_gradient={not t._rg},\n")
    return head + "       " + _body(arr, "       ") + ")"
