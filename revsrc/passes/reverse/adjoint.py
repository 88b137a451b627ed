"""The reverse-mode transformation: a forward sweep that saves, an adjoint sweep that pops.

Nothing is recorded per operation. The forward sweep saves only what the adjoint
will read and the program overwrites (``Push`` before the assignment), plus each
branch decision and each loop's trip count. The adjoint sweep walks the program
backwards, mirrors its control flow from those saved decisions, inlines the
rule of every active operation, and restores overwritten values (``Pop``) so
each rule sees exactly the values its operation saw.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .. import analysis, optimize, templates
from ... import errors, primitives, runtime
from ...runtime import containers, guards
from ...core import ir, kinds
from ..analysis import SCALARS
from ...core.ir import Break, Comment, Const, For, If, Op, Pop, Push, SetItem, While


@dataclass
class _Restore:
    """Placeholder: restore ``var`` as it was before definition ``site``."""
    var: str
    site: int


@dataclass
class _Decision:
    """Placeholder for a branch decision or trip count popped in the adjoint."""
    target: str
    site: int


@dataclass
class _ReverseFor:
    """Placeholder for the adjoint of a ``for`` loop: ``body`` runs ``trips`` times,
    counting down with ``index``; resolved once the forward sweep knows what it saved."""
    loop: For
    site: int
    trips: str
    index: str
    body: list


@dataclass
class _RestoreItem:
    """Placeholder: undo the item assignment ``assign`` (if its old value was saved)."""
    assign: SetItem
    site: int


# Saved values go on a float stack, an int stack (ints and bools) or an object stack.
_STACK_OF = {kinds.FLOAT: "f", kinds.INT: "i", kinds.BOOL: "i"}
STACK_KIND = {"f": kinds.FLOAT, "i": kinds.INT, "o": kinds.ANY}


class Reverser:
    def __init__(self, names, kinds, ndims, active, params):
        self.names = names
        self.kinds = kinds
        self.ndims = ndims
        self.active = active
        self.params = set(params)
        self.bar_names = {}
        self.bar_of = {}           # bar -> the variable it is the adjoint of
        self.primal_reads = set()
        self.read_sites = {}       # v -> sites whose adjoints read its primal value
        self.cur_site = None       # the site whose adjoint is being written
        self.loops_of = {}         # site -> the sites of the loops around it
        self._loops = ()
        self.def_count = {}
        self.in_loop_defs = set()  # site ids defined inside a loop
        self.site_of = {}          # id(stmt) -> site
        self.site_var = {}
        self.site_stmt = {}
        self.nsites = 0
        self.forward_vars = set(params)
        self.rev_nonempty = {}     # site -> reverse of a control statement is non-empty
        self.needs_var = {}        # For site -> loop variable needed in reverse
        self.static_trips = {}     # For site -> Const trip count known at transformation
        self.recompute = {}        # temp -> its defining Op, recomputed in the adjoint
        self.companions = {}       # id(sin/cos Op) -> (other fn, argument, companion var)
        self.array_items = set()   # numbers read from arrays (see _find_array_items)

    # ----- bookkeeping over the forward program -------------------------
    def _index(self, stmts, depth):
        for s in stmts:
            site = self.nsites
            self.nsites += 1
            self.site_of[id(s)] = site
            self.site_stmt[site] = s
            self.loops_of[site] = self._loops
            for v in ir.writes(s):
                self.def_count[v] = self.def_count.get(v, 0) + 1
                self.forward_vars.add(v)
                self.site_var[site] = v
                if depth > 0:
                    self.in_loop_defs.add(site)
            if isinstance(s, If):
                self._index(s.body, depth)
                self._index(s.orelse, depth)
            elif isinstance(s, (For, While)):
                outer, self._loops = self._loops, self._loops + (site,)
                if isinstance(s, While):
                    self._index(s.test_body, depth + 1)
                self._index(s.body, depth + 1)
                self._loops = outer

    def bar(self, v):
        name = self.bar_names.get(v)
        if name is None:
            name = self.names.bar(v)
            self.bar_names[v] = name
            self.bar_of[name] = v
        return name

    def _stack(self, v):
        if v in self.array_items:
            return "o"
        return _STACK_OF.get(self.kinds.get(v), "o")

    def _find_array_items(self, body):
        """Numbers read out of arrays, and numbers computed from them: their kind says
        float, but the array's dtype is not known here (``idx[t]`` of an integer array
        is an index), so they are saved as they are, never as doubles."""
        found = set()
        int_preserving = primitives.table("int_preserving")   # ints for int operands
        stmts = [s for s in ir.walk(body) if isinstance(s, Op) and s.target is not None
                 and self.kinds.get(s.target) == kinds.FLOAT]
        changed = True
        while changed:
            changed = False
            for s in stmts:
                if s.target in found:
                    continue
                args = [a for a in s.args if isinstance(a, str)]
                if (s.fn in (operator.getitem, runtime.take) and args
                        and args[0] == s.args[0] and self.kinds.get(args[0]) == kinds.ARRAY) \
                        or (s.fn in int_preserving and any(a in found for a in args)):
                    found.add(s.target)
                    changed = True
        self.array_items = found

    def overwrites(self, site, v):
        return v in self.params or self.def_count.get(v, 0) > 1 or site in self.in_loop_defs

    def _read(self, v):
        """The adjoint being written reads the primal value of ``v``."""
        self.primal_reads.add(v)
        self.read_sites.setdefault(v, set()).add(self.cur_site)

    def _saves(self, site, v):
        """Whether the definition of ``v`` at ``site`` must save the value it replaces:
        an adjoint that runs after it is undone reads ``v`` (one of a statement before
        it, or of any statement of a loop around it: an earlier iteration's)."""
        if not (v in self.primal_reads and self.overwrites(site, v)):
            return False
        loops = set(self.loops_of.get(site, ()))
        for r in self.read_sites.get(v, ()):
            if r is None or r <= site or loops & set(self.loops_of.get(r, ())):
                return True
        return False

    # ----- adjoint sweep --------------------------------------------------
    # The adjoint sweep knows which adjoints are zero (``self.zero``: never written
    # since they last became zero), so it writes no code for them; a zero is written
    # at run time only where control flow joins a path on which it is zero with one
    # on which it is not.

    def _rev_loop_body(self, stmts, out):
        """Reverse a loop body; adjoints zero on entry to every iteration stay known
        zero inside it (the largest such set, found before any code is written)."""
        entry = set(self.zero)
        cand = self._zero_fixpoint(stmts, entry)
        self.zero = set(cand)
        body = []
        self._rev_block(stmts, body)
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
            self._read(v)
            return Op(b, runtime.zeros_like, (v,))
        if self.kinds.get(v) in ("list", "tuple", "dict"):
            # one zero per item: the adjoint sweep reads items of it (xs_bar[0])
            self._read(v)
            return Op(b, runtime.zero_items, (v,))
        return Op(b, ir.copy, (Const(0.0),))

    # Which adjoints each statement makes nonzero or zero, without writing code: the
    # loop fixpoint is found this way, then the body is reversed once.

    def _targets(self, s):
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
            targets = [a for _, a in self._targets(s)]
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
        tokens = self.__dict__.setdefault("errstate_tokens", {})
        if s.fn is guards.errstate_exit:
            token = self.names.fresh("_errstate")
            tokens[s.args[0]] = token
            out.append(Op(token, guards.errstate_enter, (), s.kwargs, loc=s.loc))
        elif s.target in tokens:
            out.append(Op(None, guards.errstate_exit, (tokens.pop(s.target),), loc=s.loc))

    def _rev_block(self, stmts, out):
        for s in reversed(stmts):
            self._rev_stmt(s, out)

    def _rev_stmt(self, s, out):
        site = self.site_of[id(s)]
        outer, self.cur_site = self.cur_site, site
        try:
            self._rev_stmt_at(s, site, out)
        finally:
            self.cur_site = outer

    def _rev_stmt_at(self, s, site, out):
        if isinstance(s, Op) and s.fn in (guards.errstate_enter, guards.errstate_exit):
            self._mirror_errstate(s, out)
        if isinstance(s, Op):
            if s.target is not None and s.target in self.active:
                self._adjoint_op(s, site, out)
            elif s.target is not None:
                out.append(_Restore(s.target, site))
        elif isinstance(s, SetItem):
            self._adjoint_setitem(s, site, out)
        elif isinstance(s, If):
            before = set(self.zero)
            body, orelse = [], []
            self._rev_block(s.body, body)
            z1 = self.zero
            self.zero = set(before)
            self._rev_block(s.orelse, orelse)
            z2 = self.zero
            join = z1 & z2
            for b in sorted(z1 - join):
                body.append(self._zero_value(b))
            for b in sorted(z2 - join):
                orelse.append(self._zero_value(b))
            self.zero = join
            flag = self.names.fresh("_b")
            out.append(_Decision(flag, site))
            out.append(If(flag, body, orelse, loc=s.loc))
        elif isinstance(s, For):
            if all(isinstance(b, Const) and type(b.value) is int
                   for b in (s.start, s.stop, s.step)) and s.step.value != 0 \
                    and not _breaks(s.body):
                trips = len(range(s.start.value, s.stop.value, s.step.value))
                self.static_trips[site] = Const(trips)
            body = self._rev_loop_body(s.body, out)
            n = self.names.fresh("_n")
            k = self.names.fresh("_k")
            out.append(_Decision(n, site))
            out.append(_ReverseFor(s, site, n, k, body))
            out.append(_Restore(s.var, site))
        elif isinstance(s, While):
            body = self._rev_loop_body(s.body, out)
            n = self.names.fresh("_n")
            k = self.names.fresh("_k")
            out.append(_Decision(n, site))
            out.append(For(k, Const(0), n, Const(1), body, loc=s.loc))
        elif isinstance(s, Pop):
            self._adjoint_pop(s, site, out)
        elif isinstance(s, Push):
            self._adjoint_push(s, out)
        elif isinstance(s, (Break, Comment)):
            pass
        else:  # pragma: no cover
            raise AssertionError(s)

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
                    self._read(t)
            else:
                value = tb
            out.append(Push(value, _adjoint_stack(s.stack)))
            if tb is not None:
                self.zero.add(tb)
        out.append(_Restore(t, site))

    def _adjoint_push(self, s, out):
        if not self._stack_active(s.stack):
            return
        c = self.names.temp()
        out.append(Pop(c, _adjoint_stack(s.stack)))
        if isinstance(s.value, str) and s.value in self.active:
            self._accumulate(s.value, c, out)

    def _adjoint_op(self, s, site, out):
        z = s.target
        zb = self.bar(z)
        if zb in self.zero:
            out.append(_Restore(z, site))
            return
        out.append(Comment(_comment(s.loc, self.main), loc=s.loc))
        contribs = self._contributions(s, zb, out)
        args = [a for a, _ in contribs]
        in_args = z in args
        # other bars first: contributions may alias z's bar
        for a, c in contribs:
            if a != z:
                self._accumulate(a, c, out)
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
            out.append(_Restore(z, site))

    def _accumulate(self, a, c, out):
        ab = self.bar(a)
        if ab in self.zero:
            out.append(Op(ab, ir.copy, (c,)))
            self.zero.discard(ab)
        else:
            out.append(Op(ab, operator.add, (ab, c)))

    def _contributions(self, s, zb, out):
        """Inline the rule of ``s``: ops go to ``out``; returns [(arg var, operand)]."""
        z = s.target
        fn = s.fn
        active_pos = [i for i, a in enumerate(s.args) if isinstance(a, str) and a in self.active]
        ops = []
        result = []
        in_args = z in [a for a in s.args if isinstance(a, str)]
        ans = z
        if fn in (ir.make_tuple, ir.make_list):
            for i in active_pos:
                t = self.names.temp()
                ops.append(Op(t, operator.getitem, (zb, Const(i))))
                result.append((s.args[i], t))
            out.extend(ops)
            return result
        if fn is ir.make_dict:   # the adjoint of each value is the adjoint's at its key
            for i in active_pos:
                if i % 2 == 1:
                    t = self.names.temp()
                    key = s.args[i - 1]
                    ops.append(Op(t, containers.item_grad, (zb, key)))
                    if isinstance(key, str) and key in self.forward_vars:
                        self._read(key)   # a key computed in the function
                    result.append((s.args[i], t))
            out.extend(ops)
            return result
        prim = primitives.lookup(fn)
        if prim is None or prim.vjp is None:
            return []
        rule = prim.vjp.load()
        alias = prim.alias(fn)
        if in_args:
            # the target overwrote one of its inputs: keep the output, then restore
            # the input so the rule sees both values
            if rule.reads("ans"):
                ans = self.names.fresh("_ans")
                out.append(Op(ans, ir.copy, (z,)))
                self._read(z)
            out.append(_Restore(z, self.site_of[id(s)]))
        env = {"g": zb, "ans": ans}
        for name, value in zip(rule.params, s.args):
            env[name] = value
        for name, value in s.kwargs:
            if name not in rule.params:
                raise errors.NoRule(f"keyword {name!r} of {getattr(fn, '__name__', fn)} "
                                    "is not supported by its rule", loc=s.loc)
            env[name] = value
        if len(s.args) > len(rule.params):
            raise errors.NoRule(f"{getattr(fn, '__name__', fn)} called with more "
                                "arguments than its rule knows", loc=s.loc)
        for name in rule.params:
            if name not in env:
                if name in rule.defaults:
                    env[name] = Const(rule.defaults[name])
                else:
                    env[name] = Const(None)
        wanted = self._targets(s)
        if not wanted:
            return []
        facts = self._fused(prim, s, env)
        result = []
        if facts:
            # a fused input's contribution is one kernel call; the others come from the rule
            for i, a in wanted:
                fused = facts.get(i)
                if fused is None:
                    continue
                t = self.names.temp()
                out.append(Op(t, fused.kernel, tuple(env[n] for n in fused.names)))
                for n in fused.names:
                    if isinstance(env[n], str) and env[n] in self.forward_vars:
                        self._read(env[n])
                others = [b for j, b in enumerate(s.args) if j != i and isinstance(b, str)
                          and self.kinds.get(b) not in SCALARS]
                if prim.broadcast and others:
                    # another array operand may have broadcast this one
                    c = self.names.temp()
                    out.append(Op(c, runtime.unbroadcast, (t, a)))
                    if isinstance(a, str) and a in self.forward_vars:
                        self._read(a)
                    t = c
                result.append((a, t))
            wanted = [(i, a) for i, a in wanted if i not in facts]
            if not wanted:
                return result
        scalar = all(self.kinds.get(a) in SCALARS if isinstance(a, str)
                     else not isinstance(a.value, np.ndarray) for a in s.args)
        xp = primitives.namespace(alias.family, scalar)
        body_ops, outs = templates.instantiate(templates.template(rule, xp), env,
                                               [i for i, _ in wanted], self.names, s.loc)
        body_ops, outs = optimize.fold(body_ops, outs, self.names)
        comp = self.companions.get(id(s))
        if comp is not None:
            other, x, name = comp
            body_ops = [Op(o.target, ir.copy, (name,), (), o.loc)
                        if o.fn is other and o.args == (x,) else o for o in body_ops]
        # cheap temporaries are recomputed here rather than saved and restored
        redo = []
        for op in body_ops:
            for a in list(op.args) + [v for _, v in op.kwargs]:
                if isinstance(a, str) and a in self.recompute and a not in redo:
                    redo.append(a)
        for t in redo:
            d = self.recompute[t]
            out.append(Op(t, d.fn, d.args, d.kwargs))
            for a in d.args:
                if isinstance(a, str):
                    self._read(a)
        out.extend(body_ops)
        summed = {}
        for (i, arg), c in zip(wanted, outs):
            if prim.broadcast and self.kinds.get(z) not in SCALARS:
                if not (self.kinds.get(arg) in SCALARS and self.kinds.get(z) in SCALARS):
                    if (c, arg) not in summed:
                        t = self.names.temp()
                        out.append(Op(t, runtime.unbroadcast, (c, arg)))
                        summed[(c, arg)] = t
                        if isinstance(arg, str) and arg in self.forward_vars:
                            self._read(arg)  # its shape, as it was then
                    c = summed[(c, arg)]
            result.append((arg, c))
        for op in body_ops:
            for a in list(op.args) + [v for _, v in op.kwargs]:
                if isinstance(a, str) and a in self.forward_vars and a not in self.recompute:
                    self._read(a)
        for _, c in result:
            if isinstance(c, str) and c in self.forward_vars and c not in self.recompute:
                self._read(c)
        return result

    def _find_recomputable(self, stmts, uses):
        """Temporaries made by one cheap operation from inputs that do not change
        before their last use in the same block: recomputing one costs less than
        saving and restoring it (they matter inside loops)."""
        cheap = primitives.table("cheap")
        for i, s in enumerate(stmts):
            if isinstance(s, If):
                self._find_recomputable(s.body, uses)
                self._find_recomputable(s.orelse, uses)
            elif isinstance(s, (For, While)):
                self._find_recomputable(s.body, uses)
            if not (isinstance(s, Op) and s.fn in cheap and s.target is not None
                    and self.names.is_temp(s.target) and self.def_count.get(s.target) == 1
                    and not s.kwargs and s.target not in s.args
                    and self.site_of[id(s)] in self.in_loop_defs
                    and self.kinds.get(s.target) in SCALARS):
                continue
            t = s.target
            users = [j for j in range(i + 1, len(stmts))
                     if isinstance(stmts[j], Op) and t in ir.reads(stmts[j])]
            if not users or sum(ir.reads(stmts[j]).count(t) for j in users) != uses.get(t, 0):
                continue
            last = users[-1]
            inputs = {a for a in s.args if isinstance(a, str)}
            # from the user's variables only: a temporary input would need saving itself
            safe = not any(self.names.is_generated(a) for a in inputs)
            for j in range(i + 1, last + 1):
                for w in ir.walk([stmts[j]]):
                    written = set(ir.writes(w)) & inputs
                    if written and not (j in users and w is stmts[j]
                                        and written <= set(stmts[j].args)):
                        safe = False
            if safe:
                self.recompute[t] = s

    def _fused(self, prim, s, env):
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
            arrays = [v for v in named if isinstance(v, str) and self.kinds.get(v) == "array"]
            numbers = [v for v in named if isinstance(v, Const) and type(v.value) in (float, int)]
            if arrays and len(arrays) + len(numbers) == len(named) and \
                    (f.when is None or f.when(s)):
                out[f.input] = f
        return out

    def _adjoint_setitem(self, s, site, out):
        tgt = s.target
        # the index (and the value's shape) as they were: the restore below reads them
        for operand in (s.index, s.value):
            if isinstance(operand, str) and operand in self.forward_vars:
                self._read(operand)
        if tgt in self.active:
            tb = self.bar(tgt)
            if tb not in self.zero:
                out.append(Comment(_comment(s.loc, self.main), loc=s.loc))
                if isinstance(s.value, str) and s.value in self.active:
                    c = self.names.temp()
                    out.append(Op(c, runtime.take_grad, (tb, s.index)))
                    u = self.names.temp()
                    out.append(Op(u, runtime.unbroadcast, (c, s.value)))
                    self._accumulate(s.value, u, out)
                out.append(Op(tb, runtime.zero_at, (tb, s.index)))
        out.append(_RestoreItem(s, site))

    # ----- forward sweep --------------------------------------------------
    def _needed(self, v):
        return v in self.primal_reads

    def _forward(self, stmts):
        out = []
        for s in stmts:
            site = self.site_of[id(s)]
            if isinstance(s, (Op, Pop)):
                v = s.target
                if v is not None and self._saves(site, v):
                    out.append(Push(v, self._stack(v)))
                    self.pushed.add(site)
                out.append(s)
            elif isinstance(s, SetItem):
                if s.target in self.active or self._needed(s.target):
                    old = self.names.fresh("_old")
                    out.append(Op(old, runtime.copy_item, (s.target, s.index), loc=s.loc))
                    out.append(Push(old, "o"))
                    self.pushed.add(site)
                out.append(s)
            elif isinstance(s, If):
                body = self._forward(s.body)
                orelse = self._forward(s.orelse)
                if self.rev_nonempty.get(site):
                    # pushed at the end of each branch, so the adjoint pops it first
                    body = body + [Push(Const(1), "i")]
                    orelse = orelse + [Push(Const(0), "i")]
                out.append(If(s.test, body, orelse, loc=s.loc))
            elif isinstance(s, For):
                v = s.var
                if self._needed(v) and (self.def_count.get(v, 0) > 1 or v in self.params
                                        or site in self.in_loop_defs):
                    out.append(Push(v, self._stack(v)))
                    self.pushed.add(site)
                body = self._forward(s.body)
                if self.rev_nonempty.get(site) and site in self.static_trips:
                    if self._needed(v):
                        self.needs_var[site] = (s.start, s.step)
                    out.append(For(v, s.start, s.stop, s.step, body, loc=s.loc))
                elif self.rev_nonempty.get(site):
                    n = self.names.fresh("_n")
                    self.kinds[n] = "int"
                    saved = []
                    if self._needed(v):
                        for bound in (s.start, s.step):
                            if isinstance(bound, str):
                                t = self.names.fresh("_r")
                                self.kinds[t] = "int"
                                out.append(Op(t, ir.copy, (bound,), loc=s.loc))
                                saved.append(t)
                        self.needs_var[site] = (s.start, s.step)
                    if _breaks(s.body) or s.step != Const(1):
                        out.append(Op(n, ir.copy, (Const(0),), loc=s.loc))
                        body = [Op(n, operator.add, (n, Const(1)))] + body
                    else:
                        # no break and a unit step: the trip count is known on entry
                        span = s.stop
                        if s.start != Const(0):
                            span = self.names.temp()
                            self.kinds[span] = "int"
                            out.append(Op(span, operator.sub, (s.stop, s.start), loc=s.loc))
                        out.append(Op(n, max, (span, Const(0)), loc=s.loc))
                    out.append(For(v, s.start, s.stop, s.step, body, loc=s.loc))
                    # saved after the loop, so the adjoint pops them before its body
                    for t in saved:
                        out.append(Push(t, "i"))
                    out.append(Push(n, "i"))
                else:
                    out.append(For(v, s.start, s.stop, s.step, body, loc=s.loc))
            elif isinstance(s, While):
                for t in ir.walk(s.test_body):
                    for w in ir.writes(t):
                        if self._needed(w):
                            raise errors.UnsupportedControlFlow(
                                "a while condition computes a value the derivative needs",
                                loc=s.loc, hint="compute it inside the loop body")
                body = self._forward(s.body)
                if self.rev_nonempty.get(site):
                    n = self.names.fresh("_n")
                    out.append(Op(n, ir.copy, (Const(0),), loc=s.loc))
                    body = [Op(n, operator.add, (n, Const(1)))] + body
                    out.append(While(s.test_body, s.test, body, loc=s.loc))
                    out.append(Push(n, "i"))
                else:
                    out.append(While(s.test_body, s.test, body, loc=s.loc))
            else:
                out.append(s)
        return out

    def _initial_values(self):
        """Variables saved before they are first assigned start defined (as zeros)."""
        init, seen = [], set()
        for site in sorted(self.pushed):
            v = self.site_var.get(site)
            if v is None or v in self.params or v in seen \
                    or isinstance(self.site_stmt[site], SetItem):
                continue
            seen.add(v)
            stack = self._stack(v)
            zero = Const(0.0) if stack == "f" else (Const(0) if stack == "i" else Const(None))
            init.append(Op(v, ir.copy, (zero,)))
        if init:
            init.insert(0, Comment("saved before their first assignment, so start them "
                                   "defined"))
        return init

    # ----- resolve placeholders -------------------------------------------
    def _resolve(self, stmts):
        out = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, _Restore):
                if s.site in self.pushed and self.site_var.get(s.site) == s.var:
                    out.append(Pop(s.var, self._stack(s.var)))
            elif isinstance(s, _Decision):
                ctrl = stmts[i + 1]
                site = s.site
                if self.rev_nonempty.get(site) and site in self.static_trips:
                    out.extend(self._rev_for(ctrl, self.static_trips[site]))
                elif self.rev_nonempty.get(site):
                    out.append(Pop(s.target, "i"))
                    if isinstance(ctrl, If):
                        out.append(If(s.target, self._resolve(ctrl.body),
                                      self._resolve(ctrl.orelse), loc=ctrl.loc))
                    elif isinstance(ctrl, For):
                        out.append(For(ctrl.var, ctrl.start, s.target, ctrl.step,
                                       self._resolve(ctrl.body), loc=ctrl.loc))
                    else:
                        out.extend(self._rev_for(ctrl, s.target))
                i += 2
                continue
            elif isinstance(s, _RestoreItem):
                if s.site in self.pushed:
                    st = s.assign
                    old = self.names.fresh("_old")
                    out.append(Pop(old, "o"))
                    out.append(SetItem(st.target, st.index, old, loc=st.loc))
            else:
                out.append(s)
            i += 1
        return out

    def _rev_for(self, ctrl, n):
        s, site, k = ctrl.loop, ctrl.site, ctrl.index
        body = self._resolve(ctrl.body)
        if site in self.needs_var:
            pre = []
            saved = []
            for bound in reversed(self.needs_var[site]):
                if isinstance(bound, str):
                    t = self.names.fresh("_r")
                    self.kinds[t] = "int"
                    pre.append(Pop(t, "i"))
                    bound = t
                saved.append(bound)
            step, start = saved
            if isinstance(n, Const):
                last = Const(n.value - 1)
            else:
                last = self.names.fresh("_m")
                self.kinds[last] = "int"
                pre.append(Op(last, operator.sub, (n, Const(1))))
            # the loop variable, counting down: start + k * step
            if step == Const(1):
                off, inner = k, []
            else:
                off = self.names.temp()
                inner = [Op(off, operator.mul, (k, step))]
            if start == Const(0):
                inner.append(Op(s.var, ir.copy, (off,)))
            else:
                inner.append(Op(s.var, operator.add, (start, off)))
            inner += body
            return pre + [For(k, last, Const(-1), Const(-1), inner, loc=s.loc)]
        return [For(k, Const(0), n, Const(1), body, loc=s.loc)]


def _comment(loc, main=""):
    if loc is None:
        return "adjoint"
    where = f"line {loc.lineno}"
    if loc.func and loc.func != main:
        where += f" ({loc.func})"
    return f"adjoint of {where}: {loc.line}"


def transform(an, *, name, seed=None):
    """The adjoint ``ir.Program``, called ``name``, of an analyzed function (an
    `analysis.Analyzed`, whose namer names the adjoint's variables too). The adjoint
    sweep starts from 1.0 (a gradient of a scalar output) or, with ``seed``, from an
    extra parameter of that name (a vector-Jacobian product: the output's cotangent,
    of any shape)."""
    names, params, body, result, aux = an.names, an.params, an.body, an.result, an.aux
    wrt, kinds, ndims, active = an.wrt, an.kinds, an.ndims, an.active
    companions = {}
    body = shift_stacks(body)
    active = {shift_stack_var(v) for v in active}
    body = _add_companions(body, names, kinds, active, 0, companions)
    rv = Reverser(names, kinds, ndims, active, params)
    rv.companions = companions
    rv.main = name.rsplit("_", 1)[0]
    rv._index(body, 0)
    rv._find_array_items(body)
    rv._find_recomputable(body, optimize.use_counts(body))
    rv.zero = set()
    rbody = []
    if isinstance(result, str) and result in active:
        rb = rv.bar(result)
        rv.zero = set(rv.bar(v) for v in active) - {rb}
        rbody.append(Op(rb, ir.copy, (Const(1.0) if seed is None else seed,)))
        rv._rev_block(body, rbody)
    # decide which control statements have adjoint work
    _mark_sites(rv, rbody)
    rv.pushed = set()
    fwd = rv._forward(body)
    rev = rv._resolve(rbody)
    fwd = rv._initial_values() + fwd
    fwd = _fast_gathers(fwd, kinds)
    grads = []
    for p in wrt:
        b = rv.bar_names.get(p)
        grads.append(Const(0.0) if (b is None or b in rv.zero) else b)
    rev = optimize.cleanup(rev, fwd, {o for o in [result, aux] + grads if isinstance(o, str)},
                           names)
    if rev:
        rev = [Comment("reverse sweep")] + rev
    check = []
    if seed is None and kinds.get(result) not in ("float", "int", "bool"):
        where = None
        for st in ir.walk(body):
            if isinstance(st, Op) and st.target == result and st.loc is not None:
                where = st.loc
        check = [Op(None, runtime.check_scalar_output, (result, Const(where)))]
    restored = {rv.site_var.get(site) for site in rv.pushed}
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
    result_out, aux_out = keep
    outputs = [result_out] + grads + ([aux_out] if aux is not None else [])
    prog = ir.Program(name, list(params) + ([seed] if seed else []), fwd + check + rev,
                      outputs, kinds,
                      forward_len=len(fwd) + len(check), names=names)
    return prog


def _add_companions(stmts, names, kinds, active, depth, found):
    """In loops, compute a primitive's *companion* (its record's: cos(x) beside an
    active math.sin(x)) in the forward sweep, so the adjoint pops it instead of
    calling libm again: the engine makes the pair one sincos() call."""
    out = []
    for s in stmts:
        other = _companion(s.fn) if isinstance(s, Op) else None
        if other is not None and depth > 0 and s.target in active \
                and len(s.args) == 1 and isinstance(s.args[0], str) and not s.kwargs \
                and kinds.get(s.target) == "float" and kinds.get(s.args[0]) == "float":
            name = names.temp()
            kinds[name] = "float"
            out.append(Op(name, other, s.args, (), s.loc))
            found[id(s)] = (other, s.args[0], name)  # the statements live as long
        else:
            inner = depth + (1 if isinstance(s, (For, While)) else 0)
            # not a while's test body: its operations get no adjoint (a test that
            # computes a value the derivative needs is refused), so a companion
            # computed there would be computed for nothing
            s = ir.map_children(
                s, lambda b: _add_companions(b, names, kinds, active, inner, found),
                test_body=False)
        out.append(s)
    return out


def _adjoint_stack(stack):
    """Where the adjoints of the values on ``stack`` travel (same kind of stack)."""
    return stack + "b"


def _shifted(stack):
    """``stack`` one level up: "f" -> "f1", "f1" -> "f2", "o1b" -> "o2b"."""
    kind, rest = stack[0], stack[1:]
    digits = len(rest) - len(rest.lstrip("0123456789"))
    level = int(rest[:digits]) if digits else 0
    return f"{kind}{level + 1}{rest[digits:]}"


def shift_stacks(stmts):
    """``stmts`` with every stack of theirs one level up, leaving level 0 (the plain
    "f", "i", "o") to the transformation being applied to them."""
    out = []
    for s in stmts:
        if isinstance(s, Push):
            s = Push(s.value, _shifted(s.stack))
        elif isinstance(s, Pop):
            s = Pop(s.target, _shifted(s.stack))
        out.append(ir.map_children(s, shift_stacks))   # an inlined adjoint in a test too
    return out


def shift_stack_var(v):
    prefix = analysis.stack_var("")
    return analysis.stack_var(_shifted(v[len(prefix):])) if v.startswith(prefix) else v


def _companion(fn):
    prim = primitives.lookup(fn)
    return prim.alias(fn).companion if prim is not None else None


def _breaks(stmts):
    """Whether ``stmts`` can leave their loop through a ``break`` (not an inner loop's)."""
    for s in stmts:
        if isinstance(s, Break):
            return True
        if isinstance(s, If) and (_breaks(s.body) or _breaks(s.orelse)):
            return True
    return False


def _fast_gathers(stmts, kinds):
    """Forward ``x[index]`` on arrays with a computed index go through runtime.take."""
    out = []
    for s in stmts:
        if isinstance(s, Op) and s.fn is operator.getitem and kinds.get(s.args[0]) == "array" \
                and isinstance(s.args[1], str) and kinds.get(s.args[1]) == "tuple":
            s = Op(s.target, runtime.take, s.args, s.kwargs, s.loc)
        out.append(ir.map_children(s, lambda b: _fast_gathers(b, kinds)))
    return out


def _mark_sites(rv, rbody):
    """Record, per control statement site, whether its adjoint does anything."""
    def visit(stmts):
        nonempty = False
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, _Decision):
                ctrl = stmts[i + 1]
                if isinstance(ctrl, If):
                    a = visit(ctrl.body)
                    b = visit(ctrl.orelse)
                    ne = a or b
                elif isinstance(ctrl, For):
                    ne = visit(ctrl.body)
                else:
                    ne = visit(ctrl.body)
                rv.rev_nonempty[s.site] = ne
                nonempty = nonempty or ne
                i += 2
                continue
            if isinstance(s, Op):
                nonempty = True
            elif isinstance(s, _Restore):
                if rv._saves(s.site, s.var):
                    nonempty = True
            elif isinstance(s, (_RestoreItem, Push, Pop)):
                nonempty = True
            i += 1
        return nonempty
    visit(rbody)
