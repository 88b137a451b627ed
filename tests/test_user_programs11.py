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
    # grad(f)((0.9, 0.1, -0.3, 0.2)) where f does `q = qnormalize(q)` (a helper returning a tuple
    # rebinding the tuple argument): UnboundLocalError 'qrotate_q'; JAX: the gradient
    "r11_quat_rotate_tuple": "crashed",
    # hessian of a function of an array that builds `tuple(c / n for c in q)`: E104 "reading or
    # writing items of a list or dict has no rule"; JAX's hessian computes it
    "r11_quat_rotate_hessian_list": "refused-undoc",
    # -- part b
    # hessian through np.linalg.solve (Crank-Nicolson in kappa): E104, documented for solve
    "r11_crank_nicolson_hess_kappa": "refused-doc",
    # -- part c
    # np.linalg.eigvalsh has no rule: E202 (a library function with no rule, documented)
    "r11_fiedler_eigvalsh": "refused-doc",
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
    # operator.itemgetter("w")(params): E101 "calling a value computed inside the function";
    # nothing documents refusing it; the gradient is {"w": 3.0, "b": 1.0}
    "r11_operator_itemgetter": "refused-undoc",
    # statistics.mean / pvariance / fmean: E202 (standard library function with no rule)
    "r11_statistics_mean_pvariance": "refused-doc",
    "r11_statistics_fmean": "refused-doc",
    # a subclass's method calling super().forward(x) (also Base.forward(self, x)) on an object
    # built in the function: E202 "method .forward() ... has no derivative rule"; the docs say
    # objects built in the function have their methods inlined; the reference is JAX's
    "r11_inheritance_super": "refused-undoc",
    # an object with __getitem__/__len__ built in the function, indexed t[i]: E105 "a Table is
    # not a sequence"; the gradient is 2 (1 + 2x + e^x)
    "r11_getitem_container": "refused-undoc",
    "r11_for_else": "refused-doc",  # for ... else: E102, documented
    "r11_global_counter": "refused-doc",  # global: E402, documented
    "r11_augassign_attribute": "refused-doc",  # a.total += ...: E401 writing an attribute, documented
    # -- part f
    # grad of a function calling revsrc.jacfwd of an array-valued flow map (FTLE): E104,
    # documented (a Jacobian of an array-valued function called inside a transformed one)
    "r11_grad_through_jacfwd_ftle": "refused-doc",
    # -- part g
    # hessian of a neo-Hookean energy through np.linalg.det: E104, documented for det
    "r11_neo_hookean_tangent_moduli": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
