"""Round 10, control, pharmacokinetics, hydrology, power and economics: a PID loop on a
first-order plant, discrete LQR by Riccati iteration, a Kalman-free observer, one- and
two-compartment PK with dosing events, a linear-reservoir rainfall-runoff model, DC
power flow by solve, CES utility and Cobb-Douglas production, a consumption-savings
backward induction, plus jacrev/jvp with has_aux and dict outputs."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []
rng = np.random.default_rng(1012)


def pid_cost(gains, setpoint=1.0, dt=0.05, steps=120):
    kp, ki, kd = gains
    y = 0.0
    integ = 0.0
    prev_err = setpoint
    cost = 0.0
    for _ in range(steps):
        err = setpoint - y
        integ += err * dt
        deriv = (err - prev_err) / dt
        u = kp * err + ki * integ + kd * deriv
        u = min(max(u, -5.0), 5.0)
        y += dt * (-y + u)
        prev_err = err
        cost += err * err * dt
    return cost


CASES.append(G("r10_pid_saturated_gains", pid_cost, (np.array([2.0, 1.0, 0.05]),), ref="ag"))


def riccati_lqr(q, r, A, B, iters=60):
    P = np.diag(q)
    R = np.array([[r]])
    for _ in range(iters):
        S = R + B.T @ P @ B
        K = np.linalg.solve(S, B.T @ P @ A)
        P = np.diag(q) + A.T @ P @ (A - B @ K)
    return np.trace(P)


AC = np.array([[1.0, 0.1], [0.0, 1.0]])
BC = np.array([[0.005], [0.1]])
CASES.append(G("r10_lqr_riccati_iteration", riccati_lqr, (np.array([1.0, 0.5]), 0.2, AC, BC), argnums=(0, 1), ref="jax"))


def observer(L, ys, A=AC, C=np.array([1.0, 0.0])):
    xh = np.zeros(2)
    err = 0.0
    for y in ys:
        innov = y - C @ xh
        err += innov ** 2
        xh = A @ xh + L * innov
    return err


YS = np.cumsum(0.1 * rng.normal(size=25))
CASES.append(G("r10_luenberger_observer_gain", observer, (np.array([0.5, 0.2]), YS), ref="jax"))


def pk_one_compartment(theta, dose_times, dose, t_obs):
    ka, ke, V = theta
    conc = np.zeros_like(t_obs)
    for td in dose_times:
        dt = t_obs - td
        on = dt > 0
        c = dose * ka / (V * (ka - ke)) * (np.exp(-ke * np.where(on, dt, 0.0)) - np.exp(-ka * np.where(on, dt, 0.0)))
        conc = conc + np.where(on, c, 0.0)
    return np.sum(conc ** 2)


TOBS = np.linspace(0.5, 24, 10)
CASES.append(G("r10_pk_oral_multiple_doses", pk_one_compartment, (np.array([1.2, 0.15, 30.0]), [0.0, 8.0, 16.0], 100.0, TOBS),
               ref="jax"))


def pk_two_compartment_euler(k, dose=100.0, dt=0.05, steps=200):
    k10, k12, k21 = k
    c1, c2 = dose, 0.0
    auc = 0.0
    for _ in range(steps):
        d1 = -(k10 + k12) * c1 + k21 * c2
        d2 = k12 * c1 - k21 * c2
        c1, c2 = c1 + dt * d1, c2 + dt * d2
        auc += c1 * dt
    return auc


CASES.append(G("r10_pk_two_compartment_auc", pk_two_compartment_euler, (np.array([0.3, 0.5, 0.2]),), ref="jax"))


def linear_reservoir(k, rain, S0=10.0):
    S = S0
    Q = []
    for p in rain:
        q = S / k
        S = S + p - q
        Q.append(q)
    Q = np.array(Q)
    return np.sum((Q - 2.0) ** 2)


RAIN = np.maximum(rng.normal(1.0, 2.0, size=30), 0.0)
CASES.append(G("r10_linear_reservoir_runoff", linear_reservoir, (4.0, RAIN), argnums=(0, 1), ref="jax"))


def dc_power_flow(b, P):
    n = len(P) + 1
    lines = [(0, 1), (1, 2), (0, 2), (2, 3)]
    Bm = np.zeros((n, n))
    for (i, j), bij in zip(lines, b):
        Bm[i, i] += bij
        Bm[j, j] += bij
        Bm[i, j] -= bij
        Bm[j, i] -= bij
    theta = np.linalg.solve(Bm[1:, 1:], P)
    th = np.concatenate([np.zeros(1), theta])
    flows = np.array([bij * (th[i] - th[j]) for (i, j), bij in zip(lines, b)])
    return np.sum(flows ** 2)


CASES.append(G("r10_dc_power_flow_susceptances", dc_power_flow, (np.array([10.0, 8.0, 5.0, 12.0]), np.array([-0.5, 0.3, -0.4])),
               argnums=(0, 1)))


def ces_utility(x, alpha, rho):
    return np.sum(alpha * x ** rho) ** (1.0 / rho)


CASES.append(G("r10_ces_utility_all", ces_utility, (np.array([1.0, 2.0, 0.5]), np.array([0.2, 0.5, 0.3]), 0.5),
               argnums=(0, 1, 2), ref="jax"))


def cobb_douglas_profit(K, L, A=1.2, a=0.3, b=0.6, r=0.1, w=0.8):
    return A * K ** a * L ** b - r * K - w * L


CASES.append(H("r10_cobb_douglas_hessian", cobb_douglas_profit, (5.0, 3.0), argnums=(0, 1),
               ref=lambda: jax().hessian(jaxify(cobb_douglas_profit), argnums=(0, 1))(5.0, 3.0)))


def backward_induction(beta, R=1.03, T=6, w0=10.0):
    # log utility with c_t = w_t / (1 + beta + ... + beta^(T-t-1)): value of the plan
    v = 0.0
    w = w0
    for t in range(T):
        denom = sum(beta ** s for s in range(T - t))
        c = w / denom
        v += beta ** t * math.log(c)
        w = (w - c) * R
    return v


CASES.append(G("r10_consumption_savings_plan", backward_induction, (0.95,), ref="jax"))


def bond_price_ytm(y, coupon=5.0, face=100.0, n=10):
    return sum(coupon / (1 + y) ** t for t in range(1, n + 1)) + face / (1 + y) ** n


def ytm_newton(price):
    y = 0.05
    for _ in range(30):
        f = bond_price_ytm(y) - price
        d = sum(-t * 5.0 / (1 + y) ** (t + 1) for t in range(1, 11)) - 10 * 100.0 / (1 + y) ** 11
        y = y - f / d
    return y


# implicit: dy/dprice = 1 / (dP/dy)
CASES.append(G("r10_yield_to_maturity_newton", ytm_newton, (95.0,),
               ref=lambda: 1.0 / float(revsrc.grad(bond_price_ytm)(ytm_newton(95.0)))))


def plant_outputs(theta):
    a, b = theta
    y = 0.0
    out = {}
    traj = []
    for k in range(8):
        y = a * y + b
        traj.append(y)
    out["final"] = y
    out["traj"] = np.array(traj)
    return out


def jacrev_dict_output():
    J = revsrc.jacrev(plant_outputs)(np.array([0.8, 0.5]))
    return J["final"], J["traj"]


def jacrev_dict_ref():
    J = jax().jacrev(jaxify(plant_outputs))(np.array([0.8, 0.5]))
    return J["final"], J["traj"]


CASES.append(pair("r10_jacrev_dict_output", jacrev_dict_output, jacrev_dict_ref))


def with_aux(theta):
    y = plant_outputs(theta)
    return y["traj"], y["final"]


def jvp_aux():
    out, tan, aux = revsrc.jvp(with_aux, (np.array([0.8, 0.5]),), (np.array([1.0, 0.0]),), has_aux=True)
    return out, tan, aux


def jvp_aux_ref():
    out, tan, aux = jax().jvp(jaxify(with_aux), (np.array([0.8, 0.5]),), (np.array([1.0, 0.0]),), has_aux=True)
    return out, tan, aux


CASES.append(pair("r10_jvp_has_aux", jvp_aux, jvp_aux_ref))


def jacfwd_aux():
    J, aux = revsrc.jacfwd(with_aux, has_aux=True)(np.array([0.8, 0.5]))
    return J, aux


CASES.append(pair("r10_jacfwd_has_aux", jacfwd_aux, lambda: jax().jacfwd(jaxify(with_aux), has_aux=True)(np.array([0.8, 0.5]))))


def vjp_aux():
    out, fn, aux = revsrc.vjp(with_aux, np.array([0.8, 0.5]), has_aux=True)
    return out, fn(np.ones(8)), aux


def vjp_aux_ref():
    out, fn, aux = jax().vjp(jaxify(with_aux), np.array([0.8, 0.5]), has_aux=True)
    return out, fn(np.ones(8)), aux


CASES.append(pair("r10_vjp_has_aux", vjp_aux, vjp_aux_ref))


def vmap_out_axes():
    f = revsrc.vmap(lambda a, b: a * b + 1.0, in_axes=(0, None), out_axes=0)
    return f(np.array([1.0, 2.0, 3.0]), 0.5)


CASES.append(pair("r10_vmap_in_axes_none_scalar", vmap_out_axes, lambda: np.array([1.5, 2.0, 2.5]), tol=0.0))


def vmap_pk():
    def conc(t, ka, ke):
        return ka / (ka - ke) * (math.exp(-ke * t) - math.exp(-ka * t))
    return revsrc.vmap(conc, in_axes=(0, None, None))(TOBS, 1.2, 0.15)


CASES.append(pair("r10_vmap_pk_curve", vmap_pk,
                  lambda: np.array([1.2 / 1.05 * (math.exp(-0.15 * t) - math.exp(-1.2 * t)) for t in TOBS]), tol=0.0))


def transfer(s, zeta=0.3, wn=2.0):
    return 1.0 / (s * s + 2 * zeta * wn * s + wn * wn)


S0 = 0.5 + 1.7j
CASES.append(pair("r10_holomorphic_transfer_function",
                  lambda: revsrc.grad(transfer, holomorphic=True)(S0),
                  lambda: jax().grad(jaxify(transfer), holomorphic=True)(S0), tol=1e-12))


def impedance_mag(params, w=3.0):
    R, L, C = params
    Z = R + 1j * w * L + 1.0 / (1j * w * C)
    return abs(Z) ** 2 + np.angle(Z)


CASES.append(G("r10_rlc_impedance_complex_intermediate", impedance_mag, (np.array([10.0, 0.5, 0.01]),), ref="jax"))


def bode_gain_db(zeta, wn, w=np.logspace(-1, 1, 9)):
    s = 1j * w
    H = wn ** 2 / (s ** 2 + 2 * zeta * wn * s + wn ** 2)
    return np.sum(20 * np.log10(np.abs(H)))


CASES.append(G("r10_bode_gain_sum", bode_gain_db, (0.4, 1.5), argnums=(0, 1), ref="jax"))
