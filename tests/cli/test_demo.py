"""The demo (``python -m mutograd demo --quick``): its table, its checkpoint, its plot."""
import json
import sys

import pytest

from mutograd import __main__ as cli
from mutograd.cli import demo


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    import io
    from contextlib import redirect_stdout
    buf = io.StringIO()
    with redirect_stdout(buf):
        status = cli.main(["demo", "--quick", "--out", str(out)])
    return status, buf.getvalue(), out


def test_quick_demo_prints_the_table_and_in_place_allocates_less(quick_run):
    status, text, out = quick_run
    assert status == 0
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("run "))
    table = lines[head:head + 5]
    assert [c.strip() for c in table[0].split("|")] == list(demo.COLUMNS)
    assert set(table[1]) <= {"-", "+"}
    assert [r.split("|")[0].strip() for r in table[2:]] == ["in-place", "out-of-place", "saving"]
    assert all(len(r.split("|")) == len(demo.COLUMNS) for r in table[:1] + table[2:])
    rows = json.loads((out / "results.json").read_text())["rows"]
    inplace, outofplace = rows
    assert inplace["test_accuracy"] == outofplace["test_accuracy"]   # same numbers
    assert inplace["bytes_allocated_per_epoch"] < outofplace["bytes_allocated_per_epoch"]
    assert inplace["allocations_per_epoch"] < outofplace["allocations_per_epoch"]
    assert inplace["peak_bytes"] < outofplace["peak_bytes"]


def test_quick_demo_checkpoint_reloads_to_the_same_accuracy(quick_run):
    _, text, out = quick_run
    assert (out / "digits_cnn.ckpt").exists()
    assert "reloaded into a new model" in text and "(the same)" in text
    res = json.loads((out / "results.json").read_text())
    assert res["reloaded_accuracy"] == res["rows"][0]["test_accuracy"]


def test_quick_demo_writes_the_memory_plot_or_says_how_to_get_it(quick_run):
    _, text, out = quick_run
    traces = json.loads((out / "results.json").read_text())["traces"]
    for run in ("in-place", "out-of-place"):
        t = traces[run]
        assert len(t["time_ms"]) == len(t["live_bytes"]) > 10
        assert t["time_ms"] == sorted(t["time_ms"]) and t["time_ms"][-1] <= t["end_ms"]
        assert [p[0] for p in t["phases"]] == ["forward", "backward", "optimizer"]
        assert max(t["live_bytes"]) > 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "pip install 'mutograd[plot]'" in text
    else:
        assert (out / "memory_timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_returns_false(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    curve = {"time_ms": [0, 1], "live_bytes": [0, 2048], "phases": [], "end_ms": 2}
    assert demo.plot({"a": curve}, tmp_path / "x.png") is False
    assert not (tmp_path / "x.png").exists()


def test_command_table_help(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "demo" in text and "check" in text and "walkthrough" in text


def test_blas_threads_can_be_set_and_restored():
    old = demo.blas_threads(1)
    if old is None:
        pytest.skip("no OpenBLAS found in this process")
    assert demo.blas_threads(old) == 1
