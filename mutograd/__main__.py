"""``python -m mutograd [COMMAND] ...``: the walkthrough, or one of the commands below (also the
``mutograd`` console script)."""
import importlib
import sys

# command -> module with ``main(argv)``; without a command, the walkthrough runs
COMMANDS = {
    "check": "mutograd.check",
    "demo": "mutograd.demo",
    "run": "mutograd.compat.run",
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in COMMANDS:
        return importlib.import_module(COMMANDS[argv[0]]).main(argv[1:])
    if argv and argv[0] in ("-h", "--help", "help"):
        print("usage: python -m mutograd [COMMAND] [options]\n\nwithout a command: the "
              "walkthrough of views, in-place and ordinary ops\ncommands: "
              + ", ".join(COMMANDS) + " (each takes --help)")
        return 0
    from .walkthrough import run
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
