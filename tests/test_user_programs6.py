"""Runs the user programs of tests/user_programs6*.py against their references.

Corpus 6 (see user_programs6_harness.py): memory= on long loops, revsrc.vmap of array
programs and its compositions, Jacobians / Hessians with several outputs, small-array
loops, NumPy 2 keywords and dtypes, views and in-place writes, pytrees, objects,
rebound globals, edge values.  Every case is checked against an independent reference
(JAX x64, central differences or a closed form), and every refusal must be a coded
RevsrcError naming none of revsrc's internals (else it counts as "crashed").

``KNOWN`` records each case that is not "ok" today with its class: "refused-doc"
(a refusal the docs describe), "refused-undoc" (refused, though the docs promise it
or say nothing), "wrong" or "crashed".  A KNOWN case must keep that outcome; one that
starts passing fails the test with a message asking to remove it from KNOWN.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs6a", "user_programs6b", "user_programs6c", "user_programs6d",
           "user_programs6e", "user_programs6f", "user_programs6g", "user_programs6h",
           "user_programs6i", "user_programs6j", "user_programs6k", "user_programs6l",
           "user_programs6m", "user_programs6n", "user_programs6o", "user_programs6p",
           "user_programs6q", "user_programs6r", "user_programs6s"]

KNOWN = {
    # -- WRONG ----------------------------------------------------------------------------------
    # (fixed before the merge: an item read from an array made by x.copy(), np.copy,
    # np.array, astype, flatten or concatenate followed later writes into that array,
    # as if it were a view: old = y[0]; y[0] = ...; old gave the new value. 31 cases.)
    # (fixed: a value whose local derivative is inf or nan (sqrt at 0, log at 0, an exp
    # that overflowed) used only on a path not taken turned the gradient into nan
    # (0 * inf): adjoints now carry structural zeros, revsrc/passes/reverse/zeros.py.
    # 13 cases; more in tests/test_structural_zero.py.)
    # -- CRASHED (none left) ----------------------------------------------------------------------
    # -- refused, documented --------------------------------------------------------------------
    "grad_of_hessian_trace_array_documented": "refused-doc",  # E104 hessian made inside f
    "grad_of_global_hessian_trace": "refused-doc",          # E104 grad of hessian, array program
    "np2_grad_vecdot": "refused-doc",                       # E202: NumPy 2 functions with no rule
    "np2_jvp_vecdot": "refused-doc",
    "np2_grad_matrix_transpose": "refused-doc",
    "np2_jvp_matrix_transpose": "refused-doc",
    "np2_grad_mT": "refused-doc",                           # E202 attribute .mT
    "np2_jvp_mT": "refused-doc",
    "dtype_grad_wrt_int_refused_E301": "refused-doc",
    "dtype_grad_wrt_bool_array_refused": "refused-doc",
    "view_split_piece_imul": "refused-doc",                 # E404 p *= 2 on an np.split piece
    "view_write_into_argument_E403": "refused-doc",
    "view_diagonal_readonly_write": "refused-doc",          # E404 read-only view
    "tree_namedtuple_hessian_documented_E104": "refused-doc",
    "tree_dataclass_str_field_E301": "refused-doc",
    "ax_hessian_dataclass_documented_E104": "refused-doc",
    "tup_jit_list_swap_exact": "refused-doc",     # E502 a list inside a jitted function
    "calls_jacfwd_newton_step_documented_E104": "refused-doc",  # E104 hessian called inside
    "np2h_std_correction": "refused-doc",          # E104 second derivatives through np.std
    # -- refused, undocumented --------------------------------------------------------------------
    "view_list_of_rows_write": "refused-doc",      # E404 rows = [m[i].copy() ...]; rows[1][0] = ...
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
