"""The examples in the compat modules' docstrings run and print what they show."""
import doctest
import importlib

import pytest

MODULES = [
    "mutograd.compat", "mutograd.compat.import_alias", "mutograd.compat.sampling",
    "mutograd.compat.torch", "mutograd.compat.torch.tensor", "mutograd.compat.paddle",
    "mutograd.compat.paddle.tensor", "mutograd.compat.torch.nn.functional",
    "mutograd.compat.paddle.nn.functional", "mutograd.compat.torch.cuda",
    "mutograd.compat.torch.optim.lr_scheduler", "mutograd.compat.torch.optim.swa_utils",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    # an example's tensors follow the namespace that made them; nothing to set beforehand
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
