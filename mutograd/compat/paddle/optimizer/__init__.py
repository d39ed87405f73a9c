"""``paddle.optimizer``: mutograd's in-place optimizers with Paddle's arguments
(``learning_rate=``, ``parameters=``, ``beta1``/``beta2``/``epsilon``, ``grad_clip=``) and methods
(``clear_grad``, ``minimize``, ``get_lr``, ``set_lr``, ``set_state_dict``).

``learning_rate`` may be a number or a scheduler from ``paddle.optimizer.lr``, read at every
``step()`` (call the scheduler's ``step()`` yourself, as in Paddle).

    >>> import mutograd.compat.paddle as paddle
    >>> w = paddle.nn.Parameter(paddle.ones([2]))
    >>> opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=[w])
    >>> (w * w).sum().backward()
    >>> opt.step(); opt.clear_grad()
    >>> w.tolist()
    [0.0, 0.0]
"""
import warnings

from .... import optim as _optim
from . import algorithms as _rules
from . import lr
from . import state as _state


class _Paddle:
    """What every Paddle optimizer adds to the mutograd one it extends. ``accumulators``
    (mutograd state key -> Paddle's accumulator name) and ``powers`` (Adam's beta powers) say
    how its state is named in Paddle's state dict (``state.py``)."""

    accumulators = {}
    powers = ()

    def _paddle_setup(self, learning_rate, parameters, grad_clip=None):
        if grad_clip is not None and not hasattr(grad_clip, "_clip"):
            raise TypeError(f"grad_clip must be a paddle.nn.ClipGradByGlobalNorm, ClipGradByNorm "
                            f"or ClipGradByValue, got {type(grad_clip).__name__}")
        self._grad_clip = grad_clip
        if parameters is None:
            raise ValueError("parameters argument given to the optimizer should not be None "
                             "in dygraph mode (pass parameters=model.parameters())")
        self._scheduler = learning_rate if isinstance(learning_rate, lr.LRScheduler) else None
        base = learning_rate() if self._scheduler is not None else float(learning_rate)
        return _groups(parameters, base), base

    def step(self):
        """Update the parameters in place (the learning rate read from the scheduler)."""
        if self._scheduler is not None:
            for g in self.param_groups:
                g["lr"] = self._scheduler() * g.get("lr_scale", 1.0)
        if self._grad_clip is not None:
            self._grad_clip._clip([p for g in self.param_groups for p in g["params"]
                                   if p.grad is not None and getattr(p, "need_clip", True)])
        return super().step()

    def clear_grad(self, set_to_zero=True):
        """Zero the gradients in place (``set_to_zero=False``: drop them)."""
        self.zero_grad(set_to_none=not set_to_zero)

    clear_gradients = clear_grad

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """``loss.backward()`` then :meth:`step`."""
        loss.backward()
        self.step()

    def get_lr(self):
        return self._scheduler() if self._scheduler is not None else \
            self.param_groups[0]["lr"]

    def set_lr(self, value):
        if self._scheduler is not None:
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke "
                               "this API, because this will lead to conflict.")
        for g in self.param_groups:
            g["lr"] = float(value) * g.get("lr_scale", 1.0)

    def state_dict(self):
        """Paddle's flat state dict: ``{'linear_0.w_0_moment1_0': Tensor, ...,
        'LR_Scheduler': {...}}`` (``state.py``)."""
        return _state.paddle_state_dict(self)

    def set_state_dict(self, state_dict):
        """Restore the state (Paddle's form, or mutograd's ``{'state', 'param_groups'}``) and
        the learning-rate scheduler's. Entries for parameters it does not have are ignored
        with a warning (none fitting is an error)."""
        unmatched = _state.set_paddle_state_dict(self, state_dict)
        if unmatched:
            warnings.warn(f"optimizer state entries for no parameter of this optimizer were "
                          f"ignored: {', '.join(map(repr, unmatched[:8]))}"
                          f"{' ...' if len(unmatched) > 8 else ''}", UserWarning, stacklevel=2)

    load_state_dict = set_state_dict


def _groups(parameters, base):
    """The parameters, or groups of them where a ``ParamAttr`` gave some their own learning-rate
    multiplier (``optimize_attr``) or regularizer; Paddle's own group dicts pass through."""
    params = list(parameters)
    if not params or isinstance(params[0], dict):
        return params
    groups = {}
    for p in params:
        scale = float((getattr(p, "optimize_attr", None) or {}).get("learning_rate", 1.0))
        reg = getattr(p, "regularizer", None)
        groups.setdefault((scale, None if reg is None else _decay(reg)), []).append(p)
    if list(groups) == [(1.0, None)]:
        return params
    out = []
    for (scale, decay), ps in groups.items():
        g = {"params": ps, "lr": base * scale, "lr_scale": scale}
        if decay is not None:
            g["weight_decay"] = decay
        out.append(g)
    return out


def _decay(weight_decay):
    """A float, None or an ``L2Decay``-like object with ``coeff``."""
    if weight_decay is None:
        return 0.0
    return float(getattr(weight_decay, "coeff", weight_decay))


class SGD(_Paddle, _optim.SGD):
    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.SGD.__init__(self, ps, lr=base, weight_decay=_decay(weight_decay))


class Momentum(_Paddle, _optim.SGD):
    accumulators = {"momentum_buffer": "velocity"}

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.SGD.__init__(self, ps, lr=base, momentum=momentum, nesterov=use_nesterov,
                            weight_decay=_decay(weight_decay))


_ADAM_ACCUMULATORS = {"exp_avg": "moment1", "exp_avg_sq": "moment2",
                      "max_exp_avg_sq": "moment2_max"}


class Adam(_Paddle, _optim.Adam):
    accumulators, powers = _ADAM_ACCUMULATORS, ("beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Adam.__init__(self, ps, lr=base, betas=(beta1, beta2), eps=epsilon,
                             weight_decay=_decay(weight_decay), amsgrad=amsgrad)


class AdamW(_Paddle, _optim.AdamW):
    accumulators, powers = _ADAM_ACCUMULATORS, ("beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False,
                 name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.AdamW.__init__(self, ps, lr=base, betas=(beta1, beta2), eps=epsilon,
                              weight_decay=_decay(weight_decay), amsgrad=amsgrad)


class Adagrad(_Paddle, _optim.Adagrad):
    def __init__(self, learning_rate=0.001, epsilon=1e-6, parameters=None, weight_decay=None,
                 grad_clip=None, initial_accumulator_value=0.0, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Adagrad.__init__(self, ps, lr=base, eps=epsilon, weight_decay=_decay(weight_decay),
                                initial_accumulator_value=initial_accumulator_value)


class Adadelta(_Paddle, _optim.Adadelta):
    def __init__(self, learning_rate=0.001, epsilon=1e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Adadelta.__init__(self, ps, lr=base, rho=rho, eps=epsilon,
                                 weight_decay=_decay(weight_decay))


class Optimizer(_Paddle, _optim.Optimizer):
    """Base class of Paddle-style optimizers: subclasses define ``_init_state`` and ``_update``
    (as ``mutograd.optim.Optimizer``) and get Paddle's arguments and methods."""

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Optimizer.__init__(self, ps, {"lr": base, "weight_decay": _decay(weight_decay)})


class RMSProp(_Paddle, _optim.Optimizer):
    """Paddle's RMSProp: ``epsilon`` inside the square root, and the momentum buffer accumulates
    ``lr * g / sqrt(v + eps)`` (so it differs from ``torch.optim.RMSprop`` by design)."""

    n_workspace = 3

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-6, momentum=0.0,
                 centered=False, parameters=None, weight_decay=None, grad_clip=None, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Optimizer.__init__(self, ps, {"lr": base, "rho": rho, "epsilon": epsilon,
                                             "momentum": momentum, "centered": centered,
                                             "weight_decay": _decay(weight_decay)})

    def _init_state(self, p, state, group):
        state["mean_square"] = self._buffer(p)
        state["moment"] = self._buffer(p)
        if group["centered"]:
            state["mean_grad"] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        from ....optim.algorithms import _add_square, _grad, _lerp
        rho = group["rho"]
        d = _grad(p, g, group, ws[0])
        ms = state["mean_square"]._data
        ms *= rho
        _add_square(xp, ms, d, 1 - rho, ws[1])
        denom = ws[1]
        denom[...] = ms
        if group["centered"]:
            mg_ = state["mean_grad"]._data
            _lerp(xp, mg_, d, 1 - rho, ws[2])
            ws[2][...] = mg_
            ws[2] *= mg_
            denom -= ws[2]
        denom += group["epsilon"]
        xp.sqrt(denom, out=denom)
        mom = state["moment"]._data
        mom *= group["momentum"]
        q = xp.divide(d, denom, out=ws[2])
        q *= group["lr"]
        mom += q
        p -= mom


class _Rule(Optimizer):
    """A Paddle optimizer whose update is ``rule`` (compat/paddle/optimizer/algorithms.py)."""

    rule = None
    moments = ()

    def __init__(self, learning_rate, parameters, weight_decay, grad_clip, **hyper):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Optimizer.__init__(self, ps, {"lr": base, "weight_decay": _decay(weight_decay),
                                             **hyper})

    def _init_state(self, p, state, group):
        state["step"] = 0
        for name in self.moments:
            state[name] = self._buffer(p)

    def _update(self, p, g, state, group, ws, xp):
        type(self).rule(p, g, state, group, xp)


class Adamax(_Rule):
    """Paddle's Adamax: ``u = max(b2 u + eps, |g|)`` where ``mutograd.optim.Adamax`` (PyTorch)
    has ``max(b2 u, |g| + eps)``, so its own rule."""

    rule, moments = staticmethod(_rules.adamax), ("moment", "inf_norm")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, beta1=beta1,
                         beta2=beta2, epsilon=epsilon)


class Lamb(_Paddle, _optim.Lamb):
    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Lamb.__init__(self, ps, lr=base, betas=(beta1, beta2), eps=epsilon,
                             weight_decay=lamb_weight_decay, always_adapt=always_adapt,
                             exclude_from_weight_decay_fn=exclude_from_weight_decay_fn)


class NAdam(_Paddle, _optim.NAdam):
    """Paddle's NAdam: the same arithmetic as ``mutograd.optim.NAdam`` (recorded)."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.NAdam.__init__(self, ps, lr=base, betas=(beta1, beta2), eps=epsilon,
                              weight_decay=_decay(weight_decay), momentum_decay=momentum_decay)


class RAdam(_Paddle, _optim.RAdam):
    """Paddle's RAdam: the same arithmetic as ``mutograd.optim.RAdam`` (recorded)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.RAdam.__init__(self, ps, lr=base, betas=(beta1, beta2), eps=epsilon,
                              weight_decay=_decay(weight_decay))


class Rprop(_Paddle, _optim.Rprop):
    """Paddle's Rprop: the same arithmetic as ``mutograd.optim.Rprop`` (recorded), the step
    sizes bounded by ``learning_rate_range``."""

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Rprop.__init__(self, ps, lr=base, etas=tuple(etas),
                              step_sizes=tuple(learning_rate_range))


class ASGD(Optimizer):
    """Paddle's ASGD (not PyTorch's): the step is the mean of the last ``batch_num`` gradients,
    ``d += g - y[i]; y[i] = g; p -= lr * d / min(steps, batch_num)`` with ``i`` the step modulo
    ``batch_num`` (checked against recorded Paddle 3.3.1 steps)."""

    n_workspace = 1

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if not isinstance(batch_num, int) or batch_num < 1:
            raise ValueError(f"batch_num should be a positive integer, got {batch_num!r}")
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        _optim.Optimizer.__init__(self, ps, {"lr": base, "weight_decay": _decay(weight_decay),
                                             "batch_num": batch_num})

    def _init_state(self, p, state, group):
        from ....tensor import _wrap
        state["step"] = 0
        state["d"] = self._buffer(p)
        state["ys"] = _wrap(p._place.xp.zeros((group["batch_num"],) + p._data.shape,
                                              p._data.dtype), p)

    def _state_shape(self, key, p):
        if key == "ys":
            return [self.param_groups[0]["batch_num"]] + list(p.shape)
        return super()._state_shape(key, p)

    def _update(self, p, g, state, group, ws, xp):
        from ....optim.algorithms import _grad
        g = _grad(p, g, group, ws[0])
        n = group["batch_num"]
        i = state["step"] % n
        state["step"] += 1
        d, y = state["d"]._data, state["ys"]._data[i]
        d -= y
        d += g
        y[...] = g
        xp.multiply(d, -group["lr"] / min(state["step"], n), out=ws[0])
        p += ws[0]


class LBFGS(_Paddle, _optim.LBFGS):
    """Paddle's L-BFGS (a port of PyTorch's): ``step(closure)`` re-evaluates the loss, the
    gradients clipped by ``grad_clip`` after each evaluation."""

    # one state for all parameters, with lists of history: kept in mutograd's form
    state_dict = _optim.LBFGS.state_dict
    set_state_dict = load_state_dict = _optim.LBFGS.load_state_dict

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if weight_decay:
            raise ValueError("LBFGS: weight_decay is not supported; add the penalty to the "
                             "loss the closure returns")
        ps, base = self._paddle_setup(learning_rate, parameters, grad_clip)
        if ps and isinstance(ps[0], dict):   # one group: L-BFGS keeps one state for all
            ps = [p for g in ps for p in g["params"]]
        _optim.LBFGS.__init__(self, ps, lr=base,
                              max_iter=max_iter, max_eval=max_eval,
                              tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                              history_size=history_size, line_search_fn=line_search_fn)

    def step(self, closure=None):
        if self._scheduler is not None:
            for g in self.param_groups:
                g["lr"] = self._scheduler()
        if self._grad_clip is None or closure is None:
            return _optim.LBFGS.step(self, closure)

        def clipped():
            loss = closure()
            self._grad_clip._clip([p for g in self.param_groups for p in g["params"]
                                   if p.grad is not None])
            return loss
        return _optim.LBFGS.step(self, clipped)


__all__ = ["ASGD", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Lamb",
           "Momentum", "NAdam", "Optimizer", "RAdam", "RMSProp", "Rprop", "lr"]
