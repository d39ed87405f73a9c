"""The docstring examples of the op modules run as shown (each module says what it holds and
shows it)."""
import doctest
import importlib

import pytest

MODULES = ["axes", "binary_math", "complex_views", "convolution", "creation", "embedding",
           "factorizations", "fourier", "grids", "indexing", "linalg", "matmul", "matrices",
           "memory_layout",
           "normalization", "pooling", "predicates", "products", "reduction", "sampling", "scans",
           "scatter", "scatter_reduce", "searching", "shaping", "softmax", "sorting", "spectral",
           "statistics", "type_promotion", "unary_math", "view_copies"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"mutograd.ops.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
