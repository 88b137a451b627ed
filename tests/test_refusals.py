"""Every refusal: its class, its stable code, and the user's line it points at."""
import inspect
import re

import numpy as np
import pytest

import revsrc
from revsrc import errors

import refusals


def _marked_line(fn, code):
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if f"# refuse: {code}" in line:
            return first + i
    raise LookupError(f"no marker for {code} in {fn.__name__}")


CASES = [
    # (function, args, error class, code)
    (refusals.uses_try, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.uses_with, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.uses_yield, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.uses_await_inside, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.writes_global, (1.0,), errors.GlobalWrite, "E402"),
    (refusals.writes_nonlocal, (1.0,), errors.GlobalWrite, "E402"),
    (refusals.uses_del, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.defines_class, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.lambda_as_value, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.star_args, (1.0, (2.0, 3.0)), errors.UnsupportedSyntax, "E101"),
    (refusals.star_args_of_an_array, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.calls_no_rule, (1.5,), errors.NoRule, "E202"),
    (refusals.prints, (1.0,), errors.SideEffect, "E401"),
    (refusals.opens_file, (1.0,), errors.SideEffect, "E401"),
    (refusals.writes_attribute, (1.0, refusals.Box()), errors.SideEffect, "E401"),
    (refusals.writes_argument, (np.ones(3),), errors.MutatesArgument, "E403"),
    (refusals.returns_vector, (np.ones(3),), errors.NonScalarOutput, "E302"),
    (refusals.recursive, (1.0, 3), errors.RecursionNotSupported, "E103"),
    (refusals.loop_else, (1.0,), errors.UnsupportedControlFlow, "E102"),
    (refusals.list_append, (1.0, [2.0]), errors.MutatesArgument, "E403"),
    (refusals.list_changed_after_stored, (1.0,), errors.UnfollowableWrite, "E404"),
    (refusals.set_comprehension, (1.0,), errors.UnsupportedSyntax, "E101"),
    (refusals.reads_an_undefined_name, (1.0,), errors.UndefinedName, "E106"),
    (refusals.unpacks_three_from_two, (1.0,), errors.StaticValueError, "E105"),
    (refusals.calls_a_helper_without_an_argument, (1.0,), errors.StaticValueError, "E105"),
    (refusals.pops_a_list_held_twice, (1.0,), errors.SideEffect, "E401"),
]


@pytest.mark.parametrize("fn,args,cls,code", CASES, ids=[c[0].__name__ for c in CASES])
def test_refusal_points_at_the_line(fn, args, cls, code):
    with pytest.raises(cls) as info:
        revsrc.grad(fn)(*args)
    err = info.value
    assert isinstance(err, revsrc.RevsrcError)
    assert err.code == code
    assert err.lineno == _marked_line(fn, code)
    assert err.filename == inspect.getsourcefile(fn)
    assert err.line and err.line in inspect.getsource(fn)
    text = str(err)
    assert f"[{code}]" in text and f":{err.lineno}:" in text
    assert "hint:" in text  # every refusal says what to do instead


def test_async_function_is_refused():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(refusals.uses_async)
    assert info.value.code == "E101"
    assert info.value.lineno == refusals.uses_async.__code__.co_firstlineno


def test_no_rule_names_the_function_and_how_to_add_one():
    with pytest.raises(errors.NoRule) as info:
        revsrc.grad(refusals.calls_no_rule)(1.5)
    assert "math.remainder" in str(info.value)
    assert "revsrc.defvjp" in str(info.value)


@pytest.mark.parametrize("argnum,value", [(1, 3), (2, True), (3, "s"), (4, object())],
                         ids=["int", "bool", "str", "object"])
def test_non_float_argument_is_refused(argnum, value):
    args = [1.0, 3, True, "s", object()]
    args[argnum] = value
    with pytest.raises(errors.NotDifferentiableArgument) as info:
        revsrc.grad(refusals.simple, argnums=argnum)(*args)
    assert info.value.code == "E301"
    assert info.value.lineno == refusals.simple.__code__.co_firstlineno
    assert refusals.simple.__code__.co_varnames[argnum] in str(info.value)


def test_integer_array_argument_is_refused():
    def f(x):
        return np.sum(x * 2.0)
    with pytest.raises(errors.NotDifferentiableArgument):
        revsrc.grad(f)(np.arange(3))


def test_other_arguments_may_be_anything():
    assert revsrc.grad(refusals.simple)(3.0, 3, True, "s", object()) == 6.0


def test_function_without_source_is_refused():
    f = eval("lambda x: x * x")
    with pytest.raises(errors.NoSource) as info:
        revsrc.grad(f)
    assert info.value.code == "E201"


def test_builtin_without_source_is_refused():
    """A compiled function with no rule (abs has one: revsrc.grad(abs) works)."""
    import math
    with pytest.raises(errors.NoSource) as info:
        revsrc.grad(math.remainder)
    assert info.value.code == "E201"


def test_star_arguments_of_a_tuple_are_spread():
    assert revsrc.grad(refusals.star_args_of_a_tuple)(1.5) == pytest.approx(4 * 1.5)


def test_a_dict_with_a_key_known_only_at_run_time_is_differentiated():
    # (refused once, E202; dicts of intermediates have an adjoint per key now)
    assert revsrc.grad(refusals.dict_of_active)(1.5) == 2.0
    assert revsrc.grad(refusals.dict_of_active)(-1.5) == 2.0


def test_bad_argnums_is_refused():
    with pytest.raises(errors.BadArgnums) as info:
        revsrc.grad(refusals.simple, argnums=7)
    assert info.value.code == "E303"


def cube(x):
    return x * x * x


d_cube = revsrc.grad(cube)


def calls_a_derivative_on_an_object(x, config):
    return d_cube(config) * x  # refuse: E104


def test_a_derivative_called_on_a_value_of_unknown_kind_is_refused():
    """Its program depends on its arguments' kinds: a call on an object whose kind is
    only known when it runs is refused, at the line of the call."""
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.grad(calls_a_derivative_on_an_object)(1.0, {"a": 2.0})
    assert info.value.code == "E104"
    assert info.value.lineno == calls_a_derivative_on_an_object.__code__.co_firstlineno + 1


def test_nothing_is_lost_after_a_refusal():
    """A refused call leaves the derivative usable for valid inputs."""
    def f(x, n):
        return x * n
    df = revsrc.grad(f)
    with pytest.raises(errors.NotDifferentiableArgument):
        df(2, 3)
    assert df(2.0, 3) == 3.0


def test_codes_are_unique_and_stable():
    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, errors.RevsrcError)
               and c is not errors.RevsrcError]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"E[1-6]\d\d", c) for c in codes)


def test_dict_aux_is_passed_through():
    def f(x):
        y = x * x
        return y, {"y": y, "double": 2.0 * x}

    g, aux = revsrc.grad(f, has_aux=True)(0.5)
    assert g == 1.0
    assert aux == {"y": 0.25, "double": 1.0}


def _writes_into_positional_only(M, y, /):
    M[0][0] = y
    return M[0][0] * y


def _writes_into_a_parameter(M, y):
    M[0][0] = y
    return M[0][0] * y


@pytest.mark.parametrize("fn", [_writes_into_positional_only, _writes_into_a_parameter])
def test_a_write_into_a_parameter_is_refused_the_same_way_whatever_its_kind(fn):
    """A positional-only parameter is a parameter: the write into it is refused where
    it is written, with the message a normal parameter gets (no temporary named)."""
    with pytest.raises(errors.MutatesArgument) as info:
        revsrc.grad(fn, argnums=1)(np.ones((2, 2)), 3.0)
    assert info.value.code == "E403"
    assert "assigning into M[0][0] would change a value the caller owns" in str(info.value)
    assert not re.search(r"\b_t\d", str(info.value))
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


def test_positional_only_parameters_of_lambdas_and_nested_functions():
    assert revsrc.grad(lambda x, /: x * x)(3.0) == 6.0

    def f(x):
        def h(a, /, b=2.0):
            return a * b
        return h(x) + h(x, 3.0)
    assert revsrc.grad(f)(1.0) == 5.0
