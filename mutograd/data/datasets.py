"""Data sets: the UCI optical digits shipped with the package, and an MNIST IDX-file reader."""
import gzip
import os

import numpy as np

from ..errors import MutogradError
from ..tensor import _wrap
from .dataset import TensorDataset

_HERE = os.path.dirname(os.path.abspath(__file__))
DIGITS_PATH = os.path.join(_HERE, "digits.npz")


class DataFormatError(MutogradError, ValueError):
    """A data file that is not in the format it claims (a bad IDX header, a short file)."""


def load_digits():
    """The UCI optical-recognition digits: 1,797 images of 8x8 pixels and their labels.

    Returns ``(images, labels)``: float32 images scaled to [0, 1] of shape (1797, 8, 8) and
    int64 labels 0..9. The data (E. Alpaydin, C. Kaynak; UCI Machine Learning Repository) is
    licensed CC BY 4.0; see ``DIGITS_LICENSE.txt`` next to this module.

        >>> import mutograd as mg
        >>> x, y = mg.data.load_digits()
        >>> x.shape, int(y[0])
        ([1797, 8, 8], 0)
    """
    with np.load(DIGITS_PATH, allow_pickle=False) as f:
        images, labels = f["images"], f["labels"]
    return _wrap(images.astype(np.float32) / 16.0), _wrap(labels.astype(np.int64))


def digits_split(test_fraction=0.2, seed=0):
    """Train and test TensorDatasets of the digits, images shaped (N, 1, 8, 8), split at random
    with ``seed``."""
    x, y = load_digits()
    n = x.shape[0]
    order = np.random.default_rng(seed).permutation(n)
    n_test = round(n * test_fraction)
    test, train = order[:n_test], order[n_test:]
    xs = x._data[:, None]
    return (TensorDataset(_wrap(xs[train]), _wrap(y._data[train])),
            TensorDataset(_wrap(xs[test]), _wrap(y._data[test])))


_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path):
    """Read an IDX file (MNIST's format; gzip-compressed or not) into a tensor."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise DataFormatError(f"{path}: a corrupt gzip stream ({e})") from None
    if len(raw) < 4 or raw[:2] != b"\0\0" or raw[2] not in _IDX_TYPES:
        raise DataFormatError(f"{path}: not an IDX file (bad magic number {raw[:4].hex()})")
    ndim = raw[3]
    head = 4 + 4 * ndim
    if len(raw) < head:
        raise DataFormatError(f"{path}: truncated IDX header")
    shape = tuple(int(d) for d in np.frombuffer(raw, ">u4", ndim, 4))
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    need = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) - head != need:
        raise DataFormatError(f"{path}: IDX data of shape {list(shape)} needs {need} bytes, "
                              f"the file has {len(raw) - head}")
    arr = np.frombuffer(raw, dtype, offset=head).reshape(shape)
    return _wrap(arr.astype(dtype.newbyteorder("=")))


def load_mnist(root, train=True):
    """MNIST from the four standard IDX files in ``root`` (``.gz`` or not) as a TensorDataset of
    float32 images in [0, 1] of shape (N, 1, 28, 28) and int64 labels."""
    prefix = "train" if train else "t10k"
    found = []
    for kind in ("images-idx3-ubyte", "labels-idx1-ubyte"):
        for name in (f"{prefix}-{kind}", f"{prefix}-{kind}.gz"):
            if os.path.exists(os.path.join(root, name)):
                found.append(os.path.join(root, name))
                break
        else:
            raise FileNotFoundError(f"{prefix}-{kind}[.gz] not found in {root}")
    images, labels = read_idx(found[0]), read_idx(found[1])
    if images.shape[0] != labels.shape[0]:
        raise DataFormatError(f"{images.shape[0]} images but {labels.shape[0]} labels")
    x = images._data.astype(np.float32)[:, None] / 255.0
    return TensorDataset(_wrap(x), _wrap(labels._data.astype(np.int64)))
