"""mutograd.distributed: two-rank jobs under ``mpiexec -n 2`` plus in-process checks.

The jobs run ``tests/distributed/mpi_worker.py`` (see its docstring); training results are
compared here with a one-process run on the concatenated batch.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from tests.helpers import ROOT
from tests.distributed.mpi_worker import LR, STEPS, TwoLayer, batch, loss_fn, shard

import mutograd as mg
import mutograd.distributed as dist
from mutograd.distributed import comm
from mutograd.errors import DistributedError, DTypeError, InplaceError

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_worker.py")


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")   # the extra's own launcher
    return here if os.path.exists(here) else shutil.which("mpiexec")


needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or _mpiexec() is None,
    reason="the mpi extra (mpi4py, mpich's mpiexec) is not installed")


def launch(scenario, out, n=2, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    p = subprocess.run([_mpiexec(), "-n", str(n), sys.executable, WORKER, scenario, str(out)],
                       check=False, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout + p.stderr, time.perf_counter() - t0


def reference(groups_of, micro=1):
    """One process: per step, the summed gradient of the mean loss over each group of rows."""
    model = TwoLayer(seed=0)
    steps = []
    for step in range(STEPS):
        x, y = batch(step)
        for m in range(micro):
            # micro-batch m of the concatenated batch: micro-batch m of every rank's share
            rows = np.concatenate([shard(shard(np.arange(len(x)), r, 2), m, micro)
                                   for r in range(2)])
            loss_fn(model(mg.tensor(x[rows])), y[rows]).backward()
        grad = model.w1.grad.numpy().copy()
        with mg.no_grad():
            for p in model.parameters():
                p.sub_(p.grad * LR)
                p.grad = None
        steps.append((grad, model.w1.numpy().copy(), model.w2.numpy().copy()))
    return steps


def load(out, name, r):
    with np.load(out / f"{name}_rank{r}.npz", allow_pickle=False) as f:
        return dict(f)


# --------------------------------------------------------------------------------------------
# Two ranks


@needs_mpi
def test_collectives_two_ranks(tmp_path):
    rc, text, _ = launch("collectives", tmp_path)
    assert rc == 0, text
    assert "rank 0: collectives ok" in text and "rank 1: collectives ok" in text


@needs_mpi
@pytest.mark.parametrize("name, nbuckets", [("ddp", 1), ("ddp_buckets", 2)])
def test_ddp_equals_one_process_on_the_whole_batch(tmp_path, name, nbuckets):
    rc, text, _ = launch(name, tmp_path)
    assert rc == 0, text
    ranks = [load(tmp_path, name, r) for r in range(2)]
    assert int(ranks[0]["nbuckets"]) == nbuckets
    for step, (grad, w1, w2) in enumerate(reference(2)):
        for res in ranks:
            np.testing.assert_allclose(res[f"grad{step}_w1"], grad, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(res[f"step{step}_w1"], w1, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(res[f"step{step}_w2"], w2, rtol=1e-12, atol=1e-14)
        assert np.array_equal(ranks[0][f"step{step}_w1"], ranks[1][f"step{step}_w1"])


@needs_mpi
def test_ddp_of_an_nn_module_equals_one_process(tmp_path):
    # BatchNorm normalizes over each rank's own rows, so the reference is two models in one
    # process, one per rank's rows, with what DDP adds done by hand: rank 0's buffers copied to
    # rank 1 before each forward, and the gradients averaged
    from tests.distributed.mpi_worker import make_net
    rc, text, _ = launch("ddp_nn", tmp_path)
    assert rc == 0, text
    ranks = [load(tmp_path, "ddp_nn", r) for r in range(2)]
    nets = [make_net(seed=0) for _ in range(2)]
    opts = [mg.optim.SGD(m.parameters(), lr=LR, momentum=0.9) for m in nets]
    for step in range(STEPS):
        x, y = batch(step)
        with mg.no_grad():
            for b0, b1 in zip(nets[0].buffers(), nets[1].buffers()):
                b1[...] = b0
        for r, m in enumerate(nets):
            loss_fn(m(mg.tensor(shard(x, r, 2))), shard(y, r, 2)).backward()
        with mg.no_grad():                       # the mean over ranks, by hand
            for ps in zip(*(m.parameters() for m in nets)):
                mean = (ps[0].grad + ps[1].grad) * 0.5
                for p in ps:
                    p.grad = mean.clone()
        for r, (m, o) in enumerate(zip(nets, opts)):
            o.step()
            o.zero_grad()
            for k, v in m.state_dict().items():
                np.testing.assert_allclose(ranks[r][f"step{step}_{k}"], v.numpy(), rtol=1e-12,
                                           atol=1e-14, err_msg=f"rank {r} step {step} {k}")


@needs_mpi
@pytest.mark.torch
def test_ddp_equals_pytorch_on_the_whole_batch(tmp_path):
    torch = pytest.importorskip("torch")
    rc, text, _ = launch("ddp", tmp_path)
    assert rc == 0, text
    res = load(tmp_path, "ddp", 1)
    init = TwoLayer(seed=0)
    w1 = torch.tensor(init.w1.numpy().copy(), requires_grad=True)
    w2 = torch.tensor(init.w2.numpy().copy(), requires_grad=True)
    for step in range(STEPS):
        x, y = (torch.tensor(a) for a in batch(step))
        ((torch.tanh(x @ w1) @ w2 - y) ** 2).mean().backward()
        with torch.no_grad():
            for p in (w1, w2):
                p -= p.grad * LR
                p.grad = None
        np.testing.assert_allclose(res[f"step{step}_w1"], w1.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)
        np.testing.assert_allclose(res[f"step{step}_w2"], w2.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)


@needs_mpi
@pytest.mark.parametrize("n", [3, 4])
def test_more_ranks_than_cores(tmp_path, n):
    rc, text, _ = launch("collectives", tmp_path, n=n)
    assert rc == 0, text
    assert all(f"rank {r}: collectives ok" in text for r in range(n))
    if 8 % n == 0:                    # the batch of 8 splits evenly: same as one process
        rc, text, _ = launch("ddp", tmp_path, n=n)
        assert rc == 0, text
        ranks = [load(tmp_path, "ddp", r) for r in range(n)]
        for step, (grad, w1, w2) in enumerate(reference(2)):
            for res in ranks:
                np.testing.assert_allclose(res[f"step{step}_w1"], w1, rtol=1e-12, atol=1e-14)
                np.testing.assert_allclose(res[f"step{step}_w2"], w2, rtol=1e-12, atol=1e-14)


@needs_mpi
def test_no_sync_accumulates_then_reduces(tmp_path):
    rc, text, _ = launch("no_sync", tmp_path)
    assert rc == 0, text
    ranks = [load(tmp_path, "no_sync", r) for r in range(2)]
    for step, (grad, w1, w2) in enumerate(reference(2, micro=2)):
        # inside no_sync each rank keeps its own gradient (of its first micro-batch)
        assert not np.allclose(ranks[0][f"local{step}_0"], ranks[1][f"local{step}_0"])
        for res in ranks:
            np.testing.assert_allclose(res[f"grad{step}_w1"], grad, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(res[f"step{step}_w1"], w1, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(res[f"step{step}_w2"], w2, rtol=1e-12, atol=1e-14)


@needs_mpi
def test_ddp_mixed_dtypes_and_an_unused_parameter(tmp_path):
    rc, text, _ = launch("mixed", tmp_path)
    assert rc == 0, text
    assert "rank 0: mixed ok" in text and "rank 1: mixed ok" in text


@needs_mpi
def test_torch_and_paddle_names(tmp_path):
    rc, text, _ = launch("compat", tmp_path)
    assert rc == 0, text
    assert "rank 0: compat ok" in text and "rank 1: compat ok" in text


@needs_mpi
def test_an_unmodified_pytorch_ddp_script(tmp_path):
    rc, text, _ = launch("torch_script", tmp_path)
    assert rc == 0, text
    # d(sum(x @ w))/dw averaged over ranks: column sums of x are 4 * (rank + 1); mean 6
    for r in range(2):
        assert f"rank {r}: grad {[[6.0, 6.0]] * 3}" in text, text


@needs_mpi
def test_mismatched_parameters_are_named_on_every_rank(tmp_path):
    rc, text, _ = launch("mismatch", tmp_path)
    assert rc == 0, text
    msg = ("DistributedDataParallel: parameter 'w1' has shape [4, 6] and dtype float64 on rank 0 "
           "but 'w1' has shape [4, 7] and dtype float64 on rank 1; every rank must build the "
           "same model")
    assert f"rank 0: {msg}" in text and f"rank 1: {msg}" in text


@needs_mpi
def test_a_failing_rank_ends_the_job_within_seconds(tmp_path):
    rc, text, elapsed = launch("fault", tmp_path, timeout=60)
    assert rc != 0
    assert elapsed < 20, elapsed
    assert "mutograd.distributed: rank 1 of 2 failed; aborting the job." in text, text
    assert "ValueError: boom on purpose" in text


# --------------------------------------------------------------------------------------------
# In process: checks made before anything is sent


@pytest.fixture
def uninitialized(monkeypatch):
    monkeypatch.setattr(comm, "_world", None)


def test_init_names_the_missing_extra(monkeypatch, uninitialized):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(DistributedError, match=r"mpi4py is not installed; install the optional "
                       r"extra: pip install 'mutograd\[mpi\]' \(mpi4py and mpich\)"):
        dist.init()


@pytest.mark.parametrize("call", [dist.rank, dist.world_size, dist.barrier,
                                  lambda: dist.all_reduce_(mg.ones([2])),
                                  lambda: dist.broadcast_(mg.ones([2])),
                                  lambda: dist.all_gather(mg.ones([2])),
                                  lambda: dist.reduce_scatter(mg.ones([2])),
                                  lambda: dist.DistributedDataParallel(TwoLayer(0)),
                                  lambda: dist.DistributedSampler(range(4))])
def test_use_before_init_is_an_error(uninitialized, call):
    with pytest.raises(DistributedError, match=r"not initialized: call "
                       r"mutograd.distributed.init\(\) first"):
        call()


def _leaf():
    return mg.ones([3], requires_grad=True)


BAD_CALLS = [
    # (call, error class, message fragment)
    (lambda: dist.all_reduce_(mg.ones([2]), op="median"), DistributedError,
     "all_reduce_(): unknown reduction 'median'; expected one of sum, mean, max, min, prod"),
    (lambda: dist.all_reduce_(mg.ones([2], dtype="bool")), DTypeError,
     "all_reduce_(): MPI cannot reduce tensors of dtype bool"),
    (lambda: dist.all_reduce_(mg.ones([2], dtype="float16")), DTypeError,
     "all_reduce_(): MPI cannot reduce tensors of dtype float16"),
    (lambda: dist.all_reduce_(mg.ones([2], dtype="int64"), op="mean"), DTypeError,
     "all_reduce_(): op='mean' needs a floating point tensor, got int64"),
    (lambda: dist.all_reduce_(mg.ones([2, 3]).t()), DistributedError,
     ("all_reduce_() writes the result into the tensor's own buffer, which must be contiguous; "
      "got shape [3, 2] with strides (1, 3)")),
    (lambda: dist.broadcast_(mg.ones([4])[::2]), DistributedError,
     "broadcast_() writes the result into the tensor's own buffer, which must be contiguous"),
    (lambda: dist.all_reduce_(_leaf()), InplaceError,
     ("a leaf Variable that requires grad is being used in an in-place operation. all_reduce_ "
      "writes directly into the leaf tensor of shape [3] and dtype float32")),
    (lambda: dist.broadcast_(_leaf()[1:]), InplaceError,
     ("a view of a leaf Variable that requires grad is being used in an in-place operation. "
      "broadcast_ writes through a view (made by getitem, shape [2]) into the leaf tensor of "
      "shape [3]")),
    (lambda: dist.all_reduce_([1.0, 2.0]), TypeError, "all_reduce_() takes a Tensor, not list"),
    (lambda: dist.reduce_scatter(mg.ones([2]), op="nope"), DistributedError,
     "reduce_scatter(): unknown reduction 'nope'"),
]


@pytest.mark.parametrize("call, cls, fragment", BAD_CALLS)
def test_bad_input_is_refused_before_anything_is_sent(uninitialized, call, cls, fragment):
    with pytest.raises(cls) as e:
        call()
    assert fragment in str(e.value)


def test_refused_write_leaves_the_tensor_unchanged(uninitialized):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(InplaceError):
        dist.all_reduce_(x)
    assert x.tolist() == [1.0, 2.0] and x._version == 0


# --------------------------------------------------------------------------------------------
# DistributedSampler (no MPI needed: rank and world size given)


@pytest.mark.parametrize("n, replicas, drop_last, lengths", [
    (10, 2, False, [5, 5]), (10, 3, False, [4, 4, 4]), (10, 3, True, [3, 3, 3]),
    (2, 4, False, [1, 1, 1, 1]),
])
def test_sampler_shards_cover_the_data(n, replicas, drop_last, lengths):
    shards = [list(dist.DistributedSampler(range(n), replicas, r, shuffle=True, seed=3,
                                           drop_last=drop_last)) for r in range(replicas)]
    assert [len(s) for s in shards] == lengths
    assert [len(dist.DistributedSampler(range(n), replicas, r, drop_last=drop_last))
            for r in range(replicas)] == lengths
    flat = [i for s in shards for i in s]
    if drop_last:
        assert len(set(flat)) == len(flat)          # disjoint
    else:
        assert set(flat) == set(range(n))           # everything, padding repeats the start


def test_sampler_order_is_shared_per_epoch_and_changes_with_set_epoch():
    def order(epoch, seed=0):
        out = []
        for r in range(2):
            s = dist.DistributedSampler(range(20), 2, r, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out
    assert order(0) == order(0)
    assert order(0) != order(1)
    assert order(1, seed=5) != order(1)
    a, b = order(4)
    assert sorted(a + b) == list(range(20))
    assert list(dist.DistributedSampler(range(7), 2, 1, shuffle=False)) == [1, 3, 5, 0]


def test_sampler_rejects_a_rank_outside_the_world():
    with pytest.raises(ValueError, match=r"DistributedSampler: rank 2 is not in \[0, 2\)"):
        dist.DistributedSampler(range(4), 2, 2)


@needs_mpi
def test_example_trains_checkpoints_on_rank_0_and_resumes_on_every_rank(tmp_path):
    ckpt = tmp_path / "ckpt.npz"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "mutograd.cli.distributed_example", "--samples", "384",
           "--checkpoint", str(ckpt)]
    p = subprocess.run([_mpiexec(), "-n", "2"] + cmd + ["--epochs", "2"], check=False,
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("epoch ") == 2 and "(2 ranks)" in p.stdout   # rank 0 reports
    assert [f.name for f in tmp_path.iterdir()] == ["ckpt.npz"]        # no temporary left
    with np.load(ckpt, allow_pickle=False) as f:
        assert int(f["epoch"]) == 1
        w1 = f["w1"].copy()
    p = subprocess.run([_mpiexec(), "-n", "2"] + cmd + ["--epochs", "3", "--resume"],
                       check=False, capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("epoch 2:") and p.stdout.count("epoch ") == 1, p.stdout
    with np.load(ckpt, allow_pickle=False) as f:
        assert int(f["epoch"]) == 2 and not np.array_equal(f["w1"], w1)
    # the resumed epoch is the epoch of an uninterrupted run
    whole = subprocess.run([_mpiexec(), "-n", "2"] + cmd[:-2] + ["--epochs", "3"],
                           check=False, capture_output=True, text=True, timeout=120, env=env)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert whole.stdout.splitlines()[2] == p.stdout.strip()


def test_compat_names_refuse_what_they_cannot_do(uninitialized):
    import mutograd.compat.paddle.distributed as pdist
    import mutograd.compat.torch.distributed as tdist
    with pytest.raises(DistributedError, match=r"init_process_group: backend 'nccl' is not "
                       r"available; mutograd runs collectives over MPI: use backend='mpi'"):
        tdist.init_process_group("nccl")
    for call in (lambda: tdist.get_rank(group=object()),
                 lambda: pdist.all_reduce(mg.ones([1]), group=object())):
        with pytest.raises(DistributedError, match=r"only the default group \(the whole "
                           r"world, group=None\) is supported"):
            call()
    assert (tdist.ReduceOp.AVG, pdist.ReduceOp.PROD) == ("mean", "prod")
    from mutograd.compat import paddle, torch
    from mutograd.compat.torch.nn.parallel import DistributedDataParallel
    assert torch.distributed is tdist and paddle.distributed is pdist
    assert torch.nn.parallel.DistributedDataParallel is DistributedDataParallel
    assert paddle.DataParallel is pdist.DataParallel
    assert issubclass(paddle.DataParallel, dist.DistributedDataParallel)


@pytest.mark.parametrize("n, bs, drop_last, batches", [
    (10, 3, False, [[0, 2, 4], [6, 8]]), (10, 3, True, [[0, 2, 4]]), (4, 2, False, [[0, 2]]),
])
def test_paddle_distributed_batch_sampler(n, bs, drop_last, batches):
    from mutograd.compat.paddle.distributed import DistributedBatchSampler
    s = DistributedBatchSampler(range(n), bs, num_replicas=2, rank=0, drop_last=drop_last)
    assert list(s) == batches and len(s) == len(batches)


@needs_mpi
def test_demo_distributed_resumes_and_matches_one_process(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")

    def demo(n, out, *extra):
        p = subprocess.run([_mpiexec(), "-n", str(n), sys.executable, "-m", "mutograd", "demo",
                            "--distributed", "--quick", "--out", str(out), *extra],
                           check=False, capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0, p.stdout + p.stderr
        # "epoch 2/2: loss 1.6155  test accuracy 81.89%  3.37 s" -> "epoch 2: loss ... 81.89%"
        return [re.sub(r"/\d+", "", line.rsplit("  ", 1)[0]) for line in p.stdout.splitlines()
                if line.startswith("epoch ")]

    first = demo(2, tmp_path / "two", "--epochs", "1")
    assert len(first) == 1 and (tmp_path / "two" / "digits_cnn_distributed.ckpt").exists()
    resumed = demo(2, tmp_path / "two", "--epochs", "2", "--resume")
    whole = demo(1, tmp_path / "one", "--epochs", "2")
    assert first + resumed == whole, (first, resumed, whole)


def test_data_loader_takes_a_distributed_sampler():
    ds = mg.data.TensorDataset(mg.arange(10))
    seen = []
    for r in range(2):
        sampler = dist.DistributedSampler(ds, num_replicas=2, rank=r, seed=4)
        sampler.set_epoch(1)
        loader = mg.data.DataLoader(ds, batch_size=2, sampler=sampler)
        batches = [b[0].tolist() for b in loader]
        flat = [i for b in batches for i in b]
        assert flat == list(sampler) and len(loader) == len(batches) == 3
        seen += flat
    assert sorted(seen) == list(range(10))
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        mg.data.DataLoader(ds, sampler=sampler, shuffle=True)


def test_data_loader_takes_a_batch_sampler():
    from mutograd.compat import paddle, torch
    assert torch.utils.data.DistributedSampler is dist.DistributedSampler
    ds = paddle.io.TensorDataset([mg.arange(10)])
    bs = paddle.io.DistributedBatchSampler(ds, batch_size=3, num_replicas=2, rank=1)
    loader = paddle.io.DataLoader(ds, batch_sampler=bs)
    assert [b[0].tolist() for b in loader] == [[1, 3, 5], [7, 9]] and len(loader) == 2
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive with "
                       "batch_size, shuffle, sampler, and drop_last"):
        mg.data.DataLoader(ds, batch_size=4, batch_sampler=bs)
