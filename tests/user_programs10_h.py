"""Round 10, the wider NumPy and standard-library vocabulary as analysts reach for it:
nan-aware reductions, ddof, median and percentiles, trapezoid integration, polyval,
interp at knots, take_along_axis and argsort, maximum.accumulate (running peak),
select/piecewise, kron/cross/tensordot/einsum, batched matmul, matrix_power, QR, pinv
and lstsq, eig of a non-symmetric matrix, math.fsum/prod/dist, statistics, divmod and
round, .item() and .tolist(), in an applied setting each."""
import math
import statistics

import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1008)
V = rng.normal(size=7)
M = rng.normal(size=(4, 4))


def nan_aware_mean(x):
    y = np.where(np.arange(len(x)) % 3 == 0, np.nan, x)
    return np.nanmean(y ** 2) + np.nansum(y)


CASES.append(G("r10_nanmean_nansum_sensor_gaps", nan_aware_mean, (V,)))


def sample_std_ddof(x):
    return np.std(x, ddof=1) + np.var(x, ddof=1)


CASES.append(G("r10_std_var_ddof1", sample_std_ddof, (V,), ref="jax"))


def median_abs_dev(x):
    med = np.median(x)
    return np.median(np.abs(x - med))


CASES.append(G("r10_median_absolute_deviation", median_abs_dev, (V,), ref="jax"))


def percentile_spread(x):
    return np.percentile(x, 90) - np.percentile(x, 10)


CASES.append(G("r10_percentile_interpolated", percentile_spread, (V,), ref="jax"))


def trapezoid_energy(y, dx):
    return np.trapezoid(y ** 2, dx=dx)


CASES.append(G("r10_trapezoid_dx", trapezoid_energy, (V, 0.1), argnums=(0, 1), ref=lambda: (
    0.1 * 2 * V * np.array([0.5] + [1.0] * 5 + [0.5]), np.trapezoid(V ** 2, dx=1.0))))


def polyval_fit(c, x):
    return np.sum(np.polyval(c, x) ** 2)


CASES.append(G("r10_polyval_coefficients", polyval_fit, (np.array([0.5, -1.0, 2.0]), V), argnums=(0, 1), ref="jax"))


def interp_at_knots(y):
    xp = np.arange(5.0)
    return np.sum(np.interp(np.array([0.5, 1.0, 2.25, 3.9]), xp, y))


CASES.append(G("r10_interp_values_gradient", interp_at_knots, (rng.normal(size=5),),
               ref=lambda: np.array([0.5, 0.5 + 1.0 - 0.0, 0.75, 0.25 + 0.1, 0.9]) * 0 + np.array([0.5, 1.5, 0.75, 0.35, 0.9])))


def take_along_topk(scores, k=3):
    order = np.argsort(-scores, axis=1)[:, :k]
    top = np.take_along_axis(scores, order, axis=1)
    return np.sum(top * np.array([1.0, 0.5, 0.25]))


CASES.append(G("r10_take_along_axis_topk", take_along_topk, (rng.normal(size=(3, 6)),), ref="jax"))


def running_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    return np.sum((peak - prices) / peak)


PR = 100 + np.cumsum(rng.normal(size=12))
CASES.append(G("r10_maximum_accumulate_drawdown", running_drawdown, (PR,), ref="jax"))


def tax_schedule(income):
    return np.sum(np.select([income < 10, income < 40, income >= 40],
                            [0.0 * income, 0.2 * (income - 10), 6.0 + 0.4 * (income - 40)]))


CASES.append(G("r10_select_piecewise_tax", tax_schedule, (np.array([5.0, 25.0, 60.0, 39.0]),),
               ref=lambda: np.array([0.0, 0.2, 0.4, 0.2])))


def piecewise_relu6(x):
    return np.sum(np.piecewise(x, [x < 0, (x >= 0) & (x < 6), x >= 6], [0.0, lambda t: t, 6.0]))


CASES.append(G("r10_np_piecewise_relu6", piecewise_relu6, (np.array([-1.0, 2.0, 7.0, 3.5]),),
               ref=lambda: np.array([0.0, 1.0, 0.0, 1.0])))


def kron_cross(a, b):
    K = np.kron(a.reshape(3, 1), b.reshape(1, 3))
    return np.sum(K ** 2) + np.sum(np.cross(a, b) ** 2)


CASES.append(G("r10_kron_and_cross", kron_cross, (V[:3], V[3:6]), argnums=(0, 1), ref="jax"))


def tensordot_stress(C, eps):
    sigma = np.tensordot(C, eps, axes=2)
    return 0.5 * np.sum(sigma * eps)


C4 = rng.normal(size=(2, 2, 2, 2))
CASES.append(G("r10_tensordot_elastic_energy", tensordot_stress, (C4, rng.normal(size=(2, 2))), argnums=(0, 1), ref="jax"))


def einsum_bilinear(W, x, y):
    return np.einsum("i,ij,j->", x, W, y) + np.einsum("ii", W)


CASES.append(G("r10_einsum_bilinear_trace", einsum_bilinear, (M, V[:4], V[3:]), argnums=(0, 1, 2), ref="jax"))


def batched_matmul(A, x):
    y = A @ x[:, :, None]
    return np.sum(np.tanh(y[:, :, 0]))


CASES.append(G("r10_batched_matmul_broadcast", batched_matmul, (rng.normal(size=(5, 3, 3)), rng.normal(size=(5, 3))),
               argnums=(0, 1), ref="jax"))


def matrix_power_markov(P_raw):
    P = np.exp(P_raw) / np.sum(np.exp(P_raw), axis=1, keepdims=True)
    return np.linalg.matrix_power(P, 5)[0, 2]


CASES.append(G("r10_matrix_power_markov", matrix_power_markov, (rng.normal(size=(3, 3)),), ref="jax"))


def qr_r_diag(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.log(np.abs(np.diag(R))))


CASES.append(G("r10_qr_logabsdet", qr_r_diag, (rng.normal(size=(4, 4)),), ref=lambda: np.linalg.inv(np.array(0)).T
               if False else None))
CASES[-1] = G("r10_qr_logabsdet", qr_r_diag, (M,), ref=lambda: np.linalg.inv(M).T)


def pinv_regression(X, y):
    beta = np.linalg.pinv(X) @ y
    return np.sum(beta ** 2)


XR = rng.normal(size=(8, 3))
YR = rng.normal(size=8)
CASES.append(G("r10_pinv_normal_equations", pinv_regression, (XR, YR), argnums=(0, 1), ref="jax"))


def lstsq_residual(X, y):
    beta, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    return np.sum((X @ beta - y) ** 2)


CASES.append(G("r10_lstsq_residual", lstsq_residual, (XR, YR), argnums=(0, 1), ref="jax"))


def eig_spectral_radius(A):
    w = np.linalg.eigvals(A)
    return np.max(np.abs(w))


CASES.append(G("r10_eigvals_nonsymmetric_radius", eig_spectral_radius, (M,)))


def fsum_prod_dist(x):
    return math.fsum([v * v for v in x]) + math.prod(x) + math.dist(x[:2], (0.0, 1.0))


CASES.append(G("r10_math_fsum_prod_dist", fsum_prod_dist, ([0.5, -1.2, 2.0],)))


def statistics_module(x):
    return statistics.fmean(x) + statistics.pvariance(x)


CASES.append(G("r10_statistics_fmean_pvariance", statistics_module, ([0.5, -1.2, 2.0, 0.3],),
               ref=lambda: [0.25 + 2 * (v - 0.4) / 4 for v in [0.5, -1.2, 2.0, 0.3]]))


def divmod_phase(t, period):
    n, r = divmod(t, period)
    return r * r + n


CASES.append(G("r10_divmod_phase", divmod_phase, (7.3, 2.0), argnums=(0, 1), ref=lambda: (2 * 1.3, -3 * 2 * 1.3)))


def rounded_price(x):
    return round(x, 2) + x


CASES.append(G("r10_round_ndigits_zero_grad", rounded_price, (3.14159,), ref=lambda: 1.0))


def item_and_tolist(w):
    s = (w @ w).item()
    vals = w.tolist()
    return s * vals[0] + sum(v ** 3 for v in vals)


CASES.append(G("r10_item_and_tolist", item_and_tolist, (V[:3],)))


def flip_roll_tril(x):
    A = np.tril(np.outer(x, np.flip(x)))
    return np.sum(A * np.roll(x, 2)[None, :])


CASES.append(G("r10_flip_roll_tril", flip_roll_tril, (V,), ref="jax"))


def mean_where_kw(x):
    return np.mean(x ** 2, where=x > 0) + np.sum(x, where=x < 0)


CASES.append(G("r10_mean_sum_where_keyword", mean_where_kw, (V,),
               ref=lambda: np.where(V > 0, 2 * V / np.sum(V > 0), 1.0)))


def quantile_loss(pred, y, q=0.8):
    e = y - pred
    return np.mean(np.maximum(q * e, (q - 1) * e))


CASES.append(G("r10_pinball_quantile_loss", quantile_loss, (V, V[::-1] + 0.3), ref="jax"))


def vectorize_user_fn(x):
    f = np.vectorize(lambda t: t * t if t > 0 else -t)
    return np.sum(f(x))


CASES.append(G("r10_np_vectorize_lambda", vectorize_user_fn, (V,), ref=lambda: np.where(V > 0, 2 * V, -1.0)))
