"""Rules for SciPy's special functions (``scipy.special``), registered only when SciPy
is installed and a program calls one of them (see ``revsrc.rules``).

The ufuncs are elementwise, like NumPy's; logsumexp, softmax and log_softmax reduce
along ``axis``.
"""

import numpy as np
import scipy.special as sc

from . import kind_rules as KR
from ..primitives import NUMPY, define
from .register import elementwise, primitive
from ..runtime.grads import elementwise as _helpers

xp = np  # rebound per alias when a rule is inlined

# scipy.special.erf and erfc share math.erf's and math.erfc's records.
define("erf", sc.erf)
define("erfc", sc.erfc)


# ----- Logistic -----

@elementwise("expit", sc.expit)
def expit(g, ans, x):
    return g * ans * (1.0 - ans)


@elementwise("logit", sc.logit)
def logit(g, ans, x):
    return g / (x * (1.0 - x))


# ----- Gamma family -----

@elementwise("gammaln", sc.gammaln)
def gammaln(g, ans, x):
    return g * sc.digamma(x)


# polygamma(1, x) is zeta(2, x), which keeps float32 (polygamma does not).
@elementwise("digamma", sc.digamma, sc.psi, jax="jax.scipy.special.digamma")
def digamma(g, ans, x):
    return g * sc.zeta(2.0, x)


# ----- The normal distribution -----
# ndtr is the standard normal's cdf, ndtri its inverse, log_ndtr log(ndtr): the
# density phi(x) = exp(-x^2/2) / sqrt(2 pi) divided by exp(log_ndtr(x)) stays finite
# far in the left tail, where ndtr(x) underflows.

_INV_SQRT_2PI = 0.3989422804014327
_SQRT_2PI = 2.5066282746310002


@elementwise("ndtr", sc.ndtr, jax="jax.scipy.special.ndtr")
def ndtr(g, ans, x):
    return g * xp.exp(-0.5 * x * x) * _INV_SQRT_2PI


@elementwise("ndtri", sc.ndtri, jax="jax.scipy.special.ndtri")
def ndtri(g, ans, p):
    return g * xp.exp(0.5 * ans * ans) * _SQRT_2PI


@elementwise("log_ndtr", sc.log_ndtr, jax="jax.scipy.special.log_ndtr")
def log_ndtr(g, ans, x):
    return g * xp.exp(-0.5 * x * x - ans) * _INV_SQRT_2PI


# ----- Logarithms -----

# x log y, 0 where x is 0 (so is its derivative in y there).
@elementwise("xlogy", sc.xlogy)
def xlogy(g, ans, x, y):
    return g * xp.log(y), _helpers.xlogy_grad_y(g, x, y)


@primitive("logsumexp", sc.logsumexp, kind=KR.logsumexp_kind, family=NUMPY)
def logsumexp(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    d = _helpers.logsumexp_grads(g, ans, a, axis, b, keepdims, return_sign)
    return d[0], None, d[1]


# ----- Softmax -----

@primitive("softmax", sc.softmax, kind=KR.array_kind, family=NUMPY)
def softmax(g, ans, x, axis=None):
    return ans * (g - xp.sum(g * ans, axis=axis, keepdims=True))


@primitive("log_softmax", sc.log_softmax, kind=KR.array_kind, family=NUMPY)
def log_softmax(g, ans, x, axis=None):
    return g - xp.exp(ans) * xp.sum(g, axis=axis, keepdims=True)

