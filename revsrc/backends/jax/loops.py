"""Loops of a ``backend="jax"`` program as ``lax`` loops (the calls are printed by
revsrc/backends/jax/loops_print.py; imported only once JAX is known to be installed).

A loop's body is printed as a nested function of the values it assigns (its *carry*),
which returns them and, in the forward sweep, what one iteration saved: the body's own
stacks, fresh lists each iteration. ``lax`` stacks those saves, one row per iteration,
and the loop leaves one `Rows` on each stack it saved on. The adjoint's loop takes the
`Rows` back and gives each of its iterations its row as the stacks its body pops from,
last iteration first. So any body the printer prints (branches selected by jnp.where,
inner loops unrolled or rolled themselves) keeps its saves, without the printer knowing
what they are.

- `while_loop`: a ``while`` whose test is a traced value. With saves, it stops after
  ``max_steps`` iterations (the bound of the save buffers, `LoopState`); stopping there
  with the test still true makes every float it carries NaN, and the adjoint's too, and
  the call raises E604 once the program has run (`Compiled.__call__`).
- `for_loop`: a ``for`` over a range whose trip count is at least `ROLL_AT`, as one
  ``lax.scan`` (the trace and the compile no longer grow with the trip count). If the
  body cannot be traced with a traced loop variable (``range(i)``, a list indexed by
  ``i``), or assigns what a scan cannot carry (a list that grows, a variable None
  before the loop: `carry`), it returns None and the printed Python loop unrolls.
- `for_break`: a ``for`` over a range whose body ends with a ``break`` on a traced
  flag (the Newton pattern), as the while loop above with the loop variable counted in
  the carry: the range bounds it, so its buffers have one row per iteration left and
  it never stops short.
- `reverse_loop`: the adjoint's loop over those rows: ``lax.scan`` backwards for a
  static trip count, ``lax.fori_loop`` for a traced one.
"""
from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import carry, int_growth, segments
from .carry import UNSET, Unset  # noqa: F401  (the printed programs' placeholders)

Tracer = jax.core.Tracer

# a static loop with at least this many iterations is rolled into lax.scan (measured:
# docs/architecture.md, "backend='jax' loops")
ROLL_AT = 32

# the default bound of a data-dependent while loop that saves values for its adjoint
MAX_STEPS = 1000


class LoopState:
    """What loops see while one program is traced: the bound of a while loop's saves,
    and each bounded loop's (site, stopped-at-the-bound flag); the memory bound of a
    rolled ``for`` loop's saves (None: none), and how deep in lax loops the trace is."""
    __slots__ = ("max_steps", "overflows", "peeled", "memory", "depth")

    def __init__(self, max_steps, memory=None):
        self.max_steps = MAX_STEPS if max_steps is None else int(max_steps)
        self.overflows = []
        self.peeled = {}    # id(step) -> (step, iterations run in Python so far)
        self.memory = memory
        self.depth = 0


def _nesting(fn):
    """``fn`` (a loop) counted in `LoopState.depth` while it traces its body."""
    def run(*args):
        state = _state()
        state.depth += 1
        try:
            return fn(*args)
        finally:
            state.depth -= 1
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


_local = threading.local()


# the most operations one traced program may hold before XLA compiles it: a program
# whose Python loops unroll (a static trip count under ROLL_AT, a body that uses its
# loop variable statically) grows with every iteration, and XLA's compile time and
# memory grow faster than its size (measured: tests/test_round6_fixes.py)
MAX_TRACE = 10000


def trace_size(values):
    """How many operations the trace that ``values`` (a pytree of what a traced
    function returns) belong to has recorded, or None where this JAX does not tell.
    Read from the trace's frame: JAX gives no public count before compiling."""
    for leaf in jax.tree_util.tree_leaves(values):
        if not isinstance(leaf, Tracer):
            continue
        frame = getattr(getattr(leaf, "_trace", None), "frame", None)
        for name in ("tracing_eqns", "eqns"):
            eqns = getattr(frame, name, None)
            if isinstance(eqns, list):
                return len(eqns)
        return None
    return None


def states():
    s = getattr(_local, "states", None)
    if s is None:
        s = _local.states = []
    return s


def _state():
    s = states()
    return s[-1] if s else LoopState(None)


class Rows:
    """One lax loop's saves on one stack: what each iteration pushed, stacked (one row
    per iteration, a list in push order), the loop's ``site``, whether it stopped at
    its bound with its test still true, and how many iterations ran in Python before
    it (their saves are below it on the stack)."""
    __slots__ = ("rows", "overflow", "site", "peeled", "consts")

    def __init__(self, rows, overflow, site, peeled=0):
        self.rows = rows
        self.overflow = overflow
        self.site = site
        self.peeled = peeled
        self.consts = {}    # push position -> a Python int every iteration pushed there

    def __repr__(self):
        return f"<saves of loop {self.site}>"


def _unflatten_rows(aux, c):
    r = Rows(c[0], c[1], *aux[:2])
    r.consts = dict(aux[2])
    return r


jax.tree_util.register_pytree_node(
    Rows, lambda r: ((r.rows, r.overflow), (r.site, r.peeled, tuple(r.consts.items()))),
    _unflatten_rows)


def _noting(one):
    """``one`` (an iteration: values -> (values, saves)) that notes, per stack, the
    Python ints its trace pushed (a static branch's flags): a lax loop traces its body
    once, so every iteration pushed the same, and the adjoint's loop gets them back as
    ints (stacked, they would be traced and send it down a traced branch's path)."""
    noted = []

    def noting(*args):
        vals, rec = one(*args)
        noted[:] = [{j: v for j, v in enumerate(r) if type(v) in (bool, int)}
                    for r in rec]
        return vals, rec
    return noting, noted


def _consts(stacks, noted):
    """Give the `Rows` just pushed on ``stacks`` the ints ``noted``."""
    for stack, c in zip(stacks, noted):
        stack[-1].consts = dict(c)


class Segmented(Rows):
    """The saves of an outermost rolled loop run in segments under a memory bound
    (`segments`): the last segment's rows, and the ``plan`` that recomputes the
    others; ``index``: which of the loop's stacks these are on."""
    __slots__ = ("plan", "index")

    def __init__(self, rows, overflow, site, plan, index):
        super().__init__(rows, overflow, site)
        self.plan = plan
        self.index = index


# what tracing a body with a traced loop variable raises where the body needs it as a
# Python int (a slice bound, a range, a shape, a list index, a dict key, a branch):
# JAX's concretization errors, and TypeErrors and IndexErrors that name the tracer
_CONCRETIZATION = (jax.errors.ConcretizationTypeError,
                   jax.errors.TracerIntegerConversionError,
                   jax.errors.TracerBoolConversionError,
                   jax.errors.TracerArrayConversionError,
                   jax.errors.NonConcreteBooleanIndexError)


def _static_use(exc):
    """Whether ``exc`` (a TypeError or IndexError from tracing a loop body) says the
    body needs a concrete value where lax gives a traced one; anything else is an
    error of its own, not a reason to unroll."""
    return isinstance(exc, _CONCRETIZATION) or "Trace" in str(exc)


# ----- forward loops -----

# why a for loop whose break is on a traced value is a lax loop (E602 messages)
_BROKEN = "a break in it is on a traced value"


def _carried(trace, init, broadcast=False):
    """``init`` (`carry.given`'s) with unassigned variables filled and each cast to
    what one iteration, ``trace(values) -> (values, saves)``, gives them; and the
    shapes of what it gives. Raises `carry.Refused` for what no lax loop can carry."""
    if carry.incomplete(init):
        init = carry.fill(carry.shapes(trace, carry.probe(init))[0], init)
    out = carry.shapes(trace, init)
    return carry.matched(init, out[0], broadcast), out


@_nesting
def while_loop(step, init, test_at, stop_at, stacks, site):
    """Run ``step(*values)`` (one iteration: the body, then the test's statements)
    from the values ``init`` while ``values[test_at]`` holds (and ``values[stop_at]``, a
    break flag, does not); what iterations save goes on ``stacks`` as `Rows`. Returns
    the values, or None if the test is not traced (the printed Python loop runs)."""
    def more(vals):
        t = jnp.asarray(True) if test_at is None else carry.truth(vals[test_at])
        return t if stop_at is None else jnp.logical_and(t, jnp.logical_not(
            jnp.asarray(vals[stop_at])))

    state = _state()
    init = carry.given(init)
    test = True if test_at is None else init[test_at]
    stop = False if stop_at is None or init[stop_at] is None else init[stop_at]
    if not isinstance(test, Tracer) and not isinstance(stop, Tracer):
        # concrete: the printed Python loop runs this iteration (or ends), counted so
        # that the adjoint knows how many iterations came before a lax loop
        held = state.peeled.get(id(step))
        count = held[1] if held is not None and held[0] is step else 0
        if test and not stop:
            state.peeled[id(step)] = (step, count + 1)
        else:
            state.peeled.pop(id(step), None)
        return None
    held = state.peeled.pop(id(step), None)
    peeled = held[1] if held is not None and held[0] is step else 0
    try:
        return _while_lax(step, init, more, stacks, site, peeled)
    except carry.Refused as r:
        if isinstance(r, _SavesInBody) and state.depth > 1:
            raise          # to the loop whose body this is (a rolled for unrolls)
        why = "its test is a traced value" if isinstance(test, Tracer) else \
            "a break in it is on a traced value"
        raise carry.refuse(why, r.what) from None


class _SavesInBody(carry.Refused):
    """A while loop that saves values for the derivative, met in another lax loop's
    body: passed up to that loop (a rolled ``for`` unrolls then)."""


def _while_lax(step, init, more, stacks, site, peeled):
    """`while_loop` once its test is traced: one lax.while_loop from ``init``."""
    state = _state()
    one, noted = _noting(lambda vals: step(*vals))
    init, (_, saves) = _carried(one, init)
    if not stacks:
        return lax.while_loop(more, lambda vals: one(vals)[0], init)
    if state.depth > 1:
        # in the body of another lax loop (a rolled for, a while): the flag of stopping
        # at max_steps is an output of the program, which that loop's body cannot hand
        # out; refused before anything is saved (a rolled for unrolls instead)
        raise _SavesInBody("a while loop in its body saves values for the derivative, "
                           "which a lax loop's body cannot bound by max_steps")
    bound = state.max_steps
    bufs = jax.tree_util.tree_map(lambda s: jnp.zeros((bound,) + s.shape, s.dtype), saves)

    def go(c):
        vals, i, _ = c
        return jnp.logical_and(more(vals), i < bound)

    def body(c):
        vals, i, bufs = c
        vals, rec = one(vals)
        bufs = jax.tree_util.tree_map(lambda b, r: b.at[i].set(r), bufs, rec)
        return vals, i + 1, bufs

    vals, _, bufs = lax.while_loop(go, body, (init, jnp.asarray(0), bufs))
    over = more(vals)
    state.overflows.append((site, over))
    for stack, rows in zip(stacks, bufs):
        stack.append(Rows(rows, over, site, peeled))
    _consts(stacks, noted)
    return carry.poison(vals, over)


@_nesting
def for_break(step, i, start, stop, stride, init, stop_at, stacks, site):
    """The rest of a ``for`` over ``range(start, stop, stride)`` whose body ends with a
    ``break`` on the flag ``values[stop_at]``, from the iteration with loop variable
    ``i``: once that flag is traced, one lax.while_loop runs ``step(i, *values)`` while
    the flag is down and the range lasts. The range bounds the loop, so the save
    buffers have one row per iteration left and no ``max_steps`` is needed. Returns the
    values and the loop variable last, or None while the flag is concrete (the printed
    Python loop runs this iteration)."""
    init = carry.given(init)
    if not isinstance(init[stop_at], Tracer):
        return None
    peeled = len(range(start, i, stride))   # iterations that ran in Python
    n = len(range(i, stop, stride))
    # the body traced once with a static loop variable: its own errors show at its line
    one, noted = _noting(lambda k, vals: step(i + stride * k, *vals))
    try:
        init, (_, saves) = _carried(lambda vals: one(0, vals), init)
    except carry.Refused as r:
        raise carry.refuse(_BROKEN, r.what) from None

    def more(vals, j):
        return jnp.logical_and(j < n, jnp.logical_not(jnp.asarray(vals[stop_at])))

    bufs = jax.tree_util.tree_map(lambda s: jnp.zeros((n,) + s.shape, s.dtype), saves)

    def go(c):
        return more(c[0], c[1])

    def body(c):
        vals, j, bufs = c
        vals, rec = one(j, vals)
        bufs = jax.tree_util.tree_map(lambda b, r: b.at[j].set(r), bufs, rec)
        return vals, j + 1, bufs

    try:
        vals, ran, bufs = lax.while_loop(go, body, (init, jnp.asarray(0), bufs))
    except (TypeError, IndexError) as exc:
        if not _static_use(exc):
            raise
        raise carry.refuse(_BROKEN, "its body needs the loop variable as a static int "
                           "(a slice bound, a range), which a lax loop cannot give") from None
    never = jnp.asarray(False)   # the range ends the loop: it never stops at a bound
    for stack, rows in zip(stacks, bufs):
        stack.append(Rows(rows, never, site, peeled))
    _consts(stacks, noted)
    # Python's loop variable: the last iteration's (the one before, if none ran)
    return tuple(vals) + (i + stride * (ran - 1),)


def stopped(flag):
    """A Python loop's ``if flag: break`` where the flag may be traced (then the next
    `while_loop` call takes over)."""
    return not isinstance(flag, Tracer) and bool(flag)


def rolls(start, stop, stride):
    """Whether a ``for`` over ``range(start, stop, stride)`` is rolled into lax.scan:
    static bounds and at least `ROLL_AT` iterations."""
    if not all(type(b) is int for b in (start, stop, stride)) or stride == 0:
        return False
    return len(range(start, stop, stride)) >= ROLL_AT


@_nesting
def for_loop(step, start, stop, stride, init, stacks, site):
    """``step(i, *values)`` for i in range(start, stop, stride) as one lax.scan, what
    iterations save stacked into `Rows` on ``stacks``; the values, and the loop
    variable last; or None for a short loop, a body that needs a static loop
    variable, or values lax cannot carry (a list that grows): the printed Python loop
    unrolls it then."""
    if not rolls(start, stop, stride):
        return None
    n = len(range(start, stop, stride))
    init = carry.given(init)
    one, noted = _noting(lambda i, vals: step(i, *vals))
    try:
        i0 = jnp.asarray(start)
        try:
            init, (_, saves) = _carried(lambda vals: one(i0, vals), init)
        except carry.Refused:
            # what lax.scan cannot carry (a list that grows, a variable None before
            # it): the trip count is static, so the Python loop unrolls, as it does
            # for a short loop, and runs as the program does on the default backend
            return None
        if int_growth.carries_growing_ints(one, i0, init):
            return None     # an int that may outgrow 64 bits: Python's loop, exact ints
        unit = _unit(n, init, saves) if stacks else None
        if unit is not None:
            vals, rows, plan = segments.forward(one, init, start, stride, n, unit)
            for k, (stack, r) in enumerate(zip(stacks, rows)):
                stack.append(Segmented(r, jnp.asarray(False), site, plan, k))
            _consts(stacks, noted)
            return vals + (start + (n - 1) * stride,)
        vals, rows = lax.scan(lambda vals, i: one(i, vals), init,
                              start + stride * jnp.arange(n))
    except (TypeError, IndexError) as exc:
        if not _static_use(exc):
            raise
        return None     # a static use of the loop variable: the Python loop unrolls
    for stack, r in zip(stacks, rows):
        stack.append(Rows(r, jnp.asarray(False), site))
    _consts(stacks, noted)
    return vals + (start + (n - 1) * stride,)


def _unit(n, init, saves):
    """Iterations per segment of an outermost rolled loop of ``n`` iterations whose
    saves would not fit in half the memory bound (`segments`); None if they fit."""
    state = _state()
    if state.memory is None or state.depth != 1:
        return None
    return segments.unit(state.memory, n, _nbytes(saves), _nbytes(init))


def _nbytes(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return sum(int(np.prod(getattr(a, "shape", ()))) * jnp.result_type(a).itemsize
               for a in leaves)


# ----- the adjoint's loops -----

def _rolled(stacks, site, bounds):
    """Whether the adjoint's loop for ``site`` runs as a lax loop: its forward loop was
    one (its `Rows` are on top of ``stacks``), its trip count is traced, or it saves
    nothing and is long."""
    if any(isinstance(b, Tracer) for b in bounds):
        return True
    if stacks:
        return all(s and isinstance(s[-1], Rows) and s[-1].site == site for s in stacks)
    return rolls(*bounds)


@_nesting
def reverse_loop(step, start, stop, stride, stacks, init, site):
    """The adjoint's loop ``for k in range(start, stop, stride)``: ``step(k, *rows,
    *values)`` with each stack's row of the forward iteration it undoes (the last
    first); returns the values, or None where its forward loop ran in Python (the
    printed Python loop runs)."""
    if not _rolled(stacks, site, (start, stop, stride)):
        return None
    if not stacks:
        try:
            return _reverse_loop(step, start, stop, stride, stacks, init, site)
        except (TypeError, IndexError) as exc:
            if not _static_use(exc) or any(isinstance(b, Tracer)
                                           for b in (start, stop, stride)):
                raise
            return None     # a static use of the loop variable: the Python loop unrolls
    return _reverse_loop(step, start, stop, stride, stacks, init, site)


@_nesting
def reverse_while(step, start, stop, stride, stacks, init, site):
    """The adjoint of a loop with a traced trip count (a while loop, a for loop with a
    traced break): ``for k in range(stop)``, or ``for k in range(start, -1, -1)`` where
    its body needs the loop variable back. What `reverse_loop` does for the iterations
    its lax loop ran, then the bound of the rest: the iterations that ran in Python
    before it (the printed Python loop undoes those); or None."""
    bound = stop if stride == 1 else start
    if not _rolled(stacks, site, (0, bound, 1)) or not isinstance(bound, Tracer):
        return None
    peeled = stacks[0][-1].peeled if stacks else 0
    if stride == 1:
        vals = _reverse_loop(step, 0, stop - peeled, 1, stacks, init, site)
        return tuple(vals) + (peeled,)
    vals = _reverse_loop(step, start, peeled - 1, -1, stacks, init, site)
    return tuple(vals) + (peeled - 1,)


def _adjoint_step(step, site, consts=()):
    """One iteration of the adjoint's loop: ``step`` on iteration ``k``'s rows (with
    the Python ints its forward pushed, ``consts``, given back as ints)."""
    def one(k, row, vals):
        mine = [list(r) for r in row]
        for m, c in zip(mine, consts):
            for j, v in c.items():
                m[j] = v
        out = step(k, *mine, *vals)
        if any(mine):   # pragma: no cover - the adjoint pops what its loop pushed
            raise AssertionError(f"loop {site}'s adjoint left saves unread")
        return tuple(out)
    return one


def _reverse_loop(step, start, stop, stride, stacks, init, site):
    rows = []
    for s in stacks:
        top = s.pop() if s else None
        if not (isinstance(top, Rows) and top.site == site):   # pragma: no cover
            raise AssertionError(f"the saves of loop {site} are not on top of its stack")
        rows.append(top)

    static = all(type(b) is int for b in (start, stop, stride))
    if static:
        n = len(range(start, stop, stride))
    else:
        span = jnp.asarray(stop) - start
        n = jnp.maximum(0, (span + stride - jnp.sign(stride)) // stride)

    one = _adjoint_step(step, site, [rw.consts for rw in rows])

    def row(r):
        return [jax.tree_util.tree_map(lambda b: b[r], rw.rows) for rw in rows]

    init = carry.given(init)
    k0, r0 = jnp.asarray(start), jnp.asarray(0)
    try:
        init, _ = _carried(lambda vals: (one(k0, row(r0), vals), ()), init, True)
    except carry.Refused as r:
        if static and not rows:
            return None     # it saves nothing and its trip count is static: it unrolls
        raise carry.refuse("its trip count is a traced value" if not static else
                           "it undoes a loop that ran as one, reading its saves row by "
                           "row", r.what) from None
    if rows and isinstance(rows[0], Segmented):   # its rows recomputed, segment by segment
        return segments.reverse(one, start, stride, n, [rw.rows for rw in rows],
                                [rw.index for rw in rows], rows[0].plan, init)
    if static:
        # the adjoint's j-th iteration undoes forward iteration n-1-j: a scan backwards
        # over the rows, row r with k = start + stride * (n-1-r)
        ks = start + stride * (n - 1 - jnp.arange(n))
        vals, _ = lax.scan(lambda vals, x: (one(x[0], x[1], vals), None), init,
                           (ks, [rw.rows for rw in rows]), reverse=True)
    else:
        vals = lax.fori_loop(0, n, lambda j, vals: one(start + stride * j, row(n - 1 - j),
                                                       vals), init)
    over = None
    for rw in rows:
        over = rw.overflow if over is None else jnp.logical_or(over, rw.overflow)
    return vals if over is None else carry.poison(vals, over)
