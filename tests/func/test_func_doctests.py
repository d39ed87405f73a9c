"""The docstring examples of mutograd.func's modules run as shown."""
import doctest
import importlib

import pytest

MODULES = ["mutograd.func", "mutograd.func.transforms", "mutograd.func.vmap",
           "mutograd.func.functional_call", "mutograd.func.functionalize",
           "mutograd.func.ensembling", "mutograd.func.rearrange"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
