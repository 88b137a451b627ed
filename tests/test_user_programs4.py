"""Adversarial user programs, round 4 (see user_programs4.py).

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

import user_programs4 as up  # noqa: E402

KNOWN = {
    'sig_conv1d_loops_w_hess': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.take, which has no rule of its own yet',
    'sig_conv1d_loops_x_hvp': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.take, which has no rule of its own yet',
    'interp_bilinear_grid_hess': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.take, which has no rule of its own yet',
    'interp_bilinear_points_hvp': 'refused-undoc: [E104] forward mode over this derivative goes through revsrc.runtime.take, which has no forward rule yet',
    'uq_polynomial_chaos_hermite_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'factorial'",
    'edge_int_division_of_float': 'refused-undoc: [E202] divmod has no derivative rule and no Python source to transform',
    'edge_0d_array_input': 'CRASH: SyntaxError: invalid syntax (<revsrc e8_adjoint #67>, line 6)',
    'edge_closure_rebinding_after_def': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'edge_nested_closure_loop_variable': 'refused-undoc: [E101] a nested function can only be called, not passed as a value',
    'edge_object_argument_attribute_changed': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'edge_jit_object_attribute_changed': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'view_split_piece_inplace': 'refused-undoc: [E404] this changes a ndarray in place, which revsrc could not follow here (its kind was not known before the call)',
    'view_array_split_unequal_inplace': 'CRASH: ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.',
    'view_split_piece_inplace_hess_hess': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.inplace.write_at_new_grad, which has no rule of its own yet',
    'view_transpose_inplace_hess_hess': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.transpose_grads.view_forward, which has no rule of its own yet',
    'view_reshape_inplace_hvp_hvp': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.transpose_grads.view_forward, which has no rule of its own yet',
    'norm_vec_ord_3_hess': 'WRONG: hessian vs fd got array([[ 2.41935803,  0.15070723, -0.01311938, -0.49812484],\n       [ 0.04979764,  3.54811288,  0.01529801,  1.29610756],\n       [-0.02734977,  0.09629667,  2.13606985, -0.27084859],',
    'norm_vec_ord_inf_hess': 'WRONG: hessian vs fd got array([[ 2.44444444,  0.        ,  0.        , -0.81481481],\n       [ 0.        ,  3.53287982,  0.        ,  2.18702084],\n       [ 0.        ,  0.        ,  2.14512472, -0.40859518],',
    'norm_mat_ord_2_hess': 'WRONG: hessian vs fd got array([[[[ 2.00935316, -0.12845145,  0.00756298],\n         [ 0.12189841, -0.21995459,  0.7416204 ],\n         [ 0.35992072,  0.20487286, -1.02468264]],\n\n        [[-0.1858724 ,  0.9160',
    'norm_mat_ord_neg2_hess': 'WRONG: hessian vs fd got array([[[[ 6.62735151e+00,  2.87184012e+00,  1.77692465e+00],\n         [ 1.04045806e+00, -6.08940187e+00, -1.15153605e+00],\n         [ 5.03521538e-01, -5.07648726e+00, -1.02578903e+0',
    'norm_axis_keepdims_rows_hess': 'WRONG: hessian vs fd got array([[[[-0.1193239 , -0.79075016, -0.36278626],\n         [-0.33240997,  0.        ,  0.        ],\n         [-0.33240997,  0.        ,  0.        ]],\n\n        [[-0.79075016,  0.4744',
    'jit_function_calling_grad_inside': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'jit_grad_of_function_calling_grad': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'vmap_grad_pendulum': 'WRONG:  got array([1.00004246, 0.99794266, 0.98564705, 0.94451319, 0.8393277 ,\n       0.60034061, 0.03971672]) want array([1.00004246, 0.99838954, 0.98978834, 0.96460382, 0.90954866,\n       0.80861094, 0.644',
    'vmap_in_axes_none_param': 'WRONG:  got array(0.01247756) want array(0.01248255)',
    'vmap_int_loop_count_argument': 'WRONG:  got array(0.01157929) want array(0.01572919)',
    'jaxb_physics_balls_jax': "refused-undoc: [E602] backend='jax' compiles the derivative with jax.jit, and this is a branch on a value computed from the differentiated arguments that cannot run as a select of both arms (it leaves a loop, raises",
    'jaxb_view_transpose_inplace_jax': 'refused-undoc: [E404] a write through transpose',
    'vmap_default_parameter_rebound': 'WRONG:  got array([1., 3., 6.]) want array([1., 2., 3.])',
    'vmap_default_parameter_rebound_in_loop_threads1': 'WRONG:  got array([0.10000979, 0.39900081]) want array([0.10000979, 0.39918643])',
    'edge_math_fsum_and_sum_start': 'refused-undoc: [E202] math.fsum has no derivative rule and no Python source to transform',
    'edge_list_sort_in_place_of_local': 'refused-undoc: [E401] a call whose result is discarded (vals.sort) can only act through side effects, which revsrc refuses',
    'edge_np_sum_with_where_arg': "refused-undoc: [E202] keyword 'initial' of max is not supported by its rule",
    'edge_ternary_in_comprehension_hess': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.containers.picked_grad, which has no rule of its own yet',
    'edge_0d_array_input_hess': 'CRASH: SyntaxError: invalid syntax (<revsrc e8_adjoint #156>, line 6)',
    'ml_gp_nll_cholesky_ell_jax': "refused-undoc: [E603] backend='jax': this operation has no jax.numpy lowering for these values (TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape float",
    'pde_heat_explicit_inplace_jax': 'CRASH: SyntaxError: invalid syntax (<revsrc jax heat_explicit_inplace_adjoint #23>, line 44)',
    'phys_contact_spring_chain_k_hess': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.grads.calculus.diff_grads, which has no rule of its own yet',
    'phys_contact_spring_chain_k_jax': 'CRASH: SyntaxError: invalid syntax (<revsrc jax contact_spring_chain_adjoint #24>, line 55)',
    'phys_contact_spring_chain_x0_hvp': 'refused-undoc: [E104] differentiating a derivative again goes through revsrc.runtime.grads.calculus.diff_grads, which has no rule of its own yet',
    'py_dataclass_layers_x_hessian': 'refused-undoc: [E104] forward mode over this derivative goes through revsrc.core.ir.get_attribute, which has no forward rule yet',
    'min_0d_empty_tuple_index': 'CRASH: SyntaxError: invalid syntax (<revsrc m1_adjoint #177>, line 4)',
    'min_jax_zeros_like_slice_write_in_loop_jax': 'CRASH: SyntaxError: invalid syntax (<revsrc jax m2_adjoint #25>, line 35)',
    'min_hessian_norm_ord3_hess': 'WRONG: hessian vs fd got array([[ 0.42733321, -0.2136666 ],\n       [-0.1068333 ,  0.05341665]]) want array([[ 0.41088077, -0.20544033],\n       [-0.20544033,  0.10272017]])',
    'min_hessian_norm_inf_squared_hess': 'WRONG: hessian vs fd got array([[ 2., -1.],\n       [ 0.,  2.]]) want array([[0.        , 0.        ],\n       [0.        , 2.00000017]])',
    'np_sort_quantile_loss': 'refused-undoc: [E202] numpy.quantile has no derivative rule and no Python source to transform',
    'np_eigvalsh_spectral_loss': 'refused-undoc: [E202] numpy.linalg.eigvalsh has no derivative rule and no Python source to transform',
    'np_eigvalsh_spectral_loss_hess': 'refused-undoc: [E202] numpy.linalg.eigvalsh has no derivative rule and no Python source to transform',
    'np_eigvalsh_spectral_loss_jax': 'refused-undoc: [E202] numpy.linalg.eigvalsh has no derivative rule and no Python source to transform',
    'np_sort_quantile_loss_hess': 'refused-undoc: [E202] numpy.quantile has no derivative rule and no Python source to transform',
    'np_sort_quantile_loss_jax': 'refused-undoc: [E202] numpy.quantile has no derivative rule and no Python source to transform',
    'py_complex_holomorphic_grad': 'refused-undoc: [E302] the function returned an array of shape (); grad needs a scalar float output',
    'py_complex_cmath_holomorphic': 'refused-undoc: [E202] cmath.exp has no derivative rule and no Python source to transform',
    'vmap_default_int_counter_rebound': 'WRONG:  got array([1.21, 2.  , 3.  ]) want array([1.21, 2.42, 3.63])',
    'vmap_none_axis_argument_rebound': 'WRONG:  got array([1.21, 2.  , 3.  ]) want array([1.21, 2.42, 3.63])',
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
        pytest.skip(f"known, open: {KNOWN[case.name]}")
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
    assert not fixed, f"fixed: remove from KNOWN in tests/test_user_programs4.py: {fixed}"
