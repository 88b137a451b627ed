"""Round 13, part o: more probes -- builtins with key=, sorted, median/percentile/interp,
math.fsum/prod, polyval, hessian with argnums tuples, jvp of tuple outputs, vmap out_axes
on matrices, while loops under backend="jax", globals rebound under jit."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
X5 = np.array([0.7, -1.2, 2.5, 0.1, -0.4])


def min_key(xs):
    m = min(xs, key=lambda v: (v - 0.3) ** 2)
    return m * m + sum(xs)


add(G("r13_o_min_with_key", min_key, (list(X5),), ref="fd"))


def sorted_key_top2(xs):
    s = sorted(xs, key=abs, reverse=True)
    return s[0] * s[1]


add(G("r13_o_sorted_key_abs", sorted_key_top2, (list(X5),), ref="fd"))
add(G("r13_o_median", lambda x: np.median(x) ** 2, (X5,), ref="fd"))
add(G("r13_o_median_even", lambda x: np.median(x[:4]) ** 2, (X5,), ref="fd"))
add(G("r13_o_percentile_linear", lambda x: np.percentile(x, 30.0), (X5,), ref="fd"))
add(G("r13_o_interp_values", lambda y: np.sum(np.interp(np.array([0.5, 1.7, 3.2]), np.arange(5.0), y)), (X5,), ref="fd"))
add(G("r13_o_interp_query", lambda q: np.sum(np.interp(q, np.arange(5.0), X5)), (np.array([0.5, 1.7, 3.2]),), ref="fd"))
add(G("r13_o_math_fsum", lambda xs: math.fsum(x * x for x in xs), (list(X5),), ref=lambda: list(2 * X5), tol=1e-14))
add(G("r13_o_math_prod", lambda xs: math.prod(xs), ([1.5, -2.0, 0.5],), ref=lambda: [-1.0, 0.75, -3.0], tol=1e-14))
add(G("r13_o_polyval", lambda c, x: np.polyval(c, x), (np.array([1.0, -2.0, 0.5]), 1.3), argnums=(0, 1), ref="fd"))


def two_arg(a, b):
    return a[0] * b[1] ** 2 + np.sin(a[1] * b[0])


A2, B2 = np.array([0.4, 1.1]), np.array([-0.3, 0.9])
add(pair("r13_o_hessian_argnums_tuple", lambda: revsrc.hessian(two_arg, argnums=(0, 1))(A2, B2),
         lambda: jax().hessian(jaxify(two_arg), argnums=(0, 1))(A2, B2), tol=1e-12))


def tuple_out(x):
    return x[0] * x[1], np.array([x[0] ** 2, math.exp(x[1])])


add(pair("r13_o_jvp_tuple_output", lambda: revsrc.jvp(tuple_out, (A2,), (np.array([1.0, 0.5]),)),
         lambda: jax().jvp(lambda x: (x[0] * x[1], jax().numpy.array([x[0] ** 2, jax().numpy.exp(x[1])])), (A2,), (np.array([1.0, 0.5]),)), tol=1e-13))
add(pair("r13_o_jacrev_tuple_output", lambda: revsrc.jacrev(tuple_out)(A2),
         lambda: jax().jacrev(lambda x: (x[0] * x[1], jax().numpy.array([x[0] ** 2, jax().numpy.exp(x[1])])))(A2), tol=1e-13))


def mat_out(x):
    return np.outer(x, x)


XV = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]])
add(pair("r13_o_vmap_out_axes_matrix", lambda: revsrc.vmap(mat_out, out_axes=2)(XV),
         lambda: np.stack([np.outer(r, r) for r in XV], axis=2), tol=0.0))
add(pair("r13_o_vmap_in_axes1_out_axes1", lambda: revsrc.vmap(lambda v: v * np.sum(v), in_axes=1, out_axes=1)(XV),
         lambda: np.stack([XV[:, j] * np.sum(XV[:, j]) for j in range(2)], axis=1), tol=0.0))


def while_newton(a):
    x = 1.0
    while abs(x * x * x - a) > 1e-12:
        x = x - (x * x * x - a) / (3 * x * x)
    return x


add(pair("r13_o_while_jax_backend", lambda: revsrc.grad(while_newton, backend="jax")(5.0), lambda: (1 / 3) * 5.0 ** (-2 / 3), tol=1e-9))
add(pair("r13_o_while_default_backend", lambda: revsrc.grad(while_newton)(5.0), lambda: (1 / 3) * 5.0 ** (-2 / 3), tol=1e-9))


def array_while_jax(x):
    y = x
    k = 0
    while np.sum(y * y) > 0.01 and k < 100:
        y = 0.8 * y + 0.01 * np.sin(y)
        k += 1
    return np.sum(y)


add(G("r13_o_array_while_jax_backend", array_while_jax, (np.array([1.0, -0.5, 2.0]),), ref="fd", backend="jax"))
add(G("r13_o_array_while_default", array_while_jax, (np.array([1.0, -0.5, 2.0]),), ref="fd"))

GAIN = 2.0


def gained(x):
    return GAIN * math.sin(x)


def jit_rebind():
    global GAIN
    j = revsrc.jit(revsrc.grad(gained))
    a = j(0.5)
    GAIN = 3.0
    b = j(0.5)
    GAIN = 2.0
    return (a, b)


add(pair("r13_o_jit_grad_global_rebound", jit_rebind, lambda: (2 * math.cos(0.5), 3 * math.cos(0.5)), tol=1e-15))


def vmap_rebind():
    global GAIN
    v = revsrc.vmap(revsrc.grad(gained))
    a = v(np.array([0.5, 1.0]))
    GAIN = 3.0
    b = v(np.array([0.5, 1.0]))
    GAIN = 2.0
    return (a, b)


add(pair("r13_o_vmap_grad_global_rebound", vmap_rebind, lambda: (2 * np.cos([0.5, 1.0]), 3 * np.cos([0.5, 1.0])), tol=1e-15))
TABLE = {"a": 1.0, "b": 2.0}


def uses_table(x):
    return TABLE["a"] * x + TABLE["b"] * x * x


def table_mutate():
    d = revsrc.grad(uses_table)
    a = d(1.0)
    TABLE["b"] = 5.0
    b = d(1.0)
    TABLE["b"] = 2.0
    return (a, b)


add(pair("r13_o_global_dict_item_changed", table_mutate, lambda: (5.0, 11.0), tol=0.0))


def linearize_then_reuse():
    out, f_jvp = revsrc.linearize(lambda x: np.sin(x) * x, np.array([0.3, 1.0]))
    return f_jvp(np.array([1.0, 0.0])), f_jvp(np.array([0.0, 2.0]))


add(pair("r13_o_linearize_twice", linearize_then_reuse,
         lambda: (np.array([math.cos(0.3) * 0.3 + math.sin(0.3), 0.0]), np.array([0.0, 2 * (math.cos(1.0) + math.sin(1.0))])), tol=1e-14))


def keepdims_norm(A):
    s = A.sum(axis=0, keepdims=True)
    n = np.linalg.norm(A - s / A.shape[0], axis=1, keepdims=True)
    return np.sum(n ** 3)


add(G("r13_o_keepdims_chain", keepdims_norm, (XV,), ref="fd"))
add(G("r13_o_norm_ord_neg_inf", lambda v: np.linalg.norm(v, ord=-np.inf) + np.linalg.norm(v, ord=0.5), (X5,), ref="fd"))
add(G("r13_o_neg_base_int_power", lambda x: (-x) ** 3 + x ** -2, (1.3,), ref=lambda: -3 * 1.69 - 2 * 1.3 ** -3, tol=1e-14))
add(G("r13_o_max_builtin_ties_split", lambda a, b: max(a * 1.0, b * 1.0), (2.0, 2.0), argnums=(0, 1),
      ref=lambda: (0.5, 0.5), tol=0.0))  # docs/guide/api.md: ties split evenly, as JAX does
