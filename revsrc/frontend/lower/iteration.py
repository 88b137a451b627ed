"""Iteration plans: ``for`` over sequences, ranges, and ``enumerate``, ``zip`` and
``reversed`` of them, nested in any order, as one loop over positions 0 .. n-1 (or
unrolled, where the items are known when transforming).
"""
from __future__ import annotations

import ast
import operator
import types

import numpy as np

from ... import errors
from ...core import ir
from ...core.ir import Const, For, If, Op
from ...runtime import guards
from .counting import COUNT, check_bounded, endless
from .scope import assigned_names
from .values import UNROLL_LIMIT, Known, VDict, VTuple, is_static

_getitem = operator.getitem
_add_int = operator.add
_sub_int = operator.sub
_mul_int = operator.mul


def _static_container(plan):
    return plan[0] == "seq" and isinstance(plan[1], (VTuple, VDict)) or \
        plan[0] in ("enumerate", "reversed") and _static_container(plan[1]) or \
        plan[0] == "zip" and any(_static_container(p) for p in plan[1])


class IterationLowering:
    """Loops over iteration plans (a part of `Lowerer`)."""

    def _for_sequence(self, sc, node, out, loc):
        """``for target in it`` over sequences, ranges, and enumerate, zip and reversed
        of them (nested in any order): a loop over positions 0 .. n-1."""
        plan = self._iteration(sc, node.iter, out, loc, assigned_names(node.body)[0])
        check_bounded(plan, loc)
        items = self._static_plan_items(plan)
        if items is not None and len(items) <= UNROLL_LIMIT:
            return self._unroll_items(sc, node, items, out, loc)
        plan = self._materialize_plan(plan, out, loc)
        counts = {}
        self._reversed_counts(plan, out, loc, counts)
        count = self._iteration_count(plan, out, loc)
        target = node.target

        def lower():
            # `for i, x in enumerate(xs)`: i itself counts the loop
            if plan[0] == "enumerate" and plan[2] == Const(0) and \
                    isinstance(target, ast.Tuple) and len(target.elts) == 2 and \
                    isinstance(target.elts[0], ast.Name):
                k = self._store_name(sc, target.elts[0].id, target.elts[0])
                body = []
                self._bind_item(sc, plan[1], target.elts[1], k, body, loc, counts)
            else:
                k = self.fresh("_k")
                body = []
                self._bind_item(sc, plan, target, k, body, loc, counts)
            labels = self._loop_labels(sc)
            self._loop_body(sc, labels, node.body, body)
            return k, body, labels
        k, body, labels = self._loop_region(sc, [node] + node.body, out, lower)
        out.append(For(k, Const(0), count, Const(1), body, loc=loc, label=labels[1]))
        return False

    def _iteration(self, sc, it, out, loc, assigned=()):
        """What ``for ... in it`` walks, as a plan: ("seq", operand), ("range", start,
        stop, step), ("enumerate", plan, start), ("zip", [plans]) or ("reversed", plan);
        the sequences are evaluated here, once, before the loop."""
        call = it if isinstance(it, ast.Call) else None
        fn = self._static_callee(sc, call.func, out) if call is not None else None
        if fn is np.ndindex and not call.keywords:
            return ("seq", self._ndindex(sc, call, out, loc), False)
        if fn is not None and any(isinstance(a, ast.Starred) for a in call.args):
            fn = None
        if fn is enumerate and call.args and len(call.args) + len(call.keywords) <= 2:
            start = Const(0)
            if len(call.args) == 2:
                start = self._val(sc, call.args[1], out)
            for k in call.keywords:
                if k.arg != "start":
                    raise errors.UnsupportedSyntax(f"enumerate() got keyword {k.arg}",
                                                   loc=loc)
                start = self._val(sc, k.value, out)
            return ("enumerate", self._iteration(sc, call.args[0], out, loc, assigned), start)
        if fn is zip and call.args and all(k.arg == "strict" for k in call.keywords):
            strict = self._val(sc, call.keywords[0].value, out) if call.keywords else Const(False)
            if isinstance(strict, Const):
                plans = [self._iteration(sc, a, out, loc, assigned) for a in call.args]
                return ("zip", plans) + (("strict",) if strict.value else ())
        if fn is reversed and len(call.args) == 1 and not call.keywords:
            return ("reversed", self._iteration(sc, call.args[0], out, loc, assigned))
        counted = self._counted_plan(sc, call, fn, out, loc) if fn is not None else None
        if counted is not None:    # itertools.count, bounded where it is read
            return counted
        if fn is range and 1 <= len(call.args) <= 3 and not call.keywords:
            args = [self._val(sc, a, out) for a in call.args]
            if len(args) == 1:
                return ("range", Const(0), args[0], Const(1))
            if len(args) == 2:
                return ("range", args[0], args[1], Const(1))
            return ("range", *args)
        # (a static container stays one until the plan is known: a loop over one may be
        # unrolled; see _materialize_plan)
        return ("seq", self._expr(sc, it, out),
                isinstance(it, ast.Name) and it.id in assigned)

    def _ndindex(self, sc, call, out, loc):
        """The index tuples ``np.ndindex(*shape)`` or ``np.ndindex(shape)`` walks, as a
        list made before the loop (ints: they carry no gradient)."""
        if len(call.args) == 1 and isinstance(call.args[0], ast.Starred):
            shape = self._emit(out, tuple, (self._val(sc, call.args[0].value, out),), None, loc)
            args = (shape,)
        elif any(isinstance(a, ast.Starred) for a in call.args):
            raise errors.UnsupportedSyntax(
                "np.ndindex with several star-arguments is not supported", loc=loc,
                hint="pass the shape as one tuple: np.ndindex(M.shape)")
        else:
            args = tuple(self._val(sc, a, out) for a in call.args)
        walk = self._emit(out, np.ndindex, args, None, loc)
        return self._emit(out, list, (walk,), None, loc)

    def _static_plan_items(self, plan, top=True):
        """The items of a loop over containers known when transforming (``for W, b in
        layers``, ``for k, v in enumerate(params)``), or None: the loop is unrolled."""
        kind = plan[0]
        if kind == "seq":
            v = plan[1]
            if isinstance(v, VTuple):
                return list(v)
            if isinstance(v, VDict):
                return [Const(k) for k in v.keys]
            held = self.loaded.get(v) if isinstance(v, str) else None
            if held is not None and _functions(held[2]):
                # a global tuple of functions (FT = (f, g, h)): each call's function
                # taken as fixed, as FT[0](x)'s is; the tuple's items never change,
                # the global holding it is guarded
                self.deps.append((held[0], held[1], held[2], None))
                return [Known(f) for f in held[2]]
            if top and isinstance(v, Const) and isinstance(v.value, (tuple, list)) and \
                    len(v.value) <= UNROLL_LIMIT and \
                    all(isinstance(x, (str, int, type(None))) for x in v.value):
                return [Const(x) for x in v.value]
            return None
        if kind == "enumerate":
            inner = self._static_plan_items(plan[1], False)
            if inner is None or not isinstance(plan[2], Const):
                return None
            return [VTuple((Const(i + plan[2].value), x)) for i, x in enumerate(inner)]
        if kind == "zip":
            seqs = [None if p[0] == COUNT else self._static_plan_items(p, False)
                    for p in plan[1]]
            if all(x is None for x in seqs):
                return None
            n = min(len(x) for x in seqs if x is not None)
            seqs = [[Const(p[1].value + i * p[2].value) for i in range(n)]
                    if p[0] == COUNT else x for p, x in zip(plan[1], seqs)]
            if any(x is None for x in seqs) or not any(
                    _static_container(p) for p in plan[1]):
                return None
            if len(plan) > 2 and len({len(x) for x in seqs}) > 1:
                raise errors.StaticValueError(
                    f"zip(strict=True) of sequences of lengths {[len(x) for x in seqs]}",
                    loc=None)
            return [VTuple(xs) for xs in zip(*seqs)]
        if kind == "reversed":
            inner = self._static_plan_items(plan[1], False)
            return None if inner is None else inner[::-1]
        if kind == COUNT:
            return None
        # range: constant bounds make constants (inside a zip with a container)
        if not top and all(isinstance(b, Const) and type(b.value) is int for b in plan[1:]) \
                and plan[3].value != 0:
            return [Const(i) for i in range(*(b.value for b in plan[1:]))]
        return None

    def _materialize_plan(self, plan, out, loc):
        """``plan`` with its sequences operands of the program: static containers
        built, iterators (``map(...)``, ``d.items()`` of an object) made lists, and a
        name the loop reassigns read as it was when the loop started."""
        kind = plan[0]
        if kind == "seq":
            seq = self._as_sequence(self._materialize(plan[1], out, loc), out, loc)
            if plan[2]:
                seq = self._snapshot(seq, out, loc)
            return ("seq", seq)
        if kind in ("enumerate", "reversed"):
            return (kind, self._materialize_plan(plan[1], out, loc)) + tuple(plan[2:])
        if kind == "zip":
            return ("zip", [self._materialize_plan(p, out, loc) for p in plan[1]]) + plan[2:]
        return plan[:1] + tuple(self._materialize(b, out, loc) for b in plan[1:])

    def _iteration_count(self, plan, out, loc):
        """The number of items ``plan`` yields (computed before the loop)."""
        kind = plan[0]
        if kind == "seq":
            return self._emit_control(out, len, (plan[1],), loc)
        if kind == "range":
            if plan[1] == Const(0) and plan[3] == Const(1):
                return plan[2]
            r = self._emit(out, range, plan[1:], None, loc)
            return self._emit_control(out, len, (r,), loc)
        if kind in ("enumerate", "reversed"):
            return self._iteration_count(plan[1], out, loc)
        counts = [self._iteration_count(p, out, loc) for p in plan[1] if not endless(p)]
        if len(plan) > 2:    # zip(..., strict=True): lengths that differ raise, as in Python
            for k, c in enumerate(counts[1:], 2):
                test = self._emit_control(out, operator.ne, (c, counts[0]), loc)
                out.append(If(test, [Op(None, guards.raise_error, (
                    Const(ValueError), Const(f"zip() argument {k} has a length other "
                                             "than argument 1's")), loc=loc)], [], loc=loc))
        if len(counts) == 1:
            return counts[0]
        return self._emit_control(out, min, tuple(counts), loc)

    def _bind_item(self, sc, plan, target, position, body, loc, counts):
        """Assign the item at ``position`` of ``plan`` to ``target``, unpacking a
        tuple target against enumerate and zip without building the tuple."""
        kind = plan[0]
        if kind == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            index = position
            if plan[2] != Const(0):
                index = self._emit(body, _add_int, (position, plan[2]), None, loc)
            self._assign_operand(sc, target.elts[0], index, body, loc)
            self._bind_item(sc, plan[1], target.elts[1], position, body, loc, counts)
            return
        if kind == "zip" and isinstance(target, ast.Tuple) \
                and len(target.elts) == len(plan[1]):
            for p, t in zip(plan[1], target.elts):
                self._bind_item(sc, p, t, position, body, loc, counts)
            return
        self._assign_operand(sc, target, self._item(plan, position, body, loc, counts),
                             body, loc)

    def _item(self, plan, position, body, loc, counts):
        kind = plan[0]
        if kind == "seq":
            return self._emit(body, _getitem, (plan[1], position), None, loc)
        if kind in ("range", COUNT):
            start, step = plan[1], plan[-1]
            value = position
            if step != Const(1):
                value = self._emit(body, _mul_int, (value, step), None, loc)
            if start != Const(0):
                value = self._emit(body, _add_int, (start, value), None, loc)
            return value
        if kind == "enumerate":
            index = position
            if plan[2] != Const(0):
                index = self._emit(body, _add_int, (position, plan[2]), None, loc)
            inner = self._item(plan[1], position, body, loc, counts)
            return self._emit(body, ir.make_tuple, (index, inner), None, loc)
        if kind == "zip":
            items = [self._item(p, position, body, loc, counts) for p in plan[1]]
            return self._emit(body, ir.make_tuple, items, None, loc)
        # reversed: position n - 1 - k of the inner plan
        n = counts[id(plan)]
        last = self._emit(body, _sub_int, (n, Const(1)), None, loc)
        back = self._emit(body, _sub_int, (last, position), None, loc)
        return self._item(plan[1], back, body, loc, counts)

    def _reversed_counts(self, plan, out, loc, counts):
        """The inner count of every ``reversed`` in ``plan``, computed before the loop."""
        if plan[0] == "reversed":
            counts[id(plan)] = self._iteration_count(plan[1], out, loc)
            self._reversed_counts(plan[1], out, loc, counts)
        elif plan[0] == "enumerate":
            self._reversed_counts(plan[1], out, loc, counts)
        elif plan[0] == "zip":
            for p in plan[1]:
                self._reversed_counts(p, out, loc, counts)


def _functions(value):
    """A tuple of (at most UNROLL_LIMIT) functions or other callables, no module."""
    return type(value) is tuple and 0 < len(value) <= UNROLL_LIMIT and all(
        is_static(f) and not isinstance(f, types.ModuleType) for f in value)
