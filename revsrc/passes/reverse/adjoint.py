"""The adjoint sweep: the forward program walked backwards, writing each adjoint.

`Adjoint` mirrors the program's control flow (from decisions the forward sweep
will save), writes the adjoint of each active statement (the rule of each
operation is inlined by `contributions.contributions`), and accumulates into the
adjoints of its inputs. Where its code depends on what the forward sweep saves it
leaves a placeholder (`forward.Restore` and its siblings), settled later.

It knows which adjoints are zero (``self.zero``: never written since they last
became zero), so it writes no code for them; a zero is written at run time only
where control flow joins a path on which it is zero with one on which it is not.
Such an adjoint is then *maybe* zero (``self.maybe``): the adjoint of the operation
that reads it runs only if its live flag says a contribution arrived (`zeros`).
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
from .zeros import ZeroFlow


class Adjoint(ZeroFlow):
    def __init__(self, plan, main):
        self.plan = plan
        self.names = plan.names
        self.kinds = plan.kinds
        self.active = plan.active
        self.main = main           # the function's name, left out of line comments
        self.bar_names = {}
        self.bar_of = {}           # bar -> the variable it is the adjoint of
        self.zero = set()
        self.maybe = set()         # adjoints zero on some paths only (`zeros`)
        self.killed = set()        # zero ones whose variable's assignment was reversed
        self.flags = {}            # adjoint -> its live flag
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
            trips = _static_trips(s)
            if trips is not None:
                self.plan.static_trips[site] = Const(trips)
            body = self._loop_body(s, out)
            n = self.names.fresh("_n")
            k = self.names.fresh("_k")
            out.append(Decision(n, site))
            out.append(ReverseFor(s, site, n, k, body))
            out.append(Restore(s.var, site))
        elif isinstance(s, While):
            body = self._loop_body(s, out)
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
        before = self.snapshot()
        body, orelse = [], []
        self.block(s.body, body)
        after_body = self.snapshot()
        self.restore_flow(before)
        self.block(s.orelse, orelse)
        self.merge(body, orelse, after_body, self.snapshot())
        flag = self.names.fresh("_b")
        out.append(Decision(flag, site))
        out.append(If(flag, body, orelse, loc=s.loc))

    def _loop_body(self, loop, out):
        """Reverse a loop body from the state at the head of every iteration (found
        before any code is written): what differs from it on entry is settled before
        the loop, what differs at the end of an iteration at that end."""
        entry = self.snapshot()
        head = self.loop_flow(loop.body, entry)
        self.restore_flow(head)
        body = []
        self.block(loop.body, body)
        end = self.snapshot()
        out.extend(self.fixups(entry, head))
        body.extend(self.fixups(end, head))
        self.restore_flow(self.after_loop(head, end) if self.runs_once(loop) else head)
        return body

    def runs_once(self, loop):
        """Whether the reversed ``loop`` is known to run at least once."""
        return isinstance(loop, For) and (_static_trips(loop) or 0) > 0

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
                self._killed(tb)
        out.append(Restore(t, site))

    def _adjoint_push(self, s, out):
        if not self._stack_active(s.stack):
            return
        c = self.names.temp()
        out.append(Pop(c, adjoint_stack(s.stack)))
        if isinstance(s.value, str) and s.value in self.active:
            self.accumulate(s.value, c, out)

    def _killed(self, b):
        self.zero.add(b)
        self.killed.add(b)
        self.maybe.discard(b)

    def _adjoint_op(self, s, site, out):
        z = s.target
        zb = self.bar(z)
        if zb in self.zero:
            out.append(Restore(z, site))
            return
        out.append(Comment(_comment(s.loc, self.main), loc=s.loc))
        if zb in self.maybe:
            self._adjoint_op_if_live(s, site, zb, out)
            return
        if not self._rule(s, zb, out):
            # the bar of the value before this assignment starts at zero; known
            # zero bars are never read, so nothing needs to be written
            self._killed(zb)
            out.append(Restore(z, site))

    def _adjoint_op_if_live(self, s, site, zb, out):
        """The adjoint of ``s`` under ``if zb_live:``: on a path that sent nothing to
        ``zb`` nothing flows on (0.0 times an infinite derivative would be nan).
        Values the rule restores are restored on both paths."""
        before = self.snapshot()
        self.maybe.discard(zb)
        inner = []
        in_args = self._rule(s, zb, inner)
        if in_args:
            self.maybe.add(zb)     # its flag still holds
        else:
            self._killed(zb)
        taken = self.snapshot()
        self.restore_flow(before)
        if not in_args:
            self._killed(zb)
        # an input the target overwrote is restored on both paths: what the rule
        # does up to that restore (a copy of the target) runs unconditionally
        cut = max((i + 1 for i, t in enumerate(inner) if isinstance(t, Restore)), default=0)
        out.extend(inner[:cut])
        inner, skipped = inner[cut:], []
        self.merge(inner, skipped, taken, self.snapshot(), slots=False)
        out.append(If(self.live_flag(zb), inner, skipped, loc=s.loc))
        if not in_args:
            out.append(Restore(s.target, site))

    def _rule(self, s, zb, out):
        """The contributions of ``s``'s rule, accumulated; whether ``s.target`` is
        among its inputs (then ``zb`` holds what it sends there)."""
        z = s.target
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
        return in_args

    def accumulate(self, a, c, out):
        ab = self.bar(a)
        if ab in self.zero:
            out.append(Op(ab, ir.copy, (c,)))
            self.zero.discard(ab)
            self.killed.discard(ab)
        else:
            out.append(Op(ab, operator.add, (ab, c)))
            self.maybe.discard(ab)

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
                if tb not in self.maybe:
                    self._setitem_rule(s, tb, out)
                else:
                    # as an operation's: only what arrived flows on
                    before, inner = self.snapshot(), []
                    self.maybe.discard(tb)
                    self._setitem_rule(s, tb, inner)
                    self.maybe.add(tb)
                    taken = self.snapshot()
                    skipped = []
                    self.merge(inner, skipped, taken, before, slots=False)
                    out.append(If(self.live_flag(tb), inner, skipped, loc=s.loc))
        out.append(RestoreItem(s, site))

    def _setitem_rule(self, s, tb, out):
        """``x[index] = value``: the value gets ``x``'s adjoint at ``index``, then the
        overwritten places of ``x`` get none. The value's share is added after the
        zeroing: when the value is ``x`` itself (``a[::-1] = a``; NumPy reads the whole
        right-hand side before writing) it lands on ``x``'s adjoint, past the write."""
        u = None
        if isinstance(s.value, str) and s.value in self.active:
            c = self.names.temp()
            out.append(Op(c, runtime.take_grad, (tb, s.index)))
            c = self._cut_by_dtype(c, s.target, out)
            u = self.names.temp()
            out.append(Op(u, runtime.unbroadcast, (c, s.value)))
        out.append(Op(tb, runtime.zero_at, (tb, s.index)))
        if u is not None:
            self.accumulate(s.value, u, out)

    def _cut_by_dtype(self, c, tgt, out):
        """The adjoint ``c`` of a value stored into ``tgt``, zero at run time when
        ``tgt`` is an integer or bool array (NumPy truncates the value)."""
        if self.kinds.get(tgt) in _NO_DTYPE:
            return c
        self.plan.read(tgt)
        d = self.names.temp()
        out.append(Op(d, runtime.stored_derivative, (c, tgt)))
        return d


def _static_trips(loop):
    """The trip count of a ``for`` over a constant range with no break, else None."""
    if all(isinstance(b, Const) and type(b.value) is int
           for b in (loop.start, loop.stop, loop.step)) and loop.step.value != 0 \
            and not breaks(loop.body):
        return len(range(loop.start.value, loop.stop.value, loop.step.value))
    return None


# kinds of item-assignment targets that hold no dtype (a list or dict keeps the value)
_NO_DTYPE = ("list", "tuple", "dict")


def _comment(loc, main=""):
    if loc is None:
        return "adjoint"
    where = f"line {loc.lineno}"
    if loc.func and loc.func != main:
        where += f" ({loc.func})"
    return f"adjoint of {where}: {loc.line}"
