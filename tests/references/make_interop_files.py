"""Write the weights files of tests/references/interop/ with the real tools, and what they hold.

Run it from the repository root with each tool installed (never a runtime or CI dependency; the
tests only read the files)::

    python -m tests.references.make_interop_files     # with torch==2.13.0 and safetensors
    /path/to/paddle-venv/bin/python -m tests.references.make_interop_files   # paddlepaddle==3.3.1

With PyTorch it writes the ``torch_*`` files, a file written by ``safetensors.numpy`` and
``expected_torch.npz``; with Paddle the ``paddle_*`` files and ``expected_paddle.npz``. Each
expected npz maps ``<file>::<key>`` to the value a reader must give (bfloat16 and float8 widened
to float32), plus ``<file>::input``/``::output`` for a model's forward pass on a fixed input.
"""
import os
import sys

import numpy as np

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "interop")


def _torch_files(expected):
    import torch
    if torch.__version__.split("+")[0] != "2.13.0":
        sys.exit(f"torch 2.13.0 is needed, found {torch.__version__}")
    import safetensors.torch as stt
    torch.manual_seed(0)

    # a small CNN's state_dict, and its output on a fixed input in eval mode
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2),
                              torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8, 3))
    net(torch.randn(4, 1, 4, 4))   # moves BatchNorm's running statistics off 0 and 1
    net.eval()
    x = torch.randn(2, 1, 4, 4)
    sd = net.state_dict()
    torch.save(sd, os.path.join(DIR, "torch_cnn.pt"))
    stt.save_file(sd, os.path.join(DIR, "torch_cnn.safetensors"), metadata={"format": "pt"})
    for f in ("torch_cnn.pt", "torch_cnn.safetensors"):
        for k, v in sd.items():
            expected[f"{f}::{k}"] = v.numpy()
        expected[f"{f}::input"] = x.numpy()
        expected[f"{f}::output"] = net(x).detach().numpy()

    # every dtype and layout a PyTorch file may hold, in containers
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4
    cplx = torch.tensor([1 + 2j, -3 + 0.5j], dtype=torch.complex64)
    tensors = {
        "f32": base, "f64": base.double(), "f16": base.half(), "bf16": base.bfloat16(),
        "i64": torch.tensor([-(2 ** 40), 7]), "i32": torch.tensor([1, -2], dtype=torch.int32),
        "i16": torch.tensor([3], dtype=torch.int16), "i8": torch.tensor([-4], dtype=torch.int8),
        "u8": torch.tensor([250], dtype=torch.uint8), "bool": torch.tensor([True, False]),
        "u16": torch.tensor([65535, 1], dtype=torch.uint16), "c64": cplx,
        "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 3),
        "transposed": base.t(), "slice": base[1:, 1::2], "conj": cplx.conj(),
        "param": torch.nn.Parameter(torch.ones(2)),
    }
    mixed = {"tensors": tensors, "epoch": 3, "lr": 0.5, "name": "mixed", "none": None,
             "flags": [True, False], "pair": (1, "two"), "size": torch.Size([2, 3]),
             "dtype": torch.float16, "shared": [base, base[0]]}
    torch.save(mixed, os.path.join(DIR, "torch_mixed.pt"))
    for k, v in tensors.items():
        expected[f"torch_mixed.pt::{k}"] = _widened(v)
    expected["torch_mixed.pt::shared"] = base[0].numpy()

    # PyTorch's legacy (before 1.6) format, a whole pickled module, a TorchScript archive
    torch.save(sd, os.path.join(DIR, "torch_legacy.pt"), _use_new_zipfile_serialization=False)
    torch.save(torch.nn.Linear(2, 1), os.path.join(DIR, "torch_module.pt"))
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 1)), os.path.join(DIR, "torch_script.pt"))

    # safetensors' dtypes that mutograd widens
    wide = {"bf16": base.bfloat16(), "f16": base.half(), "u16": tensors["u16"],
            "f8_e4m3": torch.tensor([0.5, -1.75, 448.0, 0.0078125]).to(torch.float8_e4m3fn),
            "f8_e5m2": torch.tensor([0.5, -1.75, 57344.0, 2 ** -16]).to(torch.float8_e5m2),
            "u32": torch.tensor([2 ** 32 - 1], dtype=torch.uint32), "bool": tensors["bool"]}
    stt.save_file(wide, os.path.join(DIR, "torch_dtypes.safetensors"))
    for k, v in wide.items():
        expected[f"torch_dtypes.safetensors::{k}"] = _widened(v)


def _widened(t):
    import torch
    if t.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
        return t.float().numpy()
    if t.dtype == torch.uint16:
        return t.to(torch.int32).numpy()
    if t.dtype == torch.uint32:
        return t.to(torch.int64).numpy()
    return t.detach().resolve_conj().numpy()


def _paddle_files(expected):
    import paddle
    if paddle.__version__ != "3.3.1":
        sys.exit(f"paddlepaddle 3.3.1 is needed, found {paddle.__version__}")
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.BatchNorm1D(4),
                               paddle.nn.ReLU(), paddle.nn.Linear(4, 2))
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    net(paddle.randn([5, 3])).sum().backward()
    opt.step()
    net.eval()
    x = paddle.randn([2, 3])
    sd = net.state_dict()
    paddle.save(sd, os.path.join(DIR, "paddle_mlp.pdparams"))
    paddle.save(opt.state_dict(), os.path.join(DIR, "paddle_mlp.pdopt"))
    for k, v in sd.items():
        expected[f"paddle_mlp.pdparams::{k}"] = v.numpy()
    expected["paddle_mlp.pdparams::input"] = x.numpy()
    expected["paddle_mlp.pdparams::output"] = net(x).numpy()
    for k, v in opt.state_dict().items():
        if isinstance(v, paddle.Tensor):
            expected[f"paddle_mlp.pdopt::{k}"] = v.numpy()

    base = paddle.arange(6, dtype="float32").reshape([2, 3]) / 4
    mixed = {"bf16": base.astype("bfloat16"), "f16": base.astype("float16"),
             "i64": paddle.to_tensor([-(2 ** 40), 7]), "bool": paddle.to_tensor([True, False]),
             "nested": {"w": base, "steps": 10}, "lst": [base, "text", 2.5]}
    paddle.save(mixed, os.path.join(DIR, "paddle_mixed.pdparams"))
    expected["paddle_mixed.pdparams::bf16"] = base.astype("bfloat16").astype("float32").numpy()
    for k in ("f16", "i64", "bool"):
        expected[f"paddle_mixed.pdparams::{k}"] = mixed[k].numpy()
    expected["paddle_mixed.pdparams::w"] = base.numpy()


def _safetensors_numpy_file(expected):
    import safetensors.numpy as stn
    arrays = {"embed.weight": np.arange(8, dtype=np.float32).reshape(4, 2),
              "head.bias": np.array([1.5, -2], np.float64), "count": np.array(7, np.int64),
              "mask": np.array([[True], [False]]), "half": np.array([0.25, 65504], np.float16)}
    stn.save_file(arrays, os.path.join(DIR, "numpy.safetensors"), metadata={"writer": "numpy"})
    for k, v in arrays.items():
        expected[f"numpy.safetensors::{k}"] = v


def main():
    os.makedirs(DIR, exist_ok=True)
    try:
        import torch  # noqa: F401
        has_torch = True
    except ImportError:
        has_torch = False
    expected = {}
    if has_torch:
        _torch_files(expected)
        _safetensors_numpy_file(expected)
        np.savez(os.path.join(DIR, "expected_torch.npz"), **expected)
    else:
        _paddle_files(expected)
        np.savez(os.path.join(DIR, "expected_paddle.npz"), **expected)
    print(f"wrote {len(expected)} expected values in {DIR}")


if __name__ == "__main__":
    main()
