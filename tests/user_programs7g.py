"""User programs, corpus 7g: compositions -- jit(grad), vmap(grad) and vmap(hessian),
grad(grad) through loops and branches, jacfwd(jacrev), jvp and vjp inside a function
being differentiated, linearize reused, hvp against hessian @ v, has_aux, in_axes /
out_axes pytrees, memory= under hessian, backend="jax".  References: JAX x64, autograd,
and central differences of revsrc-free programs."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, ag, agify, fd_checked, fd_hess_checked, fd_jac, jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(7005)


def pendulum_period(L, theta0, dt=1e-3):
    th, om, t = theta0, 0.0, 0.0
    while True:
        om_new = om - dt * 9.81 / L * math.sin(th)
        th_new = th + dt * om_new
        t += dt
        if th_new < 0.0 <= th:
            return 4.0 * (t - dt + dt * th / (th - th_new))
        th, om = th_new, om_new


CASES.append(pair("r7_jit_of_grad_pendulum_is_exact",
                  lambda: revsrc.jit(revsrc.grad(pendulum_period))(1.2, 0.5),
                  lambda: revsrc.grad(pendulum_period)(1.2, 0.5), tol=0.0))
CASES.append(G("r7_grad_pendulum_period_vs_ag", pendulum_period, (1.2, 0.5), argnums=(0, 1), ref="ag", tol=1e-9))


def smooth_step(x):
    if x < 0.0:
        return 0.0 * x
    if x < 1.0:
        return x * x * (3.0 - 2.0 * x)
    return 1.0 + 0.0 * x


D2_SMOOTH = revsrc.grad(revsrc.grad(smooth_step))
CASES.append(pair("r7_gradgrad_piecewise_all_pieces",
                  lambda: np.array([D2_SMOOTH(v) for v in (-0.5, 0.25, 0.75, 1.5)]),
                  lambda: np.array([0.0, 6.0 - 12 * 0.25, 6.0 - 12 * 0.75, 0.0]), tol=1e-12))
CASES.append(pair("r7_vmap_gradgrad_piecewise",
                  lambda: revsrc.vmap(D2_SMOOTH)(np.array([-0.5, 0.25, 0.75, 1.5])),
                  lambda: np.array([D2_SMOOTH(v) for v in (-0.5, 0.25, 0.75, 1.5)]), tol=0.0))


def third_derivative_loop(x):
    s = 0.0
    for k in range(1, 6):
        s += math.sin(k * x) / k
    return s


CASES.append(pair("r7_grad_grad_grad_loop",
                  lambda: revsrc.grad(revsrc.grad(revsrc.grad(third_derivative_loop)))(0.4),
                  lambda: sum(-(k ** 2) * math.cos(k * 0.4) for k in range(1, 6)), tol=1e-10))


def vec_field(x):
    return np.array([x[0] * x[1], np.sin(x[0]) + x[2] ** 2, np.exp(x[1] * x[2])])


def scalar_of_vec(x):
    return np.sum(vec_field(x) ** 2)


X3 = np.array([0.3, -0.7, 0.5])
CASES.append(pair("r7_jacfwd_of_jacrev_scalar",
                  lambda: revsrc.jacfwd(revsrc.jacrev(scalar_of_vec))(X3),
                  lambda: jax().hessian(jaxify(scalar_of_vec))(X3), tol=1e-9))
CASES.append(pair("r7_jacrev_of_jacfwd_vector_third_order",
                  lambda: revsrc.jacrev(revsrc.jacfwd(vec_field))(X3),
                  lambda: jax().jacrev(jax().jacfwd(jaxify(vec_field)))(X3), tol=1e-9))


def jvp_inside(x):
    out, tan = revsrc.jvp(vec_field, (x,), (np.array([1.0, 0.0, 1.0]),))
    return np.sum(tan ** 2) + np.sum(out)


CASES.append(pair("r7_jvp_called_inside_grad",
                  lambda: revsrc.grad(jvp_inside)(X3),
                  lambda: jax().grad(lambda x: (lambda o_t: jax().numpy.sum(o_t[1] ** 2) + jax().numpy.sum(o_t[0]))(
                      jax().jvp(jaxify(vec_field), (x,), (jax().numpy.array([1.0, 0.0, 1.0]),))))(X3), tol=1e-9))


def vjp_inside(x):
    out, back = revsrc.vjp(vec_field, x)
    (g,) = back(np.array([1.0, -1.0, 0.5]))
    return np.sum(g * g)


CASES.append(pair("r7_vjp_called_inside_grad",
                  lambda: revsrc.grad(vjp_inside)(X3),
                  lambda: jax().grad(lambda x: jax().numpy.sum(
                      jax().vjp(jaxify(vec_field), x)[1](jax().numpy.array([1.0, -1.0, 0.5]))[0] ** 2))(X3),
                  tol=1e-9))


def linearize_reuse():
    y, f_jvp = revsrc.linearize(vec_field, X3)
    return [f_jvp(v) for v in np.eye(3)]


CASES.append(pair("r7_linearize_reused_on_basis", linearize_reuse,
                  lambda: list(np.asarray(jax().jacfwd(jaxify(vec_field))(X3)).T), tol=1e-10))


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


X5 = np.array([-1.2, 1.0, 0.3, 0.8, 1.1])
V5 = RNG.normal(size=5)
CASES.append(pair("r7_hvp_vs_hessian_matvec", lambda: revsrc.hvp(rosen, (X5,), (V5,)),
                  lambda: np.asarray(jax().hessian(jaxify(rosen))(X5)) @ V5, tol=1e-9))


def loss_aux(w, x):
    pred = np.tanh(x @ w)
    return np.sum(pred ** 2), {"pred": pred, "norm": np.linalg.norm(w)}


XA = RNG.normal(size=(4, 3))
WA = RNG.normal(size=3)
CASES.append(pair("r7_value_and_grad_has_aux_dict",
                  lambda: revsrc.value_and_grad(loss_aux, has_aux=True)(WA, XA),
                  lambda: jax().value_and_grad(jaxify(loss_aux), has_aux=True)(WA, XA), tol=1e-10))


def per_ex(params, x, y):
    W, b = params["W"], params["b"]
    return (np.tanh(x @ W + b) @ np.ones(2) - y) ** 2


PP = {"W": RNG.normal(size=(3, 2)), "b": np.zeros(2)}
XB, YB = RNG.normal(size=(6, 3)), RNG.normal(size=6)
CASES.append(pair("r7_vmap_grad_dict_params_in_axes_dict",
                  lambda: revsrc.vmap(revsrc.grad(per_ex), in_axes=({"W": None, "b": None}, 0, 0))(PP, XB, YB),
                  lambda: jax().vmap(jax().grad(jaxify(per_ex)), in_axes=({"W": None, "b": None}, 0, 0))(PP, XB, YB),
                  tol=1e-10))
CASES.append(pair("r7_vmap_grad_out_axes_1",
                  lambda: revsrc.vmap(revsrc.grad(per_ex), in_axes=(None, 0, 0), out_axes=1)(PP, XB, YB),
                  lambda: jax().vmap(jax().grad(jaxify(per_ex)), in_axes=(None, 0, 0), out_axes=1)(PP, XB, YB),
                  tol=1e-10))
CASES.append(pair("r7_vmap_over_params_axis1",
                  lambda: revsrc.vmap(per_ex, in_axes=({"W": 1, "b": 0}, None, None))(
                      {"W": RNG.normal(size=(3, 4, 2)), "b": np.zeros((4, 2))}, XB[0], YB[0]),
                  lambda: None, tol=1e-10) if False else
             pair("r7_vmap_over_params_axis1",
                  lambda: revsrc.vmap(per_ex, in_axes=({"W": 1, "b": 0}, None, None))(PWS, XB[0], YB[0]),
                  lambda: jax().vmap(jaxify(per_ex), in_axes=({"W": 1, "b": 0}, None, None))(PWS, XB[0], YB[0]),
                  tol=1e-10))
PWS = {"W": RNG.normal(size=(3, 4, 2)), "b": RNG.normal(size=(4, 2))}


def small_ode_loss(k):
    y = np.array([1.0, 0.0])
    for _ in range(200):
        y = y + 0.01 * np.array([y[1], -k * y[0] - 0.1 * y[1]])
    return y[0] ** 2


CASES.append(pair("r7_vmap_hessian_over_stiffness",
                  lambda: revsrc.vmap(revsrc.hessian(small_ode_loss))(np.array([1.0, 2.0, 3.0])),
                  lambda: np.array([fd_hess_checked(small_ode_loss, (k,))[0]
                                    for k in (1.0, 2.0, 3.0)]), tol=1e-5))


def scalar_long_loop(a, n=6000):
    x = 0.1
    for i in range(n):
        x = x + 1e-4 * (a * math.sin(x) - x * x)
    return x


CASES.append(pair("r7_memory_hessian_long_loop",
                  lambda: revsrc.hessian(scalar_long_loop, memory=256)(1.3),
                  lambda: fd_hess_checked(scalar_long_loop, (1.3,))[0], tol=1e-5))
CASES.append(pair("r7_memory_hessian_same_bits_as_stored",
                  lambda: revsrc.hessian(scalar_long_loop, memory=256)(1.3),
                  lambda: revsrc.hessian(scalar_long_loop)(1.3), tol=0.0))
CASES.append(pair("r7_memory_jit_of_grad_long_loop",
                  lambda: revsrc.jit(revsrc.grad(scalar_long_loop, memory=256))(1.3),
                  lambda: revsrc.grad(scalar_long_loop)(1.3), tol=0.0))
CASES.append(pair("r7_memory_tiny_value_and_grad_bits",
                  lambda: revsrc.value_and_grad(scalar_long_loop, memory=64)(1.3),
                  lambda: revsrc.value_and_grad(scalar_long_loop)(1.3), tol=0.0))
CASES.append(pair("r7_memory_vjp_long_loop",
                  lambda: revsrc.vjp(scalar_long_loop, 1.3, memory=64)[1](2.0),
                  lambda: (2.0 * revsrc.grad(scalar_long_loop)(1.3),), tol=1e-12))


def jax_backend_loss(w, x, y):
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2) + 0.01 * np.sum(np.abs(w))


CASES.append(pair("r7_backend_jax_l1_loss",
                  lambda: revsrc.grad(jax_backend_loss, backend="jax")(WA, XA, YB[:4]),
                  lambda: jax().grad(jaxify(jax_backend_loss))(WA, XA, YB[:4]), tol=1e-10))


def jax_backend_while(a):
    x, n = 1.0, 0
    while x < 50.0:
        x = x * a + 0.1
        n += 1
    return x / n


CASES.append(pair("r7_backend_jax_while_int_counter",
                  lambda: revsrc.grad(jax_backend_while, backend="jax")(1.7),
                  lambda: ag()[0].grad(agify(jax_backend_while))(1.7), tol=1e-10))
CASES.append(pair("r7_backend_jax_hessian_rosen",
                  lambda: revsrc.hessian(rosen, backend="jax")(X5) if False else
                  revsrc.jacfwd(revsrc.grad(rosen, backend="jax"))(X5),
                  lambda: jax().hessian(jaxify(rosen))(X5), tol=1e-9))


def grad_penalty(w, x):
    g = D_LOSS(w, x)
    return loss_only(w, x) + 0.5 * np.sum(g ** 2)


def loss_only(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


D_LOSS = revsrc.grad(loss_only)
CASES.append(pair("r7_gradient_penalty_global_grad",
                  lambda: revsrc.grad(grad_penalty)(WA, XA),
                  lambda: jax().grad(lambda w: jaxify(loss_only)(w, XA) + 0.5 * jax().numpy.sum(
                      jax().grad(jaxify(loss_only))(w, XA) ** 2))(WA), tol=1e-9))
CASES.append(pair("r7_hessian_of_gradient_penalty",
                  lambda: revsrc.hessian(grad_penalty)(WA, XA),
                  lambda: jax().hessian(lambda w: jaxify(loss_only)(w, XA) + 0.5 * jax().numpy.sum(
                      jax().grad(jaxify(loss_only))(w, XA) ** 2))(WA), tol=1e-8))


def maml_inner(w, x):
    w1 = w - 0.1 * D_LOSS(w, x)
    w2 = w1 - 0.1 * D_LOSS(w1, x)
    return loss_only(w2, x)


CASES.append(pair("r7_maml_two_inner_steps",
                  lambda: revsrc.grad(maml_inner)(WA, XA),
                  lambda: jax().grad(lambda w: (lambda gl: (lambda w1: (lambda w2: jaxify(loss_only)(w2, XA))(
                      w1 - 0.1 * gl(w1, XA)))(w - 0.1 * gl(w, XA)))(jax().grad(jaxify(loss_only))))(WA),
                  tol=1e-9))
CASES.append(pair("r7_jacobian_dict_output",
                  lambda: revsrc.jacrev(lambda_dict_out)(X3),
                  lambda: jax().jacrev(jaxify(lambda_dict_out))(X3), tol=1e-10))


def lambda_dict_out(x):
    return {"a": np.sin(x) * x[0], "s": np.sum(x ** 3)}


CASES.append(pair("r7_jacfwd_dict_output",
                  lambda: revsrc.jacfwd(lambda_dict_out)(X3),
                  lambda: jax().jacfwd(jaxify(lambda_dict_out))(X3), tol=1e-10))
CASES.append(pair("r7_vmap_axis_size_no_mapped_args",
                  lambda: revsrc.vmap(lambda_const, in_axes=None, axis_size=3)(2.0),
                  lambda: np.array([lambda_const(2.0)] * 3), tol=0.0))


def lambda_const(x):
    return x * x + 1.0
