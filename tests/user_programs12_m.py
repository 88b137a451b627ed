"""Round 12, part m: Python as users write it around numerical code -- class attributes,
decorators, sorted/max with key, divmod and %, floor/round, dict comprehensions,
dispatch by string keys, try/except paths, methods replaced on the class."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


class Planet:
    G = 1.0                 # a class attribute

    def __init__(self, m):
        self.m = m

    def potential(self, r):
        return -self.G * self.m / r


def class_attr_changed():
    p = Planet(2.0)
    df = revsrc.grad(p.potential)
    a = df(2.0)
    Planet.G = 3.0
    try:
        b = df(2.0)
    finally:
        Planet.G = 1.0
    return [a, b]


add(pair("r12_class_attribute_changed", class_attr_changed, lambda: [0.5, 1.5], tol=0.0))


def class_method_replaced():
    p = Planet(2.0)

    def f(r):
        return p.potential(r) * r
    df = revsrc.grad(f)
    a = df(2.0)
    old = Planet.potential
    Planet.potential = lambda self, r: -self.m / (r * r)
    try:
        b = df(2.0)
    finally:
        Planet.potential = old
    return [a, b]


add(pair("r12_method_replaced_on_class", class_method_replaced, lambda: [0.0, 2.0 / 4.0], tol=0.0))


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


@logged
def decorated(x, y):
    return x * math.exp(y)


add(pair("r12_functools_wraps_decorator", lambda: revsrc.grad(decorated, argnums=(0, 1))(2.0, 0.5),
         lambda: (math.exp(0.5), 2 * math.exp(0.5)), tol=1e-15))


def scaled_by(k):
    def deco(fn):
        def inner(x):
            return k * fn(x)
        return inner
    return deco


@scaled_by(3.0)
def sq(x):
    return x * x


add(pair("r12_decorator_factory_closure", lambda: revsrc.grad(sq)(1.5), lambda: 9.0, tol=0.0))


def top2_sorted(xs):
    s = sorted(xs, key=lambda v: -abs(v))
    return s[0] * s[1]


add(pair("r12_sorted_with_key_lambda", lambda: revsrc.grad(top2_sorted)([0.5, -3.0, 2.0, 1.0]),
         lambda: [0.0, 2.0, -3.0, 0.0], tol=0.0))


def max_by_key(pts):
    best = max(pts, key=lambda p: p[0] ** 2 + p[1] ** 2)
    return best[0] * best[1]


add(pair("r12_max_key_tuples", lambda: revsrc.grad(max_by_key)([(1.0, 2.0), (3.0, -1.0), (0.5, 0.5)]),
         lambda: [(0.0, 0.0), (-1.0, 3.0), (0.0, 0.0)], tol=0.0))


def wrap_phase(theta):
    t = theta % (2 * math.pi)
    q, r = divmod(theta, 1.0)
    return math.sin(t) * t + r * r + q


add(pair("r12_mod_and_divmod", lambda: revsrc.grad(wrap_phase)(7.3),
         lambda: (lambda t: math.cos(t) * t + math.sin(t))(7.3 % (2 * math.pi)) + 2 * (7.3 % 1.0), tol=1e-12))


def wrap_mod_only(theta):
    t = theta % (2 * math.pi)
    return math.sin(t) * t


add(pair("r12_float_mod_only", lambda: revsrc.grad(wrap_mod_only)(7.3),
         lambda: (lambda t: math.cos(t) * t + math.sin(t))(7.3 % (2 * math.pi)), tol=1e-12))


def np_mod_array(x):
    return np.sum(np.mod(x, 1.0) ** 2 + np.floor(x))


add(pair("r12_np_mod_floor_array", lambda: revsrc.grad(np_mod_array)(np.array([1.25, -0.5, 3.75])),
         lambda: 2 * np.mod(np.array([1.25, -0.5, 3.75]), 1.0), tol=1e-15))


def quantize(x, step=0.25):
    return round(x / step) * step + math.floor(x) * x + math.ceil(x)


add(pair("r12_round_floor_ceil", lambda: revsrc.grad(quantize)(1.3), lambda: 1.0, tol=0.0))


def activations(x, kind):
    table = {"relu": lambda v: max(v, 0.0), "tanh": math.tanh, "soft": lambda v: math.log1p(math.exp(v))}
    return table[kind](x)


add(pair("r12_dict_of_lambdas_local_dispatch", lambda: [revsrc.grad(activations)(0.4, k) for k in ("relu", "tanh", "soft")],
         lambda: [1.0, 1 - math.tanh(0.4) ** 2, 1 / (1 + math.exp(-0.4))], tol=1e-15))

LOSSES = {"l2": lambda r: r * r, "l1": lambda r: abs(r), "huber": lambda r: 0.5 * r * r if abs(r) < 1 else abs(r) - 0.5}


def robust(r, kind):
    rho = LOSSES[kind]
    return rho(r)


add(pair("r12_global_dict_dispatch_runtime_key", lambda: [revsrc.grad(robust)(-2.0, k) for k in ("l2", "l1", "huber")],
         lambda: [-4.0, -1.0, -1.0], tol=0.0))


def try_path(x):
    try:
        y = math.log(x)
    except ValueError:
        y = -x * x
    return y * 2


add(pair("r12_try_except_both_paths", lambda: [revsrc.grad(try_path)(2.0), revsrc.grad(try_path)(-1.5)], lambda: [1.0, 6.0], tol=0.0))


def dict_comprehension_energy(x):
    terms = {f"t{k}": x ** k / math.factorial(k) for k in range(6)}
    return sum(terms.values()) - terms["t0"]


add(pair("r12_dict_comprehension_values", lambda: revsrc.grad(dict_comprehension_energy)(0.7),
         lambda: sum(0.7 ** k / math.factorial(k) for k in range(5)), tol=1e-15))


def chained_compare(x):
    if 0.0 < x < 1.0:
        return x ** 2
    elif 1.0 <= x < 2.0:
        return 2 * x - 1
    return math.log(x) + 3 - math.log(2.0)


add(pair("r12_chained_comparisons", lambda: [revsrc.grad(chained_compare)(v) for v in (0.5, 1.5, 3.0)], lambda: [1.0, 2.0, 1 / 3], tol=1e-15))


def reversed_enumerate(xs):
    acc = 0.0
    for i, v in reversed(list(enumerate(xs))):
        acc = acc * 0.5 + (i + 1) * v
    return acc


add(pair("r12_reversed_enumerate", lambda: revsrc.grad(reversed_enumerate)([1.0, 2.0, 3.0]),
         lambda: [1.0, 2 * 0.5, 3 * 0.25], tol=0.0))


def zip_strict_dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


add(pair("r12_zip_strict", lambda: revsrc.grad(zip_strict_dot)([1.0, 2.0], [3.0, 4.0]), lambda: [3.0, 4.0], tol=0.0))


def star_args_helper(*vals):
    return math.prod(vals) if False else vals[0] * vals[1] * vals[2]


def calls_star(x):
    parts = (x, x + 1.0, 2.0)
    return star_args_helper(*parts)


add(pair("r12_star_args_known_length", lambda: revsrc.grad(calls_star)(1.5), lambda: 2 * (2 * 1.5 + 1), tol=0.0))


def kwargs_helper(x, **opts):
    return x * opts.get("a", 1.0) + opts.get("b", 0.0) * x ** 2


def calls_kwargs(x):
    return kwargs_helper(x, a=3.0) + kwargs_helper(x, b=x)


add(pair("r12_kwargs_get_defaults", lambda: revsrc.grad(calls_kwargs)(2.0), lambda: 3.0 + 1.0 + 3 * 4.0, tol=0.0))


def assert_and_fstring(x):
    assert x > 0, f"x must be positive, got {x}"
    msg = f"{x:.3f}"
    return x * len(msg)


add(pair("r12_assert_fstring_len", lambda: revsrc.grad(assert_and_fstring)(2.5), lambda: 5.0, tol=0.0))


def isinstance_branch(x):
    if isinstance(x, np.ndarray):
        return np.sum(x ** 2)
    return x ** 3


add(pair("r12_isinstance_branch", lambda: [revsrc.grad(isinstance_branch)(np.array([1.0, 2.0])), revsrc.grad(isinstance_branch)(2.0)],
         lambda: [np.array([2.0, 4.0]), 12.0], tol=0.0))


def partial_inside(x):
    f = functools.partial(math.pow, x)
    return f(3.0) + functools.partial(kwargs_helper, a=2.0)(x)


add(pair("r12_partial_made_inside", lambda: revsrc.grad(partial_inside)(1.5), lambda: 3 * 2.25 + 2.0, tol=1e-15))


def lru_helper_user(x):
    return x * _coef(3) + _coef(2)


@functools.lru_cache(maxsize=None)
def _coef(n):
    return float(n * n)


add(pair("r12_lru_cache_helper", lambda: revsrc.grad(lru_helper_user)(1.0), lambda: 9.0, tol=0.0))


def local_tuple_of_functions(x):
    fs = (math.sin, math.cos)
    return fs[0](x) + fs[1](x)


add(pair("r12_local_tuple_of_functions", lambda: revsrc.grad(local_tuple_of_functions)(0.3),
         lambda: math.cos(0.3) - math.sin(0.3), tol=1e-15))


def local_dict_of_lambdas_no_capture(x, kind):
    table = {"sq": lambda v: v * v, "cube": lambda v: v * v * v}
    return table[kind](x)


add(pair("r12_local_dict_of_lambdas_no_capture", lambda: revsrc.grad(local_dict_of_lambdas_no_capture)(1.5, "cube"),
         lambda: 3 * 2.25, tol=1e-15))


def map_filter_inline(xs):
    return sum(map(lambda v: v * v, filter(lambda v: v > 0, xs)))


add(pair("r12_map_filter_inline", lambda: revsrc.grad(map_filter_inline)([1.0, -2.0, 3.0]), lambda: [2.0, 0.0, 6.0], tol=0.0))


def map_filter(xs):
    pos = filter(lambda v: v > 0, xs)
    return sum(map(lambda v: v * v, pos))


add(pair("r12_map_filter_lambdas", lambda: revsrc.grad(map_filter)([1.0, -2.0, 3.0]), lambda: [2.0, 0.0, 6.0], tol=0.0))


# -- version-compatibility code: the arm for another NumPy version never runs here
def trapz_compat_ternary(x):
    return np.trapezoid(x ** 2, dx=0.1) if hasattr(np, "trapezoid") else np.trapz(x ** 2, dx=0.1)


def trapz_compat_if(x):
    if hasattr(np, "trapezoid"):
        return np.trapezoid(x ** 2, dx=0.1)
    return np.trapz(x ** 2, dx=0.1)


def trapz_only(x):
    return np.trapezoid(x ** 2, dx=0.1)


XT = np.array([-0.5, 3.0, 0.4])
TRAP_REF = np.array([-0.05, 0.6, 0.04])
add(pair("r12_trapezoid", lambda: revsrc.grad(trapz_only)(XT), lambda: TRAP_REF, tol=1e-15))
add(pair("r12_version_compat_ternary_hasattr", lambda: revsrc.grad(trapz_compat_ternary)(XT), lambda: TRAP_REF, tol=1e-15))
add(pair("r12_version_compat_if_hasattr", lambda: revsrc.grad(trapz_compat_if)(XT), lambda: TRAP_REF, tol=1e-15))
