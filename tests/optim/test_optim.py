"""Optimizers and schedulers: in place (exact allocation counts), step-for-step equal to PyTorch,
state dicts."""
import math

import numpy as np
import pytest
from tests.helpers import REFERENCES
from tests.nn_helpers import exact_counting

import mutograd as mg
from mutograd import nn, optim
from mutograd.optim import lr_scheduler as sched

OPTIMS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "eps": 1e-6}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "momentum": 0.5, "centered": True,
                 "weight_decay": 0.05}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1,
                 "initial_accumulator_value": 0.5}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True,
               "maximize": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "betas": (0.5, 0.6), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1,
              "maximize": True}),
    ("Rprop", {"lr": 0.05}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("Adafactor", {"lr": 0.05}),
    ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-20, 1e-2), "d": 2.0,
                   "weight_decay": 0.1, "maximize": True}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(OPTIMS)]


def _grad(p, s):
    return np.sin(3 * p) + 0.1 * s


@pytest.mark.torch
@pytest.mark.parametrize("name,kw", OPTIMS, ids=IDS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matches_pytorch_step_for_step(name, kw, dtype):
    torch = pytest.importorskip("torch")
    w0 = [np.random.default_rng(0).standard_normal(s).astype(dtype) for s in ((3, 4), (5,))]
    ours = [nn.Parameter(mg.tensor(w)) for w in w0]
    theirs = [torch.nn.Parameter(torch.tensor(w)) for w in w0]
    opt = getattr(optim, name)(ours, **kw)
    ref = getattr(torch.optim, name)(theirs, **kw)
    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype == "float64" else {"rtol": 2e-5,
                                                                         "atol": 2e-6}
    for s in range(15):
        for p, q in zip(ours, theirs):
            g = _grad(q.detach().numpy(), s)
            p.grad = mg.tensor(g)
            q.grad = torch.tensor(g)
        opt.step()
        ref.step()
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(p.numpy(), q.detach().numpy(), **tol,
                                       err_msg=f"step {s}")


@pytest.mark.parametrize("name,kw", OPTIMS, ids=IDS)
def test_steps_after_the_first_allocate_nothing_and_keep_storage(name, kw):
    ps = [nn.Parameter(mg.randn([16, 8])), nn.Parameter(mg.randn([8]))]
    opt = getattr(optim, name)(ps, **kw)
    for p in ps:
        p.grad = mg.randn(list(p.shape))
    opt.step()       # creates the state and the workspace
    ptrs = [p.data_ptr() for p in ps]
    versions = [p._version for p in ps]
    with exact_counting() as c:
        for _ in range(5):
            opt.step()
    assert c["allocations"] == 0 and c["bytes"] == 0
    assert [p.data_ptr() for p in ps] == ptrs
    assert [p._version for p in ps] == [v + 5 for v in versions]
    # the workspace: bounded by the largest parameter
    assert opt._ws.numel() == opt.n_workspace * 16 * 8


@pytest.mark.parametrize("name,kw", OPTIMS[:8:3], ids=IDS[:8:3])
def test_out_of_place_mode_gives_the_same_numbers_with_new_storage(name, kw):
    def run(inplace):
        mg.seed(0)
        p = nn.Parameter(mg.randn([6, 5]))
        opt = getattr(optim, name)([p], inplace=inplace, **kw)
        ptr, allocs = None, []
        for s in range(4):
            p.grad = mg.tensor(_grad(p.numpy(), s).astype(np.float32))
            ptr = p.data_ptr()
            with exact_counting() as c:
                opt.step()
            allocs.append(c["allocations"])
        return p.numpy().copy(), p.data_ptr() != ptr, allocs[-1]

    a, moved_a, n_a = run(True)
    b, moved_b, n_b = run(False)
    np.testing.assert_array_equal(a, b)
    assert not moved_a and moved_b and n_a == 0 and n_b >= 1


def test_optimizer_step_on_a_model_and_zero_grad():
    net = nn.Linear(3, 1)
    opt = optim.SGD(net.parameters(), lr=0.1)
    net(mg.randn([4, 3])).sum().backward()
    w = net.weight.numpy().copy()
    g = net.weight.grad.numpy().copy()
    opt.step()
    np.testing.assert_allclose(net.weight.numpy(), w - 0.1 * g, rtol=1e-6)
    opt.zero_grad(set_to_none=False)
    assert not net.weight.grad.numpy().any()
    opt.zero_grad()
    assert net.weight.grad is None
    opt.step()     # parameters without gradients are skipped


def test_closure_is_evaluated_with_grad_enabled():
    p = nn.Parameter(mg.tensor([2.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with mg.no_grad():
        loss = opt.step(closure)
    assert float(loss) == 4.0 and p.tolist() == [1.0]


def test_param_groups_have_their_own_hyper_parameters():
    a, b = nn.Parameter(mg.ones([1])), nn.Parameter(mg.ones([1]))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    a.grad, b.grad = mg.ones([1]), mg.ones([1])
    opt.step()
    assert a.tolist() == [pytest.approx(0.9)] and b.tolist() == [0.5]


OPT_ERRORS = [
    (lambda: optim.SGD([], lr=0.1), ValueError, "empty parameter list"),
    (lambda: optim.SGD(mg.zeros([2]), lr=0.1), TypeError, "iterable of Tensors"),
    (lambda: optim.SGD([nn.Parameter(mg.ones([1]))], lr=-1), ValueError, "Invalid learning rate"),
    (lambda: optim.SGD([nn.Parameter(mg.ones([1]))], nesterov=True), ValueError,
     "Nesterov momentum requires"),
    (lambda: optim.Adam([nn.Parameter(mg.ones([1]))], betas=(0.9, 1.0)), ValueError,
     "Invalid beta parameter at index 1"),
    (lambda: optim.SGD([mg.ones([1], requires_grad=True) * 2]), ValueError, "non-leaf"),
]


@pytest.mark.parametrize("fn,cls,msg", OPT_ERRORS, ids=[str(i) for i in range(len(OPT_ERRORS))])
def test_bad_arguments_raise(fn, cls, msg):
    with pytest.raises(cls, match=msg):
        fn()


def test_state_dict_round_trip_continues_identically(tmp_path):
    def make():
        mg.seed(1)
        net = nn.Linear(4, 3)
        return net, optim.Adam(net.parameters(), lr=0.01, amsgrad=True)

    def train(net, opt, steps, seed):
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            opt.zero_grad()
            net(mg.tensor(rng.standard_normal((5, 4)).astype(np.float32))).square().sum()\
                .backward()
            opt.step()

    net, opt = make()
    train(net, opt, 3, 0)
    mg.save({"model": net.state_dict(), "opt": opt.state_dict()}, tmp_path / "ck")
    train(net, opt, 3, 1)
    net2, opt2 = make()
    ck = mg.load(tmp_path / "ck")
    net2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["opt"])
    assert opt2.state[net2.weight]["step"] == 3
    train(net2, opt2, 3, 1)
    np.testing.assert_array_equal(net.weight.numpy(), net2.weight.numpy())


def test_load_state_dict_refuses_a_mismatch():
    a = optim.SGD([nn.Parameter(mg.ones([2]))], lr=0.1)
    b = optim.SGD([nn.Parameter(mg.ones([2])), nn.Parameter(mg.ones([2]))], lr=0.1)
    with pytest.raises(optim.OptimizerStateError, match="doesn't match the size"):
        a.load_state_dict(b.state_dict())
    with pytest.raises(optim.OptimizerStateError, match="2 parameter groups"):
        a.load_state_dict({"state": {}, "param_groups": [{"params": [0]}, {"params": [1]}]})


# ---- schedulers ----------------------------------------------------------------------------
SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 6], "gamma": 0.3}),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.01}),
    ("LambdaLR", {"lr_lambda": lambda e: 0.9 ** e}),
    ("LinearLR", {"start_factor": 0.25, "total_iters": 4}),
    ("ExponentialLR", {"gamma": 0.8}),
]


@pytest.mark.torch
@pytest.mark.parametrize("name,kw", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_matches_pytorch(name, kw):
    torch = pytest.importorskip("torch")
    opt = optim.SGD([nn.Parameter(mg.ones([1]))], lr=0.1)
    ref_opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    s = getattr(sched, name)(opt, **kw)
    r = getattr(torch.optim.lr_scheduler, name)(ref_opt, **kw)
    for _ in range(10):
        assert s.get_last_lr() == pytest.approx(r.get_last_lr(), rel=1e-9, abs=1e-12)
        assert opt.param_groups[0]["lr"] == pytest.approx(ref_opt.param_groups[0]["lr"])
        opt.step()
        ref_opt.step()
        s.step()
        r.step()


@pytest.mark.torch
@pytest.mark.parametrize("kw", [{}, {"mode": "max", "factor": 0.5, "patience": 1, "cooldown": 2,
                                  "threshold_mode": "abs", "threshold": 0.05, "min_lr": 0.02}])
def test_reduce_lr_on_plateau_matches_pytorch(kw):
    torch = pytest.importorskip("torch")
    opt = optim.SGD([nn.Parameter(mg.ones([1]))], lr=0.1)
    ref_opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    kw = dict(kw, patience=kw.get("patience", 2))
    s = sched.ReduceLROnPlateau(opt, **kw)
    r = torch.optim.lr_scheduler.ReduceLROnPlateau(ref_opt, **kw)
    metrics = [1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 0.5, 0.6, 0.6, 0.7, 0.8, 0.8, 0.8, 0.2, 0.2]
    for m in metrics:
        s.step(m)
        r.step(m)
        assert s.get_last_lr() == pytest.approx(r.get_last_lr(), rel=1e-12)
    state = s.state_dict()
    again = sched.ReduceLROnPlateau(opt)
    again.load_state_dict(state)
    assert again.best == s.best and again.num_bad_epochs == s.num_bad_epochs
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        sched.ReduceLROnPlateau(opt, factor=2.0)


def test_linear_warmup_then_cosine():
    opt = optim.SGD([nn.Parameter(mg.ones([1]))], lr=1.0)
    after = sched.CosineAnnealingLR(opt, T_max=4)
    s = sched.LinearWarmup(opt, warmup_steps=4, start_lr=0.0, after=after)
    lrs = []
    for _ in range(9):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step()
    expected = [0.0, 0.25, 0.5, 0.75] + [(1 + math.cos(math.pi * e / 4)) / 2 for e in range(5)]
    assert lrs == pytest.approx(expected)
    state = s.state_dict()
    assert state["last_epoch"] == 9 and "optimizer" not in state


def test_scheduler_state_dict_round_trip():
    opt = optim.SGD([nn.Parameter(mg.ones([1]))], lr=1.0)
    s = sched.StepLR(opt, 2, 0.5)
    for _ in range(5):
        opt.step()
        s.step()
    opt2 = optim.SGD([nn.Parameter(mg.ones([1]))], lr=1.0)
    s2 = sched.StepLR(opt2, 2, 0.5)
    # as in PyTorch, the rates live in the optimizer: restore both
    opt2.load_state_dict(opt.state_dict())
    s2.load_state_dict(s.state_dict())
    s.step()
    s2.step()
    assert s2.get_last_lr() == s.get_last_lr() == [0.125]


_PADDLE_OPTIM = REFERENCES / "paddle_optim_reference.npz"


def test_paddle_optimizers_match_recorded_paddle_step_for_step():
    """paddle.optimizer.Lamb and ASGD against Paddle 3.3.1's own steps (recorded by
    tests/references/paddle_optim_reference.py), float64: Paddle's float32 hyper-parameters and
    running powers included."""
    from tests.references import paddle_optim_reference as rec
    import mutograd.compat.paddle as paddle
    ref = np.load(_PADDLE_OPTIM, allow_pickle=False)
    assert str(ref["paddle_version"]) == "3.3.1"
    for name, kw in rec.CASES.items():
        ps = [nn.Parameter(mg.tensor(w)) for w in rec.initial()]
        opt = getattr(paddle.optimizer, name.split("-")[0])(parameters=ps, **kw)
        for s in range(rec.STEPS):
            for p in ps:
                p.grad = mg.tensor(np.sin(3 * p.numpy()) + 0.1 * s)
            opt.step()
            opt.clear_grad()
            for i, p in enumerate(ps):
                np.testing.assert_allclose(p.numpy(), ref[f"{name}/{s}/{i}"], rtol=1e-13,
                                           atol=1e-15, err_msg=f"{name} step {s}")


def test_lamb_excludes_parameters_from_weight_decay():
    ps = [nn.Parameter(mg.ones([3])), nn.Parameter(mg.ones([3]))]
    ps[1].name = "bias"
    opt = optim.Lamb(ps, lr=0.1, weight_decay=0.5,
                     exclude_from_weight_decay_fn=lambda p: getattr(p, "name", "") == "bias")
    for p in ps:
        p.grad = mg.zeros([3])
    opt.step()
    # no gradient: only the decay moves the first; the excluded one stays
    assert ps[0].tolist() == pytest.approx([0.9] * 3) and ps[1].tolist() == [1.0] * 3


@pytest.mark.torch
@pytest.mark.parametrize("in_bfloat16", [False, True])
@pytest.mark.parametrize("kw", [{}, {"nesterov": False, "weight_decay": 0.0, "momentum": 0.9},
                                {"adjust_lr_fn": "match_rms_adamw", "lr": 0.02}])
def test_muon_matches_pytorch(kw, in_bfloat16, monkeypatch):
    """PyTorch orthogonalises in bfloat16, mutograd in the parameter's dtype. With PyTorch made to
    run its own iteration in float32 the steps agree to float32 rounding; as PyTorch ships it,
    each step agrees to within 10% of the step's size (bfloat16 through five iterations)."""
    torch = pytest.importorskip("torch")
    if not in_bfloat16:
        monkeypatch.setattr(torch.Tensor, "bfloat16", lambda self: self.float().clone())
    w0 = [np.random.default_rng(1).standard_normal(s).astype("float32")
          for s in ((6, 4), (3, 5))]
    ours = [nn.Parameter(mg.tensor(w)) for w in w0]
    theirs = [torch.nn.Parameter(torch.tensor(w)) for w in w0]
    opt, ref = optim.Muon(ours, **kw), torch.optim.Muon(theirs, **kw)
    for s in range(5):
        before = [q.detach().numpy().copy() for q in theirs]
        for p, q in zip(ours, theirs):
            g = _grad(q.detach().numpy(), s)
            p.grad, q.grad = mg.tensor(g), torch.tensor(g)
            with mg.no_grad():
                p.copy_(mg.tensor(q.detach().numpy()))     # compare one step at a time
        opt.step()
        ref.step()
        for p, q, b in zip(ours, theirs, before):
            step = np.abs(q.detach().numpy() - b).max()
            err = np.abs(p.numpy() - q.detach().numpy()).max()
            assert err <= (0.1 if in_bfloat16 else 1e-4) * step + 1e-7


def test_muon_refuses_parameters_that_are_not_matrices():
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        optim.Muon([nn.Parameter(mg.ones([3]))])


def test_adafactor_keeps_factored_state_through_a_state_dict():
    ps = [nn.Parameter(mg.randn([4, 3])), nn.Parameter(mg.randn([2, 4, 3])),
          nn.Parameter(mg.randn([5]))]
    opt = optim.Adafactor(ps, lr=0.05)
    for p in ps:
        p.grad = mg.randn(list(p.shape))
    opt.step()
    st = opt.state_dict()["state"]
    assert [list(st[i]["row_var"].shape) for i in (0, 1)] == [[4, 1], [2, 4, 1]]
    assert [list(st[i]["col_var"].shape) for i in (0, 1)] == [[1, 3], [2, 1, 3]]
    assert list(st[2]["variance"].shape) == [5] and st[0]["step"] == 1
    fresh = optim.Adafactor(ps, lr=0.05)
    fresh.load_state_dict(opt.state_dict())
    snapshot = [p.numpy().copy() for p in ps]
    opt.step()
    after = [p.numpy().copy() for p in ps]
    for p, w in zip(ps, snapshot):
        with mg.no_grad():
            p.copy_(mg.tensor(w))
    fresh.step()
    for p, w in zip(ps, after):
        np.testing.assert_array_equal(p.numpy(), w)
    bad = opt.state_dict()
    bad["state"][0]["row_var"] = mg.zeros([4, 3])
    with pytest.raises(optim.OptimizerStateError, match=r"must have shape \[4, 1\]"):
        fresh.load_state_dict(bad)


def test_sparse_adam_is_refused_with_the_reason():
    import mutograd.compat.torch as torch
    with pytest.raises(AttributeError, match="dense"):
        torch.optim.SparseAdam


@pytest.mark.torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_a_repeated_parameter_warns_and_is_updated_per_repeat_as_in_pytorch(name):
    """PyTorch 2.13 keeps a parameter listed twice in a group (a UserWarning says it will be
    an error in future) and so updates it twice per step."""
    import warnings

    import mutograd.compat.torch as mtorch
    torch = pytest.importorskip("torch")

    def run(ns):
        w = ns.nn.Parameter(ns.tensor([1.0, -2.0]))
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            opt = getattr(ns.optim, name)([w, w], lr=0.1)
        (w * w).sum().backward()
        opt.step()
        return ([(r.category, str(r.message)) for r in rec], w.detach().numpy().tolist(),
                len(opt.param_groups[0]["params"]))

    got, want = run(mtorch), run(torch)
    assert got[0] == want[0] and len(got[0]) == 1
    assert got[2] == want[2] == 2
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def test_parameters_in_a_set_are_refused():
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {nn.Parameter(mg.ones([1]))}}], lr=0.1)
