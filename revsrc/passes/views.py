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

Writes that reach an argument, a global or a closure value change the caller's data:
they are refused (E403). Writes whose target revsrc cannot follow statically (an
alias defined in only one branch, a view whose definition is not in reach) are refused
too (E404): never a gradient of a program other than the one that runs.

``x += y`` on a number is an ordinary assignment; on an array with no alias it is
computed as ``x = x + y`` (the same values, and nothing else can see the difference).
"""
from __future__ import annotations

import operator

import numpy as np

from . import containers
from .. import errors, primitives, runtime
from ..core import ir, kinds
from ..core.ir import Block, Const, For, Op, SetItem, While, dominates
from ..core.ops import INPLACE
from ..runtime import arith as _arith

_MUTABLE = (kinds.ARRAY, kinds.ANY, kinds.LIST, kinds.DICT)


def _basic_index(index, found):
    """Whether ``x[index]`` on an array is basic indexing (a view): True, False (an
    integer or boolean array: a copy), or None when only the run knows (a slice or a
    tuple computed in the function)."""
    if isinstance(index, Const):
        items = index.value if type(index.value) is tuple else (index.value,)
        return all(type(i) in (int, slice, type(None)) or i is Ellipsis for i in items)
    k = found.get(index)
    if k in (kinds.INT, kinds.BOOL):
        return True
    if k in (kinds.ARRAY, kinds.LIST) or isinstance(k, tuple) and k and k[0] == kinds.ARRAY:
        return False
    return None


class _Def:
    """The unique definition of a variable that can hold a mutable value."""

    def __init__(self, stmt, path):
        self.stmt = stmt
        self.path = path     # ((id(list), index), ...) from the body down to the statement


def resolve(params, body, found, names, back=None):
    """``body`` with every write through a view or an alias made explicit. ``body``
    and ``found`` (its kinds) may have versioned names (`versions`); ``back`` gives
    the user's names again."""
    out = _Resolver(params, found, names, back).run(body)
    if back:
        back = _apart(out, back, names)
        out = ir.rename(out, lambda n: back.get(n, n))
    return out


def _apart(body, back, names):
    """``back`` (version -> the user's name), but a version assigned while an earlier
    value of its variable is still used gets a name of its own: in ``b = a;
    a = a + 1.0; b[0] = x`` the write goes into the first ``a`` through ``b``, beside
    the second. (The first version is the user's name itself.)"""
    first, last = {}, {}
    users = set(back.values())
    for i, s in enumerate(body):
        for t in ir.walk([s]):
            for n in list(ir.writes(t)) + list(ir.reads(t)):
                if n in back or n in users:
                    first.setdefault(n, i)
                    last[n] = i
    out = dict(back)
    for user in users:
        holder = user if user in first else None     # the version holding ``user``
        for v in sorted((n for n in back if back[n] == user and n in first),
                        key=lambda n: first[n]):
            if holder is not None and last[holder] > first[v]:
                out[v] = names.version(user)     # the user's name is still in use
            else:
                holder = v
    return out


def versions(params, body):
    """See `_versions`."""
    return _versions(params, body)


def _versions(params, body):
    """``body`` with each variable assigned more than once given one name per
    assignment, where that is plain from the function's own body: assignments that
    are statements of it (``D = A * 1.0`` ... ``D = B * 1.0``), or one assignment at
    the top of a loop's body that nothing in the loop reads before (``row`` of two
    ``for row in D:`` loops). Each name then has one definition, and the alias
    structure holds at every write. Returns the body and the way back to the user's
    names (the values are the same: the versions never live at once)."""
    if any(isinstance(s, Block) for s in ir.walk(body)):
        return body, {}

    def rebinds(t):   # x = ..., for x in ...: not x[i] = ..., x += ... nor xs.append(v)
        return not isinstance(t, SetItem) and not (isinstance(t, Op) and (
            t.fn in INPLACE or t.fn in containers.IN_PLACE))

    top = {}
    local = {}        # id(loop) -> variables it assigns once, at the top, before any read
    others = set()    # variables assigned in nested bodies in any other way
    for s in body:
        if rebinds(s):
            for w in ir.writes(s):
                top[w] = top.get(w, 0) + 1
        if not ir.children(s):
            continue
        mine = _loop_locals(s, rebinds)
        local[id(s)] = mine
        for child in ir.children(s):
            for t in ir.walk(child):
                if rebinds(t):
                    others.update(w for w in ir.writes(t) if w not in mine)
    counts = dict(top)
    for mine in local.values():
        for v in mine:
            counts[v] = counts.get(v, 0) + 1
    many = {v for v, n in counts.items() if n + (v in params) > 1 and v not in others}
    if not many:
        return body, {}
    cur = {v: v for v in many}
    count = {v: 1 if v in params else 0 for v in many}
    back = {}

    def new_version(v):
        count[v] += 1
        name = v if count[v] == 1 else f"{v}@{count[v]}"
        cur[v] = name
        back[name] = v
        return name

    def read(n):
        return cur.get(n, n) if isinstance(n, str) else n

    out = []
    for st in body:
        if isinstance(st, Op) and st.target in many and rebinds(st):
            args = tuple(read(a) for a in st.args)
            kwargs = tuple((k, read(v)) for k, v in st.kwargs)
            out.append(Op(new_version(st.target), st.fn, args, kwargs, st.loc))
        elif isinstance(st, (For, While)) and (
                local.get(id(st), set()) & many or (isinstance(st, For) and st.var in many)):
            if isinstance(st, For):
                start, stop, step = read(st.start), read(st.stop), read(st.step)
                var = new_version(st.var) if st.var in many else st.var
            else:
                test_body = ir.rename(st.test_body, read)
                test = read(st.test)
            for v in sorted(local[id(st)] & many):
                new_version(v)
            loop_body = ir.rename(st.body, read)
            if isinstance(st, For):
                out.append(For(var, start, stop, step, loop_body, loc=st.loc))
            else:
                out.append(While(test_body, test, loop_body, loc=st.loc))
        else:
            out.extend(ir.rename([st], read))
    back = {k: v for k, v in back.items() if k != v}
    return out, back


def _loop_locals(loop, rebinds):
    """Variables a loop assigns exactly once, by a statement of its own body that no
    read of them in the loop comes before (so each iteration's value is its own)."""
    if not isinstance(loop, (For, While)):
        return set()
    defs = {}
    for t in ir.walk(loop.body):
        if rebinds(t):
            for w in ir.writes(t):
                defs[w] = defs.get(w, 0) + 1
    header = set(ir.reads(loop))
    if isinstance(loop, While):
        for t in ir.walk(loop.test_body):
            header.update(ir.reads(t))
            header.update(ir.writes(t))
    out = set()
    for i, t in enumerate(loop.body):
        if not (isinstance(t, Op) and t.target is not None and rebinds(t)):
            continue
        v = t.target
        if defs.get(v) != 1 or v in header or v in t.args or \
                any(v == k for _, k in t.kwargs):
            continue
        if any(v in ir.reads(u) or v in ir.writes(u)
               for u in ir.walk(loop.body[:i])):
            continue
        out.add(v)
    return out


class _Resolver:
    def __init__(self, params, found, names, back=None):
        self.params = set(params)
        self.found = found
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
        self._scan(body, ())
        self.plan = {}       # id(write stmt) -> replacement statements
        if not self.writes:
            return self._apply(body)
        self.parent = {}     # var -> (operand it views, its defining Op, always a view)
        for v, ds in self.defs.items():
            if len(ds) == 1:
                link = self._view_of(ds[0].stmt)
                if link is not None:
                    self.parent[v] = link
        for stmt, path in self.writes:
            self.plan[id(stmt)] = self._rewrite(stmt, path)
        return self._apply(body)

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
        return isinstance(v, str) and self.found.get(v) in _MUTABLE

    def _view_of(self, s):
        """(base operand, always a view?) when ``s`` makes a view or an alias of an
        operand that can hold a mutable value; None for a fresh value."""
        if not isinstance(s, Op) or not s.args or not self._mutable(s.target):
            return None
        a = s.args[0]
        if not (isinstance(a, str) and self._mutable(a)):
            return None
        if s.fn is ir.copy:
            return a, True
        if s.fn is operator.getitem:
            k = self.found.get(a)
            if k == kinds.ARRAY:
                basic = _basic_index(s.args[1], self.found)
                return None if basic is False else (a, basic is True)
            return a, False   # an item of a list, a tuple or a dict: may be shared
        view = primitives.fact(s.fn, "view")   # "always", "maybe" or None
        if view == "always":
            return a, True
        if s.fn is _arith.astype:
            copy = s.args[2] if len(s.args) > 2 else dict(s.kwargs).get("copy", Const(True))
            if isinstance(copy, Const) and copy.value:
                return None       # astype copies unless told it need not
        if view == "maybe":       # a write through one is checked when it runs
            return a, False
        return None

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
        if isinstance(s, Op) and self.found.get(target) == kinds.ANY:
            # a number (rebound) or a shared array (changed in place): known when it runs
            return [Op(None, runtime.check_immutable, (target, Const(loc)), loc=loc),
                    Op(s.target, INPLACE[s.fn], s.args, s.kwargs, loc)]
        root = self._owner(target, loc)
        # an alias made only after the write (``_ret = s`` after ``s += y`` in a loop)
        # never sees it: with no other, x op= y is x = x op y (x may be a float then)
        members = [m for m in self._members(root)
                   if m != root and not self._only_after(self.defs[m][0].path, path)]
        if not members:
            if isinstance(s, SetItem):
                return [s]
            # x op= y with no alias: the same values as x = x op y
            return [Op(s.target, INPLACE[s.fn], s.args, s.kwargs, loc)]
        self._check_members(target, root, members, loc)
        chain = []          # (variable, parent operand, defining Op) from target to root
        v = target
        while v != root:
            base, _ = self.parent[v]
            chain.append((v, base, self.defs[v][0].stmt))
            v = base
        out = self._write_up(s, root, chain)
        self._derive_again(members, chain, s, root, path, out)
        return out

    def _owner(self, target, loc):
        """The array that owns the memory a write into ``target`` changes, refused
        when that is the caller's or depends on the path taken."""
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
        if root in self.external or (root not in self.defs and root not in self.params):
            raise errors.MutatesArgument(
                f"this writes into {root}, which the caller owns (through {target})"
                if root != target else f"this writes into {target}, which the caller owns",
                loc=loc, hint=f"copy it first: {root} = {root}.copy()")
        return root

    def _check_members(self, target, root, members, loc):
        """Refuse a write into ``target`` whose sharers (``members``, views and aliases
        of ``root``) cannot all be followed."""
        if self.found.get(root) != kinds.ARRAY:
            raise errors.UnfollowableWrite(
                f"{target} shares its value with {', '.join(sorted(set(members) | {root} - {target}))}, "
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
        if isinstance(s, Op):
            new = self.names.temp()
            out.append(Op(new, INPLACE[s.fn], s.args, s.kwargs, loc))
        elif chain:
            new = self.names.temp()
            out.append(Op(new, np.array, (s.target,), loc=loc))
            out.append(SetItem(new, s.index, s.value, loc=loc))
        else:
            out.append(s)   # a write into the root itself
            new = None
        for var, base, d in chain:
            if not self._always_view(d):
                out.append(Op(None, runtime.check_view, (var, base, Const(loc)), loc=loc))
            new = self._write_back(d, base, new, loc, out)
        if new is not None and root not in [c[0] for c in chain]:
            if new != root:
                out.append(SetItem(root, Const(Ellipsis), new, loc=loc))
        return out

    def _derive_again(self, members, chain, s, root, path, out):
        """Append to ``out`` the definitions of the views and aliases of ``root``
        (``members``) made before the write ``s`` at ``path``, so that later reads
        see the new values; refused for one that may hold a view from before it."""
        target, loc = s.target, s.loc
        on_chain = {c[0] for c in chain}
        parted = set()      # no longer views of the array written (their base was rebound)
        for m in self._ordered(members):
            d = self.defs[m][0]
            if self.parent[m][0] in parted:
                parted.add(m)
            elif dominates(d.path, path):
                if self._parted(m, d, path, loc, m in on_chain, target if m in on_chain
                                else m):
                    parted.add(m)
                    continue
                op = d.stmt
                out.append(Op(op.target, op.fn, op.args, op.kwargs, loc))
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
        between = [b for b in self.defs.get(base, []) if self._between(b.path, d.path, path)]
        if not between:
            return False
        if not on_chain and all(isinstance(b.stmt, Op) and self._view_of(b.stmt) is None
                                for b in between) and \
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

    def _between(self, b, d, w):
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
            s = self.at[w[:level]]
            if isinstance(s, (For, While)):
                return True
            if len(b) <= level or b[level][0] != w[level][0]:
                return False  # the other branch of an if
            if b[level][1] != w[level][1]:
                return b[level][1] < w[level][1]
        return False

    def _only_after(self, d, w):
        """Whether the statement at path ``d`` runs only after the one at ``w``: later
        in a statement list holding both, with no loop around them."""
        k = 0
        while k < min(len(d), len(w)) and d[k] == w[k]:
            k += 1
        if k == min(len(d), len(w)) or d[k][0] != w[k][0] or d[k][1] < w[k][1]:
            return False
        return not any(isinstance(self.at[w[:level]], (For, While))
                       for level in range(1, k + 1))

    def _always_view(self, d):
        return self._view_of(d)[1]

    def _write_back(self, d, base, new, loc, out):
        """Statements writing ``new`` (the new value of ``d``'s target) into ``base``;
        returns the operand holding ``base``'s new value (``base`` itself, in place)."""
        fn = d.fn
        if fn is ir.copy or fn in (np.asarray, np.asanyarray, np.ascontiguousarray):
            out.append(SetItem(base, Const(Ellipsis), new, loc=loc))
        elif fn is operator.getitem:
            out.append(SetItem(base, d.args[1], new, loc=loc))
        else:
            # a whole-array view: written back through the inverse of its layout
            t = self.names.temp()
            args = self._operand_tuple(d.args[1:], loc, out)
            pairs = [self._operand_tuple((Const(k), v), loc, out) for k, v in d.kwargs]
            kwargs = self._operand_tuple(pairs, loc, out)
            out.append(Op(t, runtime.view_back, (new, base, Const(fn), args, kwargs),
                          loc=loc))
            out.append(SetItem(base, Const(Ellipsis), t, loc=loc))
        return base

    def _operand_tuple(self, items, loc, out):
        """A tuple of the values of ``items`` (operands) as one operand: a constant when
        they all are (the view's shape, ``(3, -1)``), else built where the write is."""
        if all(isinstance(i, Const) for i in items):
            return Const(tuple(i.value for i in items))
        t = self.names.temp()
        out.append(Op(t, ir.make_tuple, tuple(items), loc=loc))
        return t

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
                s = Op(s.target, INPLACE[s.fn], s.args, s.kwargs, s.loc)
            # a while's test body too: _scan planned the writes there
            out.append(ir.map_children(s, self._apply))
        return out
