"""Processes and collectives over MPI: the world, and reductions written into tensors in place.

MPI (through ``mpi4py``, the optional extra ``mutograd[mpi]``) starts the processes and moves the
bytes; this module adds what a tensor needs on top: arguments checked before anything is sent,
in-place results that bump the version counter, the leaf rule of in-place ops (design.md rule 4),
and a gradient for ``all_reduce_`` (sum or mean) on a tensor that is part of a graph.

Note [In-place collectives]
    ``all_reduce_`` and ``broadcast_`` hand the tensor's own buffer to MPI with ``MPI.IN_PLACE``
    (or as the root's send buffer), so the result needs no new storage: ``memory.allocated()``
    is unchanged. MPI needs one contiguous block, so a non-contiguous view is refused rather than
    copied (a hidden copy would break the promise). The write is an in-place op like any other:
    it is refused on a leaf that requires grad while grad mode is on, and it bumps the version
    counter shared by the tensor, its base and its views.
"""
import sys
import time
import traceback

import numpy as np

from ..autograd.grad_mode import _state
from ..autograd.saved import before_write
from ..errors import DistributedError, DTypeError, ShapeError
from ..autograd.view_write import rebase
from ..ops.registry import OpDef, _record, check_leaf
from ..tensor import Tensor, _wrap

EXTRA_HINT = "install the optional extra: pip install 'mutograd[mpi]' (mpi4py and mpich)"


class ReduceOp:
    """Names of the reductions (``ReduceOp.SUM`` is the string ``"sum"``)."""

    SUM = "sum"
    MEAN = AVG = "mean"
    MAX = "max"
    MIN = "min"
    PROD = PRODUCT = "prod"


_OPS = ("sum", "mean", "max", "min", "prod")
_ALIASES = {"avg": "mean", "product": "prod"}
_world = None     # (MPI module, communicator) once init() ran


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise DistributedError(f"mutograd.distributed needs MPI, and mpi4py is not installed; "
                               f"{EXTRA_HINT}") from e
    return MPI


def init(abort_on_error=True):
    """Join the MPI world (started by ``mpirun -n N python script.py``); safe to call twice.

    With ``abort_on_error`` an uncaught exception on any rank prints the rank and the traceback
    and aborts the whole job (``MPI.COMM_WORLD.Abort``), so the other ranks never wait forever.

    Example::

        import mutograd.distributed as dist
        dist.init()
        print(dist.rank(), "of", dist.world_size())
    """
    global _world
    if _world is None:
        MPI = _mpi()
        _world = (MPI, MPI.COMM_WORLD)
        if abort_on_error and MPI.COMM_WORLD.Get_size() > 1:
            sys.excepthook = _abort_job
    return _world[1].Get_size()


def is_initialized():
    """Whether :func:`init` has run in this process."""
    return _world is not None


def _comm():
    if _world is None:
        raise DistributedError("mutograd.distributed is not initialized: call "
                               "mutograd.distributed.init() first")
    return _world


def _abort_job(exc_type, exc, tb):
    """``sys.excepthook`` on a rank: report which rank failed and why, then end every rank."""
    comm = _world[1]
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.stderr.write(f"mutograd.distributed: rank {comm.Get_rank()} of {comm.Get_size()} "
                     f"failed; aborting the job.\n{text}")
    sys.stderr.flush()
    # the launcher forwards a rank's output asynchronously and an abort drops what it has not
    # forwarded yet: a moment first, so that the report is not lost on a busy machine
    time.sleep(0.3)
    comm.Abort(1)


def rank():
    """This process's index in the world, from 0."""
    return _comm()[1].Get_rank()


def world_size():
    """How many processes take part."""
    return _comm()[1].Get_size()


def barrier():
    """Wait until every rank has reached this call."""
    _comm()[1].Barrier()


# --------------------------------------------------------------------------------------------
# Checks made before anything is sent or written


def _check_tensor(x, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}() takes a Tensor, not {type(x).__name__}")


def _check_op(op, x, what):
    name = _ALIASES.get(str(op).lower(), str(op).lower())
    if name not in _OPS:
        raise DistributedError(f"{what}(): unknown reduction {op!r}; expected one of "
                               f"{', '.join(_OPS)}")
    kind = x._data.dtype.kind
    if kind == "b" or x._data.dtype == np.float16:
        raise DTypeError(f"{what}(): MPI cannot reduce tensors of dtype {x.dtype}; cast to "
                         f"float32 or an integer dtype first")
    if name == "mean" and kind not in "fc":
        raise DTypeError(f"{what}(): op='mean' needs a floating point tensor, got {x.dtype}")
    return name


def _check_inplace(x, what):
    """The in-place rules of Note [In-place collectives], checked before any data changes."""
    if x._base is not None and x._view_version != x._counter.value:
        x._refresh_view()
    if _state.enabled:
        check_leaf(x, what)
    if not x._data.flags.c_contiguous:
        raise DistributedError(
            f"{what}() writes the result into the tensor's own buffer, which must be contiguous; "
            f"got shape {list(x.shape)} with strides {x.stride()}. Reduce a contiguous tensor "
            f"(e.g. x.contiguous()) and copy the result back.")


def _mpi_op(MPI, name):
    return {"sum": MPI.SUM, "mean": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN,
            "prod": MPI.PROD}[name]


# --------------------------------------------------------------------------------------------
# Collectives


class Work:
    """A collective in flight (``async_op=True``): :meth:`wait` finishes it."""

    def __init__(self, request, finish=None):
        self._request = request
        self._finish = finish

    def wait(self):
        """Block until the collective is done and its result is in the tensor."""
        if self._request is not None:
            self._request.Wait()
            self._request = None
            if self._finish is not None:
                self._finish()
        return True

    def is_completed(self):
        """Whether :meth:`wait` would return at once (this also lets MPI make progress)."""
        return self._request is None or self._request.Test()


def all_reduce_(x, op="sum", async_op=False):
    """Reduce ``x`` over all ranks and write the result into ``x`` itself (no new storage).

    ``op`` is ``"sum"``, ``"mean"``, ``"max"``, ``"min"`` or ``"prod"``. Returns ``x`` (or a
    :class:`Work` with ``async_op=True``; the result is in ``x`` after ``wait()``). Under grad
    mode, a non-leaf ``x`` gets a gradient for sum and mean: every rank must then run backward.

    Example::

        t = mg.tensor([1.0, 2.0]) * (dist.rank() + 1)
        dist.all_reduce_(t)          # the same sum on every rank, in t's own buffer
    """
    _check_tensor(x, "all_reduce_")
    name = _check_op(op, x, "all_reduce_")
    _check_inplace(x, "all_reduce_")
    record = _state.enabled and x._rg
    if record and name not in ("sum", "mean"):
        raise DistributedError(f"all_reduce_(): op={name!r} has no gradient; run it under "
                               f"no_grad() or on x.detach()")
    if record and async_op:
        raise DistributedError("all_reduce_(): async_op=True on a tensor that requires grad; "
                               "run it under no_grad() or wait synchronously")
    MPI, comm = _comm()
    a = x._data
    n = comm.Get_size()
    if x._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
        before_write(x, None, "all_reduce_")

    def finish():
        if name == "mean":
            np.divide(a, n, out=a)

    x._counter.bump("all_reduce_")
    if async_op:
        return Work(comm.Iallreduce(MPI.IN_PLACE, a, op=_mpi_op(MPI, name)), finish)
    comm.Allreduce(MPI.IN_PLACE, a, op=_mpi_op(MPI, name))
    finish()
    if record:
        rebase(x, _record(_ALL_REDUCE, [x], [a], x, {"op": name}, np, None))
    return x


def _all_reduce_grad(g, op):
    """The gradient of a sum (mean) all-reduce is the sum (mean) all-reduce of the gradient."""
    MPI, comm = _comm()
    g = np.array(g, copy=True, order="C")
    comm.Allreduce(MPI.IN_PLACE, g, op=MPI.SUM)
    if op == "mean":
        g /= comm.Get_size()
    return g


def _all_reduce_fwd(xp, x, out=None, *, op="sum"):
    return out     # the reduction itself runs in all_reduce_; this declares the node's shape


_ALL_REDUCE = OpDef("all_reduce", _all_reduce_fwd, _all_reduce_grad, "elementwise", True, None,
                    None, False, "AllReduceBackward")


def broadcast_(x, src=0):
    """Overwrite ``x`` on every rank with rank ``src``'s values, in place; returns ``x``.

    Example::

        w = mg.randn([3, 3])
        dist.broadcast_(w, src=0)    # every rank now holds rank 0's w
    """
    _check_tensor(x, "broadcast_")
    _check_inplace(x, "broadcast_")
    comm = _comm()[1]
    _check_src(src, comm.Get_size(), "broadcast_")
    if x._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
        before_write(x, None, "broadcast_")
    comm.Bcast(x._data, root=src)
    x._counter.bump("broadcast_")
    return x


def _check_src(src, n, what):
    if not isinstance(src, (int, np.integer)) or not 0 <= src < n:
        raise DistributedError(f"{what}(): src={src!r} is not a rank of a world of size {n}")


def all_gather(x):
    """Every rank's ``x`` stacked along a new first axis: shape ``[world_size, *x.shape]``.

    Example::

        parts = dist.all_gather(mg.tensor([float(dist.rank())]))   # [[0.], [1.]] on 2 ranks
    """
    _check_tensor(x, "all_gather")
    comm = _comm()[1]
    a = np.ascontiguousarray(x._data)
    out = _wrap(np.empty((comm.Get_size(),) + a.shape, a.dtype), x)
    comm.Allgather(a, out._data)
    return out


def reduce_scatter(x, op="sum"):
    """Reduce ``x`` over the ranks and give rank ``r`` the ``r``-th block along axis 0.

    ``x.shape[0]`` must be divisible by the world size; the result has
    ``x.shape[0] // world_size`` rows.

    Example::

        y = dist.reduce_scatter(mg.ones([4, 3]))   # on 2 ranks: each gets 2 rows of 2.0
    """
    _check_tensor(x, "reduce_scatter")
    name = _check_op(op, x, "reduce_scatter")
    MPI, comm = _comm()
    n = comm.Get_size()
    if x.ndim == 0 or x.shape[0] % n:
        raise ShapeError(f"reduce_scatter(): the first axis of a tensor of shape "
                         f"{list(x.shape)} does not split into {n} equal blocks (one per rank)")
    a = np.ascontiguousarray(x._data)
    out = _wrap(np.empty((a.shape[0] // n,) + a.shape[1:], a.dtype), x)
    comm.Reduce_scatter_block(a, out._data, op=_mpi_op(MPI, name))
    if name == "mean":
        np.divide(out._data, n, out=out._data)
    return out
