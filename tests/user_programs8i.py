"""Round 8 user programs, batch i: Python state around the numbers (globals and object
attributes changed between calls, caches of derivatives, default arguments,
closures made in loops, int recursion, generators, logging and f-strings, a class
holding its parameters), checked against closed forms or self-checked central
differences."""
import functools
import logging
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(88)
SCALE = 2.0
WG = np.array([1.0, 2.0, 3.0])


def uses_global_scale(x):
    return SCALE * x ** 2


def _global_changed():
    global SCALE
    d = revsrc.grad(uses_global_scale)
    a = d(1.0)
    SCALE = 5.0
    try:
        b = d(1.0)
    finally:
        SCALE = 2.0
    return a, b


add(pair("r8_global_float_changed_between_calls", _global_changed, lambda: (4.0, 10.0), tol=0.0))


def uses_global_array(x):
    return np.sum(WG * x ** 2)


def _global_array_mutated():
    d = revsrc.grad(uses_global_array)
    a = d(np.ones(3))
    WG[0] = 10.0
    try:
        b = d(np.ones(3))
    finally:
        WG[0] = 1.0
    return a, b


add(pair("r8_global_array_mutated_in_place_between_calls", _global_array_mutated,
         lambda: (np.array([2.0, 4.0, 6.0]), np.array([20.0, 4.0, 6.0])), tol=0.0))


class Scaler:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return self.k * np.sum(x ** 2)


SC = Scaler(1.5)


def _attr_changed():
    d = revsrc.grad(SC.energy)
    a = d(np.ones(2))
    SC.k = 3.0
    try:
        b = d(np.ones(2))
    finally:
        SC.k = 1.5
    return a, b


add(pair("r8_bound_method_attribute_changed_between_calls", _attr_changed,
         lambda: (np.array([3.0, 3.0]), np.array([6.0, 6.0])), tol=0.0))


class ParamModel:
    def __init__(self):
        self.W = rng.normal(size=(3, 2))
        self.b = np.zeros(2)

    def loss(self, x, y):
        return np.sum((np.tanh(x @ self.W + self.b) - y) ** 2)


PM = ParamModel()
XI = rng.normal(size=(4, 3))
YI = rng.normal(size=(4, 2))


def loss_of_params(W, b, x, y):
    return np.sum((np.tanh(x @ W + b) - y) ** 2)


def _pm_step():
    d = revsrc.grad(PM.loss)
    g1 = d(XI, YI)
    W0 = PM.W.copy()
    PM.W = PM.W - 0.1  # rebinds the attribute to a new array
    try:
        g2 = d(XI, YI)
    finally:
        PM.W = W0
    return g1, g2


def _pm_ref():
    gx = lambda W: jax().grad(jaxify(loss_of_params), argnums=2)(W, PM.b, XI, YI)  # noqa: E731
    return gx(PM.W), gx(PM.W - 0.1)


add(pair("r8_model_attribute_rebound_between_calls", _pm_step, _pm_ref, tol=1e-10))


def default_arg_array(x, w=np.array([1.0, -1.0])):
    return np.sum(w * x ** 2)


add(pair("r8_default_array_argument", lambda: revsrc.grad(default_arg_array)(np.array([1.0, 2.0])),
         lambda: np.array([2.0, -4.0]), tol=0.0))


def closures_in_loop(x):
    fs = []
    for k in range(1, 4):
        fs.append(functools.partial(lambda_pow, k=k))
    return sum(f(x) for f in fs)


def lambda_pow(x, k):
    return x ** k


add(pair("r8_partials_made_in_loop_called_in_generator", lambda: revsrc.grad(closures_in_loop)(1.5),
         lambda: 1 + 2 * 1.5 + 3 * 1.5 ** 2, tol=1e-12))


def chebyshev(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return 2 * x * chebyshev(n - 1, x) - chebyshev(n - 2, x)


add(pair("r8_int_recursion_chebyshev", lambda: revsrc.grad(chebyshev, argnums=1)(5, 0.3),
         lambda: 5 * math.sin(5 * math.acos(0.3)) / math.sqrt(1 - 0.09), tol=1e-10))


def gen_squares(xs):
    return sum(v * v for v in xs if v > 0)


add(pair("r8_generator_expression_with_filter", lambda: revsrc.grad(gen_squares)(np.array([1.0, -2.0, 3.0])),
         lambda: np.array([2.0, 0.0, 6.0]), tol=1e-12))


log = logging.getLogger("r8")


def logs_and_formats(x):
    y = x ** 2
    log.debug(f"y = {y:.3f}")
    msg = "value %s" % (y,)
    if len(msg) > 3:
        y = y + 1.0
    return y * 3


add(pair("r8_logging_fstring_percent_format", lambda: revsrc.grad(logs_and_formats)(2.0), lambda: 12.0, tol=1e-12))


def str_keys_loop(x):
    d = {}
    for i, name in enumerate(["a", "b", "c"]):
        d[name] = x[i] * (i + 1)
    return d["a"] * d["c"] + d.get("b", 0.0) + d.get("z", 1.0)


add(pair("r8_dict_built_in_loop_with_get_default", lambda: revsrc.grad(str_keys_loop)(np.array([1.0, 2.0, 3.0])),
         lambda: np.array([9.0, 2.0, 3.0]), tol=1e-12))


def dict_items_loop(p):
    tot = 0.0
    for k, v in p.items():
        tot = tot + np.sum(v ** 2) * (2.0 if k.startswith("w") else 1.0)
    return tot


add(pair("r8_dict_items_str_method_branch", lambda: revsrc.grad(dict_items_loop)({"w1": np.array([1.0, 2.0]), "b1": 3.0}),
         lambda: {"w1": np.array([4.0, 8.0]), "b1": 6.0}, tol=1e-12))


def list_mutation_local(x):
    xs = [x, 2 * x]
    xs.append(xs[0] * xs[1])
    xs.insert(0, 1.0)
    xs.pop(1)
    xs.extend([x ** 3])
    return sum(xs)


add(pair("r8_list_append_insert_pop_extend", lambda: revsrc.grad(list_mutation_local)(1.5),
         lambda: 2.0 + 4 * 1.5 + 3 * 1.5 ** 2, tol=1e-12))


def sorted_pairs(x):
    pairs = sorted(zip(x, range(len(x))))
    return sum(v * (i + 1) for (v, _), i in zip(pairs, range(len(pairs))))


add(pair("r8_sorted_zip_tuples_ranked_weights", lambda: revsrc.grad(sorted_pairs)(np.array([0.3, -1.0, 2.0])),
         lambda: np.array([2.0, 1.0, 3.0]), tol=1e-12))


def min_max_builtins(a, b, c):
    return max(a, b) * min(b, c) + abs(a - c)


add(pair("r8_builtin_max_min_abs_scalars", lambda: revsrc.grad(min_max_builtins, argnums=(0, 1, 2))(1.0, 2.0, 0.5),
         lambda: (0.0 + 1.0, 0.5, 2.0 - 1.0), tol=1e-12))


def math_fsum_prod(xs):
    return math.fsum(xs) + math.prod(xs)


add(pair("r8_math_fsum_prod", lambda: revsrc.grad(math_fsum_prod)([1.0, 2.0, 3.0]),
         lambda: [1 + 6.0, 1 + 3.0, 1 + 2.0], tol=1e-12))


def walrus_free_while(x):
    it = 0
    err = 1.0
    while err > 1e-10:
        nx = math.cos(x) * 0.5 + 0.2
        err = abs(nx - x)
        x = nx
        it += 1
    return x


def _fixed_point_ref():
    x = 0.5
    for _ in range(200):
        x = 0.5 * math.cos(x) + 0.2
    return 0.0  # the fixed point does not depend on the start: d/dx0 -> tiny


add(pair("r8_fixed_point_iteration_wrt_start", lambda: revsrc.grad(walrus_free_while)(0.5),
         lambda: fd_checked(walrus_free_while, (0.5,), h=1e-3, check=1e-2), tol=1e-8))


def nested_def_closure(a):
    def inner(t):
        return a * t ** 2

    def outer(t):
        return inner(t) + inner(2 * t)
    return outer(1.5)


add(pair("r8_nested_defs_closure_over_arg", lambda: revsrc.grad(nested_def_closure)(0.7), lambda: 1.5 ** 2 + 3.0 ** 2, tol=1e-12))


def conditional_expression_chain(x):
    return x ** 2 if x > 1 else (math.sin(x) if x > 0 else -x)


add(pair("r8_ternary_chain_three_ways", lambda: [revsrc.grad(conditional_expression_chain)(v) for v in (2.0, 0.5, -1.0)],
         lambda: [4.0, math.cos(0.5), -1.0], tol=1e-12))


def isinstance_dispatch(x, p):
    if isinstance(p, dict):
        return x * p["k"]
    if isinstance(p, (list, tuple)):
        return x * sum(p)
    return x * p


add(pair("r8_isinstance_dispatch_on_static_arg",
         lambda: (revsrc.grad(isinstance_dispatch)(2.0, {"k": 3.0}), revsrc.grad(isinstance_dispatch)(2.0, [1.0, 2.0]), revsrc.grad(isinstance_dispatch)(2.0, 4.0)),
         lambda: (3.0, 3.0, 4.0), tol=1e-12))


def shape_dependent(x):
    if x.ndim == 2:
        return np.sum(x @ x.T)
    return np.sum(x * x)


add(pair("r8_branch_on_ndim", lambda: (revsrc.grad(shape_dependent)(np.ones((2, 2))), revsrc.grad(shape_dependent)(np.ones(2))),
         lambda: (np.full((2, 2), 4.0), np.full(2, 2.0)), tol=1e-12))


def assert_positive(x):
    assert x > 0, f"bad {x}"
    return math.log(x)


add(pair("r8_assert_with_fstring_message", lambda: revsrc.grad(assert_positive)(2.0), lambda: 0.5, tol=1e-12))


def _assert_raises():
    try:
        revsrc.grad(assert_positive)(-1.0)
    except AssertionError as e:
        return str(e)
    return "no error"


add(pair("r8_assert_fails_as_python_would", _assert_raises, lambda: "bad -1.0", tol=0.0))


def enumerate_zip_dict(params, xs):
    out = 0.0
    for i, (k, x) in enumerate(zip(sorted(params), xs)):
        out += (i + 1) * params[k] * x
    return out


add(pair("r8_enumerate_zip_sorted_dict", lambda: revsrc.grad(enumerate_zip_dict)({"b": 2.0, "a": 1.0}, [3.0, 4.0]),
         lambda: {"a": 3.0, "b": 8.0}, tol=1e-12))
