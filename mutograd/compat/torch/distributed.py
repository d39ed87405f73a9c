"""``torch.distributed`` over MPI: ``import mutograd.compat.torch.distributed as dist``.

Only the ``"mpi"`` backend exists (launch with ``mpirun -n N python script.py``); collectives
work on the whole world (``group=None``). They write in place like
:mod:`mutograd.distributed` (docs/distributed.md), so the leaf rule applies: reduce ``p.grad``
or write parameters under ``no_grad()``.

    import mutograd.compat.torch as torch
    import mutograd.compat.torch.distributed as dist
    dist.init_process_group("mpi")
    t = torch.ones(3) * (dist.get_rank() + 1)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
"""
from types import SimpleNamespace

from ... import distributed as _dist
from ..distributed_world import get_rank, get_world_size  # noqa: F401
from ..distributed_world import world as _world
from ...autograd.grad_mode import _state
from ...autograd.saved import before_write
from ...distributed.comm import _check_tensor
from ...errors import DistributedError, ShapeError
from ...ops.registry import check_leaf
from ...ops.shaping import stack as _stack


class ReduceOp:
    """PyTorch's reduction names."""

    SUM = "sum"
    AVG = "mean"
    MAX = "max"
    MIN = "min"
    PRODUCT = "prod"


group = SimpleNamespace(WORLD=None)


def is_available():
    """Whether the MPI backend can be used (the optional extra ``mutograd[mpi]`` is installed)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available():
    return is_available()


def init_process_group(backend="mpi", init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the MPI world; ``backend`` must be ``"mpi"`` (``world_size``/``rank`` come from
    ``mpirun``; when given they must match it)."""
    if backend is not None and str(backend).lower() != "mpi":
        raise DistributedError(f"init_process_group: backend {backend!r} is not available; "
                               f"mutograd runs collectives over MPI: use backend='mpi' and "
                               f"launch with mpirun -n N")
    _dist.init()
    for name, given, actual in (("world_size", world_size, _dist.world_size()),
                                ("rank", rank, _dist.rank())):
        if given not in (-1, None) and given != actual:
            raise DistributedError(f"init_process_group: {name}={given} but mpirun started "
                                   f"this process with {name} {actual}")


def is_initialized():
    return _dist.is_initialized()


def destroy_process_group(group=None):
    """Nothing to release: MPI shuts down when the process exits."""
    _world(group)


def get_backend(group=None):
    _world(group)
    return "mpi"


def barrier(group=None, async_op=False, device_ids=None):
    _world(group)
    _dist.barrier()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over the ranks, in place; a ``Work`` with ``async_op=True``."""
    _world(group)
    w = _dist.all_reduce_(tensor, op, async_op=async_op)
    return w if async_op else None


def broadcast(tensor, src, group=None, async_op=False):
    """Overwrite ``tensor`` with rank ``src``'s, in place."""
    _world(group)
    _dist.broadcast_(tensor, src)
    return _Done() if async_op else None


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Write every rank's ``tensor`` into ``tensor_list`` (one tensor per rank), in place."""
    _world(group)
    _check_tensor(tensor, "all_gather")
    n = _dist.world_size()
    if len(tensor_list) != n:
        raise DistributedError(f"all_gather: tensor_list has {len(tensor_list)} tensors; it "
                               f"needs one per rank ({n})")
    for t in tensor_list:
        _check_out(t, tensor.shape, "all_gather")
    gathered = _dist.all_gather(tensor)
    for t, part in zip(tensor_list, gathered._data):
        _write(t, part, "all_gather")
    return _Done() if async_op else None


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list`` (one tensor per rank) over the ranks; rank r gets block r."""
    _world(group)
    n = _dist.world_size()
    if len(input_list) != n:
        raise DistributedError(f"reduce_scatter: input_list has {len(input_list)} tensors; it "
                               f"needs one per rank ({n})")
    _check_out(output, input_list[0].shape, "reduce_scatter")
    part = _dist.reduce_scatter(_stack(list(input_list)), op)
    _write(output, part._data[0], "reduce_scatter")
    return _Done() if async_op else None


def _check_out(t, shape, what):
    _check_tensor(t, what)
    if t.shape != shape:
        raise ShapeError(f"{what}: output tensor of shape {list(t.shape)} does not match the "
                         f"input shape {list(shape)}")
    if _state.enabled:
        check_leaf(t, what)


def _write(t, arr, what):
    if t._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
        before_write(t, None, what)
    t._data[...] = arr
    t._counter.bump(what)


class _Done:
    """What ``async_op=True`` returns for a collective that already finished."""

    def wait(self):
        return True

    def is_completed(self):
        return True
