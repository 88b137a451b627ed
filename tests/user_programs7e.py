"""User programs, corpus 7e: the Python people write around the numbers -- classes with
inheritance, properties and super(), dataclasses with defaults and methods, nested
pytrees of dicts/lists/tuples, generators and comprehensions, try/except, globals and
global containers changed between calls, int-depth recursion, closures over loop
variables, decorators, functools.reduce, sorted/min with key=.  References: autograd,
JAX x64 and self-checked central differences; each call is made after the change."""
import dataclasses
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, ag, agify, fd_checked, jax, jaxify, pair

CASES = []


# -- classes -------------------------------------------------------------------------------

class Base:
    def __init__(self, scale):
        self.scale = scale

    def act(self, z):
        return np.tanh(z)

    def loss(self, w, x):
        return self.scale * np.sum(self.act(x @ w) ** 2)


class Child(Base):
    def __init__(self, scale, shift):
        super().__init__(scale)
        self.shift = shift

    def act(self, z):
        return np.sin(z + self.shift)

    def loss(self, w, x):
        return super().loss(w, x) + self.shift * np.sum(w)


XC = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])
WC = np.array([0.4, -0.7])
CH = Child(1.5, 0.3)
CASES.append(G("r7_class_super_override_act", CH.loss, (WC, XC),
               ref=lambda: jax().grad(lambda w: 1.5 * jax().numpy.sum(jax().numpy.sin(XC @ w + 0.3) ** 2)
                                      + 0.3 * jax().numpy.sum(w))(WC), tol=1e-10))


class Quad:
    def __init__(self, A):
        self._A = A

    @property
    def A(self):
        return self._A + self._A.T

    def __call__(self, v):
        return 0.5 * v @ self.A @ v


QA = np.array([[1.0, 2.0], [0.0, 3.0]])
CASES.append(G("r7_class_property_in_call", Quad(QA), (np.array([1.0, -2.0]),),
               ref=lambda: (QA + QA.T) @ np.array([1.0, -2.0]), tol=1e-12))


class Counter:
    """An attribute changed between calls must be seen by the next call."""
    def __init__(self):
        self.k = 1.0

    def f(self, x):
        return self.k * x ** 3


CNT = Counter()


def changed_attribute():
    g = revsrc.grad(CNT.f)
    a = g(2.0)
    CNT.k = 5.0
    b = g(2.0)
    CNT.k = 1.0
    return (a, b)


CASES.append(pair("r7_class_attribute_changed_between_calls", changed_attribute, lambda: (12.0, 60.0), tol=0.0))


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float = 0.5
    tag: str = dataclasses.field(default="lin", metadata={"static": True})

    def predict(self, x):
        return x @ self.w + self.b


def dc_loss(p, x, y):
    return np.mean((p.predict(x) - y) ** 2)


YC = np.array([1.0, 0.0, -1.0])
CASES.append(pair("r7_dataclass_method_static_str_field",
                  lambda: revsrc.grad(dc_loss)(Params(WC), XC, YC),
                  lambda: (lambda g: Params(g[0], g[1]))(fd_checked(
                      lambda w, b: dc_loss(Params(w, b), XC, YC), (WC, 0.5), argnums=(0, 1))), tol=1e-7))


def dc_built_inside(w, x):
    p = Params(w * 2.0, 0.1)
    q = dataclasses.replace(p, b=0.3)
    return np.sum(q.predict(x) ** 2)


CASES.append(G("r7_dataclass_replace_inside", dc_built_inside, (WC, XC), ref="fd", tol=1e-7))


# -- nested pytrees ---------------------------------------------------------------------------

def nested_tree_loss(p, x):
    h = x
    for layer in p["layers"]:
        W, b = layer
        h = np.tanh(h @ W + b)
    return np.sum((h - p["target"]["y"]) ** 2) + p["reg"][0] * np.sum(p["layers"][0][0] ** 2)


RNG = np.random.default_rng(7004)
TREE = {"layers": [(RNG.normal(size=(2, 3)), np.zeros(3)), (RNG.normal(size=(3, 2)), np.ones(2) * 0.1)],
        "reg": [0.01], "target": {"y": np.array([0.5, -0.5])}}
CASES.append(G("r7_tree_dict_list_tuple_nested", nested_tree_loss, (TREE, XC), ref="jax", tol=1e-9))


def tree_with_none(p, x):
    s = np.sum(x * p["w"])
    if p["b"] is not None:
        s = s + p["b"]
    return s * s


CASES.append(pair("r7_tree_none_leaf",
                  lambda: revsrc.grad(tree_with_none)({"b": None, "w": WC}, XC[0]),
                  lambda: {"b": None, "w": 2.0 * np.sum(XC[0] * WC) * XC[0]}, tol=1e-12))


def generator_pipeline(x):
    sq = (v * v for v in x)
    pos = [s for s in sq if s > 0.1]
    return sum(math.sqrt(s) for s in pos) + max(pos)


CASES.append(G("r7_generator_chain_filter", generator_pipeline, ([0.2, -0.9, 0.05, 1.3],), ref="ag", tol=1e-12))


def dict_comprehension(params):
    scaled = {k: v * (i + 1) for i, (k, v) in enumerate(sorted(params.items()))}
    return sum(np.sum(v ** 2) for v in scaled.values())


CASES.append(G("r7_dict_comprehension_sorted_items", dict_comprehension,
               ({"a": np.array([1.0, 2.0]), "b": 0.5, "c": np.array([[1.0], [-1.0]])},), ref="fd", tol=1e-7))


def reduce_compose(x):
    fs = [math.sin, math.exp, math.tanh]
    return functools.reduce(lambda acc, fn: fn(acc), fs, x)


CASES.append(G("r7_functools_reduce_function_list", reduce_compose, (0.4,),
               ref=lambda: (1 - math.tanh(math.exp(math.sin(0.4))) ** 2) * math.exp(math.sin(0.4)) * math.cos(0.4),
               tol=1e-12))


def sorted_key(xs):
    order = sorted(xs, key=lambda v: abs(v))
    return order[0] * 3.0 + order[-1] ** 2 + min(xs, key=lambda v: (v - 0.5) ** 2)


CASES.append(G("r7_sorted_and_min_with_key", sorted_key, ([0.3, -2.0, 0.7, 1.1],), ref="ag", tol=1e-12))


def try_except_fallback(x):
    try:
        y = math.log(x - 1.0)
    except ValueError:
        y = -(x - 1.0) ** 2
    return y * x


# math.log raises ValueError at 0.5: y = -(x - 1)^2, d(y x)/dx = -2 (x - 1) x - (x - 1)^2
CASES.append(G("r7_try_except_domain_error_path", try_except_fallback, (0.5,), ref=lambda: 0.25, tol=1e-12))
CASES.append(G("r7_try_except_normal_path", try_except_fallback, (2.5,),
               ref=lambda: 1.0 / 1.5 * 2.5 + math.log(1.5), tol=1e-12))


def try_zero_division(x, d):
    try:
        r = x / d
    except ZeroDivisionError:
        r = x * 1e6
    return r * r


CASES.append(G("r7_try_zero_division_int_denominator", try_zero_division, (0.3, 0), ref=lambda: 2 * 0.3 * 1e12,
               tol=1e-12))

# -- globals changed between calls ------------------------------------------------------------
GAIN = 2.0
COEFS = np.array([1.0, 2.0, 3.0])
TABLE = {"a": 1.0}


def uses_globals(x):
    return GAIN * np.sum(COEFS * x ** 2) + TABLE["a"] * np.sum(x)


def globals_between_calls():
    global GAIN
    g = revsrc.grad(uses_globals)
    x = np.array([1.0, 1.0, 1.0])
    r1 = g(x)
    GAIN = 3.0
    COEFS[1] = 10.0
    TABLE["a"] = -4.0
    r2 = g(x)
    GAIN = 2.0
    COEFS[1] = 2.0
    TABLE["a"] = 1.0
    return (r1, r2)


CASES.append(pair("r7_global_scalar_array_dict_changed", globals_between_calls,
                  lambda: (np.array([5.0, 9.0, 13.0]), np.array([2.0, 56.0, 14.0])), tol=0.0))

N_TERMS = 3


def series(x):
    return sum(x ** k / math.factorial(k) for k in range(N_TERMS))


def global_int_changed():
    global N_TERMS
    g = revsrc.grad(series)
    a = g(1.0)
    N_TERMS = 6
    b = g(1.0)
    N_TERMS = 3
    return (a, b)


CASES.append(pair("r7_global_int_loop_bound_changed", global_int_changed,
                  lambda: (2.0, 1 + 1 + 0.5 + 1 / 6 + 1 / 24), tol=1e-12))

LAYERS = [np.eye(2)]


def global_list_loop(x):
    for M in LAYERS:
        x = np.tanh(M @ x)
    return np.sum(x)


def global_list_appended():
    g = revsrc.grad(global_list_loop)
    x = np.array([0.3, -0.2])
    a = g(x)
    LAYERS.append(np.array([[1.0, 2.0], [0.0, 1.0]]))
    b = g(x)
    LAYERS.pop()
    return (a, b)


def global_list_ref():
    x = np.array([0.3, -0.2])
    jnp = jax().numpy
    a = jax().grad(lambda v: jnp.sum(jnp.tanh(v)))(x)
    b = jax().grad(lambda v: jnp.sum(jnp.tanh(jnp.array([[1.0, 2.0], [0.0, 1.0]]) @ jnp.tanh(v))))(x)
    return (a, b)


CASES.append(pair("r7_global_list_appended_between_calls", global_list_appended, global_list_ref, tol=1e-12))

# -- recursion and closures --------------------------------------------------------------------


def hermite(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return 2.0 * x
    return 2.0 * x * hermite(n - 1, x) - 2.0 * (n - 1) * hermite(n - 2, x)


CASES.append(G("r7_hermite_recursion_int_arg", hermite, (6, 0.7), argnums=1,
               ref=lambda: 12.0 * hermite(5, 0.7), tol=1e-10))
CASES.append(H("r7_hermite_recursion_hessian", hermite, (5, 0.7), argnums=1,
               ref=lambda: 4.0 * 5 * 4 * hermite(3, 0.7), tol=1e-9))


def tree_sum_depth(x, depth=5):
    if depth == 0:
        return math.sin(x)
    return tree_sum_depth(x * 0.9, depth - 1) + tree_sum_depth(x * 1.1, depth - 1) * 0.5


CASES.append(G("r7_binary_recursion_default_depth", tree_sum_depth, (0.3,), ref="ag", tol=1e-12))


def closures_in_loop(x):
    fs = []
    for k in range(1, 4):
        fs.append(lambda v, k=k: v ** k)
    return sum(f(x) for f in fs)


CASES.append(G("r7_closures_in_loop_default_capture", closures_in_loop, (1.5,), ref=lambda: 1 + 3.0 + 3 * 2.25,
               tol=1e-12))


def make_loss(alpha):
    def inner(w):
        return alpha * np.sum(w ** 2) + np.sum(np.cos(w))
    return inner


CASES.append(G("r7_closure_factory", make_loss(0.3), (WC,), ref=lambda: 0.6 * WC - np.sin(WC), tol=1e-12))


def memoize(fn):
    cache = {}

    @functools.wraps(fn)
    def wrapper(x):
        key = round(float(x), 12)
        if key not in cache:
            cache[key] = fn(x)
        return cache[key]
    return wrapper


@memoize
def expensive(x):
    return math.exp(x) * x


CASES.append(G("r7_decorator_memoize_dict_cache", expensive, (0.5,), ref=lambda: math.exp(0.5) * 1.5, tol=1e-12))


def kwargs_config(x, **cfg):
    s = 0.0
    for k in sorted(cfg):
        s += cfg[k] * x ** len(k)
    return s


CASES.append(G("r7_kwargs_loop_sorted_keys", kwargs_config, (1.2,), kw={"a": 1.0, "bb": 2.0, "ccc": 0.5},
               ref=lambda: 1.0 + 4.0 * 1.2 + 1.5 * 1.44, tol=1e-12))
