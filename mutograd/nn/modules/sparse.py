"""Embedding layers: ``Embedding`` (a lookup table of rows) and ``EmbeddingBag`` (sums, means or
maxima of bags of rows).

    >>> import mutograd as mg
    >>> bag = mg.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag(mg.tensor([1, 2, 4, 5]), mg.tensor([0, 2])).shape
    [2, 3]
"""


from ...autograd.grad_mode import no_grad
from ...errors import ShapeError
from ...ops.creation import empty
from .. import functional as F
from .. import init
from ..functional.sparse import _BAG_MODES
from ..module import Module, Parameter


def _pretrained_shape(embeddings):
    if embeddings.ndim != 2:
        raise ValueError("Embeddings parameter is expected to be 2-dimensional")
    return tuple(embeddings.shape)


class EmbeddingBag(Module):
    """A table of ``num_embeddings`` vectors whose bags are reduced by ``mode`` ('sum',
    'mean' or 'max'); ``forward(input, offsets=None, per_sample_weights=None)``."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if mode not in _BAG_MODES:
            raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx
        if _weight is None:
            self.weight = Parameter(empty([num_embeddings, embedding_dim], dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ShapeError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
            self.weight = Parameter(_weight)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An EmbeddingBag over the 2-D ``embeddings`` (shared, not copied); ``freeze``: its
        weight does not require grad."""
        rows, cols = _pretrained_shape(embeddings)
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = _table_repr(self, padding_idx=False) + f", mode={self.mode!r}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


def _table_repr(table, padding_idx=True):
    """PyTorch's text of an embedding table: the sizes, then each option not at its
    default."""
    s = f"{table.num_embeddings}, {table.embedding_dim}"
    if padding_idx and table.padding_idx is not None:
        s += f", padding_idx={table.padding_idx}"
    if table.max_norm is not None:
        s += f", max_norm={table.max_norm}"
    if table.norm_type != 2:
        s += f", norm_type={table.norm_type}"
    if table.scale_grad_by_freq:
        s += f", scale_grad_by_freq={table.scale_grad_by_freq}"
    if table.sparse:
        s += ", sparse=True"
    return s


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = padding_idx
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ShapeError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
            return
        self.weight = Parameter(empty([num_embeddings, embedding_dim], dtype=dtype),
                                requires_grad=not _freeze)
        init.normal_(self.weight)
        if padding_idx is not None:
            with no_grad():
                self.weight[padding_idx] = 0.0

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding over the 2-D ``embeddings`` (shared, not copied); ``freeze``: its weight
        does not require grad.

            >>> import mutograd as mg
            >>> emb = mg.nn.Embedding.from_pretrained(mg.tensor([[1., 2.], [3., 4.]]))
            >>> emb(mg.tensor([1])).tolist(), emb.weight.requires_grad
            ([[3.0, 4.0]], False)
        """
        rows, cols = _pretrained_shape(embeddings)
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        return _table_repr(self)
