"""``torch.cuda``: asking about GPUs, seeding them and reading their memory counters.

    >>> import mutograd.compat.torch as torch
    >>> device = "cuda" if torch.cuda.is_available() else "cpu"
"""
from mutograd.cuda import (  # noqa: F401
                           current_device,
                           device_count,
                           empty_cache,
                           is_available,
                           manual_seed,
                           manual_seed_all,
                           max_memory_allocated,
                           max_memory_reserved,
                           memory_allocated,
                           memory_reserved,
                           memory_stats,
                           reset_max_memory_allocated,
                           reset_peak_memory_stats,
                           set_device,
                           synchronize,
)

from . import amp  # noqa: E402, F401  (torch.cuda.amp)
