"""The stages of every program revsrc writes, listed per program kind.

Each stage takes data and returns data; the stage results are typed:

    Lowered    `lower(f, key)`: the IR of a function for argument kinds ``key``
    Analyzed   `analysis.analyze`: with every variable's kind and array rank, the
               parameters differentiated and the active variables, computed once and
               carried forward
    Program    `ir.Program`: what the transformations write and the back ends read

The program kinds, each one function below listing its stages:

    grad_program   lower -> analyze -> reverse.transform -> the new variables' kinds
                   (grad, value_and_grad; vjp with ``cotangent``)
    jvp_program    lower -> analyze (forward rules) -> jvp.transform -> kinds
    jit_program    lower -> jitted callees inlined -> tuples item by item -> kinds
                   -> outputs -> cse -> kinds
    then, for a back end: `expanded` (the engine, JAX) and `for_arrays` (Python)

Back ends, caches and the choice between them are the API layer's
(revsrc/executable.py). What a stage needs from a layer above is handed to it: the
forward-mode pass gets the function that compiles Python, `jit_program` the jit's own
stages (revsrc/jitted.py).

A plain Python function is parsed and normalized. A derivative made by revsrc is a
program already: its IR is the program written for those argument kinds, followed by
the operations that shape its return value as the derivative returns it. That is what
makes a derivative an ordinary function to every transformation (grad of grad,
forward over reverse, a derivative called inside a differentiated function). The
derivative is asked for that program through ``program_for(key)`` (see `_derivative`).
"""
from __future__ import annotations

import operator
import types
from typing import Any, Optional

import numpy as np

from . import analysis, attributes, call_kinds, inline, keywords, reverse
from ..frontend import arguments, bindings
from .. import errors, runtime
from ..core import ir, kinds, ops
from ..frontend import callee as callee_mod
from ..core.ir import Const, Op, Pop, SetItem
from ..core.late import LateModule
from ..core.record import FRESH, record
from ..runtime.containers import IN_PLACE as _IN_PLACE
from ..core.names import function_name
from ..frontend.lower import recursion
from ..frontend.lower.lowerer import Lowerer

# Passes only some programs need load when one first does: forward mode (jvp), the
# shared-work pass of jit's programs (cse), writes through views (versions, aliases),
# containers of gradients (gradient_trees) and those a program builds (containers).
# A derivative of arithmetic on numbers and arrays never reads them.
jvp = LateModule(__package__ + ".jvp")
cse = LateModule(__package__ + ".cse")
versions = LateModule(__package__ + ".versions")
aliases = LateModule(__package__ + ".views")
gradient_trees = LateModule(__package__ + ".gradient_trees")
prune = LateModule(__package__ + ".prune")      # (array programs' Python path)
containers = LateModule(__package__ + ".containers")


@record
class Lowered:
    """The IR of a function for argument kinds: what every transformation starts from."""
    names: Any
    params: list
    body: list
    result: Any
    aux: Optional[Any]
    kinds: dict        # known kinds (a derivative's program's)
    deps: list         # what it took as fixed (runtime.deps_current)

    def __init__(self, names, params, body, result, aux=None, kinds=FRESH, deps=FRESH):
        self.names = names
        self.params = params
        self.body = body
        self.result = result
        self.aux = aux
        self.kinds = {} if kinds is FRESH else kinds
        self.deps = [] if deps is FRESH else deps


# ----- The program kinds -----

def grad_program(f, key, positions, has_aux, cotangent=False, memory=None, lazy=False):
    """The adjoint program of ``f`` for argument kinds ``key`` (one entry per
    parameter, revsrc/arguments.py), differentiating the program's parameters at
    ``positions`` (with ``cotangent``, the last entry of ``key`` is that of the
    output's cotangent, which the program takes as its last parameter; ``memory``:
    a byte budget for long loops' saves, reverse/checkpoint.py; ``lazy``: their
    checkpointed form left out until a call needs it)."""
    if cotangent:
        key, ct_key = key[:-1], key[-1]
    low = lower(f, key, has_aux)
    an = analysis.analyze(low, arguments.flat_key(key), positions)
    fname = name_of(f)
    seed = low.names.internal("_ct") if cotangent else None
    prog = reverse.transform(an, name=f"{fname}_vjp" if cotangent else f"{fname}_adjoint",
                             seed=seed, memory=memory, lazy=lazy)
    prog.deps = list(low.deps)
    if cotangent:
        return _full_kinds(prog, an, [seed], *analysis.param_kinds([ct_key]))
    return _full_kinds(prog, an)


def jvp_program(f, key, positions, has_aux, compile_python):
    """The forward-mode program of ``f`` for argument kinds ``key``, with tangents for
    the program's parameters at ``positions`` (taken after the primals);
    ``compile_python``: see `jvp.transform`."""
    low = lower(f, key, has_aux)
    an = analysis.analyze(low, arguments.flat_key(key), positions,
                          rule_inputs=jvp.activity_positions)
    prog = jvp.transform(an, name=f"{name_of(f)}_jvp", compile_python=compile_python)
    prog.deps = list(low.deps)
    return _full_kinds(prog, an, [low.names.dot(p) for p in an.wrt],
                       [an.param_kinds[a] for a in positions],
                       [an.param_ndims[a] for a in positions])


def jit_program(f, key, inline_callees, outputs):
    """(program, output select) of ``f`` for scalar argument kinds ``key``, not
    differentiated: the derivatives it calls inlined (by `lower`), then the jitted
    functions it calls (``inline_callees(params, key, body, names, deps)``, which adds
    what their programs take as fixed to ``deps``), tuples read item by item, its
    outputs (``outputs(body, result, kinds, items, names, f)`` -> (body, outputs,
    select)), shared work computed once."""
    low = lower(f, key)
    names = low.names
    params = list(low.params)
    deps = list(low.deps)
    key = arguments.flat_key(key)     # a tuple of numbers: a parameter per item
    body = inline_callees(params, key, low.body, names, deps)
    body = attributes.as_global_reads(body)    # CFG.k of a global namespace: read per call
    body, items = cse.scalarize_tuples(body, names.fresh)
    seed = dict(low.kinds)
    for s in ir.walk(body):       # saved values popped by the inlined adjoints
        # (of every level: a second derivative's inner one pops from "f1", "i1b"...)
        if isinstance(s, Pop) and s.target not in seed and s.stack[0] in ("f", "i"):
            seed[s.target] = kinds.INT if s.stack[0] == "i" else kinds.FLOAT
    nothing = [None] * len(params)
    pkinds = [kinds.kind_of_signature(k) for k in key]   # an int made for its value: int
    found, _ = analysis.infer_kinds(params, pkinds, nothing, body, seed=seed)
    body, outs, select = outputs(body, low.result, found, items, names, f)
    body = cse.optimize(body, outs)
    found, _ = analysis.infer_kinds(params, pkinds, nothing, body, seed=seed)
    prog = ir.Program(f"{function_name(f)}_jit", params, body, outs, found,
                      forward_len=len(body), names=names, deps=deps)
    return prog, select


def _full_kinds(prog, an, params=(), pkinds=(), pndims=()):
    """``prog`` (transformed from ``an``, with ``params`` added after ``an``'s) with
    the kind of every variable, for the engine and the printer: the analysis's,
    those of the values its stacks save, and by inference those of the variables
    the transformation made."""
    seed = dict(an.kinds)
    for s in ir.walk(prog.body):
        if isinstance(s, Pop) and s.target not in seed:
            seed[s.target] = reverse.STACK_KIND[s.stack[0]]
    full, _ = analysis.infer_kinds(an.params + list(params), an.param_kinds + list(pkinds),
                                   an.param_ndims + list(pndims), prog.body, seed=seed,
                                   seed_ndims=an.ndims)
    prog.kinds = full
    return prog


# ----- For a back end -----

def expanded(prog):
    """``prog`` with users' functions that have rules of their own inlined from their
    source: the engine (and JAX) run their bodies where the Python path calls them."""
    taken = ir.names_in(prog.body) | set(prog.params)
    body = inline.expand(prog.body, taken)
    if body is prog.body:
        return prog
    pk = [prog.kinds.get(p, "any") for p in prog.params]
    found, _ = analysis.infer_kinds(prog.params, pk, [None] * len(pk), body, seed=prog.kinds)
    return ir.Program(prog.name, prog.params, body, prog.outputs, found,
                      forward_len=prog.forward_len, names=prog.names, deps=prog.deps)


def for_arrays(prog, value_returned=True):
    """The gradient program ``prog`` on arrays (never the engine's) as the Python back
    end runs it: without its value if it is not returned, adjoints accumulated in
    place, loop bodies through the kernels."""
    if not value_returned:
        prog = prune.drop_value(prog)
    prog = prune.accumulate_in_place(prog)
    return prune.loop_kernels(prog)


def name_of(f):
    """The name programs made from ``f`` are called by: its function's (a method's,
    a partial's, a primitive's)."""
    if transformed_of(f) is not None or isinstance(f, types.FunctionType):
        return function_name(f)
    try:
        return function_name(callee_mod.unwrap(f).fn)
    except errors.RevsrcError:  # pragma: no cover - refused before
        return function_name(f)


# ----- Lowering -----

def transformed_of(f):
    """The transformation behind a revsrc derivative, or None for anything else."""
    return getattr(f, "_revsrc_transformed", None)


def lower(f, key, has_aux=False):
    """The IR of ``f`` for arguments of kinds ``key`` (one entry per parameter of its
    function: revsrc/arguments.py). ``f`` may be a bound method, a partial, a callable
    object or a primitive (revsrc/callee.py)."""
    tr = transformed_of(f)
    if tr is not None:
        return _derivative(tr, key, has_aux)
    c = callee_mod.unwrap(f)
    params = arguments.Binding(c).params
    trees = {p: e[1] for p, e in zip(params, key) if arguments.is_tree(e)}
    nz = Lowerer(has_aux=has_aux)
    ints = {p: kinds.value_of_signature(e) for p, e in zip(params, key)
            if kinds.kind_of_signature(e) == kinds.INT}
    params, body, result, aux = nz.lower_function(c.fn, trees=trees, static=c.static,
                                                  functions=_functions(params, key),
                                                  ints=ints)
    flat = arguments.flat_key(key)
    body = keywords.bind_keywords(body)   # operands by position, as every pass reads them
    body = _specialize_containers(params, flat, body, nz.names)
    body = _follow_writes(params, flat, body, nz.names, (result, aux))
    # what the lowering took as fixed: the functions it inlined (its own deps), and
    # every other name it resolved then (revsrc/frontend/bindings.py)
    deps = bindings.merged(nz.deps, bindings.callee_guards(f))   # (what unwrap read of f)
    deps += bindings.guards(c.fn, c.static, known=deps)
    if any(_is_derivative_call(s) for s in ir.walk(body)):
        token = recursion.LOWERING.set((c.fn, getattr(nz, "run_time_ints", {})))
        try:
            body = _inline_derivatives(params, flat, body, nz.names, deps)
        finally:
            recursion.LOWERING.reset(token)
    return Lowered(nz.names, params, body, result, aux, deps=deps)


def _functions(params, key):
    """Function-valued arguments (``reduce=np.sum``): the program for them calls them
    by name (its cache key holds each one). Parameter -> the function, or for a
    container taken apart (``*args``), parameter -> {leaf number: the function}."""
    out = {}
    for p, e in zip(params, key):
        if isinstance(e, kinds.Function):
            out[p] = e.fn
        elif arguments.is_tree(e):
            leaves = {i: k.fn for i, k in enumerate(e[2]) if isinstance(k, kinds.Function)}
            if leaves:
                out[p] = leaves
    return out


_CONTAINER_OPS = (ir.make_list, ir.make_tuple, ir.make_dict, list, tuple, dict)


def _specialize_containers(params, key, body, names):
    """``body`` with operators and item assignment on lists, tuples and dicts made
    the operations of revsrc/containers.py, where the program builds any."""
    if not any(isinstance(s, Op) and (s.fn in _CONTAINER_OPS or s.fn in _IN_PLACE)
               for s in ir.walk(body)):
        return body
    return containers.specialize(params, analysis.param_kinds(key)[0], body, names)


def _follow_writes(params, key, body, names, returned=()):
    """``body`` with writes through views and aliases explicit (revsrc/aliases.py);
    ``returned``: what the function returns (names in it are kept)."""
    if not any(isinstance(s, SetItem) or (isinstance(s, Op) and (
            s.fn in ops.INPLACE or s.fn in _IN_PLACE)) for s in ir.walk(body)):
        return body
    body = versions.fused_results(body, set(params) | set(_names_in(returned)))
    body, back = versions.versions(params, body)   # one name per assignment, for now
    found, ndims = analysis.infer_kinds(params, *analysis.param_kinds(key), body)
    return aliases.resolve(params, body, found, names, back, ndims)


def _names_in(value):
    """The variable names in a returned structure (a name, or tuples and lists of them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _names_in(item)


# ----- Derivatives called inside a function -----
# A revsrc derivative called inside a function is replaced by its program. So is any
# other function revsrc made (a jitted function, a Jacobian, ``revsrc.jvp`` itself):
# it carries ``_revsrc_lower_call(site)``, which returns the statements computing the
# call (usually through `CallSite.inline`) or raises a coded refusal at its line.

def _is_derivative_call(s):
    return isinstance(s, Op) and (transformed_of(s.fn) is not None or
                                  call_hook(s.fn) is not None)


def call_hook(fn):
    """How a call to ``fn`` becomes IR, for a function revsrc made; else None."""
    hook = getattr(fn, "_revsrc_lower_call", None)
    return hook if callable(hook) else None


def _inline_derivatives(params, key, body, names, deps):
    """``body`` with each call to a revsrc derivative replaced by its program for the
    kinds of its arguments (the program's names prefixed, its stacks its own).

    A call whose arguments' kinds follow from another call's results waits for that
    one (``gx, gy = g2(x, y); x = x + gx; g2(x, y)``); a loop feeding a call's results
    back into its arguments (``v, g = vg(x); x = x - lr * g``) has them guessed to be
    floats, which the kinds of the whole body must then confirm."""
    pk = analysis.param_kinds(key)
    guesses = {}
    for round_ in range(30):
        found, ndims = call_kinds.kinds_of(params, pk, body, names)
        for a, k in guesses.items():
            if found.get(a) in (None, kinds.ANY):
                found[a] = k
        body, pending, progress = _expand_calls(body, found, ndims, names, deps,
                                                final=round_ == 29)
        if not pending:
            break
        if not progress:
            unknown = {a for a in pending if a not in guesses}
            if not unknown:
                body = _expand_calls(body, found, ndims, names, deps, final=True)[0]
                break
            guesses.update((a, kinds.FLOAT) for a in unknown)
    if guesses:
        found, _ = call_kinds.kinds_of(params, pk, body, names)
        for a, k in guesses.items():
            loc = next((s.loc for s in ir.walk(body) if isinstance(s, Op) and
                        a in ir.reads(s) and s.loc is not None), None)
            if found.get(a) in (None, kinds.ANY) and call_kinds.set_by_operations(
                    params, body, a):
                # a kind the program cannot tell (an item of a global list): checked
                # where it is set, when the program runs
                body = call_kinds.checked_where_set(body, a, loc, names)
            elif found.get(a) != k:
                what = f"with {a}" if not a.startswith("_") else "here"
                raise errors.HigherOrderNotSupported(
                    f"a revsrc derivative called {what}, whose kind only the call's own "
                    "results decide, is not a float there", loc=loc,
                    hint="pass floats or float arrays whose kind is known before the loop")
    body = call_kinds.numbers_unchecked(params, pk, body, names)
    return call_kinds.unread_globals_dropped(body)


class _UnknownKind(errors.HigherOrderNotSupported):
    """An argument whose kind is not known (yet): the call waits (see above)."""


def _expand_calls(body, found, ndims, names, deps, final):
    """(body, names of the arguments of unknown kind of the calls left, whether any
    call was replaced)."""
    defs = {}
    for s in ir.walk(body):
        if isinstance(s, Op) and s.target is not None:
            defs[s.target] = s if s.target not in defs else None   # written once only
    pending, progress, tuples = set(), [False], {}

    def expand(stmts):
        out = []
        for s in stmts:
            if not _is_derivative_call(s):
                out.append(ir.map_children(s, expand))   # a while's test may call one too
                continue
            site = CallSite(s, found, ndims, defs, names, deps)
            site.tuples = tuples
            tr = transformed_of(s.fn)
            try:
                new = _inline_one(site, tr) if tr is not None else call_hook(s.fn)(site)
            except _UnknownKind as exc:
                if final:
                    raise errors.HigherOrderNotSupported(exc.message, loc=exc.loc,
                                                         hint=exc.hint) from None
                pending.add(exc.name)
                out.append(s)
                continue
            if len(new) == 1 and new[0] is s:     # left for later (a jitted call)
                pending.update(a for a in s.args if isinstance(a, str) and
                               found.get(a) in (None, kinds.ANY))
            else:
                progress[0] = True
            out.extend(new)
        return out
    body = expand(body)
    return (call_kinds.items_read(body, tuples) if tuples else body), pending, progress[0]


class CallSite:
    """A call to a function revsrc made, inside a function being lowered: what the
    hook that replaces it may ask (argument kinds, the items of a tuple built before)
    and the way to splice a function's or a program's IR in its place."""

    def __init__(self, op, found, ndims, defs, names, deps):
        self.op, self.found, self.ndims = op, found, ndims
        self.defs, self.names, self.deps = defs, names, deps
        self.loc = op.loc
        self.tuples = {}     # a tuple this call's target is made of, by `splice`

    def kind(self, a):
        """The kind entry of argument ``a`` as a program key holds it; a coded refusal
        for a value whose program cannot be chosen before the call runs."""
        k = self.found.get(a) if isinstance(a, str) else kinds.of_value(a.value)
        if k == kinds.ARRAY:
            return (kinds.ARRAY, self.ndims.get(a) if isinstance(a, str) else a.value.ndim,
                    np.dtype(np.float64))
        if k in kinds.SCALARS:
            return k
        exc = (_UnknownKind if k in (None, kinds.ANY) and isinstance(a, str)
               else errors.HigherOrderNotSupported)(
            f"a revsrc derivative called with an argument of kind {k!r}: its program "
            "cannot be chosen before the call runs", loc=self.loc,
            hint="pass floats, ints, bools or float arrays to derivatives you call "
                 "inside a transformed function")
        exc.name = a
        raise exc

    def items(self, a):
        """The items of a tuple argument built in the function (``(x,)``), or None."""
        if isinstance(a, Const):
            return [Const(v) for v in a.value] if isinstance(a.value, (tuple, list)) \
                else None
        made = self.defs.get(a)
        if made is None or made.fn not in (ir.make_tuple, ir.make_list, tuple, list) or \
                made.kwargs:
            return None
        return list(made.args)

    def inline(self, f, args, base):
        """Statements computing this call's target as ``f(*args)``, ``f`` lowered for
        the arguments' kinds."""
        low = lower(f, tuple(self.kind(a) for a in args))
        return self.splice(low.params, low.body, low.result, args, base, low.deps)

    def splice(self, params, body, result, args, base, deps=(), results=None):
        """Statements binding ``params`` to ``args``, then ``body`` (its names
        prefixed), then this call's target to ``result`` (or, with ``results``, to
        the tuple of those)."""
        self.deps.extend(deps)
        outs = list(results) if results is not None else [result]
        inner = ir.names_in(body) | set(params) | {r for r in outs if isinstance(r, str)}
        prefix = self.names.prefix(base, inner)
        for n in inner:
            self.names.reserve(prefix + n)
        out = [Op(prefix + p, ir.copy, (a,), loc=self.loc) for p, a in zip(params, args)]
        out += ir.rename(body, lambda n: prefix + n)
        outs = [prefix + r if isinstance(r, str) else r for r in outs]
        if results is not None:
            out.append(Op(self.op.target, ir.make_tuple, tuple(outs), loc=self.loc))
            self.tuples[self.op.target] = outs
        else:
            out.append(Op(self.op.target, ir.copy, (outs[0],), loc=self.loc))
        for st in ir.walk(out):
            if isinstance(st, Op) and st.loc is None:
                st.loc = self.loc
        return out


def _inline_one(site, tr):
    s = site.op
    try:
        args = tr.bind(tuple(s.args), dict(s.kwargs))
    except TypeError as exc:
        raise errors.StaticValueError(str(exc), loc=s.loc) from None
    pre = []     # an array default: read when the program runs (ir.Defaults), as inlined
    args = [a if isinstance(a, (str, Const)) else _default_operand(site, tr, p, a, pre)
            for p, a in zip(tr.params, args)]
    static = tr.binding.static
    sig = []
    for p, a in zip(tr.params, args):
        if p in static:
            sig.append(arguments.STATIC)
            continue
        if p in (tr.binding.vararg, tr.binding.varkw):
            raise errors.HigherOrderNotSupported(
                "a revsrc derivative of a function with *args or **kwargs called inside "
                "a differentiated function", loc=s.loc, hint="name its parameters")
        tree = gradient_trees.container_argument(site, a)
        if tree is not None:    # a container built in the function: its leaves
            sig.append((arguments.TREE, tree[0], tuple(site.kind(x) for x in tree[1])))
            continue
        sig.append(site.kind(a))
    for a in tr.argnums:
        if sig[a] == arguments.STATIC:
            continue
        if not (sig[a] == kinds.FLOAT or isinstance(sig[a], tuple)):
            raise errors.NotDifferentiableArgument(
                f"the derivative called here differentiates argument {a}, of kind "
                f"{sig[a]!r}; only floats and float arrays carry gradients", loc=s.loc,
                hint="pass a float")
    low = recursion.lower_called(
        lambda key: lower(tr.derivative if tr.derivative is not None else s.fn, key),
        tr.binding, sig, args, s.loc)
    given = []
    for p, a, e in zip(tr.params, args, sig):
        if p in static:
            continue
        given.extend(gradient_trees.container_argument(site, a)[1]
                     if arguments.is_tree(e) else [a])
    return pre + site.splice(low.params, low.body, low.result, given,
                             f"{function_name(tr.f)}_d", low.deps)


def _default_operand(site, tr, param, value, pre):
    """A default the call leaves out: a constant, or for an array (no constant a pass
    can hold) a read of it when the program runs, as a called function's default."""
    if not isinstance(value, np.ndarray):
        return Const(value)
    owner = function_name(tr.f)
    var = site.names.fresh(f"{owner}_{param}")
    pre.append(Op(var, ir.load_global, (Const(ir.Defaults(owner, {param: value})),
                                        Const(param)), loc=site.loc))
    site.found[var], site.ndims[var] = kinds.ARRAY, value.ndim
    return var


def _derivative(tr, key, has_aux):
    """The IR of the derivative ``tr`` (an `api.Transformed`) for argument kinds
    ``key``: its program, which ``tr.program_for(key)`` gives (made now if it was not
    before; as transformed, before a back end's pruning), then the operations that
    make the derivative's return value of the program's outputs."""
    if getattr(type(tr.f), "_revsrc_mapped", False):
        raise errors.HigherOrderNotSupported(
            f"{name_of(tr.f)} is a function mapped by revsrc.vmap: its derivative is "
            "taken through the rule of its call, which has no rule of its own, so it "
            "cannot be differentiated again",
            hint="map the transformation instead: revsrc.vmap(revsrc.grad(revsrc.grad(f)))")
    groups = arguments.slot_leaves(tr.binding, key, tr.slots)
    for td, _ in groups:
        gradient_trees.check_gradient(td, tr)
    inlined = reverse.checkpoint.INLINED.get()
    if inlined is not None:      # inside revsrc.jit(..., memory=)
        tr = tr.bounded(inlined[0])
    prog = tr.program_for(key)
    # its adjoints are ordinary variables now: the new transformation names its own
    names = prog.names.fork()
    body = ir.rename(prog.body, lambda n: n)   # fresh statements: never shared
    outs = list(prog.outputs)
    positions = [p for _, ps in groups for p in ps]
    n = len(positions)      # one gradient output per leaf differentiated
    leaf_grads = []
    for out, a in zip(outs[1:1 + n], positions):
        g = names.temp()
        body.append(Op(g, runtime.finalize_grad, (out, prog.params[a])))
        leaf_grads.append(g)
    leaf_grads = iter(leaf_grads)
    # a gradient with respect to a container is that container of its leaves'
    grads = [gradient_trees.gradient(td, leaf_grads, body, names) for td, _ in groups]
    if tr.tuple_argnums:
        grad = names.temp()
        body.append(Op(grad, ir.make_tuple, tuple(grads)))
    else:
        grad = grads[0]
    value = outs[0]
    parts = [grad]
    if tr.has_aux:
        aux = outs[1 + n]
        if tr.with_value:
            va = names.temp()
            body.append(Op(va, ir.make_tuple, (value, aux)))
            parts = [va, grad]
        else:
            parts = [grad, aux]
    elif tr.with_value:
        parts = [value, grad]
    if len(parts) == 1:
        result = parts[0]
    else:
        result = names.temp()
        body.append(Op(result, ir.make_tuple, tuple(parts)))
    aux_out = None
    if has_aux:
        r0, r1 = names.temp(), names.temp()
        body.append(Op(r0, operator.getitem, (result, Const(0))))
        body.append(Op(r1, operator.getitem, (result, Const(1))))
        result, aux_out = r0, r1
    return Lowered(names, list(prog.params), body, result, aux_out, kinds=dict(prog.kinds),
                   deps=list(prog.deps))
