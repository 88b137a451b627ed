"""The reverse-mode transformation: a forward sweep that saves, an adjoint sweep that pops.

Nothing is recorded per operation. The forward sweep saves only what the adjoint
will read and the program overwrites (``Push`` before the assignment), plus each
branch decision and each loop's trip count. The adjoint sweep walks the program
backwards, mirrors its control flow from those saved decisions, inlines the
rule of every active operation, and restores overwritten values (``Pop``) so
each rule sees exactly the values its operation saw.

`transform` runs the pass's parts in order: the stacks of a program made by revsrc
move up a level and companions are added (`stacks`); the plan indexes the program
(`plan`); the adjoint sweep is written, with placeholders where it depends on what
is saved (`adjoint`, `contributions`); then the forward sweep saves exactly what
the adjoint reads, and the placeholders are settled (`forward`).
"""
from __future__ import annotations

from ... import runtime
from ...core import ir, kinds as K
from ...core.ir import Comment, Const, Op, Pop
from .. import analysis
from .. import optimize
from . import checkpoint, forward
from .adjoint import Adjoint
from .plan import Plan
from .stacks import STACK_KIND, add_companions, shift_stack_var, shift_stacks
from .zeros import drop_unread_flags, fuse_flag_ifs

__all__ = ["STACK_KIND", "transform"]


def transform(an, *, name, seed=None, memory=None, lazy=False):
    """The adjoint ``ir.Program``, called ``name``, of an analyzed function (an
    `analysis.Analyzed`, whose namer names the adjoint's variables too). The adjoint
    sweep starts from 1.0 (a gradient of a scalar output) or, with ``seed``, from an
    extra parameter of that name (a vector-Jacobian product: the output's cotangent,
    of any shape). ``memory``: a byte budget for the saves of long loops
    (`checkpoint`), None for none; ``lazy``: long loops stored behind a test of it,
    their checkpointed form left to a second build when a call needs it."""
    names, params, body, result, aux = an.names, an.params, an.body, an.result, an.aux
    kinds = an.kinds
    companions = {}
    body = shift_stacks(body)
    active = {shift_stack_var(v) for v in an.active}
    body = add_companions(body, names, kinds, active, 0, companions)
    plan = Plan(names, kinds, an.ndims, active, params)
    plan.companions = companions
    plan.memory, plan.checkpointed = memory, {}
    plan.lazy = lazy and memory is not None and not checkpoint.shows_twice(body)
    plan.index(body)
    plan.find_array_items(body)
    # a number reduced from a complex array has a float's kind: saved as it is
    plan.array_items |= {v for v in getattr(an, "maybe_complex", ())
                         if kinds.get(v) in (K.FLOAT, K.INT)}
    plan.find_recomputable(body, optimize.use_counts(body))
    adj = Adjoint(plan, name.rsplit("_", 1)[0])
    rbody = []
    if isinstance(result, str) and result in active:
        rb = adj.bar(result)
        adj.zero = set(adj.bar(v) for v in active) - {rb}
        rbody.append(Op(rb, ir.copy, (Const(1.0) if seed is None else seed,)))
        adj.block(body, rbody)
    # decide which control statements have adjoint work
    forward.mark_sites(plan, rbody)
    fwd = forward.sweep(plan, body)
    rev = forward.resolve(plan, rbody)
    fwd = forward.initial_values(plan) + fwd
    fwd = forward.fast_gathers(fwd, kinds)
    grads = []
    for p in an.wrt:
        b = adj.bar_names.get(p)
        grads.append(Const(0.0) if (b is None or b in adj.zero) else b)
    rev = fuse_flag_ifs(rev, adj.flags, {g for g in grads if isinstance(g, str)})
    rev = drop_unread_flags(rev, adj.flags.values())
    rev = optimize.cleanup(rev, fwd, {o for o in [result, aux] + grads if isinstance(o, str)},
                           names)
    fwd = _zero_shapes_defined(fwd, rev, params)
    if rev:
        rev = [Comment("reverse sweep")] + rev
    check, (result_out, aux_out) = _outputs(an, body, plan, seed)
    outputs = [result_out] + grads + ([aux_out] if aux is not None else [])
    return ir.Program(name, list(params) + ([seed] if seed else []), fwd + check + rev,
                      outputs, kinds, forward_len=len(fwd) + len(check), names=names)


def _outputs(an, body, plan, seed):
    """The statements between the sweeps, and the result and auxiliary value the
    program returns: a gradient's output is checked to be a number, and an output
    the adjoint sweep restores is kept as it was at the end of the forward sweep."""
    names, result, aux, kinds = an.names, an.result, an.aux, an.kinds
    check = []
    if seed is None and kinds.get(result) not in ("float", "int", "bool"):
        where = None
        for st in ir.walk(body):
            if isinstance(st, Op) and st.target == result and st.loc is not None:
                where = st.loc
        check = [Op(None, runtime.check_scalar_output, (result, Const(where)))]
    restored = {plan.site_var.get(site) for site in plan.pushed} | checkpoint.rewritten(plan)
    keep = []
    for out_var in (result, aux):
        if isinstance(out_var, str) and out_var in restored:
            # the adjoint sweep restores older values: keep the final one
            snap = names.fresh("_value" if out_var == result else "_auxv")
            check.append(Op(snap, ir.copy, (out_var,)))
            kinds[snap] = kinds.get(out_var, "any")
            keep.append(snap)
        else:
            keep.append(out_var)
    return check, keep


def _zero_shapes_defined(fwd, rev, params):
    """``fwd`` with a placeholder (None, as `forward.initial_values` makes) for each
    variable whose zero adjoint the reverse sweep makes from its shape
    (``runtime.zeros_like``) and the forward sweep assigns only inside a branch, a loop
    or a try: the adjoints of the arms are merged, and on a path that never assigned it
    (``try: return np.sum(w * w) if n else 0.0``) its zero is made, never read."""
    top = {s.target for s in fwd if isinstance(s, (Op, Pop)) and s.target is not None}
    assigned = {w for s in ir.walk(fwd) for w in ir.writes(s)}
    need = []
    for s in ir.walk(rev):
        if isinstance(s, Op) and s.fn in (runtime.zeros_like, runtime.zero_items) and \
                s.args and isinstance(s.args[0], str):
            v = s.args[0]
            if v in assigned and v not in top and v not in params and v not in need:
                need.append(v)
    if not need:
        return fwd
    ops = [Op(v, ir.copy, (Const(None),)) for v in need]
    if fwd and isinstance(fwd[0], Comment) and fwd[0].text.startswith(analysis.PLACEHOLDERS):
        return fwd[:1] + ops + fwd[1:]
    return [Comment(f"{analysis.PLACEHOLDERS}, so start them defined")] + ops + fwd

