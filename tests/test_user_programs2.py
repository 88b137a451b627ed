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
    'view_T_write': 'refused-undoc: [E101] only a local array can be assigned into',
    'view_imag_write': 'refused-undoc: [E101] only a local array can be assigned into',
    'view_real_of_real_write': 'refused-undoc: [E101] only a local array can be assigned into',
    'view_array_split_imul': 'refused-undoc: [E404] pieces may be a view of y, and y is a ndarray here, not an array: revsrc cannot tell whether a write into pieces reaches it; revsrc cannot follow this wr',
    'view_reshape_T_write': 'refused-undoc: [E101] only a local array can be assigned into',
    'view_hsplit_write': 'refused-undoc: [E404] this changes a ndarray in place, which revsrc could not follow here (its kind was not known before the call)',
    'view_split_loop_write': 'CRASH: ValueError: operands could not be broadcast together with shapes (3,2) (3,)',
    'view_flat_index_write': 'refused-undoc: [E101] only a local array can be assigned into',
    'lam_inline_call_comp': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'lam_dict_comp': "refused-undoc: [E101] a lambda's default value c is not known when transforming (a lambda's defaults can be constants, functions, and the variable of a comprehension over a ra",
    'lam_nested_comp_list': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'rb_global_dict_entry': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'rb_global_list_entry': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'cx_array_sum_complex_output': 'WRONG: complex output not refused: array([-0.29552021, 0.93203909, -0.64421769])',
    'cx_holomorphic_poly': 'refused-undoc: [E302] the function returned an array of shape (); grad needs a scalar float output',
    'cx_holomorphic_exp_sin': 'refused-undoc: [E302] the function returned an array of shape (); grad needs a scalar float output',
    'cx_value_and_grad_holo': 'refused-undoc: [E302] the function returned an array of shape (); grad needs a scalar float output',
    'co_jacfwd_jacrev_tuple_vs_jax': 'refused-undoc: [E104] jacrev_f is a derivative made by revsrc; of its Jacobians, only the Jacobian in one argument of a Jacobian in one argument (without has_aux) of a functio',
    'jx_self_attr_changed': 'WRONG: after self.scale=5 got array([ 1.2, -4.8, 2.8]) want array([ 3., -12., 7.])',
    'jx_add_at': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'add_at'",
    'jx_errstate_return': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'errstate_enter'",
    'jx_self_array_attr_changed': 'WRONG: after self.w changed got array([0.91513696, 0.61003999, 1.90421877]) want array([-0.91513696, 0.15251 , 2.53895836])',
    'jx_global_obj_attr_changed': 'WRONG: after JCFG.k = 5 got array([ 1.2, -4.8, 2.8]) want array([ 3., -12., 7.])',
    'jx_partial_method': 'WRONG: after scale = 7 got array([ 1.2, -4.8, 2.8]) want array([ 4.2, -16.8, 9.8])',
    'cx_sum_complex_output_2': 'WRONG: complex output not refused: array([1., 1., 1.])',
    'view_split_loop_zero': 'CRASH: ValueError: operands could not be broadcast together with shapes (3,2) (3,)',
    'view_split_item_slice_assign': 'refused-undoc: [E101] only items of a local list or array can be assigned into',
    'view_asarray_of_list_then_write': 'refused-undoc: [E404] y shares its value with _t4, _t5, _t6, y, and revsrc cannot follow a write into it',
    'jx_st_attr_of_nondiff_arg': 'WRONG: after h.w changed got array([ 0.6, -4.8, 4.2]) want array([ 3., -12., 7.])',
    'co_hessian_slice_imul': 'WRONG: got array([[0., 0., 0.], [1., 0., 0.], [1., 0., 0.]]) want array([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]])',
    'co_hessian_slice_assign_self': 'WRONG: got array([[0., 0., 0.], [1., 0., 0.], [1., 0., 0.]]) want array([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]])',
    'co_jacfwd_grad_slice_imul': 'WRONG: got array([[0., 0., 0.], [1., 0., 0.], [1., 0., 0.]]) want array([[0., 1., 1.], [1., 0., 0.], [1., 0., 0.]])',
    'co_jvp_of_grad_slice_imul': 'WRONG: got array([0., 0., 0.]) want array([1., 0., 0.])',
    'co_hvp_slice_imul': 'WRONG: got array([0., 0., 0.]) want array([1., 0., 0.])',
    'co_hessian_view_slice_imul': 'WRONG: got array([[ 9.399 , 0.24 , 2.535 , 0. ], [ 0.36 , -0.3 , 0. , 0. ], [ 3.8025, 0. , 0.975 , 0. ], [ 0. , 0. , 0. , 5.4 ]]) want array([[ 9.399 , 0.36 , 3.8025, ',
    'co_hessian_view_row_write': 'WRONG: got array([[ 2. , 0. , 0. , 0.3, 0. , 0. , 0. , 0. , 0. ], [ 0. , 2. , 0. , 0. , -0.7, 0. , 0. , 0. , 0. ], [ 0. , 0. , 2. , 0. , 0. , 0.9, 0. , 0. , 0. ], [ 0.',
    'co_hessian_where_then_inplace': 'WRONG: got array([[ 3.62, 0.36, 0. , 0. , 0. , 0. ], [ 0.72, 0.08, 0. , 0. , 0. , 0. ], [ 0. , 0. , 2.42, -1.1 , 0. , 0. ], [ 0. , 0. , -2.2 , 0.5 , 0. , 0. ], [ 0. , ',
    'cx_mean_output': 'WRONG: complex output not refused: returned array([0.33333333, 0.33333333, 0.33333333])',
    'cx_prod_output': 'WRONG: complex output not refused: returned array([-1.84, -0.79, -1.36])',
    'cx_branch_output': 'WRONG: complex output not refused: returned array([-0.29552021, 0.93203909, -0.64421769])',
    'cx_fft_sum_output': 'WRONG: complex output not refused: returned array([3., 0., 0.])',
    'cx_value_and_grad_mean_output': 'WRONG: complex output not refused: returned (np.complex128(-0.06666666666666665-0.06666666666666665j), array([0.33333333, 0.33333333, 0.33333333]))',
    'cx_hessian_complex_output': 'WRONG: complex output not refused: returned array([[0., 0., 0.], [0., 0., 0.], [0., 0., 0.]])',
    'cx_jacrev_complex_vector': 'WRONG: complex output not refused: returned array([[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]])',
    'co_hessian_view_before_imul': 'WRONG: got array([[0., 0., 0.], [0., 1., 0.], [0., 0., 1.]]) want array([[0., 0., 0.], [0., 2., 0.], [0., 0., 2.]])',
    'co_jacrev_grad_view_before_imul': 'WRONG: got array([[0., 0., 0.], [0., 1., 0.], [0., 0., 1.]]) want array([[0., 0., 0.], [0., 2., 0.], [0., 0., 2.]])',
    'co_grad_grad_component_view_before_imul': 'WRONG: got array([0., 1., 0.]) want array([0., 2., 0.])',
    'co_hessian_view_base_imul_read': 'WRONG: got array([[ 0. , 0. , 0. , 0. , 0. , 0. ], [ 0. , 19.1, 0. , 0. , 0. , 0. ], [ 0. , 0. , -0.5, 0. , 0. , 0. ], [ 0. , 0. , 0. , 25.1, 0. , 0. ], [ 0. , 0. , 0.',
    'co_jax_hessian_view_before_imul': 'WRONG: got array([[0., 0., 0.], [0., 1., 0.], [0., 0., 1.]]) want array([[0., 0., 0.], [0., 2., 0.], [0., 0., 2.]])',
    'co_hessian_tuple_slice_imul_scalar': 'WRONG: H[1][0] got array([ 0. , -0.56, 1.82]) want array([ 0. , -1.12, 3.64])',
    'co_hessian_tuple_slice_imul_vs_jax': 'WRONG: H[1][0] got array([ 0. , -0.56, 1.82]) want array([ 0. , -1.12, 3.64])',
    'co_hessian_helper_writes_view': 'WRONG: got array([[ 7.32, -0.4 , 1.3 , 0.9 ], [-0.8 , 0.5 , 0. , 0. ], [ 2.6 , 0. , 0.5 , 0. ], [ 1.8 , 0. , 0. , 0.5 ]]) want array([[ 7.32, -0.8 , 2.6 , 1.8 ], [-0.8',
    'co_hessian_view_imul_in_loop': 'WRONG: got array([[1.35, 0. , 0. , 0. ], [0.75, 0. , 0. , 0. ], [0.75, 0. , 0. , 0. ], [0. , 0. , 0. , 0. ]]) want array([[2.7 , 0.75, 0.75, 0. ], [0.75, 0. , 0. , 0. ',
    'view_of_view_write_jax': 'CRASH: SyntaxError: invalid syntax (<revsrc jax view_of_view_write_adjoint #32>, line 20)',
    'view_reshape_iadd_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'shares'",
    'view_squeeze_write_jax': 'refused-undoc: [E404] a write through squeeze',
    'ip_fancy_iadd_repeated_jax': "refused-undoc: [E603] backend='jax': this operation has no jax.numpy lowering for these values (TypeError: Using a non-tuple sequence for multidimensional indexing is not allo",
    'ip_fill_diagonal_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'fill_diagonal'",
    'es_nested_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'errstate_enter'",
    'em_prod_empty_jax': "refused-undoc: [E603] backend='jax': this operation has no jax.numpy lowering for these values (TypeError: cannot reshape array of shape (1,) (size 1) into shape (0,) (size 0)",
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
