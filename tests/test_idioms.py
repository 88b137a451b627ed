"""The Python idioms of everyday numerical code, inside differentiated functions:
guards, f-strings, casts, iteration helpers, lambdas and functions held in names.

Each is checked against central differences in reverse mode and, where forward mode
applies, in forward mode too; the function's own value must be what Python computes.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads, check_jvp

RNG = np.random.default_rng(17)


def check_both(f, args, argnums=0, kwargs=None, jvp=True):
    """Reverse and forward mode against central differences, and the value."""
    check_grads(f, args, argnums, kwargs=kwargs)
    value, _ = revsrc.value_and_grad(f, argnums)(*args, **(kwargs or {}))
    assert value == pytest.approx(f(*args, **(kwargs or {})), rel=1e-12, abs=1e-14)
    if jvp and not kwargs:
        nums = argnums if isinstance(argnums, tuple) else (argnums,)
        check_jvp(f, args, nums)


# ----- guards ---------------------------------------------------------------

def guarded_loss(pred, target):
    if pred.ndim != 1:
        raise ValueError(f"expected a 1-D prediction, got shape {pred.shape}")
    if not np.all(np.isfinite(pred)):
        raise FloatingPointError("non-finite prediction")
    assert pred.shape == target.shape, f"shape mismatch: {pred.shape} vs {target.shape}"
    return np.sum((pred - target) ** 2)


def test_raise_in_an_input_check_runs_as_in_python():
    p, t = RNG.normal(size=4), RNG.normal(size=4)
    check_both(guarded_loss, (p, t))
    with pytest.raises(ValueError, match=r"expected a 1-D prediction, got shape \(2, 2\)"):
        revsrc.grad(guarded_loss)(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(FloatingPointError, match="non-finite prediction"):
        revsrc.grad(guarded_loss)(np.array([1.0, np.nan]), np.ones(2))
    with pytest.raises(AssertionError, match=r"shape mismatch: \(4,\) vs \(3,\)"):
        revsrc.grad(guarded_loss)(p, np.ones(3))


def scalar_guard(x, lo=0.0):
    if x < lo:
        raise ValueError
    if x > 100.0:
        raise OverflowError("too large", x)
    return math.sqrt(x) * x


def test_raise_of_a_class_and_with_several_arguments():
    check_both(scalar_guard, (2.5,))
    with pytest.raises(ValueError) as info:
        revsrc.grad(scalar_guard)(-1.0)
    assert info.value.args == ()
    with pytest.raises(OverflowError) as info:
        revsrc.grad(scalar_guard)(200.0)
    assert info.value.args == ("too large", 200.0)


def raise_from(x):
    if x < 0.0:
        raise ValueError("negative") from ZeroDivisionError("cause")
    return x * x


def test_raise_from_keeps_its_cause():
    assert revsrc.grad(raise_from)(3.0) == 6.0
    with pytest.raises(ValueError) as info:
        revsrc.grad(raise_from)(-3.0)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def raise_in_every_other_branch(x, mode):
    if mode == "square":
        y = x * x
    elif mode == "cube":
        y = x * x * x
    else:
        raise ValueError(f"unknown mode {mode!r}")
    return y


def test_a_variable_left_unset_on_the_raising_branch():
    check_both(raise_in_every_other_branch, (1.5, "cube"))
    assert revsrc.grad(raise_in_every_other_branch)(1.5, "square") == 3.0
    with pytest.raises(ValueError, match="unknown mode 'quartic'"):
        revsrc.grad(raise_in_every_other_branch)(1.5, "quartic")


def bare_raise(x):
    if x < 0.0:
        raise  # noqa: PLE0704
    return x


def test_a_bare_raise_is_refused_at_its_line():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(bare_raise)(1.0)
    assert info.value.code == "E101"
    assert info.value.lineno == bare_raise.__code__.co_firstlineno + 2
    assert "raise ValueError" in info.value.hint


def lazy_message(x):
    assert x > 0.0, f"{1 / 0}"   # only evaluated when the test fails
    return x * 3.0


def test_an_assert_message_is_computed_only_when_the_assert_fails():
    assert revsrc.grad(lazy_message)(2.0) == 3.0
    with pytest.raises(ZeroDivisionError):
        revsrc.grad(lazy_message)(-2.0)


def fstrings(x, n):
    label = f"{n:03d}-{n!r}-{{{x:.{n}f}}}"
    assert len(label) > 3, f"bad label {label}"
    return x * len(label)


def test_fstrings_format_as_python_does():
    x = 1.25
    assert revsrc.value_and_grad(fstrings)(x, 2) == (fstrings(x, 2), len("002-2-{1.25}"))
    check_grads(fstrings, (x, 3))


def test_generated_code_reads_like_the_guard():
    text = revsrc.source(revsrc.grad(guarded_loss), np.ones(3), np.ones(3))
    assert "raise ValueError(" in text
    assert "raise FloatingPointError('non-finite prediction')" in text
    assert "'expected a 1-D prediction, got shape {0}'.format(" in text
    assert "raise AssertionError(" in text


# ----- casts ------------------------------------------------------------------

def casts(x):
    a = np.float64(x)
    n = np.int64(x)
    return a * a * n + float(x) * int(x)


def test_float_casts_pass_the_derivative_and_int_casts_none():
    check_both(casts, (2.5,))
    assert revsrc.grad(casts)(2.5) == 2 * 2.5 * 2 + 2
    assert revsrc.grad(casts)(2.5) == revsrc.grad(casts, backend="python")(2.5)


def casts_of_arrays(x):
    return np.sum(np.float64(x) ** 2 + np.int64(x))


def test_casts_of_arrays():
    x = np.array([1.5, -2.25, 3.5])
    check_both(casts_of_arrays, (x,))
    g = revsrc.grad(casts_of_arrays)(x.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x)


# ----- iteration ----------------------------------------------------------------

def enumerate_zip(W, X, targets, task_weights):
    preds = X @ W
    total = 0.0
    for k, (col, tw) in enumerate(zip(targets.T, task_weights)):
        total = total + tw * np.mean((preds[:, k] - col) ** 2) / (k + 1)
    return total


def test_enumerate_of_zip():
    W, X, T = RNG.normal(size=(3, 2)), RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2))
    check_both(enumerate_zip, (W, X, T, [0.5, 2.0]))


def many_iterations(x, ys, zs):
    t = 0.0
    for a, b, c in zip(x, ys, zs):             # zip of three
        t = t + a * b * c
    for i, y in enumerate(reversed(ys), 1):    # reversed list, enumerate from 1
        t = t + i * y * x[0]
    for y in reversed(x):                      # reversed array
        t = t * 0.5 + y
    for j, (a, (b, c)) in enumerate(zip(x, zip(ys, reversed(range(3))))):
        t = t + j * a * b * c
    for pair in zip(x, zs):                    # one name for the pair
        t = t + pair[0] * pair[1]
    for v in reversed(range(1, 6, 2)):
        t = t + v * x[1]
    return t


def test_zip_enumerate_reversed_nested():
    x = np.array([1.0, 2.0, 3.0])
    check_both(many_iterations, (x, [0.5, 1.5, 2.5], (3.0, -1.0, 0.25, 9.0)))


def iterates_a_list_it_rebinds(x):
    xs = [x, 2.0 * x]
    for v in xs:
        xs = [v * v]
    return xs[0]


def test_the_loop_walks_the_sequence_it_started_with():
    check_both(iterates_a_list_it_rebinds, (1.5,))


# ----- functions held in names ------------------------------------------------------

def inner_lambdas(w, X, y, alpha=0.1):
    act = lambda z: np.where(z > 0, z, alpha * (np.exp(z) - 1))  # noqa: E731
    sq = lambda r: r * r  # noqa: E731
    return np.mean(sq(act(X @ w) - y))


def test_lambdas_defined_and_called_inside():
    w, X, y = RNG.normal(size=3), RNG.normal(size=(4, 3)), RNG.normal(size=4)
    check_both(inner_lambdas, (w, X, y))
    text = revsrc.source(revsrc.grad(inner_lambdas), w, X, y)
    assert "act_ret" in text and "sq_ret" in text    # named after the lambdas


def lambda_with_defaults_and_a_function_name(x):
    act = math.tanh
    h = lambda a, b=2.0: a * b + act(a)  # noqa: E731
    return h(x) + h(x, b=3.0)


def test_a_lambda_with_defaults_calling_a_function_held_in_a_name():
    check_both(lambda_with_defaults_and_a_function_name, (0.3,))
    assert revsrc.disassemble(revsrc.grad(lambda_with_defaults_and_a_function_name), 0.3)


def reduce_with(a, reduce=np.sum):
    return reduce(a * a)


def calls_its_argument(x, fn):
    return fn(x) + fn(2.0 * x)


def _square(v):
    return v * v


def test_function_valued_arguments_and_defaults():
    a = np.array([1.0, 2.0, 3.0])
    check_both(reduce_with, (a,))
    check_both(reduce_with, (a, np.mean))
    np.testing.assert_allclose(revsrc.grad(reduce_with)(a, reduce=np.max), [0.0, 0.0, 6.0])
    check_both(calls_its_argument, (1.5, _square))
    check_both(calls_its_argument, (1.5, math.sin))
    assert revsrc.grad(calls_its_argument)(1.5, _square) == 15.0
    # one program per function passed
    df = revsrc.grad(calls_its_argument)
    assert df(1.5, math.sin) == pytest.approx(math.cos(1.5) + 2 * math.cos(3.0))
    assert df(1.5, math.cos) == pytest.approx(-math.sin(1.5) - 2 * math.sin(3.0))


def rebinds_a_function(x, flag):
    act = math.tanh
    if flag:
        act = math.sin
    return act(x)


def lambda_as_argument(x):
    scale = 2.0 * x
    m = map(lambda v: v * scale, [x, x])
    return sum(m)


def map_of_a_plain_lambda(x):
    return sum(map(lambda v: v * v, [x, x]))


def test_a_lambda_reading_only_its_parameters_is_a_function_value():
    # map read at once is the comprehension it stands for (tests/test_library_calls.py)
    assert revsrc.grad(map_of_a_plain_lambda)(0.5) == 2.0


@pytest.mark.parametrize("fn,line", [(rebinds_a_function, 1), (lambda_as_argument, 2)])
def test_functions_revsrc_cannot_pin_down_are_refused(fn, line):
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(fn)(0.5, True) if fn is rebinds_a_function else revsrc.grad(fn)(0.5)
    assert info.value.code == "E101"
    assert info.value.lineno == fn.__code__.co_firstlineno + line
    assert info.value.hint


# ----- context managers -----------------------------------------------------------------

def entropy_with_errstate(logits):
    p = np.exp(logits) / np.sum(np.exp(logits))
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.log(p)
        q = np.where(p > 0, p * logp, 0.0)
    return -np.sum(q)


def test_errstate_covers_the_block_and_its_adjoint():
    x = np.array([0.1, -0.3, 2.0])
    check_both(entropy_with_errstate, (x,))
    text = revsrc.source(revsrc.grad(entropy_with_errstate), x)
    enters = [i for i, line in enumerate(text.splitlines()) if "errstate_enter" in line]
    exits = [i for i, line in enumerate(text.splitlines()) if "errstate_exit" in line]
    assert len(enters) == 2 and len(exits) == 2
    assert enters[0] < exits[0] < enters[1] < exits[1]   # the forward block, the adjoint's
    # p underflows to 0: log(0) warns nowhere, and the settings are NumPy's own afterwards
    before = np.geterr()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        revsrc.grad(entropy_with_errstate)(np.array([0.1, -1000.0, 2.0]))
    assert np.geterr() == before


def raising_errstate(x):
    with np.errstate(all="raise"):
        y = np.sum(np.log(x) * x)
    return y


def test_errstate_settings_are_restored_after_an_error_inside():
    before = np.geterr()
    with pytest.raises(FloatingPointError):
        revsrc.value_and_grad(raising_errstate)(np.array([-1.0, 2.0]))
    assert np.geterr() == before
    with pytest.raises(FloatingPointError):
        revsrc.jvp(raising_errstate, (np.array([-1.0, 2.0]),), (np.ones(2),))
    assert np.geterr() == before


def opens_a_file(x):
    with open("/dev/null") as fh:
        fh.read()
    return x


def test_other_context_managers_are_refused():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(opens_a_file)(1.0)
    assert info.value.lineno == opens_a_file.__code__.co_firstlineno + 1
    assert "np.errstate" in str(info.value)


def uses_try(x):
    try:
        y = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        y = x
    return np.sum(y)


def test_try_follows_the_path_the_run_took():
    # the factorization fails on an indefinite matrix: the handler's path is
    # differentiated (tests/test_try_except.py has the rest)
    check_both(uses_try, (np.eye(2) * 2.0 + 0.1,))
    check_both(uses_try, (np.array([[1.0, 2.0], [2.0, 1.0]]),))


# ----- library functions without rules --------------------------------------------------------

def calls_scipy_sqrtm(A, b):
    import scipy.linalg
    c = scipy.linalg.sqrtm(A)
    return np.sum(c @ b)


def calls_statistics(x):
    import statistics
    return statistics.fmean([x, 2.0 * x])


@pytest.mark.parametrize("f,args,line,name", [
    (calls_scipy_sqrtm, (np.eye(3) * 2.0, np.ones(3)), 2, "sqrtm"),
    (calls_statistics, (1.0,), 2, "fmean"),
])
def test_a_library_function_revsrc_cannot_transform_is_refused_at_the_users_line(
        f, args, line, name):
    pytest.importorskip("scipy")
    with pytest.raises(errors.NoRule) as info:
        revsrc.grad(f)(*args)
    err = info.value
    assert err.code == "E202"
    assert err.filename == __file__ and err.lineno == f.__code__.co_firstlineno + line
    assert name in err.message and f"revsrc.defvjp({name})" in err.hint


# ----- named results -------------------------------------------------------------------------

def named_results(a):
    s = a + a.T
    r = np.linalg.eigh(s)
    u = np.linalg.svd(a)
    return (np.sum(r.eigenvalues ** 3) + np.sum(np.abs(r.eigenvectors[:, 0]))
            + np.sum(u.S) + np.sum(u.U[:, 0] ** 2 * u.Vh[0]) + np.linalg.slogdet(s).logabsdet)


def test_fields_of_numpys_named_results():
    a = np.array([[2.0, 0.3, 0.1], [0.2, 1.0, 0.5], [0.1, 0.4, 3.0]])
    check_both(named_results, (a,))


# ----- variadic signatures and star-arguments ------------------------------------------------

def _split(theta):
    return theta[:3], theta[3]


def scipy_style(theta, *args):
    X, y, lam = args
    w, b = _split(theta)
    return np.mean((X @ w + b - y) ** 2) + lam * np.dot(theta, theta)


def test_star_args_signature_as_scipy_optimize_calls_it():
    X, y, theta = RNG.normal(size=(5, 3)), RNG.normal(size=5), RNG.normal(size=4)
    check_grads(scipy_style, (theta, X, y, 0.1))
    check_jvp(scipy_style, (theta, X, y, 0.1), (0,))
    g = revsrc.grad(scipy_style)
    np.testing.assert_allclose(g(theta, X, y, 0.1), g(theta, *(X, y, 0.1)))
    scipy_optimize = pytest.importorskip("scipy.optimize")
    res = scipy_optimize.minimize(scipy_style, theta, args=(X, y, 0.1), jac=g, method="BFGS")
    assert res.success


def _integrand(x, k, s):
    return math.exp(-k * x) * math.cos(s * x)


def _trapezoid(fun, a, b, n, *params):
    h = (b - a) / n
    total = 0.5 * (fun(a, *params) + fun(b, *params))
    for i in range(1, n):
        total += fun(a + i * h, *params)
    return total * h


def integral(k, s):
    return _trapezoid(_integrand, 0.0, 3.0, 40, k, s)


def test_star_params_of_an_inlined_function_and_star_in_its_calls():
    check_both(integral, (0.5, 1.2), (0, 1))
    assert revsrc.grad(integral, (0, 1), backend="engine")(0.5, 1.2) == \
        revsrc.grad(integral, (0, 1), backend="python")(0.5, 1.2)


def starred_targets(x):
    coef, *_ = np.linalg.lstsq(np.eye(2) * x, np.array([1.0, 2.0]), rcond=None)
    a, *mid, z = (x, 2 * x, 3 * x, 4 * x)
    return np.sum(coef) + sum(mid) * z + a


def test_starred_assignment_targets():
    check_both(starred_targets, (1.3,))


def unzipped_least_squares(w, pairs):
    xs, ys = zip(*pairs)           # the number of pairs is known only at run time
    X = np.array(xs)
    Y = np.array(ys)
    return np.mean((X @ w - Y) ** 2) + len(xs)


def test_zip_of_a_list_of_unknown_length_unzips_it():
    w = RNG.normal(size=2)
    pairs = [(RNG.normal(size=2), float(RNG.normal())) for _ in range(5)]
    check_both(unzipped_least_squares, (w, pairs), 0)
    for n in (1, 3, 5):      # one program for every length
        check_grads(unzipped_least_squares, (w, pairs[:n]), (0, 1))


def spreads_a_runtime_list(x, pair):
    return x * np.hypot(*pair)


def test_star_of_a_value_of_unknown_length_is_refused():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(spreads_a_runtime_list)(1.0, [1.0, 2.0])
    assert info.value.lineno == spreads_a_runtime_list.__code__.co_firstlineno + 1
    assert "length" in info.value.message and info.value.hint


def takes_kwargs(w, **kwargs):
    return w * w + kwargs.get("l1", 0.0) * np.abs(w) + kwargs["l2"] * w ** 4


def test_double_star_parameters_take_keyword_arguments():
    # (refused on the syntax branch; **kwargs is a dict of known keys since the pytrees
    # work: each keyword argument is a parameter of the program)
    check_grads(takes_kwargs, (1.5,), kwargs={"l1": 0.1, "l2": 0.01})
    g = revsrc.grad(takes_kwargs)
    assert g(1.5, l2=0.01) == pytest.approx(3.0 + 4 * 0.01 * 1.5 ** 3)
    assert g(-1.5, l1=0.5, l2=0.0) == pytest.approx(-3.0 - 0.5)


def test_programs_for_functions_passed_as_arguments_are_bounded():
    from revsrc import api
    g = revsrc.grad(calls_its_argument)
    for i in range(api._CACHE_LIMIT + 10):
        s = float(i)
        assert g(1.5, lambda v: v * s) == pytest.approx(3.0 * s)
    assert len(g._revsrc_transformed.cache) <= api._CACHE_LIMIT


# ----- print -------------------------------------------------------------------------------

def verbose_loss(w, X, y, verbose=False):
    r = X @ w - y
    loss = 0.5 * np.mean(r ** 2)
    if verbose:
        print(f"loss={loss:.4f}", "max|r|=", np.max(np.abs(r)), sep=" ")
    return loss


def prints_in_a_loop(x, n):
    for i in range(n):
        x = x * 1.5 + math.sin(x)
        print("step", i, x)
    return x


def test_print_runs_in_the_forward_sweep_with_the_calls_values(capsys):
    w, X, y = RNG.normal(size=3), RNG.normal(size=(6, 3)), RNG.normal(size=6)
    g = revsrc.grad(verbose_loss)
    quiet = g(w, X, y)
    assert capsys.readouterr().out == ""
    loud = g(w, X, y, verbose=True)
    verbose_loss(w, X, y, verbose=True)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and printed[0] == printed[1]     # as the function prints
    np.testing.assert_array_equal(quiet, loud)
    check_grads(verbose_loss, (w, X, y))

    value, dx = revsrc.value_and_grad(prints_in_a_loop)(0.3, 3)
    printed = capsys.readouterr().out
    prints_in_a_loop(0.3, 3)
    assert printed == capsys.readouterr().out and printed.count("step") == 3
    assert value == prints_in_a_loop(0.3, 3)
    capsys.readouterr()
    check_grads(prints_in_a_loop, (0.3, 3))


def uses_what_print_returns(x):
    shown = print(x)
    return x if shown is None else 2 * x


def test_a_value_of_print_is_refused():
    with pytest.raises(errors.SideEffect) as info:
        revsrc.grad(uses_what_print_returns)(1.0)
    assert info.value.code == "E401"
    assert info.value.lineno == uses_what_print_returns.__code__.co_firstlineno + 1
