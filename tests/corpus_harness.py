"""The harness the adversarial user-program corpora share (tests/user_programs2.py on).

Each corpus module makes one ``Corpus``, registers its programs with its decorators,
and exposes ``CASES`` and ``classify``; its test module gets its three tests from
``corpus_tests``. A case is checked the way a user would check it: the plain call's
value, central differences of every float leaf of the differentiated arguments (and
along a random direction for arrays), JAX with x64 where the case has a jax.numpy twin,
and that the arguments were not changed in place. Keeping this in one place means a
stricter check reaches every round's programs at once.
"""
import copy
import dataclasses
import re
import warnings

import numpy as np
import pytest

import revsrc

_JAX = []


def jax_x64():
    """JAX with x64 switched on, or None where JAX is not importable."""
    if not _JAX:
        try:
            import jax
            jax.config.update("jax_enable_x64", True)
            _JAX.append(jax)
        except Exception:
            _JAX.append(None)
    return _JAX[0]


class Case:
    """One program: ``fn`` at ``args`` under the transformation ``opts["mode"]`` names
    (grad by default; hess, hvp, jvp), or a custom ``check`` that raises AssertionError
    on a wrong number. ``doc`` holds the refusal codes the README documents for it."""

    def __init__(self, name, family, fn=None, args=(), argnums=0, doc=(), jfn=None,
                 check=None, needs_jax=False, opts=None, fd=True):
        self.name, self.family, self.fn, self.args = name, family, fn, args
        self.argnums, self.doc, self.jfn, self.check = argnums, set(doc), jfn, check
        self.needs_jax = needs_jax or check is None and opts and opts.get("backend") == "jax"
        self.opts = opts or {}
        self.fd = fd


class Corpus:
    """A corpus's list of cases and the decorators that fill it."""

    def __init__(self):
        self.cases = []

    def case(self, name, family, args=(), **kw):
        def deco(fn):
            self.cases.append(Case(name, family, fn, args, **kw))
            return fn
        return deco

    def custom(self, name, family, **kw):
        def deco(check):
            self.cases.append(Case(name, family, check=check, **kw))
            return check
        return deco

    def variants(self, base, family, fn, args, modes, argnums=0, jfn=None, doc=()):
        """Register fn under several transformations: 'grad', 'hess', 'hvp', 'jvp', 'jax'."""
        for m in modes:
            if m == "grad":
                self.cases.append(Case(base, family, fn, args, argnums=argnums, jfn=jfn, doc=doc))
            elif m == "jax":
                self.cases.append(Case(base + "_jax", family, fn, args, argnums=argnums, doc=doc,
                                       opts={"backend": "jax"}))
            else:
                self.cases.append(Case(base + "_" + m, family, fn, args, argnums=argnums, jfn=jfn,
                                       doc=doc, opts={"mode": m}))


def close(got, want, rtol=1e-6, atol=1e-8, what=""):
    got = np.asarray(got, dtype=complex if np.iscomplexobj(got) or np.iscomplexobj(want) else float)
    want = np.asarray(want, dtype=got.dtype)
    assert got.shape == want.shape, f"{what} shape {got.shape} != {want.shape}"
    assert np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True), f"{what} got {got!r} want {want!r}"


def fd(f, x, h=1e-6):
    """Central differences of a scalar f at a float or an array x."""
    if isinstance(x, float):
        return (f(x + h) - f(x - h)) / (2 * h)
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x, dtype=float)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def fd_jac(f, x, h=1e-6):
    """Central-difference Jacobian: output shape + input shape."""
    x = np.asarray(x, dtype=float)
    out0 = np.asarray(f(x))
    J = np.zeros(out0.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        J[(Ellipsis,) + i] = (np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h)
    return J


def fd_hess(f, x, h=1e-4):
    """Central-difference Hessian of a scalar f at a float or an array x."""
    if isinstance(x, float):
        return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h)
    x = np.asarray(x, dtype=float)
    n = x.size
    H = np.zeros((n, n))
    flat = x.ravel()

    def ev(i, j, di, dj):
        y = flat.copy()
        y[i] += di
        y[j] += dj
        return float(f(y.reshape(x.shape)))
    for i in range(n):
        for j in range(n):
            H[i, j] = (ev(i, j, h, h) - ev(i, j, h, -h) - ev(i, j, -h, h) + ev(i, j, -h, -h)) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


def cargs(args):
    """A deep copy of the arguments, so a program that writes into them harms no check."""
    return copy.deepcopy(args)


def leaves(t, path=()):
    """(path, leaf) pairs of a tuple/list/dict/namedtuple/dataclass of values."""
    if isinstance(t, dict):
        for k in t:
            yield from leaves(t[k], path + (k,))
    elif isinstance(t, (list, tuple)):
        for i, v in enumerate(t):
            yield from leaves(v, path + (i,))
    elif dataclasses.is_dataclass(t) and not isinstance(t, type):
        for f_ in dataclasses.fields(t):
            if not f_.metadata.get("static"):
                yield from leaves(getattr(t, f_.name), path + (f_.name,))
    else:
        yield path, t


def get(t, path):
    for p in path:
        t = getattr(t, p) if isinstance(p, str) and not isinstance(t, dict) else t[p]
    return t


def put(t, path, v):
    """A copy of t with the leaf at path replaced."""
    if not path:
        return v
    p, rest = path[0], path[1:]
    if isinstance(t, dict):
        t = dict(t)
        t[p] = put(t[p], rest, v)
        return t
    if isinstance(t, (list, tuple)):
        items = list(t)
        items[p] = put(items[p], rest, v)
        if hasattr(t, "_fields"):
            return type(t)(*items)
        return type(t)(items)
    return dataclasses.replace(t, **{p: put(getattr(t, p), rest, v)})


def isfloat(v):
    return isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")


def _with_arg(c, k, v):
    a = list(cargs(c.args))
    a[k] = v
    return a


def _tangent(c, k, seed):
    x0 = c.args[k]
    rng = np.random.default_rng(seed)
    return float(rng.normal()) if isinstance(x0, float) else rng.normal(size=np.shape(x0))


def _check_hessian(c, opts):
    k = c.argnums
    H = revsrc.hessian(c.fn, argnums=k, **opts)(*cargs(c.args))
    if c.jfn is not None and jax_x64() is not None:
        ref = np.asarray(jax_x64().hessian(c.jfn, argnums=k)(*cargs(c.args)))
        close(H, ref, rtol=1e-7, atol=1e-9, what="hessian vs jax")
    ref = fd_hess(lambda t: float(c.fn(*_with_arg(c, k, t))), c.args[k])
    close(H, ref, rtol=2e-3, atol=2e-4, what="hessian vs fd")


def _check_hvp(c, opts):
    k = c.argnums
    v = _tangent(c, k, 7)
    tang = tuple(v if i == k else None for i in range(len(c.args)))
    hv = revsrc.hvp(c.fn, cargs(c.args), tang, argnums=k)
    H = fd_hess(lambda t: float(c.fn(*_with_arg(c, k, t))), c.args[k])
    want = H * v if isinstance(c.args[k], float) else np.tensordot(H, v, axes=np.ndim(v))
    close(hv, want, rtol=2e-3, atol=2e-4, what="hvp vs fd")


def _check_jvp(c, opts):
    k = c.argnums
    x0 = c.args[k]
    v = _tangent(c, k, 3)
    tang = tuple(v if i == k else (0.0 if isinstance(a, float) else (np.zeros_like(a) if isfloat(a) else None))
                 for i, a in enumerate(c.args))
    out, t = revsrc.jvp(c.fn, cargs(c.args), tang)

    def g(s):
        return np.asarray(c.fn(*_with_arg(c, k, x0 + s * v)), dtype=float)
    close(out, g(0.0), rtol=1e-12, atol=1e-12, what="jvp primal")
    close(t, (g(1e-6) - g(-1e-6)) / 2e-6, rtol=1e-5, atol=1e-6, what="jvp tangent")


def _check_leaf(c, opts, k, path, x0, gl, rng):
    def fk(t):
        a = list(cargs(c.args))
        a[k] = put(a[k], path, t)
        return float(np.real(c.fn(*a)))
    if isinstance(x0, float):
        if opts.get("backend") != "jax":
            assert isinstance(gl, float), f"arg {k}{path}: gradient type {type(gl)}"
        close(float(gl), fd(fk, x0), rtol=1e-5, atol=1e-6, what=f"d/darg{k}{path}")
        return
    gl = np.asarray(gl)
    assert gl.shape == x0.shape and gl.dtype == x0.dtype, f"arg {k}{path}: {gl.shape} {gl.dtype}"
    if x0.size == 0:
        return
    close(gl, fd(fk, x0), rtol=1e-5, atol=1e-6, what=f"d/darg{k}{path}")
    d = rng.normal(size=x0.shape)
    h = 1e-6
    dd = (fk(x0 + h * d) - fk(x0 - h * d)) / (2 * h)
    close(np.sum(gl * d), dd, rtol=1e-5, atol=1e-6, what=f"direction arg{k}{path}")


def _check_grad(c, opts):
    argnums = c.argnums
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    before = cargs(c.args)
    value, g = revsrc.value_and_grad(c.fn, argnums=argnums, **opts)(*c.args)
    for path, v in leaves(before):
        if isinstance(v, np.ndarray):
            assert np.array_equal(v, get(c.args, path), equal_nan=True), f"argument {path} changed in place"
    close(value, c.fn(*cargs(c.args)), rtol=1e-10, atol=1e-12, what="value")
    gs = g if isinstance(argnums, tuple) else (g,)
    assert len(gs) == len(nums)
    rng = np.random.default_rng(0)
    for k, gk in zip(nums, gs):
        if not c.fd:
            continue
        for path, x0 in leaves(c.args[k]):
            if isfloat(x0):
                _check_leaf(c, opts, k, path, x0, get(gk, path), rng)
    if c.jfn is not None and jax_x64() is not None:
        jg = jax_x64().grad(c.jfn, argnums=argnums)(*cargs(c.args))
        jgs = jg if isinstance(argnums, tuple) else (jg,)
        for gk, jk in zip(gs, jgs):
            for path, _ in leaves(gk):
                close(get(gk, path), np.asarray(get(jk, path)), rtol=1e-8, atol=1e-11, what=f"vs jax {path}")


_MODES = {"grad": _check_grad, "hess": _check_hessian, "hvp": _check_hvp, "jvp": _check_jvp}


def run_case(c):
    if c.check is not None:
        c.check()
        return
    if c.needs_jax:
        jax_x64()
    opts = {k: v for k, v in c.opts.items() if k != "mode"}
    _MODES[c.opts.get("mode", "grad")](c, opts)


def classify(c):
    """('correct'|'WRONG'|'CRASH'|'refused-doc'|'refused-undoc'|'skip', detail)"""
    if c.needs_jax and jax_x64() is None:
        return "skip", "no jax"
    try:
        run_case(c)
    except revsrc.RevsrcError as e:
        m = re.match(r"\[(E\d+)", str(e))
        code = m.group(1) if m else "?"
        if code in c.doc:
            return "refused-doc", str(e).splitlines()[0][:200]
        return "refused-undoc", str(e).splitlines()[0][:200]
    except AssertionError as e:
        return "WRONG", str(e)[:400]
    except Exception as e:
        return "CRASH", f"{type(e).__name__}: {str(e)[:300]}"
    return "correct", ""


def _quiet_classify(c):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return classify(c)


def corpus_tests(cases, known, where, not_run=(), at_least=150):
    """The three tests of a corpus: names unique and enough of them; each case correct
    or refused with a documented code unless it is in ``known`` (open, skipped); and
    each known case still failing, so that the list can only shrink. ``not_run`` names
    known cases too costly to run (say why where it is defined)."""

    def test_case_names_unique():
        names = [c.name for c in cases]
        assert len(names) == len(set(names))
        assert len(names) >= at_least
        assert set(known) <= set(names)

    @pytest.mark.parametrize("case", [pytest.param(c, id=f"{c.family}-{c.name}") for c in cases])
    def test_user_program(case):
        if case.name in known:
            pytest.skip(f"known, open: {known[case.name]}")
        status, detail = _quiet_classify(case)
        if status == "skip":
            pytest.skip("JAX is not importable")
        for optional in ("jax", "scipy"):     # a case whose reference needs an optional package
            if status == "CRASH" and f"No module named '{optional}'" in detail:
                pytest.skip(f"{optional} is not installed")
        assert status in ("correct", "refused-doc"), f"{status}: {detail}"

    def test_the_known_failures_are_still_open():
        fixed = [c.name for c in cases if c.name in known and c.name not in not_run
                 and _quiet_classify(c)[0] in ("correct", "refused-doc")]
        assert not fixed, f"fixed: remove from KNOWN in {where}: {fixed}"

    return test_case_names_unique, test_user_program, test_the_known_failures_are_still_open
