"""The examples in the compat modules' docstrings run and print what they show."""
import doctest
import importlib

import pytest

from mutograd import compat

MODULES = [  # (module, the dialect its examples are written in)
    ("mutograd.compat", "torch"), ("mutograd.compat.dialect_scope", None),
    ("mutograd.compat.import_alias", None), ("mutograd.compat.tensor_methods", "paddle"),
    ("mutograd.compat.sampling", None), ("mutograd.compat.torch", "torch"),
    ("mutograd.compat.paddle", "paddle"), ("mutograd.compat.torch.nn.functional", "torch"),
    ("mutograd.compat.paddle.nn.functional", "paddle"), ("mutograd.compat.torch.cuda", "torch"),
]


@pytest.mark.parametrize("name,dialect", MODULES, ids=[m for m, _ in MODULES])
def test_docstring_examples(name, dialect):
    module = importlib.import_module(name)
    compat.set_dialect(dialect)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
