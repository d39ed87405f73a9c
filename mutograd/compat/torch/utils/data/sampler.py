"""``torch.utils.data.sampler``."""
from .....data.sampler import (  # noqa: F401
                               BatchSampler,
                               RandomSampler,
                               Sampler,
                               SequentialSampler,
                               SubsetRandomSampler,
)
from .....distributed import DistributedSampler  # noqa: F401,E402
