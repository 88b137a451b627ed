"""Kinds (what each variable holds) and activity (what carries a gradient)."""
from __future__ import annotations

import builtins
import math
import operator
import types

import numpy as np

from . import errors, ir, rules
from .rules import _helpers
from .ir import Const, For, Op, SetItem

SCALARS = ("bool", "int", "float")
_ORDER = {"bool": 0, "int": 1, "float": 2, "array": 3}

_ARITH = {operator.add, operator.sub, operator.mul, operator.mod, operator.floordiv,
          operator.neg, operator.pos, abs, builtins.max, builtins.min,
          _helpers.tanh_grad}
_COMPARE = {operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne}
_BOOL_RESULT = {operator.not_, ir.truth, operator.is_, operator.is_not, operator.contains,
                isinstance, bool, math.isnan, math.isinf, math.isfinite}
_INT_RESULT = {len, int, math.floor, math.ceil, math.trunc}
_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std}


def join(a, b):
    if a == b:
        return a
    if a is None:
        return b
    if b is None:
        return a
    if a in _ORDER and b in _ORDER:
        return a if _ORDER[a] > _ORDER[b] else b
    return "any"


def kind_of_value(v):
    if isinstance(v, bool) or isinstance(v, np.bool_):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if isinstance(v, np.ndarray):
        return "array"
    if isinstance(v, tuple):
        return "tuple"
    if isinstance(v, list):
        return "list"
    if v is None:
        return "none"
    return "any"


def _operand_kind(o, kinds):
    if isinstance(o, Const):
        return kind_of_value(o.value)
    return kinds.get(o)


def _op_kind(op, kinds, ndims, items=None):
    fn = op.fn
    ks = [_operand_kind(a, kinds) for a in op.args]
    kw = dict(op.kwargs)
    if fn is ir.copy:
        return ks[0]
    if fn is ir.load_global:
        return kind_of_value(op.args[0].value.get(op.args[1].value))
    if fn is ir.load_cell:
        try:
            return kind_of_value(op.args[0].value.cell_contents)
        except ValueError:
            return "any"
    if any(k is None for k in ks):
        return None  # not known yet (loop-carried); the fixpoint comes back
    if "any" in ks and fn is not ir.make_tuple and fn is not ir.make_list:
        if fn in _COMPARE or fn in _BOOL_RESULT:
            return "any" if fn in _COMPARE else "bool"
        return "any"
    if fn in _ARITH or fn is operator.truediv or fn is operator.pow:
        if any(k == "array" for k in ks):
            return "array"
        if not all(k in SCALARS for k in ks):
            return "any"
        if fn is operator.truediv:
            return "float"
        k = "bool"
        for x in ks:
            k = join(k, x)
        if fn is operator.pow and k in ("bool", "int"):
            e = op.args[1]
            if not (isinstance(e, Const) and isinstance(e.value, int) and e.value >= 0):
                return "any" if ks[1] != "bool" else "int"
            return "int"
        if k == "bool" and fn not in (builtins.max, builtins.min):
            return "int"
        return k
    if fn in _COMPARE:
        return "array" if "array" in ks else ("bool" if all(k in SCALARS for k in ks)
                                              else "any")
    if fn in _BOOL_RESULT:
        return "bool"
    if fn in _INT_RESULT:
        return "int"
    if fn is float:
        return "float"
    if fn is ir.make_tuple:
        return "tuple"
    if fn is ir.make_list:
        return "list"
    if fn is ir.make_dict:
        return "dict"
    if fn is getattr:
        attr = op.args[1].value
        return "int" if attr in ("ndim", "size") else "any"
    if fn is operator.getitem:
        base = op.args[0]
        if ks[0] == "array":
            nd = ndims.get(base) if isinstance(base, str) else None
            idx = op.args[1]
            if nd is not None and isinstance(idx, Const):
                drop = _index_drop(idx.value, nd)
                if drop is not None:
                    return "float" if drop == nd else "array"
            if nd is not None and isinstance(idx, str) and kinds.get(idx) == "int" and nd == 1:
                return "float"
            if isinstance(idx, str) and (kinds.get(idx) == "array" or any(
                    _operand_kind(i, kinds) == "array" for i in (items or {}).get(idx, ()))):
                return "array"  # advanced indexing always makes an array
            return "any"
        return "any"
    if isinstance(fn, np.ufunc):
        if "array" in ks:
            return "array"
        if all(k in SCALARS for k in ks):
            if fn in (np.floor, np.ceil, np.trunc, np.sign, np.maximum, np.minimum, np.fmax,
                      np.fmin, np.negative, np.absolute, np.fabs, np.square):
                return "float"
            return "float"
        return "any"
    if fn in _REDUCTIONS:
        if kw.get("axis", Const(None)) == Const(None) and len(op.args) == 1 \
                and kw.get("keepdims", Const(False)) == Const(False):
            return "float"
        return "array" if ks and ks[0] == "array" else "any"
    if fn is np.dot or fn is np.inner:
        nds = [ndims.get(a) if isinstance(a, str) else None for a in op.args]
        if len(nds) == 2 and nds[0] == 1 and nds[1] == 1:
            return "float"
        return "array" if "array" in ks else "any"
    if isinstance(fn, types.BuiltinFunctionType) and getattr(fn, "__module__", None) == "math":
        return "float" if all(k in SCALARS for k in ks) else "any"
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("numpy") and "array" in ks:
        return "array"
    return "any"


def _index_drop(index, ndim):
    """How many axes basic indexing with ``index`` removes (None if not basic)."""
    items = index if isinstance(index, tuple) else (index,)
    drop = 0
    add = 0
    for it in items:
        if isinstance(it, bool):
            return None
        if isinstance(it, int):
            drop += 1
        elif it is None:
            add += 1
        elif isinstance(it, slice) or it is Ellipsis:
            continue
        else:
            return None
    if drop - add == ndim and add == 0:
        return ndim
    return drop - add if drop - add < ndim else None


def _op_ndim(op, ndims, kinds):
    fn = op.fn
    a0 = op.args[0] if op.args else None
    nd0 = ndims.get(a0) if isinstance(a0, str) else None
    if fn is ir.copy:
        return nd0
    if fn is ir.load_global:
        v = op.args[0].value.get(op.args[1].value)
        return v.ndim if isinstance(v, np.ndarray) else None
    if fn is operator.getitem and nd0 is not None:
        idx = op.args[1]
        if isinstance(idx, Const):
            d = _index_drop(idx.value, nd0)
            return None if d is None else nd0 - d
        if isinstance(idx, str) and kinds.get(idx) == "int":
            return nd0 - 1
    if fn in (np.tanh, np.exp, np.sin, np.cos, np.log, np.sqrt, operator.neg, np.negative,
              np.square, np.abs) and nd0 is not None:
        return nd0
    if fn in (operator.add, operator.sub, operator.mul, operator.truediv, np.maximum,
              np.minimum, operator.pow):
        nds = [ndims.get(a) if isinstance(a, str) else 0 for a in op.args]
        nds = [n if n is not None or kinds.get(a) not in SCALARS else 0
               for n, a in zip(nds, op.args)]
        if all(n is not None for n in nds):
            return max(nds)
    return None


def infer_kinds(params, param_kinds, param_ndims, body, seed=None, seed_ndims=None):
    """Per-variable kinds and (where known) array ranks, by fixpoint over the body."""
    kinds = dict(seed or {})
    kinds.update(zip(params, param_kinds))
    ndims = dict(seed_ndims or {})
    ndims.update({p: n for p, n in zip(params, param_ndims) if n is not None})
    stmts = list(ir.walk(body))
    items = {s.target: s.args for s in stmts
             if isinstance(s, Op) and s.fn is ir.make_tuple and s.target is not None}
    for _ in range(50):
        changed = False
        for s in stmts:
            if isinstance(s, Op) and s.target is not None:
                k = _op_kind(s, kinds, ndims, items)
                if k is None:
                    continue
                new = join(kinds.get(s.target), k) if s.target in kinds else k
                if new != kinds.get(s.target):
                    kinds[s.target] = new
                    changed = True
                if new == "array":
                    nd = _op_ndim(s, ndims, kinds)
                    old = ndims.get(s.target, "unset")
                    merged = nd if old == "unset" else (old if old == nd else None)
                    if merged != old:
                        ndims[s.target] = merged
                        changed = True
            elif isinstance(s, For) and s.var not in kinds:
                kinds[s.var] = "int"  # range() yields ints
                changed = True
        if not changed:
            break
    for s in stmts:
        for name in ir.writes(s):
            kinds.setdefault(name, "any")
    return kinds, {k: v for k, v in ndims.items() if v is not None}


def _diff_args(op):
    """Indices of ``op``'s positional arguments and names of kwargs a rule differentiates."""
    rule = rules.lookup(op.fn)
    if op.fn in (ir.make_tuple, ir.make_list):
        return list(range(len(op.args))), []
    if rule is None or rule == "nondiff":
        return None if rule is None else [], []
    pos = [i for i in range(len(op.args)) if rule.differentiable(i)]
    kws = [k for k, _ in op.kwargs if k in rule.params
           and rule.differentiable(rule.params.index(k))]
    return pos, kws


def activity(params, wrt, body, result, kinds):
    """The active variables: varied by a ``wrt`` argument and useful to ``result``."""
    stmts = list(ir.walk(body))
    differentiable = ("float", "array", "any", "tuple", "list")
    varied = set(wrt)
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if isinstance(s, Op) and s.target is not None and s.target not in varied:
                if kinds.get(s.target) not in differentiable:
                    continue
                sel = _diff_args(s)
                pos, kws = sel
                if pos is None:  # no rule: varied if any input is
                    ins = [a for a in s.args] + [v for _, v in s.kwargs]
                else:
                    ins = [s.args[i] for i in pos] + [v for k, v in s.kwargs if k in kws]
                if any(isinstance(a, str) and a in varied for a in ins):
                    varied.add(s.target)
                    changed = True
            elif isinstance(s, SetItem) and s.target not in varied:
                if isinstance(s.value, str) and s.value in varied:
                    varied.add(s.target)
                    changed = True
    useful = {result} if isinstance(result, str) else set()
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if isinstance(s, Op) and s.target in useful:
                for a in list(s.args) + [v for _, v in s.kwargs]:
                    if isinstance(a, str) and a not in useful:
                        useful.add(a)
                        changed = True
            elif isinstance(s, SetItem) and s.target in useful:
                if isinstance(s.value, str) and s.value not in useful:
                    useful.add(s.value)
                    changed = True
    active = varied & useful
    for s in stmts:
        if isinstance(s, Op) and s.target in active:
            sel = _diff_args(s)
            if sel[0] is None and any(isinstance(a, str) and a in active for a in s.args):
                name = getattr(s.fn, "__qualname__", None) or getattr(s.fn, "__name__", None) \
                    or repr(s.fn)
                module = getattr(s.fn, "__module__", None)
                full = f"{module}.{name}" if module and module != "builtins" else name
                raise errors.NoRule(
                    f"{full} has no derivative rule and no Python source to transform",
                    loc=s.loc,
                    hint=f"register one: @revsrc.defvjp({name}) def rule(g, ans, *args): "
                         "... or mark it with revsrc.nondiff")
    return active
