"""Shrink a failing program to a short runnable reproducer.

Deleting a statement also deletes every later statement that uses a name it defined, so the
program stays valid; a deletion is kept when the program still gets the same class and category.
Then constants are made simpler (numbers rounded, float32 made float64, a leaf that requires grad
made a constant) under the same rule.
"""
import re

from .run import classify

FLOAT = re.compile(r"-?\d+\.\d+")


def drop(stmts, i):
    """``stmts`` without statement ``i`` and the later statements that depend on it."""
    gone = set(stmts[i].defs)
    out = stmts[:i]
    for s in stmts[i + 1:]:
        if gone.intersection(s.uses):
            gone.update(s.defs)
        else:
            out.append(s)
    return out


def _edit(stmt, fn):
    new_src = fn(stmt.src)
    new_alt = None if stmt.alt is None else fn(stmt.alt)
    if new_src == stmt.src and new_alt == stmt.alt:
        return None
    return type(stmt)(new_src, stmt.kind, stmt.defs, stmt.uses, new_alt, stmt.backward)


def _round(text):
    return FLOAT.sub(lambda m: f"{round(float(m.group()), 1):.1f}", text)


def shrink(program, outcome, max_runs=400):
    """The smallest program found with ``outcome``'s class and category."""
    key = outcome.key
    runs = [0]

    def same(stmts):
        runs[0] += 1
        return classify(program.replace(stmts)).key == key

    stmts = list(program.stmts)
    changed = True
    while changed and runs[0] < max_runs:
        changed = False
        for i in reversed(range(len(stmts))):
            if i >= len(stmts) or runs[0] >= max_runs:
                continue
            cand = drop(stmts, i)
            if same(cand):
                stmts, changed = cand, True
        # a loss of several terms loses one term (a cascade would delete the whole loss)
        for i, st in enumerate(stmts):
            if st.kind != "loss" or runs[0] >= max_runs:
                continue
            name, rhs = st.src.split(" = ", 1)
            terms = rhs.split(" + ")
            for k in range(len(terms)):
                if len(terms) < 2:
                    break
                rest = terms[:k] + terms[k + 1:]
                src = f"{name} = " + " + ".join(rest)
                used = tuple(u for u in st.uses if re.search(rf"\b{u}\b", " ".join(rest)))
                new = type(st)(src, st.kind, st.defs, used, None, st.backward)
                cand = stmts[:i] + [new] + stmts[i + 1:]
                if same(cand):
                    stmts, terms, changed = cand, rest, True
                    st = new
                    break
    # simpler constants, one statement at a time, then float32 -> float64 everywhere
    edits = [_round, lambda t: t.replace(", requires_grad=True", "")]
    for fn in edits:
        for i in range(len(stmts)):
            if runs[0] >= max_runs or not stmts[i].kind.endswith(("leaf", "const")):
                continue
            new = _edit(stmts[i], fn)
            if new is not None and same(stmts[:i] + [new] + stmts[i + 1:]):
                stmts[i] = new
    widened = [_edit(s, lambda t: t.replace("float32", "float64")) or s for s in stmts]
    if widened != stmts and runs[0] < max_runs and same(widened):
        stmts = widened
    return program.replace(stmts)


def reproducer(program, outcome):
    """A runnable script: the statements, what differs, and PyTorch's own text where it has
    one (an intended departure)."""
    lines = ["import mutograd.compat.torch as torch", ""]
    for i, s in enumerate(program.stmts):
        lines.append(s.src)
        if s.alt is not None:
            lines.append("# PyTorch runs: " + s.alt.replace("\n", "\n#   "))
    where = ""
    if outcome.index is not None and outcome.index < len(program.stmts):
        first = program.stmts[outcome.index].src.splitlines()[0]
        where = f" at statement {outcome.index + 1} ({first.strip()})"
    lines += ["", f"# {outcome.cls}: {outcome.category}{where}"]
    lines += ["# " + line for line in outcome.detail.splitlines()]
    return "\n".join(lines)
