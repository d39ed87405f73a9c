"""Hostile files, written as an attacker would: pickles assembled opcode by opcode, zip archives
with lying directories, ``.npz`` records and safetensors headers of every kind issue 26 lists.

Each :class:`Hostile` says what a loader must do with it: ``refuse`` (a clean CheckpointError)
or ``pattern`` (its data regions hold only the byte :data:`PATTERN`: refusing is fine, but a
tensor it loads may hold nothing else; zeros or other bytes are memory the file did not fill).
:func:`named` gives the hand-written cases, :func:`variants` seeded random ones.
"""
import io
import json
import random
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

PATTERN = 0x3C      # float32 0x3C3C3C3C = 0.0115, float16 1.06, bfloat16 0.0115, e4m3fn 1.5


@dataclass
class Hostile:
    name: str
    data: bytes
    expect: str = "refuse"      # or "pattern"
    max_bytes: int = None       # a budget smaller than the default, to reach it quickly


# ---- a pickle assembler --------------------------------------------------------------------
class Op(bytes):
    """Pickle opcodes, as opposed to a bytes value to pickle."""


def g(module, name):
    return Op(b"c" + f"{module}\n{name}\n".encode())


def val(x):
    """The opcodes that push ``x`` (opcodes, bytes, str, int, float, bool, None, tuple, list)."""
    if isinstance(x, Op):
        return x
    if isinstance(x, (bytes, bytearray)):
        return Op(b"B" + struct.pack("<I", len(x)) + bytes(x))
    if isinstance(x, str):
        b = x.encode("utf-8", "surrogatepass")
        return Op(b"X" + struct.pack("<I", len(b)) + b)
    if x is None:
        return Op(b"N")
    if isinstance(x, bool):
        return Op(b"\x88" if x else b"\x89")
    if isinstance(x, int):
        if -2 ** 31 <= x < 2 ** 31:
            return Op(b"J" + struct.pack("<i", x))
        n = (x.bit_length() + 8) // 8
        return Op(b"\x8a" + bytes([n]) + x.to_bytes(n, "little", signed=True))
    if isinstance(x, float):
        return Op(b"G" + struct.pack(">d", x))
    if isinstance(x, tuple):
        return Op(b"(" + b"".join(val(v) for v in x) + b"t")
    if isinstance(x, list):
        return Op(b"](" + b"".join(val(v) for v in x) + b"e")
    if isinstance(x, dict):
        return Op(b"}(" + b"".join(val(k) + val(v) for k, v in x.items()) + b"u")
    raise TypeError(type(x))


def call(func, *args):
    return Op(func + val(tuple(args)) + b"R")


def build(obj, state):
    return Op(obj + val(state) + b"b")


def pickle_of(body, proto=2):
    return b"\x80" + bytes([proto]) + body + b"."


PLAIN_DTYPE = (3, "<", None, None, None, -1, -1, 0)


def np_dtype(code, state=PLAIN_DTYPE):
    made = call(g("numpy", "dtype"), code, False, True)
    return made if state is None else build(made, state)


def np_array(dtype, shape, data, fortran=False, module="numpy.core.multiarray"):
    made = call(g(module, "_reconstruct"), g("numpy", "ndarray"), (0,), b"b")
    return build(made, (1, tuple(shape), dtype, fortran, data))


def fill(n):
    return bytes([PATTERN]) * n


# ---- archives ------------------------------------------------------------------------------
def zip_of(members, comment=b""):
    """A zip archive of ``members``: (name, stored bytes, method, CRC, declared size[, flags]),
    written by hand so that the directory can say what it likes."""
    out, central = bytearray(), bytearray()
    for name, payload, method, crc, size, *flags in members:
        n = name.encode()
        head = struct.pack("<HHHHHIIIHH", 20, flags[0] if flags else 0, method, 0, 0x21, crc,
                           len(payload), size, len(n), 0)
        central += b"PK\x01\x02" + struct.pack("<H", 20) + head + struct.pack(
            "<HHHII", 0, 0, 0, 0, len(out)) + n
        out += b"PK\x03\x04" + head + n + payload
    end = struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(central), len(out),
                      len(comment))
    return bytes(out + central + b"PK\x05\x06" + end + comment)


def stored(name, data):
    return (name, data, 0, zlib.crc32(data), len(data))


def deflated(name, data, declared=None):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = c.compress(data) + c.flush()
    return (name, payload, 8, zlib.crc32(data), len(data) if declared is None else declared)


@lru_cache(maxsize=4)
def deflate_bomb(size):
    """A raw deflate stream of ``size`` (a multiple of 1 MiB) zero bytes, a thousandth of it:
    after a full flush the compressor starts afresh, so one compressed MiB repeats."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    mib = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    return mib * (size >> 20) + c.flush()


def bomb_member(name, size, declared=None):
    return (name, deflate_bomb(size), 8, 0, size if declared is None else declared)


def torch_zip(pkl, storages=None, byteorder=b"little", extra=()):
    members = [stored("archive/data.pkl", pkl), stored("archive/byteorder", byteorder)]
    members += [stored(f"archive/data/{k}", v) for k, v in (storages or {}).items()]
    return zip_of(members + list(extra))


def storage(key, numel, stype="FloatStorage", location="cpu"):
    return Op(val(("storage", g("torch", stype), key, location, numel)) + b"Q")


def tensor(stor, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
    hooks = call(g("collections", "OrderedDict")) if hooks is None else hooks
    args = [stor, offset, tuple(size), tuple(stride), requires_grad, hooks]
    return call(g("torch._utils", "_rebuild_tensor_v2"), *args,
                *(() if metadata is None else (metadata,)))


def npy(descr, shape, data, fortran=False, header=None):
    text = header if header is not None else repr(
        {"descr": descr, "fortran_order": fortran, "shape": tuple(shape)})
    text = text.encode("latin1")
    pad = -(10 + len(text) + 1) % 64
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text) + pad + 1) + text + \
        b" " * pad + b"\n" + data


def npz(records, deflate=False):
    return zip_of([(deflated if deflate else stored)(f"{k}.npy", v) for k, v in records.items()])


def safetensors_of(header, body):
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + body


def signed_checkpoint(structure, arrays=None, version=2, fmt="safetensors"):
    """A mutograd checkpoint holding ``structure`` (any JSON) and ``arrays`` with a valid
    digest: the content an attacker controls, the integrity check passed."""
    from mutograd.serialization import checkpoint as ck
    from mutograd.serialization import npy as npy_io
    from mutograd.serialization import safetensors_io
    meta = json.dumps({"version": version, "structure": structure})
    arrays = dict(arrays or {})
    if fmt == "safetensors":
        data = bytearray(safetensors_io.write(arrays, {ck._META_KEY: meta,
                                                       ck._DIGEST_KEY: "0" * 64}))
        at = ck._digest_at(data, int.from_bytes(data[:8], "little") + 8)
    else:
        arrays[ck._NPZ_META] = np.frombuffer(meta.encode(), np.uint8)
        data = bytearray(npy_io.npz_bytes(arrays, ck._NPZ_COMMENT + b"0" * 64))
        at = len(data) - 64
    data[at:at + 64] = ck._digest(data, at)
    return bytes(data)


# ---- the hand-written cases ----------------------------------------------------------------
def _object_and_void_dtypes():
    """Item 1 and 2: dtypes whose state makes NumPy read or free memory as the file says."""
    obj_state = (3, "|", None, None, None, 8, 8, 63)
    sub_state = (3, "|", (np_dtype("f8"), (8192,)), None, None, 8, 1, 0)
    cases = {
        "object dtype, BUILD with flags": np_array(np_dtype("O8", obj_state), (1,), fill(8)),
        "object dtype, plain": np_array(np_dtype("O8", None), (1,), fill(8)),
        "f8 dtype given object flags": np_array(np_dtype("f8", obj_state), (1,), fill(8)),
        "V8 with a subarray of 8192": np_array(np_dtype("V8", sub_state), (1,), fill(8)),
        "f8 given a subarray state": np_array(np_dtype("f8", sub_state), (1,), fill(8)),
        "f8 given fields": np_array(np_dtype("f8", (3, "<", None, ("a",), {"a": (np_dtype("f8"),
                                                                               0)}, 8, 1, 0)),
                                    (1,), fill(8)),
        "f8 given an itemsize": np_array(np_dtype("f8", (3, "<", None, None, None, 4096, 1, 0)),
                                         (1,), fill(8)),
        "S8 dtype": np_array(np_dtype("S8", (3, "|", None, None, None, 8, 1, 8)), (1,), fill(8)),
        "U2 dtype": np_array(np_dtype("U2", (3, "<", None, None, None, 8, 4, 8)), (1,), fill(8)),
        "datetime dtype": np_array(np_dtype("M8", (4, "<", None, None, None, -1, -1, 0,
                                                   {})), (1,), fill(8)),
        "dtype given twice a state": np_array(build(np_dtype("f8"), PLAIN_DTYPE), (1,), fill(8)),
        "object array state (a list)": np_array(np_dtype("f8"), (2,), [1, 2]),
        "dtype name as a str": np_array(Op(val("f8")), (1,), fill(8)),
        "scalar of an object dtype": call(g("numpy.core.multiarray", "scalar"),
                                          np_dtype("O8", obj_state), fill(8)),
    }
    out = [Hostile(f"pickle: {k}", pickle_of(v)) for k, v in cases.items()]
    obj = cases["object dtype, BUILD with flags"]
    out.append(Hostile("pickle p4: object dtype", pickle_of(obj, 4)))
    out.append(Hostile(".pt: object dtype in data.pkl",
                       torch_zip(pickle_of(val({"w": obj})))))
    return out


def _placeholders():
    """Item 3: arrays whose memory the file never fills."""
    recon = call(g("numpy.core.multiarray", "_reconstruct"), g("numpy", "ndarray"), (0,), b"b")
    f8 = np_dtype("f8")
    cases = {
        "_reconstruct without BUILD": recon,
        "_reconstruct without BUILD, in a dict": val({"w": recon}),
        "_reconstruct of numpy 2 without BUILD": call(g("numpy._core.multiarray", "_reconstruct"),
                                                      g("numpy", "ndarray"), (4096,), b"b"),
        "two BUILDs": build(np_array(f8, (1,), fill(8)), (1, (1,), f8, False, fill(8))),
        "BUILD with 4 items": build(recon, (1, (1,), f8, False)),
        "BUILD version 2": build(recon, (2, (1,), f8, False, fill(8))),
        "short data": np_array(f8, (4096,), fill(8)),
        "long data": np_array(f8, (1,), fill(64)),
        "_reconstruct of another class": call(g("numpy.core.multiarray", "_reconstruct"),
                                              g("numpy", "dtype"), (0,), b"b"),
    }
    return [Hostile(f"pickle: {k}", pickle_of(v), "pattern") for k, v in cases.items()]


def _memory_bombs():
    """Item 4: tiny files that ask for gigabytes."""
    f8 = np_dtype("f8")
    cases = {
        "bytearray(N)": call(g("builtins", "bytearray"), 2 ** 31),
        "bytearray(N), Python 2 name": call(g("__builtin__", "bytearray"), 2 ** 31),
        "_reconstruct with a huge shape": np_array(f8, (2 ** 28,), fill(8)),
        "_reconstruct with a huger shape": np_array(f8, (2 ** 40, 2 ** 40), fill(8)),
        "_frombuffer(int)": call(g("numpy.core.numeric", "_frombuffer"), 2 ** 31, f8,
                                 (2 ** 28,), "C"),
        "_frombuffer with a huge shape": call(g("numpy._core.numeric", "_frombuffer"),
                                              fill(8), f8, (2 ** 28,), "C"),
        "set(range-like)": call(g("builtins", "set"), 2 ** 31),
        "tuple of an int": call(g("builtins", "tuple"), 2 ** 31),
        "memo index 2**31": Op(b"N" + b"r" + struct.pack("<I", 2 ** 31 - 1)),
        "frame of 2**62 bytes": Op(b"\x95" + struct.pack("<Q", 2 ** 62) + b"N"),
        "BINBYTES8 of 2**62 bytes": Op(b"\x8e" + struct.pack("<Q", 2 ** 62) + fill(8)),
        "BINUNICODE8 of 2**62 bytes": Op(b"\x8d" + struct.pack("<Q", 2 ** 62) + fill(8)),
        "BYTEARRAY8 of 2**40 bytes": Op(b"\x96" + struct.pack("<Q", 2 ** 40) + fill(8)),
        "BYTEARRAY8 of 2**40 bytes in a frame": Op(b"\x95" + struct.pack("<Q", 17) + b"\x96"
                                                   + struct.pack("<Q", 2 ** 40) + fill(8)),
    }
    out = [Hostile(f"pickle: {k}", pickle_of(v, 4), "pattern") for k, v in cases.items()]
    # what each opcode makes is charged: 100,000 of them reach a budget of 4 MiB
    storms = {"empty sets": b"\x8f" * 100000, "empty dicts": b"}" * 100000,
              "marks": b"(" * 100000, "empty lists": b"]" * 100000,
              "memo puts": b"N" + b"".join(b"r" + struct.pack("<I", i) for i in range(50000)),
              "dups": b"N" + b"2" * 200000, "floats": b"](" + b"".join(
                  b"G" + struct.pack(">d", float(i)) for i in range(50000)) + b"e",
              "set items": b"\x8f(" + b"".join(val(i) for i in range(60000)) + b"\x90",
              "dict items": b"}(" + b"".join(val(i) + b"N" for i in range(60000)) + b"u"}
    for k, body in storms.items():
        out.append(Hostile(f"pickle: a storm of {k}", pickle_of(Op(body), 4), "pattern",
                           4 << 20))
    # billion laughs: each list holds the previous one ten times (memo references)
    body = b"]q\x00"
    for level in range(1, 40):
        body += b"](" + (b"h" + bytes([level - 1])) * 10 + b"eq" + bytes([level])
    out.append(Hostile("pickle: billion laughs", pickle_of(Op(body), 4), "pattern"))
    # a stride-0 view of a 4-byte storage, materialised as a huge tensor
    for size, stride in [((2 ** 30,), (0,)), ((2 ** 16, 2 ** 16), (0, 0)),
                         ((2 ** 14, 2 ** 14), (1, 0)), ((2 ** 62,), (0,))]:
        pkl = pickle_of(val({"w": tensor(storage("0", 1), 0, size, stride)}))
        out.append(Hostile(f".pt: a stride-0 view of size {size}",
                           torch_zip(pkl, {"0": fill(4)}), "pattern"))
    # deflate bombs: declared honestly, declared small, declared as zero
    for declared in (None, 1000, 0):
        pkl = pickle_of(val({"w": tensor(storage("0", 2 ** 26), 0, (2 ** 26,), (1,))}))
        out.append(Hostile(f".pt: a deflate bomb declared as {declared}",
                           zip_of([stored("archive/data.pkl", pkl),
                                   bomb_member("archive/data/0", 1 << 28, declared)]),
                           "pattern"))
        out.append(Hostile(f".npz: a deflate bomb declared as {declared}",
                           zip_of([bomb_member("w.npy", 1 << 28, declared)]), "pattern"))
    head = npy("<f8", (2 ** 25,), b"")
    out.append(Hostile(".npz: a deflated npy of 256 MiB zeros",
                       zip_of([("w.npy", deflate_bomb(1 << 28), 8, 0, 1 << 28),
                               stored("h.npy", head)]), "pattern"))
    out.append(Hostile(".npz: an npy header with a huge shape",
                       npz({"w": npy("<f8", (2 ** 40,), fill(8))}), "pattern"))
    out.append(Hostile(".npz: 2000 records", npz({f"r{i}": npy("|u1", (1,), fill(1))
                                                  for i in range(2000)}), "pattern", 1 << 20))
    many = [stored("archive/data.pkl", pickle_of(val(None)))] + [
        stored(f"archive/x{i}", b"") for i in range(5000)]
    out.append(Hostile(".pt: 5000 records", zip_of(many), "pattern", 1 << 20))
    return out


def _torch_archives():
    """PyTorch zip archives whose records or pickle lie."""
    pkl = pickle_of(val({"w": tensor(storage("0", 4), 0, (4,), (1,))}))
    good = {"0": fill(16)}
    cases = {
        "no data.pkl": zip_of([stored("archive/byteorder", b"little")]),
        "storage record missing": torch_zip(pkl, {}),
        "storage shorter than its id": torch_zip(pkl, {"0": fill(8)}),
        "storage longer than its id": torch_zip(pkl, {"0": fill(32)}),
        "byteorder 'middle'": torch_zip(pkl, good, b"middle"),
        "byteorder of 1 MB": torch_zip(pkl, good, b"l" * (1 << 20)),
        "a bzip2 record": zip_of([stored("archive/data.pkl", pkl),
                                  ("archive/data/0", b"BZh9", 12, 0, 16)]),
        "an encrypted record": zip_of([stored("archive/data.pkl", pkl), (
            "archive/data/0", fill(16), 0, zlib.crc32(fill(16)), 16, 1)]),
        "a record with a wrong CRC": zip_of([stored("archive/data.pkl", pkl),
                                             ("archive/data/0", fill(16), 0, 1, 16)]),
        "TorchScript code": torch_zip(pkl, good, extra=[stored("archive/code/m.py", b"x")]),
        "data.pkl of garbage": torch_zip(fill(100), good),
        "data.pkl truncated": torch_zip(pkl[:-5], good),
        "offset past the storage": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 3, (4,), (1,))})), good),
        "stride past the storage": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (2, 2), (3, 1))})), good),
        "negative offset": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), -4, (4,), (1,))})), good),
        "negative stride": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 3, (4,), (-1,))})), good),
        "size and stride of different lengths": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (2, 2), (1,))})), good),
        "float sizes": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (4.0,), (1,))})), good),
        "bool sizes": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (True,), (1,))})), good),
        "65 dimensions": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (1,) * 65, (1,) * 65)})), good),
        "storage read as two dtypes": torch_zip(pickle_of(val([
            tensor(storage("0", 4), 0, (4,), (1,)),
            tensor(storage("0", 2, "DoubleStorage"), 0, (2,), (1,))])), good),
        "unknown storage type": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4, "QInt8Storage"), 0, (4,), (1,))})), good),
        "persistent id of 3 items": torch_zip(pickle_of(
            Op(val(("storage", g("torch", "FloatStorage"), "0")) + b"Q")), good),
        "persistent id of a str": torch_zip(pickle_of(Op(val("storage") + b"Q")), good),
        "backward hooks": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (4,), (1,), hooks=val({"h": 1}))})), good),
        "unknown tensor metadata": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (4,), (1,), metadata=val({"x": True}))})), good),
        "requires_grad of a str": torch_zip(pickle_of(val({"w": tensor(
            storage("0", 4), 0, (4,), (1,), requires_grad="yes")})), good),
        "a rebuild function as a value": torch_zip(pickle_of(val(
            {"f": g("torch._utils", "_rebuild_tensor_v2")})), good),
        "a tensor of a tensor": torch_zip(pickle_of(val({"w": tensor(tensor(
            storage("0", 4), 0, (4,), (1,)), 0, (4,), (1,))})), good),
        "_rebuild_from_type_v2 of bad arguments": torch_zip(pickle_of(call(
            g("torch._tensor", "_rebuild_from_type_v2"), g("torch._utils", "_rebuild_tensor_v2"),
            g("torch", "Tensor"), ("a",), {})), good),
        "a parameter of an int": torch_zip(pickle_of(call(
            g("torch._utils", "_rebuild_parameter"), 3, True, val({}))), good),
    }
    out = [Hostile(f".pt: {k}", v, "pattern") for k, v in cases.items()]
    out.append(Hostile(".pt: big-endian storage, stride 0",
                       torch_zip(pickle_of(val({"w": tensor(storage("0", 4), 1, (3, 5), (1, 0))})),
                                 good, b"big"), "pattern"))
    return out


def _npz_records():
    cases = {
        "object dtype": npy("|O", (1,), fill(8)),
        "structured dtype": npy(None, (1,), fill(8), header=repr(
            {"descr": [("a", "<f8")], "fortran_order": False, "shape": (1,)})),
        "subarray dtype": npy(None, (1,), fill(8), header=repr(
            {"descr": ("<f8", (8192,)), "fortran_order": False, "shape": (1,)})),
        "void dtype": npy("|V8", (1,), fill(8)),
        "str dtype": npy("<U2", (1,), fill(8)),
        "negative shape": npy("<f8", (-1,), fill(8)),
        "float shape": npy("<f8", (1.0,), fill(8)),
        "short data": npy("<f8", (1024,), fill(8)),
        "long data": npy("<f8", (1,), fill(64)),
        "fortran order of a str": npy(None, (1,), fill(8), header=repr(
            {"descr": "<f8", "fortran_order": "yes", "shape": (1,)})),
        "extra header key": npy(None, (1,), fill(8), header=repr(
            {"descr": "<f8", "fortran_order": False, "shape": (1,), "x": 1})),
        "header of code": npy(None, (1,), fill(8), header="__import__('os').system('true')"),
        "header nested 10000 deep": npy(None, (1,), fill(8), header="(" * 10000 + ")" * 10000),
        "header with a 5000-digit int": npy(None, (1,), fill(8), header=(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1" + "0" * 5000 + ",)}")),
        "version 9": b"\x93NUMPY\x09\x00" + npy("<f8", (1,), fill(8))[8:],
        "header length past the record": b"\x93NUMPY\x01\x00\xff\xff" + fill(8),
    }
    out = [Hostile(f".npz: {k}", npz({"w": v}), "pattern") for k, v in cases.items()]
    out.append(Hostile(".npz: a record that is not .npy", zip_of([stored("w.txt", fill(8))])))
    out.append(Hostile(".npz: a record twice", zip_of([stored("w.npy", npy("<f8", (1,), fill(8))),
                                                       stored("w.npy", npy("<f8", (1,),
                                                                           fill(8)))])))
    out.append(Hostile(".npz: a big-endian record, Fortran order",
                       npz({"w": npy(">f4", (3, 2), fill(24), fortran=True)}), "pattern"))
    return out


def _safetensors_files():
    f32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    cases = {
        "header length 2**63": struct.pack("<Q", 2 ** 63) + b"{}",
        "header length past the file": struct.pack("<Q", 1000) + b"{}" + fill(8),
        "header of garbage": safetensors_of(b"{" + fill(30), fill(8)),
        "header of a list": safetensors_of(b"[1,2]   ", b""),
        "metadata nested 500 deep": safetensors_of(
            b'{"__metadata__":' + b'{"a":' * 500 + b'"x"' + b"}" * 500 + b"}", b""),
        "a list of 10**6 empty objects in the header": safetensors_of(
            b'{"__metadata__":{"a":"b"},"x":[' + b"{}," * 10 ** 6 + b"{}]}", b""),
        "same name twice": safetensors_of(
            b'{"w":' + json.dumps(f32).encode() + b',"w":' + json.dumps(f32).encode() + b"}",
            fill(8)),
        "overlapping": safetensors_of({"a": f32, "b": {**f32, "data_offsets": [4, 12]}},
                                      fill(12)),
        "a gap": safetensors_of({"a": f32, "b": {**f32, "shape": [1],
                                                 "data_offsets": [12, 16]}}, fill(16)),
        "float shape": safetensors_of({"w": {**f32, "shape": [2.0]}}, fill(8)),
        "string shape": safetensors_of({"w": {**f32, "shape": ["2"]}}, fill(8)),
        "bool shape": safetensors_of({"w": {**f32, "shape": [True], "data_offsets": [0, 4]}},
                                     fill(4)),
        "huge shape": safetensors_of({"w": {**f32, "shape": [2 ** 62, 4]}}, fill(8)),
        "zero-size huge shape": safetensors_of({"w": {**f32, "shape": [0, 2 ** 63 + 5],
                                                      "data_offsets": [0, 0]}}, b""),
        "unknown dtype": safetensors_of({"w": {**f32, "dtype": "F4", "shape": [16]}}, fill(8)),
        "short data": safetensors_of({"w": {**f32, "shape": [4]}}, fill(8)),
        "metadata key only": safetensors_of({"__metadata__": {"mutograd": "{}"}, "w": f32},
                                            fill(8)),
        "digest of zeros": safetensors_of({"__metadata__": {"mutograd_sha256": "0" * 64},
                                           "w": f32}, fill(8)),
    }
    out = [Hostile(f".safetensors: {k}", v, "pattern") for k, v in cases.items()]
    arr = {"w": np.frombuffer(fill(8), np.float32)}
    deep = {"$dict": [["a", json.loads('{"$tuple": [' * 300 + "1" + "]}" * 300)]]}
    signed = {
        "structure nested 300 deep": deep,
        "structure nested 900 deep": json.loads("[" * 900 + "]" * 900),
        "an unknown entry": {"$object": "os.system"},
        "a missing array": {"$tensor": "nothing"},
        "a list as a dict key": {"$dict": [[[1], 2]]},
        "an array name of a list": {"$tensor": [1]},
        "version 3": {"$tensor": "w"},
    }
    for fmt in ("safetensors", "npz"):
        for k, structure in signed.items():
            data = signed_checkpoint(structure, arr, version=3 if k == "version 3" else 2,
                                     fmt=fmt)
            out.append(Hostile(f"signed {fmt} checkpoint: {k}", data, "pattern"))
    return out


def _pickle_opcodes_and_globals():
    cases = {
        "INST": Op(b"(S'x'\nios\nsystem\n"),
        "OBJ": Op(b"(" + g("collections", "OrderedDict") + b"o"),
        "NEWOBJ": Op(g("collections", "OrderedDict") + b")\x81"),
        "EXT1": Op(b"\x82\x01"),
        "PERSID": Op(b"Pstorage\n"),
        "NEXT_BUFFER": Op(b"\x97"),
        "unknown opcode": Op(b"\xff"),
        "os.system": call(g("os", "system"), "true"),
        "builtins.getattr": call(g("builtins", "getattr"), g("collections", "OrderedDict"),
                                 "__init__"),
        "a marker called": call(g("torch", "FloatStorage"), 1),
        "REDUCE with a list": Op(g("builtins", "tuple") + b"](e" + b"R"),
        "BUILD on a set": build(call(g("builtins", "set"), [1]), {"a": 1}),
        "BUILD on an OrderedDict with attributes": build(call(g("collections", "OrderedDict")),
                                                         {"items": 1}),
        "BUILD on a str": build(val("x"), {"a": 1}),
        "APPENDS to a dict": Op(b"}(Ne"),
        "SETITEMS on a list": Op(b"](NNu"),
        "SETITEM on a bytearray": Op(b"\x96" + struct.pack("<Q", 4) + fill(4) + b"K\x00K\x01s"),
        "ADDITEMS to a list": Op(b"](N\x90"),
        "a list that contains itself": Op(b"]q\x00h\x00a"),
        "a dict key that is an array": val({np_array(np_dtype("f8"), (1,), fill(8)): 1}),
        "a set of an array": call(g("builtins", "set"), [np_array(np_dtype("f8"), (1,),
                                                                  fill(8))]),
        "nested 20000 deep": Op(b"]" * 20000 + b"a" * 19999),
        "stack underflow": Op(b"a"),
        "memo get of nothing": Op(b"h\x05"),
        "_codecs.encode of utf-32": call(g("_codecs", "encode"), "x", "utf-32"),
        "complex of strings": call(g("builtins", "complex"), "1", "2"),
        "a persistent id outside an archive": Op(val(("storage",)) + b"Q"),
    }
    out = [Hostile(f"pickle: {k}", pickle_of(v, 4 if k != "INST" else 2)) for k, v in
           cases.items()]
    out.append(Hostile("pickle: text STRING of a 100000-digit int", b"\x80\x02I" + b"9" * 100000
                       + b"\n."))
    out.append(Hostile("pickle: protocol 6", b"\x80\x06N."))
    out.append(Hostile("legacy torch magic", pickle_of(val(0x1950a86a20f9469cfc6c))))
    return out


def named():
    """The hand-written hostile files, each once."""
    return (_object_and_void_dtypes() + _placeholders() + _memory_bombs() + _torch_archives()
            + _npz_records() + _safetensors_files() + _pickle_opcodes_and_globals())


# ---- seeded random variants ----------------------------------------------------------------
_NP_CODES = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1", "c8",
             "c16", "O8", "V8", "S4", "U1", "M8", "m8", "V0", "f16", "g"]
_TORCH_STORAGES = ["FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage",
                   "LongStorage", "IntStorage", "ShortStorage", "CharStorage", "ByteStorage",
                   "BoolStorage", "ComplexFloatStorage", "QUInt8Storage", "UntypedStorage"]
_ST_DTYPES = ["F32", "F16", "BF16", "F64", "I64", "I32", "U8", "BOOL", "F8_E4M3", "F8_E5M2",
              "C64", "U64", "F4", "X"]


def _dim(rng):
    return rng.choice([0, 1, 2, 3, 7, 64, 2 ** 16, 2 ** 31, 2 ** 62, -1])


def _shape(rng):
    return tuple(_dim(rng) for _ in range(rng.choice([0, 1, 1, 2, 3])))


def _random_pickle(rng):
    code = rng.choice(_NP_CODES)
    order = rng.choice(["<", ">", "|", "=", "!"])
    state = rng.choice([(3, order, None, None, None, -1, -1, 0),
                        (3, order, None, None, None, rng.choice([1, 8, 4096]),
                         rng.choice([1, 8]), rng.choice([0, 63, 1])),
                        (4, order, None, None, None, -1, -1, 0, None), None])
    dt = np_dtype(code, state)
    nbytes = rng.choice([0, 1, 8, 16, 64, 1000])
    form = rng.random()
    if form < 0.5:
        body = np_array(dt, _shape(rng), fill(nbytes), rng.random() < 0.2,
                        rng.choice(["numpy.core.multiarray", "numpy._core.multiarray"]))
    elif form < 0.75:
        body = call(g("numpy._core.numeric", "_frombuffer"),
                    rng.choice([fill(nbytes), bytearray(fill(nbytes)), nbytes, "x"]), dt,
                    _shape(rng), rng.choice(["C", "F", "K"]))
    else:
        body = call(g("numpy.core.multiarray", "scalar"), dt, fill(nbytes))
    wrap = rng.choice(["bare", "dict", "paddle tuple", "list"])
    if wrap == "dict":
        body = val({"w": body})
    elif wrap == "paddle tuple":
        body = val({"w": call(g("builtins", "tuple"), ("w", body))})
    elif wrap == "list":
        body = val([body, body])
    return Hostile(f"random pickle ({code} {order} {wrap})", pickle_of(body, rng.choice([2, 4])),
                   "pattern")


def _random_torch(rng):
    numel = rng.choice([0, 1, 4, 16])
    stype = rng.choice(_TORCH_STORAGES)
    itemsize = 2 if ("Half" in stype or "BFloat" in stype or "Short" in stype) else 8 if (
        "Double" in stype or "Long" in stype or "ComplexFloat" in stype) else 1 if (
        "Byte" in stype or "Char" in stype or "Bool" in stype or "Untyped" in stype) else 4
    nbytes = numel * itemsize + rng.choice([0, 0, 0, 1, -1])
    ndim = rng.choice([0, 1, 2, 3])
    size = tuple(rng.choice([0, 1, 2, 3, 4, 2 ** 20, 2 ** 40]) for _ in range(ndim))
    stride = tuple(rng.choice([0, 1, 2, 4, 2 ** 20]) for _ in range(ndim))
    offset = rng.choice([0, 0, 1, 3, 15, 2 ** 40])
    stor = storage("0", numel, stype, rng.choice(["cpu", "cuda:0", "mps", "x" * 300]))
    meta = rng.choice([None, val({"conj": True}), val({"neg": True})])
    t = tensor(stor, offset, size, stride, rng.random() < 0.3, metadata=meta)
    if rng.random() < 0.3:
        t = call(g("torch._utils", "_rebuild_parameter"), t, rng.random() < 0.5, val({}))
    obj = rng.choice([val({"w": t}), val([t, t]), val({"s": stor}), val({"a": t, "s": stor})])
    extra = [bomb_member("archive/data/1", 1 << 24)] if rng.random() < 0.1 else []
    return Hostile(f"random .pt ({stype}, size {size}, stride {stride}, offset {offset})",
                   torch_zip(pickle_of(obj, 2), {"0": fill(max(nbytes, 0))},
                             rng.choice([b"little", b"little", b"big"]), extra), "pattern")


def _random_npz(rng):
    code = rng.choice(_NP_CODES)
    descr = rng.choice(["<", ">", "|", "="]) + code
    shape = _shape(rng)
    nbytes = rng.choice([0, 1, 8, 24, 64])
    return Hostile(f"random .npz ({descr}, {shape})",
                   npz({"w": npy(descr, shape, fill(nbytes), rng.random() < 0.3)},
                       rng.random() < 0.3), "pattern")


def _random_safetensors(rng):
    header, offset, names = {}, 0, []
    for i in range(rng.choice([1, 2, 3])):
        dtype = rng.choice(_ST_DTYPES)
        shape = [rng.choice([0, 1, 2, 3, 2 ** 40]) for _ in range(rng.choice([0, 1, 2]))]
        n = rng.choice([0, 2, 4, 8, 16])
        begin = offset + rng.choice([0, 0, 0, 1, -1])
        header[f"t{i}" if rng.random() < 0.9 else "t0"] = {
            "dtype": dtype, "shape": shape, "data_offsets": [begin, begin + n]}
        offset += n
        names.append(f"t{i}")
    if rng.random() < 0.3:
        header["__metadata__"] = {rng.choice(["mutograd", "mutograd_sha256", "format"]):
                                  rng.choice(["{}", "0" * 64, "pt"])}
    body = fill(offset + rng.choice([0, 0, 1]))
    return Hostile("random .safetensors", safetensors_of(header, body), "pattern")


def _random_garbage(rng):
    head = rng.choice([b"PK\x03\x04", b"\x80\x02", b"\x80\x04", struct.pack("<Q", 16) + b"{",
                       b"\x93NUMPY"])
    return Hostile("random garbage", head + bytes(rng.getrandbits(8) for _ in range(
        rng.choice([0, 10, 100, 1000]))))


def variants(n, seed=0):
    """``n`` seeded random hostile files, of every kind in turn."""
    rng = random.Random(seed)
    makers = [_random_pickle, _random_torch, _random_npz, _random_safetensors, _random_garbage]
    return [makers[i % len(makers)](rng) for i in range(n)]


def real_checkpoints():
    """``{name: bytes}`` of genuine files whose bits the fuzzer flips: mutograd checkpoints
    (safetensors and npz) of a Linear layer, its Adam state and an epoch, files written by
    PyTorch 2.13 and Paddle 3.3.1 (tests/references/interop), and an Adam state in Paddle's
    format written by Paddle and by mutograd (tests/references/paddle_checkpoints)."""
    import os

    import mutograd as mg
    mg.seed(0)
    net = mg.nn.Linear(3, 2)
    opt = mg.optim.Adam(net.parameters(), lr=0.001)
    net(mg.randn([4, 3])).sum().backward()
    opt.step()
    out = {}
    for fmt in ("safetensors", "npz"):
        buf = io.BytesIO()
        mg.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 3}, buf,
                format=fmt)
        out[f"mutograd {fmt}"] = buf.getvalue()
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "references",
                        "interop")
    for key, name in (("torch_cnn.pt", "torch_cnn.pt"),
                      ("paddle_mlp.pdparams", "paddle_mlp.pdparams"),
                      ("adam.pdopt by Paddle", "../paddle_checkpoints/adam.pdopt"),
                      ("adam.pdopt by paddle.save here", "../paddle_checkpoints/"
                                                         "mutograd_adam.pdopt")):
        with open(os.path.join(data, name), "rb") as f:
            out[key] = f.read()
    return out
