"""Adversarial user programs, round 4 (user_programs4.py), run by corpus_harness.corpus_tests:
KNOWN lists the cases still open, and can only shrink."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import user_programs4 as up  # noqa: E402
from corpus_harness import corpus_tests  # noqa: E402

KNOWN = {
    'uq_polynomial_chaos_hermite_jax': "refused-undoc: [E603] backend='jax' has no jax.numpy lowering for 'factorial'",
    'edge_int_division_of_float': 'refused-undoc: [E202] divmod has no derivative rule and no Python source to transform',
    'edge_nested_closure_loop_variable': 'refused-undoc: [E101] a nested function can only be called, not passed as a value',
    'edge_object_argument_attribute_changed': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'edge_jit_object_attribute_changed': 'refused-undoc: [E101] calling a value computed inside the function is not supported',
    'view_split_piece_inplace': 'refused-undoc: [E404] this changes a ndarray in place, which revsrc could not follow here (its kind was not known before the call)',
    'view_split_piece_inplace_hess_hess': 'refused-undoc: [E104] differentiating a derivative again goes through the derivative of a write into an array in place (through an item or a view), which has no rule of its own yet',
    'jaxb_physics_balls_jax': "refused-undoc: [E602] backend='jax' compiles the derivative with jax.jit, and this is a branch on a value computed from the differentiated arguments that cannot run as a select of both arms (it leaves a loop, raises",
    'edge_list_sort_in_place_of_local': 'refused-undoc: [E401] a call whose result is discarded (vals.sort) can only act through side effects, which revsrc refuses',
    'ml_gp_nll_cholesky_ell_jax': "refused-undoc: [E603] backend='jax': this operation has no jax.numpy lowering for these values (TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape float",
    'py_dataclass_layers_x_hessian': 'refused-undoc: [E104] forward mode over this derivative goes through reading an attribute, which has no forward rule yet',
    'np_eigvalsh_spectral_loss_hess': 'refused-doc: [E104] differentiating a derivative again goes through the derivative of np.linalg.eigvalsh',
    'np_sort_quantile_loss_hess': 'refused-undoc: [E202] numpy.quantile has no derivative rule and no Python source to transform',
    'py_complex_cmath_holomorphic': 'refused-undoc: [E202] cmath.exp has no derivative rule and no Python source to transform',
}


# Not run: backend="jax" on this program unrolls its nested Python loops (20 steps x 4
# x 4 pairs) to some 25,000 operations, which XLA compiled in many GB. It is now
# refused with E605 once traced (half a minute of tracing: too slow for the suite);
# tests/test_round6_fixes.py checks the refusal on a small program.
NOT_RUN = {'jaxb_physics_balls_jax'}

test_case_names_unique, test_user_program, test_the_known_failures_are_still_open = corpus_tests(
    up.CASES, KNOWN, "tests/test_user_programs4.py", not_run=NOT_RUN)
