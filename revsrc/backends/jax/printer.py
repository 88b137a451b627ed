"""``backend="jax"``: the program revsrc writes, printed against jax.numpy.

The program is the one the other backends run (the forward sweep and the adjoint of
revsrc/passes/reverse.py, or the forward-mode program of revsrc/passes/jvp.py), printed
by `JnpPrinter`:

- each primitive as its jax.numpy twin (its record's ``jax`` field, else the jnp
  function of the NumPy name: `twin_name`), each runtime helper as its twin in
  revsrc/backends/jax/twins.py;
- the saving stacks as Python lists, item assignment as ``x = x.at[i].set(v)``;
- a branch on a traced test as both arms selected by it (`JnpPrinter._either_branch`),
  and loops so that they may run as lax loops (revsrc/backends/jax/loops_print.py).

revsrc/backends/jax/compiled.py compiles the text with ``jax.jit``, which traces the
printed function once per shapes, dtypes and static values. Control flow that depends
only on shapes, ints and flags runs while tracing: loops unroll, branches are taken,
and each saved value is one node of the XLA graph. Floats and arrays are traced, so a
branch, a ``while`` or a ``range`` on a value computed from them that cannot run as a
select or a lax loop is refused with E602, naming the user's line.
"""
from __future__ import annotations

import builtins
import math
import numbers
import operator
import sys
import types

import numpy as np

from ..printing import stack_name
from ..python import renumber
from ... import errors, primitives, runtime
from ...core import ir, kinds
from ...core.ir import Const, Op, Pop, Push, SetItem, While
from ...runtime import attempts, guards, inplace
from . import placeholders, state
from .load import require
from .loops_print import LoopPrinter
from .python_values import ARRAY_MAKERS, MIXED, array_dtype_of_array, wide_int

# ----- Which jnp function a primitive lowers to -----

_MATH_SPECIAL = {"erf": "jax.scipy.special.erf", "erfc": "jax.scipy.special.erfc",
                 "log": "_jaxgen.math_log", "floor": "_jaxgen.math_floor",
                 "ceil": "_jaxgen.math_ceil", "trunc": "_jaxgen.math_trunc",
                 "lgamma": "jax.lax.lgamma", "gamma": "jax.scipy.special.gamma"}
_BUILTINS = {"float": "_jaxgen.to_float", "print": "_jaxgen.show"}


def twin_name(fn):
    """The dotted name of ``fn``'s jax.numpy twin, or None if it has none: its
    record's ``jax`` field, else by family."""
    J = require()
    given = primitives.jax_twin(fn)
    if given is not None:
        return given
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return None
    if getattr(builtins, name, None) is fn:
        return _BUILTINS.get(name, name)
    if getattr(math, name, None) is fn:
        if name in _MATH_SPECIAL:
            return _MATH_SPECIAL[name]
        npname = primitives.fact(fn, "numpy_name") or name   # declared where it differs
        return f"jnp.{npname}" if hasattr(J.jnp, npname) else None
    for np_mod, jnp_mod, prefix in ((np, J.jnp, "jnp"), (np.linalg, J.jnp.linalg, "jnp.linalg"),
                                    (np.fft, J.jnp.fft, "jnp.fft")):
        if getattr(np_mod, name, None) is fn:
            return f"{prefix}.{name}" if hasattr(jnp_mod, name) else None
    mod = getattr(fn, "__module__", None) or ""
    special = sys.modules.get("scipy.special")
    if special is not None and getattr(special, name, None) is fn:
        return f"jax.scipy.special.{name}" if hasattr(J.jax.scipy.special, name) else None
    if runtime.is_helper(fn):
        ns, twin = J.helpers.twin_of(fn)
        if twin is not None:
            return f"_{mod.split('.')[-1].lstrip('_')}_jnp.{name}"
    return None


# ----- Python objects with state -----

# values whose methods are functions of their value: jax.jit may run them at the trace
_VALUES = (numbers.Number, np.ndarray, np.generic, np.dtype, str, bytes, list, tuple, dict,
           set, frozenset, slice, range, type(None), type, types.ModuleType)
# iterators a function makes for itself (over a list, a range): new at each trace
_OWN_ITERATORS = tuple(type(iter(x)) for x in ([], (), range(0), {}, "", {}.items()))


def stateless(obj, method):
    """``obj``, the receiver of a call of ``method`` (None: of ``next``) in a traced program,
    unless it is a Python object whose method may change it (a Generator, a counter, an
    object of the user's class): jax.jit runs the call once, as it traces, and every
    later call would return that first result, so it is refused (E603)."""
    if isinstance(obj, _VALUES + _OWN_ITERATORS) or _is_traced(obj):
        return obj
    what = f"next() of a {type(obj).__name__}" if method is None else \
        f"{type(obj).__name__}.{method}()"
    raise errors.JaxNotLowered(
        f"backend='jax': {what} is a call on a Python object, which "
        "jax.jit runs once, when it traces: later calls would reuse its first result "
        "(a generator would not advance)",
        hint="use backend=None for this function, or compute the value outside and "
             "pass it as an argument")


def _is_traced(obj):
    J = require()
    return isinstance(obj, (J.jax.Array, J.jax.core.Tracer))


# ----- Printing -----

def _namedtuple(kind):
    """Whether ``kind`` (make_node's first operand) is a namedtuple class."""
    kind = kind.value if isinstance(kind, Const) else None
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_make")


# kinds whose attributes are functions of their value (x.shape, z.real)
_VALUE_KINDS = {kinds.ARRAY, kinds.FLOAT, kinds.INT, kinds.BOOL}


# The containers revsrc builds for a line, as the user wrote them (E603 messages)
_BUILT = {"make_dict": "a dict built again on every turn", "make_list": "a list built "
          "again on every turn", "make_node": "a container built again on every turn"}


class JnpPrinter(LoopPrinter):
    """The loop printer with jnp twins, list stacks, functional item assignment and
    branches selected by their test. ``line_locs`` maps each printed line to (what,
    the user's Loc)."""

    def __init__(self, program, rename=None, runtime_ns=None):
        super().__init__(program, rename, runtime_ns)
        self._either = 0
        # variables the reverse pass starts as None only so they can be saved before
        # their first assignment: their None is no value of the program
        self.placeholders = {s.target for s in program.body
                             if isinstance(s, Op) and s.fn is ir.copy
                             and s.args == (Const(None),)}

    def fn_name(self, fn):
        if fn is ir.truth:
            return "bool"
        if fn is state.read:      # a read of Python state, made at the call
            return self.ref(fn, "read")
        if fn is guards.errstate_enter or fn is guards.errstate_exit:
            self.refs["_jaxgen"] = self.runtime_ns
            return "_jaxgen.errstate"
        dotted = twin_name(fn)
        if dotted is None:
            raise _NoTwin(fn)
        head = dotted.split(".")[0]
        if head.endswith("_jnp"):  # a revsrc module's twin, passed into the factory
            ns = self.J.helpers.twin_module(sys.modules[fn.__module__])
            self.refs[head] = ns
            self.ref_of[id(ns)] = head
        return dotted

    def expr(self, op):
        first = op.args[0] if op.args else None
        if (op.fn is getattr or op.fn is ir.get_attribute) and isinstance(first, str) and \
                len(op.args) == 2 and isinstance(op.args[1], Const) and \
                self.program.kinds.get(first) not in _VALUE_KINDS:
            # an attribute of a Python object, read as the trace runs: recorded, and
            # checked before each call (state.watch)
            return f"{self.ref(state.watch, 'watch')}({self.name(first)}, " \
                   f"{self.const(op.args[1].value)})"
        if op.fn is operator.getitem and isinstance(first, str) and not op.kwargs and \
                self.program.kinds.get(first) in (kinds.ANY, None):
            key = op.args[1]
            key = self._as_index(key) if self._listy(key) else self.operand(key)
            return f"{self.ref(state.watch_item, 'watch_item')}({self.name(first)}, {key})"
        if (op.fn is ir.call_method or op.fn is builtins.next) and isinstance(first, str) \
                and self.program.kinds.get(first) in (kinds.ANY, None):
            # the receiver is checked as the trace runs (`stateless`): a Python object
            # with state would be called once, at the trace, and frozen there
            what = op.args[1].value if op.fn is ir.call_method and \
                isinstance(op.args[1], Const) else None
            return self._with_name(first, f"{self.ref(stateless, 'stateless')}("
                                          f"{self.name(first)}, {what!r})", op)
        if isinstance(first, str) and self.program.kinds.get(first) in (kinds.LIST, kinds.TUPLE) \
                and primitives.family_of(op.fn) == primitives.NUMPY:
            name = getattr(op.fn, "__name__", "")
            if name not in self.J.helpers.SEQUENCES:
                # jnp takes arrays where NumPy also takes the list they stand for
                return self._with_name(first, f"jnp.asarray({self.name(first)})", op)
        if op.fn is inplace.array_dtype and isinstance(first, str) and \
                self._made_array(first):
            return f"{self.ref(array_dtype_of_array, 'array_dtype_of_array')}({self.name(first)})"
        if op.fn is ir.make_dict and not op.kwargs and not self._lax_depth:
            # outside loops that may run as lax loops (an aux output, a short loop) a
            # dict of traced values is a pytree jax.jit returns; inside one, E603
            # (`expr_of`): a lax loop's adjoint cannot carry the dict's adjoint
            parts = [self.operand(a) for a in op.args]
            return "{" + ", ".join(f"{k}: {v}" for k, v in zip(parts[::2], parts[1::2])) + "}"
        if op.fn is ir.make_node and not self._lax_depth and _namedtuple(op.args[0]):
            # a namedtuple is one too (a dataclass is no pytree: E603, `expr_of`)
            args = ", ".join(self.operand(a) for a in op.args)
            return f"{self.ref(ir.make_node, 'make_node')}({args})"
        wide = self._wide_ints(op)
        if wide:
            return self._with_name(wide, f"{self.ref(wide_int, 'wide_int')}({self.name(wide)})", op)
        return self.expr_of(op)

    def _made_array(self, name):
        """Whether every assignment of ``name`` makes a NumPy array (``np.array(3)``, an
        in-place operator's result on one): an array whatever its rank, where a traced
        0-d value would look like a number (``np.argmax``'s int scalar is not one)."""
        found = self.__dict__.get("_assigned")
        if found is None:
            found = self._assigned = {}
            for s in ir.walk(self.program.body):
                if isinstance(s, Op) and s.target is not None:
                    found.setdefault(s.target, set()).add(s.fn)
        fns = found.get(name)
        return bool(fns) and all(fn in ARRAY_MAKERS or fn is inplace.in_place for fn in fns)

    def _wide_ints(self, op):
        """The int operand of float arithmetic ``op`` (float op int), which `wide_int`
        converts as Python does when it outgrows 64 bits; else None."""
        if len(op.args) != 2 or op.kwargs or not all(isinstance(a, str) for a in op.args):
            return None
        rec = primitives.lookup(op.fn)
        if rec is None or rec.name not in MIXED:
            return None
        ks = [self.program.kinds.get(a) for a in op.args]
        if ks.count(kinds.INT) != 1 or not set(ks) & {kinds.FLOAT, kinds.ARRAY}:
            return None
        return op.args[ks.index(kinds.INT)]

    def _with_name(self, var, text, op):
        """``op`` printed with ``text`` where it reads ``var``."""
        old = self.rename.get(var)
        self.rename[var] = text
        try:
            return self.expr_of(op)
        finally:
            if old is None:
                del self.rename[var]
            else:
                self.rename[var] = old

    def expr_of(self, op):
        try:
            return super().expr(op)
        except _NoTwin as exc:
            name = getattr(exc.fn, "__qualname__", exc.fn)
            if exc.fn is attempts.attempt:
                # try/except around a call: JAX computes without raising
                raise errors.JaxNotLowered(
                    "backend='jax' cannot run a try statement that catches an error of "
                    "this line: JAX's functions do not raise (math.log of a negative "
                    "number is nan there), so the except clause would never run",
                    loc=op.loc, hint="test the value with an if instead (if x > 1.0: ...), "
                    "or use backend=None for this function") from None
            if name in _BUILT and self._lax_depth:
                raise errors.JaxNotLowered(
                    f"backend='jax' cannot run {_BUILT[name]} inside a loop it compiles",
                    loc=op.loc, hint="carry a tuple of values through the loop instead, or "
                    "use backend=None for this function") from None
            if name in _BUILT:
                raise errors.JaxNotLowered(
                    "backend='jax' cannot run a dataclass or other container of your "
                    "own class built in the function (jax.jit traces arrays and numbers "
                    "in tuples, lists, dicts and namedtuples only)", loc=op.loc,
                    hint="return a dict or a namedtuple instead, or use backend=None for "
                    "this function") from None
            if str(getattr(exc.fn, "__module__", "")).startswith("revsrc."):
                # an operation revsrc wrote for the line: named by what the user wrote
                raise errors.JaxNotLowered(
                    "backend='jax' cannot run an operation revsrc makes for this line",
                    loc=op.loc, hint="use backend=None for this function") from None
            raise errors.JaxNotLowered(
                f"backend='jax' has no jax.numpy lowering for {name!r}", loc=op.loc,
                hint="use backend=None for this function") from None

    def _elif_arm(self, stmts):
        return None  # every branch its own `if`, so each line maps to one statement

    def new_stack(self, stack):
        return "[]"

    def print_push(self, s, indent, reverse):
        self.lines.append(f"{indent}{stack_name(s.stack)}.append({self.operand(s.value)})")

    def print_set_item(self, s, indent, reverse):
        self.comment_for(s.loc, indent)
        self._mark("op", s.loc)
        target = self.name(s.target)
        value = self.operand(s.value)
        if self.program.kinds.get(s.target) == kinds.ARRAY and not self._fancy(s.index):
            index = self.index(s.index)
            self.lines.append(f"{indent}{target} = {target}.at[{index}].set({value})")
        elif self.program.kinds.get(s.target) == kinds.ARRAY:
            # an index of integer arrays may write a place twice: NumPy keeps the last
            self.lines.append(f"{indent}{target} = {self.ref(self.J.helpers.set_at, 'set_at')}"
                              f"({target}, {self.operand(s.index)}, {value})")
        else:  # a list, or a kind known only at run time: the index is an argument
            self.lines.append(f"{indent}{target} = _jaxgen.at_set({target}, "
                              f"{self.operand(s.index)}, {value})")
            self.refs["_jaxgen"] = self.runtime_ns

    def _fancy(self, index):
        """Whether ``index`` may hold an array or a list of integers."""
        if isinstance(index, Const):
            parts = index.value if type(index.value) is tuple else (index.value,)
            return not all(type(p) in (int, slice, type(None)) or p is Ellipsis
                           for p in parts)
        return self.program.kinds.get(index) not in (kinds.INT, kinds.BOOL)

    def _listy(self, o):
        return isinstance(o, str) and self.program.kinds.get(o) in (kinds.LIST, kinds.ANY, None)

    def _as_index(self, o):
        # NumPy reads a list as an array of indices, where jnp refuses it
        return f"{self.ref(self.J.helpers.as_index, 'as_index')}({self.name(o)})"

    def index(self, o):
        return self._as_index(o) if self._listy(o) else super().index(o)

    def print_op(self, s, indent, reverse):
        if s.loc is not None and not reverse:
            self.comment_for(s.loc, indent)
        self._mark("op", s.loc)
        super().print_op(s, indent, reverse)

    def print_if(self, s, indent, reverse):
        if not reverse:
            self.comment_for(s.loc, indent)
        if _selectable(s, self.program.kinds):
            self._either_branch(s, indent, reverse)
            return
        self._mark("if", s.loc)
        super().print_if(s, indent, reverse)

    def _either_branch(self, s, indent, reverse):
        """An ``if`` whose test may be a traced value: on a concrete test, Python's own
        ``if``; on a traced one, both branches run, each from the values before the
        ``if``, and every variable they assign is selected by the test with jnp.where
        (the select form of lax.cond). What the branches save is kept, the first
        branch's below the second's, and the branch flag the forward sweep saves is
        the selected one, so the reverse sweep's ``if`` on it is traced too: it runs
        the second branch's adjoint first (its saves are on top), then the first's, and
        selects. Values of shapes chosen by the branch are refused (E602)."""
        self._either += 1
        tag = f"_jx{self._either}"
        test = self.operand(s.test)
        body, orelse, flag = s.body, s.orelse, None
        # an `if` of a reverse sweep restores (pops) what its forward `if` saved: the
        # second arm's saves are on top, so its adjoint runs first
        restores = any(isinstance(t, Pop) for t in ir.walk(s.body + s.orelse))
        k = 0 if restores else _flag_pushes(s)
        if k:
            # each arm ends by saving which one ran (a derivative of a derivative saves
            # one flag per transformation): each flag saved once, selected by the test
            body, orelse, flag = s.body[:-k], s.orelse[:-k], list(zip(s.body[-k:],
                                                                       s.orelse[-k:]))
        names = sorted({self.name(v) for t in ir.walk(body + orelse) for v in ir.writes(t)})
        spare = [n for n in names if n in {self.name(v) for v in self.placeholders}]
        wanted = "(" + "".join(f"{n!r}, " for n in names) + ")"
        if spare:
            wanted += ", (" + "".join(f"{n!r}, " for n in spare) + ")"
        unpack = ", ".join(names) + ("," if len(names) == 1 else "")
        first, second = (orelse, body) if restores else (body, orelse)
        inner = indent + "    "
        self._mark("if", s.loc)
        self.lines.append(f"{indent}if _jaxgen.traced({test}):")
        self.refs["_jaxgen"] = self.runtime_ns
        if test in names:
            # an arm assigns the test itself (a loop's skip flag, set by a break in
            # the arm): the select takes the test as it was before the arms
            self.lines.append(f"{inner}{tag}_test = {test}")
            test = f"{tag}_test"
        if names:
            self.lines.append(f"{inner}{tag}_before = _jaxgen.grab(locals(), {wanted})")
        self.last_comment = None
        self.block(first, inner, reverse)
        if names:
            self.lines.append(f"{inner}{tag}_first = _jaxgen.grab(locals(), {wanted})")
            self.lines.append(f"{inner}{unpack} = {tag}_before")
        self.last_comment = None
        self.block(second, inner, reverse)
        if names:
            pair = (f"{tag}_first, _jaxgen.grab(locals(), {wanted})" if not restores else
                    f"_jaxgen.grab(locals(), {wanted}), {tag}_first")
            self._mark("if", s.loc)
            self.lines.append(f"{inner}{unpack} = _jaxgen.select({test}, {pair})")
        for then_push, else_push in flag or ():
            self.lines.append(f"{inner}{stack_name(then_push.stack)}.append("
                              f"_jaxgen.flag({test}, {self.operand(then_push.value)}, "
                              f"{self.operand(else_push.value)}))")
        self.lines.append(f"{indent}else:")
        self.last_comment = None
        self._mark("if", s.loc)
        super().print_if(s, inner, reverse)     # Python's own `if`, on a concrete test


def _flag_pushes(s):
    """How many statements each branch of ``s`` ends with that save a constant, the
    branch taken, on the same stacks in the same order (0: none)."""
    k = 0
    while k < min(len(s.body), len(s.orelse)):
        a, b = s.body[-1 - k], s.orelse[-1 - k]
        if not (isinstance(a, Push) and isinstance(a.value, Const) and
                isinstance(b, Push) and isinstance(b.value, Const) and a.stack == b.stack):
            break
        k += 1
    return k


# statements that must not run for a branch not taken: they act outside the values
_EFFECTS = {guards.raise_error, guards.raise_error_from, guards.fail_assert,
            ir.check_assert, print}


def _selectable(s, program_kinds):
    """Whether both branches of ``s`` may run, their results selected by its test: no
    exits, no data-dependent loops, no raise, assert or print inside; its
    branches save values or restore them, not both."""
    inside = list(ir.walk(s.body + s.orelse))
    if any(isinstance(t, Push) for t in inside) and any(isinstance(t, Pop) for t in inside):
        return False        # saves and restores both: no order of the arms serves
    for t in inside:
        if isinstance(t, (While, ir.Break, ir.Leave)):
            return False
        if isinstance(t, SetItem) and program_kinds.get(t.target) != kinds.ARRAY:
            return False    # a list changed in place: both arms would change it

        if isinstance(t, Op) and t.target is None and t.fn in _EFFECTS:
            return False
    return True


class _NoTwin(Exception):
    def __init__(self, fn):
        self.fn = fn


def _runtime_ns():
    """Small functions the printer itself refers to (float(), math.log with a base,
    item assignment on a value of unknown kind, a traced branch's select), printed as
    ``_jaxgen``."""
    J = require()
    ns = types.ModuleType("revsrc.jaxgen_runtime")
    for f in list(_value_fns(J)) + list(_branch_fns(J)) + J.helpers.quantile_twins.FORWARD \
            + J.helpers.argument_twins.FORWARD \
            + list(_triangle_fns(J)):
        setattr(ns, f.__name__, f)
    return ns


def _triangle_fns(J):
    """np.linalg.eigh and eigvalsh read one triangle of their argument (UPLO); jnp's
    average it with its transpose first, unless told not to."""
    def eigh(a, UPLO="L"):
        return J.jnp.linalg.eigh(a, UPLO=UPLO, symmetrize_input=False)

    def eigvalsh(a, UPLO="L"):
        return J.jnp.linalg.eigvalsh(a, UPLO=UPLO, symmetrize_input=False)
    return eigh, eigvalsh


def _value_fns(J):
    """float(), math's rounding and log with a base, item assignment on a value of a
    kind known only at run time, print() at run time, and errstate blocks."""
    jnp = J.jnp

    def to_float(x):
        return jnp.asarray(x, dtype=jnp.result_type(float))

    def math_log(x, base=None):
        return jnp.log(x) if base is None else jnp.log(x) / jnp.log(base)

    def math_floor(x):
        return jnp.floor(x).astype(int)

    def math_ceil(x):
        return jnp.ceil(x).astype(int)

    def math_trunc(x):
        return jnp.trunc(x).astype(int)

    def at_set(target, index, value):
        """``target.at[index].set(value)`` for an array, ``target[index] = value`` for a
        list (the kind of a variable that starts as None is known only here)."""
        if isinstance(target, list):
            target[index] = value
            return target
        return J.helpers.set_at(target, index, value)

    def show(*values, **options):
        """``print(...)`` when the compiled program runs, with that call's values (a
        plain print would run once, while tracing, and show tracers)."""
        traced = [i for i, v in enumerate(values)
                  if isinstance(v, (J.jax.Array, J.helpers.Tracer))]

        def emit(*arrays):
            shown = list(values)
            for i, a in zip(traced, arrays):
                shown[i] = a[()] if np.ndim(a) == 0 else a
            print(*shown, **options)
        J.jax.debug.callback(emit, *[values[i] for i in traced], ordered=True)

    def errstate(*old, **settings):
        """Entering or leaving ``with np.errstate(...)``. JAX never warns about nor
        raises on a division by zero, an overflow or an invalid operation: a block that
        silences them (or asks for NumPy's warning) changes no value, and is nothing
        here. One that asks for an exception ('raise', 'call') is refused: under
        jax.jit the check it makes would be lost, the inf or NaN returned silently."""
        asked = sorted(f"{k}={v!r}" for k, v in settings.items() if v in ("raise", "call"))
        if asked:
            raise errors.JaxNotLowered(
                f"backend='jax': np.errstate({', '.join(asked)}) asks NumPy to raise on "
                "floating-point errors, and jax.jit computes inf and NaN without a check",
                hint="use backend=None for this function, or test the result "
                     "(np.isfinite) and raise yourself")
        return None

    return to_float, math_log, math_floor, math_ceil, math_trunc, at_set, show, errstate


def _branch_fns(J):
    """What a traced ``if`` runs: its test told traced (`traced`), the values before
    and after each arm (`grab`), the selected flag it saves (`flag`) and the values
    selected by its test (`select`)."""
    jnp = J.jnp
    Tracer = J.helpers.Tracer
    unset = J.loops.UNSET

    def traced(test):
        """Whether an ``if`` test is a traced value (so both branches run)."""
        return isinstance(test, Tracer)

    def grab(found, wanted, placeholders=()):
        """The values of the variables ``wanted`` in ``found`` (locals()); `loops.UNSET` for
        one not assigned yet, or still holding the None of a placeholder."""
        return tuple(unset if n in placeholders and found.get(n) is None
                     else found.get(n, unset) for n in wanted)

    def flag(test, then, other):
        """The branch flag a traced ``if`` saves: ``then`` where the test holds."""
        return jnp.where(jnp.asarray(test) != 0, then, other)

    def _pick(test, a, b):
        if a is b or b is unset:
            return a
        if a is unset:
            return b
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and \
                type(a) is type(b) and len(a) == len(b):
            return type(a)(_pick(test, x, y) for x, y in zip(a, b))
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            return {k: _pick(test, a[k], b[k]) for k in a}
        numeric = (numbers.Number, np.ndarray, np.generic, J.jax.Array, Tracer)
        if not (isinstance(a, numeric) and isinstance(b, numeric)):
            bool(test)              # not selectable: JAX's error, a refusal (E602)
        sa, sb = jnp.shape(a), jnp.shape(b)
        if sa != sb and sa != () and sb != ():
            bool(test)              # shapes chosen by the branch
        return jnp.where(jnp.asarray(test) != 0, a, b)

    def select(test, then, other):
        return tuple(_pick(test, a, b) for a, b in zip(then, other))

    return traced, grab, flag, select


_RUNTIME_NS = None

def source(program):
    """(source text, references, line -> (what, Loc), loop number -> Loc) of the jnp
    function."""
    global _RUNTIME_NS
    if _RUNTIME_NS is None:
        _RUNTIME_NS = _runtime_ns()
    program = placeholders.unset(program, require().loops.UNSET)
    pr = JnpPrinter(program, rename=renumber(program), runtime_ns=_RUNTIME_NS)
    text = pr.print_program()
    if "_jaxgen." in text:
        pr.refs["_jaxgen"] = _RUNTIME_NS
    return text, pr.refs, pr.line_locs, pr.loop_locs
