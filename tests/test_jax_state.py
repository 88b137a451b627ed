"""backend="jax" reads Python state at every call, never once at the trace.

jax.jit runs the printed program once per static values, as it traces; what the
program reads from Python objects (attributes of ``self`` or of an argument that is not
differentiated, a global object's attributes, a global dict's entries, closure cells)
must be read again at each call (revsrc/backends/jax/state.py), or a change must
make a new trace. Each test changes such state between two calls and compares both
gradients with jax.grad (64-bit, not jitted: it reads the state when called).
"""
import functools
import re
import types

import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -1.2, 0.7])


def _both(df, jf, *args):
    """revsrc's gradient (backend="jax") and jax.grad's, on the same arguments."""
    got = np.asarray(df(*args))
    want = np.asarray(jax.grad(jf)(*args))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    return got


def _check_change(f, jf, change, *args):
    """The gradient before and after ``change()`` agrees with jax.grad's, and differs."""
    df = revsrc.grad(f, backend="jax")
    before = _both(df, jf, *args)
    change()
    after = _both(df, jf, *args)
    assert not np.allclose(before, after)
    return df


# ----- attributes of self -----

class Model:
    def __init__(self):
        self.scale = 2.0
        self.w = np.array([1.0, 2.0, 3.0])
        self.n = 2
        self.cfg = types.SimpleNamespace(k=1.5)

    def loss(self, x):
        return np.sum(self.scale * x * x)

    def jloss(self, x):
        return jnp.sum(self.scale * x * x)

    def lw(self, x):
        return np.sum(self.w * np.sin(x))

    def jlw(self, x):
        return jnp.sum(self.w * jnp.sin(x))

    def repeat(self, x):
        s = 0.0
        for _ in range(self.n):
            s = s + np.sum(x ** 3)
        return s

    def jrepeat(self, x):
        return self.n * jnp.sum(x ** 3)

    def nested(self, x):
        return np.sum(self.cfg.k * x * x)

    def jnested(self, x):
        return jnp.sum(self.cfg.k * x * x)


def test_self_float_attribute_changed():
    m = Model()
    _check_change(m.loss, m.jloss, lambda: setattr(m, "scale", 5.0), X)


def test_self_array_attribute_replaced_and_changed_in_place():
    m = Model()
    df = _check_change(m.lw, m.jlw, lambda: setattr(m, "w", np.array([-1.0, 0.5, 4.0])), X)
    m.w[0] = 9.0
    _both(df, m.jlw, X)


def test_self_int_attribute_changed_traces_again():
    m = Model()
    _check_change(m.repeat, m.jrepeat, lambda: setattr(m, "n", 3), X)


def test_attribute_of_an_attribute():
    m = Model()
    df = _check_change(m.nested, m.jnested, lambda: setattr(m.cfg, "k", 4.0), X)
    m.cfg = types.SimpleNamespace(k=-1.0)
    _both(df, m.jnested, X)


def test_partial_of_a_method():
    m = Model()
    _check_change(functools.partial(Model.loss, m), m.jloss,
                  lambda: setattr(m, "scale", 7.0), X)


def test_class_attribute_changed():
    class C:
        k = 2.0

        def f(self, x):
            return np.sum(self.k * x * x)
    c = C()

    def jf(x):
        return jnp.sum(C.k * x * x)
    _check_change(c.f, jf, lambda: setattr(C, "k", 3.0), X)


# ----- globals -----

G = types.SimpleNamespace(k=2.0)
CFG = {"k": 2.0, "name": "cfg", "w": np.array([1.0, 2.0, 3.0])}
GA = np.array([1.0, 2.0, 3.0])


def _uses_g(x):
    return np.sum(G.k * x * x)


def _j_uses_g(x):
    return jnp.sum(G.k * x * x)


def _uses_cfg(x):
    return np.sum(CFG["k"] * CFG["w"] * x * x)


def _j_uses_cfg(x):
    return jnp.sum(CFG["k"] * CFG["w"] * x * x)


def _uses_ga(x):
    return np.sum(GA * x * x)


def _j_uses_ga(x):
    return jnp.sum(GA * x * x)


@pytest.fixture
def restore_globals():
    saved = (G.k, dict(CFG), CFG["w"].copy(), GA.copy())
    yield
    G.k = saved[0]
    CFG.clear()
    CFG.update(saved[1])
    CFG["w"][:] = saved[2]
    GA[:] = saved[3]


def test_global_object_attribute(restore_globals):
    _check_change(_uses_g, _j_uses_g, lambda: setattr(G, "k", 5.0), X)


def test_global_config_dict_entries(restore_globals):
    df = _check_change(_uses_cfg, _j_uses_cfg, lambda: CFG.__setitem__("k", 5.0), X)
    CFG["w"][1] = -4.0             # an array in the dict, changed in place
    _both(df, _j_uses_cfg, X)
    CFG["w"] = np.array([0.5, 0.5, 0.5])
    _both(df, _j_uses_cfg, X)


def test_global_array_changed_in_place(restore_globals):
    _check_change(_uses_ga, _j_uses_ga, lambda: GA.__setitem__(0, 5.0), X)


# ----- closures -----

def test_closure_cells():
    k = 2.0
    o = types.SimpleNamespace(k=1.0)
    a = np.array([1.0, 2.0, 3.0])

    def f(x):
        return np.sum(k * o.k * a * x * x)

    def jf(x):
        return jnp.sum(k * o.k * a * x * x)

    def rebind():
        nonlocal k
        k = 6.0
    df = _check_change(f, jf, rebind, X)
    o.k = -2.0
    _both(df, jf, X)
    a[2] = 10.0
    _both(df, jf, X)


# ----- arguments that are not differentiated -----

def _attr_of_arg(x, c):
    return np.sum(c.w * x * x)


def _j_attr_of_arg(x, c):
    return jnp.sum(c.w * x * x)


def _item_of_arg(x, d):
    return np.sum(d["w"] * x * x)


def _j_item_of_arg(x, d):
    return jnp.sum(d["w"] * x * x)


def test_attribute_of_an_argument():
    c = types.SimpleNamespace(w=np.array([1.0, 2.0, 3.0]))
    df = revsrc.grad(_attr_of_arg, backend="jax")
    _both(df, _j_attr_of_arg, X, c)
    c.w = np.array([5.0, 5.0, 5.0])
    _both(df, _j_attr_of_arg, X, c)
    c.w[0] = -3.0
    _both(df, _j_attr_of_arg, X, c)
    other = types.SimpleNamespace(w=np.array([0.1, 0.2, 0.3]))
    _both(df, _j_attr_of_arg, X, other)


def test_item_of_a_mixed_dict_argument():
    d = {"w": np.array([1.0, 2.0, 3.0]), "tag": "x"}
    df = revsrc.grad(_item_of_arg, backend="jax")
    _both(df, _j_item_of_arg, X, d)
    d["w"][0] = -3.0
    _both(df, _j_item_of_arg, X, d)


def test_a_read_that_fails_is_raised_only_where_the_program_reads_it():
    class M:
        def __init__(self):
            self.use, self.extra = True, 3.0

        def f(self, x, use):
            if use:
                return np.sum(self.extra * x)
            return np.sum(x * x)
    m = M()
    df = revsrc.grad(m.f, backend="jax")
    np.testing.assert_allclose(df(X, True), np.full(3, 3.0))
    np.testing.assert_allclose(df(X, False), 2 * X)
    del m.extra
    np.testing.assert_allclose(df(X, False), 2 * X)
    with pytest.raises(AttributeError, match="extra"):
        df(X, True)


def test_the_reads_are_parameters_of_the_printed_program():
    m = Model()
    text = revsrc.source(revsrc.grad(m.loss, backend="jax"), X)
    assert "def loss_adjoint(x, _g_scale)" in text



# ----- printing -----

def test_a_write_into_a_view_of_a_view():
    # the index of an item assignment into a value of a kind known only at run time
    # is an argument of a call there, printed as one (it was `::2`, a SyntaxError)
    def f(x):
        y = x * 1.0
        y[1:][::2][0] = 7.0 * x[0]
        return np.sum(y * x)
    x = np.array([0.2, 0.9, -0.5, 1.1, -0.8, 0.4])
    got = revsrc.value_and_grad(f, backend="jax")(x)
    want = revsrc.value_and_grad(f)(x)
    np.testing.assert_allclose(float(got[0]), float(want[0]), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(got[1]), want[1], rtol=1e-12)
    # written as .at[::2].set where the kind is known, else as a call of at_set
    assert re.search(r"_t\d+\.at\[::2\]\.set\(|at_set\(_t\d+, slice\(None, None, 2\)",
                     revsrc.source(revsrc.grad(f, backend="jax"), x))


# ----- errstate -----

def test_errstate_that_silences_is_nothing_under_jax():
    def f(x):
        with np.errstate(divide="ignore"):
            with np.errstate(invalid="ignore", over="warn"):
                r = np.sum(np.log(x * x) * x)
        return r

    def jf(x):
        return jnp.sum(jnp.log(x * x) * x)
    _both(revsrc.grad(f, backend="jax"), jf, X)


def test_errstate_that_raises_is_refused_at_its_line():
    def f(x):
        with np.errstate(divide="raise"):
            return np.sum(np.log(x * x))
    with pytest.raises(revsrc.RevsrcError, match=r"E603.*errstate\(divide='raise'\)") as e:
        revsrc.grad(f, backend="jax")(X)
    assert "np.errstate(divide=\"raise\")" in str(e.value)


def test_errstate_inside_a_branch_on_a_traced_value():
    def f(x):
        if x > 0.5:
            with np.errstate(divide="ignore"):
                y = np.log(x) * x
        else:
            y = x * x
        return y
    for x in (0.3, 0.9):
        np.testing.assert_allclose(revsrc.grad(f, backend="jax")(x), revsrc.grad(f)(x),
                                   rtol=1e-13)


# ----- lowerings that used to be refused -----

A4 = np.array([0.5, -0.4, 1.3, 0.9])
M3 = np.array([[0.5, 0.1, -0.2], [0.3, -0.7, 0.9], [1.2, 0.4, 0.6]])


def _same_as_numpy(f, *args, argnums=0):
    got = revsrc.value_and_grad(f, argnums=argnums, backend="jax")(*args)
    want = revsrc.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(float(got[0]), float(want[0]), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(got[1]), np.asarray(want[1]), rtol=1e-12,
                               atol=1e-14)
    return got


def test_np_add_at_with_repeated_indices():
    def f(x):
        out = np.zeros(3)
        np.add.at(out, [0, 0, 2, 1], x)
        return np.sum(out ** 2)

    def jf(x):
        return jnp.sum(jnp.zeros(3).at[jnp.array([0, 0, 2, 1])].add(x) ** 2)
    _same_as_numpy(f, A4)
    _both(revsrc.grad(f, backend="jax"), jf, A4)


def test_np_add_at_of_a_scalar_into_rows_forward_and_reverse():
    def f(x):
        out = np.outer(x, x)
        np.add.at(out, (np.array([0, 2, 0]), np.array([1, 1, 1])), x[1] * 2.0)
        return np.sum(np.sin(out))
    _same_as_numpy(f, A4)
    got = revsrc.jacfwd(f, backend="jax")(A4)
    np.testing.assert_allclose(np.asarray(got), revsrc.grad(f)(A4), rtol=1e-12)


def test_np_add_at_into_an_int_array_is_refused():
    def f(x):
        out = np.zeros(3, dtype=int)
        np.add.at(out, [0, 1], x[:2])
        return np.sum(out * x[:3])
    with pytest.raises(revsrc.RevsrcError, match=r"E603.*add\.at"):
        revsrc.grad(f, backend="jax")(A4)


def test_np_fill_diagonal_with_a_scalar():
    def f(x):
        y = x * 1.0
        np.fill_diagonal(y, x[0, 1] * x[2, 2])
        return np.sum(y ** 3)
    _same_as_numpy(f, M3)
    tall = np.arange(12.0).reshape(4, 3) / 7.0

    def g(x):
        y = np.sin(x)
        np.fill_diagonal(y, x[0, 0], wrap=True)
        return np.sum(y * x)
    _same_as_numpy(g, tall)


def test_np_fill_diagonal_with_computed_values_is_refused():
    def f(x):
        y = x * 1.0
        np.fill_diagonal(y, x[0] * 2.0)
        return np.sum(y ** 2)
    with pytest.raises(revsrc.RevsrcError, match=r"E603.*fill_diagonal"):
        revsrc.grad(f, backend="jax")(M3)


def test_a_write_through_squeeze():
    def f(x):
        y = x[None, :, :] * 1.0
        s = np.squeeze(y)
        s[1, 0] = x[0, 0] * x[1, 1]
        return np.sum(y * y)
    _same_as_numpy(f, M3)


def test_a_write_through_a_reshape_that_may_copy_is_refused():
    def f(x):
        y = x.copy()
        r = y.reshape(-1)
        r[0] += x[1, 1] * 3.0
        return np.sum(y * y)
    with pytest.raises(revsrc.RevsrcError, match=r"E603.*memory layout") as e:
        revsrc.grad(f, backend="jax")(M3)
    assert "r[0] += x[1, 1] * 3.0" in str(e.value)


def test_the_product_of_an_empty_slice():
    def f(x):
        return np.prod(x[3:]) * np.sum(x)
    _same_as_numpy(f, X)


# ----- reads made while tracing: recorded, checked before each call -----

class Layer:
    def __init__(self, w, b):
        self.w, self.b = w, b


class Net:
    def __init__(self):
        self.layers = [Layer(np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6]]), 0.1),
                       Layer(np.array([[1.0, -1.5]]), -0.2)]

    def loss(self, x):
        h = x
        for layer in self.layers:
            h = np.tanh(layer.w @ h + layer.b)
        return np.sum(h)

    def jloss(self, x):
        h = x
        for layer in self.layers:
            h = jnp.tanh(layer.w @ h + layer.b)
        return jnp.sum(h)


def test_attributes_of_the_objects_of_a_list_the_program_walks():
    net = Net()
    df = revsrc.grad(net.loss, backend="jax")
    first = _both(df, net.jloss, X)
    net.layers[0].b = 0.7                       # a number
    second = _both(df, net.jloss, X)
    net.layers[1].w[0, 0] = -2.0                # an array, in place
    third = _both(df, net.jloss, X)
    net.layers[1] = Layer(np.array([[0.25, 0.5]]), 0.0)     # an item of the list
    fourth = _both(df, net.jloss, X)
    net.layers.append(Layer(np.array([[2.0]]), 0.3))         # the list's length
    _both(df, net.jloss, X)
    assert len({tuple(np.round(g, 12)) for g in (first, second, third, fourth)}) == 4


def _walk_arg(x, layers):
    s = 0.0
    for layer in layers:
        s = s + np.sum(layer.b * x * x)
    return s


def _j_walk_arg(x, layers):
    return sum(jnp.sum(layer.b * x * x) for layer in layers)


def test_attributes_of_the_objects_of_a_list_argument():
    layers = [Layer(None, 1.0), Layer(None, 2.0)]
    df = revsrc.grad(_walk_arg, backend="jax")
    _both(df, _j_walk_arg, X, layers)
    layers[0].b = 5.0
    _both(df, _j_walk_arg, X, layers)


class Table:
    """A mapping of the user's own: hashed by identity, read by item."""
    def __init__(self):
        self.data = {0: 1.0, 1: 2.0}

    def __getitem__(self, k):
        return self.data[k]


def _table_sum(x, t, n):
    s = 0.0
    for i in range(n):
        s = s + t[i] * np.sum(x * x)
    return s


def test_items_of_an_object_of_the_users_class():
    t = Table()
    df = revsrc.grad(_table_sum, backend="jax")

    def jf(x):
        return (t.data[0] + t.data[1]) * jnp.sum(x * x)
    _both(lambda x: df(x, t, 2), jf, X)
    t.data[1] = 7.0
    _both(lambda x: df(x, t, 2), jf, X)


# ----- item assignment with an index that repeats a place -----

def test_a_list_index_that_repeats_a_place():
    def f(x):
        y = x * 1.0
        y[[0, 0]] += x[2:]
        return np.sum(y * y)

    def g(x):
        y = x * 1.0
        y[[0, 0]] = x[2:] * 3.0
        return np.sum(y * y * x)
    _same_as_numpy(f, A4)
    _same_as_numpy(g, A4)


def test_an_array_index_that_repeats_a_place_keeps_the_last_write():
    # a constant array (traced under jax.jit) and an argument: XLA keeps an undefined
    # one of the values written to a place, NumPy the last
    def f(x):
        y = x * 1.0
        y[np.array([2, -2, 1])] += x[:3] * x[0]
        return np.sum(y ** 3)

    def g(x, idx):
        y = x * 1.0
        y[idx] = x[:3] ** 2
        return np.sum(y * y * x)

    def h(x):
        y = x * 1.0
        y[[0, 2, 0], [1, 1, 1]] = x[0] * np.array([1.0, 2.0, 3.0])
        return np.sum(np.sin(y))
    _same_as_numpy(f, A4)
    _same_as_numpy(g, A4, np.array([1, 3, 1]))
    _same_as_numpy(h, M3)
