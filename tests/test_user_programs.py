"""Check the user-style programs of tests/user_programs.py against the functions
themselves, central differences and JAX (x64).

Each case is classified: correct, WRONG (a number beyond tolerance), CRASH (an
exception that is not a coded RevsrcError) or refused (a RevsrcError whose message
starts with "[E"). WRONG and CRASH cases are listed in FOUND with what is wrong: they
are skipped by the case test, and test_the_known_failures_are_still_open fails once one
of them passes, so the list can only shrink.
`python tests/test_user_programs.py` prints the classification of every case.
"""
import copy
import math
import sys
import types
import traceback

import numpy as np
import pytest

import revsrc

sys.path.insert(0, __import__("os").path.dirname(__file__))
import user_programs as up  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    jax.config.update("jax_enable_x64", True)
except Exception:  # pragma: no cover
    jax = None


class Wrong(AssertionError):
    pass


JAX_USED = []


# ------------------------------------------------------------------ helpers

def _leaves(tree):
    leaves, treedef = revsrc.tree_flatten(tree)
    return leaves, treedef


def _as_arr(v):
    return np.asarray(v, dtype=np.result_type(np.asarray(v).dtype, np.float64))


def fd_jac(F, x, h=1e-3):
    """d F / d x by central differences with one Richardson step. x float or array;
    result has shape out_shape + in_shape."""
    x = np.asarray(x, dtype=np.float64)
    out0 = np.asarray(F(x.copy() if x.ndim else float(x)), dtype=np.float64)
    J = np.zeros(out0.shape + x.shape)
    flat = x.reshape(-1)
    for k in range(flat.size):
        hk = h * max(1.0, abs(flat[k]))

        def d(step):
            xp = flat.copy(); xp[k] += step
            xm = flat.copy(); xm[k] -= step
            xp = xp.reshape(x.shape); xm = xm.reshape(x.shape)
            if x.ndim == 0:
                xp, xm = float(xp), float(xm)
            return (np.asarray(F(xp), dtype=np.float64) - np.asarray(F(xm), dtype=np.float64)) / (2 * step)

        D1, D2 = d(hk), d(hk / 2)
        J.reshape(out0.shape + (flat.size,))[..., k] = (4 * D2 - D1) / 3
    return J


def fd_dir(F, x, v, h=1e-3):
    def d(step):
        return (np.asarray(F(x + step * v), dtype=np.float64) - np.asarray(F(x - step * v), dtype=np.float64)) / (2 * step)
    return (4 * d(h / 2) - d(h)) / 3


def close(a, b, rtol, atol=None, what=""):
    a = np.asarray(a, dtype=np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(b) else np.float64)
    b = np.asarray(b, dtype=a.dtype)
    if a.shape != b.shape:
        raise Wrong(f"{what}: shape {a.shape} != {b.shape}")
    if atol is None:
        fin = np.abs(b[np.isfinite(b)])
        atol = rtol * max(1.0, float(np.max(fin)) if fin.size else 1.0)
    same_nan = np.isnan(a) == np.isnan(b)
    ok = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True) & same_nan
    if not np.all(ok):
        raise Wrong(f"{what}: got {a.ravel()[:8]} expected {b.ravel()[:8]}")


def call(fn, args, kw):
    return fn(*copy.deepcopy(args), **copy.deepcopy(kw))


def with_arg(args, i, value):
    a = list(args)
    a[i] = value
    return tuple(a)


def argnum_list(argnums):
    return list(argnums) if isinstance(argnums, tuple) else [argnums]


def grads_list(g, argnums):
    return list(g) if isinstance(argnums, tuple) else [g]


def fd_grad_arg(fn, args, kw, i, f32=False, h=1e-3):
    """Central differences of scalar fn w.r.t. args[i] (a float, array or pytree):
    a list of leaf gradients."""
    leaves, treedef = _leaves(args[i])
    out = []
    for j, leaf in enumerate(leaves):
        def F(v, j=j):
            ls = list(leaves)
            if f32:
                ls[j] = np.asarray(v, dtype=np.float64)
            else:
                ls[j] = v
            return call(fn, with_arg(args, i, revsrc.tree_unflatten(treedef, ls)), kw)
        out.append(fd_jac(F, np.asarray(leaf, dtype=np.float64), h=h))
    return out


def check_dir(fn, args, kw, i, grad_leaves, rtol, h=1e-3):
    """A random direction through all leaves of args[i]."""
    leaves, treedef = _leaves(args[i])
    rng = np.random.default_rng(0)
    dirs = [rng.normal(size=np.shape(l)) for l in leaves]

    def F(t):
        ls = [np.asarray(l, dtype=np.float64) + t * d if np.ndim(l) else float(l) + t * float(d)
              for l, d in zip(leaves, dirs)]
        return call(fn, with_arg(args, i, revsrc.tree_unflatten(treedef, ls)), kw)

    want = fd_dir(F, 0.0, 1.0, h=h)
    got = sum(float(np.sum(np.asarray(g, dtype=np.float64) * d)) for g, d in zip(grad_leaves, dirs))
    close(got, want, rtol, atol=rtol * max(1.0, abs(float(want))) * 10, what=f"directional derivative arg {i}")


# ------------------------------------------------------------------ JAX twins

class _JMath:
    ren = {"atan2": "arctan2", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
           "fabs": "abs", "pow": "power", "asinh": "arcsinh", "acosh": "arccosh",
           "atanh": "arctanh"}

    def __getattr__(self, name):
        if name in ("erf", "erfc"):
            return getattr(jsp, name)
        if name == "factorial":
            return math.factorial
        return getattr(jnp, self.ren.get(name, name))


def jax_twin(fn):
    """fn re-bound to jax.numpy (and a jnp-backed math) through its module's globals.
    None when fn is not a plain function."""
    if jax is None or not isinstance(fn, types.FunctionType):
        return None
    g = dict(fn.__globals__)
    g["np"] = jnp
    g["math"] = _JMath()
    g["revsrc"] = types.SimpleNamespace(stop_gradient=jax.lax.stop_gradient)
    for name, v in list(g.items()):
        if isinstance(v, types.FunctionType) and v.__module__ == fn.__module__ and v.__closure__ is None:
            g[name] = types.FunctionType(v.__code__, g, v.__name__, v.__defaults__)
    if fn.__closure__ is not None:
        return None
    tw = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__)
    tw.__kwdefaults__ = fn.__kwdefaults__
    return tw


def jax_reference(c):
    """The same transformation by JAX on the twin, or None when JAX cannot run it."""
    tw = None if c.get("nojax") else jax_twin(c["fn"])
    if tw is None:
        return None
    args, kw, an, t = c["args"], c["kw"], c["argnums"], c["t"]
    try:
        if True:
            # jitted (eager JAX is too slow on this machine); a twin whose Python control
            # flow needs concrete values fails here and is skipped
            if t in ("grad", "grad_jax"):
                r = jax.jit(jax.grad(lambda *a: tw(*a, **kw), argnums=an))(*args)
            elif t in ("hessian", "hessian_jax"):
                r = jax.jit(jax.hessian(lambda *a: tw(*a, **kw), argnums=an))(*args)
            elif t in ("jacfwd", "jacrev"):
                r = jax.jit(jax.jacfwd(lambda *a: tw(*a, **kw), argnums=an))(*args)
            else:
                return None
        return jax.tree_util.tree_map(lambda v: np.asarray(v), r)
    except Exception:
        return None


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# ------------------------------------------------------------------ the checks

def check_grad_case(c):
    fn, args, kw, an = c["fn"], c["args"], c["kw"], c["argnums"]
    rtol = c["rtol"] or (1e-3 if c.get("f32") else 1e-6)
    backend = "jax" if c["t"] == "grad_jax" or c.get("backend") == "jax" else None
    opts = {} if backend is None else {"backend": "jax"}
    val, g = revsrc.value_and_grad(fn, argnums=an, **opts)(*args, **kw)
    g2 = revsrc.grad(fn, argnums=an, **opts)(*args, **kw)
    want_val = call(fn, args, kw)
    close(val, want_val, 1e-12 if not c.get("f32") else 1e-6, what="value")
    gl = grads_list(g, an)
    for a, b in zip(gl, grads_list(g2, an)):
        for x, y in zip(revsrc.tree_leaves(a), revsrc.tree_leaves(b)):
            close(x, y, 1e-13, what="grad vs value_and_grad")
    fds = {}
    for i, gi in zip(argnum_list(an), gl):
        ai = args[i]
        if type(gi) is not type(ai) and not (np.ndim(ai) == 0 and isinstance(gi, (float, np.floating, np.ndarray))) \
                and not (backend and hasattr(gi, "shape")):
            raise Wrong(f"grad container type {type(gi).__name__} != {type(ai).__name__}")
        g_leaves = revsrc.tree_leaves(gi)
        a_leaves = revsrc.tree_leaves(ai)
        if len(g_leaves) != len(a_leaves):
            raise Wrong(f"grad has {len(g_leaves)} leaves, argument {len(a_leaves)}")
        for gl_, al_ in zip(g_leaves, a_leaves):
            if np.shape(gl_) != np.shape(al_):
                raise Wrong(f"grad shape {np.shape(gl_)} != {np.shape(al_)}")
            if isinstance(al_, np.ndarray) and np.asarray(gl_).dtype != al_.dtype:
                raise Wrong(f"grad dtype {np.asarray(gl_).dtype} != {al_.dtype}")
        if c["nofd"]:
            continue
        fd = fd_grad_arg(fn, args, kw, i, f32=c.get("f32"), h=c.get("fd_h", 1e-3))
        fds[i] = fd
        for k, (x, y) in enumerate(zip(g_leaves, fd)):
            close(x, y, rtol, what=f"grad arg {i} leaf {k} vs central differences")
        check_dir(fn, args, kw, i, g_leaves, rtol, h=c.get("fd_h", 1e-3))
    if c["want"] is not None or c.get("nan_grad"):
        if c.get("nan_grad"):
            if not np.any(np.isnan(np.asarray(g))):
                raise Wrong(f"expected a NaN gradient, got {g}")
        else:
            want = c["want"]
            for x, y in zip(gl if isinstance(an, tuple) else [g], want if isinstance(an, tuple) else [want]):
                close(x, y, 1e-12, what="grad vs hand value")
                if np.ndim(y) == 0 and y == 0 and math.copysign(1, y) != math.copysign(1, float(x)):
                    pass   # signed zero: not reported
    ref = None if c.get("f32") else jax_reference(c)
    JAX_USED.append(c["name"]) if ref is not None else None
    if ref is not None:
        refl = ref if isinstance(an, tuple) else (ref,)
        for i, gi, ri in zip(argnum_list(an), gl, refl):
            rl = jax.tree_util.tree_leaves(ri)
            if i in fds:
                try:   # the twin is faithful only where JAX agrees with the differences
                    for y, d in zip(rl, fds[i]):
                        close(y, d, 1e-5, what="twin")
                except Wrong:
                    continue
            elif c["want"] is None:
                continue
            for x, y in zip(revsrc.tree_leaves(gi), rl):
                # use JAX only where it agrees with the derivative's own definition
                close(x, y, 1e-9, what="grad vs JAX")
    return "correct"


def check_hessian(c):
    fn, args, kw = c["fn"], c["args"], c["kw"]
    opts = {"backend": "jax"} if c["t"] == "hessian_jax" else {}
    H = np.asarray(revsrc.hessian(fn, **opts)(*args, **kw), dtype=np.float64)
    x = args[0]
    dg = revsrc.grad(fn)   # first derivative checked separately against differences

    def F(v):
        return np.asarray(fd_jac(lambda u: call(fn, with_arg(args, 0, u), kw), v, h=1e-4))
    want = fd_jac(F, np.asarray(x, dtype=np.float64), h=1e-3)
    close(H, want, 1e-4, what="hessian vs central differences")
    ref = jax_reference(c)
    if ref is not None:
        close(H, ref, 1e-9, what="hessian vs JAX")
    return "correct"


def check_gradgrad(c):
    fn, args, kw = c["fn"], c["args"], c["kw"]
    d2 = revsrc.grad(revsrc.grad(fn))(*args, **kw)
    d1 = lambda u: fd_jac(lambda w: call(fn, with_arg(args, 0, w), kw), u, h=1e-4)
    want = fd_jac(d1, float(args[0]), h=1e-3)
    close(d2, want, 1e-4, what="grad(grad) vs central differences")
    return "correct"


def check_jac(c):
    fn, args, kw, t = c["fn"], c["args"], c["kw"], c["t"]
    x = args[0]
    F = lambda u: call(fn, with_arg(args, 0, u), kw)
    want = fd_jac(F, x)
    opts = {"backend": c["backend"]} if c.get("backend") else {}
    if t == "jacfwd":
        J = revsrc.jacfwd(fn, **opts)(*args, **kw)
    elif t == "jacrev":
        J = revsrc.jacrev(fn, **opts)(*args, **kw)
    elif t in ("jacfwd_jacrev", "jacfwd_jacfwd", "jacrev_jacrev", "jacrev_jacfwd"):
        outer, inner = t.split("_")
        J = getattr(revsrc, outer)(getattr(revsrc, inner)(fn))(*args, **kw)
        dF = lambda u: fd_jac(lambda w: call(fn, with_arg(args, 0, w), kw), u, h=1e-4)
        want = fd_jac(dF, x)
        close(J, want, 1e-4, what="jacfwd(jacrev) vs central differences")
        return "correct"
    close(J, want, 1e-6, what=f"{t} vs central differences")
    ref = jax_reference(c)
    if ref is not None:
        close(J, ref, 1e-10, what=f"{t} vs JAX")
    return "correct"


def check_jvp_vjp(c):
    fn, args, kw, t = c["fn"], c["args"], c["kw"], c["t"]
    x = args[0]
    F = lambda u: call(fn, with_arg(args, 0, u), kw)
    v = np.random.default_rng(3).normal(size=np.shape(x))
    f1 = fn if (len(args) == 1 and not kw and not c.get("via_lambda")) else (lambda u: fn(u, *args[1:], **kw))
    if t == "jvp":
        out, tan = revsrc.jvp(f1, (x,), (v,))
        close(out, F(x), 1e-12, what="jvp primal")
        close(tan, fd_dir(F, x, v), 1e-6, what="jvp tangent vs central differences")
    elif t == "vjp":
        out, vjp_fn = revsrc.vjp(f1, x)
        close(out, F(x), 1e-12, what="vjp primal")
        ct = np.random.default_rng(4).normal(size=np.shape(out))
        (g,) = vjp_fn(ct)
        J = fd_jac(F, x)
        close(g, np.tensordot(ct, J, axes=np.ndim(ct)), 1e-6, what="vjp vs central differences")
    elif t == "linearize":
        out, f_jvp = revsrc.linearize(fn, *args)
        close(out, F(x), 1e-12, what="linearize primal")
        close(f_jvp(v), fd_dir(F, x, v), 1e-6, what="linearize tangent")
    elif t == "hvp":
        hv = revsrc.hvp(fn, (x,), (v,))
        dg = lambda u: fd_jac(F, u, h=1e-4)
        want = fd_dir(dg, x, v)
        close(hv, want, 1e-4, what="hvp vs central differences")
    return "correct"


def check_vmap_grad(c):
    fn, args = c["fn"], c["args"]
    xs = args[0]
    in_axes = (0,) + (None,) * (len(args) - 1)
    got = revsrc.vmap(revsrc.grad(fn), in_axes=in_axes if len(args) > 1 else 0)(*args)
    want = np.array([fd_jac(lambda u: fn(u, *args[1:]), float(x)) for x in xs])
    close(got, want, 1e-6, what="vmap(grad) vs central differences")
    exact = np.array([revsrc.grad(fn)(float(x), *args[1:]) for x in xs])
    close(got, exact, 1e-14, what="vmap(grad) vs grad per element")
    return "correct"


def check_jit(c):
    fn, args = c["fn"], c["args"]
    fast = revsrc.jit(fn)
    got = fast(*args)
    want = fn(*args)
    if got != want:
        raise Wrong(f"jit gives {got!r}, the plain call {want!r}")
    return "correct"


def check_aux(c):
    fn, args, kw = c["fn"], c["args"], c["kw"]
    opts = {"backend": c["backend"]} if c.get("backend") else {}
    (g, aux) = revsrc.grad(fn, has_aux=True, **opts)(*args, **kw)
    (val, aux2), g2 = revsrc.value_and_grad(fn, has_aux=True, **opts)(*args, **kw)
    want_val, want_aux = call(fn, args, kw)
    close(val, want_val, 1e-12, what="has_aux value")
    for a, b in zip(revsrc.tree_leaves(aux), revsrc.tree_leaves(want_aux)):
        close(a, b, 1e-12, what="aux")
    close(g, g2, 1e-13, what="grad vs value_and_grad has_aux")
    fd = fd_jac(lambda u: call(fn, with_arg(args, 0, u), kw)[0], args[0])
    close(g, fd, 1e-6, what="has_aux grad vs central differences")
    return "correct"


def check_complex(c):
    fn, args = c["fn"], c["args"]
    g = revsrc.grad(fn)(*args)
    z = args[0]
    h = 1e-5
    dre = (fn(z + h) - fn(z - h)) / (2 * h)
    dim = (fn(z + 1j * h) - fn(z - 1j * h)) / (2 * h)
    close(g, dre - 1j * dim, 1e-6, what="complex grad (d/dre - i d/dim)")
    return "correct"


def check_seq(c):
    """The same function transformed once and called with new values, shapes, dtypes,
    globals: each call must match its own central differences."""
    for item in c["seq"]:
        if item and callable(item[0]):
            item[0]()
            item = item[1:]
        sub = dict(c, args=tuple(item), t="grad", f32=any(getattr(a, "dtype", None) == np.float32 for a in item),
                   argnums=0)
        check_grad_case(sub)
    return "correct"


def check_gradgrad_xy(c):
    fn, args = c["fn"], c["args"]
    dxy = revsrc.grad(revsrc.grad(fn, argnums=0), argnums=1)(*args)
    dxx_yy = revsrc.grad(revsrc.grad(fn, argnums=1), argnums=(0, 1))(*args)
    d0 = lambda x, y: fd_jac(lambda u: fn(u, y), x, h=1e-4)
    d1 = lambda x, y: fd_jac(lambda u: fn(x, u), y, h=1e-4)
    close(dxy, fd_jac(lambda y: d0(args[0], y), args[1]), 1e-5, what="d/dy d/dx")
    close(dxx_yy[0], fd_jac(lambda x: d1(x, args[1]), args[0]), 1e-5, what="d/dx d/dy")
    close(dxx_yy[1], fd_jac(lambda y: d1(args[0], y), args[1]), 1e-5, what="d/dy d/dy")
    return "correct"


def check_vmap_vag(c):
    fn, xs = c["fn"], c["args"][0]
    vals, grads = revsrc.vmap(revsrc.value_and_grad(fn))(xs)
    close(vals, np.array([fn(float(x)) for x in xs]), 1e-15, what="vmap(value_and_grad) values")
    close(grads, np.array([fd_jac(fn, float(x)) for x in xs]), 1e-6, what="vmap(value_and_grad) grads")
    return "correct"


def check_vjp_tuple(c):
    fn, x = c["fn"], c["args"][0]
    out, vjp_fn = revsrc.vjp(fn, x)
    close(out[0], fn(x)[0], 1e-12, what="vjp tuple primal")
    (g,) = vjp_fn((1.5, -0.5))
    want = 1.5 * fd_jac(lambda u: fn(u)[0], x) - 0.5 * fd_jac(lambda u: fn(u)[1], x)
    close(g, want, 1e-6, what="vjp of a tuple output")
    return "correct"


def check_kwcall(c):
    fn = c["fn"]
    g = revsrc.grad(fn)(x=0.5, y=3.0)
    close(g, fd_jac(lambda u: fn(u, 3.0), 0.5), 1e-6, what="grad with the argument as a keyword")
    g2 = revsrc.grad(fn, argnums=(0, 1))(0.5, y=3.0)
    close(g2[1], fd_jac(lambda u: fn(0.5, u), 3.0), 1e-6, what="grad w.r.t. a keyword-passed argument")
    return "correct"


def check_hessian_argnums1(c):
    fn, (a, x) = c["fn"], c["args"]
    H = revsrc.hessian(fn, argnums=1)(a, x)
    dg = lambda u: fd_jac(lambda w: fn(a, w), u, h=1e-4)
    close(H, fd_jac(dg, x), 1e-4, what="hessian argnums=1")
    return "correct"


def check_aux_argnums(c):
    fn, args = c["fn"], c["args"]
    (val, aux), (ga, gb) = revsrc.value_and_grad(fn, argnums=(0, 1), has_aux=True)(*args)
    close(val, fn(*args)[0], 1e-12, what="value")
    close(aux, fn(*args)[1], 1e-12, what="aux")
    close(ga, fd_jac(lambda u: fn(u, args[1])[0], args[0]), 1e-6, what="grad a")
    close(gb, fd_jac(lambda u: fn(args[0], u)[0], args[1]), 1e-6, what="grad b")
    return "correct"


def run_case(c):
    t = c["t"]
    if t == "custom":
        return c["check"](c)
    if t == "kwcall":
        return check_kwcall(c)
    if t == "hessian_argnums1":
        return check_hessian_argnums1(c)
    if t == "aux_argnums":
        return check_aux_argnums(c)
    if t == "seq":
        return check_seq(c)
    if t == "gradgrad_xy":
        return check_gradgrad_xy(c)
    if t == "vmap_vag":
        return check_vmap_vag(c)
    if t == "vjp_tuple":
        return check_vjp_tuple(c)
    if c.get("complex_arg"):
        return check_complex(c)
    if t in ("grad", "grad_jax"):
        return check_grad_case(c)
    if t in ("hessian", "hessian_jax"):
        return check_hessian(c)
    if t == "gradgrad":
        return check_gradgrad(c)
    if t in ("jacfwd", "jacrev", "jacfwd_jacrev", "jacfwd_jacfwd", "jacrev_jacrev", "jacrev_jacfwd"):
        return check_jac(c)
    if t in ("jvp", "vjp", "linearize", "hvp"):
        return check_jvp_vjp(c)
    if t == "vmap_grad":
        return check_vmap_grad(c)
    if t == "jit":
        return check_jit(c)
    if t == "aux":
        return check_aux(c)
    raise ValueError(t)


def classify(c):
    """(status, detail) with status one of correct, wrong, crash, refused."""
    try:
        return run_case(c), ""
    except Wrong as e:
        return "wrong", str(e)
    except revsrc.RevsrcError as e:
        msg = str(e)
        if msg.startswith("[E"):
            return "refused", msg.splitlines()[0]
        return "crash", f"RevsrcError without a code: {msg[:300]}"
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = f"{tb[-1].filename.split('/')[-1]}:{tb[-1].lineno}" if tb else ""
        return "crash", f"{type(e).__name__}: {e} ({where})"


def _id(c):
    return c["name"]


def _params():
    return [pytest.param(c, id=_id(c)) for c in up.CASES]


def _known(c):
    """The outcome of a case listed in FOUND (wrong, crashed or refused without the README
    saying so), or None when it now passes."""
    status, detail = classify(c)
    if c["expect"] == "correct" and status == "correct":
        return None
    return f"{status}: {detail}"


@pytest.mark.parametrize("c", _params())
def test_user_program(c):
    if jax is None and "jax" in c["name"]:
        pytest.skip("JAX is not installed (the jax extra): backend='jax' and the JAX comparisons")
    if c["xfail"]:
        pytest.skip(f"known, open (issue 22): {c['xfail']}")
    status, detail = classify(c)
    expect = c["expect"]
    if expect.startswith("refused"):
        code = expect.split(":")[1] if ":" in expect else ""
        assert status == "refused", f"expected refusal {code}, got {status}: {detail}"
        assert detail.startswith("[" + code), detail
    else:
        assert status == "correct", f"{status}: {detail}"


def test_the_known_failures_are_still_open():
    """Each case in FOUND still fails: one that passes now must leave the list (and be
    checked by test_user_program again)."""
    fixed = [c["name"] for c in up.CASES if c["xfail"]
             and not (jax is None and "jax" in c["name"]) and _known(c) is None]
    assert not fixed, f"fixed: remove from FOUND in tests/user_programs.py: {fixed}"


def test_enough_programs():
    fns = {id(c["fn"]) for c in up.CASES}
    assert len(fns) >= 150, len(fns)


if __name__ == "__main__":
    counts = {}
    for c in up.CASES:
        s, d = classify(c)
        counts[s] = counts.get(s, 0) + 1
        flag = "" if (s == "correct" and c["expect"] == "correct") or (s == "refused" and c["expect"].startswith("refused")) else "  <--"
        print(f"{s:8s} {c['name']:40s} {d[:400]}{flag}", flush=True)
    print("compared with JAX:", len(JAX_USED))
    print(counts, "cases", len(up.CASES), "functions", len({id(c['fn']) for c in up.CASES}))
