"""Round 14, part a: control and estimation -- LQR cost rollouts, PID loops with
saturation, shooting with an inner loop, an extended Kalman filter with solve/inv."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

A2 = np.array([[1.0, 0.1], [0.0, 1.0]])
B2 = np.array([0.0, 0.1])
Q2 = np.diag([1.0, 0.1])


def lqr_cost(K, x0, steps=20):
    x = x0.copy()
    J = 0.0
    for _ in range(steps):
        u = -K @ x
        J = J + x @ Q2 @ x + 0.01 * u * u
        x = A2 @ x + B2 * u
    return J


K0 = np.array([0.8, 1.2])
X0 = np.array([1.0, -0.5])
add(VG("r14_lqr_cost_vg", lqr_cost, (K0, X0), ref="ag", tol=1e-9))
add(H("r14_lqr_cost_hessian", lqr_cost, (K0, X0), ref="ag", tol=1e-8))
add(G("r14_lqr_cost_wrt_x0", lqr_cost, (K0, X0), argnums=1, ref="fd", tol=1e-7))


def pid_sat(gains, setpoint=1.0, n=40, dt=0.05):
    kp, ki, kd = gains[0], gains[1], gains[2]
    y, v, integ, prev_e = 0.0, 0.0, 0.0, setpoint
    cost = 0.0
    for _ in range(n):
        e = setpoint - y
        integ += e * dt
        d = (e - prev_e) / dt
        u = kp * e + ki * integ + kd * d
        u = min(max(u, -2.0), 2.0)
        v = v + dt * (u - 0.5 * v)
        y = y + dt * v
        prev_e = e
        cost += e * e * dt
    return cost


GAINS = np.array([1.5, 0.4, 0.1])
add(VG("r14_pid_saturation_minmax", pid_sat, (GAINS,), ref="ag", tol=1e-9))


def pid_clip(gains, n=40, dt=0.05):
    y = 0.0
    v = 0.0
    integ = 0.0
    cost = 0.0
    for k in range(n):
        sp = 1.0 if k < n // 2 else 0.5
        e = sp - y
        integ = integ + e * dt
        u = np.clip(gains[0] * e + gains[1] * integ - gains[2] * v, -1.5, 1.5)
        v += dt * (u - 0.3 * v)
        y += dt * v
        cost += abs(e) * dt
    return cost


add(G("r14_pid_np_clip_abs", pid_clip, (GAINS * 3,), ref="ag", tol=1e-9))
add(pair("r14_pid_np_clip_jit_grad", lambda: revsrc.jit(revsrc.grad(pid_clip))(GAINS * 3),
         lambda: ag()[0].grad(agify(pid_clip))(GAINS * 3), tol=1e-9))


def shoot(u, x0=np.array([0.0, 0.0]), target=np.array([1.0, 0.0])):
    # piecewise-constant controls, each held for 5 sub-steps
    x = x0.copy()
    for k in range(u.shape[0]):
        for _ in range(5):
            x = x + 0.02 * np.array([x[1], u[k] - 0.1 * x[1]])
    d = x - target
    return 10.0 * (d @ d) + 0.01 * np.sum(u ** 2)


U6 = np.array([2.0, 1.0, 0.5, -0.5, -1.0, -1.5])
add(VG("r14_shooting_inner_loop_vg", shoot, (U6,), ref="ag", tol=1e-9))
add(H("r14_shooting_hessian", shoot, (U6,), ref="ag", tol=1e-8))
add(pair("r14_shooting_hvp", lambda: revsrc.hvp(shoot, (U6,), (np.ones(6),)),
         lambda: ag()[0].hessian_vector_product(agify(shoot))(U6, np.ones(6)), tol=1e-8))


def shoot_gd(u0, steps=5, lr=0.05):
    u = u0
    for _ in range(steps):
        u = u - lr * revsrc.grad(shoot)(u)
    return shoot(u)


def shoot_gd_ag(u0, steps=5, lr=0.05):
    autograd, _ = ag()
    s = agify(shoot)
    u = u0
    for _ in range(steps):
        u = u - lr * autograd.grad(s)(u)
    return s(u)


add(pair("r14_shooting_unrolled_gd_grad", lambda: revsrc.grad(shoot_gd)(U6),
         lambda: ag()[0].grad(shoot_gd_ag)(U6), tol=1e-8))


def ekf_step(x, P, z, q, r):
    # pendulum state (theta, omega), dt = 0.1, measurement sin(theta)
    dt = 0.1
    xp = np.array([x[0] + dt * x[1], x[1] - dt * 9.81 * math.sin(x[0])])
    F = np.array([[1.0, dt], [-dt * 9.81 * math.cos(x[0]), 1.0]])
    Pp = F @ P @ F.T + q * np.eye(2)
    H = np.array([[math.cos(xp[0]), 0.0]])
    S = H @ Pp @ H.T + r
    K = Pp @ H.T @ np.linalg.inv(S)
    innov = z - math.sin(xp[0])
    xn = xp + (K * innov).ravel()
    Pn = (np.eye(2) - K @ H) @ Pp
    return xn, Pn, innov, S[0, 0]


ZS = np.array([0.45, 0.38, 0.25, 0.1, -0.05, -0.2])


def ekf_nll(params, zs):
    q, r = params[0], params[1]
    x = np.array([0.5, 0.0])
    P = 0.1 * np.eye(2)
    nll = 0.0
    for z in zs:
        x, P, e, s = ekf_step(x, P, z, q, r)
        nll = nll + 0.5 * (math.log(2 * math.pi * s) + e * e / s)
    return nll


PQR = np.array([0.01, 0.02])
add(VG("r14_ekf_nll_vg", ekf_nll, (PQR, ZS), ref="ag", tol=1e-8))
add(G("r14_ekf_nll_wrt_measurements", ekf_nll, (PQR, ZS), argnums=1, ref="ag", tol=1e-8))
add(H("r14_ekf_nll_hessian", ekf_nll, (PQR, ZS), ref="fd", tol=1e-4))


def kf_solve(x0, zs):
    # linear Kalman filter in 3-d (constant acceleration), gain by np.linalg.solve
    dt = 0.2
    F = np.array([[1.0, dt, 0.5 * dt * dt], [0.0, 1.0, dt], [0.0, 0.0, 1.0]])
    Hm = np.array([[1.0, 0.0, 0.0]])
    x = x0
    P = np.eye(3)
    out = 0.0
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + 0.01 * np.eye(3)
        S = Hm @ P @ Hm.T + 0.1
        K = np.linalg.solve(S, Hm @ P).T
        x = x + K[:, 0] * (z - x[0])
        P = P - K @ Hm @ P
        out += x[2] ** 2
    return out


X30 = np.array([0.0, 1.0, 0.2])
add(VG("r14_kf_solve_3d_vg", kf_solve, (X30, ZS), ref="ag", tol=1e-9))
add(pair("r14_kf_solve_jacrev_x0", lambda: revsrc.jacrev(lambda x: kf_solve(x, ZS))(X30),
         lambda: fdj(lambda x: kf_solve(x, ZS), X30), tol=1e-6))
add(JV("r14_ekf_step_jvp_state", lambda x: ekf_step(x, 0.1 * np.eye(2), 0.3, 0.01, 0.02)[0],
       (np.array([0.5, 0.1]),), (np.array([1.0, -1.0]),)))


def bang_bang(t_switch, n=50):
    # switching time enters through a smooth ramp; a while loop that stops at the target
    x, v, t, dt = 0.0, 0.0, 0.0, 0.02
    k = 0
    while k < n:
        u = 1.0 if t < t_switch else -1.0
        v += u * dt
        x += v * dt
        t += dt
        k += 1
        if x > 10.0:
            break
    return x + v * t_switch


# the control is piecewise constant in t_switch: d/dt_switch is v (the explicit term)
def _bb_ref():
    x, v, t, dt = 0.0, 0.0, 0.0, 0.02
    for _ in range(50):
        u = 1.0 if t < 0.37 else -1.0
        v += u * dt
        x += v * dt
        t += dt
    return v


add(pair("r14_bang_bang_branch_grad", lambda: revsrc.grad(bang_bang)(0.37), _bb_ref, tol=1e-12))


def mpc_cost(u, x0):
    # receding horizon: for each start, a 3-step lookahead with a quadratic terminal cost
    total = 0.0
    x = x0
    for k in range(len(u) - 2):
        xs = x
        for j in range(3):
            xs = 0.9 * xs + 0.2 * u[k + j]
        total += (xs - 1.0) ** 2
        x = 0.9 * x + 0.2 * u[k]
    return total + 0.1 * float(np.dot(u, u))


U5 = np.array([0.5, 1.0, 1.5, 1.0, 0.5])
add(VG("r14_mpc_nested_lookahead", mpc_cost, (U5, 0.2), ref="fd", tol=1e-7))
add(G("r14_mpc_wrt_float_x0", mpc_cost, (U5, 0.2), argnums=1, ref="fd", tol=1e-7))
add(pair("r14_mpc_vmap_grad_over_x0", lambda: revsrc.vmap(revsrc.grad(mpc_cost, argnums=1), in_axes=(None, 0))(U5, np.array([0.0, 0.2, 0.5])),
         lambda: np.array([fd_checked(mpc_cost, (U5, x0), argnums=1)[0] for x0 in (0.0, 0.2, 0.5)]), tol=1e-7))
add(pair("r14_lqr_jax_backend", lambda: revsrc.grad(lqr_cost, backend="jax")(K0, X0, 5),
         lambda: fd_checked(lqr_cost, (K0, X0, 5))[0], tol=1e-7))
