"""Data-parallel training over MPI: ``mpirun -n 2 python train.py`` (see docs/distributed.md).

Needs the optional extra ``pip install 'mutograd[mpi]'`` (mpi4py and mpich); importing this
package works without it, and :func:`init` says what is missing.
"""
from .comm import (
                   ReduceOp,
                   Work,
                   all_gather,
                   all_reduce_,
                   barrier,
                   broadcast_,
                   init,
                   is_initialized,
                   rank,
                   reduce_scatter,
                   world_size,
)
from .ddp import DistributedDataParallel
from .sampler import DistributedSampler

__all__ = [
                   "DistributedDataParallel",
                   "DistributedSampler",
                   "ReduceOp",
                   "Work",
                   "all_gather",
                   "all_reduce_",
                   "barrier",
                   "broadcast_",
                   "init",
                   "is_initialized",
                   "rank",
                   "reduce_scatter",
                   "world_size",
]
