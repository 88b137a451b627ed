"""Rules for Python's own statements and values inside a differentiated function:
guards (``raise``, ``assert`` messages, f-strings), which carry no gradient."""
import numpy as np

from .. import guards
from .. import kinds as K
from ..primitives import PYTHON, define, no_derivative, op
from .arith import pos

# ----- Guards -----

no_derivative(guards.raise_error, guards.raise_error_from, guards.fail_assert,
              kind=K.constant(K.NONE))
no_derivative(guards.fstring, format, repr, ascii)


# ----- Casts -----

def _cast_kind(scalar):
    def rule(op, ctx):
        a = op.args[0] if op.args else None
        if a is not None and ctx.kind(a) == K.ARRAY:
            return K.ARRAY, ctx.ndim(a)
        return scalar if a is None or ctx.kind(a) in K.SCALARS else K.ANY
    rule.__name__ = f"cast_to_{scalar}"
    return rule


# np.float64(x) is x as a float64 (a number, or a float64 array for an array): the
# derivative passes through, as for float(x)
define("float64", np.float64, vjp=pos, jvp="elementwise", kind=_cast_kind(K.FLOAT),
       engine=op("MOV"), family=PYTHON)
no_derivative(np.int64, np.int32, np.intp, kind=_cast_kind(K.INT))
