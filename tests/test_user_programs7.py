"""Runs the user programs of tests/user_programs7*.py against their references.

Corpus 7 (see user_programs7_harness.py): solvers written inside the function (line
searches, bisection, Newton to a tolerance, adaptive Runge-Kutta, Romberg, CG), NumPy
network blocks, linear algebra and statistics, simulations and payoffs with masks and
in-place writes, Python around the numbers (classes, dataclasses, pytrees, try, globals
changed between calls), edge values, compositions, NumPy's own semantics (containers
sharing arrays, int destinations, 0-d arrays), jit on Python's int arithmetic, NumPy
scalars' IEEE arithmetic on the engine.  Each case has an independent reference (JAX
x64, autograd, self-checked central differences or a closed form); every refusal must
be a coded RevsrcError naming none of revsrc's internals (else it counts as "crashed").

``KNOWN`` records each case that is not "ok" today with its class: "refused-doc",
"refused-undoc", "wrong" or "crashed".  A KNOWN case must keep that outcome; one that
starts passing fails the test with a message asking to remove it from KNOWN.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs7" + s for s in "abcdefghijklmno"]

_ALIAS = "refused-doc"  # E404: an array reached through a list changed in place, held elsewhere

KNOWN = {
    # -- WRONG (none left) --------------------------------------------------------------------------
    # W1 (was wrong, now refused E404): an ndarray held in a list changed in place through the
    # list (xs[i] += v, xs[i] *= v: ndarray.__iadd__ changes the array itself) was not seen
    # through the other references to it (the name it came from, another item, the list read
    # later); the VALUE was wrong too.
    # a = np.zeros(2); xs = [a, a]; xs[0] += x; return np.sum(xs[1]) -> value 0, grad [0 0]
    # (plain: sum(x), grad [1 1])
    "r7_list_of_same_array_iadd_through_item": _ALIAS,  # xs = [a, a]; xs[0] += x; xs[1]
    "r7_list_mult_shared_array_iadd": _ALIAS,          # rows = [np.zeros(2)] * 3; rows[0] += x
    "r7_list_item_imul_seen_by_original_name": _ALIAS,  # xs = [a]; xs[0] *= 3.0; sum(a * x)
    "r7_state_list_inplace_seen_by_names": _ALIAS,     # state = [pos, vel]; state[1] += ...; pos
    "r7_nested_list_item_iadd_seen_by_name": _ALIAS,   # grid = [[a, ...], ...]; grid[0][0] += x
    "r7_list_negative_index_imul": _ALIAS,             # xs = [z, a]; xs[-1] *= 2.0; sum(a * x)
    "r7_appended_array_imul_through_list": _ALIAS,     # xs.append(a); xs[-1] *= 2.0; sum(a * x)
    "r7_view_in_list_iadd_writes_base": _ALIAS,        # xs = [y[0:2]]; xs[0] += 1.0; sum(y * x)
    "r7_row_views_in_list_imul": _ALIAS,               # rows = [A[i] for i in ...]; rows[1] *= 5
    "r7_list_shared_array_iadd_backend_python": _ALIAS,  # the same with backend="python"
    "r7_list_shared_array_iadd_backend_jax": _ALIAS,     # and backend="jax"
    # -- CRASHED (none left) -------------------------------------------------------------------------
    # C2 (was a TypeError "float() argument must be ... not 'complex'"; now refused E305):
    # y = np.zeros(2); y[0] = x * (1 + 1j)
    "r7_complex_into_float_array": "refused-doc",      # E305 y[0] = x * (1 + 1j) (NumPy: TypeError)
    # -- refused, documented ----------------------------------------------------------------------------
    "r7_adaptive_simpson_value_recursion_E103": "refused-doc",   # recursion on a float tolerance
    "r7_conv1d_sliding_window_view": "refused-doc",      # E202 library functions with no rule:
    "r7_qr_least_squares_residual": "refused-doc",       #   sliding_window_view, np.linalg.qr,
    "r7_np_corrcoef": "refused-doc",                     #   np.corrcoef, dataclasses.replace,
    "r7_dataclass_replace_inside": "refused-doc",        #   functools.reduce, np.nanmax,
    "r7_functools_reduce_function_list": "refused-doc",  #   complex(x, 1.0)
    "r7_builtin_complex_constructor": "refused-doc",
    "r7_closures_in_loop_default_capture": "refused-doc",  # E101 lambda v, k=k: ... appended
    "r7_for_item_imul_changes_list_arrays": "refused-doc",  # E404 for v in vs: v *= 3.0
    "r7_list_item_read_then_iadd": "refused-doc",        # E404 a = xs[0]; a += x
    "r7_ndarray_fill_method": "refused-doc",             # E401 y.fill(x), discarded call
    "r7_ndarray_sort_method_inplace": "refused-doc",     # E401 y.sort()
    "r7_put_along_axis": "refused-doc",                  # E401 np.put_along_axis
    "r7_ufunc_out_same_array": "refused-doc",            # E401 np.negative(y, out=y)
    "r7_ping_pong_buffers_swap": "refused-doc",          # E404 cur, nxt = nxt, cur in a loop
    "r7_global_array_item_write": "refused-doc",         # E403 GA[0] = x (a write to a global)
    "r7_np_block_2x2": "refused-doc",                    # E202 np.block
    "r7_tolist_then_generator": "refused-doc",           # E202 x.tolist() (a method with no rule)
    # -- refused, undocumented --------------------------------------------------------------------------
    # E403 a memoizing decorator's closure dict cache: changing what outlives the call
    "r7_decorator_memoize_dict_cache": "refused-doc",
    # E404 xs = [a]; xs[0][1] = v: an item assignment into an array held in a list (the array
    # changes wherever it is held; docs/refusals.md)
    "r7_list_item_setitem_made_here": "refused-doc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
