"""Random programs: the gradient of each against central finite differences of the whole program,
in float64, with no PyTorch (the generator, the check and the shrinking:
tests/autograd/random_graphs.py).

CI checks ``RANDOM_GRAPHS`` programs (300); the ``slow`` sweep checks ``RANDOM_GRAPHS_SWEEP``
more (200 by default, thousands before a change to autograd is merged):

    RANDOM_GRAPHS_SWEEP=5000 python -m pytest -n 2 -q -m slow tests/autograd/test_random_graphs.py

A failure prints the shrunk program as a runnable reproducer.
``python -m tests.autograd.random_graphs 0 5000`` prints each failure class once instead.
"""
import os

import numpy as np
import pytest
from tests.autograd import random_graphs as rg

CI = int(os.environ.get("RANDOM_GRAPHS", "300"))
SWEEP = int(os.environ.get("RANDOM_GRAPHS_SWEEP", "200"))


def _check(seed):
    message = rg.report(seed)
    if message is not None:
        pytest.fail(message, pytrace=False)


@pytest.mark.parametrize("seed", range(CI))
def test_random_program_gradient_matches_finite_differences(seed):
    _check(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(CI, CI + SWEEP))
def test_random_program_sweep(seed):
    _check(seed)


# ---- the check itself ------------------------------------------------------------------------

WRONG_CUBE = '''class WrongCube(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x * x'''


def _planted(wrong=True):
    """A program with noise around a custom function whose backward is wrong (2x^2, not 3x^2)
    or right."""
    cube = WRONG_CUBE if wrong else WRONG_CUBE.replace("g * 2 * x", "g * 3 * x")
    rng = np.random.default_rng(0)
    S = rg.Step
    steps = [S("op", "t0 = a0.sin()", ("a0",), ("t0",)),
             S("view", "t1 = t0[1:]", ("t0",), ("t1",)),
             S("op", cube, (), ("WrongCube",)),
             S("op", "t2 = a1 * 2.0", ("a1",), ("t2",)),
             S("op_", "t1.mul_(t2)", ("t1", "t2")),
             S("op", "t3 = WrongCube.apply(t2)", ("WrongCube", "t2"), ("t3",)),
             S("detach", "t4 = t0.detach()", ("t0",), ("t4",), frozen=True),
             S("op", "t5 = t4 * a0", ("t4", "a0"), ("t5",))]
    leaves = {"a0": rng.uniform(-2, 2, (3, 4)), "a1": rng.uniform(-2, 2, (4,))}
    loss = [("t0", rng.standard_normal((3, 4))), ("t3", rng.standard_normal(4)),
            ("t5", rng.standard_normal((3, 4)))]
    return rg.Program(leaves, steps, loss)


def test_a_right_program_with_detach_and_views_passes():
    assert rg.check(_planted(wrong=False)).ok


def test_a_wrong_backward_is_found_shrunk_and_reproduced():
    prog = _planted()
    result = rg.check(prog)
    assert result.kind == "wrong gradient"
    assert "a1.grad" in result.detail and "a0.grad" not in result.detail
    np.testing.assert_allclose(result.grads["a0"], result.fd["a0"], rtol=1e-6, atol=1e-8)
    small = rg.shrink(prog, result.kind)
    assert [s.src for s in small.steps] == [WRONG_CUBE, "t2 = a1 * 2.0",
                                           "t3 = WrongCube.apply(t2)"]
    assert list(small.leaves) == ["a1"] and [n for n, _ in small.loss] == ["t3"]
    code = rg.source(small, rg.check(small))
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        exec(code, {})
    exec(rg.source(_planted(wrong=False), rg.check(_planted(wrong=False))), {})


def test_constants_of_the_program_are_held_by_finite_differences():
    """``detach()`` and ``no_grad()`` results are constants: with them free, finite differences
    would see the path autograd rightly ignores."""
    S = rg.Step
    leaves = {"a0": np.array([0.5, -1.0, 1.5])}
    for step in (S("detach", "c = a0.detach()", ("a0",), ("c",), frozen=True),
                 S("no_grad", "with mg.no_grad():\n    c = a0.exp()", ("a0",), ("c",),
                   frozen=True)):
        prog = rg.Program(leaves, [step, S("op", "t = c * a0", ("c", "a0"), ("t",))],
                          [("t", np.ones(3))])
        result = rg.check(prog)
        assert result.ok
        c = leaves["a0"] if step.kind == "detach" else np.exp(leaves["a0"])
        np.testing.assert_allclose(result.fd["a0"], c, rtol=1e-8)


def test_a_kink_under_the_step_is_not_a_failure():
    # floor jumps at 1.0: the differences depend on the step size, nothing to compare
    prog = rg.Program({"a0": np.array([1.0 - 3e-7, 0.5])},
                      [rg.Step("op", "t = a0.floor() + a0", ("a0",), ("t",))],
                      [("t", np.ones(2))])
    assert rg.check(prog).kind == "invalid: not smooth at this point"


def test_generation_is_deterministic_and_varied():
    a, b = rg.generate(7), rg.generate(7)
    assert [s.src for s in a.steps] == [s.src for s in b.steps]
    kinds = {s.kind for seed in range(40) for s in rg.generate(seed).steps}
    assert kinds == {"op", "op_", "view", "setitem", "augassign", "no_grad", "detach"}
