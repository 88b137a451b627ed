"""Round 14, part s: Python semantics a transformation must keep -- late-binding closures,
aliases (x = y = array, list aliases), rebinding the iterable inside its loop, short-
circuit while tests, star unpacking, nested unpacking in for, reversed ranges, any/all,
list methods, raise on a branch not taken."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def late_binding(x):
    fs = []
    for k in range(3):
        def f(z):
            return z * k
        fs.append(f)
    return sum(g(x) for g in fs)


add(pair("r14_s_late_binding_closures_in_loop", lambda: revsrc.grad(late_binding)(1.5), lambda: 6.0, tol=0.0))


def late_binding_comprehension(x):
    fs = [lambda z: z ** k for k in range(1, 4)]
    return fs[0](x) + fs[1](x)


# every lambda sees k = 3: d/dx 2 x^3 = 6 x^2
add(pair("r14_s_late_binding_lambda_comprehension", lambda: revsrc.grad(late_binding_comprehension)(1.5), lambda: 6 * 2.25, tol=1e-14))


def closure_rebound_after_def(x):
    c = 2.0

    def h(z):
        return c * z

    c = 5.0
    return h(x)


add(pair("r14_s_closure_variable_rebound_after_def", lambda: revsrc.grad(closure_rebound_after_def)(1.0), lambda: 5.0, tol=0.0))


def chained_alias(x):
    a = b = np.zeros(3)
    a[0] = x[0] * 2.0
    b[1] = x[1] ** 2
    return np.sum(a * np.array([1.0, 10.0, 100.0])) + b[0]


X3 = np.array([0.5, -1.5, 2.0])
add(G("r14_s_chained_assignment_alias", chained_alias, (X3,), ref=lambda: np.array([4.0, -30.0, 0.0]), tol=0.0))


def list_alias_append(x):
    a = [x[0]]
    b = a
    b.append(x[1] * 3.0)
    return sum(a) * 2.0


add(G("r14_s_list_alias_append", list_alias_append, (X3,), ref=lambda: np.array([2.0, 6.0, 0.0]), tol=0.0))


def rebinding_iterable(x):
    s = 0.0
    for v in x:
        x = x * 2.0
        s += v * x[0]
    return s


add(G("r14_s_rebind_iterable_in_loop", rebinding_iterable, (X3,), ref="fd", tol=1e-8))


def short_circuit_while(x):
    i = 0
    s = 0.0
    while i < len(x) and x[i] > 0.0:
        s += x[i] ** 2
        i += 1
    return s + i


add(G("r14_s_short_circuit_while_index", short_circuit_while, (np.array([0.5, 1.5, 2.0]),), ref=lambda: np.array([1.0, 3.0, 4.0]), tol=0.0))
add(G("r14_s_short_circuit_while_stops", short_circuit_while, (np.array([0.5, -1.5, 2.0]),), ref=lambda: np.array([1.0, 0.0, 0.0]), tol=0.0))


def star_unpack(xs):
    first, *mid, last = xs
    return first * last + sum(m ** 2 for m in mid)


add(G("r14_s_star_unpacking", star_unpack, ([1.0, 2.0, 3.0, 4.0],), ref=lambda: [4.0, 4.0, 6.0, 1.0], tol=0.0))


def nested_unpack(pairs, ws):
    s = 0.0
    for (a, b), w in zip(pairs, ws):
        s += w * a * b
    return s


add(G("r14_s_nested_unpack_in_for", nested_unpack, ([(1.0, 2.0), (3.0, 4.0)], [0.5, 2.0]), ref=lambda: [(1.0, 0.5), (8.0, 6.0)], tol=0.0))


def reversed_ranges(x):
    s = 0.0
    for i in range(len(x) - 1, -1, -2):
        s = s * 0.5 + x[i]
    for i in reversed(range(len(x))):
        s += x[i] * i
    return s


add(G("r14_s_negative_step_reversed", reversed_ranges, (np.array([1.0, 2.0, 3.0, 4.0, 5.0]),), ref=lambda: np.array([1.0, 1.0, 2.5, 3.0, 4.25]), tol=1e-15))


def any_all(x):
    if all(v > -2.0 for v in x) and not any(v > 5.0 for v in x):
        return np.sum(x ** 2)
    return np.sum(x)


add(G("r14_s_any_all_generators", any_all, (X3,), ref=lambda: 2 * X3, tol=0.0))


def list_methods(xs):
    ys = list(xs)
    k = ys.index(max(ys))
    c = ys.count(ys[0])
    ys.reverse()
    return ys[0] * k + c * xs[1] + ys[-1]


add(G("r14_s_list_index_count_reverse", list_methods, ([1.0, 3.0, 2.0, 1.0],), ref="fd", tol=1e-10))


def raise_untaken(x):
    if x < -100.0:
        raise ValueError(f"x too small: {x}")
    return x * x


add(pair("r14_s_raise_on_untaken_branch", lambda: revsrc.grad(raise_untaken)(3.0), lambda: 6.0, tol=0.0))


def raise_taken(x):
    if x < 0.0:
        raise ValueError("negative")
    return x * x


def _raise_taken():
    try:
        revsrc.grad(raise_taken)(-3.0)
    except ValueError as e:
        return "ValueError: " + str(e)
    return "no error"


add(pair("r14_s_raise_on_taken_branch_propagates", _raise_taken, lambda: "ValueError: negative", tol=0.0))


def list_mult_alias(x):
    rows = [[0.0, 0.0]] * 2
    rows[0][0] = x
    return rows[1][0] * 3.0


add(pair("r14_s_list_times_aliases_rows", lambda: revsrc.grad(list_mult_alias)(2.0), lambda: 3.0, tol=0.0))


def tuple_swap_items(x):
    a = x.copy()
    a[0], a[2] = a[2], a[0]
    a[1], a[0] = a[0] * 2.0, a[1]
    return a @ np.array([1.0, 10.0, 100.0])


add(G("r14_s_tuple_swap_array_items", tuple_swap_items, (X3,), ref=lambda: np.array([100.0, 1.0, 20.0]), tol=0.0))


def shadow_builtin(x, sum=None):
    total = 0.0
    for v in x:
        total += v * v
    max_ = max
    return total + max_(x[0], x[1])


add(G("r14_s_builtin_renamed", shadow_builtin, (X3,), ref=lambda: 2 * X3 + np.array([1.0, 0.0, 0.0]), tol=0.0))


def dict_get_setdefault(x):
    d = {}
    d.setdefault("a", x * 2.0)
    d["b"] = d.get("b", 1.0) * x
    d.update(c=x ** 2)
    return sum(d.values()) + d.pop("a")


add(pair("r14_s_dict_get_setdefault_update_pop", lambda: revsrc.grad(dict_get_setdefault)(1.5), lambda: 2 + 1 + 3.0 + 2, tol=0.0))


def sum_start_empty(x):
    return sum((v * v for v in x[3:]), 1.0) * x[0] + sum([], x[1])


add(G("r14_s_sum_with_start_and_empty", sum_start_empty, (X3,), ref=lambda: np.array([1.0, 1.0, 0.0]), tol=0.0))


def list_index_only(xs):
    k = xs.index(max(xs))
    return xs[k] * 2.0 + k


add(G("r14_s_list_index_of_max", list_index_only, ([1.0, 3.0, 2.0],), ref=lambda: [0.0, 2.0, 0.0], tol=0.0))


def list_count_reverse(xs):
    ys = list(xs)
    c = ys.count(1.0)
    ys.reverse()
    return ys[0] * c + ys[-1]


add(G("r14_s_list_count_reverse", list_count_reverse, ([1.0, 3.0, 2.0, 1.0],), ref=lambda: [1.0, 0.0, 0.0, 2.0], tol=0.0))
