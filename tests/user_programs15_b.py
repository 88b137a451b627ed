"""Round 15, part b: climate and hydrology -- energy-balance models with ice-albedo
thresholds (np.where, min/max), bucket models with overflow branches, degree-day melt
with while loops."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append

SIGMA = 5.67e-8


def ebm_0d(S0, eps=0.61, C=8.0, n=200, dt=0.1):
    T = 250.0
    for _ in range(n):
        albedo = 0.6 if T < 263.0 else (0.3 if T > 283.0 else 0.6 - 0.3 * (T - 263.0) / 20.0)
        Q = S0 / 4.0 * (1.0 - albedo)
        T = T + dt * (Q - eps * SIGMA * T ** 4) / C
    return T


add(VG("r15_ebm_0d_albedo_branches", ebm_0d, (1361.0,), ref="ag", tol=1e-9))
add(G("r15_ebm_0d_wrt_eps", ebm_0d, (1361.0, 0.61), argnums=1, ref="ag", tol=1e-9))
add(pair("r15_ebm_0d_jit_grad", lambda: revsrc.jit(revsrc.grad(ebm_0d))(1361.0),
         lambda: ag()[0].grad(agify(ebm_0d))(1361.0), tol=1e-9))
add(pair("r15_ebm_0d_vmap_value_bits", lambda: revsrc.vmap(ebm_0d)(np.array([1200.0, 1361.0, 1500.0])),
         lambda: np.array([ebm_0d(s) for s in (1200.0, 1361.0, 1500.0)]), tol=0.0))


LAT = np.linspace(-80.0, 80.0, 9)


def ebm_1d(params, n=60, dt=0.2):
    A, B, D = params[0], params[1], params[2]
    x = np.sin(np.deg2rad(LAT))
    S = 1.0 - 0.48 * 0.5 * (3 * x ** 2 - 1)
    T = np.full(LAT.shape, 10.0)
    for _ in range(n):
        alb = np.where(T < -10.0, 0.62, 0.3)
        Tm = np.mean(T)
        T = T + dt * (340.0 * S * (1 - alb) - (A + B * T) + D * (Tm - T)) / 40.0
    return np.mean(T ** 2)


EBP = np.array([203.3, 2.09, 0.55])
add(VG("r15_ebm_1d_where_albedo", ebm_1d, (EBP,), ref="ag", tol=1e-9))
add(H("r15_ebm_1d_hessian", ebm_1d, (EBP,), ref="ag", tol=1e-7))


def ebm_smooth_ice(params):
    A, B = params
    T = np.full(5, 0.0)
    for _ in range(40):
        alb = 0.45 - 0.15 * np.tanh((T + 10.0) / 5.0)
        T = T + 0.1 * (300.0 * (1 - alb) - A - B * T) / 10.0
    return np.max(T) - np.min(T) + np.sum(np.minimum(T, 0.0) ** 2)


add(G("r15_ebm_tanh_ice_max_min", ebm_smooth_ice, ((200.0, 2.0),), ref="ag", tol=1e-9))


def bucket(k, rain, cap=50.0, s0=20.0):
    s = s0
    runoff = 0.0
    for r in rain:
        s = s + r
        if s > cap:
            runoff += s - cap
            s = cap
        et = min(s, 3.0 * s / cap)
        s = s - et
        q = k * s
        s = s - q
        runoff += q
    return runoff


RAIN = np.array([0.0, 12.0, 30.0, 5.0, 0.0, 0.0, 40.0, 22.0, 1.0, 0.0, 8.0, 15.0])
add(VG("r15_bucket_overflow_vg", bucket, (0.1, RAIN), ref="ag", tol=1e-10))
add(G("r15_bucket_wrt_rain", bucket, (0.1, RAIN), argnums=1, ref="ag", tol=1e-10))
add(G("r15_bucket_wrt_cap_kw", lambda c: bucket(0.1, RAIN, cap=c), (45.0,), ref="ag", tol=1e-10))
add(pair("r15_bucket_vmap_grad_in_axes_none", lambda: revsrc.vmap(revsrc.grad(bucket), in_axes=(0, None))(np.array([0.05, 0.1, 0.2]), RAIN),
         lambda: np.array([ag()[0].grad(agify(bucket))(k, RAIN) for k in (0.05, 0.1, 0.2)]), tol=1e-10))


def two_buckets(par, rain):
    upper, lower = 10.0, 30.0
    total = 0.0
    for t in range(rain.shape[0]):
        upper += rain[t]
        perc = par[0] * upper
        over = max(upper - 25.0, 0.0)
        upper -= perc + over
        lower += perc
        base = par[1] * lower ** 1.5
        lower -= base
        total += (over + base) * (0.9 ** t)
    return total


add(VG("r15_two_buckets_max_power", two_buckets, (np.array([0.2, 0.01]), RAIN), ref="ag", tol=1e-10))


def degree_day_melt(ddf, temps, swe0=120.0):
    swe = swe0
    day = 0
    melt_total = 0.0
    while swe > 0.0 and day < len(temps):
        m = ddf * max(temps[day], 0.0)
        if m > swe:
            m = swe
        swe -= m
        melt_total += m * (day + 1)
        day += 1
    return melt_total + 10.0 * day


TEMPS = np.array([-3.0, 1.0, 4.0, 6.0, 2.0, -1.0, 8.0, 9.0, 7.5, 10.0, 12.0, 11.0, 6.0, 14.0])
add(VG("r15_degree_day_while_vg", degree_day_melt, (3.1, TEMPS), ref="ag", tol=1e-10))
add(G("r15_degree_day_while_wrt_temps", degree_day_melt, (3.1, TEMPS), argnums=1, ref="ag", tol=1e-10))
add(pair("r15_degree_day_grad_backend_jax", lambda: revsrc.grad(degree_day_melt, backend="jax")(3.1, TEMPS),
         lambda: ag()[0].grad(agify(degree_day_melt))(3.1, TEMPS), tol=1e-10))


def snow_while_float(ddf, T=5.0):
    swe = 100.0
    days = 0.0
    while swe > 1e-9:
        swe = swe - min(swe, ddf * T)
        days += 1.0
    return days * ddf + swe


add(G("r15_snow_while_min_count", snow_while_float, (3.0,), ref="ag", tol=1e-12))


def penman_like(params, Ta):
    # vapour pressure slope by math.exp, clipped humidity via np.clip
    a, rh = params
    es = 0.6108 * np.exp(17.27 * Ta / (Ta + 237.3))
    ea = np.clip(rh, 0.0, 1.0) * es
    delta = 4098.0 * es / (Ta + 237.3) ** 2
    return np.sum(a * delta / (delta + 0.066) * (es - ea))


TA = np.array([5.0, 12.0, 20.0, 27.0])
add(VG("r15_penman_clip_exp", penman_like, ((1.26, 0.7), TA), ref="ag", tol=1e-10))
add(G("r15_penman_wrt_temperature", penman_like, ((1.26, 0.7), TA), argnums=1, ref="ag", tol=1e-10))
add(G("r15_penman_clip_saturated_rh", penman_like, ((1.26, 1.3), TA), ref="ag", tol=1e-10))


def routing_conv(k, rain):
    # unit hydrograph by a Nash cascade kernel, np.convolve, peak flow
    t = np.arange(8.0)
    uh = t ** 2 * np.exp(-t / k)
    uh = uh / np.sum(uh)
    q = np.convolve(rain, uh)
    return np.max(q) + 0.01 * np.sum(q ** 2)


add(G("r15_routing_convolve_max", routing_conv, (1.5, RAIN), ref="fd", tol=1e-7))
add(G("r15_routing_convolve_wrt_rain", routing_conv, (1.5, RAIN), argnums=1, ref="fd", tol=1e-7))


def glacier_mb(T_offset, elev=np.array([2000.0, 2400.0, 2800.0, 3200.0, 3600.0])):
    T = T_offset - 0.0065 * (elev - 2000.0)
    acc = np.where(T < 1.0, 2.0 * (1.0 - T / 10.0), 0.0)
    melt = np.maximum(T, 0.0) * 0.6
    mb = acc - melt
    ela_idx = np.searchsorted(-mb, 0.0)
    return np.sum(mb) + 0.0 * ela_idx


add(VG("r15_glacier_where_searchsorted", glacier_mb, (6.0,), ref="ag", tol=1e-10))
add(pair("r15_glacier_hessian_zero_segments", lambda: revsrc.hessian(glacier_mb)(6.0), lambda: 0.0, tol=1e-12))


def degree_day_np(ddf, temps, swe0=120.0):
    swe = swe0
    day = 0
    melt_total = 0.0
    while swe > 0.0 and day < temps.shape[0]:
        m = np.minimum(ddf * np.maximum(temps[day], 0.0), swe)
        swe = swe - m
        melt_total = melt_total + m * (day + 1)
        day += 1
    return melt_total + 10.0 * day


add(VG("r15_degree_day_np_minmax_vg", degree_day_np, (3.1, TEMPS), ref="ag", tol=1e-10))
add(pair("r15_degree_day_np_backend_jax", lambda: revsrc.grad(degree_day_np, backend="jax")(3.1, TEMPS),
         lambda: ag()[0].grad(agify(degree_day_np))(3.1, TEMPS), tol=1e-10))
