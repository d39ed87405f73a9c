"""Every in-place misuse explained at the line that caused it (docs/inplace.md).

Expected file:line values are computed from this file's source with ``inspect`` (a ``# <-``
marker comment names the line), never written by hand.
"""
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import mutograd as mg
from mutograd.autograd.node import VersionCounter

HERE = os.path.abspath(__file__)


def line_of(func, marker):
    """The absolute line number in this file of the line of ``func`` containing ``marker``."""
    lines, start = inspect.getsourcelines(func)
    hits = [start + i for i, text in enumerate(lines) if marker in text]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return hits[0]


def at(func, marker):
    return f"{HERE}:{line_of(func, marker)}"


# ---- stale saved tensors (design.md rule 2) -----------------------------------------------------


def stale_scenario():
    a = mg.randn([3, 4], requires_grad=True)
    h = a * 3
    h.name = "hidden"
    out = (h * h).sum()  # <- forward
    h.add_(1)  # <- write
    out.backward()  # <- backward


def test_stale_error_names_tensor_node_lines_and_versions():
    with pytest.raises(mg.VersionError) as e:
        stale_scenario()
    msg = str(e.value)
    assert msg.startswith("one of the variables needed for gradient computation has been "
                          "modified by an inplace operation: tensor 'hidden' of shape [3, 4] "
                          "and dtype float32, saved by MulBackward0 (created at "
                          f"{at(stale_scenario, '<- forward')})")
    assert "is at version 1; expected version 0 instead." in msg
    assert f"  add_ at {at(stale_scenario, '<- write')} (version 1)\n      h.add_(1)" in msg
    assert "Fix: clone() the tensor before the in-place write, or move the write after " \
           "backward() (or use the out-of-place add() instead of add_)." in msg
    err = e.value
    assert (err.node, err.saved_version, err.version) == ("MulBackward0", 0, 1)
    assert err.writes == [(1, "add_", at(stale_scenario, "<- write"), "h.add_(1)  # <- write")]
    assert isinstance(err, RuntimeError) and isinstance(err, ValueError)


def several_writes():
    x = mg.randn([4], requires_grad=True)
    y = x.exp()  # <- exp
    y.mul_(2)  # <- first
    y[1:].zero_()  # <- second
    y.data.add_(1)  # <- third
    y.sum().backward()


def test_every_write_since_the_save_is_listed_including_views_and_data():
    with pytest.raises(mg.VersionError) as e:
        several_writes()
    err = e.value
    # exp saves its output; the mul_ that rebased y saved y again at version 1
    assert err.node == "ExpBackward0" and err.created_at == at(several_writes, "<- exp")
    assert (err.saved_version, err.version) == (0, 3)
    assert [(v, op, where) for v, op, where, _ in err.writes] == [
        (1, "mul_", at(several_writes, "<- first")),
        (2, "zero_", at(several_writes, "<- second")),
        (3, "add_", at(several_writes, "<- third"))]
    assert "as its output" in str(err)


def test_stale_error_for_an_index_put_write_spells_the_assignment():
    def scenario():
        a = mg.randn([3], requires_grad=True)
        h = a * 1.0
        y = h.sin()
        h[0] = 5.0  # <- setitem
        y.sum().backward()
    with pytest.raises(mg.VersionError) as e:
        scenario()
    assert f"x[index] = value (index_put_) at {at(scenario, '<- setitem')}" in str(e.value)
    assert "as input 'x'" in str(e.value)
    assert "out-of-place" not in e.value.fix


def test_writes_beyond_the_kept_window_are_counted():
    a = mg.randn([2], requires_grad=True)
    h = a * 1.0
    y = h.sin()
    for _ in range(10):
        h.add_(1)
    with pytest.raises(mg.VersionError) as e:
        y.sum().backward()
    assert len(e.value.writes) == 8
    assert "... and 2 earlier write(s) that were not kept" in str(e.value)


def test_custom_function_stale_error_names_its_node_and_line():
    class Square(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    def scenario():
        a = mg.randn([2], requires_grad=True)
        h = a * 1.0
        y = Square.apply(h)  # <- apply
        h.add_(1)  # <- write
        y.sum().backward()
    with pytest.raises(mg.VersionError) as e:
        scenario()
    assert f"saved by SquareBackward (created at {at(scenario, '<- apply')}) as input 0" \
        in str(e.value)
    assert e.value.writes[0][2] == at(scenario, "<- write")


def step_before_backward():
    w = mg.randn([3], requires_grad=True)  # <- param
    w.name = "w"
    loss = (w * w).sum()
    with mg.no_grad():
        w.sub_(0.1)  # <- step
    loss.backward()


def test_a_parameter_update_before_backward_is_named():
    """The optimizer-step-before-backward mistake: allowed under no_grad, caught at backward."""
    with pytest.raises(mg.VersionError) as e:
        step_before_backward()
    assert "tensor 'w' of shape [3]" in str(e.value)
    assert e.value.writes == [(1, "sub_", at(step_before_backward, "<- step"),
                               "w.sub_(0.1)  # <- step")]


def test_sites_are_recorded_only_where_an_error_can_need_them():
    a = mg.randn([3], requires_grad=True)
    assert (a + 1).grad_fn.created_at is None          # add saves nothing
    assert (a * a).grad_fn.created_at is not None       # mul saves its inputs
    free = mg.randn([3])
    free.add_(1)
    assert free._counter.writes is None                 # nobody watches this counter
    assert "_site" not in free.__dict__                 # no site for tensors without grad


# ---- where a site points ------------------------------------------------------------------------


def test_package_code_reports_its_caller_and_itself(tmp_path):
    """Code inside the package that is not op machinery (an nn layer, say) is named as 'in'."""
    layer_file = os.path.join(os.path.dirname(mg.__file__), "_fake_layer_for_tests.py")
    src = "def layer(h):\n    h.mul_(2)\n    return h\n"
    ns = {}
    exec(compile(src, layer_file, "exec"), ns)  # noqa: S102 - code that looks like package code

    def scenario():
        a = mg.randn([3], requires_grad=True)
        h = a * 1.0
        y = h.sin()
        ns["layer"](h)  # <- call
        y.sum().backward()
    with pytest.raises(mg.VersionError) as e:
        scenario()
    assert e.value.writes[0][2] == (f"{at(scenario, '<- call')} "
                                    f"(in mutograd/_fake_layer_for_tests.py:2)")


def test_walkthrough_names_its_own_lines_not_frozen_runpy():
    out = subprocess.run([sys.executable, "-m", "mutograd"], capture_output=True, text=True,
                         env=_env(), check=True).stdout
    assert "<frozen" not in out
    assert "add_ at mutograd/cli/walkthrough.py:" in out
    assert "saved by MulBackward0 (created at mutograd/cli/walkthrough.py:" in out


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(mg.__file__)) + os.pathsep + \
        env.get("PYTHONPATH", "")
    env.pop("MUTOGRAD_STRICT", None)
    env.update(extra)
    return env


# ---- leaf errors (design.md rule 4) -------------------------------------------------------------


def leaf_direct():
    w = mg.ones([2, 3], requires_grad=True)  # <- created
    w.name = "weight"
    w.mul_(2)


def leaf_view():
    w = mg.zeros([4, 3])
    w.requires_grad_()  # <- created
    w[1:].t().add_(1)


def leaf_setitem():
    w = mg.zeros([4])
    w.requires_grad = True  # <- created
    w[0] = 1.0


@pytest.mark.parametrize("scenario, head, how, via", [
    (leaf_direct, "a leaf Variable that requires grad is being used in an in-place operation.",
     "mul_ writes directly into the leaf tensor 'weight' of shape [2, 3] and dtype float32",
     None),
    (leaf_view, ("a view of a leaf Variable that requires grad is being used in an in-place "
                 "operation."),
     ("add_ writes through a view (made by getitem -> t, shape [3, 3]) into the leaf tensor of "
      "shape [4, 3] and dtype float32"), "getitem -> t"),
    (leaf_setitem, "a leaf Variable that requires grad is being used in an in-place operation.",
     "x[index] = value (index_put_) writes directly into the leaf tensor of shape [4]", None),
])
def test_leaf_error_names_leaf_creation_site_and_view_ops(scenario, head, how, via):
    with pytest.raises(mg.InplaceError) as e:
        scenario()
    msg = str(e.value)
    assert msg.startswith(head + " " + how)
    assert f"created at {at(scenario, '<- created')}." in msg
    assert "Leaf Var that doesn't stop gradient can't use inplace strategy." in msg
    assert "no_grad()" in msg and "clone()" in msg
    assert e.value.via == via
    assert e.value.created_at == at(scenario, "<- created")


def test_leaf_error_leaves_the_data_unchanged():
    w = mg.ones([3], requires_grad=True)
    with pytest.raises(mg.InplaceError):
        w[1:].mul_(5)
    assert w.tolist() == [1.0, 1.0, 1.0] and w._version == 0


# ---- anomaly mode -------------------------------------------------------------------------------


def test_anomaly_switches_nest_and_restore():
    assert not mg.is_anomaly_enabled()
    with mg.detect_anomaly():
        assert mg.is_anomaly_enabled() and mg.autograd.is_anomaly_enabled()
        with mg.autograd.set_detect_anomaly(False):
            assert not mg.is_anomaly_enabled()
        assert mg.is_anomaly_enabled()
    assert not mg.is_anomaly_enabled()
    mg.set_detect_anomaly(True)
    try:
        assert mg.is_anomaly_enabled()
    finally:
        mg.set_detect_anomaly(False)
    assert mg.autograd.detect_anomaly is mg.detect_anomaly
    from mutograd.compat import torch
    assert torch.autograd.set_detect_anomaly is mg.set_detect_anomaly
    assert torch.autograd.detect_anomaly is mg.detect_anomaly

    @mg.detect_anomaly()
    def inside():
        return mg.is_anomaly_enabled()
    assert inside() and not mg.is_anomaly_enabled()


def anomaly_version():
    a = mg.randn([3], requires_grad=True)
    h = a * 2
    y = h.sin()  # <- forward
    h.add_(1)
    y.sum().backward()


def test_anomaly_version_error_shows_the_forward_stack():
    with mg.detect_anomaly(), pytest.raises(mg.VersionError) as e:
        anomaly_version()
    msg = str(e.value)
    assert "Traceback of forward call that created SinBackward0 (anomaly mode):" in msg
    assert (f'File "{HERE}", line {line_of(anomaly_version, "<- forward")}, in anomaly_version'
            f"\n    y = h.sin()  # <- forward") in msg
    # the test function that called the scenario is on the stack too, machinery is not
    assert "in test_anomaly_version_error_shows_the_forward_stack" in msg
    assert "registry.py" not in msg


class NanGrad(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


class Boom(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        raise ZeroDivisionError("boom in backward")


def nonfinite_scenarios():
    x = mg.tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt()  # <- sqrt
    z = NanGrad.apply(x)  # <- nan
    b = Boom.apply(x)  # <- boom
    return y, z, b


def test_anomaly_names_the_node_that_produced_nan_or_inf():
    with mg.detect_anomaly():
        y, z, b = nonfinite_scenarios()
        with np.errstate(divide="ignore"), pytest.raises(mg.BackwardError) as e:
            y.sum().backward()
        assert str(e.value).startswith("Function 'SqrtBackward0' returned inf values in its 0th "
                                       "output.")
        assert f"line {line_of(nonfinite_scenarios, '<- sqrt')}" in str(e.value)
        with pytest.raises(mg.BackwardError) as e:
            z.sum().backward()
        assert str(e.value).startswith("Function 'NanGradBackward' returned nan values in its "
                                       "0th output.")
        assert e.value.node == "NanGradBackward"
        with pytest.raises(ZeroDivisionError) as e:
            b.sum().backward()
        note = "\n".join(getattr(e.value, "__notes__", []))
        assert "Error detected in BoomBackward" in note
        assert f"line {line_of(nonfinite_scenarios, '<- boom')}" in note
    # without anomaly mode nothing checks: the inf gradient goes through
    y, z, _ = nonfinite_scenarios()
    with np.errstate(divide="ignore"):
        y.sum().backward()
    assert np.isinf(y.grad_fn.next[0].variable.grad.numpy()[0])


def test_anomaly_check_nan_can_be_turned_off():
    with mg.detect_anomaly(check_nan=False):
        _, z, _ = nonfinite_scenarios()
        z.sum().backward()
    assert np.isnan(z.grad_fn.next[0].variable.grad.numpy()).all()


def test_nodes_keep_a_stack_only_in_anomaly_mode():
    a = mg.randn([2], requires_grad=True)
    assert getattr((a + 1).grad_fn, "stack", None) is None
    with mg.detect_anomaly():
        node = (a + 1).grad_fn
    assert node.stack[-1][0] == HERE and node.stack[-1][2] == \
        "test_nodes_keep_a_stack_only_in_anomaly_mode"


# ---- strict mode (design.md rule 7) -------------------------------------------------------------


EXPORTS = {
    "numpy": lambda t: t.numpy(),
    "asarray": lambda t: np.asarray(t),
    "from_dlpack": lambda t: np.from_dlpack(t),
}


@pytest.mark.parametrize("export", EXPORTS.values(), ids=EXPORTS.keys())
def test_strict_mode_hands_numpy_read_only_views(export):
    t = mg.tensor([1.0, 2.0, 3.0])
    with mg.strict():
        a = export(t)
        assert np.shares_memory(a, t._data) and not a.flags.writeable
        with pytest.raises(ValueError, match="assignment destination is read-only") as e:
            a[0] = 7.0
        assert type(e.value) is ValueError      # NumPy's own error, not ours
    assert t.tolist() == [1.0, 2.0, 3.0] and t._version == 0
    b = export(t)                               # strict mode off again: writable, shared
    assert b.flags.writeable
    b[0] = 7.0
    assert t.tolist()[0] == 7.0


def test_strict_switches_and_copies():
    t = mg.ones([2])
    assert not mg.is_strict()
    mg.set_strict(True)
    try:
        assert mg.is_strict() and not t.numpy().flags.writeable
        assert np.asarray(t, dtype=np.float64).flags.writeable      # a cast is a copy
        assert t.__array__(copy=True).flags.writeable
        with mg.set_strict(False):
            assert t.numpy().flags.writeable
        assert mg.is_strict()
        with pytest.raises(BufferError, match="readonly"):
            t.__dlpack__()        # an old DLPack consumer cannot be told the data is read-only
    finally:
        mg.set_strict(False)

    @mg.strict()
    def inside():
        return t.numpy().flags.writeable
    assert inside() is False and t.numpy().flags.writeable


def test_strict_mode_from_the_environment():
    code = "import mutograd as mg; print(mg.is_strict(), mg.ones([1]).numpy().flags.writeable)"
    for value, expected in (("1", "True False"), ("0", "False True")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=_env(MUTOGRAD_STRICT=value), check=True).stdout
        assert out.strip() == expected


# ---- python -m mutograd check -------------------------------------------------------------------


SCRIPTS = {
    "version": (("import mutograd as mg\n"
                "a = mg.randn([3, 4], requires_grad=True)\n"
                "h = a * 3\n"
                "out = (h * h).sum()\n"
                "h.add_(1)\n"
                "out.backward()\n"),
                "VersionError", 6, ["  write: add_ at {path}:5 (version 1)", "      h.add_(1)",
                                    "  fix: clone() the tensor before the in-place write"]),
    "leaf": (("import mutograd as mg\n"
             "w = mg.ones([3], requires_grad=True)\n"
             "w[1:].mul_(2)\n"),
             "InplaceError", 3, ["  write: the failing line itself",
                                 "  fix: do the write under `with mutograd.no_grad():`"]),
    "overlap": (("import mutograd as mg\n"
                "x = mg.zeros([1, 3]).expand(4, 3)\n"
                "x.add_(1)\n"),
                "OverlapError", 3, ["  fix: clone() the tensor before the write."]),
    "nan": (("import mutograd as mg\n"
             "x = mg.tensor([0.0, 1.0], requires_grad=True)\n"
             "y = x.sqrt()\n"
             "y.sum().backward()\n"),
            "BackwardError", 4, [("  cause: Function 'SqrtBackward0' returned inf values in "
                                  "its 0th output."),
                                 '    File "{path}", line 3, in <module>']),
    "strict": (("import mutograd as mg\n"
               "t = mg.ones([3], requires_grad=True)\n"
               "a = t.numpy()\n"
               "a[0] = 5.0\n"),
               "ValueError", 4, ["  cause: assignment destination is read-only",
                                 "  fix: a NumPy array that aliases a tensor was written"]),
}


def _check(tmp_path, src, *args):
    path = tmp_path / "script.py"
    path.write_text(src)
    proc = subprocess.run([sys.executable, "-m", "mutograd", "check", str(path), *args],
                          capture_output=True, text=True, env=_env(), cwd=tmp_path, check=False)
    return proc, str(path)


@pytest.mark.parametrize("kind", SCRIPTS)
def test_check_reports_the_failing_line_the_write_and_the_fix(tmp_path, kind):
    src, cls, line, expected = SCRIPTS[kind]
    proc, path = _check(tmp_path, src)
    assert proc.returncode == 1, proc.stderr
    report = proc.stderr[proc.stderr.index("mutograd check: "):]   # after any warnings
    assert report.startswith(f"mutograd check: FAILED with {cls}\n"
                             f"  failing line: {path}:{line}\n"
                             f"      {src.splitlines()[line - 1]}\n")
    for text in expected:
        assert text.format(path=path) in report
    assert "Traceback (most recent call last)" not in report


def test_check_on_a_clean_script_counts_writes_and_passes_arguments(tmp_path):
    src = ("import sys\nimport mutograd as mg\n"
           "print('argv', sys.argv[1:])\n"
           "w = mg.randn([3], requires_grad=True)\n"
           "for _ in range(int(sys.argv[1])):\n"
           "    (w * w).sum().backward()\n"
           "    with mg.no_grad():\n"
           "        w.sub_(0.1 * w.grad)\n"
           "        w.grad.zero_()\n"
           "    w.grad = None\n")
    proc, path = _check(tmp_path, src, "3", "--flag")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "argv ['3', '--flag']\n"
    # 3 steps x (sub_ + zero_); the engine's own .grad accumulation is not a script write
    assert proc.stderr == (f"mutograd check: {path} ran clean under strict and anomaly mode; "
                           f"6 in-place writes seen (sub_: 3, zero_: 3)\n")


@pytest.mark.parametrize("src, code, text", [
    ("import sys\nsys.exit(3)\n", 3, "exited with status 3"),
    ("raise KeyError('k')\n", 1, "failed with KeyError"),
])
def test_check_passes_on_other_failures(tmp_path, src, code, text):
    proc, _ = _check(tmp_path, src)
    assert proc.returncode == code and text in proc.stderr


def test_check_usage_errors(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mutograd", "check", str(tmp_path / "nope.py")],
                          capture_output=True, text=True, env=_env(), check=False)
    assert proc.returncode == 2 and "no such script" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "mutograd", "check"], capture_output=True,
                          text=True, env=_env(), check=False)
    assert proc.returncode == 2 and "usage: python -m mutograd check" in proc.stderr


def test_count_writes_hook_is_active_only_inside():
    from mutograd.cli.check import count_writes
    plain = VersionCounter.bump
    x = mg.zeros([3])
    with count_writes() as c:
        x.add_(1)
        x[0] = 2.0
        x.zero_()
        mg.ones([2]).mul_(3)
    assert c.count == 4 and c.by_op == {"add_": 1, "index_put_": 1, "zero_": 1, "mul_": 1}
    assert VersionCounter.bump is plain
    x.add_(1)
    assert c.count == 4


# ---- graph inspection ---------------------------------------------------------------------------


def test_graph_text_tree_marks_in_place_nodes_and_stale_saves():
    a = mg.ones([2], requires_grad=True)
    a.name = "a"
    h = a * 2
    y = h.exp_()
    z = y * y
    z[0:1].mul_(3)
    assert repr(z.grad_fn) == "<CopySlices(MulBackward0)>"
    text = mg.autograd.graph(z)
    lines = str(text).splitlines()
    assert lines[0] == "tensor [2] float32, version 1"
    assert lines[1].startswith("#1 CopySlices(MulBackward0) [in-place]")
    assert lines[2].startswith("└── #2 MulBackward0 saves x v1, y v1 @ ")
    assert lines[3].startswith("    ├── #3 ExpBackward0 [in-place] saves out v1 @ ")
    assert lines[4].startswith("    │   └── #4 MulBackward0")
    assert lines[5].startswith("    │       └── #5 AccumulateGrad: leaf tensor 'a' [2] "
                               "float32 @")
    assert lines[6] == "    └── #3 ExpBackward0 (shown above)"
    y.add_(1)
    assert "saves out v1 STALE (now v2)" in str(mg.autograd.graph(z))


def test_graph_dot_export():
    a = mg.ones([2], requires_grad=True)
    h = a * 2
    h.add_(1)
    dot = mg.autograd.graph(h).dot()
    assert dot == mg.autograd.graph(h, format="dot")
    assert dot.startswith("digraph mutograd {\n") and dot.endswith("}\n")
    assert 'n1 [label="AddBackward0 [in-place]", style=filled, fillcolor="orange", penwidth=2];' \
        in dot
    assert "n2 -> n1;" in dot and "n3 -> n2;" in dot
    assert 'shape=ellipse, style=filled, fillcolor="lightblue"' in dot


def test_graph_of_a_tensor_without_history_and_bad_format():
    t = mg.ones([2])
    assert str(mg.autograd.graph(t)).endswith("(no graph: the tensor does not require grad)")
    with pytest.raises(ValueError, match="format must be 'text' or 'dot'"):
        mg.autograd.graph(t, format="png")


def test_graph_of_a_long_chain_does_not_recurse():
    h = mg.ones([1], requires_grad=True)
    for _ in range(3000):
        h = h + 1
    assert str(mg.autograd.graph(h)).count("AddBackward0") == 3000
