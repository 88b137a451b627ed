"""Round 14, part h: Python styles -- callable classes with inheritance, properties, frozen
dataclasses with methods, NamedTuples, closures and factories, functools.partial,
default arguments, *args/**kwargs, recursion on ints, generators, tables of functions,
try/except, assert with f-strings, early returns, while with break/continue."""
import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


class Model:
    def __init__(self, scale):
        self.scale = scale

    def base(self, x):
        return np.sum(x ** 2)

    def __call__(self, x):
        return self.scale * self.base(x)


class Damped(Model):
    def base(self, x):
        return super().base(x) + np.sum(np.sin(x))


X3 = np.array([0.3, -0.7, 1.1])
MD = Damped(2.0)
add(VG("r14_callable_subclass_super", MD, (X3,), ref=lambda: 2.0 * (2 * X3 + np.cos(X3)), tol=1e-12))
add(G("r14_callable_object_inside_lambda", lambda x: MD(x) + Model(3.0)(x), (X3,),
      ref=lambda: 2.0 * (2 * X3 + np.cos(X3)) + 6 * X3, tol=1e-12))


class Spring:
    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    @property
    def stiffness2(self):
        return 2.0 * self.k

    def energy(self, x):
        return 0.25 * self.stiffness2 * (x - self.rest) ** 2


SPR = Spring(3.0, 1.0)
add(G("r14_property_in_method_bound", SPR.energy, (1.4,), ref=lambda: 3.0 * 0.4, tol=1e-12))


@dataclasses.dataclass(frozen=True)
class Gauss:
    mu: float
    log_sigma: float

    def logpdf(self, x):
        s = math.exp(self.log_sigma)
        return -0.5 * ((x - self.mu) / s) ** 2 - self.log_sigma - 0.5 * math.log(2 * math.pi)

    def shifted(self, d):
        return dataclasses.replace(self, mu=self.mu + d)


def gauss_ll(g, xs):
    return sum(g.logpdf(x) for x in xs)


GD0 = Gauss(0.5, -0.2)
XL = [0.1, 0.9, 1.4]


def _gauss_ref(mu, ls):
    s = math.exp(ls)
    return Gauss(sum((x - mu) / s ** 2 for x in XL), sum(((x - mu) / s) ** 2 - 1 for x in XL))


add(pair("r14_frozen_dataclass_wrt_fields", lambda: revsrc.grad(gauss_ll)(GD0, XL), lambda: _gauss_ref(0.5, -0.2), tol=1e-12))
add(pair("r14_frozen_dataclass_replace_method", lambda: revsrc.grad(lambda d: gauss_ll(GD0.shifted(d), XL))(0.3),
         lambda: _gauss_ref(0.8, -0.2).mu, tol=1e-12))


class Pt(NamedTuple):
    x: float
    y: float

    def r(self):
        return math.hypot(self.x, self.y)


def nt_loss(p, w=2.0):
    q = p._replace(x=p.x * w)
    return q.r() + p.y ** 2


add(pair("r14_namedtuple_replace_method", lambda: revsrc.grad(nt_loss)(Pt(0.6, 0.8)),
         lambda: Pt(2 * 1.2 / math.hypot(1.2, 0.8), 0.8 / math.hypot(1.2, 0.8) + 1.6), tol=1e-12))


def make_penalty(kind, c):
    if kind == "l1":
        def pen(x):
            return c * np.sum(np.abs(x))
    else:
        def pen(x):
            return c * np.sum(x ** 2)
    return pen


PEN1 = make_penalty("l1", 0.5)
PEN2 = make_penalty("l2", 0.25)
add(G("r14_closure_factory_l1", lambda x: PEN1(x) + PEN2(x), (X3,), ref=lambda: 0.5 * np.sign(X3) + 0.5 * X3, tol=1e-12))


def poly_eval(x, coeffs):
    return sum(c * x ** k for k, c in enumerate(coeffs))


POLY3 = functools.partial(poly_eval, coeffs=np.array([1.0, -2.0, 0.5, 0.25]))
add(pair("r14_partial_module_level_kw_array", lambda: revsrc.grad(POLY3)(1.5), lambda: -2.0 + 1.5 + 0.75 * 1.5 ** 2, tol=1e-12))
add(pair("r14_partial_vmap", lambda: revsrc.vmap(revsrc.grad(POLY3))(np.array([0.0, 1.0, 2.0])),
         lambda: np.array([-2.0 + x + 0.75 * x * x for x in (0.0, 1.0, 2.0)]), tol=1e-12))


def defaults_mutable(x, opts={"p": 3, "scale": 2.0}, extra=[1.0, 2.0]):
    return opts["scale"] * x ** opts["p"] + sum(e * x for e in extra)


add(pair("r14_default_dict_list", lambda: revsrc.grad(defaults_mutable)(1.2), lambda: 6.0 * 1.44 + 3.0, tol=1e-12))


def varargs_sum(*xs, weight=1.0, **named):
    s = 0.0
    for i, v in enumerate(xs):
        s += weight * (i + 1) * v * v
    for k in sorted(named):
        s += named[k] ** 3
    return s


add(pair("r14_varargs_kwargs_argnums", lambda: revsrc.grad(lambda a, b, c: varargs_sum(a, b, weight=0.5, z=c, y=a), argnums=(0, 1, 2))(1.0, 2.0, 3.0),
         lambda: (0.5 * 2 * 1.0 + 3.0, 0.5 * 4 * 2.0, 27.0), tol=1e-12))


def cheb(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return 2 * x * cheb(n - 1, x) - cheb(n - 2, x)


add(pair("r14_recursion_chebyshev_int", lambda: revsrc.grad(cheb, argnums=1)(6, 0.3),
         lambda: 6 * math.sin(6 * math.acos(0.3)) / math.sin(math.acos(0.3)), tol=1e-10))
add(pair("r14_recursion_chebyshev_hessian", lambda: revsrc.hessian(lambda x: cheb(5, x))(0.3),
         lambda: 16 * 20 * 0.3 ** 3 - 20 * 6 * 0.3, tol=1e-10))


def gen_moments(x):
    sq = (v * v for v in x)
    m2 = sum(sq) / len(x)
    m4 = sum(v ** 4 for v in x) / len(x)
    return m4 / m2 ** 2


add(G("r14_generator_kurtosis", gen_moments, (X3,), ref="ag", tol=1e-12))

ACTS = {"tanh": math.tanh, "soft": lambda z: math.log1p(math.exp(z)), "sq": lambda z: z * z}


def table_net(x, names):
    h = x
    for nm in names:
        h = ACTS[nm](h) + 0.1 * h
    return h


add(pair("r14_table_of_functions_dict", lambda: revsrc.grad(table_net)(0.4, ("tanh", "soft", "sq")),
         lambda: fd_checked(lambda x: table_net(x, ("tanh", "soft", "sq")), (0.4,))[0], tol=1e-8))


def safe_log_ratio(x, y):
    try:
        r = math.log(x / y)
    except ValueError:
        r = -10.0
    return r * x


add(pair("r14_try_except_ok_path", lambda: revsrc.grad(safe_log_ratio)(2.0, 3.0), lambda: math.log(2 / 3) + 1.0, tol=1e-12))
add(pair("r14_try_except_except_path", lambda: revsrc.grad(safe_log_ratio)(-2.0, 3.0), lambda: -10.0, tol=1e-12))


def checked_norm(x):
    n = float(np.linalg.norm(x))
    assert n > 0, f"zero vector {x!r} with norm {n:.3f}"
    assert x.shape == (3,), f"shape {x.shape}"
    return n


add(G("r14_assert_fstring_float_cast", checked_norm, (X3,), ref=lambda: X3 / np.linalg.norm(X3), tol=1e-12))


def first_crossing(x, level=0.5):
    acc = 0.0
    for i, v in enumerate(x):
        if v < 0:
            continue
        acc += v * (i + 1)
        if acc > level:
            return acc * v
    return acc


XC5 = np.array([0.1, -0.3, 0.05, 0.2, 0.9])
add(G("r14_early_return_continue", first_crossing, (XC5,), ref="fd", tol=1e-8))


def while_break_continue(x):
    i, s = 0, 0.0
    while True:
        i += 1
        if i % 2 == 0:
            continue
        s = s + math.sin(x * i)
        if i > 7:
            break
    return s


add(pair("r14_while_true_break_continue", lambda: revsrc.grad(while_break_continue)(0.3),
         lambda: sum(i * math.cos(0.3 * i) for i in (1, 3, 5, 7, 9)), tol=1e-12))


class Counter:
    total = 0.0

    @staticmethod
    def f(x):
        return x ** 3

    @classmethod
    def g(cls, x):
        return cls.f(x) + 2.0 * x


add(pair("r14_staticmethod_classmethod", lambda: revsrc.grad(Counter.g)(1.5), lambda: 3 * 2.25 + 2.0, tol=1e-12))


def lambda_default_capture(x):
    fs = [lambda z, k=k: z ** k for k in range(1, 4)]
    return sum(f(x) for f in fs)


add(pair("r14_lambda_default_capture_comprehension", lambda: revsrc.grad(lambda_default_capture)(1.5),
         lambda: 1 + 2 * 1.5 + 3 * 2.25, tol=1e-12))


def walrus_free_match(x, mode):
    if mode == "a":
        return x * x
    elif mode in ("b", "c"):
        return math.sin(x)
    return -x


add(pair("r14_string_mode_branches", lambda: [revsrc.grad(walrus_free_match)(0.5, m) for m in "abz"],
         lambda: [1.0, math.cos(0.5), -1.0], tol=1e-12))
