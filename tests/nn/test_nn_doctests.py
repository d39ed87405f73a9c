"""The examples in the docstrings of nn, optim, data and checkpoint run and print what they
show."""
import doctest
import importlib

import pytest

MODULES = ["mutograd.nn", "mutograd.nn.module", "mutograd.nn.init", "mutograd.nn.utils",
           "mutograd.nn.modules", "mutograd.nn.modules.activation",
           "mutograd.nn.modules.adaptive", "mutograd.nn.modules.batchnorm",
           "mutograd.nn.modules.containers", "mutograd.nn.modules.conv",
           "mutograd.nn.modules.distance", "mutograd.nn.modules.dropout",
           "mutograd.nn.modules.flatten", "mutograd.nn.modules.lazy", "mutograd.nn.modules.linear",
           "mutograd.nn.modules.loss", "mutograd.nn.modules.normalization",
           "mutograd.nn.modules.padding", "mutograd.nn.modules.pooling",
           "mutograd.nn.modules.recurrent", "mutograd.nn.modules.sparse",
           "mutograd.nn.modules.transformer", "mutograd.nn.modules.vision",
           "mutograd.nn.functional", "mutograd.nn.functional.activation",
           "mutograd.nn.functional.arguments", "mutograd.nn.functional.conv",
           "mutograd.nn.functional.ctc", "mutograd.nn.functional.dense",
           "mutograd.nn.functional.distance", "mutograd.nn.functional.dropouts",
           "mutograd.nn.functional.interpolation", "mutograd.nn.functional.loss",
           "mutograd.nn.functional.margin_loss", "mutograd.nn.functional.normalization",
           "mutograd.nn.functional.padding", "mutograd.nn.functional.pooling",
           "mutograd.nn.functional.sparse", "mutograd.nn.functional.vision",
           "mutograd.optim",
           "mutograd.optim.algorithms",
           "mutograd.optim.lr_scheduler", "mutograd.optim.swa_utils",
           "mutograd.data", "mutograd.data.dataset",
           "mutograd.data.datasets", "mutograd.data.loader", "mutograd.serialization.checkpoint",
           "mutograd.serialization.arrays", "mutograd.serialization.budget",
           "mutograd.serialization.containers",
           "mutograd.serialization.text"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
