"""Lower a function's ``ast`` to the IR: one operation per statement.

Names are resolved here (locals, enclosing functions, closure cells, module
globals, builtins), calls to other user functions are inlined with their
variables renamed after them, and the control flow the reverse sweep cannot
mirror directly is rewritten into structured form: ``break``, ``continue`` and
early ``return`` become flags that guard the rest of their block, so every loop
body runs to its end and only ever leaves through a final ``if flag: break``.

`Lowerer` is the one entry (``lower_function``, ``lower_rule``). It holds what
every part of the lowering shares: naming, the dispatch of a statement or an
expression to its handler (dispatch.py), and the emitting and materializing of
operands. The handlers live in the modules named for their concern (statements,
assign, expressions, calls, objects, effects, loops, iteration, inlining, names),
each a mixin class of `Lowerer`.
"""
from __future__ import annotations

import ast
import functools
import importlib
import types

from .. import bindings, control, fence
from ... import errors
from ...core import ir, pytree
from ...core.names import Names
from ...core.ir import Const, Op
from ..desugar import desugar
from ..parse import parse_function
from . import counting, recursion
from .dispatch import EXPRESSIONS, STATEMENTS
from .scope import (RuleSource, Scope, all_names, assigned_names, ends_in_return,
                    own_defs, param_names, return_statements)
from .values import (Known, NestedDef, Partial, VDict, VRecord, VTuple, inlinable, static_node,
                     vtuple)
from .assign import AssignLowering
from .builtin_calls import BuiltinLowering
from .calls import CallLowering
from .counting import CountLowering
from .effects import EffectLowering
from .expressions import ExpressionLowering
from .inlining import InliningLowering
from .iteration import IterationLowering
from .loops import LoopLowering
from .names import NameLowering
from .objects import ObjectLowering
from .statements import StatementLowering
from ...core.source import ast_nodes


# Handlers in modules of their own, loaded when a function first has such a node (a
# node type -> the module that registers its handler in dispatch.py's tables).
_LATE = {ast.Try: __package__ + ".trying"}


class Lowerer(NameLowering, StatementLowering, AssignLowering, ExpressionLowering,
               CallLowering, BuiltinLowering, ObjectLowering, EffectLowering, LoopLowering,
               IterationLowering, CountLowering, InliningLowering):
    """Lowers one top-level function (and everything it inlines) to IR."""

    def __init__(self, has_aux=False, names=None):
        self.names = names if names is not None else Names()
        self.loop_count = 0
        self.inline_stack = []
        self.has_aux = has_aux
        self.zips_consumed = set()   # zip(...) calls a builtin reads once (calls.py)
        self.drained = set()    # loads of a kept generator a consumer reads through (ids)
        # what the IR took from globals and closures as fixed: (dict or cell, name,
        # value, code) per user function, checked before a derivative runs
        # (runtime.deps_current): redefining a helper makes the derivative anew
        self.deps = []
        self.functions_read = set()   # ids of the functions whose guards are in deps
        # operand -> (holder, name, value) for a global or closure variable the
        # program loads when it runs (an object: its stored functions may be folded)
        self.loaded = {}
        self.choices = {}    # an item of a global table of functions (chosen.py)
        self.endless = {}    # operands holding itertools.count(...)/cycle(...) (counting.py)
        self.tree_leaf_params = set()
        self.deferred_generators = {}   # a Name read -> a generator kept for it
        self.consumed_here = set()      # generators lowered where they are consumed
        self.cond_depth = 0   # inside a branch (a static dict may not change there)
        self.statement = None   # the statement being lowered
        self.loop_depth = 0   # inside a loop the program runs

    @property
    def taken(self):
        return self.names.taken

    def fresh(self, base=None):
        return self.names.temp() if base is None else self.names.fresh(base)

    def _reserve(self, name):
        return self.names.reserve(name)

    def _runs_with(self, operand):
        """Whether ``operand`` is a value known only when the program runs, other than
        an int argument of the function transformed (recursion.py)."""
        if isinstance(operand, str):
            return operand not in getattr(self, "run_time_ints", {})
        return not isinstance(operand, (Const, Known))

    def _depend(self, holder, name, value):
        if isinstance(value, types.FunctionType) and inlinable(value):
            dep = (holder, name, value, value.__code__)
            if not any(d[0] is holder and d[1] == name for d in self.deps):
                self.deps.append(dep)

    def _read_function(self, fn):
        """Guard what the lowering reads of function ``fn`` (its body, its defaults):
        replacing its ``__code__`` or ``__defaults__`` makes the program anew."""
        if id(fn) not in self.functions_read:
            self.functions_read.add(id(fn))
            self.deps.extend(bindings.function_guards(fn))

    def choose_prefix(self, base, names):
        return self.names.prefix(base, names)

    def lower_function(self, fn, trees=None, static=None, functions=None, ints=None):
        """The IR of ``fn``: (params, body, result operand, aux operand).

        ``trees`` maps a parameter to the TreeDef of the container it receives taken
        apart (revsrc/frontend/arguments.py): its leaves are parameters of their own, named
        after their paths, and the parameter is a static container of them.
        ``static`` maps a parameter to its value, known now (a method's ``self``).
        ``functions`` maps a parameter (or a leaf) that holds a function (``reduce=
        np.sum``) to it: the program stays one parameter for it, and calls the function
        by name (the cache key holds each function, kinds.Function).
        ``ints`` maps an int parameter to the value the program is made for, or to
        None: a recursion it decides asks for its value (frontend/lower/recursion.py).
        """
        parsed = parse_function(fn)
        fence.check(parsed)
        self._read_function(fn)
        node = desugar(parsed.node)
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
                sc.env[p] = sc.given[p] = self._tree_param(p, trees[p], used, leaves,
                                                            functions.get(p))
                params.extend(leaves)
                self.tree_leaf_params.update(leaves)   # each a leaf when it runs
            else:
                sc.env[p] = self._reserve(p)
                params.append(p)
                if p in functions:
                    sc.env[p] = Known(functions[p])
                elif p in (ints or {}):
                    recursion.bind_int_param(self, sc, p, ints[p])
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
        (see revsrc/passes/templates.py). Calls in a rule stay calls (never inlined).

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
            for n in ast_nodes(stmt):
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
        names, _ = assigned_names(body)
        params = param_names(node)
        sc.locals = names | set(params)
        for stmt in body:
            for n in ast_nodes(stmt):
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
        self._hoist_globals(sc, body, own_defs(body), out)
        inner = []
        self._block(sc, body, inner)
        if not returns:
            inner.append(Op(sc.ret_var, ir.copy, (Const(None),), loc=sc.parsed.loc(node)))
        out.append(ir.Block(sc.exit_label, inner))
        if sc.ret_items:
            return VTuple(sc.ret_items)
        if sc.ret_skeleton is not None:
            if returns and len(returns) and not ends_in_return(body):
                raise errors.StaticValueError(
                    "a function that returns a container may also end without a return "
                    "(returning None)", loc=sc.parsed.loc(node),
                    hint="end the function with a return")
            return sc.ret_skeleton
        return sc.ret_var

    def _hoist_globals(self, sc, body, defs, out):
        """Load every global data value the body reads, once, at entry (not the names
        of the functions it defines: those are its own, as its variables are)."""
        seen = set()
        for stmt in body:
            for n in ast_nodes(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in seen:
                    seen.add(n.id)
                    if n.id in sc.locals or n.id in sc.env or n.id in defs:
                        continue
                    self._resolve(sc, n.id, n, out, hoisting=True)

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
        handler = STATEMENTS.get(type(node))
        if handler is None and type(node) in _LATE:
            importlib.import_module(_LATE[type(node)])
            handler = STATEMENTS.get(type(node))
        if handler is None:
            raise errors.UnsupportedSyntax(
                f"{type(node).__name__} statements are not supported", loc=sc.parsed.loc(node))
        outer, self.statement = self.statement, node  # (what a call that changes a
        try:                                          # static dict must be the whole of)
            return handler(self, sc, node, out, sc.parsed.loc(node))
        finally:
            self.statement = outer

    def _expr(self, sc, node, out, into=None):
        """Lower ``node``; returns its operand (``into`` when given)."""
        loc = sc.parsed.loc(node)
        v = self._expr_value(sc, node, out, into, loc)
        if into is not None and v != into:
            return self._emit(out, ir.copy, (self._materialize(v, out, loc),), into, loc)
        return v

    def _expr_value(self, sc, node, out, into, loc):
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            raise errors.UnsupportedSyntax(
                f"{type(node).__name__} expressions are not supported", loc=loc)
        return handler(self, sc, node, out, into, loc)

    def _val(self, sc, node, out):
        return self._materialize(self._expr(sc, node, out), out, sc.parsed.loc(node))

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
            v.placed = True
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
            if isinstance(value, Partial):    # the partial Python makes, made when it runs
                return self._emit(out, functools.partial, [
                    self._materialize(Known(value.fn), out, loc)] +
                    [self._materialize(a, out, loc) for a in value.args], None, loc,
                    [(k, self._materialize(v, out, loc)) for k, v in value.kwargs])
            return Const(value)
        return v

    def _snapshot(self, v, out, loc):
        if isinstance(v, str) and not self.names.is_temp(v):
            tmp = self.fresh()
            out.append(Op(tmp, ir.copy, (v,), loc=loc))
            return tmp
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
        if self.endless and fn in counting.READ_TO_THE_END:
            counting.check_finite(self.endless, args, loc)
        out.append(Op(target, fn, tuple(args), tuple(kwargs), loc=loc))
        if fn in counting.ENDLESS or (fn is ir.copy and isinstance(args[0], str) and
                                      args[0] in self.endless):
            self.endless[target] = self.endless[args[0]] if fn is ir.copy else fn
        return target

    def _emit_control(self, out, fn, args, loc):
        n = self.fresh("_n")
        out.append(Op(n, fn, tuple(args), loc=loc))
        return n

    def _expr_copy(self, value, into, out, loc):
        out.append(Op(into, ir.copy, (value,), loc=loc))
        return into
