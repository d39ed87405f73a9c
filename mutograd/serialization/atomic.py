"""Writes that a crash cannot half-do, and the cleanup of what a killed one left behind.

A file is written to a temporary file next to its target, flushed to disk, renamed over the
target, and the folder flushed, so a reader sees the old file or the new one. The writer holds an
exclusive lock on its temporary file while it writes; the next save or load of the same path
removes the temporary files nobody holds (their writer was killed). A symlinked path is written
through to its target, as ``torch.save`` does.
"""
import os
import re
import secrets

try:
    import fcntl
except ImportError:   # no advisory locks (Windows): leftovers are not told from live writes
    fcntl = None


def _temp_pattern(target):
    folder, name = os.path.split(target)
    # our names, and mkstemp's of earlier versions (8 characters)
    return folder, re.compile(rf"\.{re.escape(name)}\.[0-9a-z_]{{8,16}}\.tmp")


def remove_leftovers(path):
    """Remove the temporary files that killed saves of ``path`` left in its folder."""
    if fcntl is None:
        return
    folder, pattern = _temp_pattern(os.path.realpath(path))
    try:
        names = [n for n in os.listdir(folder or ".") if pattern.fullmatch(n)]
    except OSError:   # the folder is gone or unreadable: nothing of ours to remove
        return
    for n in names:
        tmp = os.path.join(folder, n)
        try:
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)   # held: a save is writing it
            os.unlink(tmp)
        except OSError:
            pass
        finally:
            os.close(fd)


def write(path, pieces):
    """Write the bytes ``pieces`` (bytes-like objects, one after the other) to ``path``
    atomically (through a symlink to its target)."""
    target = os.path.realpath(path)
    remove_leftovers(target)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                 0o666)   # the umask applies, as to a plain open()
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        if os.path.exists(target):   # keep the mode of the file it replaces
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        for piece in pieces:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view):]
        os.fsync(fd)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        os.close(fd)
    _sync_folder(folder)


def _sync_folder(folder):
    # the rename is on disk once the folder is; not every system can open a folder
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
