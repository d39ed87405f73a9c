"""Generated functions show a real signature and a docstring whose example runs, and the editor
stub ``mutograd/__init__.pyi`` is current (Note [Example outputs] in mutograd/ops/signatures.py).
"""
import ast
import doctest
import inspect
import os
import pydoc

import numpy as np
import pytest

import mutograd as mg
from mutograd.ops import OPS
from mutograd.autograd.arguments import _KW_ALIASES
from mutograd.tools import stubs
from tests.op_db import OPS as ROWS

FUNCTIONS = [(f.__name__, f) for op in OPS.values()
             for f in (op.function, op.inplace_function) if f is not None]


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_docstring_example_runs(name, fn):
    assert "Example::" in fn.__doc__, (
        f"no example could be made for {name}: give defop(example=...) or a row of CALLS in "
        f"mutograd/ops/signatures.py")
    test = doctest.DocTestParser().get_doctest(fn.__doc__, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def _generated(name):
    fn = getattr(mg, name, None)
    return fn if getattr(fn, "_op", None) is not None else None


def _bind(fn, args, kwargs, first=None):
    op = fn._op
    kwargs = {k if k in fn.__signature__.parameters else _KW_ALIASES.get(k, k): v
              for k, v in kwargs.items()}   # aliases are documented, not in the signature
    if op.varargs in kwargs:   # ``shape=`` by keyword stands for the varargs
        v = kwargs.pop(op.varargs)
        args = list(args) + list(v if isinstance(v, (list, tuple)) else (v,))
    sig = inspect.signature(fn)
    sig.bind(*args, **kwargs)


@pytest.mark.parametrize("row", [r for r in ROWS if r.call is None and _generated(r.name)],
                         ids=lambda r: r.id)
def test_signature_binds_the_op_table_calls(row):
    sample = row.draw(np.random.default_rng(0))
    fn = _generated(row.name)
    _bind(fn, sample.args, sample.kwargs)
    if getattr(getattr(mg.Tensor, row.name, None), "_op", None) is not None:
        _bind(getattr(mg.Tensor, row.name), sample.args, sample.kwargs)
    if row.inplace and _generated(row.name + "_"):
        _bind(_generated(row.name + "_"), sample.args, sample.kwargs)


def test_signature_shapes():
    assert str(inspect.signature(mg.add)) == "(x, y, alpha=1, *, out=None)"
    assert str(inspect.signature(mg.add_)) == "(x, y, alpha=1)"
    assert str(inspect.signature(mg.reshape)) == "(x, *shape)"
    assert str(inspect.signature(mg.sum)) == "(x, axis=None, keepdim=False, dtype=None)"
    assert str(inspect.signature(mg.Tensor.add)) == "(self, y, alpha=1, *, out=None)"
    assert str(inspect.signature(mg.Tensor.add_)) == "(self, y, alpha=1)"
    assert str(inspect.signature(mg.tensor([1.0]).add)) == "(y, alpha=1, *, out=None)"
    assert "``dim=``, ``dims=`` for ``axis``" in mg.sum.__doc__


def test_help_shows_the_signature_and_an_example():
    text = pydoc.render_doc(mg.add, renderer=pydoc.plaintext)
    assert "add(x, y, alpha=1, *, out=None)" in text
    assert ">>> mg.add(x, y)" in text and "Backward saves: nothing" in text
    text = pydoc.render_doc(mg.Tensor.add, renderer=pydoc.plaintext)
    assert "add(self, y, alpha=1, *, out=None)" in text


# ---- the editor stub -------------------------------------------------------------------------

STUB = os.path.join(os.path.dirname(mg.__file__), "__init__.pyi")


def _stub_text():
    with open(STUB) as f:
        return f.read()


def test_stub_is_current():
    assert _stub_text() == stubs.render(), (
        "mutograd/__init__.pyi is out of date: run `python -m mutograd.tools.stubs`")


def test_stub_declares_every_public_name():
    tree = ast.parse(_stub_text())
    top, tensor = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            top.update(a.asname for a in node.names if a.asname)
        if isinstance(node, ast.ClassDef) and node.name == "Tensor":
            tensor = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            tensor |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
    missing = sorted(n for n in dir(mg) if not n.startswith("_") and n not in top)
    assert missing == [], f"not in mutograd/__init__.pyi: {missing}"
    missing = sorted(n for n in dir(mg.Tensor) if not n.startswith("_") and n not in tensor)
    assert missing == [], f"Tensor members not in mutograd/__init__.pyi: {missing}"
    assert "add" in tensor and "shape" in tensor
