"""Round 9, Python style variety (2): NamedTuple and dataclass states carried through
loops, Enum switches, closures and factories, decorators, lambdas in a dict, global
tables, classes (inheritance, properties, staticmethod, classmethod, __call__), and a
global rebound between calls of one derivative."""
import dataclasses
import enum
import functools
import math
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


class State(NamedTuple):
    x: float
    v: float


def step(s, k, dt):
    a = -k * s.x
    v = s.v + dt * a
    return State(s.x + dt * v, v)


def nt_sim(k):
    s = State(1.0, 0.0)
    for _ in range(100):
        s = step(s, k, 0.05)
    return s.x + 0.1 * s.v


CASES.append(G("r9_namedtuple_state_loop", nt_sim, (2.0,), ref="jax"))


def nt_replace(k):
    s = State(1.0, 0.0)
    for _ in range(50):
        s = s._replace(v=s.v - 0.05 * k * s.x)
        s = s._replace(x=s.x + 0.05 * s.v)
    return s.x


CASES.append(G("r9_namedtuple_replace_loop", nt_replace, (2.0,), ref="ag"))


@dataclasses.dataclass
class Particle:
    pos: np.ndarray
    vel: np.ndarray
    mass: float = 1.0


def dc_sim(g):
    p = Particle(np.array([0.0, 10.0]), np.array([2.0, 0.0]))
    for _ in range(40):
        acc = np.array([0.0, -g]) - 0.1 * p.vel / p.mass
        p = Particle(p.pos + 0.02 * p.vel, p.vel + 0.02 * acc, p.mass)
    return p.pos[1]


CASES.append(G("r9_dataclass_state_rebuilt", dc_sim, (9.81,), ref="jax"))


def dc_param(p):
    return np.sum(p.pos ** 2) * p.mass + np.sum(p.vel)


_part = Particle(np.array([1.0, 2.0]), np.array([0.5, -0.5]), 3.0)
CASES.append(pair("r9_dataclass_argument_grad",
                  lambda: revsrc.grad(dc_param)(_part),
                  lambda: Particle(np.array([6.0, 12.0]), np.array([1.0, 1.0]), 5.0)))


def dc_replace(p):
    q = dataclasses.replace(p, mass=p.mass * 2)
    return q.mass * np.sum(q.pos)


CASES.append(pair("r9_dataclasses_replace",
                  lambda: revsrc.grad(dc_replace)(_part),
                  lambda: Particle(np.array([6.0, 6.0]), np.array([0.0, 0.0]), 6.0)))


class Act(enum.Enum):
    TANH = 1
    RELU = 2
    SOFTPLUS = 3


def activate(x, kind):
    if kind is Act.TANH:
        return np.tanh(x)
    elif kind == Act.RELU:
        return np.maximum(x, 0.0)
    return np.log1p(np.exp(x))


def enum_net(w, kind=Act.SOFTPLUS):
    x = np.array([0.5, -1.0, 2.0])
    return np.sum(activate(w * x, kind) ** 2)


CASES.append(G("r9_enum_switch_softplus", enum_net, (0.7,), ref="jax"))
CASES.append(G("r9_enum_switch_tanh", enum_net, (0.7, Act.TANH), ref="jax"))
CASES.append(G("r9_enum_switch_relu", enum_net, (0.7, Act.RELU), ref="jax"))


def make_poly(coeffs):
    def p(x):
        return sum(c * x ** i for i, c in enumerate(coeffs))
    return p


CUBIC = make_poly([1.0, -2.0, 0.5, 0.25])


def use_factory(x):
    return CUBIC(x) * math.exp(-x)


CASES.append(G("r9_closure_factory_global", use_factory, (0.9,), ref="jax"))


def factory_inside(a):
    def scaled(f):
        return lambda t: a * f(t)
    g = scaled(math.sin)
    return g(1.2) + g(0.3)


CASES.append(G("r9_closure_factory_inside_function", factory_inside, (2.0,), ref=lambda: math.sin(1.2) + math.sin(0.3), tol=1e-12))


def twice(f):
    @functools.wraps(f)
    def wrapper(x):
        return f(f(x))
    return wrapper


@twice
def half_sin(x):
    return 0.5 * math.sin(x)


CASES.append(G("r9_decorator_wraps_composition", half_sin, (0.8,), ref=lambda: 0.25 * math.cos(0.5 * math.sin(0.8)) * math.cos(0.8), tol=1e-12))


def log_calls(f):
    def inner(*args, **kw):
        return f(*args, **kw)
    return inner


@log_calls
def decorated_loss(w, b=0.5):
    return (w * 2.0 + b - 1.0) ** 2


CASES.append(G("r9_decorator_star_args_passthrough", decorated_loss, (0.3,), ref=lambda: 2 * (0.6 + 0.5 - 1.0) * 2, tol=1e-12))

LOSSES = {
    "l2": lambda r: r * r,
    "huber": lambda r: 0.5 * r * r if abs(r) < 1.0 else abs(r) - 0.5,
    "cauchy": lambda r: math.log1p(r * r),
}


def robust_fit(theta, kind="huber"):
    xs = [0.0, 1.0, 2.0, 3.0, 4.0]
    ys = [0.1, 0.9, 2.2, 2.8, 9.0]
    rho = LOSSES[kind]
    return sum(rho(y - theta * x) for x, y in zip(xs, ys))


CASES.append(G("r9_lambdas_in_global_dict_huber", robust_fit, (0.9,), ref="fd"))
CASES.append(G("r9_lambdas_in_global_dict_cauchy", robust_fit, (0.9, "cauchy"), ref="fd"))


def robust_fit_literal_key(theta):
    return sum(LOSSES["cauchy"](y - theta * x) for x, y in [(1.0, 0.9), (2.0, 2.2), (4.0, 9.0)])


CASES.append(G("r9_lambdas_in_global_dict_literal_key", robust_fit_literal_key, (0.9,), ref="fd"))

ONE_LINE = {"sq": lambda r: r * r, "lc": lambda r: math.log1p(r * r)}


def one_line_dict(x):
    return ONE_LINE["sq"](x) + ONE_LINE["lc"](x)


CASES.append(G("r9_two_lambdas_on_one_line_in_dict", one_line_dict, (0.5,), ref=lambda: 1.0 + 1.0 / 1.25, tol=1e-12))

STEEL = {"E": 210e9, "nu": 0.3}
SECTIONS = [(0.1, 0.2), (0.15, 0.3)]


def table_stress(load):
    out = 0.0
    for b, h in SECTIONS:
        I = b * h ** 3 / 12
        out += load * 2.0 * (h / 2) / I / STEEL["E"] * (1 + STEEL["nu"])
    return out


CASES.append(G("r9_global_tables_tuple_list_dict", table_stress, (1e4,), ref="jax"))


class Model:
    def __init__(self, scale):
        self.scale = scale

    @property
    def gain(self):
        return 2.0 * self.scale

    @staticmethod
    def nonlin(z):
        return np.tanh(z)

    def __call__(self, w, x):
        return np.sum(self.nonlin(self.gain * w * x))


class Shifted(Model):
    def __init__(self, scale, shift):
        super().__init__(scale)
        self.shift = shift

    def __call__(self, w, x):
        return super().__call__(w, x) + self.shift * np.sum(w ** 2)


_model = Shifted(0.5, 0.3)
_x3 = np.array([0.2, -0.4, 1.0])


def use_model(w):
    return _model(w, _x3)


CASES.append(G("r9_class_inheritance_super_property_static", use_model, (np.array([0.5, 1.0, -0.3]),), ref="fd"))
CASES.append(G("r9_callable_object_directly", _model, (np.array([0.5, 1.0, -0.3]), _x3), ref="fd"))


class Integrator:
    steps = 50

    @classmethod
    def run(cls, k, x0):
        x = x0
        for _ in range(cls.steps):
            x = x - 0.02 * k * x ** 3
        return x


def classmethod_user(k):
    return Integrator.run(k, 1.0)


CASES.append(G("r9_classmethod_class_attribute", classmethod_user, (1.5,), ref="jax"))


class Spring:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return 0.5 * self.k * x * x


def bound_method_grad(x):
    s = Spring(3.0)
    return s.energy(x) + Spring(1.0).energy(x - 1)


CASES.append(G("r9_objects_built_inside", bound_method_grad, (0.4,), ref=lambda: 3 * 0.4 + (0.4 - 1), tol=1e-12))
CASES.append(G("r9_bound_method_as_function", Spring(2.5).energy, (0.8,), ref=lambda: 2.0, tol=1e-12))

DAMPING = 0.1


def damped(x):
    return math.exp(-DAMPING * x) * math.sin(x)


_damped_g = revsrc.grad(damped)


def _rebind_run():
    global DAMPING
    a = _damped_g(1.0)
    DAMPING = 0.5
    try:
        b = _damped_g(1.0)
    finally:
        DAMPING = 0.1
    return (a, b)


def _rebind_ref():
    out = []
    for d in (0.1, 0.5):
        out.append(math.exp(-d) * (math.cos(1.0) - d * math.sin(1.0)))
    return tuple(out)


CASES.append(pair("r9_global_float_rebound_between_calls", _rebind_run, _rebind_ref))

ACT = np.tanh


def act_loss(w):
    return np.sum(ACT(w * np.array([0.3, 0.6])))


_act_g = revsrc.grad(act_loss)


def _rebind_fn_run():
    global ACT
    a = _act_g(1.2)
    ACT = np.sin
    try:
        b = _act_g(1.2)
    finally:
        ACT = np.tanh
    return (a, b)


def _rebind_fn_ref():
    x = np.array([0.3, 0.6])
    return (np.sum(x / np.cosh(1.2 * x) ** 2), np.sum(x * np.cos(1.2 * x)))


CASES.append(pair("r9_global_function_rebound_between_calls", _rebind_fn_run, _rebind_fn_ref))


def partial_user(x):
    f = functools.partial(math.pow, x)
    return f(3.0) + f(0.5)


CASES.append(G("r9_partial_of_math_pow_inside", partial_user, (1.7,), ref=lambda: 3 * 1.7 ** 2 + 0.5 / math.sqrt(1.7), tol=1e-12))
