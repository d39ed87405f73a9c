"""The APIs and module semantics that model programs rely on (issue 9, items 1-3), each checked
against PyTorch where it is installed and against finite differences in float64."""
import gc
import inspect
import subprocess
import sys

import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg
import mutograd.compat as compat
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as torch
from mutograd.errors import ShapeError
from mutograd.nn.functional.attention import scaled_dot_product_attention as sdpa

F = torch.nn.functional


@pytest.fixture(autouse=True)
def _torch_dialect():
    yield


def _real():
    t = pytest.importorskip("torch")
    return t


# ---- 1. the launcher and the import hook -----------------------------------------------------

IMPORTS = [
    ("import torch.nn as nn", "nn", "mutograd.compat.torch.nn"),
    ("from torch.nn import functional as F", "F", "mutograd.compat.torch.nn.functional"),
    ("from torch.utils.data.dataloader import DataLoader", "DataLoader.__module__",
     "mutograd.compat.torch.utils.data.dataloader"),
    ("from torch.utils.data.sampler import RandomSampler", "RandomSampler.__module__",
     "mutograd.data.sampler"),
    ("import torch.optim.lr_scheduler as s", "s", "mutograd.compat.torch.optim.lr_scheduler"),
    ("from torch.optim.swa_utils import AveragedModel", "AveragedModel.__module__",
     "mutograd.compat.torch.optim.swa_utils"),
]


@pytest.mark.parametrize("stmt,expr,module", IMPORTS, ids=[i[0] for i in IMPORTS])
def test_torch_imports_resolve_to_compat_submodules(stmt, expr, module):
    g = {}
    with compat.importing_as("torch"):
        exec(stmt, g)
    v = eval(expr, g)
    assert (v if isinstance(v, str) else v.__name__) == module


def test_paddle_imports_resolve_to_compat_submodules():
    g = {}
    with compat.importing_as("paddle"):
        exec("import paddle.nn.functional as F\nfrom paddle.io import DataLoader", g)
    assert g["F"].__name__ == "mutograd.compat.paddle.nn.functional"
    # Paddle's loader: mutograd's, yielding lists and callable (compat/paddle/io.py)
    assert g["DataLoader"].__module__ == "mutograd.compat.paddle.io"
    assert issubclass(g["DataLoader"], mg.data.DataLoader)


MISSING = [
    ("torch.xyz", "mutograd.compat.torch has no attribute 'xyz' (torch.xyz is not supported yet)"),
    ("torch.nn.functional.xyz", "mutograd.compat.torch.nn.functional has no attribute 'xyz' "
                                "(torch.nn.functional.xyz is not supported yet)"),
    ("paddle.nn.Xyz", "mutograd.compat.paddle.nn has no attribute 'Xyz' "
                      "(paddle.nn.Xyz is not supported yet)"),
]


@pytest.mark.parametrize("expr,message", MISSING, ids=[m[0] for m in MISSING])
def test_a_missing_name_fails_naming_it(expr, message):
    ns = {"torch": torch, "paddle": paddle}
    with pytest.raises(AttributeError) as e:
        eval(expr, ns)
    assert str(e.value) == message


def test_a_missing_submodule_fails_naming_it():
    with compat.importing_as("torch"):
        with pytest.raises(ModuleNotFoundError, match=r"torch\.xyz is not supported yet"):
            exec("import torch.xyz", {})


def test_install_makes_imports_resolve_until_undone():
    before = sys.modules.get("torch")
    undo = compat.install("torch")
    try:
        g = {}
        exec("import torch\nimport torch.nn.functional as F", g)
        assert g["torch"] is torch and g["F"] is F
    finally:
        undo()
    assert sys.modules.get("torch") is before


@pytest.fixture
def _torch_modules_restored():
    """Puts back ``torch*`` in sys.modules and the import finders, for a test that installs the
    alias and drops the function that would undo it."""
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    finders = list(sys.meta_path)
    yield
    for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
        del sys.modules[k]
    sys.modules.update(saved)
    sys.meta_path[:] = finders


def test_install_stays_when_its_undo_function_is_dropped(_torch_modules_restored):
    compat.install("torch")                 # the undo function is not kept
    gc.collect()
    g = {}
    exec("import torch.nn.functional as F", g)
    assert g["F"] is F
    assert sys.modules["torch"] is torch


def test_undo_twice_is_harmless():
    before = sys.modules.get("torch")
    undo = compat.install("torch")
    undo()
    undo()
    assert sys.modules.get("torch") is before


@pytest.mark.parametrize("install", ["c.install('torch')", "undo = c.install('torch')"],
                         ids=["dropped", "kept-until-exit"])
def test_install_exits_cleanly(install):
    code = (f"import gc, mutograd.compat as c\n{install}\ngc.collect()\n"
            "import torch.nn as nn\nprint(nn.__name__)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "mutograd.compat.torch.nn"
    assert r.stderr == ""          # no "Exception ignored" from a finaliser at shutdown


def test_launcher_passes_arguments_and_reports_errors(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys\nimport paddle\nprint(paddle.__name__, sys.argv[1:])\n")
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", "paddle", str(script),
                        "--x", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "mutograd.compat.paddle ['--x', '1']"
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", "jax", str(script)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "invalid choice: 'jax'" in r.stderr
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", "torch",
                        str(tmp_path / "none.py")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "no such script" in r.stderr


# ---- 2. module semantics ---------------------------------------------------------------------

class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(5, 3)
        self.head = torch.nn.Linear(3, 5, bias=False)
        self.head.weight = self.emb.weight           # tying: one parameter, two uses
        self.register_buffer("mask", torch.ones(5))
        self.register_buffer("cache", torch.zeros(2), persistent=False)
        self.act = lambda x: x * 2                   # a plain attribute
        self.n = 7

    def forward(self, idx):
        return self.head(self.act(self.emb(idx))) * self.mask


def test_weight_tying_one_parameter_gradients_from_both_uses():
    m = Tied()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["emb.weight"] and len(list(m.parameters())) == 1
    idx = torch.tensor([[0, 3], [3, 1]])
    m(idx).sum().backward()
    w = m.emb.weight._data.astype(np.float64)

    def f(w):
        e = w[idx._data]
        return (2 * e @ w.T).sum()
    want = numeric_grad(f, [w.copy()])[0]
    np.testing.assert_allclose(m.emb.weight.grad._data, want, rtol=1e-3, atol=1e-3)


def test_state_dict_round_trip_copies_in_place_and_keeps_ties():
    a, b = Tied(), Tied()
    sd = a.state_dict()
    # PyTorch's order: own parameters and buffers, then sub-modules'; 'cache' is not persistent
    assert list(sd) == ["mask", "emb.weight", "head.weight"]
    w = b.emb.weight
    v = w._version
    b.load_state_dict(sd)
    assert b.emb.weight is w and b.head.weight is w and w._version > v
    np.testing.assert_array_equal(w._data, a.emb.weight._data)
    assert b.n == 7 and callable(b.act)


def test_buffers_apply_modes_devices_and_counts():
    m = Tied()
    m.mask = torch.full((5,), 0.5)               # a plain tensor to a buffer name stays a buffer
    assert "mask" in dict(m.named_buffers()) and "mask" not in dict(m.named_parameters())
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Embedding", "Linear", "Tied"]
    assert [n for n, _ in m.named_modules()] == ["", "emb", "head"]
    assert m.eval() is m and not m.training and not m.head.training
    assert m.train() is m and m.emb.training
    assert m.to(torch.device("cpu")) is m and m.cpu() is m and m.to("cpu") is m
    n = m.emb.weight.numel()
    assert n == 15 and type(n) is int
    m(torch.tensor([1])).sum().backward()
    m.zero_grad()
    assert m.emb.weight.grad is None


def test_parameter_from_a_slice_of_another_parameter():
    big = torch.nn.Parameter(torch.arange(6.).view(2, 3))
    p = torch.nn.Parameter(big[0])
    assert isinstance(p, torch.nn.Parameter) and p.requires_grad and p.is_leaf
    (p * p).sum().backward()
    assert p.grad.tolist() == [0., 2., 4.] and big.grad is None


def test_named_parameters_registration_order_without_duplicates():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.b = torch.nn.Linear(2, 2)
            self.a = torch.nn.Linear(2, 2)
            self.again = self.b                          # the same module twice
            self.w = torch.nn.Parameter(torch.ones(1))
    names = [n for n, _ in M().named_parameters()]
    assert names == ["w", "b.weight", "b.bias", "a.weight", "a.bias"]


def test_paddle_layer_semantics():
    class L(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([3, 2])
            self.add_sublayer("fc", paddle.nn.Linear(2, 1))

        def forward(self, x):
            return self.fc(paddle.matmul(x, self.w))
    a, b = L(), L()
    assert [list(p.shape) for p in a.parameters()] == [[3, 2], [2, 1], [1]]
    a(paddle.ones([4, 3])).sum().backward()
    assert a.w.grad is not None
    a.clear_gradients()
    assert a.w.grad is None or float(a.w.grad.abs().sum()) == 0.0
    w = b.w
    b.set_state_dict(a.state_dict())
    assert b.w is w and np.array_equal(w._data, a.w._data)


# ---- 3. the APIs -----------------------------------------------------------------------------

def _f64(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


SDPA = [
    ("plain", {}),
    ("causal", {"is_causal": True}),
    ("bool-mask", {"attn_mask": "bool"}),
    ("float-mask", {"attn_mask": "float"}),
    ("scale", {"scale": 0.3}),
]


def _mask(kind):
    m = np.tril(np.ones((4, 5), bool), 1)
    return m if kind == "bool" else np.where(m, 0.0, -2.0)


def _sdpa_inputs(kw):
    q, k, v = _f64(2, 4, 3), _f64(2, 5, 3, seed=1), _f64(2, 5, 2, seed=2)
    if kw.get("is_causal"):
        k, v = k[:, :4], v[:, :4]
    return q, k, v


@pytest.mark.parametrize("name,kw", SDPA, ids=[s[0] for s in SDPA])
def test_scaled_dot_product_attention_values_and_gradients(name, kw):
    q, k, v = _sdpa_inputs(kw)
    mk = dict(kw)
    if "attn_mask" in kw:
        mk["attn_mask"] = mg.tensor(_mask(kw["attn_mask"]))
    ts = [mg.tensor(a, requires_grad=True) for a in (q, k, v)]
    out = sdpa(*ts, **mk)
    w = np.random.default_rng(3).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()

    def f(q, k, v):
        return (sdpa(mg.tensor(q), mg.tensor(k), mg.tensor(v), **mk)._data * w).sum()
    for t, g in zip(ts, numeric_grad(f, [q, k, v])):
        np.testing.assert_allclose(t.grad._data, g, rtol=1e-5, atol=1e-7)


@pytest.mark.torch
@pytest.mark.parametrize("name,kw", SDPA, ids=[s[0] for s in SDPA])
def test_scaled_dot_product_attention_matches_pytorch(name, kw):
    real = _real()
    q, k, v = _sdpa_inputs(kw)
    mk, rk = dict(kw), dict(kw)
    if "attn_mask" in kw:
        mk["attn_mask"] = mg.tensor(_mask(kw["attn_mask"]))
        rk["attn_mask"] = real.tensor(_mask(kw["attn_mask"]))
    out = sdpa(*(mg.tensor(a) for a in (q, k, v)), **mk)
    want = real.nn.functional.scaled_dot_product_attention(
        *(real.tensor(a) for a in (q, k, v)), **rk)
    np.testing.assert_allclose(out._data, want.numpy(), rtol=1e-10, atol=1e-12)


def test_scaled_dot_product_attention_float_mask_gets_its_gradient_and_may_broadcast():
    # a learned additive mask (a relative-position bias): its gradient is the scores' gradient
    # summed over what it was broadcast across; here it also has more dimensions than q @ k^T
    q, k, v = _f64(4, 3), _f64(5, 3, seed=1), _f64(5, 2, seed=2)
    m = _f64(2, 4, 5, seed=4)
    ts = [mg.tensor(a, requires_grad=True) for a in (q, k, v, m)]
    out = sdpa(*ts[:3], attn_mask=ts[3], scale=0.7)
    assert out.shape == [2, 4, 2]
    out.sum().backward()

    def f(q, k, v, m):
        return sdpa(*(mg.tensor(a) for a in (q, k, v)), attn_mask=mg.tensor(m),
                    scale=0.7)._data.sum()
    for t, g in zip(ts, numeric_grad(f, [q, k, v, m])):
        np.testing.assert_allclose(t.grad._data, g, rtol=1e-5, atol=1e-7)


@pytest.mark.torch
def test_scaled_dot_product_attention_shared_float_mask_gradient_matches_pytorch():
    # PyTorch refuses a mask larger than the scores; compare a batch sharing one mask
    real = _real()
    q, k, v, m = _f64(2, 4, 3), _f64(2, 5, 3, seed=1), _f64(2, 5, 2, seed=2), _f64(4, 5, seed=4)
    ts = [mg.tensor(a, requires_grad=True) for a in (q, k, v, m)]
    rs = [real.tensor(a, requires_grad=True) for a in (q, k, v, m)]
    sdpa(*ts[:3], attn_mask=ts[3], scale=0.7).sum().backward()
    real.nn.functional.scaled_dot_product_attention(*rs[:3], attn_mask=rs[3],
                                                    scale=0.7).sum().backward()
    for t, r in zip(ts, rs):
        np.testing.assert_allclose(t.grad._data, r.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_scaled_dot_product_attention_dropout_and_errors():
    q = mg.ones([2, 3, 4])
    torch.manual_seed(0)
    out = sdpa(q, q, mg.tensor(_f64(2, 3, 4)), dropout_p=0.5)
    torch.manual_seed(0)
    again = sdpa(q, q, mg.tensor(_f64(2, 3, 4)), dropout_p=0.5)
    assert np.array_equal(out._data, again._data)
    assert not np.allclose(out._data, sdpa(q, q, mg.tensor(_f64(2, 3, 4)))._data)
    with pytest.raises(ValueError, match="exclusive"):
        sdpa(q, q, q, attn_mask=mg.ones([3, 3], dtype="bool"), is_causal=True)
    with pytest.raises(ShapeError, match="embedding sizes differ"):
        sdpa(q, mg.ones([2, 3, 5]), q)


@pytest.mark.torch
@pytest.mark.parametrize("lead", [(6,), (2, 3), (2, 1, 3)], ids=["1d", "2d", "3d"])
def test_cross_entropy_class_indices_any_leading_shape_with_ignore_index(lead):
    real = _real()
    c = 4
    logits = _f64(*lead, c)
    target = np.random.default_rng(1).integers(0, c, lead)
    target.flat[0] = -1
    # PyTorch puts classes at dim 1: move the class axis there for more than one leading dim
    x = logits if len(lead) == 1 else np.moveaxis(logits, -1, 1)
    t = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(t, mg.tensor(target), ignore_index=-1)
    loss.backward()
    rt = real.tensor(x, requires_grad=True)
    want = real.nn.functional.cross_entropy(rt, real.tensor(target), ignore_index=-1)
    want.backward()
    assert abs(float(loss) - want.item()) < 1e-12
    np.testing.assert_allclose(t.grad._data, rt.grad.numpy(), atol=1e-12)


@pytest.mark.torch
def test_layer_norm_embedding_tril_triu_match_pytorch():
    real = _real()
    x, w, b = _f64(2, 3, 5), _f64(5, seed=1), _f64(5, seed=2)
    ts = [mg.tensor(a, requires_grad=True) for a in (x, w, b)]
    rs = [real.tensor(a, requires_grad=True) for a in (x, w, b)]
    out = F.layer_norm(ts[0], (5,), ts[1], ts[2])
    want = real.nn.functional.layer_norm(rs[0], (5,), rs[1], rs[2])
    g = _f64(2, 3, 5, seed=3)
    (out * mg.tensor(g)).sum().backward()
    (want * real.tensor(g)).sum().backward()
    for t, r in zip(ts, rs):
        np.testing.assert_allclose(t.grad._data, r.grad.numpy(), atol=1e-10)
    table = mg.tensor(_f64(6, 3), requires_grad=True)
    rtable = real.tensor(table._data, requires_grad=True)
    idx = np.array([[0, 5, 5], [2, 0, 1]])
    F.embedding(mg.tensor(idx), table).sum().backward()
    real.nn.functional.embedding(real.tensor(idx), rtable).sum().backward()
    np.testing.assert_array_equal(table.grad._data, rtable.grad.numpy())
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(torch.tril(mg.tensor(x), k)._data,
                                      real.tril(real.tensor(x), k).numpy())
        np.testing.assert_array_equal(torch.triu(mg.tensor(x), k)._data,
                                      real.triu(real.tensor(x), k).numpy())


def test_indexing_a_parameter_by_a_2d_integer_tensor_accumulates_repeats():
    w = torch.nn.Parameter(torch.tensor(_f64(4, 2)))
    idx = torch.tensor([[0, 3], [3, 3]])
    out = w[idx]
    assert out.shape == (2, 2, 2)
    out.sum().backward()
    assert w.grad[:, 0].tolist() == [1., 0., 0., 3.]


def test_boolean_mask_assignment_under_no_grad_and_its_leaf_error():
    w = torch.nn.Parameter(torch.tensor([-1., 2., -3.]))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w[w < 0] = 0.0
    with torch.no_grad():
        w[w < 0] = 0.0
    assert w.tolist() == [0., 2., 0.] and w.requires_grad


def test_small_tensor_conveniences():
    t = torch.arange(12.).view(3, 4)
    assert len(t) == 3 and float(t[1, 2]) == 6.0 and type(float(t[1, 2])) is float
    assert t.tolist()[2] == [8., 9., 10., 11.] and t.size(-1) == 4 and t.size() == (3, 4)
    assert t.dim() == 2 and torch.ones(1, 4).expand(5, -1).shape == (5, 4)
    assert [p.shape for p in t.split(2, dim=1)] == [(3, 2), (3, 2)]
    assert [p.shape for p in t.split(2, dim=0)] == [(2, 4), (1, 4)]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(12)
    assert t.t().reshape(12).shape == (12,)


@pytest.mark.torch
def test_topk_sort_argsort_match_pytorch_with_gradients():
    real = _real()
    x = _f64(3, 6)
    t, r = mg.tensor(x, requires_grad=True), real.tensor(x, requires_grad=True)
    for fn in (lambda m, a: m.topk(a, 3, dim=1), lambda m, a: m.topk(a, 2, dim=0, largest=False),
               lambda m, a: m.sort(a, dim=1, descending=True), lambda m, a: m.sort(a, dim=0)):
        v, i = fn(torch, t)
        rv, ri = fn(real, r)
        np.testing.assert_array_equal(i._data, ri.numpy())
        np.testing.assert_array_equal(v._data, rv.detach().numpy())
        (v * v).sum().backward()
        (rv * rv).sum().backward()
        np.testing.assert_allclose(t.grad._data, r.grad.numpy())
    np.testing.assert_array_equal(torch.argsort(t, dim=1, descending=True)._data,
                                  real.argsort(r, dim=1, descending=True).numpy())
    assert t.argsort(dim=0).dtype == torch.long
    with pytest.raises(ShapeError, match="k \\(7\\) is out of range"):
        torch.topk(t, 7)


def test_multinomial_randperm_manual_seed():
    probs = torch.tensor([[0.0, 0.2, 0.8], [0.5, 0.0, 0.5]])
    torch.manual_seed(0)
    a = torch.multinomial(probs, 2)
    torch.manual_seed(0)
    assert torch.multinomial(probs, 2).tolist() == a.tolist()
    assert a.dtype == torch.long and a.shape == (2, 2)
    assert sorted(a[0].tolist()) == [1, 2] and sorted(a[1].tolist()) == [0, 2]
    draws = torch.multinomial(torch.tensor([0.1, 0.9]), 4000, replacement=True)
    assert 0.87 < draws.float().mean().item() < 0.93
    errors = [((probs, 4), "without replacement"),
              ((torch.tensor([1.0, 0.0, 0.0]), 2), "not enough non-negative category"),
              ((torch.tensor([1.0, -1.0]), 1), "element < 0"),
              ((torch.tensor([0.0, 0.0]), 1), "sum of probabilities"),
              ((torch.ones(2, 2, 2), 1), "1 or 2 dim")]
    for args, msg in errors:
        with pytest.raises((ValueError, ShapeError), match=msg):
            torch.multinomial(*args)
    torch.manual_seed(5)
    p = torch.randperm(10)
    assert sorted(p.tolist()) == list(range(10)) and p.dtype == torch.long
    torch.manual_seed(5)
    assert torch.randperm(10).tolist() == p.tolist()


def test_inference_mode_and_no_grad_as_context_and_decorator():
    w = torch.ones(2, requires_grad=True)

    @torch.inference_mode()
    def f(x):
        return x * 2

    @torch.no_grad()
    def g(x):
        return x * 2
    with torch.inference_mode():
        assert not (w * 2).requires_grad
    assert not f(w).requires_grad and not g(w).requires_grad and (w * 2).requires_grad
    assert f.__name__ == "f"


def test_clip_grad_norm_returns_the_total_norm_before_clipping():
    a = torch.nn.Parameter(torch.tensor([3.0, 0.0]))
    b = torch.nn.Parameter(torch.tensor([[4.0]]))
    ((a * a).sum() / 2 + (b * b).sum() / 2).backward()
    norm = torch.nn.utils.clip_grad_norm_([a, b], 1.0)
    assert abs(float(norm) - 5.0) < 1e-6
    assert np.allclose(a.grad.tolist(), [0.6, 0.0], atol=1e-5)


@pytest.mark.torch
def test_adamw_signature_and_param_groups_read_and_written_while_training():
    real = _real()
    assert list(inspect.signature(torch.optim.AdamW).parameters) == list(
        inspect.signature(real.optim.AdamW).parameters)
    x = _f64(3, 2)
    results = []
    for ns in (torch, real):
        w = ns.nn.Parameter(ns.tensor(x))
        b = ns.nn.Parameter(ns.tensor(x[0]))
        opt = ns.optim.AdamW([{"params": [w], "weight_decay": 0.5},
                              {"params": [b], "weight_decay": 0.0, "lr": 0.05}], lr=0.1)
        assert opt.param_groups[1]["lr"] == 0.05 and opt.param_groups[0]["betas"] == (0.9, 0.999)
        for step in range(5):
            for g in opt.param_groups:
                g["lr"] = g["lr"] * 0.5               # a schedule written into the groups
            ((w * w).sum() + (b * 3).sum()).backward()
            opt.step()
            opt.zero_grad()
        results.append([np.array(w.detach().numpy() if ns is real else w._data),
                        np.array(b.detach().numpy() if ns is real else b._data)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10)
    with pytest.raises(ValueError, match="capturable"):
        torch.optim.AdamW([torch.nn.Parameter(torch.ones(1))], capturable=True)


COLLATE = [
    ("tuple", [(np.float32(1.0), 2), (np.float32(3.0), 4)]),
    ("dict", [{"x": [1.0, 2.0], "y": 0}, {"x": [3.0, 4.0], "y": 1}]),
    ("float", [(1.5,), (2.5,)]),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,samples", COLLATE, ids=[c[0] for c in COLLATE])
def test_default_collate_matches_pytorch(name, samples):
    real = _real()
    from torch.utils.data import default_collate as real_collate

    def norm(v):
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, [norm(x) for x in v])
        return (str(v.dtype).split(".")[-1], np.asarray(v.tolist()).tolist())
    assert real is not None
    got = torch.utils.data.default_collate(samples)
    assert norm(got) == norm(real_collate(samples))


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i}


def test_dataloader_shuffle_sampler_drop_last_and_lazy_random_sampler():
    ds = Squares()
    D = torch.utils.data
    loader = D.DataLoader(ds, batch_size=4, drop_last=True, num_workers=0, pin_memory=True)
    batches = list(loader)
    assert len(loader) == 2 and [b["y"].tolist() for b in batches] == [[0, 1, 4, 9],
                                                                        [16, 25, 36, 49]]
    torch.manual_seed(0)
    shuffled = [i for b in D.DataLoader(ds, batch_size=3, shuffle=True) for i in b["y"].tolist()]
    assert sorted(shuffled) == [i * i for i in range(10)] and shuffled != sorted(shuffled)
    sampler = D.RandomSampler(ds, replacement=True, num_samples=10 ** 15)
    assert len(sampler) == 10 ** 15
    it = iter(D.DataLoader(ds, batch_size=5, sampler=sampler))
    assert next(it)["x"].shape == (5, 1)
    assert len(D.DataLoader(ds, batch_size=5, sampler=sampler)) == 2 * 10 ** 14
    order = [i for b in D.DataLoader(ds, batch_size=4, sampler=D.SequentialSampler(ds))
             for i in b["y"].tolist()]
    assert order == [i * i for i in range(10)]
    bs = D.BatchSampler(D.SequentialSampler(range(5)), 2, drop_last=True)
    assert [b["y"].tolist() for b in D.DataLoader(ds, batch_sampler=bs)] == [[0, 1], [4, 9]]
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        D.DataLoader(ds, sampler=sampler, shuffle=True)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        D.RandomSampler(ds, num_samples=0)


@pytest.mark.torch
def test_in_place_dropout_after_gelu_keeps_the_gradient():
    """A common block: GELU, then dropout(inplace=True). GELU's backward needs only its input,
    so writing into its output is allowed (as in PyTorch)."""
    real = _real()
    x = _f64(4, 6)
    t, r = mg.tensor(x, requires_grad=True), real.tensor(x, requires_grad=True)
    y = F.gelu(t * 1.0)
    y.mul_(2.0)
    ry = real.nn.functional.gelu(r * 1.0)
    ry.mul_(2.0)
    y.sum().backward()
    ry.sum().backward()
    np.testing.assert_allclose(t.grad._data, r.grad.numpy(), rtol=1e-12)


def test_training_script_switches_and_constants():
    model = torch.nn.Linear(2, 2)
    assert torch.compile(model) is model and torch.compile(mode="max-autotune")(model) is model
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    assert not torch.backends.mps.is_available() and not torch.cuda.is_available()
    torch.set_float32_matmul_precision("high")
    assert torch.get_float32_matmul_precision() == "high"
    torch.set_float32_matmul_precision("highest")
    with pytest.raises(ValueError, match="must be one of"):
        torch.set_float32_matmul_precision("low")
    assert torch.inf == float("inf") and np.isnan(torch.nan) and abs(torch.pi - 3.14159) < 1e-5


@pytest.mark.torch
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0)])
def test_normalize_matches_pytorch_with_gradient(p, dim):
    real = _real()
    x = _f64(3, 4)
    x[0] = 0.0           # a zero row/column: eps keeps it finite
    t, r = mg.tensor(x, requires_grad=True), real.tensor(x, requires_grad=True)
    g = _f64(3, 4, seed=7)
    out = F.normalize(t, p=p, dim=dim)
    want = real.nn.functional.normalize(r, p=p, dim=dim)
    np.testing.assert_allclose(out._data, want.detach().numpy(), atol=1e-12)
    (out * mg.tensor(g)).sum().backward()
    (want * real.tensor(g)).sum().backward()
    np.testing.assert_allclose(t.grad._data, r.grad.numpy(), atol=1e-9)


def test_samplers_and_multinomial_take_a_generator_or_refuse():
    ds = list(range(6))
    a = list(torch.utils.data.RandomSampler(ds, generator=np.random.default_rng(4)))
    b = list(torch.utils.data.RandomSampler(ds, generator=np.random.default_rng(4)))
    assert a == b and sorted(a) == ds
    c = list(torch.utils.data.RandomSampler(ds, generator=torch.Generator().manual_seed(4)))
    d = list(torch.utils.data.RandomSampler(ds, generator=torch.Generator().manual_seed(4)))
    assert c == d and sorted(c) == ds
    with pytest.raises(TypeError, match="generator must be a mutograd Generator"):
        list(torch.utils.data.RandomSampler(ds, generator=object()))
    p = torch.tensor([0.5, 0.5])
    x = torch.multinomial(p, 3, replacement=True, generator=np.random.default_rng(1))
    y = torch.multinomial(p, 3, replacement=True, generator=np.random.default_rng(1))
    assert x.tolist() == y.tolist()
    with pytest.raises(TypeError, match="or a numpy.random.Generator, got str"):
        torch.multinomial(p, 1, generator="seed")


# ---- torch.amp: GradScaler and autocast ------------------------------------------------------

def _scaled_step(scaler, w, opt, loss_fn, clip=None):
    opt.zero_grad()
    scaler.scale(loss_fn(w)).backward()
    scaler.unscale_(opt)
    norm = torch.nn.utils.clip_grad_norm_([w], clip) if clip else None
    scaler.step(opt)
    scaler.update()
    return norm


def test_grad_scaler_steps_on_unscaled_gradients_and_skips_inf():
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    ref = torch.tensor([1.0, -2.0], requires_grad=True)
    opt, ref_opt = torch.optim.SGD([w], lr=0.1), torch.optim.SGD([ref], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=2)
    w.grad = None
    scaler.scale((w * w).sum()).backward()
    assert w.grad.tolist() == [512.0, -1024.0]          # scaled
    scaler.step(opt)                                     # unscales, then steps
    scaler.update()
    (ref * ref).sum().backward()
    ref_opt.step()
    assert w.tolist() == ref.tolist() and scaler.get_scale() == 256.0
    _scaled_step(scaler, w, opt, lambda w: (w * w).sum(), clip=1.0)
    assert scaler.get_scale() == 512.0                   # two clean steps: grown
    before = w.tolist()
    _scaled_step(scaler, w, opt, lambda w: (w * w).sum() * float("inf"))
    assert w.tolist() == before and scaler.get_scale() == 256.0   # skipped, backed off
    opt.zero_grad()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.update()
    state = scaler.state_dict()
    other = torch.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.get_scale() == scaler.get_scale() and other.state_dict() == state
    a, b = scaler.scale([torch.tensor(1.0), torch.tensor(2.0)])
    assert (a.item(), b.item()) == (256.0, 512.0)


def test_disabled_grad_scaler_and_autocast_change_nothing():
    import warnings
    with compat.importing_as("torch"):       # an import some scripts make: the compat class
        from torch.cuda.amp import GradScaler
    assert GradScaler is torch.cuda.amp.GradScaler
    w = torch.tensor([3.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = torch.cuda.amp.GradScaler()             # no GPU here: disabled, with a warning
        ctx = torch.amp.autocast(device_type="cuda", dtype=torch.float16)
    assert not scaler.is_enabled() and "not available" in str(caught[0].message)
    loss = (w * w).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    with ctx, torch.autocast("cpu", enabled=False):
        _scaled_step(scaler, w, opt, lambda w: (w * w).sum())
    assert w.tolist() == [0.0] and scaler.state_dict() == {}
    with torch.amp.autocast("cpu", dtype=torch.float32):     # float32 as asked: nothing to do
        pass
    assert torch.amp.autocast("cpu", enabled=False)(lambda: 7)() == 7
    with pytest.raises(TypeError, match="computes in the tensors' own dtypes"):
        torch.amp.autocast("cpu", dtype=torch.float16)
    with pytest.raises(TypeError, match="no bfloat16"):
        torch.autocast("cpu")
    with pytest.raises(AttributeError, match="torch.bfloat16 is not supported.*float32"):
        torch.bfloat16


def test_finfo_and_iinfo():
    assert torch.finfo(torch.float32).min == np.finfo(np.float32).min
    assert torch.finfo().eps == np.finfo(np.float32).eps and torch.finfo(torch.float16).bits == 16
    assert torch.iinfo(torch.int64).max == 2 ** 63 - 1 and torch.iinfo(torch.uint8).min == 0
