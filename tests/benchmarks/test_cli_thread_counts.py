"""``python -m benchmarks --threads 1,2``: one run per thread count, one table with a column
group per count, one JSON holding both that ``--from-json`` reads back, and the plot."""
import functools
import json
import os

import pytest

from benchmarks import run as bench

NAMES = ["small_mlp_adam", "small_cnn_sgd", "relu_inplace"]


@pytest.fixture(scope="module")
def two_counts(tmp_path_factory):
    """mutograd and NumPy at 1 and 2 threads, tiny sizes, two rounds."""
    out = tmp_path_factory.mktemp("threads")
    return bench.run_threads([1, 2], NAMES, ["mutograd", "numpy"], tiny=True, repeat=2,
                             memory=False, out_dir=str(out), quiet=True)


def test_each_thread_count_is_a_run_of_its_own(two_counts):
    res = two_counts
    assert res["threads"] == [1, 2] and list(res["runs"]) == ["1", "2"]
    for n, run in res["runs"].items():
        assert run["meta"]["threads"] == int(n)
        assert list(run["workloads"]) == NAMES
        for name in ("small_mlp_adam", "small_cnn_sgd"):   # no NumPy contestant for these
            v = run["workloads"][name]["contestants"]
            assert set(v) == {"mutograd"} and len(v["mutograd"]["rounds"]) == 2
        assert set(run["workloads"]["relu_inplace"]["contestants"]) == {"mutograd", "numpy"}
    assert os.path.basename(res["path"]) == "latest-tiny-1t-2t.json"
    with open(res["path"]) as f:
        saved = json.load(f)
    assert saved["threads"] == [1, 2]
    assert saved["runs"]["2"]["workloads"].keys() == res["runs"]["2"]["workloads"].keys()


def test_one_table_with_a_column_group_per_thread_count(two_counts):
    lines = bench.table(two_counts).splitlines()
    assert lines[0] == (
        "| workload | unit | 1t mutograd median (min-max) | 1t numpy median (min-max) "
        "| 1t mutograd / numpy (min-max) | 2t mutograd median (min-max) "
        "| 2t numpy median (min-max) | 2t mutograd / numpy (min-max) |")
    assert lines[1] == "|---" * 8 + "|"
    row = next(line for line in lines if line.startswith("| x.relu_(), in place | ms |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    for k, n in enumerate(("1", "2")):
        w = two_counts["runs"][n]["workloads"]["relu_inplace"]
        m, q = w["contestants"]["mutograd"], bench.ratios(w, "numpy")
        assert cells[2 + 3 * k] == f"{m['median']:.3g} ({m['min']:.3g}-{m['max']:.3g})"
        assert cells[4 + 3 * k] == f"{q['median']:.2f}x ({q['min']:.2f}-{q['max']:.2f})"
    mlp = next(line for line in lines if line.startswith("| small MLP step"))
    assert mlp.count("| - |") == 2                        # its NumPy ratio, at each count
    assert "cores, 1 and 2 threads; Python" in lines[-1]      # Paddle was not asked for


def test_from_json_reads_the_combined_file_and_a_single_run(two_counts, tmp_path, capsys):
    bench.main(["--from-json", two_counts["path"]])
    assert capsys.readouterr().out == bench.table(two_counts) + "\n"
    single = tmp_path / "one.json"            # the layout of a run with one thread count
    single.write_text(json.dumps(two_counts["runs"]["2"]))
    bench.main(["--from-json", str(single)])
    out = capsys.readouterr().out
    assert out.startswith("| workload | unit | mutograd median (min-max) | numpy median")
    assert "cores, 2 threads; Python" in out


def test_skipped_lines_are_given_per_count_only_when_they_differ():
    run = {"meta": {"threads": 1}, "workloads": {}, "skipped": {"paddle": "not installed"},
           "failed": {}}
    other = dict(run, meta={"threads": 2}, failed={"relu_inplace / torch": "RuntimeError: x"})
    assert bench._not_run({"runs": {"1": run, "2": run}}) == ["skipped: paddle: not installed"]
    assert bench._not_run({"runs": {"1": run, "2": other}}) == [
        "1t skipped: paddle: not installed", "2t skipped: paddle: not installed",
        "2t failed: relu_inplace / torch: RuntimeError: x"]


def test_plot_shows_each_thread_count_with_a_legend(two_counts, tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    import matplotlib.figure
    path = tmp_path / "threads.png"
    bench.main(["--from-json", two_counts["path"], "--plot", str(path)])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot: {path}" in capsys.readouterr().err
    drawn = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, *a, **k: drawn.append(fig))
    bench.plot(two_counts, "unused.png")
    ax = drawn[0].axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "mutograd / numpy, 1 thread(s)", "mutograd / numpy, 2 thread(s)"]
    assert ax.get_title().startswith("1 and 2 thread(s), wall clock, 2 rounds")


@pytest.mark.parametrize("text, counts", [
    ("2", [2]), ("1,all", list(dict.fromkeys([1, os.cpu_count()]))),
    ("all,1", list(dict.fromkeys([os.cpu_count(), 1]))), ("4, 1,4", [4, 1])])
def test_thread_counts_parse_a_comma_list(text, counts):
    assert bench.thread_counts(text) == counts


@pytest.mark.parametrize("text", ["0", "x", "1,", "-1", "1.5"])
def test_bad_thread_counts_are_usage_errors(text, capsys):
    with pytest.raises(SystemExit) as info:
        bench.main(["--threads", text, "--from-json", "unused.json"])
    assert info.value.code == 2
    assert "is not a thread count: give whole numbers >= 1 or 'all'" in capsys.readouterr().err


def test_the_thread_clock_refuses_a_list_of_thread_counts(capsys, monkeypatch):
    with pytest.raises(ValueError, match="needs --threads 1, not 1,2"):
        bench.run_threads([1, 2], ["relu_inplace"], clock="thread", out_dir=False)
    monkeypatch.setattr(bench, "run_threads", lambda *a, **k: pytest.fail("ran"))
    with pytest.raises(SystemExit) as info:
        bench.main(["--threads", "1,2", "--clock", "thread", "--tiny"])
    assert info.value.code == 2
    assert ("--clock thread measures only the calling thread and needs --threads 1, not a "
            "list (1,2)") in capsys.readouterr().err


def test_without_the_option_one_run_at_two_threads_as_before(two_counts, monkeypatch, capsys):
    calls = []

    def fake_run(*args, **kw):
        calls.append((args, kw))
        return two_counts["runs"]["2"]
    monkeypatch.setattr(bench, "run", fake_run)
    monkeypatch.setattr(bench, "run_threads", lambda *a, **k: pytest.fail("a list"))
    bench.main(["--tiny", "--no-memory", "--repeat", "1"])
    (args, kw), = calls
    assert args[4] == 2 and kw == {"clock": "wall"}
    assert capsys.readouterr().out.startswith("| workload | unit | mutograd median")


def test_main_runs_a_list_of_counts(monkeypatch, tmp_path, capsys):
    """The CLI path end to end, with its JSON written to a temporary folder."""
    monkeypatch.setattr(bench, "run_threads",
                        functools.partial(bench.run_threads, out_dir=str(tmp_path)))
    res = bench.main(["--only", "relu_inplace", "--contestants", "numpy", "--threads", "1,2",
                      "--tiny", "--no-memory", "--repeat", "1"])
    assert res["threads"] == [1, 2]
    assert res["path"] == str(tmp_path / "latest-tiny-1t-2t.json")
    out = capsys.readouterr()
    assert out.out.startswith("| workload | unit | 1t numpy median (min-max) | "
                              "1t mutograd / numpy (min-max) | 2t numpy median")
    assert "1 thread(s):" in out.err and "2 thread(s):" in out.err
