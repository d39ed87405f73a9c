"""What a message shows of a file's values: short, and never failing on what a file can hold
(an int of a million digits, a string of a gigabyte, a container that contains itself)."""
import reprlib

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40


def shown(value):
    """A short ``repr`` of ``value`` for an error message.

        >>> shown(10 ** 5000)
        '<an int of 16610 bits>'
    """
    if isinstance(value, int) and value.bit_length() > 128:
        return f"<an int of {value.bit_length()} bits>"
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001  (a repr that fails: name the type only)
        return f"<a {type(value).__name__}>"


def size_text(n):
    """``n`` bytes for a message: ``'1,234 bytes'`` or ``'1.5 GiB (1,610,612,736 bytes)'``."""
    if n < 1 << 20:
        return f"{n:,} bytes"
    if n >= 1 << 60:
        return f"{n:.3g} bytes"
    unit, scale = next((u, s) for u, s in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20))
                       if n >= s)
    return f"{n / scale:.1f} {unit} ({n:,} bytes)"
