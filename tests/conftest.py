import numpy as np
import pytest

import mutograd as mg


@pytest.fixture(autouse=True)
def _fresh_state():
    """Every test starts with grad mode on, a fixed seed and the default dtype."""
    mg.seed(0)
    np.random.seed(0)
    yield
    mg.set_grad_enabled(True)
    mg.set_default_dtype("float32")


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def pytest_collection_modifyitems(config, items):
    if not _has_torch():
        skip = pytest.mark.skip(reason="PyTorch is not installed (optional test extra)")
        for item in items:
            if "torch" in item.keywords:
                item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that skips for want of PyTorch must carry the ``torch`` marker: CI runs the suite
    without PyTorch, then only ``-m torch`` with it, and an unmarked test would run in neither."""
    report = yield
    if (report.skipped and call.excinfo is not None and item.get_closest_marker("torch") is None
            and "'torch'" in str(call.excinfo.value)):
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} skips without PyTorch ({call.excinfo.value}) but has "
                           "no @pytest.mark.torch: CI's `-m torch` pass would never run it")
    return report


@pytest.fixture
def fake_gpu():
    """A NumPy-backed fake GPU backend (tests/fake_gpu.py) for the length of one test."""
    from tests import fake_gpu as fg
    fg.register()
    try:
        yield fg
    finally:
        mg.set_device("cpu")
        fg.unregister()


def pytest_terminal_summary(terminalreporter):
    """Say why tests were skipped, one line per reason with its count (most of them need the
    optional PyTorch extra or a GPU)."""
    reasons = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if reasons:
        terminalreporter.section("skipped tests, by reason")
        for reason, n in sorted(reasons.items(), key=lambda r: -r[1]):
            terminalreporter.line(f"{n:6d}  {reason}")
