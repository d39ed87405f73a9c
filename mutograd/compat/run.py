"""``python -m mutograd run --as torch script.py [args]``: run an unmodified PyTorch or Paddle
script on mutograd (``import torch`` resolves to ``mutograd.compat.torch`` for that run)."""
import argparse
import os
import sys


def main(argv=None):
    """Parse ``--as FRAMEWORK script [args]`` and run the script as ``__main__``; returns 0."""
    from .dialect import DIALECTS
    from .hook import run_script
    parser = argparse.ArgumentParser(
        prog="python -m mutograd run",
        description="Run an unmodified PyTorch or Paddle script on mutograd.")
    parser.add_argument("--as", dest="framework", required=True,
                        choices=[d for d in DIALECTS if d],
                        help="the framework the script imports")
    parser.add_argument("script", help="path of the script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not os.path.isfile(ns.script):
        parser.error(f"no such script: {ns.script}")
    # the script's folder first on sys.path, as `python script.py` does (local imports work)
    sys.path.insert(0, os.path.dirname(os.path.abspath(ns.script)))
    try:
        run_script(ns.script, ns.framework, ns.args)
    finally:
        sys.path.pop(0)
    return 0
