"""The docstring examples of mutograd.sparse's modules run as shown."""
import doctest
import importlib

import pytest

MODULES = ["mutograd.sparse", "mutograd.sparse.tensor", "mutograd.sparse.functional",
           "mutograd.sparse.matmul", "mutograd.sparse.pattern", "mutograd.sparse.solve",
           "mutograd.sparse.checks", "mutograd.compat.torch.sparse"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
