"""Round 19, part c: energy and power engineering -- AC power flow solved by Newton-Raphson
inside the loss (polar form, Jacobian by hand), DC power flow by np.linalg.solve, battery
equivalent circuits (Thevenin RC pairs, Coulomb counting, OCV polynomial), economic dispatch
with smooth penalties and a lambda iteration, PV single-diode model solved by Newton,
transmission line losses, and a heat-pump COP model."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

# ---------------------------------------------------------------- 3-bus AC power flow
LINES = ((0, 1, 0.02, 0.06), (0, 2, 0.08, 0.24), (1, 2, 0.06, 0.18))


def ybus(lines=LINES, n=3):
    Y = np.zeros((n, n), dtype=complex)
    for i, j, r, x in lines:
        y = 1.0 / complex(r, x)
        Y[i, i] += y
        Y[j, j] += y
        Y[i, j] -= y
        Y[j, i] -= y
    return Y


YB = ybus()
G_, B_ = YB.real.copy(), YB.imag.copy()


def injections(V, th):
    n = len(V)
    P = np.zeros(n)
    Q = np.zeros(n)
    for i in range(n):
        for k in range(n):
            a = th[i] - th[k]
            P[i] += V[i] * V[k] * (G_[i, k] * np.cos(a) + B_[i, k] * np.sin(a))
            Q[i] += V[i] * V[k] * (G_[i, k] * np.sin(a) - B_[i, k] * np.cos(a))
    return P, Q


def mismatch(x, Pspec, Qspec):
    # bus 0 slack (V=1, th=0); bus 1 PV (V=1.02); bus 2 PQ
    th = np.array([0.0, x[0], x[1]])
    V = np.array([1.0, 1.02, x[2]])
    P, Q = injections(V, th)
    return np.array([P[1] - Pspec[1], P[2] - Pspec[2], Q[2] - Qspec[2]])


def fd_jac_local(f, x, h=1e-7):
    J = np.zeros((len(x), len(x)))
    for k in range(len(x)):
        e = np.zeros(len(x))
        e[k] = h
        J[:, k] = (f(x + e) - f(x - e)) / (2 * h)
    return J


def solve_pf(loads, tol=1e-12, maxit=30):
    Pspec = np.array([0.0, 0.5, -loads[0]])
    Qspec = np.array([0.0, 0.0, -loads[1]])
    x = np.array([0.0, 0.0, 1.0])
    for it in range(maxit):
        F = mismatch(x, Pspec, Qspec)
        if np.max(np.abs(F)) < tol:
            break
        J = fd_jac_local(lambda z: mismatch(z, Pspec, Qspec), x)
        x = x - np.linalg.solve(J, F)
    return x


def slack_power(loads):
    x = solve_pf(loads)
    th = np.array([0.0, x[0], x[1]])
    V = np.array([1.0, 1.02, x[2]])
    P, Q = injections(V, th)
    return P[0] + 0.1 * (1.0 - V[2]) ** 2


LOADS = np.array([0.9, 0.4])
add(G("r19c_ac_powerflow_newton_fd_jacobian", slack_power, (LOADS,), ref="fd", tol=1e-5))


def solve_pf_analytic(loads, iters=8):
    # fixed number of Newton steps with the Jacobian from revsrc.jacfwd of the mismatch
    Pspec = np.array([0.0, 0.5, -loads[0]])
    Qspec = np.array([0.0, 0.0, -loads[1]])
    x = np.array([0.0, 0.0, 1.0])
    for _ in range(iters):
        J = revsrc.jacfwd(mismatch)(x, Pspec, Qspec)
        x = x - np.linalg.solve(J, mismatch(x, Pspec, Qspec))
    return x


def pq_bus_voltage(loads):
    return solve_pf_analytic(loads)[2]


add(G("r19c_ac_powerflow_jacfwd_inside_newton", pq_bus_voltage, (LOADS,), ref="fd", tol=1e-5))


def implicit_voltage_sens(loads):
    # the right answer by the implicit function theorem: dx/dload = -J^-1 dF/dload
    x = solve_pf(loads)
    Pspec = np.array([0.0, 0.5, -loads[0]])
    Qspec = np.array([0.0, 0.0, -loads[1]])
    J = fd_jac_local(lambda z: mismatch(z, Pspec, Qspec), x)
    dF = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    return -np.linalg.solve(J, dF)[2]


def fd_jac_args(f, x, a, b, h=1e-7):
    J = np.zeros((len(x), len(x)))
    for k in range(len(x)):
        e = np.zeros(len(x))
        e[k] = h
        J[:, k] = (f(x + e, a, b) - f(x - e, a, b)) / (2 * h)
    return J


def pq_voltage_fd_newton(loads, tol=1e-12, maxit=30):
    Pspec = np.array([0.0, 0.5, -loads[0]])
    Qspec = np.array([0.0, 0.0, -loads[1]])
    x = np.array([0.0, 0.0, 1.0])
    for it in range(maxit):
        F = mismatch(x, Pspec, Qspec)
        if np.max(np.abs(F)) < tol:
            break
        x = x - np.linalg.solve(fd_jac_args(mismatch, x, Pspec, Qspec), F)
    return x[2]


add(G("r19c_ac_powerflow_fd_jac_helper_args", pq_voltage_fd_newton, (LOADS,), ref="fd", tol=1e-5))
add(pair("r19c_ac_powerflow_vs_implicit_theorem", lambda: revsrc.grad(pq_voltage_fd_newton)(LOADS),
         lambda: implicit_voltage_sens(LOADS), tol=1e-6))


# ---------------------------------------------------------------- DC power flow and line limits
B_LINES = np.array([[0, 1, 10.0], [0, 2, 5.0], [1, 2, 8.0], [2, 3, 6.0], [1, 3, 4.0]])
LIMITS = np.array([0.8, 0.6, 0.5, 0.7, 0.4])


def dc_flows(p_inj, susc=None):
    n = 4
    b = B_LINES[:, 2] if susc is None else susc
    fr = B_LINES[:, 0].astype(int)
    to = B_LINES[:, 1].astype(int)
    Bm = np.zeros((n, n))
    for l in range(len(b)):
        i, j = fr[l], to[l]
        Bm[i, i] += b[l]
        Bm[j, j] += b[l]
        Bm[i, j] -= b[l]
        Bm[j, i] -= b[l]
    theta = np.zeros(n)
    theta[1:] = np.linalg.solve(Bm[1:, 1:], p_inj[1:])
    return b * (theta[fr] - theta[to])


def overload_penalty(p_inj, susc=None):
    f = dc_flows(p_inj, susc)
    over = np.maximum(np.abs(f) - LIMITS, 0.0)
    return np.sum(over ** 2) + 1e-3 * np.sum(f ** 2)


PINJ = np.array([0.0, 0.6, -0.9, -0.7])
add(G("r19c_dc_flow_overload_penalty", overload_penalty, (PINJ,), ref="fd", tol=1e-7))
add(G("r19c_dc_flow_wrt_susceptances", overload_penalty, (PINJ, B_LINES[:, 2].copy()), argnums=1, ref="fd", tol=1e-7))
add(pair("r19c_dc_flow_jacrev_ptdf", lambda: revsrc.jacrev(dc_flows)(PINJ), lambda: fdj(dc_flows, PINJ), tol=1e-8))


# ---------------------------------------------------------------- battery equivalent circuit
OCV_COEF = np.array([3.0, 1.2, -1.1, 0.45])    # OCV(soc) = sum c_k soc^k
I_PROFILE = np.concatenate([np.full(20, 2.0), np.full(10, -1.0), np.full(15, 3.0)])
V_MEAS = 3.9 - 0.004 * np.arange(45) - 0.03 * (I_PROFILE > 0)


class Cell:
    capacity_As = 2.5 * 3600.0

    def __init__(self, r0, rc_pairs):
        self.r0 = r0
        self.rc_pairs = rc_pairs

    def ocv(self, soc):
        return np.polyval(OCV_COEF[::-1], soc)


class AgedCell(Cell):
    def __init__(self, r0, rc_pairs, fade):
        super().__init__(r0, rc_pairs)
        self.fade = fade

    @property
    def cap(self):
        return self.capacity_As * (1.0 - self.fade)


def simulate_voltage(params, dt=10.0):
    r0, r1, c1, r2, c2 = params
    cell = AgedCell(r0, ((r1, c1), (r2, c2)), 0.1)
    soc = 0.9
    v_rc = [0.0, 0.0]
    out = []
    for I in I_PROFILE:
        soc = soc - I * dt / cell.cap
        for k, (R, C) in enumerate(cell.rc_pairs):
            a = math.exp(-dt / (R * C))
            v_rc[k] = a * v_rc[k] + R * (1 - a) * I
        out.append(cell.ocv(soc) - I * cell.r0 - sum(v_rc))
    return np.array(out)


def battery_fit(params):
    return np.mean((simulate_voltage(params) - V_MEAS) ** 2)


PB = np.array([0.02, 0.015, 2000.0, 0.03, 20000.0])
add(VG("r19c_battery_two_rc_subclass_vg", battery_fit, (PB,), ref="fd", tol=1e-6, h=1e-7, check=1e-3))
add(pair("r19c_battery_jacfwd_voltage_wrt_r0", lambda: revsrc.jacfwd(simulate_voltage)(PB)[:, 0],
         lambda: fdj(simulate_voltage, PB)[:, 0], tol=1e-6))


def coulomb_soc_end(I, soc0=0.8, cap=9000.0, dt=1.0):
    # SOC clipped to [0, 1]; integrates a current array with np.cumsum
    soc = soc0 - np.cumsum(I) * dt / cap
    soc = np.clip(soc, 0.0, 1.0)
    return soc[-1] + 0.1 * np.mean(soc)


add(G("r19c_coulomb_cumsum_clip", coulomb_soc_end, (np.linspace(-1.0, 3.0, 50),), ref="ag", tol=1e-10))


# ---------------------------------------------------------------- economic dispatch
COST_A = np.array([0.004, 0.006, 0.009])
COST_B = np.array([5.3, 5.5, 5.8])
PMIN = np.array([0.2, 0.15, 0.1]) * 100
PMAX = np.array([0.8, 0.6, 0.5]) * 100


def dispatch_cost(P, demand=150.0, mu=50.0):
    cost = np.sum(COST_A * P ** 2 + COST_B * P)
    # smooth penalties: softplus of bound violations and a quadratic balance penalty
    lo = np.logaddexp(0.0, (PMIN - P) * 2.0) / 2.0
    hi = np.logaddexp(0.0, (P - PMAX) * 2.0) / 2.0
    return cost + mu * (np.sum(lo ** 2 + hi ** 2) + (np.sum(P) - demand) ** 2)


P0 = np.array([60.0, 50.0, 40.0])
add(VG("r19c_dispatch_softplus_penalty_vg", dispatch_cost, (P0,), ref="jax", tol=1e-9))
add(H("r19c_dispatch_softplus_penalty_hessian", dispatch_cost, (P0,), ref="jax", tol=1e-8))


def lambda_iteration(demand, tol=1e-10):
    # bisection on the system marginal price lambda: P_i = clip((lam - b)/(2a))
    lo, hi = 0.0, 20.0
    while hi - lo > tol:
        lam = 0.5 * (lo + hi)
        P = np.clip((lam - COST_B) / (2 * COST_A), PMIN, PMAX)
        if np.sum(P) > demand:
            hi = lam
        else:
            lo = lam
    lam = 0.5 * (lo + hi)
    P = np.clip((lam - COST_B) / (2 * COST_A), PMIN, PMAX)
    return np.sum(COST_A * P ** 2 + COST_B * P)


# the bisection's lambda is a step function of demand in exact arithmetic; its derivative
# through the loop is 0 (the gradient of cost through the final P with lam held): revsrc
# must give the derivative of the last lines with lam treated as computed from constants
add(G("r19c_lambda_bisection_demand_grad_zero", lambda_iteration, (150.0,), ref=lambda: 0.0, tol=1e-12))


# ---------------------------------------------------------------- PV single diode model
Q_E, K_B = 1.602e-19, 1.381e-23


def pv_current(V, params, T=298.15, tol=1e-13):
    Iph, I0, n, Rs, Rsh = params
    Vt = n * K_B * T / Q_E
    I = Iph
    for _ in range(50):
        e = np.exp((V + I * Rs) / Vt)
        f = Iph - I0 * (e - 1) - (V + I * Rs) / Rsh - I
        df = -I0 * e * Rs / Vt - Rs / Rsh - 1
        step = f / df
        I = I - step
        if np.all(np.abs(step) < tol):
            return I
    return I


def max_power(params):
    V = np.linspace(0.0, 0.6, 25)
    I = pv_current(V, params)
    P = V * I
    # soft maximum of the power curve
    return 0.01 * np.log(np.sum(np.exp(P / 0.01 - np.max(P / 0.01)))) + np.max(P)


PPV = np.array([8.0, 1e-9, 1.2, 0.005, 50.0])
add(G("r19c_pv_diode_newton_early_return_softmax", max_power, (PPV,), ref="ag", tol=1e-8))
add(JV("r19c_pv_diode_iv_jvp", pv_current, (np.array([0.1, 0.4, 0.5]), PPV),
       (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0, 0.0])), tol=1e-6, h=1e-6))


# ---------------------------------------------------------------- transmission loss, complex phasors
def line_losses(z_params, V_send=1.05, P_load=0.8, Q_load=0.3):
    # receiving end voltage by fixed-point iteration on a complex phasor
    R, X = z_params["R"], z_params["X"]
    Z = R + 1j * X
    Vr = 1.0 + 0j
    for _ in range(40):
        I = np.conj((P_load + 1j * Q_load) / Vr)
        Vr = V_send - Z * I
    loss = np.abs(I) ** 2 * R
    return float(np.real(loss))


add(G("r19c_line_loss_complex_fixed_point", line_losses, ({"R": 0.05, "X": 0.2},), ref="fd", tol=1e-7))


# ---------------------------------------------------------------- heat pump COP and a dict of splines
COP_TABLE = {"air": (6.08, -0.0941, 0.000464), "ground": (10.29, -0.21, 0.0012)}


def heat_pump_energy(T_out, demand, kind="air", T_sink=45.0):
    a, b, c = COP_TABLE[kind]
    dT = T_sink - T_out
    cop = a + b * dT + c * dT ** 2
    return np.sum(demand / np.maximum(cop, 1.0))


TOUT = np.array([-5.0, 0.0, 3.0, 8.0, 12.0])
DEM = np.array([12.0, 10.0, 8.0, 6.0, 4.0])
add(G("r19c_heat_pump_cop_dict_table", heat_pump_energy, (TOUT, DEM), argnums=(0, 1), ref="ag", tol=1e-10))
add(G("r19c_heat_pump_ground_kind", heat_pump_energy, (TOUT, DEM, "ground"), ref="ag", tol=1e-10))


# ---------------------------------------------------------------- more: compositions on the above
add(pair("r19c_dispatch_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(dispatch_cost))(P0),
         lambda: fd_hess_checked_local(dispatch_cost, P0), tol=1e-4))


def fd_hess_checked_local(f, x):
    from user_programs7_harness import fd_hess_checked
    return fd_hess_checked(f, (x,))


add(pair("r19c_dc_flow_backend_jax", lambda: revsrc.grad(overload_penalty, backend="jax")(PINJ),
         lambda: fd_checked(overload_penalty, (PINJ,))[0], tol=1e-7))
add(pair("r19c_coulomb_vmap_grad_over_soc0", lambda: revsrc.vmap(revsrc.grad(coulomb_soc_end, argnums=1), in_axes=(None, 0))(np.linspace(-1.0, 3.0, 50), np.array([0.2, 0.5, 0.8])),
         lambda: np.array([ag()[0].grad(agify(coulomb_soc_end), 1)(np.linspace(-1.0, 3.0, 50), s) for s in (0.2, 0.5, 0.8)]), tol=1e-10))


# ---------------------------------------------------------------- wind farm with np.interp power curve
WS_CURVE = np.array([3.0, 5.0, 8.0, 11.0, 14.0, 25.0])
P_CURVE = np.array([0.0, 0.3, 1.2, 2.8, 3.0, 3.0])


def farm_power(layout_x, u_inf=9.0, k_wake=0.06, D=0.1):
    # Jensen wake model along one row; turbines sorted by x, deficits combined in quadrature
    order = np.argsort(layout_x)
    xs = layout_x[order]
    total = 0.0
    for i in range(len(xs)):
        deficit2 = 0.0
        for j in range(i):
            dx = xs[i] - xs[j]
            deficit2 += (2 * 0.33 / (1 + 2 * k_wake * dx / D) ** 2) ** 2
        u = u_inf * (1 - np.sqrt(deficit2 + 1e-12))
        total += np.interp(u, WS_CURVE, P_CURVE)
    return total


LX = np.array([0.0, 0.9, 0.4, 1.5])
add(G("r19c_wind_farm_argsort_interp", farm_power, (LX,), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- building thermal RC model
def building_energy(params, T_out=np.array([2.0, 1.0, 0.0, 3.0, 6.0, 8.0]), setpoint=20.0):
    R, C = params["R"], params["C"]
    T_in = 18.0
    heat = 0.0
    for To in T_out:
        q = np.maximum(setpoint - T_in, 0.0) * 2.0
        T_in = T_in + (q - (T_in - To) / R) / C
        heat = heat + q
    return heat


add(G("r19c_building_rc_dict_maximum", building_energy, ({"R": 2.0, "C": 5.0},), ref="fd", tol=1e-7))
add(pair("r19c_building_rc_hessian_dict", lambda: revsrc.hessian(building_energy)({"R": 2.0, "C": 5.0}),
         lambda: _building_hess_ref(), tol=1e-8))


def _building_hess_ref():
    h = ag()[0].hessian(lambda v: agify(building_energy)({"R": v[0], "C": v[1]}))(np.array([2.0, 5.0]))
    return {"C": {"C": h[1, 1], "R": h[1, 0]}, "R": {"C": h[0, 1], "R": h[0, 0]}}


# ---------------------------------------------------------------- OPF-like quadratic with einsum and ramp limits
PTDF = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.3], [-0.1, 0.2, 0.6]])


def multi_period_cost(P):
    # P: (periods, units); cost, ramp penalty by np.diff, line flows by einsum
    cost = np.sum(COST_A * P ** 2 + COST_B * P)
    ramp = np.diff(P, axis=0)
    ramp_pen = np.sum(np.maximum(np.abs(ramp) - 10.0, 0.0) ** 2)
    flows = np.einsum("lu,tu->tl", PTDF, P)
    flow_pen = np.sum(np.maximum(flows - 40.0, 0.0) ** 2)
    return cost + ramp_pen + flow_pen


PM = np.array([[50.0, 40.0, 30.0], [65.0, 45.0, 30.0], [70.0, 58.0, 35.0]])
add(VG("r19c_multi_period_einsum_ramp_vg", multi_period_cost, (PM,), ref="jax", tol=1e-10))
add(pair("r19c_multi_period_hvp_einsum", lambda: revsrc.hvp(multi_period_cost, (PM,), (np.ones_like(PM),)),
         lambda: jax().jvp(jax().grad(jaxify(multi_period_cost)), (PM,), (np.ones_like(PM),))[1], tol=1e-9))


# ---------------------------------------------------------------- merit order with sorted over zip
def merit_order_cost(marg_cost, demand=120.0, caps=(50.0, 40.0, 60.0, 30.0)):
    served = 0.0
    total = 0.0
    for c, cap in sorted(zip(marg_cost, caps)):
        take = min(cap, demand - served)
        if take <= 0:
            break
        total += c * take
        served += take
    return total


MC = np.array([30.0, 22.0, 45.0, 27.0])
add(G("r19c_merit_order_sorted_zip_break", merit_order_cost, (MC,), ref="fd", tol=1e-8))


# ---------------------------------------------------------------- newton with try/except in the user's code
def safe_newton_voltage(P, Vs=1.0, X=0.3, tol=1e-13):
    # receiving-end voltage of a lossless line at unity pf: V^4 - Vs^2 V^2 + (P X)^2 = 0
    V = Vs
    for _ in range(50):
        f = V ** 4 - Vs ** 2 * V ** 2 + (P * X) ** 2
        try:
            step = f / (4 * V ** 3 - 2 * Vs ** 2 * V)
        except ZeroDivisionError:
            step = 0.0
        V = V - step
        if abs(step) < tol:
            break
    return V


def _v_closed(P, Vs=1.0, X=0.3):
    disc = math.sqrt(Vs ** 4 - 4 * (P * X) ** 2)
    V = math.sqrt((Vs ** 2 + disc) / 2)
    dV2 = 0.5 * (-4 * 2 * P * X * X) / (2 * disc)
    return dV2 / (2 * V)


add(G("r19c_voltage_newton_try_except", safe_newton_voltage, (1.2,), ref=lambda: _v_closed(1.2), tol=1e-9))
add(pair("r19c_voltage_newton_jit_grad", lambda: revsrc.jit(revsrc.grad(safe_newton_voltage))(1.2), lambda: _v_closed(1.2), tol=1e-9))
