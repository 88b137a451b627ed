"""The adjoint sweep: the forward program walked backwards, writing each adjoint.

`Adjoint` mirrors the program's control flow (from decisions the forward sweep
will save), writes the adjoint of each active statement (the rule of each
operation is inlined by `contributions.contributions`), and accumulates into the
adjoints of its inputs. Where its code depends on what the forward sweep saves it
leaves a placeholder (`forward.Restore` and its siblings), settled later.

It knows which adjoints are zero (``self.zero``: never written since they last
became zero), so it writes no code for them; a zero is written at run time only
where control flow joins a path on which it is zero with one on which it is not.
"""
from __future__ import annotations

import operator

from ... import primitives, runtime
from ...runtime import guards
from ...core import ir
from ...core.ir import Break, Comment, Const, For, If, Op, Pop, Push, SetItem, While
from .. import analysis
from . import contributions
from .forward import Decision, Restore, RestoreItem, ReverseFor
from .plan import breaks
from .stacks import adjoint_stack


class Adjoint:
    def __init__(self, plan, main):
        self.plan = plan
        self.names = plan.names
        self.kinds = plan.kinds
        self.active = plan.active
        self.main = main           # the function's name, left out of line comments
        self.bar_names = {}
        self.bar_of = {}           # bar -> the variable it is the adjoint of
        self.zero = set()
        self.errstate_tokens = {}  # an errstate's exit token -> the adjoint's enter

    def bar(self, v):
        name = self.bar_names.get(v)
        if name is None:
            name = self.names.bar(v)
            self.bar_names[v] = name
            self.bar_of[name] = v
        return name

    def block(self, stmts, out):
        for s in reversed(stmts):
            self._stmt(s, out)

    def _stmt(self, s, out):
        site = self.plan.site_of[id(s)]
        outer, self.plan.cur_site = self.plan.cur_site, site
        try:
            self._stmt_at(s, site, out)
        finally:
            self.plan.cur_site = outer

    def _stmt_at(self, s, site, out):
        if isinstance(s, Op) and s.fn in (guards.errstate_enter, guards.errstate_exit):
            self._mirror_errstate(s, out)
        if isinstance(s, Op):
            if s.target is not None and s.target in self.active:
                self._adjoint_op(s, site, out)
            elif s.target is not None:
                out.append(Restore(s.target, site))
        elif isinstance(s, SetItem):
            self._adjoint_setitem(s, site, out)
        elif isinstance(s, If):
            self._adjoint_if(s, site, out)
        elif isinstance(s, For):
            if all(isinstance(b, Const) and type(b.value) is int
                   for b in (s.start, s.stop, s.step)) and s.step.value != 0 \
                    and not breaks(s.body):
                trips = len(range(s.start.value, s.stop.value, s.step.value))
                self.plan.static_trips[site] = Const(trips)
            body = self._loop_body(s.body, out)
            n = self.names.fresh("_n")
            k = self.names.fresh("_k")
            out.append(Decision(n, site))
            out.append(ReverseFor(s, site, n, k, body))
            out.append(Restore(s.var, site))
        elif isinstance(s, While):
            body = self._loop_body(s.body, out)
            n = self.names.fresh("_n")
            k = self.names.fresh("_k")
            out.append(Decision(n, site))
            out.append(For(k, Const(0), n, Const(1), body, loc=s.loc))
        elif isinstance(s, Pop):
            self._adjoint_pop(s, site, out)
        elif isinstance(s, Push):
            self._adjoint_push(s, out)
        elif isinstance(s, (Break, Comment)):
            pass
        else:  # pragma: no cover
            raise AssertionError(s)

    def _adjoint_if(self, s, site, out):
        before = set(self.zero)
        body, orelse = [], []
        self.block(s.body, body)
        z1 = self.zero
        self.zero = set(before)
        self.block(s.orelse, orelse)
        z2 = self.zero
        join = z1 & z2
        for b in sorted(z1 - join):
            body.append(self._zero_value(b))
        for b in sorted(z2 - join):
            orelse.append(self._zero_value(b))
        self.zero = join
        flag = self.names.fresh("_b")
        out.append(Decision(flag, site))
        out.append(If(flag, body, orelse, loc=s.loc))

    def _loop_body(self, stmts, out):
        """Reverse a loop body; adjoints zero on entry to every iteration stay known
        zero inside it (the largest such set, found before any code is written)."""
        entry = set(self.zero)
        cand = self._zero_fixpoint(stmts, entry)
        self.zero = set(cand)
        body = []
        self.block(stmts, body)
        end = self.zero
        for b in sorted(entry - cand):
            out.append(self._zero_value(b))
        for b in sorted(end - cand):
            body.append(self._zero_value(b))
        self.zero = cand
        return body

    def _zero_value(self, b):
        """``b = 0``, for adjoint ``b``: 0.0 for a number, float zeros shaped like its
        variable (as it is at this point) for an array, 0.0 for a container's pieces."""
        v = self.bar_of[b]
        if self.kinds.get(v) == "array":
            self.plan.read(v)
            return Op(b, runtime.zeros_like, (v,))
        if self.kinds.get(v) in ("list", "tuple", "dict"):
            # one zero per item: the adjoint sweep reads items of it (xs_bar[0])
            self.plan.read(v)
            return Op(b, runtime.zero_items, (v,))
        return Op(b, ir.copy, (Const(0.0),))

    # Which adjoints each statement makes nonzero or zero, without writing code: the
    # loop fixpoint is found this way, then the body is reversed once.

    def targets(self, s):
        """The variables the adjoint of ``s`` sends contributions to, in order."""
        active = [i for i, a in enumerate(s.args) if isinstance(a, str) and a in self.active]
        if s.fn in (ir.make_tuple, ir.make_list):
            return [(i, s.args[i]) for i in active]
        if s.fn is ir.make_dict:
            return [(i, s.args[i]) for i in active if i % 2 == 1]
        prim = primitives.lookup(s.fn)
        if prim is None or prim.vjp is None:
            return []
        rule = prim.vjp.load()
        wanted = [(i, s.args[i]) for i in active if rule.differentiable(i)]
        wanted += [(rule.params.index(k), v) for k, v in s.kwargs
                   if isinstance(v, str) and v in self.active and k in rule.params
                   and rule.differentiable(rule.params.index(k))]
        return wanted

    def _zero_block(self, stmts, zero):
        for s in reversed(stmts):
            zero = self._zero_stmt(s, zero)
        return zero

    def _zero_stmt(self, s, zero):
        if isinstance(s, Op):
            z = s.target
            if z is None or z not in self.active or self.bar(z) in zero:
                return zero
            targets = [a for _, a in self.targets(s)]
            zero = zero - {self.bar(a) for a in targets if a != z}
            return zero if z in targets else zero | {self.bar(z)}
        if isinstance(s, SetItem):
            if s.target in self.active and self.bar(s.target) not in zero \
                    and isinstance(s.value, str) and s.value in self.active:
                return zero - {self.bar(s.value)}
            return zero
        if isinstance(s, If):
            return self._zero_block(s.body, set(zero)) & self._zero_block(s.orelse, set(zero))
        if isinstance(s, (For, While)):
            return self._zero_fixpoint(s.body, zero)
        if isinstance(s, Pop) and self._stack_active(s.stack) and s.target in self.active:
            return zero | {self.bar(s.target)}
        if isinstance(s, Push) and self._stack_active(s.stack) \
                and isinstance(s.value, str) and s.value in self.active:
            return zero - {self.bar(s.value)}
        return zero

    def _zero_fixpoint(self, stmts, entry):
        cand = set(entry)
        while True:
            end = self._zero_block(stmts, set(cand))
            if cand <= end:
                return cand
            cand &= end

    def _mirror_errstate(self, s, out):
        """An np.errstate block's adjoint runs under its settings too: leaving it (in
        the forward sweep) is entering it in the adjoint sweep, and the reverse."""
        tokens = self.errstate_tokens
        if s.fn is guards.errstate_exit:
            # a return, break or continue inside the block leaves it too: each path's
            # exit enters it again under the one name the block's enter mirrors to
            token = tokens.get(s.args[0]) or self.names.fresh("_errstate")
            tokens[s.args[0]] = token
            out.append(Op(token, guards.errstate_enter, (), s.kwargs, loc=s.loc))
        elif s.target in tokens:
            out.append(Op(None, guards.errstate_exit, (tokens.pop(s.target),), loc=s.loc))

    # A program made by revsrc saves values on its stacks and restores them later.
    # Differentiating it again, a value flows from each Push to the Pop that restores
    # it; adjoints flow back the other way, through an adjoint stack: the Pop's
    # adjoint is pushed there, and the Push, reversed later, pops it (stacks pair
    # pushes and pops in reverse order, so the pairs match).

    def _stack_active(self, stack):
        return analysis.stack_var(stack) in self.active

    def _adjoint_pop(self, s, site, out):
        t = s.target
        if self._stack_active(s.stack):
            tb = self.bar(t) if t in self.active else None
            if tb is None or tb in self.zero:
                value = Const(0.0) if s.stack[0] == "f" else self.names.temp()
                if not isinstance(value, Const):
                    out.append(Op(value, runtime.zero_tangent, (t,)))
                    self.plan.read(t)
            else:
                value = tb
            out.append(Push(value, adjoint_stack(s.stack)))
            if tb is not None:
                self.zero.add(tb)
        out.append(Restore(t, site))

    def _adjoint_push(self, s, out):
        if not self._stack_active(s.stack):
            return
        c = self.names.temp()
        out.append(Pop(c, adjoint_stack(s.stack)))
        if isinstance(s.value, str) and s.value in self.active:
            self.accumulate(s.value, c, out)

    def _adjoint_op(self, s, site, out):
        z = s.target
        zb = self.bar(z)
        if zb in self.zero:
            out.append(Restore(z, site))
            return
        out.append(Comment(_comment(s.loc, self.main), loc=s.loc))
        contribs = contributions.contributions(self, s, zb, out)
        args = [a for a, _ in contribs]
        in_args = z in args
        # other bars first: contributions may alias z's bar
        for a, c in contribs:
            if a != z:
                self.accumulate(a, c, out)
        if in_args:
            mine = [c for a, c in contribs if a == z]
            first = True
            for c in mine:
                if first:
                    if c != zb:
                        out.append(Op(zb, ir.copy, (c,)))
                    first = False
                else:
                    out.append(Op(zb, operator.add, (zb, c)))
        else:
            # the bar of the value before this assignment starts at zero; known
            # zero bars are never read, so nothing needs to be written
            self.zero.add(zb)
        if not in_args:
            out.append(Restore(z, site))

    def accumulate(self, a, c, out):
        ab = self.bar(a)
        if ab in self.zero:
            out.append(Op(ab, ir.copy, (c,)))
            self.zero.discard(ab)
        else:
            out.append(Op(ab, operator.add, (ab, c)))

    def _adjoint_setitem(self, s, site, out):
        tgt = s.target
        # the index (and the value's shape) as they were: the restore below reads them
        for operand in (s.index, s.value):
            if isinstance(operand, str) and operand in self.plan.forward_vars:
                self.plan.read(operand)
        if tgt in self.active:
            tb = self.bar(tgt)
            if tb not in self.zero:
                out.append(Comment(_comment(s.loc, self.main), loc=s.loc))
                if isinstance(s.value, str) and s.value in self.active:
                    c = self.names.temp()
                    out.append(Op(c, runtime.take_grad, (tb, s.index)))
                    c = self._cut_by_dtype(c, tgt, out)
                    u = self.names.temp()
                    out.append(Op(u, runtime.unbroadcast, (c, s.value)))
                    self.accumulate(s.value, u, out)
                out.append(Op(tb, runtime.zero_at, (tb, s.index)))
        out.append(RestoreItem(s, site))

    def _cut_by_dtype(self, c, tgt, out):
        """The adjoint ``c`` of a value stored into ``tgt``, zero at run time when
        ``tgt`` is an integer or bool array (NumPy truncates the value)."""
        if self.kinds.get(tgt) in _NO_DTYPE:
            return c
        self.plan.read(tgt)
        d = self.names.temp()
        out.append(Op(d, runtime.stored_derivative, (c, tgt)))
        return d


# kinds of item-assignment targets that hold no dtype (a list or dict keeps the value)
_NO_DTYPE = ("list", "tuple", "dict")


def _comment(loc, main=""):
    if loc is None:
        return "adjoint"
    where = f"line {loc.lineno}"
    if loc.func and loc.func != main:
        where += f" ({loc.func})"
    return f"adjoint of {where}: {loc.line}"
