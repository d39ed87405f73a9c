"""Weights from other tools: files written by real PyTorch, Paddle and safetensors
(tests/references/interop/, made by tests/references/make_interop_files.py), hostile pickles,
and files written for other tools. Only the tests marked ``torch`` need PyTorch."""
import io
import os
import pickle
import re
import subprocess
import warnings
import zipfile

import numpy as np
import pytest
from tests.helpers import REFERENCES

import mutograd as mg
from mutograd import nn
from mutograd.serialization.checkpoint import CheckpointError

DATA = os.path.join(REFERENCES, "interop")


def _file(name):
    return os.path.join(DATA, name)


def _expected(name):
    with np.load(_file(name)) as z:
        return {k: z[k] for k in z.files}


TORCH = _expected("expected_torch.npz")
PADDLE = _expected("expected_paddle.npz")


def _load_quietly(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return mg.load(path, **kw)


def _get(obj, dotted):
    if isinstance(obj, dict) and dotted in obj:   # a state_dict's own dotted names
        return obj[dotted]
    for part in dotted.split("."):
        obj = obj[int(part)] if isinstance(obj, (list, tuple)) else obj[part]
    return obj


# ---- files written by the real tools -------------------------------------------------------
def _torch_cnn():
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8, 3))


@pytest.mark.parametrize("name", ["torch_cnn.pt", "torch_cnn.safetensors"])
def test_a_pytorch_state_dict_loads_into_the_same_mutograd_model(name):
    net = _torch_cnn()
    sd = mg.load(_file(name))
    assert sorted(sd) == sorted(k.split("::")[1] for k in TORCH if k.startswith(name + "::")
                                and not k.endswith(("::input", "::output")))
    net.load_state_dict(sd)
    net.eval()
    out = net(mg.tensor(TORCH[f"{name}::input"]))
    np.testing.assert_allclose(out.numpy(), TORCH[f"{name}::output"], rtol=1e-5, atol=1e-6)
    assert net[1].num_batches_tracked.item() == 1


def test_a_paddle_state_dict_loads_into_the_same_paddle_dialect_model():
    import mutograd.compat.paddle as paddle
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.BatchNorm1D(4),
                               paddle.nn.ReLU(), paddle.nn.Linear(4, 2))
    sd = paddle.load(_file("paddle_mlp.pdparams"))
    assert "StructuredToParameterName@@" not in sd
    net.set_state_dict(sd)
    net.eval()
    out = net(paddle.to_tensor(PADDLE["paddle_mlp.pdparams::input"]))
    np.testing.assert_allclose(out.numpy(), PADDLE["paddle_mlp.pdparams::output"], rtol=1e-5,
                               atol=1e-6)


# (file, key in the loaded object, key in the expected values, mutograd dtype)
VALUES = [
    ("torch_mixed.pt", "tensors.f32", "f32", "float32"),
    ("torch_mixed.pt", "tensors.f64", "f64", "float64"),
    ("torch_mixed.pt", "tensors.f16", "f16", "float16"),
    ("torch_mixed.pt", "tensors.bf16", "bf16", "float32"),
    ("torch_mixed.pt", "tensors.i64", "i64", "int64"),
    ("torch_mixed.pt", "tensors.i32", "i32", "int32"),
    ("torch_mixed.pt", "tensors.i16", "i16", "int16"),
    ("torch_mixed.pt", "tensors.i8", "i8", "int8"),
    ("torch_mixed.pt", "tensors.u8", "u8", "uint8"),
    ("torch_mixed.pt", "tensors.bool", "bool", "bool"),
    ("torch_mixed.pt", "tensors.u16", "u16", "int32"),
    ("torch_mixed.pt", "tensors.c64", "c64", "complex64"),
    ("torch_mixed.pt", "tensors.scalar", "scalar", "float32"),
    ("torch_mixed.pt", "tensors.empty", "empty", "float32"),
    ("torch_mixed.pt", "tensors.transposed", "transposed", "float32"),
    ("torch_mixed.pt", "tensors.slice", "slice", "float32"),
    ("torch_mixed.pt", "tensors.conj", "conj", "complex64"),
    ("torch_mixed.pt", "tensors.param", "param", "float32"),
    ("torch_mixed.pt", "shared.1", "shared", "float32"),
    ("torch_dtypes.safetensors", "bf16", "bf16", "float32"),
    ("torch_dtypes.safetensors", "f16", "f16", "float16"),
    ("torch_dtypes.safetensors", "u16", "u16", "int32"),
    ("torch_dtypes.safetensors", "u32", "u32", "int64"),
    ("torch_dtypes.safetensors", "f8_e4m3", "f8_e4m3", "float32"),
    ("torch_dtypes.safetensors", "f8_e5m2", "f8_e5m2", "float32"),
    ("torch_dtypes.safetensors", "bool", "bool", "bool"),
    ("numpy.safetensors", "embed.weight", "embed.weight", "float32"),
    ("numpy.safetensors", "head.bias", "head.bias", "float64"),
    ("numpy.safetensors", "count", "count", "int64"),
    ("numpy.safetensors", "mask", "mask", "bool"),
    ("numpy.safetensors", "half", "half", "float16"),
    ("paddle_mixed.pdparams", "bf16", "bf16", "float32"),
    ("paddle_mixed.pdparams", "f16", "f16", "float16"),
    ("paddle_mixed.pdparams", "i64", "i64", "int64"),
    ("paddle_mixed.pdparams", "bool", "bool", "bool"),
    ("paddle_mixed.pdparams", "nested.w", "w", "float32"),
    ("paddle_mixed.pdparams", "lst.0", "w", "float32"),
]


@pytest.mark.parametrize("name,key,ref,dtype", VALUES, ids=[f"{v[0]}:{v[1]}" for v in VALUES])
def test_values_dtypes_and_shapes_as_the_writer_stored_them(name, key, ref, dtype):
    expected = (TORCH if name.startswith(("torch", "numpy")) else PADDLE)[f"{name}::{ref}"]
    t = _get(_load_quietly(_file(name)), key)
    assert isinstance(t, mg.Tensor) and t.dtype == getattr(mg, dtype)
    assert t.shape == list(expected.shape)
    np.testing.assert_array_equal(t.numpy(), expected.astype(t.numpy().dtype))
    with mg.no_grad():   # a writable array of its own
        t.add_(1) if dtype != "bool" else t.logical_not_()


def test_the_paddle_optimizer_state_loads():
    st = mg.load(_file("paddle_mlp.pdopt"))
    ref = {k.split("::")[1]: v for k, v in PADDLE.items() if k.startswith("paddle_mlp.pdopt::")}
    assert ref and set(ref) <= set(st)
    for k, v in ref.items():
        np.testing.assert_array_equal(st[k].numpy(), v)


def test_arrays_paddle_cut_into_slices_are_joined(tmp_path):
    # paddle.save with protocol 2 or 3 cuts arrays over 1 GiB into "<name>@@.<i>" slices
    w = np.arange(10, dtype=np.float32).reshape(2, 5)
    saved = {"w@@.0": w.reshape(-1)[:6], "w@@.1": w.reshape(-1)[6:], "b": np.ones(2),
             "UnpackBigParamInfor@@": {"w": {"OriginShape": (2, 5),
                                              "slices": ["w@@.0", "w@@.1"]}}}
    (tmp_path / "big.pdparams").write_bytes(pickle.dumps(saved, protocol=2))
    d = mg.load(tmp_path / "big.pdparams")
    assert sorted(d) == ["b", "w"] and d["w"].tolist() == w.tolist()


def test_values_other_than_tensors_in_a_pytorch_file():
    d = _load_quietly(_file("torch_mixed.pt"))
    assert (d["epoch"], d["lr"], d["name"], d["none"]) == (3, 0.5, "mixed", None)
    assert d["flags"] == [True, False] and d["pair"] == (1, "two")
    assert tuple(d["size"]) == (2, 3) and d["dtype"] == mg.float16
    p = d["tensors"]["param"]
    assert isinstance(p, nn.Parameter) and p.requires_grad
    assert not d["tensors"]["f32"].requires_grad
    # the values of the storage two tensors shared, each tensor a copy of its own
    np.testing.assert_array_equal(d["shared"][1].numpy(), d["shared"][0].numpy()[0])
    d["shared"][1].add_(1)
    assert d["shared"][0][0].tolist() == [0, 0.25, 0.5, 0.75]


@pytest.mark.parametrize("name,widened", [
    ("torch_mixed.pt", ["bfloat16 tensors read as float32 .*: tensors.bf16$",
                        "uint16 tensors read as int32 .*: tensors.u16$"]),
    ("torch_dtypes.safetensors", ["bfloat16 tensors read as float32 .*: bf16$",
                                  "float8_e4m3fn tensors read as float32 .*: f8_e4m3$",
                                  "float8_e5m2 tensors read as float32 .*: f8_e5m2$",
                                  "uint32 tensors read as int64 .*: u32$"]),
    ("paddle_mixed.pdparams", ["bfloat16 tensors read as float32 .*: bf16$"]),
    ("torch_cnn.pt", []),
])
def test_widening_is_announced_with_the_tensors_names(name, widened):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mg.load(_file(name))
    messages = [str(w.message) for w in caught]
    assert all(m.startswith(_file(name)) for m in messages)
    for pattern in widened:
        assert any(__import__("re").search(pattern, m) for m in messages), (pattern, messages)
    assert len(messages) >= len(widened) and (widened or not messages)


@pytest.mark.parametrize("name,msg", [
    ("torch_legacy.pt", r"legacy format \(before PyTorch 1\.6\).*torch\.save\(torch\.load\("
                        r"path\), path\).*safetensors\.torch\.save_file"),
    ("torch_module.pt", r"refused to load the global torch\.nn\.modules\.linear\.Linear: it "
                        r"pickles a whole object.*model\.state_dict\(\)"),
    ("torch_script.pt", r"TorchScript archive \(torch\.jit\.save\).*state_dict\(\)"),
])
def test_pytorch_files_that_are_more_than_weights_are_refused_with_the_way_out(name, msg):
    with pytest.raises(CheckpointError, match=msg):
        mg.load(_file(name))


def test_the_pytorch_namespace_loads_pytorch_files():
    import mutograd.compat.torch as torch
    sd = torch.load(_file("torch_cnn.pt"), map_location="cpu", weights_only=True)
    np.testing.assert_array_equal(sd["4.bias"].numpy(), TORCH["torch_cnn.pt::4.bias"])
    sd = torch.load(_file("torch_cnn.pt"), map_location=torch.device("cpu"), weights_only=False)
    assert sd["0.weight"].shape == [2, 1, 3, 3]


@pytest.mark.parametrize("fmt", ["npz", "torch", "paddle"])
def test_save_into_an_open_file(fmt):
    buf = io.BytesIO()
    mg.save({"w": mg.arange(3)}, buf, format=fmt)
    buf.seek(0)
    assert mg.load(buf)["w"].tolist() == [0, 1, 2]


def test_an_open_file_loads_too():
    with open(_file("torch_cnn.pt"), "rb") as f:
        sd = mg.load(f)
    np.testing.assert_array_equal(sd["4.bias"].numpy(), TORCH["torch_cnn.pt::4.bias"])
    with pytest.raises(CheckpointError, match="<file object>: refused to load the global "
                                              "builtins.eval"):
        mg.load(io.BytesIO(pickle.dumps(_Reduce(eval, "1"))))


def test_map_location_moves_foreign_weights(fake_gpu):
    sd = mg.load(_file("torch_cnn.pt"), map_location="cuda:0")
    assert all(t.place == "gpu:0" for t in sd.values())
    sd = mg.load(_file("numpy.safetensors"), map_location="gpu:0")
    assert sd["count"].place == "gpu:0" and sd["count"].item() == 7


def _saved_on(tmp_path, location):
    """A PyTorch file whose tensor was saved on ``location``."""
    p = tmp_path / "w.pt"
    mg.save({"w": mg.ones([2])}, p, format="torch")
    src = zipfile.ZipFile(p)
    records = {n: src.read(n) for n in src.namelist()}
    cpu, there = b"cpu", location.encode()
    pkl = records["archive/data.pkl"]
    old = b"X" + len(cpu).to_bytes(4, "little") + cpu
    assert pkl.count(old) == 1
    records["archive/data.pkl"] = pkl.replace(old, b"X" + len(there).to_bytes(4, "little") + there)
    with zipfile.ZipFile(p, "w") as z:
        for n, data in records.items():
            z.writestr(n, data)
    return p


def test_tensors_saved_on_a_gpu_follow_map_location(tmp_path, fake_gpu):
    p = _saved_on(tmp_path, "cuda:0")
    assert mg.load(p)["w"].place == "gpu:0"
    for where in ("cpu", {"cuda:0": "cpu"}, {"gpu:0": "cpu"}):
        assert mg.load(p, map_location=where)["w"].place == "cpu"
    # PyTorch's map_location functions: the storage moved (or not), or None to keep it
    seen = []
    for fn, place in [(lambda storage, loc: seen.append(loc) or storage, "gpu:0"),
                      (lambda storage, loc: storage.cpu(), "cpu"),
                      (lambda storage, loc: storage.cuda(1), "gpu:1"),
                      (lambda storage, loc: storage.cuda("cuda:1"), "gpu:1"),
                      (lambda storage, loc: storage.to("cpu"), "cpu"),
                      (lambda storage, loc: None, "gpu:0")]:
        assert mg.load(p, map_location=fn)["w"].place == place
    assert seen == ["cuda:0"]
    with pytest.raises(TypeError, match="map_location returned a str"):
        mg.load(p, map_location=lambda storage, loc: "cpu")
    fake_gpu.register(count=0)
    with pytest.raises(mg.PlaceError, match="no CUDA device.*saved on gpu:0; load it with "
                                            "map_location='cpu'"):
        mg.load(p)
    assert mg.load(_saved_on(tmp_path, "mps"))["w"].place == "cpu"


def test_the_module_examples_run():
    import doctest
    from mutograd.serialization import interop
    result = doctest.testmod(interop, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---- hostile pickles -----------------------------------------------------------------------
class _Reduce:
    """An object whose unpickling calls ``func(*args)``."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _call_pickle(module, name, arg, protocol=2):
    """The bytes of a pickle calling ``module.name(arg)`` (GLOBAL or STACK_GLOBAL)."""
    a = arg.encode()
    if protocol == 2:
        head = b"\x80\x02c" + f"{module}\n{name}\n".encode()
    else:
        m, n = module.encode(), name.encode()
        head = b"\x80\x04\x8c" + bytes([len(m)]) + m + b"\x8c" + bytes([len(n)]) + n + b"\x93"
    return head + b"X" + len(a).to_bytes(4, "little") + a + b"\x85R."


def _torch_zip(pkl):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/version", b"3\n")
    return buf.getvalue()


def _payloads(marker):
    touch = f"open({str(marker)!r}, 'w').close()"
    return {
        "os.system": (pickle.dumps(_Reduce(os.system, f"touch {marker}"), protocol=2),
                      r"the global posix\.system"),
        "os.system, protocol 4": (pickle.dumps(_Reduce(os.system, f"touch {marker}"),
                                               protocol=4), r"the global posix\.system"),
        "builtins.eval": (pickle.dumps(_Reduce(eval, touch)), r"the global builtins\.eval"),
        "subprocess": (pickle.dumps(_Reduce(subprocess.call, ["touch", str(marker)])),
                       r"the global subprocess\.call"),
        "nested in a dict": (pickle.dumps({"weight": np.ones(3, np.float32),
                                           "extra": [{"x": _Reduce(os.system,
                                                                   f"touch {marker}")}]}),
                             r"the global posix\.system"),
        "allowed module, other name": (_call_pickle("builtins", "exec", touch),
                                       r"the global builtins\.exec"),
        "numpy, other name": (_call_pickle("numpy", "load", str(marker)),
                              r"the global numpy\.load"),
        "torch._utils, other name": (_call_pickle("torch._utils", "_import_dotted_name", "os"),
                                     r"the global torch\._utils\._import_dotted_name"),
        "dotted name": (_call_pickle("collections", "OrderedDict.__class__", "x", protocol=4),
                        r"the global collections\.OrderedDict\.__class__"),
        "in a PyTorch archive": (_torch_zip(pickle.dumps(_Reduce(os.system,
                                                                 f"touch {marker}"))),
                                 r"the global posix\.system"),
        "INST in a PyTorch archive": (_torch_zip(f"(S'touch {marker}'\nios\nsystem\n.".encode()),
                                      r"the pickle opcode INST makes an instance of a class"),
        "numpy.ndarray called directly": (
            b"\x80\x02cnumpy\nndarray\n(K\x64\x85cnumpy\ndtype\nX\x02\x00\x00\x00f8\x85RC"
            b"\x08aaaaaaaatR.", r"refused to call <numpy class numpy\.ndarray>"),
        "nested too deeply": (b"\x80\x02" + b"]" * 50000 + b"a" * 49999 + b".",
                              "containers nested more than 200 deep"),
        "state set on a set": (b"\x80\x02c__builtin__\nset\n)R}X\x01\x00\x00\x00aK\x01sb.",
                               "refused to set the state of a set"),
    }


PAYLOADS = list(_payloads("m"))


@pytest.mark.parametrize("which", PAYLOADS)
def test_a_hostile_pickle_is_refused_before_anything_runs(tmp_path, which):
    marker = tmp_path / "ran"
    data, msg = _payloads(marker)[which]
    path = tmp_path / "weights.pt"
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match=f"{path}: .*{msg}"):
        mg.load(path)
    assert not marker.exists()


@pytest.mark.parametrize("which", ["os.system", "builtins.eval", "subprocess",
                                   "nested in a dict"])
def test_the_hostile_payloads_do_run_under_plain_pickle(tmp_path, which):
    marker = tmp_path / "ran"
    pickle.loads(_payloads(marker)[which][0])   # what the test above keeps from happening
    assert marker.exists()


def test_damaged_pytorch_files_are_reported(tmp_path):
    good = open(_file("torch_cnn.pt"), "rb").read()
    p = tmp_path / "w.pt"
    p.write_bytes(good[:len(good) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        mg.load(p)
    # a flipped byte in a record: the zip's CRC-32 catches it
    data = bytearray(good)
    pos = data.find(TORCH["torch_cnn.pt::4.bias"].tobytes())
    data[pos + 1] ^= 0x40
    p.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="truncated or corrupted.*CRC"):
        mg.load(p)
    # a storage shorter than its tensor claims
    src = zipfile.ZipFile(io.BytesIO(good))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n in src.namelist():
            data = src.read(n)
            z.writestr(n, data[:8] if n.endswith("/data/0") else data)
    p.write_bytes(buf.getvalue())
    with pytest.raises(CheckpointError, match="the storage record '0' holds 8 bytes, its id "
                                              "says 18 float32 elements"):
        mg.load(p)


def _safetensors_file(header, body):
    import json
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    return len(h).to_bytes(8, "little") + h + body


_F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
# what the safetensors library refuses (and so mutograd), why, and mutograd's reason if it sees
# the problem first
LAX_SAFETENSORS = {
    "short data": ({"w": {**_F32, "shape": [4]}}, bytes(8), "invalid shape, data type, or offset"),
    "offsets past the data": ({"w": {**_F32, "data_offsets": [0, 64]}}, bytes(8),
                              "invalid shape, data type, or offset"),
    "no offsets": ({"w": {"dtype": "F32", "shape": [2]}}, bytes(8),
                   "missing field `data_offsets`"),
    "same name twice": (b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                        b'"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}', bytes(16),
                        "invalid offset", "the name 'w' appears twice"),
    "overlapping": ({"a": _F32, "b": {**_F32, "data_offsets": [4, 12]}}, bytes(12),
                    "invalid offset"),
    "a gap": ({"a": _F32, "b": {**_F32, "shape": [1], "data_offsets": [12, 16]}}, bytes(16),
              "invalid offset"),
    "a float shape": ({"w": {**_F32, "shape": [2.0]}}, bytes(8), "invalid type: floating point"),
    "a string shape": ({"w": {**_F32, "shape": ["2"]}}, bytes(8), "invalid type: string"),
    "a bool shape": ({"w": {**_F32, "shape": [True], "data_offsets": [0, 4]}}, bytes(4),
                     "invalid type: boolean"),
    "trailing bytes": ({"w": _F32}, bytes(12), "file not fully covered"),
    "a huge shape": ({"w": {**_F32, "shape": [2 ** 62, 4]}}, bytes(8), "overflow"),
}


@pytest.mark.parametrize("which", list(LAX_SAFETENSORS))
def test_what_the_safetensors_library_refuses_is_refused(tmp_path, which):
    st = pytest.importorskip("safetensors")
    header, body, reason, *ours = LAX_SAFETENSORS[which]
    data = _safetensors_file(header, body)
    with pytest.raises(st.SafetensorError, match=re.escape(reason)):
        st.deserialize(data)
    p = tmp_path / "w.safetensors"
    p.write_bytes(data)
    msg = ours[0] if ours else f"not a valid safetensors file: .*{re.escape(reason)}"
    with pytest.raises(CheckpointError, match=f"{p}.*{msg}") as e:
        mg.load(p)
    assert ours or isinstance(e.value.__cause__, st.SafetensorError)


@pytest.mark.parametrize("header,body,msg", [
    # the library accepts these; mutograd refuses them, saying why
    (b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
     b'"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', bytes(8),
     "the name 'w' appears twice in the safetensors header"),
    ({"w": {"dtype": "F4", "shape": [16], "data_offsets": [0, 8]}}, bytes(8),
     "the tensor 'w' has the dtype 'F4', which mutograd cannot read"),
])
def test_safetensors_files_mutograd_refuses_although_the_library_reads_them(tmp_path, header,
                                                                            body, msg):
    st = pytest.importorskip("safetensors")
    data = _safetensors_file(header, body)
    st.deserialize(data)
    p = tmp_path / "w.safetensors"
    p.write_bytes(data)
    with pytest.raises(CheckpointError, match=msg):
        mg.load(p)


# ---- plain npz -----------------------------------------------------------------------------
def test_a_plain_npz_archive_loads_and_object_arrays_are_refused(tmp_path):
    np.savez(tmp_path / "w.npz", w=np.arange(6.0).reshape(2, 3), n=np.array(3))
    d = mg.load(tmp_path / "w.npz")
    assert list(d) == ["w", "n"] and d["w"].dtype == mg.float64 and d["n"].item() == 3
    np.savez(tmp_path / "o.npz", a=np.array([object()], dtype=object))
    with pytest.raises(CheckpointError, match=r"the record 'a.npy' has the dtype '\|O', which "
                                              r"mutograd cannot read"):
        mg.load(tmp_path / "o.npz")


# ---- files for other tools -----------------------------------------------------------------
def _model_and_state():
    net = _torch_cnn()
    net(mg.randn([4, 1, 4, 4]))
    return net, net.state_dict()


@pytest.mark.parametrize("fmt", ["torch", "paddle"])
def test_files_written_for_other_tools_read_back(tmp_path, fmt):
    net, sd = _model_and_state()
    obj = {"model": sd, "step": 5, "names": ["a", None], "arr": np.arange(3, dtype=np.int32),
           "pair": (1.5, True)}
    p = tmp_path / "w"
    mg.save(obj, p, format=fmt)
    back = mg.load(p)
    assert list(back["model"]) == list(sd)
    for k, v in sd.items():
        assert back["model"][k].dtype == v.dtype
        np.testing.assert_array_equal(back["model"][k].numpy(), v.numpy())
    assert back["step"] == 5 and back["names"] == ["a", None] and back["pair"] == (1.5, True)
    assert back["arr"].tolist() == [0, 1, 2] and back["arr"].dtype == mg.int32
    with pytest.raises(TypeError, match="cannot write a object"):
        mg.save({"f": object()}, p, format=fmt)


def test_a_state_dict_saved_as_safetensors_is_a_plain_file(tmp_path):
    stn = pytest.importorskip("safetensors.numpy")
    from safetensors import safe_open
    _, sd = _model_and_state()
    mg.save(sd, tmp_path / "m.safetensors")
    plain = stn.load_file(tmp_path / "m.safetensors")
    assert sorted(plain) == sorted(sd)
    for k, v in sd.items():
        np.testing.assert_array_equal(plain[k], v.numpy())
    with safe_open(tmp_path / "m.safetensors", "np") as f:
        assert f.metadata()["format"] == "pt"


def test_torch_file_layout(tmp_path):
    mg.save({"w": mg.ones([2, 3]).t()}, tmp_path / "w.pt", format="torch")
    z = zipfile.ZipFile(tmp_path / "w.pt")
    assert z.namelist()[0] == "archive/data.pkl"
    assert z.read("archive/byteorder") == b"little" and z.read("archive/version") == b"3\n"
    for info in z.infolist():   # records start at 64-byte boundaries, as torch.save aligns them
        assert (info.header_offset + 30 + len(info.filename) + len(info.extra)) % 64 == 0


# ---- against live PyTorch ------------------------------------------------------------------
@pytest.mark.torch
def test_live_torch_save_then_mutograd_load(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    base = torch.randn(3, 4)
    obj = {"a": base, "b": base.t(), "h": base.half(), "bf": base.bfloat16(),
           "i": torch.arange(5), "nested": [base[1], {"z": torch.zeros(0)}], "n": 2}
    torch.save(obj, tmp_path / "x.pt")
    with pytest.warns(UserWarning, match=r"bfloat16 tensors read as float32 .*: bf$"):
        back = mg.load(tmp_path / "x.pt")
    for k in ("a", "b", "h", "i"):
        np.testing.assert_array_equal(back[k].numpy(), obj[k].numpy())
        assert str(back[k].dtype) == str(obj[k].dtype).replace("torch.", "")
    np.testing.assert_array_equal(back["bf"].numpy(), obj["bf"].float().numpy())
    np.testing.assert_array_equal(back["nested"][0].numpy(), base[1].numpy())
    assert back["nested"][1]["z"].shape == [0] and back["n"] == 2


@pytest.mark.torch
@pytest.mark.parametrize("fmt", ["torch", "safetensors"])
def test_live_mutograd_save_then_torch_load_into_the_same_model(tmp_path, fmt):
    torch = pytest.importorskip("torch")
    net, sd = _model_and_state()
    net.eval()
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    p = tmp_path / "m.pt"
    if fmt == "torch":
        mg.save(sd, p, format="torch")
        loaded = [torch.load(p, weights_only=True), torch.load(p, weights_only=True, mmap=True)]
    else:
        stt = pytest.importorskip("safetensors.torch")
        mg.save(sd, p)
        loaded = [stt.load_file(p)]
    for state in loaded:
        tnet = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2),
                                   torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8, 3))
        tnet.load_state_dict(state)   # strict: PyTorch's key names, shapes and buffers
        tnet.eval()
        np.testing.assert_allclose(tnet(torch.from_numpy(x)).detach().numpy(),
                                   net(mg.tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.torch
def test_live_safetensors_torch_file_with_bfloat16(tmp_path):
    torch = pytest.importorskip("torch")
    stt = pytest.importorskip("safetensors.torch")
    w = torch.linspace(-3, 3, 7).bfloat16()
    stt.save_file({"w": w, "i": torch.arange(3, dtype=torch.int16)}, tmp_path / "w.safetensors")
    with pytest.warns(UserWarning, match=r"bfloat16 tensors read as float32 .*: w$"):
        d = mg.load(tmp_path / "w.safetensors")
    np.testing.assert_array_equal(d["w"].numpy(), w.float().numpy())
    assert d["i"].dtype == mg.int16 and d["i"].tolist() == [0, 1, 2]


def _tensor_kinds(torch):
    # a subclass pickle can name: a global of this module
    sub = globals().setdefault("TensorSubclass", type("TensorSubclass", (torch.Tensor,),
                                                      {"__module__": __name__}))
    return {
        "quantized": (lambda: torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8),
                      r"torch\._utils\._rebuild_qtensor: quantized tensors are not supported"),
        "sparse": (lambda: torch.ones(2).to_sparse(),
                   r"_rebuild_sparse_tensor: sparse tensors are not supported"),
        "float8 fnuz": (lambda: torch.ones(2).to(torch.float8_e4m3fnuz),
                        r"mutograd does not read tensors of torch\.float8_e4m3fnuz"),
        "a subclass": (lambda: torch.ones(2).as_subclass(sub),
                       r"the global .*TensorSubclass: weights"),
        "uint64 past int64": (lambda: torch.tensor([2 ** 63 + 5], dtype=torch.uint64),
                              r"the uint64 tensor .* holds values past int64's range"),
    }


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")
@pytest.mark.parametrize("kind", ["quantized", "sparse", "float8 fnuz", "a subclass",
                                  "uint64 past int64"])
def test_live_tensors_mutograd_cannot_hold_are_refused_by_name(tmp_path, kind):
    torch = pytest.importorskip("torch")
    make, msg = _tensor_kinds(torch)[kind]
    torch.save({"x": make()}, tmp_path / "x.pt")
    with pytest.raises(CheckpointError, match=msg):
        mg.load(tmp_path / "x.pt")


@pytest.mark.torch
def test_live_a_tensor_with_python_attributes_loads_without_them(tmp_path):
    torch = pytest.importorskip("torch")
    t = torch.arange(3.0)
    t.note = "kept by PyTorch, dropped here"
    torch.save({"t": t, "p": torch.nn.Parameter(torch.ones(1))}, tmp_path / "x.pt")
    d = mg.load(tmp_path / "x.pt")
    assert d["t"].tolist() == [0, 1, 2] and isinstance(d["p"], nn.Parameter)


# ---- storages, by the file's keys ----------------------------------------------------------
def test_bare_storages_are_told_apart_by_their_keys():
    from tests.serialization.hostile.corpus import pickle_of, storage, torch_zip, val
    a, b = np.arange(4, dtype=np.float32), np.arange(10, 14, dtype=np.float32)
    pkl = pickle_of(val({"a": storage("0", 16, "UntypedStorage"),
                         "b": storage("1", 16, "UntypedStorage"),
                         "a again": storage("0", 16, "UntypedStorage")}))
    d = mg.load(io.BytesIO(torch_zip(pkl, {"0": a.tobytes(), "1": b.tobytes()})))
    assert d["a"].numpy().view(np.float32).tolist() == a.tolist()
    assert d["b"].numpy().view(np.float32).tolist() == b.tolist()
    assert d["a again"] is d["a"]


@pytest.mark.torch
def test_live_untyped_storages_load_each_with_its_own_bytes(tmp_path):
    torch = pytest.importorskip("torch")
    ta, tb = torch.arange(4, dtype=torch.float32), torch.arange(10, 14, dtype=torch.float32)
    torch.save({"a": ta.untyped_storage(), "b": tb.untyped_storage()}, tmp_path / "s.pt")
    d = mg.load(tmp_path / "s.pt")
    assert d["a"].numpy().view(np.float32).tolist() == ta.tolist()
    assert d["b"].numpy().view(np.float32).tolist() == tb.tolist()


# ---- read by construction ------------------------------------------------------------------
def test_an_object_dtype_in_a_pytorch_file_is_refused_by_the_pytorch_namespace_too():
    import mutograd.compat.torch as torch
    from tests.serialization.hostile.corpus import (fill, np_array, np_dtype, pickle_of, torch_zip,
                                                    val)
    obj = np_array(np_dtype("O8", (3, "|", None, None, None, 8, 8, 63)), (1,), fill(8))
    data = torch_zip(pickle_of(val({"w": obj})))
    with pytest.raises(CheckpointError, match=r"the NumPy dtype 'O8', which mutograd cannot "
                                              r"read"):
        torch.load(io.BytesIO(data), weights_only=True)


def test_an_array_whose_state_never_comes_is_refused():
    from tests.serialization.hostile.corpus import call, g, pickle_of, val
    recon = call(g("numpy.core.multiarray", "_reconstruct"), g("numpy", "ndarray"), (0,), b"b")
    with pytest.raises(CheckpointError, match="an array whose data never came"):
        mg.load(io.BytesIO(pickle_of(val({"w": recon}))))


def test_safetensors_files_need_the_safetensors_package(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "safetensors", None)
    with pytest.raises(CheckpointError, match="numpy.safetensors: reading and writing "
                                              "safetensors files needs the safetensors package"):
        mg.load(_file("numpy.safetensors"))


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_numpy_arrays_pickled_with_any_protocol_load_exactly(protocol):
    obj = {"big-endian": np.arange(6, dtype=">f4").reshape(2, 3),
           "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)), "0-d": np.array(2.5),
           "bool": np.array([True, False]), "complex": np.array([1 + 2j]),
           "empty": np.zeros((0, 3)), "scalar": np.float64(1.5), "bytes": b"", "set": {1, 2}}
    d = mg.load(io.BytesIO(pickle.dumps(obj, protocol=protocol)))
    for k in ("big-endian", "fortran", "0-d", "bool", "complex", "empty"):
        assert d[k].shape == list(obj[k].shape) and d[k].numpy().dtype.isnative
        np.testing.assert_array_equal(d[k].numpy(), obj[k])
    assert (d["scalar"], d["bytes"], d["set"]) == (1.5, b"", {1, 2})


@pytest.mark.torch
def test_live_big_endian_arrays_saved_for_pytorch_read_back_right(tmp_path):
    torch = pytest.importorskip("torch")
    mg.save({"a": np.array([1.0, 2.0], ">f4"), "t": mg.tensor(np.array([3, 4], ">i8"))},
            tmp_path / "b.pt", format="torch")
    d = torch.load(tmp_path / "b.pt", weights_only=True)
    assert d["a"].tolist() == [1.0, 2.0] and d["t"].tolist() == [3, 4]
