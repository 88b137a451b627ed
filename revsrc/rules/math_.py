"""Rules for the ``math`` module's functions on floats."""
import math

from . import nondiff, vjp

# ----- Trigonometric -----


@vjp(math.sin)
def sin(g, ans, x):
    return g * math.cos(x)


@vjp(math.cos)
def cos(g, ans, x):
    return -(g * math.sin(x))


@vjp(math.tan)
def tan(g, ans, x):
    return g * (1.0 + ans * ans)


@vjp(math.asin)
def asin(g, ans, x):
    return g / math.sqrt(1.0 - x * x)


@vjp(math.acos)
def acos(g, ans, x):
    return -g / math.sqrt(1.0 - x * x)


@vjp(math.atan)
def atan(g, ans, x):
    return g / (1.0 + x * x)


@vjp(math.atan2)
def atan2(g, ans, y, x):
    return g * x / (x * x + y * y), -(g * y) / (x * x + y * y)


# ----- Hyperbolic -----

@vjp(math.sinh)
def sinh(g, ans, x):
    return g * math.cosh(x)


@vjp(math.cosh)
def cosh(g, ans, x):
    return g * math.sinh(x)


@vjp(math.tanh)
def tanh(g, ans, x):
    return g * (1.0 - ans * ans)


@vjp(math.asinh)
def asinh(g, ans, x):
    return g / math.sqrt(x * x + 1.0)


@vjp(math.acosh)
def acosh(g, ans, x):
    return g / math.sqrt(x * x - 1.0)


@vjp(math.atanh)
def atanh(g, ans, x):
    return g / (1.0 - x * x)


# ----- Exponential and logarithmic -----

@vjp(math.exp)
def exp(g, ans, x):
    return g * ans


@vjp(math.expm1)
def expm1(g, ans, x):
    return g * (ans + 1.0)


@vjp(math.log)
def log(g, ans, x, base=math.e):
    return g / (x * math.log(base)), -(g * ans) / (base * math.log(base))


@vjp(math.log1p)
def log1p(g, ans, x):
    return g / (1.0 + x)


@vjp(math.log2)
def log2(g, ans, x):
    return g / (x * 0.6931471805599453)


@vjp(math.log10)
def log10(g, ans, x):
    return g / (x * 2.302585092994046)


@vjp(math.sqrt)
def sqrt(g, ans, x):
    return g / (2.0 * ans)


@vjp(math.pow)
def pow_(g, ans, x, y):
    return g * y * math.pow(x, y - 1.0), g * ans * math.log(x)


@vjp(math.hypot)
def hypot(g, ans, x, y):
    return g * x / ans, g * y / ans


# ----- Special functions -----

@vjp(math.erf)
def erf(g, ans, x):
    return g * 1.1283791670955126 * math.exp(-(x * x))


@vjp(math.erfc)
def erfc(g, ans, x):
    return -(g * 1.1283791670955126 * math.exp(-(x * x)))


# ----- Sign and magnitude -----

@vjp(math.fabs)
def fabs(g, ans, x):
    return g * math.copysign(1.0, x)


@vjp(math.copysign)
def copysign(g, ans, x, y):
    return g * math.copysign(1.0, x) * math.copysign(1.0, y), None


nondiff(math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite)
