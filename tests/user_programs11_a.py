"""Round 11, part a: robotics -- forward/inverse kinematics of arm chains, Jacobians,
quaternions, rotation matrices, rigid-body transforms, as a robotics student writes them."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401

CASES = []
add = CASES.append


# -- planar arm forward kinematics -------------------------------------------------------

def fk_planar(q, lengths):
    x, y, th = 0.0, 0.0, 0.0
    for qi, li in zip(q, lengths):
        th += qi
        x += li * math.cos(th)
        y += li * math.sin(th)
    return x, y


def reach_cost(q, target=(1.2, 0.7), lengths=(1.0, 0.8, 0.5)):
    x, y = fk_planar(q, lengths)
    dx, dy = x - target[0], y - target[1]
    return dx * dx + dy * dy


Q3 = [0.3, -0.4, 0.9]
add(G("r11_fk_planar_list", reach_cost, (Q3,), ref="ag"))
add(G("r11_fk_planar_tuple", reach_cost, (tuple(Q3),), ref="ag"))


def fk_np(q, L):
    th = np.cumsum(q)
    return np.array([np.sum(L * np.cos(th)), np.sum(L * np.sin(th))])


def reach_np(q, L, tgt):
    e = fk_np(q, L) - tgt
    return e @ e


QA = np.array([0.3, -0.4, 0.9, 0.2])
LA = np.array([1.0, 0.8, 0.5, 0.3])
TG = np.array([1.1, 1.3])
add(G("r11_fk_cumsum", reach_np, (QA, LA, TG), ref="ag"))
add(G("r11_fk_cumsum_lengths", reach_np, (QA, LA, TG), argnums=1, ref="ag"))
add(pair("r11_fk_jacfwd", lambda: revsrc.jacfwd(fk_np)(QA, LA),
         lambda: jax().jacfwd(jaxify(fk_np))(QA, LA)))
add(pair("r11_fk_jacrev", lambda: revsrc.jacrev(fk_np)(QA, LA),
         lambda: jax().jacrev(jaxify(fk_np))(QA, LA)))
add(H("r11_fk_hessian", reach_np, (QA, LA, TG), ref="ag", tol=1e-9))


# manipulability: sqrt(det(J J^T)) with J from the closed-form planar Jacobian
def planar_jac(q, L):
    th = np.cumsum(q)
    c, s = L * np.cos(th), L * np.sin(th)
    # column j sums links j..n-1
    Jx = -np.cumsum(s[::-1])[::-1]
    Jy = np.cumsum(c[::-1])[::-1]
    return np.stack([Jx, Jy])


def manipulability(q, L):
    J = planar_jac(q, L)
    return np.sqrt(np.linalg.det(J @ J.T))


add(G("r11_manipulability", manipulability, (QA, LA), ref="ag"))


# -- damped least-squares IK, a few iterations, differentiated w.r.t. the target ----------

def ik_dls(target, q0, L, iters=5, lam=0.1):
    q = q0
    for _ in range(iters):
        J = planar_jac(q, L)
        e = target - fk_np(q, L)
        dq = J.T @ np.linalg.solve(J @ J.T + lam * np.eye(2), e)
        q = q + dq
    return np.sum(np.sin(q))


add(G("r11_ik_dls_target", ik_dls, (TG, QA, LA), ref="ag"))
add(G("r11_ik_dls_q0", ik_dls, (TG, QA, LA), argnums=1, ref="ag"))


# -- 3D: rotation matrices and DH chains -----------------------------------------------

def rotz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotx(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def dh(theta, d, a, alpha):
    T = np.eye(4)
    T[:3, :3] = rotz(theta) @ rotx(alpha)
    T[:3, 3] = np.array([a * np.cos(theta), a * np.sin(theta), d])
    return T


DH_D = [0.3, 0.0, 0.0, 0.25]
DH_A = [0.0, 0.4, 0.35, 0.0]
DH_AL = [math.pi / 2, 0.0, 0.0, -math.pi / 2]


def dh_chain(q):
    T = np.eye(4)
    for i in range(4):
        T = T @ dh(q[i], DH_D[i], DH_A[i], DH_AL[i])
    return T


def ee_dist(q):
    p = dh_chain(q)[:3, 3]
    return np.sum((p - np.array([0.3, 0.2, 0.5])) ** 2)


Q4 = np.array([0.1, 0.5, -0.7, 0.3])


def ee_dist_ref():
    # the same chain, written functionally for JAX (no item assignment)
    jnp = jax().numpy

    def rz(t):
        c, s = jnp.cos(t), jnp.sin(t)
        return jnp.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    def rx(t):
        c, s = jnp.cos(t), jnp.sin(t)
        return jnp.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])

    def f(q):
        R, p = jnp.eye(3), jnp.zeros(3)
        for i in range(4):
            t = jnp.array([DH_A[i] * jnp.cos(q[i]), DH_A[i] * jnp.sin(q[i]), DH_D[i]])
            p = p + R @ t
            R = R @ rz(q[i]) @ rx(DH_AL[i])
        return jnp.sum((p - jnp.array([0.3, 0.2, 0.5])) ** 2)
    return jax().grad(f)(Q4)


add(pair("r11_dh_chain_itemassign", lambda: revsrc.grad(ee_dist)(Q4), ee_dist_ref))
add(G("r11_dh_chain_fd", ee_dist, (Q4,), ref="fd", tol=1e-6))


# -- quaternions ---------------------------------------------------------------------

def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)


def qnormalize(q):
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def qrotate(q, v):
    q = qnormalize(q)
    qc = (q[0], -q[1], -q[2], -q[3])
    r = qmul(qmul(q, (0.0,) + tuple(v)), qc)
    return r[1:]


def quat_align_loss(q, v=(1.0, 0.0, 0.0), target=(0.0, 0.6, 0.8)):
    r = qrotate(q, v)
    return sum((a - b) ** 2 for a, b in zip(r, target))


QQ = (0.9, 0.1, -0.3, 0.2)
add(G("r11_quat_rotate_tuple", quat_align_loss, (QQ,), ref="ag"))
add(H("r11_quat_rotate_hessian_list", quat_align_loss, (np.array(QQ),), ref="ag", tol=1e-8))


def quat_to_matrix(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def rot_geodesic(q, Rt):
    R = quat_to_matrix(q)
    c = (np.trace(Rt.T @ R) - 1.0) / 2.0
    return np.arccos(np.clip(c, -0.999999, 0.999999)) ** 2


RT = quat_to_matrix(np.array([0.8, 0.3, 0.1, -0.4]))
add(G("r11_quat_matrix_geodesic", rot_geodesic, (np.array(QQ), RT), ref="ag"))


def slerp_energy(t, q0=np.array([1.0, 0.0, 0.0, 0.0]), q1=np.array([0.6, 0.8, 0.0, 0.0])):
    omega = np.arccos(np.dot(q0, q1))
    q = (np.sin((1 - t) * omega) * q0 + np.sin(t * omega) * q1) / np.sin(omega)
    return q[1] ** 2 + 0.5 * q[0]


add(G("r11_slerp_t", slerp_energy, (0.37,), ref="ag"))
add(JV("r11_slerp_jvp", slerp_energy, (0.37,), (1.0,), ref="jax"))


# -- rigid body: SE(2) pose graph with a class ----------------------------------------

class Pose2:
    def __init__(self, x, y, th):
        self.x, self.y, self.th = x, y, th

    def compose(self, other):
        c, s = math.cos(self.th), math.sin(self.th)
        return Pose2(self.x + c * other.x - s * other.y,
                     self.y + s * other.x + c * other.y,
                     self.th + other.th)


def odometry_err(u):
    p = Pose2(0.0, 0.0, 0.0)
    for k in range(0, len(u), 3):
        p = p.compose(Pose2(u[k], u[k + 1], u[k + 2]))
    return (p.x - 2.0) ** 2 + (p.y - 1.0) ** 2 + 0.1 * p.th ** 2


def odometry_err_plain(u):
    x = y = th = 0.0
    for k in range(0, len(u), 3):
        c, s = np.cos(th), np.sin(th)
        x, y, th = x + c * u[k] - s * u[k + 1], y + s * u[k] + c * u[k + 1], th + u[k + 2]
    return (x - 2.0) ** 2 + (y - 1.0) ** 2 + 0.1 * th ** 2


U6 = [0.5, 0.1, 0.3, 0.7, -0.2, 0.4, 0.6, 0.0, -0.1]
add(pair("r11_pose2_objects_in_loop", lambda: revsrc.grad(odometry_err)(U6),
         lambda: list(np.asarray(jax().grad(jaxify(odometry_err_plain))(np.array(U6))))))


# -- a two-link arm's inverse kinematics in closed form (law of cosines) --------------

def ik2(px, py, l1=1.0, l2=0.7):
    c2 = (px * px + py * py - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    q2 = math.acos(max(-1.0, min(1.0, c2)))
    q1 = math.atan2(py, px) - math.atan2(l2 * math.sin(q2), l1 + l2 * math.cos(q2))
    return q1 + 2 * q2


add(G("r11_ik2_closed_form_px", ik2, (1.1, 0.6), ref="fd"))
add(G("r11_ik2_closed_form_py", ik2, (1.1, 0.6), argnums=1, ref="fd"))
add(G("r11_ik2_argnums_both", ik2, (1.1, 0.6), argnums=(0, 1), ref="ag"))


# -- Jacobian-transpose controller, vmap over joint angle of a 1-dof pendulum arm ------

def torque(q):
    return 9.81 * 0.5 * math.cos(q) + 0.2 * math.sin(2 * q)


QS = np.linspace(-1.0, 1.0, 7)
add(pair("r11_vmap_grad_torque", lambda: revsrc.vmap(revsrc.grad(torque))(QS),
         lambda: -9.81 * 0.5 * np.sin(QS) + 0.4 * np.cos(2 * QS), tol=1e-12))


# -- a cross product based torque with np.cross --------------------------------------

def cross_torque(F, r=np.array([0.2, -0.1, 0.5])):
    tau = np.cross(r, F)
    return np.dot(tau, tau) + np.linalg.norm(F)


add(G("r11_np_cross_torque", cross_torque, (np.array([1.0, 2.0, -0.5]),), ref="ag"))


# -- the skew-symmetric matrix and Rodrigues' formula ---------------------------------

def skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def rodrigues(w):
    th = np.linalg.norm(w)
    K = skew(w / th)
    return np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * (K @ K)


def rodrigues_loss(w):
    R = rodrigues(w)
    return np.sum(R @ np.array([1.0, 2.0, 3.0]))


W3 = np.array([0.3, -0.2, 0.5])
add(G("r11_rodrigues", rodrigues_loss, (W3,), ref="ag"))
add(pair("r11_rodrigues_jacobian", lambda: revsrc.jacobian(rodrigues)(W3),
         lambda: jax().jacrev(jaxify(rodrigues))(W3)))
