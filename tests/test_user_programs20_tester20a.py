"""Round 20 (tester20a) of user programs (tests/user_programs20_[a-f].py): astrophysics and
cosmology, solid mechanics and FEM, computational neuroscience, operations research,
audio and music synthesis, and compositions, state between calls and misuse across
them, each checked against autograd, JAX with x64, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdef")
MODULES = ["user_programs20_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs20_{s}.py"))]

KNOWN = {
    # -- part a
    # bao_loss: cosmo = WCDM(H0, Om, w) if w != -1.0 else LCDM(H0, Om), then cosmo.dc(z):
    # E101 "a WCDM object made in the function can have its attributes read and its methods
    # called there, but not be stored in a value the program builds when it runs";
    # documented in kind (refusals.md E105: a container read after the `if` that chose it;
    # the if-statement form gives that E105), though the code here is E101; building one
    # class (r20a_class_wcdm_property_super_one_class) passes; right: central differences
    "r20a_class_choice_by_ifexp": "refused-doc",
    # hessian of an astrometric orbit chi2 built with np.einsum("ij,jt->it", ...): E104
    # "goes through the derivative of np.einsum, which has no rule of its own yet",
    # documented (refusals.md E104 names np.einsum); its gradient passes
    "r20a_thiele_innes_einsum_hessian": "refused-doc",
    # -- part b
    # hessian of a 1-D bar compliance assembled by K[np.ix_(dofs, dofs)] += ke with dofs a
    # list of constant ints: E202 "ix_ has no forward-mode rule", at the assembly line; the
    # indices are constants (no differentiated value goes into np.ix_); grad, jacfwd and
    # jvp of the same function pass, and the truss hessian that assembles with np.add.at
    # and then reads K[np.ix_(free, free)] passes; not in the docs; right: the central-
    # difference Hessian
    "r20b_bar_compliance_hessian": "refused-undoc",
    # -- part c
    # -- part d
    # try: h = rates[name] except KeyError: h = 0.5, with rates a dict in argnums that lacks
    # the key: E105 "key 'nuts' is not in a dict argument"; control-flow.md says try/except
    # follows the path the run took (the body holds no loop, item assignment or call); with
    # rates not differentiated (argnums=0) it passes; right: central differences
    "r20d_holding_try_except_keyerror": "refused-undoc",
    # max([finish[p] for p in preds], default=0.0): E202 "keyword 'default' of max is not
    # supported by its rule"; api.md lists max among the rules, refusals.md's E202 list of
    # keywords names np.std's mean= only; right: the critical-path indicator
    # {a: 1, b: 1, c: 0, d: 1, e: 0, f: 1} (r20d_cpm_makespan_generator_max passes)
    "r20d_cpm_makespan_dict_max_default": "refused-undoc",
    # -- part e
    # -- part f
    # jacfwd(jacrev) of the np.ix_-assembled bar compliance: the same E202 as
    # r20b_bar_compliance_hessian; right: the central-difference Hessian
    "r20f_jacfwd_jacrev_bar_compliance": "refused-undoc",
    # hvp of the same: the same E202; right: the central-difference Hessian times v
    "r20f_hvp_bar_compliance_ix": "refused-undoc",
    # backend="jax": free = np.setdiff1d(np.arange(2 * len(NODES)), FIXED), all constants:
    # E603 "no jax.numpy lowering for these values (ConcretizationTypeError...)"; jax.md's
    # list does not name np.setdiff1d, and no traced value goes into it; right: the
    # default backend's gradient (checked against central differences in part b)
    "r20f_truss_add_at_backend_jax": "refused-undoc",
    # backend="jax": room -= weights[i] for i in np.argsort(-values / weights) with room a
    # float default: E404 "this changes a number or array in place, which revsrc could not
    # follow here", documented (refusals.md E404, backend="jax" `acc += v` on a float
    # carried through a loop whose other values' kinds are known only when it runs)
    "r20f_fractional_knapsack_backend_jax": "refused-doc",
    # backend="jax": rng.normal(...) of a Generator argument: E603, documented
    "r20f_generator_argument_backend_jax": "refused-doc",
    # misuse: grad w.r.t. an int (E301), of a vector output (E302), argnums past the
    # parameters (E303), an hvp tangent of the wrong shape, mapped axes of different sizes
    # and a jvp with fewer tangents than primals (E306): all documented
    "r20f_grad_wrt_int_order_quantity": "refused-doc",
    "r20f_grad_of_vector_rv_model": "refused-doc",
    "r20f_argnums_past_params": "refused-doc",
    "r20f_hvp_wrong_tangent_shape": "refused-doc",
    "r20f_vmap_mismatched_sizes": "refused-doc",
    "r20f_jvp_tangent_count": "refused-doc",
    # the function revsrc.vjp returned, called after a global it reads was rebound: E204,
    # documented
    "r20f_vjp_then_rebind_wall_gap": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
