"""Python's operators and numeric builtins, on floats and arrays alike, and the IR's
own operations (copies, tuples, global reads). NumPy's spellings of the operators
(np.add, np.multiply...) are aliases of the same records."""
import builtins
import math
import operator

import numpy as np

from ..core import ir
from ..core import kinds as K
from . import kind_rules as KR
from ..runtime import containers, ieee
from ..runtime.arith import astype, max_ties, max_tied, min_ties, min_tied, stop_gradient
from .. import _kernels
from ..primitives import PYTHON, alias, declare, define, op, special
from .register import no_derivative, primitive
from ..runtime.grads import elementwise as _helpers

xp = np  # rebound per alias when a rule is inlined


# ----- Binary operators -----

@primitive("add", operator.add, np.add, kind=KR.arith_kind, broadcast=True, jvp="elementwise",
           engine=op("ADD", "IADD"), infix="+", complex_ok=True)
def add(g, ans, x, y):
    return g, g


# (facts the passes ask about: see primitives.FACTS)
declare(operator.add, pure=True, raises_on_scalars=False, effect_free=True, cheap=True,
        int_preserving=True, array_ufunc=np.add, loop_kernel=(_kernels.add, 2))
declare(np.add, loop_kernel=(_kernels.np_add, 2))


@primitive("sub", operator.sub, np.subtract, kind=KR.arith_kind, broadcast=True,
           jvp="elementwise", engine=op("SUB", "ISUB"), infix="-", complex_ok=True)
def sub(g, ans, x, y):
    return g, -g


declare(operator.sub, pure=True, raises_on_scalars=False, effect_free=True, cheap=True,
        int_preserving=True, array_ufunc=np.subtract, loop_kernel=(_kernels.subtract, 2))
declare(np.subtract, loop_kernel=(_kernels.np_subtract, 2))


@primitive("mul", operator.mul, np.multiply, kind=KR.arith_kind, broadcast=True,
           jvp="elementwise", engine=op("MUL", "IMUL"), infix="*", complex_ok=True)
def mul(g, ans, x, y):
    return g * y, g * x


declare(operator.mul, pure=True, raises_on_scalars=False, effect_free=True, cheap=True,
        int_preserving=True, array_ufunc=np.multiply, loop_kernel=(_kernels.multiply, 2))
declare(np.multiply, loop_kernel=(_kernels.np_multiply, 2))


@primitive("truediv", operator.truediv, np.divide, kind=KR.truediv_kind, broadcast=True,
           jvp="elementwise", engine=op("DIV", "IDIV"), infix="/", complex_ok=True)
def truediv(g, ans, x, y):
    return g / y, -(g * ans) / y


# 1.0 / 0.0 raises; np.divide(1.0, 0.0) is inf
declare(operator.truediv, pure=True, raises_on_scalars=True, effect_free=True,
        array_ufunc=np.true_divide, loop_kernel=(_kernels.true_divide, 2))
declare(np.true_divide, loop_kernel=(_kernels.np_true_divide, 2))


@primitive("mod", operator.mod, np.remainder, kind=KR.arith_kind, broadcast=True,
           jvp="elementwise", engine=op("MOD", "IMOD"), infix="%")
def mod(g, ans, x, y):
    return g, -(g * (x // y))


declare(operator.mod, pure=True, raises_on_scalars=True, int_preserving=True)


# math.pow, np.power, np.float_power and ``**`` are one primitive. On numbers
# ``xp.power``, ``xp.log`` and ``/`` are IEEE (revsrc/runtime/ieee.py): d x**0.5 at 0 is inf.
# As the primal selects: x**0 is 1 for every x (d/dx 0, also at 0, where
# 0 * 0**-1 would be nan), and 0**y is 0 for every y > 0 (d/dy 0, where 0 * log 0
# would be nan); JAX and PyTorch give the same.
@primitive("pow", operator.pow, np.power, np.float_power, math.pow, kind=KR.pow_kind,
           broadcast=True, jvp="elementwise", complex_ok=True)
def pow_(g, ans, x, y):
    return (g * xp.where(y == 0, 0.0, y * xp.power(x, y - 1)),
            g * ans * xp.log(xp.where(x == 0, 1.0, x)))


alias("pow", operator.pow, engine=op("POW", "IPOW"), infix="**")
declare(operator.pow, pure=True, raises_on_scalars=True, effect_free=True,
        int_preserving=True, array_ufunc=np.power)
alias("pow", builtins.pow, engine=op("POW", "IPOW"))
alias("pow", math.pow, engine=op("MPOW"), kind=KR.elementwise_kind)
declare(math.pow, numpy_name="power")

# Derivative code on numbers (revsrc/runtime/ieee.py): the same records, IEEE on the engine too
alias("truediv", ieee.div, engine=op("DIV_IEEE"), family=PYTHON)
alias("pow", ieee.pow, engine=op("POW_IEEE"), kind=KR.elementwise_kind, family=PYTHON)
# (not claimed pure: cse leaves derivative code's IEEE operations as they are)
for _fn in (builtins.pow, ieee.pow, ieee.div):
    declare(_fn, pure=False, raises_on_scalars=True)


@primitive("ieee.where", ieee.where, kind=KR.select_of_branches, engine=op("SELECT"),
           jvp="elementwise", family=PYTHON)
def ieee_where(g, ans, condition, x, y):
    return None, xp.where(condition, g, 0.0), xp.where(condition, 0.0, g)


declare(ieee.where, pure=False, raises_on_scalars=True)


# x op= y: the same records (on arrays, revsrc/passes/views.py makes the write explicit)
for _name, _inplace in [("add", operator.iadd), ("sub", operator.isub), ("mul", operator.imul),
                        ("truediv", operator.itruediv), ("mod", operator.imod),
                        ("pow", operator.ipow)]:
    alias(_name, _inplace)
no_derivative(operator.ifloordiv, operator.iand, operator.ior, operator.ixor,
              operator.ilshift, operator.irshift, kind=KR.arith_kind)


# ----- Unary operators and numeric builtins -----

@primitive("neg", operator.neg, np.negative, kind=KR.arith_kind, jvp="elementwise",
           engine=op("NEG", "INEG"), infix="-", complex_ok=True)
def neg(g, ans, x):
    return -g


declare(operator.neg, pure=True, raises_on_scalars=False, effect_free=True, cheap=True,
        int_preserving=True, array_ufunc=np.negative, loop_kernel=(_kernels.negative, 1))
declare(np.negative, loop_kernel=(_kernels.np_negative, 1))


@primitive("pos", operator.pos, np.positive, kind=KR.arith_kind, jvp="elementwise",
           engine=op("MOV"), infix="+", complex_ok=True)
def pos(g, ans, x):
    return g


declare(operator.pos, pure=True, raises_on_scalars=False, int_preserving=True)


define("copy", ir.copy, vjp=pos, jvp="elementwise", kind=KR.same_kind, engine=op("MOV"),
       complex_ok=True)
declare(ir.copy, pure=True, raises_on_scalars=False, effect_free=True, foldable=True,
        int_preserving=True)
define("float", builtins.float, vjp=pos, jvp="elementwise", kind=KR.constant(K.FLOAT),
       engine=op("MOV"))
declare(builtins.float, pure=True, raises_on_scalars=False)


# max(x, y) is y only when y > x (x when either is NaN: max(x, nan) is x): the
# derivative follows the operand returned; at a tie it is split in halves, as JAX's,
# so that 2 * max(x, y) + min(x, y) gets a derivative between its one-sided ones
# (following x in both would give d/dx = 3 where they are 1 and 2).
@primitive("max", builtins.max, kind=KR.select_kind, engine=special("minmax", "MAX"),
           jvp="elementwise")
def max_(g, ans, x, y):
    return g * (1 - (y > x) - 0.5 * (y == x)), g * ((y > x) + 0.5 * (y == x))


declare(builtins.max, pure=True, raises_on_scalars=False, int_preserving=True)


@primitive("min", builtins.min, kind=KR.select_kind, engine=special("minmax", "MIN"),
           jvp="elementwise")
def min_(g, ans, x, y):
    return g * (1 - (y < x) - 0.5 * (y == x)), g * ((y < x) + 0.5 * (y == x))


declare(builtins.min, pure=True, raises_on_scalars=False, int_preserving=True)


# max(a, b, c, ...) folded two at a time (revsrc/runtime/arith.py): where y ties x, and
# ``ties`` items before y equal x, y gets 1/(ties + 1) and x the rest, which it passes
# on to its own tied items; so each of n tied items gets 1/n (1/2 for two, as above).
@primitive("max_tied", max_tied, kind=KR.select_of_two_kind,
           engine=special("minmax_tied", "MAX"), jvp="elementwise")
def max_tied_(g, ans, x, y, ties):
    share = (y == x) / (ties + 1)
    return g * (1 - (y > x) - share), g * ((y > x) + share), None


@primitive("min_tied", min_tied, kind=KR.select_of_two_kind,
           engine=special("minmax_tied", "MIN"), jvp="elementwise")
def min_tied_(g, ans, x, y, ties):
    share = (y == x) / (ties + 1)
    return g * (1 - (y < x) - share), g * ((y < x) + share), None


no_derivative(max_ties, kind=KR.constant(K.FLOAT), engine=special("ties", "GT"))
no_derivative(min_ties, kind=KR.constant(K.FLOAT), engine=special("ties", "LT"))
for _fn in (max_tied, min_tied):
    declare(_fn, pure=True, raises_on_scalars=False, int_preserving=True)
for _fn in (max_ties, min_ties):
    declare(_fn, pure=True, raises_on_scalars=False)


@primitive("astype", astype, kind=KR.array_kind, linear=(0,), complex_ok=True)
def astype_(g, ans, x, dtype, copy=True):
    return _helpers.astype_grad(g, x, dtype), None, None


declare(astype, view="maybe")   # x.astype(t, copy=False)


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
define("make_dict", ir.make_dict, kind=KR.constant(K.DICT))
# Tuples and lists pass each item's adjoint through (the reverse pass does it itself).
define("make_tuple", ir.make_tuple, kind=KR.constant(K.TUPLE))
declare(ir.make_tuple, raises_on_scalars=False)   # a new tuple each time: not shared
define("make_list", ir.make_list, kind=KR.constant(K.LIST))

# ----- No derivative -----

no_derivative(stop_gradient, kind=KR.same_kind, engine=op("MOV"))
declare(stop_gradient, view="always")   # its argument itself

no_derivative(ir.truth, builtins.bool, operator.truth, kind=KR.constant(K.BOOL),
              engine=special("truth"))
declare(ir.truth, pure=True, raises_on_scalars=False)
declare(builtins.bool, pure=True, raises_on_scalars=False)
no_derivative(operator.not_, kind=KR.constant(K.BOOL), engine=op("NOT"), infix="not")
no_derivative(operator.lt, kind=KR.compare_kind, engine=op("LT"), infix="<")
no_derivative(operator.le, kind=KR.compare_kind, engine=op("LE"), infix="<=")
no_derivative(operator.gt, kind=KR.compare_kind, engine=op("GT"), infix=">")
no_derivative(operator.ge, kind=KR.compare_kind, engine=op("GE"), infix=">=")
no_derivative(operator.eq, kind=KR.compare_kind, engine=op("EQ"), infix="==")
no_derivative(operator.ne, kind=KR.compare_kind, engine=op("NE"), infix="!=")
for _fn in (operator.not_, operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
            operator.ne):
    declare(_fn, pure=True, raises_on_scalars=False)
no_derivative(operator.floordiv, kind=KR.arith_kind, engine=op("FLOORDIV", "IFLOORDIV"),
              infix="//")
declare(operator.floordiv, pure=True, raises_on_scalars=True, int_preserving=True)
no_derivative(operator.is_, kind=KR.constant(K.BOOL), infix="is")
no_derivative(operator.is_not, kind=KR.constant(K.BOOL), infix="is not")
no_derivative(operator.contains, builtins.isinstance, kind=KR.constant(K.BOOL))
no_derivative(operator.and_, kind=KR.arith_kind, infix="&")
no_derivative(operator.or_, kind=KR.arith_kind, infix="|")
no_derivative(operator.xor, kind=KR.arith_kind, infix="^")
no_derivative(operator.lshift, kind=KR.arith_kind, infix="<<")
no_derivative(operator.rshift, kind=KR.arith_kind, infix=">>")
no_derivative(operator.invert, kind=KR.arith_kind, infix="~")
# (not claimed pure: cse leaves them as they are)
for _fn in (operator.truth, operator.is_, operator.is_not, operator.and_, operator.or_,
            operator.xor, operator.lshift, operator.rshift, operator.invert):
    declare(_fn, pure=False, raises_on_scalars=True)
no_derivative(builtins.len, kind=KR.constant(K.INT))
no_derivative(builtins.int, kind=KR.constant(K.INT), engine=special("to_int", "FTOI"))
no_derivative(builtins.round, kind=KR.round_kind, engine=special("to_int", "ROUNDI"))
declare(builtins.int, pure=True, raises_on_scalars=True)     # int(inf) raises
declare(builtins.round, pure=True, raises_on_scalars=True)
no_derivative(math.floor, kind=KR.constant(K.INT), engine=special("to_int", "FLOORI"))
no_derivative(math.ceil, kind=KR.constant(K.INT), engine=special("to_int", "CEILI"))
no_derivative(math.trunc, kind=KR.constant(K.INT), engine=special("to_int", "FTOI"))
no_derivative(math.isnan, math.isinf, math.isfinite, kind=KR.constant(K.BOOL))
# math.factorial(n): an int (of a float, Python raises); the engine multiplies 2..n,
# exact while the product stays below 2**53, and defers to Python past it
no_derivative(math.factorial, kind=KR.constant(K.INT), engine=special("factorial"))
no_derivative(builtins.range, builtins.slice, builtins.type, builtins.str)
no_derivative(builtins.getattr, kind=KR.getattr_kind)
