"""benchmarks/gpt_step.py runs (tiny sizes, one round) and reports both contestants."""
import runpy
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "gpt_step.py"


@pytest.mark.torch
def test_gpt_step_benchmark_smoke(capsys):
    ns = runpy.run_path(str(BENCH), run_name="gpt_step_bench")
    out = ns["main"](["--tiny", "--repeat", "1", "--warmup", "1"])
    assert set(out["times"]) == {"mutograd", "torch"} and out["ratio"] > 0
    # the same weights and batch: the first losses agree
    a, b = out["first_loss"]["mutograd"], out["first_loss"]["torch"]
    assert abs(a - b) <= 1e-4 * abs(b)
    text = capsys.readouterr().out
    assert "| GPT step (n_layer 1, n_embd 16, block 8, batch 2) | s/step |" in text
    assert "mutograd / torch (of the minima)" in text and out["ratio_min"] > 0
