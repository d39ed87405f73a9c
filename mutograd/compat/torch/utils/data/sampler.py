"""``torch.utils.data.sampler``: mutograd's samplers, and ``WeightedRandomSampler``."""
import numpy as np

from .....data.sampler import (  # noqa: F401
                               BatchSampler,
                               RandomSampler,
                               Sampler,
                               SequentialSampler,
                               SubsetRandomSampler,
                               _rng,
)
from .....distributed import DistributedSampler  # noqa: F401,E402


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement unless told otherwise), from ``generator`` or the global stream."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        w = np.asarray(weights.tolist() if hasattr(weights, "tolist") else weights, np.float64)
        if w.ndim != 1 or (w < 0).any() or not w.sum() > 0:
            raise ValueError("weights should be a 1-D sequence of non-negative numbers with a "
                             "positive sum")
        if not replacement and num_samples > (w > 0).sum():
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        self.weights, self.num_samples = w, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        rng = _rng(self.generator)
        idx = rng.choice(len(self.weights), self.num_samples, replace=self.replacement,
                         p=self.weights / self.weights.sum())
        return iter(int(i) for i in idx)

    def __len__(self):
        return self.num_samples
