"""What a new user meets first: `check` on a PyTorch script, a missing `import torch`, and why
tests were skipped."""
import subprocess
import sys
import textwrap
from types import SimpleNamespace

from mutograd.cli import check
from tests import conftest


def test_check_on_a_script_that_imports_torch_suggests_as_torch(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text("import os\nfrom torch.utils.data import DataLoader\n")
    assert check.main([str(script)]) == 2
    err = capsys.readouterr().err
    assert f"python -m mutograd check --as torch {script}" in err
    paddle = tmp_path / "p.py"
    paddle.write_text("def f():\n    import paddle.nn as nn\n")
    assert check.framework_imported(str(paddle)) == "paddle"
    plain = tmp_path / "plain.py"
    plain.write_text("import mutograd.compat.torch as torch\nfrom . import x\n")
    assert check.framework_imported(str(plain)) is None


def test_an_uncaught_missing_torch_says_how_to_alias_it(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import sys
        sys.modules["torch"] = None          # as on a machine without PyTorch
        import mutograd.compat.torch as torch
        from torch.utils.data import DataLoader
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "ModuleNotFoundError" in proc.stderr
    assert "mutograd.compat.install('torch')" in proc.stderr
    assert "python -m mutograd run --as torch" in proc.stderr


def test_the_run_ends_with_the_skip_reasons_counted():
    lines = []
    skipped = [SimpleNamespace(longrepr=("a.py", 1, "Skipped: PyTorch is not installed")),
               SimpleNamespace(longrepr=("b.py", 2, "Skipped: PyTorch is not installed")),
               SimpleNamespace(longrepr=("c.py", 3, "no CUDA device"))]
    reporter = SimpleNamespace(stats={"skipped": skipped}, section=lines.append,
                               line=lines.append)
    conftest.pytest_terminal_summary(reporter)
    assert lines == ["skipped tests, by reason", "     2  PyTorch is not installed",
                     "     1  no CUDA device"]
