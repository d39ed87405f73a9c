"""Which torch functions take ``out=``: the list recorded from the real wheel
(``out_functions.json``, written by ``python tools/api_coverage.py --record``), so that every
function PyTorch gives ``out=`` has it here too (Note [Writing into out=] in
mutograd/autograd/out_arguments.py), and no other."""
import json
import os

_FILE = os.path.join(os.path.dirname(__file__), "out_functions.json")


def out_functions():
    """The dotted names (``torch.cat``, ``torch.linalg.svd``) of the functions taking ``out=``."""
    with open(_FILE) as f:
        recorded = json.load(f)
    return frozenset(f"{ns}.{name}" for ns, names in recorded.items() for name in names)
