"""The docstring examples of the modules added for real programs run as shown."""
import doctest
import importlib

import pytest


MODULES = [("mutograd.ops.sorting", None), ("mutograd.nn.functional.attention", None),
           ("mutograd.data.sampler", None), ("mutograd.compat.torch.backends", "torch"),
           ("mutograd.compat.torch.utils.data.dataloader", "torch"),
           ("mutograd.compat.torch.optim", "torch"), ("mutograd.compat.torch.amp", "torch"),
           ("mutograd.random", None)]


@pytest.mark.parametrize("name,dialect", MODULES, ids=[m for m, _ in MODULES])
def test_docstring_examples(name, dialect):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
