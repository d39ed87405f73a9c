"""How tensors print: Paddle's layout by default (shape, dtype, place, stop_gradient, values)."""
import pytest

import mutograd as mg


@pytest.fixture(autouse=True)
def _default_print_options():
    yield
    mg.set_printoptions(style="paddle", precision=8, threshold=1000, edgeitems=3, linewidth=80)


@pytest.mark.parametrize("make, text", [
    (lambda: mg.tensor([[1.0, 2.0], [3.0, 4.0]]),
     ("Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
     "       [[1., 2.],\n"
     "        [3., 4.]])")),
    (lambda: mg.tensor(3),
     "Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,\n       3)"),
    (lambda: mg.ones(2, requires_grad=True),
     ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
      "       [1., 1.])")),
    (lambda: mg.ones(2, requires_grad=True) * 2,
     ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
      "       [2., 2.])")),
    (lambda: mg.tensor([True, False]),
     ("Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,\n"
      "       [True , False])")),
    (lambda: mg.tensor([1.5, -0.25], dtype="float64"),
     ("Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=True,\n"
      "       [ 1.50000000, -0.25000000])")),
    (lambda: mg.zeros(0, 3),
     ("Tensor(shape=[0, 3], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
      "       [])")),
    (lambda: mg.arange(10)[::4],
     ("Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,\n"
      "       [0, 4, 8])")),
], ids=["2d", "scalar", "requires-grad", "non-leaf", "bool", "float64", "empty", "view"])
def test_repr_is_paddles_layout(make, text):
    t = make()
    assert repr(t) == text and str(t) == text


SEED_OUTPUT = """\
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
       [[ 0.43437147 ,  5.64579105 , -8.84730530 , -9.47196293 ],
        [-10.49065876, -9.39516735 , -3.53880310 ,  8.75717258 ],
        [ 0.09885245 ,  4.00165510 , -7.74011278 ,  5.45110989 ]])"""


def test_repr_matches_paddles_output_in_the_seed_documents():
    t = mg.tensor([[0.43437147, 5.64579105, -8.84730530, -9.47196293],
                   [-10.49065876, -9.39516735, -3.53880310, 8.75717258],
                   [0.09885245, 4.00165510, -7.74011278, 5.45110989]])
    assert repr(t) == SEED_OUTPUT
    assert repr(mg.full([3, 4], 4.0)).endswith("[[4., 4., 4., 4.],\n        [4., 4., 4., 4.],\n"
                                                "        [4., 4., 4., 4.]])")


def test_3d_tensors_separate_blocks_with_a_blank_line_and_long_rows_wrap():
    assert repr(mg.arange(8.0).reshape(2, 2, 2)).endswith(
        "[[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])")
    text = repr(mg.arange(30.0) / 4)
    assert text.splitlines()[1].startswith("       [0.        , 0.25000000, 0.50000000,")
    assert all(len(line) <= 80 for line in text.splitlines()[1:])


def test_long_tensors_are_summarised_and_precision_is_settable():
    t = mg.arange(2000)
    assert repr(t).endswith("[0   , 1   , 2   , ..., 1997, 1998, 1999])")
    mg.set_printoptions(precision=2)
    assert repr(mg.tensor([1.23456, 2.0])).endswith("[1.23, 2.  ])")
    mg.set_printoptions(threshold=5, edgeitems=1)
    assert repr(mg.arange(6)).endswith("[0, ..., 5])")


def test_torch_style_is_available():
    mg.set_printoptions(style="torch")
    assert repr(mg.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(mg.tensor([1.0], dtype="float64")) == "tensor([1.], dtype=torch.float64)"
    assert repr(mg.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    assert repr(mg.ones(2, requires_grad=True) * 2) == "tensor([2., 2.], grad_fn=<MulBackward0>)"


def test_format_of_a_scalar_tensor():
    assert f"{mg.tensor(2.5):.2f}" == "2.50"
