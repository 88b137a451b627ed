"""Lower an ``ir.Program`` whose values are all scalars to the compiled scalar engine.

``lower(program)`` returns an :class:`EngineProgram`; ``program.run(args)`` runs the
forward and reverse sweeps in compiled code (``revsrc/_engine.pxi``) with no Python
work per operation or per loop iteration, and returns one value per output::

    >>> import operator
    >>> from revsrc import ir
    >>> p = ir.Program("sq", ["x"], [ir.Op("y", operator.mul, ("x", "x"))], ["y"],
    ...                kinds={"x": "float", "y": "float"})
    >>> lower(p).run((3.0,))
    (9.0,)

Anything the engine cannot reproduce exactly (arrays, unknown calls, object stacks)
raises :class:`NotLowerable` at lowering time, and the caller keeps the Python backend.

Lowering has three steps: statements to a flat instruction list with symbolic labels
(one register per variable and per distinct constant; this module), a peephole pass that
fuses adjacent instructions through single-use temporaries (copy elimination,
multiply-add, compare-and-branch), and assembly into the int32 code array (both in
revsrc/backends/engine/peephole.py).
"""
from __future__ import annotations

import struct

import numpy as np

from ... import _engine_ops as ops
from ...passes import analysis
from ... import runtime
from ...runtime import checkpoint as checkpoint_rt, containers
from ...core import ir
from ... import primitives
from ...core import kinds as kinds_mod
from ..._kernels import EngineFallback, ScalarProgram, ufunc_slot
from .peephole import assemble, listing, peephole

__all__ = ["NotLowerable", "EngineFallback", "EngineProgram", "lower", "SLOT_NAMES"]


class NotLowerable(Exception):
    """The program uses something the scalar engine cannot run exactly; ``loc`` is the
    user's line of the statement that does (when known)."""

    def __init__(self, message, loc=None):
        super().__init__(message)
        self.loc = loc


# Formats and flags come from the engine's one source, revsrc/_engine_ops.py.
ENGINE_OPCODES = tuple((name, fmt) for name, fmt, *_ in ops.INSTRUCTIONS)
ENGINE_MATH1 = tuple(name for name, _ in ops.MATH1)
ENGINE_RAISE = {"range_step_zero": ops.ERROR["STEP0"], "range_float": ops.ERROR["RANGE_TYPE"]}
FORMAT = ops.FORMAT
_MATH1 = ops.MATH1_INDEX

_TWO53 = 2 ** 53


class EngineProgram(ScalarProgram):
    """A lowered program: ``run(args)``, ``stats()``, ``disassemble()``, ``nparams``."""

    def __init__(self, code, reg_init, param_regs, param_kinds, out_regs, out_kinds,
                 globals_spec, messages, reg_names, name=""):
        super().__init__(code, reg_init, param_regs, param_kinds, out_regs, out_kinds,
                         globals_spec, messages)
        self.reg_names = list(reg_names)
        self.name = name

    def disassemble(self):
        """One instruction per line: offset, opcode, operands by IR variable name."""
        return listing(self.name, self.code_list, self.reg_names, SLOT_NAMES)


# ----- What each IR function lowers to -----
# A lowering rule takes (lowering, target, args, arg_kinds) and emits instructions.
# Kinds are 'b', 'i', 'f'; "intlike" is 'b' or 'i' (bools compute as ints).


def _intlike(kinds):
    return all(k in "bi" for k in kinds)


def _op(lw, target, args, kinds, float_op, int_op=None):
    """One instruction over every argument; ``int_op`` when all are ints or bools."""
    op = int_op if int_op and _intlike(kinds) else float_op
    if op == "MOV" and args[0] == target:
        return
    lw.nargs(args, len(FORMAT[op]) - 1)
    lw.emit(op, lw.w(target), *[lw.r(a) for a in args])


def _math1(lw, target, args, kinds, name):
    lw.nargs(args, 1)
    lw.emit("MATH1", lw.w(target), lw.r(args[0]), _MATH1[name])


def _minmax(lw, target, args, kinds, op):
    if len(args) < 2:
        raise NotLowerable(f"{op.lower()}() of one iterable argument")
    if len(args) == 2:
        lw.emit(op, lw.w(target), lw.r(args[0]), lw.r(args[1]))
        return
    acc = lw.hidden(f"{op.lower()}")
    lw.emit(op, acc, lw.r(args[0]), lw.r(args[1]))
    for a in args[2:]:
        lw.emit(op, acc, acc, lw.r(a))
    lw.emit("MOV", lw.w(target), acc)


def _to_int(lw, target, args, kinds, float_op):
    # int(), round(), math.floor/ceil/trunc: identity on ints, else float -> int
    lw.nargs(args, 1)
    if _intlike(kinds):
        if args[0] != target:
            lw.emit("MOV", lw.w(target), lw.r(args[0]))
    else:
        lw.emit(float_op, lw.w(target), lw.r(args[0]))


def _truth(lw, target, args, kinds):
    lw.nargs(args, 1)
    if kinds[0] == "b":
        if args[0] != target:
            lw.emit("MOV", lw.w(target), lw.r(args[0]))
    else:
        lw.emit("TRUTH", lw.w(target), lw.r(args[0]))


def _scale(lw, target, args, kinds, factor):
    # math.degrees and math.radians: one multiplication by CPython's own constant
    lw.nargs(args, 1)
    lw.emit("MUL", lw.w(target), lw.r(args[0]), lw.r(ir.Const(factor)))


def _first(lw, target, args, kinds):
    # runtime.finalize_grad on numbers: its first argument (the second gives its form)
    if args[0] != target:
        lw.emit("MOV", lw.w(target), lw.r(args[0]))


def _log(lw, target, args, kinds):
    if len(args) == 1:
        lw.emit("LOG", lw.w(target), lw.r(args[0]))
    else:
        lw.nargs(args, 2)
        lw.emit("LOGB", lw.w(target), lw.r(args[0]), lw.r(args[1]))


def _hypot(lw, target, args, kinds):
    if len(args) != 2:
        raise NotLowerable("math.hypot with other than two coordinates")
    lw.emit("HYPOT", lw.w(target), lw.r(args[0]), lw.r(args[1]))


def _check_assert(lw, target, args, kinds):
    lw.nargs(args, 2)
    if not isinstance(args[1], ir.Const):
        raise NotLowerable("an assert message computed at run time")
    lw.messages.append(args[1].value)
    lw.emit("ASSERT", lw.r(args[0]), len(lw.messages) - 1)


def _unpack_check(lw, target, args, kinds):
    """containers.check_unpack on a sequence the engine would have to read: not lowered
    (the Python path checks it); a tuple of known length has no check left (cse)."""
    raise NotLowerable("unpacking a sequence whose length is known only at run time")


# A record's engine spec (primitives.Lower) names one of these.
_LOWERINGS = {"op": _op, "math1": _math1, "minmax": _minmax, "to_int": _to_int,
              "truth": _truth, "log": _log, "hypot": _hypot, "assert": _check_assert,
              "unpack": _unpack_check, "scale": _scale, "first": _first}


# ----- NumPy functions on scalars -----
# Every NumPy ufunc that maps one or two float64 values to one runs through NumPy's
# own inner loop for float64 (see _engine.pxi): the engine needs no instruction per
# function and gives NumPy's digits on every CPU, SIMD or not.

# engine slot -> ufunc name, filled as lowering meets ufuncs: disassembly and the
# native tier's comments name a program's NumPy loops by it
SLOT_NAMES = {}
_UFUNC_KINDS = {}         # (ufunc, argument kinds) -> True when NumPy computes in float64
_SAMPLE = {"i": 3, "f": 0.5}


def _computes_in_float64(fn, kinds):
    """Whether NumPy evaluates ``fn`` on Python values of these kinds in float64
    (ints may select an integer loop: np.square(3) is an int64)."""
    key = (fn, kinds)
    hit = _UFUNC_KINDS.get(key)
    if hit is None:
        with np.errstate(all="ignore"):
            try:
                out = fn(*[_SAMPLE[k] for k in kinds])
            except (TypeError, ValueError):
                out = None
        hit = _UFUNC_KINDS[key] = type(out) is np.float64
    return hit


def _ufunc_rule(fn):
    try:
        slot = ufunc_slot(fn)
    except ValueError:
        return None
    SLOT_NAMES[slot] = fn.__name__
    op = "NPU1" if fn.nin == 1 else "NPU2"

    def rule(lw, target, args, kinds):
        lw.nargs(args, fn.nin)
        if "b" in kinds:
            raise NotLowerable(f"numpy.{fn.__name__} of a bool (NumPy computes it in "
                               f"another precision)")
        if not _computes_in_float64(fn, "".join(kinds)):
            raise NotLowerable(f"numpy.{fn.__name__} of ints (NumPy computes it in int64)")
        lw.emit(op, lw.w(target), *[lw.r(a) for a in args], slot)
    return rule


_NP_RULES = {}


def _rule_for(fn):
    """The lowering of a call to ``fn``, from its primitive record; None if none."""
    prim = primitives.lookup(fn)
    if prim is None:
        return None
    spec = prim.alias(fn).engine
    if spec is not None:
        lowering = _LOWERINGS[spec.how]
        return lambda lw, target, args, kinds: lowering(lw, target, args, kinds, *spec.args)
    if isinstance(fn, np.ufunc):
        rule = _NP_RULES.get(fn)
        if rule is None:
            rule = _NP_RULES[fn] = _ufunc_rule(fn)
        return rule
    return None


def _fn_name(fn):
    if runtime.is_helper(fn):       # what the user wrote, not revsrc's internals
        return runtime.described(fn)
    mod = getattr(fn, "__module__", None) or type(fn).__module__
    return f"{mod}.{getattr(fn, '__name__', repr(fn))}"


# ----- Lowering -----

class _LoweringContext:
    """Operand kinds as the lowering knows them, for the records' kind rules."""

    def __init__(self, lowering):
        self.lw = lowering

    def kind(self, o):
        return kinds_mod.FROM_CODE[self.lw.kind_of(o)]

    def kinds(self, operands):
        return [self.kind(o) for o in operands]

    def ndim(self, o):
        return None

    def items(self, name):
        return ()


class _Lowering:
    def __init__(self, program):
        self.program = program
        self.kinds = {}
        for name, kind in program.kinds.items():
            if kind in kinds_mod.CODE:
                self.kinds[name] = kinds_mod.CODE[kind]
        self.bad_kinds = {n: k for n, k in program.kinds.items() if k not in kinds_mod.CODE}
        self.regs = {}          # variable name -> register
        self.consts = {}        # (kind, bits) -> register
        self.names = []         # register -> display name
        self.init = []          # register -> initial value
        self.items = []         # instructions [op, *operands] and labels ("L", n)
        self.nlabels = 0
        self.loops = []         # end label of each enclosing loop
        self.globals = []
        self.messages = []
        self.special = set()    # registers that are never temporaries
        self.aux = {}           # a stack other than "f" and "i" -> its number (PUSHX)

    # registers

    def _new_reg(self, name, value=0.0):
        self.names.append(name)
        self.init.append(value)
        return len(self.names) - 1

    def kind_of(self, operand):
        if isinstance(operand, ir.Const):
            return self._const_kind(operand.value)
        if operand in self.bad_kinds:
            raise NotLowerable(f"variable {operand!r} is of kind {self.bad_kinds[operand]!r}, "
                               f"not a scalar")
        if operand not in self.kinds:
            raise NotLowerable(f"variable {operand!r} has no known scalar kind")
        return self.kinds[operand]

    @staticmethod
    def _const_kind(value):
        if type(value) is bool:
            return "b"
        if type(value) is int:
            if abs(value) > _TWO53:
                raise NotLowerable(f"the int constant {value} does not fit in a double")
            return "i"
        if isinstance(value, float):
            return "f"
        raise NotLowerable(f"the constant {value!r} is not a float, int or bool")

    def r(self, operand):
        """Register for reading ``operand``."""
        if isinstance(operand, ir.Const):
            kind = self._const_kind(operand.value)
            value = float(operand.value)
            key = (kind, struct.pack("<d", value))
            if key not in self.consts:
                self.consts[key] = self._new_reg(repr(operand.value), value)
                self.special.add(self.consts[key])
            return self.consts[key]
        self.kind_of(operand)
        return self.var(operand)

    def w(self, name):
        """Register for writing variable ``name``."""
        if not isinstance(name, str):
            raise NotLowerable(f"cannot assign to {name!r}")
        return self.var(name)

    def var(self, name):
        if name not in self.regs:
            self.regs[name] = self._new_reg(name)
        return self.regs[name]

    def hidden(self, what):
        reg = self._new_reg(f"%{what}{len(self.names)}")
        self.special.add(reg)
        return reg

    # emission

    def emit(self, op, *operands):
        self.items.append([op, *operands])

    def label(self):
        self.nlabels += 1
        return ("L", self.nlabels)

    def place(self, label):
        self.items.append(label)

    @staticmethod
    def nargs(args, n):
        if len(args) != n:
            raise NotLowerable(f"expected {n} arguments, got {len(args)}")

    # statements

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        try:
            self._stmt(s)
        except NotLowerable as exc:
            if exc.loc is None:
                exc.loc = getattr(s, "loc", None)
            raise

    def _stmt(self, s):
        if isinstance(s, ir.Op):
            self.op(s)
        elif isinstance(s, ir.If):
            self.if_(s)
        elif isinstance(s, ir.For):
            self.for_(s)
        elif isinstance(s, ir.While):
            self.while_(s)
        elif isinstance(s, ir.Break):
            if not self.loops:
                raise NotLowerable("break outside a loop")
            self.emit("JMP", self.loops[-1])
        elif isinstance(s, ir.Push):
            if s.stack in ("f", "i"):
                self.emit("PUSHF" if s.stack == "f" else "PUSHI", self.r(s.value))
            else:
                self.emit("PUSHX", self.r(s.value), self.other_stack(s.stack, "push on"))
        elif isinstance(s, ir.Pop):
            aux = None if s.stack in ("f", "i") else self.other_stack(s.stack, "pop from")
            if s.target not in self.kinds and s.target not in self.bad_kinds:
                self.kinds[s.target] = s.stack[0]
            self.kind_of(s.target)
            if aux is None:
                self.emit("POPF" if s.stack == "f" else "POPI", self.w(s.target))
            else:
                self.emit("POPX", self.w(s.target), aux)
        elif isinstance(s, ir.Comment):
            pass
        elif isinstance(s, ir.SetItem):
            raise NotLowerable("an item assignment (arrays are not scalars)")
        else:
            raise NotLowerable(f"the statement {type(s).__name__}")

    def other_stack(self, stack, what):
        """The number of a derivative's derivative's float or int stack ("f1", "i1b")."""
        if stack[0] not in "fi":
            raise NotLowerable(f"a {what} the {stack!r} (object) stack")
        n = self.aux.setdefault(stack, len(self.aux))
        if n >= ops.AUX_STACKS:
            raise NotLowerable(f"more than {ops.AUX_STACKS + 2} stacks (a derivative of "
                               "too high an order)")
        return n

    def op(self, s):
        fn, args = s.fn, tuple(s.args)
        if s.kwargs:
            raise NotLowerable(f"{_fn_name(fn)} called with keyword arguments")
        if fn is ir.load_global or fn is ir.load_cell:
            self.load(s)
            return
        if fn is checkpoint_rt.needs_checkpointing:   # a long loop: build that form
            self.emit("RAISE", ops.ERROR["CHECKPOINT"])
            return
        rule = _rule_for(fn)
        if rule is None:
            raise NotLowerable(f"{_fn_name(fn)} has no engine instruction")
        kinds = [self.kind_of(a) for a in args]
        if s.target is not None:
            if s.target not in self.kinds and s.target not in self.bad_kinds:
                self.kinds[s.target] = self._result_kind(s)
            self.kind_of(s.target)
        elif fn is not ir.check_assert and fn is not containers.check_unpack:
            raise NotLowerable(f"{_fn_name(fn)} without a target")
        rule(self, s.target, args, kinds)

    def _result_kind(self, s):
        """The kind of a target the analysis left without one, from its record."""
        k, _ = analysis.op_kind(s, _LoweringContext(self))
        if k not in kinds_mod.CODE:
            raise NotLowerable(f"{_fn_name(s.fn)} does not return a float, int or bool")
        return kinds_mod.CODE[k]

    def load(self, s):
        if not all(isinstance(a, ir.Const) for a in s.args) or s.target is None:
            raise NotLowerable("a global read with a computed name")
        if s.fn is ir.load_global:
            namespace, key = s.args[0].value, s.args[1].value
            value = namespace.get(key) if isinstance(namespace, dict) else None
            where = key
        else:
            namespace, key = s.args[0].value, None
            value = namespace.cell_contents
            where = "closure cell"
        kind = self.kinds.get(s.target) or self._value_kind(value, where)
        self.kinds.setdefault(s.target, kind)
        self.kind_of(s.target)
        reg = self.hidden(f"global:{where}:")
        self.names[reg] = f"%{where}"
        self.globals.append((reg, namespace, key, ord(kind)))
        self.emit("MOV", self.w(s.target), reg)

    def _value_kind(self, value, where):
        try:
            return self._const_kind(value)
        except NotLowerable:
            raise NotLowerable(f"the global {where!r} is not a float, int or bool") from None

    def if_(self, s):
        if isinstance(s.test, ir.Const):
            self.block(s.body if s.test.value else s.orelse)
            return
        self.kind_of(s.test)
        end = self.label()
        if not s.orelse:
            self.emit("JZ", self.r(s.test), end)
            self.block(s.body)
        else:
            other = self.label()
            self.emit("JZ", self.r(s.test), other)
            self.block(s.body)
            if self._falls_through(s.body):
                self.emit("JMP", end)
            self.place(other)
            self.block(s.orelse)
        self.place(end)

    @staticmethod
    def _falls_through(stmts):
        return not (stmts and isinstance(stmts[-1], ir.Break))

    def for_(self, s):
        bounds = (s.start, s.stop, s.step)
        if any(self.kind_of(b) == "f" for b in bounds):
            # Python raises TypeError when the loop is reached; so does the engine.
            self.emit("RAISE", ENGINE_RAISE["range_float"])
            return
        self.kind_of(s.var) if s.var in self.kinds else self.kinds.setdefault(s.var, "i")
        written = {w for st in ir.walk(s.body) for w in ir.writes(st)}
        counter = self.w(s.var)
        body_sets_var = s.var in written
        if body_sets_var:
            counter = self.hidden(f"i:{s.var}:")
        stop, step = self.r(s.stop), self.r(s.step)
        # range() evaluates its arguments once: snapshot any the body could change
        if isinstance(s.stop, str) and (s.stop in written or s.stop == s.var):
            snap = self.hidden("stop")
            self.emit("MOV", snap, stop)
            stop = snap
        if isinstance(s.step, str) and (s.step in written or s.step == s.var):
            snap = self.hidden("step")
            self.emit("MOV", snap, step)
            step = snap
        if isinstance(s.step, ir.Const):
            if s.step.value == 0:
                self.emit("RAISE", ENGINE_RAISE["range_step_zero"])
                return
            prep, again = ("FORPREPUP", "FORUP") if s.step.value > 0 else ("FORPREPDN", "FORDN")
        else:
            prep, again = "FORPREP", "FORSTEP"
        top, end = self.label(), self.label()
        self.emit(prep, counter, self.r(s.start), stop, step, end)
        self.place(top)
        if body_sets_var:
            self.emit("MOV", self.w(s.var), counter)
        self.loops.append(end)
        self.block(s.body)
        self.loops.pop()
        self.emit(again, counter, stop, step, top)
        self.place(end)
        self.special.add(counter)

    def while_(self, s):
        top, end = self.label(), self.label()
        self.place(top)
        self.loops.append(end)
        self.block(s.test_body)
        if isinstance(s.test, ir.Const):
            if not s.test.value:
                self.emit("JMP", end)
        else:
            self.kind_of(s.test)
            self.emit("JZ", self.r(s.test), end)
        self.block(s.body)
        self.loops.pop()
        self.emit("LOOP", top)
        self.place(end)

    # the whole program

    def run(self):
        p = self.program
        param_kinds = []
        for name in p.params:
            kind = self.kind_of(name)
            param_kinds.append(kind)
            self.special.add(self.var(name))
        param_regs = [self.regs[name] for name in p.params]
        self.block(p.body)
        out_regs, out_kinds = [], []
        for o in p.outputs:
            out_kinds.append(self.kind_of(o))
            reg = self.r(o)
            out_regs.append(reg)
            self.special.add(reg)
        self.items = peephole(self.items, self.special)
        code = assemble(self.items)
        return EngineProgram(code, self.init, param_regs, "".join(param_kinds), out_regs,
                             "".join(out_kinds), self.globals, self.messages, self.names,
                             name=p.name)


def lower(program: ir.Program) -> EngineProgram:
    """Lower ``program`` for the scalar engine, or raise NotLowerable saying why."""
    return _Lowering(program).run()
