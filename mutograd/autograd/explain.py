"""Messages that explain an in-place misuse at the line that caused it (docs/inplace.md).

Each error keeps the phrases PyTorch and Paddle users search for, then says what was written,
where, and one line of fix. The parts are also attached to the exception (``node``, ``writes``,
``fix``, ...) so that ``python -m mutograd check`` can print a short report.
"""
from ..errors import InplaceError, VersionError
from . import sites

STALE_FIX = "clone() the tensor before the in-place write, or move the write after backward()"
LEAF_FIX = ("do the write under `with {ns}.no_grad():` (parameter init, optimizer steps), or "
            "write into a clone() if the new values belong in the graph")


# how a write shows in messages when its op name alone would not say what the user wrote
_SPELLED = {"index_put_": "x[index] = value (index_put_)"}



def spell(op):
    """The op name of a write as the user wrote it."""
    return _SPELLED.get(op, op)


def describe(name, array):
    """``tensor 'h' of shape [3, 4] and dtype float32`` (the name only when the user set one)."""
    what = f"tensor '{name}'" if name else "tensor"
    return f"{what} of shape {list(array.shape)} and dtype {array.dtype}"


def node_label(node):
    """A node's name with the line of the forward op that created it, when recorded."""
    if node is None:
        return "a custom Function"
    site = getattr(node, "created_at", None)
    return node.name() + (f" ({sites.made_by(site)})" if site is not None else "")


def stale_error(node, rec, key=None, saver=None):
    """design.md rule 2: the VersionError for a saved value whose counter moved on. ``saver``:
    what saved it, when that is not a node (a checkpointed segment)."""
    array, counter, version, name = rec[:4]
    role = ("as its output" if key == "out" else f"as input '{key}'" if isinstance(key, str)
            else f"as input {key}" if key is not None else "")
    writes = [w for w in (counter.writes or ()) if w[0] > version]
    head = ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {describe(name, array)}, saved by "
            f"{saver or node_label(node)}"
            f"{' ' + role if role else ''}, is at version {counter.value}; expected version "
            f"{version} instead.")
    lines = [head]
    if writes:
        lines.append("It was modified by:")
        for v, op, site in writes:
            lines.append(f"  {spell(op)} at {sites.fmt(site)} (version {v})")
            code = sites.source(site)
            if code:
                lines.append(f"      {code}")
    missing = counter.value - version - len(writes)
    if missing > 0:
        lines.append(f"  ... and {missing} earlier write(s) that were not kept")
    op = writes[0][1] if writes else None
    fix = STALE_FIX
    if op and op.endswith("_") and op != "index_put_":
        fix += f" (or use the out-of-place {op[:-1]}() instead of {op})"
    lines.append(f"Fix: {fix}.")
    _add_stack(lines, node)
    err = VersionError("\n".join(lines))
    err.node = node.name() if node is not None else None
    err.created_at = sites.fmt(getattr(node, "created_at", None))
    err.saved_version, err.version = version, counter.value
    err.writes = [(v, spell(op), sites.fmt(site), sites.source(site)) for v, op, site in writes]
    err.fix = fix
    return err


def leaf_error(x, what, leaf=None):
    """design.md rule 4: the InplaceError for a write into a leaf that requires grad (or a view
    of one), naming the leaf, where it was created and the view ops the write went through.
    ``leaf``: the leaf when it is not ``x`` or its base (a view on which requires_grad_() was
    called, and views of it)."""
    base = x._base
    if leaf is None:
        leaf = x if base is None else base
    elif leaf is x:
        base = None
    name = leaf.__dict__.get("name")
    site = leaf.__dict__.get("_site")
    created = f", created at {sites.fmt(site)}" if site is not None else ""
    if base is None:
        via = None
        head = "a leaf Variable that requires grad is being used in an in-place operation."
        how = f"{spell(what)} writes directly into the leaf {describe(name, leaf._data)}{created}."
    else:
        via = " -> ".join(op.name for op, _ in x._view_chain) if x._view_chain else "a view"
        head = ("a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.")
        how = (f"{spell(what)} writes through a view (made by {via}, shape {list(x.shape)}) "
               f"into the leaf {describe(name, leaf._data)}{created}.")
    # the words of the leaf's namespace (Tensor._namespace_name, _leaf_head, _leaf_note): its
    # name in the fix, its own lead sentence, Paddle's sentence where a Paddle user may read it
    cls = type(leaf)
    fix = LEAF_FIX.format(ns=cls._namespace_name)
    head = cls._leaf_head or head
    note = f"\n{cls._leaf_note}" if cls._leaf_note else ""
    err = InplaceError(f"{head} {how}{note}\nFix: {fix}.")
    err.via = via
    err.created_at = sites.fmt(site) if site is not None else None
    err.fix = fix
    return err


def forward_stack(node):
    """The forward stack anomaly mode recorded for ``node``, formatted, or ''."""
    frames = getattr(node, "stack", None)
    if not frames:
        return ""
    text = (f"Traceback of forward call that created {node.name()} (anomaly mode):\n"
            + sites.format_stack(frames))
    parent = getattr(frames, "parent", None)   # Note [Nodes made by a backward]
    while parent is not None:
        frames = getattr(parent, "stack", None)
        text += (f"\nPrevious calculation was induced by {parent.name()}. Traceback of forward "
                 f"call that induced the previous calculation:\n"
                 + (sites.format_stack(frames) if frames else "  (not recorded: anomaly mode "
                    "was off when it was created)"))
        parent = getattr(frames, "parent", None)
    return text


def _add_stack(lines, node):
    text = forward_stack(node)
    if text:
        lines.append(text)
    elif not sites.Flags.anomaly:
        lines.append("Run under mutograd.detect_anomaly() to see the full forward stack.")
