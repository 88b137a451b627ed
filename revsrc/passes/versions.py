"""One name per assignment, where the function's own body makes that plain.

The writes through views and aliases (revsrc/passes/views.py) read the alias structure
off each variable's one definition: ``D = A * 1.0`` ... ``D = B * 1.0`` are two
arrays, and a write through a view of the first must not reach the second. This pass
gives each such assignment its own name before the writes are followed, and `apart`
gives the user's names back after, keeping apart the versions that live at once.
"""
from __future__ import annotations

import re

from . import containers
from .. import errors
from ..core import ir
from ..core.ir import Block, For, Op, SetItem, While
from ..core.ops import INPLACE


def spelled(exc):
    """The refusal ``exc`` naming each variable as the user spells it: ``t@2``, the
    version of ``t`` a second assignment makes (`versions`), is ``t``."""
    def spell(text):
        return text if text is None else re.sub(r"(\w)@\d+", r"\1", text)
    out = errors.copied(exc)
    errors.RevsrcError.__init__(out, spell(exc.message), hint=spell(exc.hint))
    out.filename, out.lineno, out.col, out.line = exc.filename, exc.lineno, exc.col, exc.line
    out.args = (out._render(),)
    return out


def through(target, root):
    """' (through y)' for a write that reaches ``root`` through ``target``, as the user
    spells it; '' for ``root`` itself; revsrc's temporaries (``_t4``) are 'a view of it'."""
    t = target.partition("@")[0]
    t = "a view of it" if t in (root.partition("@")[0], "") or t[0] == "_" else t
    return "" if target == root else f" (through {t})"


def user_names(names, among, but):
    """The user's variables among the names ``among`` (versions as their variable, no
    temporaries), but ``but``'s, for a message."""
    return sorted({n.split("@")[0] for n in among if not names.is_generated(n)}
                  - {but.split("@")[0]})


def apart(body, back, names):
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


def fused_results(body, keep):
    """``body`` with ``t = op(...); x = t`` made ``x = op(...)`` where ``t`` is assigned
    and read there alone and is not in ``keep`` (the parameters and what the function
    returns): an inlined helper's result (``helper_ret``) bound to the caller's name.
    ``x`` is then the new array ``op`` makes, not an alias of another variable, and a
    write into it after ``x`` was assigned elsewhere too is followed."""
    writes, reads, written = {}, {}, set()
    for st in ir.walk(body):
        for n in ir.writes(st):
            writes[n] = writes.get(n, 0) + 1
        for n in ir.reads(st):
            reads[n] = reads.get(n, 0) + 1
        if isinstance(st, SetItem) or (isinstance(st, Op) and st.fn in INPLACE):
            written.add(st.target)        # (only arrays written in place need it)
    once = {n for n, k in writes.items() if k == 1 and reads.get(n) == 1 and n not in keep}
    return _fuse(body, once, written) if once and written else body


def _fuse(stmts, once, written):
    out = []
    for st in stmts:
        prev = out[-1] if out else None
        if isinstance(st, Op) and st.fn is ir.copy and len(st.args) == 1 and \
                st.target in written and st.args[0] in once and type(prev) is Op and \
                prev.target == st.args[0]:
            out[-1] = ir.replace(prev, target=st.target)
            continue
        out.append(ir.map_children(st, lambda block: _fuse(block, once, written)))
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
