"""One record per primitive: every fact about an operation, in one place.

A primitive is an operation the transformations do not look inside: an operator,
a ``math`` or NumPy function, a runtime helper the generated code calls, or a user's
function with a rule of its own. Its record says, for every pass:

- ``aliases``: the Python callables that are this primitive, each with its *family*
  (``math``, ``numpy``, ``python`` for operators and builtins, ``runtime``, ``user``).
  Twins such as ``math.sin`` and ``np.sin`` are one record: they share every
  derivative fact and differ only in the function that computes the value;
- ``vjp``: the reverse rule, a plain Python function ``rule(g, ans, *inputs)``
  returning one expression per input (None for no gradient). Its body is inlined
  into the generated adjoint, where the name ``xp`` means the namespace of the
  alias being differentiated (``math`` functions for ``math.sin``, NumPy's for
  ``np.sin``), so one rule serves both twins;
- ``jvp``: the forward rule, in the same form with ``g`` read as the tangent of the
  input in that position; ``"elementwise"`` takes it from the vjp (an elementwise
  rule is ``g`` times a partial derivative), and ``linear`` lists the inputs in which
  the primitive is linear (its tangent is the primitive applied to the tangent);
- ``kind``: what it returns for arguments of given kinds (see ``revsrc.analysis``);
- ``complex_ok``: whether the vjp is right for complex inputs, in the convention of
  JAX and autograd (see ``revsrc.rules``); a rule without it must be refused when a
  differentiated input is complex;
- ``engine``: how the scalar engine computes it, per alias (NumPy ufuncs always run
  NumPy's own float64 loop, so they need no entry);
- ``infix``: how generated Python source prints it, when not as a call;
- ``jax``: its ``jax.numpy`` twin for ``backend="jax"`` (backends/jax/printer.py), a dotted
  name such as ``"jnp.linalg.inv"``, per alias; by default a NumPy function's jnp namesake,
  a ``math`` function's of NumPy's name, a runtime helper's twin in backends/jax/twins.py;
- ``fused``: fusion facts, e.g. the compiled kernel that computes the whole vjp in
  one pass for arrays, and ``companion``: a function of the same argument the vjp
  reads, which loops compute in the forward sweep beside the value;
- facts the passes ask about, per alias (`declare`; see `Alias`): purity, what may be
  dropped or recomputed, views, an operator's ufunc, loop kernels, NumPy's names for
  math functions. Passes read them with `fact` and `table`, keeping no lists of their own.

Records are registered with `define`, `alias` and `declare`, from the modules in
``revsrc/rules/`` (whose decorators, in revsrc/rules/register.py, call them).
"""
from __future__ import annotations

import contextlib
import math
import types
from typing import Any, Callable, Optional

import numpy as np

from . import runtime
from .core.rule import Rule
from .core.waiting import Waiting
from .core.record import record
from .runtime import ieee

MATH = "math"
NUMPY = "numpy"
PYTHON = "python"
RUNTIME = "runtime"
USER = "user"


# ----- The namespaces a rule's ``xp`` stands for -----

# The math module's functions whose NumPy names differ declare them (``numpy_name``
# in revsrc/rules/elementwise.py); the namespaces are filled from those declarations
# when a rule is first inlined, after the rules have loaded.
_MATH_AS_IS = ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "expm1", "log", "log1p",
               "log2", "log10", "sqrt", "hypot", "copysign", "floor", "ceil", "trunc",
               "erf", "erfc", "fabs", "ldexp", "pi", "e")
_MATH_FROM_NUMPY = ("sign", "square", "cbrt", "exp2", "reciprocal", "logaddexp", "maximum",
                    "minimum", "conjugate")

xp_math = types.ModuleType("revsrc.xp_math", "The math module under NumPy's names.")
xp_python = types.ModuleType("revsrc.xp_python", "Operators' namespace for numbers.")


def _fill_math_namespaces():
    """``math`` under NumPy's names, so a rule written with ``xp.arcsin`` reads the
    math module's function for a math primal. Functions math lacks fall back to
    NumPy's (np.sign of a float is exact everywhere). For operators on numbers
    (``xp_python``): the same, with ``power`` IEEE ``**``."""
    ns = xp_math
    for name in _MATH_AS_IS:
        setattr(ns, name, getattr(math, name))
    for a in _all_aliases():
        if a.numpy_name is not None and a.family == MATH:
            setattr(ns, a.numpy_name, a.fn)
    for name in _MATH_FROM_NUMPY:
        setattr(ns, name, getattr(np, name))
    # a derivative is a number wherever its function has one: inf, not an exception,
    # where it is infinite (see revsrc/runtime/ieee.py)
    ns.power, ns.log, ns.where = ieee.pow, ieee.log, ieee.where
    xp_python.__dict__.update({k: v for k, v in vars(xp_math).items()
                               if not k.startswith("__")})
    xp_python.power = ieee.pow


def _numpy_numbers_namespace():
    """For NumPy's functions on numbers: NumPy's, but ``where`` picks one of two numbers
    (np.where would make a 0-d array)."""
    ns = types.ModuleType("revsrc.xp_numpy_numbers", "NumPy's namespace for numbers.")
    ns.__dict__.update({k: v for k, v in vars(np).items() if not k.startswith("__")})
    ns.where = ieee.where
    return ns


_NUMPY_NUMBERS = []   # (made when a rule first needs it: vars(np) is big)


def namespace(family, scalar):
    """What ``xp`` means in a rule for an alias of ``family`` whose operands are all
    numbers (``scalar``) or not."""
    if family in (MATH, PYTHON) and not hasattr(xp_math, "sin"):
        _fill_math_namespaces()
    if family == MATH:
        return xp_math
    if family == PYTHON and scalar:
        return xp_python
    if family == NUMPY and scalar:
        if not _NUMPY_NUMBERS:
            _NUMPY_NUMBERS.append(_numpy_numbers_namespace())
        return _NUMPY_NUMBERS[0]
    return np


# ----- Records (a rule function, `Rule`: revsrc/core/rule.py) -----

@record(frozen=True)
class Lower:
    """How the scalar engine computes an alias: ``how`` names a lowering in
    engine.py ("op": one instruction, float and int variants; "math1": a libm
    function with the math module's checks; or a special lowering), ``args`` its
    parameters."""
    how: str
    args: tuple

    def __init__(self, how, args=()):
        object.__setattr__(self, "how", how)
        object.__setattr__(self, "args", args)


def op(float_op, int_op=None):
    """One engine instruction; ``int_op`` when every operand is an int or bool."""
    return Lower("op", (float_op, int_op))


def math1(name):
    """A one-argument C library function, checked as the math module checks it."""
    return Lower("math1", (name,))


def special(how, *args):
    return Lower(how, args)


@record(frozen=True)
class Fused:
    """A fusion fact: on arrays, ``kernel(*names)`` computes the adjoint of input
    ``input`` in one pass (``names`` are the rule's variables: ``g``, ``ans``, the
    inputs): the rule's value, with the same bits where the kernel does the rule's
    operations, else within the rule's accuracy (it is never the user's value).
    ``when(op)`` narrows it to some calls. A record's ``fused`` is one fact or a tuple
    of them (one per input)."""
    kernel: Callable
    names: tuple
    when: Optional[Callable]
    input: int

    def __init__(self, kernel, names, when=None, input=0):   # (a record: core/record.py)
        for name, value in (("kernel", kernel), ("names", names), ("when", when),
                            ("input", input)):
            object.__setattr__(self, name, value)


class Alias:
    """One callable that is the primitive."""
    engine = None        # how the scalar engine computes it (a `Lower`)
    infix = None         # printed as an operator
    companion = None     # a function of the same argument the vjp reads
    kind = None          # a kind rule of its own (else the record's)
    jax = None           # its jax.numpy twin, e.g. "jnp.vstack" (see jaxgen)
    # Facts the passes ask about, per alias (``operator.truediv`` raises on numbers
    # where its twin ``np.divide`` returns inf). Each is a claim a pass relies on;
    # None (or False) claims nothing and the pass leaves the operation as it is. A
    # ufunc or a math function has some by what it is (`_natural`). (Class defaults:
    # an instance holds those it has.)
    pure = None          # on numbers, a function of its arguments' values
    #                      alone, raising alike (cse shares repeated calls)
    raises_on_scalars = None  # False: on numbers it never raises and has no
    #                      effect (cse drops an unread call)
    effect_free = None   # no effect, on arrays too (prune: grad's forward sweep
    #                      drops a call nothing reads)
    foldable = None      # on constant numbers, computed while transforming
    cheap = None         # recomputed in the reverse sweep, not saved
    int_preserving = None   # an int for int operands (int stacks)
    view = None          # "always" or "maybe" a view of its first argument
    array_ufunc = None   # the ufunc an operator is on arrays (prune)
    loop_kernel = None   # (kernel, argument count): _kernels' function giving its
    #                      value bit for bit, in loop bodies
    numpy_name = None    # a math function's NumPy name, where it differs
    shape_reads = None   # arguments read for shape, dtype, rank alone
    batch = None         # how it maps over a batch axis (rules/batching.py)
    flat_on_reals = None  # no derivative where every input is a real number (np.sign)

    def __init__(self, fn, family, engine=None, infix=None, companion=None, kind=None,
                 jax=None):
        self.fn = fn
        self.family = family
        given = {"engine": engine, "infix": infix, "companion": companion, "kind": kind, "jax": jax}
        self.__dict__.update({k: v for k, v in given.items() if v is not None}, **_natural(fn))

    def __repr__(self):
        return f"Alias({self.fn!r}, {self.family!r})"


FACTS = ("pure", "raises_on_scalars", "effect_free", "foldable", "cheap", "int_preserving", "view",
         "array_ufunc", "loop_kernel", "numpy_name", "shape_reads", "batch", "flat_on_reals")
_FACT_NAMES = frozenset(FACTS)


def _natural(fn):
    """The facts a callable has by what it is: a ufunc's scalar loops never raise and
    have no effect; a math function is pure (it may raise); math's, the operators' and
    builtins' functions fold."""
    if isinstance(fn, np.ufunc):
        return {"pure": True, "raises_on_scalars": False, "effect_free": True,
                "foldable": True}
    module = getattr(fn, "__module__", None)
    if module == "math":
        if isinstance(fn, types.BuiltinFunctionType):     # math.sqrt(-1.0) raises
            return {"pure": True, "raises_on_scalars": True, "foldable": True}
        return {"foldable": True}
    if module in ("operator", "_operator", "builtins"):
        return {"foldable": True}
    return {}


class Primitive:
    vjp = None           # a Rule
    jvp = None           # a Rule, "elementwise", or None (see `linear`)
    linear = ()          # inputs it is linear in, together (tangent: f(t1, t2))
    multilinear = ()     # inputs it is linear in, each (f(t1, y) + f(x, t2))
    nondiff = False
    broadcast = False    # elementwise: contributions are summed back to shapes
    complex_ok = False   # the vjp follows the complex convention (see revsrc.rules)
    kind = None          # kind rule; None: unknown ("any")
    fused = None         # a Fused fact, or a tuple of them (one per input)

    def __init__(self, name):
        self.name = name
        self.aliases = []

    def alias(self, fn):
        for a in self.aliases:
            if _same(a.fn, fn):
                return a
        raise KeyError(fn)

    @property
    def params(self):
        return self.vjp.params if self.vjp is not None else []

    def differentiable(self, index):
        return self.vjp is not None and self.vjp.differentiable(index)

    def __repr__(self):
        return f"<primitive {self.name}>"


_BY_FN = {}       # key of a callable -> Primitive
_BY_NAME = {}     # name -> Primitive
_FACTS_ONLY = {}  # key of a callable with no record -> an Alias carrying its facts
_MISSING = object()
_DERIVED = {}     # fact -> {callable: value}, built when first asked (see `fact`)


def _same(a, b):
    """Whether two callables are one: bound methods (np.maximum.accumulate,
    scipy.stats.norm.logpdf) are made anew at each access, and equal."""
    return a is b or (type(a) is type(b) and hasattr(a, "__self__") and a == b)


def _key(fn):
    try:
        hash(fn)
        return fn
    except TypeError:
        return id(fn)


def lookup(fn):
    """The ``Primitive`` that ``fn`` is, or None."""
    try:
        prim = _BY_FN.get(_key(fn))
    except TypeError:  # pragma: no cover - a callable whose __eq__ raises
        return None
    if prim is None and WAITING.loads and _ran(WAITING.for_callable(fn)):
        return lookup(fn)
    if prim is None and _DEFERRED:
        prim = _load_deferred(fn)
    return prim


# Rule families a program on numbers does not need register when first asked about
# (revsrc/core/waiting.py; revsrc/rules/__init__.py adds them): `lookup`, `fact`,
# `define`, `alias`, `declare` and what lists the table run them.
WAITING = Waiting()


def _ran(ran):
    """After registrations that waited (``ran``): the math namespace again, if filled."""
    if ran and hasattr(xp_math, "sin"):
        _fill_math_namespaces()
    return ran


def load_waiting():
    """Run every registration still waiting (before listing the whole table)."""
    _ran(WAITING.everything())


_TOUCHED = []   # [what registration does], while revsrc/rules/index.py records it


# Rules for optional libraries (SciPy) are registered when a lookup first meets one of
# their functions, so that importing revsrc does not import them.
_DEFERRED = []   # (claims(fn) -> bool, load())


def defer(claims, load):
    """Register ``load()`` to run when `lookup` first misses a function for which
    ``claims(fn)`` holds (it must be cheap: it runs on every miss until then)."""
    _DEFERRED.append((claims, load))


def _load_deferred(fn):
    for entry in list(_DEFERRED):
        claims, load = entry
        if claims(fn):
            _DEFERRED.remove(entry)
            load()
            return _BY_FN.get(_key(fn))
    return None


def family_of(fn):
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, np.ufunc) or module.startswith("numpy"):
        return NUMPY
    if module == "math":
        return MATH
    if runtime.is_helper(fn):
        return RUNTIME
    if module in ("builtins", "_operator", "operator"):
        return PYTHON
    return USER


def define(name, *fns, vjp=None, jvp=None, linear=(), multilinear=(), nondiff=False,
           broadcast=False, kind=None, fused=None, engine=None, infix=None, companion=None,
           family=None, complex_ok=None, jax=None):
    """Register (or extend) the record ``name`` with the callables ``fns`` as aliases.

    ``engine``, ``infix`` and ``companion`` apply to every alias given here but
    NumPy's (a NumPy function runs NumPy's own loop on the engine and prints as a
    call: np.divide(1.0, 0.0) is inf where ``1.0 / 0.0`` raises); use `alias` for
    one whose facts differ from its twins'. ``jax`` (a jnp twin's dotted name) applies
    to every alias given here.
    """
    if _TOUCHED:
        _TOUCHED[-1] += [("record", name, ())] + [("callable", fn, ()) for fn in fns]
    prim = _BY_NAME.get(name)
    if prim is None and _ran(WAITING.for_record(name)):
        prim = _BY_NAME.get(name)
    if prim is None:
        prim = Primitive(name)
        _BY_NAME[name] = prim
    if vjp is not None:
        prim.vjp = vjp if isinstance(vjp, Rule) else Rule.of(vjp)
    if jvp is not None:
        prim.jvp = jvp if isinstance(jvp, (Rule, str)) else Rule.of(jvp)
    if linear:
        prim.linear = tuple(linear)
    if multilinear:
        prim.multilinear = tuple(multilinear)
    prim.nondiff = prim.nondiff or nondiff
    if complex_ok is not None:
        prim.complex_ok = complex_ok
    prim.broadcast = prim.broadcast or broadcast
    if kind is not None:
        prim.kind = kind
    if fused is not None:
        prim.fused = fused
    for fn in fns:
        old = lookup(fn)
        if old is not None and old is not prim:
            _forget(old, fn)
        fam = family or family_of(fn)
        own = fam != NUMPY
        alias = Alias(fn, fam, engine=engine if own else None, infix=infix if own else None,
                      companion=companion if own else None, jax=jax)
        _add_alias(prim, alias)
    _DERIVED.clear()
    return prim


def alias(name, fn, *, engine=None, infix=None, companion=None, kind=None, family=None,
          jax=None):
    """Add (or replace) ``fn`` as an alias of the record ``name`` with facts of its own:
    its engine lowering, printing, companion, kind rule and jnp twin."""
    if _TOUCHED:
        _TOUCHED[-1] += [("record", name, ()), ("callable", fn, ())]
    if name not in _BY_NAME:
        _ran(WAITING.for_record(name))
    prim = _BY_NAME[name]
    old = lookup(fn)
    if old is not None and old is not prim:
        _forget(old, fn)
    a = Alias(fn, family or family_of(fn), engine=engine, infix=infix,
              companion=companion, kind=kind, jax=jax)
    _add_alias(prim, a)
    _DERIVED.clear()
    return a


def _add_alias(prim, new):
    """Make ``new`` an alias of ``prim``, keeping the facts declared for its callable
    (an alias given again, with an engine lowering of its own, is still pure)."""
    fn = new.fn
    old = next(filter(lambda a: a.fn is fn, prim.aliases), None) if prim.aliases else None
    kept = prim.aliases if old is None else [a for a in prim.aliases if a.fn is not fn]
    if old is None and _FACTS_ONLY:
        old = _FACTS_ONLY.pop(_key(fn), None)
    if old is not None:
        for name in FACTS:
            if getattr(old, name) is not None:
                setattr(new, name, getattr(old, name))
    prim.aliases = kept + [new]     # (a new list: a snapshot's copy keeps the old one)
    _BY_FN[_key(fn)] = prim


def declare(fn, **facts):
    """Declare facts (`Alias`) of the callable ``fn``: of its alias, or, for one with
    no record (a run-time function a pass emits, a NumPy function known only for its
    views), of an entry that carries its facts alone."""
    if not facts.keys() <= _FACT_NAMES:
        raise TypeError(f"unknown facts {sorted(set(facts) - _FACT_NAMES)}")
    if _TOUCHED:
        _TOUCHED[-1].append(("facts", fn, tuple(facts)))
    if WAITING.loads:
        _ran(any([WAITING.for_fact(fn, name) for name in facts]))
    prim = lookup(fn)
    if prim is not None:
        target = prim.alias(fn)
    else:
        target = _FACTS_ONLY.get(_key(fn)) or Alias(fn, family_of(fn))
        _FACTS_ONLY[_key(fn)] = target
    for name, value in facts.items():
        setattr(target, name, value)
    _DERIVED.clear()
    return fn


def _all_aliases():
    return [a for p in _BY_NAME.values() for a in p.aliases] + list(_FACTS_ONLY.values())


def _facts(name):
    found = _DERIVED.get(name)
    if found is None:
        found = _DERIVED[name] = {}
        for a in _all_aliases():
            try:
                found[a.fn] = getattr(a, name)
            except TypeError:     # an unhashable callable: asked of by `fact` alone
                pass
    return found


def table(name):
    """{callable: value} of every registered callable whose fact ``name`` holds. Built
    when first asked and again after the registry changes: a pass asks once per run
    and tests each statement against it."""
    load_waiting()
    found = _DERIVED.get((name, True))
    if found is None:
        found = _DERIVED[name, True] = {fn: v for fn, v in _facts(name).items() if v}
    return found


def fact(fn, name):
    """The fact ``name`` of the callable ``fn``: its alias's, else what it has by what
    it is (`_natural`)."""
    if WAITING.loads:
        _ran(WAITING.for_fact(fn, name))
    try:      # (its alias or entry at once: no table of every callable to build first)
        prim = _BY_FN.get(fn)
        entry = _FACTS_ONLY.get(fn) if prim is None else prim.alias(fn)
        return _natural(fn).get(name) if entry is None else getattr(entry, name)
    except (TypeError, KeyError):   # unhashable; a callable equal to an alias's
        pass
    try:
        value = (_DERIVED.get(name) or _facts(name)).get(fn, _MISSING)
    except TypeError:
        return None
    return _natural(fn).get(name) if value is _MISSING else value


def jax_twin(fn):
    """The dotted name of ``fn``'s jax.numpy twin given in its record, or None."""
    prim = lookup(fn)
    if prim is None:
        return None
    for a in prim.aliases:
        if _same(a.fn, fn):
            return a.jax
    return None


def kind_rule(fn):
    """The kind rule for a call to ``fn`` (its alias's own, else its record's); kept
    per callable until the registry changes (the kinds pass asks it of every call, in
    every round)."""
    try:
        return _DERIVED["kind rules"][_key(fn)]
    except (KeyError, TypeError):
        pass
    prim = lookup(fn)
    found = None if prim is None else prim.kind
    for a in prim.aliases if prim is not None else ():
        if _same(a.fn, fn) and a.kind is not None:
            found = a.kind
            break
    with contextlib.suppress(TypeError):   # (a callable whose __eq__ raises)
        _DERIVED.setdefault("kind rules", {})[_key(fn)] = found
    return found


def _forget(prim, fn):
    prim.aliases = [a for a in prim.aliases if a.fn is not fn]
    _BY_FN.pop(_key(fn), None)
    if not prim.aliases:
        _BY_NAME.pop(prim.name, None)
    _DERIVED.clear()


def remove(fn):
    """Forget ``fn``'s record (for tests that register temporary rules)."""
    prim = lookup(fn)
    if prim is not None:
        _forget(prim, fn)


def snapshot():
    """The registry's state, for `restore` (tests register temporary rules)."""
    load_waiting()   # (restore could not undo a registration run since)
    return ({name: _copied(p) for name, p in _BY_NAME.items()},
            {key: p.name for key, p in _BY_FN.items()}, list(_DEFERRED))


def _copied(prim):     # (copy.copy's copy: the copy module costs the import a 100th)
    new = object.__new__(Primitive)
    new.__dict__.update(prim.__dict__)
    return new


def restore(state):
    prims, names, deferred = state
    # (loads deferred then are deferred again: one run since is undone with its records)
    _DEFERRED[:] = deferred
    _BY_NAME.clear()
    _BY_NAME.update({name: _copied(p) for name, p in prims.items()})
    _BY_FN.clear()
    _BY_FN.update({key: _BY_NAME[name] for key, name in names.items()})
    _DERIVED.clear()


def records():
    """Every registered primitive."""
    load_waiting()
    return list(_BY_NAME.values())


def registered():
    """Every callable that has a derivative rule (for the coverage test)."""
    load_waiting()
    return [a.fn for p in _BY_NAME.values() if p.vjp is not None for a in p.aliases]


def complex_capable():
    """Every callable whose rule follows the complex convention (``complex_ok``)."""
    load_waiting()
    return [a.fn for p in _BY_NAME.values() if p.vjp is not None and p.complex_ok
            for a in p.aliases]


def registered_nondiff():
    """Every callable registered as having no derivative."""
    load_waiting()
    return [a.fn for p in _BY_NAME.values() if p.nondiff for a in p.aliases]
