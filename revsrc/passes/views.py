"""Writes through views and aliases, made explicit (or refused).

NumPy arrays are shared: ``left = a[:1]`` is a view of ``a``, ``b = a`` is the same
array, ``for row in H`` hands out views of ``H``'s rows. A write through any of them
(``left += w``, ``b[0] = v``, ``row *= 2``) changes every other. The IR reads each
assignment as defining one variable, so this pass makes such writes explicit before
any transformation sees them:

- the write is computed as a new value (``t = left + w``) and written back into the
  array it is a view of, up to the array that owns the memory (``a[:1] = t``);
- every view or alias of that array defined before the write is derived again after
  it (``left = a[:1]``), so later reads see the new values.

What may be a view is decided the safe way round: a value made by a function not
known to copy (`view_links`: ``np.einsum``, ``z.real``, ``a.view()``, a user's function)
may be one. Where NumPy alone knows, it is asked when the write runs
(revsrc/runtime/inplace.py): a write through such a value goes where its elements lie
in the array, or as it is into a value that turns out new; such a value is derived
again after a write into its operand only if it shares its memory.

Writes that reach an argument, a global or a closure value change the caller's data:
they are refused (E403). Writes whose target revsrc cannot follow statically (an
alias defined in only one branch, a view whose definition is not in reach) are refused
too (E404), as is one into what revsrc.stop_gradient returned: never a wrong gradient.

``x += y`` on a number is an ordinary assignment; on an array with no alias it is
computed as ``x = x + y`` (the same values, and nothing else can see the difference)."""
from __future__ import annotations

import operator

import numpy as np

from . import containers, holders, versions
from .. import errors, runtime
from ..core import ir, kinds
from ..core.ir import Const, For, If, Op, SetItem, While, dominates
from ..core.ops import INPLACE
from ..runtime import arith as _arith, inplace
from .view_links import LAYOUTS, MUTABLE, item_read, view_link

class _Def:
    """The unique definition of a variable that can hold a mutable value."""

    def __init__(self, stmt, path):
        self.stmt = stmt
        self.path = path     # ((id(list), index), ...) from the body down to the statement


def resolve(params, body, found, names, back=None, ndims=None):
    """``body`` with every write through a view or an alias made explicit. ``body``
    and ``found`` (its kinds; ``ndims`` their ranks where known) may have versioned
    names (`versions`); ``back`` gives the user's names again."""
    try:
        out = _Resolver(params, found, names, back, ndims).run(body)
    except errors.RevsrcError as exc:
        raise versions.spelled(exc) from None
    if back:
        back = versions.apart(out, back, names)
        out = ir.rename(out, lambda n: back.get(n, n))
    return out


def _between(at, b, d, w):
    """Whether the statement at path ``b`` may run after the one at ``d`` and
    before the one at ``w`` with ``d`` not running again in between (``d``
    dominates ``w``). A For statement at ``b`` assigns its variable at the top of
    each iteration."""
    k = len(d) - 1
    if len(b) <= k or b[:k] != w[:k] or b[k][0] != d[k][0]:
        return False      # before d's list, or around all three: d runs again
    if not d[k][1] < b[k][1] <= w[k][1]:
        return False
    if b[k][1] < w[k][1]:
        return True
    # in the statement holding the write: in a loop around it, any iteration
    # before the write's; else before the write in the same body
    for level in range(k + 1, len(w)):
        s = at[w[:level]]
        if isinstance(s, (For, While)):
            return True
        if len(b) <= level or b[level][0] != w[level][0]:
            return False  # the other branch of an if
        if b[level][1] != w[level][1]:
            return b[level][1] < w[level][1]
    return False


def _write_back(names, d, base, new, loc, out):
    """Statements writing ``new`` (the new value of ``d``'s target) into ``base``;
    returns the operand holding ``base``'s new value (``base`` itself, in place)."""
    fn = d.fn
    if fn is ir.copy or fn in (np.asarray, np.asanyarray, np.ascontiguousarray):
        out.append(SetItem(base, Const(Ellipsis), new, loc=loc))
    elif fn is operator.getitem:
        out.append(SetItem(base, d.args[1], new, loc=loc))
    else:
        # a whole-array view: written back through the inverse of its layout
        t = names.temp()
        args = _operand_tuple(names, d.args[1:], loc, out)
        pairs = [_operand_tuple(names, (Const(k), v), loc, out) for k, v in d.kwargs]
        kwargs = _operand_tuple(names, pairs, loc, out)
        out.append(Op(t, runtime.view_back, (new, base, Const(fn), args, kwargs),
                      loc=loc))
        out.append(SetItem(base, Const(Ellipsis), t, loc=loc))
    return base

def _operand_tuple(names, items, loc, out):
    """A tuple of the values of ``items`` (operands) as one operand: a constant when
    they all are (the view's shape, ``(3, -1)``), else built where the write is."""
    if all(isinstance(i, Const) for i in items):
        return Const(tuple(i.value for i in items))
    t = names.temp()
    out.append(Op(t, ir.make_tuple, tuple(items), loc=loc))
    return t


def _real_store(found, s):
    """The check before ``a[i] = v`` into an array of a ``v`` that may be a complex
    number (its kind not known real): NumPy would refuse it or drop its imaginary
    part (`runtime.check_real_store`)."""
    if isinstance(s, SetItem) and found.get(s.target) == kinds.ARRAY and \
            isinstance(s.value, str) and found.get(s.value) not in kinds.SCALARS + (
                kinds.ARRAY, kinds.TUPLE, kinds.LIST):
        return [Op(None, runtime.check_real_store, (s.target, s.value, Const(s.loc)),
                   loc=s.loc)]
    if isinstance(s, SetItem) and isinstance(s.value, Const) and \
            isinstance(s.value.value, (complex, np.complexfloating)):
        return [Op(None, runtime.check_real_store, (s.target, s.value, Const(s.loc)),
                   loc=s.loc)]
    return []


def _computed(found, names, s, target):
    """``x op= v`` (the Op ``s``) computed as ``x op v`` into ``target``; where ``x``
    may be an array, kept in its dtype or refused as NumPy refuses it
    (runtime.inplace.in_place: one dtype test; none on a number)."""
    x = s.args[0]
    if found.get(x) in kinds.SCALARS:
        return [Op(target, INPLACE[s.fn], s.args, s.kwargs, s.loc)]
    # x's old value goes to the check only through its dtype: nothing need keep it
    new, dt = names.temp(), names.temp()
    return [Op(dt, inplace.array_dtype, (x,), loc=s.loc),
            Op(new, INPLACE[s.fn], s.args, s.kwargs, s.loc),
            Op(target, inplace.in_place, (new, dt, Const(s.fn)), loc=s.loc)]


def _on_number(s, found, numbers):
    """Whether ``s`` is a dtype test of ``xs[i] op= v`` (frontend/lower/statements.py)
    on an item known to be a number, which needs none: dropped, its result then read
    as the value it tests (``numbers``: dropped name -> that value, see `_kept`)."""
    if s.fn is inplace.array_dtype and found.get(s.args[0]) in kinds.SCALARS:
        numbers[s.target] = None
        return True
    if s.fn is inplace.in_place and s.args[1] in numbers:
        numbers[s.target] = s.args[0]
        return True
    return False


def _kept(out, numbers):
    """``out`` reading, for each dtype test `_on_number` dropped, the value it tested."""
    names = {k: v for k, v in numbers.items() if v is not None}
    return ir.rename(out, lambda n: names.get(n, n)) if names else out


def _only_after(at, d, w):
    """Whether the statement at path ``d`` runs only after the one at ``w``: later in
    a statement list holding both, with no loop around them (``at``: path -> statement)."""
    k = 0
    while k < min(len(d), len(w)) and d[k] == w[k]:
        k += 1
    if k == min(len(d), len(w)) or d[k][0] != w[k][0] or d[k][1] < w[k][1]:
        return False
    return not any(isinstance(at[w[:level]], (For, While)) for level in range(1, k + 1))


class _Resolver:
    def __init__(self, params, found, names, back=None, ndims=None):
        self.params = set(params)
        self.found = found
        self.ndims = ndims or {}
        self.names = names
        self.back = back or {}      # versioned name -> the user's name (for messages)

    # ----- the alias structure --------------------------------------------

    def run(self, body):
        self.defs = {}       # var -> list of _Def (non-write definitions)
        self.reads = {}      # var -> paths of the statements reading it
        self.writes = []     # (stmt, path) of in-place writes
        self.statements = []     # (path, stmt) of every statement, in order
        self.at = {}             # path -> the statement there
        self.loop_bodies = set()  # ids of loop bodies' statement lists
        self.external = set(self.params)
        self.item_checks = []    # (stmt, path) of the checks of xs[i] op= v
        self._scan(body, ())
        self.plan = {}       # id(write stmt) -> replacement statements
        self.numbers = {}    # dtype tests of xs[i] op= v on a number (`_on_number`)
        if not self.writes and not self.item_checks:
            return _kept(self._apply(body), self.numbers)
        self.parent = {}     # var -> (operand it views, its defining Op, always a view)
        for v, ds in self.defs.items():
            if len(ds) == 1:
                link = self._view_of(ds[0].stmt)
                if link is not None:
                    self.parent[v] = link
        for stmt, path in self.item_checks:
            self.plan[id(stmt)] = containers.item_check(self, stmt, path, _only_after)
        for stmt, path in self.writes:
            self.plan[id(stmt)] = _real_store(self.found, stmt) + self._rewrite(stmt, path)
        return _kept(self._apply(body), self.numbers)

    def _scan(self, stmts, path):
        for i, s in enumerate(stmts):
            here = path + ((id(stmts), i),)
            self.statements.append((here, s))
            self.at[here] = s
            if isinstance(s, (For, While)):
                self.loop_bodies.add(id(s.body))
            for r in ir.reads(s):
                self.reads.setdefault(r, []).append(here)
            if isinstance(s, Op):
                if s.fn is inplace.check_item_alone:
                    self.item_checks.append((s, here))
                    continue
                if s.fn in containers.IN_PLACE:
                    self.writes.append((s, here))
                    continue
                if s.fn in INPLACE:
                    if self._mutable(s.target):
                        self.writes.append((s, here))
                    continue
                if s.fn in (ir.load_global, ir.load_cell) and s.target is not None:
                    self.external.add(s.target)
                if s.target is not None:
                    self.defs.setdefault(s.target, []).append(_Def(s, here))
            elif isinstance(s, SetItem):
                self.writes.append((s, here))
            elif isinstance(s, For):
                self.defs.setdefault(s.var, []).append(_Def(s, here))
            for child in ir.children(s):
                self._scan(child, here)

    def _mutable(self, v):
        return isinstance(v, str) and self.found.get(v) in MUTABLE

    def _view_of(self, s):
        return view_link(s, self.found, self.ndims)

    def _operands(self, s):
        """The operands of ``s`` that can hold a mutable value (what it may view)."""
        found = [a for a in s.args if isinstance(a, str) and self._mutable(a)]
        found += [v for _, v in s.kwargs if isinstance(v, str) and self._mutable(v)]
        return list(dict.fromkeys(found))

    def _root(self, v):
        seen = []
        while v in self.parent and v not in seen:
            seen.append(v)
            v = self.parent[v][0]
        return v

    def _members(self, root):
        return [v for v in self.parent if self._root(v) == root]

    # ----- rewriting one write ----------------------------------------------

    def _rewrite(self, s, path):
        """The statements replacing the write ``s`` (at ``path``): its new value
        written back up to the array that owns the memory, then every view or alias
        of that array made before the write derived again; or a coded refusal."""
        target, loc = s.target, s.loc
        if isinstance(s, Op) and s.fn in containers.IN_PLACE:
            return containers.rewrite_write(self, s, path)
        holders.check_unheld(self, s, path, _only_after)
        if isinstance(s, Op) and self.found.get(target) == kinds.ANY:
            # a number (rebound) or a shared array (changed in place): known when it runs
            return [Op(None, runtime.check_immutable, (target, Const(loc)), loc=loc),
                    *self._computed(s, s.target)]
        guards = self._checked_new(target, path, loc)
        if guards is not None:
            return guards + self._plain(s, target, path, guards)
        root = self._root(target)
        chain = self._chain(target, root)
        sure = all(self.parent[v][1] for v, _, _ in chain)
        if not sure and self._outside(root):
            # the caller's array, reached through a value that may be a view of it
            self._owner(target, loc, outside_ok=True)
            return self._write_apart(s, root, path)
        root = self._owner(target, loc)
        # an alias made only after the write (``_ret = s`` after ``s += y`` in a loop)
        # never sees it: with no other, x op= y is x = x op y (x may be a float then)
        members = [m for m in self._members(root)
                   if m != root and not _only_after(self.at, self.defs[m][0].path, path)]
        if not members:
            if isinstance(s, SetItem):
                return [s]
            # x op= y with no alias: the same values as x = x op y
            return self._computed(s, s.target)
        self._check_members(target, root, members, loc)
        out = self._write_up(s, root, chain)
        before = []         # what the members' guards read, before the write
        self._derive_again(members, chain, s, root, path, out, before)
        if sure:
            return before + out
        # whether the value written shares root's memory is NumPy's to say: if not,
        # it is a new array (``B.T.reshape(-1)``, np.einsum's product), written as it is
        shared = self.names.temp()
        plain = self._plain(s, root, path, before)
        return before + [Op(shared, inplace.shares, (target, root), loc=loc),
                         If(shared, out, plain, loc=loc)]

    def _computed(self, s, target):
        return _computed(self.found, self.names, s, target)

    def _checked_new(self, target, path, loc):
        """For ``target`` assigned in more than one place, each time a value that
        may be a view (``np.einsum``'s result) and never one that always is: the
        checks that it shares memory with none of the arrays it may view, run before
        the write (refused when it does: E403 for the caller's, else E404); it is a
        new array then. None where that cannot be asked."""
        ds = self.defs.get(target, [])
        links = [self._view_of(d.stmt) for d in ds]
        if len(ds) < 2 or all(link is None for link in links) or \
                any(link is not None and link[1] for link in links):
            return None
        out = []
        made = {d.path for d in ds}
        for d, link in zip(ds, links):
            for base in self._operands(d.stmt) if link is not None else ():
                root = self._root(base)
                if set(self.reads.get(root, [])) <= made and base == root:
                    continue          # read only to make target: nothing sees a write
                rd = self.defs.get(root, [])
                if len(rd) > 1 or rd and not dominates(rd[0].path, path):
                    return None       # which array it names depends on the path
                check = inplace.check_apart if self._outside(root) else inplace.check_new
                out.append(Op(None, check, (target, root, Const(loc),
                                            self._shown(target, root)), loc=loc))
        return out

    def _chain(self, target, root):
        """(variable, parent operand, defining Op) from ``target`` up to ``root``."""
        chain = []
        v = target
        while v != root:
            base, _ = self.parent[v]
            chain.append((v, base, self.defs[v][0].stmt))
            v = base
        return chain

    def _outside(self, root):
        return root in self.external or (root not in self.defs and root not in self.params)

    def _plain(self, s, root, path, before):
        """The write ``s`` into its own variable (a new array, no view of ``root``),
        and the views of it made before, derived again."""
        target = s.target
        out = [s] if isinstance(s, SetItem) else self._computed(s, target)
        mine = [m for m in self._members(root) if m != target and
                target in [c[1] for c in self._chain(m, root)]]
        self._derive_again(mine, [], s, target, path, out, before)
        return out

    def _write_apart(self, s, root, path):
        """A write into a value that may be a view of the caller's array ``root``:
        refused (E403) when it runs if it is one, else written as it is."""
        loc = s.loc
        before = [Op(None, inplace.check_apart,
                     (s.target, root, Const(loc), self._shown(s.target, root)), loc=loc)]
        out = self._plain(s, root, path, before)
        return before + out

    def _owner(self, target, loc, outside_ok=False):
        """The array that owns the memory a write into ``target`` changes, refused
        when that is the caller's (unless ``outside_ok``) or depends on the path
        taken."""
        ds = self.defs.get(target, [])
        if len(ds) > 1 and any(self._view_of(d.stmt) is not None for d in ds):
            # which array it views depends on the path taken: not followed (refused)
            raise errors.UnfollowableWrite(
                f"{target} is assigned in more than one place, and at least one makes it "
                "a view or an alias of another array; revsrc cannot follow a write "
                "through it", loc=loc,
                hint=f"give each view its own name, or copy it ({target} = "
                     f"{target}.copy()) before writing")
        root = self._root(target)
        if self._outside(root) and not outside_ok:
            raise errors.MutatesArgument(f"this writes into {root}, which the caller owns"
                                         f"{versions.through(target, root)}",
                                         loc=loc, hint=f"copy it first: {root} = {root}.copy()")
        return root

    def _check_members(self, target, root, members, loc):
        """Refuse a write into ``target`` whose sharers (``members``, views and aliases
        of ``root``) cannot all be followed."""
        if self.found.get(root) != kinds.ARRAY:
            shown = versions.user_names(self.names, set(members) | {root}, target)
            if not shown:     # (nothing shares it: an object a call made)
                raise errors.UnfollowableWrite(
                    f"{target} holds an object made by a call (a collections.defaultdict, "
                    "a container class), and revsrc cannot follow a write into it",
                    loc=loc, hint="use a plain dict, d[k] = d.get(k, 0.0) + v, or build "
                                  "a new value instead of changing this one in place")
            raise errors.UnfollowableWrite(
                f"{target} shares its value with {', '.join(shown)}, "
                "and revsrc cannot follow a write into it", loc=loc,
                hint="build a new value instead of changing this one in place")
        for m in members:
            ds = self.defs.get(m, [])
            if len(ds) != 1:
                raise errors.UnfollowableWrite(
                    f"{m} is a view or an alias of {root} assigned in more than one place; "
                    "revsrc cannot follow this write through it", loc=loc,
                    hint=f"copy it ({m} = {m}.copy()) or write into {root} directly")

    def _write_up(self, s, root, chain):
        """The new value of the variable ``s`` writes, as a fresh array, written back
        into ``root`` one link of ``chain`` at a time."""
        out = []
        loc = s.loc
        if not all(self._laid_out(d) for _, _, d in chain):
            return self._write_at(s, root, out)
        if isinstance(s, Op):
            new = self.names.temp()
            out += self._computed(s, new)
        elif chain:
            new = self.names.temp()
            out.append(Op(new, np.array, (s.target,), loc=loc))
            out.append(SetItem(new, s.index, s.value, loc=loc))
        else:
            out.append(s)   # a write into the root itself
            new = None
        for var, base, d in chain:
            if not self._always_view(d):
                out.append(Op(None, inplace.check_shares,
                              (var, base, Const(loc), self._shown(var, base)), loc=loc))
            new = _write_back(self.names, d, base, new, loc, out)
        if new is not None and root not in [c[0] for c in chain]:
            if new != root:
                out.append(SetItem(root, Const(Ellipsis), new, loc=loc))
        return out

    def _laid_out(self, d):
        """Whether a write through the view ``d`` makes is written back by a layout
        revsrc knows (an alias, an index, a reshape or a transpose); any other is
        written where NumPy says its elements lie (`_write_at`)."""
        return d.fn is ir.copy or d.fn in LAYOUTS or (
            d.fn is operator.getitem and self.found.get(d.args[0]) == kinds.ARRAY)

    def _write_at(self, s, root, out):
        """The write ``s`` through a view of ``root`` NumPy alone knows the layout of
        (``np.einsum("ii->i", M)``, ``a.view()``, ``z.real``, a piece of
        np.array_split): where its elements lie in ``root`` is asked when it runs (or
        the write refused, E404), and its new values are written there."""
        loc = s.loc
        where, new, t = self.names.temp(), self.names.temp(), self.names.temp()
        out.append(Op(where, inplace.view_positions,
                      (s.target, root, Const(loc), self._shown(s.target, root)), loc=loc))
        if isinstance(s, Op):
            out += self._computed(s, new)
        else:
            out.append(Op(new, np.array, (s.target,), loc=loc))
            out.append(SetItem(new, s.index, s.value, loc=loc))
        out.append(Op(t, inplace.write_at, (new, root, where), loc=loc))
        out.append(SetItem(root, Const(Ellipsis), t, loc=loc))
        return out

    def _shown(self, *names):
        """The user's names of ``names``, for a message."""
        return Const(tuple(self.back.get(n, n) for n in names))

    def _derive_again(self, members, chain, s, root, path, out, before):
        """Append to ``out`` the definitions of the views and aliases of ``root``
        (``members``) made before the write ``s`` at ``path``, so that later reads
        see the new values; refused for one that may hold a view from before it. One
        that may be a view (``np.einsum``'s result) is derived again only if NumPy
        made it share its operand's memory: the test is appended to ``before``."""
        target, loc = s.target, s.loc
        on_chain = {c[0] for c in chain}
        parted = set()      # no longer views of the array written (their base was rebound)
        for m in self._ordered(members):
            d = self.defs[m][0]
            if self.parent[m][0] in parted:
                parted.add(m)
            elif dominates(d.path, path):
                if self._parted(m, d, path, loc, m in on_chain, target if m in on_chain
                                or self.names.is_generated(m) else m):
                    parted.add(m)
                    continue
                op = d.stmt
                if op.fn is _arith.stop_gradient:
                    raise containers.stopped_write(self.back.get(m, m), loc)
                again = Op(op.target, op.fn, op.args, op.kwargs, loc)
                if self.parent[m][1] or m in on_chain:
                    out.append(again)
                    continue
                shared = self.names.temp()
                before.append(_sharing_test(op, shared, m, self.parent[m][0], self.found,
                                            loc))
                out.append(If(shared, [again], [], loc=loc))
            elif not all(dominates(d.path, r) for r in self.reads.get(m, [])):
                # read somewhere its own definition does not reach first: it may hold
                # the view from before the write
                raise errors.UnfollowableWrite(
                    f"{m}, a view of {root}, is defined where this write cannot reach it "
                    "(in another branch or loop); revsrc cannot follow the write",
                    loc=loc, hint=f"copy it ({m} = {m}.copy()) where it is defined")

    def _parted(self, m, d, path, loc, on_chain, shown):
        """Whether ``m``, a view or an alias made at ``d`` (which runs before the write
        at ``path``), no longer shares memory with what its base names at the write:
        its base is always assigned a new array between the two (``c = a; a = a + 1.0;
        <loop writing into a>``), so ``m`` is left as it is. False when its base is not
        assigned between them (``m`` is derived again after the write).

        Refused when the base may be assigned between them but need not be, or is made
        a view again, or ``m`` is on the way from the written variable up to the array
        (``on_chain``): the write would have to go into the array ``m`` holds, which
        no name reaches. In straight-line code `versions` gives each assignment its own
        name; in a loop (``c = a`` before it, ``a = a + c`` in it) the name cannot be
        split: on one iteration ``c`` is ``a``, on the next it is not. ``shown`` is the
        variable the message names."""
        base = self.parent[m][0]
        between = [b for b in self.defs.get(base, []) if _between(self.at, b.path, d.path, path)]
        if not between:
            return False
        if not on_chain and all(self._new_of(b.stmt, base) for b in between) and \
                any(dominates(d.path, b.path) and dominates(b.path, path) for b in between):
            return True
        b = between[0]
        name, base_ = self.back.get(shown, shown), self.back.get(base, base)
        made = self.defs[shown][0].stmt.loc
        made = f" (made at line {made.lineno})" if made is not None else ""
        again = f" (line {b.stmt.loc.lineno})" if b.stmt.loc is not None else ""
        raise errors.UnfollowableWrite(
            f"{name} shares memory with {base_}{made}, and {base_} is assigned again"
            f"{again} before this write runs (in a loop or a branch), so {name} may "
            f"no longer share memory with {base_} here; revsrc cannot follow the write",
            loc=loc,
            hint=f"make {name} a copy where it is made (.copy()), or give the new "
                 f"value of {base_} another name")

    def _new_of(self, s, base):
        """Whether ``s`` gives ``base`` a value that shares no memory with its old
        one: a new array, or one that may view only other arrays."""
        if not isinstance(s, Op):
            return False
        link = self._view_of(s)
        return link is None or not link[1] and s.fn is not operator.getitem and \
            all(self._root(a) != base for a in self._operands(s))

    def _always_view(self, d):
        return self._view_of(d)[1]

    def _ordered(self, members):
        """Members in order of definition (a view after what it views)."""
        return sorted(members, key=lambda m: self.defs[m][0].path)

    def _apply(self, stmts):
        out = []
        for s in stmts:
            rep = self.plan.get(id(s))
            if rep is not None:
                out.extend(rep)
                continue
            if isinstance(s, Op) and s.fn in INPLACE:   # on a number: x = x op y
                out.extend(self._computed(s, s.target))
                continue
            if isinstance(s, Op) and _on_number(s, self.found, self.numbers):
                continue
            # a while's test body too: _scan planned the writes there
            out.append(ir.map_children(s, self._apply))
        return out


def _sharing_test(op, shared, m, base, found, loc):
    """``shared = <whether m, made by op, shares base's memory>``: for ``base[i]`` with
    ints alone, `inplace.item_view`; for ``base[index]`` with an index known only when
    it runs, `inplace.index_view` (JAX's twin reads basic indexing from the rank);
    else `inplace.shares`."""
    if item_read(op, found):
        return Op(shared, inplace.item_view, (m, base), loc=loc)
    if isinstance(op, Op) and op.fn is operator.getitem and len(op.args) == 2:
        return Op(shared, inplace.index_view, (m, base, op.args[1]), loc=loc)
    return Op(shared, inplace.shares, (m, base), loc=loc)

