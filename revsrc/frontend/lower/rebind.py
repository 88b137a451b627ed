"""A name that holds a static container (a list, tuple or dict argument taken apart,
one made in the function) given a new value: ``w = np.asarray(w)``, ``p = (p[1], p[0])``,
``pt += (z,)``, ``p = {"a": 1.0} | p``.

The right side reads the container the name holds now, so it is lowered before the
name becomes a variable of the program. ``name op= value`` rebinds a tuple; on a list
or dict it is Python's change in place, refused where the caller's container or one
another name holds would change too.
"""
from __future__ import annotations

import operator

from ... import errors
from ...core import ir
from ...core.ir import Op
from ...core.ops import OF_BINARY
from .values import VDict, VTuple, describe_static, is_static_value

_SYMBOL = {operator.add: "+", operator.mul: "*", operator.or_: "|", operator.sub: "-"}


def rebind_static(lw, sc, target, value, out, loc):
    """``name = value`` where ``name`` held a static value and ``value`` (already
    lowered, perhaps from that value) is its new one."""
    if is_static_value(value):
        lw._bind_static(sc, target.id, value, out, loc, target)
        return
    value = lw._snapshot(lw._materialize(value, out, loc), out, loc)
    var = lw._store_name(sc, target.id, target)
    out.append(Op(var, ir.copy, (value,), loc=loc))


def merge_dicts(a, b):
    """``a | b`` of two dicts whose keys are known now (a dict argument taken apart, a
    literal): the merged dict, known now too (None unless both are such dicts: the
    program merges them, revsrc/passes/containers.py)."""
    if not (isinstance(a, VDict) and isinstance(b, VDict)):
        return None
    keys, values = list(a.keys), list(a.values)
    for k, v in zip(b.keys, b.values):
        if k in keys:
            values[keys.index(k)] = v
        else:
            keys.append(k)
            values.append(v)
    return VDict(keys, values, owned=True)


def augmented_static(lw, sc, node, op, out, loc):
    """``name op= value`` where ``name`` holds a static container. On a tuple it
    rebinds the name (``pt += (z,)``); on a list or dict it changes the container in
    place, as in Python: a dict made here merges a dict known now in place (every name
    holding it sees the change); otherwise the caller's container is refused (E403),
    one another name or container also holds is refused (E404), and any other is made
    a variable first and changed in place there (revsrc/passes/containers.py follows
    it)."""
    name = node.target.id
    cur = sc.env[name]
    rhs = lw._expr(sc, node.value, out)
    mutable = isinstance(cur, VDict) or (isinstance(cur, VTuple) and cur.seq == "list"
                                         and cur.cls is None)
    if not mutable:
        old = lw._materialize(cur, out, loc)
        new = lw._emit(out, op, (old, lw._materialize(rhs, out, loc)), None, loc)
        rebind_static(lw, sc, node.target, new, out, loc)
        return
    if isinstance(cur, VDict) and cur.owned and op is operator.or_ and \
            isinstance(rhs, VDict) and not (lw.cond_depth or lw.loop_depth):
        # a dict made here, merged with one known now: the static dict itself changes,
        # as every name holding it sees in Python
        if cur.placed:
            raise placed_dict(name, loc)
        merged = merge_dicts(cur, rhs)
        cur.keys = merged.keys
        cur.values = [v if is_static_value(v) else
                      lw._snapshot(lw._materialize(v, out, loc), out, loc)
                      for v in merged.values]
        return
    _check_alone(sc, name, cur, op, loc)
    value = lw._materialize(cur, out, loc)
    var = lw._store_name(sc, name, node.target)
    out.append(Op(var, ir.copy, (value,), loc=loc))
    out.append(Op(var, OF_BINARY[op], (var, lw._materialize(rhs, out, loc)), loc=loc))


def _check_alone(sc, name, cur, op, loc):
    """Refuse ``name op= ...`` in place on a static list or dict the caller gave
    (E403) or another name or container holds (E404)."""
    what = describe_static(cur)
    sym = _SYMBOL.get(op, "op")
    if any(_holds(v, cur) for v in sc.given.values()):
        raise errors.MutatesArgument(
            f"{name} {sym}= ... changes {what} in place, which the caller owns", loc=loc,
            hint=f"build a new one: {name} = {name} {sym} ...")
    if any(_holds(v, cur) for n, v in sc.env.items() if n != name):
        raise errors.UnfollowableWrite(
            f"{name} {sym}= ... changes {what} in place, which another name or container "
            "also holds; revsrc cannot follow the change there", loc=loc,
            hint=f"build a new one: {name} = {name} {sym} ...")


def _holds(v, cur):
    """Whether the static value ``v`` is ``cur`` or holds it as an item."""
    if v is cur:
        return True
    if isinstance(v, VTuple):
        return any(_holds(i, cur) for i in v)
    if isinstance(v, VDict):
        return any(_holds(i, cur) for i in v.values)
    return False


def placed_dict(name, loc):
    """The refusal of a change to a dict made in the function after it was built into
    a value of the program (``ds = [d]``): Python changes it there too."""
    return errors.UnfollowableWrite(
        f"{name} is changed here after it was put into a list, a tuple or a call, which "
        "holds the same dict and would change too; revsrc cannot follow the change there",
        loc=loc, hint=f"finish {name} before placing it, or place a copy: dict({name})")
