"""Round 12, part x: control flow users write -- generators kept for later and read twice,
itertools.islice(count()), worklists with pop(), early returns in nested loops, continue and
break in while loops, recursion on ints, np.errstate blocks, try/except in helpers."""
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked, ag, agify  # noqa: F401
from user_programs12_util import run_limited

CASES = []
add = CASES.append


def gen_read_twice(x):
    g = (x * k for k in range(4))
    a = sum(g)
    b = sum(g)        # empty: the generator is exhausted
    return a * a + b


add(pair("r12_generator_read_twice", lambda: revsrc.grad(gen_read_twice)(1.5), lambda: 2 * (6 * 1.5) * 6, tol=0.0))


def gen_list_then_tuple(x):
    g = (math.sin(x * k) for k in range(1, 4))
    first = list(g)
    second = tuple(g)
    return sum(first) + len(second)


add(pair("r12_generator_list_then_tuple", lambda: revsrc.grad(gen_list_then_tuple)(0.3),
         lambda: sum(k * math.cos(0.3 * k) for k in range(1, 4)), tol=1e-15))


def islice_count(x):
    s = 0.0
    for k in itertools.islice(itertools.count(1), 5):
        s += x ** k / k
    return s


def islice_count_zero(x):
    s = 0.0
    for k in itertools.islice(itertools.count(), 5):
        s += x * k
    return s


def zip_count(xs):
    s = 0.0
    for k, v in zip(itertools.count(), xs):
        s += k * v * v
    return s


def count_with_break(x):
    s = 0.0
    for k in itertools.count():
        if k >= 5:
            break
        s += x * k
    return s


def islice_of_generator_over_count(x):
    return sum(itertools.islice((x * k for k in itertools.count()), 5))


# README: "itertools.islice (of itertools.count() too)". These run in a child process capped
# at 1 GB: the gradient builds list(itertools.count(...)), an endless list (MemoryError there;
# unbounded, it exhausts the machine's memory)
def _limited_grad(fname, arg):
    return lambda: run_limited(f"import revsrc, user_programs12_x as m\nprint(repr(float(revsrc.grad(m.{fname})({arg!r}))) if "
                               f"not isinstance({arg!r}, list) else repr([float(v) for v in revsrc.grad(m.{fname})({arg!r})]))")


add(pair("r12_islice_count_start_series", _limited_grad("islice_count", 0.5),
         lambda: sum(0.5 ** (k - 1) for k in range(1, 6)), tol=1e-15))
add(pair("r12_islice_count_default_start", _limited_grad("islice_count_zero", 0.5), lambda: 10.0, tol=0.0))
add(pair("r12_zip_with_count", _limited_grad("zip_count", [1.0, 2.0, 3.0]), lambda: [0.0, 4.0, 12.0], tol=0.0))
add(pair("r12_count_loop_with_break", _limited_grad("count_with_break", 0.5), lambda: 10.0, tol=0.0))
add(pair("r12_islice_of_generator_over_count", lambda: revsrc.grad(islice_of_generator_over_count)(0.5), lambda: 10.0, tol=0.0))


def worklist(x):
    stack = [x, 2 * x, 3 * x]
    total = 0.0
    while stack:
        v = stack.pop()
        if v > 1.0:
            stack.append(v / 2)
        total += v
    return total


add(pair("r12_worklist_pop_append", lambda: revsrc.grad(worklist)(0.9), lambda: fd_checked(worklist, (0.9,))[0], tol=1e-8))


def early_return_nested(xs):
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] * xs[j] > 2.0:
                return xs[i] * xs[j] + i + j
    return sum(xs)


add(pair("r12_early_return_nested_loops", lambda: revsrc.grad(early_return_nested)([0.5, 1.5, 2.0, 0.1]),
         lambda: [0.0, 2.0, 1.5, 0.0], tol=0.0))
add(pair("r12_early_return_falls_through", lambda: revsrc.grad(early_return_nested)([0.5, 1.0, 0.2]), lambda: [1.0, 1.0, 1.0], tol=0.0))


def while_continue_break(x):
    s = 0.0
    k = 0
    while True:
        k += 1
        if k % 2 == 0:
            continue
        s += x ** k
        if s > 5.0 or k > 20:
            break
    return s


add(pair("r12_while_true_continue_break", lambda: revsrc.grad(while_continue_break)(1.3),
         lambda: fd_checked(while_continue_break, (1.3,))[0], tol=1e-7))


def legendre(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


def legendre5(x):
    return legendre(5, x)


add(pair("r12_recursion_on_int_unrolled", lambda: revsrc.grad(legendre5)(0.3),
         lambda: (315 * 0.3 ** 4 - 210 * 0.3 ** 2 + 15) / 8, tol=1e-13))
add(pair("r12_recursion_int_argument", lambda: revsrc.grad(legendre, argnums=1)(4, 0.3),
         lambda: (140 * 0.3 ** 3 - 60 * 0.3) / 8, tol=1e-13))


def errstate_block(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x != 0, np.sin(x) / x, 1.0)
    return np.sum(r)


add(pair("r12_errstate_where_sinc", lambda: revsrc.grad(errstate_block)(np.array([0.5, 2.0])),
         lambda: (lambda x: (x * np.cos(x) - np.sin(x)) / x ** 2)(np.array([0.5, 2.0])), tol=1e-14))


def safe_log_helper(v):
    try:
        return math.log(v)
    except ValueError:
        return -1e3 + v


def try_in_helper_loop(xs):
    return sum(safe_log_helper(v) for v in xs)


add(pair("r12_try_except_helper_in_generator", lambda: revsrc.grad(try_in_helper_loop)([2.0, -1.0, 0.5]),
         lambda: [0.5, 1.0, 2.0], tol=0.0))


def nested_break_flag(A):
    found = False
    acc = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            acc += A[i, j] ** 2
            if acc > 3.0:
                found = True
                break
        if found:
            break
    return acc


AM = np.array([[0.5, 1.0, 0.7], [1.2, 0.3, 0.9]])
add(pair("r12_nested_break_with_flag", lambda: revsrc.grad(nested_break_flag)(AM),
         lambda: np.array([[1.0, 2.0, 1.4], [2.4, 0.0, 0.0]]), tol=1e-15))


def for_over_dict_items(p):
    s = 0.0
    for name, v in sorted(p.items()):
        s = s * 2 + (v * v if name.startswith("w") else v)
    return s


add(pair("r12_for_over_sorted_dict_items", lambda: revsrc.grad(for_over_dict_items)({"w1": 1.0, "b": 2.0, "w2": 3.0}),
         lambda: {"b": 4.0, "w1": 4.0, "w2": 6.0}, tol=0.0))


def assert_in_loop(x):
    y = x
    for _ in range(3):
        y = y * 0.5 + 1.0
        assert y > 0, "positive"
    return y * y


add(pair("r12_assert_in_loop", lambda: revsrc.grad(assert_in_loop)(2.0), lambda: 2 * (2.0 / 8 + 1.75) / 8, tol=1e-15))


def ternary_chain(x):
    return x * x if x < 0 else (math.sqrt(x) if x < 4 else 2 + (x - 4) / 4)


add(pair("r12_ternary_chain", lambda: [revsrc.grad(ternary_chain)(v) for v in (-1.0, 1.0, 5.0)], lambda: [-2.0, 0.5, 0.25], tol=0.0))


def loop_else_free_search(xs, target):
    idx = -1
    for i, v in enumerate(xs):
        if v > target:
            idx = i
            break
    if idx < 0:
        return 0.0
    return xs[idx] * target


add(pair("r12_search_loop_index_flag", lambda: revsrc.grad(loop_else_free_search, argnums=(0, 1))([0.5, 1.5, 2.5], 1.0),
         lambda: ([0.0, 1.0, 0.0], 1.5), tol=0.0))
