"""The derivative transforms of ``torch.func``: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd`` and ``hessian``, on mutograd's autograd.

Note [Transforms on one tape]
    A transform differentiates fresh aliases of its inputs: a detached leaf for an input that
    does not require grad, a view of it for one that does (so the result stays differentiable
    with respect to it). It records the graph of what it computes (``create_graph``) exactly
    when something outside can differentiate the result: the function's graph reaches a tensor
    that requires grad other than its own leaves (an input that requires grad, a parameter it
    closes over, the alias of an enclosing transform), or a cotangent or tangent requires grad.
    So ``grad(grad(f))``, ``jacrev(grad(f))`` and a loss of ``grad(f)(x)`` differentiate
    through, while a single ``grad`` runs the first-order backward at its usual speed. The
    aliases are distinct tensors, so an inner transform never confuses its input with an outer
    one's (no perturbation confusion). ``jacrev`` and ``jacfwd`` run the function again inside
    :func:`~mutograd.func.vmap` over the standard basis, so every row (or column) is one
    batched backward.
"""
import functools

from ..autograd import engine
from ..autograd.forward_ad import jvp_of, tracks_outside
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..tensor import Tensor
from .pytree import tree_flatten, tree_unflatten
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp"]


def _alias(t):
    """The tensor a transform differentiates for input ``t`` (Note [Transforms on one tape])."""
    if not isinstance(t, Tensor):
        raise TypeError(f"expected the differentiated inputs to be Tensors, got {type(t)}")
    if t.requires_grad:
        return t.view_as(t)
    return t.detach().requires_grad_()


def _argnums(argnums, n, name):
    """``argnums`` as a tuple of non-negative positions."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else argnums
    if not isinstance(nums, tuple) or not nums or not all(isinstance(a, int) for a in nums):
        raise RuntimeError(f"{name}: argnums must be an int or a non-empty tuple of ints, got "
                           f"{argnums!r}")
    out = []
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(f"{name}: Got argnums={argnums!r} but only {n} positional "
                               f"inputs")
        out.append(a % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: argnums must be unique, got {argnums!r}")
    return single, tuple(out)


def _track(args, nums):
    """The arguments with the ones at ``nums`` replaced by aliases: ``(args, aliases, spec)``
    where ``aliases`` are the flat leaves and ``spec`` rebuilds ``args[nums]``."""
    chosen = tuple(args[i] for i in nums)
    leaves, spec = tree_flatten(chosen)
    with enable_grad():
        tracked = [_alias(t) for t in leaves]
    new = list(args)
    for i, sub in zip(nums, tree_unflatten(tracked, spec)):
        new[i] = sub
    return tuple(new), tracked, spec


def _own(tracked):
    return [t for t in tracked if t.grad_fn is None]


def _detach(tree, keep):
    if keep:
        return tree
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([t.detach() if isinstance(t, Tensor) else t for t in leaves], spec)


def _zeros_where_none(grads, like):
    from ..ops.creation import zeros_like
    return [zeros_like(x) if g is None else g for g, x in zip(grads, like)]


def _same_shapes(xs, ys, message):
    for a, b in zip(xs, ys):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(message.format(a=list(a.shape), b=list(b.shape)))


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{name}(f)(*args): output of function f should be a tuple: (output, "
                           f"aux) if has_aux is True")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning ``(gradient, value)`` of ``func`` (which returns a scalar tensor)
    with respect to the arguments at ``argnums`` (each a tensor or a tuple, list or dict of
    them); ``((gradient, (value, aux)))`` with ``has_aux``.

        >>> import mutograd as mg
        >>> from mutograd.func import grad_and_value
        >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(mg.tensor([1.0, 2.0]))
        >>> g.tolist(), v.item()
        ([2.0, 4.0], 5.0)
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        single, nums = _argnums(argnums, len(args), "grad_and_value")
        outer = is_grad_enabled()
        args, tracked, spec = _track(args, nums)
        with enable_grad():
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if out.ndim != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {out.ndim} dims. Maybe you "
                                   f"wanted to use the vjp or jacrev APIs instead?")
            keep = outer and tracks_outside([out], _own(tracked))
            grads = [None] * len(tracked)
            if out.requires_grad:
                grads = engine.grad([out], tracked, create_graph=keep, allow_unused=True)
        grads = tree_unflatten(_zeros_where_none(_detach(list(grads), keep), tracked), spec)
        grads = grads[0] if single else grads
        value = out if keep else out.detach()
        if has_aux:
            return grads, (value, _detach(aux, keep))
        return grads, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (which returns a scalar tensor) with respect to the arguments
    at ``argnums``, as a function; ``(gradient, aux)`` with ``has_aux``. Composes with the
    other transforms: ``vmap(grad(f))`` gives per-sample gradients, ``grad(grad(f))`` second
    derivatives (Note [Transforms on one tape]).

        >>> import mutograd as mg
        >>> from mutograd.func import grad
        >>> grad(lambda x: x.sin().sum())(mg.tensor([0.0])).tolist()
        [1.0]
        >>> grad(grad(lambda x: (x ** 3).sum()))(mg.tensor(2.0)).item()
        12.0
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` (shaped like the output) gives one
    gradient per primal; ``(output, vjp_fn, aux)`` with ``has_aux``.

        >>> import mutograd as mg
        >>> from mutograd.func import vjp
        >>> out, fn = vjp(lambda x: x * 3, mg.tensor([1.0, 2.0]))
        >>> fn(mg.tensor([1.0, 1.0]))[0].tolist()
        [3.0, 3.0]
    """
    outer = is_grad_enabled()
    primals, tracked, spec = _track(primals, tuple(range(len(primals))))
    with enable_grad():
        out, aux = _split_aux(func(*primals), has_aux, "vjp")
    outs, out_spec = tree_flatten(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has only "
                               f"Tensors as outputs, got {type(o)}")
    keep_out = outer and tracks_outside(outs, _own(tracked))

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        cts, ct_spec = tree_flatten(cotangents)
        if repr(ct_spec) != repr(out_spec):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function.")
        _same_shapes(outs, cts, "Mismatch in shape: grad_output has a shape of {b} and "
                     "output has a shape of {a}")
        pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        create = create_graph
        if create is None:
            create = is_grad_enabled() and (keep_out or any(c.requires_grad for c in cts))
        grads = [None] * len(tracked)
        if pairs:
            with enable_grad():
                grads = engine.grad([o for o, _ in pairs], tracked, [c for _, c in pairs],
                                    retain_graph=retain_graph, create_graph=create,
                                    allow_unused=True)
        return tree_unflatten(_zeros_where_none(_detach(list(grads), create), tracked), spec)

    res = (_detach(out, keep_out), vjp_fn)
    return res + (_detach(aux, keep_out),) if has_aux else res


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J tangents)``: the Jacobian-vector product, by the double-VJP
    construction (Note [Forward mode by double VJP] in autograd/forward_ad.py).

        >>> import mutograd as mg
        >>> from mutograd.func import jvp
        >>> out, t = jvp(lambda x: x ** 2, (mg.tensor([3.0]),), (mg.tensor([1.0]),))
        >>> out.tolist(), t.tolist()
        ([9.0], [6.0])
    """
    if not isinstance(primals, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    if not isinstance(tangents, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. it "
                           "should be valid to call f(*primals) and tangents should have the "
                           "same structure as primals.")
    if strict:
        raise RuntimeError("jvp(f, primals, tangents, strict=True): strict=True is not yet "
                           "implemented")
    ts, t_spec = tree_flatten(tuple(tangents))
    ps, p_spec = tree_flatten(tuple(primals))
    if repr(t_spec) != repr(p_spec):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the "
                           "same python structure.")
    _same_shapes(ps, ts, "jvp(f, primals, tangents): Expected primals and tangents to have the "
                 "same shape, got {a} and {b}")
    outer = is_grad_enabled()
    args, tracked, spec = _track(tuple(primals), tuple(range(len(primals))))
    with enable_grad():
        out, aux = _split_aux(func(*args), has_aux, "jvp")
        outs, out_spec = tree_flatten(out)
        keep = outer and (tracks_outside(outs, _own(tracked)) or any(t.requires_grad for t in ts))
        res = jvp_of(outs, tracked, ts, create_graph=keep)
    res = _zeros_where_none(_detach(list(res), keep), outs)
    out, res = _detach(out, keep), tree_unflatten(res, out_spec)
    return (out, res, _detach(aux, keep)) if has_aux else (out, res)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at
    ``primals``, as :func:`jvp` gives it, without running ``func`` again. ``func`` runs once
    and the first reverse pass of the double-VJP construction (Note [Forward mode by double
    VJP] in autograd/forward_ad.py) is recorded once; each call of ``jvp_fn`` is one backward
    through that recording.

        >>> import mutograd as mg
        >>> from mutograd.func import linearize
        >>> out, jvp_fn = linearize(lambda x: x ** 2, mg.tensor([3.0, 1.0]))
        >>> out.tolist(), jvp_fn(mg.tensor([1.0, 2.0])).tolist()
        ([9.0, 1.0], [6.0, 4.0])
    """
    from ..ops.creation import zeros_like
    ps, p_spec = tree_flatten(tuple(primals))
    outer = is_grad_enabled()
    args, tracked, _ = _track(tuple(primals), tuple(range(len(primals))))
    with enable_grad():
        out = func(*args)
        outs, out_spec = tree_flatten(out)
        for o in outs:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"linearize(func, *primals): Expected func to return only "
                                   f"Tensors, got {type(o)}")
        used = [i for i, o in enumerate(outs) if o.requires_grad]
        # g(u) = J^T u, linear in u: its VJP with a tangent t is J t, for any u
        us = [zeros_like(outs[i]).requires_grad_() for i in used]
        firsts = (engine.grad([outs[i] for i in used], tracked, us, create_graph=True,
                              allow_unused=True) if used else [None] * len(tracked))
    keep_out = outer and tracks_outside(outs, _own(tracked))

    def jvp_fn(*tangents):
        ts, t_spec = tree_flatten(tuple(tangents))
        if repr(t_spec) != repr(p_spec):
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as "
                               f"the primals {p_spec}")
        for k, (p, t) in enumerate(zip(ps, ts)):
            if tuple(p.shape) != tuple(t.shape):
                raise RuntimeError(f"tangent:{k} with shape {list(t.shape)} in flattened "
                                   f"pytree doesn't match the shape {list(p.shape)} of the "
                                   f"corresponding primal.")
        keep = is_grad_enabled() and (keep_out or any(t.requires_grad for t in ts))
        pairs = [(g, t) for g, t in zip(firsts, ts) if g is not None and g.requires_grad]
        res = [None] * len(outs)
        if pairs:
            with enable_grad():
                js = engine.grad([g for g, _ in pairs], us, [t for _, t in pairs],
                                 retain_graph=True, create_graph=keep, allow_unused=True)
            for i, j in zip(used, js):
                res[i] = j
        res = _zeros_where_none(_detach(res, keep), outs)
        return tree_unflatten(res, out_spec)

    return _detach(out, keep_out), jvp_fn


def _basis(tensors):
    """One tensor per given tensor, of shape ``(N, *shape)`` with N the total number of
    elements: together the rows of the N x N identity."""
    from ..ops.creation import eye
    sizes = [t.numel() for t in tensors]
    n = sum(sizes)
    dtype = tensors[0].dtype if tensors else None
    ident = eye(n, dtype=dtype)
    out, start = [], 0
    for t, m in zip(tensors, sizes):
        out.append(ident[:, start:start + m].reshape((n,) + tuple(t.shape)).to(t.dtype))
        start += m
    return out, sizes


def _select(args, nums, single):
    chosen = args[nums[0]] if single else tuple(args[i] for i in nums)
    return chosen


def _with(args, nums, single, values):
    new = list(args)
    for i, v in zip(nums, (values,) if single else values):
        new[i] = v
    return tuple(new)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` by reverse mode: one batched backward over the rows (vmap of
    the VJP over the standard basis; ``chunk_size`` rows at a time). For output ``o`` and input
    ``x`` the block has shape ``o.shape + x.shape``, nested like the outputs, then the inputs.

        >>> import mutograd as mg
        >>> from mutograd.func import jacrev
        >>> jacrev(lambda x: x.sin())(mg.tensor([0.0, 0.0])).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    @functools.wraps(func)
    def wrapper(*args):
        single, nums = _argnums(argnums, len(args), "jacrev")
        chosen = _select(args, nums, single)

        def f(inputs):
            return func(*_with(args, nums, single, inputs))
        out, _, *aux = vjp(f, chosen, has_aux=has_aux)
        outs, out_spec = tree_flatten(out)
        in_leaves, in_spec = tree_flatten(chosen)
        basis, sizes = _basis(outs)

        def rows(*cts):
            _, fn = vjp(f, chosen)
            return tuple(tree_flatten(fn(tree_unflatten(list(cts), out_spec)))[0])
        flat = vmap(rows, chunk_size=chunk_size)(*basis) if outs else ()
        jac, start = [], 0
        for o, m in zip(outs, sizes):
            blocks = [g[start:start + m].reshape(tuple(o.shape) + tuple(x.shape))
                      for g, x in zip(flat, in_leaves)]
            jac.append(tree_unflatten(blocks, in_spec))
            start += m
        jac = tree_unflatten(jac, out_spec)
        return (jac, aux[0]) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode: one batched Jacobian-vector product over the
    columns (vmap of :func:`jvp` over the standard basis of the inputs). Same layout as
    :func:`jacrev`.

        >>> import mutograd as mg
        >>> from mutograd.func import jacfwd
        >>> jacfwd(lambda x: x * x)(mg.tensor([1.0, 2.0])).tolist()
        [[2.0, 0.0], [0.0, 4.0]]
    """
    @functools.wraps(func)
    def wrapper(*args):
        single, nums = _argnums(argnums, len(args), "jacfwd")
        chosen = _select(args, nums, single)
        in_leaves, in_spec = tree_flatten(chosen)

        def f(inputs):
            return func(*_with(args, nums, single, inputs))
        basis, sizes = _basis(in_leaves)

        def columns(*ts):
            res = jvp(f, (chosen,), (tree_unflatten(list(ts), in_spec),), has_aux=has_aux)
            return (res[1], res[2]) if has_aux else res[1]
        res = vmap(columns, randomness=randomness,
                   out_dims=(0, None) if has_aux else 0)(*basis)
        cols, aux = res if has_aux else (res, None)
        outs, out_spec = tree_flatten(cols)
        jac = []
        for o in outs:
            shape = tuple(o.shape[1:])
            blocks, start = [], 0
            for x, m in zip(in_leaves, sizes):
                block = o[start:start + m].movedim(0, -1) if shape else o[start:start + m]
                blocks.append(block.reshape(shape + tuple(x.shape)))
                start += m
            jac.append(tree_unflatten(blocks, in_spec))
        jac = tree_unflatten(jac, out_spec)
        return (jac, aux) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of ``func`` (which returns a scalar): ``jacfwd(jacrev(func))``, forward over
    reverse, as PyTorch computes it.

        >>> import mutograd as mg
        >>> from mutograd.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(mg.tensor([1.0, 2.0])).tolist()
        [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(func, argnums), argnums)
