"""The adjoint of one operation: its rule, inlined at the call.

`contributions` binds the primitive's reverse rule to the call (`templates.bind`),
instantiates the rule's template there and returns, per active input, the operand
holding that input's contribution; the adjoint sweep accumulates them. Along the
way: a fused kernel replaces the rule for inputs a record's fusion fact covers;
a companion computed in the forward sweep (cos beside sin) replaces the call the
rule would make; cheap temporaries the plan chose to recompute are recomputed
before the rule reads them; a broadcasting primitive's contributions are summed
back to their input's shape. Every primal value the rule reads is recorded, so the
forward sweep saves it where it is overwritten.
"""
from __future__ import annotations

import operator

from ... import primitives, runtime
from ...runtime import containers
from ...core import ir
from ...core.ir import Const, Op
from .. import optimize, templates
from ..analysis import SCALARS
from .forward import Restore


def contributions(w, s, zb, out):
    """Inline the rule of ``s`` for the adjoint writer ``w``, whose adjoint of
    ``s.target`` is ``zb``: ops go to ``out``; returns [(input var, operand)]."""
    plan = w.plan
    if s.fn in (ir.make_tuple, ir.make_list, ir.make_dict):
        return _container(w, s, zb, out)
    prim = primitives.lookup(s.fn)
    if prim is None or prim.vjp is None:
        return []
    rule = prim.vjp.load()
    z = s.target
    ans = z
    if z in [a for a in s.args if isinstance(a, str)]:
        # the target overwrote one of its inputs: keep the output, then restore
        # the input so the rule sees both values
        if rule.reads("ans"):
            ans = w.names.fresh("_ans")
            out.append(Op(ans, ir.copy, (z,)))
            plan.read(z)
        out.append(Restore(z, plan.site_of[id(s)]))
    env = templates.bind(rule, s, ans, zb)
    wanted = w.targets(s)
    if not wanted:
        return []
    result = []
    facts = _fused(prim, s, env, w.kinds)
    if facts:
        # a fused input's contribution is one kernel call; the others come from the rule
        result = _fused_contributions(w, prim, s, env, facts, wanted, out)
        wanted = [(i, a) for i, a in wanted if i not in facts]
        if not wanted:
            return result
    body_ops, outs = templates.instantiate(templates.for_call(rule, s, w.kinds), env,
                                           [i for i, _ in wanted], w.names, s.loc)
    body_ops, outs = optimize.fold(body_ops, outs, w.names)
    comp = plan.companions.get(id(s))
    if comp is not None:
        other, x, name = comp
        body_ops = [Op(o.target, ir.copy, (name,), (), o.loc)
                    if o.fn is other and o.args == (x,) else o for o in body_ops]
    _recompute(plan, body_ops, out)
    out.extend(body_ops)
    summed = {}
    for (i, arg), c in zip(wanted, outs):
        if prim.broadcast and w.kinds.get(z) not in SCALARS:
            if (c, arg) not in summed:
                t = w.names.temp()
                out.append(Op(t, runtime.unbroadcast, (c, arg)))
                summed[(c, arg)] = t
                if isinstance(arg, str) and arg in plan.forward_vars:
                    plan.read(arg)  # its shape, as it was then
            c = summed[(c, arg)]
        result.append((arg, c))
    _record_reads(plan, body_ops, result)
    return result


def _container(w, s, zb, out):
    """A tuple's, list's or dict's items get the adjoint's items (a dict's, at its key)."""
    result = []
    for i, a in enumerate(s.args):
        if not (isinstance(a, str) and a in w.active):
            continue
        if s.fn is not ir.make_dict:
            t = w.names.temp()
            out.append(Op(t, operator.getitem, (zb, Const(i))))
            result.append((a, t))
        elif i % 2 == 1:
            t = w.names.temp()
            key = s.args[i - 1]
            out.append(Op(t, containers.item_grad, (zb, key)))
            if isinstance(key, str) and key in w.plan.forward_vars:
                w.plan.read(key)   # a key computed in the function
            result.append((a, t))
    return result


def _fused(prim, s, env, kinds):
    """The record's fusion facts that apply to this call, by input: every value a
    fact names is an array, or a number beside one (np.logaddexp(0.0, z)), and its
    condition holds."""
    facts = prim.fused
    if facts is None:
        return {}
    if not isinstance(facts, tuple):
        facts = (facts,)
    out = {}
    for f in facts:
        named = [env[n] for n in f.names if n != "g"]
        arrays = [v for v in named if isinstance(v, str) and kinds.get(v) == "array"]
        numbers = [v for v in named if isinstance(v, Const) and type(v.value) in (float, int)]
        if arrays and len(arrays) + len(numbers) == len(named) and \
                (f.when is None or f.when(s)):
            out[f.input] = f
    return out


def _fused_contributions(w, prim, s, env, facts, wanted, out):
    """One kernel call per input a fusion fact covers."""
    plan = w.plan
    result = []
    for i, a in wanted:
        fused = facts.get(i)
        if fused is None:
            continue
        t = w.names.temp()
        out.append(Op(t, fused.kernel, tuple(env[n] for n in fused.names)))
        for n in fused.names:
            if isinstance(env[n], str) and env[n] in plan.forward_vars:
                plan.read(env[n])
        others = [b for j, b in enumerate(s.args) if j != i and isinstance(b, str)
                  and w.kinds.get(b) not in SCALARS]
        if prim.broadcast and others:
            # another array operand may have broadcast this one
            c = w.names.temp()
            out.append(Op(c, runtime.unbroadcast, (t, a)))
            if isinstance(a, str) and a in plan.forward_vars:
                plan.read(a)
            t = c
        result.append((a, t))
    return result


def _recompute(plan, body_ops, out):
    """Cheap temporaries the rule reads are recomputed here rather than saved and
    restored."""
    redo = []
    for op in body_ops:
        for a in list(op.args) + [v for _, v in op.kwargs]:
            if isinstance(a, str) and a in plan.recompute and a not in redo:
                redo.append(a)
    for t in redo:
        d = plan.recompute[t]
        out.append(Op(t, d.fn, d.args, d.kwargs))
        for a in d.args:
            if isinstance(a, str):
                plan.read(a)


def _record_reads(plan, body_ops, result):
    """The primal values the inlined rule reads, and its contributions that are
    primal values themselves (a rule may pass one through)."""
    for op in body_ops:
        for a in list(op.args) + [v for _, v in op.kwargs]:
            if isinstance(a, str) and a in plan.forward_vars and a not in plan.recompute:
                plan.read(a)
    for _, c in result:
        if isinstance(c, str) and c in plan.forward_vars and c not in plan.recompute:
            plan.read(c)
