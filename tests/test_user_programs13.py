"""Round 13 of user programs (tests/user_programs13_*.py): new domains and Python styles
(robotics, epidemiology and ecology, NumPy ML layers, signal processing, geometry and
meshes, PDEs and physics, probability, optimisation inside the loss, NumPy idioms and
views, Python styles, compositions, edge values and types, checkpointed loops), each
checked against JAX with x64, autograd, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdefghijklmnopqrstuvwxyz") + ["z" + s for s in "abcdefghijklmnopqrstuvwxyz"]
MODULES = ["user_programs13_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs13_{s}.py"))]

KNOWN = {
    # -- part a
    # arm.tip(q) on an object argument: E202, documented (guide/containers.md "Not yet": a
    # method called with a differentiated value on an argument object)
    "r13_arm_class_property": "refused-doc",
    # revsrc.jacfwd of an array function called inside grad: E104, documented (README's
    # composition notes: a Jacobian in an array argument called inside)
    "r13_manipulability_via_jacfwd": "refused-doc",
    # -- part e
    # -- part f
    # revsrc.grad(spring_energy)(x, EDGES, REST) called inside grad with list arguments: E104
    # (a derivative called on a value whose kind is known only at run time, documented kind);
    # with the lists as globals it works (r13_verlet_grad_inside_globals)
    "r13_verlet_grad_inside": "refused-doc",
    # -- part g
    # -- part h
    # revsrc.grad(lambda z: ... theta ...) inside the function: E101, documented (a lambda
    # used as a value that reads the function's variables)
    "r13_inner_gd_with_revsrc_grad_lambda": "refused-doc",
    # -- part i
    # np.multiply(x, x, out=y) discarded: E401, documented (out=)
    "r13_ufunc_out_discarded": "refused-doc",
    # -- part j
    # s.energy(...) of a dataclass in a list argument: E202, documented (method on an argument
    # object, guide/containers.md)
    "r13_dataclass_method_zip": "refused-doc",
    # grad with respect to a list of dataclasses whose methods are called: E202 "a container
    # built as a value", documented (guide/containers.md)
    "r13_dataclass_wrt_fields": "refused-doc",
    # functools.reduce with a lambda reading x: E101 (documented: a lambda used as a value)
    "r13_reduce_horner": "refused-doc",
    # functools.reduce(operator.mul, xs): E202, documented kind (a standard-library function
    # with no rule and no source)
    "r13_reduce_operator_mul": "refused-doc",
    # a generator helper with yield: E101, documented (yield)
    "r13_generator_function_yield": "refused-doc",
    # CLOS[0](x) of a global list: E101, documented
    "r13_closures_made_in_loop_list": "refused-doc",
    # -- part k
    # -- part l
    # grad of an int argument: E301, documented
    "r13_l_int_arg_refused": "refused-doc",
    # -- part n
    # np.cumsum(x, out=y[1:]) discarded: E401, documented (out=)
    "r13_n_cumsum_out_view": "refused-doc",
    # -- part q
    # `f = sq if flag else cube; f(x)`: E101, documented (a name bound to different functions)
    "r13_q_conditional_callee_named": "refused-doc",
    # np.apply_along_axis, itertools.accumulate, itertools.pairwise, math.isclose: E202, a
    # library function with no rule and no source (documented kind)
    "r13_q_apply_along_axis": "refused-doc",
    "r13_q_itertools_accumulate": "refused-doc",
    "r13_q_itertools_pairwise": "refused-doc",
    "r13_q_assert_fstring_chain_cmp": "refused-doc",
    "r13_q_assert_fstring_chain_cmp_else": "refused-doc",
    # -- part r
    # revsrc.jit of scalar programs calling math.fmod, 3-argument pow, math.lgamma, np.sinc,
    # math.isinf: E502, documented (a call without an engine instruction); the same programs
    # without those calls compile and give the plain call's bits (the *_no* cases)
    "r13_r_jit_pow_mix": "refused-doc",
    "r13_r_jit_special_functions": "refused-doc",
    "r13_r_jit_numpy_scalar_calls": "refused-doc",
    "r13_r_jit_inf_nan_ops": "refused-doc",
    # -- part s
    # np.linalg.qr: E202, a NumPy function with no rule (documented kind)
    "r13_s_qr": "refused-doc",
    # hessian of an eigenvalue of np.linalg.eigh: E104, documented since round 13 (refusals.md's
    # E104 row names eigh, eigvalsh and eig); right: central differences' Hessian
    "r13_s_eigh_value_hessian": "refused-doc",
    # -- part t
    # out.insert(i, v) on a local list: E401, a discarded call (documented kind); the same
    # sort with `out = out[:i] + [v] + out[i:]` works (r13_t_insertion_sort_list_concat)
    "r13_t_insertion_sort_list_insert": "refused-doc",
    # -- part u (backend="jax" against the default backend)
    # backend="jax": an early return on a traced test, then a for with a traced break (E602);
    # nested fors with continue and a traced early return writing acc[j] (E602): both listed
    # in refusals.md's E602 row since round 13; a `swapped` flag set in a traced if and
    # `if not swapped: break` (E603 wrapping TracerBoolConversionError, at the line: listed in
    # the E603 row since round 13); right: the default backend's numbers
    "r13_u_jax_final_size_break": "refused-doc",
    "r13_u_jax_final_size_subcritical": "refused-doc",
    "r13_u_jax_bubble_sort": "refused-doc",
    "r13_u_jax_nested_continue_return": "refused-doc",
    # rows[i] = rows[i] - 1.0 on a list under a traced if: E602 "changes a list in place",
    # documented (guide/jax.md: lists and dicts built again each turn)
    "r13_u_jax_list_of_arrays": "refused-doc",
    # k = int(np.argmax(y)) of a traced array: E603 (a concrete int from traced values,
    # documented with range(int(k)))
    "r13_u_jax_argmax_write": "refused-doc",
    # a dict rebuilt each turn: E603, documented (guide/jax.md)
    "r13_u_jax_dict_accumulator": "refused-doc",
    # y[m] with a traced boolean mask: E603, no jax.numpy lowering (documented kind)
    "r13_u_jax_masked_update": "refused-doc",
    # -- part y
    # -- part z
    # next(g) of a generator expression kept in a name: refused (documented in refusals.md's
    # E101 row, next(g); the code given is E202 "next has no derivative rule")
    "r13_z_generator_next": "refused-doc",
    # recursion over a nested list's structure: E103, documented (recursion not decided by ints)
    "r13_z_recursive_tree_constant_structure": "refused-doc",
    "r13_z_recursive_tree_diff_leaves": "refused-doc",
    # -- part za
    # cfg.loss(x) on an object that is a keyword default of the helper: E202, documented kind
    # (a method on an object revsrc only sees when the function runs, guide/containers.md)
    "r13_za_object_default_method": "refused-doc",
    # -- part zb
    # revsrc.hessian of an array function called inside grad: E104, documented (README)
    "r13_zb_hessian_inside_grad": "refused-doc",
    # revsrc.jvp(lambda x: u(x, th), ...) inside: E101, documented (a lambda used as a value
    # that reads the function's variables)
    "r13_zb_jvp_inside_grad": "refused-doc",
    # -- part zc
    # -- part ze
    # np.subtract.at, np.multiply.at, np.put into a local array: E401, documented (a discarded
    # call revsrc does not inline; the message names np.add.at / fill_diagonal / copyto as
    # followed)
    "r13_ze_subtract_at_jacrev": "refused-doc",
    "r13_ze_subtract_at_jacfwd": "refused-doc",
    "r13_ze_multiply_at_repeats_jacrev": "refused-doc",
    "r13_ze_multiply_at_repeats_jacfwd": "refused-doc",
    "r13_ze_np_put_jacrev": "refused-doc",
    "r13_ze_np_put_jacfwd": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
