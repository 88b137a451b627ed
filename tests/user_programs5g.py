"""User programs, corpus 5g: casts, lambdas in tables, more idioms."""
import math

import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- casts that must stop the gradient ---------------------------------------------------

def quantize_image(x):
    q = (x * 100).astype(np.uint8) / 255.0       # an 8-bit image, as a preprocessing step
    return np.sum(q * x)


add("uint8_quantize_then_scale", quantize_image, (np.array([1.7, 2.2]),),
    ref=lambda: [(np.array([1.7, 2.2]) * 100).astype(np.uint8) / 255.0])


def int_list_array(s):
    return float(np.sum(np.asarray([s, s], dtype=int) * s))


add("asarray_list_dtype_int", int_list_array, (1.7,), ref=lambda: [2.0])


def int_then_float(x):
    return np.sum(x.astype(int).astype(float) * x)


add("astype_int_then_float", int_then_float, (np.array([1.7, 2.2]),), ref=lambda: [np.array([1.0, 2.0])])


def int16_copy(x):
    return np.sum(np.array(x, dtype=np.int16, copy=True) * 1.0 + x)


add("np_array_int16_copy", int16_copy, (np.array([1.7, 2.2]),), ref=lambda: [np.ones(2)])


def hist_counts_weights(x):
    bins = np.floor(x * 2).astype(np.int64)
    counts = np.bincount(bins, minlength=6)
    return np.sum(counts[bins] * x)


add("bincount_of_cast_bins", hist_counts_weights, (np.array([0.3, 0.4, 1.6, 2.2]),),
    ref=lambda: [np.array([2.0, 2.0, 1.0, 1.0])])


# ---- tables of lambdas and functions -------------------------------------------------------

LOSSES = {
    "l2": lambda x: np.sum(x ** 2),
    "l1": lambda x: np.sum(np.abs(x)),
}


add("grad_of_lambda_in_dict_literal", LOSSES["l2"], (np.array([1.0, -2.0]),))

ACTS = (np.tanh, np.sin)


def tuple_of_functions(x):
    return np.sum(ACTS[0](x) + ACTS[1](x))


add("global_tuple_of_functions", tuple_of_functions, (np.array([0.3, 0.6]),))


def dispatch(x, kind="l2"):
    table = {"l2": lambda v: v * v, "abs": lambda v: abs(v)}
    return table[kind](x) * 3.0


add("local_dict_of_lambdas_dispatch", dispatch, (1.5,), kw={"kind": "l2"})


def dispatch_if(x, kind):
    if kind == "sq":
        act = np.square
    elif kind == "exp":
        act = np.exp
    else:
        act = np.tanh
    return np.sum(act(x))


add("function_chosen_by_string_arg", dispatch_if, (np.array([0.1, 0.2]), "exp"))
add("function_chosen_by_string_arg_else", dispatch_if, (np.array([0.1, 0.2]), "other"))


def apply_twice(fn, x):
    return fn(fn(x))


def uses_apply(x):
    return apply_twice(math.sin, x) + apply_twice(lambda t: t * t, x)


add("higher_order_helper_with_lambda", uses_apply, (0.7,))


def lambda_in_comprehension(x):
    return sum((lambda t: t * x)(k) for k in range(4))


add("iife_lambda_in_genexpr", lambda_in_comprehension, (0.7,))


def map_lambda(xs):
    return sum(map(lambda v: v ** 3, xs)) + np.sum(np.array(list(filter(lambda v: v > 0, xs))))


add("map_filter_lambdas", map_lambda, (np.array([1.0, -2.0, 0.5]),))


# ---- string-keyed dicts, dict idioms ---------------------------------------------------------

def dict_get_default(p, x):
    w = p.get("w", 1.0)
    b = p.get("b", 0.0)
    return np.sum((w * x + b) ** 2)


add("dict_get_missing_key", dict_get_default, ({"w": np.array([0.5, 2.0])}, np.array([1.0, 3.0])))


def dict_merge(p, x):
    q = {**p, "b": p["a"] * 2.0}
    q.update(c=x)
    return q["a"] * q["b"] * q["c"]


add("dict_unpack_merge_update", dict_merge, ({"a": 1.5}, 0.5), argnums=(0, 1))


def dict_setdefault_accumulate(x):
    acc = {}
    for i, v in enumerate(x):
        key = "even" if i % 2 == 0 else "odd"
        acc[key] = acc.get(key, 0.0) + v * v
    return acc["even"] * acc["odd"]


add("dict_accumulate_by_key", dict_setdefault_accumulate, (np.array([1.0, 2.0, 3.0, 4.0]),))


def dict_values_sum(p):
    return sum(np.sum(v ** 2) for v in p.values()) + len(p)


add("dict_values_generator", dict_values_sum, ({"x": np.array([1.0, 2.0]), "y": 3.0},))


def nested_dict_grad(p):
    return p["enc"]["w"] * p["dec"]["w"] + math.exp(p["enc"]["b"])


add("nested_dict_params", nested_dict_grad, ({"enc": {"w": 2.0, "b": 0.1}, "dec": {"w": -1.0}},))


def kwargs_forward(x, **opts):
    return x ** opts.get("p", 2) * opts.get("scale", 1.0)


add("kwargs_get", kwargs_forward, (1.5,), kw={"p": 3, "scale": 2.0})


def star_args_sum(*xs):
    return sum(x * x for x in xs)


add("star_args_argnums_tuple", star_args_sum, (1.0, 2.0, 3.0), argnums=(0, 2))


# ---- shadowing builtins, default mutable arguments -------------------------------------------

def shadow_sum(x):
    sum = np.sum
    max = np.max
    return sum(x ** 2) + max(x)


add("shadowed_builtins", shadow_sum, (np.array([1.0, 3.0, 2.0]),))


def default_list_arg(x, hist=[]):
    hist = hist + [x]
    return sum(h * h for h in hist)


add("mutable_default_list", default_list_arg, (1.5,))


def numeric_default(x, scale=np.float32(2.0)):
    return scale * x * x


# np.float32 * float is float32 under NEP 50: the exact derivative, not central differences.
add("float32_default_scale", numeric_default, (1.5,), ref=lambda: [6.0])


# ---- misc numerics ----------------------------------------------------------------------

def prod_with_zeros(x):
    return np.prod(x) + math.prod([x[0], x[1]])


add("prod_two_zeros", prod_with_zeros, (np.array([0.0, 0.0, 2.0]),), ref=lambda: [np.zeros(3)])
add("prod_one_zero", prod_with_zeros, (np.array([0.0, 3.0, 2.0]),), ref=lambda: [np.array([9.0, 0.0, 0.0])])


def cumprod_zero(x):
    return np.sum(np.cumprod(x))


add("cumprod_with_zero", cumprod_zero, (np.array([2.0, 0.0, 3.0]),))


def var_ddof(x):
    return np.var(x, ddof=1) + np.std(x, axis=0, ddof=1).sum()


add("var_std_ddof", var_ddof, (np.array([[1.0, 2.0], [3.0, 5.0], [0.5, -1.0]]),))


def mean_multi_axis(x):
    return np.sum(np.mean(x, axis=(0, 2)) ** 2) + np.sum(np.max(x, axis=(1, 2)))


add("mean_tuple_axis", mean_multi_axis, (np.arange(12.0).reshape(2, 3, 2) ** 1.5 / 7,))


def norms(A):
    return np.linalg.norm(A, "fro") + np.linalg.norm(A, 1) + np.linalg.norm(A[0], np.inf) + np.linalg.norm(A, axis=1).sum()


add("norm_orders", norms, (np.array([[1.0, -2.0], [0.5, 3.0]]),))


def roll_flip_tile(x):
    return np.sum(np.roll(x, 1) * np.flip(x) * np.tile(x, 2)[1:4]) + np.sum(np.repeat(x, 2)[::3])


add("roll_flip_tile_repeat", roll_flip_tile, (np.array([0.5, -1.0, 2.0]),))


def pad_modes(x):
    return np.sum(np.pad(x, 2, mode="reflect") ** 2) + np.sum(np.pad(x, (1, 0), mode="edge") * 3.0)


add("pad_reflect_edge", pad_modes, (np.array([0.5, -1.0, 2.0]),))


def argsort_gather(x):
    order = np.argsort(x)
    w = np.linspace(0.0, 1.0, len(x))
    return np.sum(x[order] * w) + x[np.argmax(x)] ** 2


add("argsort_argmax_gather", argsort_gather, (np.array([0.3, -1.0, 2.0, 0.7]),))


def vectorize_piecewise(x):
    def pw(v):
        return v * v if v > 0 else -v
    return np.sum(np.vectorize(pw)(x))


add("np_vectorize_nested_def", vectorize_piecewise, (np.array([0.3, -1.0, 2.0]),))


def _pw(v):
    return v * v if v > 0 else -v


def vectorize_module_level(x):
    return np.sum(np.vectorize(_pw)(x))


add("np_vectorize_module_def", vectorize_module_level, (np.array([0.3, -1.0, 2.0]),))


def vectorize_kept(x):
    vf = np.vectorize(_pw)
    return np.sum(vf(x))


add("np_vectorize_assigned_then_called", vectorize_kept, (np.array([0.3, -1.0, 2.0]),))


def interp_curve(x):
    xp = np.array([0.0, 1.0, 2.0])
    fp = np.array([0.0, 2.0, 1.0])
    return np.sum(np.interp(x, xp, fp) ** 2)


add("np_interp", interp_curve, (np.array([0.3, 1.5]),))


def gradient_fd(x):
    return np.sum(np.gradient(x) ** 2)


add("np_gradient", gradient_fd, (np.array([0.3, 1.5, 0.2, 2.0]),))


def convolve_same(x):
    return np.sum(np.convolve(x, np.array([0.25, 0.5, 0.25]), mode="same") ** 2)


add("np_convolve_same", convolve_same, (np.array([0.3, 1.5, 0.2, 2.0]),))


def trapz_integral(y):
    # the untaken arm names a function NumPy 2 removed: Python never evaluates it
    return np.trapezoid(y ** 2, dx=0.1) if hasattr(np, "trapezoid") else np.trapz(y ** 2, dx=0.1)


def trapezoid_direct(y):
    return np.trapezoid(y ** 2, dx=0.1)


add("np_trapezoid_direct", trapezoid_direct, (np.array([0.3, 1.5, 0.2, 2.0]),))
add("untaken_arm_missing_attribute", trapz_integral, (np.array([0.3, 1.5, 0.2, 2.0]),))


def meshgrid_energy(a):
    X, Y = np.meshgrid(np.linspace(0, 1, 3), np.linspace(0, 1, 2))
    return np.sum(np.exp(-a * (X ** 2 + Y ** 2)))


add("meshgrid_param", meshgrid_energy, (0.7,))


def triu_tril(A):
    return np.sum(np.triu(A, 1) ** 2) + np.sum(np.tril(A) * 2.0) + np.sum(A[np.triu_indices(3)])


add("triu_tril_indices", triu_tril, (np.arange(9.0).reshape(3, 3) / 4,))


def where_one_arg(x):
    idx = np.where(x > 0.5)[0]
    return np.sum(x[idx] ** 2) + np.count_nonzero(x > 0.5)


add("np_where_single_arg_indices", where_one_arg, (np.array([0.3, 1.5, 0.2, 2.0]),))


def nonzero_mask_assign(x):
    y = np.zeros_like(x)
    nz = np.nonzero(x > 0.5)
    y[nz] = x[nz] ** 2
    return np.sum(y)


add("nonzero_tuple_index_assign", nonzero_mask_assign, (np.array([0.3, 1.5, 0.2, 2.0]),))
