"""PyTorch names that make no sense in mutograd, each with the reason and what to use instead.

``reason(namespace, name)`` answers for one name; the compat modules' ``__getattr__`` raises an
``AttributeError`` with that reason, and ``tools/api_coverage.py`` lists the names in
docs/api_coverage.md as refused rather than missing.
"""
import re

_JIT = ("TorchScript and the JIT compiler's graph IR: mutograd runs eagerly, write plain Python "
        "(torch.compile returns the model unchanged)")
_STORAGE = ("typed storages: a tensor's memory is a NumPy array here; use tensor.numpy(), "
            "torch.from_numpy() and torch.save()/torch.load()")
_QUANT = ("quantized tensors and their backends: mutograd computes in floating point; keep the "
          "float model")
_VENDOR = ("an entry point of one vendor's kernel library (cuDNN, MIOpen, oneDNN, FBGEMM): call "
           "the generic op (conv2d, batch_norm, linear, ...)")
_SPARSE = ("sparse layouts other than COO and CSR (CSC, BSR, BSC), nested and jagged tensors, "
           "and sparse-sparse products: mutograd.sparse has COO and CSR tensors with products "
           "by a dense matrix (torch.sparse.mm); use those or a dense tensor")
_SPARSE_METHOD = ("a method of sparse tensors, and this tensor is dense: make a sparse one with "
                  "x.to_sparse() or torch.sparse_coo_tensor()")
_SYM = "symbolic shapes of the tracing compiler: shapes here are plain Python ints"
_DTYPE = ("a dtype NumPy has no arithmetic for: use float32, float16 or float64 (integers: int8 to "
          "int64, uint8)")
_STREAM = ("CUDA streams and events order asynchronous GPU work: every mutograd op runs to "
           "completion")
_DISPATCH = ("PyTorch's dispatcher and its C++ internals: mutograd ops are Python functions; "
             "subclass nothing, call them")
_KERNEL = ("an internal kernel that PyTorch's public ops call: use the public op "
           "(batch_norm, layer_norm, dropout, ...)")
_DEVICE = ("a device backend mutograd does not have (IPU, XPU, MTIA, MAIA, Vulkan): use 'cpu' or "
           "'cuda'")
_WIDE_UNSIGNED = ("unsigned integers wider than 8 bits (hash_tensor gives a uint64): mutograd's "
                  "integer dtypes are int8 to int64 and uint8; use int32 or int64 (hash "
                  "tensor.numpy().tobytes() for a digest)")

_RULES = {
    "torch": [
        (r"AliasDb|AnyType|Argument|ArgumentSpec|AwaitType|Block|BoolType|CallStack|Capsule|"
         r"ClassType|Code|CompilationUnit|CompleteArgumentSpec|ComplexType|ConcreteModuleType\w*|"
         r"DeepCopyMemoTable|DeviceObjType|DictType|EnumType|ErrorReport|ExecutionPlan|FileCheck|"
         r"FloatType|FunctionSchema|Future|FutureType|Gradient|Graph|GraphExecutorState|"
         r"IODescriptor|InferredType|IntType|InterfaceType|JITException|ListType|"
         r"LiteScriptModule|Node|NoneType|NumberType|OperatorInfo|OptionalType|PyObjectType|"
         r"RRefType|Script\w*|StaticModule|StreamObjType|StringType|SymBoolType|SymIntType|"
         r"TensorType|TracingState|TupleType|Type|UnionType|Use|Value|BufferDict|"
         r"import_ir_module\w*|parse_ir|parse_schema|parse_type_comment|"
         r"merge_type_from_type_comment|unify_type_list|fork|wait|AggregationType|AVG|SUM|"
         r"LockingLogger|LoggerBase|NoopLogger|ThroughputBenchmark|BenchmarkConfig|"
         r"BenchmarkExecutionStats|while_loop|cond|classproperty", _JIT),
        (r"Storage|\w+Storage|StorageBase|is_storage|from_file|PyTorchFileReader|PyTorchFileWriter|"
         r"SerializationStorageContext|DeserializationStorageContext", _STORAGE),
        (r"q_\w+|qint\d+|quint\w+|quantize\w*|quantized_\w+|dequantize|fake_quantize\w+|"
         r"fused_moving_avg_obs_fake_quant|choose_qparams_optimized|int_repr|per_channel_\w+|"
         r"per_tensor_\w+|qscheme|empty_quantized", _QUANT),
        (r"(cudnn|miopen|mkldnn|fbgemm)_\w+", _VENDOR),
        (r"sparse_(?!(coo|csr|coo_tensor|csr_tensor)$)\w+|smm|hsmm|dsmm|hspmm|sspaddmm|"
         r"saddmm|\w*indices_copy|values_copy|resize_as_sparse_|jagged|segment_reduce", _SPARSE),
        (r"sym_\w+|SymBool|SymFloat|SymInt", _SYM),
        (r"bfloat16|bits\w*|bit|complex32|chalf|float8_\w+|float4_\w+|int[1-7]|uint[1-7]|"
         r"BFloat16Tensor", _DTYPE),
        (r"Stream|Event", _STREAM),
        (r"DispatchKey|DispatchKeySet|ExcludeDispatchKeyGuard|DisableTorchFunction\w*|Tag|"
         r"compiled_with_cxx11_abi|prepare_multiprocessing_environment|"
         r"profiler_allow_cudagraph_cupti_lazy_reinit_cuda12|get_file_path|typename", _DISPATCH),
        (r"native_\w+|batch_norm_(backward_elemt|backward_reduce|elemt|gather_stats\w*|stats|"
         r"update_stats)|autocast_(de|in)crement_nesting|norm_except_dim|"
         r"grid_sampler(_2d|_3d)?|affine_grid_generator|feature_dropout|"
         r"slice_inverse", _KERNEL),
        (r"is_vulkan_available", _DEVICE),
        (r"uint16|uint32|uint64|hash_tensor", _WIDE_UNSIGNED),
    ],
    "torch.Tensor": [
        (r"q_per_channel_axis|q_per_channel_scales|q_per_channel_zero_points|q_scale|"
         r"q_zero_point|qscheme|dequantize|int_repr", _QUANT),
        (r"to_mkldnn", _VENDOR),
        (r"coalesce|is_coalesced|col_indices|crow_indices|dense_dim|sparse_dim|indices|values",
         _SPARSE_METHOD),
        (r"ccol_indices|row_indices|sparse_mask|sparse_resize_|sparse_resize_and_clear_|"
         r"to_sparse_bsc|to_sparse_bsr|to_sparse_csc|smm|sspaddmm|resize_as_sparse_|"
         r"to_padded_tensor|slice_inverse", _SPARSE),
        (r"storage|untyped_storage|storage_type|record_stream|map2_|module_load|"
         r"const_data_ptr", _STORAGE),
        (r"bfloat16|chalf", _DTYPE),
        (r"ipu|xpu|mtia", _DEVICE),
        (r"reinforce|volatile|grad_dtype", _DISPATCH),
        (r"hash_tensor", _WIDE_UNSIGNED),
    ],
    "torch.nn.functional": [
        (r"BroadcastingList\d|boolean_dispatch|assert_int_or_pair|handle_torch_function|"
         r"has_torch_function\w*", _JIT),
        (r"ScalingType|SwizzleType|scaled_mm|scaled_grouped_mm", _DTYPE),
    ],
    "torch.sparse": [
        (r"SparseSemiStructuredTensor\w*|to_sparse_semi_structured", "the semi-structured "
         "(2:4) sparse format, a layout for the sparse tensor cores of NVIDIA GPUs "
         "(cuSPARSELt, CUTLASS kernels): keep the pruned weight as a dense tensor (its zeros "
         "in place), or use a COO or CSR tensor (x.to_sparse()) with torch.sparse.mm"),
        (r"BFloat16Tensor", _DTYPE),
    ],
    "torch.autograd": [
        (r"DeviceType|ProfilerActivity|ProfilerConfig|ProfilerEvent|ProfilerState|"
         r"kineto_available", "the Kineto profiler: use Python's cProfile and mutograd.memory"),
        (r"handle_torch_function|has_torch_function|is_tensor_like|enforce_grad_layout_policy",
         _DISPATCH),
        (r"NestedIOFunction", "PyTorch's legacy autograd Function with nested inputs, kept for "
         "old code: subclass torch.autograd.Function with static forward and backward"),
        (r"SavedTensor", "the C++ handle of a tensor a backward node saved: register "
         "torch.autograd.graph.saved_tensors_hooks to see or replace what is saved"),
    ],
    "torch.optim": [
        (r"SparseAdam", "sparse gradients: mutograd's gradients are dense; use Adam or AdamW"),
        (r"swap_in_optimizer_params_and_state", "PyTorch's helper for swapping tensor "
         "subclasses into an optimizer's state: mutograd has one tensor class; load a "
         "state_dict instead"),
    ],
    "torch.utils.data": [
        (r"DFIterDataPipe|DataChunk|IterDataPipe|MapDataPipe|functional_datapipe|"
         r"guaranteed_datapipes_determinism|non_deterministic|argument_validation|"
         r"runtime_validation\w*", "DataPipes (torchdata), deprecated by PyTorch: use Dataset, "
         "IterableDataset and DataLoader"),
    ],
}

_COMPILED = {ns: [(re.compile(p), r) for p, r in rules] for ns, rules in _RULES.items()}


def tensor_names():
    """``{name: reason}`` for the refused Tensor attributes (each rule a list of literal names)."""
    return {name: why for pattern, why in _RULES["torch.Tensor"] for name in pattern.split("|")}


class _Refused:
    """A Tensor attribute that raises its reason (an AttributeError, so ``hasattr`` is False)."""

    def __init__(self, name, why):
        self.name, self.why = name, why

    def __get__(self, obj, owner=None):
        raise AttributeError(f"Tensor.{self.name} is not supported in mutograd: {self.why}")


def _refusals_mixin():
    from ...tensor import Tensor
    attrs = {name: _Refused(name, why) for name, why in tensor_names().items()
             if not hasattr(Tensor, name)}
    return type("TensorRefusals", (), dict(attrs, __slots__=(), __module__=__name__, __doc__=(
        "The torch.Tensor attributes mutograd refuses, each raising its reason.")))


TensorRefusals = _refusals_mixin()


def reason(namespace, name):
    """Why ``namespace.name`` is refused, or None when it is not."""
    for pattern, why in _COMPILED.get(namespace, ()):
        if pattern.fullmatch(name):
            return why
    return None
