"""Source locations for diagnostics: where a write, a backward node or a leaf came from.

Note [Recording source sites]
    Errors about in-place writes are only useful if they point at the user's line. Recording a
    site must be cheap because it happens on the per-op path (a node that saves something, a
    write to a watched counter, a leaf that starts requiring grad), so a site is a plain tuple
    ``(code, lasti, inner)`` found by walking frames up from the op machinery: the code object
    and bytecode offset of the user's frame. The line number is worked out from them only when a
    message is built (``frame.f_lineno`` scans the line table and cost as much as the walk).

    Frames are classified once per file name: *machinery* (``mutograd/ops``, ``autograd``,
    ``compat``, ``tensor.py``: the code every op goes through) is skipped; *package* code that is
    not machinery (an ``nn`` layer, an optimizer, the walkthrough) is remembered as ``inner``;
    interpreter frames such as ``<frozen runpy>`` are skipped; the first other frame is the
    user's line. When the whole stack is inside the package (``python -m mutograd``), the
    innermost package frame is the site.
"""
import linecache
import os
import sys
import threading

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ROOT = os.path.dirname(_PKG_DIR)
_MACHINERY_DIRS = tuple(os.path.join(_PKG_DIR, d) + os.sep for d in ("ops", "autograd", "compat"))
_MACHINERY_FILES = frozenset(os.path.join(_PKG_DIR, f) for f in (
    "tensor.py", "tensor_methods.py", "__init__.py", "memory.py", "dtypes.py", "random.py",
    "strict.py", os.path.join("cli", "check.py"), "__main__.py"))

# runpy is frozen in CPython 3.11+, a plain file in other builds: skipped either way
_RUNPY = os.path.join(os.path.dirname(os.__file__), "runpy.py")

USER, PACKAGE, MACHINERY, SKIP = 0, 1, 2, 3
_kinds = {}                 # filename -> kind, filled on first sight
_machinery_seen = set()     # the MACHINERY file names among them
_getframe = sys._getframe


class Flags:
    """Process-wide diagnostic switches read on the per-op path (one attribute lookup each)."""

    anomaly = False
    check_nan = True


def _classify(filename):
    if filename.startswith(_PKG_DIR + os.sep):
        kind = MACHINERY if (filename.startswith(_MACHINERY_DIRS)
                             or filename in _MACHINERY_FILES) else PACKAGE
    elif filename.startswith("<frozen ") or filename == _RUNPY:
        kind = SKIP
    else:
        kind = USER
    _kinds[filename] = kind
    if kind == MACHINERY:
        _machinery_seen.add(filename)
    return kind


def kind(filename):
    """USER, PACKAGE, MACHINERY or SKIP for a frame's file name."""
    k = _kinds.get(filename)
    return _classify(filename) if k is None else k


def here(depth=1):
    """The site of the running op: ``(code, lasti, inner)`` (Note [Recording source sites]).

    ``depth`` 1 starts at the caller of ``here``; start as deep as every call path allows, since
    each frame walked costs. ``inner`` is ``(code, lasti)`` of the innermost package frame
    that is not machinery (an ``nn`` layer, say) or None. Returns None when no frame qualifies.
    """
    f = _getframe(depth)
    machinery = _machinery_seen
    fn = f.f_code.co_filename
    while fn in machinery:         # the hot loop: one set lookup per machinery frame
        f = f.f_back
        if f is None:
            return None
        fn = f.f_code.co_filename
    if _kinds.get(fn) == USER:
        return (f.f_code, f.f_lasti, None)
    return _here_slow(f)


class _Running(threading.local):
    node = None   # the node whose backward runs now, with create_graph, in this thread


running = _Running()


# Note [Nodes made by a backward]
#     With create_graph, a node's backward records ops, so it makes nodes; the user's line
#     found for them is the backward() or grad() call, which alone does not say which forward
#     op the saved value comes from. While a create_graph backward runs, the engine has Node
#     use :func:`here_in_backward` instead of :func:`here` (a module global it swaps: ops run
#     outside such a backward pay nothing), which appends ``(name, created_at)`` of the node
#     whose backward is running (``running.node``); :func:`made_by` formats it. Anomaly mode's
#     stack keeps that node too (:func:`stack`), as PyTorch's "Previous calculation was induced
#     by" does.

def here_in_backward(depth=1):
    """:func:`here`, and for a node made by a create_graph backward, the node whose backward
    made it (Note [Nodes made by a backward])."""
    site = here(depth + 1)
    node = running.node
    if site is None or node is None:
        return site
    return site + ((node, getattr(node, "created_at", None)),)   # named when a message needs it


def made_by(site):
    """``created at a.py:3``, or for a node made by a backward ``created during the backward of
    PowBackward0 (created at a.py:3), run at a.py:5`` (Note [Nodes made by a backward])."""
    if len(site) < 4:
        return f"created at {fmt(site)}"
    node, parent = site[3]
    of = f"{node.name()} ({made_by(parent)})" if parent is not None else node.name()
    return f"created during the backward of {of}, run at {fmt(site)}"


class _Stack(list):
    """A forward stack that also keeps the node whose backward made its node."""

    parent = None


def _walk(f):
    """``(frame, kind)`` for ``f`` and each frame outside it, innermost first."""
    while f is not None:
        yield f, kind(f.f_code.co_filename)
        f = f.f_back


def _here_slow(f):
    # _walk written out: a node made inside an nn layer or a loss comes here on the per-op path
    inner = None
    kinds = _kinds
    while f is not None:
        code = f.f_code
        fn = code.co_filename
        k = kinds.get(fn)
        if k is None:
            k = _classify(fn)
        if k == USER:
            return (code, f.f_lasti, inner)
        if k == PACKAGE and inner is None:
            inner = (code, f.f_lasti)
        f = f.f_back
    if inner is not None:
        return (inner[0], inner[1], None)
    return None


def stack(depth=1):
    """The forward stack, outermost first, as ``(filename, lineno, function)`` without machinery
    or interpreter frames (what anomaly mode keeps for every node)."""
    frames = _Stack((f.f_code.co_filename, f.f_lineno, f.f_code.co_name)
                    for f, k in _walk(sys._getframe(depth)) if k <= PACKAGE)
    frames.reverse()
    frames.parent = running.node   # Note [Nodes made by a backward]
    return frames


def short(filename):
    """A package file relative to the checkout (``mutograd/nn/linear.py``); others unchanged."""
    if filename.startswith(_PKG_DIR + os.sep):
        return os.path.relpath(filename, _ROOT)
    return filename


def lineno(code, lasti):
    """The source line of bytecode offset ``lasti`` in ``code``."""
    line = code.co_firstlineno
    for start, end, ln in code.co_lines():
        if start <= lasti < end:
            return ln if ln is not None else line
        if ln is not None:
            line = ln
    return line


def where(site):
    """``(filename, lineno)`` of a site."""
    return site[0].co_filename, lineno(site[0], site[1])


def fmt(site):
    """``file:line`` of a site, with the package frame it went through: ``a.py:3 (in ...)``."""
    if site is None:
        return "<unknown>"
    filename, line = where(site)
    text = f"{short(filename)}:{line}"
    if site[2] is not None:
        inner_file, inner_line = where(site[2])
        text += f" (in {short(inner_file)}:{inner_line})"
    return text


def source(site):
    """The stripped source line of a site, or ''."""
    if site is None:
        return ""
    return linecache.getline(*where(site)).strip()


def format_stack(frames, indent="  "):
    """A recorded stack in the layout of a Python traceback."""
    lines = []
    for filename, lineno, func in frames:
        lines.append(f'{indent}File "{filename}", line {lineno}, in {func}')
        code = linecache.getline(filename, lineno).strip()
        if code:
            lines.append(f"{indent}  {code}")
    return "\n".join(lines)
