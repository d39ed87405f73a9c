"""Datasets, the DataLoader, the shipped digits and the IDX reader."""
import gzip
import struct

import numpy as np
import pytest

import mutograd as mg
from mutograd.data import (
    DataFormatError,
    DataLoader,
    Dataset,
    TensorDataset,
    default_collate,
    digits_split,
    load_digits,
    load_mnist,
    read_idx,
)


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": mg.tensor([float(i)]), "y": i * i, "name": f"s{i}"}


def _epoch(loader):
    return [b[0].tolist() for b in loader]


def test_batches_in_order_with_a_short_last_batch_or_dropped():
    ds = TensorDataset(mg.arange(10), mg.arange(10) * 2)
    assert _epoch(DataLoader(ds, batch_size=4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert _epoch(DataLoader(ds, batch_size=4, drop_last=True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(ds, batch_size=4)) == 3
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    _, yb = next(iter(DataLoader(ds, batch_size=3)))
    assert yb.tolist() == [0, 2, 4]


def test_seeded_shuffle_is_reproducible_and_changes_per_epoch():
    ds = TensorDataset(mg.arange(20))
    a = DataLoader(ds, batch_size=5, shuffle=True, seed=3)
    b = DataLoader(ds, batch_size=5, shuffle=True, seed=3)
    e1, e2 = _epoch(a), _epoch(a)
    assert e1 == _epoch(b) and e1 != e2
    assert sorted(i for b in e1 for i in b) == list(range(20))
    mg.seed(5)
    c = _epoch(DataLoader(ds, batch_size=5, shuffle=True))
    mg.seed(5)
    assert _epoch(DataLoader(ds, batch_size=5, shuffle=True)) == c


def test_default_collation_of_dicts_tuples_numbers_and_strings():
    batch = next(iter(DataLoader(Squares(), batch_size=3)))
    assert batch["x"].shape == [3, 1] and batch["y"].tolist() == [0, 1, 4]
    assert batch["y"].dtype == mg.int64 and batch["name"] == ["s0", "s1", "s2"]
    x, y = default_collate([(np.zeros(2), 1.5), (np.ones(2), 2.5)])
    assert x.shape == [2, 2] and y.dtype == mg.float32 and y.tolist() == [1.5, 2.5]


def test_custom_collate_fn_and_bad_arguments():
    loader = DataLoader(Squares(), batch_size=4, collate_fn=lambda b: len(b))
    assert list(loader) == [4, 4, 2]
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        DataLoader(Squares(), batch_size=0)
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(mg.zeros([3]), mg.zeros([4]))
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object()])


def test_digits_are_shipped_with_their_attribution():
    x, y = load_digits()
    assert x.shape == [1797, 8, 8] and x.dtype == mg.float32
    assert float(x.min()) == 0.0 and float(x.max()) == 1.0
    assert y.dtype == mg.int64 and np.bincount(y.numpy()).tolist() == [
        178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    import os
    with open(os.path.join(os.path.dirname(mg.data.__file__), "DIGITS_LICENSE.txt")) as f:
        lic = f.read()
    assert "CC BY 4.0" in lic and "Alpaydin" in lic
    train, test = digits_split(0.2, seed=0)
    assert len(train) + len(test) == 1797 and len(test) == 359
    assert tuple(train.tensors[0].shape) == (1438, 1, 8, 8)


def _idx(arr, code):
    head = struct.pack(">BBBB", 0, 0, code, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    return head + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


@pytest.mark.parametrize("dtype,code", [(np.uint8, 0x08), (np.int16, 0x0B), (np.int32, 0x0C),
                                        (np.float32, 0x0D), (np.float64, 0x0E)])
def test_idx_reader_round_trips_each_type(tmp_path, dtype, code):
    arr = (np.arange(24).reshape(2, 3, 4) * 3).astype(dtype)
    p = tmp_path / "a.idx"
    p.write_bytes(_idx(arr, code))
    np.testing.assert_array_equal(read_idx(p).numpy(), arr)


def test_load_mnist_from_small_idx_files(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx(images, 8)))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx(labels, 8))
    ds = load_mnist(tmp_path, train=True)
    x, y = ds[2]
    assert len(ds) == 5 and x.shape == [1, 28, 28] and int(y) == 4
    np.testing.assert_allclose(x.numpy()[0], images[2] / 255.0, rtol=1e-6)
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte"):
        load_mnist(tmp_path, train=False)


def test_idx_reader_errors(tmp_path):
    arr = np.zeros((4, 4), np.uint8)
    p = tmp_path / "bad"
    p.write_bytes(_idx(arr, 8)[:-3])
    with pytest.raises(DataFormatError, match="needs 16 bytes, the file has 13"):
        read_idx(p)
    p.write_bytes(b"\x01\x02\x03\x04rest")
    with pytest.raises(DataFormatError, match="not an IDX file"):
        read_idx(p)
    p.write_bytes(gzip.compress(_idx(arr, 8))[:-6])
    with pytest.raises(DataFormatError, match="corrupt gzip"):
        read_idx(p)
