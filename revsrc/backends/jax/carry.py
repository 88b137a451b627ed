"""The carry of a ``backend="jax"`` lax loop: the values the loop assigns, checked to
keep one structure, shape and dtype from one iteration to the next, as lax requires
(revsrc/backends/jax/loops.py runs the loops).

A check that fails raises `Refused`, saying what the loop cannot carry; the loop that
checked decides what to do: a ``for`` over a static range runs as the printed Python
loop instead (unrolled, as a loop of fewer than ``ROLL_AT`` iterations always is), a
loop that must be a lax loop (a traced test, break or trip count) refuses with E602
saying which of those it has (`refuse`). Nothing here quotes JAX's own errors: they
name JAX's internals (pytree key paths), not the user's loop.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ... import errors


class Refused(Exception):
    """What a loop's carry cannot hold, as a phrase (``a list that grows``)."""

    def __init__(self, what):
        super().__init__(what)
        self.what = what


def refuse(why, what):
    """E602 for a loop that is a lax loop because ``why`` (``its test is a traced
    value``) and cannot carry ``what``."""
    return errors.JaxDataDependent(
        f"backend='jax' runs this loop as a lax loop ({why}), and {what}",
        hint="keep every variable the loop assigns one shape and dtype, made of floats "
             "and arrays, or use backend=None for this function")


class Unset:
    """A variable not assigned before a branch or a loop that assigns it (the printed
    program's placeholders start as `UNSET`, and ``_jaxgen.grab`` gives it for a name
    not bound yet). A pytree with no leaves, so a lax loop's first trace (`probe`) can
    pass it through."""
    __slots__ = ()

    def __repr__(self):
        return "<unset>"


UNSET = Unset()

jax.tree_util.register_pytree_node(Unset, lambda u: ((), None), lambda aux, c: UNSET)


class _NoneValue:
    """A variable holding None itself before the loop (not one unassigned there)."""


NONE = _NoneValue()


def given(init):
    """The loop's starting values, None for a variable not assigned before it and
    `NONE` for one that holds None (see `fill`)."""
    return tuple(None if isinstance(v, Unset) else NONE if v is None else v
                 for v in init)


def incomplete(init):
    """Whether some of ``init`` (from `given`) is unassigned or None."""
    return any(v is None or v is NONE for v in init)


def probe(init):
    """``init`` for the trace that finds the shapes of variables not assigned before
    the loop: those are `Unset` there, so a traced ``if`` that assigns one in a single
    arm selects that arm's value."""
    return tuple(UNSET if v is None or v is NONE else v for v in init)


def fill(shapes, init):
    """``init`` with None (a variable not assigned before the loop, or a placeholder)
    replaced by zeros of the value one iteration gives it. A variable that holds None
    itself before the loop (``best = None``) and a value after an iteration is refused:
    after the lax loop it would be None or not depending on the trip count, which a
    traced loop cannot give (zeros in its place would pass ``best is None`` tests the
    program means to fail)."""
    for v, s in zip(init, shapes):
        if v is NONE and s is not None and not isinstance(s, Unset):
            raise Refused("a variable that is None before it gets a value in it")
    out = []
    for v, s in zip(init, shapes):
        if v is NONE:
            v = None     # and it stays None
        if v is None and s is not None and not isinstance(s, Unset):
            v = jax.tree_util.tree_map(lambda a: jnp.zeros(a.shape, a.dtype), s)
        out.append(v)
    return tuple(out)


def matched(init, shapes, broadcast):
    """``init`` cast to the dtypes one iteration gives (a Python int that becomes a
    float); with ``broadcast``, a scalar that becomes an array is broadcast (an adjoint
    that starts as 0.0 and accumulates an array's). Any other change is refused."""
    def one(v, s):
        if s is None:
            return v
        a = jnp.asarray(v)
        if a.shape != s.shape:
            if not (broadcast and a.shape == ()):
                raise Refused(f"a variable it assigns changes shape from {a.shape} to "
                              f"{s.shape} from one iteration to the next")
            a = jnp.broadcast_to(a, s.shape)
        if a.dtype != s.dtype:
            if not (jnp.can_cast(a.dtype, s.dtype) or isinstance(v, (bool, int, float))):
                raise Refused(f"a variable it assigns changes dtype from {a.dtype} to "
                              f"{s.dtype}")
            a = a.astype(s.dtype)
        return a
    out = []
    for v, s in zip(init, shapes):
        if s is not None and _structure(v) != _structure(s):
            raise Refused(_changed(v, s))
        out.append(jax.tree_util.tree_map(one, v, s, is_leaf=lambda x: x is None)
                   if s is not None else v)
    return tuple(out)


def _structure(tree):
    return jax.tree_util.tree_structure(tree, is_leaf=lambda x: x is None)


def _changed(before, after):
    """What changed between a variable's value ``before`` an iteration and ``after``
    it, two trees of different structure, as the user would say it."""
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)) and \
            type(before) is type(after):
        if len(before) != len(after):
            kind = type(before).__name__
            return (f"a {kind} it assigns changes structure: its length goes from "
                    f"{len(before)} to {len(after)} items in one iteration (a {kind} "
                    f"that grows, by append or +)")
        for b, a in zip(before, after):
            if _structure(b) != _structure(a):
                return _changed(b, a)
    if before is None or after is None:
        return "a variable it assigns is None before an iteration and a value after it"
    return "a container it assigns changes its items or keys from one iteration to the next"


def shapes(fn, *args):
    """``jax.eval_shape(fn, *args)``: the shapes one iteration gives its carry and saves."""
    try:
        return jax.eval_shape(fn, *args)
    except TypeError as exc:
        if "is not a valid JAX type" in str(exc) or "as an abstract array" in str(exc):
            raise Refused("a variable it assigns is not an array or number") from None
        raise


def poison(values, flag):
    """Floats in ``values`` as NaN where ``flag`` (a loop stopped at its bound)."""
    def one(v):
        if v is None:
            return v
        a = jnp.asarray(v)
        if a.dtype.kind in "fc":
            return jnp.where(flag, jnp.nan, a)
        return v
    return jax.tree_util.tree_map(one, values)


def truth(t):
    """The truth value of a while loop's test ``t`` as a traced bool."""
    t = jnp.asarray(t)
    if t.size != 1:
        raise Refused(f"its test is an array of shape {t.shape}, whose truth value "
                      "Python does not define")
    return jnp.reshape(t, ()) != 0
