"""Random straight-line programs, their gradient checked against finite differences (float64).

A program is a few float64 leaves that require grad, a list of steps (each one or two lines of
Python) and a loss: a random weighted sum of several of the tensors it made. Steps are drawn from
the op table (tests/op_db.py: ordinary ops, their in-place ``op_`` forms, view rows) and from
this module's own view and write steps: slices with steps, select, transpose, permute, reshape,
expand, split/chunk/unbind outputs, diagonal; ``x[idx] = v`` (basic, mask and integer-array
indices), ``x += v``; ``detach()`` and ``with mg.no_grad():`` sections. Operands are drawn from
every live tensor, so one tensor feeds several ops (fan-out), the same tensor is passed twice to a
binary op, and in-place writes go through views of non-leaves.

The check (:func:`check`) runs the program, back-propagates the loss and compares every leaf's
gradient with central finite differences of the whole program, re-run on perturbed leaves. A
tensor made by ``detach()`` or inside ``no_grad()`` is a constant of the program: the re-runs hold
it at the value it had in the unperturbed run. A failure shrinks (:func:`shrink`) to a minimal
program, printed as a runnable reproducer (:func:`source`).

Generation keeps programs valid and the loss smooth where it is evaluated: an op's inputs lie in
its row's ``domain`` (or within +-4 when the row keeps the default), away from 0 for ``positive``
rows, rows with ``fd=False`` or no gradient are not used, and a step whose result is not finite,
or that makes backward raise a VersionError (a write to a tensor a node saved: mutograd is right
to refuse), is drawn again. A disagreement with finite differences counts only when the finite
differences at three step sizes agree (no kink or discontinuity within reach of a step).

``python -m tests.autograd.random_graphs 0 2000`` checks seeds 0..1999 and prints each failure
class once, with its shrunk reproducer.
"""
import contextlib
import sys
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
from tests.op_db import BASE as OPS

import mutograd as mg
from mutograd.errors import VersionError

EPS = 1e-6
DEFAULT_DOMAIN = (-2.0, 2.0)
BOUND = 4.0           # inputs of an op whose row keeps the default domain stay within +-BOUND
LIMIT = 1e3           # a step whose result exceeds this (or is not finite) is drawn again
RTOL, ATOL = 1e-5, 1e-6

# rows whose call is ``fn(*args, **kwargs)`` (so a step is one readable line) with a gradient
# that finite differences can check
ROWS = [o for o in OPS if o.grad and o.fd and o.call is None]
OP_ROWS = [o for o in ROWS if o.kind != "view"]
INPLACE_ROWS = [o for o in OP_ROWS if o.inplace and o.kind in ("elementwise", "scan", "linalg")]
VIEW_ROWS = [o for o in ROWS if o.kind == "view"]
# rows whose gradient has a kink or a jump where two inputs are equal, or where two elements of
# one input are (a tie in max or sort, zero spread in std or norm)
PAIR_KINKS = {"maximum", "minimum", "clamp", "fmod", "remainder", "atan2", "pow"}
TIE_KINDS = ("reduction",)
TIE_NAMES = {"sort", "topk", "cumprod"}


def _domain(row):
    """The inputs' range: the row's, or for a ``make`` row that draws only positive floats (a
    fractional power), the range its samples cover."""
    if row.make is None or row.domain != DEFAULT_DOMAIN:
        return row.domain
    rng = np.random.default_rng(0)
    vals = []
    for _ in range(4):
        s = row.make(rng)
        vals += [np.ravel(s.args[i]).astype(float) for i in s.diff]
    v = np.concatenate(vals) if vals else np.zeros(1)
    return (float(v.min()), float(v.max())) if v.size and v.min() > 0 else row.domain


DOMAINS = {o.id: _domain(o) for o in ROWS}


@dataclass(frozen=True)
class Step:
    kind: str               # op | op_ | view | setitem | augassign | no_grad | detach
    src: str                # the Python source of the step
    ins: tuple = ()         # names it reads (or writes)
    outs: tuple = ()        # names it binds
    frozen: bool = False    # its outputs are constants: the finite-difference re-runs hold them


@dataclass
class Program:
    leaves: dict                                # name -> float64 array (requires grad)
    steps: list = field(default_factory=list)
    loss: list = field(default_factory=list)    # (name, weight array)


@dataclass
class Result:
    ok: bool
    kind: str = ""          # "" | "invalid: ..." | "wrong gradient" | "error <Class>"
    detail: str = ""
    grads: dict = None      # leaf -> gradient from backward
    fd: dict = None         # leaf -> finite differences

    @property
    def failed(self):
        return not self.ok and not self.kind.startswith("invalid")


# ---- running -------------------------------------------------------------------------------

_CODE = {}


def _code(src):
    if src not in _CODE:
        _CODE[src] = compile(src, "<program>", "exec")
    return _CODE[src]


def run(prog, leaves=None, frozen=None, upto=None):
    """Run ``prog`` (its first ``upto`` steps) on ``leaves`` (default: its own), fresh leaf
    tensors that require grad. Returns ``(env, loss, recorded)``: ``recorded`` holds the values
    of the frozen outputs; with ``frozen`` given, those values replace the frozen outputs."""
    env = {"mg": mg, "np": np}
    for name, a in (leaves or prog.leaves).items():
        env[name] = mg.tensor(a.copy(), requires_grad=True)
    recorded = {}
    for s in prog.steps[:upto]:
        exec(_code(s.src), env)
        if s.frozen:
            for o in s.outs:
                if frozen is None:
                    recorded[o] = env[o]._data.copy()
                else:
                    env[o] = mg.tensor(frozen[o].copy())
    loss = None
    if upto is None:
        for name, w in prog.loss:
            term = (env[name] * mg.tensor(w)).sum()
            loss = term if loss is None else loss + term
    return env, loss, recorded


def _value(prog, leaves, frozen):
    return float(run(prog, leaves, frozen)[1]._data)


def finite_differences(prog, frozen, eps=EPS):
    """Central differences of the loss w.r.t. every leaf element, the whole program re-run."""
    out = {}
    for name, a in prog.leaves.items():
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            leaves = dict(prog.leaves)
            hi, lo = a.copy(), a.copy()
            hi[i] += eps
            lo[i] -= eps
            leaves[name] = hi
            f_hi = _value(prog, leaves, frozen)
            leaves[name] = lo
            g[i] = (f_hi - _value(prog, leaves, frozen)) / (2 * eps)
        out[name] = g
    return out


def _close(a, b, scale):
    return np.allclose(a, b, rtol=RTOL, atol=ATOL * scale)


def check(prog, backward_impl=None):
    """The program's leaf gradients against finite differences (see the module docstring)."""
    try:
        env, loss, recorded = run(prog)
        if loss is None or not loss.requires_grad:
            return Result(False, "invalid: the loss does not depend on a leaf")
        if not np.isfinite(loss._data).all():
            return Result(False, "invalid: the loss is not finite")
        (backward_impl or (lambda t: t.backward()))(loss)
    except VersionError as e:
        return Result(False, "invalid: VersionError", str(e))
    except Exception as e:  # noqa: BLE001 - any other error is a finding, reported as such
        return Result(False, f"error {type(e).__name__}", f"{type(e).__name__}: {e}")
    grads = {n: (env[n].grad._data.copy() if env[n].grad is not None else np.zeros_like(a))
             for n, a in prog.leaves.items()}
    fd = finite_differences(prog, recorded)
    if not all(np.isfinite(g).all() for g in fd.values()):
        return Result(False, "invalid: finite differences are not finite")
    scale = max([1.0] + [float(np.abs(g).max()) for g in fd.values() if g.size])
    if all(_close(grads[n], fd[n], scale) for n in fd):
        return Result(True, grads=grads, fd=fd)
    # a kink or a jump within reach of a step changes the differences with the step size
    for eps in (1e-5, 1e-7):
        other = finite_differences(prog, recorded, eps)
        if not all(np.allclose(other[n], fd[n], rtol=1e-3, atol=1e-4 * scale) for n in fd):
            return Result(False, "invalid: not smooth at this point")
    bad = [n for n in fd if not _close(grads[n], fd[n], scale)]
    detail = "\n".join(f"{n}.grad =\n{grads[n]}\nfinite differences =\n{fd[n]}" for n in bad)
    return Result(False, "wrong gradient", detail, grads, fd)


# ---- generating ------------------------------------------------------------------------------

@dataclass
class Meta:
    group: str              # the name whose storage it looks into (its own for a new storage)
    leafish: bool           # a leaf or a view of one: never written
    const: str = ""         # "detach" | "nograd" | ""


def _lit(v, kwarg=False):
    """Python source for an argument value."""
    if isinstance(v, np.ndarray):
        if kwarg:
            return f"np.array({v.tolist()!r})"
        return f"mg.tensor({v.tolist()!r}, dtype={str(v.dtype)!r})"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return repr(v) if np.isfinite(v) else f"float({str(v)!r})"
    if isinstance(v, np.integer):
        return repr(int(v))
    return repr(v)


def _call(row, names_and_lits, kwargs, method, inplace=False):
    name = row.name + ("_" if inplace else "")
    kw = [f"{k}={_lit(v, kwarg=True)}" for k, v in kwargs.items()]
    if method:
        return f"{names_and_lits[0]}.{name}({', '.join(names_and_lits[1:] + kw)})"
    return f"mg.{name}({', '.join(names_and_lits + kw)})"


def _near(a, b):
    """Some broadcast pair of elements of ``a`` and ``b`` within 1e-3 of each other."""
    try:
        return bool((np.abs(a - b) < 1e-3).any())
    except ValueError:          # shapes that do not broadcast: the op refuses them anyway
        return False


def _overlaps(t):
    return any(s == 0 and n > 1 for s, n in zip(t._data.strides, t._data.shape))


class Generator:
    """Draws one program step by step; each step is kept only if the program still runs."""

    def __init__(self, seed, n_steps=None):
        self.rng = np.random.default_rng(seed)
        rng = self.rng
        shapes = [(3, 4)] + [[(4,), (3, 4), (3, 1), (2, 3, 4)][i]
                             for i in rng.integers(0, 4, rng.integers(0, 3))]
        leaves = {f"a{i}": rng.uniform(-2, 2, s) for i, s in enumerate(shapes)}
        self.prog = Program(leaves)
        self.meta = {n: Meta(n, True) for n in leaves}
        self.n_steps = n_steps if n_steps is not None else int(rng.integers(4, 17))
        self.counter = 0
        self.env = run(self.prog)[0]

    # -- helpers
    def fresh(self):
        self.counter += 1
        return f"t{self.counter - 1}"

    def pool(self, pred=lambda n, t, m: True):
        return [n for n, m in self.meta.items()
                if self.env[n].dtype.is_floating_point and self.env[n]._data.size
                and pred(n, self.env[n], m)]

    def pick(self, names):
        """One of ``names``: half the time the later ones likelier (programs grow deep), else
        any (a leaf or an early result feeds a later op too)."""
        if not names:
            return None
        w = np.arange(1, len(names) + 1, dtype=float) ** (1.5 if self.rng.random() < 0.5 else 0)
        return names[self.rng.choice(len(names), p=w / w.sum())]

    def writable(self, n, t, m):
        return not m.leafish and m.const != "detach" and not _overlaps(t)

    def values(self, n):
        return self.env[n]._data

    def in_domain(self, row, names):
        """The inputs ``names`` are where ``row``'s gradient exists and finite differences
        see it: in its domain, away from 0 when it is ``positive``, and away from ties."""
        lo, hi = DOMAINS[row.id]
        strict = (lo, hi) != DEFAULT_DOMAIN
        for n in names:
            a = self.values(n)
            if not a.size:
                return False
            if strict and (a.min() < lo or a.max() > hi):
                return False
            if not strict and np.abs(a).max() > BOUND:
                return False
            if row.positive and np.abs(a).min() < 0.1:
                return False
            if (row.kind in TIE_KINDS or row.name in TIE_NAMES) and \
                    np.unique(a).size < a.size:
                return False
        if row.name in PAIR_KINKS:
            for i, m in enumerate(names):
                for n in names[i + 1:]:
                    if m != n and _near(self.values(m), self.values(n)):
                        return False
        return True

    def broadcast_partner(self, shape, exact=False, pred=lambda n, t, m: True):
        """A live tensor whose shape broadcasts with ``shape`` (to ``shape`` itself if exact)."""
        def fits(n, t, m):
            try:
                b = np.broadcast_shapes(shape, tuple(t.shape))
            except ValueError:
                return False
            return pred(n, t, m) and (b == tuple(shape) or not exact)
        return self.pick(self.pool(fits))

    # -- steps: each returns a Step (not yet run) and the metadata of what it binds, or None
    def step_op(self, inplace=False):
        row = self.pick(INPLACE_ROWS if inplace else OP_ROWS)
        target_pred = self.writable if inplace else (lambda n, t, m: True)
        args, diff_names = self.operands(row, target_pred, exact=inplace)
        if args is None or not self.in_domain(row, diff_names):
            return None
        kwargs = dict(row.attrs) if row.make is None else self.sample_kwargs
        method = row.method and self.rng.random() < 0.5 and args[0] in self.meta
        if inplace:
            return Step("op_", _call(row, args, kwargs, method, inplace=True),
                        ins=tuple(diff_names)), {}
        return self.bind(_call(row, args, kwargs, method), diff_names, "op", view_of=None)

    def operands(self, row, target_pred, exact):
        """Argument sources for ``row``: live tensor names at its float positions, literals
        elsewhere; and the names used. (None, None) when no live tensor fits."""
        if row.make is not None:
            s = row.draw(self.rng)
            self.sample_kwargs = s.kwargs
            if not s.diff or s.diff[0] != 0 and exact:
                return None, None
            args, names = [], []
            for i, a in enumerate(s.args):
                if i in s.diff:
                    pred = target_pred if i == 0 else (lambda n, t, m: True)
                    n = self.pick(self.pool(lambda n, t, m, a=a, pred=pred:
                                            tuple(t.shape) == np.shape(a) and pred(n, t, m)))
                    if n is None:
                        return None, None
                    args.append(n)
                    names.append(n)
                else:
                    args.append(_lit(a))
            return args, names
        first = self.pick(self.pool(target_pred))
        if first is None:
            return None, None
        names = [first]
        shape = tuple(self.env[first].shape)
        for _ in range(row.nargs - 1):
            if row.kind == "linalg":
                n = self.pick(self.pool())
            elif self.rng.random() < 0.15:
                n = first                       # the same tensor twice
            else:
                n = self.broadcast_partner(shape, exact)
            if n is None:
                return None, None
            names.append(n)
        return list(names), names

    def bind(self, expr, ins, kind, view_of, frozen=False, const=""):
        """``t = expr`` (or ``t, u = expr`` for a tuple result): evaluate it once to learn the
        result's structure."""
        try:
            res = eval(expr, self.env)          # ordinary ops and views change nothing
        except Exception:  # noqa: BLE001 - a combination the op refuses: draw again
            return None
        parts = res if isinstance(res, (tuple, list)) else (res,)
        outs = tuple(self.fresh() for _ in parts)
        lhs = outs[0] if len(outs) == 1 and not isinstance(res, (tuple, list)) else \
            ", ".join(outs) + ("," if len(outs) == 1 else "")
        src = f"{lhs} = {expr}"
        if kind == "no_grad":
            src = f"with mg.no_grad():\n    {src}"
        meta = {}
        for o, p in zip(outs, parts):
            if not isinstance(p, mg.Tensor) or not p.dtype.is_floating_point:
                continue
            group, leafish, c = o, False, const
            for n in self.meta:
                if np.shares_memory(p._data, self.env[n]._data):
                    group, leafish = self.meta[n].group, self.meta[n].leafish
                    if view_of is not None:
                        c = self.meta[view_of].const or const
                    break
            meta[o] = Meta(group, leafish, c)
        return Step(kind, src, ins=tuple(dict.fromkeys(ins)), outs=outs, frozen=frozen), meta

    def step_view(self):
        src = self.pick(self.pool())
        if src is None:
            return None
        t = self.env[src]
        shape = tuple(t.shape)
        rng = self.rng
        if self.rng.random() < 0.3:
            row = self.pick(VIEW_ROWS)
            if row.make is not None:
                s = row.draw(rng)
                if np.shape(s.args[0]) != shape or s.diff != (0,):
                    return None
                rest = [_lit(a) for a in s.args[1:]]
                return self.bind(_call(row, [src] + rest, s.kwargs, False), [src], "view", src)
            return self.bind(_call(row, [src], row.attrs, row.method and rng.random() < 0.5),
                             [src], "view", src)
        nd = len(shape)
        choice = rng.integers(8)
        if choice == 0 and nd:                                     # basic slicing
            parts = []
            for n in shape:
                a = int(rng.integers(0, n))
                b = int(rng.integers(a + 1, n + 1))
                step = int(rng.choice([1, 1, 2]))
                parts.append(f"{a if a else ''}:{b if b < n else ''}"
                             + (f":{step}" if step > 1 else ""))
            expr = f"{src}[{', '.join(parts)}]"
        elif choice == 1 and nd:                                   # an integer index
            expr = f"{src}[{int(rng.integers(-shape[0], shape[0]))}]"
        elif choice == 2 and nd >= 2:                              # transpose / t / permute
            perm = [int(i) for i in rng.permutation(nd)]
            expr = rng.choice([f"{src}.transpose({perm[0]}, {perm[1]})" if perm[0] != perm[1]
                               else f"{src}.t()", f"{src}.permute({', '.join(map(str, perm))})",
                               f"{src}.t()" if nd == 2 else f"{src}.mT"])
        elif choice == 3 and nd:                                   # reshape / view
            n = int(np.prod(shape))
            divs = [d for d in range(1, n + 1) if n % d == 0]
            d = int(rng.choice(divs))
            expr = f"{src}.reshape({d}, {n // d})" if rng.random() < 0.7 else \
                f"{src}.reshape(-1)"
        elif choice == 4:                                          # expand
            new = tuple(int(rng.integers(2, 4)) if s == 1 else s for s in shape)
            lead = (2,) if rng.random() < 0.5 or new == shape else ()
            expr = f"{src}.expand({', '.join(map(str, lead + new))})"
        elif choice == 5 and nd:                                   # split / chunk / unbind
            d = int(rng.integers(nd))
            if shape[d] < 2:
                return None
            kind = rng.integers(3)
            expr = (f"{src}.split({int(rng.integers(1, shape[d]))}, {d})" if kind == 0 else
                    f"{src}.chunk(2, {d})" if kind == 1 else f"{src}.unbind({d})")
        elif choice == 6 and nd >= 2:                              # diagonal
            expr = f"{src}.diagonal()"
        elif choice == 7:                                          # unsqueeze / squeeze
            expr = f"{src}.unsqueeze({int(rng.integers(0, nd + 1))})" \
                if rng.random() < 0.6 or 1 not in shape else f"{src}.squeeze()"
        else:
            return None
        return self.bind(expr, [src], "view", src)

    def step_setitem(self):
        dst = self.pick(self.pool(self.writable))
        if dst is None or not self.env[dst].ndim:
            return None
        rng, shape = self.rng, tuple(self.env[dst].shape)
        kind = rng.integers(3)
        if kind == 0:                                              # basic index
            a = int(rng.integers(0, shape[0]))
            b = int(rng.integers(a + 1, shape[0] + 1))
            idx_src, idx = (f"{a}:{b}", np.s_[a:b]) if rng.random() < 0.6 else (f"{a}", a)
        elif kind == 1:                                            # a boolean mask
            m = rng.random(shape) < 0.5
            m.flat[0] = True
            idx_src, idx = _lit(m), m
        else:                                                      # distinct integer rows
            rows = rng.permutation(shape[0])[:int(rng.integers(1, shape[0] + 1))]
            idx_src, idx = _lit(rows), rows
        region = self.values(dst)[idx].shape
        if rng.random() < 0.3:
            value, ins = repr(round(float(rng.uniform(-2, 2)), 3)), [dst]
        else:
            value = self.broadcast_partner(region, exact=True,
                                           pred=lambda n, t, m: np.abs(t._data).max() <= BOUND)
            if value is None:
                return None
            ins = [dst, value]
        return Step("setitem", f"{dst}[{idx_src}] = {value}", ins=tuple(dict.fromkeys(ins))), {}

    def step_augassign(self):
        dst = self.pick(self.pool(self.writable))
        if dst is None:
            return None
        op = self.pick(["+=", "-=", "*=", "/="])
        ok = (lambda n, t, m: np.abs(t._data).min() >= 0.1) if op == "/=" else \
            (lambda n, t, m: np.abs(t._data).max() <= BOUND)
        if self.rng.random() < 0.25:
            value, ins = repr(round(float(self.rng.uniform(0.5, 2)), 3)), [dst]
        else:
            value = self.broadcast_partner(tuple(self.env[dst].shape), exact=True, pred=ok)
            if value is None:
                return None
            ins = [dst, value]
        return Step("augassign", f"{dst} {op} {value}", ins=tuple(dict.fromkeys(ins))), {}

    def step_no_grad(self):
        row = self.pick(OP_ROWS)
        args, names = self.operands(row, lambda n, t, m: True, exact=False)
        if args is None or not self.in_domain(row, names):
            return None
        kwargs = dict(row.attrs) if row.make is None else self.sample_kwargs
        return self.bind(_call(row, args, kwargs, False), names, "no_grad", None, frozen=True,
                         const="nograd")

    def step_detach(self):
        src = self.pick(self.pool(lambda n, t, m: t.requires_grad))
        if src is None:
            return None
        return self.bind(f"{src}.detach()", [src], "detach", src, frozen=True, const="detach")

    STEPS = (("op", 30), ("op_", 18), ("view", 25), ("setitem", 8), ("augassign", 8),
             ("no_grad", 5), ("detach", 6))

    def draw_step(self):
        kinds, weights = zip(*self.STEPS)
        kind = kinds[self.rng.choice(len(kinds), p=np.array(weights) / sum(weights))]
        if kind in ("op", "op_"):
            return self.step_op(inplace=kind == "op_")
        return getattr(self, f"step_{kind}")()

    # -- the loop
    def try_step(self, drawn):
        step, meta = drawn
        written = step.ins[0] if step.kind in ("op_", "setitem", "augassign") else None
        try:
            exec(_code(step.src), self.env)
        except Exception:  # noqa: BLE001 - refused (shape, dtype, overlap): draw again
            return False
        for n in set(step.outs) | ({written} if written else set()):
            t = self.env.get(n)
            if isinstance(t, mg.Tensor) and t.dtype.is_floating_point and (
                    not np.isfinite(t._data).all() or np.abs(t._data).max(initial=0) > LIMIT):
                return False
        if written is not None:
            if not self.backward_is_allowed(step):
                return False
            group = self.meta[written].group
            for n in [n for n, m in self.meta.items() if m.const == "detach" and
                      m.group == group]:
                del self.meta[n]        # a detached alias seen through a write: retired
        self.meta.update(meta)
        return True

    def backward_is_allowed(self, step):
        """False when backward through everything made so far raises a VersionError."""
        prog = Program(self.prog.leaves, self.prog.steps + [step])
        env = run(prog)[0]
        total = None
        for n in self.meta:
            t = env.get(n)
            if isinstance(t, mg.Tensor) and t.requires_grad and t.dtype.is_floating_point:
                s = t.sum()
                total = s if total is None else total + s
        if total is None:
            return True
        try:
            total.backward()
        except VersionError:
            return False
        except Exception:  # noqa: BLE001 - reported by check() on the finished program
            pass
        return True

    def generate(self):
        tries = 0
        while len(self.prog.steps) < self.n_steps and tries < 40 * self.n_steps:
            tries += 1
            drawn = self.draw_step()
            if drawn is None:
                continue
            if self.try_step(drawn):
                self.prog.steps.append(drawn[0])
            else:
                self.env = run(self.prog)[0]
        outs = self.pool(lambda n, t, m: t.requires_grad and n not in self.prog.leaves)
        outs = outs or list(self.prog.leaves)
        chosen = []
        for _ in range(int(self.rng.integers(1, 4))):
            n = self.pick([n for n in outs if n not in chosen])
            if n is not None:
                chosen.append(n)
        for n in chosen:
            self.prog.loss.append((n, self.rng.standard_normal(tuple(self.env[n].shape))))
        return self.prog


def generate(seed, n_steps=None):
    """The program for ``seed``."""
    # draws that NumPy warns about (a variance of one element, a power of a negative number)
    # give values that are not finite, and the step is drawn again
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return Generator(seed, n_steps).generate()


# ---- shrinking and reporting -----------------------------------------------------------------

def without(prog, i):
    """``prog`` without step ``i`` and every step and loss term that needs what it bound."""
    dead = set(prog.steps[i].outs)
    steps = []
    for j, s in enumerate(prog.steps):
        if j == i:
            continue
        if dead & set(s.ins):
            dead |= set(s.outs)
            continue
        steps.append(s)
    loss = [(n, w) for n, w in prog.loss if n not in dead]
    return replace(prog, steps=steps, loss=loss) if loss else None


def _pruned(prog):
    used = {n for s in prog.steps for n in s.ins} | {n for n, _ in prog.loss}
    return replace(prog, leaves={n: a for n, a in prog.leaves.items() if n in used})


def shrink(prog, kind, check_fn=check):
    """The smallest program (greedy: one step or loss term at a time) that still fails with
    ``kind``."""
    def fails(p):
        return p is not None and check_fn(p).kind == kind

    prog = _pruned(prog)
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(prog.steps))):
            cand = without(prog, i)
            if cand is not None and fails(_pruned(cand)):
                prog, changed = _pruned(cand), True
                break
        else:
            for j in range(len(prog.loss)):
                if len(prog.loss) > 1:
                    cand = _pruned(replace(prog, loss=prog.loss[:j] + prog.loss[j + 1:]))
                    if fails(cand):
                        prog, changed = cand, True
                        break
    return prog


def source(prog, result=None):
    """A runnable reproducer: the program, its backward, and (given ``result``) the finite
    differences it should match."""
    lines = ["import numpy as np", "import mutograd as mg", ""]
    for n, a in prog.leaves.items():
        lines.append(f"{n} = mg.tensor({a.tolist()!r}, dtype='float64', requires_grad=True)")
    lines += [s.src for s in prog.steps]
    terms = [f"({n} * mg.tensor({w.tolist()!r}, dtype='float64')).sum()" for n, w in prog.loss]
    lines.append("loss = " + " + ".join(terms))
    lines.append("loss.backward()")
    if result is not None and result.fd is not None:
        lines.append("# central finite differences of the whole program (float64):")
        for n, g in result.fd.items():
            lines.append(f"np.testing.assert_allclose({n}.grad.numpy() if {n}.grad is not None "
                         f"else 0, {np.round(g, 10).tolist()!r}, rtol=1e-5, atol=1e-6)")
    return "\n".join(lines)


@contextlib.contextmanager
def gradient_buffers_not_reused():
    """Backward with every incoming gradient treated as shared (copied before a write), to tell
    whether a wrong gradient comes from the engine reusing a buffer it does not own (design.md,
    rule 12). Does nothing when the engine has no ``_add`` (a different engine)."""
    from mutograd.autograd import engine
    orig = getattr(engine, "_add", None)
    if orig is None:
        yield False
        return
    engine._add = lambda buf, key, g, owned: orig(buf, key, g, False)
    try:
        yield True
    finally:
        engine._add = orig


def diagnosis(prog, kind):
    """A line on whether the failure goes away when gradient buffers are never reused."""
    with gradient_buffers_not_reused() as patched:
        if not patched:
            return ""
        still = check(prog).kind == kind
    return ("the same failure with gradient buffers never reused" if still else
            "passes when gradient buffers are never reused (design.md rule 12)")


def report(seed, check_fn=check):
    """None when the program for ``seed`` passes (or is invalid), else a failure message with
    the shrunk reproducer."""
    prog = generate(seed)
    result = check_fn(prog)
    if not result.failed:
        return None
    small = shrink(prog, result.kind, check_fn)
    small_result = check_fn(small)
    return (f"seed {seed}: {result.kind} ({len(prog.steps)} steps, shrunk to "
            f"{len(small.steps)}); {diagnosis(small, result.kind)}\n{small_result.detail}\n\n"
            "reproducer:\n"
            f"{source(small, small_result)}\n")


def main(argv):
    lo, hi = (int(a) for a in argv[:2])
    kinds, seen, failures = {}, {}, 0
    for seed in range(lo, hi):
        prog = generate(seed)
        r = check(prog)
        key = r.kind or "ok"
        kinds[key] = kinds.get(key, 0) + 1
        if r.failed:
            failures += 1
            small = shrink(prog, r.kind)
            sig = (r.kind, tuple(s.kind for s in small.steps))
            if sig not in seen:
                seen[sig] = seed
                print(f"---- seed {seed}: {r.kind}, {len(small.steps)} steps; "
                      f"{diagnosis(small, r.kind)}\n"
                      f"{check(small).detail}\n{source(small, check(small))}\n", flush=True)
    print("outcomes:", kinds)
    print("failing seeds:", failures)


if __name__ == "__main__":
    main(sys.argv[1:] or ["0", "200"])
