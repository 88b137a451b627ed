"""Runs the user programs of tests/user_programs8*.py against their references.

Corpus 8 (round 7's harness, user_programs7_harness.py): whole small programs as
scientists and ML engineers write them (MLPs with manual batching and softmax
cross-entropy, mixtures, attention, k-means, simulations with while loops and early
exits, heat and wave equations with slice updates, adaptive Runge-Kutta, least
squares, Sinkhorn, Viterbi, CNNs by einsum, option pricing with a Generator passed in,
dataclass configs, partials, closures, dict pytrees), NumPy corners (in-place and
masked writes, views, dtypes, edge values) and compositions (vmap of grad per
example, jit of grad, hessian, jacfwd/jacrev, linearize, vjp, hvp, memory=,
backend="jax"). Each case has an independent reference (JAX x64, autograd,
self-checked central differences or a closed form); every refusal must be a coded
RevsrcError naming none of revsrc's internals (else it counts as "crashed").

``KNOWN`` records each case that is not "ok" today with its class: "refused-doc",
"refused-undoc", "wrong" or "crashed".  A KNOWN case must keep that outcome; one that
starts passing fails the test with a message asking to remove it from KNOWN.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs8" + s for s in "abcdefghijklmnopqrstu"]

KNOWN = {
    # -- CRASHED ------------------------------------------------------------------------------------
    # C2 (was) a refusal naming an internal module: revsrc.tree_leaves (documented for update steps)
    # called inside a differentiated function: "[E202] revsrc.core.pytree.tree_leaves has no
    # derivative rule"; sum(np.sum(l ** 2) for l in revsrc.tree_leaves(params)) (computing since
    # undoccalls: the leaves of an argument taken apart are known when transforming)
    # C5 (was) backend="jax": a refusal naming internals for a dict rebuilt in a 40-step loop:
    # "[E603] ... no jax.numpy lowering for 'make_dict'", hint "give its record a jnp twin
    # (primitives.define(..., jax=...))"
    # s = {"a": x, "b": 0.0}; for _ in range(40): s = {"a": s["a"] * 0.9, "b": s["b"] + np.sum(s["a"])}
    "r8_jax_dict_state_rebuilt_40_steps": "refused-doc",  # now E603 naming the dict (docs/guide/jax.md)
    # C4 (was an uncoded ValueError; now E502 with the same advice): memory= on revsrc.jit
    # of a derivative: revsrc.jit(revsrc.grad(f), memory=64)(0.7)
    "r8_jit_of_grad_with_memory": "refused-doc",
    # -- refused, documented ------------------------------------------------------------------------
    # E101 calling an item of a list held by a global object (for layer in self.layers:
    # x = layer(x)); the table names ACTS[0](x) on a global list
    "r8_class_model_call_wrt_input": "refused-doc",
    "r8_np_polyfit_polyval": "refused-doc",           # E202 np.polyfit has no rule
    "r8_np_clip_out_same_local_array": "refused-doc",  # E401 np.clip(y, lo, hi, out=y)
    "r8_np_put_then_take": "refused-doc",             # E401 np.put(y, idx, v)
    "r8_list_append_insert_pop_extend": "refused-doc",  # E401 xs.insert(0, 1.0) on a local list
    "r8_ufunc_reduce_add_max_mul": "refused-doc",     # E202 np.add.reduce / np.maximum.reduce
    "r8_logaddexp_from_minus_inf_and_reduce": "refused-doc",  # E202 np.logaddexp.reduce
    "r8_histogram_weights": "refused-doc",            # E202 np.histogram
    "r8_multi_dot": "refused-doc",                    # E202 np.linalg.multi_dot
    "r8_divmod_float": "refused-doc",                 # E202 divmod(t, 1.0)
    "r8_jit_isinf_overflow_branch": "refused-doc",    # E502 math.isinf: no engine instruction
    "r8_jit_math_gamma": "refused-doc",               # E502 math.gamma: no engine instruction
    # E104 a revsrc derivative called on a dict rebuilt in a loop (its kind is known only
    # when it runs), as documented; the derivative is made inside the function
    # (revsrc.grad(h)(p, x)), which now behaves as one made at module level
    "r8_grad_through_dict_sgd_with_inner_grad": "refused-doc",
    # E101 functools.partial objects appended to a list in a loop, then called from a
    # generator (docs/refusals.md, E101: a comprehension builds the same list and works;
    # a partial made and called in the function works)
    "r8_partials_made_in_loop_called_in_generator": "refused-doc",
    # -- refused, undocumented ----------------------------------------------------------------------
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
