"""Builtins in calls: those evaluated on static containers while transforming (len,
sorted, list, tuple, reversed, isinstance, sum...), ``min``/``max`` of items (with
``key=``: the first item of the sequence sorted by it), and ``zip(...)`` read once
where it is made (a part of `Lowerer`).
"""
from __future__ import annotations

import ast
import itertools
import math
import operator
import types

from ... import errors
from ...runtime import containers
from ...runtime.arith import max_ties, max_tied, min_ties, min_tied
from ...runtime.grads import elementwise as elementwise_grads
from ...core import ir
from ...core.ir import Const, Op
from .values import STATIC_NODES, Known, VDict, VRecord, VTuple, class_of, sequence, vtuple

# str methods folded on constants: pure, and their results are text
TEXT_METHODS = {"format", "upper", "lower", "strip", "lstrip", "rstrip", "replace", "join",
                 "title", "capitalize", "zfill", "ljust", "rjust", "center"}
# builtins that read an iterable argument once, through to its end
READ_ONCE = {"sorted", "dict", "list", "tuple", "sum", "min", "max"}
# builtins that call a special method of an object: (its name, the most operands)
_DUNDERS = {len: ("__len__", 1), abs: ("__abs__", 1), round: ("__round__", 2)}


class BuiltinLowering:
    """Builtins applied to static containers and sequences (a part of `Lowerer`)."""

    def _zipped(self, sc, node, out, into, loc):
        """``zip(a, b)`` read once where it is made (``sorted(zip(x, r))``, ``dict(zip(
        keys, x))``), of sequences known only at run time: the tuple of their tuples,
        whose rule transposes the adjoints back; each is made a list first, so that
        its adjoint has a place per item (a range's are zeros). A zip kept in a name is
        not taken: Python's is an iterator, empty once read."""
        args, kwargs = self._call_args(sc, node, out, loc)
        static = self._static_builtin(sc, zip, args, kwargs, out, loc)
        if static is not None or kwargs or not args:
            return static if static is not None else self._emit(out, zip, [
                self._materialize(a, out, loc) for a in args], into, loc, kwargs)
        args = [self._materialize(a, out, loc) for a in args]
        counts = [isinstance(a, str) and a in self.endless for a in args]
        items = [None if c else self._emit(out, list, [a], None, loc)
                 for a, c in zip(args, counts)]
        if any(counts) and not all(counts):
            # zip(count(), xs): as many of the count's items as the shortest other has
            lengths = [self._emit(out, len, [i], None, loc) for i in items if i is not None]
            n = lengths[0] if len(lengths) == 1 else self._emit(out, min, lengths, None, loc)
            items = [self._emit(out, list, [self._emit(out, itertools.islice, [a, n], None,
                                                       loc)], None, loc) if i is None else i
                     for a, i in zip(args, items)]
        return self._emit(out, containers.unzip,
                          [self._emit(out, ir.make_list, items, None, loc)], into, loc)

    def _enumerated(self, sc, node, out, into, loc):
        """``enumerate(xs[, start])`` read once where it is made (``list(enumerate(
        xs))``, ``sorted(enumerate(xs), key=...)``), of a sequence known only at run
        time: ``zip(range(start, start + len(xs)), xs)`` read once (`_zipped`); None
        for a form this does not take (the call is then lowered as any other)."""
        args, kwargs = self._call_args(sc, node, out, loc)
        static = self._static_builtin(sc, enumerate, args, kwargs, out, loc)
        if static is not None:
            return static
        start = dict(kwargs).get("start", args[1] if len(args) == 2 else Const(0))
        if not args or len(args) > 2 or any(k != "start" for k, _ in kwargs) or \
                (len(args) == 2 and kwargs):
            return None
        items = self._emit(out, list, [self._materialize(args[0], out, loc)], None, loc)
        stop = self._emit(out, operator.add,
                          (start, self._emit(out, len, [items], None, loc)), None, loc)
        indices = self._emit(out, list, [self._emit(out, range, [start, stop], None, loc)],
                             None, loc)
        return self._emit(out, containers.unzip,
                          [self._emit(out, ir.make_list, [indices, items], None, loc)],
                          into, loc)

    def _static_builtin(self, sc, fn, args, kwargs, out, loc):
        """Builtins applied to static containers, evaluated when transforming
        (len, sorted, list, tuple, reversed, isinstance, sum...); None otherwise."""
        if fn in (float, int) and len(args) == 1 and not kwargs and \
                isinstance(args[0], Const) and type(args[0].value) is str:
            try:     # float("inf"), float("nan"): a constant (a bad one raises as it runs)
                return Const(fn(args[0].value))
            except ValueError:
                return None
        if not args or not isinstance(fn, types.BuiltinFunctionType) and fn not in (
                list, tuple, dict, reversed, enumerate, zip, sorted):
            if fn is dict and not args:
                return VDict([k for k, _ in kwargs],
                             [self._snapshot_deep(v, out, loc) for _, v in kwargs], owned=True)
            return None
        a = args[0]
        if fn is isinstance and len(args) == 2 and isinstance(a, STATIC_NODES + (Const,)):
            classes = args[1]
            classes = classes.value if isinstance(classes, Const) else \
                classes.value if isinstance(classes, Known) else None
            if classes is None:
                return None
            try:
                return Const(issubclass(type(a.value) if isinstance(a, Const) else
                                        class_of(a), classes))
            except TypeError:
                return None
        if fn in (getattr, hasattr) and isinstance(a, Known) and 2 <= len(args) <= 3 and \
                not kwargs and isinstance(args[1], Const) and type(args[1].value) is str:
            # a module's (class's, function's) attribute by a constant name: known now
            # (version-compatibility code: hasattr(np, "trapezoid"))
            name = args[1].value
            if fn is hasattr:
                return Const(hasattr(a.value, name)) if len(args) == 2 else None
            if len(args) == 3 and not hasattr(a.value, name):
                return args[2]
            return self._known_attribute(a.value, name, out, None, loc)
        if not isinstance(a, STATIC_NODES) or kwargs and fn is not sorted:
            return None
        if fn in _DUNDERS and len(args) <= _DUNDERS[fn][1]:
            # an object of the user's class with __len__, __abs__, __round__: Python calls it
            got = self._dunder_call(sc, a, _DUNDERS[fn][0], list(args[1:]), out, None, loc)
            if got is not None:
                return got
            if fn is not len and isinstance(a, VRecord):
                raise errors.StaticValueError(
                    f"{class_of(a).__name__} has no {_DUNDERS[fn][0]} method, which "
                    f"{fn.__name__}() calls", loc=loc)
        seq = sequence(a)
        if fn is len and len(args) == 1:
            return Const(len(seq))
        if fn in (list, tuple) and len(args) == 1:
            return vtuple(seq, "list" if fn is list else "tuple")
        if fn is reversed and len(args) == 1:
            return vtuple(seq[::-1])
        if fn is dict and len(args) == 1 and isinstance(a, VDict):
            return VDict(a.keys, a.values, owned=True)
        if fn is sorted and len(args) == 1:
            if not all(isinstance(x, Const) for x in seq):
                return None
            order = sorted(range(len(seq)), key=lambda i: seq[i].value,
                           reverse=bool(dict(kwargs).get("reverse", Const(False)).value))
            if set(dict(kwargs)) - {"reverse"}:
                return None
            return vtuple([seq[i] for i in order], "list")
        if fn is enumerate and len(args) == 1:
            return vtuple([VTuple((Const(i), x)) for i, x in enumerate(seq)])
        if fn is zip and all(isinstance(x, STATIC_NODES) for x in args):
            return vtuple([VTuple(xs) for xs in zip(*(sequence(x) for x in args))])
        if fn is sum and len(args) == 1:
            acc = Const(0)
            for x in seq:
                acc = self._emit(out, operator.add, (acc, self._materialize(x, out, loc)),
                                 None, loc)
            return acc
        if fn in (max, min) and len(args) == 1 and seq:
            return self._extremum(fn, [self._materialize(x, out, loc) for x in seq], out,
                                  None, loc)
        return None

    def _builtin_call(self, fn, args, kwargs, out, into, loc):
        if fn in (max, min) and args and [k for k, _ in kwargs] == ["key"]:
            # the first item of the sequence sorted by its key, as min and max pick it
            # (sorted is stable, also reversed: the first of equal keys comes first)
            seq = args[0] if len(args) == 1 else self._emit(out, ir.make_list, args, None, loc)
            ordered = self._emit(out, sorted, [seq], None, loc,
                                 [kwargs[0], ("reverse", Const(fn is max))])
            return self._emit(out, operator.getitem, [ordered, Const(0)], into, loc)
        if fn in (max, min) and not kwargs:
            if len(args) == 1:
                return self._extremum_of_sequence(fn, args[0], out, into, loc)
            return self._extremum(fn, args, out, into, loc)
        if fn is math.hypot and len(args) != 2 and not kwargs:
            # of other than two coordinates: one call on their tuple
            coords = self._emit(out, ir.make_tuple, args, None, loc)
            return self._emit(out, elementwise_grads.hypot_of, [coords], into, loc)
        if fn is sum and len(args) == 1 and not kwargs:
            return None
        if type(getattr(fn, "__self__", None)) is str and fn.__name__ in TEXT_METHODS and \
                all(isinstance(v, Const) for v in args + [v for _, v in kwargs]):
            # text of constants ("{}_{}".format(name, i) in a loop over constants)
            return Const(fn(*[a.value for a in args], **{k: v.value for k, v in kwargs}))
        if fn is slice and not kwargs and all(isinstance(a, Const) for a in args):
            return Const(slice(*[a.value for a in args]))    # of constants: a constant
        if fn is str and len(args) == 1 and not kwargs and isinstance(args[0], Const) and \
                type(args[0].value) in (str, int, bool):
            return Const(str(args[0].value))    # a key made of a constant: "h" + str(i)
        if fn is float and len(args) == 1:
            return self._emit(out, float, args, into, loc)
        return None

    def _extremum_of_sequence(self, fn, seq, out, into, loc):
        """``max(seq)``/``min(seq)``: of a list written out, the items one by one (as
        ``max(a, b, c)``); of any other sequence, the item it picks."""
        items = self._literal_items(seq, out)
        if items is not None and len(items) >= 2:
            # the list was made for this call only: its items are the arguments
            out[:] = [s for s in out if not (isinstance(s, Op) and s.target == seq)]
            return self._extremum(fn, items, out, into, loc)
        pick = containers.max_of if fn is max else containers.min_of
        return self._emit(out, pick, (seq,), into, loc)

    def _extremum(self, fn, items, out, into, loc):
        """``max(a, b, c, ...)``/``min(...)`` of the items written out, two at a time as
        Python compares them (the first of equal items, x where a NaN is compared): from
        the third item on by `max_tied`, which counts the items tied with the greatest so
        far, so that a tie's derivative is split equally among all of them."""
        if len(items) == 1:
            return items[0]
        tied, count = (max_tied, max_ties) if fn is max else (min_tied, min_ties)
        n = len(items)
        acc = self._emit(out, fn, tuple(items[:2]), into if n == 2 else None, loc)
        ties = Const(1.0)      # the items before the second equal to the first: itself
        for j in range(1, n - 1):
            # (the items up to j equal to acc, the greatest of them)
            ties = self._emit(out, count, (items[0] if j == 1 else prev, items[j], ties),
                              None, loc)
            prev = acc
            acc = self._emit(out, tied, (acc, items[j + 1], ties),
                             into if j == n - 2 else None, loc)
        return acc

    def _literal_items(self, operand, out):
        """The items of ``operand`` when it is a list or a tuple just built (a temporary
        made by the last statements), else None."""
        if not (isinstance(operand, str) and self.names.is_temp(operand)):
            return None
        for s in reversed(out[-64:]):
            if isinstance(s, Op) and s.target == operand:
                if s.fn in (ir.make_list, ir.make_tuple):
                    return list(s.args)
                return None
        return None



def getter_access(getter, node, loc):
    """The expression ``operator.itemgetter(k1, k2...)(obj)`` or ``attrgetter("a.b")(obj)``
    (``node``, its call) reads, as written out: ``obj[k1]``, ``(obj[k1], obj[k2])``,
    ``obj.a.b``; the getter was made when transforming, from constants."""
    if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
        raise errors.StaticValueError(
            f"{type(getter).__name__} takes exactly one argument, the object to read",
            loc=loc)
    keys = getter.__reduce__()[1]
    reads = []
    for key in keys:
        if isinstance(getter, operator.itemgetter):
            read = ast.Subscript(value=node.args[0], slice=ast.Constant(key), ctx=ast.Load())
        else:
            read = node.args[0]
            for attr in key.split("."):
                read = ast.Attribute(value=read, attr=attr, ctx=ast.Load())
        reads.append(read)
    made = reads[0] if len(reads) == 1 else ast.Tuple(elts=reads, ctx=ast.Load())
    for n in ast.walk(made):
        if not hasattr(n, "lineno"):
            ast.copy_location(n, node)
    return made
