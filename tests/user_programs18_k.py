"""Round 18, part k: Python styles -- classes with inheritance, properties and
super(), dataclasses, closures and functools.partial, generators consumed by sum,
recursion on ints, functools.reduce, itertools (accumulate, pairwise, product,
islice, chain), dict and list comprehensions, try/except, sorted with keys,
reversed, enumerate/zip, and state rebound between calls."""
import dataclasses
import functools
import itertools
import math
import operator

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

XS = np.linspace(-1.0, 2.0, 9)
YS = np.exp(0.5 * XS) + 0.05 * np.sin(7 * XS)


# -- class hierarchy: a kernel base class with a property and overridden methods ---------

class Kernel:
    def __init__(self, scale):
        self.scale = scale

    @property
    def inv_scale2(self):
        return 1.0 / (self.scale * self.scale)

    def k(self, a, b):
        raise NotImplementedError

    def gram(self, x):
        return np.array([[self.k(a, b) for b in x] for a in x])


class RBF(Kernel):
    def k(self, a, b):
        return math.exp(-0.5 * (a - b) ** 2 * self.inv_scale2)


class Matern32(Kernel):
    def k(self, a, b):
        r = abs(a - b) * math.sqrt(3.0) / self.scale
        return (1.0 + r) * math.exp(-r)


class ScaledRBF(RBF):
    def __init__(self, scale, amp):
        super().__init__(scale)
        self.amp = amp

    def k(self, a, b):
        return self.amp ** 2 * super().k(a, b)


def gp_nll(log_ell, x, y, kind="rbf", noise=0.1):
    ell = math.exp(log_ell)
    kern = RBF(ell) if kind == "rbf" else Matern32(ell)
    K = kern.gram(x) + noise ** 2 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


add(G("r18k_gp_rbf_class_property", gp_nll, (0.1, XS, YS), ref="fd", tol=1e-7))
def gp_nll_if(log_ell, x, y, kind="rbf", noise=0.1):
    ell = math.exp(log_ell)
    if kind == "rbf":
        kern = RBF(ell)
    else:
        kern = Matern32(ell)
    K = kern.gram(x) + noise ** 2 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def gp_nll_direct(log_ell, x, y, noise=0.1):
    kern = Matern32(math.exp(log_ell))
    K = kern.gram(x) + noise ** 2 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


add(G("r18k_gp_kernel_chosen_by_if_statement", gp_nll_if, (0.1, XS, YS, "matern"), ref="fd", tol=1e-7))
add(G("r18k_gp_matern_made_directly", gp_nll_direct, (0.1, XS, YS), ref="fd", tol=1e-7))
add(G("r18k_gp_matern_abs_class", gp_nll, (0.1, XS, YS, "matern"), ref="fd", tol=1e-7))


def gp_nll_scaled(theta, x, y):
    kern = ScaledRBF(math.exp(theta[0]), math.exp(theta[1]))
    K = kern.gram(x) + 0.01 * np.eye(len(x))
    sign, ld = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * ld


add(G("r18k_gp_subclass_super_k", gp_nll_scaled, (np.array([0.1, 0.3]), XS, YS), ref="fd", tol=1e-7))
add(H("r18k_gp_subclass_super_hessian", gp_nll_scaled, (np.array([0.1, 0.3]), XS, YS), ref="fd", tol=1e-4))


# -- dataclass params ------------------------------------------------------------------

@dataclasses.dataclass
class Line:
    slope: float
    intercept: float
    name: str = dataclasses.field(default="line", metadata={"static": True})

    def predict(self, x):
        return self.slope * x + self.intercept


def line_loss(p, x, y):
    return np.mean((p.predict(x) - y) ** 2)


def _line_ref():
    a, b = 1.2, 0.9
    r = a * XS + b - YS
    return Line(float(np.mean(2 * r * XS)), float(np.mean(2 * r)))


add(pair("r18k_dataclass_method_predict", lambda: revsrc.grad(line_loss)(Line(1.2, 0.9), XS, YS), _line_ref, tol=1e-12))


def dataclass_replace_loss(p, x, y):
    q = dataclasses.replace(p, slope=p.slope * 2.0)
    return line_loss(q, x, y)


add(pair("r18k_dataclass_replace",
         lambda: revsrc.grad(dataclass_replace_loss)(Line(0.6, 0.9), XS, YS), _line_ref_2 := (lambda: Line(
             float(np.mean(2 * (1.2 * XS + 0.9 - YS) * XS * 2.0)), float(np.mean(2 * (1.2 * XS + 0.9 - YS))))),
         tol=1e-12))


# -- closures and partial -------------------------------------------------------------

def make_huber(delta):
    def rho(r):
        a = abs(r)
        return 0.5 * r * r if a <= delta else delta * (a - 0.5 * delta)
    return rho


def robust_fit_loss(theta, x, y, rho):
    return sum(rho(yi - (theta[0] + theta[1] * xi)) for xi, yi in zip(x, y))


add(G("r18k_closure_huber_generator_sum", robust_fit_loss, (np.array([0.5, 0.8]), XS, YS, make_huber(0.3)),
      ref="fd", tol=1e-7))


def poly_basis(x, deg):
    return np.stack([x ** d for d in range(deg + 1)], axis=1)


def ridge_poly(c, x, y, deg, lam):
    return np.sum((poly_basis(x, deg) @ c - y) ** 2) + lam * c @ c


add(G("r18k_partial_bound_keywords", functools.partial(ridge_poly, deg=3, lam=0.1),
      (np.array([1.0, 0.5, 0.1, 0.0]), XS, YS),
      ref=lambda: jax().grad(lambda c: jaxify(ridge_poly)(c, XS, YS, 3, 0.1))(np.array([1.0, 0.5, 0.1, 0.0])),
      tol=1e-10))


# -- recursion on ints: Horner and Chebyshev by recursion ---------------------------------

def cheb(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return 2 * x * cheb(n - 1, x) - cheb(n - 2, x)


def cheb_series(c, x):
    return sum(ci * cheb(i, x) for i, ci in enumerate(c))


add(G("r18k_chebyshev_recursion_ints", cheb_series, (np.array([0.5, -0.2, 0.3, 0.1, -0.05]), 0.37), argnums=(0, 1),
      ref="fd", tol=1e-7))


def horner_reduce(c, x):
    return functools.reduce(lambda acc, a: acc * x + a, reversed(c), 0.0)


add(G("r18k_reduce_lambda_reversed", horner_reduce, (np.array([1.0, -2.0, 0.5, 0.25]), 0.7), argnums=1,
      ref=lambda: -2.0 + 2 * 0.5 * 0.7 + 3 * 0.25 * 0.49, tol=1e-12))


def product_reduce(x):
    return functools.reduce(operator.mul, [math.sin(v) + 2.0 for v in x], 1.0)


add(G("r18k_reduce_operator_mul", product_reduce, (np.array([0.3, 1.2, -0.4]),), ref="fd", tol=1e-8))


# -- itertools -----------------------------------------------------------------------

def path_length(pts):
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(pts))


PTS = np.array([[0.0, 0.0], [1.0, 0.2], [1.5, 1.0], [0.8, 1.7]])
add(G("r18k_itertools_pairwise_hypot", path_length, (PTS,), ref="jax", tol=1e-10))


def cumulative_max_drawdown(returns):
    wealth = list(itertools.accumulate(returns, lambda a, r: a * (1 + r), initial=1.0))
    return sum(w * w for w in wealth)


add(G("r18k_itertools_accumulate_initial", cumulative_max_drawdown, (np.array([0.01, -0.02, 0.03, 0.005]),),
      ref="fd", tol=1e-8))


def pair_energy(x):
    return sum(1.0 / (1e-1 + (x[i] - x[j]) ** 2) for i, j in itertools.combinations(range(len(x)), 2))


add(G("r18k_itertools_combinations_pair_energy", pair_energy, (np.array([0.0, 0.4, 1.1, 1.3]),), ref="jax", tol=1e-10))


def grid_sum(w):
    return sum(w[i] * w[j] * math.cos(i - j) for i, j in itertools.product(range(3), repeat=2))


add(G("r18k_itertools_product_repeat", grid_sum, (np.array([0.3, -0.5, 0.8]),), ref="jax", tol=1e-10))


def chain_losses(a, b):
    return sum(v ** 2 for v in itertools.chain(a, b, [a[0] * b[0]]))


add(G("r18k_itertools_chain_two_arrays", chain_losses, (np.array([1.0, 2.0]), np.array([0.5, -1.0])),
      argnums=(0, 1), ref="jax", tol=1e-12))


# -- comprehensions, sorted, min/max, enumerate ------------------------------------------

def top_k_mean(scores, k=3):
    return sum(sorted(scores, reverse=True)[:k]) / k


add(G("r18k_sorted_top_k", top_k_mean, (np.array([0.3, 2.0, -1.0, 1.5, 0.9]),),
      ref=lambda: np.array([0.0, 1.0, 0.0, 1.0, 1.0]) / 3, tol=1e-12))


def weighted_by_rank(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    return sum((r + 1) * x[i] for r, i in enumerate(order))


add(G("r18k_sorted_key_lambda_ranks", weighted_by_rank, (np.array([0.3, 2.0, -1.0, 1.5]),),
      ref=lambda: np.array([2.0, 4.0, 1.0, 3.0]), tol=1e-12))


def dict_comp_energy(params):
    sq = {k: v ** 2 for k, v in params.items() if k != "skip"}
    return sum(sq.values()) + max(sq.values()) + min(params.values())


DP = {"a": 0.5, "b": -1.5, "c": 1.0, "skip": 3.0}
add(G("r18k_dict_comprehension_values_max_min", dict_comp_energy, (DP,),
      ref=lambda: {"a": 1.0, "b": -3.0 - 3.0 + 1.0, "c": 2.0, "skip": 0.0}, tol=1e-12))


# -- try/except in the user's code ------------------------------------------------------

def safe_log_ratio(x, y):
    try:
        return math.log(x / y)
    except ZeroDivisionError:
        return 0.0
    except ValueError:
        return -1.0


add(G("r18k_try_except_log_ratio_normal", safe_log_ratio, (2.0, 0.5), argnums=(0, 1),
      ref=lambda: (0.5, -2.0), tol=1e-12))
add(G("r18k_try_except_log_ratio_zero_div", safe_log_ratio, (2.0, 0.0), argnums=(0, 1),
      ref=lambda: (0.0, 0.0), tol=0.0))
add(G("r18k_try_except_log_ratio_value_error", safe_log_ratio, (-2.0, 0.5), argnums=(0, 1),
      ref=lambda: (0.0, 0.0), tol=0.0))


# -- a generator function consumed by sum (yield) -----------------------------------------

def residuals(theta, x, y):
    for xi, yi in zip(x, y):
        yield yi - theta[0] * math.exp(theta[1] * xi)


def gen_loss(theta, x, y):
    return sum(r * r for r in residuals(theta, x, y))


add(G("r18k_generator_function_yield", gen_loss, (np.array([1.0, 0.4]), XS, YS), ref="fd", tol=1e-7))


# -- state between calls: a module global rebound, an attribute rebound, an argument mutated --

TEMP = 1.0


def boltzmann_free_energy(E):
    return -TEMP * math.log(sum(math.exp(-e / TEMP) for e in E))


def _rebind_temp():
    global TEMP
    g = revsrc.grad(boltzmann_free_energy)
    E = np.array([0.0, 0.5, 1.2])
    TEMP = 1.0
    a = g(E)
    TEMP = 0.25
    b = g(E)
    TEMP = 1.0
    return a, b


def _rebind_temp_ref():
    E = np.array([0.0, 0.5, 1.2])
    out = []
    for T in (1.0, 0.25):
        p = np.exp(-E / T)
        out.append(p / p.sum())
    return tuple(out)


add(pair("r18k_global_temperature_rebound", _rebind_temp, _rebind_temp_ref, tol=1e-12))


def _mutate_arg_between_calls():
    g = revsrc.grad(lambda w, X: np.sum((X @ w) ** 2))
    X = np.eye(3)
    w = np.array([1.0, 2.0, 3.0])
    a = g(w, X)
    X[0, 0] = 5.0
    b = g(w, X)
    return a, b


add(pair("r18k_argument_mutated_between_calls", _mutate_arg_between_calls,
         lambda: (np.array([2.0, 4.0, 6.0]), np.array([50.0, 4.0, 6.0])), tol=1e-12))


class Counter:
    def __init__(self):
        self.calls = 0
        self.scale = 2.0

    def __call__(self, x):
        return self.scale * np.sum(np.sin(x))


def _callable_attr_rebound():
    c = Counter()
    g = revsrc.grad(c)
    x = np.array([0.1, 0.2])
    a = g(x)
    c.scale = -1.0
    b = g(x)
    return a, b


add(pair("r18k_callable_object_attribute_rebound", _callable_attr_rebound,
         lambda: (2.0 * np.cos([0.1, 0.2]), -np.cos([0.1, 0.2])), tol=1e-12))


# -- more try/except shapes a user writes --------------------------------------------

def sum_cubes_unless_big(x):
    try:
        if x[0] > 10:
            raise ValueError("first reading out of range")
        return np.sum(x ** 3)
    except ValueError:
        return 0.0


add(G("r18k_try_raise_inside_normal_path", sum_cubes_unless_big, (np.array([0.3, 0.7, 0.9]),),
      ref=lambda: 3 * np.array([0.3, 0.7, 0.9]) ** 2, tol=1e-12))
# the raise runs: the plain call returns 0.0, the gradient is zeros
add(G("r18k_try_raise_caught_returns_constant", sum_cubes_unless_big, (np.array([20.3, 0.7, 0.9]),),
      ref=lambda: np.zeros(3), tol=0.0))


def energy_with_cleanup(x):
    log = []
    try:
        return np.sum(x ** 2) + 0.5 * np.sum(x)
    finally:
        log.append("done")


add(G("r18k_try_finally_without_return_in_finally", energy_with_cleanup, (np.array([0.3, -0.7]),),
      ref=lambda: 2 * np.array([0.3, -0.7]) + 0.5, tol=1e-12))


def safe_sqrt_sum(x):
    try:
        z = np.sum(np.sqrt(x))
    except Exception:
        z = 0.0
    else:
        z = z * 2
    return z


add(G("r18k_try_except_else", safe_sqrt_sum, (np.array([0.3, 0.7, 0.9]),),
      ref=lambda: 1.0 / np.sqrt(np.array([0.3, 0.7, 0.9])), tol=1e-12))


def scalar_guard(x, n):
    try:
        return x * x if n else 0.0
    except ZeroDivisionError:
        return 0.0


add(G("r18k_try_conditional_return_scalar_constant_arm", scalar_guard, (3.0, 0), ref=lambda: 0.0, tol=0.0))


def array_guard(w, n):
    try:
        return np.sum(w * w) if n else 0.0
    except ZeroDivisionError:
        return 0.0


# the plain call returns 0.0; the gradient is zeros of w's shape
add(G("r18k_try_conditional_return_array_constant_arm", array_guard, (np.array([1.0, 2.0]), 0),
      ref=lambda: np.zeros(2), tol=0.0))
add(G("r18k_try_conditional_return_array_live_arm", array_guard, (np.array([1.0, 2.0]), 1),
      ref=lambda: np.array([2.0, 4.0]), tol=0.0))


# -- Keras-like layers with inheritance, a property and super().__call__ -----------------

class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    @property
    def fan_in(self):
        return self.W.shape[0]

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Residual(Layer):
    def __call__(self, x):
        return x + super().__call__(x)


def res_net(W1, W2, x):
    layers = [Layer(W1, np.zeros(3)), Residual(W2, 0.1 * np.ones(3))]
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h ** 2) + layers[0].fan_in


RW1 = np.arange(6.0).reshape(2, 3) / 10
RW2 = np.eye(3) * 0.5
RX = np.array([[0.2, -0.4], [1.0, 0.3]])
add(G("r18k_layers_inheritance_super_call", res_net, (RW1, RW2, RX), argnums=(0, 1), ref="fd", tol=1e-7))


# -- closures and partials whose captured state changes between calls ---------------------

COEFS = [1.0, 2.0]


def poly_global_list(x):
    return sum(c * x ** i for i, c in enumerate(COEFS))


def _global_list_changes():
    g = revsrc.grad(poly_global_list)
    a = g(0.5)
    COEFS[1] = 5.0
    b = g(0.5)
    COEFS.append(1.0)
    c = g(0.5)
    del COEFS[2:]
    COEFS[1] = 2.0
    return a, b, c


add(pair("r18k_global_list_item_changed_and_appended", _global_list_changes, lambda: (2.0, 5.0, 6.0), tol=1e-12))


def spring_pe(x, k=1.0):
    return 0.5 * k * x * x


def _partial_keywords_changed():
    p = functools.partial(spring_pe, k=2.0)
    g = revsrc.grad(p)
    a = g(1.5)
    p.keywords["k"] = 3.0
    return a, g(1.5)


add(pair("r18k_partial_keywords_changed_between_calls", _partial_keywords_changed, lambda: (3.0, 4.5), tol=1e-12))


TABLE = [0.5, 1.5, 2.5]


def table_interp(x):
    i = int(x)
    t = x - i
    return TABLE[i] * (1 - t) + TABLE[i + 1] * t


def _jit_table_changes():
    jg = revsrc.jit(revsrc.grad(table_interp))
    a, b = jg(0.3), jg(1.7)
    TABLE[2] = 4.5
    c = jg(1.7)
    TABLE[2] = 2.5
    return a, b, c


add(pair("r18k_jit_grad_global_table_item_changed", _jit_table_changes, lambda: (1.0, 1.0, 3.0), tol=1e-12))


@dataclasses.dataclass
class SpringChain:
    k: float
    L0: float
    n: int = dataclasses.field(default=3, metadata={"static": True})

    def energy(self, x):
        return 0.5 * self.k * sum((x[i + 1] - x[i] - self.L0) ** 2 for i in range(self.n - 1))


def chain_energy(s, x):
    return s.energy(x)


XSC = np.array([0.0, 1.2, 2.1])
add(pair("r18k_dataclass_static_field_grad",
         lambda: revsrc.grad(chain_energy)(SpringChain(2.0, 1.0), XSC),
         lambda: SpringChain(0.5 * (0.2 ** 2 + 0.1 ** 2), 2.0 * (-0.2 + 0.1), 3), tol=1e-12))
# the method of an argument called with the differentiated x: E202, documented in
# containers.md "Not yet" (an object revsrc only sees when the function runs)
add(G("r18k_dataclass_argument_method_wrt_x", chain_energy, (SpringChain(2.0, 1.0), XSC), argnums=1,
      ref=lambda: np.array([-0.4, 0.6, -0.2]), tol=1e-12))


def cost_with_fallback(x):
    # a pricing model: the quadratic cost, or a linear fallback when the first
    # reading is out of range (signalled by an exception)
    try:
        if x[0] > 1:
            raise ValueError("out of range")
        return np.sum(x ** 2)
    except ValueError:
        return np.sum(3 * x)


add(G("r18k_try_raise_caught_returns_linear", cost_with_fallback, (np.array([2.0, 1.0]),),
      ref=lambda: np.array([3.0, 3.0]), tol=0.0))
add(G("r18k_try_raise_not_taken_quadratic", cost_with_fallback, (np.array([0.5, 1.0]),),
      ref=lambda: np.array([1.0, 2.0]), tol=0.0))


def scalar_cost_with_fallback(x):
    try:
        if x > 1:
            raise ValueError("out of range")
        return x ** 2
    except ValueError:
        return 3 * x


add(G("r18k_try_raise_caught_scalar", scalar_cost_with_fallback, (2.0,), ref=lambda: 3.0, tol=0.0))
