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
    # grad of a function calling revsrc.grad(shoot) inside, shoot having ndarray default
    # arguments: TypeError unhashable ndarray (in revsrc's CSE pass); right: autograd's
    # gradient of the same unrolled descent
    "r14_shooting_unrolled_gd_grad": "crashed",
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
    # vmap(grad(partial(poly_eval, coeffs=array))): E502 "argument 1 (coeffs) is a ndarray, not
    # an array", undocumented for a partial's bound array (a lambda or in_axes=(0, None) works);
    # right: -2 + x + 0.75 x**2
    "r14_partial_vmap": "refused-undoc",
    # -- part i
    # np.multiply(x, x, out=y) discarded: E401, documented (out=)
    "r14_ufunc_out_returned_ignored": "refused-doc",
    # -- part j
    # jacrev of a function calling revsrc.vmap(lambda x: mlp(PARAMS, x)): E101 "a lambda used
    # as a value that reads the function's variables", but it reads only globals: not what
    # refusals.md documents (a def, or `lambda x: mg(x)`, works); right: central differences
    "r14_jacrev_of_vmap": "refused-undoc",
    # -- part k
    # np.nanmax of a differentiated array: E202, documented kind (a NumPy function with no
    # rule); right: [3, 0, -4] (np.nansum's 2x plus nanmax's 1 at the largest)
    "r14_nansum_nanmax": "refused-doc",
    # grad(f)(2) with an int: E301, documented
    "r14_int_input_to_grad": "refused-doc",
    # -- part l
    # revsrc.jit of a function with a list default argument: E502, documented (jit compiles
    # functions of floats, ints and bools; a list argument is not one)
    "r14_default_list_item_changed_jit": "refused-doc",
    # the function revsrc.vjp returned, called after a global it reads was rebound: E204,
    # documented
    "r14_vjp_after_global_change": "refused-doc",
    # -- part m
    # backend="jax": `total += y[j] * (k + 1)` where total starts as 0.0: E404, documented
    # (refusals.md's E404 row: with backend="jax", x op= y on a name whose kind is known only
    # when it runs); right: [0, 0, 3, 0, 3] (the default backend's)
    "r14_selection_topk_jax_backend": "refused-doc",
    # -- part n
    # vmap of a scalar function with an unused-at-the-call tuple default argument: E502
    # "argument 2 (zs) is a tuple", though revsrc.jit(revsrc.grad(ekf_scalar)) of the same
    # function compiles and a global tuple of numbers is read as constants (refusals.md):
    # not documented for a default; right: the plain calls' values
    "r14_n_vmap_ekf_in_axes_none": "refused-undoc",
    # vmap(binomial_scalar): E502 "variable 'total' is of kind 'any'" (revsrc.jit refuses it
    # too), though vmap(grad(binomial_scalar)) and jit(grad(...)) compile it: undocumented;
    # right: the plain calls' values
    "r14_n_vmap_binomial_comb_value": "refused-undoc",
    # backend="jax": `nll += ...` in a loop over a tuple default argument: E404, though nll is
    # a float from the start (a literal tuple, or nll = nll + ..., works): undocumented;
    # right: the default backend's hessian
    "r14_n_jax_backend_ekf_hessian": "refused-undoc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
