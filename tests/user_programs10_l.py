"""Round 10, rebinding and state between calls, and errors Python itself raises: a
global rate, table or function rebound between calls of jit, vmap, grad with
backend="jax"/"engine", hessian and a stored vjp; math domain errors (math.log of a
negative, math.sqrt(-1)) must raise what Python raises; memory= with branches and
break in the long loop; has_aux with argnums tuples."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []
RATE = 0.05
TABLE = np.array([1.0, 2.0, 3.0])
SCALE = 2.0


def npv(c):
    v = 0.0
    for t in range(1, 6):
        v += c / (1.0 + RATE) ** t
    return v


def _rebind(make, call, name, values):
    g = globals()
    old = g[name]
    out = []
    try:
        fn = make()
        for val in values:
            g[name] = val
            out.append(call(fn))
    finally:
        g[name] = old
    return out


def _plain(f, name, values, *args):
    g = globals()
    old = g[name]
    out = []
    try:
        for val in values:
            g[name] = val
            out.append(f(*args))
    finally:
        g[name] = old
    return out


CASES.append(pair("r10_jit_sees_rebound_global_rate",
                  lambda: _rebind(lambda: revsrc.jit(npv), lambda f: f(10.0), "RATE", [0.05, 0.10, 0.0]),
                  lambda: _plain(npv, "RATE", [0.05, 0.10, 0.0], 10.0), tol=0.0))
CASES.append(pair("r10_vmap_sees_rebound_global_rate",
                  lambda: _rebind(lambda: revsrc.vmap(npv), lambda f: f(np.array([10.0, 20.0])), "RATE", [0.05, 0.10]),
                  lambda: [np.array(_plain(npv, "RATE", [r], c)[0] for c in (10.0, 20.0)) if False else
                           np.array([_plain(npv, "RATE", [r], c)[0] for c in (10.0, 20.0)]) for r in (0.05, 0.10)],
                  tol=0.0))


def npv_rate_deriv(r):
    return sum(1.0 / (1.0 + r) ** t for t in range(1, 6))


CASES.append(pair("r10_grad_jax_backend_sees_rebound_rate",
                  lambda: _rebind(lambda: revsrc.grad(npv, backend="jax"), lambda f: f(10.0), "RATE", [0.05, 0.10]),
                  lambda: [npv_rate_deriv(0.05), npv_rate_deriv(0.10)], tol=1e-12))
CASES.append(pair("r10_grad_engine_sees_rebound_rate",
                  lambda: _rebind(lambda: revsrc.grad(npv, backend="engine"), lambda f: f(10.0), "RATE", [0.05, 0.10]),
                  lambda: [npv_rate_deriv(0.05), npv_rate_deriv(0.10)], tol=1e-12))
CASES.append(pair("r10_jit_of_grad_sees_rebound_rate",
                  lambda: _rebind(lambda: revsrc.jit(revsrc.grad(npv)), lambda f: f(10.0), "RATE", [0.05, 0.10]),
                  lambda: [npv_rate_deriv(0.05), npv_rate_deriv(0.10)], tol=1e-12))


def table_lookup(x):
    return np.sum(TABLE * x ** 2)


CASES.append(pair("r10_grad_sees_rebound_global_array",
                  lambda: _rebind(lambda: revsrc.grad(table_lookup), lambda f: f(1.5), "TABLE",
                                  [np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.0, 1.0])]),
                  lambda: [2 * 1.5 * 6.0, 2 * 1.5 * 1.0], tol=1e-12))
CASES.append(pair("r10_grad_jax_backend_rebound_array",
                  lambda: _rebind(lambda: revsrc.grad(table_lookup, backend="jax"), lambda f: f(1.5), "TABLE",
                                  [np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.0, 1.0])]),
                  lambda: [2 * 1.5 * 6.0, 2 * 1.5 * 1.0], tol=1e-12))


def scaled(x):
    return SCALE * math.sin(x)


def hess_rebound():
    return _rebind(lambda: revsrc.hessian(scaled), lambda f: f(0.3), "SCALE", [2.0, -1.0])


CASES.append(pair("r10_hessian_sees_rebound_scale", hess_rebound,
                  lambda: [-2.0 * math.sin(0.3), 1.0 * math.sin(0.3)], tol=1e-12))


def vjp_rebound():
    out, fn = revsrc.vjp(scaled, 0.3)
    g = globals()
    old = g["SCALE"]
    try:
        g["SCALE"] = 5.0
        late = fn(1.0)
    finally:
        g["SCALE"] = old
    return late


# a pullback made while SCALE was 2.0 is the derivative at that point: 2 cos(0.3)
# (JAX's vjp closes over the residuals; so does autograd)
CASES.append(pair("r10_vjp_pullback_keeps_old_global", vjp_rebound,
                  lambda: jax().vjp(jaxify(scaled), 0.3)[1](1.0), tol=1e-12))


def helper_a(x):
    return x * x


def helper_b(x):
    return x * x * x


CALC = helper_a


def uses_calc(x):
    return CALC(x) + 1.0


CASES.append(pair("r10_jit_sees_rebound_global_function",
                  lambda: _rebind(lambda: revsrc.jit(uses_calc), lambda f: f(2.0), "CALC", [helper_a, helper_b]),
                  lambda: [5.0, 9.0], tol=0.0))
CASES.append(pair("r10_grad_sees_rebound_global_function",
                  lambda: _rebind(lambda: revsrc.grad(uses_calc), lambda f: f(2.0), "CALC", [helper_a, helper_b]),
                  lambda: [4.0, 12.0], tol=0.0))


def _raised(thunk):
    try:
        thunk()
    except Exception as err:  # noqa: BLE001 - the exception's class is the result
        return type(err).__name__
    return "no exception"


def log_negative(x):
    return math.log(x) + x


def sqrt_negative(x):
    return math.sqrt(x - 2.0)


CASES.append(pair("r10_grad_math_log_negative_raises",
                  lambda: _raised(lambda: revsrc.grad(log_negative)(-1.0)),
                  lambda: _raised(lambda: log_negative(-1.0)), tol=0.0))
CASES.append(pair("r10_jit_math_sqrt_negative_raises",
                  lambda: _raised(lambda: revsrc.jit(sqrt_negative)(1.0)),
                  lambda: _raised(lambda: sqrt_negative(1.0)), tol=0.0))
CASES.append(pair("r10_hessian_math_log_negative_raises",
                  lambda: _raised(lambda: revsrc.hessian(log_negative)(-1.0)),
                  lambda: _raised(lambda: log_negative(-1.0)), tol=0.0))


def zero_division(x, n):
    return x / n


CASES.append(pair("r10_grad_zero_division_raises",
                  lambda: _raised(lambda: revsrc.grad(zero_division)(1.0, 0)),
                  lambda: _raised(lambda: zero_division(1.0, 0)), tol=0.0))
CASES.append(pair("r10_jit_zero_division_raises",
                  lambda: _raised(lambda: revsrc.jit(zero_division)(1.0, 0)),
                  lambda: _raised(lambda: zero_division(1.0, 0)), tol=0.0))


def leaky_with_break(tau, x):
    v = 0.0
    acc = 0.0
    for k, xn in enumerate(x):
        if xn > 2.5:
            v = v * 0.5
        else:
            v = v + (xn - v) / tau
        acc += v * v
        if acc > 300.0:
            break
    return acc


rng = np.random.default_rng(1011)
LONG = rng.normal(size=4000)
CASES.append(pair("r10_memory_branches_and_break",
                  lambda: revsrc.grad(leaky_with_break, memory="4KB")(3.0, LONG),
                  lambda: revsrc.grad(leaky_with_break)(3.0, LONG), tol=0.0))
CASES.append(G("r10_leaky_break_vs_fd", leaky_with_break, (3.0, LONG[:1500])))


def loss_aux2(w, b, x):
    z = x @ w + b
    return np.mean(z ** 2), z


XA = rng.normal(size=(5, 3))


def aux_argnums():
    (v, z), (gw, gb) = revsrc.value_and_grad(loss_aux2, argnums=(0, 1), has_aux=True)(np.ones(3), 0.5, XA)
    return v, z, gw, gb


def aux_argnums_ref():
    (v, z), (gw, gb) = jax().value_and_grad(jaxify(loss_aux2), argnums=(0, 1), has_aux=True)(np.ones(3), 0.5, XA)
    return v, z, gw, gb


CASES.append(pair("r10_value_and_grad_aux_argnums_tuple", aux_argnums, aux_argnums_ref))


def linearize_rebound():
    y, f_jvp = revsrc.linearize(scaled, 0.3)
    g = globals()
    old = g["SCALE"]
    try:
        g["SCALE"] = 5.0
        late = f_jvp(1.0)
    finally:
        g["SCALE"] = old
    return y, late


CASES.append(pair("r10_linearize_keeps_old_global", linearize_rebound,
                  lambda: jax().linearize(jaxify(scaled), 0.3)[0:1] + (jax().linearize(jaxify(scaled), 0.3)[1](1.0),),
                  tol=1e-12))



def vjp_closure_rebound():
    rate = 0.5

    def decay(t):
        return math.exp(-rate * t)
    out, fn = revsrc.vjp(decay, 2.0)
    rate = 1.5
    return out, fn(1.0)


CASES.append(pair("r10_vjp_pullback_closure_cell_rebound", vjp_closure_rebound,
                  lambda: (math.exp(-1.0), (-0.5 * math.exp(-1.0),)), tol=1e-12))


class Cell:
    def __init__(self, k):
        self.k = k

    def rate(self, c):
        return self.k * c * c


def linearize_attribute_changed():
    cell = Cell(2.0)
    y, f_jvp = revsrc.linearize(cell.rate, 1.5)
    cell.k = 7.0
    return y, f_jvp(1.0)


CASES.append(pair("r10_linearize_bound_method_attribute_changed", linearize_attribute_changed,
                  lambda: (4.5, 6.0), tol=1e-12))


def vjp_function_rebound():
    global CALC
    out, fn = revsrc.vjp(uses_calc, 2.0)
    old = CALC
    CALC = helper_b
    try:
        late = fn(1.0)
    finally:
        CALC = old
    return out, late


CASES.append(pair("r10_vjp_pullback_global_function_rebound", vjp_function_rebound,
                  lambda: (5.0, (4.0,)), tol=1e-12))


def cubic_sin(p):
    return p["w"] ** 3 * math.sin(p["b"])


def vjp_dict_primal_item_changed():
    p = {"w": 1.0, "b": 0.5}
    out, fn = revsrc.vjp(cubic_sin, p)
    p["w"] = 5.0
    return out, fn(1.0)


def vjp_dict_ref():
    p = {"w": 1.0, "b": 0.5}
    out, fn = jax().vjp(jaxify(cubic_sin), p)
    p["w"] = 5.0
    return out, fn(1.0)


# the pullback is the derivative where the forward ran (JAX and autograd: w' = 3 sin 0.5);
# refusals.md says a pullback called after its primals were assigned again is refused (E101)
CASES.append(pair("r10_vjp_dict_primal_item_changed_after", vjp_dict_primal_item_changed, vjp_dict_ref, tol=1e-12))


def linearize_dict_primal_item_changed():
    p = {"w": 1.0, "b": 0.5}
    y, f_jvp = revsrc.linearize(cubic_sin, p)
    p["w"] = 5.0
    return y, f_jvp({"w": 1.0, "b": 0.0})


CASES.append(pair("r10_linearize_dict_primal_item_changed_after", linearize_dict_primal_item_changed,
                  lambda: (math.sin(0.5), 3 * math.sin(0.5)), tol=1e-12))
