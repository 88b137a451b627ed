"""Harness for tests/user_programs6*.py: round 5's cases and checks, plus

- t == "pair": ``f`` is a thunk giving revsrc's result and ``ref`` a thunk giving the
  expected one, computed independently (JAX with x64, central differences or a closed
  form); ``tol`` 0.0 asks for the same bits;
- every refusal is checked: a ``revsrc.RevsrcError`` with a code ``E`` + 3 digits and
  a message naming none of revsrc's internals (``_t3``, ``@2``, ``revsrc.runtime``...);
  one that is not is "crashed";
- ``jaxify(f)``: the same program run by JAX (``np`` -> ``jax.numpy``, ``math`` -> a
  shim), its helpers in the module rebound too, for references by ``jax.grad`` etc.
"""
import dataclasses
import importlib
import math
import re
import types
import warnings

import numpy as np

import pytest

import revsrc
from user_programs5_harness import _close, _exact, _leaves, case, check_computed, compute, expected  # noqa: F401
from user_programs5_harness import fd_grad, fd_hess, fd_jac  # noqa: F401

_JAX = None


def jax():
    global _JAX
    if _JAX is None:
        import jax as _j
        _j.config.update("jax_enable_x64", True)
        _JAX = _j
    return _JAX


def _jmath():
    jnp = jax().numpy
    import jax.scipy.special as jss
    return types.SimpleNamespace(
        sin=jnp.sin, cos=jnp.cos, tan=jnp.tan, exp=jnp.exp, log=jnp.log, sqrt=jnp.sqrt,
        tanh=jnp.tanh, sinh=jnp.sinh, cosh=jnp.cosh, atan=jnp.arctan, atan2=jnp.arctan2,
        asin=jnp.arcsin, acos=jnp.arccos, hypot=jnp.hypot, log1p=jnp.log1p,
        expm1=jnp.expm1, erf=jss.erf, fabs=jnp.abs, pow=jnp.power, pi=math.pi, e=math.e,
        inf=math.inf, nan=math.nan, log10=jnp.log10, log2=jnp.log2, cbrt=jnp.cbrt,
        floor=math.floor, isfinite=math.isfinite)


def jaxify(f):
    """f with np -> jax.numpy and math -> a jax shim, its module's functions too."""
    jnp = jax().numpy
    g0 = f.__globals__
    G = dict(g0)
    G["np"] = jnp
    G["math"] = _jmath()
    for k, v in list(G.items()):
        if isinstance(v, types.FunctionType) and v.__globals__ is g0:
            G[k] = types.FunctionType(v.__code__, G, v.__name__, v.__defaults__, v.__closure__)
    if isinstance(f, types.FunctionType):
        return types.FunctionType(f.__code__, G, f.__name__, f.__defaults__, f.__closure__)
    raise TypeError(f)


def flat(tree):
    """Leaves in a canonical order: dicts by sorted key, dataclasses by field."""
    out = []

    def walk(t):
        if isinstance(t, dict):
            for k in sorted(t):
                walk(t[k])
        elif dataclasses.is_dataclass(t) and not isinstance(t, type):
            for fl in dataclasses.fields(t):
                walk(getattr(t, fl.name))
        elif isinstance(t, (tuple, list)):
            for x in t:
                walk(x)
        elif t is None or isinstance(t, str):
            pass
        else:
            out.append(np.asarray(t))
    walk(tree)
    return out


_INTERNAL = re.compile(r"(?<![A-Za-z0-9])_t\d+|@\d|revsrc\.(runtime|passes|rules|engine|ir|"
                       r"_[a-z])|_bar\b|__rv|\b_is\b|\b_os\b|_checkpoint|_kernels|<unset>|"
                       # round 9's stricter check: revsrc's own modules and files
                       r"revsrc\.(backends|core|frontend|api|compose)\b|"
                       r"[/\\]revsrc[/\\](backends|core|frontend|passes|runtime|rules|_)")


def refusal_ok(err):
    code = getattr(err, "code", None)
    if not (isinstance(code, str) and re.fullmatch(r"E\d{3}", code)):
        return False, f"no code: {code!r}"
    text = str(err)
    m = _INTERNAL.search(text)
    if m:
        return False, f"{code} names an internal {m.group(0)!r}: {text.splitlines()[0][:160]}"
    return True, ""


def _run(c):
    t = c["t"]
    if t == "pair":
        try:
            exp = c["ref"]()
        except ImportError as err:
            _skip_without(err)
            raise
        except Exception as err:  # noqa: BLE001 - a broken reference is the corpus's bug
            return "crashed", f"REFERENCE FAILED {type(err).__name__}: {str(err)[:200]}"
        got = c["f"]()
        if c["tol"] == 0.0:
            ge, ee = flat(got), flat(exp)
            if len(ge) != len(ee):
                return "wrong", f"{len(ge)} leaves vs {len(ee)}"
            for g, e in zip(ge, ee):
                ok, why = _exact(g, e)
                if not ok:
                    return "wrong", why
            return "ok", ""
        ok, why = _close(flat(got), flat(exp), c["tol"])
        return ("ok", "") if ok else ("wrong", why)
    return check_computed(c)


def pair(name, got, ref, tol=1e-7, needs=()):
    return case(name, got, (), t="pair", ref=ref, tol=tol, needs=needs)


def adder(cases):
    """The ``add(name, got, ref, tol)`` of a corpus module: a "pair" case appended to its
    ``cases`` list (the modules' default tolerance, 1e-9, is tighter than pair's)."""
    def add(name, got, ref, tol=1e-9):
        cases.append(pair(name, got, ref, tol=tol))
    return add


def run_case(c):
    """Returns (outcome, detail): ok, wrong, crashed or refused."""
    try:
        return _run(c)
    except revsrc.errors.JaxUnavailable:
        # backend="jax" where JAX (an optional extra) is not installed: E601 as documented
        pytest.skip("needs jax (backend='jax')")
    except revsrc.RevsrcError as err:
        ok, why = refusal_ok(err)
        if not ok:
            return "crashed", "bad refusal: " + why
        return "refused", f"{err.code}: {str(err).splitlines()[0][:200]}"
    except ImportError as err:
        _skip_without(err)
        return "crashed", f"{type(err).__name__}: {str(err)[:200]}"
    except Exception as err:  # noqa: BLE001 - classifying crashes is the point
        return "crashed", f"{type(err).__name__}: {str(err)[:200]}"


_OPTIONAL = ("jax", "jaxlib", "scipy", "autograd", "matplotlib")


def _skip_without(err):
    """Skip a case whose reference or check needs an optional package that is not
    installed (the corpus's references are JAX's); an ImportError of anything else
    is left to fail."""
    name = (getattr(err, "name", None) or "").split(".")[0]
    if name in _OPTIONAL:
        pytest.skip(f"needs {name}")


# What a KNOWN outcome ("refused-doc", "refused-undoc", "wrong", "crashed") must be in
# run_case's classes: both kinds of refusal are "refused" there.
OUTCOME = {"refused-doc": "refused", "refused-undoc": "refused", "wrong": "wrong", "crashed": "crashed"}


def check_names(cases, known):
    """A corpus's case names are unique, and its KNOWN names cases it has, with outcomes
    from OUTCOME."""
    names = [c["name"] for c in cases]
    dup = sorted({n for n in names if names.count(n) > 1})
    assert not dup, dup
    assert not set(known) - set(names), set(known) - set(names)
    assert set(known.values()) <= set(OUTCOME), set(known.values())


def check_known(c, known, where):
    """Runs case c: it must be "ok" unless KNOWN (at ``where``) lists it, and then it
    must keep its KNOWN outcome; a KNOWN case that starts passing fails, asking for its
    entry to be removed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome, detail = run_case(c)
    expect = known.get(c["name"])
    if expect is None:
        assert outcome == "ok", f"{c['name']}: {outcome}: {detail}"
    elif outcome == "ok":
        pytest.fail(f"{c['name']} now passes: remove it from KNOWN in {where}")
    else:
        assert outcome == OUTCOME[expect], f"{c['name']}: KNOWN says {expect}, got {outcome}: {detail}"


def corpus_tests(modules, known, where):
    """A corpus test module's cases and its two tests: the cases of ``modules`` (each
    module's CASES), the names check, and one test per case against ``known``."""
    cases = [c for name in modules for c in importlib.import_module(name).CASES]

    def test_names_unique():
        check_names(cases, known)

    @pytest.mark.parametrize("c", cases, ids=[c["name"] for c in cases])
    def test_user_program(c):
        check_known(c, known, where)

    return cases, test_names_unique, test_user_program
