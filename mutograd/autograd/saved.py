"""Saved-tensor policies: how backward nodes keep what they save (PyTorch's
``torch.autograd.graph``), public as ``mutograd.autograd.graph``.

    >>> import mutograd as mg
    >>> from mutograd.autograd.graph import allow_mutation_on_saved_tensors
    >>> a = mg.ones([1000], requires_grad=True)
    >>> with allow_mutation_on_saved_tensors() as ctx:
    ...     x = a * 1
    ...     y = (x * x).sum()               # mul saves x
    ...     x[2:4] = 0                      # copies the 2 old values first (8 bytes)
    ...     y.backward()                    # with x as it was when saved
    >>> ctx.nbytes, a.grad[:4].tolist()
    (8, [2.0, 2.0, 2.0, 2.0])

Note [Saved-tensor hooks]
    ``saved_tensors_hooks(pack, unpack)`` routes every tensor a node saves while it is active
    through ``pack`` (with grad mode off, so the hook's own ops save nothing), and keeps what
    ``pack`` returns in a :class:`~mutograd.autograd.node.Packed` record; backward calls
    ``unpack`` on it and wants a tensor back. The hooks are a per-thread stack (the innermost pair
    is used); the nodes keep the pair that packed them, so backward may run anywhere. Unlike
    PyTorch, an unpacked tensor that shares the saved tensor's version counter (the pack hook kept
    the tensor, or ``detach()`` of it) is still version-checked: a write since the save is the
    VersionError, not a gradient computed from the new values.

Note [Mutation of saved tensors]
    Inside ``allow_mutation_on_saved_tensors()`` a saved tuple gets a guard (:class:`Guard`),
    registered on the tensor's version counter (``counter.guards``, weakly: a node's freed or
    collected record unregisters itself). Every write into a tensor calls :func:`before_write`
    just before the data changes, when that counter has guards — one attribute check on the
    per-op path otherwise. For each guard the hook works out which elements of the saved array
    the write overwrites (by address, so a write through any view, ``detach()`` or ``.data``
    alias is seen), and copies the old values of those not copied before: ``x[2:4] = 0`` on a
    saved 1000-element ``x`` copies 2 values. The guard also notes the version at which each
    write ran. At backward, a saved value whose version moved is restored (a copy of the current
    array with the old values put back) when a guarded write accounts for every bump since the
    save; a bump no hook saw (``increment_version``, a write outside the ops) is still the
    VersionError. The bytes copied are counted per place (``memory.stats()``:
    ``saved_mutation.copied_bytes``, ``saved_mutation.copies``) and each copy is logged with the
    line of the write that forced it (``python -m mutograd check`` prints them).

    The policy belongs to what was saved inside the block: a value saved there stays guarded
    after the block ends, until backward frees it (PyTorch refuses a backward outside the block);
    a value saved outside it is never guarded, even if written inside it (as in PyTorch). Blocks
    may nest (PyTorch refuses). Under ``saved_tensors_hooks`` the pack hook decides what is kept,
    so no guard is made (as in PyTorch, whose policy is itself a pair of hooks).
"""
import contextlib
import threading
import weakref

import numpy as np

from .. import memory
from ..errors import MutogradError
from . import sites
from .grad_mode import no_grad
from .node import Packed, Policies, refuse_inference_write


class HooksDisabledError(MutogradError, RuntimeError):
    """Saved-tensor hooks used where ``disable_saved_tensors_hooks`` turned them off."""


class _Local(threading.local):
    hooks = ()          # (pack, unpack) pairs, innermost last
    disabled = None     # the message of the innermost disable_saved_tensors_hooks
    mutation = None     # the innermost MutationContext (allow_mutation_on_saved_tensors)


_local = _Local()
_lock = threading.Lock()
_log = None             # a list while python -m mutograd check collects copies


def _activate(n):
    with _lock:
        Policies.active += n


# ---- saving under a policy ------------------------------------------------------------------


def save_with_policy(tensor):
    """``node.save`` while some thread has a policy active (Note [Saved-tensor hooks])."""
    st = _local
    name = tensor.__dict__.get("name")
    if st.hooks:
        return _pack(tensor, name)
    counter = tensor._counter
    counter.watched = True
    rec = (tensor._data, counter, counter.value, name, tensor._storage)
    if st.mutation is not None:
        rec += (_guard(tensor, counter, st.mutation),)
    return rec


def save_copy_with_policy(array, storage, name):
    """``node.save_copy`` under a policy: a private copy needs no guard, but it is packed."""
    if not _local.hooks:
        return (array, None, None, name, storage)
    from ..places import get
    from ..tensor import _borrow
    t = _borrow(array, None)
    t._storage = storage
    if storage is not None and storage.place != "cpu":
        t._place = get(storage.place)
    return _pack(t, name)


def _pack(tensor, name):
    st = _local
    if st.disabled is not None:
        raise HooksDisabledError(st.disabled)
    pack, unpack = st.hooks[-1]
    return pack_record(tensor, name, pack, unpack)


def pack_record(tensor, name, pack, unpack):
    """The :class:`Packed` record of ``tensor`` packed by ``pack`` (``saved_tensors_hooks``, or
    ``grad_fn._raw_saved_<name>.register_hooks``)."""
    with no_grad():
        packed = pack(tensor)
    rec = Packed()
    rec.packed, rec.unpack_hook, rec.name = packed, unpack, name
    rec.counter, rec.version = tensor._counter, tensor._counter.value
    tensor._counter.watched = True   # a stale alias's error names the writes (Packed.tensor)
    rec.shape, rec.dtype = tuple(tensor._data.shape), tensor._data.dtype
    return rec


class saved_tensors_hooks:   # noqa: N801 - PyTorch's name
    """Pack every tensor a node saves with ``pack_hook``; ``unpack_hook`` gives it back.

    ``pack_hook(tensor) -> anything`` runs when a node saves ``tensor``; ``unpack_hook(packed) ->
    Tensor`` runs when backward needs it and must give the same values, shape and dtype. Nested
    blocks use the innermost pair; the hooks are per thread (Note [Saved-tensor hooks]).

    Example::

        >>> import mutograd as mg
        >>> packed = []
        >>> a = mg.ones([3], requires_grad=True)
        >>> with mg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t.numpy(),
        ...                                            lambda arr: mg.tensor(arr)):
        ...     y = (a * a).sum()
        >>> len(packed)
        2
        >>> y.backward(); a.grad.tolist()
        [2.0, 2.0, 2.0]
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        st = _local
        if st.disabled is not None:
            raise HooksDisabledError(st.disabled)
        st.hooks = st.hooks + ((self.pack_hook, self.unpack_hook),)
        _activate(1)
        return self

    def __exit__(self, *exc):
        _local.hooks = _local.hooks[:-1]
        _activate(-1)
        return False


class save_on_cpu(saved_tensors_hooks):   # noqa: N801 - PyTorch's name
    """Keep saved tensors on the CPU and move them back to their place for backward.

    Frees device memory between forward and backward at the cost of two copies per saved
    tensor; on the CPU nothing is copied. ``pin_memory`` and ``device_type`` are accepted for
    PyTorch's signature (NumPy memory needs no pinning).

    Example::

        >>> import mutograd as mg
        >>> a = mg.ones([3], requires_grad=True)
        >>> with mg.autograd.graph.save_on_cpu():
        ...     y = a.exp().sum()
        >>> y.backward(); round(a.grad.tolist()[0], 4)
        2.7183
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.place, t.detach() if t.place.kind == "cpu" else t.cpu())

        def unpack(packed):
            place, t = packed
            return t if t.place is place else t.to(place)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside the block, entering ``saved_tensors_hooks`` (or saving under hooks already active)
    raises an error with ``error_message``; for code that cannot work with them.

    Example::

        >>> import mutograd as mg
        >>> with mg.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        ...     try:
        ...         with mg.autograd.graph.save_on_cpu():
        ...             pass
        ...     except RuntimeError as e:
        ...         print(e)
        no hooks here
    """
    st = _local
    prev = st.disabled
    st.disabled = error_message
    try:
        yield
    finally:
        st.disabled = prev


# ---- allow_mutation_on_saved_tensors -------------------------------------------------------


class Copy:
    """One copy a write forced: the write (op name and site), bytes copied, the saved array's
    shape and dtype, and the site of the forward op that saved it."""

    __slots__ = ("dtype", "nbytes", "saved_at", "shape", "site", "what")

    def __repr__(self):
        return (f"<Copy {self.nbytes} bytes by {self.what} at {sites.fmt(self.site)} of a tensor "
                f"of shape {list(self.shape)} saved at {sites.fmt(self.saved_at)}>")


class MutationContext:
    """What ``allow_mutation_on_saved_tensors()`` gives: the copies forced by writes into the
    tensors saved inside its block (``copies``, ``nbytes``)."""

    def __init__(self):
        self.copies = []

    @property
    def nbytes(self):
        return sum(c.nbytes for c in self.copies)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Let in-place writes change tensors that backward nodes saved: each write first copies the
    old values of the saved elements it overwrites, and backward uses them.

    Only the written region is copied; the bytes are counted (``memory.stats()``) and each copy
    is logged with its line (Note [Mutation of saved tensors]). Outside the block, a write into a
    saved tensor stays the VersionError of design.md rule 2.

    Example::

        >>> import mutograd as mg
        >>> a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> with mg.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        ...     h = a * 1
        ...     y = (h * h).sum()        # saves h
        ...     h[0] = 10.0              # copies h[0]'s old value first
        ...     y.backward()
        >>> a.grad.tolist(), ctx.nbytes
        ([2.0, 4.0, 6.0], 4)
    """
    st = _local
    ctx = MutationContext()
    prev = st.mutation
    st.mutation = ctx
    _activate(1)
    try:
        yield ctx
    finally:
        st.mutation = prev
        _activate(-1)


class _OutputCopies:
    """The context of the guards of outputs copied on write: the last copies, for ``check``."""

    def __init__(self):
        import collections
        self.copies = collections.deque(maxlen=64)


_OUTPUT_COPIES = _OutputCopies()


def save_output(tensor):
    """Save an op's result so that a later write into it first copies the old values.

    Note [Outputs copied on write]
        Some gradients are written in terms of the output (``asin``: g / cos(out)) where
        PyTorch's or Paddle's formula uses the input, which they copy when the op runs in
        place. Saving the output costs nothing, but a later write into it (``b.asin_().asin_()``,
        ``t.tan_(); t.zero_()``) would make backward fail where both frameworks run. So these
        ops (``defop(..., copy_out=True)``) save their output with a guard, as
        ``allow_mutation_on_saved_tensors`` does: nothing is copied unless the output is
        written while the node lives, and then only the written region, once (counted by
        ``mutograd.memory``, like PyTorch's copy of the input, which it always makes). The
        guard costs a few microseconds per recorded op, so an op on the per-op path whose
        formula can use its inputs as cheaply saves them instead (``div``).
    """
    from .node import save
    rec = save(tensor)
    if type(rec) is tuple and len(rec) == 5:
        rec += (_guard(tensor, tensor._counter, _OUTPUT_COPIES),)
    return rec


def _guard(tensor, counter, ctx):
    """The guard of ``tensor``'s array at the current version (one per array and version)."""
    arr = tensor._data
    guards = counter.guards
    if guards is None:
        guards = counter.guards = weakref.WeakSet()
    for g in guards:
        if g.array is arr and g.version == counter.value:
            return g   # saved twice (x * x): one guard, one copy
    g = Guard(arr, counter.value, tensor._place, ctx)
    guards.add(g)
    return g


class Guard:
    """Keeps the old values of a saved array's elements that writes overwrite (Note [Mutation of
    saved tensors])."""

    __slots__ = ("__weakref__", "array", "covered", "ctx", "full", "place", "saved_at",
                 "stash", "stashed", "version")

    def __init__(self, array, version, place, ctx):
        self.array = array
        self.version = version
        self.place = place
        self.ctx = ctx
        self.covered = set()     # versions at which a write ran before_write
        self.stash = []          # (flat positions or None for all, old values, storage)
        self.stashed = None      # sorted flat positions copied so far
        self.full = False        # every element copied
        self.saved_at = sites.here(1)

    @property
    def nbytes(self):
        return sum(v.nbytes for _, v, _ in self.stash)

    def covers(self, version):
        """Whether a guarded write accounts for every bump from the save to ``version``."""
        return all(v in self.covered for v in range(self.version, version))

    def restore(self):
        """The saved array's values at save time: the stash put back into a copy of it now."""
        for pos, old, _ in self.stash:
            if pos is None:
                return old
        arr = self.array.copy()
        flat = arr.reshape(-1)
        for pos, old, _ in self.stash:
            flat[pos] = old
        return arr

    def keep(self, written, index, xp):
        """Copy the old values of the saved elements that a write into ``written`` (or
        ``written[index]``) overwrites and that were not copied before; the bytes copied."""
        if self.full:
            return 0
        s = self.array
        if s.size == 0:
            return 0
        if index is None and self.stashed is None and _same_layout(s, written):
            pos = None       # the common case: the saved tensor itself, written whole
        else:
            if not xp.may_share_memory(s, written):
                return 0
            pos = _overlap(xp, s, written, index)
            if pos is None:
                pos = xp.arange(s.size)
            if self.stashed is not None:
                pos = pos[~xp.isin(pos, self.stashed)]
            if pos.size == 0:
                return 0
            if pos.size == s.size:
                pos = None   # nothing copied before: one plain copy of the whole array
        if pos is None:
            old = s.copy()
            self.full = True
        else:
            old = s[xp.unravel_index(pos, s.shape)]
            self.stashed = pos if self.stashed is None else xp.unique(
                xp.concatenate((self.stashed, pos)))
        place = str(self.place)
        self.stash.append((pos, old, memory.Storage(old.nbytes, place)))
        memory.count_copy(place, old.nbytes)
        return old.nbytes


def _same_layout(a, b):
    from ..tensor import _address
    return a is b or (a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype
                      and _address(a) == _address(b))


def _basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, slice)
               or (isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)))
               for i in items)


def addresses(xp, a):
    """The byte address of every element of array ``a`` (an int64 array of ``a``'s shape)."""
    from ..tensor import _address
    out = xp.full(a.shape, _address(a), dtype=xp.int64)
    for k, (n, st) in enumerate(zip(a.shape, a.strides)):
        if n > 1 and st:
            shape = [1] * a.ndim
            shape[k] = n
            out += (xp.arange(n, dtype=xp.int64) * st).reshape(shape)
    return out


def _overlap(xp, s, written, index):
    """Flat (C-order) positions in ``s`` of the elements a write into ``written[index]``
    overwrites, sorted and unique; None for every element of ``s`` (when the two disagree on the
    element size, a view of the same bytes as another dtype)."""
    if s.itemsize != written.itemsize:
        return None   # a dtype view of the same bytes: keep the whole saved array
    if index is None:
        hit = addresses(xp, written)
    elif _basic(index):
        items = index if isinstance(index, tuple) else (index,)
        if not any(i is Ellipsis for i in items):
            items += (Ellipsis,)   # a 0-d view, not a scalar, when every axis gets an int
        hit = addresses(xp, written[items])
    else:
        hit = addresses(xp, written)[index]
    hit = hit.reshape(-1)
    if s.flags.c_contiguous:   # the common case: an address maps straight to a position
        off = hit - _address_of(s)
        keep = (off >= 0) & (off < s.nbytes) & (off % s.itemsize == 0)
        return xp.unique(off[keep] // s.itemsize)
    # any layout, one whose elements share addresses (an expanded tensor) included
    return xp.nonzero(xp.isin(addresses(xp, s).reshape(-1), hit))[0]


def _address_of(a):
    from ..tensor import _address
    return _address(a)


def before_write(x, index=None, what="write", data=True):
    """The pre-write hook: call it just before writing into ``x`` (or ``x[index]``) when
    ``x._counter.guards`` is set (Note [Mutation of saved tensors]). ``data=False`` for a write
    that changes no saved value (a new buffer, a new shape)."""
    counter = x._counter
    if counter.inference:   # Note [Inference tensors]
        refuse_inference_write(counter)
    version = counter.value
    site = None
    xp = x._place.xp
    for guard in list(counter.guards):
        guard.covered.add(version)
        if not data:
            continue
        n = guard.keep(x._data, index, xp)
        if n:
            if site is None:
                site = sites.here(1)
            c = Copy()
            c.what, c.site, c.nbytes = what, site, n
            c.shape, c.dtype, c.saved_at = tuple(guard.array.shape), guard.array.dtype, \
                guard.saved_at
            guard.ctx.copies.append(c)
            if _log is not None:
                _log.append(c)


@contextlib.contextmanager
def logging_copies():
    """Collect every copy forced by a write into a guarded saved tensor while active (the list
    of :class:`Copy` is yielded; ``python -m mutograd check`` prints it)."""
    global _log
    prev, _log = _log, []
    try:
        yield _log
    finally:
        _log = prev


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor in an iterable) as a write does.

    For data changed where autograd cannot see it (a kernel writing through ``data_ptr()``): a
    node that saved the tensor then raises the VersionError at backward, even under
    ``allow_mutation_on_saved_tensors`` (the old values are already gone).

    Example::

        >>> import mutograd as mg
        >>> t = mg.zeros([2])
        >>> mg.autograd.graph.increment_version(t); t._version
        1
    """
    from ..tensor import Tensor
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._counter.bump("increment_version")
