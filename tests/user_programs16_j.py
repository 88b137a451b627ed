"""Round 16, part j: more compositions -- reverse over reverse through arrays built from
rows and items, has_aux, memory= checkpointing of long state loops, vmap out_axes and
in_axes on pytrees, jvp with pytree tangents, hessians of dict arguments."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append
A3 = np.array([0.2, -0.4, 0.7])


def rows_matrix(a):
    return np.sum(np.array([a, 2.0 * a]) ** 3)


add(pair("r16_jacrev_grad_array_of_rows", lambda: revsrc.jacrev(revsrc.grad(rows_matrix))(A3),
         lambda: np.diag(6 * A3 * 9), tol=1e-12))


def det2_mixed(a):
    return np.linalg.det(np.array([[1.0 + a[0], a[1]], [a[1], 2.0 + a[2]]]))


add(pair("r16_jacrev_grad_det_of_literal", lambda: revsrc.jacrev(revsrc.grad(det2_mixed))(A3),
         lambda: np.array([[0.0, 0.0, 1.0], [0.0, -2.0, 0.0], [1.0, 0.0, 0.0]]), tol=1e-12))
add(pair("r16_hessian_det_of_literal", lambda: revsrc.hessian(det2_mixed)(A3),
         lambda: np.array([[0.0, 0.0, 1.0], [0.0, -2.0, 0.0], [1.0, 0.0, 0.0]]), tol=1e-12))


def asarray_items(a):
    return np.sum(np.asarray([a[0] * a[1], a[2]]) ** 3)


add(pair("r16_jacrev_grad_1d_items", lambda: revsrc.jacrev(revsrc.grad(asarray_items))(A3),
         lambda: ag()[0].hessian(agify(asarray_items))(A3), tol=1e-12))


def loss_aux(w, x):
    r = np.tanh(x @ w)
    return np.sum(r ** 2), {"max": np.max(r), "n": 3}


XA = np.array([[0.5, -0.2], [1.0, 0.3], [-0.4, 0.8]])
W2 = np.array([0.7, -1.1])


def _aux_ref():
    r = np.tanh(XA @ W2)
    g = XA.T @ (2 * r * (1 - r ** 2))
    return (np.sum(r ** 2), {"max": np.max(r), "n": 3}), g


add(pair("r16_value_and_grad_has_aux_dict", lambda: revsrc.value_and_grad(loss_aux, has_aux=True)(W2, XA), _aux_ref, tol=1e-12))
add(pair("r16_jacfwd_has_aux", lambda: revsrc.jacfwd(lambda w, x: (np.tanh(x @ w), np.sum(w)), has_aux=True)(W2, XA),
         lambda: (XA * (1 - np.tanh(XA @ W2) ** 2)[:, None], np.sum(W2)), tol=1e-12))


def long_state_loop(p, n=400):
    s = np.array([1.0, 0.0, 0.5])
    for _ in range(n):
        s = s + 0.01 * np.array([s[1], -p[0] * s[0] - p[1] * s[1], math.sin(s[0]) - p[2] * s[2]])
    return np.sum(s ** 2)


PL = np.array([1.5, 0.2, 0.3])
add(pair("r16_memory_checkpoint_equals_stored", lambda: revsrc.grad(long_state_loop, memory=64)(PL),
         lambda: revsrc.grad(long_state_loop)(PL), tol=0.0))
add(pair("r16_memory_checkpoint_vs_ag", lambda: revsrc.grad(long_state_loop, memory=64)(PL),
         lambda: ag()[0].grad(agify(long_state_loop))(PL), tol=1e-9))
add(pair("r16_hessian_memory_checkpoint", lambda: revsrc.hessian(long_state_loop, memory=64)(PL),
         lambda: revsrc.hessian(long_state_loop)(PL), tol=1e-12))


def pair_out(x, y):
    return np.array([x * y, x + y])


add(pair("r16_vmap_out_axes_1", lambda: revsrc.vmap(pair_out, out_axes=1)(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5, 2.0])),
         lambda: np.array([[0.5, 1.0, 6.0], [1.5, 2.5, 5.0]]), tol=0.0))


def dict_in(p):
    return p["a"] * np.sum(p["v"] ** 2)


PD = {"a": np.array([1.0, 2.0]), "v": np.array([[1.0, 2.0], [0.5, 0.5]])}
add(pair("r16_vmap_dict_argument", lambda: revsrc.vmap(dict_in)(PD), lambda: np.array([5.0, 1.0]), tol=0.0))
add(pair("r16_vmap_dict_in_axes_per_key", lambda: revsrc.vmap(dict_in, in_axes=({"a": 0, "v": None},))(PD),
         lambda: np.array([5.5, 11.0]), tol=0.0))


def tree_fn(p):
    return p["w"] * math.sin(p["b"]) + p["w"] ** 2


PT = {"w": 1.5, "b": 0.3}
add(pair("r16_jvp_dict_tangent", lambda: revsrc.jvp(tree_fn, (PT,), ({"w": 1.0, "b": 2.0},)),
         lambda: (tree_fn(PT), math.sin(0.3) + 3.0 + 2.0 * 1.5 * math.cos(0.3)), tol=1e-12))
add(pair("r16_hessian_dict_argument", lambda: revsrc.hessian(tree_fn)(PT),
         lambda: {"w": {"w": 2.0, "b": math.cos(0.3)}, "b": {"w": math.cos(0.3), "b": -1.5 * math.sin(0.3)}}, tol=1e-12))


def kw_fn(x, *, scale=2.0, power=3):
    return scale * x ** power


add(pair("r16_grad_keyword_only_args", lambda: revsrc.grad(kw_fn)(1.5, scale=4.0, power=2), lambda: 4.0 * 2 * 1.5, tol=1e-12))
add(pair("r16_vmap_scalar_builds_array_jit_refused", lambda: revsrc.jit(lambda t: float(np.sum(np.array([t, t * t]))))(2.0),
         lambda: 6.0, tol=0.0))


def cplx_poly(z):
    return z ** 3 + 2.0 * z


add(pair("r16_grad_holomorphic_scalar_complex", lambda: revsrc.grad(cplx_poly, holomorphic=True)(1.0 + 2.0j),
         lambda: 3 * (1.0 + 2.0j) ** 2 + 2.0, tol=1e-12))
add(pair("r16_hessian_holomorphic_scalar_complex", lambda: revsrc.hessian(cplx_poly, holomorphic=True)(1.0 + 2.0j),
         lambda: 6 * (1.0 + 2.0j), tol=1e-12))
add(pair("r16_grad_complex_without_holomorphic", lambda: revsrc.grad(cplx_poly)(1.0 + 2.0j), lambda: None))


def abs2(z):
    return np.sum(np.abs(z) ** 2)


ZC = np.array([1.0 + 2.0j, -0.5 + 0.5j])
add(pair("r16_grad_real_of_complex_input", lambda: revsrc.grad(abs2)(ZC), lambda: 2 * np.conj(ZC), tol=1e-12))


def vmapped_jacfwd_state(p):
    s = np.array([p, 0.0, 1.0])
    for _ in range(10):
        s = np.array([s[1], s[2], 0.5 * s[0] - 0.1 * s[2] * s[2]])
    return s


add(pair("r16_vmap_jacfwd_scalar_to_vector", lambda: revsrc.vmap(revsrc.jacfwd(vmapped_jacfwd_state))(np.array([0.5, 1.0, 2.0])),
         lambda: np.array([fdj(lambda v: vmapped_jacfwd_state(float(v)), p) for p in (0.5, 1.0, 2.0)]), tol=1e-7))
add(pair("r16_vmap_jacrev_scalar_to_vector", lambda: revsrc.vmap(revsrc.jacrev(vmapped_jacfwd_state))(np.array([0.5, 1.0, 2.0])),
         lambda: np.array([fdj(lambda v: vmapped_jacfwd_state(float(v)), p) for p in (0.5, 1.0, 2.0)]), tol=1e-7))
add(pair("r16_vmap_of_scalar_building_arrays_in_loop", lambda: revsrc.vmap(vmapped_jacfwd_state)(np.array([0.5, 1.0])),
         lambda: np.array([vmapped_jacfwd_state(0.5), vmapped_jacfwd_state(1.0)]), tol=0.0))
