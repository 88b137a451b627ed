"""Statements that call a function for its effect on state that holds no gradient:
``logging.info(...)`` and the other logging functions, a logger's methods
(``log.warning(...)`` on a logger in a module global, a closure's variable or an
object's attribute), and ``np.random.seed(...)``. Each becomes an operation with no
result that runs in the forward sweep, where the user's call runs it
(revsrc/rules/effects.py says why that keeps log lines and random draws as the plain
call makes them).
"""
from __future__ import annotations

import ast
import sys

from ... import errors
from ...core import ir
from ...core.ir import Const, Op
from ...rules import effects
from .values import Known


def effect_statement(lowerer, sc, call, out, loc):
    """Lower the call statement ``call`` if it is one of these; False otherwise."""
    if _names_a_logger(sc, call.func):
        # read the logger when the program runs, as the user's code does
        base = lowerer._materialize(lowerer._expr(sc, call.func.value, out), out, loc)
        target, pre = ir.call_method, [base, Const(call.func.attr)]
    else:
        fn = lowerer._static_callee(sc, call.func, out)
        if fn is None or not any(fn is f for f in effects.effect_functions()):
            return False
        target, pre = fn, []
    args, kwargs = lowerer._call_args(sc, call, out, loc)
    args = pre + [lowerer._materialize(a, out, loc) for a in args]
    kwargs = [(k, lowerer._materialize(v, out, loc)) for k, v in kwargs]
    out.append(Op(None, target, tuple(args), tuple(kwargs), loc=loc))
    return True


def _names_a_logger(sc, func):
    """Whether ``func`` is ``name.method`` for a logging method, ``name`` a module
    global or a closure's variable that holds a logger now."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.attr in effects.LOGGER_METHODS):
        return False
    name = func.value.id
    while name not in sc.env and name not in sc.locals and sc.enclosing is not None:
        sc = sc.enclosing
    value = sc.env.get(name)
    if isinstance(value, (Known, Const)):
        return _is_logger(value.value)
    if name in sc.locals:
        return False   # the function's own variable
    # a global or a closure's variable, read when the program runs
    if name in sc.cells:
        return _is_logger(getattr(sc.cells[name], "cell_contents", None))
    return _is_logger(sc.globals.get(name))


def _is_logger(value):
    # no logger exists before the logging module is loaded (revsrc does not load it)
    logging = sys.modules.get("logging")
    return logging is not None and isinstance(value, logging.Logger)


# the special methods that change their object, called by name (y.__setitem__(0, v)):
# the statement they stand for is followed, the call is refused (E401)
_IN_PLACE_DUNDERS = frozenset(
    ["__setitem__", "__delitem__", "__setattr__", "__delattr__", "__setstate__"] +
    [f"__i{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                             "pow", "lshift", "rshift", "and", "xor", "or")])
_CHANGING = frozenset(("append", "extend", "insert", "pop", "update", "fill", "sort",
                       "resize", "setdefault", "clear", "remove", "popitem", "add",
                       "discard", "put", "itemset", "partition", "setflags"))


def refuse_changing_method(name, loc):
    """Refuse (E401) a call of method ``name`` that changes its object in place."""
    if name in _IN_PLACE_DUNDERS:
        raise errors.SideEffect(
            f"method .{name}() called by name changes its object in place, which "
            "revsrc follows only as the statement itself", loc=loc,
            hint="write the statement: y[i] = v for y.__setitem__(i, v), y += x for "
                 "y.__iadd__(x)")
    if name in _CHANGING:
        raise errors.SideEffect(
            f"method .{name}() is not supported (it may change its object in place)",
            loc=loc, hint="use the NumPy function, e.g. np.sum(x) for x.sum()")
