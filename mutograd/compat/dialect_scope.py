"""The dialect's scope: which framework's conventions apply to the code calling now.

Tensor is one class for every namespace, and nearly all of its methods mean the same in PyTorch
and Paddle. A handful do not; only those consult the dialect (they are in ``tensor_methods.py``):

- ``x.split(n)``: pieces of size ``n`` (torch, and the main namespace); ``n`` equal pieces, as a
  list (paddle).
- ``x.max(dim)`` / ``x.min(dim)``: ``(values, indices)`` (torch, main); the values (paddle).
- ``x.uniform_()``: samples in [0, 1) (torch, main); in [-1, 1) (paddle).
- ``x.backward()``: needs a scalar output (torch); ones for any output shape (paddle, main).
- ``repr(x)``: ``tensor([...])`` (torch); ``Tensor(shape=..., place=...)`` (paddle, main).
- ``repr(x.shape)`` / ``str(x.dtype)``: ``torch.Size([2])``, ``torch.float32`` (torch);
  ``[2]``, ``paddle.float32`` (paddle); ``[2]``, ``float32`` (main).
- ``x.type()``: ``'torch.FloatTensor'`` (torch); ``'mutograd.float32'`` (paddle, main).

The dialect belongs to the code that asks for it, never to the process: importing a compat
namespace changes nothing for code that did not import it. :func:`get_dialect` answers, for the
call running now, in this order:

1. code inside ``mutograd.compat.torch`` / ``mutograd.compat.paddle`` (the namespaces' own
   functions) always follows its framework;
2. this thread's explicit choice: :func:`set_dialect` or ``with dialect(...)``;
3. the calling module: one that holds ``mutograd.compat.paddle`` (or one of its submodules)
   under any name, as ``import mutograd.compat.paddle as paddle`` does, follows Paddle; one that
   holds the torch namespace follows PyTorch;
4. the program's choice: :func:`~mutograd.compat.install`, :func:`~mutograd.compat.importing_as`
   and ``python -m mutograd run --as torch`` set it for every thread while they are in effect;
5. otherwise the main namespace's rules (``None``).

    >>> import mutograd as mg, mutograd.compat as compat
    >>> len(mg.arange(6).split(3))              # main namespace: pieces of size 3
    2
    >>> with compat.dialect("paddle"):          # this thread, this block: three pieces
    ...     len(mg.arange(6).split(3))
    3
"""
import contextlib
import sys
import threading
import types
import weakref

DIALECTS = ("torch", "paddle")
NATIVE = "mutograd"     # an explicit request for the main namespace's rules

# Note: how the dialect is found, and why this way.
#
# A Tensor method cannot see which namespace made its tensor (there is one Tensor class), so it
# looks at who is calling. The frames of mutograd's own modules are skipped: a clashing method
# called from ``mutograd.nn`` on behalf of a user's Paddle script means what the script means
# (mutograd's own code calls these methods only in forms whose meaning every dialect shares), and
# ``get_dialect()`` therefore gives the same answer at any depth inside mutograd. The first frame
# outside them decides:
#
# - a frame of a compat namespace module follows that namespace, even against an explicit
#   setting: it implements that framework, and ``with dialect('torch'): paddle.f(x)`` must still
#   run Paddle's ``f``;
# - otherwise an explicit setting of this thread wins (thread-local, so one thread's ``with
#   dialect(...)`` never changes the numbers of another running at the same time);
# - otherwise that frame's module: holding exactly one namespace (or its submodules) asks for it.
#   Holding both, or only mutograd's main modules or functions, asks for nothing: the program's
#   default, then the main rules. A module that holds nothing of mutograd (the standard library's
#   ``logging``, IPython's display code, a user's pure helper) has no opinion, and the walk goes
#   on to its caller: ``logging.info('%s', x)`` in a torch script prints PyTorch's layout;
# - the program's default (install / importing_as / run --as) is process-wide because the import
#   alias it comes with is: a thread started by such a program sees it too. It lasts exactly as
#   long as the alias: ``sys.modules['torch']`` must still be the compat namespace.
#
# The verdict on a module is cached per module globals dict and recomputed when the dict gains or
# loses names (an ``import`` later in the module), so a clashing call costs a frame walk of a few
# dict lookups (about a microsecond or two); nothing else on the op path pays anything.
# Only module objects count as a request: compat functions are often the main namespace's own
# (``paddle.to_tensor`` is not a Paddle-only object), so ``from mutograd.compat.paddle import
# to_tensor`` alone asks for nothing, while ``from mutograd.compat.paddle import nn`` asks.

_INTERNAL, _OWN, _ASKS, _DEFERS, _UNRELATED = range(5)
_PREFIX = "mutograd.compat."


class _Explicit(threading.local):
    name = None         # None: nothing asked in this thread; else 'torch', 'paddle' or NATIVE


_explicit = _Explicit()
_programs = []           # install() / importing_as / run --as, oldest first: (name, namespace)
_verdicts = {}           # id(module globals) -> (len(globals), verdict, weakref to the module)


def _namespace(name):
    """``'torch'`` for ``mutograd.compat.torch`` and its submodules, ``'paddle'`` likewise."""
    if name.startswith(_PREFIX):
        head = name[len(_PREFIX):].partition(".")[0]
        if head in DIALECTS:
            return head
    return None


def _mutograd_name(name):
    return isinstance(name, str) and (name == "mutograd" or name.startswith("mutograd."))


def _judge(g):
    """The verdict ``(kind, dialect)`` on the module whose globals are ``g``."""
    name = g.get("__name__")
    if _mutograd_name(name):
        own = _namespace(name)
        return (_OWN, own) if own else (_INTERNAL, None)
    asked, related = set(), False
    for v in list(g.values()):           # a copy: another thread may be adding names
        if isinstance(v, types.ModuleType):
            mod = getattr(v, "__name__", None)
            if _mutograd_name(mod):
                related = True
                own = _namespace(mod)
                if own:
                    asked.add(own)
        elif isinstance(v, (types.FunctionType, type)) and _mutograd_name(
                getattr(v, "__module__", None)):
            related = True
    if len(asked) == 1:
        return _ASKS, asked.pop()
    return (_DEFERS if related else _UNRELATED), None


def _verdict(g):
    hit = _verdicts.get(id(g))
    if hit is not None and hit[0] == len(g):
        return hit[1]
    verdict = _judge(g)
    # Cached only for a live module's globals, by weak reference: a script's globals (and the
    # tensors in them) must not outlive the script because a method once looked at them. The
    # entry goes when the module does, before its globals can be freed, so an id found here is
    # still the same dict.
    mod = sys.modules.get(g.get("__name__"))
    if mod is not None and getattr(mod, "__dict__", None) is g:
        key = id(g)
        _verdicts[key] = (len(g), verdict,
                          weakref.ref(mod, lambda _, key=key: _verdicts.pop(key, None)))
    return verdict


def get_dialect():
    """The dialect that applies to the code calling this: ``'torch'``, ``'paddle'`` or ``None``
    (the main namespace's rules). Called from inside mutograd (a Tensor method), it answers for
    the first caller outside mutograd; the order of the rules is in the module docstring."""
    try:
        f = sys._getframe(1)
    except ValueError:              # called straight from C with no Python frame (atexit)
        f = None
    while f is not None:
        kind, name = _verdict(f.f_globals)
        if kind == _OWN:
            return name
        if kind != _INTERNAL:
            break
        f = f.f_back
    asked = _explicit.name
    if asked is not None:
        return None if asked == NATIVE else asked
    while f is not None:
        kind, name = _verdict(f.f_globals)
        if kind == _OWN or kind == _ASKS:
            return name
        if kind == _DEFERS:
            break
        f = f.f_back
    return _program_dialect() if _programs else None


def set_dialect(name):
    """Make the clashing Tensor methods follow ``name`` in this thread: ``'torch'``,
    ``'paddle'``, ``'mutograd'`` (the main namespace's rules, whatever the calling module
    imported), or ``None`` (no choice of this thread's own: the calling module decides, as
    :func:`get_dialect` describes). Other threads are not affected.

    Example::

        >>> import mutograd as mg, mutograd.compat as compat
        >>> compat.set_dialect("paddle")
        >>> len(mg.arange(6).split(3))           # Paddle: three pieces
        3
        >>> compat.set_dialect(None)
    """
    if name is not None and name != NATIVE and name not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r}; expected one of {DIALECTS}, "
                         f"{NATIVE!r} or None")
    _explicit.name = name


@contextlib.contextmanager
def dialect(name):
    """Use dialect ``name`` in this thread inside a ``with`` block, then restore this thread's
    previous setting (also when the block raises)."""
    prev = _explicit.name
    set_dialect(name)
    try:
        yield
    finally:
        _explicit.name = prev


def _program_enter(name, namespace):
    """Make ``name`` the program's default while ``sys.modules[name]`` is ``namespace`` (the
    import alias of ``install`` / ``importing_as``); returns the token :func:`_program_exit`
    takes."""
    token = (name, namespace)
    _programs.append(token)
    return token


def _program_exit(token):
    for i in range(len(_programs) - 1, -1, -1):
        if _programs[i] is token:
            del _programs[i]
            return


def _program_dialect():
    # The newest alias still in effect: one whose sys.modules entry was put back by other means
    # (an undo function dropped, then the modules restored by hand) no longer counts.
    for name, namespace in reversed(_programs):
        if sys.modules.get(name) is namespace:
            return name
    return None
