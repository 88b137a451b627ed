"""Adversarial user programs, round 3 (user_programs3.py), run by corpus_harness.corpus_tests:
KNOWN lists the cases still open, and can only shrink."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import user_programs3 as up  # noqa: E402
from corpus_harness import corpus_tests  # noqa: E402

KNOWN = {
    'poly_chebval_numpy_polynomial': 'refused-undoc: [E202] numpy.polynomial.chebyshev.chebval has no derivative rule and no Python source to transform',
    'stat_corrcoef_loss': 'refused-undoc: [E202] numpy.corrcoef has no derivative rule and no Python source to transform',
    'py_closure_mutates_cell_list': 'refused-undoc: [E101] a nested function can only be called, not passed as a value',
    'py_list_pop_reverse': 'refused-undoc: [E401] method .pop() is not supported (it may change its object in place)',
    'np_linalg_qr': 'refused-undoc: [E202] numpy.linalg.qr has no derivative rule and no Python source to transform',
    'np_heaviside_sign_times': 'refused-undoc: [E202] numpy.heaviside has no derivative rule and no Python source to transform',
    'tr_grad_of_jacfwd_entry': 'refused-undoc: [E202] revsrc.compose.jacfwd_field has no derivative rule and no Python source to transform',
    'mc_reparam_gaussian_expectation_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'default_rng'",
    'fin_mc_asian_option_paths_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'default_rng'",
    'np_split_pieces_jax': "refused-undoc: [E603] backend='jax': this operation has no jax.numpy lowering for these values (TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array w",
    'pde_pad_edge_stencil_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.pad, which has no rule of its own yet',
    'pde_pad_constant_stencil_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.pad, which has no rule of its own yet',
    'filt_moving_average_convolve_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.convolve, which has no rule of its own yet',
    'poly_linear_interp_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.interp, which has no rule of its own yet',
    'stat_weighted_variance_ddof_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.median, which has no rule of its own yet',
    'stat_cov_matrix_trace_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.cov, which has no rule of its own yet',
    'np_linalg_eigh_eigenvalues_and_vectors_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.linalg.eigh, which has no rule of its own yet',
    'np_linalg_pinv_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.linalg.pinv, which has no rule of its own yet',
    'np_pad_reflect_wrap_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.pad, which has no rule of its own yet',
    'np_interp_wrt_xp_fp_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.interp, which has no rule of its own yet',
    'np_outer_kron_cross_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.cross, which has no rule of its own yet',
    'np_select_conditions_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.select, which has no rule of its own yet',
    'np_average_weights_fwd': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of np.average, which has no rule of its own yet',
}


test_case_names_unique, test_user_program, test_the_known_failures_are_still_open = corpus_tests(
    up.CASES, KNOWN, "tests/test_user_programs3.py")
