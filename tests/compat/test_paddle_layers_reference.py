"""Replay the ``paddle.nn`` layer cases recorded from Paddle 3.3.1
(tests/references/paddle_layer_cases.py, recorded into paddle_layer_reference.npz by
paddle_layer_reference.py) on ``mutograd.compat.paddle.nn``: the state_dict's names, shapes and
dtypes (and values of constant initialisations), ``str(layer)``, the outputs in train and eval
mode, the gradients of inputs and parameters, the state after a training step, and the errors
(ours must be an instance of the builtin class Paddle's error is, raised at the same stage or
earlier). Ours is built, then given Paddle's recorded initial values with ``set_state_dict``.

A difference is only accepted when it is listed in ``DIFFERENCES`` (Paddle wrong, or ours
different on purpose) or ``NEEDS_SHARED_FIX`` with its reason; a listed one must still differ
(so the lists do not go stale).
"""
import builtins

import numpy as np
import pytest
from tests.helpers import REFERENCES
from tests.references.paddle_layer_cases import CASES
from tests.references.paddle_layer_reference import record

import mutograd as mg
import mutograd.compat.paddle as paddle

with np.load(REFERENCES / "paddle_layer_reference.npz", allow_pickle=False) as _npz:
    REF = dict(_npz)        # read once: an NpzFile decompresses an array at every access

_NO_GRADIENT = ("Paddle 3.3.1 gives this input no gradient (None) although the loss depends "
                "on it; ours is the derivative (as PyTorch's)")
_DIVISOR = ("with exclusive=True Paddle 3.3.1 divides a window that overlaps the padding by "
            "divisor_override * valid / kernel area; its docs, PyTorch and ours divide every "
            "window's sum by divisor_override")
_SPECTRAL = ("Paddle 3.3.1's SpectralNorm returns dOut * (1 - u v' * W) / sigma, not the "
             "derivative of its output; ours is (test_paddle_spectral_norm.py checks it "
             "against finite differences)")
# (case, recorded name) -> why ours differs from Paddle 3.3.1 there: Paddle is wrong, or the
# difference is intentional (docs/compat.md)
DIFFERENCES = {
    ("Linear_no_weight", "error"): "Paddle 3.3.1 fails inside its own constructor "
                                   "(AttributeError on the weight it did not make); ours makes "
                                   "the Linear without a weight, and calling it raises",
    ("GroupNorm_no_affine", "grad_in0"): "group_norm without weight and bias: Paddle 3.3.1's "
                                         "gradient disagrees with its own finite differences "
                                         "(docs/compat.md; test_compat_paddle_reference.py "
                                         "checks ours against them)",
    ("AvgPool2D_divisor", "train0"): _DIVISOR,
    ("AvgPool2D_divisor", "eval0"): _DIVISOR,
    ("AvgPool2D_divisor", "grad_in0"): _DIVISOR,
    ("SpectralNorm", "grad_in0"): _SPECTRAL,
    ("SpectralNorm_dim", "grad_in0"): _SPECTRAL,
    ("KLDivLoss", "grad_in1"): _NO_GRADIENT,
    ("KLDivLoss_batchmean_log", "grad_in1"): _NO_GRADIENT,
    ("GaussianNLLLoss", "grad_in2"): _NO_GRADIENT,
    ("GaussianNLLLoss_full_var", "grad_in2"): _NO_GRADIENT,
}
# a padded batch with a sequence of length 0: Paddle's forward keeps its first states, but its
# gradient goes wrong there (test_paddle_rnn.py checks ours against finite differences)
DIFFERENCES.update({("GRU_sequence_length_empty", name): "with a sequence of length 0 Paddle "
                    "3.3.1's fused RNN gradient disagrees with its own finite differences; "
                    "ours agrees (docs/compat.md)"
                    for name in ["grad_in0", "grad_in1", "grad/weight_ih_l0_reverse",
                                 "grad/weight_hh_l0_reverse", "grad/bias_ih_l0_reverse",
                                 "grad/bias_hh_l0_reverse"]})
# differences whose fix belongs in the shared mutograd.nn classes (listed until they agree)
NEEDS_SHARED_FIX = {}


def _recorded(key):
    prefix = key + "/"
    return {k[len(prefix):]: v for k, v in REF.items() if k.startswith(prefix)}


def test_recorded_with_paddle_3_3_1():
    assert str(REF["paddle_version"]) == "3.3.1"
    assert {k.split("/")[0] for k in REF} - {"paddle_version", "layer_classes"} == \
        {c.key for c in CASES}


NOT_BUILT = {"RNNCellBase": "the cells' abstract base (each cell is built)"}


def test_every_paddle_layer_class_we_have_is_built_by_a_case():
    built = set()
    for case in CASES:
        try:
            built.add(type(case.make(paddle)))
        except Exception:  # noqa: BLE001, S112 - a case that checks an error
            continue
    ours = {name: getattr(paddle.nn, name) for name in REF["layer_classes"].tolist()
            if hasattr(paddle.nn, name) and name not in NOT_BUILT}
    assert sorted(name for name, cls in ours.items() if cls not in built) == []


def _differences(case, ref):
    """``{name: what differs}`` between Paddle's recorded values and ours."""
    state = None
    if "state_names" in ref:
        state = {n: ref[f"state/{n}"] for n in ref["state_names"].tolist()}
    mg.seed(0)
    ours = case.run(paddle, state)
    out = {}
    if "error" in ref or "error" in ours:
        out.update(_error_difference(ref, ours))
        if out:         # the rest differs because of it
            return out
    earlier = "error" in ours and ours["error_stage"] != str(ref["error_stage"])
    for name in sorted(set(ref) | set(ours)):
        if name in ("error", "error_stage") or name in out:
            continue
        if name not in ours and earlier:
            continue        # recorded by Paddle after the point where ours raised
        if name not in ours:
            out[name] = "missing in ours"
        elif name not in ref:
            out[name] = f"not in Paddle's: {_short(ours[name])}"
        else:
            why = _value_difference(name, ref[name], ours[name], case.tol)
            if why:
                out[name] = why
    return out


# Paddle checks some arguments with ``assert``; ours raise ValueError, the class of a bad
# argument value (an ``AssertionError`` disappears under ``python -O``)
_ERROR_CLASSES = {"AssertionError": ValueError}
# ours may raise at the same stage as Paddle or earlier (a bad argument at construction)
_STAGES = ["init", "forward", "eval"]


def _error_difference(ref, ours):
    if "error" not in ours:
        return {"error": f"Paddle raises at {ref['error_stage']}: {str(ref['error'])[:200]}; "
                         f"ours does not"}
    e = ours["error"]
    if "error" not in ref:
        return {"error": f"ours raises at {ours['error_stage']}: {type(e).__name__}: {e}"[:300]}
    paddle_class, message = str(ref["error"]).split("|", 1)
    expected = _ERROR_CLASSES.get(paddle_class) or getattr(builtins, paddle_class)
    if not isinstance(e, expected) or _STAGES.index(ours["error_stage"]) > \
            _STAGES.index(str(ref["error_stage"])):
        return {"error": f"Paddle {message[:150]!r} at {ref['error_stage']}; ours "
                         f"{type(e).__name__}: {str(e)[:150]} at {ours['error_stage']}"}
    return {}


def _short(v):
    return str(record(v))[:200]


def _value_difference(name, expected, got, tol):
    got = record(got)
    if expected.dtype.kind in "US" or got.dtype.kind in "US":
        if expected.dtype.kind != got.dtype.kind or not np.array_equal(expected, got):
            return f"Paddle {expected.tolist()!r}, ours {got.tolist()!r}"
        return None
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"shape/dtype: Paddle {list(expected.shape)} {expected.dtype}, " \
               f"ours {list(got.shape)} {got.dtype}"
    if name.startswith("state/") and np.unique(expected).size > 1:
        return None     # a random initialisation: only its shape and dtype compare
    rtol, atol = tol
    if expected.dtype.kind in "fc":
        if not np.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True):
            bad = ~np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
            return f"{bad.sum()}/{bad.size} values differ, max abs " \
                   f"{np.max(np.abs(got - expected)):.3g}"
    elif not np.array_equal(got, expected):
        return f"Paddle {expected.tolist()}, ours {got.tolist()}"[:300]
    return None


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_layer_matches_recorded_paddle(case):
    diffs = _differences(case, _recorded(case.key))
    listed = {**DIFFERENCES, **NEEDS_SHARED_FIX}
    unexpected = {k: v for k, v in diffs.items() if (case.key, k) not in listed}
    stale = [k for (c, k) in listed if c == case.key and k not in diffs]
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in unexpected.items())
    assert not stale, f"listed in DIFFERENCES but now agrees with Paddle: {stale}"
