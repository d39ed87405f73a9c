"""Matrix products: ``matmul`` (with broadcasting and 1-D operands; the ``@`` operator),
``mm``, ``bmm``, ``dot``, ``outer`` and ``einsum``, each one declaration; then the product
functions of ``mutograd.linalg`` (``matmul`` with ``out=``, ``multi_dot``, ``vecdot``). The
functions composed from these (tensordot, inner, kron, cdist, ...) are in products.py, the
``beta * x + alpha * product`` updates (addmm, ...) in matrix_updates.py.

    >>> import mutograd as mg
    >>> (mg.tensor([[1.0, 2.0]]) @ mg.tensor([[3.0], [4.0]])).tolist()
    [[11.0]]
    >>> mg.linalg.multi_dot([mg.eye(2), mg.tensor([[1.0], [2.0]])]).tolist()
    [[1.0], [2.0]]
"""
import string

import numpy as np

from .. import memory
from ..autograd.graph_arrays import graph_mode
from ..errors import ShapeError
from ..places import key_for
from .linalg_shared import conj, mT, out_into
from .registry import defop

_LETTERS = string.ascii_letters   # the subscripts einsum takes


def _flat_matmul(xp, x, y):
    """``x @ y`` for a stacked ``x`` (..., m, k) and a matrix ``y``: one (M, k) @ (k, n) product
    (a single large BLAS call, as in a Linear layer over a batch of sequences) instead of NumPy's
    loop of small ones; ``None`` when the shapes are not that case."""
    if x.ndim > 2 and y.ndim == 2 and x.shape[-1] == y.shape[0]:
        return _product(xp, x.reshape(-1, x.shape[-1]), y, x.shape[:-1] + y.shape[1:])
    return None


def _product(xp, a, b, shape=None):
    """The product of two matrices into a new array of ``shape`` (default the product's), from
    the buffer cache (Note [The buffer cache])."""
    if graph_mode(xp):   # a buffer would cost recorded writes: the product itself
        r = a @ b
        return r if shape is None else r.reshape(shape)
    r = memory.empty(xp, shape or (a.shape[0], b.shape[1]), xp.result_type(a, b))
    xp.matmul(a, b, out=r.reshape(a.shape[0], b.shape[1]))
    return r


def _stacked_product(xp, x, y):
    """``x @ y``; for operands of 2 or more dimensions into a buffer from the cache."""
    if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-2] or graph_mode(xp):
        return xp.matmul(x, y)   # vectors, or the shape error NumPy words
    if x.ndim == 2 and y.ndim == 2:   # the common case, without broadcast_shapes' cost
        shape = (x.shape[0], y.shape[1])
    else:
        try:
            lead = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            return xp.matmul(x, y)
        shape = lead + (x.shape[-2], y.shape[-1])
    dt = x.dtype if x.dtype == y.dtype else xp.result_type(x, y)
    return xp.matmul(x, y, out=memory.empty(xp, shape, dt))


def _matmul(xp, x, y, out=None):
    r = _flat_matmul(xp, x, y)
    if r is None:
        r = _stacked_product(xp, x, y)
    if out is None:
        return r
    # in place: the product needs a workspace (counted) before it can replace x
    work = memory.Storage(r.nbytes, key_for(xp, out))
    if r.shape != out.shape:
        raise ShapeError(f"matmul_(): the product has shape {list(r.shape)} but the tensor "
                         f"written in place has shape {list(out.shape)}")
    out[...] = r
    del work
    return out


# A gradient is computed in the layout of its input: for ``x @ w.t()`` (nn.Linear) the gradient of
# ``w.t()`` is the transpose of a C-ordered ``g.T @ x``, so the transpose's backward hands ``w`` a
# C-ordered gradient without a copy, as BLAS computes either product at the same speed.


def _matmul_grad_x(g, x_shape, x_transposed, y, xp):
    y = y.conj() if y.dtype.kind == "c" else y     # Note [Complex gradients] in elementwise.py
    if len(x_shape) == 1 and y.ndim == 1:
        return g * y
    if y.ndim == 1:
        return xp.expand_dims(g, -1) * y                # x (..., m, k), g (..., m)
    if len(x_shape) == 1:
        return (y @ xp.expand_dims(g, -1))[..., 0]      # y (..., k, n), g (..., n)
    if y.ndim == 2 and g.ndim > 2:
        return _flat_matmul(xp, g, y.T)
    if x_transposed and len(x_shape) == 2 and y.ndim == 2:
        return _in_layout(xp, x_shape, y, mT(g))
    return _stacked_product(xp, g, mT(y))


def _matmul_grad_y(g, x, y_shape, y_transposed, xp):
    x = x.conj() if x.dtype.kind == "c" else x
    if x.ndim == 1 and len(y_shape) == 1:
        return g * x
    if x.ndim == 1:
        return xp.expand_dims(x, -1) * xp.expand_dims(g, -2)   # (k,1)*(...,1,n)
    if len(y_shape) == 1:   # a matrix-vector product's: a vector of its own, as PyTorch's mv
        return mT(x) @ g if x.ndim == 2 else (mT(x) @ xp.expand_dims(g, -1))[..., 0]
    if len(y_shape) == 2 and x.ndim > 2:
        # the sum over the stacked dimensions as part of one product
        x2, g2 = x.reshape(-1, x.shape[-1]), g.reshape(-1, g.shape[-1])
        if y_transposed:   # y is w.t(): w's gradient comes out C-ordered
            return _product(xp, g2.T, x2).T
        return _product(xp, x2.T, g2)
    if y_transposed and len(y_shape) == 2 and x.ndim == 2:
        return _in_layout(xp, y_shape, mT(g), x)
    return _stacked_product(xp, mT(x), g)


def _in_layout(xp, shape, a, b):
    """``(a @ b).T`` as a new F-ordered array of ``shape``: BLAS writes the product straight
    into the transposed view, so the result owns its memory (no copy, no view of a temporary).
    A layout means nothing to a recorded product (graph mode): there it is ``(a @ b).T``."""
    if graph_mode(xp):
        return mT(a @ b)
    r = xp.empty(shape, xp.result_type(a, b), order="F")
    xp.matmul(a, b, out=mT(r))
    return r


defop("matmul", _matmul, kind="matmul", grad=(_matmul_grad_x, _matmul_grad_y))


# ``x @ weight.T + bias`` (nn.Linear) as one op: one node in place of a transpose, a product and
# a bias write, with matmul's gradients (the weight's C-ordered, as through ``weight.t()``).
# ``in_out=True`` takes Paddle's layout of the weight, in_features x out_features: x @ weight.
def _linear(xp, x, weight, bias, *, in_out=False):
    k, n = weight.shape if in_out else weight.shape[::-1]
    if x.ndim == 0 or x.shape[-1] != k:   # PyTorch's words, x taken as rows
        rows = (int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1, x.shape[-1] if x.ndim else 1)
        raise ShapeError(f"linear(): mat1 and mat2 shapes cannot be multiplied ({rows[0]}x"
                         f"{rows[1]} and {k}x{n})")
    r = _matmul(xp, x, weight if in_out else mT(weight))
    if bias is not None:
        r += bias   # into the product's own new buffer
    return r


def _linear_grad_x(g, x_shape, weight, in_out, xp):
    if graph_mode(xp) and not in_out:   # one recorded product, without the transposes that
        # lay the result out (Note [Fused gradients] in registry.py)
        return g @ (weight.conj() if weight.dtype.kind == "c" else weight)
    return _matmul_grad_x(g, x_shape, False, weight if in_out else mT(weight), xp)


def _linear_grad_weight(g, x, weight_shape, in_out, xp):
    if in_out:
        return _matmul_grad_y(g, x, weight_shape, False, xp)
    if graph_mode(xp) and x.ndim == 2:   # g.T @ x, as above
        return mT(g) @ (x.conj() if x.dtype.kind == "c" else x)
    return mT(_matmul_grad_y(g, x, weight_shape[::-1], True, xp))


def _linear_grad_bias(g, bias_shape, xp):
    if g.ndim == 2:
        return g.sum(axis=0)
    return g.reshape(-1, g.shape[-1]).sum(axis=0) if g.ndim > 1 else g


defop("linear", _linear, kind="matmul", inplace=False, method=False,
      node_name="AddmmBackward",   # PyTorch's node of F.linear on a batch of rows
      grad=(_linear_grad_x, _linear_grad_weight, _linear_grad_bias),
      doc="``x @ weight.T + bias`` (``bias`` may be None), PyTorch's layout of ``weight``: "
          "out_features x in_features; ``in_out=True``: ``x @ weight + bias``, Paddle's.")


def _mm(xp, x, y, out=None):
    if x.ndim != 2 or y.ndim != 2:
        raise ShapeError(f"mm(): expected 2-D tensors, got {x.ndim}-D and {y.ndim}-D")
    return _matmul(xp, x, y, out)


def _bmm(xp, x, y, out=None):
    if x.ndim != 3 or y.ndim != 3:
        raise ShapeError(f"bmm(): expected 3-D tensors, got {x.ndim}-D and {y.ndim}-D")
    return _matmul(xp, x, y, out)


defop("mm", _mm, kind="matmul", inplace=False, grad=(_matmul_grad_x, _matmul_grad_y))
defop("bmm", _bmm, kind="matmul", inplace=False, grad=(_matmul_grad_x, _matmul_grad_y))


def _dot(xp, x, y):
    if x.ndim != 1 or y.ndim != 1:
        raise ShapeError(f"dot(): expected 1-D tensors, got {x.ndim}-D and {y.ndim}-D")
    return xp.dot(x, y)


defop("dot", _dot, kind="matmul", inplace=False,
      grad=(lambda g, y: g * conj(y), lambda g, x: g * conj(x)))
# Operands that are not 1-D are flattened (Paddle's and NumPy's outer); each gradient takes its
# operand's shape back.
defop("outer", lambda xp, x, y: xp.outer(x, y), kind="matmul", inplace=False, same_dtype=False,
      grad=(lambda g, y, x_shape: (g @ conj(y.reshape(-1))).reshape(x_shape),
            lambda g, x, y_shape: (conj(x.reshape(-1)) @ g).reshape(y_shape)))


def _parse(equation, ndims):
    """The operands' subscripts and the output's, each letter one dimension: an ellipsis becomes
    letters the equation does not use, right-aligned in each operand as broadcasting aligns
    them; without ``->`` the output is the ellipsis, then the letters used once, sorted
    (NumPy's and PyTorch's implicit output)."""
    eq = equation.replace(" ", "")
    ins, arrow, out = eq.partition("->")
    subs = ins.split(",")
    if len(subs) != len(ndims):
        raise ValueError(f"einsum: the equation has {len(subs)} operands but {len(ndims)} were "
                         f"given")
    letters = "".join(subs).replace(".", "")
    ell = ""
    if "..." in eq:
        free = [c for c in _LETTERS if c not in eq]
        widths = [n - len(s) + 3 for s, n in zip(subs, ndims) if "..." in s]
        ell = "".join(free[:max(widths, default=0)])
        subs = [s.replace("...", ell[len(ell) - (n - len(s) + 3):]) for s, n in zip(subs, ndims)]
    if not arrow:
        out = "..." + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return subs, out.replace("...", ell)


def _einsum(xp, xs, equation):
    subs = equation.replace(" ", "").partition("->")[0].split(",")
    for k, (s, x) in enumerate(zip(subs, xs)):
        sizes = {}
        for c, n in zip(s, x.shape) if "." not in s else ():
            if sizes.setdefault(c, n) != n:   # NumPy lets a size 0 pass
                raise ShapeError(f"einsum(): subscript {c} is repeated for operand {k} but the "
                                 f"sizes don't match, {sizes[c]} != {n}")
    r = xp.einsum(equation, *xs)
    # NumPy returns a view of the operand for pure diagonals/transposes ("ii->i"); einsum is a
    # non-view op here, so its result must own its memory
    if any(xp.may_share_memory(r, x) for x in xs):
        r = r.copy()
    return r


def _einsum_grad(g, xs, equation, xp):
    subs, out = _parse(equation, [x.ndim for x in xs])
    grads = []
    for k, (s, x) in enumerate(zip(subs, xs)):
        others = [conj(o) for j, o in enumerate(xs) if j != k]   # Note [Complex gradients]
        other_subs = [t for j, t in enumerate(subs) if j != k]
        uniq = "".join(dict.fromkeys(s))
        avail = set(out).union(*other_subs) if other_subs else set(out)
        target = "".join(c for c in uniq if c in avail)
        part = xp.einsum(",".join([out] + other_subs) + "->" + target, g, *others)
        # a dimension of size 1 that the others broadcast: its gradient is summed
        sizes = {c: x.shape[s.index(c)] for c in uniq}
        wide = tuple(i for i, c in enumerate(target) if sizes[c] == 1 and part.shape[i] != 1)
        if wide:
            part = part.sum(axis=wide, keepdims=True)
        # letters of x that appear nowhere else were summed: broadcast the gradient over them
        shape = [sizes[c] for c in uniq]
        part = part.reshape([shape[i] if c in target else 1 for i, c in enumerate(uniq)])
        full = xp.broadcast_to(part, shape)
        if uniq == s:
            grads.append(xp.ascontiguousarray(full))
        else:   # repeated letters (a diagonal): the gradient goes to the diagonal's positions
            z = xp.zeros(x.shape, g.dtype)
            z[_diagonal_positions(xp, s, uniq, shape)] = full
            grads.append(z)
    return grads


def _diagonal_positions(xp, s, uniq, shape):
    """The index of ``z`` (subscripts ``s``, repeated letters) that picks the elements ``uniq``
    names: one broadcast range per letter, used for each of its axes."""
    ranges = {c: xp.arange(n).reshape([-1 if j == i else 1 for j in range(len(uniq))])
              for i, (c, n) in enumerate(zip(uniq, shape))}
    return tuple(ranges[c] for c in s)


defop("einsum", _einsum, grad=_einsum_grad, kind="variadic", saves_inputs=True,
      leading=("equation",), doc="Einstein summation, with gradients for every operand.",
      example=">>> import mutograd as mg\n"
              ">>> mg.einsum('ij,j->i', mg.eye(2), mg.tensor([3.0, 4.0])).tolist()\n"
              "[3.0, 4.0]\n")


# ---- the public functions (mutograd.linalg) ----------------------------------------------
def matmul(input, other, *, out=None):
    """``input @ other``."""
    return out_into(input @ other, out)


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices; the first may be a row vector, the last a column
    vector (1-D)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise ValueError("multi_dot(): expected at least 2 tensors but got "
                         f"{len(ts)}")
    result = ts[0]
    for t in ts[1:]:
        result = result @ t
    return out_into(result, out)


def vecdot(a, b, dim=-1):
    """The dot product of vectors along ``dim`` (conjugating ``a`` for complex ones)."""
    return (a.conj() * b).sum(axis=dim) if a.dtype.np.kind == "c" else (a * b).sum(axis=dim)
