"""``torch.linalg`` (``mutograd.linalg``)."""
from ...linalg import (  # noqa: F401
                       cross,
                       det,
                       inv,
                       matrix_norm,
                       matrix_power,
                       norm,
                       slogdet,
                       solve,
                       vecdot,
                       vector_norm,
)
