"""Round 12, part j: compositions -- grad of grad, hessian, jacfwd/jacrev, jvp/vjp/linearize,
hvp, vmap(grad) per-example gradients, jit(grad), grad(jit), vmap(hessian), nested
combinations, backend="jax" with a random generator inside."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def duffing_energy(x, v=0.3, n=20, dt=0.05):
    for _ in range(n):
        a = -x - 0.5 * x ** 3 if x > 0 else -x - 0.2 * x ** 3
        v = v + dt * a
        x = x + dt * v
    return 0.5 * v * v + 0.5 * x * x


def _dd_ag(k):
    f = agify(duffing_energy)
    for _ in range(k):
        f = ag()[0].grad(f)
    return f


add(pair("r12_grad_grad_branchy_loop", lambda: revsrc.grad(revsrc.grad(duffing_energy))(0.7), lambda: _dd_ag(2)(0.7), tol=1e-9))
add(pair("r12_grad_grad_grad_loop", lambda: revsrc.grad(revsrc.grad(revsrc.grad(duffing_energy)))(0.7), lambda: _dd_ag(3)(0.7), tol=1e-8))
add(pair("r12_hessian_two_scalars", lambda: revsrc.hessian(duffing_energy, argnums=(0, 1))(0.7, 0.3),
         lambda: tuple(tuple(ag()[0].grad(ag()[0].grad(agify(duffing_energy), argnum=i), argnum=j)(0.7, 0.3) for j in (0, 1)) for i in (0, 1)),
         tol=1e-9))
add(pair("r12_jit_grad_grad", lambda: revsrc.jit(revsrc.grad(revsrc.grad(duffing_energy)))(0.7), lambda: _dd_ag(2)(0.7), tol=1e-9))
add(pair("r12_grad_jit", lambda: revsrc.grad(revsrc.jit(duffing_energy))(0.7), lambda: _dd_ag(1)(0.7), tol=1e-11))
add(pair("r12_grad_jit_grad", lambda: revsrc.grad(revsrc.jit(revsrc.grad(duffing_energy)))(0.7), lambda: _dd_ag(2)(0.7), tol=1e-9))
XS = np.array([-0.8, -0.1, 0.4, 1.2])
add(pair("r12_vmap_grad_grad", lambda: revsrc.vmap(revsrc.grad(revsrc.grad(duffing_energy)))(XS),
         lambda: np.array([_dd_ag(2)(x) for x in XS]), tol=1e-9))
add(pair("r12_vmap_hessian_scalar", lambda: revsrc.vmap(revsrc.hessian(duffing_energy))(XS),
         lambda: np.array([_dd_ag(2)(x) for x in XS]), tol=1e-9))
add(pair("r12_jvp_of_grad", lambda: revsrc.jvp(revsrc.grad(duffing_energy), (0.7,), (2.0,)),
         lambda: (_dd_ag(1)(0.7), 2.0 * _dd_ag(2)(0.7)), tol=1e-9))
add(pair("r12_vjp_of_grad", lambda: revsrc.vjp(revsrc.grad(duffing_energy), 0.7)[1](3.0),
         lambda: (3.0 * _dd_ag(2)(0.7),), tol=1e-9))


def mlp(params, x):
    W1, b1, W2 = params
    h = np.tanh(W1 @ x + b1)
    return W2 @ h


def mse(params, x, y):
    return (mlp(params, x) - y) ** 2


rng = np.random.default_rng(2)
PARAMS = [rng.normal(size=(4, 3)) * 0.5, rng.normal(size=4) * 0.1, rng.normal(size=4)]
XB = rng.normal(size=(5, 3))
YB = rng.normal(size=5)


def per_example_ref():
    g = ag()[0].grad(agify(mse))
    outs = [g(PARAMS, XB[i], YB[i]) for i in range(5)]
    return [np.stack([o[k] for o in outs]) for k in range(3)]


add(pair("r12_vmap_grad_per_example_list_params", lambda: revsrc.vmap(revsrc.grad(mse), in_axes=(None, 0, 0))(PARAMS, XB, YB),
         per_example_ref, tol=1e-11))


def batch_loss(params):
    return np.mean(revsrc.vmap(mse, in_axes=(None, 0, 0))(params, XB, YB))


add(pair("r12_grad_of_vmap_inside", lambda: revsrc.grad(batch_loss)(PARAMS),
         lambda: [np.mean(p, axis=0) for p in per_example_ref()], tol=1e-11))
add(pair("r12_jacfwd_jacrev_mlp_input", lambda: revsrc.jacfwd(revsrc.jacrev(mlp, argnums=1), argnums=1)(PARAMS, XB[0]),
         lambda: ag()[0].hessian(lambda x: agify(mlp)(PARAMS, x))(XB[0]), tol=1e-10))
add(pair("r12_hessian_mlp_input", lambda: revsrc.hessian(mlp, argnums=1)(PARAMS, XB[0]),
         lambda: ag()[0].hessian(lambda x: agify(mlp)(PARAMS, x))(XB[0]), tol=1e-10))
add(pair("r12_hvp_mlp_W1", lambda: revsrc.hvp(lambda W: mse([W, PARAMS[1], PARAMS[2]], XB[0], YB[0]), (PARAMS[0],), (np.ones((4, 3)),)),
         lambda: ag()[0].hessian_vector_product(lambda W: agify(mse)([W, PARAMS[1], PARAMS[2]], XB[0], YB[0]))(PARAMS[0], np.ones((4, 3))),
         tol=1e-10))


def mlp_vec(x):
    return np.tanh(PARAMS[0] @ x + PARAMS[1])


add(pair("r12_vmap_jacrev_batch", lambda: revsrc.vmap(revsrc.jacrev(mlp_vec))(XB),
         lambda: np.stack([fdj(mlp_vec, x) for x in XB]), tol=1e-7))
add(pair("r12_vmap_hessian_array", lambda: revsrc.vmap(revsrc.hessian(lambda x: mlp(PARAMS, x)))(XB),
         lambda: np.stack([ag()[0].hessian(lambda x: agify(mlp)(PARAMS, x))(x) for x in XB]), tol=1e-10))


def lin_then_grad(x):
    y, f_lin = revsrc.linearize(mlp_vec, x)
    return np.sum(f_lin(np.ones(3)) ** 2)


add(G("r12_grad_of_linearize_inside", lin_then_grad, (XB[0],), ref="fd", tol=1e-6))


def jvp_inside(x):
    _, t = revsrc.jvp(mlp_vec, (x,), (np.array([1.0, 0.0, 0.0]),))
    return np.sum(t * t)


add(G("r12_grad_of_jvp_inside", jvp_inside, (XB[1],), ref="fd", tol=1e-6))


def jit_inner(a, b):
    return math.exp(a) * math.sin(b) + a * b


def uses_jit_inside(x):
    f = revsrc.jit(jit_inner)
    return f(x, 2 * x) ** 2


add(G("r12_grad_of_jit_called_inside", uses_jit_inside, (0.3,), ref="fd", tol=1e-7))
JIT_INNER = revsrc.jit(jit_inner)


def uses_module_jit(x):
    return JIT_INNER(x, 2 * x) ** 2


def _ujit_d(x):
    return 2 * (math.exp(x) * math.sin(2 * x) + 2 * x * x) * (math.exp(x) * math.sin(2 * x) + 2 * math.exp(x) * math.cos(2 * x) + 4 * x)


add(pair("r12_grad_of_module_jit_called_inside", lambda: revsrc.grad(uses_module_jit)(0.3), lambda: _ujit_d(0.3), tol=1e-12))
add(pair("r12_hessian_of_module_jit_called_inside", lambda: revsrc.hessian(uses_module_jit)(0.3),
         lambda: fd_checked(_ujit_d, (0.3,))[0], tol=1e-6))


# -- backend="jax" with a random generator made inside the function ---------------------------
def noisy_loss(w):
    rng = np.random.default_rng(0)
    eps = rng.normal(size=3)
    return np.sum((w + 0.1 * eps) ** 2)


def _noisy_ref():
    eps = np.random.default_rng(0).normal(size=3)
    return 2 * (np.array([1.0, 2.0, 3.0]) + 0.1 * eps)


add(pair("r12_rng_inside_default_backend", lambda: revsrc.grad(noisy_loss)(np.array([1.0, 2.0, 3.0])), _noisy_ref, tol=1e-14))
add(pair("r12_rng_inside_jax_backend", lambda: revsrc.grad(noisy_loss, backend="jax")(np.array([1.0, 2.0, 3.0])), _noisy_ref, tol=1e-12))


def noisy_loss_gen(w, rng):
    eps = rng.normal(size=3)
    return np.sum((w + 0.1 * eps) ** 2)


def rng_arg_twice():
    g = np.random.default_rng(5)
    df = revsrc.grad(noisy_loss_gen)
    return [df(np.ones(3), g), df(np.ones(3), g)]


def _rng_arg_ref():
    g = np.random.default_rng(5)
    return [2 * (np.ones(3) + 0.1 * g.normal(size=3)), 2 * (np.ones(3) + 0.1 * g.normal(size=3))]


add(pair("r12_rng_argument_advances", rng_arg_twice, _rng_arg_ref, tol=1e-14))


def rng_arg_twice_jax():
    g = np.random.default_rng(5)
    df = revsrc.grad(noisy_loss_gen, backend="jax")
    return [df(np.ones(3), g), df(np.ones(3), g)]


add(pair("r12_rng_argument_jax_backend", rng_arg_twice_jax, _rng_arg_ref, tol=1e-12))


def jax_backend_branchy(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s += x[i] ** 2
        else:
            s -= math.sin(x[i]) if False else np.sin(x[i])
    return s


XJ = np.array([0.5, -0.3, 1.2, -2.0])
add(pair("r12_jax_backend_branch_in_loop", lambda: revsrc.grad(jax_backend_branchy, backend="jax")(XJ),
         lambda: np.where(XJ > 0, 2 * XJ, -np.cos(XJ)), tol=1e-12))
add(pair("r12_jax_backend_value_and_grad_while", lambda: revsrc.value_and_grad(
    lambda x: __import__("user_programs12_a").kepler_E(x, 0.4), backend="jax")(1.3) if False else
    revsrc.value_and_grad(kepler_like, backend="jax")(1.3),
    lambda: (kepler_like(1.3), 1.0 / (1.0 - 0.4 * math.cos(kepler_like(1.3)))), tol=1e-10))


def kepler_like(M, e=0.4):
    E = M
    while abs(E - e * math.sin(E) - M) > 1e-13:
        E = E - (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
    return E


def rng_checkpointed(w):
    rng = np.random.default_rng(1)
    x = w
    for _ in range(50):
        x = x + 0.01 * np.tanh(x) + 0.001 * rng.normal()
    return x


def _rng_ckpt_ref():
    return fd_checked(rng_checkpointed, (0.4,))[0]


add(pair("r12_rng_loop_memory_bound", lambda: revsrc.grad(rng_checkpointed, memory=64)(0.4), _rng_ckpt_ref, tol=1e-7))
