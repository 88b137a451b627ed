"""Kinds (what each variable holds) and activity (what carries a gradient).

`analyze` computes both once for a lowered function and returns them with it, as the
`Analyzed` record every transformation (reverse, jvp) takes.
"""
from __future__ import annotations

import builtins
import operator
import sys
from typing import Any, Optional

import numpy as np

from .. import errors, primitives, runtime
from . import realness
from ..runtime import containers
from ..core import ir
from ..core import kinds as kinds_mod
from ..core.ir import Const, For, Op, Pop, Push, SetItem
from ..core.record import record
from ..rules import kind_rules

from ..core.kinds import ANY, ARRAY, SCALARS, join  # noqa: F401  (SCALARS: re-exported)


class _Context:
    """What a kind rule may ask about an operation's operands."""

    def __init__(self, kinds, ndims, items, nonnegative=frozenset(), lists=None):
        self._kinds = kinds
        self._ndims = ndims
        self._items = items
        self._nonnegative = nonnegative
        self._lists = lists or {}

    def kind(self, o):
        if isinstance(o, Const):
            return kinds_mod.of_value(o.value)
        return self._kinds.get(o)

    def kinds(self, operands):
        return [self.kind(o) for o in operands]

    def ndim(self, o):
        if isinstance(o, Const):
            return np.ndim(o.value) if isinstance(o.value, np.ndarray) else None
        return self._ndims.get(o)

    def items(self, name):
        """The operands of the tuple ``name`` built in the program, if it is one."""
        return self._items.get(name, ())

    def list_items(self, name):
        """The items of the list ``name`` if the program builds it from them and reads
        it once, changing it nowhere (``np.array([a, b])``'s), else ()."""
        return self._lists.get(name, ())

    def nonnegative(self, o):
        """Whether ``o`` is an int known never negative (`counters`)."""
        if isinstance(o, Const):
            return type(o.value) in (int, bool) and o.value >= 0
        return o in self._nonnegative


@record
class Analyzed:
    """A lowered function (`pipeline.Lowered`) with what transforming it asks for,
    computed once and carried forward: the kind and known array rank of every
    variable (``kinds``, ``ndims``; those of the parameters first, as the argument
    kinds give them), the parameters differentiated (``wrt``) and the active variables
    (varied by them and useful to the result)."""
    names: Any
    params: list
    body: list
    result: Any
    aux: Optional[Any]
    deps: list
    param_kinds: list
    param_ndims: list
    kinds: dict
    ndims: dict
    wrt: list
    active: set

    def __init__(self, names, params, body, result, aux, deps, param_kinds, param_ndims,
                 kinds, ndims, wrt, active):
        self.names = names
        self.params = params
        self.body = body
        self.result = result
        self.aux = aux
        self.deps = deps
        self.param_kinds = param_kinds
        self.param_ndims = param_ndims
        self.kinds = kinds
        self.ndims = ndims
        self.wrt = wrt
        self.active = active


def param_kinds(flat_key):
    """(kinds, ranks) of the parameters of a program for the flat argument kinds
    ``flat_key`` (`arguments.flat_key`): where kind inference starts."""
    return ([kinds_mod.kind_of_signature(k) for k in flat_key],
            [kinds_mod.ndim_of_signature(k) for k in flat_key])


def analyze(low, flat_key, positions, rule_inputs=None):
    """``low`` (a `pipeline.Lowered`) analyzed for argument kinds ``flat_key``, with
    the parameters at ``positions`` differentiated; ``rule_inputs`` is `activity`'s
    ``positions`` (the reverse rules' by default)."""
    pkinds, pndims = param_kinds(flat_key)
    found, ndims = infer_kinds(low.params, pkinds, pndims, low.body, seed=low.kinds)
    _dict_unions(low.body, found)
    wrt = [low.params[a] for a in positions]
    # known real: arrays by `realness`, numbers by their kinds unless computed from
    # complex values (a complex array's np.sum is a number)
    unreal = realness.maybe_complex(low.params, flat_key, low.body)
    real = realness.real_variables(low.params, flat_key, low.body) | {
        v for v, k in found.items() if k in SCALARS and v not in unreal}
    active = activity(low.params, wrt, low.body, low.result, found, positions=rule_inputs,
                      real=real)
    out = Analyzed(low.names, low.params, low.body, low.result, low.aux, low.deps,
                   pkinds, pndims, found, ndims, wrt, active)
    out.maybe_complex = frozenset(unreal)   # (a number among them is saved as it is)
    return out


def _dict_unions(body, found):
    """``a | b`` of two dicts is their merge (runtime/containers.py), whose rule gives
    each its adjoint; ``|`` of numbers carries none."""
    for s in ir.walk(body):
        if isinstance(s, Op) and s.fn is operator.or_ and all(
                isinstance(a, str) and found.get(a) == kinds_mod.DICT for a in s.args):
            s.fn = containers.merge


def op_kind(op, ctx):
    """(kind, ndim) of ``op``'s result; kind None while an operand's is unknown."""
    if any(ctx.kind(a) is None for a in op.args if isinstance(a, str)):
        return None, None
    rule = primitives.kind_rule(op.fn)
    k = rule(op, ctx) if rule is not None else kind_rules.generic_kind(op.fn, op, ctx)
    if isinstance(k, tuple):
        k, nd = k
    else:
        nd = None
    return k, (nd if k == ARRAY else None)


# The comment above the None that starts a variable the reverse pass saves before its
# first assignment (revsrc/passes/reverse/forward.py, `initial_values`)
PLACEHOLDERS = "saved before their first assignment"


def placeholders(stmts):
    """The ids of those placeholder statements among ``stmts`` (in walk order): they
    say nothing of the variable's kind, which its real assignments give (a None joined
    with an array would make it ``any``, and the adjoint of a program made by revsrc,
    differentiated again, would start an array's adjoint as the number 0.0)."""
    held, after = set(), False
    for s in stmts:
        if isinstance(s, ir.Comment):
            after = s.text.startswith(PLACEHOLDERS)
        elif after and isinstance(s, Op) and s.fn is ir.copy and len(s.args) == 1 \
                and isinstance(s.args[0], Const):
            if s.args[0].value is None:   # (0.0 and 0 start the typed stacks' values:
                held.add(id(s))           # numbers, as the variables are)
        else:
            after = False
    return held


def counters(params, stmts):
    """The int variables that are never negative: each is assigned only by ``for v in
    range(start, stop, step)`` loops whose start is a constant >= 0 (or another such
    variable) and whose step is a constant > 0, or as a sum or product of such
    variables and constants, and is no parameter. ``(-1) ** k`` of
    such a k is an int, where ``(-1) ** n`` of any int n may be a float."""
    writers = {}
    for s in stmts:
        for name in ir.writes(s):
            writers.setdefault(name, []).append(s)
    found = set()
    ctx = _Context({}, {}, {}, found)

    def never_negative(w):
        if isinstance(w, For):
            return ctx.nonnegative(w.start) and isinstance(w.step, Const) \
                and type(w.step.value) is int and w.step.value > 0
        # n + 1, 2 * k of counters and constants >= 0: (-1) ** (n + 1)
        return isinstance(w, Op) and w.fn in (operator.add, operator.mul) and \
            len(w.args) == 2 and all(ctx.nonnegative(a) for a in w.args)

    changed = True
    while changed:    # a start may be another counter: range(i, n) inside range(n)
        changed = False
        for name, ws in writers.items():
            if name not in found and name not in params and all(map(never_negative, ws)):
                found.add(name)
                changed = True
    return frozenset(found)


def infer_kinds(params, param_kinds, param_ndims, body, seed=None, seed_ndims=None):
    """Per-variable kinds and (where known) array ranks, by fixpoint over the body."""
    kinds = dict(seed or {})
    kinds.update(zip(params, param_kinds))
    ndims = dict(seed_ndims or {})
    ndims.update({p: n for p, n in zip(params, param_ndims) if n is not None})
    stmts = list(ir.walk(body))
    held = placeholders(stmts)
    items = {s.target: s.args for s in stmts
             if isinstance(s, Op) and s.fn is ir.make_tuple and s.target is not None}
    lists = _literal_lists(stmts)
    ctx = _Context(kinds, ndims, items, counters(set(params), stmts), lists)
    inputs = {id(s): _kind_inputs(s, {**items, **lists}) for s in stmts
              if isinstance(s, Op) and s.target is not None and id(s) not in held}
    # An operation's kind is a function of its inputs' kinds and ranks, and what it
    # does to its target's kind and rank (a join; the rank merged where the kind is an
    # array) is a function of that and of the target's: one asked after its inputs and
    # its target last changed (the target by another operation) would change nothing.
    # So a round asks only the others (by the last round, none), in program order,
    # with the same result as asking all of them.
    changed_at, asked_at, clock = {}, {}, 0
    for _ in range(50):
        changed = False
        for s in stmts:
            if isinstance(s, Op) and s.target is not None and id(s) not in held:
                seen = asked_at.get(id(s))
                if seen is not None and changed_at.get(s.target, -1) <= seen and \
                        all(changed_at.get(n, -1) < seen for n in inputs[id(s)]):
                    continue
                clock += 1
                asked_at[id(s)] = clock
                k, nd = op_kind(s, ctx)
                if k is None:
                    continue
                new = join(kinds.get(s.target), k) if s.target in kinds else k
                if new != kinds.get(s.target):
                    kinds[s.target] = new
                    changed = True
                    changed_at[s.target] = clock
                if new == ARRAY:
                    old = ndims.get(s.target, "unset")
                    merged = nd if old == "unset" else (old if old == nd else None)
                    if merged != old:
                        ndims[s.target] = merged
                        changed = True
                        changed_at[s.target] = clock
            elif isinstance(s, For) and s.var not in kinds:
                kinds[s.var] = kinds_mod.INT  # range() yields ints
                changed = True
                clock += 1
                changed_at[s.var] = clock
        if not changed:
            break
    for s in stmts:   # a placeholder nothing else assigns keeps its own kind
        if id(s) in held and s.target not in kinds:
            kinds[s.target] = op_kind(s, ctx)[0]
    for s in stmts:
        for name in ir.writes(s):
            kinds.setdefault(name, ANY)
    return kinds, {k: v for k, v in ndims.items() if v is not None}


def _literal_lists(stmts):
    """The lists the program builds from their items (``make_list``) and reads exactly
    once, assigned nowhere else: list name -> its items."""
    made = {s.target: s.args for s in stmts
            if isinstance(s, Op) and s.fn is ir.make_list and s.target is not None}
    if not made:
        return {}
    reads, writes = {}, {}
    for s in stmts:
        for n in ir.reads(s):
            if n in made:
                reads[n] = reads.get(n, 0) + 1
        for n in ir.writes(s):
            if n in made:
                writes[n] = writes.get(n, 0) + 1
    return {n: args for n, args in made.items() if reads.get(n) == 1 and writes.get(n) == 1}


def _kind_inputs(op, items):
    """The names whose kinds and ranks ``op``'s kind rule may read: its operands, and
    the items of a tuple the program built among them (at any depth)."""
    names = [a for a in op.args if isinstance(a, str)]
    if op.kwargs:
        names.extend(v for _, v in op.kwargs if isinstance(v, str))
    if not any(n in items for n in names):
        return names
    found, todo = set(), names
    while todo:
        n = todo.pop()
        if n not in found:
            found.add(n)
            todo.extend(a for a in items.get(n, ()) if isinstance(a, str))
    return found


def _diff_args(op):
    """Indices of ``op``'s positional arguments and names of kwargs a rule differentiates
    (None, None for a call with no rule at all)."""
    prim = primitives.lookup(op.fn)
    if op.fn in (ir.make_tuple, ir.make_list):
        return list(range(len(op.args))), []
    if op.fn is ir.make_dict:   # its values (not its keys)
        return list(range(1, len(op.args), 2)), []
    if prim is None or (prim.vjp is None and not prim.nondiff):
        return None, None  # no rule: refused if a differentiated value reaches it
    if prim.vjp is None:
        return [], []
    pos = [i for i in range(len(op.args)) if prim.differentiable(i)]
    # a keyword its rule does not name is an input too: refused below if it is active
    kws = [k for k, _ in op.kwargs if k not in prim.params
           or prim.differentiable(prim.params.index(k))]
    return pos, kws


def stack_var(stack):
    """The pseudo-variable standing for every value pushed on ``stack``: a program
    made by revsrc saves values there and restores them later, so a value flows from
    each Push to the Pops of its stack."""
    return f"@stack:{stack}"


# str(x) and the like keep x's digits: float(str(x)) is x. Their result carries x's
# derivative, which no rule follows: refused where it reaches the result.
_TEXT = (builtins.str, builtins.repr, builtins.format)

_DIFFERENTIABLE = (kinds_mod.FLOAT, ARRAY, ANY, kinds_mod.TUPLE, kinds_mod.LIST,
                   kinds_mod.DICT)


def _varied(stmts, wrt, kinds, positions, real):
    """The variables a ``wrt`` argument reaches through differentiated inputs."""
    varied = set(wrt)
    selected = {}   # id(op) -> positions(op), asked once
    changed = True
    while changed:
        changed = False
        for s in stmts:    # in program order: straight-line code settles in one pass
            if isinstance(s, Op) and s.target is not None and s.target not in varied:
                if kinds.get(s.target) not in _DIFFERENTIABLE or _casts_to_integers(s):
                    continue
                sel = selected.get(id(s))
                if sel is None:
                    sel = selected[id(s)] = (None, None) if s.fn in _TEXT else positions(s)
                pos, kws = sel
                if pos is None:  # no rule: varied if any input is
                    ins = [a for a in s.args] + [v for _, v in s.kwargs]
                else:
                    ins = [s.args[i] for i in pos] + [v for k, v in s.kwargs if k in kws]
                if any(isinstance(a, str) and a in varied for a in ins) \
                        and not _flat_here(s, real):
                    varied.add(s.target)
                    changed = True
            elif isinstance(s, SetItem) and s.target not in varied:
                if isinstance(s.value, str) and s.value in varied:
                    varied.add(s.target)
                    changed = True
            elif isinstance(s, Push) and isinstance(s.value, str) and s.value in varied \
                    and stack_var(s.stack) not in varied:
                varied.add(stack_var(s.stack))
                changed = True
            elif isinstance(s, Pop) and stack_var(s.stack) in varied \
                    and s.target not in varied \
                    and kinds.get(s.target) in _DIFFERENTIABLE + (None,):
                varied.add(s.target)
                changed = True
    return varied


def _flat_here(op, real):
    """Whether ``op`` calls a function piecewise constant on real numbers (np.sign, whose
    rules are for complex inputs) on real values alone (``real``: see `analyze`): its
    derivative is zero there, so the program (one the scalar engine runs too) has none."""
    return bool(primitives.fact(op.fn, "flat_on_reals")) and all(
        a in real if isinstance(a, str) else realness.real_constant(a.value)
        for a in op.args)


def _casts_to_integers(op):
    """Whether ``op`` returns integers or bools by its constant ``dtype`` argument
    (``x.astype(int)``, ``np.asarray(x, dtype=np.int64)``, ``np.array(x, bool)``):
    such a result is piecewise constant in its inputs, so its derivative is zero on
    every path, as in JAX, however linear the rule of the function is otherwise."""
    prim = primitives.lookup(op.fn)
    params = prim.params if prim is not None else ()
    if "dtype" not in params:
        return False
    i = params.index("dtype")
    dtype = op.args[i] if i < len(op.args) else dict(op.kwargs).get("dtype")
    if not isinstance(dtype, Const) or dtype.value is None:
        return False
    try:
        return np.dtype(dtype.value).kind in "biu"
    except TypeError:
        return False


def _useful(stmts, result):
    """The variables ``result`` is computed from."""
    useful = {result} if isinstance(result, str) else set()
    changed = True
    while changed:
        changed = False
        for s in reversed(stmts):   # against program order: from the result back
            if isinstance(s, Op) and s.target in useful:
                for a in list(s.args) + [v for _, v in s.kwargs]:
                    if isinstance(a, str) and a not in useful:
                        useful.add(a)
                        changed = True
            elif isinstance(s, SetItem) and s.target in useful:
                if isinstance(s.value, str) and s.value not in useful:
                    useful.add(s.value)
                    changed = True
            elif isinstance(s, Pop) and s.target in useful \
                    and stack_var(s.stack) not in useful:
                useful.add(stack_var(s.stack))
                changed = True
            elif isinstance(s, Push) and stack_var(s.stack) in useful \
                    and isinstance(s.value, str) and s.value not in useful:
                useful.add(s.value)
                changed = True
    return useful


def activity(params, wrt, body, result, kinds, positions=None, real=frozenset()):
    """The active variables: varied by a ``wrt`` argument and useful to ``result``
    (``real``: the variables known to hold real values, `realness`).

    ``positions(op)`` gives the inputs of ``op`` its rule differentiates, as
    (positional indices, keyword names), or (None, None) when it has no rule: by
    default those of the reverse rules; forward mode passes its own."""
    positions = positions or _diff_args
    stmts = list(ir.walk(body))
    varied = _varied(stmts, wrt, kinds, positions, real)
    useful = _useful(stmts, result)
    active = varied & useful
    for s in stmts:
        if isinstance(s, Op) and s.target in active:
            sel = positions(s)
            operands = list(s.args) + [v for _, v in s.kwargs]
            if s.fn in _TEXT and any(isinstance(a, str) and a in active for a in operands):
                raise errors.NoRule(
                    f"{s.fn.__name__}() of a differentiated value is used to compute the "
                    "result: its text holds the value's digits, whose derivative revsrc "
                    "does not follow", loc=s.loc,
                    hint="compute with the number itself, or wrap it in "
                         "revsrc.stop_gradient(...) if the text is meant as a constant")
            _unknown_keyword(s, active)
            if sel[0] is None and any(isinstance(a, str) and a in active for a in operands):
                if s.fn in (ir.call_method, ir.get_attribute):
                    what = (f"method .{s.args[1].value}()" if s.fn is ir.call_method
                            else f"attribute .{s.args[1].value}")
                    raise errors.NoRule(
                        f"{what} is used on or with a differentiated value, and has no "
                        "derivative rule", loc=s.loc,
                        hint="use a NumPy function (np.sum(x) for x.sum()), call the "
                             "method on values that carry no gradient, or register a "
                             "rule with revsrc.defvjp for a function that does it")
                if s.fn is ir.make_dict:
                    raise errors.NoRule(
                        "a dict whose keys are only known when the function runs holds a "
                        "differentiated value", loc=s.loc,
                        hint="use constant keys ({'W': W}), or a tuple or list")
                if s.fn is ir.make_node:
                    raise errors.NoRule(
                        "a container built as a value (in a loop, or under a condition) "
                        "holds a differentiated value", loc=s.loc,
                        hint="build it outside loops and branches, or use a tuple")
                name = getattr(s.fn, "__qualname__", None) or getattr(s.fn, "__name__", None) \
                    or repr(s.fn)
                module = getattr(s.fn, "__module__", None)
                full = f"{module}.{name}" if module and module != "builtins" else name
                if runtime.is_helper(s.fn):
                    raise errors.HigherOrderNotSupported(
                        "differentiating a derivative again goes through "
                        f"{runtime.described(s.fn)}, which has no rule of its own yet",
                        loc=s.loc, hint=_second_order_hint(s.fn, forward=positions
                                                            is not _diff_args))
                if module and module.startswith("revsrc.") and _public(s.fn, name):
                    # one of revsrc's own helpers (tree_leaves...): named as users know it
                    raise errors.NoRule(
                        f"revsrc.{name} is a helper for code around a derivative, and has "
                        "no derivative rule inside a function revsrc transforms", loc=s.loc,
                        hint="work on the container itself (list(params.values()) for a "
                             "dict's leaves, a comprehension over a list)")
                raise errors.NoRule(
                    f"{full} has no derivative rule and no Python source to transform",
                    loc=s.loc,
                    hint=f"register one: @revsrc.defvjp({name}) def rule(g, ans, *args): "
                         "... or mark it with revsrc.nondiff")
    return active


def _second_order_hint(fn, forward):
    """The hint of a second derivative refused at a step of a first one: the other
    mode where this one is reverse (revsrc.hessian is forward over reverse), not
    where it is forward already; a list or tuple built item by item from values."""
    rewrite = "write the list or tuple out item by item ((q[0] * 2.0, q[1] * 2.0)), or " \
        "use an array (q * 2.0)" if runtime.described(fn).endswith("list or dict") \
        else "use a simpler formula in the function (arrays and NumPy functions)"
    if forward:
        return rewrite
    return ("differentiate in the other mode (revsrc.hessian and revsrc.hvp use "
            f"forward over reverse), or {rewrite}")


def _public(fn, name):
    """``fn`` is what ``revsrc.<name>`` gives users (a helper of revsrc's own, exported)."""
    package = sys.modules.get("revsrc")
    return package is not None and getattr(package, name, None) is fn


def _unknown_keyword(s, active):
    """Refuse a differentiated value passed to a primitive by a keyword its rule does
    not name (np.array(object=x) where no position could be found for it:
    passes/keywords.py): no rule would send it a derivative."""
    prim = primitives.lookup(s.fn)
    if prim is None or prim.nondiff or prim.vjp is None:
        return
    for k, v in s.kwargs:
        if k not in prim.params and isinstance(v, str) and v in active:
            name = getattr(s.fn, "__name__", None) or repr(s.fn)
            raise errors.NoRule(f"keyword {k!r} of {name} is not supported by its rule",
                                loc=s.loc, hint="pass the value positionally")
