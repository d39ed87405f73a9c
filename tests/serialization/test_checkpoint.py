"""Checkpoints: round trips in both formats, any file name, atomic writes, damaged files."""
import io
import os
import zipfile

import numpy as np
import pytest
from tests.helpers import REFERENCES, ROOT

import mutograd as mg
from mutograd.serialization.checkpoint import CheckpointError

FORMATS = ["safetensors", "npz"]


def _obj():
    net = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4))
    opt = mg.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    net(mg.randn([5, 3])).sum().backward()
    opt.step()
    return {"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 7, "loss": 0.25,
            "tags": ["a", None, True], "pair": (1, 2.5), "arr": np.arange(3),
            "scalar": mg.tensor(3.5), "flags": mg.tensor([True, False])}


def _same(a, b):
    if isinstance(a, mg.Tensor):
        assert isinstance(b, mg.Tensor) and a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b and type(a) is type(b)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["model.pt", "model.pdparams", "weights", "x.npz"])
def test_round_trip_with_any_file_name(tmp_path, fmt, name):
    if fmt == "safetensors":
        pytest.importorskip("safetensors")
    obj = _obj()
    mg.save(obj, tmp_path / name, format=fmt)
    back = mg.load(tmp_path / name)
    _same(obj, back)
    assert back["opt"]["state"][0]["momentum_buffer"].shape == [4, 3]
    assert list(back["opt"]["state"]) == [0, 1, 2, 3]     # int keys stay ints


def test_loaded_tensors_are_independent_writable_copies(tmp_path):
    t = mg.ones([3])
    mg.save({"t": t}, tmp_path / "c")
    u = mg.load(tmp_path / "c")["t"]
    u.add_(1)
    assert t.tolist() == [1, 1, 1] and u.tolist() == [2, 2, 2]


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncated_file_gives_a_clear_error(tmp_path, fmt):
    if fmt == "safetensors":
        pytest.importorskip("safetensors")
    p = tmp_path / "ck"
    mg.save(_obj(), p, format=fmt)
    data = p.read_bytes()
    p.write_bytes(data[:len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated"):
        mg.load(p)


@pytest.mark.parametrize("fmt", FORMATS)
def test_flipped_data_byte_is_detected(tmp_path, fmt):
    if fmt == "safetensors":
        pytest.importorskip("safetensors")
    p = tmp_path / "ck"
    mg.save({"w": mg.ones([64])}, p, format=fmt)
    data = bytearray(p.read_bytes())
    pos = data.find(np.ones(64, np.float32).tobytes()[:16]) + 9
    data[pos] ^= 0x40
    p.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupted"):
        mg.load(p)


@pytest.mark.parametrize("content,msg", [(b"", "an empty file"),
                                         (b"hello, this is text", "neither a safetensors"),
                                         (b"PK\x03\x04garbage", "truncated or corrupted")])
def test_foreign_files_are_refused(tmp_path, content, msg):
    p = tmp_path / "f"
    p.write_bytes(content)
    with pytest.raises(CheckpointError, match=msg):
        mg.load(p)


def test_a_failed_save_leaves_the_old_checkpoint_intact(tmp_path, monkeypatch):
    p = tmp_path / "ck"
    mg.save({"v": mg.tensor([1.0])}, p)
    old = p.read_bytes()
    with pytest.raises(TypeError, match="cannot store a function"):   # nor pickle a lambda
        mg.save({"v": lambda: 0}, p)

    def crash(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        mg.save({"v": mg.tensor([2.0])}, p)
    assert p.read_bytes() == old and os.listdir(tmp_path) == ["ck"]   # no temp file left


def test_pickle_is_never_used_for_weights(tmp_path):
    with pytest.raises(TypeError):
        mg.save({"f": lambda: 0}, tmp_path / "x")
    with pytest.raises(TypeError, match="dict keys must be"):   # only for a whole object
        mg.save({(1, 2): 3}, tmp_path / "x", format="npz")
    p = tmp_path / "pickled.npz"
    np.savez(p, a=np.array([object()], dtype=object))
    with pytest.raises(CheckpointError):
        mg.load(p)


# ---- integrity: one flipped bit anywhere is an error ----------------------------------------
def _adam_checkpoint(fmt):
    """Issue 26's example: a Linear layer, its Adam state and an epoch."""
    mg.seed(0)
    net = mg.nn.Linear(3, 2)
    opt = mg.optim.Adam(net.parameters(), lr=0.001)
    net(mg.randn([4, 3])).sum().backward()
    opt.step()
    buf = io.BytesIO()
    mg.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 3}, buf, format=fmt)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_flipped_bit_of_the_metadata_is_an_error(fmt):
    if fmt == "safetensors":
        pytest.importorskip("safetensors")
    data = _adam_checkpoint(fmt)
    # the header and the metadata (safetensors), the structure and the zip records (npz):
    # where issue 26 found lr, betas, eps, the epoch, renamed keys and swapped states loading
    region = range(8, int.from_bytes(data[:8], "little") + 8) if fmt == "safetensors" else \
        range(data.index(b"__mutograd__"), len(data))
    for pos in region:
        for bit in range(8):
            flipped = bytearray(data)
            flipped[pos] ^= 1 << bit
            with pytest.raises(CheckpointError, match="<file object>"):
                mg.load(io.BytesIO(bytes(flipped)))


@pytest.mark.parametrize("edit", ["lr", "epoch", "swap exp_avg", "rename a key",
                                  "drop the digest key", "rename the metadata key"])
def test_edited_metadata_is_refused(edit):
    pytest.importorskip("safetensors")
    data = _adam_checkpoint("safetensors")
    header = data[8:int.from_bytes(data[:8], "little") + 8]
    changed = {
        "lr": (b'[\\"lr\\", 0.001]', b'[\\"lr\\", 1.001]'),
        "epoch": (b'[\\"epoch\\", 3]', b'[\\"epoch\\", 4]'),
        "swap exp_avg": (b'opt/state/0/exp_avg\\"', b'opt/state/1/exp_avg\\"'),
        "rename a key": (b'[\\"bias\\"', b'[\\"bia$\\"'),
        "drop the digest key": (b'"mutograd_sha256"', b'"mutograd_sha25$"'),
        "rename the metadata key": (b'"mutograd":', b'"mutogra$":'),
    }[edit]
    assert header.count(changed[0]) == 1, header
    edited = data.replace(changed[0], changed[1], 1)
    with pytest.raises(CheckpointError, match="digest|structure is missing|without a digest"):
        mg.load(io.BytesIO(edited))


@pytest.mark.parametrize("fmt", FORMATS)
def test_checkpoints_of_version_1_still_load_and_are_checked(fmt, tmp_path):
    """Checkpoints written before the digest: a CRC-32 of each tensor in the metadata."""
    import json
    import zlib
    w = np.arange(4, dtype=np.float32)
    meta = json.dumps({"version": 1, "structure": {"$dict": [["w", {"$tensor": "w"}],
                                                             ["n", 5]]},
                       "crc32": {"w": zlib.crc32(w.tobytes())}})
    p = tmp_path / "v1"
    if fmt == "safetensors":
        stn = pytest.importorskip("safetensors.numpy")
        p.write_bytes(stn.save({"w": w}, metadata={"mutograd": meta}))
    else:
        np.savez(p.with_suffix(".npz"), w=w, __mutograd__=np.frombuffer(meta.encode(), np.uint8))
        p = p.with_suffix(".npz")
    back = mg.load(p)
    assert back["w"].tolist() == [0, 1, 2, 3] and back["n"] == 5
    data = bytearray(p.read_bytes())
    data[data.index(w.tobytes()) + 5] ^= 1
    p.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="the data of w does not match its checksum|"
                                              "Bad CRC-32 for file 'w.npy'"):
        mg.load(p)


# ---- every failure a CheckpointError that names the file, its cause chained ------------------
def _damaged(which):
    """A damaged file of each kind, and the type of the exception that shows it."""
    import pickle
    torch_file = open(REFERENCES / "interop" / "torch_cnn.pt", "rb").read()
    if which == "a truncated npz checkpoint":
        return _adam_checkpoint("npz")[:300], zipfile.BadZipFile
    if which == "a flipped byte in a PyTorch record":
        pos = torch_file.index(zipfile.ZipFile(io.BytesIO(torch_file)).read(
            "torch_cnn/data/0")) + 5
        return torch_file[:pos] + bytes([torch_file[pos] ^ 1]) + torch_file[pos + 1:], \
            zipfile.BadZipFile
    if which == "a truncated pickle":
        return pickle.dumps({"w": np.ones(3)}, protocol=4)[:-20], pickle.UnpicklingError
    if which == "a pickle with a 5000-digit int":
        return b"\x80\x02I" + b"9" * 5000 + b"\n.", ValueError
    if which == "a safetensors file cut in its header":
        pytest.importorskip("safetensors")
        return _adam_checkpoint("safetensors")[:100], type(None)
    raise KeyError(which)


@pytest.mark.parametrize("which", ["a truncated npz checkpoint",
                                   "a flipped byte in a PyTorch record", "a truncated pickle",
                                   "a pickle with a 5000-digit int",
                                   "a safetensors file cut in its header"])
def test_damaged_files_raise_a_checkpoint_error_with_the_cause(tmp_path, which):
    data, cause = _damaged(which)
    p = tmp_path / "ck"
    p.write_bytes(data)
    with pytest.raises(CheckpointError, match=f"^{p}") as e:
        mg.load(p)
    assert isinstance(e.value.__cause__, cause), repr(e.value.__cause__)


# ---- the memory budget ---------------------------------------------------------------------
def test_max_bytes_bounds_what_a_load_makes_and_is_named_in_the_error(tmp_path):
    from mutograd.errors import CheckpointBudgetError
    p = tmp_path / "ck"
    mg.save({"w": mg.zeros([1000])}, p, format="npz")
    assert mg.load(p, max_bytes=20_000)["w"].shape == [1000]
    with pytest.raises(CheckpointBudgetError, match=r"the record 'w.npy' would take 4,128 bytes, "
                                                    r"more than the .* left of the memory budget "
                                                    r"for loading this file, 6,000 bytes "
                                                    r"\(max_bytes\).*larger max_bytes="):
        mg.load(p, max_bytes=6000)
    with pytest.raises(ValueError, match="max_bytes must be a number of bytes >= 0"):
        mg.load(p, max_bytes=-1)


def test_a_genuinely_huge_compressed_file_needs_max_bytes(tmp_path):
    from mutograd.errors import CheckpointBudgetError
    p = tmp_path / "zeros.npz"
    np.savez_compressed(p, w=np.zeros(2 ** 24, np.float32))   # 64 MiB of zeros in 65 KB
    with pytest.raises(CheckpointBudgetError, match=r"the memory budget for loading this file, "
                                                    r"[\d.]+ MiB \([\d,]+ bytes\) \(8 x the "
                                                    r"file's [\d,]+ bytes \+ 64 MiB\)"):
        mg.load(p)
    assert mg.load(p, max_bytes=200 << 20)["w"].shape == [2 ** 24]


def test_the_pytorch_namespace_takes_max_bytes(tmp_path):
    import mutograd.compat.torch as torch
    from mutograd.errors import CheckpointBudgetError
    torch.save({"w": torch.ones(100)}, tmp_path / "w.pt")
    with pytest.raises(CheckpointBudgetError):
        torch.load(tmp_path / "w.pt", weights_only=True, max_bytes=100)


# ---- byte order ----------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS + ["torch", "paddle"])
def test_big_endian_arrays_are_saved_little_endian_and_load_native(tmp_path, fmt):
    if fmt == "safetensors":
        pytest.importorskip("safetensors")
    big = np.array([1.0, 2.0], ">f4")
    mg.save({"a": big, "t": mg.tensor(np.array([[3, 4]], ">i8"))}, tmp_path / "ck", format=fmt)
    assert b"\x00\x00\x80\x3f" in (tmp_path / "ck").read_bytes()   # 1.0 as little-endian
    back = mg.load(tmp_path / "ck")
    a = back["a"].numpy() if isinstance(back["a"], mg.Tensor) else back["a"]
    assert a.tolist() == [1.0, 2.0] and a.dtype == np.float32 and a.dtype.isnative
    assert back["t"].dtype == mg.int64 and back["t"].tolist() == [[3, 4]]


def test_big_endian_npz_and_paddle_arrays_load_as_native_tensors(tmp_path):
    import pickle
    np.savez(tmp_path / "b.npz", w=np.arange(3, dtype=">f4"))
    (tmp_path / "b.pdparams").write_bytes(pickle.dumps({"w": np.arange(3, dtype=">f8")}, 4))
    for name, dtype in (("b.npz", mg.float32), ("b.pdparams", mg.float64)):
        w = mg.load(tmp_path / name)["w"]
        assert w.dtype == dtype and w.tolist() == [0, 1, 2] and w.numpy().dtype.isnative


# ---- saving: symlinks, leftovers, fsync, SIGKILL -------------------------------------------
def test_a_symlinked_path_is_written_through_to_its_target(tmp_path):
    target = tmp_path / "real.ckpt"
    link = tmp_path / "latest.ckpt"
    mg.save({"v": 1}, target)
    link.symlink_to(target.name)
    mg.save({"v": 2}, link)
    assert link.is_symlink() and mg.load(target)["v"] == 2
    dangling = tmp_path / "to-be-made"
    dangling.symlink_to("made.ckpt")
    mg.save({"v": 3}, dangling)
    assert dangling.is_symlink() and mg.load(tmp_path / "made.ckpt")["v"] == 3


def test_the_file_is_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync") or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: calls.append("replace") or real_replace(a, b))
    mg.save({"v": 1}, tmp_path / "ck")
    assert calls[:2] == ["fsync", "replace"]


def _leftover(folder, name):
    p = folder / f".{name}.0123456789abcdef.tmp"
    p.write_bytes(b"half a checkpoint")
    return p


@pytest.mark.skipif(not hasattr(os, "fork"), reason="advisory locks (fcntl)")
def test_leftovers_of_killed_saves_are_removed_by_the_next_save_or_load(tmp_path):
    import fcntl
    mg.save({"v": 1}, tmp_path / "ck")
    old = _leftover(tmp_path, "ck")
    legacy = tmp_path / ".ck.a1b2_c3d.tmp"      # mkstemp's names, from earlier versions
    legacy.write_bytes(b"x")
    other = tmp_path / ".other.0123456789abcdef.tmp"
    other.write_bytes(b"not ours to remove")
    mg.load(tmp_path / "ck")
    assert not old.exists() and not legacy.exists() and other.exists()
    live = _leftover(tmp_path, "ck")           # a save still writing holds its lock
    with open(live, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        mg.save({"v": 2}, tmp_path / "ck")
        assert live.exists()
    mg.save({"v": 3}, tmp_path / "ck")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.0123456789abcdef.tmp", "ck"]


_SAVER = """
import sys, mutograd as mg
obj = {"w": mg.ones([4_000_000]), "step": 0}
print("ready", flush=True)
while True:
    obj["step"] += 1
    mg.save(obj, sys.argv[1], format=sys.argv[2])
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="SIGKILL and advisory locks")
@pytest.mark.parametrize("fmt", ["npz"])
def test_a_save_killed_by_sigkill_leaves_the_old_file_and_nothing_after_the_next_save(
        tmp_path, fmt):
    import signal
    import subprocess
    import sys
    import time
    path = tmp_path / "ck"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)]
        + os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    for kill in range(2):
        saver = subprocess.Popen([sys.executable, "-c", _SAVER, str(path), fmt],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert saver.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30
        while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
            assert time.monotonic() < deadline, "the saver never wrote a temporary file"
            time.sleep(0.001)
        time.sleep(0.005 * kill)                  # in the middle of writing, or later
        saver.send_signal(signal.SIGKILL)
        saver.wait()
        if path.exists():                         # the previous complete checkpoint
            assert mg.load(path)["w"].shape == [4_000_000]
    assert any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    mg.save({"w": mg.ones([2])}, path)
    assert [p.name for p in tmp_path.iterdir()] == ["ck"]
