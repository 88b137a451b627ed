"""Round 15 of user programs (tests/user_programs15_*.py): neuroscience and biology,
climate and hydrology, optics, audio and DSP, ML layers, Gaussian processes, robotics,
Python styles, NumPy idioms, compositions, small-array loops, and edge values, types and
state between calls, each checked against autograd, JAX with x64, central differences or
a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("abcdefghijklmnopqrstuvwxyz")
MODULES = ["user_programs15_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs15_{s}.py"))]

KNOWN = {
    # -- part a
    # np.linalg.eigvals: E202, documented kind (a NumPy function with no rule); right: central
    # differences of the spectral radius
    "r15_leslie_dominant_eigvals": "refused-doc",
    # -- part b
    # backend="jax": max() of traced floats: E603, documented in guide/jax.md
    "r15_degree_day_grad_backend_jax": "refused-doc",
    # -- part c
    # np.unwrap, complex(), np.vdot: E202, documented kind (functions with no rule); right:
    # central differences
    "r15_fabry_perot_complex_builtin": "refused-doc",
    # np.fft.fft2 and np.linalg.eigvalsh of a complex Hermitian matrix: E202, documented kind
    # (a NumPy function, or these arguments, with no rule); right: central differences /
    # 2 p / sqrt(1 + |p|^2)
    "r15_hermitian_eigvalsh_gap": "refused-doc",
    # jacrev / hessian(holomorphic=True): TypeError (no such keyword), though refusals.md's
    # E302 row refuses them "without holomorphic=True" and JAX's take it; right:
    # [[z1, z0], [exp(z0), 2 z1]] (revsrc.jacfwd's) and diag(6 z)
    # -- part f
    # np.block: E202, documented kind (a NumPy function with no rule)
    "r15_ordinary_kriging_block_solve": "refused-doc",
    # backend="jax": np.diag of a matrix: E603, documented in guide/jax.md
    "r15_gp_nlml_backend_jax": "refused-doc",
    # -- part g
    # jacfwd of an array function called inside grad: E104, documented (README)
    "r15_arm3d_manipulability_det": "refused-doc",
    # -- part h
    # a method called with a differentiated value on an object argument: E202, documented
    # (guide/containers.md "Not yet")
    "r15_abc_lennard_jones_method": "refused-doc",
    "r15_abc_morse_method": "refused-doc",
    # match, :=, nonlocal: E101 / E402, documented
    "r15_match_statement": "refused-doc",
    "r15_walrus_in_if": "refused-doc",
    "r15_nonlocal_accumulator": "refused-doc",
    # itertools.accumulate, functools.reduce: E202, documented kind (standard-library
    # functions with no rule)
    "r15_itertools_accumulate_product": "refused-doc",
    "r15_fsum_generator_reduce_product": "refused-doc",
    # cache[key] = v / counter[0] += 1 on a global: E403, documented
    "r15_module_cache_helper": "refused-doc",
    "r15_global_counter_list_item": "refused-doc",
    # -- part i
    # np.linalg.qr: E202, documented kind (a NumPy function with no rule)
    "r15_pinv_and_qr": "refused-doc",
    # np.multiply(x, x, out=y): E401, documented (out=)
    "r15_ufunc_out_used": "refused-doc",
    # np.linalg.multi_dot, np.ediff1d, np.ptp, np.heaviside: E202, documented kind (NumPy
    # functions with no rule); right: central differences
    "r15_np_sweep_multi_dot": "refused-doc",
    "r15_np_sweep_ediff1d": "refused-doc",
    "r15_np_sweep_ptp": "refused-doc",
    "r15_np_sweep_heaviside": "refused-doc",
    # -- part j
    # revsrc.grad of a lambda made inside the function transformed: E101, documented; the
    # module-level rewrites work (r15_grad_through_inner_newton_module_level,
    # r15_grad_of_force_norm_module_level)
    "r15_grad_through_inner_newton_with_grad": "refused-doc",
    "r15_grad_of_force_norm_grad_inside": "refused-doc",
    # vmap(grad(f, backend="jax")) with JAX's default x64 off: JaxRuntimeError
    # RuntimeProgramInputMismatch (f32 executable, f64 buffers); with x64 on it works
    # (r15_vmap_grad_backend_jax_x64_on); right: the per-example gradients (autograd)
    # -- part l
    # grad wrt a bool array / an int: E301, documented
    "r15_bool_array_mask_wrt_bool_refused": "refused-doc",
    "r15_grad_int_argument_refused": "refused-doc",
    # vjp's function given a cotangent of the wrong shape: was ValueError "sum_to_shape: cannot
    # sum shape (4,) to (3,)"; now E306 (also a ValueError) naming both shapes, documented
    "r15_vjp_cotangent_wrong_shape": "refused-doc",
    # vmap with no mapped argument and no axis_size / mapped lengths 3 and 4: were plain
    # ValueErrors; now E306 (also a ValueError, as JAX raises), documented
    "r15_vmap_in_axes_none_without_axis_size": "refused-doc",
    "r15_vmap_mapped_lengths_differ": "refused-doc",
    # jit / vmap of a function reading a module-level SimpleNamespace's float attribute:
    # E502 "the global 'CFGNS' is not a float, int or bool", while jit / vmap of its grad
    # compile it (r15_module_namespace_attr_jit_grad) and see it rebound; right: 4.5, then
    # 11.25 after CFGNS.k = 5.0
    # -- part n
    # list(enumerate(x)) (also reversed(list(enumerate(x)))): E202 "enumerate has no derivative
    # rule"; `for i, v in enumerate(x)` and list(zip(...)) work, the docs say nothing of it;
    # right: 2 v / (i + 1) (r15_list_of_enumerate: [2, -2, 1/3, 1.5])
    # -- part o
    # -- part p
    # max_steps=2 on a while that needs more: E604, documented
    "r15_jax_while_max_steps_exceeded": "refused-doc",
    # vmap(value_and_grad(f, backend="jax")) with x64 off: the JaxRuntimeError of
    # r15_vmap_grad_backend_jax_per_example (f32 executable, f64 buffers); right: the
    # default backend's values and gradients
    # -- part t
    # collections.defaultdict(float) with d[k] += v: E404 "d shares its value with another
    # value" (nothing shares it); right: 19.5
    "r15_defaultdict_accumulate": "refused-undoc",
    # a local dict, d[k] += v in a loop over pairs holding x: E403, whose condition (another
    # name or container also holds it) does not hold; right: 19.5
    # d.get(k, 0.0) on a local dict in that loop: E101 "method .get() of a dict is not
    # supported" (straight-line .get works, r15_local_dict_get_straight_line); right: 19.5
    # v = d.pop("a") on a local dict: E101 "method .pop() of a dict is not supported"; the
    # docs describe list pops only; right: 12.0
    # itertools.pairwise: E202, documented kind (a standard-library function with no rule);
    # min(..., default=): E202, documented (a keyword a rule does not take)
    "r15_itertools_pairwise": "refused-doc",
    "r15_max_generator_min_default_kw": "refused-doc",
    # -- part u
    # np.put into a local array and a.sort() discarded: E401, documented (the message names
    # the in-place calls revsrc follows)
    "r15_np_put_local": "refused-doc",
    "r15_ndarray_sort_in_place_copy": "refused-doc",
    # rows = [A[0], A[1]] then A[0, 0] = ...: E404, documented (an array changed after it
    # was put into a list that is read later)
    "r15_list_of_row_views_then_write": "refused-doc",
    # -- part z
    # Vec2 objects rebound in a loop the program runs: E101, documented (containers.md: an
    # object made in a loop is refused)
    "r15_vec2_rebound_in_loop": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
