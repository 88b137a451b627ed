"""Round 10, Python and NumPy semantics a transformation must keep, met in applied code:
late-binding closures, default-argument capture, lazily evaluated generators, aliases of
one array held twice (a, b = x.copy() twice vs a = b = ...), in-place operators on
arrays in lists, views written through, overlapping slice assignment, swaps, chained
comparisons, modulo and floor sawtooths, bool arithmetic, sorted with keys, sum with
start, continue/break on values, each checked against central differences of the plain
Python program or a closed form."""
import math

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1009)
V = rng.normal(size=6)


def late_binding(x):
    fs = [lambda t: t * k for k in range(1, 4)]
    return sum(f(x) for f in fs)


# every lambda sees k = 3 (Python closures bind late): 9 x
CASES.append(G("r10_late_binding_lambdas", late_binding, (0.7,), ref=lambda: 9.0))


def default_capture(x):
    fs = [lambda t, k=k: t * k for k in range(1, 4)]
    return sum(f(x) for f in fs)


CASES.append(G("r10_default_arg_capture_lambdas", default_capture, (0.7,), ref=lambda: 6.0))


def lazy_generator(x, xs):
    s = 1.0
    g = (v * s for v in xs)
    s = x
    return sum(g)


# the generator reads s when sum runs: s = x then, so d/dx = sum(xs)
CASES.append(G("r10_generator_reads_later_binding", lazy_generator, (0.5, [1.0, 2.0, 3.0]), ref=lambda: 6.0))


def shared_alias(x):
    a = b = np.zeros(3)
    a[0] = x
    return b[0] * x


CASES.append(G("r10_chained_assignment_alias", shared_alias, (1.5,), ref=lambda: 3.0))


def list_holds_same_array(x):
    a = np.zeros(2)
    pair_ = [a, a]
    pair_[0] += x
    return pair_[1][0] * pair_[1][1] + pair_[1][0] ** 2


CASES.append(G("r10_list_of_same_array_iadd", list_holds_same_array, (np.array([1.2, -0.5]),),
               ref=lambda: np.array([-0.5 + 2 * 1.2, 1.2])))


def strided_view_scale(x):
    y = x.copy()
    b = y[::2]
    b *= 3.0
    return np.sum(y ** 2)


CASES.append(G("r10_strided_view_iadd_writes_back", strided_view_scale, (V,),
               ref=lambda: 2 * V * np.array([9.0, 1, 9.0, 1, 9.0, 1])))


def overlapping_shift(x):
    y = x.copy()
    y[1:] = y[:-1]
    return np.sum(y * np.arange(1.0, 7.0))


# y = [x0, x0, x1, x2, x3, x4]
CASES.append(G("r10_overlapping_slice_shift", overlapping_shift, (V,), ref=lambda: np.array([1.0 + 2, 3, 4, 5, 6, 0])))


def overlapping_iadd(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def _ovl_ref():
    y = V.copy()
    y[1:] = y[1:] + V[:-1]
    g = 2 * y
    out = g.copy()
    out[:-1] += g[1:]
    return out


CASES.append(G("r10_overlapping_slice_iadd", overlapping_iadd, (V,), ref=_ovl_ref))


def swap_loop(a, b):
    for _ in range(5):
        a, b = b, a + 0.5 * b
    return a * b


CASES.append(G("r10_tuple_swap_recurrence", swap_loop, (0.3, 0.8), argnums=(0, 1), ref="jax"))


def chained_compare(x, lo, hi):
    total = 0.0
    for v in x:
        if lo < v < hi:
            total += v * v
        else:
            total += lo * hi
    return total


CASES.append(G("r10_chained_comparison_band", chained_compare, (V, -0.5, 1.0), argnums=(0, 1, 2), ref="ag"))


def sawtooth_mod(t, period):
    return (t % period) ** 2


# d/dt = 2 (t mod p); d/dp = 2 (t mod p) * (-floor(t / p))
CASES.append(G("r10_modulo_sawtooth", sawtooth_mod, (7.3, 2.0), argnums=(0, 1), ref=lambda: (2 * 1.3, -2 * 1.3 * 3)))


def np_mod_negative(t):
    return np.sum(np.mod(t, 1.5) * np.fmod(t, 1.5))


TM = np.array([-2.2, -0.4, 0.7, 3.1])
CASES.append(G("r10_np_mod_fmod_negative", np_mod_negative, (TM,), ref="jax"))


def floor_quantise(x):
    q = math.floor(x * 4) / 4
    return q * x + (x - q) ** 2


CASES.append(G("r10_floor_quantiser", floor_quantise, (1.37,), ref=lambda: 1.25 + 2 * 0.12))


def bool_arith(x):
    return np.sum((x > 0) * x ** 2 + (x <= 0) * np.abs(x))


CASES.append(G("r10_bool_times_value", bool_arith, (V,), ref=lambda: np.where(V > 0, 2 * V, np.sign(V))))


def sorted_key(xs):
    best = sorted(xs, key=lambda p: p[0] ** 2 + p[1] ** 2)
    return best[0][0] * 3.0 + best[-1][1]


PTS = [np.array([0.5, 0.1]), np.array([-1.0, 2.0]), np.array([0.2, -0.3])]
CASES.append(G("r10_sorted_key_nearest_farthest", sorted_key, (PTS,),
               ref=lambda: [np.zeros(2), np.array([0.0, 1.0]), np.array([3.0, 0.0])]))


def sum_with_start(x):
    return sum((v * v for v in x), 10.0 * x[0])


CASES.append(G("r10_sum_with_start_value", sum_with_start, (V,), ref=lambda: 2 * V + np.array([10.0, 0, 0, 0, 0, 0])))


def continue_break(x, cap):
    s = 0.0
    for v in x:
        if v < 0:
            continue
        s += v * cap
        if s > 1.0:
            break
    return s


CASES.append(G("r10_continue_break_on_values", continue_break, (V, 0.9), argnums=(0, 1), ref="ag"))


def max_key_abs(x):
    m = max(x, key=abs)
    return m ** 3


CASES.append(G("r10_max_key_abs_builtin", max_key_abs, (list(V),), ref="ag"))


def min_of_pairs(a, b):
    return min(a * b, a + b, a - b)


CASES.append(G("r10_min_of_three_expressions", min_of_pairs, (1.5, 2.5), argnums=(0, 1), ref=lambda: (1.0, -1.0)))


def default_mutable(x, acc=[]):  # noqa: B006 - the classic trap, left as users write it
    acc = acc + [x]
    return sum(v * v for v in acc)


CASES.append(G("r10_default_list_not_mutated", default_mutable, (1.1,), ref=lambda: 2.2))


def dict_shallow_copy(params):
    p2 = dict(params)
    p2["w"] = params["w"] * 2.0
    return np.sum(params["w"] * p2["w"]) + np.sum(p2["b"])


CASES.append(G("r10_dict_shallow_copy_rebind", dict_shallow_copy, ({"w": V[:3], "b": V[3:]},),
               ref=lambda: {"b": np.ones(3), "w": 4 * V[:3]}))


def fill_then_scale(x):
    y = np.empty(4)
    y.fill(x)
    y[1] *= 2
    return np.prod(y)


CASES.append(G("r10_ndarray_fill_scalar", fill_then_scale, (1.3,), ref=lambda: 8 * 1.3 ** 3))


def newaxis_outer(x):
    return np.sum(np.sin(x[:, np.newaxis] * x[np.newaxis, :]))


CASES.append(G("r10_newaxis_outer", newaxis_outer, (V,), ref="jax"))


def heaviside_sign(x):
    return np.sum(np.heaviside(x, 0.5) * x + np.sign(x) * x ** 2)


CASES.append(G("r10_heaviside_sign_products", heaviside_sign, (V,), ref=lambda: np.where(V > 0, 1.0, 0.0) + 2 * np.abs(V)))


def int_cast_bucket(x):
    k = int(x * 3)
    return k * x + x * x


CASES.append(G("r10_int_cast_bucket", int_cast_bucket, (1.7,), ref=lambda: 5 + 3.4))


def complex_phase(x):
    z = np.exp(1j * x) * (1.0 + 0.5j)
    return np.sum(np.real(z) ** 2 + np.abs(z))


CASES.append(G("r10_complex_intermediate_real_out", complex_phase, (V,), ref="jax"))


def atan2_quadrants(p):
    return math.atan2(p[1], p[0]) ** 2


CASES.append(G("r10_atan2_second_quadrant", atan2_quadrants, (np.array([-1.0, 0.5]),), ref="jax"))


def global_helper_rebind():
    import revsrc
    global HELPER_SCALE
    HELPER_SCALE = 2.0
    g = revsrc.grad(uses_helper)
    a = g(1.5)
    HELPER_SCALE = 5.0
    try:
        b = g(1.5)
    finally:
        HELPER_SCALE = 2.0
    return a, b


HELPER_SCALE = 2.0


def helper(v):
    return HELPER_SCALE * v * v


def uses_helper(x):
    return helper(x) + x


CASES.append(pair("r10_global_read_by_helper_rebound", global_helper_rebind, lambda: (2 * 2.0 * 1.5 + 1, 2 * 5.0 * 1.5 + 1)))


def swap_helper():
    import revsrc
    global helper
    g = revsrc.grad(uses_helper)
    a = g(1.5)
    old = helper
    helper = lambda v: v ** 3  # noqa: E731 - the rebinding is the point
    try:
        b = g(1.5)
    finally:
        helper = old
    return a, b


CASES.append(pair("r10_global_function_rebound", swap_helper, lambda: (2 * 2.0 * 1.5 + 1, 3 * 1.5 ** 2 + 1)))
