"""Runs the user programs of tests/user_programs10_*.py against their references.

Corpus 10 (round 10, written by a tester who has read neither revsrc's source nor the
earlier rounds' cases), leaning on domains earlier rounds did not: signal processing
(convolution by loops, IIR filters, spectral sums), image processing (blur, gradients,
total variation), optimisation inner loops (line searches, trust regions, projected
gradient), chemistry (kinetics, Arrhenius, equilibrium), epidemiology and population
dynamics, queueing and inventory models, machine learning beyond MLPs (EM steps, factor
models, matrix factorisation, ranking and contrastive losses, layer norms, a small
transformer block), plus Python styles, NumPy idioms, compositions and edge values.
Each case has an independent reference: JAX x64, autograd, self-checked central
differences or a closed form.

``KNOWN`` records each case that is not "ok" today with its class ("refused-doc",
"refused-undoc", "wrong" or "crashed"). A KNOWN case must keep that outcome; one that
starts passing fails, asking for its entry to be removed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs10_" + s for s in "abcdefghijklmnopqrstuvwxyz"
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs10_{s}.py"))]

KNOWN = {
    # -- WRONG (at the tester's branch point) --------------------------------------------------------
    # a revsrc.vjp pullback / revsrc.linearize tangent map re-reads a global rebound after it
    # was made: SCALE = 2.0; out, fn = revsrc.vjp(lambda x: SCALE * math.sin(x), 0.3);
    # SCALE = 5.0; fn(1.0) gives 5 cos(0.3) = 4.777, while out is SCALE=2's value; JAX and
    # autograd give 2 cos(0.3) = 1.911 (round10_findings.md)
    "r10_vjp_pullback_keeps_old_global": "refused-doc",
    "r10_linearize_keeps_old_global": "refused-doc",
    # the same through a closure cell (rate = 0.5; decay reads rate; vjp; rate = 1.5; fn(1.0)),
    # an object attribute (linearize(cell.rate, 1.5); cell.k = 7.0) and a global function
    # rebound (CALC = helper_b after vjp): revsrc -0.0747, 21.0, 12.0; JAX and autograd
    # -0.1839, 6.0, 4.0
    "r10_vjp_pullback_closure_cell_rebound": "refused-doc",
    "r10_linearize_bound_method_attribute_changed": "refused-doc",
    "r10_vjp_pullback_global_function_rebound": "refused-doc",
    # p = {"w": 1.0, "b": 0.5}; out, fn = revsrc.vjp(f, p); p["w"] = 5.0; fn(1.0) gives the
    # derivative at w = 5 (35.96), silently; JAX and autograd 3 sin(0.5) = 1.438 (refusals.md
    # promises E101 for primals assigned again)
    "r10_vjp_dict_primal_item_changed_after": "refused-doc",
    "r10_linearize_dict_primal_item_changed_after": "refused-doc",
    # the stable softplus np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))) at x = 0: revsrc 1.0
    # (np.maximum's tie all to x, abs'(0) = 0); the smooth function's derivative is 0.5
    # (central differences, autograd)
    # identities broken by the same tie rule at x = 0: np.maximum(x, 0) - np.maximum(-x, 0) and
    # np.minimum(x, 0) + np.maximum(x, 0) are both x; revsrc's gradient at 0 is 2 (JAX, autograd: 1)
    # the same at kinks of smooth functions: clip(x, 0, 1) + clip(x, 1, 2) at x = 1 (2, true 1),
    # np.fmax(x, 0) + np.fmin(x, 0) at 0 (2, true 1), a tax bracket with equal rates at the
    # edge (0.6, true 0.3), relu(z) - relu(-z) in a layer with a zero pre-activation
    # the same tie rule under backend="jax" and backend="engine" (2, true 1)
    # and in forward mode: jvp of the relu pair at 0 and of the clip chain at 1 (2, true 1)
    # np.maximum(x, y) + np.minimum(x, y) (== x + y) at x == y: revsrc (2, 0), JAX and the closed form (1, 1)
    # -- CRASHED (at the tester's branch point) ----------------------------------------------------------
    # (computing since backend="jax" converts an int past 64 bits beside a float as Python
    # does: revsrc.grad(taylor_term, backend="jax")(2.0, 25), where taylor_term builds
    # p = 25! as a Python int; it was an uncoded OverflowError, then E603)
    # -- REFUSED, undocumented -----------------------------------------------------------------------
    # (computing since undoccalls: st = Pt(1.0, 2.0); st = nt_step(st, b); return st.s * st.i)
    # (computing since undoccalls: sum(ACTIVATIONS[n](z) for n in names), a global dict of
    # lambdas called by a key known when the program runs)
    # (computing since undoccalls: sum(x * y for x, y in zip(a, b, strict=True)))
    # E104 "differentiating a derivative again goes through the derivative of np.diff":
    # revsrc.hvp / revsrc.hessian of np.sum(np.sqrt(np.diff(u) ** 2 + 1e-2)) (refusals.md lists
    # other functions, not np.diff, and recommends hessian/hvp as the way out; the same
    # program with u[1:] - u[:-1] works)
    # (computing since undoccalls: np.piecewise(x, conds, [0.0, lambda t: t, 6.0]))
    # (computing since undoccalls: f = np.vectorize(lambda t: ...); f(x))
    # E202 "keyword 'where' of sum is not supported by its rule": np.mean(x ** 2, where=x > 0)
    # + np.sum(x, where=x < 0)
    # (computing since undoccalls: g = (v * s for v in xs); s = x; return sum(g) reads s = x;
    # an lru_cache-decorated helper called on a differentiated float: the function it wraps
    # is inlined; and since undocjit: jit/vmap of global lists and dicts of numbers, of
    # (-1) ** k series with factorials, of sum() of generators, backend="engine" of those)
    # E603: try: return math.log(x - 1.0) except ValueError: return 0.0 under backend="jax"
    # (JAX's log does not raise, so the except clause would never run; refusals.md's E603
    # row says so and recommends an if)
    "r10_jax_backend_try_math_domain": "refused-doc",
    # -- REFUSED, documented --------------------------------------------------------------------------
    # NamedTuple/dataclass states made in a loop (containers.md "Objects built inside the
    # function": made in a loop, refused), though the code is E202 "attribute .s ... has no
    # derivative rule" / E101 "static field m of Particle gets a value computed in the
    # function" rather than the E101/E401 the guide names
    "r10_sir_namedtuple_state": "refused-doc",
    "r10_sir_jvp_beta_gamma": "refused-doc",
    "r10_dataclass_particle_leapfrog": "refused-doc",
    # E101 yield: a generator helper (ema_gen; an infinite series generator under islice)
    "r10_generator_ema": "refused-doc",
    "r10_islice_infinite_generator_exp": "refused-doc",
    # E202 standard-library C functions with no rule: itertools.accumulate, functools.reduce,
    # itertools.pairwise(zip(...)) and itertools.starmap(lambda, zip(...)) (these two name zip,
    # not the itertools function, in the message)
    "r10_accumulate_wealth_drawdown": "refused-doc",
    "r10_reduce_operator_mul": "refused-doc",
    "r10_pairwise_polyline_length": "refused-doc",
    "r10_starmap_arrhenius": "refused-doc",
    # E102 while/else and for/else
    "r10_while_else_bisection_cuberoot": "refused-doc",
    "r10_for_else_break": "refused-doc",
    # E101 calling an item of a global list of closures: sum(s(xi) for s, xi in zip(SPRINGS, x))
    "r10_closure_factory_table": "refused-doc",
    # E202 np.bincount(idx, weights=w) (a NumPy function with no rule); E401 np.multiply(x, x, out=y)
    "r10_bincount_weights_segment_mean": "refused-doc",
    "r10_ufunc_out_in_place": "refused-doc",
    # E301 an integer array differentiated (the case checks the refusal itself)
    "r10_integer_array_refused_code": "refused-doc",
    # E202 NumPy/standard-library functions with no rule (refusals.md's E202 row):
    # np.linalg.qr, np.linalg.eigvals, statistics.fmean, divmod, math.dist, w.tolist()
    "r10_qr_logabsdet": "refused-doc",
    "r10_eigvals_nonsymmetric_radius": "refused-doc",
    "r10_statistics_fmean_pvariance": "refused-doc",
    "r10_divmod_phase": "refused-doc",
    "r10_math_fsum_prod_dist": "refused-doc",
    "r10_item_and_tolist": "refused-doc",
    # E101 a list of lambdas reading the loop variable (late binding); E404 the same array held
    # twice in a list, changed in place; E401 y.fill(x); E202 np.heaviside
    "r10_late_binding_lambdas": "refused-doc",
    "r10_list_of_same_array_iadd": "refused-doc",
    "r10_ndarray_fill_scalar": "refused-doc",
    "r10_heaviside_sign_products": "refused-doc",
    # E603 backend="jax" with max() of traced floats (guide/jax.md lists max()/min())
    "r10_grad_jax_backend_sS": "refused-doc",
    "r10_grad_jax_backend_lindley": "refused-doc",
    # E104 revsrc.hessian through np.linalg.solve/cholesky (refusals.md: "in either order")
    # E202 scipy.stats.gamma.cdf (a library method with no rule); E401 y.sort() on a local copy
    "r10_scipy_stats_gamma_cdf_shape": "refused-doc",
    "r10_inplace_sort_local_copy": "refused-doc",
    # E603 backend="jax": math.comb has no jax.numpy lowering (of ints only)
    "r10_jax_backend_math_comb": "refused-doc",
    # documented refusals met in applied code, each coded with a clean message: E402 global in a
    # helper, E101 set literal, match, del, with open(...), a nested generator, E403 x[0] = 0.0
    # on the argument, E402 nonlocal
    "r10_refused_global_write_in_helper": "refused-doc",
    "r10_refused_set_literal": "refused-doc",
    "r10_refused_match_statement": "refused-doc",
    "r10_refused_del_statement": "refused-doc",
    "r10_refused_file_write": "refused-doc",
    "r10_refused_nested_generator": "refused-doc",
    "r10_refused_argument_mutated": "refused-doc",
    "r10_refused_nonlocal": "refused-doc",
    # E101 := in a generator expression
    "r10_walrus_in_comprehension": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
