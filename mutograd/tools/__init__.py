"""Developer tools (documentation and stub generators)."""
import sys


def write_main(argv, prog, description, default, render):
    """The command line of a generator: write ``render()`` to a path (``default`` if none)."""
    import argparse   # (an option such as --help must not become the name of the file written)
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("path", nargs="?", default=default,
                   help=f"the file to write (default {default})")
    path = p.parse_args(sys.argv[1:] if argv is None else argv).path
    with open(path, "w") as f:
        f.write(render())
    print(f"wrote {path}")
    return 0
