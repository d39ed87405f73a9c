"""Checkpoints: round trips in both formats, any file name, atomic writes, damaged files."""
import os

import numpy as np
import pytest

import mutograd as mg
from mutograd.checkpoint import CheckpointError

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
    with pytest.raises(TypeError, match="cannot store a object"):
        mg.save({"v": object()}, p)

    def crash(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        mg.save({"v": mg.tensor([2.0])}, p)
    assert p.read_bytes() == old and os.listdir(tmp_path) == ["ck"]   # no temp file left


def test_pickle_is_never_used(tmp_path):
    with pytest.raises(TypeError):
        mg.save({"f": lambda: 0}, tmp_path / "x")
    with pytest.raises(TypeError, match="dict keys must be"):
        mg.save({(1, 2): 3}, tmp_path / "x")
    p = tmp_path / "pickled.npz"
    np.savez(p, a=np.array([object()], dtype=object))
    with pytest.raises(CheckpointError):
        mg.load(p)
