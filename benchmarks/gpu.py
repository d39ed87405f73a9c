"""GPU benchmarks: mutograd on CuPy next to PyTorch CUDA, on the same GPU in the same run.

    python benchmarks/gpu.py --device gpu            # the full set (needs CuPy and a GPU)
    python benchmarks/gpu.py --device gpu --json out.json
    python benchmarks/gpu.py --device cpu --quick    # the same code on the CPU, small sizes

Workloads (docs/gpu.md, benchmarks/README.md):
  1. per-op overhead on 16 elements (add, mul, relu, add_, matmul of 4x4);
  2. ``relu_`` and the chain ``((x*2+1).exp()).tanh()`` in place on 256M float32, next to a
     device-to-device copy of the same bytes (bandwidth, and bytes allocated: must be 0);
  3. the MLP training step (784-1024-1024-10, batch 512, Adam);
  4. a GPT-style training step (6 layers, 6 heads, width 384, context 256, batch 64, AdamW).
Each prints mutograd's and PyTorch's time and peak memory; the summary line says whether the
targets hold (in-place >= 70 % of copy bandwidth with 0 bytes, GPT step <= 1.5x PyTorch, peak
memory <= PyTorch's).
"""
import argparse
import json
import math
import platform
import sys
import time

if __name__ == "__main__":   # run from a checkout: python benchmarks/gpu.py
    sys.path.insert(0, __file__.rsplit("/benchmarks/", 1)[0])

import mutograd as mg  # noqa: E402
from mutograd import memory  # noqa: E402


def _sync(place):
    if place.kind != "cpu":
        mg.cuda.synchronize()


def _tsync(torch, dev):
    if dev.startswith("cuda"):
        torch.cuda.synchronize()


def timeit(fn, sync, repeat, warmup=3):
    """Median seconds of ``fn`` over ``repeat`` runs after ``warmup``, synchronizing."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


# ---- 1. per-op overhead -------------------------------------------------------------------
def per_op(place, torch, tdev, n_calls):
    x, y = mg.randn(16, device=place), mg.randn(16, device=place)
    m = mg.randn(4, 4, device=place)
    ops = {"add": lambda: x + y, "mul": lambda: x * y, "relu": lambda: mg.relu(x),
           "add_": lambda: x.add_(y), "matmul 4x4": lambda: m @ m}
    rows = []
    for name, fn in ops.items():
        def loop(fn=fn):
            for _ in range(n_calls):
                fn()
        us = timeit(loop, lambda: _sync(place), 5) / n_calls * 1e6
        row = {"op": name, "mutograd_us": us}
        if torch is not None:
            tx, ty = torch.randn(16, device=tdev), torch.randn(16, device=tdev)
            tm = torch.randn(4, 4, device=tdev)
            tops = {"add": lambda: tx + ty, "mul": lambda: tx * ty,
                    "relu": lambda: torch.relu(tx), "add_": lambda: tx.add_(ty),
                    "matmul 4x4": lambda: tm @ tm}

            def tloop(fn=tops[name]):
                for _ in range(n_calls):
                    fn()
            row["torch_us"] = timeit(tloop, lambda: _tsync(torch, tdev), 5) / n_calls * 1e6
        rows.append(row)
    return rows


# ---- 2. in-place bandwidth ----------------------------------------------------------------
def bandwidth(place, torch, tdev, n, repeat):
    x = mg.rand(n, device=place)
    dst = mg.empty(n, device=place)
    nbytes = 2 * 4 * n          # every kernel reads and writes n float32

    def copy():
        dst[...] = x      # a device-to-device copy into existing memory

    def relu_():
        x.relu_()

    def chain_():
        x.mul_(2).add_(1).exp_().tanh_()

    rows = []
    for name, fn, passes in (("device-to-device copy", copy, 1), ("relu_", relu_, 1),
                             ("((x*2+1).exp()).tanh() in place", chain_, 4)):
        with mg.no_grad():
            before = memory.allocated(place), memory.num_allocations(place)
            s = timeit(fn, lambda: _sync(place), repeat)
            after = memory.allocated(place), memory.num_allocations(place)
        row = {"workload": name, "mutograd_s": s, "mutograd_GBps": passes * nbytes / s / 1e9,
               "allocated_bytes": after[0] - before[0], "new_storages": after[1] - before[1]}
        if torch is not None:
            tx = torch.rand(n, device=tdev)
            tdst = torch.empty(n, device=tdev)
            tfn = {"device-to-device copy": lambda: tdst.copy_(tx),
                   "relu_": lambda: tx.relu_(),
                   "((x*2+1).exp()).tanh() in place":
                       lambda: tx.mul_(2).add_(1).exp_().tanh_()}[name]
            ts = timeit(tfn, lambda: _tsync(torch, tdev), repeat)
            row.update(torch_s=ts, torch_GBps=passes * nbytes / ts / 1e9)
            del tx, tdst
        rows.append(row)
    copy_bw = rows[0]["mutograd_GBps"]
    for r in rows[1:]:
        r["fraction_of_copy"] = r["mutograd_GBps"] / copy_bw
    return rows


# ---- 3 and 4. training steps --------------------------------------------------------------
def mlp(lib, nn, dims):
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


class _Block:
    """A GPT block written once for both libraries (``lib`` is mutograd or torch)."""

    def __init__(self, lib, nn, width, heads):
        self.lib, self.heads = lib, heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
        self.modules = [self.ln1, self.ln2, self.qkv, self.proj, self.fc, self.out]

    def __call__(self, x, mask):
        lib = self.lib
        b, t, c = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, h, c // h).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // h))
        att = lib.nn.functional.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        return x + self.out(lib.nn.functional.gelu(self.fc(self.ln2(x))))


class GPT:
    def __init__(self, lib, place, vocab=512, width=384, heads=6, layers=6, context=256):
        nn = lib.nn
        self.lib = lib
        self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(context, width)
        self.blocks = [_Block(lib, nn, width, heads) for _ in range(layers)]
        self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)
        mods = [self.tok, self.pos, self.ln, self.head] + [m for b in self.blocks
                                                            for m in b.modules]
        for m in mods:
            m.to(place)
        self.params = [p for m in mods for p in m.parameters()]
        self.mask = lib.triu(lib.ones(context, context, device=place), diagonal=1).bool()
        self.positions = lib.arange(context, device=place)

    def __call__(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(self.positions[:t])
        for b in self.blocks:
            x = b(x, self.mask[:t, :t])
        return self.head(self.ln(x))


def train_step(lib, model_fn, params, opt, x, y, loss_fn):
    opt.zero_grad()
    loss = loss_fn(model_fn(x), y)
    loss.backward()
    opt.step()
    return loss


def _mlp_row(lib, dev, sync, dims, batch, repeat):
    peak_now, peak_reset = _peak_fns(lib, dev)
    model = mlp(lib, lib.nn, dims).to(dev)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x = lib.randn(batch, dims[0], device=dev)
    y = lib.randint(0, 10, (batch,), device=dev)
    ce = lib.nn.functional.cross_entropy
    train_step(lib, model, None, opt, x, y, ce)     # optimizer state made before measuring
    peak_reset()
    s = timeit(lambda: train_step(lib, model, None, opt, x, y, ce), sync, repeat)
    return {"lib": lib.__name__.split(".")[0], "workload": "MLP step", "s": s,
            "peak_bytes": peak_now()}


def _gpt_row(lib, dev, sync, cfg, repeat):
    peak_now, peak_reset = _peak_fns(lib, dev)
    g = GPT(lib, dev, width=cfg["width"], heads=cfg["heads"], layers=cfg["layers"],
            context=cfg["context"])
    opt = lib.optim.AdamW(g.params, lr=3e-4)
    idx = lib.randint(0, 512, (cfg["batch"], cfg["context"]), device=dev)
    tgt = lib.randint(0, 512, (cfg["batch"], cfg["context"]), device=dev)
    ce = lib.nn.functional.cross_entropy

    def loss_fn(logits, t):
        return ce(logits.reshape(-1, 512), t.reshape(-1))
    train_step(lib, g, None, opt, idx, tgt, loss_fn)
    peak_reset()
    s = timeit(lambda: train_step(lib, g, None, opt, idx, tgt, loss_fn), sync,
               max(3, repeat // 3), warmup=1)
    return {"lib": lib.__name__.split(".")[0], "workload": "GPT step", "s": s,
            "peak_bytes": peak_now()}


def steps(place, torch, tdev, quick, repeat):
    rows = []
    batch, dims = (64, [64, 128, 128, 10]) if quick else (512, [784, 1024, 1024, 10])
    gpt = dict(width=48, heads=2, layers=2, context=32, batch=4) if quick else dict(
        width=384, heads=6, layers=6, context=256, batch=64)
    for lib, dev, sync in ((mg, place, lambda: _sync(place)),
                           (torch, tdev, lambda: _tsync(torch, tdev))):
        if lib is None:
            continue
        lib.manual_seed(0)
        rows.append(_mlp_row(lib, dev, sync, dims, batch, repeat))
        rows.append(_gpt_row(lib, dev, sync, gpt, repeat))
    return rows


def _peak_fns(lib, dev):
    if lib is mg:
        where = mg.places.get(dev)
        return (lambda: memory.max_allocated(where)), (lambda: memory.reset_peak(where))
    if str(dev).startswith("cuda"):
        return lib.cuda.max_memory_allocated, lib.cuda.reset_peak_memory_stats
    return (lambda: None), (lambda: None)


# ---- main ---------------------------------------------------------------------------------
def environment(place, torch):
    env = {"python": platform.python_version(), "mutograd": mg.__version__,
           "device": str(place)}
    if place.xp.__name__ == "cupy":
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(place.index)
        env.update(gpu=props["name"].decode(), cupy=cupy.__version__,
                   cuda_runtime=cupy.cuda.runtime.runtimeGetVersion())
    if torch is not None:
        env["torch"] = torch.__version__
    return env


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="gpu", help="gpu, gpu:N, cuda:N or cpu")
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (a smoke run)")
    p.add_argument("--elements", type=int, default=None,
                   help="elements of the bandwidth tensors (default 256M; 1M with --quick)")
    p.add_argument("--no-torch", action="store_true", help="skip the PyTorch columns")
    p.add_argument("--json", default=None, help="also write the results here")
    args = p.parse_args(argv)
    place = mg.places.get(args.device)
    torch, tdev = None, "cpu"
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None and place.kind != "cpu":
            if not torch.cuda.is_available():
                print("PyTorch has no CUDA here: the PyTorch columns are left out")
                torch = None
            else:
                tdev = f"cuda:{place.index}"
    n = args.elements or (1 << 20 if args.quick else 256 << 20)
    repeat = 3 if args.quick else 20
    res = {"environment": environment(place, torch),
           "per_op": per_op(place, torch, tdev, 200 if args.quick else 2000),
           "bandwidth": bandwidth(place, torch, tdev, n, repeat),
           "steps": steps(place, torch, tdev, args.quick, repeat)}
    report(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


def _b(n):
    return f"{'n/a':>14}" if n is None else f"{n:>12,} B"   # PyTorch counts CUDA memory only


def report(res):
    print(json.dumps(res["environment"]))
    print("\nper-op overhead, 16 elements (us/op)")
    for r in res["per_op"]:
        print(f"  {r['op']:<12} mutograd {r['mutograd_us']:8.1f}"
              + (f"   torch {r['torch_us']:8.1f}" if "torch_us" in r else ""))
    print("\nin-place element-wise vs a copy of the same bytes")
    for r in res["bandwidth"]:
        print(f"  {r['workload']:<34} mutograd {r['mutograd_GBps']:8.1f} GB/s"
              + (f" ({r['fraction_of_copy']:.0%} of copy)" if "fraction_of_copy" in r else "")
              + f", {r['allocated_bytes']} B / {r['new_storages']} storages allocated"
              + (f"   torch {r['torch_GBps']:8.1f} GB/s" if "torch_GBps" in r else ""))
    print("\ntraining steps")
    by = {(r["lib"], r["workload"]): r for r in res["steps"]}
    for w in ("MLP step", "GPT step"):
        m, t = by.get(("mutograd", w)), by.get(("torch", w))
        line = f"  {w:<9} mutograd {m['s'] * 1e3:9.2f} ms, peak {_b(m['peak_bytes'])}"
        if t is not None:
            line += (f"   torch {t['s'] * 1e3:9.2f} ms, peak {_b(t['peak_bytes'])}"
                     f"   ratio {m['s'] / t['s']:.2f}x")
        print(line)
    bw = [r for r in res["bandwidth"] if "fraction_of_copy" in r]
    ok_bw = all(r["fraction_of_copy"] >= 0.7 and r["allocated_bytes"] == 0 for r in bw)
    g = by.get(("torch", "GPT step"))
    ok_gpt = g is None or by[("mutograd", "GPT step")]["s"] <= 1.5 * g["s"]
    ok_mem = all(by.get(("torch", w)) is None or by[("torch", w)]["peak_bytes"] is None
                 or by[("mutograd", w)]["peak_bytes"] <= by[("torch", w)]["peak_bytes"]
                 for w in ("MLP step", "GPT step"))
    print(f"\nsummary: in-place >= 70% of copy with 0 bytes: {ok_bw}; GPT step <= 1.5x "
          f"PyTorch: {ok_gpt}; peak memory <= PyTorch: {ok_mem}")


if __name__ == "__main__":
    sys.exit(main())
