"""Round 8 user programs, batch g: NumPy corners inside ordinary code (augmented
assignment on fancy and strided indices, broadcasting in-place, matmul-assign, axis
tuples, take/put, cumprod/diff, modular arithmetic, float32 arithmetic, running
statistics), checked against JAX x64 or self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(86)
XA = rng.normal(size=(4, 3))
XV = rng.normal(size=6)


def matmul_assign(A, B):
    C = A.copy()
    for _ in range(3):
        C = C @ B
        C /= np.abs(C).max()
    return np.sum(C)


add(G("r8_matmul_loop_idiv_by_max", matmul_assign, (XA, rng.normal(size=(3, 3))), argnums=(0, 1), ref="jax"))


def imatmul(A, B):
    C = A.copy()
    C @= B
    return np.sum(C ** 2)


add(G("r8_imatmul_operator", imatmul, (XA, rng.normal(size=(3, 3))), argnums=(0, 1)))


def ipow_ineg(x):
    y = x.copy()
    y **= 2
    y -= x
    y *= -1
    return np.sum(y)


add(G("r8_ipow_isub_imul_chain", ipow_ineg, (XV,)))


def broadcast_iadd(A, b):
    C = A.copy()
    C += b
    C[:, 0] -= b[0]
    return np.sum(np.tanh(C))


add(G("r8_broadcast_row_iadd_and_column_isub", broadcast_iadd, (XA, np.array([0.5, -1.0, 0.2])), argnums=(0, 1)))


def axis_tuple_reductions(T):
    return np.sum(T.mean(axis=(0, 2)) ** 2) + np.max(T.std(axis=(1, 2)))


add(G("r8_axis_tuple_mean_std", axis_tuple_reductions, (rng.normal(size=(2, 3, 4)),), ref="jax"))


def take_put(x):
    y = np.zeros(6)
    np.put(y, [0, 3, 5], x[:3])
    return np.sum(np.take(y, [5, 5, 0]) * x[3:]) + np.sum(y)


add(G("r8_np_put_then_take", take_put, (XV,)))


def cumprod_survival(h):
    s = np.cumprod(1 - h)
    return np.sum(s) + s[-1]


add(G("r8_cumprod_survival_curve", cumprod_survival, (np.array([0.1, 0.2, 0.05, 0.3, 0.15]),), ref="jax"))


def diff_tv(x, lam):
    return 0.5 * np.sum((x - XV) ** 2) + lam * np.sum(np.sqrt(np.diff(x) ** 2 + 1e-4))


add(G("r8_total_variation_diff", diff_tv, (XV * 0.9, 0.3), argnums=(0, 1), ref="jax"))


def mod_phase(theta, w):
    phase = (w * np.arange(5.0) + theta) % (2 * np.pi)
    return np.sum(np.sin(phase) + 0.1 * phase)


add(G("r8_mod_two_pi_phase", mod_phase, (0.3, 1.7), argnums=(0, 1), ref="jax"))


def floor_div_bins(x):
    k = np.floor(x * 3)
    frac = x * 3 - k
    return np.sum(frac ** 2 + k * x)


add(G("r8_floor_fractional_part", floor_div_bins, (np.array([0.12, 0.55, 0.91, 1.4]),), ref="jax"))


def float32_model(w, X):
    Xf = X.astype(np.float32)
    h = np.tanh(Xf @ w)
    return float(np.sum(h.astype(np.float64) ** 2))


add(pair("r8_astype_float32_inside",
         lambda: revsrc.grad(float32_model)(np.array([0.3, -0.1, 0.2]), XA),
         lambda: fd_checked(lambda w: float32_model(w.astype(np.float32).astype(float), XA), (np.array([0.3, -0.1, 0.2]),), h=1e-2, check=1e-1), tol=1e-3))


def welford(x):
    mean, m2 = 0.0, 0.0
    for i, v in enumerate(x, start=1):
        d = v - mean
        mean += d / i
        m2 += d * (v - mean)
    return m2 / (len(x) - 1)


add(pair("r8_welford_running_variance_enumerate_start",
         lambda: revsrc.grad(welford)(XV), lambda: 2 * (XV - XV.mean()) / 5, tol=1e-12))


def ewma_loop(x, alpha):
    s = x[0]
    out = [s]
    for v in x[1:]:
        s = alpha * v + (1 - alpha) * s
        out.append(s)
    return np.sum(np.array(out) ** 2)


add(G("r8_ewma_iterate_array_elements_list", ewma_loop, (XV, 0.3), argnums=(0, 1), ref="jax"))


def reversed_zip(x, y):
    acc = 0.0
    for a, b in zip(reversed(x), y):
        acc = acc * 0.5 + a * b
    return acc


add(G("r8_zip_reversed_array", reversed_zip, (XV, XV[::-1] + 1), argnums=(0, 1), ref="jax"))


def kron_outer(a, b):
    return np.sum(np.kron(a, b) ** 2) + np.sum(np.outer(a, b).T @ a)


add(G("r8_kron_and_outer_transpose", kron_outer, (XV[:3], XV[3:]), argnums=(0, 1), ref="jax"))


def tensordot_contract(A, B):
    return np.sum(np.tensordot(A, B, axes=([1], [0])) ** 2)


add(G("r8_tensordot_axes_lists", tensordot_contract, (XA, rng.normal(size=(3, 2))), argnums=(0, 1), ref="jax"))


def einsum_batch(A, B):
    C = np.einsum("bij,bjk->bik", A, B)
    return np.einsum("bii->", C)


add(G("r8_einsum_batched_trace", einsum_batch, (rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3))), argnums=(0, 1), ref="jax"))


def repeat_tile(x):
    return np.sum(np.repeat(x, 2) * np.tile(x, 2) * np.arange(12))


add(G("r8_repeat_tile_products", repeat_tile, (XV,), ref="jax"))


def pad_conv(x):
    p = np.pad(x, 2, mode="constant")
    return np.sum(p[:-2] * p[2:])


add(G("r8_np_pad_constant", pad_conv, (XV,), ref="jax"))


def minimum_maximum_chain(x, lo, hi):
    return np.sum(np.minimum(np.maximum(x, lo), hi) * x)


add(G("r8_clip_via_min_max_bounds_grad", minimum_maximum_chain, (XV, -0.5, 0.7), argnums=(0, 1, 2), ref="jax"))


def hypot_arctan2(x, y):
    return np.sum(np.hypot(x, y) + np.arctan2(y, x))


add(G("r8_hypot_arctan2_arrays", hypot_arctan2, (XV, XV[::-1]), argnums=(0, 1), ref="jax"))


def special_functions(x):
    import scipy.special as sp
    return np.sum(sp.ndtr(x) + sp.expit(x) + sp.logsumexp(x) * sp.erf(x))


add(G("r8_scipy_special_mix_inline_import", special_functions, (XV,)))


def scipy_gammaln(a):
    from scipy.special import gammaln
    return np.sum(gammaln(a) * a)


add(G("r8_scipy_gammaln", scipy_gammaln, (np.array([0.5, 1.5, 3.2]),)))


def linalg_inv_det(A):
    B = A @ A.T + np.eye(3)
    return np.sum(np.linalg.inv(B)) + np.log(np.linalg.det(B))


add(G("r8_inv_and_det", linalg_inv_det, (XA[:3],), ref="jax"))


def matrix_power_trace(A):
    return np.trace(np.linalg.matrix_power(A, 3))


add(G("r8_matrix_power", matrix_power_trace, (XA[:3],), ref="jax"))


def svd_nuclear(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


add(G("r8_svd_singular_values_only", svd_nuclear, (XA,), ref="jax"))


def qr_free_gram(A):
    G_ = A.T @ A
    w = np.linalg.eigvalsh(G_)
    return np.sum(np.sqrt(w))


add(G("r8_eigvalsh_sqrt", qr_free_gram, (XA,), ref="jax"))


def expm_scipy(A):
    from scipy.linalg import expm
    return np.sum(expm(0.3 * A))


add(G("r8_scipy_expm", expm_scipy, (XA[:3],)))


def norm_ord(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x.reshape(2, 3), "fro")


add(G("r8_norm_orders_1_inf_fro", norm_ord, (XV,), ref="jax"))


def quantile_loss(x):
    return np.quantile(x, 0.3) + np.median(x) + np.percentile(x, 90)


add(G("r8_quantile_median_percentile", quantile_loss, (XV,), ref="jax"))


def log_softmax_temp(z, T):
    s = z / T
    return np.sum(s - np.log(np.sum(np.exp(s))))


add(G("r8_log_softmax_temperature", log_softmax_temp, (XV, 0.7), argnums=(0, 1), ref="jax"))


def round_and_sign(x):
    return np.sum(np.round(x, 1) * x + np.sign(x) * x ** 2)


add(G("r8_round_sign_piecewise", round_and_sign, (np.array([0.123, -0.77, 1.41]),), ref="jax"))


def select_piecewise(x):
    return np.sum(np.select([x < -0.5, x > 0.5], [x ** 2, np.exp(x)], default=x))


add(G("r8_np_select_piecewise", select_piecewise, (XV,), ref="jax"))


def piecewise_np(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: np.sin(v)]))


add(G("r8_np_piecewise_lambdas", piecewise_np, (XV,)))


def triu_solve(A, b):
    U = np.triu(A) + 3 * np.eye(3)
    return np.sum(np.linalg.solve(U, b))


add(G("r8_triu_solve", triu_solve, (XA[:3], XV[:3]), argnums=(0, 1), ref="jax"))


def concat_split_loop(x):
    parts = np.split(x, 3)
    out = np.concatenate([p[::-1] * (i + 1) for i, p in enumerate(parts)])
    return np.sum(out * np.arange(6))


add(G("r8_split_reverse_concat_comprehension", concat_split_loop, (XV,), ref="jax"))


def meshgrid_field(a):
    xs = np.linspace(-1, 1, 5)
    Xg, Yg = np.meshgrid(xs, xs)
    return np.sum(np.exp(-a * (Xg ** 2 + Yg ** 2)))


add(G("r8_meshgrid_gaussian_width", meshgrid_field, (1.3,), ref="jax"))
