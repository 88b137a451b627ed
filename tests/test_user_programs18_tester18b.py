"""Round 18 (tester18b) of user programs (tests/user_programs18_[g-l].py): probabilistic
programming, user-written optimisers and hypergradients, simulations, ML from scratch,
Python styles, and higher-order compositions and edge values, each checked against
autograd, JAX with x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("ghijkl")
MODULES = ["user_programs18_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs18_{s}.py"))]

KNOWN = {
    # -- part g
    # log-sum-exp over mixture components by np.logaddexp.reduce / np.logaddexp.accumulate:
    # E202 "ufunc.reduce (ufunc.accumulate) has no derivative rule"; documented (a library
    # function with no rule, refused at the call; round 17 classified .accumulate so);
    # right: the responsibilities-weighted residuals sum_i r_ik (y_i - mu_k)
    "r18g_gmm_logaddexp_reduce": "refused-doc",
    "r18g_gmm_logaddexp_accumulate_last": "refused-doc",
    # -- part h
    # Adam's update writes new[k] = ... into a fresh dict `new = {}` in `for k in params`
    # (no other name holds it): E403 "assigning into new[...] changes a dict under a
    # condition, or in a loop while another name or container also holds it"; nothing
    # else holds `new`, and refusals.md's E403 names a dict changed in a loop only while
    # another name also holds it; right: central differences (the hypergradient); the same
    # dict built by a plain loop in a function of the lr alone works (see the report)
    "r18h_adam_dict_state_hypergrad_lr": "refused-undoc",
    "r18h_adam_jacfwd_params_wrt_lr": "refused-undoc",
    # opt.step(...) of an RMSProp object passed as an argument: E202 "method .init() is used
    # on or with a differentiated value", documented (containers.md "Not yet")
    "r18h_rmsprop_class_wrt_init": "refused-doc",
    # revsrc.hessian(logreg_nll) called inside a differentiated Newton loop: E104 "the
    # Jacobian of an array-valued function in an array argument ... its size is known only
    # when it runs", documented in README (the same loop with a hand Hessian passes)
    "r18h_newton_hessian_inside_wrt_labels": "refused-doc",
    "r18h_newton_unrolled_vs_implicit": "refused-doc",
    # grad_ridge(w, XT[idx], YT[idx], 0.0) inside a differentiated SGD loop, idx from
    # rng.choice(...) or from `for idx in idxs` over a list of index arrays: E104 "a revsrc
    # derivative called inside was made for a float here, and this value is a ndarray";
    # XT[idx] is an array in every call (the same call with XT whole, or with idx an array
    # argument, passes); the docs name only objects and dicts; right: central differences
    "r18h_sgd_minibatch_generator": "refused-undoc",
    "r18h_sgd_fixed_index_list": "refused-undoc",
    # revsrc.grad(linmodel_loss)(p, ...) inside a differentiated loop with p a dict made in
    # the function: E104 "a revsrc derivative called with an argument of kind 'dict'",
    # documented (a derivative called on a value whose kind is only known at run time)
    "r18h_clip_global_norm_hypergrad": "refused-doc",
    "r18h_adam_dict_comprehension_hypergrad_lr": "refused-doc",
    # -- part i
    # backend="jax" of a pendulum integrated by RK4 whose state is a tuple built by
    # comprehensions over zip(s, k1) and whose rhs is called as f(s, *args) (no branch on
    # traced values anywhere): E602 "this is a branch on a value computed from the
    # differentiated arguments that cannot run as a select of both arms", pointing at the
    # call line `s = rk4_step(pend_rhs, s, dt, L)`; not in jax.md; right: central
    # differences (the default backend gives them)
    "r18i_pendulum_rk4_backend_jax": "refused-undoc",
    # backend="jax": a 30-step loop over 5 edges traces to 13848 operations: E605, documented
    "r18i_relax_springs_backend_jax": "refused-doc",
    # -- part j
    # np.polyfit(TX, y, 2) with the targets differentiated, np.vander(nodes, 3) with the
    # nodes differentiated: E202 "numpy.polyfit / numpy.vander has no derivative rule"; the
    # docs name no NumPy function without a rule; right: the normal-equations closed form
    # and the gradient of the same fit with the powers stacked by hand
    "r18j_polyfit_polyval_wrt_targets": "refused-undoc",
    "r18j_vander_wrt_nodes": "refused-undoc",
    # -- part k
    # kern = RBF(ell) if kind == "rbf" else Matern32(ell) (objects of two classes chosen by
    # a conditional expression): E101 "a RBF object made in the function ... not be stored
    # in a value the program builds when it runs"; E105's row documents a container chosen
    # by an if and read after it, and the if-statement form is E105 (documented); right:
    # central differences (the object made directly passes)
    "r18k_gp_rbf_class_property": "refused-doc",
    "r18k_gp_matern_abs_class": "refused-doc",
    "r18k_gp_kernel_chosen_by_if_statement": "refused-doc",
    # dataclasses.replace, functools.reduce, itertools.pairwise / accumulate / chain:
    # E202, documented (standard-library functions with no rule)
    "r18k_dataclass_replace": "refused-doc",
    "r18k_reduce_operator_mul": "refused-doc",
    "r18k_itertools_pairwise_hypot": "refused-doc",
    "r18k_itertools_accumulate_initial": "refused-doc",
    "r18k_itertools_chain_two_arrays": "refused-doc",
    # recursion cheb(i, x) with i from enumerate over an array: E103, documented
    "r18k_chebyshev_recursion_ints": "refused-doc",
    # functools.reduce(lambda acc, a: acc * x + a, ...) and sorted(key=lambda i: x[i]):
    # E101, documented (a lambda used as a value that reads the function's variables)
    "r18k_reduce_lambda_reversed": "refused-doc",
    "r18k_sorted_key_lambda_ranks": "refused-doc",
    # a generator function (yield) called by the differentiated one: E101, documented
    "r18k_generator_function_yield": "refused-doc",
    # try: return np.sum(x ** 2) + ... / finally: log.append("done") (no return in the
    # finally): E101 "return inside a try statement with a finally clause"; refusals.md
    # names only a finally WITH return/break/continue ("other try statements are
    # followed"); right: 2x + 0.5
    "r18k_try_finally_without_return_in_finally": "refused-undoc",
    # s.energy(x) on a dataclass argument with x differentiated: E202, documented
    # (containers.md "Not yet": a method of an argument object)
    "r18k_dataclass_argument_method_wrt_x": "refused-doc",
    # -- part l
    # misuse: argnums past the parameters (E303), grad of a vector output (E302), an int
    # argument (E301), an hvp tangent of the wrong shape (E306): all documented
    "r18l_misuse_argnums_negative_too_far": "refused-doc",
    "r18l_misuse_grad_of_vector_output": "refused-doc",
    "r18l_misuse_int_argument": "refused-doc",
    "r18l_misuse_hvp_tangent_shape": "refused-doc",
    # jvp with an int primal: E301 "argument x is an int", documented
    "r18l_misuse_jvp_int_primal": "refused-doc",
    # backend="jax": a traced early return inside a for that slices with the loop
    # variable (x[:i]): E602, documented
    "r18l_backend_jax_early_return_slice": "refused-doc",
    # a write into an array held in a list through the loop variable (for r in rows:
    # r[0] = ...): E404, documented
    "r18l_inplace_rows_in_list_loop_variable": "refused-doc",
    # backend="jax": s[s < 0] = 0.0, a boolean mask of traced values: E603, documented
    "r18l_inplace_relu_mask_write_backend_jax": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
