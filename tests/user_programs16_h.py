"""Round 16, part h: edge values and misuse -- wrong cotangent / tangent shapes and counts,
bad in_axes, empty arrays, NaN / inf, ints past 2**53, float32, state changed between
calls (globals, attributes, defaults)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def quad3(w, X, s):
    return np.sum((X @ w) ** 2) * s


W2, XE = np.ones(2), np.array([[1.0, 2.0], [0.5, -1.0]])
add(pair("r16_hvp_tangent_count_mismatch", lambda: revsrc.hvp(quad3, (W2, XE, 2.0), (np.ones(2),)),
         lambda: 2 * 2.0 * XE.T @ XE @ np.ones(2)))
add(pair("r16_jvp_tangent_count_mismatch", lambda: revsrc.jvp(quad3, (W2, XE, 2.0), (np.ones(2),)), lambda: None))
add(pair("r16_jvp_tangent_wrong_shape", lambda: revsrc.jvp(quad3, (W2, XE, 2.0), (np.ones(3), None, None)), lambda: None))
add(pair("r16_hvp_none_tangents", lambda: revsrc.hvp(quad3, (W2, XE, 2.0), (np.array([1.0, -1.0]), None, None)),
         lambda: 2 * 2.0 * XE.T @ XE @ np.array([1.0, -1.0]), tol=1e-12))
add(pair("r16_vjp_cotangent_scalar_for_vector", lambda: revsrc.vjp(lambda w: XE @ w, W2)[1](1.0), lambda: None))
add(pair("r16_jvp_float32_tangent", lambda: revsrc.jvp(quad3, (W2, XE, 2.0), (np.ones(2, dtype=np.float32), None, None)),
         lambda: (quad3(W2, XE, 2.0), 2 * 2.0 * np.sum((XE @ W2) * (XE @ np.ones(2)))), tol=1e-12))


def elementwise(x):
    return x * math.exp(-x)




def mul2(a, b):
    return a * b


add(pair("r16_vmap_in_axes_out_of_range", lambda: revsrc.vmap(mul2, in_axes=(0, 2))(np.ones(3), np.ones((3, 2))), lambda: None))
add(pair("r16_vmap_in_axes_wrong_length", lambda: revsrc.vmap(mul2, in_axes=(0, 0, 0))(np.ones(3), np.ones(3)), lambda: None))
add(pair("r16_vmap_mismatched_sizes", lambda: revsrc.vmap(mul2)(np.ones(3), np.ones(4)), lambda: None))
add(pair("r16_vmap_no_mapped_no_axis_size", lambda: revsrc.vmap(mul2, in_axes=(None, None))(1.0, 2.0), lambda: None))
add(pair("r16_vmap_empty_batch", lambda: revsrc.vmap(elementwise)(np.zeros(0)), lambda: np.zeros(0), tol=0.0))


def mean_sq(x):
    return np.sum(x ** 2) / max(x.shape[0], 1)


add(pair("r16_grad_empty_array", lambda: revsrc.grad(mean_sq)(np.zeros(0)), lambda: np.zeros(0), tol=0.0))
add(VG("r16_vg_empty_array_value", mean_sq, (np.zeros(0),), ref=lambda: np.zeros(0), tol=0.0))


def safe_log(x):
    return np.sum(np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0))


XZ = np.array([2.0, 0.0, -1.0, 0.5])
add(G("r16_double_where_safe_log_at_zero", safe_log, (XZ,), ref=lambda: np.array([0.5, 0.0, 0.0, 2.0]), tol=1e-14))


def naive_where_log(x):
    return np.sum(np.where(x > 0, np.log(np.abs(x) + 1e-300), 0.0))


add(G("r16_where_masked_branch_grad_is_zero", naive_where_log, (XZ,), ref=lambda: np.array([0.5, 0.0, 0.0, 2.0]), tol=1e-14))


def with_nan_input(x):
    return x[0] * 2.0 + x[1] * 0.0


add(G("r16_nan_input_times_zero", with_nan_input, (np.array([1.0, np.nan]),),
      ref=lambda: ag()[0].grad(agify(with_nan_input))(np.array([1.0, np.nan])), tol=0.0))


def inf_clip(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2)


add(G("r16_inf_clip", inf_clip, (np.array([np.inf, 0.5, -np.inf]),), ref=lambda: np.array([0.0, 1.0, 0.0]), tol=0.0))


def big_int_scale(x, n):
    return x * n


NBIG = 2 ** 53 + 1
add(pair("r16_int_past_2_53_value", lambda: revsrc.value_and_grad(big_int_scale)(1.5, NBIG),
         lambda: (1.5 * NBIG, float(NBIG)), tol=0.0))
add(pair("r16_int_past_2_53_jit", lambda: revsrc.jit(big_int_scale)(1.5, NBIG), lambda: 1.5 * NBIG, tol=0.0))


def int_loop(x, n):
    k = 0
    while k * k < n:
        k += 1
    return x * k


add(pair("r16_int_loop_big_n_vg", lambda: revsrc.value_and_grad(int_loop)(2.0, 10 ** 6 + 1),
         lambda: (2.0 * 1001, 1001.0), tol=0.0))


def f32_energy(x):
    return np.sum(np.sin(x) * x)


X32 = np.array([0.3, 1.2, -0.7], dtype=np.float32)


def _f32_ref():
    x = X32.astype(np.float64)
    return np.sin(x) + x * np.cos(x)


add(pair("r16_float32_grad_dtype_and_value", lambda: (lambda g: (g.dtype == np.float32, g))(revsrc.grad(f32_energy)(X32)),
         lambda: (True, _f32_ref()), tol=1e-6))
add(pair("r16_float32_vg_value_equals_plain", lambda: revsrc.value_and_grad(f32_energy)(X32)[0], lambda: f32_energy(X32), tol=0.0))

SCALE = 2.0


def uses_global(x):
    return SCALE * x * x


def _global_changed():
    global SCALE
    g = revsrc.grad(uses_global)
    a = g(1.5)
    SCALE = 5.0
    try:
        b = g(1.5)
        c = revsrc.jit(uses_global)(1.5)
    finally:
        SCALE = 2.0
    return a, b, c


add(pair("r16_global_changed_between_calls", _global_changed, lambda: (6.0, 15.0, 5.0 * 2.25), tol=0.0))


class Model:
    def __init__(self):
        self.k = 1.0

    def loss(self, x):
        return self.k * x ** 3


def _attr_changed():
    m = Model()
    g = revsrc.grad(m.loss)
    j = revsrc.jit(m.loss)
    a = g(2.0), j(2.0)
    m.k = 3.0
    return a, (g(2.0), j(2.0))


add(pair("r16_attribute_changed_between_calls", _attr_changed, lambda: ((12.0, 8.0), (36.0, 24.0)), tol=0.0))


def with_default(x, p=2.0):
    return x ** p


def _default_replaced():
    g = revsrc.grad(with_default)
    a = g(3.0)
    old = with_default.__defaults__
    with_default.__defaults__ = (3.0,)
    try:
        b = g(3.0)
    finally:
        with_default.__defaults__ = old
    return a, b


add(pair("r16_default_replaced_between_calls", _default_replaced, lambda: (6.0, 27.0), tol=0.0))


def _vjp_after_mutation():
    p = {"w": np.array([1.0, 2.0])}
    out, fn = revsrc.vjp(lambda d: np.sum(d["w"] ** 2), p)
    p["w"][0] = 10.0
    return fn(1.0)


add(pair("r16_vjp_after_argument_array_mutated_in_place", _vjp_after_mutation,
         lambda: ({"w": np.array([2.0, 4.0])},), tol=0.0))


def int_argnum(x, n):
    return x * n


add(pair("r16_grad_wrt_int_refused", lambda: revsrc.grad(int_argnum, argnums=1)(1.5, 3), lambda: None))
add(pair("r16_grad_int_input_value", lambda: revsrc.grad(lambda x: x * x)(3), lambda: 6.0, tol=0.0))
add(pair("r16_argnums_out_of_range", lambda: revsrc.grad(int_argnum, argnums=2)(1.5, 3), lambda: None))


def returns_vector(x):
    return np.array([x, x * x])


add(pair("r16_grad_of_vector_output_refused", lambda: revsrc.grad(returns_vector)(2.0), lambda: None))


def nan_branch(x):
    if x != x:
        return 0.0
    return x * x


add(pair("r16_nan_test_branch_grad", lambda: revsrc.value_and_grad(nan_branch)(float("nan")), lambda: (0.0, 0.0), tol=0.0))


def sumsq(w):
    return np.sum(w ** 2)


def _linearize_after_mutation():
    w = np.array([1.0, 2.0])
    y, lin = revsrc.linearize(sumsq, w)
    w[0] = 10.0
    return y, lin(np.array([1.0, 0.0]))


add(pair("r16_linearize_after_primal_mutated_in_place", _linearize_after_mutation, lambda: (5.0, 2.0), tol=0.0))


def _vjp_plain_array_mutation():
    w = np.array([1.0, 2.0])
    out, fn = revsrc.vjp(sumsq, w)
    w[0] = 10.0
    return out, fn(1.0)


add(pair("r16_vjp_plain_array_mutated_in_place", _vjp_plain_array_mutation, lambda: (5.0, (np.array([2.0, 4.0]),)), tol=0.0))
