"""User programs, corpus 5b: numerics at edges, dtypes, tie-breaking, SciPy, real-world models."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case

try:
    import scipy.linalg
    import scipy.special
except ImportError:  # pragma: no cover
    scipy = None

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- ties and piecewise functions (compare with JAX's conventions) ------------------

def _jax():
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    return jax, jnp


def jref(jf, args, argnums=0, kind="grad"):
    def r():
        jax, jnp = _jax()
        fn = getattr(jax, kind)(jf, argnums=argnums)
        out = fn(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        return [np.asarray(o) for o in jax.tree_util.tree_leaves(out)]
    return r


def maximum_tie(x):
    return np.sum(np.maximum(x, 1.0) * np.arange(1.0, 4.0))


# At a tie revsrc splits the derivative between the operands, as JAX and autograd do:
# half of 1 * 1 at x[0] == 1.0 (a one-sided derivative summed over pieces that are smooth
# together gave derivatives they do not have, round 10).
add("np_maximum_tie", maximum_tie, (np.array([1.0, 0.5, 2.0]),), ref=lambda: [np.array([0.5, 0.0, 3.0])])


def clip_tie(x):
    return np.sum(np.clip(x, 0.0, 1.0) ** 2)


# A tie at a bound is split too, as JAX does: half of the left derivative 2.0 at the upper
# bound, half of 0 at the lower one.
add("np_clip_at_bounds", clip_tie, (np.array([0.0, 1.0, 0.5, 2.0]),), ref=lambda: [np.array([0.0, 1.0, 1.0, 0.0])])


def abs_zero(x):
    return np.sum(np.abs(x)) + abs(x[0])


# d|x| at 0: JAX says 1, revsrc (as autograd) 0; both are subgradients.
add("abs_at_zero", abs_zero, (np.array([0.0, -1.0]),), ref=lambda: [np.array([0.0, -1.0])])


def builtin_max_tie(x, y):
    return max(x, y) * 2.0 + min(x, y)


# f = 2 max + min at x == y: every one-sided derivative has df/dx in [1, 2] and
# df/dx + df/dy = 3; JAX says (1.5, 1.5).
add("builtin_max_tie", builtin_max_tie, (1.0, 1.0), argnums=(0, 1),
    ref=jref(lambda x, y: _jax()[1].maximum(x, y) * 2.0 + _jax()[1].minimum(x, y), (1.0, 1.0), argnums=(0, 1)),
    needs=("jax",))


def np_max_reduce_tie(x):
    return np.max(x) + np.min(x) * 2.0


add("np_max_reduce_tie", np_max_reduce_tie, (np.array([2.0, 2.0, 1.0, 1.0]),),
    ref=jref(lambda x: x.max() + x.min() * 2.0, (np.array([2.0, 2.0, 1.0, 1.0]),)), needs=("jax",))


def where_nan_branch(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)), 0.0))


# at 0 and -1 the where chooses the constant 0.0 (its derivative 0); the branch not chosen
# keeps an adjoint of 0 where JAX gives 0 * inf = nan at 0 (revsrc/runtime/dropped.py)
add("where_sqrt_at_zero", where_nan_branch, (np.array([0.0, 4.0, -1.0]),),
    ref=lambda: [np.array([0.0, 0.25, 0.0])])


def select_piecewise(x):
    return np.sum(np.select([x < 0, x < 1], [x ** 2, 2 * x], default=x ** 3))


add("np_select_piecewise", select_piecewise, (np.array([-0.5, 0.5, 2.0]),))


def relu_int_mask(x):
    m = (x > 0).astype(int)
    return np.sum(m * x * x)


add("int_mask_multiply", relu_int_mask, (np.array([-1.0, 2.0, 3.0]),))


def heaviside_sign(x):
    return np.sum(np.sign(x) * x ** 2 + np.heaviside(x, 0.5) * x)


add("sign_heaviside", heaviside_sign, (np.array([-1.0, 0.5, 2.0]),))


def floor_mod(x):
    return np.sum(np.mod(x, 1.0) * x) + math.fmod(x[0], 0.3)


add("mod_and_fmod", floor_mod, (np.array([1.25, 2.7]),))


def divmod_floor(x):
    q, r = divmod(x, 0.4)
    return r * x + q


add("divmod_builtin", divmod_floor, (1.3,))


def round_ste(x):
    return np.sum(x + revsrc.stop_gradient(np.round(x) - x))


add("straight_through_round", round_ste, (np.array([0.3, 1.7]),), ref=lambda: [np.ones(2)])


# ---- dtypes ---------------------------------------------------------------------------

def f32_loss(x):
    return np.sum(x * x)


def f32_check():
    x = np.array([1.0, 2.0], dtype=np.float32)
    g = revsrc.grad(f32_loss)(x)
    return (g, float(g.dtype == np.float32)), (np.array([2.0, 4.0]), 1.0)


add("float32_grad_dtype", f32_check, t="custom")


def mixed_f32_f64(x, w):
    return np.sum((x.astype(np.float64) * w) ** 2)


add("astype_f32_to_f64", mixed_f32_f64, (np.array([1.5, 2.5], dtype=np.float32), np.array([0.5, -1.0])), argnums=(0, 1),
    tol=1e-4, h=1e-3)


def int_array_arith(x):
    k = np.arange(3)
    return np.sum(x ** k) + np.sum(k // 2 * x)


add("int_array_exponents", int_array_arith, (np.array([1.5, 2.0, 0.5]),))


def complex_abs(z):
    return np.sum(np.abs(z * z + 1j))


add("complex_array_grad", complex_abs, (np.array([1.0 + 2.0j, -0.5 + 0.1j]),),
    ref=jref(lambda z: _jax()[1].abs(z * z + 1j).sum(), (np.array([1.0 + 2.0j, -0.5 + 0.1j]),)), needs=("jax",))


def real_via_complex(x):
    z = np.exp(1j * x)
    return np.sum(z.real * 2.0 + z.imag ** 2)


add("real_through_complex", real_via_complex, (np.array([0.3, 1.2]),))


def fft_energy(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2)


add("rfft_energy", fft_energy, (np.array([1.0, 2.0, -1.0, 0.5]),))


def bool_arg_flag(x, flag):
    return x * x if flag else x


add("bool_flag_argument", bool_arg_flag, (1.5, True))


def huge_int_mix(x):
    n = 2 ** 70
    return x * (n % 7) + x * x * float(n // 2 ** 68)


add("huge_python_int", huge_int_mix, (1.5,))


def int_arg_grad(n):
    return n * n


def int_argnum_refused():
    try:
        revsrc.grad(int_arg_grad)(3)
    except revsrc.RevsrcError as e:
        return e.code, "E301"
    return "none", "E301"


def np_float64_scalar(x):
    y = np.float64(x) * 2.0
    return float(np.exp(y))


add("np_float64_scalar_arg", np_float64_scalar, (np.float64(0.3),))


def zero_d_array(x):
    return float(x * x + np.sin(x))


add("zero_d_array_arg", zero_d_array, (np.array(0.7),))


# ---- empty arrays, edge values -------------------------------------------------------

def empty_sum(x):
    e = x[:0]
    return np.sum(e) + np.sum(x ** 2) + np.sum(np.zeros((0, 3)) @ np.ones(3))


add("empty_slices", empty_sum, (np.array([1.0, 2.0]),))


def logsumexp_inf(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


add("logsumexp_with_neg_inf", logsumexp_inf, (np.array([-np.inf, 0.0, 1.0]),),
    ref=lambda: [np.array([0.0, 1 / (1 + np.e), np.e / (1 + np.e)])])


def xlogx(x):
    return np.sum(np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0))


add("xlogx_double_where", xlogx, (np.array([0.0, 0.5, 2.0]),),
    ref=lambda: [np.array([0.0, np.log(0.5) + 1, np.log(2.0) + 1])])


def pow_zero_base(x):
    return x[0] ** 2.0 + x[1] ** 0.0 + np.sum(x ** 3)


add("pow_at_zero", pow_zero_base, (np.array([0.0, 0.0]),), ref=lambda: [np.array([0.0, 0.0])])


def sqrt_norm_zero(x):
    return np.linalg.norm(x - x) + np.sum(x)


# JAX gives nan here; revsrc the subgradient 0 of the norm at 0.
add("norm_of_zero_vector", sqrt_norm_zero, (np.array([1.0, 2.0]),), ref=lambda: [np.array([1.0, 1.0])])


def hypot_big(x):
    return math.hypot(x * 1e200, 1e200) / 1e200


add("hypot_overflow_safe", hypot_big, (0.75,), ref=lambda: [0.75 / math.hypot(0.75, 1.0)])


def softplus_big(x):
    return np.sum(np.logaddexp(0.0, x))


add("logaddexp_large", softplus_big, (np.array([800.0, -800.0, 0.0]),), ref=lambda: [np.array([1.0, 0.0, 0.5])])


def expm1_log1p(x):
    return np.sum(np.log1p(np.expm1(x)))


add("expm1_log1p_tiny", expm1_log1p, (np.array([1e-20, 1e-8, 2.0]),), ref=lambda: [np.ones(3)])


def sinc_zero(x):
    return np.sum(np.sinc(x))


add("sinc_at_zero", sinc_zero, (np.array([0.0, 0.5]),),
    ref=lambda: [np.array([0.0, (np.cos(np.pi * 0.5) * np.pi * 0.5 - np.sin(np.pi * 0.5)) / (np.pi * 0.25)])])


# ---- scipy and linalg ------------------------------------------------------------------

def gammaln_sum(x):
    return np.sum(scipy.special.gammaln(x)) + np.sum(scipy.special.expit(x))


add("scipy_gammaln_expit", gammaln_sum, (np.array([0.5, 2.5]),), needs=("scipy",))


def logsumexp_scipy(x):
    return scipy.special.logsumexp(x, b=np.array([1.0, 2.0, 0.5]))


add("scipy_logsumexp_b", logsumexp_scipy, (np.array([0.1, -0.3, 2.0]),), needs=("scipy",))


def erf_math(x):
    return math.erf(x) * math.erfc(x / 2) + math.lgamma(x + 2.0)


add("math_erf_lgamma", erf_math, (0.7,))


def ndtr_pricer(s, k, v, t):
    d1 = (math.log(s / k) + 0.5 * v * v * t) / (v * math.sqrt(t))
    d2 = d1 - v * math.sqrt(t)
    return s * scipy.special.ndtr(d1) - k * scipy.special.ndtr(d2)


add("black_scholes_ndtr_all_greeks", ndtr_pricer, (100.0, 95.0, 0.2, 0.5), argnums=(0, 1, 2, 3), needs=("scipy",))


def chol_logdet_solve(A, b):
    L = np.linalg.cholesky(A @ A.T + 2.0 * np.eye(3))
    z = scipy.linalg.solve_triangular(L, b, lower=True)
    return 2.0 * np.sum(np.log(np.diag(L))) + z @ z


add("cholesky_solve_triangular", chol_logdet_solve,
    (np.array([[1.0, 0.2, 0.0], [0.1, 1.5, 0.3], [-0.2, 0.0, 0.8]]), np.array([1.0, -1.0, 0.5])), argnums=(0, 1),
    needs=("scipy",))


def expm_trace(A):
    return np.trace(scipy.linalg.expm(A)) + np.sum(scipy.linalg.expm(A)[0])


add("scipy_expm", expm_trace, (np.array([[0.1, 0.5], [-0.3, 0.2]]),), needs=("scipy",))


def eigvalsh_sum(A):
    S = A + A.T
    return np.sum(np.linalg.eigvalsh(S) ** 3)


add("eigvalsh_cubed", eigvalsh_sum, (np.array([[1.0, 0.3], [0.1, -2.0]]),))


def svd_nuclear(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


add("svd_nuclear_norm", svd_nuclear, (np.array([[1.0, 0.3, 0.2], [0.1, -2.0, 0.5]]),))


def det_inv(A):
    return np.linalg.det(A) * np.sum(np.linalg.inv(A))


add("det_times_inv", det_inv, (np.array([[2.0, 0.3], [0.1, 1.0]]),))


def lstsq_fit(A, y):
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    return np.sum(coef ** 2)


add("lstsq_fit", lstsq_fit, (np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), np.array([0.1, 0.9, 2.2])),
    argnums=(0, 1))


def einsum_batch(A, x):
    return np.einsum("bij,bj->", A, x) + np.einsum("bij,bij", A, A)


add("einsum_batch", einsum_batch, (np.arange(8.0).reshape(2, 2, 2) / 7, np.array([[1.0, 2.0], [3.0, 4.0]])),
    argnums=(0, 1))


def kron_outer(x):
    return np.sum(np.kron(x, x) * np.arange(4.0)) + np.sum(np.outer(x, x[::-1]))


add("kron_outer", kron_outer, (np.array([0.5, -1.5]),))
