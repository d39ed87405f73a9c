"""vmap: in_dims and out_dims, chunk_size, randomness, nesting, gradients inside and through it,
in-place writes, what it refuses, and that ops with a batching rule do not fall back to a loop
(Note [Batched arrays], [Batching rules], [Per-op fallback], [Differentiating through vmap])."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd.func import grad, jacrev, vmap
from mutograd.func import batching_rules, op_fallback
from mutograd.func.batched_array import VmapError

RNG = np.random.default_rng(2)
X = RNG.standard_normal((4, 3))
W = RNG.standard_normal((3, 2))


def _loop(f, *xs, dims=None):
    dims = dims or (0,) * len(xs)
    n = next(x.shape[d] for x, d in zip(xs, dims) if d is not None)
    outs = [f(*[x if d is None else x.select(d, i) for x, d in zip(xs, dims)]) for i in range(n)]
    return mg.stack(outs, 0)


def _close(a, b, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def test_in_dims_out_dims_and_structures():
    x, w = mg.tensor(X), mg.tensor(W)
    _close(vmap(lambda r: r @ w)(x), x @ w)
    _close(vmap(lambda c: c.sum(), in_dims=1)(x), x.sum(0))
    _close(vmap(lambda c: c.exp(), in_dims=-1, out_dims=1)(x), x.exp())
    _close(vmap(lambda r, w: r @ w, in_dims=(0, None))(x, w), x @ w)
    got = vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))({"a": x, "b": x[0]})
    _close(got, x * x[0])
    a, b = vmap(lambda r: (r.sum(), r * 2), out_dims=(0, 1))(x)
    _close(a, x.sum(1))
    _close(b, (x * 2).T)
    const = vmap(lambda r: w.sum(), in_dims=0)(x)            # unbatched output: broadcast
    assert const.shape == [4] and np.allclose(const.numpy(), W.sum())
    assert vmap(lambda r: (r.sum(), 3), out_dims=(0, None))(x)[1] == 3
    nested = vmap(vmap(lambda e: e * 2))(mg.tensor(RNG.standard_normal((2, 3, 4))))
    assert nested.shape == [2, 3, 4]


def test_vmap_errors_are_pytorchs():
    x = mg.tensor(X)
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        vmap(lambda a, b: a + b)(x, mg.ones(5, 3))
    with pytest.raises(ValueError, match="expected in_dim to satisfy"):
        vmap(lambda a: a, in_dims=2)(x)
    with pytest.raises(ValueError, match="non-Tensor"):
        vmap(lambda a, b: a, in_dims=(0, 0))(x, 3)
    with pytest.raises(ValueError, match="at least one input"):
        vmap(lambda a: a, in_dims=None)(x)
    with pytest.raises(ValueError, match="not compatible with the structure"):
        vmap(lambda a: a, in_dims=(0, 0))(x)
    with pytest.raises(ValueError, match="out_dims=None"):
        vmap(lambda a: a * 2, out_dims=None)(x)
    with pytest.raises(ValueError, match="must only return Tensors"):
        vmap(lambda a: 3)(x)
    with pytest.raises(RuntimeError, match="randomness"):
        vmap(lambda a: a, randomness="sometimes")
    with pytest.raises(ValueError, match="chunk_size"):
        vmap(lambda a: a, chunk_size=0)


def test_chunk_size_gives_the_same_result():
    x = mg.tensor(RNG.standard_normal((7, 3)))
    f = lambda r: (r @ mg.tensor(W)).tanh().sum()   # noqa: E731
    for c in (1, 2, 3, 7, 10):
        _close(vmap(f, chunk_size=c)(x), vmap(f)(x))
    pg = vmap(grad(f), chunk_size=3)(x)
    _close(pg, vmap(grad(f))(x))


def test_randomness():
    x = mg.zeros(4, 3)
    with pytest.raises(VmapError, match="randomness error mode"):
        vmap(lambda r: r + mg.randn(3))(x)
    same = vmap(lambda r: r + mg.randn(3), randomness="same")(x)
    assert np.allclose(same.numpy(), same.numpy()[0])
    diff = vmap(lambda r: r + mg.randn(3), randomness="different")(x)
    assert diff.shape == [4, 3] and not np.allclose(diff.numpy()[0], diff.numpy()[1])
    ones = mg.ones(4, 1000)
    dropped = vmap(lambda r: mg.nn.functional.dropout(r, 0.5), randomness="different")(ones)
    assert not np.array_equal(dropped.numpy()[0], dropped.numpy()[1])
    assert set(np.unique(dropped.numpy())) <= {0.0, 2.0}
    chunked = vmap(lambda r: r + mg.rand(3), randomness="same", chunk_size=2)(x)
    assert np.allclose(chunked.numpy(), chunked.numpy()[0])
    mg.seed(3)
    a = vmap(lambda r: r + mg.randn(3), randomness="different")(x)
    mg.seed(3)
    b = vmap(lambda r: r + mg.randn(3), randomness="different")(x)
    assert np.array_equal(a.numpy(), b.numpy())


def test_per_sample_gradients_inside_vmap_equal_a_loop():
    w = mg.tensor(W)

    def sample_loss(w, x):
        return ((x @ w).tanh() ** 2).sum()
    got = vmap(grad(sample_loss), in_dims=(None, 0))(w, mg.tensor(X))
    want = _loop(lambda x: grad(sample_loss)(w, x), mg.tensor(X))
    _close(got, want)
    got = vmap(vmap(grad(sample_loss), in_dims=(None, 0)), in_dims=(None, 0))(
        w, mg.tensor(X.reshape(2, 2, 3)))
    _close(got.reshape(4, 3, 2), want)
    jac = vmap(jacrev(lambda x: (x @ w).sin()))(mg.tensor(X))
    _close(jac, _loop(lambda x: jacrev(lambda x: (x @ w).sin())(x), mg.tensor(X)))


def test_gradients_through_vmap_sum_over_the_batch_for_unbatched_tensors():
    w = mg.tensor(W, requires_grad=True)
    x = mg.tensor(X, requires_grad=True)
    h = w * 2                                   # a tensor from outside, with history
    out = vmap(lambda r: ((r @ h).sin() * r.sum()).sum())(x)
    (out ** 2).sum().backward()
    gw, gx = w.grad.numpy().copy(), x.grad.numpy().copy()
    w.grad = x.grad = None
    loop = mg.stack([((x[i] @ (w * 2)).sin() * x[i].sum()).sum() for i in range(4)])
    (loop ** 2).sum().backward()
    np.testing.assert_allclose(gw, w.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gx, x.grad.numpy(), rtol=1e-10)
    assert type(out.grad_fn).__name__ == "VmapBackward"
    # in_dims=None inputs count as unbatched
    w.grad = None
    vmap(lambda r, w: (r @ w).sum(), in_dims=(0, None))(mg.tensor(X), w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), X.sum(0)[:, None] * np.ones((1, 2)))


def test_second_order_through_vmap():
    w = mg.tensor(W, requires_grad=True)
    out = vmap(lambda r: ((r @ w).tanh() ** 3).sum())(mg.tensor(X))
    (g,) = mg.grad(out.sum(), w, create_graph=True)
    (h,) = mg.grad((g ** 2).sum(), w)
    w2 = mg.tensor(W, requires_grad=True)
    loop = sum(((mg.tensor(X[i]) @ w2).tanh() ** 3).sum() for i in range(4))
    (g2,) = mg.grad(loop, w2, create_graph=True)
    (h2,) = mg.grad((g2 ** 2).sum(), w2)
    _close(g, g2)
    _close(h, h2, rtol=1e-9)
    with pytest.raises(mg.BackwardError, match="second time"):
        y = vmap(lambda r: (r @ w).sum())(mg.tensor(X)).sum()
        y.backward()
        y.backward()


def test_in_place_writes():
    x = mg.tensor(X)
    out = vmap(lambda r: (r * 1).mul_(2).add_(1))(x)      # in place on batched tensors
    _close(out, x * 2 + 1)

    def fill(r):
        z = mg.zeros(3, dtype=mg.float64)                   # made inside: room for the batch
        z[1:] = r[:2]
        return z
    _close(vmap(fill)(x), mg.cat([mg.zeros(4, 1), x[:, :2]], 1))
    captured = mg.zeros(3)
    with pytest.raises(VmapError, match="unbatched"):
        vmap(lambda r: captured.add_(r))(x)
    assert captured.tolist() == [0.0, 0.0, 0.0]
    y = mg.tensor(X)
    vmap(lambda r: r.mul_(10))(y)                           # an input written through vmap
    _close(y, mg.tensor(X) * 10)


def test_data_dependent_control_flow():
    x = mg.tensor(X)
    with pytest.raises(VmapError, match="samples differ"):
        vmap(lambda r: r * 2 if r.sum() > 0 else r)(x)
    # the same decision for every sample is fine (as library checks need)
    out = vmap(lambda r: r * 2 if (r * 0).sum() == 0 else r)(x)
    _close(out, x * 2)
    with pytest.raises(VmapError):
        vmap(lambda r: mg.tensor(r.numpy()))(x)


def test_batching_rules_run_an_mlp_without_the_per_sample_fallback(monkeypatch):
    calls = []
    monkeypatch.setattr(batching_rules, "per_sample",
                        lambda *a, **k: calls.append(a[0]) or pytest.fail(f"fallback: {a[0]}"))
    real_each = op_fallback._each
    monkeypatch.setattr(op_fallback, "_each",
                        lambda fn, *a: calls.append(fn) or real_each(fn, *a))
    net = mg.nn.Sequential(mg.nn.Linear(3, 8), mg.nn.Tanh(), mg.nn.Linear(8, 2))
    params = {k: v.detach() for k, v in net.named_parameters()}
    y = mg.tensor(RNG.integers(0, 2, 4))

    def sample_loss(p, x, t):
        logits = mg.func.functional_call(net, p, (x[None],))
        return mg.nn.functional.cross_entropy(logits, t[None]) + (logits ** 2).mean()
    vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, mg.tensor(X).float(), y)
    assert calls == []


def test_the_fallback_is_counted_and_correct():
    """A function without a batching rule runs once per sample (np.kron here)."""
    from mutograd.func.batched_array import BatchedArray
    a = BatchedArray(RNG.standard_normal((3, 2, 2)), 99)
    b = RNG.standard_normal((2, 2))
    got = np.kron(a, b)
    assert isinstance(got, BatchedArray)
    np.testing.assert_allclose(got.value, np.stack([np.kron(a.value[i], b) for i in range(3)]))


# ---- against PyTorch ------------------------------------------------------------------------
@pytest.mark.torch
def test_vmap_of_modules_and_functions_matches_pytorch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net_t = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.GELU(), torch.nn.LayerNorm(8),
                                torch.nn.Linear(8, 2))
    net_m = mt.nn.Sequential(mt.nn.Linear(3, 8), mt.nn.GELU(), mt.nn.LayerNorm(8),
                             mt.nn.Linear(8, 2))
    net_m.load_state_dict({k: mt.tensor(v.detach().numpy())
                           for k, v in net_t.state_dict().items()})
    xs = RNG.standard_normal((5, 6, 3)).astype(np.float32)

    def run(ns, net):
        x = ns.tensor(xs)
        w = ns.tensor(W.astype(np.float32), requires_grad=True)
        outs = [ns.vmap(net)(x),
                ns.vmap(lambda s: ns.softmax(s @ w, -1).cumsum(-1), in_dims=1)(x),
                ns.vmap(lambda s: (s[:, :2] @ w[:2]).log_softmax(-1).max(-1)[0])(x),
                ns.vmap(lambda s: ns.einsum("ij,jk->ik", s, w).T.reshape(-1)[::3])(x)]
        loss = sum(o.sum() for o in outs[1:])
        outs.append(ns.autograd.grad(loss, w)[0])
        return outs
    for g, w in zip(run(mt, net_m), run(torch, net_t)):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-5, atol=1e-6)
