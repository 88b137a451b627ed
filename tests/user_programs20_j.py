"""Round 20, part j: time series and forecasting -- Holt-Winters additive and damped
smoothing, ARIMA/ARMA residual recursions, a Kalman filter and an RTS smoother with
state-space log likelihoods, dynamic time warping (hard min and soft-min), exponential
moving averages with pandas-like helpers, a forecaster class with a horizon property,
and compositions (vmap of gradients over series parameters, hessians, jit)."""
import functools
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2010)
T = 36
TT = np.arange(T, dtype=float)
SERIES = 10.0 + 0.3 * TT + 2.0 * np.sin(2 * np.pi * TT / 12) + 0.4 * _rng.normal(size=T)


def holt_winters_sse(params, y=SERIES, m=12):
    alpha, beta, gamma = params
    level = y[:m].mean()
    trend = (y[m:2 * m].mean() - y[:m].mean()) / m
    season = list(y[:m] - level)
    sse = 0.0
    for t in range(m, len(y)):
        s = season[t - m]
        pred = level + trend + s
        err = y[t] - pred
        sse += err * err
        new_level = alpha * (y[t] - s) + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        season.append(gamma * (y[t] - new_level) + (1 - gamma) * s)
        level = new_level
    return sse


HW = (0.3, 0.1, 0.2)
add(VG("r20j_holt_winters_additive_tuple_params", holt_winters_sse, (HW,), ref="ag", tol=1e-9))
add(pair("r20j_holt_winters_hessian_array", lambda: revsrc.hessian(lambda p: holt_winters_sse((p[0], p[1], p[2])))(np.array(HW)),
         lambda: ag()[0].hessian(lambda p: agify(holt_winters_sse)((p[0], p[1], p[2])))(np.array(HW)), tol=1e-8))


def damped_trend_forecast(params, y=SERIES[:24], h=6):
    alpha, beta, phi = params[0], params[1], params[2]
    level, trend = y[0], y[1] - y[0]
    for obs in y[1:]:
        prev = level
        level = alpha * obs + (1 - alpha) * (level + phi * trend)
        trend = beta * (level - prev) + (1 - beta) * phi * trend
    # the forecast at horizon h: level + (phi + phi^2 + ... + phi^h) trend
    damp = sum(phi ** k for k in range(1, h + 1))
    return level + damp * trend


add(G("r20j_damped_trend_forecast_sum_generator", damped_trend_forecast, (np.array([0.4, 0.2, 0.9]),), ref="ag", tol=1e-10))


def forecast_loss(params, y=SERIES, start=24):
    # rolling-origin evaluation: refit nothing, forecast one step from each origin
    return sum((damped_trend_forecast(params, y[:o], h=1) - y[o]) ** 2 for o in range(start, len(y)))


add(G("r20j_rolling_origin_forecast_loss", forecast_loss, (np.array([0.4, 0.2, 0.9]),), ref="ag", tol=1e-9))


def arma_css(params, y=SERIES - SERIES.mean(), p=2, q=1):
    # conditional sum of squares of an ARMA(2, 1): residuals by recursion
    phi = params[:p]
    theta = params[p:p + q]
    e = np.zeros(len(y))
    for t in range(p, len(y)):
        ar = phi[0] * y[t - 1] + phi[1] * y[t - 2]
        ma = theta[0] * e[t - 1]
        e[t] = y[t] - ar - ma
    return np.sum(e[p:] ** 2) / (len(y) - p)


ARMA = np.array([0.5, 0.2, 0.3])
add(VG("r20j_arma_css_residual_writes", arma_css, (ARMA,), ref="fd", tol=1e-7))
add(H("r20j_arma_css_hessian", arma_css, (ARMA,), ref="fd", tol=1e-5))


def arima_diff_css(params, y=SERIES, d=1):
    # ARIMA(1, d, 1): difference d times with np.diff, then the CSS of the ARMA residuals
    z = np.diff(y, n=d)
    z = z - z.mean()
    e_prev = 0.0
    total = 0.0
    for t in range(1, len(z)):
        e = z[t] - params[0] * z[t - 1] - params[1] * e_prev
        total += e * e
        e_prev = e
    return total


add(G("r20j_arima_np_diff_scalar_carry", arima_diff_css, (np.array([0.2, -0.4]),), ref="ag", tol=1e-10))
add(G("r20j_arima_wrt_series", arima_diff_css, (np.array([0.2, -0.4]), SERIES), argnums=1, ref="ag", tol=1e-10))


# -- Kalman filter and smoother ----------------------------------------------------------

def local_linear_trend_loglik(log_vars, y=SERIES):
    q_level, q_slope, r = np.exp(log_vars)
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    Hm = np.array([[1.0, 0.0]])
    Q = np.diag([q_level, q_slope])
    x = np.array([y[0], 0.0])
    P = 10.0 * np.eye(2)
    ll = 0.0
    for obs in y[1:]:
        x = F @ x
        P = F @ P @ F.T + Q
        S = (Hm @ P @ Hm.T)[0, 0] + r
        v = obs - (Hm @ x)[0]
        K = (P @ Hm.T)[:, 0] / S
        x = x + K * v
        P = P - np.outer(K, K) * S
        ll += -0.5 * (math.log(2 * math.pi * S) + v * v / S)
    return ll


LV = np.array([-1.0, -4.0, -0.5])
add(VG("r20j_kalman_local_linear_trend_loglik", local_linear_trend_loglik, (LV,), ref="fd", tol=1e-7))
add(H("r20j_kalman_loglik_hessian", local_linear_trend_loglik, (LV,), ref="fd", tol=1e-5))


def rts_smoother_mean(log_q, y=SERIES[:20], r=0.5):
    # random-walk plus noise: forward filter saved in lists, backward RTS pass, reversed()
    q = math.exp(log_q)
    m, P = y[0], 1.0
    ms, Ps, mp, Pp = [], [], [], []
    for obs in y:
        m_pred, P_pred = m, P + q
        K = P_pred / (P_pred + r)
        m = m_pred + K * (obs - m_pred)
        P = (1 - K) * P_pred
        ms.append(m)
        Ps.append(P)
        mp.append(m_pred)
        Pp.append(P_pred)
    sm = [ms[-1]]
    for k in reversed(range(len(y) - 1)):
        C = Ps[k] / Pp[k + 1]
        sm.append(ms[k] + C * (sm[-1] - mp[k + 1]))
    sm = sm[::-1]
    return sum((s - o) ** 2 for s, o in zip(sm, y))


add(G("r20j_rts_smoother_lists_reversed", rts_smoother_mean, (-1.5,), ref="ag", tol=1e-10))
add(G("r20j_rts_smoother_wrt_series", rts_smoother_mean, (-1.5, SERIES[:20]), argnums=1, ref="ag", tol=1e-10))


def kalman_with_missing(log_r, y=np.where(np.arange(20) % 5 == 3, np.nan, SERIES[:20])):
    # missing observations (nan) skipped by a guard clause
    r = math.exp(log_r)
    m, P, ll = y[0], 1.0, 0.0
    for obs in y[1:]:
        P = P + 0.2
        if math.isnan(obs):
            continue
        S = P + r
        v = obs - m
        ll -= 0.5 * (math.log(2 * math.pi * S) + v * v / S)
        K = P / S
        m = m + K * v
        P = (1 - K) * P
    return ll


add(G("r20j_kalman_missing_nan_continue", kalman_with_missing, (-0.7,), ref="fd", tol=1e-8))


class SeasonalNaive:
    def __init__(self, period):
        self.period = period

    @property
    def horizon(self):
        return 2 * self.period


class DriftSeasonal(SeasonalNaive):
    def __init__(self, period, drift):
        super().__init__(period)
        self.drift = drift

    def forecast(self, y, weight):
        base = y[-self.period:]
        reps = self.horizon // self.period
        out = np.concatenate([base] * reps)
        steps = np.arange(1, self.horizon + 1)
        return out + weight * self.drift * steps


MODEL = DriftSeasonal(12, 0.25)


def drift_loss(weight, y=SERIES):
    f = MODEL.forecast(y[:-24], weight)
    return np.mean((f - y[-24:]) ** 2)


add(G("r20j_forecaster_class_property_module_object", drift_loss, (1.3,), ref="fd", tol=1e-8))


def drift_loss_bound(weight, forecast=MODEL.forecast, y=SERIES):
    return np.mean((forecast(y[:-24], weight) - y[-24:]) ** 2)


add(G("r20j_forecaster_bound_method_default", drift_loss_bound, (1.3,), ref="fd", tol=1e-8))
add(G("r20j_forecaster_bound_method_through_partial", functools.partial(drift_loss_bound, forecast=MODEL.forecast), (1.3,),
      ref="fd", tol=1e-8))
add(G("r20j_forecaster_bound_method_positional_arg", drift_loss_bound, (1.3, MODEL.forecast), ref="fd", tol=1e-8))


# -- dynamic time warping ----------------------------------------------------------------

def dtw(a, b):
    n, m = len(a), len(b)
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (a[i - 1] - b[j - 1]) ** 2
            D[i, j] = cost + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return D[n, m]


QA = np.array([0.0, 0.4, 1.1, 1.9, 1.2, 0.5, 0.1])
QB = np.array([0.1, 0.9, 2.0, 1.5, 0.3])
add(G("r20j_dtw_hard_min_inf_border", dtw, (QA, QB), ref="fd", tol=1e-7))
add(G("r20j_dtw_wrt_second_series", dtw, (QA, QB), argnums=1, ref="fd", tol=1e-7))


def soft_dtw(a, b, gamma=0.1):
    n, m = len(a), len(b)
    R = [[math.inf] * (m + 1) for _ in range(n + 1)]
    R[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            r = [R[i - 1][j], R[i][j - 1], R[i - 1][j - 1]]
            rmin = min(r)
            s = sum(math.exp(-(x - rmin) / gamma) for x in r)
            R[i][j] = (a[i - 1] - b[j - 1]) ** 2 + rmin - gamma * math.log(s)
    return R[n][m]


add(G("r20j_soft_dtw_list_of_lists_inf", soft_dtw, (QA, QB), ref="fd", tol=1e-7))
add(H("r20j_soft_dtw_hessian", soft_dtw, (QA[:4], QB[:3]), ref="fd", tol=1e-4))


def ema(y, alpha):
    out = np.empty_like(y)
    out[0] = y[0]
    for t in range(1, len(y)):
        out[t] = alpha * y[t] + (1 - alpha) * out[t - 1]
    return out


def macd_signal_loss(alphas, y=SERIES):
    fast, slow, sig = alphas
    macd = ema(y, fast) - ema(y, slow)
    signal = ema(macd, sig)
    return np.sum((macd - signal)[-10:] ** 2)


add(G("r20j_macd_ema_empty_like_writes", macd_signal_loss, ([0.3, 0.1, 0.2],), ref="fd", tol=1e-7))


def rolling_zscore_loss(w, y=SERIES, win=6):
    # cumsum-based rolling means and variances, then a weighted score
    c1 = np.cumsum(np.concatenate([[0.0], y * w]))
    c2 = np.cumsum(np.concatenate([[0.0], (y * w) ** 2]))
    mean = (c1[win:] - c1[:-win]) / win
    var = (c2[win:] - c2[:-win]) / win - mean ** 2
    z = (y[win - 1:] * w - mean) / np.sqrt(var + 1e-3)
    return np.sum(np.clip(z, -1.5, 1.5) ** 2)


# (central differences are noisy here: the rolling variance cancels; autograd runs the same program)
add(G("r20j_rolling_cumsum_zscore_clip", rolling_zscore_loss, (0.8,), ref="ag", tol=1e-9))


def ar_forecast_vmap_target(phi, y0):
    # a scalar AR(1) with a nonlinearity, 10 steps ahead
    y = y0
    for _ in range(10):
        y = phi * y + 0.1 * math.tanh(y)
    return y


add(pair("r20j_vmap_grad_ar_over_phi_in_axes_none",
         lambda: revsrc.vmap(revsrc.grad(ar_forecast_vmap_target), in_axes=(0, None))(np.array([0.5, 0.8, 0.95]), 1.2),
         lambda: np.array([ag()[0].grad(agify(ar_forecast_vmap_target))(p, 1.2) for p in (0.5, 0.8, 0.95)]), tol=1e-12))
add(pair("r20j_jit_ar_forecast_same_digits", lambda: revsrc.jit(ar_forecast_vmap_target)(0.8, 1.2),
         lambda: ar_forecast_vmap_target(0.8, 1.2), tol=0.0))


def croston_demand(alpha, demand=(0.0, 3.0, 0.0, 0.0, 2.0, 0.0, 4.0, 0.0, 0.0, 0.0, 1.0, 5.0)):
    # intermittent demand: smooth sizes and intervals only when demand occurs
    z, p, q = None, None, 1
    for d in demand:
        if d > 0:
            if z is None:
                z, p = d, q
            else:
                z = z + alpha * (d - z)
                p = p + alpha * (q - p)
            q = 1
        else:
            q += 1
    return z / p


add(G("r20j_croston_none_guard_int_counter", croston_demand, (0.3,), ref="ag", tol=1e-12))


def seasonal_decompose_error(params, y=SERIES, period=12):
    # trend by a centred moving average written with np.convolve, then seasonal means
    k = np.ones(period + 1)
    k[0] = k[-1] = 0.5
    k = k / period
    trend = np.convolve(y * params[0], k, mode="valid")
    off = period // 2
    detr = y[off:off + len(trend)] * params[0] - trend
    seas = np.array([np.mean(detr[i::period]) for i in range(period)])
    resid = detr - np.resize(seas, len(detr)) * params[1]
    return np.sum(resid ** 2)


add(G("r20j_seasonal_decompose_convolve_valid", seasonal_decompose_error, (np.array([1.1, 0.9]),), ref="fd", tol=1e-7))


add(G("r20j_kalman_backend_jax", local_linear_trend_loglik, (LV,), ref="fd", tol=1e-7, backend="jax"))
add(G("r20j_holt_winters_backend_jax", lambda p: holt_winters_sse((p[0], p[1], p[2])), (np.array(HW),), ref="fd", tol=1e-6,
      backend="jax"))
add(G("r20j_dtw_backend_jax", dtw, (QA, QB), ref="fd", tol=1e-7, backend="jax"))


def local_level_loglik_plain_add(log_vars, y=SERIES):
    # the same filter for a local level, the total written ll = ll + ... (as E404's hint says)
    q, r = np.exp(log_vars)
    m, P, ll = y[0], 10.0, 0.0
    for obs in y[1:]:
        P = P + q
        S = P + r
        v = obs - m
        K = P / S
        m = m + K * v
        P = P - K * K * S
        ll = ll - 0.5 * (np.log(2 * math.pi * S) + v * v / S)
    return ll


add(G("r20j_local_level_plain_add_backend_jax", local_level_loglik_plain_add, (np.array([-1.0, -0.5]),), ref="fd",
      tol=1e-7, backend="jax"))


def seasonal_decompose_tile(params, y=SERIES, period=12):
    k = np.ones(period + 1)
    k[0] = k[-1] = 0.5
    k = k / period
    trend = np.convolve(y * params[0], k, mode="valid")
    off = period // 2
    detr = y[off:off + len(trend)] * params[0] - trend
    seas = np.array([np.mean(detr[i::period]) for i in range(period)])
    reps = -(-len(detr) // period)
    resid = detr - np.tile(seas, reps)[:len(detr)] * params[1]
    return np.sum(resid ** 2)


add(G("r20j_seasonal_decompose_tile", seasonal_decompose_tile, (np.array([1.1, 0.9]),), ref="fd", tol=1e-7))
