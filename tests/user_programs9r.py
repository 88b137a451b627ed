"""Round 9, statistics (2) and signal processing: variance with ddof, weighted
averages, covariance and correlation matrices, Mahalanobis distance, Gaussian KL,
1-D Wasserstein by sorting, kernel density log-likelihood, quantile (pinball) loss,
np.quantile/median, autocorrelation, Holt's exponential smoothing, the
Hodrick-Prescott filter by solve, FFT power spectra, bootstrap indices passed in."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(17)
_x = _rng.normal(size=12)
_X = _rng.normal(size=(10, 3))


def var_ddof(x):
    return np.var(x, ddof=1) + np.std(x) * 0.5


CASES.append(G("r9_var_ddof_and_std", var_ddof, (_x,), ref="jax"))


def weighted_avg(w):
    return np.average(_x[:4], weights=np.exp(w))


CASES.append(G("r9_np_average_weights", weighted_avg, (np.array([0.1, -0.2, 0.3, 0.0]),), ref="jax"))


def cov_trace(X):
    C = np.cov(X, rowvar=False)
    return np.trace(C) + C[0, 1]


CASES.append(G("r9_np_cov_rowvar", cov_trace, (_X,), ref="jax"))


def corr_sum(X):
    R = np.corrcoef(X.T)
    return R[0, 1] + 2 * R[1, 2]


CASES.append(G("r9_np_corrcoef", corr_sum, (_X,), ref="jax"))


def mahalanobis(x):
    mu = _X.mean(axis=0)
    S = np.cov(_X.T) + 0.1 * np.eye(3)
    d = x - mu
    return np.sqrt(d @ np.linalg.solve(S, d))


CASES.append(G("r9_mahalanobis_distance", mahalanobis, (np.array([0.5, -0.3, 1.0]),), ref="jax"))


def kl_gauss(mu1, s1, mu2=0.0, s2=1.0):
    return math.log(s2 / s1) + (s1 ** 2 + (mu1 - mu2) ** 2) / (2 * s2 ** 2) - 0.5


CASES.append(G("r9_kl_two_gaussians", kl_gauss, (0.3, 0.8), argnums=(0, 1), ref=lambda: (0.3, -1 / 0.8 + 0.8), tol=1e-12))


def wasserstein_1d(a):
    b = np.sort(_x)
    return np.mean(np.abs(np.sort(a) - b))


CASES.append(G("r9_wasserstein_by_sort", wasserstein_1d, (_rng.normal(size=12) + 0.3,), ref="jax"))


def kde_loglik(log_h):
    h = np.exp(log_h)
    test = np.array([-0.5, 0.1, 0.9])
    d = (test[:, None] - _x[None, :]) / h
    dens = np.mean(np.exp(-0.5 * d * d), axis=1) / (h * np.sqrt(2 * np.pi))
    return np.sum(np.log(dens))


CASES.append(G("r9_kde_bandwidth_loglik", kde_loglik, (-0.5,), ref="jax"))


def pinball(q, tau=0.8):
    r = _x - q
    return np.mean(np.maximum(tau * r, (tau - 1) * r))


CASES.append(G("r9_pinball_quantile_loss", pinball, (0.37,), ref="jax"))


def quantile_spread(x):
    return np.quantile(x, 0.9) - np.quantile(x, 0.1) + np.median(x)


CASES.append(G("r9_np_quantile_median", quantile_spread, (_x,), ref="jax"))


def percentile_q(q):
    return np.percentile(_x, q)


CASES.append(G("r9_percentile_wrt_q", percentile_q, (37.0,), ref="fd"))


def autocorr(x, lag=2):
    xc = x - x.mean()
    return np.sum(xc[lag:] * xc[:-lag]) / np.sum(xc * xc)


CASES.append(G("r9_autocorrelation_lag", autocorr, (_x,), ref="jax"))


def holt(params):
    alpha, beta = params
    level, trend = _x[0], _x[1] - _x[0]
    sse = 0.0
    for t in range(1, len(_x)):
        pred = level + trend
        sse += (_x[t] - pred) ** 2
        new_level = alpha * _x[t] + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
    return sse


CASES.append(G("r9_holt_linear_smoothing", holt, (np.array([0.4, 0.2]),), ref="jax"))


def hp_filter(lam):
    n = len(_x)
    D = np.diff(np.eye(n), n=2, axis=0)
    trend = np.linalg.solve(np.eye(n) + lam * D.T @ D, _x)
    return np.sum((_x - trend) ** 2)


CASES.append(G("r9_hodrick_prescott_solve", hp_filter, (5.0,), ref="jax"))


def fft_power(x):
    F = np.fft.rfft(x)
    P = np.abs(F) ** 2
    return np.sum(P[1:4] * np.array([1.0, 2.0, 3.0]))


CASES.append(G("r9_rfft_power_spectrum", fft_power, (_x,), ref="jax"))


def fft_lowpass(x):
    F = np.fft.fft(x)
    F = F * (np.arange(len(x)) < 3)
    return np.sum(np.real(np.fft.ifft(F)) ** 2)


CASES.append(G("r9_fft_mask_ifft_real", fft_lowpass, (_x,), ref="jax"))

BOOT = _rng.integers(0, 12, size=(5, 12))


def bootstrap_var_of_mean(x):
    means = np.array([np.mean(x[idx]) for idx in BOOT])
    return np.var(means)


CASES.append(G("r9_bootstrap_index_table_global", bootstrap_var_of_mean, (_x,), ref="jax"))


def zscore_clip(x):
    z = (x - np.mean(x)) / np.std(x)
    return np.sum(np.clip(z, -1.5, 1.5) ** 3)


CASES.append(G("r9_zscore_then_clip", zscore_clip, (_x,), ref="jax"))


def log_softmax_ce_int_labels(W):
    labels = np.array([0, 2, 1, 1, 0, 2, 2, 1, 0, 0])
    Z = _X @ W
    Z = Z - Z.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(10), labels])


CASES.append(G("r9_multinomial_logit_int_label_gather", log_softmax_ce_int_labels, (_rng.normal(size=(3, 3)),), ref="jax"))


def probit_ll(b):
    y = (_X[:, 0] > 0).astype(float)
    eta = _X[:, 1:] @ b
    Phi = np.array([0.5 * (1 + math.erf(e / math.sqrt(2))) for e in eta])
    return np.sum(y * np.log(Phi) + (1 - y) * np.log(1 - Phi))


CASES.append(G("r9_probit_erf_list_comprehension", probit_ll, (np.array([0.3, -0.2]),), ref="fd"))


def ecdf_smooth(t):
    return np.mean(1.0 / (1.0 + np.exp(-(t - _x) / 0.2)))


CASES.append(G("r9_smoothed_ecdf", ecdf_smooth, (0.1,), ref="jax"))
