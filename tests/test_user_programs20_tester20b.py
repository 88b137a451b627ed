"""Round 20 (tester20b) of user programs (tests/user_programs20_[g-l].py): geometry
processing and graphics, Bayesian statistics without sampling, numerical linear algebra
written by users, time series and forecasting, Python styles not yet common, and
higher-order compositions with edge values, each checked against autograd, JAX with
x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("ghijkl")
MODULES = ["user_programs20_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs20_{s}.py"))]

KNOWN = {
    # -- part h
    # grouping constant data with `data.setdefault(int(g), []).append(y)` in a loop: E401 "a
    # call whose result is discarded (data.setdefault(int(g), []).append) can only act through
    # side effects"; refusals.md names d.setdefault(k, v) of a key the dict lacks in a loop as
    # refused (E101 there); right: central differences, and the same program written
    # data[g] = data.get(g, []) + [y] passes (r20h_random_intercept_dict_get_equals_dense)
    "r20h_random_intercept_woodbury_equals_dense": "refused-doc",
    "r20h_random_intercept_woodbury_fd": "refused-doc",
    # PRIORS, a module-level dict of prior objects, PRIORS["slope"].logpdf(slope) inside the
    # function: E202 "method .logpdf() is used on or with a differentiated value", documented
    # (containers.md "Not yet": a method of a module-level object); the priors built inside the
    # function pass (r20h_priors_built_inside_*)
    "r20h_priors_dict_of_class_objects": "refused-doc",
    "r20h_priors_dict_of_class_objects_hessian": "refused-doc",
    # -- part j
    # a bound method of a module-level object passed as a parameter (a default
    # forecast=MODEL.forecast, bound by functools.partial, or passed positionally) and called
    # in the function: E101 "calling a value computed inside the function is not supported";
    # the docs say functions passed as arguments work (control-flow.md "Calls") and E202's
    # rewrite suggests a bound method or partial; a plain function passed so works; right:
    # central differences (calling MODEL.forecast by name passes)
    "r20j_forecaster_bound_method_default": "refused-undoc",
    "r20j_forecaster_bound_method_through_partial": "refused-undoc",
    "r20j_forecaster_bound_method_positional_arg": "refused-undoc",
    # np.resize of a differentiated array: E202 "numpy.resize has no derivative rule"; not in
    # the docs; right: central differences (np.tile passes, r20j_seasonal_decompose_tile)
    "r20j_seasonal_decompose_convolve_valid": "refused-undoc",
    # backend="jax": `ll += ...` / `sse += err * err` carried through a loop: E404 "this changes
    # a number or array in place ... its kind was not known before the call", documented
    # (refusals.md E404, backend="jax": write acc = acc + v; that passes,
    # r20j_local_level_plain_add_backend_jax)
    "r20j_kalman_backend_jax": "refused-doc",
    "r20j_holt_winters_backend_jax": "refused-doc",
    # backend="jax": min() of traced floats in DTW: E603, documented
    "r20j_dtw_backend_jax": "refused-doc",
    # -- part k
    # a closure factory called inside the function, make_pk_model(dose)(ka, ke) (or f =
    # make_pk_model(dose); model = f(ka, ke)), then model(t): E101 "calling a value computed
    # inside the function is not supported"; control-flow.md says closures and nested defs are
    # followed, refusals.md does not name this; right: autograd (the same closures made at
    # module level pass, r20k_pk_closure_of_closure)
    "r20k_pk_closure_factory_inside": "refused-undoc",
    "r20k_pk_closure_factory_wrt_dose": "refused-undoc",
    # scaler(a) returning `lambda x: a * x`, composed inside the function: E101 "a lambda used
    # as a value that reads the function's variables", documented
    "r20k_compose_star_closures_inside": "refused-doc",
    # calls["n"] += 1 on a dict of the enclosing function: E403, documented
    "r20k_closure_counter_dict_mutation": "refused-doc",
    # `global N_EVALS; N_EVALS += 1`: E402, documented
    "r20k_global_counter_statement": "refused-doc",
    # (p + q)(x): calling the Polynomial that p.__add__ returns, directly: E101 "calling a value
    # computed inside the function is not supported"; containers.md says objects returned by
    # operators are followed and __call__ is inlined (r = p + q; r(x) passes,
    # r20k_polynomial_add_named_then_call); right: central differences
    "r20k_polynomial_add_call_dunder": "refused-undoc",
    # itertools.pairwise / chain / accumulate (of a list or of a generator expression passed
    # to it) and functools.reduce: E202 "... has no derivative rule and no Python source to
    # transform" (E101 "a generator expression kept for later" for accumulate of a generator
    # passed in the call); the docs name itertools.count, cycle and islice only; right:
    # autograd / central differences
    "r20k_itertools_pairwise_path_length": "refused-undoc",
    "r20k_itertools_accumulate_operator_mul": "refused-undoc",
    "r20k_itertools_chain_of_generators": "refused-undoc",
    "r20k_functools_reduce_operator_mul": "refused-undoc",
    "r20k_itertools_accumulate_of_list": "refused-undoc",
    # lambdas reading the function's variables passed to starmap and sorted(key=): E101,
    # documented
    "r20k_itertools_starmap_lambda_closure": "refused-doc",
    "r20k_sorted_key_lambda_top_k": "refused-doc",
    # yield in a helper, a set comprehension, `preds = map(...)` kept for later: E101,
    # documented
    "r20k_generator_function_yield": "refused-doc",
    "r20k_set_comprehension_of_constants": "refused-doc",
    "r20k_zip_star_and_map_lambda_closure": "refused-doc",
    # -- part l
    # revsrc.grad of a lambda made inside the function being transformed: E101, documented
    "r20l_grad_of_newton_with_inner_grad_of_lambda": "refused-doc",
    "r20l_jit_newton_with_inner_grad": "refused-doc",
    # misuse: an int and an int array in argnums (E301), argnums past the parameters (E303),
    # a tangent of the wrong shape and mapped axes of different sizes (E306), grad of a
    # vector output (E302): all documented
    "r20l_int_argument_refused": "refused-doc",
    "r20l_int_array_argument_refused": "refused-doc",
    "r20l_argnums_past_parameters": "refused-doc",
    "r20l_hvp_wrong_tangent_shape": "refused-doc",
    "r20l_grad_of_vector_output": "refused-doc",
    "r20l_vmap_mismatched_sizes": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
