"""Round 12, family B: a derivative made once must not keep using what changed after.

Everything a program took as fixed when it was made is guarded and checked before each
call: a function's ``__code__``, ``__defaults__`` and ``__kwdefaults__`` (its own, and
those of every helper and method it inlined), a partial's function, arguments and
keywords, the class attribute ``__call__`` of a callable object, and the library
attributes it resolved (``math.sin``, ``np.tanh``, monkeypatched). Each test changes one
of them after the derivative (or jit, or vmap) was made and called, checks the next call
against central differences of the function as it is now, and changes it back.
"""
import functools
import math
import types

import numpy as np
import pytest

import math as _m

import revsrc

BACKENDS = [None, "python"]


def cd(f, x, h=1e-6):
    """Central difference of scalar ``f`` at ``x`` (each coordinate of an array)."""
    if isinstance(x, np.ndarray):
        g = np.zeros_like(x)
        for i in range(x.size):
            e = np.zeros_like(x)
            e.flat[i] = h
            g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
        return g
    return (f(x + h) - f(x - h)) / (2 * h)


def close(a, b, tol=1e-7):
    return np.allclose(a, b, rtol=tol, atol=tol)


# ----- a function's own defaults and body -------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_defaults_replaced_grad_and_value_and_grad(backend):
    def f(x, p=2.0, q=1.0):
        return q * x ** p
    df = revsrc.grad(f, backend=backend)
    vg = revsrc.value_and_grad(f, backend=backend)
    assert close(df(1.5), 3.0) and close(vg(1.5)[1], 3.0)
    for defaults in [(3.0, 1.0), (3.0, 2.0), (2.0, 1.0)]:
        f.__defaults__ = defaults
        assert close(df(1.5), cd(f, 1.5)), defaults
        v, g = vg(1.5)
        assert v == f(1.5) and close(g, cd(f, 1.5)), defaults


@pytest.mark.parametrize("backend", BACKENDS)
def test_kwdefaults_replaced_and_mutated(backend):
    def f(x, *, p=2.0):
        return x ** p
    df = revsrc.grad(f, backend=backend)
    assert close(df(1.5), 3.0)
    f.__kwdefaults__ = {"p": 3.0}          # replaced
    assert close(df(1.5), 6.75)
    f.__kwdefaults__["p"] = 4.0            # the same dict, written
    assert close(df(1.5), cd(f, 1.5))
    f.__kwdefaults__ = None                # no default left: p is required now
    with pytest.raises(TypeError):
        df(1.5)
    assert close(df(1.5, p=2.0), 3.0)


def test_defaults_replaced_jit_and_vmap():
    def f(x, p=2.0):
        return x ** p
    jf = revsrc.jit(f)
    vf = revsrc.vmap(f)
    vdf = revsrc.vmap(revsrc.grad(f))
    xs = np.array([1.5, 2.0])
    assert jf(1.5) == 2.25 and np.array_equal(vf(xs), xs ** 2)
    assert close(vdf(xs), 2 * xs)
    f.__defaults__ = (4.0,)
    assert jf(1.5) == f(1.5)
    assert np.array_equal(vf(xs), xs ** 4)
    assert close(vdf(xs), 4 * xs ** 3)


def test_defaults_replaced_array_function_vmap():
    def f(w, x, scale=1.0):
        return scale * np.sum(np.tanh(w * x))
    vf = revsrc.vmap(f, in_axes=(None, 0))
    w, xs = np.array([0.5, -1.0]), np.array([[1.0, 2.0], [0.3, 0.1]])
    assert close(vf(w, xs), [f(w, x) for x in xs])
    f.__defaults__ = (3.0,)
    assert close(vf(w, xs), [f(w, x) for x in xs])
    vg = revsrc.vmap(revsrc.grad(f), in_axes=(None, 0))
    f.__defaults__ = (-2.0,)
    assert close(vg(w, xs), [cd(lambda v: f(v, x), w) for x in xs])


@pytest.mark.parametrize("backend", BACKENDS)
def test_code_replaced(backend):
    def f(x):
        return x * x

    def g(x):
        return x * x * x
    df = revsrc.grad(f, backend=backend)
    jf = revsrc.jit(f)
    assert df(2.0) == 4.0 and jf(2.0) == 4.0
    old = f.__code__
    f.__code__ = g.__code__
    assert df(2.0) == 12.0 and jf(2.0) == 8.0
    f.__code__ = old                        # rebound back: anew again
    assert df(2.0) == 4.0 and jf(2.0) == 4.0


def test_code_replaced_with_other_parameters():
    def f(x):
        return x * x

    def g(x, y=3.0):
        return x * y
    df = revsrc.grad(f)
    assert df(2.0) == 4.0
    f.__code__, f.__defaults__ = g.__code__, g.__defaults__
    assert df(2.0) == 3.0 and df(2.0, 5.0) == 5.0


# ----- what a program inlined: helpers, methods -------------------------------------

def helper(x, p=2.0):
    return x ** p


def inner_helper(y, k=1.0):
    return k * math.sin(y)


def outer_helper(x):
    return inner_helper(x) * x


def uses_helpers(x):
    return helper(x) + outer_helper(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_helper_defaults_and_code_replaced(backend):
    df = revsrc.grad(uses_helpers, backend=backend)
    jf = revsrc.jit(uses_helpers)
    saved = helper.__defaults__, inner_helper.__defaults__, inner_helper.__code__
    try:
        assert close(df(0.7), cd(uses_helpers, 0.7))
        helper.__defaults__ = (3.0,)
        assert close(df(0.7), cd(uses_helpers, 0.7))
        inner_helper.__defaults__ = (-2.0,)             # two calls deep
        assert close(df(0.7), cd(uses_helpers, 0.7)) and jf(0.7) == uses_helpers(0.7)
        inner_helper.__code__ = (lambda y, k=1.0: k * math.cos(y)).__code__
        assert close(df(0.7), cd(uses_helpers, 0.7)) and jf(0.7) == uses_helpers(0.7)
    finally:
        helper.__defaults__, inner_helper.__defaults__, inner_helper.__code__ = saved
    assert close(df(0.7), cd(uses_helpers, 0.7)) and jf(0.7) == uses_helpers(0.7)


class Stepper:
    def step(self, x, dt=0.1):
        return x - dt * x ** 3

    def run(self, x):
        for _ in range(3):
            x = self.step(x)
        return x


class Base:
    def __call__(self, x):
        return 2.0 * x * x


class Derived(Base):
    pass


_BASE_CALL = Base.__call__


@pytest.mark.parametrize("backend", BACKENDS)
def test_method_defaults_and_method_replaced_on_class(backend):
    o = Stepper()
    df = revsrc.grad(o.run, backend=backend)
    old_defaults, old_step = Stepper.step.__defaults__, Stepper.step
    try:
        assert close(df(1.0), cd(o.run, 1.0))
        Stepper.step.__defaults__ = (0.2,)
        assert close(df(1.0), cd(o.run, 1.0))
        Stepper.step = lambda self, x, dt=0.05: x - dt * math.sin(x)
        assert close(df(1.0), cd(o.run, 1.0))
        o.step = lambda x: x * 0.5          # on the instance: hides the class's
        assert close(df(1.0), 0.125)
        del o.step
        assert close(df(1.0), cd(o.run, 1.0))
    finally:
        Stepper.step = old_step
        Stepper.step.__defaults__ = old_defaults
    assert close(df(1.0), cd(o.run, 1.0))


class Fast(Stepper):
    def step(self, x, dt=0.3):
        return x - dt * x


@pytest.mark.parametrize("backend", BACKENDS)
def test_instance_class_reassigned(backend):
    # the methods of self were found through its class: another class, other methods
    o = Stepper()
    df, jf = revsrc.grad(o.run, backend=backend), revsrc.jit(o.run)
    assert close(df(1.0), cd(o.run, 1.0)) and jf(1.0) == o.run(1.0)
    o.__class__ = Fast
    assert close(df(1.0), 0.7 ** 3) and jf(1.0) == o.run(1.0) == Fast().run(1.0)
    o.__class__ = Stepper
    assert close(df(1.0), cd(o.run, 1.0)) and jf(1.0) == o.run(1.0)


# ----- what the derivative was made of: partials, callable objects --------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_partial_keywords_and_state(backend):
    def f(x, a=1.0, b=0.0):
        return a * x * x + b * x
    p = functools.partial(f, a=2.0)
    df = revsrc.grad(p, backend=backend)
    jf = revsrc.jit(p)
    assert df(1.0) == 4.0 and jf(1.0) == 2.0
    p.keywords["a"] = 5.0                       # written in place
    assert df(1.0) == 10.0 and jf(1.0) == 5.0
    p.keywords["b"] = 3.0                       # a keyword added
    assert df(1.0) == 13.0 and jf(1.0) == 8.0
    p.__setstate__((lambda x, a=1.0, b=0.0: a * x ** 3, (), {"a": 1.0}, None))
    assert df(1.0) == 3.0 and jf(1.0) == 1.0   # another function, other keywords


def test_partial_inlined_in_a_function():
    def f(x, a=1.0):
        return a * math.sin(x)
    p = functools.partial(f, a=2.0)

    def g(x):
        return p(x) * x
    df = revsrc.grad(g)
    assert close(df(0.4), cd(g, 0.4))
    p.keywords["a"] = -3.0
    assert close(df(0.4), cd(g, 0.4))


@pytest.mark.parametrize("backend", BACKENDS)
def test_dunder_call_replaced_on_class_and_base(backend):
    s = Derived()
    df = revsrc.grad(s, backend=backend)
    jf = revsrc.jit(s)
    vf = revsrc.vmap(s)
    xs = np.array([1.0, 2.0])
    try:
        assert df(1.0) == 4.0 and jf(1.0) == 2.0 and np.array_equal(vf(xs), 2 * xs * xs)
        Base.__call__ = lambda self, x: 5.0 * x * x           # on the base class
        assert df(1.0) == 10.0 and jf(1.0) == 5.0 and np.array_equal(vf(xs), 5 * xs * xs)
        Derived.__call__ = lambda self, x: 7.0 * x            # the subclass's own now
        assert df(1.0) == 7.0 and jf(1.0) == 7.0 and np.array_equal(vf(xs), 7 * xs)
        s.__call__ = lambda x: 0.0          # an instance attribute: Python ignores it
        assert df(1.0) == 7.0 and jf(1.0) == s(1.0) == 7.0
        s.__class__ = Base                  # its class replaced
        assert df(1.0) == 10.0 and jf(1.0) == s(1.0) == 5.0
    finally:
        del Derived.__call__
        Base.__call__ = _BASE_CALL
    assert df(1.0) == 4.0 and jf(1.0) == 2.0


# ----- library attributes monkeypatched -----------------------------------------------

def two_sin(x):
    return math.sin(x) * 2


def sum_tanh(x):
    return np.sum(np.tanh(x))


def norm_loss(x):
    return np.linalg.norm(x) ** 2 + np.sum(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_math_function_monkeypatched(backend):
    df = revsrc.grad(two_sin, backend=backend)
    jf = revsrc.jit(two_sin)
    vf = revsrc.vmap(revsrc.grad(two_sin))
    xs = np.array([0.5, 1.0])
    assert close(df(0.5), 2 * math.cos(0.5)) and jf(0.5) == two_sin(0.5)
    old = math.sin
    math.sin = math.cos
    try:
        assert close(df(0.5), -2 * old(0.5))
        assert jf(0.5) == two_sin(0.5) == 2 * math.cos(0.5)
        assert close(vf(xs), -2 * np.sin(xs))
    finally:
        math.sin = old
    assert close(df(0.5), 2 * math.cos(0.5)) and jf(0.5) == two_sin(0.5)


def test_numpy_functions_monkeypatched():
    x = np.array([0.5, -0.2])
    dt, dn = revsrc.grad(sum_tanh), revsrc.grad(norm_loss)
    assert close(dt(x), 1 - np.tanh(x) ** 2) and close(dn(x), 2 * x + 1)
    old_tanh, old_norm = np.tanh, np.linalg.norm
    np.tanh = np.sin
    np.linalg.norm = lambda v: np.sqrt(np.sum(v * v * v * v))     # a user's function
    try:
        assert close(dt(x), np.cos(x))
        assert close(dn(x), cd(norm_loss, x))
    finally:
        np.tanh, np.linalg.norm = old_tanh, old_norm
    assert close(dt(x), 1 - np.tanh(x) ** 2) and close(dn(x), 2 * x + 1)


def alias_sin(x):
    return _m.sin(x)


def test_module_global_rebound_to_another_object():
    df = revsrc.grad(alias_sin)
    assert close(df(0.3), math.cos(0.3))
    globals()["_m"] = types.SimpleNamespace(sin=math.tanh)
    try:
        assert close(df(0.3), 1 - math.tanh(0.3) ** 2)
    finally:
        globals()["_m"] = math
    assert close(df(0.3), math.cos(0.3))


# ----- compositions -------------------------------------------------------------------

def test_compositions_see_the_change():
    def f(x, p=2.0):
        return math.sin(x) * x ** p
    ddf = revsrc.grad(revsrc.grad(f))
    jdf = revsrc.jit(revsrc.value_and_grad(f))
    hf = revsrc.hessian(f)

    def calls(x):
        return dfc(x) * x
    dfc = revsrc.grad(f)
    jc = revsrc.jit(calls)
    x = 0.8
    before = ddf(x), hf(x), jdf(x), jc(x)
    f.__defaults__ = (3.0,)
    d1 = cd(f, x)
    assert close(ddf(x), cd(lambda v: cd(f, v, 1e-5), x, 1e-4), 1e-5)
    assert close(hf(x), ddf(x))
    assert jdf(x)[0] == f(x) and close(jdf(x)[1], d1)
    assert close(jc(x), d1 * x)
    f.__defaults__ = (2.0,)
    assert (ddf(x), hf(x), jdf(x), jc(x)) == before


def test_jitted_helper_defaults_replaced():
    def h(x, k=2.0):
        return k * x * x
    jh = revsrc.jit(h)

    def f(x):
        return jh(x) + x
    df, jf = revsrc.grad(f), revsrc.jit(f)
    assert df(1.0) == 5.0 and jf(1.0) == 3.0
    h.__defaults__ = (3.0,)
    assert df(1.0) == 7.0 and jf(1.0) == 4.0 and jh(1.0) == 3.0


def test_guards_are_identity_checks_of_the_state_taken():
    """The guards the derivative's front checks name the function's state and the
    library attributes it resolved."""
    df = revsrc.grad(two_sin, backend="engine")
    df(0.5)
    names = [d[1] for d in df.deps]
    assert revsrc._kernels.FUNCTION in names and "sin" in names and "math" in names
    state = next(d[2] for d in df.deps if d[1] is revsrc._kernels.FUNCTION)
    assert state == (two_sin.__code__, None, None)


def test_jvp_sees_kwdefaults_written():
    def g(x, *, k=1.0):
        return k * x * x
    assert revsrc.jvp(g, (1.0,), (1.0,)) == (1.0, 2.0)
    g.__kwdefaults__["k"] = 5.0
    assert revsrc.jvp(g, (1.0,), (1.0,)) == (5.0, 10.0)


def test_pullback_refuses_after_defaults_or_code_replaced():
    # a pullback's output came from the old function: E204, as for a global rebound
    def f(x, p=2.0):
        return x ** p
    _, pb = revsrc.vjp(f, 1.5)
    assert pb(1.0) == (3.0,)
    f.__defaults__ = (3.0,)
    with pytest.raises(revsrc.RevsrcError) as e:
        pb(1.0)
    assert e.value.code == "E204"
    _, fj = revsrc.linearize(f, 1.5)
    assert fj(1.0) == 6.75
    f.__code__ = (lambda x, p=2.0: x * p).__code__
    with pytest.raises(revsrc.RevsrcError) as e:
        fj(1.0)
    assert e.value.code == "E204"


def test_jax_backend_sees_defaults_replaced():
    pytest.importorskip("jax")

    def f(w, scale=1.0):
        return scale * np.sum(np.tanh(w) ** 2)
    w = np.array([0.3, -0.7])
    df = revsrc.grad(f, backend="jax")
    assert close(np.asarray(df(w)), cd(f, w))
    f.__defaults__ = (3.0,)
    assert close(np.asarray(df(w)), cd(f, w))


class _Twice:
    def scale(self, x):
        return 2.0 * x


class _Thrice:
    def scale(self, x):
        return 3.0 * x


HELD = _Twice()


def _through_held(x):
    return HELD.scale(x) * x


def test_a_global_objects_class_switched_or_method_shadowed():
    # found in review: the method of a global object was guarded in its class's dict,
    # not the object's class nor its own dict
    x = np.array([1.0, -2.4, 4.0])
    makers = [revsrc.grad(_through_held), revsrc.jit(revsrc.grad(_through_held))]
    jac = revsrc.jacfwd(lambda v: HELD.scale(v) * v)
    try:
        assert [m(1.5) for m in makers] == [6.0, 6.0]
        np.testing.assert_allclose(jac(x), np.diag(4.0 * x))
        HELD.__class__ = _Thrice
        assert [m(1.5) for m in makers] == [9.0, 9.0]
        np.testing.assert_allclose(jac(x), np.diag(6.0 * x))
        HELD.__class__ = _Twice
        HELD.scale = lambda v: 10.0 * v      # set on the instance: hides the class's
        assert [m(1.5) for m in makers] == [30.0, 30.0]
        np.testing.assert_allclose(jac(x), np.diag(20.0 * x))
        del HELD.scale
        assert [m(1.5) for m in makers] == [6.0, 6.0]
    finally:
        HELD.__class__ = _Twice
        HELD.__dict__.pop("scale", None)
