"""``functional_call``: a module called with some of its parameters and buffers replaced, so
that the transforms can differentiate a model with respect to a dict of tensors.

    >>> import mutograd as mg
    >>> from mutograd.func import functional_call, grad
    >>> lin = mg.nn.Linear(2, 1)
    >>> params = {k: v.detach() for k, v in lin.named_parameters()}
    >>> x = mg.ones(4, 2)
    >>> g = grad(lambda p: functional_call(lin, p, (x,)).sum())(params)
    >>> sorted(g), g["weight"].tolist()
    (['bias', 'weight'], [[4.0, 4.0]])
"""
import contextlib

__all__ = ["functional_call"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict,
    or a tuple of dicts, from dotted names as ``named_parameters()`` gives them) in place of
    the module's own, which come back afterwards.

    ``tie_weights``: a parameter shared by several modules is replaced everywhere it is used
    when one of its names is given. ``strict``: every parameter and buffer must be given, and
    nothing else.
    """
    dicts = parameter_and_buffer_dicts
    dicts = tuple(dicts) if isinstance(dicts, (tuple, list)) else (dicts,)
    merged = {}
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                 f"functional call is ambiguous")
            merged[k] = v
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _replaced(module, merged, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _slots(module):
    """Every place a tensor is registered: ``{dotted name: (module, table, name)}``, a module
    reached twice listed under each of its names."""
    out = {}

    def walk(m, prefix, path):
        if id(m) in path:
            return
        for table in ("_parameters", "_buffers"):
            for name, t in getattr(m, table).items():
                if t is not None:
                    out[prefix + name] = (m, table, name)
        for name, sub in m._modules.items():
            if sub is not None:
                walk(sub, f"{prefix}{name}.", path | {id(m)})
    walk(module, "", frozenset())
    return out


@contextlib.contextmanager
def _replaced(module, values, tie_weights, strict):
    slots = _slots(module)
    unknown = [k for k in values if k not in slots]
    if strict:
        missing = [k for k in slots if k not in values]
        if missing or unknown:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: "
                               f"Missing key(s): {missing}. Unexpected key(s): {unknown}.")
    if unknown:
        raise AttributeError(f"functional_call: {type(module).__name__} has no parameter or "
                             f"buffer named {unknown[0]!r}")
    chosen = {}   # slot name -> new tensor
    by_tensor = {}
    for k, (m, table, name) in slots.items():
        by_tensor.setdefault(id(getattr(m, table)[name]), []).append(k)
    for k, v in values.items():
        m, table, name = slots[k]
        tied = by_tensor[id(getattr(m, table)[name])] if tie_weights else [k]
        given = [t for t in tied if t in values]
        if tie_weights and len(given) > 1 and any(values[t] is not v for t in given):
            raise ValueError(f"functional_call got multiple values for keys {given}, which are "
                             f"tied. Consider using tie_weights=False")
        for t in tied:
            chosen[t] = v
    old = []
    try:
        for k, v in chosen.items():
            m, table, name = slots[k]
            old.append((m, table, name, getattr(m, table)[name]))
            getattr(m, table)[name] = v
        yield
    finally:
        for m, table, name, t in reversed(old):
            getattr(m, table)[name] = t
