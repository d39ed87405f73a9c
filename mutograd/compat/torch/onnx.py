"""``torch.onnx``: importable, so that scripts which export at the end run up to there; exporting
needs PyTorch's tracer and raises an error that says what to do instead.

    >>> import mutograd.compat.torch as torch
    >>> torch.onnx.is_in_onnx_export()
    False
"""
from ...errors import MutogradError

_WHY = ("ONNX export traces a model through PyTorch's JIT, which mutograd does not have; save "
        "the weights with torch.save(model.state_dict(), path) (safetensors/.npz) and export "
        "from PyTorch after loading them there")


class OnnxExporterError(MutogradError, RuntimeError):
    """Raised by every exporting function of ``torch.onnx``."""


def _refused(name):
    def fn(*args, **kwargs):
        raise OnnxExporterError(f"torch.onnx.{name}() is not supported: {_WHY}")
    fn.__name__ = name
    fn.__doc__ = f"Refused: {_WHY}."
    return fn


export = _refused("export")
dynamo_export = _refused("dynamo_export")
export_to_pretty_string = _refused("export_to_pretty_string")
select_model_mode_for_export = _refused("select_model_mode_for_export")
register_custom_op_symbolic = _refused("register_custom_op_symbolic")
unregister_custom_op_symbolic = _refused("unregister_custom_op_symbolic")


def is_in_onnx_export():
    """Always False: nothing is ever being exported."""
    return False
