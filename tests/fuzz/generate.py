"""Random straight-line autograd programs, written as source text the way users write them.

A program is a list of :class:`Stmt`: the statement's text for ``mutograd.compat.torch`` and,
where an intended departure (design.md rules 6, 7 and 10) makes PyTorch refuse or silently differ,
the text PyTorch runs instead:

- ``v.data`` is written ``v.detach()`` for PyTorch (mutograd's ``.data`` shares the version
  counter, so a write through it is seen by autograd; PyTorch's is not);
- the outputs of ``split``/``chunk``/``unbind`` are taken by ``narrow``/``select`` for PyTorch
  (mutograd lets them be written in place; PyTorch refuses);
- a tensor operand that shares memory with the tensor being written is ``.clone()``-d for
  PyTorch (mutograd reads the input before the write; PyTorch refuses a partial overlap).

The generator keeps a model of every variable (shape, dtype, requires_grad, leaf, which storage
it looks into, whether writing it needs ``no_grad``), so shapes agree by construction and almost
every program is valid PyTorch; a few deliberately are not (both frameworks must then raise).
Each statement lists the names it defines and uses, so the shrinker can delete statements
without leaving a name undefined.
"""
import dataclasses
import re
from dataclasses import dataclass, field

import numpy as np

DTYPES = ("float64", "float64", "float64", "float64", "float32")


@dataclass
class Stmt:
    src: str                      # mutograd.compat.torch text
    kind: str                     # a tag for the category of a disagreement ("inplace.exp_")
    defs: tuple = ()
    uses: tuple = ()
    alt: str = None               # PyTorch's text, when it differs
    backward: bool = False        # runs a backward pass (phase "backward" on error)

    def text(self, framework):
        return self.alt if framework == "torch" and self.alt is not None else self.src


@dataclass
class Program:
    seed: int
    stmts: list = field(default_factory=list)

    def source(self, framework="mutograd"):
        return "\n".join(s.text(framework) for s in self.stmts)

    def replace(self, stmts):
        return dataclasses.replace(self, stmts=list(stmts))


@dataclass
class Var:
    name: str
    shape: tuple
    dtype: str
    rg: bool = False              # requires_grad
    leaf: bool = True
    storage: str = None           # the variable that owns the memory this one looks into
    base: str = None              # ... and the one whose history it shares (not through detach)
    guard: bool = False           # a leaf requiring grad, or a view of one: writes need no_grad
    contig: bool = True           # a plain .view() works on it
    overlap: bool = False         # several elements share a memory location (expand, unfold)
    nograd_view: bool = False     # a view made under no_grad of a tensor requiring grad
    deps: frozenset = frozenset()  # the leaves requiring grad that its history reaches
    curv: bool = False            # its gradient depends on a tensor requiring grad (a guess)
    grad: bool = False            # a gradient made with create_graph, or a view of one
    aliased: bool = False         # may share memory with another variable in one framework only
    piece: tuple = None           # (split variable, axis, index) of a split/unbind output

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def numel(self):
        return int(np.prod(self.shape, dtype=np.int64))


def fmt(x):
    """A float literal, short: 0.25, -1.5, 2.0."""
    s = f"{x:.3f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


def shape_text(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def nested(a):
    """A nested-list literal of an array (floats, ints or bools)."""
    if a.ndim == 0:
        v = a.item()
        return fmt(v) if isinstance(v, float) else str(v)
    return "[" + ", ".join(nested(x) for x in a) + "]"


def broadcasts_to(small, big):
    """Whether ``small`` broadcasts to exactly ``big``."""
    if len(small) > len(big):
        return False
    return all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


def _disjoint(a, b):
    """Whether variables ``a`` and ``b`` are (views of) different pieces of one split."""
    return a.piece is not None and b.piece is not None and a.piece[:2] == b.piece[:2] and \
        a.piece[2] != b.piece[2]


def _only_unit_axes_differ(a, b):
    """Whether shapes ``a`` and ``b`` differ only by axes of size 1: a reshape between them is a
    view of any layout, in both frameworks."""
    return [n for n in a if n != 1] == [n for n in b if n != 1]


def broadcast(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


UNARY = [  # (text with {x}, tag); all defined on every real number
    ("{x}.exp()", "exp"), ("torch.tanh({x})", "tanh"), ("{x}.sigmoid()", "sigmoid"),
    ("torch.relu({x})", "relu"), ("{x}.sin()", "sin"), ("torch.cos({x})", "cos"),
    ("-{x}", "neg"), ("{x}.abs()", "abs"), ("({x}.abs() + 1).log()", "log"),
    ("torch.sqrt({x}.abs() + 0.001)", "sqrt"), ("{x}.pow(2)", "pow"), ("{x} ** 3", "pow"),
    ("torch.clamp({x}, -0.5, 0.8)", "clamp"), ("{x}.square()", "square"),
    ("{x} * 2.5", "mul"), ("{x} + 1", "add"), ("torch.exp({x}) - {x}", "exp"),
    ("{x}.clone()", "clone"), ("{x}.abs().pow(1.5)", "pow"), ("{x}.neg().tanh()", "tanh"),
]
BINARY = [  # (text with {x} and {y}, tag)
    ("{x} + {y}", "add"), ("{x} - {y}", "sub"), ("{x} * {y}", "mul"),
    ("{x} / ({y}.abs() + 0.5)", "div"), ("torch.maximum({x}, {y})", "maximum"),
    ("torch.minimum({x}, {y})", "minimum"), ("torch.add({x}, {y}, alpha=0.5)", "add"),
    ("torch.where({x} > {y}, {x}, {y} * 2)", "where"), ("torch.mul({x}, {y})", "mul"),
]
INPLACE_UNARY = [  # (method call, tag); a value outside the domain makes NaN in both
    ("exp_()", "exp_"), ("tanh_()", "tanh_"), ("sigmoid_()", "sigmoid_"), ("relu_()", "relu_"),
    ("sin_()", "sin_"), ("cos_()", "cos_"), ("clamp_(-0.6, 0.7)", "clamp_"),
    ("clamp_(min=-0.2)", "clamp_"), ("pow_(2)", "pow_"), ("neg_()", "neg_"),
    ("abs_()", "abs_"), ("square_()", "square_"), ("mul_(1.5)", "mul_"), ("add_(0.5)", "add_"),
    ("div_(2.0)", "div_"), ("sub_(0.25)", "sub_"), ("abs_().add_(0.5).sqrt_()", "sqrt_"),
    ("abs_().add_(1).log_()", "log_"), ("exp_().mul_(0.5)", "exp_"),
]
INPLACE_BINARY = [  # (method, tag); the operand broadcasts to the written tensor
    ("add_({y})", "add_"), ("add_({y}, alpha=-0.5)", "add_"), ("sub_({y})", "sub_"),
    ("mul_({y})", "mul_"), ("div_({y}.abs() + 0.5)", "div_"), ("copy_({y})", "copy_"),
    ("lerp_({y}, 0.3)", "lerp_"), ("addcmul_({y}, {y}, value=0.5)", "addcmul_"),
]
# ops whose gradient needs no saved tensor (a later write of their inputs is fine)
LINEAR = {"neg", "mul", "add", "sub", "clone", "neg_", "mul_", "add_", "div_", "sub_", "where"}
# ... and ops whose gradient is the incoming one masked (it requires grad only if that does):
# with LINEAR, how the generator guesses whether a first-order gradient requires grad
FLAT = LINEAR | {"clamp", "clamp_", "maximum", "minimum"}
# in-place ops that PyTorch also offers as functions of its namespace (torch.exp_(x))
TORCH_INPLACE = {"exp_", "tanh_", "sigmoid_", "relu_", "sin_", "cos_", "clamp_", "neg_", "abs_",
                 "square_", "sqrt_", "log_"}
AUG = [("+=", "{y}"), ("-=", "{y}"), ("*=", "{y}"), ("/=", "({y}.abs() + 0.5)")]

# A custom Function per entry: (class body, how many tensor arguments, writes its input).
FUNCTIONS = {
    "ExpFn": ("""\
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y""", 1, False),
    "SinFn": ("""\
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()""", 1, False),
    "MulFn": ("""\
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x""", 2, False),
    "ScaleFn_": ("""\
    @staticmethod
    def forward(ctx, x):
        x.mul_(2.0)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2.0""", 1, True),
    "ExpFn_": ("""\
    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y""", 1, True),
}

# statement families that write their first variable
WRITES = {"inplace", "aug", "setitem", "meta", "function", "leaf_write"}
HIGHER_ORDER_SHARE = 0.3   # programs that use create_graph (the issue asks for at least 20%)

KINDS = {  # statement kind -> weight
    "leaf": 6, "const": 3, "unary": 10, "binary": 8, "reduce": 4, "matmul": 3, "catstack": 2,
    "view": 16, "multi": 3, "detach": 3, "inplace_unary": 9, "inplace_binary": 8, "aug": 5,
    "setitem": 10, "fill": 4, "scatter": 2, "meta_inplace": 1, "nograd": 5, "requires_grad": 1,
    "function": 3, "hook": 2, "retain_grad": 2, "backward": 2, "grad": 1, "step": 1,
}


class Generator:
    """Writes one program from a seed; ``program()`` is the entry point."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.vars = {}
        self.stmts = []
        self.counter = 0
        self.nograd = False
        self.classes = set()
        self.losses = []
        self.backward_done = False
        self.saved = set()
        self.higher = False           # the program uses create_graph (decided in program())
        self.focus = None             # the variable the next statement works on (pick/target)
        self.loss_terms = {}          # loss name -> the variables of its terms
        self.loss_deps = {}           # loss name -> the leaves it reached when it was made
        self.grads = []               # (gradient variables, the loss they came from)

    # ---- helpers ----------------------------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, src, kind, defs=(), uses=(), alt=None, backward=False):
        uses = tuple(dict.fromkeys(u for u in uses if u is not None))
        target = self.vars.get(uses[0]) if uses else None
        if target is not None and target.grad and kind.split(".")[0] in WRITES:
            kind = "grad." + kind   # a write into a gradient: a category of its own
        if self.nograd:
            body = "\n".join("    " + line for line in src.split("\n"))
            src = "with torch.no_grad():\n" + body
            if alt is not None:
                alt = "with torch.no_grad():\n" + "\n".join("    " + ln for ln in alt.split("\n"))
            kind = "nograd." + kind
        self.stmts.append(Stmt(src, kind, tuple(defs), uses, alt, backward))

    def pick(self, pred=lambda v: True):
        focus, self.focus = self.focus, None   # the focus serves one pick
        if focus is not None and pred(focus):
            return focus
        live = [v for v in self.vars.values() if pred(v)]
        if not live:
            return None
        # recent variables are more likely: programs read like chains
        w = np.arange(1, len(live) + 1, dtype=float) ** 1.5
        return live[int(self.rng.choice(len(live), p=w / w.sum()))]

    def add_var(self, name, shape, dtype, **kw):
        v = Var(name, tuple(shape), dtype, **kw)
        if v.storage is None:
            v.storage = name
        if v.base is None:
            v.base = name
        self.vars[name] = v
        return v

    def result(self, name, shape, dtype, *inputs, curv=False):
        """An ordinary op's result: new memory, requires grad if any input does. ``curv``: the
        op's own gradient uses an input that requires grad (it is not linear in it)."""
        inputs = [i for i in inputs if i is not None]
        rg = not self.nograd and any(i.rg for i in inputs)
        deps = frozenset().union(*(i.deps for i in inputs)) if rg else frozenset()
        return self.add_var(name, shape, dtype, rg=rg, leaf=not rg, deps=deps,
                            curv=rg and (curv or any(i.curv for i in inputs)))

    def view_of(self, v, name, shape, contig=None, overlap=None, detach=False):
        rg = v.rg and not self.nograd and not detach
        return self.add_var(
            name, shape, v.dtype, rg=rg, leaf=v.leaf if not detach else True,
            storage=v.storage, base=name if detach else v.base,
            guard=v.guard and not detach and not self.nograd,
            contig=v.contig if contig is None else contig,
            overlap=v.overlap if overlap is None else overlap,
            nograd_view=(self.nograd and v.rg) or (v.nograd_view and not detach),
            grad=v.grad, aliased=v.aliased, piece=None if detach else v.piece,
            deps=frozenset() if self.nograd or detach or v.nograd_view else v.deps,
            curv=v.curv and not detach)

    def random_shape(self):
        nd = self.choice([0, 1, 1, 1, 2, 2, 2, 2, 3, 3])
        return tuple(self.choice([1, 2, 2, 3, 3, 3, 4, 4]) for _ in range(nd))

    def values(self, shape):
        return np.round(self.rng.uniform(-1.5, 1.5, shape), 3)

    def literal(self, shape, dtype, rg=False):
        a = self.values(shape)
        tail = ", requires_grad=True" if rg else ""
        return f"torch.tensor({nested(a)}, dtype=torch.{dtype}{tail})"

    def operand_shape(self, shape):
        """A shape that broadcasts to ``shape``: a suffix of it with some dims set to 1."""
        k = int(self.rng.integers(0, len(shape) + 1))
        return tuple(1 if self.chance(0.3) else d for d in shape[len(shape) - k:])

    def operand(self, target_shape, dtype, exact=False):
        """(text, var or None) of a tensor that broadcasts to ``target_shape``: a live variable,
        an expression of one, a new leaf or constant, or a Python number."""
        if not exact and self.chance(0.2):
            return fmt(self.rng.uniform(-1.5, 1.5)), None
        fits = self.pick(lambda v: (v.shape == target_shape if exact
                                    else broadcasts_to(v.shape, target_shape)))
        if fits is not None and self.chance(0.7):
            if self.chance(0.25):
                return f"({fits.name} * 2)", fits
            return fits.name, fits
        shape = target_shape if exact else self.operand_shape(target_shape)
        name = self.fresh("x" if self.chance(0.5) else "c")
        rg = name.startswith("x") and not self.nograd
        self.emit(f"{name} = {self.literal(shape, dtype, rg)}", "leaf", defs=(name,))
        return name, self.add_var(name, shape, dtype, rg=rg, leaf=True, guard=rg,
                                  deps=frozenset({name}) if rg else frozenset())

    def fill(self, template, ytext, y):
        """``template`` with its ``{y}`` set; a number operand of ``abs() + 0.5`` is folded."""
        if y is None:
            template = template.replace("{y}.abs() + 0.5", "{y}")
            ytext = fmt(abs(float(ytext)) + 0.5) if "/" in template or "div" in template \
                else ytext
        return template.replace("{y}", ytext)

    def writable(self, v, elementwise=True):
        """Whether PyTorch lets ``v`` be written here, and backward will not find a saved tensor
        modified (most of the time: those programs test errors only)."""
        if (v.guard and not self.nograd) or (elementwise and v.overlap) or (
                v.nograd_view and not self.nograd) or v.aliased:
            return False
        return v.storage not in self.saved or self.chance(0.25)

    def may_write(self, v, elementwise=True):
        """Whether to write ``v``: writes PyTorch refuses only now and then."""
        return self.writable(v, elementwise) or self.chance(0.03)

    def saves(self, *vs):
        """An op saved ``vs`` (inputs or output) for backward: writing them later is an error
        at backward, so the generator mostly avoids it."""
        if not self.nograd:
            self.saved.update(v.storage for v in vs if v is not None and v.rg)

    def written(self, v, operand=None, curv=False):
        """Model an in-place write of ``v`` (with ``operand`` as an input; ``curv``: the op's
        gradient uses a value that requires grad)."""
        if self.nograd:
            return
        if operand is not None and operand.rg:
            for u in self.vars.values():
                if u.storage == v.storage and not (u.leaf and not u.rg and u is not v
                                                   and u.name != u.storage):
                    u.rg = True
                    u.leaf = False
                    if u.base == v.base:   # (an alias through detach() keeps its history)
                        u.deps = u.deps | operand.deps
                    u.curv = u.curv or operand.curv or curv
        elif curv and v.rg:
            for u in self.vars.values():
                if u.storage == v.storage and u.rg:
                    u.curv = True

    def overlap_alt(self, src, operands, target):
        """PyTorch's text: each operand variable sharing memory with ``target`` is cloned where
        it is itself an argument of the call (or the right side of the assignment). An operand
        written inside an expression (``v.abs() + 0.5``, ``(v * 2)``) reaches the write as a new
        tensor and is left alone: cloning it there would change what the expression's own op
        saves for backward."""
        names = {o.name for o in operands if o is not None and o.storage == target.storage
                 and not _disjoint(o, target)}
        if not names or target.numel == 0:   # (nothing overlaps in an empty tensor)
            return None
        ops = [m for m in re.finditer(r" (?:[-+*/]?=) ", src)]
        cut = ops[-1].end() if ops else src.index("(") + 1
        bare = r"(?:^|(?<=\()|(?<=, ))(" + "|".join(sorted(names)) + r")(?=[,)]|$)"
        tail = re.sub(bare, r"\1.clone()", src[cut:])
        return None if tail == src[cut:] else src[:cut] + tail

    # ---- statement kinds --------------------------------------------------------------------
    def s_leaf(self):
        shape, dtype = self.random_shape(), self.choice(DTYPES)
        rg = not self.nograd and self.chance(0.75)
        name = self.fresh("x" if rg else "c")
        self.emit(f"{name} = {self.literal(shape, dtype, rg)}", "leaf", defs=(name,))
        self.add_var(name, shape, dtype, rg=rg, guard=rg,
                     deps=frozenset({name}) if rg else frozenset())

    def s_const(self):
        shape = self.random_shape()
        dtype = self.choice(DTYPES)
        name = self.fresh("c")
        form = self.choice([f"torch.ones({shape_text(shape)}, dtype=torch.{dtype})",
                            f"torch.zeros({shape_text(shape)}, dtype=torch.{dtype})",
                            f"torch.full({shape_text(shape)}, 0.5, dtype=torch.{dtype})",
                            self.literal(shape, dtype)])
        self.emit(f"{name} = {form}", "const", defs=(name,))
        self.add_var(name, shape, dtype)

    def s_unary(self):
        x = self.pick()
        text, tag = self.choice(UNARY)
        name = self.fresh()
        self.emit(f"{name} = {text.format(x=x.name)}", "unary." + tag, defs=(name,),
                  uses=(x.name,))
        r = self.result(name, x.shape, x.dtype, x, curv=tag not in FLAT)
        if tag not in LINEAR:
            self.saves(x, r)

    def s_binary(self):
        x = self.pick()
        text, tag = self.choice(BINARY)
        ytext, y = self.operand(x.shape, x.dtype)
        if y is not None and self.chance(0.5):   # operand first: broadcasting both ways
            x, y, ytext = y, x, x.name
            xtext = x.name if ytext != x.name else x.name
        else:
            xtext = x.name
        if tag in ("where", "maximum", "minimum") and y is None:
            ytext = f"torch.tensor({ytext}, dtype=torch.{x.dtype})"
        shape = broadcast(x.shape, y.shape) if y is not None else x.shape
        dtype = x.dtype if y is None or y.dtype == x.dtype else \
            y.dtype if x.ndim == 0 < y.ndim else x.dtype if y.ndim == 0 < x.ndim else "float64"
        # (a 0-d tensor does not promote a tensor with dimensions: float32 * f64 0-d is float32)
        name = self.fresh()
        src = self.fill(text.replace("{x}", xtext), ytext, y)
        self.emit(f"{name} = {src}", "binary." + tag, defs=(name,),
                  uses=(x.name, y.name if y is not None else None))
        r = self.result(name, shape, dtype, x, y, curv=y is not None and y.rg and (
            tag == "div" or (tag == "mul" and x.rg)))
        if tag not in LINEAR:
            self.saves(x, y, r)

    def s_reduce(self):
        x = self.pick()
        op = self.choice(["sum", "mean"])
        name = self.fresh()
        if x.ndim == 0 or self.chance(0.3):
            self.emit(f"{name} = {x.name}.{op}()", "reduce." + op, defs=(name,), uses=(x.name,))
            return self.result(name, (), x.dtype, x)
        d = int(self.rng.integers(-x.ndim, x.ndim))
        keep = self.chance(0.4)
        form = self.choice([f"{x.name}.{op}(dim={d}, keepdim={keep})",
                            f"torch.{op}({x.name}, {d}, {keep})", f"{x.name}.{op}({d})"])
        if form.endswith(f"({d})"):
            keep = False
        shape = list(x.shape)
        if keep:
            shape[d] = 1
        else:
            del shape[d]
        self.emit(f"{name} = {form}", "reduce." + op, defs=(name,), uses=(x.name,))
        self.result(name, shape, x.dtype, x)

    def s_matmul(self):
        x = self.pick(lambda v: v.ndim in (1, 2))
        if x is None:
            return self.s_unary()
        n = x.shape[-1]
        y = self.pick(lambda v: v.ndim in (1, 2) and v.shape[0] == n and v.dtype == x.dtype)
        name = self.fresh()
        if y is None:
            k = self.choice([1, 2, 3])
            c = self.fresh("c")
            self.emit(f"{c} = torch.linspace(-1.0, 1.0, {n * k}, dtype=torch.{x.dtype})"
                      f".reshape({n}, {k})", "const", defs=(c,))
            y = self.add_var(c, (n, k), x.dtype)
        form = self.choice(["{x} @ {y}", "torch.matmul({x}, {y})"]) if x.ndim == 2 or \
            y.ndim == 2 else "torch.dot({x}, {y})" if self.chance(0.3) else "{x} @ {y}"
        self.emit(f"{name} = " + form.format(x=x.name, y=y.name), "matmul", defs=(name,),
                  uses=(x.name, y.name))
        self.saves(x, y)
        self.result(name, x.shape[:-1] + y.shape[1:], x.dtype, x, y, curv=x.rg and y.rg)

    def s_catstack(self):
        x = self.pick()
        ys = [v for v in self.vars.values() if v.shape == x.shape and v.dtype == x.dtype]
        parts = [x] + [self.choice(ys) for _ in range(int(self.rng.integers(1, 3)))]
        names = "[" + ", ".join(p.name for p in parts) + "]"
        name = self.fresh()
        if x.ndim == 0 or self.chance(0.4):
            d = int(self.rng.integers(0, x.ndim + 1))
            shape = x.shape[:d] + (len(parts),) + x.shape[d:]
            self.emit(f"{name} = torch.stack({names}, {d})", "stack", defs=(name,),
                      uses=[p.name for p in parts])
        else:
            d = int(self.rng.integers(0, x.ndim))
            shape = x.shape[:d] + (x.shape[d] * len(parts),) + x.shape[d + 1:]
            self.emit(f"{name} = torch.cat({names}, dim={d})", "cat", defs=(name,),
                      uses=[p.name for p in parts])
        self.result(name, shape, x.dtype, *parts)

    # ---- views ------------------------------------------------------------------------------
    def index(self, shape, for_write=False):
        """(text, numpy index, is_basic) of a random index into a tensor of ``shape``."""
        if not shape or 0 in shape:
            return self.choice([("...", ..., True), ("None", None, True)])
        n0 = shape[0]
        i = int(self.rng.integers(-n0, n0))
        kinds = ["int", "slice", "step", "neg", "ellipsis", "none", "tuple", "mask", "itensor",
                 "mix"]
        k = self.choice(kinds)
        if k == "int":
            return str(i), i, True
        if k == "slice":
            a = int(self.rng.integers(0, n0))
            return f"{a}:", slice(a, None), True
        if k == "step":
            a, s = int(self.rng.integers(0, 2)), self.choice([2, 2, 3])
            return f"{a}::{s}", slice(a, None, s), True
        if k == "neg":
            a = -int(self.rng.integers(1, n0 + 1))
            return f"{a}:", slice(a, None), True
        if k == "ellipsis":
            if len(shape) >= 2:
                j = int(self.rng.integers(-shape[-1], shape[-1]))
                return f"..., {j}", (..., j), True
            return "...", ..., True
        if k == "none":
            return self.choice([("None", None, True), (":, None", (slice(None), None), True)])
        if k == "tuple" and len(shape) >= 2:
            j = int(self.rng.integers(0, shape[1]))
            return self.choice([(f"{i}, {j}:", (i, slice(j, None)), True),
                                (f"::2, {j}", (slice(None, None, 2), j), True),
                                (":, -1, None", (slice(None), -1, None), True),
                                (f"None, {i}, ...", (None, i, ...), True)])
        if k == "mask":
            full = self.chance(0.5)
            m = self.rng.random(shape if full else shape[:1]) > 0.5
            return f"torch.tensor({nested(m)})", m, False
        if k in ("itensor", "mix"):
            cnt = int(self.rng.integers(1, n0 + 1))
            idx = self.rng.choice(n0, size=cnt, replace=False)   # no repeats: writes well defined
            t = f"torch.tensor({nested(idx)})"
            if k == "mix" and len(shape) >= 2:
                return f"{t}, 1:", (idx, slice(1, None)), False
            return t, idx, False
        return str(i), i, True

    def s_view(self):
        x = self.pick()
        name = self.fresh()
        nd, sh = x.ndim, x.shape
        opts = ["getitem", "getitem", "detach"]
        if nd >= 1:
            opts += ["select", "narrow", "unsqueeze", "expand", "unfold", "reshape"]
        else:
            opts += ["unsqueeze", "expand", "reshape"]
        if nd >= 2:
            opts += ["transpose", "permute", "diagonal"]
        if nd <= 2:
            opts += ["t"]
        if 1 in sh:
            opts += ["squeeze"]
        if 0 in sh:
            opts = [o for o in opts if o not in ("select", "narrow", "unfold", "as_strided")]
        if x.contig:
            opts += ["view"]
            if x.numel >= 4 and self.chance(0.3):
                opts += ["as_strided"]
        k = self.choice(opts)
        contig, overlap, shape = None, None, None
        if k == "getitem":
            text, idx, basic = self.index(sh)
            shape = np.empty(sh)[idx].shape
            src = f"{name} = {x.name}[{text}]"
            if not basic:       # advanced indexing copies
                self.emit(src, "getitem.advanced", defs=(name,), uses=(x.name,))
                return self.result(name, shape, x.dtype, x)
            contig = False if any(isinstance(p, slice) and p.step for p in
                                  (idx if isinstance(idx, tuple) else (idx,))) else None
            self.emit(src, "view.getitem", defs=(name,), uses=(x.name,))
        elif k == "detach":
            if self.chance(0.4):
                self.emit(f"{name} = {x.name}.data", "view.data", defs=(name,), uses=(x.name,),
                          alt=f"{name} = {x.name}.detach()")
            else:
                self.emit(f"{name} = {x.name}.detach()", "view.detach", defs=(name,),
                          uses=(x.name,))
            return self.view_of(x, name, sh, detach=True)
        elif k == "select":
            d = int(self.rng.integers(0, nd))
            i = int(self.rng.integers(-sh[d], sh[d]))
            shape = sh[:d] + sh[d + 1:]
            contig = None if d == 0 else False
            self.emit(f"{name} = {x.name}.select({d}, {i})", "view.select", defs=(name,),
                      uses=(x.name,))
        elif k == "narrow":
            d = int(self.rng.integers(0, nd))
            s = int(self.rng.integers(0, sh[d]))
            ln = int(self.rng.integers(1, sh[d] - s + 1))
            shape = sh[:d] + (ln,) + sh[d + 1:]
            contig = None if d == 0 else False
            form = self.choice([f"{x.name}.narrow({d}, {s}, {ln})",
                                f"torch.narrow({x.name}, {d}, {s}, {ln})"])
            self.emit(f"{name} = {form}", "view.narrow", defs=(name,), uses=(x.name,))
        elif k == "unsqueeze":
            d = int(self.rng.integers(0, nd + 1))
            shape = sh[:d] + (1,) + sh[d:]
            self.emit(f"{name} = {x.name}.unsqueeze({d})", "view.unsqueeze", defs=(name,),
                      uses=(x.name,))
        elif k == "squeeze":
            ds = [d for d in range(nd) if sh[d] == 1]
            if self.chance(0.5):
                shape = tuple(n for n in sh if n != 1)
                self.emit(f"{name} = {x.name}.squeeze()", "view.squeeze", defs=(name,),
                          uses=(x.name,))
            else:
                d = self.choice(ds)
                shape = sh[:d] + sh[d + 1:]
                self.emit(f"{name} = {x.name}.squeeze({d})", "view.squeeze", defs=(name,),
                          uses=(x.name,))
        elif k == "expand":
            shape = tuple(self.choice([2, 3]) if n == 1 else n for n in sh)
            if self.chance(0.4) or shape == sh:
                shape = (2,) + shape
            self.emit(f"{name} = {x.name}.expand{shape_text(shape)}", "view.expand",
                      defs=(name,), uses=(x.name,))
            overlap, contig = True, False
        elif k == "unfold":
            d = int(self.rng.integers(0, nd))
            size = int(self.rng.integers(1, sh[d] + 1))
            step = int(self.rng.integers(1, 3))
            shape = sh[:d] + ((sh[d] - size) // step + 1,) + sh[d + 1:] + (size,)
            self.emit(f"{name} = {x.name}.unfold({d}, {size}, {step})", "view.unfold",
                      defs=(name,), uses=(x.name,))
            overlap, contig = x.overlap or step < size, False
        elif k in ("reshape", "view"):
            shape = self.choice([(-1,), (x.numel,), (1,) + sh, sh + (1,)]
                                + ([(sh[0], -1)] if nd >= 2 and sh[0] else []))
            real = tuple(x.numel if n == -1 and len(shape) == 1 else n for n in shape)
            if -1 in real:
                real = (sh[0], x.numel // sh[0])
            if k == "reshape" and not x.contig and not _only_unit_axes_differ(real, sh):
                self.emit(f"{name} = {x.name}.reshape{shape_text(shape)}", "reshape.copy",
                          defs=(name,), uses=(x.name,))
                r = self.result(name, real, x.dtype, x)
                if x.grad:   # a gradient's layout is a guess (contig=False): maybe a view
                    r.grad, r.aliased, r.storage = True, x.aliased, x.storage
                return r
            self.emit(f"{name} = {x.name}.{k}{shape_text(shape)}", "view." + k, defs=(name,),
                      uses=(x.name,))
            shape = real
        elif k == "t":
            shape = sh[::-1]
            contig = nd < 2
            self.emit(f"{name} = {x.name}.t()", "view.t", defs=(name,), uses=(x.name,))
        elif k == "transpose":
            d0, d1 = self.rng.choice(nd, 2, replace=False)
            s = list(sh)
            s[d0], s[d1] = s[d1], s[d0]
            shape, contig = tuple(s), False
            form = self.choice([f"{x.name}.transpose({d0}, {d1})",
                                f"torch.transpose({x.name}, {d0}, {d1})"])
            self.emit(f"{name} = {form}", "view.transpose", defs=(name,), uses=(x.name,))
        elif k == "permute":
            p = [int(i) for i in self.rng.permutation(nd)]
            shape, contig = tuple(sh[i] for i in p), False
            self.emit(f"{name} = {x.name}.permute({', '.join(map(str, p))})", "view.permute",
                      defs=(name,), uses=(x.name,))
        elif k == "diagonal":
            off = int(self.rng.integers(-1, 2))
            a = np.empty(sh)
            shape, contig = np.diagonal(a, off, 0, 1).shape, False
            self.emit(f"{name} = {x.name}.diagonal({off})" if off else
                      f"{name} = torch.diagonal({x.name})", "view.diagonal", defs=(name,),
                      uses=(x.name,))
        elif k == "as_strided":
            shape, contig = (2, 2), False
            self.emit(f"{name} = {x.name}.as_strided((2, 2), (1, 2))", "view.as_strided",
                      defs=(name,), uses=(x.name,))
            overlap = x.numel < 4
        self.view_of(x, name, shape, contig=contig, overlap=overlap)

    def s_multi(self):
        """Outputs of split/chunk/unbind: PyTorch runs them as narrow/select (see the module
        docstring), so writes into them compare against the same program written with views
        PyTorch lets us write."""
        x = self.pick(lambda v: v.ndim >= 1 and v.numel > 0)
        if x is None:
            return self.s_view()
        d = int(self.rng.integers(0, x.ndim))
        n = x.shape[d]
        k = self.choice(["split", "chunk", "unbind"])
        if k == "split":
            size = int(self.rng.integers(1, n + 1))
            starts = list(range(0, n, size))
            sizes = [min(size, n - s) for s in starts]
            call = self.choice([f"{x.name}.split({size}, {d})",
                                f"torch.split({x.name}, {size}, dim={d})"])
        elif k == "chunk":
            chunks = int(self.rng.integers(1, n + 1))
            size = -(-n // chunks)
            starts = list(range(0, n, size))
            sizes = [min(size, n - s) for s in starts]
            call = self.choice([f"{x.name}.chunk({chunks}, {d})",
                                f"torch.chunk({x.name}, {chunks}, {d})"])
        else:
            starts, sizes = list(range(n)), None
            call = self.choice([f"{x.name}.unbind({d})", f"torch.unbind({x.name}, {d})"])
        names = [self.fresh() for _ in starts]
        lhs = ", ".join(names) + ("," if len(names) == 1 else "")
        # PyTorch's pieces are narrow()s and select()s sized at run time: a shape-only write
        # through an alias (y = x.lerp_(...); y.t_()) can change x's shape behind the
        # generator's back, and both renderings must then cut the same pieces
        n_now = f"{x.name}.shape[{d}]"
        if sizes is None:
            rhs = f"[{x.name}.select({d}, i) for i in range({n_now})]"
        else:
            size = f"{size}" if k == "split" else f"-(-{n_now} // {chunks})"
            rhs = (f"[{x.name}.narrow({d}, s, min(k, {n_now} - s)) for k in [{size}] "
                   f"for s in range(0, {n_now}, k)]")
        self.emit(f"{lhs} = {call}", "view." + k, defs=names, uses=(x.name,),
                  alt=f"{lhs} = {rhs}")
        for i, nm in enumerate(names):
            if sizes is None:
                shape = x.shape[:d] + x.shape[d + 1:]
            else:
                shape = x.shape[:d] + (sizes[i],) + x.shape[d + 1:]
            self.view_of(x, nm, shape, contig=None if d == 0 else False).piece = (x.name, d, i)

    def s_detach(self):
        x = self.pick()
        if self.chance(0.5):
            name = self.fresh()
            if self.chance(0.5):
                self.emit(f"{name} = {x.name}.data", "view.data", defs=(name,), uses=(x.name,),
                          alt=f"{name} = {x.name}.detach()")
            else:
                self.emit(f"{name} = {x.name}.detach()", "view.detach", defs=(name,),
                          uses=(x.name,))
            self.view_of(x, name, x.shape, detach=True)
        else:   # a write through .data / .detach() without a name
            if x.aliased or not self.may_write(x):
                return
            how = self.choice(["data", "detach()"])
            op, tag = self.choice(INPLACE_UNARY[:12])
            alt = f"{x.name}.detach().{op}" if how == "data" else None
            self.emit(f"{x.name}.{how}.{op}", f"inplace.{how}.{tag}", uses=(x.name,), alt=alt)

    # ---- in-place ---------------------------------------------------------------------------
    def target(self, elementwise=True):
        focus, self.focus = self.focus, None
        if focus is not None and self.writable(focus, elementwise):
            return focus
        if self.chance(0.03):
            return self.pick(lambda v: not v.aliased)
        return self.pick(lambda v: self.writable(v, elementwise))

    def bind(self, x, call, kind, operand=None, alt=None, curv=False):
        """``x.op_()`` as a statement, sometimes binding the result to a new name (``curv``: as
        for :meth:`written`)."""
        uses = (x.name, operand.name if operand is not None else None)
        if self.chance(0.4):
            name = self.fresh()
            self.emit(f"{name} = {call}", kind, defs=(name,), uses=uses,
                      alt=None if alt is None else f"{name} = {alt}")
            self.vars[name] = dataclasses.replace(x, name=name)
        else:
            self.emit(call, kind, uses=uses, alt=alt)
        self.written(x, operand, curv)

    def s_inplace_unary(self):
        x = self.target()
        if x is None:
            return
        op, tag = self.choice(INPLACE_UNARY)
        if self.chance(0.15) and "." not in op and op.split("(")[0] in TORCH_INPLACE:
            call = f"torch.{op}".replace("_(", f"_({x.name}, ", 1).replace(", )", ")")
        else:
            call = f"{x.name}.{op}"
        self.bind(x, call, "inplace." + tag, curv=tag not in FLAT)
        if tag not in LINEAR:
            self.saves(x)

    def s_inplace_binary(self):
        x = self.target()
        if x is None:
            return
        op, tag = self.choice(INPLACE_BINARY)
        ytext, y = self.operand(x.shape, x.dtype)
        if y is None and tag in ("copy_", "lerp_", "addcmul_"):
            ytext = f"torch.full({shape_text(x.shape)}, {ytext}, dtype=torch.{x.dtype})"
        call = f"{x.name}." + self.fill(op, ytext, y)
        alt = self.overlap_alt(call, [y], x)
        if tag == "lerp_" and y is not None and y.dtype != x.dtype:   # as in s_setitem
            alt = (alt or call).replace(", 0.3)", f".to(torch.{x.dtype}), 0.3)")
        self.bind(x, call, "inplace." + tag, y, alt, curv=tag in ("mul_", "div_", "addcmul_"))

    def s_aug(self):
        x = self.target()
        if x is None:
            return
        op, rhs = self.choice(AUG)
        ytext, y = self.operand(x.shape, x.dtype)
        template = rhs
        rhs = self.fill(template, ytext, y)
        if self.chance(0.3) and x.ndim >= 1:       # x[idx] op= y: getitem, op, setitem
            text, idx, basic = self.index(x.shape)
            region = np.empty(x.shape)[idx].shape
            ytext, y = self.operand(region, x.dtype)
            rhs = self.fill(template, ytext, y)
            src = f"{x.name}[{text}] {op} {rhs}"
            kind = "aug.setitem" + ("" if basic else ".advanced")
        else:
            src, kind, basic, region = f"{x.name} {op} {rhs}", "aug." + op, True, x.shape
        # x[int_tensor] op= x writes into a copy, x[...] = copy, and an empty region overlaps
        # nothing: PyTorch refuses neither (and then raises what mutograd raises at backward)
        alt = self.overlap_alt(src, [y], x) if basic and 0 not in region else None
        self.emit(src, kind, uses=(x.name, y.name if y else None), alt=alt)
        self.written(x, y, op in ("*=", "/="))

    def s_setitem(self):
        x = self.target(elementwise=True)
        if x is None:
            return
        text, idx, basic = self.index(x.shape, for_write=True)
        region = np.empty(x.shape)[idx].shape
        if self.chance(0.3):
            val, y = fmt(self.rng.uniform(-1.5, 1.5)), None
        else:
            val, y = self.operand(region, x.dtype)
            if y is None:
                val = f"torch.tensor({val}, dtype=torch.{x.dtype})"
        src = f"{x.name}[{text}] = {val}"
        alt = self.overlap_alt(src, [y], x)
        if not basic and y is not None and y.dtype != x.dtype:
            # mutograd casts the value, as both do for x[slice] = v; PyTorch's index_put_
            # alone wants x's dtype: its rendering casts first, so the gradient is compared
            alt = (alt or src) + f".to(torch.{x.dtype})"
        self.emit(src, "setitem." + ("basic" if basic else "advanced"), uses=(x.name, y and y.name),
                  alt=alt)
        self.written(x, y)

    def s_fill(self):
        x = self.target(elementwise=False)
        if x is None:
            return
        k = self.choice(["fill_", "zero_", "masked_fill_", "copy_"])
        y = None
        if k == "fill_":
            call = f"{x.name}.fill_({fmt(self.rng.uniform(-1, 1))})"
        elif k == "zero_":
            call = f"{x.name}.zero_()"
        elif k == "masked_fill_":
            if x.overlap and not self.chance(0.1):
                return
            m = self.rng.random(self.operand_shape(x.shape)) > 0.5
            call = f"{x.name}.masked_fill_(torch.tensor({nested(m)}), " \
                   f"{fmt(self.rng.uniform(-1, 1))})"
        else:
            if x.overlap and not self.chance(0.1):
                return
            ytext, y = self.operand(x.shape, x.dtype)
            if y is None:
                ytext = f"torch.tensor({ytext}, dtype=torch.{x.dtype})"
            call = f"{x.name}.copy_({ytext})"
        alt = self.overlap_alt(call, [y], x)
        self.bind(x, call, "inplace." + k, y, alt)

    def s_scatter(self):
        x = self.target()
        if x is None or x.ndim == 0 or x.numel == 0:
            return
        n0 = x.shape[0]
        add = self.chance(0.5)
        if add:
            idx = self.rng.integers(0, n0, size=int(self.rng.integers(1, 4)))   # repeats add up
            ytext, y = self.operand((len(idx),) + x.shape[1:], x.dtype, exact=True)
            call = f"{x.name}.index_add_(0, torch.tensor({nested(idx)}), {ytext})"
            kind = "inplace.index_add_"
        else:
            # each column gets distinct rows, so the written values are well defined
            rows = min(n0, 2)
            idx = np.stack([self.rng.choice(n0, rows, replace=False)
                            for _ in range(int(np.prod(x.shape[1:], dtype=int)))], -1)
            idx = idx.reshape((rows,) + x.shape[1:])
            ytext, y = self.operand(idx.shape, x.dtype, exact=True)
            call = f"{x.name}.scatter_(0, torch.tensor({nested(idx)}), {ytext})"
            kind = "inplace.scatter_"
        alt = self.overlap_alt(call, [y], x)
        if y is not None and y.dtype != x.dtype:   # cast for PyTorch, as in s_setitem
            alt = (alt or call)[:-1] + f".to(torch.{x.dtype}))"
        self.bind(x, call, kind, y, alt)

    def s_meta_inplace(self):
        x = self.target(elementwise=False)
        if x is None:
            return
        if x.ndim <= 2 and self.chance(0.5):
            self.emit(f"{x.name}.t_()", "meta.t_", uses=(x.name,))
            shape = x.shape[::-1]
        elif 1 in x.shape and self.chance(0.5):
            self.emit(f"{x.name}.squeeze_()", "meta.squeeze_", uses=(x.name,))
            shape = tuple(n for n in x.shape if n != 1)
        else:
            self.emit(f"{x.name}.unsqueeze_(0)", "meta.unsqueeze_", uses=(x.name,))
            shape = (1,) + x.shape
        x.shape = tuple(shape)
        x.contig = x.contig and x.ndim < 2
        for v in self.vars.values():        # a name bound to the same object changes too
            if v is not x and v.storage == x.storage and v.name in self.aliases(x):
                v.shape = x.shape

    def aliases(self, x):
        """Names bound to the same object as ``x`` (``y = x.add_(1)``)."""
        out = set()
        for s in self.stmts:
            if len(s.defs) == 1 and re.sub(r"^(nograd\.)?(grad\.)?", "", s.kind).startswith(
                    "inplace.") and \
                    x.name in s.uses[:1]:
                out.add(s.defs[0])
        return out

    # ---- grad mode and autograd API ---------------------------------------------------------
    def s_nograd(self):
        self.nograd = True
        try:
            k = self.choice(["leafwrite", "leafwrite", "inplace_unary", "inplace_binary",
                             "unary", "view", "setitem"])
            if k == "leafwrite":
                x = self.pick(lambda v: v.guard and not v.aliased) or \
                    self.pick(lambda v: not v.aliased)
                op = self.choice(["mul_(0.5)", "add_(0.1)", "clamp_(-1.0, 1.0)",
                                  "copy_({x} * 0.9)", "zero_()", "sub_(0.1 * {x})"])
                src = f"{x.name}.{op.format(x=x.name)}"
                alt = self.overlap_alt(src, [x], x) if "{x}" in op else None
                self.emit(src, "leaf_write", uses=(x.name,), alt=alt)
            else:
                getattr(self, "s_" + k)()
        finally:
            self.nograd = False

    def s_requires_grad(self):
        x = self.pick(lambda v: v.leaf and not v.rg)
        if x is None:
            return
        self.emit(f"{x.name}.requires_grad_()", "requires_grad_", uses=(x.name,))
        x.rg = True
        x.guard = True
        x.deps = frozenset({x.name})

    def s_function(self):
        cls = self.choice(sorted(FUNCTIONS))
        body, nargs, dirty = FUNCTIONS[cls]
        if cls not in self.classes:
            self.classes.add(cls)
            self.emit(f"class {cls}(torch.autograd.Function):\n{body}", "function.class",
                      defs=(cls,))
        if dirty:
            x = self.target()
            if x is None:
                return
            name = self.fresh()
            self.emit(f"{name} = {cls}.apply({x.name})", "function." + cls, defs=(name,),
                      uses=(cls, x.name))
            self.vars[name] = dataclasses.replace(x, name=name)
            self.written(x, curv=cls == "ExpFn_")
            return
        x = self.pick()
        args = [x.name]
        if nargs == 2:
            y = self.pick(lambda v: v.shape == x.shape and v.dtype == x.dtype)
            args.append(y.name)
        name = self.fresh()
        self.emit(f"{name} = {cls}.apply({', '.join(args)})", "function." + cls, defs=(name,),
                  uses=(cls, *args))
        self.saves(*(self.vars[a] for a in args))
        ins = [self.vars[a] for a in args]
        self.saves(self.result(name, x.shape, x.dtype, *ins,
                               curv=cls != "MulFn" or all(v.rg for v in ins)))

    def s_hook(self):
        x = self.pick(lambda v: v.rg)
        if x is None:
            return
        fn = self.choice(["lambda g: g * 2", "lambda g: None", "lambda g: g + 1",
                          "lambda g: g * g"])
        self.emit(f"{x.name}.register_hook({fn})", "hook", uses=(x.name,))

    def s_retain_grad(self):
        x = self.pick(lambda v: v.rg and not v.leaf)
        if x is None:
            return
        self.emit(f"{x.name}.retain_grad()", "retain_grad", uses=(x.name,))

    def weighted(self, v):
        """``v`` weighted and summed: a term of a loss."""
        if v.ndim == 0:
            return f"({v.name} * {fmt(self.rng.uniform(0.5, 1.5))})"
        w = f"torch.linspace(-0.5, 1.5, {v.numel}, dtype=torch.{v.dtype})" \
            f".reshape{shape_text(v.shape)}"
        return f"({v.name} * {w}).sum()"

    def loss(self, parts=(), uses=()):
        """``lossN = sum of (v * weights).sum()`` over 1-3 variables requiring grad, after the
        terms ``parts`` (text) of the variables ``uses``."""
        cands = [v for v in self.vars.values() if v.rg]
        if not cands:
            return None
        parts, terms = list(parts), list(uses)
        for _ in range(int(self.rng.integers(1, 4)) if not parts else 0):
            v = self.pick(lambda u: u.rg)
            parts.append(self.weighted(v))
            terms.append(v)
        name = self.fresh("loss")
        self.emit(f"{name} = " + " + ".join(parts), "loss", defs=(name,),
                  uses=[v.name for v in terms])
        self.losses.append(name)
        self.loss_terms[name] = terms
        self.loss_deps[name] = frozenset().union(*(v.deps for v in terms))
        return name

    def s_backward(self, final=False):
        name = self.loss()
        if name is None:
            return
        if final:
            self.emit(f"{name}.backward()", "backward", uses=(name,), backward=True)
        else:
            self.emit(f"{name}.backward(retain_graph=True)", "backward.retain", uses=(name,),
                      backward=True)
        self.backward_done = True

    def s_grad(self):
        name = self.loss()
        if name is None:
            return
        leaves = [v.name for v in self.vars.values() if v.rg and v.leaf][:3]
        if not leaves:
            return
        g = self.fresh("g")
        self.emit(f"{g} = torch.autograd.grad({name}, [{', '.join(leaves)}], "
                  f"retain_graph=True, allow_unused=True)", "autograd.grad", defs=(g,),
                  uses=(name, *leaves), backward=True)

    def s_step(self):
        if not self.backward_done:
            return self.s_unary()
        x = self.pick(lambda v: v.rg and v.leaf)
        if x is None:
            return
        k = self.choice(["sgd", "zero", "none"])
        if k == "sgd":
            src = (f"with torch.no_grad():\n    if {x.name}.grad is not None:\n"
                   f"        {x.name} -= 0.1 * {x.name}.grad")
        elif k == "zero":
            src = f"if {x.name}.grad is not None:\n    {x.name}.grad.zero_()"
        else:
            src = f"{x.name}.grad = None"
        self.emit(src, "step." + k, uses=(x.name,))

    # ---- higher order: create_graph ----------------------------------------------------------
    def reached(self, deps, terms=()):
        """Up to three tensors a loss certainly depends on, to differentiate it with respect
        to: the leaves of ``deps`` (requiring grad, reached by its history when it was made),
        and its ``terms`` that are not leaves."""
        found = {}
        for v in list(self.vars.values()) + list(terms):
            if v.rg and not v.nograd_view and (
                    v.name in deps if v.leaf else any(v is t for t in terms)):
                found.setdefault(v.name, v)
        out = list(found.values())
        if len(out) > 3:
            out = [out[i] for i in sorted(self.rng.choice(len(out), 3, replace=False))]
        return out

    def gradients(self, inputs, rg, deps, aliased=False):
        """Names for the gradients with respect to ``inputs`` (their history recorded when
        ``rg``), modelled as new variables."""
        names = [self.fresh("g") for _ in inputs]
        for g, x in zip(names, inputs):
            # layout unknown: PyTorch's gradient may be an expanded or transposed tensor
            self.add_var(g, x.shape, x.dtype, rg=rg, leaf=not rg, contig=False,
                         deps=deps if rg else frozenset(), curv=rg, grad=True, aliased=aliased)
        return names

    def unpack(self, names):
        return ", ".join(names) + ("," if len(names) == 1 else "")

    def s_cg_first(self):
        """First-order gradients whose history is recorded: ``torch.autograd.grad`` with
        ``create_graph=True`` (sometimes of a non-scalar output with ``grad_outputs`` that
        require grad), or ``backward(create_graph=True)`` and the leaves' ``.grad``."""
        form = self.choice(["grad", "grad", "grad_outputs", "backward", "backward"])
        v = self.pick(lambda u: u.rg and u.ndim >= 1 and u.deps and not u.nograd_view)
        source = None
        if form == "grad_outputs" and v is not None:
            inputs = [x for x in self.reached(v.deps, [v]) if x is not v]   # (not v's own)
            if not inputs:
                return
            if self.chance(0.5):   # a vector that requires grad (the double-backward trick)
                w = self.fresh("x")
                self.emit(f"{w} = {self.literal(v.shape, v.dtype, True)}", "leaf", defs=(w,))
                self.add_var(w, v.shape, v.dtype, rg=True, guard=True, deps=frozenset({w}),
                             aliased=True)   # (see below: it is not written either)
                wdeps = frozenset({w})
            else:
                w, wdeps = f"torch.ones_like({v.name})", frozenset()
            # a gradient may be grad_outputs itself or a view of it, in one framework and not
            # in the other (PyTorch's AddBackward passes it on, its AsStridedBackward copies):
            # such gradients are not written (``aliased``)
            names = self.gradients(inputs, v.curv or bool(wdeps), v.deps | wdeps,
                                   aliased=bool(wdeps))
            self.emit(f"{self.unpack(names)} = torch.autograd.grad({v.name}, "
                      f"[{', '.join(x.name for x in inputs)}], grad_outputs={w}, "
                      f"create_graph=True)", "higher.grad_outputs", defs=names,
                      uses=(v.name, *wdeps, *(x.name for x in inputs)), backward=True)
        else:
            source = loss = self.loss()
            if loss is None:
                return
            terms = self.loss_terms[loss]
            deps = self.loss_deps[loss]
            rg = any(t.curv for t in terms)
            if form == "backward":
                leaves = [x for x in self.reached(deps) if x.leaf][:2]
                names = self.gradients(leaves, rg, deps)
                binds = "".join(f"\n{g} = {x.name}.grad" for g, x in zip(names, leaves))
                self.emit(f"{loss}.backward(create_graph=True){binds}", "higher.backward",
                          defs=names, uses=(loss, *(x.name for x in leaves)), backward=True)
            else:
                inputs = self.reached(deps, terms)
                if not inputs:
                    return
                names = self.gradients(inputs, rg, deps)
                self.emit(f"{self.unpack(names)} = torch.autograd.grad({loss}, "
                          f"[{', '.join(x.name for x in inputs)}], create_graph=True)",
                          "higher.grad", defs=names, uses=(loss, *(x.name for x in inputs)),
                          backward=True)
            if not names:
                return
        # the gradients' histories keep tensors of the forward: a write is now an error there
        self.saved.update(u.storage for u in self.vars.values() if u.rg and u.name not in names)
        self.grads.append(([self.vars[g] for g in names], source))
        self.backward_done = True

    def between(self):
        """Statements between the first backward and the next: writes into a first-order
        gradient and into a view of one, writes into a tensor the gradient's history may have
        saved (a leaf under no_grad(), or an intermediate), hooks on gradients."""
        gs = self.grads[-1][0]
        for _ in range(int(self.rng.integers(0, 3))):
            k = self.choice(["grad_write", "grad_write", "grad_view_write", "saved_write",
                             "hook"])
            self.focus = self.choice(gs)
            if k == "hook":
                self.s_hook()
                continue
            if k == "grad_view_write":
                before = len(self.vars)
                self.s_view()
                if len(self.vars) == before:
                    continue
                self.focus = list(self.vars.values())[-1]
            elif k == "saved_write":
                self.focus = self.pick(lambda v: v.rg and v.name not in
                                       {g.name for g in gs})
                if self.focus is not None and self.focus.guard:
                    self.s_nograd()
                    continue
            write = self.choice(["inplace_unary", "inplace_binary", "aug", "setitem", "fill"])
            getattr(self, "s_" + write)()
        self.focus = None

    def penalty(self, g):
        """A term of a loss of the gradient ``g``: as a gradient penalty writes it."""
        n = g.name
        return self.choice([f"({n} * {n}).sum()", f"{n}.pow(2).sum()", self.weighted(g),
                            f"(({n}.pow(2).sum() + 0.01).sqrt() - 1) ** 2",
                            f"({n}.square() * 0.5).sum()"])

    def s_cg_second(self, final=True):
        """Differentiate first-order gradients: a loss of them (a penalty, most often plus the
        loss they came from, as WGAN-GP and double backprop write it) through ``backward()`` or
        ``torch.autograd.grad``, a Hessian-vector product, or — not ``final`` — once more with
        ``create_graph=True``, for a third order. Returns whether it made new gradients."""
        gs, source = self.grads[-1]
        gs = [g for g in gs if self.vars.get(g.name) is g]
        if not gs:
            return self.s_backward(final) if final else None
        form = self.choice(["backward", "backward", "grad", "hvp"] if final else
                           ["grad_cg", "backward_cg"])
        if form == "hvp":
            g = self.choice(gs)
            inputs = [x for x in self.reached(g.deps) if x.leaf]
            if not inputs or g.ndim == 0 or not g.rg:
                form = "backward"
            else:
                c = f"torch.linspace(-1.0, 1.0, {g.numel}, dtype=torch.{g.dtype})" \
                    f".reshape{shape_text(g.shape)}"
                h = self.fresh("h")
                self.emit(f"{h} = torch.autograd.grad({g.name}, "
                          f"[{', '.join(x.name for x in inputs)}], grad_outputs={c}, "
                          f"allow_unused=True)", "higher.hvp", defs=(h,),
                          uses=(g.name, *(x.name for x in inputs)), backward=True)
                return
        chosen = [g for g in gs if self.chance(0.6)] or [self.choice(gs)]
        parts = [self.penalty(g) for g in chosen]
        # without the loss they came from, the total requires grad only if a gradient does
        with_source = source is not None and (
            not final or self.chance(0.75) or not any(g.rg for g in chosen))
        uses = [g.name for g in chosen]
        terms = list(chosen)
        deps = frozenset().union(*(g.deps for g in chosen))
        if with_source:
            parts.append(source)
            uses.append(source)
            terms += self.loss_terms[source]
            deps |= self.loss_deps[source]
        elif not any(g.rg for g in chosen):   # a term that requires grad: a loss plus a penalty
            extra = self.pick(lambda u: u.rg and not any(u is g for g in gs))
            if extra is not None:
                parts.append(self.weighted(extra))
                uses.append(extra.name)
                terms.append(extra)
                deps |= extra.deps
        total = self.fresh("loss")
        self.emit(f"{total} = " + " + ".join(parts), "loss", defs=(total,), uses=uses)
        self.losses.append(total)
        self.loss_terms[total] = terms
        self.loss_deps[total] = deps
        # the leaves it certainly reaches: those the loss it came from reached
        sure = [x for x in self.reached(self.loss_deps[source]) if x.leaf] if with_source \
            else []
        # the new gradients require grad if a penalised gradient or the source's gradient does
        rg = any(g.rg for g in chosen) or (with_source and any(
            t.curv for t in self.loss_terms[source]))
        if form in ("grad_cg", "backward_cg") and not sure:
            form = "backward"
        if form == "backward":
            self.emit(f"{total}.backward()" if final else
                      f"{total}.backward(retain_graph=True)", "higher.backward2",
                      uses=(total,), backward=True)
        elif form == "grad":
            inputs = sure or [x for x in self.reached(deps) if x.leaf]
            if not inputs:
                return self.emit(f"{total}.backward()", "higher.backward2", uses=(total,),
                                 backward=True)
            h = self.fresh("h")
            self.emit(f"{h} = torch.autograd.grad({total}, "
                      f"[{', '.join(x.name for x in inputs)}], allow_unused=True)",
                      "higher.grad2", defs=(h,), uses=(total, *(x.name for x in inputs)),
                      backward=True)
        elif form == "grad_cg":
            names = self.gradients(sure, rg, deps)
            self.emit(f"{self.unpack(names)} = torch.autograd.grad({total}, "
                      f"[{', '.join(x.name for x in sure)}], create_graph=True)",
                      "higher.grad2", defs=names, uses=(total, *(x.name for x in sure)),
                      backward=True)
            self.grads.append(([self.vars[g] for g in names], total))
            return True
        else:
            leaves = sure[:2]
            names = self.gradients(leaves, rg, deps)
            binds = "".join(f"\n{g} = {x.name}.grad" for g, x in zip(names, leaves))
            self.emit(f"{total}.backward(create_graph=True){binds}", "higher.backward2",
                      defs=names, uses=(total, *(x.name for x in leaves)), backward=True)
            self.grads.append(([self.vars[g] for g in names], total))
            return bool(names)
        return False

    # ---- the whole program ------------------------------------------------------------------
    def program(self, length=None):
        for _ in range(int(self.rng.integers(1, 3))):
            self.s_leaf()
        if not any(v.rg for v in self.vars.values()):
            name = self.fresh("x")
            shape, dtype = self.random_shape(), self.choice(DTYPES)
            self.emit(f"{name} = {self.literal(shape, dtype, True)}", "leaf", defs=(name,))
            self.add_var(name, shape, dtype, rg=True, guard=True, deps=frozenset({name}))
        n = int(self.rng.integers(4, 18)) if length is None else length
        # a share of the programs differentiate twice or three times (create_graph=True)
        self.higher = self.chance(HIGHER_ORDER_SHARE)
        first = int(self.rng.integers(n // 3, n + 1)) if self.higher else -1
        kinds = list(KINDS)
        p = np.array([KINDS[k] for k in kinds], dtype=float)
        p /= p.sum()
        for i in range(n + 1):
            if i == first:
                if self.chance(0.3):
                    self.s_hook()       # a hook that fires in both passes
                self.s_cg_first()
                if self.grads:
                    self.between()
            if i == n:
                break
            k = kinds[int(self.rng.choice(len(kinds), p=p))]
            getattr(self, "s_" + k)()
        if not self.grads:
            self.s_backward(final=True)
            return Program(self.seed, self.stmts)
        if self.chance(0.3) and self.s_cg_second(final=False):   # a third order
            self.between()
        self.s_cg_second(final=True)
        return Program(self.seed, self.stmts)


def generate(seed, length=None):
    """The program of ``seed`` (the same text on every machine)."""
    return Generator(seed).program(length)
