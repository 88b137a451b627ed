"""Round 9, physics and engineering: pendulum, Lennard-Jones pair loops, springs and
masses, leapfrog and velocity-Verlet orbits, beam deflection, RC ladder recurrences,
robot-arm forward kinematics with rotation matrices, quaternion rotations."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def pendulum_energy_drift(theta0, dt=0.01, steps=300):
    g_over_l = 9.81
    th, om = theta0, 0.0
    for _ in range(steps):
        om -= 0.5 * dt * g_over_l * math.sin(th)
        th += dt * om
        om -= 0.5 * dt * g_over_l * math.sin(th)
    return th


CASES.append(G("r9_pendulum_leapfrog_augassign", pendulum_energy_drift, (0.4,), ref="jax"))
CASES.append(G("r9_pendulum_leapfrog_memory", pendulum_energy_drift, (0.4,), ref="jax", memory=16))


def lj_energy(pos, eps=1.0, sigma=1.0):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            sr6 = (sigma * sigma / r2) ** 3
            e += 4 * eps * (sr6 * sr6 - sr6)
    return e


_pos = np.array([[0.0, 0.0, 0.0], [1.1, 0.0, 0.1], [0.0, 1.2, -0.1], [1.0, 1.0, 0.9]])
CASES.append(G("r9_lennard_jones_pair_loop_forces", lj_energy, (_pos,), ref="jax"))
CASES.append(G("r9_lennard_jones_wrt_sigma", lj_energy, (_pos, 1.0, 1.05), argnums=2, ref="jax"))
CASES.append(H("r9_lennard_jones_hessian", lj_energy, (_pos,), ref="jax", tol=1e-5))


def lj_vectorized(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d * d, axis=-1)
    iu = np.triu_indices(pos.shape[0], k=1)
    r2 = r2[iu]
    inv6 = 1.0 / r2 ** 3
    return np.sum(4 * (inv6 * inv6 - inv6))


CASES.append(G("r9_lennard_jones_triu_indices", lj_vectorized, (_pos,), ref="jax"))


def spring_chain(k, n=5, steps=200, dt=0.02):
    x = np.zeros(n)
    v = np.zeros(n)
    x[0] = 0.5
    for _ in range(steps):
        f = np.zeros(n)
        f[1:] += k * (x[:-1] - x[1:])
        f[:-1] += k * (x[1:] - x[:-1])
        v = v + dt * f
        x = x + dt * v
    return x[-1]


CASES.append(G("r9_spring_chain_slice_augassign", spring_chain, (2.0,), ref="fd"))


def velocity_verlet_orbit(vy0, steps=400, dt=0.01):
    r = np.array([1.0, 0.0])
    v = np.array([0.0, vy0])
    a = -r / np.linalg.norm(r) ** 3
    for _ in range(steps):
        r = r + v * dt + 0.5 * a * dt * dt
        a_new = -r / np.linalg.norm(r) ** 3
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return 0.5 * np.dot(v, v) - 1.0 / np.linalg.norm(r)


CASES.append(G("r9_verlet_orbit_energy", velocity_verlet_orbit, (1.1,), ref="jax"))


def leapfrog_two_body(m2, steps=150, dt=0.02):
    x1 = np.array([0.0, 0.0])
    x2 = np.array([1.0, 0.0])
    v1 = np.array([0.0, -0.1])
    v2 = np.array([0.0, 0.9])
    for _ in range(steps):
        d = x2 - x1
        r3 = np.sum(d ** 2) ** 1.5
        v1 = v1 + dt * m2 * d / r3
        v2 = v2 - dt * 1.0 * d / r3
        x1 = x1 + dt * v1
        x2 = x2 + dt * v2
    return x2[0] - x1[0]


CASES.append(G("r9_two_body_leapfrog_mass", leapfrog_two_body, (0.3,), ref="jax"))


def beam_deflection(EI, L=2.0, P=100.0, n=50):
    # cantilever under an end load, by integrating the curvature twice (trapezoid)
    x = np.linspace(0.0, L, n)
    M = P * (L - x)
    kappa = M / EI
    h = x[1] - x[0]
    theta = np.concatenate([[0.0], np.cumsum(0.5 * (kappa[1:] + kappa[:-1]) * h)])
    w = np.concatenate([[0.0], np.cumsum(0.5 * (theta[1:] + theta[:-1]) * h)])
    return w[-1]


CASES.append(G("r9_beam_cumsum_concatenate", beam_deflection, (5000.0,), ref="fd", tol=1e-6))


def rc_ladder(R, C=1e-3, n=6, vin=1.0):
    # impedance of an n-stage RC ladder at 50 Hz, magnitude only, real arithmetic
    w = 2 * math.pi * 50
    zr, zi = R, 0.0
    for _ in range(n - 1):
        # parallel with the capacitor: 1 / (1/Z + j w C)
        den_r = zr / (zr * zr + zi * zi)
        den_i = -zi / (zr * zr + zi * zi) + w * C
        mag = den_r * den_r + den_i * den_i
        zr, zi = den_r / mag + R, -den_i / mag
    return vin / math.hypot(zr, zi)


CASES.append(G("r9_rc_ladder_real_recurrence", rc_ladder, (12.0,), ref="jax"))


def rc_ladder_complex(R, C=1e-3, n=6):
    w = 2 * math.pi * 50
    z = R + 0j
    for _ in range(n - 1):
        z = 1.0 / (1.0 / z + 1j * w * C) + R
    return abs(z)


CASES.append(G("r9_rc_ladder_complex_python", rc_ladder_complex, (12.0,), ref="jax"))


def rot_z(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def arm_tip(angles, lengths=(1.0, 0.8, 0.5)):
    T = np.eye(3)
    p = np.zeros(3)
    for a, l in zip(angles, lengths):
        T = T @ rot_z(a)
        p = p + T @ np.array([l, 0.0, 0.0])
    return p


def arm_loss(angles):
    p = arm_tip(angles)
    target = np.array([1.2, 1.0, 0.0])
    return np.sum((p - target) ** 2)


_ang = np.array([0.3, -0.4, 0.9])
CASES.append(G("r9_robot_arm_rotation_matrices", arm_loss, (_ang,), ref="jax"))
CASES.append(pair("r9_robot_arm_jacfwd",
                  lambda: revsrc.jacfwd(arm_tip)(_ang),
                  lambda: __import__("user_programs6_harness").jax().jacfwd(
                      __import__("user_programs6_harness").jaxify(arm_tip))(_ang)))
CASES.append(pair("r9_robot_arm_jacrev",
                  lambda: revsrc.jacrev(arm_tip)(_ang),
                  lambda: __import__("user_programs6_harness").jax().jacrev(
                      __import__("user_programs6_harness").jaxify(arm_tip))(_ang)))


def quat_mul(p, q):
    a1, b1, c1, d1 = p
    a2, b2, c2, d2 = q
    return (a1 * a2 - b1 * b2 - c1 * c2 - d1 * d2,
            a1 * b2 + b1 * a2 + c1 * d2 - d1 * c2,
            a1 * c2 - b1 * d2 + c1 * a2 + d1 * b2,
            a1 * d2 + b1 * c2 - c1 * b2 + d1 * a2)


def quat_rotate(theta, v=(1.0, 0.0, 0.0)):
    axis = (0.0, 0.6, 0.8)
    h = 0.5 * theta
    q = (math.cos(h), axis[0] * math.sin(h), axis[1] * math.sin(h), axis[2] * math.sin(h))
    qc = (q[0], -q[1], -q[2], -q[3])
    r = quat_mul(quat_mul(q, (0.0,) + tuple(v)), qc)
    return r[1] + 2 * r[2] - r[3]


CASES.append(G("r9_quaternion_tuple_rotation", quat_rotate, (0.7,), ref="jax"))
CASES.append(H("r9_quaternion_tuple_rotation_hessian", quat_rotate, (0.7,), ref="jax"))


def quat_array_loss(q):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    v = np.array([0.3, -0.2, 0.9])
    return np.sum((R @ v - np.array([0.0, 0.5, 0.7])) ** 2)


CASES.append(G("r9_quaternion_to_matrix_unpack_array", quat_array_loss,
               (np.array([0.9, 0.1, -0.2, 0.3]),), ref="jax"))


def damped_oscillator_amplitude(c, steps=500, dt=0.01):
    x, v = 1.0, 0.0
    peak = 0.0
    for i in range(steps):
        a = -4.0 * x - c * v
        v += a * dt
        x += v * dt
        if i > 250:
            peak = max(peak, abs(x))
    return peak


CASES.append(G("r9_damped_oscillator_max_abs", damped_oscillator_amplitude, (0.3,), ref="ag"))


def projectile_range(angle, v0=20.0, k=0.05, dt=0.001):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    while y >= 0.0:
        speed = math.hypot(vx, vy)
        vx -= k * speed * vx * dt
        vy -= (9.81 + k * speed * vy) * dt
        x += vx * dt
        y += vy * dt
    return x


CASES.append(G("r9_projectile_drag_while_ground", projectile_range, (0.6,), ref="ag"))


def heat_exchanger_ntu(UA, cmin=2.0, cmax=3.0):
    cr = cmin / cmax
    ntu = UA / cmin
    eff = (1 - math.exp(-ntu * (1 - cr))) / (1 - cr * math.exp(-ntu * (1 - cr)))
    return eff * cmin * (90.0 - 20.0)


CASES.append(G("r9_heat_exchanger_ntu", heat_exchanger_ntu, (3.5,), ref="jax"))
CASES.append(JV("r9_jvp_arm_tip", arm_tip, (_ang,), (np.array([1.0, 0.5, -0.3]),), ref="jax"))


def spring_mass_matrix_freq(k):
    K = np.array([[2 * k, -k, 0.0], [-k, 2 * k, -k], [0.0, -k, k]])
    M = np.diag([1.0, 2.0, 1.5])
    Minv_sqrt = np.diag(1.0 / np.sqrt(np.diag(M)))
    w2 = np.linalg.eigh(Minv_sqrt @ K @ Minv_sqrt)[0]
    return np.sqrt(w2[0])


CASES.append(G("r9_normal_modes_eigh_lowest", spring_mass_matrix_freq, (3.0,), ref="fd"))


def truss_compliance(areas):
    # 2-bar truss, stiffness from areas; compliance = f^T K^-1 f
    E = 200.0
    c1, s1 = math.cos(0.6), math.sin(0.6)
    c2, s2 = math.cos(2.4), math.sin(2.4)
    k1 = E * areas[0] * np.array([[c1 * c1, c1 * s1], [c1 * s1, s1 * s1]])
    k2 = E * areas[1] * np.array([[c2 * c2, c2 * s2], [c2 * s2, s2 * s2]])
    K = k1 + k2
    f = np.array([0.0, -1.0])
    u = np.linalg.solve(K, f)
    return f @ u


CASES.append(G("r9_truss_compliance_solve", truss_compliance, (np.array([0.5, 0.7]),), ref="jax"))
