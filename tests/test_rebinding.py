"""A program is made anew when a name it took as fixed is rebound (issue 22).

What a global, a closure cell or an attribute of ``self`` holds when a function is
transformed is folded into its program: a NumPy or math function, a revsrc
derivative, an object. Rebinding the name, to anything, makes the program anew on
the next call (revsrc/frontend/bindings.py guards them; revsrc/_engine.pxi checks
the guards on every call). Each case checks the value and the gradient after the
rebinding against a freshly transformed function's, digit for digit, and against
central differences; then the rebinding back.
"""
import contextlib
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import compare_grads

X = np.array([0.3, -0.7, 1.1])

ACT = np.tanh


def act_loss(x):
    return np.sum(ACT(x) ** 2)


WAVE = math.sin


def wave(x):
    return WAVE(x) * x


def sq(x):
    return x * x


def cube(x):
    return x * x * x


DER = revsrc.grad(sq)


def der_times(x):
    return DER(x) * x


@contextlib.contextmanager
def rebound(name, value):
    """The module global ``name`` bound to ``value`` inside the block."""
    old = globals()[name]
    globals()[name] = value
    try:
        yield
    finally:
        globals()[name] = old


# (the global, its first value, the value it is rebound to, the function, its argument)
CASES = {
    "ufunc": ("ACT", np.tanh, np.sin, act_loss, X),
    "math": ("WAVE", math.sin, math.cos, wave, 0.7),
    "derivative": ("DER", DER, revsrc.grad(cube), der_times, 1.3),
}
SCALAR_CASES = ["math", "derivative"]


def _backends(case):
    # a derivative called inside a differentiated function does not run on the
    # engine yet (E501): jit runs it there (below)
    return ["python", "engine"] if case == "math" else [None, "python"]


def _transforms():
    for case in CASES:
        for backend in _backends(case):
            for how in ("grad", "value_and_grad"):
                yield case, how, backend


def _equal(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert type(a) is type(b)


def _check_derivative(d, how, f, x, backend):
    """``d`` (made before) gives what a derivative made now gives, and the gradient
    agrees with central differences."""
    fresh = getattr(revsrc, how)(f, backend=backend)
    got, want = d(x), fresh(x)
    if how == "value_and_grad":
        _equal(got[0], want[0])
        _equal(got[1], want[1])
        assert got[0] == pytest.approx(f(x), rel=1e-14)
        compare_grads(f, lambda x: d(x)[1], (x,))
    else:
        _equal(got, want)
        compare_grads(f, d, (x,))


@pytest.mark.parametrize("case,how,backend", list(_transforms()))
def test_a_rebound_global_makes_the_derivative_anew(case, how, backend):
    name, old, new, f, x = CASES[case]
    d = getattr(revsrc, how)(f, backend=backend)
    _check_derivative(d, how, f, x, backend)
    with rebound(name, new):
        _check_derivative(d, how, f, x, backend)
    _check_derivative(d, how, f, x, backend)      # rebound back: anew again
    assert globals()[name] is old


@pytest.mark.parametrize("case", SCALAR_CASES)
def test_a_rebound_global_makes_the_jitted_function_anew(case):
    name, old, new, f, x = CASES[case]
    j = revsrc.jit(f)
    assert j(x) == f(x)
    with rebound(name, new):
        assert j(x) == f(x) == revsrc.jit(f)(x)
    assert j(x) == f(x)


@pytest.mark.parametrize("case", SCALAR_CASES)
def test_a_rebound_global_makes_the_jvp_anew(case):
    name, old, new, f, x = CASES[case]

    def tangent():
        return revsrc.jvp(f, (x,), (1.0,))

    before = tangent()
    with rebound(name, new):
        out, t = tangent()
        assert out == f(x)
        assert t == revsrc.grad(f, backend="python")(x)
    assert tangent() == before


@pytest.mark.parametrize("case", SCALAR_CASES)
def test_a_rebound_global_makes_the_mapped_function_anew(case):
    name, old, new, f, x = CASES[case]
    xs = np.array([0.2, x, 1.7])
    m = revsrc.vmap(f)
    m(xs)
    with rebound(name, new):
        _equal(m(xs), np.array([f(v) for v in xs]))
    _equal(m(xs), np.array([f(v) for v in xs]))
    if case == "math":
        dm = revsrc.vmap(revsrc.grad(f))
        dm(xs)
        with rebound(name, new):
            _equal(dm(xs), np.array([revsrc.grad(f, backend="python")(v) for v in xs]))


@pytest.mark.parametrize("how", ["grad", "value_and_grad"])
def test_a_rebound_global_makes_the_jax_program_anew(how):
    pytest.importorskip("jax")
    d = getattr(revsrc, how)(act_loss, backend="jax")

    def grad(x):
        return np.asarray(d(x)[1] if how == "value_and_grad" else d(x))
    np.testing.assert_allclose(grad(X), 2.0 * np.tanh(X) * (1.0 - np.tanh(X) ** 2),
                               rtol=1e-12)
    with rebound("ACT", np.sin):
        np.testing.assert_allclose(grad(X), revsrc.grad(act_loss, backend="python")(X),
                                   rtol=1e-12)
        np.testing.assert_allclose(grad(X), np.sin(2.0 * X), rtol=1e-12)
    np.testing.assert_allclose(grad(X), 2.0 * np.tanh(X) * (1.0 - np.tanh(X) ** 2),
                               rtol=1e-12)


def test_a_rebound_derivative_inside_a_derivative():
    # the outer derivative inlines DER's program: rebinding DER makes both anew
    d2 = revsrc.grad(revsrc.grad(der_times), backend="python")
    assert d2(1.3) == pytest.approx(4.0)            # (2x * x)'' = 4
    with rebound("DER", revsrc.grad(cube)):
        assert d2(1.3) == pytest.approx(18.0 * 1.3)  # (3x**2 * x)'' = 18x


# ----- jitted functions calling jitted functions -----

def inner_wave(x):
    return WAVE(x) + x


INNER = revsrc.jit(inner_wave)


def outer_wave(x):
    return INNER(x) * x


def test_a_rebound_global_of_a_jitted_callee_makes_the_caller_anew():
    j = revsrc.jit(outer_wave)
    assert j(0.4) == outer_wave(0.4)
    with rebound("WAVE", math.cos):
        assert j(0.4) == outer_wave(0.4) == (math.cos(0.4) + 0.4) * 0.4
    assert j(0.4) == outer_wave(0.4)


# ----- attributes: of self, of a class, of a module -----

class Layer:
    def __init__(self, act):
        self.act = act

    def loss(self, x):
        return np.sum(self.act(x) ** 2)

    def scalar(self, x):
        return self.act(x) * x


@pytest.mark.parametrize("how", ["grad", "value_and_grad"])
@pytest.mark.parametrize("backend", [None, "python"])
def test_a_changed_attribute_of_self_makes_the_derivative_anew(how, backend):
    layer = Layer(np.tanh)
    d = getattr(revsrc, how)(layer.loss, backend=backend)
    _check_derivative(d, how, layer.loss, X, backend)
    layer.act = np.sin
    _check_derivative(d, how, layer.loss, X, backend)
    layer.act = np.tanh
    _check_derivative(d, how, layer.loss, X, backend)


@pytest.mark.parametrize("how", ["grad", "value_and_grad"])
@pytest.mark.parametrize("backend", ["python", "engine"])
def test_a_changed_attribute_of_self_on_the_engine(how, backend):
    layer = Layer(math.sin)
    d = getattr(revsrc, how)(layer.scalar, backend=backend)
    _check_derivative(d, how, layer.scalar, 0.9, backend)
    layer.act = math.cos
    _check_derivative(d, how, layer.scalar, 0.9, backend)
    if backend == "python":   # a derivative inside a derivative: not on the engine yet
        layer.act = revsrc.grad(cube)     # 3x**2 * x
        _check_derivative(d, how, layer.scalar, 0.9, backend)
        grad = d(0.9) if how == "grad" else d(0.9)[1]
        assert grad == pytest.approx(9.0 * 0.9 ** 2)
    layer.act = math.sin
    _check_derivative(d, how, layer.scalar, 0.9, backend)


class Shared:
    act = np.tanh    # a class attribute, until an instance sets its own

    def loss(self, x):
        return np.sum(self.act(x))


def test_a_class_attribute_changed_or_hidden_makes_the_derivative_anew():
    s = Shared()
    d = revsrc.grad(s.loss)
    _equal(d(X), 1.0 - np.tanh(X) ** 2)
    Shared.act = np.sin
    try:
        _equal(d(X), np.cos(X))
        s.act = np.exp               # the instance's own now hides the class's
        _equal(d(X), np.exp(X))
        del s.act
        _equal(d(X), np.cos(X))
    finally:
        Shared.act = np.tanh
    _equal(d(X), 1.0 - np.tanh(X) ** 2)


class Dense:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return ACT(self.w * x)


def dense_loss(x):
    layer = Dense(2.0)
    return np.sum(layer(x))


def test_a_rebound_global_of_a_method_of_an_object_built_inside():
    # Dense.__call__ is inlined where the function calls the object it builds
    d = revsrc.grad(dense_loss)
    _equal(d(X), 2.0 * (1.0 - np.tanh(2.0 * X) ** 2))
    with rebound("ACT", np.sin):
        _equal(d(X), revsrc.grad(dense_loss)(X))
        np.testing.assert_allclose(d(X), 2.0 * np.cos(2.0 * X), rtol=1e-14)


def _module(tmp_path, name, text):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_rebound_attribute_of_a_users_module_makes_the_derivative_anew(tmp_path):
    import sys
    helpers = _module(tmp_path, "rebinding_helpers", "import math\nWAVE = math.sin\n")
    sys.modules["rebinding_helpers"] = helpers
    try:
        mod = _module(tmp_path, "rebinding_user", (
            "import rebinding_helpers\n\n"
            "def f(x):\n    return rebinding_helpers.WAVE(x) * x\n"))
        for backend in ("python", "engine"):
            helpers.WAVE = math.sin
            d = revsrc.grad(mod.f, backend=backend)
            assert d(0.5) == revsrc.grad(mod.f, backend=backend)(0.5)
            helpers.WAVE = math.cos
            assert d(0.5) == revsrc.grad(mod.f, backend=backend)(0.5)
            assert d(0.5) == pytest.approx(math.cos(0.5) - 0.5 * math.sin(0.5))
        j = revsrc.jit(mod.f)
        assert j(0.5) == math.cos(0.5) * 0.5
        helpers.WAVE = math.exp
        assert j(0.5) == math.exp(0.5) * 0.5
    finally:
        del sys.modules["rebinding_helpers"]


# ----- closure cells -----

def _closure(act):
    def f(x):
        return act(x) * x

    def rebind(new):
        nonlocal act
        act = new
    return f, rebind


@pytest.mark.parametrize("backend", ["python", "engine"])
def test_a_rebound_closure_cell_makes_the_derivative_anew(backend):
    f, rebind = _closure(math.sin)
    d = revsrc.grad(f, backend=backend)
    j = revsrc.jit(f)
    assert d(0.6) == revsrc.grad(f, backend=backend)(0.6)
    rebind(math.tanh)
    assert d(0.6) == revsrc.grad(f, backend=backend)(0.6)
    compare_grads(f, d, (0.6,))
    assert j(0.6) == math.tanh(0.6) * 0.6
    rebind(math.sin)
    assert d(0.6) == pytest.approx(math.cos(0.6) * 0.6 + math.sin(0.6))


# ----- refusals keep their codes; nothing rebound, nothing made anew -----

def _code(call):
    with pytest.raises(errors.RevsrcError) as info:
        call()
    return info.value.code


@pytest.mark.parametrize("backend", ["python", "engine"])
def test_rebound_to_a_function_with_no_rule_is_refused_with_its_code(backend):
    d = revsrc.grad(wave, backend=backend)
    d(0.7)
    with rebound("WAVE", math.ulp):
        want = _code(lambda: revsrc.grad(wave, backend=backend)(0.7))
        assert _code(lambda: d(0.7)) == want == "E202"
    assert d(0.7) == pytest.approx(math.cos(0.7) * 0.7 + math.sin(0.7))


UNRELATED = 0


def test_nothing_rebound_keeps_the_programs():
    global UNRELATED
    d = revsrc.grad(wave, backend="engine")
    d(0.7)
    tr = d._revsrc_transformed
    entries = list(tr.cache.values())
    for i in range(3):
        UNRELATED = i            # the module's globals written: looked up again
        assert d(0.7) == d(np.float64(0.7))   # the general path checks them too
    assert list(tr.cache.values())[:1] == entries[:1]
    assert len(d.programs) == 1


def test_guards_check_every_kind_of_holder():
    import types
    from revsrc import _kernels, runtime
    from revsrc.core import kinds

    class Slotted:
        __slots__ = ("act",)

    class Plain:
        act = np.tanh

    def fn():
        return None

    g = {"ACT": np.tanh, "f": fn, "SCALE": 2.0}
    cell = types.CellType(math.sin)
    slotted, plain = Slotted(), Plain()
    slotted.act = np.sin
    deps = [(g, "ACT", np.tanh, None), (g, "f", fn, fn.__code__), (cell, "c", math.sin, None),
            (vars(Plain), "act", np.tanh, None), (vars(plain), "act", runtime.UNBOUND, None),
            (slotted, "act", np.sin, None), (g, "SCALE", "kind", kinds.signature(2.0))]
    guards = _kernels.Guards(deps)
    assert guards.current(kinds.signature) and guards.current()
    assert runtime.deps_current(deps)

    def changed(undo, *change):
        holder, name, value = change
        setattr(holder, name, value) if not isinstance(holder, dict) else \
            holder.__setitem__(name, value)
        assert not guards.current(kinds.signature)
        undo()
        assert guards.current(kinds.signature)

    changed(lambda: g.__setitem__("ACT", np.tanh), g, "ACT", np.sin)
    changed(lambda: setattr(cell, "cell_contents", math.sin), cell, "cell_contents", math.cos)
    changed(lambda: setattr(Plain, "act", np.tanh), Plain, "act", np.exp)
    changed(lambda: delattr(plain, "act"), plain, "act", np.tanh)   # hides the class's
    changed(lambda: setattr(slotted, "act", np.sin), slotted, "act", np.cos)
    code = fn.__code__
    fn.__code__ = (lambda: 1).__code__
    assert not guards.current()
    fn.__code__ = code
    g["SCALE"] = np.ones(3)          # a global read when it runs: a new kind
    assert guards.current() and not guards.current(kinds.signature)
    g["SCALE"] = 3.0                 # the same kind
    assert guards.current(kinds.signature)
    del g["ACT"]
    assert not guards.current()


def smooth(x):
    return math.exp(-x * x) * math.cos(3.0 * x) + np.tanh(x)


def test_library_attributes_are_guarded():
    # math's and NumPy's attributes a program resolved are guarded too (a test may
    # monkeypatch math.sin), in their modules' dicts (a version compared per call);
    # the function's own body and defaults are guarded; the user's names bound to
    # library functions are guarded
    d = revsrc.grad(smooth, backend="engine")
    d(0.3)
    held = [(dep[0].get("__name__") if type(dep[0]) is dict else dep[0], dep[1])
            for dep in d.deps]
    assert sorted(map(str, held)) == sorted(map(str, [
        (smooth, revsrc._kernels.FUNCTION), (__name__, "math"), ("math", "exp"),
        ("math", "cos"), (__name__, "np"), ("numpy", "tanh")]))
    d = revsrc.grad(wave, backend="engine")
    d(0.3)
    assert ("WAVE", math.sin) in [(dep[1], dep[2]) for dep in d.deps]


class _Config:
    pass


CONF = _Config()
CONF.act = math.tanh
CONF.k = 0.7


def conf_model(x):
    return CONF.act(x) * CONF.k + x


@pytest.mark.parametrize("backend", ["python", None])
def test_a_global_objects_stored_function_and_number_are_followed(backend):
    """``CONF.act(x)`` calls the function stored on a module-level object, folded
    like ``self.act``; ``CONF.k`` is read when the program runs, with its kind fixed.
    Each change is seen by the derivative built before it."""
    d = revsrc.grad(conf_model, backend=backend)
    old_act, old_k = CONF.act, CONF.k
    try:
        for act, k in [(math.tanh, 0.7), (math.tanh, -2.0), (math.sin, -2.0),
                       (math.atan, np.array(1.5)), (math.tanh, 3)]:
            CONF.act, CONF.k = act, k
            h = 1e-6
            fd = (conf_model(0.4 + h) - conf_model(0.4 - h)) / (2 * h)
            assert d(0.4) == pytest.approx(fd, rel=1e-8)
            assert d(0.4) == revsrc.grad(conf_model, backend="python")(0.4)
        other = _Config()
        other.act, other.k = math.cos, 1.25
        with rebound("CONF", other):
            assert d(0.4) == pytest.approx(-math.sin(0.4) * 1.25 + 1.0, rel=1e-14)
    finally:
        CONF.act, CONF.k = old_act, old_k
