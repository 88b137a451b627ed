"""Round 13, part j: Python styles -- recursion on ints, helpers across functions, classes
with inheritance and properties, dataclasses with methods, functools.partial/reduce,
comprehensions, generators, enumerate/zip, try/except, *args/**kwargs, keyword-only and
default args, globals rebound between calls, closures made in a loop."""
import dataclasses
import functools
import math
import operator

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def chebyshev(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return 2 * x * chebyshev(n - 1, x) - chebyshev(n - 2, x)


# T_n'(x) = n U_{n-1}(x); at x = cos t: n sin(n t) / sin t
add(pair("r13_chebyshev_recursion", lambda: revsrc.grad(chebyshev, argnums=1)(5, 0.3),
         lambda: 5 * math.sin(5 * math.acos(0.3)) / math.sin(math.acos(0.3)), tol=1e-10))
add(pair("r13_chebyshev_hessian", lambda: revsrc.hessian(chebyshev, argnums=1)(4, 0.3), lambda: 96 * 0.09 - 16, tol=1e-10))


def power_tower(x, n):
    return x if n == 0 else math.exp(0.1 * power_tower(x, n - 1)) * x


add(G("r13_recursion_int_second_arg", power_tower, (0.7, 3), ref="fd"))


class Layer:
    def __init__(self, scale):
        self.scale = scale

    def act(self, z):
        return np.tanh(z)

    def __call__(self, w, x):
        return self.act(self.scale * (w @ x))


class SoftLayer(Layer):
    def act(self, z):
        return np.log1p(np.exp(z))

    @property
    def double(self):
        return 2 * self.scale

    def __call__(self, w, x):
        return super().__call__(w, x) * self.double


W23 = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6]])
X3 = np.array([1.0, 0.5, -1.5])
SL = SoftLayer(0.7)
add(G("r13_inheritance_super_property", lambda w: np.sum(SL(w, X3)), (W23,), ref="fd"))
add(G("r13_inheritance_base", lambda w: np.sum(Layer(0.7)(w, X3)), (W23,), ref="fd"))


@dataclasses.dataclass
class Spring:
    k: float
    rest: float

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


def chain_energy(xs, springs):
    return sum(s.energy(b - a) for s, a, b in zip(springs, xs[:-1], xs[1:]))


SPR = [Spring(2.0, 1.0), Spring(3.0, 0.5), Spring(1.0, 1.5)]
XC = np.array([0.0, 1.2, 1.5, 3.2])
add(G("r13_dataclass_method_zip", chain_energy, (XC, SPR), ref="fd"))
add(G("r13_dataclass_wrt_fields", chain_energy, (XC, SPR), argnums=1,
      ref=lambda: [Spring(0.5 * (b - a - s.rest) ** 2, -s.k * (b - a - s.rest)) for s, a, b in zip(SPR, XC[:-1], XC[1:])], tol=1e-12))


def poly_reduce(coefs, x):
    return functools.reduce(lambda acc, c: acc * x + c, coefs, 0.0)


add(G("r13_reduce_horner", poly_reduce, ([1.0, -2.0, 0.5, 3.0], 0.7), argnums=(0, 1), ref="fd"))
add(G("r13_reduce_operator_mul", lambda xs: functools.reduce(operator.mul, xs), ([1.5, -0.4, 2.0],), ref=lambda: [-0.8, 3.0, -0.6], tol=1e-12))


def scaled(x, a, b=1.0):
    return a * x ** 2 + b


def uses_partial(x):
    f = functools.partial(scaled, a=3.0, b=0.5)
    return f(x) * f(x + 1)


add(G("r13_partial_kwargs_local", uses_partial, (0.4,), ref="fd"))


def nested_comp(M):
    rows = [[M[i, j] * (i + 1) for j in range(M.shape[1]) if j != i] for i in range(M.shape[0])]
    return sum(sum(r) ** 2 for r in rows)


add(G("r13_nested_comprehension_filter", nested_comp, (np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 0.7], [0.2, 0.1, 0.9]]),), ref="fd"))


def gen_helper(xs):
    for i, x in enumerate(xs):
        if i % 2 == 0:
            yield x * x
        else:
            yield -x


def use_gen_helper(xs):
    return sum(gen_helper(xs))


add(G("r13_generator_function_yield", use_gen_helper, (np.array([0.5, 1.0, -2.0]),),
      ref=lambda: np.array([1.0, -1.0, -4.0]), tol=1e-12))


def safe_log_ratio(x, y):
    try:
        r = math.log(x / y)
    except ValueError:
        r = -1e3 * (x / y)
    return r * r


add(G("r13_try_except_math_domain_ok", safe_log_ratio, (2.0, 0.5), argnums=(0, 1), ref="fd"))
add(G("r13_try_except_math_domain_err", safe_log_ratio, (-2.0, 0.5), argnums=(0, 1), ref="fd", h=1e-7))


def star_args(*xs, power=2, **opts):
    s = sum(x ** power for x in xs)
    return s * opts.get("scale", 1.0)


add(G("r13_star_args_kwargs", lambda a, b: star_args(a, b, 0.5 * a, power=3, scale=2.0), (0.7, -1.1), argnums=(0, 1), ref="fd"))


def kwonly(x, *, k=2.0, shift):
    return math.sin(k * x) + shift * x


add(G("r13_keyword_only_kw", kwonly, (0.3,), kw={"shift": 1.5}, ref="fd"))


SCALE = 2.0


def uses_global(x):
    return SCALE * x ** 2


def rebind_then_grad():
    global SCALE
    g1 = revsrc.grad(uses_global)(1.5)
    SCALE = 5.0
    g2 = revsrc.grad(uses_global)(1.5)
    SCALE = 2.0
    return (g1, g2)


add(pair("r13_global_rebound_between_calls", rebind_then_grad, lambda: (6.0, 15.0), tol=0.0))


def rebind_same_derivative():
    global SCALE
    d = revsrc.grad(uses_global)
    g1 = d(1.5)
    SCALE = 5.0
    g2 = d(1.5)
    SCALE = 2.0
    return (g1, g2)


add(pair("r13_global_rebound_same_derivative", rebind_same_derivative, lambda: (6.0, 15.0), tol=0.0))


def make_closures():
    fs = []
    for k in range(1, 4):
        fs.append(lambda x, k=k: k * x ** k)
    return fs


CLOS = make_closures()


def closures_sum(x):
    return CLOS[0](x) + CLOS[1](x) + CLOS[2](x)


add(G("r13_closures_made_in_loop_list", closures_sum, (0.5,), ref=lambda: 1 + 4 * 0.5 + 9 * 0.25, tol=1e-12))
CLOS_T = tuple(make_closures())


def closures_sum_t(x):
    return sum(f(x) for f in CLOS_T)


add(G("r13_closures_made_in_loop_tuple", closures_sum_t, (0.5,), ref=lambda: 1 + 4 * 0.5 + 9 * 0.25, tol=1e-12))


def make_scaled(a):
    def inner(x):
        return a * math.exp(x)
    return inner


EXP3 = make_scaled(3.0)
add(G("r13_closure_factory", EXP3, (0.2,), ref=lambda: 3 * math.exp(0.2), tol=1e-12))


def helper_chain(x):
    return _h1(x) + _h2(_h1(x))


def _h1(x):
    return x * math.cos(x)


def _h2(y, p=2):
    return y ** p


add(VG("r13_helpers_chain_default_int", helper_chain, (0.6,), ref="fd"))


def dict_comp_params(p):
    q = {k: v ** 2 for k, v in p.items() if k != "skip"}
    return sum(q.values()) * p["skip"]


add(G("r13_dict_comprehension_items", dict_comp_params, ({"a": 1.0, "b": -2.0, "skip": 0.5},),
      ref=lambda: {"a": 1.0, "b": -2.0, "skip": 5.0}, tol=1e-12))


def power_tower_if(x, n):
    if n == 0:
        return x
    return math.exp(0.1 * power_tower_if(x, n - 1)) * x


add(pair("r13_recursion_int_if_statement", lambda: revsrc.grad(power_tower_if)(0.7, 3),
         lambda: fd_checked(power_tower_if, (0.7, 3))[0], tol=1e-7))


def closures_sum_t_index(x):
    t = 0.0
    for i in range(3):
        t += CLOS_T[i](x)
    return t


add(G("r13_closures_tuple_by_index", closures_sum_t_index, (0.5,), ref=lambda: 1 + 4 * 0.5 + 9 * 0.25, tol=1e-12))


def construct_then_call(w):
    layer = Layer(0.7)
    return np.sum(layer(w, X3))


add(G("r13_construct_name_then_call", construct_then_call, (W23,), ref="fd"))
