"""User programs, corpus 6n: functions that call derivatives, mapped with vmap
(gradient penalties per example, Newton steps on arrays, score functions), and
derivatives of mapped-then-summed programs written without vmap.  References: JAX x64."""
import numpy as np

import revsrc
from user_programs6_harness import adder, jax, jaxify

CASES = []
RNG = np.random.default_rng(73)


J = jax


add = adder(CASES)


def energy(x):
    return np.sum(x ** 4) / 4.0 + np.sum(np.sin(x[:-1] * x[1:]))


D_ENERGY = revsrc.grad(energy)
H_ENERGY = revsrc.hessian(energy)
M = RNG.normal(size=(4, 3)) * 0.7


def grad_norm_sq(x):
    g = D_ENERGY(x)
    return np.sum(g * g)


def _j_grad_norm_sq(x):
    g = J().grad(jaxify(energy))(x)
    return J().numpy.sum(g * g)


add("calls_vmap_of_fn_calling_grad", lambda: revsrc.vmap(grad_norm_sq)(M), lambda: J().vmap(_j_grad_norm_sq)(M))
add("calls_vmap_grad_of_fn_calling_grad", lambda: revsrc.vmap(revsrc.grad(grad_norm_sq))(M),
    lambda: J().vmap(J().grad(_j_grad_norm_sq))(M))


def newton_step(x):
    return x - np.linalg.solve(H_ENERGY(x) + 5.0 * np.eye(3), D_ENERGY(x))


def _j_newton_step(x):
    H = J().hessian(jaxify(energy))(x)
    g = J().grad(jaxify(energy))(x)
    return x - J().numpy.linalg.solve(H + 5.0 * J().numpy.eye(3), g)


add("calls_vmap_newton_step_hessian_inside", lambda: revsrc.vmap(newton_step)(M), lambda: J().vmap(_j_newton_step)(M))
add("calls_jacfwd_newton_step_documented_E104", lambda: revsrc.jacfwd(newton_step)(M[0]),
    lambda: J().jacfwd(_j_newton_step)(M[0]))


def score_matching(x):
    g = D_ENERGY(x)
    return 0.5 * np.sum(g * g) - np.trace(H_ENERGY(x))


def _j_score(x):
    g = J().grad(jaxify(energy))(x)
    return 0.5 * J().numpy.sum(g * g) - J().numpy.trace(J().hessian(jaxify(energy))(x))


add("calls_vmap_score_matching", lambda: revsrc.vmap(score_matching)(M), lambda: J().vmap(_j_score)(M))


def summed_per_example(w, X, y):
    total = 0.0
    for i in range(X.shape[0]):
        total = total + (np.tanh(np.dot(w, X[i])) - y[i]) ** 2
    return total


W3 = np.array([0.2, -0.4, 0.6])
YY = RNG.normal(size=4)
add("calls_hessian_of_loop_over_examples", lambda: revsrc.hessian(summed_per_example)(W3, M, YY),
    lambda: J().hessian(jaxify(summed_per_example))(W3, M, YY))
add("calls_vmap_jacrev_of_grad_fn", lambda: revsrc.vmap(revsrc.jacrev(D_ENERGY))(M),
    lambda: J().vmap(J().jacrev(J().grad(jaxify(energy))))(M))
add("calls_vmap_jacfwd_of_grad_fn", lambda: revsrc.vmap(revsrc.jacfwd(D_ENERGY))(M),
    lambda: J().vmap(J().hessian(jaxify(energy)))(M))
