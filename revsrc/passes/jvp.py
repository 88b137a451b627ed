"""Forward mode by source transformation: every operation is followed by its tangent.

The tangent of ``y = f(x1, x2)`` is the sum, over the inputs that carry a tangent, of
the primitive's forward rule for that input (its record's ``jvp``):

- an elementwise primitive uses its reverse rule with ``g`` read as the input's
  tangent (an elementwise rule is ``g`` times a partial derivative);
- a primitive linear in its inputs applies itself to their tangents
  (``np.sum(x_dot, axis)``, ``np.append(a_dot, b_dot)``), and one linear in each of
  several inputs (``a @ b``) sums one term per input (``a_dot @ b + a @ b_dot``);
- any other primitive has a forward rule of its own, in the reverse rule's form.

Control flow is the program's own: loops, branches and early exits need no saving,
so forward mode keeps no stacks of its own. A program that already has stacks (a
derivative made by revsrc) gets the tangent of each saved value saved beside it,
which is how forward over reverse (Hessians, Hessian-vector products) works.

Tangents are known to be zero where no input carries one; a variable that carries a
tangent gets one at every assignment (zero where that assignment's inputs carry
none), so branches and loops join without further bookkeeping.

Where arrays are written in place, tangents share memory as their values do: a
derivative saves views and restores overwritten values into their arrays, and reads
a saved view after that, so the tangent of a view is the same view of its array's
tangent, and the tangent of a new array an array of its own (`_shared_like_value`).
"""
from __future__ import annotations

import inspect
import operator

import numpy as np

from .. import errors, primitives, runtime
from ..runtime import arith, forward_grads
from ..core import ir, kinds
from ..core.names import Names
from . import optimize, templates, views
from .analysis import SCALARS, stack_var
from ..core.ir import Break, Comment, Const, For, If, Op, Pop, Push, SetItem, While


def activity_positions(op):
    """`jvp_positions` in the form analysis.activity takes."""
    pos = jvp_positions(op)
    return (None, None) if pos is None else (pos, _jvp_keywords(op))


def _jvp_keywords(op):
    """The keyword inputs of ``op`` its forward rule differentiates (those `bind`
    left as keywords: np.pad's constant_values=), as `_Forward._wanted` binds them."""
    prim = primitives.lookup(op.fn)
    if prim is None or prim.nondiff or not op.kwargs:
        return []
    if _by_reverse_rule(prim) or prim.jvp == "elementwise":
        rule = prim.vjp
    elif isinstance(prim.jvp, primitives.Rule):
        rule = prim.jvp
    else:
        return [k for k, _ in op.kwargs if k in _linear_names(op, prim)]
    if rule is None:
        return []
    params = rule.load().params
    # one the rule does not name is refused (`_wanted`; analysis._unknown_keyword)
    return [k for k, _ in op.kwargs if k not in params or rule.differentiable(params.index(k))]


def jvp_positions(op):
    """Positional inputs of ``op`` its forward rule differentiates; None: no rule."""
    if op.fn in (ir.make_tuple, ir.make_list):
        return list(range(len(op.args)))
    if op.fn is ir.make_dict:
        return list(range(1, len(op.args), 2))
    prim = primitives.lookup(op.fn)
    if prim is None:
        return None
    if prim.nondiff:
        return []
    if prim.jvp == "elementwise":
        return [i for i in range(len(op.args)) if prim.differentiable(i)]
    if isinstance(prim.jvp, primitives.Rule):
        return [i for i in range(len(op.args)) if prim.jvp.differentiable(i)]
    if prim.linear or prim.multilinear:
        return [i for i in prim.linear + prim.multilinear if i < len(op.args)]
    if prim.vjp is not None and primitives.family_of(op.fn) != primitives.RUNTIME:
        # no forward rule of its own: the tangent comes from the reverse rule
        return [i for i in range(len(op.args)) if prim.differentiable(i)]
    return None


# conversions that take a dtype second (np.copy's second is its order)
_CONVERSIONS = (arith.astype, np.array, np.asarray, np.ascontiguousarray)


def _run_time_conversion(s):
    """(dtype, the other options) of ``s`` when it converts to a dtype that is a value
    (x.astype(dt), np.asarray(v, dtype=dt)) and its other options are constants; else
    None (a dtype written in the function is decided by the analysis)."""
    if s.fn not in _CONVERSIONS or len(s.args) < 2 and not s.kwargs:
        return None
    kw = dict(s.kwargs)
    dtype = s.args[1] if len(s.args) > 1 else kw.pop("dtype", None)
    rest = s.args[2:]
    if not isinstance(dtype, str) or \
            not all(isinstance(a, Const) for a in list(rest) + list(kw.values())):
        return None
    return (dtype, Const(tuple(a.value for a in rest)),
            Const(tuple((k, v.value) for k, v in kw.items())))


def _by_reverse_rule(prim):
    return not (prim.jvp == "elementwise" or isinstance(prim.jvp, primitives.Rule)
                or prim.linear or prim.multilinear)


def _written(stmts, kinds_):
    """The names whose values item assignments may write into, anywhere in
    ``stmts``: the names written, the arrays they may be views of, and the views of
    those (`views.view_link`)."""
    links = []
    for s in ir.walk(stmts):
        link = views.view_link(s, kinds_) if isinstance(s, Op) else None
        if link is not None:
            links.append((s.target, link[0]))
    found = {s.target for s in ir.walk(stmts) if isinstance(s, SetItem)}
    changed = True
    while changed:
        changed = False
        for view, base in links:
            if (view in found) != (base in found):
                found.update((view, base))
                changed = True
    return found


class _Forward:
    def __init__(self, names, kinds_, ndims, active, compile_python):
        self.names = names
        self.kinds = kinds_
        self.ndims = ndims
        self.active = active
        self.compile_python = compile_python   # for `_rule_row`
        # names whose values may be written into in place: their tangents share memory
        # as the values do (a rule may pass a tangent through, x * 1.0 -> x_dot, and
        # the write would reach the other name's tangent, or the caller's; a derivative
        # reads a view it saved after writes into its array)
        self.written = set()

    def dot(self, v):
        return self.names.dot(v)

    def tangent(self, operand):
        """The tangent operand of ``operand``, or None where it is known zero."""
        if isinstance(operand, str) and operand in self.active:
            return self.dot(operand)
        return None

    def zero(self, v, out):
        """A zero tangent for the value of ``v``."""
        k = self.kinds.get(v) if isinstance(v, str) else kinds.of_value(v.value)
        if k in SCALARS:
            return Const(0.0)
        t = self.names.temp()
        out.append(Op(t, runtime.zero_tangent, (v,)))
        return t

    # ----- statements -----

    def block(self, stmts):
        out = []
        for s in stmts:
            self.stmt(s, out)
        return out

    def stmt(self, s, out):
        if isinstance(s, Op):
            self.op(s, out)
        elif isinstance(s, SetItem):
            out.append(s)
            if s.target in self.active:
                value = self.tangent(s.value)
                if value is None:
                    value = self.zero(s.value, out)
                elif self.kinds.get(s.target) not in (kinds.LIST, kinds.TUPLE, kinds.DICT):
                    # zero at run time when the target is an integer or bool array:
                    # NumPy truncates what it stores there
                    cut = self.names.temp()
                    out.append(Op(cut, runtime.stored_derivative, (value, s.target)))
                    value = cut
                out.append(SetItem(self.dot(s.target), s.index, value, loc=s.loc))
        elif isinstance(s, (If, For, While)):
            # a while's test too: its statements carry tangents (and, in a derivative,
            # save values) like any other
            out.append(ir.map_children(s, self.block))
        elif isinstance(s, Push):
            out.append(s)
            if stack_var(s.stack) in self.active:
                t = self.tangent(s.value)
                if t is None:
                    t = self.zero(s.value, out)
                out.append(Push(t, s.stack))
        elif isinstance(s, Pop):
            if stack_var(s.stack) in self.active:
                # saved after its value, so restored before it
                target = self.dot(s.target) if s.target in self.active else \
                    self.names.fresh("_unused")
                out.append(Pop(target, s.stack))
            out.append(s)
        elif isinstance(s, (Break, Comment)):
            out.append(s)
        else:  # pragma: no cover
            raise AssertionError(s)

    def op(self, s, out):
        z = s.target
        if z is None or z not in self.active:
            out.append(s)
            return
        overwrites = z in [a for a in s.args if isinstance(a, str)] + \
            [v for _, v in s.kwargs if isinstance(v, str)]
        ans = self.names.temp() if overwrites else z
        out.append(Op(ans, s.fn, s.args, s.kwargs, s.loc))
        terms = self.contributions(s, ans, out)
        # a tuple or a list of results (np.linalg.lstsq) adds item by item
        add = operator.add if self.kinds.get(z) in SCALARS + (kinds.ARRAY,) \
            else runtime.add_tangents
        total = None
        for t in terms:
            if total is None:
                total = t
            else:
                nxt = self.names.temp()
                out.append(Op(nxt, add, (total, t), loc=s.loc))
                total = nxt
        if total is None:
            total = self.zero(ans, out)
        total = self._shared_like_value(s, ans, total, out)
        if overwrites:
            out.append(Op(z, ir.copy, (ans,), loc=s.loc))
        out.append(Op(self.dot(z), ir.copy, (total,), loc=s.loc))

    def _shared_like_value(self, s, ans, total, out):
        """``total``, the tangent of ``s``'s value ``ans``, sharing memory as ``ans``
        does when an array it may share memory with is written in place: a view's
        tangent the same view of its array's tangent, a new array's tangent an array
        of its own (`forward_grads`)."""
        if s.target not in self.written or not isinstance(total, str) or \
                self.kinds.get(s.target) not in (kinds.ARRAY, kinds.ANY):
            return total
        link = views.view_link(s, self.kinds)
        t = self.names.temp()
        if link is None:
            out.append(Op(t, forward_grads.own_tangent, (total, ans), loc=s.loc))
        else:
            base = link[0]
            base_t = self.tangent(base)
            out.append(Op(t, forward_grads.view_tangent,
                          (total, ans, base, Const(None) if base_t is None else base_t,
                           Const(s.loc)), loc=s.loc))
        return t

    def contributions(self, s, ans, out):
        """One tangent term per input of ``s`` that carries a tangent."""
        positions = jvp_positions(s)
        if positions is None:
            _refuse(s)
        conv = _run_time_conversion(s)
        if conv is not None:
            # to a dtype known only when it runs: zero for an int or bool one
            x = self.tangent(s.args[0])
            t = self.names.temp()
            out.append(Op(t, forward_grads.conversion_tangent,
                          (Const(s.fn), x if x is not None else self.zero(s.args[0], out))
                          + conv, loc=s.loc))
            return [t]
        if s.fn in (ir.make_tuple, ir.make_list, ir.make_dict):
            items = []
            for i, a in enumerate(s.args):
                if s.fn is ir.make_dict and i % 2 == 0:
                    items.append(a)    # a key
                    continue
                t = self.tangent(a)
                items.append(t if t is not None else self.zero(a, out))
            t = self.names.temp()
            out.append(Op(t, s.fn, tuple(items), loc=s.loc))
            return [t]
        if s.fn in (min, max) and len(s.args) == 2 and not s.kwargs \
                and any(self.kinds.get(a) in (kinds.TUPLE, kinds.LIST) if isinstance(a, str)
                        else isinstance(a.value, (tuple, list)) for a in s.args):
            tangents = [self.tangent(a) for a in s.args]
            tangents = [t if t is not None else self.zero(a, out)
                        for t, a in zip(tangents, s.args)]
            t = self.names.temp()
            out.append(Op(t, forward_grads.select_tangent,
                          (Const(s.fn),) + tuple(s.args) + tuple(tangents), loc=s.loc))
            return [t]
        prim = primitives.lookup(s.fn)
        rule = prim.vjp if (prim.jvp == "elementwise" or _by_reverse_rule(prim)) \
            else prim.jvp if isinstance(prim.jvp, primitives.Rule) else None
        wanted = self._wanted(s, prim, rule, positions)
        if prim.jvp == "elementwise" or isinstance(prim.jvp, primitives.Rule):
            return self._rule_terms(s, ans, prim, rule, wanted, out)
        terms = []
        if _by_reverse_rule(prim):
            # the Jacobian-vector product from the reverse rule, one output direction at
            # a time (exact, and as costly as the output is large)
            xp = primitives.namespace(prim.alias(s.fn).family, False)
            for i, operand, _ in wanted:
                t = self.names.temp()
                out.append(Op(t, runtime.jvp_via_vjp,
                              (Const(_rule_row(prim.vjp, i, xp, self.compile_python)), Const(i),
                               Const(prim.broadcast),
                               self.tangent(operand), ans) + tuple(s.args), s.kwargs,
                              s.loc))
                terms.append(t)
        elif prim.multilinear:  # linear in each input: one term per input, a @ b_dot
            for i, operand, k in wanted:
                terms.append(self._apply_to_tangents(
                    s, {(i if k is None else None, k): operand}, out))
        elif wanted:  # linear in its inputs together: the primitive of their tangents
            tangents = {(i if k is None else None, k): operand for i, operand, k in wanted}
            for i in prim.linear:
                if i < len(s.args) and (i, None) not in tangents:
                    tangents[(i, None)] = None   # no tangent: a zero of its shape
            for k, v in s.kwargs:
                if k in _linear_names(s, prim) and (None, k) not in tangents:
                    tangents[(None, k)] = None
            terms.append(self._apply_to_tangents(s, tangents, out))
        return terms

    def _wanted(self, s, prim, rule, positions):
        """The inputs of ``s`` with a tangent: (output index of the rule, operand,
        keyword or None); ``rule`` None for a primitive linear in its inputs."""
        varied = [i for i, a in enumerate(s.args) if self.tangent(a) is not None]
        wanted = [(i, s.args[i], None) for i in positions if i in varied]
        for k, v in s.kwargs:
            if self.tangent(v) is None:
                continue
            if rule is None:   # linear: in the keywords it is linear in, not the others
                params = prim.vjp.load().params if prim.vjp is not None else []
                if k in _linear_names(s, prim):
                    wanted.append((None, v, k))
                    continue
            else:
                params = rule.load().params
            if k not in params or (rule is not None and not rule.differentiable(
                    params.index(k))) or rule is None:
                if k in params:
                    continue   # a keyword the rule gives no derivative
                raise errors.NoRule(
                    f"{_name(s.fn)} has no forward rule for its keyword argument {k!r}",
                    loc=s.loc, hint="pass the value positionally")
            wanted.append((params.index(k) if k in params else None, v, k))
        return wanted

    def _rule_terms(self, s, ans, prim, rule, wanted, out):
        """A rule's term per input, the rule's template with ``g`` bound to the input's
        tangent (an elementwise reverse rule, or a forward rule in its form)."""
        rule.load()
        tpl = templates.for_call(rule, s, self.kinds)
        shaped = _reads_g_shape(tpl)
        terms, tangents, made = [], {}, []
        for i, operand, _ in wanted:
            env = templates.bind(rule, s, ans)
            if not isinstance(operand, str):
                env["g"] = self._tangent_for_rule(s, operand, ans, prim, shaped, out)
            else:
                if operand not in tangents:
                    tangents[operand] = self._tangent_for_rule(s, operand, ans, prim,
                                                               shaped, out)
                env["g"] = tangents[operand]
            ops, outs = templates.instantiate(tpl, env, [i], self.names, s.loc)
            ops, outs = optimize.fold(ops, outs, self.names)
            same = _computed_as(ops, outs, made)
            if same is not None:      # x * x: both inputs' terms are x_dot * x
                terms.append(same)
                continue
            out.extend(ops)
            terms.append(outs[0])
        return terms

    def _apply_to_tangents(self, s, tangents, out):
        """``s``'s primitive with the operands at ``tangents`` ((position, keyword) to
        operand) replaced by their tangents, or by zeros of their shape."""
        args, kwargs = list(s.args), list(s.kwargs)
        for (i, k), operand in tangents.items():
            if k is None:
                t = self.tangent(args[i])
                if t is None and isinstance(args[i], Const) and args[i].value is None:
                    continue   # an optional input left out (np.diff's prepend=None)
                args[i] = t if t is not None else self.zero(args[i], out)
            else:
                kwargs = [(n, v if n != k else self.tangent(v) if self.tangent(v) is not None
                           else self.zero(v, out)) for n, v in kwargs]
        t = self.names.temp()
        out.append(Op(t, s.fn, tuple(args), tuple(kwargs), s.loc))
        return t

    def _tangent_for_rule(self, s, a, ans, prim, shaped, out):
        """The tangent of input ``a``, broadcast to the output's shape where an
        elementwise rule with broadcasting needs an adjoint of the output's shape: when
        a helper of the rule reads its shape, or when the input has fewer axes."""
        t = self.tangent(a)
        if prim.broadcast and self.kinds.get(ans) == kinds.ARRAY and (shaped or not (
                isinstance(a, str) and self.kinds.get(a) == kinds.ARRAY
                and self.ndims.get(a) is not None
                and self.ndims.get(a) == self.ndims.get(ans))):
            b = self.names.temp()
            out.append(Op(b, runtime.broadcast_like, (t, ans), loc=s.loc))
            return b
        return t


def _computed_as(ops, outs, made):
    """The result of an earlier term in ``made`` computed by the same pure operations
    on the same operands as ``ops`` (up to their own temporaries' names), so of the
    same value; else None, and ``ops`` joins ``made``. Only operands that are names
    or plain constants are compared (no array constants)."""
    shape = _shape_of(ops, outs)
    if shape is None:
        return None
    for seen, result in made:
        if seen == shape:
            return result
    made.append((shape, outs[0]))
    return None


_PLAIN = (int, float, bool, str, type(None))


def _shape_of(ops, outs):
    """``ops`` with their temporaries numbered in order, or None where one is not a
    pure operation of names and plain constants."""
    local = {}

    def operand(a):
        if isinstance(a, str):
            return ("t", local[a]) if a in local else ("n", a)
        if isinstance(a, Const) and type(a.value) in _PLAIN:
            return ("c", type(a.value), repr(a.value))    # -0.0 is not 0.0
        raise _NotPlain
    try:
        out = []
        for o in ops:
            if not isinstance(o, Op) or o.target is None or \
                    not primitives.fact(o.fn, "pure"):
                return None
            out.append((o.fn, tuple(map(operand, o.args)),
                        tuple((k, operand(v)) for k, v in o.kwargs)))
            local[o.target] = len(local)
        out.append(operand(outs[0]))
    except _NotPlain:
        return None
    return out


class _NotPlain(Exception):
    pass


_ROWS = {}


def _rule_row(rule, i, xp, compile_program):
    """A function computing output ``i`` of reverse rule ``rule`` alone (its other
    outputs may refuse, or need what this call has not got: np.gradient's spacing),
    called as the rule is; compiled once from the rule's template by
    ``compile_program`` (the Python back end's, handed down: passes import no back
    end)."""
    key = (id(rule.fn), i, id(xp))
    hit = _ROWS.get(key)
    if hit is not None and hit[0] is rule.fn:
        return hit[1]
    tpl = templates.template(rule, xp)
    names = Names()
    ops, outs = templates.instantiate(tpl, {p: p for p in tpl.params}, [i], names, None)
    fname = f"{rule.fn.__name__}_row{i}"
    fn, _ = compile_program(ir.Program(fname, list(tpl.params), ops, outs, names=names))
    sig = inspect.signature(rule.fn)

    def row(g, ans, *args, **kwargs):
        bound = sig.bind(g, ans, *args, **kwargs)
        bound.apply_defaults()
        return fn(*bound.args)[0]
    row.__name__ = row.__qualname__ = fname
    _ROWS[key] = (rule.fn, row)
    return row


def _linear_names(s, prim):
    """Keyword arguments of a call to a linear primitive that it is linear in."""
    rule = prim.vjp.load() if prim.vjp is not None else None
    if rule is None:
        return ()
    return [rule.params[i] for i in prim.linear + prim.multilinear if i < len(rule.params)]


def _reads_g_shape(tpl):
    """Whether a rule calls a runtime helper (which may read its adjoint's shape), not
    only operators and NumPy's functions."""
    for part in [tpl.body] + [o[0] for o in tpl.outputs if o is not None]:
        for s in ir.walk(part):
            if isinstance(s, Op) and runtime.is_helper(s.fn):
                return True
    return False


def _refuse(s):
    """Refuse ``s``, whose primitive has no forward rule: E104 for a run-time helper
    of a derivative (reverse mode can go through it), E202 otherwise."""
    if runtime.is_helper(s.fn):
        raise errors.HigherOrderNotSupported(
            "forward mode over this derivative goes through "
            f"{runtime.described(s.fn)}, which has no forward rule yet", loc=s.loc,
            hint="differentiate it again in reverse mode (revsrc.grad of it)")
    raise errors.NoRule(
        f"{_name(s.fn)} has no forward-mode rule", loc=s.loc,
        hint="use reverse mode (revsrc.grad), or give it a rule of its own")


def _name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def transform(an, *, name, compile_python):
    """The forward-mode ``ir.Program``, called ``name``, of an analyzed function (an
    `analysis.Analyzed`): parameters are the primals then the tangents of ``an.wrt``;
    outputs are the result, its tangent and (with ``aux``) the auxiliary value.
    ``compile_python(program)`` gives ``(function, source)`` of a program's Python:
    a rule applied one output at a time runs as one (`_rule_row`)."""
    names, params, body, result, aux = an.names, an.params, an.body, an.result, an.aux
    wrt, kinds_ = an.wrt, an.kinds
    fw = _Forward(names, kinds_, an.ndims, an.active, compile_python)
    fw.written = _written(body, kinds_)
    tangents = [names.dot(p) for p in wrt]
    # a parameter without a tangent that a loop makes active (x = f(x, w) with only w
    # differentiated) is read with one from the loop's first iteration on: zero
    head = []
    for p in params:
        if p in an.active and p not in wrt:
            head.append(Op(names.dot(p), ir.copy, (fw.zero(p, head),)))
    out = head + fw.block(body)
    tail = []
    t = fw.tangent(result)
    if t is None:
        t = fw.zero(result, tail)
    outputs = [result, t] + ([aux] if aux is not None else [])
    return ir.Program(name, list(params) + tangents, out + tail, outputs, kinds_,
                      forward_len=len(out) + len(tail), names=names)
