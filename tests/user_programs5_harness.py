"""Harness for tests/user_programs5a.py and 5b.py: runs one case and classifies it.

A case is a dict made by ``case(...)``: a user program ``f``, its ``args``, the
transformation ``t`` and the reference ``ref``:

- t: "grad", "vag" (value_and_grad), "hessian", "jvp", "jacfwd", "jacrev",
  "jit", "vmap", "vmap_grad", "grad_jax", "memory", "custom";
- ref: "fd" (central differences), "plain" (the plain Python value, exactly),
  or a callable returning the expected result (JAX, SciPy, a closed form).

For t == "custom", ``f`` is a thunk returning ``(got, expected)``: the harness only
compares.  Outcomes: "ok", "wrong", "crashed", "refused" (a coded RevsrcError).
"""
import numbers

import numpy as np

import revsrc


def case(name, f, args=(), t="grad", ref="fd", argnums=0, tol=1e-6, h=None,
         tangents=None, kw=None, needs=()):
    return dict(name=name, f=f, args=tuple(args), t=t, ref=ref, argnums=argnums,
                tol=tol, h=h, tangents=tangents, kw=kw or {}, needs=tuple(needs))


# -- central differences over the leaves of the differentiated arguments -------------

def _leaves(x):
    return revsrc.tree_leaves(x)


def _fd_grad_one(f, args, kw, i, h):
    leaves, tdef = revsrc.tree_flatten(args[i])
    out = []
    for k, leaf in enumerate(leaves):
        arr = np.array(leaf, dtype=float)
        g = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            hh = h if h else 1e-6 * max(1.0, abs(arr[idx]))
            vals = []
            for s in (1, -1):
                a2 = arr.copy()
                a2[idx] += s * hh
                new = list(leaves)
                new[k] = float(a2) if isinstance(leaf, numbers.Number) else a2.astype(np.asarray(leaf).dtype)
                args2 = list(args)
                args2[i] = revsrc.tree_unflatten(tdef, new)
                vals.append(np.asarray(f(*args2, **kw), dtype=float))
            g[idx] = (vals[0] - vals[1]) / (2 * hh)
        out.append(g)
    return out


def fd_grad(f, args, kw, argnums, h=None):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    res = []
    for i in nums:
        res.extend(_fd_grad_one(f, args, kw, i, h))
    return res


def fd_jac(f, args, kw, argnums, h=None):
    """Jacobian of a vector output wrt one array argument: shape out + in."""
    i = argnums
    x = np.array(args[i], dtype=float)
    y0 = np.asarray(f(*args, **kw), dtype=float)
    J = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(x.shape):
        hh = h if h else 1e-6 * max(1.0, abs(x[idx]))
        vals = []
        for s in (1, -1):
            x2 = x.copy()
            x2[idx] += s * hh
            a2 = list(args)
            a2[i] = x2 if x.shape else float(x2)
            vals.append(np.asarray(f(*a2, **kw), dtype=float))
        J[(Ellipsis,) + idx] = (vals[0] - vals[1]) / (2 * hh)
    return [J]


def fd_hess(f, args, kw, argnums, h=None):
    i = argnums
    x = np.array(args[i], dtype=float)
    hh = h or 1e-4
    n = x.size
    H = np.zeros((n, n))
    flat = x.ravel()

    def ev(v):
        a2 = list(args)
        a2[i] = v.reshape(x.shape) if x.shape else float(v[0])
        return float(f(*a2, **kw))
    for p in range(n):
        for q in range(n):
            acc = 0.0
            for sp, sq, w in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                v = flat.copy()
                v[p] += sp * hh
                v[q] += sq * hh
                acc += w * ev(v)
            H[p, q] = acc / (4 * hh * hh)
    return [H.reshape(x.shape + x.shape)]


# -- running a case --------------------------------------------------------------------

def _close(got, exp, tol):
    got = [np.asarray(g) for g in got]
    exp = [np.asarray(e) for e in exp]
    if len(got) != len(exp):
        return False, f"{len(got)} leaves, expected {len(exp)}"
    for g, e in zip(got, exp):
        if np.iscomplexobj(g) and not np.iscomplexobj(e):
            return False, f"complex {g} vs {e}"
        g = np.asarray(g, dtype=complex if np.iscomplexobj(e) else float)
        e = np.asarray(e, dtype=g.dtype)
        if g.size != e.size:
            return False, f"shape {g.shape} vs {e.shape}"
        g = g.reshape(e.shape)
        scale = max(1.0, float(np.max(np.abs(e[np.isfinite(e)]), initial=0.0)))
        if not np.allclose(g, e, rtol=tol, atol=tol * scale, equal_nan=True):
            return False, f"got {g!r} expected {e!r}"
    return True, ""


def _exact(got, exp):
    got = np.asarray(got)
    exp = np.asarray(exp)
    if got.shape != exp.shape:
        return False, f"shape {got.shape} vs {exp.shape}"
    if not np.array_equal(got, exp, equal_nan=True):
        return False, f"got {got!r} expected {exp!r}"
    return True, ""


def expected(c):
    f, args, kw, an, ref, t, h = c["f"], c["args"], c["kw"], c["argnums"], c["ref"], c["t"], c["h"]
    if callable(ref):
        r = ref()
        return r if isinstance(r, list) else _leaves(r)
    if t in ("grad", "grad_jax", "memory", "vmap_grad"):
        return fd_grad(f, args, kw, an, h)
    if t == "vag":
        return [f(*args, **kw)] + fd_grad(f, args, kw, an, h)
    if t in ("jacfwd", "jacrev"):
        return fd_jac(f, args, kw, an, h)
    if t == "hessian":
        return fd_hess(f, args, kw, an, h)
    if t == "jvp":
        x, dx = args[an], c["tangents"]
        hh = h or 1e-6
        a1, a2 = list(args), list(args)
        a1[an] = x + hh * dx
        a2[an] = x - hh * dx
        return [f(*args, **kw), (np.asarray(f(*a1, **kw)) - np.asarray(f(*a2, **kw))) / (2 * hh)]
    raise ValueError(t)


def compute(c):
    f, args, kw, an, t = c["f"], c["args"], c["kw"], c["argnums"], c["t"]
    if t == "grad":
        return _leaves(revsrc.grad(f, argnums=an)(*args, **kw))
    if t == "grad_jax":
        return _leaves(revsrc.grad(f, argnums=an, backend="jax")(*args, **kw))
    if t == "memory":
        return _leaves(revsrc.grad(f, argnums=an, memory=512)(*args, **kw))
    if t == "vag":
        v, g = revsrc.value_and_grad(f, argnums=an)(*args, **kw)
        return [v] + _leaves(g)
    if t == "hessian":
        return [revsrc.hessian(f, argnums=an)(*args, **kw)]
    if t == "jacfwd":
        return [revsrc.jacfwd(f, argnums=an)(*args, **kw)]
    if t == "jacrev":
        return [revsrc.jacrev(f, argnums=an)(*args, **kw)]
    if t == "jvp":
        primals = list(args)
        tangents = [np.zeros_like(np.asarray(a, dtype=float)) if i != an else c["tangents"]
                    for i, a in enumerate(args)]
        tangents = [float(tg) if isinstance(a, float) else tg for a, tg in zip(args, tangents)]
        out, tan = revsrc.jvp(f, tuple(primals), tuple(tangents))
        return [out, tan]
    raise ValueError(t)


def check_computed(c):
    """(outcome, detail) of a case whose transformation ``compute`` runs, against its
    ``expected`` reference; a ``memory`` case must also equal the stored gradient bit
    for bit."""
    exp = expected(c)
    got = compute(c)
    if c["t"] == "memory":
        base = _leaves(revsrc.grad(c["f"], argnums=c["argnums"])(*c["args"], **c["kw"]))
        ok, why = _close(got, base, 0.0)
        if not ok:
            return "wrong", "memory= differs from stored: " + why
    ok, why = _close(got, exp, c["tol"])
    return ("ok", "") if ok else ("wrong", why)


def run_case(c):
    """Returns (outcome, detail)."""
    t = c["t"]
    try:
        if t == "custom":
            got, exp = c["f"]()
            ok, why = _close(_leaves(got) if not np.isscalar(got) else [got],
                             _leaves(exp) if not np.isscalar(exp) else [exp], c["tol"])
            return ("ok", "") if ok else ("wrong", why)
        if t == "jit":
            exp = c["f"](*c["args"])
            got = revsrc.jit(c["f"])(*c["args"])
            ok, why = _exact(got, exp)
            return ("ok", "") if ok else ("wrong", why)
        if t == "vmap":
            f, xs = c["f"], c["args"][0]
            exp = np.array([f(x) for x in xs])
            got = revsrc.vmap(f)(xs)
            ok, why = _exact(got, exp)
            return ("ok", "") if ok else ("wrong", why)
        if t == "vmap_grad":
            f, xs = c["f"], c["args"][0]
            exp = [np.array([fd_grad(f, (float(x),), {}, 0, c["h"])[0] for x in xs]).ravel()]
            got = [np.asarray(revsrc.vmap(revsrc.grad(f))(xs))]
            ok, why = _close(got, exp, c["tol"])
            return ("ok", "") if ok else ("wrong", why)
        return check_computed(c)
    except revsrc.RevsrcError as err:
        return "refused", f"{getattr(err, 'code', '?')}: {str(err).splitlines()[0][:200]}"
    except Exception as err:  # noqa: BLE001 - classifying crashes is the point
        return "crashed", f"{type(err).__name__}: {str(err)[:200]}"
