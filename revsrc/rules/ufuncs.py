"""Rules for NumPy's elementwise functions, on arrays and on Python floats alike.

Every rule here is written with operators and the NumPy functions the scalar engine
knows (np.sin, np.sqrt, np.sign...), so the same rule lowers to the engine when the
values are floats. Binary rules are registered with ``broadcast=True``: the
transformation sums each contribution back to its input's shape.
"""
import numpy as np

from . import _helpers, vjp

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046


# ----- Trigonometric -----

@vjp(np.sin)
def sin(g, ans, x):
    return g * np.cos(x)


@vjp(np.cos)
def cos(g, ans, x):
    return -(g * np.sin(x))


@vjp(np.tan)
def tan(g, ans, x):
    return g * (1.0 + ans * ans)


@vjp(np.arcsin)
def arcsin(g, ans, x):
    return g / np.sqrt(1.0 - x * x)


@vjp(np.arccos)
def arccos(g, ans, x):
    return -(g / np.sqrt(1.0 - x * x))


@vjp(np.arctan)
def arctan(g, ans, x):
    return g / (1.0 + x * x)


@vjp(np.deg2rad, np.radians)
def deg2rad(g, ans, x):
    return g * 0.017453292519943295


@vjp(np.rad2deg, np.degrees)
def rad2deg(g, ans, x):
    return g * 57.29577951308232


# ----- Hyperbolic -----

@vjp(np.sinh)
def sinh(g, ans, x):
    return g * np.cosh(x)


@vjp(np.cosh)
def cosh(g, ans, x):
    return g * np.sinh(x)


@vjp(np.tanh)
def tanh(g, ans, x):
    return _helpers.tanh_grad(g, ans)


@vjp(np.arcsinh)
def arcsinh(g, ans, x):
    return g / np.sqrt(x * x + 1.0)


@vjp(np.arccosh)
def arccosh(g, ans, x):
    return g / np.sqrt(x * x - 1.0)


@vjp(np.arctanh)
def arctanh(g, ans, x):
    return g / (1.0 - x * x)


# ----- Exponential and logarithmic -----

@vjp(np.exp)
def exp(g, ans, x):
    return g * ans


@vjp(np.exp2)
def exp2(g, ans, x):
    return g * ans * _LN2


@vjp(np.expm1)
def expm1(g, ans, x):
    return g * (ans + 1.0)


@vjp(np.log)
def log(g, ans, x):
    return g / x


@vjp(np.log1p)
def log1p(g, ans, x):
    return g / (1.0 + x)


@vjp(np.log2)
def log2(g, ans, x):
    return g / (x * _LN2)


@vjp(np.log10)
def log10(g, ans, x):
    return g / (x * _LN10)


@vjp(np.logaddexp, broadcast=True)
def logaddexp(g, ans, x, y):
    return g * np.exp(x - ans), g * np.exp(y - ans)


@vjp(np.logaddexp2, broadcast=True)
def logaddexp2(g, ans, x, y):
    return g * np.exp((x - ans) * _LN2), g * np.exp((y - ans) * _LN2)


# ----- Powers and roots -----

@vjp(np.sqrt)
def sqrt(g, ans, x):
    return g * 0.5 / ans


@vjp(np.cbrt)
def cbrt(g, ans, x):
    return g / (3.0 * ans * ans)


@vjp(np.square)
def square(g, ans, x):
    return g * 2.0 * x


@vjp(np.reciprocal)
def reciprocal(g, ans, x):
    return -(g * ans * ans)


@vjp(np.power, np.float_power, broadcast=True)
def power(g, ans, x, y):
    return g * y * np.power(x, y - 1), g * ans * np.log(x)


@vjp(np.hypot, broadcast=True)
def hypot(g, ans, x, y):
    return g * x / ans, g * y / ans


# ----- Sign and magnitude -----

@vjp(np.absolute, np.fabs)
def absolute(g, ans, x):
    return g * np.sign(x)


@vjp(np.positive)
def positive(g, ans, x):
    return g


@vjp(np.maximum, np.fmax, broadcast=True)
def maximum(g, ans, x, y):
    return g * (x >= y), g * (x < y)


@vjp(np.minimum, np.fmin, broadcast=True)
def minimum(g, ans, x, y):
    return g * (x <= y), g * (x > y)


@vjp(np.copysign, broadcast=True)
def copysign(g, ans, x, y):
    return g * np.sign(x) * np.sign(ans), None


@vjp(np.clip, broadcast=True)
def clip(g, ans, a, a_min=None, a_max=None):
    return (_helpers.clip_grad_a(g, a, a_min, a_max), _helpers.clip_grad_min(g, a, a_min, a_max),
            _helpers.clip_grad_max(g, a, a_min, a_max))


@vjp(np.where, broadcast=True)
def where(g, ans, condition, x=None, y=None):
    return None, _helpers.where_grad(g, condition, True), _helpers.where_grad(g, condition, False)


# ----- Binary arithmetic -----
# np.add, np.subtract, np.multiply, np.divide and np.remainder share the operators'
# rules in arith.py.

@vjp(np.fmod, broadcast=True)
def fmod(g, ans, x, y):
    return g, -(g * np.trunc(x / y))


@vjp(np.arctan2, broadcast=True)
def arctan2(g, ans, y, x):
    return g * x / (x * x + y * y), -(g * y) / (x * x + y * y)


# ----- Special functions -----

@vjp(np.sinc)
def sinc(g, ans, x):
    return _helpers.sinc_grad(g, x)


# ----- Complex parts (a real input is its own real part) -----

@vjp(np.real)
def real(g, ans, val):
    return _helpers.real_grad(g, val)


@vjp(np.imag)
def imag(g, ans, val):
    return _helpers.imag_grad(g, val)


@vjp(np.conjugate)
def conjugate(g, ans, x):
    return np.conjugate(g)
