"""User programs, corpus 6h: edge values: 0, negative, nan, inf, huge, tiny, empty
arrays.  References: JAX x64 of the same program (IEEE results, as the docs promise:
"derivatives are IEEE numbers as JAX's are"), or the derivative written out."""
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, jax, jaxify

CASES = []


J = jax


add = adder(CASES)


def vs_jax(name, f, args, tr="grad", tol=1e-9, **kw):
    add(name, lambda: getattr(revsrc, tr)(f, **kw)(*args),
        lambda: getattr(J(), tr)(jaxify(f), **kw)(*args), tol)


INF, NAN = math.inf, math.nan


def e_sqrt(x):
    return math.sqrt(x)


def e_np_sqrt_sum(x):
    return np.sum(np.sqrt(x))


def e_abs(x):
    return abs(x)


def e_pow_zero(x):
    return x ** 3.0 + x ** 2


def e_pow_half_zero(x):
    return x ** 0.5


def e_log_zero(x):
    return math.log(x)


def e_np_log_zero(x):
    return np.log(x)


def e_np_exp(x):
    return np.exp(x)


def e_xlogx(x):
    return x * np.log(x) if x > 0 else 0.0


def e_max_tie(x):
    return max(x, 1.0)


def e_np_max_ties(x):
    return np.max(x)


def e_np_maximum_tie(x):
    return np.sum(np.maximum(x, 0.0))


def e_relu_at_zero(x):
    return np.sum(np.where(x > 0, x, 0.0))


def e_exp_huge(x):
    return math.exp(x)


def e_softplus_stable(x):
    return np.sum(np.logaddexp(0.0, x))


def e_logsumexp_huge(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def e_nan_in_sum(x):
    return np.sum(x * 2.0)


def e_nan_through_max(x):
    return np.max(x)


def e_inf_input(x):
    return np.sum(np.tanh(x))


def e_division_by_zero_guarded(x):
    r = np.sqrt(np.sum(x * x))
    return r if r > 0 else 0.0


def e_norm_at_zero(x):
    return np.linalg.norm(x)


def e_hypot_zero(x):
    return math.hypot(x, 0.0)


def e_atan2_origin(x):
    return math.atan2(x, 1.0) + math.atan2(0.5, x)


def e_tiny(x):
    return x * x * 1e300 + math.log1p(x)


def e_huge_product(x):
    return x * 1e200 * 1e200


def e_negative_base_int_pow(x):
    return x ** 3 + x ** 2


def e_negative_log_abs(x):
    return math.log(abs(x))


def e_sign_copysign(x):
    return math.copysign(x * x, -1.0) + np.sign(x) * x


def e_floor_ceil(x):
    return math.floor(x) * x + math.ceil(x)


def e_clip_boundary(x):
    return np.sum(np.clip(x, 0.0, 1.0))


def e_empty_sum(x):
    return np.sum(x ** 2) + 1.0


def e_min_of_list_ties(x):
    return min([x, 2.0 * x, x])


def e_expm1_log1p_small(x):
    return math.expm1(x) / x if x != 0 else 1.0


def e_sinc_like(x):
    return math.sin(x) / x if x != 0.0 else 1.0


def e_erf_large(x):
    return math.erf(x)


def e_sigmoid_extreme(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def e_neg_zero(x):
    return math.copysign(1.0, x) * x


# (name, f, argument): each against JAX
EDGES = [
    ("sqrt_at_zero", e_sqrt, 0.0),
    ("sqrt_np_vector_with_zero", e_np_sqrt_sum, np.array([0.0, 4.0])),
    ("abs_negative", e_abs, -2.5),
    ("pow_at_zero", e_pow_zero, 0.0),
    ("pow_half_at_zero", e_pow_half_zero, 0.0),
    ("np_log_at_zero", e_np_log_zero, 0.0),
    ("np_max_ties", e_np_max_ties, np.array([1.0, 3.0, 3.0, 2.0])),
    ("relu_where_at_zero", e_relu_at_zero, np.array([0.0, -1.0, 2.0])),
    ("np_exp_overflow", e_np_exp, 800.0),
    ("exp_large_finite", e_exp_huge, 700.0),
    ("softplus_logaddexp_huge", e_softplus_stable, np.array([-800.0, 0.0, 800.0])),
    ("logsumexp_huge_values", e_logsumexp_huge, np.array([1000.0, 999.0, -1000.0])),
    ("nan_in_sum", e_nan_in_sum, np.array([1.0, NAN, 2.0])),
    ("nan_through_max", e_nan_through_max, np.array([1.0, NAN, 2.0])),
    ("inf_through_tanh", e_inf_input, np.array([INF, -INF, 0.5])),
    ("hypot_with_zero", e_hypot_zero, -3.0),
    ("atan2_near_origin", e_atan2_origin, 0.0),
    ("tiny_times_huge", e_tiny, 1e-160),
    ("huge_product_overflow", e_huge_product, 2.0),
    ("negative_base_int_pow", e_negative_base_int_pow, -1.5),
    ("log_abs_negative", e_negative_log_abs, -0.25),
    ("min_list_ties", e_min_of_list_ties, 1.0),
    ("expm1_over_x_at_zero", e_expm1_log1p_small, 0.0),
    ("sinc_at_zero_branch", e_sinc_like, 0.0),
    ("sinc_near_zero", e_sinc_like, 1e-9),
    ("erf_large", e_erf_large, 30.0),
    ("sigmoid_extreme", e_sigmoid_extreme, np.array([-750.0, 750.0, 0.0])),
    ("inf_argument_scalar", e_exp_huge, -INF),
    ("nan_argument_scalar", e_sqrt, NAN),
]

for _name, _f, _x in EDGES:
    vs_jax("edge_grad_" + _name, _f, (_x,))

for _name, _f, _x in EDGES[:14]:
    vs_jax("edge_hessian_" + _name, _f, (_x,), tr="hessian")


def edge_jvp(name, f, x, t):
    add("edge_jvp_" + name, lambda: revsrc.jvp(f, (x,), (t,)), lambda: J().jvp(jaxify(f), (x,), (t,)))


edge_jvp("sqrt_zero", e_sqrt, 0.0, 1.0)
edge_jvp("nan_max", e_nan_through_max, np.array([1.0, NAN, 2.0]), np.ones(3))
edge_jvp("relu_zero", e_relu_at_zero, np.array([0.0, -1.0, 2.0]), np.ones(3))

add("edge_empty_array", lambda: revsrc.grad(e_empty_sum)(np.zeros(0)), lambda: np.zeros(0))
add("edge_empty_array_shape", lambda: [revsrc.grad(e_empty_sum)(np.zeros((0, 3))).shape == (0, 3)],
    lambda: [True], tol=0.0)
add("edge_vmap_nan_inf_elements", lambda: revsrc.vmap(revsrc.grad(e_sqrt))(np.array([0.0, NAN, INF, 4.0])),
    lambda: J().vmap(J().grad(jaxify(e_sqrt)))(np.array([0.0, NAN, INF, 4.0])))
def raises(fn, exc):
    try:
        fn()
    except exc:
        return [1.0]
    return [0.0]


# math.sqrt(-1.0) and math.exp(800.0) raise in Python: so must revsrc (vmap: "an element
# that raises raises that error"), never return a number
add("edge_vmap_sqrt_negative_raises",
    lambda: raises(lambda: revsrc.vmap(e_sqrt)(np.array([1.0, -1.0])), ValueError), lambda: [1.0], tol=0.0)
add("edge_jit_math_exp_overflow_raises", lambda: raises(lambda: revsrc.jit(e_exp_huge)(800.0), OverflowError),
    lambda: raises(lambda: e_exp_huge(800.0), OverflowError), tol=0.0)
add("edge_grad_math_exp_overflow_raises", lambda: raises(lambda: revsrc.grad(e_exp_huge)(800.0), OverflowError),
    lambda: [1.0], tol=0.0)
add("edge_grad_math_log_zero_raises", lambda: raises(lambda: revsrc.grad(e_log_zero)(0.0), ValueError),
    lambda: [1.0], tol=0.0)
add("edge_grad_floor_ceil_at_integer", lambda: revsrc.grad(e_floor_ceil)(2.0), lambda: 2.0)
add("edge_grad_negative_zero_copysign", lambda: revsrc.grad(e_neg_zero)(-0.0), lambda: -1.0)


def subdiff(name, f, x, tr="grad"):
    """At a kink any subgradient is right: each component between the one-sided
    derivatives (the functions here are sums of functions of one component)."""
    def got():
        x_arr = np.atleast_1d(np.asarray(x, dtype=float))
        if tr == "grad":
            g = np.atleast_1d(np.asarray(revsrc.grad(f)(x), dtype=float))
        else:
            t = 1.0 if np.ndim(x) == 0 else np.ones_like(x)
            g = np.atleast_1d(np.asarray(revsrc.jvp(f, (x,), (t,))[1], dtype=float))
            x_arr = x_arr[:1]
        out = []
        for i in range(x_arr.size):
            h = 1e-7
            e = np.zeros_like(x_arr)
            e[i] = h
            def ev(v):
                return f(float(v[0]) if np.ndim(x) == 0 else v)
            if tr == "jvp":
                e = np.full_like(np.atleast_1d(np.asarray(x, dtype=float)), h)
                xx = np.atleast_1d(np.asarray(x, dtype=float))
                right = (ev(xx + e) - ev(xx)) / h
                left = (ev(xx) - ev(xx - e)) / h
            else:
                right = (ev(x_arr + e) - ev(x_arr)) / h
                left = (ev(x_arr) - ev(x_arr - e)) / h
            lo, hi = min(left, right), max(left, right)
            out.append(float(lo - 1e-6 <= g[i] <= hi + 1e-6))
        return out
    add("edge_" + tr + "_subgradient_" + name, got, lambda: [1.0] * (1 if tr == "jvp" else np.size(x)), tol=0.0)


subdiff("abs_at_zero", e_abs, 0.0)
subdiff("abs_at_zero", e_abs, 0.0, tr="jvp")
subdiff("max_tie_with_constant", e_max_tie, 1.0)
subdiff("np_maximum_tie_zero", e_np_maximum_tie, np.array([0.0, -1.0, 2.0]))
subdiff("clip_at_boundaries", e_clip_boundary, np.array([0.0, 0.5, 1.0, 1.5]))
subdiff("norm_at_zero", e_norm_at_zero, np.zeros(3))


def e_unused_sqrt(x):
    r = np.sqrt(x)           # nan for x < 0, 0 at 0: the branch below is not taken near 0
    y = x * x
    if r > 1.0:
        y = y + r
    return y


def e_unused_sqrt_vector(x):
    r = np.sqrt(np.sum(x * x))
    out = np.sum(x ** 2)
    if r > 10.0:
        out = out + r
    return out


# f is x * x on (-inf, 1): the gradient at 0 is 0; the sqrt's infinite slope at 0 is on
# a value the result does not use
vs_jax("edge_grad_unused_sqrt_intermediate", e_unused_sqrt, (0.0,))
vs_jax("edge_grad_unused_norm_intermediate", e_unused_sqrt_vector, (np.zeros(3),))
vs_jax("edge_hessian_unused_sqrt_intermediate", e_unused_sqrt, (0.0,), tr="hessian")
add("edge_jit_grad_huge", lambda: revsrc.jit(revsrc.grad(e_tiny))(1e-160),
    lambda: J().grad(jaxify(e_tiny))(1e-160), tol=1e-12)


def while_never_runs(x):
    y = x
    while y > 10.0:
        y = y * 0.5
    return y * y


vs_jax("edge_while_zero_iterations", while_never_runs, (3.0,))


def for_zero_range(x, n):
    s = x
    for i in range(n):
        s = s * x
    return s


vs_jax("edge_for_range_zero", for_zero_range, (3.0, 0))
vs_jax("edge_for_range_negative", for_zero_range, (3.0, -5))


def big_int_arg(x, n):
    return x * (n % 7) + x ** 2 * (n > 2 ** 62)


add("edge_big_int_nondiff_arg", lambda: revsrc.grad(big_int_arg)(1.5, 2 ** 70 + 3),
    lambda: (2 ** 70 + 3) % 7 + 3.0)
add("edge_negative_big_int_arg", lambda: revsrc.grad(big_int_arg)(1.5, -(2 ** 64)),
    lambda: float((-(2 ** 64)) % 7))


def int_float_mix_huge(x, n):
    return x * float(n) / 1e19


add("edge_int_converted_float_huge", lambda: revsrc.grad(int_float_mix_huge)(2.0, 10 ** 19 + 1),
    lambda: float(10 ** 19 + 1) / 1e19)


def clipped_gd_step(x):
    g = 2.0 * x                          # the gradient of sum(x ** 2), written out
    gnorm = np.sqrt(np.sum(g * g))
    if gnorm > 1.0:                      # gradient clipping: not taken at x = 0
        g = g / gnorm
    x_new = x - 0.1 * g
    return np.sum(x_new ** 2)


vs_jax("edge_grad_gradient_clipping_idiom_at_zero", clipped_gd_step, (np.zeros(2),))


def scalar_guarded_sqrt(x):
    r = math.sqrt(abs(x))
    y = 3.0 * x
    if r > 2.0:
        y = y + r
    return y


vs_jax("edge_grad_scalar_unused_sqrt_engine", scalar_guarded_sqrt, (0.0,))
