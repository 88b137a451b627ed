"""Adversarial user programs, round 2 (see user_programs2.py).

Each case is run and classified as correct, WRONG (a number beyond tolerance), CRASH
(an exception that is not a RevsrcError), refused with a code the README documents for
that program, or refused otherwise. Known WRONG / CRASH / undocumented refusals are
skipped by the case test and tracked by test_the_known_failures_are_still_open,
which fails once one of them passes, so the list can only shrink.
"""
import os
import sys
import warnings

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import user_programs2 as up  # noqa: E402

KNOWN = {
    'lam_dict_comp': "refused-undoc: [E101] a lambda's default value c is not known when transforming (a lambda's defaults can be constants, functions, and the variable of a comprehension over a ra",
    'co_grad_of_jit_fn': 'refused-undoc: [E202] co_grad_of_jit_fn.<locals>.f has no derivative rule and no Python source to transform',
    'co_jvp_inside_grad': 'refused-undoc: [E202] revsrc.compose.jvp has no derivative rule and no Python source to transform',
    'co_jvp_inside_grad_array': 'refused-undoc: [E202] revsrc.compose.jvp has no derivative rule and no Python source to transform',
    'co_jacfwd_jacrev_tuple_vs_jax': 'refused-undoc: [E104] jacrev_f is a derivative made by revsrc; of its Jacobians, only the Jacobian in one argument of a Jacobian in one argument (without has_aux) of a functio',
    'co_hessian_slice_imul': 'WRONG: got array([[0., 0., 0.], [1., 0., 0.], [1., 0., 0.]]) want array([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]])',
    'co_hessian_slice_assign_self': 'WRONG: got array([[0., 0., 0.], [1., 0., 0.], [1., 0., 0.]]) want array([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]])',
    'co_jacfwd_grad_slice_imul': 'WRONG: got array([[0., 0., 0.], [1., 0., 0.], [1., 0., 0.]]) want array([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]])',
    'co_jvp_of_grad_slice_imul': 'WRONG: got array([0., 0., 0.]) want array([1., 0., 0.])',
    'co_hvp_slice_imul': 'WRONG: got array([0., 0., 0.]) want array([1., 0., 0.])',
    'co_hessian_view_slice_imul': 'WRONG: got array([[ 9.399 , 0.24 , 2.535 , 0. ], [ 0.36 , -0.3 , 0. , 0. ], [ 3.8025, 0. , 0.975 , 0. ], [ 0. , 0. , 0. , 5.4 ]]) want array([[ 9.399 , 0.36 , 3.8025, ',
    'co_hessian_view_row_write': 'WRONG: got array([[ 2. , 0. , 0. , 0.3, 0. , 0. , 0. , 0. , 0. ], [ 0. , 2. , 0. , 0. , -0.7, 0. , 0. , 0. , 0. ], [ 0. , 0. , 2. , 0. , 0. , 0.9, 0. , 0. , 0. ], [ 0.',
    'co_hessian_where_then_inplace': 'WRONG: got array([[ 3.62, 0.36, 0. , 0. , 0. , 0. ], [ 0.72, 0.08, 0. , 0. , 0. , 0. ], [ 0. , 0. , 2.42, -1.1 , 0. , 0. ], [ 0. , 0. , -2.2 , 0.5 , 0. , 0. ], [ 0. , ',
    'co_hessian_view_before_imul': 'WRONG: got array([[0., 0., 0.], [0., 1., 0.], [0., 0., 1.]]) want array([[0., 0., 0.], [0., 2., 0.], [0., 0., 2.]])',
    'co_jacrev_grad_view_before_imul': 'WRONG: got array([[0., 0., 0.], [0., 1., 0.], [0., 0., 1.]]) want array([[0., 0., 0.], [0., 2., 0.], [0., 0., 2.]])',
    'co_grad_grad_component_view_before_imul': 'WRONG: got array([0., 1., 0.]) want array([0., 2., 0.])',
    'co_hessian_view_base_imul_read': 'WRONG: got array([[ 0. , 0. , 0. , 0. , 0. , 0. ], [ 0. , 19.1, 0. , 0. , 0. , 0. ], [ 0. , 0. , -0.5, 0. , 0. , 0. ], [ 0. , 0. , 0. , 25.1, 0. , 0. ], [ 0. , 0. , 0.',
    'co_jax_hessian_view_before_imul': 'WRONG: got array([[0., 0., 0.], [0., 1., 0.], [0., 0., 1.]]) want array([[0., 0., 0.], [0., 2., 0.], [0., 0., 2.]])',
    'co_hessian_tuple_slice_imul_scalar': 'WRONG: H[1][0] got array([ 0. , -0.56, 1.82]) want array([ 0. , -1.12, 3.64])',
    'co_hessian_tuple_slice_imul_vs_jax': 'WRONG: H[1][0] got array([ 0. , -0.56, 1.82]) want array([ 0. , -1.12, 3.64])',
    'co_hessian_helper_writes_view': 'WRONG: got array([[ 7.32, -0.4 , 1.3 , 0.9 ], [-0.8 , 0.5 , 0. , 0. ], [ 2.6 , 0. , 0.5 , 0. ], [ 1.8 , 0. , 0. , 0.5 ]]) want array([[ 7.32, -0.8 , 2.6 , 1.8 ], [-0.8',
    'co_hessian_view_imul_in_loop': 'WRONG: got array([[1.35, 0. , 0. , 0. ], [0.75, 0. , 0. , 0. ], [0.75, 0. , 0. , 0. ], [0. , 0. , 0. , 0. ]]) want array([[2.7 , 0.75, 0.75, 0. ], [0.75, 0. , 0. , 0. ',
    'view_reshape_iadd_jax': "refused-undoc: [E603] backend='jax': whether NumPy makes this value a view of the array it was made from (so that a write into it reaches that array) or a copy depends on the array's memory layout",
}


def _params():
    return [pytest.param(c, id=f"{c.family}-{c.name}") for c in up.CASES]


def test_case_names_unique():
    names = [c.name for c in up.CASES]
    assert len(names) == len(set(names))
    assert len(names) >= 150
    assert set(KNOWN) <= set(names)


@pytest.mark.parametrize("case", _params())
def test_user_program(case):
    if case.name in KNOWN:
        pytest.skip(f"known, open (issue 22): {KNOWN[case.name]}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, detail = up.classify(case)
    if status == "skip":
        pytest.skip("JAX is not importable")
    assert status in ("correct", "refused-doc"), f"{status}: {detail}"


def test_the_known_failures_are_still_open():
    """Each case in KNOWN still fails: one that passes now must leave the list (and be
    checked by test_user_program again)."""
    fixed = []
    for case in up.CASES:
        if case.name not in KNOWN:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status, _ = up.classify(case)
        if status in ("correct", "refused-doc"):
            fixed.append(case.name)
    assert not fixed, f"fixed: remove from KNOWN in tests/test_user_programs2.py: {fixed}"
