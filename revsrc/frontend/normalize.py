"""Lower a function's ``ast`` to the IR: one operation per statement.

Names are resolved here (locals, enclosing functions, closure cells, module
globals, builtins), calls to other user functions are inlined with their
variables renamed after them, and the control flow the reverse sweep cannot
mirror directly is rewritten into structured form: ``break``, ``continue`` and
early ``return`` become flags that guard the rest of their block, so every loop
body runs to its end and only ever leaves through a final ``if flag: break``.
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import importlib
import inspect
import math
import operator
import textwrap
import types

import numpy as np

from ..passes import views as aliases, containers
from . import control, fence
from .. import errors, rules, runtime
from ..runtime import inplace, tensor
from ..core import ir, kinds
from .idioms import IdiomLowering, is_library
from ..core.names import Names
from ..core.ir import Const, For, If, Op, SetItem, While
from ..rules.arith import astype as _astype
from .parse import parse_function
from .lower.scope import (RuleSource, Scope, all_names, assigned_names, ends_in_return,
                          leaves_loop, param_names, positional_names, return_statements)
from .lower.values import (MISSING, STATIC_NODES, UNROLL_LIMIT, BoundMethod, Known,
                           NestedDef, Poisoned, Slot, VDict, VRecord, VTuple, class_of,
                           describe_static, inlinable, is_static, is_static_value,
                           known_or_const, made_object, mentions_slot, sequence, short,
                           spread, static_node, user_callable, vtuple)

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
          ast.Invert: operator.invert}
_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}

# Array methods and attributes, mapped to the NumPy function they mean.
_METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "var": np.var, "std": np.std, "dot": np.dot, "reshape": np.reshape,
    "transpose": np.transpose, "ravel": np.ravel, "flatten": tensor.flatten,
    "squeeze": np.squeeze, "cumsum": np.cumsum, "cumprod": np.cumprod,
    "clip": np.clip, "argmax": np.argmax, "argmin": np.argmin, "copy": np.copy,
    "swapaxes": np.swapaxes, "astype": None, "item": None, "conj": np.conj,
    "trace": np.trace, "all": np.all, "any": np.any, "diagonal": np.diagonal,
    "conjugate": np.conj,
}
_ATTRS_NONDIFF = {"shape", "ndim", "size", "dtype"}
_ATTRS_FN = {"T": np.transpose, "real": np.real, "imag": np.imag}
_VARARG_SHAPE_METHODS = {"reshape", "transpose"}

_SIDE_EFFECTS = {print, open, input, exec, eval, setattr, delattr, globals, locals,
                 vars, breakpoint, __import__}
class Normalizer(IdiomLowering):
    """Lowers one top-level function (and everything it inlines) to IR (the idioms
    of revsrc/idioms.py included)."""

    def __init__(self, has_aux=False, names=None):
        self.names = names if names is not None else Names()
        self.loop_count = 0
        self.inline_stack = []
        self.has_aux = has_aux
        # what the IR took from globals and closures as fixed: (dict or cell, name,
        # value, code) per user function, checked before a derivative runs
        # (runtime.deps_current): redefining a helper makes the derivative anew
        self.deps = []
        self.cond_depth = 0   # inside a branch (a static dict may not change there)
        self.loop_depth = 0   # inside a loop the program runs

    # ----- naming (through the one naming authority) ----------------------
    @property
    def taken(self):
        return self.names.taken

    def fresh(self, base=None):
        return self.names.temp() if base is None else self.names.fresh(base)

    def _reserve(self, name):
        return self.names.reserve(name)

    def _depend(self, holder, name, value):
        if isinstance(value, types.FunctionType) and inlinable(value):
            dep = (holder, name, value, value.__code__)
            if not any(d[0] is holder and d[1] == name for d in self.deps):
                self.deps.append(dep)

    def choose_prefix(self, base, names):
        return self.names.prefix(base, names)

    # ----- entry --------------------------------------------------------
    def lower_function(self, fn, trees=None, static=None, functions=None):
        """The IR of ``fn``: (params, body, result operand, aux operand).

        ``trees`` maps a parameter to the TreeDef of the container it receives taken
        apart (revsrc/arguments.py): its leaves are parameters of their own, named
        after their paths, and the parameter is a static container of them.
        ``static`` maps a parameter to its value, known now (a method's ``self``).
        ``functions`` maps a parameter (or a leaf) that holds a function (``reduce=
        np.sum``) to it: the program stays one parameter for it, and calls the function
        by name (the cache key holds each function, kinds.Function).
        """
        parsed = parse_function(fn)
        fence.check(parsed)
        node = parsed.node
        sc = self._make_scope(parsed, fn, prefix="")
        trees = trees or {}
        static = static or {}
        functions = functions or {}
        params = []
        used = all_names(node) | set(param_names(node))
        for p in param_names(node):
            if p in static:
                sc.env[p] = Known(static[p])
            elif p in trees:
                leaves = []
                sc.env[p] = self._tree_param(p, trees[p], used, leaves, functions.get(p))
                params.extend(leaves)
            else:
                sc.env[p] = self._reserve(p)
                params.append(p)
                if p in functions:
                    sc.env[p] = Known(functions[p])
        self.inline_stack.append(fn)
        out = []
        sc.has_aux = self.has_aux
        result = self._lower_body(sc, node, out)
        self.inline_stack.pop()
        return params, control.structure(out, self.names), result, sc.aux_var

    def _tree_param(self, name, td, used, leaves, functions=None):
        """The static container standing for parameter ``name`` taken apart as ``td``;
        its leaves' names are appended to ``leaves``. ``functions``: leaf number ->
        the function that leaf holds (it stays a parameter, and stands for it)."""
        from ..core import pytree

        def build(t, path):
            if t.kind == pytree.LEAF:
                base = pytree.path_name(name, path)
                leaf = base
                k = 1
                while leaf in used or leaf in self.taken:
                    k += 1
                    leaf = f"{base}_{k}"
                self._reserve(leaf)
                leaves.append(leaf)
                if functions and len(leaves) - 1 in functions:
                    return Known(functions[len(leaves) - 1])
                return leaf
            if t.kind == "none":
                return Const(None)
            items = [build(c, path + (key,)) for key, c in zip(t.keys(), t.children)]
            return static_node(t, items)
        return build(td, ())

    def lower_rule(self, rule, xp):
        """A rule's body and its outputs, as IR over variables named ``g``, ``ans`` and
        the rule's parameters, with ``xp`` bound to the namespace ``xp``: a template
        (see revsrc/templates.py). Calls in a rule stay calls (never inlined).

        Returns (statements, [(statements, operand) per output, None where the rule
        gives no gradient]).
        """
        sc = Scope(RuleSource(rule), prefix="", globals_=rule.globals, cells={},
                   rule_mode=True)
        for p in ["g", "ans"] + list(rule.params):
            sc.env[p] = self._reserve(p)
        sc.env["xp"] = Known(xp)
        assigned = set()
        for stmt in rule.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    assigned.add(n.id)
        for name in sorted(assigned):
            sc.env[name] = self._reserve(name)
        sc.locals = set(assigned)
        body = []
        self._block(sc, rule.body, body)
        outs = []
        for expr in rule.outputs:
            if expr is None:
                outs.append(None)
                continue
            ops = []
            outs.append((ops, self._val(sc, expr, ops)))
        return body, outs

    def _make_scope(self, parsed, fn, prefix, enclosing=None, globals_=None, cells=None):
        if fn is not None:
            globals_ = fn.__globals__
            cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        sc = Scope(parsed, prefix, globals_, cells or {}, enclosing=enclosing, fn=fn)
        return sc

    def _lower_body(self, sc, node, out):
        """Lower a function body; returns the operand holding its result."""
        if isinstance(node, ast.Lambda):
            body = [ast.Return(value=node.body, lineno=node.lineno,
                               col_offset=node.col_offset)]
        else:
            body = node.body
        names, defs = assigned_names(body)
        params = param_names(node)
        sc.locals = names | set(params)
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    sc.store_counts[n.id] = sc.store_counts.get(n.id, 0) + 1
        sc.ret_var = self.names.internal(sc.prefix + "ret" if sc.prefix else "_ret")
        returns = return_statements(body)
        sizes = {len(r.value.elts) if isinstance(r.value, ast.Tuple) else 0 for r in returns}
        if sc.prefix and len(sizes) == 1 and min(sizes) >= 2:
            # a helper returning a tuple literal: keep the items apart
            sc.ret_items = [self.names.internal(f"{sc.prefix}ret{i}")
                            for i in range(min(sizes))]
        # `return` leaves this block; the control pass gives it a flag if it must
        sc.exit_label = sc.prefix + "done" if sc.prefix else "_done"
        if sc.has_aux:
            sc.aux_var = self.names.internal("_aux")
        self._hoist_globals(sc, body, out)
        inner = []
        self._block(sc, body, inner)
        if not returns:
            inner.append(Op(sc.ret_var, ir.copy, (Const(None),), loc=sc.parsed.loc(node)))
        out.append(ir.Block(sc.exit_label, inner))
        if sc.ret_items:
            return VTuple(sc.ret_items)
        if sc.ret_skeleton is not None:
            if returns and len(returns) and not ends_in_return(body):
                raise errors.UnsupportedSyntax(
                    "a function that returns a container may also end without a return "
                    "(returning None)", loc=sc.parsed.loc(node),
                    hint="end the function with a return")
            return sc.ret_skeleton
        return sc.ret_var

    def _hoist_globals(self, sc, body, out):
        """Load every global data value the body reads, once, at entry."""
        seen = set()
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in seen:
                    seen.add(n.id)
                    if n.id in sc.locals or n.id in sc.env:
                        continue
                    self._resolve(sc, n.id, n, out, hoisting=True)

    # ----- name resolution ----------------------------------------------
    def _resolve(self, sc, name, node, out, hoisting=False):
        """An operand, or a static value (lower/values.py) for something known now."""
        if name in sc.env:
            value = sc.env[name]
            if isinstance(value, Poisoned):
                raise errors.UnsupportedSyntax(
                    f"{name} is read after {value.why}, and which container it holds "
                    "then is only known when the function runs", loc=sc.parsed.loc(node),
                    hint=f"assign {name} before the branch or loop, or read it inside")
            return value
        if name in sc.locals:
            var = self._reserve(sc.prefix + name)
            sc.env[name] = var
            return var
        if name in sc.defs:
            return Known(NestedDef(sc, sc.defs[name]))
        if sc.enclosing is not None:
            r = self._resolve(sc.enclosing, name, node, out, hoisting)
            if r is not None:
                return r
            return None
        if name in sc.cells:
            cell = sc.cells[name]
            try:
                value = cell.cell_contents
            except ValueError:
                raise errors.UnsupportedSyntax(
                    f"closure variable {name} is not bound yet", loc=sc.parsed.loc(node))
            if is_static(value):
                self._depend(cell, name, value)
                sc.env[name] = Known(value)
                return sc.env[name]
            var = self._reserve(sc.prefix + name)
            out.append(Op(var, ir.load_cell, (Const(cell),), loc=sc.parsed.loc(node)))
            sc.env[name] = var
            return var
        if name in sc.globals:
            value = sc.globals[name]
            if is_static(value):
                if not sc.rule_mode:
                    self._depend(sc.globals, name, value)
                sc.env[name] = Known(value)
                return sc.env[name]
            if sc.rule_mode:
                # a rule's module constants (_LN2...) are fixed: inlined as constants,
                # so every output of a rule template stands alone
                sc.env[name] = Const(value)
                return sc.env[name]
            var = self._reserve(sc.prefix + name)
            out.append(Op(var, ir.load_global, (Const(sc.globals), Const(name)),
                          loc=sc.parsed.loc(node)))
            # read when it runs, but its kind (float, array of rank 2...) is the
            # program's: a global that changes kind makes the derivative anew
            self.deps.append((sc.globals, name, "kind", kinds.signature(value)))
            sc.env[name] = var
            return var
        if hasattr(builtins, name):
            value = getattr(builtins, name)
            sc.env[name] = Known(value)
            return sc.env[name]
        if hoisting:
            return None
        raise errors.UnsupportedSyntax(f"name {name!r} is not defined",
                                       loc=sc.parsed.loc(node))

    # ----- statements ---------------------------------------------------
    def _block(self, sc, stmts, out):
        """Lower a statement list (exits stay `Leave` statements for the control pass)."""
        for stmt in stmts:
            try:
                if self._stmt(sc, stmt, out):
                    return True   # what follows an unconditional exit never runs
            except errors.RevsrcError as exc:
                if exc.filename is not None:
                    raise
                raise errors.located(exc, sc.parsed.loc(stmt)) from None
        return False

    def _stmt(self, sc, node, out):
        loc = sc.parsed.loc(node)
        if isinstance(node, ast.Assign):
            value = node.value
            if len(node.targets) == 1:
                self._assign(sc, node.targets[0], value, out, loc)
            else:
                tmp = self._expr(sc, value, out)
                for t in node.targets:
                    self._assign_operand(sc, t, tmp, out, loc)
            return False
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._assign(sc, node.target, node.value, out, loc)
            return False
        if isinstance(node, ast.AugAssign):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise errors.UnsupportedSyntax("this augmented assignment is not supported",
                                               loc=loc)
            if isinstance(node.target, ast.Name):
                # Python's x op= y: in place on an array (revsrc/aliases.py follows it)
                var = self._store_name(sc, node.target.id, node)
                rhs = self._val(sc, node.value, out)
                out.append(Op(var, aliases.OF_BINARY[op], (var, rhs), loc=loc))
            elif isinstance(node.target, ast.Subscript):
                base, index = self._subscript_parts(sc, node.target, out, loc)
                old = self.fresh()
                out.append(Op(old, operator.getitem, (base, index), loc=loc))
                rhs = self._expr(sc, node.value, out)
                new = self.fresh()
                out.append(Op(new, op, (old, rhs), loc=loc))
                out.append(SetItem(base, index, new, loc=loc))
            else:
                raise errors.SideEffect("writing an attribute is a side effect revsrc refuses",
                                        loc=loc, hint="return the value instead")
            return False
        if isinstance(node, ast.Return):
            self._return(sc, node, out, loc)
            return True
        if isinstance(node, ast.If):
            test = self._condition(sc, node.test, out)
            if isinstance(test, Const):
                # known when transforming (isinstance of a container, a static field):
                # only the branch that runs is lowered
                return self._block(sc, node.body if test.value else node.orelse, out)
            body, orelse = [], []
            self._branches(sc, [(node.body, body), (node.orelse, orelse)])
            if isinstance(test, Const):
                out.extend(body if test.value else orelse)
            else:
                out.append(If(test, body, orelse, loc=loc))
            return False
        if isinstance(node, ast.For):
            return self._for(sc, node, out, loc)
        if isinstance(node, ast.While):
            return self._while(sc, node, out, loc)
        if isinstance(node, (ast.Break, ast.Continue)):
            if not sc.loops:
                raise errors.UnsupportedSyntax("break/continue outside a loop", loc=loc)
            cont, brk = sc.loops[-1]
            out.append(ir.Leave(brk if isinstance(node, ast.Break) else cont, loc=loc))
            return True
        if isinstance(node, ast.Pass):
            return False
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return False  # a docstring or a bare constant
            if isinstance(node.value, ast.Call) and (
                    self._print_statement(sc, node.value, out, loc) or
                    self._list_method_statement(sc, node.value, out, loc) or
                    self._discarded_call(sc, node.value, out, loc)):
                return False
            what = "a call whose result is discarded" if isinstance(node.value, ast.Call) \
                else "an expression whose value is discarded"
            name = _call_name(node.value)
            raise errors.SideEffect(
                f"{what}{f' ({name})' if name else ''} can only act through side effects, "
                "which revsrc refuses", loc=loc,
                hint="differentiated functions must be pure: compute values and return them")
        if isinstance(node, ast.FunctionDef):
            sc.defs[node.name] = node
            sc.env[node.name] = Known(NestedDef(sc, node))
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(sc, node, loc)
            return False
        if isinstance(node, ast.Assert):
            test = self._condition(sc, node.test, out)
            if node.msg is not None:
                self._assert_message(sc, node, test, out, loc)
                return False
            msg = Const(ast.unparse(node.test))
            out.append(Op(None, ir.check_assert, (test, msg), loc=loc))
            return False
        if isinstance(node, ast.Raise):
            return self._raise(sc, node, out, loc)
        if isinstance(node, ast.With):
            return self._with(sc, node, out, loc)
        raise errors.UnsupportedSyntax(
            f"{type(node).__name__} statements are not supported", loc=loc)

    # ----- static values across branches and loops --------------------------
    # A name may stand for a static value (a container known when transforming, a
    # function). Where the program's control flow decides what a name holds, that
    # cannot be: a name made static in one branch of an `if` is unusable after it,
    # and inside a loop the program runs, containers are built as values.

    def _branches(self, sc, pairs):
        """Lower the branches of an `if` (``pairs`` of ast statements and their
        output list), each from the same static bindings."""
        before = dict(sc.env)
        changed = set()
        self.cond_depth += 1
        for stmts, dest in pairs:
            self._block(sc, stmts, dest)
            for name in list(sc.env):
                new, old = sc.env[name], before.get(name)
                if new is old or (isinstance(new, str) and new == old):
                    continue
                if is_static_value(new) or is_static_value(old) or \
                        isinstance(new, (Const, Poisoned)) or isinstance(old, Const):
                    changed.add(name)
                    if name in before:
                        sc.env[name] = old
                    else:
                        del sc.env[name]
        self.cond_depth -= 1
        for name in changed:
            sc.env[name] = Poisoned("an if statement that assigns it")

    def _loop_region(self, sc, body_nodes, out, lower):
        """Lower a loop body the program runs (``lower()``): names assigned in it
        that hold static values now become variables first."""
        names, _ = assigned_names(body_nodes)
        for name in sorted(names):
            cur = sc.env.get(name)
            if isinstance(cur, (STATIC_NODES, Const)):
                var = self._reserve(sc.prefix + name)
                value = self._materialize(cur, out, sc.parsed.loc(body_nodes[0]))
                out.append(Op(var, ir.copy, (value,), loc=sc.parsed.loc(body_nodes[0])))
                sc.env[name] = var
        sc.no_static += 1
        self.loop_depth += 1
        try:
            return lower()
        finally:
            sc.no_static -= 1
            self.loop_depth -= 1

    def _import(self, sc, node, loc):
        for alias in node.names:
            if isinstance(node, ast.Import):
                mod = importlib.import_module(alias.name)
                if alias.asname:
                    sc.env[alias.asname] = Known(mod)
                else:
                    sc.env[alias.name.split(".")[0]] = Known(
                        importlib.import_module(alias.name.split(".")[0]))
            else:
                mod = importlib.import_module(node.module)
                sc.env[alias.asname or alias.name] = Known(getattr(mod, alias.name))

    def _store_name(self, sc, name, node):
        cur = sc.env.get(name)
        if cur is not None and not isinstance(cur, str):
            # a name held a static value (a container, a function, a constant): from
            # here on it is a variable of the program
            if sc.no_static and is_static_value(cur):
                raise errors.UnsupportedSyntax(
                    f"cannot assign {name} inside a loop: before the loop it holds "
                    f"{describe_static(cur)}, which is known only when transforming",
                    loc=sc.parsed.loc(node), hint="use a new name inside the loop")
            var = self._reserve(sc.prefix + name)
            sc.env[name] = var
            return var
        var = cur
        if var is None:
            var = self._reserve(sc.prefix + name)
            sc.env[name] = var
        return var

    def _bind_static(self, sc, name, value, out, loc, node):
        """``name = value`` for a static ``value``: the name stands for it (outside
        loops the program runs: there, the container is built as a value)."""
        if not sc.no_static:
            sc.env[name] = value
            return
        var = self._store_name(sc, name, node)
        if isinstance(value, Known):
            raise errors.UnsupportedSyntax(
                f"cannot assign a function or module to {name} inside a loop", loc=loc,
                hint="assign it before the loop")
        out.append(Op(var, ir.copy, (self._materialize(value, out, loc),), loc=loc))

    def _maybe_static(self, sc, node):
        """Whether ``node`` may evaluate to a static value (so it is not lowered
        straight into a variable)."""
        if isinstance(node, ast.Dict):
            return all(isinstance(k, ast.Constant) for k in node.keys)
        if isinstance(node, (ast.List, ast.Tuple)):
            # a list of objects made in the function ([Dense(W1, b1), Dense(W2, b2)])
            return any(isinstance(e, ast.Call) and self._maybe_static(sc, e)
                       for e in node.elts)
        if isinstance(node, ast.Name):
            return is_static_value(sc.env.get(node.id)) or node.id in sc.defs
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            root = node
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name):
                v = sc.env.get(root.id)
                return isinstance(v, STATIC_NODES) or (
                    isinstance(v, Known) and not isinstance(v.value, types.ModuleType))
            return False
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                root = func.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                v = sc.env.get(root.id) if isinstance(root, ast.Name) else None
                return isinstance(v, STATIC_NODES) or (
                    isinstance(v, Known) and not isinstance(v.value, types.ModuleType))
            if isinstance(func, ast.Name):
                v = sc.env.get(func.id)
                if v is None and func.id not in sc.locals:
                    v = Known(sc.globals.get(func.id, getattr(builtins, func.id, None)))
                if not isinstance(v, Known):
                    return False
                fn = v.value
                if isinstance(fn, NestedDef):
                    return True
                return user_callable(fn) or fn in _CONTAINER_BUILTINS or (
                    isinstance(fn, type) and (_is_record_class(fn) or _plain_init_class(fn)))
            return False
        return False

    def _assign(self, sc, target, value, out, loc):
        if self._assign_function(sc, target, value, out, loc):
            return
        if isinstance(target, ast.Name) and isinstance(value, ast.Tuple) \
                and sc.store_counts.get(target.id) == 1 and target.id not in sc.env:
            # a tuple assigned once stays a tuple of operands, never built
            items = []
            for v in value.elts:
                e = self._expr(sc, v, out)
                items.append(e if made_object(e) else
                             self._snapshot(self._materialize(e, out, loc), out, loc))
            sc.env[target.id] = VTuple(items)
            return
        if isinstance(target, ast.Name) and self._maybe_static(sc, value):
            v = self._expr(sc, value, out)
            if is_static_value(v):
                self._bind_static(sc, target.id, v, out, loc, target)
                return
            var = self._store_name(sc, target.id, target)
            out.append(Op(var, ir.copy, (self._materialize(v, out, loc),), loc=loc))
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

    def _snapshot(self, v, out, loc):
        if isinstance(v, str) and not self.names.is_temp(v):
            tmp = self.fresh()
            out.append(Op(tmp, ir.copy, (v,), loc=loc))
            return tmp
        return v

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
                raise errors.UnsupportedSyntax(
                    f"cannot unpack {describe_static(value)}", loc=loc)
            if any(isinstance(e, ast.Starred) for e in target.elts):
                return self._starred_targets(sc, target, value, out, loc)
            if isinstance(value, VTuple):
                if len(value) != n:
                    raise errors.UnsupportedSyntax(
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
            obj.items_by_name[target.attr] = self._snapshot_deep(value, out, loc)
        else:
            raise errors.UnsupportedSyntax("unsupported assignment target", loc=loc)

    def _object_being_built(self, sc, target, out):
        """The object whose ``__init__`` is being inlined, for ``self.attr = ...`` in it
        (revsrc/idioms.py, `_make_object`); None for any other attribute write."""
        if not isinstance(target.value, ast.Name):
            return None
        base = sc.env.get(target.value.id)
        if isinstance(base, VRecord) and base.td is None and base.building:
            return base
        return None

    def _subscript_parts(self, sc, node, out, loc):
        if isinstance(node.value, ast.Subscript):
            return self._nested_subscript_parts(sc, node, out, loc)
        if not isinstance(node.value, ast.Name):
            raise errors.UnsupportedSyntax("only a local array can be assigned into", loc=loc)
        name = node.value.id
        base = self._resolve(sc, name, node, out)
        if is_static_value(base):
            raise errors.MutatesArgument(
                f"assigning into {name}[...] changes {describe_static(base)}"
                + (", which the caller owns" if not getattr(base, "owned", False) else
                   " under a condition or in a loop"), loc=loc,
                hint="build a new container (a dict literal) instead")
        params = param_names(sc.parsed.node)
        # (an inlined function's parameter is its caller's variable: revsrc/aliases.py
        # follows the write there, and refuses it if the caller's caller owns it)
        if not isinstance(base, str) or (name in params and not sc.prefix) \
                or name not in sc.locals:
            raise errors.MutatesArgument(
                f"assigning into {name}[...] would change an array the caller owns",
                loc=loc, hint=f"copy it first: {name} = {name}.copy()  (or np.array({name}))")
        index = self._index(sc, node.slice, out, loc)
        return base, index

    def _static_setitem(self, sc, target, value, out, loc):
        """``d[key] = value`` on a dict made in the function, with a constant key,
        outside branches and loops: the static dict changes (every name holding it
        sees the change, as in Python)."""
        if not isinstance(target.value, ast.Name):
            return False
        base = sc.env.get(target.value.id)
        if not (isinstance(base, VDict) and base.owned) or self.cond_depth or \
                self.loop_depth:
            return False
        key = self._index(sc, target.slice, out, loc)
        if not isinstance(key, Const):
            return False
        if not is_static_value(value):
            value = self._snapshot(self._materialize(value, out, loc), out, loc)
        for i, k in enumerate(base.keys):
            if k == key.value:
                base.values[i] = value
                return True
        base.keys.append(key.value)
        base.values.append(value)
        return True

    def _return(self, sc, node, out, loc):
        value = node.value
        if sc.prefix and not sc.ret_items and value is not None and not sc.has_aux \
                and (sc.ret_skeleton is not None or self._maybe_static(sc, value)):
            v = self._expr(sc, value, out)
            if is_static_value(v) or sc.ret_skeleton is not None:
                self._return_static(sc, v, out, loc)
            else:
                self._expr_copy(self._materialize(v, out, loc), sc.ret_var, out, loc)
                sc.ret_plain = True
            out.append(ir.Leave(sc.exit_label, loc=loc))
            return False
        if sc.has_aux:
            if isinstance(value, ast.Tuple) and len(value.elts) == 2:
                self._expr(sc, value.elts[0], out, into=sc.ret_var)
                self._expr(sc, value.elts[1], out, into=sc.aux_var)
            else:
                v = self._materialize(self._expr(sc, value, out), out, loc)
                out.append(Op(None, runtime.check_aux_pair, (v, Const(loc)), loc=loc))
                out.append(Op(sc.ret_var, operator.getitem, (v, Const(0)), loc=loc))
                out.append(Op(sc.aux_var, operator.getitem, (v, Const(1)), loc=loc))
        elif sc.ret_items:
            for item, var in zip(value.elts, sc.ret_items):
                self._expr(sc, item, out, into=var)
        elif value is None:
            out.append(Op(sc.ret_var, ir.copy, (Const(None),), loc=loc))
        else:
            self._expr(sc, value, out, into=sc.ret_var)
        out.append(ir.Leave(sc.exit_label, loc=loc))
        return False

    def _loop_labels(self, sc):
        self.loop_count += 1
        k = self.loop_count
        return f"{sc.prefix}_skip{k}", f"{sc.prefix}_stop{k}"

    def _loop_body(self, sc, labels, body_nodes, out):
        """Lower a loop body into a `Block` that ``continue`` leaves."""
        sc.loops.append(labels)
        inner = []
        self._block(sc, body_nodes, inner)
        sc.loops.pop()
        out.append(ir.Block(labels[0], inner))

    def _for(self, sc, node, out, loc):
        it = node.iter
        target = node.target
        call = it if isinstance(it, ast.Call) else None
        fn = self._static_callee(sc, call.func, out) if call is not None else None
        if fn is range:
            args = [self._materialize(self._expr(sc, a, out), out, loc) for a in call.args]
            if len(args) == 1:
                start, stop, step = Const(0), args[0], Const(1)
            elif len(args) == 2:
                start, stop, step = args[0], args[1], Const(1)
            else:
                start, stop, step = args
            if not isinstance(target, ast.Name):
                raise errors.UnsupportedSyntax("unpacking a range item", loc=loc)
            if self._unroll_range(sc, node, (start, stop, step), out, loc):
                return False
            var = self._store_name(sc, target.id, target)
            labels = self._loop_labels(sc)
            body = []
            self._loop_region(sc, node.body, out,
                              lambda: self._loop_body(sc, labels, node.body, body))
            out.append(For(var, start, stop, step, body, loc=loc, label=labels[1]))
            return False
        if isinstance(it, (ast.Tuple, ast.List)) and len(it.elts) <= 16 \
                and not any(isinstance(e, ast.Starred) for e in it.elts):
            return self._unroll(sc, node, it, out, loc)
        return self._for_sequence(sc, node, out, loc)

    def _as_sequence(self, operand, out, loc):
        """A loop runs over its sequence by index: an iterator (``d.items()``,
        ``zip(...)``) is made a list first."""
        made = next((o for o in reversed(out) if isinstance(o, Op) and o.target == operand),
                    None)
        if made is not None and (made.fn is ir.call_method or made.fn in _ITERATORS):
            return self._emit(out, list, (operand,), None, loc)
        return operand

    def _unroll_range(self, sc, node, bounds, out, loc):
        """``for i in range(n)`` with a constant ``n`` whose body subscripts a static
        container with ``i`` (``layers[i]``): unrolled, ``i`` a constant in each copy."""
        if not all(isinstance(b, Const) and type(b.value) is int for b in bounds) or \
                bounds[2].value == 0:
            return False
        values = range(*(b.value for b in bounds))
        if len(values) > UNROLL_LIMIT or not self._subscripts_static(sc, node.body,
                                                                       node.target.id):
            return False
        self._unroll_items(sc, node, [Const(i) for i in values], out, loc)
        return True

    def _subscripts_static(self, sc, body, name):
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Subscript) and any(
                        isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.slice)):
                    root = n.value
                    while isinstance(root, (ast.Subscript, ast.Attribute)):
                        root = root.value
                    if isinstance(root, ast.Name) and \
                            isinstance(sc.env.get(root.id), STATIC_NODES):
                        return True
        return False

    def _unroll(self, sc, node, it, out, loc):
        """A loop over a literal sequence, unrolled so each item is a plain operand."""
        items = [self._snapshot(self._val(sc, e, out), out, loc) for e in it.elts]
        return self._unroll_items(sc, node, items, out, loc)

    def _unroll_items(self, sc, node, items, out, loc):
        """A loop over items known when transforming, unrolled: a `Block` that
        ``break`` leaves, holding one ``continue`` block per item. A body that may
        leave early is lowered as the body of a loop the program runs (no static
        bindings inside), and after a ``break`` the loop's target is unusable."""
        items = [self._snapshot_deep(i, out, loc) for i in items]
        cont, brk = self._loop_labels(sc)
        breaks, leaves = leaves_loop(node.body)
        copies = []
        for item in items:
            copy = []
            if isinstance(item, Const) and isinstance(node.target, ast.Name) and \
                    not sc.no_static:
                sc.env[node.target.id] = item   # a constant in this copy
            else:
                self._assign_operand(sc, node.target, item, copy, loc)
            sc.loops.append((cont, brk))
            if leaves:
                self._loop_region(sc, node.body, copy,
                                  lambda: self._block(sc, node.body, copy))
            else:
                self._block(sc, node.body, copy)
            sc.loops.pop()
            copies.append(ir.Block(cont, copy, loc=loc))
        out.append(ir.Block(brk, copies, loc=loc))
        if breaks:
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name) and not isinstance(sc.env.get(n.id), str):
                    sc.env[n.id] = Poisoned("a loop that may break")
        return False

    def _while(self, sc, node, out, loc):
        def lower():
            test_body = []
            test = self._condition(sc, node.test, test_body)
            labels = self._loop_labels(sc)
            body = []
            self._loop_body(sc, labels, node.body, body)
            return test_body, test, body, labels
        test_body, test, body, labels = self._loop_region(sc, node.body, out, lower)
        out.append(While(test_body, test, body, loc=loc, label=labels[1]))
        return False

    # ----- expressions --------------------------------------------------
    def _condition(self, sc, node, out):
        v = self._expr(sc, node, out)
        return self._materialize(v, out, sc.parsed.loc(node))

    def _materialize(self, v, out, loc):
        """``v`` as an operand of the program: a static container is built as a value
        (a tuple or list whose items carry their adjoints; a dict, namedtuple or
        dataclass that carries none, refused if a differentiated value reaches it)."""
        if isinstance(v, VTuple):
            items = tuple(self._materialize(i, out, loc) for i in v)
            if v.cls is not None:
                return self._emit(out, ir.make_node, (Const(v.cls),) + items, None, loc)
            if v.seq == "list":
                return self._emit(out, ir.make_list, items, None, loc)
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            tmp = self.fresh()
            out.append(Op(tmp, ir.make_tuple, items, loc=loc))
            return tmp
        if isinstance(v, VDict):
            items = []
            for k, x in zip(v.keys, v.values):
                items += [Const(k), self._materialize(x, out, loc)]
            return self._emit(out, ir.make_dict, items, None, loc)
        if isinstance(v, VRecord) and v.td is None:
            raise errors.UnsupportedSyntax(
                f"a {v.probe.__name__} object made in the function can have its attributes "
                "read and its methods called there, but not be stored in a value the "
                "program builds when it runs, returned, or passed to a library function",
                loc=loc, hint="keep the objects in a list or tuple written out in the "
                "function, or pass them in as an argument")
        if isinstance(v, VRecord):
            items = tuple(self._materialize(i, out, loc) for i in v.items)
            return self._emit(out, ir.make_node, (Const(v.td),) + items, None, loc)
        if isinstance(v, Known):
            value = v.value
            if isinstance(value, NestedDef):
                raise errors.UnsupportedSyntax(
                    "a nested function can only be called, not passed as a value", loc=loc)
            return Const(value)
        return v

    def _snapshot_deep(self, v, out, loc):
        """``v`` with each user variable inside it copied: a static container keeps
        the values its items had when it was made."""
        if isinstance(v, str):
            return self._snapshot(v, out, loc)
        if isinstance(v, VTuple):
            return vtuple([self._snapshot_deep(i, out, loc) for i in v], v.seq, v.cls,
                          v.probe if v.cls is not None else None)
        # (a dict or record made in the function holds copies already, and one taken
        # apart at the boundary holds parameters, which are never assigned)
        return v

    def _emit(self, out, fn, args, into, loc, kwargs=()):
        target = into if into is not None else self.fresh()
        out.append(Op(target, fn, tuple(args), tuple(kwargs), loc=loc))
        return target

    def _expr(self, sc, node, out, into=None):
        """Lower ``node``; returns its operand (``into`` when given)."""
        loc = sc.parsed.loc(node)
        v = self._expr_value(sc, node, out, into, loc)
        if into is not None and v != into:
            v = self._materialize(v, out, loc)
            out.append(Op(into, ir.copy, (v,), loc=loc))
            return into
        return v

    def _expr_value(self, sc, node, out, into, loc):
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self._resolve(sc, node.id, node, out)
        if isinstance(node, ast.BinOp):
            fn = _BINOPS.get(type(node.op))
            a = self._val(sc, node.left, out)
            b = self._val(sc, node.right, out)
            return self._emit(out, fn, (a, b), into, loc)
        if isinstance(node, ast.UnaryOp):
            fn = _UNARY[type(node.op)]
            a = self._val(sc, node.operand, out)
            if isinstance(a, Const) and fn is operator.neg and isinstance(a.value, (int, float)):
                return Const(-a.value)
            return self._emit(out, fn, (a,), into, loc)
        if isinstance(node, ast.Compare):
            return self._compare(sc, node, out, into, loc)
        if isinstance(node, ast.BoolOp):
            return self._boolop(sc, node, out, into, loc)
        if isinstance(node, ast.IfExp):
            test = self._condition(sc, node.test, out)
            target = into if into is not None else self.fresh()
            body, orelse = [], []
            self._expr(sc, node.body, body, into=target)
            self._expr(sc, node.orelse, orelse, into=target)
            out.append(If(test, body, orelse, loc=loc))
            return target
        if isinstance(node, ast.Call):
            return self._call(sc, node, out, into, loc)
        if isinstance(node, ast.Attribute):
            return self._attribute(sc, node, out, into, loc)
        if isinstance(node, ast.Subscript):
            base = self._expr(sc, node.value, out)
            if isinstance(base, STATIC_NODES):
                idx = self._index(sc, node.slice, out, loc)
                got = self._static_item(sc, node.value, base, idx, loc)
                if got is not None:
                    return got
                base = self._materialize(base, out, loc)
                return self._emit(out, operator.getitem, (base, idx), into, loc)
            base = self._materialize(base, out, loc)
            if isinstance(base, Const) and any(base.value is c for c in (np.r_, np.c_)):
                # np.r_[a, b]: a call over the items, which a rule can differentiate
                elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                items = [self._index(sc, e, out, loc) for e in elts]
                lst = self._emit(out, ir.make_list, items, None, loc)
                fn = runtime.r_ if base.value is np.r_ else runtime.c_
                return self._emit(out, fn, (lst,), into, loc)
            idx = self._index(sc, node.slice, out, loc)
            return self._emit(out, operator.getitem, (base, idx), into, loc)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(sc, node, out, into, loc)
        if isinstance(node, ast.Lambda):
            return self._lambda_value(sc, node, loc)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return self._comprehension(sc, node, out, into, loc)
        if isinstance(node, ast.Dict):
            if all(isinstance(k, ast.Constant) for k in node.keys):
                # constant keys: a static dict (each subscript reads its value)
                d = VDict([], [], owned=True)
                for k, v in zip(node.keys, node.values):
                    value = self._snapshot_deep(self._expr(sc, v, out), out, loc)
                    if isinstance(value, Known):
                        value = self._materialize(value, out, loc)
                    if k.value in d.keys:
                        d.values[d.keys.index(k.value)] = value
                    else:
                        d.keys.append(k.value)
                        d.values.append(value)
                return d
            if any(k is None for k in node.keys):
                raise errors.UnsupportedSyntax("** in a dict literal is not supported", loc=loc,
                                               hint="list the keys")
            items = []
            for k, v in zip(node.keys, node.values):
                items += [self._val(sc, k, out), self._val(sc, v, out)]
            return self._emit(out, ir.make_dict, items, into, loc)
        if isinstance(node, ast.Starred):
            raise errors.UnsupportedSyntax(
                "star-arguments (*args) are supported only in calls, on a container "
                "known when transforming", loc=loc, hint="pass the arguments one by one")
        if isinstance(node, (ast.Tuple, ast.List)):
            values = [self._expr(sc, e, out) for e in node.elts]
            if any(made_object(v) for v in values):
                # objects made in the function stay static: a list of layers is
                # known when transforming, and a loop over it is unrolled
                return vtuple([self._snapshot_deep(v, out, loc) for v in values],
                              "list" if isinstance(node, ast.List) else "tuple")
            items = [self._materialize(v, out, sc.parsed.loc(e))
                     for v, e in zip(values, node.elts)]
            if isinstance(node, ast.List):
                return self._emit(out, ir.make_list, items, into, loc)
            return VTuple(items)
        raise errors.UnsupportedSyntax(
            f"{type(node).__name__} expressions are not supported", loc=loc)

    def _val(self, sc, node, out):
        return self._materialize(self._expr(sc, node, out), out, sc.parsed.loc(node))

    def _index(self, sc, node, out, loc):
        if isinstance(node, ast.Slice):
            parts = [self._val(sc, p, out) if p is not None else Const(None)
                     for p in (node.lower, node.upper, node.step)]
            if all(isinstance(p, Const) for p in parts):
                return Const(slice(*(p.value for p in parts)))
            return self._emit(out, slice, parts, None, loc)
        if isinstance(node, ast.Tuple):
            items = [self._index(sc, e, out, loc) for e in node.elts]
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            return self._emit(out, ir.make_tuple, items, None, loc)
        return self._val(sc, node, out)

    def _compare(self, sc, node, out, into, loc):
        left = self._val(sc, node.left, out)
        if len(node.ops) == 1:
            right = self._val(sc, node.comparators[0], out)
            return self._compare_op(node.ops[0], left, right, out, into, loc)
        # a < b < c: b is evaluated once, c only when a < b holds
        target = into if into is not None else self.fresh()
        cur = out
        for op, comp in zip(node.ops, node.comparators):
            right = self._val(sc, comp, cur)
            self._compare_op(op, left, right, cur, target, loc)
            nxt = []
            cur.append(If(target, nxt, [], loc=loc))
            cur = nxt
            left = right
        return target

    def _compare_op(self, op, left, right, out, into, loc):
        if isinstance(op, ast.In):
            return self._emit(out, operator.contains, (right, left), into, loc)
        if isinstance(op, ast.NotIn):
            t = self._emit(out, operator.contains, (right, left), None, loc)
            return self._emit(out, operator.not_, (t,), into, loc)
        return self._emit(out, _COMPARE[type(op)], (left, right), into, loc)

    def _boolop(self, sc, node, out, into, loc):
        target = into if into is not None else self.fresh()
        is_and = isinstance(node.op, ast.And)
        cur = out
        values = node.values
        for i, v in enumerate(values):
            self._expr(sc, v, cur, into=target)
            if i < len(values) - 1:
                nxt = []
                cur.append(If(target, nxt, [], loc=loc) if is_and else
                           If(target, [], nxt, loc=loc))
                cur = nxt
        return target

    def _attribute(self, sc, node, out, into, loc):
        base = self._expr(sc, node.value, out)
        if isinstance(base, STATIC_NODES):
            return self._static_attribute(sc, base, node.attr, out, into, loc)
        if isinstance(base, Known):
            value = base.value
            try:
                attr = getattr(value, node.attr)
            except AttributeError:
                raise errors.UnsupportedSyntax(
                    f"{short(value)} has no attribute {node.attr!r}", loc=loc) from None
            if is_static(attr):
                if isinstance(value, types.ModuleType):
                    self._depend(vars(value), node.attr, attr)
                return Known(attr)
            if isinstance(value, types.ModuleType):
                # NumPy's and math's constants are fixed; a user module's may be rebound
                if value in (math, np) or attr is None:
                    return Const(attr)
                return self._emit(out, ir.load_global, (Const(vars(value)), Const(node.attr)),
                                  into, loc)
            return self._emit(out, getattr, (Const(value), Const(node.attr)), into, loc)
        base = self._materialize(base, out, loc)
        if node.attr in _ATTRS_NONDIFF:
            return self._emit(out, getattr, (base, Const(node.attr)), into, loc)
        fn = _ATTRS_FN.get(node.attr)
        if fn is not None:
            return self._emit(out, fn, (base,), into, loc)
        if node.attr in containers.RESULT_FIELDS:   # np.linalg.eigh(a).eigenvalues
            return self._emit(out, containers.result_field, (base, Const(node.attr)), into,
                              loc)
        # an attribute of a value that carries no gradient (a config object, an
        # argument not differentiated): read when the program runs; refused where a
        # differentiated value reaches it (revsrc/analysis.py)
        return self._emit(out, ir.get_attribute, (base, Const(node.attr)), into, loc)

    def _static_attribute(self, sc, base, attr, out, into, loc):
        """``base.attr`` on a static container: a namedtuple's or dataclass's field,
        a property, a static field, a class attribute."""
        if isinstance(base, VDict) or (isinstance(base, VTuple) and base.cls is None):
            raise errors.UnsupportedSyntax(
                f"attribute .{attr} of {describe_static(base)} is not supported", loc=loc)
        if isinstance(base, VRecord) and base.td is None:   # an object made in the function
            if attr in base.items_by_name:
                return base.items_by_name[attr]
            cls = base.probe
            probe = None
        else:
            if isinstance(base, VTuple) and attr in base.cls._fields:
                return base[base.cls._fields.index(attr)]
            probe = base.probe
            if probe is None:
                raise errors.UnsupportedSyntax(
                    f"the attributes of {describe_static(base)} cannot be read: its class's "
                    "unflatten does not build an instance revsrc can look into", loc=loc)
            cls = type(probe)
        found = inspect.getattr_static(cls if probe is None else probe, attr, MISSING)
        if isinstance(found, property) and found.fget is not None:
            return self._inline_callable(sc, found.fget, [base], [], out, into, loc)
        if found is MISSING:
            raise errors.UnsupportedSyntax(f"{cls.__name__} has no attribute {attr!r}",
                                           loc=loc)
        if probe is not None and (attr in getattr(probe, "__dict__", {}) or isinstance(
                inspect.getattr_static(cls, attr, None), types.MemberDescriptorType)):
            return self._from_probe(base, getattr(probe, attr), loc)
        if isinstance(found, (types.FunctionType, staticmethod, classmethod)):
            return Known(BoundMethod(base, found))
        if hasattr(type(found), "__get__") or hasattr(type(found), "__set__"):
            # a descriptor (functools.cached_property, one of the user's): what it gives
            # depends on the instance, which revsrc does not build
            raise errors.UnsupportedSyntax(
                f"{cls.__name__}.{attr} is a descriptor ({type(found).__name__}); revsrc "
                "reads plain attributes, properties and methods of objects built in the "
                "function", loc=loc, hint="use a @property, or store the value in __init__")
        value = getattr(cls, attr)
        if is_static(value):
            return Known(value)
        # class-level data: read when the program runs (it may be changed)
        return self._emit(out, getattr, (Const(cls), Const(attr)), into, loc)

    def _from_probe(self, base, v, loc):
        items = base.items if isinstance(base, VRecord) else list(base)
        if isinstance(v, Slot):
            return items[v.i]
        if type(v) in (tuple, list):
            return vtuple([self._from_probe(base, x, loc) for x in v],
                          "list" if type(v) is list else "tuple")
        if type(v) is dict:
            return VDict(list(v.keys()), [self._from_probe(base, x, loc) for x in v.values()])
        if mentions_slot(v):
            raise errors.UnsupportedSyntax(
                f"an attribute of {describe_static(base)} is computed from its children "
                "by its class (its unflatten), so which values it holds is not known when "
                "transforming", loc=loc,
                hint="store the children as attributes, unchanged, in unflatten")
        if is_static(v):
            return Known(v)
        return Const(v)   # a static field (part of the container's structure)

    def _static_item(self, sc, node, base, idx, loc):
        """``base[idx]`` on a static container with a constant index (None: not
        static, the container is built and indexed as a value)."""
        if not isinstance(idx, Const):
            return None
        k = idx.value
        if isinstance(base, VTuple):
            if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
                if not -len(base) <= k < len(base):
                    raise errors.UnsupportedSyntax(
                        f"index {k} is out of range for {describe_static(base)}", loc=loc)
                return base[int(k)]
            if isinstance(k, slice):
                return vtuple(base[k], base.seq if base.cls is None else "tuple")
            return None
        if isinstance(base, VDict):
            try:
                hash(k)
            except TypeError:
                return None
            got = base.get(k, MISSING)
            if got is MISSING:
                raise errors.UnsupportedSyntax(
                    f"key {k!r} is not in {describe_static(base)} (its keys: "
                    f"{', '.join(repr(x) for x in base.keys[:8])}"
                    f"{'...' if len(base.keys) > 8 else ''})", loc=loc)
            return got
        raise errors.UnsupportedSyntax(f"{describe_static(base)} cannot be subscripted",
                                       loc=loc)

    def _static_callee(self, sc, func, out):
        if isinstance(func, ast.Name):
            r = self._resolve(sc, func.id, func, out)
        elif isinstance(func, ast.Attribute):
            base = self._static_callee(sc, func.value, out)
            if base is None:
                return None
            try:
                attr = getattr(base, func.attr)
            except AttributeError:
                return None
            if isinstance(base, types.ModuleType):
                self._depend(vars(base), func.attr, attr)
            return attr
        else:
            return None
        if isinstance(r, Known):
            return r.value
        if isinstance(r, Const) and is_static(r.value):
            return r.value   # a function passed to the function being inlined
        return None

    def _call(self, sc, node, out, into, loc):
        func = node.func
        if isinstance(func, ast.Attribute):
            base = self._expr(sc, func.value, out)
            if isinstance(base, STATIC_NODES):
                found = self._static_attribute(sc, base, func.attr, out, None, loc) \
                    if not isinstance(base, VDict) and not (isinstance(base, VTuple)
                                                             and base.cls is None) \
                    and func.attr not in ("_replace", "_asdict") else None
                if isinstance(found, Known):
                    fn = found.value
                else:
                    return self._container_method(sc, base, func.attr, node, out, into, loc)
            elif isinstance(base, Known):
                try:
                    fn = getattr(base.value, func.attr)
                except AttributeError:
                    raise errors.UnsupportedSyntax(
                        f"{short(base.value)} has no attribute {func.attr!r}", loc=loc) from None
                if isinstance(base.value, types.ModuleType):
                    self._depend(vars(base.value), func.attr, fn)
            else:
                return self._method(sc, node, base, out, into, loc)
        else:
            fn = self._static_callee(sc, func, out)
            if fn is None and isinstance(func, ast.Name):
                v = sc.env.get(func.id)
                if isinstance(v, STATIC_NODES) and not isinstance(v, VDict):
                    # an object made from parameters, called: its class's __call__
                    return self._container_method(sc, v, "__call__", node, out, into, loc)
        if fn is None:
            raise errors.UnsupportedSyntax(
                "calling a value computed inside the function is not supported", loc=loc,
                hint="call functions by name")
        if not sc.rule_mode and (inplace.value_form(fn) is not None or
                                 inplace.writes_into(fn)):
            # np.add.at(...) used as a value: the write, then its None
            self._inplace_call(sc, node, fn, out, loc)
            return Const(None)
        if fn is zip and len(node.args) == 1 and isinstance(node.args[0], ast.Starred) \
                and not node.keywords:
            # zip(*pairs): a sequence of sequences of a length known only at run time,
            # unzipped (its rule transposes the adjoints back)
            seq = self._expr(sc, node.args[0].value, out)
            args, kwargs = spread(seq), []
            if args is None:
                return self._emit(out, containers.unzip, [self._materialize(seq, out, loc)],
                                  into, loc)
        else:
            args, kwargs = self._call_args(sc, node, out, loc)
        if isinstance(fn, BoundMethod):
            obj, found = fn.obj, fn.fn
            if isinstance(found, staticmethod):
                return self._inline_callable(sc, found.__func__, args, kwargs, out, into, loc)
            if isinstance(found, classmethod):
                cls = obj.probe if getattr(obj, "td", 1) is None else type(obj.probe)
                return self._inline_callable(sc, found.__func__, [Known(cls)] + args,
                                             kwargs, out, into, loc)
            return self._inline_callable(sc, found, [obj] + args, kwargs, out, into, loc)
        if isinstance(fn, NestedDef):
            return self._inline_def(sc, fn.scope, fn.node, args, kwargs, out, into, loc)
        if fn in _SIDE_EFFECTS:
            raise errors.SideEffect(
                f"calling {getattr(fn, '__name__', fn)}() is a side effect revsrc refuses",
                loc=loc, hint="differentiated functions must be pure; do I/O outside them")
        static = self._static_builtin(sc, fn, args, kwargs, out, loc)
        if static is not None:
            return static
        if isinstance(fn, type) and _is_record_class(fn) and not sc.rule_mode:
            return self._construct(sc, fn, args, kwargs, out, loc)
        if isinstance(fn, type) and not sc.rule_mode and _plain_init_class(fn):
            return self._make_object(sc, fn, args, kwargs, out, loc)
        if not sc.rule_mode and rules.lookup(fn) is None and not inlinable(fn) and \
                user_callable(fn):
            return self._inline_callable(sc, fn, args, kwargs, out, into, loc)
        if not sc.rule_mode and rules.lookup(fn) is None and inlinable(fn):
            if is_library(fn):
                return self._inline_library(fn, args, kwargs, out, into, loc)
            return self._inline_function(sc, fn, args, kwargs, out, into, loc)
        if any(k == "out" and not (isinstance(v, Const) and v.value is None)
               for k, v in kwargs) and _is_numpy_callable(fn):
            raise errors.SideEffect(
                f"out= makes {getattr(fn, '__name__', 'this function')} write its result "
                "into an existing array, which revsrc does not follow", loc=loc,
                hint="assign the result instead: a = np.multiply(x, y), or a[...] = ...")
        # a revsrc derivative stays a call here: its program depends on its arguments'
        # kinds, so revsrc/frontend.py inlines it once they are known
        args = [self._materialize(a, out, loc) for a in args]
        kwargs = [(k, self._materialize(v, out, loc)) for k, v in kwargs]
        special = self._builtin_call(fn, args, kwargs, out, into, loc)
        if special is not None:
            return special
        return self._emit(out, fn, args, into, loc, kwargs)

    def _call_args(self, sc, node, out, loc):
        """The positional and keyword operands of a call; ``*x`` and ``**x`` of a
        container known when transforming are spread into them."""
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self._expr(sc, a.value, out)
                items = spread(v)
                if items is None:
                    raise errors.UnsupportedSyntax(
                        "star-arguments (*args) are supported on a tuple, list or dict "
                        "whose length is known when transforming", loc=loc,
                        hint="pass the arguments one by one")
                args.extend(items)
            else:
                args.append(self._expr(sc, a, out))
        kwargs = []
        for k in node.keywords:
            if k.arg is None:
                v = self._expr(sc, k.value, out)
                if not (isinstance(v, VDict) and all(isinstance(x, str) for x in v.keys)):
                    raise errors.UnsupportedSyntax(
                        "**kwargs in a call is supported on a dict whose keys are known "
                        "when transforming", loc=loc, hint="pass keyword arguments by name")
                kwargs.extend(zip(v.keys, v.values))
            else:
                kwargs.append((k.arg, self._expr(sc, k.value, out)))
        return args, kwargs

    def _static_builtin(self, sc, fn, args, kwargs, out, loc):
        """Builtins applied to static containers, evaluated when transforming
        (len, sorted, list, tuple, reversed, isinstance, sum...); None otherwise."""
        if not args or not isinstance(fn, types.BuiltinFunctionType) and fn not in (
                list, tuple, dict, reversed, enumerate, zip, sorted):
            if fn is dict and not args:
                return VDict([k for k, _ in kwargs],
                             [self._snapshot_deep(v, out, loc) for _, v in kwargs], owned=True)
            return None
        a = args[0]
        if fn is isinstance and len(args) == 2 and isinstance(a, STATIC_NODES):
            classes = args[1]
            classes = classes.value if isinstance(classes, Const) else \
                classes.value if isinstance(classes, Known) else None
            if classes is None:
                return None
            try:
                return Const(issubclass(class_of(a), classes))
            except TypeError:
                return None
        if not isinstance(a, STATIC_NODES) or kwargs and fn is not sorted:
            return None
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
            acc = self._materialize(seq[0], out, loc)
            for x in seq[1:]:
                acc = self._emit(out, fn, (acc, self._materialize(x, out, loc)), None, loc)
            return acc
        return None

    def _construct(self, sc, cls, args, kwargs, out, loc):
        """``Cls(...)`` for a namedtuple, a dataclass or a class whose ``__init__``
        only stores its arguments: a static container of the operands."""
        from ..core import pytree
        if pytree.node_of_class(cls) == "namedtuple":
            bound = _bind_class(cls, cls, args, kwargs, loc)
            items = [self._snapshot_deep(bound[f], out, loc) for f in cls._fields]
            return vtuple(items, cls=cls, probe=cls._make([Slot(i) for i in range(len(items))]))
        if pytree.node_of_class(cls) == "dataclass":
            if getattr(cls, "__post_init__", None) is not None or any(
                    not f.init for f in dataclasses.fields(cls)):
                raise errors.UnsupportedSyntax(
                    f"{cls.__name__} has __post_init__ or fields set outside __init__: "
                    "revsrc builds dataclasses only from their fields", loc=loc,
                    hint="build it outside the function and pass it in")
            bound = _bind_class(cls, cls, args, kwargs, loc)
            fields = dataclasses.fields(cls)
            static = [f for f in fields if f.metadata.get("static", False)]
            fixed = []
            for f in static:
                v = bound[f.name]
                if not isinstance(v, Const):
                    raise errors.UnsupportedSyntax(
                        f"static field {f.name} of {cls.__name__} gets a value computed in "
                        "the function", loc=loc, hint="pass a constant")
                fixed.append((f.name, v.value))
            names = tuple(f.name for f in fields if f not in static)
            td = pytree.TreeDef("dataclass", cls, (names, tuple(fixed)),
                                tuple(pytree.TreeDef(pytree.LEAF) for _ in names))
            items = [self._snapshot_deep(bound[n], out, loc) for n in names]
            return static_node(td, items)
        raise errors.UnsupportedSyntax(  # pragma: no cover - _is_record_class says which
            f"{cls.__name__} cannot be built in a differentiated function", loc=loc)

    def _builtin_call(self, fn, args, kwargs, out, into, loc):
        if fn in (max, min) and not kwargs:
            if len(args) == 1:
                return self._extremum_of_sequence(fn, args[0], out, into, loc)
            acc = args[0]
            for i, a in enumerate(args[1:]):
                acc = self._emit(out, fn, (acc, a), into if i == len(args) - 2 else None, loc)
            return acc
        if fn is sum and len(args) == 1 and not kwargs:
            return None
        if fn is float and len(args) == 1:
            return self._emit(out, float, args, into, loc)
        return None

    def _method(self, sc, node, base, out, into, loc):
        func = node.func
        base = self._materialize(base, out, loc)
        name = func.attr
        args, kwargs = self._call_args(sc, node, out, loc)
        args = [self._materialize(a, out, loc) for a in args]
        kwargs = [(k, self._materialize(v, out, loc)) for k, v in kwargs]
        if name in containers.DICT_METHODS and not kwargs:   # d.items(), d.get(k)...
            return self._emit(out, containers.DICT_METHODS[name], [base] + args, into, loc)
        if name in ("append", "extend", "insert", "pop", "update", "fill", "sort",
                    "resize", "setdefault", "clear", "remove", "popitem", "add",
                    "discard", "put", "itemset", "partition", "setflags"):
            raise errors.SideEffect(
                f"method .{name}() is not supported (it may change its object in place)",
                loc=loc, hint="use the NumPy function, e.g. np.sum(x) for x.sum()")
        if name not in _METHODS or (isinstance(base, Const) and
                                    not isinstance(base.value, (np.ndarray, np.generic))):
            # a method of a value that carries no gradient (rng.normal(...),
            # name.lower()): it runs; refused where a differentiated value reaches it
            return self._emit(out, ir.call_method, [base, Const(name)] + args, into, loc,
                              kwargs)
        if name == "astype":
            return self._emit(out, _astype, [base] + args, into, loc, kwargs)
        if name == "item":
            return self._emit(out, float, [base], into, loc)
        fn = _METHODS[name]
        if name in _VARARG_SHAPE_METHODS and len(args) > 1:
            args = [self._emit(out, ir.make_tuple, args, None, loc)] \
                if not all(isinstance(a, Const) for a in args) else \
                [Const(tuple(a.value for a in args))]
        if name == "transpose" and not args:
            return self._emit(out, np.transpose, [base], into, loc)
        return self._emit(out, fn, [base] + args, into, loc, kwargs)

    def _container_method(self, sc, base, name, node, out, into, loc):
        """``base.name(...)`` on a static container: dict views, namedtuple helpers,
        and methods of a namedtuple's, dataclass's or registered class's own class
        (inlined with ``self`` the container)."""
        args, kwargs = self._call_args(sc, node, out, loc)
        if isinstance(base, VDict):
            if name in ("items", "keys", "values") and not args and not kwargs:
                if name == "keys":
                    return vtuple([Const(k) for k in base.keys], "list")
                if name == "values":
                    return vtuple(list(base.values), "list")
                return vtuple([VTuple((Const(k), v)) for k, v in zip(base.keys, base.values)],
                              "list")
            if name == "get" and 1 <= len(args) <= 2 and not kwargs and \
                    isinstance(args[0], Const):
                return base.get(args[0].value, args[1] if len(args) == 2 else Const(None))
            if name == "copy" and not args and not kwargs:
                return VDict(base.keys, base.values, owned=True)
        elif isinstance(base, VTuple) and base.cls is not None and name == "_asdict":
            return VDict(list(base.cls._fields), list(base), owned=True)
        elif isinstance(base, VTuple) and base.cls is not None and name == "_replace":
            items = list(base)
            for k, v in kwargs:
                if k not in base.cls._fields:
                    raise errors.UnsupportedSyntax(f"{base.cls.__name__} has no field {k!r}",
                                                   loc=loc)
                items[base.cls._fields.index(k)] = self._snapshot_deep(v, out, loc)
            return vtuple(items, cls=base.cls, probe=base.probe)
        elif isinstance(base, VTuple) and base.cls is None and name == "copy" and \
                base.seq == "list" and not args:
            return vtuple(list(base), "list")
        elif not isinstance(base, VTuple) or base.cls is not None:
            found = self._static_attribute(sc, base, name, out, None, loc)
            if isinstance(found, Known):
                fn = found.value
                if isinstance(fn, BoundMethod):
                    obj, f = fn.obj, fn.fn
                    if isinstance(f, staticmethod):
                        return self._inline_callable(sc, f.__func__, args, kwargs, out,
                                                     into, loc)
                    if isinstance(f, classmethod):
                        return self._inline_callable(sc, f.__func__,
                                                     [Known(class_of(obj))] + args,
                                                     kwargs, out, into, loc)
                    return self._inline_callable(sc, f, [obj] + args, kwargs, out, into, loc)
        raise errors.UnsupportedSyntax(
            f"method .{name}() of {describe_static(base)} is not supported", loc=loc,
            hint="dicts: .items(), .keys(), .values(), .get(key), .copy(); "
                 "namedtuples: ._replace(...), ._asdict(); and the methods of your own "
                 "classes")

    def _inline_callable(self, sc, fn, args, kwargs, out, into, loc):
        """Inline a call of ``fn``: a function, bound method, partial or object with a
        ``__call__`` method (revsrc/callee.py says which function and what it is
        given first)."""
        from . import callee as callee_mod
        if isinstance(fn, types.FunctionType):
            if not inlinable(fn):
                return self._emit(out, fn, [self._materialize(a, out, loc) for a in args],
                                  into, loc, [(k, self._materialize(v, out, loc))
                                              for k, v in kwargs])
            return self._inline_function(sc, fn, args, kwargs, out, into, loc)
        c = callee_mod.unwrap(fn)
        pre = []
        for p, v in zip(positional_names(c.fn), c.pre):
            pre.append(Known(v) if p in c.static else known_or_const(v))
        pre_kwargs = [(k, known_or_const(v))
                      for k, v in c.pre_kwargs.items()]
        given = dict(kwargs)
        return self._inline_function(sc, c.fn, pre + list(args),
                                     [kv for kv in pre_kwargs if kv[0] not in given] +
                                     list(kwargs), out, into, loc)

    # ----- inlining -----------------------------------------------------
    def _inline_function(self, sc, fn, args, kwargs, out, into, loc):
        if fn in self.inline_stack:
            raise errors.RecursionNotSupported(
                f"{fn.__qualname__} calls itself (recursion); revsrc inlines calls and "
                "cannot differentiate recursion", loc=loc,
                hint="rewrite the recursion as a loop")
        if len(self.inline_stack) > 50:
            raise errors.RecursionNotSupported("calls nested deeper than 50 levels", loc=loc)
        parsed = parse_function(fn)
        fence.check(parsed)
        node = parsed.node
        names, _ = assigned_names(node.body if not isinstance(node, ast.Lambda) else [])
        params = param_names(node)
        base = fn.__code__.co_name if fn.__code__.co_name != "<lambda>" else "lambda"
        prefix = self.choose_prefix(base, names | set(params) | {"ret", "done"})
        callee = Scope(parsed, prefix, fn.__globals__,
                       dict(zip(fn.__code__.co_freevars, fn.__closure__ or ())), fn=fn)
        bound = self._bind(fn, params, args, kwargs, loc)
        return self._inline_body(callee, fn, node, params, names, bound, out, into, loc)

    def _inline_body(self, callee, key, node, params, names, bound, out, into, loc):
        """Lower a callee's body in place of its call; returns the call's value."""
        self._bind_params(callee, params, names, bound, out, loc)
        self.inline_stack.append(key)
        result = self._lower_body(callee, node, out)
        self.inline_stack.pop()
        if into is not None and isinstance(result, STATIC_NODES):
            result = self._materialize(result, out, loc)
        return result if into is None else self._expr_copy(result, into, out, loc)

    def _inline_def(self, sc, def_scope, node, args, kwargs, out, into, loc):
        if any(s is node for s in self.inline_stack):
            raise errors.RecursionNotSupported(
                f"{node.name} calls itself (recursion); revsrc cannot differentiate recursion",
                loc=loc, hint="rewrite the recursion as a loop")
        names, _ = assigned_names(node.body)
        params = param_names(node)
        prefix = self.choose_prefix(sc.prefix + node.name, names | set(params) | {"ret", "done"})
        callee = Scope(def_scope.parsed, prefix, def_scope.globals, def_scope.cells,
                       enclosing=def_scope)
        a = node.args
        positional = [x.arg for x in a.posonlyargs + a.args]
        defaults = {}
        pos_defaults = a.defaults
        for x, d in zip(positional[len(positional) - len(pos_defaults):], pos_defaults):
            defaults[x] = d
        for x, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                defaults[x.arg] = d
        bound = {}
        for p, v in zip(positional, args):
            bound[p] = v
        if a.vararg is not None:
            bound[a.vararg.arg] = VTuple(args[len(positional):])   # *params: its items
        elif len(args) > len(positional):
            raise errors.UnsupportedSyntax(f"{node.name}() takes {len(positional)} "
                                           f"positional arguments", loc=loc)
        by_name = [x.arg for x in a.args + a.kwonlyargs]
        extra = []
        for k, v in kwargs:
            if k in by_name and k not in bound:
                bound[k] = v
            elif a.kwarg is not None and k not in bound:
                extra.append((k, v))
            else:
                raise errors.UnsupportedSyntax(f"bad keyword argument {k}", loc=loc)
        if a.kwarg is not None:
            bound[a.kwarg.arg] = VDict([k for k, _ in extra], [v for _, v in extra])
        for p in params:
            if p not in bound:
                if p not in defaults:
                    raise errors.UnsupportedSyntax(f"missing argument {p}", loc=loc)
                bound[p] = self._val(def_scope, defaults[p], out)
        return self._inline_body(callee, node, node, params, names, bound, out, into, loc)

    def _expr_copy(self, value, into, out, loc):
        out.append(Op(into, ir.copy, (value,), loc=loc))
        return into

    def _bind(self, fn, params, args, kwargs, loc):
        # the function's own signature, never what functools.wraps says it wraps
        sig = inspect.signature(fn, follow_wrapped=False)
        try:
            ba = sig.bind(*range(len(args)), **{k: ("kw", k) for k, _ in kwargs})
        except TypeError as exc:
            raise errors.UnsupportedSyntax(f"call to {fn.__name__}: {exc}", loc=loc)
        kw = dict(kwargs)

        def value(marker):
            return kw[marker[1]] if isinstance(marker, tuple) else args[marker]
        bound = {}
        P = inspect.Parameter
        for p in params:
            kind = sig.parameters[p].kind
            if kind is P.VAR_POSITIONAL:
                bound[p] = VTuple(value(m) for m in ba.arguments.get(p, ()))
            elif kind is P.VAR_KEYWORD:
                given = ba.arguments.get(p, {})
                bound[p] = VDict(list(given), [value(m) for m in given.values()])
            elif p in ba.arguments:
                bound[p] = value(ba.arguments[p])
            else:
                default = sig.parameters[p].default
                bound[p] = known_or_const(default)
        return bound

    def _bind_params(self, callee, params, assigned, bound, out, loc):
        for p in params:
            value = bound[p]
            if is_static_value(value):
                # a function, module or container known when transforming: the
                # parameter stands for it
                callee.env[p] = value
                continue
            if p in assigned:
                var = self._reserve(callee.prefix + p)
                callee.env[p] = var
                out.append(Op(var, ir.copy, (self._materialize(value, out, loc),), loc=loc))
            else:
                callee.env[p] = value  # never reassigned: read the caller's operand

    def _return_static(self, sc, v, out, loc):
        """``return v`` in an inlined function, ``v`` a static container: its operands
        go to result variables of the same shape, the same in every return."""
        if sc.ret_plain or not is_static_value(v):
            raise errors.UnsupportedSyntax(
                "a function that returns a container in one place returns something "
                "else in another", loc=loc, hint="return the same kind of value everywhere")
        if sc.ret_skeleton is None:
            counter = [0]

            def shape(x):
                if isinstance(x, VTuple):
                    return vtuple([shape(i) for i in x], x.seq, x.cls,
                                  x.probe if x.cls is not None else None)
                if isinstance(x, VDict):
                    return VDict(x.keys, [shape(i) for i in x.values])
                if isinstance(x, VRecord):
                    r = VRecord(x.td, [shape(i) for i in x.items], x.probe)
                    r.items_by_name = {k: shape(i) for k, i in x.items_by_name.items()}
                    return r
                if isinstance(x, Known):
                    return x   # a function: the same in every return
                counter[0] += 1
                return self.names.internal(f"{sc.prefix}ret{counter[0]}")
            sc.ret_skeleton = shape(v)

        def fill(skel, x):
            same = type(skel) is type(x) and (
                (isinstance(x, VTuple) and len(x) == len(skel) and x.seq == skel.seq
                 and x.cls is skel.cls) or
                (isinstance(x, VDict) and x.keys == skel.keys) or
                (isinstance(x, VRecord) and x.td == skel.td and
                 set(x.items_by_name) == set(skel.items_by_name)))
            if isinstance(skel, str):
                if is_static_value(x):
                    same = False
                else:
                    out.append(Op(skel, ir.copy, (self._materialize(x, out, loc),), loc=loc))
                    return
            elif isinstance(skel, Known):
                if not (isinstance(x, Known) and x.value is skel.value):
                    same = False
                else:
                    return
            if not same:
                raise errors.UnsupportedSyntax(
                    "this function returns containers of different shapes", loc=loc,
                    hint="return the same keys and items everywhere")
            if isinstance(x, VTuple):
                pairs = zip(skel, x)
            elif isinstance(x, VDict):
                pairs = zip(skel.values, x.values)
            else:
                pairs = list(zip(skel.items, x.items)) + [
                    (skel.items_by_name[k], x.items_by_name[k]) for k in x.items_by_name]
            for a, b in pairs:
                fill(a, b)
        fill(sc.ret_skeleton, v)


_CONTAINER_BUILTINS = (dict, list, tuple, sorted, reversed, zip, enumerate)
_ITERATORS = (zip, reversed, map, filter, iter, enumerate)


def _is_record_class(cls):
    """A class whose instances revsrc can build in a function: a namedtuple, a
    dataclass."""
    from ..core import pytree
    return pytree.node_of_class(cls) in ("namedtuple", "dataclass")


def _is_numpy_callable(fn):
    """A NumPy function or ufunc (or a ufunc's method), whose out= writes in place."""
    from ..primitives import NUMPY, family_of
    return family_of(fn) == NUMPY or isinstance(getattr(fn, "__self__", None), np.ufunc)


def _plain_init_class(cls):
    """A user's class whose ``__init__`` only sets attributes of ``self`` (``self.W, self.b
    = W, b``), with no ``__new__``, ``__setattr__``, slots or properties among them:
    an instance made in the function is a static object (`VRecord` with no td)."""
    init = cls.__dict__.get("__init__") if isinstance(cls.__dict__, types.MappingProxyType) \
        else None
    if not isinstance(init, types.FunctionType) or is_library(init) or \
            any(k in cls.__dict__ for k in ("__new__", "__setattr__", "__slots__")) or \
            any(b is not object and "__init__" in b.__dict__ for b in cls.__mro__[1:]) or \
            type(cls) is not type:
        return False
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(init))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return False
    if not isinstance(node, ast.FunctionDef) or not node.args.args:
        return False
    me = node.args.args[0].arg

    def settable(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            return all(settable(e) for e in t.elts)
        return isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
            t.value.id == me and not isinstance(
                inspect.getattr_static(cls, t.attr, None), (property, types.MemberDescriptorType))

    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and
                                          isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Assign) and all(settable(t) for t in stmt.targets):
            continue
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and settable(stmt.target):
            continue
        return False
    return True


def _bind_class(cls, fn, args, kwargs, loc):
    try:
        sig = inspect.signature(fn)
        ba = sig.bind(*range(len(args)), **{k: ("kw", k) for k, _ in kwargs})
    except (TypeError, ValueError) as exc:
        raise errors.UnsupportedSyntax(f"{cls.__name__}(): {exc}", loc=loc) from None
    kw = dict(kwargs)
    out = {}
    for name, p in sig.parameters.items():
        if name in ba.arguments:
            m = ba.arguments[name]
            out[name] = kw[m[1]] if isinstance(m, tuple) else args[m]
        elif p.default is not inspect.Parameter.empty:
            out[name] = known_or_const(p.default)
    return out


def _call_name(node):
    if isinstance(node, ast.Call):
        try:
            return ast.unparse(node.func)
        except Exception:  # pragma: no cover
            return None
    return None

