"""Paddle's optimizer state dicts, read and written (``opt.state_dict()`` and
``opt.set_state_dict(...)`` of the ``paddle.optimizer`` classes, and so ``.pdopt`` files).

Paddle 3.3.1 keeps one flat dict: each accumulator of each parameter under
``<parameter name>_<accumulator>_<N>`` (``linear_0.w_0_moment1_0``), grouped by accumulator,
then ``'LR_Scheduler'`` (the scheduler's ``state_dict()``) when the learning rate is one, and
``'master_weights'`` with multi-precision training. The accumulators of the optimizers whose
state Paddle defines, with the mutograd state each holds (``accumulators`` of the class):

=========  ==================================================================================
Adam(W)    ``moment1`` (``exp_avg``), ``moment2`` (``exp_avg_sq``), ``moment2_max``
           (amsgrad's ``max_exp_avg_sq``), ``beta1_pow_acc``/``beta2_pow_acc``: ``[beta **
           (step + 1)]`` in float32, the power the next step uses (``powers`` of the class)
Momentum   ``velocity`` (``momentum_buffer``)
SGD        none
=========  ==================================================================================

Any other optimizer's state is kept under its mutograd names (a number as a ``[1]`` tensor),
which round-trips here but is not Paddle's naming. ``<N>`` counts the optimizers a Paddle
process made for the parameter; it is written 0 and ignored when read, so a state dict loads
into an optimizer of the same parameters in the same process too. ``master_weights`` is
ignored when read (mutograd's parameters are their own master copy).

    >>> import mutograd.compat.paddle as paddle
    >>> with paddle.base.unique_name.guard():
    ...     net = paddle.nn.Linear(2, 1)
    >>> opt = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
    >>> net(paddle.ones([1, 2])).sum().backward(); opt.step()
    >>> sorted(opt.state_dict())
    ['linear_0.b_0_velocity_0', 'linear_0.w_0_velocity_0']
"""
import math
import re

import numpy as np

from ....optim.optimizer import Optimizer, OptimizerStateError
from ....tensor import Tensor, _wrap, adopt
from ..tensor import Tensor as PaddleTensor

SCHEDULER_KEY = "LR_Scheduler"
_IGNORED = ("master_weights", "StructuredToParameterName@@")


def parameter_names(opt):
    """``[(parameter, its Paddle name)]`` in the order of the optimizer's groups."""
    out = []
    for g in opt.param_groups:
        for p in g["params"]:
            out.append((p, p.name or f"param_{len(out)}"))
    return out


def paddle_state_dict(opt):
    """``opt``'s state in Paddle's flat form (see the module docstring)."""
    renamed = type(opt).accumulators
    by_acc = {acc: {} for acc in (*renamed.values(), *type(opt).powers)}
    group_of = {id(p): g for g in opt.param_groups for p in g["params"]}
    for p, name in parameter_names(opt):
        state = opt.state.get(p)
        for key, v in (state or {}).items():
            if key == "step" and type(opt).powers:
                for acc, beta in zip(type(opt).powers, group_of[id(p)]["betas"]):
                    power = np.float32(beta) ** np.float32(v + 1)
                    by_acc[acc][p] = _named(np.array([power], np.float32), name, acc, p)
                continue
            acc = renamed.get(key, key)
            value = v.detach() if isinstance(v, Tensor) else np.array([v])
            by_acc.setdefault(acc, {})[p] = _named(value, name, acc, p)
    out = {t.name: t for entries in by_acc.values() for t in entries.values()}
    if opt._scheduler is not None:
        out[SCHEDULER_KEY] = opt._scheduler.state_dict()
    return out


def _named(value, name, acc, p):
    """A paddle Tensor of ``value`` named as Paddle names the accumulator."""
    t = adopt(value if isinstance(value, Tensor) else _wrap(value, p), PaddleTensor)
    t.name = f"{name}_{acc}_0"
    return t


def set_paddle_state_dict(opt, state_dict):
    """Load ``state_dict`` (Paddle's flat form, or mutograd's ``{'state', 'param_groups'}``)
    into ``opt``, and its ``'LR_Scheduler'`` into the optimizer's scheduler. Returns the keys
    that name no parameter of ``opt`` (ignored)."""
    if "param_groups" in state_dict:
        Optimizer.load_state_dict(opt, state_dict)
        return []
    state_dict = dict(state_dict)
    scheduler = state_dict.pop(SCHEDULER_KEY, None)
    for key in _IGNORED:
        state_dict.pop(key, None)
    found, unmatched = _by_parameter(opt, state_dict)
    states, index = {}, {}
    group_of = {id(p): g for g in opt.param_groups for p in g["params"]}
    renamed = {acc: key for key, acc in type(opt).accumulators.items()}
    for i, (p, name) in enumerate(parameter_names(opt)):
        index[id(p)] = i
        if name not in found:
            continue
        group, state = group_of[id(p)], {}
        opt._init_state(p, state, group)
        for acc, value in found[name].items():
            if acc in type(opt).powers:
                beta = group["betas"][type(opt).powers.index(acc)]
                state["step"] = _steps(value, beta, name, acc)
                continue
            key = renamed.get(acc, acc)
            if key in state and not isinstance(state[key], Tensor):
                state[key] = type(state[key])(_array(value).reshape(-1)[0])
            else:
                state[key] = value if isinstance(value, Tensor) else _wrap(_array(value), p)
        states[i] = state
    groups = [{**g, "params": [index[id(p)] for p in g["params"]]} for g in opt.param_groups]
    Optimizer.load_state_dict(opt, {"state": states, "param_groups": groups})
    if scheduler is not None and opt._scheduler is not None:
        opt._scheduler.set_state_dict(scheduler)
        for g in opt.param_groups:
            g["lr"] = opt._scheduler() * g.get("lr_scale", 1.0)
    return unmatched


def _by_parameter(opt, state_dict):
    """``{parameter name: {accumulator: value}}`` of Paddle's keys
    ``<parameter name>_<accumulator>_<N>``, and the keys naming no parameter of ``opt`` (an
    error when none does)."""
    names = {name for _, name in parameter_names(opt)}
    found, unmatched = {}, []
    for key, value in state_dict.items():
        base = re.sub(r"_\d+$", "", key) if isinstance(key, str) else ""
        for i in [m.start() for m in re.finditer("_", base)][::-1]:
            if base[:i] in names:
                found.setdefault(base[:i], {})[base[i + 1:]] = value
                break
        else:
            unmatched.append(key)
    if unmatched and not found:
        raise OptimizerStateError(
            f"the optimizer state's entries {', '.join(map(repr, unmatched[:4]))}"
            f"{' ...' if len(unmatched) > 4 else ''} name none of this optimizer's parameters "
            f"({', '.join(sorted(names)[:4])}{' ...' if len(names) > 4 else ''}): Paddle keys "
            f"them '<parameter name>_<accumulator>_<N>'; build the model in the same order as "
            f"the one saved, so that its parameters get the same names")
    return found, unmatched


def _array(value):
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


def _steps(value, beta, name, acc):
    """The steps taken, from Adam's ``beta ** (steps + 1)``."""
    power = float(_array(value).reshape(-1)[0])
    if not (0.0 < beta < 1.0 and 0.0 < power <= 1.0):
        raise OptimizerStateError(f"{name}_{acc} holds {power} with beta {beta}: the steps "
                                  f"taken cannot be recovered from it")
    return max(0, round(math.log(power) / math.log(beta)) - 1)
