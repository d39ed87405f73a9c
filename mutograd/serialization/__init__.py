"""Reading and writing files of tensors safely: the mechanisms under :mod:`mutograd.checkpoint`
(mutograd's own checkpoints) and :mod:`mutograd.interop` (weights of other tools).

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
