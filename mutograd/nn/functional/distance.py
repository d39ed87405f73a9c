"""Distances between rows: cosine similarity, p-norm pairwise distance and ``pdist``.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.cosine_similarity(mg.tensor([[1.0, 0.0]]), mg.tensor([[1.0, 0.0]])).tolist()
    [1.0]
"""

import numpy as np

from ...errors import ShapeError


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2))`` along ``dim``."""
    dot = (x1 * x2).sum(axis=dim)
    norms = ((x1 * x1).sum(axis=dim) * (x2 * x2).sum(axis=dim)).clamp(min=eps * eps)
    return dot / norms.sqrt()


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dimension."""
    from ...linalg import vector_norm
    return vector_norm(x1 - x2 + eps, p, -1, keepdim)


def pdist(input, p=2.0):
    """The ``p``-norm distance between each pair of rows of an (N, M) ``input``: the upper
    triangle of the distance matrix, row by row (N (N - 1) / 2 values)."""
    if input.ndim != 2:
        raise ShapeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    from ...linalg import vector_norm
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    return vector_norm(input[i.tolist()] - input[j.tolist()], p, -1)
