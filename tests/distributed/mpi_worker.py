"""One rank of a test job:
``mpiexec -n 2 python tests/distributed/mpi_worker.py SCENARIO OUTDIR``.

Checks that need every rank's values are asserted here (a failed assert aborts the job through
``init()``'s handler, so the launching test sees the rank and the error); results the test
compares with a one-process run are saved to ``OUTDIR/<scenario>_rank<r>.npz``.
"""
import sys

import numpy as np

import mutograd as mg
import mutograd.distributed as dist

# The problem shared with tests/distributed/test_distributed.py, which computes the one-process
# reference.
IN, HID, OUT, BATCH, STEPS, LR = 4, 6, 3, 8, 3, 0.1


class TwoLayer:
    """A model without mutograd.nn: two weight tensors and tanh between them."""

    def __init__(self, seed, hid=HID):
        rng = np.random.default_rng(seed)
        self.w1 = mg.tensor(rng.standard_normal((IN, hid)), requires_grad=True)
        self.w2 = mg.tensor(rng.standard_normal((hid, OUT)), requires_grad=True)

    def named_parameters(self):
        return [("w1", self.w1), ("w2", self.w2)]

    def parameters(self):
        return [self.w1, self.w2]

    def __call__(self, x):
        return mg.tanh(x @ self.w1) @ self.w2


def batch(step):
    """The global batch of ``step`` (every rank makes the same, then takes its share)."""
    rng = np.random.default_rng(100 + step)
    return rng.standard_normal((BATCH, IN)), rng.standard_normal((BATCH, OUT))


def loss_fn(pred, y):
    d = pred - mg.tensor(y)
    return (d * d).mean()


def sgd(params):
    with mg.no_grad():
        for p in params:
            p.sub_(p.grad * LR)


def shard(a, r, n):
    k = a.shape[0] // n
    return a[r * k:(r + 1) * k]


def scenario_collectives(r, n, out):
    x = mg.tensor([1.0, 2.0, 3.0]) * (r + 1)
    v0, bytes0, allocs0 = x._version, mg.memory.allocated(), mg.memory.num_allocations()
    y = dist.all_reduce_(x)
    assert y is x
    assert mg.memory.allocated() == bytes0 and mg.memory.num_allocations() == allocs0
    assert x._version == v0 + 1
    tri = n * (n + 1) / 2
    assert x.tolist() == [tri, 2 * tri, 3 * tri], x.tolist()
    m = mg.tensor([float(r), 10.0 - r], dtype="float64")
    dist.all_reduce_(m, op="mean")
    assert np.allclose(m.numpy(), [(n - 1) / 2, 10 - (n - 1) / 2])
    for op, want in (("max", n - 1), ("min", 0), ("prod", 0)):
        t = mg.tensor([r, r], dtype="int64")
        dist.all_reduce_(t, op=op)
        assert t.tolist() == [want, want], (op, t.tolist())
    # a view: the base sees the reduced values and the shared counter moves
    base = mg.ones([2, 3], dtype="float64")
    row = base[1]
    dist.all_reduce_(row)
    assert base.tolist() == [[1.0] * 3, [float(n)] * 3] and base._version == 1
    # async
    a = mg.full([4], float(r + 1), dtype="float64")
    w = dist.all_reduce_(a, op="mean", async_op=True)
    w.wait()
    assert a.tolist() == [(n + 1) / 2] * 4 and w.is_completed()
    # the leaf rule: refused under grad mode, data unchanged; allowed under no_grad
    leaf = mg.tensor([float(r)], requires_grad=True)
    try:
        dist.all_reduce_(leaf)
        raise AssertionError("no error")
    except mg.InplaceError as e:
        assert "all_reduce_ writes directly into the leaf tensor of shape [1]" in str(e), str(e)
    assert leaf.tolist() == [float(r)] and leaf._version == 0
    with mg.no_grad():
        dist.all_reduce_(leaf)
    assert leaf.tolist() == [tri - n]
    # broadcast_
    b = mg.full([2, 2], float(r + 7))
    bytes0 = mg.memory.allocated()
    assert dist.broadcast_(b, src=n - 1) is b and b._version == 1
    assert mg.memory.allocated() == bytes0 and b.tolist() == [[float(n + 6)] * 2] * 2
    # all_gather, reduce_scatter
    g = dist.all_gather(mg.tensor([[r, 2 * r]]))
    assert g.shape == [n, 1, 2] and g.tolist() == [[[k, 2 * k]] for k in range(n)]
    rs = dist.reduce_scatter(mg.arange(2 * n, dtype="float64").reshape([2 * n, 1]) * (r + 1))
    assert rs.tolist() == [[tri * (2 * r)], [tri * (2 * r + 1)]], rs.tolist()
    rs = dist.reduce_scatter(mg.ones([n, 2], dtype="float64"), op="mean")
    assert rs.tolist() == [[1.0, 1.0]]
    # gradient through an all-reduce of a non-leaf: y = sum_r 2 x_r, L = sum_r sum(y * y)
    xl = mg.tensor([1.0, -2.0], dtype="float64", requires_grad=True)
    with mg.no_grad():
        xl.mul_(r + 1)
    yl = xl * 2
    dist.all_reduce_(yl)
    assert yl.grad_fn.name() == "AllReduceBackward0"
    (yl * yl).sum().backward()
    total = 2 * np.array([1.0, -2.0]) * tri
    assert np.allclose(xl.grad.numpy(), 2 * n * 2 * total), xl.grad.tolist()
    # a reduced tensor that backward needs is stale, and the error names the reducing line
    xv = mg.tensor([1.0, 2.0], requires_grad=True)
    yv = xv * 2
    zv = yv * yv                       # MulBackward saves yv
    with mg.no_grad():
        dist.all_reduce_(yv)
    line = sys._getframe().f_lineno - 1
    try:
        zv.sum().backward()
        raise AssertionError("no error")
    except mg.VersionError as e:
        assert f"all_reduce_ at {__file__}:{line}" in str(e), str(e)
    # arguments checked against the world, before anything is sent
    for call, cls, msg in [
            (lambda: dist.broadcast_(mg.ones([2]), src=n), mg.errors.DistributedError,
             f"broadcast_(): src={n} is not a rank of a world of size {n}"),
            (lambda: dist.reduce_scatter(mg.ones([2 * n + 1])), mg.ShapeError,
             (f"reduce_scatter(): the first axis of a tensor of shape [{2 * n + 1}] does not "
              f"split into {n} equal blocks (one per rank)"))]:
        try:
            call()
            raise AssertionError("no error")
        except cls as e:
            assert str(e) == msg, str(e)
    print(f"rank {r}: collectives ok", flush=True)


def run_training(r, n, out, name, bucket_cap_mb, micro=1, drop_grads=False, progress=False):
    model = TwoLayer(seed=r)          # different on each rank: construction broadcasts rank 0's
    ddp = dist.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb,
                                       progress_thread=progress)
    assert np.array_equal(model.w1.numpy(), TwoLayer(seed=0).w1.numpy())
    saved = {}
    for step in range(STEPS):
        x, y = batch(step)
        xs, ys = shard(x, r, n), shard(y, r, n)
        for m in range(micro):
            xm, ym = shard(xs, m, micro), shard(ys, m, micro)
            if m < micro - 1:
                with ddp.no_sync():
                    loss_fn(ddp(mg.tensor(xm)), ym).backward()
                saved[f"local{step}_{m}"] = model.w1.grad.numpy().copy()
            else:
                loss = loss_fn(ddp(mg.tensor(xm)), ym)
                if drop_grads:     # zero_grad(set_to_none=True) between forward and backward
                    model.w1.grad = model.w2.grad = None
                loss.backward()
        # gradients are views of the buckets: the same memory, no copy
        for b in ddp.buckets:
            for p, v in zip(b.params, b.views):
                assert p.grad is v and np.shares_memory(p.grad.numpy(), b.flat.numpy())
        saved[f"grad{step}_w1"] = model.w1.grad.numpy().copy()
        sgd(model.parameters())
        for p in model.parameters():
            p.grad = None
        saved[f"step{step}_w1"] = model.w1.numpy().copy()
        saved[f"step{step}_w2"] = model.w2.numpy().copy()
    assert ddp.copied_grads == 0, ddp.copied_grads
    saved["nbuckets"] = np.array(len(ddp.buckets))
    np.savez(f"{out}/{name}_rank{r}.npz", **saved)
    print(f"rank {r}: {name} ok", flush=True)


def make_net(seed):
    """The same problem with mutograd.nn: Linear, BatchNorm (buffers), Tanh, Linear; float64."""
    from mutograd import nn
    mg.seed(seed)
    return nn.Sequential(nn.Linear(IN, HID), nn.BatchNorm1d(HID), nn.Tanh(),
                         nn.Linear(HID, OUT)).double()


def scenario_ddp_nn(r, n, out):
    net = make_net(seed=r)
    ddp = dist.DistributedDataParallel(net)
    opt = mg.optim.SGD(net.parameters(), lr=LR, momentum=0.9)
    saved = {}
    for step in range(STEPS):
        x, y = batch(step)
        loss = loss_fn(ddp(mg.tensor(shard(x, r, n))), shard(y, r, n))
        opt.zero_grad()                # .grad = None between forward and backward
        loss.backward()
        opt.step()
        for k, v in net.state_dict().items():
            saved[f"step{step}_{k}"] = v.numpy().copy()
    assert ddp.copied_grads == 0
    np.savez(f"{out}/ddp_nn_rank{r}.npz", **saved)
    print(f"rank {r}: ddp_nn ok", flush=True)


def scenario_ddp(r, n, out):
    run_training(r, n, out, "ddp", bucket_cap_mb=25)


def scenario_ddp_buckets(r, n, out):
    # 100 bytes per bucket: w2 (144 bytes) and w1 (192 bytes) each get their own
    run_training(r, n, out, "ddp_buckets", bucket_cap_mb=100 / 2 ** 20, drop_grads=True,
                 progress=True)


def scenario_no_sync(r, n, out):
    run_training(r, n, out, "no_sync", bucket_cap_mb=25, micro=2)


class Mixed(TwoLayer):
    """Two float64 weights, a float32 scale, and a parameter forward never uses."""

    def __init__(self, seed):
        super().__init__(seed)
        self.scale = mg.tensor([1.5 + seed], dtype="float32", requires_grad=True)
        self.unused = mg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
        self.running = mg.zeros([1], dtype="float64")     # a buffer, like a running mean

    def named_parameters(self):   # w1 listed twice: a shared parameter
        return super().named_parameters() + [("scale", self.scale), ("unused", self.unused),
                                              ("w1_again", self.w1)]

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def buffers(self):
        return [self.running]

    def __call__(self, x):
        self.running += 1
        return super().__call__(x) * self.scale


def scenario_mixed(r, n, out):
    model = Mixed(seed=r)
    ddp = dist.DistributedDataParallel(model)
    assert [[p is q for p, q in zip(b.params, ps)] for b, ps in zip(
        ddp.buckets, [[model.unused, model.w2, model.w1], [model.scale]])] == [[True] * 3, [True]]
    plain = Mixed(seed=0)              # the same weights, no reduction: this rank's own gradient
    x, y = batch(0)
    xs, ys = mg.tensor(shard(x, r, n)), shard(y, r, n)
    with mg.no_grad():                 # evaluating leaves .grad alone
        ddp(xs)
    assert model.w1.grad is None and model.running.tolist() == [1.0]
    model.running.fill_(10.0 * r)      # buffers drift apart; each forward starts from rank 0's
    loss_fn(ddp(xs), ys).backward()
    assert model.running.tolist() == [1.0], model.running.tolist()
    loss_fn(plain(xs), ys).backward()
    for name in ("w1", "w2", "scale"):
        mine = getattr(plain, name).grad
        want = dist.all_gather(mine).numpy().mean(0)
        got = getattr(model, name).grad.numpy()
        assert got.dtype == mine.numpy().dtype and np.allclose(got, want, rtol=1e-6), name
        assert not np.allclose(mine.numpy(), got)      # the reduction did something
    assert model.unused.grad.tolist() == [0.0, 0.0]
    # a later step: the reduction adds no storage (and copies nothing) to a plain backward
    counts = []
    for m in (plain, ddp):
        loss = loss_fn(m(xs), ys)
        before = mg.memory.num_allocations(), mg.memory.max_allocated()
        mg.memory.reset_peak()
        loss.backward()
        counts.append((mg.memory.num_allocations() - before[0],
                       mg.memory.max_allocated() - mg.memory.allocated()))
        del loss
    assert counts[0] == counts[1], counts
    print(f"rank {r}: mixed ok", flush=True)


def scenario_compat(r, n, out):
    import mutograd.compat.paddle.distributed as pdist
    import mutograd.compat.torch.distributed as tdist
    from mutograd.compat.torch.nn.parallel import DistributedDataParallel
    tdist.init_process_group("mpi", world_size=n, rank=r)
    assert (tdist.get_rank(), tdist.get_world_size(), tdist.is_initialized()) == (r, n, True)
    t = mg.tensor([1.0, 2.0]) * (r + 1)
    assert tdist.all_reduce(t, op=tdist.ReduceOp.SUM) is None
    tri = n * (n + 1) / 2
    assert t.tolist() == [tri, 2 * tri]
    tdist.all_reduce(t, op=tdist.ReduceOp.AVG, async_op=True).wait()
    assert t.tolist() == [tri, 2 * tri]
    outs = [mg.zeros([2]) for _ in range(n)]
    tdist.all_gather(outs, mg.tensor([float(r), 1.0]))
    assert [o.tolist() for o in outs] == [[float(k), 1.0] for k in range(n)]
    o = mg.zeros([3])
    tdist.reduce_scatter(o, [mg.full([3], float(k + r)) for k in range(n)])
    assert o.tolist() == [float(n * r + n * (n - 1) / 2)] * 3
    b = mg.full([2], float(r))
    tdist.broadcast(b, src=n - 1)
    assert b.tolist() == [float(n - 1)] * 2
    tdist.barrier()
    pdist.init_parallel_env()
    assert (pdist.get_rank(), pdist.get_world_size()) == (r, n)
    p = mg.tensor([float(r + 1)])
    pdist.all_reduce(p, op=pdist.ReduceOp.MAX)
    assert p.tolist() == [float(n)]
    got = []
    pdist.all_gather(got, mg.tensor([r]))
    assert [g.tolist() for g in got] == [[k] for k in range(n)]
    for wrap in (DistributedDataParallel, pdist.DataParallel):
        model = TwoLayer(seed=r)
        ddp = wrap(model)
        x, y = batch(0)
        loss_fn(ddp(mg.tensor(shard(x, r, n))), shard(y, r, n)).backward()
        g = dist.all_gather(model.w1.grad).numpy()
        assert np.array_equal(g[0], g[-1]) and ddp.module is model
    print(f"rank {r}: compat ok", flush=True)


TORCH_SCRIPT = """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
rank = dist.get_rank()
torch.manual_seed(rank)
w = torch.randn(3, 2, dtype=torch.float64).requires_grad_()


class Model:
    def parameters(self):
        return [w]

    def __call__(self, x):
        return x @ w


model = DDP(Model())
model(torch.ones(4, 3, dtype=torch.float64) * (rank + 1)).sum().backward()
top = w.grad.clone()
dist.all_reduce(top, op=dist.ReduceOp.MAX)
assert torch.equal(top, w.grad)
print(f"rank {rank}: grad {w.grad.tolist()}", flush=True)
"""


def scenario_torch_script(r, n, out):
    """An unmodified PyTorch data-parallel script, run through the compat import hook."""
    from mutograd import compat
    path = f"{out}/train_ddp_rank{r}.py"
    with open(path, "w") as f:
        f.write(TORCH_SCRIPT)
    compat.run_script(path, "torch")


def scenario_mismatch(r, n, out):
    try:
        dist.DistributedDataParallel(TwoLayer(seed=r, hid=HID + r))
    except mg.errors.DistributedError as e:
        print(f"rank {r}: {e}", flush=True)


def scenario_fault(r, n, out):
    if r == 1:
        raise ValueError("boom on purpose")
    dist.barrier()       # would wait forever for rank 1 without the abort


def main():
    scenario, out = sys.argv[1], sys.argv[2]
    dist.init()
    globals()["scenario_" + scenario](dist.rank(), dist.world_size(), out)


if __name__ == "__main__":
    main()
