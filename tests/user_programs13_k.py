"""Round 13, part k: compositions on this round's programs -- grad of grad, hessian,
jacfwd/jacrev, jvp/vjp/linearize, hvp, per-example vmap, vmap in_axes=1 / out_axes,
jit(grad), grad(jit), vmap(hessian), nested vmap, backend="jax"."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def pend(theta0, g=9.81, dt=0.01, n=60):
    th, om = theta0, 0.0
    for _ in range(n):
        om -= g * math.sin(th) * dt
        th += om * dt
    return th


def pend_ag(t):
    return agify(pend)(t)


agrad = lambda f: ag()[0].grad(f)  # noqa: E731
add(pair("r13_k_grad_grad_grad_pend", lambda: revsrc.grad(revsrc.grad(revsrc.grad(pend)))(0.4),
         lambda: agrad(agrad(agrad(pend_ag)))(0.4), tol=1e-7))
add(pair("r13_k_jit_grad_grad_pend", lambda: revsrc.jit(revsrc.grad(revsrc.grad(pend)))(0.4),
         lambda: agrad(agrad(pend_ag))(0.4), tol=1e-8))
add(pair("r13_k_grad_jit_pend", lambda: revsrc.grad(revsrc.jit(pend))(0.4), lambda: agrad(pend_ag)(0.4), tol=1e-9))
TS = np.array([0.1, 0.4, 0.9, 1.5])
add(pair("r13_k_vmap_hessian_pend", lambda: revsrc.vmap(revsrc.hessian(pend))(TS),
         lambda: np.array([agrad(agrad(pend_ag))(t) for t in TS]), tol=1e-8))
add(pair("r13_k_vmap_jit_grad_pend", lambda: revsrc.vmap(revsrc.jit(revsrc.grad(pend)))(TS),
         lambda: np.array([agrad(pend_ag)(t) for t in TS]), tol=1e-9))
add(pair("r13_k_jvp_of_grad_pend", lambda: revsrc.jvp(revsrc.grad(pend), (0.4,), (2.0,)),
         lambda: (agrad(pend_ag)(0.4), 2.0 * agrad(agrad(pend_ag))(0.4)), tol=1e-8))
add(pair("r13_k_pend_jax_backend_g", lambda: revsrc.grad(pend, argnums=1, backend="jax")(0.4, 9.81),
         lambda: ag()[0].grad(agify(pend), 1)(0.4, 9.81), tol=1e-9))


def sir_final(p):
    beta, gamma = p[0], p[1]
    S, I = 0.99, 0.01
    for _ in range(30):
        inf = beta * S * I
        S, I = S - 0.5 * inf, I + 0.5 * (inf - gamma * I)
    return np.array([S, I])


P2 = np.array([0.5, 0.1])
add(pair("r13_k_jacfwd_jacrev_agree_sir", lambda: revsrc.jacfwd(sir_final)(P2), lambda: revsrc.jacrev(sir_final)(P2), tol=1e-12))
add(pair("r13_k_jacfwd_sir_fd", lambda: revsrc.jacfwd(sir_final)(P2), lambda: fdj(sir_final, P2), tol=1e-7))


def sir_vjp():
    out, f_vjp = revsrc.vjp(sir_final, P2)
    return out, f_vjp(np.array([1.0, -2.0]))


add(pair("r13_k_vjp_sir", sir_vjp, lambda: (sir_final(P2), (np.array([1.0, -2.0]) @ fdj(sir_final, P2),)), tol=1e-7))


def sir_linearize():
    out, f_jvp = revsrc.linearize(sir_final, P2)
    return out, f_jvp(np.array([1.0, 0.0])), f_jvp(np.array([0.0, 1.0]))


add(pair("r13_k_linearize_sir", sir_linearize, lambda: (sir_final(P2), fdj(sir_final, P2)[:, 0], fdj(sir_final, P2)[:, 1]), tol=1e-7))
add(pair("r13_k_hvp_sir_I", lambda: revsrc.hvp(lambda p: sir_final(p)[1], (P2,), (np.array([0.3, 1.0]),)),
         lambda: ag()[0].hessian_vector_product(lambda p: agify(sir_final)(p)[1])(P2, np.array([0.3, 1.0])), tol=1e-8))


def loss_ex(w, x, y):
    h = np.tanh(w[:3] * x)
    return (np.sum(h * w[3:]) - y) ** 2


rng = np.random.default_rng(77)
WK = rng.normal(size=6)
XB = rng.normal(size=(5, 3))
YB = rng.normal(size=5)
per_ex_ref = lambda: np.stack([agrad(lambda w: agify(loss_ex)(w, x, y))(WK) for x, y in zip(XB, YB)])  # noqa: E731
add(pair("r13_k_per_example_grads", lambda: revsrc.vmap(revsrc.grad(loss_ex), in_axes=(None, 0, 0))(WK, XB, YB), per_ex_ref, tol=1e-9))
add(pair("r13_k_per_example_in_axes1", lambda: revsrc.vmap(revsrc.grad(loss_ex), in_axes=(None, 1, 0))(WK, XB.T.copy(), YB), per_ex_ref, tol=1e-9))
add(pair("r13_k_per_example_out_axes1", lambda: revsrc.vmap(revsrc.grad(loss_ex), in_axes=(None, 0, 0), out_axes=1)(WK, XB, YB),
         lambda: per_ex_ref().T, tol=1e-9))
add(pair("r13_k_per_example_values", lambda: revsrc.vmap(loss_ex, in_axes=(None, 0, 0))(WK, XB, YB),
         lambda: np.array([loss_ex(WK, x, y) for x, y in zip(XB, YB)]), tol=1e-13))
add(pair("r13_k_per_example_hessians", lambda: revsrc.vmap(revsrc.hessian(loss_ex), in_axes=(None, 0, 0))(WK, XB[:3], YB[:3]),
         lambda: np.stack([ag()[0].hessian(lambda w: agify(loss_ex)(w, x, y))(WK) for x, y in zip(XB[:3], YB[:3])]), tol=1e-8))
add(pair("r13_k_nested_vmap", lambda: revsrc.vmap(revsrc.vmap(lambda a, b: a * math.sin(b), in_axes=(None, 0)), in_axes=(0, None))(
    np.array([1.0, 2.0]), np.array([0.1, 0.2, 0.3])), lambda: np.outer([1.0, 2.0], np.sin([0.1, 0.2, 0.3])), tol=1e-14))
add(pair("r13_k_value_and_grad_batch_mean", lambda: revsrc.value_and_grad(
    lambda w: np.mean(revsrc.vmap(loss_ex, in_axes=(None, 0, 0))(w, XB, YB)))(WK),
    lambda: (np.mean([loss_ex(WK, x, y) for x, y in zip(XB, YB)]), per_ex_ref().mean(axis=0)), tol=1e-9))


def ik_like(q):
    a = np.cumsum(q)
    return np.array([np.sum(np.cos(a)), np.sum(np.sin(a))])


Q = np.array([0.2, -0.4, 0.7])
add(pair("r13_k_jacfwd_of_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(ik_like))(Q), lambda: jax().jacfwd(jax().jacrev(jaxify(ik_like)))(Q), tol=1e-10))
add(pair("r13_k_hessian_of_component", lambda: revsrc.hessian(lambda q: ik_like(q)[0])(Q), lambda: jax().hessian(lambda q: jaxify(ik_like)(q)[0])(Q), tol=1e-10))
add(pair("r13_k_jax_backend_jacobian", lambda: revsrc.jacrev(ik_like, backend="jax")(Q) if "backend" in revsrc.jacrev.__code__.co_varnames else revsrc.grad(lambda q: ik_like(q)[1], backend="jax")(Q),
         lambda: jax().jacrev(jaxify(ik_like))(Q) if "backend" in revsrc.jacrev.__code__.co_varnames else jax().grad(lambda q: jaxify(ik_like)(q)[1])(Q), tol=1e-10))
add(pair("r13_k_grad_of_jvp", lambda: revsrc.grad(lambda q: revsrc.jvp(ik_like, (q,), (np.ones(3),))[1][0])(Q),
         lambda: jax().grad(lambda q: jax().jvp(jaxify(ik_like), (q,), (np.ones(3),))[1][0])(Q), tol=1e-10))
add(pair("r13_k_grad_of_vjp", lambda: revsrc.grad(lambda q: revsrc.vjp(ik_like, q)[1](np.array([1.0, 2.0]))[0][1])(Q),
         lambda: jax().grad(lambda q: jax().vjp(jaxify(ik_like), q)[1](np.array([1.0, 2.0]))[0][1])(Q), tol=1e-10))


def vjp_named(q):
    out, f_vjp = revsrc.vjp(ik_like, q)
    return f_vjp(np.array([1.0, 2.0]))[0][1]


add(pair("r13_k_grad_of_vjp_named", lambda: revsrc.grad(vjp_named)(Q),
         lambda: jax().grad(lambda q: jax().vjp(jaxify(ik_like), q)[1](np.array([1.0, 2.0]))[0][1])(Q), tol=1e-10))
