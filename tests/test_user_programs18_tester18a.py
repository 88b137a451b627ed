"""Round 18 (tester18a) of user programs (tests/user_programs18_[a-f].py): finance,
robotics, PDEs on grids, complex numbers and signals, chemistry and materials, and
compositions, state between calls and misuse across them, each checked against
autograd, JAX with x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdef")
MODULES = ["user_programs18_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs18_{s}.py"))]

KNOWN = {
    # -- part a
    # hessian of `lambda p: bs_call(*p)` with p a 5-vector: E101 "star-arguments (*args) are
    # supported on a tuple, list or dict whose length is known when transforming",
    # documented (f(*xs) of a length known only at run time); unpacking by index passes
    # (r18a_bs_full_hessian_5x5_unpacked)
    "r18a_bs_full_hessian_5x5": "refused-doc",
    # crr_price(sigma, r, opt) calling opt.payoff(S) / opt.early(S, cont) on an Option
    # passed as an argument: E202 "method .payoff() is used on or with a differentiated
    # value", documented (containers.md "Not yet": a method of an object revsrc only sees
    # when the function runs)
    "r18a_crr_american_put_vega": "refused-doc",
    "r18a_crr_american_put_rho": "refused-doc",
    "r18a_crr_european_call_vega_ag": "refused-doc",
    # the option built inside the function by a conditional expression,
    # `opt = AmericanOption(K, 1.0, "put") if american else Option(K, 1.0, "put")` (american
    # a constant True default), then passed to crr_price: E101 "a AmericanOption object made
    # in the function can have its attributes read and its methods called there, but not be
    # stored in a value the program builds when it runs, returned, or passed to a library
    # function"; containers.md lists made in a loop / changed / returned / appended only,
    # and the same without the conditional expression passes
    # (r18a_crr_option_built_inside_plain_vega); right: central differences
    "r18a_crr_option_built_inside_vega": "refused-undoc",
    "r18a_crr_option_built_inside_dK": "refused-undoc",
    # revsrc.grad(functools.partial(crr_price, opt=AM_PUT)) with AM_PUT a module-level
    # object: E202 "method .payoff() is used on or with a differentiated value";
    # containers.md gives exactly this as the rewrite for a module-level object ("bind it:
    # revsrc.grad(functools.partial(f, ...))"); right: central differences (vega 37.3...)
    "r18a_crr_option_bound_partial": "refused-undoc",
    # backend="jax": max() of traced floats (V[j] = max(cont, K - S)): E603, documented
    "r18a_crr_inplace_max_backend_jax": "refused-doc",
    # backend="jax": k = int(math.ceil(alpha * len(srt))) with alpha a float default (traced),
    # then srt[k:]: E603 ConcretizationTypeError, documented (ints computed from traced floats)
    "r18a_cvar_np_sort_tail_backend_jax": "refused-doc",
    # -- part b
    # ARM.fk(q) of a module-level PlanarArm calling link.transform(th): E202 "method
    # .transform() is used on or with a differentiated value", documented (containers.md
    # "Not yet": a module-level object's method)
    "r18b_planar_arm_global_object_method": "refused-doc",
    # `del xc` in the loop: E101, documented
    "r18b_gravity_potential_list_of_dicts_del": "refused-doc",
    # backend="jax": damped-Newton IK, `for _ in range(30): if np.sum(e * e) < 1e-24: break`
    # with every variable the loop assigns an array (all bound before the loop in the last
    # two): E602 "runs this loop as a lax loop (a break in it is on a traced value), and a
    # variable it assigns is not an array or number"; jax.md names a variable that is None
    # before the loop or changes shape, neither of which happens; right: central
    # differences (the default backend gives them)
    "r18b_ik_damped_newton_backend_jax": "refused-undoc",
    "r18b_ik_pre_bound_loop_vars_backend_jax": "refused-undoc",
    "r18b_ik_all_bound_loop_vars_backend_jax": "refused-undoc",
    # backend="jax": `pot += ...` on a float in `for p, th in zip(params, q)` over a list of
    # dicts: E404 "its kind was not known before the call", documented (refusals.md E404:
    # acc += v on a float carried through such a loop; write acc = acc + v)
    "r18b_gravity_potential_iadd_backend_jax": "refused-doc",
    # -- part c
    # a field on a grid from np.mgrid / np.meshgrid (`y, x = np.mgrid[0:n, 0:n] * h`),
    # T = np.exp(...) * k, then an insulated edge `T[:, -1] = T[:, -2]`: E404 "T holds an
    # object made by a call (a collections.defaultdict, a container class), and revsrc
    # cannot follow a write into it"; T is a plain float array the function made (the same
    # with x = np.ones((n, n)) passes); not in the docs; right: central differences
    "r18c_heat2d_roll_axes_edge_copies": "refused-undoc",
    "r18c_heat2d_backend_jax": "refused-undoc",
    "r18c_mgrid_field_edge_column_copy": "refused-undoc",
    "r18c_meshgrid_field_edge_column_copy": "refused-undoc",
    # backend="jax": u = u0.copy(); u[1:-1] += dt * np.diff(flux) / DX: E603 "whether NumPy
    # makes this value a view ... or a copy depends on the array's memory layout"; u is an
    # explicit copy (the refusal's own advice); right: central differences
    "r18c_heat_flux_form_backend_jax": "refused-undoc",
    # backend="jax": min() of traced floats (CFL step): E603, documented
    "r18c_cfl_while_min_backend_jax": "refused-doc",
    # -- part d
    # backend="jax": out = p.copy(); out[i:] -= 2 * np.pi in a while: E603 "view ... or a
    # copy"; out is an explicit copy; right: central differences
    "r18d_manual_unwrap_backend_jax": "refused-undoc",
    # backend="jax": X[np.abs(k) > cutoff] = 0.0 with k from the global float FS (traced):
    # E603 NonConcreteBooleanIndexError, documented (masks computed from the values)
    "r18d_fft_boolean_mask_write_backend_jax": "refused-doc",
    # -- part e
    # backend="jax": `E += ...` / `a_mix += ...` on a float in loops over a list argument:
    # E404 "its kind was not known before the call", documented (refusals.md E404 acc += v)
    "r18e_lj_neighbour_pairs_iadd_backend_jax": "refused-doc",
    "r18e_vdw_mixing_iadd_backend_jax": "refused-doc",
    # backend="jax": min() of traced floats (bisection bracket): E603, documented
    "r18e_ammonia_bisect_min_backend_jax": "refused-doc",
    # backend="jax": sorted() of float() of traced values: E603, documented
    "r18e_conformers_sorted_backend_jax": "refused-doc",
    # backend="jax": `for H_, S in phases:` over a tuple-of-tuples default with a traced early
    # return: E602 "its body needs the loop variable as a static int (a slice bound, a
    # range)"; the body slices nothing and uses no int; jax.md names a traced break in a
    # for that slices with its loop variable; right: central differences
    "r18e_first_stable_phase_backend_jax": "refused-undoc",
    # backend="jax": try/except ValueError around math.log: E603, documented
    "r18e_gibbs_try_except_backend_jax": "refused-doc",
    # -- part f
    # grad through revsrc.hessian(ik_cost) called inside (Newton IK): E104 "is the Jacobian
    # of an array-valued function in an array argument: its size is known only when it
    # runs", documented in README
    "r18f_grad_through_inner_grad_and_hessian_newton": "refused-doc",
    # misuse: an int in argnums (E301), a vector output (E302), argnums past the
    # parameters (E303), a tangent of the wrong shape and mapped axes of different sizes
    # (E306), a complex output (E302), a write into an argument and into a global dict
    # (E403): all documented
    "r18f_misuse_grad_wrt_int_steps": "refused-doc",
    "r18f_misuse_grad_vector_output_fk": "refused-doc",
    "r18f_misuse_argnums_past_params": "refused-doc",
    "r18f_misuse_hvp_wrong_tangent_shape": "refused-doc",
    "r18f_misuse_vmap_mismatched_sizes": "refused-doc",
    "r18f_misuse_complex_output_grad": "refused-doc",
    "r18f_misuse_write_into_argument": "refused-doc",
    "r18f_misuse_write_global_cache": "refused-doc",
    # backend="jax": rng.standard_normal(n) of a Generator argument: E603, documented
    "r18f_generator_argument_backend_jax": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
