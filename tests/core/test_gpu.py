"""GPU tensors: the op table and the guarantees of design.md, run per place.

Every test takes a ``place``: ``fake`` (tests/fake_gpu.py, a NumPy-backed GPU backend that runs
the GPU code paths on any machine; always in CI) and ``gpu`` (a real CUDA device through CuPy,
marked ``gpu`` and skipped cleanly where CuPy or a device is missing). Results are compared with
the same computation on the CPU.
"""
import sys

import numpy as np
import pytest
from tests.helpers import ROOT
from tests.op_db import BASE as OPS

import mutograd as mg
from mutograd import memory

WRITES = ("elementwise", "scan", "linalg")


def _real_gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:   # noqa: BLE001  (no CuPy, no driver, no device: all mean "skip")
        return False


@pytest.fixture(autouse=True)
def _no_gc():
    """Byte counts are compared before and after: no collection of other tests' garbage in
    between (it would free counted storages)."""
    import gc
    gc.disable()
    yield
    gc.enable()


@pytest.fixture(params=["fake", pytest.param("gpu", marks=pytest.mark.gpu)])
def place(request):
    """``'gpu:0'`` on the fake backend or on a real GPU (skipped without one)."""
    if request.param == "gpu":
        if not _real_gpu():
            pytest.skip("no CUDA device with CuPy here (pip install mutograd[gpu])")
        from mutograd.backends import cupy_backend
        cupy_backend.register()
        yield "gpu:0"
        mg.set_device("cpu")
        return
    request.getfixturevalue("fake_gpu")
    yield "gpu:0"


def _host(t):
    return t.cpu().numpy()


def _on(args, where, grad=()):
    out = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            out.append(mg.tensor(a, device=where, requires_grad=i in grad))
        elif isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            out.append([mg.tensor(b, device=where, requires_grad=i in grad) for b in a])
        else:
            out.append(a)
    return out


def _run(info, fn, args, kwargs):
    return info.call(fn, *args, **kwargs) if info.call else fn(*args, **kwargs)


def _parts(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _tol(place):
    """Float64 tolerance against the CPU: identical kernels on the fake backend; CuPy's
    kernels (and cupyx.scipy.special) on a real GPU."""
    return 1e-12 if mg.places.get(place).xp.__name__ == "fake_gpu_xp" else 1e-9


def _select(pred):
    ops = [o for o in OPS if pred(o)]
    return pytest.mark.parametrize("info", ops, ids=[o.id for o in ops])


# ---- the op table on the device -------------------------------------------------------------
@_select(lambda o: True)
def test_op_forward_and_gradient_on_the_device_match_the_cpu(info, place):
    rng = np.random.default_rng(21)
    s = info.draw(rng)
    grad = s.diff if info.grad else ()
    fn = getattr(mg, info.name, None)    # None: the op is reached through info.call
    cpu_ts, dev_ts = _on(s.args, "cpu", grad), _on(s.args, place, grad)
    want = _parts(_run(info, fn, cpu_ts, s.kwargs))
    got = _parts(_run(info, fn, dev_ts, s.kwargs))
    tol = _tol(place)
    for g, w in zip(got, want):
        assert g.place == place, f"{info.id}: result on {g.place}"
        np.testing.assert_allclose(_host(g), w.numpy(), rtol=tol, atol=tol)
    if not grad:
        return
    weights = [rng.standard_normal(tuple(w.shape)) for w in want if w.is_floating_point()]
    for parts, where, ts in ((want, "cpu", cpu_ts), (got, place, dev_ts)):
        loss = sum((p * mg.tensor(w, device=where)).sum()
                   for p, w in zip([p for p in parts if p.is_floating_point()], weights))
        loss.backward()
    for i in grad:
        assert dev_ts[i].grad.place == place
        np.testing.assert_allclose(_host(dev_ts[i].grad), cpu_ts[i].grad.numpy(), rtol=tol,
                                   atol=tol)


@_select(lambda o: o.inplace and o.kind in WRITES)
def test_inplace_on_the_device_allocates_zero_bytes_there_and_equals_out_of_place(info, place):
    s = info.draw(np.random.default_rng(22))
    ts = _on(s.args, place)
    want = _parts(_run(info, getattr(mg, info.name), ts, s.kwargs))[0]
    x = ts[0].clone()
    before = (memory.allocated(place), memory.num_allocations(place),
              memory.num_allocations("cpu"))
    y = _run(info, getattr(mg, info.name + "_"), [x] + ts[1:], s.kwargs)
    after = (memory.allocated(place), memory.num_allocations(place),
             memory.num_allocations("cpu"))
    assert y is x and x.place == place
    # 0 bytes and no storage, on the device and on the host; matmul_ counts its workspace
    # (freed at once) on the device, as it does on the CPU
    assert after == (before[0], before[1] + (info.name == "matmul"), before[2])
    np.testing.assert_allclose(_host(x), _host(want), rtol=1e-12, atol=1e-12)


# ---- the guarantees of design.md on the device --------------------------------------------
def test_views_share_device_memory_by_pointer_and_version_counter(place):
    x = mg.arange(12.0, device=place).reshape(3, 4)
    v = x[1:, ::2]
    assert v.place == place
    assert v.data_ptr() == x.data_ptr() + 4 * x.element_size()
    v.mul_(10)
    assert x._version == v._version == 1
    assert _host(x)[1].tolist() == [40.0, 5.0, 60.0, 7.0]


def test_stale_saved_tensor_names_the_writing_line_on_the_device(place):
    a = mg.randn(3, device=place, requires_grad=True)
    b = a.sin()
    c = b * b
    b.add_(1)   # the write named in the error
    with pytest.raises(mg.VersionError, match=r"test_gpu.py:\d+") as e:
        c.sum().backward()
    assert "version 0" in str(e.value) or "version" in str(e.value)


def test_leaf_rule_and_view_write_rebase_on_the_device(place):
    leaf = mg.ones(3, device=place, requires_grad=True)
    with pytest.raises(mg.InplaceError, match="leaf"):
        leaf.add_(1)
    h = leaf * 2
    h[1:].mul_(3)               # a write through a view rewrites h's history
    h.sum().backward()
    assert leaf.grad.place == place
    assert _host(leaf.grad).tolist() == [2.0, 6.0, 6.0]


def test_overlap_rule_on_the_device(place):
    x = mg.zeros(1, device=place).expand(4)
    with pytest.raises(mg.OverlapError, match="single memory location"):
        x.add_(1)
    y = mg.arange(4.0, device=place)
    y[1:] += y[:-1]              # NumPy's answer: read before the write
    assert _host(y).tolist() == [0.0, 1.0, 3.0, 5.0]


# ---- places, moves, mixed places ----------------------------------------------------------
@pytest.mark.parametrize("spec", ["gpu", "gpu:0", "cuda", "cuda:0", "GPU:0"])
def test_place_names_all_mean_gpu_0(spec, place):
    t = mg.zeros(2, device=spec)
    assert t.place == mg.places.get("gpu:0") and t.is_cuda and str(t.device) == "gpu:0"
    assert mg.zeros(2, place=spec).place is t.place


def test_to_is_differentiable_and_brings_the_gradient_back(place):
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.to(place)
    assert y.grad_fn.name() == "ToCopyBackward0" and y.place == place
    (y * y).sum().backward()
    assert x.grad.place == mg.CPU and x.grad.tolist() == [2.0, 4.0, 6.0]
    g = mg.tensor([1.0, 2.0], device=place, requires_grad=True)
    (g.cpu() * 3).sum().backward()
    assert g.grad.place == place and _host(g.grad).tolist() == [3.0, 3.0]


def test_to_same_place_is_identity_and_cuda_cpu_methods(place):
    t = mg.ones(2, device=place)
    assert t.to(place) is t and t.cuda() is t
    c = t.cpu()
    assert c.place == mg.CPU and not c.is_cuda and c.tolist() == [1.0, 1.0]
    d = t.to(place, mg.float64, non_blocking=True)
    assert d.place == place and d.dtype == mg.float64


MIXED = [
    ("add", lambda g, c: g + c, "add"),
    ("inplace", lambda g, c: g.add_(c), "add"),
    ("matmul", lambda g, c: g.reshape(1, 3) @ c.reshape(3, 1), "matmul"),
    ("cat", lambda g, c: mg.cat([g, c]), "cat"),
    ("out", lambda g, c: mg.add(c, c, out=g), "add"),
]


@pytest.mark.parametrize("name, fn, op", MIXED, ids=[m[0] for m in MIXED])
def test_mixed_places_are_an_error_naming_both_before_any_write(name, fn, op, place):
    g = mg.ones(3, device=place)
    c = mg.ones(3)
    with pytest.raises(mg.PlaceError, match=rf"{op}\(\).*gpu:0 and cpu|{op}\(\).*cpu and gpu:0"):
        fn(g, c)
    assert _host(g).tolist() == [1.0, 1.0, 1.0] and g._version == 0


def test_python_scalars_and_0d_cpu_tensors_mix_with_device_tensors(place):
    g = mg.ones(3, device=place)
    s = mg.tensor(2.0)
    for r in (g * 2, g * s, s * g, g.add_(s)):
        assert r.place == place
    assert _host(g).tolist() == [3.0, 3.0, 3.0]


def test_array_likes_given_with_device_tensors_go_to_the_device(place):
    r = mg.ones(3, device=place) + np.array([1.0, 2.0, 3.0], np.float32)
    assert r.place == place and _host(r).tolist() == [2.0, 3.0, 4.0]


def test_memory_is_counted_per_place(place):
    cpu0, dev0 = memory.allocated("cpu"), memory.allocated(place)
    t = mg.empty(1000, device=place)
    assert memory.allocated("cuda:0") - dev0 == 4000
    assert memory.allocated("cpu") == cpu0        # nothing staged on the host
    assert mg.cuda.memory_allocated() - dev0 == 4000
    del t
    assert memory.allocated(place) == dev0


def test_numpy_on_a_device_tensor_points_to_cpu(place):
    t = mg.ones(2, device=place)
    with pytest.raises(mg.PlaceError, match=r"on gpu:0; copy it first with \.cpu\(\)"):
        t.numpy()
    assert "place=Place(gpu:0)" in repr(t)


def test_factories_and_random_fills_run_on_the_device(place):
    cpu0 = memory.num_allocations("cpu")
    made = [mg.zeros(2, 3, device=place), mg.ones([2], device=place), mg.full([2], 1.5,
            device=place), mg.arange(4, device=place), mg.linspace(0, 1, 5, device=place),
            mg.eye(3, device=place), mg.rand(4, device=place), mg.randn(4, device=place),
            mg.randint(0, 5, [4], device=place), mg.randperm(5, device=place),
            mg.zeros_like(mg.ones(2, device=place)), mg.randn_like(mg.ones(2, device=place))]
    assert memory.num_allocations("cpu") == cpu0, "a factory staged its data on the host"
    assert all(t.place == place for t in made)
    w = mg.empty(1000, device=place)
    w.normal_()
    w.uniform_(0, 1)
    assert w.place == place and 0 <= float(w.min()) and float(w.max()) < 1
    mg.seed(5)
    a = _host(mg.randn(8, device=place))
    mg.seed(5)
    assert (_host(mg.randn(8, device=place)) == a).all()   # manual_seed seeds every place


def test_set_default_device_sends_new_tensors_there(place):
    assert mg.set_default_device("cuda") == place
    assert mg.zeros(2).place == place and mg.tensor([1.0]).place == place
    assert mg.get_device() == "gpu:0"
    mg.set_device("cpu")
    assert mg.zeros(2).place == mg.CPU


# ---- nn and optim -------------------------------------------------------------------------
def _model_and_optimizer():
    mg.seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 1))
    return model, mg.optim.Adam(model.parameters(), lr=1e-2)


def _step(model, opt, x, y):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    return float(loss)


def test_model_to_cuda_keeps_parameter_objects_and_the_optimizer_works(place):
    model, opt = _model_and_optimizer()
    ref, ref_opt = _model_and_optimizer()        # the same run, all on the CPU
    params = list(model.parameters())
    x, y = mg.randn(16, 4), mg.randn(16, 1)
    _step(model, opt, x, y)                      # optimizer state made on the CPU
    _step(ref, ref_opt, x, y)
    assert model.to("cuda") is model
    assert list(model.parameters()) == params and all(p.place == place for p in params)
    assert all(p.grad.place == place for p in params)
    xs, ys = x.to(place), y.to(place)
    losses = [_step(model, opt, xs, ys) for _ in range(3)]
    ref_losses = [_step(ref, ref_opt, x, y) for _ in range(3)]
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for p, r in zip(params, ref.parameters()):
        assert all(v.place == place for v in opt.state[p].values() if isinstance(v, mg.Tensor))
        np.testing.assert_allclose(_host(p), r.numpy(), rtol=1e-5, atol=1e-6)
    model.cpu()
    assert all(p.place == mg.CPU for p in params)
    _step(model, opt, x, y)                      # and back: state follows again


def test_checkpoint_saved_on_the_device_loads_on_the_cpu_and_back(place, tmp_path):
    model = mg.nn.Linear(3, 2).to(place)
    path = tmp_path / "ck.safetensors"
    mg.save(model.state_dict(), path, format="npz")
    same = mg.load(path)
    assert all(t.place == place for t in same.values())
    host = mg.load(path, map_location="cpu")
    assert all(t.place == mg.CPU for t in host.values())
    mapped = mg.load(path, map_location={"cuda:0": "cpu"})
    assert all(t.place == mg.CPU for t in mapped.values())
    for k, t in model.state_dict().items():
        np.testing.assert_array_equal(host[k].numpy(), _host(t))
    back = mg.nn.Linear(3, 2).to(place)
    back.load_state_dict(host)    # CPU values into device parameters
    assert all(p.place == place for p in back.parameters())
    np.testing.assert_array_equal(_host(back.weight), _host(model.weight))


def test_dropout_and_init_on_the_device(place):
    lin = mg.nn.Linear(5, 5).to(place)
    mg.nn.init.xavier_uniform_(lin.weight)
    assert lin.weight.place == place
    d = mg.nn.functional.dropout(mg.ones(100, device=place), p=0.5, training=True)
    assert d.place == place and set(np.unique(_host(d))) <= {0.0, 2.0}


# ---- the errors that tell users how to get a GPU ------------------------------------------
def test_no_cupy_is_a_place_error_saying_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    mg.places.unregister_backend("gpu")
    assert not mg.cuda.is_available() and mg.cuda.device_count() == 0
    for spec in ("cuda", "gpu:0"):
        with pytest.raises(mg.PlaceError, match=r"CuPy is not installed.*pip install "
                           r"mutograd\[gpu\].*cupy-cuda12x"):
            mg.zeros(2, device=spec)
    assert "cupy" not in [m for m in sys.modules if sys.modules[m] is not None]


def test_no_visible_device_and_bad_index_are_place_errors(fake_gpu):
    fake_gpu.register(count=0)
    with pytest.raises(mg.PlaceError, match="no CUDA device is visible.*nvidia-smi"):
        mg.zeros(2, device="cuda")
    fake_gpu.register(count=2)
    with pytest.raises(mg.PlaceError, match=r"gpu:5 was requested but only 2 device\(s\)"):
        mg.zeros(2, device="cuda:5")


def test_two_devices_are_two_places(fake_gpu):
    a, b = mg.ones(2, device="gpu:0"), mg.ones(2, device="gpu:1")
    assert a.place != b.place
    with pytest.raises(mg.PlaceError, match="gpu:0 and gpu:1"):
        a + b
    c = a.to("cuda:1")
    assert c.place == "gpu:1" and memory.allocated("gpu:1") >= 8


def test_import_never_imports_cupy():
    import subprocess
    code = "import sys, mutograd; print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_compat_torch_and_paddle_device_api(place):
    from mutograd.compat import paddle, torch
    dev = torch.device("cuda", 0)
    assert str(dev) == "cuda:0" and repr(dev) == "device(type='cuda', index=0)"
    assert torch.cuda.is_available() and torch.cuda.device_count() >= 1
    t = torch.zeros(3, device=dev)
    assert t.is_cuda and t.device == "gpu:0" and t.device == dev and t.device.type == "cuda"
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    u = torch.ones(256, device="cuda")
    assert torch.cuda.memory_allocated() - base == 1024
    assert torch.cuda.max_memory_allocated() >= base + 1024
    del u
    torch.cuda.empty_cache()
    torch.cuda.synchronize()
    torch.cuda.manual_seed_all(3)
    assert paddle.is_compiled_with_cuda()
    assert paddle.CUDAPlace(0) == place and paddle.CPUPlace() == "cpu"
    paddle.set_device("gpu")
    assert paddle.get_device() == "gpu:0" and paddle.zeros([2]).place == place
    assert paddle.device.cuda.memory_allocated() >= 8
    paddle.set_device("cpu")


def test_hook_on_a_device_tensor_sees_its_gradient_there(place):
    x = mg.ones(3, device=place, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.place))
    (x * 2).sum().backward()
    assert seen == [mg.places.get(place)] and x.grad.place == place


def test_dlpack_with_numpy_shares_memory():
    a = np.arange(4.0)
    t = mg.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data
    b = np.from_dlpack(t)
    assert b.ctypes.data == a.ctypes.data
    with pytest.raises(AttributeError, match="only on GPU tensors"):
        _ = t.__cuda_array_interface__


# ---- real GPU only: CuPy interop ----------------------------------------------------------
@pytest.mark.gpu
def test_cupy_dlpack_and_cuda_array_interface_share_memory():
    if not _real_gpu():
        pytest.skip("no CUDA device with CuPy here")
    import cupy
    a = cupy.arange(6, dtype=cupy.float32)
    t = mg.from_dlpack(a)
    assert t.place == "gpu:0" and t.data_ptr() == a.data.ptr
    b = cupy.from_dlpack(t)
    assert b.data.ptr == a.data.ptr
    c = cupy.asarray(t)          # through __cuda_array_interface__
    assert c.data.ptr == a.data.ptr
    t.mul_(2)
    assert float(a[1]) == 2.0
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        tt = torch.from_dlpack(t)
        assert tt.data_ptr() == a.data.ptr
        back = mg.from_dlpack(torch.ones(3, device="cuda"))
        assert back.place == "gpu:0"


def test_demo_trains_on_the_device(fake_gpu, tmp_path, capsys):
    from mutograd.cli import demo
    n0 = memory.num_allocations("gpu:0")
    assert demo.main(["--quick", "--epochs", "1", "--device", "cuda", "--out",
                      str(tmp_path), "--blas-threads", "0"]) == 0
    out = capsys.readouterr().out
    assert "trained twice from seed 0 on gpu:0" in out and "(the same)" in out
    assert memory.num_allocations("gpu:0") - n0 > 100     # the training ran on the device


def test_demo_without_cupy_says_how_to_get_it(monkeypatch, tmp_path):
    from mutograd.cli import demo
    monkeypatch.setitem(sys.modules, "cupy", None)
    mg.places.unregister_backend("gpu")
    with pytest.raises(mg.PlaceError, match=r"pip install mutograd\[gpu\]"):
        demo.main(["--quick", "--device", "gpu", "--out", str(tmp_path)])


def test_gpu_benchmark_runs_on_the_device(fake_gpu, capsys):
    import importlib.util
    path = ROOT / "benchmarks" / "gpu.py"
    spec = importlib.util.spec_from_file_location("gpu_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--device", "cuda", "--quick", "--no-torch", "--elements", "4096"]) == 0
    out = capsys.readouterr().out
    assert '"device": "gpu:0"' in out and "0 B / 0 storages allocated" in out
    assert out.count("0 B / 0 storages allocated") == 3      # copy, relu_, the chain


def test_memory_stats_of_a_gpu_include_the_pool(place):
    t = mg.ones(4, device=place)
    st = memory.stats("gpu:0")
    assert st["allocated_bytes.current"] >= t.nbytes and "pool_used_bytes" in st


def _surface_rows():
    from tests.op_db import SURFACE
    return pytest.mark.parametrize("info", SURFACE,
                                   ids=[f"{o.name}-{i}" for i, o in enumerate(SURFACE)])


def _surface_call(info, fn, ts):
    return info.call(fn, *ts, **info.attrs) if info.call else fn(*ts, **info.attrs)


@_surface_rows()
def test_inplace_surface_on_the_device_matches_the_cpu_with_zero_bytes(info, place):
    rng = np.random.default_rng(31)
    arrays = info.draw(rng).args
    cpu = [mg.tensor(a) for a in arrays]
    dev = [mg.tensor(a, device=place) for a in arrays]
    _surface_call(info, getattr(mg, info.name + "_"), cpu)
    before = memory.allocated(place), memory.num_allocations(place)
    assert _surface_call(info, getattr(mg, info.name + "_"), dev) is dev[0]
    after = memory.allocated(place), memory.num_allocations(place)
    assert after == (before[0], before[1] + (1 if info.workspace else 0))
    assert dev[0].place == place and dev[0]._version == 1
    tol = _tol(place)
    np.testing.assert_allclose(_host(dev[0]), cpu[0].numpy(), rtol=tol, atol=tol)


def test_a_0d_cpu_tensor_gets_its_gradient_on_the_cpu(place):
    s = mg.tensor(3.0, requires_grad=True)
    g = mg.ones(4, device=place, requires_grad=True)
    (g * s).sum().backward()
    assert s.grad.place == mg.CPU and float(s.grad) == 4.0
    assert g.grad.place == place and _host(g.grad).tolist() == [3.0] * 4


def test_default_device_makes_modules_there(place):
    mg.set_default_device("cuda")
    mods = [mg.nn.Linear(3, 4), mg.nn.LayerNorm(4), mg.nn.Embedding(5, 4)]
    assert all(t.place == place for m in mods for t in list(m.parameters()) + list(m.buffers()))
    assert mods[0](mg.randn(2, 3)).place == place


def test_the_fake_device_refuses_host_arrays_as_cupy_does(fake_gpu):
    t = mg.ones(3, device="gpu")
    assert type(t._data) is fake_gpu.DevArray
    for leak in (lambda: t._data + np.ones(3), lambda: np.multiply(t._data, np.ones(3)),
                 lambda: np.concatenate([t._data, np.ones(3)])):
        with pytest.raises(TypeError, match="fake GPU: host array of shape"):
            leak()
    assert type((t * 2).exp()._data) is fake_gpu.DevArray


# ---- real GPU only: every random function of a tensor draws there ------------------------
def _random_cases():
    """(name, shape, function, differentiable) of the device tests that run on the fake device
    (the fake draws the CPU's stream, so those compare with the CPU; CuPy's stream differs)."""
    from tests.compat import test_compat_random_on_device
    from tests.core import test_dropout_on_device, test_random_on_device
    cases = []
    for module in (test_dropout_on_device, test_random_on_device, test_compat_random_on_device):
        for name, case in module.CASES.items():
            if len(case) == 3:                 # (ndim, function, differentiable)
                ndim, f, differentiable = case
            elif callable(case[0]):            # (function, differentiable)
                (f, differentiable), ndim = case, len(module.SHAPE)
            else:                              # (ndim, function): the dropouts
                (ndim, f), differentiable = case, True
            cases.append((name, module.SHAPE[:ndim], f, differentiable))
    return cases


@pytest.mark.gpu
@pytest.mark.parametrize("case", _random_cases(), ids=lambda c: c[0])
def test_random_functions_draw_on_a_real_gpu(case):
    if not _real_gpu():
        pytest.skip("no CUDA device with CuPy here")
    from mutograd.backends import cupy_backend
    cupy_backend.register()
    name, shape, f, differentiable = case
    a = np.random.default_rng(1).uniform(-1.5, 1.5, shape)
    x = mg.tensor(a, device="gpu:0", requires_grad=True)
    mg.seed(5)
    out = f(x)
    assert str(out.place) == "gpu:0"
    assert np.isfinite(out.detach().cpu().numpy().astype(np.float64)).all()
    if differentiable:
        out.sum().backward()
        assert str(x.grad.place) == "gpu:0" and tuple(x.grad.shape) == a.shape
