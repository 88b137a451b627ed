"""Harness for tests/user_programs7*.py: round 6's harness (``run_case``, ``pair``,
``jaxify``), plus references that check themselves before they are trusted:

- ``agify(f)``: the same program run by autograd (``np`` -> ``autograd.numpy``), which
  follows Python branches and loops on differentiated values, unlike ``jax.grad``;
- ``fd_checked``: central differences at two step sizes that must agree (else the
  reference itself fails, and the case is reported as a broken reference, never as
  revsrc's wrong number);
- ``fd_dirs``: directional derivatives along a few random directions, for arrays too
  large to difference element by element;
- constructors ``G`` (grad), ``H`` (hessian), ``JV`` (jvp) that build a ``pair`` case
  from a program and the name of its reference ("fd", "jax", "ag" or a callable).
"""
import math
import types

import numpy as np

import revsrc
from user_programs6_harness import (_jmath, case, fd_grad, fd_hess, fd_jac, flat,  # noqa: F401
                                    jax, jaxify, pair, refusal_ok, run_case)

_AG = None


def ag():
    global _AG
    if _AG is None:
        import autograd
        import autograd.numpy as anp
        _AG = (autograd, anp)
    return _AG


def _agmath():
    _, anp = ag()
    return types.SimpleNamespace(
        sin=anp.sin, cos=anp.cos, tan=anp.tan, exp=anp.exp, log=anp.log, sqrt=anp.sqrt,
        tanh=anp.tanh, sinh=anp.sinh, cosh=anp.cosh, atan=anp.arctan, atan2=anp.arctan2,
        asin=anp.arcsin, acos=anp.arccos, hypot=anp.hypot, log1p=anp.log1p,
        expm1=anp.expm1, fabs=anp.abs, pow=anp.power, pi=math.pi, e=math.e,
        inf=math.inf, nan=math.nan, log10=anp.log10, log2=anp.log2,
        floor=math.floor, isfinite=math.isfinite, ceil=math.ceil)


def agify(f):
    """f with np -> autograd.numpy and math -> a shim, its module's functions too."""
    _, anp = ag()
    g0 = f.__globals__
    G = dict(g0)
    G["np"] = anp
    G["math"] = _agmath()
    for k, v in list(G.items()):
        if isinstance(v, types.FunctionType) and v.__globals__ is g0:
            G[k] = types.FunctionType(v.__code__, G, v.__name__, v.__defaults__, v.__closure__)
    return types.FunctionType(f.__code__, G, f.__name__, f.__defaults__, f.__closure__)


class ReferenceDisagrees(Exception):
    """Two step sizes of central differences disagree: the reference is not trusted."""


def _agree(a, b, tol):
    for x, y in zip(a, b):
        x, y = np.asarray(x, float), np.asarray(y, float)
        scale = max(1.0, float(np.max(np.abs(y), initial=0.0)))
        if not np.allclose(x, y, rtol=tol, atol=tol * scale, equal_nan=True):
            raise ReferenceDisagrees(f"{x!r} vs {y!r}")


def fd_checked(f, args, kw=None, argnums=0, h=1e-5, check=1e-4):
    kw = kw or {}
    a = fd_grad(f, args, kw, argnums, h)
    b = fd_grad(f, args, kw, argnums, h / 3.0)
    _agree(a, b, check)
    return b


def _as_trees(leaves, args, argnums):
    """Central differences (a list of leaves in revsrc.tree_flatten's order) put back
    in the differentiated arguments' containers where one holds a dict, so that `flat`
    orders them as it orders the gradient (a dict's keys sorted)."""
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not any(isinstance(args[i], dict) for i in nums):
        return leaves
    trees, at = [], 0
    for i in nums:
        own, tdef = revsrc.tree_flatten(args[i])
        trees.append(revsrc.tree_unflatten(tdef, leaves[at:at + len(own)]))
        at += len(own)
    return tuple(trees) if isinstance(argnums, tuple) else trees[0]


def fd_hess_checked(f, args, argnums=0, h=1e-4, check=1e-3):
    a = fd_hess(f, args, {}, argnums, h)
    b = fd_hess(f, args, {}, argnums, h / 2.0)
    _agree(a, b, check)
    return b


def directions(x, k=3, seed=7):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=np.shape(x)) for _ in range(k)]


def fd_dirs(f, args, argnums=0, k=3, h=1e-5, check=1e-4, kw=None):
    """Directional derivatives of f at args along k random directions of args[argnums]."""
    kw = kw or {}
    x = np.asarray(args[argnums], float)
    out = []
    for v in directions(x, k):
        vals = []
        for hh in (h, h / 3.0):
            a1, a2 = list(args), list(args)
            a1[argnums] = x + hh * v
            a2[argnums] = x - hh * v
            vals.append((float(f(*a1, **kw)) - float(f(*a2, **kw))) / (2 * hh))
        _agree([vals[0]], [vals[1]], check)
        out.append(vals[1])
    return np.array(out)


def G(name, f, args, argnums=0, ref="fd", tol=1e-6, h=1e-5, kw=None, check=1e-4, **opts):
    """A grad case: revsrc.grad(f, argnums, **opts) against ref."""
    kw = kw or {}

    def got():
        return revsrc.grad(f, argnums=argnums, **opts)(*args, **kw)
    return pair(name, got, _ref(f, args, argnums, ref, h, kw, check), tol=tol)


def _ref(f, args, argnums, ref, h, kw, check):
    if callable(ref):
        return ref
    if ref == "fd":
        return lambda: _as_trees(fd_checked(f, args, kw, argnums, h, check), args, argnums)
    if ref == "jax":
        return lambda: jax().grad(jaxify(f), argnums=argnums)(*args, **kw)
    if ref == "ag":
        return lambda: ag()[0].grad(agify(f), argnum=argnums)(*args, **kw)
    raise ValueError(ref)


def GD(name, f, args, argnums=0, tol=1e-6, h=1e-5, check=1e-4, **opts):
    """A grad case on a large array: the gradient's projections on random directions
    against central differences along them."""
    def got():
        g = np.asarray(revsrc.grad(f, argnums=argnums, **opts)(*args))
        return np.array([float(np.sum(g * v)) for v in directions(args[argnums])])
    return pair(name, got, lambda: fd_dirs(f, args, argnums, h=h, check=check), tol=tol)


def H(name, f, args, argnums=0, ref="fd", tol=1e-5, h=1e-4, check=1e-3):
    def got():
        return revsrc.hessian(f, argnums=argnums)(*args)
    if ref == "fd":
        r = (lambda: fd_hess_checked(f, args, argnums, h, check))
    elif ref == "jax":
        r = (lambda: jax().hessian(jaxify(f), argnums=argnums)(*args))
    elif ref == "ag":
        r = (lambda: ag()[0].hessian(agify(f), argnum=argnums)(*args))
    else:
        r = ref
    return pair(name, got, r, tol=tol)


def JV(name, f, primals, tangents, ref="fd", tol=1e-6, h=1e-5):
    """A jvp case: (out, tangent) against the plain value and central differences."""
    def got():
        return revsrc.jvp(f, tuple(primals), tuple(tangents))

    def fd():
        vals = []
        for hh in (h, h / 3.0):
            p1 = [np.asarray(p, float) + hh * np.asarray(t, float) for p, t in zip(primals, tangents)]
            p2 = [np.asarray(p, float) - hh * np.asarray(t, float) for p, t in zip(primals, tangents)]
            p1 = [float(a) if np.ndim(a) == 0 else a for a in p1]
            p2 = [float(a) if np.ndim(a) == 0 else a for a in p2]
            vals.append((np.asarray(f(*p1), float) - np.asarray(f(*p2), float)) / (2 * hh))
        _agree([vals[0]], [vals[1]], 1e-4)
        return (f(*primals), vals[1])

    def jx():
        out, t = jax().jvp(jaxify(f), tuple(primals), tuple(tangents))
        return (out, t)
    r = fd if ref == "fd" else jx if ref == "jax" else ref
    return pair(name, got, r, tol=tol)
