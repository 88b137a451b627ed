"""Round 9, control and engineering: a PID loop with actuator saturation and
anti-windup, a discrete Riccati iteration (LQR), frequency responses with complex
arithmetic, an IIR biquad filter recurrence, a thermal resistance network by solve,
a four-bar linkage by the law of cosines, a cooling fin in closed form."""
import cmath
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def pid_cost(kp, ki=0.5, kd=0.05, dt=0.01, steps=600):
    y, yd = 0.0, 0.0
    integ = 0.0
    prev_err = 1.0
    cost = 0.0
    for _ in range(steps):
        err = 1.0 - y
        integ += err * dt
        u = kp * err + ki * integ + kd * (err - prev_err) / dt
        if u > 5.0:
            u = 5.0
            integ -= err * dt
        elif u < -5.0:
            u = -5.0
        prev_err = err
        ydd = u - 0.8 * yd - 2.0 * y
        yd += ydd * dt
        y += yd * dt
        cost += err * err * dt
    return cost


CASES.append(G("r9_pid_saturation_antiwindup", pid_cost, (3.0,), ref="ag"))
CASES.append(G("r9_pid_wrt_ki", pid_cost, (3.0, 0.5), argnums=1, ref="ag"))


def riccati_gain(q):
    A = np.array([[1.0, 0.1], [0.0, 1.0]])
    B = np.array([[0.0], [0.1]])
    Q = np.diag(np.array([q, 0.1]))
    R = np.array([[0.5]])
    P = Q.copy()
    for _ in range(200):
        K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
        P = Q + A.T @ P @ (A - B @ K)
    return K[0, 0] + K[0, 1]


CASES.append(G("r9_dlqr_riccati_iteration", riccati_gain, (1.0,), ref="jax", tol=1e-6))


def bode_mag(wn, zeta=0.3):
    total = 0.0
    for w in [0.5, 1.0, 2.0, 4.0]:
        s = 1j * w
        H_ = wn ** 2 / (s * s + 2 * zeta * wn * s + wn ** 2)
        total += 20 * math.log10(abs(H_))
    return total


CASES.append(G("r9_bode_magnitude_complex_python", bode_mag, (1.5,), ref="jax"))


def phase_margin_like(k):
    s = 1j * 1.0
    L = k / (s * (s + 1) * (s + 2))
    return cmath.phase(L) + abs(L)


CASES.append(G("r9_cmath_phase_open_loop", phase_margin_like, (2.0,), ref="fd"))


def biquad(b0):
    b = (b0, 2 * b0, b0)
    a = (1.0, -1.2, 0.5)
    x = np.sin(0.3 * np.arange(40))
    y = np.zeros(40)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(40):
        yn = b[0] * x[n] + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, yn
        y[n] = yn
    return np.sum(y ** 2)


CASES.append(G("r9_iir_biquad_recurrence_item_writes", biquad, (0.1,), ref="fd"))


def thermal_network(R12):
    # nodes 1..3 between T_hot=100 and T_cold=20; conductances as 1/R
    g12, g23, gh, gc, g13 = 1 / R12, 1 / 2.0, 1 / 0.5, 1 / 0.8, 1 / 3.0
    G_ = np.array([[gh + g12 + g13, -g12, -g13],
                   [-g12, g12 + g23, -g23],
                   [-g13, -g23, g23 + g13 + gc]])
    q = np.array([gh * 100.0, 0.0, gc * 20.0])
    T = np.linalg.solve(G_, q)
    return T[1]


CASES.append(G("r9_thermal_resistance_network", thermal_network, (1.2,), ref="jax"))


def fourbar(theta2, a=1.0, b=3.0, c=2.5, d=3.2):
    # output angle theta4 of a four-bar linkage (open configuration)
    K1, K2, K3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)
    A = math.cos(theta2) - K1 - K2 * math.cos(theta2) + K3
    B = -2 * math.sin(theta2)
    C = K1 - (K2 + 1) * math.cos(theta2) + K3
    return 2 * math.atan2(-B - math.sqrt(B * B - 4 * A * C), 2 * A)


CASES.append(G("r9_fourbar_linkage_atan2_sqrt", fourbar, (0.8,), ref="jax"))


def fin_heat(m, L=0.05):
    h, P, k, Ac = 25.0, 0.02, 200.0, 1e-5
    M = math.sqrt(h * P * k * Ac) * 80.0
    num = math.sinh(m * L) + (h / (m * k)) * math.cosh(m * L)
    den = math.cosh(m * L) + (h / (m * k)) * math.sinh(m * L)
    return M * num / den


CASES.append(G("r9_fin_heat_cosh_sinh", fin_heat, (15.0,), ref="jax"))


def gear_train(ratios):
    w = 100.0
    torque = 1.0
    for r in ratios:
        w = w / r
        torque = torque * r * 0.98
    return w * torque


CASES.append(G("r9_gear_train_loop_over_array", gear_train, (np.array([2.0, 3.0, 1.5]),), ref="jax"))


def step_response_overshoot(zeta):
    wn = 2.0
    wd = wn * math.sqrt(1 - zeta ** 2)
    t = np.linspace(0, 5, 500)
    y = 1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / math.sqrt(1 - zeta ** 2) * np.sin(wd * t))
    return np.max(y)


CASES.append(G("r9_second_order_overshoot_max", step_response_overshoot, (0.4,), ref="jax"))
