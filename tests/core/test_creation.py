"""Making tensors (issue 2 item 3): from data, filled, ranges, random, and the in-place fills."""
import numpy as np
import pytest
from tests.helpers import counting

import mutograd as mg


@pytest.mark.parametrize("data, dtype", [
    (1.5, "float32"), ([1.0, 2.0], "float32"), ([1, 2.5], "float32"), (3, "int64"),
    ([[1, 2], [3, 4]], "int64"), (True, "bool"), ([True, False], "bool"),
    (np.float64(1.5), "float64"), (np.ones(2, np.float64), "float64"),
    (np.ones(2, np.int32), "int32"), (np.ones(2, np.float16), "float16"),
])
@pytest.mark.parametrize("make", [mg.tensor, mg.to_tensor])
def test_tensor_infers_dtypes_like_the_frameworks(make, data, dtype):
    assert make(data).dtype == dtype


def test_tensor_copies_its_data():
    a = np.zeros(3, np.float32)
    for t in (mg.tensor(a), mg.to_tensor(a), mg.tensor(mg.from_numpy(a))):
        assert not np.shares_memory(t.numpy(), a)
        t.fill_(1.0)
        assert a.tolist() == [0.0, 0.0, 0.0]


def test_tensor_flags_and_dtype_argument():
    assert mg.tensor([1.0], requires_grad=True).requires_grad
    assert not mg.to_tensor([1.0]).requires_grad                 # Paddle: stop_gradient=True
    assert mg.to_tensor([1.0], stop_gradient=False).requires_grad
    assert mg.tensor([1, 2], dtype="float64").dtype == mg.float64
    assert mg.tensor([1.5], dtype=mg.int32).tolist() == [1]
    with pytest.raises(mg.BackwardError, match="only Tensors of floating point dtype"):
        mg.tensor([1, 2], requires_grad=True)


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(4.0)
    t = mg.from_numpy(a)
    assert np.shares_memory(t.numpy(), a) and t.dtype == mg.float64
    a[0] = 10.0
    assert t[0].item() == 10.0
    t.add_(1.0)
    assert a.tolist() == [11.0, 2.0, 3.0, 4.0] and t._version == 1
    with pytest.raises(TypeError, match="expects a numpy.ndarray"):
        mg.from_numpy([1.0, 2.0])


SHAPES = [((2, 3), {}), (([2, 3],), {}), (((2, 3),), {}), ((), {"shape": [2, 3]}),
          ((), {"size": (2, 3)})]


@pytest.mark.parametrize("args, kw", SHAPES, ids=["varargs", "list", "tuple", "shape=", "size="])
@pytest.mark.parametrize("make, value", [
    (mg.zeros, 0.0), (mg.ones, 1.0), (mg.empty, None), (mg.rand, None), (mg.randn, None),
    (mg.uniform, None)])
def test_shapes_as_list_or_varargs(make, value, args, kw):
    if make is mg.uniform and "size" in kw:
        pytest.skip("Paddle's uniform names it shape")
    t = make(*args, **kw)
    assert t.shape == [2, 3] and t.dtype == mg.float32
    if value is not None:
        assert (t.numpy() == value).all()


def test_filled_factories_and_bytes():
    with counting() as c:
        t = mg.zeros(1024)
    assert c["bytes"] == 4096 and c["allocations"] == 1
    assert mg.full([2, 3], 1.5).dtype == mg.float32 and mg.full([2], 7).dtype == mg.int64
    assert mg.full([2], True).dtype == mg.bool and mg.full(3, 2.0).tolist() == [2.0] * 3
    assert mg.zeros(2, 3, dtype="int32").dtype == mg.int32
    assert mg.ones(2, requires_grad=True).requires_grad
    assert mg.ones([2], stop_gradient=False).requires_grad
    del t


def test_ranges_and_eye():
    assert mg.arange(5).tolist() == [0, 1, 2, 3, 4] and mg.arange(5).dtype == mg.int64
    assert mg.arange(2, 8, 3).tolist() == [2, 5]
    assert mg.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert mg.arange(1.0, 4.0).dtype == mg.float32
    assert mg.arange(5, dtype="float64").dtype == mg.float64
    assert mg.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert mg.linspace(0, 1, 5).dtype == mg.float32
    assert mg.eye(3).numpy().tolist() == np.eye(3).tolist() and mg.eye(3).dtype == mg.float32
    assert mg.eye(2, 3).shape == [2, 3] and mg.eye(2, num_columns=3).shape == [2, 3]


@pytest.mark.parametrize("make, args", [
    (mg.zeros_like, ()), (mg.ones_like, ()), (mg.empty_like, ()), (mg.full_like, (3,)),
    (mg.rand_like, ()), (mg.randn_like, ())])
def test_like_factories_keep_shape_and_dtype(make, args):
    x = mg.ones(2, 3, dtype="float64")
    t = make(x, *args)
    assert t.shape == [2, 3] and t.dtype == mg.float64
    assert not np.shares_memory(t.numpy(), x.numpy())
    assert make(x, *args, dtype="float32").dtype == mg.float32


def test_like_factory_values():
    x = mg.ones(2, 2)
    assert mg.zeros_like(x).tolist() == [[0, 0], [0, 0]]
    assert mg.full_like(x, 3).tolist() == [[3, 3], [3, 3]]
    assert mg.ones_like(x, dtype="int32").dtype == mg.int32
    r = mg.randint_like(mg.ones(100, dtype="int64"), 5)
    assert r.dtype == mg.int64 and 0 <= r.numpy().min() and r.numpy().max() < 5


def test_randint_in_both_conventions():
    assert mg.randint(0, 10, [3]).dtype == mg.int64
    assert mg.randint(10, (2, 3)).shape == [2, 3]                # PyTorch: (high, size)
    assert mg.randint(5, shape=[4]).shape == [4]                 # Paddle
    r = mg.randint(3, 6, size=(1000,)).numpy()
    assert r.min() == 3 and r.max() == 5


def test_normal_and_uniform_parameters():
    assert mg.normal(0.0, 1.0, [2, 3]).dtype == mg.float32
    assert mg.normal(mg.zeros(3), 1.0).shape == [3]
    m = mg.normal(mg.tensor([0.0, 100.0]), mg.tensor([0.001, 0.001]))
    assert abs(m[0].item()) < 0.01 and abs(m[1].item() - 100) < 0.01
    u = mg.uniform([4000], min=2.0, max=3.0).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0 and abs(u.mean() - 2.5) < 0.02
    assert mg.uniform([2], "float64", 0.0, 1.0).dtype == mg.float64


RANDOM = {
    "rand": lambda: mg.rand(3, 4), "randn": lambda: mg.randn([3, 4]),
    "randint": lambda: mg.randint(0, 100, [3, 4]), "normal": lambda: mg.normal(0.0, 1.0, [5]),
    "uniform": lambda: mg.uniform([5]), "randperm": lambda: mg.randperm(10),
    "normal_": lambda: mg.zeros(5).normal_(), "uniform_": lambda: mg.zeros(5).uniform_(),
    "bernoulli_": lambda: mg.zeros(20).bernoulli_(0.5),
    "exponential_": lambda: mg.zeros(5).exponential_(),
}


@pytest.mark.parametrize("name", RANDOM)
def test_seed_makes_every_random_op_reproducible(name):
    mg.seed(123)
    a = RANDOM[name]().numpy().copy()
    b = RANDOM[name]().numpy().copy()
    mg.seed(123)
    c = RANDOM[name]().numpy().copy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    assert mg.seed(5) == 5 and mg.manual_seed(6) == 6


# ---- generator=: a stream of its own (mutograd.Generator, torch.Generator) ------------------
WITH_GENERATOR = {
    "rand": lambda g: mg.rand(3, 4, generator=g), "randn": lambda g: mg.randn([3, 4], generator=g),
    "randint": lambda g: mg.randint(0, 100, [3, 4], generator=g),
    "normal": lambda g: mg.normal(0.0, 1.0, [5], generator=g),
    "randperm": lambda g: mg.randperm(10, generator=g),
    "normal_": lambda g: mg.zeros(5).normal_(generator=g),
    "uniform_": lambda g: mg.zeros(5).uniform_(generator=g),
    "bernoulli_": lambda g: mg.zeros(20).bernoulli_(0.5, generator=g),
    "exponential_": lambda g: mg.zeros(5).exponential_(generator=g),
    "cauchy_": lambda g: mg.zeros(5).cauchy_(generator=g),
    "geometric_": lambda g: mg.zeros(5).geometric_(0.3, generator=g),
    "log_normal_": lambda g: mg.zeros(5).log_normal_(generator=g),
    "random_": lambda g: mg.zeros(5).random_(0, 1000, generator=g),
    "multinomial": lambda g: mg.multinomial(mg.ones(10), 5, generator=g),
    "init.normal_": lambda g: mg.nn.init.normal_(mg.zeros(5), generator=g),
    "init.kaiming_uniform_": lambda g: mg.nn.init.kaiming_uniform_(mg.zeros(4, 3), generator=g),
    "init.orthogonal_": lambda g: mg.nn.init.orthogonal_(mg.zeros(3, 3), generator=g),
    "init.trunc_normal_": lambda g: mg.nn.init.trunc_normal_(mg.zeros(5), generator=g),
}


@pytest.mark.parametrize("name", WITH_GENERATOR)
def test_a_generator_is_its_own_reproducible_stream(name):
    make = WITH_GENERATOR[name]
    mg.seed(7)
    expected_global = mg.rand(4).numpy()
    mg.seed(7)
    a = make(mg.Generator().manual_seed(42)).numpy().copy()
    assert np.array_equal(mg.rand(4).numpy(), expected_global)   # the global stream untouched
    b = make(mg.Generator().manual_seed(42)).numpy()
    c = make(mg.Generator().manual_seed(43)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    with pytest.raises(TypeError, match="generator must be a mutograd Generator"):
        make("seed")


def test_generator_state_seed_and_the_default_generator():
    g = mg.Generator()
    assert isinstance(g.initial_seed(), int) and repr(g).startswith("Generator(device=cpu")
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    state = g.get_state()
    a = mg.rand(3, generator=g).numpy()
    g.set_state(state)
    np.testing.assert_array_equal(mg.rand(3, generator=g).numpy(), a)
    assert g.seed() == g.initial_seed()
    d = mg.random.default_generator
    d.manual_seed(11)
    x = mg.rand(3, generator=d).numpy()
    mg.seed(11)
    np.testing.assert_array_equal(mg.rand(3).numpy(), x)      # it is the global stream
    assert d.initial_seed() == 11


def test_a_generator_for_another_device_is_refused(fake_gpu):
    x = mg.zeros(3, device="gpu")
    with pytest.raises(RuntimeError, match="Expected a 'gpu' device type for generator but "
                                           "found 'cpu'"):
        x.normal_(generator=mg.Generator())
    g = mg.Generator("gpu").manual_seed(1)
    a = mg.zeros(3, device="gpu").normal_(generator=g).cpu().numpy()
    b = mg.zeros(3, device="gpu").normal_(generator=mg.Generator("gpu").manual_seed(1))
    np.testing.assert_array_equal(a, b.cpu().numpy())


def test_data_loading_takes_a_generator():
    ds = mg.data.TensorDataset(mg.arange(20))

    def order(gen):
        loader = mg.data.DataLoader(ds, batch_size=5, shuffle=True, generator=gen)
        return [b[0].tolist() for b in loader]
    assert order(mg.Generator().manual_seed(3)) == order(mg.Generator().manual_seed(3))
    assert order(mg.Generator().manual_seed(3)) != order(mg.Generator().manual_seed(4))
    parts = mg.data.random_split(ds, [0.75, 0.25], generator=mg.Generator().manual_seed(0))
    again = mg.data.random_split(ds, [15, 5], generator=mg.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [15, 5]
    assert [p.indices for p in parts] == [p.indices for p in again]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(20))


@pytest.mark.parametrize("fill, mean, std", [
    (lambda x: x.normal_(), 0.0, 1.0), (lambda x: x.normal_(3.0, 0.5), 3.0, 0.5),
    (lambda x: mg.normal_(x, mean=-1.0, std=2.0), -1.0, 2.0),
    (lambda x: x.uniform_(), 0.5, (1 / 12) ** 0.5),
    (lambda x: x.uniform_(-2.0, 2.0), 0.0, (16 / 12) ** 0.5),
    (lambda x: mg.uniform_(x, min=0.0, max=4.0), 2.0, (16 / 12) ** 0.5),
    (lambda x: x.bernoulli_(0.3), 0.3, (0.3 * 0.7) ** 0.5),
    (lambda x: x.bernoulli_(mg.full([20000], 0.8, dtype="float64")), 0.8, (0.8 * 0.2) ** 0.5),
    (lambda x: x.exponential_(2.0), 0.5, 0.5),
])
def test_in_place_random_fills_have_the_right_distribution(fill, mean, std):
    mg.seed(0)
    x = mg.zeros(20000, dtype="float64")
    ptr = x.data_ptr()
    with counting() as c:
        assert fill(x) is x
    assert c["bytes"] == 0 and x.data_ptr() == ptr and x._version == 1
    a = x.numpy()
    assert abs(a.mean() - mean) < 4 * std / len(a) ** 0.5 + 1e-12
    assert abs(a.std() - std) < 0.03 * std


def test_bernoulli_gives_zeros_and_ones():
    x = mg.full([1000], 0.5).bernoulli_(0.5)
    assert set(np.unique(x.numpy())) == {0.0, 1.0}


@pytest.mark.parametrize("fill", [
    lambda x: x.normal_(), lambda x: x.uniform_(), lambda x: x.zero_(), lambda x: x.fill_(2.0),
    lambda x: x.bernoulli_(0.5), lambda x: mg.fill_(x, 1.0), lambda x: mg.zero_(x)])
def test_fills_obey_the_leaf_rule_and_bump_the_version(fill):
    w = mg.ones(3, requires_grad=True)
    with pytest.raises(mg.InplaceError, match="leaf Variable that requires grad"):
        fill(w)
    assert w.tolist() == [1.0, 1.0, 1.0] and w._version == 0
    with mg.no_grad():
        assert fill(w) is w
    assert w._version == 1 and w.is_leaf


def test_fill_on_a_non_leaf_gives_a_zero_gradient_to_what_it_replaced():
    a = mg.ones(3, requires_grad=True)
    h = a * 2
    h.fill_(5.0)
    assert h.tolist() == [5.0] * 3 and h._version == 1
    (h * a).sum().backward()
    assert a.grad.tolist() == [5.0] * 3       # only through the second factor


def test_fill_with_a_tensor_value_flows_gradient_to_the_value():
    v = mg.tensor(2.0, requires_grad=True)
    h = mg.zeros(3) * 1.0
    h.fill_(v)
    h.sum().backward()
    assert v.grad.item() == 3.0


def test_fill_and_zero_are_allowed_on_an_expanded_tensor_but_element_wise_writes_are_not():
    base = mg.zeros(1, 3)
    e = base.expand(2, 3)
    assert e.fill_(2.0) is e and e.tolist() == [[2.0] * 3] * 2
    assert base.tolist() == [[2.0] * 3] and base._version == 1
    e.zero_()
    assert base.tolist() == [[0.0] * 3] and base._version == 2
    with pytest.raises(mg.OverlapError, match="single memory location"):
        e.normal_()
    with pytest.raises(mg.OverlapError):
        e.add_(1.0)
    assert base._version == 2


DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_can_be_made_cast_and_printed(name):
    d = getattr(mg, name)
    x = mg.zeros(2, 3, dtype=name)
    assert x.dtype == d == name and x.dtype is mg.dtypes.get(np.dtype(name))
    assert x.element_size() == np.dtype(name).itemsize and x.nbytes == 6 * x.element_size()
    assert mg.ones(2).astype(d).dtype == d and x.astype("float32").dtype == mg.float32
    assert f"dtype={name}," in repr(x)
    assert x.is_floating_point() == (name.startswith("float"))
    if not name.startswith("float"):
        with pytest.raises(mg.BackwardError, match="floating point dtype"):
            x.requires_grad_()


@pytest.mark.parametrize("call, error, message", [
    (lambda: mg.from_numpy(np.ones(2, np.uint16)), TypeError, "does not support the dtype"),
    (lambda: mg.zeros(2, dtype="bfloat16"), TypeError, "bfloat16 is not supported"),
    (lambda: mg.ones(2, place="gpu:x"), mg.PlaceError, "bad device index in place 'gpu:x'"),
    (lambda: mg.ones(2).to("tpu:0"), mg.PlaceError, "unknown place 'tpu:0'"),
    (lambda: mg.zeros(2, bogus=1), TypeError, "unexpected keyword argument 'bogus'"),
])
def test_creation_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_cpu_place():
    x = mg.tensor([1.0], place="cpu")
    assert x.place == "cpu" and x.place == mg.CPU and repr(x.place) == "Place(cpu)"
    assert x.to("cpu") is x and x.cpu() is x and not x.is_cuda


def test_linspace_is_symmetric_as_pytorchs():
    # the second half counts down from the end, so a range symmetric about 0 sums to 0 and its
    # halves mirror each other exactly (NumPy's start + i * step does not)
    for n in (6, 7, 12, 48):
        for dt in ("float32", "float64"):
            v = mg.linspace(-1.0, 1.0, n, dtype=dt).numpy()
            assert v[0] == -1.0 and v[-1] == 1.0 and (v == -v[::-1]).all(), (n, dt)
    assert mg.linspace(-1.0, 1.0, 6, dtype="float64").sum().item() == 0.0
    # integer dtypes: integer ends, a double step, values cut toward zero (PyTorch's answers)
    assert mg.linspace(0.5, 2.5, 6, dtype="int64").tolist() == [0, 0, 0, 1, 1, 2]
    assert mg.linspace(5, -5, 4, dtype="int64").tolist() == [5, 1, -1, -5]
    assert mg.linspace(0, 1, 1).tolist() == [0.0] and mg.linspace(0, 1, 0).shape == [0]
