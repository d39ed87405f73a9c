"""The examples in the distributions' docstrings (and in the dialects' namespaces of them) run
and print what they show."""
import doctest
import importlib

import pytest

MODULES = [
    "mutograd.distributions", "mutograd.distributions.distribution",
    "mutograd.distributions.constraints", "mutograd.distributions.transforms",
    "mutograd.distributions.continuous", "mutograd.distributions.gamma",
    "mutograd.distributions.discrete", "mutograd.distributions.multivariate_normal",
    "mutograd.distributions.composite", "mutograd.distributions.kl",
    "mutograd.distributions.utils", "mutograd.ops.standard_gamma",
    "mutograd.distributions.constraint_registry", "mutograd.distributions.transformed",
    "mutograd.distributions.special_continuous", "mutograd.distributions.mixture",
    "mutograd.distributions.matrix",
    "mutograd.compat.torch.distributions", "mutograd.compat.paddle.distribution",
    "mutograd.compat.paddle.distribution.transform",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
