"""``python -m mutograd [COMMAND] ...``: the walkthrough, or one of the commands below (also the
``mutograd`` console script). ``python -m mutograd COMMAND --help`` describes each."""
import argparse
import importlib
import sys

# command -> (module, its entry point taking argv, one line for the command list)
COMMANDS = {
    "walkthrough": ("mutograd.cli.walkthrough", "main",
                    "a measured walkthrough of views, in-place and ordinary ops (the default)"),
    "demo": ("mutograd.cli.demo", "main",
             "train a small CNN twice, in place and out of place, and measure the saving"),
    "check": ("mutograd.cli.check", "main",
              "run a script under strict and anomaly mode; report in-place misuse with its fix"),
    "run": ("mutograd.compat.import_alias", "main",
            "run an unmodified PyTorch or Paddle script on mutograd (--as torch|paddle)"),
}
# commands that run a user's (training) script: its DataLoader passes get progress bars
_SCRIPTS = ("run", "check")


def parser():
    """The top-level parser: its help lists the commands; each command parses its own options."""
    width = max(map(len, COMMANDS)) + 2
    listing = "\n".join(f"  {name:{width}}{summary}" for name, (_, _, summary) in COMMANDS.items())
    p = argparse.ArgumentParser(
        prog="python -m mutograd", usage="%(prog)s [-h] [--version] [COMMAND] [ARGS...]",
        description="mutograd: eager tensors and autograd, with in-place and view operations\n"
                    "that are correct, cheap and easy to debug. Without a command, the\n"
                    "walkthrough runs.",
        epilog=f"commands:\n{listing}\n\n`python -m mutograd COMMAND --help` describes a "
               f"command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"mutograd {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
    for name in COMMANDS:
        sub.add_parser(name, add_help=False)
    return p


def _version():
    from . import __version__
    return __version__


def main(argv=None):
    """Run the command named by ``argv[0]`` (the walkthrough when there is none); returns the
    exit status. An unknown command is a usage error (status 2) that lists the commands."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        argv = ["walkthrough"]
    if argv[0] == "help":      # `help` alone, or `help COMMAND` (= COMMAND --help)
        argv = [argv[1], "--help"] if len(argv) > 1 else ["--help"]
    name = argv[0]
    if name in ("-h", "--help"):
        print(parser().format_help(), end="")
        return 0
    if name not in COMMANDS:
        p = parser()
        if name.startswith("-"):
            p.parse_args(argv)             # --version exits; another option is a usage error
        p.error(f"unknown command '{name}' (choose from {', '.join(COMMANDS)})")
    module, entry, _ = COMMANDS[name]
    run = getattr(importlib.import_module(module), entry)
    if name in _SCRIPTS:
        from .progress import data_loaders
        with data_loaders():
            return run(argv[1:])
    return run(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
