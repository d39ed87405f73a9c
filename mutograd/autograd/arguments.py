"""Binding a call's arguments to an op's inputs and attributes (``OpDef.bind``): positional
arguments, the op's varargs attribute, keyword spellings of both frameworks (``dim`` for
``axis``, ``input``/``other`` for the first inputs, an op's own ``keywords=``), ``name``
ignored, and the errors for missing or unexpected arguments.
"""
_KW_ALIASES = {"dim": "axis", "keepdims": "keepdim", "keep_dim": "keepdim",
               "start_dim": "start_axis", "end_dim": "stop_axis",
               "dims": "axis", "dim1": "axis1", "dim2": "axis2"}   # flip/roll, diagonal
_INPUT_ALIASES = ("input", "other")


def bind(op, args, kw):
    """``op``'s inputs and attributes from a call's positional ``args`` and keywords ``kw``
    (the slow path of a generated function: attributes or keywords given)."""
    n = op.n_in
    inputs = list(args[:n])
    extra = args[n:]
    attrs = dict(op.defaults)
    if extra:
        if op.varargs:
            attrs[op.varargs] = (tuple(extra[0]) if len(extra) == 1
                                 and isinstance(extra[0], (list, tuple)) else tuple(extra))
        else:
            if len(extra) > len(op.attrs):
                raise TypeError(f"{op.name}() takes at most {n + len(op.attrs)} "
                                f"arguments ({len(args)} given)")
            attrs.update(zip(op.attr_names, extra))
    for k, v in kw.items():
        if k not in attrs and k not in op.required:   # an op's own name wins
            k = op.keywords[k] if k in op.keywords else _KW_ALIASES.get(k, k)
            if k is None:   # a keyword the op accepts and ignores
                continue
        if k in op.index:
            _put_input(op, inputs, op.index[k], v)
        elif k in _INPUT_ALIASES and _INPUT_ALIASES.index(k) < n:
            _put_input(op, inputs, _INPUT_ALIASES.index(k), v)
        elif k in attrs or k in op.required:
            attrs[k] = v
        elif k == "name":
            continue
        else:
            raise TypeError(f"{op.name}() got an unexpected keyword argument '{k}'")
    if len(inputs) < n or any(i is _MISSING for i in inputs):
        raise TypeError(f"{op.name}() missing required argument(s): "
                        f"{', '.join(op.inputs[len(args):])}")
    for a in op.required:
        if a not in attrs:
            raise TypeError(f"{op.name}() missing required argument '{a}'")
    return inputs, attrs


_MISSING = object()


def _put_input(op, inputs, i, v):
    while len(inputs) <= i:
        inputs.append(_MISSING)
    inputs[i] = v
