"""Front-end crashes fixed: programs Python runs that revsrc used to stop on with an
internal exception. Each is checked against the plain call and central differences,
or where revsrc cannot follow it, against a coded refusal at the user's line.

- ``return``/``break``/``continue`` inside ``with np.errstate(...)``: the block is
  left on that path too, in the forward sweep and in the adjoint (was an
  UnboundLocalError on the adjoint's errstate token).
- lambdas made in a comprehension with defaults (``lambda t, k=k: t ** k``): a static
  list of functions, each with its own default (was a NameError on ``k``).
- ``s += x @ x`` with ``s`` a float, in a loop (issue 22): an alias of ``s`` made
  only after the write does not make the write in place (was a TypeError: 'float'
  object is not subscriptable).
"""
import re

import numpy as np
import pytest

import revsrc

H = 1e-6


def central(f, x):
    """(f(x + h) - f(x - h)) / 2h, item by item."""
    if np.ndim(x) == 0:
        return (f(x + H) - f(x - H)) / (2 * H)
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = H
        g[i] = (f(x + e) - f(x - e)) / (2 * H)
    return g


def check(f, x, backend=None):
    """revsrc's value and gradient against the plain call and central differences
    (the scalar engine may instead refuse a program with arrays in it, with E501)."""
    settings = np.geterr()
    kw = {} if backend is None else {"backend": backend}
    try:
        value, g = revsrc.value_and_grad(f, **kw)(x)
    except revsrc.RevsrcError as exc:
        if backend == "engine" and exc.code == "E501":
            return
        raise
    np.testing.assert_allclose(value, f(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, central(f, x), rtol=1e-6, atol=1e-6)
    assert np.geterr() == settings   # every errstate block was left


def refused(f, x, code, line_text):
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.grad(f)(x)
    exc = info.value
    assert exc.code == code, str(exc)
    assert line_text in str(exc), str(exc)
    assert not re.search(r"\b_[a-z]+\d+\b", exc.message), exc.message
    return exc


# ---- 1. leaving an errstate block by return, break or continue ------------------

def errstate_return(x):
    with np.errstate(divide="ignore"):
        return np.sum(x / 2.0)


def errstate_return_in_branch(x):
    with np.errstate(divide="ignore"):
        if np.sum(x) > 0:
            return np.sum(x * x)
        y = x * 3.0
    return np.sum(y)


def errstate_around_loop_break(x):
    s = 0.0
    with np.errstate(divide="ignore"):
        for i in range(5):
            s = s + np.sum(x * x) * i
            if i == 2:
                break
    return s


def errstate_in_loop_break_continue(x):
    s = 0.0
    for i in range(5):
        with np.errstate(divide="ignore", invalid="ignore"):
            s = s + np.sum(np.sin(x)) * (i + 1)
            if i == 3:
                break
            if i == 1:
                continue
            s = s * 1.5
    return s


def errstate_nested_return_in_loop(x):
    s = 0.0
    with np.errstate(divide="ignore"):
        with np.errstate(invalid="ignore"):
            for i in range(4):
                with np.errstate(over="ignore"):
                    s = s + np.sum(np.sin(x))
                    if s > 1.5:
                        return s * 2.0
    return s


def errstate_while_break(x):
    s = 0.0
    i = 0
    while True:
        with np.errstate(divide="ignore"):
            s = s + np.sum(x * x)
            i += 1
            if i > 3:
                break
    return s


def _helper_returning_in_errstate(x):
    with np.errstate(divide="ignore"):
        if x[0] > 0:
            return np.sum(x * x)
        return np.sum(x)


def errstate_return_in_inlined_helper(x):
    return _helper_returning_in_errstate(x) + np.sum(np.log(x))


def errstate_scalar_return(x):
    with np.errstate(divide="ignore"):
        if x > 0.0:
            return x * x / 2.0
    return x


ERRSTATE = [errstate_return, errstate_return_in_branch, errstate_around_loop_break,
            errstate_in_loop_break_continue, errstate_nested_return_in_loop,
            errstate_while_break, errstate_return_in_inlined_helper]


@pytest.mark.parametrize("backend", [None, "python"])
@pytest.mark.parametrize("f", ERRSTATE, ids=lambda f: f.__name__)
def test_errstate_left_by_return_break_continue(f, backend):
    check(f, np.array([0.3, 0.8]), backend)


@pytest.mark.parametrize("backend", [None, "python"])
def test_errstate_return_scalar(backend):
    check(errstate_scalar_return, 0.7, backend)


def test_errstate_return_settings_inside():
    """The settings are back as they were after a return from inside the block."""
    before = np.geterr()
    revsrc.grad(errstate_return)(np.array([1.0, 0.0]))
    assert np.geterr() == before


# ---- 2. lambdas made in a comprehension ------------------------------------------

def lambdas_in_comprehension(x):
    fs = [lambda t, k=k: t ** k for k in range(1, 4)]
    return sum(g(x) for g in fs)


def lambdas_in_comprehension_loop(x):
    fs = [lambda t, k=k, c=2.0: c * t ** k for k in range(1, 4)]
    s = 0.0
    for g in fs:
        s = s + g(x)
    return s


def lambdas_in_generator_summed(x):
    return sum([g(x) for g in (lambda t, k=k: np.sin(k * t) for k in range(3))])


@pytest.mark.parametrize("backend", [None, "python"])
@pytest.mark.parametrize("f", [lambdas_in_comprehension, lambdas_in_comprehension_loop,
                               lambdas_in_generator_summed], ids=lambda f: f.__name__)
def test_lambdas_made_in_comprehension(f, backend):
    check(f, 0.7, backend)


def lambdas_default_from_array(x):
    fs = [lambda t, c=c: t * c for c in x]
    return sum(g(x[0]) for g in fs)


def lambdas_late_binding(x):
    fs = [lambda t: t ** k for k in range(1, 4)]
    return sum(g(x) for g in fs)


def test_lambda_default_not_known_refused():
    exc = refused(lambdas_default_from_array, np.array([0.5, 1.5]), "E101",
                  "fs = [lambda t, c=c: t * c for c in x]")
    assert "default" in exc.message


def test_lambda_reading_loop_variable_refused():
    refused(lambdas_late_binding, 0.7, "E101", "fs = [lambda t: t ** k for k in range(1, 4)]")


# ---- 3. augmented assignment of an array-valued result into a float (issue 22) ---

def aug_add_matmul_loop(a):
    x = np.array([a, 2.0 * a])
    s = 0.0
    for i in range(3):
        s += x @ x
    return s


def aug_sub_matmul_loop(a):
    x = np.array([a, 2.0 * a])
    y = np.array([np.sin(a), a * a])
    s = 1.0
    for i in range(3):
        s -= x @ y
    return s


def aug_mul_matmul_loop(a):
    x = np.array([a, 0.5 * a])
    s = 1.0
    for i in range(3):
        s *= x @ x
    return s


def aug_add_dot_loop(a):
    x = np.array([a, 2.0 * a])
    s = 0.0
    for i in range(3):
        s += np.dot(x, x)
    return s


def aug_add_sum_loop(a):
    x = np.array([a, 2.0 * a])
    s = 0.0
    for i in range(3):
        s += x.sum()
    return s


def aug_add_matmul(a):
    x = np.array([a, 2.0 * a])
    s = 0.0
    s += x @ x
    return s


def aug_sub_matmul(a):
    x = np.array([a, 2.0 * a])
    y = np.array([np.sin(a), a * a])
    s = 1.0
    s -= x @ y
    return s


def aug_mul_matmul(a):
    x = np.array([a, 0.5 * a])
    s = 2.0
    s *= x @ x
    return s


def aug_add_dot(a):
    x = np.array([a, 2.0 * a])
    s = 0.0
    s += np.dot(x, x)
    return s


def aug_add_sum(a):
    x = np.array([a, 2.0 * a])
    s = 0.0
    s += x.sum()
    return s


def aug_kalman_like(a):
    """A Kalman filter's log-likelihood: innovations' squared norms added up."""
    xs = np.array([[a, 1.0], [2.0 * a, a * a], [np.cos(a), 0.5]])
    ll = 0.0
    for t in range(3):
        v = xs[t] - np.array([0.1, 0.2])
        ll += -0.5 * (v @ v)
    return ll


AUG = [aug_add_matmul_loop, aug_sub_matmul_loop, aug_mul_matmul_loop, aug_add_dot_loop,
       aug_add_sum_loop, aug_add_matmul, aug_sub_matmul, aug_mul_matmul, aug_add_dot,
       aug_add_sum, aug_kalman_like]


@pytest.mark.parametrize("backend", [None, "python", "engine"])
@pytest.mark.parametrize("f", AUG, ids=lambda f: f.__name__)
def test_augmented_assign_of_array_result_into_float(f, backend):
    check(f, 0.6, backend)


def aug_alias_in_loop(a):
    s = np.array([a, 2.0 * a])
    t = s
    out = 0.0
    for i in range(3):
        s += np.array([a * a, 1.0])
        t = s
        out = out + t[0] * t[1]
    return out + np.sum(t)


def aug_alias_before(a):
    s = np.array([a, 2.0 * a])
    t = s
    s += np.array([a * a, 1.0])   # in place: t sees it
    u = s
    return np.sum(t * u) + t[0]


def test_augmented_assign_alias_before_still_in_place():
    check(aug_alias_before, 0.6, "python")


def test_augmented_assign_alias_in_loop_still_refused():
    """An alias made after the write but inside the loop sees the next write: not
    taken for a rebinding (refused as before)."""
    refused(aug_alias_in_loop, 0.6, "E404", "s += np.array([a * a, 1.0])")
