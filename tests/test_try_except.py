"""try/except/else/finally: the derivative follows the path the run took.

Each operation of the try body is tested for the exceptions the handlers catch before
it runs (revsrc/frontend/lower/trying.py); the statements that completed, the handler
that ran (or ``else``) and ``finally`` are differentiated, nothing else. Checked
against central differences away from the points where the path changes, the value
against the plain call, and the refusals.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads, check_jvp


def divide_or_square(a, b):
    try:
        y = a / b
    except ZeroDivisionError:
        y = a * a
    return y * 3.0


def log_or_negate(x):
    try:
        return math.log(x) * x
    except ValueError:
        return -x


def cholesky_or_frobenius(A):
    try:
        L = np.linalg.cholesky(A)
        s = np.sum(L)
    except np.linalg.LinAlgError:
        s = np.sum(A * A)
    else:
        s = s * 2.0
    finally:
        s = s + np.sum(A)
    return s


def partly_done(a, b):
    y = a
    try:
        y = y * 2.0
        z = y / b          # raises: y keeps the doubled value, z is never made
        y = y + z
    except (ZeroDivisionError, OverflowError):
        y = y - 1.0
    return y


def raises_itself(x):
    try:
        if x < 0.0:
            raise ValueError("negative")
        y = math.sqrt(x)
    except ValueError:
        y = -x * 0.5
    return y


def _reciprocal(a):
    return 1.0 / a


def in_a_helper(x, y):
    try:
        r = _reciprocal(x - y) * x
    except ZeroDivisionError:
        r = x + y
    return r


def in_a_loop(x):
    s = 0.0
    for i in range(3):
        try:
            s = s + 1.0 / (x - i)
        except ZeroDivisionError:
            s = s + x
    return s


def names_it_without_reading_it(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError as unused:
        y = x
    return y


def two_handlers(x, k):
    try:
        v = [x, 2.0 * x][k]
        w = math.sqrt(v)
    except IndexError:
        w = x * x
    except ValueError:
        w = -x
    return w


@pytest.mark.parametrize("f,args", [
    (divide_or_square, (1.5, 2.0)), (log_or_negate, (2.0,)), (log_or_negate, (-2.0,)),
    (cholesky_or_frobenius, (np.eye(2) * 2.0 + 0.1,)),
    (cholesky_or_frobenius, (np.array([[1.0, 2.0], [2.0, 1.0]]),)),
    (partly_done, (1.5, 2.0)), (raises_itself, (4.0,)), (raises_itself, (-4.0,)),
    (in_a_helper, (2.0, 1.0)), (in_a_loop, (0.5,)), (two_handlers, (2.0, 1)),
    (two_handlers, (-2.0, 1)), (two_handlers, (2.0, 5)),
    (names_it_without_reading_it, (0.5,)),
], ids=["no-raise", "log", "log-caught", "cholesky", "cholesky-caught", "partly",
        "raise-not-taken", "raise-taken", "helper", "loop", "handler-none",
        "handler-2", "handler-1", "as-unread"])
def test_the_path_taken_matches_finite_differences(f, args):
    check_grads(f, args, argnums=0)
    check_jvp(f, args, argnums=(0,))
    value, _ = revsrc.value_and_grad(f)(*args)
    assert value == f(*args)


@pytest.mark.parametrize("f,args,want", [
    # y = a * a (the handler's path): d(3 a^2)/da, and no gradient for b
    (divide_or_square, (1.5, 0.0), (9.0, 0.0)),
    # the doubling completed before the raise: y = 2a - 1
    (partly_done, (1.5, 0.0), (2.0, 0.0)),
    (in_a_helper, (2.0, 2.0), (1.0, 1.0)),
])
def test_where_the_exception_was_raised_only_the_completed_statements_count(f, args, want):
    value, g = revsrc.value_and_grad(f, argnums=(0, 1))(*args)
    assert value == f(*args)
    assert g == want


def test_inside_a_loop_each_iteration_takes_its_own_path():
    # x = 1.0: iteration 1 divides by zero and takes the handler
    value, g = revsrc.value_and_grad(in_a_loop)(1.0)
    assert value == in_a_loop(1.0)
    assert g == pytest.approx(-1.0 / 1.0 + 1.0 - 1.0 / 1.0)


def test_an_uncaught_exception_propagates_as_in_the_plain_call():
    # an exception none of the clauses names is raised, unchanged
    def only_zero_division(x):
        try:
            y = math.log(x)
        except ZeroDivisionError:
            y = x
        return y
    with pytest.raises(ValueError, match="math domain error"):
        revsrc.grad(only_zero_division)(-1.0)


# ----- refused, at the user's line -----

def names_the_exception(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError as exc:
        y = float(len(str(exc)))
    return y


def loop_in_the_body(x):
    try:
        s = 0.0
        for i in range(3):
            s = s + 1.0 / (x - i)
    except ZeroDivisionError:
        s = x
    return s


def returns_before_finally(x):
    try:
        return 1.0 / x
    finally:
        x = 0.0


def item_assignment_in_the_body(x):
    a = np.zeros(2)
    try:
        a[0] = 1.0 / x[0]
    except ZeroDivisionError:
        pass
    return np.sum(a * x)


def random_draw_in_the_body(x):
    try:
        y = x * np.random.randn()
    except ValueError:
        y = x
    return y


@pytest.mark.parametrize("f,arg,line,what", [
    (names_the_exception, 1.0, 3, "as exc"),
    (loop_in_the_body, 0.5, 3, "loop inside a try body"),
    (returns_before_finally, 1.0, 2, "finally"),
    (item_assignment_in_the_body, np.ones(2), 3, "item assignment"),
    (random_draw_in_the_body, 1.0, 2, "may not be run twice"),
])
def test_what_the_lowering_cannot_follow_is_refused(f, arg, line, what):
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(f)(arg)
    err = info.value
    assert err.code == "E101" and what in err.message
    assert err.lineno == f.__code__.co_firstlineno + line and err.hint
