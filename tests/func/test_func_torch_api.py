"""The rest of torch.func against PyTorch 2.13: linearize, functionalize, model ensembling
(stack_module_state with functional_call and vmap, replace_all_batch_norm_modules_),
debug_unwrap and rearrange (whose expectations are also computed with NumPy)."""
import numpy as np
import pytest

import mutograd.compat.torch as mt

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.torch,   # PyTorch's linearize traces with FX and the JIT, warning
              pytest.mark.filterwarnings("ignore::DeprecationWarning:torch"),
              pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node")]

R = np.random.default_rng(5)
X3, Y3 = R.standard_normal(3), R.standard_normal(3)
M23 = R.standard_normal((2, 3))


def _np(t):
    return t.detach().numpy()


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


# ---- linearize -----------------------------------------------------------------------------
# (id, primals, tangents, f(T, *primals)); outputs may be nested
LINEARIZE = [
    ("sin", [X3], [Y3], lambda T, x: x.sin()),
    ("two_inputs", [X3, Y3], [Y3, X3], lambda T, x, y: x * y.exp()),
    ("tuple_out", [X3], [Y3], lambda T, x: (x.tanh(), (x ** 2).sum())),
    ("matmul", [M23, X3], [M23 * 2, Y3], lambda T, a, x: a @ x),
    ("dict_out", [X3], [Y3], lambda T, x: {"a": x.cos(), "b": x * 3}),
]


def _flat(tree):
    if isinstance(tree, dict):
        return [v for k in sorted(tree) for v in _flat(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [v for t in tree for v in _flat(t)]
    return [tree]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in LINEARIZE])
def test_linearize_matches_pytorch_and_jvp(case):
    _, primals, tangents, f = case
    res = {}
    for T in (mt, torch):
        calls = []

        def g(*xs, T=T):
            calls.append(1)
            return f(T, *xs)
        out, jvp_fn = T.func.linearize(g, *[T.tensor(p) for p in primals])
        first = jvp_fn(*[T.tensor(t) for t in tangents])
        again = jvp_fn(*[T.tensor(t) * 2 for t in tangents])
        res[T] = (_flat(out), _flat(first), _flat(again), len(calls))
    for a, b in zip(res[mt][0] + res[mt][1] + res[mt][2], res[torch][0] + res[torch][1]
                    + res[torch][2]):
        _close(a, b)
    assert res[mt][3] == 1                          # func runs once, jvp_fn reuses it
    assert all(type(t) is mt.Tensor for t in res[mt][0] + res[mt][1])
    _, want = mt.func.jvp(lambda *xs: f(mt, *xs), tuple(mt.tensor(p) for p in primals),
                          tuple(mt.tensor(t) for t in tangents))
    for a, b in zip(res[mt][1], _flat(want)):
        _close(a, b)


def test_linearize_errors_and_differentiability_match_pytorch():
    for T in (mt, torch):
        out, jvp_fn = T.func.linearize(lambda x: x * x, T.tensor(X3))
        with pytest.raises(RuntimeError, match="doesn't match the shape"):
            jvp_fn(T.ones(4, dtype=T.float64))
        with pytest.raises(RuntimeError, match="same argspec"):
            jvp_fn(T.tensor(X3), T.tensor(X3))
    # a primal that requires grad: the output stays differentiable, and the JVP in the
    # tangent (PyTorch takes the primal in jvp_fn as a constant; mutograd differentiates
    # through it too, which the second check shows against the second derivative)
    for T in (mt, torch):
        x = T.tensor(X3, requires_grad=True)
        t = T.tensor(Y3, requires_grad=True)
        out, jvp_fn = T.func.linearize(lambda x: x.sin(), x)
        assert out.requires_grad
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.cos(X3), rtol=1e-12)
        jvp_fn(t).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), np.cos(X3), rtol=1e-12)
    x = mt.tensor(X3, requires_grad=True)
    _, jvp_fn = mt.func.linearize(lambda x: x.sin(), x)
    jvp_fn(mt.tensor(Y3)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(X3) * Y3, rtol=1e-12)


# ---- functionalize -------------------------------------------------------------------------
def _inplace_on_view(T, x):
    y = x.view(-1)
    y.add_(1.0)
    return x.view(2, 3)


def _clone_and_mutate(T, x):
    y = x.clone()
    y.mul_(2.0)
    y[0].sub_(x[1])
    return y.exp()


def _identity(T, x):
    return x


def _mutate_input_return_view(T, x):
    x.mul_(3.0)
    return x[0], x.t()


FUNCTIONALIZE = [_inplace_on_view, _clone_and_mutate, _identity, _mutate_input_return_view]


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
@pytest.mark.parametrize("f", FUNCTIONALIZE, ids=lambda f: f.__name__)
def test_functionalize_matches_pytorch(f, remove):
    res = {}
    for T in (mt, torch):
        x = T.tensor(M23)
        out = T.func.functionalize(lambda x, T=T: f(T, x), remove=remove)(x)
        outs = _flat(out)
        ptr = (lambda t: t._storage) if T is mt else (lambda t: t.untyped_storage().data_ptr())
        res[T] = ([_np(o).copy() for o in outs], _np(x).copy(),
                  [ptr(o) == ptr(x) for o in outs], [o is x for o in outs])
    for a, b in zip(res[mt][0], res[torch][0]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(res[mt][1], res[torch][1], rtol=1e-12)   # input mutation kept
    # no output is a view of the input; one that is the input itself is returned as it is
    assert res[mt][2] == res[torch][2] == res[mt][3] == res[torch][3]


@pytest.mark.parametrize("f", [_clone_and_mutate, _inplace_on_view], ids=lambda f: f.__name__)
def test_gradients_through_functionalize_match_pytorch(f):
    def loss(T):
        def run(x):
            return (f(T, x.clone()) * T.tensor(np.arange(6.0).reshape(2, 3))).sum()
        return T.func.grad(T.func.functionalize(run))(T.tensor(M23))
    _close(loss(mt), loss(torch))


def test_functionalize_rejects_an_unknown_remove_as_pytorch():
    for T in (mt, torch):
        with pytest.raises(RuntimeError, match="invalid argument for remove=views"):
            T.func.functionalize(lambda x: x, remove="views")


# ---- model ensembling ----------------------------------------------------------------------
def _models(T, n, seed=0):
    """``n`` small MLPs of T, with the same weights in both frameworks."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2)).double()
        state = {k: T.tensor(rng.standard_normal(tuple(v.shape)))
                 for k, v in m.state_dict().items()}
        m.load_state_dict(state)
        out.append(m)
    return out


def _ensemble(T, models, xs, same_minibatch):
    params, buffers = T.func.stack_module_state(models)
    base = models[0]

    def run(p, b, x):
        return T.func.functional_call(base, (p, b), (x,))
    in_dims = (0, 0, None) if same_minibatch else (0, 0, 0)
    out = T.vmap(run, in_dims=in_dims)(params, buffers, xs)
    return params, buffers, out


@pytest.mark.parametrize("same_minibatch", [True, False])
def test_model_ensembling_matches_pytorch(same_minibatch):
    x = R.standard_normal((5, 3)) if same_minibatch else R.standard_normal((4, 5, 3))
    res = {}
    for T in (mt, torch):
        models = _models(T, 4)
        params, buffers, out = _ensemble(T, models, T.tensor(x), same_minibatch)
        assert sorted(params) == ["0.bias", "0.weight", "2.bias", "2.weight"] and not buffers
        assert all(p.is_leaf and p.requires_grad for p in params.values())
        (out ** 2).sum().backward()
        res[T] = (out, {k: p.grad for k, p in params.items()}, params, models)
    _close(res[mt][0], res[torch][0])
    for k in res[torch][1]:
        _close(res[mt][1][k], res[torch][1][k])
        assert tuple(res[mt][2][k].shape) == tuple(res[torch][2][k].shape)
    # each model's own output is its slice of the ensemble's
    models = res[mt][3]
    for i, m in enumerate(models):
        xi = mt.tensor(x if same_minibatch else x[i])
        _close(m(xi), res[mt][0][i])


def test_stack_module_state_errors_match_pytorch():
    for T in (mt, torch):
        with pytest.raises(RuntimeError, match="at least one model"):
            T.func.stack_module_state([])
        with pytest.raises(RuntimeError, match="same class"):
            T.func.stack_module_state([T.nn.Linear(2, 2), T.nn.Conv1d(2, 2, 1)])
        with pytest.raises(RuntimeError, match="training/eval mode"):
            T.func.stack_module_state([T.nn.Linear(2, 2), T.nn.Linear(2, 2).eval()])
        a, b = T.nn.Linear(2, 2), T.nn.Linear(2, 2)
        a.bias.requires_grad_(False)
        with pytest.raises(RuntimeError, match="Expected bias from each model to have the same"):
            T.func.stack_module_state([a, b])
        b.bias.requires_grad_(False)
        params, _ = T.func.stack_module_state([a, b])
        assert not params["bias"].requires_grad and params["weight"].requires_grad


def test_batch_norm_ensemble_after_replacing_running_stats_matches_pytorch():
    x = R.standard_normal((6, 3))
    res = {}
    for T in (mt, torch):
        models = []
        for _ in range(3):
            m = T.nn.Sequential(T.nn.Linear(3, 3), T.nn.BatchNorm1d(3),
                                T.nn.InstanceNorm1d(3, track_running_stats=True)).double()
            assert T.func.replace_all_batch_norm_modules_(m) is m
            models.append(m)
        bn, inorm = models[0][1], models[0][2]
        assert (bn.running_mean, bn.running_var, bn.num_batches_tracked) == (None,) * 3
        assert bn.track_running_stats is False and inorm.track_running_stats is True
        assert inorm.running_mean is not None
        rng = np.random.default_rng(3)
        for m in models:
            m[0].weight.data = T.tensor(rng.standard_normal((3, 3)))
        params, buffers = T.func.stack_module_state([m[:2] for m in models])
        assert sorted(buffers) == []
        out = T.vmap(lambda p, b, x: T.func.functional_call(models[0][:2], (p, b), (x,)),
                     in_dims=(0, 0, None))(params, buffers, T.tensor(x))
        res[T] = out
    _close(res[mt], res[torch])


def test_stacked_buffers_match_pytorch():
    for T in (mt, torch):
        models = [T.nn.BatchNorm1d(3) for _ in range(2)]
        params, buffers = T.func.stack_module_state(models)
        assert list(buffers) == ["running_mean", "running_var", "num_batches_tracked"]
        assert tuple(buffers["num_batches_tracked"].shape) == (2,)
        assert tuple(buffers["running_var"].shape) == (2, 3)
        assert not buffers["running_mean"].requires_grad


# ---- debug_unwrap --------------------------------------------------------------------------
def test_debug_unwrap_matches_pytorch():
    for T in (mt, torch):
        t = T.ones(2)
        assert T.func.debug_unwrap(t) is t
        seen = []

        def f(x, T=T):
            seen.append((tuple(T.func.debug_unwrap(x).shape),
                         tuple(T.func.debug_unwrap(x, recurse=False).shape)))
            return x * 2
        out = T.vmap(T.vmap(f))(T.tensor(R.standard_normal((4, 3, 2))))
        assert seen == [((4, 3, 2), (3, 2))] and tuple(out.shape) == (4, 3, 2)
    vals = []
    mt.vmap(lambda x: vals.append(_np(mt.func.debug_unwrap(x)).copy()) or x)(mt.tensor(M23))
    np.testing.assert_array_equal(vals[0], M23)


# ---- rearrange -----------------------------------------------------------------------------
A234 = np.arange(24.0).reshape(2, 3, 4)
# (pattern, axes_lengths, the same rearrangement in NumPy)
REARRANGE = [
    ("a b c -> c a b", {}, lambda x: x.transpose(2, 0, 1)),
    ("a b c -> c (a b)", {}, lambda x: x.transpose(2, 0, 1).reshape(4, 6)),
    ("a b c -> (b a) c", {}, lambda x: x.transpose(1, 0, 2).reshape(6, 4)),
    ("a b (h w) -> a h b w", {"h": 2}, lambda x: x.reshape(2, 3, 2, 2).transpose(0, 2, 1, 3)),
    ("a b (h w) -> w a b h", {"w": 4}, lambda x: x.reshape(2, 3, 1, 4).transpose(3, 0, 1, 2)),
    ("a b c -> (a b c)", {}, lambda x: x.reshape(24)),
    ("... c -> c ...", {}, lambda x: x.transpose(2, 0, 1)),
    ("a ... -> (...) a", {}, lambda x: x.transpose(1, 2, 0).reshape(12, 2)),
    ("a ... c -> c ... a", {}, lambda x: x.transpose(2, 1, 0)),
    ("... -> (...)", {}, lambda x: x.reshape(24)),
    ("a b c -> a b c 1", {}, lambda x: x.reshape(2, 3, 4, 1)),
    ("a b c -> a (b c) ()", {}, lambda x: x.reshape(2, 12, 1)),
    ("a b (c 1) -> a (1 b) c", {}, lambda x: x),
    ("(a b) c d -> a b c d", {"a": 2, "b": 1}, lambda x: x.reshape(2, 1, 3, 4)),
    ("a b c -> b a c", {"a": 2}, lambda x: x.transpose(1, 0, 2)),
    ("a b c->c b a", {}, lambda x: x.transpose(2, 1, 0)),
]


@pytest.mark.parametrize("pattern, lengths, ref", REARRANGE, ids=[c[0] for c in REARRANGE])
def test_rearrange_matches_numpy_and_pytorch(pattern, lengths, ref):
    want = ref(A234)
    x = mt.tensor(A234, requires_grad=True)
    out = mt.func.rearrange(x, pattern, **lengths)
    assert type(out) is mt.Tensor
    np.testing.assert_array_equal(_np(out), want)
    np.testing.assert_array_equal(torch.func.rearrange(torch.tensor(A234), pattern,
                                                       **lengths).numpy(), want)
    # the gradient is the weights rearranged back: each element's weight where it came from
    w = np.arange(want.size, dtype=np.float64).reshape(want.shape) * 0.5 + 1
    (out * mt.tensor(w)).sum().backward()
    back = np.zeros(24)
    back[ref(np.arange(24).reshape(2, 3, 4)).reshape(-1)] = w.reshape(-1)
    np.testing.assert_array_equal(x.grad.numpy(), back.reshape(2, 3, 4))


def test_rearrange_stacks_a_list_as_pytorch():
    parts = [R.standard_normal((3, 4)) for _ in range(5)]
    ours = mt.func.rearrange([mt.tensor(p) for p in parts], "n a b -> a n b")
    ref = torch.func.rearrange([torch.tensor(p) for p in parts], "n a b -> a n b")
    np.testing.assert_array_equal(_np(ours), ref.numpy())
    np.testing.assert_array_equal(_np(ours), np.stack(parts).transpose(1, 0, 2))


# patterns both refuse (PyTorch raises ValueError, or functorch's DimensionBindError for sizes)
REARRANGE_ERRORS = [
    ("a b c -> a b", {}, "only on one side"),
    ("a b c d -> a b c d", {}, "Number of dimensions"),
    ("a b c -> a b c 2", {}, "unnamed axes of size 1"),
    ("a b _ -> a b _", {}, "Invalid axis identifier"),
    ("a a c -> a c", {}, "duplicate dimension 'a'"),
    ("a b c -> a (b ...) c", {}, "Ellipsis found in right side"),
    ("a b c -> a b c", {"q": 3}, "not found in rearrange expression"),
    ("a (b1 b2) c -> a b1 b2 c", {"b1": 2}, "Dimension sizes"),
    ("a b c -> b a c", {"a": 5}, "Dimension sizes"),
    ("a (b c) d -> a b c d", {"b": 2, "c": 2}, "Dimension sizes"),
]


@pytest.mark.parametrize("pattern, lengths, message", REARRANGE_ERRORS,
                         ids=[c[0] for c in REARRANGE_ERRORS])
def test_rearrange_errors_match_pytorch(pattern, lengths, message):
    with pytest.raises(Exception):                 # noqa: B017 (ValueError or functorch's own)
        torch.func.rearrange(torch.tensor(A234), pattern, **lengths)
    with pytest.raises(ValueError, match=message):
        mt.func.rearrange(mt.tensor(A234), pattern, **lengths)
