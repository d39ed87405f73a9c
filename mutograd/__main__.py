"""``python -m mutograd [command]`` (and the ``mutograd`` console script).

Commands are a small table: name -> (module, one-line help); each module has ``run(argv)``.
Without a command, the walkthrough of the three kinds of operation runs.
"""
import importlib
import sys

COMMANDS = {
    "walkthrough": ("mutograd.walkthrough", "views, in-place and ordinary ops, measured"),
    "demo": ("mutograd.demo", "train a CNN on the digits twice: in place vs not, measured"),
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help", "help"):
        print("usage: python -m mutograd [command] [options]\n\ncommands:")
        for name, (_, doc) in COMMANDS.items():
            print(f"  {name:<12} {doc}")
        return 0
    name = argv[0] if argv and argv[0] in COMMANDS else "walkthrough"
    rest = argv[1:] if argv and argv[0] in COMMANDS else argv
    return importlib.import_module(COMMANDS[name][0]).run(rest)


if __name__ == "__main__":
    sys.exit(main())
