"""Round 19 (tester19b) of user programs (tests/user_programs19_[g-l].py): reinforcement
learning and control, survival analysis and robust statistics, acoustics and optics,
dynamic programming and algorithms, Python styles (callable objects, ABCs, enums,
lru_cache, *args/**kwargs, nonlocal, generators, recursion), and higher-order
compositions on pytrees with edge values, each checked against autograd, JAX with x64,
central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

_PARTS = list("ghijkl")
MODULES = ["user_programs19_" + s for s in _PARTS
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs19_{s}.py"))]

KNOWN = {
    # -- part g
    # an MPC rollout whose plant is a DoubleIntegrator object given as a default argument
    # (sys=DoubleIntegrator()), sys.step(x, u) called with the differentiated control: E202
    # "method .step() is used on or with a differentiated value", documented (containers.md
    # "Not yet": a method of an object revsrc only sees when the function runs, an
    # argument); the object built inside the function passes (r19g_mpc_system_built_inside)
    "r19g_mpc_clip_saturation_class": "refused-doc",
    "r19g_mpc_clip_saturation_ag": "refused-doc",
    "r19g_mpc_bound_partial": "refused-doc",
    # the same plant bound with functools.partial(mpc_cost, sys=DoubleIntegrator(0.3)),
    # as containers.md advises ("bind it: revsrc.grad(functools.partial(f, ...))"): still
    # E202 "method .step() is used on or with a differentiated value"; right: central
    # differences
    "r19g_mpc_system_bound_by_partial": "refused-undoc",
    # backend="jax": x = step(x, u) (a helper returning a tuple) then cost += x[0] ** 2 in
    # a loop over an array argument: E404 "this changes a number or array in place, which
    # revsrc could not follow here (its kind was not known before the call)"; refusals.md
    # names `acc += v` with backend="jax" only for loops over a tuple default or bodies
    # calling inv/solve; the default backend differentiates it; right: autograd's gradient
    "r19g_mpc_clip_backend_jax": "refused-undoc",
    # -- part h
    # -- part i
    # RT60 from a Schroeder decay curve fitted by np.polyfit(t[mask], edc_db[mask], 1):
    # E202 "numpy.polyfit has no derivative rule"; not in the docs; right: central
    # differences
    "r19i_schroeder_edc_polyfit_rt60": "refused-undoc",
    # -- part j
    # Dijkstra with heapq.heappush(pq, ...) as a statement: E401 "a call whose result is
    # discarded (heapq.heappush)", documented (a discarded call revsrc does not inline)
    "r19j_dijkstra_heapq_early_return": "refused-doc",
    # np.logaddexp.reduce(x * 2.0): E202 "ufunc.reduce has no derivative rule"; not in the
    # docs; right: central differences (the log-sum-exp)
    "r19j_logaddexp_reduce_ufunc": "refused-undoc",
    # np.minimum.at(dist, vs, dist[us] + w): E401 "np.minimum.at writes into its first
    # argument in place", documented (a discarded call revsrc does not inline; np.add.at
    # works and is used in r19j_min_cost_flow_penalty_add_at)
    "r19j_bellman_ford_minimum_at": "refused-doc",
    # -- part k
    # act = Swish(1.5) if act_name == "swish" else Softplus() (an object chosen by a str
    # argument): E101 "a Swish object made in the function ... not be stored in a value the
    # program builds when it runs"; the same choice by an if statement is E105, documented
    # (a container read after the if that chose it); built unconditionally it passes
    "r19k_abc_subclass_swish": "refused-doc",
    "r19k_abc_subclass_softplus": "refused-doc",
    "r19k_abc_subclass_chosen_by_if": "refused-doc",
    # misuse: an abstract class built in the function: E105 with Python's message, documented
    "r19k_abc_abstract_instantiated": "refused-doc",
    # a functools.lru_cache Legendre-coefficient helper that recurses on its int argument
    # (out = [0.0] * (n + 1); out[i + 1] += ...), called with n from a loop over range(4)
    # or enumerate(c): E404 "this changes an item of a list in place (xs[i] op= v), and a
    # value, which may hold the same array, is not assigned on every way to here", at the
    # helper's list write; README and containers.md say lru_cache helpers work (on ints
    # they run cached); without the decorator the same program passes; right: central
    # differences
    "r19k_lru_cache_int_helper": "refused-undoc",
    "r19k_lru_cache_int_helper_const_range": "refused-undoc",
    # nonlocal (E402) and yield (E101) in the differentiated function: documented
    "r19k_nonlocal_call_counter": "refused-doc",
    "r19k_generator_function_windows": "refused-doc",
    # recursion over a module-level constant nested tuple (an expression tree of weights
    # and leaf indices): E103 "calls itself with no int argument known when transforming";
    # refusals.md refuses recursion on values known only when it runs and unrolls
    # recursion decided by ints; a global tuple constant is known when transforming and is
    # not mentioned; right: central differences
    "r19k_recursion_on_constant_tree": "refused-undoc",
    # -- part l
    # misuse: grad with respect to an int array (E301), documented
    "r19l_int_rewards_refused": "refused-doc",
    # backend="jax": max(a, b) of traced floats: E603, documented
    "r19l_soft_bellman_backend_jax": "refused-doc",
    # misuse: an hvp tangent of the wrong shape (E306) and vmap with mapped axes of
    # different sizes (E306): documented
    "r19l_hvp_wrong_tangent_shape_refused": "refused-doc",
    "r19l_vmap_grad_mismatched_sizes_refused": "refused-doc",
    # misuse: a tangent dict missing keys of its primal dict ({"W": ...} for a dict with
    # W, b, v), to revsrc.hvp and revsrc.jvp: E306 "the tangent of p does not have its
    # primal's structure" (a bare ValueError at the branch point: crashed), documented
    "r19l_hvp_tangent_dict_missing_keys_refused": "refused-doc",
    "r19l_jvp_tangent_dict_missing_keys_refused": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
