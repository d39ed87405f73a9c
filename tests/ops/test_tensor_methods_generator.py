"""Tensor's methods come from the class body and from the declarations (the ops, and the
``TENSOR_METHODS`` tables of the modules in ``mutograd.ops._DECLARING``), through one generator
in mutograd/ops/__init__.py: no other module sets attributes on Tensor."""
import math
import pathlib
import re

import pytest

import mutograd as mg
from mutograd import ops, tensor_methods
from mutograd.tensor import Tensor

ROOT = pathlib.Path(mg.__file__).parent
GENERATOR = ROOT / "ops" / "__init__.py"
# an assignment to an attribute of Tensor or Size (not a comparison), or a setattr on Tensor
ATTACHES = re.compile(r"\b_?Tensor\.\w+\s*=(?!=)|setattr\(\s*_?Tensor\b|\bSize\.\w+\s*=(?!=)")
# The one other site, by file and line text: tensor.py finishes its own class (the attribute
# names the class itself).
KNOWN = {
    ("tensor.py", "Tensor._result_class = Tensor"),
}


def _attaching_lines():
    for path in sorted(ROOT.rglob("*.py")):
        if path == GENERATOR:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if ATTACHES.search(line):
                yield path.relative_to(ROOT).as_posix(), line.strip()


def test_only_the_generator_attaches():
    found = set(_attaching_lines())
    assert found - KNOWN == set(), "declare these in a TENSOR_METHODS table instead"
    assert KNOWN - found == set(), "gone: remove them from KNOWN"


def test_the_scan_sees_an_attachment():
    assert ATTACHES.search("Tensor.fliplr = lambda self: self.flip(1)")
    assert ATTACHES.search("    setattr(_Tensor, name, fn)")
    assert ATTACHES.search("Size.numel = numel")
    assert not ATTACHES.search("if Tensor.fliplr == other:")


def test_no_two_modules_declare_one_name():
    seen = {}
    for module in ops._DECLARING:
        for name in module.TENSOR_METHODS:
            assert name not in seen, f"{name}: {seen[name]} and {module.__name__}"
            seen[name] = module.__name__


def test_every_declaration_is_what_tensor_has():
    for module in ops._DECLARING:
        for name, attr in module.TENSOR_METHODS.items():
            assert Tensor.__dict__[name] is attr, (module.__name__, name)


@pytest.mark.parametrize("name", ["T", "mT", "H", "mH", "real", "imag", "is_cpu", "is_sparse"])
def test_properties(name):
    assert isinstance(Tensor.__dict__[name], property)


@pytest.mark.parametrize("name", ["fliplr", "new_zeros", "__getitem__", "__setitem__",
                                  "bernoulli", "cummax", "logdet", "allclose", "astype",
                                  "float", "sum_to_size", "new", "hardshrink", "dim_order"])
def test_functions(name):
    assert callable(Tensor.__dict__[name]) and not isinstance(Tensor.__dict__[name], property)


def test_shared_objects():
    # one implementation under several names, and the public function is the method
    assert Tensor.cast is Tensor.astype is tensor_methods.TENSOR_METHODS["astype"]
    assert Tensor.resolve_conj is Tensor.resolve_neg
    assert Tensor.mH.fget is Tensor.adjoint is mg.adjoint
    assert Tensor.nelement is Tensor.numel
    assert Tensor.unsafe_split_with_sizes is Tensor.split_with_sizes
    for name in ("fliplr", "flipud", "cummax", "cummin", "logdet"):
        assert getattr(Tensor, name) is getattr(mg, name)


def test_behaviour():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.T.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert x.mT.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert x.real is x
    assert x.fliplr().tolist() == [[2.0, 1.0], [4.0, 3.0]]
    assert x.new_zeros(3).dtype == x.dtype and x.new_zeros(3).tolist() == [0.0, 0.0, 0.0]
    assert x[1].tolist() == [3.0, 4.0]
    values, indices = x.cummax(1)
    assert values.tolist() == [[1.0, 2.0], [3.0, 4.0]] and indices.tolist() == [[0, 1], [0, 1]]
    assert mg.tensor([[2.0, 0.0], [0.0, 3.0]]).logdet().item() == pytest.approx(math.log(6))
    assert x.allclose(x + 1e-9) and not x.allclose(x + 1)
    assert set(x.bernoulli().unique().tolist()) <= {0.0, 1.0}
