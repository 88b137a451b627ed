"""Same digits on every path: for every `math` and NumPy function with a scalar rule,
the plain call, `backend="engine"` (on the VM, and compiled by the native tier),
`revsrc.vmap` of both over the points as arrays, and `backend="python"` give
bit-identical values, and every path bit-identical gradients, at 1,000 points each.

NumPy picks SIMD loops per CPU (AVX-512 exp and arcsin, AVX2 tanh differ from libm
in the last bit), so the check also runs in subprocesses with NumPy's dispatched CPU
features turned off through NPY_DISABLE_CPU_FEATURES: none off, the newest target off,
and every dispatched target off (baseline code only). What passes here passes because
each path calls the same implementation, not because of this CPU.
"""
import math
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import revsrc
from revsrc import rules

POINTS = 1000

# Where a function is defined (and its derivative finite); the default is (-3, 3).
_DOMAIN = {
    "asin": (-0.999, 0.999), "acos": (-0.999, 0.999), "atanh": (-0.999, 0.999),
    "arcsin": (-0.999, 0.999), "arccos": (-0.999, 0.999), "arctanh": (-0.999, 0.999),
    "acosh": (1.001, 20.0), "arccosh": (1.001, 20.0),
    "log": (1e-3, 50.0), "log2": (1e-3, 50.0), "log10": (1e-3, 50.0), "sqrt": (1e-3, 50.0),
    "log1p": (-0.999, 50.0), "reciprocal": (0.05, 5.0), "cbrt": (0.05, 9.0),
    "pow": (0.05, 3.0), "power": (0.05, 3.0), "float_power": (0.05, 3.0),
    "divide": (0.1, 3.0), "fmod": (0.1, 3.0), "remainder": (0.1, 3.0),
    "exp": (-30.0, 30.0), "exp2": (-30.0, 30.0), "expm1": (-30.0, 30.0),
    "sinh": (-20.0, 20.0), "cosh": (-20.0, 20.0), "tan": (-1.5, 1.5),
}


# math functions whose rules run on the Python path only: CPython's own gamma
# algorithms (not the C library's, so the engine could not give the same digits), and
# functions of a sequence
PYTHON_PATH_ONLY = {"lgamma", "gamma", "fsum", "prod"}


def scalar_functions():
    """(name, function, number of inputs) for every function in the rule table that
    maps floats to a float: the math module's, and NumPy's float64 ufuncs."""
    found = {}
    for fn in rules.registered():
        # NumPy's own ufuncs (SciPy's are in the table once it is loaded, and may
        # have rules that call its Python functions, which run on the Python path)
        if isinstance(fn, np.ufunc) and getattr(np, fn.__name__, None) is fn:
            if fn.nout == 1 and fn.nin in (1, 2) and fn.signature is None \
                    and "d" * fn.nin + "->d" in fn.types:
                found["np." + fn.__name__] = (fn, fn.nin)
        elif isinstance(fn, types.BuiltinFunctionType) and fn.__module__ == "math" \
                and fn.__name__ not in PYTHON_PATH_ONLY:
            nin = 2 if fn.__name__ in ("atan2", "pow", "hypot", "copysign", "fmod") else 1
            found["math." + fn.__name__] = (fn, nin)
    return [(name, *found[name]) for name in sorted(found)]


def _program(fn, nin):
    """A one-line function calling ``fn``: revsrc transforms its source."""
    if nin == 1:
        def unary(x):
            return fn(x)
        return unary

    def binary(x, y):
        return fn(x, y)
    return binary


def _points(name, nin, seed):
    lo, hi = _DOMAIN.get(name.split(".")[1], (-3.0, 3.0))
    rng = np.random.default_rng(seed)
    pts = rng.uniform(lo, hi, size=(POINTS, nin))
    if "pow" in name:
        # integer and half exponents take special paths in some power functions
        pts[: POINTS // 10, 1] = rng.integers(-3, 4, size=POINTS // 10) / 2.0
    return [tuple(float(v) for v in row) for row in pts]


def _bits(v):
    return float(v).hex()


def native_twins(fns):
    """For each function, ``revsrc.value_and_grad(f, backend="engine")`` whose program
    the native tier has compiled (all of them in one compiler run)."""
    from revsrc.backends.engine import native
    twins = []
    for name, fn, nin in fns:
        d = revsrc.value_and_grad(_program(fn, nin), tuple(range(nin)), backend="engine")
        with np.errstate(all="ignore"):
            d(*_points(name, nin, seed=0)[0])     # builds the program for floats
        twins.append(d)
    assert native.compile_many([d.programs[0][1] for d in twins])
    assert all(d.programs[0][1].tier == "native" for d in twins)
    return twins


def mismatches(limit=5, native=False):
    """Every (function, point, what) where two paths differ in a bit (NaN equals NaN);
    with ``native``, the native tier's compiled programs too."""
    bad = []
    table = scalar_functions()
    twins = native_twins(table) if native else [None] * len(table)
    for (name, fn, nin), compiled in zip(table, twins):
        f = _program(fn, nin)
        argnums = tuple(range(nin))
        engine = revsrc.value_and_grad(f, argnums, backend="engine")
        python = revsrc.value_and_grad(f, argnums, backend="python")
        found = 0
        points = _points(name, nin, seed=len(name))
        columns = [np.array([p[k] for p in points]) for k in range(nin)]
        with np.errstate(all="ignore"):
            # the same points mapped over arrays by revsrc.vmap, on the VM / compiled
            mapped = [revsrc.vmap(d, threads=2)(*columns)
                      for d in (engine, compiled) if d is not None]
        for j, args in enumerate(points):
            with np.errstate(all="ignore"):
                plain = fn(*args)
                ev, eg = engine(*args)
                pv, pg = python(*args)
                nv, ng = compiled(*args) if compiled is not None else (ev, eg)
            rows = [("value engine/plain", ev, plain), ("value python/plain", pv, plain),
                    ("value native/plain", nv, plain)]
            rows += [(f"d/darg{i} engine/python", e, p) for i, (e, p) in enumerate(zip(eg, pg))]
            rows += [(f"d/darg{i} native/python", e, p) for i, (e, p) in enumerate(zip(ng, pg))]
            for k, (mv, mg) in enumerate(mapped):
                rows.append((f"value vmap{k}/plain", mv[j], plain))
                rows += [(f"d/darg{i} vmap{k}/python", m[j], p)
                         for i, (m, p) in enumerate(zip(mg, pg))]
            for what, a, b in rows:
                if _bits(a) != _bits(b):
                    bad.append((name, args, what, _bits(a), _bits(b)))
                    found += 1
            if found >= limit:
                break
    return bad


def test_the_table_covers_math_and_numpy():
    names = [name for name, _, _ in scalar_functions()]
    for want in ("math.sin", "math.atan2", "np.tan", "np.exp", "np.arctan2", "np.cbrt",
                 "np.exp2", "np.power", "np.logaddexp", "np.tanh"):
        assert want in names
    assert len(names) > 60


def test_every_scalar_function_runs_on_the_engine():
    for name, fn, nin in scalar_functions():
        f = _program(fn, nin)
        revsrc.disassemble(revsrc.grad(f, tuple(range(nin)), backend="engine"),
                           *([0.5] * nin))


def test_same_bits_on_this_cpu():
    assert mismatches(native=_native_available()) == []


def _native_available():
    from revsrc.backends.engine import native
    return native.enabled()


def _dispatch_targets():
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as umath
    return [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]


def _settings():
    targets = _dispatch_targets()
    out = {"all features": ""}
    if len(targets) > 1:
        out["without " + targets[-1]] = targets[-1]
        out["without " + " ".join(targets[1:])] = " ".join(targets[1:])
    if targets:
        out["baseline only"] = " ".join(targets)
    return out


@pytest.mark.parametrize("disabled", list(_settings().values()), ids=list(_settings()))
def test_same_bits_under_numpy_dispatch_setting(disabled):
    """The same check in a fresh interpreter whose NumPy runs other SIMD loops."""
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=disabled)
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    code = (f"import sys; sys.path[:0] = [{root!r}, {here!r}]\n"
            "import revsrc, test_same_digits as t\n"
            f"assert revsrc.__file__ == {revsrc.__file__!r}, revsrc.__file__\n"
            "bad = t.mismatches(native=t._native_available())\n"
            "print(len(bad)); [print(b) for b in bad[:20]]\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines()[0] == "0", out.stdout


def test_math_uses_libm_and_numpy_its_own_loop():
    """Where NumPy's loop and libm differ on this CPU, each path still gives its own
    function's digits: np.tan's on np.tan, math.tan's on math.tan."""
    def f_np(x):
        return np.tan(x)

    def f_math(x):
        return math.tan(x)

    xs = np.linspace(0.02, 0.9, 1000).tolist()
    e_np = revsrc.value_and_grad(f_np, backend="engine")
    e_math = revsrc.value_and_grad(f_math, backend="engine")
    for x in xs:
        assert _bits(e_np(x)[0]) == _bits(np.tan(x))
        assert _bits(e_math(x)[0]) == _bits(math.tan(x))
