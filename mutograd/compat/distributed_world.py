"""What ``torch.distributed`` and ``paddle.distributed`` share: the whole world as the only
group, and its rank and size."""
from .. import distributed as _dist
from ..errors import DistributedError


def world(group):
    """Refuse any group but the default one (the whole world)."""
    if group is not None:
        raise DistributedError("only the default group (the whole world, group=None) is "
                               "supported")


def get_rank(group=None):
    """This process's rank in the world."""
    world(group)
    return _dist.rank()


def get_world_size(group=None):
    """How many processes the world has."""
    world(group)
    return _dist.world_size()
