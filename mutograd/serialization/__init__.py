"""Reading and writing files of tensors safely: ``mutograd.save`` and ``mutograd.load``.

- ``checkpoint``: ``save`` and ``load``, and mutograd's own checkpoints (safetensors or npz,
  with a digest of the whole file);
- ``interop``: weights of other tools (PyTorch, Paddle), read and written;
- ``containers``: the dict keys a file can store and how deep nests may go, in every format;
- ``budget``: the memory one load may use, checked before anything is allocated;
- ``arrays``: arrays built from an allow-listed dtype name, a byte order, a shape, strides and
  the bytes present, and nothing else;
- ``unpickler``: pickles read by construction, with emulated rebuild functions and no object's
  own ``__setstate__``/``__reduce__``;
- ``zips``: zip members read within their declared sizes; ``npy``: ``.npy``/``.npz``;
  ``safetensors_io``: safetensors through the ``safetensors`` library;
- ``atomic``: writes that a crash cannot half-do, and the cleanup of what a killed one left;
- ``text``: a file's values in error messages, short and safe to print.
"""
