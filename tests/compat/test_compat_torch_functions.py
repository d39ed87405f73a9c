"""PyTorch functions composed from declared ops (mutograd/ops/, by concern) through
``mutograd.compat.torch`` and real PyTorch: values, dtypes and the gradients of every floating
input must agree."""
import numpy as np
import pytest

import mutograd.compat.torch as mt

pytestmark = pytest.mark.torch
R = np.random.default_rng(1)
A = R.standard_normal((3, 4))
B = R.standard_normal((3, 4))
V = R.standard_normal(4)
C3 = R.standard_normal((2, 3, 4))
NANS = np.array([1.0, np.nan, -2.0, np.nan])
NANS2 = np.array([np.nan, 3.0, -1.0, np.nan])

# (id, float inputs (get gradients, None: no gradient check), f(T, *inputs))
CASES = [
    ("hstack", [V, V], lambda T, a, b: T.hstack([a, b])),
    ("hstack_2d", [A, B], lambda T, a, b: T.hstack((a, b))),
    ("vstack", [V, A], lambda T, a, b: T.vstack([a, b])),
    ("row_stack", [A, B], lambda T, a, b: T.row_stack([a, b])),
    ("dstack", [A, B], lambda T, a, b: T.dstack([a, b])),
    ("column_stack", [V, A.T.copy()], lambda T, a, b: T.column_stack([a, b])),
    ("concatenate", [A, B], lambda T, a, b: T.concatenate([a, b], 1)),
    ("tensor_split_int", [C3], lambda T, a: T.tensor_split(a, 3, dim=2)),
    ("tensor_split_idx", [C3], lambda T, a: a.tensor_split([1, 3], 2)),
    ("hsplit", [A], lambda T, a: T.hsplit(a, 2)),
    ("vsplit", [A], lambda T, a: a.vsplit([1])),
    ("dsplit", [C3], lambda T, a: T.dsplit(a, [1, 2])),
    ("select_scatter", [A, V], lambda T, a, b: T.select_scatter(a, b, 0, 1)),
    ("slice_scatter", [A, A[:, ::2].copy()],
     lambda T, a, b: T.slice_scatter(a, b, dim=1, start=0, end=4, step=2)),
    ("diagonal_scatter", [A, V[:3].copy()], lambda T, a, b: a.diagonal_scatter(b, 1)),
    ("logaddexp", [A, B], lambda T, a, b: T.logaddexp(a, b * 3)),
    ("logaddexp2", [A, B], lambda T, a, b: a.logaddexp2(b)),
    ("fmax", [NANS, NANS2], lambda T, a, b: T.fmax(a, b)),
    ("fmin", [NANS, NANS2], lambda T, a, b: a.fmin(b)),
    ("isposinf", None, lambda T: T.isposinf(T.tensor([1.0, np.inf, -np.inf]))),
    ("isneginf", None, lambda T: T.tensor([1.0, np.inf, -np.inf]).isneginf()),
    ("isreal", None, lambda T: T.isreal(T.tensor([1 + 0j, 1j]))),
    ("angle", [V], lambda T, a: T.angle(a)),
    ("angle_complex", None, lambda T: T.angle(T.tensor([1 + 1j, -2j]))),
    ("conj_real", [V], lambda T, a: T.conj(a)),
    ("logcumsumexp", [A], lambda T, a: T.logcumsumexp(a * 10, 1)),
    ("msort", [A], lambda T, a: T.msort(a)),
    ("aminmax", [A], lambda T, a: T.aminmax(a, dim=1)),
    ("aminmax_all", [A], lambda T, a: tuple(a.aminmax())),
    ("ravel", [A], lambda T, a: a.t().ravel()),
    ("diagflat", [V], lambda T, a: T.diagflat(a, 1)),
    ("vdot", [V, V[::-1].copy()], lambda T, a, b: T.vdot(a, b)),
    ("ger", [V, V[:3].copy()], lambda T, a, b: T.ger(a, b)),
    ("mv", [A, V], lambda T, a, b: T.mv(a, b)),
    ("cov", [A], lambda T, a: T.cov(a)),
    ("cov_correction0", [A], lambda T, a: a.cov(correction=0)),
    ("cov_weights", [A, np.abs(V) + 0.5],
     lambda T, a, w: T.cov(a, fweights=T.tensor([1, 2, 1, 3]), aweights=w)),
    ("cov_aweights_c2", [A, np.abs(V) + 0.5], lambda T, a, w: a.cov(correction=2, aweights=w)),
    ("cov_fweights_1d", [V], lambda T, a: T.cov(a, correction=0, fweights=T.tensor([2, 1, 1, 4]))),
    ("corrcoef", [A], lambda T, a: T.corrcoef(a)),
    ("trapezoid", [A], lambda T, a: T.trapezoid(a, dx=0.5)),
    ("trapezoid_x", [A, np.sort(V)], lambda T, a, x: T.trapezoid(a, x)),
    ("trapz", [A], lambda T, a: T.trapz(a, dim=0)),
    ("cumulative_trapezoid", [A], lambda T, a: T.cumulative_trapezoid(a)),
    # (PyTorch's own vander gradient fails a version check: values only)
    ("vander", None, lambda T: T.vander(T.tensor(V), 3)),
    ("vander_increasing", None, lambda T: T.vander(T.tensor(V), increasing=True)),
    ("cartesian_prod", [V[:2].copy(), V[:3].copy()], lambda T, a, b: T.cartesian_prod(a, b)),
    ("combinations", [V], lambda T, a: T.combinations(a, 3)),
    ("combinations_repl", [V], lambda T, a: T.combinations(a, with_replacement=True)),
    ("block_diag", [A, V], lambda T, a, b: T.block_diag(a, b, a[:1, :2])),
    ("tril_indices", None, lambda T: T.tril_indices(3, 4, 1)),
    ("triu_indices", None, lambda T: T.triu_indices(4, 3, -1)),
    ("unravel_index", None, lambda T: T.unravel_index(T.tensor([5, 11]), (3, 4))),
    ("broadcast_shapes", None, lambda T: list(T.broadcast_shapes((3, 1), (4,), 1))),
    ("result_type", None, lambda T: [str(T.result_type(T.ones(2, dtype=T.int32), T.ones(
        1, dtype=T.float64))).split(".")[-1], str(T.result_type(T.ones(1, dtype=T.int64),
                                                                   2.5)).split(".")[-1]]),
    ("promote_types", None, lambda T: [str(T.promote_types(a, b)).split(".")[-1] for a, b in (
        (T.int64, T.float32), (T.int8, T.uint8), (T.float16, T.float64))]),
    ("can_cast", None, lambda T: [T.can_cast(T.float64, T.int32), T.can_cast(T.int32,
                                                                              T.float64)]),
    ("scalar_tensor", None, lambda T: T.scalar_tensor(3)),
    ("range", None, lambda T: T.range(1, 2.5, 0.5)),
    ("is_nonzero", None, lambda T: [T.is_nonzero(T.tensor([0.5])), T.tensor(0).is_nonzero()]),
    ("is_same_size", None, lambda T: T.is_same_size(T.ones(2, 3), T.zeros(2, 3))),
    ("is_floating_point", None, lambda T: [T.is_floating_point(T.ones(1)),
                                           T.is_floating_point(T.ones(1, dtype=T.int64))]),
    ("is_signed", None, lambda T: [T.ones(1).is_signed(), T.is_signed(T.ones(1,
                                                                        dtype=T.uint8))]),
    ("frexp", None, lambda T: tuple(T.frexp(T.tensor([8.0, 0.3, -5.0])))),
    ("fliplr", [A], lambda T, a: a.fliplr() * T.tensor(B)),
    ("flipud", [A], lambda T, a: T.flipud(a) * T.tensor(B)),
    ("adjoint", [C3], lambda T, a: a.adjoint()),
    ("H", [A], lambda T, a: a.H),
    ("mH", [C3], lambda T, a: a.mH),
    ("allclose", None, lambda T: T.ones(2).allclose(T.ones(2) + 1e-9)),
    ("expand_copy", [V], lambda T, a: T.expand_copy(a, (3, 4))),
    ("permute_copy", [C3], lambda T, a: T.permute_copy(a, (2, 0, 1))),
    ("t_copy", [A], lambda T, a: T.t_copy(a)),
    ("transpose_copy", [C3], lambda T, a: T.transpose_copy(a, 0, 2)),
    ("unsqueeze_copy", [A], lambda T, a: T.unsqueeze_copy(a, 1)),
    ("squeeze_copy", [A[:1].copy()], lambda T, a: T.squeeze_copy(a, 0)),
    ("view_copy", [A], lambda T, a: T.view_copy(a, (4, 3))),
    ("select_copy", [A], lambda T, a: T.select_copy(a, 1, 2)),
    ("slice_copy", [A], lambda T, a: T.slice_copy(a, 1, 1, 4, 2)),
    ("split_copy", [A], lambda T, a: T.split_copy(a, 2, 1)),
    ("split_with_sizes_copy", [A], lambda T, a: T.split_with_sizes_copy(a, [1, 2])),
    ("unbind_copy", [A], lambda T, a: T.unbind_copy(a, 1)),
    ("narrow_copy", [A], lambda T, a: a.narrow_copy(1, 1, 2)),
    ("diagonal_copy", [A], lambda T, a: T.diagonal_copy(a, -1)),
    ("alias_copy", [A], lambda T, a: T.alias_copy(a)),
]


def _np(v):
    if isinstance(v, (tuple, list)):
        return [_np(x) for x in v]
    if hasattr(v, "detach"):
        return v.detach().numpy()
    return v


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_as_pytorch(case):
    torch = pytest.importorskip("torch")
    _, arrays, f = case
    res = []
    for T in (torch, mt):
        ts = [T.tensor(a, requires_grad=True) for a in arrays or []]
        out = f(T, *ts)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        grads = []
        if arrays:
            loss = sum((o * T.tensor(np.linspace(-1, 2, o.numel()).reshape(tuple(o.shape))))
                       .nan_to_num().sum() for o in outs if hasattr(o, "requires_grad")
                       and o.requires_grad)
            loss.backward()
            grads = [t.grad.numpy() if t.grad is not None else None for t in ts]
        res.append((_np(out), grads))
    (want, wg), (got, gg) = res
    if isinstance(want, (list, tuple)) and want and not isinstance(want[0], np.ndarray):
        assert got == want
    elif isinstance(want, np.ndarray) or (isinstance(want, list) and want
                                          and isinstance(want[0], np.ndarray)):
        for w, g in zip(want if isinstance(want, list) else [want],
                        got if isinstance(got, list) else [got]):
            assert w.shape == g.shape and w.dtype == g.dtype, (w.dtype, g.dtype, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)
    else:
        assert got == want
    for w, g in zip(wg, gg):
        if w is None:
            assert g is None or not g.any()
        else:
            np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


M = R.standard_normal((3, 3)) + 3 * np.eye(3)
M4 = R.standard_normal((2, 3, 2, 3)).reshape(6, 6) + 4 * np.eye(6)
RHS = R.standard_normal((3, 2))

LINALG = [
    ("multi_dot", [V[:3].copy(), M, M, RHS],
     lambda T, a, b, c, d: T.linalg.multi_dot([a, b, c, d])),
    ("matmul", [M, RHS], lambda T, a, b: T.linalg.matmul(a, b)),
    ("diagonal", [C3], lambda T, a: T.linalg.diagonal(a, offset=1)),
    ("vander", None, lambda T: T.linalg.vander(T.tensor(V), N=3)),
    ("vander_batched", None, lambda T: T.linalg.vander(T.tensor(A))),
    ("solve_triangular_upper", [M, RHS],
     lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True)),
    ("solve_triangular_right_unit", [M, RHS.T.copy()],
     lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False, left=False,
                                               unitriangular=True)),
    ("tensorinv", [M4.reshape(2, 3, 2, 3)], lambda T, a: T.linalg.tensorinv(a, 2)),
    ("tensorsolve", [M4.reshape(2, 3, 2, 3), A[:2, :3].copy()],
     lambda T, a, b: T.linalg.tensorsolve(a, b)),
    ("inv_ex", [M], lambda T, a: tuple(T.linalg.inv_ex(a))),
    ("solve_ex", [M, RHS], lambda T, a, b: tuple(T.linalg.solve_ex(a, b))),
    ("matrix_rank", None, lambda T: T.linalg.matrix_rank(T.tensor(
        np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 0.0]])))),
    ("matrix_rank_tol", None, lambda T: T.linalg.matrix_rank(T.tensor(M), atol=3.0)),
]


@pytest.mark.parametrize("case", LINALG, ids=[c[0] for c in LINALG])
def test_linalg_same_as_pytorch(case):
    test_same_as_pytorch(case)


def test_linalg_error_class():
    assert issubclass(mt.linalg.LinAlgError, RuntimeError)


TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, -1.0, 4.0, 4.0], [0.0, 0.0, -2.0, 5.0]])
METHODS = [
    ("cummax", [TIES], lambda T, a: tuple(T.cummax(a, 1))),
    ("cummax_dim0", [TIES], lambda T, a: tuple(a.cummax(0))),
    ("cummin", [TIES], lambda T, a: tuple(a.cummin(dim=-1))),
    ("diag_embed", [A], lambda T, a: T.diag_embed(a)),
    ("diag_embed_offset", [A], lambda T, a: a.diag_embed(offset=-1)),
    ("diag_embed_dims", [A], lambda T, a: a.diag_embed(1, 0, 2)),
    ("sum_to_size", [C3], lambda T, a: a.sum_to_size(3, 1)),
    ("sum_to_size_tuple", [C3], lambda T, a: a.sum_to_size((1, 3, 4))),
    ("logdet", [M], lambda T, a: a.logdet()),
    ("hardshrink", [A], lambda T, a: a.hardshrink(0.4)),
    ("prelu", [A, np.array([0.2])], lambda T, a, w: a.prelu(w)),
    ("dim_order", None, lambda T: list(T.ones(2, 3, 4).permute(2, 0, 1).dim_order())),
    ("new", None, lambda T: T.ones(2, dtype=T.float64).new([1, 2])),
    ("new_sizes", None, lambda T: [list(T.ones(1, dtype=T.int32).new(2, 3).shape),
                                   str(T.ones(1, dtype=T.int32).new(2).dtype).split(".")[-1]]),
    ("get_device", None, lambda T: T.ones(1).get_device()),
    ("flags", None, lambda T: [T.ones(1).is_cpu, T.ones(1).is_sparse, T.ones(1).is_quantized,
                               T.ones(1).is_nested, T.ones(1).is_pinned(),
                               T.ones(1).is_shared()]),
    ("to_dense", [A], lambda T, a: a.to_dense()),
]


@pytest.mark.parametrize("case", METHODS, ids=[c[0] for c in METHODS])
def test_methods_same_as_pytorch(case):
    test_same_as_pytorch(case)


TOPLEVEL = [
    ("detach", None, lambda T: [T.detach(T.tensor(A, requires_grad=True)).requires_grad]),
    ("real_imag", None, lambda T: [T.real(T.tensor([1 + 2j])), T.imag(T.tensor([1 + 2j]))]),
    ("predicates", None, lambda T: [T.is_complex(T.ones(1)), T.is_conj(T.ones(1)),
                                    T.is_neg(T.ones(1)), T.is_inference(T.ones(1))]),
    ("resolve", [A], lambda T, a: T.resolve_neg(T.resolve_conj(a))),
    ("split_with_sizes_fn", [A], lambda T, a: T.split_with_sizes(a, [1, 3], 1)),
    ("unsafe_split_fn", [A], lambda T, a: T.unsafe_split(a, 2, 1)),
    ("unsafe_chunk_fn", [A], lambda T, a: T.unsafe_chunk(a, 2)),
    ("rsub", [A, B], lambda T, a, b: T.rsub(a, b, alpha=3)),
    ("chain_matmul", [M, M, RHS], lambda T, a, b, c: T.chain_matmul(a, b, c)),
    ("logspace", None, lambda T: T.logspace(0, 2, 5, base=2.0, dtype=T.float64)),
    *[(f"{w}_{p}", None, (lambda w, p: lambda T: getattr(T, w)(7, periodic=p,
                                                              dtype=T.float64))(w, p))
      for w in ("hann_window", "hamming_window", "bartlett_window", "blackman_window",
                "kaiser_window") for p in (True, False)],
    ("window_len1", None, lambda T: T.hann_window(1)),
    ("dropout_eval", [A], lambda T, a: T.dropout(a, 0.5, False)),
    ("alpha_dropout_eval", [A], lambda T, a: T.alpha_dropout(a, 0.5, False)),
    ("layer_norm", [A], lambda T, a: T.layer_norm(a, [4]) * T.tensor(B)),
    ("cosine_embedding_loss_int", [A, B],
     lambda T, a, b: T.cosine_embedding_loss(a, b, T.tensor([1.0, -1.0, 1.0]), 0.1, 2)),
    ("margin_ranking_loss_int", [V, V[::-1].copy()],
     lambda T, a, b: T.margin_ranking_loss(a, b, T.tensor([1.0, -1.0, 1.0, -1.0]), 0.2, 0)),
    ("hinge_embedding_loss_int", [V],
     lambda T, a: T.hinge_embedding_loss(a, T.tensor([1.0, -1.0, 1.0, -1.0]), 1.0, 1)),
    ("triplet_margin_loss_int", [A, B, B[::-1].copy()],
     lambda T, a, b, c: T.triplet_margin_loss(a, b, c, 1.0, 2.0, 1e-6, False, 1)),
    ("poisson_nll_loss_int", [A], lambda T, a: T.poisson_nll_loss(
        a, T.tensor(np.abs(B)), True, False, 1e-8, 1)),
    ("kl_div_int", [A], lambda T, a: T.kl_div(a, T.tensor(np.abs(B)), 2)),
    ("pixel_shuffle_fn", [C3[:1, :, :, None].repeat(4, 3).reshape(1, 12, 2, 2)],
     lambda T, a: T.pixel_shuffle(a, 2) * T.arange(12.).reshape(3, 4, 1)),
    ("pdist_fn", [A], lambda T, a: T.pdist(a)),
    ("switches", None, lambda T: [T.are_deterministic_algorithms_enabled(),
                                  T.is_deterministic_algorithms_warn_only_enabled(),
                                  T.get_deterministic_debug_mode(),
                                  T.is_warn_always_enabled(), T.is_autocast_enabled(),
                                  T.is_autocast_cpu_enabled()]),
    ("memory_formats", None, lambda T: [repr(T.contiguous_format), repr(T.channels_last),
                                        repr(T.preserve_format), repr(T.strided),
                                        repr(T.ones(1).layout)]),
]


@pytest.mark.parametrize("case", TOPLEVEL, ids=[c[0] for c in TOPLEVEL])
def test_toplevel_same_as_pytorch(case):
    test_same_as_pytorch(case)


def test_global_switches_round_trip():
    mt.use_deterministic_algorithms(True, warn_only=True)
    assert mt.are_deterministic_algorithms_enabled() and mt.get_deterministic_debug_mode() == 1
    mt.set_deterministic_debug_mode("default")
    assert not mt.are_deterministic_algorithms_enabled()
    mt.set_warn_always(True)
    assert mt.is_warn_always_enabled()
    mt.set_warn_always(False)
    assert mt.set_flush_denormal(True) is False
    state = mt.get_rng_state()
    a = mt.rand(3)
    mt.set_rng_state(state)
    assert mt.rand(3).tolist() == a.tolist()
    try:
        mt.set_default_tensor_type(mt.DoubleTensor)
        assert mt.ones(1).dtype == mt.float64
    finally:
        mt.set_default_tensor_type("torch.FloatTensor")
    with pytest.raises(TypeError, match="floating-point"):
        mt.set_default_tensor_type(mt.LongTensor)


def test_random_draws():
    mt.manual_seed(0)
    b = mt.bernoulli(mt.full((2000,), 0.25))
    assert set(np.unique(b.numpy())) <= {0.0, 1.0} and abs(b.mean().item() - 0.25) < 0.04
    p = mt.poisson(mt.full((2000,), 3.0))
    assert abs(p.mean().item() - 3.0) < 0.2 and p.dtype == mt.float32
    n = mt.binomial(mt.full((2000,), 10.0), mt.full((2000,), 0.3))
    assert abs(n.mean().item() - 3.0) < 0.2


RUNS = np.array([1, 1, 2, 2, 3, 1, 1])
MORE = [
    ("unique_consecutive", None, lambda T: list(T.unique_consecutive(
        T.tensor(RUNS), return_inverse=True, return_counts=True))),
    ("unique_consecutive_dim", None, lambda T: T.tensor(
        np.array([[1, 1, 2], [1, 1, 2], [0, 1, 2]])).unique_consecutive(dim=0)),
    ("histogram", None, lambda T: list(T.histogram(T.tensor(A), bins=4))),
    ("histogram_range_weight", None, lambda T: list(T.tensor(V).histogram(
        3, range=(-1.0, 1.0), weight=T.tensor(np.abs(V)), density=True))),
    ("frobenius_norm", [C3], lambda T, a: T.frobenius_norm(a, (1, 2))),
    ("matrix_rank_top", None, lambda T: T.linalg.matrix_rank(T.tensor(M))),
    ("empty_strided", None, lambda T: list(T.empty_strided((2, 3), (1, 2)).shape)),
    ("empty_permuted", None, lambda T: [list(T.empty_permuted((2, 3, 4), (0, 2, 1)).shape),
                                        list(T.empty_permuted((2, 3, 4), (0, 2, 1)).stride())]),
    ("asarray", None, lambda T: T.asarray([[1.0, 2.0]], dtype=T.float64)),
    ("frombuffer", None, lambda T: T.frombuffer(bytearray(np.arange(4, dtype=np.int32)),
                                                dtype=T.int32)),
    ("parameter_dict", None, lambda T: [(k, list(p.shape)) for k, p in T.nn.ParameterDict(
        {"b": T.nn.Parameter(T.ones(2)), "a": T.ones(3)}).named_parameters()]),
    ("exceptions", None, lambda T: [issubclass(T.OutOfMemoryError, RuntimeError),
                                    issubclass(T.AcceleratorError, RuntimeError)]),
]


@pytest.mark.parametrize("case", MORE, ids=[c[0] for c in MORE])
def test_more_same_as_pytorch(case):
    test_same_as_pytorch(case)


def test_asarray_and_frombuffer_share_memory():
    a = np.zeros(3)
    t = mt.asarray(a)
    a[0] = 5
    assert t[0].item() == 5 and mt.asarray(a, copy=True) is not t
    buf = bytearray(np.arange(3, dtype=np.float32).tobytes())
    f = mt.frombuffer(buf, dtype=mt.float32)
    assert f.tolist() == [0.0, 1.0, 2.0]
    assert mt.get_device_module("cuda") is mt.cuda
    assert mt.vmap is mt.func.vmap
    pd = mt.nn.ParameterDict({"w": mt.ones(2)})
    assert isinstance(pd["w"], mt.nn.Parameter) and "w" in pd and len(pd) == 1
    pd.update({"v": mt.zeros(1)})
    assert list(pd.keys()) == ["w", "v"] and pd.pop("w") is not None and len(pd) == 1
