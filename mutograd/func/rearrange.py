"""``rearrange``: einops-style reshaping and transposition from a pattern such as
``'b (h w) c -> b c h w'``, composed of ``reshape`` and ``permute`` so gradients flow.

Note [The rearrange pattern]
    Each side of ``'left -> right'`` lists the tensor's dimensions. A dimension is an axis name
    (an identifier that neither starts nor ends with ``_``), a group in parentheses (the
    product of the axes in it, in row-major order: ``(h w)`` on the left splits a dimension,
    on the right merges axes), ``1`` or ``()`` (a dimension of size 1), or ``...`` (all the
    dimensions not named, on the left only outside parentheses). Both sides name the same
    axes, each once; the sizes of axes that a split leaves open are given as keyword arguments,
    at most one unknown per group being inferred. The tensor is reshaped to its elementary
    axes (the left side's names in order), permuted to the order they take on the right, and
    reshaped to the right side's groups: no data is copied that ``reshape`` and ``permute``
    would not copy, and the result is a view where they give one.
"""
import math
import re

__all__ = ["rearrange"]

_ELLIPSIS = "..."
_TOKEN = re.compile(r"\.\.\.|\(|\)|[^\s()]+")


def _is_name(token):
    return token.isidentifier() and not (token.startswith("_") or token.endswith("_"))


def _parse(side, where, pattern):
    """The dimensions of one side: a list of groups, each a list of atoms (an axis name,
    ``...``) plus whether it was written in parentheses; a ``1`` adds nothing to its group."""
    dims, group = [], None
    for token in _TOKEN.findall(side):
        if token == "(":
            if group is not None:
                raise ValueError("Axis composition is one-level (brackets inside brackets not "
                                 "allowed)")
            group = []
        elif token == ")":
            if group is None:
                raise ValueError(f"Brackets are not balanced in pattern {pattern}")
            dims.append((group, True))
            group = None
        else:
            if token == _ELLIPSIS:
                if where == "left" and group is not None:
                    raise ValueError("Ellipsis inside parenthesis in the left side is not "
                                     "allowed")
            elif token.isdecimal():
                if int(token) != 1:
                    raise ValueError("rearrange only supports unnamed axes of size 1")
                token = None
            elif not _is_name(token):
                raise ValueError(f"Invalid axis identifier: {token}\naxis name should should "
                                 f"not start or end with underscore")
            if group is not None:
                if token is not None:
                    group.append(token)
            else:
                dims.append(([token] if token is not None else [], False))
    if group is not None:
        raise ValueError(f"Brackets are not balanced in pattern {pattern}")
    atoms = [a for g, _ in dims for a in g]
    if atoms.count(_ELLIPSIS) > 1:
        raise ValueError(f"Expression may contain dots only inside ellipsis (...); only one "
                         f"ellipsis for tensor, got {side.strip()!r}")
    dup = sorted({a for a in atoms if a != _ELLIPSIS and atoms.count(a) > 1})
    if dup:
        raise ValueError(f"Indexing expression contains duplicate dimension '{dup[0]}'")
    return dims


def _expand(dims, names):
    """``dims`` with ``...`` replaced by ``names`` (each its own dimension outside
    parentheses, in place inside them)."""
    out = []
    for group, paren in dims:
        if _ELLIPSIS not in group:
            out.append(group)
        elif paren:
            i = group.index(_ELLIPSIS)
            out.append(group[:i] + names + group[i + 1:])
        else:
            out.extend([n] for n in names)
    return out


def rearrange(tensor, pattern, **axes_lengths):
    """``tensor`` reshaped and transposed as ``pattern`` says (Note [The rearrange pattern]);
    a list or tuple of tensors is stacked first, along a new first dimension.

        >>> import mutograd as mg
        >>> from mutograd.func import rearrange
        >>> x = mg.arange(12).reshape(2, 6)
        >>> rearrange(x, 'b (h w) -> b h w', h=2).shape
        [2, 2, 3]
        >>> rearrange(x, 'b c -> c b').shape, rearrange(x, 'b ... -> (...) b').shape
        ([6, 2], [6, 2])
    """
    from ..ops.shaping import stack
    if isinstance(tensor, (list, tuple)):
        tensor = stack(list(tensor))
    if pattern.count("->") != 1:
        raise ValueError(f"rearrange pattern must contain exactly one '->', got {pattern!r}")
    left_side, right_side = pattern.split("->")
    left = _parse(left_side, "left", pattern)
    right = _parse(right_side, "right", pattern)
    left_atoms = [a for g, _ in left for a in g]
    right_atoms = [a for g, _ in right for a in g]
    if _ELLIPSIS in right_atoms and _ELLIPSIS not in left_atoms:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern "
                         f"{pattern}")
    if _ELLIPSIS in left_atoms and _ELLIPSIS not in right_atoms:
        raise ValueError(f"Ellipsis found in left side, but not right side of a pattern "
                         f"{pattern}")
    one_side = set(left_atoms) ^ set(right_atoms)
    if one_side:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on "
                         f"both): {one_side}")
    unknown = set(axes_lengths) - set(left_atoms)
    if unknown:
        raise ValueError(f"Identifiers not found in rearrange expression: {unknown}")

    shape = list(tensor.shape)
    if _ELLIPSIS in left_atoms:
        n = len(shape) - (len(left) - 1)
        if n < 0:
            raise ValueError(f"Number of dimensions in pattern ({len(left) - 1}) must be at "
                             f"most the number of dimensions in the tensor ({len(shape)})")
        names = [f"...{i}" for i in range(n)]
        left, right = _expand(left, names), _expand(right, names)
    else:
        left, right = [g for g, _ in left], [g for g, _ in right]
        if len(left) != len(shape):
            raise ValueError(f"Number of dimensions in pattern ({len(left)}) must be equal to "
                             f"the number of dimensions in the tensor ({len(shape)})")

    sizes = dict(axes_lengths)
    for group, dim in zip(left, shape):
        if len(group) == 1 and group[0] not in sizes:
            sizes[group[0]] = dim
            continue
        open_axes = [a for a in group if a not in sizes]
        known = math.prod(sizes[a] for a in group if a in sizes)
        if len(open_axes) > 1:
            raise ValueError(f"Could not infer sizes for {set(open_axes)}")
        if open_axes and known and dim % known == 0:
            sizes[open_axes[0]] = dim // known
        elif open_axes or known != dim:
            raise ValueError(f"Dimension sizes do not match: the tensor's dimension of size "
                             f"{dim} cannot be split as ({' '.join(group)}) with the sizes "
                             f"{ {a: sizes[a] for a in group if a in sizes} }")
    order = [a for g in left for a in g]
    out = tensor.reshape([sizes[a] for a in order])
    wanted = [a for g in right for a in g]
    perm = [order.index(a) for a in wanted]
    if perm != list(range(len(perm))):
        out = out.permute(perm)
    return out.reshape([math.prod(sizes[a] for a in g) for g in right])
