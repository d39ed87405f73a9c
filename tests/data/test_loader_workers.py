"""DataLoader(num_workers=N) runs worker processes as PyTorch does (mutograd/data/workers.py):
the batches of num_workers=0 in the same order, worker info and seeds by PyTorch's rule, errors
naming the worker and the index, timeout, persistent workers, and no process left behind."""
import multiprocessing
import os
import random
import time

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as mtorch
from mutograd.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from mutograd.data.workers import numpy_seed


# datasets at module level, so that 'spawn' workers can import them
class Squares(Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        return np.float32(i * i), {"i": i}


class WhoAmI(Dataset):
    """Each sample says which worker made it and what the worker's generators gave."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        w = get_worker_info()
        return {"id": w.id, "n": w.num_workers, "seed": w.seed, "pid": os.getpid(),
                "ds": type(w.dataset).__name__, "py": random.random(),
                "np": np.random.rand(), "mg": mg.random.initial_seed()}


class FailsAt(Dataset):
    def __init__(self, bad, error=KeyError):
        self.bad, self.error = bad, error

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == self.bad:
            raise self.error(f"no sample {i}")
        return i


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(1)
        return i


class Sharded(IterableDataset):
    """range(n), each worker taking every num_workers-th element (PyTorch's recipe)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        w = get_worker_info()
        start, step = (0, 1) if w is None else (w.id, w.num_workers)
        return iter(range(start, self.n, step))


class Unsharded(IterableDataset):
    def __iter__(self):
        return iter(range(3))


def _values(batches):
    return [_plain(b) for b in batches]


def _plain(b):
    if isinstance(b, mg.Tensor):
        return b.tolist()
    if isinstance(b, dict):
        return {k: _plain(v) for k, v in b.items()}
    if isinstance(b, (list, tuple)):
        return [_plain(v) for v in b]
    return b


def _no_children():
    for _ in range(50):
        if not multiprocessing.active_children():
            return True
        time.sleep(0.1)
    return False


LOADERS = {   # name: a function giving the keyword arguments of a DataLoader over Squares()
    "batched": lambda: dict(batch_size=3),
    "shuffled": lambda: dict(batch_size=4, shuffle=True, generator=mg.Generator().manual_seed(3)),
    "drop_last": lambda: dict(batch_size=4, drop_last=True, shuffle=True, seed=5),
    "unbatched": lambda: dict(batch_size=None),
    "sampler": lambda: dict(batch_size=2, sampler=mg.data.SubsetRandomSampler(
        [5, 1, 9, 3, 7], generator=mg.Generator().manual_seed(1))),
    "batch_sampler": lambda: dict(batch_sampler=[[0, 1], [10, 2, 3], [4]]),
    "collate_fn": lambda: dict(batch_size=5, collate_fn=lambda b: [s[1]["i"] for s in b]),
}


@pytest.mark.parametrize("name", LOADERS)
def test_same_batches_in_the_same_order_as_without_workers(name):
    plain = DataLoader(Squares(), **LOADERS[name]())   # generators in the same state
    want = [_values(plain) for _ in range(2)]     # two epochs
    loader = DataLoader(Squares(), num_workers=3, prefetch_factor=1, **LOADERS[name]())
    assert [_values(loader) for _ in range(2)] == want
    assert _no_children()


def test_tensor_dataset_and_spawned_workers():
    ds = TensorDataset(mg.arange(10.0), mg.arange(10))
    want = _values(DataLoader(ds, batch_size=4, shuffle=True, seed=0))
    got = _values(DataLoader(ds, batch_size=4, shuffle=True, seed=0, num_workers=2,
                             multiprocessing_context="spawn"))
    assert got == want
    assert _no_children()


def test_iterable_dataset_batches_come_from_the_workers_in_turn():
    got = _values(DataLoader(Sharded(7), batch_size=2, num_workers=2))
    assert got == [[0, 2], [1, 3], [4, 6], [5]]   # worker 0, worker 1, worker 0, worker 1
    assert sorted(sum(got, [])) == list(range(7))
    # an iterable dataset that does not shard itself is read whole by every worker
    assert _values(DataLoader(Unsharded(), batch_size=2, num_workers=2)) == \
        [[0, 1], [0, 1], [2], [2]]
    assert _values(DataLoader(Sharded(5), batch_size=None, num_workers=2)) == [0, 1, 2, 3, 4]


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_iterable_order_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader as TorchLoader
    for n, bs, workers in ((7, 2, 2), (10, 3, 3), (3, 2, 4)):
        want = [b.tolist() for b in TorchLoader(_TorchSharded(n), batch_size=bs,
                                                num_workers=workers)]
        got = _values(DataLoader(Sharded(n), batch_size=bs, num_workers=workers))
        assert got == want, (n, bs, workers)
    del torch


class _TorchSharded:   # Sharded for torch's loader (its own IterableDataset class)
    def __new__(cls, n):
        import torch.utils.data as tud

        class T(tud.IterableDataset):
            def __iter__(self):
                w = tud.get_worker_info()
                return iter(range(w.id, n, w.num_workers))
        return T()


def test_worker_info_and_seeds_follow_pytorchs_rule():
    assert get_worker_info() is None
    g = mg.Generator().manual_seed(7)
    first_epoch_base = int(mg.random.generator(None, mg.Generator().manual_seed(7)).integers(
        0, 2 ** 63, dtype=np.int64))
    loader = DataLoader(WhoAmI(), batch_size=None, num_workers=2, generator=g)
    samples = _values(loader)
    assert [s["id"] for s in samples] == [0, 1, 0, 1]
    for s in samples[:2]:     # each worker's first sample
        seed = first_epoch_base + s["id"]
        assert s["n"] == 2 and s["ds"] == "WhoAmI" and s["seed"] == seed and s["mg"] == seed
        assert s["py"] == random.Random(seed).random()
        assert s["np"] == np.random.RandomState(numpy_seed(first_epoch_base, s["id"])).rand()
    assert samples[0]["np"] != samples[1]["np"]
    again = _values(loader)   # a new epoch draws a new base seed
    assert again[0]["seed"] != samples[0]["seed"]


@pytest.mark.torch
def test_numpy_seed_is_the_one_pytorch_gives():
    pytest.importorskip("torch")
    from torch.utils.data._utils.worker import _generate_state
    rng = np.random.default_rng(0)
    for _ in range(200):
        base, wid = int(rng.integers(0, 2 ** 63)), int(rng.integers(0, 64))
        assert numpy_seed(base, wid).tolist() == _generate_state(base, wid)


def test_an_error_in_a_worker_names_the_worker_and_the_index():
    with pytest.raises(KeyError) as info:
        list(DataLoader(FailsAt(3), batch_size=2, num_workers=2))
    msg = str(info.value)
    assert msg.startswith("Caught KeyError in DataLoader worker process 1.\n")
    assert "loading the sample at index 3" in msg
    assert "Original Traceback (most recent call last):" in msg and "no sample 3" in msg
    with pytest.raises(ValueError, match="(?s)worker process 0.*index 0"):
        list(DataLoader(FailsAt(0, ValueError), batch_size=None, num_workers=2))
    assert _no_children()


class _Local(Exception):
    pass


def _bad_init(worker_id):
    raise ZeroDivisionError("init")


def test_init_errors_and_unimportable_exception_types():
    with pytest.raises(ZeroDivisionError, match="(?s)worker process 0.*in worker_init_fn"):
        list(DataLoader(Squares(), num_workers=1, worker_init_fn=_bad_init))

    class Inner(Exception):   # not importable by the main process from a pickle
        pass
    with pytest.raises(RuntimeError, match="Caught Inner in DataLoader worker process"):
        list(DataLoader(FailsAt(1, Inner), batch_size=None, num_workers=1))
    assert _no_children()


def test_timeout_with_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.3))
    assert _no_children()


def test_persistent_workers_live_across_epochs_and_end_with_the_loader():
    loader = DataLoader(WhoAmI(), batch_size=2, num_workers=2, persistent_workers=True)
    first = {p for b in loader for p in b["pid"].tolist()}
    second = {p for b in loader for p in b["pid"].tolist()}
    assert first == second and len(first) == 2 and os.getpid() not in first
    for b in loader:     # a break mid-epoch leaves them for the next epoch
        break
    assert {p for b in loader for p in b["pid"].tolist()} == first
    assert len(multiprocessing.active_children()) == 2
    del loader
    assert _no_children()


def test_break_and_worker_init_fn_leave_no_children():
    seen = []
    loader = DataLoader(Squares(), batch_size=1, num_workers=2, worker_init_fn=seen.append)
    for _ in loader:
        break
    assert _no_children() and seen == []   # worker_init_fn ran in the workers


def test_options_are_checked_as_pytorch_checks_them():
    for kw, msg in ((dict(num_workers=-1), "num_workers option should be non-negative"),
                    (dict(timeout=-1), "timeout option should be non-negative"),
                    (dict(prefetch_factor=2), "prefetch_factor option could only be specified"),
                    (dict(persistent_workers=True), "persistent_workers option needs")):
        with pytest.raises(ValueError, match=msg):
            DataLoader(Squares(), **kw)
    DataLoader(Squares(), pin_memory=True)   # accepted: host memory already


def test_dialect_loaders_run_workers():
    ds = paddle.io.TensorDataset([paddle.arange(6, dtype="float32"), paddle.arange(6)])
    want = _values(paddle.io.DataLoader(ds, batch_size=4))
    got = list(paddle.io.DataLoader(ds, batch_size=4, num_workers=2))
    assert _values(got) == want and isinstance(got[0], list)
    assert type(got[0][0]) is paddle.Tensor
    tds = mtorch.utils.data.TensorDataset(mtorch.arange(6.0))
    loader = mtorch.utils.data.DataLoader(tds, batch_size=4, num_workers=2,
                                          persistent_workers=True, prefetch_factor=1)
    assert _values(loader) == [[[0.0, 1.0, 2.0, 3.0]], [[4.0, 5.0]]]
    del loader
    assert _no_children()
