"""``revsrc.jit``: a scalar function compiled whole onto the engine.

The function is lowered to the IR as ``grad`` lowers it (plain Python helpers inlined,
loops, branches and early returns rewritten into structured form) but not
differentiated. Each call it makes to a revsrc derivative (``revsrc.grad``,
``revsrc.value_and_grad``) or to another jitted function stays a call in the IR, and
is then replaced by that derivative's program for the argument kinds at the call: the
derivative's body, renamed, inlined at the IR level. Work the inlined programs share
(``g(x)`` and ``dg(x)`` at the same ``x`` both compute ``exp(-x*x)``) is computed once
(`revsrc.cse`). The whole program runs on the engine (the VM at once, the native tier
as soon as it has compiled it), with the digits of plain Python.

A function the engine cannot compile is refused with a coded error (E502) naming the
line; nothing falls back silently. At run time a value the engine cannot represent
exactly (an int beyond 2**53) runs the function itself, in Python.
"""
from __future__ import annotations

import inspect

from . import analysis, api, cse, errors, fence, inline, ir
from .api import _Compiled, _kind_code, _kind_name, _plain
from .ir import Const, For, If, Op, While
from .normalize import Normalizer
from .parse import parse_function

_SCALAR = ("f", "i", "b")


class Jitted:
    """The general path of a jitted function: new argument kinds, NumPy scalars,
    keyword arguments, and values the engine defers to Python."""

    def __init__(self, f):
        self.f = f
        parsed = parse_function(f)
        fence.check(parsed)
        self.parsed = parsed
        node = parsed.node
        self.signature = inspect.signature(f)
        self.params = [a.arg for a in node.args.args + node.args.kwonlyargs]
        self.cache = {}
        self.compiled = None        # the user-facing object, set by `jit`

    def bind(self, args, kwargs):
        if not kwargs and len(args) == len(self.params):
            return tuple(args)
        try:
            ba = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.f.__name__}(): {exc}") from None
        ba.apply_defaults()
        return tuple(ba.arguments[p] for p in self.params)

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        key = tuple(_kind_code(v) for v in values)
        entry = self.cache.get(key) or self._compile(key, values)
        try:
            outs = entry.engine.run(tuple(_plain(v) for v in values))
        except api._EngineFallback:   # an int beyond 2**53, a complex power: Python
            return self.f(*args, **kwargs)
        return _selected(outs, entry.select)

    def _compile(self, key, values):
        loc = self.parsed.loc(self.parsed.node)
        for i, (k, v) in enumerate(zip(key, values)):
            if k not in _SCALAR:
                raise errors.NotCompilable(
                    f"revsrc.jit compiles functions of floats, ints and bools; argument "
                    f"{i} ({self.params[i]}) is a {type(v).__name__}", loc=loc,
                    hint="call the function itself, or map it over an array with "
                         "revsrc.vmap")
        prog, select = build_program(self.f, key)
        from . import engine
        try:
            program = engine.lower(prog)
        except engine.NotLowerable as exc:
            raise errors.NotCompilable(f"revsrc.jit cannot compile {self.f.__name__}: {exc}",
                                       loc=exc.loc or loc) from None
        from . import native
        native.attach(program, eager=True)
        entry = _Entry(prog, program)
        entry.select = select
        self.cache[key] = entry
        if self.compiled is not None and hasattr(self.compiled, "install"):
            self.compiled.install(key, program, select)
        return entry


class _Entry(_Compiled):
    """One signature's program, and how its outputs nest into the result."""
    __slots__ = ("select",)


def _selected(outs, select):
    if type(select) is int:
        return outs[select]
    return tuple(_selected(outs, s) for s in select)


def jit(f):
    """``f`` compiled onto the scalar engine, with the digits of calling ``f``.

    ``f`` takes and returns floats, ints and bools (or a tuple of them). Plain Python
    helpers it calls are inlined, and so are the revsrc derivatives it calls
    (``revsrc.grad``, ``revsrc.value_and_grad``): their programs for the argument
    kinds at the call, with the work they share with the rest computed once. Loops,
    branches and early returns work as in ``grad``. A function that cannot be
    compiled is refused with ``RevsrcError`` E502 naming the line.

    >>> import math, revsrc
    >>> def g(x):
    ...     return math.exp(-x * x) * math.cos(3.0 * x)
    >>> dg = revsrc.grad(g)
    >>> def newton(x):
    ...     for _ in range(6):
    ...         x = x - g(x) / dg(x)
    ...     return x
    >>> revsrc.jit(newton)(0.4) == newton(0.4)
    True
    """
    jt = Jitted(f)
    from ._kernels import Derivative
    d = Derivative(jt)
    jt.compiled = d
    try:
        d.__name__ = getattr(f, "__name__", "jitted")
        d.__qualname__ = getattr(f, "__qualname__", d.__name__)
        d.__doc__ = f.__doc__
        d.__wrapped__ = f
    except (AttributeError, TypeError):
        pass
    d._revsrc_transformed = jt
    d._revsrc_jit = True
    return d


# ----- The program -----

def build_program(f, key):
    """``f``'s IR for argument kinds ``key``, with the derivatives it calls inlined and
    shared work computed once."""
    nz = Normalizer(calls_derivatives=True)
    params, body, result, _ = nz.lower_function(f)
    pkinds = [_kind_name(k) for k in key]
    state = _Inliner(nz.taken | inline.names_in(body) | set(params))
    body, kinds = state.run(params, pkinds, body)
    body, outputs, select = _outputs(body, result, kinds, state, f, nz)
    body = _forward_tuples(body, state.tuples)
    body = cse.optimize(body, outputs)
    kinds, _ = analysis.infer_kinds(params, pkinds, [None] * len(params), body,
                                    seed=state.seed)
    for o in outputs:
        k = kinds.get(o) if isinstance(o, str) else None
        if k in ("array", "tuple", "list", "dict", "none"):   # else: the lowering says why
            raise errors.NotCompilable(
                f"revsrc.jit compiles functions that return floats, ints and bools (or "
                f"tuples of them); {f.__name__} returns a value of kind {k!r}",
                loc=_return_loc(f, nz))
    name = f"{f.__name__}_jit" if f.__name__ != "<lambda>" else "lambda_jit"
    prog = ir.Program(name, list(params), body, outputs, kinds, forward_len=len(body))
    return prog, select


def _return_loc(f, nz):
    parsed = parse_function(f)
    return parsed.loc(parsed.node)


def _is_derivative(fn):
    return getattr(fn, "_revsrc_derivative", False) and \
        isinstance(getattr(fn, "_revsrc_transformed", None), api.Transformed)


def _is_jitted(fn):
    return getattr(fn, "_revsrc_jit", False) and \
        isinstance(getattr(fn, "_revsrc_transformed", None), Jitted)


class _Inliner:
    """Replaces calls to derivatives and jitted functions by their programs."""

    def __init__(self, taken):
        self.taken = set(taken)
        self.seed = {}           # kinds of the inlined programs' variables
        self.tuples = {}         # tuple variable made here -> its items

    def fresh(self, base):
        k = 1
        while True:
            name = f"{base}{k}"
            if name not in self.taken:
                self.taken.add(name)
                return name
            k += 1

    def prefix(self, base, names):
        k = 1
        while True:
            p = f"{base}_" if k == 1 else f"{base}{k}_"
            if not any(p + n in self.taken for n in names):
                self.taken.update(p + n for n in names)
                return p
            k += 1

    def run(self, params, pkinds, body):
        for _ in range(50):
            # a call's result is taken to be what it is for float arguments, so that a
            # loop through it (x = x - g(x) / dg(x)) has kinds; a wrong guess shows as
            # arguments that are not scalars, and is refused
            kinds, _ = analysis.infer_kinds(params, pkinds, [None] * len(params),
                                            self.shadow(body), seed=self.seed)
            self.progress = False
            body = self.block(body, kinds)
            if not self.progress:
                break
        kinds, _ = analysis.infer_kinds(params, pkinds, [None] * len(params), body,
                                        seed=self.seed)
        for s in ir.walk(body):
            if isinstance(s, Op) and (_is_derivative(s.fn) or _is_jitted(s.fn)):
                bad = [a for a in s.args if _arg_kind(a, kinds) not in _SCALAR]
                raise errors.NotCompilable(
                    "revsrc.jit inlines derivatives called on floats, ints and bools; "
                    f"this call passes {', '.join(repr(kinds.get(a, a)) for a in bad)}",
                    loc=s.loc)
        return body, kinds

    def shadow(self, stmts):
        """``stmts`` with each call still to inline replaced by a value of the kind a
        float call returns (for kind inference only)."""
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.target is not None and _is_derivative(s.fn):
                out += self.guess(s.target, s.fn._revsrc_transformed._select())
                continue
            if isinstance(s, Op) and s.target is not None and _is_jitted(s.fn):
                out.append(Op(s.target, ir.copy, (Const(0.0),)))
                continue
            s = ir.map_bodies(s, self.shadow)
            if isinstance(s, While):
                s = While(self.shadow(s.test_body), s.test, s.body, loc=s.loc)
            out.append(s)
        return out

    def guess(self, target, select):
        if type(select) is int:
            return [Op(target, ir.copy, (Const(0.0),))]
        stmts, items = [], []
        for k, sub in enumerate(select):
            item = f"{target}%{k}"
            stmts += self.guess(item, sub)
            items.append(item)
        return stmts + [Op(target, ir.make_tuple, tuple(items))]

    def block(self, stmts, kinds):
        out = []
        for s in stmts:
            if isinstance(s, Op) and (_is_derivative(s.fn) or _is_jitted(s.fn)):
                if all(_arg_kind(a, kinds) in _SCALAR for a in s.args):
                    self.progress = True
                    out.extend(self.call(s, kinds))
                    continue
            out.append(ir.map_bodies(s, lambda b: self.block(b, kinds)))
            if isinstance(s, While):
                out[-1] = While(self.block(s.test_body, kinds), s.test, out[-1].body, loc=s.loc)
        return out

    def call(self, op, kinds):
        if op.kwargs:
            raise errors.NotCompilable(
                "revsrc.jit inlines derivatives called with positional arguments only",
                loc=op.loc)
        if _is_jitted(op.fn):
            return self.jitted(op)
        tr = op.fn._revsrc_transformed
        if tr.has_aux:
            raise errors.NotCompilable("revsrc.jit does not inline derivatives made with "
                                       "has_aux=True", loc=op.loc)
        args = _bind(tr.signature, tr.params, op)
        key = tuple(_arg_kind(a, kinds) for a in args)
        for a in tr.argnums:
            if key[a] != "f":
                raise errors.NotDifferentiableArgument(
                    f"cannot differentiate with respect to argument {a} "
                    f"({tr.params[a]}), a {_kind_name(key[a])}; only floats carry "
                    "gradients", loc=op.loc)
        prog = api._expanded(api.build_program(tr.f, tr.params, key, None, tr.argnums, False))
        base = ("vgrad_" if tr.with_value else "grad_") + _base(tr.f)
        inner = inline.names_in(prog.body) | set(prog.params) | \
            {o for o in prog.outputs if isinstance(o, str)}
        p = self.prefix(base, inner)
        out = [Op(p + name, ir.copy, (a,), loc=op.loc) for name, a in zip(prog.params, args)]
        out += inline.rename(prog.body, lambda n: p + n)
        self.seed.update({p + n: k for n, k in prog.kinds.items()})
        outs = [p + o if isinstance(o, str) else o for o in prog.outputs]
        out += self.select(op.target, tr._select(), outs, op.loc)
        return out

    def jitted(self, op):
        jt = op.fn._revsrc_transformed
        args = _bind(jt.signature, jt.params, op)
        params, body, result, _ = Normalizer(calls_derivatives=True).lower_function(jt.f)
        inner = inline.names_in(body) | set(params) | ({result} if isinstance(result, str)
                                                      else set())
        p = self.prefix(_base(jt.f), inner)
        out = [Op(p + name, ir.copy, (a,), loc=op.loc) for name, a in zip(params, args)]
        out += inline.rename(body, lambda n: p + n)
        out.append(Op(op.target, ir.copy,
                      (p + result if isinstance(result, str) else result,), loc=op.loc))
        return out

    def select(self, target, select, outs, loc):
        """``target`` = the derivative's result, as ``select`` picks it from ``outs``."""
        if type(select) is int:
            return [Op(target, ir.copy, (outs[select],), loc=loc)]
        stmts, items = [], []
        for sub in select:
            item = self.fresh(f"{target}_")
            stmts += self.select(item, sub, outs, loc)
            items.append(item)
        stmts.append(Op(target, ir.make_tuple, tuple(items), loc=loc))
        self.tuples[target] = tuple(items)
        return stmts


def _base(fn):
    name = getattr(fn, "__name__", "f")
    return "lambda" if name == "<lambda>" else name


def _arg_kind(a, kinds):
    if isinstance(a, Const):
        v = a.value
        return {bool: "b", int: "i", float: "f"}.get(type(v))
    return {"float": "f", "int": "i", "bool": "b"}.get(kinds.get(a))


def _bind(signature, params, op):
    """The call's operands, one per parameter (defaults as constants)."""
    try:
        ba = signature.bind(*range(len(op.args)))
    except TypeError as exc:
        raise errors.NotCompilable(f"this call does not match the signature: {exc}",
                                   loc=op.loc) from None
    out = []
    for p in params:
        if p in ba.arguments:
            out.append(op.args[ba.arguments[p]])
        else:
            default = signature.parameters[p].default
            if default is inspect.Parameter.empty:
                raise errors.NotCompilable(f"missing argument {p}", loc=op.loc)
            out.append(Const(default))
    return out


def _outputs(body, result, kinds, state, f, nz):
    """(body, outputs, select): the result, or the items of a returned tuple, as
    outputs; ``select`` nests them back (as Derivative.install takes it)."""
    if not isinstance(result, str):
        return body, [result], 0
    body = _fold_returned_tuples(body, result)
    writes = [s for s in ir.walk(body) if isinstance(s, Op) and s.target == result]
    shapes = {_shape(s, state) for s in writes}
    if not writes or kinds.get(result) != "tuple":
        return body, [result], 0
    if len(shapes) != 1 or None in shapes:
        raise errors.NotCompilable(
            f"revsrc.jit compiles functions that return floats, ints and bools, or tuples "
            f"of them of one shape; {f.__name__} returns something else",
            loc=_return_loc(f, nz))
    shape = shapes.pop()
    outs = [state.fresh(f"{result}_") for _ in range(_count_leaves(shape))]
    select = _numbered_select(shape, iter(range(len(outs))))

    def split(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.target == result:
                leaves = _leaves(s, state)
                out += [Op(o, ir.copy, (i,), loc=s.loc) for o, i in zip(outs, leaves)]
                continue
            s = ir.map_bodies(s, split)
            if isinstance(s, While):
                s = While(split(s.test_body), s.test, s.body, loc=s.loc)
            out.append(s)
        return out
    return split(body), outs, select


def _fold_returned_tuples(body, result):
    """``t = make_tuple(...); result = t`` (how a returned tuple is built) becomes
    ``result = make_tuple(...)``."""
    def fold(stmts):
        out = []
        for s in stmts:
            prev = out[-1] if out else None
            if isinstance(s, Op) and s.target == result and s.fn is ir.copy \
                    and isinstance(prev, Op) and prev.fn is ir.make_tuple \
                    and prev.target == s.args[0] and not prev.kwargs:
                s = Op(result, ir.make_tuple, prev.args, (), s.loc)
            s = ir.map_bodies(s, fold)
            if isinstance(s, While):
                s = While(fold(s.test_body), s.test, s.body, loc=s.loc)
            out.append(s)
        return out
    return fold(body)


def _items(s, state):
    if s.fn is ir.make_tuple:
        return s.args
    if s.fn is ir.copy and isinstance(s.args[0], str) and s.args[0] in state.tuples:
        return state.tuples[s.args[0]]
    return None


def _shape(s, state):
    """The nesting of a returned tuple: 0 for a leaf, a tuple of shapes, None if
    unknown."""
    items = _items(s, state)
    if items is None:
        return None
    return tuple(_item_shape(i, state) for i in items)


def _item_shape(i, state):
    if isinstance(i, str) and i in state.tuples:
        return tuple(_item_shape(j, state) for j in state.tuples[i])
    return 0


def _leaves(s, state):
    out = []

    def walk(i):
        if isinstance(i, str) and i in state.tuples:
            for j in state.tuples[i]:
                walk(j)
        else:
            out.append(i)
    for i in _items(s, state):
        walk(i)
    return out


def _count_leaves(shape):
    return 1 if shape == 0 else sum(_count_leaves(x) for x in shape)


def _numbered_select(shape, counter):
    if shape == 0:
        return next(counter)
    return tuple(_numbered_select(x, counter) for x in shape)


def _forward_tuples(body, tuples):
    """``t[i]`` of a tuple made by the inliner reads its item directly (the items are
    copies written only right before the tuple, so they still hold its values)."""
    import operator

    def fwd(stmts):
        out = []
        for s in stmts:
            if isinstance(s, Op) and s.fn is operator.getitem and len(s.args) == 2 \
                    and isinstance(s.args[0], str) and s.args[0] in tuples \
                    and isinstance(s.args[1], Const) and type(s.args[1].value) is int:
                items = tuples[s.args[0]]
                i = s.args[1].value
                if -len(items) <= i < len(items):
                    out.append(Op(s.target, ir.copy, (items[i],), loc=s.loc))
                    continue
            s = ir.map_bodies(s, fwd)
            if isinstance(s, While):
                s = While(fwd(s.test_body), s.test, s.body, loc=s.loc)
            out.append(s)
        return out
    return fwd(body)
