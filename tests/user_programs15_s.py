"""Round 15, part s: rules and options -- revsrc.defvjp rules (a scalar rule and a
two-input rule returning None) under hessian, jit and vmap; revsrc.nondiff; math.prod
with a zero item, math.fsum, quantiles with ties, np.vectorize; memory= on
value_and_grad, vjp, hessian and jit; revsrc.source of this round's derivatives."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def logistic(x):
    return 1.0 / (1.0 + math.exp(-x))


@revsrc.defvjp(logistic)
def logistic_vjp(g, ans, x):
    return g * ans * (1.0 - ans)


def uses_logistic(x):
    return logistic(2.0 * x) * x


def _ul_d(x):
    s = 1 / (1 + math.exp(-2 * x))
    return 2 * s * (1 - s) * x + s


add(G("r15_defvjp_scalar_rule", uses_logistic, (0.4,), ref=lambda: _ul_d(0.4), tol=1e-14))
add(pair("r15_defvjp_scalar_rule_hessian", lambda: revsrc.hessian(uses_logistic)(0.4),
         lambda: ag()[0].grad(ag()[0].grad(lambda x: x / (1 + ag()[1].exp(-2 * x))))(0.4), tol=1e-12))
add(pair("r15_defvjp_scalar_rule_jit_grad", lambda: revsrc.jit(revsrc.grad(uses_logistic))(0.4), lambda: _ul_d(0.4), tol=1e-14))
add(pair("r15_defvjp_scalar_rule_vmap_grad", lambda: revsrc.vmap(revsrc.grad(uses_logistic))(np.array([0.4, -1.0])),
         lambda: np.array([_ul_d(0.4), _ul_d(-1.0)]), tol=1e-14))


def scaled_pow(x, p):
    return np.abs(x) ** p


@revsrc.defvjp(scaled_pow)
def scaled_pow_vjp(g, ans, x, p):
    return g * p * np.sign(x) * np.abs(x) ** (p - 1), None


def uses_pow(x, p):
    return np.sum(scaled_pow(x, p) * np.arange(1.0, 4.0))


XP = np.array([0.5, -2.0, 1.5])
add(G("r15_defvjp_two_inputs_none", uses_pow, (XP, 3.0), ref=lambda: 3.0 * np.sign(XP) * np.abs(XP) ** 2 * np.arange(1.0, 4.0), tol=1e-13))
add(pair("r15_defvjp_two_inputs_none_wrt_p", lambda: revsrc.grad(uses_pow, argnums=1)(XP, 3.0), lambda: 0.0, tol=0.0))


def noisy_lookup(x):
    return float(np.floor(x * 10.0)) / 10.0


revsrc.nondiff(noisy_lookup)


def uses_nondiff(x):
    return x * x + noisy_lookup(x) * x


add(G("r15_nondiff_helper", uses_nondiff, (0.73,), ref=lambda: 2 * 0.73 + 0.7, tol=1e-14))


def prod_zero(xs):
    return math.prod(xs) + math.fsum(v * v for v in xs)


XZ = [1.5, 0.0, -2.0]
add(G("r15_math_prod_zero_item_fsum", prod_zero, (XZ,), ref=lambda: [0.0 + 3.0, -3.0, 0.0 - 4.0], tol=1e-14))
add(pair("r15_math_prod_fsum_hessian", lambda: revsrc.hessian(lambda a: prod_zero([a[0], a[1], a[2]]))(np.array(XZ)),
         lambda: np.array([[2.0, -2.0, 0.0], [-2.0, 2.0, 1.5], [0.0, 1.5, 2.0]]), tol=1e-13))


def quant_ties(x):
    return np.quantile(x, 0.5) + np.percentile(x, 90.0)


XQ = np.array([1.0, 3.0, 3.0, 2.0, 5.0])
add(G("r15_quantile_median_ties", quant_ties, (XQ,), ref="fd", tol=1e-7, check=1e-3))


def vec_fn(x, a):
    return np.vectorize(lambda t, s: t * t if t > s else s * t)(x, a)


def uses_vectorize(x):
    return np.sum(vec_fn(x, 0.5))


add(G("r15_np_vectorize_branch_lambda", uses_vectorize, (np.array([0.2, 1.0, 0.7]),), ref=lambda: np.array([0.5, 2.0, 1.4]), tol=1e-14))


def long_loop(p, n=3000):
    x = 0.1
    for _ in range(n):
        x = x + 0.001 * (p - x * x)
    return x


add(EXACT("r15_memory_value_and_grad_equals_stored", lambda: revsrc.value_and_grad(long_loop, memory=2048)(0.8),
          lambda: revsrc.value_and_grad(long_loop)(0.8)))
add(EXACT("r15_memory_jit_equals_stored", lambda: revsrc.jit(revsrc.grad(long_loop, memory=2048))(0.8),
          lambda: revsrc.grad(long_loop)(0.8)))


def arr_long(p):
    s = np.array([0.1, 0.2, 0.3])
    for _ in range(400):
        s = s + 0.01 * (p - s * s[::-1])
    return np.sum(s ** 2)


PA = np.array([0.5, 0.8, 1.0])


def _vjp_mem():
    out, back = revsrc.vjp(arr_long, PA, memory=4096)
    return out, back(1.0)


def _vjp_stored():
    out, back = revsrc.vjp(arr_long, PA)
    return out, back(1.0)


add(EXACT("r15_memory_vjp_equals_stored", _vjp_mem, _vjp_stored))
add(pair("r15_memory_hessian_close_to_stored", lambda: revsrc.hessian(arr_long, memory=4096)(PA), lambda: revsrc.hessian(arr_long)(PA), tol=1e-12))
add(G("r15_memory_arr_long_vs_fd", arr_long, (PA,), ref="fd", tol=1e-7, memory="8KB"))
add(pair("r15_source_is_text", lambda: float(isinstance(revsrc.source(revsrc.grad(arr_long)), str) and "def" in revsrc.source(revsrc.grad(arr_long))),
         lambda: 1.0, tol=0.0))
add(pair("r15_source_of_hessian_is_text", lambda: float(len(revsrc.source(revsrc.hessian(uses_logistic))) > 0), lambda: 1.0, tol=0.0))
