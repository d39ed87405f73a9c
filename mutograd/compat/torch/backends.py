"""``torch.backends``: the switches training scripts set for GPU kernels. mutograd computes on
the CPU in the tensors' own dtype, so they are recorded and change nothing; ``mps`` and ``cuda``
report no device.

    >>> import mutograd.compat.torch as torch
    >>> torch.backends.cuda.matmul.allow_tf32 = True
    >>> torch.backends.mps.is_available()
    False
"""
import types

cuda = types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False),
                             is_built=lambda: False)
cudnn = types.SimpleNamespace(allow_tf32=True, benchmark=False, deterministic=False,
                              enabled=True, is_available=lambda: False)
mps = types.SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
