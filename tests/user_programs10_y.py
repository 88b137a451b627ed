"""Round 10, user-registered rules in applied code: revsrc.defvjp for a SciPy special
function with no rule (the normal quantile ndtri in a VaR formula, the regularised
incomplete gamma in a queueing probability), a rule for a user function that calls an
iterative solver (implicit differentiation of a Newton solve), a broadcast rule for an
elementwise activation, revsrc.nondiff for a lookup, used under grad, value_and_grad,
vmap of grad, jacrev and hessian."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []


def norm_quantile(p):
    from scipy.special import ndtri
    return float(ndtri(p))


def _ndtri_rule(g, ans, p):
    return g * math.sqrt(2 * math.pi) * math.exp(0.5 * ans * ans)


revsrc.defvjp(norm_quantile, _ndtri_rule)


def value_at_risk(mu, sigma, level):
    return -(mu + sigma * norm_quantile(1.0 - level))


CASES.append(G("r10_defvjp_ndtri_value_at_risk", value_at_risk, (0.01, 0.2, 0.99), argnums=(0, 1, 2), h=1e-6))


def kepler_solve(M, e):
    E = M
    for _ in range(60):
        E = E - (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
    return E


def _kepler_rule(g, ans, M, e):
    d = 1 - e * math.cos(ans)
    return g / d, g * math.sin(ans) / d


revsrc.defvjp(kepler_solve, _kepler_rule)


def true_anomaly(M, e):
    E = kepler_solve(M, e)
    return 2 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))


CASES.append(G("r10_defvjp_implicit_kepler", true_anomaly, (1.1, 0.4), argnums=(0, 1)))


def mish(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _mish_rule(g, ans, x):
    sp = np.log1p(np.exp(x))
    t = np.tanh(sp)
    return g * (t + x * (1 - t * t) / (1 + np.exp(-x)))


revsrc.defvjp(mish, _mish_rule, broadcast=True)


def mish_layer(W, x):
    return np.sum(mish(W @ x) ** 2)


rng = np.random.default_rng(1016)
WM = rng.normal(size=(3, 4))
XM = rng.normal(size=4)
CASES.append(G("r10_defvjp_broadcast_mish_layer", mish_layer, (WM, XM), argnums=(0, 1), ref="jax"))


def bracket_lookup(x):
    return float(np.searchsorted(np.array([0.0, 1.0, 2.0, 5.0]), x))


revsrc.nondiff(bracket_lookup)


def tiered_cost(x):
    return bracket_lookup(x) * x ** 2 + x


CASES.append(G("r10_nondiff_lookup_tier", tiered_cost, (1.5,), ref=lambda: 2 * 2 * 1.5 + 1))


def per_item_var():
    return revsrc.vmap(revsrc.grad(value_at_risk, argnums=1), in_axes=(None, 0, None))(0.01, np.array([0.1, 0.2, 0.3]), 0.95)


CASES.append(pair("r10_vmap_grad_through_defvjp", per_item_var,
                  lambda: np.full(3, -norm_quantile(0.05)), tol=1e-12))


def vg_kepler():
    return revsrc.value_and_grad(true_anomaly, argnums=(0, 1))(1.1, 0.4)


CASES.append(pair("r10_value_and_grad_defvjp_kepler", vg_kepler,
                  lambda: (true_anomaly(1.1, 0.4), tuple(fd_checked(true_anomaly, (1.1, 0.4), argnums=(0, 1)))), tol=1e-7))


def kepler_vec(p):
    return np.array([true_anomaly(p[0], p[1]), kepler_solve(p[0], p[1])])


CASES.append(pair("r10_jacrev_through_defvjp", lambda: revsrc.jacrev(kepler_vec)(np.array([1.1, 0.4])),
                  lambda: np.array([fd_checked(lambda q: kepler_vec(q)[i], (np.array([1.1, 0.4]),))[0] for i in range(2)]),
                  tol=1e-6))


def hessian_through_rule():
    return revsrc.hessian(lambda M: kepler_solve(M, 0.4))(1.1)


# with a rule whose own derivative revsrc cannot take, a refusal (E104) is right; a number
# must be the true second derivative: E'' = -e sin(E) E'^2 / (1 - e cos E)
def _kepler_d2():
    E = kepler_solve(1.1, 0.4)
    d = 1 - 0.4 * math.cos(E)
    return -0.4 * math.sin(E) / d ** 3


CASES.append(pair("r10_hessian_through_defvjp_rule", hessian_through_rule, _kepler_d2, tol=1e-7))
