"""How much of PyTorch's and Paddle's public API the compat dialects cover.

Two steps, so that the check runs without either framework installed:

1. ``--record`` lists the public names of PyTorch (this interpreter) and of Paddle (a second
   interpreter, ``--paddle-python``, which runs this file with ``--dump paddle`` and prints the
   names as JSON), and writes them to ``tools/api_names.json``.
2. The default run reads ``tools/api_names.json``, looks each name up in
   ``mutograd.compat.torch`` / ``mutograd.compat.paddle`` (``torch.Tensor`` and ``paddle.Tensor``
   in the dialects' Tensor classes) and writes ``docs/api_coverage.md``: per namespace, how many
   names exist, which are refused on purpose (with the reason) and every missing one.
   ``--check`` compares instead of writing, and fails when a namespace falls below its floor
   (``FLOORS``); ``tests/compat/test_api_coverage.py`` runs the same check.

Which names count (``public_names``): ``dir()`` without a leading underscore, less

- submodules (``torch.nn.functional`` is a namespace of its own, ``torch.os`` is not API);
- objects that come from Python's standard library: ``typing`` helpers such as
  ``torch.nn.functional.Callable``, and plain ``bool``/``float``/``dict``/``tuple``/``None`` data
  (build flags such as ``torch.has_mkl``, doc notes such as ``torch.linalg.common_notes``, and
  the constants ``e``, ``pi``, ``inf``, ``nan``, ``newaxis``, which the dialects have anyway).

Everything else counts: functions, classes, dtypes, layouts, memory formats; for the Tensor
classes every public attribute (methods and properties alike).

A name is covered when the dialect has it, or when ``mutograd/compat/<framework>/_refusals.py``
lists it with the reason it makes no sense here (``REFUSED``); using a refused name raises an
error that says why and what to use instead.

    python tools/api_coverage.py                 # rewrite docs/api_coverage.md
    python tools/api_coverage.py --check         # fail if it is stale or coverage dropped
    python tools/api_coverage.py --record --paddle-python /path/to/paddle-venv/bin/python
    python tools/api_coverage.py --record --torch-only   # keep Paddle's recorded lists

The record also lists, per namespace, the PyTorch functions that take ``out=``
(``out_functions``) in ``mutograd/compat/torch/out_functions.json``; the torch dialect's
functions of those names take it (``mutograd/compat/torch/out_arguments.py``).
"""
import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES_FILE = os.path.join(ROOT, "tools", "api_names.json")
DOC_FILE = os.path.join(ROOT, "docs", "api_coverage.md")
OUT_FILE = os.path.join(ROOT, "mutograd", "compat", "torch", "out_functions.json")

NAMESPACES = {
    "torch": ["torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.optim",
              "torch.optim.lr_scheduler", "torch.autograd", "torch.utils.data", "torch.linalg",
              "torch.fft", "torch.special", "torch.distributions", "torch.func", "torch.sparse"],
    "paddle": ["paddle", "paddle.Tensor", "paddle.nn", "paddle.nn.functional",
               "paddle.optimizer", "paddle.io", "paddle.autograd", "paddle.base.dygraph",
               "paddle.fft", "paddle.distribution", "paddle.linalg", "paddle.sparse",
               "paddle.callbacks", "paddle.metric"],
}

# The lowest coverage (covered / total) each namespace may fall to: raise a floor when coverage
# rises, never lower one to make the check pass.
FLOORS = {
    "torch": 1.0,
    "torch.Tensor": 1.0,
    "torch.nn": 1.0,
    "torch.nn.functional": 1.0,
    "torch.optim": 1.0,
    "torch.optim.lr_scheduler": 1.0,
    "torch.autograd": 1.0,
    "torch.utils.data": 1.0,
    "torch.linalg": 1.0,
    "torch.fft": 1.0,
    "torch.special": 1.0,
    "torch.distributions": 1.0,
    "torch.func": 1.0,
    "torch.sparse": 1.0,
    "paddle": 1.0,
    "paddle.Tensor": 1.0,
    "paddle.nn": 1.0,
    "paddle.nn.functional": 1.0,
    "paddle.optimizer": 1.0,
    "paddle.io": 1.0,
    "paddle.autograd": 1.0,
    "paddle.base.dygraph": 1.0,
    "paddle.fft": 1.0,
    "paddle.distribution": 1.0,
    "paddle.linalg": 1.0,
    "paddle.sparse": 1.0,
    "paddle.callbacks": 1.0,
    "paddle.metric": 1.0,
}

_STDLIB = set(sys.stdlib_module_names)


def _from_stdlib(obj):
    """Whether ``obj`` is Python's own (a typing helper, a bool flag, a dict of notes)."""
    mod = getattr(obj, "__module__", None) if isinstance(obj, type) or callable(obj) else None
    if not isinstance(mod, str):
        mod = type(obj).__module__
    return mod.split(".")[0] in _STDLIB


def public_names(obj):
    """The public names of a module or class, by the rule in this module's docstring."""
    names = []
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:        # a property of a class read on the class, a lazy import
            names.append(name)
            continue
        if isinstance(value, types.ModuleType):
            continue
        if not isinstance(obj, type) and _from_stdlib(value):
            continue
        names.append(name)
    return sorted(names)


def _resolve(namespace):
    """The module or class a dotted namespace names (``torch.Tensor`` is a class)."""
    parts = namespace.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(namespace)


def dump(framework):
    """``{namespace: [names]}`` for one framework, from the installed wheel, plus its version."""
    import warnings
    with warnings.catch_warnings():          # deprecation notices of lazily imported modules
        warnings.simplefilter("ignore")
        mod = importlib.import_module(framework)
        out = {"version": mod.__version__, "names": {}}
        for ns in NAMESPACES[framework]:
            out["names"][ns] = public_names(_resolve(ns))
    return out


# The namespaces whose functions may take ``out=``, and the prefix of their ATen operators.
OUT_NAMESPACES = {"torch": "", "torch.linalg": "linalg_", "torch.special": "special_",
                  "torch.fft": "fft_"}


def out_functions():
    """``{namespace: [names]}``: the functions of this interpreter's PyTorch that take ``out=``.
    A built-in takes it when one of its ATen overloads has out arguments (the Python binding
    offers every overload); a Python-level function when its signature names ``out``."""
    import inspect

    import torch
    found = {}
    for ns, prefix in OUT_NAMESPACES.items():
        mod = _resolve(ns)
        names = []
        for name in public_names(mod):
            fn = getattr(mod, name)
            if isinstance(fn, type) or not callable(fn):
                continue
            if isinstance(fn, types.BuiltinFunctionType):
                try:
                    schemas = torch._C._jit_get_schemas_for_operator("aten::" + prefix + name)
                except RuntimeError:
                    schemas = []
                takes = (any(a.is_out for s in schemas for a in s.arguments)
                         and _binding_takes_out(fn))
            else:
                try:
                    takes = "out" in inspect.signature(fn).parameters
                except (TypeError, ValueError):
                    takes = False
            if takes:
                names.append(name)
        found[ns] = names
    return found


def _binding_takes_out(fn):
    """Whether a PyTorch built-in's Python binding offers ``out=`` (some ATen out overloads
    exist only for the compiler): its docstring's signature says so, or its argument parser,
    called with ``out`` and a few dummy arguments, says what it made of ``out``."""
    import torch
    head = (fn.__doc__ or "").strip().split("\n\n")[0]
    if re.search(r"\bout\b", head.split("->")[0]):
        return True
    x = torch.empty(0)
    for args in [(), (x,), (x, 0), (x, 0, x), (x, x), ([x],)]:
        try:
            fn(*args, out=object())
        except TypeError as e:
            msg = str(e)
            if "argument 'out' must be" in msg:
                return True
            if "unexpected keyword argument 'out'" in msg:
                return False
            if "expected one of" in msg:
                return "out = None" in msg
            if "missing" not in msg:
                return False
        except Exception:
            return False
    return False


def record(paddle_python, path=NAMES_FILE):
    """Write the reference name lists of PyTorch (this interpreter) and Paddle (a subprocess;
    with ``paddle_python`` None, Paddle's recorded lists are kept)."""
    data = {"torch": dump("torch")}
    with open(OUT_FILE, "w") as f:
        json.dump(out_functions(), f, indent=1, sort_keys=True)
        f.write("\n")
    if paddle_python is None:
        data["paddle"] = load_names(path)["paddle"]
    else:
        proc = subprocess.run([paddle_python, os.path.abspath(__file__), "--dump", "paddle"],
                              capture_output=True, text=True, check=True)
        data["paddle"] = json.loads(proc.stdout.strip().splitlines()[-1])
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    return data


def load_names(path=NAMES_FILE):
    with open(path) as f:
        return json.load(f)


# ---- the dialects' side -----------------------------------------------------------------------
def _dialect_object(namespace):
    """What ``namespace`` is in mutograd: a compat module, a dialect's Tensor class, or None."""
    framework, _, rest = namespace.partition(".")
    if rest == "Tensor":
        return importlib.import_module(f"mutograd.compat.{framework}").Tensor
    name = f"mutograd.compat.{framework}" + (f".{rest}" if rest else "")
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def refusals(framework):
    """``reason(namespace, name)`` of ``mutograd.compat.<framework>._refusals`` (None: not
    refused); a framework without that module refuses nothing."""
    try:
        mod = importlib.import_module(f"mutograd.compat.{framework}._refusals")
    except ImportError:
        return lambda namespace, name: None
    return mod.reason


def _has(obj, name):
    if obj is None:
        return False
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    return True


def coverage(names):
    """Per namespace: ``total``, ``present``, ``refused`` ({name: reason}), ``missing``."""
    rows = {}
    for framework in NAMESPACES:
        reason = refusals(framework)
        for ns in NAMESPACES[framework]:
            if ns not in names[framework]["names"]:   # not recorded yet
                continue
            obj = _dialect_object(ns)
            row = rows[ns] = {"total": 0, "present": 0, "refused": {}, "missing": []}
            for name in names[framework]["names"][ns]:
                row["total"] += 1
                why = None if _has(obj, name) else reason(ns, name)
                if why:
                    row["refused"][name] = why
                elif _has(obj, name):
                    row["present"] += 1
                else:
                    row["missing"].append(name)
    return rows


def ratio(row):
    return (row["present"] + len(row["refused"])) / row["total"] if row["total"] else 1.0


def render(names, rows):
    """The text of docs/api_coverage.md."""
    out = ["# API coverage of the PyTorch and Paddle dialects", "",
           "Generated by `python tools/api_coverage.py` from the name lists recorded in",
           f"`tools/api_names.json` (PyTorch {names['torch']['version']}, Paddle "
           f"{names['paddle']['version']}); `tests/compat/test_api_coverage.py` fails when this",
           "file is stale or a namespace falls below its floor. Which names count is explained in",
           "the tool's docstring: `dir()` without a leading underscore, less submodules and",
           "Python's own objects (typing helpers, build flags, notes, `e`/`pi`/`inf`/`nan`).",
           "A name counts as covered when the dialect has it, or when it is refused on purpose",
           "(`mutograd/compat/<framework>/_refusals.py`): using a refused name raises an error",
           "giving the reason and what to use instead.", "",
           "| namespace | names | present | refused | missing | covered | floor |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for ns, row in rows.items():
        out.append(f"| `{ns}` | {row['total']} | {row['present']} | {len(row['refused'])} | "
                   f"{len(row['missing'])} | {100 * ratio(row):.1f}% | "
                   f"{100 * FLOORS.get(ns, 0):.0f}% |")
    for ns, row in rows.items():
        out += ["", f"## `{ns}`", ""]
        if row["refused"]:
            out += ["Refused (the reason is the error's message):", ""]
            for reason in sorted(set(row["refused"].values())):
                listed = sorted(n for n, r in row["refused"].items() if r == reason)
                out.append(f"- {reason}: " + ", ".join(f"`{n}`" for n in listed))
            out.append("")
        if row["missing"]:
            out += [f"Missing ({len(row['missing'])}):", "",
                    _wrap(", ".join(f"`{n}`" for n in row["missing"]))]
        else:
            out.append("Nothing missing.")
    return "\n".join(out) + "\n"


def _wrap(text, width=100):
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join(lines + [line])


def below_floor(rows):
    """``[(namespace, coverage, floor)]`` for each namespace under its floor."""
    return [(ns, ratio(row), FLOORS[ns]) for ns, row in rows.items()
            if ratio(row) + 1e-9 < FLOORS.get(ns, 0)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--record", action="store_true",
                   help="re-list the frameworks' names into tools/api_names.json first")
    p.add_argument("--paddle-python", default="/work/paddle-venv/bin/python",
                   help="an interpreter with paddle installed (for --record)")
    p.add_argument("--torch-only", action="store_true",
                   help="with --record: re-list PyTorch only, keep Paddle's recorded lists")
    p.add_argument("--check", action="store_true",
                   help="compare with docs/api_coverage.md and the floors; write nothing")
    p.add_argument("--dump", choices=sorted(NAMESPACES), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.dump:
        print(json.dumps(dump(a.dump)))
        return 0
    sys.path.insert(0, ROOT)
    names = (record(None if a.torch_only else a.paddle_python) if a.record else load_names())
    rows = coverage(names)
    text = render(names, rows)
    low = below_floor(rows)
    for ns, got, floor in low:
        print(f"{ns}: coverage {100 * got:.1f}% is below its floor {100 * floor:.0f}%")
    if a.check:
        with open(DOC_FILE) as f:
            stale = f.read() != text
        if stale:
            print("docs/api_coverage.md is stale: run python tools/api_coverage.py")
        return 1 if stale or low else 0
    with open(DOC_FILE, "w") as f:
        f.write(text)
    for ns, row in rows.items():
        print(f"{ns:22} {100 * ratio(row):5.1f}%  ({len(row['missing'])} missing)")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
