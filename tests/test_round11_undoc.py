"""Round 11's undocumented refusals made to compute (issue 22): operator.itemgetter and
attrgetter, ``{**a, **b}``, math.hypot of any number of coordinates, dict keys made
of constants in a loop, a kept generator read twice, and the Hessian in a dict and an
array together; values and gradients against central differences and JAX (x64),
forward mode, Hessians and backend="jax" where they reach."""
import collections
import math
import operator

import numpy as np
import pytest

import revsrc

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def fd(f, args, i, h=1e-6):
    """Central differences of scalar f in argument i (a float, a float array or a dict
    of them), shaped as that argument."""
    x = args[i]

    def at(v):
        a = list(args)
        a[i] = v
        return f(*a)
    if isinstance(x, dict):
        return {k: fd(lambda v: at({**x, k: v}), (x[k],), 0, h) for k in x}
    if np.ndim(x) == 0:
        return (at(x + h) - at(x - h)) / (2 * h)
    g = np.zeros(np.shape(x))
    for idx in np.ndindex(np.shape(x)):
        e = np.zeros(np.shape(x))
        e[idx] = h
        g[idx] = (at(x + e) - at(x - e)) / (2 * h)
    return g


def close(got, want, tol=1e-6):
    if isinstance(want, dict):
        assert set(got) == set(want)
        for k in want:
            close(got[k], want[k], tol)
        return
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            close(a, b, tol)
        return
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=tol,
                               atol=tol)


# ----- operator.itemgetter / attrgetter -----

def ig_named(p):
    get_w = operator.itemgetter("w")
    return get_w(p) ** 2 + p["b"]


def ig_inline(p):
    return operator.itemgetter("w")(p) * math.sin(p["b"])


def ig_many(p):
    w, b = operator.itemgetter("w", "b")(p)
    return w * w * b


def ig_index(x):
    first = operator.itemgetter(0)
    a, c = operator.itemgetter(0, 2)(x)
    return first(x) * a * c + np.sum(operator.itemgetter(slice(1, None))(x) ** 2)


Pt = collections.namedtuple("Pt", "x y")


def ag_attr(x):
    p = Pt(x * 2.0, x * x)
    return operator.attrgetter("y")(p) * operator.attrgetter("x")(p)


def ig_in_loop(p):
    total = 0.0
    for k in ("w", "b"):
        total = total + operator.itemgetter(k)(p) ** 3
    return total


P = {"w": 1.5, "b": 0.2}


@pytest.mark.parametrize("f", [ig_named, ig_inline, ig_many, ig_in_loop])
def test_itemgetter_on_dicts(f):
    g = revsrc.grad(f)(P)
    close(g, fd(f, (P,), 0))
    v, _ = revsrc.value_and_grad(f)(P)
    assert v == f(P)


def test_itemgetter_on_arrays_and_attrgetter():
    x = np.array([0.4, -1.1, 0.7])
    close(revsrc.grad(ig_index)(x), fd(ig_index, (x,), 0))
    close(revsrc.grad(ag_attr)(0.8), fd(ag_attr, (0.8,), 0))
    close(revsrc.jacfwd(ig_index)(x), fd(ig_index, (x,), 0))
    close(revsrc.hessian(ig_index)(x), jax.hessian(
        lambda v: v[0] * v[0] * v[2] + jnp.sum(v[1:] ** 2))(x))
    close(revsrc.grad(ig_index, backend="jax")(x), fd(ig_index, (x,), 0))


def test_itemgetter_wrong_arity_refused():
    def two(p):
        return operator.itemgetter("w")(p, p)
    with pytest.raises(revsrc.errors.StaticValueError) as e:
        revsrc.grad(two)(P)
    assert e.value.code == "E105" and "one argument" in str(e.value)
    assert e.value.lineno is not None


# ----- {**a, **b} -----

def mg_static(p):
    r = {**{"a": 1.0}, **p}
    return r["a"] * math.exp(r["b"])


def mg_override(p):
    r = {**p, "b": p["b"] * 3.0, "c": 2.0}
    return r["a"] * r["b"] * r["c"]


def mg_two(p, q):
    r = {**p, **q}
    return r["a"] * r["b"] + np.sum(r["v"] ** 2)


def mg_literal_then_arg(p):
    base = {"a": 2.0, "b": p["a"] * p["b"]}
    r = {**base, **{"c": p["a"]}, "d": 1.0}
    return r["a"] * r["b"] + r["c"] * r["d"]


def test_dict_merge_gradients():
    p = {"a": 1.5, "b": 0.1}
    for f in (mg_static, mg_override, mg_literal_then_arg):
        args = (p,) if f is not mg_static else ({"b": 0.1},)
        close(revsrc.grad(f)(*args), fd(f, args, 0))
    q = {"b": 2.0, "v": np.array([1.0, 2.0])}
    g0, g1 = revsrc.grad(mg_two, argnums=(0, 1))(p, q)
    close(g0, {"a": 2.0, "b": 0.0})     # q's "b" replaced p's: its adjoint is zero
    close(g1, fd(mg_two, (p, q), 1))


def test_dict_merge_forward_and_hessian():
    p = {"a": 1.5, "b": 0.1}
    out, tan = revsrc.jvp(mg_override, (p,), ({"a": 1.0, "b": 0.5},))
    want = fd(mg_override, (p,), 0)
    assert out == mg_override(p)
    close(tan, want["a"] * 1.0 + want["b"] * 0.5)
    h = revsrc.hessian(mg_override)(p)
    # r = a * 3b * 2: d2/da db = 6
    close(h, {"a": {"a": 0.0, "b": 6.0}, "b": {"a": 6.0, "b": 0.0}})


# ----- math.hypot of any number of coordinates -----

def hy3(a, b, c):
    return math.hypot(a, b, c)


def hy_mixed(x):
    return math.hypot(x[0], x[1], 2.0 * x[2], x[0] * x[1]) * x[2]


def hy_one_zero(a):
    return math.hypot(a) + math.hypot() + math.hypot(a, 3.0, a * a)


def hy_star(a, b, c):
    xs = (a, b * 2.0, c)
    return math.hypot(*xs) ** 2


def test_hypot_values_are_pythons():
    args = (1.0, 2.0, 2.0)
    v, g = revsrc.value_and_grad(hy3, argnums=(0, 1, 2))(*args)
    assert v == math.hypot(*args)
    close(g, tuple(a / 3.0 for a in args), 1e-15)    # g * a_i / ans
    for xs in [(1e-300, 3e-300, 2e-300), (1e300, 1e300, 1e300), (0.1, 0.2, 0.3, 0.4)]:
        f = (lambda *v: math.hypot(*v))   # noqa: E731 - value only, run as Python
        assert f(*xs) == math.hypot(*xs)
        val, _ = revsrc.value_and_grad(hy3 if len(xs) == 3 else hy_four)(*xs)
        assert val == math.hypot(*xs)


def hy_four(a, b, c, d):
    return math.hypot(a, b, c, d)


def test_hypot_gradients_forward_and_jax():
    x = np.array([0.3, -1.2, 0.7])
    want = jax.grad(lambda v: jnp.sqrt(v[0] ** 2 + v[1] ** 2 + 4 * v[2] ** 2 +
                                       (v[0] * v[1]) ** 2) * v[2])(x)
    close(revsrc.grad(hy_mixed)(x), want, 1e-12)
    close(revsrc.jacfwd(hy_mixed)(x), want, 1e-12)
    close(revsrc.grad(hy_mixed, backend="jax")(x), want, 1e-12)
    close(revsrc.grad(hy_one_zero)(-1.5), fd(hy_one_zero, (-1.5,), 0))
    close(revsrc.grad(hy_star, argnums=(0, 1, 2))(1.0, 2.0, 2.0), (2.0, 16.0, 4.0), 1e-12)
    close(revsrc.grad(hy_four, argnums=(0, 1, 2, 3))(0.1, 0.2, 0.3, 0.4),
          tuple(fd(hy_four, (0.1, 0.2, 0.3, 0.4), i) for i in range(4)))


def test_hypot_second_derivative_refused_where_documented():
    x = np.array([0.3, -1.2, 0.7])
    with pytest.raises(revsrc.errors.HigherOrderNotSupported) as e:
        revsrc.hessian(hy_mixed)(x)
    assert e.value.code == "E104" and "hessian" not in e.value.hint
    assert e.value.lineno is not None


# ----- dict keys made of constants in a loop -----

def keys_concat(x):
    d = {}
    for name in ("a", "bb"):
        d[name + "_w"] = x * len(name)
    return d["a_w"] * d["bb_w"]


def keys_fstring(x):
    d = {}
    for i in range(3):
        d[f"h{i}"] = x ** (i + 1)
    return d["h0"] + d["h1"] * d["h2"]


def keys_str_percent(x):
    d = {}
    for i in range(2):
        d["w" + str(i)] = np.sin(x * (i + 1))
        d["b%d" % i] = d["w" + str(i)] * 2.0
    return np.sum(d["w0"] * d["b1"]) + np.sum(d["b0"])


def keys_format(x):
    d = {}
    for i, name in enumerate(["u", "v"]):
        d["{}_{}".format(name, i)] = x * (i + 2.0)
    return d["u_0"] * d["v_1"]


@pytest.mark.parametrize("f", [keys_concat, keys_fstring, keys_format])
def test_computed_keys_scalars(f):
    close(revsrc.grad(f)(1.5), fd(f, (1.5,), 0))
    close(revsrc.jacfwd(f)(1.5), fd(f, (1.5,), 0))
    close(revsrc.hessian(f)(1.5), fd(lambda v: fd(f, (v,), 0, 1e-5), (1.5,), 0, 1e-4), 1e-4)


def test_computed_keys_arrays_and_jax():
    x = np.array([0.3, 0.4])
    want = jax.grad(lambda v: jnp.sum(jnp.sin(v) * 2 * jnp.sin(2 * v)) +
                    jnp.sum(2 * jnp.sin(v)))(x)
    close(revsrc.grad(keys_str_percent)(x), want, 1e-12)
    close(revsrc.grad(keys_str_percent, backend="jax")(x), want, 1e-12)


# ----- a kept generator read twice (Python: empty the second time) -----

def gen_twice(x):
    g = (x * k for k in range(3))
    return sum(g) + sum(g)


def gen_list_then_tuple(x):
    g = (x * k for k in range(1, 4))
    a = list(g)
    b = tuple(g)
    return a[0] * a[2] + len(b)


def gen_in_loop(x):
    g = (np.sin(x * k) for k in range(3))
    s = 0.0
    for i in range(3):
        s = s + (i + 1) * sum(g)
    return s


def gen_branch(x, c):
    g = (v * v for v in x)
    if c > 0:
        s = sum(g)
    else:
        s = 2.0
    return s + math.fsum(g) + sum(g)


def gen_max_then_sum(x):
    g = (v * 2.0 for v in x)
    return max(g) + sum(g)


@pytest.mark.parametrize("f", [gen_twice, gen_list_then_tuple, gen_in_loop])
def test_generator_read_twice_scalars(f):
    v, g = revsrc.value_and_grad(f)(0.7)
    assert v == f(0.7)
    close(g, fd(f, (0.7,), 0))
    close(revsrc.jacfwd(f)(0.7), fd(f, (0.7,), 0))


def test_generator_read_twice_arrays():
    x = np.array([1.0, 2.0])
    for c in (1.0, -1.0):
        v, g = revsrc.value_and_grad(gen_branch)(x, c)
        assert v == gen_branch(x, c)
        close(g, fd(gen_branch, (x, c), 0))
    close(revsrc.grad(gen_max_then_sum)(np.array([1.0, 3.0])), [0.0, 2.0], 1e-12)


def test_generator_read_partly_still_refused():
    def partly(x):
        g = (x * k for k in range(3))
        a = next(g)
        return a + sum(g)
    with pytest.raises(revsrc.errors.UnsupportedSyntax) as e:
        revsrc.grad(partly)(1.5)
    assert e.value.code == "E101" and e.value.lineno is not None


# ----- hessian(argnums=(0, 1)) of a dict and an array -----

def dict_array_loss(p, x):
    return p["w"] * np.sum(x ** 2) + p["b"] * x[0] * p["w"] + np.sum(np.sin(x)) * p["b"] ** 2


def test_hessian_of_dict_and_array():
    p, x = {"w": 1.5, "b": 0.2}, np.array([1.0, 2.0])

    def jf(w, b, v):
        return w * jnp.sum(v ** 2) + b * v[0] * w + jnp.sum(jnp.sin(v)) * b ** 2
    hj = jax.hessian(jf, argnums=(0, 1, 2))(1.5, 0.2, x)
    h = revsrc.hessian(dict_array_loss, argnums=(0, 1))(p, x)
    # laid out as JAX's: entry 0 is the gradient's dict, a tuple over (p, x) at each key
    names = ("w", "b")
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            close(h[0][a][0][b], hj[i][j], 1e-12)
            close(h[1][0][b], hj[2][j], 1e-12)
        close(h[0][a][1], hj[i][2], 1e-12)
    close(h[1][1], hj[2][2], 1e-12)
    # the mixed block alone, as jacfwd of a gradient in the dict
    close(revsrc.jacfwd(revsrc.grad(dict_array_loss, 0), 1)(p, x)["w"], hj[0][2], 1e-12)


# ----- methods of base classes; __getitem__ and __len__ of objects made in the function -----

class Layer:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, x):
        return math.tanh(self.scale * x)


class Residual(Layer):
    def forward(self, x):
        return x + super().forward(x)


class ResidualByName(Layer):
    def forward(self, x):
        return x + Layer.forward(self, x)


class Deeper(Residual):
    def forward(self, x):
        return 2.0 * super(Deeper, self).forward(x) * self.scale


class OwnInit(Layer):
    def __init__(self, scale, shift):
        self.scale = scale
        self.shift = shift

    def forward(self, x):
        return super().forward(x) + self.shift * x


def stack_of_layers(x):
    layers = [Residual(0.5), Layer(2.0), ResidualByName(-1.0), Deeper(0.7), OwnInit(0.3, 1.5)]
    for layer in layers:
        x = layer.forward(x)
    return x


class Table:
    def __init__(self, values):
        self.values = values

    def __getitem__(self, i):
        return self.values[i] * 2.0

    def __len__(self):
        return len(self.values)


def table_sum(x):
    t = Table([x, x * x, math.exp(x)])
    return sum(t[i] for i in range(len(t)))


def table_items(x):
    t = Table([x, x * x, np.sin(x)])
    return np.sum(t[1] * t[2]) + len(t) * np.sum(t[0])


def test_base_class_methods():
    for x in (0.4, -0.9):
        v, g = revsrc.value_and_grad(stack_of_layers)(x)
        assert v == stack_of_layers(x)
        close(g, fd(stack_of_layers, (x,), 0))
        close(revsrc.jacfwd(stack_of_layers)(x), g, 1e-12)
    close(revsrc.hessian(stack_of_layers)(0.4),
          fd(lambda v: fd(stack_of_layers, (v,), 0, 1e-5), (0.4,), 0, 1e-4), 1e-4)


def test_getitem_and_len_of_an_object():
    close(revsrc.grad(table_sum)(0.5), 2.0 * (1 + 2 * 0.5 + math.exp(0.5)), 1e-12)
    x = np.array([0.3, -0.8])
    want = jax.grad(lambda v: jnp.sum(2 * v * v * 2 * jnp.sin(v)) + 3 * jnp.sum(2 * v))(x)
    close(revsrc.grad(table_items)(x), want, 1e-12)
    close(revsrc.grad(table_items, backend="jax")(x), want, 1e-12)
    close(revsrc.hessian(table_items)(x), jax.hessian(
        lambda v: jnp.sum(2 * v * v * 2 * jnp.sin(v)) + 3 * jnp.sum(2 * v))(x), 1e-10)


# ----- writes through the columns of A.T -----

MC = np.array([[1.0, -2.0], [0.3, 0.7]])


def cols_divide(x):
    A = np.outer(x[:2], x[1:])
    for col in A.T:
        col /= np.sum(col)
    return np.sum(A * MC)


def cols_named_scale(x):
    A = np.outer(x[:2], x[1:]) + 1.0
    At = A.T
    for j, col in enumerate(At):
        col *= (j + 1.0) * x[0]
    return np.sum(np.sin(A) * MC)


def cols_slice_write(x):
    A = np.outer(x[:2], x[1:])
    for col in np.transpose(A):
        col[:] = col - np.mean(col)
    return np.sum(A * A * MC)


def _cols_jax(kind):
    def f(x):
        A = jnp.outer(x[:2], x[1:])
        if kind == "divide":
            return jnp.sum(A / jnp.sum(A, axis=0) * MC)
        if kind == "scale":
            A = (A + 1.0) * (jnp.arange(2) + 1.0) * x[0]
            return jnp.sum(jnp.sin(A) * MC)
        A = A - jnp.mean(A, axis=0)
        return jnp.sum(A * A * MC)
    return f


@pytest.mark.parametrize("f,kind", [(cols_divide, "divide"), (cols_named_scale, "scale"),
                                    (cols_slice_write, "slice")])
def test_writes_through_transposed_columns(f, kind):
    x = np.array([0.5, 1.2, -0.7])
    ref = _cols_jax(kind)
    v, g = revsrc.value_and_grad(f)(x)
    close(v, ref(x), 1e-12)
    close(g, jax.grad(ref)(x), 1e-10)
    close(revsrc.jacfwd(f)(x), jax.grad(ref)(x), 1e-10)
    close(revsrc.hessian(f)(x), jax.hessian(ref)(x), 1e-8)


# ----- revsrc.jit of a function building a list of floats: a documented refusal -----

def two_box(lam, forcing=3.7, C=8.0, years=20):
    T = 0.0
    traj = []
    for _ in range(years):
        T = T + (forcing - lam * T) / C
        traj.append(T)
    return traj[-1] + 0.1 * sum(traj) / len(traj)


def two_box_running(lam, forcing=3.7, C=8.0, years=20):
    T, total = 0.0, 0.0
    for _ in range(years):
        T = T + (forcing - lam * T) / C
        total += T
    return T + 0.1 * total / years


def test_jit_of_a_list_of_floats_refused_with_the_rewrite():
    with pytest.raises(revsrc.errors.NotCompilable) as e:
        revsrc.jit(two_box)(1.2)
    assert e.value.code == "E502" and "read other than by sum" in str(e.value)
    assert "accumulate" in e.value.hint and e.value.lineno is not None
    # the rewrite the hint names compiles, with Python's value
    assert revsrc.jit(two_box_running)(1.2) == two_box_running(1.2)
    assert two_box_running(1.2) == pytest.approx(two_box(1.2), rel=1e-12)


# ----- a | b of dicts: the same merge (its adjoint was zero before) -----

def union_literal(p):
    r = {"a": 1.0} | p
    return r["a"] * math.exp(r["b"])


def union_two(p):
    q = {"a": p["b"] * 2, "b": 5.0}
    r = q | p
    return r["a"] * math.exp(r["b"])


def test_dict_union_operator():
    for f in (union_literal, union_two):
        p = {"b": 0.1}
        close(revsrc.grad(f)(p), fd(f, (p,), 0))
        close(revsrc.jacfwd(f)(p), fd(f, (p,), 0))


def gen_once(x):
    g = (x * k for k in range(3))
    return sum(g)


def test_generator_read_once_is_left_alone():
    # (read once, outside loops: no empty list follows it)
    v, g = revsrc.value_and_grad(gen_once)(1.5)
    assert v == gen_once(1.5) and g == 3.0
