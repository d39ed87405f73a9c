"""Every ``torch.optim.lr_scheduler`` scheduler against PyTorch: one table of constructions; each
is run on the same optimizer in PyTorch and in ``mutograd.compat.torch`` and every group's
``lr`` (and ``momentum`` / ``betas``, which OneCycleLR and CyclicLR cycle) is compared at every
step, then a state-dict round trip (save at step k, load into a fresh optimizer and scheduler,
go on) must continue the same trajectory."""
import math
import warnings

import pytest

import mutograd.compat.torch as mtorch

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


class Scale:
    """A callable object: its attributes are saved by the schedulers' state dicts."""

    def __init__(self, base):
        self.base = base

    def __call__(self, epoch):
        return self.base ** epoch


def _sgd(ns, **kw):
    return ns.optim.SGD([{"params": [ns.nn.Parameter(ns.ones(2))], "lr": 0.1, "momentum": 0.9},
                         {"params": [ns.nn.Parameter(ns.ones(3))], "lr": 0.03,
                          "momentum": 0.5}], **kw)


def _adam(ns, **kw):
    return ns.optim.Adam([{"params": [ns.nn.Parameter(ns.ones(2))], "lr": 0.1},
                          {"params": [ns.nn.Parameter(ns.ones(3))], "lr": 0.02,
                           "betas": (0.8, 0.99)}], **kw)


def _plain(ns):
    return ns.optim.SGD([ns.nn.Parameter(ns.ones(2))], lr=0.5)


def _fractional(s, i):
    """CosineAnnealingWarmRestarts stepped inside epochs: ``epoch + batch / batches``."""
    s.step(i // 4 + (i % 4) / 4)


def _plateau(s, i):
    s.step([1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 0.5, 0.6, 0.6, 0.7, 0.8, 0.8, 0.8, 0.2][i % 14])


def _swa(lr_scheduler):
    """The swa_utils module beside ``lr_scheduler``."""
    return (torch if lr_scheduler is torch.optim.lr_scheduler else mtorch).optim.swa_utils


# (id, optimizer, scheduler factory on (lr_scheduler module, optimizer), steps, stepping)
CASES = [
    ("LambdaLR-groups", _sgd, lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e, Scale(0.7)]), 12,
     None),
    ("LambdaLR-one", _plain, lambda m, o: m.LambdaLR(o, lambda e: 1 / (e + 1)), 8, None),
    ("MultiplicativeLR", _sgd, lambda m, o: m.MultiplicativeLR(o, [Scale(0.9),
                                                                   lambda e: 0.95]), 10, None),
    ("StepLR", _sgd, lambda m, o: m.StepLR(o, step_size=3, gamma=0.5), 12, None),
    ("MultiStepLR-repeat", _sgd, lambda m, o: m.MultiStepLR(o, [2, 5, 5, 8], gamma=0.3), 12,
     None),
    ("ConstantLR", _sgd, lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=4), 8, None),
    ("LinearLR", _sgd, lambda m, o: m.LinearLR(o, 0.2, 0.9, total_iters=5), 9, None),
    ("ExponentialLR", _adam, lambda m, o: m.ExponentialLR(o, gamma=0.8), 8, None),
    ("PolynomialLR", _sgd, lambda m, o: m.PolynomialLR(o, total_iters=6, power=2.0), 9, None),
    ("CosineAnnealingLR-past-T_max", _sgd,
     lambda m, o: m.CosineAnnealingLR(o, T_max=4, eta_min=0.001), 13, None),
    ("CosineAnnealingWarmRestarts", _sgd,
     lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.002), 20, None),
    ("CosineAnnealingWarmRestarts-T_mult1", _plain,
     lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4), 10, None),
    ("CosineAnnealingWarmRestarts-fractional", _sgd,
     lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01), 30,
     _fractional),
    ("SequentialLR", _sgd, lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, 0.1, total_iters=3), m.ExponentialLR(o, 0.9),
            m.CosineAnnealingLR(o, T_max=5)], milestones=[3, 7]), 15, None),
    ("ChainedScheduler", _sgd, lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, 0.1, total_iters=3), m.ExponentialLR(o, 0.9),
         m.StepLR(o, 2, 0.5)]), 10, None),
    ("ChainedScheduler-of-SequentialLR", _plain, lambda m, o: m.ChainedScheduler(
        [m.SequentialLR(o, [m.ConstantLR(o, 0.5, total_iters=2), m.PolynomialLR(o, 4)], [2]),
         m.MultiplicativeLR(o, lambda e: 0.97)], optimizer=o), 9, None),
    ("CyclicLR-triangular", _sgd, lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=3,
                                                          step_size_down=2), 16, None),
    ("CyclicLR-triangular2", _sgd, lambda m, o: m.CyclicLR(
        o, [0.01, 0.02], 0.1, step_size_up=2, mode="triangular2", base_momentum=0.7,
        max_momentum=[0.95, 0.9]), 16, None),
    ("CyclicLR-exp_range-adam", _adam, lambda m, o: m.CyclicLR(
        o, 0.001, 0.05, step_size_up=3, mode="exp_range", gamma=0.9), 16, None),
    ("CyclicLR-scale_fn", _sgd, lambda m, o: m.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, scale_fn=Scale(0.8), scale_mode="iterations",
        cycle_momentum=False), 12, None),
    ("OneCycleLR-cos", _sgd, lambda m, o: m.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=12),
     12, None),
    ("OneCycleLR-linear-adam", _adam, lambda m, o: m.OneCycleLR(
        o, max_lr=0.3, epochs=3, steps_per_epoch=5, pct_start=0.4, anneal_strategy="linear",
        base_momentum=0.8, max_momentum=[0.9, 0.85], div_factor=10.0), 15, None),
    ("OneCycleLR-three_phase", _sgd, lambda m, o: m.OneCycleLR(
        o, max_lr=1.0, total_steps=20, three_phase=True, final_div_factor=100.0), 20, None),
    ("OneCycleLR-no-momentum", _plain, lambda m, o: m.OneCycleLR(
        o, max_lr=1.0, total_steps=9, cycle_momentum=False), 9, None),
    ("ReduceLROnPlateau", _sgd, lambda m, o: m.ReduceLROnPlateau(
        o, patience=1, factor=0.5, cooldown=1, min_lr=[0.0, 0.01]), 14, _plateau),
    ("SWALR-cos", _sgd, lambda m, o: _swa(m).SWALR(o, swa_lr=[0.05, 0.01], anneal_epochs=4),
     9, None),
    ("SWALR-linear-no-anneal", _adam, lambda m, o: _swa(m).SWALR(
        o, swa_lr=0.02, anneal_epochs=0, anneal_strategy="linear"), 5, None),
    ("SequentialLR-then-SWALR", _sgd, lambda m, o: m.SequentialLR(
        o, [m.CosineAnnealingLR(o, T_max=4), _swa(m).SWALR(o, 0.01, anneal_epochs=3)], [4]),
     10, None),
    ("StepLR-epoch-argument", _sgd, lambda m, o: m.StepLR(o, step_size=2, gamma=0.5), 8,
     lambda s, i: s.step(2 * i)),
]


def _hyper(opt):
    """What a scheduler writes: each group's lr, momentum and betas."""
    return [{k: g[k] for k in ("lr", "momentum", "betas") if k in g} for g in opt.param_groups]


def _close(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-15)


def _run(ns, make_opt, make_sched, steps, stepping, resume_at=None):
    """The hyper-parameters before each step; with ``resume_at``, the optimizer and scheduler
    are saved there and replaced by fresh ones loaded from the state dicts."""
    m = ns.optim.lr_scheduler
    opt = make_opt(ns)
    sched = make_sched(m, opt)
    seen = []
    for i in range(steps):
        if i == resume_at:
            opt_state, sched_state = opt.state_dict(), sched.state_dict()
            opt = make_opt(ns)
            sched = make_sched(m, opt)
            opt.load_state_dict(opt_state)
            sched.load_state_dict(sched_state)
        seen.append((_hyper(opt), list(sched.get_last_lr())))
        opt.step()
        (stepping or (lambda s, i: s.step()))(sched, i)
    return seen


@pytest.mark.parametrize("name,make_opt,make_sched,steps,stepping", CASES,
                         ids=[c[0] for c in CASES])
@pytest.mark.filterwarnings("ignore:The epoch parameter")
def test_trajectory_and_state_dict_round_trip_match_torch(name, make_opt, make_sched, steps,
                                                          stepping):
    want = _run(torch, make_opt, make_sched, steps, stepping)
    got = _run(mtorch, make_opt, make_sched, steps, stepping)
    for i, (g, w) in enumerate(zip(got, want)):
        assert _close(g, w), f"step {i}: {g} != {w}"
    resumed = _run(mtorch, make_opt, make_sched, steps, stepping, resume_at=steps // 2)
    for i, (g, w) in enumerate(zip(resumed, want)):
        assert _close(g, w), f"resumed, step {i}: {g} != {w}"


def test_the_module_offers_every_torch_scheduler():
    public = {n for n in dir(torch.optim.lr_scheduler)
              if n[0].isupper() and isinstance(getattr(torch.optim.lr_scheduler, n), type)
              and issubclass(getattr(torch.optim.lr_scheduler, n),
                             torch.optim.lr_scheduler.LRScheduler)}
    assert public <= set(dir(mtorch.optim.lr_scheduler))
    for n in public:
        assert issubclass(getattr(mtorch.optim.lr_scheduler, n),
                          mtorch.optim.lr_scheduler.LRScheduler)


def _warnings(ns, order_ok, call):
    opt = _plain(ns)
    s = ns.optim.lr_scheduler.StepLR(opt, 2)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        if order_ok:
            opt.step()
        call(s)
    return [(w.category, str(w.message)) for w in rec]


@pytest.mark.parametrize("order_ok,call", [
    (False, lambda s: s.step()),                 # scheduler before optimizer
    (True, lambda s: s.step()),                  # the right order: no warning
    (True, lambda s: s.step(3)),                 # the deprecated epoch argument
    (True, lambda s: s.get_lr()),                # get_lr outside step
], ids=["step-before-optimizer", "right-order", "epoch-argument", "get_lr"])
def test_warnings_match_torch(order_ok, call):
    assert _warnings(mtorch, order_ok, call) == _warnings(torch, order_ok, call)


BAD = {
    "no-total-steps": lambda m, o: m.OneCycleLR(o, max_lr=1.0),
    "int-pct_start": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=1),
    "max_lr-per-group": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=5),
    "anneal_strategy": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=5,
                                                 anneal_strategy="exp"),
    "cyclic-mode": lambda m, o: m.CyclicLR(o, 0.1, 1.0, mode="sine"),
    "T_0": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
    "T_mult": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
    "constant-factor": lambda m, o: m.ConstantLR(o, factor=2.0),
    "linear-start": lambda m, o: m.LinearLR(o, start_factor=0),
    "milestones": lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2)], milestones=[3]),
    "empty-chain": lambda m, o: m.ChainedScheduler([]),
    "chained-plateau": lambda m, o: m.ChainedScheduler([m.ReduceLROnPlateau(o)]),
    "resume-without-initial_lr": lambda m, o: m.StepLR(o, 2, last_epoch=4),
    "lambdas-per-group": lambda m, o: m.LambdaLR(o, [lambda e: 1.0] * 2),
    "plateau-factor": lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
    "plateau-mode": lambda m, o: m.ReduceLROnPlateau(o, mode="up"),
}


@pytest.mark.parametrize("make", BAD.values(), ids=BAD.keys())
def test_bad_arguments_raise_as_in_torch(make):
    with pytest.raises(Exception) as want:
        make(torch.optim.lr_scheduler, _plain(torch))
    with pytest.raises(want.type) as got:
        make(mtorch.optim.lr_scheduler, _plain(mtorch))
    assert str(got.value.args[0]).split("\n")[0] == str(want.value.args[0]).split("\n")[0]


def test_cycling_momentum_needs_a_momentum():
    for ns in (torch, mtorch):
        opt = ns.optim.Adagrad([ns.nn.Parameter(ns.ones(1))], lr=0.1)
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            ns.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=4)


def test_one_cycle_lr_refuses_a_step_past_the_end():
    for ns in (torch, mtorch):
        opt = _plain(ns)
        s = ns.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
        opt.step()
        s.step()
        s.step()
        with pytest.raises(ValueError, match="Tried to step 3 times"):
            s.step()
