"""``paddle.metric``: ``accuracy`` and the streaming metrics ``Accuracy``, ``Precision``,
``Recall`` and ``Auc`` (``update`` per batch, ``accumulate`` for the value so far, ``reset``).

    >>> import mutograd.compat.paddle as paddle
    >>> pred = paddle.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
    >>> float(paddle.metric.accuracy(pred, paddle.to_tensor([[1], [2]])))
    0.5
"""
import numpy as np

from ...autograd.grad_mode import no_grad
from ...ops.creation import tensor as _tensor
from ...tensor import Tensor


def _np(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _correct(pred, label, k):
    """[N, k] float32: whether the j-th best class of each row is its label (class indices of
    shape [N] or [N, 1], or one-hot / soft labels [N, C], whose largest entry is the class)."""
    p, lab = _np(pred), _np(label)
    if lab.ndim == 1 or (lab.ndim == 2 and lab.shape[-1] == 1):
        lab = lab.reshape(-1, 1)
    elif lab.shape[-1] != 1:
        lab = np.argmax(lab, axis=-1)[..., None]
    top = np.argsort(-p, axis=-1, kind="stable")[..., :k]
    return (top == lab).astype(np.float32)


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The fraction of rows of ``input`` whose label (``[N, 1]`` or ``[N]``) is among its ``k``
    highest scores, as a float32 0-d tensor."""
    with no_grad():
        c = _correct(input, label, k)
        return _tensor(np.float32(c.sum() / max(len(c), 1)))


class Metric:
    """Base class: ``reset``, ``update``, ``accumulate``, ``name``; ``compute`` turns a batch's
    outputs into what ``update`` takes (by default, the outputs themselves)."""

    def reset(self):
        raise TypeError(f"{type(self).__name__} must define reset()")

    def update(self, *args):
        raise TypeError(f"{type(self).__name__} must define update()")

    def accumulate(self):
        raise TypeError(f"{type(self).__name__} must define accumulate()")

    def name(self):
        return self._name

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for each k of ``topk``, accumulated over batches."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        self.topk = tuple(topk)
        self.maxk = max(self.topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in self.topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args):
        """[N, maxk] float32: 1 where the j-th best class is the label."""
        return _tensor(_correct(pred, label, self.maxk))

    def update(self, correct, *args):
        """Add a batch (``compute``'s result); returns its accuracy (a list for several k)."""
        c = _np(correct)
        samples = int(np.prod(c.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            n = float(c[..., :k].sum())
            self.total[i] += n
            self.count[i] += samples
            accs.append(n / samples if samples else 0.0)
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res


class _Binary(Metric):
    """Binary predictions: a probability rounded to 1 is the positive class. ``accumulate`` is
    ``tp / (tp + other)``, ``other`` the count that ``_other`` names."""

    _other = None

    def __init__(self, name, *args, **kwargs):
        self._name = name
        self.reset()

    @staticmethod
    def _round(p):
        return np.rint(p)

    def update(self, preds, labels):
        p = self._round(_np(preds).reshape(-1)).astype(np.int64)
        lab = _np(labels).reshape(-1).astype(np.int64)
        self.tp += int(((p == 1) & (lab == 1)).sum())
        self.fp += int(((p == 1) & (lab != 1)).sum())
        self.fn += int(((p != 1) & (lab == 1)).sum())

    def reset(self):
        self.tp = self.fp = self.fn = 0

    def accumulate(self):
        d = self.tp + getattr(self, self._other)
        return float(self.tp) / d if d else 0.0


class Precision(_Binary):
    """``tp / (tp + fp)`` over every batch so far."""

    _other = "fp"

    @staticmethod
    def _round(p):
        return np.floor(p + 0.5)     # Paddle's Precision rounds 0.5 up, its Recall to even

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(name)


class Recall(_Binary):
    """``tp / (tp + fn)`` over every batch so far."""

    _other = "fn"

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(name)


class Auc(Metric):
    """Area under the ROC curve, from the positive-class scores (column 1 of ``preds``)
    counted in ``num_thresholds`` bins, as Paddle does."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        if curve != "ROC":
            raise ValueError("Auc: only curve='ROC' is supported")
        self._curve, self._num_thresholds, self._name = curve, num_thresholds, name
        self.reset()

    def update(self, preds, labels):
        p, lab = _np(preds), _np(labels).reshape(-1)
        scores = p[:, 1] if p.ndim == 2 else p.reshape(-1)
        bins = (scores * self._num_thresholds).astype(np.int64)
        np.add.at(self._stat_pos, bins[lab != 0], 1)
        np.add.at(self._stat_neg, bins[lab == 0], 1)

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def accumulate(self):
        pos = np.cumsum(self._stat_pos[::-1])
        neg = np.cumsum(self._stat_neg[::-1])
        tot_pos, tot_neg = pos[-1], neg[-1]
        if tot_pos <= 0 or tot_neg <= 0:
            return 0.0
        prev_pos = np.concatenate([[0.0], pos[:-1]])
        prev_neg = np.concatenate([[0.0], neg[:-1]])
        area = float((np.abs(neg - prev_neg) * (pos + prev_pos) / 2).sum())
        return area / tot_pos / tot_neg


__all__ = ["Accuracy", "Auc", "Metric", "Precision", "Recall", "accuracy"]
