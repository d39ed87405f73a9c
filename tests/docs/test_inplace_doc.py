"""The examples of docs/inplace.md (and docs/autograd_api.md) run as tests: each ```python
block runs on its own; a block whose fence says ``raises=Name`` must raise that error (a
mutograd or builtin class)."""
import builtins
import os
import re

import pytest
from tests.helpers import ROOT

import mutograd as mg

DOCS = os.path.join(ROOT, "docs")
DOC = os.path.join(DOCS, "inplace.md")
_FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def blocks(doc):
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    found = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start(2)) + 1
        raises = re.search(r"raises=(\w+)", m.group(1))
        found.append(pytest.param(m.group(2), line, raises and raises.group(1), doc,
                                  id=f"{os.path.basename(doc)[:-3]}-line{line}"))
    return found


BLOCKS = blocks(DOC)


def test_the_guide_has_examples_of_every_error():
    kinds = {b.values[2] for b in BLOCKS}
    assert {"VersionError", "InplaceError", "OverlapError", "ShapeError", "DTypeError",
            "BackwardError", "ValueError", None} <= kinds


@pytest.mark.parametrize("src, line, raises, doc",
                         BLOCKS + blocks(os.path.join(DOCS, "autograd_api.md")))
def test_guide_example(src, line, raises, doc):
    # padded so that file:line in messages point at the guide's own lines
    code = compile("\n" * (line - 1) + src, doc, "exec")
    ns = {"__name__": "__main__"}
    if raises is None:
        exec(code, ns)  # noqa: S102 - the guide's own examples
        return
    cls = getattr(mg, raises, None) or getattr(builtins, raises)
    with pytest.raises(cls) as e:
        exec(code, ns)  # noqa: S102
    if raises == "VersionError":   # the message points at the guide's write line
        assert f"{doc}:" in str(e.value) and e.value.writes
        assert e.value.writes[0][3] in src
    assert not mg.is_strict() and not mg.is_anomaly_enabled()
