"""Paddle names that make no sense in mutograd, each with the reason and what to use instead.

``reason(namespace, name)`` answers for one name (``tools/api_coverage.py`` lists these as
refused rather than missing in docs/api_coverage.md); reading one from a paddle module raises an
AttributeError that says both (instead of the bare "not supported yet" that missing names get),
e.g.::

    >>> import mutograd.compat.paddle as paddle
    >>> paddle.bfloat16
    Traceback (most recent call last):
    ...
    AttributeError: paddle.bfloat16 is not supported in mutograd: NumPy has no bfloat16 ...
"""
_DENSE = ("mutograd has no selected-rows tensors (sparse rows of a gradient); use a dense "
          "tensor, or a COO tensor from paddle.sparse")
_SPARSE_METHOD = ("a method of sparse tensors, which a dense paddle.Tensor is not: make one with "
                  "x.to_sparse_coo(sparse_dim), x.to_sparse_csr() or paddle.sparse")
_SPARSE_CONV = ("sparse convolution, pooling and normalisation of point clouds (submanifold "
                "kernels over voxel hash maps) are not implemented; use x.to_dense() and the "
                "dense paddle.nn layers")
_DIST = ("auto-parallel distributed tensors are not part of mutograd; use "
         "paddle.distributed over MPI (all_reduce, DataParallel)")
_ENGINE = ("an internal module of Paddle's dygraph engine; mutograd's engine is "
           "mutograd.autograd")
_DTYPE = ("NumPy has no {0} dtype, so mutograd cannot store it; use float16 or float32")
_UINT = "mutograd's unsigned integer dtype is uint8 only; use int32 or int64"
_FLOPS = ("counting floating-point operations per layer is not implemented; "
          "paddle.summary(net, input_size) gives the layers' shapes and parameter counts")
_LOGGER = ("it writes through the {0} package, which mutograd does not depend on; call it from "
           "a paddle.callbacks.Callback of your own (on_train_batch_end, on_eval_end)")
_PINNED = "there is no pinned host memory here; use paddle.CPUPlace()"
_AMP = ("automatic mixed precision is not part of the paddle namespace; run float32, or use "
        "mutograd.compat.torch.amp")
_COMPAT = "Paddle's PyTorch-proxy mode: import mutograd.compat.torch as torch instead"
_DEVICE = "a device backend mutograd does not have (XPU, IPU, custom plug-ins): use CPU or GPU"
_STREAM = "GPU streams and events order asynchronous work: every mutograd op runs to completion"
_ENGINE_STATIC = ("an internal hook of Paddle's static-graph/PIR machinery; mutograd runs eagerly "
                  "and has no programs")
_KERNEL = ("a specialised fused kernel that mutograd does not have; compose it from "
           "ops (paddle.nn.functional.scaled_dot_product_attention for attention)")

REFUSED = {
    "paddle": {
        "bfloat16": _DTYPE.format("bfloat16"), "BFloat16Tensor": _DTYPE.format("bfloat16"),
        "float8_e4m3fn": _DTYPE.format("float8"), "float8_e5m2": _DTYPE.format("float8"),
        "uint16": _UINT, "uint32": _UINT, "uint64": _UINT,
        "pstring": "string tensors are not supported; keep strings in Python lists",
        "raw": "raw (untyped) tensors are not supported; use a typed tensor",
        "flops": _FLOPS,
        "CUDAPinnedPlace": _PINNED, "XPUPinnedPlace": _PINNED,
        "MmapStorage": "memory-mapped storage: numpy.load(path, mmap_mode='r') then "
                       "paddle.to_tensor",
        "autocast": _AMP, "is_autocast_enabled": _AMP, "get_autocast_dtype": _AMP,
        "get_autocast_cpu_dtype": _AMP, "get_autocast_gpu_dtype": _AMP,
        "enable_compat": _COMPAT, "disable_compat": _COMPAT,
        "shard_index": _DIST,
        "CustomPlace": _DEVICE, "IPUPlace": _DEVICE, "XPUPlace": _DEVICE,
        "get_device_module": _DEVICE, "Event": _STREAM, "Stream": _STREAM,
        "IrGuard": _ENGINE_STATIC, "ir_guard": _ENGINE_STATIC, "use_compat_guard": _COMPAT,
        "new_init": _ENGINE_STATIC, "async_save": "saving runs synchronously here: use "
                                                    "paddle.save",
        "clear_async_save_task_queue": "saving runs synchronously here (paddle.save); there is "
                                       "no queue",
        **{n: _ENGINE_STATIC for n in ("monkey_patch_dtype",
                                       "monkey_patch_generated_methods_for_tensor",
                                       "monkey_patch_generated_methods_for_value",
                                       "monkey_patch_math_tensor", "monkey_patch_program",
                                       "monkey_patch_value", "monkey_patch_variable")},
        "as_complex": "complex views of real pairs need strided complex memory, which mutograd "
                      "does not have; use paddle.complex(real, imag)",
        "as_real": "complex views need strided complex memory, which mutograd does not have; "
                   "use paddle.stack([x.real, x.imag], -1)",
    },
    "paddle.Tensor": {
        "bfloat16": _DTYPE.format("bfloat16"),
        **{n: _SPARSE_METHOD for n in ("coalesce", "cols", "crows", "dense_dim", "indices",
                                       "is_coalesced", "nnz", "sparse_dim", "values")},
        **{n: _DENSE for n in ("rows", "get_selected_rows")},
        **{n: _DIST for n in ("num_shard", "placements", "process_mesh", "shard_index")},
        **{n: "a Paddle static-graph/inference handle; not part of mutograd" for n in (
            "get_map_tensor", "set_string_list", "set_tensor", "set_vocab", "create_tensor")},
        "create_parameter": "create parameters with paddle.create_parameter or "
                            "Layer.create_parameter",
        "block": "a static-graph program block; mutograd has no programs",
        "top_p_sampling": _KERNEL,
        **{n: "complex views of real pairs (and back) need strided complex memory, which "
              "mutograd does not have; use paddle.complex(real, imag) and x.real / x.imag"
           for n in ("as_complex", "as_real", "view_as_complex", "view_as_real")},
    },
    "paddle.callbacks": {"VisualDL": _LOGGER.format("visualdl"),
                         "WandbCallback": _LOGGER.format("wandb")},
    "paddle.hapi": {"flops": _FLOPS},
    "paddle.static": {n: ("Paddle's static-graph programs: mutograd runs eagerly (dynamic graph "
                          "mode only); paddle.static has InputSpec, for paddle.Model")
                      for n in ("Program", "program_guard", "data", "Executor",
                                "default_main_program", "default_startup_program",
                                "save_inference_model", "load_inference_model", "CompiledProgram",
                                "global_scope", "scope_guard", "nn", "append_backward",
                                "gradients", "name_scope", "py_func", "Variable")},
    "paddle.base.dygraph": {n: _ENGINE for n in (
        "Tracer", "tracer", "generated_tensor_methods_patch", "math_op_patch",
        "tensor_patch_methods")},
    "paddle.nn": {
        "SyncBatchNorm": "batch statistics across ranks are not implemented; BatchNorm2D "
                         "normalises each rank's batch",
        **{n: _KERNEL for n in ("CTCLoss", "RNNTLoss", "HSigmoidLoss", "BeamSearchDecoder",
                                "dynamic_decode")},
    },
    "paddle.sparse": {"pca_lowrank": "a randomized low-rank PCA is not implemented; use "
                                     "paddle.linalg.svd(x.to_dense())",
                      "slice": "slicing a sparse tensor is not implemented; use "
                               "x.to_dense() and a dense slice"},
    "paddle.sparse.nn": {n: _SPARSE_CONV for n in (
        "Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D", "MaxPool3D", "BatchNorm",
        "SyncBatchNorm")},
    "paddle.sparse.nn.functional": {
        **{n: _SPARSE_CONV for n in ("conv2d", "conv3d", "subm_conv2d", "subm_conv2d_igemm",
                                     "subm_conv3d", "subm_conv3d_igemm", "max_pool3d")},
        "attention": "sparse attention with a CSR mask is not implemented; use "
                     "paddle.nn.functional.scaled_dot_product_attention with a dense mask"},
    "paddle.linalg": {"fp8_fp8_half_gemm_fused": _DTYPE.format("float8")},
    "paddle.fft": {
        **{n: ("an internal helper of Paddle's fft module (its static-graph and kernel "
               "plumbing); call paddle.fft.fft, fftn, rfft, ... instead")
           for n in ("LayerHelper", "check_variable_and_dtype", "in_dynamic_or_pir_mode",
                     "is_floating_point", "is_integer", "param_two_alias", "fft_c2c", "fft_c2r",
                     "fft_r2c", "fftn_c2c", "fftn_c2r", "fftn_r2c")},
    },
    "paddle.nn.functional": {
        **{n: _KERNEL for n in ("ctc_loss", "rnnt_loss", "hsigmoid_loss", "margin_cross_entropy",
                                "class_center_sample", "flash_attention_v3_varlen",
                                "flash_attn_qkvpacked", "flash_attn_varlen_qkvpacked",
                                "flashmask_attention", "moe_permute", "moe_unpermute",
                                "sparse_attention", "gather_tree")},
    },
}


def reason(namespace, name):
    """Why ``namespace.name`` is refused, or None when it is not."""
    return REFUSED.get(namespace, {}).get(name)


def _getattr(module_name, previous):
    refused = REFUSED.get(module_name, {})

    def __getattr__(name):
        if name in refused:
            raise AttributeError(f"{module_name}.{name} is not supported in mutograd: "
                                 f"{refused[name]}")
        return previous(name)
    return __getattr__


def install(root):
    """Give ``root`` (mutograd.compat.paddle) and its submodules the refusals above, ahead of
    the generic "not supported yet" of ``refuse_missing``. (``paddle.Tensor``'s are listed for
    the documentation; Tensor is shared by every namespace, so reading one there is a plain
    AttributeError.)"""
    for paddle_name in REFUSED:
        if paddle_name == "paddle.Tensor":
            continue
        mod = root
        for part in paddle_name.split(".")[1:]:
            mod = getattr(mod, part)
        previous = vars(mod).get("__getattr__") or _raise(paddle_name)
        mod.__getattr__ = _getattr(paddle_name, previous)


def _raise(name):
    def missing(attr):
        raise AttributeError(f"{name} has no attribute {attr!r}")
    return missing
