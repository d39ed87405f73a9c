"""Error classes of mutograd.

Each class also subclasses what PyTorch and Paddle raise in the same situation (``RuntimeError``
for PyTorch, ``ValueError`` for Paddle), so ``except`` clauses written for either framework work.
"""
import pickle


class MutogradError(Exception):
    """Base class of every error mutograd raises on purpose."""


class InplaceError(MutogradError, RuntimeError, ValueError):
    """An in-place write that autograd cannot allow (a leaf that requires grad, or its view)."""


class VersionError(MutogradError, RuntimeError, ValueError):
    """A tensor saved for backward was modified in place after it was saved."""


class BackwardError(MutogradError, RuntimeError, ValueError):
    """Backward cannot run: freed graph, non-scalar output in strict dialects, bad gradient."""


class ArgumentError(MutogradError, RuntimeError, ValueError):
    """An argument value an op cannot work with: a zero step or stride, a negative count."""


class IntegerDivisionError(MutogradError, ZeroDivisionError, RuntimeError):
    """An integer division or remainder by zero (NumPy would give 0 with a warning)."""


class ShapeError(MutogradError, RuntimeError, ValueError):
    """Shapes that do not broadcast, or an in-place result that would change the written shape."""


class DTypeError(MutogradError, RuntimeError, TypeError):
    """A dtype that cannot be used: an in-place result that cannot be cast to the written tensor."""


class OverlapError(MutogradError, RuntimeError, ValueError):
    """An element-wise write into a tensor whose elements share memory (an expanded tensor)."""


class PlaceError(MutogradError, RuntimeError, ValueError):
    """Tensors on different places used together, or a place that is not available."""


class DistributedError(MutogradError, RuntimeError, ValueError):
    """A collective or data-parallel setup that cannot run: no MPI, mismatched ranks, bad buffer."""


class IndexRangeError(MutogradError, IndexError, ValueError):
    """A dimension or an index out of range for the tensor it is used on."""


class GatherIndexError(IndexRangeError, RuntimeError):
    """An index tensor of gather or scatter with an entry out of range: a RuntimeError too, as
    PyTorch raises there (where ``x[i]``, ``index_select`` and ``take`` raise an IndexError)."""


class SparseIndexError(IndexRangeError, RuntimeError):
    """A sparse tensor's index out of its size, or CSR row pointers that are not a partition of
    its entries: a RuntimeError too, as PyTorch's invariant checks raise."""


class LinAlgError(MutogradError, RuntimeError):
    """A matrix a linear-algebra routine cannot handle (singular, not positive definite, no
    convergence): ``torch.linalg.LinAlgError``'s counterpart."""


class CheckpointError(MutogradError, RuntimeError, ValueError):
    """A checkpoint or weights file that cannot be written or read: truncated, corrupted, not a
    checkpoint, or holding what a weights file may not hold. The message starts with the file and
    says what was wrong and where; the exception that revealed it, if any, is chained."""


class WeightsOnlyError(CheckpointError, pickle.UnpicklingError):
    """A weights file names a global (a class or function) outside the allow-list, as a
    whole-object pickle does: an ``UnpicklingError`` too, as PyTorch's ``weights_only`` load
    raises. A file mutograd saved whole loads with ``weights_only=False``, if it is trusted."""


class CheckpointBudgetError(CheckpointError):
    """Reading a file would make more than its memory budget allows (a small multiple of the
    file's size, or ``max_bytes=``); the message names the budget and what asked for more."""


class CheckpointPlaceError(CheckpointError, PlaceError):
    """A file holds a tensor saved on a place this machine lacks (a GPU): load it with
    ``map_location='cpu'``. Both a CheckpointError and a PlaceError."""
