"""Iterable datasets, ChainDataset, StackDataset, WeightedRandomSampler, default_convert and
get_worker_info, in the main namespace and as ``torch.utils.data``; against PyTorch where the
result is not random."""
import numpy as np
import pytest

import mutograd as mg
from mutograd import data


class Stream(data.IterableDataset):
    def __init__(self, n, length=False):
        self.n, self.length = n, length

    def __iter__(self):
        return iter([np.array([i, i * i], np.float32) for i in range(self.n)])

    def __len__(self):
        if not self.length:
            raise TypeError("a stream has no length")
        return self.n


def test_loader_batches_an_iterable_dataset_in_order():
    batches = [b.tolist() for b in data.DataLoader(Stream(5), batch_size=2)]
    assert batches == [[[0, 0], [1, 1]], [[2, 4], [3, 9]], [[4, 16]]]
    assert len(list(data.DataLoader(Stream(5), batch_size=2, drop_last=True))) == 2
    single = list(data.DataLoader(Stream(2), batch_size=None))
    assert [s.tolist() for s in single] == [[0, 0], [1, 1]] and isinstance(single[0], mg.Tensor)
    with pytest.raises(TypeError, match="no length"):
        len(data.DataLoader(Stream(5), batch_size=2))
    assert len(data.DataLoader(Stream(5, length=True), batch_size=2)) == 3
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        data.DataLoader(Stream(5), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        data.DataLoader(Stream(5), sampler=[0, 1])
    with pytest.raises(TypeError, match="read by iterating"):
        Stream(3)[0]


def test_chain_and_stack_datasets():
    chained = Stream(2) + Stream(3, length=True)
    assert isinstance(chained, data.ChainDataset)
    assert [a.tolist() for a in chained] == [[0, 0], [1, 1], [0, 0], [1, 1], [2, 4]]
    assert len(data.ChainDataset([Stream(2, True), Stream(3, True)])) == 5
    with pytest.raises(TypeError, match="only supports IterableDataset"):
        list(data.ChainDataset([[1, 2]]))
    s = data.StackDataset([1, 2], ["a", "b"])
    assert s[1] == (2, "b") and len(s) == 2
    assert data.StackDataset(x=[1, 2], y=[3, 4])[0] == {"x": 1, "y": 3}
    with pytest.raises(ValueError, match="Size mismatch"):
        data.StackDataset([1], [1, 2])
    with pytest.raises(ValueError, match="both types are given"):
        data.StackDataset([1], y=[1])


def test_weighted_random_sampler_draws_by_weight():
    g = mg.Generator().manual_seed(0) if hasattr(mg, "Generator") else None
    s = data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=g)
    counts = np.bincount(list(s), minlength=3)
    assert len(s) == 4000 and counts[0] == 0 and 2.6 < counts[2] / counts[1] < 3.4
    once = list(data.WeightedRandomSampler([1.0, 1.0, 0.0, 2.0], 3, replacement=False))
    assert sorted(once) == [0, 1, 3]
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        data.WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="non-zero weights"):
        data.WeightedRandomSampler([1.0, 0.0], 2, replacement=False)


def test_default_convert_and_worker_info():
    out = data.default_convert({"x": np.ones((2, 2)), "y": (np.int64(3), "s"), "z": [1.5]})
    assert isinstance(out["x"], mg.Tensor) and out["x"].shape == [2, 2]
    assert out["y"][0].item() == 3 and out["y"][1] == "s" and out["z"] == [1.5]
    assert isinstance(out["y"], list)
    assert data.get_worker_info() is None


@pytest.mark.torch
def test_torch_dialect_matches_pytorch():
    torch = pytest.importorskip("torch")
    import mutograd.compat.torch as mtorch

    class TS(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter([(float(i), i) for i in range(5)])

    class MS(mtorch.utils.data.IterableDataset):
        def __iter__(self):
            return iter([(float(i), i) for i in range(5)])

    ref = [[t.tolist() for t in b] for b in torch.utils.data.DataLoader(TS(), batch_size=2)]
    got = [[t.tolist() for t in b] for b in mtorch.utils.data.DataLoader(MS(), batch_size=2)]
    assert got == ref
    ref = list(torch.utils.data.DataLoader(TS(), batch_size=None))
    got = list(mtorch.utils.data.DataLoader(MS(), batch_size=None))
    assert got == ref
    conv_t = torch.utils.data.default_convert([np.zeros(2), 1])
    conv_m = mtorch.utils.data.default_convert([np.zeros(2), 1])
    assert conv_m[0].tolist() == conv_t[0].tolist() and conv_m[1] == conv_t[1]
    st = torch.utils.data.StackDataset(a=[1, 2], b=[3, 4])
    sm = mtorch.utils.data.StackDataset(a=[1, 2], b=[3, 4])
    assert [sm[i] for i in range(2)] == [st[i] for i in range(2)]
