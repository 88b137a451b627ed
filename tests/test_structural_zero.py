"""Structural zeros (revsrc/passes/reverse/zeros.py): a value whose local derivative is
infinite or nan (sqrt at 0, log at 0, asin at 1, x ** 0.5 at 0, an exp that overflowed,
a norm at 0, 1 / 0) that the result does not use on the path that ran (a branch not
taken, a loop that ran zero times) must not turn the gradient into nan: its adjoint
received nothing, so nothing flows back through it (0 * inf is never computed). JAX,
which traces only the path taken, gives the finite derivative: so must every path here
(Python, engine, native, jit, vmap with lanes that branch apart, hessian, grad of
grad, backend="jax", checkpointed loops). Where the value is used and its adjoint is
0.0 only numerically (sqrt(x) * sqrt(x) at 0), nan is the honest answer, as JAX's.
"""
import math
import types
import warnings

import numpy as np
import pytest

import revsrc

BACKENDS = ["python", "engine", None]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def _as_jax(f):
    """``f`` reading jax.numpy as np, the helpers it calls too (its JAX x64 reference)."""
    glob = dict(f.__globals__, np=_jax().numpy)
    for k, v in list(glob.items()):
        if isinstance(v, types.FunctionType) and v.__globals__ is f.__globals__:
            glob[k] = types.FunctionType(v.__code__, glob, v.__name__, v.__defaults__)
    return types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__)


def central(f, x, h=1e-6):
    with np.errstate(all="ignore"):
        return (f(x + h) - f(x - h)) / (2 * h)


# -- scalar programs: a value with an infinite or nan slope, used on a branch not taken --

def sqrt_unused(x):
    r = np.sqrt(x)
    y = x * x
    if r > 1.0:
        y = y + 3.0 * r
    return y


def log_unused(x):
    lx = np.log(x)
    y = 2.0 * x
    if x > 0.5:
        y = y * lx
    return y


def arccos_unused(x):
    a = np.arccos(x)            # slope -inf at 1
    y = x * x * x
    if x < 0.5:
        y = y + a
    return y


def pow_unused(x):
    r = x ** 0.5
    y = 4.0 * x
    if x > 2.0:
        y = r
    return y


def exp_overflow_unused(x):
    e = np.exp(800.0 * x)       # inf for x > 0.9: unused there
    y = x * x
    if x < 0.5:
        y = y + e
    return y


def divide_unused(x):
    q = np.divide(1.0, x)       # inf at 0, slope -inf
    y = np.sin(x)
    if x > 1.0:
        y = y + q
    return y


def chain_unused(x):
    # the value goes through several operations before the branch
    r = np.sqrt(x)
    s = np.log(r + 1.0) * 2.0
    t = s * s + r
    y = np.cos(x)
    if t > 5.0:
        y = y - t
    return y


# (function, point where the branch is not taken, d/dx there)
SCALAR = [
    (sqrt_unused, 0.0, 0.0),
    (log_unused, 0.0, 2.0),
    (arccos_unused, 1.0, 3.0),
    (pow_unused, 0.0, 4.0),
    (exp_overflow_unused, 0.95, 1.9),
    (divide_unused, 0.0, 1.0),
    (chain_unused, 0.0, 0.0),
]
IDS = [f.__name__ for f, _, _ in SCALAR]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f,x,want", SCALAR, ids=IDS)
def test_unused_value_on_a_branch_not_taken(f, x, want, backend):
    g = revsrc.grad(f, backend=backend)(x)
    assert g == pytest.approx(want, abs=1e-12)
    v, g2 = revsrc.value_and_grad(f, backend=backend)(x)
    assert g2 == g and v == pytest.approx(f(x))


@pytest.mark.parametrize("f,x,want", SCALAR, ids=IDS)
def test_agrees_with_central_differences_where_smooth(f, x, want):
    if f in (arccos_unused, log_unused, sqrt_unused, pow_unused, divide_unused,
             chain_unused):
        x = x + 1e-3 if f is not arccos_unused else x - 1e-3   # inside the domain
    assert revsrc.grad(f)(x) == pytest.approx(central(f, x), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("f,x,want", SCALAR, ids=IDS)
def test_agrees_with_jax(f, x, want):
    jax = _jax()
    jnp = jax.numpy
    ref = float(jax.grad(_as_jax(f))(x))
    assert ref == pytest.approx(want, abs=1e-12)
    assert revsrc.grad(f)(x) == pytest.approx(ref, abs=1e-12)
    assert float(revsrc.grad(f, backend="jax")(x)) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("f,x,want", SCALAR, ids=IDS)
def test_taken_branch_still_differentiates(f, x, want):
    # the same programs where the branch runs: the value is used, its slope counts
    taken = {sqrt_unused: 4.0, log_unused: 2.0, arccos_unused: 0.2, pow_unused: 9.0,
             exp_overflow_unused: 0.001, divide_unused: 2.0, chain_unused: 400.0}[f]
    jax = _jax()
    ref = float(jax.grad(_as_jax(f))(taken))
    for backend in BACKENDS:
        assert revsrc.grad(f, backend=backend)(taken) == pytest.approx(ref, rel=1e-12)


def test_engine_gives_the_python_paths_bits():
    pts = [0.0, 1e-300, 0.25, 0.95, 1.0, 1.5, 4.0, 9.0]
    for f, _, _ in SCALAR:
        py = revsrc.value_and_grad(f, backend="python")
        en = revsrc.value_and_grad(f, backend="engine")
        for x in pts:
            a, b = py(x), en(x)
            assert [float(v).hex() for v in a] == [float(v).hex() for v in b], (f, x)


def test_native_tier_gives_the_same_bits():
    from revsrc.backends.engine import native
    if not native.enabled():
        pytest.skip("no C compiler for the native tier")
    fs = [revsrc.value_and_grad(f, backend="engine") for f, _, _ in SCALAR]
    for d in fs:
        d(0.5)
    assert native.compile_many([d.programs[0][1] for d in fs])
    for d, (f, x, want) in zip(fs, SCALAR):
        assert d.programs[0][1].tier == "native"
        assert d(x)[1] == pytest.approx(want, abs=1e-12)
        py = revsrc.value_and_grad(f, backend="python")(x)
        assert float(d(x)[1]).hex() == float(py[1]).hex()


def test_math_module_on_the_engine():
    def f(x):
        r = math.sqrt(abs(x))
        a = math.asin(min(x, 1.0))
        y = 5.0 * x
        if r > 3.0:
            y = y + r * a
        return y
    for backend in BACKENDS:
        assert revsrc.grad(f, backend=backend)(0.0) == 5.0
        assert revsrc.grad(f, backend=backend)(1.0) == 5.0


# -- vmap: one lane takes the branch, another does not --

def test_vmap_lanes_that_branch_apart():
    jax = _jax()
    xs = np.array([0.0, 4.0, 0.25, 9.0, 0.0])
    ref = np.array([float(jax.grad(_as_jax(sqrt_unused))(x)) for x in xs])
    for backend in ("python", "engine"):
        got = revsrc.vmap(revsrc.grad(sqrt_unused, backend=backend))(xs)
        np.testing.assert_allclose(got, ref, rtol=1e-14)
    got = revsrc.vmap(revsrc.grad(exp_overflow_unused))(np.array([0.95, 0.1, 2.0]))
    np.testing.assert_allclose(got, [1.9, 0.2 + 800.0 * math.exp(80.0), 4.0], rtol=1e-12)


def safe_normalize(v):
    n = np.sqrt(np.sum(v * v))
    u = v
    if n > 0.0:
        u = v / n
    return np.sum(u * np.array([1.0, 2.0, 3.0]))


def test_vmap_of_an_array_program_with_mixed_rows():
    jax = _jax()
    X = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [0.0, 0.0, 0.0], [3.0, 0.0, 4.0]])
    # JAX's grad traces each row's own path (jax.vmap of a jnp.where would not)
    ref = np.array([np.asarray(jax.grad(_as_jax(safe_normalize))(row)) for row in X])
    got = revsrc.vmap(revsrc.grad(safe_normalize))(X)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert np.all(got[0] == [1.0, 2.0, 3.0])


# -- loops that run zero times, while loops, checkpointed loops --

def for_zero_trips(x, n):
    w = math.sqrt(x)
    s = 3.0 * x
    for i in range(n):
        s = s + w * i
    return s


def while_zero_trips(x, y):
    w = np.log(x)
    while y > 10.0:
        y = y * 0.5 + w
    return y * x


def test_for_loop_that_runs_zero_times():
    for backend in BACKENDS:
        assert revsrc.grad(for_zero_trips, backend=backend)(0.0, 0) == 3.0
        assert revsrc.grad(for_zero_trips, backend=backend)(0.0, -2) == 3.0
        # one trip with i = 0: w is used (times 0): 0 * inf is honest there
        assert math.isnan(revsrc.grad(for_zero_trips, backend=backend)(0.0, 1))
        g = revsrc.grad(for_zero_trips, backend=backend)(4.0, 3)
        assert g == pytest.approx(3.0 + 3 * 0.25)


def test_while_loop_that_runs_zero_times():
    for backend in BACKENDS:
        assert revsrc.grad(while_zero_trips, backend=backend)(0.0, 3.0) == 3.0
        g = revsrc.grad(while_zero_trips, backend=backend, argnums=(0, 1))(2.0, 30.0)
        assert g[0] == pytest.approx(central(lambda t: while_zero_trips(t, 30.0), 2.0),
                                     rel=1e-6)


def sqrt_in_loop(x, n):
    s = 0.0
    for i in range(n):
        r = np.sqrt(x * i)
        if r > 10.0:
            s = s + r
        s = s + x * x
    return s


@pytest.mark.parametrize("memory", [None, 64, 200])
def test_checkpointed_loop(memory):
    for backend in BACKENDS:
        g = revsrc.grad(sqrt_in_loop, backend=backend, memory=memory)
        assert g(0.0, 40) == 0.0
        assert g(0.5, 40) == pytest.approx(central(lambda t: sqrt_in_loop(t, 40), 0.5),
                                           rel=1e-6)


def test_loop_under_backend_jax():
    _jax()
    for n in (0, 5, 2000):     # 2000: a rolled loop
        assert float(revsrc.grad(sqrt_in_loop, backend="jax")(0.0, n)) == 0.0
    assert float(revsrc.grad(for_zero_trips, backend="jax")(0.0, 0)) == 3.0
    assert float(revsrc.grad(while_zero_trips, backend="jax")(0.0, 3.0)) == 3.0


def test_backend_jax_mapped_lanes_that_branch_apart():
    jax = _jax()
    xs = np.array([0.0, 4.0, 0.0])
    want = [0.0, 8.75, 0.0]
    g = revsrc.grad(sqrt_unused, backend="jax")
    np.testing.assert_allclose(np.asarray(jax.vmap(g)(xs)), want, rtol=1e-14)
    np.testing.assert_allclose(revsrc.vmap(g)(xs), want, rtol=1e-14)


# -- jit, hessian, grad of grad --

def test_under_jit():
    for f, x, want in SCALAR:
        assert revsrc.jit(revsrc.grad(f))(x) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("f,x,want", SCALAR, ids=IDS)
def test_hessian_and_grad_of_grad(f, x, want):
    jax = _jax()
    ref = float(jax.hessian(_as_jax(f))(x))
    assert math.isfinite(ref)
    assert revsrc.hessian(f)(x) == pytest.approx(ref, rel=1e-12, abs=1e-12)
    assert revsrc.grad(revsrc.grad(f))(x) == pytest.approx(ref, rel=1e-12, abs=1e-12)


def norm_hessian(x):
    r = np.linalg.norm(x)
    out = np.sum(x ** 3)
    if r > 5.0:
        out = out / r
    return out


def test_array_hessian_at_zero():
    h = revsrc.hessian(norm_hessian)(np.zeros(3))
    np.testing.assert_array_equal(h, np.zeros((3, 3)))
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(revsrc.hessian(norm_hessian)(x), np.diag(6.0 * x), rtol=1e-12)


# -- values that flow through item writes, helpers with early returns --

def item_write_unused(x):
    a = np.zeros(2)
    a[0] = np.sqrt(x)
    a[1] = x
    y = x * x
    if x > 1.0:
        y = y + np.sum(a)
    return y


def root_or_square(x):
    if x >= 0.0:
        return math.sqrt(x)    # used by the caller only on a branch not taken
    return x * x


def helper_in_loop(x, n):
    s = 0.0
    for i in range(n):
        r = root_or_square(x)
        if i > 100:
            s = s + r
        s = s + x
    return s


def test_item_write_into_an_array_used_on_a_branch_not_taken():
    for backend in ("python", None):
        assert revsrc.grad(item_write_unused, backend=backend)(0.0) == 0.0
        assert revsrc.grad(item_write_unused, backend=backend)(4.0) == \
            pytest.approx(8.0 + 0.25 + 1.0)


def test_helper_with_early_returns_whose_result_is_unused():
    for backend in BACKENDS:
        assert revsrc.grad(helper_in_loop, backend=backend)(0.0, 3) == 3.0
        assert revsrc.grad(helper_in_loop, backend=backend)(0.0, 0) == 0.0
        assert revsrc.grad(helper_in_loop, backend=backend)(4.0, 2) == 2.0
        assert revsrc.grad(root_or_square, backend=backend)(4.0) == 0.25
        assert revsrc.grad(root_or_square, backend=backend)(-3.0) == -6.0


def test_gradient_clipping_idiom():
    def step(x):
        g = 2.0 * x
        gnorm = np.sqrt(np.sum(g * g))
        if gnorm > 1.0:
            g = g / gnorm
        return np.sum((x - 0.1 * g) ** 2)
    v, g = revsrc.value_and_grad(step)(np.zeros(2))
    assert v == 0.0 and np.all(g == 0.0)
    x = np.array([3.0, -4.0])
    jax = _jax()
    jnp = jax.numpy

    def ref(x):
        g = 2.0 * x
        return jnp.sum((x - 0.1 * g / jnp.sqrt(jnp.sum(g * g))) ** 2)
    np.testing.assert_allclose(revsrc.grad(step)(x), np.asarray(jax.grad(ref)(x)), rtol=1e-12)
    np.testing.assert_array_equal(revsrc.grad(step, backend="jax")(np.zeros(2)), [0.0, 0.0])


# -- more control flow: nested branches, break, return in a loop, while, a variable
# assigned twice (the first value's adjoint killed on one path) --

def root_or_square_np(x):
    if x >= 0.0:
        return np.sqrt(x)
    return x * x


def cf_helper_branch(x):
    r = root_or_square_np(x)
    y = x
    if x > 5.0:
        y = y + r
    return y


def cf_break(x, n):
    s = x
    for i in range(n):
        r = np.sqrt(x)
        if i == 100:
            break
        if i > 200:
            s = s + r
        s = s + x
    return s


def cf_return_in_loop(x, n):
    for i in range(n):
        r = np.sqrt(x)
        if i >= 2:
            return x * 3.0
        if r > 100.0:
            return r
    return x


def cf_nested(x):
    r = np.sqrt(x)
    y = x
    if x > -1.0:
        if x > 1.0:
            y = y + r
        else:
            y = y * 2.0
    else:
        y = y + r * r
    return y


def cf_while(x, n):
    r = np.sqrt(x)
    s = x
    k = 0
    while k < n:
        if k > 5:
            s = s + r
        s = s * 1.5
        k += 1
    return s


def cf_assigned_twice(x):
    y = np.sqrt(x)
    if x < 1.0:
        y = 2.0 * x
    return y


def cf_copy_then_replaced(x):
    y = np.sqrt(x)
    z = y
    if x < 1.0:
        z = x * 5.0
    return z + 0.0 * x


CONTROL = [(cf_helper_branch, (0.0,)), (cf_helper_branch, (9.0,)), (cf_break, (0.0, 5)),
           (cf_break, (0.0, 300)), (cf_return_in_loop, (0.0, 5)), (cf_return_in_loop, (0.0, 1)),
           (cf_nested, (0.0,)), (cf_nested, (4.0,)), (cf_while, (0.0, 3)), (cf_while, (0.0, 0)),
           (cf_while, (0.0, 8)), (cf_assigned_twice, (0.0,)), (cf_assigned_twice, (4.0,)),
           (cf_copy_then_replaced, (0.0,))]


@pytest.mark.parametrize("f,args", CONTROL,
                         ids=[f"{f.__name__}{a}" for f, a in CONTROL])
def test_control_flow_against_jax(f, args):
    jax = _jax()
    ref = float(jax.grad(_as_jax(f))(*args))
    for backend in BACKENDS + ["jax"]:
        got = float(revsrc.grad(f, backend=backend)(*args))
        assert got == ref or (math.isnan(got) and math.isnan(ref)), (backend, got, ref)
    h, href = float(revsrc.hessian(f)(*args)), float(jax.hessian(_as_jax(f))(*args))
    assert h == pytest.approx(href, rel=1e-12, abs=1e-12) or (math.isinf(h) and h == href)


# -- where nan is the honest answer: the value is used --

def sqrt_times_sqrt(x):
    return np.sqrt(x) * np.sqrt(x)


def used_times_zero(x):
    r = np.sqrt(x)
    y = x * x
    if r >= 0.0:
        y = y + 0.0 * r      # used: 0 * inf, as JAX
    return y


def used_on_the_branch_taken(x):
    r = np.sqrt(x)
    y = x * x
    if x >= 0.0:
        y = y + r            # d/dx at 0 is inf
    return y


@pytest.mark.parametrize("f", [sqrt_times_sqrt, used_times_zero, used_on_the_branch_taken])
def test_a_value_used_keeps_its_slope(f):
    jax = _jax()
    ref = float(jax.grad(lambda t: f.__wrapped__(t, jnp) if hasattr(f, "__wrapped__")
                         else _as_jax(f)(t))(0.0))
    assert not math.isfinite(ref)
    for backend in BACKENDS:
        got = revsrc.grad(f, backend=backend)(0.0)
        assert (math.isnan(got) and math.isnan(ref)) or got == ref, (backend, got, ref)


def test_generated_code_names_the_flag_and_stays_plain_where_every_use_is_unconditional():
    text = revsrc.source(revsrc.grad(sqrt_unused, backend="python"), 0.0)
    assert "r_bar_live = True" in text and "if r_bar_live:" in text

    def plain(x):
        r = np.sqrt(x)
        return x * r
    assert "_live" not in revsrc.source(revsrc.grad(plain, backend="python"), 1.0)

    def early(x):
        if x > 0.0:
            return np.sqrt(x) * 2.0
        return x * x
    # a function's result is assigned once per call: early returns need no flag
    assert "_live" not in revsrc.source(revsrc.grad(early, backend="python"), 1.0)
    assert revsrc.grad(early)(-2.0) == -4.0 and revsrc.grad(early)(4.0) == 0.5
