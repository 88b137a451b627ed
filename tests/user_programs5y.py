"""User programs, corpus 5y: your own rules (revsrc.defvjp, revsrc.nondiff) called with keywords."""
import numpy as np

import revsrc
from user_programs5_harness import case

CASES = []
K = np.array([0.9, 0.2, 0.6, 1.3])
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])


def softplus5(x):
    return np.log1p(np.exp(x))


@revsrc.defvjp(softplus5, broadcast=True)
def softplus5_rule(g, ans, x):
    return g / (1.0 + np.exp(-x))


def scaled5(x, s):
    return s * np.tanh(x)


@revsrc.defvjp(scaled5, broadcast=True)
def scaled5_rule(g, ans, x, s):
    return (g * s * (1 - np.tanh(x) ** 2), g * np.tanh(x))


def passthrough5(x):
    return x


revsrc.nondiff(passthrough5)


def rule_positional(v):
    return np.sum(softplus5(v) ** 2)


def rule_keyword(v):
    return np.sum(softplus5(x=v) ** 2)


def rule_two_positional(v):
    return np.sum(scaled5(v, v[::-1]))


def rule_two_keywords(v):
    return np.sum(scaled5(x=v, s=2.0 * v))


def rule_second_by_keyword(v):
    return np.sum(scaled5(K, s=v))


def nondiff_then_use(v):
    return np.sum(passthrough5(v) * v)


for _name, _fn in [("positional", rule_positional), ("keyword", rule_keyword),
                   ("two_positional", rule_two_positional), ("two_keywords", rule_two_keywords),
                   ("second_by_keyword", rule_second_by_keyword)]:
    CASES.append(case("rule_grad_" + _name, _fn, (X,)))
    CASES.append(case("rule_jvp_" + _name, _fn, (X,), t="jvp", tangents=V))
    CASES.append(case("rule_hessian_" + _name, _fn, (X,), t="hessian", tol=1e-5))

# nondiff: the gradient goes only through the second factor
CASES.append(case("rule_grad_nondiff", nondiff_then_use, (X,), ref=lambda: [X]))
CASES.append(case("rule_jvp_nondiff", nondiff_then_use, (X,), t="jvp", tangents=V,
                  ref=lambda: [float(np.sum(X * X)), float(np.sum(X * V))]))
