"""Lists and dicts built inside a differentiated function, as values.

The transformations read each assignment as defining one variable, and save a value
the adjoint needs by keeping a reference to it. A list changed in place would change
every saved reference, so every change to a list or a dict is made a new value:

    xs.append(v)      ->  xs = containers.append(xs, v)
    xs += ys          ->  xs = containers.extend(xs, ys)
    M[i] = v          ->  M = containers.set_item(M, i, v)
    xs + ys, xs * n   ->  containers.concat(xs, ys), containers.repeat(xs, n)

A list, once made, is never changed, so saving it costs one reference. This is right
only where nothing else holds the list that changes (Python would change that one
too): `rewrite_write` refuses a change to a list that another name, another list or
the caller also holds (E403, E404), and writes a change to an inner list
(``M[0][0] = v``) back into its outer list, which must have built it.

The adjoint of a list is one adjoint per item (an object array, see
``rules._helpers.pieces``); of a dict, a dict of one adjoint per key (`DictGrad`).
"""
from __future__ import annotations

import operator

import numpy as np

from .. import errors
from ..core import ir, kinds
from ..core.ir import Const, Op, SetItem


# ----- The operations the generated code calls ---------------------------------------

def append(xs, item):
    """``xs.append(item)``, as a new list."""
    _check_list(xs, "append")
    out = list(xs)
    out.append(item)
    return out


def extend(xs, items):
    """``xs.extend(items)`` and ``xs += items``, as a new list."""
    _check_list(xs, "extend")
    out = list(xs)
    out.extend(items)
    return out


def set_item(xs, index, value):
    """``xs[index] = value`` on a list or a dict, as a new one. A slice of a list must
    keep the list's length (revsrc follows each item by its position)."""
    if isinstance(xs, dict):
        out = dict(xs)
        out[index] = value
        return out
    _check_list(xs, "item assignment")
    out = list(xs)
    out[index] = value
    if len(out) != len(xs):
        raise errors.UnfollowableWrite(
            "a slice assignment that changes the length of a list is not supported",
            hint="build the new list: xs = xs[:i] + new + xs[j:]")
    return out


def concat(a, b):
    """``a + b`` on lists or tuples."""
    if not (type(a) in (list, tuple) and type(b) is type(a)):
        _not_sequences("+", a, b)
    return a + b


def repeat(seq, n):
    """``seq * n`` (or ``n * seq``) on a list or a tuple."""
    if type(seq) not in (list, tuple):
        _not_sequences("*", seq, n)
    return seq * n


def _not_sequences(op, a, b):
    raise errors.UnfollowableWrite(
        f"{type(a).__name__} {op} {type(b).__name__}: revsrc read this {op} as joining lists "
        "or tuples (where this name held one), but here it does not hold one",
        hint="give the list and the value made from it different names")


def _sort_order(items, key, reverse):
    """The positions of ``items`` in the order ``sorted`` puts them (stable, as it is)."""
    if key is None:
        return sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    return sorted(range(len(items)), key=lambda i: key(items[i]), reverse=reverse)


def sorted_grad(g, iterable, key=None, reverse=False):
    """The adjoint of ``iterable`` in ``sorted(iterable, key=..., reverse=...)``: ``g``
    put back in the order the items came from."""
    from ..runtime import grads as _helpers
    if isinstance(iterable, dict):
        return _helpers.zero_like(iterable)     # its keys carry no gradient
    items = list(iterable)
    order = _sort_order(items, key, reverse)
    out = _helpers.pieces([_helpers.zero_like(item) for item in items])
    if np.ndim(g) != 0:
        for j, i in enumerate(order):
            out[i] = out[i] + g[j]
    return as_items(out, iterable)


def _picked_index(seq, ans):
    for i, item in enumerate(seq):
        if item is ans:
            return i
    return next(k for k, item in enumerate(seq) if item == ans)


def picked_tangent(t, seq, ans):
    """The tangent of ``max(seq)``/``min(seq)``: that of the item picked."""
    return t[_picked_index(seq, ans)]


def sorted_tangent(t, iterable, key=None, reverse=False):
    """The tangent of ``sorted(iterable)``: the items' tangents in sorted order."""
    if isinstance(iterable, dict):
        return [0.0] * len(iterable)
    return [t[i] for i in _sort_order(list(iterable), key, reverse)]


# ----- Dicts' methods -----

def dict_items(d):
    """``d.items()``, as a list of pairs."""
    return list(d.items())


def dict_values(d):
    """``d.values()``, as a list."""
    return list(d.values())


def dict_keys(d):
    """``d.keys()``, as a list."""
    return list(d.keys())


def dict_get(d, key, default=None):
    """``d.get(key, default)``."""
    return d.get(key, default)


DICT_METHODS = {"items": dict_items, "values": dict_values, "keys": dict_keys,
                "get": dict_get}


def dict_of_grad(g, source):
    """The adjoint of ``source`` in ``dict(source)``: a dict's adjoint as it is; of a
    list of (key, value) pairs, each pair's value's."""
    from ..runtime import grads as _helpers
    if isinstance(source, dict) or np.ndim(g) != 0 and not isinstance(g, dict):
        return g
    if np.ndim(g) == 0 and not isinstance(g, dict):
        return g
    return _helpers.pieces([_helpers.pieces([0.0, g.get(k, 0.0)]) for k, _ in source])


def dict_tangent(t, source):
    """The tangent of ``dict(source)``: keyed as the dict is (the tangent of a list of
    pairs has no keys of its own)."""
    if isinstance(source, dict):
        return dict(t)
    return {k: tp[1] for (k, _), tp in zip(source, t)}


def items_grad(g, d):
    """The adjoint of ``d`` in ``d.items()``: the adjoint of each pair's value."""
    if np.ndim(g) == 0:
        return g
    return DictGrad({k: item_grad(p, 1) for k, p in zip(d, g)})


def values_grad(g, d):
    """The adjoint of ``d`` in ``d.values()``."""
    if np.ndim(g) == 0:
        return g
    return DictGrad(zip(d, g))


def get_grad(g, d, key):
    """The adjoint of ``d`` in ``d.get(key, default)``."""
    from ..runtime import grads as _helpers
    if key in d:
        return dict_grad_of(d, key, g)
    return _helpers.zero_like(d)


def get_default_grad(g, d, key):
    """The adjoint of ``default`` in ``d.get(key, default)``."""
    return 0.0 * g if key in d else g


def unzip(seq):
    """``tuple(zip(*seq))``: ``zip(*pairs)`` where the number of pairs is known only at
    run time."""
    return tuple(zip(*seq))


def check_unpack(seq, n):
    """Python's error for ``a, b = seq`` when ``seq`` (a value known only at run time:
    an array, a list argument, ``zip(*pairs)``) has not exactly ``n`` items; the
    generated code then reads the items by index. Anything whose items are not read by
    position (a dict unpacks its keys, a set or an iterator has no positions) is refused."""
    if not (isinstance(seq, (list, tuple)) or
            (isinstance(seq, np.ndarray) and seq.ndim > 0)):
        raise errors.UnsupportedValue(
            f"unpacking a {type(seq).__name__} known only at run time: revsrc reads the "
            f"items of a list, a tuple or an array by position, and a "
            f"{type(seq).__name__}'s are not read that way",
            hint="unpack list(...) of it, or its values by name")
    k = len(seq)
    if k < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {k})")
    if k > n:
        raise ValueError(f"too many values to unpack (expected {n})")


def unzip_grad(g, seq):
    """The adjoint of ``seq`` in ``unzip(seq)``: item j of output i's adjoint is item i of
    item j's."""
    from ..runtime import grads as _helpers
    out = _helpers.pieces([_helpers.zero_like(item) for item in seq])
    if np.ndim(g) == 0:
        return out                   # a zero adjoint
    for i, col in enumerate(g):
        if np.ndim(col) == 0:
            continue                 # output i's adjoint is zero
        for j in range(len(col)):
            out[j][i] = out[j][i] + col[j]
    return as_items(out, seq)       # an array's rows: an array


def sequence_grad(g, iterable):
    """The adjoint of ``iterable`` in ``list(iterable)`` or ``tuple(iterable)``."""
    from ..runtime import grads as _helpers
    if isinstance(iterable, dict):
        return _helpers.zero_like(iterable)     # its keys carry no gradient
    return as_items(g, iterable)


# The fields of NumPy's named results (np.linalg.eigh, eig, svd, slogdet, qr), by
# position: a tangent or an adjoint of one is a plain tuple
RESULT_FIELDS = {"eigenvalues": 0, "eigenvectors": 1, "U": 0, "S": 1, "Vh": 2,
                 "sign": 0, "logabsdet": 1, "Q": 0, "R": 1}


def result_field(result, name):
    """``result.name`` of a named result (its item for a plain tuple)."""
    if type(result) is tuple:
        return result[RESULT_FIELDS[name]]
    return getattr(result, name)


def result_field_grad(g, result, name):
    """The adjoint of ``result`` in ``result.name``: ``g`` at the field's position."""
    from ..runtime import grads as _helpers
    out = _helpers.pieces([_helpers.zero_like(item) for item in result])
    i = RESULT_FIELDS[name]
    out[i] = out[i] + g
    return out


def max_of(seq):
    """``max(seq)`` of one sequence."""
    return max(seq)


def min_of(seq):
    """``min(seq)`` of one sequence."""
    return min(seq)


def picked_grad(g, seq, ans):
    """The adjoint of ``seq`` in ``max(seq)``/``min(seq)``: ``g`` at the item Python
    picked (the first extreme one), zero at the others."""
    from ..runtime import grads as _helpers
    out = _helpers.pieces([_helpers.zero_like(item) for item in seq])
    i = _picked_index(seq, ans)
    out[i] = out[i] + g
    if isinstance(seq, np.ndarray):
        return np.array(out.tolist(), dtype=float).reshape(np.shape(seq))
    return out


def key_at(d, position):
    """The key at ``position`` of the dict ``d`` (``for k in d`` walks them in order)."""
    for i, k in enumerate(d):
        if i == position:
            return k
    raise IndexError(position)


def _check_list(xs, what):
    if type(xs) is not list:
        raise errors.UnfollowableWrite(
            f"{what} on a {type(xs).__name__}: revsrc follows this change only on a list "
            "made in the function", hint="build a new value instead")


# ----- Their adjoints -------------------------------------------------------------------

class DictGrad(dict):
    """The adjoint of a dict: an adjoint per key. Adding two adds key by key (a key
    one lacks counts as zero); adding a number zero leaves it."""

    def __add__(self, other):
        if isinstance(other, dict):
            out = DictGrad(self)
            for k, v in other.items():
                out[k] = out[k] + v if k in out else v
            return out
        if np.ndim(other) == 0 and other == 0:
            return self
        return NotImplemented

    __radd__ = __add__


def item_grad(g, index):
    """``g[index]`` of the adjoint of a list, a tuple or a dict (0.0 for a zero
    adjoint, or a key the adjoint has not reached)."""
    if isinstance(g, dict):
        return g.get(index, 0.0)
    if np.ndim(g) == 0:
        return g
    return g[index]


def head_grad(g, n_tail):
    """The adjoint of ``xs`` in ``xs + tail``: all but the last ``n_tail`` items."""
    if np.ndim(g) == 0:
        return g
    return g[:len(g) - n_tail]


def tail_grad(g, n_tail):
    """The adjoint of ``tail`` in ``xs + tail``: its last ``n_tail`` items."""
    if np.ndim(g) == 0:
        return g
    return g[len(g) - n_tail:]


def as_items(g, seq):
    """``g`` (one adjoint per item) in the form of the sequence it is the adjoint of: an
    iterable given to ``extend`` may be an array, whose adjoint is an array."""
    if isinstance(seq, np.ndarray) and np.ndim(g) != 0:
        dtype = seq.dtype if seq.dtype.kind in "fc" else np.float64
        out = np.empty(seq.shape, dtype=dtype)
        for i, x in enumerate(g):
            out[i] = x
        return out
    return g


def repeat_grad(g, seq):
    """The adjoint of ``seq`` in ``seq * n``: each item's adjoints summed over copies."""
    from ..runtime import grads as _helpers
    if np.ndim(g) == 0:
        return g
    n = len(seq)
    out = _helpers.pieces([_helpers.zero_like(item) for item in seq])
    for k in range(0, len(g), max(n, 1)):
        out = out + g[k:k + n]
    return out


def set_item_grad(g, xs, index):
    """The adjoint of ``xs`` in ``set_item(xs, index, value)``: ``g`` with a zero at
    ``index`` (the old item there is gone)."""
    from ..runtime import grads as _helpers
    if np.ndim(g) == 0:
        return g
    if isinstance(xs, dict):
        out = DictGrad(g)
        out.pop(index, None)
        return out
    out = _helpers.pieces(list(g))
    if isinstance(index, slice):
        for i in range(*index.indices(len(xs))):
            out[i] = _helpers.zero_like(xs[i])
    else:
        out[index] = _helpers.zero_like(xs[index])
    return out


def value_grad(g, index):
    """The adjoint of ``value`` in ``set_item(xs, index, value)``."""
    if isinstance(g, dict):
        return g.get(index, 0.0)
    if np.ndim(g) == 0:
        return g
    return g[index]


def dict_grad_of(x, index, g):
    """The adjoint of ``x[index]`` for a dict ``x``: ``g`` at ``index``, a zero like each
    other value."""
    from ..runtime import grads as _helpers
    out = DictGrad({k: _helpers.zero_like(v) for k, v in x.items()})
    out[index] = out[index] + g
    return out


# ----- Kind-directed rewriting -------------------------------------------------------------

_SEQ = (kinds.LIST, kinds.TUPLE)

# list writes: the in-place form normalize.py writes, and the new value it computes
IN_PLACE = {}


def _in_place(fn):
    def write(*args):  # never called: revsrc/aliases.py rewrites it into ``fn``
        raise AssertionError(f"in-place {fn.__name__} reached the generated code")
    write.__name__ = f"{fn.__name__}_in_place"
    write.__qualname__ = write.__name__
    IN_PLACE[write] = fn
    return write


append_in_place = _in_place(append)
extend_in_place = _in_place(extend)
set_item_in_place = _in_place(set_item)


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
        from . import analysis
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


_MAYBE = (operator.add, operator.iadd, operator.mul, operator.imul)


# ----- Changes to lists and dicts, made new values (called by revsrc/aliases.py) -----------

def rewrite_write(r, s, path):
    """The statements replacing the in-place write ``s`` (``xs = fn(xs, ...)`` on a
    list or a dict), or a coded refusal. ``r`` is the alias resolver, which knows each
    variable's definitions and what it is a view, an alias or an item of."""
    target, loc = s.target, s.loc
    new_value = IN_PLACE[s.fn]
    # up from the written list: the names it has (copies) and the lists holding it
    walk = []            # (variable, "copy" or "item", what it is a copy or an item of, def)
    v = target
    seen = {v}
    while v in r.parent:
        base, _ = r.parent[v]
        d = r.defs[v][0].stmt
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
    for m, (base, _) in r.parent.items():
        if m in seen or base not in seen or r.defs[m][0].stmt.fn is not ir.copy:
            continue
        d = r.defs[m][0].path
        if _order(d) > _order(path) and _common_loop(r, d, path) is None:
            continue    # named so only after this change
        raise errors.UnfollowableWrite(
            f"{base} is also named {m}, and revsrc cannot follow a change to both "
            "names", loc=loc,
            hint=f"copy it where the second name is made: {m} = list({base})")
    # the objects changed: the written list and every list holding it on the way up
    changed = [target] + [base for var, how, base, d in walk if how == "item"][:-1]
    for v in dict.fromkeys(changed):
        _check_not_stored(r, v, path, loc)
    if any(how == "item" for _, how, _, _ in walk):
        _check_fresh_items(r, root, loc)
    out = []
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


_STORES = {ir.make_list: None, ir.make_tuple: None, ir.make_dict: None,
           append: (1,), append_in_place: (1,), set_item: (2,), set_item_in_place: (2,)}


def _stores_of(r, v):
    """Paths of the statements that put ``v`` itself into another container."""
    found = []
    for path, s in r.statements:
        if isinstance(s, Op) and s.fn in _STORES:
            positions = _STORES[s.fn]
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
