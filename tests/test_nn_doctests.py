"""The examples in the docstrings of nn, optim, data and checkpoint run and print what they
show."""
import doctest
import importlib

import pytest

MODULES = ["mutograd.nn", "mutograd.nn.module", "mutograd.nn.functional", "mutograd.nn.init",
           "mutograd.nn.utils", "mutograd.nn.transformer", "mutograd.nn.recurrent",
           "mutograd.nn.padding", "mutograd.nn.activations", "mutograd.nn.normalization",
           "mutograd.nn.vision", "mutograd.nn.sparse", "mutograd.nn.lazy",
           "mutograd.nn.containers", "mutograd.nn.adaptive", "mutograd.nn.linear_cross_entropy",
           "mutograd.optim",
           "mutograd.optim.algorithms",
           "mutograd.optim.lr_scheduler", "mutograd.data", "mutograd.data.dataset",
           "mutograd.data.datasets", "mutograd.data.loader", "mutograd.checkpoint"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
