"""Python's operators and numeric builtins, on floats and arrays alike, and the IR's
own operations (copies, tuples, global reads). NumPy's spellings of the operators
(np.add, np.multiply...) are aliases of the same records."""
import builtins
import math
import operator

import numpy as np

from ..core import ir
from ..core import kinds as K
from ..runtime import containers, ieee
from ..runtime.arith import astype, stop_gradient
from ..primitives import PYTHON, alias, define, no_derivative, op, primitive, special
from ..runtime.grads import elementwise as _helpers

xp = np  # rebound per alias when a rule is inlined


# ----- Binary operators -----

@primitive("add", operator.add, np.add, kind=K.arith_kind, broadcast=True, jvp="elementwise",
           engine=op("ADD", "IADD"), infix="+", complex_ok=True)
def add(g, ans, x, y):
    return g, g


@primitive("sub", operator.sub, np.subtract, kind=K.arith_kind, broadcast=True,
           jvp="elementwise", engine=op("SUB", "ISUB"), infix="-", complex_ok=True)
def sub(g, ans, x, y):
    return g, -g


@primitive("mul", operator.mul, np.multiply, kind=K.arith_kind, broadcast=True,
           jvp="elementwise", engine=op("MUL", "IMUL"), infix="*", complex_ok=True)
def mul(g, ans, x, y):
    return g * y, g * x


@primitive("truediv", operator.truediv, np.divide, kind=K.truediv_kind, broadcast=True,
           jvp="elementwise", engine=op("DIV", "IDIV"), infix="/", complex_ok=True)
def truediv(g, ans, x, y):
    return g / y, -(g * ans) / y


@primitive("mod", operator.mod, np.remainder, kind=K.arith_kind, broadcast=True,
           jvp="elementwise", engine=op("MOD", "IMOD"), infix="%")
def mod(g, ans, x, y):
    return g, -(g * (x // y))


# math.pow, np.power, np.float_power and ``**`` are one primitive. On numbers
# ``xp.power``, ``xp.log`` and ``/`` are IEEE (revsrc/ieee.py): d x**0.5 at 0 is inf.
# As the primal selects: x**0 is 1 for every x (d/dx 0, also at 0, where
# 0 * 0**-1 would be nan), and 0**y is 0 for every y > 0 (d/dy 0, where 0 * log 0
# would be nan); JAX and PyTorch give the same.
@primitive("pow", operator.pow, np.power, np.float_power, math.pow, kind=K.pow_kind,
           broadcast=True, jvp="elementwise", complex_ok=True)
def pow_(g, ans, x, y):
    return (g * xp.where(y == 0, 0.0, y * xp.power(x, y - 1)),
            g * ans * xp.log(xp.where(x == 0, 1.0, x)))


alias("pow", operator.pow, engine=op("POW", "IPOW"), infix="**")
alias("pow", builtins.pow, engine=op("POW", "IPOW"))
alias("pow", math.pow, engine=op("MPOW"), kind=K.elementwise_kind)

# Derivative code on numbers (revsrc/ieee.py): the same records, IEEE on the engine too
alias("truediv", ieee.div, engine=op("DIV_IEEE"), family=PYTHON)
alias("pow", ieee.pow, engine=op("POW_IEEE"), kind=K.elementwise_kind, family=PYTHON)


@primitive("ieee.where", ieee.where, kind=K.select_of_branches, engine=op("SELECT"),
           jvp="elementwise", family=PYTHON)
def ieee_where(g, ans, condition, x, y):
    return None, xp.where(condition, g, 0.0), xp.where(condition, 0.0, g)


# x op= y: the same records (on arrays, revsrc/aliases.py makes the write explicit)
for _name, _inplace in [("add", operator.iadd), ("sub", operator.isub), ("mul", operator.imul),
                        ("truediv", operator.itruediv), ("mod", operator.imod),
                        ("pow", operator.ipow)]:
    alias(_name, _inplace)
no_derivative(operator.ifloordiv, operator.iand, operator.ior, operator.ixor,
              operator.ilshift, operator.irshift, kind=K.arith_kind)


# ----- Unary operators and numeric builtins -----

@primitive("neg", operator.neg, np.negative, kind=K.arith_kind, jvp="elementwise",
           engine=op("NEG", "INEG"), infix="-", complex_ok=True)
def neg(g, ans, x):
    return -g


@primitive("pos", operator.pos, np.positive, kind=K.arith_kind, jvp="elementwise",
           engine=op("MOV"), infix="+", complex_ok=True)
def pos(g, ans, x):
    return g


define("copy", ir.copy, vjp=pos, jvp="elementwise", kind=K.same_kind, engine=op("MOV"),
       complex_ok=True)
define("float", builtins.float, vjp=pos, jvp="elementwise", kind=K.constant(K.FLOAT),
       engine=op("MOV"))


# max(x, y) is y only when y > x (x on ties and when either is NaN: max(x, nan) is
# x): the derivative follows the operand returned.
@primitive("max", builtins.max, kind=K.select_kind, engine=special("minmax", "MAX"),
           jvp="elementwise")
def max_(g, ans, x, y):
    return g * (1 - (y > x)), g * (y > x)


@primitive("min", builtins.min, kind=K.select_kind, engine=special("minmax", "MIN"),
           jvp="elementwise")
def min_(g, ans, x, y):
    return g * (1 - (y < x)), g * (y < x)


@primitive("astype", astype, kind=K.array_kind, linear=(0,), complex_ok=True)
def astype_(g, ans, x, dtype, copy=True):
    return _helpers.astype_grad(g, x), None, None


# ----- The IR's own operations -----

def _global_kind(o, ctx):
    value = o.args[0].value.get(o.args[1].value)
    return K.of_value(value), (value.ndim if isinstance(value, np.ndarray) else None)


def _cell_kind(o, ctx):
    try:
        value = o.args[0].value.cell_contents
    except ValueError:
        return K.ANY
    return K.of_value(value), (value.ndim if isinstance(value, np.ndarray) else None)


# (the engine reads globals and closure cells before each run; see engine.py)
no_derivative(ir.load_global, kind=_global_kind)
no_derivative(ir.load_cell, kind=_cell_kind)
no_derivative(ir.check_assert, engine=special("assert"))
no_derivative(containers.check_unpack, engine=special("unpack"))
# A dict of differentiated values has no rule (yet): refused, not given zeros.
define("make_dict", ir.make_dict, kind=K.constant(K.DICT))
# Tuples and lists pass each item's adjoint through (the reverse pass does it itself).
define("make_tuple", ir.make_tuple, kind=K.constant(K.TUPLE))
define("make_list", ir.make_list, kind=K.constant(K.LIST))

# ----- No derivative -----

no_derivative(stop_gradient, kind=K.same_kind, engine=op("MOV"))

no_derivative(ir.truth, builtins.bool, operator.truth, kind=K.constant(K.BOOL),
              engine=special("truth"))
no_derivative(operator.not_, kind=K.constant(K.BOOL), engine=op("NOT"), infix="not")
no_derivative(operator.lt, kind=K.compare_kind, engine=op("LT"), infix="<")
no_derivative(operator.le, kind=K.compare_kind, engine=op("LE"), infix="<=")
no_derivative(operator.gt, kind=K.compare_kind, engine=op("GT"), infix=">")
no_derivative(operator.ge, kind=K.compare_kind, engine=op("GE"), infix=">=")
no_derivative(operator.eq, kind=K.compare_kind, engine=op("EQ"), infix="==")
no_derivative(operator.ne, kind=K.compare_kind, engine=op("NE"), infix="!=")
no_derivative(operator.floordiv, kind=K.arith_kind, engine=op("FLOORDIV", "IFLOORDIV"),
              infix="//")
no_derivative(operator.is_, kind=K.constant(K.BOOL), infix="is")
no_derivative(operator.is_not, kind=K.constant(K.BOOL), infix="is not")
no_derivative(operator.contains, builtins.isinstance, kind=K.constant(K.BOOL))
no_derivative(operator.and_, kind=K.arith_kind, infix="&")
no_derivative(operator.or_, kind=K.arith_kind, infix="|")
no_derivative(operator.xor, kind=K.arith_kind, infix="^")
no_derivative(operator.lshift, kind=K.arith_kind, infix="<<")
no_derivative(operator.rshift, kind=K.arith_kind, infix=">>")
no_derivative(operator.invert, kind=K.arith_kind, infix="~")
no_derivative(builtins.len, kind=K.constant(K.INT))
no_derivative(builtins.int, kind=K.constant(K.INT), engine=special("to_int", "FTOI"))
no_derivative(builtins.round, kind=K.constant(K.INT), engine=special("to_int", "ROUNDI"))
no_derivative(math.floor, kind=K.constant(K.INT), engine=special("to_int", "FLOORI"))
no_derivative(math.ceil, kind=K.constant(K.INT), engine=special("to_int", "CEILI"))
no_derivative(math.trunc, kind=K.constant(K.INT), engine=special("to_int", "FTOI"))
no_derivative(math.isnan, math.isinf, math.isfinite, kind=K.constant(K.BOOL))
no_derivative(builtins.range, builtins.slice, builtins.type, builtins.str)
no_derivative(builtins.getattr, kind=K.getattr_kind)
