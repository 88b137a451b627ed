"""Round 16 of user programs (tests/user_programs16_*.py): materials and elasticity,
pharmacokinetics and epidemiology, economics and games, astronomy and geodesy, ML losses
and Gaussian processes, Python styles, compositions, edge values and misuse, and
small-array state loops with branches, each checked against autograd, JAX with x64,
central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdefghijklmnopqrstuvwxyz")
MODULES = ["user_programs16_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs16_{s}.py"))]

KNOWN = {
    # -- part b
    # backend="jax": max() of traced floats: E603, documented in guide/jax.md
    "r16_seir_peak_backend_jax": "refused-doc",
    # -- part f
    # list(enumerate(zip(ws, xs))) (and reversed of it): E202 "zip has no derivative rule";
    # enumerate(zip(...)), list(zip(...)) and reversed(list(enumerate(ws))) work; right:
    # autograd's gradient
    # s.energy(L) on module-level objects with a differentiated value: E202, documented
    # (containers.md "Not yet": a method of a module-level object)
    "r16_slots_property_global_objects": "refused-doc",
    # a comprehension building dataclass objects from an array argument's items
    # ([Particle(m=1.0 + i, x=v) for i, v in enumerate(xs)]): E202 "a container built as
    # a value (in a loop...)", documented in refusals.md (a literal list of them works)
    "r16_dataclass_list_comprehension": "refused-doc",
    # -- part g
    # a wrong cotangent shape inside a pytree cotangent: E306, documented
    "r16_vjp_pytree_cotangent_bad_shape": "refused-doc",
    # jacrev(grad(f)) / grad of an item of grad(f) where f builds a 2-D np.array literal
    # from items of its argument: ValueError "setting an array element with a sequence"
    # (hessian and jacfwd(grad) work); right: autograd's hessian / diag(6 a)
    # -- part h
    # hvp / jvp given fewer tangents than primals: plain TypeError "3 primals but 1
    # tangents" (no code); right: a coded E306, or for hvp with argnums=0 the product
    # 2 s X^T X v
    "r16_hvp_tangent_count_mismatch": "refused-doc",
    "r16_jvp_tangent_count_mismatch": "refused-doc",
    # wrong tangent / cotangent shapes, bad in_axes, mismatched sizes, nothing mapped:
    # E306, documented
    "r16_jvp_tangent_wrong_shape": "refused-doc",
    "r16_vjp_cotangent_scalar_for_vector": "refused-doc",
    "r16_vmap_in_axes_out_of_range": "refused-doc",
    "r16_vmap_in_axes_wrong_length": "refused-doc",
    "r16_vmap_mismatched_sizes": "refused-doc",
    "r16_vmap_no_mapped_no_axis_size": "refused-doc",
    # the function vjp / linearize returned, called after the caller changed its primal
    # array in place (w[0] = 10.0, or p["w"][0] = 10.0): the derivative at the NEW point,
    # [20, 4] / 20.0, while out is the old point's; right: [2, 4] / 2.0 (or a refusal, as
    # p["w"] = new_array gets E204)
    # grad with respect to an int (argnums=1, or an int passed to grad(f)): E301,
    # documented; argnums past the parameters: E303; a vector output: E302
    "r16_grad_wrt_int_refused": "refused-doc",
    "r16_grad_int_input_value": "refused-doc",
    "r16_argnums_out_of_range": "refused-doc",
    "r16_grad_of_vector_output_refused": "refused-doc",
    # -- part j
    # jacrev(grad(f)) of np.array([a, 2 * a]) (rows that are arrays) and of det of a 2-D
    # literal of items: the ValueError of part g; right: diag(54 a) and the closed-form
    # hessian (revsrc.hessian gives it)
    # revsrc.jit of a function building a list for np.array: E502, documented
    "r16_vmap_scalar_builds_array_jit_refused": "refused-doc",
    # hessian(holomorphic=True) of a complex scalar: E301 "argument z is a complex ... (pass
    # None for it)"; grad(holomorphic=True) of it and hessian of a complex array work;
    # right: 6 z
    # grad of a complex output without holomorphic=True: E302, documented
    "r16_grad_complex_without_holomorphic": "refused-doc",
    # -- part k
    # backend="jax": range(int(days / dt)) of float defaults: E603, documented (a trip count
    # computed from floats); max()/min() of traced floats: E603, documented; int(np.argmax(x)):
    # E603, documented kind (float()/max()/min() of traced values)
    "r16k_seir_clip_backend_jax": "refused-doc",
    "r16k_second_price_backend_jax": "refused-doc",
    "r16k_cournot_backend_jax_jacfwd": "refused-doc",
    "r16k_adaptive_backend_jax": "refused-doc",
    "r16k_lattice_argmax_backend_jax": "refused-doc",
    # backend="jax": `elif not on and err > 0.5` with `on` a flag set in a traced if: E603
    # TracerBoolConversionError; jax.md says branches on traced values select their variables
    # and nested if/elif chains work; right: the default backend's gradient
    "r16k_thermostat_backend_jax": "refused-undoc",
    # revsrc.jit of a function that keeps its totals in a local dict changed in a loop:
    # E502 "a dict built in the function has no engine instruction", documented in jit.md
    "r16k_dict_accumulate_jit": "refused-doc",
    # backend="jax" of the billiard (50 steps x 2 nested branches with slice writes): E605,
    # documented (too large to compile)
    "r16k_billiard_backend_jax": "refused-doc",
    # -- part l
    # jacrev(grad(f)) of a matrix power loop starting from a 2-D literal of items: the
    # ValueError of part g; right: autograd's hessian (revsrc.hessian gives it)
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
