"""backend="jax" loops as lax loops (revsrc/backends/jax/loops.py): a ``while`` whose test is a
traced value runs as lax.while_loop with its saves stacked for the adjoint, bounded by
``max_steps``; a ``for`` with a traced ``break`` as lax.while_loop over the rest of its
range; a long static ``for`` runs as lax.scan; hessian and hvp run them as lax loops
too (forward mode over the gradient). Every derivative is checked
against the NumPy path (rtol 1e-12) and central differences; every refusal for its
code and the user's line."""
import numpy as np
import pytest

import revsrc
from revsrc import errors

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _close(got, want, rtol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= rtol * scale or err == 0.0, (err, scale)


def _central(f, args, argnum, h=1e-6):
    """Central differences of f with respect to argument ``argnum`` (a float or array)."""
    x = np.asarray(args[argnum], dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        a_up, a_down = list(args), list(args)
        a_up[argnum] = up if x.ndim else float(up)
        a_down[argnum] = down if x.ndim else float(down)
        out[i] = (f(*a_up) - f(*a_down)) / (2 * h)
    return out


# ----- while loops on traced values -----

def halve(x):
    while x > 1e-3:
        x = x * 0.5
    return x * x


def newton_sqrt(a):
    x = a
    while np.abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def fixed_point(x, A):
    y = np.zeros_like(x)
    err = 1.0                       # a concrete test first, traced from then on
    while err > 1e-10:
        y_new = np.tanh(A @ y + x)
        err = np.max(np.abs(y_new - y))
        y = y_new
    return np.sum(y * y)


def grow_until(x, W):
    h = x
    k = 0
    while np.sum(h * h) < 100.0:
        h = np.tanh(h @ W) * 2.0 + h
        k = k + 1
    return np.sum(h) + k


def until_small(x):
    s = 0.0
    while True:
        x = np.sin(x) * 0.5
        s = s + x * x
        if np.abs(x) < 1e-3:
            break
    return s


_rng = np.random.default_rng(7)
A0 = _rng.normal(size=(3, 3)) * 0.3
X0 = _rng.normal(size=3)
W0 = np.eye(3) * 0.5 + _rng.normal(size=(3, 3)) * 0.05

WHILE_CASES = [
    (halve, (3.0,), 0),
    (halve, (0.0005,), 0),          # no iteration at all
    (newton_sqrt, (3.0,), 0),
    (newton_sqrt, (0.2,), 0),
    (fixed_point, (X0, A0), 0),
    (fixed_point, (X0, A0), 1),
    (grow_until, (np.full(3, 0.3), W0), 0),
    (grow_until, (np.full(3, 0.3), W0), 1),
    (until_small, (1.3,), 0),
    (until_small, (-0.4,), 0),
]


def _matches_numpy_and_differences(fn, args, argnum, value_rtol=1e-12):
    got = revsrc.grad(fn, argnum, backend="jax")(*args)
    want = revsrc.grad(fn, argnum)(*args)
    assert isinstance(got, jax.Array)
    _close(got, want)
    np.testing.assert_allclose(np.asarray(got), _central(fn, args, argnum), rtol=1e-5,
                               atol=1e-7)
    value, _ = revsrc.value_and_grad(fn, argnum, backend="jax")(*args)
    _close(value, fn(*args), rtol=value_rtol)


@pytest.mark.parametrize("fn,args,argnum", WHILE_CASES)
def test_while_on_traced_values_matches_numpy_and_differences(fn, args, argnum):
    _matches_numpy_and_differences(fn, args, argnum)


def test_while_source_shows_the_lax_loops():
    text = revsrc.source(revsrc.grad(newton_sqrt, backend="jax"), 3.0)
    assert "def _loop1(" in text and "_jaxloops.while_loop(_loop1" in text
    assert "def _loop1_adjoint(" in text and "_jaxloops.reverse_while(" in text
    # deterministic
    assert text == revsrc.source(revsrc.grad(newton_sqrt, backend="jax"), 3.0)


def test_while_forward_mode_and_inside_jit():
    out, tan = revsrc.jvp(newton_sqrt, (3.0,), (1.0,), backend="jax")
    assert float(out) == pytest.approx(np.sqrt(3.0), rel=1e-12)
    assert float(tan) == pytest.approx(0.5 / np.sqrt(3.0), rel=1e-12)
    g = revsrc.grad(fixed_point, backend="jax")
    with jax.enable_x64(True):
        step = jax.jit(lambda x: x - 0.1 * g(x, A0))
        _close(step(X0), X0 - 0.1 * revsrc.grad(fixed_point)(X0, A0))


def test_max_steps_stops_with_e604_and_nan():
    g = revsrc.grad(newton_sqrt, backend="jax", max_steps=3)
    with pytest.raises(errors.JaxStepsExceeded) as info:
        g(1e6)               # Newton from 1e6 needs ~20 steps
    assert info.value.code == "E604" and info.value.filename == __file__
    assert info.value.line == "while np.abs(x * x - a) > 1e-12:"
    assert "max_steps=3" in str(info.value)
    # enough steps: the NumPy path's number
    _close(revsrc.grad(newton_sqrt, backend="jax", max_steps=40)(1e6),
           revsrc.grad(newton_sqrt)(1e6))
    # inside a caller's jit nothing can raise: the value and the gradient are NaN
    vg = revsrc.value_and_grad(newton_sqrt, backend="jax", max_steps=3)
    with jax.enable_x64(True):
        value, grad = jax.jit(vg)(1e6)
    assert np.isnan(float(value)) and np.isnan(float(grad))
    # a loop that saves nothing needs no bound
    _close(revsrc.grad(halve, backend="jax", max_steps=1)(3.0), revsrc.grad(halve)(3.0))
    with pytest.raises(ValueError, match="max_steps"):
        revsrc.grad(halve, max_steps=10)
    with pytest.raises(ValueError, match="max_steps"):
        revsrc.grad(halve, backend="jax", max_steps=0)


def doubles_its_length(x):
    while np.sum(x) < 10.0:
        x = np.concatenate([x, x])
    return np.sum(x)


def collects(x):
    xs = []
    while x < 10.0:
        xs.append(x)
        x = x * 2.0
    return sum(xs)


def keeps_the_last(a):
    x = a
    best = None
    while x > 1e-3:
        x = x * 0.5
        best = x
    if best is None:          # None after zero iterations: zeros in its place would lie
        return a
    return best * a


def none_that_stays(a):
    x = a
    tag = None
    n = 0.0
    while x > 1e-3:
        x = x * 0.5
        n = n + (0.0 if tag is None else 1.0)
    return x * a + n


def test_a_none_before_a_traced_loop_that_stays_none_runs():
    for a in (3.0, 1e-4):
        _close(revsrc.grad(none_that_stays, backend="jax")(a), revsrc.grad(none_that_stays)(a))


@pytest.mark.parametrize("fn,args,line,what", [
    (doubles_its_length, (np.ones(2),), "while np.sum(x) < 10.0:", "changes shape"),
    (collects, (0.5,), "while x < 10.0:", "structure"),
    (keeps_the_last, (1e-4,), "while x > 1e-3:", "None before it gets a value"),
])
def test_loops_jax_cannot_carry_are_refused_with_their_line(fn, args, line, what):
    with pytest.raises(errors.JaxDataDependent) as info:
        revsrc.grad(fn, backend="jax")(*args)
    assert info.value.code == "E602" and what in str(info.value)
    assert info.value.line == line and info.value.filename == __file__
    revsrc.grad(fn)(*args)   # the NumPy path runs it


# ----- long static loops as lax.scan -----

def recurrence(x, n):
    s = 0.0
    for i in range(n):
        x = np.sin(x) * 0.9 + 0.1
        s = s + np.sum(x * x)
    return s


def indexed(x, w):
    s = 0.0
    for i in range(40):
        s = s + np.sum(np.tanh(x * w[i % 4]) * (i + 1))   # the loop variable, traced
    return s


def static_slices(x):
    s = 0.0
    for i in range(40):
        s = s + np.sum(x[: i % 3 + 1] ** 2)   # a slice bound: needs a static i
    return s


@pytest.mark.parametrize("n", [3, 40, 300])
def test_long_static_loops_roll_into_scan(n):
    x = _rng.normal(size=4)
    g = revsrc.grad(recurrence, backend="jax")
    _close(g(x, n), revsrc.grad(recurrence)(x, n))
    if n == 40:
        np.testing.assert_allclose(np.asarray(g(x, n)), _central(recurrence, (x, n), 0),
                                   rtol=1e-5, atol=1e-7)


def test_loop_variable_traced_or_static():
    x, w = _rng.normal(size=3), _rng.normal(size=4)
    for a in (0, 1):
        _close(revsrc.grad(indexed, a, backend="jax")(x, w), revsrc.grad(indexed, a)(x, w))
    # a body that needs a static loop variable unrolls, as before
    _close(revsrc.grad(static_slices, backend="jax")(x), revsrc.grad(static_slices)(x))


_WEIGHTS = {0: 1.0, 1: 2.0, 2: 3.0}


def keyed(x):
    s = 0.0
    for i in range(40):
        s = s + x[0] * _WEIGHTS[i % 3]          # a dict key: needs a static i
    return s


def shaped(x):
    s = 0.0
    for i in range(40):
        s = s + np.sum(np.ones(i % 3 + 1)) * x[0]   # a shape: needs a static i
    return s


def listed(x):
    w = [1.0, 2.0, 3.0]
    s = 0.0
    for i in range(40):
        s = s + x[0] * w[i % 3]                 # a list index: needs a static i
    return s


@pytest.mark.parametrize("fn", [keyed, shaped, listed, static_slices])
def test_every_static_use_of_the_loop_variable_unrolls(fn):
    """JAX says "this needs a concrete value" in several ways (its concretization
    errors, a TypeError or IndexError naming the tracer): each one unrolls."""
    x = _rng.normal(size=3)
    _close(revsrc.grad(fn, backend="jax")(x), revsrc.grad(fn)(x))


def test_other_errors_of_a_lax_body_are_not_taken_for_a_static_use():
    """Only a static use of the loop variable sends a loop back to Python: any other
    error raised while lax traces a body is raised, not hidden by unrolling."""
    from revsrc.backends.jax import load
    loops = load.require().loops

    def broken(i, s):
        raise RuntimeError("a bug of the body")

    def static(i, s):
        return (s + len(range(i)),), ()

    with pytest.raises(RuntimeError, match="a bug of the body"):
        loops.for_loop(broken, 0, 40, 1, (0.0,), [], 1)
    with pytest.raises(RuntimeError, match="a bug of the body"):
        loops.reverse_loop(broken, 0, 40, 1, [], (0.0,), 1)
    assert loops.for_loop(static, 0, 40, 1, (0.0,), [], 1) is None
    assert loops.reverse_loop(lambda k, s: (s + len(range(k)),), 0, 40, 1, [], (0.0,),
                              1) is None


def test_rolled_compile_time_does_not_grow_with_trip_count():
    import time
    x = _rng.normal(size=4)
    times = {}
    for n in (40, 1000):
        g = revsrc.grad(recurrence, backend="jax")
        t0 = time.perf_counter()
        jax.block_until_ready(g(x, n))
        times[n] = time.perf_counter() - t0
    # unrolled, 1000 steps took ~25x the 40-step compile; rolled, they are alike
    assert times[1000] < 4 * times[40] + 1.0, times


# ----- for loops with a break on a traced value -----

def newton(a):
    x = a
    for i in range(50):
        dx = (x * x - a) / (2 * x)
        x = x - dx
        if abs(dx) < 1e-12:
            break
    return x


def weighted(x, w):
    s = 0.0
    for i in range(6):
        x = np.tanh(x * w[i]) + 0.3      # the adjoint needs the loop variable back
        s = s + x * i
        if s > 2.0:
            break
    return s


def skips(x):
    s = 0.0
    for k in range(2, 40, 3):
        x = np.sin(x) + 0.5
        if x < 0.9:
            continue
        s = s + x * x
        if s > 4.0:
            break
    return s + x


def returns_early(x):
    for i in range(20):
        x = x * 1.3 - 0.1
        if x > 5.0:
            return x * x
    return x


def fixed_point_for(x, A):
    y = x
    for i in range(100):
        y_new = np.tanh(A @ y + x)
        err = np.max(np.abs(y_new - y))
        y = y_new
        if err < 1e-10:
            break
    return np.sum(y * y)


def never_breaks(x):
    for i in range(5):
        x = x * 0.5
        if x > 100.0:
            break
    return x * x


def inner_break(x, w):
    s = 0.0
    for k in range(3):                   # unrolled: the inner loop runs three times
        for j in range(40):
            x = np.sin(x * w[k]) + 0.9
            s = s + x
            if s > 10.0 * (k + 1):
                break
    return s


def while_around_break(x):
    t = 0.0
    while x < 20.0:
        for j in range(10):
            x = x * 1.1 + 0.05
            if x > 3.0 + j:
                break
        t = t + x
    return t


def while_in_for(x, w):
    s = 0.0
    for k in range(3):
        while True:
            x = np.sin(x * w[k]) + 0.9
            s = s + x
            if s > 10.0 * (k + 1):
                break
    return s


W6 = np.linspace(0.5, 2.0, 6)
W3 = np.array([1.0, 1.2, 0.8])

BREAK_CASES = [
    (newton, (2.0,), 0),
    (newton, (0.3,), 0),
    (weighted, (0.4, W6), 0),
    (weighted, (0.4, W6), 1),
    (skips, (0.7,), 0),
    (returns_early, (1.0,), 0),
    (returns_early, (0.2,), 0),     # runs to the end of its range
    (fixed_point_for, (X0, A0), 0),
    (fixed_point_for, (X0, A0), 1),
    (never_breaks, (3.0,), 0),
    (inner_break, (0.5, W3), 0),
    (inner_break, (0.5, W3), 1),
    (while_around_break, (0.5,), 0),
    (while_in_for, (0.5, W3), 0),
]


@pytest.mark.parametrize("fn,args,argnum", BREAK_CASES)
def test_for_with_a_traced_break_matches_numpy_and_differences(fn, args, argnum):
    _matches_numpy_and_differences(fn, args, argnum, value_rtol=1e-14)


def test_for_break_source_shows_the_lax_loops():
    text = revsrc.source(revsrc.grad(newton, backend="jax"), 2.0)
    assert "_jaxloops.for_break(_loop1, i, 0, 50, 1," in text
    assert "def _loop1_adjoint(" in text and "_jaxloops.reverse_while(" in text
    assert "max_steps" not in text           # the range bounds the loop
    assert text == revsrc.source(revsrc.grad(newton, backend="jax"), 2.0)
    # the loop variable back in the adjoint: counted down from the last iteration
    text = revsrc.source(revsrc.grad(weighted, 1, backend="jax"), 0.4, W6)
    assert "_jaxloops.reverse_while(_loop1_adjoint, _m1, -1, -1," in text


def test_for_break_forward_mode_inside_jit_and_vmap():
    for fn, args in ((newton, (2.0,)), (skips, (0.7,)), (weighted, (0.4, W6))):
        tangents = tuple(np.ones_like(a) if np.ndim(a) else 1.0 for a in args)
        out, tan = revsrc.jvp(fn, args, tangents, backend="jax")
        want_out, want_tan = revsrc.jvp(fn, args, tangents)
        _close(out, want_out)
        _close(tan, want_tan)
    g = revsrc.grad(newton, backend="jax")
    xs = np.array([2.0, 3.0, 0.5])
    with jax.enable_x64(True):
        _close(jax.jit(g)(2.0), 0.5 / np.sqrt(2.0))
        _close(jax.vmap(g)(xs), [revsrc.grad(newton)(x) for x in xs])


def sliced_break(x):
    s = 0.0
    for i in range(1, 8):
        s = s + np.sum(x[:i] ** 2)      # a slice bound: needs a static i
        if s > 3.0:
            break
    return s


def test_a_traced_break_in_a_loop_that_needs_a_static_variable_is_refused():
    x = np.linspace(0.3, 1.0, 8)
    with pytest.raises(errors.JaxDataDependent) as info:
        revsrc.grad(sliced_break, backend="jax")(x)
    assert info.value.code == "E602" and info.value.filename == __file__
    assert info.value.line == "for i in range(1, 8):"
    assert "not an array or number" in str(info.value)
    revsrc.grad(sliced_break)(x)     # the NumPy path runs it


# ----- second derivatives through traced loops -----

def _central_grad(fn, args, argnum, h=1e-5):
    g = revsrc.grad(fn, argnum)
    x = np.asarray(args[argnum], dtype=float)
    cols = []
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        a_up, a_down = list(args), list(args)
        a_up[argnum] = up if x.ndim else float(up)
        a_down[argnum] = down if x.ndim else float(down)
        cols.append((np.asarray(g(*a_up)) - np.asarray(g(*a_down))) / (2 * h))
    return np.stack(cols, axis=-1) if x.ndim else cols[0]


HESSIAN_CASES = [
    (newton_sqrt, (3.0,), 0),
    (until_small, (1.3,), 0),
    (fixed_point, (X0, A0), 0),
    (newton, (2.0,), 0),
    (weighted, (0.4, W6), 1),
    (skips, (0.7,), 0),
    (fixed_point_for, (X0, A0), 0),
]


@pytest.mark.parametrize("fn,args,argnum", HESSIAN_CASES)
def test_hessian_through_traced_loops(fn, args, argnum):
    """Forward mode over the gradient: the forward loop saves values and their
    tangents, the adjoint's loop restores them, both as lax loops."""
    got = revsrc.hessian(fn, argnum, backend="jax")(*args)
    want = revsrc.hessian(fn, argnum)(*args)
    _close(got, want)
    np.testing.assert_allclose(np.asarray(got), _central_grad(fn, args, argnum),
                               rtol=1e-5, atol=1e-6)
    t = np.ones_like(args[argnum]) if np.ndim(args[argnum]) else 1.0
    primals = tuple(args)
    tangents = tuple(t if i == argnum else
                     (np.zeros_like(a) if np.ndim(a) else 0.0) for i, a in enumerate(args))
    _close(revsrc.hvp(fn, primals, tangents, argnum, backend="jax"),
           revsrc.hvp(fn, primals, tangents, argnum))


def test_hessian_of_a_while_past_max_steps_is_e604():
    with pytest.raises(errors.JaxStepsExceeded) as info:
        revsrc.hessian(slow_growth, backend="jax")(1.0)
    assert info.value.code == "E604" and info.value.filename == __file__
    assert info.value.line == "while x < 1e6:"


def slow_growth(x):
    # ~1390 steps from 1.0: past the default bound
    s = 0.0
    while x < 1e6:
        x = x * 1.01
        s = s + np.sin(x)
    return s


def test_reverse_over_reverse_of_a_traced_loop_is_refused():
    """grad of a gradient puts the inner adjoint's loop, which restores, in a sweep that
    saves: printed as Python's loop, its traced trip count is refused at the loop."""
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(revsrc.grad(newton_sqrt), backend="jax")(3.0)
    assert info.value.code == "E603" and info.value.filename == __file__
    assert info.value.line == "while np.abs(x * x - a) > 1e-12:"
    # forward over reverse is the way
    _close(revsrc.hessian(newton_sqrt, backend="jax")(3.0),
           revsrc.grad(revsrc.grad(newton_sqrt))(3.0))
