"""Rules for Python's operators and numeric builtins, on floats and arrays alike."""
import builtins
import operator

import numpy as np

from .. import ir
from . import nondiff, vjp


def astype(x, dtype):
    """``x.astype(dtype)`` as a function the rule table can key on."""
    return np.asarray(x).astype(dtype)


# ----- Binary operators -----

@vjp(operator.add, np.add, broadcast=True)
def add(g, ans, x, y):
    return g, g


@vjp(operator.sub, np.subtract, broadcast=True)
def sub(g, ans, x, y):
    return g, -g


@vjp(operator.mul, np.multiply, broadcast=True)
def mul(g, ans, x, y):
    return g * y, g * x


@vjp(operator.truediv, np.divide, broadcast=True)
def truediv(g, ans, x, y):
    return g / y, -(g * ans) / y


@vjp(operator.pow, broadcast=True)
def pow_(g, ans, x, y):
    return g * y * x ** (y - 1), g * ans * np.log(x)


@vjp(operator.mod, np.remainder, broadcast=True)
def mod(g, ans, x, y):
    return g, -(g * (x // y))


# ----- Unary operators and numeric builtins -----

@vjp(operator.neg, np.negative)
def neg(g, ans, x):
    return -g


@vjp(operator.pos, ir.copy, float)
def pos(g, ans, x):
    return g


@vjp(abs)
def abs_(g, ans, x):
    return g * np.sign(x)


@vjp(builtins.max)
def max_(g, ans, x, y):
    return g * (x >= y), g * (y > x)


@vjp(builtins.min)
def min_(g, ans, x, y):
    return g * (x <= y), g * (y < x)


@vjp(astype)
def astype_(g, ans, x, dtype):
    return g, None


# ----- No derivative -----

nondiff(operator.floordiv, operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
        operator.ne, operator.not_, operator.is_, operator.is_not, operator.contains,
        operator.and_, operator.or_, operator.xor, operator.invert, operator.lshift,
        operator.rshift, ir.truth, ir.check_assert, ir.load_global, ir.load_cell,
        int, bool, len, round, isinstance, range, slice, getattr, type, str)
