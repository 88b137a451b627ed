"""Round 14, part u: NumPy functions with batched shapes and second derivatives -- np.where
guarding a nan branch at first and second order, batched solve/inv/det, einsum with
ellipsis, tensordot, matmul of 3-d stacks, select, piecewise, clip with differentiated
bounds, polyval, convolve, cross, matrix_power, put_along_axis, broadcast unbroadcasting."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

XW = np.array([-1.0, 0.5, 2.0, -0.2])


def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x) * (x > 0) + (x <= 0)) * (x > 0) + 0 * x, x ** 2))


def where_sqrt_plain(x):
    return np.sum(np.where(x > 0, np.sqrt(x), x ** 2))


add(G("r14_u_where_sqrt_nan_branch", where_sqrt_plain, (XW,), ref=lambda: np.where(XW > 0, 0.5 / np.sqrt(np.abs(XW)), 2 * XW), tol=1e-14))
add(H("r14_u_where_sqrt_nan_branch_hessian", where_sqrt_plain, (XW,), ref=lambda: np.diag(np.where(XW > 0, -0.25 * np.abs(XW) ** -1.5, 2.0)), tol=1e-13))
add(pair("r14_u_where_sqrt_vmap_grad", lambda: revsrc.vmap(revsrc.grad(lambda v: where_sqrt_plain(np.array([v]))))(XW),
         lambda: np.where(XW > 0, 0.5 / np.sqrt(np.abs(XW)), 2 * XW), tol=1e-14))
add(pair("r14_u_where_log_grad_grad_scalar", lambda: revsrc.grad(revsrc.grad(lambda x: np.where(x > 0, np.log(x), -x)))(-2.0), lambda: 0.0, tol=0.0))

A3 = np.array([[[2.0, 0.3, 0.1], [0.2, 1.5, -0.3], [0.0, 0.4, 1.8]], [[1.0, 0.5, 0.0], [0.1, 2.0, 0.2], [0.3, 0.0, 1.2]]])
B3 = np.array([[1.0, -1.0, 0.5], [0.2, 0.3, 0.4]])


def batched_linalg(A, b):
    x = np.linalg.solve(A, b[..., None])[..., 0]
    Ai = np.linalg.inv(A)
    d = np.linalg.det(A)
    return np.sum(x ** 2) + np.sum(Ai[:, 0, :]) + np.sum(np.log(d))


add(G("r14_u_batched_solve_inv_det_wrt_A", batched_linalg, (A3, B3), ref="fd", tol=1e-7))
add(G("r14_u_batched_solve_inv_det_wrt_b", batched_linalg, (A3, B3), argnums=1, ref="fd", tol=1e-7))


def einsum_ellipsis(A, B):
    C = np.einsum("...ij,...jk->...ik", A, B)
    return np.sum(C ** 2) + np.einsum("bii->", C)


add(G("r14_u_einsum_ellipsis_batched", einsum_ellipsis, (A3, np.transpose(A3, (0, 2, 1))), ref="fd", tol=1e-7))


def tensordot_matmul(A, v):
    T = np.tensordot(A, v, axes=([2], [0]))       # (2, 3)
    M = A @ A                                       # batched (2, 3, 3)
    return np.sum(T ** 2) + np.sum(M[:, :, 0]) + np.sum(np.matmul(A, v))


add(G("r14_u_tensordot_batched_matmul", tensordot_matmul, (A3, B3[0]), ref="fd", tol=1e-7))
add(G("r14_u_tensordot_batched_matmul_wrt_v", tensordot_matmul, (A3, B3[0]), argnums=1, ref="fd", tol=1e-7))


def select_piecewise(x):
    a = np.select([x < -0.5, x < 1.0], [x ** 2, np.sin(x)], default=3.0 * x)
    b = np.piecewise(x, [x < 0, x >= 0], [lambda t: -t, lambda t: t ** 3])
    return np.sum(a) + np.sum(b)


add(G("r14_u_select_piecewise", select_piecewise, (XW,), ref=lambda: np.where(XW < -0.5, 2 * XW, np.where(XW < 1.0, np.cos(XW), 3.0))
      + np.where(XW < 0, -1.0, 3 * XW ** 2), tol=1e-14))


def clip_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2)


add(pair("r14_u_clip_grad_wrt_bounds", lambda: revsrc.grad(clip_bounds, argnums=(1, 2))(XW, -0.5, 1.0),
         lambda: (2 * -0.5 * 1.0, 2 * 1.0 * 1.0), tol=1e-14))
add(pair("r14_u_clip_grad_wrt_array_bounds", lambda: revsrc.grad(clip_bounds, argnums=1)(XW, np.array([-0.5, 0.0, 0.0, 0.0]), 1.0),
         lambda: np.array([-1.0, 0.0, 0.0, 0.0]), tol=1e-14))


def poly_fit(c, x):
    return np.sum(np.polyval(c, x) ** 2)


add(G("r14_u_polyval_wrt_coeffs", poly_fit, (np.array([0.5, -1.0, 2.0]), XW), ref="fd", tol=1e-8))
add(G("r14_u_polyval_wrt_x", poly_fit, (np.array([0.5, -1.0, 2.0]), XW), argnums=1, ref="fd", tol=1e-8))


def conv_cross(x, k):
    y = np.convolve(x, k)
    c = np.cross(x[:3], k)
    return np.sum(y ** 2) + np.sum(c * np.array([1.0, 2.0, 3.0]))


add(G("r14_u_convolve_full_cross", conv_cross, (XW, np.array([0.5, 1.0, -0.5])), ref="fd", tol=1e-8))
add(G("r14_u_convolve_full_cross_wrt_kernel", conv_cross, (XW, np.array([0.5, 1.0, -0.5])), argnums=1, ref="fd", tol=1e-8))


def matrix_power_trace(A):
    return np.trace(np.linalg.matrix_power(A, 3)) + np.trace(np.linalg.matrix_power(A, 0))


add(G("r14_u_matrix_power", matrix_power_trace, (A3[0],), ref=lambda: 3 * np.linalg.matrix_power(A3[0], 2).T, tol=1e-12))


def put_along(X):
    Y = X.copy()
    idx = np.argmax(X, axis=1)[:, None]
    np.put_along_axis(Y, idx, 0.0, axis=1)
    return np.sum(Y ** 2)


add(G("r14_u_put_along_axis_zero_max", put_along, (B3,), ref=lambda: np.where(B3 == B3.max(axis=1, keepdims=True), 0.0, 2 * B3), tol=1e-14))


def unbroadcast(a, b, s):
    return np.sum((a[:, None] * b[None, :] + s) ** 2) + np.sum(np.ones((2, 3, 4)) * b)


add(pair("r14_u_unbroadcast_argnums_all", lambda: revsrc.grad(unbroadcast, argnums=(0, 1, 2))(np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0, 0.1]), 0.3),
         lambda: tuple(fd_checked(unbroadcast, (np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0, 0.1]), 0.3), argnums=(0, 1, 2))), tol=1e-8))


def keepdims_norm(X):
    Z = X / np.linalg.norm(X, axis=1, keepdims=True)
    return np.sum(Z @ Z.T)


add(G("r14_u_row_normalize_keepdims", keepdims_norm, (B3,), ref="fd", tol=1e-8))
add(H("r14_u_row_normalize_hessian", keepdims_norm, (B3,), ref="fd", tol=1e-5))


def flat_assign(x):
    A = np.zeros((2, 2))
    A.flat[[0, 3]] = x[:2]
    A.flat[1] = x[2] * 2.0
    return np.sum(A @ A)


add(G("r14_u_flat_fancy_assign", flat_assign, (XW,), ref="fd", tol=1e-8))
