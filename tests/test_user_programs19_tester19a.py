"""Round 19 (tester19a) of user programs (tests/user_programs19_[a-f].py): hydrology and
geoscience, pharmacometrics and biology, energy and power engineering, sequence models
from scratch, computer vision, and compositions, state between calls and misuse across
them, each checked against autograd, JAX with x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdef")
MODULES = ["user_programs19_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs19_{s}.py"))]

KNOWN = {
    # -- part a
    # spheres = [Sphere(x, z, r, 0.5) for x, z, r in zip(xs, depths, radii)] with depths
    # the differentiated array: E101 "a Sphere object made in the function ... cannot be
    # stored in a value the program builds when it runs", documented (containers.md: an
    # object made in a loop the program runs is refused)
    "r19a_gravity_spheres_class_property": "refused-doc",
    # the same comprehension over constant tuples with tuple targets,
    # [Sphere(x, depths[k], r, 0.5) for k, (x, r) in enumerate(zip(xs, radii))] (xs, radii
    # tuple defaults) and for k, (x, r) in enumerate(((-1.0, 1.0), (1.5, 0.8))) (a literal):
    # E101 as above; containers.md says a list of such objects built by a comprehension
    # over items known when transforming is unrolled ([P(m, x[0]) for m in (1.0, 2.0)] and
    # [P(1.0, x[k]) for k in range(2)] work; a tuple target `for k, m in ...` over the same
    # constants is refused); right: central differences (the plain program runs)
    "r19a_gravity_spheres_const_comprehension": "refused-undoc",
    "r19a_gravity_spheres_literal_comprehension": "refused-undoc",
    # -- part b
    # model=IndirectResponse(5.0, 0.5) as a default argument whose method .rate() is called
    # with differentiated values: E202 "method .rate() is used on or with a differentiated
    # value", documented (containers.md "Not yet": a method of an object revsrc only sees
    # when the function runs, an argument); built inside the function it passes
    "r19b_indirect_response_nadir_min": "refused-doc",
    # revsrc.hessian(log_posterior)(theta) called inside a function being differentiated:
    # E104 "the Jacobian of an array-valued function in an array argument: its size is
    # known only when it runs", documented (README)
    "r19b_laplace_evidence_hessian_inside": "refused-doc",
    # -- part c
    # fd_jac_local(lambda z: mismatch(z, Pspec, Qspec), x) inside the Newton loop: E101 "a
    # lambda used as a value that reads the function's variables", documented (refusals.md
    # E101); passing mismatch and its arguments works (r19c_ac_powerflow_fd_jac_helper_args)
    "r19c_ac_powerflow_newton_fd_jacobian": "refused-doc",
    # revsrc.jacfwd(mismatch)(x, Pspec, Qspec) inside the Newton loop: E104 "the Jacobian of
    # an array-valued function in an array argument", documented (README)
    "r19c_ac_powerflow_jacfwd_inside_newton": "refused-doc",
    # hvp through np.einsum: E104 "goes through the derivative of np.einsum, which has no
    # rule of its own yet", documented (refusals.md E104 names np.einsum)
    "r19c_multi_period_hvp_einsum": "refused-doc",
    # -- part d
    # hessian of T -> crf_nll({**PARAMS, "T": T}) (a dict built by ** unpacking of a global
    # dict): E104 "differentiating a derivative again goes through the derivative of reading
    # or writing items of a list or dict, which has no rule of its own yet"; not in the
    # docs (refusals.md E104 lists no list/dict reads; hessian of a function of a dict
    # works, and {"a": P["a"], "T": T} written out works); right: JAX's Hessian
    "r19d_crf_hessian_wrt_transitions": "refused-undoc",
    # soft-DTW with an inf border, softmin3 by math.exp(-(a - m) / gamma) where a = inf:
    # grad w.r.t. gamma gives nan (0 * inf in the chain rule: exp(-inf) * inf / gamma^2);
    # the derivative is finite: -4.1208231 by central differences at two step sizes (JAX's
    # jax.grad of the same program gives nan too); grad w.r.t. x and y is right
    "r19d_soft_dtw_wrt_gamma": "wrong",
    # CTC alpha recursion: alpha = np.full(...); alpha[0] = ...; each step new = np.full(...);
    # new[s] = ...; alpha = new: E404 "alpha is assigned in more than one place, and at least
    # one makes it a view or an alias of another array", the documented kind (refusals.md
    # E404: a view or alias assigned in several places); rebuilding alpha from a list passes
    "r19d_ctc_forward_neg_inf_init": "refused-doc",
    # hessian through np.einsum: E104, documented (refusals.md E104 names np.einsum)
    "r19d_einsum_attention_hessian": "refused-doc",
    # -- part f
    # misuse: mapped axes of different sizes and a tangent of the wrong shape (E306), grad
    # w.r.t. an int (E301), argnums past the parameters (E303), a vector output and a
    # complex output (E302): all documented
    "r19f_vmap_mismatched_station_counts": "refused-doc",
    "r19f_hvp_wrong_tangent_shape": "refused-doc",
    "r19f_grad_wrt_int_dose_refused": "refused-doc",
    "r19f_argnums_past_params_refused": "refused-doc",
    "r19f_grad_of_vector_output_refused": "refused-doc",
    "r19f_grad_of_complex_impedance_refused": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
