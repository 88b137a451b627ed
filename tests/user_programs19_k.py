"""Round 19, part k: Python styles not yet common in the corpus -- callable objects with
__call__, staticmethod and classmethod constructors, abstract base classes, enum-driven
dispatch, functools.lru_cache on integer helpers, *args/**kwargs forwarding, keyword-only
arguments, nonlocal accumulators, generator functions and expressions, dict dispatch
tables, recursion decided by ints and by values, in physics and ML losses."""
import abc
import enum
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(4019)
XK = _rng.normal(size=(8, 3))
YK = XK @ np.array([0.5, -1.0, 0.25]) + 0.1 * _rng.normal(size=8)
WK = np.array([0.2, -0.4, 0.1])


# -- a callable loss object with a staticmethod and a classmethod -------------------------

class RidgeLoss:
    def __init__(self, lam, X, y):
        self.lam, self.X, self.y = lam, X, y

    @staticmethod
    def sq(r):
        return r * r

    @classmethod
    def default(cls, X, y):
        return cls(0.1, X, y)

    def __call__(self, w):
        r = self.X @ w - self.y
        return np.mean(self.sq(r)) + self.lam * w @ w


RIDGE = RidgeLoss.default(XK, YK)


def _ridge_grad():
    return 2 * XK.T @ (XK @ WK - YK) / 8 + 0.2 * WK


add(pair("r19k_callable_object_staticmethod", lambda: revsrc.grad(RIDGE)(WK), _ridge_grad,
         tol=1e-12))


def ridge_built_by_classmethod(w, X=XK, y=YK):
    return RidgeLoss.default(X, y)(w)


add(G("r19k_classmethod_constructor_inside", ridge_built_by_classmethod, (WK,),
      ref=_ridge_grad, tol=1e-12))
add(H("r19k_callable_object_hessian", RIDGE, (WK,),
      ref=lambda: 2 * XK.T @ XK / 8 + 0.2 * np.eye(3), tol=1e-12))


# -- abstract base class with subclasses for activation functions -------------------------

class Activation(abc.ABC):
    @abc.abstractmethod
    def __call__(self, z):
        ...

    def deriv_free_name(self):
        return type(self).__name__


class Softplus(Activation):
    def __call__(self, z):
        return np.logaddexp(0.0, z)


class Swish(Activation):
    def __init__(self, beta=1.0):
        self.beta = beta

    def __call__(self, z):
        return z / (1.0 + np.exp(-self.beta * z))


def mlp_loss(params, act_name="swish"):
    act = Swish(1.5) if act_name == "swish" else Softplus()
    W1, b1, w2 = params
    h = act(XK @ W1 + b1)
    return np.mean((h @ w2 - YK) ** 2)


P_MLP = (0.3 * _rng.normal(size=(3, 4)), np.zeros(4), 0.5 * np.ones(4))
add(G("r19k_abc_subclass_swish", mlp_loss, (P_MLP,), ref="fd", tol=1e-8))
add(G("r19k_abc_subclass_softplus", mlp_loss, (P_MLP, "softplus"), ref="fd", tol=1e-8))



def mlp_loss_if_stmt(params, act_name="swish"):
    if act_name == "swish":
        act = Swish(1.5)
    else:
        act = Softplus()
    W1, b1, w2 = params
    h = act(XK @ W1 + b1)
    return np.mean((h @ w2 - YK) ** 2)


def mlp_loss_one_class(params):
    act = Swish(1.5)
    W1, b1, w2 = params
    return np.mean((act(XK @ W1 + b1) @ w2 - YK) ** 2)


add(G("r19k_abc_subclass_chosen_by_if", mlp_loss_if_stmt, (P_MLP,), ref="fd", tol=1e-8))
add(G("r19k_abc_subclass_unconditional", mlp_loss_one_class, (P_MLP,), ref="fd", tol=1e-8))


def mlp_abstract_built(params):
    act = Activation()
    return np.sum(act(params[0]))


# misuse: Python raises TypeError (an abstract class); revsrc should refuse (E105)
add(pair("r19k_abc_abstract_instantiated", lambda: revsrc.grad(mlp_abstract_built)(P_MLP),
         lambda: None))


# -- enum-driven dispatch -------------------------------------------------------------

class Penalty(enum.Enum):
    L1 = "l1"
    L2 = "l2"
    ELASTIC = "elastic"


def penalty(w, kind, alpha=0.5):
    if kind is Penalty.L1:
        return np.sum(np.abs(w))
    elif kind is Penalty.L2:
        return 0.5 * np.sum(w ** 2)
    return alpha * np.sum(np.abs(w)) + (1 - alpha) * 0.5 * np.sum(w ** 2)


def reg_loss(w, kind=Penalty.ELASTIC):
    return np.mean((XK @ w - YK) ** 2) + 0.3 * penalty(w, kind)


add(G("r19k_enum_is_dispatch_elastic", reg_loss, (WK,), ref="jax", tol=1e-12))
add(G("r19k_enum_is_dispatch_l1", reg_loss, (WK, Penalty.L1), ref="jax", tol=1e-12))


class Integrator(enum.IntEnum):
    EULER = 1
    MIDPOINT = 2
    RK4 = 4


def _f_osc(y, k):
    return np.array([y[1], -k * y[0] - 0.1 * y[1]])


def integrate(k, method=Integrator.RK4, n=20, dt=0.05):
    y = np.array([1.0, 0.0])
    for _ in range(n):
        if method == Integrator.EULER:
            y = y + dt * _f_osc(y, k)
        elif method == Integrator.MIDPOINT:
            y = y + dt * _f_osc(y + 0.5 * dt * _f_osc(y, k), k)
        else:
            k1 = _f_osc(y, k)
            k2 = _f_osc(y + 0.5 * dt * k1, k)
            k3 = _f_osc(y + 0.5 * dt * k2, k)
            k4 = _f_osc(y + dt * k3, k)
            y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0]


add(G("r19k_intenum_integrator_rk4", integrate, (2.0,), ref="ag", tol=1e-12))
add(G("r19k_intenum_integrator_midpoint", integrate, (2.0, Integrator.MIDPOINT), ref="ag",
      tol=1e-12))


# -- dict dispatch tables ---------------------------------------------------------------

LOSSES = {
    "mse": lambda r: np.mean(r ** 2),
    "mae_smooth": lambda r: np.mean(np.sqrt(r ** 2 + 1e-3)),
    "cauchy": lambda r: np.mean(np.log1p(r ** 2)),
}


def dispatched_loss(w, name):
    rho = LOSSES[name]
    return rho(XK @ w - YK)


for _nm in ("mse", "mae_smooth", "cauchy"):
    add(G(f"r19k_dict_dispatch_lambda_{_nm}", dispatched_loss, (WK, _nm), ref="fd", tol=1e-8))


def _tanh(z):
    return np.tanh(z)


def _relu_soft(z):
    return np.log1p(np.exp(z))


ACTS = {"tanh": _tanh, "softplus": _relu_soft}


def stacked(w, names=("tanh", "softplus", "tanh")):
    h = XK @ w
    for nm in names:
        h = ACTS[nm](h)
    return np.sum(h)


add(G("r19k_dict_of_functions_loop_keys", stacked, (WK,), ref="fd", tol=1e-8))


# -- lru_cache on an integer helper ----------------------------------------------------

@functools.lru_cache(maxsize=None)
def legendre_coeffs(n):
    # coefficients of P_n by Bonnet's recursion (ints only)
    if n == 0:
        return (1.0,)
    if n == 1:
        return (0.0, 1.0)
    a, b = legendre_coeffs(n - 1), legendre_coeffs(n - 2)
    out = [0.0] * (n + 1)
    for i, c in enumerate(a):
        out[i + 1] += (2 * n - 1) * c / n
    for i, c in enumerate(b):
        out[i] -= (n - 1) * c / n
    return tuple(out)


def legendre_series(c, x=np.linspace(-1, 1, 7)):
    total = np.zeros_like(x)
    for n, cn in enumerate(c):
        total = total + cn * np.polyval(legendre_coeffs(n)[::-1], x)
    return np.sum(total ** 2)


C_LEG = np.array([0.5, -0.2, 0.3, 0.1])
add(G("r19k_lru_cache_int_helper", legendre_series, (C_LEG,), ref="fd", tol=1e-8))


def legendre_series_const_range(c, x=np.linspace(-1, 1, 7)):
    total = np.zeros_like(x)
    for n in range(4):
        total = total + c[n] * np.polyval(legendre_coeffs(n)[::-1], x)
    return np.sum(total ** 2)


add(G("r19k_lru_cache_int_helper_const_range", legendre_series_const_range, (C_LEG,), ref="fd",
      tol=1e-8))


# -- *args / **kwargs forwarding, keyword-only arguments --------------------------------

def log_wrapper(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner


@log_wrapper
def gaussian_nll(mu, log_s, *, data=YK, prior_scale=10.0):
    s = np.exp(log_s)
    return np.sum(0.5 * ((data - mu) / s) ** 2 + log_s) + 0.5 * (mu / prior_scale) ** 2


add(G("r19k_wrapped_kwonly_defaults", gaussian_nll, (0.2, -0.5), argnums=(0, 1), ref="fd",
      tol=1e-8))
add(G("r19k_wrapped_kwonly_passed", gaussian_nll, (0.2, -0.5), argnums=1, ref="fd", tol=1e-8,
      kw={"prior_scale": 2.0}))


def total_energy(*terms, **weights):
    return sum(weights.get(f"w{i}", 1.0) * t for i, t in enumerate(terms))


def physics(x):
    return total_energy(np.sum(x ** 2), np.sum(np.sin(x)), x[0] * x[1], w1=0.5, w2=2.0)


add(G("r19k_star_args_double_star_kwargs_get", physics, (WK,), ref="jax", tol=1e-12))


def summed(*xs):
    return sum(np.sum(v ** 3) for v in xs)


def star_call(w):
    parts = (w, 2 * w, w[:2])
    return summed(*parts)


add(G("r19k_star_tuple_known_length", star_call, (WK,), ref="jax", tol=1e-12))


# -- nonlocal accumulators and closures ------------------------------------------------

def make_counter_loss(X, y):
    calls = 0

    def loss(w):
        nonlocal calls
        calls += 1
        return np.mean((X @ w - y) ** 2)
    return loss


add(G("r19k_nonlocal_call_counter", make_counter_loss(XK, YK), (WK,), ref="fd", tol=1e-8))


def path_length(pts):
    total = 0.0

    def seg(a, b):
        return np.sqrt(np.sum((a - b) ** 2))
    for a, b in zip(pts[:-1], pts[1:]):
        total += seg(a, b)
    return total


add(G("r19k_inner_def_helper_path_length", path_length, (XK[:5],), ref="jax", tol=1e-12))


# -- generators -------------------------------------------------------------------------

def windows(x, k):
    for i in range(len(x) - k + 1):
        yield x[i:i + k]


def moving_avg_energy(x):
    return sum(np.mean(w) ** 2 for w in windows(x, 3))


add(G("r19k_generator_function_windows", moving_avg_energy, (YK,), ref="fd", tol=1e-8))


def moving_avg_genexp(x, k=3):
    return sum(np.mean(x[i:i + k]) ** 2 for i in range(len(x) - k + 1))


add(G("r19k_generator_expression_windows", moving_avg_genexp, (YK,), ref="jax", tol=1e-12))


# -- recursion ---------------------------------------------------------------------------

def chebyshev(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return 2 * x * chebyshev(n - 1, x) - chebyshev(n - 2, x)


def cheb_sum(x):
    return chebyshev(5, x) + 0.5 * chebyshev(3, x)


add(G("r19k_recursion_on_int_chebyshev", cheb_sum, (0.37,),
      ref=lambda: 5 * math.sin(5 * math.acos(0.37)) / math.sqrt(1 - 0.37 ** 2)
      + 0.5 * 3 * math.sin(3 * math.acos(0.37)) / math.sqrt(1 - 0.37 ** 2), tol=1e-10))


def bisect_root(f_c, lo, hi, depth):
    mid = 0.5 * (lo + hi)
    if depth == 0:
        return mid
    if (mid ** 3 - f_c) * (lo ** 3 - f_c) <= 0:
        return bisect_root(f_c, lo, mid, depth - 1)
    return bisect_root(f_c, mid, hi, depth - 1)


def cube_root_by_recursion(c):
    return bisect_root(c, 0.0, 3.0, 9)


add(G("r19k_recursion_value_dependent_branch", cube_root_by_recursion, (2.0,),
      ref=lambda: 0.0, tol=1e-12))


def tree_energy(node, x):
    # a nested tuple tree: (weight, left, right) or a leaf index
    if isinstance(node, int):
        return x[node] ** 2
    w, left, right = node
    return w * (tree_energy(left, x) + tree_energy(right, x))


TREE = (0.5, (2.0, 0, 1), (1.5, 2, (3.0, 0, 2)))


def tree_loss(x):
    return tree_energy(TREE, x)


add(G("r19k_recursion_on_constant_tree", tree_loss, (WK,),
      ref="fd", tol=1e-8))


# -- a property-based model with a __call__ and operator overloading ------------------------

class Poly:
    __array_ufunc__ = None

    def __init__(self, c):
        self.c = c

    def __call__(self, x):
        return sum(ci * x ** i for i, ci in enumerate(self.c))

    def __add__(self, other):
        return Poly([a + b for a, b in zip(self.c, other.c)])

    def __rmul__(self, s):
        return Poly([s * a for a in self.c])

    @property
    def degree(self):
        return len(self.c) - 1


def poly_fit_loss(c, xs=np.linspace(-1, 1, 9)):
    p = Poly([c[0], c[1], c[2]])
    q = Poly([1.0, 0.0, -0.5])
    r = 2.0 * p + q
    return np.sum((r(xs) - np.cos(xs)) ** 2) / r.degree


add(G("r19k_poly_operator_overloading_rmul", poly_fit_loss, (WK,), ref="fd", tol=1e-8))
add(G("r19k_callable_object_backend_jax", RIDGE, (WK,), ref=_ridge_grad, tol=1e-12,
      backend="jax"))
add(G("r19k_enum_integrator_backend_jax", integrate, (2.0,), ref="ag", tol=1e-12,
      backend="jax"))
