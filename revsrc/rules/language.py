"""Rules for Python's own statements and values inside a differentiated function:
guards (``raise``, ``assert`` messages, f-strings), which carry no gradient."""
import numpy as np

from .. import runtime
from ..runtime import containers
from ..runtime import guards
from ..core import kinds as K
from . import kind_rules as KR
from ..primitives import PYTHON, declare, define, op
from .register import jvp_rule, no_derivative, primitive
from .arith import pos

# ----- Guards -----

no_derivative(guards.raise_error, guards.raise_error_from, guards.fail_assert,
              kind=KR.constant(K.NONE))
no_derivative(guards.fstring, format, repr, ascii)
# print(...) as a statement only (revsrc/frontend/lower/effects.py); a value it returns is refused
no_derivative(print, kind=KR.constant(K.NONE))


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
declare(np.float64, pure=False, raises_on_scalars=True)   # (not claimed: cse leaves it)
no_derivative(np.int64, np.int32, np.intp, kind=_cast_kind(K.INT))


def _first_kind(o, ctx):
    """A list for a list, a tuple for a tuple, a dict for a dict."""
    k = ctx.kind(o.args[0])
    return k if k in (K.LIST, K.TUPLE, K.DICT) else K.ANY


# ----- Lists, tuples and dicts built in the function (revsrc/runtime/containers.py, revsrc/passes/containers.py) -----
# An adjoint of a list or a tuple has one adjoint per item (an object array), of a
# dict one per key; these rules split and join them as the operations join values.

@primitive("list_append", containers.append, kind=KR.constant(K.LIST), linear=(0, 1))
def list_append(g, ans, xs, item):
    return containers.head_grad(g, 1), containers.item_grad(g, -1)


@primitive("list_extend", containers.extend, kind=KR.constant(K.LIST), linear=(0, 1))
def list_extend(g, ans, xs, items):
    return (containers.head_grad(g, len(items)),
            containers.as_items(containers.tail_grad(g, len(items)), items))


def _concat_kind(o, ctx):
    ks = ctx.kinds(o.args)
    return K.LIST if K.LIST in ks else K.TUPLE if K.TUPLE in ks else K.ANY


@primitive("seq_concat", containers.concat, kind=_concat_kind, linear=(0, 1))
def seq_concat(g, ans, a, b):
    return containers.head_grad(g, len(b)), containers.tail_grad(g, len(b))


@primitive("seq_repeat", containers.repeat, kind=_first_kind, linear=(0,))
def seq_repeat(g, ans, seq, n):
    return containers.repeat_grad(g, seq), None


@primitive("set_item", containers.set_item, kind=_first_kind, linear=(0, 2))
def set_item(g, ans, xs, index, value):
    return containers.set_item_grad(g, xs, index), None, containers.value_grad(g, index)


def _item_kind(o, ctx):
    """max(seq) of numbers: a float (the item's kind is not followed)."""
    return K.ANY


@primitive("max_of", containers.max_of, kind=_item_kind, complex_ok=False)
def max_of(g, ans, seq):
    return containers.picked_grad(g, seq, ans)


@primitive("min_of", containers.min_of, kind=_item_kind, complex_ok=False)
def min_of(g, ans, seq):
    return containers.picked_grad(g, seq, ans)


# The in-place forms the lowering writes (revsrc/passes/views.py makes each a new value
# before any transformation runs): kinds only.
define("list_append_in_place", containers.append_in_place, kind=KR.constant(K.LIST))
define("list_extend_in_place", containers.extend_in_place, kind=KR.constant(K.LIST))
define("list_repeat_in_place", containers.repeat_in_place, kind=KR.constant(K.LIST))
define("set_item_in_place", containers.set_item_in_place, kind=_first_kind)


@primitive("list", list, kind=KR.constant(K.LIST), linear=(0,))
def list_(g, ans, iterable=()):
    return containers.sequence_grad(g, iterable)


@primitive("tuple", tuple, kind=KR.constant(K.TUPLE), linear=(0,))
def tuple_(g, ans, iterable=()):
    return containers.sequence_grad(g, iterable)


@primitive("sorted", sorted, kind=KR.constant(K.LIST), complex_ok=False)
def sorted_(g, ans, iterable, key=None, reverse=False):
    return containers.sorted_grad(g, iterable, key, reverse)


@jvp_rule("max_of")
def max_of_jvp(g, ans, seq):
    return containers.picked_tangent(g, seq, ans)


@jvp_rule("min_of")
def min_of_jvp(g, ans, seq):
    return containers.picked_tangent(g, seq, ans)


@jvp_rule("sorted")
def sorted_jvp(g, ans, iterable, key=None, reverse=False):
    return containers.sorted_tangent(g, iterable, key, reverse)


# Dicts' methods (a dict's adjoint has one adjoint per key)

@primitive("dict_items", containers.dict_items, kind=KR.constant(K.LIST), linear=(0,))
def dict_items(g, ans, d):
    return containers.items_grad(g, d)


@primitive("dict_values", containers.dict_values, kind=KR.constant(K.LIST), linear=(0,))
def dict_values(g, ans, d):
    return containers.values_grad(g, d)


@primitive("dict_get", containers.dict_get, linear=(0, 2))
def dict_get(g, ans, d, key, default=None):
    return containers.get_grad(g, d, key), None, containers.get_default_grad(g, d, key)


no_derivative(containers.dict_keys, kind=KR.constant(K.LIST))
no_derivative(guards.errstate_enter, guards.errstate_exit)


@primitive("result_field", containers.result_field, linear=(0,))
def result_field(g, ans, result, name):
    return containers.result_field_grad(g, result, name), None


@primitive("unzip", containers.unzip, kind=KR.constant(K.TUPLE), linear=(0,))
def unzip(g, ans, seq):
    return containers.unzip_grad(g, seq)


@primitive("dict", dict, kind=KR.constant(K.DICT), linear=(0,))
def dict_(g, ans, source=()):
    return containers.dict_of_grad(g, source)


@jvp_rule("dict")
def dict_jvp(g, ans, source=()):
    return containers.dict_tangent(g, source)
no_derivative(containers.key_at)


# {**a, **b} (merge), and a | b of dicts (dict_merge: a | b of anything else)
@primitive("dict_merge", containers.merge, containers.dict_merge, kind=KR.constant(K.DICT))
def dict_merge(g, ans, a, b):
    return containers.merge_grad(g, a, b, 0), containers.merge_grad(g, a, b, 1)


@jvp_rule("dict_merge")
def dict_merge_jvp(g, ans, a, b):
    return containers.merge_tangent(g, a, b, 0), containers.merge_tangent(g, a, b, 1)


# A revsrc derivative called inside, inlined for a float argument whose kind the
# program could not tell (an item of a global list): the value, checked when it runs.
@primitive("float_argument", runtime.float_argument, kind=KR.constant(K.FLOAT), linear=(0,))
def float_argument_vjp(g, ans, value, loc=None):
    return g, None
