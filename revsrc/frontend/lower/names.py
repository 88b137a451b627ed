"""Names: how each resolves (locals, enclosing functions, closure cells, module
globals, builtins, imports), and which hold static values (lower/values.py).

A name may stand for a static value (a container known when transforming, a
function). Where the program's control flow decides what a name holds, that
cannot be: a name made static in one branch of an `if` is unusable after it,
and inside a loop the program runs, containers are built as values.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import types

from ... import errors
from ...core import ir, kinds
from ...core.ir import Const, Op
from .scope import assigned_names
from .values import (STATIC_NODES, Known, NestedDef, Poisoned, VDict, VTuple, describe_static,
                     is_static, is_static_value, plain_static, user_callable)
from .made import calls_maker, calls_plain_class, calls_vectorize
from .special import made_object
from . import numbers
from .classes import plain_init_class
from .objects import is_record_class

_CONTAINER_BUILTINS = (dict, list, tuple, sorted, reversed, zip, enumerate)


class NameLowering:
    """Name resolution and static bindings (a part of `Lowerer`)."""

    def _resolve(self, sc, name, node, out, hoisting=False):
        """An operand, or a static value (lower/values.py) for something known now."""
        if name in sc.env:
            value = sc.env[name]
            if isinstance(value, Poisoned):
                raise errors.StaticValueError(
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
                raise errors.UndefinedName(
                    f"closure variable {name} is not bound yet", loc=sc.parsed.loc(node))
            if is_static(value):
                self._depend(cell, name, value)
                sc.env[name] = Known(value)
                return sc.env[name]
            var = self._reserve(sc.prefix + name)
            out.append(Op(var, ir.load_cell, (Const(cell),), loc=sc.parsed.loc(node)))
            self.loaded[var] = (cell, name, value)
            sc.env[name] = var
            return var
        if name in sc.globals:
            sc.env[name] = self._global(sc, name, node, out, self._reserve(sc.prefix + name))
            return sc.env[name]
        if hasattr(builtins, name):
            value = getattr(builtins, name)
            sc.env[name] = Known(value)
            return sc.env[name]
        if hoisting:
            return None
        raise errors.UndefinedName(f"name {name!r} is not defined",
                                       loc=sc.parsed.loc(node))

    def _global(self, sc, name, node, out, var):
        """The global ``name`` of ``sc``'s module (it has one): a static value, a
        constant, or read into ``var`` when the program runs."""
        value = sc.globals[name]
        if is_static(value):
            if not sc.rule_mode:
                self._depend(sc.globals, name, value)
            return Known(value)
        if sc.rule_mode:
            # a rule's module constants (_LN2...) are fixed: inlined as constants,
            # so every output of a rule template stands alone
            return Const(value)
        found = numbers.folded(sc.globals, name, value)   # revsrc.jit's constants
        if found is not None:
            self.deps.extend(found[1])
            return found[0]
        out.append(Op(var, ir.load_global, (Const(sc.globals), Const(name)),
                      loc=sc.parsed.loc(node)))
        # read when it runs, but its kind (float, array of rank 2...) is the
        # program's: a global that changes kind makes the derivative anew
        self.deps.append((sc.globals, name, "kind", kinds.signature(value)))
        self.loaded[var] = (sc.globals, name, value)
        return var

    def _globals_item(self, sc, node, out):
        """``globals()["NAME"]`` with a constant key: the global NAME of the function's
        module, read as the name is (even where a local variable shadows it); None for
        any other subscript."""
        call = node.value
        if not (isinstance(call, ast.Call) and not call.args and not call.keywords and
                isinstance(call.func, ast.Name) and
                self._static_callee(sc, call.func, out) is globals):
            return None
        key = self._val(sc, node.slice, out)
        if not (isinstance(key, Const) and type(key.value) is str):
            return None
        if key.value not in sc.globals:
            raise errors.StaticValueError(f"globals() has no key {key.value!r}",
                                          loc=sc.parsed.loc(node))
        return self._global(sc, key.value, node, out, self.fresh(sc.prefix + key.value))

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
        if not sc.no_static and (name not in sc.branch_vars or isinstance(value, Known)):
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
                       for e in node.elts) or any(isinstance(e, ast.Lambda)
                                                  for e in node.elts)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return isinstance(node.elt, ast.Lambda) or (   # a list of functions (loops.py)
                isinstance(node.elt, ast.Call) and (calls_maker(self, sc, node.elt.func) or
                                                    calls_plain_class(self, sc, node.elt.func)))
        if isinstance(node, ast.Name):
            return is_static_value(sc.env.get(node.id)) or node.id in sc.defs
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):   # p + q, -p: p made in the function
            return any(made_object(sc.env.get(e.id)) if isinstance(e, ast.Name) else
                       isinstance(e, (ast.Call, ast.BinOp, ast.UnaryOp)) and
                       self._maybe_static(sc, e)
                       for e in ((node.left, node.right) if isinstance(node, ast.BinOp)
                                 else (node.operand,)))
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
            if calls_maker(self, sc, func) or calls_vectorize(self, sc, func):
                return True     # d = revsrc.grad(h), a partial: made when transforming
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
                return user_callable(fn) or fn in _CONTAINER_BUILTINS or fn is getattr or (
                    isinstance(fn, type) and (is_record_class(fn) or plain_init_class(fn)))
            return False
        return False

    # A name may stand for a static value (a container known when transforming, a
    # function). Where the program's control flow decides what a name holds, that
    # cannot be: a name made static in one branch of an `if` is unusable after it,
    # and inside a loop the program runs, containers are built as values.
    def _branches(self, sc, pairs, out=None, loc=None):
        """Lower the branches of an `if` (``pairs`` of ast statements and their
        output list), each from the same static bindings. With ``out``: a name that
        holds a container known now (a list, tuple or dict argument taken apart) and
        that a branch assigns is made a variable first, into ``out`` (before the `if`),
        and stays one in every branch: after the `if` it holds what the branch that ran
        gave it (``if flag: w = [2 * v for v in w]``)."""
        made = self._variables_before(sc, [s for stmts, _ in pairs for s in stmts], out,
                                      loc) if out is not None else set()
        sc.branch_vars |= made
        try:
            self._lower_branches(sc, pairs)
        finally:
            sc.branch_vars -= made

    def _variables_before(self, sc, stmts, out, loc):
        names, _ = assigned_names(stmts)
        made = set()
        for name in sorted(names):
            cur = sc.env.get(name)
            if isinstance(cur, (VTuple, VDict)) and plain_static(cur) \
                    and not sc.branch_vars & {name}:
                value = self._materialize(cur, out, loc)
                var = self._store_name(sc, name, stmts[0])
                out.append(Op(var, ir.copy, (value,), loc=loc))
                made.add(name)
        return made

    def _lower_branches(self, sc, pairs):
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
