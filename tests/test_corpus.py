"""Every program of the corpus, differentiated and checked against finite differences."""

import re

import numpy as np
import pytest

import revsrc
from revsrc.testing import check_grads, compare_grads

from functions import AUX_CASES, CASES, FLOAT32_CASES

BY_ID = {case.id: case for case in CASES}


def _ids(cases):
    return [case.id for case in cases]


def _assert_same(a, b):
    """Exact equality of gradients: floats, arrays (with dtype) or tuples of them."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b):
            _assert_same(u, v)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert type(a) is type(b) and a == b


@pytest.mark.parametrize("backend", [None, "python"], ids=["auto", "python"])
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_grad_matches_finite_differences(case, backend):
    # auto is what users get (the engine where it applies); "python" pins the
    # generated adjoint, which must be right for every program.
    check_grads(case.fn, case.args, case.argnums, rtol=case.rtol, kwargs=case.kwargs,
                backend=backend)


@pytest.mark.parametrize("case", FLOAT32_CASES, ids=_ids(FLOAT32_CASES))
def test_float32_gradient_is_float32(case):
    # float32 arithmetic in the adjoint: ~1e-7 per operation, so rtol 1e-3.
    check_grads(case.fn, case.args, case.argnums, rtol=case.rtol, atol=1e-5,
                kwargs=case.kwargs)


TUPLE_CASES = [case for case in CASES if isinstance(case.argnums, tuple)]


@pytest.mark.parametrize("case", TUPLE_CASES, ids=_ids(TUPLE_CASES))
def test_tuple_argnums_returns_tuple(case):
    grads = revsrc.grad(case.fn, case.argnums)(*case.args, **case.kwargs)
    assert isinstance(grads, tuple)
    assert len(grads) == len(case.argnums)


VALUE_IDS = ["poly", "kinetic_energy", "swap_in_loop", "while_data_trip",
             "kwarg_defaults_b", "bool_flag_kwarg_false", "argnum_second",
             "early_return_early", "arr_layer", "mlp_loss", "logsumexp", "softmax_xent"]


@pytest.mark.parametrize("case_id", VALUE_IDS)
def test_value_and_grad_value_is_exact(case_id):
    case = BY_ID[case_id]
    value, grads = revsrc.value_and_grad(case.fn, case.argnums)(*case.args, **case.kwargs)
    expected = case.fn(*case.args, **case.kwargs)
    assert value == expected
    _assert_same(grads, revsrc.grad(case.fn, case.argnums)(*case.args, **case.kwargs))


@pytest.mark.parametrize("case", AUX_CASES, ids=_ids(AUX_CASES))
def test_has_aux_returns_aux_unchanged(case):
    df = revsrc.grad(case.fn, case.argnums, has_aux=True)
    result = df(*case.args, **case.kwargs)
    assert isinstance(result, tuple) and len(result) == 2
    _, aux = result
    expected_aux = case.fn(*case.args, **case.kwargs)[1]
    if isinstance(expected_aux, np.ndarray):
        np.testing.assert_array_equal(aux, expected_aux)
    else:
        assert aux == expected_aux

    def loss(*args, **kwargs):
        return case.fn(*args, **kwargs)[0]

    def grad_only(*args, **kwargs):
        return df(*args, **kwargs)[0]

    compare_grads(loss, grad_only, case.args, case.argnums, rtol=case.rtol,
                  kwargs=case.kwargs)


REPEAT_IDS = ["poly", "overwrite_200", "while_data_trip", "for_break", "return_in_loop_returns",
              "helper_in_loop", "closure_reads_active", "arr_loop_rows_nonlinear", "mlp_loss"]


@pytest.mark.parametrize("case_id", REPEAT_IDS)
def test_derivative_called_twice_is_identical(case_id):
    # Nothing may leak between calls (stacks, caches): a call at other arguments in
    # between must not change the result either.
    case = BY_ID[case_id]
    df = revsrc.grad(case.fn, case.argnums)
    first = df(*case.args, **case.kwargs)
    second = df(*case.args, **case.kwargs)
    _assert_same(first, second)
    other = tuple(a * 0.9 if isinstance(a, (float, np.ndarray)) else a for a in case.args)
    df(*other, **case.kwargs)
    _assert_same(first, df(*case.args, **case.kwargs))


SOURCE_IDS = ["poly", "kinetic_energy", "for_break", "call_depth3", "arr_layer"]


@pytest.mark.parametrize("case_id", SOURCE_IDS)
def test_source_is_deterministic(case_id):
    case = BY_ID[case_id]
    first = revsrc.source(revsrc.grad(case.fn, case.argnums))
    second = revsrc.source(revsrc.grad(case.fn, case.argnums))
    assert isinstance(first, str) and first
    assert first == second


def test_source_names_come_from_user_names():
    case = BY_ID["kinetic_energy"]
    text = revsrc.source(revsrc.grad(case.fn, case.argnums))
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    for user_name in ("velocity", "mass", "energy"):
        derived = {n for n in names if user_name in n and n != user_name}
        assert derived, f"no adjoint name derived from {user_name!r} in:\n{text}"
