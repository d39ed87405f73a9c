"""docs/api_coverage.md is current, no namespace falls below its floor, and refused names say why.

The reference name lists are recorded in tools/api_names.json, so everything but the last test
runs without PyTorch or Paddle.
"""
import importlib.util
import os
import types

import pytest
from tests.helpers import ROOT

import mutograd.compat.torch as torch_compat
from mutograd.compat.torch import _refusals



def _load_tool():
    spec = importlib.util.spec_from_file_location(
        "api_coverage", os.path.join(ROOT, "tools", "api_coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


tool = _load_tool()
NAMES = tool.load_names()
ROWS = tool.coverage(NAMES)


def test_the_table_is_current():
    with open(tool.DOC_FILE) as f:
        assert f.read() == tool.render(NAMES, ROWS), \
            "docs/api_coverage.md is stale: run python tools/api_coverage.py"


@pytest.mark.parametrize("namespace", sorted(tool.FLOORS))
def test_coverage_does_not_drop(namespace):
    row = ROWS[namespace]
    assert tool.ratio(row) + 1e-9 >= tool.FLOORS[namespace], (
        f"{namespace}: {100 * tool.ratio(row):.1f}% covered, floor "
        f"{100 * tool.FLOORS[namespace]:.0f}%; missing now: {row['missing']}")


def test_every_namespace_has_a_floor_and_a_row():
    every = [ns for spaces in tool.NAMESPACES.values() for ns in spaces]
    assert sorted(tool.FLOORS) == sorted(every) == sorted(ROWS)
    for ns in every:
        row = ROWS[ns]
        assert row["present"] + len(row["refused"]) + len(row["missing"]) == row["total"]
        assert row["total"] == len(NAMES[ns.split(".")[0]]["names"][ns]) > 0


def _torch_namespace(ns):
    if ns == "torch.Tensor":
        return torch_compat.Tensor
    return importlib.import_module("mutograd.compat." + ns)


@pytest.mark.parametrize("namespace", [ns for ns in tool.NAMESPACES["torch"]
                                       if ROWS[ns]["refused"]])
def test_a_refused_name_raises_its_reason(namespace):
    obj = _torch_namespace(namespace)
    for name, why in ROWS[namespace]["refused"].items():
        with pytest.raises(AttributeError) as e:
            getattr(obj, name)
        assert why in str(e.value) and name in str(e.value)
        assert "not supported in mutograd" in str(e.value)


def test_refusal_on_a_tensor_and_a_module():
    x = torch_compat.ones(2)
    assert not hasattr(x, "q_scale")
    with pytest.raises(AttributeError, match="Tensor.values is not supported.*dense"):
        x.values()
    with pytest.raises(AttributeError, match=r"torch\.cudnn_convolution is not supported.*"
                                             r"conv2d"):
        torch_compat.cudnn_convolution
    # a name that is neither present nor refused keeps the plain "not supported yet" error
    with pytest.raises(AttributeError, match="not supported yet"):
        torch_compat.no_such_function_anywhere
    assert _refusals.reason("torch", "conv2d") is None


def test_public_names_rule():
    mod = types.ModuleType("fake")
    mod.op = lambda x: x                     # a function: counts
    mod.Layer = type("Layer", (), {})        # a class: counts
    mod._hidden = print                      # private: not a name
    mod.sub = types.ModuleType("fake.sub")   # a submodule: a namespace of its own
    mod.has_mkl = True                       # a build flag (Python data): not API
    mod.notes = {"a": "b"}                   # doc notes
    import typing
    mod.Optional = typing.Optional           # a typing helper
    mod.Callable = typing.Callable
    assert tool.public_names(mod) == ["Layer", "op"]
    # on a class every public attribute counts, properties and methods alike
    cls = type("T", (), {"shape": property(lambda s: 1), "add": lambda s: s, "_x": 1,
                         "is_leaf": True})
    assert tool.public_names(cls) == ["add", "is_leaf", "shape"]


def test_render_lists_every_missing_name():
    text = tool.render(NAMES, ROWS)
    for ns, row in ROWS.items():
        assert f"## `{ns}`" in text
        for name in row["missing"]:
            assert f"`{name}`" in text


@pytest.mark.torch
def test_recorded_torch_names_match_the_installed_wheel():
    torch = pytest.importorskip("torch")
    if torch.__version__ != NAMES["torch"]["version"]:
        pytest.skip(f"recorded for PyTorch {NAMES['torch']['version']}")
    assert tool.dump("torch")["names"] == NAMES["torch"]["names"]
