"""Bound methods, partials, callable objects, decorated functions and primitives are
functions like any other; attributes and methods of values that carry no gradient are
read when the function runs; stop_gradient."""
import functools
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads

RNG = np.random.default_rng(7)
A = RNG.normal(size=(6, 3))


class Model:
    scale = 2.0

    def __init__(self, X):
        self.X = X
        self.l2 = 0.1

    def predict(self, w):
        return self.X @ w

    def loss(self, w):
        z = self.predict(w)
        return np.sum(z ** 2) * self.scale + self.l2 * np.dot(w, w)

    def __call__(self, w):
        return 0.5 * self.loss(w)

    @staticmethod
    def cube(x):
        return x * x * x

    @classmethod
    def scaled(cls, x):
        return x * x * cls.scale


W = np.array([0.3, -0.2, 0.5])


def _reference_loss(w, X=A, scale=2.0, l2=0.1):
    return np.sum((X @ w) ** 2) * scale + l2 * np.dot(w, w)


def test_bound_method():
    m = Model(A)
    check_grads(m.loss, (W,))
    g = revsrc.grad(m.loss)(W)
    np.testing.assert_allclose(g, 2 * 2.0 * A.T @ (A @ W) + 0.2 * W, rtol=1e-12)


def test_attributes_are_read_when_the_function_runs():
    m = Model(A)
    d = revsrc.grad(m.loss)
    before = d(W)
    m.l2 = 1.0                    # an instance attribute changes
    Model.scale = 3.0             # and a class attribute
    try:
        np.testing.assert_allclose(d(W), 2 * 3.0 * A.T @ (A @ W) + 2.0 * W, rtol=1e-12)
    finally:
        Model.scale = 2.0
    assert not np.allclose(before, d(W))


def test_callable_object_static_and_class_methods():
    m = Model(A)
    check_grads(m, (W,))
    assert revsrc.grad(Model.cube)(2.0) == pytest.approx(12.0)
    assert revsrc.grad(m.cube)(2.0) == pytest.approx(12.0)
    assert revsrc.grad(Model.scaled)(2.0) == pytest.approx(8.0)


def nll(theta, t, y, noise=0.1):
    amp, freq = theta
    pred = amp * np.sin(freq * t)
    return 0.5 * np.sum((pred - y) ** 2) / noise ** 2


def test_partial_with_arguments_and_keywords():
    t = np.linspace(0.0, 3.0, 7)
    p = functools.partial(nll, t=t, y=np.sin(2.0 * t), noise=0.2)
    check_grads(p, (np.array([1.0, 2.1]),))
    q = functools.partial(nll, np.array([1.0, 2.1]))      # theta bound: argnums 0 is t
    check_grads(q, (t, np.sin(t)))
    r = functools.partial(Model(A).loss)
    check_grads(r, (W,))


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 2.0 * fn(*args, **kwargs) + args[0]
    return wrapper


@doubled
def square(x, y=1.0):
    return x * x * y


def test_a_decorator_is_differentiated_as_written_never_through_wrapped():
    # the wrapper's own value: 2 x^2 y + x
    assert revsrc.grad(square)(3.0) == pytest.approx(4 * 3.0 + 1.0)
    assert revsrc.grad(square)(3.0, y=2.0) == pytest.approx(8 * 3.0 + 1.0)
    assert revsrc.grad(square, argnums=1)(3.0, 2.0) == pytest.approx(18.0)
    check_grads(square, (1.3, 0.7), argnums=(0, 1))


def hidden(fn):
    def wrapper(x):
        return fn(x) ** 2
    wrapper.__wrapped__ = fn
    return wrapper


@hidden
def sine(x):
    return math.sin(x)


def test_a_wrapper_with_a_different_value():
    assert revsrc.grad(sine)(0.4) == pytest.approx(2 * math.sin(0.4) * math.cos(0.4))


@pytest.mark.parametrize("fn,x,want", [
    (np.tanh, 0.5, 1 - np.tanh(0.5) ** 2),
    (math.sin, 0.5, math.cos(0.5)),
    (np.exp, np.array([0.0, 1.0]), None),
    (abs, -2.0, -1.0),
])
def test_primitives_passed_directly(fn, x, want):
    if want is None:
        g = revsrc.grad(lambda v: np.sum(fn(v)))(x)
        check_grads(lambda v: np.sum(fn(v)), (x,))
        assert revsrc.grad(fn)(1.0) == pytest.approx(math.e)
        return
    assert revsrc.grad(fn)(x) == pytest.approx(want, rel=1e-14)
    g = revsrc.value_and_grad(fn)(x)
    assert g[0] == fn(x)


def test_primitive_with_two_arguments():
    gx, gy = revsrc.grad(math.pow, argnums=(0, 1))(2.0, 3.0)
    assert (gx, gy) == pytest.approx((12.0, 8.0 * math.log(2.0)))


def test_a_callable_without_source_or_rule_is_refused():
    with pytest.raises(errors.NoSource):
        revsrc.grad(math.remainder)


# ----- values that carry no gradient -----

class Config:
    scale = 0.5
    shift = 1.0


CFG = Config()


def uses_config(x, y):
    z = CFG.scale * x + CFG.shift
    return np.sum(np.log1p(np.exp(z)) * y)


def uses_config_argument(x, cfg):
    return x * cfg.scale + cfg.shift * x * x


def test_config_attributes():
    check_grads(uses_config, (np.array([0.3, -1.2]), np.array([1.0, 0.5])), argnums=(0, 1))
    check_grads(uses_config_argument, (0.7, Config()))


def sampled(theta, n):
    eps = np.random.default_rng(0).normal(size=(n, theta.shape[0]))
    return np.mean(np.sum((theta + eps) ** 2, axis=1))


def with_rng(theta, rng_seed):
    rng = np.random.default_rng(rng_seed)
    noise = rng.normal(size=theta.shape)
    return np.sum(theta * noise)


def option(x, mode):
    if mode.lower() == "square":
        return x * x
    return x


def options(x, opts):
    s = 0.0
    for k, v in opts.items():
        s = s + v * x
    return s


def test_methods_of_values_without_gradient_run():
    theta = np.array([0.1, 0.2])
    check_grads(sampled, (theta, 5))
    np.testing.assert_allclose(revsrc.grad(with_rng)(theta, 3),
                               np.random.default_rng(3).normal(size=2))
    assert revsrc.grad(option)(3.0, "SQUARE") == 6.0
    assert revsrc.grad(option)(3.0, "id") == 1.0
    assert revsrc.grad(options)(2.0, {"a": 1.0, "b": 2.0}) == 3.0


def method_on_a_differentiated_value(x):
    return x.cumprod().foo()  # refuse: E202


def test_a_differentiated_value_reaching_an_unknown_method_is_refused():
    with pytest.raises(errors.NoRule) as info:
        revsrc.grad(method_on_a_differentiated_value)(np.ones(2))
    assert info.value.code == "E202" and ".foo()" in str(info.value)
    assert info.value.lineno == method_on_a_differentiated_value.__code__.co_firstlineno + 1


def test_flat_item_of_a_differentiated_value():
    # x.flat[i] was refused (E202); reading it is an item of the raveled array now
    def f(x):
        return x.flat[3] * x.flat[0]
    x = np.array([[1.5, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(revsrc.grad(f)(x), [[4.0, 0.0], [0.0, 1.5]])


# ----- stop_gradient -----

def stopped(x):
    return x * revsrc.stop_gradient(x * x)


def test_stop_gradient_on_every_path():
    assert revsrc.grad(stopped, backend="python")(3.0) == 9.0
    assert revsrc.grad(stopped, backend="engine")(3.0) == 9.0
    assert revsrc.jvp(stopped, (3.0,), (1.0,)) == (27.0, 9.0)
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(revsrc.grad(lambda v: np.sum(v * revsrc.stop_gradient(v)))(x),
                               x)
    assert revsrc.stop_gradient(2.5) == 2.5


# ----- objects made inside the function ------------------------------------------------

class Dense:
    """A Keras-like layer: its __init__ only stores what it is given."""

    def __init__(self, W, b, activation=None):
        self.W, self.b, self.activation = W, b, activation

    def __call__(self, x):
        z = x @ self.W + self.b
        if self.activation == "tanh":
            return np.tanh(z)
        return self.scaled(z)

    def scaled(self, z):
        return z * 0.5


def layers_in_a_list(W1, b1, W2, b2, X, y):
    net = [Dense(W1, b1, "tanh"), Dense(W2, b2)]
    h = X
    for layer in net:
        h = layer(h)
    return np.mean((h[:, 0] - y) ** 2)


def layer_by_name(W1, b1, X):
    first = Dense(W1 * 2.0, b1, activation="tanh")
    W1 = W1 + 1.0                      # the layer keeps the value it was given
    second = Dense(W1, b1)
    return np.sum(second(first(X))) + np.sum(first.W) + isinstance(first, Dense)


def test_objects_made_in_the_function_are_read_and_called():
    W1, b1 = RNG.normal(size=(3, 4)), RNG.normal(size=4)
    W2, b2 = RNG.normal(size=(4, 1)), RNG.normal(size=1)
    X, y = RNG.normal(size=(5, 3)), RNG.normal(size=5)
    check_grads(layers_in_a_list, (W1, b1, W2, b2, X, y), argnums=(0, 1, 2, 3))
    value, _ = revsrc.value_and_grad(layers_in_a_list)(W1, b1, W2, b2, X, y)
    assert value == layers_in_a_list(W1, b1, W2, b2, X, y)
    W = RNG.normal(size=(3, 3))
    check_grads(layer_by_name, (W, RNG.normal(size=3), X), argnums=(0, 1))
    assert revsrc.jvp(layer_by_name, (W, b1[:3], X), (np.ones((3, 3)), np.zeros(3),
                                                      np.zeros((5, 3))))[0] == \
        pytest.approx(layer_by_name(W, b1[:3], X), rel=1e-12)


def layer_made_in_a_loop(W, X, n):
    h = X
    for i in range(n):
        layer = Dense(W * (i + 1.0), 0.0)
        h = layer(h)
    return np.sum(h)


def layer_changed_later(W, X):
    layer = Dense(W, 0.0)
    layer.W = W * 2.0
    return np.sum(layer(X))


def layer_returned(W, X):
    layer = Dense(W, 0.0)
    return np.sum(layer(X)), layer


def layer_appended(W, X):
    net = []
    net.append(Dense(W, 0.0))
    return np.sum(net[0](X))


@pytest.mark.parametrize("f,args,cls", [
    (layer_made_in_a_loop, (2,), errors.UnsupportedSyntax),
    (layer_changed_later, (), errors.SideEffect),
    (layer_returned, (), errors.UnsupportedSyntax),
    (layer_appended, (), errors.UnsupportedSyntax),
])
def test_objects_revsrc_cannot_follow_are_refused(f, args, cls):
    W, X = np.eye(2), np.ones((3, 2))
    with pytest.raises(cls) as info:
        revsrc.grad(f, has_aux=f is layer_returned)(W, X, *args)
    assert info.value.filename == __file__ and info.value.lineno is not None


def reads_a_layer_by_getattr(W, b):
    net = [Dense(W, b), Dense(W, b)]
    return np.sum(getattr(net[1], "W"))


def test_a_refusal_inside_an_expression_names_its_statement():
    with pytest.raises(errors.StaticValueError) as info:
        revsrc.grad(reads_a_layer_by_getattr)(np.eye(2), np.zeros(2))
    assert info.value.lineno == reads_a_layer_by_getattr.__code__.co_firstlineno + 2
    assert info.value.filename == __file__
