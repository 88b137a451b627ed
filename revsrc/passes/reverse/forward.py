"""The forward sweep, and the adjoint's placeholders it settles.

The adjoint sweep is written first, because only then is it known what it reads.
Where its code depends on what the forward sweep will save (whether a value is
restored, whether a branch decision or trip count is popped), it leaves a
placeholder. `sweep` then writes the forward program with a ``Push`` before each
definition whose old value an adjoint reads, plus each branch decision and each
loop's trip count where the mirrored statement has adjoint work; `resolve` turns
the placeholders into the matching ``Pop``s, or into nothing.
"""
from __future__ import annotations

import operator

from ... import errors, runtime
from ...core import ir
from .. import analysis
from ...core.ir import Comment, Const, For, If, Op, Pop, Push, SetItem, While
from ...core.record import record
from . import checkpoint
from .plan import breaks


@record
class Restore:
    """Placeholder: restore ``var`` as it was before definition ``site``."""
    var: str
    site: int

    def __init__(self, var, site):
        self.var = var
        self.site = site


@record
class Decision:
    """Placeholder for a branch decision or trip count popped in the adjoint."""
    target: str
    site: int

    def __init__(self, target, site):
        self.target = target
        self.site = site


@record
class ReverseFor:
    """Placeholder for the adjoint of a ``for`` loop: ``body`` runs ``trips`` times,
    counting down with ``index``; resolved once the forward sweep knows what it saved."""
    loop: For
    site: int
    trips: str
    index: str
    body: list

    def __init__(self, loop, site, trips, index, body):
        self.loop = loop
        self.site = site
        self.trips = trips
        self.index = index
        self.body = body


@record
class RestoreItem:
    """Placeholder: undo the item assignment ``assign`` (if its old value was saved)."""
    assign: SetItem
    site: int

    def __init__(self, assign, site):
        self.assign = assign
        self.site = site


# ----- which control statements have adjoint work ---------------------------
def mark_sites(plan, rbody):
    """Record, per control statement site, whether its adjoint does anything."""
    def visit(stmts):
        nonempty = False
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, Decision):
                ctrl = stmts[i + 1]
                ne = visit(ctrl.body)
                if isinstance(ctrl, If):
                    ne = visit(ctrl.orelse) or ne
                plan.rev_nonempty[s.site] = ne
                nonempty = nonempty or ne
                i += 2
                continue
            if isinstance(s, Op):
                nonempty = True
            elif isinstance(s, If):      # a live flag's (revsrc/passes/reverse/zeros.py)
                nonempty = visit(s.body) | visit(s.orelse) or nonempty
            elif isinstance(s, Restore):
                if plan.saves(s.site, s.var):
                    nonempty = True
            elif isinstance(s, (RestoreItem, Push, Pop)):
                nonempty = True
            i += 1
        return nonempty
    visit(rbody)


# ----- the forward sweep -----------------------------------------------------
def sweep(plan, stmts):
    """``stmts`` saving what the adjoint sweep restores (``plan.pushed`` records where)."""
    out = []
    for s in stmts:
        site = plan.site_of[id(s)]
        if isinstance(s, (Op, Pop)):
            v = s.target
            if v is not None and plan.saves(site, v):
                out.append(Push(v, plan.stack(v)))
                plan.pushed.add(site)
            out.append(s)
        elif isinstance(s, SetItem):
            if s.target in plan.active or plan.needed(s.target):
                old = plan.names.fresh("_old")
                out.append(Op(old, runtime.copy_item, (s.target, s.index), loc=s.loc))
                out.append(Push(old, "o"))
                plan.pushed.add(site)
            out.append(s)
        elif isinstance(s, If):
            body = sweep(plan, s.body)
            orelse = sweep(plan, s.orelse)
            if plan.rev_nonempty.get(site):
                # pushed at the end of each branch, so the adjoint pops it first
                body = body + [Push(Const(1), "i")]
                orelse = orelse + [Push(Const(0), "i")]
            out.append(If(s.test, body, orelse, loc=s.loc))
        elif isinstance(s, For):
            _sweep_for(plan, s, site, out)
        elif isinstance(s, While):
            _sweep_while(plan, s, site, out)
        else:
            out.append(s)
    return out


def _sweep_for(plan, s, site, out):
    """A ``for`` loop, counting its trips (and saving its bounds) where it has
    adjoint work whose trip count is not known now."""
    v = s.var
    if plan.needed(v) and (plan.def_count.get(v, 0) > 1 or v in plan.params
                           or site in plan.in_loop_defs):
        out.append(Push(v, plan.stack(v)))
        plan.pushed.add(site)
    body = sweep(plan, s.body)
    scope = checkpoint.applies(plan, s, site, body)
    if scope is not None:
        stored = []
        _stored_for(plan, s, site, body, stored)
        out.extend(checkpoint.forward(plan, s, site, body, stored, scope))
    else:
        _stored_for(plan, s, site, body, out)


def _stored_for(plan, s, site, body, out):
    v = s.var
    if not plan.rev_nonempty.get(site) or site in plan.static_trips:
        if plan.rev_nonempty.get(site) and plan.needed(v):
            plan.needs_var[site] = (s.start, s.step)
        out.append(For(v, s.start, s.stop, s.step, body, loc=s.loc))
        return
    n = plan.names.fresh("_n")
    plan.kinds[n] = "int"
    saved = []
    if plan.needed(v):
        for bound in (s.start, s.step):
            if isinstance(bound, str):
                t = plan.names.fresh("_r")
                plan.kinds[t] = "int"
                out.append(Op(t, ir.copy, (bound,), loc=s.loc))
                saved.append(t)
        plan.needs_var[site] = (s.start, s.step)
    if breaks(s.body) or s.step != Const(1):
        out.append(Op(n, ir.copy, (Const(0),), loc=s.loc))
        body = [Op(n, operator.add, (n, Const(1)))] + body
    else:
        # no break and a unit step: the trip count is known on entry
        span = s.stop
        if s.start != Const(0):
            span = plan.names.temp()
            plan.kinds[span] = "int"
            out.append(Op(span, operator.sub, (s.stop, s.start), loc=s.loc))
        out.append(Op(n, max, (span, Const(0)), loc=s.loc))
    out.append(For(v, s.start, s.stop, s.step, body, loc=s.loc))
    # saved after the loop, so the adjoint pops them before its body
    for t in saved:
        out.append(Push(t, "i"))
    out.append(Push(n, "i"))


def _sweep_while(plan, s, site, out):
    for t in ir.walk(s.test_body):
        for w in ir.writes(t):
            if plan.needed(w):
                raise errors.UnsupportedControlFlow(
                    "a while condition computes a value the derivative needs",
                    loc=s.loc, hint="compute it inside the loop body")
    body = sweep(plan, s.body)
    scope = checkpoint.applies(plan, s, site, body)
    if scope is not None:
        out.extend(checkpoint.forward(plan, s, site, body, None, scope))
    elif plan.rev_nonempty.get(site):
        n = plan.names.fresh("_n")
        out.append(Op(n, ir.copy, (Const(0),), loc=s.loc))
        body = [Op(n, operator.add, (n, Const(1)))] + body
        out.append(While(s.test_body, s.test, body, loc=s.loc))
        out.append(Push(n, "i"))
    else:
        out.append(While(s.test_body, s.test, body, loc=s.loc))


def initial_values(plan):
    """Variables saved before they are first assigned start defined (as zeros)."""
    init, seen = [], set()
    for site in sorted(plan.pushed):
        v = plan.site_var.get(site)
        if v is None or v in plan.params or v in seen \
                or isinstance(plan.site_stmt[site], SetItem):
            continue
        seen.add(v)
        stack = plan.stack(v)
        zero = Const(0.0) if stack == "f" else (Const(0) if stack == "i" else Const(None))
        init.append(Op(v, ir.copy, (zero,)))
    if init:
        init.insert(0, Comment(f"{analysis.PLACEHOLDERS}, so start them defined"))
    return init


def fast_gathers(stmts, kinds_):
    """Forward ``x[index]`` on arrays with a computed index go through runtime.take."""
    out = []
    for s in stmts:
        if isinstance(s, Op) and s.fn is operator.getitem and kinds_.get(s.args[0]) == "array" \
                and isinstance(s.args[1], str) and kinds_.get(s.args[1]) == "tuple":
            s = Op(s.target, runtime.take, s.args, s.kwargs, s.loc)
        out.append(ir.map_children(s, lambda b: fast_gathers(b, kinds_)))
    return out


# ----- settling the adjoint's placeholders ------------------------------------
def resolve(plan, stmts):
    """The adjoint ``stmts`` with their placeholders replaced by what the forward
    sweep saved: a ``Pop`` for each value, decision and trip count it pushed."""
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, Restore):
            if s.site in plan.pushed and plan.site_var.get(s.site) == s.var:
                out.append(Pop(s.var, plan.stack(s.var)))
        elif isinstance(s, Decision):
            _resolve_decision(plan, s, stmts[i + 1], out)
            i += 2
            continue
        elif isinstance(s, RestoreItem):
            if s.site in plan.pushed:
                st = s.assign
                old = plan.names.fresh("_old")
                out.append(Pop(old, "o"))
                out.append(SetItem(st.target, st.index, old, loc=st.loc))
        elif isinstance(s, If):          # a live flag's
            out.append(If(s.test, resolve(plan, s.body), resolve(plan, s.orelse), loc=s.loc))
        else:
            out.append(s)
        i += 1
    return out


def _resolve_decision(plan, s, ctrl, out):
    """The mirrored control statement ``ctrl`` that decision ``s`` stands before."""
    site = s.site
    if site in plan.checkpointed:
        stored = []
        _resolve_stored(plan, s, ctrl, stored)
        out.extend(checkpoint.reverse(plan, site, resolve(plan, ctrl.body), stored))
    else:
        _resolve_stored(plan, s, ctrl, out)


def _resolve_stored(plan, s, ctrl, out):
    site = s.site
    if plan.rev_nonempty.get(site) and site in plan.static_trips:
        out.extend(_reverse_for(plan, ctrl, plan.static_trips[site]))
    elif plan.rev_nonempty.get(site):
        out.append(Pop(s.target, "i"))
        if isinstance(ctrl, If):
            out.append(If(s.target, resolve(plan, ctrl.body),
                          resolve(plan, ctrl.orelse), loc=ctrl.loc))
        elif isinstance(ctrl, For):
            out.append(For(ctrl.var, ctrl.start, s.target, ctrl.step,
                           resolve(plan, ctrl.body), loc=ctrl.loc))
        else:
            out.extend(_reverse_for(plan, ctrl, s.target))


def _reverse_for(plan, ctrl, n):
    """The adjoint of a ``for`` loop run ``n`` times, its variable counting down
    where the adjoint reads it."""
    s, site, k = ctrl.loop, ctrl.site, ctrl.index
    body = resolve(plan, ctrl.body)
    if site not in plan.needs_var:
        return [For(k, Const(0), n, Const(1), body, loc=s.loc)]
    pre = []
    saved = []
    for bound in reversed(plan.needs_var[site]):
        if isinstance(bound, str):
            t = plan.names.fresh("_r")
            plan.kinds[t] = "int"
            pre.append(Pop(t, "i"))
            bound = t
        saved.append(bound)
    step, start = saved
    if isinstance(n, Const):
        last = Const(n.value - 1)
    else:
        last = plan.names.fresh("_m")
        plan.kinds[last] = "int"
        pre.append(Op(last, operator.sub, (n, Const(1))))
    # the loop variable, counting down: start + k * step
    if step == Const(1):
        off, inner = k, []
    else:
        off = plan.names.temp()
        inner = [Op(off, operator.mul, (k, step))]
    if start == Const(0):
        inner.append(Op(s.var, ir.copy, (off,)))
    else:
        inner.append(Op(s.var, operator.add, (start, off)))
    inner += body
    return pre + [For(k, last, Const(-1), Const(-1), inner, loc=s.loc)]
