"""Round 15, part y: Jacobians and Hessians through the batched columns (one forward
run for every basis direction, one adjoint run for every output row) -- sort, argsort
gathers, repeated fancy indices, max over an axis with ties, median, solve, cumsum,
np.where on values, and a Hessian whose program branches on the value."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append
X5 = np.array([0.7, -1.2, 2.5, 0.1, 1.9])


def sorted_w(x):
    return np.sort(x) * np.arange(1.0, 6.0)


P = np.argsort(X5)
JS = np.zeros((5, 5))
JS[np.arange(5), P] = np.arange(1.0, 6.0)
add(pair("r15_jacfwd_sort", lambda: revsrc.jacfwd(sorted_w)(X5), lambda: JS, tol=1e-14))
add(pair("r15_jacrev_sort", lambda: revsrc.jacrev(sorted_w)(X5), lambda: JS, tol=1e-14))


def gather_rep(x):
    idx = np.array([0, 2, 2, 4, 0, 1])
    return x[idx] ** 2


def _gather_ref():
    idx = np.array([0, 2, 2, 4, 0, 1])
    J = np.zeros((6, 5))
    J[np.arange(6), idx] = 2 * X5[idx]
    return J


add(pair("r15_jacfwd_repeated_fancy_gather", lambda: revsrc.jacfwd(gather_rep)(X5), _gather_ref, tol=1e-14))
add(pair("r15_jacrev_repeated_fancy_gather", lambda: revsrc.jacrev(gather_rep)(X5), _gather_ref, tol=1e-14))


def max_axis_ties(x):
    M = np.stack([x, x[::-1], np.full(5, 0.7)])
    return np.max(M, axis=0)


add(pair("r15_jacfwd_max_axis_with_ties", lambda: revsrc.jacfwd(max_axis_ties)(X5), lambda: jax().jacfwd(jaxify(max_axis_ties))(X5), tol=1e-14))
add(pair("r15_jacrev_max_axis_with_ties", lambda: revsrc.jacrev(max_axis_ties)(X5), lambda: jax().jacrev(jaxify(max_axis_ties))(X5), tol=1e-14))


def median_fn(x):
    return np.array([np.median(x), np.median(x[:4])])


add(pair("r15_jacfwd_median_even_odd", lambda: revsrc.jacfwd(median_fn)(X5), lambda: fdj(median_fn, X5), tol=1e-7))


def solve_fn(b):
    A = np.array([[3.0, 1.0, 0.0, 0.0, 0.0], [1.0, 4.0, 1.0, 0.0, 0.0], [0.0, 1.0, 5.0, 1.0, 0.0],
                  [0.0, 0.0, 1.0, 3.0, 1.0], [0.0, 0.0, 0.0, 1.0, 2.0]])
    return np.linalg.solve(A, b * b)


add(pair("r15_jacfwd_solve_rhs", lambda: revsrc.jacfwd(solve_fn)(X5), lambda: fdj(solve_fn, X5), tol=1e-7))
add(pair("r15_jacrev_solve_rhs", lambda: revsrc.jacrev(solve_fn)(X5), lambda: fdj(solve_fn, X5), tol=1e-7))


def cumsum_where(x):
    c = np.cumsum(x)
    return np.where(c > 1.0, c ** 2, -c)


add(pair("r15_jacfwd_cumsum_where", lambda: revsrc.jacfwd(cumsum_where)(X5), lambda: fdj(cumsum_where, X5), tol=1e-7))
add(pair("r15_jacrev_cumsum_where", lambda: revsrc.jacrev(cumsum_where)(X5), lambda: fdj(cumsum_where, X5), tol=1e-7))


def branch_on_value(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s = s + x[i] ** 3
        else:
            s = s + np.sin(x[i]) * x[(i + 1) % 5]
    return s


add(H("r15_hessian_branch_per_element", branch_on_value, (X5,), ref="ag", tol=1e-12))
add(pair("r15_jacfwd_of_grad_branch_per_element", lambda: revsrc.jacfwd(revsrc.grad(branch_on_value))(X5),
         lambda: ag()[0].hessian(agify(branch_on_value))(X5), tol=1e-12))
add(pair("r15_jacrev_of_grad_branch_per_element", lambda: revsrc.jacrev(revsrc.grad(branch_on_value))(X5),
         lambda: ag()[0].hessian(agify(branch_on_value))(X5), tol=1e-12))


def item_assign_out(x):
    y = np.zeros(4)
    y[0] = x[0] * x[1]
    y[1:3] = x[2:4] ** 2
    y[3] = np.sum(y[:3])
    return y


add(pair("r15_jacfwd_item_assign_output", lambda: revsrc.jacfwd(item_assign_out)(X5), lambda: fdj(item_assign_out, X5), tol=1e-7))
add(pair("r15_jacrev_item_assign_output", lambda: revsrc.jacrev(item_assign_out)(X5), lambda: fdj(item_assign_out, X5), tol=1e-7))


def list_output(x):
    return [np.sum(x ** 2), x[0] * x[1]]


add(pair("r15_jacrev_list_output", lambda: revsrc.jacrev(list_output)(X5),
         lambda: [2 * X5, np.array([X5[1], X5[0], 0.0, 0.0, 0.0])], tol=1e-14))


def matrix_out(A):
    return A @ A.T


A23 = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0]])
add(pair("r15_jacfwd_matrix_to_matrix", lambda: revsrc.jacfwd(matrix_out)(A23), lambda: fdj(matrix_out, A23), tol=1e-7))
add(pair("r15_jacrev_matrix_to_matrix", lambda: revsrc.jacrev(matrix_out)(A23), lambda: fdj(matrix_out, A23), tol=1e-7))
add(pair("r15_hessian_matrix_arg_float32_scalar", lambda: revsrc.hessian(lambda A, s: np.sum((A * s) ** 3))(A23, np.float32(1.0)),
         lambda: np.einsum("ij,ik,jl->ijkl", 6 * A23, np.eye(2), np.eye(3)), tol=1e-6))
