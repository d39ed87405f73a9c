"""Building a compat namespace: what it starts from (the main namespace's public names) and how
it refuses a name it lacks (an AttributeError naming the framework's spelling and, where one is
recorded in the namespace's ``_refusals.py``, the reason)."""
import mutograd as _mg

_SKIP = {"compat", "ops", "tensor_methods", "Tensor"}


def public_names():
    """The main namespace's public names (functions, dtypes, classes), to be overridden."""
    return {k: v for k, v in vars(_mg).items()
            if not k.startswith("_") and k not in _SKIP and not _is_submodule(v)}


def _is_submodule(v):
    return type(v).__name__ == "module" and v.__name__ not in ("mutograd.memory",
                                                               "mutograd.errors")


def refuse_missing(root):
    """Give ``root`` (a compat package) and each of its submodules a module ``__getattr__`` that
    names a missing attribute and its framework spelling, instead of a bare AttributeError; a
    name that ``root._refusals.reason`` refuses raises with its reason and alternative."""
    import importlib
    import pkgutil
    import sys
    framework = root.__name__.rsplit(".", 1)[-1]
    try:
        reason = importlib.import_module(root.__name__ + "._refusals").reason
    except ImportError:
        reason = None
    names = [root.__name__] + [i.name for i in pkgutil.walk_packages(root.__path__,
                                                                    root.__name__ + ".")]
    for name in names:
        mod = sys.modules.get(name)
        if mod is not None and "__getattr__" not in vars(mod):
            mod.__getattr__ = _missing(name, framework + name[len(root.__name__):], reason)


def _missing(module_name, framework_name, reason=None):
    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):     # probes by import machinery
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        why = reason and reason(framework_name, name)
        if why:
            raise AttributeError(f"{framework_name}.{name} is not supported in mutograd: {why}")
        raise AttributeError(f"{module_name} has no attribute {name!r} "
                             f"({framework_name}.{name} is not supported yet)")
    return __getattr__


def refused_functions(module, why, error, names):
    """Functions ``module.name`` for each of ``names`` that raise ``error`` saying they are not
    supported and ``why`` (what to do instead), with that as their docstring."""
    def refused(name):
        def fn(*args, **kwargs):
            raise error(f"{module}.{name}() is not supported: {why}")
        fn.__name__ = name
        fn.__doc__ = f"Refused: {why}."
        return fn
    return [refused(n) for n in names]


def typed_functions(root, cls, family, takes_out=None):
    """Make every public function of the package ``root`` and its submodules give tensors of
    ``cls`` and dtypes of ``family`` (``{numpy dtype: DType}``) where the main namespace's
    function would give main ones: Note [Tensor types of the dialects] in mutograd/tensor.py.
    Tensors an argument already holds are returned as they are. With ``takes_out`` (the
    framework's dotted names, ``torch.linalg.svd``), the functions it names take ``out=`` (Note
    [Writing into out=] in mutograd/autograd/out_arguments.py) and the others refuse it, as the
    framework's do."""
    import sys
    import types
    prefix = root.__name__
    framework = prefix.rsplit(".", 1)[-1]
    wrapped = {}
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == prefix or name.startswith(prefix + ".")):
            continue
        d = vars(mod)
        for key, value in list(d.items()):
            if key.startswith("_") or not isinstance(value, (types.FunctionType,
                                                             types.BuiltinFunctionType)):
                continue
            if getattr(value, "__module__", "") == "typing":
                continue
            out = (None if takes_out is None
                   else f"{framework}{name[len(prefix):]}.{key}" in takes_out)
            typed = wrapped.get((id(value), out))
            if typed is None:
                typed = wrapped[id(value), out] = _typed(value, cls, family, out)
            d[key] = typed


def _typed(fn, cls, family, takes_out=None):
    import functools

    from ..autograd.out_arguments import write_results
    from ..dtypes import DType
    from ..tensor import adopt

    @functools.wraps(fn)
    def typed(*args, **kwargs):
        if "out" in kwargs and takes_out is not None:
            out = kwargs.pop("out")
            if out is not None:
                if not takes_out:
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument 'out'")
                return write_results(fn.__name__, lambda: typed(*args, **kwargs),
                                     args + tuple(kwargs.values()), out)
        r = fn(*args, **kwargs)
        t = type(r)
        if t is cls or r is None:
            return r
        if t is DType:
            return family.get(r.np, r)
        return adopt(r, cls, args + tuple(kwargs.values()) if kwargs else args)
    return typed
