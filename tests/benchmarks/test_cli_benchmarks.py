"""``python -m benchmarks``: one worker process per contestant, skipped contestants named with
the reason, ratios with their spread, ``--plot`` and ``--from-json``."""
import importlib.util
import io
import json
import sys

import pytest

from benchmarks import run as bench

HAVE_PADDLE = importlib.util.find_spec("paddle") is not None


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """mutograd and NumPy on two tiny workloads, Paddle asked for too; a terminal for stderr."""
    out = tmp_path_factory.mktemp("bench")
    err, sys.stderr = sys.stderr, FakeTTY()
    try:
        res = bench.run(["relu_inplace", "add_nograd"], ["mutograd", "numpy", "paddle"],
                        tiny=True, repeat=3, threads=1, memory=False, out_dir=str(out))
        bar = sys.stderr.getvalue()
    finally:
        sys.stderr = err
    return res, bar


def test_every_contestant_has_its_rounds_and_the_ratios_pair_them(small_run):
    res, _ = small_run
    assert res["meta"]["processes"] == "one worker per contestant, rounds alternating"
    assert res["meta"]["contestants"] == ["mutograd", "numpy"]
    for name in ("relu_inplace", "add_nograd"):
        v = res["workloads"][name]["contestants"]
        assert set(v) == {"mutograd", "numpy"}
        for c in v.values():
            assert len(c["rounds"]) == 3
            assert c["min"] == min(c["rounds"]) and c["max"] == max(c["rounds"])
        q = bench.ratios(res["workloads"][name], "numpy")
        per_round = sorted(a / b for a, b in zip(v["mutograd"]["rounds"], v["numpy"]["rounds"]))
        assert (q["min"], q["median"], q["max"]) == pytest.approx(
            (per_round[0], per_round[1], per_round[2]))
    with open(res["path"]) as f:
        assert json.load(f)["workloads"].keys() == res["workloads"].keys()


@pytest.mark.skipif(HAVE_PADDLE, reason="Paddle is installed: it runs")
def test_a_contestant_not_installed_is_listed_with_the_reason(small_run):
    res, _ = small_run
    assert res["skipped"] == {"paddle": "not installed"}
    text = bench.table(res)
    assert text.splitlines()[-1] == "skipped: paddle: not installed"
    assert "paddle median" not in text


def test_the_table_keeps_its_columns_with_the_ratio_spread(small_run):
    res, _ = small_run
    lines = bench.table(res).splitlines()
    assert lines[0] == ("| workload | unit | mutograd median (min-max) | numpy median (min-max) "
                        "| mutograd / numpy (min-max) |")
    row = next(line for line in lines if line.startswith("| x.relu_(), in place | ms |"))
    q = bench.ratios(res["workloads"]["relu_inplace"], "numpy")
    assert row.endswith(f"| {q['median']:.2f}x ({q['min']:.2f}-{q['max']:.2f}) |")
    assert "one process per contestant" in bench.table(res)


def test_a_terminal_shows_the_progress_of_the_workloads(small_run):
    pytest.importorskip("tqdm")
    _, bar = small_run
    assert "/2 [" in bar and "workload" in bar
    assert "  relu_inplace: mutograd " in bar      # the result lines, printed above the bar


def test_a_contestant_that_cannot_start_is_skipped_with_its_error(monkeypatch, tmp_path):
    if HAVE_PADDLE:
        pytest.skip("Paddle is installed: it starts")
    monkeypatch.setattr(bench, "_available", lambda name: True)
    res = bench.run(["relu_inplace"], ["numpy", "paddle"], tiny=True, repeat=1, threads=1,
                    memory=False, out_dir=False, quiet=True)
    assert res["skipped"] == {
        "paddle": "cannot start: ModuleNotFoundError: No module named 'paddle'"}
    assert set(res["workloads"]["relu_inplace"]["contestants"]) == {"numpy"}


def test_a_worker_reports_a_failed_workload_and_goes_on():
    w = bench.Worker("numpy", 1, "thread")
    try:
        assert w.start() is None
        with pytest.raises(bench.WorkloadError, match="KeyError: 'no_such_workload'"):
            w.ask(build="no_such_workload", tiny=True, warmup=0)
        assert w.ask(build="relu_inplace", tiny=True, warmup=1) == {"ok": True}
        assert w.ask(round=True)["seconds"] >= 0
        assert w.ask(free=True) == {"ok": True}
        with pytest.raises(bench.WorkloadError, match="TypeError"):
            w.ask(round=True)          # nothing built
    finally:
        w.close()
    assert w._p.returncode == 0


def test_a_worker_that_dies_says_why():
    w = bench.Worker("numpy", 1, "wall")
    w.start()
    w._p.kill()
    with pytest.raises(bench.WorkerError, match="exited with status -9"):
        w.ask(round=True)
    w.close()


def test_ratios_from_a_result_file_without_rounds():
    row = {"contestants": {"mutograd": {"median": 2.0, "min": 1.0, "max": 4.0},
                           "torch": {"median": 1.0, "min": 0.5, "max": 2.0}}}
    assert bench.ratios(row, "torch") == {"median": 2.0, "min": 0.5, "max": 8.0}
    assert bench.ratios(row, "numpy") is None


@pytest.mark.parametrize("args, message", [
    (["--only", "no_such_workload"], "unknown workload(s) no_such_workload"),
    (["--contestants", "jax"], "unknown contestant(s) jax"),
])
def test_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as info:
        bench.main(args + ["--tiny", "--no-memory", "--repeat", "1"])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_plot_draws_a_png_of_the_ratios(small_run, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    res, _ = small_run
    path = tmp_path / "ratios.png"
    assert bench.plot(res, str(path)) == str(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = tmp_path / "again.png"
    bench.main(["--from-json", res["path"], "--plot", str(again)])
    out = capsys.readouterr()
    assert out.out.startswith("| workload | unit | mutograd median (min-max)")
    assert f"plot: {again}" in out.err and again.read_bytes()[:4] == b"\x89PNG"


def test_plot_without_matplotlib_is_a_clear_error_before_any_run(monkeypatch, small_run,
                                                                   capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"--plot needs matplotlib: pip install "
                                          r"'mutograd\[plot\]'"):
        bench.plot(small_run[0], "x.png")
    monkeypatch.setattr(bench, "run", lambda *a, **k: pytest.fail("ran before the check"))
    with pytest.raises(SystemExit) as info:
        bench.main(["--plot", "x.png"])
    assert info.value.code == 2 and "--plot needs matplotlib" in capsys.readouterr().err
