"""The generated op list in docs/ops.md matches the registry."""
import os

from tests.helpers import ROOT

from mutograd.tools import opdocs


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


def _layout_rows():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `")]


def test_readme_layout_names_files_that_exist():
    """Every module the README's layout table names is where the table says, and every module
    of mutograd/ops/ and mutograd/autograd/ is named there."""
    import re
    named = set()
    for row in _layout_rows():
        folder_cell, what = row.split(" | ", 1)
        folders = re.findall(r"`([\w/.]+)`", folder_cell)
        base = folders[0].rsplit("/", 1)[0] if folders[0].endswith(".py") else folders[0]
        for name in re.findall(r"`([\w/]+\.py|[\w]+/)`", what) + folders:
            candidates = [os.path.join(ROOT, name), os.path.join(ROOT, base, name),
                          os.path.join(ROOT, "mutograd", name)]
            assert any(os.path.exists(c) for c in candidates), f"README layout names {name}"
            if name.endswith(".py"):
                named.add(os.path.basename(name))
    for pkg in ("ops", "autograd"):
        for module in os.listdir(os.path.join(ROOT, "mutograd", pkg)):
            if module.endswith(".py") and module != "__init__.py":
                assert module in named, f"README layout does not name mutograd/{pkg}/{module}"
