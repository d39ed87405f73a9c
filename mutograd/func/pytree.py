"""Nested arguments of the function transforms: tuples, lists and dicts of tensors (PyTorch's
pytrees), flattened to a list of leaves and rebuilt from one.

    >>> from mutograd.func.pytree import tree_flatten, tree_unflatten
    >>> leaves, spec = tree_flatten({"w": 1, "b": (2, 3)})
    >>> leaves
    [1, 2, 3]
    >>> tree_unflatten([4, 5, 6], spec)
    {'w': 4, 'b': (5, 6)}
"""


class _Spec:
    """How to rebuild a value from its leaves: ``kind`` is ``'leaf'``, ``'tuple'``, ``'list'``,
    ``'dict'`` or a namedtuple class; ``keys`` the dict's keys; ``children`` the specs below."""

    __slots__ = ("children", "keys", "kind", "n")

    def __init__(self, kind, children=(), keys=None):
        self.kind, self.children, self.keys = kind, children, keys
        self.n = 1 if kind == "leaf" else sum(c.n for c in children)

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        return f"{getattr(self.kind, '__name__', self.kind)}({', '.join(map(repr, self.children))})"


LEAF = _Spec("leaf")


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves of ``tree`` in order and what rebuilds it."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, dict):
        keys = list(tree)
        return _Spec("dict", tuple(_flatten(tree[k], leaves) for k in keys), keys)
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):   # a namedtuple
        return _Spec(type(tree), tuple(_flatten(v, leaves) for v in tree))
    if isinstance(tree, (tuple, list)):
        return _Spec(type(tree).__name__ if type(tree) in (tuple, list) else "tuple",
                     tuple(_flatten(v, leaves) for v in tree))
    leaves.append(tree)
    return LEAF


def tree_unflatten(leaves, spec):
    """The value of shape ``spec`` holding ``leaves``."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec.kind == "leaf":
        return next(it)
    parts = [_build(c, it) for c in spec.children]
    if spec.kind == "dict":
        return dict(zip(spec.keys, parts))
    if spec.kind == "list":
        return parts
    if spec.kind == "tuple":
        return tuple(parts)
    return spec.kind(*parts)


def tree_map(fn, tree):
    """``tree`` with ``fn`` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, tree, what):
    """One entry of ``prefix`` per leaf of ``tree``: a prefix leaf (an ``in_dims`` entry such as
    ``0`` or ``None``) applies to the whole subtree under it, as in ``torch.func.vmap``."""
    out = []
    _prefix(prefix, tree, out, what)
    return out


def _prefix(prefix, tree, out, what):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * tree_flatten(tree)[1].n)
        return
    if isinstance(prefix, dict) != isinstance(tree, dict) or len(prefix) != len(tree):
        raise ValueError(f"{what}: the structure {prefix!r} does not match the argument's "
                         f"structure {tree_flatten(tree)[1]!r}")
    if isinstance(prefix, dict):
        if set(prefix) != set(tree):
            raise ValueError(f"{what}: the keys {sorted(prefix)} do not match the argument's "
                             f"keys {sorted(tree)}")
        for k in tree:
            _prefix(prefix[k], tree[k], out, what)
        return
    for p, t in zip(prefix, tree):
        _prefix(p, t, out, what)
