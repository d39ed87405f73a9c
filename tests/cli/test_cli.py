"""``python -m mutograd``: its commands, their help, usage errors and ``check --as``."""
import io
import os
import subprocess
import sys

import pytest

import mutograd as mg
from mutograd import __main__ as cli
from mutograd import progress
from mutograd.cli import check

ROOT = os.path.dirname(os.path.dirname(mg.__file__))


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    for var in ("MUTOGRAD_STRICT", progress.ENV):
        env.pop(var, None)
    env.update(extra)
    return env


def _mutograd(*args, cwd=None, **env):
    return subprocess.run([sys.executable, "-m", "mutograd", *args], capture_output=True,
                          text=True, env=_env(**env), cwd=cwd, timeout=120, check=False)


# ---- the command table ---------------------------------------------------------------------

@pytest.mark.parametrize("args", [["bogus"], ["--bogus"], ["Demo"], ["help", "nothing"]],
                         ids=" ".join)
def test_an_unknown_command_is_a_usage_error_listing_the_commands(args):
    r = _mutograd(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("usage: python -m mutograd ")
    if args[0] != "--bogus":
        name = args[-1]
        assert (f"error: unknown command '{name}' (choose from walkthrough, demo, check, run)"
                in r.stderr)


def test_no_command_runs_the_walkthrough():
    r = _mutograd()
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("mutograd walkthrough: the three kinds of operation\n")
    assert _mutograd("walkthrough").stdout == r.stdout


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["help"]], ids=" ".join)
def test_top_level_help_lists_every_command_with_a_summary(args, capsys):
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m mutograd [-h] [--version] [COMMAND] [ARGS...]")
    listing = out[out.index("commands:\n"):].splitlines()[1:1 + len(cli.COMMANDS)]
    assert [line.split()[0] for line in listing] == list(cli.COMMANDS)
    for line, (_, _, summary) in zip(listing, cli.COMMANDS.values()):
        assert line.endswith(summary)


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out == f"mutograd {mg.__version__}\n"


HELP = {   # each command's help: its usage line and words of its description and options
    "walkthrough": ("usage: python -m mutograd walkthrough [-h]", "three kinds of operation"),
    "demo": ("usage: python -m mutograd demo [-h]", "train a small CNN", "--epochs", "--out"),
    "check": ("usage: python -m mutograd check [-h] [--as {torch,paddle}] SCRIPT [ARGS...]",
              "strict and anomaly mode", "--as {torch,paddle}", "examples:"),
    "run": ("usage: python -m mutograd run [-h] --as {torch,paddle}", "unmodified PyTorch"),
}


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_every_command_has_a_real_help_on_stdout(command):
    r = _mutograd(command, "--help")
    assert r.returncode == 0 and r.stderr == ""
    for words in HELP[command]:
        assert words in r.stdout
    assert "options:" in r.stdout and len(r.stdout.splitlines()) > 5
    assert _mutograd("help", command).stdout == r.stdout


def test_every_command_has_a_help_entry_here():
    assert set(HELP) == set(cli.COMMANDS)


def test_a_command_exit_status_is_the_process_status(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import mutograd as mg\nx = mg.ones(3, requires_grad=True)\nx.add_(1)\n")
    r = _mutograd("check", str(script))
    assert r.returncode == 1 and "mutograd check: FAILED with InplaceError" in r.stderr


# ---- check --as torch|paddle ---------------------------------------------------------------

TORCH_BAD = """import sys
import torch
print("argv", sys.argv[1:], torch.__name__)
x = torch.ones(3, requires_grad=True)
y = x.exp()
y.add_(1)
y.sum().backward()
"""

PADDLE_CLEAN = """import sys
import paddle
print("argv", sys.argv[1:], paddle.__name__)
x = paddle.ones([3])
x.stop_gradient = False
y = x * 2
y.scale_(3.0)
y.sum().backward()
print(x.grad.numpy().tolist())
"""


def test_check_as_torch_reports_the_write_in_a_pytorch_script(tmp_path):
    script = tmp_path / "train_torch.py"
    script.write_text(TORCH_BAD)
    r = _mutograd("check", "--as", "torch", str(script), "-h", "--lr", "1", cwd=tmp_path)
    assert r.returncode == 1
    # the script's own options (even -h) are the script's
    assert r.stdout == "argv ['-h', '--lr', '1'] mutograd.compat.torch\n"
    assert r.stderr.splitlines()[:5] == [
        "mutograd check: FAILED with VersionError",
        f"  failing line: {script}:7",
        "      y.sum().backward()",
        r.stderr.splitlines()[3],
        f"  write: add_ at {script}:6 (version 1)"]
    assert "ExpBackward" in r.stderr and "fix: clone() the tensor" in r.stderr


def test_check_as_paddle_runs_a_paddle_script_clean(tmp_path):
    script = tmp_path / "train_paddle.py"
    script.write_text(PADDLE_CLEAN)
    r = _mutograd("check", "--as", "paddle", str(script), "a", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "argv ['a'] mutograd.compat.paddle\n[6.0, 6.0, 6.0]\n"
    assert r.stderr == (f"mutograd check: {script} ran clean under strict and anomaly mode; "
                        f"1 in-place writes seen (scale_: 1)\n")


def test_check_without_as_cannot_import_torch_from_mutograd(tmp_path):
    """Without ``--as`` the script's ``import torch`` is the real one (or fails): nothing is
    aliased behind the user's back."""
    script = tmp_path / "s.py"
    script.write_text("import sys\nimport mutograd.compat.torch as t\n"
                      "print('torch' in sys.modules and sys.modules['torch'] is t)\n")
    r = _mutograd("check", str(script))
    assert r.returncode == 0 and r.stdout == "False\n"


@pytest.mark.parametrize("args, message", [
    (["check"], "error: the script to check is missing"),
    (["check", "nope.py"], "error: no such script: nope.py"),
    (["check", "--as", "jax", "x.py"], "argument --as: invalid choice: 'jax'"),
    (["check", "--as"], "argument --as: expected one argument"),
])
def test_check_usage_errors(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("usage: python -m mutograd check") and message in err


def test_check_parser_keeps_the_scripts_options_for_the_script():
    ns = check.parser().parse_args(["--as", "paddle", "s.py", "--as", "torch", "-h"])
    assert (ns.framework, ns.script, ns.args) == ("paddle", "s.py", ["--as", "torch", "-h"])


# ---- the repository ------------------------------------------------------------------------

def test_the_demo_output_folder_is_ignored_by_git():
    with open(os.path.join(ROOT, ".gitignore")) as f:
        ignored = f.read().split()
    assert "mutograd-demo/" in ignored
    from mutograd.cli import demo
    assert demo.parse([]).out == "mutograd-demo"


def test_no_file_in_the_repository_is_named_like_an_option():
    """A command that took ``--help`` for a file name once wrote one into the repository."""
    names = [n for n in os.listdir(ROOT) if n.startswith("-")]
    for folder in ("mutograd", "tests", "docs", "benchmarks", "examples"):
        for _, dirs, files in os.walk(os.path.join(ROOT, folder)):
            names += [n for n in dirs + files if n.startswith("-")]
    assert names == []


def test_opdocs_help_does_not_write_a_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mutograd.tools.opdocs", "--help"], cwd=tmp_path,
                       capture_output=True, text=True, env=_env(), timeout=120, check=False)
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m mutograd.tools.opdocs")
    assert os.listdir(tmp_path) == []


# ---- progress bars under run --as ----------------------------------------------------------

TRAIN = """import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(10.0).reshape(10, 1), torch.arange(10.0))
loader = DataLoader(ds, batch_size=4)
w = torch.zeros(1, requires_grad=True)
for epoch in range(2):
    for x, y in loader:
        ((x[:, 0] * w - y) ** 2).mean().backward()
print("trained", len(loader))
"""


@pytest.fixture
def train_script(tmp_path):
    pytest.importorskip("tqdm")
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    return script


def test_run_as_in_a_log_prints_no_progress(train_script):
    r = _mutograd("run", "--as", "torch", str(train_script))
    assert r.returncode == 0 and r.stdout == "trained 3\n" and r.stderr == ""


def test_run_as_forced_shows_a_bar_per_pass_of_the_scripts_data_loader(train_script):
    r = _mutograd("run", "--as", "torch", str(train_script), MUTOGRAD_PROGRESS="1")
    assert r.returncode == 0 and r.stdout == "trained 3\n"
    assert "DataLoader pass 1" in r.stderr and "DataLoader pass 2" in r.stderr
    assert "| 0/3 [" in r.stderr and "batch/s" in r.stderr


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_run_as_on_a_terminal_shows_the_bar_in_process(train_script, monkeypatch, capsys):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert cli.main(["run", "--as", "torch", str(train_script)]) == 0
    assert capsys.readouterr().out == "trained 3\n"
    assert "DataLoader pass 2" in tty.getvalue() and "| 0/3 [" in tty.getvalue()
    from mutograd.data import DataLoader
    assert DataLoader.__iter__.__qualname__ == "DataLoader.__iter__"   # put back afterwards


def test_demo_refuses_a_non_positive_epoch_count_as_a_usage_error():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "mutograd", "demo", "--epochs", "0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--epochs: must be at least 1, got 0" in r.stderr
