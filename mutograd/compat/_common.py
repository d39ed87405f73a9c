"""What both compat namespaces start from: the main namespace's public names."""
import mutograd as _mg

_SKIP = {"compat", "ops", "tensor_methods", "walkthrough"}


def public_names():
    """The main namespace's public names (functions, dtypes, classes), to be overridden."""
    return {k: v for k, v in vars(_mg).items()
            if not k.startswith("_") and k not in _SKIP and not _is_submodule(v)}


def _is_submodule(v):
    return type(v).__name__ == "module" and v.__name__ not in ("mutograd.memory",
                                                               "mutograd.errors")


def activation(op_name, doc):
    """``f(x, *attrs, inplace=False)``: the op out of place, or in place on ``x`` (returns x)."""
    fn, fn_ = getattr(_mg, op_name), getattr(_mg, op_name + "_")

    def act(input, *args, inplace=False, **kw):
        kw.pop("name", None)
        return (fn_ if inplace else fn)(input, *args, **kw)
    act.__name__ = op_name
    act.__doc__ = doc
    return act
