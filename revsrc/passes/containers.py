"""Lists and dicts built inside a differentiated function: which changes to them
are made new values, decided when transforming.

The transformations read each assignment as defining one variable, and save a value
the adjoint needs by keeping a reference to it. A list changed in place would change
every saved reference, so every change to a list or a dict is made a new value by the
operations of revsrc/runtime/containers.py (what runs):

    xs.append(v)      ->  xs = containers.append(xs, v)
    xs += ys          ->  xs = containers.extend(xs, ys)
    M[i] = v          ->  M = containers.set_item(M, i, v)
    xs + ys, xs * n   ->  containers.concat(xs, ys), containers.repeat(xs, n)
    d | e, d |= e     ->  containers.dict_merge(d, e), d = containers.dict_merge(d, e)

A list, once made, is never changed, so saving it costs one reference. This is right
only where nothing else holds the list that changes (Python would change that one
too): `rewrite_write` refuses a change to a list that another name, another list or
the caller also holds (E403, E404), and writes a change to an inner list
(``M[0][0] = v``) back into its outer list, which must have built it.
"""
from __future__ import annotations

import operator

from .. import errors, runtime
from . import analysis
from .view_links import view_link
from ..core import ir, kinds
from ..core.ir import Const, Op, SetItem
from ..runtime import inplace
from ..runtime.containers import (IN_PLACE, append, append_in_place, concat, dict_merge,
                                  extend, extend_in_place, key_at, merge_in_place, repeat,
                                  repeat_in_place, set_item, set_item_in_place)


# ----- Kind-directed rewriting -------------------------------------------------------------

_SEQ = (kinds.LIST, kinds.TUPLE)



def specialize(params, param_kinds, body, names=None):
    """``body`` with ``+``, ``+=``, ``*`` and item assignment on lists, tuples and dicts
    made the operations above. Kinds are followed statement by statement here (a name
    may hold a list, then the array made of it: ``xs = np.array(xs)``)."""
    sp = _Specializer()
    sp.names = names
    return sp.run(params, param_kinds, body)


class _Specializer:
    def run(self, params, param_kinds, body):
        env = dict(zip(params, param_kinds))
        self.ndims = {}
        self.items = set()    # variables holding an item of a list or a dict
        self.loop_vars = set()
        previous = None
        for _ in range(8):    # until the decisions stop changing
            self.decided = {}     # id(statement) -> its replacement
            self.block(body, dict(env))
            if previous is not None and previous.keys() == self.decided.keys():
                break
            previous = self.decided
        return self.apply(body)

    def kind(self, env, o):
        if isinstance(o, Const):
            return kinds.of_value(o.value)
        return env.get(o)

    def block(self, stmts, env):
        for s in stmts:
            if isinstance(s, Op):
                new = self.decide(s, env)
                if new is not s:
                    self.decided[id(s)] = new
                if new.target is not None:
                    if new.fn is operator.getitem and \
                            self.kind(env, new.args[0]) in (kinds.LIST, kinds.DICT):
                        self.items.add(new.target)
                    ctx = analysis._Context(env, self.ndims, {})
                    k, _ = analysis.op_kind(new, ctx)
                    env[new.target] = k if k is not None else kinds.ANY
            elif isinstance(s, SetItem):
                new = self.decide(s, env)
                if new is not s:
                    self.decided[id(s)] = new
            elif isinstance(s, ir.If):
                a, b = dict(env), dict(env)
                self.block(s.body, a)
                self.block(s.orelse, b)
                _join_into(env, a, b)
            elif isinstance(s, (ir.For, ir.While)):
                if isinstance(s, ir.For):
                    env[s.var] = kinds.INT
                    self.loop_vars.add(s.var)
                for _ in range(4):
                    start = dict(env)
                    inner = dict(env)
                    if isinstance(s, ir.While):
                        self.block(s.test_body, inner)
                    self.block(s.body, inner)
                    _join_into(env, start, inner)
                    if env == start:
                        break
            elif isinstance(s, ir.Block):
                self.block(s.body, env)

    def decide(self, s, env):
        self.decided.pop(id(s), None)   # a loop body is decided again with joined kinds
        if isinstance(s, SetItem):
            k = self.kind(env, s.target)
            # an item of a list whose kind is not followed: M[0][0] = v on a list of
            # lists (on a list of arrays, set_item refuses it when it runs)
            if k in (kinds.LIST, kinds.DICT) or (k == kinds.ANY and s.target in self.items):
                return Op(s.target, set_item_in_place, (s.target, s.index, s.value), loc=s.loc)
            return s
        if len(s.args) != 2 or s.kwargs:
            return s
        a, b = s.args
        ka, kb = self.kind(env, a), self.kind(env, b)
        if s.fn is operator.getitem and ka == kinds.DICT and isinstance(b, str) \
                and b in self.loop_vars and self.names is not None \
                and self.names.is_generated(b):
            # `for k in d`: the loop walks d's keys (the position is revsrc's own)
            return Op(s.target, key_at, (a, b), loc=s.loc)
        if s.fn is operator.add and (ka in _SEQ or kb in _SEQ):
            return Op(s.target, concat, s.args, loc=s.loc)
        if s.fn is operator.iadd and ka == kinds.LIST:
            return Op(s.target, extend_in_place, s.args, loc=s.loc)
        if s.fn is operator.imul and ka == kinds.LIST:
            return Op(s.target, repeat_in_place, s.args, loc=s.loc)
        if s.fn is operator.ior and ka == kinds.DICT:
            return Op(s.target, merge_in_place, s.args, loc=s.loc)
        if s.fn in (operator.or_, operator.ior) and kinds.DICT in (ka, kb):
            # d | e: a new dict whose items carry their adjoints (operator.or_ has none)
            return Op(s.target, dict_merge, s.args, loc=s.loc)
        if s.fn is operator.iadd and ka == kinds.TUPLE:
            return Op(s.target, concat, s.args, loc=s.loc)
        if s.fn in (operator.mul, operator.imul) and ka in _SEQ:
            return Op(s.target, repeat, s.args, loc=s.loc)
        if s.fn in (operator.mul, operator.imul) and kb in _SEQ:
            return Op(s.target, repeat, (b, a), loc=s.loc)
        return s

    def apply(self, stmts):
        # a while's test body too: `block` decided its statements
        return [ir.map_children(self.decided.get(id(s), s), self.apply) for s in stmts]


def _join_into(env, a, b):
    for k in set(a) | set(b):
        env[k] = kinds.join(a.get(k), b.get(k))


def needs_specializing(body):
    return any(isinstance(s, SetItem) or (isinstance(s, Op) and s.fn in _MAYBE)
               for s in ir.walk(body))


_MAYBE = (operator.add, operator.iadd, operator.mul, operator.imul, operator.or_, operator.ior)


# ----- xs[i] op= v on an item that may be an array (called by revsrc/passes/views.py) -----
# Python runs ``xs[i].__iadd__(v)``: on an array, the array itself changes, seen by every
# name, slot and view holding it. revsrc computes a new array for the one slot, which is
# the same only when nothing else holds it: inplace.check_item_alone asks that when it
# runs, given every value the program may still read.

def item_check(r, s, path, only_after):
    """The statements checking ``xs[i] op= v`` (``s``, at ``path``: the item read into
    ``s.args[0]`` from ``s.args[1]``), for the resolver ``r``: none on an array's element
    or a number. ``only_after(at, a, b)``: whether the statement at ``a`` runs only
    after the one at ``b``."""
    item, base = s.args[0], s.args[1]
    if r.found.get(item) in kinds.SCALARS or \
            isinstance(base, str) and r.found.get(base) == kinds.ARRAY:
        return []
    held = [p for p in r.params if p not in r.defs and _may_hold(r, p)]
    for v, ds in r.defs.items():
        if v == item or not _may_hold(r, v) or \
                not any(_read_later(r, ds, path, read, only_after)
                        for read in r.reads.get(v, ())):
            continue
        if _defined(r, v, ds, path):
            held.append(v)
        elif any(not only_after(r.at, d.path, path) for d in ds) and not _new_array(r, v, ds):
            # it may hold a value from before (a loop's last turn): the same array as
            # the item, or a list holding it, but it is not defined on every way here,
            # so the check cannot read it
            name = r.back.get(v, v)
            name = "a value" if r.names.is_generated(name) else name
            raise errors.UnfollowableWrite(
                f"this changes an item of a list in place (xs[i] op= v), and {name}, "
                "which may hold the same array, is not assigned on every way to here; "
                "revsrc cannot follow this write", loc=s.loc,
                hint="write xs[i] = xs[i] + v to store a new array")
    if not held:
        return []
    held = sorted(set(held))
    t = r.names.temp()
    shown = tuple("" if r.names.is_generated(r.back.get(v, v)) else r.back.get(v, v)
                  for v in held)
    # whether any value may be a view of an array (an alias is the same object)
    views = any(r.found.get(parent) in (kinds.ARRAY, kinds.ANY) and
                r.defs[v][0].stmt.fn is not ir.copy for v, (parent, _) in r.parent.items())
    return [Op(t, ir.make_tuple, tuple(held), loc=s.loc),
            Op(None, inplace.check_item_alone,
               (item, base, t, s.args[3], Const(shown), Const(views)), loc=s.loc)]


def _new_array(r, v, ds):
    """Whether every assignment of ``v`` makes a new array (``keep = xs[0].copy()``,
    ``s = bufs[i] * 2.0``), which cannot be the array an item write changes. Where the
    kind is not known, ``+`` and ``*`` count only with a float or an array operand: on
    lists they make a new list of the same items."""
    kind = r.found.get(v)
    if kind not in (kinds.ARRAY, kinds.ANY):
        return False
    for d in ds:
        s = d.stmt
        if not isinstance(s, Op) or view_link(s, r.found, getattr(r, "ndims", None)) is not None:
            return False
        if kind == kinds.ANY and s.fn in _MAYBE and not any(
                r.found.get(a) in (kinds.FLOAT, kinds.ARRAY) if isinstance(a, str)
                else isinstance(a, Const) and type(a.value) is float for a in s.args):
            return False
    return True


def _may_hold(r, v):
    return r.found.get(v) in (kinds.ARRAY, kinds.ANY, kinds.LIST, kinds.DICT, kinds.TUPLE)


def _read_later(r, ds, path, read, only_after):
    """Whether the read at ``read`` may see the value its variable (defined at
    ``ds``) holds when the statement at ``path`` runs: not when it runs only before
    it, nor on a later turn of a loop around both that assigns the variable first."""
    if only_after(r.at, path, read):
        return False
    if any(ir.dominates(d.path, read) and ir.dominates(path, d.path) for d in ds):
        return False          # assigned again between the two
    k = 0
    while k < min(len(path), len(read)) and path[k] == read[k]:
        k += 1
    if k < min(len(path), len(read)) and path[k][0] == read[k][0] and \
            read[k][1] > path[k][1]:
        return True           # later in the same turn
    loops = [j for j in range(1, k + 1) if isinstance(r.at[path[:j]], (ir.For, ir.While))]
    if not loops:
        return True
    turn = path[:loops[-1]]   # the innermost loop around both
    return not any(d.path[:len(turn)] == turn and (
        d.path == turn and isinstance(d.stmt, ir.For) or ir.dominates(d.path, read))
        for d in ds)


def _defined(r, v, ds, path):
    """Whether ``v`` (defined at ``ds``) has a value whenever the statement at ``path``
    runs: assigned before it in a statement list around it (in both branches of an
    if), or the variable of a loop around it."""
    for d in ds:
        if isinstance(d.stmt, ir.For) and path[:len(d.path)] == d.path and \
                len(path) > len(d.path):
            return True
    for level in range(len(path)):
        lst, idx = path[level]
        for j in range(idx):
            s = r.at.get(path[:level] + ((lst, j),))
            if _assigns(s, v):
                return True
    return False


def _assigns(s, v):
    if isinstance(s, Op):
        return s.target == v
    if isinstance(s, ir.If):
        return any(_assigns(t, v) for t in s.body) and any(_assigns(t, v) for t in s.orelse)
    if isinstance(s, ir.Block):
        return any(_assigns(t, v) for t in s.body)
    return False


# ----- Changes to lists and dicts, made new values (called by revsrc/passes/views.py) -----

def rewrite_write(r, s, path):
    """The statements replacing the in-place write ``s`` (``xs = fn(xs, ...)`` on a
    list or a dict), or a coded refusal. ``r`` is the alias resolver, which knows each
    variable's definitions and what it is a view, an alias or an item of."""
    target, loc = s.target, s.loc
    new_value = IN_PLACE[s.fn]
    # up from the written list: the names it has (copies) and the lists holding it
    walk = []            # (variable, "copy" or "item", what it is a copy or an item of, def)
    checks = []          # run-time checks before the write
    v = target
    seen = {v}
    while v in r.parent:
        base, _ = r.parent[v]
        d = r.defs[v][0].stmt
        if _list_slice(r, d, base):
            checks += _slice_write(r, s, v, base)
            break       # a new list holding the same items: changing it leaves base alone
        if d.fn is operator.getitem:
            if r.found.get(base) not in (kinds.LIST, kinds.DICT):
                raise errors.UnfollowableWrite(
                    f"{target} is an item of {base}, a {r.found.get(base)}, and revsrc cannot "
                    "follow a change to it", loc=loc,
                    hint="build a new value instead of changing this one in place")
            walk.append((v, "item", base, d))
        elif d.fn is ir.copy:
            walk.append((v, "copy", base, d))
        else:
            raise errors.UnfollowableWrite(
                f"{target} shares its value with {base}, and revsrc cannot follow a change "
                "to it", loc=loc, hint="build a new value instead of changing it in place")
        if base in seen:
            raise errors.UnfollowableWrite(f"{target} holds itself", loc=loc,
                                           hint="build a new value instead")
        seen.add(base)
        v = base
    root = v
    if root in r.external or (root not in r.defs and root not in r.params):
        raise errors.MutatesArgument(
            f"this changes {root}, which the caller owns" + (
                f" (through {target})" if root != target else ""), loc=loc,
            hint=f"copy it first: {root} = list({root})  (or dict({root}), "
                 f"[list(row) for row in {root}] for a list of lists)")
    _check_second_names(r, seen, _own(r, target), path, loc)
    # the objects changed: the written list and every list holding it on the way up
    changed = [target] + [base for var, how, base, d in walk if how == "item"][:-1]
    for v in dict.fromkeys(changed):
        _check_not_stored(r, v, path, loc)
    if any(how == "item" for _, how, _, _ in walk):
        _check_fresh_items(r, root, loc)
    out = checks
    if not walk:
        out.append(Op(target, new_value, s.args, s.kwargs, loc))
        return out
    cur = r.names.temp()
    out.append(Op(cur, new_value, s.args, s.kwargs, loc))
    for var, how, base, d in walk:
        if how == "item":
            holder = base if base == root else r.names.temp()
            out.append(Op(holder, set_item, (base, d.args[1], cur), loc=loc))
            cur = holder
    if cur != root:
        out.append(Op(root, ir.copy, (cur,), loc=loc))
    # every name on the way down reads its new value again (a temporary read by
    # nothing but this write is not needed again)
    for var, how, base, d in reversed(walk):
        if r.names.is_temp(var) and all(p == path for p in r.reads.get(var, [])):
            continue
        out.append(Op(var, d.fn, d.args, d.kwargs, loc))
    return out


def _check_second_names(r, seen, own, path, loc):
    """Refuse a change at ``path`` to a list another name also holds (a copy of a name
    on the way up, ``seen``, made before the change or in a loop around it): the change
    would show through both. ``own``: the names holding the changed list itself, from
    the written name up through its aliases."""
    for m, (base, _) in r.parent.items():
        if m in seen or base not in seen or r.defs[m][0].stmt.fn is not ir.copy:
            continue
        d = r.defs[m][0].path
        if _order(d) > _order(path):
            loop = _common_loop(r, d, path)
            if loop is None:
                continue    # named so only after this change
            if base in own and _made_in_turn(r, own, base, loop, path):
                continue    # m holds an earlier turn's list, not the one changed
        if r.names is not None and r.names.is_generated(m):
            # a name of revsrc's own means nothing to the user: say where it holds base
            at = r.defs[m][0].stmt.loc
            where = f" at line {at.lineno}" if at is not None else ""
            raise errors.UnfollowableWrite(
                f"{base} is also held where it is placed in a container{where}, and revsrc "
                "cannot follow a change to both", loc=loc,
                hint=f"place a copy in the container (list({base}) or tuple({base}) "
                     "where it is stored)")
        raise errors.UnfollowableWrite(
            f"{base} is also named {m}, and revsrc cannot follow a change to both "
            "names", loc=loc,
            hint=f"copy it where the second name is made: {m} = list({base})")


def _own(r, target):
    """``target`` and the names it is an alias of, up to the first that is not an
    alias (``q = t``): the names that hold the very list a write into ``target``
    changes."""
    own = [target]
    v = target
    while v in r.parent and r.defs[v][0].stmt.fn is ir.copy and r.parent[v][0] not in own:
        v = r.parent[v][0]
        own.append(v)
    return own


# what makes a new list or dict (a copy made by list()/dict() is a new outer object)
_FRESH = (ir.make_list, ir.make_dict, list, dict, append, extend, set_item, concat, repeat)


def _made_in_turn(r, own, base, k, path):
    """Whether ``base`` (one of ``own``) names, when the change at ``path`` runs, a list
    made new on the same turn of the loop at level ``k`` before the change: then a copy
    of ``base`` made later in the turn holds the list of an earlier turn, which this
    change does not touch (``p = [...]; <change p>; s = {"pos": p}`` in a loop). Every
    alias from ``base`` up, and the list's making, must be on that turn and always
    run before the change."""
    chain = own[own.index(base):]
    for v in chain[:-1]:
        if not ir.dominates(r.defs[v][0].path, path) or len(r.defs[v][0].path) <= k:
            return False
    top = chain[-1]
    if top in r.parent:
        return False          # an item of another list, or may be a view: not new
    ds = [d for d in r.defs.get(top, []) if len(d.path) > k and d.path[:k] == path[:k]
          and d.path[k][0] == path[k][0]]
    return bool(ds) and all(isinstance(d.stmt, Op) and d.stmt.fn in _FRESH for d in ds) \
        and any(ir.dominates(d.path, path) for d in ds)


def _slice_write(r, s, v, base):
    """The write ``s`` into ``v``, a slice of the list ``base``: a new list of the same
    objects, so replacing an item leaves ``base`` alone. The checks it needs when it
    runs; refused where it changes an item both lists hold."""
    loc = s.loc
    mine, theirs = v.partition("@")[0], base.partition("@")[0]
    if v != s.target:
        raise errors.UnfollowableWrite(
            f"this changes an item of {mine}, a slice of {theirs} holding the same "
            "objects, and revsrc cannot follow the change into both", loc=loc,
            hint="copy the items where the slice is made: [list(r) for r in rows]")
    if IN_PLACE[s.fn] is not set_item or len(s.args) < 3 or not isinstance(s.args[2], str) \
            or r.found.get(s.args[2]) in kinds.SCALARS:
        return []
    # ys[0] += v on a list of arrays changes the array base holds too, in place
    # (ys[0] = ys[0] * v does not): the two are one write by now, right only for a
    # number, which the run checks
    what = (f"{mine} is a slice of {theirs}, which holds the same objects; an array or "
            f"list written into {mine} may be one {theirs} holds too, and revsrc cannot "
            "tell whether Python would change it there (x[i] += y does, x[i] = x[i] * y "
            "does not)")
    return [Op(None, runtime.check_immutable, (s.args[2], Const(loc), Const(what)), loc=loc)]


def stopped_write(name, loc):
    """The refusal of a write into memory that ``name``, a result of revsrc.stop_gradient,
    also holds (stop_gradient returns its argument itself): the items written after the
    stop carry a derivative there, the rest none, which revsrc does not follow."""
    name = name.partition("@")[0]
    return errors.UnfollowableWrite(
        f"this writes into an array that {name}, a result of revsrc.stop_gradient, also "
        "holds; revsrc cannot give the items written after the stop their derivative",
        loc=loc, hint=f"copy it where it is made: {name} = revsrc.stop_gradient(...).copy()")


def _list_slice(r, d, base):
    """Whether ``d`` is ``base[i:j]`` on a list: a new list (of the same objects, so an
    item changed in place is still followed into ``base`` as an item's change)."""
    return d.fn is operator.getitem and r.found.get(base) == kinds.LIST and \
        isinstance(d.args[1], Const) and isinstance(d.args[1].value, slice)


# the operations that put an operand itself into a container, and which operands (None:
# all)
_PLACING = {ir.make_list: None, ir.make_tuple: None, ir.make_dict: None,
            append: (1,), append_in_place: (1,), set_item: (2,), set_item_in_place: (2,)}


def _stores_of(r, v):
    """Paths of the statements that put ``v`` itself into another container."""
    found = []
    for path, s in r.statements:
        if isinstance(s, Op) and s.fn in _PLACING:
            positions = _PLACING[s.fn]
            operands = s.args if positions is None else [s.args[i] for i in positions
                                                         if i < len(s.args)]
            if v in operands:
                found.append(path)
    return found


def _check_not_stored(r, v, write_path, loc):
    """Refuse a change to the list ``v`` that another container may hold since ``v``
    was last made (Python would change it there too)."""
    defs = [d.path for d in r.defs.get(v, [])]
    for store in _stores_of(r, v):
        if _reaches(r, store, write_path, defs):
            raise errors.UnfollowableWrite(
                f"{v} is changed here after it was put into another list, tuple or dict, "
                "which would change too; revsrc cannot follow the change there", loc=loc,
                hint=f"finish {v} before storing it, or store a copy: list({v})")


def _reaches(r, store, write, defs):
    """Whether the statement at ``store`` may run before the one at ``write`` with no
    definition (of ``defs``) of the variable between them."""
    if _order(store) < _order(write):
        if not any(_order(store) < _order(d) and ir.dominates(d, write) for d in defs):
            return True
    # from one iteration of a loop holding both to the next
    k = _common_loop(r, store, write)
    if k is None:
        return False
    return not any(len(d) > k and d[:k] == write[:k] and d[k][0] == write[k][0]
                   and ir.dominates(d, write) for d in defs)


def _order(path):
    return tuple(i for _, i in path)


def _common_loop(r, a, b):
    """The level of the innermost loop body holding both paths (None if none)."""
    level = None
    for k in range(min(len(a), len(b))):
        if a[k][0] != b[k][0]:
            break
        if a[k][0] in r.loop_bodies:
            level = k
        if a[k] != b[k]:
            break
    return level


def _check_fresh_items(r, root, loc):
    """An item of ``root`` changed in place must be held by ``root`` alone: every item
    put into it must be a list made for it (a literal, a comprehension, ``[0.0] * n``)."""
    fresh_ops = (ir.make_list, ir.make_dict, repeat, concat, append, extend, set_item)
    for path, s in r.statements:
        if not (isinstance(s, Op) and s.target == root):
            continue
        if s.fn in (ir.make_list, ir.make_dict):
            items = s.args if s.fn is ir.make_list else s.args[1::2]
        elif s.fn in (append, append_in_place):
            items = s.args[1:2]
        elif s.fn in (set_item, set_item_in_place):
            items = s.args[2:3]
        else:
            items = None
        ok = items is not None and all(
            not isinstance(i, str) or r.found.get(i) not in (kinds.LIST, kinds.DICT, kinds.ANY)
            or (r.names.is_temp(i) and len(r.defs.get(i, [])) == 1
                and r.defs[i][0].stmt.fn in fresh_ops
                and not (r.defs[i][0].stmt.fn is repeat
                         and _holds_lists(r, r.defs[i][0].stmt.args[0])))
            for i in items)
        if not ok:
            raise errors.UnfollowableWrite(
                f"this changes an item of {root}, and revsrc cannot tell that {root} alone "
                "holds that item (Python would change it wherever else it is held)", loc=loc,
                hint=f"build {root} from list literals or a comprehension "
                     f"([[0.0] * n for _ in range(m)]), not from other names")


def _holds_lists(r, seq):
    if not isinstance(seq, str):
        return False
    d = r.defs.get(seq, [])
    if len(d) != 1 or d[0].stmt.fn is not ir.make_list:
        return True
    return any(isinstance(i, str) and r.found.get(i) not in kinds.SCALARS
               for i in d[0].stmt.args)
