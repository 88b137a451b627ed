"""Assignment: to names (a static value stays one), to tuples of targets (with a
star), into items (``a[i] = v``, ``M[i][j] = v``, a static dict's key) and into the
attributes of an object whose ``__init__`` is being inlined; and names bound to
functions (``act = np.tanh``, ``f = lambda z: ...``).
"""
from __future__ import annotations

import ast
import operator
import types

import numpy as np

from ...runtime import containers
from ... import errors, runtime
from ...core import ir
from ...core.ir import Const, Op, SetItem
from .callee_forms import getattr_written
from .classes import slot_refused
from .scope import param_names
from .rebind import augmented_static, placed_dict as _placed_dict, rebind_static
from .values import (STATIC_NODES, Known, NestedDef, VDict, VRecord, VTuple, inlinable,
                     describe_static, is_static,
                     is_static_value, lambda_def, made_object, record)
from ...core.source import ast_nodes
from ...core.late import LateModule

# generators kept for later (mapping.py): loaded when met
mapping = LateModule(__package__ + ".mapping")


def calls_user_function(sc, node):
    """Whether ``node`` calls a function of the user's by name, inlined here: it
    may return a container known when transforming (``st = step(st, b)`` giving a
    namedtuple), which the name then stands for."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    v = sc.env.get(node.func.id)
    if v is None and node.func.id not in sc.locals:
        v = Known(sc.globals.get(node.func.id)) if sc.globals is not None else None
    return isinstance(v, Known) and (isinstance(v.value, NestedDef) or isinstance(
        v.value, types.FunctionType) and inlinable(v.value))


def _is_function_value(fn):
    """A function to stand for by name: not a module, nor a nested def's record."""
    return is_static(fn) and not isinstance(fn, (NestedDef, types.ModuleType))


# attributes of an array that are views of it (an item assignment into one changes it)
_VIEW_ATTRIBUTES = frozenset({"T", "real", "imag", "flat"})


class AssignLowering:
    """Assignment targets (a part of `Lowerer`)."""

    def _assign(self, sc, target, value, out, loc):
        if self._assign_function(sc, target, value, out, loc):
            return
        use = mapping.kept_generator_use(sc, value) if isinstance(target, ast.Name) and \
            isinstance(value, ast.GeneratorExp) else None
        if use is not None:
            # g = (... for v in xs) read once, later: lowered where it is consumed, as
            # Python runs it then; its first iterable is evaluated here, as in Python
            first = self._snapshot(self._val(sc, value.generators[0].iter, out), out, loc)
            self.deferred_generators[id(use)] = (value, first)
            return
        popped = popped_list(sc, value)
        if popped is not None:
            # item = xs.pop(): xs a list the function made and holds under that name
            # alone: the item, then xs without it (as a new list: nothing else holds xs)
            xs = ast.Name(id=popped, ctx=ast.Load())
            where = ast.Constant(-1) if not value.args else value.args[0]
            first = where.value == 0
            rest = ast.Slice(lower=ast.Constant(1), upper=None, step=None) if first else \
                ast.Slice(lower=None, upper=ast.Constant(-1), step=None)
            item = ast.Subscript(value=xs, slice=ast.Constant(where.value), ctx=ast.Load())
            kept = ast.Subscript(value=xs, slice=rest, ctx=ast.Load())
            for n in (xs, item, kept) + tuple(ast.walk(rest)):
                ast.copy_location(n, value)
            self._assign(sc, target, item, out, loc)
            self._assign(sc, ast.copy_location(ast.Name(id=popped, ctx=ast.Store()), value),
                         kept, out, loc)
            return
        if isinstance(target, ast.Name) and isinstance(value, ast.Tuple) \
                and sc.store_counts.get(target.id) == 1 and target.id not in sc.env:
            # a tuple assigned once stays a tuple of operands, never built
            items = []
            for v in value.elts:
                e = self._expr(sc, v, out)
                items.append(e if made_object(e) or record(e) else
                             self._snapshot(self._materialize(e, out, loc), out, loc))
            sc.env[target.id] = VTuple(items)
            return
        if isinstance(target, ast.Name) and (self._maybe_static(sc, value) or
                                             calls_user_function(sc, value)):
            v = self._expr(sc, value, out)
            if is_static_value(v):
                self._bind_static(sc, target.id, v, out, loc, target)
                return
            var = self._store_name(sc, target.id, target)
            out.append(Op(var, ir.copy, (self._materialize(v, out, loc),), loc=loc))
        elif isinstance(target, ast.Name) and self._holds_static(sc, target.id):
            # the name stands for a static container now (a differentiated list, tuple
            # or dict argument taken apart, one built earlier): the right side reads
            # that container, so it is evaluated before the name becomes a variable
            rebind_static(self, sc, target, self._expr(sc, value, out), out, loc)
        elif isinstance(target, ast.Name):
            var = self._store_name(sc, target.id, target)
            self._expr(sc, value, out, into=var)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                # a, b = b, a: evaluate every element before assigning any
                vals = [self._expr(sc, v, out) for v in value.elts]
                vals = [self._snapshot(v, out, loc) for v in vals]
                for t, v in zip(target.elts, vals):
                    self._assign_operand(sc, t, v, out, loc)
            else:
                self._assign_operand(sc, target, self._expr(sc, value, out), out, loc)
        else:
            self._assign_operand(sc, target, self._expr(sc, value, out), out, loc)

    @staticmethod
    def _holds_static(sc, name):
        cur = sc.env.get(name)
        return cur is not None and not isinstance(cur, str)

    def _augmented_static(self, sc, node, op, out, loc):
        augmented_static(self, sc, node, op, out, loc)

    def _assign_operand(self, sc, target, value, out, loc):
        if isinstance(target, ast.Name):
            if is_static_value(value):
                self._bind_static(sc, target.id, value, out, loc, target)
                return
            var = self._store_name(sc, target.id, target)
            value = self._materialize(value, out, loc)
            out.append(Op(var, ir.copy, (value,), loc=loc))
        elif isinstance(target, (ast.Tuple, ast.List)):
            n = len(target.elts)
            if isinstance(value, VDict):
                value = VTuple(Const(k) for k in value.keys)
            elif isinstance(value, (VRecord, Known)):
                raise errors.StaticValueError(
                    f"cannot unpack {describe_static(value)}", loc=loc)
            if any(isinstance(e, ast.Starred) for e in target.elts):
                return self._starred_targets(sc, target, value, out, loc)
            if isinstance(value, Const) and type(value.value) is tuple and \
                    len(value.value) == n:
                value = VTuple(Const(v) for v in value.value)   # a constant's items
            if isinstance(value, VTuple):
                if len(value) != n:
                    raise errors.StaticValueError(
                        f"cannot unpack {len(value)} values into {n}", loc=loc)
                items = list(value)
            else:
                items = []
                out.append(Op(None, containers.check_unpack, (value, Const(n)), loc=loc))
                for i in range(n):
                    tmp = self.fresh()
                    out.append(Op(tmp, operator.getitem, (value, Const(i)), loc=loc))
                    items.append(tmp)
            for t, v in zip(target.elts, items):
                self._assign_operand(sc, t, v, out, loc)
        elif isinstance(target, ast.Subscript):
            if self._static_setitem(sc, target, value, out, loc):
                return
            base, index = self._subscript_parts(sc, target, out, loc)
            out.append(SetItem(base, index, self._materialize(value, out, loc), loc=loc))
        elif isinstance(target, ast.Attribute):
            obj = self._object_being_built(sc, target, out)
            if obj is None:
                raise errors.SideEffect("writing an attribute is a side effect revsrc refuses",
                                        loc=loc, hint="return the value instead")
            refused = slot_refused(obj.probe, target.attr)
            if refused is not None:
                raise errors.StaticValueError(refused, loc=loc)
            obj.items_by_name[target.attr] = self._snapshot_deep(value, out, loc)
        else:
            raise errors.UnsupportedSyntax("unsupported assignment target", loc=loc)

    def _starred_targets(self, sc, target, value, out, loc):
        """``a, *rest, z = value``: ``rest`` is a list of the middle items."""
        elts = target.elts
        k = next(i for i, e in enumerate(elts) if isinstance(e, ast.Starred))
        after = len(elts) - k - 1
        if isinstance(value, VTuple):   # items known when transforming: split them here
            if len(value) < len(elts) - 1:
                raise errors.StaticValueError(
                    f"cannot unpack {len(value)} values into {len(elts) - 1} or more",
                    loc=loc)
            for e, item in zip(elts[:k], value[:k]):
                self._assign_operand(sc, e, item, out, loc)
            middle = [self._materialize(v, out, loc) for v in value[k:len(value) - after]]
            rest = self._emit(out, ir.make_list, middle, None, loc)
            self._assign_operand(sc, elts[k].value, rest, out, loc)
            for e, item in zip(elts[k + 1:], value[len(value) - after:]):
                self._assign_operand(sc, e, item, out, loc)
            return
        value = self._materialize(value, out, loc)
        for i, e in enumerate(elts[:k]):
            item = self._emit(out, operator.getitem, (value, Const(i)), None, loc)
            self._assign_operand(sc, e, item, out, loc)
        middle = self._emit(out, operator.getitem,
                            (value, Const(slice(k, -after if after else None))), None, loc)
        rest = self._emit(out, list, (middle,), None, loc)
        self._assign_operand(sc, elts[k].value, rest, out, loc)
        for j, e in enumerate(elts[k + 1:]):
            item = self._emit(out, operator.getitem, (value, Const(j - after)), None, loc)
            self._assign_operand(sc, e, item, out, loc)

    def _object_being_built(self, sc, target, out):
        """The object whose ``__init__`` is being inlined, for ``self.attr = ...`` in it
        (objects.py, `_make_object`); None for any other attribute write."""
        if not isinstance(target.value, ast.Name):
            return None
        base = sc.env.get(target.value.id)
        if isinstance(base, VRecord) and base.td is None and base.building:
            return base
        return None

    def _rebound(self, sc, name):
        """Whether parameter ``name`` is assigned anew somewhere in the function
        (``x = x.copy()``): a write into it may then reach a new array, which
        revsrc/passes/views.py tells apart from the caller's (and refuses the
        write where it reaches the caller's). ``x += 1`` does not rebind an array."""
        augmented = {id(n.target) for n in ast_nodes(sc.parsed.node)
                     if isinstance(n, ast.AugAssign)}
        return any(isinstance(n, ast.Name) and n.id == name and
                   isinstance(n.ctx, ast.Store) and id(n) not in augmented
                   for n in ast_nodes(sc.parsed.node))

    def _subscript_parts(self, sc, node, out, loc):
        if isinstance(node.value, (ast.Subscript, ast.Attribute, ast.Call)):
            return self._nested_subscript_parts(sc, node, out, loc)
        if not isinstance(node.value, ast.Name):
            raise errors.UnsupportedSyntax("only a local array can be assigned into", loc=loc)
        name = node.value.id
        base = self._resolve(sc, name, node, out)
        if isinstance(base, VDict) and base.owned and base.placed:
            raise _placed_dict(name, loc)
        if is_static_value(base):
            raise errors.MutatesArgument(
                f"assigning into {name}[...] changes {describe_static(base)}"
                + (", which the caller owns" if not getattr(base, "owned", False) else
                   " under a condition, or in a loop while another name or container "
                   "also holds it"), loc=loc,
                hint="build a new container (a dict literal) instead")
        params = param_names(sc.parsed.node)
        # (an inlined function's parameter is its caller's variable: revsrc/passes/views.py
        # follows the write there, and refuses it if the caller's caller owns it)
        if name not in sc.locals and name not in params:
            # a global's or an enclosing function's value (a memoizing decorator's cache)
            raise errors.MutatesArgument(
                f"assigning into {name}[...] changes {name}, a global or a variable of an "
                "enclosing function (a memoizing decorator's cache, say), which outlives "
                "this call; revsrc refuses changes to what the function does not own",
                loc=loc, hint="keep the cache outside the function revsrc transforms "
                              "(memoize its derivative or its caller), or build a new value")
        if not isinstance(base, str) or name not in sc.locals or (
                name in params and not sc.prefix and not self._rebound(sc, name)):
            raise errors.MutatesArgument(
                f"assigning into {name}[...] would change an array the caller owns",
                loc=loc, hint=f"copy it first: {name} = {name}.copy()  (or np.array({name}))")
        index = self._index(sc, node.slice, out, loc)
        return base, index

    def _nested_subscript_parts(self, sc, node, out, loc):
        """``M[i][j] = v``, ``y.T[0] = v``, ``np.split(y, 2)[0][:] = v``: the write goes
        into the value ``M[i]`` (a view of an array's row, or an inner list), ``y.T``,
        ``np.split(y, 2)[0]``, which revsrc/passes/views.py writes back into the array it
        views (or, where it is new, leaves in it, as Python does)."""
        root = node.value
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            if isinstance(root, ast.Attribute) and root.attr not in _VIEW_ATTRIBUTES:
                # an object's array (the caller's, maybe): a change revsrc cannot see
                raise errors.UnsupportedSyntax(
                    "only a local array can be assigned into (or its views .T, .real, "
                    ".imag, .flat)", loc=loc, hint="assign into a name the function made")
            root = root.value
        if isinstance(root, ast.Call):    # its arguments are checked where it is written
            return self._target_value(sc, node.value, out, loc), \
                self._index(sc, node.slice, out, loc)
        if not isinstance(root, ast.Name):
            raise errors.UnsupportedSyntax(
                "only items of a local list or array can be assigned into", loc=loc,
                hint="assign into a name the function made")
        if root.id in param_names(sc.parsed.node) or root.id not in sc.locals:
            raise errors.MutatesArgument(
                f"assigning into {ast.unparse(node)} would change a value the caller owns",
                loc=loc, hint=f"copy it first: {root.id} = np.array({root.id})  (or "
                              f"[list(row) for row in {root.id}] for a list of lists)")
        base = self._target_value(sc, node.value, out, loc)
        return base, self._index(sc, node.slice, out, loc)

    def _target_value(self, sc, node, out, loc):
        """The value an item assignment into ``node[...]`` writes into: ``y.flat`` (an
        iterator NumPy writes through) is ``y`` raveled, a view revsrc follows; where
        NumPy makes a copy instead (``y`` not contiguous), refused when it runs."""
        if isinstance(node, ast.Attribute) and node.attr == "flat":
            base = self._val(sc, node.value, out)
            flat = self._emit(out, np.ravel, (base,), None, loc)
            out.append(Op(None, runtime.check_view, (flat, base, Const(loc)), loc=loc))
            return flat
        return self._val(sc, node, out)

    def _static_setitem(self, sc, target, value, out, loc):
        """``d[key] = value`` on a dict made in the function, with a constant key,
        outside branches and loops: the static dict changes (every name holding it
        sees the change, as in Python). ``d[k][key] = value`` too, where ``d`` holds a
        static container and ``d[k]`` is a static dict."""
        if not isinstance(target.value, ast.Name):
            return self._static_inner_setitem(sc, target, value, out, loc)
        base = sc.env.get(target.value.id)
        if not (isinstance(base, VDict) and base.owned) or self.cond_depth or \
                self.loop_depth:
            return False
        if base.placed:
            raise _placed_dict(target.value.id, loc)
        key = self._index(sc, target.slice, out, loc)
        if not isinstance(key, Const):
            return False
        if not is_static_value(value):
            value = self._snapshot(self._materialize(value, out, loc), out, loc)
        base.put(key.value, value)
        return True

    def _static_inner_setitem(self, sc, target, value, out, loc):
        """``d[k][key] = value`` (constant ``k``) on a container the lowering holds
        (a static dict or tuple): the item ``d[k]`` is the static value itself, never a
        copy built for the write (the change would be lost). A static dict item changes
        as `_static_setitem` changes one; any other static container item is refused."""
        root = target.value
        while isinstance(root, ast.Subscript) and (
                isinstance(root.slice, ast.Constant) or isinstance(root.slice, ast.Name)
                and isinstance(sc.env.get(root.slice.id), Const)):
            root = root.value     # (a name bound to a constant: an unrolled loop's)
        if not (isinstance(root, ast.Name) and isinstance(sc.env.get(root.id), STATIC_NODES)) \
                or root.id in param_names(sc.parsed.node) or root.id not in sc.locals:
            return False         # (the caller's: refused as such, E403)
        inner = self._expr(sc, target.value, out)
        if not isinstance(inner, STATIC_NODES):
            return False         # an operand (an array item): written through as a view
        shown = ast.unparse(target.value)
        k, key = target.slice, None
        if isinstance(k, ast.Constant):
            key = k.value
        elif isinstance(k, ast.Name) and isinstance(sc.env.get(k.id), Const):
            key = sc.env[k.id].value
        if not (isinstance(inner, VDict) and inner.owned) or key is None:
            raise errors.UnfollowableWrite(
                f"assigning into {shown}[...] changes {describe_static(inner)} held inside "
                f"{root.id}, and revsrc cannot follow that change", loc=loc,
                hint=f"build the new inner value and assign it whole: {shown} = ...")
        if inner.placed:
            raise _placed_dict(shown, loc)
        if self.cond_depth or self.loop_depth:
            raise errors.MutatesArgument(
                f"assigning into {shown}[...] changes a dict under a condition, or in a "
                "loop", loc=loc, hint="build a new container (a dict literal) instead")
        if not is_static_value(value):
            value = self._snapshot(self._materialize(value, out, loc), out, loc)
        inner.put(key, value)
        return True

    def _static_augmented(self, sc, node, fn, out, loc):
        """``d[key] op= v`` on a dict made in the function, with a constant key it has,
        outside branches and loops: Python's ``t = d[key]; t op= v; d[key] = t`` (an
        array item changes in place, seen wherever else it is held, which
        revsrc/passes/views.py follows; a number is rebound in the dict alone). True
        when handled."""
        target, k = node.target, node.target.slice
        if isinstance(k, ast.Name) and isinstance(sc.env.get(k.id), Const):
            k = ast.Constant(sc.env[k.id].value)   # (an unrolled loop's constant)
        if not isinstance(target.value, ast.Name) or not isinstance(k, ast.Constant):
            return False
        base, key = sc.env.get(target.value.id), k.value
        if not (isinstance(base, VDict) and base.owned) or self.cond_depth or \
                self.loop_depth or key not in base.keys:
            return False
        if base.placed:
            raise _placed_dict(target.value.id, loc)
        at = base.keys.index(key)
        if is_static_value(base.values[at]):
            return False          # a container held statically (d["xs"] += [v])
        t = self.fresh()
        out.append(Op(t, ir.copy, (self._materialize(base.values[at], out, loc),), loc=loc))
        out.append(Op(t, fn, (t, self._val(sc, node.value, out)), loc=loc))
        base.values[at] = t
        return True

    def _dicts_written(self, sc, body_nodes):
        """The names holding a dict made in the function whose keys the loop
        ``body_nodes`` assigns (``d[k] = v``, ``d[k] += v``): the loop builds such a
        dict when it runs, so it is made a value before the loop. Only where that name
        alone holds the dict in the function being lowered (not a helper it inlines,
        whose caller may hold it too): another name would keep the old one."""
        if len(self.inline_stack) != 1:
            return set()
        found = set()
        for n in ast.walk(ast.Module(body=list(body_nodes), type_ignores=[])):
            targets = n.targets if isinstance(n, ast.Assign) else \
                [n.target] if isinstance(n, ast.AugAssign) else []
            for t in targets:
                if not isinstance(t, ast.Subscript):
                    continue
                while isinstance(t, ast.Subscript):
                    t = t.value
                v = sc.env.get(t.id) if isinstance(t, ast.Name) else None
                if isinstance(v, VDict) and v.owned and not v.placed and _held_once(sc, v):
                    found.add(t.id)
        return found

    def _assign_function(self, sc, target, value, out, loc):
        """``act = lambda z: ...`` or ``act = np.tanh``: the name stands for the function
        (calls to it are inlined or call it by name). True when handled. (The plain
        lambda case is a ``def`` already, desugar/lambdas.py; what reaches here is
        bound in a loop, twice, or over a parameter, and is mostly refused.)"""
        if not isinstance(target, ast.Name):
            return False
        if isinstance(value, ast.Lambda):
            self._check_single_binding(sc, target.id, "a lambda", loc)
            node = lambda_def(value, target.id)
            sc.defs[target.id] = node
            sc.env[target.id] = Known(NestedDef(sc, node))
            return True
        value = getattr_written(self, sc, value)   # f = getattr(PH, "force")
        if isinstance(value, (ast.Name, ast.Attribute)):
            fn = _function_value(self, sc, value, out)
            if fn is None or not _is_function_value(fn):
                return False
            self._check_single_binding(sc, target.id, "a function", loc)
            sc.env[target.id] = Known(fn)
            return True
        return False

    def _check_single_binding(self, sc, name, what, loc):
        if sc.store_counts.get(name, 0) != 1 or name in sc.env:
            raise errors.UnsupportedSyntax(
                f"{name} is assigned {what} and also other values; revsrc must know which "
                f"function a call to {name} calls when it transforms the function", loc=loc,
                hint="give each function its own name, or pick one with if/else at the "
                     "call: (f1(x) if cond else f2(x))")


def _held_once(sc, v):
    """Whether the static value ``v`` is held by one name alone in scope ``sc`` and
    those around it, counting what static containers and objects there hold."""
    count = 0
    stack = []
    while sc is not None:
        stack.extend(sc.env.values())
        sc = sc.enclosing
    while stack:
        x = stack.pop()
        if x is v:
            count += 1
        elif isinstance(x, VTuple):
            stack.extend(x)
        elif isinstance(x, VDict):
            stack.extend(x.values)
        elif isinstance(x, VRecord):
            stack.extend(x.items)
            stack.extend(x.items_by_name.values())
    return count == 1


# calls that read a list's items then and keep no hold of the list
_READS_LIST = frozenset({"len", "sum", "min", "max", "any", "all", "list", "tuple", "sorted"})
_COPIES_LIST = frozenset({"array", "asarray", "stack", "hstack", "vstack", "concatenate",
                          "sum", "mean"})


def popped_list(sc, value):
    """The name ``xs`` where ``value`` is ``xs.pop()``, ``xs.pop(0)`` or ``xs.pop(-1)``,
    ``xs`` a list the function makes (assigned a list literal or comprehension), and
    read elsewhere only by its methods ``pop`` and ``append``, items, calls that read
    its items then (``len``, ``sum``, ``np.array``...), or as the test of a ``while``
    or ``if``: no other name, container or call holds it, so
    giving the name the list without the item is what Python's pop leaves. Else None."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and
            value.func.attr == "pop" and isinstance(value.func.value, ast.Name) and
            not value.keywords and (not value.args or len(value.args) == 1 and
                                    isinstance(value.args[0], ast.Constant) and
                                    type(value.args[0].value) is int and
                                    value.args[0].value in (0, -1))):
        return None
    name = value.func.value.id
    root = sc.parsed.node
    if name in param_names(root) or name not in sc.locals:
        return None
    allowed = set()
    for n in ast.walk(root):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                             for t in n.targets):
            if len(n.targets) != 1 or not isinstance(n.value, (ast.List, ast.ListComp)):
                return None
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)) and \
                any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target)):
            return None
        if isinstance(n, ast.Attribute) and n.attr in ("pop", "append"):
            allowed.add(id(n.value))
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
            allowed.add(id(n.value))
        elif isinstance(n, ast.Call) and (
                isinstance(n.func, ast.Name) and n.func.id in _READS_LIST or
                isinstance(n.func, ast.Attribute) and n.func.attr in _COPIES_LIST and
                isinstance(n.func.value, ast.Name) and n.func.value.id in ("np", "numpy")):
            allowed.update(id(a) for a in n.args)
        elif isinstance(n, (ast.While, ast.If)):
            allowed.add(id(n.test))
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            allowed.add(id(n.operand))
    uses = [n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id == name and
            isinstance(n.ctx, ast.Load)]
    return name if all(id(n) in allowed for n in uses) else None


def _function_value(lowerer, sc, value, out):
    """The function the name or attribute ``value`` holds when transforming, or None;
    a method of a global object (``f = PH.force``) is the one its calls reach."""
    fn = lowerer._static_callee(sc, value, out)
    if fn is None and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        # (a name's attribute: reading it changes nothing, so it may be read twice)
        found = lowerer._expr(sc, value, [])
        fn = found.value if isinstance(found, Known) else None
    return fn
