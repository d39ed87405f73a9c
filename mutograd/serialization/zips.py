"""Zip archives (PyTorch's files, ``.npz``) read within the sizes they declare.

A member is charged to the load's budget at its declared uncompressed size before anything is
inflated, then read in bounded chunks: ``zipfile`` never returns more than the declared size and
checks the CRC-32 at its end, so a deflate bomb costs no more than it declares. Only stored and
deflated members are read (bzip2 and lzma inflate without a bound).
"""
import io
import zipfile

from ..errors import CheckpointError

_CHUNK = 1 << 20
_ENTRY = 1024           # a ZipInfo with its name and fields, and its place in zipfile's tables
_MIN_ENTRY = 46         # the bytes of the smallest entry of a central directory


def open_zip(data, budget):
    """A :class:`zipfile.ZipFile` over ``data``, its directory charged to ``budget`` before
    ``zipfile`` makes an object for each of its entries."""
    f = io.BytesIO(data)
    # zipfile's own reading of the end record (private, stable since Python 2), so that the
    # directory charged is the one it will parse; None: zipfile refuses the archive itself
    end = zipfile._EndRecData(f)
    if end is not None:
        entries = min(end[zipfile._ECD_SIZE], len(data)) // _MIN_ENTRY + 1
        budget.charge(_ENTRY * entries, "the archive's directory")
    return zipfile.ZipFile(f)


def read_member(z, info, budget):
    """The bytes of the member ``info`` of ``z`` (a new bytearray), at most its declared size."""
    source, name = budget.source, info.filename
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise CheckpointError(f"{source}: the record {name!r} is compressed with method "
                              f"{info.compress_type}; only stored and deflated records are read")
    size = info.file_size
    budget.charge(size, f"the record {name!r}")
    out = bytearray(size)
    view = memoryview(out)
    with z.open(info) as f:
        done = 0
        while done < size:
            chunk = f.read(min(_CHUNK, size - done))
            if not chunk:
                raise CheckpointError(f"{source} is truncated or corrupted: the record {name!r} "
                                      f"holds {done:,} bytes, its directory says {size:,}")
            view[done:done + len(chunk)] = chunk
            done += len(chunk)
    return out
