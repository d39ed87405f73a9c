"""``torch.onnx``: importable, so that scripts which export at the end run up to there; exporting
needs PyTorch's tracer and raises an error that says what to do instead.

    >>> import mutograd.compat.torch as torch
    >>> torch.onnx.is_in_onnx_export()
    False
"""
from ...errors import MutogradError
from ..namespace import refused_functions

_WHY = ("ONNX export traces a model through PyTorch's JIT, which mutograd does not have; save "
        "the weights with torch.save(model.state_dict(), path) (safetensors/.npz) and export "
        "from PyTorch after loading them there")


class OnnxExporterError(MutogradError, RuntimeError):
    """Raised by every exporting function of ``torch.onnx``."""


(export, dynamo_export, export_to_pretty_string, select_model_mode_for_export,
 register_custom_op_symbolic, unregister_custom_op_symbolic) = refused_functions(
    "torch.onnx", _WHY, OnnxExporterError,
    ("export", "dynamo_export", "export_to_pretty_string", "select_model_mode_for_export",
     "register_custom_op_symbolic", "unregister_custom_op_symbolic"))


def is_in_onnx_export():
    """Always False: nothing is ever being exported."""
    return False
