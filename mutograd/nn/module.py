"""Module and Parameter: the containers of trainable state.

A :class:`Parameter` is a Tensor that is a leaf requiring grad. A :class:`Module` registers the
Parameters, buffers (tensors that are state but not trained, such as BatchNorm's running mean) and
sub-modules assigned to its attributes, so ``named_parameters()``, ``state_dict()``, ``train()``
and ``zero_grad()`` walk the whole tree.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> [name for name, _ in net.named_parameters()]
    ['0.weight', '0.bias', '2.weight', '2.bias']

``load_state_dict`` copies into the existing tensors in place (their identity, and so an
optimizer's references to them, survive), and refuses missing, unexpected or mis-shaped keys with
one error that lists them all, before anything is written.
"""
from collections import OrderedDict, namedtuple

from ..autograd.grad_mode import no_grad
from ..errors import MutogradError
from .backward_hooks import call_with_hooks
from ..tensor import Tensor, _alias, _wrap


class StateDictError(MutogradError, RuntimeError, KeyError):
    """A state dict that does not fit a module: missing, unexpected or mis-shaped entries."""

    def __str__(self):   # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class Parameter(Tensor):
    """A Tensor that is a module's trainable state: a leaf that requires grad by default.

    ``Parameter(t)`` shares ``t``'s storage and version counter (no copy).
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _wrap(_empty())
        elif not isinstance(data, Tensor):
            data = Tensor(data)
        p = _alias(data, data._data)
        p.__class__ = cls
        if requires_grad:
            p.requires_grad = True
        return p

    def __init__(self, data=None, requires_grad=True):
        pass   # everything is set in __new__ (Tensor.__init__ would allocate a copy)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


def _empty():
    import numpy as np
    return np.empty((0,), np.float32)


_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    """Base class of layers and models: override ``forward`` and assign sub-modules, Parameters
    and buffers as attributes in ``__init__`` (after ``super().__init__()``)."""

    # A dialect's Module (Note [Tensor types of the dialects] in tensor.py): its Parameter class
    # (``torch.nn.Module`` sets ``torch.nn.Parameter``), which the main Parameters and tensors
    # registered on it become, and the function giving its class for a main module class (None:
    # a main sub-module keeps its class and only its state becomes the dialect's)
    _parameter_class = None
    _module_class = None

    def _adopt(self, value, parameter):
        """``value`` (a Parameter or a buffer) of this module's dialect, when it has one."""
        cls = self._parameter_class
        if cls is not None and value is not None:
            if parameter and type(value) is Parameter:
                value.__class__ = cls
            elif not parameter and type(value) is Tensor:
                value.__class__ = cls._result_class
        return value

    def _adopt_module(self, module):
        """``module`` and everything in it of this module's dialect, when it has one (a main
        ``nn.Linear`` built inside a ``torch.nn`` layer is a ``torch.nn.Linear``)."""
        if self._parameter_class is None or module is None or \
                module._parameter_class is self._parameter_class:
            return module
        for m in module.modules():
            if self._module_class is not None and m._parameter_class is None:
                m.__class__ = self._module_class(type(m))
            for table, parameter in ((m._parameters, True), (m._buffers, False)):
                for name, value in table.items():
                    table[name] = self._adopt(value, parameter)
        return module

    def __init__(self, *args, **kwargs):
        # PyTorch's signature (so a subclass without its own __init__ shows it); arguments
        # left over from a cooperative subclass's super().__init__(...) are an error
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments "
                            f"{args or ''}{kwargs or ''}")
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_forward_pre_hooks", {})
        object.__setattr__(self, "_forward_hooks", {})
        object.__setattr__(self, "_backward_hooks", {})
        object.__setattr__(self, "_backward_pre_hooks", {})
        object.__setattr__(self, "_is_full_backward_hook", None)

    def forward(self, *input):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if _GLOBAL_FORWARD_PRE_HOOKS or d.get("_forward_pre_hooks"):
            # the hooks of every module (register_module_forward_pre_hook) run first, as
            # PyTorch's
            for hook in [*_GLOBAL_FORWARD_PRE_HOOKS.values(), *self._forward_pre_hooks.values()]:
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        if d.get("_backward_hooks") or d.get("_backward_pre_hooks"):
            return call_with_hooks(self, args, kwargs)
        out = self.forward(*args, **kwargs)
        if _GLOBAL_FORWARD_HOOKS or d.get("_forward_hooks"):
            return self._run_forward_hooks(args, out)
        return out

    def _run_forward_hooks(self, args, out):
        for hook in [*_GLOBAL_FORWARD_HOOKS.values(), *self._forward_hooks.values()]:
            new = hook(self, args, out)
            if new is not None:
                out = new
        return out

    def register_forward_pre_hook(self, hook):
        """Call ``hook(module, args)`` before ``forward``; it may return new args."""
        return _Handle(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """Call ``hook(module, args, output)`` after ``forward``; it may return a new output.

            >>> import mutograd as mg
            >>> lin = mg.nn.Linear(2, 3)
            >>> seen = []
            >>> h = lin.register_forward_hook(lambda m, args, out: seen.append(out.shape))
            >>> _ = lin(mg.ones([4, 2])); h.remove(); _ = lin(mg.ones([1, 2]))
            >>> seen
            [[4, 3]]
        """
        return _Handle(self._forward_hooks, hook)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_output)`` when the gradients of the module's outputs are
        known; a tuple it returns replaces ``grad_output`` (Note [Module backward hooks] in
        nn/backward_hooks.py). ``forward`` then gets a view of each tensor argument."""
        return _Handle(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients of the module's
        tensor arguments are computed; a tuple it returns replaces ``grad_input``.

            >>> import mutograd as mg
            >>> lin = mg.nn.Linear(2, 1)
            >>> seen = []
            >>> h = lin.register_full_backward_hook(
            ...     lambda m, gi, go: seen.append((gi[0].shape, go[0].shape)))
            >>> lin(mg.ones([3, 2], requires_grad=True)).sum().backward()
            >>> seen
            [([3, 2], [3, 1])]
        """
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return _Handle(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """PyTorch's deprecated form: ``hook(module, grad_input, grad_output)`` on the node of
        the module's first output, with that node's gradients. Use
        :meth:`register_full_backward_hook`."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        return _Handle(self._backward_hooks, hook)

    # ---- registration -----------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError(f"cannot assign {name!r} before Module.__init__() was called")
        if isinstance(value, Parameter):
            _forget(d, name, keep="_parameters")
            d["_parameters"][name] = self._adopt(value, True)
        elif isinstance(value, Module):
            _forget(d, name, keep="_modules")
            d["_modules"][name] = self._adopt_module(value)
        elif isinstance(value, Tensor) and getattr(value, "_is_buffer", False):
            # an nn.Buffer (containers.py): registered as a buffer with its persistence
            _forget(d, name)
            self.register_buffer(name, value, value.persistent)
        elif name in d["_parameters"] or name in d["_buffers"] or name in d["_modules"]:
            table = next(t for t in ("_parameters", "_buffers", "_modules") if name in d[t])
            kind = {"_parameters": "mutograd.nn.Parameter", "_buffers": "Tensor",
                    "_modules": "Module"}[table]
            ok = value is None or (table == "_buffers" and isinstance(value, Tensor))
            if not ok:
                raise TypeError(f"cannot assign '{type(value).__name__}' as {table[1:-1]} "
                                f"'{name}' ({kind} or None expected)")
            d[table][name] = self._adopt(value, False)
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[table]:
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Add a Parameter (or None, a declared but absent parameter) under ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (mutograd.nn.Parameter or None required)")
        self._check_name(name)
        self.__dict__.pop(name, None)
        self._parameters[name] = self._adopt(param, True)

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not trained; ``persistent=False`` keeps it out of
        ``state_dict``."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            f"(Tensor or None required)")
        self._check_name(name)
        self.__dict__.pop(name, None)
        self._buffers[name] = self._adopt(tensor, False)
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        """Add a sub-module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name)
        self._modules[name] = self._adopt_module(module)

    register_module = add_module

    def _check_name(self, name):
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"module, parameter and buffer names must be non-empty strings "
                           f"without '.', got {name!r}")

    # ---- traversal --------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix=""):
        """``(name, module)`` for this module and every sub-module, each once."""
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name)

    def modules(self):
        return (m for _, m in self.named_modules())

    def named_children(self):
        return ((n, m) for n, m in self._modules.items() if m is not None)

    def children(self):
        return (m for _, m in self.named_children())

    def _named(self, table, prefix, recurse):
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mname, m in mods:
            for name, t in getattr(m, table).items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{mname}.{name}" if mname else name), t

    def named_parameters(self, prefix="", recurse=True):
        """``(dotted name, Parameter)`` pairs, each parameter once (shared ones too)."""
        return self._named("_parameters", prefix, recurse)

    def parameters(self, recurse=True):
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True):
        return self._named("_buffers", prefix, recurse)

    def buffers(self, recurse=True):
        return (b for _, b in self.named_buffers(recurse=recurse))

    def apply(self, fn):
        """Call ``fn(m)`` on every sub-module, then on this one (e.g. custom initialisation)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients ----------------------------------------------------------------
    def train(self, mode=True):
        """Training mode (dropout drops, batch norm uses and updates batch statistics)."""
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Drop every parameter's ``.grad`` (or zero it in place with ``set_to_none=False``)."""
        for p in self.parameters():
            _zero_grad(p, set_to_none)

    def clear_gradients(self, set_to_zero=False):
        """Paddle's name for :meth:`zero_grad`."""
        self.zero_grad(set_to_none=not set_to_zero)

    # ---- state ------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name (detached aliases: no copies)."""
        out = OrderedDict() if destination is None else destination
        for mname, m in self.named_modules(prefix=prefix.rstrip(".")):
            p = f"{mname}." if mname else ""
            for name, t in m._parameters.items():
                if t is not None:
                    out[p + name] = t if keep_vars else t.detach()
            for name, t in m._buffers.items():
                if t is not None and name not in m._non_persistent:
                    out[p + name] = t if keep_vars else t.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copy ``state_dict`` into this module's tensors in place.

        Raises :class:`StateDictError` listing missing keys (strict), unexpected keys (strict)
        and shape mismatches, before any tensor is written. Returns ``(missing_keys,
        unexpected_keys)``.
        """
        own = self.state_dict(keep_vars=True)
        for k, t in own.items():
            if k in state_dict and hasattr(t, "materialize"):
                # a lazy module's uninitialised tensor takes the checkpoint's shape (lazy.py)
                t.materialize(tuple(state_dict[k].shape))
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        problems = []
        for k, t in own.items():
            if k in state_dict:
                v = state_dict[k]
                shape = tuple(getattr(v, "shape", ()))
                if shape != tuple(t.shape):
                    problems.append(f"size mismatch for {k}: copying a param with shape "
                                    f"{list(shape)} from checkpoint, the shape in current model "
                                    f"is {list(t.shape)}.")
        if strict:
            if unexpected:
                problems.insert(0, "Unexpected key(s) in state_dict: "
                                + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                problems.insert(0, "Missing key(s) in state_dict: "
                                + ", ".join(f'"{k}"' for k in missing) + ".")
        if problems:
            raise StateDictError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                                 + "\n\t".join(problems))
        with no_grad():
            for k, t in own.items():
                if k in state_dict:
                    v = state_dict[k]
                    t[...] = v._data if isinstance(v, Tensor) else v
        return _IncompatibleKeys(missing, unexpected)

    set_state_dict = load_state_dict

    def to(self, *args, **kwargs):
        """Cast and/or move every parameter and buffer (``to(dtype)``, ``to('cpu')``); the
        Parameter objects are kept, so optimizers built before still hold them."""
        with no_grad():
            for t in list(self.parameters()) + list(self.buffers()):
                if t._data.dtype.kind not in "fc" and _casts(args, kwargs):
                    continue   # as PyTorch, a dtype cast leaves integer buffers alone
                new = t.to(*args, **kwargs)
                if new is not t:
                    t.data = new
                    g = t._grad
                    if g is not None and (g._place is not t._place or g.dtype != t.dtype):
                        t.__dict__["_grad"] = g.to(t._place, t.dtype)
        return self

    def float(self):
        from .. import dtypes
        return self.to(dtypes.float32)

    def double(self):
        from .. import dtypes
        return self.to(dtypes.float64)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        """Move every parameter and buffer to GPU ``device`` (the same Parameter objects)."""
        return self.to("gpu" if device is None else
                       f"gpu:{device}" if isinstance(device, int) else device)

    # ---- printing ---------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _child_lines(self):
        """``(name): repr`` of each child, its own lines indented by two spaces."""
        return [f"({name}): " + repr(m).replace("\n", "\n  ")
                for name, m in self._modules.items()]

    def __repr__(self):
        # PyTorch's layout: a one-line extra_repr without children stays inline; otherwise
        # every line of extra_repr, then every child, on its own indented line
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        lines = extra_lines + self._child_lines()
        if not lines:
            return f"{type(self).__name__}()"
        if lines == extra_lines and len(lines) == 1:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


# hooks of every module's call (register_module_forward_pre_hook, ...): key -> hook
_GLOBAL_FORWARD_PRE_HOOKS = {}
_GLOBAL_FORWARD_HOOKS = {}


def register_module_forward_pre_hook(hook):
    """Call ``hook(module, args)`` before the ``forward`` of every module (before its own
    pre-hooks); it may return new args. Returns a handle whose ``remove()`` undoes it."""
    return _Handle(_GLOBAL_FORWARD_PRE_HOOKS, hook)


def register_module_forward_hook(hook):
    """Call ``hook(module, args, output)`` after the ``forward`` of every module (before its
    own forward hooks); it may return a new output.

        >>> import mutograd as mg
        >>> seen = []
        >>> h = register_module_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
        >>> _ = mg.nn.Sequential(mg.nn.ReLU())(mg.ones([2])); h.remove()
        >>> seen
        ['ReLU', 'Sequential']
    """
    return _Handle(_GLOBAL_FORWARD_HOOKS, hook)


class _Handle:
    """What ``register_*_hook`` returns: ``remove()`` takes the hook out again."""

    _next = 0

    def __init__(self, table, hook, prepend=False):
        _Handle._next += 1
        self.table, self.key = table, _Handle._next
        table[self.key] = hook
        if prepend:   # first in the order the hooks run
            items = list(table.items())
            table.clear()
            table.update([items[-1]] + items[:-1])

    def remove(self):
        self.table.pop(self.key, None)


def _forget(d, name, keep=None):
    """Drop ``name`` from the tables other than ``keep``: re-assigning a submodule or parameter
    keeps its place in ``keep``, so ``named_parameters()`` and ``state_dict()`` keep their order
    (optimizer state and checkpoints depend on it), as in PyTorch."""
    for table in ("_parameters", "_buffers", "_modules"):
        if table != keep:
            d[table].pop(name, None)
    d.pop(name, None)


def _casts(args, kwargs):
    from ..tensor_methods import _is_dtype
    return "dtype" in kwargs or any(_is_dtype(a) for a in args if not isinstance(a, Tensor))


def _zero_grad(p, set_to_none):
    if p.grad is None:
        return
    if set_to_none:
        p.__dict__["_grad"] = None
    else:
        with no_grad():
            p.grad.zero_()


class _BufferMeta(type):
    # Buffer(t) is a plain Tensor marked as a buffer, so ``isinstance`` asks for the mark
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor that a module registers as a buffer when it is assigned as an attribute
    (``persistent=False`` keeps it out of ``state_dict``); shares ``data``'s storage."""

    def __new__(cls, data=None, *, persistent=True):
        from ..ops.creation import empty
        data = empty([0]) if data is None else data
        t = _alias(data, data._data)
        t.requires_grad = data.requires_grad
        t.persistent, t._is_buffer = persistent, True
        return t
