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

import builtins
import operator
import struct

from ... import _engine_ops as ops
from ...passes import analysis
from ...passes.attributes import AttributeOf
from ...passes.reverse.checkpoint import shows_twice
from ...runtime import checkpoint as checkpoint_rt, containers, guards
from ...core import ir
from ...core import kinds as kinds_mod
from ..._kernels import EngineFallback, ScalarProgram
from .calls import NotLowerable, SLOT_NAMES, fn_name, intlike, is_numpy, rule_for
from .peephole import assemble, listing, peephole
from . import sums, tables

__all__ = ["NotLowerable", "EngineFallback", "EngineProgram", "lower", "SLOT_NAMES"]


# Formats and flags come from the engine's one source, revsrc/_engine_ops.py.
ENGINE_OPCODES = tuple((name, fmt) for name, fmt, *_ in ops.INSTRUCTIONS)
ENGINE_MATH1 = tuple(name for name, _ in ops.MATH1)
ENGINE_RAISE = {"range_step_zero": ops.ERROR["STEP0"], "range_float": ops.ERROR["RANGE_TYPE"]}
FORMAT = ops.FORMAT

_TWO53 = 2 ** 53

# A raise statement, or an assert whose message is computed: the engine hands the call
# to Python there (RAISE FALLBACK), which runs the function itself and raises the
# user's own exception, its type and message built as Python builds them.
_RAISING = (guards.raise_error, guards.raise_error_from, guards.fail_assert)


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


# ----- Lowering -----

def _raising_at(stmts):
    """The index of the first statement of ``stmts`` that raises the user's exception
    (the ones after it never run), or None."""
    for i, s in enumerate(stmts):
        if isinstance(s, ir.Op) and s.fn in _RAISING and s.target is None:
            return i
    return None


def _round_digits(lw, s):
    """``round(x, ndigits)``: Python rounds to the decimal digits of the exact binary
    value (round(2.675, 2) is 2.67), which no engine instruction does; the call runs in
    Python when it gets there (RAISE FALLBACK). ndigits None is the plain round(x)."""
    digits = s.args[1] if len(s.args) > 1 else dict(s.kwargs).get("ndigits")
    if isinstance(digits, ir.Const) and digits.value is None:
        lw.op(ir.replace(s, args=(s.args[0],), kwargs=()))
        return
    if s.target is not None and s.target not in lw.kinds and s.target not in lw.bad_kinds:
        lw.kinds[s.target] = lw._result_kind(s)
    lw.emit("RAISE", ops.ERROR["FALLBACK"])


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
        self.numpy = False      # a NumPy function is called (its results are NumPy scalars)
        # per variable: how many statements assign it, and the user's line of one
        self.assigned, self.defined_at = {}, {}
        # what the program reads: a global it loads and never reads is not loaded (a
        # generator expression's variable named as a global is: `k` of `... for k in`)
        self.read = {o for o in program.outputs if isinstance(o, str)}
        for s in ir.walk(program.body):
            self.read.update(ir.reads(s))
        for s in ir.walk(program.body):
            for t in (getattr(s, "target", None), getattr(s, "var", None)):
                if isinstance(t, str):
                    self.assigned[t] = self.assigned.get(t, 0) + 1
                    if getattr(s, "loc", None) is not None:
                        self.defined_at.setdefault(t, s.loc)

    # registers

    def _new_reg(self, name, value=0.0):
        self.names.append(name)
        self.init.append(value)
        return len(self.names) - 1

    def kind_of(self, operand):
        if isinstance(operand, ir.Const):
            return self._const_kind(operand.value)
        if operand in self.bad_kinds:
            what, loc = self._shown(operand)
            kind = self.bad_kinds[operand]
            why = " (its type is known only when it runs)" if kind == kinds_mod.ANY else ""
            raise NotLowerable(f"{what} is of kind {kind!r}{why}, not a float, int or bool",
                               loc)
        if operand not in self.kinds:
            what, loc = self._shown(operand)
            raise NotLowerable(f"{what} has no known float, int or bool kind", loc)
        return self.kinds[operand]

    def _shown(self, name):
        """``name`` as a message shows it, and the user's line that assigns it: a
        variable of the user's by its name; one of revsrc's own (a temporary, an
        adjoint) as the value computed at that line, since its name means nothing to
        the user."""
        names = self.program.names
        generated = names.is_generated(name) if names is not None else name.startswith("_")
        if names is not None and not generated and name.startswith("_t") \
                and name[2:].isdigit():
            generated = True       # a temporary of a namer this program was not made by
        loc = self.defined_at.get(name)
        if not generated:
            return f"variable {name!r}", loc
        return "the value of an expression on this line" if loc is not None \
            else "a value the function computes", loc

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
        stop = _raising_at(stmts)
        if stop is not None and all(isinstance(s, (ir.Op, ir.Comment))
                                    for s in stmts[:stop]):
            # the block raises whenever it is entered: what it computes first only
            # builds the exception (an f-string), which Python builds again
            self.emit("RAISE", ops.ERROR["FALLBACK"])
            return
        for s in stmts[:None if stop is None else stop + 1]:
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
        if fn is builtins.round and (len(args) > 1 or s.kwargs):
            _round_digits(self, s)
            return
        if s.kwargs:
            raise NotLowerable(f"{fn_name(fn)} called with keyword arguments")
        if fn is ir.load_global or fn is ir.load_cell:
            self.load(s)
            return
        if fn is checkpoint_rt.needs_checkpointing:   # a long loop: build that form
            self.emit("RAISE", ops.ERROR["CHECKPOINT"])
            return
        if fn in _RAISING and s.target is None:
            self.emit("RAISE", ops.ERROR["FALLBACK"])
            return
        if s.target in self.bad_kinds and any(isinstance(a, ir.Const) and a.value is None
                                              for a in args):
            self.kind_of(s.target)   # (None: a variable saved before it has a value)
        rule = rule_for(fn)
        if rule is None and fn in (ir.make_list, containers.append, containers.extend):
            raise NotLowerable(
                "a list built in the function and read other than by sum(...) (an item, "
                "its length) has no engine instruction", hint="accumulate in variables "
                "(total += T, last = T) rather than a list, or call the function itself")
        if rule is None:
            raise NotLowerable(f"{fn_name(fn)} has no engine instruction")
        if not self.numpy and is_numpy(fn):
            self.numpy = True
        # an assert's message is text the engine keeps aside (calls._check_assert)
        kinds = [self.kind_of(a) for a in (args[:1] if fn is ir.check_assert else args)]
        if self.bad_kinds.get(s.target) == kinds_mod.ANY and self.assigned.get(s.target) == 1 \
                and s.target not in self.program.params:
            self._narrow(s, fn, args, kinds)
        if s.target is not None:
            if s.target not in self.kinds and s.target not in self.bad_kinds:
                self.kinds[s.target] = self._result_kind(s)
            self.kind_of(s.target)
        elif fn is not ir.check_assert and fn is not containers.check_unpack:
            raise NotLowerable(f"{fn_name(fn)} without a target")
        rule(self, s.target, args, kinds)

    def _narrow(self, s, fn, args, kinds):
        """A target assigned once, whose kind the analysis could not tell, from its
        operands' kinds as the engine holds them: ``a ** b`` of ints (`_int_power`),
        or what follows from one (``2 ** -n + 1`` is an int where ``2 ** -n`` is)."""
        if fn is operator.pow and intlike(kinds):
            self._int_power(s.target, args[1])
            return
        k, _ = analysis.op_kind(s, _LoweringContext(self))
        if k in kinds_mod.CODE:
            del self.bad_kinds[s.target]
            self.kinds[s.target] = kinds_mod.CODE[k]

    def _int_power(self, target, exponent):
        """``target = a ** b`` of ints, whose kind the analysis could not tell (Python
        gives a float for a negative ``b``): an int, held by the engine while ``b`` is
        not negative (an int beyond 2**53 falls back too, as every int operation does);
        a negative ``b`` sends the call to the Python path, where 2 ** -3 is 0.125."""
        del self.bad_kinds[target]
        self.kinds[target] = "i"
        negative = self.hidden("negative_exponent")
        self.emit("LT", negative, self.r(exponent), self.r(ir.Const(0)))
        ok = self.label()
        self.emit("JZ", negative, ok)
        self.emit("RAISE", ops.ERROR["FALLBACK"])
        self.place(ok)

    def _result_kind(self, s):
        """The kind of a target the analysis left without one, from its record."""
        k, _ = analysis.op_kind(s, _LoweringContext(self))
        if k not in kinds_mod.CODE:
            raise NotLowerable(f"{fn_name(s.fn)} does not return a float, int or bool")
        return kinds_mod.CODE[k]

    def load(self, s):
        if not all(isinstance(a, ir.Const) for a in s.args) or s.target is None:
            raise NotLowerable("a global read with a computed name")
        if s.target not in self.read:
            return
        if s.fn is ir.load_global:
            namespace, key = s.args[0].value, s.args[1].value
            value = namespace.get(key) if isinstance(namespace, (dict, AttributeOf)) else None
            where = f"{namespace.key}.{key}" if isinstance(namespace, AttributeOf) else key
        else:
            namespace, key = s.args[0].value, None
            value = namespace.cell_contents
            where = "closure cell"
        what = f"the default {key!r} of {namespace.owner}" if \
            isinstance(namespace, ir.Defaults) else f"the global {where!r}"
        kind = self.kinds.get(s.target) or _global_kind(value, what)
        self.kinds.setdefault(s.target, kind)
        self.kind_of(s.target)
        reg = self.hidden(f"global:{where}:")
        self.names[reg] = f"%{where}"
        self.globals.append((reg, namespace, key, ord(kind)))
        self.emit("MOV", self.w(s.target), reg)

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
        program = EngineProgram(code, self.init, param_regs, "".join(param_kinds), out_regs,
                                "".join(out_kinds), self.globals, self.messages, self.names,
                                name=p.name)
        # NumPy scalars divide by zero and overflow into inf and nan where Python's
        # floats raise: the engine computes as Python does, so where it would raise,
        # the call runs on the Python path, which computes as NumPy does. Only where
        # running the program twice cannot show (`_engine.pxi`: `_reruns`).
        program.numpy_scalars = self.numpy and not shows_twice(p.body)
        return program


def _global_kind(value, what):
    """The register kind of a global's ``value`` (``what``: "the global 'K'"), or why
    the engine cannot hold it."""
    try:
        return _Lowering._const_kind(value)
    except NotLowerable:
        if type(value) in (list, tuple, dict):
            raise NotLowerable(
                f"{what} is a {type(value).__name__} whose items are not all "
                "numbers, or too many (revsrc.jit reads a global list, tuple or dict of at "
                "most 256 Python floats, ints and bools as constants)") from None
        raise NotLowerable(f"{what} is not a float, int or bool") from None


def lower(program: ir.Program) -> EngineProgram:
    """Lower ``program`` for the scalar engine, or raise NotLowerable saying why."""
    program = tables.lookups(sums.running_totals(program))
    return _Lowering(sums.numbers_updated(program)).run()
