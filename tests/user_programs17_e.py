"""Round 17, part e: climate, hydrology and ecology -- two-box energy balance models,
Lotka-Volterra and SIR variants with while loops and adaptive steps, reservoirs with
clipping, HBV-style buckets, Leslie matrices by power iteration, carbon box steady states,
stochastic weather from a Generator argument."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs7_harness import fd_hess_checked  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

YEARS = 150
F2X = 3.7
FORCING = F2X * np.minimum(np.arange(YEARS) / 70.0, 2.0) * 0.5


def two_box(params, forcing=FORCING, dt=1.0):
    # surface + deep ocean energy balance (Held et al. 2010 style)
    lam, gamma, C, Cd = params["lam"], params["gamma"], params["C"], params["Cd"]
    T, Td = 0.0, 0.0
    Ts = np.zeros(len(forcing))
    for k, F in enumerate(forcing):
        dT = (F - lam * T - gamma * (T - Td)) / C
        dTd = gamma * (T - Td) / Cd
        T, Td = T + dt * dT, Td + dt * dTd
        Ts[k] = T
    return np.mean(Ts[-20:])


P2 = {"lam": 1.2, "gamma": 0.7, "C": 8.0, "Cd": 100.0}
add(VG("r17_two_box_climate_dict_vg", two_box, (P2,), ref="fd", tol=1e-7))
add(pair("r17_two_box_climate_hessian_dict", lambda: revsrc.hessian(two_box)(P2)["lam"]["gamma"],
         lambda: fd_hess_checked(lambda lg: two_box({"lam": lg[0], "gamma": lg[1], "C": 8.0, "Cd": 100.0}),
                                 (np.array([1.2, 0.7]),))[0][0, 1], tol=1e-5))


def lv_adaptive(p, x0=(10.0, 5.0), T=15.0, dt_max=0.05):
    a, b, c, d = p
    x, y = x0
    t = 0.0
    peak = 0.0
    while t < T:
        dx = a * x - b * x * y
        dy = d * x * y - c * y
        dt = min(dt_max, 0.05 / (abs(dx) / x + abs(dy) / y + 1e-9))
        dt = min(dt, T - t)
        x, y = x + dt * dx, y + dt * dy
        peak = max(peak, y)
        t += dt
    return peak + 0.1 * x


PLV = np.array([1.1, 0.4, 0.4, 0.1])
add(VG("r17_lotka_volterra_adaptive_while_vg", lv_adaptive, (PLV,), ref="fd", tol=1e-6))


def sir_until_extinct(beta, gamma, N_=1000.0, I0=1.0, dt=0.1):
    S, I, R = N_ - I0, I0, 0.0
    steps = 0
    peak_I = I
    while I >= 1.0 and steps < 5000:
        new_inf = beta * S * I / N_ * dt
        rec = gamma * I * dt
        S, I, R = S - new_inf, I + new_inf - rec, R + rec
        peak_I = I if I > peak_I else peak_I
        steps += 1
    return R / N_ + 0.001 * peak_I


add(VG("r17_sir_while_until_extinct_vg", sir_until_extinct, (0.35, 0.1), argnums=(0, 1), ref="fd", tol=1e-6))
add(pair("r17_sir_while_jit_grad", lambda: revsrc.jit(revsrc.grad(sir_until_extinct, argnums=(0, 1)))(0.35, 0.1),
         lambda: tuple(fd_checked(sir_until_extinct, (0.35, 0.1), argnums=(0, 1))), tol=1e-6))


def seirv(theta, days=120, dt=0.25):
    beta, sigma, gamma, nu = theta
    s = np.array([0.99, 0.0, 0.01, 0.0, 0.0])  # S E I R V
    cum = 0.0
    for _ in range(int(days / dt)):
        S, E, I, R, V = s
        inf = beta * S * I
        vac = nu * S if S > 0.3 else 0.0
        ds = np.array([-inf - vac, inf - sigma * E, sigma * E - gamma * I, gamma * I, vac])
        s = np.clip(s + dt * ds, 0.0, 1.0)
        cum += dt * inf
    return cum


add(VG("r17_seirv_clip_threshold_vaccination_vg", seirv, (np.array([0.5, 0.2, 0.1, 0.01]),), ref="fd", tol=1e-6))


def reservoir_shortage(policy, inflow, demand, cap=100.0, s0=50.0):
    # release = target * hedging when storage low; storage clipped to [0, cap], spill lost
    target, hedge_lvl, hedge_frac = policy[0], policy[1], policy[2]
    S = s0
    short = 0.0
    spill = 0.0
    for q, dm in zip(inflow, demand):
        rel = target * dm if S > hedge_lvl else hedge_frac * target * dm
        S = S + q - rel
        if S < 0.0:
            rel = rel + S
            S = 0.0
        if S > cap:
            spill += S - cap
            S = cap
        short += max(dm - rel, 0.0) ** 2
    return short + 0.01 * spill


RNG = np.random.default_rng(11)
INFLOW = np.abs(10.0 + 6.0 * np.sin(np.arange(36) / 6.0) + RNG.normal(0, 2, 36))
DEMAND = np.full(36, 11.0)
POL = np.array([0.95, 30.0, 0.7])
add(VG("r17_reservoir_hedging_clip_vg", reservoir_shortage, (POL, INFLOW, DEMAND), ref="fd", tol=1e-6))
add(G("r17_reservoir_hedging_wrt_inflow", reservoir_shortage, (POL, INFLOW, DEMAND), argnums=1, ref="fd", tol=1e-6))


def reservoir_np_clip(policy, inflow, cap=60.0):
    S = np.zeros(len(inflow) + 1)
    S[0] = 30.0
    rel = np.zeros(len(inflow))
    for t in range(len(inflow)):
        rel[t] = np.clip(policy[0] + policy[1] * S[t], 0.0, S[t] + inflow[t])
        S[t + 1] = np.clip(S[t] + inflow[t] - rel[t], 0.0, cap)
    return np.sum((rel - 9.0) ** 2) + np.var(S)


add(VG("r17_reservoir_np_clip_inplace_vg", reservoir_np_clip, (np.array([2.0, 0.25]), INFLOW), ref="fd", tol=1e-6))


def nash_cascade(k, rain, n_res=3):
    # n linear reservoirs in series; hydrograph peak softened by a log-sum-exp
    store = np.zeros(n_res)
    q_out = []
    for r in rain:
        inflow = r
        for j in range(n_res):
            store[j] += inflow
            out = store[j] / k
            store[j] -= out
            inflow = out
        q_out.append(inflow)
    q = np.array(q_out)
    return math.log(np.sum(np.exp(5.0 * q))) / 5.0


RAIN = np.concatenate([np.zeros(3), np.array([5.0, 12.0, 8.0, 2.0]), np.zeros(15)])
add(VG("r17_nash_cascade_list_append_vg", nash_cascade, (3.5, RAIN), ref="fd", tol=1e-7))
add(pair("r17_nash_cascade_grad_grad", lambda: revsrc.grad(revsrc.grad(nash_cascade))(3.5, RAIN),
         lambda: fd_hess_checked(nash_cascade, (3.5, RAIN))[0], tol=1e-5))


def hbv_bucket(params, P, PET):
    FC, beta, LP, k0 = params
    sm, uz = 50.0, 5.0
    Q = np.zeros(len(P))
    for t in range(len(P)):
        recharge = P[t] * (sm / FC) ** beta
        sm = sm + P[t] - recharge
        et = PET[t] * min(sm / (LP * FC), 1.0)
        sm = max(sm - et, 0.0)
        uz = uz + recharge
        Q[t] = k0 * uz
        uz = uz - Q[t]
    return Q


def nse_loss(params, P, PET, Qobs):
    Qs = hbv_bucket(params, P, PET)
    return 1.0 - np.sum((Qs - Qobs) ** 2) / np.sum((Qobs - np.mean(Qobs)) ** 2)


PP = np.abs(RNG.gamma(0.7, 6.0, 40))
PET = 2.0 + np.sin(np.arange(40) / 6.4)
QOBS = hbv_bucket(np.array([180.0, 2.2, 0.8, 0.2]), PP, PET) * (1 + 0.05 * RNG.normal(size=40))
add(VG("r17_hbv_nse_min_max_vg", nse_loss, (np.array([200.0, 2.0, 0.7, 0.25]), PP, PET, QOBS), ref="fd", tol=1e-6))
add(pair("r17_hbv_jacrev_discharge", lambda: revsrc.jacrev(hbv_bucket)(np.array([200.0, 2.0, 0.7, 0.25]), PP, PET),
         lambda: fdj(lambda p: hbv_bucket(p, PP, PET), np.array([200.0, 2.0, 0.7, 0.25])), tol=1e-5))


def leslie_growth(fec, surv, tol=1e-13):
    n = fec.shape[0]
    L = np.zeros((n, n))
    L[0, :] = fec
    for i in range(n - 1):
        L[i + 1, i] = surv[i]
    v = np.ones(n) / n
    lam_old = 0.0
    lam = 1.0
    it = 0
    while abs(lam - lam_old) > tol and it < 500:
        w = L @ v
        lam_old = lam
        lam = np.sum(w) / np.sum(v)
        v = w / np.sum(w)
        it += 1
    return lam


def leslie_eig(fec, surv):
    n = fec.shape[0]
    L = np.zeros((n, n))
    L[0, :] = fec
    for i in range(n - 1):
        L[i + 1, i] = surv[i]
    return np.max(np.real(np.linalg.eigvals(L)))


FEC = np.array([0.0, 1.2, 1.8, 0.9])
SURV = np.array([0.6, 0.75, 0.5])
add(VG("r17_leslie_power_iteration_while_vg", leslie_growth, (FEC, SURV),
       ref=lambda: fd_checked(leslie_eig, (FEC, SURV))[0], tol=1e-6))
add(G("r17_leslie_power_iteration_wrt_surv", leslie_growth, (FEC, SURV), argnums=1,
      ref=lambda: fd_checked(leslie_eig, (FEC, SURV), argnums=1)[0], tol=1e-6))


def carbon_steady_state(k, emissions=10.0):
    # atmosphere, land, ocean with linear exchange; steady state by solve, airborne share
    ka_l, kl_a, ka_o, ko_a, k_sed = k
    A = np.array([[-(ka_l + ka_o), kl_a, ko_a],
                  [ka_l, -kl_a, 0.0],
                  [ka_o, 0.0, -(ko_a + k_sed)]])
    b = np.array([-emissions, 0.0, 0.0])
    c = np.linalg.solve(A, b)
    return c[0] / np.sum(c)


add(VG("r17_carbon_box_solve_vg", carbon_steady_state, (np.array([0.1, 0.03, 0.12, 0.02, 0.001]),), ref="ag", tol=1e-9))
add(H("r17_carbon_box_solve_hessian", carbon_steady_state, (np.array([0.1, 0.03, 0.12, 0.02, 0.001]),), ref="ag", tol=1e-6))


def harvest_logistic(h, r=0.8, K=100.0, x0=60.0, years=40):
    x = x0
    total = 0.0
    for y in range(years):
        catch = h * x
        x = x + r * x * (1.0 - x / K) - catch
        if x <= 0.0:
            return total
        total += catch * 0.97 ** y
    return total


add(G("r17_harvest_logistic_early_return_alive", harvest_logistic, (0.3,), ref="ag", tol=1e-9))
add(G("r17_harvest_logistic_early_return_collapse", harvest_logistic, (1.9,), ref="fd", tol=1e-7))


def degree_day_snow(ddf, temps, precip, t_crit=0.5):
    swe = np.cumsum(np.where(temps < t_crit, precip, 0.0))
    melt_pot = ddf * np.maximum(temps - t_crit, 0.0)
    melt = np.minimum(melt_pot, swe)
    return np.sum(melt)


TEMPS = np.array([-5.0, -2.0, 1.0, 3.0, -1.0, 4.0, 6.0, 2.0])
PREC = np.array([3.0, 5.0, 1.0, 0.0, 4.0, 0.5, 0.0, 0.0])
add(G("r17_degree_day_where_cumsum_min", degree_day_snow, (1.7, TEMPS, PREC), argnums=(0, 1), ref="fd", tol=1e-7))


def competition_lv(alpha, r, x0, steps=200, dt=0.05):
    x = x0.copy()
    for _ in range(steps):
        x = x + dt * r * x * (1.0 - alpha @ x)
        x = np.maximum(x, 0.0)
    return -np.sum(x * np.log(x / np.sum(x) + 1e-12))


ALPHA = np.array([[1.0, 0.5, 0.3], [0.4, 1.0, 0.6], [0.2, 0.7, 1.0]])
add(VG("r17_competition_lv_matrix_entropy_vg", competition_lv, (ALPHA, np.array([1.0, 0.8, 1.2]), np.array([0.2, 0.3, 0.1])),
       ref="ag", tol=1e-9))


def green_ampt(Ks, psi_dtheta, t, F0=1.0):
    # implicit infiltration F = Ks t + psi ln(1 + F/psi): Newton with a try for a zero rate
    F = F0
    for _ in range(30):
        g = F - psi_dtheta * math.log(1.0 + F / psi_dtheta) - Ks * t
        dg = 1.0 - psi_dtheta / (psi_dtheta + F)
        F = F - g / dg
    try:
        rate = Ks * (1.0 + psi_dtheta / F)
    except ZeroDivisionError:
        rate = Ks
    return rate


add(VG("r17_green_ampt_newton_try_vg", green_ampt, (1.2, 8.0, 3.0), argnums=(0, 1), ref="fd", tol=1e-7))


def weather_yield(params, rng, days=60):
    # a crop index under stochastic weather drawn from a Generator passed in
    temp = params[0] + 4.0 * rng.standard_normal(days)
    rain = rng.gamma(0.5, params[1], days)
    gdd = np.sum(np.maximum(temp - 10.0, 0.0))
    stress = np.mean(np.exp(-rain / 3.0))
    return gdd * (1.0 - stress)


def weather_yield_seeded(params):
    return weather_yield(params, np.random.default_rng(42))


add(pair("r17_weather_generator_argument", lambda: revsrc.grad(weather_yield)(np.array([14.0, 6.0]), np.random.default_rng(42)),
         lambda: fd_checked(weather_yield_seeded, (np.array([14.0, 6.0]),))[0], tol=1e-6))


def _gen_twice():
    rng = np.random.default_rng(7)
    g1 = revsrc.grad(weather_yield)(np.array([14.0, 6.0]), rng)
    g2 = revsrc.grad(weather_yield)(np.array([14.0, 6.0]), rng)
    return (g1, g2)


def _gen_twice_ref():
    rng = np.random.default_rng(7)
    out = []
    for _ in range(2):
        state = rng.bit_generator.state
        g = fd_checked(lambda p: weather_yield(p, _restored(state)), (np.array([14.0, 6.0]),))[0]
        weather_yield(np.array([14.0, 6.0]), rng)
        out.append(g)
    return tuple(out)


def _restored(state):
    r = np.random.default_rng()
    r.bit_generator.state = state
    return r


add(pair("r17_weather_generator_advances_between_calls", _gen_twice, _gen_twice_ref, tol=1e-6))


def weather_yield2(params, rng, days=60):
    # the scale taken out of the draw: rain = scale * Gamma(0.5, 1)
    temp = params[0] + 4.0 * rng.standard_normal(days)
    rain = params[1] * rng.gamma(0.5, 1.0, days)
    gdd = np.sum(np.maximum(temp - 10.0, 0.0))
    stress = np.mean(np.exp(-rain / 3.0))
    return gdd * (1.0 - stress)


add(pair("r17_weather2_generator_argument", lambda: revsrc.grad(weather_yield2)(np.array([14.0, 6.0]), np.random.default_rng(42)),
         lambda: fd_checked(lambda p: weather_yield2(p, np.random.default_rng(42)), (np.array([14.0, 6.0]),))[0], tol=1e-6))


def _gen2_twice():
    rng = np.random.default_rng(7)
    vg = revsrc.value_and_grad(weather_yield2)
    return (vg(np.array([14.0, 6.0]), rng), vg(np.array([14.0, 6.0]), rng))


def _gen2_twice_ref():
    rng = np.random.default_rng(7)
    out = []
    for _ in range(2):
        state = rng.bit_generator.state
        g = fd_checked(lambda p: weather_yield2(p, _restored(state)), (np.array([14.0, 6.0]),))[0]
        v = weather_yield2(np.array([14.0, 6.0]), rng)
        out.append((v, g))
    return tuple(out)


add(pair("r17_weather2_generator_advances_between_calls", _gen2_twice, _gen2_twice_ref, tol=1e-6))
add(H("r17_nash_cascade_hessian", nash_cascade, (3.5, RAIN), ref="fd", tol=1e-5))


def thomas_solve(a, b, c, d):
    # tridiagonal solve: forward sweep, then back substitution with reversed(range(...))
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in reversed(range(n - 1)):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def implicit_groundwater(K, h0, recharge, steps=10, dt=0.5, dx=1.0):
    # 1D groundwater head, implicit diffusion with fixed-head ends, Thomas per step
    h = h0.copy()
    n = len(h)
    r = K * dt / (dx * dx)
    for _ in range(steps):
        a = np.full(n, -r)
        b = np.full(n, 1.0 + 2.0 * r)
        c = np.full(n, -r)
        d = h + dt * recharge
        d[0] += r * 10.0
        d[-1] += r * 8.0
        h = thomas_solve(a, b, c, d)
    return np.sum((h - 9.0) ** 2)


H0 = np.linspace(10.0, 8.0, 8)
RCH = 0.05 * np.sin(np.arange(8.0))
add(VG("r17_groundwater_thomas_reversed_vg", implicit_groundwater, (0.8, H0, RCH), argnums=(0, 2), ref="ag" if False else "fd", tol=1e-7))
add(G("r17_groundwater_thomas_wrt_initial_head", implicit_groundwater, (0.8, H0, RCH), argnums=1, ref="fd", tol=1e-7))


def sir_aux_fixed(params, N_=1000.0):
    beta, gamma = params["beta"], params["gamma"]
    S, I, R = N_ - 5.0, 5.0, 0.0
    peak = I
    for k in range(200):
        inf = beta * S * I / N_ * 0.5
        rec = gamma * I * 0.5
        S, I, R = S - inf, I + inf - rec, R + rec
        peak = np.maximum(peak, I)
    return R / N_, {"peak": peak, "S_end": S}


def _sir_fixed_ref():
    v, aux = sir_aux_fixed({"beta": 0.3, "gamma": 0.1})
    g = fd_checked(lambda b, c: sir_aux_fixed({"beta": b, "gamma": c})[0], (0.3, 0.1), argnums=(0, 1))
    return ((v, aux), {"beta": g[0], "gamma": g[1]})


add(pair("r17_sir_has_aux_backend_jax_fixed_loop",
         lambda: revsrc.value_and_grad(sir_aux_fixed, has_aux=True, backend="jax")({"beta": 0.3, "gamma": 0.1}),
         _sir_fixed_ref, tol=1e-6))

# ---- the same programs under backend="jax"
add(pair("r17_groundwater_thomas_backend_jax", lambda: revsrc.grad(implicit_groundwater, backend="jax")(0.8, H0, RCH),
         lambda: fd_checked(implicit_groundwater, (0.8, H0, RCH))[0], tol=1e-7))
add(pair("r17_leslie_while_backend_jax", lambda: revsrc.grad(leslie_growth, backend="jax")(FEC, SURV),
         lambda: fd_checked(leslie_eig, (FEC, SURV))[0], tol=1e-6))
add(pair("r17_harvest_early_return_backend_jax", lambda: revsrc.grad(harvest_logistic, backend="jax")(1.9),
         lambda: fd_checked(harvest_logistic, (1.9,))[0], tol=1e-7))
add(pair("r17_reservoir_np_clip_backend_jax", lambda: revsrc.grad(reservoir_np_clip, backend="jax")(np.array([2.0, 0.25]), INFLOW),
         lambda: fd_checked(reservoir_np_clip, (np.array([2.0, 0.25]), INFLOW))[0], tol=1e-6))
add(pair("r17_hbv_min_backend_jax", lambda: revsrc.grad(nse_loss, backend="jax")(np.array([200.0, 2.0, 0.7, 0.25]), PP, PET, QOBS),
         lambda: fd_checked(nse_loss, (np.array([200.0, 2.0, 0.7, 0.25]), PP, PET, QOBS))[0], tol=1e-6))
add(pair("r17_green_ampt_try_backend_jax", lambda: revsrc.grad(green_ampt, argnums=(0, 1), backend="jax")(1.2, 8.0, 3.0),
         lambda: tuple(fd_checked(green_ampt, (1.2, 8.0, 3.0), argnums=(0, 1))), tol=1e-7))
add(pair("r17_sir_while_backend_jax_max_steps", lambda: revsrc.grad(sir_until_extinct, argnums=(0, 1), backend="jax", max_steps=5000)(0.35, 0.1),
         lambda: tuple(fd_checked(sir_until_extinct, (0.35, 0.1), argnums=(0, 1))), tol=1e-6))
add(H("r17_lotka_volterra_adaptive_hessian", lv_adaptive, (PLV,), ref="ag", tol=1e-7))
add(H("r17_reservoir_hedging_hessian", reservoir_shortage, (POL, INFLOW, DEMAND), ref="fd", tol=1e-4))
add(H("r17_hbv_nse_hessian", nse_loss, (np.array([200.0, 2.0, 0.7, 0.25]), PP, PET, QOBS), ref="fd", tol=1e-4))


import warnings  # noqa: E402


def npz_model_warned(mu, n0=np.array([0.5, 0.2, 0.1]), steps=100, dt=0.1):
    # nutrient-phytoplankton-zooplankton box with a guard that warns on negative pools
    N, P, Z = n0
    for _ in range(steps):
        up = mu * N / (0.3 + N) * P
        graze = 0.4 * P * Z
        N, P, Z = N + dt * (-up + 0.1 * Z), P + dt * (up - graze), Z + dt * (0.3 * graze - 0.1 * Z)
        if N < 0.0:
            warnings.warn("negative nutrient")
    return P + Z


def npz_model(mu, n0=np.array([0.5, 0.2, 0.1]), steps=100, dt=0.1):
    N, P, Z = n0
    for _ in range(steps):
        up = mu * N / (0.3 + N) * P
        graze = 0.4 * P * Z
        N, P, Z = N + dt * (-up + 0.1 * Z), P + dt * (up - graze), Z + dt * (0.3 * graze - 0.1 * Z)
    return P + Z


add(G("r17_npz_box_unpack_array", npz_model, (1.2,), ref="ag", tol=1e-10))
add(G("r17_npz_box_warnings_warn_guard", npz_model_warned, (1.2,), ref="fd", tol=1e-7))
