"""The generated op list in docs/ops.md matches the registry."""
import os

from mutograd.tools import opdocs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ops_page_is_current():
    with open(os.path.join(ROOT, "docs", "ops.md")) as f:
        assert f.read() == opdocs.render(), (
            "docs/ops.md is out of date: run `python -m mutograd.tools.opdocs`")


def test_every_declared_op_and_issue_op_is_listed():
    text = opdocs.render()
    for name in ("neg", "relu6", "scale", "lerp", "masked_fill", "addcdiv", "logsumexp",
                 "cumprod", "matmul", "einsum", "as_strided", "unflatten", "masked_select",
                 "take_along_axis", "index_select", "gather", "clamp", "where"):
        assert f"| `{name}` |" in text
    assert "`reshape_`" in text and "`t_`" in text and "`flatten_`" in text
