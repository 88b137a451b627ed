"""Round 18, part b: robotics -- quaternions, rotation matrices, forward kinematics of
serial chains (classes with inheritance), inverse kinematics by damped Newton inside a
loss, trajectory costs with in-place buffers, pytrees of link parameters."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

GRAVITY = np.array([0.0, 0.0, -9.81])


def qmul(a, b):
    w1, x1, y1, z1 = a[0], a[1], a[2], a[3]
    w2, x2, y2, z2 = b[0], b[1], b[2], b[3]
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def qconj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def qnormalize(q):
    return q / np.linalg.norm(q)


def qrotate(q, v):
    qv = np.concatenate([np.zeros(1), v])
    return qmul(qmul(q, qv), qconj(q))[1:]


def quat_to_mat(q):
    w, x, y, z = qnormalize(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def attitude_loss(q, v_body, v_world):
    # align measured body vectors with world references (Wahba-like)
    qn = qnormalize(q)
    err = 0.0
    for vb, vw in zip(v_body, v_world):
        err = err + np.sum((qrotate(qn, vb) - vw) ** 2)
    return err


Q0 = np.array([0.9, 0.1, -0.2, 0.3])
VB = [np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([0.3, 0.3, 0.9])]
VW = [np.array([0.8, 0.5, 0.1]), np.array([-0.5, 0.8, 0.2]), np.array([0.1, 0.2, 0.95])]
add(G("r18b_wahba_quat_rotate_list_zip", attitude_loss, (Q0, VB, VW), ref="jax", tol=1e-11))
add(H("r18b_wahba_quat_hessian", attitude_loss, (Q0, VB, VW), ref="jax", tol=1e-9))
add(G("r18b_wahba_grad_wrt_body_vectors_list", attitude_loss, (Q0, VB, VW), argnums=1, ref="jax", tol=1e-11))


def mat_vs_quat(q):
    R = quat_to_mat(q)
    v = np.array([0.2, -0.4, 0.7])
    return np.sum((R @ v - qrotate(qnormalize(q), v)) ** 2) + np.trace(R)


add(G("r18b_quat_to_mat_unpack_array", mat_vs_quat, (Q0,), ref="jax", tol=1e-11))


def rodrigues(w):
    th = np.linalg.norm(w)
    K = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    if th < 1e-8:
        return np.eye(3) + K
    return np.eye(3) + math.sin(th) / th * K + (1 - math.cos(th)) / th ** 2 * K @ K


def so3_log_trace(w):
    R = rodrigues(w)
    c = np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0)
    return np.arccos(c) ** 2


W0 = np.array([0.3, -0.5, 0.4])
add(G("r18b_rodrigues_angle_roundtrip", so3_log_trace, (W0,), ref=lambda: 2 * W0, tol=1e-9))
add(G("r18b_rodrigues_small_angle_branch", lambda w: np.sum(rodrigues(w) @ np.array([1.0, 2.0, 3.0])),
      (np.array([1e-10, 0.0, 0.0]),), ref=lambda: _small_ref(), tol=1e-9))


def _small_ref():
    # d/dw sum((I + K(w)) v) = d/dw sum(v + w x v) = v x 1
    v = np.array([1.0, 2.0, 3.0])
    return np.cross(v, np.ones(3))


class Link:
    def __init__(self, length, offset=0.0):
        self.length = length
        self.offset = offset

    def transform(self, theta):
        c, s = math.cos(theta + self.offset), math.sin(theta + self.offset)
        return np.array([[c, -s, self.length * c], [s, c, self.length * s], [0.0, 0.0, 1.0]])


class PlanarArm:
    def __init__(self, lengths):
        self.links = [Link(L) for L in lengths]

    @property
    def n(self):
        return len(self.links)

    def fk(self, q):
        T = np.eye(3)
        for link, th in zip(self.links, q):
            T = T @ link.transform(th)
        return T[:2, 2]


ARM = PlanarArm([1.0, 0.8, 0.5])


def reach_cost(q, target):
    return np.sum((ARM.fk(q) - target) ** 2)


Q3 = np.array([0.3, 0.6, -0.4])
TGT = np.array([1.2, 1.1])
add(G("r18b_planar_arm_global_object_method", reach_cost, (Q3, TGT), ref="fd", tol=1e-8))


def fk_planar(q, lengths):
    x = y = 0.0
    phi = 0.0
    for th, L in zip(q, lengths):
        phi = phi + th
        x = x + L * math.cos(phi)
        y = y + L * math.sin(phi)
    return np.array([x, y])


def fk_jac_closed(q, lengths):
    phis = np.cumsum(q)
    J = np.zeros((2, len(q)))
    for i in range(len(q)):
        J[0, i] = -np.sum(lengths[i:] * np.sin(phis[i:]))
        J[1, i] = np.sum(lengths[i:] * np.cos(phis[i:]))
    return J


LENS = np.array([1.0, 0.8, 0.5])
add(pair("r18b_fk_jacfwd_closed", lambda: revsrc.jacfwd(fk_planar)(Q3, LENS), lambda: fk_jac_closed(Q3, LENS), tol=1e-12))
add(pair("r18b_fk_jacrev_closed", lambda: revsrc.jacrev(fk_planar)(Q3, LENS), lambda: fk_jac_closed(Q3, LENS), tol=1e-12))


def ik_damped_newton(target, lengths, q0, lam=1e-2, iters=30):
    q = q0.copy()
    for _ in range(iters):
        e = fk_planar(q, lengths) - target
        if np.sum(e * e) < 1e-24:
            break
        J = fk_jac_closed(q, lengths)
        dq = np.linalg.solve(J.T @ J + lam * np.eye(len(q)), J.T @ e)
        q -= dq
    return q


def ik_loss(target, lengths):
    q = ik_damped_newton(target, lengths, np.array([0.2, 0.5, 0.3]))
    return np.sum(q ** 2)


add(G("r18b_ik_damped_newton_loss_wrt_target", ik_loss, (TGT, LENS), ref="fd", tol=1e-6))
add(G("r18b_ik_damped_newton_loss_wrt_lengths", ik_loss, (TGT, LENS), argnums=1, ref="fd", tol=1e-6))


def dh_transform(a, alpha, d, theta):
    ca, sa, ct, st = np.cos(alpha), np.sin(alpha), np.cos(theta), np.sin(theta)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


DH = [(0.0, math.pi / 2, 0.34), (0.4, 0.0, 0.0), (0.39, 0.0, 0.0), (0.0, math.pi / 2, 0.1)]


def fk_dh(q, dh=DH):
    T = np.eye(4)
    for (a, al, d), th in zip(dh, q):
        T = T @ dh_transform(a, al, d, th)
    return T


def pose_cost(q, p_goal, R_goal):
    T = fk_dh(q)
    pos_err = T[:3, 3] - p_goal
    rot_err = 3.0 - np.trace(R_goal.T @ T[:3, :3])
    return pos_err @ pos_err + 0.5 * rot_err


Q4 = np.array([0.1, -0.4, 0.7, 0.2])
PG = np.array([0.5, 0.1, 0.6])
RG = rodrigues(np.array([0.2, 0.1, -0.3]))
add(G("r18b_dh_chain_pose_cost", pose_cost, (Q4, PG, RG), ref="jax", tol=1e-11))
add(H("r18b_dh_chain_pose_hessian", pose_cost, (Q4, PG, RG), ref="jax", tol=1e-9))
add(pair("r18b_dh_position_jacfwd_of_jacrev_cost",
         lambda: revsrc.jacfwd(revsrc.jacrev(pose_cost))(Q4, PG, RG),
         lambda: jax().hessian(jaxify(pose_cost))(Q4, PG, RG), tol=1e-9))


def traj_cost(waypoints, dt=0.1, w_acc=1.0, w_jerk=0.1):
    # waypoints (N, 2); finite-difference accelerations and jerks
    N = waypoints.shape[0]
    path = np.zeros((N + 2, 2))
    path[0] = np.array([0.0, 0.0])
    path[-1] = np.array([2.0, 1.0])
    path[1:-1] = waypoints
    vel = np.diff(path, axis=0) / dt
    acc = np.diff(vel, axis=0) / dt
    jerk = np.diff(acc, axis=0) / dt
    obst = np.array([1.0, 0.5])
    d2 = np.sum((path - obst) ** 2, axis=1)
    return w_acc * np.sum(acc ** 2) * dt + w_jerk * np.sum(jerk ** 2) * dt + np.sum(np.exp(-d2 / 0.05))


WP = np.stack([np.linspace(0.2, 1.8, 8), np.linspace(0.1, 0.9, 8) + 0.1 * np.sin(np.arange(8))], axis=1)
add(G("r18b_traj_boundary_writes_diff", traj_cost, (WP,), ref="fd", tol=1e-7))
add(pair("r18b_traj_hvp", lambda: revsrc.hvp(traj_cost, (WP,), (np.ones_like(WP),)),
         lambda: (fd_hess_checked(lambda w: traj_cost(w.reshape(8, 2)), (WP.ravel(),)) @ np.ones(16)).reshape(8, 2), tol=1e-5))
add(G("r18b_traj_backend_jax", traj_cost, (WP,), ref="fd", tol=1e-7, backend="jax"))


def rollout_unicycle(u, x0, dt=0.1):
    # u (T, 2): speed, turn rate; state written into a preallocated array
    T = u.shape[0]
    xs = np.zeros((T + 1, 3))
    xs[0] = x0
    for t in range(T):
        px, py, th = xs[t]
        xs[t + 1, 0] = px + dt * u[t, 0] * np.cos(th)
        xs[t + 1, 1] = py + dt * u[t, 0] * np.sin(th)
        xs[t + 1, 2] = th + dt * u[t, 1]
    return xs


def unicycle_cost(u, x0, goal):
    xs = rollout_unicycle(u, x0)
    return np.sum((xs[-1, :2] - goal) ** 2) + 0.01 * np.sum(u ** 2)


U = np.stack([np.full(15, 1.0), 0.2 * np.cos(np.arange(15.0))], axis=1)
X0 = np.array([0.0, 0.0, 0.1])
add(G("r18b_unicycle_rollout_row_unpack", unicycle_cost, (U, X0, np.array([1.5, 0.5])), ref="fd", tol=1e-7))
add(G("r18b_unicycle_wrt_x0", unicycle_cost, (U, X0, np.array([1.5, 0.5])), argnums=1, ref="fd", tol=1e-7))
add(G("r18b_unicycle_backend_jax", unicycle_cost, (U, X0, np.array([1.5, 0.5])), ref="fd", tol=1e-7, backend="jax"))


def shooting_with_aux(u, x0):
    xs = rollout_unicycle(u, x0)
    c = unicycle_cost(u, x0, np.array([1.5, 0.5]))
    return c, {"final": xs[-1], "len": np.sum(np.linalg.norm(np.diff(xs[:, :2], axis=0), axis=1))}


def _shoot_ref():
    c, aux = shooting_with_aux(U, X0)
    return (c, aux), fd_checked(unicycle_cost, (U, X0, np.array([1.5, 0.5])))


add(pair("r18b_shooting_value_and_grad_aux_dict", lambda: revsrc.value_and_grad(shooting_with_aux, has_aux=True)(U, X0),
         _shoot_ref, tol=1e-7))


def link_params_loss(params, q):
    # params: list of dicts per link (length, mass); gravity torque energy of a planar arm
    phi = 0.0
    x = 0.0
    pot = 0.0
    y = 0.0
    for p, th in zip(params, q):
        phi += th
        xc = x + 0.5 * p["L"] * math.cos(phi)
        yc = y + 0.5 * p["L"] * math.sin(phi)
        pot += p["m"] * 9.81 * yc
        x += p["L"] * math.cos(phi)
        y += p["L"] * math.sin(phi)
        del xc
    return pot


PARAMS = [{"L": 1.0, "m": 2.0}, {"L": 0.7, "m": 1.2}, {"L": 0.4, "m": 0.5}]
add(G("r18b_gravity_potential_list_of_dicts_del", link_params_loss, (PARAMS, Q3), ref="fd", tol=1e-7))


def link_params_loss2(params, q):
    phi = 0.0
    y = 0.0
    pot = 0.0
    for p, th in zip(params, q):
        phi += th
        pot += p["m"] * 9.81 * (y + 0.5 * p["L"] * math.sin(phi))
        y += p["L"] * math.sin(phi)
    return pot


add(G("r18b_gravity_potential_list_of_dicts", link_params_loss2, (PARAMS, Q3), ref="fd", tol=1e-7))
add(G("r18b_gravity_torques_wrt_q", link_params_loss2, (PARAMS, Q3), argnums=1, ref="fd", tol=1e-7))
add(pair("r18b_vmap_grad_torques_over_configs",
         lambda: revsrc.vmap(revsrc.grad(link_params_loss2, argnums=1), in_axes=(None, 0))(PARAMS, np.stack([Q3, -Q3, 2 * Q3])),
         lambda: np.stack([fd_checked(link_params_loss2, (PARAMS, q), argnums=1)[0] for q in (Q3, -Q3, 2 * Q3)]), tol=1e-7))


def slerp_cost(t, q0, q1):
    dot = np.clip(np.dot(q0, q1), -1.0, 1.0)
    om = np.arccos(dot)
    q = (np.sin((1 - t) * om) * q0 + np.sin(t * om) * q1) / np.sin(om)
    return q[0] * q[3] - q[1] ** 2


QA = qnormalize(np.array([1.0, 0.2, 0.0, 0.1]))
QB = qnormalize(np.array([0.6, -0.3, 0.5, 0.2]))
add(G("r18b_slerp_wrt_t", slerp_cost, (0.37, QA, QB), ref="jax", tol=1e-11))
add(G("r18b_slerp_wrt_q1", slerp_cost, (0.37, QA, QB), argnums=2, ref="jax", tol=1e-11))

# ---- backend="jax"
add(G("r18b_ik_damped_newton_backend_jax", ik_loss, (TGT, LENS), ref="fd", tol=1e-6, backend="jax"))
add(G("r18b_gravity_potential_iadd_backend_jax", link_params_loss2, (PARAMS, Q3), ref="fd", tol=1e-7, backend="jax"))
add(G("r18b_wahba_backend_jax", attitude_loss, (Q0, VB, VW), ref="jax", tol=1e-11, backend="jax"))
add(G("r18b_slerp_backend_jax", slerp_cost, (0.37, QA, QB), ref="jax", tol=1e-11, backend="jax"))
add(G("r18b_dh_chain_pose_backend_jax", pose_cost, (Q4, PG, RG), ref="jax", tol=1e-11, backend="jax"))


def ik_loss_pre_bound(target, lengths):
    # the same damped Newton with every loop variable bound before the loop
    q = np.array([0.2, 0.5, 0.3])
    e = fk_planar(q, lengths) - target
    for _ in range(30):
        if np.sum(e * e) < 1e-24:
            break
        J = fk_jac_closed(q, lengths)
        q = q - np.linalg.solve(J.T @ J + 1e-2 * np.eye(3), J.T @ e)
        e = fk_planar(q, lengths) - target
    return np.sum(q ** 2)


add(G("r18b_ik_pre_bound_loop_vars", ik_loss_pre_bound, (TGT, LENS), ref="fd", tol=1e-6))
add(G("r18b_ik_pre_bound_loop_vars_backend_jax", ik_loss_pre_bound, (TGT, LENS), ref="fd", tol=1e-6, backend="jax"))


def ik_loss_all_bound(target, lengths):
    # every variable the loop assigns is bound (to an array) before it
    q = np.array([0.2, 0.5, 0.3])
    e = fk_planar(q, lengths) - target
    J = fk_jac_closed(q, lengths)
    for _ in range(30):
        if np.sum(e * e) < 1e-24:
            break
        J = fk_jac_closed(q, lengths)
        q = q - np.linalg.solve(J.T @ J + 1e-2 * np.eye(3), J.T @ e)
        e = fk_planar(q, lengths) - target
    return np.sum(q ** 2)


add(G("r18b_ik_all_bound_loop_vars_backend_jax", ik_loss_all_bound, (TGT, LENS), ref="fd", tol=1e-6, backend="jax"))
