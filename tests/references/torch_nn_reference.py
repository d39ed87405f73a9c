"""Record PyTorch 2.13's ``torch.nn`` surface into torch_nn_signatures.json, which
tests/compat/test_torch_nn_surface.py compares with the torch dialect without PyTorch installed.

Run from the repository root where ``torch==2.13`` is installed (never a runtime or CI
dependency)::

    python -m tests.references.torch_nn_reference

It stores, for every ``torch.nn.Module`` subclass in ``torch.nn``:

* ``signatures``: the parameters of ``__init__`` after ``self`` as ``[name, kind, default]``
  (``default`` the ``repr`` of the default, ``null`` when required; a function as
  ``<function name>``; RNN, LSTM and GRU: their documented parameters);
* ``forward_signatures``: the parameters of ``forward`` after ``self``, in the same form (what
  a keyword call such as ``nn.Linear(3, 2)(input=x)`` binds to);
* ``reprs``: ``repr(module)`` for each case of tests/references/torch_nn_cases.py and each
  class built with no arguments;
* ``files``: ``torch.nn.modules.<file>`` -> the names it offers (its ``__all__``, the module
  base classes defined there, and the tuple helpers of ``utils``).
"""
import importlib
import inspect
import json
import os
import pkgutil

from tests.references.torch_nn_cases import all_cases, build

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_nn_signatures.json")
# the helpers of torch.nn.modules.utils that layers and user code import
UTILS = ["_ntuple", "_single", "_pair", "_triple", "_quadruple"]


def describe_default(value):
    """A default value as text that does not depend on the process (a function by its name)."""
    if value is inspect.Parameter.empty:
        return None
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return f"<function {value.__name__}>"
    return repr(value)


def signature(cls, method="__init__"):
    """The parameters of ``cls.<method>`` after ``self``, as ``[name, kind, default]``."""
    params = list(inspect.signature(getattr(cls, method)).parameters.values())[1:]
    return [[p.name, p.kind.name, describe_default(p.default)] for p in params]


def documented_signature(torch, cls):
    """``signature(cls)``, except for PyTorch's RNN, LSTM and GRU, whose ``__init__`` takes
    ``(*args, **kwargs)``: their documented parameters, RNNBase's without ``mode`` (RNN: with
    ``nonlinearity`` after ``num_layers`` and no ``proj_size``)."""
    params = signature(cls)
    if cls not in (torch.nn.RNN, torch.nn.LSTM, torch.nn.GRU):
        return params
    params = signature(torch.nn.RNNBase)[1:]
    if cls is torch.nn.RNN:
        params = [p for p in params if p[0] != "proj_size"]
        params.insert(3, ["nonlinearity", "POSITIONAL_OR_KEYWORD", "'tanh'"])
    return params


def module_classes(nn):
    return sorted(n for n, v in vars(nn).items()
                  if isinstance(v, type) and issubclass(v, nn.Module))


def files(torch):
    out = {}
    for info in pkgutil.iter_modules(torch.nn.modules.__path__):
        mod = importlib.import_module(f"torch.nn.modules.{info.name}")
        names = list(getattr(mod, "__all__", []))
        names += [n for n, v in vars(mod).items()
                  if isinstance(v, type) and issubclass(v, torch.nn.Module)
                  and v.__module__ == mod.__name__ and n not in names]
        if info.name == "utils":
            names += UTILS
        if names and not info.name.startswith("_"):
            out[info.name] = names
    return out


def main():
    import torch
    nn = torch.nn
    names = module_classes(nn)
    reprs = {}
    for key, case in all_cases(nn, names).items():
        torch.manual_seed(0)
        reprs[key] = repr(build(nn, case))
    data = {"torch": torch.__version__.split("+")[0],
            "signatures": {n: documented_signature(torch, getattr(nn, n)) for n in names},
            "forward_signatures": {n: signature(getattr(nn, n), "forward") for n in names},
            "reprs": reprs,
            "files": files(torch)}
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}: {len(names)} classes, {len(reprs)} reprs, {len(data['files'])} files")


if __name__ == "__main__":
    main()
