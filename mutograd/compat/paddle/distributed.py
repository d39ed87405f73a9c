"""``paddle.distributed`` over MPI: ``import mutograd.compat.paddle.distributed as dist``.

Launch with ``mpirun -n N python script.py`` (where Paddle uses ``python -m
paddle.distributed.launch``). Collectives work on the whole world (``group=None``) and write in
place like :mod:`mutograd.distributed` (docs/distributed.md).

    import mutograd.compat.paddle as paddle
    import mutograd.compat.paddle.distributed as dist
    dist.init_parallel_env()
    t = paddle.ones([3]) * (dist.get_rank() + 1)
    dist.all_reduce(t)
"""
from ... import distributed as _dist
from ..distributed_world import get_rank, get_world_size  # noqa: F401
from ..distributed_world import world as _world
from ...distributed import DistributedDataParallel as _DDP
from ...data.sampler import BatchSampler as _BatchSampler
from ...distributed import DistributedSampler as _Sampler


class ReduceOp:
    """Paddle's reduction names."""

    SUM = "sum"
    AVG = "mean"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def init_parallel_env():
    """Join the MPI world started by ``mpirun``."""
    _dist.init()


def is_initialized():
    return _dist.is_initialized()


def barrier(group=None):
    _world(group)
    _dist.barrier()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor`` over the ranks, in place; a task to ``wait()`` with ``sync_op=False``."""
    _world(group)
    w = _dist.all_reduce_(tensor, op, async_op=not sync_op)
    return None if sync_op else w


def broadcast(tensor, src, group=None, sync_op=True):
    """Overwrite ``tensor`` with rank ``src``'s, in place."""
    _world(group)
    _dist.broadcast_(tensor, src)


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Append every rank's ``tensor`` to ``tensor_list`` (Paddle fills an empty list)."""
    _world(group)
    tensor_list.extend(_dist.all_gather(tensor).unbind(0))


class DataParallel(_DDP):
    """``paddle.DataParallel(layers)``: gradients averaged over the ranks during backward."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        _world(group)
        super().__init__(layers, bucket_cap_mb=comm_buffer_size)


class DistributedBatchSampler(_BatchSampler):
    """``paddle.io.DistributedBatchSampler``: batches of this rank's share of ``dataset``."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        super().__init__(_Sampler(dataset, num_replicas, rank, shuffle=shuffle), batch_size,
                         drop_last)

    def set_epoch(self, epoch):
        self.sampler.set_epoch(epoch)
