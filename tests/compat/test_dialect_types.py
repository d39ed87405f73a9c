"""A dialect is a type: ``torch.Tensor`` and ``paddle.Tensor`` mean their framework's conventions
wherever they are used, whoever asks; the main Tensor keeps one meaning."""
import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from tests.helpers import ROOT

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as mtorch
from mutograd import compat

# What ``probe(x)`` (below) sees on ``x = arange(6.0)`` of each namespace: pieces of split(3),
# kind of max(0), repr of the shape, str of the dtype, type(), a backward() of a non-scalar
# output, layout of repr(x), decimals printed.
SEEN = {
    "mutograd": (2, "pair", "[6]", "float32", "mutograd.float32", "ones", "Tensor(", 8),
    "torch": (2, "pair", "torch.Size([6])", "torch.float32", "torch.FloatTensor", "refused",
              "tensor(", 4),
    "paddle": (3, "values", "[6]", "paddle.float32", "mutograd.float32", "ones", "Tensor(", 8),
}
NAMESPACES = {"mutograd": mg, "torch": mtorch, "paddle": paddle}


def probe(x):
    """A helper that knows no framework: it only uses what it is given."""
    y = x.detach().requires_grad_()
    try:
        (y * 2).backward()
        grad = "ones"
    except RuntimeError:
        grad = "refused"
    text = repr(x / 3)
    return (len(x.split(3)), "pair" if isinstance(x.max(0), tuple) else "values", repr(x.shape),
            str(x.dtype), x.type(), grad, text[:7], len(re.search(r"0\.(\d+)", text)[1]))


@pytest.mark.parametrize("name", SEEN)
def test_a_tensor_means_its_namespace_wherever_it_is_used(name):
    x = NAMESPACES[name].arange(6.0)
    assert probe(x) == SEEN[name]


def test_the_issue_example_with_a_function_local_import():
    def f():
        import mutograd.compat.torch as torch
        x = torch.zeros(2, dtype=torch.int64)
        return str(x.dtype), repr(x)
    assert f() == ("torch.int64", "tensor([0, 0])")


def test_a_namespace_received_as_an_argument_and_a_helper_module(tmp_path, monkeypatch):
    (tmp_path / "helper_lib.py").write_text(textwrap.dedent("""
        def describe(t):
            return str(t.dtype), repr(t), len(t.split(2))
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import helper_lib

    def make(ns):
        return ns.zeros([4], dtype=ns.int64)
    assert helper_lib.describe(make(mtorch)) == ("torch.int64", "tensor([0, 0, 0, 0])", 2)
    dtype, text, pieces = helper_lib.describe(make(paddle))
    assert (dtype, text[:7], pieces) == ("paddle.int64", "Tensor(", 2)
    assert str(make(mg).dtype) == "int64"


def test_threads_see_the_type_not_a_setting():
    out = {}

    def run(name):
        out[name] = [probe(NAMESPACES[name].arange(6.0)) for _ in range(20)]
    threads = [threading.Thread(target=run, args=(n,)) for n in SEEN]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(seen == [SEEN[n]] * 20 for n, seen in out.items())


def test_dtypes_are_per_namespace_and_equal_across_them():
    assert (repr(mtorch.float32), repr(paddle.float32), repr(mg.float32)) == (
        "torch.float32", "paddle.float32", "float32")
    assert mtorch.float32 == paddle.float32 == mg.float32 == np.float32
    assert mtorch.float32 == "float32" and paddle.float32 == np.dtype("float32")
    assert hash(mtorch.int64) == hash(mg.int64)
    assert mtorch.float32 != mtorch.float64 and mtorch.int == mg.int32   # torch.int is int32
    x = mtorch.ones(2, dtype=paddle.float64)           # any namespace's dtype is accepted
    assert x.dtype is mtorch.float64 and str(mg.tensor([1]).dtype) == "int64"
    assert mtorch.get_default_dtype() is mtorch.float32
    assert f"{mtorch.tensor([1.]).dtype}" == "torch.float32"


def test_isinstance_and_the_type_of_results():
    t, p, m = mtorch.ones(2), paddle.ones([2]), mg.ones(2)
    assert isinstance(t, mtorch.Tensor) and isinstance(t, mg.Tensor)
    assert not isinstance(m, mtorch.Tensor) and not isinstance(p, mtorch.Tensor)
    assert isinstance(p, paddle.Tensor) and type(m) is mg.Tensor
    for r in (t + 1, t * t, t.exp(), t[0], t.view(2, 1), t.sum(), mg.exp(t), t.detach(),
              t.clone(), 2 - t, mtorch.stack([t, t]), t.max(0).values):
        assert type(r) is mtorch.Tensor, r
    assert type(p.split(2)[0]) is paddle.Tensor and type(paddle.concat([p, p])) is paddle.Tensor


def test_mixing_rule_first_dialect_input_decides():
    t, p, m = mtorch.ones(2), paddle.ones([2]), mg.ones(2)
    assert type(m + t) is mtorch.Tensor and type(t + m) is mtorch.Tensor   # main adopts
    assert type(mg.cat([m, t])) is mtorch.Tensor
    assert type(t + p) is mtorch.Tensor and type(p + t) is paddle.Tensor   # first dialect wins
    m.add_(t)                                          # a write keeps the written tensor's type
    assert type(m) is mg.Tensor


def test_gradients_parameters_and_layers_are_of_the_namespace():
    lin = mtorch.nn.Linear(2, 3)
    assert type(lin.weight) is mtorch.nn.Parameter and isinstance(lin.weight, mtorch.Tensor)
    assert isinstance(lin, mtorch.nn.Module) and isinstance(lin, mg.nn.Linear)
    out = lin(mtorch.ones(4, 2))
    assert type(out) is mtorch.Tensor and repr(out.grad_fn) == "<AddmmBackward0>" or \
        repr(out.grad_fn).endswith("Backward0>")
    out.sum().backward()
    assert type(lin.weight.grad) is mtorch.Tensor and repr(lin.weight.grad.shape) == \
        "torch.Size([3, 2])"
    seen = []
    x = mtorch.ones(2, requires_grad=True)
    x.register_hook(lambda g: seen.append(type(g)))
    (gx,) = mtorch.autograd.grad((x * x).sum(), x, create_graph=True)
    assert seen == [mtorch.Tensor] and type(gx) is mtorch.Tensor

    class Net(mtorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = mg.nn.Parameter(mg.ones(2))          # a main Parameter is adopted
            self.register_buffer("b", mg.zeros(2))
    net = Net()
    assert type(net.w) is mtorch.nn.Parameter and type(net.b) is mtorch.Tensor
    layer = paddle.nn.Linear(2, 3)
    assert type(layer.weight).__name__ == "Parameter" and isinstance(layer.weight, paddle.Tensor)
    assert mg.nn.Linear(2, 3).weight.__class__ is mg.nn.Parameter


def test_checkpoints_and_interop_give_the_loading_namespace_tensors(tmp_path):
    path = str(tmp_path / "w.pt")
    mtorch.save({"w": mtorch.ones(2), "n": [mtorch.zeros(1)]}, path)
    got = mtorch.load(path)
    assert type(got["w"]) is mtorch.Tensor and type(got["n"][0]) is mtorch.Tensor
    p = str(tmp_path / "w.pdparams")
    paddle.save({"w": paddle.ones([2])}, p)
    assert type(paddle.load(p)["w"]) is paddle.Tensor
    assert type(mtorch.from_numpy(np.ones(2))) is mtorch.Tensor
    assert type(paddle.to_tensor(np.ones(2))) is paddle.Tensor
    assert type(mg.from_numpy(np.ones(2))) is mg.Tensor


def test_two_libraries_of_different_dialects_in_one_process(tmp_path, monkeypatch):
    (tmp_path / "lib_torch.py").write_text(textwrap.dedent("""
        import mutograd.compat.torch as torch
        def run():
            x = torch.arange(6.0)
            return repr(x.shape), len(x.split(2)), str(x.dtype)
    """))
    (tmp_path / "lib_paddle.py").write_text(textwrap.dedent("""
        def run():
            import mutograd.compat.paddle as paddle
            x = paddle.arange(6.0)
            return repr(x.shape), len(x.split(2)), str(x.dtype)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import lib_paddle
    import lib_torch
    assert lib_torch.run() == ("torch.Size([6])", 3, "torch.float32")
    assert lib_paddle.run() == ("[6]", 2, "paddle.float32")
    assert lib_torch.run() == ("torch.Size([6])", 3, "torch.float32")


def test_the_print_style_option_sets_the_main_namespace_layout_only():
    mg.set_printoptions(style="torch")
    try:
        assert repr(mg.ones(1)) == "tensor([1.])" and repr(paddle.ones([1])).startswith("Tensor(")
    finally:
        mg.set_printoptions(style="paddle")
    assert repr(mg.ones(1)).startswith("Tensor(") and repr(mtorch.ones(1)) == "tensor([1.])"


@pytest.mark.parametrize("framework,expected", [
    ("torch", ["torch.Size([2,", "3])", "torch.int64", "mutograd.compat.torch.tensor", "2"]),
    ("paddle", ["[2,", "3]", "paddle.int64", "mutograd.compat.paddle.tensor", "1"])])
def test_run_as_gives_the_namespace_types(tmp_path, framework, expected):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent(f"""
        import {framework} as fw
        def helper():
            import {framework} as again
            return str(again.zeros([1], dtype=again.int64).dtype)
        x = fw.ones([2, 3])
        print(repr(x.shape), helper(), type(x).__module__, len(x.split(1)))
    """))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", framework,
                          str(script)], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == expected


def test_importing_as_gives_the_namespace_types():
    with compat.importing_as("paddle"):
        import paddle as p
        assert str(p.ones([1]).dtype) == "paddle.float32"
    assert str(mg.ones(1).dtype) == "float32"


def test_legacy_constructor_and_type_strings():
    assert mtorch.Tensor(2, 3).shape == (2, 3) and mtorch.Tensor([5.]).tolist() == [5.]
    assert mg.Tensor(5).tolist() == 5                 # the main Tensor(5) holds the value 5
    assert mtorch.ones(1).type() == "torch.FloatTensor" and mg.ones(1).type() == "mutograd.float32"
    assert mtorch.ones(1, dtype=mtorch.int64).size() == mtorch.Size([1])
    assert paddle.ones([2, 3]).size == 6


def test_the_core_holds_no_dialect():
    """No frame inspection in compat/, and no compat import in the core."""
    compat_dir = ROOT / "mutograd" / "compat"
    for path in compat_dir.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"sys\._getframe|\bf_back\b|inspect\.stack", text), path
    for path in (ROOT / "mutograd").rglob("*.py"):
        rel = path.relative_to(ROOT / "mutograd")
        # the command line (``python -m mutograd run|check --as torch``) runs scripts through it
        if rel.parts[0] in ("compat", "tools", "cli") or rel.name == "__main__.py":
            continue
        text = path.read_text()
        assert not re.search(r"^\s*(from\s+(\.+|mutograd\.)compat\b|import\s+mutograd\.compat)",
                             text, re.M), path


@pytest.mark.parametrize("namespace", [mtorch, paddle], ids=["torch", "paddle"])
def test_every_public_function_of_a_namespace_gives_its_type(namespace):
    """Every submodule is imported with the namespace, so that each of its public functions
    makes the namespace's tensors (compat/namespace.py: typed_functions)."""
    import pkgutil
    import types
    for info in pkgutil.walk_packages(namespace.__path__, namespace.__name__ + "."):
        module = sys.modules.get(info.name)
        assert module is not None, f"{info.name} is not imported with {namespace.__name__}"
        for key, value in vars(module).items():
            if not key.startswith("_") and isinstance(value, types.FunctionType):
                assert hasattr(value, "__wrapped__"), f"{info.name}.{key}"
