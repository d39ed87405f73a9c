"""``paddle.vision.datasets`` that read local files: ``MNIST`` and ``FashionMNIST`` (IDX files,
gzip-compressed or not), ``DatasetFolder`` and ``ImageFolder`` (a directory of images). Nothing
is downloaded: pass the paths of files you have.

    import mutograd.compat.paddle as paddle
    train = paddle.vision.datasets.MNIST(image_path="train-images-idx3-ubyte.gz",
                                         label_path="train-labels-idx1-ubyte.gz",
                                         transform=paddle.vision.transforms.ToTensor())
    image, label = train[0]        # a [1, 28, 28] float32 tensor, an int64 array of shape [1]
"""
import os

import numpy as np

from ....data.datasets import read_idx
from ..io import Dataset

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("reading image files needs Pillow (pip install pillow)") from None
    return Image


class MNIST(Dataset):
    """MNIST from its IDX files: ``image_path`` and ``label_path`` (the ``mode`` 'train' or
    'test' files). Samples are ``(image, label)``: a 28x28 PIL image (``backend='pil'``, the
    default) or float32 array (``backend='cv2'``) through ``transform``, and an int64 array of
    shape [1]."""

    NAME = "mnist"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        if mode not in ("train", "test"):
            raise ValueError(f"mode should be 'train' or 'test', but got {mode}")
        if backend not in (None, "pil", "cv2"):
            raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
        for what, path in (("image_path", image_path), ("label_path", label_path)):
            if path is None or not os.path.exists(path):
                raise FileNotFoundError(
                    f"{type(self).__name__}: {what}={path!r} is not a file; nothing is "
                    f"downloaded here: pass the local path of the {mode} IDX file")
        self.mode, self.transform, self.backend = mode, transform, backend or "pil"
        self.images = read_idx(image_path).numpy().reshape(-1, 28, 28)
        self.labels = read_idx(label_path).numpy().astype(np.int64).reshape(-1, 1)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{len(self.images)} images but {len(self.labels)} labels")

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.backend == "pil":
            image = _pil().fromarray(image.astype(np.uint8))      # mode "L"
        else:
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        return image, label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST (the same IDX format as :class:`MNIST`)."""

    NAME = "fashion-mnist"


def _find_classes(root):
    classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
    return classes, {c: i for i, c in enumerate(classes)}


def default_loader(path):
    """An RGB PIL image from ``path``."""
    with open(path, "rb") as f:
        return _pil().open(f).convert("RGB")


def _valid(extensions, is_valid_file):
    if is_valid_file is not None:
        return is_valid_file
    exts = tuple(e.lower() for e in (extensions or IMG_EXTENSIONS))
    return lambda p: p.lower().endswith(exts)


def _files_under(directory, ok):
    """The paths under ``directory`` (any depth, sorted walk order) that ``ok`` accepts."""
    return [os.path.join(d, f) for d, _, files in sorted(os.walk(directory))
            for f in sorted(files) if ok(os.path.join(d, f))]


class _FileDataset(Dataset):
    """What both folder datasets share: the loader, the file filter and the transform."""

    def __init__(self, root, loader, extensions, transform, is_valid_file):
        self.root, self.transform = root, transform
        self.loader = loader or default_loader
        self._ok = _valid(extensions, is_valid_file)

    def _load(self, path):
        sample = self.loader(path)
        return sample if self.transform is None else self.transform(sample)

    def __len__(self):
        return len(self.samples)


class DatasetFolder(_FileDataset):
    """Samples ``(loader(path), class_index)`` from ``root/<class>/.../<file>``; classes are
    the sub-directories in sorted order."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        super().__init__(root, loader, extensions, transform, is_valid_file)
        self.classes, self.class_to_idx = _find_classes(root)
        self.samples = [(path, self.class_to_idx[c]) for c in self.classes
                        for path in _files_under(os.path.join(root, c), self._ok)]
        if not self.samples:
            raise RuntimeError(f"Found 0 files in subfolders of: {root}")
        self.targets = [t for _, t in self.samples]

    def __getitem__(self, index):
        path, target = self.samples[index]
        return self._load(path), target


class ImageFolder(_FileDataset):
    """Every image under ``root`` (any depth, no classes); samples are ``[image]``."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        super().__init__(root, loader, extensions, transform, is_valid_file)
        self.samples = _files_under(root, self._ok)
        if not self.samples:
            raise RuntimeError(f"Found 0 files in: {root}")

    def __getitem__(self, index):
        return [self._load(self.samples[index])]
