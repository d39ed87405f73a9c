"""Progress bars for long runs: the demo, the benchmarks, ``run --as`` of a training script.

A bar is drawn only where someone watches it: when tqdm is installed (the ``progress`` extra)
and the stream it writes to (stderr by default) is a terminal. In a log, a pipe or a CI job
nothing extra is printed, not even a line per epoch: a log gets the results, not carriage
returns. ``MUTOGRAD_PROGRESS=0`` turns bars off on a terminal too; ``MUTOGRAD_PROGRESS=1`` draws
them on any stream (to see them through ``| less -R``, say).

Example::

    >>> import io
    >>> from mutograd import progress
    >>> log = io.StringIO()                    # not a terminal: the bar stays silent
    >>> with progress.bar(total=3, desc="steps", file=log) as b:
    ...     for _ in range(3):
    ...         b.update()
    >>> log.getvalue()
    ''
"""
import contextlib
import os
import sys
import weakref

ENV = "MUTOGRAD_PROGRESS"


def enabled(file=None):
    """Whether a bar written to ``file`` (default: stderr) would be drawn."""
    forced = os.environ.get(ENV, "")
    if forced == "0":
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    if forced == "1":
        return True
    file = sys.stderr if file is None else file
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):   # no isatty, or a closed stream
        return False


def bar(iterable=None, total=None, desc=None, file=None, unit="it", leave=False, **kw):
    """A tqdm bar over ``iterable`` (or updated by hand) when :func:`enabled`, else a silent
    stand-in with the same methods (``update``, ``set_postfix_str``, ``set_description``,
    ``write``, ``close``, iteration and ``with``).

    Example::

        >>> from mutograd import progress
        >>> for batch in progress.bar(range(3), desc="epoch 1"):   # a bar on a terminal only
        ...     pass
    """
    file = sys.stderr if file is None else file
    if not enabled(file):
        return _Silent(iterable)
    from tqdm import tqdm
    return tqdm(iterable, total=total, desc=desc, file=file, unit=unit, leave=leave,
                dynamic_ncols=True, **kw)


class _Silent:
    """The bar where none is drawn: it passes the iterable through and ignores the rest."""

    def __init__(self, iterable=None):
        self.iterable = iterable

    def __iter__(self):
        return iter(self.iterable)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        pass

    def set_postfix_str(self, s="", refresh=True):
        pass

    def set_description(self, desc=None, refresh=True):
        pass

    def close(self):
        pass

    def write(self, s, file=None, end="\n"):
        """Print a line (tqdm's ``write`` prints it above the bar)."""
        print(s, file=sys.stderr if file is None else file, end=end)


@contextlib.contextmanager
def data_loaders(file=None):
    """Inside the block, each pass over a :class:`mutograd.data.DataLoader` (the PyTorch and
    Paddle dialects' loaders are one) shows a bar of its batches, ``pass N`` counting the passes
    over that loader: the epochs of a training script. The loaders are numbered in the order
    they are first used (``DataLoader``, ``DataLoader 2``, ...). ``python -m mutograd run`` and
    ``check`` run scripts inside it. Nothing changes where :func:`enabled` is false.

    Example::

        >>> import mutograd as mg
        >>> from mutograd import progress
        >>> loader = mg.data.DataLoader(mg.data.TensorDataset(mg.arange(8)), batch_size=4)
        >>> with progress.data_loaders():
        ...     n = sum(1 for _ in loader)              # a bar on a terminal, else nothing
        >>> n
        2
    """
    if not enabled(file):
        yield
        return
    from .data import DataLoader
    plain = DataLoader.__iter__
    passes = weakref.WeakKeyDictionary()   # loader -> [its number, passes so far]
    seen = [0]

    def __iter__(self):
        if self not in passes:
            seen[0] += 1
            passes[self] = [seen[0], 0]
        n, k = passes[self]
        k = passes[self][1] = k + 1
        try:
            total = len(self)
        except TypeError:   # a dataset without a length
            total = None
        # the first loader is "DataLoader", the next ones "DataLoader 2", ... (train, test)
        name = type(self).__name__ + ("" if n == 1 else f" {n}")
        with bar(plain(self), total=total, desc=f"{name} pass {k}", file=file,
                 unit="batch") as b:
            yield from b

    DataLoader.__iter__ = __iter__
    try:
        yield
    finally:
        DataLoader.__iter__ = plain
