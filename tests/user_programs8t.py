"""Round 8 user programs, batch t: Jacobians and linearizations with containers and
matrices (dict outputs and inputs, jvp/linearize of dicts, a matrix function's 4-d
Jacobian, a curve's velocity and acceleration, vjp of a tuple output), checked
against closed forms."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair  # noqa: F401

CASES = []
add = CASES.append
XT = np.array([0.3, -0.2, 0.5])


def dict_output(x):
    return {"a": x ** 2, "b": np.sum(x)}


add(pair("r8_jacfwd_dict_output", lambda: revsrc.jacfwd(dict_output)(XT), lambda: {"a": np.diag(2 * XT), "b": np.ones(3)}, tol=1e-12))
add(pair("r8_jacrev_dict_output", lambda: revsrc.jacrev(dict_output)(XT), lambda: {"a": np.diag(2 * XT), "b": np.ones(3)}, tol=1e-12))


def dict_input(p):
    return p["w"] * p["s"]


add(pair("r8_jacrev_dict_input", lambda: revsrc.jacrev(dict_input)({"w": XT, "s": 2.0}), lambda: {"w": 2 * np.eye(3), "s": XT}, tol=1e-12))
add(pair("r8_jvp_dict_input", lambda: revsrc.jvp(dict_input, ({"w": XT, "s": 2.0},), ({"w": np.ones(3), "s": 1.0},)),
         lambda: (2 * XT, 2 * np.ones(3) + XT), tol=1e-12))
add(pair("r8_linearize_dict_input", lambda: revsrc.linearize(dict_input, {"w": XT, "s": 2.0})[1]({"w": np.ones(3), "s": 1.0}),
         lambda: 2 * np.ones(3) + XT, tol=1e-12))


def mat_square(A):
    return A @ A


AT = np.array([[1.0, 2.0], [0.5, -1.0]])


def _mat_jac():
    J = np.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            E = np.zeros((2, 2))
            E[i, j] = 1
            J[:, :, i, j] = E @ AT + AT @ E
    return J


add(pair("r8_jacfwd_matrix_square_4d", lambda: revsrc.jacfwd(mat_square)(AT), _mat_jac, tol=1e-12))
add(pair("r8_jacrev_matrix_square_4d", lambda: revsrc.jacrev(mat_square)(AT), _mat_jac, tol=1e-12))
add(pair("r8_jacobian_matrix_square_4d", lambda: revsrc.jacobian(mat_square)(AT), _mat_jac, tol=1e-12))


def curve(t):
    return np.array([math.cos(t), math.sin(t), t])


add(pair("r8_jacfwd_curve_velocity", lambda: revsrc.jacfwd(curve)(0.4), lambda: np.array([-math.sin(0.4), math.cos(0.4), 1.0]), tol=1e-12))
add(pair("r8_jacrev_curve_velocity", lambda: revsrc.jacrev(curve)(0.4), lambda: np.array([-math.sin(0.4), math.cos(0.4), 1.0]), tol=1e-12))
add(pair("r8_jacfwd_of_jacrev_curve_acceleration", lambda: revsrc.jacfwd(revsrc.jacrev(curve))(0.4),
         lambda: np.array([-math.cos(0.4), -math.sin(0.4), 0.0]), tol=1e-12))


def tuple_output(x):
    return x * 2, np.sum(x)


add(pair("r8_vjp_tuple_output_cotangent_tuple", lambda: revsrc.vjp(tuple_output, XT)[1]((np.ones(3), 2.0)), lambda: (np.full(3, 4.0),), tol=1e-12))
