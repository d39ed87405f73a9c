import numpy as np
import pytest

import mutograd as mg
import mutograd.compat


@pytest.fixture(autouse=True)
def _fresh_state():
    """Every test starts with grad mode on, a fixed seed, the default dtype and no dialect
    (importing a compat namespace at collection sets one)."""
    mutograd.compat.set_dialect(None)
    mg.seed(0)
    np.random.seed(0)
    yield
    mg.set_grad_enabled(True)
    mg.set_default_dtype("float32")


def pytest_collection_modifyitems(config, items):
    try:
        import torch  # noqa: F401
    except ImportError:
        skip = pytest.mark.skip(reason="PyTorch is not installed (optional test extra)")
        for item in items:
            if "torch" in item.keywords:
                item.add_marker(skip)
