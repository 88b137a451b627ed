"""Round 15, part g: robotics -- forward kinematics of planar and spatial chains
(rotation matrices from np.array of cos/sin), inverse kinematics by damped least
squares in a while loop, quaternions."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append

LINKS = np.array([1.0, 0.8, 0.5, 0.3])


def fk2d(q, lengths=LINKS):
    x, y, phi = 0.0, 0.0, 0.0
    for i in range(q.shape[0]):
        phi = phi + q[i]
        x = x + lengths[i] * math.cos(phi)
        y = y + lengths[i] * math.sin(phi)
    return np.array([x, y])


Q4 = np.array([0.3, -0.5, 0.8, 0.2])
add(pair("r15_fk2d_jacfwd", lambda: revsrc.jacfwd(fk2d)(Q4), lambda: ag()[0].jacobian(agify(fk2d))(Q4), tol=1e-12))
add(pair("r15_fk2d_jacrev", lambda: revsrc.jacrev(fk2d)(Q4), lambda: ag()[0].jacobian(agify(fk2d))(Q4), tol=1e-12))
add(pair("r15_fk2d_jacrev_wrt_lengths", lambda: revsrc.jacrev(fk2d, argnums=1)(Q4, LINKS),
         lambda: ag()[0].jacobian(agify(fk2d), 1)(Q4, LINKS), tol=1e-12))
add(pair("r15_fk2d_vmap_jacfwd_configs", lambda: revsrc.vmap(revsrc.jacfwd(fk2d))(np.stack([Q4, -Q4, 2 * Q4])),
         lambda: np.stack([ag()[0].jacobian(agify(fk2d))(q) for q in (Q4, -Q4, 2 * Q4)]), tol=1e-12))


def rot2(a):
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def fk_matrices(q):
    T = np.eye(3)
    for i in range(q.shape[0]):
        R = rot2(q[i])
        Ti = np.eye(3)
        Ti[:2, :2] = R
        Ti[:2, 2] = R @ np.array([LINKS[i], 0.0])
        T = T @ Ti
    return T[:2, 2]


def reach_cost(q, target=np.array([1.2, 1.1])):
    d = fk_matrices(q) - target
    return d @ d


add(VG("r15_fk_homogeneous_slice_assign", reach_cost, (Q4,), ref="fd", tol=1e-8))
add(H("r15_fk_homogeneous_hessian", reach_cost, (Q4,), ref="fd", tol=1e-5))
add(pair("r15_fk_homogeneous_hvp", lambda: revsrc.hvp(reach_cost, (Q4,), (np.array([1.0, 0.0, -1.0, 0.5]),)),
         lambda: fd_checked(lambda q: float(revsrc.grad(reach_cost)(q) @ np.array([1.0, 0.0, -1.0, 0.5])), (Q4,))[0], tol=1e-6))


def ik_dls(target, q0, lam=0.1, tol=1e-10):
    q = q0.copy()
    it = 0
    err = target - fk2d(q)
    while err @ err > tol and it < 50:
        J = np.zeros((2, q.shape[0]))
        phi = np.cumsum(q)
        for i in range(q.shape[0]):
            J[0, i] = -np.sum(LINKS[i:] * np.sin(phi[i:]))
            J[1, i] = np.sum(LINKS[i:] * np.cos(phi[i:]))
        dq = J.T @ np.linalg.solve(J @ J.T + lam * lam * np.eye(2), err)
        q = q + dq
        err = target - fk2d(q)
        it += 1
    return q


TGT = np.array([1.0, 1.3])


def ik_posture(target):
    q = ik_dls(target, Q4)
    return np.sum(q ** 2)


add(G("r15_ik_dls_while_grad_target", ik_posture, (TGT,), ref="fd", tol=1e-5, h=1e-6, check=1e-3))
add(pair("r15_ik_dls_solution_reaches_target", lambda: fk2d(ik_dls(TGT, Q4)), lambda: TGT, tol=1e-5))


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_rotate(q, v):
    q = q / np.linalg.norm(q)
    qc = q * np.array([1.0, -1.0, -1.0, -1.0])
    p = np.concatenate([[0.0], v])
    return quat_mul(quat_mul(q, p), qc)[1:]


QQ = np.array([0.9, 0.1, -0.3, 0.2])
VV = np.array([1.0, 2.0, -0.5])
add(pair("r15_quat_rotate_jacrev_q", lambda: revsrc.jacrev(quat_rotate)(QQ, VV), lambda: ag()[0].jacobian(agify(quat_rotate))(QQ, VV), tol=1e-12))
add(pair("r15_quat_rotate_jacfwd_v_is_rotation", lambda: revsrc.jacfwd(quat_rotate, argnums=1)(QQ, VV),
         lambda: ag()[0].jacobian(agify(quat_rotate), 1)(QQ, VV), tol=1e-12))


def quat_integrate(omega, n=50, dt=0.02):
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for k in range(n):
        w = omega * (1.0 + 0.1 * math.sin(0.2 * k))
        dq = 0.5 * quat_mul(q, np.concatenate([[0.0], w]))
        q = q + dt * dq
        q = q / math.sqrt(q @ q)
    return q[0] * q[3] + q[1] * q[2]


OM = np.array([0.5, -1.0, 2.0])
add(VG("r15_quat_integrate_normalize_loop", quat_integrate, (OM,), ref="ag", tol=1e-10))
add(H("r15_quat_integrate_hessian", quat_integrate, (OM,), ref="ag", tol=1e-8))


def rotx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rotz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def arm3d(q):
    R = np.eye(3)
    p = np.zeros(3)
    axes = ("z", "x", "x", "z")
    for ax, a, L in zip(axes, q, LINKS):
        R = R @ (rotz(a) if ax == "z" else rotx(a))
        p = p + R @ np.array([0.0, 0.0, L])
    return p


add(pair("r15_arm3d_zip_axes_jacobian", lambda: revsrc.jacfwd(arm3d)(Q4), lambda: ag()[0].jacobian(agify(arm3d))(Q4), tol=1e-12))
add(G("r15_arm3d_manipulability_det", lambda q: np.linalg.det(revsrc.jacfwd(arm3d)(q)[:, :3] + 0.0), (Q4,),
      ref=lambda: fd_checked(lambda q: np.linalg.det(revsrc.jacfwd(arm3d)(q)[:, :3]), (Q4,))[0], tol=1e-6))


def rodrigues(w):
    th = math.sqrt(w @ w)
    if th < 1e-8:
        return np.eye(3) + np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    k = w / th
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def rod_loss(w):
    R = rodrigues(w)
    return np.trace(R @ np.diag([1.0, 2.0, 3.0])) + R[0, 2]


add(VG("r15_rodrigues_branch_trace", rod_loss, (np.array([0.3, -0.2, 0.5]),), ref="ag", tol=1e-10))
add(G("r15_rodrigues_small_angle_branch", rod_loss, (np.array([1e-9, 0.0, 0.0]),), ref="ag", tol=1e-10))


def pendulum_arm_energy(q0, n=300, dt=0.01):
    # double pendulum-like two-link arm under gravity, semi-implicit Euler on a 4-float state
    th1, th2, w1, w2 = q0[0], q0[1], 0.0, 0.0
    for _ in range(n):
        a1 = -9.81 * math.sin(th1) - 0.5 * math.sin(th1 - th2) * w2 * w2
        a2 = -9.81 * math.sin(th2) + 0.5 * math.sin(th1 - th2) * w1 * w1
        w1 += dt * a1
        w2 += dt * a2
        th1 += dt * w1
        th2 += dt * w2
    return math.cos(th1) + math.cos(th2)


add(VG("r15_two_link_semi_implicit_300", pendulum_arm_energy, (np.array([0.4, -0.3]),), ref="ag", tol=1e-9))
add(SAME("r15_two_link_grad_same_bits", lambda: revsrc.grad(pendulum_arm_energy)(np.array([0.4, -0.3]))))
add(pair("r15_two_link_jit_grad_floats", lambda: revsrc.jit(revsrc.grad(lambda a, b: pendulum_arm_energy(np.array([a, b])), argnums=(0, 1)))(0.4, -0.3),
         lambda: tuple(ag()[0].grad(agify(pendulum_arm_energy))(np.array([0.4, -0.3]))), tol=1e-9))
