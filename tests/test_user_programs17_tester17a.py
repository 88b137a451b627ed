"""Round 17 (tester17a) of user programs (tests/user_programs17_[a-f].py): quantum
mechanics and optics, chemistry, computer vision, audio and DSP synthesis, climate,
hydrology and ecology, and compositions and edge values across them, each checked
against autograd, JAX with x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdef")
MODULES = ["user_programs17_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs17_{s}.py"))]

KNOWN = {
    # -- part a
    # jacfwd(jacrev(f)) and hessian(f) of a two-qubit energy built with np.kron: E104 "goes
    # through the derivative of np.kron, which has no rule of its own yet"; np.kron is not
    # in refusals.md's E104 list (which names the rules without second derivatives);
    # right: the central-difference Hessian (its gradient is right)
    "r17_two_qubit_cnot_jacfwd_jacrev": "refused-doc",   # (refusals.md E104 names it since)
    "r17_two_qubit_cnot_hessian": "refused-doc",   # (refusals.md E104 names it since)
    # np.linalg.eigh / eigvalsh of a complex Hermitian matrix built from real parameters:
    # E202 "np.linalg.eigh of complex values has no derivative rule"; not in the docs;
    # right: the gradient of the same evolution by a Taylor series (r17_complex_hermitian_
    # expm_series) and the closed form 2 (p0, p1, 0) / hypot(p0, p1) of the gap
    "r17_complex_hermitian_eigh_evolution_vg": "refused-undoc",
    "r17_complex_hermitian_eigvalsh_gap": "refused-undoc",
    # n2 = complex(n_r, k_ext) then cmath.sqrt: E202 "complex has no derivative rule";
    # not in the docs; right: the gradient of the same reflectance written n_r + 1j * k_ext
    # (r17_fresnel_np_complex_sqrt passes)
    "r17_fresnel_cmath_complex_ctor": "refused-undoc",
    # backend="jax": Hm = np.diag(h_onsite), Hm[i, i + 1] = -hop, then np.linalg.eigh(Hm):
    # E603 at the eigh line (TracerBoolConversionError; the "view or copy" refusal of the
    # branch point is gone); right: central differences
    "r17_chain_transfer_eigh_hop_backend_jax": "refused-undoc",
    # backend="jax": `for _ in range(s)` with s counted in a traced while (scaling and
    # squaring): E603, documented (a trip count computed from traced values)
    "r17_spin_echo_backend_jax": "refused-doc",
    # -- part b
    # a ForceField object at module level whose __call__ calls t.energy(X) for terms held
    # in its list attribute: E202 "method .energy() is used on or with a differentiated
    # value", documented (containers.md "Not yet": a method of an object revsrc only sees
    # when the function runs)
    "r17_forcefield_classes_callable_grad": "refused-doc",
    "r17_forcefield_hessian_normal_modes": "refused-doc",
    # the force field built inside the function: dihedral(*[X[q] for q in self.idx]) with
    # self.idx the constant tuple (0, 1, 2, 3) given to __init__ there: E101 "star-arguments
    # (*args) are supported on a tuple, list or dict whose length is known when
    # transforming"; its length is known then (refusals.md names f(*xs) whose length is
    # only known at run time); right: central differences (unpacking the tuple by hand,
    # r17_forcefield_inside_subclass_vg, passes)
    "r17_forcefield_built_inside_vg": "refused-undoc",
    "r17_forcefield_built_inside_wrt_k": "refused-undoc",
    # backend="jax": a boolean mask computed from the values (d[d > 1.0]): E603, documented
    "r17_median_bond_mask_backend_jax": "refused-doc",
    # backend="jax": a write through Kt.reshape(-1): E603, documented (view or copy)
    "r17_rate_matrix_reshape_view_backend_jax": "refused-doc",
    # backend="jax": sorted() of traced floats: E603 TracerBoolConversionError, the documented
    # kind (max()/min() of traced floats)
    "r17_lowest_conformers_sorted_backend_jax": "refused-doc",
    # hessian of a steady state found by Gaussian elimination with partial pivoting (rows
    # swapped with A[[k, p]] = A[[p, k]], A[i, k:] -= m * A[k, k:], back substitution over
    # reversed(range(n))): E104 "a derivative of a derivative through a write into this
    # view: NumPy made the value a view of its array, but cannot make its derivative one",
    # pointing at the call line, not at a write; no view is made by the user (the gradient
    # is right); not in the docs; right: the central-difference Hessian
    "r17_gauss_pivot_fancy_row_swap_hessian": "refused-undoc",
    # -- part c
    # grad through revsrc.jacfwd(project) called inside (Jacobian of an array function in
    # an array argument): E104, documented in README ("its size is known only when it runs")
    "r17_lm_step_grad_through_jacfwd_wrt_obs": "refused-doc",
    # hessian of a homography loss that builds H with np.append(hvec, 1.0).reshape(3, 3):
    # E104 "goes through the derivative of np.append, which has no rule of its own yet";
    # refusals.md names np.concatenate/stack/split only in reverse over reverse, and
    # says revsrc.hessian (forward over reverse) goes through them; np.append is not
    # named; right: autograd's Hessian
    "r17_homography_transfer_hessian": "refused-doc",   # (refusals.md E104 names it since)
    # sorted(range(n), key=lambda i: -scores[i]) inside the function: E101, documented
    # (a lambda used as a value that reads the function's variables)
    "r17_soft_nms_sorted_key_generator_filter_vg": "refused-doc",
    # backend="jax": int(math.floor(x)) of a traced float as an index: E603, the documented
    # kind (float()/max()/min() of traced floats)
    "r17_bilinear_int_floor_backend_jax": "refused-doc",
    # np.linalg.qr of a differentiated matrix: E202 "numpy.linalg.qr has no derivative
    # rule"; not in the docs (E304 names pinv/lstsq/eigh/svd, all of which have rules);
    # right: central differences
    "r17_qr_orthonormalize_rotation": "refused-undoc",
    # r.sort() in place on an array the function made: E401 "a call whose result is
    # discarded (r.sort)", documented (a discarded call revsrc does not inline);
    # np.sort works (r17_trimmed_loss_np_sort)
    "r17_trimmed_loss_in_place_sort": "refused-doc",
    # -- part d
    # backend="jax": i = int(pos) of a traced float: E603, the documented kind
    "r17_wavetable_int_pos_backend_jax": "refused-doc",
    # backend="jax" of a function with a default lags=np.arange(8, 30) iterated by
    # `for L in lags` and used to slice, x[:-L]: E603 "a slice bound here is a traced
    # value", documented in refusals.md (a raw IndexError at the branch point)
    "r17_autocorr_lags_array_backend_jax": "refused-doc",
    # the same with lags passed as a tuple of ints: E603 "no jax.numpy lowering ...
    # unsupported operand type(s) for *: 'DynamicJaxprTracer' and 'tuple'" for
    # np.sum(w * lags), valid NumPy (an array times a tuple); not in jax.md's list
    "r17_autocorr_lags_tuple_backend_jax": "refused-undoc",
    # backend="jax": `for b, a in sections:` over a list of two (b, a) coefficient tuples
    # computed from the differentiated gain, each run through a 64-step biquad loop: E602
    # "this is a branch on a value computed from the differentiated arguments that cannot
    # run as a select of both arms", pointing at the for over a list of known length (no
    # branch there); not in jax.md; right: central differences (the default backend)
    "r17_sos_cascade_backend_jax": "refused-undoc",
    # -- part e
    # rng.gamma(0.5, params[1], days) with a differentiated scale: E202 "method .gamma() is
    # used on or with a differentiated value", documented (a method with no rule used on a
    # differentiated value); the reparameterized form passes (r17_weather2_*)
    "r17_weather_generator_argument": "refused-doc",
    "r17_weather_generator_advances_between_calls": "refused-doc",
    # backend="jax": min() of traced floats: E603, documented
    "r17_hbv_min_backend_jax": "refused-doc",
    # backend="jax": a try whose except catches ZeroDivisionError of a line: E603, documented
    "r17_green_ampt_try_backend_jax": "refused-doc",
    # warnings.warn(...) under a guard that never runs: E401 "a call whose result is
    # discarded (warnings.warn)", documented (a discarded call revsrc does not inline;
    # print works)
    "r17_npz_box_warnings_warn_guard": "refused-doc",
    # -- part f
    # backend="jax": range(int(days / dt)) of float defaults: E603, documented
    "r17f_sir_has_aux_backend_jax": "refused-doc",
    # misuse: grad w.r.t. an int (E301), a vector output (E302), argnums past the parameters
    # (E303), a tangent of the wrong shape and mapped axes of different sizes (E306):
    # all documented
    "r17f_morse_int_refused": "refused-doc",
    "r17f_grad_of_vector_spectrum_refused": "refused-doc",
    "r17f_argnums_past_params_refused": "refused-doc",
    "r17f_hvp_wrong_tangent_shape": "refused-doc",
    "r17f_vmap_mismatched_station_sizes": "refused-doc",
    # backend="jax": min() of traced floats in a bound method: E603, documented
    "r17f_reservoir_max_backend_jax": "refused-doc",
    # backend="jax" of a function that calls revsrc.vmap(morse) inside: E603 "cannot run an
    # operation revsrc makes for this line"; jax.md does not mention it (the default
    # backend differentiates it, as refusals.md says); right: central differences
    "r17f_grad_of_function_calling_vmap_backend_jax": "refused-undoc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
