"""A short, measured walkthrough of views, in-place and ordinary ops (``python -m mutograd``)."""
import argparse

import mutograd as mg


def _mib(n):
    return f"{n:,} bytes"


def run(argv=()):
    print("mutograd walkthrough: the three kinds of operation\n")
    x = mg.randn([1024, 1024])          # 4 MiB of float32
    start = mg.memory.allocated()

    y = x * 2
    print(f"ordinary  y = x * 2      new object: {y is not x}, shares storage: "
          f"{y.data_ptr() == x.data_ptr()}, allocated {_mib(mg.memory.allocated() - start)}")
    before = mg.memory.allocated()
    v = x[::2, 1:]
    print(f"view      v = x[::2, 1:] new object: {v is not x}, shares storage: "
          f"{v._data.base is not None}, allocated {_mib(mg.memory.allocated() - before)}")
    before = mg.memory.allocated()
    version = x._version
    z = x.mul_(2)
    print(f"in-place  z = x.mul_(2)  z is x: {z is x}, version {version} -> {x._version}, "
          f"allocated {_mib(mg.memory.allocated() - before)}")
    print(f"          the view sees the write: v[0, 0] == x[0, 1]: "
          f"{v[0, 0].item() == x[0, 1].item()}\n")

    a = mg.randn([3, 4], requires_grad=True)
    try:
        a.mul_(2)
    except mg.InplaceError as e:
        print("leaf rule:", str(e).split(". ")[0] + ".")
    with mg.no_grad():
        a.mul_(2)
    print("          under no_grad() the same write is allowed (parameter init, optimizer "
          "steps)\n")

    h = a * 3
    out = (h * h).sum()                # MulBackward0 saves h
    h.add_(1)                          # ... and this write makes the saved value stale
    try:
        out.backward()
    except mg.VersionError as e:
        print("version rule:", e, sep="\n")
    return 0


def main(argv=()):
    """``python -m mutograd walkthrough``: what the three kinds of operation do, measured."""
    argparse.ArgumentParser(
        prog="python -m mutograd walkthrough",
        description="A measured walkthrough of the three kinds of operation: ordinary ops "
                    "(new storage), views (shared storage) and in-place ops (the same object), "
                    "the leaf rule, rebasing history and the version check, with the bytes "
                    "each allocates.").parse_args(list(argv))
    return run()
