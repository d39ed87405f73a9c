"""Progress bars (mutograd/progress.py): drawn on a terminal, silent in a log or without tqdm."""
import io
import sys

import pytest

import mutograd as mg
from mutograd import progress
from mutograd.cli import demo


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


class Closed(io.StringIO):
    def isatty(self):
        raise ValueError("I/O operation on closed file")


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)


@pytest.fixture
def tqdm():
    return pytest.importorskip("tqdm")


def _drive(file, n=3):
    with progress.bar(total=n, desc="steps", file=file) as b:
        for _ in range(n):
            b.update()
            b.set_postfix_str("loss 1.0")
    return list(progress.bar(range(n), desc="items", file=file))


def test_a_log_gets_nothing(tqdm):
    log = io.StringIO()
    assert not progress.enabled(log)
    assert _drive(log) == [0, 1, 2]
    assert log.getvalue() == ""


def test_a_terminal_gets_a_bar(tqdm):
    tty = FakeTTY()
    assert progress.enabled(tty)
    assert _drive(tty) == [0, 1, 2]
    text = tty.getvalue()
    assert "steps:" in text and "| 0/3 [" in text and "items:" in text


def test_without_tqdm_a_terminal_gets_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    tty = FakeTTY()
    assert not progress.enabled(tty)
    assert _drive(tty) == [0, 1, 2]
    assert tty.getvalue() == ""


@pytest.mark.parametrize("value, file, drawn", [
    ("0", FakeTTY, False),      # off on a terminal too
    ("1", io.StringIO, True),   # on in a log too
    ("", Closed, False),        # a stream that cannot say: no bar
])
def test_the_environment_variable_decides_first(tqdm, monkeypatch, value, file, drawn):
    monkeypatch.setenv(progress.ENV, value)
    f = file()
    assert progress.enabled(f) is drawn


def test_the_default_stream_is_stderr_at_call_time(tqdm, monkeypatch):
    monkeypatch.setattr(sys, "stderr", FakeTTY())
    assert progress.enabled()
    list(progress.bar(range(2), desc="now"))
    assert "now:" in sys.stderr.getvalue()


def _loader():
    return mg.data.DataLoader(mg.data.TensorDataset(mg.arange(10)), batch_size=4)


def test_data_loader_passes_get_bars_only_inside_the_block(tqdm, monkeypatch):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    loader = _loader()
    plain = mg.data.DataLoader.__iter__
    with progress.data_loaders():
        first = [b[0].tolist() for b in loader]
        for _ in loader:
            break                   # an abandoned pass closes its bar
        assert "DataLoader pass 2" in tty.getvalue()
    assert first == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert "DataLoader pass 1:" in tty.getvalue() and "| 0/3 [" in tty.getvalue()
    assert mg.data.DataLoader.__iter__ is plain
    before = tty.getvalue()
    list(loader)
    assert tty.getvalue() == before


def test_a_second_loader_is_numbered(tqdm, monkeypatch):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    train, test = _loader(), _loader()
    with progress.data_loaders():
        for _ in range(2):
            list(train)
            list(test)
    text = tty.getvalue()
    for desc in ("DataLoader pass 1:", "DataLoader pass 2:", "DataLoader 2 pass 1:",
                 "DataLoader 2 pass 2:"):
        assert desc in text
    assert "DataLoader 3" not in text


def test_data_loaders_in_a_log_change_nothing(tqdm, monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    plain = mg.data.DataLoader.__iter__
    with progress.data_loaders():
        assert mg.data.DataLoader.__iter__ is plain
        assert len(list(_loader())) == 3
    assert log.getvalue() == ""


def test_the_dialects_loaders_get_bars_too(tqdm, monkeypatch):
    import mutograd.compat.torch as torch
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    ds = torch.utils.data.TensorDataset(torch.arange(6.0))
    with progress.data_loaders():
        assert len(list(torch.utils.data.DataLoader(ds, batch_size=2))) == 3
    assert "DataLoader pass 1:" in tty.getvalue() and "| 0/3 [" in tty.getvalue()


def test_demo_epoch_bar_follows_the_stream(tqdm, monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    b = demo._progress(range(2), 2, "in-place epoch 1/2")
    assert list(b) == [0, 1] and type(b).__name__ == "_Silent"
    b.set_postfix_str("loss 1")
    b.close()
    assert sys.stderr.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", FakeTTY())
    b = demo._progress(range(2), 2, "in-place epoch 1/2")
    assert list(b) == [0, 1]
    b.close()
    assert "in-place epoch 1/2" in sys.stderr.getvalue()
