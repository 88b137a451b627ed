"""Elementwise functions: the ``math`` module's and NumPy's, one record per function.

A math function and its NumPy twin share one rule. Inside a rule ``xp`` is the
namespace of the primal being differentiated: ``xp.cos`` is ``math.cos`` in the
derivative of ``math.sin`` and ``np.cos`` in that of ``np.sin``, so each twin keeps its
own semantics (the math module raises on a domain error, NumPy returns nan) and its
own digits. Every rule here is ``g`` times a partial derivative, so the forward rule
is the same expression with ``g`` read as the tangent, and broadcasting is undone by
the transformation, once.

On the scalar engine the math twins run the C library's functions (as the math module
does); the NumPy twins run NumPy's own float64 loops, whatever no entry here says.
"""
import math
import operator

import numpy as np

from . import kind_rules as KR
from ..core import kinds as K
from .. import _kernels
from ..runtime import ieee, tensor
from ..runtime.arith import conj_method
from ..primitives import MATH, Fused, alias, declare, math1, op, special
from .register import elementwise, jvp_rule, primitive
from ..runtime import forward_grads as _forward
from ..runtime.grads import elementwise as _helpers

xp = np  # rebound per alias when a rule is inlined

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046
_TWO_OVER_SQRT_PI = 1.1283791670955126
_INF = math.inf


def _zero(o):
    return getattr(o, "value", None) is not None and type(o.value) in (int, float) \
        and o.value == 0


# ----- Trigonometric -----

@elementwise("sin", math.sin, np.sin, complex_ok=True)
def sin(g, ans, x):
    return g * xp.cos(x)


declare(np.sin, loop_kernel=(_kernels.sin, 1))


@elementwise("cos", math.cos, np.cos, complex_ok=True)
def cos(g, ans, x):
    return -(g * xp.sin(x))


declare(np.cos, loop_kernel=(_kernels.cos, 1))


# Loops compute cos(x) beside an active sin(x) (and sin beside cos) in the forward
# sweep: the adjoint reads it, and the engine makes the pair one sincos() call.
alias("sin", math.sin, engine=op("SIN"), companion=math.cos)
alias("cos", math.cos, engine=op("COS"), companion=math.sin)


@elementwise("tan", math.tan, np.tan, engine=math1("tan"), complex_ok=True)
def tan(g, ans, x):
    return g * (1.0 + ans * ans)


@elementwise("arcsin", math.asin, np.arcsin, engine=math1("asin"), complex_ok=True)
def arcsin(g, ans, x):
    return g / xp.sqrt(1.0 - x * x)


declare(math.asin, numpy_name="arcsin")


@elementwise("arccos", math.acos, np.arccos, engine=math1("acos"), complex_ok=True)
def arccos(g, ans, x):
    return -(g / xp.sqrt(1.0 - x * x))


declare(math.acos, numpy_name="arccos")


@elementwise("arctan", math.atan, np.arctan, engine=math1("atan"), complex_ok=True)
def arctan(g, ans, x):
    return g / (1.0 + x * x)


declare(math.atan, numpy_name="arctan")


@elementwise("arctan2", math.atan2, np.arctan2, engine=op("ATAN2"))
def arctan2(g, ans, y, x):
    return g * x / (x * x + y * y), -(g * y) / (x * x + y * y)


declare(math.atan2, numpy_name="arctan2")


@elementwise("deg2rad", math.radians, np.deg2rad, np.radians,
             engine=special("scale", math.pi / 180.0))
def deg2rad(g, ans, x):
    return g * 0.017453292519943295


@elementwise("rad2deg", math.degrees, np.rad2deg, np.degrees,
             engine=special("scale", 180.0 / math.pi))
def rad2deg(g, ans, x):
    return g * 57.29577951308232


# ----- Hyperbolic -----

@elementwise("sinh", math.sinh, np.sinh, engine=math1("sinh"), complex_ok=True)
def sinh(g, ans, x):
    return g * xp.cosh(x)


@elementwise("cosh", math.cosh, np.cosh, engine=math1("cosh"), complex_ok=True)
def cosh(g, ans, x):
    return g * xp.sinh(x)


# On arrays the whole adjoint is one pass of the compiled kernel (same bits).
@elementwise("tanh", math.tanh, np.tanh, engine=math1("tanh"),
             fused=Fused(tensor.tanh_vjp, ("g", "ans")), complex_ok=True)
def tanh(g, ans, x):
    return g * (1.0 - ans * ans)


declare(np.tanh, loop_kernel=(_kernels.tanh, 1))


@elementwise("arcsinh", math.asinh, np.arcsinh, engine=math1("asinh"), complex_ok=True)
def arcsinh(g, ans, x):
    return g / xp.sqrt(x * x + 1.0)


declare(math.asinh, numpy_name="arcsinh")


@elementwise("arccosh", math.acosh, np.arccosh, engine=math1("acosh"), complex_ok=True)
def arccosh(g, ans, x):
    return g / xp.sqrt(x * x - 1.0)


declare(math.acosh, numpy_name="arccosh")


@elementwise("arctanh", math.atanh, np.arctanh, engine=math1("atanh"), complex_ok=True)
def arctanh(g, ans, x):
    return g / (1.0 - x * x)


declare(math.atanh, numpy_name="arctanh")


# ----- Exponential and logarithmic -----

@elementwise("exp", math.exp, np.exp, engine=op("EXP"), complex_ok=True)
def exp(g, ans, x):
    return g * ans


declare(np.exp, loop_kernel=(_kernels.exp, 1))


@elementwise("exp2", np.exp2, complex_ok=True)
def exp2(g, ans, x):
    return g * ans * _LN2


@elementwise("expm1", math.expm1, np.expm1, engine=math1("expm1"), complex_ok=True)
def expm1(g, ans, x):
    return g * (ans + 1.0)


@elementwise("log", np.log, complex_ok=True)
def log(g, ans, x):
    return g / x


declare(np.log, loop_kernel=(_kernels.log, 1))


alias("log", ieee.log, engine=op("LOG_IEEE"), kind=KR.elementwise_kind, family=MATH)
declare(ieee.log, pure=False, raises_on_scalars=True)   # (not claimed: cse leaves it)


# math.log takes an optional base (np.log's second argument is ``out``).
@elementwise("math.log", math.log, engine=special("log"))
def log_base(g, ans, x, base=math.e):
    return g / (x * xp.log(base)), -(g * ans) / (base * xp.log(base))


@elementwise("log1p", math.log1p, np.log1p, engine=math1("log1p"), complex_ok=True)
def log1p(g, ans, x):
    return g / (1.0 + x)


@elementwise("log2", math.log2, np.log2, engine=math1("log2"), complex_ok=True)
def log2(g, ans, x):
    return g / (x * _LN2)


@elementwise("log10", math.log10, np.log10, engine=math1("log10"), complex_ok=True)
def log10(g, ans, x):
    return g / (x * _LN10)


# Softplus (np.logaddexp(0, x)) and log-sigmoid (-np.logaddexp(0, -x)) on arrays: each
# input's adjoint is one blocked pass over NumPy's own exp loop, in the sigmoid form
# g / (1 + exp(y - x)) (the rule's value, within its accuracy; it does not read ans).
@elementwise("logaddexp", np.logaddexp,
             fused=(Fused(tensor.logaddexp_vjp, ("g", "x", "y"), input=0),
                    Fused(tensor.logaddexp_vjp, ("g", "y", "x"), input=1)))
def logaddexp(g, ans, x, y):
    return g * xp.exp(x - ans), g * xp.exp(y - ans)


@elementwise("logaddexp2", np.logaddexp2)
def logaddexp2(g, ans, x, y):
    return g * xp.exp((x - ans) * _LN2), g * xp.exp((y - ans) * _LN2)


# ----- Powers and roots (pow itself is with the operators) -----

@elementwise("sqrt", math.sqrt, np.sqrt, engine=op("SQRT"), complex_ok=True)
def sqrt(g, ans, x):
    return g / (2.0 * ans)


declare(np.sqrt, loop_kernel=(_kernels.sqrt, 1))


@elementwise("cbrt", math.cbrt, np.cbrt, engine=math1("cbrt"))
def cbrt(g, ans, x):
    return g / (3.0 * ans * ans)


@elementwise("square", np.square, complex_ok=True)
def square(g, ans, x):
    return g * 2.0 * x


@elementwise("reciprocal", np.reciprocal, complex_ok=True)
def reciprocal(g, ans, x):
    return -(g * ans * ans)


@elementwise("hypot", math.hypot, np.hypot, engine=special("hypot"))
def hypot(g, ans, x, y):
    # x / ans is at most 1 in magnitude: dividing first keeps hypot's promise of no
    # overflow where x is huge (g * x would overflow first, in forward mode above all).
    # At the origin, a kink, the subgradient 0 (np.linalg.norm's there), not 0 / 0:
    # x / inf is 0 there, and so is its derivative (x and the inf's are 0 there).
    safe = xp.where(ans == 0, _INF, ans)
    return g * (x / safe), g * (y / safe)


# math.hypot of other than two coordinates: one call on their tuple (its value stays
# math.hypot's own), each coordinate's adjoint g * x / ans
@primitive("hypot_of", _helpers.hypot_of, kind=KR.constant(K.FLOAT), complex_ok=False)
def hypot_of(g, ans, xs):
    return _helpers.hypot_of_grad(g, xs, ans)


@jvp_rule("hypot_of")
def hypot_of_jvp(g, ans, xs):
    return _helpers.hypot_of_tangent(g, xs, ans)


# ----- Sign and magnitude -----

# abs() of a number, math.fabs, np.abs: the subgradient at 0 is 0 (as autograd and
# PyTorch choose). Of a complex z, |z|'s adjoint is Re(g) conj(z) / |z|: |z| is real, so
# only the real part of g is its adjoint (g is complex where |z| multiplies a complex
# number, and in a derivative of a derivative); np.sign's own rules differentiate this.
@elementwise("absolute", abs, math.fabs, np.absolute, np.fabs, complex_ok=True)
def absolute(g, ans, x):
    return _helpers.real_grad(g, x) * xp.conjugate(xp.sign(x))


# Forward rules of the functions that are not complex-differentiable (the reverse rule
# read as a forward one would be conjugated): for real inputs these are g * partial.
# d|z| = Re(conj(sign z) dz), written with functions that have rules (derivatives of
# any order) and that the scalar engine runs (real_grad is its argument there).
@jvp_rule("absolute")
def absolute_jvp(g, ans, x):
    return _helpers.real_grad(xp.conjugate(xp.sign(x)) * g, x)


# the builtin keeps an int an int: abs(-7) is 7, exact beyond 2**53 too
alias("absolute", abs, engine=op("ABS"), kind=KR.magnitude_kind)
# its jnp twin is jnp.abs (the jnp function of its NumPy name is jnp.absolute)
alias("absolute", math.fabs, engine=op("ABS"), jax="jnp.abs")
declare(math.fabs, numpy_name="absolute")
declare(abs, pure=True, raises_on_scalars=False, int_preserving=True)
declare(np.absolute, loop_kernel=(_kernels.absolute, 1))
# operator.abs has no record (``abs(x)`` calls the builtin), but the passes may meet it
declare(operator.abs, pure=True, raises_on_scalars=False)


# np.sign is piecewise constant on real numbers: where its input is a real number (by
# its kind) the analysis gives it no derivative. Of a complex z it is s = z / |z| (NumPy
# 2), smooth but at 0, and abs()'s rule reads it: z_bar = (g - Re(g s) conj(s)) / |z|,
# dz -> (dz - s Re(conj(s) dz)) / |z|, 0 at z = 0. On a real array these are exactly 0
# (s * s is 1, or s is 0 and |z| counts as inf); written with functions that have rules,
# so that they are differentiated again at any order.
@elementwise("sign", np.sign, complex_ok=True)
def sign(g, ans, x):
    r = xp.absolute(x)
    return (g - xp.real(g * ans) * xp.conjugate(ans)) / xp.where(r == 0, _INF, r)


@jvp_rule("sign")
def sign_jvp(g, ans, x):
    r = xp.absolute(x)
    return (g - ans * xp.real(xp.conjugate(ans) * g)) / xp.where(r == 0, _INF, r)


declare(np.sign, flat_on_reals=True)


@elementwise("copysign", math.copysign, np.copysign, engine=op("COPYSIGN"))
def copysign(g, ans, x, y):
    return g * xp.sign(x) * xp.sign(ans), None


# At a tie (x == y) each operand gets half of g, as in JAX and autograd: a sum of
# pieces that is smooth there gets its derivative (np.maximum(x, 0) - np.maximum(-x, 0)
# is x, and its derivative at 0 is 1; the whole tie to x gave 2). Elsewhere exactly g.
@elementwise("maximum", np.maximum,
             fused=Fused(tensor.relu_vjp, ("g", "x"), when=lambda o: _zero(o.args[1])))
def maximum(g, ans, x, y):
    return xp.where(x == y, g * 0.5, g * (x > y)), xp.where(x == y, g * 0.5, g * (x < y))


declare(np.maximum, loop_kernel=(_kernels.maximum, 2))


@elementwise("minimum", np.minimum)
def minimum(g, ans, x, y):
    return xp.where(x == y, g * 0.5, g * (x < y)), xp.where(x == y, g * 0.5, g * (x > y))


# np.fmax and np.fmin return the operand that is not NaN: the derivative goes to it
# (to x when both are NaN), and a tie is split as np.maximum's. The two tests of each
# operand never hold together (x > y is False where y is NaN), so their sum is their
# "or", kept a bool so that g keeps its dtype (v != v: v is NaN).
@elementwise("fmax", np.fmax)
def fmax(g, ans, x, y):
    return (xp.where(x == y, g * 0.5, g * ((x > y) + (y != y))),
            xp.where(x == y, g * 0.5, g * ((x < y) + ((x != x) > (y != y)))))


@elementwise("fmin", np.fmin)
def fmin(g, ans, x, y):
    return (xp.where(x == y, g * 0.5, g * ((x < y) + (y != y))),
            xp.where(x == y, g * 0.5, g * ((x > y) + ((x != x) > (y != y)))))


declare(np.minimum, loop_kernel=(_kernels.minimum, 2))


# ----- Remainders -----

# (math.fmod(x, y) = x - n y as np.fmod's; n by np.trunc for both: math.trunc of an
# overflowed x / y would raise, where the derivative's limit is inf)
@elementwise("fmod", np.fmod, math.fmod, engine=op("FMOD"))
def fmod(g, ans, x, y):
    return g, -(g * np.trunc(x / y))


# ldexp(x, i) = x * 2**i for an integer i: its adjoint scales g the same way (exactly).
@elementwise("ldexp", np.ldexp)
def ldexp(g, ans, x, i):
    return xp.ldexp(g, i), None


# ----- Special functions -----

@elementwise("erf", math.erf, engine=math1("erf"))
def erf(g, ans, x):
    return g * _TWO_OVER_SQRT_PI * xp.exp(-(x * x))


@elementwise("erfc", math.erfc, engine=math1("erfc"))
def erfc(g, ans, x):
    return -(g * _TWO_OVER_SQRT_PI * xp.exp(-(x * x)))


# ----- Selection -----

@elementwise("clip", np.clip)
def clip(g, ans, a, a_min=None, a_max=None):
    return (_helpers.clip_grad_a(g, a, a_min, a_max),
            _helpers.clip_grad_min(g, a, a_min, a_max),
            _helpers.clip_grad_max(g, a, a_min, a_max))


# np.where of numbers is a 0-d array, not a number.
@elementwise("where", np.where, kind=KR.array_of_broadcast, complex_ok=True)
def where(g, ans, condition, x=None, y=None):
    return (None, _helpers.where_grad(g, condition, True),
            _helpers.where_grad(g, condition, False))


# The first condition that holds chooses; ``default`` where none does.
@primitive("select", np.select, kind=KR.array_kind, linear=(1, 2), complex_ok=True)
def select(g, ans, condlist, choicelist, default=0):
    d = _helpers.select_grads(g, condlist, choicelist, default)
    return None, d[0], d[1]


# Non-finite elements are replaced by ``nan``, ``posinf`` and ``neginf``.
@primitive("nan_to_num", np.nan_to_num, kind=KR.elementwise_kind, complex_ok=True)
def nan_to_num(g, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d = _helpers.nan_to_num_grads(g, x, copy, nan, posinf, neginf)
    return d[0], None, d[1], d[2], d[3]


@elementwise("sinc", np.sinc, complex_ok=True)
def sinc(g, ans, x):
    return _helpers.sinc_grad(g, x)


# ----- Complex parts (a real input is its own real part) -----

@elementwise("real", np.real, complex_ok=True)
def real(g, ans, val):
    return _helpers.real_grad(g, val)


declare(np.real, view="always")


@elementwise("imag", np.imag, complex_ok=True)
def imag(g, ans, val):
    return _helpers.imag_grad(g, val)


declare(np.imag, view="always")


@elementwise("conjugate", np.conjugate, complex_ok=True)
def conjugate(g, ans, x):
    return np.conjugate(g)


# the methods x.conj() and x.conjugate(): on an array that is not complex, x itself
alias("conjugate", conj_method)
declare(conj_method, view="maybe")


@primitive("angle", np.angle, kind=KR.elementwise_kind, complex_ok=True)
def angle(g, ans, z, deg=False):
    return _helpers.angle_grad(g, z, deg)


@jvp_rule("real")
def real_jvp(g, ans, val):
    return np.real(g)


@jvp_rule("imag")
def imag_jvp(g, ans, val):
    return np.imag(g)


@jvp_rule("conjugate")
def conjugate_jvp(g, ans, x):
    return np.conjugate(g)


@jvp_rule("angle")
def angle_jvp(g, ans, z, deg=False):
    return _forward.angle_jvp(g, z, deg), None


# ``a`` itself, or its real part when its imaginary parts are all close to 0.
@primitive("real_if_close", np.real_if_close, kind=KR.array_kind, complex_ok=True)
def real_if_close(g, ans, a, tol=100):
    return _helpers.real_if_close_grad(g, a)
