"""Round 14, part j: compositions -- grad of grad, hessian, jacfwd/jacrev, jvp/vjp/linearize,
hvp, vmap with in_axes/out_axes, per-example gradients, jit(grad), grad(jit), vmap(hessian),
nested vmap, derivatives called inside differentiated functions, backend="jax"."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def rosen(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


X4 = np.array([-1.2, 1.0, 0.8, 1.1])
add(H("r14_rosen_loop_hessian", rosen, (X4,), ref="ag", tol=1e-10))
add(pair("r14_rosen_jacfwd_jacrev_grad", lambda: revsrc.jacfwd(revsrc.jacrev(rosen))(X4),
         lambda: ag()[0].hessian(agify(rosen))(X4), tol=1e-10))
add(pair("r14_rosen_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(rosen))(X4),
         lambda: ag()[0].hessian(agify(rosen))(X4), tol=1e-10))
add(pair("r14_rosen_vmap_hessian", lambda: revsrc.vmap(revsrc.hessian(rosen))(np.stack([X4, X4 * 0.5, -X4])),
         lambda: np.stack([ag()[0].hessian(agify(rosen))(x) for x in (X4, X4 * 0.5, -X4)]), tol=1e-10))
add(pair("r14_rosen_linearize", lambda: revsrc.linearize(rosen, X4)[1](np.array([1.0, -1.0, 0.5, 0.0])),
         lambda: ag()[0].grad(agify(rosen))(X4) @ np.array([1.0, -1.0, 0.5, 0.0]), tol=1e-10))
add(pair("r14_rosen_linearize_value", lambda: revsrc.linearize(rosen, X4)[0], lambda: rosen(X4), tol=1e-13))
add(pair("r14_rosen_jit_grad_vs_grad_jit", lambda: revsrc.jit(revsrc.grad(rosen))(X4) - revsrc.grad(revsrc.jit(rosen))(X4),
         lambda: np.zeros(4), tol=1e-13))


def scal(a, b):
    return math.sin(a * b) + a ** 3 / b


add(pair("r14_scalar_grad_grad_grad", lambda: revsrc.grad(revsrc.grad(revsrc.grad(scal)))(0.7, 1.3),
         lambda: -1.3 ** 3 * math.cos(0.91) + 6 / 1.3, tol=1e-12))
add(pair("r14_scalar_mixed_partial", lambda: revsrc.grad(revsrc.grad(scal), argnums=1)(0.7, 1.3),
         lambda: math.cos(0.91) - 0.91 * math.sin(0.91) - 3 * 0.49 / 1.69, tol=1e-12))
add(pair("r14_scalar_jit_grad_grad", lambda: revsrc.jit(revsrc.grad(revsrc.grad(scal)))(0.7, 1.3),
         lambda: -1.69 * math.sin(0.91) + 6 * 0.7 / 1.3, tol=1e-12))
add(pair("r14_scalar_vmap_vmap", lambda: revsrc.vmap(revsrc.vmap(scal, in_axes=(0, None)), in_axes=(None, 0))(np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0])),
         lambda: np.array([[scal(a, b) for a in (0.1, 0.2, 0.3)] for b in (1.0, 2.0)]), tol=1e-14))


def mlp(params, x):
    W1, b1, W2 = params
    h = np.tanh(W1 @ x + b1)
    return W2 @ h


def mse(params, x, y):
    return (mlp(params, x) - y) ** 2


RNG = np.random.default_rng(5)
PARAMS = (RNG.normal(size=(4, 3)), RNG.normal(size=4), RNG.normal(size=4))
XB = RNG.normal(size=(5, 3))
YB = RNG.normal(size=5)


def _per_example():
    return [ag()[0].grad(agify(mse))(PARAMS, XB[i], YB[i]) for i in range(5)]


add(pair("r14_per_example_grads_tuple_params", lambda: revsrc.vmap(revsrc.grad(mse), in_axes=(None, 0, 0))(PARAMS, XB, YB),
         lambda: tuple(np.stack([g[k] for g in _per_example()]) for k in range(3)), tol=1e-10))
add(pair("r14_vmap_in_axes_1", lambda: revsrc.vmap(lambda x: mlp(PARAMS, x), in_axes=1)(XB.T),
         lambda: np.array([mlp(PARAMS, x) for x in XB]), tol=1e-13))
add(pair("r14_vmap_out_axes_1", lambda: revsrc.vmap(lambda x: np.tanh(PARAMS[0] @ x), out_axes=1)(XB),
         lambda: np.tanh(PARAMS[0] @ XB.T), tol=1e-13))
add(pair("r14_jacrev_of_vmap", lambda: revsrc.jacrev(lambda xs: revsrc.vmap(lambda x: mlp(PARAMS, x))(xs))(XB[:2]),
         lambda: fdj(lambda xs: np.array([mlp(PARAMS, x) for x in xs]), XB[:2]), tol=1e-7))


def inner_grad_scalar(x):
    d = revsrc.grad(scal)(x, 1.3)
    return d * d + x


add(pair("r14_grad_inside_grad_scalar", lambda: revsrc.grad(inner_grad_scalar)(0.7),
         lambda: fd_checked(inner_grad_scalar, (0.7,))[0], tol=1e-7))


def inner_grad_list_item(xs):
    g = revsrc.grad(rosen)(np.array([xs[0], xs[1]]))
    return g[0] + xs[2] * g[1]


add(pair("r14_grad_inside_on_list_items", lambda: revsrc.grad(inner_grad_list_item)([0.5, 0.8, 2.0]),
         lambda: list(fd_checked(lambda a: inner_grad_list_item(list(a)), (np.array([0.5, 0.8, 2.0]),))[0]), tol=1e-6))


def inner_hvp(x, v):
    return revsrc.hvp(rosen, (x,), (v,)) @ v


add(pair("r14_hvp_inside_grad_wrt_v", lambda: revsrc.grad(inner_hvp, argnums=1)(X4, np.ones(4)),
         lambda: 2 * ag()[0].hessian(agify(rosen))(X4) @ np.ones(4), tol=1e-9))


def vjp_twice(x):
    y, pull = revsrc.vjp(lambda z: np.sin(z) * z, x)
    (g1,) = pull(np.ones_like(y))
    (g2,) = pull(2.0 * np.ones_like(y))
    return g1, g2


add(pair("r14_vjp_pullback_called_twice", lambda: vjp_twice(X4),
         lambda: (np.cos(X4) * X4 + np.sin(X4), 2 * (np.cos(X4) * X4 + np.sin(X4))), tol=1e-13))
add(pair("r14_jvp_of_grad", lambda: revsrc.jvp(revsrc.grad(rosen), (X4,), (np.array([0.0, 1.0, 0.0, 0.0]),))[1],
         lambda: ag()[0].hessian(agify(rosen))(X4)[:, 1], tol=1e-10))
add(pair("r14_rosen_backend_jax_hessian", lambda: revsrc.hessian(rosen, backend="jax")(X4),
         lambda: ag()[0].hessian(agify(rosen))(X4), tol=1e-10))
add(pair("r14_has_aux_value_and_grad", lambda: revsrc.value_and_grad(lambda x: (rosen(x), {"n": len(x), "x0": x[0]}), has_aux=True)(X4),
         lambda: ((rosen(X4), {"n": 4, "x0": X4[0]}), ag()[0].grad(agify(rosen))(X4)), tol=1e-10))
add(pair("r14_jacobian_argnums_tuple", lambda: revsrc.jacobian(lambda a, b: np.array([a * b, a + b, a / b]), argnums=(0, 1))(2.0, 4.0),
         lambda: (np.array([4.0, 1.0, 0.25]), np.array([2.0, 1.0, -2.0 / 16])), tol=1e-13))
