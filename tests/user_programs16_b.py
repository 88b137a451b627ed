"""Round 16, part b: pharmacokinetics and epidemiology -- compartment models by Euler and
RK4, dosing schedules with branches on time, SEIR with np.clip, likelihoods of noisy
observations."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def one_cpt_oral(ka, ke, V=10.0, dose=100.0, dt=0.05, T=12.0):
    gut, cen = dose, 0.0
    t = 0.0
    auc = 0.0
    while t < T:
        dg = -ka * gut
        dc = ka * gut - ke * cen
        gut += dt * dg
        cen += dt * dc
        auc += dt * cen / V
        t += dt
    return auc


add(VG("r16_pk_oral_while_time_vg", one_cpt_oral, (1.2, 0.3), argnums=(0, 1), ref="ag", tol=1e-10))
add(H("r16_pk_oral_hessian_ka", lambda ka: one_cpt_oral(ka, 0.3), (1.2,), ref="ag", tol=1e-8))


def three_cpt_rk4(k, x0, dt=0.1, n=60):
    k12, k21, k13, k31, k10 = k[0], k[1], k[2], k[3], k[4]

    def rhs(x):
        return np.array([-(k12 + k13 + k10) * x[0] + k21 * x[1] + k31 * x[2],
                         k12 * x[0] - k21 * x[1],
                         k13 * x[0] - k31 * x[2]])
    x = x0
    for _ in range(n):
        a = rhs(x)
        b = rhs(x + 0.5 * dt * a)
        c = rhs(x + 0.5 * dt * b)
        d = rhs(x + dt * c)
        x = x + dt / 6.0 * (a + 2 * b + 2 * c + d)
    return x


K5 = np.array([0.3, 0.2, 0.1, 0.05, 0.15])
X0 = np.array([100.0, 0.0, 0.0])
add(pair("r16_three_cpt_rk4_jacrev_k", lambda: revsrc.jacrev(three_cpt_rk4)(K5, X0),
         lambda: ag()[0].jacobian(agify(three_cpt_rk4))(K5, X0), tol=1e-9))
add(pair("r16_three_cpt_rk4_jacfwd_x0_linear", lambda: revsrc.jacfwd(three_cpt_rk4, argnums=1)(K5, X0),
         lambda: ag()[0].jacobian(agify(three_cpt_rk4), 1)(K5, X0), tol=1e-10))
add(pair("r16_three_cpt_vjp_cotangent", lambda: revsrc.vjp(three_cpt_rk4, K5, X0)[1](np.array([1.0, -0.5, 2.0])),
         lambda: tuple(ag()[0].jacobian(agify(three_cpt_rk4), i)(K5, X0).T @ np.array([1.0, -0.5, 2.0]) for i in (0, 1)),
         tol=1e-9))


def dosing_schedule(ke, doses=(50.0, 30.0, 30.0), times=(0.0, 6.0, 12.0), dt=0.1, T=20.0):
    c = 0.0
    t = 0.0
    j = 0
    trough = 1e9
    while t < T - 1e-9:
        if j < len(doses) and t >= times[j] - 1e-9:
            c += doses[j]
            j += 1
        c = c * math.exp(-ke * dt)
        if t > 5.0:
            trough = min(trough, c)
        t += dt
    return trough + 0.01 * c


add(VG("r16_dosing_schedule_branches_vg", dosing_schedule, (0.25,), ref="ag", tol=1e-10))
add(G("r16_dosing_schedule_wrt_dose_tuple", dosing_schedule, (0.25, (50.0, 30.0, 30.0)), argnums=1, ref="fd", tol=1e-7))


def seir(beta, sigma=0.2, gamma=0.1, N=1000.0, days=80, dt=0.5):
    S, E, I, R = N - 1.0, 0.0, 1.0, 0.0
    peak = 0.0
    for _ in range(int(days / dt)):
        inf = beta * S * I / N
        dS = -inf
        dE = inf - sigma * E
        dI = sigma * E - gamma * I
        S, E, I = S + dt * dS, E + dt * dE, I + dt * dI
        R = N - S - E - I
        peak = max(peak, I)
    return peak


add(VG("r16_seir_peak_vg", seir, (0.45,), ref="ag", tol=1e-9))
add(G("r16_seir_peak_all_rates", seir, (0.45, 0.2, 0.1), argnums=(0, 1, 2), ref="ag", tol=1e-9))


def seir_vec_clip(theta, days=60, dt=0.5):
    beta, gamma = theta[0], theta[1]
    x = np.array([0.99, 0.0, 0.01, 0.0])
    total = 0.0
    for _ in range(int(days / dt)):
        inf = beta * x[0] * x[2]
        d = np.array([-inf, inf - 0.25 * x[1], 0.25 * x[1] - gamma * x[2], gamma * x[2]])
        x = np.clip(x + dt * d, 0.0, 1.0)
        total += x[2]
    return total * dt


TH = np.array([0.5, 0.12])
add(VG("r16_seir_np_clip_vg", seir_vec_clip, (TH,), ref="ag", tol=1e-9))
add(H("r16_seir_np_clip_hessian", seir_vec_clip, (TH,), ref="ag", tol=1e-7))

OBS_T = np.array([1.0, 2.0, 4.0, 8.0, 12.0])
OBS_C = np.array([6.1, 7.9, 6.8, 3.9, 2.0])


def pk_nll(logp):
    ka, ke, V, sig = np.exp(logp)
    pred = 100.0 * ka / (V * (ka - ke)) * (np.exp(-ke * OBS_T) - np.exp(-ka * OBS_T))
    r = (OBS_C - pred) / sig
    return 0.5 * np.sum(r ** 2) + OBS_T.shape[0] * math.log(sig)


LP = np.log(np.array([1.0, 0.2, 10.0, 0.5]))
add(VG("r16_pk_nll_logparams_unpack_vg", pk_nll, (LP,), ref="ag", tol=1e-10))
add(H("r16_pk_nll_laplace_hessian", pk_nll, (LP,), ref="ag", tol=1e-8))
add(pair("r16_pk_nll_hvp", lambda: revsrc.hvp(pk_nll, (LP,), (np.array([1.0, 0.0, -1.0, 0.5]),)),
         lambda: ag()[0].hessian(agify(pk_nll))(LP) @ np.array([1.0, 0.0, -1.0, 0.5]), tol=1e-8))


def poisson_loglik(r0, counts=(3, 5, 9, 14, 22, 31), gen=4.0):
    growth = math.log(r0) / gen
    ll = 0.0
    for day, k in enumerate(counts):
        lam = 3.0 * math.exp(growth * day)
        ll += k * math.log(lam) - lam - math.lgamma(k + 1)
    return ll


add(VG("r16_poisson_loglik_enumerate_lgamma_vg", poisson_loglik, (2.5,), ref="fd", tol=1e-7))


def sir_vmapped(beta):
    S, I = 0.99, 0.01
    for _ in range(100):
        S, I = S - 0.1 * beta * S * I, I + 0.1 * (beta * S * I - 0.1 * I)
    return I


BETAS = np.array([0.2, 0.3, 0.5, 0.8])
add(pair("r16_sir_vmap_exact", lambda: revsrc.vmap(sir_vmapped)(BETAS),
         lambda: np.array([sir_vmapped(float(b)) for b in BETAS]), tol=0.0))
add(pair("r16_sir_jit_grad", lambda: revsrc.jit(revsrc.grad(sir_vmapped))(0.3),
         lambda: ag()[0].grad(agify(sir_vmapped))(0.3), tol=1e-10))


def two_cpt_infusion(p, rate=5.0, t_inf=2.0, dt=0.05, n=200):
    cl, q, v1, v2 = p
    a1, a2 = 0.0, 0.0
    out = []
    for i in range(n):
        t = i * dt
        inp = rate if t < t_inf else 0.0
        da1 = inp - cl / v1 * a1 - q / v1 * a1 + q / v2 * a2
        da2 = q / v1 * a1 - q / v2 * a2
        a1 += dt * da1
        a2 += dt * da2
        if i % 20 == 0:
            out.append(a1 / v1)
    return np.array(out)


P2 = (1.0, 0.5, 5.0, 8.0)
add(pair("r16_two_cpt_infusion_jacrev_tuple", lambda: revsrc.jacrev(two_cpt_infusion)(P2),
         lambda: tuple(ag()[0].jacobian(lambda v: agify(two_cpt_infusion)(tuple(v[i] for i in range(4))))(np.array(P2)).T),
         tol=1e-9))
add(pair("r16_seir_peak_backend_jax", lambda: revsrc.grad(seir, backend="jax")(0.45),
         lambda: ag()[0].grad(agify(seir))(0.45), tol=1e-9))
