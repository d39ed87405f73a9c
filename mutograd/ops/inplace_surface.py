"""The in-place surface of both frameworks, as data, and the generated table of in-place APIs.

``PADDLE_INPLACE`` lists Paddle 3.3.1's public in-place APIs and ``TORCH_INPLACE`` PyTorch 2.13's
in-place variants of the same families; every name exists as ``mutograd.X_`` and ``Tensor.X_``
(a test enumerates both lists). ``FORMS`` says, for each name, where the frameworks offer it;
``docs/inplace_api.md`` is generated from the registry by::

    python -m mutograd.ops.inplace_surface --markdown > docs/inplace_api.md
"""
import sys

PADDLE_INPLACE = (
    "abs_", "acos_", "acosh_", "add_", "addmm_", "apply_", "asin_", "asinh_", "atan_", "atanh_",
    "baddbmm_", "bernoulli_", "bitwise_and_", "bitwise_invert_", "bitwise_left_shift_",
    "bitwise_not_", "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "cast_", "cauchy_",
    "ceil_", "clamp_", "clip_", "copy_", "copysign_", "cos_", "cosh_", "cumprod_", "cumsum_",
    "detach_", "digamma_", "div_", "divide_", "elu_", "embedding_renorm_", "equal_", "erf_",
    "erfinv_", "exp_", "expm1_", "exponential_", "fill_", "fill_diagonal_",
    "fill_diagonal_tensor_", "flatten_", "floor_", "floor_divide_", "floor_mod_", "frac_",
    "gammainc_", "gammaincc_", "gammaln_", "gcd_", "geometric_", "greater_equal_",
    "greater_than_", "hardtanh_", "hypot_", "i0_", "index_add_", "index_fill_", "index_put_",
    "lcm_", "ldexp_", "leaky_relu_", "lerp_", "less_", "less_equal_", "less_than_", "lgamma_",
    "log10_", "log1p_", "log2_", "log_", "log_normal_", "logical_and_", "logical_not_",
    "logical_or_", "logical_xor_", "logit_", "masked_fill_", "masked_scatter_", "matmul_", "mod_",
    "mul_", "multigammaln_", "multiply_", "nan_to_num_", "neg_", "normal_", "not_equal_",
    "polygamma_", "pow_", "put_along_axis_", "random_", "reciprocal_", "relu_", "remainder_",
    "renorm_", "requires_grad_", "reshape_", "resize_", "round_", "rsqrt_", "scale_", "scatter_",
    "scatter_add_", "set_", "sigmoid_", "sin_", "sinc_", "sinh_", "softmax_", "sqrt_", "square_",
    "squeeze_", "sub_", "subtract_", "t_", "tan_", "tanh_", "thresholded_relu_", "transpose_",
    "tril_", "triu_", "trunc_", "uniform_", "unsqueeze_", "where_", "zero_",
    # a Tensor method of Paddle 3.3.1 outside the list (Tensor.grad_ is an attribute)
    "reconstruct_from_",
)

# PyTorch's spellings of the families above, and its additions
TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "add_", "addmm_", "apply_", "asin_", "asinh_", "atan_", "atanh_",
    "baddbmm_", "bernoulli_", "bitwise_and_", "bitwise_left_shift_", "bitwise_not_",
    "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "cauchy_", "ceil_", "clamp_", "clip_",
    "copy_", "copysign_", "cos_", "cosh_", "cumprod_", "cumsum_", "detach_", "digamma_", "div_",
    "divide_", "embedding_renorm_", "erf_", "erfinv_", "exp_", "expm1_", "exponential_", "fill_",
    "fill_diagonal_", "floor_", "floor_divide_", "frac_", "gcd_", "geometric_", "hypot_", "i0_",
    "index_add_", "index_fill_", "index_put_", "lcm_", "ldexp_", "lerp_", "lgamma_", "log10_",
    "log1p_", "log2_", "log_", "log_normal_", "logical_and_", "logical_not_", "logical_or_",
    "logical_xor_", "logit_", "masked_fill_", "masked_scatter_", "mul_", "multiply_",
    "nan_to_num_", "neg_", "normal_", "polygamma_", "pow_", "random_", "reciprocal_", "relu_",
    "remainder_", "renorm_", "requires_grad_", "resize_", "round_", "rsqrt_", "scatter_",
    "scatter_add_", "set_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "squeeze_",
    "sub_", "subtract_", "t_", "tan_", "tanh_", "transpose_", "tril_", "triu_", "trunc_",
    "uniform_", "unsqueeze_", "zero_", "addbmm_", "addcdiv_", "addcmul_", "addmv_", "addr_",
    "clamp_max_", "clamp_min_", "deg2rad_", "rad2deg_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_",
    "erfc_", "exp2_", "float_power_", "fmod_", "heaviside_", "igamma_", "igammac_", "index_copy_",
    "index_reduce_", "mvlgamma_", "nextafter_", "put_", "scatter_reduce_", "sgn_", "sign_",
    "true_divide_", "xlogy_", "resize_as_",
    # PyTorch's functional in-place activations of the same families
    "elu_", "hardtanh_", "leaky_relu_", "celu_", "selu_", "rrelu_", "threshold_",
    # and the rest of PyTorch's Tensor in-place methods outside sparse tensors and storage
    "swapaxes_", "swapdims_", "map_", "conj_physical_",
)

# Where each framework offers a name, recorded from paddlepaddle 3.3.1 and torch 2.13.0 (by
# ``hasattr`` on the installed packages): "function" (paddle.X_ / torch.X_), "method"
# (Tensor.X_), "functional" (paddle.nn.functional.X_ / torch.nn.functional.X_).
PADDLE_NO_FUNCTION = (
    "add_", "apply_", "ceil_", "clamp_", "clip_", "copy_", "detach_", "elu_", "embedding_renorm_",
    "erfinv_", "exp_", "exponential_", "fill_", "fill_diagonal_", "fill_diagonal_tensor_",
    "floor_", "hardtanh_", "leaky_relu_", "lerp_", "matmul_", "mul_", "put_along_axis_",
    "random_", "reciprocal_", "relu_", "requires_grad_", "resize_", "round_", "rsqrt_", "scale_",
    "set_", "sigmoid_", "softmax_", "sqrt_", "thresholded_relu_", "uniform_", "zero_",
    "reconstruct_from_",
)
PADDLE_NO_METHOD = ("elu_", "embedding_renorm_", "erf_", "expm1_", "hardtanh_", "leaky_relu_",
                    "matmul_", "relu_", "softmax_", "thresholded_relu_")
PADDLE_FUNCTIONAL = ("elu_", "embedding_renorm_", "hardtanh_", "leaky_relu_", "relu_",
                     "softmax_", "tanh_", "thresholded_relu_")
TORCH_NO_FUNCTION = (
    "add_", "addmm_", "apply_", "baddbmm_", "bernoulli_", "bitwise_and_", "bitwise_left_shift_",
    "bitwise_not_", "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "cauchy_", "copy_",
    "copysign_", "cumprod_", "cumsum_", "digamma_", "div_", "divide_", "erfinv_", "exponential_",
    "fill_diagonal_", "floor_divide_", "geometric_", "hypot_", "index_add_", "index_fill_",
    "lerp_", "lgamma_", "log_normal_", "logical_and_", "logical_not_", "logical_or_",
    "logical_xor_", "masked_fill_", "masked_scatter_", "mul_", "multiply_", "normal_",
    "polygamma_", "pow_", "random_", "remainder_", "renorm_", "requires_grad_", "resize_",
    "scatter_", "scatter_add_", "set_", "squeeze_", "sub_", "subtract_", "t_", "transpose_",
    "tril_", "triu_", "uniform_", "unsqueeze_", "addbmm_", "addcdiv_", "addcmul_", "addr_",
    "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "float_power_", "fmod_", "heaviside_", "igamma_",
    "igammac_", "index_copy_", "index_reduce_", "mvlgamma_", "nextafter_", "put_",
    "scatter_reduce_", "sgn_", "sign_", "true_divide_", "elu_", "hardtanh_", "leaky_relu_",
    "swapaxes_", "swapdims_", "map_",
)
TORCH_NO_METHOD = ("embedding_renorm_", "elu_", "hardtanh_", "leaky_relu_", "celu_", "selu_",
                   "rrelu_", "threshold_")
TORCH_FUNCTIONAL_UNDERSCORE = ("celu_", "elu_", "hardtanh_", "leaky_relu_", "relu_", "rrelu_",
                               "selu_", "threshold_")
# torch.nn.functional names that take ``inplace=``
TORCH_FUNCTIONAL = ("alpha_dropout", "celu", "dropout", "dropout1d", "dropout2d", "dropout3d",
                    "elu", "feature_alpha_dropout", "hardsigmoid", "hardswish", "hardtanh",
                    "leaky_relu", "mish", "relu", "relu6", "rrelu", "selu", "silu", "threshold")


def forms(name, framework):
    """Where ``framework`` ('paddle' or 'torch') offers in-place ``name``."""
    paddle = framework == "paddle"
    if name not in (PADDLE_INPLACE if paddle else TORCH_INPLACE):
        return ()
    no_fn, no_method = ((PADDLE_NO_FUNCTION, PADDLE_NO_METHOD) if paddle else
                        (TORCH_NO_FUNCTION, TORCH_NO_METHOD))
    functional = PADDLE_FUNCTIONAL if paddle else TORCH_FUNCTIONAL_UNDERSCORE
    return tuple(f for f, has in (("function", name not in no_fn),
                                  ("method", name not in no_method),
                                  ("functional", name in functional)) if has)


FORMS = {n: {"paddle": forms(n, "paddle"), "torch": forms(n, "torch")}
         for n in dict.fromkeys(PADDLE_INPLACE + TORCH_INPLACE)}

# APIs written by hand (they change a tensor's buffer, dtype or metadata): what they keep, cost
_HAND = {
    "cast_": ("nothing (the gradient casts back)", "a new buffer of the new dtype"),
    "set_": ("no gradient (refused on a tensor that requires grad)", "none (shares source)"),
    "resize_": ("no gradient (refused on a tensor that requires grad)",
                "none when shrinking; a new zeroed buffer when growing"),
    "resize_as_": ("no gradient (refused on a tensor that requires grad)",
                   "none when shrinking; a new zeroed buffer when growing"),
    "apply_": ("no gradient (refused on a tensor that requires grad)",
               "the function's result, then a copy into x"),
    "detach_": ("leaves the graph", "none"),
    "map_": ("no gradient (refused on a tensor that requires grad)",
             "the function's results, then a copy into x"),
    "reconstruct_from_": ("leaves the graph (a new leaf)", "a copy of the other tensor"),
    "rrelu_": ("in training, the result and the slopes drawn; otherwise as `leaky_relu_`",
               "in training, the slopes: one buffer of x's size"),
    "requires_grad_": ("flag only", "none"),
}
_METADATA = ("reshape_", "flatten_", "squeeze_", "unsqueeze_", "t_", "transpose_", "swapaxes_",
             "swapdims_")
_HAND.update({n: ("nothing (only the shape changes: the history is rebased onto the view op)",
                  "none (no data moves; the version goes up by one, as for every write)")
              for n in _METADATA})
_VIA = {"where_": "where",
        "cauchy_": "cauchy", "geometric_": "geometric", "log_normal_": "log_normal",
        "random_": "random", "scatter_reduce_": "scatter_reduce",
        "put_along_axis_": "scatter_reduce", "index_reduce_": "scatter_reduce",
        "index_put_": "index_put", "uniform_": "uniform", "normal_": "normal",
        "clamp_": "clamp", "clip_": "clamp", "apply_": "copy",
        "fill_diagonal_": "fill_diagonal", "embedding_renorm_": "embedding_renorm"}


def op_of(name):
    """The declared op behind public in-place ``name`` (None for hand-written ones)."""
    from . import OPS, PUBLIC
    if name in _HAND:
        return None
    if name in _VIA:
        op = OPS.get(_VIA[name])
        return getattr(op, "written_first", None) or op
    fn = PUBLIC.get(name)
    for op in OPS.values():
        if getattr(op, "inplace_function", None) is fn and fn is not None:
            return getattr(op, "written_first", None) or op
    return None


def saves(op):
    """What the in-place form keeps for backward, and the extra memory it costs."""
    if not getattr(op, "differentiable", False):
        return "nothing (no gradient: a zero gradient for the old values)", "none"
    full = op.plan((1 << op.n_in) - 1)
    if not full:
        return "nothing", "none"
    x = op.inputs[0]
    parts = []
    for n in full:
        if n == "out":
            parts.append("the result (x after the write)")
        elif n == x:
            parts.append(f"a copy of `{x}` taken before the write")
        elif n in op.keeps:
            parts.append(f"`{n}`, kept from the forward when needed")
        else:
            parts.append(f"`{n}` (a reference)")
    cost = "one copy of x, only when x's gradient is needed" if x in full else "none"
    kept = [n for n in full if n in op.keeps]
    if kept:
        cost = ("" if cost == "none" else cost + "; ") + ", ".join(f"`{n}`" for n in kept) + \
            " when the forward keeps it"
    if x in full and op.plan(1) and x not in op.plan(1):
        cost = "one copy of x, only when another input's gradient is needed"
    if op.kind == "matmul":
        cost += "; a temporary product buffer"
    return ", ".join(parts), cost


def rows():
    """One row per in-place name: name, Paddle forms, PyTorch forms, what it keeps, cost."""
    from . import PUBLIC
    out = []
    for name in sorted(FORMS):
        if name in _HAND:
            keeps, cost = _HAND[name]
        else:
            op = op_of(name)
            keeps, cost = saves(op) if op is not None else ("(not available yet)", "")
            if op is not None and name in PUBLIC and op.name + "_" != name and name not in _VIA:
                keeps = f"as `{op.name}_`: " + keeps
        f = FORMS[name]
        out.append((name, ", ".join(f["paddle"]) or "-", ", ".join(f["torch"]) or "-", keeps,
                    cost))
    return out


def markdown():
    """The table of in-place APIs as Markdown (docs/inplace_api.md)."""
    lines = [
        "# In-place APIs",
        "",
        "Generated by `python -m mutograd.ops.inplace_surface --markdown`; do not edit by hand.",
        "",
        ("Every name below exists as `mutograd.NAME(x, ...)` and `x.NAME(...)`, returns `x` "
        "itself, bumps its version counter (the metadata ops `reshape_`, `t_`, ... too, though "
         "they change only the shape and strides), refuses a leaf that requires grad before "
         "writing, "
        "and is allowed under `no_grad()`. *Paddle* and *PyTorch* say where each framework "
        "offers it (function: `paddle.NAME`/`torch.NAME`; method: `Tensor.NAME`; functional: "
        "`paddle.nn.functional.NAME`). *Keeps* is what the in-place form saves for backward "
        "when its inputs require grad; *extra memory* is what that costs beyond the written "
        "tensor (Note [In-place saving])."),
        "",
        "| name | Paddle | PyTorch | keeps for backward | extra memory |",
        "|---|---|---|---|---|",
    ]
    for r in rows():
        lines.append(f"| `{r[0]}` | " + " | ".join(r[1:]) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if "--markdown" in sys.argv[1:]:
        sys.stdout.write(markdown())
    else:
        sys.stdout.write("\n".join(sorted(FORMS)) + "\n")
