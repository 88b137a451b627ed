"""Round 12 of user programs (tests/user_programs12_*.py): new domains and Python styles
(orbital mechanics, finance, molecular dynamics, graphics, econometrics, audio, traffic and
games, in-place NumPy writes, rebinding between calls, compositions, edge values, pytrees,
checkpointed loops), each checked against JAX with x64, autograd, central differences or
a closed form."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs12_" + s for s in "abcdefghijklmnopqrstuvwxyz"
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs12_{s}.py"))]

KNOWN = {
    # -- part e
    # np.logaddexp.accumulate in the untaken arm of `a if stable else b` (stable=False):
    # E202 (a NumPy function with no rule, documented), refused while transforming although
    # this call never runs it; the taken arm alone (r12_cox_partial_cumsum) is right
    "r12_cox_untaken_accumulate": "refused-doc",
    # -- part h
    # z.real = x[:3] on a complex array made in the function: E401 writing an attribute
    # (documented); z.real[:] = x[:3] works (r12_real_imag_slice_write)
    "r12_real_imag_setattr": "refused-doc",
    # np.multiply(x, x, out=y), discarded: E401 (documented: out=)
    "r12_ufunc_out_kwarg_discarded": "refused-doc",
    # y = np.exp(x, out=y): E401 "out= makes exp write its result into an existing array"
    # (documented: out=); the gradient is exp(x)
    "r12_ufunc_out_kwarg_assigned": "refused-doc",
    # -- part i
    # f.__defaults__ = (3.0,) after df = revsrc.grad(f): df keeps using the old default
    # p=2.0 and returns 3.0; f(1.5) now is 1.5**3, whose derivative is 6.75
    "r12_defaults_tuple_replaced": "wrong",
    # the same with a keyword-only default, f.__kwdefaults__ = {"p": 3.0}: 3.0, right 6.75
    "r12_kwdefaults_replaced": "wrong",
    # revsrc.jit(f) then f.__defaults__ = (4.0,): the compiled value is 2.25 (old p=2), while
    # f(1.5) is 5.0625 -- a wrong VALUE, not only a derivative
    "r12_defaults_replaced_jit_value": "wrong",
    # value_and_grad made before f.__defaults__ changes: (2.25, 3.0), right (3.375, 6.75)
    "r12_defaults_replaced_value_and_grad": "wrong",
    # linearize's f_jvp called after a global the function reads is rebound: E204, documented
    "r12_linearize_after_global_rebound": "refused-doc",
    # -- part j
    # f = revsrc.jit(helper) made inside the differentiated function, then f(x, 2x): E101
    # "calling a value computed inside the function"; the docs say partials and derivatives
    # made and called in the function work (revsrc.grad made inside does), and a jit made
    # at module level and called inside works (r12_grad_of_module_jit_called_inside);
    # a jit made inside is not among E101's examples. Right answer: 7.896211940972
    "r12_grad_of_jit_called_inside": "refused-undoc",
    # np.random.default_rng(0) made inside a backend="jax" function: E603 (no jax.numpy
    # lowering, documented); the default backend computes it (r12_rng_inside_default_backend)
    "r12_rng_inside_jax_backend": "refused-doc",
    # rng.normal() of a Generator argument with backend="jax": E603, documented
    "r12_rng_argument_jax_backend": "refused-doc",
    # -- part k
    # revsrc.grad(lambda x: x * x)(3): E301 an int argument, documented (JAX refuses too)
    "r12_int_argument_to_float_only_grad": "refused-doc",
    # -- part l
    # hessian with respect to a NamedTuple: E104, documented
    "r12_namedtuple_hessian_refused": "refused-doc",
    # grad with respect to {"w": 1.5, "n": 3}: E301 an int leaf, documented
    "r12_dict_with_int_leaf": "refused-doc",
    # -- part m
    # divmod(theta, 1.0): E202, a builtin with no rule (documented kind); `%` alone works
    "r12_mod_and_divmod": "refused-doc",
    # a local dict {"relu": lambda v: max(v, 0.0), "tanh": math.tanh, ...} called by a
    # run-time key: E101 "calling a value computed inside the function"; E101's docs name
    # lambdas used as values that read the function's variables (these read none) and say
    # a global dict of functions works (r12_global_dict_dispatch_runtime_key does).
    # Right answers: 1.0, 1 - tanh(0.4)^2, sigmoid(0.4)
    "r12_dict_of_lambdas_local_dispatch": "refused-undoc",
    # fs = (math.sin, math.cos); fs[0](x) + fs[1](x), a local tuple by constant index:
    # E101 as above; the docs refuse items of a global list only (a global tuple works).
    # Right answer cos(0.3) - sin(0.3)
    "r12_local_tuple_of_functions": "refused-undoc",
    # table = {"sq": lambda v: v * v, "cube": lambda v: v ** 3}; table[kind](x): E101, as
    # above (the lambdas capture nothing); right answer 3 * 1.5^2 = 6.75
    "r12_local_dict_of_lambdas_no_capture": "refused-undoc",
    # pos = filter(...) kept in a name, then sum(map(..., pos)): E101, documented (an iterator
    # kept for later); inline it works (r12_map_filter_inline)
    "r12_map_filter_lambdas": "refused-doc",
    # -- part o
    # f.__code__ = g.__code__ after df = revsrc.grad(f): df still differentiates the old body
    # (4.0 for x*x at 2), while f now computes x**3 (right: 12.0); a new revsrc.grad(f) is right
    "r12_function_code_replaced": "wrong",
    # p = functools.partial(f, a=2.0); df = revsrc.grad(p); p.keywords["a"] = 5.0 (p(1.0) is
    # now 5.0): df(1.0) stays 4.0, right 10.0
    "r12_partial_keywords_mutated": "wrong",
    # -- part p
    # np.heaviside: E202 (a NumPy function with no rule, documented)
    "r12_heaviside_times_x": "refused-doc",
    # -- part q
    # revsrc.jit of `math.sqrt(x) if x >= 0 else float("nan")`: E502 "the constant 'nan' is
    # not a float, int or bool" -- float("nan") of a str constant is not among E502's
    # documented kinds; jit(grad(f)) of such code works. Right value: nan
    "r12_jit_float_nan_string": "refused-undoc",
    # revsrc.jit / revsrc.vmap of a running minimum starting at best = float("inf"): E502
    # "the constant 'inf' is not a float, int or bool" (math.inf works, and so does
    # revsrc.jit(revsrc.grad(f)) of the same f). Right: 0.09 at 1.3, [0.09, 0.04]
    "r12_jit_float_inf_string_running_min": "refused-undoc",
    "r12_vmap_float_inf_string_running_min": "refused-undoc",
    # -- part r
    # getattr(math, name)(x) with name a str argument: E101 "calling a value computed inside
    # the function" (not among E101's examples). Right: cos(0.3), -sin(0.3), exp(0.3)
    "r12_getattr_module_function_by_name": "refused-undoc",
    # globals()["GK"] * x: E401 "calling globals() is a side effect" (globals() is not among
    # E401's examples). Right: 2.0 then 7.0 after GK is rebound
    "r12_globals_dict_lookup": "refused-undoc",
    # df = revsrc.grad(s) of a callable object, then Scaler.__call__ replaced on the class
    # (s(1.0) now 5.0): df(1.0) stays 4.0 (old 2x^2), right 10.0; a new grad is right
    "r12_dunder_call_replaced_on_class": "wrong",
    # revsrc.jit(s) then Scaler2.__call__ replaced by 7x: jf(1.0) returns 2.0, s(1.0) is 7.0
    "r12_dunder_call_replaced_on_class_jit_value": "wrong",
    # -- part u
    # calls_helper(x) = helper_p(x) + x; df made, then helper_p.__defaults__ = (3.0,): df(1.5)
    # stays 4.0 (old p=2), right 3 * 1.5^2 + 1 = 7.75
    "r12_helper_defaults_replaced": "wrong",
    # df = revsrc.grad(two_sin), two_sin(x) = 2 sin x; math.sin = math.cos (monkeypatched):
    # df(0.5) stays 2 cos(0.5) = 1.755, right -2 sin(0.5) = -0.959 (a new grad is right);
    # docs/architecture.md says module attributes taken as fixed are guarded by identity
    "r12_monkeypatched_math_sin": "wrong",
    # np.tanh = np.sin with a derivative made before: 0.770 = 1 - sin(0.5)^2 -- the new
    # function's value through tanh's old rule; right cos(0.5) = 0.878
    "r12_monkeypatched_np_tanh": "wrong",
    # revsrc.jit(two_sin) then math.sin = math.cos: jf(0.5) = 0.959 (old sin), the plain
    # call gives 2 cos(0.5) = 1.755: a wrong value
    "r12_monkeypatched_math_sin_jit_value": "wrong",
    # -- part v
    # x.round(1) (the method; np.round works): E202, a method with no rule (documented kind)
    "r12_round_conj_astype_methods": "refused-doc",
    # x.tolist() of a differentiated array: E202, a method with no rule (documented kind)
    "r12_tolist_python_loop": "refused-doc",
    "r12_sorted_tolist": "refused-doc",
    # out.fill(0.5) on an array made in the function: E401, a discarded call (documented)
    "r12_fill_method_then_write": "refused-doc",
    # for v in A.flat: E202, an attribute with no rule used on a differentiated value (documented kind)
    "r12_flat_iterator_loop": "refused-doc",
    # for (i, j), v in np.ndenumerate(A): E202, a NumPy function with no rule (documented kind)
    "r12_ndenumerate_loop": "refused-doc",
    # -- part w
    # Osc.run calls self.step(x) whose default dt=0.1; Osc.step.__defaults__ = (0.2,) after
    # df = revsrc.grad(o.run): df(1.0) stays 0.4211 (dt=0.1), right 0.1745 (dt=0.2)
    "r12_method_defaults_replaced_on_class": "wrong",
    # -- part x
    # README: "itertools.islice (of itertools.count() too)" works; the gradient (and jvp,
    # jit(grad)) of `for k in itertools.islice(itertools.count(1), 5): s += x**k / k` builds
    # list(itertools.count(1)) -- an endless list: MemoryError under a 1 GB cap (uncapped the
    # process is OOM-killed). Right: sum 0.5^(k-1), k=1..5 = 1.9375
    "r12_islice_count_start_series": "crashed",
    # the same with itertools.count() (no start): right 10.0
    "r12_islice_count_default_start": "crashed",
    # for k, v in zip(itertools.count(), xs): the same endless list; right [0, 4, 12]
    "r12_zip_with_count": "crashed",
    # for k in itertools.count(): if k >= 5: break: the same; right 10.0
    "r12_count_loop_with_break": "crashed",
    # -- part m, continued
    # `np.trapezoid(...) if hasattr(np, "trapezoid") else np.trapz(...)` (NumPy-version
    # compatibility; this NumPy has no np.trapz, and that arm never runs): E105 "module numpy
    # has no attribute 'trapz'", while transforming, its hint saying "Python would fail when
    # the line runs" -- it never runs. Right: [-0.05, 0.6, 0.04] (np.trapezoid alone works)
    "r12_version_compat_ternary_hasattr": "refused-undoc",
    # the same written `if hasattr(np, "trapezoid"): return np.trapezoid(...)` then
    # `return np.trapz(...)`: E105 at the unreachable line
    "r12_version_compat_if_hasattr": "refused-undoc",
    # -- part p, continued: library functions with no rule, E202 (documented kind)
    "r12_norule_scipy_erfinv": "refused-doc",
    "r12_norule_eigvals": "refused-doc",
    "r12_norule_correlate": "refused-doc",
    "r12_norule_corrcoef": "refused-doc",
    "r12_norule_ptp": "refused-doc",
    "r12_norule_multi_dot": "refused-doc",
    "r12_norule_block": "refused-doc",
    # -- part s, continued: writes into the caller's array (E403: through an alias b = x, an
    # np.asarray alias, a slice x[:], a reshape view), a name that is a copy in one arm and
    # the argument in the other (E404), np.negative(x, out=x) and x.sort() (E401): documented
    "r12_alias_iadd_argument": "refused-doc",
    "r12_asarray_alias_write_argument": "refused-doc",
    "r12_slice_alias_imul_argument": "refused-doc",
    "r12_reshape_alias_write_argument": "refused-doc",
    "r12_conditional_copy_or_alias_write": "refused-doc",
    "r12_ufunc_out_is_argument": "refused-doc",
    "r12_sort_in_place_argument": "refused-doc",
    # -- part k, continued: NumPy float32/float16 SCALAR arguments
    # value_and_grad(affine)(np.float32(0.1)), affine(x) = x * 3 + 0.1: the value is a Python
    # float computed in float64 from the float32 input, 0.40000000447034834; the plain call is
    # np.float32(0.4) = 0.4000000059604645 (NumPy's float32 arithmetic). The gradient is
    # float32 3.0 (right); jit(affine_loop)(np.float32) and float32 arrays give the plain bits
    "r12_value_and_grad_float32_scalar_value": "wrong",
    # the same through a 5-step loop: 0.22210200239984704 vs np.float32(0.22210206)
    "r12_value_and_grad_float32_scalar_loop_value": "wrong",
    # np.float16(0.1): 0.3999267578125 vs np.float16(0.4) = 0.39990234375 (6e-5 relative)
    "r12_value_and_grad_float16_scalar_value": "wrong",
    # jvp's primal output for np.float32(0.1): 0.40000000447 (float), right np.float32(0.4)
    "r12_jvp_float32_scalar_primal_out": "wrong",
    # np.vdot of a complex array: E202, a NumPy function with no rule (documented kind)
    "r12_complex_vdot": "refused-doc",
    # -- part z, continued
    # revsrc.hessian of an array loop scaled by an int the loop index picks through a
    # conditional expression, `sgn = 1 if k % 3 else -1; x = x + 0.01 * np.tanh(x) * sgn`:
    # E104 "a step of the derivative revsrc wrote for this line has no rule of its own yet"
    # at the `for` line (not among E104's documented rules); with 1.0 / -1.0 it works
    # (r12_hessian_float_sign_array_loop), and so does grad. Right: autograd's Hessian
    "r12_hessian_int_sign_array_loop": "refused-undoc",
    # hvp of the same: E104 as above
    "r12_hvp_int_sign_array_loop": "refused-undoc",
    # the same family: `y = np.tanh(y) * (-1) ** k` and `* max(k, 1)` in a loop: E104 for
    # revsrc.hessian (`* (k + 1)` works: r12_hessian_int_plus_one_scale_array_loop)
    "r12_hessian_pow_int_sign_array_loop": "refused-undoc",
    "r12_hessian_int_max_scale_array_loop": "refused-undoc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
