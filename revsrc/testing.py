"""Gradient checking against finite differences.

`check_grads` is the oracle the test suite uses, and users can call it on their own
functions. `compare_grads` does the same comparison for any gradient function, which
is how the checker itself is tested against deliberately wrong gradients.
"""

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

import revsrc
from .core import pytree

__all__ = ["check_grads", "compare_grads"]

# A step of 1e-4 (relative to the argument's magnitude) with a Richardson-extrapolated
# stencil leaves a truncation error of O(h**4) ~ 1e-16 and a rounding error of
# O(eps / h) ~ 1e-12, so rtol=1e-6 holds with room to spare on smooth functions.
_DEFAULT_REL_STEP = 1e-4


def check_grads(f: Callable[..., Any], args: Sequence[Any],
                argnums: Union[int, Sequence[int]] = 0, *, rtol: float = 1e-6,
                atol: float = 1e-8, eps: Optional[float] = None, directions: int = 3,
                seed: int = 0, backend: Optional[str] = None,
                kwargs: Optional[dict] = None) -> None:
    """Check ``revsrc.grad(f, argnums)`` against central differences.

    For each differentiated argument the analytic gradient must have the argument's
    type (a float for a float argument; an ndarray of the same shape and dtype for an
    array argument; a container of the same structure for a container, each leaf
    checked as an argument of its own) and must agree with a Richardson-extrapolated central difference
    computed in float64: directly for a scalar argument, and along ``directions``
    random unit directions ``v`` (seeded by ``seed``) for an array argument, where
    ``<grad, v>`` is compared with ``(f(x + h v) - f(x - h v)) / 2h``.
    A value passes when ``|analytic - numeric| <= atol + rtol * |numeric|``.

    Parameters
    ----------
    f : callable returning a scalar.
    args : tuple of positional arguments at which to check.
    argnums : int or tuple of ints, as for `revsrc.grad`.
    rtol, atol : tolerances of the comparison.
    eps : finite-difference step; default ``1e-4 * max(1, |x|)`` per argument
        (``max |x_i|`` for arrays).
    directions : number of random directions per array argument.
    seed : seed of the random directions.
    backend : passed to `revsrc.grad`.
    kwargs : keyword arguments passed to ``f`` (never differentiated).

    Raises
    ------
    AssertionError
        naming the argument, the analytic and numeric values and the relative error.

    Examples
    --------
    >>> import math
    >>> from revsrc.testing import check_grads
    >>> def f(x, y):
    ...     return math.sin(x) * y
    >>> check_grads(f, (0.5, 2.0), argnums=(0, 1))
    """
    grad_f = revsrc.grad(f, argnums, backend=backend)
    compare_grads(f, grad_f, args, argnums, rtol=rtol, atol=atol, eps=eps,
                  directions=directions, seed=seed, kwargs=kwargs)


def compare_grads(f, grad_f, args, argnums=0, *, rtol=1e-6, atol=1e-8, eps=None,
                  directions=3, seed=0, kwargs=None):
    """Check an arbitrary gradient function ``grad_f`` of ``f`` against central differences.

    ``grad_f(*args, **kwargs)`` must return what ``revsrc.grad(f, argnums)`` would: one
    gradient for an int ``argnums``, a tuple of gradients for a tuple. The comparison
    and the other parameters are those of `check_grads`.

    Examples
    --------
    >>> import math
    >>> from revsrc.testing import compare_grads
    >>> compare_grads(math.sin, math.cos, (0.3,))
    """
    args = tuple(args)
    kwargs = dict(kwargs or {})
    tuple_argnums = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if tuple_argnums else (argnums,)
    for i in nums:
        if not -len(args) <= i < len(args):
            raise ValueError(f"argnum {i} out of range for {len(args)} arguments")

    grads = grad_f(*args, **kwargs)
    if tuple_argnums:
        if not isinstance(grads, tuple) or len(grads) != len(nums):
            raise AssertionError(
                f"argnums={tuple(nums)}: expected a tuple of {len(nums)} gradients, "
                f"got {_describe(grads)}")
    else:
        grads = (grads,)

    rng = np.random.default_rng(seed)
    for i, g in zip(nums, grads):
        _check_one(f, args, kwargs, i, g, rng, rtol, atol, eps, directions)


def _check_one(f, args, kwargs, i, g, rng, rtol, atol, eps, directions):
    x = args[i]
    if pytree.is_container(x):
        _check_tree(f, args, kwargs, i, g, rng, rtol, atol, eps, directions)
    elif isinstance(x, np.ndarray):
        _check_array(f, args, kwargs, i, g, rng, rtol, atol, eps, directions)
    else:
        _check_scalar(f, args, kwargs, i, g, rtol, atol, eps)


def _check_tree(f, args, kwargs, i, g, rng, rtol, atol, eps, directions):
    """A container argument: the gradient has its structure (container types, keys,
    order), and each leaf is checked as an argument of its own."""
    leaves, td = pytree.tree_flatten(args[i])
    g_leaves, g_td = pytree.tree_flatten(g)
    if g_td != td:
        raise AssertionError(f"argnum {i}: the gradient has structure {g_td!r}, the "
                             f"argument {td!r}")
    for j, (x, gj) in enumerate(zip(leaves, g_leaves)):
        def f_leaf(*a, j=j, **kw):
            put = list(leaves)
            put[j] = a[i]
            return f(*a[:i], pytree.tree_unflatten(td, put), *a[i + 1:], **kw)
        moved = list(args)
        moved[i] = x
        _check_one(f_leaf, tuple(moved), kwargs, i, gj, rng, rtol, atol, eps, directions)


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"ndarray(shape={value.shape}, dtype={value.dtype})"
    return f"{type(value).__name__} {value!r}"


def _call_with(f, args, kwargs, i, value):
    moved = list(args)
    moved[i] = value
    out = f(*moved, **kwargs)
    try:
        return float(out)
    except (TypeError, ValueError):
        raise AssertionError(
            f"f must return a scalar to be checked, got {_describe(out)}") from None


def _richardson(phi, h):
    """Derivative at 0 of the scalar function ``phi``: two central differences, extrapolated."""
    d_h = (phi(h) - phi(-h)) / (2.0 * h)
    d_half = (phi(0.5 * h) - phi(-0.5 * h)) / h
    return (4.0 * d_half - d_h) / 3.0


def _compare(label, analytic, numeric, rtol, atol):
    err = abs(analytic - numeric)
    if not err <= atol + rtol * abs(numeric):  # `not <=` also catches NaN
        rel = err / abs(numeric) if numeric != 0.0 else float("inf")
        raise AssertionError(
            f"{label}: analytic {analytic!r} != numeric {numeric!r} "
            f"(abs err {err:.3g}, rel err {rel:.3g}, rtol {rtol:g}, atol {atol:g})")


def _check_scalar(f, args, kwargs, i, g, rtol, atol, eps):
    x = args[i]
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"argnum {i} is a bool and cannot be differentiated")
    if isinstance(g, np.ndarray) or not isinstance(g, (float, np.floating)):
        raise AssertionError(
            f"argnum {i}: the gradient of a scalar argument {x!r} must be a float, "
            f"got {_describe(g)}")
    x = float(x)
    h = eps if eps is not None else _DEFAULT_REL_STEP * max(1.0, abs(x))
    numeric = _richardson(lambda t: _call_with(f, args, kwargs, i, x + t), h)
    _compare(f"argnum {i} (scalar x={x!r})", float(g), numeric, rtol, atol)


def _check_array(f, args, kwargs, i, g, rng, rtol, atol, eps, directions):
    x = args[i]
    if not isinstance(g, np.ndarray):
        raise AssertionError(
            f"argnum {i}: the gradient of an array argument must be an ndarray, "
            f"got {_describe(g)}")
    if g.shape != x.shape or g.dtype != x.dtype:
        raise AssertionError(
            f"argnum {i}: gradient is ndarray(shape={g.shape}, dtype={g.dtype}) but the "
            f"argument is ndarray(shape={x.shape}, dtype={x.dtype})")
    x64 = np.asarray(x, dtype=np.float64)
    g64 = np.asarray(g, dtype=np.float64)
    if x64.size == 0:
        return
    scale = max(1.0, float(np.max(np.abs(x64))))
    h = eps if eps is not None else _DEFAULT_REL_STEP * scale
    for k in range(directions):
        v = rng.standard_normal(x64.shape)
        v /= np.linalg.norm(v)
        numeric = _richardson(lambda t: _call_with(f, args, kwargs, i, x64 + t * v), h)
        analytic = float(np.sum(g64 * v))
        _compare(f"argnum {i} (array shape {x.shape}, direction {k}): <grad, v>",
                 analytic, numeric, rtol, atol)


def check_jvp(f, args, argnums=None, *, rtol=1e-6, atol=1e-8, eps=None, directions=2,
              seed=0, backend=None):
    """Check ``revsrc.jvp(f, args, tangents)`` against central differences.

    Along ``directions`` random directions (seeded by ``seed``) in the arguments in
    ``argnums`` (default: every float argument, scalar or array) at once, the tangent
    of ``f``'s scalar output must agree with ``(f(x + h v) - f(x - h v)) / 2h``
    (Richardson-extrapolated), within ``atol + rtol * |numeric|``.

    >>> import math
    >>> from revsrc.testing import check_jvp
    >>> def f(x, y):
    ...     return math.sin(x) * y
    >>> check_jvp(f, (0.5, 2.0))
    """
    args = tuple(args)
    if argnums is None:
        argnums = tuple(i for i, a in enumerate(args)
                        if isinstance(a, (float, np.floating)) and not isinstance(a, bool)
                        or isinstance(a, np.ndarray) and a.dtype.kind == "f")
    nums = tuple(argnums) if isinstance(argnums, (tuple, list)) else (argnums,)
    rng = np.random.default_rng(seed)
    scale = max([1.0] + [float(np.max(np.abs(np.asarray(args[i], dtype=np.float64))))
                         for i in nums if np.size(args[i])])
    h = eps if eps is not None else _DEFAULT_REL_STEP * scale
    for k in range(directions):
        dirs = {}
        for i in nums:
            v = rng.standard_normal(np.shape(args[i]))
            dirs[i] = v / max(1.0, float(np.linalg.norm(v)))
        tangents = tuple((np.asarray(dirs[i], dtype=args[i].dtype)
                          if isinstance(args[i], np.ndarray) else float(dirs[i]))
                         if i in dirs else None for i in range(len(args)))
        _, t = revsrc.jvp(f, args, tangents, backend=backend)

        def moved(s):
            out = list(args)
            for i, v in dirs.items():
                out[i] = np.asarray(args[i], dtype=np.float64) + s * v \
                    if isinstance(args[i], np.ndarray) else float(args[i]) + s * float(v)
            return float(f(*out))

        numeric = _richardson(moved, h)
        _compare(f"jvp along direction {k}", float(t), numeric, rtol, atol)
