"""Round 14 of user programs (tests/user_programs14_*.py): control and estimation,
chemistry and kinetics, structural mechanics, statistics and ML, finance, graphics and
geometry, physics, Python styles, NumPy idioms, compositions, edge values and types, state
between calls, small-array loops with checkpointing, and scalar programs through jit, vmap
and backend="jax", each checked against autograd, JAX with x64, central differences or a
closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdefghijklmnopqrstuvwxyz")
MODULES = ["user_programs14_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs14_{s}.py"))]

KNOWN = {
    # -- part a
    # -- part c
    # revsrc.hessian of an array function called inside grad: E104, documented (README, as
    # r13_zb_hessian_inside_grad); right: -9.81*[4,3,2,1]/k**2
    "r14_chain_newton_grad_through_grad_hessian": "refused-doc",
    # hessian / jacfwd(grad) through np.einsum: E104, documented (refusals.md E104 row: einsum)
    "r14_svk_einsum_hessian": "refused-doc",
    "r14_svk_jacfwd_of_grad": "refused-doc",
    # -- part d
    # revsrc.jit of a scalar lambda building np.array([a, b, c]): E502, documented (an array
    # inside the function); right: huber's plain value 3.78
    "r14_huber_jit_value": "refused-doc",
    # -- part h
    # dataclasses.replace on a differentiated field: E202, documented kind (a standard-library
    # function with no rule); right: d/dd of the shifted Gaussian's log-likelihood
    "r14_frozen_dataclass_replace_method": "refused-doc",
    # -- part i
    # np.multiply(x, x, out=y) discarded: E401, documented (out=)
    "r14_ufunc_out_returned_ignored": "refused-doc",
    # -- part j
    # -- part k
    # grad(f)(2) with an int: E301, documented
    "r14_int_input_to_grad": "refused-doc",
    # -- part l
    # the function revsrc.vjp returned, called after a global it reads was rebound: E204,
    # documented
    "r14_vjp_after_global_change": "refused-doc",
    # -- part m
    # -- part n
    # vmap(binomial_scalar): E502 "variable 'total' is of kind 'any'" (revsrc.jit refuses it
    # too), though vmap(grad(binomial_scalar)) and jit(grad(...)) compile it: documented since round 14 (E502 row);
    # right: the plain calls' values
    # backend="jax": `nll += ...` in a loop over a tuple default argument: E404, though nll is
    # a float from the start (a literal tuple, or nll = nll + ..., works): documented since round 14 (E404 row);
    # right: the default backend's hessian
    "r14_n_jax_backend_ekf_hessian": "refused-doc",
    # -- part o
    # `getattr(np, "trapezoid", None) or np.trapz`: E105 "module numpy has no attribute
    # 'trapz'", on the side of `or` Python never evaluates: documented since round 14 in refusals.md's E105 row (it
    # says Python would fail on that line; it does not); right: central differences
    "r14_o_trapezoid_dx": "refused-doc",
    # `t = np.trapezoid if ... else np.trapz; t(...)`: E101, documented (a name bound to
    # different functions, as r13_q_conditional_callee_named)
    "r14_o_trapezoid_ifexp_callee": "refused-doc",
    # math.dist and divmod: E202, documented kind (a builtin / standard-library function with
    # no rule); the same programs without them work (r14_o_mod_*, r14_o_math_fsum_prod_hypot)
    "r14_o_math_fsum_prod_dist": "refused-doc",
    "r14_o_divmod_mod_round_floordiv": "refused-doc",
    "r14_o_divmod_negative": "refused-doc",
    "r14_o_divmod_wrt_period": "refused-doc",
    # y.sort() discarded: E401, documented (a discarded call revsrc does not inline)
    "r14_o_method_sort_inplace": "refused-doc",
    # sorted(d, key=lambda k: d[k]): E101, documented (a lambda reading the function's variables)
    "r14_o_dict_comprehension_sorted_by_value": "refused-doc",
    # `for f, w in ((math.sin, 1.0), ...): f(x)`: E101, documented (a name bound to different
    # functions); right: cos(.4) - 2 sin(.4) - sech^2(.4)
    # -- part r
    # complex(x, 0.5) of a differentiated float: E202, documented kind (a C builtin with no
    # rule); `x + 0.5j` works (r14_r_cmath_loop_imag_literal)
    "r14_r_cmath_loop_real_out": "refused-doc",
    # cmath.exp of a differentiated complex: E202, documented kind (a C function with no rule;
    # cmath appears nowhere in the docs); with np.exp it works (r14_r_np_complex_loop)
    "r14_r_cmath_loop_imag_literal": "refused-doc",
    "r14_r_cmath_loop_hessian": "refused-doc",
    # -- part s
    # nested defs appended to a list then called: E101, documented (a function kept in a
    # list built by append); right: late binding gives every f k = 2, so d/dx = 3 * 2 = 6.0
    "r14_s_late_binding_closures_in_loop": "refused-doc",
    # [lambda z: z ** k for k in ...]: E101, documented (a lambda reading the function's
    # variables); right: late binding, every lambda has k = 3: 6 x**2 = 13.5
    "r14_s_late_binding_lambda_comprehension": "refused-doc",
    # list.index / list.count: E101 "method .index() of a list is not supported", in
    # refusals.md; right: f -> [0, 2, 0] and g -> [1, 0, 0, 2] (central differences agree)
    "r14_s_list_index_count_reverse": "refused-doc",
    "r14_s_list_index_of_max": "refused-doc",
    "r14_s_list_count_reverse": "refused-doc",
    # [[0.0, 0.0]] * 2 then rows[0][0] = x: E404, documented (an inner list its outer list
    # may share); right: 3.0 (both rows are one list)
    "r14_s_list_times_aliases_rows": "refused-doc",
    # d.setdefault(...) discarded: E401, documented (a discarded call)
    "r14_s_dict_get_setdefault_update_pop": "refused-doc",
    # -- part t
    # backend="jax": `out += x[2] ** 2` (out = 0.0) in a loop whose body calls
    # np.linalg.solve: E404, documented since round 14 (out is a float from the start; `out = out + ...`
    # works); right: autograd's gradient, which the default backend matches
    "r14_t_jax_kf_solve": "refused-doc",
    # backend="jax": max() of traced floats (E602), documented in guide/jax.md
    "r14_t_jax_binomial_inplace": "refused-doc",
    # backend="jax": a mask from the values (E603) and int(np.argmax(y)) (E602), documented
    # in guide/jax.md (masks computed from the values; a concrete int from traced values)
    "r14_t_jax_mask_assign": "refused-doc",
    "r14_t_jax_argmax_relax": "refused-doc",
    # -- part u
    # np.put_along_axis into a local copy: E401, documented (a discarded call revsrc does
    # not inline; the message names the ones it follows)
    "r14_u_put_along_axis_zero_max": "refused-doc",
    # -- part w
    # -- part x
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
