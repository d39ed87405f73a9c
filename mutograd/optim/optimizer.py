"""The Optimizer base: parameter groups, state, ``zero_grad``, ``state_dict``, and the
in-place update contract.

Note [In-place optimizer steps]
    An update writes the parameter and its state buffers in place: ``p -= lr * d`` on the
    parameter's own storage, under ``no_grad`` (design.md rule 4 allows it), with one version
    bump per written tensor (rule 9). Intermediate values (the decayed gradient, Adam's
    denominator) go into a workspace owned by the optimizer: a few flat buffers as large as the
    largest parameter, allocated once and reused by every parameter and every step. So after the
    first step (which creates the state), a step allocates no new storage at all, which
    ``mutograd.memory`` can check exactly. With ``inplace=False`` the same arithmetic runs on fresh
    copies of the parameter and its state, which then replace the old storages: what an optimizer
    written without in-place updates allocates (used by the demo to measure the difference).
"""
import functools
import warnings

from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.saved import before_write
from ..errors import MutogradError
from ..tensor import Tensor, _wrap


class OptimizerStateError(MutogradError, ValueError):
    """An optimizer state dict that does not fit the optimizer's parameter groups."""


class Optimizer:
    """Base class: subclasses define ``defaults``, ``_init_state(p, state, group)`` and
    ``_update(p, g, state, group, ws, xp)`` on backend arrays."""

    n_workspace = 3

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _records_step(cls.__dict__["step"])

    def __init__(self, params, defaults, inplace=True):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got a Tensor")
        self.defaults = defaults
        self.inplace = inplace
        self.state = {}
        self.param_groups = []
        self._ws = None
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for group in params:
            self.add_param_group(group)

    def add_param_group(self, group):
        """Add a dict with ``'params'`` and any hyper-parameters overriding the defaults."""
        group = dict(group)
        ps = group["params"]
        if isinstance(ps, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        group["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            # PyTorch keeps the repeats (a repeated parameter is updated once per repeat)
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self._check(group)
        self.param_groups.append(group)

    def _check(self, group):
        if group["lr"] < 0:
            raise ValueError(f"Invalid learning rate: {group['lr']}")

    def zero_grad(self, set_to_none=True):
        """Drop each parameter's ``.grad`` (or zero it in place with ``set_to_none=False``)."""
        with no_grad():
            for g in self.param_groups:
                for p in g["params"]:
                    p.clear_grad(set_to_zero=not set_to_none)

    def clear_grad(self, set_to_zero=False):
        """Paddle's name for :meth:`zero_grad`."""
        self.zero_grad(set_to_none=not set_to_zero)

    def step(self, closure=None):
        """Update every parameter that has a gradient (Note [In-place optimizer steps])."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state.get(p)
                    if state is None:
                        state = self.state[p] = {}
                        self._init_state(p, state, group)
                    _follow_place(p, state)
                    if not self.inplace:
                        _fresh_copies(p, state)
                    g = p.grad._data
                    if g.dtype != p._data.dtype or g.shape != p._data.shape:
                        raise OptimizerStateError(
                            f"gradient of shape {list(g.shape)} and dtype {g.dtype} for a "
                            f"parameter of shape {list(p.shape)} and dtype {p._data.dtype}")
                    _before_step(self, p, state)
                    self._update(p._data, g, state, group, self._workspace(p), p._place.xp)
                    p._counter.bump(type(self).__name__ + ".step")
                    for v in state.values():
                        if isinstance(v, Tensor):
                            v._counter.bump(type(self).__name__ + ".step")
        return loss

    def _workspace(self, p):
        """``n_workspace`` scratch arrays shaped like ``p``, views of buffers reused by all."""
        a = p._data
        need = a.size * self.n_workspace
        ws = self._ws
        if (ws is None or ws._data.dtype != a.dtype or ws._data.size < need
                or ws._place is not p._place):
            size = max(need, ws._data.size if ws is not None and ws._data.dtype == a.dtype
                       else 0)
            ws = self._ws = _wrap(p._place.xp.empty(size, a.dtype), p)
        flat = ws._data
        return [flat[i * a.size:(i + 1) * a.size].reshape(a.shape)
                for i in range(self.n_workspace)]

    def _state_shape(self, key, p):
        """The shape state ``key`` of parameter ``p`` has (the parameter's own, unless a
        subclass keeps a reduced state)."""
        return list(p.shape)

    @staticmethod
    def _buffer(p, fill=0.0):
        """A state tensor shaped like ``p`` (counted storage)."""
        return _wrap(p._place.xp.full(p._data.shape, fill, p._data.dtype), p)

    def _new_state(self, p, state, *names):
        """A parameter's first state: ``step`` 0 and a zero buffer like ``p`` per name."""
        state["step"] = 0
        for name in names:
            state[name] = self._buffer(p)

    # ---- state dicts ------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``; tensors
        are aliases of the live state (checkpointing copies them out)."""
        index = {}
        groups = []
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": ids})
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                if p in self.state:
                    state[index[id(p)]] = {k: (v.detach() if isinstance(v, Tensor) else v)
                                           for k, v in self.state[p].items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore hyper-parameters and state; buffers are copied into fresh tensors."""
        groups = state_dict.get("param_groups")
        if not isinstance(groups, list) or len(groups) != len(self.param_groups):
            raise OptimizerStateError(
                f"loaded state dict has {len(groups) if isinstance(groups, list) else 'no'} "
                f"parameter groups; this optimizer has {len(self.param_groups)}")
        for mine, theirs in zip(self.param_groups, groups):
            if len(mine["params"]) != len(theirs["params"]):
                raise OptimizerStateError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    f"of optimizer's group ({len(theirs['params'])} vs {len(mine['params'])} "
                    "parameters)")
        by_index = {}
        for mine, theirs in zip(self.param_groups, groups):
            for p, i in zip(mine["params"], theirs["params"]):
                by_index[i] = p
        states = {}
        for i, st in state_dict.get("state", {}).items():
            p = by_index.get(int(i))
            if p is None:
                raise OptimizerStateError(f"state for parameter index {i}, which no group has")
            new = {}
            for k, v in st.items():
                if isinstance(v, Tensor):
                    want = self._state_shape(k, p)
                    if list(v.shape) != want and v.ndim:
                        raise OptimizerStateError(
                            f"state {k!r} of parameter {i} has shape {list(v.shape)}; it must "
                            f"have shape {want}")
                    v = _wrap(v._data.astype(p._data.dtype) if v._data.dtype.kind == "f"
                              else v._data.copy(), p)
                new[k] = v
            states[p] = new
        for mine, theirs in zip(self.param_groups, groups):
            for k, v in theirs.items():
                if k != "params":
                    mine[k] = v
        self.state = states

    set_state_dict = load_state_dict

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(g.items()) if k != "params"]
        return "\n".join(lines) + "\n)"


def _records_step(step):
    """``step`` that first marks the optimizer as stepped (``_opt_called``), which a learning-rate
    scheduler checks to warn when it is stepped before the optimizer."""
    if getattr(step, "_records_step", False):
        return step

    @functools.wraps(step)
    def recorded(self, *args, **kwargs):
        self._opt_called = True
        return step(self, *args, **kwargs)

    recorded._records_step = True
    return recorded


Optimizer.step = _records_step(Optimizer.step)


def _before_step(opt, p, state):
    """The pre-write hook for the tensors a step writes (Note [Mutation of saved tensors] in
    autograd/saved.py)."""
    if p._counter.guards:
        before_write(p, None, type(opt).__name__ + ".step")
    for v in state.values():
        if isinstance(v, Tensor) and v._counter.guards:
            before_write(v, None, type(opt).__name__ + ".step")


def _fresh_copies(p, state):
    """The out-of-place mode: the parameter and its state get new storage before the update."""
    p.data = _wrap(p._data.copy(), p)
    for k, v in state.items():
        if isinstance(v, Tensor):
            state[k] = _wrap(v._data.copy(), v)


def _follow_place(p, state):
    """Optimizer state lives on its parameter's place: a parameter moved after the optimizer
    made its state (``model.to('cuda')`` between steps) takes the state along."""
    for k, v in state.items():
        if isinstance(v, Tensor) and v._place is not p._place:
            state[k] = v.to(p._place)
