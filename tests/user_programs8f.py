"""Round 8 user programs, batch f: compositions on whole programs (vmap of grad per
example, jit of grad on scalar code, hessian, jacfwd/jacrev of vector programs,
linearize, vjp, hvp, memory= under grad and value_and_grad, backend="jax",
stop_gradient, custom rules), checked against JAX x64 or self-checked central
differences."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, fd_jac, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(85)


def rosen(x):
    return np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


XR = np.array([-1.2, 1.0, 0.5, 0.8])
add(H("r8_rosenbrock_hessian_slices", rosen, (XR,), ref="jax"))
add(pair("r8_rosenbrock_hvp", lambda: revsrc.hvp(rosen, (XR,), (np.array([1.0, -1.0, 0.5, 2.0]),)),
         lambda: jax().jvp(jax().grad(jaxify(rosen)), (XR,), (np.array([1.0, -1.0, 0.5, 2.0]),))[1], tol=1e-9))
add(pair("r8_rosenbrock_jacrev_of_grad", lambda: revsrc.jacrev(revsrc.grad(rosen))(XR),
         lambda: jax().hessian(jaxify(rosen))(XR), tol=1e-9))


def scalar_loop_model(a, b):
    s = 0.0
    x = 0.5
    for i in range(20):
        x = a * x * (1 - x) + b * math.sin(i)
        if x > 0.9:
            x = 0.9 - 0.1 * (x - 0.9)
        s += x * x
    return s


add(pair("r8_jit_grad_scalar_logistic_map_branch", lambda: revsrc.jit(revsrc.grad(scalar_loop_model, argnums=(0, 1)))(2.9, 0.05),
         lambda: fd_checked(scalar_loop_model, (2.9, 0.05), argnums=(0, 1)), tol=1e-6))
add(pair("r8_jit_value_scalar_logistic_map_branch", lambda: revsrc.jit(scalar_loop_model)(2.9, 0.05),
         lambda: scalar_loop_model(2.9, 0.05), tol=0.0))
add(pair("r8_vmap_grad_scalar_over_a", lambda: revsrc.vmap(revsrc.grad(scalar_loop_model), in_axes=(0, None))(np.array([2.5, 2.9, 3.1]), 0.05),
         lambda: np.array([fd_checked(scalar_loop_model, (a, 0.05))[0] if isinstance(fd_checked(scalar_loop_model, (a, 0.05)), tuple) else fd_checked(scalar_loop_model, (a, 0.05)) for a in (2.5, 2.9, 3.1)]).ravel(), tol=1e-6))
add(pair("r8_vmap_scalar_function_values", lambda: revsrc.vmap(scalar_loop_model)(np.array([2.5, 2.9, 3.1]), np.array([0.0, 0.05, 0.1])),
         lambda: np.array([scalar_loop_model(a, b) for a, b in zip((2.5, 2.9, 3.1), (0.0, 0.05, 0.1))]), tol=0.0))
add(pair("r8_hessian_scalar_loop_two_args", lambda: revsrc.hessian(scalar_loop_model, argnums=(0, 1))(2.9, 0.05),
         lambda: _hess2(scalar_loop_model, 2.9, 0.05), tol=1e-4))


def _hess2(f, a, b, h=1e-4):
    def g(a, b):
        return np.array([(f(a + h, b) - f(a - h, b)) / (2 * h), (f(a, b + h) - f(a, b - h)) / (2 * h)])
    Ha = (g(a + h, b) - g(a - h, b)) / (2 * h)
    Hb = (g(a, b + h) - g(a, b - h)) / (2 * h)
    return ((Ha[0], Hb[0]), (Ha[1], Hb[1]))


def vec_field(x):
    y = np.empty(3)
    y[0] = x[0] * x[1]
    y[1] = np.sin(x[2]) + x[0] ** 2
    y[2] = np.exp(x[1] - x[2])
    return y


XV = np.array([0.3, -0.7, 1.1])


def vec_field_pure(x):
    return np.stack([x[0] * x[1], np.sin(x[2]) + x[0] ** 2, np.exp(x[1] - x[2])])


add(pair("r8_jacfwd_item_writes_into_empty", lambda: revsrc.jacfwd(vec_field)(XV),
         lambda: jax().jacfwd(jaxify(vec_field_pure))(XV), tol=1e-12))
add(pair("r8_jacrev_item_writes_into_empty", lambda: revsrc.jacrev(vec_field)(XV),
         lambda: jax().jacrev(jaxify(vec_field_pure))(XV), tol=1e-12))
add(pair("r8_linearize_then_apply_two_tangents",
         lambda: (lambda pf: (pf[0], pf[1](np.array([1.0, 0, 0])), pf[1](np.array([0, 0.5, -1.0]))))(revsrc.linearize(vec_field, XV)),
         lambda: (vec_field_pure(XV), jax().jacfwd(jaxify(vec_field_pure))(XV) @ np.array([1.0, 0, 0]),
                  jax().jacfwd(jaxify(vec_field_pure))(XV) @ np.array([0, 0.5, -1.0])), tol=1e-12))
add(pair("r8_vjp_item_writes",
         lambda: (lambda r: r[1](np.array([1.0, 2.0, -1.0])))(revsrc.vjp(vec_field, XV)),
         lambda: (np.array([1.0, 2.0, -1.0]) @ jax().jacrev(jaxify(vec_field_pure))(XV),), tol=1e-12))


def ode_rhs_jac(theta, y0):
    y = y0
    for _ in range(10):
        y = y + 0.1 * np.array([theta[0] * y[1], -theta[1] * y[0] - 0.1 * y[1]])
    return y


def _ode_rhs_jac_jax(theta, y0):
    jnp = jax().numpy
    y = y0
    for _ in range(10):
        y = y + 0.1 * jnp.array([theta[0] * y[1], -theta[1] * y[0] - 0.1 * y[1]])
    return y


add(pair("r8_jacrev_sensitivity_np_array_of_entries", lambda: revsrc.jacrev(ode_rhs_jac)(np.array([1.0, 2.0]), np.array([1.0, 0.0])),
         lambda: jax().jacrev(_ode_rhs_jac_jax)(np.array([1.0, 2.0]), np.array([1.0, 0.0])), tol=1e-12))
add(pair("r8_jacfwd_sensitivity_wrt_y0", lambda: revsrc.jacfwd(ode_rhs_jac, argnums=1)(np.array([1.0, 2.0]), np.array([1.0, 0.0])),
         lambda: jax().jacfwd(_ode_rhs_jac_jax, argnums=1)(np.array([1.0, 2.0]), np.array([1.0, 0.0])), tol=1e-12))


def long_rnn(W, x0, n):
    h = x0
    for _ in range(n):
        h = np.tanh(W @ h + 0.1)
    return np.sum(h)


WR = rng.normal(size=(4, 4)) * 0.4
HR = rng.normal(size=4)
add(pair("r8_rnn_memory_vs_stored_bits",
         lambda: revsrc.grad(long_rnn, memory="8KB")(WR, HR, 300),
         lambda: revsrc.grad(long_rnn)(WR, HR, 300), tol=0.0))
add(G("r8_rnn_memory_vs_fd", long_rnn, (WR, HR, 300), memory="8KB", tol=1e-6))
add(pair("r8_value_and_grad_memory_while",
         lambda: revsrc.value_and_grad(_while_decay, memory="1KB")(0.7, 1.3),
         lambda: (_while_decay(0.7, 1.3), fd_checked(_while_decay, (0.7, 1.3))), tol=1e-7))


def _while_decay(a, x):
    k = 0
    while x > 1e-3 and k < 500:
        x = x * a + 0.001 * math.sin(x)
        k += 1
    return x * 1000 + k


def hess_memory(a, x):
    for _ in range(200):
        x = x - 0.01 * (x ** 3 - a)
    return x * x


add(pair("r8_hessian_under_memory", lambda: revsrc.hessian(hess_memory, argnums=(0, 1), memory="1KB")(2.0, 1.0),
         lambda: _hess2(hess_memory, 2.0, 1.0), tol=1e-5))


def stopgrad_target(w, X, y):
    pred = X @ w
    target = revsrc.stop_gradient(0.9 * pred + 0.1 * y)
    return np.mean((pred - target) ** 2)


XS = rng.normal(size=(6, 3))
YS = rng.normal(size=6)
add(pair("r8_stop_gradient_td_target", lambda: revsrc.grad(stopgrad_target)(np.ones(3), XS, YS),
         lambda: 2 * XS.T @ (0.1 * (XS @ np.ones(3)) - 0.1 * YS) / 6, tol=1e-12))


def gumbel_straight_through(logits, g):
    y = logits + g
    soft = np.exp(y - y.max()) / np.sum(np.exp(y - y.max()))
    hard = (y == y.max()).astype(float)
    st = revsrc.stop_gradient(hard - soft) + soft
    return np.sum(st * np.array([1.0, 2.0, 3.0]))


def _st_ref():
    def f(l):
        y = l + np.array([0.1, -0.2, 0.3])
        s = np.exp(y - y.max()) / np.sum(np.exp(y - y.max()))
        return np.sum(s * np.array([1.0, 2.0, 3.0]))
    return fd_checked(f, (np.array([0.5, 1.0, 0.2]),))


add(pair("r8_straight_through_estimator", lambda: revsrc.grad(gumbel_straight_through)(np.array([0.5, 1.0, 0.2]), np.array([0.1, -0.2, 0.3])),
         _st_ref, tol=1e-8))


def smooth_clip(x):
    return np.where(np.abs(x) < 1, x, np.sign(x))


@revsrc.defvjp(smooth_clip)
def smooth_clip_vjp(g, ans, x):
    return g * 1.0 / (1.0 + x * x)


def use_custom(x):
    return np.sum(smooth_clip(x) * x)


XCU = np.array([0.5, 2.0, -3.0])
add(pair("r8_custom_vjp_pseudo_gradient", lambda: revsrc.grad(use_custom)(XCU),
         lambda: np.where(np.abs(XCU) < 1, XCU, np.sign(XCU)) + XCU / (1 + XCU ** 2), tol=1e-12))


def count_above(x, t):
    return float(np.sum(x > t))


revsrc.nondiff(count_above)


def use_nondiff(x):
    return np.sum(x ** 2) * count_above(x, 0.0)


add(pair("r8_nondiff_registered_counter", lambda: revsrc.grad(use_nondiff)(XCU), lambda: 2 * XCU * 2.0, tol=1e-12))


def jax_backend_mlp(W, X, y):
    h = np.tanh(X @ W)
    return np.mean((h.sum(axis=1) - y) ** 2)


add(pair("r8_backend_jax_mlp", lambda: revsrc.grad(jax_backend_mlp, backend="jax")(WR[:3], XS, YS),
         lambda: jax().grad(jaxify(jax_backend_mlp))(WR[:3], XS, YS), tol=1e-10))
add(pair("r8_backend_jax_while_newton", lambda: revsrc.grad(newton_sqrt, backend="jax")(2.5),
         lambda: 0.5 / math.sqrt(2.5), tol=1e-9))


def newton_sqrt(a):
    x = a
    it = 0
    while abs(x * x - a) > 1e-12 and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x


add(pair("r8_backend_jax_heat_slices", lambda: revsrc.grad(_heat, backend="jax")(np.linspace(0, 1, 10) ** 2, 0.2),
         lambda: fd_checked(_heat, (np.linspace(0, 1, 10) ** 2, 0.2)), tol=1e-7))


def _heat(u0, a):
    u = u0.copy()
    for _ in range(40):
        u[1:-1] = u[1:-1] + a * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


def per_example_mlp(params, x, y):
    W1, W2 = params
    h = np.tanh(x @ W1)
    return (h @ W2 - y) ** 2


PW = (rng.normal(size=(3, 4)), rng.normal(size=4))


def _pe_ref():
    jx = jax()
    return jx.vmap(jx.grad(jaxify(per_example_mlp)), in_axes=(None, 0, 0))(PW, XS, YS)


add(pair("r8_vmap_grad_tuple_params_per_example", lambda: revsrc.vmap(revsrc.grad(per_example_mlp), in_axes=(None, 0, 0))(PW, XS, YS),
         _pe_ref, tol=1e-10))
add(pair("r8_vmap_value_and_grad_per_example",
         lambda: revsrc.vmap(revsrc.value_and_grad(per_example_mlp), in_axes=(None, 0, 0))(PW, XS, YS),
         lambda: jax().vmap(jax().value_and_grad(jaxify(per_example_mlp)), in_axes=(None, 0, 0))(PW, XS, YS), tol=1e-10))


def per_example_norm_clip(params, X, Y, C):
    g = revsrc.vmap(revsrc.grad(per_example_mlp), in_axes=(None, 0, 0))(params, X, Y)
    n = np.sqrt(np.sum(g[0] ** 2, axis=(1, 2)) + np.sum(g[1] ** 2, axis=1))
    scale = np.minimum(1.0, C / n)
    return np.sum(scale[:, None, None] * g[0], axis=0), np.sum(scale[:, None] * g[1], axis=0)


def _dp_ref():
    jx = jax()
    g = jx.vmap(jx.grad(jaxify(per_example_mlp)), in_axes=(None, 0, 0))(PW, XS, YS)
    g = (np.asarray(g[0]), np.asarray(g[1]))
    n = np.sqrt(np.sum(g[0] ** 2, axis=(1, 2)) + np.sum(g[1] ** 2, axis=1))
    s = np.minimum(1.0, 0.5 / n)
    return np.sum(s[:, None, None] * g[0], axis=0), np.sum(s[:, None] * g[1], axis=0)


add(pair("r8_dp_sgd_clipped_per_example_sum", lambda: per_example_norm_clip(PW, XS, YS, 0.5), _dp_ref, tol=1e-10))


def jvp_of_grad_fn(x):
    return np.sum(np.sin(x) * np.exp(0.3 * x))


add(pair("r8_jvp_of_grad_equals_hvp", lambda: revsrc.jvp(revsrc.grad(jvp_of_grad_fn), (XR,), (np.ones(4),))[1],
         lambda: jax().jvp(jax().grad(jaxify(jvp_of_grad_fn)), (XR,), (np.ones(4),))[1], tol=1e-12))
add(pair("r8_grad_of_jvp_directional", lambda: revsrc.grad(lambda_dir)(XR),
         lambda: jax().grad(lambda x: jax().jvp(jaxify(jvp_of_grad_fn), (x,), (np.ones(4),))[1])(XR), tol=1e-12))


def lambda_dir(x):
    return revsrc.jvp(jvp_of_grad_fn, (x,), (np.ones(4),))[1]


def grad_in_loss(x):
    g = revsrc.grad(jvp_of_grad_fn)(x)
    return np.sum(g ** 2)


add(pair("r8_gradient_penalty_grad_of_grad_norm", lambda: revsrc.grad(grad_in_loss)(XR),
         lambda: jax().grad(lambda x: jax().numpy.sum(jax().grad(jaxify(jvp_of_grad_fn))(x) ** 2))(XR), tol=1e-10))


D_FN = revsrc.grad(jvp_of_grad_fn)


def grad_in_loss_module_level(x):
    g = D_FN(x)
    return np.sum(g ** 2)


add(pair("r8_gradient_penalty_module_level_derivative", lambda: revsrc.grad(grad_in_loss_module_level)(XR),
         lambda: jax().grad(lambda x: jax().numpy.sum(jax().grad(jaxify(jvp_of_grad_fn))(x) ** 2))(XR), tol=1e-10))
