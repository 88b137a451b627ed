"""User programs, corpus 6e: NumPy 2 keyword spellings (grad and jvp) and dtype mixtures
(float32, float16, ints, bools, NumPy scalars).  References: JAX x64 of the same program
(where jax.numpy has the spelling), central differences otherwise."""
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(64)


J = jax


X = np.array([0.4, -1.2, 0.9, 2.1, -0.3, 0.7])
M = np.array([[0.5, -0.2, 1.1], [0.3, 0.8, -0.6]])
T6 = np.array([0.3, 0.1, -0.5, 0.2, 0.9, -0.4])
TM = np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]])


def kwcase(name, f, arg, tan, ref="jax", tol=1e-9):
    """grad and jvp of f at arg, against JAX or central differences."""
    if ref == "jax":
        gref = lambda: J().grad(jaxify(f))(arg)  # noqa: E731
        jref = lambda: J().jvp(jaxify(f), (arg,), (tan,))  # noqa: E731
    else:
        gref = lambda: fd_grad(f, (arg,), {}, 0)  # noqa: E731

        def jref():
            h = 1e-6
            return [f(arg), (f(arg + h * tan) - f(arg - h * tan)) / (2 * h)]
        tol = max(tol, 1e-6)
    CASES.append(pair("np2_grad_" + name, lambda: revsrc.grad(f)(arg), gref, tol=tol))
    CASES.append(pair("np2_jvp_" + name, lambda: revsrc.jvp(f, (arg,), (tan,)), jref, tol=tol))


def k_sum_axis_keepdims(m):
    s = np.sum(m * m, axis=0, keepdims=True)
    return np.sum(np.sin(s) * m)


def k_mean_axis_tuple(m):
    return np.mean(np.exp(m), axis=(0, 1)) + np.mean(m, axis=-1)[1]


def k_std_correction(x):
    return np.std(x, correction=1) + np.var(x, ddof=1)


def k_clip_min_max(x):
    return np.sum(np.clip(x, min=-0.5, max=1.0) ** 2)


def k_clip_kw_bounds_diff(x):
    return np.sum(np.clip(T6 * 3.0, min=x, max=x + 1.0))


def k_concat(x):
    return np.sum(np.concat([x, x[::-1] * 2.0]) ** 3)


def k_pow_acos_atan2(x):
    return np.sum(np.pow(np.abs(x), 1.5) + np.atan2(x, 1.5) + np.acos(np.tanh(x) * 0.5))


def k_permute_dims(m):
    return np.sum(np.permute_dims(m, (1, 0)) @ m)


def k_reshape_shape_kw(x):
    return np.sum(np.reshape(x, shape=(2, 3)) @ np.ones(3) * np.reshape(x, (2, 3))[:, 0])


def k_reshape_copy_kw(x):
    return np.sum(np.reshape(x, (3, 2), copy=True) ** 2 * np.arange(6.0).reshape(3, 2))


def k_sort_stable(x):
    return np.sum(np.sort(x, stable=True) * np.arange(6.0))


def k_linspace_num(x):
    return np.sum(np.linspace(0.0, x[0], num=5) ** 2) + np.sum(np.linspace(x[1], x[2], 4, endpoint=False))


def k_take_axis(m):
    return np.sum(np.take(m, [2, 0, 0], axis=1) ** 2)


def k_tensordot_axes(m):
    return np.sum(np.tensordot(m, m, axes=([1], [1])))


def k_trace_offset(m):
    return np.trace(m, offset=1) * np.trace(m)


def k_diff_n_prepend(x):
    return np.sum(np.diff(x, n=2, prepend=0.0) ** 2)


def k_roll_shift(x):
    return np.sum(np.roll(x, shift=2) * x)


def k_pad_edge(x):
    return np.sum(np.pad(x, pad_width=2, mode="edge") * np.arange(10.0))


def k_norm_ord_axis(m):
    return np.sum(np.linalg.norm(m, ord=2, axis=1)) + np.linalg.norm(m, ord="fro")


def k_moveaxis_kw(m):
    return np.sum(np.moveaxis(m[None], source=0, destination=2) ** 2 * 0.5)


def k_expand_squeeze_axes(x):
    y = np.expand_dims(x, axis=(0, 2))
    return np.sum(np.squeeze(y, axis=2) * x)


def k_einsum_optimize(m):
    return np.einsum("ij,kj,ik->", m, m, m @ m.T, optimize=True)


def k_solve_keywords(x):
    A = np.array([[3.0, 1.0, 0.0], [1.0, 4.0, 0.5], [0.0, 0.5, 2.0]])
    return np.sum(np.linalg.solve(a=A, b=x[:3]) ** 2)


def k_methods_keywords(m):
    return m.sum(axis=1).prod() + m.max(axis=0).sum() + m.mean(axis=None)


def k_cumsum_dtype(x):
    return np.sum(np.cumsum(x, axis=0, dtype=np.float64) ** 2)


def k_prod_keepdims(m):
    return np.sum(np.prod(m + 2.0, axis=1, keepdims=True) * m)


def k_trapezoid(x):
    return np.trapezoid(x ** 2, dx=0.5)


def k_logaddexp_hypot(x):
    return np.sum(np.logaddexp(x, 0.3) + np.hypot(x, 1.0))


def k_round_decimals(x):
    return np.sum(np.round(x, decimals=1) * x)


def k_max_where_initial(x):
    return np.max(x * 2.0, initial=-10.0, where=x > 0)


def k_sum_where(x):
    return np.sum(x ** 2, where=x > 0)


def k_mean_where(x):
    return np.mean(x ** 2, where=x < 1.0)


def k_vecdot(x):
    return np.vecdot(x[:3], x[3:] * 2.0)


def k_matrix_transpose(m):
    return np.sum(np.matrix_transpose(m) @ m)


def k_mT(m):
    return np.sum(m.mT @ m)


def k_astype_copy(x):
    return np.sum(x.astype(np.float64, copy=True) ** 2)


def k_var_mean_kw(x):
    mu = np.mean(x)
    return np.var(x, mean=mu) + mu


def k_quantile_method_kw(x):
    return np.quantile(x, 0.3, method="linear") + np.percentile(x, q=80)


def k_argsort_take_along(x):
    order = np.argsort(x, stable=True)
    return np.sum(np.take_along_axis(x, order, axis=0) * np.arange(6.0))


def k_where_keyword_free(x):
    return np.sum(np.where(x > 0.5, x, x * x))


def k_isin_mask(x):
    mask = np.isin(np.arange(6), [1, 3, 4])
    return np.sum(x[mask] ** 2)


NO_JAX = {"k_std_correction", "k_clip_min_max", "k_clip_kw_bounds_diff", "k_concat", "k_pow_acos_atan2",
          "k_permute_dims", "k_reshape_shape_kw", "k_reshape_copy_kw", "k_sort_stable", "k_einsum_optimize",
          "k_solve_keywords", "k_trapezoid", "k_max_where_initial", "k_sum_where", "k_mean_where",
          "k_vecdot", "k_matrix_transpose", "k_mT", "k_astype_copy", "k_var_mean_kw", "k_quantile_method_kw",
          "k_argsort_take_along", "k_round_decimals", "k_cumsum_dtype", "k_moveaxis_kw", "k_pad_edge",
          "k_diff_n_prepend", "k_norm_ord_axis", "k_methods_keywords", "k_expand_squeeze_axes",
          "k_take_axis", "k_isin_mask"}

for _f in [k_sum_axis_keepdims, k_mean_axis_tuple, k_std_correction, k_clip_min_max, k_clip_kw_bounds_diff,
           k_concat, k_pow_acos_atan2, k_permute_dims, k_reshape_shape_kw, k_reshape_copy_kw, k_sort_stable,
           k_linspace_num, k_take_axis, k_tensordot_axes, k_trace_offset, k_diff_n_prepend, k_roll_shift,
           k_pad_edge, k_norm_ord_axis, k_moveaxis_kw, k_expand_squeeze_axes, k_einsum_optimize,
           k_solve_keywords, k_methods_keywords, k_cumsum_dtype, k_prod_keepdims, k_trapezoid,
           k_logaddexp_hypot, k_round_decimals, k_max_where_initial, k_sum_where, k_mean_where, k_vecdot,
           k_matrix_transpose, k_mT, k_astype_copy, k_var_mean_kw, k_quantile_method_kw,
           k_argsort_take_along, k_where_keyword_free, k_isin_mask]:
    _is_mat = _f.__code__.co_varnames[0] == "m"
    kwcase(_f.__name__[2:], _f, M if _is_mat else X, TM if _is_mat else T6,
           ref="fd" if _f.__name__ in NO_JAX else "jax")

# -- dtype mixtures -------------------------------------------------------------------------------


add = adder(CASES)


def f32_times_f64(x):
    return np.sum(x * np.array([1.5, 2.5, 3.5]) + np.sin(x))


X32 = np.array([0.1, 0.2, 0.3], dtype=np.float32)
add("dtype_grad_float32_kept",
    lambda: [revsrc.grad(f32_times_f64)(X32).dtype == np.float32],
    lambda: [True], tol=0.0)
add("dtype_grad_float32_values",
    lambda: revsrc.grad(f32_times_f64)(X32),
    lambda: np.array([1.5, 2.5, 3.5]) + np.cos(X32.astype(np.float64)), tol=1e-6)

X16 = np.array([0.5, 1.0, -0.25], dtype=np.float16)
add("dtype_grad_float16",
    lambda: revsrc.grad(lambda x: np.sum(x * x))(X16),
    lambda: 2.0 * X16.astype(np.float64), tol=1e-3)
add("dtype_grad_float16_kept",
    lambda: [revsrc.grad(lambda x: np.sum(x * x))(X16).dtype == np.float16],
    lambda: [True], tol=0.0)


def times_int_array(x):
    return np.sum(x * np.arange(3) + x ** 2 // 1 + (x > 0) * x)


add("dtype_int_and_bool_arrays_in_arithmetic",
    lambda: revsrc.grad(times_int_array)(np.array([0.5, -1.5, 2.25])),
    lambda: np.arange(3.0) + np.array([1.0, 0.0, 1.0]))


def np_scalar_arg(x):
    return x * x * 3.0 + np.sin(x)


add("dtype_np_float64_scalar_arg",
    lambda: revsrc.grad(np_scalar_arg)(np.float64(0.7)),
    lambda: 6.0 * 0.7 + math.cos(0.7))
add("dtype_np_float32_scalar_arg",
    lambda: revsrc.grad(np_scalar_arg)(np.float32(0.7)),
    lambda: 6.0 * 0.7 + math.cos(0.7), tol=1e-6)
add("dtype_np_float32_scalar_arg_type",
    lambda: [isinstance(revsrc.grad(np_scalar_arg)(np.float32(0.7)), (np.float32, np.ndarray))
             and np.asarray(revsrc.grad(np_scalar_arg)(np.float32(0.7))).dtype == np.float32],
    lambda: [True], tol=0.0)
add("dtype_0d_array_arg",
    lambda: revsrc.grad(np_scalar_arg)(np.array(0.7)),
    lambda: 6.0 * 0.7 + math.cos(0.7))


def int_power_forms(x):
    return x ** 2 + x ** 2.0 + x ** np.int64(3) + x ** np.float32(0.5) + pow(x, 2)


add("dtype_int_float_np_exponents",
    lambda: revsrc.grad(int_power_forms)(1.7),
    lambda: 2 * 1.7 + 2 * 1.7 + 3 * 1.7 ** 2 + 0.5 / math.sqrt(1.7) + 2 * 1.7, tol=1e-7)  # NEP 50: x ** f32 is f32


def bool_arith(x, flag):
    return (True * x + flag * x ** 2 + (not flag) * x ** 3) * (1 + True)


add("dtype_bool_in_arithmetic_true",
    lambda: revsrc.grad(bool_arith)(1.3, True), lambda: 2 * (1.0 + 2 * 1.3))
add("dtype_bool_in_arithmetic_false",
    lambda: revsrc.grad(bool_arith)(1.3, False), lambda: 2 * (1.0 + 3 * 1.3 ** 2))
add("dtype_grad_wrt_int_refused_E301",
    lambda: revsrc.grad(lambda n: n * 2.0)(3), lambda: 2.0)
add("dtype_grad_wrt_bool_array_refused",
    lambda: revsrc.grad(lambda b: np.sum(b * 2.0))(np.array([True, False])), lambda: np.zeros(2))


def astype_roundtrip(x):
    y = x.astype(np.float32)
    return np.sum(y.astype(np.float64) * x)


add("dtype_astype_float32_inside",
    lambda: revsrc.grad(astype_roundtrip)(np.array([0.1, 0.7])),
    lambda: 2.0 * np.array([0.1, 0.7]), tol=1e-6)


def astype_int_inside(x):
    k = x.astype(np.int64)
    return np.sum(k * x + x)


add("dtype_astype_int_inside_zero_grad_path",
    lambda: revsrc.grad(astype_int_inside)(np.array([1.7, 2.2, -0.4])),
    lambda: np.array([1.0, 2.0, 0.0]) + 1.0)


def mixed_container_dtypes(p):
    return np.sum(p["a"] * p["b"]) + p["c"] ** 2


PMIX = {"a": np.array([1.0, 2.0], dtype=np.float32), "b": np.array([0.5, -0.5]), "c": 1.5}
add("dtype_dict_float32_and_float64_leaves",
    lambda: revsrc.grad(mixed_container_dtypes)(PMIX),
    lambda: {"a": np.array([0.5, -0.5]), "b": np.array([1.0, 2.0]), "c": 3.0}, tol=1e-6)
add("dtype_dict_leaf_dtypes_kept",
    lambda: [revsrc.grad(mixed_container_dtypes)(PMIX)["a"].dtype == np.float32,
             revsrc.grad(mixed_container_dtypes)(PMIX)["b"].dtype == np.float64],
    lambda: [True, True], tol=0.0)


def int_division_mod(x):
    return (x // 0.5) * x + (x % 0.5) * 3.0 + divmod(7, 2)[0] * x


add("dtype_floor_div_and_mod_float",
    lambda: revsrc.grad(int_division_mod)(1.3),
    lambda: (1.3 // 0.5) + 3.0 + 3.0)


def sum_of_bools(x):
    count = np.sum(x > 0)
    return count * np.sum(x) + np.count_nonzero(x < 0) * np.max(x)


add("dtype_counts_of_bools",
    lambda: revsrc.grad(sum_of_bools)(np.array([0.5, -1.0, 2.0, 0.1])),
    lambda: np.array([3.0, 3.0, 3.0 + 1.0, 3.0]))


def int32_index(x, idx):
    return np.sum(x[idx] ** 2)


add("dtype_int32_index_array_repeats",
    lambda: revsrc.grad(int32_index)(np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2], dtype=np.int32)),
    lambda: np.array([2.0, 0.0, 12.0]))


def uint8_image(x, img):
    return np.sum(x * img / 255.0)


IMG = np.array([[0, 128], [255, 7]], dtype=np.uint8)
add("dtype_uint8_data_times_param",
    lambda: revsrc.grad(uint8_image)(np.ones((2, 2)), IMG),
    lambda: IMG / 255.0)


def f32_matmul_mix(W, x):
    return np.sum(np.tanh(W @ x))


W32 = RNG.normal(size=(3, 2)).astype(np.float32)
add("dtype_float32_weights_float64_data",
    lambda: revsrc.grad(f32_matmul_mix)(W32, np.array([0.3, -0.8])),
    lambda: J().grad(jaxify(f32_matmul_mix))(W32.astype(np.float64), np.array([0.3, -0.8])), tol=1e-6)
add("dtype_float32_hessian",
    lambda: revsrc.hessian(lambda v: np.sum(v ** 3))(X32),
    lambda: np.diag(6.0 * X32.astype(np.float64)), tol=1e-6)
add("dtype_float32_jvp",
    lambda: revsrc.jvp(lambda v: np.sum(np.exp(v)), (X32,), (np.ones(3, dtype=np.float32),)),
    lambda: [np.sum(np.exp(X32)), np.sum(np.exp(X32.astype(np.float64)))], tol=1e-6)
