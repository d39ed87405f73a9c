"""The memory budget of one load.

Everything a file makes while it is read (decompressed records, Python objects of a pickle,
arrays) is charged here **before** it is allocated, so a small file cannot make a large amount
of memory: by default a load may make ``MULTIPLE`` times the file's size plus ``FLOOR`` bytes, on
top of the file's own bytes. ``max_bytes=`` replaces that default, both ways.

    >>> b = Budget("w.pt", file_size=1000)
    >>> b.charge(4096, "a float32 tensor of shape [1024]")
    >>> b.used
    4096
"""
from ..errors import CheckpointBudgetError
from .text import size_text

MULTIPLE = 8            # a float8 tensor widened to float32 takes 4x its bytes, plus the records
FLOOR = 64 << 20        # small files: room for their structure, whatever its shape


class Budget:
    """How many bytes reading one file may still make; ``source`` names the file in messages."""

    def __init__(self, source, file_size, max_bytes=None):
        self.source = source
        if max_bytes is None:
            self.limit = MULTIPLE * file_size + FLOOR
            self.rule = f"{MULTIPLE} x the file's {file_size:,} bytes + {FLOOR >> 20} MiB"
        else:
            if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
                raise ValueError(f"max_bytes must be a number of bytes >= 0, not {max_bytes!r}")
            self.limit, self.rule = max_bytes, "max_bytes"
        self.used = 0

    def charge(self, nbytes, what):
        """Count ``nbytes`` that ``what`` is about to allocate, or raise
        :class:`~mutograd.errors.CheckpointBudgetError` if the budget has not that much left."""
        if nbytes > self.limit - self.used:
            raise CheckpointBudgetError(
                f"{self.source}: {what} would take {size_text(nbytes)}, more than the "
                f"{size_text(self.limit - self.used)} left of the memory budget for loading this "
                f"file, {size_text(self.limit)} ({self.rule}); if the file is what you expect, "
                f"load it with a larger max_bytes=")
        self.used += nbytes


def json_cost(text):
    """An upper bound on the bytes ``json.loads(text)`` makes: twice the text (its strings and
    numbers), plus a container per bracket and an entry per comma or colon, counted as if every
    one of them were structure."""
    def count(ch):
        return text.count(ch if isinstance(text, str) else ch.encode())
    return 2 * len(text) + 96 * (count("{") + count("[") + count(":")) + 64 * count(",")
