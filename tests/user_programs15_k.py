"""Round 15, part k: small arrays in loops -- RK4 and Euler on 3-8 float states over
100-1000 steps, Kalman filters with 2x2 / 3x3 solve, inv and det, a small RNN: value,
gradient, two calls with the same bits, memory= equal to the stored gradient."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def lorenz_rhs(s, p):
    return np.array([p[0] * (s[1] - s[0]), s[0] * (p[1] - s[2]) - s[1], s[0] * s[1] - p[2] * s[2]])


def lorenz_rk4(p, n=120, dt=0.005):
    s = np.array([1.0, 1.0, 1.0])
    for _ in range(n):
        k1 = lorenz_rhs(s, p)
        k2 = lorenz_rhs(s + 0.5 * dt * k1, p)
        k3 = lorenz_rhs(s + 0.5 * dt * k2, p)
        k4 = lorenz_rhs(s + dt * k3, p)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s @ s


PL = np.array([10.0, 28.0, 8.0 / 3.0])
add(VG("r15_lorenz_rk4_120_vg", lorenz_rk4, (PL,), ref="ag", tol=1e-9))
add(SAME("r15_lorenz_rk4_grad_same_bits", lambda: revsrc.grad(lorenz_rk4)(PL)))
add(EXACT("r15_lorenz_rk4_memory_equals_stored", lambda: revsrc.grad(lorenz_rk4, memory="16KB")(PL),
          lambda: revsrc.grad(lorenz_rk4)(PL)))


def osc_chain_euler(k, n=600, dt=0.01):
    # 4 masses, 8-float state, symplectic Euler, with a damping branch on velocity sign
    x = np.array([0.1, 0.0, -0.1, 0.05])
    v = np.zeros(4)
    for _ in range(n):
        f = -k * x
        f[1:] += k * x[:-1] * 0.5
        f[:-1] += k * x[1:] * 0.5
        v = v + dt * f
        v = np.where(v > 0.0, 0.999 * v, v)
        x = x + dt * v
    return np.sum(x ** 2) + 0.5 * np.sum(v ** 2)


add(VG("r15_osc_chain_600_where_slices", osc_chain_euler, (3.0,), ref="fd", tol=1e-7))
add(SAME("r15_osc_chain_grad_same_bits", lambda: revsrc.grad(osc_chain_euler)(3.0)))


def damped_pend_rk4(theta0, n=1000, dt=0.002):
    y = np.array([theta0, 0.0])
    for _ in range(n):
        f = lambda z: np.array([z[1], -0.3 * z[1] - 9.81 * np.sin(z[0])])  # noqa: E731
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0]


add(VG("r15_pendulum_rk4_1000_lambda_rhs", damped_pend_rk4, (0.8,), ref="fd", tol=1e-7))
add(EXACT("r15_pendulum_rk4_memory_equals_stored", lambda: revsrc.grad(damped_pend_rk4, memory="8KB")(0.8),
          lambda: revsrc.grad(damped_pend_rk4)(0.8)))


def kalman_2x2(q, zs):
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    Hm = np.array([[1.0, 0.0]])
    x = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + q * np.eye(2)
        S = Hm @ P @ Hm.T + 0.25
        Sinv = np.linalg.inv(S)
        K = P @ Hm.T @ Sinv
        e = z - (Hm @ x)[0]
        x = x + K[:, 0] * e
        P = (np.eye(2) - K @ Hm) @ P
        ll = ll - 0.5 * (math.log(np.linalg.det(2 * math.pi * S)) + e * e * Sinv[0, 0])
    return ll


ZK = np.array([0.1, 0.3, 0.2, 0.6, 0.8, 0.7, 1.1, 1.3, 1.2, 1.6])
add(VG("r15_kalman_2x2_inv_det_loglik", kalman_2x2, (0.05, ZK), ref="ag", tol=1e-9))
add(G("r15_kalman_2x2_wrt_measurements", kalman_2x2, (0.05, ZK), argnums=1, ref="ag", tol=1e-9))
add(SAME("r15_kalman_2x2_same_bits", lambda: revsrc.value_and_grad(kalman_2x2)(0.05, ZK)))
add(pair("r15_kalman_2x2_vmap_grad_q", lambda: revsrc.vmap(revsrc.grad(kalman_2x2), in_axes=(0, None))(np.array([0.01, 0.05, 0.2]), ZK),
         lambda: np.array([ag()[0].grad(agify(kalman_2x2))(q, ZK) for q in (0.01, 0.05, 0.2)]), tol=1e-9))


def kalman_3x3_solve(R, zs):
    dt = 0.1
    F = np.array([[1.0, dt, 0.0], [0.0, 1.0, dt], [0.0, 0.0, 0.9]])
    Hm = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    x = np.zeros(3)
    P = np.eye(3)
    cost = 0.0
    for t in range(zs.shape[0]):
        x = F @ x
        P = F @ P @ F.T + 0.01 * np.eye(3)
        S = Hm @ P @ Hm.T + R
        K = np.linalg.solve(S, Hm @ P).T
        e = zs[t] - Hm @ x
        x = x + K @ e
        P = P - K @ Hm @ P
        cost = cost + e @ np.linalg.solve(S, e) + math.log(np.linalg.det(S))
    return cost


R2 = np.array([[0.2, 0.05], [0.05, 0.3]])
Z2 = np.stack([np.sin(0.3 * np.arange(12)), 0.1 * np.cos(0.2 * np.arange(12))], axis=1)
add(VG("r15_kalman_3x3_solve_det_R", kalman_3x3_solve, (R2, Z2), ref="ag", tol=1e-9))
add(G("r15_kalman_3x3_solve_wrt_obs", kalman_3x3_solve, (R2, Z2), argnums=1, ref="ag", tol=1e-9))
add(EXACT("r15_kalman_3x3_memory_equals_stored", lambda: revsrc.grad(kalman_3x3_solve, memory="4KB")(R2, Z2),
          lambda: revsrc.grad(kalman_3x3_solve)(R2, Z2)))


def rnn_small(W, xs):
    h = np.zeros(4)
    U = W[:, :4]
    V = W[:, 4:]
    out = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(U @ h + V @ xs[t])
        out += h[0] * (t % 3 == 0) - 0.5 * h[3]
    return out


rng = np.random.default_rng(77)
WR = 0.4 * rng.normal(size=(4, 6))
XR = rng.normal(size=(40, 2))
add(VG("r15_rnn_4_hidden_40_steps", rnn_small, (WR, XR), ref="ag", tol=1e-9))
add(SAME("r15_rnn_grad_same_bits", lambda: revsrc.grad(rnn_small)(WR, XR)))
add(H("r15_rnn_hessian_input_first_step", lambda x0: rnn_small(WR, np.vstack([x0[None, :], XR[1:8]])), (XR[0].copy(),), ref="ag", tol=1e-8))


def sir_age_euler(beta, n=300, dt=0.1):
    # 3 age groups: 6-float state (S, I) with a contact matrix
    C = np.array([[2.0, 0.5, 0.2], [0.5, 1.5, 0.4], [0.2, 0.4, 1.0]])
    S = np.array([0.99, 0.99, 0.99])
    I = np.array([0.01, 0.01, 0.01])
    for _ in range(n):
        lam = beta * C @ I
        new = lam * S
        S = S - dt * new
        I = I + dt * (new - 0.2 * I)
    return np.sum(S)


add(VG("r15_sir_age_contact_matrix_300", sir_age_euler, (0.3,), ref="ag", tol=1e-9))
add(pair("r15_sir_age_grad_central_differences", lambda: revsrc.grad(sir_age_euler)(0.3),
         lambda: fd_checked(sir_age_euler, (0.3,))[0], tol=1e-7))


def brusselator_adaptive(a, b=3.0, tend=2.0):
    # a while loop with a step-size branch on a 2-float state
    y = np.array([1.0, 1.0])
    t = 0.0
    h = 0.05
    while t < tend:
        f = np.array([a + y[0] ** 2 * y[1] - (b + 1) * y[0], b * y[0] - y[0] ** 2 * y[1]])
        if np.max(np.abs(f)) > 5.0:
            h_use = 0.01
        else:
            h_use = h
        y = y + h_use * f
        t += h_use
    return y[0] + y[1]


add(VG("r15_brusselator_while_adaptive_step", brusselator_adaptive, (1.0,), ref="ag", tol=1e-9))


def three_body_planar(m, n=150, dt=0.01):
    pos = np.array([[1.0, 0.0], [-0.5, 0.8], [-0.5, -0.8]])
    vel = np.array([[0.0, 0.5], [-0.4, -0.2], [0.4, -0.3]])
    for _ in range(n):
        acc = np.zeros((3, 2))
        for i in range(3):
            for j in range(3):
                if i != j:
                    d = pos[j] - pos[i]
                    acc[i] += m[j] * d / (d @ d + 0.05) ** 1.5
        vel = vel + dt * acc
        pos = pos + dt * vel
    return np.sum(pos[0] ** 2)


add(G("r15_three_body_nested_if_loops", three_body_planar, (np.array([1.0, 0.8, 0.6]),), ref="fd", tol=1e-7))


# -- adjoint liveness in compiled small-array loops: values used only on some turns

def det_scaled_rotation(p):
    s = np.array([1.0, 0.5])
    acc = 0.0
    for t in range(30):
        M = np.array([[1.0, 0.1 * p[0]], [-0.1 * p[1], 1.0]])
        d = np.linalg.det(M)
        s = M @ s / d
        if t % 3 == 0:
            acc = acc + s[0] * s[1]
        else:
            acc = acc + 0.0 * s[0]
    return acc


def solve_inv_branch(p):
    s = np.array([1.0, 0.5, -0.2])
    acc = 0.0
    for t in range(25):
        A = np.array([[2.0 + p[0], 0.1, 0.0], [0.1, 3.0, p[1]], [0.0, p[1], 4.0]])
        x = np.linalg.solve(A, s)
        Ai = np.linalg.inv(A)
        if x[0] > 0.1:
            acc = acc + np.sum(Ai @ x)
        s = np.tanh(s + x)
    return acc + np.sum(s)


def unit_direction(p):
    s = np.array([1.0, 0.5])
    for t in range(40):
        r = np.sqrt(s @ s)
        u = s / r
        s = s + 0.05 * np.array([-u[1], u[0]]) * p[0] + 0.01 * p[1] * s
    return s[0]


def rows_transposed(p):
    W = np.array([[0.5, -0.3], [0.2, 0.8], [0.1, 0.1]])
    h = np.zeros(2)
    out = 0.0
    for t in range(3):
        h = np.tanh(W.T @ np.array([p[0], p[1] * t, 1.0]) + h)
        out = out + np.dot(h, W[t, :])
    return out


P2 = np.array([0.7, 1.3])
for _name, _f in (("det_branch_every_third", det_scaled_rotation), ("solve_inv_data_branch", solve_inv_branch),
                  ("unit_direction_sqrt", unit_direction), ("rows_by_loop_var_transposed", rows_transposed)):
    add(VG("r15_small_array_" + _name, _f, (P2,), ref="ag", tol=1e-10))
    add(SAME("r15_small_array_" + _name + "_same_bits", functools.partial(revsrc.grad(_f), P2)))
