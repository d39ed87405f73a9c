"""``python -m mutograd``: the walkthrough of the three kinds of operation (more commands later)."""
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    from .walkthrough import run
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
