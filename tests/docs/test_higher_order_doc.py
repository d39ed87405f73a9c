"""The examples of docs/higher_order.md run, in order, in one namespace (the first block
imports what the others use)."""
import os
import re

from tests.helpers import ROOT

DOC = os.path.join(ROOT, "docs", "higher_order.md")


def test_the_page_examples_run():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    blocks = [(text.count("\n", 0, m.start(1)) + 1, m.group(1))
              for m in re.finditer(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)]
    assert len(blocks) >= 5
    namespace = {}
    for line, src in blocks:
        exec(compile("\n" * (line - 1) + src, DOC, "exec"), namespace)   # noqa: S102
