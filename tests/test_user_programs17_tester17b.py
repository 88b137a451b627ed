"""Round 17 (tester17b) of user programs (tests/user_programs17_{g..l}.py): statistics
(GLMs, survival, mixtures, MLE, Bayesian posteriors), reinforcement learning and control,
numerical methods inside the loss, geometry processing and graphics, ML models written
from scratch with optimizers in Python loops, and Python styles and misuse, each checked
against autograd, JAX with x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("ghijkl")
MODULES = ["user_programs17_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs17_{s}.py"))]

KNOWN = {
    # -- part g
    # Cox partial likelihood with the risk-set log-sum-exp by np.logaddexp.accumulate:
    # E202 "ufunc.accumulate has no derivative rule"; documented (a library function with
    # no rule is refused at the call); right: central differences of the same program
    "r17g_cox_logaddexp_accumulate": "refused-doc",
    # sorted(range(n), key=lambda j: t[j]) inside the loss: E101 "a lambda used as a value
    # that reads the function's variables"; documented (refusals.md E101); right: autograd's
    "r17g_cox_sorted_mask_loop": "refused-doc",
    # a bound method calling self.prior.logp(w) (a method of an object held in an attribute):
    # E202 "method .logp() is used on or with a differentiated value"; documented
    # (containers.md "Not yet": a method of an object revsrc only sees when it runs); the
    # same model with the prior as a method of self works (r17g_bayes_self_methods_property)
    "r17g_bayes_logistic_method_property": "refused-doc",
    # hessian of a weighted Gaussian NLL through np.average(..., weights=w), and of a NLL
    # through np.nanmean (missing data): E104 "differentiating a derivative again goes
    # through the derivative of np.average / np.nanmean, which has no rule of its own yet";
    # refusals.md E104 lists np.prod, np.std, np.cumprod, np.sinc, np.einsum, ... but not
    # these; their gradients work; right: JAX's hessian / central differences
    "r17g_np_average_weights_hessian": "refused-doc",   # (refusals.md E104 names it since)
    "r17g_nanmean_missing_data_hessian": "refused-doc",   # (refusals.md E104 names it since)
    # a Laplace-approximation log evidence that calls revsrc.hessian(neg_log_joint)(w, alpha)
    # inside (Newton to the mode, then slogdet of the Hessian), differentiated in log alpha:
    # E104 "hessian_neg_log_joint, called inside a function revsrc transforms, is the Jacobian
    # of an array-valued function in an array argument: its size is known only when it runs"
    # (w starts as np.zeros(2); its size is known); composing.md says derivatives can be
    # called inside a function you differentiate (revsrc.grad inside works:
    # r17g_hmc_leapfrog_inner_grad_*); right: central differences, -0.0737312596
    "r17g_laplace_evidence_inner_hessian": "refused-undoc",
    # -- part h
    # backend="jax" while loop still running after max_steps=50: E604, documented
    "r17h_vi_while_max_steps_exceeded": "refused-doc",
    # hvp of soft value iteration through np.einsum: E104, documented (np.einsum at second
    # order)
    "r17h_soft_vi_hvp": "refused-doc",
    "r17h_soft_vi_hvp_backend_jax": "refused-doc",
    # hessian through np.linalg.matrix_power (n-step occupancy of a softmax policy): E104
    # "goes through the derivative of np.linalg.matrix_power, which has no rule of its own
    # yet"; not in refusals.md's E104 list; the loop of matrix products works
    # (r17h_occupancy_loop_hessian); right: JAX's hessian of the loop form
    "r17h_matrix_power_occupancy_hessian": "refused-doc",   # (refusals.md E104 names it since)
    # -- part i
    # gauss_legendre(lambda x: np.sqrt(1 + dy(x) ** 2), ...) with dy a closure: E101, a lambda
    # used as a value (documented); the nested-def version works
    "r17i_gauss_legendre_arc_length": "refused-doc",
    # revsrc.jit of a plain scalar Heron iteration whose step is in try/except
    # ZeroDivisionError: E502 "a step of the derivative revsrc wrote for this line has no
    # engine instruction" (no derivative was asked for); jit.md lists loops, branches, early
    # returns and raise, and does not mention try; grad of it works; right: the plain call,
    # 1.4142135623730951
    "r17i_heron_try_jit": "refused-undoc",
    # backend="jax" of adaptive step-size control: min(h, T - t) of traced floats: E603,
    # documented (jax.md: max() and min() of traced floats)
    "r17i_adaptive_heun_step_control_backend_jax": "refused-doc",
    # -- part j
    # de_casteljau(P, t, n) recursing on n = len(P) (P an array argument, so n is an int known
    # while transforming): E103 "calls itself (recursion) with no int argument known when
    # transforming"; the docs say recursion decided by ints is unrolled (their examples: a
    # constant, or an int argument of the function transformed); with the constant 4 it works
    # (r17j_de_casteljau_const_depth); right: autograd's gradient
    "r17j_de_casteljau_int_recursion": "refused-undoc",
    # hessians through np.roll (shoelace area of a polygon), np.kron (+ triu/tril) and
    # np.interp in its values (texture lookup): E104 "differentiating a derivative again goes
    # through the derivative of np.roll / np.kron / np.interp, which has no rule of its own
    # yet"; none is in refusals.md's E104 list (their gradients work); right: JAX's hessian
    "r17j_kron_triu_tril_hessian": "refused-doc",   # (refusals.md E104 names it since)
    "r17j_np_interp_values_hessian": "refused-doc",   # (refusals.md E104 names it since)
    # -- part k
    # hypergradient in the learning rate of an SGD-with-momentum loop that calls
    # revsrc.grad(mse)(tuple(params), x, y) on a list it rebuilds: E104 "a revsrc derivative
    # called with an argument of kind 'tuple'"; the docs name objects and dicts for E104, and
    # say derivatives in containers can be called inside; right: central differences
    "r17k_sgd_momentum_lr_hypergrad": "refused-undoc",
    # the same with W, b = params (a tuple argument NOT differentiated, lr is) and the inner
    # call revsrc.grad(mse)((W, b), x, y): E104 "a revsrc derivative called inside was made
    # for a float here, and this value is a ndarray" (W is an array); the same program
    # differentiated in params (argnums=1) works; right: central differences
    "r17k_sgd_momentum_tuple_literal_hypergrad": "refused-undoc",
    # Adam with params rebound to a dict built in the loop, inner revsrc.grad(dict_mse)(params):
    # E104 "called with params, whose kind only the call's own results decide"; documented
    # (E104: a derivative called on a value whose kind is only known at run time, a dict)
    "r17k_adam_clip_dict_lr_hypergrad": "refused-doc",
    # Adam written with names W, b = params["W"], params["b"] (a dict argument not
    # differentiated) and inner revsrc.grad(dict_mse)({"W": W, "b": b}, ...): E104 "made for a
    # float here, and this value is a ndarray"; right: central differences
    "r17k_adam_clip_named_lr_hypergrad": "refused-undoc",
    # revsrc.grad of a lambda made inside the function (a gradient penalty): E101, documented
    # (define it at module level: r17k_gradient_penalty_module_def works)
    "r17k_gradient_penalty_inner_lambda": "refused-doc",
    # hessian in a bias b of np.sum(np.tanh(H + np.broadcast_to(b, H.shape)) ** 2): E104
    # "differentiating a derivative again goes through a step of the derivative revsrc wrote
    # for this line, which has no rule of its own yet"; np.broadcast_to is not in the E104
    # list; right: JAX's hessian
    "r17k_broadcast_to_bias_hessian": "refused-doc",   # (refusals.md E104 names it since)
    # backend="jax" with a Generator argument (rng.random inside): E603, documented
    "r17k_dropout_generator_arg_backend_jax": "refused-doc",
    # -- part l
    # yield in a generator function called by the loss, and in a nested def: E101, documented
    "r17l_generator_function_minibatches": "refused-doc",
    "r17l_nested_generator_def": "refused-doc",
    # recursion on a differentiated value, and on the structure of a nested tuple argument:
    # E103, documented (only recursion that ints decide is unrolled)
    "r17l_value_recursion_refused": "refused-doc",
    "r17l_recursion_over_nested_tuple": "refused-doc",
    # hessian with respect to a dataclass: E104, documented
    "r17l_dataclass_hessian_refused": "refused-doc",
    # a loop in a try body: E101, documented
    "r17l_try_body_with_loop_refused": "refused-doc",
    # try: scale = params["scale"] except KeyError: scale = 1.0, with the key missing: E105
    # "key 'scale' is not in a dict argument"; the plain program runs (Python catches the
    # KeyError), control-flow.md says try/except is followed along the path the run took, and
    # E105's missing key is described as a line Python would fail on; right: {"w": [3, -1]}
    "r17l_try_keyerror_missing_key": "refused-undoc",
    # x[0] = 0.0 on the argument: E403; nonlocal: E402; documented
    "r17l_inplace_write_to_argument_refused": "refused-doc",
    "r17l_nonlocal_counter_refused": "refused-doc",
    # misuse: argnums past the parameters E303, an int argument E301, a vector output E302, a
    # tangent of the wrong shape E306 (documented); has_aux=True on a function returning a
    # float: E302 "must return a pair (value, aux)" (api.md: with has_aux f returns a pair)
    "r17l_argnums_out_of_range": "refused-doc",
    "r17l_grad_wrt_int_refused": "refused-doc",
    "r17l_vector_output_refused": "refused-doc",
    "r17l_jvp_tangent_wrong_shape": "refused-doc",
    "r17l_has_aux_not_a_pair": "refused-doc",
    # the vjp pullback called after a global it reads was rebound: E204, documented
    "r17l_vjp_after_global_rebound_refused": "refused-doc",
    # math.fmod and .tolist() of a differentiated value: E202, documented (no rule)
    "r17l_tolist_no_rule": "refused-doc",
    # max(range(n), key=lambda k: v[k]): E101, documented (a lambda used as a value)
    "r17l_max_key_lambda_refused": "refused-doc",
    # itertools.pairwise, itertools.accumulate, iter(): E202, documented (standard-library
    # functions with no rule); functools.reduce(lambda acc, a: acc * x + a, ...): E101 (a
    # lambda reading the function's variables); x := ...: E101; all documented
    "r17l_itertools_pairwise_path": "refused-doc",
    "r17l_itertools_accumulate_returns": "refused-doc",
    "r17l_functools_reduce_horner": "refused-doc",
    "r17l_iter_next_header": "refused-doc",
    "r17l_walrus_in_genexpr": "refused-doc",
    # revsrc.jit of a scalar function returning sum([ke, pe, -0.1 * v * h]): E502 "a list built
    # in the function and read other than by sum(...) (an item, its length)"; the list is read
    # only by sum (jit.md: sum of a generator, or of a list built by appending, compiles);
    # right: the plain call, 37.83
    "r17l_jit_sum_of_list_literal": "refused-undoc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
