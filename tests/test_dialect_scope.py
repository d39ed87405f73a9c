"""The dialect belongs to the code that asks for it: importing a compat namespace changes nothing
for other modules; a module that imports one follows it; explicit settings are per thread;
install / importing_as / run --as set a program-wide default."""
import gc
import itertools
import os
import subprocess
import sys
import textwrap
import threading
import types
import weakref

import pytest

import mutograd as mg
from mutograd import compat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What a module's ``probe(x)`` (PROBE, below) sees on ``x = mg.arange(6.0)`` in each dialect:
# (pieces of split(3), kind of max(0), repr of the shape, str of the dtype, type(), a backward()
# of a non-scalar output, layout of repr(x), decimals printed).
SEEN = {
    None: (2, "pair", "[6]", "float32", "mutograd.float32", "ones", "Tensor(", 8),
    "torch": (2, "pair", "torch.Size([6])", "torch.float32", "torch.FloatTensor", "refused",
              "tensor(", 4),
    "paddle": (3, "values", "[6]", "paddle.float32", "mutograd.float32", "ones", "Tensor(", 8),
}

PROBE = """
import re as _re

def probe(x):
    y = x.detach().requires_grad_()
    try:
        (y * 2).backward()
        grad = "ones"
    except RuntimeError:
        grad = "refused"
    text = repr(x / 3)
    return (len(x.split(3)), "pair" if isinstance(x.max(0), tuple) else "values", repr(x.shape),
            str(x.dtype), x.type(), grad, text[:7], len(_re.search(r"0\\.(\\d+)", text)[1]))
"""

_names = itertools.count()


@pytest.fixture
def module():
    """``module(source)``: a fresh importable module running ``source`` then defining PROBE."""
    made = []

    def make(source, name=None):
        name = name or f"_dialect_probe_{next(_names)}"
        mod = types.ModuleType(name)
        sys.modules[name] = mod
        made.append(name)
        exec(compile(textwrap.dedent(source) + PROBE, name, "exec"), mod.__dict__)
        return mod

    yield make
    for name in made:
        sys.modules.pop(name, None)


def _x():
    return mg.arange(6.0)


# ---- which modules ask ------------------------------------------------------------------------
ASKS = [  # (the module's imports, the dialect its code follows)
    ("import mutograd.compat.paddle as paddle", "paddle"),
    ("import mutograd.compat.torch as torch", "torch"),
    ("import mutograd as mg\nimport mutograd.compat.paddle as paddle", "paddle"),
    ("from mutograd.compat.torch import nn", "torch"),
    ("import mutograd.compat.paddle.nn.functional as F", "paddle"),
    ("import mutograd.compat.paddle as paddle\nimport mutograd.compat.torch as torch", None),
    ("import mutograd as mg", None),
    ("import mutograd.compat.paddle", None),          # binds only ``mutograd``
    ("from mutograd.compat.paddle import to_tensor", None),   # a function, not the namespace
    ("import os", None),
]


@pytest.mark.parametrize("source,expected", ASKS, ids=[s.replace("\n", "; ") for s, _ in ASKS])
def test_a_module_follows_the_namespace_it_imported(module, source, expected):
    assert module(source).probe(_x()) == SEEN[expected]
    assert compat.get_dialect() is None
    assert len(_x().split(3)) == 2 and repr(_x().shape) == "[6]"     # this module: native


def test_a_module_that_imports_a_namespace_later_follows_it_from_then_on(module):
    mod = module("import mutograd as mg")
    assert mod.probe(_x()) == SEEN[None]
    exec("import mutograd.compat.paddle as paddle", mod.__dict__)
    assert mod.probe(_x()) == SEEN["paddle"]


def test_the_dialect_keeps_no_module_or_its_globals_alive():
    name = f"_dialect_probe_{next(_names)}"
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    exec("import mutograd.compat.paddle as paddle\nclass Big:\n    pass\nbig = Big()\n"
         "def pieces(x):\n    return len(x.split(3))\n", mod.__dict__)
    assert mod.pieces(_x()) == 3                 # its verdict is now cached
    refs = weakref.ref(mod), weakref.ref(mod.big)
    del sys.modules[name], mod
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_a_module_holding_nothing_of_mutograd_follows_its_caller(module):
    helper = module("")                          # e.g. a generic helper, or logging's code
    via = f"from {helper.__name__} import probe as hp\ndef via(x):\n    return hp(x)\n"
    paddle_user = module("import mutograd.compat.paddle as paddle\n" + via)
    native_user = module("import mutograd as mg\n" + via)
    assert paddle_user.via(_x()) == SEEN["paddle"]
    assert native_user.via(_x()) == SEEN[None]
    assert helper.probe(_x()) == SEEN[None]      # called from here (native)


def test_get_dialect_answers_for_the_first_caller_outside_mutograd(module):
    # a Tensor method asks get_dialect() from inside mutograd, at any depth
    inner = module("from mutograd.compat import get_dialect\n"
                   "def deep(n):\n"
                   "    return get_dialect() if n == 0 else deep(n - 1)\n",
                   name="mutograd._dialect_probe_inner")
    user = module("import mutograd.compat.torch as torch\n"
                  "from mutograd._dialect_probe_inner import deep\n"
                  "def ask():\n"
                  "    return deep(5)\n")
    assert user.ask() == "torch"
    assert inner.deep(5) is None
    with compat.dialect("paddle"):
        assert user.ask() == "paddle"          # this thread's explicit choice beats the module


def test_a_namespace_own_code_follows_its_framework_even_against_an_explicit_setting(module):
    own = module("", name="mutograd.compat.paddle._dialect_probe")
    with compat.dialect("torch"):
        assert own.probe(_x()) == SEEN["paddle"]
        assert len(_x().split(3)) == 2 and repr(_x().shape) == "torch.Size([6])"


def test_explicit_native_overrides_the_module(module):
    mod = module("import mutograd.compat.torch as torch")
    with compat.dialect("mutograd"):
        assert mod.probe(_x()) == SEEN[None]
        assert compat.get_dialect() is None
    assert mod.probe(_x()) == SEEN["torch"]


def test_the_print_style_option_sets_the_main_namespace_layout_only(module):
    paddle_user = module("import mutograd.compat.paddle as paddle")
    torch_user = module("import mutograd.compat.torch as torch")
    mg.set_printoptions(style="torch")
    try:
        assert repr(mg.tensor([0.5, 2.0])) == "tensor([0.5000, 2.0000])"
        assert paddle_user.probe(_x())[6:] == ("Tensor(", 8)
    finally:
        mg.set_printoptions(style="paddle")
    assert repr(mg.tensor([0.5, 2.0])).startswith("Tensor(shape=[2], dtype=float32")
    assert torch_user.probe(_x())[6:] == ("tensor(", 4)


# ---- the explicit setting ---------------------------------------------------------------------
def test_the_dialect_context_manager_restores_on_exception():
    with compat.dialect("torch"):
        with pytest.raises(KeyError), compat.dialect("paddle"):
            assert len(_x().split(3)) == 3
            raise KeyError("inside")
        assert compat.get_dialect() == "torch" and repr(_x().shape) == "torch.Size([6])"
        with pytest.raises(ValueError, match="unknown dialect 'jax'"), compat.dialect("jax"):
            pass
        assert compat.get_dialect() == "torch"
    assert compat.get_dialect() is None and len(_x().split(3)) == 2


def test_set_dialect_none_hands_the_choice_back_to_the_module(module):
    mod = module("import mutograd.compat.paddle as paddle")
    compat.set_dialect("torch")
    try:
        assert mod.probe(_x()) == SEEN["torch"]
    finally:
        compat.set_dialect(None)
    assert mod.probe(_x()) == SEEN["paddle"]


def test_two_threads_with_different_dialects_at_once_each_see_their_own(module):
    mod = module("import mutograd.compat.paddle as paddle")    # asks, but explicit choices win
    names = ["torch", "paddle", "mutograd", None]
    barrier = threading.Barrier(len(names))
    seen, errors = {}, []

    def work(name):
        try:
            with compat.dialect(name):
                barrier.wait(timeout=30)              # every thread is inside its block
                seen[name] = [(compat.get_dialect(), mod.probe(_x())) for _ in range(20)]
                barrier.wait(timeout=30)              # nobody leaves before all have looked
            seen[name, "after"] = mod.probe(_x())
        except Exception as e:                        # reported below, in the test's thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert seen["torch"] == [("torch", SEEN["torch"])] * 20
    assert seen["paddle"] == [("paddle", SEEN["paddle"])] * 20
    assert seen["mutograd"] == [(None, SEEN[None])] * 20
    assert seen[None] == [(None, SEEN["paddle"])] * 20   # no choice: the module decides
    assert {seen[n, "after"] for n in names} == {SEEN["paddle"]}


def test_a_new_thread_does_not_inherit_the_explicit_setting():
    out = []
    with compat.dialect("paddle"):
        t = threading.Thread(target=lambda: out.append((compat.get_dialect(),
                                                        len(_x().split(3)))))
        t.start()
        t.join()
    assert out == [(None, 2)]


# ---- the program's default: install / importing_as / run --as --------------------------------
def test_install_sets_the_program_default_for_every_thread(module):
    torch_user = module("import mutograd.compat.torch as torch")
    native_user = module("import mutograd as mg")
    out = {}
    undo = compat.install("paddle")
    try:
        t = threading.Thread(target=lambda: out.update(
            thread=native_user.probe(_x()), get=compat.get_dialect()))
        t.start()
        t.join()
        assert out == {"thread": SEEN["paddle"], "get": "paddle"}
        assert native_user.probe(_x()) == SEEN["paddle"]
        assert torch_user.probe(_x()) == SEEN["torch"]          # it asked for another
        with compat.dialect("mutograd"):
            assert native_user.probe(_x()) == SEEN[None]
    finally:
        undo()
    assert native_user.probe(_x()) == SEEN[None] and compat.get_dialect() is None


def test_importing_as_nests_and_restores_the_program_default(module):
    native_user = module("import mutograd as mg")
    with compat.importing_as("torch"):
        assert native_user.probe(_x()) == SEEN["torch"]
        with compat.importing_as("paddle"):
            assert native_user.probe(_x()) == SEEN["paddle"]
        assert native_user.probe(_x()) == SEEN["torch"]
    assert native_user.probe(_x()) == SEEN[None]


def test_the_program_default_lasts_as_long_as_the_import_alias(module):
    native_user = module("import mutograd as mg")
    saved = {k: v for k, v in sys.modules.items() if k == "paddle" or k.startswith("paddle.")}
    finders = list(sys.meta_path)
    compat.install("paddle")                   # the undo function is dropped: it stays
    try:
        assert native_user.probe(_x()) == SEEN["paddle"]
    finally:                                   # the alias taken away by hand
        for k in [k for k in sys.modules if k == "paddle" or k.startswith("paddle.")]:
            del sys.modules[k]
        sys.modules.update(saved)
        sys.meta_path[:] = finders
    assert native_user.probe(_x()) == SEEN[None] and compat.get_dialect() is None


# ---- in a fresh process -----------------------------------------------------------------------
def _python(args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


NATIVE_SCRIPT = """
import mutograd as mg

def look():
    mg.seed(3)
    u = mg.zeros(1000).uniform_()
    x = mg.arange(6.0, requires_grad=True)
    (x * 2).backward()
    return [float(u.min()) >= 0, round(float(u.mean()), 6), [list(p.shape) for p in x.split(4)],
            type(x.max(0)).__name__, x.grad.tolist(), repr(x.detach()), repr(x.shape),
            str(x.dtype), x.type()]

before = look()
import libpaddle, libtorch     # libraries that import the compat namespaces
after = look()
assert after == before, (before, after)
print(before[0], before[2], before[3], before[6], before[7], before[8])
print(libpaddle.pieces(mg.arange(6.0)), libtorch.pieces(mg.arange(6.0)))
print(libpaddle.low(), libtorch.low())
"""

LIB = """
import mutograd.compat.{0} as {0}

def pieces(x):
    return len(x.split(3))

def low():
    return float({0}.zeros([1000]).uniform_().min()) < -0.5
"""


def test_importing_both_namespaces_changes_nothing_for_a_module_that_did_not_ask(tmp_path):
    (tmp_path / "main.py").write_text(NATIVE_SCRIPT)
    (tmp_path / "libpaddle.py").write_text(LIB.format("paddle"))
    (tmp_path / "libtorch.py").write_text(LIB.format("torch"))
    out = _python(["main.py"], tmp_path).splitlines()
    assert out == ["True [[4], [2]] ValuesIndices [6] float32 mutograd.float32",   # native
                   "3 2",                              # each library follows its own namespace
                   "True False"]


def test_get_dialect_called_with_no_python_caller_answers(tmp_path):
    code = ("import atexit, mutograd.compat as c\n"
            "atexit.register(lambda: print('last', c.get_dialect()))\n"
            "atexit.register(c.get_dialect)       # called from C: no Python frame above it\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "last None\n", "")


RUN_AS_SCRIPT = """
import threading
import paddle
import helper_native, helper_torch

x = paddle.arange(6.0)
out = []
t = threading.Thread(target=lambda: out.append(helper_native.pieces(x)))
t.start()
t.join()
print(len(x.split(3)), helper_native.pieces(x), out[0], helper_torch.pieces(x), repr(x.shape))
"""


def test_run_as_makes_the_whole_program_follow_the_framework(tmp_path):
    (tmp_path / "script.py").write_text(RUN_AS_SCRIPT)
    (tmp_path / "helper_native.py").write_text(
        "import mutograd as mg\n\ndef pieces(x):\n    return len(x.split(3))\n")
    (tmp_path / "helper_torch.py").write_text(LIB.format("torch"))
    out = _python(["-m", "mutograd", "run", "--as", "paddle", "script.py"], tmp_path)
    # the script, a native helper (also from a thread it starts): Paddle; a torch helper: torch
    assert out == "3 3 3 2 [6]\n"
