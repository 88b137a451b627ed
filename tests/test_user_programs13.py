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
    # a helper with an ndarray default argument (`def fk_planar(q, L=LINKS)`, `q0=np.array(..)`)
    # called without it inside the differentiated function: TypeError "unhashable type:
    # 'numpy.ndarray'" or ValueError "truth value of an array ... is ambiguous" while
    # transforming; passing the array explicitly works (r13_default_array_arg_passed), the
    # right answers are autograd's / central differences' (L0 for the minimal case)
    "r13_reach_loss_vg": "crashed",
    "r13_reach_loss_hessian": "crashed",
    "r13_reach_loss_hvp": "crashed",
    "r13_reach_vmap_grad_batch": "crashed",
    "r13_reach_jax_backend": "crashed",
    "r13_ik_dls_cost": "crashed",
    "r13_ik_dls_value": "crashed",
    "r13_default_array_arg_helper": "crashed",
    # arm.tip(q) on an object argument: E202, documented (guide/containers.md "Not yet": a
    # method called with a differentiated value on an argument object)
    "r13_arm_class_property": "refused-doc",
    # revsrc.jacfwd of an array function called inside grad: E104, documented (README's
    # composition notes: a Jacobian in an array argument called inside)
    "r13_manipulability_via_jacfwd": "refused-doc",
    # -- part e
    # revsrc.hessian through np.cross: E104 "the derivative of np.cross has no rule of its own
    # yet"; np.cross is not in refusals.md's E104 list; right: 2(|c|^2 I - c c^T) for |u x c|^2
    "r13_mesh_area_hessian": "refused-undoc",
    "r13_cross_hessian_minimal": "refused-undoc",
    # -- part f
    # revsrc.grad(spring_energy)(x, EDGES, REST) called inside grad with list arguments: E104
    # (a derivative called on a value whose kind is known only at run time, documented kind);
    # with the lists as globals it works (r13_verlet_grad_inside_globals)
    "r13_verlet_grad_inside": "refused-doc",
    # -- part g
    # the default-array crash again (`xs=DATA` default of the helper, left out)
    "r13_mixture_loglik_hessian": "crashed",
    # hessian through `tuple(p)` of an array then unpacking: E104 "reading or writing items of
    # a list or dict"; `a, b = p` works; undocumented (refusals.md names comprehension-built
    # tuples only); right: central differences' Hessian
    "r13_mixture_loglik_hessian_data_passed": "refused-undoc",
    # -- part h
    # revsrc.grad(lambda z: ... theta ...) inside the function: E101, documented (a lambda
    # used as a value that reads the function's variables)
    "r13_inner_gd_with_revsrc_grad_lambda": "refused-doc",
    # -- part i
    # np.multiply(x, x, out=y) discarded: E401, documented (out=)
    "r13_ufunc_out_discarded": "refused-doc",
    # -- part j
    # int-decided recursion written `x if n == 0 else ...f(x, n - 1)...`: E103 "deeper than 40
    # levels" at depth 3; the `if` statement form works (r13_recursion_int_if_statement), right:
    # 1.16628593 (central differences)
    "r13_recursion_int_second_arg": "refused-undoc",
    # `Layer(0.7)(w, x)`, calling an object constructed in the expression: E101 "calling a value
    # computed inside the function"; `m = Layer(0.7); m(w, x)` works
    # (r13_construct_name_then_call); undocumented
    "r13_inheritance_base": "refused-undoc",
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
    # `sum(f(x) for f in FT)` over a global TUPLE of functions: E101 "calling a value computed
    # inside the function"; FT[i](x) works (r13_closures_tuple_by_index); docs say a global
    # tuple of functions works; right: 5.25
    "r13_closures_made_in_loop_tuple": "refused-undoc",
    # -- part k
    # revsrc.vjp(f, q)[1](ct) called straight from the subscript inside grad: E101 "calling a
    # value computed inside the function"; the named form works (r13_k_grad_of_vjp_named) and
    # README's table says grad of vjp is ok; right: jax.grad of jax.vjp
    "r13_k_grad_of_vjp": "refused-undoc",
    # -- part l
    # grad of an int argument: E301, documented
    "r13_l_int_arg_refused": "refused-doc",
    # -- part n
    # `c = A[:, j]; c += v` in a for loop (a fresh column view each turn): E404 "its kind was
    # not known before the call"; `c[j] = v` in the loop works (r13_n_column_view_item_loop),
    # and so does `A[:, j] += v`; undocumented; right: W @ [1, 2, 3] (closed form)
    "r13_n_column_view_in_loop": "refused-undoc",
    "r13_n_column_view_iadd_loop_minimal": "refused-undoc",
    # the default-argument crash with a dict default (unhashable type: 'dict'), a list
    # default ('list'), an array default of a bound method and an array keyword-only default
    # (truth value ambiguous); tuple, np.float32 and 0-d array defaults work; right answers:
    # closed forms 4.0, 2.0, 0.5*[1, 2, 3], 2*w*x
    "r13_n_helper_dict_default": "crashed",
    "r13_n_helper_list_default": "crashed",
    "r13_n_method_array_default": "crashed",
    "r13_n_kwonly_array_default": "crashed",
    # np.cumsum(x, out=y[1:]) discarded: E401, documented (out=)
    "r13_n_cumsum_out_view": "refused-doc",
    # -- part q
    # `(sq if flag else cube)(x)` with flag a bool argument: E101 "calling a value computed
    # inside the function"; not a name bound to two functions, undocumented; right: 3.0 / 6.75
    "r13_q_conditional_callee_true": "refused-undoc",
    "r13_q_conditional_callee_false": "refused-undoc",
    # `f = sq if flag else cube; f(x)`: E101, documented (a name bound to different functions)
    "r13_q_conditional_callee_named": "refused-doc",
    # getattr(PH, "force")(2.0, x) with a constant name on a module-level object: E101 "whose
    # name is known only when the function runs" (it is a literal); getattr(math, "tanh") works
    # (r13_q_getattr_constant_math) and PH.force(...) works; right: -0.8 / 0.8 + sech^2(0.8)
    "r13_q_getattr_constant_object": "refused-undoc",
    "r13_q_getattr_constant_name": "refused-undoc",
    # make_pow(3)(x), a factory called in the expression: E101 "calling a value computed
    # inside"; `p3 = make_pow(3); p3(x)` works (r13_q_factory_named_then_called); right: 5.83
    "r13_q_factory_called_in_expression": "refused-undoc",
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
    "r13_r_jit_int_floor_mod_negative": "refused-doc",
    "r13_r_jit_pow_mix": "refused-doc",
    "r13_r_jit_special_functions": "refused-doc",
    "r13_r_jit_numpy_scalar_calls": "refused-doc",
    "r13_r_jit_inf_nan_ops": "refused-doc",
    # -- part s
    # np.linalg.qr: E202, a NumPy function with no rule (documented kind)
    "r13_s_qr": "refused-doc",
    # hessian through np.linalg.det: E104, documented (det in either order)
    "r13_s_inv_det_hessian": "refused-doc",
    # hessian of an eigenvalue of np.linalg.eigh: E104, eigh not in refusals.md's list;
    # right: central differences' Hessian
    "r13_s_eigh_value_hessian": "refused-undoc",
    # -- part t
    # out.insert(i, v) on a local list: E401, a discarded call (documented kind); the same
    # sort with `out = out[:i] + [v] + out[i:]` works (r13_t_insertion_sort_list_concat)
    "r13_t_insertion_sort_list_insert": "refused-doc",
    # -- part u (backend="jax" against the default backend)
    # an early return on a traced test, then a for with a traced break: E602; each alone works
    # (guide/jax.md says both are followed); right: the default backend's 0.27273575...
    "r13_u_jax_final_size_break": "refused-undoc",
    "r13_u_jax_final_size_subcritical": "refused-undoc",
    # bubble sort with a `swapped` flag set in a traced if and `if not swapped: break`: E603
    # wrapping JAX's TracerBoolConversionError; right: the default backend's W[rank]
    "r13_u_jax_bubble_sort": "refused-undoc",
    # nested fors with continue and a traced early return writing acc[j]: E602 wrapping "pytree
    # structure error"; right: the default backend's gradient (fd-checked in part t)
    "r13_u_jax_nested_continue_return": "refused-undoc",
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
    # a module-level functools.partial binding an ndarray (keyword or positional), or a
    # module-level lambda with an ndarray default, called inside: ValueError "truth value of
    # an array ... ambiguous" (the default-argument crash again); right: 2*W*x
    "r13_y_partial_kw_array_called_inside": "crashed",
    "r13_y_partial_pos_array_called_inside": "crashed",
    "r13_y_lambda_array_default_inside": "crashed",
    "r13_y_partial_kw_array_vmap_grad": "crashed",
    # -- part z
    # next(g) of a generator expression kept in a name: refused (documented in refusals.md's
    # E101 row, next(g); the code given is E202 "next has no derivative rule")
    "r13_z_generator_next": "refused-doc",
    # recursion over a nested list's structure: E103, documented (recursion not decided by ints)
    "r13_z_recursive_tree_constant_structure": "refused-doc",
    "r13_z_recursive_tree_diff_leaves": "refused-doc",
    # -- part za
    # a helper's default that is a view of a global array (w=W[::-1]), left out at the call:
    # TypeError unhashable ndarray (the default-argument crash); right: 2*W*x
    "r13_za_view_default": "crashed",
    # cfg.loss(x) on an object that is a keyword default of the helper: E202, documented kind
    # (a method on an object revsrc only sees when the function runs, guide/containers.md)
    "r13_za_object_default_method": "refused-doc",
    # -- part zb
    # a module-level revsrc derivative called inside on the items of a global list or tuple of
    # floats in a loop: E104 "called with x, whose kind only the call's own results decide, is
    # not a float there"; over np.array(XS) it works (r13_zb_pinn_over_global_array), and so
    # do calls with constants; undocumented; right: the closed form pinn_ref
    "r13_zb_pinn_grad_inside": "refused-undoc",
    "r13_zb_pinn_hessian": "refused-undoc",
    "r13_zb_pinn_over_global_tuple": "refused-undoc",
    # the same with du_dx(XS[i], th): the E104 message names an internal temporary `_t2`
    "r13_zb_pinn_indexed_global_list": "crashed",
    # revsrc.hessian of an array function called inside grad: E104, documented (README)
    "r13_zb_hessian_inside_grad": "refused-doc",
    # revsrc.jvp(lambda x: u(x, th), ...) inside: E101, documented (a lambda used as a value
    # that reads the function's variables)
    "r13_zb_jvp_inside_grad": "refused-doc",
    # -- part zc
    # the same E104 over a list argument, a local list, np.linspace's items; a generator over a
    # constant tuple, a range-made float and a global array work; right: cos(0.3) + cos(0.5)
    "r13_zc_derivative_over_list_argument": "refused-undoc",
    "r13_zc_derivative_over_local_list": "refused-undoc",
    "r13_zc_derivative_over_linspace": "refused-undoc",
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
