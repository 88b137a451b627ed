"""What every transformation starts from: the IR of a function, for argument kinds.

A plain Python function is parsed and normalized. A derivative made by revsrc is a
program already: its IR is the program written for those argument kinds, followed by
the operations that shape its return value as the derivative returns it. That is what
makes a derivative an ordinary function to every transformation (grad of grad,
forward over reverse, a derivative called inside a differentiated function).
"""
from __future__ import annotations

import copy
import operator
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from . import views as aliases, containers, inline
from ..frontend import arguments
from .. import errors, runtime
from ..core import ir, kinds
from ..frontend import callee as callee_mod
from ..core.ir import Const, Op, SetItem
from ..core.names import function_name
from ..frontend.lower.lowerer import Lowerer


@dataclass
class Lowered:
    names: Any
    params: list
    body: list
    result: Any
    aux: Optional[Any] = None
    kinds: dict = field(default_factory=dict)   # known kinds (a derivative's program's)
    ndims: dict = field(default_factory=dict)
    deps: list = field(default_factory=list)    # functions it inlined (Lowerer.deps)


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
    params, body, result, aux = nz.lower_function(c.fn, trees=trees, static=c.static,
                                                  functions=_functions(params, key))
    flat = arguments.flat_key(key)
    body = _specialize_containers(params, flat, body, nz.names)
    body = _follow_writes(params, flat, body, nz.names)
    deps = list(nz.deps)
    if any(_is_derivative_call(s) for s in ir.walk(body)):
        body = _inline_derivatives(params, flat, body, nz.names, deps)
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
    if not any(isinstance(s, Op) and (s.fn in _CONTAINER_OPS or s.fn in containers.IN_PLACE)
               for s in ir.walk(body)):
        return body
    return containers.specialize(params, [kinds.kind_of_signature(k) for k in key], body,
                                 names)


def _follow_writes(params, key, body, names):
    """``body`` with writes through views and aliases explicit (revsrc/aliases.py)."""
    if not any(isinstance(s, SetItem) or (isinstance(s, Op) and (
            s.fn in aliases.INPLACE or s.fn in containers.IN_PLACE)) for s in ir.walk(body)):
        return body
    from . import analysis
    body, back = aliases.versions(params, body)   # one name per assignment, for now
    found, _ = analysis.infer_kinds(params, [kinds.kind_of_signature(k) for k in key],
                                    [kinds.ndim_of_signature(k) for k in key], body)
    return aliases.resolve(params, body, found, names, back)


# ----- Derivatives called inside a function -----

def _is_derivative_call(s):
    return isinstance(s, Op) and transformed_of(s.fn) is not None


def _inline_derivatives(params, key, body, names, deps):
    """``body`` with each call to a revsrc derivative replaced by its program for the
    kinds of its arguments (the program's names prefixed, its stacks its own)."""
    from . import analysis  # (analysis reads the rule table, which imports this module)
    pk = [kinds.kind_of_signature(k) for k in key]
    pn = [kinds.ndim_of_signature(k) for k in key]
    found, ndims = analysis.infer_kinds(params, pk, pn, body)

    def expand(stmts):
        out = []
        for s in stmts:
            if _is_derivative_call(s):
                out.extend(_inline_one(s, found, ndims, names, deps))
            else:
                out.append(ir.map_bodies(s, expand))
        return out
    return expand(body)


def _inline_one(s, found, ndims, names, deps):
    tr = transformed_of(s.fn)
    try:
        args = tr.bind(tuple(s.args), dict(s.kwargs))
    except TypeError as exc:
        raise errors.UnsupportedSyntax(str(exc), loc=s.loc) from None
    args = [a if isinstance(a, (str, Const)) else Const(a) for a in args]  # defaults
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
        k = found.get(a) if isinstance(a, str) else kinds.of_value(a.value)
        if k == kinds.ARRAY:
            sig.append((kinds.ARRAY, ndims.get(a) if isinstance(a, str) else a.value.ndim,
                        np.dtype(np.float64)))
        elif k in kinds.SCALARS:
            sig.append(k)
        else:
            raise errors.HigherOrderNotSupported(
                f"a revsrc derivative called with an argument of kind {k!r}: its program "
                "cannot be chosen before the call runs", loc=s.loc,
                hint="pass floats, ints, bools or float arrays to derivatives you call "
                     "inside a differentiated function")
    for a in tr.argnums:
        if sig[a] == arguments.STATIC:
            continue
        if not (sig[a] == kinds.FLOAT or isinstance(sig[a], tuple)):
            raise errors.NotDifferentiableArgument(
                f"the derivative called here differentiates argument {a}, of kind "
                f"{sig[a]!r}; only floats and float arrays carry gradients", loc=s.loc,
                hint="pass a float")
    low = lower(tr.derivative if tr.derivative is not None else s.fn, tuple(sig))
    deps.extend(low.deps)
    inner = inline.names_in(low.body) | set(low.params) | \
        ({low.result} if isinstance(low.result, str) else set())
    base = f"{function_name(tr.f)}_d"
    prefix = names.prefix(base, inner)
    for n in inner:
        names.reserve(prefix + n)
    given = [a for p, a in zip(tr.params, args) if p not in static]
    out = [Op(prefix + p, ir.copy, (a,), loc=s.loc) for p, a in zip(low.params, given)]
    out += inline.rename(low.body, lambda n: prefix + n)
    result = prefix + low.result if isinstance(low.result, str) else low.result
    out.append(Op(s.target, ir.copy, (result,), loc=s.loc))
    for st in ir.walk(out):
        if isinstance(st, Op) and st.loc is None:
            st.loc = s.loc
    return out


def _derivative(tr, key, has_aux):
    if any(arguments.is_tree(e) for e in key):
        raise errors.HigherOrderNotSupported(
            f"differentiating again a derivative of {tr.callee.name} taken with respect "
            "to a container (or of a function with *args or **kwargs) is not supported "
            "yet", loc=tr.parsed.loc(tr.parsed.node),
            hint="pass the leaves as separate float or array arguments")
    entry = tr.cached(key) or tr._compile(key, None)
    prog = entry.unpruned
    names = copy.deepcopy(prog.names)
    # its adjoints are ordinary variables now: the new transformation names its own
    names.bars = {}
    names.__dict__.pop("dots", None)
    body = inline.rename(prog.body, lambda n: n)   # fresh statements: never shared
    outs = list(prog.outputs)
    n = len(tr.argnums)
    grads = []
    positions = arguments.wrt_positions(tr.binding, key, tr.slots)
    for out, a in zip(outs[1:1 + n], positions):
        g = names.temp()
        body.append(Op(g, runtime.finalize_grad, (out, prog.params[a])))
        grads.append(g)
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
