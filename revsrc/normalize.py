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
import importlib
import inspect
import math
import operator
import types

import numpy as np

from . import aliases, containers, control, errors, fence, ir, rules, runtime
from .idioms import IdiomLowering, is_library
from .names import Names
from .ir import Const, For, If, Op, SetItem, While
from .rules.arith import astype as _astype
from .parse import parse_function

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
    "transpose": np.transpose, "ravel": np.ravel, "flatten": np.ravel,
    "squeeze": np.squeeze, "cumsum": np.cumsum, "cumprod": np.cumprod,
    "clip": np.clip, "argmax": np.argmax, "argmin": np.argmin, "copy": np.copy,
    "swapaxes": np.swapaxes, "astype": None, "item": None, "conj": np.conj,
    "trace": np.trace, "all": np.all, "any": np.any,
}
_ATTRS_NONDIFF = {"shape", "ndim", "size", "dtype"}
_ATTRS_FN = {"T": np.transpose, "real": np.real, "imag": np.imag}
_VARARG_SHAPE_METHODS = {"reshape", "transpose"}

_SIDE_EFFECTS = {print, open, input, exec, eval, setattr, delattr, globals, locals,
                 vars, breakpoint, __import__}
_DATA_TYPES = (bool, int, float, complex, str, bytes, type(None), np.ndarray, np.generic,
               tuple, list, slice, type(Ellipsis))


class VTuple(tuple):
    """A tuple of operands known at transformation time (never materialized)."""


class Scope:
    """One function being lowered: its names and how each resolves."""

    def __init__(self, parsed, prefix, globals_, cells, enclosing=None, fn=None,
                 rule_mode=False):
        self.parsed = parsed
        self.prefix = prefix
        self.globals = globals_
        self.cells = cells  # name -> cell
        self.enclosing = enclosing
        self.fn = fn
        self.rule_mode = rule_mode
        self.env = {}    # source name -> operand, or ("obj", value)
        self.defs = {}   # nested def name -> ast.FunctionDef
        self.locals = set()
        self.loops = []  # stack of (continue label, break label) of enclosing loops
        self.exit_label = None  # the label `return` leaves
        self.ret_var = None
        self.aux_var = None
        self.has_aux = False
        self.ret_items = None
        self.store_counts = {}


def param_names(node):
    """A function's parameters, in order: positional, then ``*args`` (one parameter
    holding a tuple), then keyword-only."""
    a = node.args
    return [p.arg for p in a.args] + ([a.vararg.arg] if a.vararg else []) + \
        [p.arg for p in a.kwonlyargs]


def _assigned_names(body):
    names = set()
    defs = set()

    def target(t):
        if isinstance(t, ast.Name):
            names.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)

    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    target(t)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                target(node.target)
            elif isinstance(node, ast.For):
                target(node.target)
            elif isinstance(node, ast.FunctionDef):
                defs.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names.add((alias.asname or alias.name).split(".")[0])
    return names, defs


def _returns(body):
    """The return statements of a function body, not of the functions nested in it."""
    found = []
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            found.append(n)
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return found


def _has_node(nodes, kinds, stop=(ast.FunctionDef,), into_loops=True):
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, stop):
            continue
        if not into_loops and isinstance(n, (ast.For, ast.While)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


class Normalizer(IdiomLowering):
    """Lowers one top-level function (and everything it inlines) to IR (the idioms
    of revsrc/idioms.py included)."""

    def __init__(self, has_aux=False, names=None):
        self.names = names if names is not None else Names()
        self.loop_count = 0
        self.inline_stack = []
        self.has_aux = has_aux

    # ----- naming (through the one naming authority) ----------------------
    @property
    def taken(self):
        return self.names.taken

    def fresh(self, base=None):
        return self.names.temp() if base is None else self.names.fresh(base)

    def _reserve(self, name):
        return self.names.reserve(name)

    def choose_prefix(self, base, names):
        return self.names.prefix(base, names)

    # ----- entry --------------------------------------------------------
    def lower_function(self, fn, functions=None):
        """The IR of ``fn``: (params, body, result operand, aux operand).
        ``functions`` maps positions of parameters that hold a function to it."""
        parsed = parse_function(fn)
        fence.check(parsed)
        node = parsed.node
        sc = self._make_scope(parsed, fn, prefix="")
        params = param_names(node)
        for i, p in enumerate(params):
            sc.env[p] = self._reserve(p)
            if functions and i in functions:
                sc.env[p] = ("obj", functions[i])
        for n in sc.locals:
            self._reserve(n)
        self.inline_stack.append(fn)
        out = []
        sc.has_aux = self.has_aux
        result = self._lower_body(sc, node, out)
        self.inline_stack.pop()
        return params, control.structure(out, self.names), result, sc.aux_var

    def lower_rule(self, rule, xp):
        """A rule's body and its outputs, as IR over variables named ``g``, ``ans`` and
        the rule's parameters, with ``xp`` bound to the namespace ``xp``: a template
        (see revsrc/templates.py). Calls in a rule stay calls (never inlined).

        Returns (statements, [(statements, operand) per output, None where the rule
        gives no gradient]).
        """
        sc = Scope(_RuleSource(rule), prefix="", globals_=rule.globals, cells={},
                   rule_mode=True)
        for p in ["g", "ans"] + list(rule.params):
            sc.env[p] = self._reserve(p)
        sc.env["xp"] = ("obj", xp)
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
        names, defs = _assigned_names(body)
        params = param_names(node)
        sc.locals = names | set(params)
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    sc.store_counts[n.id] = sc.store_counts.get(n.id, 0) + 1
        sc.ret_var = self.names.internal(sc.prefix + "ret" if sc.prefix else "_ret")
        returns = _returns(body)
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
        """An operand, or ("obj", value) for something known statically."""
        if name in sc.env:
            return sc.env[name]
        if name in sc.locals:
            var = self._reserve(sc.prefix + name)
            sc.env[name] = var
            return var
        if name in sc.defs:
            return ("obj", ("def", sc, sc.defs[name]))
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
            if _is_static(value):
                sc.env[name] = ("obj", value)
                return sc.env[name]
            var = self._reserve(sc.prefix + name)
            out.append(Op(var, ir.load_cell, (Const(cell),), loc=sc.parsed.loc(node)))
            sc.env[name] = var
            return var
        if name in sc.globals:
            value = sc.globals[name]
            if _is_static(value):
                sc.env[name] = ("obj", value)
                return sc.env[name]
            if sc.rule_mode:
                # a rule's module constants (_LN2...) are fixed: inlined as constants,
                # so every output of a rule template stands alone
                sc.env[name] = Const(value)
                return sc.env[name]
            var = self._reserve(sc.prefix + name)
            out.append(Op(var, ir.load_global, (Const(sc.globals), Const(name)),
                          loc=sc.parsed.loc(node)))
            sc.env[name] = var
            return var
        if hasattr(builtins, name):
            value = getattr(builtins, name)
            sc.env[name] = ("obj", value)
            return sc.env[name]
        if hoisting:
            return None
        raise errors.UnsupportedSyntax(f"name {name!r} is not defined",
                                       loc=sc.parsed.loc(node))

    # ----- statements ---------------------------------------------------
    def _block(self, sc, stmts, out):
        """Lower a statement list (exits stay `Leave` statements for the control pass)."""
        for stmt in stmts:
            self._stmt(sc, stmt, out)

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
            return self._return(sc, node, out, loc)
        if isinstance(node, ast.If):
            test = self._condition(sc, node.test, out)
            body, orelse = [], []
            self._block(sc, node.body, body)
            self._block(sc, node.orelse, orelse)
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
            return False
        if isinstance(node, ast.Pass):
            return False
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return False  # a docstring or a bare constant
            if isinstance(node.value, ast.Call) and (
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
            sc.env[node.name] = ("obj", ("def", sc, node))
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

    def _import(self, sc, node, loc):
        for alias in node.names:
            if isinstance(node, ast.Import):
                mod = importlib.import_module(alias.name)
                if alias.asname:
                    sc.env[alias.asname] = ("obj", mod)
                else:
                    sc.env[alias.name.split(".")[0]] = ("obj",
                                                       importlib.import_module(
                                                           alias.name.split(".")[0]))
            else:
                mod = importlib.import_module(node.module)
                sc.env[alias.asname or alias.name] = ("obj", getattr(mod, alias.name))

    def _store_name(self, sc, name, node):
        if name in sc.env and isinstance(sc.env[name], VTuple):
            raise errors.UnsupportedSyntax(f"cannot assign to {name} again",
                                           loc=sc.parsed.loc(node))
        if name in sc.env and isinstance(sc.env[name], tuple):
            raise errors.UnsupportedSyntax(f"cannot assign to {name}",
                                           loc=sc.parsed.loc(node))
        if name in sc.env and isinstance(sc.env[name], Const):
            raise errors.UnsupportedSyntax(f"cannot assign to {name}",
                                           loc=sc.parsed.loc(node))
        var = sc.env.get(name)
        if var is None:
            var = self._reserve(sc.prefix + name)
            sc.env[name] = var
        return var

    def _assign(self, sc, target, value, out, loc):
        if self._assign_function(sc, target, value, out, loc):
            return
        if isinstance(target, ast.Name) and isinstance(value, ast.Tuple) \
                and sc.store_counts.get(target.id) == 1 and target.id not in sc.env:
            # a tuple assigned once stays a tuple of operands, never built
            items = [self._snapshot(self._val(sc, v, out), out, loc) for v in value.elts]
            sc.env[target.id] = VTuple(items)
            return
        if isinstance(target, ast.Name):
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
            var = self._store_name(sc, target.id, target)
            if isinstance(value, tuple) and not isinstance(value, VTuple):
                raise errors.UnsupportedSyntax("cannot assign a function or module",
                                               loc=loc)
            value = self._materialize(value, out, loc)
            out.append(Op(var, ir.copy, (value,), loc=loc))
        elif isinstance(target, (ast.Tuple, ast.List)):
            n = len(target.elts)
            if any(isinstance(e, ast.Starred) for e in target.elts):
                value = self._materialize(value, out, loc)
                return self._starred_targets(sc, target, value, out, loc)
            if isinstance(value, VTuple):
                if len(value) != n:
                    raise errors.UnsupportedSyntax(
                        f"cannot unpack {len(value)} values into {n}", loc=loc)
                items = list(value)
            else:
                items = []
                for i in range(n):
                    tmp = self.fresh()
                    out.append(Op(tmp, operator.getitem, (value, Const(i)), loc=loc))
                    items.append(tmp)
            for t, v in zip(target.elts, items):
                self._assign_operand(sc, t, v, out, loc)
        elif isinstance(target, ast.Subscript):
            base, index = self._subscript_parts(sc, target, out, loc)
            out.append(SetItem(base, index, self._materialize(value, out, loc), loc=loc))
        elif isinstance(target, ast.Attribute):
            raise errors.SideEffect("writing an attribute is a side effect revsrc refuses",
                                    loc=loc, hint="return the value instead")
        else:
            raise errors.UnsupportedSyntax("unsupported assignment target", loc=loc)

    def _subscript_parts(self, sc, node, out, loc):
        if isinstance(node.value, ast.Subscript):
            return self._nested_subscript_parts(sc, node, out, loc)
        if not isinstance(node.value, ast.Name):
            raise errors.UnsupportedSyntax("only a local array can be assigned into", loc=loc)
        name = node.value.id
        base = self._resolve(sc, name, node, out)
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

    def _return(self, sc, node, out, loc):
        value = node.value
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
            var = self._store_name(sc, target.id, target)
            labels = self._loop_labels(sc)
            body = []
            self._loop_body(sc, labels, node.body, body)
            out.append(For(var, start, stop, step, body, loc=loc, label=labels[1]))
            return False
        if isinstance(it, (ast.Tuple, ast.List)) and len(it.elts) <= 16:
            return self._unroll(sc, node, it, out, loc)
        return self._for_sequence(sc, node, out, loc)

    def _unroll(self, sc, node, it, out, loc):
        """A loop over a literal sequence, unrolled so each item is a plain operand:
        a `Block` that ``break`` leaves, holding one ``continue`` block per item."""
        items = [self._snapshot(self._val(sc, e, out), out, loc) for e in it.elts]
        cont, brk = self._loop_labels(sc)
        copies = []
        for item in items:
            copy = []
            self._assign_operand(sc, node.target, item, copy, loc)
            sc.loops.append((cont, brk))
            self._block(sc, node.body, copy)
            sc.loops.pop()
            copies.append(ir.Block(cont, copy, loc=loc))
        out.append(ir.Block(brk, copies, loc=loc))
        return False

    def _while(self, sc, node, out, loc):
        test_body = []
        test = self._condition(sc, node.test, test_body)
        labels = self._loop_labels(sc)
        body = []
        self._loop_body(sc, labels, node.body, body)
        out.append(While(test_body, test, body, loc=loc, label=labels[1]))
        return False

    # ----- expressions --------------------------------------------------
    def _condition(self, sc, node, out):
        v = self._expr(sc, node, out)
        return self._materialize(v, out, sc.parsed.loc(node))

    def _materialize(self, v, out, loc):
        if isinstance(v, VTuple):
            items = tuple(self._materialize(i, out, loc) for i in v)
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            tmp = self.fresh()
            out.append(Op(tmp, ir.make_tuple, items, loc=loc))
            return tmp
        if isinstance(v, tuple):  # ("obj", value)
            value = v[1]
            if isinstance(value, tuple) and value and value[0] == "def":
                raise errors.UnsupportedSyntax(
                    "a nested function can only be called, not passed as a value", loc=loc)
            return Const(value)
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
            if isinstance(base, VTuple):
                idx = self._index(sc, node.slice, out, loc)
                if isinstance(idx, Const) and isinstance(idx.value, int):
                    return base[idx.value]
                base = self._materialize(base, out, loc)
            base = self._materialize(base, out, loc)
            idx = self._index(sc, node.slice, out, loc)
            return self._emit(out, operator.getitem, (base, idx), into, loc)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(sc, node, out, into, loc)
        if isinstance(node, ast.Lambda):
            return self._lambda_value(sc, node, loc)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return self._comprehension(sc, node, out, into, loc)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise errors.UnsupportedSyntax("** in a dict literal is not supported", loc=loc)
            items = []
            for k, v in zip(node.keys, node.values):
                items += [self._val(sc, k, out), self._val(sc, v, out)]
            return self._emit(out, ir.make_dict, items, into, loc)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self._val(sc, e, out) for e in node.elts]
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
        if isinstance(base, tuple) and not isinstance(base, VTuple):
            value = base[1]
            try:
                attr = getattr(value, node.attr)
            except AttributeError:
                raise errors.UnsupportedSyntax(f"{node.attr!r} not found", loc=loc)
            if _is_static(attr):
                return ("obj", attr)
            if isinstance(value, types.ModuleType):
                if value in (math, np) or isinstance(attr, (int, float, complex, type(None))):
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
        raise errors.UnsupportedSyntax(f"attribute .{node.attr} is not supported", loc=loc,
                                       hint="use the NumPy function instead of the method")

    def _static_callee(self, sc, func, out):
        if isinstance(func, ast.Name):
            r = self._resolve(sc, func.id, func, out)
        elif isinstance(func, ast.Attribute):
            base = self._static_callee(sc, func.value, out)
            if base is None:
                return None
            try:
                return getattr(base, func.attr)
            except AttributeError:
                return None
        else:
            return None
        if isinstance(r, tuple) and not isinstance(r, VTuple) and r[0] == "obj":
            return r[1]
        if isinstance(r, Const) and _is_static(r.value):
            return r.value   # a function passed to the function being inlined
        return None

    def _call(self, sc, node, out, into, loc):
        func = node.func
        fn = self._static_callee(sc, func, out)
        if fn is None and isinstance(func, ast.Attribute):
            return self._method(sc, node, out, into, loc)
        if fn is None:
            raise errors.UnsupportedSyntax(
                "calling a value computed inside the function is not supported", loc=loc,
                hint="call functions by name")
        args = self._call_arguments(sc, node.args, out, loc)
        kwargs = [(k.arg, self._expr(sc, k.value, out)) for k in node.keywords]
        if isinstance(fn, tuple) and fn and fn[0] == "def":
            _, def_scope, def_node = fn
            return self._inline_def(sc, def_scope, def_node, args, kwargs, out, into, loc)
        if fn in _SIDE_EFFECTS:
            raise errors.SideEffect(
                f"calling {getattr(fn, '__name__', fn)}() is a side effect revsrc refuses",
                loc=loc, hint="differentiated functions must be pure; do I/O outside them")
        # a revsrc derivative stays a call here: its program depends on its arguments'
        # kinds, so revsrc/frontend.py inlines it once they are known
        args = [self._materialize(a, out, loc) for a in args]
        kwargs = [(k, self._materialize(v, out, loc)) for k, v in kwargs]
        special = self._builtin_call(fn, args, kwargs, out, into, loc)
        if special is not None:
            return special
        if not sc.rule_mode and rules.lookup(fn) is None and _inlinable(fn):
            if is_library(fn):
                return self._inline_library(fn, args, kwargs, out, into, loc)
            return self._inline_function(sc, fn, args, kwargs, out, into, loc)
        return self._emit(out, fn, args, into, loc, kwargs)

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

    def _method(self, sc, node, out, into, loc):
        func = node.func
        base = self._val(sc, func.value, out)
        name = func.attr
        args = [self._val(sc, a, out) for a in node.args]
        kwargs = [(k.arg, self._val(sc, k.value, out)) for k in node.keywords]
        if name in containers.DICT_METHODS and not kwargs:   # d.items(), d.get(k)...
            return self._emit(out, containers.DICT_METHODS[name], [base] + args, into, loc)
        if name not in _METHODS:
            raise errors.SideEffect(
                f"method .{name}() is not supported (it may change its object in place)",
                loc=loc, hint="use the NumPy function, e.g. np.sum(x) for x.sum()") \
                if name in ("append", "extend", "insert", "pop", "update", "fill", "sort",
                            "resize", "setdefault", "clear", "remove") else \
                errors.NoRule(f"method .{name}() has no rule", loc=loc,
                              hint="use the NumPy function form, or register a rule with "
                                   "revsrc.defvjp")
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
        names, _ = _assigned_names(node.body if not isinstance(node, ast.Lambda) else [])
        params = param_names(node)
        base = fn.__name__ if fn.__name__ != "<lambda>" else "lambda"
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
        if into is not None and isinstance(result, VTuple):
            result = self._materialize(result, out, loc)
        return result if into is None else self._expr_copy(result, into, out, loc)

    def _inline_def(self, sc, def_scope, node, args, kwargs, out, into, loc):
        if any(s is node for s in self.inline_stack):
            raise errors.RecursionNotSupported(
                f"{node.name} calls itself (recursion); revsrc cannot differentiate recursion",
                loc=loc, hint="rewrite the recursion as a loop")
        names, _ = _assigned_names(node.body)
        params = param_names(node)
        prefix = self.choose_prefix(sc.prefix + node.name, names | set(params) | {"ret", "done"})
        callee = Scope(def_scope.parsed, prefix, def_scope.globals, def_scope.cells,
                       enclosing=def_scope)
        defaults = {}
        pos_defaults = node.args.defaults
        for a, d in zip(node.args.args[len(node.args.args) - len(pos_defaults):], pos_defaults):
            defaults[a.arg] = d
        for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults):
            if d is not None:
                defaults[a.arg] = d
        bound = {}
        positional = [a.arg for a in node.args.args]
        for p, a in zip(positional, args):
            bound[p] = a
        if node.args.vararg is not None:
            bound[node.args.vararg.arg] = VTuple(args[len(positional):])
        elif len(args) > len(positional):
            raise errors.UnsupportedSyntax(f"{node.name}() takes {len(positional)} "
                                           f"positional arguments", loc=loc)
        for k, v in kwargs:
            if k not in params or k in bound:
                raise errors.UnsupportedSyntax(f"bad keyword argument {k}", loc=loc)
            bound[k] = v
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
        sig = inspect.signature(fn)
        try:
            ba = sig.bind(*range(len(args)), **{k: ("kw", k) for k, _ in kwargs})
        except TypeError as exc:
            raise errors.UnsupportedSyntax(f"call to {fn.__name__}: {exc}", loc=loc)
        kw = dict(kwargs)
        bound = {}
        for p in params:
            if p in ba.arguments and sig.parameters[p].kind is inspect.Parameter.VAR_POSITIONAL:
                bound[p] = VTuple(args[i] for i in ba.arguments[p])   # *args: its items
            elif p in ba.arguments:
                marker = ba.arguments[p]
                bound[p] = kw[marker[1]] if isinstance(marker, tuple) else args[marker]
            else:
                default = sig.parameters[p].default
                bound[p] = Const(default) if not _is_static(default) else ("obj", default)
        return bound

    def _bind_params(self, callee, params, assigned, bound, out, loc):
        for p in params:
            value = bound[p]
            if isinstance(value, tuple) and not isinstance(value, VTuple):
                callee.env[p] = value  # a function or module passed in
                continue
            if isinstance(value, VTuple) and p not in assigned:
                callee.env[p] = value   # *args, or a tuple of operands: its items
                continue
            if p in assigned or isinstance(value, VTuple):
                var = self._reserve(callee.prefix + p)
                callee.env[p] = var
                out.append(Op(var, ir.copy, (self._materialize(value, out, loc),), loc=loc))
            else:
                callee.env[p] = value  # never reassigned: read the caller's operand


class _RuleSource:
    """Stands in for a parsed user function while a rule's body is lowered (rules
    have no locations of their own: instances get the primal's)."""

    def __init__(self, rule):
        self.rule = rule
        self.node = None

    def loc(self, node):
        return None


def _is_static(value):
    """Known at transformation time: modules, functions, classes, ufuncs."""
    if isinstance(value, _DATA_TYPES):
        return False
    return isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                              type, np.ufunc)) or callable(value)


def _inlinable(fn):
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", "") or ""
    return not (module.startswith("numpy") or module.startswith("revsrc."))


def _call_name(node):
    if isinstance(node, ast.Call):
        try:
            return ast.unparse(node.func)
        except Exception:  # pragma: no cover
            return None
    return None

