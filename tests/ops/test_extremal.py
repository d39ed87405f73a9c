"""Every row of the op table on extremal inputs, against PyTorch.

The generic checks of test_ops.py draw well-behaved inputs. Here each row
runs again on inputs PyTorch has a defined answer for that such draws never produce:

- ``special``: NaN, +inf, -inf, -0.0 and +0.0 mixed into otherwise normal float inputs, so that
  the kinks (relu, abs, clamp at a bound, pow at 0, max/min ties) are hit exactly;
- ``empty-*``: every tensor input of shape (0,), (0, 3) or (3, 0);
- ``0d-*``: every tensor input 0-d, with ``dim=0`` and ``dim=-1`` for an op taking a dim;
- ``int64`` and ``bool``: the float inputs cast, where PyTorch accepts that dtype for the op.

Compared with PyTorch: whether an error is raised (both or neither; ours must be a
``MutogradError``), the result's dtype and shape, its values (NaN positions, infinities, the sign
of zeros) and, in float64, the gradients at the same points. Rows PyTorch has no form of are
compared with the row's NumPy reference instead. The few deliberate differences are listed in
``EXCEPTIONS`` below, each with its reason (docs/ops.md, "Extremal inputs").
"""

import numpy as np
import pytest
from tests import op_db
from tests.helpers import ref_result

import mutograd as mg
from mutograd.errors import DTypeError, MutogradError
from mutograd.ops.registry import OPS

torch = pytest.importorskip("torch")
# NaN and inf inputs make NumPy and PyTorch warn (invalid value, divide by zero): expected here
pytestmark = [pytest.mark.torch, pytest.mark.filterwarnings("ignore::RuntimeWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning")]

SPECIALS = (np.nan, np.inf, -np.inf, -0.0, 0.0)
EMPTY = {"empty-0": (0,), "empty-0x3": (0, 3), "empty-3x0": (3, 0)}
DIM_KEYS = ("axis", "dim")
# rows whose dim is a positional argument of the sample (index into Sample.args)
DIM_ARGS = {"gather": 1, "index_select": 1}

# Deliberate differences from PyTorch, and rows whose PyTorch form only fits the sample's rank:
# case id ("row/variant") -> why. (An in-place row refusing to write a float result into an
# integer tensor is design.md rule 10, accepted below.)
EXCEPTIONS = {
    **dict.fromkeys(("relu6/special", "hardtanh-13/special"),
                    "PyTorch's hardtanh gradient at NaN differs between its vectorised and its "
                    "scalar CPU loop (0 in one, the incoming gradient in the other)"),
    **dict.fromkeys(("concat/empty-0", "roll/empty-0"),
                    "PyTorch skips the dim check for an empty 1-D tensor in cat and roll; we "
                    "check the dim whatever the size"),
    **dict.fromkeys(("take_along_axis/0d", "take_along_axis/0d-dim0",
                     "take_along_axis/0d-dim-1"),
                    "take_along_axis (Paddle, NumPy) follows gather's rule on a 0-d tensor; "
                    "PyTorch's take_along_dim refuses one"),
    **dict.fromkeys(("T/empty-0", "T/empty-0x3", "T/empty-3x0", "T/0d", "logsumexp/empty-0",
                     "logsumexp/0d", "cumsum-1d/empty-0x3", "cumsum-1d/empty-3x0",
                     "cumsum-1d/0d"),
                    "the row's PyTorch form is written for the sample's rank (permute(2, 1, 0), "
                    "dim=(0, 1), dim=0)"),
    **dict.fromkeys(("outer/0d", "outer/empty-0x3", "outer/empty-3x0"),
                    "outer flattens operands that are not 1-D, as Paddle's and NumPy's do (the "
                    "gradients take the operands' shapes back); PyTorch refuses them"),
    "addcmul/int64": "PyTorch truncates a float value for integer tensors (value=1.7 acts as 1; "
                     "its add refuses a float alpha there); we refuse a non-integral value",
    "addr-41/empty-0": "PyTorch's addr_ resizes an empty 1-D tensor to the [0, 0] result; an "
                       "in-place op never changes the written tensor's shape (design.md rule 10)",
}

# Bugs found by this test and not fixed yet, by class: each case is an expected failure
# (strict: a fix makes it pass, and then it must be removed from here).
KNOWN_BUGS = {
    "the sign of a zero result: scatter_reduce amin gives -0.0 where PyTorch gives +0.0":
    "scatter_reduce-54/special",
    "values or gradients at a pole, +-inf or NaN of pow and special functions differ from "
    "PyTorch's (NaN for inf, 0 for NaN, the sign of an infinite gradient)":
    "pow/special pow-sqrt/special float_power-37/special acosh-4/special atanh-5/special "
    "digamma-22/special polygamma-29/special logit-31/special xlogy-33/special "
    "copysign-34/special multigammaln-30/special",
    "gradients of renorm, scatter_reduce (prod, amax) and index_reduce at NaN and at several "
    "zeros differ from PyTorch's":
    "renorm-44/special renorm-45/special scatter_reduce-51/special scatter_reduce-53/special "
    "index_reduce-62/special index_reduce-63/special",
}
KNOWN = {case: why for why, cases in KNOWN_BUGS.items() for case in cases.split()}


# ---- the rows: one adapter over both tables ---------------------------------------------------

class Row:
    """One row of op_db.py, called the same way in mutograd and PyTorch (``surface``: a row of
    its in-place surface section, run through its ``_`` form)."""

    def __init__(self, info, surface, ident):
        self.info, self.surface, self.id = info, surface, ident

    @property
    def grad(self):
        return self.info.grad

    def draw(self, rng):
        """``(args, kwargs, diff)``: the row's sample as NumPy arrays and Python values."""
        info = self.info
        s = info.draw(rng)
        if not self.surface:
            return list(s.args), dict(s.kwargs), tuple(s.diff)
        diff = tuple(i for i, a in enumerate(s.args) if _is_float(a))
        return list(s.args), dict(info.attrs), diff

    def dims(self, args, kwargs):
        """Where this call's dim is: ('kw', key), ('arg', position), or None."""
        for k in DIM_KEYS:
            if isinstance(kwargs.get(k), (int, tuple)) and not isinstance(kwargs[k], bool):
                return ("kw", k)
        pos = DIM_ARGS.get(self.id)
        if pos is not None and pos < len(args) and isinstance(args[pos], int):
            return ("arg", pos)
        return None

    def run_mg(self, ts, kwargs):
        info = self.info
        if not self.surface:
            fn = getattr(mg, info.name, None)
            return info.call(fn, *ts, **kwargs) if info.call else fn(*ts, **kwargs)
        ts = [_writable(ts[0])] + list(ts[1:])
        pos, kw = _surface_args(info, ts, kwargs)
        return getattr(mg, info.name + "_")(*pos, **kw)

    def run_torch(self, tt, kwargs):
        """PyTorch's result, or NotImplemented when PyTorch has no form of the row."""
        info = self.info
        extra = TORCH_EXTRA.get(self.id)
        if extra is not None:
            return extra(*tt) if self.surface else extra(*tt, **kwargs)
        if not self.surface:
            if info.torch is False:
                return NotImplemented
            if callable(info.torch):
                return info.torch(torch, *tt, **kwargs)
            fn = _torch_fn(info)
            return info.call(fn, *tt, **kwargs) if info.call else fn(*tt, **kwargs)
        if callable(info.torch_inplace):
            return info.torch_inplace(torch, *tt)
        if not info.torch_inplace:
            return NotImplemented
        h = _writable(tt[0])
        return getattr(h, (info.torch_name or info.name) + "_")(*tt[1:])

    def ref(self, args, kwargs):
        """The row's NumPy reference (for rows PyTorch has no form of)."""
        info = self.info
        if self.surface:
            return info.ref(*[np.copy(a) for a in args])
        return ref_result(info, args, kwargs)


def _writable(t):
    """A non-leaf copy to write in place (a product keeps the gradient path to the leaf)."""
    return t * 1 if t.requires_grad else t.clone()


def _surface_args(info, ts, kwargs):
    if info.call is not None:
        return info.call(lambda *pos, **kw: (pos, kw), *ts, **kwargs)
    return tuple(ts), dict(kwargs)


def _torch_fn(info):
    obj = torch
    name = info.torch_name or info.name
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:     # only a Tensor method in PyTorch
            return lambda x, *a, **kw: getattr(x, name)(*a, **_torch_kw(kw))
    return lambda *a, **kw: obj(*a, **_torch_kw(kw))


def _torch_kw(kw):
    names = {"axis": "dim", "keepdims": "keepdim"}
    return {names.get(k, k): v for k, v in kw.items()}


def _scatter_assign(x, i, s):
    return torch.scatter(x, 0, i, s)


def _fill_diag(x, v):
    # fill_diagonal_ with a tensor value (so that it has a gradient): PyTorch's own check, and
    # the result in x's dtype, as the in-place op writes it
    if x.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    eye = torch.eye(*x.shape, dtype=torch.bool)
    return torch.where(eye, v, x).to(x.dtype)


def _fill_diag_tensor(x, y):
    band = torch.zeros(x.shape, dtype=torch.bool)
    band[torch.arange(4), torch.arange(4) + 1] = True
    out = x.clone()
    return torch.where(band, out.index_put((torch.arange(4), torch.arange(4) + 1), y), out)


# PyTorch forms of the rows the tables give none for (the same computation in PyTorch's names)
TORCH_EXTRA = {
    "scale": lambda x, scale, bias, **kw: x * scale + bias
    if kw.get("bias_after_scale", True) else (x + bias) * scale,
    "scale-bias-first": lambda x, scale, bias, bias_after_scale: (x + bias) * scale,
    "sum-torch-names": lambda x, dim, keepdims: torch.sum(x, dim, keepdim=keepdims),
    "repeat_interleave-per-row": lambda x, repeats, axis: torch.repeat_interleave(
        x, torch.as_tensor(repeats), axis),
    "take_along_axis": lambda x, idx, axis: torch.take_along_dim(x, idx, axis),
    "index_select-keywords": lambda x, idx, axis: torch.index_select(x, axis, idx),
    "cast": lambda x: x.to(torch.int32),
    "thresholded_relu-19": lambda x: torch.threshold(x, 0.5, 0.0),
    "fill_diagonal-48": _fill_diag,
    "fill_diagonal_tensor-49": _fill_diag_tensor,
    "put_along_axis-59": lambda x, i, s: torch.scatter_add(x, 0, i, s),
    "embedding_renorm-46": lambda w, i: torch.embedding_renorm_(_writable(w), i, 0.8, 2.0),
}

ROWS = ([Row(o, False, o.id) for o in op_db.BASE]
        + [Row(o, True, f"{o.name}-{i}") for i, o in enumerate(op_db.SURFACE)])


# ---- the extremal variants of a row's sample --------------------------------------------------

def _is_float(a):
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _with_specials(a, k):
    """``a`` with NaN, +-inf and +-0 at two of every three elements (offset by input ``k``)."""
    a = a.copy()
    flat = a.reshape(-1)
    for j in range(flat.size):
        if (j + k) % 3 != 2:
            flat[j] = SPECIALS[(j + 2 * k) % len(SPECIALS)]
    return a


def _reshaped(a, x_ndim, shape):
    """Input ``a`` (not the first) for a first input of ``shape``: same shape when it had the
    first input's number of dimensions, else a 1-D index or mask of length 0 (empty shapes) or
    1 (0-d)."""
    if a.ndim == 0:
        return a
    if a.ndim == x_ndim:
        return np.resize(a, shape) if a.size and 0 not in shape else np.zeros(shape, a.dtype)
    n = 0 if 0 in shape else 1
    return np.resize(a, (n,)) if a.size else np.zeros((n,), a.dtype)


def _index_like(a, shape):
    """An integer index of ``shape`` that is in range for any dimension (zeros)."""
    return np.zeros(shape, a.dtype)


def variant(args, kwargs, row, name):
    """The row's sample turned into variant ``name``, or None when it does not apply."""
    args, kwargs = list(args), dict(kwargs)
    if name == "special":
        k = 0
        for i, a in enumerate(args):
            if _is_float(a):
                args[i] = _with_specials(a, k)
                k += 1
        return (args, kwargs) if k else None
    if name in ("int64", "bool"):
        found = False
        for i, a in enumerate(args):
            if _is_float(a):
                args[i] = np.round(2 * a).astype(np.int64) if name == "int64" else a > 0
                found = True
        return (args, kwargs) if found else None
    shape = EMPTY.get(name, ())
    first = next((a for a in args if isinstance(a, np.ndarray)), None)
    if first is None or first.ndim == 0:
        return None
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray):
            continue
        if a is first or (a.ndim == first.ndim and a.dtype.kind == "f"):
            filled = np.resize(a, shape) if 0 not in shape else np.zeros(shape, a.dtype)
            args[i] = filled
        elif a.dtype.kind in "iu" and a.ndim == first.ndim:
            args[i] = _index_like(a, shape)
        else:
            args[i] = _reshaped(a, first.ndim, shape) if a.dtype.kind != "f" or a.ndim else a
            if a.dtype.kind == "f" and a.ndim and a.ndim != first.ndim:
                args[i] = np.resize(a, shape) if 0 not in shape else np.zeros(shape, a.dtype)
    if name.startswith("0d-"):
        where = row.dims(args, kwargs)
        if where is None:
            return None
        d = int(name[len("0d-dim"):])
        if where[0] == "kw":
            kwargs[where[1]] = (d,) if isinstance(kwargs[where[1]], tuple) else d
        else:
            args[where[1]] = d
    return args, kwargs


def _variants(row):
    args, kwargs, _ = row.draw(np.random.default_rng(0))
    names = ["special", *EMPTY, "0d"]
    if row.dims(args, kwargs) is not None:
        names += ["0d-dim0", "0d-dim-1"]
    names += ["int64", "bool"]
    return names


CASES = [(r, v) for r in ROWS for v in _variants(r)]


# ---- running and comparing --------------------------------------------------------------------

def _parts(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _np_dtype(t):
    if isinstance(t, torch.Tensor):
        return np.dtype(str(t.dtype).replace("torch.", ""))
    if isinstance(t, mg.Tensor):
        return t._data.dtype
    return np.asarray(t).dtype


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:   # noqa: BLE001 - the error itself is what is compared
        return None, e


def _assert_same_values(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    if want.dtype.kind == "f" or got.dtype.kind == "f":
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        tol = 1e-6 if np.float32 in (got.dtype, want.dtype) else 1e-9
        np.testing.assert_allclose(g64, w64, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
        zeros = w64 == 0
        np.testing.assert_array_equal(np.signbit(g64[zeros]), np.signbit(w64[zeros]),
                                      err_msg=f"{what}: sign of zero")
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _float_op(row):
    """Whether the row's op is declared with a float result (Note [Float results of integer
    inputs] in mutograd/ops/registry.py)."""
    return getattr(OPS.get(row.info.name), "float_result", False)


def _case(row, name):
    case = f"{row.id}/{name}"
    marks = [pytest.mark.xfail(reason=KNOWN[case], strict=True)] if case in KNOWN else []
    return pytest.param(row, name, id=case, marks=marks)


@pytest.mark.parametrize("row,name", [_case(r, v) for r, v in CASES])
def test_extremal_inputs_match_pytorch(row, name):
    why = EXCEPTIONS.get(f"{row.id}/{name}")
    if why:
        pytest.skip(why)
    base = row.draw(np.random.default_rng(0))
    v = variant(base[0], base[1], row, name)
    if v is None:
        pytest.skip("the variant does not apply to this row's inputs")
    args, kwargs = v
    grad = row.grad and name not in ("int64", "bool")
    diff = [i for i, a in enumerate(args) if _is_float(a)] if grad else []
    ts = [mg.tensor(a, requires_grad=i in diff) if isinstance(a, np.ndarray) else a
          for i, a in enumerate(args)]
    tt = [torch.tensor(a, requires_grad=i in diff) if isinstance(a, np.ndarray) else a
          for i, a in enumerate(args)]
    want, terr = _outcome(lambda: row.run_torch(tt, kwargs))
    got, err = _outcome(lambda: row.run_mg(ts, kwargs))
    if want is NotImplemented:
        # no PyTorch form: the NumPy reference, written for the row's own sample, says what
        # the values are where it runs; it is no judge of which inputs are errors
        want, terr = _outcome(lambda: row.ref(args, kwargs))
        grad = False
        if terr is not None:
            assert err is None or isinstance(err, MutogradError), repr(err)
            return
    if name in ("int64", "bool") and terr is not None:
        return   # PyTorch does not take this dtype for this op: nothing to compare
    if row.surface and name in ("int64", "bool") and isinstance(err, DTypeError):
        return   # a float result is not written into an integer tensor (design.md rule 10)
    if err is not None:
        assert isinstance(err, MutogradError), (
            f"mutograd raised {type(err).__name__}: {err} (not a mutograd error class)")
    assert (err is None) == (terr is None), (
        f"mutograd {'raised ' + repr(err) if err else 'did not raise'}; PyTorch "
        f"{'raised ' + repr(terr) if terr else 'did not raise'}")
    if err is not None:
        return
    got, want = _parts(got), _parts(want)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        gd, wd = _np_dtype(g), _np_dtype(w)
        if gd != wd and not (name in ("int64", "bool") and not _float_op(row)
                             and (gd, wd) == (np.float64, np.float32)):
            # the exception: an integer tensor meeting a Python float (scale, clamp, where,
            # pow(x, 0.5)) gives float64 by NumPy's promotion (docs/ops.md); an op with a float
            # result of integer inputs alone gives the default float32, as PyTorch
            raise AssertionError(f"output {k}: dtype {gd}, PyTorch {wd}")
        wv = w.detach().numpy() if isinstance(w, torch.Tensor) else w
        gv = g.numpy() if isinstance(g, mg.Tensor) else g
        _assert_same_values(gv, wv, f"output {k}")
    if not grad or not diff or not any(w.dtype.is_floating_point for w in want):
        return
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal(tuple(w.shape)) for w in want if w.dtype.is_floating_point]
    tloss = sum((w * torch.tensor(c)).sum() for w, c in zip(
        [w for w in want if w.dtype.is_floating_point], weights))
    mloss = sum((g * mg.tensor(c)).sum() for g, c in zip(
        [g for g in got if g.dtype.is_floating_point], weights))
    _, terr = _outcome(lambda: tloss.backward())
    _, err = _outcome(lambda: mloss.backward())
    if isinstance(terr, NotImplementedError):
        return   # PyTorch has no derivative for this op (embedding_renorm_)
    assert (err is None) == (terr is None), f"backward: mutograd {err!r}, PyTorch {terr!r}"
    for i in diff:
        tg = tt[i].grad
        tg = np.zeros(args[i].shape) if tg is None else tg.numpy(force=True)
        mgr = ts[i].grad
        mgr = np.zeros(args[i].shape) if mgr is None else mgr.numpy()
        np.testing.assert_allclose(mgr, tg, rtol=1e-7, atol=1e-9, equal_nan=True,
                                   err_msg=f"gradient of input {i}")
