"""The example programs learn when run as scripts through the launcher (marker 'slow').

By default a short run each (CI); ``PROGRAMS_LONG=1`` trains several times longer and asks for
more progress.
"""
import os
import re
import subprocess
import sys

import pytest
from tests.programs.program_harness import EXAMPLES

pytestmark = pytest.mark.slow
LONG = os.environ.get("PROGRAMS_LONG") == "1"


def _run(framework, script, *args):
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", framework,
                        str(EXAMPLES / script), *args], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("model", ["bigram", "mlp", "rnn", "gru", "bow"])
def test_char_lm_learns(model):
    out = _run("torch", "char_lm.py", "--model", model, "--steps", "300" if LONG else "51")
    losses = [float(v) for v in re.findall(r"\| loss (\d+\.\d+)", out)]   # training losses
    assert losses[-1] < losses[0] - (0.7 if LONG else 0.15), out
    assert out.count("sample: ") == 5


def test_gpt_learns():
    out = _run("torch", "gpt.py", "--steps", "100" if LONG else "30")
    losses = [float(v) for v in re.findall(r"loss (\d+\.\d+)", out)]
    assert losses[-1] < losses[0] - (1.0 if LONG else 0.3), out


@pytest.mark.parametrize("framework,script", [("torch", "cnn.py"), ("paddle", "cnn_paddle.py")])
def test_cnn_learns(framework, script):
    out = _run(framework, script, "--epochs", "3" if LONG else "2")
    acc = [float(v) for v in re.findall(r"accuracy (\d+\.\d+)%", out)]
    assert acc[-1] >= (98.0 if LONG else 90.0), out
