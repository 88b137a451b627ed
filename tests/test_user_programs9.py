"""Runs the user programs of tests/user_programs9*.py against their references.

Corpus 9 (round 9, written by a tester who has read neither revsrc's source nor the
earlier rounds' cases): numerical methods (Horner, Clenshaw, quadrature, root finders
with tolerance loops, fixed points, continued fractions, series with early stopping,
Richardson extrapolation), physics and engineering (pair potentials, springs, orbit
integrators, beams, RC ladders, rotation matrices and quaternions), statistics
(log densities, HMC steps, logsumexp weights, Kalman and HMM forward passes,
ARMA/GARCH, Gaussian processes), geometry, finance, a variety of Python styles
(generators, itertools, recursion, loop ``else``, try/except, NamedTuple/dataclass
states, Enums, closures, decorators, classes), NumPy idioms and compositions. Each
case has an independent reference: JAX x64, autograd, self-checked central differences
or a closed form.

``KNOWN`` records each case that is not "ok" today with its class ("refused-doc",
"refused-undoc", "wrong" or "crashed"). A KNOWN case must keep that outcome; one that
starts passing fails, asking for its entry to be removed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs9" + s for s in "abcdefghijklmnopqrstuvwxyz"
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs9{s}.py"))]

KNOWN = {
    # -- WRONG (at the tester's branch point) --------------------------------------------------------
    # W1, 13 cases, fixed (commit c6fe52a): `(-1) ** n` was printed `-1 ** n`, which Python
    # reads as -(1 ** n): alternating series had the wrong sign in value and gradient
    # (r9_log1p_series_for_break, r9_barycentric_chebyshev_interp, r9_minus_one_pow_int_argument,
    # r9_leibniz_atan_series, r9_cos_taylor_series, r9_minus_one_pow_of_modulo,
    # r9_np_minus_one_power_arange, r9_chebyshev_alternating_cos, r9_alt_sign_*)
    # W2, fixed: np.nansum(data * x) with a NaN in a constant `data` had a NaN gradient (the
    # skipped entry's zero adjoint times d(data*x)/dx = nan; JAX gives the same NaN): the
    # skipped entries' adjoints are structural zeros now (revsrc/runtime/dropped.py)
    # -- CRASHED (at the tester's branch point) -----------------------------------------------------
    # C1, fixed (commit 0bdb538): backend="jax", x = x + 0.01 * np.array([x[1], -k * x[0]]) in a
    # for over range(100) was E602 naming revsrc's classes (a list's cotangent was no pytree)
    # -- refused, documented ------------------------------------------------------------------------
    # E104 hessian of a GP marginal likelihood through cholesky and np.linalg.solve
    # E202 itertools.pairwise over a list of point tuples (a standard-library function
    # with no rule): sum(math.hypot(...) for a, b in itertools.pairwise(pts))
    "r9_perimeter_itertools_pairwise": "refused-doc",
    "r9_itertools_accumulate_sum": "refused-doc",            # E202 itertools.accumulate
    "r9_itertools_accumulate_lambda_product": "refused-doc", # E202 accumulate(facs, lambda a, b: a * b)
    "r9_functools_reduce_lambda": "refused-doc",             # E202 functools.reduce (named _functools.reduce)
    "r9_user_generator_function_sum": "refused-doc",         # E101 yield: sum(gen_terms(x, 15))
    "r9_while_else_convergence_flag": "refused-doc",         # E102 while ... else
    "r9_for_else_search": "refused-doc",                     # E102 for ... else
    # containers.md: an object "made in a loop the program runs ... is refused (E101, E401)";
    # these come as E202 "attribute .x is used on or with a differentiated value":
    # for _ in range(100): s = step(s, k, 0.05)   where step returns State(x, v) (a NamedTuple)
    "r9_namedtuple_state_loop": "refused-doc",
    "r9_namedtuple_replace_loop": "refused-doc",             # s = s._replace(v=...) in a loop
    "r9_dataclass_state_rebuilt": "refused-doc",             # p = Particle(p.pos + ..., ...) in a loop
    "r9_dataclasses_replace": "refused-doc",                 # E202 dataclasses.replace (a library function)
    "r9_bincount_weights": "refused-doc",                    # E202 np.bincount(IDX, weights=w)
    "r9_ufunc_out_fresh_array": "refused-doc",               # E401 np.multiply(x, x, out=y), y = np.empty_like(x)
    "r9_np_exp_out_buffer": "refused-doc",                   # E401 np.exp(x, out=buf)
    "r9_np_polyfit": "refused-doc",                          # E202 np.polyfit
    "r9_divmod_phase": "refused-doc",                        # E202 divmod(t, 2 * math.pi) (a builtin, no rule)
    "r9_qr_logabsdet": "refused-doc",                        # E202 np.linalg.qr
    "r9_grad_at_int_input": "refused-doc",                   # E301 grad(lambda x: x * x)(3)
    # E104 hessian(argnums=(0, 1)) of np.sum(x ** 2 * y) + np.prod(np.sin(y)): np.prod (listed)
    "r9_hessian_argnums_tuple_blocks": "refused-doc",
    "r9_inplace_on_argument_refused": "refused-doc",         # E403 x += 1.0 on an argument array
    # xs.append(1.0) on an argument list: the table names it under E403; it comes as E401
    # ("a call whose result is discarded (xs.append)")
    "r9_append_to_argument_list_refused": "refused-doc",
    # E202 numpy.float32 has no rule: return np.float32(np.sum(x ** 2)) (float, np.float64 have)
    "r9_grad_of_float32_scalar_output": "refused-doc",
    "r9_inplace_method_sort_copy": "refused-doc",            # E401 y = x.copy(); y.sort()
    "r9_np_put": "refused-doc",                              # E401 np.put(y, [3, 0], x[:2])
    # E404 row = np.zeros(2); grid = [row, row]; grid[0][1] = x (an array two items hold)
    "r9_list_holds_same_array_twice_write": "refused-doc",
    "r9_np_corrcoef": "refused-doc",                         # E202 np.corrcoef (np.cov works)
    "r9_sliding_window_view": "refused-doc",                 # E202 np.lib.stride_tricks.sliding_window_view
    "r9_cmath_phase_open_loop": "refused-doc",               # E202 cmath.phase
    "r9_statistics_mean": "refused-doc",                     # E202 statistics.mean
    "r9_tolist_then_python_sum": "refused-doc",              # E202 x.tolist() on a differentiated array
    # E101 lambda as a value reading the function's variables: scaled(f) returns lambda t: a * f(t)
    "r9_closure_factory_inside_function": "refused-doc",
    # (computing since calls22 and kinds9: derivatives made inside the function, min(key=abs),
    # super().__call__ in a callable object, the alternating series under jit, vmap and JAX)
    # -- refused, undocumented ----------------------------------------------------------------------
    # (computing since undoccalls: a worklist stack = [(0.0, 1.0)] made in the function,
    # a, b = stack.pop() in while stack: (adaptive Simpson))
    # (computing since undoccalls: f = np.vectorize(lambda t: math.sin(t) * t); np.sum(f(x)))
    # (computing since undoccalls: for i, j in np.ndindex(*M.shape))
    # (computing since undoccalls: terms = (x ** k / (k + 1) for k in itertools.count());
    # return sum(itertools.islice(terms, 12)))
    # (computing since undoccalls: rho = LOSSES[kind]; rho(r) and LOSSES["cauchy"](r) on a
    # global dict of lambdas, one per line or several on one line)
    # (computing since undoccalls: f = functools.partial(math.pow, x); f(3.0))
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
