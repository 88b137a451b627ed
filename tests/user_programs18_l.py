"""Round 18, part l: higher-order derivatives and compositions -- hessian of physics
potentials, jacfwd(jacrev) and jacrev(jacfwd), grad of grad of scalar programs, jit of
scalar loops and of their derivatives, vmap of grad with in_axes, hvp, linearize and
vjp reuse, backend="jax" of earlier programs, misuse (bad argnums, wrong tangents,
non-scalar outputs) and edge values (0, inf, nan, empty and 0-d arrays, ints)."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_r = np.random.default_rng(1805)


# -- Lennard-Jones cluster: hessian, jacfwd(jacrev), jacrev(jacfwd) ---------------------

def lj_energy(x, eps=1.0, sig=1.0):
    X = x.reshape(-1, 3)
    E = 0.0
    n = X.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            r2 = d @ d
            s6 = (sig * sig / r2) ** 3
            E += 4 * eps * (s6 * s6 - s6)
    return E


XLJ = np.array([[0.0, 0.0, 0.0], [1.12, 0.0, 0.0], [0.56, 0.97, 0.0], [0.5, 0.3, 0.9]]).ravel()
add(H("r18l_lj_cluster_hessian", lj_energy, (XLJ,), ref="jax", tol=1e-8))
add(pair("r18l_lj_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(lj_energy))(XLJ),
         lambda: jax().hessian(jaxify(lj_energy))(XLJ), tol=1e-8))
add(pair("r18l_lj_jacrev_jacfwd", lambda: revsrc.jacrev(revsrc.jacfwd(lj_energy))(XLJ),
         lambda: jax().hessian(jaxify(lj_energy))(XLJ), tol=1e-8))
add(pair("r18l_lj_hessian_translation_zero_modes",
         lambda: revsrc.hessian(lj_energy)(XLJ) @ np.tile([1.0, 0.0, 0.0], 4),
         lambda: np.zeros(12), tol=1e-8))


# -- grad of grad of scalar programs; third derivative -------------------------------------

def morse(r, D=2.0, a=1.3, r0=1.0):
    e = math.exp(-a * (r - r0))
    return D * (1 - e) ** 2


def _morse_d3(r, D=2.0, a=1.3, r0=1.0):
    e = math.exp(-a * (r - r0))
    # V = D(1 - 2e + e^2); V''' = D(-2(-a)^3 e + (-2a)^3 e^2)
    return D * (2 * a ** 3 * e - 8 * a ** 3 * e * e)


add(pair("r18l_grad_grad_grad_morse", lambda: revsrc.grad(revsrc.grad(revsrc.grad(morse)))(1.2),
         lambda: _morse_d3(1.2), tol=1e-10))
add(pair("r18l_grad_grad_morse_wrt_a", lambda: revsrc.grad(revsrc.grad(morse), argnums=2)(1.2, 2.0, 1.3),
         lambda: jax().grad(jax().grad(jaxify(morse)), argnums=2)(1.2, 2.0, 1.3), tol=1e-10))
add(pair("r18l_jit_grad_grad_morse", lambda: revsrc.jit(revsrc.grad(revsrc.grad(morse)))(0.9),
         lambda: jax().grad(jax().grad(jaxify(morse)))(0.9), tol=1e-10))


# -- jit of a scalar loop and its derivatives ----------------------------------------

def logistic_map_lyapunov(r, x0=0.3, n=200):
    x = x0
    s = 0.0
    for _ in range(n):
        x = r * x * (1.0 - x)
        s += math.log(abs(r * (1.0 - 2.0 * x)) + 1e-300)
    return s / n


add(pair("r18l_jit_scalar_loop_value", lambda: revsrc.jit(logistic_map_lyapunov)(2.9),
         lambda: logistic_map_lyapunov(2.9), tol=1e-12))
add(pair("r18l_jit_grad_scalar_loop", lambda: revsrc.jit(revsrc.grad(logistic_map_lyapunov))(2.9),
         lambda: revsrc.grad(logistic_map_lyapunov)(2.9), tol=1e-12))
add(G("r18l_grad_logistic_map_lyapunov", logistic_map_lyapunov, (2.9,), ref="ag", tol=1e-9))


def newton_cuberoot(a):
    x = a if a > 1.0 else 1.0
    while abs(x * x * x - a) > 1e-14 * a:
        x = x - (x * x * x - a) / (3 * x * x)
    return x


add(pair("r18l_jit_grad_while_newton_cuberoot", lambda: revsrc.jit(revsrc.grad(newton_cuberoot))(5.0),
         lambda: 5.0 ** (-2.0 / 3.0) / 3.0, tol=1e-9))
add(pair("r18l_vmap_jit_newton_cuberoot", lambda: revsrc.vmap(revsrc.jit(newton_cuberoot))(np.array([2.0, 8.0, 27.0])),
         lambda: np.cbrt([2.0, 8.0, 27.0]), tol=1e-12))
add(pair("r18l_vmap_grad_newton_cuberoot", lambda: revsrc.vmap(revsrc.grad(newton_cuberoot))(np.array([2.0, 8.0, 27.0])),
         lambda: np.array([2.0, 8.0, 27.0]) ** (-2.0 / 3.0) / 3.0, tol=1e-9))


# -- vmap of grad with in_axes (None, 0); hvp; linearize ---------------------------------

def poisson_ll(beta, x, y):
    eta = beta[0] + beta[1] * x
    return y * eta - math.exp(eta)


BETA = np.array([0.3, -0.2])
XP = np.linspace(-1, 1, 6)
YP = np.array([1.0, 0.0, 2.0, 1.0, 3.0, 0.0])
add(pair("r18l_vmap_grad_in_axes_none_scalar_fn",
         lambda: revsrc.vmap(revsrc.grad(poisson_ll), in_axes=(None, 0, 0))(BETA, XP, YP),
         lambda: np.stack([(YP - np.exp(BETA[0] + BETA[1] * XP)), (YP - np.exp(BETA[0] + BETA[1] * XP)) * XP], axis=1),
         tol=1e-12))
add(pair("r18l_vmap_hessian_per_example",
         lambda: revsrc.vmap(revsrc.hessian(poisson_ll), in_axes=(None, 0, 0))(BETA, XP, YP),
         lambda: np.stack([-np.exp(BETA[0] + BETA[1] * x) * np.outer([1, x], [1, x]) for x in XP]), tol=1e-12))


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


XR = np.array([-1.2, 1.0, 0.5, 0.8])
VR = np.array([1.0, -1.0, 0.5, 2.0])
add(pair("r18l_hvp_rosen", lambda: revsrc.hvp(rosen, (XR,), (VR,)),
         lambda: jax().hessian(jaxify(rosen))(XR) @ VR, tol=1e-10))


def _linearize_reuse():
    y, f_jvp = revsrc.linearize(rosen, XR)
    return y, f_jvp(VR), f_jvp(2 * VR)


add(pair("r18l_linearize_reused_twice", _linearize_reuse,
         lambda: (rosen(XR), jax().grad(jaxify(rosen))(XR) @ VR, 2 * jax().grad(jaxify(rosen))(XR) @ VR), tol=1e-10))


def _vjp_cols():
    def f(x):
        return np.array([x[0] * x[1], np.sin(x[2]) + x[0], x[1] ** 3])
    y, fn = revsrc.vjp(f, np.array([1.0, 2.0, 0.5]))
    return np.stack([fn(e)[0] for e in np.eye(3)])


add(pair("r18l_vjp_reused_rows_jacobian", _vjp_cols,
         lambda: np.array([[2.0, 1.0, 0.0], [1.0, 0.0, math.cos(0.5)], [0.0, 12.0, 0.0]]), tol=1e-12))


# value_and_grad with has_aux returning a dict aux and argnums tuple
def fit_aux(a, b, x, y):
    r = a * x + b - y
    return np.sum(r ** 2), {"rmax": np.max(np.abs(r)), "n": len(x)}


add(pair("r18l_vg_has_aux_dict_argnums_tuple",
         lambda: revsrc.value_and_grad(fit_aux, argnums=(0, 1), has_aux=True)(0.5, 0.1, XP, YP),
         lambda: ((np.sum((0.5 * XP + 0.1 - YP) ** 2), {"rmax": np.max(np.abs(0.5 * XP + 0.1 - YP)), "n": 6}),
                  (np.sum(2 * (0.5 * XP + 0.1 - YP) * XP), np.sum(2 * (0.5 * XP + 0.1 - YP)))), tol=1e-12))


# -- backend="jax" ---------------------------------------------------------------------

def spring_chain(x, k=np.array([1.0, 2.0, 1.5, 0.5])):
    E = 0.0
    for i in range(len(x) - 1):
        E = E + 0.5 * k[i] * (x[i + 1] - x[i] - 1.0) ** 2
    return E + 0.01 * np.sum(x ** 4)


XC = np.array([0.0, 1.1, 1.9, 3.2, 4.0])
add(G("r18l_backend_jax_spring_chain", spring_chain, (XC,), ref="jax", tol=1e-12, backend="jax"))
add(pair("r18l_backend_jax_hessian_spring_chain", lambda: revsrc.hessian(spring_chain, backend="jax")(XC),
         lambda: jax().hessian(jaxify(spring_chain))(XC), tol=1e-12))
add(G("r18l_backend_jax_rosen_while_descent",
      lambda x0: _gd_while(x0), (np.array([0.5, 0.4]),), ref="fd", tol=1e-6, backend="jax"))


def _gd_while(x0):
    x = x0
    g = 2 * (x - 1.0)
    n = 0
    while np.sum(g * g) > 1e-6 and n < 100:
        x = x - 0.1 * g
        g = 2 * (x - 1.0) + 0.1 * np.sin(x)
        n += 1
    return np.sum(x ** 3)


def clip_relu_net(w, x):
    h = np.clip(x @ w, -1.0, 1.0)
    return np.sum(np.maximum(h, 0.1 * h) ** 2)


WC = _r.normal(size=(3, 4))
XCL = _r.normal(size=(6, 3))
add(G("r18l_backend_jax_clip_leaky", clip_relu_net, (WC, XCL), ref="jax", tol=1e-12, backend="jax"))
add(pair("r18l_backend_jax_value_and_grad_has_aux",
         lambda: revsrc.value_and_grad(fit_aux, argnums=(0, 1), has_aux=True, backend="jax")(0.5, 0.1, XP, YP),
         lambda: revsrc.value_and_grad(fit_aux, argnums=(0, 1), has_aux=True)(0.5, 0.1, XP, YP), tol=1e-12))


# -- misuse --------------------------------------------------------------------------

add(pair("r18l_misuse_argnums_negative_too_far", lambda: revsrc.grad(morse, argnums=7)(1.0),
         lambda: None, tol=0.0))
add(pair("r18l_misuse_grad_of_vector_output", lambda: revsrc.grad(lambda x: np.sin(x))(np.ones(3)),
         lambda: None, tol=0.0))
add(pair("r18l_misuse_int_argument", lambda: revsrc.grad(morse)(1), lambda: None, tol=0.0))
add(pair("r18l_misuse_hvp_tangent_shape", lambda: revsrc.hvp(rosen, (XR,), (np.ones(3),)), lambda: None, tol=0.0))


# -- edge values ---------------------------------------------------------------------

def softplus_sum(x):
    return np.sum(np.logaddexp(0.0, x))


add(pair("r18l_edge_softplus_infinities", lambda: revsrc.grad(softplus_sum)(np.array([-np.inf, 0.0, np.inf, 800.0])),
         lambda: np.array([0.0, 0.5, 1.0, 1.0]), tol=1e-15))
add(pair("r18l_edge_empty_array_grad", lambda: revsrc.grad(rosen)(np.zeros(0)), lambda: np.zeros(0), tol=0.0))
add(pair("r18l_edge_zero_d_array", lambda: revsrc.grad(lambda x: x ** 3 * np.sin(x))(np.array(0.7)),
         lambda: np.array(3 * 0.49 * math.sin(0.7) + 0.343 * math.cos(0.7)), tol=1e-14))
add(pair("r18l_edge_nan_propagates", lambda: revsrc.grad(lambda x: np.sum(x * x))(np.array([1.0, np.nan])),
         lambda: np.array([2.0, np.nan]), tol=0.0))
add(pair("r18l_edge_sqrt_at_zero_norm", lambda: revsrc.grad(lambda x: np.sqrt(np.sum(x * x)))(np.zeros(2)),
         lambda: jax().grad(lambda x: jax().numpy.sqrt(jax().numpy.sum(x * x)))(np.zeros(2)), tol=0.0))
# guide/api.md: the subgradient 0 at abs's kink (JAX gives 1 there)
add(pair("r18l_edge_abs_at_zero", lambda: revsrc.grad(lambda x: np.sum(np.abs(x)))(np.array([0.0, -2.0, 3.0])),
         lambda: np.array([0.0, -1.0, 1.0]), tol=0.0))
add(pair("r18l_edge_max_tie_split", lambda: revsrc.grad(lambda x: np.max(x))(np.array([1.0, 3.0, 3.0])),
         lambda: np.array([0.0, 0.5, 0.5]), tol=0.0))
add(pair("r18l_edge_hessian_of_linear_is_zero", lambda: revsrc.hessian(lambda x: np.sum(3.0 * x))(np.ones(3)),
         lambda: np.zeros((3, 3)), tol=0.0))
add(pair("r18l_edge_float32_scalar_hessian",
         lambda: revsrc.hessian(lambda x: np.sum(np.tanh(x) ** 2))(np.array([0.5, -0.25], dtype=np.float32)),
         lambda: jax().hessian(lambda x: jax().numpy.sum(jax().numpy.tanh(x) ** 2))(np.array([0.5, -0.25])), tol=1e-5))


# -- more backend="jax" and pytree compositions -----------------------------------------

XE = np.array([0.3, -0.7, 0.9, 0.1, 1.4, 0.55])


def heat_inplace(x):
    u = x.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


add(G("r18l_backend_jax_heat_slice_writes", heat_inplace, (XE,), ref="fd", tol=1e-7, backend="jax"))


def bin_energies(x):
    acc = np.zeros(3)
    np.add.at(acc, np.array([0, 2, 0, 1, 2, 2]), x * x)
    return np.sum(np.sin(acc))


add(G("r18l_backend_jax_np_add_at", bin_energies, (XE,), ref="fd", tol=1e-7, backend="jax"))
add(H("r18l_hessian_np_add_at", bin_energies, (XE,), ref="fd", tol=1e-5))


def first_over_threshold(x):
    for i in range(len(x)):
        if x[i] > 1.0:
            return np.sum(x[:i] ** 2)
    return np.sum(x)


add(H("r18l_hessian_early_return_slice", first_over_threshold, (XE,),
      ref=lambda: np.diag([2.0, 2.0, 2.0, 2.0, 0.0, 0.0]), tol=1e-12))
# backend="jax": a traced early return that slices with the loop variable: E602, documented
add(G("r18l_backend_jax_early_return_slice", first_over_threshold, (XE,),
      ref=lambda: np.array([0.6, -1.4, 1.8, 0.2, 0.0, 0.0]), tol=1e-12, backend="jax"))


def tanh_reg(p, x, y):
    return (np.tanh(x @ p["W"]) @ p["v"] - y) ** 2


PD = {"W": np.full((3, 2), 0.3), "v": np.array([0.5, -0.2])}
XD = np.arange(12.0).reshape(4, 3) / 10
YD = np.arange(4.0)
add(pair("r18l_vmap_grad_dict_params_backend_jax",
         lambda: revsrc.vmap(revsrc.grad(tanh_reg, backend="jax"), in_axes=(None, 0, 0))(PD, XD, YD),
         lambda: jax().vmap(jax().grad(jaxify(tanh_reg)), in_axes=(None, 0, 0))(PD, XD, YD), tol=1e-10))
add(pair("r18l_hvp_dict_params",
         lambda: revsrc.hvp(lambda p: np.sum(tanh_reg(p, XD, YD)), (PD,), ({"W": np.ones((3, 2)), "v": np.ones(2)},)),
         lambda: jax().jvp(jax().grad(lambda p: jax().numpy.sum(jaxify(tanh_reg)(p, XD, YD))), (PD,),
                           ({"W": np.ones((3, 2)), "v": np.ones(2)},))[1], tol=1e-10))
add(pair("r18l_hessian_dict_params_blocks",
         lambda: revsrc.hessian(lambda p: np.sum(tanh_reg(p, XD, YD)))(PD),
         lambda: jax().hessian(lambda p: jax().numpy.sum(jaxify(tanh_reg)(p, XD, YD)))(PD), tol=1e-10))
# 


# -- in-place edits through views, masks and fancy indices, at first and second order -------

XW = np.array([0.3, -0.7, 0.9, 0.1, 1.4, 0.55])


def write_through_transpose(x):
    M = np.zeros((3, 2))
    Mt = M.T
    Mt[1] = x[:3]
    Mt[0] += x[3:] ** 2
    return np.sum(M @ np.array([1.0, 3.0]) * np.array([1.0, 2.0, 3.0]))


def write_through_slice_view(x):
    y = x.copy()
    v = y[1:4]
    v *= 2.0
    v[0] += y[0]
    return np.sum(y ** 2 * np.arange(6))


def swap_then_shift(x):
    y = x.copy()
    y[[0, 2]] = y[[2, 0]]
    y[1:] += y[:-1]
    return np.sum(y * np.arange(6.0))


def arrow_matrix_det(x):
    u = np.zeros((3, 3))
    u[np.diag_indices(3)] = x[:3]
    u[0, 1:] = x[3:5]
    u[1:, 0] = u[0, 1:] * x[5]
    return np.linalg.det(u) + np.sum(u ** 2)


def fir_ring_buffer(x):
    buf = np.zeros(4)
    out = 0.0
    for v in x:
        buf = np.roll(buf, 1)
        buf[0] = v
        out += buf @ np.array([0.5, 0.3, 0.15, 0.05]) * v
    return out


def relu_accumulate_mask_write(x):
    s = np.zeros(2)
    for i in range(3):
        s += x[2 * i: 2 * i + 2]
        s[s < 0] = 0.0
    return np.sum(s ** 2)


for _nm, _f in [("transpose_view", write_through_transpose), ("slice_view", write_through_slice_view),
                ("swap_then_shift", swap_then_shift), ("arrow_det", arrow_matrix_det),
                ("fir_ring_buffer", fir_ring_buffer), ("relu_mask_write", relu_accumulate_mask_write)]:
    add(G("r18l_inplace_" + _nm, _f, (XW,), ref="fd", tol=1e-7))
    add(H("r18l_inplace_" + _nm + "_hessian", _f, (XW,), ref="fd", tol=1e-5))


def rows_in_list_edit(x):
    rows = [x[:3].copy(), x[3:].copy()]
    for r in rows:
        r[0] = r[0] * r[1]
    return sum(np.sum(r ** 2) for r in rows)


# a write into an array held in a list, through the loop variable: E404, documented
add(G("r18l_inplace_rows_in_list_loop_variable", rows_in_list_edit, (XW,), ref="fd", tol=1e-7))

for _nm, _f in [("transpose_view", write_through_transpose), ("slice_view", write_through_slice_view),
                ("swap_then_shift", swap_then_shift), ("arrow_det", arrow_matrix_det),
                ("fir_ring_buffer", fir_ring_buffer), ("relu_mask_write", relu_accumulate_mask_write)]:
    add(G("r18l_inplace_" + _nm + "_backend_jax", _f, (XW,), ref="fd", tol=1e-7, backend="jax"))


# -- vmap / jit of scalar programs with branches, at the branch points and at nan ---------

def piecewise_cost(x):
    if x < 0:
        return -x
    elif x < 1:
        return x * x
    return 2 * x - 1


PTS5 = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
add(pair("r18l_jit_grad_piecewise_at_branch_points",
         lambda: np.array([revsrc.jit(revsrc.grad(piecewise_cost))(float(v)) for v in PTS5]),
         lambda: np.array([-1.0, 0.0, 1.0, 2.0, 2.0]), tol=0.0))
add(pair("r18l_vmap_grad_piecewise_at_branch_points", lambda: revsrc.vmap(revsrc.grad(piecewise_cost))(PTS5),
         lambda: np.array([-1.0, 0.0, 1.0, 2.0, 2.0]), tol=0.0))
# nan fails both tests, so Python takes the last arm: slope 2
add(pair("r18l_grad_piecewise_at_nan", lambda: (revsrc.grad(piecewise_cost)(math.nan),
                                                 revsrc.jit(revsrc.grad(piecewise_cost))(math.nan)),
         lambda: (2.0, 2.0), tol=0.0))
add(pair("r18l_vmap_grad_float32_keeps_dtype",
         lambda: revsrc.vmap(revsrc.grad(lambda x: math.sin(x) * x))(np.array([0.5, 1.0], dtype=np.float32)),
         lambda: (np.sin([0.5, 1.0]) + np.array([0.5, 1.0]) * np.cos([0.5, 1.0])).astype(np.float32), tol=1e-6))


def gauss_lp(theta, x):
    return -0.5 * ((x - theta[0]) / np.exp(theta[1])) ** 2 - theta[1]


TG = np.array([0.2, -0.1])
XG3 = np.array([0.5, 1.0, -2.0])
add(pair("r18l_vmap_hessian_in_axes_none_0", lambda: revsrc.vmap(revsrc.hessian(gauss_lp), in_axes=(None, 0))(TG, XG3),
         lambda: jax().vmap(jax().hessian(jaxify(gauss_lp)), in_axes=(None, 0))(TG, XG3), tol=1e-12))
add(pair("r18l_grad_of_sum_of_vmap", lambda: revsrc.grad(lambda t: np.sum(revsrc.vmap(gauss_lp, in_axes=(None, 0))(t, XG3)))(TG),
         lambda: jax().grad(lambda t: jax().numpy.sum(jax().vmap(jaxify(gauss_lp), in_axes=(None, 0))(t, XG3)))(TG),
         tol=1e-12))
add(pair("r18l_vmap_in_axes_1_columns", lambda: revsrc.vmap(lambda c: np.sum(c ** 2), in_axes=1)(np.arange(6.0).reshape(2, 3)),
         lambda: np.array([9.0, 17.0, 29.0]), tol=0.0))
# misuse: jvp with an int primal: E301, documented
add(pair("r18l_misuse_jvp_int_primal", lambda: revsrc.jvp(lambda x: x * 2.0, (3,), (1,)), lambda: (6.0, 2.0), tol=0.0))
