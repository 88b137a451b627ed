"""Round 15, part l: edge values, types and state between calls -- zeros, inf / nan,
ints vs floats, float32, 0-d and empty arrays, complex, bool arrays; globals,
functions, attributes and default lists changed between calls of grad / jit / vmap."""
import math
import types

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def softplus_sum(x):
    return np.sum(np.logaddexp(0.0, x))


add(G("r15_logaddexp_at_zeros", softplus_sum, (np.zeros(3),), ref=lambda: np.full(3, 0.5), tol=1e-15))
add(G("r15_logaddexp_at_large", softplus_sum, (np.array([800.0, -800.0, 0.0]),), ref=lambda: np.array([1.0, 0.0, 0.5]), tol=1e-15))


def inf_in_branch(x):
    m = -math.inf
    for v in (x, 2 * x, -x):
        if v > m:
            m = v
    return m


add(G("r15_running_max_from_minus_inf", inf_in_branch, (1.5,), ref=lambda: 2.0, tol=1e-15))
add(G("r15_running_max_from_minus_inf_negative", inf_in_branch, (-1.5,), ref=lambda: -1.0, tol=1e-15))


def nan_skip(x):
    y = np.where(np.isnan(x), 0.0, x)
    return np.sum(y ** 2) + np.nansum(x)


XN = np.array([1.0, np.nan, -2.0])
add(G("r15_nan_where_isnan_nansum", nan_skip, (XN,), ref=lambda: np.array([3.0, 0.0, -3.0]), tol=1e-15))


def int_arith(x, n):
    return x ** n + n * x + (n // 2) * x * x


add(G("r15_int_power_floor_div", int_arith, (1.5, 3), ref=lambda: 3 * 1.5 ** 2 + 3 + 2 * 1 * 1.5, tol=1e-14))
add(pair("r15_jit_int_and_float_same_fn", lambda: (revsrc.jit(int_arith)(2.0, 3), revsrc.jit(int_arith)(2, 3)),
         lambda: (int_arith(2.0, 3), int_arith(2, 3)), tol=0.0))
add(pair("r15_jit_int_result_is_int", lambda: float(isinstance(revsrc.jit(int_arith)(2, 3), int)), lambda: 1.0, tol=0.0))


def f32_loss(w, x):
    return np.sum(np.tanh(w * x) ** 2)


W32 = np.array([0.5, -1.0, 2.0], dtype=np.float32)
X32 = np.array([1.0, 0.5, 0.25], dtype=np.float32)


def _f32_check():
    g = revsrc.grad(f32_loss)(W32, X32)
    return (str(g.dtype), g.astype(np.float64))


def _f32_ref():
    t = np.tanh(W32.astype(float) * X32)
    return ("float32", 2 * t * (1 - t ** 2) * X32)


add(pair("r15_float32_gradient_dtype_and_value", _f32_check, _f32_ref, tol=1e-5))
add(pair("r15_float32_value_and_grad_value_dtype", lambda: str(np.asarray(revsrc.value_and_grad(f32_loss)(W32, X32)[0]).dtype),
         lambda: str(np.asarray(f32_loss(W32, X32)).dtype), tol=0.0))


def zero_d(a):
    return float(a * a) + np.sin(a)


add(G("r15_zero_d_array_argument", zero_d, (np.array(0.7),), ref=lambda: 1.4 + math.cos(0.7), tol=1e-14))
add(pair("r15_zero_d_grad_shape", lambda: float(np.shape(revsrc.grad(zero_d)(np.array(0.7))) == ()), lambda: 1.0, tol=0.0))


def empty_ok(x, extra):
    return np.sum(x ** 2) + np.sum(extra) + np.prod(extra) * x[0]


add(G("r15_empty_array_sum_prod", empty_ok, (np.array([1.0, 2.0]), np.zeros(0)), ref=lambda: np.array([3.0, 4.0]), tol=1e-14))
add(G("r15_empty_array_wrt_empty", empty_ok, (np.array([1.0, 2.0]), np.zeros(0)), argnums=1, ref=lambda: np.zeros(0), tol=1e-14))


def complex_mid(x):
    z = x * (1.0 + 2.0j)
    w = z * np.conj(z) + np.exp(1j * x)
    return np.real(w) + np.imag(w) ** 2


add(G("r15_complex_intermediate_real_imag", complex_mid, (0.6,), ref=lambda: 10 * 0.6 - math.sin(0.6) + 2 * math.sin(0.6) * math.cos(0.6), tol=1e-13))


def bool_mask_arg(x, mask):
    return np.sum(x[mask] ** 2) + np.sum(np.where(mask, 0.0, x))


MB = np.array([True, False, True, False])
add(G("r15_bool_array_argument_mask", bool_mask_arg, (np.array([1.0, 2.0, 3.0, 4.0]), MB), ref=lambda: np.array([2.0, 1.0, 6.0, 1.0]), tol=1e-14))
add(pair("r15_bool_array_mask_wrt_bool_refused", lambda: revsrc.grad(bool_mask_arg, argnums=1)(np.ones(4), MB), lambda: None, tol=0.0))

SCALE = 2.0


def uses_global(x):
    return SCALE * x * x


def _global_rebind():
    global SCALE
    g = revsrc.grad(uses_global)
    j = revsrc.jit(revsrc.grad(uses_global))
    v = revsrc.vmap(revsrc.grad(uses_global))
    a = (g(1.5), j(1.5), v(np.array([1.5]))[0])
    SCALE = 5.0
    try:
        b = (g(1.5), j(1.5), v(np.array([1.5]))[0])
    finally:
        SCALE = 2.0
    return a + b


add(pair("r15_global_rebound_between_calls_grad_jit_vmap", _global_rebind, lambda: (6.0, 6.0, 6.0, 15.0, 15.0, 15.0), tol=0.0))


def helper_a(x):
    return x * x


HELP = helper_a


def calls_helper(x):
    return HELP(x) + 1.0


def _helper_swap():
    global HELP
    g = revsrc.grad(calls_helper)
    j = revsrc.jit(calls_helper)
    a = (g(3.0), j(3.0))
    HELP = math.sin
    try:
        b = (g(3.0), j(3.0))
    finally:
        HELP = helper_a
    return a + b


add(pair("r15_global_function_rebound_grad_jit", _helper_swap, lambda: (6.0, 10.0, math.cos(3.0), math.sin(3.0) + 1.0), tol=0.0))


class Config:
    def __init__(self):
        self.k = 2.0


CFG = Config()


def uses_attr(x):
    return CFG.k * x ** 3


def _attr_change():
    g = revsrc.grad(uses_attr)
    j = revsrc.jit(revsrc.grad(uses_attr))
    a = (g(1.0), j(1.0))
    CFG.k = 3.0
    try:
        b = (g(1.0), j(1.0))
    finally:
        CFG.k = 2.0
    return a + b


add(pair("r15_attribute_changed_between_calls", _attr_change, lambda: (6.0, 6.0, 9.0, 9.0), tol=0.0))


def with_default_list(x, coeffs=[1.0, 2.0, 3.0]):  # noqa: B006 - the point
    return sum(c * x ** i for i, c in enumerate(coeffs))


def _default_list_change():
    g = revsrc.grad(with_default_list)
    v = revsrc.vmap(revsrc.grad(with_default_list))
    a = (g(2.0), v(np.array([2.0]))[0])
    with_default_list.__defaults__[0][2] = 10.0
    try:
        b = (g(2.0), v(np.array([2.0]))[0])
    finally:
        with_default_list.__defaults__[0][2] = 3.0
    return a + b


add(pair("r15_default_list_item_changed_grad_vmap", _default_list_change, lambda: (14.0, 14.0, 42.0, 42.0), tol=0.0))

TABLE = [0.5, 1.5, 2.5]


def uses_table(x):
    s = 0.0
    for c in TABLE:
        s += c * math.sin(c * x)
    return s


def _table_append():
    j = revsrc.jit(revsrc.grad(uses_table))
    a = j(0.3)
    TABLE.append(3.5)
    try:
        b = j(0.3)
    finally:
        TABLE.pop()
    return (a, b)


add(pair("r15_global_list_append_between_jit_calls", _table_append,
         lambda: (sum(c * c * math.cos(c * 0.3) for c in (0.5, 1.5, 2.5)), sum(c * c * math.cos(c * 0.3) for c in (0.5, 1.5, 2.5, 3.5))), tol=1e-15))


def _code_swap():
    def f(x):
        return x * x
    g = revsrc.grad(f)
    a = g(2.0)
    f.__code__ = (lambda x: x * x * x).__code__
    b = g(2.0)
    return (a, b)


add(pair("r15_code_replaced_between_calls", _code_swap, lambda: (4.0, 12.0), tol=0.0))


def nan_input_grad(x):
    return x * 0.0 + 3.0 * x


add(G("r15_nan_input_propagates", nan_input_grad, (math.nan,), ref=lambda: 3.0, tol=0.0))
add(G("r15_inf_input_linear", nan_input_grad, (math.inf,), ref=lambda: 3.0, tol=0.0))


def sqrt_guard(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)), 0.0))


add(G("r15_sqrt_where_guard_at_zero", sqrt_guard, (np.array([0.0, 4.0, -1.0]),), ref=lambda: np.array([0.0, 0.25, 0.0]), tol=1e-15))


def pow_half(x):
    return x ** 0.5


add(G("r15_pow_half_at_zero_inf", pow_half, (0.0,), ref=lambda: math.inf, tol=0.0))


def abs_kink(x):
    return np.sum(np.abs(x)) + np.max(np.abs(x))


add(G("r15_abs_at_zero_subgradient", abs_kink, (np.array([0.0, -2.0, 1.0]),), ref=lambda: np.array([0.0, -2.0, 1.0]), tol=1e-15))


def scalar_f(x):
    return x * x * x


add(pair("r15_vmap_float32_array_per_element", lambda: revsrc.vmap(revsrc.grad(scalar_f))(np.array([1.0, 2.0], dtype=np.float32)),
         lambda: np.array([3.0, 12.0], dtype=np.float32), tol=0.0))
add(pair("r15_vmap_int_array_value", lambda: revsrc.vmap(scalar_f)(np.array([1, 2, 3])), lambda: np.array([1, 8, 27]), tol=0.0))
add(pair("r15_vmap_empty_array", lambda: revsrc.vmap(revsrc.grad(scalar_f))(np.zeros(0)), lambda: np.zeros(0), tol=0.0))
add(pair("r15_grad_numpy_float32_scalar", lambda: revsrc.grad(scalar_f)(np.float32(2.0)), lambda: np.float32(12.0), tol=0.0))
add(pair("r15_grad_numpy_float64_scalar_type", lambda: float(isinstance(revsrc.grad(scalar_f)(np.float64(2.0)), (float, np.floating))), lambda: 1.0, tol=0.0))
add(pair("r15_grad_int_argument_refused", lambda: revsrc.grad(scalar_f)(2), lambda: None, tol=0.0))


def holo(z):
    return np.sum(z ** 2 * np.exp(z))


ZC = np.array([0.3 + 0.2j, -0.1 + 1.0j])
add(pair("r15_holomorphic_complex_grad", lambda: revsrc.grad(holo, holomorphic=True)(ZC),
         lambda: (2 * ZC + ZC ** 2) * np.exp(ZC), tol=1e-13))


def make_closure(k):
    def f(x):
        return k * math.sin(x)
    return f


def _closure_cell_change():
    f = make_closure(2.0)
    g = revsrc.grad(f)
    j = revsrc.jit(revsrc.grad(f))
    a = (g(0.0), j(0.0))
    f.__closure__[0].cell_contents = 7.0
    b = (g(0.0), j(0.0))
    return a + b


add(pair("r15_closure_cell_changed_between_calls", _closure_cell_change, lambda: (2.0, 2.0, 7.0, 7.0), tol=0.0))


def kw_default(x, a=1.0):
    return a * x * x


def _defaults_replaced():
    g = revsrc.grad(kw_default)
    j = revsrc.jit(kw_default)
    v = revsrc.vmap(kw_default)
    a = (g(1.0), j(1.0), v(np.array([1.0]))[0])
    old = kw_default.__defaults__
    kw_default.__defaults__ = (4.0,)
    try:
        b = (g(1.0), j(1.0), v(np.array([1.0]))[0])
    finally:
        kw_default.__defaults__ = old
    return a + b


add(pair("r15_defaults_tuple_replaced_grad_jit_vmap", _defaults_replaced, lambda: (2.0, 1.0, 1.0, 8.0, 4.0, 4.0), tol=0.0))

CONSTS = {"a": 1.0, "b": 2.0}


def uses_dict(x):
    return CONSTS["a"] * x + CONSTS["b"] * x * x


def _dict_item_change():
    j = revsrc.jit(revsrc.grad(uses_dict))
    v = revsrc.vmap(uses_dict)
    a = (j(1.0), v(np.array([1.0]))[0])
    CONSTS["b"] = -3.0
    try:
        b = (j(1.0), v(np.array([1.0]))[0])
    finally:
        CONSTS["b"] = 2.0
    return a + b


add(pair("r15_global_dict_item_changed_jit_vmap", _dict_item_change, lambda: (5.0, 3.0, -5.0, -2.0), tol=0.0))


def _array_global_change():
    g = revsrc.grad(arr_global_fn)
    a = g(np.ones(2))
    ARR[0] = 5.0
    try:
        b = g(np.ones(2))
    finally:
        ARR[0] = 1.0
    return (a, b)


ARR = np.array([1.0, 2.0])


def arr_global_fn(x):
    return np.sum(ARR * x ** 2)


add(pair("r15_global_array_mutated_between_calls", _array_global_change,
         lambda: (np.array([2.0, 4.0]), np.array([10.0, 4.0])), tol=0.0))


def _vjp_bad_cotangent():
    out, back = revsrc.vjp(lambda x: x * 2.0, np.ones(3))
    return back(np.ones(4))


# a user's mistake: a cotangent of the wrong shape; the answer is a coded refusal (JAX
# raises a ValueError naming both shapes), not an error from revsrc's internals
add(pair("r15_vjp_cotangent_wrong_shape", _vjp_bad_cotangent, lambda: None, tol=0.0))
add(pair("r15_vmap_in_axes_none_without_axis_size", lambda: revsrc.vmap(lambda p: p * 2.0, in_axes=None)(1.0), lambda: None, tol=0.0))
add(pair("r15_vmap_mapped_lengths_differ", lambda: revsrc.vmap(lambda a, b: a * b)(np.ones(3), np.ones(4)), lambda: None, tol=0.0))
add(pair("r15_grad_argnums_negative", lambda: revsrc.grad(int_arith, argnums=-1)(1.5, 3.0), lambda: 1.5 ** 3 * math.log(1.5) + 1.5, tol=1e-13))
add(pair("r15_grad_complex_argument_real_output", lambda: revsrc.grad(lambda z: abs(z) ** 2)(1.0 + 2.0j), lambda: 2.0 - 4.0j, tol=1e-14))
add(pair("r15_grad_of_zero_d_array_output", lambda: revsrc.grad(lambda x: np.array(x * 2.0))(1.0), lambda: 2.0, tol=0.0))
add(pair("r15_jvp_int_tangent", lambda: revsrc.jvp(int_arith, (1.5, 3.0), (1, 0)), lambda: (int_arith(1.5, 3.0), 3 * 1.5 ** 2 + 3.0 + 2 * 1.5), tol=1e-13))


CFGNS = types.SimpleNamespace(k=2.0)


def uses_namespace(x):
    return CFGNS.k * x * x


def _namespace_change(transform):
    def run():
        t = transform(uses_namespace)
        a = t(1.5)
        CFGNS.k = 5.0
        try:
            b = t(1.5)
        finally:
            CFGNS.k = 2.0
        return (a, b)
    return run


add(pair("r15_module_namespace_attr_jit_grad", _namespace_change(lambda f: revsrc.jit(revsrc.grad(f))), lambda: (6.0, 15.0), tol=0.0))
add(pair("r15_module_namespace_attr_jit_value", _namespace_change(revsrc.jit), lambda: (4.5, 11.25), tol=0.0))
add(pair("r15_module_namespace_attr_vmap_value", _namespace_change(lambda f: (lambda x: revsrc.vmap(f)(np.array([x]))[0])), lambda: (4.5, 11.25), tol=0.0))
