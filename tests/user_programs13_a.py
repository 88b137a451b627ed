"""Round 13, part a: robotics -- planar and 3-D forward kinematics with rotation matrices,
inverse kinematics by damped least squares in a while loop, end-effector Jacobians."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append

LINKS = np.array([1.0, 0.8, 0.5])


def rot2(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s], [s, c]])


def fk_planar(q, L=LINKS):
    R = np.eye(2)
    p = np.zeros(2)
    for qi, li in zip(q, L):
        R = R @ rot2(qi)
        p = p + R @ np.array([li, 0.0])
    return p


def fk_closed(q, L=LINKS):
    a = np.cumsum(q)
    return np.array([np.sum(L * np.cos(a)), np.sum(L * np.sin(a))])


Q3 = np.array([0.3, -0.5, 0.9])
add(pair("r13_fk_planar_value", lambda: revsrc.jit(fk_planar)(Q3) if False else fk_planar(Q3),
         lambda: fk_closed(Q3), tol=1e-12))
add(pair("r13_fk_planar_jacfwd", lambda: revsrc.jacfwd(fk_planar)(Q3), lambda: fdj(fk_closed, Q3), tol=1e-7))
add(pair("r13_fk_planar_jacrev", lambda: revsrc.jacrev(fk_planar)(Q3), lambda: fdj(fk_closed, Q3), tol=1e-7))
add(pair("r13_fk_planar_jacobian_links", lambda: revsrc.jacobian(fk_planar, argnums=1)(Q3, LINKS),
         lambda: fdj(lambda L: fk_closed(Q3, L), LINKS), tol=1e-7))


def reach_loss(q, target):
    p = fk_planar(q)
    d = p - target
    return d @ d


TGT = np.array([1.2, 1.1])
add(VG("r13_reach_loss_vg", reach_loss, (Q3, TGT), ref="ag", tol=1e-9))
add(H("r13_reach_loss_hessian", reach_loss, (Q3, TGT), ref="ag", tol=1e-8))
add(pair("r13_reach_loss_hvp", lambda: revsrc.hvp(lambda q: reach_loss(q, TGT), (Q3,), (np.array([1.0, 0.5, -0.2]),)),
         lambda: ag()[0].hessian_vector_product(lambda q: agify(reach_loss)(q, TGT))(Q3, np.array([1.0, 0.5, -0.2])),
         tol=1e-8))


# -- damped least squares IK in a while loop; the gradient of the solution wrt the target --

def ik_dls(target, q0=np.array([0.2, 0.4, 0.3]), lam=1e-3, tol=1e-12, maxit=200):
    q = q0.copy()
    it = 0
    err = fk_closed(q) - target
    while err @ err > tol and it < maxit:
        a = np.cumsum(q)
        J = np.zeros((2, 3))
        for i in range(3):
            J[0, i] = -np.sum(LINKS[i:] * np.sin(a[i:]))
            J[1, i] = np.sum(LINKS[i:] * np.cos(a[i:]))
        dq = J.T @ np.linalg.solve(J @ J.T + lam * np.eye(2), err)
        q = q - dq
        err = fk_closed(q) - target
        it += 1
    return q


def ik_cost(target):
    q = ik_dls(target)
    return np.sum(q * q) + q[0]


add(G("r13_ik_dls_cost", ik_cost, (TGT,), ref="fd", tol=1e-5, h=1e-6, check=1e-3))
add(pair("r13_ik_dls_value", lambda: revsrc.value_and_grad(ik_cost)(TGT)[0], lambda: ik_cost(TGT), tol=1e-12))


# -- 3-D: Rodrigues rotation, a 3-link spatial arm, the end point's distance --------------

def rodrigues(w):
    th = math.sqrt(w[0] ** 2 + w[1] ** 2 + w[2] ** 2)
    if th < 1e-9:
        return np.eye(3)
    k = w / th
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * (K @ K)


def arm3d(ws):
    R = np.eye(3)
    p = np.zeros(3)
    for k in range(ws.shape[0]):
        R = R @ rodrigues(ws[k])
        p = p + R @ np.array([0.0, 0.0, 1.0])
    return p


WS = np.array([[0.1, 0.2, 0.3], [0.0, -0.4, 0.1], [0.5, 0.1, -0.2]])
add(pair("r13_arm3d_jacrev", lambda: revsrc.jacrev(arm3d)(WS), lambda: fdj(arm3d, WS), tol=1e-7))
add(pair("r13_arm3d_jacfwd", lambda: revsrc.jacfwd(arm3d)(WS), lambda: fdj(arm3d, WS), tol=1e-7))
add(G("r13_arm3d_height", lambda ws: arm3d(ws)[2], (WS,), ref="ag", tol=1e-9))
WZ = np.array([[0.0, 0.0, 0.0], [0.0, -0.4, 0.1], [0.5, 0.1, -0.2]])
# the zero-rotation branch: rodrigues returns eye(3), so row 0 of the gradient is 0
add(G("r13_arm3d_zero_branch", lambda ws: arm3d(ws)[0], (WZ,), ref=lambda: np.vstack(
    [np.zeros(3), fd_checked(lambda w: arm3d(np.vstack([WZ[:1], w]))[0], (WZ[1:],))[0]]), tol=1e-7))


def rot_det_orth(w):
    R = rodrigues(w)
    return np.linalg.det(R) + np.sum((R.T @ R - np.eye(3)) ** 2)


# d/dw of det(R) + ||R^T R - I||^2 is 0 for a rotation
add(pair("r13_rotation_invariants_grad", lambda: revsrc.grad(rot_det_orth)(np.array([0.3, -0.2, 0.7])),
         lambda: np.zeros(3), tol=1e-10))


# -- a planar arm as a class with a property for the end effector ---------------------------

class Arm:
    def __init__(self, lengths):
        self.lengths = lengths

    def angles(self, q):
        return np.cumsum(q)

    def tip(self, q):
        a = self.angles(q)
        return np.array([self.lengths @ np.cos(a), self.lengths @ np.sin(a)])

    @property
    def reach(self):
        return float(np.sum(self.lengths))


ARM = Arm(LINKS)


def arm_obj_loss(q, arm):
    t = arm.tip(q)
    return (t[0] - 0.5 * arm.reach) ** 2 + t[1] ** 2


add(G("r13_arm_class_property", arm_obj_loss, (Q3, ARM), ref=lambda: fd_checked(
    lambda q: arm_obj_loss(q, ARM), (Q3,))[0], tol=1e-7))
add(G("r13_arm_bound_method_jacobian_row", lambda q: ARM.tip(q)[1], (Q3,), ref="fd"))


# -- manipulability sqrt(det(J J^T)) ------------------------------------------------------

def jac_closed(q):
    a = np.cumsum(q)
    J = np.empty((2, 3))
    for i in range(3):
        J[0, i] = -np.sum(LINKS[i:] * np.sin(a[i:]))
        J[1, i] = np.sum(LINKS[i:] * np.cos(a[i:]))
    return J


def manipulability(q):
    J = jac_closed(q)
    return math.sqrt(np.linalg.det(J @ J.T))


add(VG("r13_manipulability", manipulability, (Q3,), ref="fd"))
# Jacobian from revsrc.jacfwd used inside the loss
add(pair("r13_manipulability_via_jacfwd",
         lambda: revsrc.grad(lambda q: math.sqrt(np.linalg.det(revsrc.jacfwd(fk_closed)(q) @ revsrc.jacfwd(fk_closed)(q).T)))(Q3),
         lambda: fd_checked(manipulability, (Q3,))[0], tol=1e-6))

QS = np.array([[0.3, -0.5, 0.9], [0.1, 0.2, 0.3], [1.0, -1.0, 0.5], [0.0, 0.4, -0.3]])
add(pair("r13_reach_vmap_grad_batch",
         lambda: revsrc.vmap(revsrc.grad(reach_loss), in_axes=(0, None))(QS, TGT),
         lambda: np.array([ag()[0].grad(agify(reach_loss))(q, TGT) for q in QS]), tol=1e-9))
add(pair("r13_reach_jax_backend", lambda: revsrc.grad(reach_loss, backend="jax")(Q3, TGT),
         lambda: ag()[0].grad(agify(reach_loss))(Q3, TGT), tol=1e-9))
add(JV("r13_fk_jvp", fk_planar, (Q3,), (np.array([1.0, 0.0, -1.0]),)))


def wrap_angle_err(q, goal):
    e = np.sum(q) - goal
    e = (e + math.pi) % (2 * math.pi) - math.pi
    return e * e


add(G("r13_wrap_angle_mod", wrap_angle_err, (Q3, 5.0), ref=lambda: 2 * ((np.sum(Q3) - 5.0 + math.pi) % (2 * math.pi) - math.pi) * np.ones(3), tol=1e-10))


# -- minimal: a helper's ndarray default argument, left out at the call ------------------
L0 = np.array([1.0, 0.8])


def dot_default(q, L=L0):
    return np.sum(q * L)


def calls_default(q):
    return dot_default(q)


add(pair("r13_default_array_arg_helper", lambda: revsrc.grad(calls_default)(np.array([0.3, 0.5])), lambda: L0, tol=1e-12))
add(pair("r13_default_array_arg_direct", lambda: revsrc.grad(dot_default)(np.array([0.3, 0.5])), lambda: L0, tol=1e-12))
add(pair("r13_default_array_arg_passed", lambda: revsrc.grad(lambda q: dot_default(q, L0))(np.array([0.3, 0.5])),
         lambda: L0, tol=1e-12))
