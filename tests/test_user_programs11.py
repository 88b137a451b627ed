"""Round 11 of user programs (tests/user_programs11_*.py): new domains and Python styles,
each checked against JAX with x64, autograd, central differences or a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs11_" + s for s in "abcdefghijklmnopqrstuvwxyz"
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs11_{s}.py"))]

KNOWN = {
    # -- part a
    # -- part b
    # -- part c
    # functools.reduce(step, games, 0.0) with a nested def: E101 "a nested function can only be
    # called, not passed as a value" (documented for a lambda used as a value)
    "r11_bradley_terry_reduce": "refused-doc",
    # -- part e
    "r11_match_strings": "refused-doc",  # match: E101, documented
    "r11_walrus_while": "refused-doc",  # `:=`: E101, documented
    "r11_walrus_comprehension": "refused-doc",  # `:=`: E101, documented
    # functools.reduce(operator.mul, xs, 1.0): E202 (standard library function with no rule)
    "r11_reduce_operator_mul": "refused-doc",
    "r11_reduce_lambda": "refused-doc",  # functools.reduce(lambda ...): E202, as above
    # statistics.mean / pvariance / fmean: E202 (standard library function with no rule)
    "r11_statistics_mean_pvariance": "refused-doc",
    "r11_statistics_fmean": "refused-doc",
    "r11_for_else": "refused-doc",  # for ... else: E102, documented
    "r11_global_counter": "refused-doc",  # global: E402, documented
    "r11_augassign_attribute": "refused-doc",  # a.total += ...: E401 writing an attribute, documented
    # -- part f
    # grad of a function calling revsrc.jacfwd of an array-valued flow map (FTLE): E104,
    # documented (a Jacobian of an array-valued function called inside a transformed one)
    "r11_grad_through_jacfwd_ftle": "refused-doc",
    # -- part g
    # -- part h
    # p = {**{"a": 1.0}, **p}: ** in a dict literal now merges (tests/test_round11_undoc.py),
    # but the dict argument p rebound crashes: UnboundLocalError (the C1 family); the
    # gradient is {"b": e^0.1}
    # np.logaddexp.accumulate: E202 (a NumPy function with no rule, documented)
    "r11_logaddexp_accumulate": "refused-doc",
    # -- part i
    # revsrc.jit of a scalar two-box climate model that appends each year's temperature to
    # a list and reads traj[-1] and len(traj): E502, documented (a list the function builds
    # and reads other than by sum), its message now saying so, with the rewrite as its hint
    "r11_two_box_jit": "refused-doc",
    # -- part j
    # NumPy / standard-library functions with no rule: E202, documented for a library
    # function with no rule (np.meshgrid, np.unique, np.linalg.qr, math.dist, complex(),
    # itertools.pairwise / accumulate)
    "r11_meshgrid": "refused-doc",
    "r11_unique_values": "refused-doc",
    "r11_qr_log_abs_det": "refused-doc",
    "r11_math_dist": "refused-doc",
    "r11_abs_of_complex_builtin": "refused-doc",
    "r11_itertools_pairwise": "refused-doc",
    "r11_itertools_accumulate": "refused-doc",
    # min(xs, default=0.0) and zip(xs, ys, strict=True): E202, a keyword the rule does not
    # take (documented kind; zip's message says "zip has no derivative rule")
    "r11_min_with_default": "refused-doc",
    # a helper decorated with functools.cache (a C wrapper): E202, no source (documented)
    # -- part l
    # [lambda v: v * k for k in range(3)] called later: E101, documented (a lambda used as a value)
    "r11_lambdas_late_binding": "refused-doc",
    # a nested def writing state["acc"] of the enclosing function: E403, documented
    "r11_closure_writes_enclosing_dict": "refused-doc",
    "r11_list_sort_method": "refused-doc",  # xs.sort(): E401, a discarded call (documented)
    # -- part m
    # -- part n
    # y = x; loop: y = y * 0.9; y += A @ y * 0.1: E404 (a name assigned in several places, one an
    # alias), documented -- though at the += y always holds a fresh array
    "r11_loop_augassign_after_rebind": "refused-doc",
    # -- part o
    # rows = list(A); rows[0] *= 3.0: E404, documented (xs[i] op= v on a list item another view holds)
    "r11_list_of_row_views_scaled": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
